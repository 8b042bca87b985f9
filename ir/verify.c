/* verify.c - the IR's structural invariants, checked after every pass:
 * nodes in topological order (each input is a graph input, a constant, or
 * written by an earlier live node), producer links agree with outputs, no
 * tensor written twice, unique names, and once shapes are inferred every
 * live tensor has a known shape. A failure is dnncc's bug, so the message
 * names the pass that broke the graph. */
#include <stdlib.h>
#include <string.h>

#include "ir/ir.h"

static void fail(struct diag *d, const struct node *n, const char *pass, const char *what,
                 const char *tensor)
{
	diag_error(d, n, "internal error: IR verifier after pass '%s': %s%s%s", pass, what,
	           tensor ? " " : "", tensor ? tensor : "");
}

int ir_verify(const struct graph *g, const char *after_pass, int shapes_known, struct diag *d)
{
	int before = d->errors;
	unsigned char *ready = xcalloc(g->n_tensors ? g->n_tensors : 1, 1);

	for (int i = 0; i < g->n_tensors; i++) {
		const struct tensor *t = g->tensors[i];
		if (t->index != i) {
			fail(d, NULL, after_pass, "stale tensor index on", t->name);
			goto out;
		}
		if (t->data || t->is_input)
			ready[i] = 1;
		if (t->data && t->producer)
			fail(d, t->producer, after_pass, "constant tensor has a producer:", t->name);
		for (int j = i + 1; j < g->n_tensors && g->n_tensors < 4096; j++)
			if (strcmp(t->name, g->tensors[j]->name) == 0)
				fail(d, NULL, after_pass, "duplicate tensor name", t->name);
	}
	for (int i = 0; i < g->n_nodes; i++) {
		const struct node *n = g->nodes[i];
		if (n->index != i)
			fail(d, n, after_pass, "stale node index", NULL);
		if (n->dead)
			continue;
		for (int k = 0; k < n->n_inputs; k++) {
			const struct tensor *t = n->inputs[k];
			if (!t)
				continue;
			if (t->index < 0 || t->index >= g->n_tensors || g->tensors[t->index] != t)
				fail(d, n, after_pass, "input not in the graph:", t->name);
			else if (!ready[t->index])
				fail(d, n, after_pass, "input used before it is written:", t->name);
		}
		for (int k = 0; k < n->n_outputs; k++) {
			const struct tensor *t = n->outputs[k];
			if (!t)
				continue;
			if (t->index < 0 || t->index >= g->n_tensors || g->tensors[t->index] != t) {
				fail(d, n, after_pass, "output not in the graph:", t->name);
				continue;
			}
			if (t->producer != n)
				fail(d, n, after_pass, "producer link broken on", t->name);
			if (ready[t->index])
				fail(d, n, after_pass, "tensor written twice:", t->name);
			ready[t->index] = 1;
		}
	}
	for (int k = 0; k < g->n_outputs; k++) {
		const struct tensor *t = g->outputs[k];
		if (!ready[t->index])
			fail(d, NULL, after_pass, "graph output never written:", t->name);
	}
	if (shapes_known) {
		for (int i = 0; i < g->n_tensors; i++) {
			const struct tensor *t = g->tensors[i];
			if (ready[i] && t->rank < 0)
				fail(d, t->producer, after_pass, "shape unknown after inference:", t->name);
		}
	}
out:
	free(ready);
	return d->errors - before;
}
