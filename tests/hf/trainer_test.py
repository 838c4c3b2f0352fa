"""sdpa_var.hf.MonitorCallback in transformers' Trainer (issue 39 §5).

A 2-layer Llama (GQA, RoPE, attn_implementation="sdpa", from a config, no
download) trained by transformers.Trainer on CPU for 6 steps of 2
micro-batches (gradient accumulation) of random tokens. Peers:
- the same forwards by hand: a recorder callback keeps the weights at each
  step's start and a forward pre-hook the micro-batches' inputs; a fresh
  model with those weights, monitored by sdpa_var.monitor() and fed the
  same micro-batches, gives the numbers the callback must have logged at
  that step (the same float32 Q and K: 1e-9 relative);
- trainer.state.log_history (what Trainer.log hands every report_to
  integration) and, where the venv has tensorboard, TensorBoard's own
  event files read back by its EventAccumulator (float32: 1e-6);
- the Trainer's loss still logged at every logging step (Trainer.log
  clears control.should_log: a callback logging in on_step_end would
  drop the loss of that step);
- after train(): torch's SDPA, HF's attention table and torch's global
  module hooks as they were.
per="layer": the heads folded by the column's rule, recomputed here from
the monitor's per-head history (mean of entropies, max of max logits).

    trainer_test.py     (transformers from sys.path: 5.x, or 4.x with
                         build-venv/hf4 first)
"""

import glob
import math
import os
import subprocess
import sys
import tempfile
import warnings

import torch

try:
    import datasets  # noqa: F401  (transformers' Trainer imports it when present)
except ImportError as e:
    # build-venv/hf4 puts transformers 4 and its huggingface_hub 0.x before
    # the venv, whose datasets needs the hub 1.x: Trainer runs without it.
    print("note: datasets does not import here (%s); Trainer without it" % e)
    for name in [m for m in sys.modules if m == "datasets" or m.startswith("datasets.")]:
        del sys.modules[name]
    sys.modules["datasets"] = None
import transformers
import sdpa_var
import sdpa_var.hf
from sdpa_var._monitor import DEFAULT_STATS
from reference import Checker

VERSION = transformers.__version__
chk = Checker("hf.trainer[transformers %s]" % VERSION)
T = transformers
D, H, KV, L, N, V, SAMPLES = 32, 4, 2, 2, 16, 61, 24
try:
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator
except ImportError:
    EventAccumulator = None
    print("SKIP (part): tensorboard is not installed here: the event files are not read back")

torch.manual_seed(0)
CONFIG = T.LlamaConfig(vocab_size=V, hidden_size=D, intermediate_size=64, num_hidden_layers=L,
                       num_attention_heads=H, num_key_value_heads=KV, max_position_embeddings=64)


def new_model():
    return T.LlamaForCausalLM._from_config(CONFIG, attn_implementation="sdpa")


class Tokens(torch.utils.data.Dataset):
    def __init__(self):
        g = torch.Generator().manual_seed(1)
        self.ids = torch.randint(V, (SAMPLES, N), generator=g)

    def __len__(self):
        return SAMPLES

    def __getitem__(self, i):
        return {"input_ids": self.ids[i], "labels": self.ids[i]}


class Recorder(T.TrainerCallback):
    """Each step's starting weights and its micro-batches' inputs."""

    def __init__(self, model):
        self.steps, self.current = {}, None
        model.register_forward_pre_hook(self.pre, with_kwargs=True)

    def on_step_begin(self, args, state, control, model=None, **kw):
        weights = {k: v.detach().clone() for k, v in model.state_dict().items()}
        self.current = self.steps[state.global_step + 1] = (weights, [])

    def pre(self, mod, args, kwargs):
        if self.current is not None and torch.is_grad_enabled():
            self.current[1].append({k: (v.detach().clone() if torch.is_tensor(v) else v)
                                    for k, v in kwargs.items()})


