"""Fixtures for npu-fuse's tests (tests/pipeline/t4000-fuse.sh).

    /usr/bin/python3 tests/gen/fuse_fixtures.py

Writes tests/data/fuse/NAME.onnx with NAME.input.npy and NAME.output.npy
(PyTorch's output). The models are exported with TrainingMode.PRESERVE from
eval mode so that BatchNormalization stays a node of its own (the default
export folds it into the conv, which would leave npu-fuse nothing to do).
BatchNorm statistics are made non-trivial by running random batches
through the model in train mode first. Seed 0.
"""
import os

import numpy as np
import torch
import torch.nn as nn
import torchvision

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "data", "fuse")


class ConvBn(nn.Module):
    """conv+bn+relu, depthwise+bn+relu6, conv_transpose+bn, linear+bn1d."""
    def __init__(self):
        super().__init__()
        self.c1, self.b1 = nn.Conv2d(3, 8, 3, padding=1), nn.BatchNorm2d(8)
        self.c2, self.b2 = nn.Conv2d(8, 8, 3, padding=1, groups=8, bias=False), nn.BatchNorm2d(8)
        self.c3, self.b3 = nn.ConvTranspose2d(8, 4, 2, stride=2, groups=2), nn.BatchNorm2d(4)
        self.fc, self.b4 = nn.Linear(4 * 16 * 16, 10), nn.BatchNorm1d(10)

    def forward(self, x):
        x = torch.relu(self.b1(self.c1(x)))
        x = torch.clamp(self.b2(self.c2(x)), 0, 6)
        x = self.b3(self.c3(x))
        return self.b4(self.fc(x.flatten(1)))


class Shared(nn.Module):
    """The conv output feeds the bn and an add: the bn must stay."""
    def __init__(self):
        super().__init__()
        self.c, self.b = nn.Conv2d(3, 4, 3, padding=1), nn.BatchNorm2d(4)

    def forward(self, x):
        y = self.c(x)
        return self.b(y) + y


class MulAdd(nn.Module):
    """conv * per-channel const + const (folds); conv * input (does not);
    conv * const varying along H (does not)."""
    def __init__(self):
        super().__init__()
        self.c1 = nn.Conv2d(3, 4, 3, padding=1)
        self.c2 = nn.Conv2d(4, 4, 1)
        self.c3 = nn.Conv2d(4, 4, 1)
        self.s = nn.Parameter(torch.rand(1, 4, 1, 1) + 0.5)
        self.t = nn.Parameter(torch.rand(1, 4, 1, 1))
        self.h = nn.Parameter(torch.rand(1, 1, 8, 1) + 0.5)

    def forward(self, x):
        y = self.c1(x) * self.s + self.t
        z = self.c2(y) * x[:, :1]
        return self.c3(z) * self.h


class Shapes(nn.Module):
    """a transpose pair that cancels, one that merges, a reshape chain."""
    def forward(self, x):
        y = x.permute(0, 2, 3, 1).permute(0, 3, 1, 2)
        z = x.permute(0, 2, 3, 1).permute(0, 3, 2, 1)
        w = torch.relu(y + z).reshape(-1, 3, 64).unsqueeze(0).flatten(1)
        return w * 2


class SplitConv(nn.Module):
    """a grouped conv written as chunk -> two convs -> cat, then bn; and a
    batch norm written out by hand (sub, div by sqrt, mul, add on constant
    statistics, as Keras' fused=False writes it)."""
    def __init__(self):
        super().__init__()
        self.a, self.b = nn.Conv2d(2, 3, 3, padding=1), nn.Conv2d(2, 3, 3, padding=1)
        self.bn = nn.BatchNorm2d(6)
        self.c = nn.Conv2d(6, 5, 1)
        for k, v in (("mean", torch.rand(1, 5, 1, 1)), ("var", torch.rand(1, 5, 1, 1) + 0.5),
                     ("gamma", torch.rand(1, 5, 1, 1) + 0.5), ("beta", torch.rand(1, 5, 1, 1))):
            self.register_buffer(k, v)

    def forward(self, x):
        x0, x1 = x.chunk(2, dim=1)
        y = torch.relu(self.bn(torch.cat([self.a(x0), self.b(x1)], 1)))
        z = self.c(y)
        return (z - self.mean) / torch.sqrt(self.var + 1e-3) * self.gamma + self.beta


