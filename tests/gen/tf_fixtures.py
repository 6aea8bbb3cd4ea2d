#!/usr/bin/python3
"""tf_fixtures.py - small GraphDef files for tests/pipeline/t3000-import-tf.sh.

The graphs are written with a tiny protobuf encoder following TensorFlow's
graph.proto field numbers (the same as formats/tf/graph.proto), so no
TensorFlow is needed. Some exercise the importer's error paths
(unsupported and training-only ops, placeholders); the numerical ones
(NAME.pb, NAME.input.npy, NAME.expect.npy) get their expected output from
TensorFlow.js: the same graph, written as a tfjs graph model (GraphDef JSON
plus a weights manifest), is run by tfjs-converter on the tfjs CPU backend
(tests/gen/tf_expect.js; npm install @tensorflow/tfjs-core@4.22.0
@tensorflow/tfjs-backend-cpu@4.22.0 @tensorflow/tfjs-converter@4.22.0 in
the directory given as TFJS, default /tmp/tfjs).

Run: /usr/bin/python3 tests/gen/tf_fixtures.py  (writes tests/data/tf/)
     /usr/bin/python3 tests/gen/tf_fixtures.py fused  (only the fused and
     atrous graphs: atrous_asym, fused_bn, fused_gelu, floordiv, gather_nd)
"""
import base64
import json
import os
import shutil
import struct
import subprocess
import tempfile

import numpy as np

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "data", "tf")
DT_FLOAT = 1


def varint(v):
    out = bytearray()
    v &= (1 << 64) - 1
    while True:
        b = v & 0x7F
        v >>= 7
        if v:
            out.append(b | 0x80)
        else:
            out.append(b)
            return bytes(out)


def field(num, wire, payload):
    return varint(num << 3 | wire) + payload


def ld(num, data):
    if isinstance(data, str):
        data = data.encode()
    return field(num, 2, varint(len(data)) + data)


def shape(dims):
    return b"".join(ld(2, field(1, 0, varint(d))) for d in dims)


def attr(key, value):
    return ld(5, ld(1, key) + ld(2, value))


def a_type(t):
    return field(6, 0, varint(t))


def a_shape(dims):
    return ld(7, shape(dims))


def a_tensor(dims, floats):
    t = field(1, 0, varint(DT_FLOAT)) + ld(2, shape(dims))
    t += ld(4, struct.pack("<%df" % len(floats), *floats))
    return ld(8, t)


def node(name, op, inputs=(), attrs=()):
    b = ld(1, name) + ld(2, op)
    for i in inputs:
        b += ld(3, i)
    for k, v in attrs:
        b += attr(k, v)
    return ld(1, b)


def placeholder(name, dims):
    return node(name, "Placeholder", (), [("dtype", a_type(DT_FLOAT)), ("shape", a_shape(dims))])


def const(name, dims, floats):
    return node(name, "Const", (), [("dtype", a_type(DT_FLOAT)), ("value", a_tensor(dims, floats))])


def write(name, data):
    with open(os.path.join(OUT, name), "wb") as f:
        f.write(data)


def main():
    os.makedirs(OUT, exist_ok=True)
    t = [("T", a_type(DT_FLOAT))]
    # unsupported.pb: two unknown ops and a training-only op, all reported at once
    write("unsupported.pb",
          placeholder("x", [1, 4]) + const("w", [1, 4], [1, 2, 3, 4]) +
          node("a", "Foo", ["x"], t) + node("b", "Bar", ["a"], t) + node("b2", "Bar", ["x"], t) +
          node("c", "ApplyAdam", ["x", "w"], t) +
          node("s", "Add", ["b", "b2"], t) + node("y", "Add", ["s", "c"], t))
    # state.pb: h_next = tanh(x + h), y = h_next * 2; h is a state placeholder
    write("state.pb",
          placeholder("x", [1, 4]) + placeholder("h", [1, 4]) + const("two", [], [2.0]) +
          node("sum", "AddV2", ["x", "h"], t) + node("h_next", "Tanh", ["sum"], t) +
          node("y", "Mul", ["h_next", "two"], t) + node("unused", "Foo", ["x"], t))
    # switch.pb: Switch/Merge on a bool placeholder frozen with --const
    # is_training=0; the training side (an unsupported op) is dead
    write("switch.pb",
          placeholder("x", [1, 4]) +
          node("is_training", "Placeholder", (), [("dtype", a_type(10)), ("shape", a_shape([]))]) +
          node("sw", "Switch", ["x", "is_training"], t) + node("infer", "Relu", ["sw"], t) +
          node("train", "Foo", ["sw:1"], t) + node("y", "Merge", ["train", "infer"], t + [("N", field(3, 0, varint(2)))]))
    # dynamic.pb: a placeholder with an unknown batch dimension
    write("dynamic.pb",
          placeholder("x", [-1, 4]) + node("y", "Relu", ["x"], t))
    # lrn.pb: LRN (NHWC) with depth_radius 2 and TF's per-element alpha 0.1:
    # the IR's lrn (ONNX semantics) has size 5 and alpha 0.5
    write("lrn.pb",
          placeholder("x", [1, 2, 2, 8]) +
          node("y", "LRN", ["x"], t + [("depth_radius", field(3, 0, varint(2))),
                                       ("alpha", field(4, 5, struct.pack("<f", 0.1))),
                                       ("beta", field(4, 5, struct.pack("<f", 0.75))),
                                       ("bias", field(4, 5, struct.pack("<f", 2.0)))]))
    np.save(os.path.join(OUT, "lrn.input.npy"), np.random.RandomState(3).randn(1, 2, 2, 8).astype(np.float32))


