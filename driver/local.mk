bin_PROGRAMS += dnncc
dnncc_SOURCES = driver/main.c driver/driver.h driver/profile.c
dnncc_LDADD = $(DNNCC_LIBS)

# dnncc profile's harness: the fixed driver part, embedded as text like the
# runtime (tools/embed), copied after the generated case table.
nodist_dnncc_SOURCES = driver/harness_text.c
BUILT_SOURCES += driver/harness_text.c
CLEANFILES += driver/harness_text.c
EXTRA_DIST += driver/harness_main.c
driver/harness_text.c: tools/embed$(EXEEXT) $(srcdir)/driver/harness_main.c
	$(AM_V_GEN)$(MKDIR_P) driver && \
	tools/embed$(EXEEXT) $@ harness_sources $(srcdir) driver/harness_main.c
