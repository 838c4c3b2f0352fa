#!/usr/bin/env bash
# check_size.sh [ROOT]: issue 10's size limits, as ctest style.sizes runs it.
#   - no file under src/ or include/ (*.c, *.h) longer than 600 lines;
#   - no function in src/ (*.c) longer than 80 lines.
# A function's length is the lines from its opening brace to its closing
# brace, both included (the signature above the brace is not counted).
# The house style (.clang-format: BreakBeforeBraces Linux) puts both
# braces of a function, and only of a function, alone at column 0, so a
# line "{" opens one and the next line "}" closes it; the name is taken
# from the last line before the "{" that starts at column 0 and holds a
# "(". Prints one line per excess and exits 1 if there is any.
set -u
root=${1:-$(cd "$(dirname "$0")/.." && pwd)}
cd "$root" || exit 2
max_file=600 max_func=80
files=$(find src include -name '*.[ch]' | LC_ALL=C sort)
[ -n "$files" ] || { echo "check_size.sh: no sources under $root" >&2; exit 2; }
# shellcheck disable=SC2086
out=$(awk -v max_func=$max_func '
FNR == 1 { sig = ""; open = 0 }
/^[A-Za-z_].*\(/ && !open { sig = $0; sigline = FNR }
/^\{$/ {
    if (open)
        printf "%s:%d: \"{\" at column 0 inside a function\n", FILENAME, FNR
    open = FNR
    next
}
/^\}$/ && open {
    n = FNR - open + 1
    if (FILENAME ~ /\.c$/ && FILENAME ~ /^src\// && n > max_func) {
        name = sig
        sub(/\(.*/, "", name)
        sub(/.*[ *]/, "", name)
        printf "%s:%d: function %s is %d lines (at most %d)\n", FILENAME, sigline, name, n, max_func
    }
    open = 0
}
' $files)
status=0
if [ -n "$out" ]; then
    printf '%s\n' "$out"
    status=1
fi
for f in $files; do
    n=$(wc -l < "$f")
    if [ "$n" -gt "$max_file" ]; then
        echo "$f: $n lines (at most $max_file)"
        status=1
    fi
done
[ $status = 0 ] && echo "check_size.sh: every file <= $max_file lines, every function in src/ <= $max_func lines"
exit $status
