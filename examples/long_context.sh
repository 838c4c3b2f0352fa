#!/usr/bin/env bash
# long_context.sh: softmax entropy against ln n for n = 1024 ... 262144 keys
# (powers of 2), raw and scaled, next to ln n - sigma^2/2 and its freezing
# point: the data and figure of docs/scaling.md, "Long context".
#
# Usage:
#   examples/long_context.sh [--bin BIN] [--out DIR] [--max-n N] [--check-n N]
#                           [--jobs J] [--data-only]
# e.g.
#   examples/long_context.sh                    # docs/figures/long_context.{csv,png}
#   examples/long_context.sh --max-n 8192 --check-n 8192 --data-only --out /tmp/lc
#                                              # the cheap rows (ctest docs.long_context)
#
# At d_k = 16 (DK below) and the default scale 1/sqrt(d_k) the scaled logits
# have sigma = 1 and the raw ones sigma = sqrt(d_k) = 4, which crosses the
# freezing point sqrt(2 ln n) at n = e^8 (about 2981), inside the range.
# Each n runs n queries against n keys (--n N), seed 42, TRIALS(n) trials:
# 8 up to 8192, 4 at 16384, 2 at 32768, 1 beyond.  n >= 65536 (SHARD_FROM)
# runs as 8 row shards (--q-rows, 1 thread each, GNU parallel -j J, default
# 2) merged by `sdpa-var merge`; smaller n run as one process (all cores).
# At n = CHECK_N (default 16384) it also runs the row shards of that n and
# checks with cmp that the merge prints one process's bytes, so the sharded
# rows are the rows one process would give.
#
# Writes DIR/long_context.csv (DIR default docs/figures), one row per n:
#   n, ln_n, dk, scale, scale_factor, trials, shards (1: one process),
#   raw_sigma, scaled_sigma   sqrt of the tool's raw_var_theory and
#                             scaled_var_theory: the SD of a row's logits
#   sigma_freeze              sqrt(2 ln n), the freezing point (docs/theory.md
#                             section 15; Derrida 1981)
#   raw_frozen                1 when raw_sigma > sigma_freeze, else 0
#   raw_entropy, scaled_entropy, entropy_bound (ln n): the tool's columns
#   raw_entropy_se, scaled_entropy_se: the tool's *_entropy_sd / sqrt(trials)
#                             (nan for one trial)
#   raw_entropy_approx, scaled_entropy_approx: the tool's ln n - sigma^2/2,
#                             nan outside sigma^2 <= 1 (docs/theory.md 8.7):
#                             nan for every raw row here
#   raw_entropy_leading       ln n - raw_sigma^2/2, the leading-order entropy
#                             above the freezing point (below it the entropy
#                             is O(1), section 15)
# A sharded row's theory columns come from a one-query run at the same n_k
# (--nq 1 --nk N: they depend on n_k, d_k and the scale only), and its
# *_entropy_sd does not exist (one trial).  Unless --data-only, it then pipes
# the CSV into examples/long_context.gp, writing DIR/long_context.png.  Files
# are written to temporary names and moved into place.
#
# Cost: 2 n^2 d_k flops and 2 n^2 exps a trial; n = 262144 (6.9e10 scores)
# is most of it, a few minutes on 2 cores in all (docs/scaling.md has the
# measured time).  ctest docs.long_context reruns the rows n <= 8192 and
# compares them with the committed CSV.
#
# Exit status: 0 when everything was written, 1 when a run, the shard
# check or gnuplot failed, 2 on usage.
set -euo pipefail

src=$(cd "$(dirname "$0")/.." && pwd)
bin=$src/build/sdpa-var
out=$src/docs/figures
max_n=262144
check_n=16384
jobs=2
data_only=0
DK=16
SEED=42
MIN_N=1024
SHARD_FROM=65536
SHARDS=8
usage() { echo "long_context.sh: $1 (try --help)" >&2; exit 2; }
while [ $# -gt 0 ]; do
    case "$1" in
    --bin) [ $# -ge 2 ] || usage "--bin needs a file"; bin=$2; shift ;;
    --out) [ $# -ge 2 ] || usage "--out needs a directory"; out=$2; shift ;;
    --max-n) [ $# -ge 2 ] || usage "--max-n needs a number"; max_n=$2; shift ;;
    --check-n) [ $# -ge 2 ] || usage "--check-n needs a number"; check_n=$2; shift ;;
    --jobs) [ $# -ge 2 ] || usage "--jobs needs a number"; jobs=$2; shift ;;
    --data-only) data_only=1 ;;
    -h | --help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    *) usage "unknown argument '$1'" ;;
    esac
    shift
