# runtime/fam_im2.mk - sources of the im2 family: embedded units (RT_UNITS) and compile-time prep.
