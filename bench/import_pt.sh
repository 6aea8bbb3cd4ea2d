#!/bin/sh
# import_pt.sh - npu-import-pt against torch.jit.load on a traced torchvision
# resnet18 (a 47 MB TorchScript archive), in the same run. Prints the best of
# REPEAT times of each and the ratio npu_ms / torch_ms (how many times longer
# the import takes than torch's own loading; it also writes the IR).
#
#   bench/import_pt.sh [REPEAT]        (default 5; run `make` first)
#
# npu-import-pt is timed end to end as a user runs it: reading the archive,
# the import, and writing the IR file (zstd-compressed) to a scratch
# directory. torch.jit.load is timed in one Python process after a warm-up
# load, so Python's start-up is not counted against it. The imported model
# is run once on a random input and compared with the traced module.
set -eu
TOP=$(cd "$(dirname "$0")/.." && pwd)
BIN=${NPU_BIN:-$TOP/bin}
R=${1:-5}
W=$(mktemp -d "${TMPDIR:-/tmp}/npukit-bench.XXXXXX")
trap 'rm -rf "$W"' EXIT
/usr/bin/python3 - "$W" "$R" <<'EOF' 2>/dev/null >"$W/torch.txt"
import sys, time, numpy as np, torch, torchvision
w, r = sys.argv[1], int(sys.argv[2])
torch.manual_seed(0)
m = torchvision.models.resnet18().eval()
x = torch.randn(1, 3, 224, 224)
with torch.no_grad():
    t = torch.jit.trace(m, x)
    torch.jit.save(t, w + "/resnet18.pt")
    np.save(w + "/input.npy", x.numpy())
    np.save(w + "/output.npy", t(x).numpy())
torch.jit.load(w + "/resnet18.pt")
best = float("inf")
for _ in range(r):
    start = time.perf_counter()
    torch.jit.load(w + "/resnet18.pt")
    best = min(best, time.perf_counter() - start)
print("%.2f" % (best * 1e3))
EOF
tms=$(cat "$W/torch.txt")
size=$(wc -c <"$W/resnet18.pt")
best=
i=0
while [ "$i" -lt "$R" ]; do
	s=$(date +%s%N)
	"$BIN/npu-import-pt" "$W/resnet18.pt" --input 0:1,3,224,224 -o "$W/resnet18.ir"
	e=$(date +%s%N)
	ms=$(( (e - s) / 1000 ))
	[ -z "$best" ] || [ "$ms" -lt "$best" ] && best=$ms
	i=$((i + 1))
done
nms=$(echo "$best" | awk '{printf "%.2f", $1 / 1000}')
if "$BIN/npu-run" "$W/resnet18.ir" -i "$W/input.npy" --compare "$W/output.npy" >/dev/null 2>&1; then
	chk="matches torch"
else
	chk="MISMATCH"
fi
printf '%-10s %10s %14s %10s %8s  %s\n' model MB torch_load_ms npu_ms ratio check
printf '%-10s %10.1f %14.2f %10.2f %8.2f  %s\n' resnet18 "$(echo "$size" | awk '{print $1 / 1e6}')" "$tms" "$nms" \
	"$(echo "$nms $tms" | awk '{print $1 / $2}')" "$chk"
