#!/bin/sh
# fuse_torchvision.sh - npu-fuse on full-size torchvision resnet18 and
# mobilenet_v2 (too large for tests/data): traced with /usr/bin/python3
# (random weights, seed 0, BatchNorm statistics from three train-mode
# batches), imported with npu-import-pt, checked against PyTorch's output,
# fused with --all, and checked again: no batch_norm may be left and the
# fused output must equal the unfused one within 1e-5 of its magnitude.
#
#   bench/fuse_torchvision.sh        (run `make` first)
set -eu
TOP=$(cd "$(dirname "$0")/.." && pwd)
BIN=${NPU_BIN:-$TOP/bin}
W=$(mktemp -d "${TMPDIR:-/tmp}/npukit-fuse.XXXXXX")
trap 'rm -rf "$W"' EXIT
cd "$W"
/usr/bin/python3 - <<'PY' 2>/dev/null
import numpy as np, torch, torchvision
for n in ["resnet18", "mobilenet_v2"]:
    torch.manual_seed(0)
    m = getattr(torchvision.models, n)()
    m.train()
    with torch.no_grad():
        for _ in range(3):
            m(torch.randn(4, 3, 224, 224))
    m.eval()
    x = torch.randn(1, 3, 224, 224)
    torch.jit.trace(m, x).save(n + ".pt")
    with torch.no_grad():
        np.save(n + ".out.npy", m(x).numpy())
    np.save(n + ".in.npy", x.numpy())
PY
status=0
for n in resnet18 mobilenet_v2; do
	"$BIN/npu-import-pt" "$n.pt" --input 0:1,3,224,224 -o "$n.ir"
	"$BIN/npu-fuse" -v "$n.ir" -o "$n.fused.ir"
	before=$("$BIN/npu-dump" --json "$n.ir" | grep -c '"op": "batch_norm"' || true)
	after=$("$BIN/npu-dump" --json "$n.fused.ir" | grep -c '"op": "batch_norm"' || true)
	echo "$n: batch_norm nodes $before -> $after"
	[ "$after" -eq 0 ] || status=1
	"$BIN/npu-run" "$n.ir" -i "$n.in.npy" -o "$n.a.npy" --compare "$n.out.npy" || status=1
	"$BIN/npu-run" "$n.fused.ir" -i "$n.in.npy" --compare "$n.a.npy" --rtol 1e-5 --atol 0 || status=1
done
exit $status
