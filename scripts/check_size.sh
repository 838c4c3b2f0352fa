#!/usr/bin/env bash
# check_size.sh [ROOT]: issue 10's file limit, as ctest style.sizes runs it:
# no file under src/ or include/ (*.c, *.h) longer than 600 lines. The
# function limit (80 lines) is clang-tidy's readability-function-size
# (.clang-tidy), run by scripts/test.sh's static step. Prints one line per
# excess and exits 1 if there is any.
set -u
root=${1:-$(cd "$(dirname "$0")/.." && pwd)}
cd "$root" || exit 2
max_file=600
files=$(find src include -name '*.[ch]' | LC_ALL=C sort)
[ -n "$files" ] || { echo "check_size.sh: no sources under $root" >&2; exit 2; }
status=0
for f in $files; do
    n=$(wc -l < "$f")
    if [ "$n" -gt "$max_file" ]; then
        echo "$f: $n lines (at most $max_file)"
        status=1
    fi
done
[ $status = 0 ] && echo "check_size.sh: every file <= $max_file lines"
exit $status
