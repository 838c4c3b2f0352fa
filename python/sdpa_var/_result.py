"""The result object of stats() and random(): named numpy arrays, frozen;
and the summary row of a run (random(), merge()) as one."""

import ctypes
import dataclasses
import os
import sys
import types
from typing import Any, Mapping, Tuple

import numpy as np

from . import _columns, _show
from . import _lib as L


def install_hint(package):
    """How to install the PyPI @p package where this Python runs: pip in a
    venv (sys.prefix differs from sys.base_prefix), apt-get's python3-NAME
    on Debian's own /usr/bin/python3 (whose pip refuses: PEP 668), pip
    elsewhere; pip as "this python -m pip", the one that installs here."""
    if sys.prefix == sys.base_prefix and sys.prefix == "/usr" and \
            os.path.exists("/etc/debian_version"):
        return "apt-get install python3-%s" % package
    return "%s -m pip install %s" % (sys.executable or "python3", package)


def _frozen(d):
    return types.MappingProxyType(dict(d))


@dataclasses.dataclass(frozen=True)
class Stats:
    """Statistics named exactly as the CLI's columns (docs/columns.md).

    kind:    "per_head" (from stats()) or "summary" (from random()).
    dims:    names of the array axes: ("batch", "head") per head, () for a
             summary (values are then scalars).
    columns: the value names in the CLI's column order; each is also an
             attribute: s.raw_entropy is values["raw_entropy"].
    values:  name -> numpy array of shape `shape` (float64 for REAL
             columns, NAN where undefined; uint64 for COUNT columns; int64
             for kv_head).
    pooled:  name -> value of the pooled row (all heads of all batches as
             trials, as the CLI's row with head "all"); empty for a summary
             and for stats(pool="none").
    config:  the text configuration columns (scale, e.g. "sqrt"), name -> str.
    units:   name -> unit as docs/columns.md gives it.
    """

    kind: str
    dims: Tuple[str, ...]
    shape: Tuple[int, ...]
    columns: Tuple[str, ...]
    values: Mapping[str, Any]
    pooled: Mapping[str, Any]
    config: Mapping[str, str]
    units: Mapping[str, str]

    def __getattr__(self, name):
        values = object.__getattribute__(self, "values")
        if name in values:
            return values[name]
        raise AttributeError("Stats has no statistic %r (see .columns)" % name)

    def __dir__(self):
        return sorted(set(super().__dir__()) | set(self.values))

    def __repr__(self):
        """A table: one row per statistic, one column per head and the
        pooled row's "all" (docs/python.md, "How a Stats prints")."""
        return _show.text(self)

    def _repr_html_(self):
        """The same table in a notebook (Jupyter calls this)."""
        return _show.html_table(self)

    def _numeric(self):
        for name in self.columns:
            v = self.values[name]
            if isinstance(v, str):
                continue
            yield name, v

    def to_dict(self, prefix=None):
        """Flat {"prefix/head3/raw_entropy": float} for TensorBoard or W&B.

        Per head: keys "head{h}/{name}" (one batch) or "batch{b}/head{h}/{name}",
        and "all/{name}" for the pooled row; a summary gives "{name}". With
        @p prefix (e.g. "layer0") every key starts with "prefix/". Only
        numeric statistics; text columns are in .config.
        """
        pre = "" if prefix is None else str(prefix).rstrip("/") + "/"
        out = {}
        if not self.dims:
            for name, v in self._numeric():
                out[pre + name] = v.item() if hasattr(v, "item") else v
            return out
        for ix in np.ndindex(self.shape):  # (batch, head), or (head,) from the monitor
            b, h = (0, ix[0]) if len(ix) == 1 else ix
            one = len(ix) == 1 or self.shape[0] == 1
            where = ("head%d/" % h) if one else ("batch%d/head%d/" % (b, h))
            for name, v in self._numeric():
                out[pre + where + name] = v[ix].item()
        for name, v in self.pooled.items():
            if not isinstance(v, str):
                out[pre + "all/" + name] = v.item() if hasattr(v, "item") else v
        return out

    def to_pandas(self):
        """A pandas DataFrame: one row per (batch, head) and the pooled row
        (batch and head "all"), one column per statistic. Needs pandas."""
        try:
            import pandas as pd
        except ImportError:
            raise ImportError("Stats.to_pandas needs pandas: " + install_hint("pandas")) from None
        if not self.dims:
            return pd.DataFrame([dict(self.values)], columns=list(self.columns))
        rows, index = [], []
        for ix in np.ndindex(self.shape):
            rows.append({n: v[ix].item() for n, v in self._numeric()})
            index.append(tuple(str(i) for i in ix))
        if self.pooled:
            rows.append({n: v for n, v in self.pooled.items() if not isinstance(v, str)})
            index.append(("all",) * len(self.dims))
        names = [n for n, _ in self._numeric()]
        return pd.DataFrame(rows, columns=names,
                            index=pd.MultiIndex.from_tuples(index, names=list(self.dims)))


def make(kind, dims, shape, columns, values, pooled, config, units):
    for v in values.values():
        if isinstance(v, np.ndarray):
            v.setflags(write=False)
    return Stats(kind, tuple(dims), tuple(shape), tuple(columns), _frozen(values),
                 _frozen(pooled), _frozen(config), _frozen(units))


def summary_stats(spec, summ, scale_name, observed):
    """The summary row of @p spec and its sv_summary @p summ as Stats, the
    columns the CLI writes (with observed: its columns too)."""
    view = L.sv_row_view(spec=ctypes.pointer(spec), scale_name=scale_name,
                         stats=ctypes.pointer(summ.mean), summary=ctypes.pointer(summ))
    cols = [c for c in _columns.table(L.SV_OUTPUT_SUMMARY)
            if c.exists(spec, observed, measured=False)]  # random draws
    values = {c.name: c.value(view) for c in cols}
    config = {c.name: values[c.name] for c in cols if c.type == L.SV_VALUE_TEXT}
    bad = L.lib.sv_columns_first_undefined(L.SV_OUTPUT_SUMMARY, ctypes.byref(view),
                                           1 if observed else 0)
    if bad:
        raise ValueError("d_k=%d: column %s is nan where it must be defined"
                         % (spec.d_k, bad.contents.name.decode()))
    return make("summary", (), (), values, values, {}, config, {c.name: c.unit for c in cols})
