/* canonicalize.c - bring the graph into the canonical form of passes.h, the
 * one contract the backend reads.
 *
 * Needs: pass_infer_shapes (every live tensor has a dtype and a shape, constant
 * subgraphs folded). Attributes are still as the model gave them: possibly
 * absent, auto_pad unresolved, and opset-dependent operands (Clip min/max, Pad
 * pads/value, Reshape shape, Squeeze/Unsqueeze axes) still inputs.
 *
 * In order it
 *  1. drops Dropout, Identity and same-type Cast, rewiring their readers,
 *     and nodes whose results nothing reads;
 *  2. checks every node against what the backend can run (float32 data, 1-D
 *     and 2-D convolution and pooling, ranks the runtime handles, no leftover
 *     shape arithmetic) and makes its attributes explicit: ONNX defaults
 *     filled in, auto_pad resolved into pads, negative axes normalised,
 *     constant Clip bounds, Pad and view operands moved into attributes or
 *     dropped;
 *  3. folds BatchNormalization into the Conv or Gemm before it, or lowers it to a
 *     per-channel Mul + Add; one whose statistics are not all constants
 *     stays BatchNormalization (the runtime computes it);
 *  4. warns about attributes nothing consumed (STYLE.md §5);
 *  5. fuses Relu/LeakyRelu/Clip/Sigmoid/Tanh into a single-use Conv or Gemm
 *     (not a Clip with a bound computed at run time);
 *  6. compacts the graph.
 * Guarantees: the canonical form, or one error per node it cannot compile. */
#include <float.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ir/ir.h"
#include "passes/passes.h"
#include "runtime/rt_types.h"

/* ---- queries --------------------------------------------------------------- */

static int is_graph_output(const struct graph *g, const struct tensor *t)
{
	for (int k = 0; k < g->n_outputs; k++)
		if (g->outputs[k] == t)
			return 1;
	return 0;
}

/* Live node inputs and graph outputs that read t. */
static int n_readers(const struct graph *g, const struct tensor *t)
{
	return ir_use_count(g, t) + is_graph_output(g, t);
}

static struct node *live_producer(const struct tensor *t)
{
	return t && t->producer && !t->producer->dead ? t->producer : NULL;
}

/* Element i of a numeric constant, as a double. */
static double const_elem(const struct tensor *t, int64_t i)
{
	switch (t->dtype) {
	case DTYPE_F32: return ((const float *)t->data)[i];
	case DTYPE_F64: return ((const double *)t->data)[i];
	case DTYPE_I64: return (double)((const int64_t *)t->data)[i];
	case DTYPE_I32: return ((const int32_t *)t->data)[i];
	case DTYPE_I8: return ((const int8_t *)t->data)[i];
	case DTYPE_U8:
	case DTYPE_BOOL: return ((const uint8_t *)t->data)[i];
	default: unreachable("const_elem on a non-numeric constant");
	}
}

static int is_integer_dtype(enum dtype dt)
{
	return dt == DTYPE_I64 || dt == DTYPE_I32 || dt == DTYPE_I8 || dt == DTYPE_U8;
}

/* A node name not taken yet: base, or base_1, base_2, ... (arena). */
static const char *unique_node_name(struct graph *g, const char *base)
{
	size_t n = strlen(base) + 24;
	char *buf = arena_alloc(&g->arena, n);
	snprintf(buf, n, "%s", base);
	for (int k = 1;; k++) {
		int taken = 0;
		for (int i = 0; i < g->n_nodes && !taken; i++)
			taken = strcmp(g->nodes[i]->name, buf) == 0;
		if (!taken)
			return buf;
		snprintf(buf, n, "%s_%d", base, k);
	}
}

/* A tensor name built from a base and a suffix (ir_new_tensor makes it unique). */
static const char *derived_name(char *buf, size_t size, const char *base, const char *suffix)
{
	snprintf(buf, size, "%s%s", base, suffix);
	return buf;
}

/* Appends a node, then moves it right after `anchor` so the order stays
 * topological; renumbers the nodes behind it. */
static struct node *insert_node_after(struct graph *g, const struct node *anchor, enum op op,
                                      const char *name, int n_inputs,
                                      struct tensor *const *inputs, int n_outputs,
                                      struct tensor *const *outputs)
{
	struct node *n = ir_add_node(g, op, name, n_inputs, inputs, n_outputs, outputs);
	int pos = anchor->index + 1;
	memmove(&g->nodes[pos + 1], &g->nodes[pos], (size_t)(g->n_nodes - 1 - pos) * sizeof *g->nodes);
	g->nodes[pos] = n;
	for (int i = pos; i < g->n_nodes; i++)
		g->nodes[i]->index = i;
	return n;
}

/* ---- attributes -------------------------------------------------------------
 * Readers mark what they read as used (ir_attr does) and report an attribute
 * of the wrong kind; writers overwrite or add, so the canonical value is the
 * only one left. ir_add_attr moves the attribute array: never keep a struct
 * attr pointer across a write. */

static int64_t get_int(struct diag *d, struct node *n, const char *name, int64_t dflt)
{
	struct attr *a = ir_attr(n, name);
	if (!a)
		return dflt;
	if (a->kind != ATTR_INT) {
		diag_error(d, n, "attribute '%s' must be an integer", name);
		return dflt;
	}
	return a->i;
}

static double get_float(struct diag *d, struct node *n, const char *name, double dflt)
{
	struct attr *a = ir_attr(n, name);
	if (!a)
		return dflt;
	if (a->kind == ATTR_FLOAT)
		return a->f;
	if (a->kind == ATTR_INT)
		return (double)a->i;
	diag_error(d, n, "attribute '%s' must be a float", name);
	return dflt;
}

static const char *get_string(struct diag *d, struct node *n, const char *name, const char *dflt)
{
	struct attr *a = ir_attr(n, name);
	if (!a)
		return dflt;
	if (a->kind != ATTR_STRING) {
		diag_error(d, n, "attribute '%s' must be a string", name);
		return dflt;
	}
	return a->s;
}

/* Count of an ints attribute, -1 when absent, -2 (reported) when of another kind. */
static int get_ints(struct diag *d, struct node *n, const char *name, const int64_t **out)
{
	struct attr *a = ir_attr(n, name);
	*out = NULL;
	if (!a)
		return -1;
	if (a->kind != ATTR_INTS) {
		diag_error(d, n, "attribute '%s' must be a list of integers", name);
		return -2;
	}
	*out = a->ints;
	return a->n;
}

static struct attr *put_attr(struct graph *g, struct node *n, const char *name, enum attr_kind kind)
{
	struct attr *a = ir_attr(n, name);
	if (!a)
		a = ir_add_attr(g, n, name, kind);
	a->kind = kind;
	a->used = 1;
	return a;
}

static void put_int(struct graph *g, struct node *n, const char *name, int64_t v)
{
	put_attr(g, n, name, ATTR_INT)->i = v;
}

static void put_float(struct graph *g, struct node *n, const char *name, double v)
{
	put_attr(g, n, name, ATTR_FLOAT)->f = v;
}

static void put_string(struct graph *g, struct node *n, const char *name, const char *v)
{
	put_attr(g, n, name, ATTR_STRING)->s = arena_strdup(&g->arena, v);
}

static void put_ints(struct graph *g, struct node *n, const char *name, int count,
                     const int64_t *v)
{
	int64_t *copy = arena_memdup(&g->arena, v, (size_t)count * sizeof *v);
	struct attr *a = put_attr(g, n, name, ATTR_INTS);
	a->n = count;
	a->ints = copy;
}

/* Reads an ints attribute that must have `want` values, each at least `min`,
 * into out[]; fills dflt when absent. Returns 0, or 1 after reporting. */
static int read_ints(struct diag *d, struct node *n, const char *name, int want, int64_t dflt,
                     int64_t min, int sp, int64_t *out)
{
	const int64_t *v;
	int count = get_ints(d, n, name, &v);
	if (count == -2)
		return 1;
	if (count == -1) {
		for (int i = 0; i < want; i++)
			out[i] = dflt;
		return 0;
	}
	if (count != want) {
		diag_error(d, n, "%s has %d values, expected %d for a %d-D kernel", name, count, want,
		           sp);
		return 1;
	}
	for (int i = 0; i < want; i++) {
		if (v[i] < min) {
			diag_error(d, n, "%s[%d] is %" PRId64 ", expected at least %" PRId64, name, i,
			           v[i], min);
			return 1;
		}
		out[i] = v[i];
	}
	return 0;
}

/* An axis in [-rank, rank) becomes one in [0, rank). */
static int normalize_axis(struct diag *d, struct node *n, int64_t *axis, int rank)
{
	if (*axis < -rank || *axis >= rank) {
		diag_error(d, n, "axis %" PRId64 " is out of range [%d, %d]", *axis, -rank, rank - 1);
		return 1;
	}
	if (*axis < 0)
		*axis += rank;
	return 0;
}

/* ---- structural checks ----------------------------------------------------- */

static int required_inputs(enum op op)
{
	return ir_ops[op].arity;
}

/* How many leading inputs carry data the node computes on; the rest are
 * operands canonicalize moves into attributes or drops. */
static int data_inputs(const struct node *n)
{
	return ir_op_has(n->op, OPF_CONST_OPERANDS) && n->n_inputs > 1 ? 1 : n->n_inputs;
}

static int has_required_inputs(const struct node *n)
{
	int need = required_inputs(n->op);
	if (n->n_inputs < need || n->n_outputs < 1 || !n->outputs[0])
		return 0;
	for (int i = 0; i < need; i++)
		if (!n->inputs[i])
			return 0;
	return 1;
}

/* Inputs whose producers must run: all but the shape/axes operands of views. */
static int read_inputs(const struct node *n)
{
	return ir_op_kind(n->op) == OPK_VIEW && n->n_inputs > 1 ? 1 : n->n_inputs;
}

static int check_arity(struct diag *d, struct node *n)
{
	int need = required_inputs(n->op);
	if (n->n_inputs < need) {
		diag_error(d, n, "has %d inputs, expected at least %d", n->n_inputs, need);
		return 1;
	}
	for (int i = 0; i < need; i++) {
		if (!n->inputs[i]) {
			diag_error(d, n, "required input %d is missing", i);
			return 1;
		}
	}
	if (n->n_outputs < 1 || !n->outputs[0]) {
		diag_error(d, n, "has no output");
		return 1;
	}
	return 0;
}

/* Everything a node computes on is float32 and within the runtime's rank. */
static int check_tensor(struct diag *d, struct node *n, const struct tensor *t, const char *role)
{
	if (t->dtype != DTYPE_F32) {
		diag_error(d, n, "unsupported data type %s for %s '%s'", ir_dtype_names[t->dtype], role,
		           t->name);
		return 1;
	}
	if (t->rank > RT_MAX_RANK) {
		diag_error(d, n, "rank %d of %s '%s' exceeds the supported maximum of %d", t->rank,
		           role, t->name, RT_MAX_RANK);
		return 1;
	}
	return 0;
}

static int check_types(struct diag *d, struct node *n)
{
	int err = 0;
	/* Views and copies move bytes: any type the typed kernels know
	 * (typed_ops.c; emit_plan.c picks typed_copy.c or typed_concat.c). */
	if (ir_op_has(n->op, OPF_ANY_DTYPE) &&
	    n->inputs[0]->dtype != DTYPE_F32 && typed_dtype_ok(n->inputs[0]->dtype) &&
	    n->outputs[0]->dtype == n->inputs[0]->dtype) {
		for (int i = 1; n->op == OP_CONCAT && i < n->n_inputs; i++)
			if (n->inputs[i] && n->inputs[i]->dtype != n->inputs[0]->dtype) {
				diag_error(d, n, "inputs of different types");
				return 1;
			}
		return 0;
	}
	for (int i = 0; i < data_inputs(n); i++)
		if (n->inputs[i])
			err += check_tensor(d, n, n->inputs[i], "input");
	err += check_tensor(d, n, n->outputs[0], "output");
	return err;
}

/* Only the first output of n can be computed; the others must be unread,
 * and are dropped. `what` names them in the message. */
