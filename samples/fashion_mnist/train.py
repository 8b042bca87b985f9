#!/usr/bin/python3
"""train.py - trains the bundled sample model: a small CNN on Fashion-MNIST.

Writes, next to this script (or into --out DIR):
  fashion_cnn.onnx  the trained model, ONNX opset 13, input "image" [1,1,28,28]
                    float32 (normalised, see NORM_MEAN/NORM_STD), output "probs"
                    [1,10] float32 (softmax over the 10 classes)
  images.bin        the first 100 test images, raw float32 [100,1,28,28],
                    normalised exactly as the model expects
  labels.bin        their labels, raw uint8 [100]
  expected.bin      PyTorch's output for each of them, raw float32 [100,10]

The data comes from Debian's dataset-fashion-mnist package
(/usr/share/datasets/fashion-mnist). Needs Debian's python3-torch (run with
/usr/bin/python3) and python3-onnx. Deterministic: fixed seed, one thread
pool size, deterministic algorithms; three epochs take about 35 s on 2
cores and reach about 88% test accuracy.
CI does not run this script: its outputs are committed.
"""
import argparse
import gzip
import os
import struct
import sys
import time

import numpy as np
import onnx
import torch
import torch.nn as nn
import torch.nn.functional as F

DATA_DIR = "/usr/share/datasets/fashion-mnist"
# Mean and standard deviation of the training set's pixels scaled to [0,1]
# (computed from train-images-idx3-ubyte; rounded to 4 digits).
NORM_MEAN = 0.2860
NORM_STD = 0.3530
N_SAMPLES = 100
SEED = 20240229


def read_idx(path):
    """An IDX file (the MNIST format: big-endian magic, dims, then uint8 data)."""
    with gzip.open(path, "rb") as f:
        data = f.read()
    zero, dtype, ndim = struct.unpack(">HBB", data[:4])
    if zero != 0 or dtype != 0x08:
        sys.exit("%s: not an IDX file of unsigned bytes" % path)
    dims = struct.unpack(">" + "I" * ndim, data[4:4 + 4 * ndim])
    arr = np.frombuffer(data, dtype=np.uint8, offset=4 + 4 * ndim)
    if arr.size != int(np.prod(dims)):
        sys.exit("%s: %d bytes of data, expected %d" % (path, arr.size, np.prod(dims)))
    return arr.reshape(dims)


def load(split):
    """Images as normalised float32 [N,1,28,28] and labels as int64 [N]."""
    images = read_idx(os.path.join(DATA_DIR, "%s-images-idx3-ubyte.gz" % split))
    labels = read_idx(os.path.join(DATA_DIR, "%s-labels-idx1-ubyte.gz" % split))
    x = (images.astype(np.float32) / 255.0 - NORM_MEAN) / NORM_STD
    return torch.from_numpy(x[:, None, :, :].copy()), torch.from_numpy(labels.astype(np.int64))


class FashionCNN(nn.Module):
    """[1,1,28,28] -> conv 3x3 (8) + BN + ReLU -> maxpool 2 -> [1,8,13,13]
    -> conv 3x3 (16) + ReLU -> maxpool 2 -> [1,16,5,5] -> flatten [1,400]
    -> gemm 64 + ReLU -> dropout -> gemm 10 -> [1,10] logits."""

    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 8, 3)
        self.bn1 = nn.BatchNorm2d(8)
        self.conv2 = nn.Conv2d(8, 16, 3)
        self.fc1 = nn.Linear(16 * 5 * 5, 64)
        self.drop = nn.Dropout(0.25)
        self.fc2 = nn.Linear(64, 10)

    def forward(self, x):
        x = F.max_pool2d(F.relu(self.bn1(self.conv1(x))), 2)
        x = F.max_pool2d(F.relu(self.conv2(x)), 2)
        x = torch.flatten(x, 1)
        x = self.drop(F.relu(self.fc1(x)))
        return self.fc2(x)


