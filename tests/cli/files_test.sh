#!/usr/bin/env bash
# --q, --k, --v (issue 16): numpy-written files read per (batch, head), the
# GQA mapping, --layout bnhd, --pool, --save-qk read back to the last digit,
# and every class of bad file: one line naming it, exit 1, nothing on stdout.
# Usage: tests/cli/files_test.sh path/to/sdpa-var
set -u
BIN=$(realpath "${1:?usage: files_test.sh path/to/sdpa-var}")
. "$(dirname "$0")/lib.sh"
PY=/usr/bin/python3
if ! "$PY" -c 'import numpy' 2>/dev/null; then
    echo "SKIP: no numpy for $PY"
    exit 77
fi
p='sdpa-var'

# runtime_error PATTERN ARGS...: exit 1, empty stdout, one line matching
# "sdpa-var: PATTERN" (a bash pattern).
runtime_error() {
    local want=$1; shift
    "$BIN" "$@" >"$tmp/out" 2>"$tmp/err"
    local rc=$?
    if [ "$rc" -eq 1 ] && [ ! -s "$tmp/out" ] && [ "$(wc -l <"$tmp/err")" -eq 1 ] &&
        [[ "$(cat "$tmp/err")" == "$p: "$want ]]; then
        ok
    else
        fail "sdpa-var $* -> rc=$rc stdout=$(wc -c <"$tmp/out")B stderr=$(cat "$tmp/err") (want: $want)"
    fi
}

