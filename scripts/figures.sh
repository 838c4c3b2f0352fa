#!/usr/bin/env bash
# figures.sh: make every figure in docs/figures that sdpa-var draws, from the
# current build, in one command.
#
# Usage:
#   scripts/figures.sh [--data-only] [--bin BIN] [--out DIR] [NAME...]
# e.g.
#   scripts/figures.sh                         # docs/figures/*.png and data/
#   scripts/figures.sh gradient_signal         # one data file and its figures
#   scripts/figures.sh --data-only --out /tmp/f   # what ctest docs.figures runs
#
# For each data set NAME below it runs sdpa-var (BIN, default build/sdpa-var)
# and writes its CSV to DIR/data/NAME.csv (DIR default docs/figures), then,
# unless --data-only, pipes that file into the gnuplot scripts of
# scripts/*.gp that draw it, writing DIR/FIGURE.png (pngcairo; the same
# build, gnuplot and cairo give the same bytes).  Every run names its columns
# (--columns), so the CSV holds only what the figure plots, whatever the
# tool's default columns; runs after the first of a data set append their
# rows without a header (--no-header).  Each file is written to a temporary
# name and moved into place, so a failed run leaves no half-written file.
#
# The data are the figures' contract: ctest docs.figures (tests/docs/
# figures_test.sh) runs `figures.sh --data-only` and compares every CSV with
# the committed docs/figures/data/ within tests/tolerance.py's cross-machine
# tolerance, so a figure that no longer matches the tool fails the suite.
# After an intended change of output, run this script and commit both the
# data and the PNGs.  Sizes are chosen so that all data take well under a
# minute on 2 cores (puzzle_histogram: 10 000 trials, not 100 000).
#
# long_context.png is only drawn here: its data (n up to 262144, a few
# minutes) are made by examples/long_context.sh, which writes
# docs/figures/long_context.csv; this script re-renders the PNG from that
# committed CSV (not with --data-only; ctest docs.long_context reruns its
# cheap rows).
#
# Not made here: performance_scaling.png (timings; scripts/bench.sh),
# real_models.png (pretrained models; examples/real_models.sh),
# minilm.png (a trained model in the venv; examples/minilm.py, ctest
# hf.minilm) and train_tiny.png (a training run; examples/train_tiny.py).  weights_row.csv
# needs /usr/bin/python3 with numpy (Debian python3-numpy): sdpa-var draws
# the row's query and keys (--save-qk) and numpy takes their softmax.
#
# Exit status: 0 when every data set (and figure) was written, 1 when a run
# or a script failed, 2 on usage.
set -euo pipefail

src=$(cd "$(dirname "$0")/.." && pwd)
bin=$src/build/sdpa-var
out=$src/docs/figures
data_only=0
names=()
while [ $# -gt 0 ]; do
    case "$1" in
    --data-only) data_only=1 ;;
    --bin) [ $# -ge 2 ] || { echo "figures.sh: --bin needs a file" >&2; exit 2; }; bin=$2; shift ;;
    --out) [ $# -ge 2 ] || { echo "figures.sh: --out needs a directory" >&2; exit 2; }; out=$2; shift ;;
    -h | --help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    -*) echo "figures.sh: unknown option '$1' (try --help)" >&2; exit 2 ;;
    *) names+=("$1") ;;
    esac
    shift
