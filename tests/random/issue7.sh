#!/bin/sh
# issue7.sh - the issue-7 graphs of tests/random/gen.py (fixed_graphs) under
# every strategy: networks whose output is written by a 5x5 conv, a dilated
# conv, 1x7 then 7x1 convs, 11x11 s4 then 7x7 s2 convs, an inception block's
# Concat, and grouped/depthwise convs; and output_sets (conv outputs that later
# nodes also read, the input passed through, a duplicate output). 7 graphs x
# 11 strategies = 77 builds. Before commit 45d2202 dnncc stopped with
# "graph output never written" on these whenever the chosen primitive wrote a
# layout other than the model's. tests/random/run.py says when a build passes.
# Environment as for tests/random/check.sh; exits 77 without the Python modules.

set -u
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=tests/testlib.sh
. "$here/../testlib.sh"
models_env
PY=/usr/bin/python3

if ! [ -x "$PY" ] || ! "$PY" -c 'import numpy, torch, onnx' 2>/dev/null; then
	echo "issue7.sh: skipped: $PY with numpy, torch and onnx is needed"
	exit 77
fi
mkdir -p "$builddir/tests/random"
exec "$PY" "$srcdir/tests/random/run.py" --dnncc "$DNNCC" --cc "${CC:-cc}" --fixed-only \
	--forced 0 --jobs "${RANDOM_JOBS:-1}" \
	--work "$builddir/tests/random/work-issue7" --faildir "$builddir/tests/random/failures"
