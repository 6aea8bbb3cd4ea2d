#!/usr/bin/python3
"""Train the keyword-spotting GRU and LSTM fixtures of
tests/data/families/kws_gru/ and kws_lstm_pt/ (run with Debian's torch:
/usr/bin/python3 tests/gen/kws_gru.py).

The data is synthetic but learnable: an utterance is T=49 frames of 10
MFCC-like features. Each of the 8 classes ("keywords") is two formant-like
Gaussian ridges over the 10 feature bins whose centres follow a
class-specific trajectory in time (a start and an end bin per ridge, a
class-specific bend), placed at a random onset and with a random length,
random amplitude, a slowly varying random offset per bin and white noise.
Classes differ only in where the ridges go over time, so the model has to
integrate the sequence.

Features are rounded to multiples of 1/32 (a fixed-point front end; it
also keeps the fixture small).

The model, float32, batch 1, input x [1, 49, 10] (batch_first):

    GRU(10 -> 48, one layer)      out, h = gru(x)
    Linear(48 -> 8) on out[:, -1]  (logits, no softmax)

and the same with LSTM(10 -> 32) in place of the GRU (kws_lstm_pt).

Written to tests/data/families/kws_gru/:

    model.pt    torch.jit.trace of the eval-mode model, without
                code/**.debug_pkl and with fixed zip timestamps
    args        the npu-import-pt arguments
    calib.npz   x: float32 [64, 1, 49, 10], training utterances
    in.npz      x: float32 [1, 49, 10], a test utterance
    out.npz     the traced model's output on in.npz (keyed output_0)
    test.npz    x: float32 [200, 1, 49, 10] held-out utterances,
                labels: int64 [200], logits: float32 [200, 8] (the traced
                model's own outputs, one batch-1 run each)

kws_lstm_pt/ has the same files but test.npz: its test set is kws_gru's (the
same utterances), whose labels and logits are the GRU's.

Also tests/data/quant/gru_wide.pt (+ .calib.npz, 4 samples of x
[1, 1, 600]): GRU(600 -> 4) whose weights are all 0.05, so every gate
row's int8 codes are 127 and sum to 76200: with int16 inputs the integer
cell's int32 sums could overflow (76200 * 32768 > 2^31) and npu-quant must
refuse the layer; with int8 inputs they cannot (76200 * 256 < 2^31).

And tests/data/quant/gru_stream.*: the trained GRU (read back from
kws_gru/model.pt) as a streaming step, ONNX: forward(x [1, 7, 10],
h0 [1, 1, 48]) -> (y [1, 7, 48], h [1, 1, 48]); a 49-frame utterance is 7
calls, each call's h fed back as the next call's h0.
    gru_stream.onnx         the step model (opset 13)
    gru_stream.calib.npz    x [64, 1, 7, 10]: 7-frame chunks of training
                            utterances, h0 [64, 1, 1, 48]: the float state
                            before each chunk
    gru_stream.chunks.npz   x [7, 1, 7, 10]: test utterance 0 in 7 chunks,
                            h0 [1, 1, 1, 48]: zeros
    gru_stream.h.npz        h: PyTorch's state after the 7 chunks times
                            2^15 (the integer cell's Q0.15 codes, to
                            compare int16 state outputs with)

It prints the float test accuracy and the smallest logit margin on the
test set. Seeded and single-threaded: rerunning gives the same run.
"""

import io
import os
import random
import sys

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from pt_fixtures import strip  # noqa: E402

TOP = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
T, F_IN, NCLS, HID = 49, 10, 8, 48
NTRAIN, NTEST, NCALIB = 3000, 200, 64
SEED = 0

