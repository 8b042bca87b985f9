# bench/primitives.mk - the primitive benchmark (make bench): every row of the
# primitive table on every conv layer of AlexNet, VGG-16, GoogLeNet and
# ResNet-50, next to oneDNN (Debian's libdnnl-dev) and OpenBLAS-im2col
# (libopenblas-dev), single-threaded. See bench/README.md.
# Built only on demand, like bench/gemm.
EXTRA_PROGRAMS += bench/primitives
bench_primitives_SOURCES = bench/primitives.c tests/conv_layers.h bench/bench_util.h \
	tests/layout_ref.h
# -lgomp: oneDNN's OpenMP runtime, to pin it to one thread (omp_set_num_threads).
bench_primitives_LDADD = libdnncc_rt.a -ldnnl -lopenblas -lgomp -lm
# The header of the results names the flags the runtime library was built with.
bench_primitives_CPPFLAGS = $(AM_CPPFLAGS) -DBENCH_CFLAGS='"$(CFLAGS)"'
CLEANFILES += bench/primitives$(EXEEXT)
EXTRA_DIST += bench/plot_primitives.gp bench/README.md

# Where the tables, the TSVs and the plots go; BENCH_PRIMITIVES_FLAGS adds
# options (--quick, --net NAME, --layer SUBSTR, --prim SUBSTR, --runs N).
# The committed results were made with BENCH_RESULTS=$(srcdir)/bench/results.
BENCH_RESULTS = bench/results
BENCH_PRIMITIVES_FLAGS =

.PHONY: bench-primitives
bench: bench-primitives
# One thread everywhere (oneDNN runs on OpenMP, OpenBLAS on its own threads);
# OPENBLAS_CORETYPE and OPENBLAS_L2_SIZE, set on this project's machines,
# halve OpenBLAS's speed, so they are cleared.
# The program exits 1 when a row gave a wrong result (it is then excluded);
# the plots are drawn either way and the target fails afterwards.
bench-primitives: bench/primitives$(EXEEXT)
	@mkdir -p $(BENCH_RESULTS)
	env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1 \
	  ./bench/primitives$(EXEEXT) -o $(BENCH_RESULTS) $(BENCH_PRIMITIVES_FLAGS); \
	st=$$?; \
	if command -v gnuplot >/dev/null 2>&1; then \
	  gnuplot -e "dir='$(BENCH_RESULTS)'" $(srcdir)/bench/plot_primitives.gp && \
	  echo "plots: $(BENCH_RESULTS)/primitives_winners.png, $(BENCH_RESULTS)/primitives_gflops.png"; \
	else echo "gnuplot not found: no plots (Debian: gnuplot-nox)"; fi; \
	exit $$st
