"""The monitor's output: a step's accumulators as Stats, the tidy history
behind to_pandas(), and to_dict()'s flat scalar keys (a mixin of Monitor)."""

import math

import numpy as np

from . import _result


def cells(st, names):
    """(name, index, float) of Stats @p st's columns @p names (those it
    has), every entry: index (head,) or (batch, head)."""
    for name in names:
        if name in st.values:
            v = np.asarray(st.values[name], dtype=np.float64)
            for ix in np.ndindex(v.shape):
                yield name, ix, float(v[ix])


class Report:
    """Monitor's results; needs self.reduce, self.stats, self.last, self._hist."""

    def _stats_of(self, step, layer, acc):
        """Stats of @p layer's accumulator @p acc at @p step, also kept in
        the history (to_pandas)."""
        values = acc.values() if acc.heads is not None else {}
        dims = ("head",) if self.reduce == "batch" else ("batch", "head")
        shape = next(iter(values.values())).shape if values else ()
        config = {"scale": repr(acc.scale), "scale_source": str(acc.scale_source),
                  "path": str(acc.path), "calls": str(acc.calls),
                  "nonfinite": str(acc.nonfinite),
                  "backend": "+".join(sorted(acc.backends)) or "engine"}
        st = _result.make("per_head", dims if values else (), shape, list(values), values, {},
                          config, acc.units)
        extra = (math.nan if acc.scale is None else float(acc.scale), str(acc.scale_source),
                 str(acc.path), acc.calls)
        if acc.nonfinite:
            self._hist.append((step, layer, None, -1, "nonfinite", float(acc.nonfinite)) + extra)
        for name, ix, x in cells(st, self.stats):
            b, h = (None, ix[0]) if len(ix) == 1 else ix
            self._hist.append((step, layer, b, h, name, x) + extra)
        return st

    def to_dict(self, prefix="attn/", stats=None):
        """Flat {"attn/<layer>/head<h>/<statistic>": float} of the last
        measured step, for TensorBoard's add_scalars or a W&B-style log:
        at most layers x heads x len(stats) keys (reduce="none": per batch
        element, "batch<b>/head<h>"). stats: default monitor(stats=)."""
        names = self.stats if stats is None else tuple(stats)
        pre = "" if prefix is None else str(prefix)
        out = {}
        for layer, st in self.last.items():
            for name, ix, x in cells(st, names):
                where = "head%d" % ix if len(ix) == 1 else "batch%d/head%d" % ix
                out["%s%s/%s/%s" % (pre, layer, where, name)] = x
        return out

    def to_pandas(self):
        """Every measured step as a tidy pandas DataFrame: step, layer,
        batch (None when reduced), head, statistic, value (the monitor's
        stats=, and "nonfinite" with head -1: NaN/Inf values seen), and the
        layer's scale, scale_source, path and calls. Needs pandas."""
        try:
            import pandas as pd
        except ImportError:
            raise ImportError("Monitor.to_pandas needs pandas: "
                              + _result.install_hint("pandas")) from None
        cols = ["step", "layer", "batch", "head", "statistic", "value", "scale", "scale_source",
                "path", "calls"]
        df = pd.DataFrame(self._hist, columns=cols)
        return df.drop(columns="batch") if self.reduce == "batch" else df
