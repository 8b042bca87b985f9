# runtime/fam_fft.mk - sources of the fft family: embedded units (RT_UNITS) and compile-time prep.
