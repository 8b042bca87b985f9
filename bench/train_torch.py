#!/usr/bin/python3
"""PyTorch's side of `make bench-train`: trains the same MLP (784-256-128-10,
or any make_model.py --hidden) as dnncc's trainer (initial parameters read
from the same ONNX file, same optimizer and batch, images scaled to [0, 1],
a seeded shuffle, the last partial batch dropped) on the CPU with a given
number of threads, and prints seconds per epoch and the test accuracy in the trainer's format:
  epoch 1: 2.31 s, 25974 images/s, mean loss 0.5123
  test accuracy: 0.8901 (8901/10000)

usage: train_torch.py INIT.onnx [--epochs E] [--batch B] [--lr X]
                      [--optimizer adam|sgd|momentum] [--threads T] [--limit N]"""
import argparse
import gzip
import time

import numpy as np
import onnx
import torch
from onnx import numpy_helper

DATA = "/usr/share/datasets/fashion-mnist/"


def idx(name, images):
    with gzip.open(DATA + name) as f:
        raw = f.read()
    return np.frombuffer(raw, dtype=np.uint8, offset=16 if images else 8)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("model")
    ap.add_argument("--epochs", type=int, default=10)
    ap.add_argument("--batch", type=int, default=64)
    ap.add_argument("--lr", type=float, default=0.001)
    ap.add_argument("--optimizer", default="adam")
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--limit", type=int, default=0)
    a = ap.parse_args()
    torch.set_num_threads(a.threads)
    torch.manual_seed(0)
    init = {t.name: torch.from_numpy(numpy_helper.to_array(t).copy())
            for t in onnx.load(a.model).graph.initializer}
    # The layers from the initializers (make_model.py's Sequential: Flatten,
    # then Linear at every odd index with ReLU between), so any --hidden works.
    linear = sorted({int(n.split(".")[0]) for n in init})
    layers = [torch.nn.Flatten()]
    for i, k in enumerate(linear):
        out_f, in_f = init[f"{k}.weight"].shape
        layers += [torch.nn.Linear(in_f, out_f)] + ([torch.nn.ReLU()] if i + 1 < len(linear) else [])
    model = torch.nn.Sequential(*layers)
    with torch.no_grad():
        for name, p in model.named_parameters():
            p.copy_(init[name])
    x = torch.from_numpy(idx("train-images-idx3-ubyte.gz", True).reshape(-1, 784)
                         .astype(np.float32) / 255.0)
    y = torch.from_numpy(idx("train-labels-idx1-ubyte.gz", False).astype(np.int64))
    tx = torch.from_numpy(idx("t10k-images-idx3-ubyte.gz", True).reshape(-1, 784)
                          .astype(np.float32) / 255.0)
    ty = torch.from_numpy(idx("t10k-labels-idx1-ubyte.gz", False).astype(np.int64))
    if a.limit:
        x, y = x[:a.limit], y[:a.limit]
    if a.optimizer == "adam":
        opt = torch.optim.Adam(model.parameters(), lr=a.lr)
    else:
        opt = torch.optim.SGD(model.parameters(), lr=a.lr,
                              momentum=0.9 if a.optimizer == "momentum" else 0.0)
    steps = x.shape[0] // a.batch
    total, cpu0 = 0.0, time.process_time()
    for e in range(1, a.epochs + 1):
        order = torch.randperm(x.shape[0])
        t0, loss_sum = time.perf_counter(), 0.0
        for s in range(steps):
            idxs = order[s * a.batch:(s + 1) * a.batch]
            opt.zero_grad()
            loss = torch.nn.functional.cross_entropy(model(x[idxs]), y[idxs])
            loss.backward()
            opt.step()
            loss_sum += loss.item()
        dt = time.perf_counter() - t0
        total += dt
        print("epoch %d: %.2f s, %.0f images/s, mean loss %.4f" % (e, dt, steps * a.batch / dt,
                                                                  loss_sum / steps), flush=True)
    cpu = time.process_time() - cpu0
    with torch.no_grad():
        correct = int((model(tx).argmax(1) == ty).sum())
    print("training time: %.2f s (%.2f s per epoch; CPU time %.2f s per epoch)" %
          (total, total / a.epochs, cpu / a.epochs))
    print("test accuracy: %.4f (%d/%d)" % (correct / ty.shape[0], correct, ty.shape[0]))


if __name__ == "__main__":
    main()
