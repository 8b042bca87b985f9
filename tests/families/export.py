#!/usr/bin/python3
"""export.py - the seven model families of issue 11, exported to ONNX.

    /usr/bin/python3 export.py OUTDIR [MODEL...]

For every MODEL (default: all seven) this writes OUTDIR/MODEL.onnx, then
OUTDIR/MODEL.input.bin (the input, raw little-endian float32) and
OUTDIR/MODEL.output.bin (PyTorch's output for it, raw little-endian float32),
each under a temporary name renamed when complete, the .onnx last-but-none:
a run interrupted half-way leaves no file a later run takes as cached.

Every model has random weights from torch.manual_seed(0) (BatchNorm layers
get random affine parameters and running statistics, so that a wrong folding
shows), is in eval mode, batch 1, with fixed shapes, one input and one output:

  ds_cnn       DS-CNN keyword spotting (MLPerf Tiny KWS): 1x1x49x10 MFCC
               features; a 10x4 stride-2 Conv, four depthwise-separable
               blocks of 64 channels, average pooling, a 12-way classifier.
  mobilenet_v1 MobileNetV1 width 0.25 at 1x3x96x96 (MLPerf Tiny person
               detection: two classes).
  resnet8      ResNet-8 for 1x3x32x32 (MLPerf Tiny image classification):
               three residual stacks of 16, 32, 64 channels, 10 classes.
  fc_ae        the FC autoencoder of MLPerf Tiny anomaly detection:
               640-128-128-128-128-8-128-128-128-128-640, Linear +
               BatchNorm1d + ReLU in every hidden layer.
  unet         a small U-Net on 1x3x64x64: two encoder levels with max
               pooling, a bottleneck, one decoder level up-sampled by
               ConvTranspose (2x2, stride 2), one by ConvTranspose (3x3,
               stride 2, padding 1, output_padding 1) and one by Resize
               (bilinear, align_corners=False), skip Concats, 2 classes.
  detector     a YOLO-style head on 1x3x64x64: a small strided backbone, a
               16x16 and an 8x8 feature map, the 8x8 one up-sampled (Resize,
               nearest) and concatenated with the other, two heads of 3
               anchors x (5 + 3 classes), each reshaped to 5-D, transposed,
               passed through Sigmoid and decoded as in YOLOv5 (Slice, Mul,
               Add of a constant grid, Pow, Mul by the anchors, Concat),
               the two scales concatenated: 1x960x8.
  transformer  a two-layer torch.nn.TransformerEncoder (d_model 64, 4 heads,
               feed-forward 128, GELU, batch_first, no dropout, no mask) on
               1x32x64, with a learned positional embedding added to the
               input (an Add of a constant, not a Gather: the input is
               already the embedded sequence); exported at opset 17 so that
               layer norms become LayerNormalization.

The other models are exported at opset 13. One more model, volumetric, is
not a family but the 3-D and 1-D window operators in one small graph (see
its class). Needs Debian's python3-torch
(run with /usr/bin/python3); prints SKIP and exits 77 without it.
"""
import os
import sys

try:
    import numpy  # noqa: F401 (onnx_export_util needs it; skip without it)
    import torch
    from torch import nn
except ImportError as e:
    print(f"SKIP: PyTorch not available to {sys.executable}: {e}")
    sys.exit(77)

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from onnx_export_util import calibrate_bn, save_f32, seeded_input  # noqa: E402


def conv_bn(cin, cout, k, stride=1, pad=0, groups=1):
    return [nn.Conv2d(cin, cout, k, stride, pad, groups=groups, bias=False),
            nn.BatchNorm2d(cout), nn.ReLU()]


class DsCnn(nn.Module):
    def __init__(self):
        super().__init__()
        layers = conv_bn(1, 64, (10, 4), 2, (5, 1))
        for _ in range(4):
            layers += conv_bn(64, 64, 3, 1, 1, groups=64) + conv_bn(64, 64, 1)
        self.features = nn.Sequential(*layers)
        self.pool = nn.AvgPool2d((25, 5))
        self.fc = nn.Linear(64, 12)

    def forward(self, x):
        x = self.pool(self.features(x))
        return torch.softmax(self.fc(torch.flatten(x, 1)), dim=1)


class MobileNetV1(nn.Module):
    # (output channels at width 1.0, stride) of the 13 separable blocks
    BLOCKS = [(64, 1), (128, 2), (128, 1), (256, 2), (256, 1), (512, 2)] + \
             [(512, 1)] * 5 + [(1024, 2), (1024, 1)]

    def __init__(self, width=0.25, classes=2):
        super().__init__()
        c = int(32 * width)
        layers = conv_bn(3, c, 3, 2, 1)
        for cout, s in self.BLOCKS:
            cout = int(cout * width)
            layers += conv_bn(c, c, 3, s, 1, groups=c) + conv_bn(c, cout, 1)
            c = cout
        self.features = nn.Sequential(*layers)
        self.pool = nn.AdaptiveAvgPool2d(1)
        self.fc = nn.Linear(c, classes)

    def forward(self, x):
        x = self.pool(self.features(x))
        return torch.softmax(self.fc(torch.flatten(x, 1)), dim=1)


