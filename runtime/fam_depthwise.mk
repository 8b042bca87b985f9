# runtime/fam_depthwise.mk - sources of the depthwise family: embedded units (RT_UNITS) and compile-time prep.
RT_UNITS += runtime/conv_depthwise_chw.c runtime/conv_depthwise_cvec.c \
	runtime/conv_depthwise_group_gemm_chw.c runtime/conv_depthwise_group_gemm_hwc.c \
	runtime/conv_depthwise_group_direct_hwc.c \
	runtime/conv_depthwise_rows.c
libdnncc_rt_a_SOURCES += runtime/prep_depthwise.c
