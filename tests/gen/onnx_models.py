#!/usr/bin/python3
"""Regenerate the ONNX fixtures: run with Debian's python3-torch from the
repository root:  /usr/bin/python3 tests/gen/onnx_models.py

Writes, for each model, MODEL.onnx plus MODEL.input.npy and MODEL.output.npy
(PyTorch's own output for that input, the reference for npu-run):
  share/npu/examples/squeezenet1_1.onnx  torchvision squeezenet1_1, random weights
  tests/data/tinycnn.onnx               small CNN: conv/bn/relu6/depthwise/pool/fc/softmax
and MODEL.expect: ONNX shape inference per tensor and op counts per op type.
"""
import os
import numpy as np
import torch
import torch.nn as nn
import torchvision

torch.manual_seed(0)
torch.set_num_threads(1)


class TinyCNN(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 8, 3, stride=1, padding=1)
        self.bn1 = nn.BatchNorm2d(8)
        self.dw = nn.Conv2d(8, 8, 3, padding=1, groups=8, bias=False)
        self.pw = nn.Conv2d(8, 16, 1)
        self.pool = nn.MaxPool2d(2)
        self.fc = nn.Linear(16 * 4 * 4, 10)

    def forward(self, x):
        x = torch.relu(self.bn1(self.conv1(x)))
        x = self.pool(x)
        x = nn.functional.relu6(self.pw(self.dw(x)))
        x = self.pool(x)
        x = torch.flatten(x, 1)
        return torch.softmax(self.fc(x), dim=1)


def export(model, shape, path):
    model.eval()
    # BN statistics that are not the identity, so folding and import are tested.
    for m in model.modules():
        if isinstance(m, nn.BatchNorm2d):
            m.running_mean.uniform_(-0.5, 0.5)
            m.running_var.uniform_(0.5, 2.0)
            m.weight.data.uniform_(0.5, 1.5)
            m.bias.data.uniform_(-0.2, 0.2)
    x = torch.rand(*shape)
    with torch.no_grad():
        y = model(x)
        torch.onnx.export(model, x, path, opset_version=13,
                          input_names=["input"], output_names=["output"],
                          do_constant_folding=True)
    base = path[:-len(".onnx")]
    np.save(base + ".input.npy", x.numpy())
    np.save(base + ".output.npy", y.numpy())
    print(path, os.path.getsize(path), "bytes")


os.makedirs("share/npu/examples", exist_ok=True)
os.makedirs("tests/data", exist_ok=True)
export(torchvision.models.squeezenet1_1(), (1, 3, 224, 224),
       "share/npu/examples/squeezenet1_1.onnx")
export(TinyCNN(), (1, 1, 16, 16), "tests/data/tinycnn.onnx")


def write_expectations(onnx_path, out_path):
    """ONNX's own shape inference and op counts, the reference for the
    importer's shapes (tests/unit/test_import_shapes.c)."""
    import onnx
    from onnx import shape_inference
    m = shape_inference.infer_shapes(onnx.load(onnx_path))
    lines = []
    for vi in list(m.graph.value_info) + list(m.graph.output):
        dims = [d.dim_value for d in vi.type.tensor_type.shape.dim]
        lines.append("shape %s %s" % (vi.name, ",".join(map(str, dims))))
    counts = {}
    for n in m.graph.node:
        counts[n.op_type] = counts.get(n.op_type, 0) + 1
    for op in sorted(counts):
        lines.append("count %s %d" % (op, counts[op]))
    with open(out_path, "w") as f:
        f.write("\n".join(lines) + "\n")


write_expectations("share/npu/examples/squeezenet1_1.onnx", "tests/data/squeezenet1_1.expect")
write_expectations("tests/data/tinycnn.onnx", "tests/data/tinycnn.expect")
