#!/usr/bin/python3
"""Adaptive pooling fixture for npu-import-pt (run from the repository root):
    /usr/bin/python3 tests/gen/pt_adaptive.py

tests/data/pt/adaptive.pt: torch.jit.trace of a conv followed by
adaptive_max_pool2d and adaptive_avg_pool2d to sizes that do not divide
the input (PyTorch's windows floor(i*in/out) .. ceil((i+1)*in/out)),
ones that do, a global one, one larger than the input and an
adaptive_max_pool1d; adaptive.in0.npy is the input and adaptive.out.npz
PyTorch's outputs (output_0 ...), the reference for npu-run.
"""
import io
import os
import sys
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from pt_fixtures import strip  # noqa: E402  (debug_pkl removed, fixed timestamps)

torch.manual_seed(0)
torch.set_num_threads(1)


class Adaptive(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 4, 3)
        self.max_uneven = nn.AdaptiveMaxPool2d((3, 4))
        self.avg_uneven = nn.AdaptiveAvgPool2d((3, 5))
        self.max_even = nn.AdaptiveMaxPool2d((4, 3))      # 8 -> 4, 9 -> 3: a max_pool
        self.avg_mixed = nn.AdaptiveAvgPool2d((3, 3))     # 8 -> 3 windows, 9 -> 3 a pool
        self.max_global = nn.AdaptiveMaxPool2d(1)
        self.max_up = nn.AdaptiveMaxPool2d((5, 12))      # 9 -> 12: windows overlap

    def forward(self, x):
        y = torch.relu(self.conv(x))                     # 1x4x8x9
        z = F.adaptive_max_pool1d(y.flatten(2), 7)       # 72 -> 7
        v, _ = F.adaptive_max_pool2d(y, (5, 2), return_indices=True)
        return (self.max_uneven(y), self.avg_uneven(y), self.max_even(y), self.avg_mixed(y), self.max_global(y),
                self.max_up(y), z, v)


def main():
    x = torch.randn(1, 3, 10, 11)
    m = torch.jit.trace(Adaptive().eval(), x)
    buf = io.BytesIO()
    torch.jit.save(m, buf)
    raw = strip(buf.getvalue())
    for p in (b"/work", b"/root", b"/home", b"/tmp", b"/usr", b"/build"):
        assert p not in raw, p
    with open("tests/data/pt/adaptive.pt", "wb") as f:
        f.write(raw)
    with torch.no_grad():     # the reference: the saved archive itself
        ys = torch.jit.load(io.BytesIO(raw))(x)
    np.save("tests/data/pt/adaptive.in0.npy", x.numpy())
    np.savez("tests/data/pt/adaptive.out.npz", **{"output_%d" % i: y.numpy() for i, y in enumerate(ys)})


main()
