# train.mk - `dnncc --train` (issue 10): training code for fully-connected
# networks. The pass, the emitters and the driver go into dnncc; the training
# kernels into the runtime library (for the tests) and, as text, into dnncc.
libdnncc_a_SOURCES += passes/train.h passes/autodiff.c backend/emit_train.h backend/emit_train.c
dnncc_SOURCES += driver/train.c driver/train.h
libdnncc_rt_a_SOURCES += runtime/train_rt.h runtime/train_ops.c
RT_EMBEDDED += runtime/train_ops.c

# Gradient checks of every backward rule, the optimizers, the autodiff pass.
if HAVE_CRITERION
check_PROGRAMS += tests/test_train
tests_test_train_SOURCES = tests/test_train.c
tests_test_train_CPPFLAGS = $(TEST_CPPFLAGS)
tests_test_train_LDADD = $(TEST_LDADD)
endif

# A training step of generated code against PyTorch's (every optimizer, both
# losses), generated code built with -Werror under gcc and clang.
EXTRA_DIST += tests/train/step_ref.py tests/train/step_main.c
dist_noinst_SCRIPTS += tests/train/step_check.sh
TESTS += tests/train/step_check.sh
clean-local: clean-train
clean-train:
	rm -rf tests/train/step-out
.PHONY: clean-train