static int drop_extra_outputs(struct graph *g, struct node *n, struct diag *d, const char *what)
{
	int err = 0;
	for (int k = 1; k < n->n_outputs; k++) {
		struct tensor *t = n->outputs[k];
		if (t && n_readers(g, t)) {
			diag_error(d, n, "%s ('%s') is used, which is not supported", what, t->name);
			err++;
		}
	}
	if (err)
		return err;
	for (int k = 1; k < n->n_outputs; k++)
		if (n->outputs[k] && n->outputs[k]->producer == n)
			n->outputs[k]->producer = NULL;
	n->n_outputs = 1;
	return 0;
}

/* ---- 1. Dropout, Identity, same-type Cast ----------------------------------- */

/* The node's output is replaced by its input everywhere. A graph output keeps
 * its place in g->outputs, now naming the input tensor. */
static int remove_passthrough(struct graph *g, struct node *n, struct diag *d)
{
	if (n->op == OP_DROPOUT && drop_extra_outputs(g, n, d, "the mask output"))
		return 1;
	struct tensor *in = n->inputs[0];   /* any shape */
	struct tensor *out = n->outputs[0]; /* the same shape and contents */
	if (n->op == OP_DROPOUT) {
		/* ratio, seed and training_mode only matter in training. */
		for (int k = 0; k < n->n_attrs; k++)
			n->attrs[k].used = 1;
	}
	ir_replace_uses(g, out, in);
	n->dead = 1;
	if (out->producer == n)
		out->producer = NULL;
	return 0;
}

static int is_passthrough(struct node *n)
{
	if (n->op == OP_DROPOUT || n->op == OP_IDENTITY)
		return 1;
	if (n->op == OP_CAST && n->n_inputs >= 1 && n->inputs[0] && n->n_outputs >= 1 &&
	    n->outputs[0] && n->inputs[0]->dtype == n->outputs[0]->dtype) {
		ir_attr(n, "to");
		return 1;
	}
	return 0;
}

/* A Pad of zero on every side (after canon_pad) copies its input. */
static int is_zero_pad(struct node *n)
{
	const struct attr *a = n->op == OP_PAD && n->n_inputs == 1 ? ir_attr(n, "pads") : NULL;
	for (int k = 0; a && k < a->n; k++)
		if (a->ints[k])
			return 0;
	return a != NULL;
}

/* Drops nodes nothing reads, latest first so whole unused chains go. The
 * shape and axes operands of views do not count as reads: the inferred output
 * shape already says what they said, and canonicalize drops them. */
static void remove_unread_nodes(struct graph *g)
{
	int *reads = xcalloc(g->n_tensors ? g->n_tensors : 1, sizeof *reads);
	for (int i = 0; i < g->n_nodes; i++) {
		const struct node *n = g->nodes[i];
		if (n->dead)
			continue;
		for (int k = 0; k < read_inputs(n); k++)
			if (n->inputs[k])
				reads[n->inputs[k]->index]++;
	}
	for (int k = 0; k < g->n_outputs; k++)
		reads[g->outputs[k]->index]++;
	for (int i = g->n_nodes - 1; i >= 0; i--) {
		struct node *n = g->nodes[i];
		int read = 0, written = 0;
		if (n->dead)
			continue;
		for (int k = 0; k < n->n_outputs; k++) {
			if (n->outputs[k]) {
				written++;
				read += reads[n->outputs[k]->index];
			}
		}
		if (!written || read)
			continue;
		n->dead = 1;
		for (int k = 0; k < read_inputs(n); k++)
			if (n->inputs[k])
				reads[n->inputs[k]->index]--;
	}
	free(reads);
}

/* ---- 2. per-op canonicalisation ----------------------------------------------- */

/* Conv and pooling run on [N, C, W], [N, C, H, W] and [N, C, D, H, W]. */
static int check_spatial(struct diag *d, struct node *n, const struct tensor *x)
{
	if (x->rank >= 3 && x->rank <= 5)
		return 0;
	if (x->rank > 5)
		diag_error(d, n, "%d-D %s is not supported (only 1-D, 2-D and 3-D; input '%s' has rank "
		           "%d)",
		           x->rank - 2, n->op == OP_CONV ? "convolution" : "pooling", x->name, x->rank);
	else
		diag_error(d, n, "input '%s' has rank %d, expected [N, C, W], [N, C, H, W] or "
		           "[N, C, D, H, W]", x->name, x->rank);
	return 1;
}

/* kernel_shape, strides, dilations and pads of a Conv or pooling node, with
 * auto_pad resolved (ONNX Conv: SAME_* pads so that out = ceil(in / stride),
 * the odd pixel going to the end for SAME_UPPER and to the beginning for
 * SAME_LOWER; VALID pads nothing). w_kernel: the kernel dims from Conv's
 * weights, or NULL when kernel_shape is required. The inferred output size is
 * checked against the window: floor((in + pads - eff) / s) + 1, or with
 * ceil_mode ceil(...) + 1 less a last window that starts in the end padding. */
static int canon_window(struct graph *g, struct node *n, struct diag *d,
                        const int64_t *w_kernel, int ceil_mode)
{
	const struct tensor *x = n->inputs[0];  /* [N, C, ((D,) H,) W] */
	const struct tensor *y = n->outputs[0]; /* [N, M or C, ((oD,) oH,) oW] */
	int sp = x->rank - 2;
	int64_t kernel[3], strides[3], dilations[3], pads[6];
	const int64_t *v;
	int count = get_ints(d, n, "kernel_shape", &v);
	if (count == -2)
		return 1;
	if (count == -1 && !w_kernel) {
		diag_error(d, n, "attribute 'kernel_shape' is required");
		return 1;
	}
	if (count >= 0 && count != sp) {
		diag_error(d, n, "kernel_shape has %d values, expected %d for a %d-D kernel", count, sp,
		           sp);
		return 1;
	}
	for (int i = 0; i < sp; i++) {
		kernel[i] = count >= 0 ? v[i] : w_kernel[i];
		if (w_kernel && kernel[i] != w_kernel[i]) {
			diag_error(d, n, "kernel_shape[%d] is %" PRId64 " but the weights have %" PRId64,
			           i, kernel[i], w_kernel[i]);
			return 1;
		}
		if (kernel[i] < 1) {
			diag_error(d, n, "kernel_shape[%d] is %" PRId64 ", expected at least 1", i,
			           kernel[i]);
			return 1;
		}
	}
	if (read_ints(d, n, "strides", sp, 1, 1, sp, strides) ||
	    read_ints(d, n, "dilations", sp, 1, 1, sp, dilations) ||
	    read_ints(d, n, "pads", 2 * sp, 0, 0, sp, pads))
		return 1;

	const char *auto_pad = get_string(d, n, "auto_pad", "NOTSET");
	int same_upper = strcmp(auto_pad, "SAME_UPPER") == 0;
	int same_lower = strcmp(auto_pad, "SAME_LOWER") == 0;
	int valid = strcmp(auto_pad, "VALID") == 0;
	if (!same_upper && !same_lower && !valid && strcmp(auto_pad, "NOTSET") != 0) {
		diag_error(d, n, "auto_pad '%s' is not one of NOTSET, SAME_UPPER, SAME_LOWER, VALID",
		           auto_pad);
		return 1;
	}
	for (int i = 0; i < sp; i++) {
		int64_t in = x->dims[2 + i];
		int64_t eff = (kernel[i] - 1) * dilations[i] + 1; /* dilated kernel extent */
		if (same_upper || same_lower) {
			int64_t out = (in + strides[i] - 1) / strides[i];
			int64_t total = (out - 1) * strides[i] + eff - in;
			if (total < 0)
				total = 0;
			int64_t small = total / 2, big = total - small;
			pads[i] = same_upper ? small : big;
			pads[sp + i] = same_upper ? big : small;
		} else if (valid) {
			pads[i] = pads[sp + i] = 0;
		}
		int64_t span = in + pads[i] + pads[sp + i] - eff;
		if (span < 0) {
			diag_error(d, n,
			           "kernel extent %" PRId64 " is larger than the padded input (%" PRId64
			           ") in spatial dimension %d",
			           eff, in + pads[i] + pads[sp + i], i);
			return 1;
		}
		int64_t expect = span / strides[i] + 1;
		if (ceil_mode && !same_upper && !same_lower && !valid) {
			expect = (span + strides[i] - 1) / strides[i] + 1;
			if ((expect - 1) * strides[i] >= in + pads[i])
				expect--;
		}
		if (y->dims[2 + i] != expect) {
			diag_error(d, n,
			           "internal error: inferred output size %" PRId64 " in spatial dimension "
			           "%d disagrees with kernel, strides, dilations and pads (expected %" PRId64
			           ")",
			           y->dims[2 + i], i, expect);
			return 1;
		}
	}
	put_ints(g, n, "kernel_shape", sp, kernel);
	put_ints(g, n, "strides", sp, strides);
	put_ints(g, n, "dilations", sp, dilations);
	put_ints(g, n, "pads", 2 * sp, pads);
	if (ir_attr(n, "auto_pad"))
		put_string(g, n, "auto_pad", "NOTSET");
	return 0;
}

static int canon_conv(struct graph *g, struct node *n, struct diag *d)
{
	const struct tensor *x = n->inputs[0]; /* [N, C, (H,) W] */
	const struct tensor *w = n->inputs[1]; /* [M, C/group, (kH,) kW] */
	const struct tensor *b = n->n_inputs > 2 ? n->inputs[2] : NULL; /* [M] or absent */
	if (check_spatial(d, n, x))
		return 1;
	if (w->rank != x->rank) {
		diag_error(d, n, "weights '%s' have rank %d, expected %d", w->name, w->rank, x->rank);
		return 1;
	}
	int64_t group = get_int(d, n, "group", 1);
	if (group < 1 || x->dims[1] % group || w->dims[0] % group ||
	    w->dims[1] * group != x->dims[1]) {
		diag_error(d, n,
		           "group %" PRId64 " does not fit %" PRId64 " input channels and weights [%" PRId64
		           ", %" PRId64 ", ...] (expected C = group * W[1], M divisible by group)",
		           group, x->dims[1], w->dims[0], w->dims[1]);
		return 1;
	}
	if (b && (b->rank != 1 || b->dims[0] != w->dims[0])) {
		diag_error(d, n, "bias '%s' must have shape [%" PRId64 "]", b->name, w->dims[0]);
		return 1;
	}
	put_int(g, n, "group", group);
	return canon_window(g, n, d, &w->dims[2], 0);
}

static int canon_pool(struct graph *g, struct node *n, struct diag *d)
{
	const struct tensor *x = n->inputs[0]; /* [N, C, (H,) W] */
	if (check_spatial(d, n, x))
		return 1;
	if (n->op == OP_MAXPOOL) {
		if (drop_extra_outputs(g, n, d, "the Indices output"))
			return 1;
		/* storage_order only describes the Indices output. */
		get_int(d, n, "storage_order", 0);
	}
	int64_t ceil_mode = get_int(d, n, "ceil_mode", 0);
	int64_t cip = n->op == OP_AVGPOOL ? get_int(d, n, "count_include_pad", 0) : 0;
	if (canon_window(g, n, d, NULL, ceil_mode != 0))
		return 1;
	put_int(g, n, "count_include_pad", cip != 0);
	return 0;
}

static int canon_gemm(struct graph *g, struct node *n, struct diag *d)
{
	const struct tensor *a = n->inputs[0]; /* [M, K], or [K, M] with transA */
	const struct tensor *b = n->inputs[1]; /* [K, N], or [N, K] with transB */
	if (a->rank != 2 || b->rank != 2) {
		diag_error(d, n, "A and B must be matrices, found ranks %d and %d", a->rank, b->rank);
		return 1;
	}
	/* Before opset 7, broadcast=1 allowed C to broadcast, as it always does now. */
	get_int(d, n, "broadcast", 0);
	put_float(g, n, "alpha", get_float(d, n, "alpha", 1.0));
	put_float(g, n, "beta", get_float(d, n, "beta", 1.0));
	put_int(g, n, "transA", get_int(d, n, "transA", 0) != 0);
	put_int(g, n, "transB", get_int(d, n, "transB", 0) != 0);
	return 0;
}

