"""sdpa_var.hf: the monitor inside transformers' Trainer (4.48 to 5.x).

    import sdpa_var.hf
    trainer = transformers.Trainer(model=model, args=args, ...)
    sdpa_var.hf.add_monitor(trainer, every=10)   # or:
    trainer.add_callback(sdpa_var.hf.MonitorCallback(trainer, every=10))
    trainer.train()   # "attn/<layer>/head<h>/<statistic>" reach report_to

This module imports transformers; `import sdpa_var` does not (the package
loads this module on first use of `sdpa_var.hf`). docs/python.md, "In
transformers' Trainer", describes it.
"""

import numpy as np

try:
    import transformers
except ImportError:
    raise ImportError("sdpa_var.hf needs transformers (pip install transformers); "
                      "sdpa_var.monitor() itself does not") from None

from . import _measure, _monitor

PER = ("head", "layer")
# How per="layer" folds a statistic over a layer's heads: the library's
# rule for the column (sv_column.reduce: averages by the mean, maxima by
# the maximum, minima by the minimum, counts by the sum); any other rule
# (pooled var_scale, a configuration column) by the mean.
_FOLD = {"mean": np.mean, "max": np.max, "min": np.min, "sum": np.sum}


class MonitorCallback(transformers.TrainerCallback):
    """A TrainerCallback that runs sdpa_var.monitor() over trainer.train().

    on_train_begin attaches monitor(model, every, stats=stats,
    **monitor_kwargs) to the model the Trainer trains; on_step_end (once per
    optimizer step, after all its gradient-accumulation micro-batches,
    which the monitor accumulates as one step) ends the monitor's step and,
    on measured steps, sends its numbers through trainer.log(), so every
    report_to integration (TensorBoard, W&B, ...) and
    trainer.state.log_history receive them at that global step;
    on_train_end removes it (the Monitor stays in self.monitor, detached:
    its to_pandas() history is still there).

    trainer: the Trainer whose log() carries the numbers (a callback is
    given no trainer of its own). every: measure the Trainer's steps that
    are multiples of it (None: the Trainer's logging_steps, so the numbers
    come at the steps the loss does). per="head": keys
    "<prefix><layer>/head<h>/<statistic>" (Monitor.to_dict), layers x
    heads x statistics of them; per="layer": "<prefix><layer>/<statistic>",
    the heads folded by the library's rule for the column (mean of
    averages, max of maxima), layers x statistics keys. stats: the
    statistics logged (default sdpa_var._monitor.DEFAULT_STATS).
    monitor_kwargs: the rest of monitor()'s (causal, rows, seed, hooks,
    threads, ...; reduce="none" is refused: its keys grow with the batch).
    Note: TensorBoard's callback writes them under "train/" (its
    rewrite_logs), and the console progress callback prints every key.
    Raises TypeError / ValueError naming the argument."""

    def __init__(self, trainer, every=None, *, per="head", prefix="attn/", stats=None,
                 **monitor_kwargs):
        if not callable(getattr(trainer, "log", None)) or not hasattr(trainer, "state"):
            raise TypeError("trainer: %r is not a transformers.Trainer (it has no log() and "
                            "state)" % (type(trainer).__name__,))
        _monitor.check_count(every, "every", 1, True,
                             "a step count >= 1 (or None: the Trainer's logging_steps)")
        if per not in PER:
            raise ValueError("per: %r is not 'head' or 'layer'" % (per,))
        if prefix is not None and not isinstance(prefix, str):
            raise TypeError("prefix: %r is not a string" % (prefix,))
        if monitor_kwargs.get("reduce", "batch") != "batch":
            raise ValueError("reduce: %r: the callback logs per head or per layer (reduce="
                             "\"batch\"); per batch element the keys would grow with the batch"
                             % (monitor_kwargs["reduce"],))
        if "every" in monitor_kwargs or "model" in monitor_kwargs:
            raise TypeError("monitor_kwargs: every and model are the callback's own")
        self.trainer, self.every, self.per, self.prefix = trainer, every, per, prefix or ""
        self.stats, self.monitor_kwargs = stats, dict(monitor_kwargs)
        self.monitor = None        # the Monitor of the last train(), attached while it runs
        self._attached = False

    # -- the Trainer's events -------------------------------------------------
    def on_train_begin(self, args, state, control, model=None, **kwargs):
        self.remove()  # a train() that raised left it attached
        if model is None:
            model = self.trainer.model
        every = self.every
        if every is None:
            every = max(1, int(getattr(state, "logging_steps", None) or args.logging_steps))
        mon = _monitor.monitor(model, int(every), stats=self.stats, **self.monitor_kwargs)
        # Measured steps: the Trainer's multiples of `every` (as logging_steps),
        # also when resuming; the monitor's step numbers (to_pandas) are then
        # the Trainer's global steps.
        mon.steps = int(state.global_step) + 1
        self.monitor, self._attached = mon, True

    def on_step_end(self, args, state, control, **kwargs):
        if not self._attached:
            return
        if not self.monitor.step():
            return
        logs = self.logs()
        if not logs:
            return
        # Trainer.log ends in CallbackHandler.on_log, which clears
        # control.should_log: the loss the Trainer logs right after this
        # event at a logging step would be lost. Keep the flag.
        own = getattr(self.trainer, "control", None)
        keep = control.should_log, (own.should_log if own is not None else None)
        self.trainer.log(logs)
        control.should_log = keep[0]
        if own is not None:
            own.should_log = keep[1]

    def on_train_end(self, args, state, control, **kwargs):
        self.remove()

    # -- output ---------------------------------------------------------------
    def logs(self):
        """{key: float} of the monitor's last measured step, as logged."""
        mon = self.monitor
        if mon is None:
            return {}
        if self.per == "head":
            return mon.to_dict(prefix=self.prefix)
        out = {}
        for layer, st in mon.last.items():
            for name in mon.stats:
                if name in st.values:
                    fold = _FOLD.get(_measure.REDUCE.get(name), np.mean)
                    out["%s%s/%s" % (self.prefix, layer, name)] = float(fold(
                        np.asarray(st.values[name], dtype=np.float64)))
        return out

    def remove(self):
        """Detaches the monitor (on_train_end does); safe to call twice."""
        if self._attached:
            self.monitor.remove()
            self._attached = False


def add_monitor(trainer, every=None, **kwargs):
    """MonitorCallback(trainer, every, **kwargs), added to @p trainer's
    callbacks; returns it (its .monitor is the Monitor once train() runs)."""
    cb = MonitorCallback(trainer, every, **kwargs)
    trainer.add_callback(cb)
    return cb
