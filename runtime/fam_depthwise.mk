# runtime/fam_depthwise.mk - the depthwise family's compile-time prep; its units come from its .def rows (units.mk).
libdnncc_rt_a_SOURCES += runtime/prep_depthwise.c
