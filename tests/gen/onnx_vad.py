#!/usr/bin/python3
"""A voice-activity model in the shape real exported VADs have (Silero VAD
style), for npu-import-onnx's constant folding, --const and If:
    /usr/bin/python3 tests/gen/onnx_vad.py     (from the repository root)

The network (conv front end over a padded 512-sample chunk, LSTM over the
frames with its state as an input and an output, linear + sigmoid + mean)
is exported twice by torch.onnx, for 16 kHz and for 8 kHz (other weights,
stride and padding). onnx.helper wraps both exports as the branches of
    If(Not(Equal(sr, 8000)))
on an int64 input `sr`, and builds the reflect Pad in front of them with
pads computed the way exporters write them: Shape/Gather/Div of the input,
Where(Equal(sr, 16000), ...), Split and Concat of stored constants,
ConstantOfShape, Reshape, a reversing Slice, Transpose, Cast.

Writes tests/data/families/vad_if/ (the family layout: model.onnx, args,
calib.npz, in.npz, out.npz) and tests/data/onnx/vad_if_8k.out.npz (the
outputs for in.npz with --const sr=8000), and tests/data/onnx/pad_dynamic.onnx
(+ .input.npy, .output.npy): torch.onnx's own export, with a dynamic time
axis, of F.pad(x, (0, T // 8), mode='reflect') and a nearest x2
interpolate, whose pads and sizes are Shape arithmetic. The reference outputs are
PyTorch's: the module of that rate run on the same chunk, padded by
F.pad(..., mode='reflect').
"""
import io
import os
import numpy as np
import onnx
from onnx import helper, TensorProto, numpy_helper
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
torch.set_num_threads(1)
OUT = "tests/data/families/vad_if"
N, H = 512, 32


class Core(nn.Module):
    """One sample rate's network, on the padded chunk xp [1, 1, L]."""

    def __init__(self, stride):
        super().__init__()
        self.front = nn.Conv1d(1, 16, 64, stride=stride)
        self.conv = nn.Conv1d(16, 16, 3, padding=1)
        self.lstm = nn.LSTM(16, H, batch_first=True)
        self.fc = nn.Linear(H, 1)

    def forward(self, xp, state):
        y = torch.relu(self.front(xp))
        y = torch.relu(self.conv(y))
        y, (h, c) = self.lstm(y.transpose(1, 2), (state[0:1], state[1:2]))
        p = torch.sigmoid(self.fc(y))           # [1, T, 1]
        return p.mean(dim=1), torch.cat([h, c], 0)


def export(core, pad):
    xp = torch.randn(1, 1, N + pad)
    st = torch.zeros(2, 1, H)
    f = io.BytesIO()
    torch.onnx.export(core, (xp, st), f, input_names=["xp", "state"], output_names=["out", "stateN"],
                      opset_version=14)
    return onnx.load_from_string(f.getvalue()).graph


def as_branch(g, prefix, outer):
    """The exported graph as an If branch: no inputs, every inner name
    prefixed (the two exports use the same names), outer names kept."""
    def rn(name):
        return name if name in outer or name == "" else prefix + name
    for n in g.node:
        n.name = prefix + (n.name or n.op_type)
        n.input[:] = [rn(x) for x in n.input]
        n.output[:] = [rn(x) for x in n.output]
    inits = []
    for t in g.initializer:
        t.name = rn(t.name)
        inits.append(t)
    outs = [helper.make_tensor_value_info(rn(o.name), TensorProto.FLOAT, None) for o in g.output]
    return helper.make_graph(list(g.node), prefix + "branch", [], outs, inits)


def const(name, values, dtype=np.int64):
    return helper.make_node("Constant", [], [name], name=name,
                            value=numpy_helper.from_array(np.array(values, dtype=dtype), name))


