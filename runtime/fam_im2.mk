# runtime/fam_im2.mk - the im2 family's compile-time prep; its units come from its .def rows (units.mk).
libdnncc_rt_a_SOURCES += runtime/prep_im2.c
