#!/usr/bin/env python3
"""equiv.py - writes one network of samples/caffe/nets.py in both of dnncc's
input formats with the same weights, for the Caffe/ONNX equivalence test
(tests/caffe/run.sh):

    equiv.py NET OUTDIR [--seed S]

writes into OUTDIR
    NET.prototxt    the deploy definition (nets.py's text, as committed for the samples)
    NET.caffemodel  the weights as a binary caffe.NetParameter, through Python protobuf
                    with frontend/caffe.proto compiled by protoc --python_out (V1 nets
                    use the deprecated `layers` field and legacy 4-D blob shapes)
    NET.onnx        the same network and weights as an ONNX model (opset 13), built
                    with the onnx package's helper API from the description, layer
                    by layer, independently of dnncc's Caffe frontend (BatchNorm and
                    Scale stay separate here, for instance)
    input.bin       a random input, float32
    expected.bin    the outputs PyTorch computes with Caffe's semantics (ceil-mode
                    pooling, average pooling divided by the window clipped to the
                    padded input, LRN alpha/size), float32, outputs one after another

Outputs are Caffe's: the blobs no layer reads, in the order they are written.
"""
import argparse
import os
import subprocess
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
SRCDIR = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(SRCDIR, "samples", "caffe"))
sys.dont_write_bytecode = True  # no __pycache__ in the source tree
import nets  # noqa: E402


def caffe_pb2_module(outdir):
    """frontend/caffe.proto compiled for Python into outdir."""
    proto_dir = os.path.join(SRCDIR, "frontend")
    subprocess.run(["protoc", "-I", proto_dir, "--python_out", outdir,
                    os.path.join(proto_dir, "caffe.proto")], check=True)
    sys.path.insert(0, outdir)
    import caffe_pb2
    return caffe_pb2


def varint(n):
    out = bytearray()
    while True:
        byte = n & 0x7F
        n >>= 7
        out.append(byte | (0x80 if n else 0))
        if not n:
            return bytes(out)


def spatial(p, name, base, default):
    """A Caffe spatial parameter: NAME (one value or [h, w]) or BASE_h and BASE_w."""
    if base + "_h" in p:
        return p[base + "_h"], p[base + "_w"]
    v = p.get(name, default)
    if isinstance(v, list):
        return (v[0], v[0]) if len(v) == 1 else (v[0], v[1])
    return v, v


