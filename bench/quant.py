#!/usr/bin/python3
"""npu-quant against PyTorch post-training quantization, by SQNR.

    /usr/bin/python3 bench/quant.py [--calib 32] [--eval 16] [--models ...]
                                    [--methods ...] [--work DIR] [--torch-only]

SQNR, in dB, of a quantized model's output against the float model's output
over all evaluation samples:

    10 * log10(sum(ref^2) / sum((ref - q)^2))

Models: the detector of tests/data/quant/detector (tests/gen/detector_ptq.py:
a trained BlazeFace/SSD-shaped net, two outputs, boxes and class logits,
each a row of its own; its calibration and evaluation images and float
outputs are the fixture's), torchvision mobilenet_v2 and resnet18 (random weights, seed 0, made
realistic by re-estimating every batch_norm's running statistics on 64
image-like inputs: train() mode, momentum=None, then eval()) at 1x3x224x224,
and the bundled digits CNN (share/npu/examples/digits.pt, calibrated on
digits.calib.npy, evaluated on digits.test.npy, its float reference being
the TorchScript model's output). The image-like inputs are smooth random
fields (noise at several scales, bilinearly upsampled, squashed to [0,1],
then normalized with ImageNet's mean and std); calibration and evaluation
sets use different seeds.

PyTorch: FX graph mode (prepare_fx / convert_fx) with HistogramObserver
activations (reduce_range as the backend's default qconfig has it: True for
fbgemm) and per-channel symmetric int8 weights
(default_per_channel_weight_observer), for each backend in TORCH_BACKENDS
this torch build supports (Debian's torch 1.13 has no fbgemm: its column
then says n/a), calibrated on the same calibration samples.

npukit: the traced model (saved with torch.jit.save) goes through
NPU_IMPORT, NPU_FUSE, then NPU_QUANT once per variant of NPU_METHODS, and
NPU_RUN once per evaluation sample (npu-run takes one input set per run).
A variant is a --method, optionally followed by +FLAG parts (VARIANT_ARGS:
+eq --easyquant, +ar --adaround, +bc --bias-correction, +a16 --bits 16,
+w4 --weight-bits 4). The commands are templates at the top of this file.
Without bin/npu-quant only the PyTorch columns are printed.

"best npu - torch" is the best int8 (a8w8) npukit SQNR minus the best
PyTorch SQNR in dB (a16 and w4 variants are not int8 and do not count);
the verdict says whether npukit's best is at least PyTorch's on every
model. "AdaRound gain w4" is mse+w4+ar minus mse+w4. For the digits model the test accuracy of every variant is printed
too. --json FILE writes every number.
"""

import argparse
import concurrent.futures
import copy
import io
import json
import math
import os
import shutil
import subprocess
import sys
import tempfile
import time
import zipfile

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

TOP = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
BIN = os.environ.get("NPU_BIN", os.path.join(TOP, "bin"))
EXAMPLES = os.path.join(TOP, "share", "npu", "examples")

# ---------------------------------------------------------------- knobs
# Calibration methods given to npu-quant --method, one column each.
NPU_METHODS = ["minmax", "averaging", "meanstd:3", "percentile:99.99", "kld", "aciq", "mse",
               "mse+eq", "mse+ar", "mse+bc", "mse+a16", "mse+w4", "mse+w4+ar", "mse+w4+bc"]
VARIANT_ARGS = {"eq": ["--easyquant"], "ar": ["--adaround"], "bc": ["--bias-correction"],
                "a16": ["--bits", "16"], "w4": ["--weight-bits", "4"]}

