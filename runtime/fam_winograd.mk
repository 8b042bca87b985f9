# runtime/fam_winograd.mk - sources of the winograd family: embedded units (RT_UNITS) and compile-time prep.
RT_UNITS += runtime/conv_winograd_gemm.c
libdnncc_rt_a_SOURCES += runtime/prep_winograd.c