def pool_out(h, k, s, p):
    """Caffe's PoolingLayer::Reshape (ceil mode), assuming padding on some axis."""
    out = -(-(h + 2 * p - k) // s) + 1
    if p and (out - 1) * s >= h + p:
        out -= 1
    return out


class Builder:
    def __init__(self, net, seed, caffe_pb2):
        import onnx
        from onnx import helper, numpy_helper
        self.onnx, self.helper, self.numpy_helper = onnx, helper, numpy_helper
        self.net = net
        self.rng = np.random.RandomState(seed)
        self.pb = caffe_pb2
        self.model = caffe_pb2.NetParameter()
        self.model.name = net.name
        self.nodes, self.inits = [], []
        self.shape = {}     # blob -> shape (Caffe)
        self.oname = {}     # blob -> current ONNX tensor name
        self.torch = {}     # blob -> torch tensor
        self.uses = {}      # ONNX name -> readers, for the outputs
        self.order = []     # ONNX names in the order written, with their blob
        self.counter = 0

    # -- helpers --------------------------------------------------------------
    def uniform(self, shape, lo, hi):
        return self.rng.uniform(lo, hi, size=shape).astype(np.float32)

    def init(self, name, array):
        self.inits.append(self.numpy_helper.from_array(np.asarray(array), name))
        return name

    def read(self, blob):
        name = self.oname[blob]
        self.uses[name] = self.uses.get(name, 0) + 1
        return name

    def write(self, blob, shape, value):
        self.counter += 1
        name = "%s__%d" % (blob, self.counter)
        self.oname[blob] = name
        self.shape[blob] = list(shape)
        self.torch[blob] = value
        self.order.append((name, blob))
        return name

    def node(self, op, inputs, outputs, **attrs):
        self.nodes.append(self.helper.make_node(op, inputs, outputs, **attrs))

    def blobs(self, layer, arrays):
        """Stores a layer's parameter blobs in the .caffemodel."""
        v1 = self.net.style == "v1"
        l = self.model.layers.add() if v1 else self.model.layer.add()
        l.name = layer.name
        if v1:
            l.type = self.pb.V1LayerParameter.LayerType.Value(nets.V1_TYPES[layer.type])
        else:
            l.type = layer.type
        for a in arrays:
            b = l.blobs.add()
            if v1:
                legacy = [1] * (4 - a.ndim) + list(a.shape)
                b.num, b.channels, b.height, b.width = legacy
            else:
                b.shape.dim.extend(a.shape)
            # data: packed float field 5, merged from its wire form (a list of
            # 61 million Python floats would take minutes and gigabytes).
            raw = np.ascontiguousarray(a, dtype="<f4").tobytes()
            b.MergeFromString(b"\x2a" + varint(len(raw)) + raw)

    # -- layers ---------------------------------------------------------------
    def build(self):
        import torch
        self.T = torch
        self.F = torch.nn.functional
        graph_inputs = []
        inputs = {}
        for blob, dims in self.net.inputs:
            x = self.uniform(dims, -1, 1)
            inputs[blob] = x
            name = self.write(blob, dims, torch.from_numpy(x))
            graph_inputs.append(self.helper.make_tensor_value_info(name, 1, dims))
        for l in self.net.layers:
            getattr(self, "layer_" + l.type)(l)
        outputs = [(name, blob) for name, blob in self.order if self.uses.get(name, 0) == 0
                   and self.oname[blob] == name]
        graph = self.helper.make_graph(
            self.nodes, self.net.name.split(" (")[0], graph_inputs,
            [self.helper.make_tensor_value_info(n, 1, self.shape[b]) for n, b in outputs],
            self.inits)
        model = self.helper.make_model(graph, producer_name="dnncc tests/caffe/equiv.py",
                                       opset_imports=[self.helper.make_opsetid("", 13)])
        self.onnx.checker.check_model(model)
        expected = [self.torch[b].detach().numpy().astype(np.float32).ravel()
                    for _, b in outputs]
        return model, [inputs[b] for b, _ in self.net.inputs], expected

    def layer_Input(self, l):
        raise ValueError("Input layers are declared through Net.inputs")

    def layer_Convolution(self, l):
        p = l.params["convolution_param"]
        x = l.bottoms[0]
        n, c, h, w = self.shape[x]
        m, group = p["num_output"], p.get("group", 1)
        kh, kw = spatial(p, "kernel_size", "kernel", None)
        sh, sw = spatial(p, "stride", "stride", 1)
        ph, pw = spatial(p, "pad", "pad", 0)
        dh, dw = spatial(p, "dilation", "dilation", 1)
        fan_in = c // group * kh * kw
        bound = np.sqrt(6.0 / fan_in)
        W = self.uniform((m, c // group, kh, kw), -bound, bound)
        arrays, ins = [W], [self.read(x), self.init(l.name + ".W", W)]
        B = None
        if p.get("bias_term", True):
            B = self.uniform((m,), -1 / np.sqrt(fan_in), 1 / np.sqrt(fan_in))
            arrays.append(B)
            ins.append(self.init(l.name + ".B", B))
        self.blobs(l, arrays)
        oh = (h + 2 * ph - (dh * (kh - 1) + 1)) // sh + 1
        ow = (w + 2 * pw - (dw * (kw - 1) + 1)) // sw + 1
        y = self.F.conv2d(self.torch[x], self.T.from_numpy(W),
                          None if B is None else self.T.from_numpy(B), (sh, sw), (ph, pw),
                          (dh, dw), group)
        out = self.write(l.tops[0], [n, m, oh, ow], y)
        self.node("Conv", ins, [out], kernel_shape=[kh, kw], strides=[sh, sw],
                  pads=[ph, pw, ph, pw], dilations=[dh, dw], group=group)

    def layer_Pooling(self, l):
        p = l.params["pooling_param"]
        x = l.bottoms[0]
        n, c, h, w = self.shape[x]
        ave = p.get("pool", nets.MAX) == nets.AVE
        xt = self.torch[x]
        if p.get("global_pooling", False):
            y = xt.mean((2, 3), keepdim=True) if ave else xt.amax((2, 3), keepdim=True)
            out = self.write(l.tops[0], [n, c, 1, 1], y)
            self.node("GlobalAveragePool" if ave else "GlobalMaxPool", [self.read(x)], [out])
            return
        k, s, pad = p["kernel_size"], p.get("stride", 1), p.get("pad", 0)
        if ave:
            y = self.F.avg_pool2d(xt, k, s, pad, ceil_mode=True, count_include_pad=True)
        else:
            y = self.F.max_pool2d(xt, k, s, pad, ceil_mode=True)
        shape = [n, c, pool_out(h, k, s, pad), pool_out(w, k, s, pad)]
        assert list(y.shape) == shape, (l.name, list(y.shape), shape)
        out = self.write(l.tops[0], shape, y)
        attrs = dict(kernel_shape=[k, k], strides=[s, s], pads=[pad] * 4, ceil_mode=1)
        if ave:
            attrs["count_include_pad"] = 1
        self.node("AveragePool" if ave else "MaxPool", [self.read(x)], [out], **attrs)

    def layer_InnerProduct(self, l):
        p = l.params["inner_product_param"]
        x = l.bottoms[0]
        shape = self.shape[x]
        axis = p.get("axis", 1) % len(shape)
        num, transpose = p["num_output"], p.get("transpose", False)
        rows, k = int(np.prod(shape[:axis])), int(np.prod(shape[axis:]))
        bound = np.sqrt(6.0 / k)
        W = self.uniform((k, num) if transpose else (num, k), -bound, bound)
        B = self.uniform((num,), -1 / np.sqrt(k), 1 / np.sqrt(k))
        self.blobs(l, [W, B])
        a = self.read(x)
        if len(shape) != 2 or axis != 1:
            flat = l.name + ".flat"
            self.node("Flatten", [a], [flat], axis=axis)
            a = flat
        Wt = self.T.from_numpy(W if transpose else W.T.copy())
        y = self.torch[x].reshape(rows, k) @ Wt + self.T.from_numpy(B)
        yshape = shape[:axis] + [num]
        y = y.reshape(yshape)
        gemm_out = l.name + ".gemm" if axis != 1 else None
        out = self.write(l.tops[0], yshape, y)
        self.node("Gemm", [a, self.init(l.name + ".W", W), self.init(l.name + ".B", B)],
                  [gemm_out or out], transB=0 if transpose else 1)
        if axis != 1:
            self.node("Reshape", [gemm_out, self.init(l.name + ".shape",
                                                      np.array(yshape, np.int64))], [out])

    def layer_ReLU(self, l):
        slope = l.params.get("relu_param", {}).get("negative_slope", 0.0)
        x = l.bottoms[0]
        a = self.read(x)
        xt = self.torch[x]
        y = self.F.leaky_relu(xt, slope) if slope else self.F.relu(xt)
        out = self.write(l.tops[0], self.shape[x], y)
        if slope:
            self.node("LeakyRelu", [a], [out], alpha=slope)
        else:
            self.node("Relu", [a], [out])

    def layer_Sigmoid(self, l):
        x = l.bottoms[0]
        a = self.read(x)
        self.node("Sigmoid", [a], [self.write(l.tops[0], self.shape[x],
                                               self.T.sigmoid(self.torch[x]))])

    def layer_TanH(self, l):
        x = l.bottoms[0]
        a = self.read(x)
        self.node("Tanh", [a], [self.write(l.tops[0], self.shape[x], self.T.tanh(self.torch[x]))])

    def layer_LRN(self, l):
        p = l.params["lrn_param"]
        size, alpha, beta = p.get("local_size", 5), p.get("alpha", 1.0), p.get("beta", 0.75)
        k = p.get("k", 1.0)
        x = l.bottoms[0]
        a = self.read(x)
        # Caffe: x / (k + alpha / size * sum of squares over the window)^beta
        y = self.F.local_response_norm(self.torch[x], size, alpha, beta, k)
        self.node("LRN", [a], [self.write(l.tops[0], self.shape[x], y)], size=size,
                  alpha=alpha, beta=beta, bias=k)

    def layer_Concat(self, l):
        axis = l.params.get("concat_param", {}).get("axis", 1)
        ins = [self.read(b) for b in l.bottoms]
        shape = list(self.shape[l.bottoms[0]])
        shape[axis] = sum(self.shape[b][axis] for b in l.bottoms)
        y = self.T.cat([self.torch[b] for b in l.bottoms], axis)
        self.node("Concat", ins, [self.write(l.tops[0], shape, y)], axis=axis)

    def layer_Eltwise(self, l):
        p = l.params.get("eltwise_param", {})
        op = p.get("operation", nets.SUM)
        coeff = p.get("coeff", [1.0] * len(l.bottoms))
        terms, values = [], []
        for i, b in enumerate(l.bottoms):
            a = self.read(b)
            v = self.torch[b]
            if op == nets.SUM and coeff[i] != 1.0:
                scaled = "%s.scaled%d" % (l.name, i)
                self.node("Mul", [a, self.init("%s.c%d" % (l.name, i),
                                               np.array([coeff[i]], np.float32))], [scaled])
                a, v = scaled, v * np.float32(coeff[i])
            terms.append(a)
            values.append(v)
        acc, y = terms[0], values[0]
        for i in range(1, len(terms)):
            y = y + values[i] if op == nets.SUM else y * values[i]
            last = i == len(terms) - 1
            out = self.write(l.tops[0], self.shape[l.bottoms[0]], y) if last \
                else "%s.acc%d" % (l.name, i)
            self.node("Add" if op == nets.SUM else "Mul", [acc, terms[i]], [out])
            acc = out

    def layer_BatchNorm(self, l):
        eps = l.params.get("batch_norm_param", {}).get("eps", 1e-5)
        x = l.bottoms[0]
        c = self.shape[x][1]
        mean, var = self.uniform((c,), -0.5, 0.5), self.uniform((c,), 0.5, 1.5)
        # Caffe stores running sums and their moving-average factor.
        factor = np.float32(0.25)
        self.blobs(l, [mean * factor, var * factor, np.array([factor], np.float32)])
        mean_c = (mean * factor) * (np.float32(1) / factor)
        var_c = (var * factor) * (np.float32(1) / factor)
        a = self.read(x)
        shape = [1, c] + [1] * (len(self.shape[x]) - 2)
        y = (self.torch[x] - self.T.from_numpy(mean_c).reshape(shape)) / self.T.sqrt(
            self.T.from_numpy(var_c).reshape(shape) + np.float32(eps))
        self.node("BatchNormalization",
                  [a, self.init(l.name + ".ones", np.ones(c, np.float32)),
                   self.init(l.name + ".zeros", np.zeros(c, np.float32)),
                   self.init(l.name + ".mean", mean_c), self.init(l.name + ".var", var_c)],
                  [self.write(l.tops[0], self.shape[x], y)], epsilon=eps)

    def layer_Scale(self, l):
        bias = l.params.get("scale_param", {}).get("bias_term", False)
        x = l.bottoms[0]
        shape = self.shape[x]
        c = shape[1]
        g = self.uniform((c,), 0.5, 1.5)
        arrays = [g]
        bshape = [c] + [1] * (len(shape) - 2)
        y = self.torch[x] * self.T.from_numpy(g).reshape(bshape)
        a = self.read(x)
        mul = l.name + ".mul" if bias else None
        if bias:
            b = self.uniform((c,), -0.5, 0.5)
            arrays.append(b)
            y = y + self.T.from_numpy(b).reshape(bshape)
        out = self.write(l.tops[0], shape, y)
        self.node("Mul", [a, self.init(l.name + ".g", g.reshape(bshape))], [mul or out])
        if bias:
            self.node("Add", [mul, self.init(l.name + ".b", b.reshape(bshape))], [out])
        self.blobs(l, arrays)

    def layer_Dropout(self, l):
        self.alias(l)

    def layer_Split(self, l):
        self.alias(l)

    def alias(self, l):
        """The tops are the bottom under other names (no node)."""
        x = l.bottoms[0]
        for t in l.tops:
            self.oname[t] = self.oname[x]
            self.shape[t] = self.shape[x]
            self.torch[t] = self.torch[x]

    def layer_Softmax(self, l):
        x = l.bottoms[0]
        axis = l.params.get("softmax_param", {}).get("axis", 1) % len(self.shape[x])
        a = self.read(x)
        self.node("Softmax", [a], [self.write(l.tops[0], self.shape[x],
                                               self.T.softmax(self.torch[x], axis))], axis=axis)

    def layer_Flatten(self, l):
        x = l.bottoms[0]
        shape = self.shape[x]
        y = self.torch[x].reshape(shape[0], -1)
        a = self.read(x)
        self.node("Flatten", [a], [self.write(l.tops[0], [shape[0], int(np.prod(shape[1:]))], y)],
                  axis=1)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("net", choices=sorted(nets.NETS))
    ap.add_argument("outdir")
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    os.makedirs(args.outdir, exist_ok=True)
    net = nets.NETS[args.net]()
    with open(os.path.join(args.outdir, args.net + ".prototxt"), "w") as f:
        f.write(nets.prototxt(net))
    b = Builder(net, args.seed, caffe_pb2_module(args.outdir))
    model, inputs, expected = b.build()
    with open(os.path.join(args.outdir, args.net + ".caffemodel"), "wb") as f:
        f.write(b.model.SerializeToString())
    b.onnx.save(model, os.path.join(args.outdir, args.net + ".onnx"))
    np.concatenate([x.ravel() for x in inputs]).astype(np.float32).tofile(
        os.path.join(args.outdir, "input.bin"))
    np.concatenate(expected).astype(np.float32).tofile(os.path.join(args.outdir, "expected.bin"))


if __name__ == "__main__":
    main()
