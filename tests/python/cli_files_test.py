"""sdpa_var.stats against the CLI on the same tensors in files: .npy
(float64, float32, float16, big-endian, Fortran order; 2-D, 3-D, 4-D;
GQA 8/2 heads; bnhd layout; causal; with V) and a .safetensors file
written here from the format's description (u64 little-endian header
length, JSON header, data) with BF16 (the high halves of float32), F16,
F32 and F64 tensors. `sdpa-var --q ... --k ... [--v ...] --format csv`
(default --pool heads: per-head rows, then the pooled row) and
sdpa_var.stats(...) on the arrays as numpy loads them (torch for bf16)
must print the same text at %.17g (both "nan" for undefined) in every
numeric column they share, per (batch, head) and pooled: the same bits,
so a different plug-in theory, ddof default, head mapping or summary
fails here. Every case must share the per-head theory, sink and
normalised-entropy columns, or the test fails (it cannot pass by
comparing nothing).
usage: cli_files_test.py SDPA_VAR
Run with PYTHONPATH=build/python (ctest sets it)."""

import csv
import io
import math
import os
import subprocess
import sys
import tempfile

import numpy as np
import torch

import sdpa_var
from reference import Checker

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "io"))
from safetensors_file import write_safetensors  # noqa: E402

exe = sys.argv[1]
chk = Checker("python.cli_files")
rng = np.random.default_rng(20261125)
tmp = tempfile.mkdtemp(prefix="sv_cli_files_")
# Columns each case must compare (both sides have them).
MUST = {"raw_var", "scaled_var", "raw_mean_theory", "raw_var_theory", "scaled_var_theory",
        "var_scale", "raw_entropy", "scaled_entropy_norm", "raw_sink_weight",
        "q_mean_measured", "k_var", "kv_head", "ddof"}


def text(x):
    """A value as the CLI's CSV writes it (write_csv.c)."""
    if isinstance(x, (int, np.integer)):
        return str(int(x))
    x = float(x)
    if math.isnan(x):
        return "nan"
    if math.isinf(x):
        return "inf" if x > 0 else "-inf"
    return "%.17g" % x


def numeric(cell):
    try:
        float(cell)
        return True
    except ValueError:
        return False


def cli_rows(args):
    r = subprocess.run([exe] + args + ["--format", "csv", "--columns", "all"], capture_output=True, text=True)
    if r.returncode != 0:
        chk.ok(False, " ".join(args), "exit %d: %s" % (r.returncode, r.stderr.strip()))
        return None
    return list(csv.DictReader(io.StringIO(r.stdout)))


def compare(what, rows, s):
    """Every CLI row against s: (batch, head) rows against s.values,
    the "all" row against s.pooled."""
    shape = s.shape
    want = shape[0] * shape[1] + 1
    if not chk.ok(len(rows) == want, what + " rows", "CLI %d rows, want %d" % (len(rows), want)):
        return
    seen = {"pooled": set(), "head": set()}
    for row in rows:
        if row["batch"] == "all":
            where, kind, get = "pooled", "pooled", s.pooled.get
        else:
            b, h = int(row["batch"]), int(row["head"])
            where, kind = "b=%d h=%d" % (b, h), "head"

            def get(name, b=b, h=h):
                v = s.values.get(name)
                return None if v is None else v[b, h]
        for name, cell in row.items():
            if name in ("batch", "head") or not numeric(cell):
                continue
            got = get(name)
            if got is None or isinstance(got, str):
                continue
            seen[kind].add(name)
            chk.ok(text(got) == cell, "%s %s %s" % (what, where, name),
                   "python %s cli %s" % (text(got), cell))
    for kind, must in (("head", MUST), ("pooled", MUST - {"kv_head"})):
        missing = must - seen[kind]
        chk.ok(not missing, "%s %s columns" % (what, kind), "not compared: %s" % sorted(missing))


def npy(name, a):
    path = os.path.join(tmp, name + ".npy")
    np.save(path, a)
    return path


def case(what, q, k, v=None, cli=(), **kw):
    """q, k, v as .npy files through the CLI and as np.load's arrays
    through stats()."""
    files = [npy(what + "_" + n, x) for n, x in (("q", q), ("k", k), ("v", v)) if x is not None]
    args = ["--q", files[0], "--k", files[1]] + (["--v", files[2]] if v is not None else [])
    rows = cli_rows(args + list(cli))
    if rows is None:
        return
    loaded = [np.load(f) for f in files]
    s = sdpa_var.stats(*loaded, **kw)
    compare(what, rows, s)


# .npy: every dtype and ndim the files take
case("f64-2d", rng.standard_normal((40, 16)), rng.standard_normal((57, 16)) * 1.3 + 0.4)
case("f32-3d-causal-v", rng.standard_normal((4, 33, 8)).astype(np.float32),
     rng.standard_normal((4, 33, 8)).astype(np.float32),
     rng.standard_normal((4, 33, 5)).astype(np.float32), cli=["--causal"], causal=True)
case("f16-4d-gqa-v", rng.standard_normal((2, 8, 24, 16)).astype(np.float16),
     (rng.standard_normal((2, 2, 30, 16)) * 2 + 0.5).astype(np.float16),
     rng.standard_normal((2, 2, 30, 4)).astype(np.float16))
