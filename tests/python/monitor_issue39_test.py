"""Issue 39 item 4 ("never silently wrong"), the findings plain torch shows
(no transformers): reduce="batch" weights each batch element by its rows
that see a key; a checkpoint's recompute in backward is not measured again.
Truth: torch from the full weight matrix (float64), or the same model run
without checkpointing. HF models: tests/hf/monitor_issue39_test.py.
"""

import math
import sys
import warnings

import torch
import torch.nn as nn

import sdpa_var
from monitor_common import skip_masked
from reference import Checker

chk = Checker("monitor_issue39[torch %s]" % torch.__version__)
B, H, N, D = 2, 3, 10, 8
PAD = 6  # batch element 1: its first PAD tokens are left padding


class Attention(nn.Module):
    """Causal self-attention over a left-padded batch; Q, K handed to
    observe() (the path every torch has), the softmax's mask with them."""

    def __init__(self):
        super().__init__()
        self.q, self.k, self.v = (nn.Linear(H * D, H * D) for _ in range(3))
        self.o = nn.Linear(H * D, H * D)

    def split(self, x):
        return x.reshape(x.shape[0], x.shape[1], H, D).transpose(1, 2)

    def forward(self, x):
        q, k, v = self.split(self.q(x)), self.split(self.k(x)), self.split(self.v(x))
        sdpa_var.observe(q, k, mask=visible())
        s = (q @ k.transpose(-1, -2)) * D ** -0.5
        s = s.masked_fill(~visible(), -math.inf)
        p = torch.nan_to_num(torch.softmax(s, -1))  # rows that see no key: 0
        out = (p @ v).transpose(1, 2).reshape(x.shape)
        return x + self.o(out)


def visible():
    """bool B x 1 x N x N: causal, and element 1's padding keys excluded
    (its first PAD rows see no key)."""
    vis = torch.ones(N, N, dtype=torch.bool).tril().expand(B, 1, N, N).clone()
    vis[1, :, :, :PAD] = False
    return vis


def model():
    torch.manual_seed(39)
    return nn.Sequential(Attention(), Attention())


def truth(q, k):
    """Per head, over every row of the batch that sees a key (the pooled
    mean: each element weighted by its rows that see one)."""
    s = (q.double() @ k.double().transpose(-1, -2)) * D ** -0.5
    vis = visible()
    s = s.masked_fill(~vis, -math.inf)
    rows = vis.any(-1).expand(B, H, N)  # B x H x N
    p = torch.nan_to_num(torch.softmax(s, -1))
    ent = -torch.where(p > 0, p * p.clamp(min=1e-300).log(), torch.zeros_like(p)).sum(-1)
    out = {}
    for name, v in (("scaled_entropy", ent), ("scaled_max_weight", p.amax(-1))):
        out[name] = (v * rows).sum((0, 2)) / rows.sum((0, 2))
    return out


def section_batch_weights():
    """reduce="batch": element 1 has N - PAD rows that see a key, element 0
    has N; the plain mean over elements weighs them alike."""
    if skip_masked(chk, "the batch weights (a padded batch)"):
        return
    m = model()
    x = torch.randn(B, N, H * D, generator=torch.Generator().manual_seed(1))
    a = m[0]
    with torch.no_grad():
        q, k = a.split(a.q(x)), a.split(a.k(x))
        with sdpa_var.monitor(m, hooks=False) as mon:
            m(x)
            res = mon.step()
    st = res["0"]
    for name, want in truth(q, k).items():
        for h in range(H):
            chk.close("batch weights %s[h=%d]" % (name, h), st.values[name][h], want[h],
                      rel=1e-9)


class Net(nn.Module):
    """Two blocks, each called through @p wrap (a checkpoint, as HF's
    gradient_checkpointing_enable() does inside the model's forward)."""

    def __init__(self, wrap):
        super().__init__()
        self.blocks, self.wrap = model(), wrap

    def forward(self, x):
        for block in self.blocks:
            x = self.wrap(block, x)
        return x


