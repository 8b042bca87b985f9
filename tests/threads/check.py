#!/usr/bin/python3
"""check.py - multi-threaded generated code (--threads N) gives the same bits
for every thread count.

Models: the Fashion-MNIST sample, a fixed graph and a random graph of
tests/random/gen.py (convolutions of many shapes, pools, Concat, Gemm
heads), a fully-connected net at batch 4 (gemm_fc) and one at batch 64 (the
SGEMM), a wider CNN that is also built under the direct, im2col and
Winograd families' strategies, so their rows run threaded, Winograd
layers of many tile blocks (for the host, AVX2 and c99; also built with
--threads 1 and 2, which cut them into fewer sets, for the same bits), and a small
MobileNet-like net (depthwise rows, max and average pools in the blocked
layouts, a residual Add, a 3-channel input, 16-channel convolutions split by
rows) built for the host, for x86-64-v3 (AVX2) and for c99 (plain C), and
an inception block on 14 x 14 and 7 x 7 planes (HWC Concats, 1x1 rows cut
into more bands, depthwise rows cut into channel slices, blocked <-> HWC
transforms; under family:winograd its 3x3 GEMMs in parts side by side), for
the host and for AVX2, and MobileNetV2's expand -> depthwise pairs at
batch 2, large enough to fuse (runtime/conv_pw_dw.c; an AVX-512 host
fuses both in CHW16c, the AVX2 build, which must fuse one, in HWC). Each
is compiled with
--threads 5 and built (-O0, to keep make check cheap) with
-DRT_PARALLEL_MIN_WORK=0, so that even the small layers split over the
threads (the wide, mobile and blocks CNNs and the FC nets also with the default threshold);
tests/threads/driver.c runs it at 1, 2, 3, 4 and 5 threads
(model_set_threads) and every output must be bitwise identical across the
counts, and close to gen.py's float64 reference (1e-3 relative to the
largest value: a sanity check, the identity is the test). The sample is also
built with --threads 1 (no pool at all) and with -Dmodel_SINGLE_THREAD, whose
outputs must equal the threaded ones bit for bit; and the threaded sample
must compile warning-free with gcc and clang (-std=c99 -Wall -Wextra
-pedantic -Werror -O2), and with clang also with the threads compiled out (-O0).

Environment: DNNCC, DNNCC_SRCDIR, DNNCC_BUILDDIR, CC (make check sets them);
THREADS_KEEP=1 keeps the work directory. Exits 77 (skipped) without numpy,
torch and onnx.
"""

import os
import shutil
import subprocess
import sys

try:
    import numpy as np
    import onnx
    from onnx import TensorProto, helper, numpy_helper
    import torch  # noqa: F401  (gen.py's references)
except ImportError as e:
    print("check.py: skipped: %s" % e)
    sys.exit(77)

here = os.path.dirname(os.path.abspath(__file__))
srcdir = os.environ.get("DNNCC_SRCDIR") or os.path.abspath(os.path.join(here, "..", ".."))
builddir = os.environ.get("DNNCC_BUILDDIR") or os.getcwd()
dnncc = os.environ.get("DNNCC") or os.path.join(builddir, "dnncc")
cc = os.environ.get("CC") or "cc"
sys.path.insert(0, os.path.join(srcdir, "tests", "random"))
import gen  # noqa: E402

COUNTS = [1, 2, 3, 4, 5]
TOL = 1e-3
work = os.path.join(builddir, "tests", "threads-work")
failures = []


def run(cmd, cwd=None):
    p = subprocess.run(cmd, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                       universal_newlines=True)
    return p.returncode, p.stdout


