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
usage_error "$p: --save-qk takes one configuration (got 2 from --dk, --n, --scale, --dist, --init)" \
    --save-qk D2 --dk 2,4

# --- bad files: one line naming the file, exit 1, nothing on stdout ---------
mkdir adir
mkfifo fifo
printf 'hello, not a tensor file\n' >text.txt
head -c 300 q.npy >trunc.npy
: >empty.npy
# A --ddof the files' 40 x 40 scores cannot take names --ddof (it printed
# "q.npy: d_k=8 n_q=40 n_k=40: invalid argument": the fault was looked up
# only after a successful resolve).
# The files' sizes, then --ddof worded as for random draws (the library's).
runtime_error "q.npy: d_k=8 n_q=40 n_k=40: --ddof: '1600' must be less than the number of scores n_q\*n_k = 1600" --q q.npy --k k.npy --ddof 1600
# ... and counts a window's scores (40 rows, |i - j| < 2: 118), not n_q*n_k.
runtime_error "q.npy: d_k=8 n_q=40 n_k=40: --ddof: '118' must be less than the 118 scores a window of 2 shows" --q q.npy --k k.npy --window 2 --ddof 118
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
# Hostile files: lying headers, other dtypes, safetensors tables that lie.
"$PY" - <<'PYEOF'
import json, struct
import numpy as np
rng = np.random.default_rng(161)
k = np.load("k.npy")
def npy(name, descr, shape, data=b"\0" * 64):
    d = "{'descr': %r, 'fortran_order': False, 'shape': %r, }" % (descr, tuple(shape))
    d += " " * (63 - (10 + len(d)) % 64) + "\n"
    open(name, "wb").write(b"\x93NUMPY\x01\x00" + struct.pack("<H", len(d)) + d.encode() + data)
def st(name, table, data, size=None):
    h = json.dumps(table).encode()
    open(name, "wb").write(struct.pack("<Q", len(h) if size is None else size) + h + data)
def ent(dtype, shape, b, e):
    return {"dtype": dtype, "shape": list(shape), "data_offsets": [b, e]}
np.save("int.npy", np.ones((4, 8), np.int32))
np.save("obj.npy", np.array([[1, "a"]], dtype=object), allow_pickle=True)
np.save("cplx.npy", np.ones((4, 8), np.complex128))
npy("huge.npy", "<f8", (2**40, 2**40))
npy("big.npy", "<f4", (2**31, 2**20))
npy("wide.npy", "<f2", (64, 2**30), b"")  # a sparse 128 GiB file: its rows need 0.5 TiB
with open("wide.npy", "r+b") as f:
    f.truncate(f.seek(0, 2) + 64 * 2**30 * 2)
raw = open("q.npy", "rb").read()
open("hlen.npy", "wb").write(raw[:8] + struct.pack("<H", 60000) + raw[10:])
open("magic.npy", "wb").write(b"\x93NUMPZ" + raw[6:])
kk = k[0, 0].tobytes()  # 40 x 8 float32: 1280 bytes
st("int.safetensors", {"q": ent("I32", (40, 8), 0, 1280)}, kk)
st("c64.safetensors", {"q": ent("C64", (40, 4), 0, 1280)}, kk)
st("past.safetensors", {"q": ent("F32", (40, 8), 0, 1280)}, kk[:1000])
st("overlap.safetensors", {"q": ent("F32", (40, 8), 0, 1280), "k": ent("F32", (40, 8), 0, 1280)}, kk)
st("huge.safetensors", {"q": ent("F64", (2**40, 2**40), 0, 8)}, b"\0" * 8)
st("hsize.safetensors", {"q": ent("F32", (40, 8), 0, 1280)}, kk, size=2**63)
st("json.safetensors", {"q": ent("F32", (40, 8), 0, 1280)}, kk, size=20)
st("qk.safetensors", {"q": ent("F32", (40, 8), 0, 1280), "k": ent("F32", (40, 8), 1280, 2560)},
   kk + k[0, 1].tobytes())
np.save("k_inf.npy", np.where(np.arange(k.size).reshape(k.shape) == 700, np.inf, k).astype(">f2"))
PYEOF
runtime_error "int.npy: dtype '<i4' is not float16, float32 or float64 (or bool, a mask's)" --q int.npy --k k.npy
# A bool array given as Q: the library's line (sv_strided_explain) names G,
# which the CLI has not; the CLI names its options.
np_bool() { "$PY" -c "import numpy as np; np.save('$1', np.ones((2, 4, 40, 8), bool))"; }
np_bool qb.npy
runtime_error "qb.npy: dtype bool: --q, --k and --v hold numbers (a bool array is a --mask)" \
    --q qb.npy --k k.npy
