#!/usr/bin/env python3
"""make_seeds.py - writes the generated part of the fuzz seed corpus:
small valid ONNX models (corpus/onnx/) and .caffemodel weights for the net
in fuzz_caffemodel.c (corpus/caffemodel/). It encodes the protobuf wire
format itself, so it needs nothing but Python 3; field numbers are those of
Debian's onnx.proto and frontend/caffe.proto. Run from anywhere:
    python3 tests/fuzz/make_seeds.py
The outputs are committed; rerun only to change the seeds."""
import os
import struct

HERE = os.path.dirname(os.path.abspath(__file__))


def varint(v):
    v &= (1 << 64) - 1
    out = bytearray()
    while True:
        b = v & 0x7F
        v >>= 7
        out.append(b | (0x80 if v else 0))
        if not v:
            return bytes(out)


def key(field, wire):
    return varint(field << 3 | wire)


def vint(field, v):
    return key(field, 0) + varint(v)


def blob(field, data):
    if isinstance(data, str):
        data = data.encode()
    return key(field, 2) + varint(len(data)) + data


def f32(field, v):
    return key(field, 5) + struct.pack("<f", v)


def packed_floats(field, vals):
    return blob(field, b"".join(struct.pack("<f", v) for v in vals))


def packed_doubles(field, vals):
    return blob(field, b"".join(struct.pack("<d", v) for v in vals))


def packed_varints(field, vals):
    return blob(field, b"".join(varint(v) for v in vals))


# ---- ONNX (onnx.proto) -----------------------------------------------------
FLOAT, INT64 = 1, 7


def tensor(name, dims, vals, dtype=FLOAT, raw=False):
    m = b"".join(vint(1, d) for d in dims) + vint(2, dtype) + blob(8, name)
    fmt = "<f" if dtype == FLOAT else "<q"
    if raw:
        m += blob(9, b"".join(struct.pack(fmt, v) for v in vals))
    elif dtype == FLOAT:
        m += packed_floats(4, vals)
    else:
        m += packed_varints(7, vals)
    return m


def attr_i(name, v):
    return blob(1, name) + vint(3, v) + vint(20, 2)


def attr_f(name, v):
    return blob(1, name) + f32(2, v) + vint(20, 1)


def attr_ints(name, vals):
    return blob(1, name) + b"".join(vint(8, v) for v in vals) + vint(20, 7)


def attr_t(name, t):
    return blob(1, name) + blob(5, t) + vint(20, 4)


def node(op, inputs, outputs, name, attrs=()):
    return (b"".join(blob(1, i) for i in inputs) + b"".join(blob(2, o) for o in outputs) +
            blob(3, name) + blob(4, op) + b"".join(blob(5, a) for a in attrs))


def value_info(name, dims, dtype=FLOAT):
    shape = b"".join(
        blob(1, blob(2, d) if isinstance(d, str) else vint(1, d)) for d in dims)
    return blob(1, name) + blob(2, blob(1, vint(1, dtype) + blob(2, shape)))


def model(nodes, inits, inputs, outputs, opset=13):
    g = (b"".join(blob(1, n) for n in nodes) + blob(2, "g") +
         b"".join(blob(5, t) for t in inits) + b"".join(blob(11, v) for v in inputs) +
         b"".join(blob(12, v) for v in outputs))
    return vint(1, 7) + blob(2, "make_seeds") + blob(7, g) + blob(8, vint(2, opset))


def seq(n, scale=0.1):
    return [((i * 7) % 11 - 5) * scale for i in range(n)]


