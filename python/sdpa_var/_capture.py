"""Where the monitor receives Q and K exactly as the softmax sees them:
a wrapper around torch.nn.functional.scaled_dot_product_attention, the
attention functions of HF transformers (ALL_ATTENTION_FUNCTIONS), and
observe() for the caller's own attention code; and the arguments of
nn.MultiheadAttention.forward, for the monitor's hooks.

The wrappers are installed while at least one Monitor that needs them is
attached and removed with the last one (_hold, detach; a function someone
else installed after us is left alone). They only look at their arguments
and then call the function they replace with the same arguments: the
model's result is unchanged, and nothing raised by the monitor reaches the
model (Monitor._capture catches).
"""

import inspect
import sys
import threading
from collections.abc import MutableMapping

from . import _modules

_MONITORS = []          # attached Monitors, in attach order
# .inside_hf: an HF function measured (or refused) itself is running, so its
# SDPA call is not measured again; .hf_module: the HF module whose "sdpa"
# function is running (its SDPA call is measured, in that module's name).
_LOCAL = threading.local()

# torch.nn.functional.scaled_dot_product_attention's parameters, in order, as
# PyTorch 2.5 documents them (2.0 lacks scale and enable_gqa, 2.1 adds
# scale), with their defaults (query, key and value have none).
SDPA_PARAMS = ("query", "key", "value", "attn_mask", "dropout_p", "is_causal", "scale",
               "enable_gqa")
SDPA_DEFAULTS = {"attn_mask": None, "dropout_p": 0.0, "is_causal": False, "scale": None,
                 "enable_gqa": False}


def normalize_mask(mask):
    """An additive float mask with the model's "excluded" fill read as
    excluded: entries at or below half the dtype's lowest value (HF fills
    with torch.finfo(dtype).min) become -inf. The softmax gives them weight
    exactly 0 either way; read as numbers they would be logits of -3e38 in
    the variance and the max |logit|. Other masks are returned as they are."""
    import torch

    if isinstance(mask, torch.Tensor) and mask.is_floating_point():
        low = torch.finfo(mask.dtype).min / 2
        # unconditionally: testing for such entries first (bool(any())) would
        # wait for a GPU in the model's forward (the torch backend never does)
        mask = mask.masked_fill(mask <= low, float("-inf"))
    return mask


def no_compile(fn):
    """@p fn, which torch.compile (Dynamo) runs eagerly behind a graph break
    rather than tracing into (torch.compiler.disable, PyTorch >= 2.1; the
    function itself where torch has no compiler): the monitor's entry
    points read tensors' values and keep Python state, which a traced graph
    would drop or fail on."""
    import torch

    off = getattr(getattr(torch, "compiler", None), "disable", None)
    return off(fn) if callable(off) else fn


# torch.utils.checkpoint's functions that run the forward again in backward
# (PyTorch 1.13, which has no graph task id to ask)
_RECOMPUTE = {("checkpoint.py", "backward"), ("checkpoint.py", "unpack"),
              ("checkpoint.py", "unpack_hook"), ("checkpoint.py", "recompute_fn")}


def in_backward():
    """True while autograd's backward runs (a checkpoint's recompute of the
    forward, which the monitor measured once already): PyTorch's graph task
    id where it has one, else a torch.utils.checkpoint recompute frame on
    the stack."""
    import torch

    task = getattr(torch._C, "_current_graph_task_id", None)
    if task is not None:
        return task() != -1
    f = sys._getframe(1)
    while f is not None:
        c = f.f_code
        if (c.co_filename.rsplit("/", 1)[-1], c.co_name) in _RECOMPUTE and \
                "torch" in c.co_filename:
            return True
        f = f.f_back
    return False


