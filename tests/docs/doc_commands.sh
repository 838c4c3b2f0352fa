#!/usr/bin/env bash
# doc_commands.sh: run every command shown in README.md and docs/*.md and
# compare what it prints with what the docs show (ctest docs.commands).
#
# Usage:
#   tests/docs/doc_commands.sh [--update] [SDPA_VAR_BINARY [SOURCE_DIR]]
# e.g.
#   tests/docs/doc_commands.sh                 # build/sdpa-var, this tree
#   tests/docs/doc_commands.sh --update        # rewrite the output blocks
#   SV_DOCS_SLOW=1 tests/docs/doc_commands.sh  # also the <!-- slow --> blocks
# The convention and the checks are described in doc_commands.py.
# Exit status: 0 if every command ran and matched, 1 otherwise, 2 on usage.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
update=()
pos=()
for a in "$@"; do
    case "$a" in
    --update) update=(--update) ;;
    -*) echo "usage: $0 [--update] [SDPA_VAR_BINARY [SOURCE_DIR]]" >&2; exit 2 ;;
    *) pos+=("$a") ;;
    esac
done
src=${pos[1]:-$here/../..}
bin=${pos[0]:-$src/build/sdpa-var}
command -v python3 >/dev/null || { echo "doc_commands: python3 not found" >&2; exit 1; }
[ -x "$bin" ] || { echo "doc_commands: $bin is not an executable" >&2; exit 1; }
exec python3 "$here/doc_commands.py" "$bin" "$src" "${update[@]}"
