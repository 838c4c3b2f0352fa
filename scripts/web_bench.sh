#!/usr/bin/env bash
# Times the teaching page in Debian's headless Chromium and writes
# docs/performance_web.md (scripts/bench.sh appends it to
# docs/performance.md): the time from page load to the first result (the
# defaults: --dk 64 --n 256 --trials 20), one trial of n = 65 536 tokens at
# d_k 64 in the page (minutes: one WebAssembly thread), and the native
# `sdpa-var --dk 64 --n 65536` in the same run, on one thread and on all,
# for the ratio; then the same trial again, interleaved and in CPU seconds
# (what compares on a machine loaded by other jobs): the page's engine
# under node (web/test/node_bench.js), the native program on one thread,
# the engine under node again. A measurement, not a test: nothing is asserted.
#   scripts/web_bench.sh          (after scripts/web.sh and a release build)
# Needs build-web/site (scripts/web.sh), build/sdpa-var, Chromium,
# chromedriver and python3-selenium (scripts/web.sh installs them).
# SV_CHROMIUM and SV_CHROMEDRIVER as for web.page.
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/setup.sh"
cd "$SV_ROOT"
site=build-web/site
bin=build/sdpa-var
OUT=docs/performance_web.md
for need in "$site/sdpa_var.js" "$bin" "${SV_CHROMIUM:-/usr/bin/chromium}" "${SV_CHROMEDRIVER:-/usr/bin/chromedriver}"; do
    [ -e "$need" ] || { echo "web_bench.sh: $need not found (scripts/web.sh, cmake --build build)" >&2; exit 1; }
done
/usr/bin/python3 -c 'import selenium' 2>/dev/null ||
    { echo "web_bench.sh: no selenium for /usr/bin/python3 (scripts/web.sh installs python3-selenium)" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

load_before=$(cut -d' ' -f1 /proc/loadavg)
# The page: web.page's run, then one trial of 65 536 x 65 536 at d_k 64.
SV_WEB_PERF=1 /usr/bin/python3 web/test/page_test.py "$site" "$tmp" >&2
# Native, the same trial (seed 42, one trial by default): wall seconds.
seconds() {
    local t0 t1
    t0=$(date +%s%N)
    "$bin" "$@" >/dev/null
    t1=$(date +%s%N)
    echo "$(((t1 - t0) / 1000000))e-3"
}
small=$(seconds --dk 64 --n 256 --trials 20)
native1=$(seconds --dk 64 --n 65536 --threads 1)
nativeall=$(seconds --dk 64 --n 65536)
# Interleaved, CPU and wall seconds: node, native (1 thread), node.
node_cpu() { NODE_PATH=/usr/share/nodejs${NODE_PATH:+:$NODE_PATH} node web/test/node_bench.js "$site/sdpa_var.js" 65536 64 |
    sed -n 's/.*wall \([0-9.e+-]*\) s, cpu \([0-9.e+-]*\) s.*/\2 \1/p'; }
wasm_a=$(node_cpu)
native_cpu=$( { /usr/bin/time -f '%U %S %e' "$bin" --dk 64 --n 65536 --threads 1 >/dev/null; } 2>&1 | tail -n1 |
    awk '{print $1 + $2, $3}')
wasm_b=$(node_cpu)
load_after=$(cut -d' ' -f1 /proc/loadavg)

/usr/bin/python3 - "$tmp/page.json" "$small" "$native1" "$nativeall" "$load_before" "$load_after" "$(nproc)" \
    "$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//')" \
    "$(date -u +%Y-%m-%d)" "$wasm_a" "$native_cpu" "$wasm_b" >"$OUT.tmp" <<'PY'
import json, sys
page = json.load(open(sys.argv[1]))
small, native1, nativeall = map(float, sys.argv[2:5])
load0, load1, cores, cpu, day = sys.argv[5:10]
(wa_cpu, wa_wall), (nat_cpu, nat_wall), (wb_cpu, wb_wall) = (map(float, a.split()) for a in sys.argv[10:13])
ratio = (wa_cpu + wb_cpu) / 2 / nat_cpu
verdict = "the goal of 3× met" if ratio <= 3 else "the goal of 3× not met"
first = page["first_result_ms"] / 1000
big = page["perf_65536_ms"] / 1000
print(f"""## In the browser (the teaching page)

(Written by `scripts/web_bench.sh`; `scripts/bench.sh` appends it.)

The page (README, "In the browser") runs the same engine compiled to WebAssembly by
Debian's emscripten 3.1.6: one thread, no OpenBLAS (the tile products are a
WebAssembly SIMD kernel of `src/engine/tile.c`, f64x2 sums in order: the bits of its
plain loops; the softmax's exp is musl's run on two SIMD lanes, `src/core/vexp_wasm.c`:
the bits of musl's `exp`), in a Web Worker. n goes up to
65 536: the library counts the 2^32 scores of a trial in 64 bits, although
size_t has 32 bits in WebAssembly (what is allocated is still checked in size_t).
Measured on {day} in headless Chromium {page.get("browser", "?")}, CPU {cpu}
({cores} cores shared with other jobs; load average {load0} before, {load1} after),
one run, so a rough figure:

| what | in Chromium (WebAssembly, 1 thread) | native `build/sdpa-var` | ratio |
|---|---|---|---|
| time to first result (page load to the numbers of `--dk 64 --n 256 --trials 20`) | {first:.2f} s | {small:.2f} s (the run alone) | – |
| `--dk 64 --n 65536` (one trial, 4.3·10⁹ scores) | {big:.1f} s | {native1:.1f} s with `--threads 1`, {nativeall:.1f} s on {cores} threads | {big / native1:.1f}× (one thread each) |

The same trial interleaved in the same run, in CPU seconds (what compares on a machine
loaded by other jobs): the page's engine under node, the native program with
`--threads 1`, the engine under node again. One trial of `--dk 64 --n 65536`:
**{wa_cpu:.1f} s and {wb_cpu:.1f} s of CPU** in WebAssembly (wall {wa_wall:.1f} s and
{wb_wall:.1f} s) against **{nat_cpu:.1f} s** native (wall {nat_wall:.1f} s): **{ratio:.1f}×**
({verdict}).

<!-- not run: minutes of CPU, a measurement (web/test/node_bench.js: the worker's calls) -->
```sh
NODE_PATH=/usr/share/nodejs node web/test/node_bench.js build-web/site/sdpa_var.js 65536
/usr/bin/time -f '%U' build/sdpa-var --dk 64 --n 65536 --threads 1
```

The page shows the run's progress, and moving a control cancels it.""")
PY
mv "$OUT.tmp" "$OUT"
printf 'web_bench: wrote %s\n' "$OUT" >&2
cat "$OUT"