# per class: (start, end, bend) of ridge 1 and ridge 2, in feature bins
CLASSES = [
    ((1.0, 8.0, 0.0), (7.0, 2.0, 0.0)),
    ((8.0, 1.0, 0.0), (2.0, 7.0, 0.0)),
    ((2.0, 2.0, 3.0), (7.0, 7.0, -3.0)),
    ((5.0, 5.0, -3.0), (8.0, 3.0, 0.0)),
    ((1.0, 5.0, 0.0), (5.0, 8.5, 0.0)),
    ((4.5, 1.0, 0.0), (8.5, 5.0, 0.0)),
    ((1.5, 1.5, 0.0), (4.0, 8.5, 2.0)),
    ((8.5, 8.5, 0.0), (6.0, 0.5, -2.0)),
]


def utterance(rng, k):
    x = rng.normal(0.0, 0.25, (T, F_IN))
    x += rng.normal(0.0, 0.3, (1, F_IN))            # channel offset
    n = int(rng.integers(26, 40))                    # keyword length in frames
    t0 = int(rng.integers(0, T - n + 1))
    bins = np.arange(F_IN)[None, :]
    for (a, b, bend), amp in zip(CLASSES[k], rng.uniform(0.8, 1.5, 2)):
        u = np.linspace(0.0, 1.0, n)[:, None]
        c = a + (b - a) * u + bend * 4.0 * u * (1 - u) + rng.normal(0.0, 0.3)
        x[t0:t0 + n] += amp * np.exp(-0.5 * ((bins - c) / 0.9) ** 2)
    return (np.round(x * 32) / 32).astype(np.float32)   # 1/32 steps, as a fixed-point front end


def dataset(rng, n):
    y = rng.integers(0, NCLS, n)
    return np.stack([utterance(rng, int(k)) for k in y]), y.astype(np.int64)


class KwsGRU(nn.Module):
    def __init__(self, lstm=False):
        super().__init__()
        hid = 32 if lstm else HID
        self.gru = nn.LSTM(F_IN, hid, batch_first=True) if lstm else nn.GRU(F_IN, hid, batch_first=True)
        self.fc = nn.Linear(hid, NCLS)

    def forward(self, x):
        out, _ = self.gru(x)
        return self.fc(out[:, -1])


def train(x, y, lstm, epochs=30):
    torch.manual_seed(SEED)
    model = KwsGRU(lstm)
    opt = torch.optim.Adam(model.parameters(), lr=1e-2)
    sched = torch.optim.lr_scheduler.CosineAnnealingLR(opt, epochs)
    xt, yt = torch.from_numpy(x), torch.from_numpy(y)
    g = torch.Generator().manual_seed(SEED)
    for _ in range(epochs):
        model.train()
        perm = torch.randperm(len(xt), generator=g)
        for i in range(0, len(xt), 64):
            idx = perm[i:i + 64]
            loss = F.cross_entropy(model(xt[idx]), yt[idx])
            opt.zero_grad()
            loss.backward()
            nn.utils.clip_grad_norm_(model.parameters(), 1.0)
            opt.step()
        sched.step()
    return model.eval()


def export(name, model, xtr, xte, yte, test):
    out = os.path.join(TOP, "tests", "data", "families", name)
    with torch.no_grad():
        ts = torch.jit.trace(model, torch.from_numpy(xte[:1]))
    buf = io.BytesIO()
    torch.jit.save(ts, buf)
    raw = strip(buf.getvalue())
    for p in (b"/work", b"/root", b"/home", b"/tmp", b"/usr", b"/build"):
        assert p not in raw, p

    loaded = torch.jit.load(io.BytesIO(raw))
    with torch.no_grad():
        logits = np.concatenate([loaded(torch.from_numpy(u[None])).numpy() for u in xte]).astype(np.float32)
    acc = float((logits.argmax(1) == yte).mean())
    top2 = np.sort(logits, 1)
    margin = float((top2[:, -1] - top2[:, -2]).min())

    os.makedirs(out, exist_ok=True)
    with open(os.path.join(out, "model.pt"), "wb") as f:
        f.write(raw)
    with open(os.path.join(out, "args"), "w") as f:
        f.write("--input 0:1,%d,%d\n" % (T, F_IN))
    np.savez_compressed(os.path.join(out, "calib.npz"), x=xtr[:NCALIB, None])
    np.savez_compressed(os.path.join(out, "in.npz"), x=xte[:1])
    np.savez_compressed(os.path.join(out, "out.npz"), output_0=logits[:1])
    if test:
        np.savez_compressed(os.path.join(out, "test.npz"), x=xte[:, None], labels=yte, logits=logits)

    total = sum(os.path.getsize(os.path.join(out, f)) for f in os.listdir(out))
    print("%s: train %d, calib %d, test %d; model.pt %d bytes, %d bytes in all"
          % (name, NTRAIN, NCALIB, NTEST, len(raw), total))
    print("float test accuracy: %.4f (%d/%d), smallest top-2 logit margin %.3f"
          % (acc, int(round(acc * NTEST)), NTEST, margin))


