#!/usr/bin/python3
"""emit_golden_cases.py - the compilations tests/emit_golden.sh runs twice.

Writes the models that do not exist as files (random graphs of
tests/random/gen.py) into WORK and prints one case per line:

    LABEL<TAB>MODEL<TAB>OPTION OPTION ...

(options separated by single spaces; none contains a space). The set covers
what backend/emit*.c prints: the bundled sample under every strategy,
target, --threads 2, --instrument and --blas openblas; the torchvision
models of tests/e2e and the model families of tests/families when their
caches exist; the Caffe prototxts with random weights; random graphs of
tests/random/gen.py; every ONNX backend node test (integer, boolean and
float64 ops included), with the operands dnncc needs at compile time bound
from the test's data set the way tests/conformance.c binds them; and --train
on the sample's MLP; and `dnncc profile --emit-harness` (options starting
with "profile") on the sample and some models. A case dnncc refuses is still
a case: the refusal (exit status and message) must stay the same.

usage: emit_golden_cases.py SRCDIR WORK [E2E_DIR] [FAMILIES_DIR]
Needs /usr/bin/python3 with onnx, numpy and torch (for gen.py).
"""
import os
import sys

import onnx

# Operand positions dnncc needs at compile time (tests/conformance.c,
# bound_operands): {op: (first, last)}.
BOUND = {
    "Reshape": (1, 1), "Expand": (1, 1), "Tile": (1, 1), "Slice": (1, 4),
    "Pad": (1, 3), "Resize": (1, 3), "Upsample": (1, 1), "ConstantOfShape": (0, 0),
    "Squeeze": (1, 1), "Unsqueeze": (1, 1), "Split": (1, 1), "TopK": (1, 1),
    "Range": (0, 2), "Trilu": (1, 1), "CumSum": (1, 1), "ReduceSum": (1, 1),
    "ReduceMean": (1, 1), "ReduceMax": (1, 1), "ReduceMin": (1, 1), "ReduceProd": (1, 1),
    "ReduceL1": (1, 1), "ReduceL2": (1, 1), "ReduceLogSum": (1, 1),
    "ReduceLogSumExp": (1, 1), "ReduceSumSquare": (1, 1),
}

STRATEGIES = ["pbqp", "canonical", "greedy", "sum2d", "reference",
              "family:direct", "family:im2", "family:kn2", "family:winograd",
              "family:depthwise"]
TARGETS = ["c99", "x86-64-v3", "x86-64-v4", "armv8", "cortex-m"]


def out(label, model, opts):
    print("%s\t%s\t%s" % (label, model, " ".join(opts)))


def node_binds(path, tdir):
    """--bind options for the graph inputs read at a BOUND position."""
    m = onnx.load(path, load_external_data=False)
    inputs = [i.name for i in m.graph.input
              if i.name not in {t.name for t in m.graph.initializer}]
    binds = []
    for n in m.graph.node:
        lim = BOUND.get(n.op_type)
        if not lim:
            continue
        for k in range(lim[0], min(lim[1], len(n.input) - 1) + 1):
            name = n.input[k]
            if name in inputs:
                pb = os.path.join(tdir, "test_data_set_0", "input_%d.pb" % inputs.index(name))
                opt = "%s=%s" % (name, pb)
                if os.path.exists(pb) and opt not in binds:
                    binds += ["--bind", opt]
    return binds


