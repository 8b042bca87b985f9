# samples/: the bundled Fashion-MNIST model (made by samples/fashion_mnist/train.py,
# which the build never runs) and its demo. samples/check_sample.sh compiles the
# model with dnncc, builds the generated C with the demo as strict C99 and runs
# it against PyTorch's outputs: `make sample` runs it into samples-out/, and
# `make check` runs it as a test (into samples/check-out/, warnings as errors).
SAMPLE_INPUTS = samples/fashion_mnist/fashion_cnn.onnx samples/fashion_mnist/images.bin \
	samples/fashion_mnist/labels.bin samples/fashion_mnist/expected.bin
EXTRA_DIST += $(SAMPLE_INPUTS) samples/fashion_mnist/demo.c samples/fashion_mnist/train.py
dist_noinst_SCRIPTS += samples/check_sample.sh

# What the script takes from this build (it has defaults for a run by hand).
SAMPLE_ENV = CC='$(CC)' DNNCC='$(abs_top_builddir)/dnncc$(EXEEXT)' \
	abs_top_srcdir='$(abs_top_srcdir)'

.PHONY: sample
sample: dnncc$(EXEEXT)
	$(SAMPLE_ENV) $(SHELL) $(srcdir)/samples/check_sample.sh --warnings-ok samples-out

TESTS += samples/check_sample.sh
AM_TESTS_ENVIRONMENT += $(SAMPLE_ENV); export CC DNNCC abs_top_srcdir;

clean-local: clean-samples
clean-samples:
	rm -rf samples-out samples/check-out
.PHONY: clean-samples
