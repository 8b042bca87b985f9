# runtime/: C99 kernels, built as a library for tests and embedded into dnncc.
# RT_UNITS lists the files of units.def, in its order.
RT_UNITS = runtime/conv_ref.c runtime/maxpool.c runtime/avgpool.c \
	runtime/global_avgpool.c runtime/global_maxpool.c runtime/gemm_ref.c runtime/gemm_fc.c runtime/gemm_sgemm.c \
	runtime/matmul.c runtime/binary.c runtime/unary.c runtime/softmax.c \
	runtime/lrn.c runtime/concat.c runtime/transpose.c runtime/pad.c \
	runtime/clip.c runtime/batchnorm.c runtime/unary_math.c \
	runtime/reduce.c runtime/normalize.c runtime/hardmax.c \
	runtime/pad_mode.c runtime/resize.c runtime/conv_transpose.c \
	runtime/rt_typed.h runtime/typed_cast.c runtime/typed_binary.c runtime/typed_unary.c \
	runtime/typed_where.c runtime/typed_gather.c runtime/typed_argmax.c runtime/typed_topk.c \
	runtime/typed_cumsum.c runtime/typed_trilu.c runtime/typed_gather_elements.c \
	runtime/typed_nll.c runtime/typed_copy.c runtime/typed_concat.c \
	runtime/conv3d.c runtime/conv_transpose3d.c runtime/pool3d.c runtime/resize3d.c \
	runtime/residual.c \
	runtime/pool_cl.c runtime/global_pool_cl.c runtime/eltwise.c runtime/act_vec.c \
	runtime/chan_binary.c
libdnncc_rt_a_SOURCES += runtime/rt_types.h runtime/rt_simd.h runtime/dnncc_rt.h runtime/units.def $(RT_UNITS)

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
