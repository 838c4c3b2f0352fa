#!/usr/bin/env bash
# ctest web.vexp: the WebAssembly build's vector exp (src/core/vexp_wasm.c)
# gives exp()'s bits under node (web/src/vexp_check.c, which scripts/web.sh
# builds into build-web/wasm/web/vexp_check.js). Skipped (exit 77) when the
# WebAssembly build or node is missing.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
check=$root/build-web/wasm/web/vexp_check.js
if [ ! -f "$check" ]; then
    echo "SKIP web.vexp: no $check (scripts/web.sh builds it)"
    exit 77
fi
command -v node >/dev/null || { echo "SKIP web.vexp: no node"; exit 77; }
node "$check"
