#!/usr/bin/python3
"""sdpa-var --q/--k/--v on Q, K and V captured from PyTorch layers, against
torch's own softmax on the same tensors.

Usage: files_test.py SDPA_VAR

Two layers, float64:
  * nn.MultiheadAttention (4 heads): a forward hook captures the layer's
    inputs; Q, K and V are its in-projection of them, split into heads as
    torch does; the reference weights are the layer's own, returned with
    need_weights=True, average_attn_weights=False (torch's softmax of
    Q K^T / sqrt(d_k)).
  * a hand-written grouped-query layer (8 query heads, 2 key/value heads,
    Llama's repeat_kv): forward hooks on q_proj, k_proj and v_proj capture
    the projections; the layer keeps its own weights
    softmax(Q K^T / sqrt(d_k)) (masked with causal).
Q, K, V are saved as .npy (batch x heads x n x d) and as one .safetensors
file in the bnhd layout (batch x n x heads x d, names q, k, v); sdpa-var
reads them per (batch, head) and each per-head statistic must equal the
one computed from torch's weight matrix to 1e-10 relative (a floor of
1e-12 for values near 0): scaled entropy, max weight, sink share (weight
on key 0), normalised entropy and output variance (mean of O's squared
entries, O = weights V), and raw (unscaled) entropy from torch.softmax of
Q K^T. Both sides are float64 with other summation orders: they agree to
~1e-14, so 1e-10 fails any wrong head mapping, scale, mask or formula.
"""
import csv
import io
import math
import os
import subprocess
import sys
import tempfile

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "io"))
from safetensors_file import write_safetensors  # noqa: E402

try:
    import torch
except ImportError:
    print("torch not found: apt-get install python3-torch (scripts/setup.sh installs it)")
    sys.exit(1)

TOL, FLOOR = 1e-10, 1e-12
BIN = sys.argv[1]
failures = 0


def stats_from_weights(w, v, keys_seen):
    """Per-head statistics from weights w (B, H, n_q, n_k) and values v
    (B, H, n_k, d_v), means over query rows, as sdpa-var defines them."""
    w = w.double()
    plogp = torch.where(w > 0, w * torch.log(w), torch.zeros_like(w))
    ent = -plogp.sum(-1)  # (B, H, n_q)
    ks = torch.tensor(keys_seen, dtype=torch.float64)
    norm_rows = ks >= 2
    norm = (ent[..., norm_rows] / torch.log(ks[norm_rows])).mean(-1)
    out = {
        "scaled_entropy": ent.mean(-1),
        "scaled_max_weight": w.max(-1).values.mean(-1),
        "scaled_sink_weight": w[..., 0].mean(-1),
        "scaled_entropy_norm": norm,
    }
    if v is not None:
        o = w @ v.double()
        out["scaled_out_var"] = (o * o).mean(dim=(-1, -2))
    return out


def raw_entropy(q, k, causal):
    s = q.double() @ k.double().transpose(-1, -2)
    if causal:
        n = s.shape[-1]
        s = s.masked_fill(torch.ones(n, n, dtype=torch.bool).triu(1), float("-inf"))
    w = torch.softmax(s, dim=-1)
    plogp = torch.where(w > 0, w * torch.log(w), torch.zeros_like(w))
    return (-plogp.sum(-1)).mean(-1)


def run(args):
    r = subprocess.run([BIN, *args, "--format", "csv", "--columns", "all", "--pool", "none"], capture_output=True, text=True)
    if r.returncode != 0:
        raise SystemExit("sdpa-var %s: exit %d: %s" % (" ".join(args), r.returncode, r.stderr))
    return list(csv.DictReader(io.StringIO(r.stdout)))


def compare(label, rows, want, kv_of_head):
    global failures
    B, H = next(iter(want.values())).shape
    if len(rows) != B * H:
        print("%s: %d rows, want %d" % (label, len(rows), B * H))
        failures += 1
        return
    for row in rows:
        b, h = int(row["batch"]), int(row["head"])
        if int(row["kv_head"]) != kv_of_head(h):
            print("%s: head %d read kv_head %s, want %d" % (label, h, row["kv_head"], kv_of_head(h)))
            failures += 1
        for name, t in want.items():
            got, w = float(row[name]), float(t[b, h])
            if not abs(got - w) <= TOL * abs(w) + FLOOR:
                print("%s: batch %d head %d %s = %.17g, torch %.17g" % (label, b, h, name, got, w))
                failures += 1


