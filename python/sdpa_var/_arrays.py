"""numpy arrays and torch tensors -> sv_array, without copying."""

import numbers
import sys

import numpy as np

from . import _lib as L

_NATIVE = "<" if sys.byteorder == "little" else ">"


def is_torch(x):
    return type(x).__module__.startswith("torch") and hasattr(x, "detach")


def dtype_error(name, dtype, allow_bool=False):
    """The TypeError for tensor @p name of a dtype the engine does not read,
    in stats()' words; the torch backend's check says the same (check_shapes)."""
    return TypeError("%s: dtype %s is not %sfloat16, bfloat16, float32 or float64"
                     % (name, dtype, "bool, " if allow_bool else ""))


def _from_torch(t, name, allow_bool=False):
    """A numpy view of tensor @p t sharing its memory, and its sv_dtype."""
    import torch

    t = t.detach()
    if t.device.type != "cpu":
        raise ValueError("%s: tensor is on %s; the engine reads CPU memory (%s.cpu())"
                         % (name, t.device, name))
    if allow_bool and t.dtype == torch.bool:
        return t.numpy(), L.SV_DTYPE_BOOL
    if t.dtype == torch.bfloat16:
        # The 16-bit pattern, decoded in C: view() keeps the strides.
        try:
            bits = t.view(torch.int16)
        except RuntimeError as e:
            raise ValueError("%s: bfloat16 tensor with strides %s cannot be handed over as "
                             "its bit pattern (%s); pass %s.contiguous()"
                             % (name, tuple(t.stride()), e, name)) from None
        return bits.numpy(), L.SV_DTYPE_BFLOAT16
    if t.dtype not in (torch.float16, torch.float32, torch.float64):
        raise dtype_error(name, t.dtype, allow_bool)
    if t.is_conj() or t.is_neg():
        t = t.resolve_conj().resolve_neg()
    return t.numpy(), None


def as_array(x, name, allow_bool=False):
    """(sv_array, owner): @p x described for the engine; owner keeps the
    memory alive. allow_bool: a boolean array is taken (a mask). Raises
    TypeError for a dtype the engine does not read, ValueError for ndim
    outside 2..4 or an empty array."""
    dtype = None
    if is_torch(x):
        arr, dtype = _from_torch(x, name, allow_bool)
    elif isinstance(x, np.ndarray):
        arr = x
    else:
        try:
            arr = np.asarray(x)
        except Exception as e:  # a ragged list, an object
            raise TypeError("%s: not an array (%s)" % (name, e)) from None
    if dtype is None and allow_bool and arr.dtype == np.bool_:
        dtype = L.SV_DTYPE_BOOL
    if dtype is None:
        dt = arr.dtype
        if dt.kind != "f" or dt.itemsize not in (2, 4, 8):
            raise TypeError("%s: dtype %s is not %sfloat16, bfloat16 (torch), float32 or float64"
                            % (name, dt, "bool, " if allow_bool else ""))
        dtype = {8: L.SV_DTYPE_FLOAT64, 4: L.SV_DTYPE_FLOAT32, 2: L.SV_DTYPE_FLOAT16}[dt.itemsize]
    if not 2 <= arr.ndim <= 4:
        raise ValueError("%s: %d-D; expected 2-D (n x d), 3-D (heads x n x d) or 4-D "
                         "(batch x heads x n x d)" % (name, arr.ndim))
    if arr.size == 0:
        raise ValueError("%s: empty array of shape %s" % (name, arr.shape))
    a = L.sv_array()
    a.data = arr.ctypes.data
    a.dtype = dtype
    a.byte_swapped = int(arr.dtype.byteorder not in ("=", "|", _NATIVE))
    a.ndim = arr.ndim
    for i in range(arr.ndim):
        a.shape[i] = arr.shape[i]
        a.strides[i] = arr.strides[i]
    return a, arr


def scalar(x, what):
    """The number a 0-dim (or one-element) numpy array or torch tensor
    holds (.item()), as torch's own scale arguments accept; anything else,
    a complex one included, unchanged (checked after). TypeError naming
    @p what for an array of more than one value."""
    if hasattr(x, "shape") and hasattr(x, "item") and not isinstance(x, numbers.Real):
        if int(np.prod(x.shape)) != 1:
            raise TypeError("%s: %s of shape %s is not one number"
                            % (what, "a tensor" if is_torch(x) else "an array", tuple(x.shape)))
        if getattr(getattr(x, "dtype", None), "is_complex", False):
            return x
        return x.item()
    return x


def dims(a):
    """(batch, heads, rows, cols) of an sv_array, a missing axis as 1."""
    return (1,) * (4 - a.ndim) + tuple(a.shape[:a.ndim])

