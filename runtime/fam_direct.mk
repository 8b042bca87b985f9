# runtime/fam_direct.mk - sources of the direct family: embedded units (RT_UNITS) and compile-time prep.