# The npukit commands, as argv templates ({bin} {pt} {shape} {raw} {fused}
# {calib} {method} {q} {input} {output} are filled in). Equivalent to
#   npu-import-pt M.pt --input 0:SHAPE | npu-fuse --all
#     | npu-quant --target int8 --calib calib.npy --method M -o q.ir
# with the imported and fused IR kept in files so that every method starts
# from the same fused graph.
NPU_IMPORT = ["{bin}/npu-import-pt", "{pt}", "--input", "0:{shape}", "-o", "{raw}"]
NPU_FUSE = ["{bin}/npu-fuse", "--all", "{raw}", "-o", "{fused}"]
NPU_QUANT = ["{bin}/npu-quant", "{fused}", "--target", "int8", "--calib", "{calib}",
             "--method", "{method}", "-o", "{q}"]
NPU_RUN = ["{bin}/npu-run", "{q}", "-i", "{input}", "-o", "{output}", "-q"]
DETECTOR = os.path.join(TOP, "tests", "data", "quant", "detector")

# PyTorch quantized engines, one column each (those this build lacks say n/a).
TORCH_BACKENDS = ["fbgemm", "onednn"]

MODELS = ["detector", "mobilenet_v2", "resnet18", "digits"]
SEED_BN, SEED_CALIB, SEED_EVAL = 1, 2, 3
MEAN = torch.tensor([0.485, 0.456, 0.406]).view(1, 3, 1, 1)
STD = torch.tensor([0.229, 0.224, 0.225]).view(1, 3, 1, 1)


# ---------------------------------------------------------------- data, models

def image_like(n, seed, size=224):
    """n smooth random 'images', normalized as torchvision models expect:
    float32 [n,3,size,size]."""
    g = torch.Generator().manual_seed(seed)
    x = torch.zeros(n, 3, size, size)
    for res, amp in ((4, 1.0), (14, 0.6), (56, 0.3), (size, 0.1)):
        noise = torch.randn(n, 3, res, res, generator=g) * amp
        x += F.interpolate(noise, size=(size, size), mode="bilinear", align_corners=False)
    # per-image brightness and contrast, a shared colour cast per image
    x = x * (0.5 + torch.rand(n, 1, 1, 1, generator=g)) + torch.randn(n, 3, 1, 1, generator=g) * 0.3
    img = torch.sigmoid(x * 1.5)
    return ((img - MEAN) / STD).contiguous()


def recalibrate_bn(model, n=64, batch=16, seed=SEED_BN, size=224):
    """Running statistics that match image-like data (cumulative averages
    over n inputs), as a trained model has; then eval()."""
    for m in model.modules():
        if isinstance(m, nn.modules.batchnorm._BatchNorm):
            m.reset_running_stats()
            m.momentum = None
    model.train()
    x = image_like(n, seed, size)
    with torch.no_grad():
        for i in range(0, n, batch):
            model(x[i:i + batch])
    return model.eval()


def torchvision_model(name):
    import torchvision
    torch.manual_seed(0)
    return recalibrate_bn(getattr(torchvision.models, name)())


def digits_model():
    """The digits CNN as an nn.Module (FX needs one), with the weights of
    share/npu/examples/digits.pt."""
    sys.path.insert(0, os.path.join(TOP, "tests", "gen"))
    import digits
    m = digits.DigitsCNN()
    m.load_state_dict(torch.jit.load(os.path.join(EXAMPLES, "digits.pt")).state_dict())
    return m.eval()


def strip_archive(raw):
    """A TorchScript archive without its debug_pkl entries."""
    src = zipfile.ZipFile(io.BytesIO(raw))
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as dst:
        for info in src.infolist():
            if not info.filename.endswith(".debug_pkl"):
                zi = zipfile.ZipInfo(info.filename, date_time=(1980, 1, 1, 0, 0, 0))
                zi.compress_type = info.compress_type
                dst.writestr(zi, src.read(info.filename))
    return out.getvalue()


def run_batch1(fn, xs):
    """fn applied to each sample [1,...] of xs [N,1,...]; each output
    stacked [N,...] as float32 numpy: one array, or a list for a model with
    several outputs."""
    with torch.no_grad():
        outs = [fn(torch.from_numpy(x)) for x in xs]
    if isinstance(outs[0], (tuple, list)):
        return [np.stack([o[k].numpy() for o in outs]).astype(np.float32) for k in range(len(outs[0]))]
    return np.stack([o.numpy() for o in outs]).astype(np.float32)


