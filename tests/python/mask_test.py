"""stats(mask=) against numpy on the full masked score matrix (issue 23):
shapes 1, 2, 127, 128, 129 (the 128-row statistics chunk, the 256-row
tile) and a key block boundary (n_k > 4096); boolean masks (True =
attend) and additive ones (added to the scaled logits: the raw logits are
S + M / scale; -inf and the dtype's lowest value exclude a key); key
padding B x 1 x 1 x n_k; fully masked rows (rows_empty); a mask with causal
and a window; --values outputs; the same bits for any thread count; bad
masks name themselves; the theory columns are nan with a mask. With the sdpa-var binary as argv[1]: --mask FILE.npy
gives stats(mask=)'s numbers, and bad mask files name themselves."""

import csv
import io
import os
import subprocess
import sys
import tempfile

import numpy as np
import torch

import sdpa_var
from reference import Checker

chk = Checker("python.mask")
rng = np.random.default_rng(2323)


def reference(s, v, c, vis):
    """The statistics of raw logits s over the keys each row sees (vis),
    rows seeing none left out."""
    rows = [i for i in range(s.shape[0]) if vis[i].any()]
    out = {"rows_empty": s.shape[0] - len(rows)}
    if not rows:
        return out
    out.update({"raw_mean": s[vis].mean(), "raw_var": s[vis].var(),
                "raw_max_logit": s[vis].max(), "scaled_max_logit": c * s[vis].max(),
                "raw_max_abs_logit": np.abs(s[vis]).max()})
    for tag, mult in (("raw", 1.0), ("scaled", c)):
        h, mw, sink, hn, o2 = [], [], [], [], []
        for i in rows:
            z = mult * s[i][vis[i]]
            p = np.exp(z - z.max())
            p /= p.sum()
            h.append(-(p * np.log(p)).sum())
            mw.append(p.max())
            sink.append(p[0])  # the first key the row sees (issue 39)
            if vis[i].sum() >= 2:
                hn.append(h[-1] / np.log(vis[i].sum()))
            if v is not None:
                o2.extend((p @ v[vis[i]]) ** 2)
        out[tag + "_entropy"] = np.mean(h)
        out[tag + "_max_weight"] = np.mean(mw)
        out[tag + "_sink_weight"] = np.mean(sink)
        out[tag + "_entropy_norm"] = np.mean(hn) if hn else np.nan
        if v is not None:
            out[tag + "_out_var"] = np.mean(o2)
    return out


def compare(what, got, want, b=0, h=0, rtol=1e-10):
    for name, w in want.items():
        g = float(getattr(got, name)[b, h])
        w = float(w)
        ok = (np.isnan(g) and np.isnan(w)) or np.isclose(g, w, rtol=rtol, atol=1e-12)
        chk.ok(ok, "%s %s" % (what, name), "got %r, numpy %r" % (g, w))


