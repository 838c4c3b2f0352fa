"""Loading libsdpa_var with ctypes and the mirrors of its public structs.

The library is found through _config.py, which CMake writes next to this
file: in the build tree (build/python/sdpa_var, pointing at
build/libsdpa_var.so.MAJOR.MINOR) and at install (pointing at
${prefix}/${CMAKE_INSTALL_LIBDIR}/libsdpa_var.so.MAJOR.MINOR), in both cases
as a path relative to this package, so no LD_LIBRARY_PATH is needed.

Every function the package calls has its signature here (SIGNATURES, by
header), and every struct here mirrors one in include/sdpa_var/*.h field
by field (same order, same C types), but sv_summary, of which only the
first member is laid out; sv_trial_stats is built from the library's own
list of its fields (sv_trial_field_name). Structs the package only passes
(sv_source, sv_strided_why, sv_state, sv_state_why) are bytes of the C
size. At import the library's ABI version (sv_abi_version) must equal the
one this package was configured with, and each mirror's size must equal
the C sizeof (sv_struct_size): a mismatch, or a library without one of
the functions used here, raises ImportError naming both values, never a
silent misread.
"""

import ctypes
import os

from . import _config

c_size = ctypes.c_size_t
c_ssize = ctypes.c_ssize_t  # ptrdiff_t
c_u64 = ctypes.c_uint64
c_dbl = ctypes.c_double
c_int = ctypes.c_int
c_uint = ctypes.c_uint
c_char_p = ctypes.c_char_p


def _library_path():
    here = os.path.dirname(os.path.abspath(__file__))
    return os.path.normpath(os.path.join(here, _config.LIBRARY))


def _open():
    """The library, with the few functions the mirrors below are built from
    bound; if it lacks them, _load names them with the others it lacks."""
    path = _library_path()
    try:
        cdll = ctypes.CDLL(path)
    except OSError as e:
        raise ImportError("sdpa_var: cannot load the engine library %s (from _config.py, "
                          "written by CMake): %s" % (path, e)) from None
    if _has(cdll, _EARLY):
        _bind(path, cdll, _EARLY)
    return cdll


def _has(cdll, names):
    return all(hasattr(cdll, name) for name in names)


def _bind(path, cdll, sigs):
    missing = [name for name in sigs if not hasattr(cdll, name)]
    if missing:
        raise ImportError("sdpa_var: %s lacks %s: the library is older than this package "
                          "(reinstall the package with its library)" % (path, ", ".join(missing)))
    for name, (res, args) in sigs.items():
        f = getattr(cdll, name)
        f.restype, f.argtypes = res, args


_EARLY = {"sv_struct_size": (c_size, [c_char_p]),
          "sv_trial_field_count": (c_size, []),
          "sv_trial_field_name": (c_char_p, [c_size])}
_cdll = _open()
_bound = _has(_cdll, _EARLY)  # else _load raises ImportError naming them

SV_ARRAY_MAX_DIMS = 4

# sv_dtype (source.h)
SV_DTYPE_FLOAT64, SV_DTYPE_FLOAT32, SV_DTYPE_FLOAT16, SV_DTYPE_BFLOAT16, SV_DTYPE_BOOL = \
    0, 1, 2, 3, 4

# sv_layout (source.h); the names are the library's (sv_layout_name)
SV_LAYOUT_BHND = 0

# sv_output_kind (columns.h)
SV_OUTPUT_SUMMARY, SV_OUTPUT_PER_HEAD = 0, 4

# sv_value_type, sv_column flags (columns.h); which columns exist is the
# library's rule (sv_column_exists)
SV_VALUE_REAL, SV_VALUE_COUNT, SV_VALUE_TEXT = 0, 1, 2
SV_COLUMN_CONFIG = 2

# sv_run_options.want (run.h): the summary, the trials' sd and the quantiles
SV_RUN_ALL = 7


