"""What the monitor reads from a model's attention modules: which kind of
module it is; for the two kinds hooks serve (nn.MultiheadAttention and
TransformerLens-style hook points) the scale its softmax uses, whether it
is causal, its mask, and Q and K as its softmax sees them; whether a
hook-point module rotates or normalises Q, K after hook_q/hook_k.

Everything here is read at monitor() time or from one call's arguments; it
never runs the model. Tensors come out as batch x heads x n x d (bhnd).
"""

import inspect
import math
import numbers
import sys

from . import _arrays

# Attributes and config keys that mean "Q and K are rotated (or normalised)
# after hook_q/hook_k": without hook_rot_q/hook_rot_k those hook points see
# the wrong Q, K (a refusal, never a reading of the model's numbers).
ROTARY_ATTRS = ("rotary_emb", "rotary_fn", "rope", "rotary", "rotary_embedding",
                "pos_embeddings", "embed_positions")  # torchtune, GPT-J
# forward() arguments that carry a position transform into the module
# (transformers >= 5 passes position_embeddings = (cos, sin); Llama-style
# code cos, sin or freqs_cis): the projections are then before it.
ROTARY_ARGS = ("position_embeddings", "cos", "sin", "freqs_cis", "rotary_pos_emb",
               "rope_cache", "pos_emb", "rotary_emb")
QK_NORM_ATTRS = ("q_norm", "k_norm", "q_layernorm", "k_layernorm")


def as_number(x, what):
    """A Python float from a number or a 0-dim tensor/array; None if @p x
    is none of them. Raises ValueError for a tensor of more than one value."""
    if isinstance(x, bool) or x is None:
        return None
    x = _arrays.scalar(x, what)
    return float(x) if isinstance(x, numbers.Real) else None


def transforms_after_projection(m):
    """The reason (a short text) why hook points hook_q/hook_k of @p m
    would not see the Q and K its softmax sees, or None."""
    for a in ROTARY_ATTRS:
        if getattr(m, a, None) is not None:
            return "rotary embeddings (attribute %r)" % a
    try:
        params = inspect.signature(m.forward).parameters
    except (TypeError, ValueError):
        params = {}
    for a in ROTARY_ARGS:
        if a in params:
            return "a position transform passed to forward (argument %r)" % a
    cfg = getattr(m, "config", None)
    if cfg is not None:
        if getattr(cfg, "rope_theta", None) is not None:
            return "rotary embeddings (config.rope_theta)"
        if getattr(cfg, "position_embedding_type", None) == "rotary":
            return "rotary embeddings (config.position_embedding_type='rotary')"
    for a in QK_NORM_ATTRS:
        v = getattr(m, a, None)
        if v is not None and type(v).__name__ != "Identity":
            return "a QK-norm (attribute %r)" % a
    return None


def module_causal(m):
    """True/False from @p m's is_causal, or True for a lower-triangular 0/1
    (or bool) `bias` buffer, ... x T x T (nanoGPT, older GPT-2); None if
    neither says."""
    import torch

    c = getattr(m, "is_causal", None)
    if isinstance(c, bool):
        return c
    b = getattr(m, "bias", None)
    if not isinstance(b, torch.Tensor) or isinstance(b, torch.nn.Parameter) or b.dim() < 2 \
            or b.shape[-1] != b.shape[-2] or b.shape[-1] < 2 or b.is_complex() \
            or b.device.type == "meta":  # no values to read
        return None
    t = b.reshape(-1, b.shape[-2], b.shape[-1])[0]
    want = torch.ones(t.shape, dtype=torch.bool, device=t.device).tril()
    return True if bool(((t != 0) == want).all()) and bool(((t == 0) | (t == 1)).all()) else None


def is_projection(p):
    """A Linear-like module: nn.Linear or GPT-2's Conv1D (a 2-D weight)."""
    w = getattr(p, "weight", None)
    return w is not None and hasattr(w, "dim") and w.dim() == 2


def is_hf(m):
    """@p m is a module of HF transformers (its class is defined there):
    its attention goes through the function its config selects."""
    return type(m).__module__.startswith("transformers.")


def hf_inline_refusal(model, modules, names):
    """Why monitor() refuses @p model, or None: the HF modules of @p
    modules (named by @p names, id -> name) that run attn_implementation=
    "eager" (the model's config) from a modeling file without eager_
    attention_forward compute it inline (BERT in transformers 4.x), so
    neither the eager wrapper nor SDPA capture sees their Q and K. The first
    way out: "sdpa" where HF has it for the model's class (its
    _supports_sdpa, which HF's own check reads), else what HF lacks."""
    cfg = getattr(model, "config", None)
    if getattr(cfg, "_attn_implementation", None) != "eager":
        return None
    inline = [m for m in modules if is_hf(m) and not callable(
        getattr(sys.modules.get(type(m).__module__), "eager_attention_forward", None))]
    if not inline:
        return None
    hf = [m for m in model.modules() if isinstance(getattr(type(m), "_supports_sdpa", None),
                                                   bool)]
    if hf and type(hf[0])._supports_sdpa:
        advice = "load the model with attn_implementation=\"sdpa\", or "
    else:
        advice = ("HF has no attn_implementation=\"sdpa\" for %s (its _supports_sdpa is "
                  "False), so " % type((hf or [model])[0]).__name__)
    return ("model: %s compute%s eager attention inline (transformers %s has no "
            "eager_attention_forward in %s), where the monitor cannot read Q and K as the "
            "softmax sees them; %scall sdpa_var.observe(q, k, ...) in its forward with "
            "monitor(model, hooks=False)"
            % (", ".join(repr(names[id(m)]) for m in inline), "s" if len(inline) == 1 else "",
               getattr(sys.modules.get("transformers"), "__version__", "?"),
               ", ".join(sorted({type(m).__module__ for m in inline})), advice))


