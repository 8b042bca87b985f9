#!/usr/bin/python3
"""export_models.py - exports torchvision models to ONNX for dnncc's end-to-end test.

    /usr/bin/python3 export_models.py OUTDIR MODEL...

For every MODEL this writes OUTDIR/MODEL.onnx, OUTDIR/MODEL.input.bin (the
input, raw little-endian float32, NCHW 1x3x224x224) and OUTDIR/MODEL.output.bin
(PyTorch's output for it, raw little-endian float32). Files are written under
temporary names and renamed, so an interrupted run leaves no half file that a
later run would take as cached.

Models: alexnet, vgg11, vgg16, googlenet (aux_logits=False,
init_weights=True), resnet18, resnet50, mobilenet_v2, squeezenet1_1, all with random weights from
torch.manual_seed(0), in eval mode, batch 1, exported with opset 13 and fixed
shapes; and resnet18_dynbatch: resnet18 exported with a symbolic batch
dimension ("batch", pinned again with dnncc's --shape) and with its
BatchNormalization nodes kept (TrainingMode.PRESERVE on a model in eval mode,
so they are inference-mode BatchNormalization that dnncc must fold itself;
the plain export lets PyTorch fold them into the convolutions).

Random BatchNorm layers are given non-trivial statistics first: random affine
parameters, then running mean and variance averaged over a few random batches
in training mode (momentum None = cumulative average). With the defaults
(mean 0, variance 1, weight 1, bias 0) a BatchNorm is nearly the identity and
a wrong folding would go unnoticed; calibrated statistics also keep the
activations of these deep random networks near unit scale.

Needs Debian's python3-torch and python3-torchvision (run with
/usr/bin/python3); prints SKIP and exits 77 (automake's "skipped") without
them.
"""
import os
import sys

try:
    import numpy as np
    import torch
    import torchvision
except ImportError as e:  # the test is skipped, not failed, without PyTorch
    print(f"SKIP: PyTorch/torchvision not available to {sys.executable}: {e}")
    sys.exit(77)

MODELS = ["alexnet", "vgg11", "googlenet", "resnet18", "mobilenet_v2", "squeezenet1_1",
          "resnet18_dynbatch", "vgg16", "resnet50"]
INPUT_SEED = 1234


def build(name):
    """The model with random weights (torch.manual_seed(0)), in eval mode."""
    arch = "resnet18" if name == "resnet18_dynbatch" else name
    torch.manual_seed(0)
    kwargs = {"aux_logits": False, "init_weights": True} if arch == "googlenet" else {}
    model = getattr(torchvision.models, arch)(weights=None, **kwargs)
    bns = [m for m in model.modules() if isinstance(m, torch.nn.BatchNorm2d)]
    if bns:
        gen = torch.Generator().manual_seed(1)
        with torch.no_grad():
            for bn in bns:
                bn.weight.uniform_(0.5, 1.5, generator=gen)
                bn.bias.normal_(0.0, 0.2, generator=gen)
                bn.reset_running_stats()
                bn.momentum = None
            model.train()
            for _ in range(2):
                model(torch.randn(4, 3, 224, 224, generator=gen))
    return model.eval()


def export(name, outdir):
    model = build(name)
    x = torch.randn(1, 3, 224, 224, generator=torch.Generator().manual_seed(INPUT_SEED))
    with torch.no_grad():
        y = model(x)
    onnx_path = os.path.join(outdir, name + ".onnx")
    kwargs = {}
    if name == "resnet18_dynbatch":
        kwargs = {"dynamic_axes": {"input": {0: "batch"}, "output": {0: "batch"}},
                  "training": torch.onnx.TrainingMode.PRESERVE}
    torch.onnx.export(model, x, onnx_path + ".tmp", opset_version=13,
                      input_names=["input"], output_names=["output"], **kwargs)
    for suffix, t in ((".input.bin", x), (".output.bin", y)):
        path = os.path.join(outdir, name + suffix)
        t.numpy().astype("<f4").tofile(path + ".tmp")
        os.replace(path + ".tmp", path)
    os.replace(onnx_path + ".tmp", onnx_path)  # last: its presence means "all done"


def main():
    if len(sys.argv) < 3 or any(m not in MODELS for m in sys.argv[2:]):
        print(f"usage: {sys.argv[0]} OUTDIR MODEL...  (MODEL: {' '.join(MODELS)})",
              file=sys.stderr)
        return 2
    outdir = sys.argv[1]
    os.makedirs(outdir, exist_ok=True)
    torch.set_num_threads(2)
    for name in sys.argv[2:]:
        export(name, outdir)
        print(f"exported {name}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
