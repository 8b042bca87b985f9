/* fuse.c - fusions that remove whole layers: a residual Add folded into the
 * convolution that produces one of its operands, and the test of whether a
 * Concat can be zero-copy (its producers writing straight into their slices
 * of the concatenated tensor).
 *
 * Residual Add (canonicalize calls fuse_residual on every node, just before it
 * fuses activations, so Add followed by Relu becomes one epilogue):
 *   y = Add(conv(x), r)   becomes   y = conv(x, residual r)
 * the Conv node gaining r as input 3 (input 2, the bias, may be NULL). The
 * primitive computes conv + bias, then the layer adds r and applies the
 * node's act: out = act(conv + bias + r), so a Relu after the Add fuses into
 * the same epilogue through the ordinary activation fusion. Legal only when
 * the Add does not broadcast (r, the conv's output and y have one shape,
 * float32), the conv's output feeds the Add alone and is no graph output, the
 * conv has no epilogue yet (act(conv) + r is another function) and no
 * residual, and r is an activation (not a constant). Of the two operands the
 * one whose other operand is computed before its conv is taken; when neither
 * is (a shortcut conv exported after the main branch), the conv moves down to
 * where the Add was, which keeps the order topological because the Add was
 * its only reader. Selection reads r in the layout the conv's primitive
 * writes (select.c), converting it when needed.
 *
 * Zero-copy Concat (plan_memory): see fuse_concat_slices below.
 *
 * 1x1 into depthwise (select calls fuse_pw_dw after applying its choice): see
 * fuse_pw_dw at the end. */
#include <string.h>

#include "passes/passes.h"
#include "runtime/prep_depthwise.h"

static struct node *live_producer(struct tensor *t)
{
	return t && t->producer && !t->producer->dead ? t->producer : NULL;
}

static int is_graph_output(const struct graph *g, const struct tensor *t)
{
	for (int k = 0; k < g->n_outputs; k++)
		if (g->outputs[k] == t)
			return 1;
	return 0;
}

static int same_shape(const struct tensor *a, const struct tensor *b)
{
	return a->rank == b->rank && a->dtype == b->dtype &&
	       memcmp(a->dims, b->dims, (size_t)a->rank * sizeof a->dims[0]) == 0;
}

int fuse_has_residual(const struct node *n)
{
	return n->op == OP_CONV && n->n_inputs > FUSE_RESIDUAL_INPUT &&
	       n->inputs[FUSE_RESIDUAL_INPUT] != NULL;
}

/* Whether Add operand k can fold into the conv producing it. */
static struct node *foldable_conv(const struct graph *g, struct node *add, int k)
{
	struct tensor *a = add->inputs[k], *r = add->inputs[1 - k], *y = add->outputs[0];
	struct node *c = live_producer(a);
	if (!c || c->op != OP_CONV || c->act != ACT_NONE || fuse_has_residual(c) ||
	    c->n_outputs < 1 || c->outputs[0] != a || c->n_inputs < 2)
		return NULL;
	if (a == r || r->data || a->dtype != DTYPE_F32 || (a->rank != 3 && a->rank != 4) ||
	    !same_shape(a, r) || !same_shape(a, y))
		return NULL;
	if (ir_use_count(g, a) != 1 || is_graph_output(g, a))
		return NULL;
	return c;
}

/* Moves node c (at index from) to just before index to (> from). */
static void move_down(struct graph *g, int from, int to)
{
	struct node *c = g->nodes[from];
	memmove(&g->nodes[from], &g->nodes[from + 1], (size_t)(to - 1 - from) * sizeof *g->nodes);
	g->nodes[to - 1] = c;
	for (int i = from; i < to; i++)
		g->nodes[i]->index = i;
}