def kind_of(m):
    """What @p m is to the monitor: "mha" or "tl" (hook points), whose Q
    and K hooks read; "proj" (q_proj/k_proj), "c_attn", "qkv",
    "query_key_value" or "attn" (named like attention), attention modules
    that SDPA capture, the HF wrappers and observe() attribute calls to,
    never hooked; None for any other module."""
    import torch.nn as nn

    if isinstance(m, nn.MultiheadAttention):
        return "mha"
    if isinstance(getattr(m, "hook_q", None), nn.Module) and \
            isinstance(getattr(m, "hook_k", None), nn.Module):
        return "tl"
    if is_projection(getattr(m, "q_proj", None)) and is_projection(getattr(m, "k_proj", None)):
        return "proj"
    for a in ("c_attn", "qkv", "query_key_value"):
        if is_projection(getattr(m, a, None)):
            return a
    if "attention" in type(m).__name__.lower():
        return "attn"
    return None


def mha_qk(m, query, key):
    """Q and K (bhnd) of nn.MultiheadAttention @p m for inputs @p query,
    @p key, recomputed from in_proj as torch does, K with the keys torch
    appends: bias_k (add_bias_kv=True), then a zero key (add_zero_attn)."""
    import torch
    import torch.nn.functional as F

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
    if getattr(m, "bias_k", None) is not None:  # n x batch x E, as torch
        k = torch.cat([k, m.bias_k.repeat(1, k.shape[1], 1)])
    if getattr(m, "add_zero_attn", False):
        k = torch.cat([k, k.new_zeros((1,) + tuple(k.shape[1:]))])
    # n x batch x E -> batch x heads x n x head_dim
    return tuple(x.transpose(0, 1).reshape(x.shape[1], x.shape[0], m.num_heads, -1)
                 .transpose(1, 2) for x in (q, k))


def hook_qk(kind, m, caps, call, causal, given=None):
    """(q, k, scale, scale source, causal, mask) of one call of module @p m
    of @p kind ("mha" or "tl", the kinds hooks serve) from what the
    monitor's hooks kept: @p caps {what: (output, first input)} of its hook
    points, @p call nn.MultiheadAttention's bound arguments; @p causal the
    default. The scale (the multiplier of q.k): @p given (monitor(scale=))
    first; then TransformerLens' attn_scale, a divisor (one number); else
    1/sqrt(d). None if they hold no Q and K."""
    import torch

    mask = None
    if kind == "mha":
        if call is None:
            return None
        q, k = mha_qk(m, call["query"], call["key"])
        pad = call.get("key_padding_mask")
        causal = bool(call.get("is_causal", False))  # then attn_mask is the causal one
        # the keys torch appends to the call's own: bias_k, the zero key
        extra = int(getattr(m, "bias_k", None) is not None) + int(bool(getattr(
            m, "add_zero_attn", False)))
        if extra and call.get("attn_mask") is not None:
            causal = False  # torch pads the causal attn_mask: every query sees the extra keys
        mask = mha_mask(m, None if causal else call.get("attn_mask"), pad, q.shape[0],
                        q.shape[2], k.shape[2] - extra, extra)
        if call["query"] is not call["key"]:
            causal = False  # cross-attention
        default = q.shape[-1] ** -0.5, "nn.MultiheadAttention 1/sqrt(d)"
    else:  # "tl": the monitor hooks no other kind (kind_of's others are served by capture)
        q = caps.get("hook_rot_q", caps.get("hook_q"))
        k = caps.get("hook_rot_k", caps.get("hook_k"))
        if q is None or k is None:
            return None
        q, k = q[0], k[0]
        if getattr(m, "hook_layout", "bnhd") != "bhnd":  # batch x pos x heads x d
            if _tl_cfg(m, "use_logn_attn") is True and not getattr(m, "training", False):
                # Qwen-1's log-n past the training length, in eval: each query
                # row scaled after the hook points, offset by the cached keys
                q = m._apply_logn_scaling(q, k.shape[1] - q.shape[1])
            q, k = q.transpose(1, 2), k.transpose(1, 2)
        if "hook_attn_scores" in caps:  # masked, scaled scores: the fill where excluded
            s = caps["hook_attn_scores"][0]
            # the fill as stored in s's dtype (-1e5 is -inf in float16)
            mask, causal = s != torch.tensor(tl_fill(m, s), dtype=s.dtype), False
            if _tl_cfg(m, "positional_embedding_type") == "alibi":
                # the ALiBi bias (heads x n_q x n_k), added before hook_attn_scores
                alibi = m.alibi[:, -q.shape[-2]:, :k.shape[-2]]
                mask = combine(mask, alibi.to(s.dtype))
        x = None if given is not None else as_number(getattr(m, "attn_scale", None),
                                                     "attn_scale")
        ok = x is not None and math.isfinite(x) and x > 0
        default = (1.0 / x, "1/module.attn_scale") if ok else (q.shape[-1] ** -0.5, "1/sqrt(d)")
    scale, source = default if given is None else (given, "scale=")
    return q, k, scale, source, causal, mask


