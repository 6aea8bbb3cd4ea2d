#!/bin/sh
# quant.sh - npu-quant (int8, every calibration method) against PyTorch's
# FX post-training quantization, by SQNR of the model output vs the float
# model, on torchvision mobilenet_v2 and resnet18 (224x224) and the bundled
# digits CNN. See bench/quant.py for the options (--calib N, --eval N,
# --methods, --models, --work DIR, --json FILE, --torch-only).
#
#   bench/quant.sh [OPTIONS]        (run `make` first)
set -eu
TOP=$(cd "$(dirname "$0")/.." && pwd)
exec /usr/bin/python3 "$TOP/bench/quant.py" "$@"