def train(tmp, every, per, report_to, logging_steps=1, **kw):
    model = new_model()
    args = T.TrainingArguments(output_dir=tmp, max_steps=6, per_device_train_batch_size=2,
                               gradient_accumulation_steps=2, learning_rate=1e-2,
                               logging_steps=logging_steps, save_strategy="no",
                               report_to=report_to, use_cpu=True, disable_tqdm=True, seed=0,
                               dataloader_num_workers=0)
    trainer = T.Trainer(model=model, args=args, train_dataset=Tokens())
    trainer.remove_callback(T.PrinterCallback)  # prints every log entry
    rec = Recorder(model)
    trainer.add_callback(rec)
    cb = sdpa_var.hf.add_monitor(trainer, every, per=per, **kw)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the Trainer's own (no tokenizer, ...)
        trainer.train()
    return trainer, cb, rec


def by_hand(rec, step):
    """The monitor's to_dict of step @p step's forwards, again."""
    weights, batches = rec.steps[step]
    m = new_model()
    m.load_state_dict(weights)
    m.train()
    with sdpa_var.monitor(m) as mon:
        for kw in batches:
            m(**kw)
        mon.step()
        return mon.to_dict(prefix="attn/"), mon


def attn_logs(trainer):
    """{step: {key: value}} of the log entries holding attn/ keys."""
    out = {}
    for e in trainer.state.log_history:
        keys = {k: v for k, v in e.items() if k.startswith("attn/")}
        if keys:
            chk.ok(e["step"] not in out, "one attn/ log entry per step (%d)" % e["step"])
            out[e["step"]] = keys
    return out


def events(tmp):
    """{tag: {step: value}} of every TensorBoard event file under @p tmp."""
    out = {}
    for path in glob.glob(os.path.join(tmp, "**", "events.out.tfevents.*"), recursive=True):
        ea = EventAccumulator(path, size_guidance={"scalars": 0})
        ea.Reload()
        for tag in ea.Tags()["scalars"]:
            for e in ea.Scalars(tag):
                out.setdefault(tag, {})[e.step] = e.value
    return out


def per_head(tmp):
    import torch.nn.functional as F
    from torch.nn.modules import module as _module

    sdpa, table = F.scaled_dot_product_attention, None
    if hasattr(T, "modeling_utils") and hasattr(T.modeling_utils, "ALL_ATTENTION_FUNCTIONS"):
        table = dict(T.modeling_utils.ALL_ATTENTION_FUNCTIONS.items())
    hooks = (len(_module._global_forward_pre_hooks), len(_module._global_forward_hooks))
    report = ["tensorboard"] if EventAccumulator is not None else []
    trainer, cb, rec = train(tmp, 2, "head", report)

    # measured steps: the Trainer's multiples of every=2
    got = attn_logs(trainer)
    chk.ok(sorted(got) == [2, 4, 6], "measured steps %s, want [2, 4, 6]" % sorted(got))
    losses = sorted(e["step"] for e in trainer.state.log_history if "loss" in e)
    chk.ok(losses == [1, 2, 3, 4, 5, 6],
           "the Trainer's loss logged at every step: %s (a measured step's log must not "
           "clear control.should_log)" % losses)
    n_stats = len([s for s in DEFAULT_STATS if s in next(iter(cb.monitor.last.values())).values])
    for step, logs in got.items():
        want, mon = by_hand(rec, step)
        chk.ok(len(rec.steps[step][1]) == 2, "step %d: 2 micro-batches" % step)
        chk.ok(set(logs) == set(want) and len(want) == L * H * n_stats,
               "step %d: keys %d, by hand %d, want layers x heads x stats = %d"
               % (step, len(logs), len(want), L * H * n_stats))
        for k in want:
            if k in logs:
                chk.close("step %d %s" % (step, k), logs[k], want[k], rel=1e-9, abs_=1e-12)
        for k, v in logs.items():
            if k.endswith("/scaled_entropy"):
                chk.ok(0 < v <= math.log(N) + 1e-12, "%s = %r in (0, ln %d]" % (k, v, N))
        calls = {st.config["calls"] for st in mon.last.values()}
        chk.ok(calls == {"2"}, "by hand: 2 calls a layer a step (%s)" % calls)
    calls = set(cb.monitor.to_pandas()["calls"])
    chk.ok(calls == {2}, "the callback's monitor: the 2 micro-batches of a step "
           "accumulated (calls %s)" % calls)

    if EventAccumulator is not None:
        ev = events(tmp)
        for step, logs in got.items():
            for k, v in logs.items():
                tag = "train/" + k  # TensorBoardCallback's rewrite_logs
                chk.close("tensorboard %s step %d" % (tag, step),
                          ev.get(tag, {}).get(step, math.nan), v, rel=1e-6, abs_=1e-7)
        chk.ok(sorted(ev.get("train/loss", {})) == [1, 2, 3, 4, 5, 6],
               "tensorboard train/loss steps %s" % sorted(ev.get("train/loss", {})))

    # removed at train end
    chk.ok(F.scaled_dot_product_attention is sdpa, "F.scaled_dot_product_attention restored")
    if table is not None:
        now = dict(T.modeling_utils.ALL_ATTENTION_FUNCTIONS.items())
        chk.ok(all(now.get(k) is f for k, f in table.items()), "HF's attention table restored")
    chk.ok((len(_module._global_forward_pre_hooks), len(_module._global_forward_hooks)) == hooks,
           "torch's global module hooks as before train()")
    steps = cb.monitor.steps
    trainer.model(**Tokens()[0:2])
    chk.ok(cb.monitor.steps == steps and not cb._attached, "detached after train()")


