"""monitor(model): per-step, per-layer, per-head attention statistics of
the Q and K a model's softmax sees, by the engine (docs/python.md, "The
monitor", says which path serves which kind of model and what each misses).

Paths, best first; a module call measured by one is not measured again:
1. F.scaled_dot_product_attention (PyTorch >= 2.0) wrapped while the
   monitor is attached (_capture.py): Q, K after rotary and QK-norm, the
   call's attn_mask, is_causal, scale, enable_gqa. Each call belongs to the
   innermost monitored module running (pre/post forward hooks keep a stack).
2. HF transformers (4.48 to 5.x): the attention function the model's
   config selects, "sdpa" through its SDPA call and "eager" through the
   modeling file's eager_attention_forward, wrapped while attached (an HF
   module is never hooked); softcapping, sinks, head masks and other
   kernels are refused by name.
3. sdpa_var.observe(q, k, ...) from the caller's attention code.
4. Hooks (_modules.py), only on modules whose Q and K are by construction
   the softmax's: TransformerLens hook points (hook_rot_q/hook_rot_k before
   hook_q/hook_k; hook_attn_scores for the mask) and nn.MultiheadAttention
   (its call's attn_mask, key_padding_mask, is_causal). Never projections
   (q_proj/k_proj, c_attn, qkv, query_key_value): rotary, QK-norm or a
   scale may follow them, which no attribute name reliably tells. Such
   modules are served by paths 1-3; where this torch has no SDPA,
   monitor() refuses them unless hooks=False says observe() serves them.
Nothing the monitor does raises inside the model's forward: a call it
cannot measure is skipped with one warning per reason.

Nothing is stored on the model: the hooks are torch's global module hooks
(torch.nn.modules.module.register_module_forward_pre_hook / _hook), which
act only on the module objects the monitor attached to (by identity), and
nn.MultiheadAttention's call arguments come from a wrapper of the class's
forward, installed with the first monitor that has such a layer. A
copy.deepcopy or a pickle (torch.save) of the model made while monitored
carries nothing of the monitor, and the copy is not monitored.
"""

import collections.abc
import numbers
import warnings

from . import _capture, _core, _device, _modules, _measure, _report

DEFAULT_STATS = ("scaled_entropy", "scaled_entropy_norm", "scaled_max_weight",
                 "scaled_sink_weight", "scaled_max_abs_logit", "scaled_max_logit")
# the modules hooks serve: their Q, K are by construction the softmax's
HOOK_KINDS = ("mha", "tl")
# a hook-point module's hooks the monitor reads (_modules.hook_qk)
TL_HOOKS = ("hook_q", "hook_k", "hook_rot_q", "hook_rot_k", "hook_attn_scores")
# The ways a module hooks cannot serve is measured, where this torch has no SDPA
_WAYS = ("(1) SDPA capture: the module calls torch.nn.functional.scaled_dot_product_attention "
         "(PyTorch >= 2.0; this torch has none); (2) sdpa_var.observe(q, k, scale=..., "
         "causal=...) in the module's forward")


class _Layer:
    def __init__(self, name, module, kind, scale):
        self.name, self.module, self.kind = name, module, kind
        self.scale = scale         # given by monitor(scale=), else read per call
        self.causal = _modules.module_causal(module)  # its own word (is_causal, bias), or None
        self.mode = "hooks"        # or "capture": SDPA / HF / observe() only


class _Frame:
    __slots__ = ("layer", "produced", "caps", "call")

    def __init__(self, layer):
        self.layer, self.produced, self.caps, self.call = layer, False, {}, None


def check_count(v, what, low, none_ok, need):
    """int(@p v) if it is an integer >= @p low (or None, where @p none_ok);
    else ValueError "<what>: v is not <need>"."""
    if v is None and none_ok:
        return None
    if isinstance(v, bool) or not isinstance(v, numbers.Integral) or v < low:
        raise ValueError("%s: %r is not %s" % (what, v, need))
    return int(v)


