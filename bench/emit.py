#!/usr/bin/python3
"""Latency of npukit's emitted int8 C code against PyTorch int8, 1 thread.

    /usr/bin/python3 bench/emit.py [--repeat 20] [--warmup 5] [--models ...]
                                   [--npu-cmd MODEL=CMD]... [--export DIR]

PyTorch: torchvision mobilenet_v2, resnet18 and squeezenet1_1 (random
weights, seed 0, batch_norm statistics re-estimated on image-like data as
bench/quant.py does) at 1x3x224x224, quantized with FX graph mode
(prepare_fx / convert_fx) using get_default_qconfig_mapping(BACKEND) for each
backend in BACKENDS (torch.backends.quantized.engine set to match),
calibrated on CALIB image-like samples, then traced and frozen
(torch.jit.trace + torch.jit.freeze, how a quantized model is deployed).
Debian's torch 1.13 has no fbgemm; 'qnnpack' is the engine mobile and
embedded builds use, 'onednn' the x86 one. Weights are per channel for
onednn; qnnpack's default mapping is per tensor (--qnnpack-per-channel
switches it). Each model is run WARMUP times, then REPEAT timed runs; the
median is printed in ms, with the SQNR (dB) of the quantized output against
the float model's as a check that the timed model computes the right thing.
Debian's torch 1.13 computes quantized ReLU6 wrongly on qnnpack (a lone
conv+ReLU6 gives SQNR < 0 dB, conv+ReLU 42 dB), so mobilenet_v2 on qnnpack
shows a negative SQNR; it still executes the same ops, so its time stands.

npukit: --npu-cmd MODEL=CMD runs CMD with the shell (from the repository
root) and reads the last line 'ms: <float>' of its standard output, the
median latency of the emitted code (the benchmark executable is built
elsewhere). The ratios printed are speed ratios: torch_ms / npu_ms (> 1
means npukit is faster). --export DIR writes what such an executable needs:
DIR/MODEL.pt (float TorchScript), MODEL.calib.npy ([N,1,3,224,224]) and
MODEL.input.npy ([1,3,224,224]).
"""

import argparse
import copy
import io
import os
import re
import statistics
import subprocess
import sys
import time

import numpy as np
import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import quant  # noqa: E402  (image_like, torchvision_model, sqnr, strip_archive)

TOP = quant.TOP
MODELS = ["mobilenet_v2", "resnet18", "squeezenet1_1"]
BACKENDS = ["qnnpack", "onednn"]
CALIB = 16
MS_LINE = re.compile(r"^\s*ms:\s*([0-9.eE+-]+)\s*$")


def torch_int8(model, backend, calib, per_channel=False):
    from torch.ao.quantization import (QConfig, default_per_channel_weight_observer,
                                       get_default_qconfig_mapping)
    from torch.ao.quantization.quantize_fx import convert_fx, prepare_fx
    torch.backends.quantized.engine = backend
    mapping = get_default_qconfig_mapping(backend)
    if per_channel:
        g = mapping.global_qconfig
        mapping.set_global(QConfig(activation=g.activation, weight=default_per_channel_weight_observer))
    p = prepare_fx(copy.deepcopy(model).eval(), mapping, (calib[:1],))
    with torch.no_grad():
        for i in range(0, len(calib), 8):
            p(calib[i:i + 8])
        q = convert_fx(p).eval()
        ts = torch.jit.freeze(torch.jit.trace(q, calib[:1]).eval())
    return ts


def median_ms(fn, x, warmup, repeat):
    with torch.no_grad():
        for _ in range(warmup):
            fn(x)
        times = []
        for _ in range(repeat):
            t0 = time.perf_counter()
            fn(x)
            times.append(time.perf_counter() - t0)
    return statistics.median(times) * 1e3


