"""One captured attention call -> the engine's per-head statistics, and
their accumulation over the calls of one training step.

A call is Q, K (torch tensors, batch x heads x n x d), the scale, causal
(top-left aligned), a mask in F.scaled_dot_product_attention's convention
(bool True = attend, or additive float; broadcastable) and a window. What
the engine cannot take as such is rewritten into what it can: a causal call
with n_q < n_k reads only the first n_q keys (the only ones any query
sees); an explicit mask that is exactly causal becomes causal=True; a row
sample under causal or a window becomes a boolean mask of those rows.
Masks and windows go to sdpa_var.stats(mask=, window=) (issue 23 section 2).
"""

import functools
import math

import numpy as np

from . import _columns
from . import _core
from . import _modules

# How each per-head column combines over batch elements and calls, as the
# library's column table says (sv_column.reduce): "mean" (row-weighted),
# "max", "min", "sum" (a count), "first" (configuration, labels), "pooled"
# (computed again from the reduced columns) or "none" (left out).
REDUCE = {c.name: c.reduce for c in _columns.per_head()}
# The extremes and counts: each call's over its batch rows, then this.
_EXT = {"max": np.fmax, "min": np.fmin, "sum": np.add}


class Skip(Exception):
    """A call not measured, for a reason the monitor warns about once."""

    def __init__(self, key, message, count=0):
        super().__init__(message)
        self.key, self.count = key, count


def to_bhnd(x):
    """n x d -> 1 x 1 x n x d; batch x n x d -> batch x 1 x n x d; leading
    axes beyond four folded into the batch."""
    if x.dim() == 2:
        x = x.unsqueeze(0)
    if x.dim() == 3:
        x = x.unsqueeze(1)
    return x.reshape(-1, *x.shape[-3:]) if x.dim() > 4 else x


def inputs(q, k, mask):
    """Q, K and the mask of a call, detached, batch x heads x n x d (the mask
    batch x heads x n_q x n_k, size-1 axes kept); raises Skip for meta
    tensors (no values)."""
    q, k = to_bhnd(q.detach()), to_bhnd(k.detach())
    if mask is not None:
        mask = mask.detach()
        while mask.dim() < 4:
            mask = mask.unsqueeze(0)
        mask = mask.reshape(-1, *mask.shape[-3:]) if mask.dim() > 4 else mask
    if any(t is not None and t.device.type == "meta" for t in (q, k, mask)):
        raise Skip("meta", "meta tensors hold no values")
    return q, k, mask


def row_sample(n_q, rows, seed, cache):
    if rows is None or rows >= n_q:
        return None
    key = (n_q, rows)
    if key not in cache:
        rng = np.random.default_rng(seed)
        cache[key] = np.sort(rng.choice(n_q, size=rows, replace=False))
    return cache[key]


def band(rows, n_k, causal, window, device=None):
    """Bool (len(rows) x n_k) on @p device: query rows[r] (their positions,
    a tensor) sees key j by causal and window alone; None when both allow
    every key. Comparisons of j with per-row bounds: bool temporaries only
    (i - j would be an int64 m x n_k array, 8 bytes a score)."""
    import torch

    if not causal and window is None:
        return None
    i = rows.reshape(-1, 1)
    j = torch.arange(n_k, device=device).reshape(1, -1)
    vis = j <= i if causal else j < i + window
    if window is not None:
        vis &= j > i - window
    return vis


def plan(n_q, n_k, causal, window, kind, sampled):
    """What the engine is handed for a call (module docstring), from the
    mask's _mask_kind @p kind (None: no mask; "data" under a window) and
    whether rows are sampled: (n_k, causal, window, masked, cut, banded).
    cut: the keys are the first n_q; banded: causal and the window become
    a bool mask of the measured rows (then causal False, window None)."""
    masked = kind is not None
    if masked and window is None and kind in ("none", "causal"):
        masked, causal = False, causal or kind == "causal"
    cut = causal and n_q < n_k and not masked and window is None
    if cut:
        n_k = n_q  # top-left: query i sees keys 0..i < n_q
    banded = (causal or window is not None) if sampled else (causal and n_q != n_k)
    if banded:
        masked, causal, window = True, False, None
    return n_k, causal, window, masked, cut, banded


