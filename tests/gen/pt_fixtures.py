#!/usr/bin/python3
"""Make the TorchScript fixtures of tests/data/pt/ (run with Debian's torch:
/usr/bin/python3 tests/gen/pt_fixtures.py).

Each case NAME gives NAME.pt (traced or scripted, saved with torch.jit.save),
NAME.in0.npy, NAME.in1.npy, ... (inputs in forward() order) and NAME.out.npz
(the outputs of torch.jit.load(NAME.pt) on those inputs, flattened in order
and keyed output_0, output_1, ... as npu-import-pt names them). cases.txt
lists each case with the npu-import-pt --input options it needs.

The archives are rewritten without their code/**.debug_pkl entries (they
hold the absolute paths of this script and of torch's sources) and without
torch's 64-byte alignment; torch.jit.load reads them the same, which is
checked. A few broken archives for the error tests are made too."""

import io
import os
import shutil
import sys
import zipfile
from typing import List, Tuple

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
import torchvision

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "data", "pt")
MAX_BYTES = 512 * 1024


def strip(raw):
    """The archive without debug_pkl entries, written by Python's zipfile
    (no alignment), with fixed timestamps."""
    src = zipfile.ZipFile(io.BytesIO(raw))
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as dst:
        for info in src.infolist():
            if info.filename.endswith(".debug_pkl"):
                continue
            zi = zipfile.ZipInfo(info.filename, date_time=(1980, 1, 1, 0, 0, 0))
            zi.compress_type = info.compress_type
            dst.writestr(zi, src.read(info.filename))
    return out.getvalue()


def flatten(v):
    if isinstance(v, (tuple, list)):
        return [t for x in v for t in flatten(x)]
    return [v]


def save(name, module, inputs, script=False):
    torch.manual_seed(0)
    module = module.eval()
    with torch.no_grad():
        m = torch.jit.script(module) if script else torch.jit.trace(module, tuple(inputs))
    buf = io.BytesIO()
    torch.jit.save(m, buf)
    raw = strip(buf.getvalue())
    assert b"/work" not in raw and b"/root" not in raw and b"/home" not in raw, name
    assert len(raw) < MAX_BYTES, (name, len(raw))
    loaded = torch.jit.load(io.BytesIO(raw))
    with torch.no_grad():
        outs = flatten(loaded(*inputs))
        ref = flatten(m(*inputs))
    for a, b in zip(outs, ref):
        assert torch.equal(a, b), name
    with open(os.path.join(OUT, name + ".pt"), "wb") as f:
        f.write(raw)
    opts = []
    for i, x in enumerate(inputs):
        np.save(os.path.join(OUT, "%s.in%d.npy" % (name, i)), x.numpy())
        shape = ",".join(str(d) for d in x.shape) if x.dim() else "scalar"
        dt = {torch.float32: "", torch.int64: ":i64"}[x.dtype]
        opts.append("--input %d:%s%s" % (i, shape, dt))
    np.savez(os.path.join(OUT, name + ".out.npz"),
             **{"output_%d" % i: t.numpy() for i, t in enumerate(outs)})
    cases.append("%s %s" % (name, " ".join(opts)))
    return raw


def randn(*shape, seed=1):
    g = torch.Generator().manual_seed(seed)
    return torch.randn(*shape, generator=g)


def randomize_bn(module):
    """Non-trivial running statistics, as a trained model has."""
    g = torch.Generator().manual_seed(7)
    for m in module.modules():
        if isinstance(m, nn.modules.batchnorm._BatchNorm):
            m.running_mean.copy_(torch.randn(m.num_features, generator=g) * 0.1)
            m.running_var.copy_(torch.rand(m.num_features, generator=g) + 0.5)
            if m.affine:
                m.weight.data.copy_(torch.rand(m.num_features, generator=g) + 0.5)
                m.bias.data.copy_(torch.randn(m.num_features, generator=g) * 0.1)
    return module


# ---------------------------------------------------------------- models

