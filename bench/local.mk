# bench/: benchmark programs, built and run by `make bench` (never by make
# check: benchmarks are programs, not timed tests). bench/gemm compares dnncc's
# SGEMM with OpenBLAS (Debian's libopenblas-dev), single-threaded.
# Built only on demand; later benchmarks append with +=.
EXTRA_PROGRAMS = bench/gemm
bench_gemm_SOURCES = bench/gemm.c
bench_gemm_LDADD = libdnncc_rt.a -lopenblas -lm
CLEANFILES += bench/gemm$(EXEEXT)

# bench/fc: AlexNet's classifier at batch 1, reference Gemm against gemm_fc,
# and the streaming read bandwidth the FC kernel is measured against.
EXTRA_PROGRAMS += bench/fc
bench_fc_SOURCES = bench/fc.c
bench_fc_LDADD = libdnncc_rt.a -lm
CLEANFILES += bench/fc$(EXEEXT)

# Other benchmarks add themselves as prerequisites of `bench`.
.PHONY: bench bench-gemm
bench: bench-gemm bench-fc
# The machines this project runs on set OPENBLAS_CORETYPE and OPENBLAS_L2_SIZE,
# which halve OpenBLAS's speed; the comparison runs without them.
bench-gemm: bench/gemm$(EXEEXT)
	env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE OPENBLAS_NUM_THREADS=1 ./bench/gemm$(EXEEXT) $(BENCH_GEMM_FLAGS)

# bench/pbqp: the PBQP solver's time on GoogLeNet-sized selection instances.
EXTRA_PROGRAMS += bench/pbqp
bench_pbqp_SOURCES = bench/pbqp.c tests/pbqp_gen.h
bench_pbqp_LDADD = $(DNNCC_LIBS)
CLEANFILES += bench/pbqp$(EXEEXT)
.PHONY: bench-pbqp
bench: bench-pbqp
bench-pbqp: bench/pbqp$(EXEEXT)
	./bench/pbqp$(EXEEXT) $(BENCH_PBQP_FLAGS)
# The measurements README.md and bench/README.md quote, for the tarball.
EXTRA_DIST += bench/results/README.md bench/results/primitives.tsv \
	bench/results/primitives.txt bench/results/families_googlenet.tsv \
	bench/results/families_resnet50.tsv bench/results/layers_googlenet.tsv \
	bench/results/layers_resnet50.tsv bench/results/mobilenets/README.md \
	bench/results/mobilenets/primitives.txt bench/results/mobilenets/primitives.tsv \
	bench/results/mobilenets/layers_mobilenetv2.tsv \
	bench/results/mobilenets/layers_mobilenetv1_025.tsv bench/results/train_fashion.md
# bench/calibrate: measures the built-in cost model's rates on this machine and
# prints the values for passes/cost_model.c and the RT_COST of every row
# (bench/README.md). Needs only dnncc's own libraries.
EXTRA_PROGRAMS += bench/calibrate
bench_calibrate_SOURCES = bench/calibrate.c bench/bench_util.h tests/conv_layers.h
bench_calibrate_LDADD = $(DNNCC_LIBS)
CLEANFILES += bench/calibrate$(EXEEXT)

.PHONY: bench-fc
bench-fc: bench/fc$(EXEEXT)
	./bench/fc$(EXEEXT)

# bench-strategies (issue 8): the paper's Figures 5 and 6, every selection
# strategy end to end on seven networks with a measured cost table, predicted
# against measured; bench/strategies.py says how. --quick (the default here)
# takes about 15 minutes on a quiet 2-core Xeon with an empty profile cache;
# BENCH_STRATEGIES_FLAGS= (empty) runs the long version (more samples),
# BENCH_STRATEGIES_FLAGS="--quick --models resnet18 --strategies pbqp,sum2d" a part.
BENCH_RESULTS ?= bench/results
BENCH_STRATEGIES_FLAGS ?= --quick
EXTRA_DIST += bench/strategies.py bench/strategies_main.c bench/plot_strategies.gp \
	bench/check_vectorised.py bench/calibrate_nonconv.py \
	bench/results/strategies.tsv bench/results/strategies_speedup.dat \
	bench/results/strategies.png bench/results/strategies.md bench/results/strategies_layers.tsv
.PHONY: bench-strategies
bench: bench-strategies
bench-strategies: dnncc$(EXEEXT)
	/usr/bin/python3 $(srcdir)/bench/strategies.py --dnncc $(abs_top_builddir)/dnncc$(EXEEXT) \
		--out $(BENCH_RESULTS) $(BENCH_STRATEGIES_FLAGS)
	-cd $(BENCH_RESULTS) && gnuplot $(abs_top_srcdir)/bench/plot_strategies.gp 2>&1 | grep -v "no valid points"
# bench/fusion.sh: arena and end-to-end time with and without the fusions
# (BASE=old-dnncc bench/fusion.sh; results in bench/results/fusion.md).
EXTRA_DIST += bench/fusion.sh bench/time_model.c bench/results/fusion.md
# bench/threads_profile.sh: the best 2-thread speedup each network's split
# allows, from per-chunk CPU time (valid on a loaded machine; run by hand).
EXTRA_DIST += bench/threads_profile.sh bench/threads_profile.c
# bench/nonconv: issue 9's before/after for non-convolution layers, each
# model compiled by BEFORE (another dnncc) and this one with --instrument:
# median ms and the share of non-convolution layers.
#   make bench-nonconv BEFORE=/path/to/old/dnncc MODELS="a.onnx b.onnx"
EXTRA_DIST += bench/nonconv/run.sh bench/nonconv/driver.c bench/nonconv/results.md
# bench/pools: every pooling layer of six torchvision networks in each layout,
# against a read-input-write-output bound (bench/nonconv/pools.c says how).
EXTRA_PROGRAMS += bench/pools
bench_pools_SOURCES = bench/nonconv/pools.c bench/bench_util.h
bench_pools_LDADD = libdnncc_rt.a -lm
CLEANFILES += bench/pools$(EXEEXT)
.PHONY: bench-pools
bench-pools: bench/pools$(EXEEXT)
	./bench/pools$(EXEEXT) $(BENCH_POOLS_FLAGS)
.PHONY: bench-nonconv
bench-nonconv: dnncc$(EXEEXT)
	sh $(srcdir)/bench/nonconv/run.sh '$(BEFORE)' $(abs_top_builddir)/dnncc$(EXEEXT) $(MODELS)
# `make bench-threads`: 1 against 2 threads and the first call against the
# steady state on torchvision networks (bench/threads.sh; MODELS=... R=...).
dist_noinst_SCRIPTS += bench/threads.sh
EXTRA_DIST += bench/threads_run.c bench/results/threads.md
.PHONY: bench-threads
bench-threads: dnncc$(EXEEXT)
	DNNCC=$(abs_top_builddir)/dnncc$(EXEEXT) DNNCC_SRCDIR=$(abs_top_srcdir) \
	DNNCC_BUILDDIR=$(abs_top_builddir) CC='$(CC)' $(SHELL) $(srcdir)/bench/threads.sh
