#!/usr/bin/python3
"""hostile_fixtures.py - small hostile inputs for tests/pipeline/t1010-hostile-core.sh.

Written by hand (the protobuf, pickle, zip and npy encoders below follow the
formats' specifications), so no framework is needed; each file carries one
defect a reader once mishandled:

  reshape_overflow.pb   TF Reshape to a Const shape [2^30, 2^30, 2^30]
                        (its element count overflows int64)
  empty_mark.pt         TorchScript zip whose data.pkl is MARK, TUPLE on an
                        empty stack
  npz_lying_header.npz  an .npz entry whose .npy header declares 2^28
                        float32 while the archive holds 16 bytes of data
  wrong_key.npz         one 1x1x8x8 float32 array keyed 'y' (the model's input
                        is 'x')
  denormal.npy          calibration samples for a 1x1x8x8 input, every value
                        1e-40 (a float32 denormal)
  nan_alpha.onnx        ONNX LeakyRelu 'lrelu' with alpha NaN
  inf_alpha.onnx        ONNX Elu 'elu' with alpha +inf

Run: /usr/bin/python3 tests/gen/hostile_fixtures.py  (writes tests/data/hostile/)
"""
import os
import struct
import sys
import zipfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from tf_fixtures import a_shape, a_type, attr, field, ld, node, placeholder, shape, varint  # noqa: E402

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "data", "hostile")
DT_FLOAT, DT_INT32 = 1, 3


def write(name, data):
    with open(os.path.join(OUT, name), "wb") as f:
        f.write(data)


def int_const(name, values):
    t = field(1, 0, varint(DT_INT32)) + ld(2, shape([len(values)]))
    t += ld(4, struct.pack("<%di" % len(values), *values))
    return node(name, "Const", (), [("dtype", a_type(DT_INT32)), ("value", ld(8, t))])


def zip_of(entries):
    import io
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as z:
        for name, data in entries:
            zi = zipfile.ZipInfo(name, date_time=(1980, 1, 1, 0, 0, 0))
            z.writestr(zi, data)
    return out.getvalue()


def npy_header(descr, shape_):
    h = "{'descr': '%s', 'fortran_order': False, 'shape': (%s), }" % (
        descr, "".join("%d," % d for d in shape_))
    h += " " * ((64 - (10 + len(h) + 1) % 64) % 64) + "\n"
    return b"\x93NUMPY\x01\x00" + struct.pack("<H", len(h)) + h.encode()


def onnx_unary(op, name, alpha):
    """ONNX model (opset 13) y = op(x), x and y float [1, 4], alpha set."""
    def vi(n):  # ValueInfoProto: name, TypeProto.tensor_type(elem FLOAT, shape [1, 4])
        dims = ld(1, field(1, 0, varint(1))) + ld(1, field(1, 0, varint(4)))
        return ld(1, n) + ld(2, ld(1, field(1, 0, varint(DT_FLOAT)) + ld(2, dims)))
    attr = ld(1, "alpha") + field(2, 5, struct.pack("<f", alpha)) + field(20, 0, varint(1))
    nd = ld(1, "x") + ld(2, "y") + ld(3, name) + ld(4, op) + ld(5, attr)
    graph = ld(1, nd) + ld(2, "g") + ld(11, vi("x")) + ld(12, vi("y"))
    return field(1, 0, varint(7)) + ld(7, graph) + ld(8, field(2, 0, varint(13)))


def main():
    os.makedirs(OUT, exist_ok=True)
    t = [("T", a_type(DT_FLOAT)), ("Tshape", a_type(DT_INT32))]
    write("reshape_overflow.pb",
          placeholder("x", [1, 8]) + int_const("s", [1 << 30, 1 << 30, 1 << 30]) +
          node("y", "Reshape", ["x", "s"], t))
    write("empty_mark.pt", zip_of([("archive/version", b"3\n"),
                                   ("archive/data.pkl", b"\x80\x02(t."),
                                   ("archive/code/__torch__.py", b"")]))
    write("npz_lying_header.npz", zip_of([("x.npy", npy_header("<f4", [1 << 28]) + bytes(16))]))
    write("wrong_key.npz", zip_of([("y.npy", npy_header("<f4", [1, 1, 8, 8]) + bytes(256))]))
    write("denormal.npy", npy_header("<f4", [2, 1, 8, 8]) + struct.pack("<f", 1e-40) * 128)
    write("nan_alpha.onnx", onnx_unary("LeakyRelu", "lrelu", float("nan")))
    write("inf_alpha.onnx", onnx_unary("Elu", "elu", float("inf")))


if __name__ == "__main__":
    main()
