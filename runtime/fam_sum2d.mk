# runtime/fam_sum2d.mk - sources of the sum2d family: embedded units (RT_UNITS) and compile-time prep.
RT_UNITS += runtime/conv_sum2d.c
