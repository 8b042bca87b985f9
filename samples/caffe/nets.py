#!/usr/bin/env python3
"""nets.py - Caffe network definitions written by the dnncc project from the
published architectures, and the generator of their deploy.prototxt files.

    python3 samples/caffe/nets.py            rewrites samples/caffe/*.prototxt

The committed files are this script's output; edit the descriptions here, not
the .prototxt files. The descriptions are also what tests/caffe/equiv.py reads
to write the same weights as a .caffemodel and as an ONNX model.

  alexnet    Krizhevsky, Sutskever, Hinton, "ImageNet Classification with Deep
             Convolutional Neural Networks" (NIPS 2012), Figure 2 and section 3:
             five convolutions (conv2, conv4, conv5 split over the two GPUs: group 2),
             local response normalisation (k=2 in the paper; the Caffe default k=1
             as in the model zoo's reproduction), overlapping 3x3/2 max pooling, three
             fully connected layers. Input 227x227 so that conv1's 11x11/4 gives 55.
             `layer` style, inputs declared with input: + input_shape.
  googlenet  Szegedy et al., "Going Deeper with Convolutions" (CVPR 2015), Table 1:
             the nine inception modules with their 1x1, 3x3 reduce/3x3, 5x5
             reduce/5x5 and pool-projection widths, without the auxiliary
             classifiers (inference). `layer` style, an Input layer.
  vgg16      Simonyan, Zisserman, "Very Deep Convolutional Networks for Large-Scale
             Image Recognition" (ICLR 2015), Table 1 configuration D: 13 3x3
             convolutions (pad 1) in five blocks closed by 2x2/2 max pooling, then
             FC-4096, FC-4096, FC-1000 and softmax. The deprecated V1 `layers` style
             (type: CONVOLUTION) of the VGG release, inputs declared with input: and
             four input_dim.

Two more small nets exist for the tests only (tests/caffe/run.sh writes their
prototxt into the build tree): `features`, which uses every layer type and
option the frontend translates, and `tinyvgg`, a V1 net whose weights file uses
the V1 `layers` field.
"""
import os
import sys


class Enum:
    """An enum value in a prototxt (written without quotes)."""

    def __init__(self, name):
        self.name = name

    def __eq__(self, other):
        return isinstance(other, Enum) and other.name == self.name

    def __hash__(self):
        return hash(self.name)

    def __repr__(self):
        return self.name


MAX, AVE, SUM, PROD = Enum("MAX"), Enum("AVE"), Enum("SUM"), Enum("PROD")

# V2 type name -> V1 enum, for the `layers` style.
V1_TYPES = {
    "Convolution": "CONVOLUTION", "Pooling": "POOLING", "InnerProduct": "INNER_PRODUCT",
    "ReLU": "RELU", "Sigmoid": "SIGMOID", "TanH": "TANH", "LRN": "LRN", "Concat": "CONCAT",
    "Eltwise": "ELTWISE", "Dropout": "DROPOUT", "Softmax": "SOFTMAX", "Flatten": "FLATTEN",
    "Split": "SPLIT",
}


class Layer:
    def __init__(self, name, type, bottoms, tops, params=None, train=None):
        self.name = name
        self.type = type
        self.bottoms = list(bottoms)
        self.tops = list(tops)
        self.params = params or {}   # {"convolution_param": {...}, ...}
        self.train = train or {}     # training-only fields, written but meaningless here


