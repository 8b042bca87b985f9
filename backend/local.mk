# backend/: the C emitter, with the runtime's sources embedded as text.
libdnncc_a_SOURCES += backend/backend.h backend/emit_internal.h backend/emit.c backend/emit_plan.c \
	backend/emit_runtime.c backend/emit_print.c backend/emit_typed.c
nodist_libdnncc_a_SOURCES += backend/runtime_text.c
BUILT_SOURCES += backend/runtime_text.c
CLEANFILES += backend/runtime_text.c

# The GEMM is copied whole when a unit needs it (units.def deps "sgemm.c").
RT_EMBEDDED = runtime/rt_types.h runtime/sgemm.h runtime/rt_simd.h runtime/sgemm.c runtime/sgemm_c.c \
	runtime/sgemm_avx2.c runtime/sgemm_avx512.c runtime/sgemm_neon.c runtime/sgemm_cblas.c \
	runtime/thread_pool.c $(RT_UNITS)
backend/runtime_text.c: tools/embed$(EXEEXT) $(addprefix $(srcdir)/,$(RT_EMBEDDED))
	$(AM_V_GEN)$(MKDIR_P) backend && \
	tools/embed$(EXEEXT) $@ rt_sources $(srcdir) $(RT_EMBEDDED)
# Embedded only, never compiled here (it needs cblas.h), so no _SOURCES list
# names it: the tarball needs it all the same.
EXTRA_DIST += runtime/sgemm_cblas.c
