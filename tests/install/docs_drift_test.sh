#!/usr/bin/env bash
# docs_drift_test.sh BIN SOURCE_DIR: the long options of `sdpa-var --help`
# are exactly those of the option table (src/cli/*/*.[ch]), of the man page
# (docs/sdpa-var.1.scd) and of the bash completion (completion/sdpa-var.bash,
# asked as bash would ask it). The names the completion offers for --dist,
# --init, --scale and --format are those the binary accepts, and the man page
# names them. Options are added in parallel: none may go missing.
set -u
BIN=$1 SRC=$2
scd=$SRC/docs/sdpa-var.1.scd comp=$SRC/completion/sdpa-var.bash
failed=0
fail() { printf 'FAIL: %s\n' "$*"; failed=$((failed + 1)); }
longopts() { grep -oE -- '--[a-z]([a-z0-9-]*[a-z0-9])?' | sort -u; }
# same NAME A B: the two sets of options are equal, else say which differ.
same() {
    local extra missing
    extra=$(comm -13 <(printf '%s\n' "$2") <(printf '%s\n' "$3") | tr '\n' ' ')
    missing=$(comm -23 <(printf '%s\n' "$2") <(printf '%s\n' "$3") | tr '\n' ' ')
    [ -z "$missing" ] || fail "$1 lacks $missing"
    [ -z "$extra" ] || fail "$1 has options --help does not list: $extra"
}
# complete WORD...: what the completion offers for the last word.
complete_words() {
    bash -c 'source "$0"; COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); COMPREPLY=()
             _sdpa_var; printf "%s\n" "${COMPREPLY[@]}"' "$comp" sdpa-var "$@"
}

help=$("$BIN" --help | longopts)
[ "$(wc -l <<<"$help")" -ge 30 ] || fail "--help lists only $(wc -l <<<"$help") long options"
# The option table: getopt's struct option rows, or X(ID, "name", ...) rows.
table=$(cat "$SRC"/src/cli/*/*.[ch] |
    sed -nE -e 's/^[[:space:]]*\{"([a-z][a-z0-9-]*)", *(no|required|optional)_argument.*/--\1/p' \
        -e 's/^[[:space:]]*X\([A-Z0-9_]+, *"([a-z][a-z0-9-]*)",.*/--\1/p' |
    sort -u)
same "the option table (src/cli/*/*.[ch])" "$help" "$table"
same "the man page docs/sdpa-var.1.scd" "$help" "$(grep -v '^; ' "$scd" | longopts)"
same "the completion (for '--')" "$help" "$(complete_words -- | sort -u)"

# The installed completion is the program's own (issue 40): made from the
# option table, never edited by hand.
cmp -s <("$BIN" --completion bash) "$comp" ||
    fail "completion/sdpa-var.bash differs from \`sdpa-var --completion bash\` (write it with that)"

for opt in --dist --init --scale --format --plot --layout --pool --completion; do
    offered=$(complete_words "$opt" '' | sort -u)
    [ -n "$offered" ] || { fail "completion offers nothing after $opt"; continue; }
    for v in $offered; do
        "$BIN" "$opt" "$v" --help >/dev/null 2>&1 || fail "completion offers $opt $v, which sdpa-var rejects"
        grep -qF "*$v*" "$scd" || fail "the man page does not name $opt's *$v*"
    done
    # Every name that the binary's error message lists and accepts is offered.
    for w in $("$BIN" "$opt" 'no-such-name' 2>&1 >/dev/null | sed "s/.*no-such-name'//" |
               grep -oE '[a-z][a-z0-9]*'); do
        if "$BIN" "$opt" "$w" --help >/dev/null 2>&1 && ! grep -qx -- "$w" <<<"$offered"; then
            fail "sdpa-var accepts $opt $w; the completion does not offer it"
        fi
    done
done

[ "$failed" -eq 0 ] && echo "docs_drift: $(wc -l <<<"$help") long options agree"
exit $((failed > 0))
