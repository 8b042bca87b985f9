#!/bin/sh
# bench/train.sh - `make bench-train`: Fashion-MNIST 784-256-128-10 training
# with dnncc's generated C (one thread) beside PyTorch on the CPU (1 and 2
# threads), same initial parameters, Adam lr 0.001, for each batch size;
# seconds per epoch and test accuracy after EPOCHS epochs, as a Markdown
# table on stdout and in OUT. The CUDA columns say "not measured" unless a
# GPU run is added by hand (tests/gpu/run.sh prints its epoch times).
#   usage: bench/train.sh [OUT.md]
#   environment: EPOCHS (10), BATCHES ("64 256"), THREADS (PyTorch's, "1 2")
set -eu
: "${DNNCC:=./dnncc}" "${CC:=cc}" "${abs_top_srcdir:=.}" "${abs_top_builddir:=.}"
: "${EPOCHS:=10}" "${BATCHES:=64 256}" "${THREADS:=1 2}"
export DNNCC CC abs_top_srcdir abs_top_builddir
out="${1:-bench/results/train_fashion.md}"
tmp=bench/train-out
mkdir -p "$tmp" "$(dirname "$out")"
cpu=$(sed -n 's/^model name[^:]*: //p' /proc/cpuinfo | head -1)
{
	echo "# Fashion-MNIST MLP training: dnncc --train against PyTorch"
	echo
	echo "784-256-128-10 (ReLU), softmax cross-entropy, Adam lr 0.001, $EPOCHS epochs on all"
	echo "60,000 training images, test accuracy on the 10,000 test images. CPU: $cpu,"
	echo "$(nproc) cores; measured $(date -u +%Y-%m-%d) by bench/train.sh. s/epoch is training"
	echo "time only (no evaluation, no data loading): wall-clock, and in parentheses the"
	echo "process's CPU time, which is the fairer figure when the machine is shared."
	echo
	echo "| batch | dnncc C, 1 thread: s/epoch | accuracy | PyTorch 1 thread: s/epoch | accuracy | PyTorch 2 threads: s/epoch | accuracy | dnncc CUDA: s/epoch | accuracy |"
	echo "|---|---|---|---|---|---|---|---|---|"
} > "$out.tmp"
# "wall (CPU)" seconds per epoch: on a shared machine the CPU time is the
# fairer figure (both run single-threaded except PyTorch's 2-thread column).
per_epoch() {
	sed -n -e 's/^training time: .*(\([0-9.]*\) s per epoch; CPU time \([0-9.]*\) s.*/\1 (\2)/p' \
		-e 's/^not measured$/not measured/p' "$1"
}
accuracy() { sed -n -e 's/^test accuracy: \([0-9.]*\).*/\1/p' -e 's/^not measured$/-/p' "$1"; }
for b in $BATCHES; do
	EPOCHS=$EPOCHS LIMIT=0 BATCH=$b OPTIMIZER=adam LR=0.001 MIN_ACC=0 \
		sh "$abs_top_srcdir/samples/fashion_train/check_train.sh" "$tmp/dnncc-$b" \
		> "$tmp/dnncc-$b.log"
	for t in 1 2; do
		echo "not measured" > "$tmp/torch-$b-$t.log"
		case " $THREADS " in *" $t "*) ;; *) continue ;; esac
		/usr/bin/python3 "$abs_top_srcdir/bench/train_torch.py" \
			"$abs_top_srcdir/samples/fashion_train/mlp_init.onnx" --epochs "$EPOCHS" \
			--batch "$b" --threads "$t" > "$tmp/torch-$b-$t.log"
	done
	echo "| $b | $(per_epoch "$tmp/dnncc-$b.log") | $(accuracy "$tmp/dnncc-$b.log") |" \
		"$(per_epoch "$tmp/torch-$b-1.log") | $(accuracy "$tmp/torch-$b-1.log") |" \
		"$(per_epoch "$tmp/torch-$b-2.log") | $(accuracy "$tmp/torch-$b-2.log") |" \
		"not measured | not measured |" >> "$out.tmp"
done
mv "$out.tmp" "$out"
cat "$out"
