# runtime/fam_fft.mk - the fft family's compile-time prep; its units come from its .def rows (units.mk).
libdnncc_rt_a_SOURCES += runtime/prep_fft.c
