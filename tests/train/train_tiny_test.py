#!/usr/bin/python3
"""examples/train_tiny.py --quick: step 0 matches the random-init theory and
training moves it away, and examples/train_tiny.gp draws the run.

Usage: train_tiny_test.py SOURCE_DIR

Runs `examples/train_tiny.py --quick` (2 layers, 4 heads, d_k 32, d_model 128,
n = 64, 60 steps, four variants; ~20 s on 2 cores) into a scratch directory and reads its
.safetensors files with a reader of its own (json header + numpy.frombuffer,
nothing shared with the script's writer). For every head h (layers x heads of
them) v_h = the sample variance (ddof 1) of the n x n scores q_i . k_j of the
head over ALL pairs, averaged over the 2 windows of the evaluation batch.

(a) Step 0 against the random-init theory.
    q = x W_q with x = LayerNorm(residual) (at init the LayerNorm's gain is 1
    and bias 0, so every row has mean 0 and sum of squares |x|^2 = d_model up
    to eps = 1e-5) and W_q's d_model x d_k block of an nn.Linear with the
    default init, kaiming-uniform a = sqrt 5: entries iid U(-b, b),
    b = 1/sqrt(fan_in), so Var(W) = b^2/3 = 1/(3 d_model). Given x,
    q_l = sum_i x_i W_il has mean 0 and Var(q_l) = |x|^2 Var(W) = 1/3, the
    columns l uncorrelated; k likewise with an independent W_k. So for every
    pair E[(q_i . k_j)^2] = sum_l E[q_il^2] E[k_jl^2] = d_k/9 (= 3.556 for
    d_k 32), and E[q . k] = 0. The variance over pairs subtracts the
    squared mean score s_bar = x_bar M x_bar^T (M = W_q W_k^T, x_bar the mean
    row): E[s_bar^2] = (d_k/9) (|x_bar|^2/d_model)^2, where |x_bar|^2/d_model
    is the mean cosine of the rows, ~0.05 for this text (repeated
    characters share an embedding), so E[v_h] = (d_k/9)(1 - ~0.003).
    Checked numerically over 960 heads (60 seeds x 4 layers x 4 heads of the
    default model): mean 3.537 +- 0.009 against 3.556, i.e. -0.5 %, and the
    heads' relative SD is 8 %.
    qknorm: rows rescaled to norm R = sqrt(d_k); q given x is isotropic
    (Gaussian-like, covariance (1/3) I), so for independent q, k
    E[cos^2] = 1/d_k and E[(q~ . k~)^2] = R^4/d_k = d_k (= 32), the same
    -0.5 % from s_bar (measured 31.86 +- 0.05 over 960 heads).
    The heads are independent draws given their inputs (each has its own
    columns of W_q and W_k), and the conditional expectation is the same for
    every layer's input, so the standard error of the mean over H heads is
    SE = sd(v_h)/sqrt(H) (~3 % of d_k/9 for H = 8); we require
    |mean v_h - theory| <= 5 SE. The 0.5 % bias is a sixth of one SE.
    rope: q^_i = R_i q_i, k^_j = R_j k_j with R_i orthogonal and fixed (the
    rotation of position i), so q^_i . k^_j = q_i^T A k_j, A = R_i^T R_j
    orthogonal. Given x, q_i and k_j are independent with covariance
    (1/3) I each (above), so E[(q_i^T A k_j)^2] = tr((1/3) I A (1/3) I A^T)
    = tr(A A^T)/9 = d_k/9: unchanged for every pair, because the covariance
    is isotropic and rotations preserve it. The mean-score term changes:
    with Var(W)^2 = 1/(9 d_model^2) and tr(R_a R_b^T) = 2 sum_f
    cos(theta_f (a - b)), E[s_bar^2] = (2/(9 d_model^2 n^4)) sum_f
    |X(theta_f)|^2 |X(-theta_f)|^2, X(t) = sum_i x_i e^(i t i) the rows'
    spectrum, where sqrt has d_k |X(0)|^4 (the -0.5 % above). The slow
    pairs (theta_f -> 10000^(-15/16)) keep that term; the fast ones see the
    rows' spectrum away from 0, about n d_model against |X(0)|^2 = n^2
    |x_bar|^2 ~ 3 n d_model here, a tenth of the term or less. So rope's
    bias is between 0 and about sqrt's -0.5 %: the same theory and the
    same 5-SE test.
    With the same seed, sqrt, none and rope share every weight at step 0
    (rope adds no parameter), so sqrt's and none's layer-0 Q and K must be
    equal bit for bit (layer 1's input differs: the scale changed layer
    0's output), and rope's must be sqrt's rotated: numpy's rotation of
    sqrt's file, float64 angles, against the model's float32 tables (angle
    error of order 64 * 2^-24 rad per entry): |difference| <= 1e-4 max |q|, where
    an unrotated or wrongly paired q differs by O(max |q|).

(b) Training changes it: per head the log ratio r_h = ln(v_h(last)/v_h(0));
    if training left the scores' spread alone, r_h would scatter around 0.
    The t statistic mean(r)/(sd(r)/sqrt(H)) must exceed 5 in absolute value.
    Measured: t = 8.8 (sqrt), 8.1 (none), 13.2 (qknorm), 6.8 (rope) at
    step 60.
    The entropy change is printed, not checked: after 60 steps its t is -4.9
    for sqrt (-9.3 none, -6.2 qknorm, -3.3 rope), too close to 5 to be a
    stable check.
"""
import json
import math
import os
import struct
import subprocess
import sys
import tempfile

