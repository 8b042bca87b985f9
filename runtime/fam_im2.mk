# runtime/fam_im2.mk - sources of the im2 family: embedded units (RT_UNITS) and compile-time prep.
RT_UNITS += runtime/conv_im2_col.c runtime/conv_im2_row.c runtime/conv_im2_1x1.c
libdnncc_rt_a_SOURCES += runtime/prep_im2.c