/* Add/Sub/Mul/Div before opset 7: broadcast=1 with `axis` aligns B with A
 * starting at that axis, not at the end (ONNX Add-6). A constant B gets a
 * reshaped twin with trailing 1s so that numpy broadcasting does the same.
 * (infer_shapes already does this for the shapes it computes; a graph built
 * another way is handled here all the same.) */
static int canon_binary(struct graph *g, struct node *n, struct diag *d)
{
	int64_t broadcast = get_int(d, n, "broadcast", 0);
	struct attr *axis_attr = ir_attr(n, "axis");
	if (!broadcast || !axis_attr)
		return 0;
	struct tensor *a = n->inputs[0]; /* any shape */
	struct tensor *b = n->inputs[1]; /* a run of A's dims starting at axis */
	int64_t axis = get_int(d, n, "axis", 0);
	if (normalize_axis(d, n, &axis, a->rank))
		return 1;
	if (axis + b->rank == a->rank)
		return 0;
	if (axis + b->rank > a->rank) {
		diag_error(d, n, "legacy broadcast of '%s' (rank %d) at axis %" PRId64
		           " does not fit '%s' (rank %d)", b->name, b->rank, axis, a->name, a->rank);
		return 1;
	}
	if (!b->data) {
		diag_error(d, n, "legacy broadcast (axis %" PRId64 ") of the non-constant input '%s' "
		           "is not supported", axis, b->name);
		return 1;
	}
	int64_t dims[IR_MAX_RANK];
	int rank = (int)(a->rank - axis);
	for (int i = 0; i < rank; i++)
		dims[i] = i < b->rank ? b->dims[i] : 1;
	char buf[256];
	n->inputs[1] = ir_new_constant(g, derived_name(buf, sizeof buf, b->name, "_bcast"), b->dtype,
	                               rank, dims, b->data);
	return 0;
}

/* Add and Mul commute, exactly in IEEE arithmetic: the operand that has the
 * output's shape goes first when the other broadcasts, so that a
 * per-channel operand written first (torchvision's SqueezeExcitation
 * returns scale * input) reaches the per-channel kernels, which take it as
 * input 1 (nonconv.c's NC_CHAN), rather than the generic broadcasting one. */
static void full_operand_first(struct node *n)
{
	struct tensor *a = n->inputs[0], *b = n->inputs[1], *y = n->outputs[0];
	if (n->n_inputs != 2 || !a || !b || !y || b->rank != y->rank || a->dtype != b->dtype)
		return;
	int a_full = a->rank == y->rank;
	for (int i = 0; i < y->rank; i++) {
		if (b->dims[i] != y->dims[i])
			return;
		a_full = a_full && a->dims[i] == y->dims[i];
	}
	if (!a_full) {
		n->inputs[0] = b;
		n->inputs[1] = a;
	}
}

/* The opset whose rules apply: a graph that does not say (opset 0, e.g. from
 * the Caffe frontend) follows the latest, as in infer_shapes.c. */
#define OPSET_LATEST 21

static int64_t effective_opset(const struct graph *g)
{
	return g->opset > 0 ? g->opset : OPSET_LATEST;
}

static int canon_softmax(struct graph *g, struct node *n, struct diag *d)
{
	int legacy = effective_opset(g) < 13; /* Softmax-1/11 coerce the input to 2-D at axis */
	int64_t axis = get_int(d, n, "axis", legacy ? 1 : -1);
	if (normalize_axis(d, n, &axis, n->inputs[0]->rank))
		return 1;
	put_int(g, n, "axis", axis);
	if (!ir_attr(n, "coerce_2d"))
		put_int(g, n, "coerce_2d", legacy);
	return 0;
}

static int canon_concat(struct graph *g, struct node *n, struct diag *d)
{
	if (!ir_attr(n, "axis") && effective_opset(g) >= 4) {
		diag_error(d, n, "attribute 'axis' is required");
		return 1;
	}
	int64_t axis = get_int(d, n, "axis", 1); /* Concat-1 defaulted to 1 */
	if (normalize_axis(d, n, &axis, n->outputs[0]->rank))
		return 1;
	for (int i = 0; i < n->n_inputs; i++) {
		if (!n->inputs[i]) {
			diag_error(d, n, "input %d is missing", i);
			return 1;
		}
	}
	put_int(g, n, "axis", axis);
	return 0;
}

/* Views keep their data input only: the output shape says everything. */
static int canon_view(struct graph *g, struct node *n, struct diag *d)
{
	const struct tensor *x = n->inputs[0];  /* any shape */
	const struct tensor *y = n->outputs[0]; /* the same elements, another shape */
	switch (n->op) {
	case OP_FLATTEN: {
		/* Flatten's axis is in [-r, r]; a negative one counts from the back. */
		int64_t axis = get_int(d, n, "axis", 1);
		if (axis < -x->rank || axis > x->rank) {
			diag_error(d, n, "axis %" PRId64 " is out of range [%d, %d]", axis, -x->rank,
			           x->rank);
			return 1;
		}
		put_int(g, n, "axis", axis < 0 ? axis + x->rank : axis);
		break;
	}
	case OP_RESHAPE:
		ir_attr(n, "shape");     /* Reshape-1 */
		ir_attr(n, "allowzero"); /* resolved by shape inference */
		break;
	default: /* Squeeze, Unsqueeze */
		ir_attr(n, "axes");
		break;
	}
	if (ir_numel(x) != ir_numel(y)) {
		diag_error(d, n, "internal error: view changes the element count from %" PRId64
		           " to %" PRId64, ir_numel(x), ir_numel(y));
		return 1;
	}
	n->n_inputs = 1;
	return 0;
}

static int canon_transpose(struct graph *g, struct node *n, struct diag *d)
{
	int rank = n->inputs[0]->rank;
	int64_t perm[IR_MAX_RANK];
	const int64_t *v;
	int count = get_ints(d, n, "perm", &v);
	if (count == -2)
		return 1;
	if (count == -1) {
		for (int i = 0; i < rank; i++)
			perm[i] = rank - 1 - i; /* ONNX default: reverse the dimensions */
	} else {
		unsigned seen = 0;
		if (count != rank) {
			diag_error(d, n, "perm has %d values, expected %d", count, rank);
			return 1;
		}
		for (int i = 0; i < rank; i++) {
			if (v[i] < 0 || v[i] >= rank || (seen >> v[i] & 1)) {
				diag_error(d, n, "perm is not a permutation of 0..%d", rank - 1);
				return 1;
			}
			seen |= 1u << v[i];
			perm[i] = v[i];
		}
	}
	put_ints(g, n, "perm", rank, perm);
	/* A permutation that keeps the dims larger than 1 in their order moves
	 * only dims of size 1 (ViT's [197, 1, 768] -> [1, 197, 768] around every
	 * attention block): the elements stay where they are, so it is a view,
	 * a Reshape to the output's shape, and costs no copy. */
	int64_t last = -1;
	for (int i = 0; i < rank; i++) {
		if (n->inputs[0]->dims[perm[i]] == 1)
			continue;
		if (perm[i] < last)
			return 0;
		last = perm[i];
	}
	n->op = OP_RESHAPE;
	return canon_view(g, n, d);
}

/* A constant int list operand (input index, 1-D or scalar) read into v[max];
 * the count, or -1 after reporting. */
static int const_list(struct diag *d, struct node *n, int index, const char *what, int64_t *v,
                      int max)
{
	const struct tensor *t = n->inputs[index];
	if (!t->data || !is_integer_dtype(t->dtype) || ir_numel(t) > max) {
		diag_error(d, n, "%s '%s' must be a constant list of at most %d integers", what,
		           t->name, max);
		return -1;
	}
	for (int64_t i = 0; i < ir_numel(t); i++)
		v[i] = (int64_t)const_elem(t, i);
	return (int)ir_numel(t);
}

/* Slice on an activation becomes one input and two full-rank attributes:
 * starts[d], the x index of y's first element along d, and steps[d] (1 for
 * an axis not sliced), so y[i] = x[starts + i * steps]. The rules are
 * Slice-13's as in infer_shapes.c: negative starts/ends count from the back
 * and clamp to [0, dim] (positive step) or [0, dim - 1] (negative step). */
static int canon_slice(struct graph *g, struct node *n, struct diag *d)
{
	const struct tensor *x = n->inputs[0];  /* any shape */
	const struct tensor *y = n->outputs[0]; /* x's rank, the sliced lengths */
	int rank = x->rank, ns;
	int64_t starts[IR_MAX_RANK], axes[IR_MAX_RANK], steps[IR_MAX_RANK];
	int64_t first[IR_MAX_RANK] = {0}, step[IR_MAX_RANK];
	if (n->n_inputs > 1) { /* Slice-10+ */
		ns = const_list(d, n, 1, "starts", starts, IR_MAX_RANK);
		if (ns < 0)
			return 1;
		int na = ns, nst = ns;
		if (n->n_inputs > 3 && n->inputs[3])
			na = const_list(d, n, 3, "axes", axes, IR_MAX_RANK);
		else
			for (int i = 0; i < ns; i++)
				axes[i] = i;
		if (n->n_inputs > 4 && n->inputs[4])
			nst = const_list(d, n, 4, "steps", steps, IR_MAX_RANK);
		else
			for (int i = 0; i < ns; i++)
				steps[i] = 1;
		if (na < 0 || nst < 0)
			return 1;
		if (na != ns || nst != ns) {
			diag_error(d, n, "starts, axes and steps differ in length");
			return 1;
		}
	} else { /* Slice-1: attributes, step 1 */
		const int64_t *v;
		ns = get_ints(d, n, "starts", &v);
		if (ns < 0 || ns > IR_MAX_RANK) {
			diag_error(d, n, "attribute 'starts' is required");
			return 1;
		}
		memcpy(starts, v, (size_t)ns * sizeof *v);
		const int64_t *va, *vs;
		int na = get_ints(d, n, "axes", &va);
		/* steps: only in dnncc's canonical form, which is a fixed point */
		int nst = get_ints(d, n, "steps", &vs);
		for (int i = 0; i < ns; i++) {
			axes[i] = na == ns ? va[i] : i;
			steps[i] = nst == ns ? vs[i] : 1;
		}
		get_ints(d, n, "ends", &v); /* already in y's shape */
	}
	for (int i = 0; i < rank; i++)
		step[i] = 1;
	for (int i = 0; i < ns; i++) {
		if (normalize_axis(d, n, &axes[i], rank))
			return 1;
		int64_t dim = x->dims[axes[i]], b = starts[i] < 0 ? starts[i] + dim : starts[i];
		if (steps[i] > 0)
			b = b < 0 ? 0 : b > dim ? dim : b;
		else
			b = b < 0 ? 0 : b > dim - 1 ? dim - 1 : b;
		first[axes[i]] = b;
		step[axes[i]] = steps[i];
	}
	for (int i = 0; i < rank; i++) {
		int64_t last = first[i] + (y->dims[i] - 1) * step[i];
		if (y->dims[i] > 0 && (last < 0 || last >= x->dims[i])) {
			diag_error(d, n, "internal error: slice of axis %d leaves [0, %" PRId64 ")", i,
			           x->dims[i]);
			return 1;
		}
	}
	put_ints(g, n, "starts", rank, first);
	put_ints(g, n, "steps", rank, step);
	n->n_inputs = 1;
	return 0;
}

/* Split becomes one Slice per output, each in canonical form (starts at
 * the part's offset along axis, steps 1): the node itself computes output 0,
 * the others are inserted behind it. infer_shapes checked the sizes. */
static int canon_split(struct graph *g, struct node *n, struct diag *d)
{
	struct tensor *x = n->inputs[0]; /* [..., dim(axis), ...] */
	int rank = x->rank, m = n->n_outputs;
	int64_t axis = get_int(d, n, "axis", 0);
	if (normalize_axis(d, n, &axis, rank))
		return 1;
	const int64_t *unused;
	get_ints(d, n, "split", &unused); /* the sizes are the outputs' dims now */
	get_int(d, n, "num_outputs", 0);
	int64_t starts[IR_MAX_RANK] = {0}, steps[IR_MAX_RANK];
	for (int i = 0; i < rank; i++)
		steps[i] = 1;
	struct tensor **outs = arena_memdup(&g->arena, n->outputs, (size_t)m * sizeof *outs);
	struct node *prev = n;
	for (int k = 0; k < m; k++) {
		struct node *s = n;
		if (k > 0)
			s = prev = insert_node_after(g, prev, OP_SLICE, unique_node_name(g, n->name), 1,
			                             &x, 1, &outs[k]);
		put_ints(g, s, "starts", rank, starts);
		put_ints(g, s, "steps", rank, steps);
		starts[axis] += outs[k]->dims[axis];
	}
	n->op = OP_SLICE;
	n->n_inputs = 1;
	n->n_outputs = 1;
	return 0;
}