# Measured heads' plug-in theory is made of the moments of Q and K: shown
# without an inputs column it was nan (exit 0), as their measurement was
# skipped.
th_alone=$("$BIN" --q q.npy --k k.npy --format csv --columns head,raw_var_theory 2>&1)
th_with=$("$BIN" --q q.npy --k k.npy --format csv --columns head,q_var,raw_var_theory 2>&1 |
    cut -d, -f1,3)
if [ "$th_alone" = "$th_with" ] && [[ "$th_alone" != *nan* ]]; then ok; else
    fail "raw_var_theory alone: $th_alone; beside q_var: $th_with"
fi
# Issue 33: an int --mask was told "float16, float32 or float64", though a
# bool mask is read too: the line lists what a mask may be.
np_mask() { "$PY" -c "import numpy as np; np.save('$1', $2)"; }
np_mask m_int.npy "np.ones((40, 40), np.int32)"
runtime_error "m_int.npy: dtype '<i4' is not float16, float32 or float64 (or bool, a mask's)" \
    --q q.npy --k k.npy --mask m_int.npy
# A mask that leaves rows without a key said so only in rows_empty, which the
# default columns do not show: one line on stderr (exit 0, the rows as
# before); a mask that empties no row prints nothing there.
np_mask m_rows.npy "np.arange(40)[:, None] % 10 != 3"
"$BIN" --q q.npy --k k.npy --mask m_rows.npy >"$tmp/m.csv" 2>"$tmp/m.err" && [ -s "$tmp/m.csv" ] &&
    [ "$(cat "$tmp/m.err")" = "$p: --mask: 32 of 320 query rows (over 8 heads) see no key: they are left out of every statistic (column rows_empty)" ] &&
    ok || fail "--mask emptying rows: stderr '$(cat "$tmp/m.err")'"
head -1 "$tmp/m.csv" | tr , '\n' | grep -qx rows_empty && fail "rows_empty joined the default columns" || ok
"$BIN" --q q.npy --k k.npy --mask m_rows.npy --columns rows_empty --pool all 2>/dev/null | tail -1 | grep -qx 4 &&
    ok || fail "--mask emptying rows: rows_empty is not 4"
np_mask m_none.npy "np.arange(40)[None, :] != 3"
"$BIN" --q q.npy --k k.npy --mask m_none.npy >/dev/null 2>"$tmp/m.err" && [ ! -s "$tmp/m.err" ] &&
    ok || fail "--mask emptying no row: stderr '$(cat "$tmp/m.err")'"
# A mask that leaves every row without a key: nothing measured, so nan is the
# true answer (the mean of nothing, as Python's stats() gives): exit 0, the
# note on stderr. Refused as "var_scale is nan ... not a true answer", and
# raw_mean was 0 (the empty sample's), before.
np_mask m_all.npy "np.zeros((40, 40), bool)"
"$BIN" --q q.npy --k k.npy --mask m_all.npy --format csv --columns head,raw_mean,raw_entropy,rows_empty \
    >"$tmp/m.csv" 2>"$tmp/m.err" && [ "$(tail -1 "$tmp/m.csv")" = "all,nan,nan,40" ] &&
    [ "$(cat "$tmp/m.err")" = "$p: --mask: 320 of 320 query rows (over 8 heads) see no key: they are left out of every statistic (column rows_empty)" ] &&
    ok || fail "--mask emptying every row: $(tail -1 "$tmp/m.csv") / $(cat "$tmp/m.err")"
# One head of eight fully masked: its row is nan (raw_mean was 0), the others'
# as without it.
np_mask m_head.npy "(lambda m: (m.__setitem__((0, 0), False), m)[1])(np.ones((2, 4, 40, 40), bool))"
"$BIN" --q q.npy --k k.npy --mask m_head.npy --pool none --format csv --columns batch,head,raw_mean,rows_empty \
    2>/dev/null >"$tmp/m.csv" && [ "$(sed -n 2p "$tmp/m.csv")" = "0,0,nan,40" ] &&
    [ "$(sed -n 3p "$tmp/m.csv")" = "$("$BIN" --q q.npy --k k.npy --pool none --format csv \
        --columns batch,head,raw_mean,rows_empty | sed -n 3p)" ] &&
    ok || fail "--mask emptying head 0: $(head -3 "$tmp/m.csv" | tr '\n' ' ')"