class Net:
    """A network: named inputs with shapes, and layers in order."""

    def __init__(self, name, style, input_decl):
        self.name = name
        self.style = style            # "layer" or "v1"
        self.input_decl = input_decl  # "shape", "dim" or "layer"
        self.inputs = []              # [(blob, [dims])]
        self.layers = []

    def input(self, blob, dims):
        self.inputs.append((blob, list(dims)))
        return blob

    def add(self, name, type, bottoms, tops=None, train=None, **params):
        tops = tops if tops is not None else [name]
        self.layers.append(Layer(name, type, bottoms, tops, params, train))
        return tops[0]

    # Shorthands for the common layers; each returns its top.
    def conv(self, name, bottom, num_output, kernel, stride=1, pad=0, group=1, **extra):
        p = {"num_output": num_output}
        if pad:
            p["pad"] = pad
        p["kernel_size"] = kernel
        if stride != 1:
            p["stride"] = stride
        if group != 1:
            p["group"] = group
        p.update(extra)
        train = None
        if self.style == "v1":
            train = {"blobs_lr": [1, 2], "weight_decay": [1, 0]}
        else:
            train = {"param": [{"lr_mult": 1, "decay_mult": 1}, {"lr_mult": 2, "decay_mult": 0}]}
        return self.add(name, "Convolution", [bottom], train=train, convolution_param=p)

    def relu(self, name, blob):
        return self.add(name, "ReLU", [blob], [blob])

    def pool(self, name, bottom, method, kernel, stride, pad=0):
        p = {"pool": method, "kernel_size": kernel, "stride": stride}
        if pad:
            p["pad"] = pad
        return self.add(name, "Pooling", [bottom], pooling_param=p)

    def lrn(self, name, bottom):
        return self.add(name, "LRN", [bottom],
                        lrn_param={"local_size": 5, "alpha": 0.0001, "beta": 0.75})

    def fc(self, name, bottom, num_output):
        train = None
        if self.style == "v1":
            train = {"blobs_lr": [1, 2], "weight_decay": [1, 0]}
        return self.add(name, "InnerProduct", [bottom], train=train,
                        inner_product_param={"num_output": num_output})

    def dropout(self, name, blob, ratio):
        return self.add(name, "Dropout", [blob], [blob], dropout_param={"dropout_ratio": ratio})


def alexnet():
    n = Net("AlexNet (dnncc, from Krizhevsky et al. 2012)", "layer", "shape")
    x = n.input("data", [1, 3, 227, 227])
    x = n.relu("relu1", n.conv("conv1", x, 96, 11, stride=4))
    x = n.pool("pool1", n.lrn("norm1", x), MAX, 3, 2)
    x = n.relu("relu2", n.conv("conv2", x, 256, 5, pad=2, group=2))
    x = n.pool("pool2", n.lrn("norm2", x), MAX, 3, 2)
    x = n.relu("relu3", n.conv("conv3", x, 384, 3, pad=1))
    x = n.relu("relu4", n.conv("conv4", x, 384, 3, pad=1, group=2))
    x = n.relu("relu5", n.conv("conv5", x, 256, 3, pad=1, group=2))
    x = n.pool("pool5", x, MAX, 3, 2)
    x = n.dropout("drop6", n.relu("relu6", n.fc("fc6", x, 4096)), 0.5)
    x = n.dropout("drop7", n.relu("relu7", n.fc("fc7", x, 4096)), 0.5)
    x = n.fc("fc8", x, 1000)
    n.add("prob", "Softmax", [x])
    return n


# Table 1 of Szegedy et al.: #1x1, #3x3 reduce, #3x3, #5x5 reduce, #5x5, pool proj.
INCEPTION = {
    "3a": (64, 96, 128, 16, 32, 32), "3b": (128, 128, 192, 32, 96, 64),
    "4a": (192, 96, 208, 16, 48, 64), "4b": (160, 112, 224, 24, 64, 64),
    "4c": (128, 128, 256, 24, 64, 64), "4d": (112, 144, 288, 32, 64, 64),
    "4e": (256, 160, 320, 32, 128, 128), "5a": (256, 160, 320, 32, 128, 128),
    "5b": (384, 192, 384, 48, 128, 128),
}


def inception(n, tag, x):
    c1, r3, c3, r5, c5, pp = INCEPTION[tag]
    p = "inception_%s/" % tag
    b1 = n.relu(p + "relu_1x1", n.conv(p + "1x1", x, c1, 1))
    b3 = n.relu(p + "relu_3x3_reduce", n.conv(p + "3x3_reduce", x, r3, 1))
    b3 = n.relu(p + "relu_3x3", n.conv(p + "3x3", b3, c3, 3, pad=1))
    b5 = n.relu(p + "relu_5x5_reduce", n.conv(p + "5x5_reduce", x, r5, 1))
    b5 = n.relu(p + "relu_5x5", n.conv(p + "5x5", b5, c5, 5, pad=2))
    bp = n.pool(p + "pool", x, MAX, 3, 1, pad=1)
    bp = n.relu(p + "relu_pool_proj", n.conv(p + "pool_proj", bp, pp, 1))
    return n.add(p + "output", "Concat", [b1, b3, b5, bp])