def _per_module(v, what, names, check):
    """{module name: checked value} from a mapping, or the one value for all."""
    if isinstance(v, collections.abc.Mapping):
        unknown = [n for n in v if n not in names]
        if unknown:
            raise ValueError("%s: no module named %s in the model" % (what, ", ".join(
                repr(n) for n in unknown)))
        return {n: check(x, "%s[%r]" % (what, n)) for n, x in v.items()}, None
    return {}, (None if v is None else check(v, what))


class Monitor(_report.Report):
    """Hooks on a model's attention modules; see monitor()."""

    def __init__(self, model, every=1, causal=False, scale=None, reduce="batch",
                 rows=None, seed=0, stats=None, hooks=True, threads=None, backend="auto",
                 max_bytes=None):
        import torch.nn as nn

        if not isinstance(model, nn.Module):
            raise TypeError("model: %r is not a torch.nn.Module" % (type(model).__name__,))
        every = check_count(every, "every", 1, False, "a step count >= 1")
        if not isinstance(causal, bool):
            raise TypeError("causal: %r is not True or False" % (causal,))
        if reduce not in ("batch", "none"):
            raise ValueError("reduce: %r is not 'batch' or 'none'" % (reduce,))
        check_count(rows, "rows", 1, True, "a row count >= 1 (or None: every row)")
        seed = check_count(seed, "seed", 0, False, "an integer >= 0")
        stats = DEFAULT_STATS if stats is None else stats
        if isinstance(stats, str) or not all(isinstance(s, str) for s in stats):
            raise TypeError("stats: %r is not a list of statistic names" % (stats,))
        _core.exec_options(threads)  # ValueError naming threads, now rather than in a forward
        if backend not in ("auto", "engine", "torch"):
            raise ValueError("backend: %r is not 'auto', 'engine' or 'torch'" % (backend,))
        check_count(max_bytes, "max_bytes", 1, True,
                    "a byte count >= 1 (or None: %d)" % _device.DEFAULT_MAX_BYTES)
        self.backend, self.max_bytes = backend, max_bytes
        self._pending = []  # (accumulator, _device.Pending) of the torch backend, in call order
        self.every, self.causal, self.threads = every, causal, threads
        self.reduce, self.rows, self.seed, self.stats = reduce, rows, seed, tuple(stats)
        self.steps, self.last, self.last_step = 0, {}, None
        self.layers = []
        self._model, self._handles = model, []
        self._stack, self._ran, self._covered, self._unnamed = [], set(), set(), 0
        self._acc, self._hist, self._warned, self._rows_cache = {}, [], set(), {}
        # eval forwards (no_grad or model.eval()): their own accumulators,
        # reported only by a step without a training forward
        self._acc_eval, self._trained, self._root_depth, self._eval = {}, False, 0, False
        self._unnamed_out = 0  # observe() calls outside the model's forward, this step
        # id(module) -> [the module (identity checked), its _Layer or None,
        # [(layer, what) it feeds]]: the model, its layers, their hook points
        self._by_id = {id(model): [model, None, []]}
        mods = dict(model.named_modules())
        scales, scale_all = _per_module(scale, "scale", mods, _core.positive)
        self._names = {id(m): (n or "model") for n, m in mods.items()}
        sdpa = callable(getattr(nn.functional, "scaled_dot_product_attention", None))
        layers, refused, rotary, tl_refused, mha = [], [], [], [], False
        for name, m in mods.items():
            kind = _modules.kind_of(m)
            if kind is None:
                continue
            L = _Layer(name or "model", m, kind, scales.get(name, scale_all))
            if kind not in HOOK_KINDS or not hooks or _modules.is_hf(m):
                # Only nn.MultiheadAttention and hook points give, by
                # construction, the Q and K the softmax sees. Any other
                # module (projections, HF's attention, which calls the
                # function its config selects) is served by SDPA capture,
                # the HF wrappers and observe(), never by hooks on its
                # projections: whatever follows them is not known.
                L.mode = "capture"
                if kind not in ("attn", "tl") and hooks and not sdpa and not _modules.is_hf(m):
                    refused.append(L.name)
            elif kind == "tl" and not isinstance(getattr(m, "hook_rot_q", None), nn.Module) \
                    and (why := _modules.transforms_after_projection(m)):
                # hook_q / hook_k before a rotation (hook_rot_q would see it)
                if not sdpa:
                    rotary.append("%r (%s)" % (L.name, why))
                L.mode = "capture"
            if kind in ("tl", "attn") and (why := _modules.tl_refusal(m)):
                tl_refused.append("%r (%s)" % (L.name, why))
            self.layers.append(L.name)
            layers.append(L)
            self._by_id.setdefault(id(m), [m, None, []])[1] = L
            if L.mode == "hooks":
                mha = mha or kind == "mha"
                for what in TL_HOOKS if kind == "tl" else ():
                    if (h := getattr(m, what, None)) is not None:
                        self._by_id.setdefault(id(h), [h, None, []])[2].append((L, what))
        if tl_refused:
            raise ValueError("model: %s: the monitor reads hook points, which see the scores "
                             "before that; it never reports those numbers (it measures the "
                             "same model built without that setting)" % "; ".join(tl_refused))
        why = _modules.hf_inline_refusal(model, [L.module for L in layers], self._names)
        if why:
            raise ValueError(why)
        if rotary:
            raise ValueError(
                "model: %s transform%s Q and K after hook_q/hook_k and ha%s no hook_rot_q/"
                "hook_rot_k, so its hook points would see them before that; the monitor "
                "never reports those numbers. Two ways measure what the softmax sees: %s "
                "after the rotation, with monitor(model, hooks=False)."
                % (", ".join(rotary), "s" if len(rotary) == 1 else "",
                   "s" if len(rotary) == 1 else "ve", _WAYS))
        if refused:
            raise ValueError(
                "model: %s: the monitor reads Q and K from module hooks only where they are by "
                "construction what the softmax sees (nn.MultiheadAttention, TransformerLens "
                "hook points), never from projections (q_proj/k_proj, c_attn, qkv, "
                "query_key_value), after which rotary, QK-norm or a scale may follow. Ways that "
                "work: %s, with monitor(model, hooks=False); (3) nn.MultiheadAttention or hook "
                "points (docs/python.md, \"The monitor\")"
                % (", ".join(repr(n) for n in refused), _WAYS))
        hooked = {L.name for L in layers if L.mode == "hooks"}
        wrong = sorted(n or "model" for n in scales if (n or "model") not in hooked)
        if wrong or (scale_all is not None and not hooked):
            raise ValueError(
                "scale: %s: monitor(scale=) is for modules served by hooks "
                "(nn.MultiheadAttention, hook points); SDPA, HF and observe() calls carry "
                "their own scale (observe(q, k, scale=...))"
                % (", ".join(repr(n) for n in wrong) if wrong else "no module of this model "
                   "is served by hooks"))
        # With or without SDPA in this torch: a model with none of these has
        # nothing the monitor could name a layer after (PyTorch 2 used to
        # take nn.Linear and report nothing, every step).
        if not self.layers:
            raise ValueError("model: no attention module found (nn.MultiheadAttention, "
                             "q_proj/k_proj, c_attn, qkv, query_key_value, hook points, or a "
                             "module named *Attention*; docs/python.md)")
        # Global hooks, acting only on these module objects: the model's
        # pre-hook before a layer's (the model may be the layer), its
        # post-hook after; nothing is stored on the modules themselves.
        from torch.nn.modules import module as _module

        self._handles.append(_module.register_module_forward_pre_hook(
            _capture.no_compile(self._global_pre)))
        self._handles.append(_module.register_module_forward_hook(
            _capture.no_compile(self._global_post)))
        _capture.attach(self, [L.module for L in layers if _modules.is_hf(L.module)], mha)

    # -- hooks ---------------------------------------------------------------
    def _active(self):
        return self.steps % self.every == 0 and self._model is not None

    def _ours(self, mod):
        """@p mod's entry in _by_id; None for a module not of ours (a copy,
        another model)."""
        e = self._by_id.get(id(mod))
        return e if e is not None and e[0] is mod else None

    def _global_pre(self, mod, args):
        e = self._ours(mod)
        if e is None:
            return None
        if mod is self._model and not _capture.in_backward():
            self._root_pre(mod)
        if e[1] is not None and self._active():
            self._stack.append(_Frame(e[1]))
            self._ran.add(e[1].name)
        return None

    def _global_post(self, mod, args, out):
        e = self._ours(mod)
        if e is None:
            return None
        for L, what in e[2]:
            if self._stack and self._stack[-1].layer is L:
                self._stack[-1].caps[what] = (out, args[0] if args else None)
        if e[1] is not None:
            self._post(e[1])
        if mod is self._model and not _capture.in_backward():
            self._root_post()
        return None

    def _mha_call(self, mod, sig, args, kwargs):
        """nn.MultiheadAttention.forward's arguments (@p args from its self,
        bound by @p sig), for a layer of ours running in a measured step."""
        e, top = self._ours(mod), self._stack[-1] if self._stack and self._active() else None
        if e is not None and top is not None and top.layer is e[1] and e[1].mode == "hooks":
            try:
                b = sig.bind(*args, **kwargs)
                b.apply_defaults()
                top.call = dict(b.arguments)
            except TypeError:
                pass

    def _root_pre(self, mod):
        import torch

        self._root_depth += 1
        if self._root_depth > 1:
            return  # the model calling itself
        self._eval = not (torch.is_grad_enabled() and getattr(mod, "training", True))
        if not self._eval:
            self._trained = True
        if self._active():
            self._stack, self._ran, self._covered, self._unnamed = [], set(), set(), 0

    def _root_post(self):
        self._root_depth = max(0, self._root_depth - 1)
        if self._root_depth or not self._active():
            return
        silent = sorted(self._ran - self._covered)
        if not self._ran and not self._covered:
            self._warn("nothing:" + ",".join(self.layers),
                       "no monitored module ran in this forward (%s): an inference fast path "
                       "or a compiled/flash kernel bypasses them" % ", ".join(self.layers))
        elif silent:
            self._warn("silent:" + ",".join(silent),
                       "%s ran but produced no Q, K: the module calls attention the monitor "
                       "does not see (a function bound before the monitor started, a "
                       "compiled or flash kernel); use sdpa_var.observe(q, k) in its forward"
                       % ", ".join(repr(s) for s in silent))

    def _post(self, L):
        if not self._active():
            return
        while self._stack and self._stack[-1].layer is not L:
            self._stack.pop()
        if not self._stack:
            return
        frame = self._stack.pop()
        if frame.produced or L.mode != "hooks":
            return
        try:
            if self._from_hooks(L, frame):
                self._covered.update([L.name] + [f.layer.name for f in self._stack])
        except Exception as e:  # never into the model's forward
            self._warn("hook:%s:%s" % (L.name, type(e).__name__),
                       "%s: not measured (%s: %s)" % (L.name, type(e).__name__, e))

    # -- Q, K from each path -------------------------------------------------
    def _from_hooks(self, L, frame):
        import torch

        causal = L.causal if L.causal is not None else self.causal
        with torch.no_grad():
            got = _modules.hook_qk(L.kind, L.module, frame.caps, frame.call, causal, L.scale)
        if got is not None:
            self._measure(L.name, "hooks:" + L.kind, *got, None)
        return got is not None

    def _capture(self, path, who, q, k, scale, causal, mask, window):
        """From _capture.py's wrappers and observe(); never raises."""
        try:
            if not self._active():
                return
            if path != "observe" and not self._stack and not self._root_depth:
                return  # not the model's: a copy of it, another model
            if isinstance(who, str):
                name = who
            elif who is not None:
                name = self._names.get(id(who), path)
            elif self._stack:
                name = self._stack[-1].layer.name
            elif self._root_depth:  # in call order within the model's forward
                name = "%s%d" % (path, self._unnamed)
                self._unnamed += 1
            else:  # in call order within the step, outside the model's forward
                name = "%s%d" % (path, self._unnamed_out)
                self._unnamed_out += 1
            self._claim()
            if scale is None:
                scale, source = q.shape[-1] ** -0.5, path + " 1/sqrt(d)"
            else:
                scale, source = _core.positive(scale), path + " scale"
            self._measure(name, path, q, k, scale, source, causal, mask, window)
        except Exception as e:
            self._warn("capture:%s:%s" % (path, type(e).__name__),
                       "a %s call was not measured (%s: %s)" % (path, type(e).__name__, e))

    def _claim(self):
        """The running monitored modules produced this call's Q, K."""
        for f in self._stack:
            f.produced = True
            self._covered.add(f.layer.name)

    def _refuse(self, who, reason):
        """From _capture.py: a call of @p who (a module) the monitor will
        not report (softcapping, sinks, another attention kernel); warned
        once per layer and reason, never raised."""
        if not self._active():
            return
        name = self._names.get(id(who), "a module")
        self._claim()
        self._warn("refuse:%s:%s" % (name, reason), "%s: not measured: %s" % (name, reason))

    def _measure(self, name, path, q, k, scale, source, causal, mask, window):
        import torch

        if _capture.in_backward():
            return  # a checkpoint's recompute: this call was measured in the forward

        if self._root_depth:
            ev = self._eval
        else:  # observe() outside the model's forward
            ev = not torch.is_grad_enabled()
            if not ev:
                self._trained = True
        accs = self._acc_eval if ev else self._acc
        acc = accs.get(name)
        if acc is None:
            acc = accs[name] = _measure.Accumulator(self.reduce)
        acc.path, acc.scale, acc.scale_source = path, scale, source
        torch_backend = self.backend == "torch" or (
            self.backend == "auto" and q.device.type not in ("cpu", "meta"))
        acc.backends.add("torch" if torch_backend else "engine")
        try:
            if torch_backend:  # on the device, no sync: resolved at step()
                self._pending.append((acc, _device.measure(
                    q, k, scale, causal, mask, window, self.rows, self.seed, self._rows_cache,
                    self.max_bytes)))
                return
            st = _measure.run(q, k, scale, causal, mask, window, self.rows, self.seed,
                              self._rows_cache, self.threads)
        except _measure.Skip as s:
            self._skipped(acc, name, s)
            return
        acc.add(st)

    def _skipped(self, acc, name, s, step=None):
        if s.key == "nonfinite":
            acc.nonfinite += s.count
            self._warn("nonfinite", "step %d, %s: %s; the step is recorded as non-finite "
                       "(warned once; the count is in the step's rows)"
                       % (self.steps if step is None else step, name, s))
        else:
            self._warn("skip:" + s.key, "%s: not measured: %s" % (name, s))

    def _resolve(self, accs):
        """The torch backend's calls of this step into their accumulators
        (@p accs: the step's reported ones), in call order: one transfer
        per device, the step's only synchronisation."""
        pending, self._pending = self._pending, []
        mine = {id(a): n for n, a in accs.items()}
        pending = [(a, p) for a, p in pending if id(a) in mine]
        for (acc, _), (p, trials, scalars) in zip(pending, _device.resolve(
                [p for _, p in pending])):
            name = mine[id(acc)]
            try:
                st = _device.finish(p, trials, scalars)
                acc.add(st)
            except _measure.Skip as s:  # step() has counted this step already
                self._skipped(acc, name, s, self.steps - 1)
            except Exception as e:  # as _capture's calls: warned, not raised
                self._warn("capture:torch:%s" % type(e).__name__,
                           "a call was not measured (%s: %s)" % (type(e).__name__, e))

    def _warn(self, key, message):
        if key not in self._warned:
            self._warned.add(key)
            warnings.warn("sdpa_var.monitor: " + message, RuntimeWarning, stacklevel=3)

    # -- results -------------------------------------------------------------
    def step(self):
        """Ends a training step: returns {layer: Stats} if this step was
        measured (every `every` steps, from the first), else None."""
        measured = self._active()
        self.steps += 1
        self._stack, self._unnamed, self._unnamed_out, self._root_depth = [], 0, 0, 0
        accs = self._acc if self._trained else self._acc_eval
        self._acc, self._acc_eval, self._trained = {}, {}, False
        if not measured:
            self._pending = []
            return None
        self._resolve(accs)
        out = {}
        for name, acc in accs.items():
            if not acc.calls and not acc.nonfinite:
                continue  # every call skipped (and warned about)
            out[name] = self._stats_of(self.steps - 1, name, acc)
        self.last, self.last_step = out, self.steps - 1
        return out

    def remove(self):
        """Removes every hook and wrapper; the model is as before."""
        for h in self._handles:
            h.remove()
        self._handles, self._by_id = [], {}
        _capture.detach(self)
        self._model = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.remove()