def prepare(q, k, causal, mask, window, rows, seed, cache):
    """(q, k, causal, mask, window) rewritten for the engine (module
    docstring); q, k detached on the CPU. Raises Skip."""
    import torch

    q, k, mask = inputs(q, k, mask)
    n_q = q.shape[-2]
    kind = None if mask is None else "data" if window is not None else \
        _mask_kind(mask, n_q, k.shape[-2])
    idx = row_sample(n_q, rows, seed, cache)
    n_k, causal2, window2, masked, cut, banded = plan(n_q, k.shape[-2], causal, window, kind,
                                                      idx is not None)
    if kind in ("none", "causal"):  # dropped: its shape is read now or never
        _core.check_shapes(q, k, mask)
        mask = None
    if cut:
        k = k[..., :n_k, :]
    pos = torch.arange(n_q) if idx is None else torch.as_tensor(idx)
    if idx is not None:
        q = q[..., pos, :]
        if mask is not None and mask.shape[-2] == n_q:
            mask = mask[..., pos, :]
    if banded:
        b = band(pos, n_k, causal or kind == "causal", window)
        mask = b if mask is None else _modules.combine(mask, b)
    # Only what is measured reaches the CPU: with rows, those rows of Q
    # (and of the mask). NaN and infinities: the engine's read (run()).
    return q.cpu(), k.cpu(), causal2, None if mask is None else mask.cpu(), window2


def _nonfinite(q, k, mask):
    """The count of NaN and infinite values in Q, K and of NaN in a float
    mask: the monitor's count of a call the engine refused (a pass on the
    failure path only)."""
    import torch

    bad = int((~torch.isfinite(q)).sum()) + int((~torch.isfinite(k)).sum())
    if mask is not None and mask.is_floating_point():
        bad += int(torch.isnan(mask).sum())
    return bad


@functools.lru_cache(maxsize=4)
def _tril(n_q, n_k):
    """The causal pattern (keys j <= i) as a read-only bool array."""
    t = np.tril(np.ones((n_q, n_k), dtype=bool))
    t.setflags(write=False)
    return t


