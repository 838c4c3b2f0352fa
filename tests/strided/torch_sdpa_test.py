#!/usr/bin/python3
"""sdpa-var's --scale against PyTorch's scaled_dot_product_attention on the
SAME Q, K and V: the engine reads torch's float64 tensors through the
strided source (strided_driver, as strided_test.py does for numpy).

Usage: torch_sdpa_test.py STRIDED_DRIVER

For each scale (sqrt = 1/sqrt(d_k), dk = 1/d_k, none = 1, 0.125, 2.5),
without and with the causal mask, torch gives the attention weights
W = softmax(scale Q K^T) (n_q x n_k) and the output O = W V (n_q x d_v);
the engine gives, for its "scaled" logits (the multiplier `scale`, as
torch's scale=):
  per query row (the row-sums tap): entropy -sum w ln w (nats), max weight;
  per trial: their means, mean sum_j w_j^2, 1 - that (the Jacobian trace)
  and the mean of O^2 over its n_q d_v entries (scaled_out_var).
And torch's O must be torch's W V (the weights are the ones used).
All in float64; |ours - torch| <= 1e-12 max(1, |torch|): both sides
round each of <= 41 terms per row at ~1e-16 relative, in other orders.

A regression test: with the old meaning of --scale (a divisor) every
case but sqrt, none fails (0.125 would give weights of softmax(8 Q K^T)).
"""
import math
import os
import subprocess
import sys
import tempfile

import numpy as np

try:
    import torch
except ImportError:
    print("torch not found: apt-get install python3-torch (scripts/setup.sh installs it)")
    sys.exit(1)

F = torch.nn.functional
TOL = 1e-12


def torch_sdpa(q, k, v, scale, causal):
    """(O, W) from torch for softmax(scale Q K^T) V, in float64.

    torch >= 2.0 has the public F.scaled_dot_product_attention(..., is_causal=,
    scale=), which returns O only; its math kernel returns the weights too.
    torch 1.13 (Debian 12) has only the private
    F._scaled_dot_product_attention(q, k, v, attn_mask, dropout_p,
    need_attn_weights, is_causal) with the fixed scale 1/sqrt(E), E = d_k,
    returning (O, W): Q is multiplied by scale * sqrt(E) there, so that its
    softmax((scale sqrt(E) Q) K^T / sqrt(E)) is softmax(scale Q K^T).
    """
    q3, k3, v3 = (t.unsqueeze(0) for t in (q, k, v))
    if hasattr(F, "scaled_dot_product_attention"):
        o = F.scaled_dot_product_attention(q3, k3, v3, is_causal=causal, scale=scale)
        w = torch.ops.aten._scaled_dot_product_attention_math(
            q3, k3, v3, is_causal=causal, scale=scale)[1]
    else:
        e = q.shape[-1]
        o, w = F._scaled_dot_product_attention(q3 * (scale * math.sqrt(e)), k3, v3, None, 0.0,
                                               True, causal)
    return o[0].numpy(), w[0].numpy()


def write_array(a, path):
    """A contiguous float64 (n x d) array as the driver's array line."""
    a = np.ascontiguousarray(a, dtype=np.float64)
    a.tofile(path)
    return "64 2 1 %d %d 0 %d 8 0 %s" % (a.shape[0], a.shape[1], a.shape[1] * 8, path)


def run_engine(driver, tmp, q, k, v, scale, causal):
    """Per-trial row (dict) and per-row sums (n_q x 4) from the driver."""
    d, nq, nk, dv = q.shape[1], q.shape[0], k.shape[0], v.shape[1]
    lines = ["%d %d %d 1 0 1 0 %d 1 %d %.17g 0 0 1" % (d, nq, nk, int(causal), dv, scale)]
    for tag, a in (("q", q), ("k", k), ("v", v)):
        lines.append(write_array(a, os.path.join(tmp, tag)))
    res = subprocess.run([driver, "--rows"], input="\n".join(lines) + "\n",
                         capture_output=True, text=True)
    if res.returncode != 0:
        raise RuntimeError("driver: " + res.stderr.strip())
    out = res.stdout.strip().split("\n")
    cut = out.index("rows")
    header, row = out[0].split(","), out[1].split(",")
    trial = {h: float(x) for h, x in zip(header, row) if h.startswith(("raw_", "scaled_"))}
    rows = np.array([[float(x) for x in l.split(",")[1:]] for l in out[cut + 2:]])
    return trial, rows


def check(name, what, got, want, fails):
    got, want = np.atleast_1d(got), np.atleast_1d(want)
    err = np.max(np.abs(got - want) / np.maximum(1.0, np.abs(want)))
    if not err <= TOL:
        i = int(np.argmax(np.abs(got - want)))
        print("FAIL %s %s: ours %.17g torch %.17g (rel %.3g)" % (name, what, got[i], want[i], err))
        fails.append(name)
    return err


def case(driver, tmp, name, q, k, v, ours, scale, causal, fails):
    """ours: the engine's spec.scale (0 for its default); scale: torch's."""
    o, w = torch_sdpa(torch.from_numpy(q), torch.from_numpy(k), torch.from_numpy(v), scale,
                      causal)
    trial, rows = run_engine(driver, tmp, q, k, v, ours, causal)
    with np.errstate(divide="ignore", invalid="ignore"):
        h = -np.sum(np.where(w > 0, w * np.log(w), 0.0), axis=1)
    p2 = (w**2).sum(axis=1)
    worst = max(
        check(name, "O = W V (torch itself)", o, w @ v, fails),
        check(name, "row entropy", rows[:, 1], h, fails),
        check(name, "row max weight", rows[:, 3], w.max(axis=1), fails),
        check(name, "scaled_entropy", trial["scaled_entropy"], h.mean(), fails),
        check(name, "scaled_max_weight", trial["scaled_max_weight"], w.max(axis=1).mean(), fails),
        check(name, "scaled_sum_p2", trial["scaled_sum_p2"], p2.mean(), fails),
        check(name, "scaled_jac_trace", trial["scaled_jac_trace"], (1 - p2).mean(), fails),
        check(name, "scaled_out_var", trial["scaled_out_var"], np.mean(o**2), fails))
    print("%s %s: worst relative difference %.3g" % (
        "FAIL" if name in fails else "ok", name, worst))


def main():
    driver = sys.argv[1]
    rng = np.random.default_rng(20261123)
    fails = []
    d = 16
    # (name, what the engine gets, torch's scale): sqrt is the spec's default
    # 0, resolved to 1/sqrt(d_k) by sv_spec_resolve.
    scales = (("sqrt", 0.0, 1 / math.sqrt(d)), ("dk", 1 / d, 1 / d), ("none", 1.0, 1.0),
              ("0.125", 0.125, 0.125), ("2.5", 2.5, 2.5))
    with tempfile.TemporaryDirectory() as tmp:
        for causal in (False, True):
            nq, nk = (37, 37) if causal else (29, 41)
            q, k = rng.standard_normal((nq, d)), rng.standard_normal((nk, d))
            v = rng.standard_normal((nk, 5))
            for label, ours, s in scales:
                name = "scale=%s%s" % (label, " causal" if causal else "")
                case(driver, tmp, name, q, k, v, ours, s, causal, fails)
    print("torch %s: %d failed" % (torch.__version__, len(set(fails))))
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