/* Resize and Upsample keep one input and spell out what the kernel needs:
 * mode (nearest or linear), coordinate_transformation_mode, nearest_mode and
 * the scales of the last two dims (the given ones, or y / x lengths when
 * sizes are given). Upsample and Resize-10 map coordinates asymmetrically and
 * take the floor for nearest (Upsample's np.repeat). Other dims must keep
 * their length; cubic, antialias, tf_* and half_pixel_symmetric modes and
 * aspect-ratio policies other than stretch are refused. */
static int canon_resize(struct graph *g, struct node *n, struct diag *d)
{
	const struct tensor *x = n->inputs[0];  /* [..., H, W] */
	const struct tensor *y = n->outputs[0]; /* [..., H', W'] */
	int r = x->rank;
	int v10 = n->op == OP_UPSAMPLE || n->n_inputs <= 2; /* Upsample, Resize-10 */
	const char *mode = get_string(d, n, "mode", "nearest");
	const char *coord = v10 ? "asymmetric"
	                        : get_string(d, n, "coordinate_transformation_mode", "half_pixel");
	const char *rounding = v10 ? "floor" : get_string(d, n, "nearest_mode", "round_prefer_floor");
	if (strcmp(mode, "bilinear") == 0 && n->op == OP_UPSAMPLE)
		mode = "linear";
	if (strcmp(mode, "nearest") != 0 && strcmp(mode, "linear") != 0 &&
	    strcmp(mode, "cubic") != 0) {
		diag_error(d, n, "%s mode '%s' is not supported (nearest, linear, cubic)",
		           ir_op_names[n->op], mode);
		return 1;
	}
	static const char *const coords[] = {"half_pixel", "pytorch_half_pixel", "asymmetric",
	                                     "align_corners", "tf_half_pixel_for_nn"};
	static const char *const roundings[] = {"round_prefer_floor", "round_prefer_ceil", "floor",
	                                        "ceil"};
	int ok_c = 0, ok_r = 0;
	for (int i = 0; i < 5; i++)
		ok_c |= strcmp(coord, coords[i]) == 0;
	for (int i = 0; i < 4; i++)
		ok_r |= strcmp(rounding, roundings[i]) == 0;
	if (!ok_c || !ok_r) {
		diag_error(d, n, "coordinate_transformation_mode '%s' with nearest_mode '%s' is not "
		           "supported", coord, rounding);
		return 1;
	}
	if (get_int(d, n, "antialias", 0) != 0 ||
	    strcmp(get_string(d, n, "keep_aspect_ratio_policy", "stretch"), "stretch") != 0) {
		diag_error(d, n, "antialias and keep_aspect_ratio_policy other than stretch are not "
		           "supported");
		return 1;
	}
	double cubic_a = get_float(d, n, "cubic_coeff_a", -0.75);
	int64_t exclude_outside = get_int(d, n, "exclude_outside", 0);
	get_float(d, n, "extrapolation_value", 0); /* tf_crop_and_resize only */
	if (r < 2) {
		diag_error(d, n, "input '%s' has rank %d, expected at least 2", x->name, r);
		return 1;
	}
	for (int i = 0; i < r - 3; i++) {
		if (x->dims[i] != y->dims[i]) {
			diag_error(d, n, "resizes dim %d of '%s'; only the last three dims are supported", i,
			           x->name);
			return 1;
		}
	}
	/* the last three dims (D, H, W); a rank-2 input has D = 1 */
	int64_t xd = r > 2 ? x->dims[r - 3] : 1, yd = r > 2 ? y->dims[r - 3] : 1;
	double sc[3] = {(double)y->dims[r - 2] / x->dims[r - 2],
	                (double)y->dims[r - 1] / x->dims[r - 1], (double)yd / xd};
	const struct attr *a = ir_attr(n, "scales");
	const struct tensor *ts = n->n_inputs == 2 ? n->inputs[1] : n->n_inputs > 2 ? n->inputs[2]
	                                                                              : NULL;
	const struct tensor *tz = n->n_inputs > 3 ? n->inputs[3] : NULL;
	int sized = tz && tz->data && ir_numel(tz) > 0;
	for (int k = 0; k < 3 && !sized; k++) {
		int dim = k < 2 ? r - 2 + k : r - 3; /* scale_h, scale_w, scale_d */
		if (dim < 0)
			continue;
		if (a && a->kind == ATTR_FLOATS && a->n == r)
			sc[k] = a->floats[dim];
		else if (ts && ts->data && ir_numel(ts) == r)
			sc[k] = const_elem(ts, dim);
	}
	put_string(g, n, "mode", mode);
	put_string(g, n, "coordinate_transformation_mode", coord);
	put_string(g, n, "nearest_mode", rounding);
	put_float(g, n, "scale_h", sc[0]);
	put_float(g, n, "scale_w", sc[1]);
	if (xd != yd || strcmp(mode, "cubic") == 0) { /* resize3d.c's cases */
		put_float(g, n, "scale_d", sc[2]);
		put_float(g, n, "cubic_coeff_a", cubic_a);
		put_int(g, n, "exclude_outside", exclude_outside != 0);
	}
	n->n_inputs = 1;
	return 0;
}

/* ConvTranspose (1-D to 3-D, shapes checked by infer_shapes) gets
 * kernel_shape, strides, dilations, group and the leading pads (one per
 * spatial dim) spelled out. With output_shape or auto_pad SAME_*, the total
 * padding that the output length implies is split as the operator page says:
 * SAME_UPPER puts the smaller half first, otherwise the larger. */
static int canon_conv_transpose(struct graph *g, struct node *n, struct diag *d)
{
	const struct tensor *x = n->inputs[0], *w = n->inputs[1], *y = n->outputs[0];
	const int sp = x->rank - 2; /* 1..3: infer_shapes checked */
	int64_t st[3] = {1, 1, 1}, dl[3] = {1, 1, 1}, op[3] = {0}, pads[6] = {0}, lead[3];
	const int64_t *v;
	if (get_ints(d, n, "strides", &v) == sp)
		memcpy(st, v, sp * sizeof *st);
	if (get_ints(d, n, "dilations", &v) == sp)
		memcpy(dl, v, sp * sizeof *dl);
	if (get_ints(d, n, "output_padding", &v) == sp)
		memcpy(op, v, sp * sizeof *op);
	if (get_ints(d, n, "pads", &v) == 2 * sp)
		memcpy(pads, v, 2 * sp * sizeof *pads);
	get_ints(d, n, "kernel_shape", &v);
	const char *ap = get_string(d, n, "auto_pad", "NOTSET");
	int by_shape = get_ints(d, n, "output_shape", &v) > 0 || strncmp(ap, "SAME", 4) == 0;
	for (int i = 0; i < sp; i++) {
		int64_t total = st[i] * (x->dims[2 + i] - 1) + op[i] + (w->dims[2 + i] - 1) * dl[i] + 1 -
		                y->dims[2 + i];
		/* total / 2 rounded down, as the page's Python does: a negative total
		 * (output_shape beyond the natural length) pads only the end */
		int64_t half = total >= 0 ? total / 2 : -((-total + 1) / 2);
		if (!by_shape)
			lead[i] = strcmp(ap, "VALID") == 0 ? 0 : pads[i];
		else if (strcmp(ap, "SAME_UPPER") == 0)
			lead[i] = half;
		else
			lead[i] = total - half;
	}
	put_ints(g, n, "kernel_shape", sp, &w->dims[2]);
	put_ints(g, n, "strides", sp, st);
	put_ints(g, n, "dilations", sp, dl);
	put_ints(g, n, "pads", sp, lead);
	put_int(g, n, "group", get_int(d, n, "group", 1));
	return 0;
}

/* Reads a scalar operand given as a constant input; 0 when absent. */
static int scalar_input(struct diag *d, struct node *n, int index, const char *what, double *out)
{
	const struct tensor *t = n->n_inputs > index ? n->inputs[index] : NULL;
	if (!t)
		return 0;
	if (!t->data) {
		diag_error(d, n, "%s from the non-constant input '%s' is not supported", what, t->name);
		return -1;
	}
	if (ir_dtype_size(t->dtype) == 0 || t->dtype == DTYPE_BOOL) {
		diag_error(d, n, "%s '%s' has unsupported data type %s", what, t->name,
		           ir_dtype_names[t->dtype]);
		return -1;
	}
	if (ir_numel(t) != 1) {
		diag_error(d, n, "%s '%s' must be a scalar, found %" PRId64 " values", what, t->name,
		           ir_numel(t));
		return -1;
	}
	*out = const_elem(t, 0);
	return 1;
}

/* A Clip bound given as input `index`: absent (0), a constant read into *out
 * (1), or a float32 scalar computed at run time (2); -1 after reporting. */
static int clip_bound(struct diag *d, struct node *n, int index, const char *what, double *out)
{
	const struct tensor *t = n->n_inputs > index ? n->inputs[index] : NULL; /* scalar */
	if (!t || t->data)
		return scalar_input(d, n, index, what, out);
	if (t->dtype != DTYPE_F32) {
		diag_error(d, n, "%s '%s' has data type %s; a bound computed at run time must be "
		           "float32", what, t->name, ir_dtype_names[t->dtype]);
		return -1;
	}
	if (ir_numel(t) != 1) {
		diag_error(d, n, "%s '%s' must be a scalar, found %" PRId64 " values", what, t->name,
		           ir_numel(t));
		return -1;
	}
	return 2;
}

/* Clip-1/6 give min and max as attributes, Clip-11+ as optional inputs;
 * absent bounds are the float range. Constant bounds become float
 * attributes; a bound computed at run time (a graph input, say) stays input
 * 1 (min) or 2 (max), the other slot NULL when that bound is an attribute,
 * and the attribute keeps the float range's end as a placeholder. */
static int canon_clip(struct graph *g, struct node *n, struct diag *d)
{
	double lo = get_float(d, n, "min", -FLT_MAX);
	double hi = get_float(d, n, "max", FLT_MAX);
	int lo_kind = clip_bound(d, n, 1, "min", &lo);
	int hi_kind = clip_bound(d, n, 2, "max", &hi);
	if (lo_kind < 0 || hi_kind < 0)
		return 1;
	if (lo_kind == 2)
		lo = -FLT_MAX;
	if (hi_kind == 2)
		hi = FLT_MAX;
	/* ONNX Clip: when min > max every value becomes max, which the epilogue
	 * v < min ? min : v > max ? max : v gives with min lowered to max
	 * (rt_clip does the same with bounds read at run time). */
	if (lo_kind != 2 && hi_kind != 2 && lo > hi)
		lo = hi;
	put_float(g, n, "min", lo);
	put_float(g, n, "max", hi);
	if (hi_kind == 2) {
		if (lo_kind != 2)
			n->inputs[1] = NULL;
		n->n_inputs = 3;
	} else {
		n->n_inputs = lo_kind == 2 ? 2 : 1;
	}
	return 0;
}

/* Pad-1 calls the attribute paddings, Pad-2 pads; Pad-11+ takes pads,
 * constant_value and (Pad-18) axes as inputs. The result is ints pads
 * (2 * rank, begins then ends) and float value, constant mode only. */