class ResBlock(nn.Module):
    def __init__(self, cin, cout, stride):
        super().__init__()
        self.a = nn.Sequential(*conv_bn(cin, cout, 3, stride, 1))
        self.b = nn.Sequential(nn.Conv2d(cout, cout, 3, 1, 1, bias=False), nn.BatchNorm2d(cout))
        self.short = None
        if stride != 1 or cin != cout:
            self.short = nn.Conv2d(cin, cout, 1, stride)

    def forward(self, x):
        s = x if self.short is None else self.short(x)
        return torch.relu(self.b(self.a(x)) + s)


class ResNet8(nn.Module):
    def __init__(self):
        super().__init__()
        self.stem = nn.Sequential(*conv_bn(3, 16, 3, 1, 1))
        self.stacks = nn.Sequential(ResBlock(16, 16, 1), ResBlock(16, 32, 2), ResBlock(32, 64, 2))
        self.pool = nn.AvgPool2d(8)
        self.fc = nn.Linear(64, 10)

    def forward(self, x):
        x = self.pool(self.stacks(self.stem(x)))
        return torch.softmax(self.fc(torch.flatten(x, 1)), dim=1)


class FcAutoencoder(nn.Module):
    def __init__(self):
        super().__init__()
        dims = [640, 128, 128, 128, 128, 8, 128, 128, 128, 128]
        layers = []
        for a, b in zip(dims, dims[1:]):
            layers += [nn.Linear(a, b), nn.BatchNorm1d(b), nn.ReLU()]
        layers.append(nn.Linear(128, 640))
        self.net = nn.Sequential(*layers)

    def forward(self, x):
        return self.net(x)


def double_conv(cin, cout):
    return nn.Sequential(*(conv_bn(cin, cout, 3, 1, 1) + conv_bn(cout, cout, 3, 1, 1)))


class UNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.enc1 = double_conv(3, 8)        # 64x64
        self.enc2 = double_conv(8, 16)       # 32x32
        self.enc3 = double_conv(16, 32)      # 16x16
        self.bottom = double_conv(32, 64)    # 8x8
        self.pool = nn.MaxPool2d(2)
        self.up3 = nn.ConvTranspose2d(64, 32, 2, stride=2)
        self.dec3 = double_conv(64, 32)
        self.up2 = nn.ConvTranspose2d(32, 16, 3, stride=2, padding=1, output_padding=1)
        self.dec2 = double_conv(32, 16)
        self.up1 = nn.Sequential(nn.Upsample(scale_factor=2, mode="bilinear", align_corners=False),
                                 nn.Conv2d(16, 8, 1))
        self.dec1 = double_conv(16, 8)
        self.head = nn.Conv2d(8, 2, 1)

    def forward(self, x):
        e1 = self.enc1(x)
        e2 = self.enc2(self.pool(e1))
        e3 = self.enc3(self.pool(e2))
        b = self.bottom(self.pool(e3))
        d3 = self.dec3(torch.cat([self.up3(b), e3], 1))
        d2 = self.dec2(torch.cat([self.up2(d3), e2], 1))
        d1 = self.dec1(torch.cat([self.up1(d2), e1], 1))
        return self.head(d1)


class Detector(nn.Module):
    CLASSES = 3
    ANCHORS = [[(10, 13), (16, 30), (33, 23)], [(30, 61), (62, 45), (59, 119)]]
    STRIDES = [4, 8]

    def __init__(self):
        super().__init__()
        no = 5 + self.CLASSES
        self.b1 = nn.Sequential(*(conv_bn(3, 16, 3, 2, 1) + conv_bn(16, 32, 3, 2, 1)))   # 16x16
        self.b2 = nn.Sequential(*conv_bn(32, 64, 3, 2, 1))                                # 8x8
        self.lat = nn.Sequential(*conv_bn(64, 32, 1))
        self.up = nn.Upsample(scale_factor=2, mode="nearest")
        self.p1 = nn.Sequential(*conv_bn(64, 32, 3, 1, 1))
        self.heads = nn.ModuleList([nn.Conv2d(32, 3 * no, 1), nn.Conv2d(64, 3 * no, 1)])
        for i, s in enumerate(self.STRIDES):
            ny = nx = 64 // s
            yv, xv = torch.meshgrid(torch.arange(ny), torch.arange(nx), indexing="ij")
            grid = torch.stack((xv, yv), 2).view(1, 1, ny, nx, 2).float()
            anchor = torch.tensor(self.ANCHORS[i], dtype=torch.float32).view(1, 3, 1, 1, 2)
            self.register_buffer(f"grid{i}", grid)
            self.register_buffer(f"anchor{i}", anchor)

    def forward(self, x):
        f1 = self.b1(x)
        f2 = self.b2(f1)
        p1 = self.p1(torch.cat([self.up(self.lat(f2)), f1], 1))
        no = 5 + self.CLASSES
        out = []
        for i, f in enumerate([p1, f2]):
            y = self.heads[i](f)
            _, _, ny, nx = y.shape
            y = y.view(1, 3, no, ny, nx).permute(0, 1, 3, 4, 2).sigmoid()
            xy = (y[..., 0:2] * 2 - 0.5 + getattr(self, f"grid{i}")) * self.STRIDES[i]
            wh = (y[..., 2:4] * 2) ** 2 * getattr(self, f"anchor{i}")
            y = torch.cat((xy, wh, y[..., 4:]), -1)
            out.append(y.reshape(1, 3 * ny * nx, no))
        return torch.cat(out, 1)


