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
# The page's standard error is the CLI's (sv_column_std_error, columns.h): sd /
# sqrt(trials), and with one trial (no sd) the theory of the sd, which the
# page showed as null before issue 40.
for trials in 1 5; do
    node "$root/web/test/node_run.js" "$module" \
        "{\"dk\":16,\"n\":24,\"trials\":$trials,\"seed\":7,\"scale\":\"sqrt\"}" 2>/dev/null |
        /usr/bin/python3 -c '
import json, math, subprocess, sys
r, trials = json.load(sys.stdin), int(sys.argv[2])
cli = json.loads(subprocess.run([sys.argv[1], "--dk", "16", "--n", "24", "--trials", str(trials),
                                 "--seed", "7", "--format", "json", "--columns",
                                 "raw_var_sd,raw_var_sd_theory"], check=True,
                                capture_output=True, text=True).stdout)["rows"][0]
sd = cli["raw_var_sd"] if trials > 1 else cli["raw_var_sd_theory"]
want, got = math.sqrt(1.0 / trials) * sd, r["se"]["raw_var"]
assert got is not None and abs(got - want) <= 1e-9 * want, ("se.raw_var", trials, got, want)
print("web.n65536: se.raw_var of %d trial(s) %.9g, as the CLI" % (trials, got))
' "$bin" "$trials"
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
