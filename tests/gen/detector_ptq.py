#!/usr/bin/python3
"""A BlazeFace/SSD-shaped detector and PyTorch's own post-training
quantization of it, for tests/pipeline/t5020-detector-ptq.sh (issue 13).
Run with Debian's torch from the top directory:

    /usr/bin/python3 tests/gen/detector_ptq.py

Model (64x64 RGB): a depthwise-separable backbone (conv/BN/ReLU6 stem,
dw 3x3 + pw 1x1 blocks), feature maps at 8x8 and 4x4, and at each scale
two anchors with a box head (4 numbers per anchor: centre offset from the
anchor in pixels, log width and height scaled by 16, so the two scales
have very different ranges) and a class head (3 class logits per anchor,
the coarse scale's sharper). Each head is permuted to NHWC, reshaped to
[N, cells*anchors, K] and the scales concatenated: boxes [N, 160, 4],
logits [N, 160, 3]. Trained for a few hundred Adam steps on a synthetic
task (one bright square, circle or cross per image on clutter, pixels on
a 1/32 grid; the class and box of the anchor cell holding its centre), so weights, batch-norm
statistics and output ranges are a trained net's.

Written to tests/data/quant/detector/:

    model.pt     torch.jit.trace of the eval model (debug_pkl stripped)
    calib.npz    x: [16, 3, 64, 64] calibration images
    eval.npz     x: [16, 3, 64, 64] held-out images
    ref.npz      output_0 (boxes) [16, 160, 4], output_1 (logits)
                 [16, 160, 3]: the float model's outputs on eval.npz
    in.npz       x: [1, 3, 64, 64] the first eval image alone
    out.npz      output_0, output_1: its float outputs (npu-run --compare)
    torch.txt    PyTorch FX post-training quantization (prepare_fx,
                 calibrate on calib.npz, convert_fx) SQNR on eval.npz
                 against ref.npz, one line per configuration and output:
                 "CONFIG OUTPUT DB", and "best OUTPUT DB" the best of them

SQNR is 10 log10(sum ref^2 / sum (q - ref)^2) over all eval images and
elements, as npu-quant --report computes it. Configurations: the default
qconfig mapping of each quantized engine this torch has (qnnpack: per
tensor weights; onednn: per channel weights, HistogramObserver
activations), and per-channel symmetric weights with HistogramObserver
activations on each engine (bench/quant.py's qconfig)."""
import copy
import io
import os
import zipfile

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "data", "quant", "detector")
S, C, NCAL, NEVAL = 64, 3, 16, 16
CELLS = ((8, 2), (4, 2))		# (grid, anchors) per scale
A = sum(g * g * a for g, a in CELLS)


def strip(raw):
    """The archive without debug_pkl entries (they hold this machine's
    paths), with fixed timestamps."""
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


