#!/usr/bin/env bash
# Benchmark: sdpa-var against numpy (tests/oracles/numpy_reference.py computing the
# same statistics), PyTorch on the CPU (tests/oracles/torch_reference.py, float32 and
# float64, in query-row blocks) and against the limit (bench/dgemm_limit.c: the bare
# cblas_dgemm products of the same shapes, blocked the same way), side by side
# in one run. Writes docs/performance.md and docs/figures/performance_scaling.png.
#
#   scripts/bench.sh                  # 5 runs per measurement (median)
#   SV_BENCH_RUNS=3 scripts/bench.sh  # quicker, noisier
#
# Wall time is the median of the runs; peak RSS (GNU time's %M) the largest.
# Performance claims live here and in docs/performance.md, never in tests.
# The prose about where the time goes is docs/performance_notes.md, appended.
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/setup.sh"
# Bench-only packages: GNU time for peak RSS, SLEEF for the exp comparison.
sv_ensure_packages "${SV_BUILD_PACKAGES[@]}" "${SV_TEST_PACKAGES[@]}" time libsleef-dev
sv_build release
# Re-configure so that CMake finds SLEEF if it was just installed.
(cd "$SV_ROOT" && cmake --preset release >/dev/null)
cmake --build "$SV_ROOT/build" --target dgemm_limit exp_bench many_small >&2

cd "$SV_ROOT"
RUNS=${SV_BENCH_RUNS:-5}
BIN=build/sdpa-var
LIMIT=build/dgemm_limit
PY=/usr/bin/python3
OUT=docs/performance.md
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# measure NAME CMD...: runs CMD $RUNS times (stdout discarded); sets
# MED (median wall seconds, from the clock in ns: GNU time's %e has only
# 10 ms resolution) and RSS (largest peak RSS, MiB, from GNU time).
measure() {
    local name=$1; shift
    : >"$tmp/$name.times"
    local i t0 t1
    for ((i = 0; i < RUNS; i++)); do
        t0=$(date +%s%N)
        /usr/bin/time -f '%M' -o "$tmp/one" "$@" >/dev/null
        t1=$(date +%s%N)
        echo "$(( (t1 - t0) / 1000 )) $(cat "$tmp/one")" |
            awk '{ printf "%.4f %s\n", $1 / 1e6, $2 }' >>"$tmp/$name.times"
    done
    MED=$(sort -n -k1,1 "$tmp/$name.times" | awk '{ t[NR] = $1 } END { print (NR % 2) ? t[(NR + 1) / 2] : (t[NR / 2] + t[NR / 2 + 1]) / 2 }')
    RSS=$(awk '$2 > m { m = $2 } END { printf "%.1f", m / 1024 }' "$tmp/$name.times")
}

# limit_seconds ARGS...: the fastest of $RUNS runs of dgemm_limit's own
# timer (the products alone, without process start-up). The limit is a
# bound, so its best run estimates it: a median of 3 let one noisy minute
# on this shared machine put the n = 16384 limit above sdpa-var.
limit_seconds() {
    local i
    for ((i = 0; i < RUNS; i++)); do "$LIMIT" "$@" | awk '{ print $1 }'; done |
        sort -n | awk 'NR == 1'
}

verdict() { awk -v x="$1" -v lim="$2" -v op="$3" 'BEGIN { ok = (op == "<=") ? x <= lim : x >= lim; print ok ? "met" : "**not met**" }'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (a == "-" || b == "" || b == "-" || b + 0 == 0) print "-"; else printf "%.2f", a / b }'; }