def _tl_cfg(m, name, default=None):
    return getattr(getattr(m, "cfg", None), name, default)


def tl_refusal(m):
    """Why the softmax of TransformerLens module @p m sees something its
    hook points cannot state (the config field, as a sentence), or None."""
    if type(m).__module__.startswith("transformer_lens.model_bridge"):
        return ("TransformerLens 4's TransformerBridge (%s) computes attention in its own "
                "code, which neither its hook points nor the HF wrappers read as the softmax "
                "sees it; monitor a HookedTransformer (TransformerLens 3) or the HF model "
                "without the bridge" % type(m).__name__)
    cap = _tl_cfg(m, "attn_scores_soft_cap")
    if isinstance(cap, numbers.Real) and cap > 0:
        return ("cfg.attn_scores_soft_cap=%r: the softmax sees cap*tanh(score/cap), not the "
                "scaled scores" % (cap,))
    if _tl_cfg(m, "use_attention_sinks") is True:
        return "cfg.use_attention_sinks: a learned logit joins each row's softmax denominator"
    if _tl_cfg(m, "positional_embedding_type") == "relative_positional_bias":
        return ("cfg.positional_embedding_type='relative_positional_bias': a bias passed to "
                "forward is added to the scores")
    if _tl_cfg(m, "clip_qkv") is not None and getattr(m, "hook_rot_q", None) is None:
        return "cfg.clip_qkv: Q and K are clamped after hook_q/hook_k"
    if _tl_cfg(m, "use_logn_attn") is True and not callable(getattr(m, "_apply_logn_scaling",
                                                                    None)):
        return "cfg.use_logn_attn: Q is scaled per row after the hook points"
    return None


def tl_fill(m, s):
    """The value TransformerLens-style module @p m fills excluded scores
    with in its hook_attn_scores output @p s: its IGNORE buffer or
    attribute (-inf in recent TransformerLens, -1e5 in older versions and
    ARENA-style code), else -inf if @p s holds any, else the one exact
    constant above the diagonal of every square score matrix (the causal
    fill), else -inf (no entry excluded)."""
    import torch

    try:
        x = as_number(getattr(m, "IGNORE", None), "IGNORE")
    except (TypeError, ValueError):
        x = None
    if x is not None:
        return x
    if bool(torch.isneginf(s).any()):
        return -math.inf
    n = s.shape[-1]
    if s.dim() >= 2 and s.shape[-2] == n and n >= 2:
        up = s[..., torch.ones(n, n, dtype=torch.bool).triu(1)]
        c = up.reshape(-1)[0]
        low = s[..., torch.ones(n, n, dtype=torch.bool).tril()]
        if bool((up == c).all()) and bool((low > c).all()):
            return float(c)
    return -math.inf


def mha_mask(m, attn_mask, key_padding_mask, batch, n_q, n_k, extra=0):
    """nn.MultiheadAttention's masks (True = excluded for bool ones) as
    one mask in SDPA's convention (bool True = attend, or additive float),
    broadcastable to batch x heads x n_q x (n_k + @p extra), the @p extra
    keys torch appends (bias_k, zero key) visible; None if no mask."""
    import torch
    import torch.nn.functional as F

    out = None
    if attn_mask is not None:
        a = attn_mask
        if a.dim() == 3:  # (batch*heads) x n_q x n_k
            a = a.reshape(batch, m.num_heads, n_q, n_k)
        out = ~a if a.dtype == torch.bool else a
    if key_padding_mask is not None:
        p = key_padding_mask.reshape(batch, 1, 1, n_k)
        p = ~p if p.dtype == torch.bool else p
        out = p if out is None else combine(out, p)
    if out is not None and extra:
        out = F.pad(out, (0, extra), value=True if out.dtype == torch.bool else 0.0)
    return out


def combine(a, b):
    """Two SDPA-convention masks as one (and of bool ones, else a sum), on
    @p a's device."""
    import torch

    b = b.to(a.device)
    if a.dtype == torch.bool and b.dtype == torch.bool:
        return a & b
    dt = a.dtype if a.is_floating_point() else b.dtype
    return as_additive(a, dt) + as_additive(b, dt)


def as_additive(a, dtype):
    import torch

    if a.dtype == torch.bool:
        return torch.zeros(a.shape, dtype=dtype, device=a.device).masked_fill(~a, -math.inf)
    return a.to(dtype)