import numpy as np

D_K = 32
SIGMAS = 5.0
VARIANTS = ("sqrt", "none", "qknorm", "rope")
THEORY = {"sqrt": D_K / 9.0, "none": D_K / 9.0, "qknorm": float(D_K), "rope": D_K / 9.0}


def read_safetensors(path):
    """{name: float64 array} from a .safetensors file of F32 tensors."""
    with open(path, "rb") as f:
        buf = f.read()
    (n,) = struct.unpack("<Q", buf[:8])
    header = json.loads(buf[8:8 + n].decode("utf-8"))
    base, out = 8 + n, {}
    for name, info in header.items():
        if name == "__metadata__":
            continue
        assert info["dtype"] == "F32", (path, name, info["dtype"])
        b, e = info["data_offsets"]
        a = np.frombuffer(buf[base + b:base + e], dtype="<f4")
        out[name] = a.reshape(info["shape"]).astype(np.float64)
    assert base + max(v["data_offsets"][1] for k, v in header.items()
                      if k != "__metadata__") == len(buf), path
    return out


def head_variances(t):
    """v_h for every (layer, head), averaged over the batch."""
    vs, layer = [], 0
    while "layer%d.q" % layer in t:
        q, k = t["layer%d.q" % layer], t["layer%d.k" % layer]
        assert q.ndim == 4 and q.shape == k.shape and q.shape[-1] == D_K, q.shape
        s = q @ np.swapaxes(k, -1, -2)
        vs.extend(s.reshape(s.shape[0], s.shape[1], -1).var(-1, ddof=1).mean(0))
        layer += 1
    return np.array(vs)


def render_figure(src, out, check):
    """examples/train_tiny.gp on this run's steps.csv: exit 0, nothing on
    stderr (gnuplot's warnings exit 0), a PNG of the promised 1500 x 620
    and over 5 KB (an empty frame is 3-4 KB), as tests/gnuplot checks the
    other figure scripts."""
    png = os.path.join(out, "train_tiny.png")
    try:
        with open(os.path.join(out, "steps.csv")) as f:
            r = subprocess.run(["gnuplot", "-e", "out='%s'" % png,
                                os.path.join(src, "examples", "train_tiny.gp")],
                               stdin=f, capture_output=True, text=True)
    except FileNotFoundError:
        check(False, "gnuplot not found: apt-get install gnuplot-nox (scripts/setup.sh installs it)")
        return
    data = open(png, "rb").read() if os.path.exists(png) else b""
    size = struct.unpack(">II", data[16:24]) if len(data) >= 24 else None
    check(r.returncode == 0 and r.stderr == "" and data[:8] == b"\x89PNG\r\n\x1a\n"
          and size == (1500, 620) and len(data) > 5000,
          "train_tiny.gp: exit %d, stderr %r, %d bytes, IHDR %s"
          % (r.returncode, r.stderr.strip()[:200], len(data), size))


