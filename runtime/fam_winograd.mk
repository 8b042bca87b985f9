# runtime/fam_winograd.mk - the winograd family's compile-time prep; its units come from its .def rows (units.mk).
libdnncc_rt_a_SOURCES += runtime/prep_winograd.c
