#!/usr/bin/python3
"""Regenerate the small hand-made ONNX models of tests/data/onnx/ that
tests/pipeline/t1100-import-onnx.sh imports (each one exercises one
importer behaviour or one error). Run from the repository root with
Debian's python3-onnx:  /usr/bin/python3 tests/gen/onnx_fixtures.py
"""
import os
import numpy as np
import onnx
from onnx import helper, numpy_helper, TensorProto as TP

OUT = "tests/data/onnx"


def model(nodes, inputs, outputs, inits=(), opset=13, check=True, *, name):
    g = helper.make_graph(nodes, name, inputs, outputs, initializer=list(inits))
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", opset)],
                          producer_name="npukit-tests", producer_version="1")
    if check:
        onnx.checker.check_model(m)
    path = os.path.join(OUT, name + ".onnx")
    with open(path, "wb") as f:
        f.write(m.SerializeToString())
    print(path, os.path.getsize(path), "bytes")


def vi(name, shape, t=TP.FLOAT):
    return helper.make_tensor_value_info(name, t, shape)


os.makedirs(OUT, exist_ok=True)

# Three unsupported ops (two of one kind) next to supported ones: all are
# listed in one message.
model([helper.make_node("Relu", ["x"], ["r"], name="relu"),
       helper.make_node("Foo", ["r"], ["a_out"], name="a"),
       helper.make_node("Bar", ["r"], ["b_out"], name="b"),
       helper.make_node("Bar", ["r"], ["c_out"], name="c"),
       helper.make_node("Sum", ["a_out", "b_out", "c_out"], ["y"], name="sum")],
      [vi("x", [1, 4])], [vi("y", [1, 4])], check=False, name="unsupported")

# A dynamic batch dimension: needs --input data:N,3,4,4.
model([helper.make_node("Relu", ["data"], ["y"], name="relu")],
      [vi("data", ["N", 3, 4, 4])], [vi("y", ["N", 3, 4, 4])], name="dynamic")

# Softmax before opset 13 on a middle axis: reshape, softmax, reshape.
model([helper.make_node("Softmax", ["x"], ["y"], name="sm", axis=1)],
      [vi("x", [2, 3, 4])], [vi("y", [2, 3, 4])], opset=11, name="softmax11")

# Shape arithmetic of a dynamic-shape export, folded at import:
# Reshape(x, Concat(Gather(Shape(x), 0), -1)).
model([helper.make_node("Shape", ["x"], ["s"]),
       helper.make_node("Constant", [], ["zero"], value=numpy_helper.from_array(np.array(0, np.int64))),
       helper.make_node("Gather", ["s", "zero"], ["n"], axis=0),
       helper.make_node("Unsqueeze", ["n", "axes"], ["n1"]),
       helper.make_node("Concat", ["n1", "minus1"], ["shape"], axis=0),
       helper.make_node("Reshape", ["x", "shape"], ["y"], name="flatten")],
      [vi("x", [2, 3, 4])], [vi("y", [2, 12])],
      [numpy_helper.from_array(np.array([0], np.int64), "axes"),
       numpy_helper.from_array(np.array([-1], np.int64), "minus1")], name="shapecalc")

# A reshape whose shape is computed from an input at run time.
model([helper.make_node("Relu", ["x"], ["r"], name="relu"),
       helper.make_node("Reshape", ["r", "shape"], ["y"], name="reshape")],
      [vi("x", [2, 6]), vi("shape", [2], TP.INT64)], [vi("y", [3, 4])], name="reshape_input")

# An initializer whose raw data is shorter than its shape needs.
w = numpy_helper.from_array(np.ones((2, 3), np.float32), "w")
w.raw_data = w.raw_data[:8]
model([helper.make_node("Add", ["x", "w"], ["y"], name="add")],
      [vi("x", [2, 3])], [vi("y", [2, 3])], [w], check=False, name="short_initializer")

# A declared output shape that does not match the computation.
model([helper.make_node("Relu", ["x"], ["y"], name="relu")],
      [vi("x", [2, 3])], [vi("y", [3, 2])], check=False, name="wrong_output_shape")

# Two nodes feeding each other.
model([helper.make_node("Relu", ["x2"], ["x1"], name="one"),
       helper.make_node("Relu", ["x1"], ["x2"], name="two")],
      [vi("x", [2])], [vi("x2", [2])], check=False, name="cycle")

# A newer opset than the importer knows.
model([helper.make_node("Relu", ["x"], ["y"], name="relu")],
      [vi("x", [2])], [vi("y", [2])], opset=18, check=False, name="opset18")

# If on a stored constant (Greater(k, 2) with k = 3): the then branch is
# imported; it holds an initializer and another If, on input 'flag', which
# the tests freeze with --const flag=1 (Mul by the branch's 2) or flag=0
# (Neg). The else branch has an unsupported op that is never read.
inner = helper.make_graph(
    [helper.make_node("Mul", ["r", "two"], ["m"], name="double")], "inner_then", [], [vi("m", None)],
    initializer=[numpy_helper.from_array(np.array(2, np.float32), "two")])
inner_else = helper.make_graph([helper.make_node("Neg", ["r"], ["n"], name="negate")], "inner_else", [],
                               [vi("n", None)])
then = helper.make_graph(
    [helper.make_node("Relu", ["x"], ["r"], name="relu"),
     helper.make_node("If", ["flag"], ["t"], name="inner", then_branch=inner, else_branch=inner_else)],
    "then", [], [vi("t", None)])
other = helper.make_graph([helper.make_node("Foo", ["x"], ["e"], name="never")], "else", [], [vi("e", None)])
model([helper.make_node("Greater", ["k", "k_min"], ["c"], name="k_ok"),
       helper.make_node("If", ["c"], ["y"], name="outer", then_branch=then, else_branch=other)],
      [vi("x", [1, 4]), vi("flag", [], TP.BOOL)], [vi("y", [1, 4])],
      [numpy_helper.from_array(np.array(3, np.int64), "k"), numpy_helper.from_array(np.array(2, np.int64), "k_min")],
      check=False, name="if_nested")

# An If whose branch has more outputs than the node.
two_out = helper.make_graph([helper.make_node("Relu", ["x"], ["a"], name="a"),
                             helper.make_node("Neg", ["x"], ["b"], name="b")], "two", [], [vi("a", None), vi("b", None)])
model([helper.make_node("If", ["c"], ["y"], name="bad_if", then_branch=two_out, else_branch=two_out)],
      [vi("x", [1, 4])], [vi("y", [1, 4])], [numpy_helper.from_array(np.array(True), "c")],
      check=False, name="if_outputs")
