#!/usr/bin/env bash
# The optional MPI build (issue 25 section 2): configured and built in its
# own build directory with -DSV_MPI=ON against Debian's OpenMPI, then
# `mpirun -n 3` (ranks oversubscribed on this machine) prints one
# process's bytes in every format; what a split run cannot do is refused
# with exit 2. Skipped (exit 77) without mpicc and mpirun.
# Usage: tests/cli/mpi_test.sh SOURCE_DIR MPI_BUILD_DIR
set -u
SRC=${1:?usage: mpi_test.sh SOURCE_DIR MPI_BUILD_DIR}
BUILD=${2:?usage: mpi_test.sh SOURCE_DIR MPI_BUILD_DIR}
if ! command -v mpicc >/dev/null || ! command -v mpirun >/dev/null; then
    echo "SKIP: mpicc or mpirun not found: apt-get install libopenmpi-dev openmpi-bin"
    exit 77
fi
cmake -S "$SRC" -B "$BUILD" -DCMAKE_BUILD_TYPE=Release -DSV_MPI=ON -DSV_WERROR=ON >"$BUILD.log" 2>&1 &&
    cmake --build "$BUILD" -j2 --target sdpa-var >>"$BUILD.log" 2>&1 || {
    echo "FAIL: the MPI build failed:"
    tail -n 20 "$BUILD.log"
    exit 1
}
M=$BUILD/sdpa-var
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fails=0 passes=0
ok() { passes=$((passes + 1)); }
bad() { echo "FAIL: $*"; fails=$((fails + 1)); }
mpi() { mpirun --allow-run-as-root --oversubscribe -n "$@"; }

A=(--dk 8,16 --n 40 --seed 11 --trials 1000 --observed 7)
for f in csv json jsonl table state; do
    "$M" "${A[@]}" --format $f >"$T/one.$f"
    mpi 3 "$M" "${A[@]}" --format $f >"$T/mpi.$f" || bad "mpirun -n 3, $f: exit $?"
    cmp -s "$T/one.$f" "$T/mpi.$f" && ok || bad "mpirun -n 3, $f: not one process's bytes"
done
# --output: rank 0 alone writes the file, whole
mpi 3 "$M" "${A[@]}" --output "$T/mpi_out.csv" >"$T/out" && [ ! -s "$T/out" ] &&
    cmp -s "$T/one.csv" "$T/mpi_out.csv" && ok || bad "mpirun -n 3 --output: not one process's bytes"
# no --format under mpirun: CSV (its stdout is mpirun's, not a terminal)
mpi 3 "$M" "${A[@]}" >"$T/mpi_default" && cmp -s "$T/one.csv" "$T/mpi_default" && ok ||
    bad "mpirun -n 3 without --format: not the CSV"
# causal rows over two row blocks, 7 trials on 2 ranks
C=(--dk 2 --n 4200 --causal --trials 7 --seed 4)
"$M" "${C[@]}" >"$T/c1" && mpi 2 "$M" "${C[@]}" >"$T/c2" && cmp -s "$T/c1" "$T/c2" && ok ||
    bad "mpirun -n 2, causal: not one process's bytes"
# one long trial: the ranks split query rows in blocks of 4096 (9000 rows:
# 4096, 4096, 808), in every format, causal and a d_k list too
R=(--dk 2,3 --n 9000 --seed 5)
for f in csv json table state; do
    "$M" "${R[@]}" --format $f >"$T/r1.$f"
    mpi 3 "$M" "${R[@]}" --format $f >"$T/r3.$f" || bad "mpirun -n 3, rows, $f: exit $?"
    cmp -s "$T/r1.$f" "$T/r3.$f" && ok || bad "mpirun -n 3, rows, $f: not one process's bytes"
done
R=(--dk 4 --n 8193 --causal --trials 2 --seed 6)
"$M" "${R[@]}" >"$T/r1" && mpi 3 "$M" "${R[@]}" >"$T/r3" && cmp -s "$T/r1" "$T/r3" && ok ||
    bad "mpirun -n 3, causal rows of 2 trials: not one process's bytes"
# one rank is the plain run, CSV without --format too
mpi 1 "$M" "${A[@]}" >"$T/mpi1.csv" && cmp -s "$T/one.csv" "$T/mpi1.csv" && ok ||
    bad "mpirun -n 1: not one process's bytes"
refused() { # WANT ARGS...: exit 2, one line from rank 0 naming what
    local want=$1
    shift
    mpi 3 "$M" "$@" >"$T/out" 2>"$T/err"
    local rc=$?
    [ $rc -ne 0 ] && [ ! -s "$T/out" ] && [ "$(grep -c '^sdpa-var:' "$T/err")" -eq 1 ] &&
        grep -qF -- "$want" "$T/err" && ok || bad "mpirun -n 3 $* -> rc=$rc $(head -n 3 "$T/err")"
}
refused "not with fewer trials than ranks and fewer blocks of 4096 query rows" --dk 4 --trials 2
refused "fewer trials than ranks and --grad" --dk 4 --n 9000 --values --grad --trials 2
# --n lists (issue 33): trials split, and rows split on the largest n_q,
# each configuration taking its part (none for 33 past row 4096)
for L in "--dk 2,3 --n 16,33 --trials 5" "--dk 2 --n 9000,5000,33 --trials 1"; do
    for f in csv state; do
        "$M" $L --seed 9 --format $f >"$T/l1.$f"
        mpi 3 "$M" $L --seed 9 --format $f >"$T/l3.$f" && cmp -s "$T/l1.$f" "$T/l3.$f" && ok ||
            bad "mpirun -n 3 $L, $f: not one process's bytes"
    done
done
refused "fewer trials than ranks and fewer blocks" --dk 4 --n 9000,5000 --trials 1 --nq 5000
# per-row log-n scales: a row fold carries one multiplier's scaled moments
# (sv_rowfold_check), so a row split is refused, also in a scale sweep
refused "fewer trials than ranks and --scale logn" --dk 4 --n 9000 --causal --scale logn --trials 1
refused "fewer trials than ranks and --scale logn" --dk 4 --n 9000 --window 9 --scale sqrt,logn
refused "not with per-trial, per-row and histogram output" --dk 4 --trials 9 --per-trial
refused "not with --first-trial and --q-rows" --dk 4 --trials 9 --first-trial 3 --total-trials 12 \
    --format state
# Files and given logits are one process's work: refused, not printed 3 times
"$M" --dk 4 --n 10 --save-qk "$T/qk" >/dev/null
refused "not with --q and --k" --q "$T/qk/q.npy" --k "$T/qk/k.npy"
refused "not with --logits" --logits 1,2,3
# Parse errors, --help, --version and merge: what one process says, once
# (rank 0 alone speaks; every rank exits with the same status).
refused "--dk: '0' is not" --dk 0
refused "--frobnicate" --frobnicate
for a in --help --version; do
    "$M" $a >"$T/one.txt"
    mpi 3 "$M" $a >"$T/mpi.txt" 2>"$T/err" && cmp -s "$T/one.txt" "$T/mpi.txt" && ok ||
        bad "mpirun -n 3 $a: not one process's output"
done
"$M" --dk 4 --trials 4 --format state >"$T/s.state"
"$M" --dk 4 --trials 4 >"$T/s.csv"
mpi 3 "$M" merge "$T/s.state" >"$T/mm.csv" && cmp -s "$T/s.csv" "$T/mm.csv" && ok ||
    bad "mpirun -n 3 merge: not one merge's output"
echo "$passes passed, $fails failed"
[ "$fails" -eq 0 ]
