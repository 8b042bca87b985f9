# tests/: Criterion unit tests, the ONNX conformance runner, end-to-end models.
# Unit tests link the compiler library and the runtime library.
TEST_CPPFLAGS = $(AM_CPPFLAGS) $(CRITERION_CFLAGS) $(PROTOBUF_C_CFLAGS)
TEST_LDADD = $(DNNCC_LIBS) $(CRITERION_LIBS)

if HAVE_CRITERION
check_PROGRAMS += tests/test_ir
tests_test_ir_SOURCES = tests/test_ir.c tests/diag_capture.h
tests_test_ir_CPPFLAGS = $(TEST_CPPFLAGS)
tests_test_ir_LDADD = $(TEST_LDADD)

check_PROGRAMS += tests/test_passes
tests_test_passes_SOURCES = tests/test_passes.c tests/graph_build.h tests/diag_capture.h \
	tests/pass_run.h
tests_test_passes_CPPFLAGS = $(TEST_CPPFLAGS)
tests_test_passes_LDADD = $(TEST_LDADD)

check_PROGRAMS += tests/test_fuse
tests_test_fuse_SOURCES = tests/test_fuse.c tests/graph_build.h tests/pass_run.h
tests_test_fuse_CPPFLAGS = $(TEST_CPPFLAGS)
tests_test_fuse_LDADD = $(TEST_LDADD)

check_PROGRAMS += tests/test_runtime
tests_test_runtime_SOURCES = tests/test_runtime.c tests/rng.h
tests_test_runtime_CPPFLAGS = $(TEST_CPPFLAGS)
tests_test_runtime_LDADD = libdnncc_rt.a $(CRITERION_LIBS) -lm

check_PROGRAMS += tests/test_typed
tests_test_typed_SOURCES = tests/test_typed.c
tests_test_typed_CPPFLAGS = $(TEST_CPPFLAGS)
tests_test_typed_LDADD = libdnncc_rt.a $(CRITERION_LIBS) -lm

check_PROGRAMS += tests/test_shapes
tests_test_shapes_SOURCES = tests/test_shapes.c
tests_test_shapes_CPPFLAGS = $(TEST_CPPFLAGS)
tests_test_shapes_LDADD = $(TEST_LDADD)

check_PROGRAMS += tests/test_onnx
tests_test_onnx_SOURCES = tests/test_onnx.c
tests_test_onnx_CPPFLAGS = $(TEST_CPPFLAGS)
tests_test_onnx_LDADD = $(TEST_LDADD)
# The test builds models with the generated protobuf-c API.
tests/test_onnx-test_onnx.$(OBJEXT): frontend/onnx.pb-c.h

# The emitter's tests compile and run generated C with the system's cc.
check_PROGRAMS += tests/test_emit
tests_test_emit_SOURCES = tests/test_emit.c
tests_test_emit_CPPFLAGS = $(TEST_CPPFLAGS)
tests_test_emit_LDADD = $(TEST_LDADD)
endif
TESTS += $(check_PROGRAMS)

# The primitive library: every table row against sum2d, every transform.
if HAVE_CRITERION
check_PROGRAMS += tests/test_primitives
tests_test_primitives_SOURCES = tests/test_primitives.c tests/conv_layers.h tests/layout_ref.h
tests_test_primitives_CPPFLAGS = $(TEST_CPPFLAGS)
tests_test_primitives_LDADD = libdnncc_rt.a $(CRITERION_LIBS) -lm
# The fused 1x1 + depthwise kernel against the unfused pair and the textbook, per ISA.
check_PROGRAMS += tests/test_pw_dw
tests_test_pw_dw_SOURCES = tests/test_pw_dw.c
tests_test_pw_dw_CPPFLAGS = $(TEST_CPPFLAGS)
tests_test_pw_dw_LDADD = libdnncc_rt.a $(CRITERION_LIBS) -lm
# The layout-aware non-convolution kernels against the CHW ones, per ISA.
check_PROGRAMS += tests/test_nonconv
tests_test_nonconv_SOURCES = tests/test_nonconv.c
tests_test_nonconv_CPPFLAGS = $(TEST_CPPFLAGS)
tests_test_nonconv_LDADD = libdnncc_rt.a $(CRITERION_LIBS) -lm
endif

