# runtime/fam_direct.mk - the direct family's compile-time prep; its units come from its .def rows (units.mk).
libdnncc_rt_a_SOURCES += runtime/prep_direct.c
