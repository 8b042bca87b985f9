#!/usr/bin/python3
"""Checks the ONNX model the trainer wrote: onnx.checker accepts it, and
PyTorch, running the model's graph with its trained initializers, agrees
with the trainer's own outputs (DIR/probs.bin) and with the inference code
dnncc generated from the file (DIR/dnncc_probs.bin) on DIR/images.bin.

usage: verify_onnx.py TRAINED.onnx DIR     exit 1 on disagreement (> 1e-4),
                                           77 when onnx or PyTorch is missing"""
import sys

try:
    import numpy as np
    import onnx
    import torch
    from onnx import numpy_helper
except ImportError:
    print("verify_onnx.py: onnx, NumPy or PyTorch is missing: skipped")
    sys.exit(77)


def run(model, x):
    """The graph's nodes as torch operations (the ops dnncc --train takes)."""
    env = {t.name: torch.from_numpy(numpy_helper.to_array(t).copy())
           for t in model.graph.initializer}
    env[model.graph.input[0].name] = x
    for n in model.graph.node:
        a = {at.name: onnx.helper.get_attribute_value(at) for at in n.attribute}
        i = [env[name] for name in n.input if name]
        if n.op_type == "Flatten":
            y = torch.flatten(i[0], a.get("axis", 1))
        elif n.op_type == "Gemm":
            w = i[1].T if a.get("transB", 0) else i[1]
            y = i[0] @ w + (i[2] if len(i) > 2 else 0)
        elif n.op_type == "MatMul":
            y = i[0] @ i[1]
        elif n.op_type == "Add":
            y = i[0] + i[1]
        elif n.op_type == "Relu":
            y = torch.relu(i[0])
        elif n.op_type == "Sigmoid":
            y = torch.sigmoid(i[0])
        elif n.op_type == "Tanh":
            y = torch.tanh(i[0])
        elif n.op_type == "Softmax":
            y = torch.softmax(i[0], dim=a.get("axis", -1))
        elif n.op_type == "Reshape":
            y = i[0].reshape([int(v) for v in i[1]])
        else:
            raise SystemExit("verify_onnx.py: unexpected op " + n.op_type)
        env[n.output[0]] = y
    return env[model.graph.output[0].name]


def main():
    path, d = sys.argv[1], sys.argv[2]
    model = onnx.load(path)
    onnx.checker.check_model(model)
    probs = np.fromfile(d + "/probs.bin", dtype="<f4")
    rows = probs.size // 10
    x = torch.from_numpy(np.fromfile(d + "/images.bin", dtype="<f4").reshape(rows, 1, 28, 28))
    with torch.no_grad():
        ref = run(model, x).numpy().reshape(rows, 10)
    labels = np.fromfile(d + "/labels.bin", dtype=np.uint8)
    worst = 0.0
    for name in ("probs.bin", "dnncc_probs.bin"):
        got = np.fromfile(d + "/" + name, dtype="<f4").reshape(rows, 10)
        diff = float(np.abs(got - ref).max())
        agree = int((got.argmax(1) == ref.argmax(1)).sum())
        print("%-16s max |x - PyTorch| = %.3g, predictions agreeing %d/%d" % (name, diff, agree,
                                                                          rows))
        worst = max(worst, diff)
    print("PyTorch on the trained ONNX: %d/%d of these images right" %
          (int((ref.argmax(1) == labels).sum()), rows))
    return 0 if worst <= 1e-4 else 1


if __name__ == "__main__":
    sys.exit(main())
