"""Calibration and test sequences for the streaming FSMN-style model
tests/data/tf/fsmn.pb (Feats [1,1,16] in, State_c0 [1,3,16] the state,
new_state its next value), for tests/pipeline/t5150-quant-state.sh:

  fsmn_stream.seq.npz   Feats: [6, 20, 1, 1, 16] six 20-frame sequences
                        (npu-quant --state State_c0=new_state; the state
                        starts at zero)
  fsmn_stream.zero.npz  the same 120 frames as single samples, each with an
                        all-zero State_c0 (what the first frame sees: the
                        natural per-frame calibration)
  fsmn_stream.test.npz  x: [4, 32, 16] other sequences, for npu-eval --stream;
                        frames: x[0] as [32, 1, 1, 16] and zero: [1, 1, 3, 16]
                        (an all-zero state), for npu-run frame by frame

The features are random (seeded); no framework output is involved: the
test compares the quantized graph against the float one, frame by frame.
Run with /usr/bin/python3 from the top directory."""
import os

import numpy as np

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "data", "quant")
rs = np.random.RandomState(1513)
seq = rs.randn(6, 20, 1, 1, 16).astype(np.float32)
np.savez(os.path.join(OUT, "fsmn_stream.seq.npz"), Feats=seq)
frames = seq.reshape(120, 1, 1, 16)
np.savez(os.path.join(OUT, "fsmn_stream.zero.npz"), Feats=frames,
         State_c0=np.zeros((120, 1, 3, 16), np.float32))
x = rs.randn(4, 32, 16).astype(np.float32)
np.savez(os.path.join(OUT, "fsmn_stream.test.npz"), x=x, frames=x[0].reshape(32, 1, 1, 16),
         zero=np.zeros((1, 1, 3, 16), np.float32))
