# runtime/fam_pointwise.mk - the pointwise family's compile-time prep; its units come from its .def rows (units.mk).
libdnncc_rt_a_SOURCES += runtime/prep_pointwise.c runtime/prep_pointwise.h runtime/fam_pointwise.def
