#!/usr/bin/python3
"""The engine on caller-supplied Q, K and V (the strided source) against
numpy on the same arrays: every statistic of every trial to 1e-12.

Usage: strided_test.py STRIDED_DRIVER

numpy makes the arrays, including views that are not contiguous (a
transposed K, a Q read backwards with a negative stride, every other row)
and float32 ones; the driver gets each view's base buffer as raw bytes with
the view's shape, byte strides and offset, exactly what
__array_interface__ describes, and runs sv_engine_run on them. numpy then
computes each statistic its own way: the whole score matrix, softmax rows,
np.var with ddof. Both sides accumulate in double; the tolerance
|ours - numpy| <= 1e-12 max(1, |numpy|) leaves room for summation order
(n_q n_k <= 1e5 terms, each rounding ~1e-16 relative).
"""
import os
import subprocess
import sys
import tempfile

import numpy as np

def write_view(view, base, path):
    """Raw bytes of base; the line that describes view inside them."""
    base.tofile(path)
    bits = 32 if view.dtype == np.float32 else 64
    off = view.__array_interface__["data"][0] - base.__array_interface__["data"][0]
    shape, strides = list(view.shape), list(view.strides)
    if view.ndim == 2:
        shape, strides = [1] + shape, [0] + strides
    return "%d %d %d %d %d %d %d %d %d %s" % (
        bits, view.ndim, *shape, *strides, off, path)


def reference(q, k, v, scale, ddof, causal, q_mean, k_mean):
    """Every field of sv_trial_stats for one trial, by numpy."""
    q, k = q.astype(np.float64), k.astype(np.float64)
    d = q.shape[1]
    s = q @ k.T
    nq, nk = s.shape
    mask = np.tril(np.ones((nq, nk), bool)) if causal else np.ones((nq, nk), bool)
    vis = s[mask]
    r = {}
    r["raw_mean"] = vis.mean()
    r["raw_var"] = vis.var(ddof=ddof)
    r["scaled_mean"] = vis.mean() * scale
    r["scaled_var"] = vis.var(ddof=ddof) * scale**2
    r["raw_var_known_mean"] = np.mean((vis - d * q_mean * k_mean) ** 2)
    r["raw_var_ddof0"] = vis.var()
    r["raw_var_ddof1"] = vis.var(ddof=1) if vis.size > 1 else np.nan
    r["raw_max_abs_logit"] = np.abs(vis).max()
    for name, c in (("raw", 1.0), ("scaled", scale)):
        logits = np.where(mask, c * s, -np.inf)
        p = np.exp(logits - logits.max(axis=1, keepdims=True))
        p /= p.sum(axis=1, keepdims=True)
        with np.errstate(divide="ignore", invalid="ignore"):
            h = -np.sum(np.where(p > 0, p * np.log(p), 0.0), axis=1)
        p2, p3 = (p**2).sum(axis=1), (p**3).sum(axis=1)
        r[name + "_entropy"] = h.mean()
        r[name + "_max_weight"] = p.max(axis=1).mean()
        r[name + "_jac_trace"] = (1 - p2).mean()
        # Clamped at 0 as the engine does: a near one-hot row rounds below.
        r[name + "_jac_frob"] = np.sqrt(np.maximum(p2 - 2 * p3 + p2**2, 0.0)).mean()
        r[name + "_eff_keys"] = np.exp(h).mean()
        r[name + "_entropy_min"] = h.min()
        r[name + "_entropy_max"] = h.max()
        r[name + "_sum_p2"] = p2.mean()
        r[name + "_diag_weight"] = np.nan
        r[name + "_out_var"] = np.mean((p @ v.astype(np.float64)) ** 2) if v is not None else np.nan
    r["raw_diag_logit"] = np.nan
    r["q_var"] = q.var()
    r["k_var"] = k.var()
    return r


