/* plan_memory.c - place every activation in one static arena.
 *
 * Needs: the final graph (canonical form, nodes in execution order).
 * Views (Flatten, Reshape, Squeeze, Unsqueeze) get no storage of their own:
 * their output aliases the root tensor of their input (alias chains are
 * followed, so an alias always names a root). Neither do the inputs of a
 * zero-copy Concat (fuse_concat_slices): each aliases its slice of the
 * Concat's output (tensor->alias_offset bytes in), so the layers computing
 * them write the concatenated tensor in place and the Concat is no code; that
 * buffer then lives from the first of those layers on. Graph inputs, graph outputs and
 * constants live outside the arena (caller buffers, weights). Every other
 * root tensor lives from the node that writes it to the last node that reads
 * it or any view of it; one that a graph output views lives to the end, so
 * the emitter may copy it out whenever it likes.
 *
 * A convolution that adds a fused residual which dies at it, in a row that
 * stores each output once after reading its residual
 * (rt_prim_residual_in_place), writes its output over the residual: the
 * output aliases the residual's root, which lives on (node->res_in_place).
 *
 * A primitive's workspace (node->ws_bytes) is placed like a tensor that
 * lives only while its node runs; node->ws_offset receives its place.
 *
 * Placement is greedy by size, as in TFLite Micro's GreedyMemoryPlanner:
 * largest tensor first, each at the lowest 64-byte-aligned offset where it
 * overlaps no already placed tensor whose lifetime overlaps its own.
 * Guarantees: tensor->alias and tensor->offset set, graph->arena_size a
 * multiple of 64 covering every placement, and no node's output sharing
 * bytes with one of its inputs (lifetimes overlap at that node) but a
 * residual carried in place. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "ir/ir.h"
#include "passes/passes.h"
#include "runtime/primitives.h"

#define PLAN_ALIGN 64

/* One tensor's place in the plan (indexed like graph->tensors). */
struct slot {
	struct tensor *t; /* the tensor, any shape; a root when placed; NULL: a workspace */
	int key;          /* position in the slots array, for a deterministic order */
	int first, last;  /* lifetime: node indices, inclusive; -1 when never written */
	size_t size;      /* bytes, rounded up to PLAN_ALIGN */
	size_t offset;    /* byte offset in the arena once placed */
	int placed;       /* given an arena offset */
};

static int is_view(enum op op)
{
	return ir_op_kind(op) == OPK_VIEW;
}

static struct tensor *root_of(struct tensor *t)
{
	return t->alias ? t->alias : t;
}

/* Largest first; ties by earlier start, then by tensor order, so the plan is
 * deterministic. */
static int by_size_desc(const void *pa, const void *pb)
{
	const struct slot *a = *(const struct slot *const *)pa, *b = *(const struct slot *const *)pb;
	if (a->size != b->size)
		return a->size < b->size ? 1 : -1;
	if (a->first != b->first)
		return a->first < b->first ? -1 : 1;
	return a->key - b->key;
}

static int by_offset(const void *pa, const void *pb)
{
	const struct slot *a = *(const struct slot *const *)pa, *b = *(const struct slot *const *)pb;
	if (a->offset != b->offset)
		return a->offset < b->offset ? -1 : 1;
	return 0;
}

static int lifetimes_overlap(const struct slot *a, const struct slot *b)
{
	return a->first <= b->last && b->first <= a->last;
}

static int bytes_overlap(const struct slot *a, const struct slot *b)
{
	return a->size && b->size && a->offset < b->offset + b->size &&
	       b->offset < a->offset + a->size;
}

