"""monitor(model): per-layer, per-head attention statistics during training,
from Q and K captured by forward hooks, computed by the engine without the
weight matrix (and without F.scaled_dot_product_attention: torch 1.13).

Modules recognised (docs/python.md, "The monitor"):
- torch.nn.MultiheadAttention, called with query, key (and value)
  positional, as nn.Transformer*Layer call it: q and k are recomputed from
  in_proj_weight / in_proj_bias (or q_proj_weight, k_proj_weight), split
  into num_heads heads as torch does, scale 1/sqrt(head_dim).
- any module with nn.Linear attributes q_proj and k_proj (Llama, GPT-NeoX
  style) and a head count n_heads, num_heads or n_head, optionally
  n_kv_heads or num_key_value_heads (GQA): q_proj(x) and k_proj(x) are
  taken from hooks on the projections themselves (no recomputation),
  split as x.view(batch, n, heads, head_dim).
- a nanoGPT block: an nn.Linear c_attn giving q, k, v side by side
  (split(n_embd, dim=2)) and n_head.
- first of all, any module with hook points hook_q and hook_k (modules
  the q and k the product uses pass through, as TransformerLens's
  HookPoints): their outputs, batch x n x heads x d_head, or batch x heads
  x n x d_head when the module says hook_layout = "bhnd". They see q and k
  after any QK-norm, which hooks on q_proj and k_proj cannot.
Inputs are batch x n x d_model (or n x batch x d_model for an
nn.MultiheadAttention with batch_first False). causal applies to every
layer unless the module has a bool attribute is_causal.
"""

import math

from . import _core

MONITORED = ("raw_entropy", "scaled_entropy", "raw_entropy_norm", "scaled_entropy_norm",
             "raw_max_abs_logit", "scaled_max_abs_logit", "raw_max_weight",
             "scaled_max_weight", "raw_sink_weight", "scaled_sink_weight")


def _heads(m, *names):
    for n in names:
        v = getattr(m, n, None)
        if isinstance(v, int) and v > 0:
            return v
    return None


def _mha_qk(m, args):
    import torch.nn.functional as F

    query, key = args[0], args[1] if len(args) > 1 else args[0]
    if query.dim() == 2:  # unbatched: n x E
        query, key = query.unsqueeze(1), key.unsqueeze(1)
    elif getattr(m, "batch_first", False):
        query, key = query.transpose(0, 1), key.transpose(0, 1)
    e = m.embed_dim
    if m._qkv_same_embed_dim:
        wq, wk = m.in_proj_weight[:e], m.in_proj_weight[e:2 * e]
    else:
        wq, wk = m.q_proj_weight, m.k_proj_weight
    b = m.in_proj_bias
    q = F.linear(query, wq, None if b is None else b[:e])
    k = F.linear(key, wk, None if b is None else b[e:2 * e])
    h, hd = m.num_heads, e // m.num_heads
    # n x batch x E -> batch x n x heads x head_dim (a view: bnhd)
    q = q.view(q.shape[0], q.shape[1], h, hd).transpose(0, 1)
    k = k.view(k.shape[0], k.shape[1], h, hd).transpose(0, 1)
    return q, k


