#!/usr/bin/env bash
# ctest web.n65536: the page's engine (build-web/site/sdpa_var.js, 32-bit
# WebAssembly) under Node takes n = 65 536 (web/test/node_n65536.js: the
# plan, the first 4096 query rows of a trial, and d_k 4096 still refused),
# and the histogram's theory counts come from the library.
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
# The histogram's theory is the library's (sv_theory_normal_counts): each
# group's expected count of trials x scores normal draws; over the raw
# range (6 sd either side) they add up to every score, causal and
# windowless alike, and no group is without one.
for causal in false true; do
    node "$root/web/test/node_run.js" "$module" \
        "{\"dk\":16,\"n\":40,\"trials\":3,\"seed\":7,\"scale\":\"sqrt\",\"hist\":64,\"causal\":$causal}" \
        2>/dev/null | /usr/bin/python3 -c '
import json, sys
r = json.load(sys.stdin)
causal = sys.argv[1] == "true"
scores = 3 * (40 * 41 // 2 if causal else 40 * 40)
for name in ("raw", "scaled"):
    bins = r["hist"][name]
    assert all(len(b) == 4 and b[3] is not None and b[3] >= 0 for b in bins), (name, bins[:2])
    assert sum(b[2] for b in bins) <= scores, name
raw = sum(b[3] for b in r["hist"]["raw"])
assert abs(raw - scores) <= 1e-6 * scores, ("raw theory adds to %r, want %d" % (raw, scores))
print("web.n65536: histogram theory of %d %s scores: %.9g" % (scores, "causal" if causal else "full", raw))
' "$causal"
done
[ -n "${SV_WEB_FULL:-}" ] || exit 0
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
opts='{"dk":1,"n":65536,"trials":1,"seed":42,"scale":"sqrt"}'
node "$root/web/test/node_run.js" "$module" "$opts" 2>/dev/null |
    /usr/bin/python3 -c 'import json, sys; json.dump({"rows": [json.load(sys.stdin)["summary"]]}, sys.stdout)' \
        >"$out/wasm.json"
"$bin" --dk 1 --n 65536 --trials 1 --seed 42 --scale sqrt --format json --columns all >"$out/cli.json"
/usr/bin/python3 "$root/tests/web/compare.py" "$out/cli.json" "$out/wasm.json" "wasm n=65536 d_k=1"
