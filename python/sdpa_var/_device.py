"""The monitor's "torch" backend: the per-trial sums of the engine's
statistics (rowfold.h SV_TRIAL_SUMS_MAP) of one captured call, computed
with torch operations on the device where Q and K already are, without a
GPU -> CPU synchronisation; mon.step() moves every call's sums to the CPU
in one transfer per device (resolve()), the library finishes the trials
(sv_trial_sums_finish: its NaN rules, ddof, known-mean variance, scaled =
scale raw) and its column code builds Stats (_core.collect), so the
statistics are the engine's by definition.

Definitions, the engine's (engine.h SV_TRIAL_STATS_MAP, rowfold.c, softmax.h):
a trial is one (batch, query head); query head h reads key head
h // (heads_q / heads_kv) (GQA). Raw logits S = Q K^T, plus M / scale for
an additive mask M (so scale * raw is the model's masked logit); a key is
excluded by a bool mask's False, an additive -inf or the mask dtype's
lowest value (HF's finfo.min fill), causal (key j > query i, top-left when
n_q != n_k) or a window (i - W < j <= i with causal, |i - j| < W without).
Per row, over the keys it sees: the moments (two-pass, merged into the
trial by Chan, Golub & LeVeque 1979), the softmax sums of softmax.h
relative to the row max with the first max left out (r, w, q, u) and the
statistics they give (_row_stats), entropy / ln(keys seen) for rows
seeing >= 2 keys, the sink weight (the weight of the FIRST KEY THE ROW
SEES, whatever hides the others) and the logits' extremes; means over the
rows that see a key (rows_empty counts the others). Q's and K's entries:
mean and ddof-0 variance of the head's (sampled) rows.

Precision: everything in float64 on the device, Q and K included (each
block's rows converted from the model's dtype, which is exact for float32,
bf16 and fp16), as the engine computes. float32 logits would miss the
engine by ~1e-7 |q| |k| sqrt(d_k) (TF32 matmuls, which PyTorch enables on
some setups, by ~1e-3), visible in the raw softmax (multiplier 1); float64
keeps the two within rounding of the summation order (backend_parity_test:
1e-10 relative for float64 input, 1e-6 for float32 and bf16 input).

Memory: the score matrix is never held whole. Query rows go in blocks with
every key of their row at once (no online merge over keys); a block of
bc batch elements x hc key heads x m query rows holds bc hc g m n_k scores
(g = heads_q / heads_kv), about BYTES_PER_SCORE bytes each of live float64
and bool temporaries, plus the block's K in float64 (and its entry pass,
3 n_k d_k doubles per key head): block_shape() keeps that under max_bytes
(default DEFAULT_MAX_BYTES), down to one query row of one key-head group,
g n_k BYTES_PER_SCORE + 24 n_k d_k bytes (past the default beyond about
86 000 keys at d_k 128, g 1). The causal / window band is made per block of
rows (bool comparisons only), a mask's flags and NaN / +inf counts over
blocks of its rows (row_chunks), each within max_bytes. Plus per call the
(batch x heads_q x (sums + 3)) array kept until mon.step().
"""

import math

import numpy as np

from . import _core
from . import _lib as L
from . import _measure

DEFAULT_MAX_BYTES = 256 << 20
# Live bytes per score of a block: the float64 logits, two exp arrays and
# one product temporary (4 x 8), the visibility and its complement (2 x 1),
# an additive mask block over the scale (8), rounded up. backend_parity_test
# measures the peak of live tensors against max_bytes.
BYTES_PER_SCORE = 64
# The library's named sums of a trial, in its order.
_SUMS = tuple(L.names(L.lib.sv_trial_sum_name))
_S = len(_SUMS)
# The three columns after the sums: K's entries over its first n_q keys
# (the engine reads only those under causal with n_q < n_k and no mask),
# for finish() to put in place of the whole K's.
_K = ("k_entries", "k_mean", "k_m2")
_MO, _QE = ("scores", "score_mean", "score_m2"), ("q_entries", "q_mean", "q_m2")  # moments
_CUT = [_SUMS.index(n) for n in _K]
# Row statistics summed over the rows that see a key (sums raw_<name> and
# scaled_<name>), in the order _block computes them.
_ROW = ("entropy", "max_weight", "jac_trace", "jac_frob", "eff_keys", "sum_p2", "sink_weight")
# The call's scalars, in this order, after the trials in the transfer.
_SCALARS = ("bad_q", "bad_k", "bad_k_cut", "bad_mask", "posinf", "trivial", "causal_pattern")


