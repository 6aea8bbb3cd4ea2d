#!/usr/bin/python3
"""Fixtures of t4100-layout.sh: channel-last inputs of the PyTorch models in
tests/data/pt (the same samples, permuted NCHW -> NHWC) and PyTorch's own
outputs for them, channel-last where the output is a feature map.

Run from the repository root with Debian's python3-torch:
    /usr/bin/python3 tests/gen/layout_fixtures.py
"""
import os

import numpy as np
import torch

PT = os.path.join("tests", "data", "pt")
OUT = os.path.join("tests", "data", "layout")


def main():
    os.makedirs(OUT, exist_ok=True)
    for name in ("cnn", "depthwise"):
        m = torch.jit.load(os.path.join(PT, name + ".pt"))
        m.eval()
        x = np.load(os.path.join(PT, name + ".in0.npy"))
        with torch.no_grad():
            y = m(torch.from_numpy(x)).numpy()
        if y.ndim == 4:
            y = y.transpose(0, 2, 3, 1)
        np.save(os.path.join(OUT, name + ".nhwc.in.npy"), np.ascontiguousarray(x.transpose(0, 2, 3, 1)))
        np.save(os.path.join(OUT, name + ".nhwc.out.npy"), np.ascontiguousarray(y.astype(np.float32)))


if __name__ == "__main__":
    main()