int fuse_residual(struct graph *g, struct node *add)
{
	if (add->dead || add->op != OP_ADD || add->n_inputs != 2 || !add->inputs[0] ||
	    !add->inputs[1] || add->n_outputs < 1 || !add->outputs[0])
		return 0;
	struct node *conv[2] = {foldable_conv(g, add, 0), foldable_conv(g, add, 1)};
	int k = -1;
	for (int i = 0; i < 2 && k < 0; i++) {
		if (!conv[i])
			continue;
		struct node *rp = live_producer(add->inputs[1 - i]);
		if (!rp || rp->index < conv[i]->index)
			k = i;
	}
	if (k < 0)
		k = conv[0] ? 0 : conv[1] ? 1 : -1;
	if (k < 0)
		return 0;
	struct node *c = conv[k];
	struct tensor *a = add->inputs[k], *r = add->inputs[1 - k], *y = add->outputs[0];
	struct node *rp = live_producer(r);
	if (rp && rp->index > c->index)
		move_down(g, c->index, add->index);
	struct tensor **in = arena_alloc(&g->arena, (FUSE_RESIDUAL_INPUT + 1) * sizeof *in);
	for (int i = 0; i < c->n_inputs && i < FUSE_RESIDUAL_INPUT; i++)
		in[i] = c->inputs[i];
	in[FUSE_RESIDUAL_INPUT] = r;
	c->inputs = in;
	c->n_inputs = FUSE_RESIDUAL_INPUT + 1;
	c->outputs[0] = y;
	y->producer = c;
	a->producer = NULL;
	add->dead = 1;
	return 1;
}

/* ---- zero-copy Concat ---------------------------------------------------------
 * A Concat costs nothing when every input can be a slice of its output: the
 * layers producing the inputs write into the concatenated tensor's buffer at
 * the slice's offset, and the Concat emits no code. That needs the slices to
 * be contiguous and in order, which holds when the concatenation axis is the
 * outermost dimension of the layout with more than one element: every dim
 * before the axis is 1 in the model's (row-major) layout, e.g. channels of a
 * batch-1 NCHW image; in blocked CHWxc (batch 1, axis 1) when every input but
 * the last has a multiple of x channels. And every input must be free to live
 * there: computed by a layer that is not a view (Reshape's output already
 * shares its input's buffer), neither a graph input, output nor constant, read
 * by this Concat once, and not already a slice of another Concat. The output
 * may be a graph output (the producers then write into the caller's buffer).
 * Fills off[k] (the byte offset of input k in the output) and returns 1 when
 * the Concat n can be zero-copy. */
static int outermost_axis(const struct tensor *y, int64_t axis)
{
	for (int d = 0; d < axis; d++)
		if (y->dims[d] != 1)
			return 0;
	return 1;
}

/* fuse_concat_slices with the output in layout `layout`; with `selected`
 * the inputs must already be in it, else they are taken to be converted to
 * it (a transform's output is free to be a slice). g may be NULL (graph
 * outputs then by tensor->is_output); off may be NULL. */
static int concat_slices(const struct graph *g, const struct node *n, enum layout layout,
                         int selected, size_t *off)
{
	if (n->dead || n->op != OP_CONCAT || n->n_inputs < 1 || n->n_outputs < 1 || !n->outputs[0])
		return 0;
	const struct tensor *y = n->outputs[0];
	int64_t axis = ir_attr_int((struct node *)n, "axis", 0);
	if (y->dtype != DTYPE_F32 || y->rank < 1 || axis < 0 || axis >= y->rank || y->alias ||
	    y->data || y->is_input)
		return 0;
	int block = layout == LAYOUT_CHW8C ? 8 : layout == LAYOUT_CHW16C ? 16 : 0;
	if (block ? axis != 1 || y->rank < 3 || !outermost_axis(y, axis)
	          : (layout != LAYOUT_MODEL || !outermost_axis(y, axis)))
		return 0;
	int64_t inner = 1;
	for (int d = (int)axis + 1; d < y->rank; d++)
		inner *= y->dims[d];
	size_t at = 0;
	int64_t sum = 0;
	for (int k = 0; k < n->n_inputs; k++) {
		const struct tensor *x = n->inputs[k];
		if (!x || x->data || x->is_input || x->alias || x->dtype != DTYPE_F32 ||
		    (selected && x->layout != layout) || x->rank != y->rank ||
		    (g ? is_graph_output(g, x) : x->is_output))
			return 0;
		const struct node *p = x->producer;
		if (!p || p->dead || ir_op_kind(p->op) == OPK_VIEW || p->op == OP_CONCAT)
			return 0;
		for (int j = 0; j < k; j++)
			if (n->inputs[j] == x)
				return 0;
		for (int d = 0; d < y->rank; d++)
			if (d != axis && x->dims[d] != y->dims[d])
				return 0;
		if (block && k + 1 < n->n_inputs && x->dims[axis] % block)
			return 0;
		if (off)
			off[k] = at;
		at += (size_t)x->dims[axis] * (size_t)inner * sizeof(float);
		sum += x->dims[axis];
	}
	return sum == y->dims[axis];
}

