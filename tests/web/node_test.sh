#!/usr/bin/env bash
# ctest web.n65536: the page's engine (build-web/site/sdpa_var.js, 32-bit
# WebAssembly) under Node takes n = 65 536 (web/test/node_n65536.js: the
# plan, the first 4096 query rows of a trial, and d_k 4096 still refused).
# SV_WEB_FULL=1 also runs a whole trial of 65 536 x 65 536 at d_k 1 (about a
# minute) and compares it with the CLI (tests/web/compare.py, relative
# 1e-9). Skipped (exit 77) when the page is not built or node is missing.
#   node_test.sh BIN
set -euo pipefail
bin=$1
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
module=$root/build-web/site/sdpa_var.js
if [ ! -f "$module" ]; then
    echo "SKIP web.n65536: the page is not built: no $module (scripts/web.sh builds it)"
    exit 77
fi
command -v node >/dev/null || { echo "SKIP web.n65536: no node"; exit 77; }
node "$root/web/test/node_n65536.js" "$module"
[ -n "${SV_WEB_FULL:-}" ] || exit 0
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
opts='{"dk":1,"n":65536,"trials":1,"seed":42,"scale":"sqrt"}'
node "$root/web/test/node_run.js" "$module" "$opts" 2>/dev/null |
    /usr/bin/python3 -c 'import json, sys; json.dump({"rows": [json.load(sys.stdin)["summary"]]}, sys.stdout)' \
        >"$out/wasm.json"
"$bin" --dk 1 --n 65536 --trials 1 --seed 42 --scale sqrt --format json --columns all >"$out/cli.json"
/usr/bin/python3 "$root/tests/web/compare.py" "$out/cli.json" "$out/wasm.json" "wasm n=65536 d_k=1"