# The ONNX node conformance runner (tests/conformance.c) and the torchvision
# end-to-end test (tests/e2e/). No Criterion: they are plain programs that
# run dnncc and the system's C compiler; their settings come from configure.
check_PROGRAMS += tests/conformance
tests_conformance_SOURCES = tests/conformance.c
# Defaults for running it by hand; make check passes the same in the environment.
tests_conformance_CPPFLAGS = $(AM_CPPFLAGS) $(PROTOBUF_C_CFLAGS) \
	-DCONFORMANCE_SRCDIR='"$(abs_top_srcdir)"' \
	-DCONFORMANCE_DNNCC='"$(abs_top_builddir)/dnncc$(EXEEXT)"' \
	-DCONFORMANCE_TESTDATA='"$(ONNX_TESTDATA)"'
tests_conformance_LDADD = $(DNNCC_LIBS)
tests/conformance-conformance.$(OBJEXT): frontend/onnx.pb-c.h
EXTRA_DIST += tests/harness.c tests/conformance_refused.txt tests/onnx_export_util.py \
	tests/testlib.sh
dist_noinst_SCRIPTS += tests/e2e/run.sh tests/e2e/export_models.py tests/e2e/compare.py
TESTS += tests/e2e/run.sh
AM_TESTS_ENVIRONMENT += ONNX_TESTDATA='$(ONNX_TESTDATA)'; DNNCC='$(abs_top_builddir)/dnncc$(EXEEXT)'; \
	DNNCC_SRCDIR='$(abs_top_srcdir)'; DNNCC_BUILDDIR='$(abs_top_builddir)'; CC='$(CC)'; \
	export ONNX_TESTDATA DNNCC DNNCC_SRCDIR DNNCC_BUILDDIR CC;
# The exported models are a cache kept between runs of make check (about 1 GB).
clean-local: clean-e2e-cache
clean-e2e-cache:
	-rm -rf tests/e2e-cache
.PHONY: clean-e2e-cache

# Conv, ConvTranspose and pooling over three spatial dims (rt_window3d).
if HAVE_CRITERION
check_PROGRAMS += tests/test_window3d
tests_test_window3d_SOURCES = tests/test_window3d.c
tests_test_window3d_CPPFLAGS = $(TEST_CPPFLAGS)
tests_test_window3d_LDADD = libdnncc_rt.a $(CRITERION_LIBS) -lm
endif

# The fully-connected kernel (gemm_fc.c) against a double Gemm, for every ISA this CPU runs.
if HAVE_CRITERION
check_PROGRAMS += tests/test_gemm_fc
tests_test_gemm_fc_SOURCES = tests/test_gemm_fc.c
tests_test_gemm_fc_CPPFLAGS = $(TEST_CPPFLAGS)
tests_test_gemm_fc_LDADD = libdnncc_rt.a $(CRITERION_LIBS) -lm
endif

# dnncc's blocked SGEMM against a double reference, for every kernel this CPU runs.
if HAVE_CRITERION
check_PROGRAMS += tests/test_sgemm
tests_test_sgemm_SOURCES = tests/test_sgemm.c tests/rng.h
tests_test_sgemm_CPPFLAGS = $(TEST_CPPFLAGS)
tests_test_sgemm_LDADD = libdnncc_rt.a $(CRITERION_LIBS) -lm
endif

# Caffe frontend (issue 4): the text-format parser and the frontend's unit
# tests; the second writes .caffemodel files with the generated protobuf-c API.
if HAVE_CRITERION
check_PROGRAMS += tests/test_prototxt tests/test_caffe
tests_test_prototxt_SOURCES = tests/test_prototxt.c
tests_test_prototxt_CPPFLAGS = $(TEST_CPPFLAGS)
tests_test_prototxt_LDADD = $(TEST_LDADD)
tests_test_caffe_SOURCES = tests/test_caffe.c
tests_test_caffe_CPPFLAGS = $(TEST_CPPFLAGS)
tests_test_caffe_LDADD = $(TEST_LDADD)
tests/test_caffe-test_caffe.$(OBJEXT): frontend/caffe.pb-c.h
endif

