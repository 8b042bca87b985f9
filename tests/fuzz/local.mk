# tests/fuzz/: libFuzzer harnesses for the frontends (tests/fuzz/fuzz.h).
#
# make check replays the committed seed corpus (corpus/NAME/) and every saved
# crash reproducer (regress/NAME/) through each harness with the normal build:
# the replay_NAME programs link the harness with replay.c instead of libFuzzer
# (tests/local.mk's TESTS += $(check_PROGRAMS) makes them tests).
#
# make fuzz [FUZZ_S=60] builds each harness with FUZZ_CC and libFuzzer, ASan
# and UBSan, and fuzzes it for FUZZ_S seconds from the seeds; new inputs are
# kept in tests/fuzz/work/NAME/ between runs, a crash is written to
# tests/fuzz/crashes/NAME/ and fails the target. Copy a crash file into
# regress/NAME/ (after fixing it) to keep it as a regression test.
FUZZ_HARNESSES = onnx prototxt caffemodel
FUZZ_S = 60
FUZZ_COMMON = tests/fuzz/fuzz.h tests/fuzz/fuzz_common.c tests/fuzz/replay.c
EXTRA_DIST += tests/fuzz/make_seeds.py tests/fuzz/onnx.dict tests/fuzz/prototxt.dict tests/fuzz/corpus \
	tests/fuzz/regress

check_PROGRAMS += tests/fuzz/replay_onnx tests/fuzz/replay_prototxt tests/fuzz/replay_caffemodel
tests_fuzz_replay_onnx_SOURCES = $(FUZZ_COMMON) tests/fuzz/fuzz_onnx.c
tests_fuzz_replay_onnx_CPPFLAGS = $(AM_CPPFLAGS) $(PROTOBUF_C_CFLAGS) \
	-DFUZZ_CORPUS='"$(abs_top_srcdir)/tests/fuzz/corpus/onnx"' \
	-DFUZZ_REGRESS='"$(abs_top_srcdir)/tests/fuzz/regress/onnx"'
tests_fuzz_replay_onnx_LDADD = $(DNNCC_LIBS)
tests_fuzz_replay_prototxt_SOURCES = $(FUZZ_COMMON) tests/fuzz/fuzz_prototxt.c
tests_fuzz_replay_prototxt_CPPFLAGS = $(AM_CPPFLAGS) $(PROTOBUF_C_CFLAGS) \
	-DFUZZ_CORPUS='"$(abs_top_srcdir)/tests/fuzz/corpus/prototxt"' \
	-DFUZZ_REGRESS='"$(abs_top_srcdir)/tests/fuzz/regress/prototxt"'
tests_fuzz_replay_prototxt_LDADD = $(DNNCC_LIBS)
tests_fuzz_replay_caffemodel_SOURCES = $(FUZZ_COMMON) tests/fuzz/fuzz_caffemodel.c
tests_fuzz_replay_caffemodel_CPPFLAGS = $(AM_CPPFLAGS) $(PROTOBUF_C_CFLAGS) \
	-DFUZZ_CORPUS='"$(abs_top_srcdir)/tests/fuzz/corpus/caffemodel"' \
	-DFUZZ_REGRESS='"$(abs_top_srcdir)/tests/fuzz/regress/caffemodel"'
tests_fuzz_replay_caffemodel_LDADD = $(DNNCC_LIBS)

if HAVE_LIBFUZZER
# The compiler library's sources are compiled again, instrumented, by explicit
# rules (automake has no per-target compiler); the runtime library is linked
# as built. UBSan findings abort, so they fail like crashes.
FUZZ_FLAGS = -g -O1 -fno-omit-frame-pointer -fsanitize=fuzzer-no-link,address,undefined \
	-fno-sanitize-recover=all
FUZZ_LIB_OBJS = $(patsubst %.c,tests/fuzz/obj/%.o, \
	$(filter %.c,$(libdnncc_a_SOURCES) $(nodist_libdnncc_a_SOURCES)) tests/fuzz/fuzz_common.c)
FUZZ_BINS = $(FUZZ_HARNESSES:%=tests/fuzz/bin/fuzz_%)

tests/fuzz/obj/%.o: %.c $(BUILT_SOURCES)
	@$(MKDIR_P) $(@D)
	$(AM_V_CC)$(FUZZ_CC) $(AX_CFLAGS) $(FUZZ_FLAGS) $(AM_CPPFLAGS) $(PROTOBUF_C_CFLAGS) \
		-MMD -MP -c -o $@ $<
# Kept after linking (make would delete them as intermediate files).
.SECONDARY: $(FUZZ_LIB_OBJS) $(FUZZ_HARNESSES:%=tests/fuzz/obj/tests/fuzz/fuzz_%.o)
-include $(FUZZ_LIB_OBJS:.o=.d) $(FUZZ_HARNESSES:%=tests/fuzz/obj/tests/fuzz/fuzz_%.d)

tests/fuzz/bin/fuzz_%: tests/fuzz/obj/tests/fuzz/fuzz_%.o $(FUZZ_LIB_OBJS) libdnncc_rt.a
	@$(MKDIR_P) $(@D)
	$(AM_V_CCLD)$(FUZZ_CC) -fsanitize=fuzzer,address,undefined -o $@ $< $(FUZZ_LIB_OBJS) \
		libdnncc_rt.a $(PROTOBUF_C_LIBS) $(GLPK_LIBS) -lm

# Each harness: fuzz for FUZZ_S seconds, print the executions, fail on a
# crash (libFuzzer exits non-zero and leaves the input under crashes/).
fuzz: $(FUZZ_BINS)
	@fail=0; for h in $(FUZZ_HARNESSES); do \
		$(MKDIR_P) tests/fuzz/work/$$h tests/fuzz/crashes/$$h; \
		dict=; test -f $(srcdir)/tests/fuzz/$$h.dict && dict=-dict=$(srcdir)/tests/fuzz/$$h.dict; \
		echo "fuzz: $$h for $(FUZZ_S) s (log: tests/fuzz/$$h.log)"; \
		if tests/fuzz/bin/fuzz_$$h -max_total_time=$(FUZZ_S) -timeout=30 \
			-print_final_stats=1 $$dict -artifact_prefix=tests/fuzz/crashes/$$h/ \
			tests/fuzz/work/$$h $(srcdir)/tests/fuzz/corpus/$$h \
			$(srcdir)/tests/fuzz/regress/$$h >tests/fuzz/$$h.log 2>&1; then \
			echo "fuzz: $$h: $$(sed -n 's/^stat::number_of_executed_units: *//p' \
				tests/fuzz/$$h.log) executions, no crash"; \
		else \
			fail=1; tail -n 40 tests/fuzz/$$h.log; \
			echo "fuzz: $$h: FAILED; the input is in tests/fuzz/crashes/$$h/"; \
		fi; \
	done; exit $$fail
else
fuzz:
	@echo "make fuzz: FUZZ_CC='$(FUZZ_CC)' cannot link -fsanitize=fuzzer; install clang" \
		"and libFuzzer (Debian: clang libclang-rt-14-dev) and rerun configure" >&2; exit 1
endif
.PHONY: fuzz

clean-local: clean-fuzz
clean-fuzz:
	-rm -rf tests/fuzz/obj tests/fuzz/bin tests/fuzz/work tests/fuzz/crashes tests/fuzz/*.log
.PHONY: clean-fuzz