def per_layer(tmp):
    # every=None: the Trainer's logging_steps (3)
    trainer, cb, rec = train(tmp, None, "layer", [], logging_steps=3)
    got = attn_logs(trainer)
    chk.ok(sorted(got) == [3, 6], "per layer, every=logging_steps: steps %s" % sorted(got))
    df = cb.monitor.to_pandas()
    chk.ok(sorted(set(df["step"])) == [3, 6], "to_pandas steps are the Trainer's")
    fold = {"scaled_max_abs_logit": max, "scaled_max_logit": max}
    for step, logs in got.items():
        want = {}
        for (layer, stat), g in df[df["step"] == step].groupby(["layer", "statistic"]):
            v = list(g.sort_values("head")["value"])
            chk.ok(len(v) == H, "%s %s: %d heads" % (layer, stat, len(v)))
            want["attn/%s/%s" % (layer, stat)] = fold.get(stat, lambda x: sum(x) / len(x))(v)
        chk.ok(set(logs) == set(want) and len(want) <= L * len(DEFAULT_STATS),
               "per layer step %d: %d keys, want %d" % (step, len(logs), len(want)))
        for k in want:
            chk.close("per layer step %d %s" % (step, k), logs.get(k, math.nan), want[k],
                      rel=1e-12, abs_=1e-14)


def manners():
    trainer = T.Trainer(model=new_model(), args=T.TrainingArguments(
        output_dir=tempfile.mkdtemp(), report_to=[], use_cpu=True))
    for what, call, exc in (
            ("not a trainer", lambda: sdpa_var.hf.MonitorCallback(object()), TypeError),
            ("every=0", lambda: sdpa_var.hf.MonitorCallback(trainer, 0), ValueError),
            ("per='batch'", lambda: sdpa_var.hf.MonitorCallback(trainer, per="x"), ValueError),
            ("reduce='none'", lambda: sdpa_var.hf.MonitorCallback(trainer, reduce="none"),
             ValueError)):
        try:
            call()
            chk.ok(False, "%s: no %s" % (what, exc.__name__))
        except exc as e:
            chk.ok(True, what)
            print("  %s -> %s: %s" % (what, exc.__name__, e))
    # import sdpa_var alone never imports transformers
    r = subprocess.run([sys.executable, "-c", "import sys, sdpa_var; "
                        "print('transformers' in sys.modules)"], capture_output=True, text=True)
    chk.ok(r.stdout.strip() == "False", "import sdpa_var imports no transformers (%r %r)"
           % (r.stdout, r.stderr[-300:]))


with tempfile.TemporaryDirectory() as tmp:
    per_head(os.path.join(tmp, "head"))
    per_layer(os.path.join(tmp, "layer"))
manners()
chk.done()
