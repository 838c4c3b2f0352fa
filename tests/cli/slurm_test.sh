#!/usr/bin/env bash
# scripts/slurm_array.sh without Slurm (issue 25 section 2): each array task
# run by hand with the variables Slurm sets, then the merge job's command;
# the merged bytes equal one run's, whatever the task order and the
# array's first id; each task's shard is exactly its trial range
# (floor(k T / K) .. floor((k + 1) T / K) - 1); bad uses exit 2.
# Row shards (shard-rows): the same for query-row blocks of 4096.
# Usage: tests/cli/slurm_test.sh path/to/sdpa-var SOURCE_DIR
set -u
BIN=${1:?usage: slurm_test.sh path/to/sdpa-var SOURCE_DIR}
SRC=${2:?usage: slurm_test.sh path/to/sdpa-var SOURCE_DIR}
S=$SRC/scripts/slurm_array.sh
export SDPA_VAR=$BIN
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fails=0 passes=0
ok() { passes=$((passes + 1)); }
bad() { echo "FAIL: $*"; fails=$((fails + 1)); }
same() { if cmp -s "$1" "$2"; then ok; else bad "$3: $1 and $2 differ"; fi; }
task() { # DIR MIN ID COUNT TRIALS ARGS...
    local dir=$1 min=$2 id=$3 n=$4 trials=$5
    shift 5
    SLURM_ARRAY_TASK_MIN=$min SLURM_ARRAY_TASK_ID=$id SLURM_ARRAY_TASK_COUNT=$n \
        "$S" shard "$trials" "$dir" -- "$@"
}

A=(--dk 8,16 --n 40 --seed 11)
"$BIN" "${A[@]}" --trials 1000 >"$T/one.csv"
for id in 2 0 1; do # the tasks in any order
    task "$T/a" 0 $id 3 1000 "${A[@]}" || bad "task $id failed"
done
"$S" merge "$T/a" >"$T/m.csv" || bad "merge failed"
same "$T/one.csv" "$T/m.csv" "3 tasks merged"
same "$T/one.csv" "$T/a/result" "the merge job's result file"
"$BIN" "${A[@]}" --trials 1000 --format json >"$T/one.json"
"$S" merge "$T/a" --format json >"$T/m.json"
same "$T/one.json" "$T/m.json" "3 tasks merged, json"

# --array=5-8 (SLURM_ARRAY_TASK_MIN 5), 10 trials: shards of 2, 3, 2, 3
B=(--dk 4 --n 30 --seed 2)
for id in 5 6 7 8; do
    task "$T/b" 5 $id 4 10 "${B[@]}" || bad "task $id of 5..8 failed"
done
k=0
for range in 0:2 2:3 5:2 7:3; do
    "$BIN" "${B[@]}" --first-trial "${range%:*}" --trials "${range#*:}" --total-trials 10 \
        --format state >"$T/want.st"
    same "$T/want.st" "$T/b/shard_${k}_of_4.state" "task $k of 4: trials ${range%:*}+${range#*:}"
    k=$((k + 1))
done
"$BIN" "${B[@]}" --trials 10 >"$T/one10.csv"
"$S" merge "$T/b" >"$T/m10.csv"
same "$T/one10.csv" "$T/m10.csv" "4 tasks from --array=5-8 merged"