done
pow2() { [[ $1 =~ ^[0-9]+$ ]] && [ "$1" -ge $MIN_N ] && [ "$1" -le 1048576 ] && [ $(($1 & ($1 - 1))) = 0 ]; }
pow2 "$max_n" || usage "--max-n '$max_n' is not a power of 2 from $MIN_N to 1048576"
{ pow2 "$check_n" && [ "$check_n" -ge 8192 ]; } || usage "--check-n '$check_n' is not a power of 2 >= 8192 (2 row shards of 4096)"
[[ $jobs =~ ^[1-9][0-9]*$ ]] || usage "--jobs '$jobs' is not a positive count"
[ -x "$bin" ] || usage "'$bin' is not an executable (build first, or give --bin)"
command -v parallel >/dev/null || { echo "long_context.sh: GNU parallel not found (Debian: parallel)" >&2; exit 1; }
bin=$(cd "$(dirname "$bin")" && pwd)/$(basename "$bin")
mkdir -p "$out"
out=$(cd "$out" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

trials_of() { if [ "$1" -le 8192 ]; then echo 8; elif [ "$1" -le 16384 ]; then echo 4; elif [ "$1" -le 32768 ]; then echo 2; else echo 1; fi; }
run=("$bin" --dk "$DK" --seed "$SEED" --quiet)
cols=n_k,dk,scale,scale_factor,trials,raw_var_theory,scaled_var_theory,raw_entropy,raw_entropy_sd,raw_entropy_approx,scaled_entropy,scaled_entropy_sd,scaled_entropy_approx,entropy_bound

# shards N T DIR: the row shards of n = N (T trials) into DIR, merged to DIR/merged.csv.
shards() {
    local n=$1 t=$2 d=$3 step=$(($1 / SHARDS)) i ranges=()
    [ $step -ge 4096 ] || step=4096
    for ((i = 0; i < n; i += step)); do ranges+=("$i:$((i + step))"); done
    mkdir -p "$d"
    parallel -j "$jobs" --halt now,fail=1 "${run[@]}" --n "$n" --trials "$t" --threads 1 \
        --q-rows {} --format state '>' "$d/shard_{#}.state" ::: "${ranges[@]}" || return 1
    "$bin" merge --format csv "$d"/shard_*.state >"$d/merged.csv"
}

# pick COLS < CSV: the named columns of a CSV with a header, in that order
# (missing ones as nan).
pick() {
    awk -F, -v want="$1" 'NR == 1 { for (i = 1; i <= NF; i++) at[$i] = i; next }
        { n = split(want, w, ","); s = ""
          for (i = 1; i <= n; i++) s = s (i > 1 ? "," : "") (w[i] in at ? $(at[w[i]]) : "nan")
          print s }'
}

echo "n,ln_n,dk,scale,scale_factor,trials,shards,raw_sigma,scaled_sigma,sigma_freeze,raw_frozen,raw_entropy,raw_entropy_se,raw_entropy_approx,raw_entropy_leading,scaled_entropy,scaled_entropy_se,scaled_entropy_approx,entropy_bound" >"$tmp/lc.csv"
for ((n = MIN_N; n <= max_n; n *= 2)); do
    t=$(trials_of $n)
    if [ $n -ge $SHARD_FROM ]; then
        [ "$t" = 1 ] || { echo "long_context.sh: n = $n: a sharded n runs 1 trial" >&2; exit 1; }
        shards $n "$t" "$tmp/s$n" || { echo "long_context.sh: n = $n: a row shard or the merge failed" >&2; exit 1; }
        k=$(ls "$tmp/s$n"/shard_*.state | wc -l)
        "${run[@]}" --nq 1 --nk $n --format csv --columns raw_entropy_approx,scaled_entropy_approx >"$tmp/theory.csv"
        paste -d, <(pick $cols <"$tmp/s$n/merged.csv") <(pick raw_entropy_approx,scaled_entropy_approx <"$tmp/theory.csv") |
            awk -F, -v OFS=, '{ $10 = $15; $13 = $16; NF = 14; print }' >"$tmp/row.csv"
    else
        k=1
        "${run[@]}" --n $n --trials "$t" --format csv --no-header --columns $cols >"$tmp/row.csv"
    fi
    awk -F, -v shards="$k" '{
        n = $1; t = $5; lnn = log(n); rs = sqrt($6); ss = sqrt($7); fz = sqrt(2 * lnn)
        se_r = (t > 1 ? sprintf("%.17g", $9 / sqrt(t)) : "nan")
        se_s = (t > 1 ? sprintf("%.17g", $12 / sqrt(t)) : "nan")
        printf "%d,%.17g,%s,%s,%s,%s,%d,%.17g,%.17g,%.17g,%d,%s,%s,%s,%.17g,%s,%s,%s,%s\n",
            n, lnn, $2, $3, $4, t, shards, rs, ss, fz, (rs > fz), $8, se_r, $10,
            lnn - $6 / 2, $11, se_s, $13, $14
    }' "$tmp/row.csv" >>"$tmp/lc.csv"
    if [ $n = "$check_n" ]; then
        shards $n "$t" "$tmp/c$n" || { echo "long_context.sh: n = $n: a row shard or the merge failed" >&2; exit 1; }
        if ! "${run[@]}" --n $n --trials "$t" --format csv | cmp - "$tmp/c$n/merged.csv"; then
            echo "long_context.sh: n = $n: the merged row shards differ from one process's output" >&2
            exit 1
        fi
        echo "long_context.sh: n = $n: $(ls "$tmp/c$n"/shard_*.state | wc -l) row shards merged = one process, byte for byte (cmp)" >&2
    fi
done
mv "$tmp/lc.csv" "$out/long_context.csv"
[ $data_only = 1 ] && exit 0
if ! gnuplot -e "out='$tmp/long_context.png'" "$src/examples/long_context.gp" <"$out/long_context.csv"; then
    echo "long_context.sh: gnuplot examples/long_context.gp failed on $out/long_context.csv" >&2
    exit 1
fi
mv "$tmp/long_context.png" "$out/long_context.png"
