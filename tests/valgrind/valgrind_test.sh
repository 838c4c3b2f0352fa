#!/usr/bin/env bash
# valgrind_test.sh: memcheck over a representative subset of the CLI cases
# (every output kind and format, every option family, usage errors): no
# invalid read or write, no use of an uninitialised value, no definite or
# indirect leak.
#   tests/valgrind/valgrind_test.sh SDPA_VAR_BINARY
# Each case must also exit as it does without valgrind (0, or 2 for a usage
# error): valgrind's own failure is --error-exitcode=1, which no case expects.
# "Possibly lost" and "still reachable" blocks are not errors: libgomp keeps
# its thread pool and OpenBLAS its buffers until exit by design.
set -u
BIN=$1
supp=$(dirname "${BASH_SOURCE[0]}")/valgrind.supp
fails=0 passes=0
log=$(mktemp)
trap 'rm -f "$log"' EXIT

run() {
    local want=$1
    shift
    OMP_NUM_THREADS=2 valgrind --tool=memcheck --error-exitcode=1 --leak-check=full \
        --errors-for-leak-kinds=definite,indirect --show-leak-kinds=definite,indirect \
        --suppressions="$supp" --log-file="$log" -q "$BIN" "$@" >/dev/null 2>&1
    local got=$?
    if [ "$got" -ne "$want" ] || [ -s "$log" ]; then
        printf 'FAIL: sdpa-var %s: exit %d (want %d)\n' "$*" "$got" "$want"
        cat "$log"
        fails=$((fails + 1))
    else
        passes=$((passes + 1))
    fi
}

run 0 --dk 64 --n 100
run 0 --dk 1:64 --n 16 --trials 4 --format table
run 0 --dk 4 --n 3 --causal --values --dv 2
run 0 --dk 16 --n 4 --plant 0.5 --trials 3
run 0 --dk 2 --n 3 --d-model 3 --init lecun
run 0 --dk 2 --nq 3 --nk 5 --d-model 4 --cross
run 0 --dist t --nu 5 --dk 8 --n 8
run 0 --dist rademacher --dk 8 --n 8 --qk-norm
run 0 --dk 4 --n 8 --q-mean 1 --k-std 2 --scale sqrt,dk,none,2
run 0 --histogram 10 --dk 4 --n 4
run 0 --histogram 10 --weight-histogram --dk 4 --n 4
run 0 --per-trial --trials 3 --dk 2 --n 2
run 0 --per-row --dk 2 --n 5
run 0 --format json --dk 4,8 --n 4
run 0 --dk 4 --n 300 --block-rows 7 --threads 2
run 0 --help
run 0 --version
run 2 --dk 0
run 2 --dk abc
run 2 --n 18446744073709551616
run 2 --causal=1
run 2 --nosuch
echo "$passes passed, $fails failed"
[ "$fails" -eq 0 ]
