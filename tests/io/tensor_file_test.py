#!/usr/bin/python3
"""The tensor-file parsers against numpy and the safetensors spec.

Usage: tensor_file_test.py TENSOR_DUMP

numpy writes .npy files in every dtype sdpa-var reads (float16, float32,
float64), both byte orders, C and Fortran order, and format versions 1.0,
2.0 and 3.0 (numpy.lib.format.write_array); safetensors files are written
here by hand from the format's spec (8-byte little-endian header size, JSON
header, data; several tensors, F16, BF16, F32, F64). tensor_dump parses
each with the library and prints every element widened to double in
numpy's logical order; each must equal numpy's astype(float64) exactly
(widening half, bfloat16 and single to double is exact, and %.17g
round-trips a double). Then malformed and unsupported files: tensor_dump
must exit 1 with one "status N: why" line naming what is wrong.
"""
import io
import json
import os
import struct
import subprocess
import sys
import tempfile

import numpy as np
import numpy.lib.format as npf

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from safetensors_file import safetensors_bytes as st_bytes  # noqa: E402

FAILED = []
PASSED = [0]

# sv_status values (include/sdpa_var/status.h)
EFORMAT, EMISMATCH, EUNSUPPORTED, ERANGE = 5, 6, 9, 2
DTYPE = {np.dtype(np.float64): 0, np.dtype(np.float32): 1, np.dtype(np.float16): 2}


def check(cond, what):
    if cond:
        PASSED[0] += 1
    else:
        FAILED.append(what)
        print("FAILED:", what, file=sys.stderr)


def run(dump, path, name=None):
    args = [dump, path] + ([name] if name is not None else [])
    return subprocess.run(args, capture_output=True, text=True)


def same(got, want):
    """Exact equality of doubles, NaN equal to NaN."""
    return got.shape == want.shape and bool(
        np.all((got == want) | (np.isnan(got) & np.isnan(want))))


def check_values(dump, path, want, dtype_code, label, name=None):
    r = run(dump, path, name)
    if r.returncode != 0:
        check(False, "%s: exit %d: %s" % (label, r.returncode, r.stderr.strip()))
        return
    lines = r.stdout.split("\n")
    head = lines[0].split()
    shape = tuple(int(x) for x in head[3:])
    check(int(head[0]) == dtype_code, "%s: dtype %s, want %d" % (label, head[0], dtype_code))
    check(shape == want.shape, "%s: shape %s, want %s" % (label, shape, want.shape))
    got = np.array([float(x) for x in lines[1:] if x], dtype=np.float64)
    ref = want.astype(np.float64).ravel()  # logical (C) order whatever the memory order
    check(same(got, ref), "%s: values differ (%d of %d)" % (
        label, int(np.sum(~((got == ref) | (np.isnan(got) & np.isnan(ref))))) if got.shape == ref.shape
        else -1, ref.size))


def check_error(dump, path, status, words, label, name=None):
    r = run(dump, path, name)
    err = r.stderr.strip()
    ok = (r.returncode == 1 and r.stdout == "" and err.startswith("status %d: " % status)
          and "\n" not in err and all(w in err for w in words) and err.isprintable())
    check(ok, "%s: exit %d, stderr %r; want status %d naming %s" % (
        label, r.returncode, err, status, words))


def special_values(dtype, shape, rng):
    """Random values plus the edge cases of dtype: subnormals, infinities,
    NaN, signed zero, the largest finite."""
    a = rng.standard_normal(shape).astype(dtype)
    info = np.finfo(dtype)
    flat = a.reshape(-1)
    edge = [0.0, -0.0, np.inf, -np.inf, np.nan, info.max, -info.max, info.tiny,
            info.smallest_subnormal, -info.smallest_subnormal, info.smallest_subnormal * 3, 1.0]
    flat[:len(edge)] = np.array(edge, dtype=dtype)
    return a