class WithSoftmax(nn.Module):
    """What is exported: the classifier followed by a softmax."""

    def __init__(self, net):
        super().__init__()
        self.net = net

    def forward(self, x):
        return F.softmax(self.net(x), dim=1)


def accuracy(net, x, y, batch=1000):
    net.eval()
    correct = 0
    with torch.no_grad():
        for i in range(0, len(x), batch):
            correct += (net(x[i:i + batch]).argmax(1) == y[i:i + batch]).sum().item()
    return correct / len(x)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", default=os.path.dirname(os.path.abspath(__file__)),
                    help="output directory (default: beside this script)")
    ap.add_argument("--epochs", type=int, default=3)
    ap.add_argument("--batch", type=int, default=64)
    args = ap.parse_args()

    torch.manual_seed(SEED)
    torch.set_num_threads(2)
    torch.use_deterministic_algorithms(True)

    t0 = time.time()
    x_train, y_train = load("train")
    x_test, y_test = load("t10k")
    print("loaded %d training and %d test images from %s" % (len(x_train), len(x_test), DATA_DIR),
          flush=True)

    net = FashionCNN()
    opt = torch.optim.Adam(net.parameters(), lr=2e-3)
    gen = torch.Generator().manual_seed(SEED)
    steps = (len(x_train) + args.batch - 1) // args.batch
    for epoch in range(args.epochs):
        # The last epoch runs at a quarter of the learning rate.
        for group in opt.param_groups:
            group["lr"] = 2e-3 if epoch + 1 < args.epochs else 5e-4
        net.train()
        order = torch.randperm(len(x_train), generator=gen)
        running = 0.0
        for step in range(steps):
            idx = order[step * args.batch:(step + 1) * args.batch]
            loss = F.cross_entropy(net(x_train[idx]), y_train[idx])
            opt.zero_grad()
            loss.backward()
            opt.step()
            running += loss.item()
            if (step + 1) % 100 == 0 or step + 1 == steps:
                n = (step % 100) + 1
                print("\repoch %d/%d  step %4d/%d  loss %.4f  %5.1fs" %
                      (epoch + 1, args.epochs, step + 1, steps, running / n, time.time() - t0),
                      end="", flush=True)
                running = 0.0
        print("\nepoch %d/%d  test accuracy %.2f%%" %
              (epoch + 1, args.epochs, 100 * accuracy(net, x_test, y_test)), flush=True)

    model = WithSoftmax(net).eval()
    os.makedirs(args.out, exist_ok=True)
    onnx_path = os.path.join(args.out, "fashion_cnn.onnx")
    # PRESERVE with the model in eval mode keeps BatchNormalization and
    # Dropout as nodes (EVAL would fold BN into the convolution in PyTorch):
    # folding them is dnncc's job, so the sample exercises it.
    torch.onnx.export(model, torch.zeros(1, 1, 28, 28), onnx_path, opset_version=13,
                      input_names=["image"], output_names=["probs"],
                      training=torch.onnx.TrainingMode.PRESERVE, do_constant_folding=False)
    onnx.checker.check_model(onnx.load(onnx_path))

    images = x_test[:N_SAMPLES].contiguous()
    labels = y_test[:N_SAMPLES].to(torch.uint8)
    with torch.no_grad():
        # One image at a time, as the exported batch-1 model sees them.
        expected = torch.cat([model(images[i:i + 1]) for i in range(N_SAMPLES)])
    images.numpy().astype("<f4").tofile(os.path.join(args.out, "images.bin"))
    labels.numpy().tofile(os.path.join(args.out, "labels.bin"))
    expected.numpy().astype("<f4").tofile(os.path.join(args.out, "expected.bin"))
    ops = [n.op_type for n in onnx.load(onnx_path).graph.node]
    print("wrote %s (%s), images.bin, labels.bin, expected.bin; %d samples, "
          "%d correct; %.1fs in all" %
          (onnx_path, " ".join(ops), N_SAMPLES,
           (expected.argmax(1) == y_test[:N_SAMPLES]).sum().item(), time.time() - t0))


if __name__ == "__main__":
    main()