def main():
    src, work = sys.argv[1], sys.argv[2]
    e2e = sys.argv[3] if len(sys.argv) > 3 else ""
    fam = sys.argv[4] if len(sys.argv) > 4 else ""
    os.makedirs(work, exist_ok=True)

    sample = os.path.join(src, "samples/fashion_mnist/fashion_cnn.onnx")
    for s in STRATEGIES:
        out("sample_" + s.replace(":", "_"), sample, ["--strategy", s])
    for t in TARGETS:
        out("sample_target_" + t, sample, ["--target", t])
    out("sample_threads2", sample, ["--threads", "2"])
    out("sample_instrument", sample, ["--instrument"])
    out("sample_openblas", sample, ["--blas", "openblas"])
    out("sample_carray", sample, ["--weights", "c-array"])
    out("sample_file", sample, ["--weights", "file"])
    out("sample_cm_instrument", sample, ["--target", "cortex-m", "--instrument"])

    # "profile" first: dnncc profile MODEL --emit-harness DIR OPTIONS
    out("harness_sample", sample, ["profile"])
    out("harness_sample_c99", sample, ["profile", "--target", "c99"])
    out("harness_sample_armv8", sample, ["profile", "--target", "armv8"])
    out("harness_sample_openblas", sample, ["profile", "--blas", "openblas"])

    mlp = os.path.join(src, "samples/fashion_train/mlp_init.onnx")
    out("train_sgd", mlp, ["--train", "--batch", "8"])
    out("train_adam_mse", mlp, ["--train", "--optimizer", "adam", "--loss", "mse"])
    out("train_momentum_c99", mlp, ["--train", "--optimizer", "momentum", "--target", "c99"])

    for net in ("alexnet", "googlenet", "vgg16"):
        p = os.path.join(src, "samples/caffe/%s.prototxt" % net)
        out("caffe_" + net, p, ["--random-weights", "1"])

    if e2e and os.path.isdir(e2e):
        for net in ("alexnet", "vgg11", "googlenet", "resnet18", "mobilenet_v2",
                    "squeezenet1_1", "resnet18_dynbatch"):
            p = os.path.join(e2e, net + ".onnx")
            if not os.path.exists(p):
                continue
            shape = ["--shape", "input=1,3,224,224"] if net.endswith("dynbatch") else []
            out("e2e_" + net, p, shape)
            out("e2e_%s_threads2" % net, p, shape + ["--threads", "2"])
            if net in ("squeezenet1_1", "resnet18"):
                out("harness_e2e_" + net, p, ["profile"])
            if net in ("googlenet", "resnet18", "mobilenet_v2", "squeezenet1_1"):
                out("e2e_%s_greedy" % net, p, ["--strategy", "greedy"])
                out("e2e_%s_instrument" % net, p, ["--instrument"])
    if fam and os.path.isdir(fam):
        for net in ("ds_cnn", "mobilenet_v1", "resnet8", "fc_ae", "unet", "detector",
                    "transformer", "volumetric"):
            p = os.path.join(fam, net + ".onnx")
            if not os.path.exists(p):
                continue
            for s in ("pbqp", "canonical", "greedy", "sum2d"):
                out("fam_%s_%s" % (net, s), p, ["--strategy", s])
            out("fam_%s_cortexm" % net, p, ["--target", "cortex-m"])
            out("fam_%s_threads2" % net, p, ["--threads", "2"])
            out("fam_%s_instrument" % net, p, ["--instrument"])
            out("harness_fam_" + net, p, ["profile"])

    sys.path.insert(0, os.path.join(src, "tests/random"))
    import gen
    import random as pyrandom
    graphs = [(name, m) for name, m, _, _ in gen.fixed_graphs()]
    for i in range(12):
        graphs.append(("g%d" % i, gen.random_graph(7, i, 10)[0]))
    rng = pyrandom.Random(1)
    for name, m in graphs:
        p = os.path.join(work, "random_%s.onnx" % name)
        onnx.save(m, p)
        for s in rng.sample(STRATEGIES, 3):
            out("random_%s_%s" % (name, s.replace(":", "_")), p, ["--strategy", s])
        out("random_%s_threads2" % name, p, ["--threads", "2"])

    for tset in ("node", "pytorch-converted", "pytorch-operator", "simple"):
        d = os.path.join("/usr/share/libonnx-testdata/data", tset)
        if not os.path.isdir(d):
            continue
        for t in sorted(os.listdir(d)):
            p = os.path.join(d, t, "model.onnx")
            if not os.path.exists(p):
                continue
            try:
                binds = node_binds(p, os.path.join(d, t))
            except Exception:  # a model onnx cannot read: dnncc's refusal is the case
                binds = []
            out("%s_%s" % (tset, t), p, binds)


if __name__ == "__main__":
    main()