def monitor(model, every=1, *, causal=False, scale=None, reduce="batch", rows=None,
            seed=0, stats=None, hooks=True, threads=None, backend="auto", max_bytes=None):
    """Attaches to @p model's attention (module docstring) and returns a
    Monitor. Call mon.step() after each training step; on measured steps
    (the first and every @p every-th) it returns, and keeps in mon.last,
    {layer name: Stats} with every per-head column, of shape (heads,)
    reduced over the batch and the step's calls (reduce="batch": means of
    averages, each batch element and head weighted by its query rows that
    see a key; the maximum of maxima) or (batch, heads) per call's
    batch element side by side (reduce="none"). Stats.config holds the
    scale used, its scale_source, the path, calls and nonfinite (NaN/Inf
    values seen; such calls are skipped).

    causal: for hook-path modules nothing else describes (is_causal, a
    `bias` buffer, the call's masks win; cross-attention never). scale: a
    number, 0-dim tensor or {module name: number}, for hook paths (SDPA,
    HF and observe() calls carry their own). rows: measure a fixed sample
    of that many query rows (seeded by @p seed). stats: the names
    mon.to_dict() and mon.to_pandas() keep (DEFAULT_STATS). hooks=False: no
    module hooks, only SDPA / HF / observe() (which a module not served by
    hooks then promises where this torch has no SDPA). threads: the
    engine's.
    backend: who computes the statistics. "engine": the C library on the
    CPU (each call's Q, K copied there, synchronously). "torch": torch
    operations on the device where Q and K are, in float64, with no
    GPU -> CPU synchronisation in the forward: each call's per-(batch,
    head) trial statistics stay on the device until mon.step(), which
    moves them in one transfer and builds the same columns with the
    library's code (_device.py; within 1e-10 relative of the engine for
    float64 input, 1e-6 for float32 and bf16). "auto" (default): the
    engine for CPU tensors, torch for any other device.
    Stats.config["backend"] says which ran. max_bytes: the torch backend's
    bound on extra device memory per call (default 256 MiB): query rows
    are measured in blocks sized to it, never the whole n_q x n_k scores.
    A forward under torch.no_grad() or in model.eval() is an eval forward:
    a step reports its training forwards only, or its eval forwards if it
    had no training forward. Nothing is stored on the model: a copy or a
    pickle of it made while monitored is not monitored.
    Raises TypeError / ValueError naming the argument; never raises inside
    the model's forward (warns once per reason). mon.remove() or a `with`
    block detaches it."""
    return Monitor(model, every, causal, scale, reduce, rows, seed, stats, hooks, threads,
                   backend, max_bytes)
