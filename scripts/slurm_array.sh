#!/usr/bin/env bash
# slurm_array.sh: one sdpa-var run cut into trial or query-row shards by a
# Slurm job array, merged by a dependent job into the bytes one run prints
# (docs/scaling.md).
#
# Usage:
#   scripts/slurm_array.sh submit TASKS TRIALS DIR [SBATCH_OPTION...] -- SDPA_VAR_ARG...
#       sbatch an array of TASKS tasks (each runs `shard`) and a merge job
#       that starts after all of them succeeded (afterok), and is cancelled
#       by Slurm if one fails (--kill-on-invalid-dep=yes); prints both ids.
#   scripts/slurm_array.sh shard TRIALS DIR -- SDPA_VAR_ARG...
#       one task: task k of K (SLURM_ARRAY_TASK_ID - SLURM_ARRAY_TASK_MIN,
#       SLURM_ARRAY_TASK_COUNT) draws trials floor(k T / K) ..
#       floor((k + 1) T / K) - 1 of the T-trial run into
#       DIR/shard_<k>_of_<K>.state (written whole or not at all).
#   scripts/slurm_array.sh submit-rows TASKS N_Q DIR [SBATCH_OPTION...] -- SDPA_VAR_ARG...
#   scripts/slurm_array.sh shard-rows N_Q DIR -- SDPA_VAR_ARG...
#       the same, cut into query-row shards of every trial (one trial of a
#       million tokens, say): with B = ceil(N_Q / 4096) row blocks, task k
#       computes rows 4096 floor(k B / K) .. min(4096 floor((k + 1) B / K),
#       N_Q) - 1 (--q-rows; shards on block boundaries merge exactly).
#       N_Q is the run's n_q; sdpa-var refuses a last row past it, and the
#       merge a range left uncovered.
#   scripts/slurm_array.sh merge DIR [MERGE_OPTION...]
#       `sdpa-var merge` of every DIR/shard_*.state into DIR/result
#       (stdout too), after checking that all K shard_k_of_K.state are
#       there (exit 1 naming the first missing); merge itself refuses a
#       missing or repeated range (each state records the whole run).
# SDPA_VAR_ARG must not hold --first-trial, --total-trials, --q-rows or
# --format, nor --trials for trial shards (the script sets them);
# MERGE_OPTION is merge's --format. The binary is $SDPA_VAR, else sdpa-var
# on PATH; every task must run the same version (a state names it, and
# merge checks; tasks on CPUs of other kernels merge within the
# cross-machine tolerance, and merge says so).
# Exit status: 0; 2 on usage; 1 for a missing shard; else the failing
# command's.
set -euo pipefail
SDPA_VAR=${SDPA_VAR:-sdpa-var}
me=$(readlink -f "$0")

usage() { # [STATUS]: 2 (on stderr) unless 0 (--help, on stdout)
    if [ "${1:-2}" = 0 ]; then
        sed -n '2,36p' "$me" | sed 's/^# \{0,1\}//'
        exit 0
    fi
    sed -n '2,36p' "$me" | sed 's/^# \{0,1\}//' >&2
    exit 2
}
die() {
    echo "slurm_array.sh: $*" >&2
    exit 2
}
fail() { # a runtime failure, not a usage error: exit 1
    echo "slurm_array.sh: $*" >&2
    exit 1
}
count() { # NAME VALUE: VALUE is a whole number >= 1
    [[ $2 =~ ^[1-9][0-9]{0,17}$ ]] || die "$1: '$2' is not a whole number >= 1"
}
args_after_dashes() { # prints the index of "--" in "$@", or dies
    local i=0
    for a in "$@"; do
        [ "$a" = -- ] && { echo "$i"; return; }
        i=$((i + 1))
    done
    die "no '--' before the sdpa-var arguments"
}
no_shard_options() { # MODE (trials or rows) ARG...
    local mode=$1
    shift
    for a in "$@"; do
        case "$a" in
        --first-trial | --first-trial=* | --total-trials | --total-trials=* | --q-rows | \
            --q-rows=* | --format | --format=*)
            die "$a: the script sets --first-trial, --total-trials, --q-rows and --format itself" ;;
        --trials | --trials=*)
            [ "$mode" = rows ] || die "$a: the script sets --trials itself (trial shards)" ;;
        esac
    done
}
# Slurm's task k of K (k from 0), checked; sets K_ID and K_COUNT.
array_task() {
    local id=${SLURM_ARRAY_TASK_ID:?not a Slurm array task (SLURM_ARRAY_TASK_ID unset)}
    K_COUNT=${SLURM_ARRAY_TASK_COUNT:?SLURM_ARRAY_TASK_COUNT unset}
    K_ID=$((id - ${SLURM_ARRAY_TASK_MIN:-0}))
    count SLURM_ARRAY_TASK_COUNT "$K_COUNT"
    ((K_ID >= 0 && K_ID < K_COUNT)) || die "task $K_ID is not in 0..$((K_COUNT - 1))"
}
# The fold's row block (SV_FOLD_ROWS, include/sdpa_var/rowfold.h).
FOLD_ROWS=4096

