#!/usr/bin/python3
"""Regenerate tests/data/npy/: run with Debian's python3-numpy and
python3-torch from the repository root:  /usr/bin/python3 tests/gen/npy_fixtures.py

NumPy writes every file here, so the readers in formats/npy are checked
against NumPy's own output (tests/unit/test_npy.c, t1400-run.sh):
  arange.npz          np.savez_compressed (deflated): keys f4 f2 f8 i1 i2 i4 i8
                      u1 b1, each np.arange(6).reshape(2, 3) in that dtype
                      (b1: arange % 2 == 1)
  arange_stored.npz   the same with np.savez (stored)
  v2.npy, v3.npy      float32 arange(6).reshape(2, 3) in format versions 2.0, 3.0
  i64.npy             int64 arange(6).reshape(2, 3)
  tinycnn.input.npz   tests/data/tinycnn.input.npy under the key 'input'
  tinycnn.input.f64.npy  the same as float64 (numpy's default dtype)
  two_io.onnx         y = 2 * x + y0 (f32 1x3) and argmax(y0, 1) (i64): two
                      inputs 'x' and 'y0', outputs 'sum' and 'idx'
  two_io.input.npz, two_io.output.npz  an input and PyTorch's outputs
  two_io.x.npy, two_io.y0.npy  the same input as one .npy per graph input
  two_io.x_i32.npy    x as int32 (a wrong dtype)
  two_io.x_only.npz, two_io.extra.npz  without y0, and with an extra array z
"""
import os
import numpy as np
import torch

D = "tests/data/npy"
os.makedirs(D, exist_ok=True)
base = np.arange(6).reshape(2, 3)
arrs = {k: base.astype(k) for k in ["f4", "f2", "f8", "i1", "i2", "i4", "i8", "u1"]}
arrs["b1"] = base % 2 == 1
np.savez_compressed(D + "/arange.npz", **arrs)
np.savez(D + "/arange_stored.npz", **arrs)
for v in (2, 3):
    with open(f"{D}/v{v}.npy", "wb") as f:
        np.lib.format.write_array(f, base.astype(np.float32), version=(v, 0))
np.save(D + "/i64.npy", base.astype(np.int64))

x = np.load("tests/data/tinycnn.input.npy")
np.savez(D + "/tinycnn.input.npz", input=x)
np.save(D + "/tinycnn.input.f64.npy", x.astype(np.float64))


class TwoIO(torch.nn.Module):
    def forward(self, x, y0):
        return 2 * x + y0, torch.argmax(y0, dim=1)


torch.manual_seed(0)
xs = (torch.randn(1, 3), torch.randn(1, 3))
torch.onnx.export(TwoIO(), xs, D + "/two_io.onnx", input_names=["x", "y0"],
                  output_names=["sum", "idx"], opset_version=13)
s, i = TwoIO()(*xs)
np.savez_compressed(D + "/two_io.input.npz", x=xs[0].numpy(), y0=xs[1].numpy())
np.savez_compressed(D + "/two_io.output.npz", sum=s.numpy(), idx=i.numpy())
np.save(D + "/two_io.x.npy", xs[0].numpy())
np.save(D + "/two_io.y0.npy", xs[1].numpy())
np.save(D + "/two_io.x_i32.npy", xs[0].numpy().astype(np.int32))
np.savez(D + "/two_io.x_only.npz", x=xs[0].numpy())
np.savez(D + "/two_io.extra.npz", x=xs[0].numpy(), y0=xs[1].numpy(), z=xs[1].numpy())
