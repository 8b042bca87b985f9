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
	bench/results/layers_resnet50.tsv
# bench/calibrate: measures the built-in cost model's rates on this machine and
# prints the values for passes/cost_model.c and the RT_COST of every row
# (bench/README.md). Needs only dnncc's own libraries.
EXTRA_PROGRAMS += bench/calibrate
bench_calibrate_SOURCES = bench/calibrate.c
bench_calibrate_LDADD = $(DNNCC_LIBS)
CLEANFILES += bench/calibrate$(EXEEXT)

.PHONY: bench-fc
bench-fc: bench/fc$(EXEEXT)
	./bench/fc$(EXEEXT)

# `make bench-threads`: 1 against 2 threads and the first call against the
# steady state on torchvision networks (bench/threads.sh; MODELS=... R=...).
dist_noinst_SCRIPTS += bench/threads.sh
EXTRA_DIST += bench/threads_run.c bench/results/threads.md
.PHONY: bench-threads
bench-threads: dnncc$(EXEEXT)
	DNNCC=$(abs_top_builddir)/dnncc$(EXEEXT) DNNCC_SRCDIR=$(abs_top_srcdir) \
	DNNCC_BUILDDIR=$(abs_top_builddir) CC='$(CC)' $(SHELL) $(srcdir)/bench/threads.sh
