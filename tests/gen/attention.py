#!/usr/bin/python3
"""A tiny self-attention block for the runtime's matmul of two activations
(tests/pipeline/t6100-attention.sh), written to tests/data/families/attn_block/
in the family fixture layout. Run with Debian's PyTorch:
/usr/bin/python3 tests/gen/attention.py.

    model.onnx  x [1, 6, 16] -> y [1, 6, 16]: Linear projections q, k, v into
                2 heads of 8, softmax(q k^T / sqrt(8)) over the last axis, times
                v, heads merged, output projection; then argmax over the
                features (an index output) as idx [1, 6]
    args        the importer's arguments (none: the shapes are fixed)
    calib.npz   16 samples of x (first axis = samples)
    in.npz      one sample of x
    x.npy       the same sample as .npy (npu_host.c reads .npy files)
    out.npz     PyTorch's y and idx for in.npz
"""
import math
import os

import numpy as np
import torch
from torch import nn

TOP = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
OUT = os.path.join(TOP, "tests", "data", "families", "attn_block")
T, D, H = 6, 16, 2
DH = D // H


class Attention(nn.Module):
    def __init__(self):
        super().__init__()
        self.q, self.k, self.v, self.o = (nn.Linear(D, D) for _ in range(4))

    def heads(self, t):
        return t.reshape(1, T, H, DH).transpose(1, 2)  # [1, H, T, DH]

    def forward(self, x):
        q, k, v = self.heads(self.q(x)), self.heads(self.k(x)), self.heads(self.v(x))
        a = torch.softmax(torch.matmul(q, k.transpose(-2, -1)) / math.sqrt(DH), dim=-1)
        y = self.o(torch.matmul(a, v).transpose(1, 2).reshape(1, T, D))
        return y, torch.argmax(y, dim=-1)


def main():
    os.makedirs(OUT, exist_ok=True)
    torch.manual_seed(0)
    m = Attention().eval()
    rs = np.random.RandomState(1)
    calib = rs.randn(16, 1, T, D).astype(np.float32)
    x = rs.randn(1, T, D).astype(np.float32)
    with torch.no_grad():
        y, idx = m(torch.from_numpy(x))
        torch.onnx.export(m, torch.from_numpy(x), os.path.join(OUT, "model.onnx"), input_names=["x"],
                          output_names=["y", "idx"], opset_version=13, do_constant_folding=True)
    np.savez(os.path.join(OUT, "calib.npz"), x=calib)
    np.savez(os.path.join(OUT, "in.npz"), x=x)
    np.save(os.path.join(OUT, "x.npy"), x)
    np.savez(os.path.join(OUT, "out.npz"), y=y.numpy(), idx=idx.numpy())
    with open(os.path.join(OUT, "args"), "w") as f:
        f.write("\n")


if __name__ == "__main__":
    main()
