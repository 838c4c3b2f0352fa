#!/usr/bin/env bash
# Memory of a run: sdpa-var's estimate (the one its size check uses, printed
# with SDPA_VAR_MEMORY_ESTIMATE set) against the peak resident memory that
# /usr/bin/time -f %M measures, within 25 %; and a sweep peaks at what one
# of its configurations takes (rows are written before the next one runs:
# before, a sweep of 32 d_k kept 32 buffers of per-trial statistics).
#   memory_test.sh SDPA_VAR_BINARY
set -u
bin=$1
if [ ! -x /usr/bin/time ]; then
  echo "memory_test: /usr/bin/time not found: apt-get install time" >&2
  exit 1
fi
failed=0
peak() { /usr/bin/time -f '%M' "$bin" "$@" 2>&1 >/dev/null | tail -1; }
check() {
  local est got
  est=$(SDPA_VAR_MEMORY_ESTIMATE=1 "$bin" "$@" 2>&1 >/dev/null |
        sed -n 's/^sdpa-var: memory estimate \([0-9]*\) KiB$/\1/p')
  got=$(peak "$@")
  # |estimate - peak| <= 25 % of the peak
  if [ -n "$est" ] && [ -n "$got" ] && [ $((4 * (est > got ? est - got : got - est))) -le "$got" ]; then
    echo "ok: estimate $est KiB, peak $got KiB: $*"
  else
    echo "FAIL: estimate ${est:-none} KiB, peak ${got:-none} KiB: $*"
    failed=1
  fi
}
check --dk 64 --n 1 --trials 1000000
check --dk 128 --n 6000 --trials 1
check --dk 256 --n 3000 --trials 1
check --dk 4 --n 30000 --per-row
check --dk 16 --n 4 --trials 150000 --per-trial
check --dk 32 --n 2000 --values --trials 1
sweep=$(seq -s, 1 32)
check --dk "$sweep" --n 1 --trials 65536
one=$(peak --dk 32 --n 1 --trials 65536)
all=$(peak --dk "$sweep" --n 1 --trials 65536)
if [ $((4 * all)) -le $((5 * one)) ]; then
  echo "ok: a sweep of 32 d_k peaks at $all KiB, one d_k at $one KiB"
else
  echo "FAIL: a sweep of 32 d_k peaks at $all KiB, one d_k at $one KiB"
  failed=1
fi
exit $failed