static int canon_pad(struct graph *g, struct node *n, struct diag *d)
{
	const struct tensor *x = n->inputs[0];  /* [d0, ..., d(r-1)] */
	const struct tensor *y = n->outputs[0]; /* [d0 + begin0 + end0, ...] */
	int rank = x->rank;
	int64_t pads[2 * IR_MAX_RANK] = {0};
	const char *mode = get_string(d, n, "mode", "constant");
	if (strcmp(mode, "constant") != 0 && strcmp(mode, "edge") != 0 &&
	    strcmp(mode, "reflect") != 0) {
		diag_error(d, n, "Pad mode '%s' is not supported (constant, edge, reflect)", mode);
		return 1;
	}
	put_string(g, n, "mode", mode);
	const struct tensor *tp = n->n_inputs > 1 ? n->inputs[1] : NULL; /* [2 * n_axes] ints */
	const struct tensor *taxes = n->n_inputs > 3 ? n->inputs[3] : NULL; /* [n_axes] ints */
	if (tp) {
		if (!tp->data) {
			diag_error(d, n, "pads from the non-constant input '%s' are not supported",
			           tp->name);
			return 1;
		}
		if (!is_integer_dtype(tp->dtype)) {
			diag_error(d, n, "pads '%s' must be integers, found %s", tp->name,
			           ir_dtype_names[tp->dtype]);
			return 1;
		}
		int64_t axes[IR_MAX_RANK];
		int n_axes = rank;
		for (int i = 0; i < rank; i++)
			axes[i] = i;
		if (taxes) {
			if (!taxes->data || !is_integer_dtype(taxes->dtype) || ir_numel(taxes) > rank) {
				diag_error(d, n, "axes '%s' must be a constant list of at most %d integers",
				           taxes->name, rank);
				return 1;
			}
			n_axes = (int)ir_numel(taxes);
			for (int i = 0; i < n_axes; i++) {
				axes[i] = (int64_t)const_elem(taxes, i);
				if (normalize_axis(d, n, &axes[i], rank))
					return 1;
			}
		}
		if (ir_numel(tp) != 2 * n_axes) {
			diag_error(d, n, "pads '%s' has %" PRId64 " values, expected %d", tp->name,
			           ir_numel(tp), 2 * n_axes);
			return 1;
		}
		for (int i = 0; i < n_axes; i++) {
			pads[axes[i]] = (int64_t)const_elem(tp, i);
			pads[rank + axes[i]] = (int64_t)const_elem(tp, n_axes + i);
		}
	} else {
		const int64_t *v;
		const char *name = ir_attr(n, "pads") ? "pads" : "paddings";
		int count = get_ints(d, n, name, &v);
		if (count == -2)
			return 1;
		if (count == -1) {
			diag_error(d, n, "pads are required (attribute or input)");
			return 1;
		}
		if (count != 2 * rank) {
			diag_error(d, n, "%s has %d values, expected %d for rank %d", name, count,
			           2 * rank, rank);
			return 1;
		}
		memcpy(pads, v, (size_t)count * sizeof *v);
	}
	double value = get_float(d, n, "value", 0.0);
	if (n->n_inputs > 2 && n->inputs[2]) {
		const struct tensor *tv = n->inputs[2]; /* scalar, or empty */
		if (tv->data && ir_numel(tv) == 0)
			value = 0.0; /* an empty constant_value means the default */
		else if (scalar_input(d, n, 2, "constant_value", &value) < 0)
			return 1;
	}
	for (int i = 0; i < rank; i++) {
		if (x->dims[i] + pads[i] + pads[rank + i] != y->dims[i]) {
			diag_error(d, n, "internal error: output dimension %d is %" PRId64
			           ", pads give %" PRId64, i, y->dims[i],
			           x->dims[i] + pads[i] + pads[rank + i]);
			return 1;
		}
	}
	put_ints(g, n, "pads", 2 * rank, pads);
	put_float(g, n, "value", value);
	n->n_inputs = 1;
	return 0;
}

static int canon_lrn(struct graph *g, struct node *n, struct diag *d)
{
	if (!ir_attr(n, "size")) {
		diag_error(d, n, "attribute 'size' is required");
		return 1;
	}
	int64_t size = get_int(d, n, "size", 1);
	if (size < 1) {
		diag_error(d, n, "size is %" PRId64 ", expected at least 1", size);
		return 1;
	}
	if (n->inputs[0]->rank < 3) {
		diag_error(d, n, "input '%s' has rank %d, expected [N, C, ...]", n->inputs[0]->name,
		           n->inputs[0]->rank);
		return 1;
	}
	put_float(g, n, "alpha", get_float(d, n, "alpha", 1e-4));
	put_float(g, n, "beta", get_float(d, n, "beta", 0.75));
	put_float(g, n, "bias", get_float(d, n, "bias", 1.0));
	put_int(g, n, "size", size);
	return 0;
}

/* Elementwise math with float attributes: the ONNX defaults written out
 * (ir/math_ops.def's ALPHA and BETA columns, which the backend reads),
 * Gelu's approximation checked. */
static const struct math_attr {
	enum op op;
	const char *name[2]; /* ONNX attribute names (alpha, beta), or NULL */
	double dflt[2];      /* their defaults */
} math_attrs[] = {
#define MATH(op, fn, alpha, alpha_dflt, beta, beta_dflt) {op, {alpha, beta}, {alpha_dflt, beta_dflt}},
#include "ir/math_ops.def"
#undef MATH
};

static int canon_math(struct graph *g, struct node *n, struct diag *d)
{
	for (size_t i = 0; i < sizeof math_attrs / sizeof math_attrs[0]; i++)
		for (int k = 0; k < 2; k++)
			if (math_attrs[i].op == n->op && math_attrs[i].name[k])
				put_float(g, n, math_attrs[i].name[k],
				          get_float(d, n, math_attrs[i].name[k], math_attrs[i].dflt[k]));
	if (n->op == OP_CELU && get_float(d, n, "alpha", 1.0) == 0.0) {
		diag_error(d, n, "alpha is 0; Celu divides by alpha");
		return 1;
	}
	if (n->op == OP_GELU) {
		const char *approx = get_string(d, n, "approximate", "none");
		if (strcmp(approx, "none") != 0 && strcmp(approx, "tanh") != 0) {
			diag_error(d, n, "approximate is '%s', expected 'none' or 'tanh'", approx);
			return 1;
		}
		put_string(g, n, "approximate", approx);
	}
	return 0;
}

/* Shape of a and b broadcast together (infer_shapes checked they do). */
static void bcast_shape(const struct tensor *a, const struct tensor *b, int *rank, int64_t *dims)
{
	int r = a->rank > b->rank ? a->rank : b->rank;
	for (int i = 0; i < r; i++) {
		int64_t da = i < r - a->rank ? 1 : a->dims[i - (r - a->rank)];
		int64_t db = i < r - b->rank ? 1 : b->dims[i - (r - b->rank)];
		dims[i] = da == 1 ? db : da;
	}
	*rank = r;
}

/* Variadic Max, Min, Sum and Mean become what the backend runs: a chain of
 * two-input Max/Min/Sum nodes, y = ((x0 op x1) op x2) ..., and for Mean a
 * Div of that sum by the input count (ONNX Mean: the elementwise average).
 * One input is the input itself. The node becomes the first link; the others
 * go right behind it and are visited later. */
static int canon_variadic(struct graph *g, struct node *n, struct diag *d)
{
	int k = n->n_inputs;
	int mean = n->op == OP_MEAN;
	struct tensor *y = n->outputs[0]; /* all inputs broadcast together */
	char buf[256], suffix[32];
	if (k == 1 && !mean)
		return remove_passthrough(g, n, d);
	enum op link = mean ? OP_SUM : n->op;
	struct node *last = n;
	struct tensor *acc = n->inputs[0]; /* the result so far */
	struct tensor **ins = n->inputs;
	for (int i = 1; i < k; i++) {
		struct tensor *out = y;
		if (i < k - 1 || mean) {
			int64_t dims[IR_MAX_RANK];
			int rank;
			bcast_shape(acc, ins[i], &rank, dims);
			snprintf(suffix, sizeof suffix, "_part%d", i);
			out = ir_new_tensor(g, derived_name(buf, sizeof buf, y->name, suffix), DTYPE_F32);
			ir_set_shape(out, rank, dims);
		}
		struct tensor *pair[2] = {acc, ins[i]};
		if (i == 1) {
			struct tensor **two = arena_alloc(&g->arena, 2 * sizeof *two);
			two[0] = pair[0];
			two[1] = pair[1];
			n->op = link;
			n->inputs = two;
			n->n_inputs = 2;
			n->outputs[0] = out;
			out->producer = n;
		} else {
			snprintf(suffix, sizeof suffix, "_%d", i);
			last = insert_node_after(g, last, link,
			                         unique_node_name(g, derived_name(buf, sizeof buf,
			                                                          n->name, suffix)),
			                         2, pair, 1, &out);
		}
		acc = out;
	}
	if (mean) {
		float *count = arena_alloc(&g->arena, sizeof *count);
		int64_t scalar[1] = {1}; /* unread: rank 0 */
		*count = (float)k;
		struct tensor *tk = ir_new_constant(g, derived_name(buf, sizeof buf, n->name, "_count"),
		                                    DTYPE_F32, 0, scalar, count);
		struct tensor *pair[2] = {acc, tk};
		if (k == 1) {
			/* Mean of one input: x / 1, kept as a node so y stays written. */
			struct tensor **two = arena_alloc(&g->arena, 2 * sizeof *two);
			two[0] = pair[0];
			two[1] = pair[1];
			n->op = OP_DIV;
			n->inputs = two;
			n->n_inputs = 2;
			return 0;
		}
		insert_node_after(g, last, OP_DIV,
		                  unique_node_name(g, derived_name(buf, sizeof buf, n->name, "_mean")),
		                  2, pair, 1, &y);
	}
	return 0;
}

/* Reductions: axes (attribute, or the constant input 1 infer_shapes read)
 * become the attribute "axes", normalised, ascending and never empty, and
 * "keepdims" is explicit; input 1 is dropped. noop_with_empty_axes=1 with no
 * axes is the identity (ONNX: "the output tensor would be equivalent to input
 * tensor") and goes like an Identity. */
static int canon_reduce(struct graph *g, struct node *n, struct diag *d)
{
	struct tensor *x = n->inputs[0]; /* any shape */
	const struct tensor *t = n->n_inputs > 1 ? n->inputs[1] : NULL;
	int64_t axes[IR_MAX_RANK];
	int k = 0;
	if (t) {
		if (!t->data || !is_integer_dtype(t->dtype) || ir_numel(t) > IR_MAX_RANK) {
			diag_error(d, n, "axes '%s' must be a constant list of at most %d integers",
			           t->name, IR_MAX_RANK);
			return 1;
		}
		k = (int)ir_numel(t);
		for (int i = 0; i < k; i++)
			axes[i] = (int64_t)const_elem(t, i);
	} else {
		const int64_t *v;
		int m = get_ints(d, n, "axes", &v);
		if (m == -2 || m > IR_MAX_RANK)
			return 1;
		for (int i = 0; i < m; i++)
			axes[k++] = v[i];
	}
	int64_t noop = get_int(d, n, "noop_with_empty_axes", 0);
	if (k == 0 && noop)
		return remove_passthrough(g, n, d);
	unsigned char red[IR_MAX_RANK] = {0};
	for (int i = 0; i < k; i++) {
		if (normalize_axis(d, n, &axes[i], x->rank))
			return 1;
		red[axes[i]] = 1;
	}
	int64_t sorted[IR_MAX_RANK];
	int m = 0;
	for (int i = 0; i < x->rank; i++)
		if (k == 0 || red[i])
			sorted[m++] = i;
	put_ints(g, n, "axes", m, sorted);
	put_int(g, n, "keepdims", get_int(d, n, "keepdims", 1) != 0);
	n->n_inputs = 1;
	return 0;
}

/* LayerNormalization's Mean and InvStdDev outputs, when read, are computed by
 * nodes of their own behind it (ONNX LayerNormalization's function body):
 *   Mean = ReduceMean(X, axes), InvStdDev = Reciprocal(Sqrt(ReduceMean((X -
 *   Mean)^2, axes) + epsilon)), keepdims = 1.
 * The node keeps Y only. */
static struct node *add_after(struct graph *g, struct node *after, enum op op,
                              const char *suffix, struct tensor *a, struct tensor *b,
                              struct tensor *y)
{
	char buf[256];
	struct tensor *ins[2] = {a, b};
	return insert_node_after(g, after, op,
	                         unique_node_name(g, derived_name(buf, sizeof buf, after->name,
	                                                          suffix)),
	                         b ? 2 : 1, ins, 1, &y);
}

