#!/usr/bin/env bash
# Builds the teaching page (web/) into build-web/site/: the library and its
# glue in WebAssembly (emscripten), the page, uPlot and its licence. Installs
# what it needs first: Debian's emscripten, chromium and chromium-driver
# (SV_WEB_PACKAGES), node and npm when missing, and the npm packages pinned
# by web/package-lock.json (npm ci).
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
    command -v npm >/dev/null 2>&1 || sv_ensure_packages nodejs npm || exit 77
fi
for tool in emcmake node npm; do
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
# npm ci again only when the lock file changed.
if [ ! -f web/node_modules/.package-lock.json ] ||
    [ web/package-lock.json -nt web/node_modules/.package-lock.json ]; then
    (cd web && npm ci --no-audit --no-fund --loglevel=error) >&2
fi
site=$out/site
rm -rf "$site.tmp"
mkdir -p "$site.tmp"
cp web/app/index.html web/app/main.js web/app/worker.js web/app/style.css "$site.tmp/"
cp "$out/wasm/web/sdpa_var.js" "$site.tmp/"
cp web/node_modules/uplot/dist/uPlot.iife.min.js web/node_modules/uplot/dist/uPlot.min.css "$site.tmp/"
cp web/node_modules/uplot/LICENSE "$site.tmp/uPlot.LICENSE.txt"
cp LICENSE "$site.tmp/LICENSE.txt"
rm -rf "$site"
mv "$site.tmp" "$site"
echo "web.sh: the page is in $site/; serve it with: python3 -m http.server -d $site 8000" >&2
