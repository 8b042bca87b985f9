# runtime/fam_winograd.mk - sources of the winograd family: embedded units (RT_UNITS) and compile-time prep.
