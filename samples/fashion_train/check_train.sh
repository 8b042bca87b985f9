#!/bin/sh
# check_train.sh - the Fashion-MNIST trainer end to end, small: dnncc --train
# compiles samples/fashion_train/mlp_init.onnx (784-256-128-10, batch 32,
# Adam, lr 0.002), the generated code is built with -Werror and linked with
# trainer.c, which trains 2 epochs on the first 5000 training images and must
# reach 77% on the 10,000 test images (79.4% here); the ONNX it writes is
# compiled by dnncc (inference) and run by PyTorch, and both must agree with
# the trainer's outputs to 1e-4. Skipped (77) without the dataset or zlib.
#   usage: check_train.sh [OUTDIR]
# The environment changes the run (`make fashion-train` is the full one):
#   EPOCHS (2), LIMIT (5000 images; 0: all), BATCH (32), OPTIMIZER (adam),
#   LR (0.002), LR_DECAY (1: the learning rate is multiplied by it after
#   every epoch), MIN_ACC (0.77), TARGET (host; cuda: the CUDA code, needs a
#   GPU and nvcc: tests/gpu/run.sh)
set -eu
: "${TARGET:=host}" "${NVCC:=nvcc}"
: "${CUDA_LIBS:=-L/usr/local/cuda/lib64 -lcublas -lcudart -lstdc++}"
: "${EPOCHS:=2}" "${LIMIT:=5000}" "${BATCH:=32}" "${OPTIMIZER:=adam}" "${LR:=0.002}"
: "${MIN_ACC:=0.77}" "${LR_DECAY:=1}"
: "${DNNCC:=./dnncc}" "${CC:=cc}" "${abs_top_srcdir:=.}" "${abs_top_builddir:=.}"
: "${PROTOBUF_C_CFLAGS:=}" "${PROTOBUF_C_LIBS:=-lprotobuf-c}"
here="$abs_top_srcdir/samples/fashion_train"
out="${1:-samples/fashion_train/check-out}"
data=/usr/share/datasets/fashion-mnist
if [ ! -f "$data/train-images-idx3-ubyte.gz" ]; then
	echo "check_train.sh: $data is missing (apt-get install dataset-fashion-mnist): skipped"
	exit 77
fi
if ! printf '#include <zlib.h>\nint main(void){return !zlibVersion();}\n' |
	$CC -x c - -o /dev/null -lz 2>/dev/null; then
	echo "check_train.sh: zlib is missing (apt-get install zlib1g-dev): skipped"
	exit 77
fi
rm -rf "$out" && mkdir -p "$out/infer"
extra=""
if [ "$TARGET" = cuda ]; then
	"$DNNCC" --train "$here/mlp_init.onnx" -o "$out/mlp.cu" --batch "$BATCH" \
		--optimizer "$OPTIMIZER" --lr "$LR" --target cuda
	$NVCC -O2 -c "$out/mlp.cu" -o "$out/mlp.o"
	extra="$CUDA_LIBS"
else
	"$DNNCC" --train "$here/mlp_init.onnx" -o "$out/mlp.c" --batch "$BATCH" \
		--optimizer "$OPTIMIZER" --lr "$LR" --target "$TARGET"
	$CC -std=c99 -O2 -Wall -Wextra -pedantic -Werror -c "$out/mlp.c" -o "$out/mlp.o"
fi
$CC -std=c99 -O2 -Wall -Wextra -D_POSIX_C_SOURCE=200809L -I"$out" -I"$abs_top_builddir" \
	-I"$abs_top_srcdir" $PROTOBUF_C_CFLAGS "$here/trainer.c" \
	"$abs_top_builddir/frontend/onnx.pb-c.c" "$out/mlp.o" -o "$out/trainer" \
	$PROTOBUF_C_LIBS -lz $extra -lm
"$out/trainer" --epochs "$EPOCHS" --limit "$LIMIT" --lr "$LR" --lr-decay "$LR_DECAY" \
	--model "$here/mlp_init.onnx" --out "$out/trained.onnx" --dump "$out" | tee "$out/train.log"
acc=$(sed -n 's/^test accuracy: \([0-9.]*\).*/\1/p' "$out/train.log")
if ! awk -v a="$acc" -v m="$MIN_ACC" 'BEGIN { exit !(a >= m) }'; then
	echo "check_train.sh: test accuracy $acc is below $MIN_ACC" >&2
	exit 1
fi
"$DNNCC" "$out/trained.onnx" -o "$out/infer/fashion_infer.c" --shape "image=$BATCH,1,28,28"
$CC -std=c99 -O2 -Wall -Wextra -pedantic -Werror -I"$out/infer" "$here/infer_main.c" \
	"$out/infer/fashion_infer.c" -o "$out/infer/infer" -lm
"$out/infer/infer" "$out"
/usr/bin/python3 "$here/verify_onnx.py" "$out/trained.onnx" "$out"
