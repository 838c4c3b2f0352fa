"""The CLI's column table, read through the library (sv_columns_get)."""

import ctypes

from . import _lib as L


class Column:
    """One column: name, unit, type, how to read it from a row view, and how
    its values of several parts combine (reduce: sv_column_reduce_name's
    word, "mean", "max", "first", ...)."""

    def __init__(self, name, unit, vtype, flags, need, get, reduce):
        self.name, self.unit, self.type = name, unit, vtype
        self.flags, self.need, self.reduce = flags, need, reduce
        self._get = get

    def value(self, view):
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
        reduce = L.lib.sv_column_reduce_name(c.reduce)
        out.append(Column(c.name.decode(), c.unit.decode(), c.type, c.flags, c.need, c.get,
                          reduce.decode() if reduce else "none"))
    return out


def per_head():
    """The columns of the CLI's per-head rows (--q/--k; per_head_ids in
    src/report/columns_table.h), in output order."""
    return table(L.SV_OUTPUT_PER_HEAD)
