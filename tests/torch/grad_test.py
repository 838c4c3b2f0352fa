#!/usr/bin/python3
"""sdpa-var's --grad columns against PyTorch autograd on the SAME Q, K, V
and G: the engine reads torch's float64 tensors through the strided source
(tests/strided/strided_driver.c with --grad: Q, K, V and G as caller
arrays; the draws' streams play no part).

Usage: grad_test.py STRIDED_DRIVER

For each case (shapes from 1 x 1 to 512 queries x 4096 keys, causal and
not, two scales) and each of the raw (c = 1) and scaled logits z = c Q K^T
(masked to -inf above the diagonal with causal), autograd differentiates
L = sum(G * softmax(z) V) and gives dL/dz (z.grad), dL/dQ and dL/dK (the
leaves' .grad, the factor c included). From them, per trial:
  grad_logits        sqrt(mean over rows of |dL/dz_i|^2)
  grad_logits_theory sqrt(d_v mean over rows of |J_i|_F^2), from torch's p
  grad_keys          mean over rows of (sum g^2)^2 / sum g^4 (0 if g = 0)
  grad_q, grad_k     sqrt(mean over rows (keys) of |dL/dq_i|^2 (|dL/dk_j|^2))
and each must match the engine's column to 1e-10 relative (0 exactly where
torch's is 0: a row with one key). Both sides are float64 with other
summation orders; a logit gradient p_j (a_j - g.o) is a difference that
loses digits as 1 - max p -> 0, so d_k stays where the raw rows keep
1 - max p above ~1e-4 (d_k <= 16 for 4096 keys): there both sides agree to
~1e-13 and 1e-10 still fails any wrong formula, factor c or mask.
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

TOL = 1e-10
NAMES = ("grad_logits", "grad_logits_theory", "grad_keys", "grad_q", "grad_k")

# n_q, n_k, d_k, d_v, causal, scale (0: 1/sqrt(d_k))
CASES = [
    (1, 1, 1, 1, False, 0.0),
    (1, 1, 3, 2, True, 0.0),
    (1, 7, 4, 3, False, 0.0),
    (6, 1, 4, 3, False, 0.5),
    (2, 2, 2, 2, True, 0.0),
    (5, 9, 8, 4, False, 0.0),
    (64, 64, 16, 8, True, 0.0),
    (100, 37, 64, 16, False, 0.125),
    (257, 300, 8, 5, False, 0.0),
    (300, 300, 4, 64, True, 0.0),
    (512, 512, 16, 32, True, 0.0),
    (512, 4096, 16, 64, False, 0.0),
    (512, 4096, 8, 16, False, 2.0),
]


def write_array(a, path):
    """A contiguous float64 (n x d) array as the driver's array line."""
    a = np.ascontiguousarray(a, dtype=np.float64)
    a.tofile(path)
    return "64 2 1 %d %d 0 %d 8 0 %s" % (a.shape[0], a.shape[1], a.shape[1] * 8, path)


def run_engine(driver, tmp, arrays, scale, causal):
    """The per-trial row (dict of floats) from the driver."""
    q, k, v, g = arrays
    d, nq, nk, dv = q.shape[1], q.shape[0], k.shape[0], v.shape[1]
    lines = ["%d %d %d 1 0 1 0 %d 1 %d %.17g 0 0 2" % (d, nq, nk, int(causal), dv, scale)]
    for tag, a in zip("qkvg", arrays):
        lines.append(write_array(a, os.path.join(tmp, tag)))
    res = subprocess.run([driver, "--grad"], input="\n".join(lines) + "\n",
                         capture_output=True, text=True)
    if res.returncode != 0:
        raise RuntimeError("driver: " + res.stderr.strip())
    head, row = res.stdout.splitlines()[:2]
    return {h: float(x) if x not in ("normal",) else x
            for h, x in zip(head.split(","), row.split(",")) if h.startswith(("raw_", "scaled_"))}


def torch_grads(arrays, c, causal):
    """The five statistics of one scale c from autograd."""
    q, k, v, g = (torch.tensor(a, dtype=torch.float64) for a in arrays)
    q.requires_grad_(True)
    k.requires_grad_(True)
    z = c * (q @ k.T)
    z.retain_grad()
    zm = z
    if causal:
        mask = torch.ones(z.shape, dtype=torch.bool).triu(1)
        zm = z.masked_fill(mask, float("-inf"))
    p = torch.softmax(zm, dim=-1)
    (g * (p @ v)).sum().backward()
    dz, dq, dk = z.grad, q.grad, k.grad
    s2, s4 = (dz ** 2).sum(1), (dz ** 4).sum(1)
    keys = torch.where(s4 > 0, s2 * s2 / torch.where(s4 > 0, s4, torch.ones_like(s4)),
                       torch.zeros_like(s4))
    pd = p.detach()
    p2, p3 = (pd ** 2).sum(1), (pd ** 3).sum(1)
    frob2 = (p2 - 2 * p3 + p2 * p2).clamp(min=0)  # one-key rows: exactly 0
    dv = v.shape[1]
    return {
        "grad_logits": math.sqrt(s2.mean().item()),
        "grad_logits_theory": math.sqrt(dv * frob2.mean().item()),
        "grad_keys": keys.mean().item(),
        "grad_q": math.sqrt((dq ** 2).sum(1).mean().item()),
        "grad_k": math.sqrt((dk ** 2).sum(1).mean().item()),
    }


def check_case(driver, tmp, case, rng):
    nq, nk, d, dv, causal, scale = case
    c = scale if scale > 0 else 1.0 / math.sqrt(d)
    arrays = (rng.standard_normal((nq, d)), rng.standard_normal((nk, d)),
              rng.standard_normal((nk, dv)), rng.standard_normal((nq, dv)))
    ours = run_engine(driver, tmp, arrays, c, causal)
    worst, failures = 0.0, 0
    for tag, cc in (("raw", 1.0), ("scaled", c)):
        ref = torch_grads(arrays, cc, causal)
        for name in NAMES:
            got, want = ours[tag + "_" + name], ref[name]
            rel = abs(got - want) / abs(want) if want != 0 else (0.0 if got == 0 else math.inf)
            worst = max(worst, rel)
            if not rel <= TOL:
                failures += 1
                print("FAIL %s: %s_%s = %.17g, torch %.17g (rel %.3g)"
                      % (case, tag, name, got, want, rel))
    print("%-40s worst relative difference %.3g" % (str(case), worst))
    return failures, worst


def main():
    if len(sys.argv) != 2:
        print(__doc__)
        return 2
    rng = np.random.default_rng(20240615)
    failures, worst = 0, 0.0
    with tempfile.TemporaryDirectory() as tmp:
        for case in CASES:
            f, w = check_case(sys.argv[1], tmp, case, rng)
            failures += f
            worst = max(worst, w)
    print("grad_test: %d cases, %d values differ by more than %g; worst %.3g"
          % (len(CASES), failures, TOL, worst))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
