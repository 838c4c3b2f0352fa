"""--scale logn per row on the shapes python.logn_rows leaves out, by an
independent reduction: the visible set is a boolean mask built from the
definitions (causal: j <= i; window W: |i - j| < W, or i - j < W under
--causal, top-left aligned when n_q != n_k), c_i = ln(n_i)/sqrt(d_k) with
n_i its row count, and every statistic a masked numpy reduction over the
whole matrix (rows that see no key left out). Cases: n = 2 and 3 (row 0
has c_0 = 0), --window 1 (every c_i = 0), a window wider than n, n_q != n_k
both ways (rows past n_k + W - 1 see no key), --ddof 1 over 3 trials
(trial 0 of --per-trial), and --threads 2 with --block-rows 7.
usage: logn_shapes_test.py SDPA_VAR"""

import json
import os
import subprocess
import sys
import tempfile

import numpy as np

from reference import Checker

exe = sys.argv[1]
chk = Checker("python.logn_shapes")
tmp = tempfile.mkdtemp(prefix="sv_logn_shapes_")
NAMES = ("scaled_mean", "scaled_var", "scaled_entropy", "scaled_max_weight", "scaled_jac_trace",
         "scaled_eff_keys", "scaled_sink_weight", "scaled_entropy_min", "scaled_entropy_max",
         "scaled_sum_p2", "scaled_entropy_norm", "rows_empty")


def visible(nq, nk, causal, w):
    i, j = np.arange(nq)[:, None], np.arange(nk)[None, :]
    m = np.ones((nq, nk), bool)
    if causal:
        m &= j <= i
    if w:
        m &= (i - j < w) if causal else (np.abs(i - j) < w)
    return m


def expect(q, k, causal, w, ddof):
    dk = q.shape[1]
    m = visible(q.shape[0], k.shape[0], causal, w)
    seen = m.sum(1)
    rows = seen > 0
    m, seen = m[rows], seen[rows]
    c = np.log(seen) / np.sqrt(dk)
    z = np.where(m, c[:, None] * (q[rows] @ k.T), -np.inf)
    z -= z.max(1, keepdims=True)
    e = np.exp(z)
    p = e / e.sum(1, keepdims=True)
    logp = np.where(m, z - np.log(e.sum(1, keepdims=True)), 0.0)
    h = -(p * logp).sum(1)
    p2 = (p * p).sum(1)
    pooled = (c[:, None] * (q[rows] @ k.T))[m]
    two = seen >= 2
    return {"scaled_mean": pooled.mean(), "scaled_var": pooled.var(ddof=ddof),
            "scaled_entropy": h.mean(), "scaled_max_weight": p.max(1).mean(),
            "scaled_jac_trace": (1.0 - p2).mean(), "scaled_eff_keys": np.exp(h).mean(),
            # the sink: the first key each row sees (issue 39)
            "scaled_sink_weight": p[np.arange(len(p)), m.argmax(1)].mean(),
            "scaled_entropy_min": h.min(), "scaled_entropy_max": h.max(), "scaled_sum_p2": p2.mean(),
            "scaled_entropy_norm": (h[two] / np.log(seen[two])).mean() if two.any() else None,
            "rows_empty": float((~rows).sum())}


CASES = [  # d_k, n_q, n_k, options, causal, window, ddof, trials
    (4, 2, 2, ["--causal"], True, 0, 0, 1),
    (4, 3, 3, ["--causal"], True, 0, 0, 1),
    (8, 50, 50, ["--window", "1"], False, 1, 0, 1),
    (8, 50, 50, ["--causal", "--window", "1"], True, 1, 0, 1),
    (8, 129, 129, ["--window", "140"], False, 140, 0, 1),
    (8, 129, 129, ["--causal", "--window", "140"], True, 140, 0, 1),
    (8, 40, 300, ["--window", "30"], False, 30, 0, 1),
    (8, 300, 40, ["--window", "3"], False, 3, 0, 1),
    (8, 257, 257, ["--causal"], True, 0, 1, 3),
    (8, 257, 257, ["--window", "5"], False, 5, 1, 3),
    (8, 300, 300, ["--causal", "--threads", "2", "--block-rows", "7"], True, 0, 0, 1),
]
for dk, nq, nk, opts, causal, w, ddof, trials in CASES:
    tag = "dk%d_nq%d_nk%d_%s_ddof%d" % (dk, nq, nk, "_".join(o.strip("-") for o in opts), ddof)
    out = os.path.join(tmp, tag)
    text = subprocess.run([exe, "--dk", str(dk), "--nq", str(nq), "--nk", str(nk), "--scale", "logn",
                           "--seed", "71", "--trials", str(trials), "--ddof", str(ddof),
                           "--per-trial", "--columns", "all", "--format", "json", "--save-qk", out]
                          + opts, check=True, capture_output=True, text=True).stdout
    got = json.loads(text)["rows"][0]  # trial 0: the draws --save-qk writes
    want = expect(np.load(out + "/q.npy"), np.load(out + "/k.npy"), causal, w, ddof)
    for name in NAMES:
        if want[name] is None:
            chk.ok(got.get(name) is None, "%s %s is null (no row sees 2 keys)" % (tag, name))
            continue
        # The mean of scores near 0 has no relative precision: its floor is
        # 1e-12 of the scaled score's standard deviation.
        floor = 1e-12 * np.sqrt(want["scaled_var"]) if name == "scaled_mean" else 1e-14
        chk.close("%s %s" % (tag, name), got[name], want[name], rel=1e-11, abs_=floor)
chk.done()
