# runtime/fam_pointwise.mk - sources of the pointwise (1x1) rows: embedded unit (RT_UNITS) and compile-time prep.
RT_UNITS += runtime/conv_pointwise.c
libdnncc_rt_a_SOURCES += runtime/prep_pointwise.c runtime/prep_pointwise.h runtime/fam_pointwise.def
