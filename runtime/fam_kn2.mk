# runtime/fam_kn2.mk - the kn2 family's compile-time prep; its units come from its .def rows (units.mk).
libdnncc_rt_a_SOURCES += runtime/prep_kn2.c
