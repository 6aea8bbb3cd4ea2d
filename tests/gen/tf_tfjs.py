#!/usr/bin/python3
"""tf_tfjs.py - TensorFlow.js graph models for t3000-import-tf.sh and the
model-family test (t7000): model.json + weight shards as the TensorFlow.js
converter writes them, with the fused ops its graph optimizer makes
(_FusedConv2D, FusedDepthwiseConv2dNative, _FusedMatMul with BiasAdd and
Relu/Relu6/Prelu/LeakyRelu/Elu/Sigmoid), Prelu, GatherNd, FloorDiv.

Debian has no TensorFlow, so model.json is written here in the converter's
format: modelTopology is a GraphDef in protobuf's JSON mapping (int64 as
strings, bytes as base64), weightsManifest one group whose weights run
through two shards (the cut falls inside a weight, as the converter's
4 MB split does); weights are uint8- or uint16-quantized (v * scale + min),
float16 or float32 as --quantize_uint8/_uint16/_float16 patterns give.

Expected outputs come from TensorFlow.js itself (tests/gen/tf_tfjs_expect.js
loads the model with tfjs-converter, which dequantizes the weights), so the
comparison covers npukit's dequantization too. npm install --ignore-scripts
@tensorflow/tfjs-core@4.22.0 @tensorflow/tfjs-backend-cpu@4.22.0
@tensorflow/tfjs-converter@4.22.0 in the directory TFJS (default /tmp/tfjs).

Run: /usr/bin/python3 tests/gen/tf_tfjs.py
  writes tests/data/families/tfjs_blazeface/ and tests/data/tf/tfjs_landmark/
"""
import base64
import json
import os
import shutil
import subprocess
import tempfile

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
DATA = os.path.join(HERE, "..", "data")
F32 = {"type": "DT_FLOAT"}


def b64(s):
    return base64.b64encode(s.encode()).decode()


def ints(v):
    return {"list": {"i": [str(int(x)) for x in v]}}


def s(v):
    return {"s": b64(v)}


def shape(dims):
    return {"dim": [{"size": str(d)} for d in dims]}


class Model:
    def __init__(self, seed):
        self.nodes, self.weights = [], []
        self.rng = np.random.RandomState(seed)

    def node(self, name, op, inputs=(), **attr):
        self.nodes.append({"name": name, "op": op, "input": list(inputs), "attr": attr})
        return name

    def const(self, name, value, quant=None):
        value = np.asarray(value)
        value = value.astype(np.int32 if value.dtype.kind in "iu" else np.float32)
        dt = "DT_INT32" if value.dtype == np.int32 else "DT_FLOAT"
        self.weights.append((name, value, quant))
        return self.node(name, "Const", (), value={"tensor": {"dtype": dt, "tensorShape": shape(value.shape)}},
                         dtype={"type": dt})

    def weight(self, name, shp, scale=0.5, quant=None, positive=False):
        v = self.rng.randn(*shp) * scale
        return self.const(name, np.abs(v) + 0.1 if positive else v, quant)

    def placeholder(self, name, dims):
        return self.node(name, "Placeholder", (), dtype=F32, shape={"shape": shape(dims)})

    def fused_conv(self, name, x, k, cin, cout, ops, stride=1, dw=False, alpha=0.2, quant=None, dil=1):
        w = self.weight(name + "/weights", [k, k, cin, 1 if dw else cout], 0.4, quant)
        args = []
        if ops and ops[0] == "BiasAdd":
            args.append(self.weight(name + "/bias", [cin if dw else cout], 0.1))
        if "Prelu" in ops:
            args.append(self.weight(name + "/alpha", [cin if dw else cout], 0.2, positive=True))
        return self.node(name, "FusedDepthwiseConv2dNative" if dw else "_FusedConv2D", [x, w] + args, T=F32,
                         strides=ints([1, stride, stride, 1]), padding=s("SAME"), data_format=s("NHWC"),
                         dilations=ints([1, dil, dil, 1]), explicit_paddings={"list": {}},
                         use_cudnn_on_gpu={"b": True}, num_args={"i": str(len(args))},
                         fused_ops={"list": {"s": [b64(o) for o in ops]}}, epsilon={"f": 0},
                         leakyrelu_alpha={"f": alpha})

    def fused_matmul(self, name, x, n_in, n_out, ops, quant=None, transpose_b=False, alpha=0.2):
        w = self.weight(name + "/weights", [n_out, n_in] if transpose_b else [n_in, n_out], 1 / np.sqrt(n_in), quant)
        args = [self.weight(name + "/bias", [n_out], 0.1)]
        if "Prelu" in ops:
            args.append(self.weight(name + "/alpha", [n_out], 0.2, positive=True))
        return self.node(name, "_FusedMatMul", [x, w] + args, T=F32, transpose_a={"b": False},
                         transpose_b={"b": transpose_b}, num_args={"i": str(len(args))},
                         fused_ops={"list": {"s": [b64(o) for o in ops]}}, epsilon={"f": 0},
                         leakyrelu_alpha={"f": alpha})

    def write(self, out, inputs, outputs, split):
        """model.json and two shards (the first `split` of the bytes, then the rest)."""
        specs, data = [], b""
        for name, v, quant in self.weights:
            spec = {"name": name, "shape": list(v.shape), "dtype": "int32" if v.dtype == np.int32 else "float32"}
            if quant in ("uint8", "uint16"):
                top = 255 if quant == "uint8" else 65535
                mn, mx = float(v.min()), float(v.max())
                scale = (mx - mn) / top if mx > mn else 1.0
                q = np.clip(np.round((v - mn) / scale), 0, top).astype("<u2" if top > 255 else np.uint8)
                spec["quantization"] = {"dtype": quant, "min": mn, "scale": scale, "original_dtype": "float32"}
                data += q.tobytes()
            elif quant == "float16":
                spec["quantization"] = {"dtype": "float16", "original_dtype": "float32"}
                data += v.astype("<f2").tobytes()
            else:
                data += v.astype(v.dtype.newbyteorder("<")).tobytes()
            specs.append(spec)
        cut = int(len(data) * split)
        paths = ["group1-shard1of2.bin", "group1-shard2of2.bin"]
        sig = {"inputs": {k + ":0": {"name": k + ":0", "dtype": "DT_FLOAT", "tensorShape": shape(d)}
                          for k, d in inputs.items()},
               "outputs": {k + ":0": {"name": k + ":0", "dtype": "DT_FLOAT"} for k in outputs}}
        model = {"format": "graph-model", "generatedBy": "2.15.0", "convertedBy": "TensorFlow.js Converter v4.22.0",
                 "signature": sig,
                 "modelTopology": {"node": self.nodes, "library": {}, "versions": {"producer": 1645}},
                 "weightsManifest": [{"paths": paths, "weights": specs}]}
        os.makedirs(out, exist_ok=True)
        with open(os.path.join(out, "model.json"), "w") as f:
            json.dump(model, f, indent=1)
            f.write("\n")
        for p, b in zip(paths, (data[:cut], data[cut:])):
            with open(os.path.join(out, p), "wb") as f:
                f.write(b)


