#!/usr/bin/env bash
# Audit of every option pair (issue 9 section 4): adding option B to a run
# with option A must change the output or be refused (exit 2). An accepted
# B that changes nothing is silently ignored and belongs in validate.c's
# rule table. Pairs where B is implied by A, or where B's effect cancels
# exactly, are listed below with the reason. About 900 small runs (~45 s).
# Usage: tests/cli/options_audit.sh path/to/sdpa-var
set -u
BIN=${1:?usage: options_audit.sh path/to/sdpa-var}
. "$(dirname "$0")/lib.sh"
base="--dk 4 --n 5 --trials 3 --format csv"
opts=("--dk 8" "--n 6" "--nq 4" "--nk 7" "--trials 4" "--seed 7" "--dist uniform" "--ddof 1"
    "--observed 3" "--scale dk" "--dist t --nu 9" "--q-mean 0.5" "--q-std 2" "--k-mean 0.5"
    "--k-std 2" "--qk-norm" "--qk-scale 3" "--plant 0.5" "--d-model 6" "--d-model 6 --init lecun"
    "--d-model 6 --cross" "--causal" "--values" "--dv 3" "--per-trial" "--per-row"
    "--histogram 50" "--histogram 50 --weight-histogram" "--no-header" "--format json")
# "B|A|why": B adds nothing to A, rightly.
allowed='--d-model 6|--d-model 6 --cross|A has it
--d-model 6|--d-model 6 --init lecun|A has it
--histogram 50|--histogram 50 --weight-histogram|A has it
--qk-norm|--qk-scale 3|implied
--values|--dv 3|implied
--k-mean 0.5|--histogram 50 --weight-histogram|q.(k + m) adds m sum(q) to a whole row: softmax weights do not change'
declare -A out rc
for a in "${opts[@]}"; do
    # shellcheck disable=SC2086
    out[$a]=$("$BIN" $base $a 2>/dev/null | md5sum)
    rc[$a]=${PIPESTATUS[0]}
done
# The pairs below are checked only for an A that runs: if base or most A's
# stopped running, the loop would check nothing and pass. Base must run, and
# an A may fail only as a usage error (exit 2), never crash.
"$BIN" $base >/dev/null 2>&1 && ok || fail "base run failed: $base"
accepted=0
for a in "${opts[@]}"; do
    case ${rc[$a]} in 0) accepted=$((accepted + 1)) ;; 2) ;; *) fail "[$a] exits ${rc[$a]}" ;; esac
done
[ "$accepted" -ge $((${#opts[@]} / 2)) ] && ok || fail "only $accepted of ${#opts[@]} options run with base"
for a in "${opts[@]}"; do
    [ "${rc[$a]}" -eq 0 ] || continue
    for b in "${opts[@]}"; do
        [ "$a" = "$b" ] && continue
        # shellcheck disable=SC2086
        o=$("$BIN" $base $a $b 2>/dev/null | md5sum)
        r=${PIPESTATUS[0]}
        if [ "$r" -ne 0 ] || [ "$o" != "${out[$a]}" ] || grep -qF -- "$b|$a|" <<<"$allowed"; then
            ok
        else
            fail "[$b] changes nothing with [$a] and is accepted"
        fi
    done
done
done_tests