class CNN(nn.Module):
    """conv-bn-relu-pool twice, then linear layers"""
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(3, 8, 3, padding=1)
        self.bn1 = nn.BatchNorm2d(8)
        self.conv2 = nn.Conv2d(8, 16, 3, stride=2, padding=1, bias=False)
        self.bn2 = nn.BatchNorm2d(16)
        self.pool = nn.MaxPool2d(2)
        self.fc1 = nn.Linear(16 * 4 * 4, 32)
        self.fc2 = nn.Linear(32, 10)

    def forward(self, x):
        x = self.pool(F.relu(self.bn1(self.conv1(x))))
        x = F.relu(self.bn2(self.conv2(x)))
        x = F.avg_pool2d(x, 1)
        x = x.view(x.size(0), -1)
        return F.softmax(self.fc2(F.relu(self.fc1(x))), dim=1)


class Depthwise(nn.Module):
    """depthwise, grouped, dilated and transposed convolutions"""
    def __init__(self):
        super().__init__()
        self.expand = nn.Conv2d(4, 16, 1)
        self.dw = nn.Conv2d(16, 16, 3, padding=1, groups=16)
        self.bn = nn.BatchNorm2d(16)
        self.grouped = nn.Conv2d(16, 24, 3, padding=2, dilation=2, groups=4)
        self.dw_stride = nn.Conv2d(24, 24, 5, stride=2, padding=2, groups=24, bias=False)
        self.up = nn.ConvTranspose2d(24, 8, 4, stride=2, padding=1, groups=2)
        self.head = nn.Conv2d(8, 6, 1)

    def forward(self, x):
        y = F.relu6(self.bn(self.dw(self.expand(x))))
        y = F.hardswish(self.grouped(y))
        y = F.leaky_relu(self.dw_stride(y), 0.2)
        y = torch.sigmoid(self.up(y))
        return self.head(y)


class TwoInputs(nn.Module):
    """two inputs joined by concatenation"""
    def __init__(self):
        super().__init__()
        self.a = nn.Conv2d(3, 4, 3, padding=1)
        self.b = nn.Conv2d(2, 4, 1)
        self.fuse = nn.Conv2d(8, 5, 3)

    def forward(self, x, y):
        z = torch.cat([torch.relu(self.a(x)), torch.tanh(self.b(y))], 1)
        return self.fuse(z)


class AudioGRU(nn.Module):
    """Conv1d front end, permute to time-major features, a batch-first GRU
    with its initial state as an input"""
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv1d(10, 16, 3, padding=1)
        self.bn = nn.BatchNorm1d(16)
        self.gru = nn.GRU(16, 12, num_layers=2, batch_first=True)
        self.fc = nn.Linear(12, 4)

    def forward(self, x, h0):
        y = F.relu(self.bn(self.conv(x)))
        y = y.permute(0, 2, 1)
        o, h = self.gru(y, h0)
        return self.fc(o), h


class MultiOut(nn.Module):
    """returns (t, y, o): t has 4 tensors, y 2: 7 outputs as gxnpuc numbers them"""
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv1d(8, 16, 3, padding=1)
        self.gru = nn.GRU(8, 6, batch_first=True)
        self.conv2 = nn.Conv2d(1, 3, 3, padding=1)

    def forward(self, x, h):
        c = self.conv(x)                                  # 1x16x12
        a, b, d, e = torch.split(c, 4, dim=1)
        t = (a, torch.sigmoid(b), d * 2.0, e - 1.0)
        o, hn = self.gru(c.transpose(1, 2).chunk(2, dim=2)[0], h)
        y = (hn, torch.sigmoid(o))
        img = self.conv2(o.unsqueeze(1))
        return t, y, img


