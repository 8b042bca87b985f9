#!/bin/sh
# bind.sh - dnncc --bind (issue 11) on ONNX's test_slice node test, whose
# starts, ends, axes and steps are graph inputs: without bindings dnncc refuses
# the model naming the node, each input and the option; with them (from the
# test's TensorProto files and from number lists) it compiles a model whose
# only input is the data, and the generated code builds with -Werror. Bad
# bindings are refused with a message. (Outputs are checked against the
# reference by tests/conformance, which binds the same way.)
set -u
DNNCC=${DNNCC:-./dnncc}
DATA=${ONNX_TESTDATA:-/usr/share/libonnx-testdata/data}/node/test_slice
[ -f "$DATA/model.onnx" ] || { echo "SKIP: no $DATA"; exit 77; }
T=$(mktemp -d "${TMPDIR:-/tmp}/dnncc-bind-XXXXXX")
trap 'rm -rf "$T"' EXIT
fail=0
bad() { echo "FAIL: $*"; fail=1; }

mkdir "$T/a"
if "$DNNCC" "$DATA/model.onnx" -o "$T/a/model.c" 2>"$T/err"; then
	bad "an unbound run-time Slice operand was accepted"
fi
for name in starts ends axes steps; do
	grep -q "node 'Slice_y' (Slice): $name (input [0-9], '$name') must be a constant, but it is computed at run time; freeze the graph input with --bind" "$T/err" ||
		bad "no refusal naming input '$name'"
done
[ -z "$(ls "$T/a")" ] || bad "a refusal left files behind"

mkdir "$T/b"
set0=$DATA/test_data_set_0
if ! "$DNNCC" "$DATA/model.onnx" -o "$T/b/model.c" --name model \
	--bind "starts=$set0/input_1.pb" --bind "ends=$set0/input_2.pb" \
	--bind axes=0,1 --bind steps=1,1 2>"$T/err"; then
	cat "$T/err"
	bad "bound model refused"
else
	grep -q "#define MODEL_NUM_INPUTS 1" "$T/b/model.h" || bad "bound inputs are still inputs"
	(cd "$T/b" && ${CC:-cc} -std=c99 -Wall -Wextra -pedantic -Werror -c model.c) ||
		bad "bound model does not build"
fi

mkdir "$T/c"
"$DNNCC" "$DATA/model.onnx" -o "$T/c/model.c" --bind nosuch=1 --bind starts=0,x \
	--bind "ends=$set0/input_1.pb" --bind axes=0,1 --bind steps=1,1 2>"$T/err" &&
	bad "bad bindings accepted"
grep -q "bind names 'nosuch', which is not a graph input" "$T/err" || bad "unknown name not named"
grep -q "bind starts=0,x: expected comma-separated int64 numbers" "$T/err" ||
	bad "malformed list not refused"
"$DNNCC" "$DATA/model.onnx" -o "$T/c/model.c" --bind starts 2>/dev/null
[ $? -eq 2 ] || bad "--bind without '=' is not a usage error"
[ $fail -eq 0 ] && echo "PASS: --bind"
exit $fail
