"""The monitor on PyTorch's own F.scaled_dot_product_attention (issue 32
§2), with the arguments as PyTorch documents them: is_causal with n_q !=
n_k (top-left: query i sees keys j <= i), enable_gqa, scale, boolean
masks (True = attend) and additive float masks (finite biases and -inf),
broadcast over batch or heads. For each call, first: PyTorch's documented
reference computation (monitor_common.reference_sdpa) gives torch's own
output (relative 1e-5, float32), so its softmax is the one torch took;
then every statistic the monitor reports per head equals that softmax's
(monitor_common.peer, float64, relative 1e-6: float32 inputs).
PyTorch >= 2.1 only (scale=; enable_gqa from 2.5): says SKIP (77) on an
older torch."""

import sys

import torch
import torch.nn as nn
import torch.nn.functional as F

if not hasattr(F, "scaled_dot_product_attention") or \
        tuple(int(x) for x in torch.__version__.split(".")[:2]) < (2, 5):
    print("SKIP: torch %s: the documented SDPA arguments need PyTorch >= 2.5" % torch.__version__)
    sys.exit(77)

import sdpa_var  # noqa: E402
from monitor_common import compare, logits, peer, reference_sdpa  # noqa: E402
from reference import Checker  # noqa: E402

chk = Checker("sdpa_semantics[torch %s]" % torch.__version__)
torch.manual_seed(32)


class AttentionCall(nn.Module):
    """One attention call with fixed arguments: q, k, v are parameters."""

    def __init__(self, b, h, hkv, nq, nk, d, **kw):
        super().__init__()
        self.q = nn.Parameter(torch.randn(b, h, nq, d))
        self.k = nn.Parameter(torch.randn(b, hkv, nk, d))
        self.v = nn.Parameter(torch.randn(b, hkv, nk, d))
        self.kw = kw

    def forward(self):
        return F.scaled_dot_product_attention(self.q, self.k, self.v, **self.kw)


def case(what, b, h, hkv, nq, nk, d, **kw):
    m = AttentionCall(b, h, hkv, nq, nk, d, **kw)
    with torch.no_grad():
        own = m()
        ref = reference_sdpa(m.q, m.k, m.v, **kw)
    chk.close("%s: reference == torch's output" % what, float((own - ref).abs().max()), 0.0,
              abs_=1e-5 * float(ref.abs().max()))
    with sdpa_var.monitor(m) as mon, torch.no_grad():
        m()
        res = mon.step()
    chk.ok(list(res) == ["model"], "%s: one layer" % what, str(list(res)))
    st = next(iter(res.values()))
    k = m.k.detach()
    if kw.get("enable_gqa"):
        k = k.repeat_interleave(h // hkv, -3)
    mask = kw.get("attn_mask")
    vis = torch.ones(nq, nk, dtype=torch.bool).tril() if kw.get("is_causal") else None
    add = None
    if mask is not None and mask.dtype == torch.bool:
        vis = mask if vis is None else vis & mask
    elif mask is not None:
        add = mask
    s, c = logits(m.q.detach(), k, kw.get("scale"), vis, add)
    if add is not None:  # logits() puts -inf where vis says; here where add does
        s = s.masked_fill(torch.isinf(add.double()).expand_as(s), float("-inf"))
    compare(chk, what, st, peer(s, c))


B, H, D = 2, 4, 16
case("is_causal n_q < n_k", B, H, H, 5, 9, D, is_causal=True)
case("is_causal n_q > n_k", B, H, H, 9, 5, D, is_causal=True)
case("scale", B, H, H, 7, 7, D, scale=0.3)
case("enable_gqa", B, 8, 2, 6, 6, D, enable_gqa=True)
case("enable_gqa is_causal scale", B, 8, 2, 6, 10, D, enable_gqa=True, is_causal=True,
     scale=0.5)
g = torch.Generator().manual_seed(5)
keep = torch.rand(B, 1, 6, 8, generator=g) > 0.4
keep[..., 0] = True  # every row sees a key
case("bool mask (B, 1, n_q, n_k)", B, H, H, 6, 8, D, attn_mask=keep)
case("bool mask (n_q, n_k)", B, H, H, 6, 8, D, attn_mask=keep[0, 0])
bias = torch.randn(1, H, 6, 8, generator=g).masked_fill(~keep[:1], float("-inf"))
case("additive mask with -inf (1, H, n_q, n_k)", 1, H, H, 6, 8, D, attn_mask=bias)
case("additive finite mask", B, H, H, 6, 8, D, attn_mask=torch.randn(6, 8, generator=g))
chk.done()
