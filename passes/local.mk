libdnncc_a_SOURCES += passes/passes.h passes/infer_shapes.c passes/canonicalize.c \
	passes/plan_memory.c
libdnncc_a_SOURCES += passes/select.c passes/cost_model.c passes/costs.c