int fuse_concat_slices(const struct graph *g, const struct node *n, size_t *off)
{
	return n->n_outputs > 0 && n->outputs[0] &&
	       concat_slices(g, n, n->outputs[0]->layout, 1, off);
}

int fuse_concat_free(const struct node *n, enum layout layout)
{
	return concat_slices(NULL, n, layout, 0, NULL);
}

/* ---- 1x1 fused into the depthwise after it ---------------------------------
 * MobileNetV2's inverted residual block expands with a 1x1 (+ReLU6) to 6x the
 * channels, then runs a 3x3 depthwise on that. Where select chose the
 * pointwise row for the 1x1 and the depthwise rows for the depthwise in one
 * layout (HWC, CHW16c or CHW8c: pw_dw_pairs), and the expanded tensor e is
 * read by the depthwise alone, runtime/conv_pw_dw.c computes both band by
 * band, e never leaving L2; its output is bitwise the pair's. A rewrite
 * after selection, not a choice inside it: both layers keep the rows (and
 * costs) select gave them. Fused only where e is at least the pair's
 * min_bytes, where skipping e's trip through the outer caches pays for the
 * bands' overheads (rows of e computed twice at chunk edges, kept rows
 * moved, many short kernel calls):
 * - HWC, 1 MiB: measured (library kernels, 1 thread, AVX-512, CPU time,
 *   medians, unfused / fused, caches warm as inside the network) 1.2 at 112 x
 *   112 x 96 (stride 2), 1.08 at 56 x 56 x 144 (stride 1), 1.05 (stride 2),
 *   1.01 at 28 x 28 x 192 (588 KiB); at 14 x 14 and 7 x 7 e stays in L2
 *   anyway, the bands re-read the 1x1's weights and the whole network got
 *   slower. On Zen 5 (loaded machine) 1.10-1.18 at 112 x 112 x 96, 0.97-0.99
 *   at 56 x 56 x 144 stride 1, 0.96-1.01 stride 2; MobileNetV2 for
 *   x86-64-v3 (HWC, two pairs fused) 1.004 against the previous kernel (9
 *   rounds, 0.996-1.019).
 * - CHW16c / CHW8c, 6 MiB: on Zen 5 (32 MiB L3; 1 thread, CPU time, medians
 *   of 30-300 calls, both in one process, 2 rounds) the blocked pair reads e
 *   back from L3 about as fast as the bands do from L2: 0.94-0.98 at 28 x 28
 *   x 192, 0.96-0.99 at 56 x 56 x 144 (stride 1), 0.97-1.0 (stride 2),
 *   0.99-1.03 at 112 x 112 x 96 (4.6 MiB; 1.08-1.11 while other processes
 *   loaded the L3), then 1.05-1.11 at 112 x 112 x 144 (7.2 MiB, stride 1),
 *   1.08-1.12 (stride 2), 1.22-1.29 at 160 x 160 x 96, 1.29-1.31 at 224 x
 *   224 x 96. MobileNetV2 at 224 x 224 fused its three largest pairs 1.5%
 *   slower in all (whole network, CPU time, 9 rounds), so it fuses none;
 *   at 448 x 448 the first three pairs fuse. */

