# tests/: Criterion unit tests, the ONNX conformance runner, end-to-end models.
# Unit tests link the compiler library and the runtime library.
TEST_CPPFLAGS = $(AM_CPPFLAGS) $(CRITERION_CFLAGS) $(PROTOBUF_C_CFLAGS)
TEST_LDADD = $(DNNCC_LIBS) $(CRITERION_LIBS)

if HAVE_CRITERION
check_PROGRAMS += tests/test_ir
tests_test_ir_SOURCES = tests/test_ir.c
tests_test_ir_CPPFLAGS = $(TEST_CPPFLAGS)
tests_test_ir_LDADD = $(TEST_LDADD)

check_PROGRAMS += tests/test_runtime
tests_test_runtime_SOURCES = tests/test_runtime.c
tests_test_runtime_CPPFLAGS = $(TEST_CPPFLAGS)
tests_test_runtime_LDADD = libdnncc_rt.a $(CRITERION_LIBS) -lm
endif
TESTS += $(check_PROGRAMS)
