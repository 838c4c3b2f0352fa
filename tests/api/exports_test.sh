#!/usr/bin/env bash
# api.exports (issue 17): libsdpa_var.so exports exactly the functions
# declared in include/sdpa_var/ (the version script CMake generates from
# them), so a host process sees no sv__plan_make, sv__rowpass_tile, sv__vexp or other
# internals. Skipped (77) for a static library.
#   tests/api/exports_test.sh LIBRARY [SOURCE_DIR]
set -u
lib=${1:?usage: exports_test.sh LIBRARY}
case $lib in
    *.so | *.so.*) ;;
    *) echo "api.exports: $lib is not a shared library: nothing to check"; exit 77 ;;
esac
command -v nm >/dev/null || { echo "api.exports: nm not found (binutils)" >&2; exit 1; }
syms=$(nm -D --defined-only "$lib" | awk 'NF >= 3 { print $3 }') || exit 1
total=$(printf '%s\n' "$syms" | grep -c .)
others=$(printf '%s\n' "$syms" | grep -v '^sv_' | grep .)
status=0
if [ -n "$others" ]; then
    echo "api.exports: $lib exports symbols other than sv_*:" >&2
    printf '%s\n' "$others" | sed 's/^/  /' >&2
    status=1
fi
root=${2:-$(cd "$(dirname "$0")/../.." && pwd)}
# the declarations, as api.tested reads them
declared=$(grep -hoE '^[a-z_][a-z0-9_ *]*[ *]+sv_[a-z0-9_]+\(' "$root"/include/sdpa_var/*.h |
           grep -oE 'sv_[a-z0-9_]+\($' | tr -d '(' | sort -u)
extra=$(comm -23 <(printf '%s\n' "$syms" | sort -u) <(printf '%s\n' "$declared"))
if [ -n "$extra" ]; then
    echo "api.exports: $lib exports functions include/sdpa_var/ does not declare:" >&2
    printf '%s\n' "$extra" | sed 's/^/  /' >&2
    status=1
fi
for want in $declared; do
    if ! printf '%s\n' "$syms" | grep -qx "$want"; then
        echo "api.exports: $lib does not export $want" >&2
        status=1
    fi
done
[ $status -eq 0 ] && echo "api.exports: $total symbols exported, each declared in include/sdpa_var/"
exit $status
