#!/usr/bin/python3
"""resize_pinned.py - ONNX's Resize and Upsample node tests with their
operands pinned.

Every libonnx-testdata node test of Resize or Upsample gives roi, scales or
sizes as graph inputs, which dnncc refuses (it fixes every shape at compile
time; tests/conformance counts them as clean refusals). This test makes a
copy of each such model in which every graph input but the first (X) is an
initializer holding the value the test's data set feeds it, so the same
expected outputs check dnncc's nearest, linear and cubic kernels (every
coordinate mode, nearest_mode, cubic_coeff_a, exclude_outside, downsampling
and upsampling). Each copy is compiled with dnncc, built with the C compiler
(-std=c99 -O1 -Wall -Wextra -pedantic -Werror, tests/harness.c) and run, and
each output must satisfy |got - want| <= 1e-5 + 1e-4 |want| as in
tests/conformance. A copy that dnncc refuses must be named in EXPECT_REFUSED
with its reason (and must still be refused).

Environment (make check sets them): DNNCC, DNNCC_SRCDIR, ONNX_TESTDATA, CC,
TMPDIR. Needs /usr/bin/python3 with onnx and numpy; exits 77 (skipped)
without them or without the test data.
"""
import os
import shlex
import subprocess
import sys
import tempfile

try:
    import numpy as np
    import onnx
    from onnx import numpy_helper
except ImportError as e:
    print(f"SKIP: {sys.executable} cannot import onnx and numpy: {e}")
    sys.exit(77)

# tf_crop_and_resize crops by roi before resizing: not implemented.
EXPECT_REFUSED = {
    "test_resize_tf_crop_and_resize": "coordinate_transformation_mode tf_crop_and_resize",
}
ATOL, RTOL = 1e-5, 1e-4


def pinned_copy(test_dir, out_path):
    """Writes the model with inputs 1.. as initializers; returns X's array
    and the expected outputs."""
    model = onnx.load(os.path.join(test_dir, "model.onnx"))
    data = os.path.join(test_dir, "test_data_set_0")
    g = model.graph
    inits = {t.name for t in g.initializer}
    inputs = [i for i in g.input if i.name not in inits]
    x = None
    for k, vi in enumerate(inputs):
        t = onnx.TensorProto()
        with open(os.path.join(data, f"input_{k}.pb"), "rb") as f:
            t.ParseFromString(f.read())
        arr = numpy_helper.to_array(t)
        if k == 0:
            x = arr
            continue
        g.initializer.append(numpy_helper.from_array(arr, vi.name))
        g.input.remove(vi)
    outs = []
    for k in range(len(g.output)):
        t = onnx.TensorProto()
        with open(os.path.join(data, f"output_{k}.pb"), "rb") as f:
            t.ParseFromString(f.read())
        outs.append(numpy_helper.to_array(t))
    onnx.save(model, out_path)
    return x, outs


def main():
    data = os.environ.get("ONNX_TESTDATA", "/usr/share/libonnx-testdata/data")
    srcdir = os.environ.get("DNNCC_SRCDIR", os.path.join(os.path.dirname(__file__), ".."))
    dnncc = os.path.abspath(os.environ.get("DNNCC", "./dnncc"))
    cc = shlex.split(os.environ.get("CC", "cc"))
    node = os.path.join(data, "node")
    if not os.path.isdir(node):
        print(f"SKIP: no ONNX node tests at {node}")
        sys.exit(77)
    names = sorted(n for n in os.listdir(node)
                   if n.startswith("test_resize_") or n.startswith("test_upsample_"))
    harness = os.path.join(srcdir, "tests", "harness.c")
    passed = failed = refused = 0
    for name in names:
        with tempfile.TemporaryDirectory() as tmp:
            x, outs = pinned_copy(os.path.join(node, name), os.path.join(tmp, "m.onnx"))
            r = subprocess.run([dnncc, "m.onnx", "-o", "model.c", "--name", "model",
                                "--target", "c99"], cwd=tmp, capture_output=True, text=True)
            if r.returncode != 0:
                lines = [ln for ln in r.stderr.splitlines() if "warning:" not in ln]
                msg = lines[0] if lines else "(no message)"
                if name in EXPECT_REFUSED:
                    print(f"REFUSED {name} ({EXPECT_REFUSED[name]}): {msg}")
                    refused += 1
                else:
                    print(f"FAIL {name}: dnncc refused it: {msg}")
                    failed += 1
                continue
            if name in EXPECT_REFUSED:
                print(f"FAIL {name}: listed in EXPECT_REFUSED but compiles: update the list")
                failed += 1
                continue
            x.astype("<f4").tofile(os.path.join(tmp, "x.bin"))
            r = subprocess.run(cc + ["-std=c99", "-O1", "-Wall", "-Wextra", "-pedantic", "-Werror",
                                     "-I.", "-o", "run", "model.c", harness, "-lm"],
                               cwd=tmp, capture_output=True, text=True)
            if r.returncode != 0:
                print(f"FAIL {name}: the C does not build: {r.stderr[:300]}")
                failed += 1
                continue
            got_files = [f"y{k}.bin" for k in range(len(outs))]
            r = subprocess.run(["./run", "x.bin"] + got_files, cwd=tmp, capture_output=True,
                               text=True)
            if r.returncode != 0:
                print(f"FAIL {name}: the program failed: {r.stderr[:300]}")
                failed += 1
                continue
            worst = 0.0
            ok = True
            for f, want in zip(got_files, outs):
                got = np.fromfile(os.path.join(tmp, f), dtype="<f4").astype(np.float64)
                want = want.astype(np.float64).ravel()
                if got.size != want.size:
                    ok = False
                    break
                err = np.abs(got - want)
                ok &= bool(np.all(err <= ATOL + RTOL * np.abs(want)))
                worst = max(worst, float(err.max()) if err.size else 0.0)
            if not ok:
                print(f"FAIL {name}: max abs error {worst:.3g} beyond {ATOL} + {RTOL} |want|")
                failed += 1
                continue
            print(f"PASS {name}: max abs error {worst:.3g}")
            passed += 1
    print(f"{passed} passed, {refused} refused as expected, {failed} failed")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
