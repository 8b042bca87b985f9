# runtime/fam_fft.mk - sources of the fft family: embedded units (RT_UNITS) and compile-time prep.
RT_UNITS += runtime/conv_fft_tiles.c
libdnncc_rt_a_SOURCES += runtime/prep_fft.c