def file_stats(t, layer):
    """Per-head entropy, max weight, sink weight, max |logit| and Var(q.k)
    of one layer, from the file alone (numpy, float64): the definitions of
    examples/train_tiny.py's log, written again."""
    q, k, c = t["layer%d.q" % layer], t["layer%d.k" % layer], t["layer%d.scale" % layer]
    n = q.shape[2]
    s = q @ np.swapaxes(k, -1, -2)
    z = s * c[None, :, None, None]
    visible = np.tril(np.ones((n, n), dtype=bool))
    z = np.where(visible, z, -np.inf)
    p = np.exp(z - z.max(-1, keepdims=True))
    p /= p.sum(-1, keepdims=True)
    with np.errstate(divide="ignore", invalid="ignore"):
        ent = -np.where(p > 0, p * np.log(p), 0.0).sum(-1)
    return {
        "entropy": ent.mean(-1).mean(0),
        "max_weight": p.max(-1).mean(-1).mean(0),
        "sink_weight": p[..., 0].mean(-1).mean(0),
        "max_abs_logit": np.where(visible, np.abs(z), 0.0).max((-1, -2)).max(0),
        "max_logit": z.max((-1, -2)).max(0),
        "raw_var": s.reshape(s.shape[0], s.shape[1], -1).var(-1, ddof=1).mean(0),
    }


def load_script(src):
    import importlib.util
    spec = importlib.util.spec_from_file_location("train_tiny", os.path.join(src, "examples", "train_tiny.py"))
    tt = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(tt)
    return tt