def run_case(driver, tmp, name, q, k, v, qb, kb, vb, scale=0.0, ddof=0, causal=False,
             q_mean=0.0, k_mean=0.0, first=0, threads=2):
    """q, k, v: views (3-D trials x rows x cols, or 2-D); qb, kb, vb: their bases."""
    d = q.shape[-1]
    trials = q.shape[0] if q.ndim == 3 else 1
    count = trials - first
    dv = v.shape[-1] if v is not None else 0
    lines = ["%d %d %d %d %d %d %d %d %d %d %.17g %.17g %.17g %d" % (
        d, q.shape[-2], k.shape[-2], trials, first, count, ddof, int(causal),
        int(v is not None), dv, scale, q_mean, k_mean, threads)]
    for tag, view, base in (("q", q, qb), ("k", k, kb), ("v", v, vb)):
        if view is not None:
            lines.append(write_view(view, base, os.path.join(tmp, name + "." + tag)))
    res = subprocess.run([driver], input="\n".join(lines) + "\n", capture_output=True, text=True)
    if res.returncode != 0:
        print("FAIL %s: driver: %s" % (name, res.stderr.strip()))
        return 1
    rows = res.stdout.strip().split("\n")
    # The per-trial columns end with the configuration (scale, dist, seed,
    # ...) since the column table: what numpy recomputes are the statistic
    # columns before it, up to scaled_sum_p2.
    full = rows[0].split(",")
    header = full[:full.index("scaled_sum_p2") + 1]
    c = scale if scale > 0 else 1.0 / np.sqrt(d)  # a multiplier, as torch's scale=
    bad = worst = 0
    for t in range(count):
        got = dict(zip(header, map(float, rows[1 + t].split(",")[:len(header)])))
        pick = (lambda a: a[first + t]) if q.ndim == 3 else (lambda a: a)
        want = reference(pick(q), pick(k), None if v is None else pick(v), c, ddof, causal,
                         q_mean, k_mean)
        want.update(trial=first + t, dk=d, n_q=q.shape[-2], n_k=k.shape[-2])
        missing = set(want) ^ set(header)
        if missing:  # every column compared, every statistic present
            print("FAIL %s: columns not compared: %s" % (name, sorted(missing)))
            bad += 1
        for f in header:
            if f not in want:
                continue
            g, w = got[f], want[f]
            if np.isnan(w) and np.isnan(g):
                continue
            err = abs(g - w) / max(1.0, abs(w))
            worst = max(worst, err)
            if not err <= 1e-12:
                print("FAIL %s trial %d %s: ours %.17g numpy %.17g (rel %.3g)" % (
                    name, first + t, f, g, w, err))
                bad += 1
    print("%s %s: %d trials x %d fields, worst relative difference %.3g" % (
        "ok" if bad == 0 else "FAIL", name, count, len(header), worst))
    return bad


def main():
    driver = sys.argv[1]
    rng = np.random.default_rng(20261123)
    fails = 0
    with tempfile.TemporaryDirectory() as tmp:
        # contiguous float64, 3 trials, values, n_q != n_k, not tile multiples
        q = rng.standard_normal((3, 37, 16)); k = rng.standard_normal((3, 53, 16))
        v = rng.standard_normal((3, 53, 5))
        fails += run_case(driver, tmp, "contiguous", q, k, v, q, k, v, ddof=1)
        # the same trials from trial 1 on (first > 0 indexes the arrays)
        fails += run_case(driver, tmp, "first1", q, k, v, q, k, v, first=1, threads=1)
        # K a transposed view (strides 8, 8 n_k), Q backwards (negative stride)
        kt = rng.standard_normal((2, 12, 70))          # trials x d_k x n_k
        kview = kt.transpose(0, 2, 1)                  # trials x n_k x d_k
        qbase = rng.standard_normal((2, 70, 12)) + 0.5
        qview = qbase[:, ::-1, :]
        fails += run_case(driver, tmp, "transposed_reversed", qview, kview, None, qbase, kt,
                          None, scale=0.4, causal=True, q_mean=0.5)
        # float32, every other row of Q, 2-D (one trial), scale 1
        q32 = rng.standard_normal((60, 8)).astype(np.float32)
        k32 = rng.standard_normal((41, 8)).astype(np.float32)
        v32 = rng.standard_normal((41, 3)).astype(np.float32)
        fails += run_case(driver, tmp, "float32_strided", q32[::2], k32, v32, q32, k32, v32,
                          scale=1.0)
        # more keys than one key block (4096): blocks merged online
        q = rng.standard_normal((1, 20, 4)) * 3.0; k = rng.standard_normal((1, 5000, 4))
        fails += run_case(driver, tmp, "two_key_blocks", q, k, None, q, k, None, ddof=2)
        # rows of 300 queries: two query tiles of 256, threads split them
        q = rng.standard_normal((1, 300, 24)); k = rng.standard_normal((1, 300, 24))
        v = rng.standard_normal((1, 300, 24))
        fails += run_case(driver, tmp, "two_tiles_causal", q, k, v, q, k, v, causal=True)
    print("%d failed" % fails)
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
