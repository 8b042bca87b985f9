# runtime/: C99 kernels, built as a library for tests and embedded into dnncc.
# RT_UNITS, the files of units.def's rows (the primitives' and transforms'
# UNIT rows included), comes from runtime/units.mk, which tools/units_mk.sh
# writes from units.def: a new unit is one row there. make rewrites units.mk
# (and automake reruns) when a .def file changes and the list with it; the
# stamp keeps an unchanged list from being rechecked at every make.
include runtime/units.mk
$(srcdir)/runtime/units.mk: runtime/units.stamp
	@:
runtime/units.stamp: $(wildcard $(srcdir)/runtime/*.def) $(srcdir)/tools/units_mk.sh
	$(AM_V_GEN)$(MKDIR_P) runtime && \
	$(SHELL) $(srcdir)/tools/units_mk.sh '$(CC)' '$(srcdir)' >$@-t && \
	if cmp -s $@-t $(srcdir)/runtime/units.mk; then rm -f $@-t; \
	else mv -f $@-t $(srcdir)/runtime/units.mk; fi && touch $@
DISTCLEANFILES = runtime/units.stamp
libdnncc_rt_a_SOURCES += runtime/rt_types.h runtime/rt_simd.h runtime/dnncc_rt.h runtime/units.def $(RT_UNITS)
# dnncc_rt.h declares the units' RT_FN kernels through rt_unit_protos.h, which
# tools/unit_protos.sh reads from their definitions (rewritten only when a
# prototype changes, so editing a kernel's body rebuilds one object).
RT_UNIT_C = $(addprefix $(srcdir)/,$(filter %.c,$(RT_UNITS)))
nodist_libdnncc_rt_a_SOURCES = runtime/rt_unit_protos.h
BUILT_SOURCES += runtime/rt_unit_protos.h
CLEANFILES += runtime/rt_unit_protos.h
runtime/rt_unit_protos.h: $(srcdir)/tools/unit_protos.sh $(srcdir)/runtime/units.mk $(RT_UNIT_C)
	$(AM_V_GEN)$(MKDIR_P) runtime && $(SHELL) $(srcdir)/tools/unit_protos.sh $(RT_UNIT_C) >$@-t && \
	if cmp -s $@-t $@; then rm -f $@-t; else mv -f $@-t $@; fi

# The convolution primitive library (issue 3): tables, compile-time prep
# functions; each family's runtime/fam_*.mk (included by Makefile.am) adds its
# embedded units to RT_UNITS and its prep_*.c to the library.
libdnncc_rt_a_SOURCES += runtime/primitives.h runtime/primitives.def runtime/transforms.def \
	runtime/prep.h runtime/primitives.c runtime/prep_common.c runtime/prep_direct.h \
	runtime/prep_im2.h runtime/prep_kn2.h runtime/prep_winograd.h runtime/prep_fft.h \
	runtime/prep_depthwise.h \
	runtime/fam_sum2d.def runtime/fam_direct.def runtime/fam_im2.def runtime/fam_kn2.def \
	runtime/fam_winograd.def runtime/fam_fft.def runtime/fam_depthwise.def \
	runtime/nonconv.def

# dnncc's blocked SGEMM (sgemm.h): driver, A packing, host detection and one
# micro-kernel per ISA. Generated code gets sgemm.h, the target's kernel and
# sgemm.c through the units that list "sgemm.c" in units.def; sgemm_pack.c and
# sgemm_host.c are for dnncc and the tests only.
RT_SGEMM_SRCS = runtime/sgemm.h runtime/sgemm.c runtime/sgemm_pack.c runtime/gemm_fc_pack.c runtime/sgemm_host.c \
	runtime/sgemm_c.c runtime/sgemm_avx2.c runtime/sgemm_avx512.c runtime/sgemm_neon.c
libdnncc_rt_a_SOURCES += $(RT_SGEMM_SRCS)

# The thread pool behind rt_parallel (rt_types.h); generated code built with
# --threads N > 1 gets a copy.
libdnncc_rt_a_SOURCES += runtime/thread_pool.c
