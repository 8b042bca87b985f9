# runtime/fam_kn2.mk - sources of the kn2 family: embedded units (RT_UNITS) and compile-time prep.
RT_UNITS += runtime/conv_kn2_stack.c runtime/conv_kn2_as.c runtime/conv_kn2_aa.c
libdnncc_rt_a_SOURCES += runtime/prep_kn2.c
