"""Shared by the Python package's tests: a checker that prints both values
on failure, and the statistics computed by numpy from the full weight
matrix (float64), the independent peer of sdpa_var.stats."""

import math
import sys

import numpy as np


def cli_text(v):
    """A value as the CLI's CSV writes it: text as it is, integers whole,
    reals %.17g, NaN as nan (the comparison of Python's values with the
    CLI's cells, byte for byte)."""
    if isinstance(v, str):
        return v
    if isinstance(v, int):
        return str(v)
    return "nan" if math.isnan(v) else "%.17g" % v


class Checker:
    """Counts checks; every failure prints what, got and expected."""

    def __init__(self, name):
        self.name, self.passed, self.failed = name, 0, 0

    def close(self, what, got, want, rel=1e-12, abs_=1e-14, nan_ok=False):
        """|got - want| <= max(rel |want|, abs_). A NaN fails, also against
        a NaN, unless the caller says NaN is the answer here (nan_ok)."""
        got, want = float(got), float(want)
        ok = (nan_ok and math.isnan(got) and math.isnan(want)) or \
            abs(got - want) <= max(rel * abs(want), abs_)
        self.ok(ok, what, "got %.17g want %.17g (rel %.3g)"
                % (got, want, abs(got - want) / abs(want) if want else abs(got - want)))

    def ok(self, cond, what, detail=""):
        """Counts one check; returns cond."""
        if cond:
            self.passed += 1
        else:
            self.failed += 1
            print("FAIL %s: %s" % (what, detail), file=sys.stderr)
        return bool(cond)

    def done(self):
        """Exits 1 on a failure, and when no check ran: that tested nothing."""
        print("%s: %d passed, %d failed%s" % (self.name, self.passed, self.failed,
                                           "" if self.passed else " (nothing was tested)"))
        sys.exit(1 if self.failed or not self.passed else 0)


def head_stats(qh, kh, vh=None, scale=None, causal=False, ddof=0):
    """Statistics of one head from the full n_q x n_k weight matrix.
    qh: n_q x d, kh: n_k x d, vh: n_k x d_v, all float64."""
    d = qh.shape[1]
    c = 1.0 / math.sqrt(d) if scale is None else scale
    s = qh @ kh.T
    n_q, n_k = s.shape
    vis = np.tril(np.ones((n_q, n_k), bool)) if causal else np.ones((n_q, n_k), bool)
    out = {}
    flat = s[vis]
    out["raw_mean"] = flat.mean()
    out["raw_var"] = flat.var(ddof=ddof)
    out["scaled_var"] = (c * flat).var(ddof=ddof)
    out["raw_max_abs_logit"] = np.abs(flat).max()
    out["scaled_max_abs_logit"] = np.abs(flat).max() * c
    out["q_var"], out["k_var"] = qh.var(), kh.var()
    out["q_mean_measured"], out["k_mean_measured"] = qh.mean(), kh.mean()
    keys = vis.sum(axis=1)
    for tag, x in (("raw", s), ("scaled", c * s)):
        x = np.where(vis, x, -np.inf)
        x = x - x.max(axis=1, keepdims=True)
        e = np.exp(x)
        p = e / e.sum(axis=1, keepdims=True)
        with np.errstate(divide="ignore", invalid="ignore"):
            ent = -np.where(p > 0, p * np.log(p), 0.0).sum(axis=1)
        out[tag + "_entropy"] = ent.mean()
        out[tag + "_entropy_min"], out[tag + "_entropy_max"] = ent.min(), ent.max()
        out[tag + "_max_weight"] = p.max(axis=1).mean()
        out[tag + "_sink_weight"] = p[:, 0].mean()
        two = keys >= 2
        out[tag + "_entropy_norm"] = (ent[two] / np.log(keys[two])).mean() if two.any() \
            else math.nan
        if vh is not None:
            out[tag + "_out_var"] = np.mean((p @ vh) ** 2)
    return out


def compare(chk, what, s, ref, b, h):
    """Every statistic of ref against s (a Stats) at (b, h)."""
    for name, want in ref.items():
        if name not in s.values:
            chk.ok(False, what + " " + name, "column missing from Stats")
            continue
        got = s.values[name][b, h]
        # entropy_norm is NaN by definition when no row sees 2 keys (n_k 1)
        chk.close("%s %s [b=%d h=%d]" % (what, name, b, h), got, want, 1e-12,
                  nan_ok=name.endswith("_entropy_norm"))