# Caffe end to end: the BVLC definitions from ../shared (skipped where absent),
# samples/caffe/vgg16.prototxt (V1), and the Caffe/ONNX equivalence models of
# tests/caffe/equiv.py, compiled, built and run (tests/caffe/run.sh says how).
TESTS += tests/caffe/run.sh
dist_noinst_SCRIPTS += tests/caffe/run.sh tests/caffe/equiv.py samples/caffe/nets.py
EXTRA_DIST += tests/caffe/driver.c samples/caffe/alexnet.prototxt \
	samples/caffe/googlenet.prototxt samples/caffe/vgg16.prototxt samples/caffe/README.md
clean-local: clean-caffe-tests
clean-caffe-tests:
	rm -rf tests/caffe/out
.PHONY: clean-caffe-tests

# --blas openblas end to end (skipped without OpenBLAS).
TESTS += tests/blas_openblas.sh
dist_noinst_SCRIPTS += tests/blas_openblas.sh

# The PBQP solver against brute force and GLPK (tests/pbqp_gen.h: instances).
if HAVE_CRITERION
check_PROGRAMS += tests/test_pbqp
tests_test_pbqp_SOURCES = tests/test_pbqp.c tests/pbqp_gen.h
tests_test_pbqp_CPPFLAGS = $(TEST_CPPFLAGS)
tests_test_pbqp_LDADD = $(TEST_LDADD)
endif

# Selection: the DT graph, candidates, the strategies and legalisation.
if HAVE_CRITERION
check_PROGRAMS += tests/test_select
tests_test_select_SOURCES = tests/test_select.c tests/graph_build.h
tests_test_select_CPPFLAGS = $(TEST_CPPFLAGS)
tests_test_select_LDADD = $(TEST_LDADD)
endif
# Measured costs (issue 8): the cost table reader, and dnncc profile end to
# end (profile, cache, --costs picking from the table, --emit-harness).
if HAVE_CRITERION
check_PROGRAMS += tests/test_costs
tests_test_costs_SOURCES = tests/test_costs.c
tests_test_costs_CPPFLAGS = $(TEST_CPPFLAGS)
tests_test_costs_LDADD = $(TEST_LDADD)
endif
TESTS += tests/profile.sh
dist_noinst_SCRIPTS += tests/profile.sh

# --instrument end to end: the per-layer profile of the Fashion-MNIST sample.
TESTS += tests/instrument.sh
dist_noinst_SCRIPTS += tests/instrument.sh

# --bind: refusal without it, bindings from .pb files and lists, bad bindings.
TESTS += tests/bind.sh
dist_noinst_SCRIPTS += tests/bind.sh
# Random graphs (issue 7): tests/random/gen.py makes small random ONNX DAGs
# with float64 references, run.py builds each under every strategy and random
# --force-primitive picks and compares. issue7.sh runs the fixed issue-7
# graphs, check.sh a fixed-seed random set; `make check-random SEED=S N=N`
# runs N more graphs (SEED defaults to the time, printed; JOBS=2 compiles two
# files at a time). Failures are saved in tests/random/failures/.
TESTS += tests/random/issue7.sh tests/random/check.sh
dist_noinst_SCRIPTS += tests/random/issue7.sh tests/random/check.sh tests/random/run.py \
	tests/random/gen.py
check-random: all
	@seed='$(SEED)'; [ -n "$$seed" ] || seed=$$(date +%s); n='$(N)'; [ -n "$$n" ] || n=100; \
	j='$(JOBS)'; [ -n "$$j" ] || j=1; \
	echo "check-random: SEED=$$seed N=$$n"; \
	/usr/bin/python3 $(srcdir)/tests/random/run.py --dnncc $(abs_top_builddir)/dnncc$(EXEEXT) \
		--cc '$(CC)' --seed $$seed --count $$n --jobs $$j \
		--work tests/random/work-random --faildir tests/random/failures
