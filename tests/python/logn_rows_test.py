"""--scale logn per row (issue 25 §3; Scalable-Softmax, Nakanishi 2025,
arXiv:2501.19399) recomputed row by row in numpy from the run's own Q and
K (--save-qk): row i's logits are c_i S_i, c_i = ln(n_i) / sqrt(d_k), n_i
the keys it sees (i + 1 under --causal, the window's count with
--window). Every scaled statistic the CLI prints for the trial (pooled
moments of the c_i S_ij, entropy, max weight, Jacobian, sink weight,
normalised entropy) must agree to 1e-12 relative. Cases: causal over a
tile boundary, causal beyond a key block (n_k > 4096), causal with a
window, a window without causal.
usage: logn_rows_test.py SDPA_VAR"""

import csv
import io
import os
import subprocess
import sys
import tempfile

import numpy as np

from reference import Checker

exe = sys.argv[1]
chk = Checker("python.logn_rows")
tmp = tempfile.mkdtemp(prefix="sv_logn_rows_")


def run(dk, n, opts, tag):
    out = os.path.join(tmp, tag)
    text = subprocess.run([exe, "--dk", str(dk), "--n", str(n), "--trials", "1", "--seed", "25",
                           "--scale", "logn", "--save-qk", out, "--format", "csv", "--per-trial",
                           "--columns", "all"] + opts, check=True, capture_output=True,
                          text=True).stdout
    row = next(csv.DictReader(io.StringIO(text)))
    return {k: float(v) for k, v in row.items() if k in REF}, np.load(out + "/q.npy"), np.load(out + "/k.npy")


REF = {"scaled_mean", "scaled_var", "scaled_entropy", "scaled_max_weight", "scaled_jac_trace",
       "scaled_jac_frob", "scaled_eff_keys", "scaled_sink_weight", "scaled_entropy_norm",
       "scaled_entropy_min", "scaled_entropy_max", "scaled_sum_p2", "raw_var"}


def keys(i, n, w, causal):
    """[lo, hi) of the keys row i sees (spec.h: sv_spec_row_keys)."""
    if causal:
        return (max(0, i + 1 - w) if w else 0), i + 1
    return (max(0, i + 1 - w), min(n, i + w)) if w else (0, n)


def reference(q, k, w, causal):
    n, dk = q.shape[0], q.shape[1]
    s = q @ k.T
    cs, h, mw, tr, fr, ek, sink, hn, p2 = [], [], [], [], [], [], [], [], []
    for i in range(n):
        lo, hi = keys(i, n, w, causal)
        c = np.log(hi - lo) / np.sqrt(dk)
        z = c * s[i, lo:hi]
        cs.append(z)
        p = np.exp(z - z.max())
        p /= p.sum()
        nz = p[p > 0]
        hi_ = -(nz * np.log(nz)).sum()
        # 1 - p_top = the sum of the others, so the trace 1 - sum p^2 and
        # ||J||_F^2 = sum p^2 (1 - p)^2 + sum_i p_i^2 sum_{j != i} p_j^2 are
        # taken without cancellation for rows near one-hot.
        a = p.argmax()
        rest = np.delete(p, a)
        sp2o, one_minus = (rest * rest).sum(), rest.sum()
        sp2 = p[a] * p[a] + sp2o
        others = sp2 - p * p
        others[a] = sp2o
        f2 = (rest * rest * (1.0 - rest) ** 2).sum() + p[a] * p[a] * one_minus ** 2 + \
            (p * p * others).sum()
        h.append(hi_)
        mw.append(p.max())
        tr.append(one_minus * (1.0 + p[a]) - sp2o)
        fr.append(np.sqrt(f2))
        ek.append(np.exp(hi_))
        sink.append(p[0])  # key lo, the first the row sees (issue 39)
        p2.append(sp2)
        if hi - lo >= 2:
            hn.append(hi_ / np.log(hi - lo))
    allz = np.concatenate(cs)
    raw = np.concatenate([s[i, slice(*keys(i, n, w, causal))] for i in range(n)])
    return {"scaled_mean": allz.mean(), "scaled_var": allz.var(), "scaled_entropy": np.mean(h),
            "scaled_max_weight": np.mean(mw), "scaled_jac_trace": np.mean(tr),
            "scaled_jac_frob": np.mean(fr), "scaled_eff_keys": np.mean(ek),
            "scaled_sink_weight": np.mean(sink), "scaled_entropy_norm": np.mean(hn),
            "scaled_entropy_min": min(h), "scaled_entropy_max": max(h),
            "scaled_sum_p2": np.mean(p2), "raw_var": raw.var()}


CASES = [(16, 300, ["--causal"], 0, True), (4, 4200, ["--causal"], 0, True),
         (8, 500, ["--causal", "--window", "37"], 37, True), (8, 400, ["--window", "9"], 9, False)]
for dk, n, opts, w, causal in CASES:
    tag = "dk%d_n%d_%s" % (dk, n, "_".join(o.strip("-") for o in opts))
    got, q, k = run(dk, n, opts + ["--ddof", "0"], tag)
    want = reference(q, k, w, causal)
    chk.ok(set(got) == REF, "%s: the per-trial row has every column compared" % tag)
    for name, value in want.items():
        # The mean of scores near 0 has no relative precision: its floor is
        # the scaled score's size (1e-12 of its standard deviation).
        floor = 1e-12 * np.sqrt(want["scaled_var"]) if name == "scaled_mean" else 1e-14
        chk.close("%s %s" % (tag, name), got[name], value, rel=1e-12, abs_=floor)
    # Not c^2 times the raw variance: the pooled c_i S_ij differ from it.
    c2 = (np.log(n) / np.sqrt(dk)) ** 2
    chk.ok(abs(got["scaled_var"] - c2 * got["raw_var"]) > 1e-3 * got["scaled_var"],
           "%s scaled_var is per row, not ln(n)^2/d_k raw_var" % tag)
chk.done()
