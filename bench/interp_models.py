"""Make the interpreter benchmark's models and time PyTorch on them.

    /usr/bin/python3 bench/interp_models.py OUTDIR REPEAT

For mobilenet_v2, resnet18 and squeezenet1_1 (torchvision, random weights,
seed 0, batch 1, 3x224x224) writes OUTDIR/NAME.onnx, NAME.input.npy and
NAME.output.npy (PyTorch's output, so the benchmark also checks npu-run's
answer), then times the TorchScript module frozen with
torch.jit.optimize_for_inference at one thread (after warm-up runs) and
prints one line per model: "NAME torch_ms". The ONNX export and the timed
module come from the same nn.Module, so both runtimes compute the same
function.
"""
import sys
import time

import numpy as np
import torch
import torchvision

MODELS = ["mobilenet_v2", "resnet18", "squeezenet1_1"]


def main():
    out, repeat = sys.argv[1], int(sys.argv[2])
    torch.set_num_threads(1)
    for name in MODELS:
        torch.manual_seed(0)
        m = getattr(torchvision.models, name)().eval()
        x = torch.randn(1, 3, 224, 224)
        with torch.no_grad():
            y = m(x)
        torch.onnx.export(m, x, f"{out}/{name}.onnx", opset_version=13,
                          input_names=["input"], output_names=["output"])
        np.save(f"{out}/{name}.input.npy", x.numpy())
        np.save(f"{out}/{name}.output.npy", y.numpy())
        with torch.no_grad():
            ts = torch.jit.optimize_for_inference(torch.jit.trace(m, x))
            for _ in range(3):
                ts(x)
            best = float("inf")
            for _ in range(repeat):
                t0 = time.perf_counter()
                ts(x)
                best = min(best, time.perf_counter() - t0)
        print(f"{name} {best * 1e3:.3f}", flush=True)


if __name__ == "__main__":
    main()
