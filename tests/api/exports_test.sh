#!/usr/bin/env bash
# api.exports (issue 17): libsdpa_var.so exports only sv_* symbols (the
# version script cmake/sdpa_var.map), so a host process sees no plan_make,
# rowpass_tile or other internals; and it does export the public API
# (sv_engine_run, sv_version). Skipped (77) for a static library.
#   tests/api/exports_test.sh LIBRARY
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
for want in sv_engine_run sv_version sv_abi_version sv_struct_size sv_source_strided; do
    if ! printf '%s\n' "$syms" | grep -qx "$want"; then
        echo "api.exports: $lib does not export $want" >&2
        status=1
    fi
done
[ $status -eq 0 ] && echo "api.exports: $total symbols exported, all sv_*"
exit $status