class Softmax(nn.Module):
    """softmax and log_softmax of 1xN for N = 10 (one max_pool), 40 (two)
    and 17 (a prime above 15: ceil-mode windows)."""
    def __init__(self):
        super().__init__()
        self.a, self.b, self.c = nn.Linear(8, 10), nn.Linear(8, 17), nn.Linear(8, 40)

    def forward(self, x):
        return torch.cat([torch.softmax(self.a(x) * 4, 1), torch.log_softmax(self.b(x) * 4, 1),
                          torch.softmax(self.c(x) * 4, 1)], 1)


class MatmulBn(nn.Module):
    """x @ W between reshapes, then a 2-D batch norm: the batch norm folds
    into the matmul through the reshape."""
    def __init__(self):
        super().__init__()
        self.w = nn.Parameter(torch.randn(16, 8) / 4)
        self.bn = nn.BatchNorm2d(8)

    def forward(self, x):
        y = torch.matmul(x.flatten(1), self.w).reshape(-1, 8, 1, 1)
        return self.bn(y).flatten(1)


def realistic_bn(m, shape):
    m.train()
    with torch.no_grad():
        for _ in range(4):
            m(torch.randn(*shape) * 2 + 0.5)
    m.eval()


def save(name, m, shape):
    realistic_bn(m, (4,) + shape[1:])
    x = torch.randn(*shape)
    with torch.no_grad():
        y = m(x)
    torch.onnx.export(m, x, os.path.join(OUT, name + ".onnx"), opset_version=13,
                      training=torch.onnx.TrainingMode.PRESERVE, do_constant_folding=False,
                      input_names=["input"], output_names=["output"])
    np.save(os.path.join(OUT, name + ".input.npy"), x.numpy())
    np.save(os.path.join(OUT, name + ".output.npy"), y.numpy())


def transposes():
    """Made with onnx.helper, as PyTorch's export merges transposes itself:
    a pair that cancels, a pair that merges into one, and a pair whose inner
    output has a second consumer (left alone). Reference output: numpy."""
    import onnx
    from onnx import TensorProto, helper as h
    nodes = [
        h.make_node("Transpose", ["input"], ["a"], perm=[0, 2, 3, 1]),
        h.make_node("Transpose", ["a"], ["b"], perm=[0, 3, 1, 2]),
        h.make_node("Relu", ["b"], ["c"]),
        h.make_node("Transpose", ["c"], ["d"], perm=[0, 2, 3, 1]),
        h.make_node("Transpose", ["d"], ["e"], perm=[0, 3, 2, 1]),
        h.make_node("Transpose", ["e"], ["f"], perm=[0, 1, 3, 2]),
        h.make_node("Add", ["e", "f"], ["output"]),
    ]
    graph = h.make_graph(nodes, "transposes",
                         [h.make_tensor_value_info("input", TensorProto.FLOAT, [1, 3, 4, 4])],
                         [h.make_tensor_value_info("output", TensorProto.FLOAT, [1, 3, 4, 4])])
    model = h.make_model(graph, opset_imports=[h.make_opsetid("", 13)], producer_name="npukit-tests")
    onnx.checker.check_model(model)
    onnx.save(model, os.path.join(OUT, "transposes.onnx"))
    x = np.random.RandomState(0).randn(1, 3, 4, 4).astype(np.float32)
    c = np.maximum(x.transpose(0, 2, 3, 1).transpose(0, 3, 1, 2), 0)
    e = c.transpose(0, 2, 3, 1).transpose(0, 3, 2, 1)
    np.save(os.path.join(OUT, "transposes.input.npy"), x)
    np.save(os.path.join(OUT, "transposes.output.npy"), e + e.transpose(0, 1, 3, 2))


def main():
    torch.manual_seed(0)
    os.makedirs(OUT, exist_ok=True)
    save("convbn", ConvBn(), (1, 3, 8, 8))
    save("shared", Shared(), (1, 3, 8, 8))
    save("muladd", MulAdd(), (1, 3, 8, 8))
    save("shapes", Shapes(), (1, 3, 8, 8))
    transposes()
    save("mobilenet_v2", torchvision.models.mobilenet_v2(width_mult=0.25, num_classes=10), (1, 3, 32, 32))
    save("splitconv", SplitConv(), (1, 4, 8, 8))
    save("softmax", Softmax(), (1, 8))
    save("matmulbn", MatmulBn(), (1, 16, 1, 1))


if __name__ == "__main__":
    main()