def fc_net(name, batch, sizes, seed):
    """Gemm layers (transB, bias) with Relu between them: [batch, sizes[0]] ->
    ... -> [batch, sizes[-1]]; returns (model, inputs, float64 outputs)."""
    rng = np.random.RandomState(seed)
    x = rng.uniform(-1, 1, (batch, sizes[0])).astype(np.float32)
    nodes, inits, v, cur = [], [], x.astype(np.float64), "x"
    for i in range(len(sizes) - 1):
        w = rng.uniform(-1, 1, (sizes[i + 1], sizes[i])).astype(np.float32) / np.sqrt(sizes[i])
        b = rng.uniform(-0.1, 0.1, sizes[i + 1]).astype(np.float32)
        inits += [numpy_helper.from_array(w, "w%d" % i), numpy_helper.from_array(b, "b%d" % i)]
        nodes.append(helper.make_node("Gemm", [cur, "w%d" % i, "b%d" % i], ["g%d" % i], transB=1))
        v = v @ w.astype(np.float64).T + b
        cur = "g%d" % i
        if i + 2 < len(sizes):
            nodes.append(helper.make_node("Relu", [cur], ["r%d" % i]))
            v = np.maximum(v, 0)
            cur = "r%d" % i
    graph = helper.make_graph(nodes, name, [helper.make_tensor_value_info("x", TensorProto.FLOAT, list(x.shape))],
                              [helper.make_tensor_value_info(cur, TensorProto.FLOAT, list(v.shape))], inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    return model, [("x", x)], [(cur, v)]


def wide_cnn():
    """A CNN with layers big enough for every family to pick real rows."""
    g = gen.Graph("wide", gen.random.Random(5))
    x = g.add_input([1, 16, 20, 20])
    t = g.conv(x, 48, [3, 3], pads=[1, 1, 1, 1])
    t = g.unary(t, "Relu")
    t = g.conv(t, 48, [3, 3], pads=[1, 1, 1, 1], group=48)
    t = g.conv(t, 40, [1, 1])
    t = g.pool(t, "MaxPool", [2, 2], [2, 2], [0, 0, 0, 0], 0)
    t = g.conv(t, 64, [5, 5], pads=[2, 2, 2, 2], stride=[1, 1])
    t = g.conv(t, 32, [3, 3], stride=[2, 2], pads=[1, 1, 1, 1])
    t = g.conv(t, 24, [1, 1], stride=[2, 2])  # the 1x1 rows' strided path
    t = g.flatten(g.global_avg(t))
    t = g.gemm(t, 10)
    return gen.finish(g, [t])


def mobile_net():
    """Depthwise rows, pools in the blocked layouts, a residual Add, a
    3-channel input (the partial block of the CHW -> CHW16c transform) and
    convolutions with one vector of output channels (split by rows): the
    kernels whose rows the threads share."""
    g = gen.Graph("mobile", gen.random.Random(11))
    x = g.add_input([1, 3, 45, 37])
    t = g.conv(x, 16, [3, 3], stride=[2, 2], pads=[1, 1, 1, 1])
    t = g.unary(t, "Relu")
    t = g.conv(t, 16, [3, 3], pads=[1, 1, 1, 1], group=16)
    t = g.conv(t, 24, [1, 1])
    t = g.pool(t, "MaxPool", [3, 3], [2, 2], [1, 1, 1, 1], 0)
    r = g.conv(t, 24, [5, 5], stride=[1, 1], pads=[2, 2, 2, 2], group=24)
    r = g.unary(r, "Relu")
    r = g.conv(r, 24, [1, 1])
    t = g.binary("Add", r, t, g.values[t])
    t = g.conv(t, 40, [3, 3], stride=[2, 2], pads=[1, 1, 1, 1], group=8)
    t = g.pool(t, "AveragePool", [3, 3], [1, 1], [1, 1, 1, 1], 0)
    t = g.flatten(g.global_avg(t))
    t = g.gemm(t, 10)
    return gen.finish(g, [t])


def expand_net():
    """Two 1x1 expansions to 96 channels, each read only by a 3x3 depthwise
    (stride 1, stride 2), on 96 x 96 planes at batch 2: the expanded tensors
    (7 MiB) are past the blocked layouts' fusion threshold (passes/fuse.c),
    so the fused kernel runs both pairs, its chunks shared by the threads
    image after image."""
    g = gen.Graph("expand", gen.random.Random(17))
    x = g.add_input([2, 16, 96, 96])
    outs = []
    for stride in (1, 2):
        t = g.unary(g.conv(x, 96, [1, 1]), "Relu")
        t = g.conv(t, 96, [3, 3], stride=[stride, stride], pads=[1, 1, 1, 1], group=96)
        t = g.unary(t, "Relu")
        outs.append(g.flatten(g.global_avg(t)))
    return gen.finish(g, outs)


def inception_net():
    """An inception block on 7 x 7 and 14 x 14 planes: HWC Concat copies
    split by rows, 3x3 Winograd (its GEMMs and, on HWC, its staged
    transforms run side by side in parts), 1x1 rows with one pair of
    output vectors cut into more bands, depthwise rows on a 7-row plane cut
    across channel slices, and the blocked <-> HWC transforms."""
    g = gen.Graph("incept", gen.random.Random(13))
    x = g.add_input([1, 40, 14, 14])
    a = g.conv(x, 24, [1, 1])
    b = g.conv(x, 32, [3, 3], pads=[1, 1, 1, 1])
    b = g.unary(b, "Relu")
    c = g.conv(x, 40, [3, 3], pads=[1, 1, 1, 1], group=40)
    t = g.concat([a, b, c])
    t = g.conv(t, 96, [3, 3], stride=[2, 2], pads=[1, 1, 1, 1], group=96)
    t = g.conv(t, 48, [1, 1])
    d = g.conv(t, 48, [3, 3], pads=[1, 1, 1, 1])
    e = g.conv(t, 24, [1, 1])
    t = g.concat([d, e, t])
    t = g.conv(t, 120, [3, 3], pads=[1, 1, 1, 1], group=120)
    t = g.flatten(g.global_avg(t))
    t = g.gemm(t, 10)
    return gen.finish(g, [t])


def blocks_net():
    """Winograd layers of many tile blocks (60 x 60 and 58 x 58 outputs: 2 to
    19 blocks whichever tile the family picks, partial edge tiles, channel
    counts off every vector width, two groups; each over the 1 Mi
    multiply-adds that give a layer sets), which the threads take as whole
    sets of blocks, fewer sets than the 5 threads. Also built for 1 and 2
    threads (--threads: one set and one slot, at most two sets), whose
    outputs must equal the --threads 5 build's."""
    g = gen.Graph("blocks", gen.random.Random(17))
    x = g.add_input([1, 8, 60, 60])
    t = g.conv(x, 20, [3, 3], pads=[1, 1, 1, 1])
    t = g.unary(t, "Relu")
    t = g.conv(t, 18, [3, 3], group=2)
    t = g.conv(t, 9, [3, 3], pads=[1, 1, 1, 1])
    t = g.flatten(g.global_avg(t))
    t = g.gemm(t, 10)
    return gen.finish(g, [t])


def cases():
    """[(name, model, inputs, outputs, strategies)]"""
    conv_strats = ["pbqp", "family:direct", "family:im2", "family:winograd"]
    res = []
    sample = onnx.load(os.path.join(srcdir, "samples", "fashion_mnist", "fashion_cnn.onnx"))
    img = np.fromfile(os.path.join(srcdir, "samples", "fashion_mnist", "images.bin"),
                      dtype="<f4")[:784].reshape(1, 1, 28, 28)
    res.append(("sample", sample, [(sample.graph.input[0].name, img)], None, ["pbqp"]))
    res.append(("wide",) + wide_cnn() + (conv_strats,))
    res.append(("mobile",) + mobile_net() + (["pbqp", "pbqp@x86-64-v3", "pbqp@c99"],))
    res.append(("expand",) + expand_net() + (["pbqp", "pbqp@x86-64-v3"],))
    res.append(("blocks",) + blocks_net() + (["family:winograd", "family:winograd@x86-64-v3",
                                              "family:winograd@c99"],))
    res.append(("incept",) + inception_net() + (["pbqp", "family:winograd", "family:winograd@x86-64-v3"],))
    for name, m, ins, outs in gen.fixed_graphs():
        if name in ("alexnet_stem",):
            res.append((name, m, ins, outs, ["pbqp"]))
    for i in range(1):
        m, ins, outs = gen.random_graph(7, i)
        res.append(("random7_%d" % i, m, ins, outs, ["pbqp"]))
    res.append(("fc4",) + fc_net("fc4", 4, [640, 128, 128, 8, 128, 640], 1) + (["pbqp"],))
    res.append(("fc64",) + fc_net("fc64", 64, [96, 200, 72], 2) + (["pbqp"],))
    return res


def build(d, model_path, strategy, threads, defines=(), cflags=("-O0",)):
    """dnncc + cc into directory d; returns the driver path or None."""
    os.makedirs(d, exist_ok=True)
    strategy, _, target = strategy.partition("@")
    rc, out = run([dnncc, model_path, "-o", os.path.join(d, "model.c"), "--threads", str(threads),
                   "--strategy", strategy] + (["--target", target] if target else []))
    if rc != 0:
        failures.append("%s: dnncc failed:\n%s" % (d, out))
        return None
    exe = os.path.join(d, "driver")
    cmd = [cc, "-std=c99"] + list(cflags) + ["-I", d] + ["-D" + x for x in defines] + \
        ["-o", exe, os.path.join(d, "model.c"), os.path.join(here, "driver.c"), "-lm"]
    if threads == 1:
        cmd.insert(1, "-DSINGLE_BUILD")
    rc, out = run(cmd, cwd=d)
    if rc != 0:
        failures.append("%s: cc failed: %s\n%s" % (d, " ".join(cmd), out))
        return None
    return exe


def outputs(d, exe, inputs, counts):
    """Runs the driver; returns {count: [float32 arrays]} or None."""
    files = []
    for k, (_, arr) in enumerate(inputs):
        f = os.path.join(d, "in%d.bin" % k)
        arr.astype("<f4").tofile(f)
        files.append(f)
    rc, out = run([exe, ",".join(str(c) for c in counts), d] + files)
    if rc != 0:
        failures.append("%s: driver exited %d:\n%s" % (d, rc, out))
        return None
    res = {}
    for c in counts:
        res[c] = []
        j = 0
        while os.path.exists(os.path.join(d, "t%d_%d.bin" % (c, j))):
            res[c].append(np.fromfile(os.path.join(d, "t%d_%d.bin" % (c, j)), dtype="<f4"))
            j += 1
    return res


def same_bits(a, b):
    return len(a) == len(b) and all(x.tobytes() == y.tobytes() for x, y in zip(a, b))


def main():
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    n_builds = n_runs = 0
    sample_ref = None
    for name, model, inputs, want, strategies in cases():
        mpath = os.path.join(work, name + ".onnx")
        onnx.save(model, mpath)
        # every strategy with all layers split; the pbqp build also with the
        # default threshold (small layers on one thread, larger ones split)
        builds = [(s, ["RT_PARALLEL_MIN_WORK=0"]) for s in strategies]
        if name in ("wide", "mobile", "fc4", "fc64"):
            builds.append(("pbqp", []))
        if name == "blocks":
            builds.append(("family:winograd", []))
        for s, defines in builds:
            d = os.path.join(work, name, s.replace(":", "_").replace("@", "_") +
                             ("_default" if not defines else ""))
            exe = build(d, mpath, s, 5, defines=defines)
            n_builds += 1
            if not exe:
                continue
            fused = ""
            if name == "expand":
                with open(os.path.join(d, "model.c")) as f:
                    n_fused = f.read().count("rt_conv_pw_dw(&pe")
                fused = " (%d pairs fused)" % n_fused
                if s.endswith("@x86-64-v3") and n_fused < 1:
                    failures.append("expand %s: no pair fused" % s)
            got = outputs(d, exe, inputs, COUNTS)
            if got is None:
                continue
            n_runs += len(COUNTS)
            for c in COUNTS[1:]:
                if not same_bits(got[COUNTS[0]], got[c]):
                    failures.append("%s %s: %d threads differ from %d" % (name, s, c, COUNTS[0]))
            if want is not None:
                for (oname, ref), g in zip(want, got[COUNTS[0]]):
                    ref = np.asarray(ref, dtype=np.float64).ravel()
                    err = np.max(np.abs(g - ref)) / max(np.max(np.abs(ref)), 1e-30) if ref.size else 0
                    if not err <= TOL:
                        failures.append("%s %s: output %s off the reference by %.3g" % (name, s, oname, err))
            if name == "sample" and s == "pbqp" and defines:
                sample_ref = got[COUNTS[0]]
            if name == "blocks":
                # built for fewer threads: fewer sets of blocks (one set and
                # one slot at --threads 1), the same bits
                for bt in (1, 2):
                    d2 = "%s_built%d" % (d, bt)
                    exe2 = build(d2, mpath, s, bt, defines=defines)
                    n_builds += 1
                    got2 = exe2 and outputs(d2, exe2, inputs, list(range(1, bt + 1)))
                    if not got2:
                        continue
                    n_runs += len(got2)
                    for c, g2 in got2.items():
                        if not same_bits(g2, got[COUNTS[0]]):
                            failures.append("%s %s built for %d threads, run on %d: differs from "
                                            "the --threads 5 build" % (name, s, bt, c))
                print("%-16s %-24s built for 1 and 2 threads: outputs identical" %
                      (name, s + ("" if defines else " (default)")))
            print("%-16s %-24s outputs identical at %s threads%s" %
                  (name, s + ("" if defines else " (default)"), ",".join(map(str, COUNTS)), fused))
    # The sample without the pool: --threads 1, and --threads 5 compiled single-threaded.
    spath = os.path.join(work, "sample.onnx")
    img = [(None, np.fromfile(os.path.join(srcdir, "samples", "fashion_mnist", "images.bin"),
                              dtype="<f4")[:784])]
    for label, threads, defines in (("threads1", 1, []), ("single", 5, ["model_SINGLE_THREAD"])):
        d = os.path.join(work, "sample", label)
        exe = build(d, spath, "pbqp", threads, defines=defines)
        n_builds += 1
        got = exe and outputs(d, exe, img, [1] if threads == 1 else [1, 3])
        if got and sample_ref is not None:
            for c, g in got.items():
                if not same_bits(g, sample_ref):
                    failures.append("sample %s (%d threads asked): differs from the pool's outputs" % (label, c))
            print("sample           %-16s outputs identical to the threaded build" % label)
    # Warning-free builds of the threaded code, threads in and out.
    d = os.path.join(work, "sample", "warnings")
    os.makedirs(d, exist_ok=True)
    rc, out = run([dnncc, spath, "-o", os.path.join(d, "model.c"), "--threads", "3"])
    if rc != 0:
        failures.append("dnncc --threads 3 failed:\n" + out)
    else:
        for comp in ("gcc", "clang"):
            if not shutil.which(comp):
                print("warnings: %s not installed, not checked" % comp)
                continue
            for extra in (["-O2"], ["-O0", "-Dmodel_SINGLE_THREAD"]) if comp == "clang" else (["-O2"],):
                cmd = [comp, "-std=c99", "-Wall", "-Wextra", "-pedantic", "-Werror", "-c",
                       "model.c", "-o", "model.o"] + extra
                rc, out = run(cmd, cwd=d)
                n_builds += 1
                if rc != 0:
                    failures.append("%s failed:\n%s" % (" ".join(cmd), out))
                else:
                    print("warnings: %s clean" % " ".join(cmd))
    for f in failures:
        print("FAIL: " + f)
    print("%d builds, %d runs, %d failures" % (n_builds, n_runs, len(failures)))
    if not failures and not os.environ.get("THREADS_KEEP"):
        shutil.rmtree(work, ignore_errors=True)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