def _feed_sdpa(args, kwargs):
    if _MONITORS and not getattr(_LOCAL, "inside_hf", False):
        who = getattr(_LOCAL, "hf_module", None)  # HF's "sdpa": its module
        try:
            call = {**SDPA_DEFAULTS, **dict(zip(SDPA_PARAMS, args)), **kwargs}
            q, k = call["query"], call["key"]
            mask = normalize_mask(call["attn_mask"])
        except Exception:  # a call torch itself will reject: let it say so
            call = None
        for mon in list(_MONITORS) if call is not None else ():
            mon._capture("sdpa", who, q, k, call["scale"], bool(call["is_causal"]),
                         mask, None)


def _wrapper(original, feed):
    """A function of original's name and doc that hands its arguments to
    feed(args, kwargs) (run eagerly under torch.compile: no_compile) and
    returns original(*args, **kwargs), marked as ours (_hold)."""
    feed = no_compile(feed)

    def wrapper(*args, **kwargs):
        feed(args, kwargs)
        return original(*args, **kwargs)

    wrapper.__name__ = wrapper.__qualname__ = getattr(original, "__name__", "wrapper")
    wrapper.__wrapped__, wrapper.__doc__ = original, getattr(original, "__doc__", None)
    wrapper._sdpa_var_wrapper = True
    return wrapper


class Refuse(Exception):
    """An HF attention call whose softmax input the monitor cannot state:
    the message names the feature."""


def _hf_refusals(kind, kwargs, mask):
    """Raises Refuse for what changes the softmax beyond Q, K, the scale and
    the mask (transformers 4.48 to 5.x keyword names)."""
    if kwargs.get("softcap") is not None:
        raise Refuse("attention logit softcapping (softcap=%r): the softmax sees "
                     "cap*tanh(logit/cap), not the scaled logits; set the config's "
                     "attn_logit_softcapping=None to measure" % (kwargs["softcap"],))
    for sink in ("s_aux", "sinks"):
        if kwargs.get(sink) is not None:
            raise Refuse("attention sinks (%s): a learned logit joins each row's "
                         "softmax denominator" % sink)
    if kwargs.get("head_mask") is not None:
        raise Refuse("a head_mask multiplies the weights after the softmax")
    if mask is not None and not hasattr(mask, "dim"):
        raise Refuse("attn_implementation %r passes a %s, not a tensor mask; use "
                     "'eager' or 'sdpa'" % (kind, type(mask).__name__))
    if kind not in ("eager", "sdpa"):
        raise Refuse("attn_implementation %r: the monitor reads 'eager' and 'sdpa' "
                     "(and F.scaled_dot_product_attention calls)" % (kind,))


# Tensor keywords an HF attention call may carry that do not change the
# logits (positions for the mask or the kernels, flash's sequence bounds).
HARMLESS = ("position_ids", "cache_position", "cu_seq_lens_q", "cu_seq_lens_k",
            "max_length_q", "max_length_k", "attention_mask")
# The one way an eager_attention_forward may use position_bias (T5 and its
# family in transformers 5): added to the scaled logits, like the mask.
_BIAS_LINES = ("position_bias:", "position_bias=", "if position_bias is not None:",
               "attn_weights = attn_weights + position_bias")


def bias_added(fn):
    """True if @p fn's source uses position_bias only as an additive term
    of the scaled logits (_BIAS_LINES), False otherwise (or unreadable)."""
    try:
        src = inspect.getsource(fn)
    except (OSError, TypeError):
        return False
    lines = [ln.split("#")[0].strip() for ln in src.splitlines()]
    used = [ln for ln in lines if "position_bias" in ln]
    return bool(used) and all(ln.startswith(_BIAS_LINES) for ln in used) and \
        any(ln == _BIAS_LINES[-1] for ln in used)


