"""merge(): shards written by `sdpa-var --format state` merged by the
library's own code (sv_state_merge), so the numbers are the CLI's."""
import ctypes
import math
import os

from . import _lib as L
from ._result import summary_stats


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
    # the sv_states, opaque: the library decodes, merges, reads and frees them
    states = ctypes.create_string_buffer(L.STATE_BYTES * len(paths))
    ptrs = (ctypes.c_void_p * len(paths))(
        *[ctypes.addressof(states) + i * L.STATE_BYTES for i in range(len(paths))])
    decoded = 0
    try:
        for i, p in enumerate(paths):
            with open(p, "rb") as f:
                b = f.read()
            st = L.lib.sv_state_decode(b, len(b), ptrs[i])
            if st != L.SV_OK:
                # as `sdpa-var merge` says it
                raise ValueError(os.fsdecode(L.line(L.lib.sv_state_decode_text, b, len(b), st,
                                                    os.fsencode(p))))
            decoded = i + 1
        merged = ctypes.create_string_buffer(L.STATE_BYTES)
        why = ctypes.create_string_buffer(L.STATE_WHY_BYTES)
        st = L.lib.sv_state_merge(ptrs, len(paths), 1, merged, why)
        if st != L.SV_OK:
            if st != L.STATUS["SV_EMISMATCH"]:
                raise ValueError("merge: %s" % L.lib.sv_status_str(st).decode())
            # the library's line naming the shards, as `sdpa-var merge` says it
            names = (ctypes.c_char_p * len(paths))(*[os.fsencode(p) for p in paths])
            raise ValueError(os.fsdecode(L.line(L.lib.sv_state_why_text, why, ptrs, names)))
        try:
            out = []
            for c in range(L.lib.sv_state_config_get(merged, 0, None, None)):
                spec, summ = L.sv_spec(), L.sv_summary()
                st = L.lib.sv_state_summary(merged, c, ctypes.byref(spec), ctypes.byref(summ))
                if st != L.SV_OK:
                    raise ValueError("merge: %s" % L.status_str(st))
                scale_name, observed = L.c_char_p(), L.c_dbl()
                L.lib.sv_state_config_get(merged, c, ctypes.byref(scale_name),
                                          ctypes.byref(observed))
                out.append(summary_stats(spec, summ, scale_name.value,
                                         not math.isnan(observed.value)))
            return out
        finally:
            L.lib.sv_state_free(merged)
    finally:
        for i in range(decoded):
            L.lib.sv_state_free(ptrs[i])
