#!/usr/bin/python3
"""Latency of npukit's emitted int8 C code against PyTorch int8, 1 thread.

    /usr/bin/python3 bench/emit.py [--rounds 10] [--runs 5] [--warmup 5] [--models ...]
                                   [--npu-build MODEL=CMD]... [--npu-cmd MODEL=CMD]...
                                   [--export DIR] [--fp32]

--fp32 compares float32 instead: PyTorch's float model traced and
prepared for inference (torch.jit.trace + torch.jit.optimize_for_inference:
frozen, convolutions on oneDNN (mkldnn); 1 thread, the one side 'fp32')
against the emitted code of the unquantized graph (bench/emit_npu.sh ...
fp32). Plain torch.jit.freeze (or eager) runs Debian's torch 1.13 convs
8-14x slower here (mobilenet_v2 ~240 ms against ~20 ms), which would flatter
npukit.

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
switches it). oneDNN picks the best instruction set the CPU has (AMX
tiles on Sapphire Rapids and later); ONEDNN_MAX_CPU_ISA=AVX2 (or
AVX512_CORE_VNNI, ...) in the environment caps it, e.g. to compare with the
machine class a target was set on; the table prints the cap. Each model is run WARMUP times; the SQNR (dB) of the
quantized output against the float model's is printed as a check that the
timed model computes the right thing.

Timing is interleaved (bench/interleave.py): ROUNDS rounds, each timing
every side once (torch engines: the median of RUNS runs in-process; npukit:
one --npu-cmd, the median of its own RUNS runs), the order rotated each
round; the table gives per side the median of its round times and, per
engine, the median of the per-round ratios torch_ms / npu_ms with min-max.
Debian's torch 1.13 computes quantized ReLU6 wrongly on qnnpack (a lone
conv+ReLU6 gives SQNR < 0 dB, conv+ReLU 42 dB), so mobilenet_v2 on qnnpack
shows a negative SQNR; it still executes the same ops, so its time stands.

npukit: --npu-build MODEL=CMD runs CMD once with the shell (from the
repository root) before the rounds and prints its output (bench/emit_npu.sh:
header size, compile time and memory, arena); --npu-cmd MODEL=CMD runs CMD
once per round and reads the last line 'ms: <float>' of its standard
output, the median latency of the emitted code. The ratios printed are speed ratios: torch_ms / npu_ms (> 1
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
import interleave  # noqa: E402
import quant  # noqa: E402  (image_like, torchvision_model, sqnr, strip_archive)

TOP = quant.TOP
MODELS = ["mobilenet_v2", "resnet18", "squeezenet1_1"]
BACKENDS = ["qnnpack", "onednn"]
CALIB = 16
MS_LINE = re.compile(r"^\s*ms:\s*([0-9.eE+-]+)\b")
NPU_RUNS = 5  # --runs, given to --npu-cmd as $NPU_RUNS


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


def torch_fp32(model, x):
    with torch.no_grad():
        return torch.jit.optimize_for_inference(torch.jit.trace(copy.deepcopy(model).eval(), x).eval())


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
    p = subprocess.run(cmd, shell=True, cwd=TOP, stdout=subprocess.PIPE,
                       env=dict(os.environ, NPU_RUNS=str(NPU_RUNS)))
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


def npu_build(cmd):
    """Run CMD once (building the emitted code); its output, for the report."""
    p = subprocess.run(cmd, shell=True, cwd=TOP, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    out = p.stdout.decode(errors="replace")
    sys.stderr.write(out)
    if p.returncode != 0:
        raise RuntimeError("exit status %d" % p.returncode)
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--rounds", type=int, default=10, help="interleaved rounds (%(default)s)")
    ap.add_argument("--runs", type=int, default=5, help="runs per side and round (median; %(default)s)")
    ap.add_argument("--warmup", type=int, default=5, help="untimed runs first (%(default)s)")
    ap.add_argument("--calib", type=int, default=CALIB, help="calibration samples (%(default)s)")
    ap.add_argument("--models", default=",".join(MODELS), help="comma-separated (%(default)s)")
    ap.add_argument("--backends", default=",".join(BACKENDS), help="torch engines (%(default)s)")
    ap.add_argument("--qnnpack-per-channel", action="store_true",
                    help="per-channel weights for qnnpack too")
    ap.add_argument("--npu-cmd", action="append", default=[], metavar="MODEL=CMD",
                    help="command printing 'ms: <float>' for MODEL's emitted code (once per round)")
    ap.add_argument("--npu-base", action="append", default=[], metavar="MODEL=CMD",
                    help="a second npukit build of MODEL (e.g. other flags) timed in the same rounds")
    ap.add_argument("--npu-build", action="append", default=[], metavar="MODEL=CMD",
                    help="command building MODEL's emitted code (once, before the rounds)")
    ap.add_argument("--export", metavar="DIR", help="write MODEL.pt, MODEL.calib.npy, MODEL.input.npy")
    ap.add_argument("--fp32", action="store_true",
                    help="float32 on both sides (torch: traced, optimize_for_inference)")
    args = ap.parse_args()
    if args.fp32:
        args.backends = "fp32"

    global NPU_RUNS
    NPU_RUNS = args.runs
    torch.set_num_threads(1)
    torch.manual_seed(0)
    models = [m for m in args.models.split(",") if m]
    backends = [b for b in args.backends.split(",") if b]
    npu_cmds, npu_builds, npu_bases = {}, {}, {}
    for opt, table in (("--npu-cmd", npu_cmds), ("--npu-build", npu_builds), ("--npu-base", npu_bases)):
        for spec in getattr(args, opt[2:].replace("-", "_")):
            name, sep, cmd = spec.partition("=")
            if not sep or not cmd:
                ap.error("%s wants MODEL=CMD, not %r" % (opt, spec))
            table[name] = cmd
    print("CPU: %s; torch %s, 1 thread" % (interleave.cpu_model(), torch.__version__), file=sys.stderr)

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
        r = {"build": ""}
        sides = []
        for b in backends:
            r[b] = None
            if b != "fp32" and b not in torch.backends.quantized.supported_engines:
                print("%s %s: not in this torch build" % (name, b), file=sys.stderr)
                continue
            try:
                q = torch_fp32(model, x) if b == "fp32" else \
                    torch_int8(model, b, calib, per_channel=(b != "qnnpack" or args.qnnpack_per_channel))
                with torch.no_grad():
                    s = quant.sqnr(ref, q(x).numpy())
                    for _ in range(args.warmup):
                        q(x)
                r[b + " sqnr"] = s
                print("%s %s: SQNR %.1f dB" % (name, b, s), file=sys.stderr, flush=True)
                sides.append((b, lambda q=q, b=b: (b == "fp32" or setattr(torch.backends.quantized, "engine", b),
                                                   median_ms(q, x, 0, args.runs))[1]))
            except Exception as e:
                print("%s %s: failed: %s" % (name, b, str(e).splitlines()[0]), file=sys.stderr)
        r["npu"] = None
        if name in npu_cmds:
            try:
                if name in npu_builds:
                    r["build"] = npu_build(npu_builds[name])
                npu_ms(npu_cmds[name])  # warm-up, and a check that it runs
                sides.append(("npu", lambda c=npu_cmds[name]: npu_ms(c)))
                if name in npu_bases:
                    npu_ms(npu_bases[name])
                    sides.append(("base", lambda c=npu_bases[name]: npu_ms(c)))
            except Exception as e:
                print("%s npu: %s" % (name, e), file=sys.stderr)
        times = interleave.interleave(sides, args.rounds,
                                      lambda m, n=name: print("%s %s" % (n, m), file=sys.stderr, flush=True))
        for side, ts in times.items():
            r[side] = statistics.median(ts)
        for b in backends:
            if b in times and "npu" in times:
                r[b + " ratio"] = interleave.ratio(times[b], times["npu"])
            if b in times and "base" in times:
                r[b + " base ratio"] = interleave.ratio(times[b], times["base"])
        if "base" in times and "npu" in times:
            r["base ms"] = statistics.median(times["base"])
            r["base ratio"] = interleave.ratio(times["base"], times["npu"])
        results[name] = r

    def f(v):
        return "n/a" if v is None else "%.2f" % v

    head = ["model"] + ["torch %s ms" % b for b in backends] + ["npu ms"] + \
        ["vs %s (min-max)" % b for b in backends] + ["%s SQNR dB" % b for b in backends]
    base = any("base ms" in r for r in results.values())
    if base:  # the second build: its time, its ratio to each engine, npu's speed-up over it
        head[1 + len(backends) + 1:1 + len(backends) + 1] = ["base ms"]
        head += ["base vs %s" % b for b in backends] + ["base_ms / npu_ms"]
    rows = []
    for name, r in results.items():
        row = [name] + [f(r[b]) for b in backends] + [f(r["npu"])] + ([f(r.get("base ms"))] if base else [])
        row += [interleave.fmt_ratio(r.get(b + " ratio")) for b in backends]
        row += [("%.1f" % r[b + " sqnr"]) if r.get(b + " sqnr") is not None else "n/a"
                for b in backends]
        if base:
            row += [interleave.fmt_ratio(r.get(b + " base ratio")) for b in backends]
            row += [interleave.fmt_ratio(r.get("base ratio"))]
        rows.append(row)
    w = [max(len(h), *(len(rw[i]) for rw in rows)) for i, h in enumerate(head)]
    print("CPU: %s" % interleave.cpu_model())
    print("oneDNN ISA: %s" % os.environ.get("ONEDNN_MAX_CPU_ISA", "the best the CPU has (ONEDNN_MAX_CPU_ISA unset)"))
    print("%s latency, 1 thread, batch 1, 3x224x224, %d interleaved rounds of %d runs (medians); "
          "vs = median of per-round torch_ms / npu_ms (> 1: npukit faster)"
          % ("float32" if args.fp32 else "int8", args.rounds, args.runs))
    print("| " + " | ".join(h.ljust(n) for h, n in zip(head, w)) + " |")
    print("|" + "|".join("-" * (n + 2) for n in w) + "|")
    for rw in rows:
        print("| " + " | ".join(c.ljust(n) for c, n in zip(rw, w)) + " |")
    for name, r in results.items():
        for line in r["build"].splitlines():
            if line.startswith(("header:", "compile:", "arena:")):
                print("%s %s" % (name, line))
    if not npu_cmds:
        print("(no --npu-cmd MODEL=CMD given: PyTorch side only)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
