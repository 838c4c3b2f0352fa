#!/usr/bin/env bash
# The GNU parallel example of docs/scaling.md, as documented (issue 25
# section 2): its shard and merge commands are read from the doc, run with
# this build as sdpa-var, and the merged bytes compared with one run's, in
# csv and table, with 1 and 2 jobs at a time.
# Usage: tests/cli/parallel_test.sh path/to/sdpa-var SOURCE_DIR
set -u
BIN=${1:?usage: parallel_test.sh path/to/sdpa-var SOURCE_DIR}
SRC=${2:?usage: parallel_test.sh path/to/sdpa-var SOURCE_DIR}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fails=0 passes=0
ok() { passes=$((passes + 1)); }
bad() { echo "FAIL: $*"; fails=$((fails + 1)); }
mkdir "$T/bin" "$T/run"
ln -s "$(readlink -f "$BIN")" "$T/bin/sdpa-var"
export PATH=$T/bin:$PATH
# The doc's session lines, without their "$ ".
doc=$SRC/docs/scaling.md
shards=$(grep -m1 '^\$ parallel --halt now,fail=1 sdpa-var ' "$doc" | cut -c3-)
[ -n "$shards" ] && ok || bad "no '\$ parallel --halt ...' line in $doc"
grep -qxF '$ sdpa-var --dk 64 --n 256 --seed 7 --trials 300 | cmp - <(sdpa-var merge shard_*.state) && echo same bytes' "$doc" &&
    ok || bad "the doc no longer compares with the 300-trial run this test runs"
cd "$T/run" || exit 1
for j in 1 2; do
    rm -f shard_*.state
    bash -e -o pipefail -c "${shards/parallel /parallel -j$j }" || bad "-j$j: '$shards' failed"
    for f in csv table; do
        sdpa-var --dk 64 --n 256 --seed 7 --trials 300 --format $f >one.$f
        sdpa-var merge --format $f shard_*.state >merged.$f
        cmp -s one.$f merged.$f && ok || bad "-j$j, $f: the merged shards differ from one run"
    done
done
[ "$(ls shard_*.state | wc -l)" -eq 3 ] && ok || bad "shards: $(ls)"
echo "$passes passed, $fails failed"
[ "$fails" -eq 0 ]