def googlenet():
    n = Net("GoogLeNet (dnncc, from Szegedy et al. 2015)", "layer", "layer")
    x = n.input("data", [1, 3, 224, 224])
    x = n.relu("conv1/relu_7x7", n.conv("conv1/7x7_s2", x, 64, 7, stride=2, pad=3))
    x = n.lrn("pool1/norm1", n.pool("pool1/3x3_s2", x, MAX, 3, 2))
    x = n.relu("conv2/relu_3x3_reduce", n.conv("conv2/3x3_reduce", x, 64, 1))
    x = n.relu("conv2/relu_3x3", n.conv("conv2/3x3", x, 192, 3, pad=1))
    x = n.pool("pool2/3x3_s2", n.lrn("conv2/norm2", x), MAX, 3, 2)
    x = inception(n, "3b", inception(n, "3a", x))
    x = n.pool("pool3/3x3_s2", x, MAX, 3, 2)
    for tag in ("4a", "4b", "4c", "4d", "4e"):
        x = inception(n, tag, x)
    x = n.pool("pool4/3x3_s2", x, MAX, 3, 2)
    x = inception(n, "5b", inception(n, "5a", x))
    x = n.dropout("pool5/drop_7x7_s1", n.pool("pool5/7x7_s1", x, AVE, 7, 1), 0.4)
    x = n.fc("loss3/classifier", x, 1000)
    n.add("prob", "Softmax", [x])
    return n


def vgg16():
    n = Net("VGG_ILSVRC_16_layers (dnncc, configuration D of Simonyan and Zisserman)", "v1",
            "dim")
    x = n.input("data", [1, 3, 224, 224])
    for block, (width, count) in enumerate([(64, 2), (128, 2), (256, 3), (512, 3), (512, 3)], 1):
        for i in range(1, count + 1):
            name = "conv%d_%d" % (block, i)
            x = n.relu("relu%d_%d" % (block, i), n.conv(name, x, width, 3, pad=1))
        x = n.pool("pool%d" % block, x, MAX, 2, 2)
    x = n.dropout("drop6", n.relu("relu6", n.fc("fc6", x, 4096)), 0.5)
    x = n.dropout("drop7", n.relu("relu7", n.fc("fc7", x, 4096)), 0.5)
    x = n.fc("fc8", x, 1000)
    n.add("prob", "Softmax", [x])
    return n


def features():
    """Every layer and option the frontend translates, on small shapes."""
    n = Net("features", "layer", "layer")
    x = n.input("data", [2, 3, 13, 11])
    c = n.conv("conv", x, 8, 3, pad=1)
    c = n.add("bn", "BatchNorm", [c], [c], batch_norm_param={"eps": 0.001})
    c = n.add("bn_scale", "Scale", [c], [c], scale_param={"bias_term": True})
    c = n.add("leaky", "ReLU", [c], [c], relu_param={"negative_slope": 0.1})
    a, b = n.add("split", "Split", [c], ["a", "b"]), "b"
    s = n.add("sig", "Sigmoid", [a])
    t = n.add("tanh", "TanH", [b])
    e = n.add("sum", "Eltwise", [s, t, c], eltwise_param={"operation": SUM,
                                                          "coeff": [0.5, -2.0, 1.0]})
    p = n.add("prod", "Eltwise", [s, t], eltwise_param={"operation": PROD})
    g = n.add("gconv", "Convolution", [e], convolution_param={
        "num_output": 8, "group": 4, "kernel_h": 3, "kernel_w": 2, "stride_h": 2,
        "stride_w": 1, "pad_h": 1, "pad_w": 0})
    # Ceil mode with the last window clipped to the padded input: W 10 -> 6.
    ave = n.add("ave", "Pooling", [g], pooling_param={"pool": AVE, "kernel_size": 3, "stride": 2,
                                                     "pad": 1})
    d = n.add("dconv", "Convolution", [p], convolution_param={
        "num_output": 8, "kernel_size": 3, "dilation": 2, "pad": 2, "bias_term": False})
    # The last window would start in the end padding: dropped (13 -> 7, 11 -> 6).
    mx = n.add("max", "Pooling", [d], pooling_param={"pool": MAX, "kernel_size": 2, "stride": 2,
                                                    "pad": 1})
    mx = n.add("sc", "Scale", [mx], scale_param={"bias_term": True})
    n.add("lrn", "LRN", [mx], lrn_param={"local_size": 3, "alpha": 0.5, "beta": 0.75, "k": 2.0})
    gave = n.add("gave", "Pooling", [ave], pooling_param={"pool": AVE, "global_pooling": True})
    gmax = n.add("gmax", "Pooling", ["lrn"], pooling_param={"pool": MAX, "global_pooling": True})
    cat = n.add("cat", "Concat", [gave, gmax], concat_param={"axis": 1})
    fl = n.add("flat", "Flatten", [cat])
    fc = n.add("fc", "InnerProduct", [fl], inner_product_param={"num_output": 6,
                                                               "transpose": True})
    fc = n.dropout("drop", fc, 0.5)
    n.add("prob", "Softmax", [fc])
    # A second output: an inner product over the last axis of a 4-D blob.
    n.add("rows", "InnerProduct", ["lrn"], inner_product_param={"num_output": 4, "axis": 3})
    n.add("rows_sm", "Softmax", ["rows"], softmax_param={"axis": -1})
    return n