def main():
    core16, core8 = Core(32).eval(), Core(16).eval()
    g16 = as_branch(export(core16, 64), "b16/", {"xp", "state"})
    g8 = as_branch(export(core8, 32), "b8/", {"xp", "state"})
    # the branches read xp (the padded chunk) and state from the outer graph
    for g in (g16, g8):
        for n in g.node:
            n.input[:] = ["xp_outer" if x == "xp" else x for x in n.input]
    nodes = [
        helper.make_node("Unsqueeze", ["input", "axis1"], ["x3"], name="unsqueeze"),
        const("axis1", [1]),
        # pad amount: 64 at 16 kHz (= N / 8), 32 at 8 kHz
        helper.make_node("Shape", ["x3"], ["x3_shape"], name="shape"),
        const("two", 2),
        helper.make_node("Gather", ["x3_shape", "two"], ["len"], name="len", axis=0),
        const("eight", 8),
        helper.make_node("Div", ["len", "eight"], ["pad16"], name="pad16"),
        const("sr16k", 16000),
        helper.make_node("Equal", ["sr", "sr16k"], ["is16k"], name="is16k"),
        const("pad8", 32),
        helper.make_node("Where", ["is16k", "pad16", "pad8"], ["padn"], name="padn"),
        helper.make_node("Unsqueeze", ["padn", "axis0"], ["padv"], name="padv"),
        const("axis0", [0]),
        # torch's F.pad pattern: [left, right] of the last dim, zeros for the rest
        const("lr_zero", [0, 0, 0, 0, 0], dtype=np.int32),
        helper.make_node("Split", ["lr_zero", "split_sizes"], ["left", "rest"], name="split", axis=0),
        const("split_sizes", [1, 4]),
        helper.make_node("Cast", ["left"], ["left64"], name="left64", to=TensorProto.INT64),
        helper.make_node("Cast", ["rest"], ["rest64"], name="rest64", to=TensorProto.INT64),
        helper.make_node("Concat", ["left64", "padv", "rest64"], ["pads_torch"], name="concat", axis=0),
        const("pairs", [-1, 2]),
        helper.make_node("Reshape", ["pads_torch", "pairs"], ["pads_pairs"], name="pairs_reshape"),
        const("sl_start", [-1]), const("sl_end", [-(2 ** 63) + 1]), const("sl_axes", [0]), const("sl_step", [-1]),
        helper.make_node("Slice", ["pads_pairs", "sl_start", "sl_end", "sl_axes", "sl_step"], ["pads_rev"],
                         name="reverse"),
        helper.make_node("Transpose", ["pads_rev"], ["pads_t"], name="pads_t", perm=[1, 0]),
        const("flat", [-1]),
        helper.make_node("Reshape", ["pads_t", "flat"], ["pads_f"], name="pads_flat"),
        helper.make_node("Cast", ["pads_f"], ["pads"], name="pads_cast", to=TensorProto.INT64),
        helper.make_node("Pad", ["x3", "pads"], ["xp_outer"], name="pad", mode="reflect"),
        # which network: If(Not(Equal(sr, 8000)))
        const("sr8k", 8000),
        helper.make_node("Equal", ["sr", "sr8k"], ["is8k"], name="is8k"),
        helper.make_node("Not", ["is8k"], ["not8k"], name="not8k"),
        helper.make_node("If", ["not8k"], ["output", "stateN"], name="rate_switch",
                         then_branch=g16, else_branch=g8),
    ]
    # constants first, then the rest in order: a topological order
    nodes = [n for n in nodes if n.op_type == "Constant"] + [n for n in nodes if n.op_type != "Constant"]
    graph = helper.make_graph(
        nodes, "vad_if",
        [helper.make_tensor_value_info("input", TensorProto.FLOAT, [1, N]),
         helper.make_tensor_value_info("sr", TensorProto.INT64, []),
         helper.make_tensor_value_info("state", TensorProto.FLOAT, [2, 1, H])],
        [helper.make_tensor_value_info("output", TensorProto.FLOAT, [1, 1]),
         helper.make_tensor_value_info("stateN", TensorProto.FLOAT, [2, 1, H])])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 14)],
                              producer_name="npukit tests/gen/onnx_vad.py")
    model.ir_version = 7
    onnx.checker.check_model(model)
    os.makedirs(OUT, exist_ok=True)
    onnx.save(model, os.path.join(OUT, "model.onnx"))

    def ref(x, st, core=core16, pad=64):
        with torch.no_grad():
            xp = F.pad(torch.from_numpy(x).unsqueeze(1), (0, pad), mode="reflect")
            o, s = core(xp, torch.from_numpy(st))
        return o.numpy(), s.numpy()

    rng = np.random.default_rng(0)
    t = np.arange(N, dtype=np.float32) / 16000
    x = (0.3 * np.sin(2 * np.pi * 440 * t) + 0.05 * rng.standard_normal(N)).astype(np.float32)[None]
    st = (0.1 * rng.standard_normal((2, 1, H))).astype(np.float32)
    o, s = ref(x, st)
    np.savez(os.path.join(OUT, "in.npz"), input=x, state=st)
    np.savez(os.path.join(OUT, "out.npz"), output=o, stateN=s)
    o8, s8 = ref(x, st, core8, 32)
    np.savez("tests/data/onnx/vad_if_8k.out.npz", output=o8, stateN=s8)
    # calibration: a few chunks, the state carried from chunk to chunk
    xs, sts, cur = [], [], np.zeros((2, 1, H), np.float32)
    for k in range(8):
        xk = (0.2 * rng.standard_normal((1, N))).astype(np.float32)
        xs.append(xk[0:1])
        sts.append(cur)
        _, cur = ref(xk, cur)
    np.savez(os.path.join(OUT, "calib.npz"), input=np.stack(xs), state=np.stack(sts))
    with open(os.path.join(OUT, "args"), "w") as f:
        f.write("--const sr=16000\n")


class PadDynamic(nn.Module):
    def forward(self, x):
        y = F.pad(x, (0, x.shape[-1] // 8), mode="reflect")
        return F.interpolate(y, scale_factor=2.0, mode="nearest")


def pad_dynamic():
    x = torch.randn(1, 2, 64)
    path = "tests/data/onnx/pad_dynamic"
    torch.onnx.export(PadDynamic(), x, path + ".onnx", input_names=["x"], output_names=["y"], opset_version=14,
                      dynamic_axes={"x": {2: "T"}})
    with torch.no_grad():
        y = PadDynamic()(x)
    np.save(path + ".input.npy", x.numpy())
    np.save(path + ".output.npy", y.numpy())


main()
pad_dynamic()
