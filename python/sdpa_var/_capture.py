"""Where the monitor receives Q and K exactly as the softmax sees them:
a wrapper around torch.nn.functional.scaled_dot_product_attention, the
attention functions of HF transformers (ALL_ATTENTION_FUNCTIONS), and
observe() for the caller's own attention code.

The wrappers are installed while at least one Monitor is attached and
removed with the last one (a function someone else installed after us is
left alone). They only look at their arguments and then call the function
they replace with the same arguments: the model's result is unchanged, and
nothing raised by the monitor reaches the model (Monitor._capture catches).
"""

import threading

_MONITORS = []          # attached Monitors, in attach order
_STATE = {"sdpa": None, "hf": None}
_LOCAL = threading.local()  # .inside_hf: an HF function is running (its SDPA is its own)

# torch.nn.functional.scaled_dot_product_attention's parameters, in order, as
# PyTorch 2.5 documents them; 2.0 lacks scale and enable_gqa, 2.1 adds scale.
SDPA_PARAMS = ("query", "key", "value", "attn_mask", "dropout_p", "is_causal", "scale",
               "enable_gqa")


def sdpa_available():
    """True if torch.nn.functional has scaled_dot_product_attention (PyTorch
    >= 2.0, or a function the caller installed under that name)."""
    import torch.nn.functional as F

    return callable(getattr(F, "scaled_dot_product_attention", None))


def parse_sdpa(args, kwargs):
    """The call's arguments by name, with PyTorch's defaults."""
    call = {"attn_mask": None, "dropout_p": 0.0, "is_causal": False, "scale": None,
            "enable_gqa": False}
    call.update(zip(SDPA_PARAMS, args))
    call.update(kwargs)
    return call


def _make_sdpa_wrapper(original):
    def scaled_dot_product_attention(*args, **kwargs):
        if _MONITORS and not getattr(_LOCAL, "inside_hf", False):
            try:
                call = parse_sdpa(args, kwargs)
                q, k = call["query"], call["key"]
            except Exception:  # a call torch itself will reject: let it say so
                call = None
            for mon in list(_MONITORS) if call is not None else ():
                mon._capture("sdpa", None, q, k, call["scale"], bool(call["is_causal"]),
                             call["attn_mask"], None)
        return original(*args, **kwargs)

    scaled_dot_product_attention.__wrapped__ = original
    scaled_dot_product_attention.__doc__ = getattr(original, "__doc__", None)
    scaled_dot_product_attention._sdpa_var_wrapper = True
    return scaled_dot_product_attention


def _hf_functions():
    """transformers' ALL_ATTENTION_FUNCTIONS mapping, or None. Untested
    here (transformers is not installed on the project's machines)."""
    try:
        from transformers.modeling_utils import ALL_ATTENTION_FUNCTIONS
    except Exception:  # not installed, or a version without it
        return None
    return getattr(ALL_ATTENTION_FUNCTIONS, "_global_mapping", ALL_ATTENTION_FUNCTIONS)


def _make_hf_wrapper(original):
    # transformers >= 4.48: fn(module, query, key, value, attention_mask,
    # scaling=None, dropout=0.0, **kwargs); query B x H x q x d after RoPE,
    # key B x H_kv x kv x d; attention_mask additive or boolean B x 1 x q x kv
    # (possibly longer than kv), or None when the module is causal.
    def attention(module, query, key, value, attention_mask, *args, **kwargs):
        if _MONITORS:
            try:
                scaling = kwargs.get("scaling", args[0] if args else None)
                mask = attention_mask
                if mask is not None and mask.dim() == 4:
                    mask = mask[:, :, :, :key.shape[-2]]
                causal = kwargs.get("is_causal", None)
                if causal is None:
                    causal = mask is None and query.shape[-2] > 1 and \
                        getattr(module, "is_causal", True) is not False
                window = kwargs.get("sliding_window", None)
            except Exception:  # never into the model's forward
                module = None
            for mon in list(_MONITORS) if module is not None else ():
                mon._capture("hf", module, query, key, scaling, bool(causal), mask, window)
        _LOCAL.inside_hf = True
        try:
            return original(module, query, key, value, attention_mask, *args, **kwargs)
        finally:
            _LOCAL.inside_hf = False

    attention.__wrapped__ = original
    return attention


def attach(mon):
    """Adds @p mon to the monitors the wrappers feed; installs the wrappers
    with the first one."""
    import torch.nn.functional as F

    if not _MONITORS:
        f = getattr(F, "scaled_dot_product_attention", None)
        if callable(f) and not getattr(f, "_sdpa_var_wrapper", False):
            w = _make_sdpa_wrapper(f)
            F.scaled_dot_product_attention = w
            _STATE["sdpa"] = (f, w)
        table = _hf_functions()
        if table is not None:
            saved = {}
            for key in list(table.keys()):
                saved[key] = table[key]
                table[key] = _make_hf_wrapper(table[key])
            _STATE["hf"] = (table, saved)
    _MONITORS.append(mon)


def detach(mon):
    """Removes @p mon; with the last one, puts back what attach() replaced
    (unless someone replaced our wrapper since: theirs stays)."""
    import torch.nn.functional as F

    if mon in _MONITORS:
        _MONITORS.remove(mon)
    if _MONITORS:
        return
    if _STATE["sdpa"] is not None:
        original, wrapper = _STATE["sdpa"]
        if getattr(F, "scaled_dot_product_attention", None) is wrapper:
            F.scaled_dot_product_attention = original
        _STATE["sdpa"] = None
    if _STATE["hf"] is not None:
        table, saved = _STATE["hf"]
        for key, fn in saved.items():
            if getattr(table.get(key), "__wrapped__", None) is fn:
                table[key] = fn
        _STATE["hf"] = None


def observe(q, k, *, scale=None, causal=False, mask=None, window=None, name=None,
            layout="bhnd"):
    """Hands Q and K, as the softmax of the caller's attention code sees
    them, to every attached monitor; does nothing (and costs nothing) when
    no monitor is attached or the step is not measured.

    q: batch x heads x n_q x d (layout "bhnd") or batch x n_q x heads x d
    ("bnhd"); k the same with n_k keys and heads_q a multiple of its heads
    (GQA, as repeat_interleave). scale: the multiplier of q.k (None:
    1/sqrt(d)). causal: query i sees keys j <= i (top-left when n_q !=
    n_k). mask: boolean (True = attend) or additive float, broadcastable to
    batch x heads x n_q x n_k, as F.scaled_dot_product_attention's
    attn_mask. window: query i sees keys i-window < j <= i (causal) or
    |i-j| < window. name: the layer name in the monitor's output (default:
    the innermost monitored module running). Never raises because of the
    values; raises ValueError for a layout it does not know.
    """
    if layout not in ("bhnd", "bnhd"):
        raise ValueError("layout: %r is not 'bhnd' or 'bnhd'" % (layout,))
    if not _MONITORS:
        return
    if layout == "bnhd":
        try:
            q, k = q.transpose(1, 2), k.transpose(1, 2)
        except Exception:
            pass  # _capture warns about what it cannot measure
    for mon in list(_MONITORS):
        mon._capture("observe", name, q, k, scale, bool(causal), mask, window)
