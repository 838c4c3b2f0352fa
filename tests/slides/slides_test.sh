#!/usr/bin/env bash
# cli.slides (issue 24 section 4): --format markdown and latex against the
# stored tables of cases.txt (tests/tolerance.py text comparison), and the
# options a slide table refuses (exit 2, one line naming them).
#   tests/slides/slides_test.sh SDPA_VAR_BINARY [--update]
set -u
BIN=${1:?usage: slides_test.sh SDPA_VAR_BINARY [--update]}
update=${2:-}
here=$(cd "$(dirname "$0")" && pwd)
tol="$here/../tolerance.py"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failed=0
while read -r name args; do
    case $name in '' | '#'*) continue ;; esac
    ext=md
    case " $args " in *" latex "*) ext=tex ;; esac
    want="$here/expected/$name.$ext"
    # shellcheck disable=SC2086 # the case's arguments, split as written
    if ! "$BIN" $args >"$tmp/got" 2>"$tmp/err"; then
        echo "FAIL: $name: exit $?: $(cat "$tmp/err")" >&2
        failed=1
        continue
    fi
    if [ "$update" = --update ]; then
        cp "$tmp/got" "$want"
    elif /usr/bin/python3 "$tol" text "$want" "$tmp/got" "$name"; then
        echo "ok: $name"
    else
        failed=1
    fi
done <"$here/cases.txt"
refuse() { # the arguments; must exit 2 with one line on stderr naming $1
    local code=0
    "$BIN" "$@" >"$tmp/out" 2>"$tmp/err" || code=$?
    if [ "$code" -eq 2 ] && [ ! -s "$tmp/out" ] && [ "$(wc -l <"$tmp/err")" -eq 1 ] &&
        grep -q -- "$1" "$tmp/err"; then
        echo "ok: refuses $*"
    else
        echo "FAIL: $*: exit $code, stderr: $(cat "$tmp/err")" >&2
        failed=1
    fi
}
refuse --per-trial --dk 8 --n 8 --trials 2 --format markdown
refuse --per-row --dk 8 --n 8 --format latex
refuse --histogram 10 --dk 8 --n 8 --format markdown
refuse --columns raw_var --dk 8 --n 8 --format latex
refuse --logits 1,2 --format state
exit $failed
