#!/usr/bin/python3
"""Regenerate tests/data/conform/: small PyTorch models exported to ONNX
with PyTorch's own outputs, in the layout of ONNX's node tests
(test_NAME/model.onnx, test_data_set_0/input_N.pb and output_N.pb), for
what the ONNX test suite leaves out: bidirectional and batch-first
recurrent layers (GRU exports with linear_before_reset=1), grouped and
dilated transposed convolutions, bilinear/nearest upsampling and a
MobileNet-style block. tests/conform/onnx_conform runs them with
--suite tests/data/conform.

Run from the repository root with Debian's python3-torch:
    /usr/bin/python3 tests/gen/exec_fixtures.py
"""
import os
import shutil
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from onnx import numpy_helper

torch.manual_seed(0)
torch.set_num_threads(1)
OUT = "tests/data/conform"


def save(name, model, inputs, input_names, output_names, opset=13):
    model.eval()
    d = os.path.join(OUT, "test_" + name)
    shutil.rmtree(d, ignore_errors=True)
    os.makedirs(os.path.join(d, "test_data_set_0"))
    with torch.no_grad():
        outs = model(*inputs)
        if not isinstance(outs, (tuple, list)):
            outs = (outs,)
        torch.onnx.export(model, tuple(inputs), os.path.join(d, "model.onnx"), opset_version=opset,
                          input_names=input_names, output_names=output_names,
                          do_constant_folding=True)
    for i, (n, x) in enumerate(zip(input_names, inputs)):
        with open(os.path.join(d, "test_data_set_0", "input_%d.pb" % i), "wb") as f:
            f.write(numpy_helper.from_array(x.numpy(), n).SerializeToString())
    for i, (n, y) in enumerate(zip(output_names, outs)):
        with open(os.path.join(d, "test_data_set_0", "output_%d.pb" % i), "wb") as f:
            f.write(numpy_helper.from_array(y.numpy(), n).SerializeToString())
    print(d)


class Rec(nn.Module):
    """A recurrent layer returning all its outputs as a flat tuple."""

    def __init__(self, layer):
        super().__init__()
        self.layer = layer

    def forward(self, x):
        y, h = self.layer(x)
        return (y,) + (tuple(h) if isinstance(h, tuple) else (h,))


class Upsample(nn.Module):
    def forward(self, x):
        a = F.interpolate(x, scale_factor=2, mode="nearest")
        b = F.interpolate(x, scale_factor=2, mode="bilinear", align_corners=False)
        c = F.interpolate(x, size=(7, 9), mode="bilinear", align_corners=True)
        return a, b, c


class InvertedResidual(nn.Module):
    """MobileNetV2 block: expand 1x1, depthwise 3x3, project 1x1, residual."""

    def __init__(self, c, t):
        super().__init__()
        h = c * t
        self.block = nn.Sequential(
            nn.Conv2d(c, h, 1, bias=False), nn.BatchNorm2d(h), nn.ReLU6(),
            nn.Conv2d(h, h, 3, padding=1, groups=h, bias=False), nn.BatchNorm2d(h), nn.ReLU6(),
            nn.Conv2d(h, c, 1, bias=False), nn.BatchNorm2d(c))
        self.down = nn.Conv2d(c, c, 3, stride=2, padding=1, groups=c)

    def forward(self, x):
        y = x + self.block(x)
        return self.down(y)


os.makedirs(OUT, exist_ok=True)
S, B, I, H = 5, 2, 3, 4
x = torch.randn(S, B, I)
save("torch_lstm_bidirectional", Rec(nn.LSTM(I, H, bidirectional=True)), [x], ["x"], ["y", "y_h", "y_c"])
save("torch_gru_bidirectional", Rec(nn.GRU(I, H, bidirectional=True)), [x], ["x"], ["y", "y_h"])
save("torch_rnn_bidirectional", Rec(nn.RNN(I, H, bidirectional=True)), [x], ["x"], ["y", "y_h"])
save("torch_lstm_batch_first", Rec(nn.LSTM(I, H, batch_first=True)), [torch.randn(B, S, I)], ["x"],
     ["y", "y_h", "y_c"])
save("torch_gru_two_layers", Rec(nn.GRU(I, H, num_layers=2)), [x], ["x"], ["y", "y_h"])
save("torch_conv_transpose_groups",
     nn.ConvTranspose2d(4, 6, 3, stride=2, padding=1, output_padding=1, groups=2, dilation=2),
     [torch.randn(1, 4, 5, 6)], ["x"], ["y"])
save("torch_upsample", Upsample(), [torch.randn(1, 2, 3, 4)], ["x"], ["nearest", "bilinear", "align_corners"],
     opset=11)
block = InvertedResidual(8, 6)
for m in block.modules():
    if isinstance(m, nn.BatchNorm2d):
        m.running_mean.uniform_(-0.5, 0.5)
        m.running_var.uniform_(0.5, 2.0)
save("torch_inverted_residual", block, [torch.randn(1, 8, 10, 10)], ["x"], ["y"])
