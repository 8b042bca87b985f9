libdnncc_a_SOURCES += ir/ir.h ir/ops.def ir/math_ops.def ir/util.c ir/arena.c ir/diag.c ir/ir.c ir/verify.c ir/dump.c