case("f64-bnhd-gqa-causal-v", rng.standard_normal((2, 20, 8, 16)),
     rng.standard_normal((2, 20, 2, 16)) + 0.3, rng.standard_normal((2, 20, 2, 8)),
     cli=["--layout", "bnhd", "--causal"], layout="bnhd", causal=True)
case("f64-big-endian-fortran", rng.standard_normal((3, 25, 8)).astype(">f8"),
     np.asfortranarray(rng.standard_normal((3, 31, 8))))
case("f32-scale-ddof1", rng.standard_normal((2, 4, 20, 8)).astype(np.float32),
     rng.standard_normal((2, 1, 20, 8)).astype(np.float32),
     cli=["--scale", "0.25", "--ddof", "1"], scale=0.25, ddof=1)


def bf16_bits(x):
    """float32 -> the bfloat16 bit pattern of its high half (truncation)."""
    return (np.ascontiguousarray(x, dtype="<f4").view("<u4") >> 16).astype("<u2")


# .safetensors: BF16 Q, F16 K (GQA 8/2), F32 V in one file; F64 in another
q32 = rng.standard_normal((1, 8, 28, 16)).astype(np.float32)
qbits = bf16_bits(q32)
k16 = (rng.standard_normal((1, 2, 28, 16)) * 0.7 - 0.2).astype(np.float16)
v32 = rng.standard_normal((1, 2, 28, 6)).astype(np.float32)
st = os.path.join(tmp, "qkv.safetensors")
write_safetensors(st, {"q": ("BF16", qbits), "k": k16, "v": v32},
                  metadata={"by": "cli_files_test.py"})
qt = torch.from_numpy(qbits.view(np.int16).copy()).view(torch.bfloat16)
rows = cli_rows(["--q", st + ":q", "--k", st + ":k", "--v", st + ":v", "--causal"])
if rows is not None:
    compare("safetensors-bf16-gqa-causal", rows,
            sdpa_var.stats(qt, torch.from_numpy(k16), torch.from_numpy(v32), causal=True))
    # the same bits through numpy: the widened bfloat16 values
    compare("safetensors-bf16-as-f32", rows,
            sdpa_var.stats((qbits.astype(np.uint32) << 16).view(np.float32), k16, v32,
                           causal=True))
q64, k64 = rng.standard_normal((3, 19, 8)), rng.standard_normal((3, 23, 8)) - 0.1
st64 = os.path.join(tmp, "f64.safetensors")
write_safetensors(st64, {"k": k64, "q": q64})
rows = cli_rows(["--q", st64 + ":q", "--k", st64 + ":k"])
if rows is not None:
    compare("safetensors-f64", rows, sdpa_var.stats(q64, k64))


# Refused arrays: the CLI and stats() print the library's one line
# (sv_strided_explain) for the same data, word for word once the files are
# named as stats() names its arguments (files "q", "k", "v", "mask" in a
# folder of their own, run from it). Before issue 40 the two worded each
# reason apart ("d_k 6 (its last axis) differs from Q's 8" against "d_k 6
# does not match q's 8"; "entry (batch ...) is nan" against "NaN or
# infinity at index (...)").
bad = os.path.join(tmp, "bad")
os.mkdir(bad)
good_q = rng.standard_normal((2, 4, 12, 8))
good_k = rng.standard_normal((2, 2, 12, 8))
nan_q = good_q.copy()
nan_q[1, 2, 5, 3] = np.nan
nan_m = np.zeros((2, 1, 12, 12))
nan_m[1, 0, 4, 7] = np.inf
big_q = good_q.copy()
big_q[0, 0, 0, 0] = 1e154
for label, arrays in (("nan q", {"q": nan_q, "k": good_k}),
                      ("d_k", {"q": good_q, "k": good_k[..., :6]}),
                      ("batch", {"q": good_q, "k": good_k[:1]}),
                      ("heads", {"q": good_q, "k": good_q[:, :3]}),
                      ("v rows", {"q": good_q, "k": good_k, "v": good_k[:, :, :10]}),
                      ("v heads", {"q": good_q, "k": good_k, "v": good_q}),
                      ("mask shape", {"q": good_q, "k": good_k, "mask": np.zeros((3, 12, 12))}),
                      ("mask inf", {"q": good_q, "k": good_k, "mask": nan_m}),
                      ("mask -1e70", {"q": good_q, "k": good_k, "mask": np.full((12, 12), -1e70)}),
                      ("q 1e154", {"q": big_q, "k": good_k * 1e-100})):
    args = []
    for name, a in arrays.items():
        with open(os.path.join(bad, name), "wb") as f:
            np.save(f, a)
        args += ["--" + name, name]
    r = subprocess.run([os.path.abspath(exe) if os.sep in exe else exe, *args],
                       capture_output=True, text=True, cwd=bad)
    try:
        sdpa_var.stats(arrays["q"], arrays["k"], arrays.get("v"), mask=arrays.get("mask"))
        py = "no exception"
    except ValueError as e:
        py = str(e)
    cli = r.stderr.strip()
    chk.ok(r.returncode == 1 and cli == "sdpa-var: " + py, "refused alike: " + label,
           "CLI (exit %d) %r, stats() %r" % (r.returncode, cli, py))
    for name in arrays:
        os.remove(os.path.join(bad, name))
os.rmdir(bad)

for f in os.listdir(tmp):
    os.remove(os.path.join(tmp, f))
os.rmdir(tmp)
chk.done()