# a missing task, the last one too (issue 33): the script names its file,
# exit 1, no result file; sdpa-var merge itself refuses the states as well
task "$T/c" 0 0 3 1000 "${A[@]}"
task "$T/c" 0 2 3 1000 "${A[@]}"
task "$T/c2" 0 0 3 1000 "${A[@]}"
task "$T/c2" 0 1 3 1000 "${A[@]}"
for c in c:1 c2:2; do
    d=$T/${c%:*} k=${c#*:}
    "$S" merge "$d" >/dev/null 2>"$T/err"
    rc=$?
    [ $rc -eq 1 ] && [ ! -e "$d/result" ] && [ "$(wc -l <"$T/err")" -eq 1 ] &&
        grep -q "shard_${k}_of_3.state is missing" "$T/err" && ok ||
        bad "merge with task $k missing: rc=$rc $(cat "$T/err")"
done
"$BIN" merge "$T"/c2/shard_*.state >/dev/null 2>"$T/err"
[ $? -eq 1 ] && grep -q "trials 666..999 are in no file (the run has 1000 trials" "$T/err" && ok ||
    bad "sdpa-var merge without the last task: $(cat "$T/err")"

# submit with a fake sbatch: the merge job waits for the array (afterok)
# and is cancelled by Slurm when a task fails (--kill-on-invalid-dep=yes),
# never pending for ever
mkdir -p "$T/bin"
printf '#!/usr/bin/env bash\necho "$*" >>"%s/sbatch.log"\necho 4242\n' "$T" >"$T/bin/sbatch"
chmod +x "$T/bin/sbatch"
PATH="$T/bin:$PATH" "$S" submit 3 1000 "$T/s" --time=1 -- "${A[@]}" >"$T/out" 2>"$T/err" ||
    bad "submit: $(cat "$T/err")"
[ "$(wc -l <"$T/sbatch.log")" -eq 2 ] && sed -n 1p "$T/sbatch.log" | grep -q -- "--array=0-2" &&
    sed -n 2p "$T/sbatch.log" | grep -q -- "--dependency=afterok:4242 --kill-on-invalid-dep=yes" &&
    ok || bad "submit's sbatch calls: $(cat "$T/sbatch.log")"

# Row shards (shard-rows): 9000 query rows are 3 blocks of 4096 rows
# (0:4096, 4096:8192, 8192:9000); 2 tasks take blocks 0 and 1..2, 3 tasks
# one each; either way the merge is one run's bytes, and each task's state
# is the --q-rows shard of its range.
rtask() { # DIR ID COUNT N_Q ARGS...
    local dir=$1 id=$2 n=$3 nq=$4
    shift 4
    SLURM_ARRAY_TASK_ID=$id SLURM_ARRAY_TASK_COUNT=$n "$S" shard-rows "$nq" "$dir" -- "$@"
}
R=(--dk 4 --n 9000 --seed 5 --trials 2)
"$BIN" "${R[@]}" >"$T/rone.csv"
for n in 2 3; do
    for ((id = n - 1; id >= 0; id--)); do
        rtask "$T/r$n" $id $n 9000 "${R[@]}" || bad "row task $id of $n failed"
    done
    "$S" merge "$T/r$n" >"$T/rm$n.csv" || bad "merge of $n row tasks failed"
    same "$T/rone.csv" "$T/rm$n.csv" "$n row tasks merged"
done
k=0
for range in 0:4096 4096:9000; do
    "$BIN" "${R[@]}" --q-rows "$range" --format state >"$T/want.st"
    same "$T/want.st" "$T/r2/shard_${k}_of_2.state" "row task $k of 2: rows $range"
    k=$((k + 1))
done
# N_Q smaller than the run's n_q: the merge finds rows uncovered (exit 1)
for id in 0 1; do rtask "$T/rs" $id 2 8192 "${R[@]}"; done
"$S" merge "$T/rs" >/dev/null 2>"$T/err"
[ $? -eq 1 ] && [ ! -e "$T/rs/result" ] && ok || bad "row shards of 8192 of 9000 rows merged: $(cat "$T/err")"

# usage errors: exit 2, one line, nothing written
usage_error() { # WANT-GLOB COMMAND...
    local want=$1
    shift
    "$@" >"$T/out" 2>"$T/err"
    local rc=$?
    [ $rc -eq 2 ] && [ ! -s "$T/out" ] && [ "$(wc -l <"$T/err")" -eq 1 ] &&
        [[ "$(cat "$T/err")" == $want ]] && ok || bad "$* -> rc=$rc $(cat "$T/err") (want $want)"
}
usage_error "*4 tasks for 3 trials*" task "$T/d" 0 0 4 3 "${B[@]}"
usage_error "*--trials: the script sets*" task "$T/d" 0 0 2 10 "${B[@]}" --trials 5
usage_error "*task 3 is not in 0..2*" task "$T/d" 0 3 3 10 "${B[@]}"
usage_error "*TRIALS: '0x' is not*" task "$T/d" 0 0 3 0x "${B[@]}"
usage_error "*no shard_\*.state*" "$S" merge "$T/d"
usage_error "*4 tasks for 3 row blocks*" rtask "$T/d" 0 4 9000 "${R[@]}"
usage_error "*--q-rows: the script sets*" rtask "$T/d" 0 2 9000 "${R[@]}" --q-rows 0:4096
usage_error "*--total-trials=9: the script sets*" task "$T/d" 0 0 2 10 "${B[@]}" --total-trials=9
usage_error "*N_Q: '-1' is not*" rtask "$T/d" 0 2 -1 "${R[@]}"
usage_error "*'rows' is not shard, shard-rows*" "$S" rows 9000 "$T/d" -- "${R[@]}"
[ ! -e "$T/d" ] || [ -z "$(ls "$T/d")" ] && ok || bad "a refused task wrote $(ls "$T/d")"
SLURM_ARRAY_TASK_ID= "$S" shard 10 "$T/e" -- "${B[@]}" >/dev/null 2>&1 && bad "no task id: accepted" || ok

echo "$passes passed, $fails failed"
[ "$fails" -eq 0 ]
