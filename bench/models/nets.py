#!/usr/bin/python3
"""nets.py - the networks of `make bench-models`, built in PyTorch with random
weights from fixed seeds (Debian's /usr/bin/python3: python3-torch,
python3-torchvision).

Seven torchvision classifiers at 1x3x224x224 and the four MLPerf Tiny
(v1.x) reference shapes, written here after the benchmark's descriptions:

  dscnn       keyword spotting DS-CNN (small), MFCC input 1x1x49x10: Conv 10x4
              stride 2 to 64 channels, four depthwise-separable blocks of 64
              (3x3 depthwise + 1x1 pointwise, each with BatchNorm + ReLU),
              global average pool, 12 classes
  mobilenetv1 visual wake words: MobileNetV1 width 0.25 at 1x3x96x96 (conv
              3x3/2 to 8 channels, 13 depthwise-separable blocks up to 256),
              global average pool, 2 classes
  resnet8     image classification on CIFAR-10, 1x3x32x32: conv 3x3 to 16,
              three residual stages of 16, 32 and 64 channels (stride 1, 2, 2;
              1x1 projections where the shape changes), average pool, 10
              classes
  autoencoder anomaly detection (ToyADMOS): 640-128-128-128-128-8-128-128-
              128-128-640, Linear + BatchNorm1d + ReLU between, at batch 4

BatchNorm layers get random affine parameters and running statistics
calibrated on random batches (tests/onnx_export_util.py), so folding
them is not a no-op and activations stay near unit scale. Every network ends
in its logits (no Softmax) so the outputs compared between engines are not
squashed.

build(name) returns (model in eval mode, example input); the input is drawn
from torch.Generator seeded with INPUT_SEED. Equal calls give equal weights.
"""
import os
import sys

import torch
from torch import nn

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "tests"))
from onnx_export_util import calibrate_bn, seeded_input  # noqa: E402

TORCHVISION = ["alexnet", "vgg16", "googlenet", "resnet18", "resnet50", "mobilenet_v2",
               "squeezenet1_1"]
TINY = ["dscnn", "mobilenetv1", "resnet8", "autoencoder"]
ALL = TORCHVISION + TINY


def _bn_relu_conv(c_in, c_out, k, stride=1, pad=0, groups=1):
    return [nn.Conv2d(c_in, c_out, k, stride, pad, groups=groups, bias=False),
            nn.BatchNorm2d(c_out), nn.ReLU()]


class DSCNN(nn.Module):
    """MLPerf Tiny keyword spotting, DS-CNN small: [1, 1, 49, 10] -> [1, 12]."""

    def __init__(self, width=64, blocks=4, classes=12):
        super().__init__()
        # 'same' padding of a 10x4 kernel at stride 2 on 49x10: 4/5 rows, 1/2
        # columns; PyTorch pads symmetrically, so pad (5, 1) and get 25x5.
        layers = _bn_relu_conv(1, width, (10, 4), 2, (5, 1))
        for _ in range(blocks):
            layers += _bn_relu_conv(width, width, 3, 1, 1, groups=width)
            layers += _bn_relu_conv(width, width, 1)
        self.features = nn.Sequential(*layers)
        self.pool = nn.AdaptiveAvgPool2d(1)
        self.fc = nn.Linear(width, classes)

    def forward(self, x):
        return self.fc(torch.flatten(self.pool(self.features(x)), 1))


class MobileNetV1(nn.Module):
    """MobileNetV1 with a width multiplier: [1, 3, 96, 96] -> [1, classes]."""

    # (output channels at width 1, stride) of the 13 depthwise-separable blocks
    BLOCKS = [(64, 1), (128, 2), (128, 1), (256, 2), (256, 1), (512, 2), (512, 1), (512, 1),
              (512, 1), (512, 1), (512, 1), (1024, 2), (1024, 1)]

    def __init__(self, alpha=0.25, classes=2):
        super().__init__()
        c = int(32 * alpha)
        layers = _bn_relu_conv(3, c, 3, 2, 1)
        for c_out, s in self.BLOCKS:
            c_out = int(c_out * alpha)
            layers += _bn_relu_conv(c, c, 3, s, 1, groups=c)
            layers += _bn_relu_conv(c, c_out, 1)
            c = c_out
        self.features = nn.Sequential(*layers)
        self.pool = nn.AdaptiveAvgPool2d(1)
        self.fc = nn.Linear(c, classes)

    def forward(self, x):
        return self.fc(torch.flatten(self.pool(self.features(x)), 1))


class _ResBlock(nn.Module):
    def __init__(self, c_in, c_out, stride):
        super().__init__()
        self.a = nn.Sequential(*_bn_relu_conv(c_in, c_out, 3, stride, 1))
        self.b = nn.Sequential(nn.Conv2d(c_out, c_out, 3, 1, 1, bias=False),
                               nn.BatchNorm2d(c_out))
        self.proj = None
        if stride != 1 or c_in != c_out:
            self.proj = nn.Conv2d(c_in, c_out, 1, stride)
        self.relu = nn.ReLU()

    def forward(self, x):
        skip = x if self.proj is None else self.proj(x)
        return self.relu(self.b(self.a(x)) + skip)


class ResNet8(nn.Module):
    """MLPerf Tiny image classification ResNet-8: [1, 3, 32, 32] -> [1, 10]."""

    def __init__(self, classes=10):
        super().__init__()
        self.stem = nn.Sequential(*_bn_relu_conv(3, 16, 3, 1, 1))
        self.stages = nn.Sequential(_ResBlock(16, 16, 1), _ResBlock(16, 32, 2),
                                    _ResBlock(32, 64, 2))
        self.pool = nn.AvgPool2d(8)
        self.fc = nn.Linear(64, classes)

    def forward(self, x):
        return self.fc(torch.flatten(self.pool(self.stages(self.stem(x))), 1))


class AutoEncoder(nn.Module):
    """MLPerf Tiny anomaly detection FC autoencoder: [N, 640] -> [N, 640]."""

    SIZES = [640, 128, 128, 128, 128, 8, 128, 128, 128, 128, 640]

    def __init__(self):
        super().__init__()
        layers = []
        for i in range(len(self.SIZES) - 1):
            layers.append(nn.Linear(self.SIZES[i], self.SIZES[i + 1]))
            if i + 2 < len(self.SIZES):
                layers += [nn.BatchNorm1d(self.SIZES[i + 1]), nn.ReLU()]
        self.net = nn.Sequential(*layers)

    def forward(self, x):
        return self.net(x)


def input_shape(name):
    return {"dscnn": (1, 1, 49, 10), "mobilenetv1": (1, 3, 96, 96), "resnet8": (1, 3, 32, 32),
            "autoencoder": (4, 640)}.get(name, (1, 3, 224, 224))


def build(name):
    """(model in eval mode with seeded random weights, its seeded input)."""
    if name not in ALL:
        raise ValueError(f"unknown network {name}; known: {' '.join(ALL)}")
    torch.manual_seed(0)
    if name in TORCHVISION:
        import torchvision
        kwargs = {"aux_logits": False, "init_weights": True} if name == "googlenet" else {}
        model = getattr(torchvision.models, name)(weights=None, **kwargs)
    else:
        model = {"dscnn": DSCNN, "mobilenetv1": MobileNetV1, "resnet8": ResNet8,
                 "autoencoder": AutoEncoder}[name]()
    shape = input_shape(name)
    calibrate_bn(model, (max(4, shape[0]),) + tuple(shape[1:]), 2)
    x = seeded_input(shape)
    return model.eval(), x
