# runtime/fam_kn2.mk - sources of the kn2 family: embedded units (RT_UNITS) and compile-time prep.
