#!/usr/bin/python3
"""examples/real_models.sh --quick end to end: train, sdpa-var on the files,
the tables and the gnuplot figure; sdpa-var's numbers against numpy's.

Usage: real_models_test.py SDPA_VAR SOURCE_DIR

Runs `examples/real_models.sh --quick --out SCRATCH --bin SDPA_VAR`
(train_tiny.py --quick: 4 variants, 2 layers x 4 heads, d_k 32, n 64, batch
2, saves at steps 0, 20, 40, 60; ~30 s on 2 cores) and checks:

(a) heads.csv has exactly one row per (variant, step, layer, batch, head):
    4 x 4 x 2 x 2 x 4 = 256, every value finite; the multiplier of every
    row is the one the model applied (layerL.scale[head] of the file, as
    float32: `sqrt` and `1` for the fixed ones, head h's own s_h for
    QK-norm, so the script kept the right configuration of the --scale
    list); steps.csv has 16 rows, tables.md its three tables, and
    real_models.png is a PNG of 1500 x 1000 pixels bigger than 5 KB.
(c) The rope table (per step and layer: entropy, signed max logit and max
    |logit| per head, two decimals): every entry within 0.005 + 1e-6 of
    numpy's on the files (entropy the mean over the windows, the logits
    the larger of the two; the multiplier the file's float32), whether the
    signed max came from sdpa-var or from torch's heads.csv.
(b) Peers: from the same .safetensors files (read here by a reader of our
    own: JSON header + numpy.frombuffer), numpy in float64 over the visible
    pairs j <= i of each (batch, head):
      raw_var = the variance (ddof 0, sdpa-var's default) of q_i . k_j
                on every step-0 file: relative error <= 1e-12
      scaled_max_abs_logit = max |s_h q_i . k_j|, scaled_entropy (mean
                over rows of -sum p ln p, p = softmax of s_h q_i . k_j) and
                scaled_sink_weight (mean over rows of p_i0) on the last
                QK-norm file, whose s_h differ per head: relative <= 1e-12
    Both sides compute in double from the same float32 values (the script
    passes s_h as %.17g of the float32); the differences are summation
    order: measured <= 6e-16. With s_h printed to 9 digits instead, the
    scaled statistics differed by up to 3e-9 and this test failed.
"""
import csv
import json
import math
import os
import struct
import subprocess
import sys
import tempfile

import numpy as np

VARIANTS = ("sqrt", "none", "qknorm", "rope")
STEPS = (0, 20, 40, 60)
LAYERS, BATCH, HEADS, DK, N = 2, 2, 4, 32, 64
failures = []


def check(ok, what):
    if not ok:
        failures.append(what)
        print("FAIL:", what)


def read_safetensors(path):
    with open(path, "rb") as f:
        buf = f.read()
    (n,) = struct.unpack("<Q", buf[:8])
    header = json.loads(buf[8:8 + n].decode("utf-8"))
    out = {}
    for name, info in header.items():
        if name == "__metadata__":
            continue
        b, e = info["data_offsets"]
        a = np.frombuffer(buf[8 + n + b:8 + n + e], dtype="<f4")
        out[name] = a.reshape(info["shape"])
    return out


def rel(a, b):
    return abs(a - b) / max(abs(b), 1e-300)


def numpy_stats(q, k, s):
    """Per (batch, head) arrays of the causal statistics, float64."""
    q, k = q.astype(np.float64), k.astype(np.float64)
    out = {n: np.zeros(q.shape[:2]) for n in
           ("raw_var", "scaled_max_abs_logit", "scaled_entropy", "scaled_sink_weight",
            "scaled_max_logit")}
    mask = np.tril(np.ones((q.shape[2], k.shape[2]), dtype=bool))
    for b in range(q.shape[0]):
        for h in range(q.shape[1]):
            raw = q[b, h] @ k[b, h].T
            out["raw_var"][b, h] = raw[mask].var()
            z = np.where(mask, s[h] * raw, -np.inf)
            out["scaled_max_abs_logit"][b, h] = np.abs(z[mask]).max()
            out["scaled_max_logit"][b, h] = z[mask].max()
            z = z - z.max(axis=1, keepdims=True)
            p = np.exp(z)
            p /= p.sum(axis=1, keepdims=True)
            lp = np.where(mask, np.log(np.where(mask, p, 1.0)), 0.0)
            out["scaled_entropy"][b, h] = (-(p * lp).sum(axis=1)).mean()
            out["scaled_sink_weight"][b, h] = p[:, 0].mean()
    return out


def check_rope_table(tables, out):
    """(c): the last table of tables.md against numpy on the rope files."""
    lines = [x for x in tables.split("\n") if x.startswith("|")]
    rows = [[c.strip() for c in x.strip("|").split("|")] for x in lines[-len(STEPS) * LAYERS:]]
    worst, seen = 0.0, 0
    for r in rows:
        step, la = int(r[0]), int(r[1])
        t = read_safetensors(os.path.join(out, "train", "rope_step%06d.safetensors" % step))
        ref = numpy_stats(t["layer%d.q" % la], t["layer%d.k" % la],
                          t["layer%d.scale" % la].astype(np.float64))
        want = (ref["scaled_entropy"].mean(0), ref["scaled_max_logit"].max(0),
                ref["scaled_max_abs_logit"].max(0))
        for col, w in zip(r[2:5], want):
            got = np.array([float(x) for x in col.split()])
            worst = max(worst, np.abs(got - w).max())
            seen += got.size
    check(seen == len(STEPS) * LAYERS * HEADS * 3 and worst <= 0.005 + 1e-6,
          "rope table: %d entries, worst |table - numpy| %.4f (<= 0.005)" % (seen, worst))
    print("rope table: %d entries within %.4f of numpy (%s)" % (seen, worst, lines[-len(STEPS) * LAYERS - 2]))