static struct tensor *stat_tensor(struct graph *g, const struct tensor *like, const char *suffix)
{
	char buf[256];
	struct tensor *t = ir_new_tensor(g, derived_name(buf, sizeof buf, like->name, suffix),
	                                 DTYPE_F32);
	ir_set_shape(t, like->rank, like->dims);
	return t;
}

static void reduce_attrs(struct graph *g, struct node *r, int k, const int64_t *axes)
{
	put_ints(g, r, "axes", k, axes);
	put_int(g, r, "keepdims", 1);
}

static void layer_norm_stats(struct graph *g, struct node *n, int k, const int64_t *axes,
                             double eps)
{
	struct tensor *x = n->inputs[0];
	struct tensor *mean = n->n_outputs > 1 ? n->outputs[1] : NULL; /* X's dims, normalised ones 1 */
	struct tensor *inv = n->n_outputs > 2 ? n->outputs[2] : NULL;  /* like mean */
	if (mean && !n_readers(g, mean))
		mean = NULL;
	if (inv && !n_readers(g, inv))
		inv = NULL;
	for (int i = 1; i < n->n_outputs; i++)
		if (n->outputs[i] && n->outputs[i]->producer == n)
			n->outputs[i]->producer = NULL;
	n->n_outputs = 1;
	if (!mean && !inv)
		return;
	const struct tensor *like = mean ? mean : inv;
	struct tensor *m = mean ? mean : stat_tensor(g, like, "_mean");
	struct node *last = add_after(g, n, OP_REDUCE_MEAN, "_mean", x, NULL, m);
	reduce_attrs(g, last, k, axes);
	if (!inv)
		return;
	struct tensor *dev = stat_tensor(g, x, "_centred"), *sq = stat_tensor(g, x, "_squared");
	struct tensor *var = stat_tensor(g, like, "_var"), *ve = stat_tensor(g, like, "_var_eps");
	struct tensor *sd = stat_tensor(g, like, "_std");
	float *e = arena_alloc(&g->arena, sizeof *e);
	int64_t scalar[1] = {1}; /* unread: rank 0 */
	char buf[256];
	*e = (float)eps;
	struct tensor *te = ir_new_constant(g, derived_name(buf, sizeof buf, n->name, "_epsilon"),
	                                    DTYPE_F32, 0, scalar, e);
	last = add_after(g, last, OP_SUB, "_centre", x, m, dev);
	last = add_after(g, last, OP_MUL, "_square", dev, dev, sq);
	last = add_after(g, last, OP_REDUCE_MEAN, "_var", sq, NULL, var);
	reduce_attrs(g, last, k, axes);
	last = add_after(g, last, OP_ADD, "_var_eps", var, te, ve);
	last = add_after(g, last, OP_SQRT, "_std", ve, NULL, sd);
	add_after(g, last, OP_RECIPROCAL, "_inv_std", sd, NULL, inv);
}

/* Normalisations get explicit "axes" (the normalised dims, ascending) and
 * "epsilon" (ONNX defaults: 1e-5; MVN's function body adds 1e-9 to the
 * standard deviation). LayerNormalization normalises dims axis..rank-1 with
 * Scale and B of that shape (or one value); InstanceNormalization dims 2..
 * with scale and B of C values; MeanVarianceNormalization its axes
 * (default [0, 2, 3]). */
static int canon_norm(struct graph *g, struct node *n, struct diag *d)
{
	struct tensor *x = n->inputs[0]; /* [N, C, ...] for InstanceNormalization */
	int64_t axes[IR_MAX_RANK];
	int k = 0;
	if (n->op == OP_LAYER_NORM) {
		int64_t axis = get_int(d, n, "axis", -1);
		if (normalize_axis(d, n, &axis, x->rank))
			return 1;
		if (get_int(d, n, "stash_type", 1) != 1) {
			diag_error(d, n, "stash_type %" PRId64 " is not supported (only 1, float32; "
			           "dnncc computes the statistics in double)", get_int(d, n, "stash_type", 1));
			return 1;
		}
		int64_t inner = 1;
		for (int64_t i = axis; i < x->rank; i++) {
			axes[k++] = i;
			inner *= x->dims[i];
		}
		for (int i = 1; i < n->n_inputs; i++) {
			const struct tensor *t = n->inputs[i]; /* Scale, B: X's dims from axis on */
			if (t && ir_numel(t) != inner && ir_numel(t) != 1) {
				diag_error(d, n, "%s '%s' has %" PRId64 " values; only %" PRId64
				           " (X's normalised dims) or 1 are supported",
				           i == 1 ? "Scale" : "B", t->name, ir_numel(t), inner);
				return 1;
			}
		}
		put_float(g, n, "epsilon", get_float(d, n, "epsilon", 1e-5));
		layer_norm_stats(g, n, k, axes, get_float(d, n, "epsilon", 1e-5));
	} else if (n->op == OP_INSTANCE_NORM) {
		if (x->rank < 3) {
			diag_error(d, n, "input '%s' has rank %d, expected [N, C, D1, ...]", x->name,
			           x->rank);
			return 1;
		}
		for (int i = 1; i < 3; i++) {
			const struct tensor *t = n->inputs[i];
			if (ir_numel(t) != x->dims[1]) {
				diag_error(d, n, "%s '%s' has %" PRId64 " values, expected C = %" PRId64,
				           i == 1 ? "scale" : "B", t->name, ir_numel(t), x->dims[1]);
				return 1;
			}
		}
		for (int i = 2; i < x->rank; i++)
			axes[k++] = i;
		put_float(g, n, "epsilon", get_float(d, n, "epsilon", 1e-5));
	} else {
		const int64_t *v;
		int m = get_ints(d, n, "axes", &v);
		static const int64_t dflt[3] = {0, 2, 3};
		if (m == -2 || m > IR_MAX_RANK)
			return 1;
		if (m == -1) {
			v = dflt;
			m = 3;
		}
		unsigned char seen[IR_MAX_RANK] = {0};
		for (int i = 0; i < m; i++) {
			int64_t a = v[i];
			if (normalize_axis(d, n, &a, x->rank))
				return 1;
			seen[a] = 1;
		}
		for (int i = 0; i < x->rank; i++)
			if (seen[i])
				axes[k++] = i;
		if (k == 0) {
			diag_error(d, n, "axes is empty");
			return 1;
		}
		put_float(g, n, "epsilon", 1e-9);
	}
	put_ints(g, n, "axes", k, axes);
	return 0;
}

static int canon_node(struct graph *g, struct node *n, struct diag *d)
{
	if (typed_runs_typed(n)) /* integer and boolean tensors (typed_ops.c) */
		return typed_canon(g, n, d);
	if (check_arity(d, n))
		return 1;
	switch (n->op) {
	case OP_CONSTANT:
		diag_error(d, n, "Constant whose value could not be read is not supported");
		return 1;
	case OP_SHAPE:
	case OP_GATHER:
	case OP_CAST:
	case OP_CONSTANT_OF_SHAPE:
		diag_error(d, n, "%s on non-constant input is not supported", ir_op_names[n->op]);
		return 1;
	default: break;
	}
	int err = check_types(d, n);
	switch (ir_op_kind(n->op)) { /* ops.def: ops that share one hook */
	case OPK_POOL: return err + canon_pool(g, n, d);
	case OPK_SOFTMAX: return err + canon_softmax(g, n, d);
	case OPK_RESIZE: return err + canon_resize(g, n, d);
	case OPK_REDUCE: return err + canon_reduce(g, n, d);
	case OPK_NORM: return err + canon_norm(g, n, d);
	case OPK_VIEW: return err + canon_view(g, n, d);
	case OPK_MATH: return err + canon_math(g, n, d); /* math_attrs: their attributes */
	default: break;
	}
	switch (n->op) {
	case OP_CONV: err += canon_conv(g, n, d); break;
	case OP_GEMM: err += canon_gemm(g, n, d); break;
	case OP_ADD:
	case OP_SUB:
	case OP_MUL:
	case OP_DIV:
		err += canon_binary(g, n, d);
		if (!err && (n->op == OP_ADD || n->op == OP_MUL))
			full_operand_first(n);
		break;
	case OP_MATMUL:
		if (n->inputs[0]->rank < 1 || n->inputs[1]->rank < 1) {
			diag_error(d, n, "MatMul operands must have rank 1 or more");
			err++;
		}
		break;
	case OP_LEAKY_RELU: put_float(g, n, "alpha", get_float(d, n, "alpha", 0.01)); break;
	case OP_CLIP: err += canon_clip(g, n, d); break;
	case OP_GLOBAL_AVGPOOL:
	case OP_GLOBAL_MAXPOOL:
		if (n->inputs[0]->rank < 3) {
			diag_error(d, n, "input '%s' has rank %d, expected [N, C, ...] (rank 3 or more)",
			           n->inputs[0]->name, n->inputs[0]->rank);
			err++;
		}
		break;
	case OP_LRN: err += canon_lrn(g, n, d); break;
	case OP_CONCAT: err += canon_concat(g, n, d); break;
	case OP_TRANSPOSE: err += canon_transpose(g, n, d); break;
	case OP_PAD: err += canon_pad(g, n, d); break;
	case OP_SLICE: err += canon_slice(g, n, d); break;
	case OP_SPLIT: err += canon_split(g, n, d); break;
	case OP_EXPAND:
	case OP_TILE: n->n_inputs = 1; break; /* the output's shape says it all */
	case OP_SPACE_TO_DEPTH: get_int(d, n, "blocksize", 1); break; /* checked by infer_shapes */
	case OP_CONV_TRANSPOSE: err += canon_conv_transpose(g, n, d); break;
	case OP_DEPTH_TO_SPACE: {
		get_int(d, n, "blocksize", 1);
		/* DCR (the default) or CRD, written back so emission need not guess */
		const char *mode = get_string(d, n, "mode", "DCR");
		if (strcmp(mode, "DCR") != 0 && strcmp(mode, "CRD") != 0) {
			diag_error(d, n, "DepthToSpace mode '%s' is not supported (DCR or CRD)", mode);
			err++;
		} else {
			put_string(g, n, "mode", mode);
		}
		break;
	}
	case OP_MAX:
	case OP_MIN:
	case OP_SUM:
	case OP_MEAN:
		if (n->n_inputs != 2 || n->op == OP_MEAN)
			err += canon_variadic(g, n, d);
		break;
	default: break; /* Relu, Sigmoid, Tanh; BatchNormalization comes next */
	}
	return err;
}

/* ---- 3. BatchNormalization --------------------------------------------------
 * Inference form: y = (x - mean) * s + beta with s = scale / sqrt(var + eps)
 * per channel (dimension 1). Computed in double. */

struct bn_params {
	int64_t count;              /* values per parameter: C, or C*D1*...*Dn when spatial=0 */
	const struct tensor *scale; /* [count] constants, any numeric dtype */
	const struct tensor *bias;  /* [count], ONNX's B (beta) */
	const struct tensor *mean;  /* [count] */
	const struct tensor *var;   /* [count] */
	double eps;                 /* epsilon */
};

/* The end of a BatchNormalization fold into the node before it: that node
 * takes the folded weights w and bias b as inputs 1 and 2 and produces the
 * BatchNormalization's output in place of x, which is left without a
 * producer; the BatchNormalization dies. */
static void bn_fold_rewire(struct graph *g, struct node *n, struct node *bn, struct tensor *x,
                           struct tensor *w, struct tensor *b)
{
	struct tensor **inputs = arena_alloc(&g->arena, 3 * sizeof *inputs);
	inputs[0] = n->inputs[0];
	inputs[1] = w;
	inputs[2] = b;
	n->inputs = inputs;
	n->n_inputs = 3;
	n->outputs[0] = bn->outputs[0];
	bn->outputs[0]->producer = n;
	x->producer = NULL;
	bn->dead = 1;
}

/* Folding into the Conv writing x: w'[m, ...] = w[m, ...] * s[m],
 * b'[m] = (b[m] - mean[m]) * s[m] + beta[m]. The weights may be shared with
 * other nodes, so new constants are made; the old ones are left alone.
 * Returns 1 when folded. */
