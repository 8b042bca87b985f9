#!/usr/bin/python3
"""Writes the untrained 784-256-128-10 Fashion-MNIST classifier that
`dnncc --train` starts from: Flatten, three Linear layers (Gemm with
transB = 1), ReLU between them and a Softmax at the end (absorbed into the
softmax cross-entropy loss when training; NAME_run outputs probabilities).
PyTorch's default initialisation with a fixed seed, so the file is the same
on every run with the same PyTorch. Input 'image' [N, 1, 28, 28] with a
symbolic batch N (dnncc --train pins it with --batch), output
'probabilities' [N, 10].

usage: make_model.py OUT.onnx [--seed S] [--hidden 256,128]"""
import argparse

import torch


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("out")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--hidden", default="256,128")
    args = ap.parse_args()
    torch.manual_seed(args.seed)
    sizes = [784] + [int(h) for h in args.hidden.split(",")] + [10]
    layers = [torch.nn.Flatten()]
    for i in range(len(sizes) - 1):
        layers.append(torch.nn.Linear(sizes[i], sizes[i + 1]))
        if i + 2 < len(sizes):
            layers.append(torch.nn.ReLU())
    layers.append(torch.nn.Softmax(dim=1))
    model = torch.nn.Sequential(*layers).eval()
    x = torch.zeros(2, 1, 28, 28)
    torch.onnx.export(model, x, args.out, input_names=["image"],
                      output_names=["probabilities"], opset_version=13,
                      dynamic_axes={"image": {0: "N"}, "probabilities": {0: "N"}})


if __name__ == "__main__":
    main()