done
[ -x "$bin" ] || { echo "figures.sh: '$bin' is not an executable (build first, or give --bin)" >&2; exit 2; }
bin=$(cd "$(dirname "$bin")" && pwd)/$(basename "$bin")
mkdir -p "$out/data"
out=$(cd "$out" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# ---- the data sets: NAME -> the sdpa-var runs that write its CSV ----------
# Each function is called in an `if` (set -e does not apply there), so every
# run but the last ends in `|| return 1`.
# Columns shared by every summary run: the configuration the titles read.
cfg=dk,scale,n_q,n_k,trials,dist

data_variance_vs_dk() {
    "$bin" --dk 1:1024 --n 1111 --trials 4 --quiet --format csv \
        --columns $cfg,raw_var,raw_var_theory,raw_var_sd_theory,scaled_var,scaled_var_theory,scaled_var_sd_theory
}
data_softmax_vs_dk() {
    "$bin" --dk 1:1024 --n 1111 --trials 4 --quiet --format csv \
        --columns $cfg,raw_entropy,scaled_entropy,raw_max_weight,scaled_max_weight
}
data_puzzle_histogram() {
    "$bin" --dk 2 --n 2 --trials 10000 --per-trial --quiet --format csv \
        --columns trial,dk,scale,n_q,n_k,ddof,raw_var
}
data_scale_choices() {
    "$bin" --dk 1:1024 --n 1111 --scale sqrt,dk,none --quiet --format csv \
        --columns $cfg,scale_factor,scaled_var,scaled_var_theory,scaled_entropy
}
data_input_moments() {
    local m h=()
    for m in 0 0.25 0.5 0.75 1 1.25 1.5 1.75 2; do
        "$bin" --dk 16 --n 16 --trials 2000 --q-mean 1 --k-mean $m --quiet --format csv "${h[@]}" \
            --columns $cfg,ddof,q_mean,q_std,k_mean,k_std,raw_var,raw_var_theory,raw_var_expected,raw_var_sd || return 1
        h=(--no-header)
    done
}
data_fourth_moment() {
    local d h=()
    for d in normal uniform rademacher t; do
        "$bin" --dk 1:256 --n 16 --trials 2000 --dist $d --quiet --format csv "${h[@]}" \
            --columns $cfg,nu,raw_var_expected,raw_var_sd,raw_var_sd_theory || return 1
        h=(--no-header)
    done
}
# One data set, three figures (gradient_total, gradient_keys, gradient_query).
data_gradient_signal() {
    local n h=()
    for n in 16 128 1024; do
        "$bin" --dk 1:16384 --nq 256 --nk $n --trials 2 --dv 64 --grad --quiet --format csv "${h[@]}" \
            --columns $cfg,d_v,raw_grad_logits,raw_grad_logits_theory,scaled_grad_logits,scaled_grad_logits_theory,raw_grad_keys,scaled_grad_keys,raw_eff_keys,scaled_eff_keys,raw_grad_q,scaled_grad_q || return 1
        h=(--no-header)
    done
}
data_entropy_approx() {
    "$bin" --dk 64 --n 1024 --trials 4 --quiet --format csv \
        --scale 0.015625,0.03125,0.0625,0.0883883,0.125,0.176777,0.25,0.353553,0.5,0.707107,1 \
        --columns $cfg,scaled_var_theory,scaled_entropy,scaled_entropy_approx,scaled_entropy_min,scaled_entropy_max
}
data_projection_init() {
    local i h=()
    for i in xavier lecun normal; do
        "$bin" --dk 8:512 --n 256 --d-model 512 --init $i --quiet --format csv "${h[@]}" \
            --columns $cfg,d_model,init,cross,scaled_var,scaled_var_theory || return 1
        h=(--no-header)
    done
}
data_causal_rows() {
    "$bin" --dk 64 --n 1024 --trials 64 --causal --per-row --quiet --format csv \
        --columns dk,scale,row,keys_seen,raw_entropy,scaled_entropy,entropy_bound,raw_max_weight,scaled_max_weight
}
data_score_histogram() {
    "$bin" --dk 64 --n 1024 --trials 4 --histogram 960 --quiet --format csv \
        --columns bin_lo,bin_hi,raw_count,scaled_count
}
data_output_variance() {
    "$bin" --dk 1:4096 --n 256 --trials 16 --dv 64 --quiet --format csv \
        --columns $cfg,d_v,scaled_var_theory,raw_out_var,raw_out_var_theory,scaled_out_var,scaled_out_var_theory
}
data_planted_key() {
    "$bin" --dk 4:4096 --n 256 --trials 2 --plant 0.5 --scale sqrt,dk --quiet --format csv \
        --columns $cfg,plant,scaled_diag_logit,scaled_diag_logit_theory,scaled_diag_weight
}
data_qk_norm() {
    "$bin" --dk 4:4096 --n 256 --trials 100 --quiet --format csv \
        --columns $cfg,seed,qk_norm_radius,raw_var,raw_var_theory,raw_var_expected,raw_var_sd,raw_var_sd_theory,raw_max_abs_logit || return 1
    "$bin" --dk 4:4096 --n 256 --trials 100 --qk-norm --quiet --format csv --no-header \
        --columns $cfg,seed,qk_norm_radius,raw_var,raw_var_theory,raw_var_expected,raw_var_sd,raw_var_sd_theory,raw_max_abs_logit
}
# Student figures (docs/figures.md).
data_weights_row() {
    # One query against 8 keys at d_k = 64, drawn by sdpa-var (seed 42, the
    # row --example prints); numpy takes its softmax raw and times 1/8.
    "$bin" --dk 64 --nq 1 --nk 8 --save-qk "$tmp/qk" --quiet --format csv --columns dk >/dev/null || return 1
    /usr/bin/python3 - "$tmp/qk" <<'EOF'
import sys
import numpy as np
q = np.load(sys.argv[1] + "/q.npy")[0]
k = np.load(sys.argv[1] + "/k.npy")
dk = q.shape[0]
print("key,dk,scale_factor,raw_logit,scaled_logit,raw_weight,scaled_weight")
s = np.array([sum(float(a) * float(b) for a, b in zip(q, kj)) for kj in k])
c = 1 / np.sqrt(dk)
w = lambda z: np.exp(z - z.max()) / np.exp(z - z.max()).sum()
for j, (a, b, pa, pb) in enumerate(zip(s, c * s, w(s), w(c * s))):
    print("%d,%d,%.17g,%.17g,%.17g,%.17g,%.17g" % (j, dk, c, a, b, pa, pb))
EOF
}
data_variance_linear() {
    "$bin" --dk 32,64,96,128,160,192,224,256,288,320,352,384,416,448,480,512 --n 256 --trials 4 \
        --quiet --format csv \
        --columns $cfg,raw_var,raw_var_theory,raw_var_sd_theory,scaled_var,scaled_var_theory,scaled_var_sd_theory
}
data_entropy_vs_dk() {
    "$bin" --dk 1:1024 --n 1111 --trials 4 --quiet --format csv \
        --columns $cfg,raw_entropy,scaled_entropy
}

# ---- the figures each data set feeds: FIGURE=SCRIPT[:gnuplot -e settings] ----
figures_of() {
    case "$1" in
    gradient_signal)
        echo "gradient_total=gradient_signal:panel='total'"
        echo "gradient_keys=gradient_signal:panel='keys'"
        echo "gradient_query=gradient_signal:panel='query'" ;;
    *) echo "$1=$1" ;;
    esac
}