mem_gib=$(awk '/MemTotal/ { printf "%.1f", $2 / 1048576 }' /proc/meminfo)
rows=()
# [TORCH_RUNS=N] config LABEL "SDPA ARGS" "LIMIT ARGS" [NUMPY_SKIP_REASON [TORCH_SKIP_REASON]]
# TORCH_RUNS overrides $RUNS for the two torch measurements (and says so in
# the row): for the runs too long to repeat.
config() {
    local label=$1 args=$2 largs=$3 skip=${4:-} tskip=${5:-}
    printf 'bench: %s\n' "$label" >&2
    # shellcheck disable=SC2086
    measure sv "$BIN" $args
    local sv_t=$MED sv_rss=$RSS np_t=- np_rss=- np_note=
    if [ -z "$skip" ]; then
        # numpy as a user would run it: OpenBLAS's own threads, no core
        # override (see the env skill: OPENBLAS_CORETYPE slows numpy).
        # shellcheck disable=SC2086
        measure np env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE "$PY" tests/oracles/numpy_reference.py $args
        np_t=$MED np_rss=$RSS
    else
        np_note=$skip
    fi
    # PyTorch as a user would run it: row blocks, torch's own threads (all
    # cores: torch_reference.py's default), float32 then float64.
    local runs_save=$RUNS t32=- t64=- torch_note=$tskip
    if [ -z "$tskip" ]; then
        RUNS=${TORCH_RUNS:-$RUNS}
        # shellcheck disable=SC2086
        measure t32 "$PY" tests/oracles/torch_reference.py $args --dtype float32
        t32=$MED
        # shellcheck disable=SC2086
        measure t64 "$PY" tests/oracles/torch_reference.py $args --dtype float64
        t64=$MED
        [ "$RUNS" = "$runs_save" ] || torch_note="torch: $RUNS run(s), not $runs_save (each takes minutes)"
        RUNS=$runs_save
    fi
    # shellcheck disable=SC2086
    local lim_t; lim_t=$(limit_seconds $largs)
    local note=${np_note}${np_note:+${torch_note:+; }}${torch_note}
    rows+=("| \`$label\` | $sv_t | $sv_rss | $np_t | $np_rss | $t32 | $t64 | $lim_t | $(ratio "$np_t" "$sv_t") | $(ratio "$t32" "$sv_t") | $(ratio "$t64" "$sv_t") | $(ratio "$sv_t" "$lim_t") |${note:+ $note}")
    RES_SV=$sv_t RES_NP=$np_t RES_LIM=$lim_t RES_RSS=$sv_rss
}

sweep_dk=1,2,4,8,16,32,64,128,256,512,1024
config "--dk 64 --n 1111" "--dk 64 --n 1111" "64 1111 1111 1"
head_sv=$RES_SV
config "--dk 128 --n 8192" "--dk 128 --n 8192" "128 8192 8192 1"
big_sv=$RES_SV big_np=$RES_NP big_lim=$RES_LIM
config "--dk 2 --n 2 --trials 1000000" "--dk 2 --n 2 --trials 1000000" "2 2 2 1000000"
tiny_sv=$RES_SV tiny_np=$RES_NP
config "--dk 1:1024 --n 2048 --trials 4" "--dk 1:1024 --n 2048 --trials 4" "$sweep_dk 2048 2048 4"
# torch in row blocks takes 4 (float32) and 9 (float64) minutes here: only
# with SV_BENCH_HUGE_TORCH=1.
huge_torch_skip="torch skipped: minutes a run (SV_BENCH_HUGE_TORCH=1 runs it once)"
[ "${SV_BENCH_HUGE_TORCH:-0}" = 1 ] && huge_torch_skip=
TORCH_RUNS=1 config "--dk 128 --n 65536" "--dk 128 --n 65536" "128 65536 65536 1" \
    "numpy skipped: its 65536 x 65536 score matrix alone is 32 GiB; this machine has $mem_gib GiB" \
    "$huge_torch_skip"
huge_sv=$RES_SV huge_lim=$RES_LIM huge_rss=$RES_RSS

