#!/usr/bin/env bash
# Quick start, step 1: install what is missing, build Release into build/,
# then run build/sdpa-var with the arguments given.
#   scripts/run.sh --dk 64 --n 1111
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/setup.sh"
sv_ensure_packages "${SV_BUILD_PACKAGES[@]}"
sv_build release
exec "$SV_ROOT/build/sdpa-var" "$@"
