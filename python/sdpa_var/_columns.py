"""The CLI's column table, read through the library (sv_columns_get)."""

import ctypes
import math

from . import _lib as L

# The statistics issue 16 adds per head (design16.md). While the library's
# per-head column list is a placeholder (no raw_var in it), the per-head
# columns are the summary's result columns plus these, read from the
# per-trial statistics; with the real list they come from the table.
_EXTRA = (("raw_sink_weight", "1", lambda t: t.raw_sink_weight),
          ("scaled_sink_weight", "1", lambda t: t.scaled_sink_weight),
          ("raw_entropy_norm", "1", lambda t: t.raw_entropy_norm),
          ("scaled_entropy_norm", "1", lambda t: t.scaled_entropy_norm),
          ("q_mean_measured", "1", lambda t: t.q_mean),
          ("k_mean_measured", "1", lambda t: t.k_mean),
          ("var_scale", "1/score",
           lambda t: 1.0 / math.sqrt(t.raw_var) if t.raw_var > 0 else math.nan))


class Column:
    """One column: name, unit, type and how to read it from a row view."""

    def __init__(self, name, unit, vtype, flags, need, get=None, extra=None):
        self.name, self.unit, self.type = name, unit, vtype
        self.flags, self.need = flags, need
        self._get, self._extra = get, extra

    def value(self, view):
        if self._extra is not None:
            return self._extra(view.stats.contents)
        v = self._get(ctypes.byref(view))
        if self.type == L.SV_VALUE_REAL:
            return v.real
        if self.type == L.SV_VALUE_COUNT:
            return int(v.count)
        return v.text.decode() if v.text else ""


def table(kind):
    """Every column of output kind @p kind, in output order."""
    out = []
    for i in range(L.lib.sv_columns_count(kind)):
        c = L.lib.sv_columns_get(kind, i).contents
        out.append(Column(c.name.decode(), c.unit.decode(), c.type, c.flags, c.need, c.get))
    return out


def per_head():
    """(columns, placeholder): the per-head columns; placeholder is True
    when the library's list is still issue 16's stub and the columns are
    made from the summary table instead (see _EXTRA)."""
    cols = table(L.SV_OUTPUT_PER_HEAD)
    if any(c.name == "raw_var" for c in cols):
        return cols, False
    have = {c.name for c in cols}
    skip = L.SV_COLUMN_CONFIG | L.SV_COLUMN_ONLY_OBSERVED | L.SV_COLUMN_ONLY_GRAD
    for c in table(L.SV_OUTPUT_SUMMARY):
        if c.flags & skip or c.need == L.SV_NEED_TRIALS2 or c.name in have:
            continue
        cols.append(c)
        have.add(c.name)
    for name, unit, f in _EXTRA:
        if name not in have:
            cols.append(Column(name, unit, L.SV_VALUE_REAL, 0, 0, extra=f))
    return cols, True