def batch(n, rng):
    """Images with one object each (0 square, 1 circle, 2 cross) of size
    6..40 px, and per-anchor targets: boxes [n, A, 4], class [n, A] (-1 for
    anchors that hold no object), the small objects on the fine scale."""
    x = rng.normal(0, 0.35, (n, 3, S, S)).astype(np.float32)
    x += rng.normal(0, 0.3, (n, 3, 1, 1)).astype(np.float32)
    boxes = np.zeros((n, A, 4), np.float32)
    cls = np.full((n, A), -1, np.int64)
    yy, xx = np.mgrid[0:S, 0:S]
    for i in range(n):
        s = rng.uniform(6, 40)
        cy, cx = rng.uniform(s / 2, S - s / 2, 2)
        k = rng.randint(C)
        dy, dx = np.abs(yy - cy), np.abs(xx - cx)
        if k == 0:
            m = (dy < s / 2) & (dx < s / 2)
        elif k == 1:
            m = dy ** 2 + dx ** 2 < (s / 2) ** 2
        else:
            m = ((dy < s / 2) & (dx < s / 8)) | ((dx < s / 2) & (dy < s / 8))
        x[i][:, m] += rng.uniform(0.8, 1.6, (3, 1)).astype(np.float32)
        j = 0
        for g, anchors in CELLS:
            step = S / g
            for gy in range(g):
                for gx in range(g):
                    for a in range(anchors):
                        ay, ax = (gy + 0.5) * step, (gx + 0.5) * step
                        boxes[i, j] = (cx - ax, cy - ay, 16 * np.log(s / 16), 16 * np.log(s / 16))
                        fine = s < 18
                        big = s >= 28
                        want = (g == 8 and fine) or (g == 4 and not fine)
                        if want and int(cy // step) == gy and int(cx // step) == gx and a == (1 if big else 0):
                            cls[i, j] = k
                        j += 1
    x = np.round(x * 32) / 32		# on a 1/32 grid, as 8-bit pixels are: smaller files
    return torch.from_numpy(x), torch.from_numpy(boxes), torch.from_numpy(cls)


def cbr(cin, cout, stride):
    return nn.Sequential(nn.Conv2d(cin, cout, 3, stride, 1, bias=False), nn.BatchNorm2d(cout), nn.ReLU6())


def dw_sep(cin, cout, stride):
    return nn.Sequential(nn.Conv2d(cin, cin, 3, stride, 1, groups=cin, bias=False), nn.BatchNorm2d(cin),
                         nn.ReLU6(), nn.Conv2d(cin, cout, 1, bias=False), nn.BatchNorm2d(cout), nn.ReLU6())


class Detector(nn.Module):
    def __init__(self):
        super().__init__()
        self.stem = cbr(3, 16, 2)		# 32x32
        self.b1 = dw_sep(16, 24, 2)		# 16x16
        self.b2 = dw_sep(24, 32, 1)
        self.b3 = dw_sep(32, 48, 2)		# 8x8
        self.b4 = dw_sep(48, 64, 2)		# 4x4
        self.box8 = nn.Conv2d(48, 2 * 4, 3, padding=1)
        self.cls8 = nn.Conv2d(48, 2 * C, 3, padding=1)
        self.box4 = nn.Conv2d(64, 2 * 4, 3, padding=1)
        self.cls4 = nn.Conv2d(64, 2 * C, 3, padding=1)

    def forward(self, x):
        f8 = self.b3(self.b2(self.b1(self.stem(x))))
        f4 = self.b4(f8)
        n = x.shape[0]
        b8 = self.box8(f8).permute(0, 2, 3, 1).reshape(n, -1, 4)
        b4 = self.box4(f4).permute(0, 2, 3, 1).reshape(n, -1, 4)
        c8 = self.cls8(f8).permute(0, 2, 3, 1).reshape(n, -1, C)
        c4 = self.cls4(f4).permute(0, 2, 3, 1).reshape(n, -1, C)
        return torch.cat([b8, b4], 1), torch.cat([c8, c4], 1)


def loss_fn(out, boxes, cls):
    b, logits = out
    pos = cls >= 0
    w = 0.1 + pos.float()		# boxes everywhere, mostly at the object
    lb = (F.smooth_l1_loss(b, boxes, reduction="none").mean(-1) * w).mean()
    # background: every logit low (sigmoid focal-free BCE, BlazeFace style)
    tgt = F.one_hot(cls.clamp(min=0), C).float() * pos[..., None].float()
    lc = F.binary_cross_entropy_with_logits(logits, tgt, pos_weight=torch.tensor(30.0))
    return lb / 4 + lc


def sqnr(ref, q):
    ref = ref.astype(np.float64)
    err = np.sum((ref - q.astype(np.float64)) ** 2)
    return float("inf") if err == 0 else 10 * np.log10(np.sum(ref ** 2) / err)


def torch_ptq(model, calib, x, engine, qconfig):
    from torch.ao.quantization.quantize_fx import convert_fx, prepare_fx
    torch.backends.quantized.engine = engine
    prepared = prepare_fx(copy.deepcopy(model).eval(), qconfig, (calib[:1],))
    with torch.no_grad():
        for i in range(0, len(calib), 8):
            prepared(calib[i:i + 8])
        q = convert_fx(prepared)
        return [t.numpy() for t in q(x)]


def main():
    torch.manual_seed(13)
    torch.set_num_threads(1)
    rng = np.random.RandomState(13)
    m = Detector()
    opt = torch.optim.Adam(m.parameters(), lr=3e-3)
    m.train()
    for step in range(400):
        x, b, c = batch(32, rng)
        loss = loss_fn(m(x), b, c)
        opt.zero_grad()
        loss.backward()
        opt.step()
        if step % 100 == 0 or step == 399:
            print("step %d loss %.3f" % (step, loss.item()))
    m.eval()
    calib, _, _ = batch(NCAL, rng)
    x, _, tc = batch(NEVAL, rng)

    with torch.no_grad():
        traced = torch.jit.trace(m, (x[:1],))
    buf = io.BytesIO()
    torch.jit.save(traced, buf)
    raw = strip(buf.getvalue())
    for p in (b"/work", b"/root", b"/home", b"/tmp", b"/usr"):
        assert p not in raw, p
    loaded = torch.jit.load(io.BytesIO(raw))
    with torch.no_grad():
        ref = [torch.cat(t) for t in zip(*[loaded(x[i:i + 1]) for i in range(NEVAL)])]
        assert all(torch.allclose(a, b, atol=1e-5) for a, b in zip(ref, m(x)))
    ref = [t.numpy() for t in ref]
    hit = (tc >= 0).numpy()
    acc = (ref[1].argmax(-1)[hit] == tc.numpy()[hit]).mean()
    print("float: eval class accuracy at object anchors %.3f; box range %.1f..%.1f, logits %.1f..%.1f" %
          (acc, ref[0].min(), ref[0].max(), ref[1].min(), ref[1].max()))

    from torch.ao.quantization import (HistogramObserver, QConfig, QConfigMapping,
                                       default_per_channel_weight_observer, get_default_qconfig_mapping)
    lines, best = [], [-1e9, -1e9]
    for engine in ("qnnpack", "onednn", "fbgemm"):
        if engine not in torch.backends.quantized.supported_engines:
            continue
        hist = QConfig(activation=HistogramObserver.with_args(reduce_range=(engine == "fbgemm")),
                       weight=default_per_channel_weight_observer)
        for tag, qc in (("default", get_default_qconfig_mapping(engine)),
                        ("perchannel_hist", QConfigMapping().set_global(hist))):
            try:
                outs = torch_ptq(m, calib, x, engine, qc)
            except Exception as e:		# an engine without per-channel kernels
                print("%s %s: %s" % (engine, tag, str(e).splitlines()[0]))
                continue
            for k, (r, q) in enumerate(zip(ref, outs)):
                db = sqnr(r, q)
                best[k] = max(best[k], db)
                lines.append("%s_%s output_%d %.2f" % (engine, tag, k, db))
    lines += ["best output_%d %.2f" % (k, b) for k, b in enumerate(best)]
    print("\n".join(lines))

    os.makedirs(OUT, exist_ok=True)
    with open(os.path.join(OUT, "model.pt"), "wb") as f:
        f.write(raw)
    np.savez_compressed(os.path.join(OUT, "calib.npz"), x=calib.numpy())
    np.savez_compressed(os.path.join(OUT, "eval.npz"), x=x.numpy())
    np.savez_compressed(os.path.join(OUT, "ref.npz"), output_0=ref[0], output_1=ref[1])
    np.savez(os.path.join(OUT, "in.npz"), x=x[:1].numpy())
    np.savez(os.path.join(OUT, "out.npz"), output_0=ref[0][:1], output_1=ref[1][:1])
    with open(os.path.join(OUT, "torch.txt"), "w") as f:
        f.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
