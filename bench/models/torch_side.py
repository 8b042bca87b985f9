#!/usr/bin/python3
"""torch_side.py - PyTorch's part of `make bench-models` (Debian's
/usr/bin/python3 with python3-torch, python3-torchvision, python3-onnx).

  torch_side.py export NAME DIR
      writes DIR/NAME.onnx (opset 13, fixed shapes, eval mode: PyTorch folds
      BatchNorm into the convolutions), DIR/NAME.input.bin and
      DIR/NAME.output.bin (raw little-endian float32: the input and PyTorch's
      output, the reference every engine is checked against) and
      DIR/NAME.json (input and output shapes, parameters, and the GFLOP of
      one call counted on the ONNX graph: 2 x multiply-adds of Conv, Gemm
      and MatMul, other operators not counted). The .onnx is written last.
  torch_side.py time NAME DIR THREADS RUNS MIN_TIME
      rebuilds the same network, torch.set_num_threads(THREADS), and times
      model(x) under torch.no_grad() (timing.py); writes its output to
      DIR/NAME.pytorch-THREADS.bin and prints 'RESULT {json}'.
"""
import json
import os
import sys

import numpy as np
import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import nets  # noqa: E402
import timing  # noqa: E402


def onnx_gflop(path):
    """2 x multiply-adds of Conv, Gemm and MatMul nodes, in GFLOP."""
    import onnx
    from onnx import numpy_helper, shape_inference
    model = shape_inference.infer_shapes(onnx.load(path))
    g = model.graph
    shapes = {}
    for v in list(g.input) + list(g.output) + list(g.value_info):
        shapes[v.name] = [d.dim_value for d in v.type.tensor_type.shape.dim]
    for t in g.initializer:
        shapes[t.name] = list(numpy_helper.to_array(t).shape)
    flops = 0
    for n in g.node:
        attrs = {a.name: onnx.helper.get_attribute_value(a) for a in n.attribute}
        if n.op_type == "Conv":
            w, y = shapes[n.input[1]], shapes[n.output[0]]
            flops += 2 * int(np.prod(y)) * int(np.prod(w[1:]))
        elif n.op_type == "Gemm":
            a, b = shapes[n.input[0]], shapes[n.input[1]]
            m = a[1] if attrs.get("transA", 0) else a[0]
            k = a[0] if attrs.get("transA", 0) else a[1]
            nn = b[0] if attrs.get("transB", 0) else b[1]
            flops += 2 * m * nn * k
        elif n.op_type == "MatMul":
            a, y = shapes[n.input[0]], shapes[n.output[0]]
            flops += 2 * int(np.prod(y)) * a[-1]
    return flops / 1e9


def export(name, outdir):
    torch.set_num_threads(2)
    model, x = nets.build(name)
    with torch.no_grad():
        y = model(x)
    base = os.path.join(outdir, name)
    torch.onnx.export(model, x, base + ".onnx.tmp", opset_version=13,
                      input_names=["input"], output_names=["output"])
    x.numpy().astype("<f4").tofile(base + ".input.bin")
    y.numpy().astype("<f4").tofile(base + ".output.bin")
    meta = {"name": name, "input_shape": list(x.shape), "output_shape": list(y.shape),
            "params": sum(p.numel() for p in model.parameters()),
            "gflop": onnx_gflop(base + ".onnx.tmp")}
    with open(base + ".json", "w") as f:
        json.dump(meta, f)
    os.replace(base + ".onnx.tmp", base + ".onnx")
    print(f"exported {name}: {meta['gflop']:.3f} GFLOP, {meta['params']} parameters")


def time_it(name, outdir, threads, runs, min_time):
    torch.set_num_threads(threads)
    model, x = nets.build(name)
    out = {}

    def call():
        with torch.no_grad():
            out["y"] = model(x)
    result = timing.measure(call, runs, min_time)
    out["y"].numpy().astype("<f4").tofile(os.path.join(outdir, f"{name}.pytorch-{threads}.bin"))
    result["version"] = "torch " + torch.__version__
    result["threads_used"] = torch.get_num_threads()
    timing.report(result)


def main():
    if len(sys.argv) == 4 and sys.argv[1] == "export":
        export(sys.argv[2], sys.argv[3])
    elif len(sys.argv) == 7 and sys.argv[1] == "time":
        time_it(sys.argv[2], sys.argv[3], int(sys.argv[4]), int(sys.argv[5]),
                float(sys.argv[6]))
    else:
        print(__doc__, file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