def _eager_extras(named, bias_ok):
    """The additive mask term of an eager call's keywords (position_bias
    where the function adds it to the logits), or None; raises Refuse for
    a position_bias used otherwise and any other tensor keyword it does not
    know (it may change the logits)."""
    bias = named.get("position_bias")
    if bias is not None and not bias_ok:
        raise Refuse("position_bias: this eager_attention_forward does not add it to the "
                     "scaled logits as one additive term")
    unknown = sorted(n for n, v in named.items() if hasattr(v, "dim") and
                     n not in HARMLESS and n != "position_bias")
    if unknown:
        raise Refuse("tensor keyword%s %s: the monitor does not know what %s to the logits"
                     % ("s" if len(unknown) > 1 else "", ", ".join(map(repr, unknown)),
                        "they do" if len(unknown) > 1 else "it does"))
    return bias


def _eager_call(fn_params, module, query, key, attention_mask, args, kwargs, bias_ok):
    """(scale, causal, mask) of an HF eager_attention_forward call, as that
    function applies them: the mask only (eager has no is_causal), cut to
    the keys; scaling as passed, or the function's default 1/sqrt(d). GPT-2
    before transformers 5 takes no scaling: its module's
    scale_attn_weights / scale_attn_by_inverse_layer_idx, and its causal
    `bias` buffer, bottom-right aligned, as that function reads them."""
    named = {**dict(zip(fn_params[5:], args)), **kwargs}
    bias = _eager_extras(named, bias_ok)
    mask = attention_mask
    if mask is not None and mask.dim() == 4:
        mask = mask[:, :, :, :key.shape[-2]]
    mask = normalize_mask(mask)
    if bias is not None:  # the engine's additive mask: softmax input scale*S + M
        mask = bias if mask is None else _modules.combine(mask, bias)
    if "scaling" in fn_params:
        return named.get("scaling"), False, mask
    if not hasattr(module, "scale_attn_weights"):
        raise Refuse("an eager attention function without a scaling argument")
    scale = query.shape[-1] ** -0.5 if module.scale_attn_weights else 1.0
    if getattr(module, "scale_attn_by_inverse_layer_idx", False):
        scale /= float(module.layer_idx + 1)
    if not getattr(module, "is_cross_attention", False):
        nq, nk = query.shape[-2], key.shape[-2]
        fill = _modules.as_additive(module.bias[:, :, nk - nq:nk, :nk].bool(), query.dtype)
        mask = fill if mask is None else mask + fill
    return scale, False, mask


def _make_hf_wrapper(original, kind):
    # transformers >= 4.48: fn(module, query, key, value, attention_mask,
    # scaling=None, dropout=0.0, **kwargs); query B x H x q x d after RoPE
    # and QK-norm, key B x H_kv x kv x d (before repeat_kv); the mask
    # additive (eager) or boolean (sdpa) B x 1 x q x kv, possibly longer
    # than kv, or None. "sdpa": the F.scaled_dot_product_attention call
    # inside is measured (the SDPA wrapper, which then knows the module: it
    # sees the exact mask, is_causal and scale). "eager" (the modeling
    # file's own eager_attention_forward, patched while attached): measured
    # here. Anything else is refused by name.
    # The whole call runs eagerly under torch.compile (no_compile): its
    # thread-local state brackets the attention function's own SDPA call.
    if kind == "eager":  # its parameters' order, its use of position_bias
        eager_params = tuple(inspect.signature(original).parameters)
        bias_ok = bias_added(original)

    @no_compile
    def run(module, query, key, value, attention_mask, *args, **kwargs):
        if not _MONITORS or getattr(_LOCAL, "inside_hf", False):
            return original(module, query, key, value, attention_mask, *args, **kwargs)
        why = None
        try:
            _hf_refusals(kind, kwargs, attention_mask)
            if kind == "eager":
                got = _eager_call(eager_params, module, query, key, attention_mask, args,
                                  kwargs, bias_ok)
        except Refuse as e:
            why = str(e)
        except Exception as e:  # never into the model's forward
            why = "not read (%s: %s)" % (type(e).__name__, e)
        for mon in list(_MONITORS):
            if why is not None:
                mon._refuse(module, why)
            elif kind == "eager":
                mon._capture("hf", module, query, key, *got, None)
        saved = (getattr(_LOCAL, "inside_hf", False), getattr(_LOCAL, "hf_module", None))
        _LOCAL.inside_hf = why is not None or kind != "sdpa"
        _LOCAL.hf_module = module
        try:
            return original(module, query, key, value, attention_mask, *args, **kwargs)
        finally:
            _LOCAL.inside_hf, _LOCAL.hf_module = saved

    def attention(module, query, key, value, attention_mask, *args, **kwargs):
        return run(module, query, key, value, attention_mask, *args, **kwargs)

    attention.__wrapped__ = original
    attention._sdpa_var_wrapper = True
    return attention