def draw_mask(nq, nk, kind):
    """(mask as given, raw additive part A / c applied to S, visible)."""
    vis = rng.random((nq, nk)) < 0.7
    vis[nq // 2] = False  # a fully masked row
    if kind == "bool":
        return vis, np.zeros((nq, nk)), vis
    add = -2.0 * rng.random((nq, nk))
    if kind == "additive":
        return np.where(vis, add, -np.inf), np.where(vis, add, 0.0), vis
    m = np.where(vis, add, np.finfo(np.float32).min).astype(np.float32)  # HF's fill
    return torch.from_numpy(m), np.where(vis, m.astype(np.float64), 0.0), vis


c = 8 ** -0.5
for nq, nk in ((1, 1), (2, 2), (127, 127), (128, 128), (129, 129), (130, 40), (5, 300)):
    for kind in ("bool", "additive", "finfo"):
        mask, add, vis = draw_mask(nq, nk, kind)
        q, k = rng.standard_normal((nq, 8)), rng.standard_normal((nk, 8))
        got = sdpa_var.stats(q, k, mask=mask, pool="none")
        compare("n_q %d n_k %d %s" % (nq, nk, kind), got, reference(q @ k.T + add / c, None, c,
                                                                    vis))

# Key padding B x 1 x 1 x n_k over 2 x 3 heads, bool and additive, GQA.
B, H, n = 2, 4, 50
q, k = rng.standard_normal((B, H, n, 16)), rng.standard_normal((B, 2, n, 16))
valid = np.zeros((B, 1, 1, n), dtype=bool)
valid[0, ..., :20], valid[1, ..., :50] = True, True
for kind, mask in (("bool", valid), ("additive", np.where(valid, 0.0, -np.inf)),
                   ("torch bool", torch.from_numpy(valid))):
    got = sdpa_var.stats(q, k, mask=mask, pool="none")
    for b in range(B):
        for h in range(H):
            vis = np.broadcast_to(valid[b, 0], (n, n))
            compare("padding %s b %d h %d" % (kind, b, h), got,
                    reference(q[b, h] @ k[b, h // 2].T, None, 0.25, vis), b, h)

# Issue 39: a left-padded element's sink share is its first real token's
# weight, the unpadded sequence's (it was the pad key's: 0).
q, k = rng.standard_normal((2, 3, 35, 16)), rng.standard_normal((2, 3, 35, 16))
q[1, :, :5], k[1, :, :5] = 0.0, 0.0  # pad tokens
valid = np.ones((2, 1, 1, 35), dtype=bool)
valid[1, ..., :5] = False  # HF's attention_mask, left padding
got = sdpa_var.stats(q, k, mask=valid, causal=True, pool="none")
alone = sdpa_var.stats(q[1:, :, 5:], k[1:, :, 5:], causal=True, pool="none")
for h in range(3):
    for name in ("raw_sink_weight", "scaled_sink_weight", "scaled_entropy"):
        g, w = float(getattr(got, name)[1, h]), float(getattr(alone, name)[0, h])
        chk.ok(np.isclose(g, w, rtol=1e-12, atol=0.0) and w > 0.0,
               "left padding %s h %d" % (name, h), "padded %r, unpadded %r" % (g, w))

# A mask with causal and a window; values; a key block boundary.
for nq, nk, w, causal in ((129, 129, 7, True), (4200, 4200, None, True), (300, 4500, 4300, False)):
    q, k, v = (rng.standard_normal((nn, 4)) for nn in (nq, nk, nk))
    mask, add, vis = draw_mask(nq, nk, "additive")
    i, j = np.arange(nq)[:, None], np.arange(nk)[None, :]
    band = np.ones((nq, nk), dtype=bool)
    if causal:
        band &= j <= i
    if w is not None:
        band &= (j > i - w) if causal else (np.abs(i - j) < w)
    got = sdpa_var.stats(q, k, v, mask=mask, causal=causal, window=w, pool="none", threads=2)
    compare("n_q %d n_k %d W %s causal %d values" % (nq, nk, w, causal), got,
            reference(q @ k.T + add / 0.5, v, 0.5, vis & band), rtol=1e-9)
    one = sdpa_var.stats(q, k, v, mask=mask, causal=causal, window=w, pool="none", threads=1)
    same = all(np.array_equal(one.values[x], got.values[x],
                              equal_nan=one.values[x].dtype.kind == "f") for x in one.columns)
    chk.ok(same, "threads 1 = threads 2 bits (n_k %d)" % nk, "differ")

# An all-true mask is no mask: the same bits.
q = rng.standard_normal((2, 3, 50, 16))
a, b = sdpa_var.stats(q, q, mask=np.ones((50, 50), bool)), sdpa_var.stats(q, q)
chk.ok(np.array_equal(a.scaled_entropy, b.scaled_entropy), "all-true mask = no mask", "differ")
chk.ok(np.isnan(a.raw_var_theory).all() and np.isnan(a.pooled["raw_var_theory"]) and
       np.isfinite(b.raw_var_theory).all(), "theory nan with a mask", str(a.raw_var_theory))
# Every row masked: rows_empty n, no exception.
e = sdpa_var.stats(q, q, mask=np.zeros((1, 50), bool), pool="none")
chk.ok(np.all(e.rows_empty == 50), "all masked: rows_empty", str(e.rows_empty))
# One head all masked: its row nan, the pooled row the mean over the other
# five heads (q_var, rows_empty over all six); nan everywhere before.
m = np.ones((2, 3, 50, 50), bool)
m[0, 1] = False
o = sdpa_var.stats(q, q, mask=m)
for f in ("raw_mean", "raw_var", "raw_entropy", "scaled_max_weight", "q_var"):
    want = np.mean(getattr(o, f)) if f == "q_var" else np.nanmean(getattr(o, f))
    chk.ok(np.isnan(getattr(o, f)[0, 1]) == (f != "q_var") and
           abs(o.pooled[f] - want) <= 2 * abs(np.spacing(want)),
           "one head masked: pooled %s" % f, "%r, want %r" % (o.pooled[f], want))
chk.ok(o.pooled["rows_empty"] == 50 / 6, "one head masked: pooled rows_empty", str(o.pooled))
e = sdpa_var.stats(q, q, mask=np.zeros((1, 50), bool))
chk.ok(np.isnan(e.pooled["raw_mean"]) and e.pooled["rows_empty"] == 50,
       "all masked: pooled nan", str(e.pooled))
# One head whose every row sees one key: no entropy_norm (nan, its true
# answer), the pooled one the mean over the other five heads (nan before);
# raw_entropy over all six.
m = np.ones((2, 3, 50, 50), bool)
m[0, 1] = np.eye(50, dtype=bool)
o = sdpa_var.stats(q, q, mask=m)
for f in ("raw_entropy_norm", "scaled_entropy_norm", "raw_entropy"):
    want = np.nanmean(getattr(o, f))
    chk.ok(np.isnan(getattr(o, f)[0, 1]) == (f != "raw_entropy") and
           abs(o.pooled[f] - want) <= 2 * abs(np.spacing(want)),
           "one-key head: pooled %s" % f, "%r, want %r" % (o.pooled[f], want))

# ddof against a mask: a head that sees 1 to ddof scores (head (0, 1) one)
# is refused by the library, naming it (raw_var 0 / 0 was read as an
# overflow: "q, k: value too large: scores would overflow (SV_EOVERFLOW)");
# one that sees none stays nan; ddof 0 runs it.
ONE = "ddof: must be less than the number of scores each head sees; batch 0, head 1 sees 1 under "
m = np.ones((2, 3, 50, 50), bool)
m[0, 1] = False
m[0, 1, 7, 3] = True
try:
    sdpa_var.stats(q, q, mask=m, ddof=1)
    chk.ok(False, "ddof 1, one score in a head", "no exception")
except ValueError as ex:
    chk.ok(str(ex) == ONE + "mask", "ddof 1, one score in a head", str(ex))
o = sdpa_var.stats(q, q, mask=m)
chk.ok(o.raw_var[0, 1] == 0.0 and o.raw_entropy[0, 1] == 0.0, "ddof 0, one score in a head",
       "%r %r" % (o.raw_var[0, 1], o.raw_entropy[0, 1]))
m[0, 1, 7, 3] = False
o = sdpa_var.stats(q, q, mask=m, ddof=1)
chk.ok(np.isnan(o.raw_var[0, 1]) and np.isfinite(o.pooled["raw_var"]), "ddof 1, head masked",
       str(o.pooled))

for bad, what in ((np.ones((4, 50, 50), bool), "(4, 50, 50)"),
                  (np.ones((50, 49)), "(50, 49)"),
                  (np.full((50, 50), np.nan), "NaN"),
                  (np.full((50, 50), -1e70), "-1e70 / scale past 1e60"),
                  (np.ones((1, 1, 1, 1, 50), bool), "5 axes")):
    try:
        sdpa_var.stats(q, q, mask=bad)
        chk.ok(False, "bad mask %s" % what, "no exception")
    except ValueError as ex:
        chk.ok(str(ex).startswith("mask:"), "bad mask %s" % what, str(ex))
try:
    sdpa_var.stats(q, q, mask=np.ones((50, 50), np.int32))
    chk.ok(False, "int mask", "no exception")
except TypeError as ex:
    # What a mask may be, bool included (issue 33: it named the floats only).
    chk.ok(str(ex).startswith("mask:") and "is not bool, float16" in str(ex), "int mask", str(ex))


def cli(binary, *args):
    r = subprocess.run([binary, *args], capture_output=True, text=True)
    return r.returncode, r.stdout, r.stderr.strip()


def cli_mask(binary):
    """--mask FILE.npy against stats(mask=): bool and additive, broadcast."""
    cols = ["raw_mean", "raw_var", "scaled_entropy", "scaled_max_weight", "scaled_max_logit",
            "scaled_sink_weight", "scaled_entropy_norm", "rows_empty", "raw_var_theory"]
    with tempfile.TemporaryDirectory() as d:
        q, k = rng.standard_normal((2, 3, 40, 8)), rng.standard_normal((2, 1, 40, 8))
        np.save(os.path.join(d, "q.npy"), q)
        np.save(os.path.join(d, "k.npy"), k)
        vis = rng.random((2, 1, 40, 40)) < 0.6
        vis[1, 0, 7] = False
        for name, m in (("bool", vis), ("additive", np.where(vis, -rng.random(vis.shape), -np.inf)),
                        ("padding", vis[:, :, :1, :]), ("float32 2-D", np.where(
                            vis[0, 0], 0.0, np.finfo(np.float32).min).astype(np.float32))):
            path = os.path.join(d, "m.npy")
            np.save(path, m)
            rc, out, err = cli(binary, "--q", os.path.join(d, "q.npy"), "--k",
                               os.path.join(d, "k.npy"), "--mask", path, "--pool", "none",
                               "--columns", ",".join(["batch", "head"] + cols))
            chk.ok(rc == 0, "--mask %s exit" % name, err)
            if rc:
                continue
            want = sdpa_var.stats(q, k, mask=m, pool="none")
            for row in csv.DictReader(io.StringIO(out)):
                b, h = int(row["batch"]), int(row["head"])
                for c in cols:
                    g, w = float(row[c]), float(getattr(want, c)[b, h])
                    chk.ok(g == w or (np.isnan(g) and np.isnan(w)),
                           "--mask %s %s (%d, %d)" % (name, c, b, h), "CLI %r, stats %r" % (g, w))
        for name, m, want in (("shape", np.ones((2, 2, 40, 40), bool), "does not broadcast"),
                              ("nan", np.full((40, 40), np.nan), "is nan"),
                              ("-1e70", np.full((40, 40), -1e70), "would pass 1e+60"),
                              ("+inf", np.full((40, 40), np.inf), "is inf")):
            path = os.path.join(d, "bad.npy")
            np.save(path, m)
            rc, out, err = cli(binary, "--q", os.path.join(d, "q.npy"), "--k",
                               os.path.join(d, "k.npy"), "--mask", path)
            chk.ok(rc == 1 and path in err and want in err and out == "",
                   "--mask %s refused" % name, "exit %d: %s" % (rc, err))
        rc, out, err = cli(binary, "--mask", path)
        chk.ok(rc == 2 and "--mask needs --q" in err, "--mask without --q", err)
        # No inf with exit 0 for finite files: q_var of +-1e154, outputs of +-1e200.
        qb, kb, vb = (os.path.join(d, x) for x in ("qb.npy", "kb.npy", "vb.npy"))
        np.save(qb, np.where(q > 0, 1e154, -1e154))
        np.save(kb, k * 1e-100)
        np.save(vb, np.where(k > 0, 1e200, -1e200)[..., :3])
        for args, want, bad in (((qb, kb), "q_var", qb), ((os.path.join(d, "q.npy"), os.path.join(
                d, "k.npy"), "--v", vb), "raw_out_var", vb)):
            rc, out, err = cli(binary, "--q", args[0], "--k", *args[1:])
            chk.ok(rc == 1 and want in err and bad in err and out == "",
                   "no inf: %s refused" % want, "exit %d: %s" % (rc, err))
        # the library's line, the CLI naming its option and the file
        m = np.ones((2, 3, 40, 40), bool)
        m[0, 1] = False
        m[0, 1, 7, 3] = True
        np.save(path, m)
        rc, out, err = cli(binary, "--q", os.path.join(d, "q.npy"), "--k", os.path.join(d, "k.npy"),
                           "--mask", path, "--ddof", "1")
        want = "sdpa-var: --ddof: '1' " + ONE[len("ddof: "):] + path
        chk.ok(rc == 1 and out == "" and err == want, "--ddof 1, one score in a head", err)
        np.save(path, np.ones((40, 8), bool))
        rc, out, err = cli(binary, "--q", path, "--k", path)
        chk.ok(rc == 1 and "dtype bool" in err, "a bool --q refused", err)


if len(sys.argv) > 1:
    cli_mask(sys.argv[1])
chk.done()
