#!/bin/sh
# import_pt.sh - npu-import-pt against torch.jit.load on a traced torchvision
# resnet18 (a 47 MB TorchScript archive): time and peak memory, in the same
# run, interleaved round by round (bench/interleave.py).
#
#   bench/import_pt.sh [ROUNDS]        (default 7; run `make` first)
#
# npu-import-pt is timed end to end as a user runs it (a process reading the
# archive, importing and writing the IR file, zstd-compressed, to a scratch
# directory); torch.jit.load in one Python process after a warm-up load, so
# Python's and torch's start-up are not counted against it. Wall and CPU
# (user + system) milliseconds; a ratio is the median over rounds of
# npu / torch, with min-max (1.0: as fast). On a shared machine the CPU
# ratio is the steadier one.
#
# Memory: the peak RSS of the npu-import-pt process (GNU time's "maximum
# resident set size", from wait4) against the model's weight bytes (the
# goal: at most 2x the weights + 20 MB), and, for scale, how much
# torch.jit.load raises a Python process's peak RSS (measured in a fresh
# process after `import torch`). The imported model is run once on a random
# input and compared with the traced module.
set -eu
TOP=$(cd "$(dirname "$0")/.." && pwd)
BIN=${NPU_BIN:-$TOP/bin}
R=${1:-7}
W=$(mktemp -d "${TMPDIR:-/tmp}/npukit-bench.XXXXXX")
trap 'rm -rf "$W"' EXIT
/usr/bin/python3 - "$W" <<'EOF' 2>/dev/null
import sys, numpy as np, torch, torchvision
w = sys.argv[1]
torch.manual_seed(0)
m = torchvision.models.resnet18().eval()
x = torch.randn(1, 3, 224, 224)
with torch.no_grad():
    t = torch.jit.trace(m, x)
    torch.jit.save(t, w + "/resnet18.pt")
    np.save(w + "/input.npy", x.numpy())
    np.save(w + "/output.npy", t(x).numpy())
EOF
PYTHONPATH=$TOP/bench /usr/bin/python3 - "$W" "$R" "$BIN" <<'EOF'
import os, resource, statistics, subprocess, sys, time
import torch
from interleave import cpu_model, interleave
w, rounds, bin_ = sys.argv[1], int(sys.argv[2]), sys.argv[3]
pt = w + "/resnet18.pt"
rss = []

cpu = {"npu": [], "torch": []}

def npu():
    # through GNU time: its child's peak RSS starts from nothing (a child
    # forked from this Python would inherit torch's pages in ru_maxrss)
    start = time.perf_counter()
    subprocess.run(["/usr/bin/time", "-f", "%U %S %M", "-o", w + "/time", bin_ + "/npu-import-pt", pt,
                    "--input", "0:1,3,224,224", "-o", w + "/resnet18.ir"], check=True)
    ms = (time.perf_counter() - start) * 1e3
    u, s_, m = open(w + "/time").read().split()[-3:]
    cpu["npu"].append((float(u) + float(s_)) * 1e3)
    rss.append(int(m) / 1024)
    return ms

def torch_load():
    start, c0 = time.perf_counter(), time.process_time()
    torch.jit.load(pt)
    cpu["torch"].append((time.process_time() - c0) * 1e3)
    return (time.perf_counter() - start) * 1e3

torch_load()
times = interleave([("torch", torch_load), ("npu", npu)], rounds)
ratios = sorted(n / t for n, t in zip(times["npu"], times["torch"]))
cratios = sorted(n / t for n, t in zip(cpu["npu"], cpu["torch"]))
# VmRSS before the load, VmHWM (reset by clear_refs) after it
grow = subprocess.run([sys.executable, "-c", "import sys, torch\n"
                       "def kb(k): return int([l for l in open('/proc/self/status') if l.startswith(k)][0].split()[1])\n"
                       "open('/proc/self/clear_refs', 'w').write('5')\n"
                       "r0 = kb('VmRSS:')\n"
                       "torch.jit.load(sys.argv[1])\n"
                       "print('%.1f' % ((kb('VmHWM:') - r0) / 1024))", pt],
                      capture_output=True, text=True).stdout.strip() or "?"
ir = subprocess.run([bin_ + "/npu-dump", "-m", w + "/resnet18.ir"], capture_output=True, text=True).stdout
weights = sum(p.numel() * p.element_size() for p in torch.jit.load(pt).state_dict().values()) / 2**20
chk = subprocess.run([bin_ + "/npu-run", w + "/resnet18.ir", "-i", w + "/input.npy", "--compare", w + "/output.npy"],
                     capture_output=True).returncode == 0
print("# npu-import-pt vs torch.jit.load, resnet18 (%.1f MB archive, %.1f MiB of weights), %d interleaved rounds"
      % (os.path.getsize(pt) / 1e6, weights, rounds))
print("# CPU: %s" % cpu_model())
print("%-12s %10s %10s %22s" % ("median", "torch_ms", "npu_ms", "npu/torch (min-max)"))
print("%-12s %10.1f %10.1f %10.2f (%.2f-%.2f)" % ("wall", statistics.median(times["torch"]),
      statistics.median(times["npu"]), statistics.median(ratios), ratios[0], ratios[-1]))
print("%-12s %10.1f %10.1f %10.2f (%.2f-%.2f)" % ("CPU", statistics.median(cpu["torch"]),
      statistics.median(cpu["npu"]), statistics.median(cratios), cratios[0], cratios[-1]))
print("npu-import-pt peak RSS: %.1f MiB (max over rounds; goal <= 2 x weights + 20 = %.1f MiB)"
      % (max(rss), 2 * weights + 20))
print("torch.jit.load raises a Python process's peak RSS by %s MiB" % grow)
print("check: %s" % ("the imported model matches torch" if chk else "MISMATCH"))
EOF
