#!/usr/bin/python3
"""Models with vendor ops for the op-plugin test (tests/pipeline/t9030-opplugin.sh),
written to tests/data/opplugin/ by torch.onnx.export with custom symbolics:
/usr/bin/python3 tests/gen/opplugin_fixtures.py.

    vendor.onnx  x [1,3,8,8] -> conv 3->8 3x3 pad 1 -> com.vendor
                 SpaceToDepthX (blocksize=2: F.pixel_unshuffle; int8 after
                 npu-quant) -> com.vendor MishX (alpha=1.5: 1.5 * F.mish;
                 a float island) -> conv 32->4 1x1
    badblock.onnx  x [1,3,6,6] -> conv 3->8 3x3 pad 1 -> SpaceToDepthX with
                 blocksize 4 (6 is not a multiple: the plugin's shape
                 function refuses it; PyTorch's side passes x through)

The ops are what share/npu/plugins/op_mishx.c and op_space_to_depthx.c
claim. vendor.calib.npz: 16 samples (first axis) keyed by the IR input
name; vendor.in.npz / vendor.in0.npy one sample, vendor.out.npz PyTorch's
output for it, keyed by the IR output name."""

import os

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "data", "opplugin")


class MishX(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, alpha):
        return alpha * F.mish(x)

    @staticmethod
    def symbolic(g, x, alpha):
        y = g.op("com.vendor::MishX", x, alpha_f=alpha)
        y.setType(x.type())
        return y


class SpaceToDepthX(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, b):
        if x.shape[2] % b or x.shape[3] % b:	# the bad model: any shape will do
            return x
        return F.pixel_unshuffle(x, b)

    @staticmethod
    def symbolic(g, x, b):
        return g.op("com.vendor::SpaceToDepthX", x, blocksize_i=b)


class Vendor(nn.Module):
    def __init__(self, block=2, c_out=4):
        super().__init__()
        self.block = block
        self.conv1 = nn.Conv2d(3, 8, 3, padding=1)
        self.conv2 = nn.Conv2d(8 * block * block, c_out, 1)

    def forward(self, x):
        y = SpaceToDepthX.apply(self.conv1(x), self.block)
        y = MishX.apply(y, 1.5)
        return self.conv2(y)


class Bad(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(3, 8, 3, padding=1)

    def forward(self, x):
        return SpaceToDepthX.apply(self.conv1(x), 4)


def export(model, shape, name):
    model.eval()
    x = torch.randn(*shape)
    path = os.path.join(OUT, name + ".onnx")
    torch.onnx.export(model, (x,), path, input_names=["x"], output_names=["y"], opset_version=13,
                      custom_opsets={"com.vendor": 1})
    return x


def main():
    import warnings
    warnings.filterwarnings("ignore")
    os.makedirs(OUT, exist_ok=True)
    torch.manual_seed(17)
    m = Vendor()
    export(m, (1, 3, 8, 8), "vendor")
    calib = torch.randn(16, 1, 3, 8, 8)
    np.savez(os.path.join(OUT, "vendor.calib.npz"), x=calib.numpy().reshape(16, 1, 3, 8, 8))
    x = torch.randn(1, 3, 8, 8)
    with torch.no_grad():
        y = m(x)
    np.savez(os.path.join(OUT, "vendor.in.npz"), x=x.numpy())
    np.save(os.path.join(OUT, "vendor.in0.npy"), x.numpy())
    np.savez(os.path.join(OUT, "vendor.out.npz"), y=y.numpy())
    export(Bad(), (1, 3, 6, 6), "badblock")


if __name__ == "__main__":
    main()
