#!/usr/bin/python3
"""sdpa_var.monitor in a plain training loop, into TensorBoard
(docs/python.md, "TensorBoard from your own loop"):

  PYTHONPATH=build/python python3 examples/tensorboard_loop.py --logdir runs/attn
  tensorboard --logdir runs/attn

A small causal transformer (2 nn.TransformerEncoderLayer, 4 heads, d_model
64, context 32) learns to continue random token sequences that repeat
with period 8; every --every steps the monitor's numbers go to TensorBoard
one scalar per key (SummaryWriter.add_scalar), as
"attn/<layer>/head<h>/<statistic>" (Monitor.to_dict), beside the loss.
Needs tensorboard (pip install tensorboard) for torch.utils.tensorboard.
"""

import argparse
import os

os.environ.setdefault("OMP_WAIT_POLICY", "passive")
import torch  # noqa: E402
import torch.nn as nn  # noqa: E402

import sdpa_var  # noqa: E402

VOCAB, D, HEADS, LAYERS, N, BATCH, PERIOD = 32, 64, 4, 2, 32, 8, 8


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(VOCAB, D)
        self.pos = nn.Parameter(torch.zeros(N, D))
        layer = nn.TransformerEncoderLayer(D, HEADS, 4 * D, dropout=0.0, batch_first=True)
        self.layers = nn.ModuleList([layer] + [nn.TransformerEncoderLayer(
            D, HEADS, 4 * D, dropout=0.0, batch_first=True) for _ in range(LAYERS - 1)])
        self.out = nn.Linear(D, VOCAB)
        self.register_buffer("mask", torch.triu(torch.full((N, N), float("-inf")), 1))

    def forward(self, x):
        h = self.emb(x) + self.pos[:x.shape[1]]
        for layer in self.layers:
            h = layer(h, src_mask=self.mask, is_causal=True)
        return self.out(h)


def batch(gen):
    """Sequences repeating a random block of PERIOD tokens: learnable by
    attending PERIOD positions back."""
    block = torch.randint(VOCAB, (BATCH, PERIOD), generator=gen)
    seq = block.repeat(1, (N + 1) // PERIOD + 1)[:, :N + 1]
    return seq[:, :-1], seq[:, 1:]


def train(logdir, steps=40, every=5, seed=0):
    """Trains for @p steps, writing the loss and, every @p every steps,
    the monitor's numbers to a SummaryWriter in @p logdir; returns the
    Monitor (detached; its to_pandas() has what was written)."""
    from torch.utils.tensorboard import SummaryWriter

    torch.manual_seed(seed)
    gen = torch.Generator().manual_seed(seed)
    model = Model()
    opt = torch.optim.AdamW(model.parameters(), lr=3e-3)
    writer = SummaryWriter(logdir)
    measured = 0
    with sdpa_var.monitor(model, every=every, causal=True) as mon:
        for step in range(steps):
            x, y = batch(gen)
            loss = nn.functional.cross_entropy(model(x).reshape(-1, VOCAB), y.reshape(-1))
            opt.zero_grad()
            loss.backward()
            opt.step()
            writer.add_scalar("loss", loss.item(), step)
            if mon.step():                       # every `every`-th step, from step 0
                measured += 1
                for key, value in mon.to_dict(prefix="attn/").items():
                    writer.add_scalar(key, value, step)
    writer.close()
    print("wrote the loss and %d measured steps x %d keys to %s"
          % (measured, len(mon.to_dict()), logdir))
    return mon


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--logdir", required=True, help="TensorBoard's log directory")
    ap.add_argument("--steps", type=int, default=40)
    ap.add_argument("--every", type=int, default=5, help="measure one step in this many")
    args = ap.parse_args()
    train(args.logdir, args.steps, args.every)


if __name__ == "__main__":
    main()