static int fold_into_conv(struct graph *g, struct node *bn, const struct bn_params *p,
                          const double *s)
{
	struct tensor *x = bn->inputs[0]; /* [N, M, (H,) W], written by the conv */
	struct node *conv = live_producer(x);
	if (!conv || conv->op != OP_CONV || conv->act != ACT_NONE || conv->outputs[0] != x)
		return 0;
	if (ir_use_count(g, x) != 1 || is_graph_output(g, x))
		return 0;
	struct tensor *w = conv->inputs[1]; /* [M, C/group, kH, kW] */
	struct tensor *b = conv->n_inputs > 2 ? conv->inputs[2] : NULL; /* [M] */
	int64_t m_count = p->count;
	if (!w->data || w->dtype != DTYPE_F32 || w->rank < 1 || w->dims[0] != m_count)
		return 0;
	if (b && (!b->data || b->dtype != DTYPE_F32 || ir_numel(b) != m_count))
		return 0;

	int64_t per = ir_numel(w) / m_count;
	const float *w0 = w->data;
	float *w1 = arena_alloc(&g->arena, (size_t)ir_numel(w) * sizeof *w1);
	for (int64_t m = 0; m < m_count; m++)
		for (int64_t j = 0; j < per; j++)
			w1[m * per + j] = (float)((double)w0[m * per + j] * s[m]);
	float *b1 = arena_alloc(&g->arena, (size_t)m_count * sizeof *b1);
	for (int64_t m = 0; m < m_count; m++) {
		double bm = b ? ((const float *)b->data)[m] : 0.0;
		b1[m] = (float)((bm - const_elem(p->mean, m)) * s[m] + const_elem(p->bias, m));
	}
	char buf[256];
	/* tw: like w; tb: [M] */
	struct tensor *tw = ir_new_constant(g, derived_name(buf, sizeof buf, w->name, "_bn"),
	                                    DTYPE_F32, w->rank, w->dims, w1);
	struct tensor *tb = ir_new_constant(
		g, derived_name(buf, sizeof buf, b ? b->name : conv->name, b ? "_bn" : "_bias_bn"),
		DTYPE_F32, 1, &m_count, b1);

	bn_fold_rewire(g, conv, bn, x, tw, tb);
	return 1;
}

/* Folding into the Gemm writing x ([M, N]; BatchNorm1d after Linear):
 * y = alpha A B + beta C (ONNX Gemm), so y * s + t = alpha A (B s) +
 * (beta C s + t) with s, t per output column n, t[n] = beta_bn[n] - mean[n] s[n].
 * B's column n (row n with transB) is scaled; C becomes that [N] vector and
 * beta 1. C must be absent, a scalar or one row ([N] or [1, N]); a C that
 * differs per row stays unfolded. Returns 1 when folded: the autoencoder's
 * 37 layers become 10 Gemms with a ReLU epilogue. */
static int fold_into_gemm(struct graph *g, struct node *bn, const struct bn_params *p,
                          const double *s)
{
	struct tensor *x = bn->inputs[0]; /* [M, N], written by the Gemm */
	struct node *gemm = live_producer(x);
	if (!gemm || gemm->op != OP_GEMM || gemm->act != ACT_NONE || gemm->outputs[0] != x)
		return 0;
	if (x->rank != 2 || ir_use_count(g, x) != 1 || is_graph_output(g, x))
		return 0;
	struct tensor *b = gemm->inputs[1]; /* [K, N], or [N, K] with transB */
	struct tensor *c = gemm->n_inputs > 2 ? gemm->inputs[2] : NULL; /* broadcast to [M, N] */
	int64_t n_count = p->count;
	int trans_b = ir_attr_int(gemm, "transB", 0) != 0;
	if (!b->data || b->dtype != DTYPE_F32 || b->rank != 2 || x->dims[1] != n_count ||
	    b->dims[trans_b ? 0 : 1] != n_count)
		return 0;
	if (c && (!c->data || c->dtype != DTYPE_F32 ||
	          !(ir_numel(c) == 1 || (ir_numel(c) == n_count && c->dims[c->rank - 1] == n_count))))
		return 0;

	/* alpha stays: it multiplies A (B s) as it multiplied A B */
	double beta = ir_attr_float(gemm, "beta", 1.0);
	const float *b0 = b->data;
	float *b1 = arena_alloc(&g->arena, (size_t)ir_numel(b) * sizeof *b1);
	for (int64_t r = 0; r < b->dims[0]; r++)
		for (int64_t j = 0; j < b->dims[1]; j++)
			b1[r * b->dims[1] + j] = (float)((double)b0[r * b->dims[1] + j] * s[trans_b ? r : j]);
	float *c1 = arena_alloc(&g->arena, (size_t)n_count * sizeof *c1);
	for (int64_t n = 0; n < n_count; n++) {
		double cn = c ? ((const float *)c->data)[ir_numel(c) == 1 ? 0 : n] : 0.0;
		c1[n] = (float)(beta * cn * s[n] + const_elem(p->bias, n) - const_elem(p->mean, n) * s[n]);
	}
	char buf[256];
	/* tb: like b; tc: [N] */
	struct tensor *tb = ir_new_constant(g, derived_name(buf, sizeof buf, b->name, "_bn"),
	                                    DTYPE_F32, 2, b->dims, b1);
	struct tensor *tc = ir_new_constant(
		g, derived_name(buf, sizeof buf, c ? c->name : gemm->name, c ? "_bn" : "_bias_bn"),
		DTYPE_F32, 1, &n_count, c1);

	bn_fold_rewire(g, gemm, bn, x, tb, tc);
	put_float(g, gemm, "beta", 1.0);
	return 1;
}

/* y = x * scale' + shift', constants shaped [C, 1, ..., 1] (rank - 1 dims) so
 * that ONNX broadcasting lines C up with dimension 1 ([C] for rank 2); with
 * spatial=0 the parameters keep their [C, D1, ..., Dn] shape. The node
 * becomes the Mul; the Add goes right behind it. */
static void lower_to_affine(struct graph *g, struct node *bn, const struct bn_params *p,
                            const double *s, int spatial)
{
	struct tensor *x = bn->inputs[0];  /* [N, C, D1, ..., Dn] */
	struct tensor *y = bn->outputs[0]; /* like x */
	int64_t dims[IR_MAX_RANK];
	int rank = x->rank - 1;
	for (int i = 0; i < rank; i++)
		dims[i] = spatial ? (i == 0 ? x->dims[1] : 1) : x->dims[1 + i];
	float *scale = arena_alloc(&g->arena, (size_t)p->count * sizeof *scale);
	float *shift = arena_alloc(&g->arena, (size_t)p->count * sizeof *shift);
	for (int64_t c = 0; c < p->count; c++) {
		scale[c] = (float)s[c];
		shift[c] = (float)(const_elem(p->bias, c) - const_elem(p->mean, c) * s[c]);
	}
	char buf[256];
	/* ts, tb: [C, 1, ..., 1] (or [C, D1, ..., Dn]); mid: like x */
	struct tensor *ts = ir_new_constant(g, derived_name(buf, sizeof buf, bn->name, "_scale"),
	                                    DTYPE_F32, rank, dims, scale);
	struct tensor *tb = ir_new_constant(g, derived_name(buf, sizeof buf, bn->name, "_shift"),
	                                    DTYPE_F32, rank, dims, shift);
	struct tensor *mid = ir_new_tensor(g, derived_name(buf, sizeof buf, y->name, "_scaled"),
	                                   DTYPE_F32);
	ir_set_shape(mid, x->rank, x->dims);

	struct tensor **inputs = arena_alloc(&g->arena, 2 * sizeof *inputs);
	inputs[0] = x;
	inputs[1] = ts;
	bn->op = OP_MUL;
	bn->inputs = inputs;
	bn->n_inputs = 2;
	bn->outputs[0] = mid;
	bn->n_outputs = 1;
	bn->n_attrs = 0; /* all consumed (and warned about) above */
	mid->producer = bn;
	struct tensor *add_in[2] = {mid, tb};
	insert_node_after(g, bn, OP_ADD, unique_node_name(g, derived_name(buf, sizeof buf,
	                                                                  bn->name, "_shift")),
	                  2, add_in, 1, &y);
}

static void warn_unused_attrs(struct diag *d, struct node *n);

/* Statistics that are not all constants (graph inputs, say) cannot be folded:
 * the node stays OP_BATCHNORM, run per channel by rt_batchnorm, with epsilon
 * as its only attribute. */
static int keep_batchnorm(struct graph *g, struct node *n, struct diag *d, double eps,
                          int spatial)
{
	if (!spatial) {
		diag_error(d, n, "spatial=0 (statistics per element) with statistics that are not "
		           "constants is not supported");
		return 1;
	}
	warn_unused_attrs(d, n);
	n->n_attrs = 0; /* all consumed (and warned about) above */
	put_float(g, n, "epsilon", eps);
	return 0;
}

static int canon_batchnorm(struct graph *g, struct node *n, struct diag *d)
{
	static const char *const names[5] = {"X", "scale", "B", "input_mean", "input_var"};
	struct tensor *x = n->inputs[0]; /* [N, C, D1, ..., Dn] */
	if (get_int(d, n, "training_mode", 0)) {
		diag_error(d, n, "training_mode=1 is not supported (inference only)");
		return 1;
	}
	if (drop_extra_outputs(g, n, d, "the training-mode statistics output"))
		return 1;
	/* Training-only or legacy: momentum, is_test, consumed_inputs (BN-1). */
	get_float(d, n, "momentum", 0.9);
	get_int(d, n, "is_test", 0);
	ir_attr(n, "consumed_inputs");
	struct bn_params p;
	p.eps = get_float(d, n, "epsilon", 1e-5);
	int64_t spatial = get_int(d, n, "spatial", 1); /* BN before opset 9 */
	if (x->rank < 2) {
		diag_error(d, n, "input '%s' has rank %d, expected [N, C, ...]", x->name, x->rank);
		return 1;
	}
	p.count = spatial ? x->dims[1] : ir_numel(x) / (x->dims[0] ? x->dims[0] : 1);
	int all_constant = 1;
	for (int k = 1; k < 5; k++) {
		const struct tensor *t = n->inputs[k];
		all_constant = all_constant && t->data;
		if (ir_numel(t) != p.count) {
			diag_error(d, n, "%s '%s' has %" PRId64 " values, expected %" PRId64, names[k],
			           t->name, ir_numel(t), p.count);
			return 1;
		}
	}
	if (!all_constant)
		return keep_batchnorm(g, n, d, p.eps, spatial != 0);
	p.scale = n->inputs[1];
	p.bias = n->inputs[2];
	p.mean = n->inputs[3];
	p.var = n->inputs[4];
	double *s = xmalloc((size_t)(p.count ? p.count : 1) * sizeof *s);
	for (int64_t c = 0; c < p.count; c++) {
		double v = const_elem(p.var, c) + p.eps;
		if (!(v > 0.0)) {
			diag_error(d, n, "input_var + epsilon is %g at channel %" PRId64
			           ", expected positive", v, c);
			free(s);
			return 1;
		}
		s[c] = const_elem(p.scale, c) / sqrt(v);
	}
	warn_unused_attrs(d, n);
	if (!spatial || (!fold_into_conv(g, n, &p, s) && !fold_into_gemm(g, n, &p, s)))
		lower_to_affine(g, n, &p, s, spatial != 0);
	free(s);
	return 0;
}

/* ---- 4. unused attributes ----------------------------------------------------- */

static void warn_unused_attrs(struct diag *d, struct node *n)
{
	for (int k = 0; k < n->n_attrs; k++) {
		const struct attr *a = &n->attrs[k];
		/* consumed_inputs (opset 1) was a memory-reuse hint, meaningless here. */
		if (a->used || strcmp(a->name, "consumed_inputs") == 0)
			continue;
		diag_warning(d, n, "attribute '%s' is not supported and was ignored", a->name);
	}
}

/* ---- GELU from its parts -------------------------------------------------------
 * Exporters before opset 20 (torch's nn.GELU, Hugging Face's gelu) write
 * x * Phi(x) as five nodes:
 *   u = Div(x, sqrt 2)  (or Mul(x, 1/sqrt 2))
 *   e = Erf(u)
 *   s = Add(e, 1)
 *   y = Mul(Mul(x, s), 0.5)  or  Mul(Mul(x, 0.5), s)  (operands in any order)
 * four passes over memory (and an erf) where one Gelu node does the lot.
 * The pattern becomes Gelu(x) on the last Mul's node when the constants are
 * float32 scalars of those values (within 1e-6 relative), every
 * intermediate is read once and is no graph output, and nothing broadcasts
 * (x has y's shape). */

