#!/usr/bin/python3
"""gen.py - random small ONNX graphs and their float64 reference outputs.

Test tooling for dnncc's random-graph suite (tests/random/run.py drives it).
Every graph is a function of (seed, index) alone: the same pair gives the same
model, inputs and reference outputs on every machine, so a failure is replayed
from the two numbers.

A graph is a DAG over one or two graph inputs [N, C, H, W] (or [N, C, L] for
1-D graphs; N is 1, sometimes 2 or 3): chains and branches of Conv (kernel 1..7, non-square 1x7/7x1,
stride, dilation, asymmetric pads, groups, depthwise, with or without bias),
MaxPool/AveragePool (ceil_mode, pads, count_include_pad), Add/Mul with
broadcasting (per-channel constants, scalars, two activations), the
transformer patterns (attention scores as a MatMul of two activations over
the last two axes, Softmax on the last or the channel axis, a Linear layer
as MatMul + bias Add, GELU in five nodes, Erf, HardSigmoid), squeeze-
excitation gates Mul(Sigmoid(GlobalAveragePool(x)), x), residual
blocks (conv chains plus a shortcut, then Add and an activation), Concat on the
channel axis (inception branches, or any same-sized tensors, repeated ones too), Relu/Clip/Sigmoid/LeakyRelu/Tanh, BatchNormalization,
GlobalAveragePool and Flatten+Gemm(+Softmax) heads (Gemm with transB, alpha,
beta). The graph outputs are
every tensor nothing reads plus a random set of others: tensors later nodes
also read, a graph input passed straight through, and sometimes the same
tensor listed twice.

The references are computed in float64 (torch.nn.functional.conv{1,2}d on
double tensors for Conv, numpy elsewhere) from the float32 weights and inputs
that go into the model, following the ONNX operator pages (opset 13). Pooling
follows ONNX's reference implementation as dnncc documents it in
runtime/avgpool.c: with ceil_mode a last window that would start in the end
padding is dropped, and positions beyond the padded input are not counted.

fixed_graphs() returns the issue-7 graphs: networks whose output is written by
a convolution that a layout-changing primitive may compute (5x5, dilated,
1x7/7x1, 11x11 s4 then 7x7 s2, an inception Concat, grouped convs), and one
with conv outputs that later nodes read, a passed-through input and a
duplicate output.
"""

import math
import random

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper
import torch
import torch.nn.functional as F

OPSET = 13


