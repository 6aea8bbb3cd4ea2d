#!/usr/bin/python3
"""Train the bundled digits CNN and write share/npu/examples/digits.*
(run with Debian's torch: /usr/bin/python3 tests/gen/digits.py).

The data is scikit-learn's bundled load_digits (1797 8x8 images, values
0..16, scaled to [0,1]), split with train_test_split(test_size=0.25,
random_state=0, stratified). The model, float32, batch 1, input [1,1,8,8]:

    conv3x3(1->16, pad 1) + BN + ReLU
    conv3x3(16->32, pad 1) + BN + ReLU
    maxpool 2x2
    conv3x3(32->32, pad 1) + ReLU
    global average pool, flatten
    linear(32->10)                      (logits, no softmax)

Written to share/npu/examples/:

    digits.pt            torch.jit.trace of the eval-mode model on [1,1,8,8],
                         without code/**.debug_pkl (absolute paths) and
                         with fixed zip timestamps
    digits.calib.npy     float32 [N,1,1,8,8], the first 400 training images
                         (calibration set: one model input per sample)
    digits.test.npy      float32 [Ntest,1,1,8,8], the test images
    digits.labels.npy    int64 [Ntest], their labels
    digits.logits.npy    float32 [Ntest,10], the TorchScript model's own
                         outputs on the test images, one batch-1 run each

It prints the fp32 test accuracy, and for information the accuracy of
PyTorch's own int8 post-training quantization (FX graph mode, default
qconfig mapping of each available backend, calibrated on the same 400
images). Everything is seeded and single-threaded: rerunning it gives the
same training run on the same machine.
"""

import io
import os
import random
import sys

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from sklearn.datasets import load_digits
from sklearn.model_selection import train_test_split

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from pt_fixtures import strip  # noqa: E402  (debug_pkl removed, fixed timestamps)

TOP = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
OUT = os.path.join(TOP, "share", "npu", "examples")
NCALIB = 400
SEED = 0


class DigitsCNN(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 16, 3, padding=1, bias=False)
        self.bn1 = nn.BatchNorm2d(16)
        self.conv2 = nn.Conv2d(16, 32, 3, padding=1, bias=False)
        self.bn2 = nn.BatchNorm2d(32)
        self.pool = nn.MaxPool2d(2)
        self.conv3 = nn.Conv2d(32, 32, 3, padding=1)
        self.gap = nn.AdaptiveAvgPool2d(1)
        self.fc = nn.Linear(32, 10)

    def forward(self, x):
        x = F.relu(self.bn1(self.conv1(x)))
        x = F.relu(self.bn2(self.conv2(x)))
        x = self.pool(x)
        x = F.relu(self.conv3(x))
        x = torch.flatten(self.gap(x), 1)
        return self.fc(x)


def data():
    d = load_digits()
    x = (d.images.astype(np.float32) / 16.0)[:, None, :, :]   # [N,1,8,8]
    y = d.target.astype(np.int64)
    return train_test_split(x, y, test_size=0.25, random_state=SEED, stratify=y)


def train(xtr, ytr, epochs=60):
    torch.manual_seed(SEED)
    model = DigitsCNN()
    opt = torch.optim.Adam(model.parameters(), lr=3e-3, weight_decay=1e-4)
    sched = torch.optim.lr_scheduler.CosineAnnealingLR(opt, epochs)
    xt, yt = torch.from_numpy(xtr), torch.from_numpy(ytr)
    g = torch.Generator().manual_seed(SEED)
    for _ in range(epochs):
        model.train()
        perm = torch.randperm(len(xt), generator=g)
        for i in range(0, len(xt), 32):
            idx = perm[i:i + 32]
            # small random shifts (by padding and cropping one pixel) help
            # a little with 1347 training images
            xb = xt[idx]
            if xb.shape[0] > 1:
                pad = F.pad(xb, (1, 1, 1, 1))
                dy, dx = torch.randint(0, 3, (2,), generator=g).tolist()
                xb = pad[:, :, dy:dy + 8, dx:dx + 8]
            loss = F.cross_entropy(model(xb), yt[idx])
            opt.zero_grad()
            loss.backward()
            opt.step()
        sched.step()
    return model.eval()


def accuracy(logits, labels):
    return float((np.argmax(logits, 1) == labels).mean())


def torch_int8(model, calib, xte, yte):
    """PyTorch's own FX post-training quantization, for information."""
    import copy
    from torch.ao.quantization import get_default_qconfig_mapping
    from torch.ao.quantization.quantize_fx import convert_fx, prepare_fx
    res = {}
    for backend in ("fbgemm", "x86", "onednn", "qnnpack"):
        if backend not in torch.backends.quantized.supported_engines:
            continue
        try:
            torch.backends.quantized.engine = backend
            ex = (torch.from_numpy(calib[0]),)
            p = prepare_fx(copy.deepcopy(model).eval(), get_default_qconfig_mapping(backend), ex)
            with torch.no_grad():
                for c in calib:
                    p(torch.from_numpy(c))
                q = convert_fx(p)
                out = np.concatenate([q(torch.from_numpy(x[None])).numpy() for x in xte])
            res[backend] = accuracy(out, yte)
        except Exception as e:  # an engine this build cannot run
            res[backend] = "failed: %s" % str(e).splitlines()[0]
    return res


def main():
    torch.set_num_threads(1)
    torch.manual_seed(SEED)
    random.seed(SEED)
    np.random.seed(SEED)
    torch.use_deterministic_algorithms(True)

    xtr, xte, ytr, yte = data()
    model = train(xtr, ytr)

    example = torch.from_numpy(xte[:1])
    with torch.no_grad():
        ts = torch.jit.trace(model, example)
    buf = io.BytesIO()
    torch.jit.save(ts, buf)
    raw = strip(buf.getvalue())
    for p in (b"/work", b"/root", b"/home", b"/tmp", b"/usr", b"/build"):
        assert p not in raw, p

    # the framework reference: the saved archive itself, batch 1
    loaded = torch.jit.load(io.BytesIO(raw))
    with torch.no_grad():
        logits = np.concatenate([loaded(torch.from_numpy(x[None])).numpy() for x in xte])
    logits = logits.astype(np.float32)
    acc = accuracy(logits, yte)

    calib = np.ascontiguousarray(xtr[:NCALIB][:, None])        # [N,1,1,8,8]
    test = np.ascontiguousarray(xte[:, None])                  # [Ntest,1,1,8,8]

    os.makedirs(OUT, exist_ok=True)
    with open(os.path.join(OUT, "digits.pt"), "wb") as f:
        f.write(raw)
    np.save(os.path.join(OUT, "digits.calib.npy"), calib.astype(np.float32))
    np.save(os.path.join(OUT, "digits.test.npy"), test.astype(np.float32))
    np.save(os.path.join(OUT, "digits.labels.npy"), yte.astype(np.int64))
    np.save(os.path.join(OUT, "digits.logits.npy"), logits)

    print("digits: train %d, calib %d, test %d; digits.pt %d bytes"
          % (len(xtr), len(calib), len(test), len(raw)))
    print("fp32 test accuracy: %.4f (%d/%d)" % (acc, int(round(acc * len(yte))), len(yte)))
    torch.use_deterministic_algorithms(False)
    for backend, a in torch_int8(model, calib, xte, yte).items():
        if isinstance(a, float):
            print("torch int8 PTQ (FX, %s default qconfig) test accuracy: %.4f" % (backend, a))
        else:
            print("torch int8 PTQ (FX, %s): %s" % (backend, a))


if __name__ == "__main__":
    sys.exit(main())