# Its extremes too: no max |logit| (was 0, so fp16 headroom inf) and no
# entropy range (was inf and -inf, the extremes' starts).
"$BIN" --q q.npy --k k.npy --mask m_head.npy --pool none --format csv \
    --columns raw_max_abs_logit,scaled_fp16_headroom,raw_entropy_min,scaled_entropy_max 2>/dev/null |
    sed -n 2p | grep -qx "nan,nan,nan,nan" && ok || fail "--mask emptying head 0: extremes not nan"
# The pooled row of those heads: means over the 7 heads that measured
# something (the nan head left out), as numpy's to 2 ulp; q_var and
# rows_empty over all 8. Refused as "var_scale is nan ... (pooled)" before.
"$BIN" --q q.npy --k k.npy --v v.npy --mask m_head.npy --format csv \
    --columns batch,head,raw_mean,raw_var,raw_entropy,raw_out_var,scaled_var,q_var,rows_empty,var_scale \
    >"$tmp/m.csv" 2>"$tmp/m.err" &&
    "$PY" - "$tmp/m.csv" <<'PYEOF' && ok || fail "--mask emptying head 0, pooled: $(tail -1 "$tmp/m.csv") $(cat "$tmp/m.err")"
import csv, sys
import numpy as np
rows = list(csv.DictReader(open(sys.argv[1])))
heads, pooled = rows[:-1], rows[-1]
assert len(heads) == 8 and pooled["head"] == "all", rows
col = lambda r, c: np.array([float(h[c]) for h in r])
measured = [h for h in heads if h["raw_mean"] != "nan"]
assert len(measured) == 7, heads
for c in ("raw_mean", "raw_var", "raw_entropy", "raw_out_var", "scaled_var", "q_var"):
    want = np.mean(col(heads if c == "q_var" else measured, c))
    got = float(pooled[c])
    assert abs(got - want) <= 2 * abs(np.spacing(want)), (c, got, want)  # sums in another order
assert float(pooled["rows_empty"]) == 5.0 and np.isfinite(float(pooled["var_scale"])), pooled
PYEOF
# A head whose every row sees one key (an identity mask) measured something
# but has no entropy_norm: its nan is the true answer (refused as "not a true
# answer" before), and the pooled entropy_norm is the mean over the 7 other
# heads (nan before), as numpy's to 2 ulp; raw_entropy still over all 8.
np_mask m_eye.npy "(lambda m: (m.__setitem__((0, 0), np.eye(40, dtype=bool)), m)[1])(np.ones((2, 4, 40, 40), bool))"
"$BIN" --q q.npy --k k.npy --mask m_eye.npy --format csv \
    --columns batch,head,raw_entropy,raw_entropy_norm,scaled_entropy_norm >"$tmp/m.csv" 2>"$tmp/m.err" &&
    "$PY" - "$tmp/m.csv" <<'PYEOF' && ok || fail "--mask one key in head 0: $(head -2 "$tmp/m.csv" | tr '\n' ' ') $(tail -1 "$tmp/m.csv") $(cat "$tmp/m.err")"
import csv, sys
import numpy as np
rows = list(csv.DictReader(open(sys.argv[1])))
heads, pooled = rows[:-1], rows[-1]
assert len(heads) == 8 and pooled["head"] == "all", rows
assert heads[0]["raw_entropy_norm"] == heads[0]["scaled_entropy_norm"] == "nan", heads[0]
assert float(heads[0]["raw_entropy"]) == 0.0, heads[0]  # one key a row: one-hot
col = lambda r, c: np.array([float(h[c]) for h in r])
for c, over in (("raw_entropy_norm", heads[1:]), ("scaled_entropy_norm", heads[1:]),
                ("raw_entropy", heads)):
    want = np.mean(col(over, c))
    got = float(pooled[c])
    assert abs(got - want) <= 2 * abs(np.spacing(want)), (c, got, want)  # sums in another order