def npu_ms(cmd):
    """Run CMD with the shell from the repository root; the last
    'ms: <float>' line of its standard output."""
    p = subprocess.run(cmd, shell=True, cwd=TOP, stdout=subprocess.PIPE)
    if p.returncode != 0:
        raise RuntimeError("exit status %d" % p.returncode)
    ms = None
    for line in p.stdout.decode(errors="replace").splitlines():
        m = MS_LINE.match(line)
        if m:
            ms = float(m.group(1))
    if ms is None:
        raise RuntimeError("no 'ms: <float>' line in its output")
    return ms


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--repeat", type=int, default=20, help="timed runs (median; %(default)s)")
    ap.add_argument("--warmup", type=int, default=5, help="untimed runs first (%(default)s)")
    ap.add_argument("--calib", type=int, default=CALIB, help="calibration samples (%(default)s)")
    ap.add_argument("--models", default=",".join(MODELS), help="comma-separated (%(default)s)")
    ap.add_argument("--backends", default=",".join(BACKENDS), help="torch engines (%(default)s)")
    ap.add_argument("--qnnpack-per-channel", action="store_true",
                    help="per-channel weights for qnnpack too")
    ap.add_argument("--npu-cmd", action="append", default=[], metavar="MODEL=CMD",
                    help="command printing 'ms: <float>' for MODEL's emitted code")
    ap.add_argument("--export", metavar="DIR", help="write MODEL.pt, MODEL.calib.npy, MODEL.input.npy")
    args = ap.parse_args()

    torch.set_num_threads(1)
    torch.manual_seed(0)
    models = [m for m in args.models.split(",") if m]
    backends = [b for b in args.backends.split(",") if b]
    npu_cmds = {}
    for spec in args.npu_cmd:
        name, sep, cmd = spec.partition("=")
        if not sep or not cmd:
            ap.error("--npu-cmd wants MODEL=CMD, not %r" % spec)
        npu_cmds[name] = cmd

    results = {}
    for name in models:
        model = quant.torchvision_model(name)
        calib = quant.image_like(args.calib, quant.SEED_CALIB)
        x = quant.image_like(1, quant.SEED_EVAL)
        with torch.no_grad():
            ref = model(x).numpy()
        if args.export:
            os.makedirs(args.export, exist_ok=True)
            with torch.no_grad():
                ts = torch.jit.trace(model, x)
            buf = io.BytesIO()
            torch.jit.save(ts, buf)
            with open(os.path.join(args.export, name + ".pt"), "wb") as f:
                f.write(quant.strip_archive(buf.getvalue()))
            np.save(os.path.join(args.export, name + ".calib.npy"), calib.numpy()[:, None])
            np.save(os.path.join(args.export, name + ".input.npy"), x.numpy())
        r = {}
        for b in backends:
            if b not in torch.backends.quantized.supported_engines:
                r[b] = None
                print("%s %s: not in this torch build" % (name, b), file=sys.stderr)
                continue
            try:
                q = torch_int8(model, b, calib, per_channel=(b != "qnnpack" or args.qnnpack_per_channel))
                with torch.no_grad():
                    s = quant.sqnr(ref, q(x).numpy())
                ms = median_ms(q, x, args.warmup, args.repeat)
                r[b] = ms
                r[b + " sqnr"] = s
                print("%s %s: %.2f ms (median of %d), SQNR %.1f dB"
                      % (name, b, ms, args.repeat, s), file=sys.stderr, flush=True)
            except Exception as e:
                r[b] = None
                print("%s %s: failed: %s" % (name, b, str(e).splitlines()[0]), file=sys.stderr)
        r["npu"] = None
        if name in npu_cmds:
            try:
                r["npu"] = npu_ms(npu_cmds[name])
                print("%s npu: %.2f ms" % (name, r["npu"]), file=sys.stderr, flush=True)
            except Exception as e:
                print("%s npu: %s: %s" % (name, npu_cmds[name], e), file=sys.stderr)
        results[name] = r

    def f(v):
        return "n/a" if v is None else "%.2f" % v

    head = ["model"] + ["torch %s ms" % b for b in backends] + ["npu ms"] + \
        ["speed vs %s" % b for b in backends] + ["%s SQNR dB" % b for b in backends]
    rows = []
    for name, r in results.items():
        row = [name] + [f(r[b]) for b in backends] + [f(r["npu"])]
        for b in backends:
            row.append(f(r[b] / r["npu"]) if r[b] and r["npu"] else "n/a")
        row += [("%.1f" % r[b + " sqnr"]) if r.get(b + " sqnr") is not None else "n/a"
                for b in backends]
        rows.append(row)
    w = [max(len(h), *(len(rw[i]) for rw in rows)) for i, h in enumerate(head)]
    print("int8 latency, 1 thread, batch 1, 3x224x224; speed = torch_ms / npu_ms (> 1: npukit faster)")
    print("| " + " | ".join(h.ljust(n) for h, n in zip(head, w)) + " |")
    print("|" + "|".join("-" * (n + 2) for n in w) + "|")
    for rw in rows:
        print("| " + " | ".join(c.ljust(n) for c, n in zip(rw, w)) + " |")
    if not npu_cmds:
        print("(no --npu-cmd MODEL=CMD given: PyTorch side only)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
