#!/usr/bin/python3
"""Evaluation data for npu-quant's error report (tests/pipeline/t5010-report.sh),
written to tests/data/quant/. Run with Debian's numpy:
/usr/bin/python3 tests/gen/report_fixtures.py.

    digits.big.npy  the first 8 digits calibration images (share/npu/examples/
                    digits.calib.npy, values 0..1) times 10000: the input still
                    fits in half precision (at most 10000 < 65504), but the
                    digits CNN's convolutions sum 9 and 144 such products, so
                    its activations go beyond the half range.
"""
import os

import numpy as np

TOP = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
OUT = os.path.join(TOP, "tests", "data", "quant")
EX = os.path.join(TOP, "share", "npu", "examples")


def main():
    x = np.load(os.path.join(EX, "digits.calib.npy"))[:8].astype(np.float32) * np.float32(10000)
    np.save(os.path.join(OUT, "digits.big.npy"), x)


if __name__ == "__main__":
    main()
