#!/usr/bin/python3
"""A classifier that plain int8 breaks, for npu-eval and npu-mixp
(tests/pipeline/t9000-eval.sh, t9010-mixp.sh). Run with Debian's torch:
/usr/bin/python3 tests/gen/mixp_fixtures.py

The data: 10 classes, each a Gaussian cluster in 16 dimensions. The model
(float32, input x [1, 16], output logits [1, 10]) is an MLP of six Linear
layers (fc1..fc6, ReLU after all but fc3 and fc6), trained to near 100 %.

Then a fragile tensor is planted without changing the function: fc3's
output channel 0 (no ReLU follows fc3) is multiplied by 400 (its weight row
and bias) and fc4's input column 0 divided by 400. Quantized per tensor,
fc3's output now spends its 256 levels on channel 0 and rounds the other 23
channels to a few levels: int8 loses accuracy. Keeping fc3 and fc4 in float
(the tensor between them is then never quantized) restores it; keeping
only one of them does not.

Written to tests/data/mixp/:

    model.onnx    torch.onnx.export of the model (opset 13)
    calib.npz     x: float32 [64, 1, 16] training samples
    test.npz      x: float32 [200, 1, 16] held-out samples, labels: int64
                  [200], logits: float32 [200, 10] (PyTorch's outputs)
    in.npz, out.npz   the first test sample and its logits
    set/          sampleN_inputs.npz (x) and sampleN_outputs.npz (logits,
                  labels) for the first 12 test samples, one sample a file
"""
import os

import numpy as np
import torch
import torch.nn as nn

TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
OUT = os.path.join(TOP, "tests", "data", "mixp")
D, H, C = 16, 24, 10
NTRAIN, NCALIB, NTEST, NSET = 2000, 64, 200, 12
SCALE = 400.0


class MLP(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(D, H)
        self.fc2 = nn.Linear(H, H)
        self.fc3 = nn.Linear(H, H)
        self.fc4 = nn.Linear(H, H)
        self.fc5 = nn.Linear(H, H)
        self.fc6 = nn.Linear(H, C)

    def forward(self, x):
        x = torch.relu(self.fc1(x))
        x = torch.relu(self.fc2(x))
        x = self.fc3(x)
        x = torch.relu(self.fc4(x))
        x = torch.relu(self.fc5(x))
        return self.fc6(x)


def data(rng, centres, n):
    y = rng.integers(0, C, n)
    x = centres[y] + rng.normal(0, 0.6, (n, D))
    return (np.round(x * 64) / 64).astype(np.float32), y.astype(np.int64)


def main():
    rng = np.random.default_rng(17)
    torch.manual_seed(17)
    centres = rng.normal(0, 1.0, (C, D))
    xtr, ytr = data(rng, centres, NTRAIN)
    xte, yte = data(rng, centres, NTEST)
    model = MLP()
    opt = torch.optim.Adam(model.parameters(), lr=3e-3)
    for epoch in range(60):
        perm = rng.permutation(NTRAIN)
        for i in range(0, NTRAIN, 100):
            b = perm[i:i + 100]
            loss = nn.functional.cross_entropy(model(torch.from_numpy(xtr[b])), torch.from_numpy(ytr[b]))
            opt.zero_grad()
            loss.backward()
            opt.step()
    model.eval()
    with torch.no_grad():   # the fragile tensor: same function, one channel 400x larger
        model.fc3.weight[0] *= SCALE
        model.fc3.bias[0] *= SCALE
        model.fc4.weight[:, 0] /= SCALE
        logits = model(torch.from_numpy(xte)).numpy().astype(np.float32)
    acc = float((logits.argmax(1) == yte).mean())

    os.makedirs(os.path.join(OUT, "set"), exist_ok=True)
    path = os.path.join(OUT, "model.onnx")
    torch.onnx.export(model, torch.from_numpy(xte[:1]), path, input_names=["x"], output_names=["logits"],
                      opset_version=13)
    raw = open(path, "rb").read()
    for p in (b"/work", b"/root", b"/home", b"/tmp", b"/build"):
        assert p not in raw, p
    np.savez_compressed(os.path.join(OUT, "calib.npz"), x=xtr[:NCALIB, None])
    np.savez_compressed(os.path.join(OUT, "test.npz"), x=xte[:, None], labels=yte, logits=logits)
    np.savez_compressed(os.path.join(OUT, "in.npz"), x=xte[:1])
    np.savez_compressed(os.path.join(OUT, "out.npz"), logits=logits[:1])
    for k in range(NSET):
        np.savez(os.path.join(OUT, "set", "sample%d_inputs.npz" % k), x=xte[k:k + 1])
        np.savez(os.path.join(OUT, "set", "sample%d_outputs.npz" % k), logits=logits[k:k + 1], labels=yte[k:k + 1])
    print("float test accuracy %.3f (%d/%d)" % (acc, int(round(acc * NTEST)), NTEST))


if __name__ == "__main__":
    main()