class Residual(nn.Module):
    """a ResNet basic block with a projection shortcut"""
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(8, 16, 3, stride=2, padding=1, bias=False)
        self.bn1 = nn.BatchNorm2d(16)
        self.conv2 = nn.Conv2d(16, 16, 3, padding=1, bias=False)
        self.bn2 = nn.BatchNorm2d(16)
        self.down = nn.Sequential(nn.Conv2d(8, 16, 1, stride=2, bias=False), nn.BatchNorm2d(16))
        self.relu = nn.ReLU(inplace=True)

    def forward(self, x):
        y = self.relu(self.bn1(self.conv1(x)))
        y = self.bn2(self.conv2(y))
        y += self.down(x)
        return self.relu(y)


class Stacked(nn.Module):
    """two-layer LSTM (time major, default zero state) and a bidirectional
    batch-first one with its initial state given"""
    def __init__(self):
        super().__init__()
        self.lstm = nn.LSTM(6, 8, num_layers=2)
        self.bi = nn.LSTM(8, 5, batch_first=True, bidirectional=True)

    def forward(self, x, h0, c0):
        o, (h, c) = self.lstm(x)
        o2, (h2, c2) = self.bi(o.transpose(0, 1), (h0, c0))
        return o2, h, c, h2, c2


class Scripted(nn.Module):
    """a straight-line module for torch.jit.script (its library code has
    ifs on attributes and shapes that the importer evaluates)"""
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 4, 3, padding=1)
        self.bn = nn.BatchNorm2d(4)
        self.pool = nn.MaxPool2d(2)
        self.fc = nn.Linear(4 * 4 * 4, 5)
        self.scale = 0.5

    def forward(self, x):
        y = self.pool(F.relu(self.bn(self.conv(x))))
        y = y.view(y.size(0), -1)
        return self.fc(y) * self.scale + 1.0


