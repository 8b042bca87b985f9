#!/usr/bin/python3
"""The PyTorch side of tests/train/step_check.sh: one small MLP that uses
every layer --train supports (Flatten, Gemm, Tanh, MatMul + Add, Sigmoid,
Relu, Softmax), a fixed batch, and the parameters and losses of PyTorch
after a few optimizer steps.

  step_ref.py make DIR      writes DIR/model.onnx, DIR/x.bin (float32
                            [32, 2, 6]), DIR/labels.bin (int32 [32]),
                            DIR/target.bin (float32 [32, 5])
  step_ref.py make DIR shared   the same for a model that uses one weight
                            twice (compare takes `shared` last too)
  step_ref.py compare DIR LOSS OPT LR STEPS
                            runs STEPS steps in PyTorch from the same model
                            and batch, and compares DIR/params.bin (the
                            generated code's parameters, in the order of
                            DIR/names.txt) and DIR/losses.txt with them;
                            exit 1 when any value differs by more than 1e-5
Exit status 77 (skipped) when PyTorch is missing."""
import sys

try:
    import numpy as np
    import torch
except ImportError:
    print("step_ref.py: PyTorch or NumPy is missing: skipped")
    sys.exit(77)

B = 32


class MatMulAdd(torch.nn.Module):
    """x @ W + b: exported as MatMul and Add, not Gemm."""

    def __init__(self, k, n):
        super().__init__()
        self.W = torch.nn.Parameter(torch.randn(k, n) * 0.4)
        self.b = torch.nn.Parameter(torch.randn(n) * 0.1)

    def forward(self, x):
        return torch.matmul(x, self.W) + self.b


class Shared(torch.nn.Module):
    """One Linear layer applied twice (its weight read by two Gemm nodes):
    the gradients of both uses must be summed."""

    def __init__(self):
        super().__init__()
        self.inp = torch.nn.Linear(12, 6)
        self.mid = torch.nn.Linear(6, 6)
        self.out = torch.nn.Linear(6, 5)

    def forward(self, x):
        h = torch.tanh(self.inp(torch.flatten(x, 1)))
        h = torch.sigmoid(self.mid(h))
        h = torch.tanh(self.mid(h))
        return torch.softmax(self.out(h), dim=1)

    def logits(self, x):
        h = torch.tanh(self.inp(torch.flatten(x, 1)))
        h = torch.tanh(self.mid(torch.sigmoid(self.mid(h))))
        return self.out(h)


SHARED = len(sys.argv) > 3 and sys.argv[-1] == "shared"


def build():
    torch.manual_seed(7)
    if SHARED:
        return Shared()
    return torch.nn.Sequential(
        torch.nn.Flatten(), torch.nn.Linear(12, 16), torch.nn.Tanh(),
        MatMulAdd(16, 8), torch.nn.Sigmoid(), torch.nn.Linear(8, 6),
        torch.nn.ReLU(), torch.nn.Linear(6, 5), torch.nn.Softmax(dim=1))


def data():
    g = torch.Generator().manual_seed(11)
    x = torch.randn(B, 2, 6, generator=g)
    labels = torch.randint(0, 5, (B,), generator=g, dtype=torch.int32)
    target = torch.rand(B, 5, generator=g)
    return x, labels, target


def make(d):
    model = build().eval()
    x, labels, target = data()
    torch.onnx.export(model, x, d + "/model.onnx", input_names=["x"], output_names=["y"],
                      opset_version=13, do_constant_folding=False,
                      dynamic_axes={"x": {0: "N"}, "y": {0: "N"}})
    x.numpy().astype("<f4").tofile(d + "/x.bin")
    labels.numpy().astype("<i4").tofile(d + "/labels.bin")
    target.numpy().astype("<f4").tofile(d + "/target.bin")


def compare(d, loss_name, opt_name, lr, steps):
    model = build()
    x, labels, target = data()
    params = dict(model.named_parameters())
    if opt_name == "sgd":
        opt = torch.optim.SGD(model.parameters(), lr=lr)
    elif opt_name == "momentum":
        opt = torch.optim.SGD(model.parameters(), lr=lr, momentum=0.9)
    else:
        opt = torch.optim.Adam(model.parameters(), lr=lr)
    losses = []
    for _ in range(steps):
        opt.zero_grad()
        y = model(x)
        if loss_name == "softmax-ce":
            logits = model.logits(x) if SHARED else model[:-1](x)
            loss = torch.nn.functional.cross_entropy(logits, labels.long())
        else:
            loss = torch.nn.functional.mse_loss(y, target)
        loss.backward()
        opt.step()
        losses.append(loss.item())
    names = open(d + "/names.txt").read().split()
    got = np.fromfile(d + "/params.bin", dtype="<f4")
    worst, where, off = 0.0, "", 0
    if sorted(names) != sorted(params):
        print("parameter names differ: generated %s, PyTorch %s" % (names, sorted(params)))
        return 1
    for n in names:
        ref = params[n].detach().numpy().ravel()
        diff = np.abs(got[off:off + ref.size] - ref)
        if diff.max() > worst:
            worst, where = float(diff.max()), "%s[%d]" % (n, int(diff.argmax()))
        off += ref.size
    got_losses = [float(v) for v in open(d + "/losses.txt").read().split()]
    loss_diff = max(abs(a - b) for a, b in zip(got_losses, losses))
    print("%s %s lr %g, %d steps: max |param - PyTorch| = %.3g (%s), max |loss - PyTorch| = "
          "%.3g (losses %s)" % (loss_name, opt_name, lr, steps, worst, where, loss_diff,
                               " ".join("%.6f" % v for v in losses)))
    if off != got.size or len(got_losses) != steps:
        print("sizes differ: %d floats, %d losses" % (got.size, len(got_losses)))
        return 1
    return 0 if worst <= 1e-5 and loss_diff <= 1e-5 else 1


if __name__ == "__main__":
    if sys.argv[1] == "make":
        make(sys.argv[2])
        sys.exit(0)
    sys.exit(compare(sys.argv[2], sys.argv[3], sys.argv[4], float(sys.argv[5]),
                     int(sys.argv[6])))
