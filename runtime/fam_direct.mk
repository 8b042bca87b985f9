# runtime/fam_direct.mk - sources of the direct family: embedded units (RT_UNITS) and compile-time prep.
RT_UNITS += runtime/conv_direct_chw.c runtime/conv_direct_s2_chw.c runtime/conv_direct_hwc.c \
	runtime/conv_direct_hcw.c runtime/conv_direct_vec.c runtime/conv_stem.c
libdnncc_rt_a_SOURCES += runtime/prep_direct.c
# The layout transforms (transforms.def): the shared transpose first.
RT_UNITS += runtime/layout_transpose.c \
	runtime/layout_chw_to_hwc.c \
	runtime/layout_hwc_to_chw.c \
	runtime/layout_chw_to_hcw.c \
	runtime/layout_hcw_to_chw.c \
	runtime/layout_hcw_to_hwc.c \
	runtime/layout_hwc_to_hcw.c \
	runtime/layout_chw_to_chw8c.c \
	runtime/layout_chw8c_to_chw.c \
	runtime/layout_chw_to_chw16c.c \
	runtime/layout_chw16c_to_chw.c \
	runtime/layout_hwc_to_chw8c.c \
	runtime/layout_chw8c_to_hwc.c \
	runtime/layout_hwc_to_chw16c.c \
	runtime/layout_chw16c_to_hwc.c