def tinyvgg():
    """A small V1 net: its weights file uses the V1 `layers` field."""
    n = Net("tinyvgg", "v1", "dim")
    x = n.input("data", [1, 3, 32, 32])
    for block, width in enumerate([8, 16], 1):
        for i in (1, 2):
            x = n.relu("relu%d_%d" % (block, i), n.conv("conv%d_%d" % (block, i), x, width, 3,
                                                         pad=1))
        x = n.pool("pool%d" % block, x, MAX, 2, 2)
    x = n.dropout("drop6", n.relu("relu6", n.fc("fc6", x, 32)), 0.5)
    x = n.fc("fc7", x, 10)
    n.add("prob", "Softmax", [x])
    return n


NETS = {"alexnet": alexnet, "googlenet": googlenet, "vgg16": vgg16, "features": features,
        "tinyvgg": tinyvgg}
# The committed samples (samples/caffe/NAME.prototxt).
SAMPLES = ("alexnet", "googlenet", "vgg16")


# ---- the text format ----------------------------------------------------------

def _scalar(v):
    if isinstance(v, Enum):
        return v.name
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, str):
        return '"%s"' % v.replace("\\", "\\\\").replace('"', '\\"')
    if isinstance(v, float):
        return repr(v)
    return str(v)


def _fields(out, d, indent):
    pad = "  " * indent
    for key, value in d.items():
        if value is None:
            continue
        for v in value if isinstance(value, list) else [value]:
            if isinstance(v, dict):
                out.append("%s%s {" % (pad, key))
                _fields(out, v, indent + 1)
                out.append("%s}" % pad)
            else:
                out.append("%s%s: %s" % (pad, key, _scalar(v)))


def prototxt(net):
    """The deploy.prototxt text of a net."""
    out = ["# %s" % net.name,
           "# Written by samples/caffe/nets.py (dnncc); regenerate, do not edit.",
           "name: %s" % _scalar(net.name.split(" (")[0])]
    if net.input_decl in ("shape", "dim"):
        for blob, dims in net.inputs:
            out.append("input: %s" % _scalar(blob))
            if net.input_decl == "shape":
                out.append("input_shape {")
                out.append("  " + " ".join("dim: %d" % d for d in dims))
                out.append("}")
            else:
                out.extend("input_dim: %d" % d for d in dims)
    else:
        for blob, dims in net.inputs:
            out.append("layer {")
            _fields(out, {"name": blob, "type": "Input", "top": blob}, 1)
            out.append("  input_param { shape { %s } }" % " ".join("dim: %d" % d for d in dims))
            out.append("}")
    for l in net.layers:
        if net.style == "v1":
            out.append("layers {")
            _fields(out, {"bottom": l.bottoms, "top": l.tops, "name": l.name}, 1)
            out.append("  type: %s" % V1_TYPES[l.type])
        else:
            out.append("layer {")
            _fields(out, {"name": l.name, "type": l.type, "bottom": l.bottoms, "top": l.tops}, 1)
        _fields(out, l.train, 1)
        _fields(out, l.params, 1)
        out.append("}")
    return "\n".join(out) + "\n"


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    names = sys.argv[1:] or SAMPLES
    for name in names:
        path = os.path.join(here, name + ".prototxt")
        with open(path, "w") as f:
            f.write(prototxt(NETS[name]()))
        print("wrote", path)


if __name__ == "__main__":
    main()