clean-local: clean-random-tests
clean-random-tests:
	-rm -rf tests/random/work tests/random/work-issue7 tests/random/work-random \
		tests/random/failures
.PHONY: check-random clean-random-tests
# Degenerate and oversized models, and (with --enable-sanitizers) dnncc runs
# under LeakSanitizer: tests/robust/run.sh says which.
TESTS += tests/robust/run.sh
dist_noinst_SCRIPTS += tests/robust/run.sh tests/robust/models.py
EXTRA_DIST += tests/robust/passthrough.onnx tests/robust/big_input.onnx \
	tests/robust/huge_weight.onnx tests/robust/weights_1mib.onnx tests/robust/two_live.onnx \
	tests/robust/input_only.prototxt
dist_noinst_SCRIPTS += tests/sanitized.sh
if SANITIZERS
AM_TESTS_ENVIRONMENT += DNNCC_SANITIZERS=yes; export DNNCC_SANITIZERS;
# Every test runs through tests/sanitized.sh, which fails it on any report.
LOG_COMPILER = $(SHELL) $(srcdir)/tests/sanitized.sh
endif
clean-local: clean-robust-tests
clean-robust-tests:
	rm -rf tests/robust/out
.PHONY: clean-robust-tests
# Generated code for every --target this CPU runs (c99, x86-64-v3/v4, armv8 and
# host), built with gcc and clang under strict C99 and checked against PyTorch.
dist_noinst_SCRIPTS += tests/targets.sh
TESTS += tests/targets.sh
clean-local: clean-targets
clean-targets:
	-rm -rf tests/targets-out
.PHONY: clean-targets

# The built-in cost model over the rows' RT_COST descriptions.
if HAVE_CRITERION
check_PROGRAMS += tests/test_cost_model
tests_test_cost_model_SOURCES = tests/test_cost_model.c
tests_test_cost_model_CPPFLAGS = $(TEST_CPPFLAGS)
tests_test_cost_model_LDADD = $(TEST_LDADD)
endif
# Issue 11's seven model families (DS-CNN, MobileNetV1-0.25, ResNet-8, the FC
# autoencoder, U-Net, a YOLO-style head, a transformer encoder) exported by
# tests/families/export.py, compiled under every strategy, one build run and
# compared with PyTorch, and Cortex-M sizes; `make check-families` builds,
# runs and compares every strategy's host code instead (several minutes).
# resize_pinned.py: ONNX's Resize/Upsample node tests with their run-time
# scales/sizes pinned as initializers (nearest, linear, cubic).
TESTS += tests/families/run.sh tests/resize_pinned.py
dist_noinst_SCRIPTS += tests/families/run.sh tests/families/export.py tests/resize_pinned.py
check-families: all
	DNNCC='$(abs_top_builddir)/dnncc$(EXEEXT)' DNNCC_SRCDIR='$(abs_top_srcdir)' \
	DNNCC_BUILDDIR='$(abs_top_builddir)' CC='$(CC)' FAMILIES_FULL=1 \
	$(SHELL) $(srcdir)/tests/families/run.sh
clean-local: clean-families-cache
clean-families-cache:
	-rm -rf tests/families-cache
.PHONY: check-families clean-families-cache

# --verify-ilp on AlexNet, VGG-16, GoogLeNet, ResNet-50 and MobileNetV2 with
# the built-in model and with a measured table (issue 8).
TESTS += tests/select/verify_ilp.sh
dist_noinst_SCRIPTS += tests/select/verify_ilp.sh
EXTRA_DIST += tests/select/costs_xeon.tsv
# no network time in a scalar conv row where a vectorised one applies (issue 8)
TESTS += tests/select/vectorised.sh
dist_noinst_SCRIPTS += tests/select/vectorised.sh
# --threads N (issue 9): generated code at 1..5 threads gives the same bits,
# over the sample, random graphs, FC nets and every convolution family.
TESTS += tests/threads/check.sh
dist_noinst_SCRIPTS += tests/threads/check.sh tests/threads/check.py
EXTRA_DIST += tests/threads/driver.c
clean-local: clean-threads-tests
clean-threads-tests:
	-rm -rf tests/threads-work
