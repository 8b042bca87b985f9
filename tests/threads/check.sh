#!/bin/sh
# check.sh - --threads N end to end (tests/threads/check.py says what it
# checks): outputs bitwise identical at 1..5 threads over many models and
# every convolution family, the single-threaded builds, warning-free gcc and
# clang builds. Exits 77 (skipped) without /usr/bin/python3 with numpy,
# torch and onnx.
here=$(cd "$(dirname "$0")" && pwd)
PY=/usr/bin/python3
if ! [ -x "$PY" ] || ! "$PY" -c 'import numpy, torch, onnx' 2>/dev/null; then
	echo "check.sh: skipped: $PY with numpy, torch and onnx is needed"
	exit 77
fi
exec "$PY" -u "$here/check.py"