def rope_np(x):
    """GPT-NeoX / Llama rotary embedding of b x h x n x d (numpy, float64
    angles): features l, l + d/2 of position i turned by i 10000^(-2l/d)."""
    n, d = x.shape[-2], x.shape[-1]
    ang = np.outer(np.arange(n), 10000.0 ** (-np.arange(0, d, 2) / d))
    cos, sin = np.cos(ang), np.sin(ang)
    x1, x2 = x[..., :d // 2], x[..., d // 2:]
    return np.concatenate((x1 * cos - x2 * sin, x2 * cos + x1 * sin), axis=-1)


def check_rope_paths(src, check):
    """The monitor on a rope model (torch 1.13: no SDPA to capture) by the
    two ways the script offers, against head_stats (torch's weights,
    float64 from the same float32 q, k and multiplier; 1e-10 relative):
    (1) observe() in the forward (what train_tiny.py's evaluate uses),
    (2) hooks on hook_rot_q / hook_rot_k (observe unset; the float32
    multiplier given as monitor(scale=), else the hooks assume the double
    1/sqrt(d_k), 2e-8 relative away); and (3) the same
    module without those hook points: monitor() refuses it, naming both
    ways, rather than measure pre-rotary q, k through hook_q or q_proj."""
    import torch
    import torch.nn.functional as F
    tt = load_script(src)
    sv = tt.load_sdpa_var()
    if sv is None:
        check(False, "rope paths: sdpa_var not importable from build/python")
        return
    torch.manual_seed(0)
    model = tt.TinyGPT(vocab=50, context=16, n_layers=2, n_heads=4, d_model=128, variant="rope")
    x = torch.randint(50, (3, 16))
    attns = [blk.attn for blk in model.blocks]
    for path, observe in (("observe", sv.observe), ("hooks:tl", None)):
        for a in attns:
            a.observe, a.capture = observe, True
        scale = None if observe else float(attns[0].scale()[0])
        with sv.monitor(model, causal=True, reduce="none", scale=scale) as mon, \
                torch.no_grad():
            model(x)
            got = mon.step()
        worst, paths = 0.0, set()
        for i, a in enumerate(attns):
            want, st = tt.head_stats(a), got["blocks.%d.attn" % i]
            paths.add(st.config["path"])
            for name in ("entropy", "entropy_norm", "max_weight", "sink_weight", "max_abs_logit",
                         "max_logit"):
                if "scaled_" + name not in st.values:
                    continue  # max_logit: not in this engine yet
                m = np.asarray(st.values["scaled_" + name])
                m = m.max(0) if "logit" in name else m.mean(0)
                w = np.array(want[name])
                worst = max(worst, (np.abs(m - w) / np.abs(w)).max())
        check(paths == {path} and worst <= 1e-10,
              "rope through %s: paths %s, worst relative %.2g vs torch's weights (<= 1e-10)"
              % (path, sorted(paths), worst))
    if callable(getattr(F, "scaled_dot_product_attention", None)):
        print("SKIP rope refusal: this torch has SDPA, which serves the module instead")
        return
    for a in attns:
        del a.hook_rot_q, a.hook_rot_k
    try:
        sv.monitor(model, causal=True).remove()
        msg = None
    except ValueError as e:
        msg = str(e)
    check(msg is not None and "rotary" in msg and "observe" in msg,
          "rope without hook_rot_*: monitor() refuses: %s" % (msg or "no error")[:120])


def check_hooks(src, check):
    """The attributes a monitor hooks (sdpa_var.monitor: q_proj, k_proj as
    nn.Linear, n_heads) and the hook points hook_q, hook_k: forward hooks
    see q_proj's b x n x d_model output and hook_q's b x heads x n x d_k
    rows (QK-norm: of norm sqrt(d_k)), the latter equal to what a capture
    keeps."""
    import torch
    tt = load_script(src)
    torch.manual_seed(0)
    model = tt.TinyGPT(vocab=50, context=16, n_layers=2, n_heads=4, d_model=128, variant="qknorm")
    attn = model.blocks[1].attn
    seen = {}
    attn.q_proj.register_forward_hook(lambda m, i, o: seen.__setitem__("q_proj", o.detach()))
    attn.hook_q.register_forward_hook(lambda m, i, o: seen.__setitem__("hook_q", o.detach()))
    attn.capture = True
    with torch.no_grad():
        model(torch.randint(50, (3, 16)))
    ok = (isinstance(attn.q_proj, torch.nn.Linear) and isinstance(attn.k_proj, torch.nn.Linear)
          and attn.n_heads == 4 and tuple(seen["q_proj"].shape) == (3, 16, 128)
          and tuple(seen["hook_q"].shape) == (3, 4, 16, 32)
          and torch.equal(seen["hook_q"], attn.q)
          and torch.allclose(seen["hook_q"].norm(dim=-1), torch.tensor(32.0).sqrt()))
    check(ok, "hooks: q_proj %s, hook_q %s equal to the capture, rows of norm sqrt(d_k)"
          % (tuple(seen["q_proj"].shape), tuple(seen["hook_q"].shape)))


def main():
    src = sys.argv[1]
    failures = []

    def check(ok, what):
        print(("ok   " if ok else "FAIL ") + what)
        if not ok:
            failures.append(what)

    with tempfile.TemporaryDirectory() as out:
        cmd = ["/usr/bin/python3", os.path.join(src, "examples", "train_tiny.py"),
               "--quick", "--silent", "--out", out]
        r = subprocess.run(cmd, capture_output=True, text=True)
        if r.returncode != 0:
            print("FAIL %s: exit %d\n%s" % (" ".join(cmd), r.returncode, r.stderr))
            sys.exit(1)
        with open(os.path.join(out, "log.json")) as f:
            log = json.load(f)
        last = log["config"]["steps"]
        render_figure(src, out, check)
        files = {}
        for v in VARIANTS:
            for step in (0, last):
                files[v, step] = read_safetensors(os.path.join(out, "%s_step%06d.safetensors" % (v, step)))

    for v in VARIANTS:
        v0 = head_variances(files[v, 0])
        h = len(v0)
        se = v0.std(ddof=1) / math.sqrt(h)
        check(abs(v0.mean() - THEORY[v]) <= SIGMAS * se,
              "%s step 0: mean Var(q.k) over %d heads %.4f, theory %.4f, |diff| %.4f <= %g SE (SE %.4f)"
              % (v, h, v0.mean(), THEORY[v], abs(v0.mean() - THEORY[v]), SIGMAS, se))
        vt = head_variances(files[v, last])
        ratio = np.log(vt / v0)
        tstat = ratio.mean() / (ratio.std(ddof=1) / math.sqrt(h))
        check(abs(tstat) > SIGMAS,
              "%s step %d: mean ln(Var_last/Var_0) %.3f, t = %.1f, |t| > %g"
              % (v, last, ratio.mean(), tstat, SIGMAS))
        evals = {e["step"]: e for e in log["variants"][v]["evals"]}
        e0 = np.concatenate([lay["entropy"] for lay in evals[0]["layers"]])
        et = np.concatenate([lay["entropy"] for lay in evals[last]["layers"]])
        d = et - e0
        tstat = d.mean() / (d.std(ddof=1) / math.sqrt(len(d)))
        print("     %s step %d: entropy change %.3f nats (from %.3f), t = %.1f (not checked)"
              % (v, last, d.mean(), e0.mean(), tstat))
        check(bool(np.all(np.isfinite(log["variants"][v]["loss"]))), "%s: finite losses" % v)

    # The log's numbers (docs/real-models.md quotes them) from the files:
    # both float64 from the same float32 q, k and multiplier, other
    # summation orders; 1e-9 relative leaves ~1e4 of rounding room and
    # still fails any other definition (ddof, mask, multiplier, mean/max).
    worst = 0.0
    for v in VARIANTS:
        evals = {e["step"]: e for e in log["variants"][v]["evals"]}
        for step in (0, last):
            for layer, logged in enumerate(evals[step]["layers"]):
                mine = file_stats(files[v, step], layer)
                for name, val in mine.items():
                    rel = np.abs(val - np.array(logged[name])) / np.maximum(np.abs(val), 1e-300)
                    if rel.max() > worst:
                        worst, where = rel.max(), "%s step %d layer %d %s: file %r log %r" % (
                            v, step, layer, name, val.tolist(), logged[name])
    check(worst <= 1e-9, "log.json's statistics from the files: worst relative difference %.2g%s"
          % (worst, "" if worst <= 1e-9 else " at " + where))
    # sdpa_var.monitor's numbers of the same forwards (the engine, streaming
    # in float64 from the float32 q, k) against the log's (torch's weights,
    # float64 from the same q, k): means over the batch, max |logit| its max.
    # none multiplies by 1, the monitor's raw logits: 1e-10 relative. sqrt's
    # multiplier is the float32 of 1/sqrt(d_k) in the model and the double in
    # the monitor (2.6e-8 apart, times |logits| up to ~20): 1e-6 there.
    # rope hands the model's float32 multiplier to observe() (the monitor's
    # path "observe"): 1e-10 again. The signed max logit is compared where
    # the engine has it (scaled_max_logit), else reported as skipped.
    paths = {e["layers"][0].get("monitor_path") for e in log["variants"]["rope"]["evals"]}
    check(paths == {"observe"}, "rope: the monitor's path %s, want observe" % sorted(paths))
    if not any("scaled_max_logit" in lay.get("monitor", {}) for v in VARIANTS
               for e in log["variants"][v]["evals"] for lay in e["layers"]):
        print("SKIP monitor's signed max logit: this engine has no scaled_max_logit yet")
    for v, tag, tol in (("none", "raw", 1e-10), ("sqrt", "scaled", 1e-6),
                        ("rope", "scaled", 1e-10)):
        worst, where, seen = 0.0, "", 0
        for e in log["variants"][v]["evals"]:
            for layer, logged in enumerate(e["layers"]):
                mon = logged.get("monitor")
                if mon is None:
                    continue
                seen += 1
                for name in ("entropy", "max_weight", "sink_weight", "max_abs_logit",
                             "max_logit"):
                    if "%s_%s" % (tag, name) not in mon:
                        continue
                    m = np.array(mon["%s_%s" % (tag, name)])
                    m = m.max(0) if "logit" in name else m.mean(0)
                    want = np.array(logged[name])
                    rel = (np.abs(m - want) / np.maximum(np.abs(want), 1e-300)).max()
                    if rel > worst:
                        worst, where = rel, "step %d layer %d %s" % (e["step"], layer, name)
        check(seen > 0 and worst <= tol,
              "%s: monitor vs torch's weights on %d layer evaluations: worst relative %.2g "
              "(tolerance %g) %s" % (v, seen, worst, tol, where))
    check_hooks(src, check)
    check_rope_paths(src, check)
    same = all(np.array_equal(files["sqrt", 0]["layer0." + x], files["none", 0]["layer0." + x])
               for x in ("q", "k"))
    check(same, "sqrt and none: identical layer-0 Q, K at step 0 (same seed)")
    for x in ("q", "k"):
        base = files["sqrt", 0]["layer0." + x]
        diff = np.abs(files["rope", 0]["layer0." + x] - rope_np(base)).max()
        unrot = np.abs(files["rope", 0]["layer0." + x] - base).max()
        check(diff <= 1e-4 * np.abs(base).max(),
              "rope: layer-0 %s at step 0 is sqrt's rotated: max |diff| %.2g (unrotated: %.2g), "
              "<= 1e-4 max |%s| = %.2g" % (x, diff, unrot, x, 1e-4 * np.abs(base).max()))
    for v, want in (("sqrt", 1 / math.sqrt(D_K)), ("none", 1.0), ("qknorm", 1 / math.sqrt(D_K)),
                    ("rope", 1 / math.sqrt(D_K))):
        got = files[v, 0]["layer0.scale"]
        check(bool(np.allclose(got, want, rtol=1e-6)), "%s: layer0.scale %s, want %.6g" % (v, got, want))
    norms = np.linalg.norm(files["qknorm", last]["layer1.q"], axis=-1)
    check(bool(np.allclose(norms, math.sqrt(D_K), rtol=1e-5)),
          "qknorm: rows of q of norm sqrt(d_k): %.6g .. %.6g" % (norms.min(), norms.max()))
    print("%d checks failed" % len(failures))
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
