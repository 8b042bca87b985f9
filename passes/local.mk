libdnncc_a_SOURCES += passes/passes.h passes/infer_shapes.c passes/canonicalize.c passes/typed_ops.c \
	passes/plan_memory.c passes/fuse.c
libdnncc_a_SOURCES += passes/select.c passes/cost_model.c passes/costs.c
libdnncc_a_SOURCES += passes/pbqp.c passes/ilp.c
# GLPK (optional, configure's check) for ilp.c, the PBQP cross-check.
DNNCC_LIBS += $(GLPK_LIBS)
libdnncc_a_SOURCES += passes/candidates.c passes/nonconv.c passes/dtgraph.c
