"""A small trained streaming keyword spotter (FSMN-style memory) for
tests/pipeline/t5150-quant-state.sh, exported as one frame step with its
cache as state:

  kws_stream.onnx        x [1, 1, 10] one frame, cache_in [1, 12, 16] the
                         last 12 hidden frames -> logits [1, 4], cache_out
                         [1, 12, 16] (cache_in's frames 1..11, then this
                         frame's hidden features)
  kws_stream.seq.npz     x: [8, 24, 1, 1, 10] calibration sequences (the
                         cache starts at zero)
  kws_stream.zero.npz    the same 192 frames as single samples, each with an
                         all-zero cache_in (per-frame calibration)
  kws_stream.test.npz    x: [200, 24, 10] held-out utterances, labels: int64
                         [200], logits: float32 [200, 4] PyTorch's logits
                         after the last frame (the whole utterance run
                         frame by frame from a zero cache)

Synthetic task: 4 classes; classes 1..3 say their keyword (3 "phoneme"
vectors, 3 frames each) ending 1..3 frames before the end, class 0 is
noise only. Run with /usr/bin/python3 (PyTorch 1.13) from the top directory."""
import os

import numpy as np
import torch

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "data", "quant")
F, H, K, C, T = 10, 16, 12, 4, 24
torch.manual_seed(0)
rs = np.random.RandomState(2024)
phones = rs.randn(C, 3, F).astype(np.float32) * 1.5


def make(n):
    x = (rs.randn(n, T, F) * 0.7).astype(np.float32)
    y = rs.randint(0, C, n)
    for i in range(n):
        if y[i]:
            end = T - 1 - rs.randint(0, 3)
            for p in range(3):
                for f in range(3):
                    x[i, end - 8 + 3 * p + f] += phones[y[i], p]
    return x, y.astype(np.int64)


class Step(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.inp = torch.nn.Linear(F, H)
        self.taps = torch.nn.Parameter(torch.randn(1, K, H) * 0.3)
        self.hid = torch.nn.Linear(H, 16)
        self.out = torch.nn.Linear(16, C)

    def forward(self, x, cache_in):		# x [B, 1, F], cache [B, K, H]
        h = torch.relu(self.inp(x))
        cache_out = torch.cat([cache_in[:, 1:], h], dim=1)
        m = (cache_out * self.taps).sum(dim=1)
        return self.out(torch.relu(self.hid(m))), cache_out


def run(model, x):		# whole utterances frame by frame
    cache = torch.zeros(x.shape[0], K, H)
    for t in range(x.shape[1]):
        y, cache = model(x[:, t:t + 1], cache)
    return y


model = Step()
xtr, ytr = make(2000)
opt = torch.optim.Adam(model.parameters(), lr=0.01)
for epoch in range(200):
    idx = rs.randint(0, len(xtr), 128)
    loss = torch.nn.functional.cross_entropy(run(model, torch.from_numpy(xtr[idx])), torch.from_numpy(ytr[idx]))
    opt.zero_grad()
    loss.backward()
    opt.step()
model.eval()
xte, yte = make(200)
with torch.no_grad():
    logits = run(model, torch.from_numpy(xte)).numpy()
print("loss %.4f, test accuracy %d/200" % (loss.item(), (logits.argmax(1) == yte).sum()))
torch.onnx.export(model, (torch.zeros(1, 1, F), torch.zeros(1, K, H)), os.path.join(OUT, "kws_stream.onnx"),
                  input_names=["x", "cache_in"], output_names=["logits", "cache_out"], opset_version=13)
xc, _ = make(8)
np.savez(os.path.join(OUT, "kws_stream.seq.npz"), x=xc.reshape(8, T, 1, 1, F))
np.savez(os.path.join(OUT, "kws_stream.zero.npz"), x=xc.reshape(8 * T, 1, 1, F),
         cache_in=np.zeros((8 * T, 1, K, H), np.float32))
np.savez(os.path.join(OUT, "kws_stream.test.npz"), x=xte, labels=yte, logits=logits.astype(np.float32))
