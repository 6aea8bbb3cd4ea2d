#!/usr/bin/python3
"""tests/data/families/unet_prelu/: a tiny encoder-decoder segmenter (strided
convs, PReLU per channel and shared, a transposed convolution, nearest and
bilinear upsampling, a skip connection) in the family fixture layout:
model.pt, args, calib.npz, in.npz and out.npz (PyTorch's outputs for in.npz),
and in.x.npy (in.npz's one array, for the emitted code's host program).

Run with Debian's python3-torch: /usr/bin/python3 tests/gen/segmenter.py"""
import io
import os
import sys

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from pt_fixtures import strip  # noqa: E402  (the same archive bytes as the other fixtures)

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "data", "families", "unet_prelu")


class Segmenter(nn.Module):
    def __init__(self):
        super().__init__()
        self.enc1 = nn.Conv2d(3, 8, 3, stride=2, padding=1)
        self.act1 = nn.PReLU(8)
        self.enc2 = nn.Conv2d(8, 16, 3, stride=2, padding=1)
        self.act2 = nn.PReLU()
        self.up = nn.ConvTranspose2d(16, 8, 4, stride=2, padding=1)
        self.act3 = nn.PReLU(8)
        self.side = nn.Conv2d(16, 8, 1)
        self.head = nn.Conv2d(8, 2, 3, padding=1)

    def forward(self, x):
        e1 = self.act1(self.enc1(x))                    # 8 x 16 x 16
        e2 = self.act2(self.enc2(e1))                   # 16 x 8 x 8
        d = self.act3(self.up(e2))                      # 8 x 16 x 16
        s = self.side(F.interpolate(e2, scale_factor=2.0, mode="nearest"))
        y = self.head(d + s + e1)                       # 2 x 16 x 16
        return F.interpolate(y, scale_factor=2.0, mode="bilinear", align_corners=False)


def main():
    torch.manual_seed(0)
    m = Segmenter().eval()
    with torch.no_grad():  # slopes that differ per channel and are not the default 0.25
        for p in (m.act1, m.act2, m.act3):
            p.weight.copy_(torch.rand(p.weight.shape) * 0.5)
    g = torch.Generator().manual_seed(3)
    calib = torch.rand(8, 1, 3, 32, 32, generator=g) * 2 - 1
    x = torch.rand(1, 3, 32, 32, generator=g) * 2 - 1
    with torch.no_grad():
        tr = torch.jit.trace(m, (x,))
        buf = io.BytesIO()
        torch.jit.save(tr, buf)
        raw = strip(buf.getvalue())
        y = torch.jit.load(io.BytesIO(raw))(x)
    assert b"/work" not in raw and b"/home" not in raw and b"/root" not in raw
    os.makedirs(OUT, exist_ok=True)
    with open(os.path.join(OUT, "model.pt"), "wb") as f:
        f.write(raw)
    with open(os.path.join(OUT, "args"), "w") as f:
        f.write("--input 0:1,3,32,32\n")
    np.savez(os.path.join(OUT, "calib.npz"), x=calib.numpy())
    np.savez(os.path.join(OUT, "in.npz"), x=x.numpy())
    np.save(os.path.join(OUT, "in.x.npy"), x.numpy())
    np.savez(os.path.join(OUT, "out.npz"), output_0=y.numpy())


if __name__ == "__main__":
    main()
