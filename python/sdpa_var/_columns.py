"""The CLI's column table, read through the library (sv_columns_get)."""

import ctypes

from . import _lib as L


class Column:
    """One column: name, unit, type, how to read it from a row view, and how
    its values of several parts combine (reduce: sv_column_reduce_name's
    word, "mean", "max", "first", ...)."""

    def __init__(self, ptr, reduce):
        c = ptr.contents
        self.name, self.unit, self.type = c.name.decode(), c.unit.decode(), c.type
        self.flags, self.reduce = c.flags, reduce
        self._ptr, self._get = ptr, c.get

    def exists(self, spec, observed, measured):
        """Whether this column has a value in rows of @p spec at all (with
        an @p observed variance; of @p measured arrays rather than random
        draws): the library's rule (sv_column_exists), the CLI's."""
        return bool(L.lib.sv_column_exists(self._ptr, ctypes.byref(spec), int(observed),
                                           int(measured)))

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
        c = L.lib.sv_columns_get(kind, i)
        reduce = L.lib.sv_column_reduce_name(c.contents.reduce)
        out.append(Column(c, reduce.decode() if reduce else "none"))
    return out


def per_head():
    """The columns of the CLI's per-head rows (--q/--k; per_head_ids in
    src/report/columns_table.h), in output order."""
    return table(L.SV_OUTPUT_PER_HEAD)
