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

check_PROGRAMS += tests/test_shapes
tests_test_shapes_SOURCES = tests/test_shapes.c
tests_test_shapes_CPPFLAGS = $(TEST_CPPFLAGS)
tests_test_shapes_LDADD = $(TEST_LDADD)

check_PROGRAMS += tests/test_onnx
tests_test_onnx_SOURCES = tests/test_onnx.c
tests_test_onnx_CPPFLAGS = $(TEST_CPPFLAGS)
tests_test_onnx_LDADD = $(TEST_LDADD)
# The test builds models with the generated protobuf-c API.
tests/test_onnx-test_onnx.$(OBJEXT): frontend/onnx.pb-c.h
endif
TESTS += $(check_PROGRAMS)
