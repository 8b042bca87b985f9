/* tests/pass_run.h - running passes on hand-built graphs in the unit tests
 * (test_passes, test_fuse), asserting they succeed and leave a graph the
 * verifier accepts. Include after <criterion/criterion.h>. */
#ifndef DNNCC_TESTS_PASS_RUN_H
#define DNNCC_TESTS_PASS_RUN_H

#include <stdio.h>

#include "ir/ir.h"
#include "passes/passes.h"

/* pass_plan_memory with default options: no error, verifier clean. */
static inline void plan_ok(struct graph *g)
{
	struct options opt = {0};
	struct diag d;
	diag_init(&d, "m.onnx", stderr);
	cr_assert_eq(pass_plan_memory(g, &opt, &d), 0);
	cr_assert_eq(ir_verify(g, "plan_memory", 1, &d), 0);
}

/* The live (not dead) nodes of op op. */
static inline int count_op(const struct graph *g, enum op op)
{
	int k = 0;
	for (int i = 0; i < g->n_nodes; i++)
		k += !g->nodes[i]->dead && g->nodes[i]->op == op;
	return k;
}

#endif