# ---------------------------------------------------------------- numerical graphs

DT = {np.dtype("float32"): (1, "DT_FLOAT"), np.dtype("int32"): (3, "DT_INT32")}


class Graph:
    """Nodes kept as data, written both as a binary GraphDef and as tfjs JSON."""

    def __init__(self):
        self.nodes = []
        self.rng = np.random.RandomState(len(self.nodes) + 7)

    def add(self, name, op, inputs=(), **attrs):
        self.nodes.append((name, op, list(inputs), attrs))
        return name

    def const(self, name, value):
        value = np.asarray(value)
        value = value.astype(np.int32 if value.dtype.kind in "iu" else np.float32)
        return self.add(name, "Const", (), dtype=("type", value.dtype), value=("tensor", value))

    def weight(self, name, shape, scale=0.5):
        return self.const(name, (self.rng.randn(*shape) * scale).astype(np.float32))

    def placeholder(self, name, shape):
        return self.add(name, "Placeholder", (), dtype=("type", np.dtype("float32")), shape=("shape", shape))

    def op(self, name, op, inputs, **attrs):
        attrs.setdefault("T", ("type", np.dtype("float32")))
        return self.add(name, op, inputs, **attrs)

    def pb(self):
        out = b""
        for name, op, inputs, attrs in self.nodes:
            enc = []
            for k, (kind, v) in sorted(attrs.items()):
                if kind == "type":
                    enc.append((k, a_type(DT[np.dtype(v)][0])))
                elif kind == "shape":
                    enc.append((k, a_shape(v)))
                elif kind == "tensor":
                    t = field(1, 0, varint(DT[v.dtype][0])) + ld(2, shape(v.shape))
                    t += ld(4, v.astype(v.dtype.newbyteorder("<")).tobytes())
                    enc.append((k, ld(8, t)))
                elif kind == "i":
                    enc.append((k, field(3, 0, varint(v))))
                elif kind == "f":
                    enc.append((k, field(4, 5, struct.pack("<f", v))))
                elif kind == "b":
                    enc.append((k, field(5, 0, varint(int(v)))))
                elif kind == "s":
                    enc.append((k, ld(2, v)))
                elif kind == "ints":
                    enc.append((k, ld(1, ld(3, b"".join(varint(i) for i in v)))))
                elif kind == "strs":
                    enc.append((k, ld(1, b"".join(ld(2, x) for x in v))))
            out += node(name, op, inputs, enc)
        return out

    def tfjs(self, inputs, outputs):
        nodes, specs, data = [], [], b""
        for name, op, ins, attrs in self.nodes:
            a = {}
            for k, (kind, v) in attrs.items():
                if kind == "type":
                    a[k] = {"type": DT[np.dtype(v)][1]}
                elif kind == "shape":
                    a[k] = {"shape": {"dim": [{"size": str(d)} for d in v]}}
                elif kind == "tensor":
                    specs.append({"name": name, "shape": list(v.shape),
                                  "dtype": "int32" if v.dtype == np.int32 else "float32"})
                    data += v.tobytes()
                elif kind == "i":
                    a[k] = {"i": str(v)}
                elif kind == "f":
                    a[k] = {"f": v}
                elif kind == "b":
                    a[k] = {"b": v}
                elif kind == "s":
                    a[k] = {"s": base64.b64encode(v.encode()).decode()}
                elif kind == "ints":
                    a[k] = {"list": {"i": [str(i) for i in v]}}
                elif kind == "strs":
                    a[k] = {"list": {"s": [base64.b64encode(x.encode()).decode() for x in v]}}
            nodes.append({"name": name, "op": op, "input": ins, "attr": a})
        topo = {"node": nodes, "versions": {"producer": 1}}
        ins = {k: {"shape": list(v.shape), "data": v.ravel().tolist()} for k, v in inputs.items()}
        return {"topology": topo, "specs": specs, "inputs": ins, "outputs": outputs}, data


def case(name, g, inputs, outputs, ref=None):
    """Write NAME.pb and NAME.input.npy (or .npz); expected output from tfjs
    (running graph ref instead, when tfjs cannot run g itself)."""
    write(name + ".pb", g.pb())
    g = ref or g
    if len(inputs) == 1:
        np.save(os.path.join(OUT, name + ".input.npy"), list(inputs.values())[0])
    else:
        np.savez(os.path.join(OUT, name + ".input.npz"), **inputs)
    tfjs = os.environ.get("TFJS", "/tmp/tfjs")
    d = tempfile.mkdtemp()
    model, data = g.tfjs(inputs, outputs)
    with open(os.path.join(d, "model.json"), "w") as f:
        json.dump(model, f)
    with open(os.path.join(d, "weights.bin"), "wb") as f:
        f.write(data)
    script = os.path.join(os.path.dirname(os.path.abspath(__file__)), "tf_expect.js")
    subprocess.run(["node", script, d], check=True, env=dict(os.environ, NODE_PATH=os.path.join(tfjs, "node_modules")))
    shutil.copy(os.path.join(d, "expect.npy"), os.path.join(OUT, name + ".expect.npy"))
    shutil.rmtree(d)


