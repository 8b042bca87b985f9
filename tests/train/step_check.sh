#!/bin/sh
# step_check.sh - a training step of generated code matches PyTorch's: the
# small MLP of step_ref.py (Flatten, Gemm, Tanh, MatMul + Add, Sigmoid, Gemm,
# Relu, Gemm, Softmax), same initial parameters, same batch of 32, three steps
# of each optimizer (SGD, momentum, Adam) with softmax cross-entropy and two
# with mean squared error, and Adam on a model that reads one weight twice;
# parameters and losses must agree to 1e-5. Each
# generated file is compiled with -Werror under gcc and clang (when present).
# Skipped (77) without PyTorch.
# TARGET=cuda runs the same checks on the CUDA code (nvcc, and a GPU to run
# it: tests/gpu/run.sh does).
set -eu
: "${DNNCC:=./dnncc}" "${CC:=cc}" "${abs_top_srcdir:=.}" "${TARGET:=x86-64-v3}"
: "${NVCC:=nvcc}" "${CUDA_LIBS:=-L/usr/local/cuda/lib64 -lcublas -lcudart -lstdc++}"
PY=/usr/bin/python3
here="$abs_top_srcdir/tests/train"
out=tests/train/step-out-$TARGET
rm -rf "$out" && mkdir -p "$out"
$PY "$here/step_ref.py" make "$out" || exit $?
compilers="$CC"
command -v clang >/dev/null 2>&1 && compilers="$compilers clang"
fail=0
for case in "softmax-ce sgd 0.1" "softmax-ce momentum 0.05" "softmax-ce adam 0.01" \
	"mse sgd 0.5" "mse adam 0.01"; do
	set -- $case
	dir="$out/$1-$2"
	mkdir -p "$dir"
	cp "$out/x.bin" "$out/labels.bin" "$out/target.bin" "$dir/"
	def=""
	[ "$1" = mse ] && def=-DSTEP_MSE
	if [ "$TARGET" = cuda ]; then
		"$DNNCC" --train "$out/model.onnx" -o "$dir/net.cu" --batch 32 --loss "$1" \
			--optimizer "$2" --lr "$3" --target cuda
		$NVCC -O2 -Werror all-warnings -c "$dir/net.cu" -o "$dir/net.o"
		$CC -std=c99 -O2 $def -I"$dir" "$here/step_main.c" "$dir/net.o" -o "$dir/step" \
			$CUDA_LIBS -lm
	else
		"$DNNCC" --train "$out/model.onnx" -o "$dir/net.c" --batch 32 --loss "$1" \
			--optimizer "$2" --lr "$3" --target "$TARGET"
		for cc in $compilers; do
			$cc -std=c99 -Wall -Wextra -pedantic -Werror -O2 -c "$dir/net.c" -o "$dir/net-$cc.o"
		done
		$CC -std=c99 -O2 $def -I"$dir" "$here/step_main.c" "$dir/net-$CC.o" -o "$dir/step" -lm
	fi
	"$dir/step" "$dir" 3
	$PY "$here/step_ref.py" compare "$dir" "$1" "$2" "$3" 3 || fail=1
done
# A weight read by two Gemm nodes (its gradients summed), with Adam.
dir="$out/shared"
mkdir -p "$dir"
$PY "$here/step_ref.py" make "$dir" shared
if [ "$TARGET" = cuda ]; then
	"$DNNCC" --train "$dir/model.onnx" -o "$dir/net.cu" --batch 32 --optimizer adam --lr 0.01 \
		--target cuda
	$NVCC -O2 -Werror all-warnings -c "$dir/net.cu" -o "$dir/net.o"
	$CC -std=c99 -O2 -I"$dir" "$here/step_main.c" "$dir/net.o" -o "$dir/step" $CUDA_LIBS -lm
else
	"$DNNCC" --train "$dir/model.onnx" -o "$dir/net.c" --batch 32 --optimizer adam --lr 0.01 \
		--target "$TARGET"
	$CC -std=c99 -Wall -Wextra -pedantic -Werror -O2 -I"$dir" "$here/step_main.c" "$dir/net.c" \
		-o "$dir/step" -lm
fi
"$dir/step" "$dir" 3
printf 'shared weight: '
$PY "$here/step_ref.py" compare "$dir" softmax-ce adam 0.01 3 shared || fail=1
# --blas openblas: the same step through cblas_sgemm, when OpenBLAS is installed.
if [ "$TARGET" != cuda ] && printf '#include <cblas.h>\nint main(void){return 0;}\n' |
	$CC -x c - -o /dev/null -lopenblas 2>/dev/null; then
	dir="$out/openblas"
	mkdir -p "$dir"
	cp "$out/x.bin" "$out/labels.bin" "$dir/"
	"$DNNCC" --train "$out/model.onnx" -o "$dir/net.c" --batch 32 --optimizer momentum \
		--lr 0.05 --blas openblas
	$CC -std=c99 -Wall -Wextra -pedantic -Werror -O2 -I"$dir" "$here/step_main.c" "$dir/net.c" \
		-o "$dir/step" -lopenblas -lm
	"$dir/step" "$dir" 3
	printf 'openblas: '
	$PY "$here/step_ref.py" compare "$dir" softmax-ce momentum 0.05 3 || fail=1
fi
# A model with other operators is refused, naming each node, with no output.
if "$DNNCC" --train "$abs_top_srcdir/samples/fashion_mnist/fashion_cnn.onnx" -o "$out/cnn.c" \
	2> "$out/cnn.err"; then
	echo "step_check.sh: --train accepted a CNN" >&2
	fail=1
elif ! grep -q "node '/net/conv1/Conv' (Conv): --train: operator Conv is not supported" \
	"$out/cnn.err" || [ -e "$out/cnn.c" ] || [ -e "$out/cnn.h" ]; then
	echo "step_check.sh: wrong refusal of the CNN:" >&2
	cat "$out/cnn.err" >&2
	fail=1
fi
exit $fail
