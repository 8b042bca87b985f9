#!/bin/sh
# cuda_compile.sh - `dnncc --train --target cuda` output compiles with nvcc
# (warnings as errors, host compiler with -Wall -Wextra) and links with a C
# program against cuBLAS and the CUDA runtime: the small MLP of step_ref.py
# with softmax-ce and each optimizer, mse, pools of 3 batches, a weight read
# by two layers, and the
# Fashion-MNIST trainer. Nothing runs: that needs a GPU (tests/gpu/run.sh).
# Skipped (77) when configure found no nvcc or PyTorch is missing.
set -eu
: "${DNNCC:=./dnncc}" "${CC:=cc}" "${abs_top_srcdir:=.}" "${abs_top_builddir:=.}"
: "${NVCC:=}" "${CUDA_LIBS:=-L/usr/local/cuda/lib64 -lcublas -lcudart -lstdc++}"
: "${PROTOBUF_C_CFLAGS:=}" "${PROTOBUF_C_LIBS:=-lprotobuf-c}"
if [ -z "$NVCC" ]; then
	echo "cuda_compile.sh: no nvcc (configure looks in PATH and /usr/local/cuda/bin): skipped"
	exit 77
fi
here="$abs_top_srcdir/tests/train"
out=tests/train/cuda-out
rm -rf "$out" && mkdir -p "$out"
/usr/bin/python3 "$here/step_ref.py" make "$out" || exit $?
for case in "softmax-ce sgd 16" "softmax-ce momentum 1" "softmax-ce adam 3" "mse adam 3"; do
	set -- $case
	dir="$out/$1-$2"
	mkdir -p "$dir"
	"$DNNCC" --train "$out/model.onnx" -o "$dir/net.cu" --batch 32 --loss "$1" --optimizer "$2" \
		--target cuda --pool-batches "$3"
	def=""
	[ "$1" = mse ] && def=-DSTEP_MSE
	$NVCC -O2 -Werror all-warnings -Xcompiler -Wall,-Wextra -c "$dir/net.cu" -o "$dir/net.o"
	$CC -std=c99 -O2 -Wall -Wextra -Werror $def -I"$dir" "$here/step_main.c" "$dir/net.o" \
		-o "$dir/step" $CUDA_LIBS -lm
	echo "compiled and linked: $1 $2, pools of $3 batches"
done
# a weight read twice: the gradient-sum kernel
mkdir -p "$out/shared"
/usr/bin/python3 "$here/step_ref.py" make "$out/shared" shared
"$DNNCC" --train "$out/shared/model.onnx" -o "$out/shared/net.cu" --batch 32 --optimizer adam \
	--target cuda
$NVCC -O2 -Werror all-warnings -Xcompiler -Wall,-Wextra -c "$out/shared/net.cu" \
	-o "$out/shared/net.o"
echo "compiled: a shared weight"
train="$abs_top_srcdir/samples/fashion_train"
mkdir -p "$out/fashion"
"$DNNCC" --train "$train/mlp_init.onnx" -o "$out/fashion/mlp.cu" --batch 64 --optimizer adam \
	--lr 0.001 --target cuda
$NVCC -O2 -Werror all-warnings -c "$out/fashion/mlp.cu" -o "$out/fashion/mlp.o"
if printf '#include <zlib.h>\nint main(void){return !zlibVersion();}\n' |
	$CC -x c - -o /dev/null -lz 2>/dev/null; then
	$CC -std=c99 -O2 -Wall -Wextra -Werror -D_POSIX_C_SOURCE=200809L -I"$out/fashion" \
		-I"$abs_top_builddir" -I"$abs_top_srcdir" $PROTOBUF_C_CFLAGS "$train/trainer.c" \
		"$abs_top_builddir/frontend/onnx.pb-c.c" "$out/fashion/mlp.o" -o "$out/fashion/trainer" \
		$PROTOBUF_C_LIBS -lz $CUDA_LIBS -lm
	echo "compiled and linked: the Fashion-MNIST trainer on CUDA"
fi
