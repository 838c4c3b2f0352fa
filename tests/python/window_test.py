"""stats(window=W) against numpy on the full masked score matrix (issue 23):
boundary shapes 1, 2, 127, 128, 129 (the 128-row statistics chunk, the
256-row tile), a key block boundary (n_k > 4096), with and without causal,
rows that see no key (rows_empty), --values outputs, and the same bits for
any thread count. Window semantics: causal i - W < j <= i, else |i - j| < W."""

import numpy as np

import sdpa_var
from reference import Checker

chk = Checker("python.window")
rng = np.random.default_rng(23)


def visible(nq, nk, w, causal):
    i, j = np.arange(nq)[:, None], np.arange(nk)[None, :]
    return ((j <= i) & (j > i - w)) if causal else (np.abs(i - j) < w)


def reference(q, k, v, c, vis):
    """The statistics over the keys each row sees, rows seeing none left out."""
    s = q @ k.T
    rows = [i for i in range(s.shape[0]) if vis[i].any()]
    out = {"raw_mean": s[vis].mean(), "raw_var": s[vis].var(), "raw_max_logit": s[vis].max(),
           "scaled_max_logit": c * s[vis].max(), "raw_max_abs_logit": np.abs(s[vis]).max(),
           "rows_empty": s.shape[0] - len(rows)}
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


def compare(what, got, want, rtol=1e-10):
    for name, w in want.items():
        g = getattr(got, name)[0, 0]
        g, w = float(g), float(w)
        ok = (np.isnan(g) and np.isnan(w)) or np.isclose(g, w, rtol=rtol, atol=1e-12)
        chk.ok(ok, "%s %s" % (what, name), "got %r, numpy %r" % (g, w))


for nq, nk in ((1, 1), (2, 2), (127, 127), (128, 128), (129, 129), (130, 40), (5, 300)):
    for w in (1, 2, 3, 64, 200):
        for causal in (False, True):
            if causal and nq != nk:
                continue
            vis = visible(nq, nk, w, causal)
            q, k = rng.standard_normal((nq, 8)), rng.standard_normal((nk, 8))
            got = sdpa_var.stats(q, k, causal=causal, window=w, pool="none")
            compare("n_q %d n_k %d W %d causal %d" % (nq, nk, w, causal), got,
                    reference(q, k, None, 8 ** -0.5, vis))

# A key block boundary (4096 keys), values, and rows that see no key.
for nq, nk, w, causal in ((4200, 4200, 300, True), (300, 4500, 4300, False), (600, 50, 20, False)):
    q, k, v = (rng.standard_normal((n, 4)) for n in (nq, nk, nk))
    vis = visible(nq, nk, w, causal)
    got = sdpa_var.stats(q, k, v, causal=causal, window=w, pool="none", threads=2)
    compare("n_q %d n_k %d W %d causal %d values" % (nq, nk, w, causal), got,
            reference(q, k, v, 0.5, vis), rtol=1e-9)
    one = sdpa_var.stats(q, k, v, causal=causal, window=w, pool="none", threads=1)
    same = all(np.array_equal(one.values[c], got.values[c],
                              equal_nan=one.values[c].dtype.kind == "f") for c in one.columns)
    chk.ok(same, "threads 1 = threads 2 bits (W %d)" % w, "differ")

# A window at least n is no window: the same bits as causal alone.
q = rng.standard_normal((2, 3, 50, 16))
a, b = sdpa_var.stats(q, q, causal=True, window=50), sdpa_var.stats(q, q, causal=True)
chk.ok(np.array_equal(a.scaled_entropy, b.scaled_entropy), "window n = causal", "differ")
try:
    sdpa_var.stats(q, q, window=0)
    chk.ok(False, "window 0", "no exception")
except ValueError as e:
    chk.ok("window" in str(e), "window 0", str(e))
chk.done()
