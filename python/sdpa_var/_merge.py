"""merge(): shards written by `sdpa-var --format state` merged by the
library's own code (sv_state_merge), so the numbers are the CLI's."""
import ctypes
import math
import os

from . import _lib as L
from ._result import summary_stats


def _unread(path, data, st):
    """Why @p path's bytes @p data do not decode (status @p st), as
    `sdpa-var merge` says it (sv_state_decode_text)."""
    name = os.fsencode(path)
    n = L.lib.sv_state_decode_text(data, len(data), st, name, None, 0)
    line = ctypes.create_string_buffer(n + 1)
    L.lib.sv_state_decode_text(data, len(data), st, name, line, len(line))
    return os.fsdecode(line.value)


def _refused(ptrs, paths, why, st):
    """Why the decoded shards @p ptrs (read from @p paths) do not merge, as
    `sdpa-var merge` says it: the library's line naming the shards
    (sv_state_why_text) for mismatched shards, else the status."""
    if st != L.STATUS["SV_EMISMATCH"]:
        return "merge: %s" % L.lib.sv_status_str(st).decode()
    names = (ctypes.c_char_p * len(paths))(*[os.fsencode(p) for p in paths])
    n = L.lib.sv_state_why_text(ctypes.byref(why), ptrs, names, None, 0)
    line = ctypes.create_string_buffer(n + 1)
    L.lib.sv_state_why_text(ctypes.byref(why), ptrs, names, line, len(line))
    return os.fsdecode(line.value)


def merge(paths):
    """Reads the state files @p paths (shards of trials and query rows, in
    any order: docs/scaling.md) and returns one Stats(kind="summary") per
    configuration: what `sdpa-var merge FILE...` prints, the same numbers.
    Raises ValueError naming the file for a corrupt, truncated, mismatched,
    overlapping or missing shard, with the line `sdpa-var merge` prints
    after "merge: "; OSError when a file cannot be read.
    A user who runs shards with multiprocessing, Dask or Ray writes each
    shard's state with the CLI (or keeps its bytes) and merges them here."""
    paths = [os.fspath(p) for p in paths]
    if not paths:
        raise ValueError("merge: no state files")
    states = (L.sv_state * len(paths))()
    decoded = 0
    try:
        for i, p in enumerate(paths):
            with open(p, "rb") as f:
                b = f.read()
            st = L.lib.sv_state_decode(b, len(b), ctypes.byref(states[i]))
            if st != L.SV_OK:
                raise ValueError(_unread(p, b, st))
            decoded = i + 1
        ptrs = (ctypes.c_void_p * len(paths))(
            *[ctypes.addressof(states[i]) for i in range(len(paths))])
        merged, why = L.sv_state(), L.sv_state_why()
        st = L.lib.sv_state_merge(ptrs, len(paths), 1, ctypes.byref(merged), ctypes.byref(why))
        if st != L.SV_OK:
            raise ValueError(_refused(ptrs, paths, why, st))
        try:
            out = []
            for c in range(merged.n_configs):
                spec, summ = L.sv_spec(), L.sv_summary()
                st = L.lib.sv_state_summary(ctypes.byref(merged), c, ctypes.byref(spec),
                                            ctypes.byref(summ))
                if st != L.SV_OK:
                    raise ValueError("merge: %s" % L.status_str(st))
                cfg = merged.configs[c]
                out.append(summary_stats(spec, summ, cfg.scale_name,
                                         not math.isnan(cfg.observed)))
            return out
        finally:
            L.lib.sv_state_free(ctypes.byref(merged))
    finally:
        for i in range(decoded):
            L.lib.sv_state_free(ctypes.byref(states[i]))
