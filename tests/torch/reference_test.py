#!/usr/bin/python3
"""tests/oracles/torch_reference.py against tests/oracles/numpy_reference.py on the SAME
Q and K: both imported as modules; numpy's float64 draws are fed to the
numpy reference (through a stand-in generator that hands them out) and to
the torch reference's measure() as float64 and as float32 tensors.

Usage: reference_test.py

Every per-trial statistic (mean, variance, entropy, max weight, Jacobian
trace; raw and scaled) must agree within TOL[dtype] relative: 1e-10 for
float64 (both sides are float64 with other summation orders and other
softmax formulas; they agree to ~1e-14), 1e-4 for float32 (the inputs
rounded to float32 alone move the scores by ~1e-7 relative, the float32
reductions over <= 200 keys by less than 1e-5). A mean is compared relative
to the scores' standard deviation, its natural scale (it is ~0 itself).
The cases cover one and several row blocks (block_elements forced small,
with an uneven last block, so Chan's merge runs), batched 2 x 2 trials,
--ddof 1, and a 1 x 1 trial (variance, entropy and trace exactly 0).
d_k stays <= 64 with 200 keys, where no raw row is so near one-hot that
1 - sum p^2 in float32 loses its digits (see the torch reference's doc).
"""
import math
import os
import sys
import types

import numpy as np

try:
    import torch
except ImportError:
    print("torch not found: apt-get install python3-torch (scripts/setup.sh installs it)")
    sys.exit(1)

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "oracles"))
import numpy_reference  # noqa: E402
import torch_reference  # noqa: E402

TOL = {torch.float64: 1e-10, torch.float32: 1e-4}

# trials, n_q, n_k, d_k, ddof, block_elements (None: the script's default)
CASES = [
    (1, 64, 96, 8, 0, None),
    (1, 64, 96, 8, 0, 7 * 96),
    (1, 1, 1, 1, 0, None),
    (5, 2, 2, 2, 1, None),
    (3, 33, 50, 16, 1, 3 * 5 * 50),
    (2, 200, 200, 64, 0, 2 * 64 * 200),
]


class Handout:
    """Stands in for numpy's Generator in numpy_reference.draw: returns the
    given arrays, in order, as its standard_normal draws."""

    def __init__(self, arrays):
        self.arrays = list(arrays)

    def standard_normal(self, shape):
        a = self.arrays.pop(0)
        assert a.shape == tuple(shape), (a.shape, shape)
        return a


def main():
    torch.set_num_threads(2)
    rng = np.random.default_rng(2025)
    failures = 0
    for t, nq, nk, dk, ddof, block in CASES:
        q = rng.standard_normal((t, nq, dk))
        k = rng.standard_normal((t, nk, dk))
        args = types.SimpleNamespace(nq=nq, nk=nk, ddof=ddof, dist="normal",
                                     values=False, dv=None)
        ref = numpy_reference.measure_chunk(Handout([q, k]), None, args, dk, t)
        for dtype, tol in TOL.items():
            kw = {} if block is None else {"block_elements": block}
            got = torch_reference.measure(torch.from_numpy(q).to(dtype),
                                          torch.from_numpy(k).to(dtype), ddof, **kw)
            worst = 0.0
            for name in torch_reference.STATS:
                want = ref[name]
                floor = np.abs(want)
                if name.endswith("_mean"):
                    floor = np.maximum(floor, np.sqrt(ref[name[:-5] + "_var"]))
                err = np.abs(got[name] - want) / np.maximum(floor, 1e-300)
                worst = max(worst, float(err.max()))
                if not np.all(err <= tol):
                    failures += 1
                    print(f"FAIL T={t} {nq}x{nk} d_k={dk} {dtype}: {name} torch "
                          f"{got[name].tolist()} numpy {want.tolist()}")
            print(f"T={t} n_q={nq} n_k={nk} d_k={dk} ddof={ddof} block={block} "
                  f"{str(dtype)[6:]}: worst relative difference {worst:.2e} (tolerance {tol:g})")
    if failures:
        print(f"{failures} statistic(s) outside tolerance")
        return 1
    print("torch reference agrees with the numpy reference")
    return 0


if __name__ == "__main__":
    sys.exit(main())
