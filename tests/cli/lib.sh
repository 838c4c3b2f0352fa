# Shared by the CLI tests: counters, usage_error, column, within, done_tests.
# Source after setting BIN; ends with nothing run.
# shellcheck shell=bash
passed=0 failed=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# SV_TEST_TIMEOUT_SCALE (README, "Tests"; cmake/timeouts.cmake): a whole
# number that multiplies every hang guard here, as it does ctest's timeouts.
scale=${SV_TEST_TIMEOUT_SCALE:-1}

ok() { passed=$((passed + 1)); }
fail() { failed=$((failed + 1)); printf 'FAIL: %s\n' "$*" >&2; }

# usage_error EXPECTED_STDERR_LINE ARGS...: exit 2, empty stdout, that one line
# (matched as a bash pattern: a * stands for a number that depends on the machine).
usage_error() {
    local want=$1; shift
    "$BIN" "$@" >"$tmp/out" 2>"$tmp/err"
    local rc=$?
    local lines; lines=$(wc -l <"$tmp/err")
    if [ "$rc" -eq 2 ] && [ ! -s "$tmp/out" ] && [ "$lines" -eq 1 ] &&
        [[ "$(cat "$tmp/err")" == $want" (try 'sdpa-var --help')" ]]; then
        ok
    else
        fail "sdpa-var $* -> rc=$rc stdout=$(wc -c <"$tmp/out")B stderr=$(cat "$tmp/err") (want: $want)"
    fi
}

# column NAME FILE: values of a CSV column by header name (row 2 onward).
# A column missing from the header (or an empty file) is a failure that
# names the column: column runs in $(...), where fail's counter would be
# lost, so it records the failure in $tmp/missing, which done_tests counts.
column() {
    if ! awk -F, -v name="$1" 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == name) c = i
                                        if (!c) exit 1; next }
                               { print $c } END { if (!c) exit 1 }' "$2"; then
        printf 'FAIL: column %s: not in the header of %s\n' "$1" "$2" | tee -a "$tmp/missing" >&2
        return 1
    fi
}

# is_number TEXT: a decimal number (an empty or missing value is not).
is_number() {
    [[ $1 =~ ^[-+]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][-+]?[0-9]+)?$ ]]
}

# within GOT WANT SE K LABEL: |got - want| <= K * SE. Each of GOT, WANT, SE
# must be a number: an empty value (a missing column) fails, never reads as 0.
within() {
    if ! is_number "$1" || ! is_number "$2" || ! is_number "$3"; then
        fail "$5: not numbers: got '$1', want '$2', SE '$3'"
    elif awk -v g="$1" -v w="$2" -v s="$3" -v k="$4" 'BEGIN { d = g - w; if (d < 0) d = -d; exit !(d <= k * s) }'; then
        ok; printf 'ok %s: %s vs %s (SE %s)\n' "$5" "$1" "$2" "$3"
    else
        fail "$5: got $1, want $2 within $4 x $3"
    fi
}

# usage_exact EXPECTED_STDERR_LINE ARGS...: as usage_error, compared as a
# plain string (for lines with \, [ or * in them).
usage_exact() {
    local want=$1; shift
    "$BIN" "$@" >"$tmp/out" 2>"$tmp/err"
    local rc=$?
    if [ "$rc" -eq 2 ] && [ ! -s "$tmp/out" ] && [ "$(wc -l <"$tmp/err")" -eq 1 ] &&
        [ "$(cat "$tmp/err")" = "$want (try 'sdpa-var --help')" ]; then
        ok
    else
        fail "sdpa-var $(printf '%q ' "$@")-> rc=$rc stderr=$(cat -v "$tmp/err") (want: $want)"
    fi
}

# done_tests: the summary line and the exit status; failures column() noted
# count too, and a script that checked nothing fails.
done_tests() {
    if [ -s "$tmp/missing" ]; then
        failed=$((failed + $(wc -l <"$tmp/missing")))
    fi
    [ "$passed" -gt 0 ] || fail "no check ran"
    printf '%d passed, %d failed\n' "$passed" "$failed"
    [ "$failed" -eq 0 ]
}