class sv_spec(ctypes.Structure):
    """spec.h: struct sv_spec."""
    _fields_ = [("d_k", c_size), ("n_q", c_size), ("n_k", c_size),
                ("trials", c_u64), ("seed", c_u64), ("dist", c_int),
                ("nu", c_dbl), ("scale", c_dbl), ("scale2", c_dbl),
                ("q_mean", c_dbl), ("q_std", c_dbl), ("k_mean", c_dbl),
                ("k_std", c_dbl), ("qk_norm", c_int), ("qk_radius", c_dbl),
                ("d_model", c_size), ("init", c_int), ("cross", c_int),
                ("causal", c_int), ("values", c_int), ("d_v", c_size),
                ("plant", c_dbl), ("ddof", c_uint), ("grad", c_int),
                ("window", c_size), ("scale_logn", c_int), ("scale_rule", c_int)]


class sv_array(ctypes.Structure):
    """source.h: struct sv_array (numpy axis order, byte strides)."""
    _fields_ = [("data", ctypes.c_void_p), ("dtype", c_int),
                ("byte_swapped", c_int), ("ndim", c_int),
                ("shape", c_size * SV_ARRAY_MAX_DIMS),
                ("strides", c_ssize * SV_ARRAY_MAX_DIMS)]


class sv_strided(ctypes.Structure):
    """source.h: struct sv_strided."""
    _fields_ = [("q", sv_array), ("k", sv_array), ("v", sv_array), ("g", sv_array),
                ("mask", sv_array)]


class sv_head(ctypes.Structure):
    """source.h: struct sv_head."""
    _fields_ = [("batch", c_size), ("head", c_size), ("kv_head", c_size)]


PROGRESS_FN = ctypes.CFUNCTYPE(None, ctypes.c_void_p, c_u64, c_u64)


class sv_exec(ctypes.Structure):
    """engine.h: struct sv_exec."""
    _fields_ = [("threads", c_int), ("block_rows", c_size),
                ("progress", PROGRESS_FN), ("progress_ctx", ctypes.c_void_p),
                ("cancel", ctypes.POINTER(c_int))]


# engine.h: sv_trial_stats, doubles in the order of the library's table
# (SV_TRIAL_STATS_MAP), read from the library itself: a statistic added
# there needs nothing here.
TRIAL_FIELDS = tuple(_cdll.sv_trial_field_name(i).decode()
                     for i in range(_cdll.sv_trial_field_count() if _bound else 0))


class sv_trial_stats(ctypes.Structure):
    """engine.h: struct sv_trial_stats (a double per TRIAL_FIELDS name)."""
    _fields_ = [(name, c_dbl) for name in TRIAL_FIELDS]


class sv_summary(ctypes.Structure):
    """summary.h: struct sv_summary: its first member, mean, which a row
    view's stats points at; the rest (spreads, theories, scale, ...) only
    the library reads, so it is held as bytes, up to the C size."""
    _fields_ = [("mean", sv_trial_stats),
                ("rest", ctypes.c_char * (_cdll.sv_struct_size(b"sv_summary") -
                                          ctypes.sizeof(sv_trial_stats) if _bound else 0))]


class sv_row_view(ctypes.Structure):
    """columns.h: struct sv_row_view."""
    _fields_ = [("spec", ctypes.POINTER(sv_spec)), ("scale_name", c_char_p),
                ("stats", ctypes.POINTER(sv_trial_stats)),
                ("summary", ctypes.POINTER(sv_summary)), ("trial", c_u64),
                ("row", c_size), ("row_sums", ctypes.POINTER(c_dbl)),
                ("bin_lo", c_dbl), ("bin_hi", c_dbl), ("bin_count", c_u64 * 2),
                ("head", ctypes.POINTER(sv_head)), ("logits", ctypes.c_void_p),
                ("masked", ctypes.c_int)]


class sv_value(ctypes.Structure):
    """columns.h: struct sv_value."""
    _fields_ = [("real", c_dbl), ("count", c_u64), ("text", c_char_p)]


class sv_head_row(ctypes.Structure):
    """run.h: struct sv_head_row."""
    _fields_ = [("plug", sv_spec), ("summary", sv_summary), ("view", sv_row_view)]


