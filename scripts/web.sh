#!/usr/bin/env bash
# Builds the teaching page (web/) into build-web/site/: the library and its
# glue in WebAssembly (emscripten), the page, Chart.js and its licence. Installs
# what it needs first, all of it Debian packages (SV_WEB_PACKAGES): emscripten
# (node comes with it), Chart.js (libjs-chart.js) and, for the browser test
# (web/test/page_test.py), chromium, chromium-driver and python3-selenium.
# No npm: the npm registry may be out of reach, Debian's archive is not.
#   scripts/web.sh              install, build
#   scripts/web.sh --no-install build only (exit 1 when something is missing)
# Then: python3 -m http.server -d build-web/site 8000, and open
# http://localhost:8000/ (a page opened from file:// cannot start its worker).
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/setup.sh"
cd "$SV_ROOT"
# Exit 77: what the page needs cannot be installed here (test.sh then lets
# ctest web.page say SKIP); any other failure is a failure.
if [ "${1:-}" != --no-install ]; then
    sv_ensure_packages "${SV_WEB_PACKAGES[@]}" || exit 77
fi
chartjs=/usr/share/javascript/chart.js/chart.min.js
[ -f "$chartjs" ] || { echo "web.sh: no $chartjs (apt-get install libjs-chart.js)" >&2; exit 77; }
for tool in emcmake node; do
    command -v "$tool" >/dev/null 2>&1 || { echo "web.sh: $tool not found" >&2; exit 77; }
done
# Debian's emscripten tools load Debian's node modules; a newer node does
# not look there by itself.
export NODE_PATH=/usr/share/nodejs${NODE_PATH:+:$NODE_PATH}
out=build-web
if [ ! -f "$out/wasm/CMakeCache.txt" ]; then
    emcmake cmake -S . -B "$out/wasm" -DCMAKE_BUILD_TYPE=Release -DSV_WERROR="${SV_WERROR:-OFF}" >&2
fi
cmake --build "$out/wasm" -j2 >&2
site=$out/site
rm -rf "$site.tmp"
mkdir -p "$site.tmp"
cp web/app/index.html web/app/main.js web/app/controls.js web/app/plots.js web/app/worker.js web/app/style.css "$site.tmp/"
cp "$out/wasm/web/sdpa_var.js" "$site.tmp/"
# Chart.js 3.9 as Debian ships it (one UMD file), and its licence: Debian's
# copyright file, the MIT (Expat) text with its holders (an image that drops
# /usr/share/doc: the file's own banner, which names the licence).
cp "$chartjs" "$site.tmp/chart.min.js"
if [ -f /usr/share/doc/libjs-chart.js/copyright ]; then
    cp /usr/share/doc/libjs-chart.js/copyright "$site.tmp/Chart.LICENSE.txt"
else
    sed -n '1,/\*\//p' "$chartjs" >"$site.tmp/Chart.LICENSE.txt"
fi
cp LICENSE "$site.tmp/LICENSE.txt"
rm -rf "$site"
mv "$site.tmp" "$site"
echo "web.sh: the page is in $site/; serve it with: python3 -m http.server -d $site 8000" >&2
