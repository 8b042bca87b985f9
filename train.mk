# train.mk - `dnncc --train` (issue 10): training code for fully-connected
# networks. The pass, the emitters and the driver go into dnncc; the training
# kernels into the runtime library (for the tests) and, as text, into dnncc.
libdnncc_a_SOURCES += passes/train.h passes/train_check.c passes/autodiff.c backend/emit_train.h backend/emit_train.c \
	backend/emit_train_cuda.c
dnncc_SOURCES += driver/train.c driver/train.h
libdnncc_rt_a_SOURCES += runtime/train_rt.h runtime/train_pool.h runtime/train_ops.c runtime/train_pool.c
RT_EMBEDDED += runtime/train_ops.c runtime/train_pool.c runtime/train_pool.h

# Gradient checks of every backward rule, the optimizers, the autodiff pass.
if HAVE_CRITERION
check_PROGRAMS += tests/test_train
tests_test_train_SOURCES = tests/test_train.c
tests_test_train_CPPFLAGS = $(TEST_CPPFLAGS)
tests_test_train_LDADD = $(TEST_LDADD)
endif

# A training step of generated code against PyTorch's (every optimizer, both
# losses), generated code built with -Werror under gcc and clang.
EXTRA_DIST += tests/train/step_ref.py tests/train/step_main.c
dist_noinst_SCRIPTS += tests/train/step_check.sh
TESTS += tests/train/step_check.sh
clean-local: clean-train
clean-train:
	rm -rf tests/train/step-out-* tests/train/cuda-out
.PHONY: clean-train

# The Fashion-MNIST trainer end to end (samples/fashion_train/): a short
# training run with a stated accuracy, its ONNX output against dnncc's
# inference code and PyTorch. `make fashion-train` is the full run of the
# README (12 epochs on all 60,000 images).
EXTRA_DIST += samples/fashion_train/mlp_init.onnx samples/fashion_train/make_model.py \
	samples/fashion_train/trainer.c samples/fashion_train/infer_main.c \
	samples/fashion_train/verify_onnx.py
dist_noinst_SCRIPTS += samples/fashion_train/check_train.sh
TESTS += samples/fashion_train/check_train.sh
TRAIN_ENV = abs_top_builddir='$(abs_top_builddir)' PROTOBUF_C_CFLAGS='$(PROTOBUF_C_CFLAGS)' \
	PROTOBUF_C_LIBS='$(PROTOBUF_C_LIBS)' NVCC='$(NVCC)'
AM_TESTS_ENVIRONMENT += $(TRAIN_ENV); export abs_top_builddir PROTOBUF_C_CFLAGS PROTOBUF_C_LIBS NVCC;
clean-train-sample:
	rm -rf samples/fashion_train/check-out samples-out/fashion_train
clean-local: clean-train-sample
.PHONY: clean-train-sample
.PHONY: fashion-train
fashion-train: dnncc$(EXEEXT)
	$(SAMPLE_ENV) $(TRAIN_ENV) EPOCHS=12 LIMIT=0 BATCH=64 OPTIMIZER=adam LR=0.001 LR_DECAY=0.8 \
	MIN_ACC=0.89 \
	$(SHELL) $(srcdir)/samples/fashion_train/check_train.sh samples-out/fashion_train

# Generated CUDA code compiled by nvcc and linked (when configure found nvcc).
dist_noinst_SCRIPTS += tests/train/cuda_compile.sh
TESTS += tests/train/cuda_compile.sh
# What a GPU machine runs (not make check: no GPU here).
EXTRA_DIST += tests/gpu/pool_check.c
dist_noinst_SCRIPTS += tests/gpu/run.sh

# `make bench-train`: full Fashion-MNIST training, dnncc beside PyTorch.
EXTRA_DIST += bench/train_torch.py
dist_noinst_SCRIPTS += bench/train.sh
.PHONY: bench-train
bench-train: dnncc$(EXEEXT)
	$(SAMPLE_ENV) $(TRAIN_ENV) $(SHELL) $(srcdir)/bench/train.sh \
	$(srcdir)/bench/results/train_fashion.md
# The sweep of issue 10: epoch time against batch size (16..1024) for three
# architectures, dnncc's C beside PyTorch at 1 and 2 threads, 50 batches a
# point (bench/train_sweep.py; BENCH_TRAIN_SWEEP_FLAGS adds options).
EXTRA_DIST += bench/train_sweep.py bench/train_sweep.gp bench/results/train_sweep.md \
	bench/results/train_sweep.tsv bench/results/train_sweep.png \
	bench/results/train_sweep_plot.dat
BENCH_TRAIN_SWEEP_FLAGS =
.PHONY: bench-train-sweep
bench-train: bench-train-sweep
bench-train-sweep: dnncc$(EXEEXT)
	env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE $(TRAIN_ENV) /usr/bin/python3 \
	$(srcdir)/bench/train_sweep.py --dnncc ./dnncc$(EXEEXT) --srcdir $(srcdir) \
	--builddir . --out $(srcdir)/bench/results $(BENCH_TRAIN_SWEEP_FLAGS)
clean-local: clean-train-sweep
clean-train-sweep:
	rm -rf bench/train-sweep-out
.PHONY: clean-train-sweep