def npy_cases(dump, tmp, rng):
    n = 0
    for dtype in (np.float16, np.float32, np.float64):
        for order_char in "<>":
            for fortran in (False, True):
                for version in ((1, 0), (2, 0), (3, 0)):
                    for shape in ((3, 5), (2, 3, 4), (2, 3, 4, 5)):
                        dt = np.dtype(dtype).newbyteorder(order_char)
                        a = special_values(dtype, shape, rng).astype(dt)
                        if fortran:
                            a = np.asfortranarray(a)
                        path = os.path.join(tmp, "a%d.npy" % n)
                        with open(path, "wb") as f:
                            npf.write_array(f, a, version=version)
                        label = "npy %s %s %s v%d.%d %s" % (
                            dt.str, "F" if fortran else "C", shape, *version, "")
                        check_values(dump, path, a, DTYPE[np.dtype(dtype)], label)
                        n += 1
    # np.save's default path, a non-contiguous view saved (numpy copies it).
    a = rng.standard_normal((6, 8))[::2, ::-1]
    path = os.path.join(tmp, "view.npy")
    np.save(path, a)
    check_values(dump, path, a, 0, "npy np.save of a view")
    return n


def bf16(a32):
    """bfloat16 bits of float32 values (their high halves, truncated) and
    the float32 values those bits stand for."""
    bits = (np.ascontiguousarray(a32, dtype="<f4").view("<u4") >> 16).astype("<u2")
    return bits.tobytes(), (bits.astype("<u4") << 16).view("<f4")


def safetensors_cases(dump, tmp, rng):
    q = special_values(np.float32, (2, 3, 4, 5), rng)
    k = special_values(np.float16, (2, 3, 5), rng)
    v = special_values(np.float64, (7, 5), rng)
    b_raw, b_val = bf16(special_values(np.float32, (3, 4), rng))
    tensors = [("q", "F32", q.shape, q.astype("<f4").tobytes()),
               ("k", "F16", k.shape, k.astype("<f2").tobytes()),
               ("v", "F64", v.shape, v.astype("<f8").tobytes()),
               ("bf", "BF16", (3, 4), b_raw),
               ("ids", "I64", (4,), np.arange(4, dtype="<i8").tobytes())]
    path = os.path.join(tmp, "layer.safetensors")
    with open(path, "wb") as f:
        f.write(st_bytes(tensors, metadata={"format": "pt"}, order=[3, 0, 4, 2, 1]))
    check_values(dump, path, q, 1, "safetensors F32 4-D", "q")
    check_values(dump, path, k, 2, "safetensors F16 3-D", "k")
    check_values(dump, path, v, 0, "safetensors F64 2-D", "v")
    check_values(dump, path, b_val.reshape(3, 4), 3, "safetensors BF16", "bf")
    check_error(dump, path, EUNSUPPORTED, ["'ids'", "I64"], "safetensors I64 tensor", "ids")
    check_error(dump, path, EMISMATCH, ["'x'", "'q'", "'ids'"], "safetensors name not found", "x")
    check_error(dump, path, EMISMATCH, ["5 tensors", "'q'"], "safetensors no name, several")
    one = os.path.join(tmp, "one.safetensors")
    with open(one, "wb") as f:
        f.write(st_bytes(tensors[2:3], pad=False))
    check_values(dump, one, v, 0, "safetensors only tensor, no name")
    return path


def write(tmp, name, data):
    path = os.path.join(tmp, name)
    with open(path, "wb") as f:
        f.write(data)
    return path


