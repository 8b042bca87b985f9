# runtime/: C99 kernels, built as a library for tests and embedded into dnncc.
# RT_UNITS lists the files of units.def, in its order.
RT_UNITS = runtime/conv_ref.c runtime/maxpool.c runtime/avgpool.c \
	runtime/global_avgpool.c runtime/global_maxpool.c runtime/gemm_ref.c \
	runtime/matmul.c runtime/binary.c runtime/unary.c runtime/softmax.c \
	runtime/lrn.c runtime/concat.c runtime/transpose.c runtime/pad.c
libdnncc_rt_a_SOURCES += runtime/rt_types.h runtime/dnncc_rt.h runtime/units.def $(RT_UNITS)