def block_shape(batch, heads_kv, group, n_q, n_k, d_k, max_bytes):
    """(bc, hc, m): batch elements, key heads and query rows per block, the
    block within @p max_bytes (module docstring, Memory; its Q rows too, 8
    d_k bytes each); rows first, then key heads, then batch elements."""
    kv = 24 * n_k * d_k
    row = group * (n_k * BYTES_PER_SCORE + 8 * d_k)
    m = max(1, min(n_q, (max_bytes - kv) // row if max_bytes > kv else 1))
    per = kv + m * row
    hc = max(1, min(heads_kv, max_bytes // per))
    bc = max(1, min(batch, max_bytes // (hc * per)))
    return bc, hc, m


class Pending:
    """One call measured on its device: trials (batch * heads_q x sums + 3,
    float64: the named sums, then K's cut) and scalars (len(_SCALARS),
    float64) still there, and what resolve() needs to build its Stats."""

    __slots__ = ("trials", "scalars", "dims", "heads_kv", "scale", "causal", "window",
                 "masked", "sampled", "n_rows")


def _entries(x):
    """(n, mean, M2) over the last two axes of float64 @p x, two-pass."""
    n = x.shape[-1] * x.shape[-2]
    mean = x.mean(dim=(-2, -1))
    m2 = (x - mean[..., None, None]).pow(2).sum(dim=(-2, -1))
    return n, mean, m2


def _merge(a, b):
    """Chan et al. (1979): moments (n, mean, M2) of a then b (n tensors or
    ints, n = 0 allowed)."""
    na, ma, qa = a
    nb, mb, qb = b
    n = na + nb
    nn = n.clamp(min=1) if hasattr(n, "clamp") else max(n, 1)
    d = mb - ma
    return n, ma + d * (nb / nn), qa + qb + d * d * (na * nb / nn)


def _start(shape, dev):
    """The running sums of the trials of one block of (batch, key head,
    group), by the library's names, as trial_init starts them: the
    entropies' extremes at +-inf, max S at -inf, the rest 0."""
    import torch

    start = {"raw_max_logit": -math.inf}
    for pre in ("raw_", "scaled_"):
        start[pre + "entropy_min"], start[pre + "entropy_max"] = math.inf, -math.inf
    return {n: torch.full(shape, start.get(n, 0.0), dtype=torch.float64, device=dev)
            for n in _SUMS}


def _softmax_rows(t, hide, c):
    """Per row of t = S - max (excluded keys -inf; @p hide True there): the
    sums r, w, q, u of softmax.h for multiplier 1 and @p c, the first max
    left out. t is overwritten (excluded keys set to 0)."""
    import torch

    top = t.argmax(dim=-1, keepdim=True)  # the first max: its e is 1
    out = []
    for mult in (1.0, c):
        e = torch.exp(t if mult == 1.0 else t * mult)
        e.scatter_(-1, top, 0.0)
        out.append(e)
    t.masked_fill_(hide, 0.0)
    sums = []
    for e in out:
        r = e.sum(-1)
        w = (e * t).sum(-1)
        e2 = e * e
        q = e2.sum(-1)
        u = (e2.mul_(e)).sum(-1)
        sums.append((r, w, q, u))
        del e2
    return sums


def _row_stats(r, w, q, u, c):
    """softmax.h's per-row statistics from the sums (r = Z - 1)."""
    import torch

    iz = 1.0 / (1.0 + r)
    iz2 = iz * iz
    h = torch.log1p(r) - c * (w * iz)
    jt = (2.0 * r + (r * r - q)) * iz2
    qq, uu = q * iz2, u * iz2 * iz
    f2 = r * r * (iz2 * iz2) + qq * (1.0 + 2.0 * iz2 + qq) - 2.0 * uu
    jf = torch.sqrt(f2.clamp(min=0.0))
    return h, iz, jt, jf, torch.exp(h)


def _block(acc, qb, kb, vis, add, c):
    """Adds a block to the sums @p acc (_start): qb (bc, hc, g, m, d) and
    kb (bc, hc, n_k, d) float64; vis bool broadcastable to (bc, hc, g, m,
    n_k) (None: every key); add the additive mask over c there (None: no
    bias)."""
    import torch

    bc, hc, g, m, d = qb.shape
    n_k = kb.shape[-2]
    s = torch.matmul(qb.reshape(bc, hc, g * m, d), kb.transpose(-1, -2))
    s = s.reshape(bc, hc, g, m, n_k)
    if add is not None:
        s = s.add_(add)
    if vis is None:
        vis = torch.ones((1,) * 5, dtype=torch.bool, device=s.device)
    # vis and hide keep vis's broadcast shape (a band is m x n_k)
    cnt = vis.expand(vis.shape[:-1] + (n_k,)).sum(-1).to(torch.float64)
    cnt = cnt.expand(bc, hc, g, m)
    seen = cnt > 0
    # row moments over the visible logits, two-pass (corrected)
    hide = ~vis
    mean = s.masked_fill(hide, 0.0).sum(-1) / cnt.clamp(min=1.0)
    dev_ = (s - mean[..., None]).masked_fill_(hide, 0.0)
    dsum = dev_.sum(-1)
    m2 = (dev_.mul_(dev_)).sum(-1) - dsum * dsum / cnt.clamp(min=1.0)
    del dev_
    mean = mean + dsum / cnt.clamp(min=1.0)
    m2 = m2.clamp(min=0.0)
    # Chan: the block's rows as one fold, then merged after the earlier ones
    n_b = cnt.sum(-1)
    mean_b = (cnt * mean).sum(-1) / n_b.clamp(min=1.0)
    m2_b = (m2 + cnt * (mean - mean_b[..., None]) ** 2).sum(-1)
    acc.update(zip(_MO, _merge([acc[n] for n in _MO], (n_b, mean_b, m2_b))))
    # the logits' extremes over the visible keys
    mx = s.masked_fill(hide, -math.inf).amax(-1)
    mn = s.masked_fill(hide, math.inf).amin(-1)
    mx_safe = torch.where(seen, mx, torch.zeros_like(mx))
    t = s.sub_(mx_safe[..., None]).masked_fill_(hide, -math.inf)
    # the first key the row sees: the sink (the engine's, after issue 39)
    first = vis.to(torch.uint8).argmax(-1, keepdim=True).expand(bc, hc, g, m, 1)
    t_first = t.gather(-1, first).squeeze(-1)
    sums = _softmax_rows(t, hide, c)
    del t, s
    fz = torch.zeros_like(mx)
    lnk = torch.log(cnt.clamp(min=1.0))
    two = cnt >= 2
    for pre, mult in (("raw_", 1.0), ("scaled_", c)):
        h, mw, jt, jf, ek = _row_stats(*sums[pre == "scaled_"], mult)
        for name, x in zip(_ROW, (h, mw, jt, jf, ek, 1.0 - jt, torch.exp(t_first * mult) * mw)):
            acc[pre + name] += torch.where(seen, x, fz).sum(-1)
        acc[pre + "entropy_norm"] += torch.where(two, h / lnk, fz).sum(-1)
        lo, hi = pre + "entropy_min", pre + "entropy_max"
        acc[lo] = torch.minimum(acc[lo], torch.where(seen, h, fz + math.inf).amin(-1))
        acc[hi] = torch.maximum(acc[hi], torch.where(seen, h, fz - math.inf).amax(-1))
    acc["rows_norm"] += two.to(torch.float64).sum(-1)
    acc["rows_seen"] += seen.to(torch.float64).sum(-1)
    big = torch.where(seen, torch.maximum(mx.abs(), mn.abs()), fz - math.inf)
    acc["raw_max_abs_logit"] = torch.maximum(acc["raw_max_abs_logit"], big.amax(-1))
    acc["raw_max_logit"] = torch.maximum(acc["raw_max_logit"],
                                         torch.where(seen, mx, fz - math.inf).amax(-1))
    acc.update(zip(_QE, _merge([acc[n] for n in _QE], _entries(qb))))


def _pack(acc, kmo, kcut):
    """(bc, hc, g, sums + 3) float64: the block's sums @p acc in the
    library's order, K's moments @p kmo in place, then @p kcut (zeros for
    None): the moments (n, mean, M2) of K's entries per key head (bc, hc,
    1), of its first n_q keys for kcut."""
    import torch

    shape = acc["scores"].shape

    def cols(mo):  # n an int, mean and M2 tensors: for each trial of the block
        return [torch.as_tensor(x, dtype=torch.float64, device=acc["scores"].device)
                .expand(shape) for x in mo]

    s = dict(acc, **dict(zip(_K, cols(kmo))))
    return torch.stack([s[n] for n in _SUMS] + cols(kcut or (0, 0, 0)), dim=-1)


def _mask_of(mb, scale):
    """(visible, additive over scale or None) of a block of the call's mask:
    bool True = attend; a float mask's -inf and its dtype's lowest value
    (HF's finfo.min) exclude the key, other entries add M / scale to the
    raw logits (the engine's mask_tile)."""
    import torch

    if mb.dtype == torch.bool:
        return mb, None
    hide = (mb == -math.inf) | (mb == torch.finfo(mb.dtype).min)
    return ~hide, (mb.to(torch.float64) / scale).masked_fill_(hide, 0.0)


def measure(q, k, scale, causal, mask, window, rows, seed, cache, max_bytes=None):
    """The Pending of one call (as _measure.run, arguments the same), its
    numbers still on the device; no synchronisation with it. Raises
    _measure.Skip (meta tensors), ValueError (shapes) or TypeError (a Q or
    K dtype), as stats()."""
    import torch

    max_bytes = DEFAULT_MAX_BYTES if max_bytes is None else max_bytes
    # detached (inputs()): nothing below records an autograd graph
    q, k, mask = _measure.inputs(q, k, mask)
    _core.check_shapes(q, k, mask)  # the library's rules, in stats()' words
    if k.device != q.device:
        raise ValueError("k: on %s, q on %s" % (k.device, q.device))
    (B, Hq, n_q, d), (Hkv, n_k) = q.shape, k.shape[1:3]
    dev, g = q.device, Hq // Hkv
    mask = None if mask is None else mask.to(dev)
    idx = _measure.row_sample(n_q, rows, seed, cache)
    # the measured rows' positions, cached per device: one host -> device
    # copy per shape, not per call
    key = ("device", n_q, rows if idx is not None else None, str(dev))
    if key not in cache:
        cache[key] = (torch.as_tensor(idx, device=dev) if idx is not None
                      else torch.arange(n_q, device=dev))
    pos = cache[key]
    m_all = pos.shape[0]
    zero = torch.zeros((), dtype=torch.float64, device=dev)
    scalars = dict.fromkeys(_SCALARS, zero)
    if mask is not None and window is None:
        scalars["trivial"], scalars["causal_pattern"] = _measure.mask_flags(mask, n_q, n_k,
                                                                          max_bytes)
    qs = q if idx is None else q.index_select(2, pos)
    ms = mask
    if mask is not None and idx is not None and mask.shape[-2] == n_q:
        ms = mask.index_select(2, pos)
    scalars["bad_q"] = (~torch.isfinite(qs)).sum().double()
    scalars["bad_k"] = (~torch.isfinite(k)).sum().double()
    cut = n_q < n_k and window is None and (causal or mask is not None)
    scalars["bad_k_cut"] = (~torch.isfinite(k[:, :, :n_q])).sum().double() if cut \
        else scalars["bad_k"]
    if ms is not None and ms.is_floating_point():
        # its NaN and +inf entries, over blocks of its rows (row_chunks)
        for sl in _measure.row_chunks(ms, max_bytes):
            mb = ms[..., sl, :]
            scalars["bad_mask"] = scalars["bad_mask"] + torch.isnan(mb).sum().double()
            scalars["posinf"] = scalars["posinf"] + (mb == math.inf).sum().double()
    if ms is not None:  # batch', key heads', group', rows', n_k: size-1 axes kept
        ms = ms.unsqueeze(1) if ms.shape[1] == 1 else \
            ms.reshape(ms.shape[0], Hkv, g, *ms.shape[2:])

    def part(ax, a, b):  # of ms's axis ax: [a, b), or its one entry (broadcast)
        return slice(a, b) if ms.shape[ax] > 1 else slice(None)

    bc, hc, mr = block_shape(B, Hkv, g, m_all, n_k, d, max_bytes)
    out = torch.empty(B, Hkv, g, _S + 3, dtype=torch.float64, device=dev)
    qv = qs.reshape(B, Hkv, g, m_all, d)  # a view: one axis split
    for b0 in range(0, B, bc):
        b1 = min(B, b0 + bc)
        for h0 in range(0, Hkv, hc):
            h1 = min(Hkv, h0 + hc)
            kb = k[b0:b1, h0:h1].to(torch.float64)
            kmo = _entries(kb[:, :, None])  # (bc, hc, 1): the same for each query head
            kcut = _entries(kb[:, :, None, :n_q]) if cut else None
            acc = _start((b1 - b0, h1 - h0, g), dev)
            for r0 in range(0, m_all, mr):
                r1 = min(m_all, r0 + mr)
                qb = qv[b0:b1, h0:h1, :, r0:r1].to(torch.float64)
                # the band of this block's rows only: never n_q x n_k at once
                vis = _measure.band(pos[r0:r1], n_k, causal, window, dev)
                vis = None if vis is None else vis.reshape(1, 1, 1, r1 - r0, n_k)
                ab = None
                if ms is not None:
                    mb = ms[part(0, b0, b1), part(1, h0, h1), :, part(3, r0, r1)]
                    vm, ab = _mask_of(mb, scale)
                    vis = vm if vis is None else vis & vm
                _block(acc, qb, kb, vis, ab, scale)
                del qb, vis, ab
            out[b0:b1, h0:h1] = _pack(acc, kmo, kcut)
            del kb
    p = Pending()
    p.trials = out.reshape(B * Hq, _S + 3)
    p.scalars = torch.stack([scalars[n] for n in _SCALARS])
    p.dims, p.heads_kv, p.scale = (B, Hq, n_q, d, n_k), Hkv, scale
    p.causal, p.window, p.masked = bool(causal), window, mask is not None
    p.sampled, p.n_rows = idx is not None, m_all
    return p


def finish(p, trials, scalars, pool="none"):
    """Stats of Pending @p p from its numbers on the CPU (numpy: trials
    (batch * heads_q, fields + 2), scalars); raises _measure.Skip for a call
    the engine would not measure (NaN / Inf: key "nonfinite" with the
    count; a +inf mask entry)."""
    s = dict(zip(_SCALARS, scalars.tolist()))
    B, Hq, n_q, d, n_k = p.dims
    # the mask's _mask_kind (its flags are 0 under a window: "data")
    kind = None if not p.masked else "none" if s["trivial"] > 0 else \
        "causal" if s["causal_pattern"] > 0 else "data"
    n_k, causal, window, masked, cut, _ = _measure.plan(n_q, n_k, p.causal, p.window, kind,
                                                        p.sampled)
    bad = int(s["bad_q"] + (s["bad_k_cut"] if cut else s["bad_k"]) + s["bad_mask"])
    if bad:
        raise _measure.Skip("nonfinite", "%d NaN or infinite values in Q, K or the mask" % bad, bad)
    if s["posinf"]:
        raise _measure.Skip("posinf", "mask: NaN or +inf entry (a float mask holds finite "
                            "values, or -inf to exclude a key)")
    arr = np.ascontiguousarray(trials[:, :_S], dtype=np.float64)
    if cut:
        arr[:, _CUT] = trials[:, _S:]
    spec = L.sv_spec()  # the sizes of the tensors measured (the rows sampled)
    spec.d_k, spec.n_q, spec.n_k, spec.trials = d, p.n_rows, n_k, B * Hq
    spec = _core.spec_of(spec, p.scale, causal, window)
    buf = (L.sv_trial_stats * (B * Hq))()
    st = L.lib.sv_trial_sums_finish(spec, arr.ctypes.data_as(L.P(L.c_dbl)), B * Hq, buf)
    if st != L.SV_OK:
        _core.fail(st, "trial sums")
    return _core.collect(spec, buf, (B, Hq), p.heads_kv, masked, p.scale, pool)


def resolve(pendings):
    """[(Pending, numpy trials, numpy scalars)] for @p pendings: one
    device -> CPU transfer per device (the only synchronisation)."""
    import torch

    by_dev = {}
    for i, p in enumerate(pendings):
        by_dev.setdefault(str(p.trials.device), []).append(i)
    out = [None] * len(pendings)
    for idx in by_dev.values():
        parts = [t for i in idx for t in (pendings[i].trials.reshape(-1), pendings[i].scalars)]
        host = np.split(torch.cat(parts).cpu().numpy(), np.cumsum([t.numel() for t in parts])[:-1])
        for j, i in enumerate(idx):
            p = pendings[i]
            out[i] = (p, host[2 * j].reshape(p.trials.shape), host[2 * j + 1])
    return out


def stats(q, k, *, scale=None, causal=False, mask=None, window=None, rows=None, seed=0,
          pool="none", max_bytes=None):
    """The torch backend on one call, resolved at once (tests, and a
    caller comparing backends): Stats as _measure.run's with @p pool;
    raises _measure.Skip as it does."""
    scale = q.shape[-1] ** -0.5 if scale is None else float(scale)
    p = measure(q, k, scale, causal, mask, window, rows, seed, {}, max_bytes)
    (_, tr, sc), = resolve([p])
    return finish(p, tr, sc, pool)