.PHONY: clean-threads-tests

# Byte-identical generated code for behaviour-preserving refactors: every case
# of tests/emit_golden_cases.py compiled by this dnncc and by DNNCC_REF (an
# older build), outputs diffed (tests/emit_golden.sh; ~3 min, not in make check).
# `make check-emit-identical DNNCC_REF=/path/to/old/dnncc [FILTER=regex] [JOBS=2]`
dist_noinst_SCRIPTS += tests/emit_golden.sh tests/emit_golden_cases.py
check-emit-identical: all
	DNNCC='$(abs_top_builddir)/dnncc$(EXEEXT)' DNNCC_REF='$(DNNCC_REF)' \
	DNNCC_SRCDIR='$(abs_top_srcdir)' DNNCC_BUILDDIR='$(abs_top_builddir)' \
	GOLDEN_FILTER='$(FILTER)' GOLDEN_JOBS='$(JOBS)' \
	$(SHELL) $(srcdir)/tests/emit_golden.sh
.PHONY: check-emit-identical
# NEON (issue 9): the runtime cross-compiled for AArch64, test_nonconv and
# (part of) test_primitives through a Criterion shim, and a --target armv8
# model, all run under qemu-aarch64 (tests/neon/check.sh; skipped without
# gcc-aarch64-linux-gnu and qemu-user). `make check-neon` runs every NEON
# primitive shape.
TESTS += tests/neon/check.sh
dist_noinst_SCRIPTS += tests/neon/check.sh
EXTRA_DIST += tests/neon/cr_main.c tests/neon/criterion/criterion.h \
	tests/neon/criterion/parameterized.h
check-neon: all
	DNNCC='$(abs_top_builddir)/dnncc$(EXEEXT)' DNNCC_SRCDIR='$(abs_top_srcdir)' \
	DNNCC_BUILDDIR='$(abs_top_builddir)' $(SHELL) $(srcdir)/tests/neon/check.sh --full
clean-local: clean-neon-work
clean-neon-work:
	-rm -rf tests/neon-work
.PHONY: check-neon clean-neon-work

# Memory-aware selection (issue 8): --target cortex-m without blocked layouts,
# --max-arena met by dropping them or by the canonical strategy, or refused.
TESTS += tests/cortexm_memory.sh
dist_noinst_SCRIPTS += tests/cortexm_memory.sh
# The first call after NAME_init meets no fresh pages (issue 9): minor page
# faults counted with getrusage, tests/first_call/check.sh says what it checks.
TESTS += tests/first_call/check.sh
dist_noinst_SCRIPTS += tests/first_call/check.sh
EXTRA_DIST += tests/first_call/driver.c
clean-local: clean-first-call-tests
clean-first-call-tests:
	-rm -rf tests/first_call/out
.PHONY: clean-first-call-tests
# The arena and the weights of generated code start on a 64-byte boundary
# (issue 9), in every weights mode and in the typed arena.
TESTS += tests/align/check.sh
dist_noinst_SCRIPTS += tests/align/check.sh
clean-local: clean-align-tests
clean-align-tests:
	-rm -rf tests/align/out
.PHONY: clean-align-tests
# Models a C compiler's optimiser once got wrong (tests/regress/check.sh says
# which and why), against stored outputs, at -O2 and -O3 under gcc and clang.
TESTS += tests/regress/check.sh
dist_noinst_SCRIPTS += tests/regress/check.sh
EXTRA_DIST += tests/regress/se_gate_gcc12.onnx tests/regress/se_gate_gcc12.in.bin \
	tests/regress/se_gate_gcc12.out0.bin tests/regress/se_gate_gcc12.out1.bin \
	tests/regress/se_gate_gcc12.out2.bin tests/regress/se_gate_gcc12.out3.bin \
	tests/regress/se_gate_gcc12.out4.bin
clean-local: clean-regress-tests
clean-regress-tests:
	-rm -rf tests/regress/out
.PHONY: clean-regress-tests
