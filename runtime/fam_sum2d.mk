# runtime/fam_sum2d.mk - the sum2d family's compile-time prep; its units come from its .def rows (units.mk).