def check(label, tmp, q, k, v, w, causal, kv_of_head):
    """q (B, Hq, n, d), k, v (B, Hkv, n, d) float64 tensors; w torch's weights."""
    n_q, n_k = q.shape[2], k.shape[2]
    keys_seen = [min(i + 1, n_k) if causal else n_k for i in range(n_q)]
    want = stats_from_weights(w, torch.repeat_interleave(v, q.shape[1] // v.shape[1], dim=1), keys_seen)
    want["raw_entropy"] = raw_entropy(q, torch.repeat_interleave(k, q.shape[1] // k.shape[1], dim=1), causal)
    want = {a: b.detach().numpy() for a, b in want.items()}
    paths = {}
    for name, t in (("q", q), ("k", k), ("v", v)):
        paths[name] = os.path.join(tmp, "%s_%s.npy" % (label, name))
        np.save(paths[name], t.detach().numpy())
    extra = ["--causal"] if causal else []
    compare(label + " npy", run(["--q", paths["q"], "--k", paths["k"], "--v", paths["v"], *extra]), want,
            kv_of_head)
    st = os.path.join(tmp, label + ".safetensors")
    write_safetensors(st, {n: t.detach().numpy().transpose(0, 2, 1, 3) for n, t in (("q", q), ("k", k), ("v", v))})
    args = ["--q", st + ":q", "--k", st + ":k", "--v", st + ":v", "--layout", "bnhd", *extra]
    compare(label + " safetensors bnhd", run(args), want, kv_of_head)


def multihead(tmp):
    torch.manual_seed(1)
    E, H, B, N = 64, 4, 2, 300
    mha = torch.nn.MultiheadAttention(E, H, batch_first=True, dtype=torch.float64)
    seen = {}
    mha.register_forward_hook(lambda m, inp, out: seen.update(x=inp[0], w=out[1]))
    x = torch.randn(B, N, E, dtype=torch.float64)
    with torch.no_grad():
        mha(x, x, x, need_weights=True, average_attn_weights=False)
        wq, wk, wv = mha.in_proj_weight.chunk(3)
        bq, bk, bv = mha.in_proj_bias.chunk(3)
        heads = lambda t: t.view(B, N, H, E // H).transpose(1, 2)  # noqa: E731 as torch splits
        q, k, v = heads(x @ wq.T + bq), heads(x @ wk.T + bk), heads(x @ wv.T + bv)
    check("mha", tmp, q, k, v, seen["w"], False, lambda h: h)


class GQA(torch.nn.Module):
    """Grouped-query attention as Llama writes it (repeat_kv)."""

    def __init__(self, d_model, n_heads, n_kv_heads, causal):
        super().__init__()
        self.n_heads, self.n_kv_heads, self.d = n_heads, n_kv_heads, d_model // n_heads
        self.q_proj = torch.nn.Linear(d_model, n_heads * self.d, dtype=torch.float64)
        self.k_proj = torch.nn.Linear(d_model, n_kv_heads * self.d, dtype=torch.float64)
        self.v_proj = torch.nn.Linear(d_model, n_kv_heads * self.d, dtype=torch.float64)
        self.causal = causal

    def forward(self, x):
        B, N, _ = x.shape
        q = self.q_proj(x).view(B, N, self.n_heads, self.d).transpose(1, 2)
        k = self.k_proj(x).view(B, N, self.n_kv_heads, self.d).transpose(1, 2)
        v = self.v_proj(x).view(B, N, self.n_kv_heads, self.d).transpose(1, 2)
        rep = self.n_heads // self.n_kv_heads
        k, v = torch.repeat_interleave(k, rep, dim=1), torch.repeat_interleave(v, rep, dim=1)
        s = q @ k.transpose(-1, -2) / math.sqrt(self.d)
        if self.causal:
            s = s.masked_fill(torch.ones(N, N, dtype=torch.bool).triu(1), float("-inf"))
        self.weights = torch.softmax(s, dim=-1)
        return self.weights @ v


def grouped(tmp, causal):
    torch.manual_seed(2)
    B, N, D, Hq, Hkv = 1, 257, 128, 8, 2
    layer = GQA(D, Hq, Hkv, causal)
    cap = {}
    for name in ("q_proj", "k_proj", "v_proj"):
        getattr(layer, name).register_forward_hook(lambda m, i, o, name=name: cap.update({name: o}))
    x = torch.randn(B, N, D, dtype=torch.float64)
    with torch.no_grad():
        layer(x)
    split = lambda t, h: t.view(B, N, h, D // Hq).transpose(1, 2)  # noqa: E731
    q, k, v = split(cap["q_proj"], Hq), split(cap["k_proj"], Hkv), split(cap["v_proj"], Hkv)
    check("gqa" + ("_causal" if causal else ""), tmp, q, k, v, layer.weights, causal,
          lambda h: h // (Hq // Hkv))


with tempfile.TemporaryDirectory() as tmp:
    multihead(tmp)
    grouped(tmp, False)
    grouped(tmp, True)
if failures:
    print("files_test: %d mismatches" % failures)
    sys.exit(1)
print("files_test: nn.MultiheadAttention and a GQA layer agree with torch to 1e-10")