class sv_run_options(ctypes.Structure):
    """run.h: struct sv_run_options (the callbacks unused: NULL)."""
    _fields_ = [("first", c_u64), ("chunk", c_u64), ("want", c_uint), ("observed", c_dbl),
                ("on_chunk", ctypes.c_void_p), ("ctx", ctypes.c_void_p),
                ("progress", ctypes.c_void_p), ("keep", ctypes.POINTER(sv_trial_stats))]


GETTER_FN = ctypes.CFUNCTYPE(sv_value, ctypes.POINTER(sv_row_view))


class sv_column(ctypes.Structure):
    """columns.h: struct sv_column."""
    _fields_ = [("name", c_char_p), ("unit", c_char_p), ("doc", c_char_p),
                ("type", c_int), ("need", c_int), ("flags", c_uint),
                ("get", GETTER_FN), ("reduce", c_int)]


# Every mirror above, by C name: import checks each against sv_struct_size.
MIRRORS = {name: t for name, t in globals().items()
           if name.startswith("sv_") and isinstance(t, type) and issubclass(t, ctypes.Structure)}

P = ctypes.POINTER


# Every function the package calls, (restype, argtypes) once, by header in
# its order, as llama-cpp-python's llama_cpp.py mirrors llama.h; _EARLY
# above has the three the mirrors are built from (engine.h, version_query.h).
SIGNATURES = {
    # status.h
    "sv_status_str": (c_char_p, [c_int]),
    "sv_status_name": (c_char_p, [c_int]),
    # spec.h
    "sv_spec_resolve": (c_int, [P(sv_spec)]),
    # param.h
    "sv_param_name": (c_char_p, [c_int]),
    "sv_param_bounds": (c_int, [c_int, P(c_int), P(c_dbl), P(c_dbl), P(c_char_p), P(c_int)]),
    "sv_param_choices": (P(c_char_p), [c_int]),
    "sv_spec_defaults": (c_int, [P(sv_spec)]),
    "sv_spec_set": (c_int, [P(sv_spec), c_int, c_char_p]),
    "sv_param_explain": (c_size, [c_int, c_char_p, c_char_p, c_size]),
    "sv_spec_check_param": (c_int, [P(sv_spec), P(c_int), P(c_int), c_char_p, c_size]),
    # source.h
    "sv_source_draw": (c_int, [P(sv_spec), ctypes.c_void_p]),
    "sv_layout_name": (c_char_p, [c_int]),
    "sv_layout_parse": (c_int, [c_char_p, P(c_int)]),
    "sv_array_to_bhnd": (c_int, [P(sv_array), c_int]),
    "sv_strided_check": (c_int, [P(sv_strided), P(sv_spec), ctypes.c_void_p]),
    "sv_strided_explain": (c_int, [ctypes.c_void_p, ctypes.c_void_p, c_char_p, c_size]),
    "sv_strided_head": (c_int, [P(sv_strided), c_u64, P(c_u64), P(sv_head)]),
    "sv_strided_sizes": (c_int, [P(sv_strided), P(sv_spec)]),
    "sv_source_strided": (c_int, [P(sv_strided), ctypes.c_void_p]),
    # summary.h
    "sv_summary_compute": (c_int, [P(sv_spec), P(sv_trial_stats), c_dbl, P(sv_summary)]),
    # run.h
    "sv_pool_name": (c_char_p, [c_int]),
    "sv_run": (c_int, [P(sv_spec), ctypes.c_void_p, P(sv_exec), ctypes.c_void_p,
                       P(sv_run_options), P(sv_summary)]),
    "sv_head_row_make": (c_int, [P(sv_spec), c_char_p, P(sv_trial_stats), P(sv_head), c_u64,
                                 P(sv_summary), c_int, P(sv_head_row)]),
    # rowfold.h
    "sv_trial_sum_name": (c_char_p, [c_size]),
    "sv_trial_sums_finish": (c_int, [P(sv_spec), P(c_dbl), c_size, P(sv_trial_stats)]),
    # columns.h
    "sv_columns_count": (c_size, [c_int]),
    "sv_columns_get": (P(sv_column), [c_int, c_size]),
    "sv_per_head_values": (c_int, [P(sv_spec), P(sv_trial_stats), c_size, c_char_p, c_int,
                                   P(sv_value)]),
    "sv_columns_first_undefined": (P(sv_column), [c_int, P(sv_row_view), c_int]),
    "sv_column_exists": (c_int, [P(sv_column), P(sv_spec), c_int, c_int]),
    "sv_column_reduce_name": (c_char_p, [c_int]),
    # state.h
    "sv_state_decode": (c_int, [c_char_p, c_size, ctypes.c_void_p]),
    "sv_state_decode_text": (c_size, [c_char_p, c_size, c_int, c_char_p, c_char_p, c_size]),
    "sv_state_merge": (c_int, [ctypes.c_void_p, c_size, c_int, ctypes.c_void_p, ctypes.c_void_p]),
    "sv_state_summary": (c_int, [ctypes.c_void_p, c_size, P(sv_spec), P(sv_summary)]),
    "sv_state_config_get": (c_size, [ctypes.c_void_p, c_size, P(c_char_p), P(c_dbl)]),
    "sv_state_why_text": (c_size, [ctypes.c_void_p, ctypes.c_void_p, P(c_char_p), c_char_p,
                                   c_size]),
    "sv_state_free": (None, [ctypes.c_void_p]),
    # version_query.h
    "sv_version": (c_char_p, []),
    "sv_abi_version": (c_uint, []),
}