def detector_model():
    """The fixture's detector as an nn.Module (FX needs one) with the
    weights of its model.pt."""
    sys.path.insert(0, os.path.join(TOP, "tests", "gen"))
    import detector_ptq
    m = detector_ptq.Detector()
    m.load_state_dict(torch.jit.load(os.path.join(DETECTOR, "model.pt")).state_dict())
    return m.eval()


class Case:
    """One model: nn.Module, TorchScript file, calibration and eval data
    ([N,1,...] float32, one model input per sample), float reference."""

    def __init__(self, name, work, ncalib, neval):
        self.name = name
        self.dir = os.path.join(work, name)
        os.makedirs(self.dir, exist_ok=True)
        self.labels = None
        self.outputs = None     # names of the outputs when there are several
        if name == "detector":
            self.module = detector_model()
            self.pt = os.path.join(DETECTOR, "model.pt")
            self.calib = np.load(os.path.join(DETECTOR, "calib.npz"))["x"][:, None]
            self.eval = np.load(os.path.join(DETECTOR, "eval.npz"))["x"][:, None]
            r = np.load(os.path.join(DETECTOR, "ref.npz"))
            self.outputs = ["boxes", "logits"]
            self.ref = [r["output_0"][:, None], r["output_1"][:, None]]
            got = run_batch1(self.module, self.eval[:4])
            assert all(np.allclose(a, b[:4], atol=1e-4) for a, b in zip(got, self.ref)), \
                "model.pt and Detector differ"
        elif name == "digits":
            self.module = digits_model()
            self.pt = os.path.join(EXAMPLES, "digits.pt")
            self.calib = np.load(os.path.join(EXAMPLES, "digits.calib.npy"))
            self.eval = np.load(os.path.join(EXAMPLES, "digits.test.npy"))
            self.ref = np.load(os.path.join(EXAMPLES, "digits.logits.npy"))[:, None]
            self.labels = np.load(os.path.join(EXAMPLES, "digits.labels.npy"))
            # the nn.Module must compute what the archive does
            got = run_batch1(self.module, self.eval[:32])
            assert np.allclose(got, self.ref[:32], atol=1e-4), "digits.pt and DigitsCNN differ"
        else:
            self.module = torchvision_model(name)
            self.calib = image_like(ncalib, SEED_CALIB).numpy()[:, None]
            self.eval = image_like(neval, SEED_EVAL).numpy()[:, None]
            with torch.no_grad():
                ts = torch.jit.trace(self.module, torch.from_numpy(self.eval[0]))
            buf = io.BytesIO()
            torch.jit.save(ts, buf)
            self.pt = os.path.join(self.dir, name + ".pt")
            with open(self.pt, "wb") as f:
                f.write(strip_archive(buf.getvalue()))
            self.ref = run_batch1(torch.jit.load(self.pt), self.eval)
        self.shape = ",".join(str(d) for d in self.eval.shape[1:])
        self.calib_path = os.path.join(self.dir, "calib.npy")
        np.save(self.calib_path, np.ascontiguousarray(self.calib, dtype=np.float32))
        self.eval_paths = []
        for i, x in enumerate(self.eval):
            p = os.path.join(self.dir, "eval_%d.npy" % i)
            np.save(p, np.ascontiguousarray(x, dtype=np.float32))
            self.eval_paths.append(p)


def sqnr(ref, q):
    ref = ref.astype(np.float64)
    noise = np.sum((ref - q.astype(np.float64)) ** 2)
    sig = np.sum(ref ** 2)
    if noise == 0:
        return math.inf
    return 10.0 * math.log10(sig / noise)


def case_sqnr(case, out):
    """SQNR of one output, or a list per output for a multi-output model."""
    if case.outputs:
        return [sqnr(r, o.reshape(r.shape)) for r, o in zip(case.ref, out)]
    return sqnr(case.ref, out)