class Monitor:
    """Hooks on a model's attention modules; see monitor()."""

    def __init__(self, model, every=1, causal=False, threads=None):
        import torch.nn as nn

        if isinstance(every, bool) or not isinstance(every, int) or every < 1:
            raise ValueError("every: %r is not a step count >= 1" % (every,))
        self.every, self.causal, self.threads = every, bool(causal), threads
        self.steps = 0
        self.last = {}
        self._pending = {}
        self._handles = []
        self._captured = {}
        self.layers = []
        for name, m in model.named_modules():
            if isinstance(m, nn.MultiheadAttention):
                self._attach(name, m, self._mha_hook(name))
            elif isinstance(getattr(m, "hook_q", None), nn.Module) and \
                    isinstance(getattr(m, "hook_k", None), nn.Module):
                # hook points (TransformerLens): the q, k the product uses,
                # after any QK-norm a hook on q_proj would miss
                self._capture(name, "hq", m.hook_q)
                self._capture(name, "hk", m.hook_k)
                self._attach(name, m, self._proj_hook(name))
            elif isinstance(getattr(m, "q_proj", None), nn.Linear) and \
                    isinstance(getattr(m, "k_proj", None), nn.Linear) and \
                    _heads(m, "n_heads", "num_heads", "n_head"):
                self._capture(name, "q", m.q_proj)
                self._capture(name, "k", m.k_proj)
                self._attach(name, m, self._proj_hook(name))
            elif isinstance(getattr(m, "c_attn", None), nn.Linear) and _heads(m, "n_head",
                                                                               "n_heads"):
                self._capture(name, "qkv", m.c_attn)
                self._attach(name, m, self._proj_hook(name))
        if not self.layers:
            raise ValueError("model: no attention module found (nn.MultiheadAttention, or "
                             "q_proj/k_proj/c_attn with n_heads; docs/python.md)")

    def _active(self):
        return self.steps % self.every == 0 and bool(self._handles)

    def _attach(self, name, m, hook):
        self.layers.append(name or "model")
        self._handles.append(m.register_forward_hook(hook))

    def _capture(self, name, what, proj):
        def hook(mod, inputs, output):
            if self._active():
                self._captured[(name, what)] = output
        self._handles.append(proj.register_forward_hook(hook))

    def _causal(self, m):
        c = getattr(m, "is_causal", None)
        return c if isinstance(c, bool) else self.causal

    def _measure(self, name, m, q, k, layout="bnhd"):
        hd = q.shape[-1]
        s = _core.stats(q, k, layout=layout, scale=1.0 / math.sqrt(hd), causal=self._causal(m),
                        threads=self.threads)
        self._pending[name or "model"] = s

    def _mha_hook(self, name):
        def hook(m, args, output):
            if not self._active() or not args:
                return
            import torch
            with torch.no_grad():
                q, k = _mha_qk(m, args)
            self._measure(name, m, q, k)
        return hook

    def _proj_hook(self, name):
        def hook(m, args, output):
            if not self._active():
                return
            if (name, "hq") in self._captured:
                q = self._captured.pop((name, "hq"))
                k = self._captured.pop((name, "hk"), None)
                if k is not None:
                    layout = getattr(m, "hook_layout", "bnhd")
                    self._measure(name, m, q.detach(), k.detach(), layout)
                return
            if (name, "qkv") in self._captured:
                qkv = self._captured.pop((name, "qkv"))
                e = qkv.shape[-1] // 3
                q, k = qkv[..., :e], qkv[..., e:2 * e]
                h = hkv = _heads(m, "n_head", "n_heads")
            else:
                q = self._captured.pop((name, "q"), None)
                k = self._captured.pop((name, "k"), None)
                if q is None or k is None:
                    return
                h = _heads(m, "n_heads", "num_heads", "n_head")
                hkv = _heads(m, "n_kv_heads", "num_key_value_heads", "num_kv_heads") or h
            if q.dim() == 2:
                q, k = q.unsqueeze(0), k.unsqueeze(0)
            q = q.reshape(q.shape[0], q.shape[1], h, q.shape[-1] // h)
            k = k.reshape(k.shape[0], k.shape[1], hkv, k.shape[-1] // hkv)
            self._measure(name, m, q, k)
        return hook

    def step(self):
        """Ends a training step: returns {layer: Stats} if this step was
        measured (every `every` steps, from the first), else None."""
        measured = self._active()
        self.steps += 1
        self._captured.clear()
        if not measured:
            return None
        self.last, self._pending = self._pending, {}
        return self.last

    def to_dict(self, names=MONITORED):
        """{"layer/head3/raw_entropy": value} of the last measured step,
        the statistics @p names (default: the monitored ones)."""
        out = {}
        for layer, s in self.last.items():
            for key, v in s.to_dict(prefix=layer).items():
                if key.rsplit("/", 1)[1] in names:
                    out[key] = v
        return out

    def remove(self):
        """Removes every hook; the model is as before."""
        for h in self._handles:
            h.remove()
        self._handles = []

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.remove()


def monitor(model, every=1, *, causal=False, threads=None):
    """Attaches forward hooks to @p model's attention modules (module
    docstring) and returns a Monitor: call mon.step() after each training
    step; every @p every steps (the first included) it returns, and keeps
    in mon.last, {layer name: Stats} with per-head (batch x head) entropy,
    normalised entropy, max |logit| raw and scaled, max weight and sink
    share (MONITORED; every per-head column is there). mon.remove() or a
    `with` block detaches it."""
    return Monitor(model, every, causal, threads)
