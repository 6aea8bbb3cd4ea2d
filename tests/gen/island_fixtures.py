#!/usr/bin/python3
"""Models for the float-island, fused-activation, one-channel and
output-name tests of npu-quant and npu-emit (tests/pipeline/t5200-islands.sh),
written to tests/data/islands/. Run with Debian's torch and onnx:
/usr/bin/python3 tests/gen/island_fixtures.py.

    softmax.pt   x [1,16] -> linear 16x10 -> softmax (npu-fuse --target grus
                 rewrites it into max_pool, sub+exp, reduce_sum, div)
    swish.pt     a, b [1,4,6,6] -> a * sigmoid(a * b) (the act pass puts the
                 sigmoid on the inner mul)
    sqrtsum.pt   a, b [1,3,5,5] positive -> sqrt(a + b) (sqrt on an add)
    head1.pt     x [1,3,12,12] -> conv 3->8, relu -> a 1-channel 1x1 conv
                 (a heatmap); global average pooling -> linear 8->1 (one
                 logit); global max pooling -> matmul by a [8,1] weight
                 (one flag, the output channel on the weight's axis 1)
    head1.onnx   the same model through torch.onnx.export (Gemm and MatMul)
    names.onnx   x [1,3,8,8] -> conv, relu, reduce_max, with outputs named
                 like the nodes that make them, TensorFlow style: node
                 'Result' writes tensor 'Result', node 'max_value' writes
                 'max_value'

For each NAME: NAME.calib.npz (8 samples keyed by IR input name, first axis
= samples), NAME.in.npz (one sample) and NAME.out.npz (the framework's
outputs for it, keyed by IR output name), and the sample as NAME.in0.npy,
NAME.in1.npy, ... in input order (for npu_host.c)."""

import io
import os
import sys

import numpy as np
import onnx
import torch
import torch.nn as nn
import torch.nn.functional as F

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from pt_fixtures import strip  # noqa: E402  (the same stripped archives)

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "data", "islands")


class Softmax(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(16, 10)

    def forward(self, x):
        return F.softmax(self.fc(x), dim=1)


class Swish(nn.Module):
    def forward(self, a, b):
        return a * torch.sigmoid(a * b)


class SqrtSum(nn.Module):
    def forward(self, a, b):
        return torch.sqrt(a + b)


class Head1(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = nn.Conv2d(3, 8, 3, padding=1)
        self.heat = nn.Conv2d(8, 1, 1)
        self.logit = nn.Linear(8, 1)
        self.w1 = nn.Parameter(torch.randn(8, 1) * 0.5)  # [K, N]: the channel axis is 1

    def forward(self, x):
        h = F.relu(self.body(x))
        return self.heat(h), self.logit(h.mean(dim=(2, 3))), torch.matmul(h.amax(dim=(2, 3)), self.w1)


class Names(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 4, 3, padding=1)

    def forward(self, x):
        r = F.relu(self.conv(x))
        return r, r.amax(dim=(2, 3))


def samples(seed, shape, n, positive=False):
    r = np.random.RandomState(seed)
    v = r.uniform(0.05, 2.0, (n,) + shape) if positive else r.randn(n, *shape)
    return v.astype(np.float32)


def write_data(name, names, calib, outs):
    np.savez(os.path.join(OUT, name + ".calib.npz"), **dict(zip(names, calib)))
    np.savez(os.path.join(OUT, name + ".in.npz"), **{k: v[0] for k, v in zip(names, calib)})
    for k, v in enumerate(calib):
        np.save(os.path.join(OUT, "%s.in%d.npy" % (name, k)), v[0])
    np.savez(os.path.join(OUT, name + ".out.npz"), **outs)


def save_pt(name, make, names, shapes, seed, positive=False):
    torch.manual_seed(seed)  # the weights
    module = make().eval()
    calib = [samples(seed + k, s, 8, positive) for k, s in enumerate(shapes)]
    ins = [torch.from_numpy(c[0]) for c in calib]
    with torch.no_grad():
        m = torch.jit.trace(module, tuple(ins))
    buf = io.BytesIO()
    torch.jit.save(m, buf)
    raw = strip(buf.getvalue())
    assert b"/work" not in raw and b"/root" not in raw and b"/home" not in raw, name
    loaded = torch.jit.load(io.BytesIO(raw))
    with torch.no_grad():
        y = loaded(*ins)
    y = list(y) if isinstance(y, tuple) else [y]
    with open(os.path.join(OUT, name + ".pt"), "wb") as f:
        f.write(raw)
    write_data(name, names, calib, {"output_%d" % i: t.numpy() for i, t in enumerate(y)})
    return module, calib, ins, y


def save_onnx(name, module, ins, in_names, out_names, rename=None):
    buf = io.BytesIO()
    torch.onnx.export(module, tuple(ins), buf, input_names=in_names, output_names=out_names,
                      opset_version=13, do_constant_folding=True)
    m = onnx.load_from_string(buf.getvalue())
    for n in m.graph.node:
        if rename and n.output[0] in rename:
            n.name = rename[n.output[0]]
    m.producer_name = "island_fixtures.py"
    m.producer_version = ""
    onnx.checker.check_model(m)
    with open(os.path.join(OUT, name + ".onnx"), "wb") as f:
        f.write(m.SerializeToString())


def main():
    os.makedirs(OUT, exist_ok=True)
    save_pt("softmax", Softmax, ["x"], [(1, 16)], 10)
    save_pt("swish", Swish, ["a", "b"], [(1, 4, 6, 6), (1, 4, 6, 6)], 20)
    save_pt("sqrtsum", SqrtSum, ["a", "b"], [(1, 3, 5, 5), (1, 3, 5, 5)], 30, positive=True)
    head, calib, ins, y = save_pt("head1", Head1, ["x"], [(1, 3, 12, 12)], 40)
    save_onnx("head1", head, ins, ["x"], ["heat", "logit", "flag"])
    # the ONNX copy has its own output names
    os.replace(os.path.join(OUT, "head1.out.npz"), os.path.join(OUT, "head1.pt.out.npz"))
    write_data("head1", ["x"], calib, {"heat": y[0].numpy(), "logit": y[1].numpy(), "flag": y[2].numpy()})
    os.replace(os.path.join(OUT, "head1.out.npz"), os.path.join(OUT, "head1.onnx.out.npz"))
    os.replace(os.path.join(OUT, "head1.pt.out.npz"), os.path.join(OUT, "head1.out.npz"))

    torch.manual_seed(50)
    names = Names().eval()
    calib = [samples(50, (1, 3, 8, 8), 8)]
    x = torch.from_numpy(calib[0][0])
    with torch.no_grad():
        r, mx = names(x)
    save_onnx("names", names, [x], ["x"], ["Result", "max_value"],
              rename={"Result": "Result", "max_value": "max_value"})
    write_data("names", ["x"], calib, {"Result": r.numpy(), "max_value": mx.numpy()})


if __name__ == "__main__":
    main()
