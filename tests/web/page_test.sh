#!/usr/bin/env bash
# ctest web.page: the teaching page (web/, built by scripts/web.sh into
# build-web/site/) in headless Chromium driven by selenium
# (web/test/page_test.py), its numbers compared with the CLI for the same
# options and seed (tests/web/compare.py, relative 1e-9): two d_k values of
# the slider, the 1.6 puzzle; and the row editor's weights with numpy's
# softmax (page_test.py itself fails when n = 65 537 is not set back to the
# page's largest, 65 536); web/test/page_checks.py compares what the page
# displays with this binary and checks the plots and the views that could
# go stale (issue 34). Skipped (exit 77, with a line saying why) when the page, Chromium, chromedriver or python3-selenium is not
# there: scripts/test.sh's release step runs scripts/web.sh, which installs
# them (Debian packages, SV_WEB_PACKAGES).
#   page_test.sh BIN
set -euo pipefail
bin=$1
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
site=$root/build-web/site
skip() {
    echo "SKIP web.page: $* (scripts/web.sh installs and builds it)"
    exit 77
}
[ -f "$site/sdpa_var.js" ] || skip "the page is not built: no $site/sdpa_var.js"
[ -x "${SV_CHROMIUM:-/usr/bin/chromium}" ] || skip "no Chromium (apt-get install chromium)"
[ -x "${SV_CHROMEDRIVER:-/usr/bin/chromedriver}" ] || skip "no chromedriver (apt-get install chromium-driver)"
/usr/bin/python3 -c 'import selenium' 2>/dev/null || skip "no selenium for /usr/bin/python3 (apt-get install python3-selenium)"
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
# page_checks.py runs this binary for what the page displays.
SV_BIN=$bin /usr/bin/python3 "$root/web/test/page_test.py" "$site" "$out"

ok=0
py() { /usr/bin/python3 - "$out" "$@"; }
# The slider's two configurations, then the puzzle, as the CLI prints them.
for i in 0 1; do
    read -r dk n trials seed < <(py "$i" <<'PY'
import json, sys
o = json.load(open(sys.argv[1] + "/page.json"))["options"][int(sys.argv[2])]
print(o["dk"], o["n"], o["trials"], o["seed"])
PY
)
    "$bin" --dk "$dk" --n "$n" --trials "$trials" --seed "$seed" --scale sqrt --format json --columns all >"$out/cli$i.json"
    py "$i" <<'PY'
import json, sys
d = json.load(open(sys.argv[1] + "/page.json"))
json.dump({"rows": [d["main"][int(sys.argv[2])]]}, open(sys.argv[1] + "/got%s.json" % sys.argv[2], "w"))
PY
    /usr/bin/python3 "$root/tests/web/compare.py" "$out/cli$i.json" "$out/got$i.json" "page d_k=$dk" || ok=1
done
"$bin" --dk 2 --n 2 --trials 100000 --observed 1.6 --format json --columns all >"$out/puzzle_cli.json"
py <<'PY'
import json, sys
d = json.load(open(sys.argv[1] + "/page.json"))
json.dump({"rows": [d["puzzle"]]}, open(sys.argv[1] + "/puzzle.json", "w"))
PY
/usr/bin/python3 "$root/tests/web/compare.py" "$out/puzzle_cli.json" "$out/puzzle.json" "page puzzle" || ok=1
# The row editor against numpy: softmax of [-20, 3, 25, -15] and of half of it.
py <<'PY' || ok=1
import json, sys
import numpy as np
got = json.load(open(sys.argv[1] + "/page.json"))["logits"]
s = np.array([-20.0, 3.0, 25.0, -15.0])
bad = 0
for name, c in (("raw", 1.0), ("scaled", 0.5)):
    e = np.exp(c * (s - s.max()))
    p = e / e.sum()
    for j in range(4):
        g = got["%s_weight_%d" % (name, j)]
        if abs(g - p[j]) > 1e-12 * abs(p[j]):
            print("page row editor: %s weight %d: %r, numpy %r" % (name, j, g, p[j]))
            bad = 1
if not bad:
    print("page row editor: 8 weights agree with numpy within relative 1e-12")
sys.exit(bad)
PY
exit $ok