/* Whether t is a float32 constant of one element, v within 1e-6 relative. */
static int is_scalar_const(const struct tensor *t, double v)
{
	return t && t->data && t->dtype == DTYPE_F32 && ir_numel(t) == 1 &&
	       fabs(const_elem(t, 0) - v) <= 1e-6 * fabs(v);
}

/* The operand of n (a live op node of two inputs) that is not the constant
 * v; for Div only the dividend. NULL when n is no such node. */
static struct tensor *operand_beside(const struct node *n, enum op op, double v)
{
	if (!n || n->dead || n->op != op || n->n_inputs != 2 || n->n_outputs != 1)
		return NULL;
	if (is_scalar_const(n->inputs[1], v))
		return n->inputs[0];
	if (op != OP_DIV && is_scalar_const(n->inputs[0], v))
		return n->inputs[1];
	return NULL;
}

/* Whether s = Add(Erf(x / sqrt 2), 1) with every link read once; its three
 * nodes into chain. */
static int gelu_erf_chain(const struct graph *g, struct tensor *s, const struct tensor *x,
                          struct node *chain[3])
{
	struct node *add = live_producer(s);
	struct tensor *e = operand_beside(add, OP_ADD, 1.0);
	struct node *erf = live_producer(e);
	if (!erf || erf->op != OP_ERF || erf->n_inputs != 1 || n_readers(g, s) != 1 ||
	    n_readers(g, e) != 1 || n_readers(g, erf->inputs[0]) != 1)
		return 0;
	struct node *scale = live_producer(erf->inputs[0]);
	const struct tensor *u = operand_beside(scale, OP_DIV, 1.41421356237309505);
	if (!u)
		u = operand_beside(scale, OP_MUL, 0.70710678118654752);
	if (u != x)
		return 0;
	chain[0] = scale, chain[1] = erf, chain[2] = add;
	return 1;
}

static int fuse_gelu(struct graph *g, struct node *y)
{
	if (y->dead || y->op != OP_MUL || y->n_inputs != 2 || y->n_outputs != 1 || !y->outputs[0] ||
	    y->outputs[0]->dtype != DTYPE_F32)
		return 0;
	const struct tensor *out = y->outputs[0];
	for (int k = 0; k < 2; k++) {
		struct tensor *p = y->inputs[k], *q = y->inputs[1 - k];
		struct node *m = live_producer(p), *chain[3];
		if (!m || m->op != OP_MUL || m->n_inputs != 2 || n_readers(g, p) != 1)
			continue;
		struct tensor *x = NULL;
		if (is_scalar_const(q, 0.5)) { /* y = Mul(x, s) * 0.5 */
			for (int j = 0; j < 2 && !x; j++)
				if (gelu_erf_chain(g, m->inputs[j], m->inputs[1 - j], chain))
					x = m->inputs[1 - j];
		} else { /* y = Mul(x, 0.5) * s */
			struct tensor *h = operand_beside(m, OP_MUL, 0.5);
			if (h && gelu_erf_chain(g, q, h, chain))
				x = h;
		}
		if (!x || x->dtype != DTYPE_F32 || x->rank != out->rank ||
		    memcmp(x->dims, out->dims, (size_t)x->rank * sizeof x->dims[0]) != 0)
			continue;
		for (int c = 0; c < 3; c++)
			chain[c]->dead = 1;
		m->dead = 1;
		struct tensor **in = arena_alloc(&g->arena, sizeof *in);
		in[0] = x;
		y->inputs = in;
		y->n_inputs = 1;
		y->op = OP_GELU;
		put_string(g, y, "approximate", "none");
		return 1;
	}
	return 0;
}

/* Add(MatMul(a, w), c), w a float constant [K, N] and c a float constant
 * that broadcasts along the last axis only ([N], [1, ..., N] or one value),
 * the MatMul's output read by the Add alone: a Linear layer as torch
 * exports it for inputs of rank other than 2 (a transformer's [1, tokens,
 * features]). It becomes Reshape(a) to [rows, K], Gemm with C = c, and a
 * Reshape back to the Add's shape, so that the bias joins the
 * fully-connected kernel's epilogue instead of making a pass of its own over
 * the output; the Reshapes are views. The same sums, then the same one
 * addition per element. The MatMul node becomes the first Reshape and the
 * Add the second, so the order stays topological. */
static int fuse_matmul_bias(struct graph *g, struct node *add, struct diag *d)
{
	if (add->dead || add->op != OP_ADD || add->n_inputs != 2 || add->n_outputs != 1)
		return 0;
	struct tensor *y = add->outputs[0];
	if (!y || y->dtype != DTYPE_F32 || y->rank < 1)
		return 0;
	for (int k = 0; k < 2; k++) {
		struct tensor *p = add->inputs[k], *c = add->inputs[1 - k];
		struct node *mm = live_producer(p);
		if (!mm || mm->op != OP_MATMUL || mm->n_inputs != 2 || n_readers(g, p) != 1 || !c ||
		    !c->data || c->dtype != DTYPE_F32 || c->rank > y->rank)
			continue;
		struct tensor *a = mm->inputs[0], *w = mm->inputs[1];
		if (!a || !w || !w->data || w->dtype != DTYPE_F32 || w->rank != 2 ||
		    a->dtype != DTYPE_F32 || a->rank < 1 || p->rank != y->rank ||
		    memcmp(p->dims, y->dims, (size_t)y->rank * sizeof y->dims[0]) != 0)
			continue;
		int64_t K = w->dims[0], N = w->dims[1], cn = c->rank ? c->dims[c->rank - 1] : 1;
		int ok = K >= 1 && N >= 1 && a->dims[a->rank - 1] == K && (cn == 1 || cn == N);
		for (int i = 0; ok && i + 1 < c->rank; i++)
			ok = c->dims[i] == 1;
		if (!ok)
			continue;
		char buf[256];
		struct tensor *c1 = c;
		if (c->rank != 1) {
			int64_t dims[1] = {cn};
			c1 = ir_new_constant(g, derived_name(buf, sizeof buf, c->name, "_vec"), DTYPE_F32,
			                     1, dims, c->data);
		}
		int64_t d2[2] = {ir_numel(a) / K, K}, g2[2] = {d2[0], N};
		struct tensor *a2 = ir_new_tensor(g, derived_name(buf, sizeof buf, a->name, "_rows"),
		                                  DTYPE_F32);
		ir_set_shape(a2, 2, d2);
		struct tensor *yg = ir_new_tensor(g, derived_name(buf, sizeof buf, y->name, "_gemm"),
		                                  DTYPE_F32);
		ir_set_shape(yg, 2, g2);
		struct tensor *gin[3] = {a2, w, c1};
		struct node *gemm = insert_node_after(g, mm, OP_GEMM,
		                                      unique_node_name(g, derived_name(buf, sizeof buf,
		                                                                       mm->name, "_bias")),
		                                      3, gin, 1, &yg);
		struct tensor **in = arena_alloc(&g->arena, 2 * sizeof *in);
		in[0] = a;
		in[1] = yg;
		mm->op = OP_RESHAPE;
		mm->inputs = &in[0];
		mm->n_inputs = 1;
		mm->outputs[0] = a2;
		a2->producer = mm;
		p->producer = NULL;
		add->op = OP_RESHAPE;
		add->inputs = &in[1];
		add->n_inputs = 1;
		add->n_attrs = 0;
		return canon_gemm(g, gemm, d) ? -1 : 1;
	}
	return 0;
}

/* ---- 5. activation epilogues ---------------------------------------------------
 * act(conv(x)) becomes conv(x) with an epilogue when the conv's output feeds
 * only the activation: the conv then writes the activation's output tensor,
 * so readers (and a graph output) of that tensor are unchanged. */

static int fuse_activation(struct graph *g, struct node *a)
{
	float alpha, beta;
	enum act act = ir_act_of(a, &alpha, &beta);
	if (act == ACT_NONE)
		return 0;
	/* More than one input: a Clip bound read at run time, which an epilogue's
	 * constant parameters cannot hold. */
	if (a->n_inputs != 1 || !a->inputs[0] || a->n_outputs < 1 || !a->outputs[0])
		return 0;
	struct tensor *x = a->inputs[0];  /* the conv's or gemm's output */
	struct tensor *y = a->outputs[0]; /* shaped like x */
	struct node *p = live_producer(x);
	if (!p || (p->op != OP_CONV && p->op != OP_GEMM) || p->act != ACT_NONE ||
	    p->outputs[0] != x || ir_use_count(g, x) != 1 || is_graph_output(g, x))
		return 0;
	if (x->dtype != y->dtype || x->rank != y->rank ||
	    memcmp(x->dims, y->dims, (size_t)x->rank * sizeof x->dims[0]) != 0)
		return 0;
	p->act = act;
	p->act_alpha = alpha;
	p->act_beta = beta;
	p->outputs[0] = y;
	y->producer = p;
	x->producer = NULL;
	a->dead = 1;
	return 1;
}

/* ---- 6. the pass ------------------------------------------------------------------ */

static int check_graph_io(struct graph *g, struct diag *d)
{
	int err = 0;
	for (int k = 0; k < g->n_inputs; k++) {
		const struct tensor *t = g->inputs[k];
		if (!typed_dtype_ok(t->dtype) && ir_use_count(g, t) == 0) {
			diag_error(d, NULL, "unsupported data type %s for graph input '%s'",
			           ir_dtype_names[t->dtype], t->name);
			err++;
		}
	}
	for (int k = 0; k < g->n_outputs; k++) {
		const struct tensor *t = g->outputs[k];
		if (!typed_dtype_ok(t->dtype) && !live_producer(t)) {
			diag_error(d, NULL, "unsupported data type %s for graph output '%s'",
			           ir_dtype_names[t->dtype], t->name);
			err++;
		}
	}
	return err;
}

int pass_canonicalize(struct graph *g, const struct options *opt, struct diag *d)
{
	int before = d->errors;
	(void)opt;

	for (int i = 0; i < g->n_nodes; i++) {
		struct node *n = g->nodes[i];
		if (!n->dead && n->n_inputs >= 1 && n->inputs[0] && n->n_outputs >= 1 &&
		    n->outputs[0] && is_passthrough(n))
			remove_passthrough(g, n, d);
	}
	remove_unread_nodes(g);

	for (int i = 0; i < g->n_nodes; i++)
		if (!g->nodes[i]->dead)
			canon_node(g, g->nodes[i], d);
	for (int i = 0; i < g->n_nodes; i++) /* torch puts one before AvgPool2d */
		if (!g->nodes[i]->dead && is_zero_pad(g->nodes[i]))
			remove_passthrough(g, g->nodes[i], d);

	/* The Add a lowering inserts lands behind its Mul and is skipped. */
	for (int i = 0; i < g->n_nodes; i++) {
		struct node *n = g->nodes[i];
		if (!n->dead && n->op == OP_BATCHNORM && has_required_inputs(n))
			canon_batchnorm(g, n, d);
	}

	for (int i = 0; i < g->n_nodes; i++)
		if (!g->nodes[i]->dead)
			warn_unused_attrs(d, g->nodes[i]);

	for (int i = 0; i < g->n_nodes; i++)
		fuse_gelu(g, g->nodes[i]);
	for (int i = 0; i < g->n_nodes; i++)
		fuse_matmul_bias(g, g->nodes[i], d);

	/* A residual Add folds into its conv first (fuse.c), so that an
	 * activation after the Add joins the same epilogue. */
	for (int i = 0; i < g->n_nodes; i++)
		if (!g->nodes[i]->dead && !fuse_residual(g, g->nodes[i]))
			fuse_activation(g, g->nodes[i]);

	check_graph_io(g, d);

	/* The graph outputs may now name other tensors (a removed Identity's input). */
	for (int i = 0; i < g->n_tensors; i++)
		g->tensors[i]->is_output = 0;
	for (int k = 0; k < g->n_outputs; k++)
		g->outputs[k]->is_output = 1;

	ir_compact(g);
	return d->errors - before;
}