def train_step(m, x):
    """One monitored training forward and backward; {layer: Stats}."""
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        with sdpa_var.monitor(m, hooks=False) as mon:
            m(x).sum().backward()
            res = mon.step()
    msgs = [str(x.message) for x in w if str(x.message).startswith("sdpa_var")]
    return res, msgs


def section_checkpoint():
    """torch.utils.checkpoint runs each block's forward again in backward:
    that recompute is not a second call."""
    from torch.utils.checkpoint import checkpoint

    if skip_masked(chk, "the checkpoint recompute (a padded batch)"):
        return
    x = torch.randn(B, N, H * D, generator=torch.Generator().manual_seed(2),
                    requires_grad=True)
    want, _ = train_step(Net(lambda block, h: block(h)).train(), x)
    for reentrant in (True, False):
        def wrap(block, h):
            return checkpoint(block, h, use_reentrant=reentrant)

        what = "checkpoint(use_reentrant=%s)" % reentrant
        got, msgs = train_step(Net(wrap).train(), x)
        chk.ok(not msgs, "%s: no warning" % what, str(msgs))
        chk.ok(sorted(got) == sorted(want), "%s: the same layers" % what, str(sorted(got)))
        for name in sorted(set(got) & set(want)):
            g, r = got[name], want[name]
            chk.ok(g.config["calls"] == "1", "%s %s: one call" % (what, name),
                   "calls %s" % g.config["calls"])
            for stat in ("scaled_entropy", "scaled_max_weight", "scaled_max_logit",
                         "rows_empty"):
                for h in range(H):
                    chk.close("%s %s %s[h=%d]" % (what, name, stat, h), g.values[stat][h],
                              r.values[stat][h], rel=1e-12)


class TrilAttention(nn.Module):
    """minGPT's attention: a lower-triangular `bias` buffer says causal."""

    def __init__(self):
        super().__init__()
        self.c_attn = nn.Linear(H * D, 3 * H * D)
        self.register_buffer("bias", torch.tril(torch.ones(N, N)).view(1, 1, N, N))

    def forward(self, x):
        return self.c_attn(x)


def section_devices():
    """Q, K and masks on a device other than the CPU (meta here, which has
    no values; CUDA the same way): the monitor's own tensors (a causal
    `bias` buffer's pattern, a bool mask made additive, a row band joined
    to a mask) are made on that device. They were made on the CPU:
    monitor() raised RuntimeError for a model with such a buffer, and every
    such call was refused ("Tensor on device cpu is not on the expected
    device") instead of measured."""
    from sdpa_var import _modules

    m = nn.Sequential(TrilAttention()).to("meta")
    try:
        mon = sdpa_var.monitor(m, hooks=False)
        mon.remove()
        chk.ok(True, "monitor() of a model on meta with a tril bias buffer")
    except Exception as e:  # noqa: BLE001 (the finding: any exception)
        chk.ok(False, "monitor() of a model on meta with a tril bias buffer",
               "%s: %s" % (type(e).__name__, e))
    vis = torch.ones(1, 1, N, N, dtype=torch.bool, device="meta")
    band = torch.ones(N, N, dtype=torch.bool).tril()  # the engine's, on the CPU
    for what, f in (("as_additive", lambda: _modules.as_additive(vis, torch.float32)),
                    ("combine bool", lambda: _modules.combine(vis, band)),
                    ("combine float", lambda: _modules.combine(
                        _modules.as_additive(vis, torch.float32), band))):
        try:
            dev = f().device.type
        except RuntimeError as e:
            dev = "RuntimeError: %s" % e
        chk.ok(dev == "meta", "%s keeps the mask's device" % what, dev)


SECTIONS = {"batch_weights": section_batch_weights, "checkpoint": section_checkpoint,
            "devices": section_devices}


def main(names):
    for name in names or SECTIONS:
        SECTIONS[name]()
    chk.done()


if __name__ == "__main__":
    main(sys.argv[1:])