def _load():
    """The library, every signature bound, its ABI version and each mirror's size checked."""
    path, lib = _library_path(), _cdll
    _bind(path, lib, {**SIGNATURES, **_EARLY})
    abi = lib.sv_abi_version()
    if abi != _config.ABI_VERSION:
        raise ImportError("sdpa_var: %s has ABI version %d, this package was configured for %d "
                          "(reinstall the package with its library)"
                          % (path, abi, _config.ABI_VERSION))
    for cname, mirror in MIRRORS.items():
        c = lib.sv_struct_size(cname.encode())
        if c != ctypes.sizeof(mirror):
            raise ImportError("sdpa_var: sizeof(%s) is %d in %s but %d in the package's ctypes "
                              "mirror (_lib.py): library and package do not match"
                              % (cname, c, path, ctypes.sizeof(mirror)))
    return lib


lib = _load()
# An sv_source is a small struct of plain values and function pointers; the
# package never reads it, so it is held as opaque bytes of the C size.
SOURCE_BYTES = lib.sv_struct_size(b"sv_source")
# sv_strided_why and sv_state_why likewise: sv_strided_check and
# sv_state_merge fill them, sv_strided_explain and sv_state_why_text read them;
# and sv_state: the library's functions fill, read (sv_state_config_get) and free it.
STRIDED_WHY_BYTES = lib.sv_struct_size(b"sv_strided_why")
STATE_WHY_BYTES = lib.sv_struct_size(b"sv_state_why")
STATE_BYTES = lib.sv_struct_size(b"sv_state")


def names(name_of):
    """name_of(0), name_of(1), ... decoded, up to its first NULL: the names
    of a library table (sv_status_name, sv_layout_name, sv_param_name, ...)."""
    out = []
    while name_of(len(out)) is not None:
        out.append(name_of(len(out)).decode())
    return out


def line(fn, *args):
    """The whole text fn(*args, buf, len) writes as snprintf does (its
    length from a first call with NULL and 0), as bytes."""
    buf = ctypes.create_string_buffer(fn(*args, None, 0) + 1)
    fn(*args, buf, len(buf))
    return buf.value


# sv_status (status.h) from the library: {"SV_OK": 0, ...}
STATUS = {name: code for code, name in enumerate(names(lib.sv_status_name))}
SV_OK, SV_ENOMEM = STATUS["SV_OK"], STATUS["SV_ENOMEM"]
SV_ENONFINITE, SV_ECANCELED = STATUS["SV_ENONFINITE"], STATUS["SV_ECANCELED"]


def status_str(st):
    """The library's message for status @p st, with its name."""
    name = lib.sv_status_name(st)
    return "%s (%s)" % (lib.sv_status_str(st).decode(), name.decode() if name else st)


def version():
    """The library's version, sv_version()."""
    return lib.sv_version().decode()
