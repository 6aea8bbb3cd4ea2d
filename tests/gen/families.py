#!/usr/bin/python3
"""Make the model-family fixtures of tests/data/families/ (run with Debian's
torch: /usr/bin/python3 tests/gen/families.py [NAME...]).

Each family is a small model of a kind people deploy, briefly trained on a
synthetic task (so weights, batch-norm statistics and activation ranges are
those of a trained net, not of a random init), exported the ordinary way
(torch.onnx.export opset 13 or torch.jit.trace) into
tests/data/families/NAME/ in the layout tests/pipeline/t7000-families.sh
reads:

    model.onnx | model.pt   the exported model
    args        the importer's arguments after the model file
    calib.npz   calibration samples keyed by IR input name (first axis = samples)
    in.npz      one sample keyed by IR input name (not among calib's)
    out.npz     PyTorch's outputs for in.npz keyed by IR output name

IR names: ONNX models keep their input/output names (given to the exporter);
npu-import-pt names inputs after forward()'s arguments and outputs
output_0, output_1, ... . Expected outputs come from PyTorch (for .pt from
the reloaded archive, for .onnx from the eval module that was exported; the
exported graph is checked with onnx.checker).

Families:
  segmenter  encoder-decoder: conv/BN/ReLU down, ConvTranspose2d up, bilinear
             (align_corners=False) and nearest upsampling, skip concats,
             1-channel sigmoid mask (TorchScript)
  detector   MobileNet-style depthwise separable backbone, BlazeFace/SSD heads
             at two scales, 6x6 and 3x3 of a 48x48 image (box regressors in pixels, class logits; one head
             with a single output channel), permuted/reshaped/concatenated
             into boxes [1,N,4] and scores [1,N,1] (ONNX)
  attention  a transformer encoder block written out by hand: decomposed
             LayerNorm (ReduceMean/Sub/Pow/ReduceMean/Add/Sqrt/Div), Q/K/V,
             softmax(Q K^T / sqrt(d)) V over 2 heads, GELU MLP (ONNX)
  image_u8   a classifier of uint8 images (x.float() / 255 inside: a Cast)
             (ONNX)
  landmark   conv + per-channel PReLU stages with stride 2, Linear to 2*K
             coordinates (TorchScript)
  kws_lstm   keyword spotting: batch_first LSTM, out[:, -1] (a Gather with
             index -1 in ONNX), Linear (ONNX)
"""

import io
import os
import subprocess
import sys
import zipfile

import numpy as np
import onnx
import torch
import torch.nn as nn
import torch.nn.functional as F

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "data", "families")
MAX_MODEL = 200 * 1024
N_CALIB = 24    # sequences; images use 16 (the directory stays under 1.5 MB)
N_IMG = 16


def strip(raw):
    """The TorchScript archive without debug_pkl entries (they hold this
    machine's paths), written by Python's zipfile with fixed timestamps
    (as tests/gen/pt_fixtures.py does)."""
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