PYEOF
# --ddof against a mask: a head that sees 1 to ddof scores has raw_var 0 / 0,
# which was read as an overflow ("d_k=8: value too large: scores would
# overflow", exit 1); the library names the head and its count. A head that
# sees none stays nan (exit 0), as without --ddof.
np_mask m_one.npy "(lambda m: (m.__setitem__((1, 2), np.eye(40, dtype=bool) & (np.arange(40) < 2)), m)[1])(np.ones((2, 4, 40, 40), bool))"
runtime_error "--ddof: '2' must be less than the number of scores each head sees; batch 1, head 2 sees 2 under m_one.npy" \
    --q q.npy --k k.npy --mask m_one.npy --ddof 2
"$BIN" --q q.npy --k k.npy --mask m_one.npy --ddof 1 --pool none --format csv --columns batch,head,raw_var \
    2>/dev/null | sed -n 8p | grep -qE "^1,2,[0-9.e+-]+$" && ok || fail "--ddof 1, 2 scores in head (1, 2): raw_var not a number"
"$BIN" --q q.npy --k k.npy --mask m_head.npy --ddof 1 --pool none --format csv --columns raw_mean \
    2>/dev/null | sed -n 2p | grep -qx nan && ok || fail "--ddof 1, head 0 fully masked: not nan"
runtime_error "obj.npy: dtype '|O' (Python objects) is not *" --q obj.npy --k k.npy
runtime_error "cplx.npy: dtype '<c16' is not *" --q q.npy --k cplx.npy
runtime_error "huge.npy: the byte size of the shape (1099511627776, 1099511627776) overflows" \
    --q huge.npy --k k.npy
runtime_error "big.npy: truncated: shape (2147483648, 1048576) of '<f4' needs * bytes of data, the file has 64" \
    --q big.npy --k k.npy
runtime_error "wide.npy: d_k=1073741824 n_q=64 n_k=64, 1 (batch, head) pairs: the run needs * GiB of memory; this machine has * GiB" \
    --q wide.npy --k wide.npy
rm -f wide.npy
runtime_error "hlen.npy: header of 60000 bytes runs past the end of the file *" --q hlen.npy --k k.npy
runtime_error "magic.npy: not a .npy or .safetensors file *" --q magic.npy --k k.npy
runtime_error "int.safetensors: tensor 'q': dtype I32 is not F16, BF16, F32 or F64" --q int.safetensors --k k.npy
runtime_error "c64.safetensors: tensor 'q': dtype C64 is not *" --q q.npy --k c64.safetensors
runtime_error "past.safetensors: malformed header: tensor 'q': data_offsets ?0, 1280? run past the data (1000 bytes)" \
    --q past.safetensors --k k.npy
runtime_error "overlap.safetensors:q: malformed header: tensors * overlap *" --q overlap.safetensors:q --k k.npy
runtime_error "huge.safetensors: tensor 'q': the shape's byte size overflows" --q huge.safetensors --k k.npy
runtime_error "hsize.safetensors: header size 9223372036854775808 is past the format's limit *" \
    --q hsize.safetensors --k k.npy
runtime_error "json.safetensors: malformed header: not valid JSON at byte *" --q json.safetensors --k k.npy
runtime_error "k_inf.npy: entry (batch 1, head 0, position 7, column 4) is inf" --q q.npy --k k_inf.npy
runtime_error "/dev/null: is a character device, not a .npy or .safetensors file" --q q.npy --k /dev/null
runtime_error "q.npy: batch x heads 2 x 4 differ from K's 2 x 2 (k.npy)" --q q.npy --k k.npy --v q.npy
# FILE:NAME: a missing name, an empty one, a colon in the file's own name.
runtime_error "qk.safetensors:v: no tensor 'v' in the file; it holds 'q', 'k'" --q qk.safetensors:q --k qk.safetensors:v
runtime_error "qk.safetensors: the file holds 2 tensors: name one of 'q', 'k'" --q qk.safetensors --k k.npy
runtime_error "qk.safetensors:: no tensor name after the ':'" --q qk.safetensors: --k qk.safetensors:k
runtime_error "--k: '' is not a file name" --q q.npy --k ''
cp qk.safetensors 'a:b.safetensors'
"$BIN" --q 'a:b.safetensors:q' --k 'a:b.safetensors:k' --pool all --format csv >colon.csv 2>err &&
    "$BIN" --q qk.safetensors:q --k qk.safetensors:k --pool all --format csv >plain.csv &&
    cmp -s colon.csv plain.csv && ok || fail "a ':' in the file name: $(cat err)"
"$BIN" --q q.npy --k q.npy --format csv >same.csv 2>err && [ "$(wc -l <same.csv)" -eq 10 ] && ok ||
    fail "the same file for --q and --k: $(cat err)"