def row_chunks(mask, max_bytes):
    """Slices of @p mask's query-row axis whose entries, at 8 bytes of
    temporaries each, stay within @p max_bytes (at least one row)."""
    per_row = max(1, mask[..., :1, :].numel()) * 8
    c = max(1, max_bytes // per_row)
    return [slice(r, r + c) for r in range(0, mask.shape[-2], c)]


def mask_flags(mask, n_q, n_k, max_bytes):
    """0-dim float64 tensors on the mask's device, with no synchronisation:
    the mask excludes nothing (bool all True, float all zero; NaN is not
    zero), and it is exactly the causal pattern (bool True for keys j <= i,
    float 0 there and -inf elsewhere, no other value). Taken over blocks of
    the mask's rows (row_chunks): the boolean temporaries stay within
    @p max_bytes, never the mask's whole size."""
    import torch

    dev = mask.device
    yes = torch.ones((), dtype=torch.bool, device=dev)
    trivial, plain, same = yes, yes, yes
    shaped = tuple(mask.shape[-2:]) == (n_q, n_k)
    j = torch.arange(n_k, device=dev).reshape(1, -1)
    for sl in row_chunks(mask, max_bytes):
        mb = mask[..., sl, :]
        if mask.dtype == torch.bool:
            trivial = trivial & mb.all()
            vis = mb
        else:
            trivial = trivial & (mb == 0).all()
            vis = mb > -math.inf
            plain = plain & ~((mb != 0) & (mb != -math.inf)).any()
        if shaped:
            i = torch.arange(sl.start, sl.start + mb.shape[-2], device=dev).reshape(-1, 1)
            same = same & (vis == (j <= i)).all()
        del vis, mb
    causal = plain & same if shaped else torch.zeros((), dtype=torch.bool, device=dev)
    return trivial.double(), causal.double()


def _mask_kind(mask, n_q, n_k):
    """"none" for a mask that excludes nothing, "causal" for exactly the
    causal pattern (mask_flags), else "data". On the CPU NumPy's passes
    (torch 1.13's bool all() is some 50 times slower): row 0 tells the
    candidates apart (all visible; key 0 only), so a data mask costs one
    row; a candidate one full pass over the mask's own (broadcast) shape.
    bfloat16 (which NumPy lacks) and other devices: mask_flags."""
    import torch

    if mask.device.type != "cpu" or mask.dtype == torch.bfloat16:
        trivial, causal = mask_flags(mask, n_q, n_k, 256 << 20)
        return "none" if trivial else "causal" if causal else "data"
    m = mask.numpy()  # a view, whatever the strides
    row0 = m[..., 0, :]
    if m.dtype == np.bool_:
        if row0.all() and m.all():
            return "none"
        key0 = row0[..., 0].all() and not row0[..., 1:].any()
    else:
        if not row0.any() and not m.any():  # NaN counts as nonzero
            return "none"
        key0 = (row0[..., 0] == 0).all() and (row0[..., 1:] == -np.inf).all()
    if not key0 or tuple(m.shape[-2:]) != (n_q, n_k):
        return "data"
    want = _tril(n_q, n_k)
    if m.dtype != np.bool_:
        want = np.where(want, 0.0, -np.inf).astype(m.dtype)
    return "causal" if np.array_equal(m, np.broadcast_to(want, m.shape)) else "data"


def run(q, k, scale, causal, mask, window, rows, seed, cache, threads, pool="none"):
    """The engine's Stats (batch x heads; with @p pool "heads" also the
    pooled row) of one call, or raises Skip."""
    q, k, causal, mask, window = prepare(q, k, causal, mask, window, rows, seed, cache)
    try:
        # the mask in its own dtype: the engine knows that dtype's lowest
        # value (HF's finfo(dtype).min fill) as "excluded"; widened, it would not be
        return _core.stats(q, k, scale=scale, causal=causal, mask=mask, layout="bhnd",
                           window=None if window is None else int(window), pool=pool,
                           threads=threads)
    except _core.NonFiniteError:
        bad = _nonfinite(q, k, mask)
        if not bad:
            raise  # +inf in a float mask: an error of the caller's, as stats() says
        raise Skip("nonfinite", "%d NaN or infinite values in Q, K or the mask" % bad,
                   bad) from None


class Accumulator:
    """One layer's calls within one step: per head, a row-weighted mean over
    batch elements and calls for averages (each batch element weighted by
    its rows that see a key), the max (min) for maxima (minima);
    or, reduce="none", the calls' batch rows side by side."""

    def __init__(self, reduce):
        self.reduce, self.calls, self.nonfinite = reduce, 0, 0
        self.scale = self.scale_source = self.path = None
        self.backends = set()  # "engine", "torch": which computed this step's calls
        self.parts = []      # reduce="none": Stats of each call
        self.sum, self.ext, self.first = {}, {}, {}
        self.columns, self.units, self.heads = (), {}, None

    def add(self, st):
        """Adds Stats @p st (batch x heads)."""
        b, h = st.shape
        if self.heads is not None and h != self.heads:
            raise Skip("heads", "%d heads after %d in the same step" % (h, self.heads))
        self.heads, self.columns, self.units = h, st.columns, dict(st.units)
        self.calls += 1
        if self.reduce == "none":
            self.parts.append(st)
            return
        # the weights of the averages: each batch element and head's rows
        # that see at least one key (its columns n_q - rows_empty)
        w = np.broadcast_to(np.asarray(st.values["n_q"], dtype=np.float64), (b, h))
        empty = st.values.get("rows_empty")
        if empty is not None:
            w = w - np.nan_to_num(np.asarray(empty, dtype=np.float64))
        w = np.maximum(w, 0.0)
        for name in st.columns:
            v = np.asarray(st.values[name])
            how = REDUCE.get(name, "none")
            if how == "first":
                self.first.setdefault(name, v[0])
            elif how == "mean":
                x = np.where(np.isnan(v), 0.0, v.astype(np.float64)) * w
                c = np.where(np.isnan(v), 0.0, w)
                s, n = self.sum.get(name, (0.0, 0.0))
                self.sum[name] = (s + x.sum(0), n + c.sum(0))
            elif how in _EXT:  # pooled: from the reduced columns in values(); none: left out
                f, v = _EXT[how], v.astype(np.float64)
                r = np.nansum(v, axis=0) if how == "sum" else f.reduce(v, axis=0)
                self.ext[name] = r if name not in self.ext else f(self.ext[name], r)

    def values(self):
        """name -> array (heads,) (or (batch, heads) for reduce="none")."""
        if self.reduce == "none":
            return {n: np.concatenate([np.asarray(p.values[n]) for p in self.parts])
                    for n in self.columns}
        out = {**self.first, **self.ext}
        with np.errstate(invalid="ignore", divide="ignore"):
            for name, (s, n) in self.sum.items():
                out[name] = np.where(n > 0, s / np.where(n > 0, n, 1), math.nan)
            # the pooled columns, from the reduced ones: var_scale is 1/sqrt
            # of the reduced raw_var, as the engine's pooled row
            rv = out.get("raw_var")
            for name in self.columns:
                if REDUCE.get(name) == "pooled":
                    out[name] = 1.0 / np.sqrt(rv) if name == "var_scale" and rv is not None \
                        else np.full(self.heads, math.nan)
        return {n: out[n] for n in self.columns if n in out}
