"""The experiment's parameters, read from the library's table at import
(param.h, SV_PARAM_MAP): their names, kinds, bounds, defaults and choices.
Keywords are set with sv_spec_set from text and refused with the library's
own one-line reasons (sv_param_explain, sv_spec_check_param), so no
default, bound or rule is written here."""

import ctypes
import numbers

from . import _arrays
from . import _lib as L

# sv_param_kind (param.h)
COUNT, REAL, ABOVE, FLAG, NAME, SCALE = range(6)
_NUMERIC = (COUNT, REAL, ABOVE)


class Param:
    """One row of the library's table: index, name, kind, lo, hi, default
    (text, None when not set), implies (a Param name or None), choices
    (names, empty for none)."""

    __slots__ = ("index", "name", "kind", "lo", "hi", "default", "implies", "choices")

    def __repr__(self):
        return "Param(%r, kind=%d, default=%r)" % (self.name, self.kind, self.default)


def _table():
    rows = []
    for i, name in enumerate(L.names(L.lib.sv_param_name)):
        p = Param()
        p.index, p.name = i, name
        out = (L.c_int(), L.c_dbl(), L.c_dbl(), L.c_char_p(), L.c_int())
        L.lib.sv_param_bounds(i, *map(ctypes.byref, out))
        p.kind, p.lo, p.hi, default, p.implies = (x.value for x in out)
        p.default = default.decode() if default is not None else None
        c = L.lib.sv_param_choices(i)  # NULL-terminated, or NULL
        p.choices = tuple(L.names(c.__getitem__)) if c else ()
        rows.append(p)
    for p in rows:
        p.implies = rows[p.implies].name if p.implies >= 0 else None
    return rows


PARAMS = tuple(_table())  # in the table's order: an implied flag before what implies it
BY_NAME = {p.name: p for p in PARAMS}


def default(name):
    """The table's default of parameter @p name as a Python value (None:
    not set): an int for a count, a float for a number, a str otherwise."""
    p = BY_NAME[name]
    if p.default is None or p.kind not in _NUMERIC:
        return p.default
    return int(p.default) if p.kind == COUNT else float(p.default)


def text_of(p, value, keyword):
    """The text sv_spec_set reads for Python @p value of Param @p p: an int in
    decimal, a float by repr (which round-trips; inf and nan the library
    refuses), a bool "1" or "0" for a flag (for a number its repr, refused),
    a str as it is for a name or the scale. TypeError for other types."""
    if p.kind == FLAG:
        if value is None or isinstance(value, bool) or type(value).__name__ == "bool_":
            return "1" if value else "0"
        if isinstance(value, numbers.Integral):
            return str(int(value))
        raise TypeError("%s: %r is not True or False" % (keyword, value))
    if p.kind == SCALE and hasattr(value, "shape"):
        value = _arrays.scalar(value, keyword)  # a 0-dim tensor or array: its number
    if isinstance(value, str) and p.kind in (NAME, SCALE):
        if "\0" in value:  # C would read up to it: 'normal\0x' as normal
            raise ValueError("%s: %r holds a NUL character" % (keyword, value))
        return value
    if isinstance(value, bool):
        return repr(value)  # "True": refused with the library's reason
    if isinstance(value, numbers.Integral):
        return str(int(value))
    if isinstance(value, numbers.Real):
        return repr(float(value))
    if p.kind == NAME:
        return repr(value)  # refused: "'None' is not one of ..."
    raise TypeError("%s: %r is not a number" % (keyword, value))


def set_value(spec, name, value, keyword):
    """sv_spec_set(spec, name, text of @p value); ValueError "keyword: why"
    (sv_param_explain's why) when the library refuses it. Returns the text set."""
    p = BY_NAME[name]
    text = text_of(p, value, keyword)
    raw = text.encode("utf-8", "backslashreplace")
    if L.lib.sv_spec_set(ctypes.byref(spec), p.index, raw) != L.SV_OK:
        why = L.line(L.lib.sv_param_explain, p.index, raw).decode("utf-8", "replace")
        raise ValueError("%s: %s" % (keyword, why))
    return text


def resolve(spec, keywords):
    """sv_spec_resolve; a fault raises ValueError with sv_spec_check_param's
    message, the parameter at fault named by @p keywords (library name ->
    the caller's keyword) when it is the caller's own word for it."""
    st = L.lib.sv_spec_resolve(ctypes.byref(spec))
    if st == L.SV_OK:
        return
    param, other = L.c_int(), L.c_int()
    buf = ctypes.create_string_buffer(256)
    L.lib.sv_spec_check_param(ctypes.byref(spec), ctypes.byref(param), ctypes.byref(other), buf,
                              len(buf))
    msg = buf.value.decode()
    if param.value >= 0:
        name = PARAMS[param.value].name
        mine = keywords.get(name, name)
        if msg.startswith(name + ":") and mine != name:
            msg = mine + msg[len(name):]
    if st == L.SV_ENOMEM:
        raise MemoryError(msg or L.status_str(st))
    raise ValueError(msg or "spec: " + L.status_str(st))
