#!/usr/bin/python3
"""Calibration and evaluation data for the quantization and emit tests
(tests/pipeline/t5000-quant.sh, t6000-emit.sh), written to tests/data/quant/.
Run with Debian's numpy: /usr/bin/python3 tests/gen/quant_fixtures.py.

The models are the PyTorch fixtures of tests/data/pt (pt_fixtures.py) and
the bundled digits CNN (share/npu/examples, digits.py):

    gru.calib.npz           8 samples for gru.pt (x [1,10,20], h0 [2,1,12])
    multiout.calib.npz      8 samples for multiout.pt (x [1,8,12], h [1,1,6])
    mobilenet_v2.calib.npy  8 samples for the small mobilenet_v2.pt [1,3,32,32]
    digits.x.npy            the first digits test image [1,1,8,8]
    digits.fp32             "RIGHT TOTAL": PyTorch's top-1 result on the digits
                            test set, from digits.logits.npy (the TorchScript
                            model's own outputs) and digits.labels.npy
    bad-shape.npy           float32 [4,1,1,7,7]: not digits' input shape
    bad-dtype.npy           int64 [4,1,1,8,8]
    empty.npy               float32 [0,1,1,8,8]: no samples
"""
import os

import numpy as np

TOP = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
OUT = os.path.join(TOP, "tests", "data", "quant")
EX = os.path.join(TOP, "share", "npu", "examples")


def randn(seed, *shape, scale=1.0):
    return (np.random.RandomState(seed).randn(*shape) * scale).astype(np.float32)


def main():
    os.makedirs(OUT, exist_ok=True)
    np.savez(os.path.join(OUT, "gru.calib.npz"), x=randn(1, 8, 1, 10, 20), h0=randn(2, 8, 2, 1, 12, scale=0.5))
    np.savez(os.path.join(OUT, "multiout.calib.npz"), x=randn(3, 8, 1, 8, 12), h=randn(4, 8, 1, 1, 6, scale=0.5))
    np.save(os.path.join(OUT, "mobilenet_v2.calib.npy"), randn(5, 8, 1, 3, 32, 32))
    logits = np.load(os.path.join(EX, "digits.logits.npy"))
    labels = np.load(os.path.join(EX, "digits.labels.npy"))
    right = int((logits.argmax(axis=1) == labels).sum())
    with open(os.path.join(OUT, "digits.fp32"), "w") as f:
        f.write("%d %d\n" % (right, len(labels)))
    np.save(os.path.join(OUT, "digits.x.npy"), np.load(os.path.join(EX, "digits.test.npy"))[0])
    np.save(os.path.join(OUT, "bad-shape.npy"), randn(6, 4, 1, 1, 7, 7))
    np.save(os.path.join(OUT, "bad-dtype.npy"), np.zeros((4, 1, 1, 8, 8), np.int64))
    np.save(os.path.join(OUT, "empty.npy"), np.zeros((0, 1, 1, 8, 8), np.float32))
    print("digits fp32 (PyTorch): %d/%d" % (right, len(labels)))


if __name__ == "__main__":
    main()