class Ops(nn.Module):
    """padding, resizing and the less common activations and reductions"""
    def __init__(self):
        super().__init__()
        self.c = nn.Conv2d(3, 4, 3, dilation=2, padding=2)
        self.ct = nn.ConvTranspose2d(4, 4, 3, stride=2, padding=1, output_padding=1)
        self.ln = nn.LayerNorm([4])

    def forward(self, x):
        y = F.pad(self.c(x), (1, 2, 0, 1))
        y = F.interpolate(y, scale_factor=2, mode="nearest")
        y = F.interpolate(y, size=(9, 10), mode="bilinear", align_corners=False)
        y = self.ct(y)
        y = F.leaky_relu(y, 0.1) + F.hardswish(y) - F.hardsigmoid(y) * F.silu(y) / 2
        y = F.gelu(y) + torch.tanh(y) + F.elu(y)
        y = F.avg_pool2d(y, 2) + F.max_pool2d(y, 2, 2, ceil_mode=True)[:, :, :, :y.shape[3] // 2]
        y = F.adaptive_avg_pool2d(y, (3, 5))
        z = self.ln(y.permute(0, 2, 3, 1)).flatten(1, 2)
        return (y.mean([2, 3]), y.sum(1, keepdim=True), F.log_softmax(y.flatten(1), 1), y[:, 1], y[:, :, 1:3],
                z, torch.clamp(y, -0.1, 0.2), F.pad(y, (1, 1, 1, 1), mode="reflect"))


class Ops2(nn.Module):
    """more of the op table, and an int64 input (embedding indices)"""
    def __init__(self):
        super().__init__()
        self.prelu = nn.PReLU(4)
        self.inorm = nn.InstanceNorm2d(4, affine=True)
        self.emb = nn.Embedding(10, 6)
        self.ct1 = nn.ConvTranspose1d(4, 3, 3, stride=2)
        self.w = nn.Parameter(torch.randn(6, 5))

    def forward(self, x, idx):
        y = self.inorm(self.prelu(x))                                   # 1x4x6x6
        ps = F.pixel_shuffle(torch.cat([y, y * 0.5, y - 1, y.abs()], 1), 2)   # 1x4x12x12
        a, b = torch.unbind(y.narrow(2, 1, 2), 2)                       # 1x4x6 each
        st = torch.stack([a, b, a * b], 1)                              # 1x3x4x6
        e = self.emb(idx)                                               # 1x5x6
        m = torch.matmul(e, self.w) + torch.addmm(torch.zeros(5), e[0], self.w)   # 1x5x5
        seq = y.flatten(2)                                              # 1x4x36
        s1 = F.max_pool1d(seq, 3) + F.avg_pool1d(seq, 3, 3)             # 1x4x12
        s1 = F.adaptive_avg_pool1d(F.interpolate(s1, scale_factor=2.0, mode="nearest"), 6)
        t1 = self.ct1(s1)                                               # 1x3x13
        r = F.pad(x, (2, 2, 1, 1), mode="replicate") + 0.0
        r = r.amax(dim=(2, 3)) - r.sum() / 1000 + torch.ones_like(x).mean()
        am = torch.argmax(y.flatten(1), dim=1, keepdim=True)
        c = torch.clamp(F.softplus(F.elu(y)), max=2.0).squeeze(0).unsqueeze(1)
        last = x[:, -1].to(torch.float32) * torch.arange(6, dtype=torch.float32)
        return ps, st, m, t1, r, am, c, last


def small_mobilenet_v2():
    """torchvision's MobileNetV2 at width 0.25 with fewer repeats and a
    256-channel head (instead of 1280) so the archive stays small"""
    from torchvision.ops.misc import Conv2dNormActivation
    torch.manual_seed(0)
    setting = [[1, 16, 1, 1], [6, 24, 2, 2], [6, 32, 2, 2], [6, 64, 2, 2], [6, 96, 1, 1], [6, 160, 1, 2],
               [6, 320, 1, 1]]
    m = torchvision.models.mobilenet_v2(width_mult=0.25, num_classes=10, inverted_residual_setting=setting)
    m.features[-1] = Conv2dNormActivation(m.features[-1][0].in_channels, 256, kernel_size=1,
                                          norm_layer=nn.BatchNorm2d, activation_layer=nn.ReLU6)
    m.classifier[1] = nn.Linear(256, 10)
    return randomize_bn(m)


def small_squeezenet():
    """torchvision's SqueezeNet 1.1 with a quarter of the channels"""
    from torchvision.models.squeezenet import Fire
    torch.manual_seed(0)
    m = torchvision.models.squeezenet1_1(num_classes=10)
    m.features = nn.Sequential(
        nn.Conv2d(3, 16, kernel_size=3, stride=2), nn.ReLU(inplace=True),
        nn.MaxPool2d(kernel_size=3, stride=2, ceil_mode=True),
        Fire(16, 4, 16, 16), Fire(32, 4, 16, 16),
        nn.MaxPool2d(kernel_size=3, stride=2, ceil_mode=True),
        Fire(32, 8, 32, 32), Fire(64, 8, 32, 32),
        nn.MaxPool2d(kernel_size=3, stride=2, ceil_mode=True),
        Fire(64, 12, 48, 48), Fire(96, 12, 48, 48), Fire(96, 16, 64, 64), Fire(128, 16, 64, 64))
    m.classifier[1] = nn.Conv2d(128, 10, kernel_size=1)
    return m


# ---------------------------------------------------------------- unsupported and broken models

class Unsupported(nn.Module):
    def forward(self, x):
        return torch.cumsum(torch.relu(x), 1) + x.flip(0) + torch.cumsum(x, 0)


class ListInput(nn.Module):
    def forward(self, x, hc: Tuple[torch.Tensor, torch.Tensor]):
        return x + hc[0] * hc[1]


class Control(nn.Module):
    def forward(self, x, y):
        if bool(x.sum() > 0):
            x = x * 2
        while bool(y.max() > 1):
            y = y / 2
        return x + y


def main():
    shutil.rmtree(OUT, ignore_errors=True)
    os.makedirs(OUT)
    torch.manual_seed(0)
    save("cnn", randomize_bn(CNN()), [randn(1, 3, 16, 16)])
    torch.manual_seed(0)
    save("depthwise", randomize_bn(Depthwise()), [randn(1, 4, 12, 12)])
    torch.manual_seed(0)
    save("concat", TwoInputs(), [randn(1, 3, 8, 8), randn(1, 2, 8, 8, seed=2)])
    torch.manual_seed(0)
    save("gru", randomize_bn(AudioGRU()), [randn(1, 10, 20), randn(2, 1, 12, seed=2)])
    torch.manual_seed(0)
    save("multiout", MultiOut(), [randn(1, 8, 12), randn(1, 1, 6, seed=2)])
    torch.manual_seed(0)
    save("residual", randomize_bn(Residual()), [randn(1, 8, 10, 10)])
    torch.manual_seed(0)
    save("lstm", Stacked(), [randn(7, 2, 6), randn(2, 2, 5, seed=2), randn(2, 2, 5, seed=3)])
    torch.manual_seed(0)
    save("scripted", randomize_bn(Scripted()), [randn(1, 3, 8, 8)], script=True)
    torch.manual_seed(0)
    save("ops", Ops(), [randn(1, 3, 16, 16)])
    torch.manual_seed(0)
    save("ops2", Ops2(), [randn(1, 4, 6, 6), torch.tensor([[1, 3, 9, 0, 3]])])
    save("squeezenet", small_squeezenet(), [randn(1, 3, 64, 64)])
    save("mobilenet_v2", small_mobilenet_v2(), [randn(1, 3, 32, 32)])

    # error cases (not in cases.txt)
    bad = os.path.join(OUT, "bad")
    os.makedirs(bad, exist_ok=True)
    for name, mod, inputs, script in [("unsupported", Unsupported(), [randn(2, 3)], False),
                                      ("list_input", ListInput(), [randn(2), (randn(2), randn(2))], False),
                                      ("control", Control(), [randn(3), randn(3)], True)]:
        m = torch.jit.script(mod) if script else torch.jit.trace(mod, tuple(inputs))
        buf = io.BytesIO()
        torch.jit.save(m, buf)
        with open(os.path.join(bad, name + ".pt"), "wb") as f:
            f.write(strip(buf.getvalue()))
    good = open(os.path.join(OUT, "cnn.pt"), "rb").read()

    def rewrite(name, change):
        src = zipfile.ZipFile(io.BytesIO(good))
        out = io.BytesIO()
        with zipfile.ZipFile(out, "w") as dst:
            for info in src.infolist():
                data = change(info.filename, src.read(info.filename))
                if data is not None:
                    zi = zipfile.ZipInfo(info.filename, date_time=(1980, 1, 1, 0, 0, 0))
                    zi.compress_type = info.compress_type
                    dst.writestr(zi, data)
        with open(os.path.join(bad, name + ".pt"), "wb") as f:
            f.write(out.getvalue())
    rewrite("no_data_pkl", lambda n, d: None if n.endswith("/data.pkl") else d)
    # os.system("true") as a pickle: refused by name, never run
    evil = b"\x80\x02cos\nsystem\nq\x00X\x04\x00\x00\x00trueq\x01\x85q\x02Rq\x03."
    rewrite("evil_global", lambda n, d: evil if n.endswith("/data.pkl") else d)
    rewrite("short_storage", lambda n, d: d[:-4] if n.endswith("/data/0") else d)
    rewrite("no_code", lambda n, d: None if "/code/" in n else d)

    with open(os.path.join(OUT, "cases.txt"), "w") as f:
        f.write("# name and npu-import-pt options; made by tests/gen/pt_fixtures.py\n")
        f.write("\n".join(cases) + "\n")


cases = []
if __name__ == "__main__":
    # torch.jit.script writes class constants in set order: fix the hash seed
    # so the same script makes the same bytes
    if os.environ.get("PYTHONHASHSEED") != "0":
        os.environ["PYTHONHASHSEED"] = "0"
        os.execv(sys.executable, [sys.executable] + sys.argv)
    sys.exit(main())