def accuracy(out, labels):
    return float((np.argmax(out.reshape(len(labels), -1), 1) == labels).mean())


# ---------------------------------------------------------------- PyTorch PTQ

def torch_ptq(case, backend):
    """SQNR of PyTorch's FX PTQ on backend, or None if unsupported;
    returns (sqnr, outputs, seconds)."""
    from torch.ao.quantization import (HistogramObserver, QConfig, QConfigMapping,
                                       default_per_channel_weight_observer)
    from torch.ao.quantization.quantize_fx import convert_fx, prepare_fx
    if backend not in torch.backends.quantized.supported_engines:
        return None
    t0 = time.time()
    torch.backends.quantized.engine = backend
    qconfig = QConfig(activation=HistogramObserver.with_args(reduce_range=(backend == "fbgemm")),
                      weight=default_per_channel_weight_observer)
    mapping = QConfigMapping().set_global(qconfig)
    example = (torch.from_numpy(case.calib[0]),)
    prepared = prepare_fx(copy.deepcopy(case.module).eval(), mapping, example)
    with torch.no_grad():
        # batches of calibration samples: per-tensor observers see the same
        # values as batch-1 runs would give them
        calib = torch.from_numpy(np.concatenate(list(case.calib)))
        for i in range(0, len(calib), 16):
            prepared(calib[i:i + 16])
        q = convert_fx(prepared)
        out = run_batch1(q, case.eval)
    return case_sqnr(case, out), out, time.time() - t0


# ---------------------------------------------------------------- npukit

def fill(template, **kw):
    return [a.format(bin=BIN, **kw) for a in template]


def run(cmd):
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    if p.returncode != 0:
        msg = p.stderr.decode(errors="replace").strip().splitlines()
        raise RuntimeError(msg[-1] if msg else "%s: exit %d" % (cmd[0], p.returncode))
    return p


def npu_prepare(case):
    raw = os.path.join(case.dir, "import.ir")
    fused = os.path.join(case.dir, "fused.ir")
    run(fill(NPU_IMPORT, pt=case.pt, shape=case.shape, raw=raw))
    run(fill(NPU_FUSE, raw=raw, fused=fused))
    return fused


def npu_quant(case, fused, variant, jobs):
    """SQNR of npu-quant with one variant (METHOD[+FLAG...]); (sqnr,
    outputs, seconds)."""
    t0 = time.time()
    method, *flags = variant.split("+")
    extra = []
    for f in flags:
        if f not in VARIANT_ARGS:
            raise RuntimeError("unknown variant part '+%s' (%s)" % (f, ", ".join(VARIANT_ARGS)))
        extra += VARIANT_ARGS[f]
    tag = variant.replace(":", "_").replace(".", "_").replace("+", "_")
    q = os.path.join(case.dir, "q_%s.ir" % tag)
    run(fill(NPU_QUANT, fused=fused, calib=case.calib_path, method=method, q=q) + extra)

    def one(i):
        out = os.path.join(case.dir, "out_%s_%d.npz" % (tag, i))
        run(fill(NPU_RUN, q=q, input=case.eval_paths[i], output=out))
        with np.load(out) as z:
            ys = [z[k] for k in z.files]
        os.unlink(out)
        for y in ys:
            if not np.issubdtype(y.dtype, np.floating):
                raise RuntimeError("npu-run output is %s, not float (no dequantize at the output?)"
                                   % y.dtype)
        return [y.astype(np.float32) for y in ys]

    with concurrent.futures.ThreadPoolExecutor(max_workers=jobs) as ex:
        outs = list(ex.map(one, range(len(case.eval_paths))))
    refs = case.ref if case.outputs else [case.ref]
    got = []
    for k, ref in enumerate(refs):
        out = np.stack([o[k] for o in outs])
        if out.size != ref.size:
            raise RuntimeError("npu-run output has %d values, the reference %d" % (out.size, ref.size))
        got.append(out.reshape(ref.shape))
    if case.outputs:
        return [sqnr(r, o) for r, o in zip(refs, got)], got, time.time() - t0
    return sqnr(case.ref, got[0]), got[0], time.time() - t0