def npy_bad(dump, tmp):
    good = io.BytesIO()
    npf.write_array(good, np.arange(12, dtype="<f8").reshape(3, 4), version=(1, 0))
    g = good.getvalue()
    cases = [
        ("truncated data", g[:-8], EFORMAT, ["truncated", "96 bytes"]),
        ("truncated header", g[:40], EFORMAT, ["past the end"]),
        ("truncated preamble", g[:8], EFORMAT, ["truncated"]),
        ("wrong magic", b"\x93NUMPZ" + g[6:], EFORMAT, ["not a .npy"]),
        ("version 4.0", g[:6] + b"\x04\x00" + g[8:], EFORMAT, ["version 4.0"]),
        ("lying header length", g[:8] + struct.pack("<H", 5000) + g[10:], EFORMAT,
         ["past the end"]),
        ("extra data", g + b"\0" * 8, EFORMAT, ["longer"]),
    ]
    for label, data, status, words in cases:
        check_error(dump, write(tmp, "bad.npy", data), status, words, "npy " + label)
    # numpy's own files of dtypes sdpa-var does not read.
    for label, arr, words in (
            ("int32", np.arange(6, dtype="<i4").reshape(2, 3), ["'<i4'"]),
            ("complex", np.zeros((2, 3), complex), ["'<c16'"]),
            ("object", np.array([[1, "a"], [None, 2.0]], dtype=object), ["'|O'", "objects"]),
            ("structured", np.zeros((2, 3), [("x", "<f8"), ("y", "<f4")]), ["structured"]),
            ("1-D", np.zeros(5), ["(5,)", "1 dimension"]),
            ("5-D", np.zeros((1, 1, 1, 1, 2)), ["5 dimensions"]),
            ("zero dimension", np.zeros((0, 4)), ["(0, 4)", "zero"])):
        path = os.path.join(tmp, "bad.npy")
        np.save(path, arr, allow_pickle=True)
        check_error(dump, path, EUNSUPPORTED, words, "npy " + label)

    def with_header(text, version=(1, 0), data=b"\0" * 96):
        h = text.encode("latin1") + b"\n"
        pre = b"\x93NUMPY" + bytes(version) + (
            struct.pack("<H", len(h)) if version == (1, 0) else struct.pack("<I", len(h)))
        return pre + h + data

    ok_dict = "{'descr': '<f8', 'fortran_order': False, 'shape': (3, 4), }"
    check_values(dump, write(tmp, "h.npy", with_header(
        '{ "shape" : (3,4) ,"descr":"<f8",  "fortran_order":False}')),
        np.zeros((3, 4)), 0, "npy keys reordered, double quotes, no spaces")
    check_values(dump, write(tmp, "h.npy", with_header(
        "{'descr': '<f8', 'fortran_order': False, 'shape': (3L, 4L), }")),
        np.zeros((3, 4)), 0, "npy Python 2 long suffix (v1.0)")
    for label, text, status, words in (
            ("not a dict", "[1, 2]", EFORMAT, ["'{'"]),
            ("missing key", "{'descr': '<f8', 'shape': (3, 4)}", EFORMAT, ["fortran_order"]),
            ("extra key", ok_dict[:-1] + "'x': 1}", EFORMAT, ["'x'"]),
            ("duplicate key", ok_dict[:-1] + "'shape': (3, 4)}", EFORMAT, ["twice"]),
            ("shape list", ok_dict.replace("(3, 4)", "[3, 4]"), EFORMAT, ["tuple"]),
            ("shape int", ok_dict.replace("(3, 4)", "(3)"), EFORMAT, ["','"]),
            ("negative", ok_dict.replace("(3, 4)", "(-3, 4)"), EFORMAT, ["non-negative"]),
            ("fortran 1", ok_dict.replace("False", "1"), EFORMAT, ["True or False"]),
            ("junk after", ok_dict + "x", EFORMAT, ["whitespace"]),
            ("unterminated", "{'descr': '<f8", EFORMAT, ["malformed"]),
            ("overflow", ok_dict.replace("(3, 4)", "(3, 99999999999999999999999)"), ERANGE,
             ["overflows"]),
            ("long double", ok_dict.replace("<f8", "<f16"), EUNSUPPORTED, ["'<f16'"])):
        check_error(dump, write(tmp, "h.npy", with_header(text)), status, words, "npy " + label)