class Graph:
    """A graph under construction: ONNX nodes plus the float64 value of every
    tensor (computed as the node is added, so shapes are always known)."""

    def __init__(self, name, rng):
        self.name = name
        self.rng = rng
        self.nodes = []
        self.inits = []
        self.inputs = []      # (name, float32 array)
        self.values = {}      # tensor name -> float64 array
        self.readers = {}     # tensor name -> number of nodes reading it
        self.counter = 0

    # -- naming and constants ------------------------------------------------
    def fresh(self, stem):
        self.counter += 1
        return "%s%d" % (stem, self.counter)

    def const(self, stem, arr):
        """An initializer; returns its name and its float32 value as float64."""
        arr = np.asarray(arr, dtype=np.float32)
        name = self.fresh(stem)
        self.inits.append(numpy_helper.from_array(arr, name))
        return name, arr.astype(np.float64)

    def add_input(self, shape):
        name = "in%d" % len(self.inputs)
        x = self.rng_uniform(shape, -1.0, 1.0).astype(np.float32)
        self.inputs.append((name, x))
        self.values[name] = x.astype(np.float64)
        self.readers.setdefault(name, 0)
        return name

    def rng_uniform(self, shape, lo, hi):
        # numpy's generator seeded from the graph's own Random: deterministic.
        gen = np.random.default_rng(self.rng.getrandbits(63))
        return gen.uniform(lo, hi, size=shape)

    def node(self, op, ins, value, stem=None, **attrs):
        out = self.fresh(stem or op.lower())
        name = "n%d_%s" % (len(self.nodes), op.lower())
        self.nodes.append(helper.make_node(op, ins, [out], name=name, **attrs))
        for i in ins:
            if i in self.values:
                self.readers[i] = self.readers.get(i, 0) + 1
        self.values[out] = value
        self.readers.setdefault(out, 0)
        return out

    def shape(self, t):
        return self.values[t].shape

    # -- operators -----------------------------------------------------------
    def conv(self, x, M, k, stride=None, dil=None, pads=None, group=1, bias=True):
        """Conv with M output channels; k, stride, dil are per spatial dim,
        pads ONNX-ordered (begins then ends)."""
        xv = self.values[x]
        nsp = xv.ndim - 2
        C = xv.shape[1]
        stride = stride or [1] * nsp
        dil = dil or [1] * nsp
        pads = pads or [0] * (2 * nsp)
        fan_in = (C // group) * int(np.prod(k))
        w = self.rng_uniform([M, C // group] + list(k), -1.0, 1.0) / math.sqrt(fan_in)
        wn, wv = self.const("w", w)
        ins = [x, wn]
        bv = None
        if bias:
            bn, bv = self.const("b", self.rng_uniform([M], -0.5, 0.5))
            ins.append(bn)
        t = torch.from_numpy(xv)
        # F.pad takes pads last dim first: (wb, we, hb, he).
        tp = []
        for d in reversed(range(nsp)):
            tp += [pads[d], pads[nsp + d]]
        t = F.pad(t, tp)
        conv = F.conv2d if nsp == 2 else F.conv1d
        y = conv(t, torch.from_numpy(wv), None if bv is None else torch.from_numpy(bv),
                 stride=stride, dilation=dil, groups=group).numpy()
        return self.node("Conv", ins, y, kernel_shape=list(k), strides=list(stride),
                         dilations=list(dil), pads=list(pads), group=group)

    def pool(self, x, op, k, stride, pads, ceil_mode, count_include_pad=0):
        xv = self.values[x]
        nsp = xv.ndim - 2
        y = pool_ref(xv, op, k, stride, pads, ceil_mode, count_include_pad)
        attrs = dict(kernel_shape=list(k), strides=list(stride), pads=list(pads),
                     ceil_mode=ceil_mode)
        if op == "AveragePool":
            attrs["count_include_pad"] = count_include_pad
        assert nsp == len(k)
        return self.node(op, [x], y, **attrs)

    def unary(self, x, op):
        v = self.values[x]
        if op == "Relu":
            return self.node(op, [x], np.maximum(v, 0.0))
        if op == "Sigmoid":
            return self.node(op, [x], 1.0 / (1.0 + np.exp(-v)))
        if op == "Tanh":
            return self.node(op, [x], np.tanh(v))
        if op == "LeakyRelu":
            a = self.rng.choice([0.01, 0.1, 0.2, 0.5])
            a32 = float(np.float32(a))
            return self.node(op, [x], np.where(v >= 0, v, v * a32), alpha=a)
        if op == "Clip":
            lo = float(np.float32(self.rng.uniform(-1.0, 0.0)))
            hi = float(np.float32(self.rng.uniform(0.1, 1.5)))
            kind = self.rng.choice(["both", "min", "relu6"])
            if kind == "relu6":
                lo, hi = 0.0, 6.0
            ln, _ = self.const("clip_min", np.array(lo))
            if kind == "min":
                return self.node(op, [x, ln], np.maximum(v, lo))
            hn, _ = self.const("clip_max", np.array(hi))
            return self.node(op, [x, ln, hn], np.clip(v, lo, hi))
        if op == "Erf":
            return self.node(op, [x], torch.special.erf(torch.from_numpy(v)).numpy())
        if op == "HardSigmoid":
            a = self.rng.choice([0.2, 0.5])   # exact in float32 (1/6 is not)
            b = self.rng.choice([0.5, 0.25])
            return self.node(op, [x], np.clip(v * a + b, 0.0, 1.0), alpha=a, beta=b)
        raise ValueError(op)

    def gelu_parts(self, x):
        """GELU the way torch exports it before opset 20: Div by sqrt 2, Erf,
        Add 1, Mul by x, Mul by 0.5, operand orders at random (dnncc fuses
        the five nodes into one Gelu)."""
        r = self.rng
        v = self.values[x]
        c, cv = self.const("sqrt2", np.array(1.4142135))
        u = self.node("Div", [x, c], v / cv)
        e = self.unary(u, "Erf")
        one, _ = self.const("one", np.array(1.0))
        ev = self.values[e]
        s = self.node("Add", [e, one] if r.random() < 0.5 else [one, e], ev + 1.0)
        m = self.node("Mul", [x, s] if r.random() < 0.5 else [s, x], v * (ev + 1.0))
        h, _ = self.const("half", np.array(0.5))
        mv = self.values[m]
        return self.node("Mul", [m, h] if r.random() < 0.5 else [h, m], mv * 0.5)

    def transpose_last(self, x):
        v = self.values[x]
        perm = list(range(v.ndim - 2)) + [v.ndim - 1, v.ndim - 2]
        return self.node("Transpose", [x], np.transpose(v, perm), perm=perm)

    def matmul(self, a, b):
        return self.node("MatMul", [a, b], np.matmul(self.values[a], self.values[b]))

    def linear(self, x, K):
        """torch's Linear on the last axis of x: MatMul by a constant [W, K],
        then a bias Add ([K] or [1, ..., K], either operand order); dnncc
        folds the pair into a Gemm between two views."""
        r = self.rng
        v = self.values[x]
        Wd = v.shape[-1]
        wn, wv = self.const("lin_w", self.rng_uniform([Wd, K], -1.0, 1.0) / math.sqrt(Wd))
        p = self.node("MatMul", [x, wn], np.matmul(v, wv))
        shp = [K] if r.random() < 0.5 else [1] * (v.ndim - 1) + [K]
        bn, bv = self.const("lin_b", self.rng_uniform(shp, -0.5, 0.5))
        pv = self.values[p]
        return self.node("Add", [p, bn] if r.random() < 0.5 else [bn, p], pv + bv)

    def binary(self, op, a, b_name, bv):
        av = self.values[a]
        y = av + bv if op == "Add" else av * bv
        return self.node(op, [a, b_name], y)

    def batchnorm(self, x):
        v = self.values[x]
        C = v.shape[1]
        scale = self.rng_uniform([C], 0.5, 1.5)
        bias = self.rng_uniform([C], -0.5, 0.5)
        mean = self.rng_uniform([C], -0.5, 0.5)
        var = self.rng_uniform([C], 0.5, 2.0)
        eps = self.rng.choice([1e-5, 1e-3])
        names = []
        vals = []
        for stem, a in (("bn_scale", scale), ("bn_b", bias), ("bn_mean", mean), ("bn_var", var)):
            n_, a_ = self.const(stem, a)
            names.append(n_)
            vals.append(a_)
        s, b, m, va = [a.reshape([1, C] + [1] * (v.ndim - 2)) for a in vals]
        eps32 = float(np.float32(eps))
        y = (v - m) / np.sqrt(va + eps32) * s + b
        return self.node("BatchNormalization", [x] + names, y, epsilon=eps)

    def concat(self, xs):
        y = np.concatenate([self.values[x] for x in xs], axis=1)
        return self.node("Concat", list(xs), y, axis=1)

    def global_avg(self, x):
        v = self.values[x]
        axes = tuple(range(2, v.ndim))
        return self.node("GlobalAveragePool", [x], v.mean(axis=axes, keepdims=True))

    def flatten(self, x):
        v = self.values[x]
        return self.node("Flatten", [x], v.reshape(v.shape[0], -1), axis=1)

    def gemm(self, x, K):
        v = self.values[x]
        Fin = v.shape[1]
        trans_b = self.rng.choice([0, 1])
        w = self.rng_uniform([K, Fin], -1.0, 1.0) / math.sqrt(Fin)
        wn, wv = self.const("fc_w", w if trans_b else w.T)
        if trans_b:
            wv = wv.T
        ins = [x, wn]
        attrs = dict(transB=trans_b)
        alpha, beta = 1.0, 1.0
        if self.rng.random() < 0.3:   # exact in float32
            alpha, beta = self.rng.choice([0.5, 2.0]), self.rng.choice([0.5, 1.5])
            attrs.update(alpha=alpha, beta=beta)
        y = alpha * (v @ wv)
        if self.rng.random() < 0.8:
            bn, bv = self.const("fc_b", self.rng_uniform([K], -0.5, 0.5))
            ins.append(bn)
            y = y + beta * bv
        return self.node("Gemm", ins, y, **attrs)

    def softmax(self, x, axis=-1):
        v = self.values[x]
        e = np.exp(v - v.max(axis=axis, keepdims=True))
        return self.node("Softmax", [x], e / e.sum(axis=axis, keepdims=True), axis=axis)

    # -- the model -----------------------------------------------------------
    def model(self, outputs):
        def info(name):
            return helper.make_tensor_value_info(name, TensorProto.FLOAT,
                                                 list(self.values[name].shape))
        g = helper.make_graph(self.nodes, self.name, [info(n) for n, _ in self.inputs],
                              [info(n) for n in outputs], initializer=self.inits)
        m = helper.make_model(g, producer_name="dnncc-random",
                              opset_imports=[helper.make_opsetid("", OPSET)])
        m.ir_version = 7
        return m


def window_len(n, k, s, d, pb, pe, ceil_mode):
    """Output length of a sliding window, as ONNX and dnncc compute it."""
    dk = (k - 1) * d + 1
    span = n + pb + pe
    if span < dk:
        return 0
    if ceil_mode:
        o = (span - dk + s - 1) // s + 1
        if (o - 1) * s >= n + pb:
            o -= 1
        return o
    return (span - dk) // s + 1


def pool_ref(x, op, k, stride, pads, ceil_mode, count_include_pad):
    """MaxPool/AveragePool over the trailing len(k) dims of x (float64)."""
    nsp = len(k)
    sp = x.shape[2:]
    outs = [window_len(sp[i], k[i], stride[i], 1, pads[i], pads[nsp + i], ceil_mode)
            for i in range(nsp)]
    y = np.zeros(x.shape[:2] + tuple(outs))
    for pos in np.ndindex(*outs):
        idx = []      # per dim, the input positions of the window inside the input
        npad = 1      # window positions inside the padded input
        for i in range(nsp):
            start = pos[i] * stride[i] - pads[i]
            win = np.arange(start, start + k[i])
            idx.append(win[(win >= 0) & (win < sp[i])])
            npad *= int(np.sum((win >= -pads[i]) & (win < sp[i] + pads[nsp + i])))
        sub = x[(slice(None), slice(None)) + np.ix_(*idx)]
        sub = sub.reshape(x.shape[0], x.shape[1], -1)
        if op == "MaxPool":
            v = sub.max(axis=2)
        else:
            v = sub.sum(axis=2) / (npad if count_include_pad else sub.shape[2])
        y[(slice(None), slice(None)) + pos] = v
    return y


# -- random graphs -------------------------------------------------------------

UNARY = ["Relu", "Clip", "Sigmoid", "LeakyRelu", "Tanh"]


def rand_conv(g, x, allow_shrink=True):
    """A random Conv on x whose output has spatial size >= 1; None if the
    attempt finds no valid configuration."""
    r = g.rng
    v = g.values[x]
    nsp = v.ndim - 2
    C = v.shape[1]
    sp = v.shape[2:]
    for _ in range(20):
        if nsp == 2:
            shape_kind = r.random()
            if shape_kind < 0.15:
                k = r.choice([[1, 7], [7, 1], [1, 3], [3, 1], [1, 5], [5, 1]])
            elif shape_kind < 0.3:
                k = [r.randint(1, 7), r.randint(1, 7)]
            else:
                kk = r.choice([1, 1, 2, 3, 3, 3, 4, 5, 5, 6, 7])
                k = [kk, kk]
        else:
            k = [r.randint(1, 7)]
        stride = [1] * nsp
        if allow_shrink and min(sp) >= 6 and r.random() < 0.3:
            s = r.choice([2, 2, 3, 4])
            stride = [s] * nsp if r.random() < 0.8 else [r.randint(1, 3) for _ in range(nsp)]
        dil = [1] * nsp
        if r.random() < 0.2:
            d = r.choice([2, 3])
            dil = [d] * nsp if r.random() < 0.8 else [r.randint(1, 3) for _ in range(nsp)]
        pk = r.random()
        if pk < 0.35:      # "same"-style symmetric
            pads = [(dil[i] * (k[i] - 1)) // 2 for i in range(nsp)] * 2
        elif pk < 0.55:
            pads = [0] * (2 * nsp)
        elif pk < 0.9:     # asymmetric
            pads = [r.randint(0, min(3, k[i] * dil[i] - 1 if k[i] * dil[i] > 1 else 1))
                    for i in list(range(nsp)) * 2]
        else:              # as wide as the kernel or wider (outputs of pad only)
            pads = [r.randint(0, k[i] * dil[i] + 1) for i in list(range(nsp)) * 2]
        outs = [window_len(sp[i], k[i], stride[i], dil[i], pads[i], pads[nsp + i], False)
                for i in range(nsp)]
        if min(outs) < 1:
            continue
        gk = r.random()
        if gk < 0.15 and C > 1:           # depthwise, multiplier 1..2
            group = C
            M = C * r.choice([1, 1, 2])
        elif gk < 0.3 and C > 1:          # grouped
            divs = [d for d in range(2, C + 1) if C % d == 0]
            group = r.choice(divs)
            M = group * r.randint(1, max(1, 16 // group))
        else:
            group = 1
            M = r.choice([1, 2, 3, 4, 5, 8, 8, 12, 16, 16, 24, 32])
        return g.conv(x, M, k, stride, dil, pads, group, bias=r.random() < 0.75)
    return None


def rand_pool(g, x):
    r = g.rng
    v = g.values[x]
    nsp = v.ndim - 2
    sp = v.shape[2:]
    for _ in range(20):
        k = [r.randint(1, 4) for _ in range(nsp)] if r.random() < 0.3 else [r.randint(1, 4)] * nsp
        if min(sp) < 6:
            s = [1] * nsp
        elif r.random() < 0.3:
            s = [r.randint(1, 3) for _ in range(nsp)]
        else:
            s = [r.choice([1, 2, 2, 3])] * nsp
        pads = [r.randint(0, k[i % nsp] - 1) if r.random() < 0.5 else 0 for i in range(2 * nsp)]
        ceil_mode = 1 if r.random() < 0.4 else 0
        outs = [window_len(sp[i], k[i], s[i], 1, pads[i], pads[nsp + i], ceil_mode)
                for i in range(nsp)]
        if min(outs) < 1:
            continue
        # ONNX requires pads smaller than the kernel.
        if any(pads[i] >= k[i % nsp] for i in range(2 * nsp)):
            continue
        op = r.choice(["MaxPool", "AveragePool"])
        return g.pool(x, op, k, s, pads, ceil_mode, r.choice([0, 1]))
    return None


def rand_binary(g, x, spatial):
    """Add or Mul of x with a per-channel constant, a scalar, a full constant
    or another activation of the same shape."""
    r = g.rng
    v = g.values[x]
    op = r.choice(["Add", "Mul"])
    kind = r.random()
    same = [t for t in spatial if t != x and g.values[t].shape == v.shape]
    if kind < 0.4 and same:
        other = r.choice(same)
        args = [x, other] if r.random() < 0.5 else [other, x]
        y = g.values[args[0]] + g.values[args[1]] if op == "Add" else g.values[args[0]] * g.values[args[1]]
        return g.node(op, args, y)
    if kind < 0.65:
        shp = [v.shape[1]] + [1] * (v.ndim - 2)
        if r.random() < 0.5:
            shp = [1] + shp
    elif kind < 0.85:
        shp = [] if r.random() < 0.5 else [1]
    else:
        shp = list(v.shape[1:]) if r.random() < 0.5 else list(v.shape)
    lo, hi = (-1.0, 1.0) if op == "Add" else (0.5, 1.5)
    cn, cv = g.const("k", g.rng_uniform(shp, lo, hi))
    if r.random() < 0.3:  # constant first: broadcasting from the left operand
        y = cv + v if op == "Add" else cv * v
        return g.node(op, [cn, x], y)
    return g.binary(op, x, cn, cv)


def token_op(g, x):
    """The transformer and squeeze-excitation patterns on an image x
    ([N, C, H, W] or [N, C, L]), each giving another tensor of the same
    rank: attention scores MatMul(x / W, x^T) over the last two axes, with a
    Softmax on the last axis or the channel axis and sometimes the product
    with x again (two activations: the SGEMM per matrix); a Linear layer on
    the last axis (MatMul + bias); an SE gate Mul(Sigmoid(GlobalAveragePool
    (x)), x) in either order; GELU in five nodes; Erf; HardSigmoid."""
    r = g.rng
    v = g.values[x]
    kind = r.random()
    if kind < 0.35:
        W = v.shape[-1]
        sn, sv = g.const("scale", np.array(1.0 / W))
        q = g.node("Mul", [x, sn], v * sv)
        s = g.matmul(q, g.transpose_last(x))
        if r.random() < 0.7:
            s = g.softmax(s, r.choice([-1, -1, 1]))
        if r.random() < 0.5:
            s = g.matmul(s, x)
        return s
    if kind < 0.55:
        return g.linear(x, r.randint(1, 12))
    if kind < 0.7:
        gate = g.unary(g.global_avg(x), "Sigmoid")
        gv = g.values[gate]
        return g.node("Mul", [gate, x] if r.random() < 0.6 else [x, gate], gv * v)
    if kind < 0.85:
        return g.gelu_parts(x)
    if kind < 0.93:
        return g.unary(x, "Erf")
    return g.unary(x, "HardSigmoid")


def same_conv(g, x, M):
    """A stride-1 Conv that keeps the spatial size (for Concat branches)."""
    r = g.rng
    v = g.values[x]
    nsp = v.ndim - 2
    if nsp == 2:
        k = r.choice([[1, 1], [3, 3], [5, 5], [1, 7], [7, 1], [3, 3]])
    else:
        k = [r.choice([1, 3, 5, 7])]
    dil = [r.choice([1, 1, 2])] * nsp
    pads = []
    ends = []
    for i in range(nsp):
        tot = dil[i] * (k[i] - 1)
        b = tot // 2 if r.random() < 0.7 else r.randint(0, tot)
        pads.append(b)
        ends.append(tot - b)
    return g.conv(x, M, k, [1] * nsp, dil, pads + ends, 1, bias=r.random() < 0.8)


def inception(g, x):
    r = g.rng
    nb = r.randint(2, 4)
    branches = []
    for _ in range(nb):
        t = x
        if r.random() < 0.4:
            t = same_conv(g, t, r.choice([4, 8, 16]))
            t = g.unary(t, "Relu")
        if r.random() < 0.25:
            v = g.values[t]
            nsp = v.ndim - 2
            t = g.pool(t, "MaxPool", [3] * nsp, [1] * nsp, [1] * (2 * nsp), 0)
        else:
            t = same_conv(g, t, r.choice([2, 4, 8, 8, 16]))
        branches.append(t)
    if r.random() < 0.2:
        branches.append(x)    # the block input itself as one more producer
    return g.concat(branches)


def residual(g, x):
    """A ResNet block: out = [Relu](conv(...conv(x)) + shortcut), the shortcut
    x itself or a 1x1 conv of x computed after the main branch (PyTorch's
    export order, so dnncc must move a conv to fold the Add), operands in
    either order; dnncc folds the Add (and Relu) into a conv's epilogue."""
    r = g.rng
    C = g.values[x].shape[1]
    t = x
    M = C if r.random() < 0.6 else r.choice([4, 8, 16])
    for _ in range(r.randint(1, 2)):
        t = same_conv(g, t, M)
        if r.random() < 0.3:
            t = g.batchnorm(t)
        if r.random() < 0.5:
            t = g.unary(t, "Relu")
    if r.random() < 0.5 and g.values[t].shape[1] == C:
        sc = x
    else:
        sc = same_conv(g, x, g.values[t].shape[1])
    args = [t, sc] if r.random() < 0.5 else [sc, t]
    y = g.node("Add", args, g.values[args[0]] + g.values[args[1]])
    if r.random() < 0.7:
        y = g.unary(y, r.choice(["Relu", "Relu", "Clip", "Sigmoid"]))
    return y


def random_graph(seed, index, max_ops=10):
    """The (seed, index) graph: returns (model, inputs, outputs) where inputs
    is [(name, float32 array)] and outputs [(name, float64 array)] in graph
    order."""
    r = random.Random(seed * 1000003 + index)
    g = Graph("g%d" % index, r)
    one_d = r.random() < 0.15
    C = r.choice([1, 2, 3, 4, 8, 16, 32])
    N = r.choice([1, 1, 1, 1, 1, 1, 1, 2, 2, 3])
    if one_d:
        shape = [N, C, r.randint(4, 24)]
    else:
        shape = [N, C, r.randint(3, 24), r.randint(3, 24)]
    x = g.add_input(shape)
    spatial = [x]          # tensors of rank >= 3
    if r.random() < 0.15:  # a second graph input of the same shape
        spatial.append(g.add_input(shape))
    flat = []              # rank-2 tensors (after Flatten/Gemm)
    nops = r.randint(2, max_ops)
    for _ in range(nops):
        # Prefer recent tensors, so graphs are mostly chains with branches.
        cur = spatial[-1] if r.random() < 0.6 else r.choice(spatial)
        p = r.random()
        t = None
        if r.random() < 0.12:
            t = token_op(g, cur)
        elif p < 0.38:
            t = rand_conv(g, cur)
        elif p < 0.48:
            t = rand_pool(g, cur)
        elif p < 0.6:
            t = g.unary(cur, r.choice(UNARY))
        elif p < 0.7:
            t = rand_binary(g, cur, spatial)
        elif p < 0.76:
            t = g.batchnorm(cur)
        elif p < 0.825:
            t = inception(g, cur)
        elif p < 0.865:
            t = residual(g, cur)
        elif p < 0.9:
            same = [s for s in spatial if g.values[s].shape[2:] == g.values[cur].shape[2:]]
            picks = [r.choice(same) for _ in range(r.randint(2, 3))]
            t = g.concat(picks)
        elif p < 0.95 and g.values[cur].shape[1] * int(np.prod(g.values[cur].shape[2:])) <= 4096:
            t = g.flatten(g.global_avg(cur) if r.random() < 0.5 else cur)
            flat.append(t)
            t = g.gemm(t, r.randint(1, 12))
            flat.append(t)
            if r.random() < 0.5:
                t = g.unary(t, r.choice(["Relu", "Sigmoid", "Tanh"]))
                flat.append(t)
            if r.random() < 0.5:
                t = g.softmax(t)
                flat.append(t)
            t = None
        else:
            t = g.global_avg(cur)
        if t is not None:
            spatial.append(t)
    if not g.nodes:
        spatial.append(rand_conv(g, x) or g.unary(x, "Relu"))
    # The outputs: every tensor nothing reads, then random extras.
    produced = [o for n in g.nodes for o in n.output]
    outs = [t for t in produced if g.readers.get(t, 0) == 0]
    extras = [t for t in produced if t not in outs]
    r.shuffle(extras)
    outs += extras[:r.randint(0, min(3, len(extras)))]
    if r.random() < 0.1:
        outs.append(g.inputs[0][0])       # an input passed straight through
    r.shuffle(outs)
    if r.random() < 0.1:
        outs.append(r.choice(outs))       # the same tensor listed twice
    return finish(g, outs)


def finish(g, outs):
    model = g.model(outs)
    return model, list(g.inputs), [(n, g.values[n]) for n in outs]


# -- the fixed issue-7 graphs ---------------------------------------------------

def fixed_graphs():
    """[(name, model, inputs, outputs)]: graph outputs written by convolutions
    whose primitive may write a layout other than the model's."""
    res = []

    def make(name, build):
        g = Graph(name, random.Random(name))
        extra = build(g) or []
        outs = [o for n in g.nodes for o in n.output if g.readers.get(o, 0) == 0]
        res.append((name,) + finish(g, outs + extra))

    def end5x5(g):
        x = g.add_input([1, 3, 16, 16])
        t = g.unary(g.conv(x, 8, [3, 3], pads=[1, 1, 1, 1]), "Relu")
        g.conv(t, 16, [5, 5], pads=[2, 2, 2, 2])

    def end_dilated(g):
        x = g.add_input([1, 4, 20, 20])
        t = g.unary(g.conv(x, 8, [3, 3], pads=[1, 1, 1, 1]), "Relu")
        g.conv(t, 8, [3, 3], dil=[2, 2], pads=[2, 2, 2, 2])

    def end_1x7_7x1(g):
        x = g.add_input([1, 8, 17, 17])
        t = g.conv(x, 16, [1, 7], pads=[0, 3, 0, 3])
        g.conv(t, 8, [7, 1], pads=[3, 0, 3, 0])

    def alexnet_stem(g):
        x = g.add_input([1, 3, 67, 67])
        t = g.unary(g.conv(x, 16, [11, 11], stride=[4, 4], pads=[2, 2, 2, 2]), "Relu")
        g.conv(t, 8, [7, 7], stride=[2, 2], pads=[3, 3, 3, 3])

    def inception_out(g):
        x = g.add_input([1, 8, 12, 12])
        b1 = g.conv(x, 8, [1, 1])
        b2 = g.conv(g.unary(g.conv(x, 8, [1, 1]), "Relu"), 16, [3, 3], pads=[1, 1, 1, 1])
        b3 = g.conv(g.unary(g.conv(x, 4, [1, 1]), "Relu"), 8, [5, 5], pads=[2, 2, 2, 2])
        b4 = g.conv(g.pool(x, "MaxPool", [3, 3], [1, 1], [1, 1, 1, 1], 0), 8, [1, 1])
        g.concat([b1, b2, b3, b4])

    def grouped_end(g):
        x = g.add_input([1, 16, 10, 10])
        t = g.conv(x, 32, [3, 3], pads=[1, 1, 1, 1], group=4)
        t = g.unary(t, "Relu")
        t = g.conv(t, 32, [3, 3], pads=[1, 1, 1, 1], group=32)     # depthwise
        g.conv(t, 16, [3, 3], pads=[1, 1, 1, 1], group=2)

    def output_sets(g):
        # Outputs that later nodes also read (so the Relu cannot be fused
        # into the conv, nor the BatchNormalization folded), the graph input
        # passed through, and one tensor listed twice.
        x = g.add_input([1, 8, 9, 9])
        c = g.conv(x, 16, [5, 5], pads=[2, 1, 2, 1])
        b = g.batchnorm(c)
        r = g.unary(b, "Relu")
        c2 = g.conv(r, 16, [3, 3], dil=[2, 2], pads=[2, 2, 2, 2], group=16)
        g.unary(c2, "Clip")
        return [c, x, b, c2, c]

    for name, build in (("end5x5", end5x5), ("end_dilated", end_dilated),
                        ("end_1x7_7x1", end_1x7_7x1), ("alexnet_stem", alexnet_stem),
                        ("inception_out", inception_out), ("grouped_end", grouped_end),
                        ("output_sets", output_sets)):
        make(name, build)
    return res


if __name__ == "__main__":
    import sys
    seed = int(sys.argv[1]) if len(sys.argv) > 1 else 1
    index = int(sys.argv[2]) if len(sys.argv) > 2 else 0
    m, ins, outs = random_graph(seed, index)
    onnx.checker.check_model(m)
    print(helper.printable_graph(m.graph))
    for n, v in outs:
        print(n, v.shape)