def onnx_seeds():
    # Conv (raw_data weights) + Relu + MaxPool + Flatten + Gemm + Softmax.
    cnn = model(
        [node("Conv", ["x", "w", "b"], ["c"], "conv",
              [attr_ints("kernel_shape", [3, 3]), attr_ints("pads", [1, 1, 1, 1])]),
         node("Relu", ["c"], ["r"], "relu"),
         node("MaxPool", ["r"], ["p"], "pool",
              [attr_ints("kernel_shape", [2, 2]), attr_ints("strides", [2, 2])]),
         node("Flatten", ["p"], ["f"], "flatten", [attr_i("axis", 1)]),
         node("Gemm", ["f", "fw", "fb"], ["y0"], "fc", [attr_i("transB", 1)]),
         node("Softmax", ["y0"], ["y"], "softmax", [attr_i("axis", 1)])],
        [tensor("w", [2, 1, 3, 3], seq(18), raw=True), tensor("b", [2], [0.1, -0.1]),
         tensor("fw", [3, 32], seq(96)), tensor("fb", [3], [0.0, 0.5, -0.5], raw=True)],
        [value_info("x", [1, 1, 8, 8])], [value_info("y", [1, 3])])
    # A Shape/Gather/Unsqueeze/Concat chain feeding Reshape, folded to constants.
    shape = model(
        [node("Shape", ["x"], ["s"], "shape"),
         node("Gather", ["s", "zero"], ["n"], "gather", [attr_i("axis", 0)]),
         node("Unsqueeze", ["n", "axes"], ["n1"], "unsqueeze"),
         node("Concat", ["n1", "minus1"], ["target"], "concat", [attr_i("axis", 0)]),
         node("Reshape", ["x", "target"], ["y"], "reshape")],
        [tensor("zero", [], [0], INT64), tensor("axes", [1], [0], INT64),
         tensor("minus1", [1], [-1], INT64, raw=True)],
        [value_info("x", [2, 3, 4, 4])], [value_info("y", [2, 48])])
    # BatchNormalization, a broadcasting Add, Clip with constant bounds from a
    # Constant node, AveragePool with padding and a Transpose.
    norm = model(
        [node("BatchNormalization", ["x", "g", "beta", "mean", "var"], ["bn"], "bn",
              [attr_f("epsilon", 1e-5)]),
         node("Add", ["bn", "shift"], ["a"], "add"),
         node("Constant", [], ["lo"], "lo", [attr_t("value", tensor("lo_v", [], [0.0]))]),
         node("Clip", ["a", "lo", "hi"], ["c"], "clip"),
         node("AveragePool", ["c"], ["p"], "avg",
              [attr_ints("kernel_shape", [3, 3]), attr_ints("pads", [1, 1, 1, 1]),
               attr_i("count_include_pad", 1)]),
         node("Transpose", ["p"], ["y"], "transpose", [attr_ints("perm", [0, 2, 3, 1])])],
        [tensor("g", [2], [1.0, 0.5]), tensor("beta", [2], [0.0, 0.1]),
         tensor("mean", [2], [0.2, -0.2]), tensor("var", [2], [1.0, 2.0]),
         tensor("shift", [2, 1, 1], [0.5, -0.5]), tensor("hi", [], [6.0])],
        [value_info("x", [1, 2, 4, 4])], [value_info("y", [1, 4, 4, 2])])
    return {"cnn.onnx": cnn, "shape_chain.onnx": shape, "norm.onnx": norm}


# ---- Caffe (frontend/caffe.proto) --------------------------------------------
# The layers of fuzz_caffemodel.c's net and their blob shapes.
CAFFE_BLOBS = [
    ("conv", [[4, 3, 3, 3], [4]]),
    ("bn", [[4], [4], [1]]),
    ("scale", [[4], [4]]),
    ("dw", [[4, 1, 3, 3]]),
    ("fc", [[5, 144], [5]]),
]
V1_TYPES = {"conv": 4, "dw": 4, "fc": 14}


def caffe_blob(dims, style):
    n = 1
    for d in dims:
        n *= d
    # Positive values, so BatchNorm's variance is valid.
    vals = [1.0] if dims == [1] else [0.5 + 0.05 * (i % 9) for i in range(n)]
    if style == "double":
        m = packed_doubles(8, vals)
    else:
        m = packed_floats(5, vals)
    if style == "legacy":
        legacy = [1] * (4 - len(dims)) + dims
        return m + b"".join(vint(f, v) for f, v in zip((1, 2, 3, 4), legacy))
    return m + blob(7, packed_varints(1, dims))


def caffemodel(style, v1=False):
    out = blob(1, "fuzz")
    for name, shapes in CAFFE_BLOBS:
        blobs = [caffe_blob(s, style) for s in shapes]
        if v1 and name in V1_TYPES:
            layer = blob(4, name) + vint(5, V1_TYPES[name]) + b"".join(blob(6, b) for b in blobs)
            out += blob(2, layer)
        else:
            layer = blob(1, name) + b"".join(blob(7, b) for b in blobs)
            out += blob(100, layer)
    # A layer the net does not have: warned about, not an error.
    out += blob(100, blob(1, "loss") + blob(2, "SoftmaxWithLoss"))
    return out


def caffe_seeds():
    return {"shape.caffemodel": caffemodel("shape"),
            "legacy_v1.caffemodel": caffemodel("legacy", v1=True),
            "double.caffemodel": caffemodel("double")}


def write(sub, files):
    d = os.path.join(HERE, "corpus", sub)
    os.makedirs(d, exist_ok=True)
    for name, data in files.items():
        with open(os.path.join(d, name), "wb") as f:
            f.write(data)


if __name__ == "__main__":
    write("onnx", onnx_seeds())
    write("caffemodel", caffe_seeds())