# ---------------------------------------------------------------- main

def fmt(v):
    if v is None:
        return "n/a"
    if isinstance(v, str):
        return v
    if isinstance(v, list):
        return "/".join(fmt(x) for x in v)
    return "inf" if math.isinf(v) else "%.2f" % v


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--calib", type=int, default=32, help="calibration samples (torchvision models)")
    ap.add_argument("--eval", type=int, default=16, help="evaluation samples (torchvision models)")
    ap.add_argument("--digits-eval", type=int, default=0,
                    help="digits test images to evaluate (default all)")
    ap.add_argument("--models", default=",".join(MODELS), help="comma-separated (%(default)s)")
    ap.add_argument("--methods", default=",".join(NPU_METHODS),
                    help="npu-quant --method values (%(default)s)")
    ap.add_argument("--backends", default=",".join(TORCH_BACKENDS), help="torch engines (%(default)s)")
    ap.add_argument("--work", help="keep the models, data and IR in this directory")
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 1,
                    help="npu-run processes at once (default: CPUs)")
    ap.add_argument("--torch-only", action="store_true", help="skip npukit")
    ap.add_argument("--json", help="write the results to this file")
    args = ap.parse_args()

    torch.set_num_threads(1)
    torch.manual_seed(0)
    models = [m for m in args.models.split(",") if m]
    methods = [m for m in args.methods.split(",") if m]
    backends = [b for b in args.backends.split(",") if b]

    have_npu = not args.torch_only
    if have_npu:
        missing = [t for t in ("npu-import-pt", "npu-fuse", "npu-quant", "npu-run")
                   if not os.access(os.path.join(BIN, t), os.X_OK)]
        if missing:
            print("note: %s missing from %s: PyTorch side only (run make)"
                  % (", ".join(missing), os.path.relpath(BIN)), file=sys.stderr)
            have_npu = False

    work = args.work or tempfile.mkdtemp(prefix="npukit-quant.")
    os.makedirs(work, exist_ok=True)
    results = {}
    try:
        for name in models:
            t0 = time.time()
            try:
                case = Case(name, work, args.calib, args.eval)
            except Exception as e:      # e.g. the digits net needs sklearn to build
                print("%s: skipped: %s: %s" % (name, type(e).__name__, str(e).splitlines()[0]),
                      file=sys.stderr, flush=True)
                continue
            if name == "digits" and args.digits_eval:
                n = args.digits_eval
                case.eval, case.ref, case.labels = case.eval[:n], case.ref[:n], case.labels[:n]
                case.eval_paths = case.eval_paths[:n]
            r = {"torch": {}, "npu": {}, "calib": len(case.calib), "eval": len(case.eval)}
            if case.labels is not None:
                r["acc"] = {"fp32": accuracy(case.ref, case.labels)}
            print("%s: %d calibration, %d evaluation samples of %s (%.1fs)"
                  % (name, len(case.calib), len(case.eval), case.shape, time.time() - t0),
                  file=sys.stderr, flush=True)
            for b in backends:
                try:
                    res = torch_ptq(case, b)
                except Exception as e:
                    res = "fail"
                    print("  torch %s: failed: %s" % (b, str(e).splitlines()[0]), file=sys.stderr)
                if isinstance(res, tuple):
                    r["torch"][b] = res[0]
                    if case.labels is not None:
                        r["acc"]["torch " + b] = accuracy(res[1], case.labels)
                    print("  torch %-8s SQNR %s dB (%.1fs)" % (b, fmt(res[0]), res[2]),
                          file=sys.stderr, flush=True)
                else:
                    r["torch"][b] = res
            if have_npu:
                try:
                    fused = npu_prepare(case)
                except Exception as e:
                    fused = None
                    print("  npukit import/fuse failed: %s" % e, file=sys.stderr)
                for m in methods:
                    if fused is None:
                        r["npu"][m] = "fail"
                        continue
                    try:
                        s, out, secs = npu_quant(case, fused, m, args.jobs)
                        r["npu"][m] = s
                        if case.labels is not None:
                            r["acc"]["npu " + m] = accuracy(out, case.labels)
                        print("  npu %-16s SQNR %s dB (%.1fs)" % (m, fmt(s), secs),
                              file=sys.stderr, flush=True)
                    except Exception as e:
                        r["npu"][m] = "fail"
                        print("  npu %s: failed: %s" % (m, e), file=sys.stderr, flush=True)
            if case.outputs:    # one row per output
                for k, o in enumerate(case.outputs):
                    results["%s %s" % (name, o)] = {
                        "torch": {b: (v[k] if isinstance(v, list) else v) for b, v in r["torch"].items()},
                        "npu": {m: (v[k] if isinstance(v, list) else v) for m, v in r["npu"].items()},
                        "calib": r["calib"], "eval": r["eval"]}
            else:
                results[name] = r
    finally:
        if not args.work:
            shutil.rmtree(work, ignore_errors=True)

    # the table
    head = ["model"] + ["torch %s" % b for b in backends]
    int8 = [m for m in methods if not any(f in ("a16", "w4") for f in m.split("+")[1:])]
    gain = "mse+w4" in methods and "mse+w4+ar" in methods
    if have_npu:
        head += ["npu %s" % m for m in methods] + ["best npu - torch"] + (["AdaRound gain w4"] if gain else [])
    rows = []
    verdict = True
    for name, r in results.items():
        row = [name] + [fmt(r["torch"][b]) for b in backends]
        tvals = [v for v in r["torch"].values() if isinstance(v, float)]
        if have_npu:
            row += [fmt(r["npu"][m]) for m in methods]
            nvals = [r["npu"][m] for m in int8 if isinstance(r["npu"][m], float)]
            if tvals and nvals:
                d = max(nvals) - max(tvals)
                r["best_npu_minus_torch_db"] = d
                row.append(("%+.2f" % d) if not math.isnan(d) else "n/a")
                verdict = verdict and d >= 0
            else:
                row.append("n/a")
                verdict = False
            if gain:
                a, b = r["npu"]["mse+w4+ar"], r["npu"]["mse+w4"]
                ok = isinstance(a, float) and isinstance(b, float)
                if ok:
                    r["adaround_gain_w4_db"] = a - b
                row.append("%+.2f" % (a - b) if ok else "n/a")
        rows.append(row)
    widths = [max(len(h), *(len(rw[i]) for rw in rows)) if rows else len(h)
              for i, h in enumerate(head)]
    import platform
    cpu = next((l.split(":", 1)[1].strip() for l in open("/proc/cpuinfo") if l.startswith("model name")),
               platform.processor() or "unknown CPU")
    print("SQNR in dB of the quantized model's output vs the float model's, over all evaluation samples"
          " (%s, torch %s)" % (cpu, torch.__version__))
    print("| " + " | ".join(h.ljust(w) for h, w in zip(head, widths)) + " |")
    print("|" + "|".join("-" * (w + 2) for w in widths) + "|")
    for rw in rows:
        print("| " + " | ".join(c.ljust(w) for c, w in zip(rw, widths)) + " |")
    for name, r in results.items():
        if "acc" in r:
            print("%s top-1 accuracy on %d test images: %s" % (
                name, r["eval"], ", ".join("%s %.4f" % kv for kv in r["acc"].items())))
    if have_npu:
        print("verdict: npukit's best method %s PyTorch's best backend on every model"
              % ("matches or beats" if verdict else "does NOT match"))
    else:
        print("verdict: none (npu-quant missing: PyTorch side only)")
    if args.json:
        with open(args.json, "w") as f:
            json.dump(results, f, indent=1, default=str)
    return 0


if __name__ == "__main__":
    sys.exit(main())