# task_args MODE NAME SIZE DIR -- ARG...: the checks every task makes; sets
# SIZE, DIR, K_ID, K_COUNT and ARGS (the sdpa-var arguments).
task_args() {
    local mode=$1 name=$2
    shift 2
    [ $# -ge 3 ] || usage
    SIZE=$1 DIR=$2
    shift 2
    [ "$1" = -- ] || usage
    shift
    count "$name" "$SIZE"
    no_shard_options "$mode" "$@"
    array_task
    ARGS=("$@")
}
# write_shard SHARD_OPTION...: task K_ID's state, written whole or not at all.
write_shard() {
    local out=$DIR/shard_${K_ID}_of_${K_COUNT}.state
    mkdir -p "$DIR"
    "$SDPA_VAR" "${ARGS[@]}" "$@" --format state --output "$out"
}

shard() {
    task_args trials TRIALS "$@"
    local k=$K_ID n=$K_COUNT trials=$SIZE
    ((n <= trials)) || die "$n tasks for $trials trials: a task would draw none"
    # floor(k T / K) without overflow for T below 2^63 / K
    local first=$((k * trials / n)) next=$(((k + 1) * trials / n))
    write_shard --first-trial "$first" --trials "$((next - first))" --total-trials "$trials"
}

shard_rows() {
    task_args rows N_Q "$@"
    local k=$K_ID n=$K_COUNT nq=$SIZE blocks=$(((SIZE + FOLD_ROWS - 1) / FOLD_ROWS))
    ((n <= blocks)) || die "$n tasks for $blocks row blocks of $FOLD_ROWS: a task would get none"
    local a=$((k * blocks / n * FOLD_ROWS)) b=$(((k + 1) * blocks / n * FOLD_ROWS))
    ((b <= nq)) || b=$nq
    write_shard --q-rows "$a:$b"
}

merge() {
    [ $# -ge 1 ] || usage
    local dir=$1
    shift
    local files=("$dir"/shard_*.state)
    [ -e "${files[0]}" ] || die "merge: no shard_*.state in '$dir'"
    # every task's file, of one array: shard_k_of_K.state for k in 0..K-1
    local f count=
    for f in "${files[@]}"; do
        [[ ${f##*/} =~ ^shard_[0-9]+_of_([0-9]+)\.state$ ]] || fail "merge: $f: not shard_k_of_K.state"
        [ -z "$count" ] || [ "$count" = "${BASH_REMATCH[1]}" ] ||
            fail "merge: $f: of $((10#${BASH_REMATCH[1]})) tasks, ${files[0]} of $count"
        count=${BASH_REMATCH[1]}
    done
    local k
    for ((k = 0; k < 10#$count; k++)); do
        [ -e "$dir/shard_${k}_of_$count.state" ] ||
            fail "merge: $dir/shard_${k}_of_$count.state is missing (task $k of $count failed or has not run)"
    done
    "$SDPA_VAR" merge "$@" --output "$dir/result" -- "${files[@]}"
    cat "$dir/result"
}

submit() { # MODE (shard or shard-rows) TASKS SIZE DIR [SBATCH_OPTION...] -- ARG...
    local mode=$1
    shift
    [ $# -ge 4 ] || usage
    local tasks=$1 size=$2 dir=$3
    shift 3
    count TASKS "$tasks"
    local d
    d=$(args_after_dashes "$@")
    local sbatch_opts=("${@:1:d}") run_args=("${@:d+2}")
    if [ "$mode" = shard ]; then
        count TRIALS "$size"
        no_shard_options trials "${run_args[@]}"
        ((tasks <= size)) || die "$tasks tasks for $size trials: a task would draw none"
    else
        count N_Q "$size"
        no_shard_options rows "${run_args[@]}"
        local blocks=$(((size + FOLD_ROWS - 1) / FOLD_ROWS))
        ((tasks <= blocks)) ||
            die "$tasks tasks for $blocks row blocks of $FOLD_ROWS: a task would get none"
    fi
    local array merge_job
    mkdir -p "$dir"
    array=$(sbatch --parsable --array=0-$((tasks - 1)) "${sbatch_opts[@]}" \
        --output="$dir/slurm-%A_%a.out" "$me" "$mode" "$size" "$dir" -- "${run_args[@]}")
    # --kill-on-invalid-dep: a failed task makes afterok unreachable; Slurm
    # then cancels the merge job instead of leaving it pending for ever
    merge_job=$(sbatch --parsable --dependency=afterok:"${array%%;*}" --kill-on-invalid-dep=yes \
        "${sbatch_opts[@]}" \
        --output="$dir/slurm-merge-%j.out" "$me" merge "$dir")
    echo "array ${array%%;*}, merge $merge_job: $dir/result when both finish"
}

[ $# -ge 1 ] || usage
cmd=$1
shift
case "$cmd" in
shard) shard "$@" ;;
shard-rows) shard_rows "$@" ;;
merge) merge "$@" ;;
submit) submit shard "$@" ;;
submit-rows) submit shard-rows "$@" ;;
-h | --help) usage 0 ;;
*) die "'$cmd' is not shard, shard-rows, merge, submit or submit-rows" ;;
esac
