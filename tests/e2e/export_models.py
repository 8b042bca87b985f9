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

Random BatchNorm layers are given non-trivial statistics first
(calibrate_bn in tests/onnx_export_util.py), so that a wrong folding shows.

Needs Debian's python3-torch and python3-torchvision (run with
/usr/bin/python3); prints SKIP and exits 77 (automake's "skipped") without
them.
"""
import os
import sys

try:
    import torch
    import torchvision
except ImportError as e:  # the test is skipped, not failed, without PyTorch
    print(f"SKIP: PyTorch/torchvision not available to {sys.executable}: {e}")
    sys.exit(77)

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from onnx_export_util import calibrate_bn, save_f32, seeded_input  # noqa: E402

MODELS = ["alexnet", "vgg11", "googlenet", "resnet18", "mobilenet_v2", "squeezenet1_1",
          "resnet18_dynbatch", "vgg16", "resnet50"]


def build(name):
    """The model with random weights (torch.manual_seed(0)), in eval mode."""
    arch = "resnet18" if name == "resnet18_dynbatch" else name
    torch.manual_seed(0)
    kwargs = {"aux_logits": False, "init_weights": True} if arch == "googlenet" else {}
    model = getattr(torchvision.models, arch)(weights=None, **kwargs)
    calibrate_bn(model, (4, 3, 224, 224), 2)
    return model.eval()


def export(name, outdir):
    model = build(name)
    x = seeded_input((1, 3, 224, 224))
    with torch.no_grad():
        y = model(x)
    onnx_path = os.path.join(outdir, name + ".onnx")
    kwargs = {}
    if name == "resnet18_dynbatch":
        kwargs = {"dynamic_axes": {"input": {0: "batch"}, "output": {0: "batch"}},
                  "training": torch.onnx.TrainingMode.PRESERVE}
    torch.onnx.export(model, x, onnx_path + ".tmp", opset_version=13,
                      input_names=["input"], output_names=["output"], **kwargs)
    save_f32(os.path.join(outdir, name + ".input.bin"), x.numpy())
    save_f32(os.path.join(outdir, name + ".output.bin"), y.numpy())
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