all=(variance_vs_dk softmax_vs_dk puzzle_histogram scale_choices input_moments
    fourth_moment gradient_signal entropy_approx projection_init causal_rows
    score_histogram output_variance planted_key qk_norm
    weights_row variance_linear entropy_vs_dk)
# Figures drawn from a committed CSV that another script makes: NAME=CSV.
drawn_only=("long_context=$src/docs/figures/long_context.csv")
[ ${#names[@]} -gt 0 ] || names=("${all[@]}" "${drawn_only[@]%%=*}")
draw=()
for n in "${names[@]}"; do
    for d in "${drawn_only[@]}"; do [ "${d%%=*}" = "$n" ] && draw+=("$d") && continue 2; done
    declare -F "data_$n" >/dev/null || { echo "figures.sh: no data set '$n'; known: ${all[*]} ${drawn_only[*]%%=*}" >&2; exit 2; }
done

for n in "${names[@]}"; do
    declare -F "data_$n" >/dev/null || continue
    csv=$out/data/$n.csv
    if ! "data_$n" >"$tmp/$n.csv"; then
        echo "figures.sh: $n: the sdpa-var run failed" >&2
        exit 1
    fi
    mv "$tmp/$n.csv" "$csv"
    [ $data_only = 1 ] && continue
    while IFS= read -r f; do
        fig=${f%%=*} rest=${f#*=}
        script=${rest%%:*} set=
        [ "$rest" = "$script" ] || set="${rest#*:}; "
        if ! gnuplot -e "${set}out='$tmp/$fig.png'" "$src/scripts/$script.gp" <"$csv"; then
            echo "figures.sh: $fig: gnuplot $script.gp failed on $csv" >&2
            exit 1
        fi
        mv "$tmp/$fig.png" "$out/$fig.png"
    done < <(figures_of "$n")
done
[ $data_only = 1 ] && exit 0
for d in "${draw[@]}"; do
    fig=${d%%=*} csv=${d#*=}
    if ! gnuplot -e "out='$tmp/$fig.png'" "$src/examples/$fig.gp" <"$csv"; then
        echo "figures.sh: $fig: gnuplot $fig.gp failed on $csv" >&2
        exit 1
    fi
    mv "$tmp/$fig.png" "$out/$fig.png"
done