def st_bad(dump, tmp):
    a = np.arange(6, dtype="<f4").reshape(2, 3)
    t = [("q", "F32", (2, 3), a.tobytes())]
    good = st_bytes(t)
    n = struct.unpack("<Q", good[:8])[0]
    hdr = lambda d: st_bytes(t, header=json.dumps(d).encode())
    ent = {"dtype": "F32", "shape": [2, 3], "data_offsets": [0, 24]}
    cases = [
        ("truncated size", good[:5], EFORMAT, ["truncated"]),
        ("truncated data", good[:-4], EFORMAT, ["past the data"]),
        ("lying header size", struct.pack("<Q", n + 1000) + good[8:], EFORMAT,
         ["runs past the end"]),
        ("header size past limit", struct.pack("<Q", 100000001) + good[8:], EFORMAT, ["limit"]),
        ("not JSON", struct.pack("<Q", 8) + b"{'q': 1}" + a.tobytes(), EFORMAT, ["not valid JSON"]),
        ("JSON array", st_bytes(t, header=b"[1, 2]"), EFORMAT, ["not a JSON object"]),
        ("offsets past end", hdr({"q": dict(ent, data_offsets=[0, 48])}), EFORMAT,
         ["'q'", "past the data"]),
        ("offsets reversed", hdr({"q": dict(ent, data_offsets=[24, 0])}), EFORMAT, ["'q'"]),
        ("size mismatch", hdr({"q": dict(ent, shape=[2, 2])}), EFORMAT, ["'q'", "needs 16"]),
        ("overlap", st_bytes(t, header=json.dumps(
            {"q": ent, "k": dict(ent, shape=[1, 3], data_offsets=[12, 24])}).encode()),
         EFORMAT, ["overlap", "'q'", "'k'"]),
        ("hole", st_bytes(t, header=json.dumps(
            {"q": dict(ent, shape=[1, 3], data_offsets=[12, 24])}).encode()),
         EFORMAT, ["no tensor"]),
        ("no dtype", hdr({"q": {"shape": [2, 3], "data_offsets": [0, 24]}}), EFORMAT, ["dtype"]),
        ("shape strings", hdr({"q": dict(ent, shape=["2", "3"])}), EFORMAT, ["shape"]),
        ("bool", hdr({"q": dict(ent, dtype="BOOL", shape=[4, 6])}), EUNSUPPORTED, ["BOOL"]),
        ("F8", hdr({"q": dict(ent, dtype="F8_E4M3", shape=[4, 6])}), EUNSUPPORTED, ["F8_E4M3"]),
        ("1-D", hdr({"q": dict(ent, shape=[6])}), EUNSUPPORTED, ["1 dimension"]),
        ("zero dim", st_bytes([("q", "F32", (0, 3), b"")]), EUNSUPPORTED, ["zero"]),
        ("control name", st_bytes([("q\x01\u00e9", "F32", (2, 3), a.tobytes())]), EMISMATCH,
         ["q\\x01\\xc3\\xa9"]),
    ]
    for label, data, status, words in cases:
        name = "x" if label == "control name" else None
        check_error(dump, write(tmp, "bad.safetensors", data), status, words,
                    "safetensors " + label, name)
    many = [("tensor_with_a_long_name_%03d" % i, "F32", (1, 1), b"\0" * 4) for i in range(40)]
    check_error(dump, write(tmp, "many.safetensors", st_bytes(many)), EMISMATCH,
                ["40 tensors", "more"], "safetensors long list truncated")


def header_cases(dump, rng):
    """sv_npy_header's bytes are numpy.save's, and numpy.load reads them."""
    for dtype, code in ((np.float64, 0), (np.float32, 1), (np.float16, 2)):
        for shape in ((7,), (3, 5), (2, 3, 4), (2, 3, 4, 5), (12345678901, 1, 1, 1)):
            r = subprocess.run([dump, "--header", str(code)] + [str(x) for x in shape],
                               capture_output=True)
            if r.returncode != 0:
                check(False, "header %s %s: exit %d" % (dtype.__name__, shape, r.returncode))
                continue
            if shape[0] < 1000:
                a = rng.standard_normal(shape).astype(dtype)
                f = io.BytesIO()
                np.save(f, a)
                want = f.getvalue()[:len(f.getvalue()) - a.nbytes]
                check(r.stdout == want, "header %s %s: %r, numpy %r" % (
                    dtype.__name__, shape, r.stdout, want))
                back = np.load(io.BytesIO(r.stdout + a.tobytes()))
                check(back.dtype == a.dtype and same(back.astype(np.float64), a.astype(np.float64)),
                      "header %s %s: numpy.load read it back differently" % (dtype.__name__, shape))
            else:  # too big to write: numpy reads the header alone
                h = io.BytesIO(r.stdout)
                ver = npf.read_magic(h)
                got = npf._read_array_header(h, ver)
                check(len(r.stdout) % 64 == 0 and got[0] == shape and not got[1],
                      "header %s %s: numpy reads %r" % (dtype.__name__, shape, got))


def main():
    dump = sys.argv[1]
    rng = np.random.default_rng(16)
    with tempfile.TemporaryDirectory() as tmp:
        n = npy_cases(dump, tmp, rng)
        header_cases(dump, rng)
        safetensors_cases(dump, tmp, rng)
        npy_bad(dump, tmp)
        st_bad(dump, tmp)
    print("%d npy files from numpy; %d passed, %d failed" % (n, PASSED[0], len(FAILED)))
    return 1 if FAILED or not PASSED[0] else 0


if __name__ == "__main__":
    sys.exit(main())