int pass_plan_memory(struct graph *g, const struct options *opt, struct diag *d)
{
	/* The limits (--max-arena, --max-weights) before anything is placed: the
	 * frontends and infer_shapes bounded each tensor, this bounds what
	 * selection added (workspaces, transformed weights) and the sums. */
	uint64_t max_arena = pass_max_arena(opt), max_weights = pass_max_weights(opt);
	uint64_t weights = 0;
	int errors = 0;
	for (int i = 0; i < g->n_nodes; i++) {
		const struct node *n = g->nodes[i];
		if (!n->dead && n->ws_bytes > max_arena) {
			diag_error(d, n, "the workspace of %s needs %zu bytes, over the arena limit of %"
			           PRIu64 " bytes (--max-arena MiB raises it)",
			           n->primitive ? n->primitive : "its kernel", n->ws_bytes, max_arena);
			errors++;
		}
	}
	for (int i = 0; i < g->n_tensors; i++)
		if (g->tensors[i]->data)
			weights += ir_nbytes(g->tensors[i]);
	if (weights > max_weights) {
		diag_error(d, NULL, "the weights take %" PRIu64 " bytes as the selected primitives "
		           "store them, over the limit of %" PRIu64 " bytes (--max-weights MiB raises it)",
		           weights, max_weights);
		errors++;
	}
	if (errors)
		return errors;

	int nt = g->n_tensors;
	unsigned char *outside = xcalloc(nt ? nt : 1, 1); /* input, output or constant */
	/* by tensor index, then one workspace slot per node */
	struct slot *slots = xcalloc(nt + g->n_nodes + 1, sizeof *slots);
	for (int i = 0; i < nt + g->n_nodes; i++)
		slots[i].key = i;
	for (int i = 0; i < g->n_nodes; i++)
		g->nodes[i]->res_in_place = 0;

	for (int i = 0; i < nt; i++) {
		struct tensor *t = g->tensors[i];
		if (t->index != i)
			unreachable("plan_memory: stale tensor index");
		t->alias = NULL;
		t->alias_offset = 0;
		t->offset = 0;
		outside[i] = t->data != NULL;
		slots[i].t = t;
		slots[i].first = slots[i].last = -1;
	}
	for (int k = 0; k < g->n_inputs; k++)
		outside[g->inputs[k]->index] = 1;
	for (int k = 0; k < g->n_outputs; k++)
		outside[g->outputs[k]->index] = 1;

	/* Zero-copy Concats: their inputs become slices of their output. */
	size_t *off = NULL;
	for (int i = 0; i < g->n_nodes; i++) {
		struct node *n = g->nodes[i];
		if (n->dead || n->op != OP_CONCAT)
			continue;
		off = xrealloc(off, (size_t)n->n_inputs * sizeof *off);
		if (!fuse_concat_slices(g, n, off))
			continue;
		for (int k = 0; k < n->n_inputs; k++) {
			n->inputs[k]->alias = n->outputs[0];
			n->inputs[k]->alias_offset = off[k];
		}
	}
	free(off);

	/* Views and lifetimes, in execution order. */
	for (int i = 0; i < g->n_nodes; i++) {
		struct node *n = g->nodes[i];
		if (n->dead)
			continue;
		for (int k = 0; k < n->n_inputs; k++) {
			if (n->inputs[k])
				slots[root_of(n->inputs[k])->index].last = i;
		}
		if (is_view(n->op) && n->n_inputs >= 1 && n->inputs[0] && n->n_outputs >= 1 &&
		    n->outputs[0]) {
			n->outputs[0]->alias = root_of(n->inputs[0]);
			n->outputs[0]->alias_offset = n->inputs[0]->alias_offset;
			continue;
		}
		for (int k = 0; k < n->n_outputs; k++) {
			struct tensor *t = n->outputs[k];
			if (!t)
				continue;
			/* a slice's writer starts its Concat's buffer's life */
			struct slot *s = &slots[root_of(t)->index];
			if (s->first < 0 || s->first > i)
				s->first = i;
			if (s->last < i)
				s->last = i;
		}
	}
	for (int k = 0; k < g->n_outputs; k++) {
		struct tensor *t = g->outputs[k];
		if (t->alias)
			slots[t->alias->index].last = g->n_nodes;
	}

	/* Residuals carried in place: a conv that adds a residual which dies at
	 * it, in a row that may (rt_prim_residual_in_place), writes its output
	 * over the residual's buffer, which then lives on as the output's. So
	 * ResNet's block outputs take one buffer, and the conv writes lines it
	 * has just read (no write-allocate of a second one). */
	for (int i = 0; opt && i < g->n_nodes; i++) {
		struct node *n = g->nodes[i];
		if (n->dead || !fuse_has_residual(n) || n->fused_into || !n->primitive ||
		    n->n_outputs < 1 || !n->outputs[0])
			continue;
		struct tensor *r = n->inputs[FUSE_RESIDUAL_INPUT], *y = n->outputs[0];
		struct tensor *root = root_of(r);
		struct slot *sr = &slots[root->index], *sy = &slots[y->index];
		const struct rt_prim *row = rt_prim_find(n->primitive);
		struct rt_conv2d cp;
		int ok = row && !outside[root->index] && !outside[y->index] && !y->alias &&
		         r->alias_offset == 0 && ir_nbytes(root) == ir_nbytes(y) &&
		         root->dtype == y->dtype && sr->last == i && sy->first == i &&
		         !pass_conv_params(n, opt->isa, opt->threads, &cp) &&
		         rt_prim_residual_in_place(row, &cp);
		for (int k = 0; ok && k < n->n_inputs; k++) /* x or w the residual too */
			ok = k == FUSE_RESIDUAL_INPUT || !n->inputs[k] || root_of(n->inputs[k]) != root;
		if (!ok)
			continue;
		y->alias = root;
		y->alias_offset = 0;
		if (sr->last < sy->last)
			sr->last = sy->last;
		sy->first = sy->last = -1;
		n->res_in_place = 1;
		/* views of y (set above) now view the root */
		for (int t = 0; t < nt; t++)
			if (g->tensors[t]->alias == y)
				g->tensors[t]->alias = root;
	}

	/* The tensors to place: written roots outside caller buffers and weights,
	 * and the workspaces. */
	struct slot **order = xcalloc(nt + g->n_nodes + 1, sizeof *order);
	int n_order = 0;
	for (int i = 0; i < g->n_nodes; i++) {
		struct slot *s = &slots[nt + i];
		s->first = s->last = -1;
		if (g->nodes[i]->dead || !g->nodes[i]->ws_bytes)
			continue;
		s->first = s->last = i;
		s->size = (g->nodes[i]->ws_bytes + PLAN_ALIGN - 1) / PLAN_ALIGN * PLAN_ALIGN;
		order[n_order++] = s;
	}
	for (int i = 0; i < nt; i++) {
		struct slot *s = &slots[i];
		if (outside[i] || s->t->alias || s->first < 0)
			continue;
		if (s->t->rank < 0)
			unreachable("plan_memory: tensor without a shape");
		/* a 1x1 run inside its depthwise (fuse_pw_dw) never writes its
		 * output: no room for it, so the layers around reuse warm memory */
		size_t bytes = s->t->producer && s->t->producer->fused_into ? 0 : ir_nbytes(s->t);
		s->size = (bytes + PLAN_ALIGN - 1) / PLAN_ALIGN * PLAN_ALIGN;
		order[n_order++] = s;
	}
	qsort(order, n_order, sizeof *order, by_size_desc);

	/* First fit among the already placed tensors that are live at the same
	 * time, scanned by offset. */
	struct slot **conflicts = xcalloc(n_order ? n_order : 1, sizeof *conflicts);
	size_t arena_size = 0;
	for (int i = 0; i < n_order; i++) {
		struct slot *s = order[i];
		int n_conf = 0;
		for (int j = 0; j < i; j++)
			if (order[j]->size && lifetimes_overlap(s, order[j]))
				conflicts[n_conf++] = order[j];
		qsort(conflicts, n_conf, sizeof *conflicts, by_offset);
		size_t offset = 0;
		if (s->size) {
			for (int j = 0; j < n_conf; j++) {
				if (offset + s->size <= conflicts[j]->offset)
					break;
				if (conflicts[j]->offset + conflicts[j]->size > offset)
					offset = conflicts[j]->offset + conflicts[j]->size;
			}
		}
		s->offset = offset;
		s->placed = 1;
		if (s->t)
			s->t->offset = offset;
		else
			g->nodes[s->key - nt]->ws_offset = offset;
		if (offset + s->size > arena_size)
			arena_size = offset + s->size;
	}
	g->arena_size = arena_size;
	if (arena_size > max_arena) {
		diag_error(d, NULL, "the activation arena needs %zu bytes (activations and workspaces "
		           "live at the same time), over the limit of %" PRIu64 " bytes (--max-arena "
		           "MiB raises it)", arena_size, max_arena);
		errors++;
	}

	/* A node reads its inputs while it writes its outputs (slices of one
	 * Concat share a root but not bytes). */
	for (int i = 0; i < g->n_nodes; i++) {
		const struct node *n = g->nodes[i];
		if (n->dead || is_view(n->op))
			continue;
		for (int k = 0; k < n->n_outputs; k++) {
			if (!n->outputs[k])
				continue;
			struct tensor *y = n->outputs[k];
			const struct slot *o = &slots[root_of(y)->index];
			if (!o->placed)
				continue;
			struct slot oy = {.offset = o->offset + y->alias_offset,
			                  .size = y->alias ? ir_nbytes(y) : o->size};
			for (int j = 0; j < n->n_inputs; j++) {
				struct tensor *x = n->inputs[j];
				if (!x || x->alias == y) /* a zero-copy Concat's own slices */
					continue;
				if (n->res_in_place && j == FUSE_RESIDUAL_INPUT) /* carried in place */
					continue;
				const struct slot *s = &slots[root_of(x)->index];
				struct slot sx = {.offset = s->offset + x->alias_offset,
				                  .size = x->alias ? ir_nbytes(x) : s->size};
				if (s->placed && (s != o || x->alias || y->alias) && bytes_overlap(&oy, &sx))
					unreachable("plan_memory: an output shares bytes with an input");
			}
		}
	}

	free(conflicts);
	free(order);
	free(slots);
	free(outside);
	return errors;
}