def main():
    if len(sys.argv) != 3:
        sys.exit("usage: real_models_test.py SDPA_VAR SOURCE_DIR")
    binary, src = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
    with tempfile.TemporaryDirectory(prefix="real_models_test.") as tmp:
        out = os.path.join(tmp, "out")
        r = subprocess.run(["bash", os.path.join(src, "examples/real_models.sh"), "--quick",
                            "--out", out, "--bin", binary], capture_output=True, text=True)
        print(r.stderr, end="")
        if r.returncode != 0:
            sys.exit("FAIL: real_models.sh --quick exited %d" % r.returncode)
        with open(os.path.join(out, "heads.csv")) as f:
            rows = list(csv.DictReader(f))
        keys = sorted((r["variant"], int(r["step"]), int(r["layer"]), int(r["batch"]),
                       int(r["head"])) for r in rows)
        want = sorted((v, s, la, b, h) for v in VARIANTS for s in STEPS for la in range(LAYERS)
                      for b in range(BATCH) for h in range(HEADS))
        check(keys == want, "heads.csv: %d rows (want %d), keys %s" % (
            len(keys), len(want), "match" if keys == want else "differ"))
        bad = [(r["variant"], r["step"], r["layer"], r["head"], c, x) for r in rows
               for c, x in r.items() if c not in ("variant", "scale")
               and not math.isfinite(float(x))]
        check(not bad, "heads.csv: non-finite values, first %s" % (bad[:3],))
        files = {}
        for r in rows:
            path = os.path.join(out, "train", "%s_step%06d.safetensors" % (r["variant"],
                                                                          int(r["step"])))
            t = files.setdefault(path, read_safetensors(path))
            s = float(t["layer%s.scale" % r["layer"]][int(r["head"])])
            want_arg = {"sqrt": "sqrt", "none": "1", "rope": "sqrt"}.get(r["variant"])
            ok = rel(float(r["scale_factor"]), s) <= 1e-7 and (
                want_arg is None or r["scale"] == want_arg or r["step"] == "0")
            if not ok:
                check(False, "%s step %s layer %s head %s: scale %s, scale_factor %s; file %r" % (
                    r["variant"], r["step"], r["layer"], r["head"], r["scale"],
                    r["scale_factor"], s))
                break
        with open(os.path.join(out, "steps.csv")) as f:
            n_steps = sum(1 for _ in f) - 1
        check(n_steps == len(VARIANTS) * len(STEPS), "steps.csv: %d rows, want %d"
              % (n_steps, len(VARIANTS) * len(STEPS)))
        with open(os.path.join(out, "tables.md")) as f:
            tables = f.read()
        n_rows = sum(1 for line in tables.split("\n") if line.startswith("|"))
        want_rows = (2 + len(VARIANTS) * len(STEPS) + 2 + len(VARIANTS) * LAYERS
                     + 2 + len(STEPS) * LAYERS)
        check(n_rows == want_rows, "tables.md: %d table lines, want %d" % (n_rows, want_rows))
        check_rope_table(tables, out)
        png = os.path.join(out, "real_models.png")
        with open(png, "rb") as f:
            head = f.read(24)
        size = os.path.getsize(png)
        wh = struct.unpack(">II", head[16:24]) if len(head) == 24 else None
        check(head[:8] == b"\x89PNG\r\n\x1a\n" and wh == (1500, 1000) and size > 5000,
              "real_models.png: signature %r, IHDR %s, %d bytes" % (head[:8], wh, size))

        by = {(r["variant"], int(r["step"]), int(r["layer"]), int(r["batch"]),
               int(r["head"])): r for r in rows}
        worst = {}
        cases = [(v, 0, ("raw_var",)) for v in VARIANTS]
        cases.append(("qknorm", STEPS[-1], ("raw_var", "scaled_max_abs_logit",
                                            "scaled_entropy", "scaled_sink_weight")))
        for v, step, stats in cases:
            t = files[os.path.join(out, "train", "%s_step%06d.safetensors" % (v, step))]
            for la in range(LAYERS):
                ref = numpy_stats(t["layer%d.q" % la], t["layer%d.k" % la],
                                  t["layer%d.scale" % la].astype(np.float64))
                for b in range(BATCH):
                    for h in range(HEADS):
                        for st in stats:
                            got = float(by[(v, step, la, b, h)][st])
                            e = rel(got, ref[st][b, h])
                            tol = 1e-12
                            if e > worst.get((v, step, st), (0,))[0]:
                                worst[(v, step, st)] = (e, got, ref[st][b, h], la, b, h)
                            check(e <= tol, "%s step %d layer %d batch %d head %d %s: "
                                  "sdpa-var %.17g numpy %.17g rel %.3g > %g" % (
                                      v, step, la, b, h, st, got, ref[st][b, h], e, tol))
        for (v, step, st), (e, got, want, la, b, h) in sorted(worst.items()):
            print("%-6s step %2d %-21s worst rel %.2e (layer %d batch %d head %d: "
                  "sdpa-var %.15g, numpy %.15g)" % (v, step, st, e, la, b, h, got, want))
    if failures:
        sys.exit("real_models_test: %d check(s) failed" % len(failures))
    print("real_models_test: heads.csv %d rows finite, multipliers, tables, PNG, numpy peers: ok"
          % len(rows))


if __name__ == "__main__":
    main()