def tfjs_run(out, feeds, names=None):
    """TensorFlow.js's outputs for feeds {name: array}: {name: array}."""
    tfjs = os.environ.get("TFJS", "/tmp/tfjs")
    d = tempfile.mkdtemp()
    inp = {k: {"shape": list(v.shape), "data": v.ravel().tolist()} for k, v in feeds.items()}
    if names:
        inp["__outputs"] = names
    with open(os.path.join(d, "in.json"), "w") as f:
        json.dump(inp, f)
    subprocess.run(["node", os.path.join(HERE, "tf_tfjs_expect.js"), out, os.path.join(d, "in.json"),
                    os.path.join(d, "out.json")], check=True,
                   env=dict(os.environ, NODE_PATH=os.path.join(tfjs, "node_modules")))
    with open(os.path.join(d, "out.json")) as f:
        res = json.load(f)
    shutil.rmtree(d)
    # IR outputs are named after their nodes ("Identity" for "Identity:0")
    # TF.js's FloorDiv of floats gives int32 (TensorFlow's: float32, the
    # same values); the graphs here have float outputs only
    return {k[:-2] if k.endswith(":0") else k: np.array(v["data"], np.float32).reshape(v["shape"])
            for k, v in res.items()}


def blazeface():
    """A BlazeFace-like detector: BlazeBlocks (fused depthwise + pointwise
    convolutions with residuals, channel padding), Prelu, anchors' class and
    box heads; conv kernels uint8-quantized, the rest float32."""
    m = Model(11)
    u8 = "uint8"
    x = m.placeholder("input_1", [-1, 32, 32, 3])
    c0 = m.fused_conv("conv0", x, 5, 3, 12, ["BiasAdd", "Relu"], stride=2, quant=u8)             # 16x16x12
    d1 = m.fused_conv("block1/dw", c0, 3, 12, 12, ["BiasAdd"], dw=True, quant=u8)
    p1 = m.fused_conv("block1/pw", d1, 1, 12, 12, ["BiasAdd"], quant=u8)
    a1 = m.node("block1/add", "AddV2", [p1, c0], T=F32)
    r1 = m.node("block1/relu", "Relu", [a1], T=F32)
    d2 = m.fused_conv("block2/dw", r1, 3, 12, 12, ["BiasAdd", "Relu6"], stride=2, dw=True, quant=u8)  # 8x8x12
    p2 = m.fused_conv("block2/pw", d2, 1, 12, 16, ["BiasAdd", "Prelu"], quant=u8)                     # 8x8x16
    mp = m.node("block2/pool", "MaxPool", [r1], T=F32, ksize=ints([1, 2, 2, 1]), strides=ints([1, 2, 2, 1]),
                padding=s("VALID"), data_format=s("NHWC"))
    pads = m.const("block2/pads", np.array([[0, 0], [0, 0], [0, 0], [0, 4]], np.int32))
    pd = m.node("block2/pad", "Pad", [mp, pads], T=F32, Tpaddings={"type": "DT_INT32"})
    a2 = m.node("block2/add", "AddV2", [p2, pd], T=F32)
    alpha = m.weight("block2/prelu_alpha", [16], 0.2, positive=True)
    r2 = m.node("block2/prelu", "Prelu", [a2, alpha], T=F32)
    d3 = m.fused_conv("block3/dw", r2, 3, 16, 16, ["BiasAdd", "Elu"], dw=True, quant=u8)
    p3 = m.fused_conv("block3/pw", d3, 1, 16, 16, ["BiasAdd", "LeakyRelu"], alpha=0.1, quant=u8)
    cls = m.fused_conv("classifier", p3, 1, 16, 2, ["BiasAdd", "Sigmoid"], quant=u8)                  # 8x8x2
    reg = m.fused_conv("regressor", p3, 1, 16, 32, ["BiasAdd"], quant=u8)                             # 8x8x32
    s1 = m.const("classifier/shape", np.array([1, 128, 1], np.int32))
    s2 = m.const("regressor/shape", np.array([1, 128, 16], np.int32))
    c = m.node("classifier/reshape", "Reshape", [cls, s1], T=F32, Tshape={"type": "DT_INT32"})
    r = m.node("regressor/reshape", "Reshape", [reg, s2], T=F32, Tshape={"type": "DT_INT32"})
    # the boxes of three fixed anchors, as post-processing graphs pick them
    idx = m.const("anchors/indices", np.array([[0, 5], [0, 17], [0, 100]], np.int32))
    g = m.node("anchors/boxes", "GatherNd", [r, idx], Tparams=F32, Tindices={"type": "DT_INT32"})
    for name, src in (("Identity", c), ("Identity_1", r), ("Identity_2", g)):
        m.node(name, "Identity", [src], T=F32)
    out = os.path.join(DATA, "families", "tfjs_blazeface")
    m.write(out, {"input_1": [-1, 32, 32, 3]}, ["Identity", "Identity_1", "Identity_2"], 0.55)
    rs = np.random.RandomState(5)
    calib = rs.rand(16, 32, 32, 3).astype(np.float32) * 2 - 1
    x = calib[:1].copy()
    np.savez(os.path.join(out, "calib.npz"), input_1=calib)
    np.savez(os.path.join(out, "in.npz"), input_1=x)
    np.savez(os.path.join(out, "out.npz"), **tfjs_run(out, {"input_1": x}))
    with open(os.path.join(out, "args"), "w") as f:
        f.write("--input input_1:1,32,32,3\n")


