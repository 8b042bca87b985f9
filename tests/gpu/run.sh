#!/bin/sh
# tests/gpu/run.sh - the checks of dnncc's CUDA training code that need a GPU
# (none of this has run where dnncc is developed: no GPU there). From a
# configured and built tree (./dnncc), with nvcc, cuBLAS and PyTorch; a few
# minutes on any recent GPU:
#   1. step checks: three steps of SGD, momentum and Adam (softmax-ce) and of
#      SGD and Adam (mse) on the small MLP of tests/train/step_ref.py match
#      PyTorch's to 1e-5 (tests/train/step_check.sh with TARGET=cuda);
#   2. the pools: an epoch through NAME_train_epoch (pools of 3 batches,
#      remainder batch and left-over images) equals single steps;
#   3. the Fashion-MNIST trainer on CUDA: 10 epochs of the full training set
#      (batch 64, Adam, lr 0.001) reach 88% on the test set, and its ONNX
#      output agrees with dnncc's inference code and PyTorch.
# usage: tests/gpu/run.sh   (from the build folder; NVCC and CUDA_LIBS may be set)
set -eu
: "${DNNCC:=$PWD/dnncc}" "${CC:=cc}" "${abs_top_srcdir:=$(cd "$(dirname "$0")/../.." && pwd)}"
: "${abs_top_builddir:=$PWD}"
: "${NVCC:=$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}"
: "${CUDA_LIBS:=-L/usr/local/cuda/lib64 -lcublas -lcudart -lstdc++}"
export DNNCC CC abs_top_srcdir abs_top_builddir NVCC CUDA_LIBS
nvidia-smi -L || { echo "tests/gpu/run.sh: no GPU visible (nvidia-smi)" >&2; exit 1; }

echo "== 1. step checks against PyTorch on the GPU"
TARGET=cuda sh "$abs_top_srcdir/tests/train/step_check.sh"

echo "== 2. two pools against single steps"
out=tests/gpu/out
rm -rf "$out" && mkdir -p "$out"
/usr/bin/python3 "$abs_top_srcdir/tests/train/step_ref.py" make "$out"
"$DNNCC" --train "$out/model.onnx" -o "$out/a.cu" --batch 32 --optimizer adam --target cuda \
	--pool-batches 3
"$DNNCC" --train "$out/model.onnx" -o "$out/b.cu" --batch 32 --optimizer adam --target cuda
$NVCC -O2 -c "$out/a.cu" -o "$out/a.o"
$NVCC -O2 -c "$out/b.cu" -o "$out/b.o"
$CC -std=c99 -O2 -I"$out" "$abs_top_srcdir/tests/gpu/pool_check.c" "$out/a.o" "$out/b.o" \
	-o "$out/pool_check" $CUDA_LIBS -lm
"$out/pool_check"

echo "== 3. the Fashion-MNIST trainer on the GPU"
TARGET=cuda EPOCHS=10 LIMIT=0 BATCH=64 OPTIMIZER=adam LR=0.001 MIN_ACC=0.88 \
	sh "$abs_top_srcdir/samples/fashion_train/check_train.sh" "$out/fashion"
echo "tests/gpu/run.sh: all GPU checks passed"