# --- scaling: time vs n (d_k = 128) and vs d_k (n = 2048), sdpa-var and limit --
printf 'bench: scaling\n' >&2
scal=docs/performance_scaling.csv
echo "axis,n,dk,sdpa_var_s,limit_s" >"$scal"
RUNS_SAVE=$RUNS
RUNS=3
for n in 1024 2048 4096 8192 16384 32768; do
    measure sc "$BIN" --dk 128 --n "$n"
    echo "n,$n,128,$MED,$(limit_seconds 128 "$n" "$n" 1)" >>"$scal"
done
for d in 16 32 64 128 256 512 1024; do
    measure sc "$BIN" --dk "$d" --n 2048
    echo "dk,2048,$d,$MED,$(limit_seconds "$d" 2048 2048 1)" >>"$scal"
done
RUNS=$RUNS_SAVE
gnuplot -e "out='docs/figures/performance_scaling.png'" scripts/performance_scaling.gp <"$scal"

# --- the floor: whole processes, paired with sdpa-var's run ---------------------
# Issue 25: sdpa-var's whole process against a process that makes only the
# same blocked dgemm calls, and against the floor, those calls plus the two
# exps a score through the engine's own vector exp (dgemm_limit ... exps).
# Each triple runs in turn, so drift in the machine's speed hits all three;
# a ratio is the median of the per-triple ratios (the issue's protocol).
# Kernels: OpenBLAS's own pick for this CPU, then its AVX2 kernels (Haswell,
# Zen) with our row loops and exps at AVX2 too (SV_CPU_CAPABILITY): an AVX2
# machine's code on this machine's cores.
med() { sort -n "$1" | awk '{ t[NR] = $1 } END { print (NR % 2) ? t[(NR + 1) / 2] : (t[NR / 2] + t[NR / 2 + 1]) / 2 }'; }
# floor_pair N RUNS [CORETYPE]: sets F_SV F_DG F_FL (medians of wall seconds,
# whole processes) and F_R_DG F_R_FL (medians of the per-triple ratios).
floor_pair() {
    local n=$1 runs=$2 core=${3:-} i w t0 t1
    local -a envs=(env)
    [ -n "$core" ] && envs=(env OPENBLAS_CORETYPE="$core" SV_CPU_CAPABILITY=avx2)
    : >"$tmp/f_sv"; : >"$tmp/f_dg"; : >"$tmp/f_fl"; : >"$tmp/r_dg"; : >"$tmp/r_fl"
    for ((i = 0; i < runs; i++)); do
        local -A t=()
        for w in sv dg fl; do
            t0=$(date +%s%N)
            case $w in
            sv) "${envs[@]}" "$BIN" --dk 128 --n "$n" >/dev/null ;;
            dg) "${envs[@]}" "$LIMIT" 128 "$n" "$n" 1 >/dev/null ;;
            fl) "${envs[@]}" "$LIMIT" 128 "$n" "$n" 1 256 4096 exps >/dev/null ;;
            esac
            t1=$(date +%s%N)
            t[$w]=$(awk -v us="$(( (t1 - t0) / 1000 ))" 'BEGIN { printf "%.4f", us / 1e6 }')
            echo "${t[$w]}" >>"$tmp/f_$w"
        done
        awk -v a="${t[sv]}" -v b="${t[dg]}" 'BEGIN { printf "%.4f\n", a / b }' >>"$tmp/r_dg"
        awk -v a="${t[sv]}" -v b="${t[fl]}" 'BEGIN { printf "%.4f\n", a / b }' >>"$tmp/r_fl"
    done
    F_SV=$(med "$tmp/f_sv") F_DG=$(med "$tmp/f_dg") F_FL=$(med "$tmp/f_fl")
    F_R_DG=$(awk '{ printf "%.2f", $1 }' <<<"$(med "$tmp/r_dg")")
    F_R_FL=$(awk '{ printf "%.2f", $1 }' <<<"$(med "$tmp/r_fl")")
}
printf 'bench: floor\n' >&2
floor_pair 8192 "$RUNS"
f8_sv=$F_SV f8_dg=$F_DG f8_fl=$F_FL f8_r=$F_R_DG f8_rf=$F_R_FL
floor_pair 65536 3
f64_sv=$F_SV f64_dg=$F_DG f64_fl=$F_FL f64_r=$F_R_DG f64_rf=$F_R_FL
native_core=$("$LIMIT" 8 8 8 1 | awk '{ print $NF }')
native_isa=$(grep -qw avx512f /proc/cpuinfo && echo AVX-512 || echo AVX2)
kernel_rows=("| $native_core ($native_isa, OpenBLAS's pick) | 8192 | $f8_sv | $f8_dg | $f8_fl | ${f8_r}× | ${f8_rf}× | $(verdict "$f8_r" 1.1 "<=") |"
    "| $native_core ($native_isa, OpenBLAS's pick) | 65536 | $f64_sv | $f64_dg | $f64_fl | ${f64_r}× | ${f64_rf}× | $(verdict "$f64_r" 1.1 "<=") |")
