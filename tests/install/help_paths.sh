#!/usr/bin/env bash
# help_paths.sh PROGRAM ROOT: every path `PROGRAM --help` names exists and
# lies under ROOT, the prefix it was installed into (issue 41): --help names
# the gnuplot scripts and docs beside the program that runs, never a build,
# staging or source directory. A path ending in /*.gp must hold the .gp
# scripts (at least one); the docs' directory must hold columns.md. Prints
# the paths; exits 1 naming each one that fails, or when it names none.
set -u
prog=$1 root=$(realpath "$2")
fail=0
help=$("$prog" --help) || { echo "FAIL: $prog --help exits $?"; exit 1; }
# Absolute paths: a word that starts with "/" after a blank (not the "/" of
# "QK^T/sqrt(d_k)", nor the lone "/ 8" of an example).
mapfile -t paths < <(grep -oE '(^|[[:space:]])/[^[:space:]]+' <<<"$help" | sed -E 's/^[[:space:]]+//' | sort -u)
[ "${#paths[@]}" -ge 2 ] || { echo "FAIL: $prog --help names ${#paths[@]} paths, not the scripts' and the docs' directories"; exit 1; }
for p in "${paths[@]}"; do
    case $p in
        */\*.gp) compgen -G "$p" >/dev/null || { echo "FAIL: --help names $p: no such scripts"; fail=1; } ;;
        *) [ -e "$p" ] || { echo "FAIL: --help names $p: no such file or directory"; fail=1; } ;;
    esac
    case $p in
        "$root"/*) ;;
        *) echo "FAIL: --help names $p, outside the install $root"; fail=1 ;;
    esac
    echo "--help names $p"
done
grep -qE '(^|[[:space:]])/[^[:space:]]+/doc/sdpa-var$' <<<"$help" ||
    { echo "FAIL: --help names no .../doc/sdpa-var directory"; fail=1; }
for p in "${paths[@]}"; do
    case $p in */doc/sdpa-var) [ -f "$p/columns.md" ] || { echo "FAIL: no columns.md in $p"; fail=1; } ;; esac
done
exit "$fail"