# --- files numpy wrote: batch 2, 4 query heads, 2 key heads (GQA) ------------
cd "$tmp" || exit 1
"$PY" - <<'PYEOF'
import numpy as np
rng = np.random.default_rng(16)
q = rng.normal(0.3, 1.2, (2, 4, 40, 8))
k = rng.normal(-0.1, 0.8, (2, 2, 40, 8)).astype(np.float32)
v = rng.normal(0, 1, (2, 2, 40, 5))
np.save("q.npy", q); np.save("k.npy", k); np.save("v.npy", v)
np.save("q_bnhd.npy", q.transpose(0, 2, 1, 3).copy())
np.save("k_bnhd.npy", k.transpose(0, 2, 1, 3).copy())
np.save("q_fortran.npy", np.asfortranarray(q))
np.save("k_big.npy", k.astype(">f4"))
q[1, 3, 17, 5] = np.nan
np.save("q_nan.npy", q)
np.save("k_dk.npy", k[..., :6].copy())
np.save("k_3heads.npy", rng.normal(0, 1, (2, 3, 40, 8)))
np.save("k_batch.npy", k[:1].copy())
# numpy's own per-head statistics (ddof 0), for the comparison below.
q = np.load("q.npy"); k = np.load("k.npy").astype(np.float64)
with open("want.csv", "w") as f:
    f.write("batch,head,kv_head,raw_var,scaled_entropy,scaled_max_weight\n")
    for b in range(2):
        for h in range(4):
            s = q[b, h] @ k[b, h // 2].T
            z = s / np.sqrt(8)
            p = np.exp(z - z.max(1, keepdims=True)); p /= p.sum(1, keepdims=True)
            ent = -(p * np.log(p)).sum(1).mean()
            f.write(f"{b},{h},{h // 2},{s.var()!r},{ent!r},{p.max(1).mean()!r}\n")
PYEOF

"$BIN" --q q.npy --k k.npy --format csv >heads.csv 2>err && [ ! -s err ] && ok || fail "happy path: $(cat err)"
[ "$(wc -l <heads.csv)" -eq 10 ] && ok || fail "8 head rows and the pooled row: $(wc -l <heads.csv) lines"
[ "$(head -c 19 heads.csv)" = "batch,head,kv_head," ] && ok || fail "per_head header: $(head -1 heads.csv)"
[ "$(column kv_head heads.csv | tr '\n' ' ')" = "0 0 1 1 0 0 1 1 all " ] && ok ||
    fail "GQA: kv_head = head / 2: $(column kv_head heads.csv | tr '\n' ' ')"
[ "$(tail -1 heads.csv | cut -d, -f1-3)" = "all,all,all" ] && ok || fail "pooled row: $(tail -1 heads.csv)"
# numpy on the same arrays: relative 1e-12 (sums of 1600 products in
# another order differ by a few ulps, far below).
"$PY" - "$tmp/heads.csv" "$tmp/want.csv" <<'PYEOF' && ok || fail "per-head statistics against numpy"
import csv, sys
got = list(csv.DictReader(open(sys.argv[1])))[:8]
want = list(csv.DictReader(open(sys.argv[2])))
bad = 0
for g, w in zip(got, want):
    for c in ("batch", "head", "kv_head"):
        bad += g[c] != w[c]
    for c in ("raw_var", "scaled_entropy", "scaled_max_weight"):
        a, b = float(g[c]), float(w[c])
        if abs(a - b) > 1e-12 * abs(b):
            print(f"head {w['batch']},{w['head']} {c}: sdpa-var {a!r} numpy {b!r}", file=sys.stderr)
            bad += 1
sys.exit(bad > 0)
PYEOF

# --- layouts, memory orders, byte orders: the same numbers ------------------
"$BIN" --q q_bnhd.npy --k k_bnhd.npy --layout bnhd --format csv >bnhd.csv 2>err &&
    cmp -s heads.csv bnhd.csv && ok || fail "--layout bnhd of the transposed arrays: $(cat err)"
"$BIN" --q q_fortran.npy --k k_big.npy --format csv >orders.csv 2>err &&
    cmp -s heads.csv orders.csv && ok || fail "Fortran order, big-endian: $(cat err)"
"$BIN" --q q.npy --k k.npy --threads 2 --format csv >t2.csv 2>err &&
    cmp -s heads.csv t2.csv && ok || fail "--threads 2: $(cat err)"

# --- --pool ------------------------------------------------------------------
"$BIN" --q q.npy --k k.npy --pool none --format csv >none.csv && [ "$(wc -l <none.csv)" -eq 9 ] &&
    [ "$(head -9 heads.csv)" = "$(cat none.csv)" ] && ok || fail "--pool none: the head rows only"
"$BIN" --q q.npy --k k.npy --pool all --format csv >all.csv && [ "$(wc -l <all.csv)" -eq 2 ] &&
    [ "$(tail -1 heads.csv)" = "$(tail -1 all.csv)" ] && ok || fail "--pool all: the pooled row only"
"$BIN" --q q.npy --k k.npy --v v.npy --pool all --format csv >v.csv 2>err &&
    is_number "$(column raw_out_var v.csv)" && [ "$(column d_v v.csv)" = 5 ] && ok ||
    fail "--v: raw_out_var $(column raw_out_var v.csv), d_v $(column d_v v.csv): $(cat err)"
"$BIN" --q q.npy --k k.npy --format json >h.json 2>err &&
    "$PY" -c 'import json,sys; d=json.load(open("h.json")); sys.exit(len(d["rows"]) != 9)' && ok ||
    fail "--format json: $(cat err)"
"$BIN" --q q.npy --k k.npy --format table >h.txt 2>err && grep -q '^  all   all  all ' h.txt && ok ||
    fail "--format table: $(cat err)"

# --- --save-qk: the random run's statistics read back to the last digit -----
cols=raw_mean,raw_var,scaled_var,raw_entropy,scaled_entropy,raw_max_weight,scaled_max_weight
cols=$cols,raw_entropy_min,raw_entropy_max,raw_max_abs_logit,raw_eff_keys,raw_out_var
"$BIN" --dk 16 --n 100 --trials 1 --values --save-qk D --format csv --columns "$cols" >drawn.csv 2>err &&
    [ -f D/q.npy ] && [ -f D/k.npy ] && [ -f D/v.npy ] && ok || fail "--save-qk: $(cat err)"
"$BIN" --q D/q.npy --k D/k.npy --v D/v.npy --pool none --format csv --columns "$cols" >read.csv 2>err &&
    cmp -s drawn.csv read.csv && ok || fail "--save-qk read back: $(cat drawn.csv read.csv err)"
[ "$("$PY" -c 'import numpy as n; a=n.load("D/q.npy"); print(a.shape, a.dtype)')" = "(100, 16) float64" ] &&
    ok || fail "--save-qk: numpy reads D/q.npy"
runtime_error "--save-qk: q.npy/q.npy: *" --save-qk q.npy/q.npy --dk 2 --n 2
usage_error "$p: --save-qk takes one configuration (got 2 from --dk, --scale, --dist, --init)" \
    --save-qk D2 --dk 2,4

# --- bad files: one line naming the file, exit 1, nothing on stdout ---------
mkdir adir
mkfifo fifo
printf 'hello, not a tensor file\n' >text.txt
head -c 300 q.npy >trunc.npy
: >empty.npy
runtime_error "adir: is a directory, not a .npy or .safetensors file" --q adir --k k.npy
runtime_error "fifo: is a FIFO, not a .npy or .safetensors file" --q q.npy --k fifo
runtime_error "missing.npy: No such file or directory" --q missing.npy --k k.npy
runtime_error "missing.npy:q: No such file or directory" --q missing.npy:q --k k.npy
runtime_error "trunc.npy: *" --q trunc.npy --k k.npy
runtime_error "empty.npy: is empty, not a .npy or .safetensors file" --q empty.npy --k k.npy
runtime_error "text.txt: not a .npy or .safetensors file *" --q q.npy --k text.txt
runtime_error "q.npy:q: a .npy file holds one array (':NAME' picks a safetensors tensor)" --q q.npy:q --k k.npy
runtime_error "q_nan.npy: entry (batch 1, head 3, position 17, column 5) is nan" --q q_nan.npy --k k.npy
runtime_error "k_dk.npy: d_k 6 (its last axis) differs from Q's 8 (q.npy)" --q q.npy --k k_dk.npy
runtime_error "k_3heads.npy: its 3 heads do not divide Q's 4 heads (q.npy)*" --q q.npy --k k_3heads.npy
runtime_error "k_batch.npy: batch 1 differs from Q's 2 (q.npy)" --q q.npy --k k_batch.npy
runtime_error "k_batch.npy: batch x heads 1 x 2 differ from K's 2 x 2 (k.npy)" --q q.npy --k k.npy --v k_batch.npy
"$PY" -c 'import numpy as n; n.save("k30.npy", n.ones((2, 2, 30, 8)))'
runtime_error "--causal needs n_q = n_k: q.npy has 40 positions, k30.npy 30" --q q.npy --k k30.npy --causal
# Usage errors stay exit 2, before any file is opened.
usage_error "$p: --dk does not apply with --q (Q and K are read from files)" --q adir --k adir --dk 3
usage_error "$p: --layout: 'nhd' is not one of bhnd, bnhd*" --q q.npy --k k.npy --layout nhd
done_tests
