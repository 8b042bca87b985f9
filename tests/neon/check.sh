#!/bin/sh
# check.sh - dnncc's NEON code compiled for AArch64 and run under qemu-user
# (make check runs the quick form; `make check-neon` the full one).
#
# 1. The runtime's sources are cross-compiled for AArch64 (-O1; the NEON
#    instantiations of the SIMD layer, rt_simd.h, and the NEON SGEMM kernel
#    are built there, as RT_SGEMM_HAVE_NEON says) and tests/test_nonconv.c
#    is linked with them through the Criterion shim in tests/neon/criterion
#    (the cross toolchain has no Criterion): every layout-aware
#    non-convolution kernel against its textbook CHW form with the NEON and
#    the C paths. With --full, tests/test_primitives.c too: every
#    convolution primitive row on 200 random and 64 depthwise shapes with
#    NEON (and the tables and transforms); quick: its first
#    NEON_QUICK_SHAPES (default 12) shapes of each.
# 2. samples/fashion_mnist/fashion_cnn.onnx is compiled with
#    `dnncc --target armv8`, the generated C built with the cross compiler
#    (-std=c99 -O2 -Wall -Wextra -pedantic -Werror) with the sample's demo,
#    and run on the 100 bundled images: it fails when an output differs
#    from PyTorch's by more than the demo's tolerance.
#
# Needs aarch64-linux-gnu-gcc and qemu-aarch64 (Debian packages
# gcc-aarch64-linux-gnu, libc6-dev-arm64-cross (only recommended by the
# first: name it under --no-install-recommends) and qemu-user); exits 77
# (skipped) without them. Environment: DNNCC, DNNCC_SRCDIR, DNNCC_BUILDDIR (make check
# sets them), NEON_CC, NEON_QEMU, NEON_SYSROOT (default /usr/aarch64-linux-gnu).
set -u
full=0
[ "${1-}" = --full ] && full=1
here=$(cd "$(dirname "$0")" && pwd)
srcdir=${DNNCC_SRCDIR:-$(cd "$here/../.." && pwd)}
builddir=${DNNCC_BUILDDIR:-$(pwd)}
DNNCC=${DNNCC:-$builddir/dnncc}
XCC=${NEON_CC:-aarch64-linux-gnu-gcc}
QEMU=${NEON_QEMU:-qemu-aarch64}
SYSROOT=${NEON_SYSROOT:-/usr/aarch64-linux-gnu}
if ! command -v "$XCC" >/dev/null 2>&1 || ! command -v "$QEMU" >/dev/null 2>&1; then
	echo "check.sh: skipped: $XCC and $QEMU are needed (gcc-aarch64-linux-gnu, qemu-user)"
	exit 77
fi
work=$builddir/tests/neon-work
rm -rf "$work"
mkdir -p "$work/obj"
printf '#include <stdio.h>\nint main(void) { return 0; }\n' >"$work/probe.c"
if ! "$XCC" "$work/probe.c" -o "$work/probe" 2>/dev/null ||
	! "$QEMU" -L "$SYSROOT" "$work/probe"; then
	echo "check.sh: skipped: $XCC cannot build and $QEMU run a program (libc6-dev-arm64-cross?)"
	exit 77
fi
fail=0
run() {
	echo "+ $*"
	"$@"
}

# 1. the runtime library (every source but the CBLAS glue), then the tests
for f in "$srcdir"/runtime/*.c; do
	case $f in */sgemm_cblas.c) continue ;; esac
	o=$work/obj/$(basename "$f" .c).o
	"$XCC" -std=c99 -O1 -Wall -Wextra -Wno-unused-parameter -Wno-sign-compare -Werror \
		-I"$srcdir" -I"$builddir" -D_POSIX_C_SOURCE=200809L \
		-include "$srcdir/runtime/dnncc_rt.h" -c "$f" -o "$o" || { echo "FAIL: $f"; fail=1; }
done
[ $fail = 0 ] || exit 1
run "${XCC%gcc}ar" rc "$work/librt.a" "$work"/obj/*.o || exit 1
tests="nonconv primitives"
for t in $tests; do
	run "$XCC" -std=gnu11 -O1 -I"$srcdir/tests/neon" -I"$srcdir" -I"$builddir" \
		-D_POSIX_C_SOURCE=200809L "$srcdir/tests/test_$t.c" "$srcdir/tests/neon/cr_main.c" \
		"$work/librt.a" -lm -o "$work/test_$t" || exit 1
done
run "$QEMU" -L "$SYSROOT" "$work/test_nonconv" || fail=1
if [ $full = 1 ]; then
	run "$QEMU" -L "$SYSROOT" "$work/test_primitives" _neon table transforms winograd || fail=1
else
	CR_SHIM_MAX_PARAMS=${NEON_QUICK_SHAPES:-12} run "$QEMU" -L "$SYSROOT" \
		"$work/test_primitives" random_shapes_neon depthwise_shapes_neon || fail=1
fi

# 2. a generated model, NEON target, against PyTorch's outputs
sample=$srcdir/samples/fashion_mnist
mkdir -p "$work/model"
run "$DNNCC" "$sample/fashion_cnn.onnx" -o "$work/model/fashion_cnn.c" --target armv8 || exit 1
(cd "$work/model" && run "$XCC" -std=c99 -O2 -Wall -Wextra -pedantic -Werror -I. \
	fashion_cnn.c "$sample/demo.c" -o demo -lm) || exit 1
run "$QEMU" -L "$SYSROOT" "$work/model/demo" "$sample" || fail=1
[ $fail = 0 ] && rm -rf "$work"
exit $fail
