#!/usr/bin/env bash
# Golden output: run sdpa-var on every case in cases.txt with --format csv and
# compare stdout, field by field, with expected/NAME.csv within the tolerance
# that holds across CPUs and OpenBLAS kernels (tests/tolerance.py states and
# derives it), and the exit status with expected/status exactly.
#   golden.sh BIN            check; prints case, row, column, both values and
#                            their relative difference for each mismatch
#   golden.sh --update BIN   rewrite expected/ from BIN's output (then read
#                            `git diff tests/golden` and name the changed
#                            cases in the commit)
# Byte-exact comparisons belong to runs made in the same test (threads,
# block rows: tests/cli, tests/test_engine.c); stored numbers are compared
# with tolerance, so this passes on any x86-64 CPU and OpenBLAS core type.
set -u
dir=$(cd "$(dirname "$0")" && pwd)
update=0
if [ "${1:-}" = "--update" ]; then update=1; shift; fi
if [ $# -ne 1 ] || [ ! -x "$1" ]; then
  echo "usage: golden.sh [--update] SDPA_VAR_BINARY" >&2
  exit 2
fi
bin=$1
expected=$dir/expected
got=$(mktemp -d) || exit 1
trap 'rm -rf "$got"' EXIT

n=0
while read -r name args; do
  case $name in ''|'#'*) continue ;; esac
  # shellcheck disable=SC2086  # ARGS are words on purpose
  "$bin" --format csv $args </dev/null >"$got/$name.csv" 2>/dev/null
  printf '%s %s\n' "$name" "$?" >>"$got/status"
  n=$((n + 1))
done <"$dir/cases.txt"

if [ $update -eq 1 ]; then
  rm -rf "$expected"
  mkdir -p "$expected"
  cp "$got"/* "$expected"/
  echo "golden: wrote $n cases to $expected"
  exit 0
fi
if [ ! -d "$expected" ]; then
  echo "golden: $expected missing; run golden.sh --update BIN" >&2
  exit 1
fi
changed=0
while read -r name status; do
  want=$(awk -v n="$name" '$1 == n { print $2 }' "$expected/status")
  bad=0
  if [ "$want" != "$status" ]; then
    echo "golden: $name: exit status $status, expected ${want:-(no such case)}" >&2
    bad=1
  fi
  if [ ! -f "$expected/$name.csv" ]; then
    echo "golden: $name: $expected/$name.csv missing" >&2
    bad=1
  elif ! /usr/bin/python3 "$dir/../tolerance.py" csv "$expected/$name.csv" "$got/$name.csv" \
      "$name" >&2; then
    bad=1
  fi
  if [ $bad -eq 1 ]; then
    echo "golden: case '$name' changed: $(grep "^$name " "$dir/cases.txt" | tr -s ' ')" >&2
    changed=$((changed + 1))
  fi
done <"$got/status"
stored=$(wc -l <"$expected/status")
if [ "$stored" -ne "$n" ]; then
  echo "golden: $stored cases stored, $n in cases.txt" >&2
  changed=$((changed + 1))
fi
if [ $changed -gt 0 ]; then
  echo "golden: $changed of $n cases changed" >&2
  exit 1
fi
echo "golden: $n cases within tolerance (tests/tolerance.py)"