def landmark():
    """A landmark net: fused convolutions (float16 weights), flatten, fused
    matrix products (transpose_b, Prelu, Sigmoid, LeakyRelu with uint16
    weights), FloorDiv."""
    m = Model(12)
    f16 = "float16"
    x = m.placeholder("input_1", [-1, 24, 24, 3])
    c0 = m.fused_conv("conv0", x, 3, 3, 8, ["BiasAdd", "Relu6"], stride=2, quant=f16)              # 12x12x8
    d1 = m.fused_conv("conv1/dw", c0, 3, 8, 8, ["BiasAdd", "Prelu"], stride=2, dw=True, quant=f16)  # 6x6x8
    c2 = m.fused_conv("conv2", d1, 3, 8, 8, ["BiasAdd", "Relu"], dil=2, quant=f16)                   # 6x6x8
    sh = m.const("flatten/shape", np.array([-1, 288], np.int32))
    fl = m.node("flatten", "Reshape", [c2, sh], T=F32, Tshape={"type": "DT_INT32"})
    h = m.fused_matmul("fc1", fl, 288, 32, ["BiasAdd", "Prelu"], quant=f16, transpose_b=True)
    h2 = m.fused_matmul("fc2", h, 32, 32, ["BiasAdd", "LeakyRelu"], alpha=0.3, quant="uint16")
    lm = m.fused_matmul("landmarks", h2, 32, 10, ["BiasAdd"])
    sc = m.fused_matmul("score", h2, 32, 1, ["BiasAdd", "Sigmoid"])
    q = m.const("cell_size", np.array(0.25, np.float32))
    cell = m.node("cells", "FloorDiv", [lm, q], T=F32)
    for name, src in (("Identity", lm), ("Identity_1", sc), ("Identity_2", cell)):
        m.node(name, "Identity", [src], T=F32)
    out = os.path.join(DATA, "tf", "tfjs_landmark")
    m.write(out, {"input_1": [-1, 24, 24, 3]}, ["Identity", "Identity_1", "Identity_2"], 0.4)
    x = np.random.RandomState(6).randn(1, 24, 24, 3).astype(np.float32)
    np.savez(os.path.join(out, "in.npz"), input_1=x)
    np.savez(os.path.join(out, "out.npz"), **tfjs_run(out, {"input_1": x}))


if __name__ == "__main__":
    blazeface()
    landmark()