if [ "$(id -u)" -ne 0 ]; then
    cp q.npy unreadable.npy && chmod 000 unreadable.npy
    runtime_error "unreadable.npy: Permission denied" --q unreadable.npy --k k.npy
else
    echo "SKIP: unreadable file (running as root)"
fi
# A FIFO must not block the open: a writer that never comes (the refusal
# takes milliseconds; 10 s, times SV_TEST_TIMEOUT_SCALE, tells it from a hang).
timeout $((10 * scale)) "$BIN" --q fifo --k k.npy >/dev/null 2>&1
[ $? -eq 1 ] && ok || fail "a FIFO without a writer: the open blocks or the exit is not 1"

# A file cut short while it is mapped (SIGBUS): one line naming it, exit 1,
# nothing on stdout, wherever the run is (parsing, the finite scan, the
# engine). A run that ends before the truncate retries with a longer file.
shrink_run() { # N WAIT ARGS: a run whose K shrinks 0.2 s in (WAIT=1: after the first rows)
    "$PY" -c "import numpy as n; r=n.random.default_rng(9); [n.save(f, r.normal(size=($1, 64)).astype(n.float32)) for f in ('bq.npy', 'bk.npy')]"
    "$BIN" --q bq.npy --k bk.npy "${@:3}" >bus.out 2>bus.err &
    local pid=$! i
    for i in $(seq 100); do [ "$2" = 0 ] || [ -s bus.out ] && break; sleep 0.05; done
    sleep 0.2
    truncate -s 4096 bk.npy
    wait "$pid"
}
bus_case() { # LABEL WAIT ARGS...: one shrinking run, retried with 2x and 4x the rows
    local label=$1 n rc; shift
    for n in 12000 24000 48000; do
        shrink_run "$n" "$@"; rc=$?
        [ "$rc" -ne 0 ] && break
    done
    if [ "$rc" -eq 0 ]; then
        echo "SKIP: $label: every run finished before the truncate"
    elif [ "$rc" -eq 1 ] && [ "$(wc -l <bus.err)" -eq 1 ] &&
        [[ "$(cat bus.err)" == "$p: bk.npy: "@(the file shrank while it was read (SIGBUS)|truncated:*) ]]; then
        ok
    else
        fail "$label: rc=$rc stdout=$(wc -c <bus.out)B stderr=$(cat bus.err)"
    fi
}
shopt -s extglob
bus_case "a file shrinks while mapped" 0
[ ! -s bus.out ] && ok || fail "a file shrinks while mapped: $(wc -c <bus.out) bytes on stdout"
bus_case "a file shrinks under --threads 2" 0 --threads 2
# Under a second --scale item the first item's rows are out: they stay
# whole and the JSON document is closed, as after an interrupt.
bus_case "a file shrinks under the second --scale item" 1 --scale sqrt,none --format json
if [ -s bus.out ]; then
    "$PY" -c 'import json; json.load(open("bus.out"))' 2>/dev/null && ok || fail "SIGBUS: the JSON left on stdout is not closed"
fi

# Usage errors stay exit 2, before any file is opened.
usage_error "$p: --dk does not apply with --q (Q and K are read from files)" --q adir --k adir --dk 3
usage_error "$p: --layout: 'nhd' is not one of bhnd, bnhd*" --q q.npy --k k.npy --layout nhd
# No column, no JSON config key describes random draws with files: per-row
# rows of files had seed, dist, q_std, ... of draws that never happened.
hdr=$("$BIN" --q q.npy --k k.npy --per-row --format csv --columns all | head -1)
case ",$hdr," in
    *,seed,* | *,dist,* | *,q_std,* | *,trials,* | *,init,*) fail "per-row with files: draw columns in $hdr" ;;
    *,keys_seen,*,causal,*) ok ;;
    *) fail "per-row with files: header $hdr" ;;
esac
"$BIN" --q q.npy --k k.npy --format json | "$PY" -c '
import json, sys
cfg = json.load(sys.stdin)["config"]
bad = sorted(set(cfg) & {"seed", "dist", "trials", "q_mean", "q_std", "k_mean", "k_std", "plant", "qk_norm"})
sys.exit("draw keys in the JSON config: %s" % bad if bad else 0)' && ok || fail "json config with files"
usage_error "$p: --columns: 'seed' is not a column of the per_row output*" --q q.npy --k k.npy --per-row --columns seed
done_tests