if grep -qw avx2 /proc/cpuinfo; then
    for core in Haswell Zen; do
        [ "$core" = "$native_core" ] && continue
        for n in 8192 65536; do
            printf 'bench: floor with %s at n = %s\n' "$core" "$n" >&2
            if [ "$n" = 8192 ]; then floor_pair "$n" "$RUNS" "$core"; else floor_pair "$n" 3 "$core"; fi
            kernel_rows+=("| $core (AVX2) | $n | $F_SV | $F_DG | $F_FL | ${F_R_DG}× | ${F_R_FL}× | $(verdict "$F_R_DG" 1.1 "<=") |")
        done
    done
fi
tiny_ns=$(awk -v t="$tiny_sv" 'BEGIN { printf "%.0f", t * 1e9 / 1e6 }')

# --- many small matrices against one large one (issue 39) ---------------------
# 96 trials of 1024 x 1024 (d_k 64, caller arrays as stats() passes them)
# over one trial of as many visible scores, full and causal; bench/many_small.c
# says which pairs and why. All cores, the best of $RUNS runs of each case.
printf 'bench: many small matrices\n' >&2
many_out=$(build/many_small "$(nproc)" "$RUNS")
many_full=$(awk '$1 == "ratio" { print $3 }' <<<"$many_out")
many_causal=$(awk '$1 == "ratio" { print $5 }' <<<"$many_out")

# --- where the time goes: perf's profile of the targets' commands -------------
# profile CMD...: the 8 hottest symbols as table rows (nothing without perf).
profile() {
    command -v perf >/dev/null || { echo "| (perf is not installed) | | |"; return; }
    perf record -q -o "$tmp/perf.data" "$@" >/dev/null 2>&1 || { echo "| (perf record failed) | | |"; return; }
    # awk reads to the end: head would close the pipe early, and perf's
    # SIGPIPE fails the pipeline under pipefail.
    perf report -i "$tmp/perf.data" --no-children --stdio 2>/dev/null |
        awk '/^ +[0-9.]+%/ && ++k <= 8 { printf "| %s | %s | `%s` |\n", $1, $3, $5 }'
}
printf 'bench: perf profiles\n' >&2
prof_big=$(profile "$BIN" --dk 128 --n 8192)
prof_tiny=$(profile "$BIN" --dk 2 --n 2 --trials 1000000)

# --- targets ----------------------------------------------------------------------
t1=$(ratio "$big_sv" "$big_lim"); t2=$(ratio "$big_np" "$big_sv"); t2lim=$(ratio "$big_np" "$big_lim")
t3=$(ratio "$huge_sv" "$huge_lim"); t4=$(ratio "$tiny_np" "$tiny_sv")