/* The row pairs conv_pw_dw.c runs, with its variant, and the least size of
 * e (bytes) at which they fuse. */
static const struct {
	const char *pw, *dw;
	int variant;
	size_t min_bytes;
} pw_dw_pairs[] = {
	{"conv_pointwise_hwc", "conv_depthwise_rows_hwc", 0, (size_t)1 << 20},
	{"conv_pointwise_chw16c", "conv_depthwise_rows_chw16c", 16, (size_t)6 << 20},
	{"conv_pointwise_chw8c", "conv_depthwise_rows_chw8c", 8, (size_t)6 << 20},
};

int fuse_has_pw(const struct node *n)
{
	return n->op == OP_CONV && n->n_inputs > FUSE_PW_INPUT && n->inputs[FUSE_PW_INPUT] != NULL;
}

/* The row of pw_dw_pairs that depthwise n's rows and its input's
 * producer's are, -1 where none. */
static int pw_dw_pair(const struct node *n)
{
	const struct node *pw = n->n_inputs > 0 && n->inputs[0] ? n->inputs[0]->producer : NULL;
	for (int k = 0; pw && n->primitive && pw->primitive &&
	                k < (int)(sizeof pw_dw_pairs / sizeof pw_dw_pairs[0]);
	     k++)
		if (strcmp(n->primitive, pw_dw_pairs[k].dw) == 0 &&
		    strcmp(pw->primitive, pw_dw_pairs[k].pw) == 0)
			return k;
	return -1;
}

static int readers(const struct graph *g, const struct tensor *t)
{
	int r = 0;
	for (int i = 0; i < g->n_nodes; i++) {
		const struct node *n = g->nodes[i];
		for (int k = 0; !n->dead && k < n->n_inputs; k++)
			r += n->inputs[k] == t;
	}
	return r;
}

int fuse_pw_dw(struct graph *g, const struct options *opt)
{
	int fused = 0;
	for (int i = 0; i < g->n_nodes; i++) {
		struct node *d = g->nodes[i];
		if (d->dead || d->op != OP_CONV || !d->primitive || fuse_has_residual(d) ||
		    d->n_inputs > FUSE_RESIDUAL_INPUT || d->n_inputs < 1)
			continue;
		struct tensor *e = d->inputs[0];
		struct node *pw = live_producer(e);
		const int k = pw_dw_pair(d);
		if (k < 0 || !pw || pw->op != OP_CONV || fuse_has_residual(pw) || fuse_has_pw(pw) ||
		    pw->outputs[0] != e || is_graph_output(g, e) || readers(g, e) != 1 ||
		    ir_nbytes(e) < pw_dw_pairs[k].min_bytes)
			continue;
		const int variant = pw_dw_pairs[k].variant;
		struct rt_conv2d pe, pd;
		if (pass_conv_params(pw, opt->isa, opt->threads, &pe) ||
		    pass_conv_params(d, opt->isa, opt->threads, &pd) ||
		    !prep_pw_dw_applies(&pe, &pd, variant))
			continue;
		struct tensor **in = arena_alloc(&g->arena, (FUSE_PW_INPUT + 3) * sizeof *in);
		for (int k = 0; k < FUSE_PW_INPUT; k++)
			in[k] = k < d->n_inputs ? d->inputs[k] : NULL;
		in[FUSE_PW_INPUT] = pw->inputs[0];
		in[FUSE_PW_INPUT + 1] = pw->inputs[1];
		in[FUSE_PW_INPUT + 2] = pw->n_inputs > 2 ? pw->inputs[2] : NULL;
		d->inputs = in;
		d->n_inputs = FUSE_PW_INPUT + 3;
		const size_t ws = prep_pw_dw_ws(&pd, variant) * sizeof(float);
		d->ws_bytes = d->ws_bytes > ws ? d->ws_bytes : ws;
		pw->fused_into = d;
		pw->ws_bytes = 0;
		fused++;
	}
	return fused;
}
