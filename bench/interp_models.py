"""The interpreter benchmark: npu-run (fp32) against PyTorch, interleaved.

    /usr/bin/python3 bench/interp_models.py OUTDIR ROUNDS RUNS NPU_BIN

For mobilenet_v2, resnet18 and squeezenet1_1 (torchvision, random weights,
seed 0, batch 1, 3x224x224) writes OUTDIR/NAME.onnx, NAME.input.npy and
NAME.output.npy (PyTorch's output), imports the ONNX file with
npu-import-onnx and checks npu-run's answer against PyTorch's. Then ROUNDS
interleaved rounds (bench/interleave.py, the order rotated each round):
PyTorch is the TorchScript module frozen with
torch.jit.optimize_for_inference at one thread, the mean of RUNS runs
in-process; npu-run is one process with --threads 1 --repeat RUNS, the mean
of its own report (model loading not counted on either side). The ONNX
export and the timed module come from the same nn.Module, so both runtimes
compute the same function. Prints the median of the per-round ratios
torch_ms / npu_ms with min-max (>= 1: npu-run faster) and the CPU.
"""
import os
import re
import statistics
import subprocess
import sys
import time

import numpy as np
import torch
import torchvision

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import interleave  # noqa: E402

MODELS = ["mobilenet_v2", "resnet18", "squeezenet1_1"]
NPU_MS = re.compile(r"run[s]?: ([0-9.]+) ms per run")


def main():
    out, rounds, runs, bindir = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
    torch.set_num_threads(1)
    cpu = interleave.cpu_model()
    print("CPU: %s; torch %s, 1 thread" % (cpu, torch.__version__), file=sys.stderr)
    rows = []
    for name in MODELS:
        torch.manual_seed(0)
        m = getattr(torchvision.models, name)().eval()
        x = torch.randn(1, 3, 224, 224)
        with torch.no_grad():
            y = m(x)
        base = os.path.join(out, name)
        torch.onnx.export(m, x, base + ".onnx", opset_version=13,
                          input_names=["input"], output_names=["output"])
        np.save(base + ".input.npy", x.numpy())
        np.save(base + ".output.npy", y.numpy())
        subprocess.run([os.path.join(bindir, "npu-import-onnx"), base + ".onnx", "-o", base + ".ir"], check=True)
        chk = subprocess.run([os.path.join(bindir, "npu-run"), base + ".ir", "-i", base + ".input.npy",
                              "-o", base + ".out.npy", "--compare", base + ".output.npy"],
                             stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL).returncode
        with torch.no_grad():
            ts = torch.jit.optimize_for_inference(torch.jit.trace(m, x))
            for _ in range(3):
                ts(x)

        def torch_ms():
            with torch.no_grad():
                t0 = time.perf_counter()
                for _ in range(runs):
                    ts(x)
                return (time.perf_counter() - t0) / runs * 1e3

        def npu_ms():
            p = subprocess.run([os.path.join(bindir, "npu-run"), base + ".ir", "-i", base + ".input.npy",
                                "--threads", "1", "--repeat", str(runs), "-v", "-o", base + ".out2.npy"],
                               stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, check=True)
            mt = NPU_MS.search(p.stderr.decode(errors="replace"))
            if not mt:
                raise RuntimeError("npu-run -v printed no time")
            return float(mt.group(1))

        npu_ms()  # warm-up
        t = interleave.interleave([("torch", torch_ms), ("npu", npu_ms)], rounds,
                                  lambda s, n=name: print(n, s, file=sys.stderr, flush=True))
        rows.append((name, statistics.median(t["torch"]), statistics.median(t["npu"]),
                     interleave.fmt_ratio(interleave.ratio(t["torch"], t["npu"])),
                     "matches torch" if chk == 0 else "MISMATCH"))
    print("CPU: %s" % cpu)
    print("fp32, 1 thread, %d interleaved rounds of %d runs (means); ratio = median of per-round "
          "torch_ms / npu_ms (min-max)" % (rounds, runs))
    print("%-14s %10s %10s  %-20s %s" % ("model", "torch_ms", "npu_ms", "ratio (min-max)", "check"))
    for r in rows:
        print("%-14s %10.2f %10.2f  %-20s %s" % r)


if __name__ == "__main__":
    main()
