"""The monitor reduces each per-head column over batch elements and calls
by the rule of the library's column table (sv_column.reduce, read through
ctypes), not by a guess from the column's name: every per-head column's
rule is the library's, the old hand lists are gone, and an accumulator
follows the table when the table says otherwise (numpy only)."""

import math
import types

import numpy as np

from sdpa_var import _columns, _measure
from sdpa_var import _lib as L
from reference import Checker

chk = Checker("python.reduce")

# Every per-head column's rule, straight from the C descriptors.
for i in range(L.lib.sv_columns_count(L.SV_OUTPUT_PER_HEAD)):
    c = L.lib.sv_columns_get(L.SV_OUTPUT_PER_HEAD, i).contents
    name, word = c.name.decode(), L.lib.sv_column_reduce_name(c.reduce)
    chk.ok(word is not None, "%s has a reduce rule" % name)
    chk.ok(_measure.REDUCE.get(name) == (word or b"").decode(), "%s reduces by the library's "
           "rule" % name, "%s, library %s" % (_measure.REDUCE.get(name), word))
for gone in ("MAXIMA", "MINIMA", "CONSTANT", "SUMS", "POOLED"):
    chk.ok(not hasattr(_measure, gone), "no hand list %s in _measure" % gone)
rules = {c.name: c.reduce for c in _columns.per_head()}
for name, want in (("raw_max_logit", "max"), ("scaled_entropy_min", "min"),
                   ("raw_fp16_headroom", "min"), ("rows_empty", "sum"), ("var_scale", "pooled"),
                   ("kv_head", "first"), ("window", "first"), ("raw_entropy", "mean")):
    chk.ok(rules.get(name) == want, "%s reduces by %s" % (name, want), str(rules.get(name)))


def stats(values):
    """A Stats-like object of one call: 2 batch elements x 1 head of 8
    query rows each (n_q, which every per-head Stats has: the weights)."""
    return types.SimpleNamespace(shape=(2, 1), columns=tuple(values), units={},
                                 values=dict({n: np.asarray(v) for n, v in values.items()},
                                             n_q=np.full((2, 1), 8, dtype=np.uint64)))


def reduced(table):
    """raw_entropy, raw_max_logit, var_scale over two calls, with @p table
    as the column table's rules."""
    saved = dict(_measure.REDUCE)
    _measure.REDUCE.clear()
    _measure.REDUCE.update(table)
    try:
        acc = _measure.Accumulator("batch")
        acc.add(stats({"raw_entropy": [[1.0], [3.0]], "raw_max_logit": [[5.0], [2.0]],
                       "raw_var": [[4.0], [4.0]], "var_scale": [[9.0], [9.0]]}))
        acc.add(stats({"raw_entropy": [[2.0], [2.0]], "raw_max_logit": [[7.0], [1.0]],
                       "raw_var": [[16.0], [16.0]], "var_scale": [[9.0], [9.0]]}))
        return acc.values()
    finally:
        _measure.REDUCE.clear()
        _measure.REDUCE.update(saved)


out = reduced(rules)
chk.close("mean of raw_entropy", out["raw_entropy"][0], 2.0)
chk.close("max of raw_max_logit", out["raw_max_logit"][0], 7.0)
chk.close("var_scale pooled from raw_var", out["var_scale"][0], 1.0 / math.sqrt(10.0))
# The table says otherwise: the accumulator follows it.
swapped = dict(rules, raw_entropy="max", raw_max_logit="mean", var_scale="none")
out = reduced(swapped)
chk.close("raw_entropy by the table's max", out["raw_entropy"][0], 3.0)
chk.close("raw_max_logit by the table's mean", out["raw_max_logit"][0], 3.75)
chk.ok("var_scale" not in out, "a column without a rule is left out")
chk.done()
