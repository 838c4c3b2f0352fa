"""examples/bench_monitor.py --device cpu --tiny (issue 39 §6), so that the
GPU benchmark's code cannot rot on machines without a GPU: the HF Llama
and the plain torch model (F.scaled_dot_product_attention) each run a
block of every variant, and the table has the four rows, the monitored
ones measured through SDPA capture, the unmonitored ratio 1 and every
time positive. Venv only (PyTorch >= 2.0 for SDPA; transformers): SKIP
(77) where torch has no SDPA.
"""

import math
import os
import subprocess
import sys

import torch

from reference import Checker

if not hasattr(torch.nn.functional, "scaled_dot_product_attention"):
    print("SKIP: torch %s has no F.scaled_dot_product_attention" % torch.__version__)
    sys.exit(77)
chk = Checker("venv.bench_monitor")
script = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "examples",
                      "bench_monitor.py")
models = ["plain"]
try:
    import transformers  # noqa: F401
    models.append("llama")
except ImportError:
    print("SKIP (part): transformers does not import: the plain model only")
for model in models:
    r = subprocess.run([sys.executable, script, "--device", "cpu", "--tiny", "--model", model,
                        "--steps", "2", "--rounds", "1"], capture_output=True, text=True,
                       timeout=300)
    chk.ok(r.returncode == 0, "%s: exit %d: %s" % (model, r.returncode, r.stderr[-2000:]))
    rows = [line.split("|")[1:-1] for line in r.stdout.splitlines()
            if line.startswith("| ") and not line.startswith("| monitor")]
    names = [c[0].strip() for c in rows]
    chk.ok(names == ["unmonitored", "every=1", "every=10", "every=1, rows=64"],
           "%s: rows %s" % (model, names))
    for c in rows:
        name, path = c[0].strip(), c[1].strip()
        nums = [float(x) for x in c[2:]]
        chk.ok(all(math.isfinite(x) and x > 0 for x in nums), "%s %s: %s" % (model, name, nums))
        chk.ok(path == ("-" if name == "unmonitored" else "sdpa"),
               "%s %s: path %r" % (model, name, path))
        if name == "unmonitored":
            chk.ok(nums[2:] == [1.0, 1.0], "%s: unmonitored ratios 1 (%s)" % (model, nums[2:]))
    chk.ok("%s model, 2 layers x 4 heads" % model in r.stderr, "%s: the machine line" % model)
r = subprocess.run([sys.executable, script, "--tiny"], capture_output=True, text=True)
chk.ok(r.returncode == 2 and "go with --device" in r.stderr, "--tiny alone: a usage error")
chk.done()
