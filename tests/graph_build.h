/* tests/graph_build.h - building small IR graphs by hand in the unit tests
 * (test_passes, test_select, test_fuse). Everything is allocated in the
 * graph's arena, so it goes with ir_graph_free. */
#ifndef DNNCC_TESTS_GRAPH_BUILD_H
#define DNNCC_TESTS_GRAPH_BUILD_H

#include <string.h>

#include "ir/ir.h"

/* A float32 activation of the given shape. */
static inline struct tensor *act(struct graph *g, const char *name, int rank,
                                 const int64_t *dims)
{
	struct tensor *t = ir_new_tensor(g, name, DTYPE_F32);
	ir_set_shape(t, rank, dims);
	return t;
}

/* Appends t to the arena array *arr of *n elements. */
static inline void append(struct graph *g, struct tensor ***arr, int *n, struct tensor *t)
{
	struct tensor **a = arena_alloc(&g->arena, (size_t)(*n + 1) * sizeof *a);
	if (*n)
		memcpy(a, *arr, (size_t)*n * sizeof *a);
	a[(*n)++] = t;
	*arr = a;
}

/* Makes t a graph input (in call order). */
static inline struct tensor *input(struct graph *g, struct tensor *t)
{
	t->is_input = 1;
	append(g, &g->inputs, &g->n_inputs, t);
	return t;
}

/* Makes t a graph output (in call order). */
static inline struct tensor *output(struct graph *g, struct tensor *t)
{
	t->is_output = 1;
	append(g, &g->outputs, &g->n_outputs, t);
	return t;
}

/* A node with n_in inputs and the one output out. */
static inline struct node *node(struct graph *g, enum op op, const char *name, int n_in,
                                struct tensor **ins, struct tensor *out)
{
	return ir_add_node(g, op, name, n_in, ins, 1, &out);
}

#endif