def numerical():
    f32 = np.float32
    rs = np.random.RandomState(1)

    # convolutions in NHWC: SAME/VALID, strides, bias, relu6, depthwise, average pooling
    g = Graph()
    g.placeholder("x", [1, 7, 7, 3])
    g.weight("w1", [3, 3, 3, 4])
    g.op("c1", "Conv2D", ["x", "w1"], strides=("ints", [1, 2, 2, 1]), padding=("s", "SAME"),
         data_format=("s", "NHWC"), dilations=("ints", [1, 1, 1, 1]))
    g.weight("b1", [4])
    g.op("ba", "BiasAdd", ["c1", "b1"], data_format=("s", "NHWC"))
    g.op("r6", "Relu6", ["ba"])
    g.weight("wd", [3, 3, 4, 2])
    g.op("dw", "DepthwiseConv2dNative", ["r6", "wd"], strides=("ints", [1, 1, 1, 1]), padding=("s", "SAME"),
         data_format=("s", "NHWC"), dilations=("ints", [1, 2, 2, 1]))
    g.op("ap", "AvgPool", ["dw"], ksize=("ints", [1, 3, 3, 1]), strides=("ints", [1, 2, 2, 1]),
         padding=("s", "SAME"), data_format=("s", "NHWC"))
    g.op("lr", "LeakyRelu", ["ap"], alpha=("f", 0.1))
    case("conv", g, {"x": (rs.randn(1, 7, 7, 3) * 2).astype(f32)}, ["lr"])

    # batch norm, padding, max pooling, mean, softmax
    g = Graph()
    g.placeholder("x", [1, 6, 6, 3])
    g.weight("scale", [3])
    g.weight("offset", [3])
    g.weight("mean", [3])
    g.const("var", np.abs(g.rng.randn(3)).astype(f32) + 0.5)
    g.add("bn", "FusedBatchNormV3", ["x", "scale", "offset", "mean", "var"], T=("type", np.dtype("float32")),
          U=("type", np.dtype("float32")), epsilon=("f", 0.001), data_format=("s", "NHWC"), is_training=("b", False))
    g.const("pads", np.array([[0, 0], [1, 2], [2, 1], [0, 0]], np.int32))
    g.add("pad", "Pad", ["bn", "pads"], T=("type", np.dtype("float32")), Tpaddings=("type", np.dtype("int32")))
    g.op("mp", "MaxPool", ["pad"], ksize=("ints", [1, 2, 2, 1]), strides=("ints", [1, 2, 2, 1]),
         padding=("s", "VALID"), data_format=("s", "NHWC"))
    g.const("axes", np.array([1, 2], np.int32))
    g.add("mean_hw", "Mean", ["mp", "axes"], T=("type", np.dtype("float32")), Tidx=("type", np.dtype("int32")),
          keep_dims=("b", False))
    g.op("sm", "Softmax", ["mean_hw"])
    case("bn_pool", g, {"x": rs.randn(1, 6, 6, 3).astype(f32)}, ["sm"])

    # slicing and shape ops: StridedSlice masks, Transpose, ConcatV2, SplitV, Pack, Unpack, Reshape
    g = Graph()
    g.placeholder("x", [2, 6, 4])
    i32 = ("type", np.dtype("int32"))
    g.const("b", np.array([0, 5, 1], np.int32))
    g.const("e", np.array([0, 0, 4], np.int32))
    g.const("s", np.array([1, -2, 1], np.int32))
    g.add("ss", "StridedSlice", ["x", "b", "e", "s"], T=("type", np.dtype("float32")), Index=i32,
          begin_mask=("i", 1), end_mask=("i", 3), ellipsis_mask=("i", 0), new_axis_mask=("i", 0),
          shrink_axis_mask=("i", 0))  # x[:, 5::-2, 1:4] -> 2x3x3
    g.const("b2", np.array([1, 0], np.int32))
    g.const("e2", np.array([2, 0], np.int32))
    g.const("s2", np.array([1, 1], np.int32))
    g.add("ss2", "StridedSlice", ["x", "b2", "e2", "s2"], T=("type", np.dtype("float32")), Index=i32,
          begin_mask=("i", 0), end_mask=("i", 0), ellipsis_mask=("i", 2), new_axis_mask=("i", 0),
          shrink_axis_mask=("i", 1))  # x[1, ...] -> 6x4
    g.const("perm", np.array([1, 0], np.int32))
    g.add("tr", "Transpose", ["ss2", "perm"], T=("type", np.dtype("float32")), Tperm=i32)  # 4x6
    g.const("sizes", np.array([2, -1], np.int32))
    g.const("ax1", np.array(1, np.int32))
    g.add("sv", "SplitV", ["tr", "sizes", "ax1"], T=("type", np.dtype("float32")), Tlen=i32, num_split=("i", 2))
    g.add("un", "Unpack", ["ss"], T=("type", np.dtype("float32")), num=("i", 2), axis=("i", 0))  # 2 x (3x3)
    g.op("sq", "SquaredDifference", ["un", "un:1"])
    g.add("pk", "Pack", ["sq", "un:1"], T=("type", np.dtype("float32")), N=("i", 2), axis=("i", 2))  # 3x3x2
    g.const("shp", np.array([2, -1], np.int32))
    g.add("rs", "Reshape", ["pk", "shp"], T=("type", np.dtype("float32")), Tshape=i32)  # 2x9
    g.add("rs2", "Reshape", ["sv:1", "shp"], T=("type", np.dtype("float32")), Tshape=i32)  # 2x8
    g.add("cat", "ConcatV2", ["rs", "rs2", "ax1"], T=("type", np.dtype("float32")), Tidx=i32, N=("i", 2))
    case("slicing", g, {"x": rs.randn(2, 6, 4).astype(f32)}, ["cat"])


    # transposed convolution, resizing, space/batch blocks, mirror padding
    g = Graph()
    g.placeholder("x", [1, 4, 4, 2])
    g.const("osize", np.array([1, 8, 8, 3], np.int32))
    g.weight("wt", [3, 3, 3, 2])
    g.add("deconv", "Conv2DBackpropInput", ["osize", "wt", "x"], T=("type", np.dtype("float32")),
          strides=("ints", [1, 2, 2, 1]), padding=("s", "SAME"), data_format=("s", "NHWC"),
          dilations=("ints", [1, 1, 1, 1]))
    g.const("hw", np.array([5, 5], np.int32))
    g.op("bil", "ResizeBilinear", ["deconv", "hw"], align_corners=("b", False), half_pixel_centers=("b", True))
    g.const("hw2", np.array([10, 10], np.int32))
    g.op("nn", "ResizeNearestNeighbor", ["bil", "hw2"], align_corners=("b", False), half_pixel_centers=("b", True))
    g.const("blk", np.array([2, 2], np.int32))
    g.const("zpad", np.array([[0, 0], [0, 0]], np.int32))
    g.add("s2b", "SpaceToBatchND", ["nn", "blk", "zpad"], T=("type", np.dtype("float32")),
          Tblock_shape=("type", np.dtype("int32")), Tpaddings=("type", np.dtype("int32")))
    g.op("tanh", "Tanh", ["s2b"])
    g.add("b2s", "BatchToSpaceND", ["tanh", "blk", "zpad"], T=("type", np.dtype("float32")),
          Tblock_shape=("type", np.dtype("int32")), Tcrops=("type", np.dtype("int32")))
    g.const("mpads", np.array([[0, 0], [1, 1], [2, 0], [0, 0]], np.int32))
    g.add("mirror", "MirrorPad", ["b2s", "mpads"], T=("type", np.dtype("float32")),
          Tpaddings=("type", np.dtype("int32")), mode=("s", "REFLECT"))
    case("deconv_resize", g, {"x": rs.randn(1, 4, 4, 2).astype(f32)}, ["mirror"])

    # matrices: BatchMatMulV2 with adj_y, MatMul with transpose_b, Rsqrt, Maximum, Sub, Exp, Sum
    g = Graph()
    g.placeholder("x", [2, 3, 4])
    g.weight("w", [2, 5, 4])
    g.add("bmm", "BatchMatMulV2", ["x", "w"], T=("type", np.dtype("float32")), adj_x=("b", False), adj_y=("b", True))
    g.const("shp", np.array([6, 5], np.int32))
    g.add("flat", "Reshape", ["bmm", "shp"], T=("type", np.dtype("float32")), Tshape=("type", np.dtype("int32")))
    g.weight("w2", [3, 5])
    g.op("mm", "MatMul", ["flat", "w2"], transpose_a=("b", False), transpose_b=("b", True))
    g.op("sq", "Square", ["mm"])
    g.const("one", np.array(1.0, np.float32))
    g.op("p1", "AddV2", ["sq", "one"])
    g.op("rs", "Rsqrt", ["p1"])
    g.op("ex", "Exp", ["mm"])
    g.op("mx", "Maximum", ["rs", "ex"])
    g.op("sb", "Sub", ["mx", "mm"])
    g.const("ax", np.array([1], np.int32))
    g.add("sum", "Sum", ["sb", "ax"], T=("type", np.dtype("float32")), Tidx=("type", np.dtype("int32")),
          keep_dims=("b", True))
    case("matrices", g, {"x": rs.randn(2, 3, 4).astype(f32)}, ["sum"])

    # data_format NCHW: Conv2D (tfjs ignores data_format in BiasAdd and
    # FusedBatchNorm and reads NCHW dilations as NHWC, so those have no
    # reference here)
    g = Graph()
    g.placeholder("x", [1, 3, 7, 7])
    g.weight("w", [3, 3, 3, 4])
    g.op("conv", "Conv2D", ["x", "w"], strides=("ints", [1, 1, 1, 1]), padding=("s", "SAME"),
         data_format=("s", "NCHW"), dilations=("ints", [1, 1, 1, 1]))
    g.op("elu", "Elu", ["conv"])
    case("nchw", g, {"x": rs.randn(1, 3, 7, 7).astype(f32)}, ["elu"])

    # DepthToSpace, ClipByValue, AddN, GatherV2 (and ArgMin below)
    g = Graph()
    g.placeholder("x", [1, 2, 2, 8])
    g.add("d2s", "DepthToSpace", ["x"], T=("type", np.dtype("float32")), block_size=("i", 2),
          data_format=("s", "NHWC"))  # 1x4x4x2
    g.const("lo", np.array(-0.5, np.float32))
    g.const("hi", np.array(0.8, np.float32))
    g.op("clip", "ClipByValue", ["d2s", "lo", "hi"])
    g.op("th", "Tanh", ["d2s"])
    g.add("addn", "AddN", ["clip", "th", "d2s"], T=("type", np.dtype("float32")), N=("i", 3))
    g.const("idx", np.array([3, 0, 2], np.int32))
    g.const("gax", np.array(1, np.int32))
    g.add("gather", "GatherV2", ["addn", "idx", "gax"], Tparams=("type", np.dtype("float32")),
          Tindices=("type", np.dtype("int32")), Taxis=("type", np.dtype("int32")), batch_dims=("i", 0))
    case("gather", g, {"x": rs.randn(1, 2, 2, 8).astype(f32)}, ["gather"])

    g = Graph()
    g.placeholder("x", [3, 5])
    g.const("dim", np.array(1, np.int32))
    g.add("amin", "ArgMin", ["x", "dim"], T=("type", np.dtype("float32")), Tidx=("type", np.dtype("int32")),
          output_type=("type", np.dtype("int32")))
    case("argmin", g, {"x": rs.randn(3, 5).astype(f32)}, ["amin"])

    # batch norms for npu-fuse (t4000): conv + FusedBatchNormV3 + Relu6,
    # depthwise + FusedBatchNormV3, an atrous conv (SpaceToBatchND, Conv2D,
    # BatchToSpaceND) + FusedBatchNormV3, and Keras' unfused batch norm
    # (fused=False: x * rsqrt(var + eps) * gamma + (beta - mean * ...)) after
    # a conv, with and without center/scale
    g = Graph()
    f32t = ("type", np.dtype("float32"))
    i32t = ("type", np.dtype("int32"))

    def fused_bn(name, x, c):
        for k in ("scale", "offset", "mean"):
            g.weight(name + "_" + k, [c])
        g.const(name + "_var", np.abs(g.rng.randn(c)).astype(f32) + 0.5)
        return g.add(name, "FusedBatchNormV3", [x] + [name + "_" + k for k in ("scale", "offset", "mean", "var")],
                     T=f32t, U=f32t, epsilon=("f", 0.001), data_format=("s", "NHWC"), is_training=("b", False))

    def keras_bn(name, x, c, center_scale):
        g.const(name + "_var", np.abs(g.rng.randn(c)).astype(f32) + 0.5)
        g.weight(name + "_mean", [c])
        g.const(name + "_eps", np.array(0.001, f32))
        g.op(name + "/add", "AddV2", [name + "_var", name + "_eps"])
        g.op(name + "/rsqrt", "Rsqrt", [name + "/add"])
        inv = name + "/rsqrt"
        if center_scale:
            g.weight(name + "_gamma", [c])
            g.op(name + "/mul", "Mul", [inv, name + "_gamma"])
            inv = name + "/mul"
        g.op(name + "/mul_1", "Mul", [x, inv])
        g.op(name + "/mul_2", "Mul", [name + "_mean", inv])
        if center_scale:
            g.weight(name + "_beta", [c])
            g.op(name + "/sub", "Sub", [name + "_beta", name + "/mul_2"])
        else:
            g.op(name + "/sub", "Neg", [name + "/mul_2"])
        return g.op(name + "/add_1", "AddV2", [name + "/mul_1", name + "/sub"])

    def conv(name, x, shape, dil=1):
        g.weight(name + "_w", shape)
        return g.op(name, "Conv2D", [x, name + "_w"], strides=("ints", [1, 1, 1, 1]), padding=("s", "SAME"),
                    data_format=("s", "NHWC"), dilations=("ints", [1, dil, dil, 1]))

    g.placeholder("x", [1, 8, 8, 3])
    conv("c1", "x", [3, 3, 3, 4])
    g.op("r1", "Relu6", [fused_bn("bn1", "c1", 4)])
    g.weight("dw_w", [3, 3, 4, 1])
    g.op("dw", "DepthwiseConv2dNative", ["r1", "dw_w"], strides=("ints", [1, 1, 1, 1]), padding=("s", "SAME"),
         data_format=("s", "NHWC"), dilations=("ints", [1, 1, 1, 1]))
    g.op("r2", "Relu", [fused_bn("bn2", "dw", 4)])
    g.const("blk", np.array([2, 2], np.int32))
    g.const("spad", np.array([[2, 2], [2, 2]], np.int32))
    g.add("s2b", "SpaceToBatchND", ["r2", "blk", "spad"], T=f32t, Tblock_shape=i32t, Tpaddings=i32t)
    g.weight("c2_w", [3, 3, 4, 4])
    g.op("c2", "Conv2D", ["s2b", "c2_w"], strides=("ints", [1, 1, 1, 1]), padding=("s", "VALID"),
         data_format=("s", "NHWC"), dilations=("ints", [1, 1, 1, 1]))
    g.const("crops", np.array([[0, 0], [0, 0]], np.int32))
    g.add("b2s", "BatchToSpaceND", ["c2", "blk", "crops"], T=f32t, Tblock_shape=i32t, Tcrops=i32t)
    g.op("r3", "Relu", [fused_bn("bn3", "b2s", 4)])
    k1 = keras_bn("kbn1", conv("c3", "r3", [1, 1, 4, 5]), 5, True)
    k2 = keras_bn("kbn2", conv("c4", k1, [1, 1, 5, 3]), 3, False)
    case("bn_patterns", g, {"x": rs.randn(1, 8, 8, 3).astype(f32)}, [k2])

    # softmax written out as gxnpuc's manual tells users to (for an NPU
    # without softmax): the maximum by max_pool over windows of at most 15,
    # subtracted, exp, sum, divide
    g = Graph()
    g.placeholder("x", [1, 64])
    g.const("s4", np.array([1, 1, 64, 1], np.int32))
    g.add("r4", "Reshape", ["x", "s4"], T=f32t, Tshape=i32t)
    for i, src in ((1, "r4"), (2, "mp1")):
        g.op("mp%d" % i, "MaxPool", [src], ksize=("ints", [1, 1, 8, 1]), strides=("ints", [1, 1, 8, 1]),
             padding=("s", "VALID"), data_format=("s", "NHWC"))
    g.const("s2", np.array([1, 1], np.int32))
    g.add("mx", "Reshape", ["mp2", "s2"], T=f32t, Tshape=i32t)
    g.op("d", "Sub", ["x", "mx"])
    g.op("e", "Exp", ["d"])
    g.const("ax", np.array([1], np.int32))
    g.add("sm", "Sum", ["e", "ax"], T=f32t, Tidx=i32t, keep_dims=("b", True))
    g.op("p", "RealDiv", ["e", "sm"])
    case("softmax_maxpool", g, {"x": (rs.randn(1, 64) * 3).astype(f32)}, ["p"])

    # a streaming FSMN-style memory block (gxnpuc's streaming example): the
    # state holds the last 3 frames; the new state drops the oldest and
    # appends this frame; the output mixes them. Run with
    # --state State_c0=new_state (state as input and output).
    g = Graph()
    g.placeholder("Feats", [1, 1, 16])
    g.placeholder("State_c0", [1, 3, 16])
    g.const("b0", np.array([0, 1, 0], np.int32))
    g.const("e0", np.array([0, 0, 0], np.int32))
    g.const("st1", np.array([1, 1, 1], np.int32))
    g.add("old", "StridedSlice", ["State_c0", "b0", "e0", "st1"], T=f32t, Index=i32t, begin_mask=("i", 5),
          end_mask=("i", 7), ellipsis_mask=("i", 0), new_axis_mask=("i", 0), shrink_axis_mask=("i", 0))
    g.const("cax", np.array(1, np.int32))
    g.add("cat", "ConcatV2", ["old", "Feats", "cax"], T=f32t, Tidx=i32t, N=("i", 2))
    g.op("new_state", "Identity", ["cat"])
    g.weight("taps", [1, 3, 16])
    g.op("mem", "Mul", ["cat", "taps"])
    g.const("tax", np.array([1], np.int32))
    g.add("msum", "Sum", ["mem", "tax"], T=f32t, Tidx=i32t, keep_dims=("b", False))
    g.const("s16", np.array([1, 16], np.int32))
    g.add("f2", "Reshape", ["Feats", "s16"], T=f32t, Tshape=i32t)
    g.op("res", "AddV2", ["msum", "f2"])
    g.weight("wo", [16, 8])
    g.op("proj", "MatMul", ["res", "wo"], transpose_a=("b", False), transpose_b=("b", False))
    g.op("Result", "Relu", ["proj"])
    feats, state = rs.randn(1, 1, 16).astype(f32), rs.randn(1, 3, 16).astype(f32)
    case("fsmn", g, {"Feats": feats, "State_c0": state}, ["Result"])
    # both outputs in one .npz: Result from TF.js, the new state (frames
    # 1..2 of the state, then this frame) by its definition
    result = np.load(os.path.join(OUT, "fsmn.expect.npy"))
    os.remove(os.path.join(OUT, "fsmn.expect.npy"))
    np.savez(os.path.join(OUT, "fsmn.expect.npz"), Result=result,
             new_state=np.concatenate([state[:, 1:], feats], axis=1))