class Transformer(nn.Module):
    def __init__(self, d=64, seq=32):
        super().__init__()
        layer = nn.TransformerEncoderLayer(d, nhead=4, dim_feedforward=128, dropout=0.0,
                                           activation="gelu", batch_first=True)
        self.enc = nn.TransformerEncoder(layer, num_layers=2, enable_nested_tensor=False)
        self.pos = nn.Parameter(torch.randn(1, seq, d) * 0.1)

    def forward(self, x):
        return self.enc(x + self.pos)


class Volumetric(nn.Module):
    """Not one of the seven: the 3-D and 1-D window operators end to end
    (Conv3d with a fused ReLU, MaxPool3d with ceil_mode, ConvTranspose3d
    with output_padding, a trilinear Resize, AvgPool3d with padding, a
    Conv1d and a grouped
    ConvTranspose1d over the flattened volume)."""

    def __init__(self):
        super().__init__()
        self.c1 = nn.Sequential(nn.Conv3d(2, 8, 3, padding=1), nn.BatchNorm3d(8), nn.ReLU())
        self.pool = nn.MaxPool3d(2, ceil_mode=True)
        self.c2 = nn.Conv3d(8, 8, (1, 3, 3), stride=(1, 2, 2), dilation=(1, 1, 2), groups=2)
        self.up = nn.ConvTranspose3d(8, 4, 3, stride=2, padding=1, output_padding=1)
        self.avg = nn.AvgPool3d(3, stride=2, padding=1, count_include_pad=False)
        self.c1d = nn.Conv1d(4, 6, 5, padding=2)
        self.up1d = nn.ConvTranspose1d(6, 4, 4, stride=2, padding=1, groups=2)

    def forward(self, x):
        y = self.up(self.c2(self.pool(self.c1(x))))
        y = self.avg(nn.functional.interpolate(y, scale_factor=2, mode="trilinear"))
        y = y.flatten(2)
        return self.up1d(torch.relu(self.c1d(y)))


# name: (constructor, input shape, opset)
MODELS = {
    "ds_cnn": (DsCnn, (1, 1, 49, 10), 13),
    "mobilenet_v1": (MobileNetV1, (1, 3, 96, 96), 13),
    "resnet8": (ResNet8, (1, 3, 32, 32), 13),
    "fc_ae": (FcAutoencoder, (1, 640), 13),
    "unet": (UNet, (1, 3, 64, 64), 13),
    "detector": (Detector, (1, 3, 64, 64), 13),
    "transformer": (Transformer, (1, 32, 64), 17),
    "volumetric": (Volumetric, (1, 2, 7, 16, 20), 13),
}


def build(name):
    ctor, shape, _ = MODELS[name]
    torch.manual_seed(0)
    model = ctor()
    # batches of 4 rows for BatchNorm1d (it needs more than one value per
    # channel); several batches of one image otherwise (the detector's
    # reshapes are written for batch 1)
    batch, runs = (4, 2) if len(shape) == 2 else (1, 4)
    calibrate_bn(model, (batch,) + shape[1:], runs)
    return model.eval()


def export(name, outdir):
    _, shape, opset = MODELS[name]
    model = build(name)
    x = seeded_input(shape)
    # Gradients stay enabled: under no_grad torch 1.13 runs the transformer
    # layers as one fused operator (_transformer_encoder_layer_fwd) that
    # has no ONNX export; with them the module runs, and exports, op by op.
    y = model(x).detach()
    base = os.path.join(outdir, name)
    save_f32(base + ".input.bin", x.numpy())
    save_f32(base + ".output.bin", y.numpy())
    torch.onnx.export(model, x, base + ".onnx.tmp", opset_version=opset,
                      input_names=["input"], output_names=["output"])
    os.replace(base + ".onnx.tmp", base + ".onnx")
    print(f"{name}: input {tuple(x.shape)}, output {tuple(y.shape)}, opset {opset}")


def main():
    if len(sys.argv) < 2:
        print(__doc__)
        sys.exit(2)
    outdir = sys.argv[1]
    names = sys.argv[2:] or list(MODELS)
    for n in names:
        if n not in MODELS:
            print(f"export.py: unknown model '{n}' (known: {' '.join(MODELS)})")
            sys.exit(2)
    os.makedirs(outdir, exist_ok=True)
    for n in names:
        export(n, outdir)


if __name__ == "__main__":
    main()
