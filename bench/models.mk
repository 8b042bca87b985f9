# bench/models.mk - `make bench-models` (issue 9): whole networks through
# dnncc's generated code, onnxruntime, OpenVINO and PyTorch at 1 and 2 threads,
# with the machine's measured peak and bandwidth. See bench/README.md.
# bench/peak (the FMA-loop peak, read bandwidth on one core and two) needs libc
# and POSIX threads.
EXTRA_PROGRAMS += bench/peak
bench_peak_SOURCES = bench/models/peak.c
bench_peak_LDADD = -lpthread
CLEANFILES += bench/peak$(EXEEXT)
EXTRA_DIST += bench/models/bench_models.py bench/models/nets.py bench/models/timing.py \
	bench/models/torch_side.py bench/models/runtime_side.py bench/models/time_main.c \
	bench/models/plot.gp bench/results/models.tsv bench/results/models.md \
	bench/results/models_plot.dat bench/results/models.png \
	bench/results/models_cpu.png bench/results/models_cpu_plot.dat

# BENCH_MODELS_FLAGS adds options, e.g. "--model resnet18 --engine dnncc
# --threads 1" (bench/models/bench_models.py --help). Results go to
# $(srcdir)/bench/results (rows measured replace their own only); exports and
# builds to bench/models-out. OPENBLAS_CORETYPE and OPENBLAS_L2_SIZE, which
# this project's machines set and which halve OpenBLAS's speed (PyTorch and
# numpy run on it), are removed for the whole run.
BENCH_MODELS_FLAGS =
.PHONY: bench-models
bench-models: dnncc$(EXEEXT) bench/peak$(EXEEXT)
	env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE /usr/bin/python3 \
	$(srcdir)/bench/models/bench_models.py --dnncc ./dnncc$(EXEEXT) \
	--peak ./bench/peak$(EXEEXT) --out $(srcdir)/bench/results --work bench/models-out \
	$(BENCH_MODELS_FLAGS)
clean-local: clean-bench-models
clean-bench-models:
	rm -rf bench/models-out
.PHONY: clean-bench-models

# make check: the tooling end to end on the smallest network (dnncc and
# PyTorch, a few seconds of CPU).
dist_noinst_SCRIPTS += bench/models/check.sh
TESTS += bench/models/check.sh
clean-local: clean-bench-models-check
clean-bench-models-check:
	rm -rf bench/models-check
.PHONY: clean-bench-models-check