class Wide(nn.Module):
    def __init__(self):
        super().__init__()
        self.gru = nn.GRU(600, 4, batch_first=True)
        with torch.no_grad():
            for p in self.gru.parameters():
                p.fill_(0.05)

    def forward(self, x):
        return self.gru(x)[0]


def wide():
    out = os.path.join(TOP, "tests", "data", "quant")
    x = np.random.default_rng(1).normal(0, 1, (4, 1, 1, 600)).astype(np.float32)
    with torch.no_grad():
        ts = torch.jit.trace(Wide().eval(), torch.from_numpy(x[0]))
    buf = io.BytesIO()
    torch.jit.save(ts, buf)
    with open(os.path.join(out, "gru_wide.pt"), "wb") as f:
        f.write(strip(buf.getvalue()))
    np.savez_compressed(os.path.join(out, "gru_wide.calib.npz"), x=x)


class Step(nn.Module):
    def __init__(self, gru):
        super().__init__()
        self.gru = gru

    def forward(self, x, h0):
        return self.gru(x, h0)


def stream(xtr, xte):
    out = os.path.join(TOP, "tests", "data", "quant")
    m = KwsGRU(False)
    ts = torch.jit.load(os.path.join(TOP, "tests", "data", "families", "kws_gru", "model.pt"))
    m.load_state_dict(ts.state_dict())
    step = Step(m.gru).eval()
    torch.onnx.export(step, (torch.zeros(1, 7, F_IN), torch.zeros(1, 1, HID)), os.path.join(out, "gru_stream.onnx"),
                      input_names=["x", "h0"], output_names=["y", "h"], opset_version=13)

    def chunks(u):
        h, xs, hs = torch.zeros(1, 1, HID), [], []
        with torch.no_grad():
            for k in range(7):
                x = torch.from_numpy(u[None, 7 * k:7 * k + 7])
                xs.append(x.numpy())
                hs.append(h.numpy())
                h = step(x, h)[1]
        return xs, hs, h.numpy()
    cx, ch = [], []
    for u in xtr[:10]:
        xs, hs, _ = chunks(u)
        cx += xs
        ch += hs
    np.savez_compressed(os.path.join(out, "gru_stream.calib.npz"), x=np.stack(cx[:64]), h0=np.stack(ch[:64]))
    xs, hs, hf = chunks(xte[0])
    np.savez_compressed(os.path.join(out, "gru_stream.chunks.npz"), x=np.stack(xs), h0=np.stack(hs[:1]))
    np.savez_compressed(os.path.join(out, "gru_stream.h.npz"), h=(hf * 32768).astype(np.float32))


def main():
    torch.set_num_threads(1)
    torch.manual_seed(SEED)
    random.seed(SEED)
    np.random.seed(SEED)
    rng = np.random.default_rng(SEED)
    xtr, ytr = dataset(rng, NTRAIN)
    xte, yte = dataset(rng, NTEST)
    export("kws_gru", train(xtr, ytr, False), xtr, xte, yte, True)
    export("kws_lstm_pt", train(xtr, ytr, True), xtr, xte, yte, False)
    wide()
    stream(xtr, xte)


if __name__ == "__main__":
    sys.exit(main())