blas_core=$("$LIMIT" 8 8 8 1 | awk '{ print $NF }')
numpy_v=$("$PY" -c 'import numpy; print(numpy.__version__)')
torch_v=$("$PY" -c 'import torch; print(torch.__version__)')
{
cat <<EOF
# Performance

Measured by \`scripts/bench.sh\` (median of $RUNS runs per measurement; peak RSS
from GNU time). Regenerate with that command; every number below comes from it.

## Machine

- CPU: $(lscpu | sed -n 's/^Model name: *//p' | head -1), $(nproc) cores online, $mem_gib GiB memory
- OS: $(. /etc/os-release && echo "$PRETTY_NAME"), kernel $(uname -r)
- Compiler: $(gcc --version | head -1)
- BLAS: OpenBLAS $(dpkg-query -W -f='${Version}' libopenblas0-pthread 2>/dev/null || echo '?') (pthread build, kernel $blas_core), one thread per call inside our OpenMP threads
- numpy $numpy_v on /usr/bin/python3 with the same OpenBLAS
- PyTorch $torch_v (Debian's python3-torch, CPU) on /usr/bin/python3, $(nproc) threads (torch_reference.py's \`torch.set_num_threads\`)
- Date: $(date -u +%Y-%m-%d)

## Results

Times in seconds (whole process for sdpa-var, numpy and torch, medians; the
products alone for the limit, the fastest run), peak RSS in MiB.

| configuration | sdpa-var s | sdpa-var MiB | numpy s | numpy MiB | torch f32 s | torch f64 s | limit s | numpy ÷ sdpa-var | torch f32 ÷ sdpa-var | torch f64 ÷ sdpa-var | sdpa-var ÷ limit |
|---|---|---|---|---|---|---|---|---|---|---|---|
EOF
printf '%s\n' "${rows[@]}"
cat <<EOF

- *numpy* is \`tests/oracles/numpy_reference.py\` with the same arguments: it draws Q and K,
  forms \`Q @ K.T\`, takes \`var\`, and computes the softmax entropy, max weight and
  Jacobian trace, raw and scaled, as sdpa-var does. Many small trials run as one
  batched \`(T,2,2) @ (T,2,2)\` product, in chunks.
- *torch* is \`tests/oracles/torch_reference.py\` with the same arguments and \`--dtype float32\`
  (\`f32\`) or \`--dtype float64\` (\`f64\`): PyTorch on the CPU, written as a PyTorch
  user would. It draws with \`torch.randn\` and takes the scores in blocks of query rows
  (2²³ scores at a time: 1024 rows of 8192 keys, 128 of 65536), so it never holds the
  n×n matrix and runs \`--n 65536\` too. Per block it calls \`torch.matmul\`, \`var_mean\`, \`log_softmax\` and
  row reductions, and sums them across blocks in float64. Its time includes about
  1 s of \`import torch\`. The 2×2 trials run as a batched \`bmm\`, in chunks.
  \`ctest -R torch.reference\` checks its statistics against numpy's on the same Q and K.
- The *limit* is \`bench/dgemm_limit\`. It runs the bare \`cblas_dgemm\` calls of the
  same shapes with the same blocking (query tiles of 256 rows, key blocks of 4096
  keys, OpenMP across tiles) and nothing else. For 2×2 trials, sdpa-var does not
  call the BLAS at all, because a call costs more than a product that small. The
  limit column there is the cost of a million such calls, so it is no bound.

## Targets

Issue 25's targets. *Bare dgemm* and *floor* are whole processes
(\`build/dgemm_limit 128 N N 1\`, and the same with \`256 4096 exps\`: the products
plus two exps a score through the engine's own vector exp), run in turn with
\`build/sdpa-var --dk 128 --n N\` ($RUNS triples at n = 8192, 3 at 65536). Times are
medians; a ratio is the median of the ratios within each triple.

| target | measured | verdict |
|---|---|---|
| \`--dk 128 --n 8192\` ≤ 1.1× a process of bare dgemm calls ($native_core) | $f8_sv s ÷ $f8_dg s: ${f8_r}× | $(verdict "$f8_r" 1.1 "<=") |
| the same against the floor (dgemm + 2 exps a score) | $f8_sv s ÷ $f8_fl s: ${f8_rf}× | (the floor) |
| \`--dk 128 --n 65536\` ≤ 1.1× a process of bare dgemm calls ($native_core) | $f64_sv s ÷ $f64_dg s: ${f64_r}× | $(verdict "$f64_r" 1.1 "<=") |
| the same against the floor (dgemm + 2 exps a score) | $f64_sv s ÷ $f64_fl s: ${f64_rf}× | (the floor) |
| \`--dk 2 --n 2 --trials 1000000\` ≥ 10× faster than batched numpy | ${t4}× | $(verdict "$t4" 10 ">=") |
| the same ≤ 150 ns a trial | $tiny_ns ns | $(verdict "$tiny_ns" 150 "<=") |
| \`--dk 128 --n 8192\` faster than numpy | ${t2}× (the bare products alone: ${t2lim}×) | $(verdict "$t2" 1 ">=") |
| \`--dk 128 --n 65536\` peak RSS ≤ 64 MiB | $huge_rss MiB | $(verdict "$huge_rss" 64 "<=") |
| headline command under 50 ms | $head_sv s | $(verdict "$head_sv" 0.05 "<=") |
| 96 trials of 1024 × 1024 ≥ 0.7× the throughput of one trial of equal work, full | ${many_full}× | $(verdict "$many_full" 0.7 ">=") |
| the same, causal | ${many_causal}× | $(verdict "$many_causal" 0.7 ">=") |

The last two rows are issue 39's: \`build/many_small $(nproc) $RUNS\` (the
engine on caller arrays through the strided source, as \`stats()\` passes
them; GFLOP/s count 2 d_k flops per visible score):

<!-- not run: timing; scripts/bench.sh runs it -->
\`\`\`
\$ build/many_small $(nproc) $RUNS
$many_out
\`\`\`

The same with each OpenBLAS kernel this CPU runs. The AVX2 rows set
\`OPENBLAS_CORETYPE\` and \`SV_CPU_CAPABILITY=avx2\` for all three processes: an
AVX2 machine's code on this machine's cores, not an AVX2 machine.

| kernel | n | sdpa-var s | bare dgemm s | floor s | sdpa-var ÷ dgemm | sdpa-var ÷ floor | ≤ 1.1× dgemm |
|---|---|---|---|---|---|---|---|
EOF
printf '%s\n' "${kernel_rows[@]}"
cat <<EOF

Where the time goes: \`perf record\` of each command, the eight hottest
symbols (share of the samples of both threads).

| \`--dk 128 --n 8192\` | library | symbol |
|---|---|---|
$prof_big

| \`--dk 2 --n 2 --trials 1000000\` | library | symbol |
|---|---|---|
$prof_tiny

## Scaling

Time against n (with d_k = 128) and against d_k (with n = 2048), on log-log axes.
The raw data are in \`docs/performance_scaling.csv\`. Work per trial is
O(n_q·n_k·d_k): the dgemm flops plus 2·n_q·n_k exps. So time grows like n² at
fixed d_k, and it is close to flat in d_k until the product outweighs the
exps (about d_k ≈ 64 here).

![time vs n and d_k](figures/performance_scaling.png)

## The exp, measured

\`build/exp_bench\` on this machine:

<!-- not run: timing (ns per exp); scripts/bench.sh builds and runs it -->
\`\`\`
\$ build/exp_bench
$(build/exp_bench 2>&1 || echo "exp_bench unavailable (needs libsleef-dev and AVX-512)")
\`\`\`

EOF
cat docs/performance_notes.md
# The page in Chromium, measured by scripts/web_bench.sh (when it has run).
if [ -f docs/performance_web.md ]; then echo; cat docs/performance_web.md; fi
} >"$OUT"
printf 'bench: wrote %s\n' "$OUT" >&2
