#!/usr/bin/env bash
# The column reference is generated from the column table (columns-doc):
# docs/columns.md whole, and README.md's block between the columns markers.
# Fails naming the file when either differs from what the code writes.
#   columns_doc_test.sh [--update] COLUMNS_DOC_BINARY
set -u
root=$(cd "$(dirname "$0")/../.." && pwd)
update=0
if [ "${1:-}" = "--update" ]; then update=1; shift; fi
gen=$1
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
"$gen" md >"$tmp/columns.md" && "$gen" readme >"$tmp/block" || exit 1
# README with its block replaced by the generated one (@@BLOCK@@ marks a
# README not yet generated).
awk -v blockfile="$tmp/block" '
  function block() { while ((getline line < blockfile) > 0) print line }
  /^<!-- columns:begin/ { block(); skip = 1; next }
  /^<!-- columns:end -->/ { skip = 0; next }
  /^@@BLOCK@@$/ { block(); next }
  !skip { print }' "$root/README.md" >"$tmp/README.md"
# A need without a name in tools/columns_doc.c (a new SV_NEED_* value), or a
# column without a reduce rule, shows as '?'.
if grep -q '| ? |' "$tmp/columns.md"; then
  echo "columns_doc: a column's 'defined when' or 'reduce' has no name: add it to" \
       "tools/columns_doc.c or the column's entry in columns_list.h" >&2
  exit 1
fi
if [ $update -eq 1 ]; then
  cp "$tmp/columns.md" "$root/docs/columns.md" && cp "$tmp/README.md" "$root/README.md"
  echo "columns_doc: wrote docs/columns.md and README.md's column block"
  exit 0
fi
failed=0
for f in docs/columns.md README.md; do
  if ! cmp -s "$tmp/$(basename "$f")" "$root/$f"; then
    echo "columns_doc: $f differs from the column table; run" \
         "tests/output/columns_doc_test.sh --update build/columns-doc" >&2
    diff "$root/$f" "$tmp/$(basename "$f")" | head -20 >&2
    failed=1
  fi
done
[ $failed -eq 0 ] && echo "columns_doc: docs/columns.md and README.md match the column table"
exit $failed
