# runtime/fam_depthwise.mk - sources of the depthwise family: embedded units (RT_UNITS) and compile-time prep.
