"""The test suite's one safetensors writer, from the format's specification
(huggingface/safetensors): an 8-byte little-endian header size N, N bytes
of JSON {name: {"dtype", "shape", "data_offsets": [begin, end]}} (and an
optional "__metadata__"), padded with spaces to a multiple of 8 as the Rust
writer pads it, then the data, offsets counted from byte 8 + N. Written
from the spec, not by sdpa-var's code or examples/train_tiny.py's writer,
so the tests that read these files check the parser against the format.
Tests import it with tests/io on sys.path."""

import json
import struct

import numpy as np

# numpy dtypes and the format's names for them (BF16 has no numpy dtype:
# pass ("BF16", uint16 bit patterns)).
DTYPES = {np.dtype("<f2"): "F16", np.dtype("<f4"): "F32", np.dtype("<f8"): "F64"}


def safetensors_bytes(tensors, metadata=None, pad=True, header=None, order=None):
    """A file's bytes: tensors is a list of (name, dtype, shape, raw bytes),
    their data in list order (or in the order of the indices @p order);
    @p header replaces the JSON (a malformed file), pad=False leaves it
    unpadded."""
    hdr, blobs, at = {}, [], 0
    if metadata is not None:
        hdr["__metadata__"] = metadata
    for name, dt, shape, raw in (tensors if order is None else [tensors[i] for i in order]):
        hdr[name] = {"dtype": dt, "shape": list(shape), "data_offsets": [at, at + len(raw)]}
        blobs.append(raw)
        at += len(raw)
    text = json.dumps(hdr).encode() if header is None else header
    if pad:
        text += b" " * (-len(text) % 8)
    return struct.pack("<Q", len(text)) + text + b"".join(blobs)


def write_safetensors(path, tensors, metadata=None):
    """Writes {name: array} (float16/32/64, stored little-endian and C
    order) or {name: (dtype name, array)} (e.g. ("BF16", uint16 bits)) to
    @p path."""
    table = []
    for name, t in tensors.items():
        dt, a = t if isinstance(t, tuple) else (None, t)
        a = np.asarray(a)
        a = a.astype(a.dtype.newbyteorder("<"))
        table.append((name, dt or DTYPES[a.dtype], a.shape, np.ascontiguousarray(a).tobytes()))
    with open(path, "wb") as f:
        f.write(safetensors_bytes(table, metadata))
