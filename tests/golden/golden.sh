#!/usr/bin/env bash
# Golden bytes: run sdpa-var on every case in cases.txt with --format csv and
# compare the md5 of stdout (and the exit status) with expected.md5.
#   golden.sh BIN            check; names every case that changed, exit 1
#   golden.sh --update BIN   rewrite expected.md5 from BIN's output
#   golden.sh --status-only BIN   run every case, compare exit statuses only:
#                            for sanitizer builds, whose other optimisation
#                            level changes last digits (the bytes are the
#                            Release build's)
# A change not meant to change output must pass unchanged; one that is meant
# to regenerates with --update and names the changed cases in its commit.
set -u
dir=$(cd "$(dirname "$0")" && pwd)
update=0 status_only=0
if [ "${1:-}" = "--update" ]; then update=1; shift; fi
if [ "${1:-}" = "--status-only" ]; then status_only=1; shift; fi
if [ $# -ne 1 ] || [ ! -x "$1" ]; then
  echo "usage: golden.sh [--update] SDPA_VAR_BINARY" >&2
  exit 2
fi
bin=$1
cases=$dir/cases.txt
expected=$dir/expected.md5
got=$(mktemp) || exit 1
trap 'rm -f "$got"' EXIT

while read -r name args; do
  case $name in ''|'#'*) continue ;; esac
  # shellcheck disable=SC2086  # ARGS are words on purpose
  line=$("$bin" --format csv $args </dev/null 2>/dev/null | md5sum | cut -d' ' -f1
         echo "${PIPESTATUS[0]}")
  printf '%s %s %s\n' "$name" "${line#*$'\n'}" "${line%%$'\n'*}" >>"$got"
done <"$cases"

if [ $update -eq 1 ]; then
  cp "$got" "$expected"
  echo "golden: wrote $(wc -l <"$expected") cases to $expected"
  exit 0
fi
if [ ! -f "$expected" ]; then
  echo "golden: $expected missing; run golden.sh --update BIN" >&2
  exit 1
fi
changed=$(join -a1 -a2 -e MISSING -o 0,1.2,1.3,2.2,2.3 \
  <(sort "$expected") <(sort "$got") |
  awk -v s=$status_only '$2 != $4 || (!s && $3 != $5) { print $1 }')
total=$(wc -l <"$got")
if [ -n "$changed" ]; then
  for c in $changed; do
    echo "golden: case '$c' changed: $(grep "^$c " "$cases" | tr -s ' ')" >&2
  done
  echo "golden: $(echo "$changed" | wc -l) of $total cases changed" >&2
  exit 1
fi
echo "golden: $total cases unchanged"
