"""examples/tensorboard_loop.py (issue 39 §5): the monitor's numbers from a
plain loop reach TensorBoard's event files, read back by TensorBoard's own
EventAccumulator: every key of every measured step (0, 5, ..., 35 of 40)
at its step with the monitor's value (float32 in the file: 1e-6
relative), layers x heads x statistics keys a step, the loss at every
step, and plausible numbers (a causal row i sees i keys, so a head's mean
entropy is in (0, mean_i ln i]). Venv only: SKIP (77) without tensorboard.
"""

import glob
import math
import os
import sys
import tempfile

try:
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator
    import torch.utils.tensorboard  # noqa: F401
except ImportError as e:
    print("SKIP: tensorboard is not installed here (%s)" % e)
    sys.exit(77)
import importlib.util

from reference import Checker

chk = Checker("venv.tensorboard_loop")
path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "examples",
                    "tensorboard_loop.py")
spec = importlib.util.spec_from_file_location("tensorboard_loop", path)
ex = importlib.util.module_from_spec(spec)
spec.loader.exec_module(ex)

with tempfile.TemporaryDirectory() as tmp:
    mon = ex.train(tmp, steps=40, every=5)
    files = glob.glob(os.path.join(tmp, "events.out.tfevents.*"))
    chk.ok(len(files) == 1, "one event file (%d)" % len(files))
    ea = EventAccumulator(tmp, size_guidance={"scalars": 0})
    ea.Reload()
    ev = {tag: {e.step: e.value for e in ea.Scalars(tag)} for tag in ea.Tags()["scalars"]}
df = mon.to_pandas()
steps = sorted(set(df["step"]))
chk.ok(steps == list(range(0, 40, 5)), "measured steps %s" % steps)
chk.ok(sorted(ev.get("loss", {})) == list(range(40)), "the loss at every step")
n_stats = df["statistic"].nunique()
keys = [t for t in ev if t.startswith("attn/")]
chk.ok(len(keys) == ex.LAYERS * ex.HEADS * n_stats and n_stats >= 5,
       "%d keys = layers x heads x %d statistics" % (len(keys), n_stats))
bound = sum(math.log(i) for i in range(1, ex.N + 1)) / ex.N
for row in df.itertuples():
    tag = "attn/%s/head%d/%s" % (row.layer, row.head, row.statistic)
    chk.close("%s step %d" % (tag, row.step), ev.get(tag, {}).get(row.step, math.nan),
              row.value, rel=1e-6, abs_=1e-7)
    chk.ok(sorted(ev.get(tag, {})) == steps, "%s: at the measured steps only" % tag)
    if row.statistic == "scaled_entropy":
        chk.ok(0 < row.value <= bound + 1e-9, "%s step %d: %r in (0, %.4f]"
               % (tag, row.step, row.value, bound))
loss = ev["loss"]
chk.ok(sum(loss[s] for s in range(35, 40)) < sum(loss[s] for s in range(5)),
       "the loss falls (first 5 steps %.3f, last 5 %.3f)"
       % (sum(loss[s] for s in range(5)) / 5, sum(loss[s] for s in range(35, 40)) / 5))
chk.done()
