"""Inputs for tests/pipeline/t8000-npuc.sh, derived from existing fixtures
(no new framework outputs: the expected values are the TF and PyTorch ones
already in tests/data/tf and tests/data/pt).

  fsmn.Feats.npy, fsmn.State_c0.npy  tests/data/tf/fsmn.input.npz split into
                                     one .npy per input (for npu_host.c)
  gru.in0.nlc.npy                    tests/data/pt/gru.in0.npy (N, C, L)
                                     transposed to (N, L, C), the layout an
                                     INPUT_NCX_TO_NXC input takes

Run: /usr/bin/python3 tests/gen/npuc_fixtures.py
"""
import os

import numpy as np

TOP = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "data")
OUT = os.path.join(TOP, "npuc")

z = np.load(os.path.join(TOP, "tf", "fsmn.input.npz"))
for k in ("Feats", "State_c0"):
    np.save(os.path.join(OUT, "fsmn.%s.npy" % k), z[k])
x = np.load(os.path.join(TOP, "pt", "gru.in0.npy"))
np.save(os.path.join(OUT, "gru.in0.nlc.npy"), np.ascontiguousarray(x.transpose(0, 2, 1)))
