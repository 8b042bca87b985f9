#!/bin/sh
# check.sh - the generated arena and weights start on a 64-byte boundary
# (issue 9: blocked layouts' 64-byte vectors must not straddle cache lines;
# a plain static float array is only 16- or 32-byte aligned: ResNet-50's
# arena landed at ...a0 before). The memory planner puts every tensor at a
# multiple of 64 bytes from the start, so the start is what decides.
#
# Cases: the Fashion-MNIST sample with --weights embed, c-array and file,
# and a model whose arena holds an int64 tensor (the typed arena, a union;
# made here with /usr/bin/python3 and onnx, skipped without them). Each is
# built into a checker that includes the generated NAME.c (its arena and
# weights are static) and prints their addresses, under gcc and clang (those
# present; $CC when neither is), at -O0 and -O2, with
# -std=c99 -Wall -Wextra -pedantic -Werror; the checker fails on an address
# that is not a multiple of 64.
# Environment (make check sets them): DNNCC, CC.
set -u
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=tests/testlib.sh
. "$here/../testlib.sh"
cases_init align
model=$top_srcdir/samples/fashion_mnist/fashion_cnn.onnx
PY=/usr/bin/python3

compilers=
for c in gcc clang; do
	command -v "$c" >/dev/null 2>&1 && compilers="$compilers $c"
done
[ -n "$compilers" ] || compilers=$CC

# check DIR WEIGHTS_SYMBOL: builds and runs the checker in DIR (model.c there)
check() {
	cat >"$1/check.c" <<'EOF'
#include <stdint.h>
#include <stdio.h>
#include "model.c"

static int at64(const char *what, const void *p)
{
	printf("%s at %p\n", what, p);
	return (uintptr_t)p % 64 != 0;
}

int main(void)
{
	int bad = at64("arena", (const void *)model_arena);
#ifdef WEIGHTS
	bad |= at64("weights", (const void *)WEIGHTS);
#endif
	return bad;
}
EOF
	def=
	[ -n "$2" ] && def=-DWEIGHTS=$2
	for cc in $compilers; do
		for o in -O0 -O2; do
			# shellcheck disable=SC2086 # def is empty or one word
			(cd "$1" && $cc -std=c99 -Wall -Wextra -pedantic -Werror $o $def -o check check.c -lm) \
				>>"$1/log" 2>&1 || { echo "$cc $o: does not build" >>"$1/log"; return 1; }
			(cd "$1" && ./check) >>"$1/log" 2>&1 || { echo "$cc $o: not 64-byte aligned" >>"$1/log"; return 1; }
		done
	done
	return 0
}

run_case() {
	c=$1
	case_dir "$c"
	case $c in
	embed | c-array | file)
		sym=model_weights
		[ "$c" = embed ] && sym=model_weights_data
		"$DNNCC" "$model" -o "$d/model.c" --weights "$c" >"$d/log" 2>&1 || { fail "$c"; return; }
		;;
	typed)
		if ! "$PY" -c 'import onnx' 2>/dev/null; then
			skip "$c" "$PY with onnx is needed"
			return
		fi
		# y = float(int64(x)) + x: the int64 tensor lives in the arena
		"$PY" - "$d/typed.onnx" >"$d/log" 2>&1 <<'EOF' || { fail "$c"; return; }
import sys
from onnx import TensorProto, helper, save
g = helper.make_graph(
    [helper.make_node("Cast", ["x"], ["i"], to=TensorProto.INT64),
     helper.make_node("Cast", ["i"], ["f"], to=TensorProto.FLOAT),
     helper.make_node("Add", ["f", "x"], ["y"])],
    "typed", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 37])],
    [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 37])])
save(helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)]), sys.argv[1])
EOF
		sym=
		"$DNNCC" "$d/typed.onnx" -o "$d/model.c" >>"$d/log" 2>&1 || { fail "$c"; return; }
		if ! grep -q "model_arena_store" "$d/model.c"; then
			echo "no typed arena (model_arena_store) in model.c" >>"$d/log"
			fail "$c"
			return
		fi
		;;
	esac
	if check "$d" "$sym"; then pass "$c"; else fail "$c"; fi
}

cases_run embed c-array file typed