def _make_mha_wrapper(original):
    # nn.MultiheadAttention.forward: its call's arguments, bound by name,
    # for the monitors that hook such a layer (Monitor._mha_call)
    sig = inspect.signature(original)

    def feed(args, kwargs):  # args[0]: the module (self)
        for mon in list(_MONITORS):
            mon._mha_call(args[0], sig, args, kwargs)

    return _wrapper(original, feed)


# (owner, attribute) -> [original, wrapper, ids of the monitors holding it]
_PATCHES = {}
_LOCK = threading.Lock()


def _get(owner, attr):
    return owner.get(attr) if isinstance(owner, MutableMapping) else getattr(owner, attr, None)


def _set(owner, attr, fn):
    if isinstance(owner, MutableMapping):
        owner[attr] = fn
    else:
        setattr(owner, attr, fn)


def _hold(mon, owner, attr, make):
    """owner.attr (owner[attr] for a mapping) replaced by make(original) while
    a monitor holds it (the first installs it; not over another sdpa_var
    wrapper)."""
    key = (id(owner), attr)
    if key not in _PATCHES:
        fn = _get(owner, attr)
        if not callable(fn) or getattr(fn, "_sdpa_var_wrapper", False):
            return
        w = make(fn)
        _set(owner, attr, w)
        _PATCHES[key] = [owner, fn, w, set()]
    _PATCHES[key][3].add(id(mon))


def attach(mon, hf_modules=(), mha=False):
    """Adds @p mon to the monitors the wrappers feed; installs the SDPA and
    HF wrappers (every function of HF's table) with the first one,
    nn.MultiheadAttention.forward's with the first that hooks such a layer
    (@p mha), and eager_attention_forward's in the modeling files of @p
    hf_modules (HF attention modules): HF calls that function directly for
    attn_implementation="eager" (it is not in ALL_ATTENTION_FUNCTIONS)."""
    import torch.nn as nn
    import torch.nn.functional as F

    try:  # transformers' table (its global one), where installed and >= 4.48
        from transformers.modeling_utils import ALL_ATTENTION_FUNCTIONS as table
    except Exception:  # not installed, or a version without it
        table = {}
    table = getattr(table, "_global_mapping", table)
    with _LOCK:
        _MONITORS.append(mon)
        for key in list(table.keys()):
            _hold(mon, table, key, lambda fn, key=key: _make_hf_wrapper(fn, key))
        _hold(mon, F, "scaled_dot_product_attention", lambda fn: _wrapper(fn, _feed_sdpa))
        if mha:
            _hold(mon, nn.MultiheadAttention, "forward", _make_mha_wrapper)
        for name in sorted({type(m).__module__ for m in hf_modules}):
            _hold(mon, sys.modules.get(name), "eager_attention_forward",
                  lambda fn: _make_hf_wrapper(fn, "eager"))


def detach(mon):
    """Removes @p mon; puts back what no other monitor holds (unless someone
    replaced our wrapper since: theirs stays)."""
    with _LOCK:
        if mon in _MONITORS:
            _MONITORS.remove(mon)
        for key, (owner, fn, w, users) in list(_PATCHES.items()):
            users.discard(id(mon))
            if not users:
                if _get(owner, key[1]) is w:
                    _set(owner, key[1], fn)
                del _PATCHES[key]


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
