#!/usr/bin/python3
"""Fixtures of tests/pipeline/t9020-plugins.sh (the example dataset and
metric plugins through npu-eval), with the figures PyTorch and scikit-learn
give (run with Debian's torch: /usr/bin/python3 tests/gen/plugin_fixtures.py).

The model and data are the bundled digits CNN (tests/gen/digits.py):
share/npu/examples/digits.pt, digits.test.npy (450 images [1,1,8,8], values
k/16), digits.labels.npy. Written to tests/data/plugin/:

    img/NNN.pgm, img/labels.txt   the first 60 test images as PGM with
                                  maxval 16 (pixel k: the value k/16 exactly),
                                  every 10th one as text P2, the rest P5;
                                  labels.txt lists "NNN.pgm LABEL"
    expect.txt                    "SET FIGURE VALUE" lines: for the whole
                                  test set (npy) and the 60 images (img),
                                  top-1 and top-3 right counts (torch.topk
                                  of the TorchScript model's batch-1 logits),
                                  macro F1 and class 3's F1 (from torch's
                                  confusion counts, as scikit-learn's
                                  f1_score with labels 0..9, zero_division=0:
                                  F1 = 2TP / (2TP + FP + FN), 0 if no case)
"""

import os

import numpy as np
import torch

TOP = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
EX = os.path.join(TOP, "share", "npu", "examples")
OUT = os.path.join(TOP, "tests", "data", "plugin")
NIMG = 60


def figures(model, x, y):
    with torch.no_grad():
        logits = torch.cat([model(torch.from_numpy(x[i:i + 1].reshape(1, 1, 8, 8))) for i in range(len(x))])
    lab = torch.from_numpy(y)
    top1 = int((logits.argmax(1) == lab).sum())
    top3 = int((logits.topk(3, dim=1).indices == lab[:, None]).any(1).sum())
    pred = logits.argmax(1)
    f1 = []
    for c in range(10):
        tp = int(((pred == c) & (lab == c)).sum())
        fp = int(((pred == c) & (lab != c)).sum())
        fn = int(((pred != c) & (lab == c)).sum())
        f1.append(2 * tp / (2 * tp + fp + fn) if tp + fp + fn else 0.0)
    macro, c3 = sum(f1) / 10, f1[3]
    return {"samples": len(x), "top1_right": top1, "top3_right": top3, "f1": macro, "f1_3": c3}


def main():
    torch.set_num_threads(1)
    model = torch.jit.load(os.path.join(EX, "digits.pt")).eval()
    x = np.load(os.path.join(EX, "digits.test.npy"))
    y = np.load(os.path.join(EX, "digits.labels.npy"))
    img = os.path.join(OUT, "img")
    os.makedirs(img, exist_ok=True)
    with open(os.path.join(img, "labels.txt"), "w") as lf:
        lf.write("# the first %d digits test images (tests/gen/plugin_fixtures.py)\n" % NIMG)
        for i in range(NIMG):
            px = np.rint(x[i].reshape(8, 8) * 16).astype(np.uint8)
            assert np.array_equal(px.astype(np.float32) / 16, x[i].reshape(8, 8))
            name = "%03d.pgm" % i
            with open(os.path.join(img, name), "wb") as f:
                if i % 10 == 9:
                    f.write(b"P2\n# text form\n8 8\n16\n")
                    f.write(("\n".join(" ".join(str(v) for v in row) for row in px) + "\n").encode())
                else:
                    f.write(b"P5\n8 8\n16\n" + px.tobytes())
            lf.write("%s %d\n" % (name, y[i]))
    with open(os.path.join(OUT, "expect.txt"), "w") as f:
        for tag, (xs, ys) in (("npy", (x, y)), ("img", (x[:NIMG], y[:NIMG]))):
            for k, v in figures(model, xs, ys).items():
                f.write("%s %s %s\n" % (tag, k, repr(float(v)) if isinstance(v, float) else v))


if __name__ == "__main__":
    main()