def train(model, batch, loss_fn, steps, lr=3e-3):
    """A few hundred Adam steps on fresh synthetic batches (train mode, so
    batch norm's running statistics are re-estimated on the data)."""
    opt = torch.optim.Adam(model.parameters(), lr=lr)
    model.train()
    first = last = None
    for step in range(steps):
        x, y = batch(32)
        loss = loss_fn(model(x), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
        if step == 0:
            first = loss.item()
        last = loss.item()
    model.eval()
    return first, last


def no_paths(raw, name):
    for p in (b"/work", b"/root", b"/home", b"/tmp", b"/usr"):
        assert p not in raw, (name, p)


def write(name, fmt, model, x, in_name, out_names, calib, args):
    """Export model on sample x (not part of calib) into OUT/name/."""
    d = os.path.join(OUT, name)
    os.makedirs(d, exist_ok=True)
    for f in os.listdir(d):
        os.remove(os.path.join(d, f))
    model.eval()
    if fmt == "pt":
        with torch.no_grad():
            traced = torch.jit.trace(model, (x,))
        buf = io.BytesIO()
        torch.jit.save(traced, buf)
        raw = strip(buf.getvalue())
        loaded = torch.jit.load(io.BytesIO(raw))
        with torch.no_grad():
            outs = loaded(x)
            ref = model(x)
        outs = list(outs) if isinstance(outs, (tuple, list)) else [outs]
        ref = list(ref) if isinstance(ref, (tuple, list)) else [ref]
        for a, b in zip(outs, ref):
            assert torch.allclose(a, b, rtol=1e-5, atol=1e-6), name
        out_names = ["output_%d" % i for i in range(len(outs))]
    else:
        buf = io.BytesIO()
        with torch.no_grad():
            torch.onnx.export(model, (x,), buf, opset_version=13, input_names=[in_name],
                              output_names=out_names, do_constant_folding=True)
        raw = buf.getvalue()
        onnx.checker.check_model(onnx.load_from_string(raw))
        with torch.no_grad():
            outs = model(x)
        outs = list(outs) if isinstance(outs, (tuple, list)) else [outs]
    no_paths(raw, name)
    assert len(raw) < MAX_MODEL, (name, len(raw))
    with open(os.path.join(d, "model." + fmt), "wb") as f:
        f.write(raw)
    with open(os.path.join(d, "args"), "w") as f:
        f.write(args + "\n")
    np.savez(os.path.join(d, "calib.npz"), **{in_name: calib.numpy()})
    np.savez(os.path.join(d, "in.npz"), **{in_name: x.numpy()})
    np.savez(os.path.join(d, "out.npz"), **{k: v.numpy() for k, v in zip(out_names, outs)})
    size = sum(os.path.getsize(os.path.join(d, f)) for f in os.listdir(d))
    print("%-10s %s, %d bytes model, %d bytes in all" % (name, fmt, len(raw), size))


def cbr(cin, cout, stride=1, act=None):
    return nn.Sequential(nn.Conv2d(cin, cout, 3, stride, 1, bias=False), nn.BatchNorm2d(cout),
                         act if act is not None else nn.ReLU())


# ---------------------------------------------------------------- segmenter

def shapes_batch(n, size=32, rng=None):
    """Noisy textured images with 1-3 bright discs or rectangles; the mask
    marks them."""
    g = rng or np.random
    x = g.normal(0.0, 0.25, (n, 3, size, size)).astype(np.float32)
    m = np.zeros((n, 1, size, size), np.float32)
    yy, xx = np.mgrid[0:size, 0:size]
    for i in range(n):
        x[i] += g.uniform(-0.5, 0.5, (3, 1, 1)).astype(np.float32)
        for _ in range(g.randint(1, 4)):
            cy, cx, r = g.uniform(4, size - 4), g.uniform(4, size - 4), g.uniform(3, 8)
            if g.rand() < 0.5:
                sel = (yy - cy) ** 2 + (xx - cx) ** 2 < r * r
            else:
                sel = (abs(yy - cy) < r) & (abs(xx - cx) < r * 0.7)
            col = g.uniform(0.8, 1.6, 3).astype(np.float32)
            x[i][:, sel] += col[:, None]
            m[i, 0, sel] = 1.0
    return torch.from_numpy(x), torch.from_numpy(m)


class Segmenter(nn.Module):
    def __init__(self):
        super().__init__()
        self.enc1 = cbr(3, 8)               # 32x32
        self.enc2 = cbr(8, 16, 2)           # 16x16
        self.enc3 = cbr(16, 24, 2)          # 8x8
        self.up3 = nn.ConvTranspose2d(24, 16, 2, stride=2)   # 16x16
        self.dec2 = cbr(32, 16)
        self.dec1 = cbr(24, 8)
        self.ctx = nn.Conv2d(24, 1, 1)      # coarse logits from the bottleneck
        self.head = nn.Conv2d(8, 1, 1)

    def forward(self, x):
        e1 = self.enc1(x)
        e2 = self.enc2(e1)
        e3 = self.enc3(e2)
        d2 = self.dec2(torch.cat([F.relu(self.up3(e3)), e2], 1))
        d1 = F.interpolate(d2, scale_factor=2.0, mode="bilinear", align_corners=False)
        d1 = self.dec1(torch.cat([d1, e1], 1))
        coarse = F.interpolate(self.ctx(e3), scale_factor=4.0, mode="nearest")
        return torch.sigmoid(self.head(d1) + coarse)


def segmenter():
    torch.manual_seed(1)
    rng = np.random.RandomState(1)
    m = Segmenter()
    f, l = train(m, lambda n: shapes_batch(n, rng=rng), nn.BCELoss(), 300)
    print("segmenter: BCE %.3f -> %.3f" % (f, l))
    calib, _ = shapes_batch(N_IMG, rng=rng)
    x, _ = shapes_batch(1, rng=rng)
    write("segmenter", "pt", m, x, "x", None, calib, "--input 0:1,3,32,32")


# ---------------------------------------------------------------- detector

DET = 48


def det_batch(n, rng):
    """One bright square per image on clutter; targets per anchor cell of
    the two scales (6x6 with 2 anchors, 3x3 with 1): objectness (the cell
    holding the centre) and the box (centre offset from the cell centre and
    size, in pixels)."""
    x = rng.normal(0, 0.3, (n, 3, DET, DET)).astype(np.float32)
    boxes = np.zeros((n, 6 * 6 * 2 + 3 * 3, 4), np.float32)
    score = np.zeros((n, 6 * 6 * 2 + 3 * 3, 1), np.float32)
    for i in range(n):
        s = rng.uniform(5, 22)
        cy, cx = rng.uniform(s / 2, DET - s / 2, 2)
        y0, x0 = int(cy - s / 2), int(cx - s / 2)
        x[i, :, y0:y0 + int(s), x0:x0 + int(s)] += rng.uniform(0.8, 1.5, (3, 1, 1)).astype(np.float32)
        k = 0
        for cells, anchors in ((6, 2), (3, 1)):
            step = DET / cells
            for gy in range(cells):
                for gx in range(cells):
                    for a in range(anchors):
                        ay, ax = (gy + 0.5) * step, (gx + 0.5) * step
                        boxes[i, k] = (cx - ax, cy - ay, s, s)
                        small = s < 12
                        hit = int(cy // step) == gy and int(cx // step) == gx
                        # small objects belong to the fine scale (anchor 0), big ones to the coarse
                        score[i, k, 0] = hit and ((cells == 6 and small and a == 0) or
                                                  (cells == 6 and not small and a == 1) or
                                                  (cells == 3 and not small))
                        k += 1
    return torch.from_numpy(x), (torch.from_numpy(boxes), torch.from_numpy(score))


def dw_sep(cin, cout, stride):
    return nn.Sequential(nn.Conv2d(cin, cin, 3, stride, 1, groups=cin, bias=False), nn.BatchNorm2d(cin),
                         nn.ReLU6(), nn.Conv2d(cin, cout, 1, bias=False), nn.BatchNorm2d(cout), nn.ReLU6())


class Detector(nn.Module):
    def __init__(self):
        super().__init__()
        self.stem = cbr(3, 8, 2, nn.ReLU6())                  # 24x24
        self.b1 = dw_sep(8, 16, 1)
        self.b2 = dw_sep(16, 24, 2)                            # 12x12
        self.b3 = dw_sep(24, 32, 2)                            # 6x6
        self.b4 = dw_sep(32, 48, 2)                            # 3x3
        self.box6 = nn.Conv2d(32, 2 * 4, 3, padding=1)
        self.cls6 = nn.Conv2d(32, 2, 3, padding=1)
        self.box3 = nn.Conv2d(48, 4, 3, padding=1)
        self.cls3 = nn.Conv2d(48, 1, 3, padding=1)             # the one-channel head

    def forward(self, x):
        f6 = self.b3(self.b2(self.b1(self.stem(x))))
        f3 = self.b4(f6)
        n = x.shape[0]
        b6 = self.box6(f6).permute(0, 2, 3, 1).reshape(n, -1, 4)
        b3 = self.box3(f3).permute(0, 2, 3, 1).reshape(n, -1, 4)
        c6 = self.cls6(f6).permute(0, 2, 3, 1).reshape(n, -1, 1)
        c3 = self.cls3(f3).permute(0, 2, 3, 1).reshape(n, -1, 1)
        return torch.cat([b6, b3], 1), torch.cat([c6, c3], 1)


def detector():
    torch.manual_seed(2)
    rng = np.random.RandomState(2)
    m = Detector()

    def loss(out, tgt):
        b, s = out
        tb, ts = tgt
        w = 0.25 + ts          # boxes everywhere, mostly where the object is
        return (F.smooth_l1_loss(b, tb, reduction="none") * w).mean() / 8 + \
            F.binary_cross_entropy_with_logits(s, ts, pos_weight=torch.tensor(20.0))
    f, l = train(m, lambda n: det_batch(n, rng), loss, 300)
    print("detector: loss %.3f -> %.3f" % (f, l))
    calib, _ = det_batch(N_IMG, rng)
    x, _ = det_batch(1, rng)
    write("detector", "onnx", m, x, "image", ["boxes", "scores"], calib, "--input image:1,3,%d,%d" % (DET, DET))


# ---------------------------------------------------------------- attention

SEQ, DIM, HEADS = 16, 32, 2


class LayerNorm(nn.Module):
    """LayerNorm written out (as many exported models have it)."""

    def __init__(self, d, eps=1e-5):
        super().__init__()
        self.weight = nn.Parameter(torch.ones(d))
        self.bias = nn.Parameter(torch.zeros(d))
        self.eps = eps

    def forward(self, x):
        m = x.mean(-1, keepdim=True)
        c = x - m
        v = c.pow(2).mean(-1, keepdim=True)
        return c / torch.sqrt(v + self.eps) * self.weight + self.bias


class Block(nn.Module):
    def __init__(self):
        super().__init__()
        self.ln1 = LayerNorm(DIM)
        self.q = nn.Linear(DIM, DIM)
        self.k = nn.Linear(DIM, DIM)
        self.v = nn.Linear(DIM, DIM)
        self.proj = nn.Linear(DIM, DIM)
        self.ln2 = LayerNorm(DIM)
        self.fc1 = nn.Linear(DIM, 2 * DIM)
        self.fc2 = nn.Linear(2 * DIM, DIM)

    def forward(self, x):
        n, t, d = x.shape
        h = self.ln1(x)
        hd = d // HEADS
        q = self.q(h).reshape(n, t, HEADS, hd).transpose(1, 2)
        k = self.k(h).reshape(n, t, HEADS, hd).transpose(1, 2)
        v = self.v(h).reshape(n, t, HEADS, hd).transpose(1, 2)
        a = torch.softmax(q @ k.transpose(-1, -2) / (hd ** 0.5), dim=-1)
        o = (a @ v).transpose(1, 2).reshape(n, t, d)
        x = x + self.proj(o)
        return x + self.fc2(F.gelu(self.fc1(self.ln2(x))))


def seq_batch(n, rng):
    """Token sequences; the target mixes each token with the sequence's
    tokens that are most like it (a task attention can do)."""
    x = rng.normal(0, 1, (n, SEQ, DIM)).astype(np.float32)
    xt = torch.from_numpy(x)
    sim = torch.softmax(xt @ xt.transpose(1, 2) / 4.0, -1)
    y = 0.5 * xt + sim @ xt
    return xt, y


def attention():
    torch.manual_seed(3)
    rng = np.random.RandomState(3)
    m = Block()
    f, l = train(m, lambda n: seq_batch(n, rng), nn.MSELoss(), 300)
    print("attention: MSE %.3f -> %.3f" % (f, l))
    calib, _ = seq_batch(N_CALIB, rng)
    x, _ = seq_batch(1, rng)
    write("attention", "onnx", m, x, "tokens", ["features"], calib, "--input tokens:1,%d,%d" % (SEQ, DIM))


# ---------------------------------------------------------------- image_u8

def u8_batch(n, rng):
    """uint8 images of 4 classes: horizontal or vertical stripes, a red or
    a blue blob, on noise."""
    x = rng.normal(110, 30, (n, 3, 32, 32))
    y = rng.randint(0, 4, n)
    yy, xx = np.mgrid[0:32, 0:32]
    for i in range(n):
        p = rng.uniform(3, 7)
        if y[i] == 0:
            x[i] += 60 * np.sin(yy * 2 * np.pi / p)
        elif y[i] == 1:
            x[i] += 60 * np.sin(xx * 2 * np.pi / p)
        else:
            cy, cx = rng.uniform(8, 24, 2)
            blob = np.exp(-((yy - cy) ** 2 + (xx - cx) ** 2) / 40.0)
            x[i, 0 if y[i] == 2 else 2] += 120 * blob
    return torch.from_numpy(np.clip(x, 0, 255).astype(np.uint8)), torch.from_numpy(y)


class ImageU8(nn.Module):
    def __init__(self):
        super().__init__()
        self.f = nn.Sequential(cbr(3, 8), nn.MaxPool2d(2), cbr(8, 16), nn.MaxPool2d(2), cbr(16, 16),
                               nn.AdaptiveAvgPool2d(1))
        self.fc = nn.Linear(16, 4)

    def forward(self, x):
        x = x.float() / 255.0
        return self.fc(torch.flatten(self.f(x), 1))


def image_u8():
    torch.manual_seed(4)
    rng = np.random.RandomState(4)
    m = ImageU8()
    f, l = train(m, lambda n: u8_batch(n, rng), nn.CrossEntropyLoss(), 200)
    x, y = u8_batch(256, rng)
    with torch.no_grad():
        acc = (m(x).argmax(1) == y).float().mean().item()
    print("image_u8: CE %.3f -> %.3f, accuracy %.2f" % (f, l, acc))
    calib, _ = u8_batch(N_IMG, rng)
    x, _ = u8_batch(1, rng)
    write("image_u8", "onnx", m, x, "image", ["logits"], calib, "--input image:1,3,32,32")


# ---------------------------------------------------------------- landmark

K = 5


def lm_batch(n, rng):
    """K bright dots of different colours; the targets are their (x, y) in
    [-1, 1]."""
    x = rng.normal(0, 0.2, (n, 3, 32, 32)).astype(np.float32)
    y = np.zeros((n, 2 * K), np.float32)
    yy, xx = np.mgrid[0:32, 0:32]
    cols = np.array([[1, 0, 0], [0, 1, 0], [0, 0, 1], [1, 1, 0], [0, 1, 1]], np.float32)
    for i in range(n):
        for k in range(K):
            cy, cx = rng.uniform(3, 29, 2)
            x[i] += 1.5 * cols[k][:, None, None] * np.exp(-((yy - cy) ** 2 + (xx - cx) ** 2) / 4.0)
            y[i, 2 * k:2 * k + 2] = (cx / 16 - 1, cy / 16 - 1)
    return torch.from_numpy(x), torch.from_numpy(y)


class Landmark(nn.Module):
    def __init__(self):
        super().__init__()
        def stage(cin, cout, stride):
            return nn.Sequential(nn.Conv2d(cin, cout, 3, stride, 1), nn.PReLU(cout))
        self.f = nn.Sequential(stage(3, 12, 1), stage(12, 16, 2), stage(16, 24, 2), stage(24, 32, 2),
                               stage(32, 32, 2))   # 2x2
        self.fc = nn.Linear(32 * 2 * 2, 2 * K)

    def forward(self, x):
        return self.fc(torch.flatten(self.f(x), 1))


def landmark():
    torch.manual_seed(5)
    rng = np.random.RandomState(5)
    m = Landmark()
    f, l = train(m, lambda n: lm_batch(n, rng), nn.MSELoss(), 400)
    print("landmark: MSE %.4f -> %.4f" % (f, l))
    calib, _ = lm_batch(N_IMG, rng)
    x, _ = lm_batch(1, rng)
    write("landmark", "pt", m, x, "x", None, calib, "--input 0:1,3,32,32")


# ---------------------------------------------------------------- kws_lstm

FRAMES, FEATS, WORDS = 20, 16, 4


def kws_batch(n, rng):
    """MFCC-like frames: each keyword is a sequence of three 'phones'
    (feature patterns) at random times in noise; class 0 is silence."""
    x = rng.normal(0, 0.5, (n, FRAMES, FEATS)).astype(np.float32)
    y = rng.randint(0, WORDS, n)
    phones = np.random.RandomState(99).normal(0, 1.2, (6, FEATS)).astype(np.float32)
    words = [[], [0, 1, 2], [2, 1, 0], [3, 4, 5]]
    for i in range(n):
        t = rng.randint(0, 6)
        for p in words[y[i]]:
            d = rng.randint(3, 5)
            x[i, t:t + d] += phones[p]
            t += d
    return torch.from_numpy(x), torch.from_numpy(y)


class KwsLstm(nn.Module):
    def __init__(self):
        super().__init__()
        self.rnn = nn.LSTM(FEATS, 24, batch_first=True)
        self.fc = nn.Linear(24, WORDS)

    def forward(self, x):
        out, _ = self.rnn(x)
        return self.fc(out[:, -1])


def kws_lstm():
    torch.manual_seed(6)
    rng = np.random.RandomState(6)
    m = KwsLstm()
    f, l = train(m, lambda n: kws_batch(n, rng), nn.CrossEntropyLoss(), 300, lr=1e-2)
    x, y = kws_batch(256, rng)
    with torch.no_grad():
        acc = (m(x).argmax(1) == y).float().mean().item()
    print("kws_lstm: CE %.3f -> %.3f, accuracy %.2f" % (f, l, acc))
    calib, _ = kws_batch(N_CALIB, rng)
    x, _ = kws_batch(1, rng)
    write("kws_lstm", "onnx", m, x, "frames", ["logits"], calib, "--input frames:1,%d,%d" % (FRAMES, FEATS))


FAMILIES = {"segmenter": segmenter, "detector": detector, "attention": attention, "image_u8": image_u8,
            "landmark": landmark, "kws_lstm": kws_lstm}

if __name__ == "__main__":
    torch.set_num_threads(1)
    names = sys.argv[1:] or list(FAMILIES)
    if len(names) == 1:
        FAMILIES[names[0]]()
    else:
        # one process per family: TorchScript numbers the classes it mangles
        # across a process, so the archives are the same bytes whatever ran before
        for name in names:
            subprocess.run([sys.executable, os.path.abspath(__file__), name], check=True)