def fused():
    """Fused and atrous graphs (run: tf_fixtures.py fused)."""
    f32 = np.float32
    f32t = ("type", np.dtype("float32"))
    i32t = ("type", np.dtype("int32"))
    rs = np.random.RandomState(21)

    # an atrous convolution as TensorFlow writes it when the dilation rate
    # does not divide the padded size: 7x7, rate 2, SAME 3x3 gives
    # paddings [[2, 3], [2, 3]] and crops [[0, 1], [0, 1]]
    g = Graph()
    g.placeholder("x", [1, 7, 7, 4])
    g.const("blk", np.array([2, 2], np.int32))
    g.const("spad", np.array([[2, 3], [2, 3]], np.int32))
    g.add("s2b", "SpaceToBatchND", ["x", "blk", "spad"], T=f32t, Tblock_shape=i32t, Tpaddings=i32t)
    g.weight("w", [3, 3, 4, 5])
    g.op("conv", "Conv2D", ["s2b", "w"], strides=("ints", [1, 1, 1, 1]), padding=("s", "VALID"),
         data_format=("s", "NHWC"), dilations=("ints", [1, 1, 1, 1]))
    g.const("crops", np.array([[0, 1], [0, 1]], np.int32))
    g.add("b2s", "BatchToSpaceND", ["conv", "blk", "crops"], T=f32t, Tblock_shape=i32t, Tcrops=i32t)
    g.op("y", "Relu", ["b2s"])
    case("atrous_asym", g, {"x": rs.randn(1, 7, 7, 4).astype(f32)}, ["y"])

    # _FusedConv2D with FusedBatchNorm and Relu (grappler's remapper; TF.js
    # cannot run it, so the reference is TF.js on the unfused graph), then
    # _FusedConv2D with BiasAdd, Add of a side input and Relu
    def build(fused_graph):
        g = Graph()
        g.placeholder("x", [1, 6, 6, 3])
        g.weight("w", [3, 3, 3, 4])
        bn = ["scale", "offset", "mean"]
        for k in bn:
            g.weight(k, [4])
        g.const("var", np.abs(g.rng.randn(4)).astype(f32) + 0.5)
        conv = dict(strides=("ints", [1, 1, 1, 1]), padding=("s", "SAME"), data_format=("s", "NHWC"),
                    dilations=("ints", [1, 1, 1, 1]))
        if fused_graph:
            g.op("c1", "_FusedConv2D", ["x", "w", "scale", "offset", "mean", "var"], num_args=("i", 4),
                 fused_ops=("strs", ["FusedBatchNorm", "Relu"]), epsilon=("f", 0.001), **conv)
        else:
            g.op("c1_conv", "Conv2D", ["x", "w"], **conv)
            g.add("c1_bn", "FusedBatchNormV3", ["c1_conv", "scale", "offset", "mean", "var"], T=f32t, U=f32t,
                  epsilon=("f", 0.001), data_format=("s", "NHWC"), is_training=("b", False))
            g.op("c1", "Relu", ["c1_bn"])
        g.weight("w2", [1, 1, 4, 4])
        g.weight("b2", [4])
        if fused_graph:
            g.op("c2", "_FusedConv2D", ["c1", "w2", "b2", "c1"],
                 num_args=("i", 2), fused_ops=("strs", ["BiasAdd", "Add", "Relu"]), epsilon=("f", 0.0), **conv)
        else:
            g.op("c2_conv", "Conv2D", ["c1", "w2"], **conv)
            g.op("c2_bias", "BiasAdd", ["c2_conv", "b2"], data_format=("s", "NHWC"))
            g.op("c2_add", "AddV2", ["c2_bias", "c1"])
            g.op("c2", "Relu", ["c2_add"])
        return g

    case("fused_bn", build(True), {"x": rs.randn(1, 6, 6, 3).astype(f32)}, ["c2"], ref=build(False))

    # _FusedConv2D BiasAdd + Tanh and _FusedMatMul BiasAdd + GeluExact /
    # GeluApproximate (TF 2.12's remapper; TF.js has no fused Tanh or Gelu:
    # the reference is the unfused graph, Gelu written with Erf and Tanh)
    def build2(fused_graph):
        g = Graph()
        g.placeholder("x", [1, 4, 4, 3])
        g.weight("w", [3, 3, 3, 2])
        g.weight("b", [2])
        conv = dict(strides=("ints", [1, 1, 1, 1]), padding=("s", "SAME"), data_format=("s", "NHWC"),
                    dilations=("ints", [1, 1, 1, 1]))
        if fused_graph:
            g.op("c", "_FusedConv2D", ["x", "w", "b"], num_args=("i", 1), fused_ops=("strs", ["BiasAdd", "Tanh"]),
                 epsilon=("f", 0.0), **conv)
        else:
            g.op("c_conv", "Conv2D", ["x", "w"], **conv)
            g.op("c_bias", "BiasAdd", ["c_conv", "b"], data_format=("s", "NHWC"))
            g.op("c", "Tanh", ["c_bias"])
        g.const("shp", np.array([1, 32], np.int32))
        g.add("flat", "Reshape", ["c", "shp"], T=f32t, Tshape=i32t)
        g.weight("w1", [32, 8], 0.3)
        g.weight("b1", [8])
        g.weight("w2", [8, 32], 0.5)
        g.weight("b2", [8])
        for name, wt, kind, tb in (("m1", "w1", "GeluExact", False), ("m2", "w2", "GeluApproximate", True)):
            src = "flat"
            b = "b1" if name == "m1" else "b2"
            if fused_graph:
                g.op(name, "_FusedMatMul", [src, wt, b], num_args=("i", 1), fused_ops=("strs", ["BiasAdd", kind]),
                     transpose_a=("b", False), transpose_b=("b", tb), epsilon=("f", 0.0))
                continue
            g.op(name + "_mm", "MatMul", [src, wt], transpose_a=("b", False), transpose_b=("b", tb))
            g.op(name + "_b", "BiasAdd", [name + "_mm", b], data_format=("s", "NHWC"))
            x = name + "_b"
            g.const(name + "_half", np.array(0.5, f32))
            g.const(name + "_one", np.array(1.0, f32))
            if kind == "GeluExact":
                g.const(name + "_rs2", np.array(1 / np.sqrt(2), f32))
                g.op(name + "_s", "Mul", [x, name + "_rs2"])
                g.op(name + "_e", "Erf", [name + "_s"])
            else:
                g.const(name + "_c3", np.array(0.044715, f32))
                g.const(name + "_k", np.array(np.sqrt(2 / np.pi), f32))
                g.op(name + "_x2", "Mul", [x, x])
                g.op(name + "_x3", "Mul", [name + "_x2", x])
                g.op(name + "_c", "Mul", [name + "_x3", name + "_c3"])
                g.op(name + "_in", "AddV2", [x, name + "_c"])
                g.op(name + "_s", "Mul", [name + "_in", name + "_k"])
                g.op(name + "_e", "Tanh", [name + "_s"])
            g.op(name + "_1p", "AddV2", [name + "_e", name + "_one"])
            g.op(name + "_h", "Mul", [x, name + "_half"])
            g.op(name, "Mul", [name + "_h", name + "_1p"])
        g.const("cax", np.array(1, np.int32))
        g.add("y", "ConcatV2", ["m1", "m2", "cax"], T=f32t, Tidx=i32t, N=("i", 2))
        return g

    case("fused_gelu", build2(True), {"x": rs.randn(1, 4, 4, 3).astype(f32)}, ["y"], ref=build2(False))

    # FloorDiv and FloorMod of integer and float tensors (negative operands:
    # rounding toward minus infinity, not toward zero)
    g = Graph()
    g.placeholder("x", [2, 5])
    g.add("xi", "Cast", ["x"], SrcT=f32t, DstT=i32t, Truncate=("b", False))
    g.const("d", np.array([3, -4, 5, -2, 7], np.int32))
    g.add("q", "FloorDiv", ["xi", "d"], T=i32t)
    g.add("r", "FloorMod", ["xi", "d"], T=i32t)
    g.const("df", np.array([0.75, -1.5, 2.0, -0.5, 3.0], f32))
    g.op("qf", "FloorDiv", ["x", "df"])
    g.add("qfi", "Cast", ["qf"], SrcT=f32t, DstT=i32t, Truncate=("b", False))
    g.const("cax", np.array(1, np.int32))
    g.add("y", "ConcatV2", ["q", "r", "qfi", "cax"], T=i32t, Tidx=i32t, N=("i", 3))
    case("floordiv", g, {"x": (rs.randn(2, 5) * 10).astype(f32)}, ["y"])

    # GatherNd with indices computed in the graph (a Cast of an input) and
    # with constant indices picking single elements (K = rank)
    g = Graph()
    g.placeholder("x", [2, 3, 4])
    g.placeholder("sel", [2, 2, 2])
    g.add("idx", "Cast", ["sel"], SrcT=f32t, DstT=i32t, Truncate=("b", False))
    g.add("rows", "GatherNd", ["x", "idx"], Tparams=f32t, Tindices=i32t)  # 2x2x4
    g.const("pts", np.array([[1, 2, 3], [0, 0, 1], [1, 0, 0]], np.int32))
    g.add("elems", "GatherNd", ["x", "pts"], Tparams=f32t, Tindices=i32t)  # 3
    g.const("shp", np.array([1, 3], np.int32))
    g.add("e2", "Reshape", ["elems", "shp"], T=f32t, Tshape=i32t)
    g.const("shp2", np.array([1, 16], np.int32))
    g.add("r2", "Reshape", ["rows", "shp2"], T=f32t, Tshape=i32t)
    g.const("cax", np.array(1, np.int32))
    g.add("y", "ConcatV2", ["r2", "e2", "cax"], T=f32t, Tidx=i32t, N=("i", 2))  # 1x19
    sel = np.array([[[1, 2], [0, 0]], [[1, 1], [0, 2]]], f32)
    case("gather_nd", g, {"x": rs.randn(2, 3, 4).astype(f32), "sel": sel}, ["y"])


if __name__ == "__main__":
    import sys
    if sys.argv[1:] == ["fused"]:
        fused()
        sys.exit()
    main()
    numerical()
