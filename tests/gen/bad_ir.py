#!/usr/bin/python3
"""Write the malformed IR streams of the error corpus (tests/data/bad/*.ir).

Each file is a small hand-built msgpack stream (see npu-ir(5)) that is
wrong in exactly one way; tests/pipeline/t1000-errors.sh checks the message
each one gets. Run from the repository root: /usr/bin/python3 tests/gen/bad_ir.py
"""
import os
import random
import struct


def pack(v):
    """Minimal msgpack encoder: dict (ordered), list, str, bytes, int, float, bool."""
    if isinstance(v, bool):
        return b"\xc3" if v else b"\xc2"
    if isinstance(v, int):
        if 0 <= v < 128:
            return bytes([v])
        if -32 <= v < 0:
            return struct.pack("b", v)
        return b"\xd3" + struct.pack(">q", v)
    if isinstance(v, float):
        return b"\xcb" + struct.pack(">d", v)
    if isinstance(v, str):
        b = v.encode()
        return (bytes([0xa0 | len(b)]) if len(b) < 32 else b"\xd9" + bytes([len(b)])) + b
    if isinstance(v, bytes):
        return b"\xc4" + bytes([len(v)]) + v
    if isinstance(v, list):
        return b"\xdc" + struct.pack(">H", len(v)) + b"".join(pack(x) for x in v)
    if isinstance(v, dict):
        return b"\xde" + struct.pack(">H", len(v)) + b"".join(pack(k) + pack(x) for k, x in v.items())
    raise TypeError(v)


def tensor(name, shape, kind="activation", dtype="f32", **extra):
    t = {"name": name, "dtype": dtype, "shape": shape, "kind": kind}
    t.update(extra)
    return t


def node(name, op, inputs, outputs, attrs=None):
    return {"name": name, "op": op, "inputs": inputs, "outputs": outputs, "attrs": attrs or {}}


def stream(**over):
    s = {
        "npu-ir": 1,
        "meta": {"source.framework": "test"},
        "history": [],
        "tensors": [tensor("x", [1, 4], "input"), tensor("w", [4], "const", data=[0, 16]),
                    tensor("y", [1, 4]), tensor("z", [1, 4])],
        "nodes": [node("relu", "relu", [0], [2]), node("mul", "mul", [2, 1], [3])],
        "inputs": [0],
        "outputs": [3],
        "blob": {"size": 64, "compression": "none", "data": bytes(64)},
    }
    s.update(over)
    return s


def write(name, data):
    with open(os.path.join("tests/data/bad", name), "wb") as f:
        f.write(data if isinstance(data, bytes) else pack(data))


os.makedirs("tests/data/bad", exist_ok=True)
write("good.ir", stream())
write("dangling-id.ir", stream(nodes=[node("relu", "relu", [0], [2]), node("mul", "mul", [2, 99], [3])]))
write("cycle.ir", stream(nodes=[node("relu", "relu", [3], [2]), node("mul", "mul", [2, 1], [3])]))
write("huge-dim.ir", stream(tensors=[tensor("x", [1, 1 << 50], "input"), tensor("w", [4], "const", data=[0, 16]),
                                     tensor("y", [1, 4]), tensor("z", [1, 4])]))
write("overflow-shape.ir", stream(tensors=[tensor("x", [1 << 30, 1 << 30, 1 << 30], "input"),
                                           tensor("w", [4], "const", data=[0, 16]),
                                           tensor("y", [1, 4]), tensor("z", [1, 4])]))
s = stream()
s["npu-ir"] = 7
write("version.ir", s)
s = stream()
del s["tensors"]
write("no-tensors.ir", s)
write("data-outside-blob.ir", stream(tensors=[tensor("x", [1, 4], "input"), tensor("w", [4], "const", data=[60, 16]),
                                              tensor("y", [1, 4]), tensor("z", [1, 4])]))
write("blob-size.ir", stream(blob={"size": 128, "compression": "none", "data": bytes(64)}))
write("unknown-op.ir", stream(nodes=[node("relu", "frobnicate", [0], [2]), node("mul", "mul", [2, 1], [3])]))
write("bad-dtype.ir", stream(tensors=[tensor("x", [1, 4], "input", dtype="f33"), tensor("w", [4], "const", data=[0, 16]),
                                      tensor("y", [1, 4]), tensor("z", [1, 4])]))
write("attr-type.ir", stream(nodes=[node("relu", "relu", [0], [2]),
                                    node("mul", "mul", [2, 1], [3], {"act": ["i", 3]})]))
write("zstd-corrupt.ir", stream(blob={"size": 64, "compression": "zstd", "data": b"\x28\xb5\x2f\xfd" + bytes(12)}))
write("dup-name.ir", stream(tensors=[tensor("x", [1, 4], "input"), tensor("w", [4], "const", data=[0, 16]),
                                     tensor("y", [1, 4]), tensor("y", [1, 4])]))
write("wrong-shape.ir", stream(tensors=[tensor("x", [1, 4], "input"), tensor("w", [4], "const", data=[0, 16]),
                                        tensor("y", [1, 5]), tensor("z", [1, 4])]))
write("two-producers.ir", stream(nodes=[node("relu", "relu", [0], [2]), node("mul", "mul", [2, 1], [2])]))
# a map header that claims 4 billion entries in a few bytes
write("count-lie.ir", b"\x83" + pack("npu-ir") + pack(1) + pack("meta") + b"\xdf\xff\xff\xff\xff")
write("trailing.ir", pack(stream()) + b"\x00")
random.seed(1)
write("random.bin", bytes(random.randrange(256) for _ in range(4096)))
write("empty.ir", b"")
write("not-ir.msgpack", pack({"hello": "world", "n": 1}))
