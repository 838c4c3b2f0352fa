"""sdpa_var: attention score statistics from Python, by sdpa-var's engine.

    import sdpa_var
    s = sdpa_var.stats(q, k)          # numpy arrays or torch tensors
    s.scaled_entropy                  # (batch, head) array, nats
    s.to_dict(prefix="layer0")        # {"layer0/head0/raw_entropy": ...}
    sdpa_var.random(dk=64, n=1111)    # the CLI's summary row
    with sdpa_var.monitor(model) as mon:  # per-step, per-layer x head, in training
        ...; mon.step(); mon.to_dict(prefix="attn/")
    sdpa_var.observe(q, k, causal=True)   # from your own attention code
    sdpa_var.hf.add_monitor(trainer, every=10)  # in transformers' Trainer

docs/python.md describes the package; the column names are the CLI's
(docs/columns.md).
"""

from ._lib import version as _version
from ._core import stats
from ._random import random
from ._result import Stats
from ._monitor import monitor, Monitor
from ._capture import observe
from ._merge import merge

__version__ = _version()


def __getattr__(name):
    """sdpa_var.hf, imported on first use: it needs transformers, the rest
    of the package does not."""
    if name == "hf":
        import importlib

        return importlib.import_module(".hf", __name__)
    raise AttributeError("module 'sdpa_var' has no attribute %r" % (name,))


__all__ = ["stats", "random", "merge", "monitor", "Monitor", "observe", "Stats", "__version__"]
