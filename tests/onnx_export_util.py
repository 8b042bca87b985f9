"""onnx_export_util.py - what the PyTorch-to-ONNX export scripts share.

Imported by tests/e2e/export_models.py, tests/families/export.py and
bench/models/nets.py (Debian's /usr/bin/python3 with python3-torch); each
finds this file relative to its own path, so it works from VPATH builds:

    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

calibrate_bn(model, batch_shape, runs)
    Random BatchNorm layers get non-trivial statistics: random affine
    parameters (generator seeded with 1), then running mean and variance
    averaged over `runs` random batches of `batch_shape` in training mode
    (momentum None = cumulative average). With the defaults (mean 0,
    variance 1, weight 1, bias 0) a BatchNorm is nearly the identity and a
    wrong folding would go unnoticed; calibrated statistics also keep the
    activations of deep random networks near unit scale. Leaves the model in
    training mode when it has BatchNorm layers; callers call .eval().
seeded_input(shape)
    The model input: torch.randn from a generator seeded with INPUT_SEED.
save_f32(path, array)
    Raw little-endian float32, written under PATH.tmp and renamed, so an
    interrupted run leaves no half file a later run would take as cached.
"""
import os

import numpy as np
import torch
from torch import nn

INPUT_SEED = 1234
BATCHNORMS = (nn.BatchNorm1d, nn.BatchNorm2d, nn.BatchNorm3d)


def calibrate_bn(model, batch_shape, runs):
    bns = [m for m in model.modules() if isinstance(m, BATCHNORMS)]
    if not bns:
        return
    gen = torch.Generator().manual_seed(1)
    with torch.no_grad():
        for bn in bns:
            bn.weight.uniform_(0.5, 1.5, generator=gen)
            bn.bias.normal_(0.0, 0.2, generator=gen)
            bn.reset_running_stats()
            bn.momentum = None
        model.train()
        for _ in range(runs):
            model(torch.randn(tuple(batch_shape), generator=gen))


def seeded_input(shape):
    return torch.randn(tuple(shape), generator=torch.Generator().manual_seed(INPUT_SEED))


def save_f32(path, array):
    np.ascontiguousarray(array, dtype="<f4").tofile(path + ".tmp")
    os.replace(path + ".tmp", path)
