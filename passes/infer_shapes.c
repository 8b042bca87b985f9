/* infer_shapes.c - shape inference and constant folding, the first pass after
 * a frontend.
 *
 * Needs: a graph straight from a frontend: nodes in topological order with
 * their ONNX attributes as the model wrote them, graph inputs with fixed
 * shapes (the frontend already applied --shape), initializers as constant
 * tensors, Constant nodes still nodes.
 *
 * One walk over the nodes in order gives every output its dtype and shape by
 * the rules of the ONNX operator pages for the graph's opset (where a later
 * opset turned an attribute into an input, both forms are read), and evaluates
 * the cheap nodes whose inputs are all constant -- Constant, Shape (which needs
 * only its input's shape), Gather, Cast, Slice, Squeeze, Unsqueeze, Concat,
 * Reshape, Flatten, Identity, ConstantOfShape, Transpose and Add/Sub/Mul/Div on
 * int and float (typed_ops.c adds the comparisons, Not and Where on small
 * constants) -- into constants in the graph arena, marking those nodes dead.
 * This is what turns the Shape->Gather->Unsqueeze->Concat->Reshape chains that
 * PyTorch exports into plain constant shapes. Heavy float compute (Conv, Gemm,
 * MatMul, pooling) is never folded: it stays a node.
 *
 * Guarantees: every live tensor has a known shape whose dims are >= 1 (only
 * constants may be empty) and which holds at most 2^31 elements; otherwise an
 * error naming the node was reported, and every problem in the graph is
 * reported in the same run. Attributes stay as the model wrote them:
 * canonicalize makes them explicit. */
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "passes/passes.h"

/* Largest tensor accepted, in elements: offsets fit comfortably in every
 * index type the backend uses, and absurd shapes are refused before anything
 * is sized from them. */
#define MAX_ELEMS ((int64_t)1 << 31)
/* Largest constant the folder materialises; a bigger result stays a node. */
#define FOLD_MAX_BYTES ((size_t)1 << 28)
/* The opset assumed when the model does not say (graph->opset == 0). */
#define OPSET_DEFAULT 21

struct ctx {
	struct graph *g;
	struct diag *d;
	int64_t opset; /* default-domain opset the attribute rules follow */
	uint64_t max_bytes; /* --max-arena: the largest tensor a node may compute */
};

/* ---- messages ---------------------------------------------------------------- */

struct shape_text {
	char s[200];
};

/* "[1, 3, 224, 224]"; the temporary lives until the end of the full
 * expression (C11 6.2.4p8), long enough for a diag_error argument. */
static struct shape_text shape_text(int rank, const int64_t *dims)
{
	struct shape_text r;
	size_t k = 0;
	r.s[k++] = '[';
	for (int i = 0; i < rank && k < sizeof r.s - 32; i++)
		k += snprintf(r.s + k, sizeof r.s - k, "%s%lld", i ? ", " : "", (long long)dims[i]);
	snprintf(r.s + k, sizeof r.s - k, "]");
	return r;
}

#define SHAPE(t) (shape_text((t)->rank, (t)->dims).s)
#define DIMS(r, d) (shape_text((r), (d)).s)

/* ---- small helpers ----------------------------------------------------------- */

static struct tensor *in(const struct node *n, int i)
{
	return i < n->n_inputs ? n->inputs[i] : NULL;
}

static struct tensor *out(const struct node *n, int i)
{
	return i < n->n_outputs ? n->outputs[i] : NULL;
}

static int is_used(const struct graph *g, const struct tensor *t)
{
	return t->is_output || ir_use_count(g, t) > 0;
}

/* Every given input is a constant (has data). */
static int all_const(const struct node *n)
{
	for (int i = 0; i < n->n_inputs; i++)
		if (n->inputs[i] && !n->inputs[i]->data)
			return 0;
	return 1;
}

static int is_float(enum dtype dt)
{
	return dt == DTYPE_F32 || dt == DTYPE_F64;
}

static int is_int_index(enum dtype dt)
{
	return dt == DTYPE_I64 || dt == DTYPE_I32;
}

/* Checks the input count (`need` required ones given, at most `hi` in all)
 * and that output 0 exists while no output beyond `max_out` does. */
static int check_arity(struct ctx *c, struct node *n, int need, int hi, int max_out)
{
	if (n->n_inputs < need || n->n_inputs > hi) {
		if (need == hi)
			diag_error(c->d, n, "has %d inputs, expected %d", n->n_inputs, need);
		else if (hi == INT_MAX)
			diag_error(c->d, n, "has %d inputs, expected at least %d", n->n_inputs, need);
		else
			diag_error(c->d, n, "has %d inputs, expected %d to %d", n->n_inputs, need, hi);
		return -1;
	}
	for (int i = 0; i < need; i++) {
		if (!n->inputs[i]) {
			diag_error(c->d, n, "required input %d is missing", i);
			return -1;
		}
	}
	if (n->n_outputs < 1 || !n->outputs[0]) {
		diag_error(c->d, n, "has no output");
		return -1;
	}
	for (int i = max_out; i < n->n_outputs; i++) {
		if (n->outputs[i]) {
			diag_error(c->d, n, "has %d outputs, expected %d", n->n_outputs, max_out);
			return -1;
		}
	}
	return 0;
}

/* Normalises an axis in [-rank, rank - 1] (ONNX: negative counts from the
 * back) into [0, rank - 1]. */
static int norm_axis(struct ctx *c, struct node *n, const char *what, int64_t axis, int rank,
                     int *res)
{
	if (axis < -rank || axis >= rank) {
		diag_error(c->d, n, "%s %lld is out of range for rank %d (expected %d..%d)", what,
		           (long long)axis, rank, -rank, rank - 1);
		return -1;
	}
	*res = (int)(axis < 0 ? axis + rank : axis);
	return 0;
}

/* Normalises a list of distinct axes against `rank`; marks them in seen[]. */
static int norm_axes(struct ctx *c, struct node *n, const char *what, const int64_t *axes,
                     int k, int rank, int *res, unsigned char *seen)
{
	memset(seen, 0, IR_MAX_RANK);
	for (int i = 0; i < k; i++) {
		if (norm_axis(c, n, what, axes[i], rank, &res[i]))
			return -1;
		if (seen[res[i]]) {
			diag_error(c->d, n, "%s lists axis %lld twice", what, (long long)axes[i]);
			return -1;
		}
		seen[res[i]] = 1;
	}
	return 0;
}

/* Gives output k its dtype and shape, refusing ranks above IR_MAX_RANK,
 * negative dims and more than MAX_ELEMS elements. Empty shapes pass here;
 * the main loop refuses them unless the output became a constant. */
static int set_out(struct ctx *c, struct node *n, int k, enum dtype dt, int rank,
                   const int64_t *dims)
{
	struct tensor *t = n->outputs[k];
	if (rank > IR_MAX_RANK) {
		diag_error(c->d, n, "output '%s' would have rank %d; at most %d dimensions are supported",
		           t->name, rank, IR_MAX_RANK);
		return -1;
	}
	int64_t total = 1;
	for (int i = 0; i < rank; i++) {
		if (dims[i] < 0) {
			diag_error(c->d, n, "output '%s' would have the negative dimension %lld in %s",
			           t->name, (long long)dims[i], DIMS(rank, dims));
			return -1;
		}
		if (dims[i] > MAX_ELEMS || (dims[i] && total > MAX_ELEMS / dims[i])) {
			diag_error(c->d, n,
			           "output '%s' would have shape %s, more than 2^31 elements: too large",
			           t->name, DIMS(rank, dims));
			return -1;
		}
		total *= dims[i];
	}
	/* total <= 2^31, so the product cannot overflow. */
	uint64_t bytes = (uint64_t)total * ir_dtype_size(dt);
	if (bytes > c->max_bytes) {
		diag_error(c->d, n,
		           "output '%s' would have shape %s: %" PRIu64 " bytes, over the activation "
		           "limit of %" PRIu64 " bytes (--max-arena MiB raises it)",
		           t->name, DIMS(rank, dims), bytes, c->max_bytes);
		return -1;
	}
	t->dtype = dt;
	ir_set_shape(t, rank, dims);
	t->data = NULL;
	return 0;
}

/* ---- constant data ------------------------------------------------------------- */

static int64_t clamp_i64(int64_t v, int64_t lo, int64_t hi)
{
	return v < lo ? lo : v > hi ? hi : v;
}

/* Stores v into element i, converting as ONNX Cast does (integers wrap to
 * the target width, bool is v != 0). */
static void store_i(enum dtype dt, void *p, int64_t i, int64_t v)
{
	switch (dt) {
	case DTYPE_F32: ((float *)p)[i] = (float)v; break;
	case DTYPE_F64: ((double *)p)[i] = (double)v; break;
	case DTYPE_I64: ((int64_t *)p)[i] = v; break;
	case DTYPE_I32: ((int32_t *)p)[i] = (int32_t)(uint32_t)(uint64_t)v; break;
	case DTYPE_I8: ((int8_t *)p)[i] = (int8_t)(uint8_t)(uint64_t)v; break;
	case DTYPE_U8: ((uint8_t *)p)[i] = (uint8_t)(uint64_t)v; break;
	case DTYPE_BOOL: ((uint8_t *)p)[i] = v != 0; break;
	default: unreachable("store_i on a dtype without numbers");
	}
}

static void store_f(enum dtype dt, void *p, int64_t i, double v)
{
	switch (dt) {
	case DTYPE_F32: ((float *)p)[i] = (float)v; break;
	case DTYPE_F64: ((double *)p)[i] = v; break;
	case DTYPE_BOOL: ((uint8_t *)p)[i] = v != 0; break;
	default: store_i(dt, p, i, ir_saturate_i64(v)); break;
	}
}

/* Arena memory for a folded output; NULL when the dtype has no fixed size or
 * the result is too big to materialise (the node then stays). */
static void *fold_alloc(struct ctx *c, const struct tensor *t)
{
	size_t es = ir_dtype_size(t->dtype);
	if (!es)
		return NULL;
	size_t bytes = (size_t)ir_numel(t) * es;
	if (bytes > FOLD_MAX_BYTES)
		return NULL;
	return arena_alloc(&c->g->arena, bytes ? bytes : 1);
}

/* Output 0 is input 0's bytes under another shape (Reshape, Flatten, Squeeze,
 * Unsqueeze, Identity). */
static void fold_copy(struct ctx *c, struct node *n)
{
	struct tensor *x = n->inputs[0], *y = n->outputs[0];
	if (!all_const(n) || x->dtype != y->dtype)
		return;
	void *p = fold_alloc(c, y);
	if (!p)
		return;
	memcpy(p, x->data, ir_nbytes(y));
	y->data = p;
}

/* dst[k] = src[base + sum_d idx_d * strides[d]] for k running row-major over
 * dims[rank]; strides in elements, possibly negative (Slice, Transpose). */
static void strided_copy(void *dst, const void *src, size_t es, int rank, const int64_t *dims,
                         int64_t base, const int64_t *strides)
{
	int64_t idx[IR_MAX_RANK] = {0};
	int64_t total = 1;
	for (int i = 0; i < rank; i++)
		total *= dims[i];
	int64_t off = base;
	for (int64_t k = 0; k < total; k++) {
		memcpy((char *)dst + k * es, (const char *)src + off * es, es);
		for (int d = rank - 1; d >= 0; d--) {
			off += strides[d];
			if (++idx[d] < dims[d])
				break;
			off -= strides[d] * dims[d];
			idx[d] = 0;
		}
	}
}

/* The advice for an operand dnncc needs at compile time that is a graph
 * input: freeze it (--bind, issue 11). */
#define BIND_HINT(t) \
	((t)->is_input ? "; freeze the graph input with --bind NAME=V0,V1,... or --bind NAME=FILE.pb" \
	               : "")

/* Reads input i, a constant int64/int32 list (1-D or a scalar), into v[max].
 * Returns the count, or -1 after reporting. */
static int const_ints(struct ctx *c, struct node *n, int i, const char *what, int64_t *v,
                      int max)
{
	struct tensor *t = in(n, i);
	if (!t->data) {
		diag_error(c->d, n,
		           "%s (input %d, '%s') must be a constant, but it is computed at run time%s",
		           what, i, t->name, BIND_HINT(t));
		return -1;
	}
	if (!is_int_index(t->dtype)) {
		diag_error(c->d, n, "%s (input %d, '%s') has type %s, expected int64", what, i,
		           t->name, ir_dtype_names[t->dtype]);
		return -1;
	}
	if (t->rank > 1) {
		diag_error(c->d, n, "%s (input %d, '%s') has shape %s, expected a 1-D list", what, i,
		           t->name, SHAPE(t));
		return -1;
	}
	int64_t m = ir_numel(t);
	if (m > max) {
		diag_error(c->d, n, "%s (input %d, '%s') has %lld values, at most %d are supported",
		           what, i, t->name, (long long)m, max);
		return -1;
	}
	for (int k = 0; k < m; k++)
		v[k] = ir_elem_i(t->dtype, t->data, k);
	return (int)m;
}

/* Reads an ints attribute into v[max]. Returns the count, -2 when the
 * attribute is absent, -1 after reporting. */
static int attr_list(struct ctx *c, struct node *n, const char *name, int64_t *v, int max)
{
	struct attr *a = ir_attr(n, name);
	if (!a)
		return -2;
	if (a->kind != ATTR_INTS) {
		diag_error(c->d, n, "attribute '%s' must be a list of ints", name);
		return -1;
	}
	if (a->n > max) {
		diag_error(c->d, n, "attribute '%s' has %d values, at most %d are supported", name,
		           a->n, max);
		return -1;
	}
	for (int i = 0; i < a->n; i++)
		v[i] = a->ints[i];
	return a->n;
}

/* A numeric scalar operand (a tensor with one element) such as Clip's min. */
static int check_scalar_input(struct ctx *c, struct node *n, int i, const char *what)
{
	struct tensor *t = in(n, i);
	if (t && (t->rank > 1 || ir_numel(t) != 1)) {
		diag_error(c->d, n, "%s (input %d, '%s') has shape %s, expected a scalar", what, i,
		           t->name, SHAPE(t));
		return -1;
	}
	return 0;
}

static int same_dtype(struct ctx *c, struct node *n, const struct tensor *a,
                      const struct tensor *b)
{
	if (a->dtype != b->dtype) {
		diag_error(c->d, n, "inputs '%s' (%s) and '%s' (%s) must have the same type", a->name,
		           ir_dtype_names[a->dtype], b->name, ir_dtype_names[b->dtype]);
		return -1;
	}
	return 0;
}

/* ---- broadcasting ------------------------------------------------------------- */

/* Multidirectional (numpy) broadcasting, ONNX "Broadcasting in ONNX": shapes
 * are aligned at their last dims, and each pair must be equal or contain 1.
 * On failure *bad is the output position that disagrees. */
static int broadcast_dims(int ra, const int64_t *a, int rb, const int64_t *b, int *ro,
                          int64_t *o, int *bad)
{
	int r = ra > rb ? ra : rb;
	*ro = r;
	for (int i = 0; i < r; i++) {
		int64_t da = i < r - ra ? 1 : a[i - (r - ra)];
		int64_t db = i < r - rb ? 1 : b[i - (r - rb)];
		if (da == db || db == 1) {
			o[i] = da;
		} else if (da == 1) {
			o[i] = db;
		} else {
			*bad = i;
			return -1;
		}
	}
	return 0;
}

/* Element strides of a (rank, dims) operand read at every index of an output
 * of rank r: 0 along broadcast dims (passes.h; typed_ops.c folds with it). */
void infer_broadcast_strides(int rank, const int64_t *dims, int r, int64_t *st)
{
	int64_t s = 1;
	for (int i = r - 1; i >= 0; i--) {
		int j = i - (r - rank);
		if (j < 0 || dims[j] == 1) {
			st[i] = 0;
		} else {
			st[i] = s;
			s *= dims[j];
		}
	}
}

/* ---- Conv, Gemm, MatMul ------------------------------------------------------- */

/* One value per spatial dim (count = sp) or two (count = 2 sp, pads), each in
 * [lo, 2^31]; absent: all dflt. *given says whether the model wrote it. */
static int spatial_attr(struct ctx *c, struct node *n, const char *name, int sp, int count,
                        int64_t lo, int64_t dflt, int64_t *v, int *given)
{
	for (int i = 0; i < count; i++)
		v[i] = dflt;
	struct attr *a = ir_attr(n, name);
	if (given)
		*given = a != NULL;
	if (!a)
		return 0;
	if (a->kind != ATTR_INTS || a->n != count) {
		diag_error(c->d, n, "%s has %d values, expected %d for a %d-D kernel", name,
		           a->kind == ATTR_INTS ? a->n : 1, count, sp);
		return -1;
	}
	for (int i = 0; i < count; i++) {
		if (a->ints[i] < lo || a->ints[i] > MAX_ELEMS) {
			diag_error(c->d, n, "%s[%d] is %lld, expected %lld..2^31", name, i,
			           (long long)a->ints[i], (long long)lo);
			return -1;
		}
		v[i] = a->ints[i];
	}
	return 0;
}

enum auto_pad { PAD_NOTSET, PAD_VALID, PAD_SAME_UPPER, PAD_SAME_LOWER };

static int read_auto_pad(struct ctx *c, struct node *n, int pads_given, const int64_t *pads,
                         int count, enum auto_pad *res)
{
	const char *s = ir_attr_string(n, "auto_pad", "NOTSET");
	if (strcmp(s, "NOTSET") == 0) {
		*res = PAD_NOTSET;
	} else if (strcmp(s, "VALID") == 0) {
		*res = PAD_VALID;
	} else if (strcmp(s, "SAME_UPPER") == 0) {
		*res = PAD_SAME_UPPER;
	} else if (strcmp(s, "SAME_LOWER") == 0) {
		*res = PAD_SAME_LOWER;
	} else {
		diag_error(c->d, n,
		           "auto_pad is '%s', expected NOTSET, VALID, SAME_UPPER or SAME_LOWER", s);
		return -1;
	}
	if (*res != PAD_NOTSET && pads_given) {
		for (int i = 0; i < count; i++) {
			if (pads[i]) {
				diag_error(c->d, n, "auto_pad %s cannot be combined with non-zero pads", s);
				return -1;
			}
		}
	}
	return 0;
}

/* Output length of one spatial dim of a sliding window (Conv, pooling):
 * NOTSET: floor((in + pb + pe - dk) / s) + 1, dk = (k - 1) * dilation + 1;
 * VALID: the same without pads; SAME_*: ceil(in / s). With ceil_mode the
 * division rounds up, and a last window that would start in the end padding
 * is dropped ((out - 1) * s >= in + pb), as PyTorch and Caffe do. */
static int window_out(struct ctx *c, struct node *n, int dim, int64_t in_len, int64_t k,
                      int64_t s, int64_t dil, int64_t pb, int64_t pe, enum auto_pad ap,
                      int ceil_mode, int64_t *res)
{
	int64_t dk = (k - 1) * dil + 1;
	if (ap == PAD_SAME_UPPER || ap == PAD_SAME_LOWER) {
		*res = (in_len + s - 1) / s;
		return 0;
	}
	if (ap == PAD_VALID)
		pb = pe = 0;
	int64_t span = in_len + pb + pe;
	if (span < dk) {
		diag_error(c->d, n,
		           "spatial dim %d: input %lld with pads %lld+%lld is smaller than the "
		           "kernel %lld (dilated: %lld)",
		           dim, (long long)in_len, (long long)pb, (long long)pe, (long long)k,
		           (long long)dk);
		return -1;
	}
	int64_t o = ceil_mode ? (span - dk + s - 1) / s + 1 : (span - dk) / s + 1;
	if (ceil_mode && (o - 1) * s >= in_len + pb)
		o--;
	*res = o;
	return 0;
}

static int infer_conv(struct ctx *c, struct node *n)
{
	if (check_arity(c, n, 2, 3, 1))
		return -1;
	struct tensor *x = n->inputs[0]; /* [N, C, spatial...] */
	struct tensor *w = n->inputs[1]; /* [M, C/group, kernel...] */
	struct tensor *b = in(n, 2);     /* [M] */
	if (x->rank < 3) {
		diag_error(c->d, n, "input X '%s' has shape %s; Conv needs [N, C, spatial...]",
		           x->name, SHAPE(x));
		return -1;
	}
	if (w->rank != x->rank) {
		diag_error(c->d, n, "weights W '%s' have shape %s, expected rank %d like X %s",
		           w->name, SHAPE(w), x->rank, SHAPE(x));
		return -1;
	}
	if (same_dtype(c, n, x, w))
		return -1;
	int sp = x->rank - 2;
	int64_t group = ir_attr_int(n, "group", 1);
	int64_t ch = x->dims[1], m = w->dims[0];
	if (group < 1 || group > ch) {
		diag_error(c->d, n, "group is %lld, expected 1..%lld (the input's channels)",
		           (long long)group, (long long)ch);
		return -1;
	}
	if (w->dims[1] * group != ch) {
		diag_error(c->d, n, "input has %lld channels but weights expect %lld (group %lld)",
		           (long long)ch, (long long)(w->dims[1] * group), (long long)group);
		return -1;
	}
	if (m % group) {
		diag_error(c->d, n,
		           "weights have %lld output channels, not a multiple of group %lld",
		           (long long)m, (long long)group);
		return -1;
	}
	if (b && (b->rank != 1 || b->dims[0] != m)) {
		diag_error(c->d, n, "bias B '%s' has shape %s, expected [%lld]", b->name, SHAPE(b),
		           (long long)m);
		return -1;
	}
	int64_t ks[IR_MAX_RANK], strides[IR_MAX_RANK], dil[IR_MAX_RANK], pads[2 * IR_MAX_RANK];
	int ks_given, pads_given;
	enum auto_pad ap;
	if (spatial_attr(c, n, "kernel_shape", sp, sp, 1, 1, ks, &ks_given) ||
	    spatial_attr(c, n, "strides", sp, sp, 1, 1, strides, NULL) ||
	    spatial_attr(c, n, "dilations", sp, sp, 1, 1, dil, NULL) ||
	    spatial_attr(c, n, "pads", sp, 2 * sp, 0, 0, pads, &pads_given) ||
	    read_auto_pad(c, n, pads_given, pads, 2 * sp, &ap))
		return -1;
	for (int i = 0; ks_given && i < sp; i++) {
		if (ks[i] != w->dims[2 + i]) {
			diag_error(c->d, n, "kernel_shape %s does not match the weights' kernel %s",
			           DIMS(sp, ks), DIMS(sp, w->dims + 2));
			return -1;
		}
	}
	int64_t dims[IR_MAX_RANK];
	dims[0] = x->dims[0];
	dims[1] = m;
	for (int i = 0; i < sp; i++)
		if (window_out(c, n, i, x->dims[2 + i], w->dims[2 + i], strides[i], dil[i], pads[i],
		               pads[sp + i], ap, 0, &dims[2 + i]))
			return -1;
	return set_out(c, n, 0, x->dtype, x->rank, dims);
}

static int infer_gemm(struct ctx *c, struct node *n)
{
	if (check_arity(c, n, 2, 3, 1))
		return -1;
	struct tensor *a = n->inputs[0]; /* [M, K], or [K, M] with transA */
	struct tensor *b = n->inputs[1]; /* [K, N], or [N, K] with transB */
	struct tensor *cc = in(n, 2);    /* unidirectionally broadcastable to [M, N] */
	int64_t ta = ir_attr_int(n, "transA", 0), tb = ir_attr_int(n, "transB", 0);
	ir_attr_float(n, "alpha", 1.0);
	ir_attr_float(n, "beta", 1.0);
	if (c->opset < 7)
		ir_attr_int(n, "broadcast", 0);
	if (a->rank != 2 || b->rank != 2) {
		diag_error(c->d, n, "A '%s' is %s and B '%s' is %s; Gemm needs two matrices",
		           a->name, SHAPE(a), b->name, SHAPE(b));
		return -1;
	}
	if (same_dtype(c, n, a, b) || (cc && same_dtype(c, n, a, cc)))
		return -1;
	int64_t m = ta ? a->dims[1] : a->dims[0], ka = ta ? a->dims[0] : a->dims[1];
	int64_t kb = tb ? b->dims[1] : b->dims[0], nn = tb ? b->dims[0] : b->dims[1];
	if (ka != kb) {
		diag_error(c->d, n,
		           "A %s (transA %lld) has K = %lld but B %s (transB %lld) has K = %lld",
		           SHAPE(a), (long long)ta, (long long)ka, SHAPE(b), (long long)tb,
		           (long long)kb);
		return -1;
	}
	int64_t dims[2] = {m, nn};
	if (cc) {
		int ok = cc->rank <= 2;
		for (int i = 0; ok && i < cc->rank; i++) {
			int64_t want = dims[2 - cc->rank + i];
			ok = cc->dims[i] == 1 || cc->dims[i] == want;
		}
		if (!ok) {
			diag_error(c->d, n, "C '%s' has shape %s, which does not broadcast to [%lld, %lld]",
			           cc->name, SHAPE(cc), (long long)m, (long long)nn);
			return -1;
		}
	}
	return set_out(c, n, 0, a->dtype, 2, dims);
}

/* numpy matmul: a 1-D A is [1, K] and a 1-D B is [K, 1] with the added dim
 * removed from the result; leading (batch) dims broadcast. */
static int infer_matmul(struct ctx *c, struct node *n)
{
	if (check_arity(c, n, 2, 2, 1))
		return -1;
	struct tensor *a = n->inputs[0], *b = n->inputs[1];
	if (a->rank < 1 || b->rank < 1) {
		diag_error(c->d, n, "A '%s' is %s and B '%s' is %s; MatMul needs rank >= 1",
		           a->name, SHAPE(a), b->name, SHAPE(b));
		return -1;
	}
	if (same_dtype(c, n, a, b))
		return -1;
	int64_t m, nn, ka, kb;
	ir_matmul_dims(a, b, &m, &nn, &ka, &kb);
	if (ka != kb) {
		diag_error(c->d, n, "A %s has K = %lld but B %s has K = %lld", SHAPE(a),
		           (long long)ka, SHAPE(b), (long long)kb);
		return -1;
	}
	int ra = a->rank > 2 ? a->rank - 2 : 0, rb = b->rank > 2 ? b->rank - 2 : 0;
	int64_t dims[IR_MAX_RANK + 2];
	int r, bad;
	if (broadcast_dims(ra, a->dims, rb, b->dims, &r, dims, &bad)) {
		diag_error(c->d, n,
		           "batch dims of A %s and B %s do not broadcast (ONNX multidirectional "
		           "broadcasting)",
		           SHAPE(a), SHAPE(b));
		return -1;
	}
	if (a->rank > 1)
		dims[r++] = m;
	if (b->rank > 1)
		dims[r++] = nn;
	return set_out(c, n, 0, a->dtype, r, dims);
}

/* ---- elementwise --------------------------------------------------------------- */

/* x op y on integers; -1 on division by zero or overflow. */
static int arith_int(enum op op, int64_t x, int64_t y, int64_t *res)
{
	switch (op) {
	case OP_ADD: return __builtin_add_overflow(x, y, res) ? -1 : 0;
	case OP_SUB: return __builtin_sub_overflow(x, y, res) ? -1 : 0;
	case OP_MUL: return __builtin_mul_overflow(x, y, res) ? -1 : 0;
	case OP_DIV:
		if (y == 0 || (x == INT64_MIN && y == -1))
			return -1;
		*res = x / y;
		return 0;
	default: unreachable("arith_int on a non-arithmetic op");
	}
}

static double arith_float(enum op op, double x, double y)
{
	switch (op) {
	case OP_ADD: return x + y;
	case OP_SUB: return x - y;
	case OP_MUL: return x * y;
	case OP_DIV: return x / y;
	default: unreachable("arith_float on a non-arithmetic op");
	}
}

/* Add/Sub/Mul/Div over constants: float32 in float, float64 in double, int32
 * and int64 exactly (an overflow or a division by zero is reported). */
static int fold_binary(struct ctx *c, struct node *n, int ra, const int64_t *da, int rb,
                       const int64_t *db)
{
	struct tensor *a = n->inputs[0], *b = n->inputs[1], *y = n->outputs[0];
	enum dtype dt = y->dtype;
	if (dt != DTYPE_F32 && dt != DTYPE_F64 && dt != DTYPE_I64 && dt != DTYPE_I32)
		return 0;
	void *p = fold_alloc(c, y);
	if (!p)
		return 0;
	int r = y->rank;
	int64_t sa[IR_MAX_RANK], sb[IR_MAX_RANK], idx[IR_MAX_RANK] = {0};
	infer_broadcast_strides(ra, da, r, sa);
	infer_broadcast_strides(rb, db, r, sb);
	int64_t total = ir_numel(y), oa = 0, ob = 0;
	for (int64_t k = 0; k < total; k++) {
		if (dt == DTYPE_F32) {
			((float *)p)[k] = (float)arith_float(n->op, ((const float *)a->data)[oa],
			                                     ((const float *)b->data)[ob]);
		} else if (dt == DTYPE_F64) {
			((double *)p)[k] = arith_float(n->op, ((const double *)a->data)[oa],
			                               ((const double *)b->data)[ob]);
		} else {
			int64_t v, x = ir_elem_i(dt, a->data, oa), z = ir_elem_i(dt, b->data, ob);
			if (arith_int(n->op, x, z, &v) ||
			    (dt == DTYPE_I32 && (v < INT32_MIN || v > INT32_MAX))) {
				diag_error(c->d, n, "%s of constants %lld and %lld %s",
				           ir_op_names[n->op], (long long)x, (long long)z,
				           n->op == OP_DIV && z == 0 ? "divides by zero"
				                                     : "overflows");
				return -1;
			}
			store_i(dt, p, k, v);
		}
		for (int d = r - 1; d >= 0; d--) {
			oa += sa[d];
			ob += sb[d];
			if (++idx[d] < y->dims[d])
				break;
			oa -= sa[d] * y->dims[d];
			ob -= sb[d] * y->dims[d];
			idx[d] = 0;
		}
	}
	y->data = p;
	return 0;
}

static int infer_binary(struct ctx *c, struct node *n)
{
	if (check_arity(c, n, 2, 2, 1))
		return -1;
	struct tensor *a = n->inputs[0], *b = n->inputs[1];
	if (same_dtype(c, n, a, b))
		return -1;
	/* Before opset 7, broadcasting was opt-in (broadcast=1) and B could be
	 * aligned at any axis of A; the default alignment (at the end) is numpy
	 * broadcasting, which is all the backend does. */
	int rb = b->rank;
	int64_t db[IR_MAX_RANK];
	memcpy(db, b->dims, sizeof db);
	if (c->opset < 7) {
		int64_t bc = ir_attr_int(n, "broadcast", 0);
		struct attr *ax = ir_attr(n, "axis");
		if (!bc && (a->rank != b->rank || memcmp(a->dims, b->dims, a->rank * sizeof *a->dims))) {
			diag_error(c->d, n,
			           "shapes %s and %s differ and broadcast is not set (opset %lld)",
			           SHAPE(a), SHAPE(b), (long long)c->opset);
			return -1;
		}
		if (bc && ax && ax->kind == ATTR_INT) {
			int axis;
			if (norm_axis(c, n, "axis", ax->i, a->rank, &axis))
				return -1;
			if (axis + b->rank > a->rank) {
				diag_error(c->d, n, "B %s does not fit into A %s at axis %d", SHAPE(b),
				           SHAPE(a), axis);
				return -1;
			}
			/* B aligned at `axis` is B with trailing 1s in numpy terms. The
			 * backend broadcasts numpy-style only, so a constant B gets
			 * that shape (a copy: its data may be shared). */
			rb = a->rank - axis;
			for (int i = b->rank; i < rb; i++)
				db[i] = 1;
			if (rb != b->rank) {
				if (!b->data || !ir_dtype_size(b->dtype)) {
					diag_error(c->d, n,
					           "B '%s' is aligned at axis %d (legacy broadcast); that is "
					           "supported only for a constant B",
					           b->name, axis);
					return -1;
				}
				struct tensor *nb = ir_new_constant(
					c->g, b->name, b->dtype, rb, db,
					arena_memdup(&c->g->arena, b->data, ir_nbytes(b)));
				n->inputs[1] = b = nb;
			}
		}
	}
	int64_t dims[IR_MAX_RANK];
	int r, bad;
	if (broadcast_dims(a->rank, a->dims, rb, db, &r, dims, &bad)) {
		diag_error(c->d, n,
		           "shapes %s and %s are not broadcastable: dimension %d is %lld vs %lld "
		           "(ONNX multidirectional broadcasting needs equal dims or 1)",
		           SHAPE(a), DIMS(rb, db), bad,
		           (long long)(bad < r - a->rank ? 1 : a->dims[bad - (r - a->rank)]),
		           (long long)(bad < r - rb ? 1 : db[bad - (r - rb)]));
		return -1;
	}
	if (set_out(c, n, 0, a->dtype, r, dims))
		return -1;
	if (all_const(n))
		return fold_binary(c, n, a->rank, a->dims, rb, db);
	return 0;
}

/* Relu, LeakyRelu, Sigmoid, Tanh, Clip: the output is shaped as the input. */
static int infer_unary(struct ctx *c, struct node *n)
{
	if (n->op == OP_CLIP) {
		if (check_arity(c, n, 1, c->opset < 11 ? 1 : 3, 1))
			return -1;
		if (c->opset < 11) {
			ir_attr_float(n, "min", -INFINITY);
			ir_attr_float(n, "max", INFINITY);
		}
		if (check_scalar_input(c, n, 1, "min") || check_scalar_input(c, n, 2, "max"))
			return -1;
	} else if (check_arity(c, n, 1, 1, 1)) {
		return -1;
	}
	if (n->op == OP_LEAKY_RELU)
		ir_attr_float(n, "alpha", 0.01);
	struct tensor *x = n->inputs[0];
	if (set_out(c, n, 0, x->dtype, x->rank, x->dims))
		return -1;
	/* Neg and Abs of integer constants fold (shape arithmetic of expanded
	 * functions, e.g. LayerNormalization's -axis). */
	void *p;
	if ((n->op == OP_NEG || n->op == OP_ABS) && is_int_index(x->dtype) && all_const(n) &&
	    (p = fold_alloc(c, n->outputs[0]))) {
		for (int64_t i = 0; i < ir_numel(x); i++) {
			int64_t v = ir_elem_i(x->dtype, x->data, i);
			v = n->op == OP_NEG || v < 0 ? (int64_t)(0 - (uint64_t)v) : v;
			store_i(x->dtype, p, i, n->op == OP_ABS && v < 0 ? (int64_t)(0 - (uint64_t)v) : v);
		}
		n->outputs[0]->data = p;
	}
	return 0;
}

/* Softmax, LogSoftmax: axis defaults to 1 before opset 13 (where it starts
 * the 2-D coercion) and to -1 from 13 on. */
static int infer_softmax(struct ctx *c, struct node *n)
{
	if (check_arity(c, n, 1, 1, 1))
		return -1;
	struct tensor *x = n->inputs[0];
	int axis;
	if (x->rank < 1) {
		diag_error(c->d, n, "input '%s' is a scalar; %s needs rank >= 1", x->name,
		           ir_op_names[n->op]);
		return -1;
	}
	if (norm_axis(c, n, "axis", ir_attr_int(n, "axis", c->opset < 13 ? 1 : -1), x->rank,
	              &axis))
		return -1;
	return set_out(c, n, 0, x->dtype, x->rank, x->dims);
}

/* Inference-mode BatchNormalization: Y only. */
static int infer_batchnorm(struct ctx *c, struct node *n)
{
	for (int i = 1; i < n->n_outputs; i++) {
		if (n->outputs[i]) {
			diag_error(c->d, n,
			           "has %d outputs; only the inference output Y is supported (running "
			           "and saved mean/variance are training outputs)",
			           n->n_outputs);
			return -1;
		}
	}
	if (check_arity(c, n, 5, 5, 1))
		return -1;
	ir_attr_float(n, "epsilon", 1e-5);
	ir_attr_float(n, "momentum", 0.9);
	if (c->opset < 7)
		ir_attr_int(n, "is_test", 0);
	if (ir_attr_int(n, "training_mode", 0)) {
		diag_error(c->d, n, "training_mode is 1; only inference is supported");
		return -1;
	}
	if (c->opset < 9 && !ir_attr_int(n, "spatial", 1)) {
		diag_error(c->d, n, "spatial is 0 (per-element statistics); only spatial=1 is "
		                    "supported");
		return -1;
	}
	struct tensor *x = n->inputs[0]; /* [N, C, ...] */
	if (x->rank < 2) {
		diag_error(c->d, n, "input X '%s' has shape %s; expected [N, C, ...]", x->name,
		           SHAPE(x));
		return -1;
	}
	static const char *const names[] = {"", "scale", "B", "mean", "var"};
	for (int i = 1; i < 5; i++) {
		struct tensor *p = n->inputs[i];
		if (p->rank != 1 || p->dims[0] != x->dims[1]) {
			diag_error(c->d, n, "%s '%s' has shape %s, expected [%lld] (the channels of X)",
			           names[i], p->name, SHAPE(p), (long long)x->dims[1]);
			return -1;
		}
	}
	return set_out(c, n, 0, x->dtype, x->rank, x->dims);
}

/* ---- pooling, LRN ------------------------------------------------------------- */

static int infer_pool(struct ctx *c, struct node *n)
{
	if (n->op == OP_MAXPOOL && out(n, 1)) {
		diag_error(c->d, n, "MaxPool Indices output is not supported");
		return -1;
	}
	if (check_arity(c, n, 1, 1, 1))
		return -1;
	struct tensor *x = n->inputs[0]; /* [N, C, spatial...] */
	if (x->rank < 3) {
		diag_error(c->d, n, "input '%s' has shape %s; pooling needs [N, C, spatial...]",
		           x->name, SHAPE(x));
		return -1;
	}
	int sp = x->rank - 2;
	int64_t ks[IR_MAX_RANK], strides[IR_MAX_RANK], dil[IR_MAX_RANK], pads[2 * IR_MAX_RANK];
	int ks_given, pads_given;
	enum auto_pad ap;
	if (spatial_attr(c, n, "kernel_shape", sp, sp, 1, 1, ks, &ks_given) ||
	    spatial_attr(c, n, "strides", sp, sp, 1, 1, strides, NULL) ||
	    spatial_attr(c, n, "dilations", sp, sp, 1, 1, dil, NULL) ||
	    spatial_attr(c, n, "pads", sp, 2 * sp, 0, 0, pads, &pads_given) ||
	    read_auto_pad(c, n, pads_given, pads, 2 * sp, &ap))
		return -1;
	if (!ks_given) {
		diag_error(c->d, n, "kernel_shape is required");
		return -1;
	}
	/* A window lying wholly in the padding would have no elements (an
	 * average over nothing); onnxruntime enforces the same rule. */
	for (int i = 0; ap == PAD_NOTSET && i < 2 * sp; i++) {
		if (pads[i] >= ks[i % sp]) {
			diag_error(c->d, n, "pads[%d] is %lld; pads must be smaller than the kernel (%lld)",
			           i, (long long)pads[i], (long long)ks[i % sp]);
			return -1;
		}
	}
	int ceil_mode = ir_attr_int(n, "ceil_mode", 0) != 0;
	if (n->op == OP_MAXPOOL)
		ir_attr_int(n, "storage_order", 0);
	else
		ir_attr_int(n, "count_include_pad", 0);
	int64_t dims[IR_MAX_RANK];
	dims[0] = x->dims[0];
	dims[1] = x->dims[1];
	for (int i = 0; i < sp; i++)
		if (window_out(c, n, i, x->dims[2 + i], ks[i], strides[i], dil[i], pads[i],
		               pads[sp + i], ap, ceil_mode, &dims[2 + i]))
			return -1;
	return set_out(c, n, 0, x->dtype, x->rank, dims);
}

static int infer_global_pool(struct ctx *c, struct node *n)
{
	if (check_arity(c, n, 1, 1, 1))
		return -1;
	struct tensor *x = n->inputs[0]; /* [N, C, spatial...] -> [N, C, 1...] */
	if (x->rank < 3) {
		diag_error(c->d, n, "input '%s' has shape %s; expected [N, C, spatial...]", x->name,
		           SHAPE(x));
		return -1;
	}
	int64_t dims[IR_MAX_RANK];
	for (int i = 0; i < x->rank; i++)
		dims[i] = i < 2 ? x->dims[i] : 1;
	return set_out(c, n, 0, x->dtype, x->rank, dims);
}

static int infer_lrn(struct ctx *c, struct node *n)
{
	if (check_arity(c, n, 1, 1, 1))
		return -1;
	struct tensor *x = n->inputs[0]; /* [N, C, ...] */
	int64_t size = ir_attr_int(n, "size", 0);
	ir_attr_float(n, "alpha", 1e-4);
	ir_attr_float(n, "beta", 0.75);
	ir_attr_float(n, "bias", 1.0);
	if (size < 1) {
		diag_error(c->d, n, "size is %lld, expected a positive int (it is required)",
		           (long long)size);
		return -1;
	}
	if (x->rank < 2) {
		diag_error(c->d, n, "input '%s' has shape %s; expected [N, C, ...]", x->name,
		           SHAPE(x));
		return -1;
	}
	return set_out(c, n, 0, x->dtype, x->rank, x->dims);
}

/* ---- data movement --------------------------------------------------------------- */

static int infer_concat(struct ctx *c, struct node *n)
{
	if (check_arity(c, n, 1, INT_MAX, 1))
		return -1;
	struct tensor *x = n->inputs[0];
	struct attr *ax = ir_attr(n, "axis");
	if (c->opset >= 4 && (!ax || ax->kind != ATTR_INT)) {
		diag_error(c->d, n, "axis is required");
		return -1;
	}
	int axis;
	if (x->rank < 1) {
		diag_error(c->d, n, "input '%s' is a scalar; Concat needs rank >= 1", x->name);
		return -1;
	}
	if (norm_axis(c, n, "axis", ax && ax->kind == ATTR_INT ? ax->i : 1, x->rank, &axis))
		return -1;
	int64_t dims[IR_MAX_RANK];
	memcpy(dims, x->dims, sizeof dims);
	dims[axis] = 0;
	for (int i = 0; i < n->n_inputs; i++) {
		struct tensor *t = n->inputs[i];
		if (!t) {
			diag_error(c->d, n, "input %d is missing", i);
			return -1;
		}
		if (same_dtype(c, n, x, t))
			return -1;
		int ok = t->rank == x->rank;
		for (int k = 0; ok && k < x->rank; k++)
			ok = k == axis || t->dims[k] == x->dims[k];
		if (!ok) {
			diag_error(c->d, n,
			           "input '%s' has shape %s but '%s' has %s; all dims except axis %d "
			           "must match",
			           t->name, SHAPE(t), x->name, SHAPE(x), axis);
			return -1;
		}
		dims[axis] += t->dims[axis];
	}
	if (set_out(c, n, 0, x->dtype, x->rank, dims))
		return -1;
	struct tensor *y = n->outputs[0];
	void *p;
	if (!all_const(n) || !(p = fold_alloc(c, y)))
		return 0;
	/* Row-major: for each index of the dims before axis, the inputs' slabs
	 * follow each other. */
	size_t es = ir_dtype_size(y->dtype);
	int64_t outer = 1, inner = 1;
	for (int k = 0; k < axis; k++)
		outer *= dims[k];
	for (int k = axis + 1; k < x->rank; k++)
		inner *= dims[k];
	char *dst = p;
	for (int64_t o = 0; o < outer; o++) {
		for (int i = 0; i < n->n_inputs; i++) {
			struct tensor *t = n->inputs[i];
			size_t slab = (size_t)(t->dims[axis] * inner) * es;
			memcpy(dst, (const char *)t->data + o * slab, slab);
			dst += slab;
		}
	}
	y->data = p;
	return 0;
}

static int infer_flatten(struct ctx *c, struct node *n)
{
	if (check_arity(c, n, 1, 1, 1))
		return -1;
	struct tensor *x = n->inputs[0];
	int64_t axis = ir_attr_int(n, "axis", 1);
	if (axis < -x->rank || axis > x->rank) {
		diag_error(c->d, n, "axis %lld is out of range for rank %d (expected %d..%d)",
		           (long long)axis, x->rank, -x->rank, x->rank);
		return -1;
	}
	if (axis < 0)
		axis += x->rank;
	int64_t dims[2] = {1, 1};
	for (int i = 0; i < x->rank; i++)
		dims[i >= axis] *= x->dims[i];
	if (set_out(c, n, 0, x->dtype, 2, dims))
		return -1;
	fold_copy(c, n);
	return 0;
}

/* Reshape: 0 copies the input's dim at that position (unless allowzero), one
 * -1 takes what is left; the element count must not change. */
static int infer_reshape(struct ctx *c, struct node *n)
{
	int64_t shape[IR_MAX_RANK];
	int k;
	if (c->opset < 5) {
		if (check_arity(c, n, 1, 1, 1))
			return -1;
		k = attr_list(c, n, "shape", shape, IR_MAX_RANK);
		if (k == -2)
			diag_error(c->d, n, "attribute 'shape' is required");
	} else {
		if (check_arity(c, n, 2, 2, 1))
			return -1;
		k = const_ints(c, n, 1, "shape", shape, IR_MAX_RANK);
	}
	if (k < 0)
		return -1;
	struct tensor *x = n->inputs[0];
	int allowzero = ir_attr_int(n, "allowzero", 0) != 0;
	int infer_at = -1;
	int64_t known = 1, total = ir_numel(x);
	for (int i = 0; i < k; i++) {
		if (shape[i] == -1) {
			if (infer_at >= 0) {
				diag_error(c->d, n, "shape %s has more than one -1", DIMS(k, shape));
				return -1;
			}
			infer_at = i;
			continue;
		}
		if (shape[i] == 0 && !allowzero) {
			if (i >= x->rank) {
				diag_error(c->d, n,
				           "shape %s has 0 at position %d, but input %s has no such dim "
				           "to copy",
				           DIMS(k, shape), i, SHAPE(x));
				return -1;
			}
			shape[i] = x->dims[i];
		}
		if (shape[i] < 0 || shape[i] > MAX_ELEMS) {
			diag_error(c->d, n, "shape %s has the invalid value %lld at position %d",
			           DIMS(k, shape), (long long)shape[i], i);
			return -1;
		}
		known = known > MAX_ELEMS ? known : known * shape[i];
	}
	if (infer_at >= 0) {
		if (known == 0 || total % known) {
			diag_error(c->d, n, "cannot reshape %s (%lld elements) to %s: no value for -1 fits",
			           SHAPE(x), (long long)total, DIMS(k, shape));
			return -1;
		}
		shape[infer_at] = total / known;
	} else if (known != total) {
		diag_error(c->d, n, "cannot reshape %s (%lld elements) to %s (%lld elements)",
		           SHAPE(x), (long long)total, DIMS(k, shape), (long long)known);
		return -1;
	}
	if (set_out(c, n, 0, x->dtype, k, shape))
		return -1;
	fold_copy(c, n);
	return 0;
}

static int infer_transpose(struct ctx *c, struct node *n)
{
	if (check_arity(c, n, 1, 1, 1))
		return -1;
	struct tensor *x = n->inputs[0];
	int r = x->rank;
	int64_t perm[IR_MAX_RANK];
	int k = attr_list(c, n, "perm", perm, IR_MAX_RANK);
	if (k == -1)
		return -1;
	if (k == -2) {
		/* The default reverses the dims. */
		for (int i = 0; i < r; i++)
			perm[i] = r - 1 - i;
		k = r;
	}
	unsigned char seen[IR_MAX_RANK] = {0};
	int ok = k == r;
	for (int i = 0; ok && i < r; i++) {
		ok = perm[i] >= 0 && perm[i] < r && !seen[perm[i]];
		if (ok)
			seen[perm[i]] = 1;
	}
	if (!ok) {
		diag_error(c->d, n, "perm %s is not a permutation of the %d dims of %s",
		           DIMS(k, perm), r, SHAPE(x));
		return -1;
	}
	int64_t dims[IR_MAX_RANK], in_strides[IR_MAX_RANK], strides[IR_MAX_RANK];
	int64_t s = 1;
	for (int i = r - 1; i >= 0; i--) {
		in_strides[i] = s;
		s *= x->dims[i];
	}
	for (int i = 0; i < r; i++) {
		dims[i] = x->dims[perm[i]];
		strides[i] = in_strides[perm[i]];
	}
	if (set_out(c, n, 0, x->dtype, r, dims))
		return -1;
	struct tensor *y = n->outputs[0];
	void *p;
	if (all_const(n) && (p = fold_alloc(c, y))) {
		strided_copy(p, x->data, ir_dtype_size(y->dtype), r, dims, 0, strides);
		y->data = p;
	}
	return 0;
}

/* Squeeze and Unsqueeze take axes as an attribute before opset 13 and as an
 * optional (Squeeze) or required (Unsqueeze) constant input from 13 on.
 * Returns the count, -2 when absent, -1 after reporting. */
static int read_axes(struct ctx *c, struct node *n, int64_t *axes, int max)
{
	if (c->opset < 13) {
		if (check_arity(c, n, 1, 1, 1))
			return -1;
		return attr_list(c, n, "axes", axes, max);
	}
	if (check_arity(c, n, 1, 2, 1))
		return -1;
	if (!in(n, 1))
		return -2;
	return const_ints(c, n, 1, "axes", axes, max);
}

static int infer_squeeze(struct ctx *c, struct node *n)
{
	int64_t axes[IR_MAX_RANK];
	int k = read_axes(c, n, axes, IR_MAX_RANK);
	if (k == -1)
		return -1;
	struct tensor *x = n->inputs[0];
	unsigned char drop[IR_MAX_RANK] = {0};
	if (k == -2) {
		/* No axes: every dim of size 1 goes. */
		for (int i = 0; i < x->rank; i++)
			drop[i] = x->dims[i] == 1;
	} else {
		int ax[IR_MAX_RANK];
		if (norm_axes(c, n, "axes", axes, k, x->rank, ax, drop))
			return -1;
		for (int i = 0; i < k; i++) {
			if (x->dims[ax[i]] != 1) {
				diag_error(c->d, n,
				           "axis %d of %s has size %lld; Squeeze removes only dims of size 1",
				           ax[i], SHAPE(x), (long long)x->dims[ax[i]]);
				return -1;
			}
		}
	}
	int64_t dims[IR_MAX_RANK];
	int r = 0;
	for (int i = 0; i < x->rank; i++)
		if (!drop[i])
			dims[r++] = x->dims[i];
	if (set_out(c, n, 0, x->dtype, r, dims))
		return -1;
	fold_copy(c, n);
	return 0;
}

static int infer_unsqueeze(struct ctx *c, struct node *n)
{
	int64_t axes[IR_MAX_RANK];
	int k = read_axes(c, n, axes, IR_MAX_RANK);
	if (k == -2)
		diag_error(c->d, n, "axes is required");
	if (k < 0)
		return -1;
	struct tensor *x = n->inputs[0];
	int r = x->rank + k;
	if (r > IR_MAX_RANK) {
		diag_error(c->d, n, "output would have rank %d; at most %d dimensions are supported",
		           r, IR_MAX_RANK);
		return -1;
	}
	/* Axes count in the output's rank. */
	int ax[IR_MAX_RANK];
	unsigned char added[IR_MAX_RANK];
	if (norm_axes(c, n, "axes", axes, k, r, ax, added))
		return -1;
	int64_t dims[IR_MAX_RANK];
	for (int i = 0, j = 0; i < r; i++)
		dims[i] = added[i] ? 1 : x->dims[j++];
	if (set_out(c, n, 0, x->dtype, r, dims))
		return -1;
	fold_copy(c, n);
	return 0;
}

static int infer_pad(struct ctx *c, struct node *n)
{
	int64_t pads[2 * IR_MAX_RANK], axes[IR_MAX_RANK];
	int np, na = -2;
	if (c->opset < 11) {
		if (check_arity(c, n, 1, 1, 1))
			return -1;
		const char *name = c->opset < 2 ? "paddings" : "pads";
		np = attr_list(c, n, name, pads, 2 * IR_MAX_RANK);
		if (np == -2)
			diag_error(c->d, n, "attribute '%s' is required", name);
		ir_attr_float(n, "value", 0.0);
	} else {
		if (check_arity(c, n, 2, 4, 1))
			return -1;
		np = const_ints(c, n, 1, "pads", pads, 2 * IR_MAX_RANK);
		if (check_scalar_input(c, n, 2, "constant_value"))
			return -1;
		if (in(n, 3) && (na = const_ints(c, n, 3, "axes", axes, IR_MAX_RANK)) < 0)
			return -1;
	}
	if (np < 0)
		return -1;
	const char *mode = ir_attr_string(n, "mode", "constant");
	if (strcmp(mode, "constant") && strcmp(mode, "reflect") && strcmp(mode, "edge") &&
	    strcmp(mode, "wrap")) {
		diag_error(c->d, n, "mode is '%s', expected constant, reflect, edge or wrap", mode);
		return -1;
	}
	struct tensor *x = n->inputs[0];
	int r = x->rank;
	int ax[IR_MAX_RANK];
	unsigned char seen[IR_MAX_RANK];
	if (na < 0) {
		na = r;
		for (int i = 0; i < r; i++)
			ax[i] = i;
	} else if (norm_axes(c, n, "axes", axes, na, r, ax, seen)) {
		return -1;
	}
	if (np != 2 * na) {
		diag_error(c->d, n, "pads has %d values, expected %d (begin and end for %d axes)", np,
		           2 * na, na);
		return -1;
	}
	int64_t dims[IR_MAX_RANK];
	memcpy(dims, x->dims, sizeof dims);
	for (int i = 0; i < na; i++) {
		int64_t pb = pads[i], pe = pads[na + i], d = x->dims[ax[i]];
		if (pb < -MAX_ELEMS || pb > MAX_ELEMS || pe < -MAX_ELEMS || pe > MAX_ELEMS ||
		    d + pb + pe < 1) {
			diag_error(c->d, n, "pads %lld and %lld on axis %d of %s leave no valid size",
			           (long long)pb, (long long)pe, ax[i], SHAPE(x));
			return -1;
		}
		dims[ax[i]] = d + pb + pe;
	}
	return set_out(c, n, 0, x->dtype, r, dims);
}

/* Dropout is the identity at inference; its mask output may exist but must
 * not be read. */
static int infer_dropout(struct ctx *c, struct node *n)
{
	struct tensor *mask = out(n, 1);
	if (mask && is_used(c->g, mask)) {
		diag_error(c->d, n, "mask output '%s' is used; only inference (output 0) is "
		                    "supported", mask->name);
		return -1;
	}
	if (check_arity(c, n, 1, c->opset < 12 ? 1 : 3, 2))
		return -1;
	ir_attr_float(n, "ratio", 0.5);
	if (c->opset < 7)
		ir_attr_int(n, "is_test", 0);
	ir_attr_int(n, "seed", 0);
	struct tensor *tm = in(n, 2);
	if (tm && (!tm->data || !ir_dtype_size(tm->dtype) || ir_numel(tm) != 1 ||
	           ir_elem_i(tm->dtype, tm->data, 0))) {
		diag_error(c->d, n, "training_mode ('%s') must be a constant false; only inference "
		                    "is supported", tm->name);
		return -1;
	}
	if (check_scalar_input(c, n, 1, "ratio"))
		return -1;
	struct tensor *x = n->inputs[0];
	if (set_out(c, n, 0, x->dtype, x->rank, x->dims))
		return -1;
	return mask ? set_out(c, n, 1, DTYPE_BOOL, x->rank, x->dims) : 0;
}

static int infer_identity(struct ctx *c, struct node *n)
{
	if (check_arity(c, n, 1, 1, 1))
		return -1;
	struct tensor *x = n->inputs[0];
	if (set_out(c, n, 0, x->dtype, x->rank, x->dims))
		return -1;
	fold_copy(c, n);
	return 0;
}

/* ---- constants and shape arithmetic ---------------------------------------------- */

static int infer_constant(struct ctx *c, struct node *n)
{
	if (check_arity(c, n, 0, 0, 1))
		return -1;
	static const char *const unsupported[] = {"sparse_value", "value_string", "value_strings"};
	for (size_t i = 0; i < sizeof unsupported / sizeof unsupported[0]; i++) {
		if (ir_attr(n, unsupported[i])) {
			diag_error(c->d, n, "a Constant given by %s is not supported", unsupported[i]);
			return -1;
		}
	}
	struct attr *a = NULL;
	static const char *const names[] = {"value", "value_float", "value_floats", "value_int",
	                                    "value_ints"};
	static const enum attr_kind kinds[] = {ATTR_TENSOR, ATTR_FLOAT, ATTR_FLOATS, ATTR_INT,
	                                       ATTR_INTS};
	for (int i = 0; i < 5; i++) {
		struct attr *v = ir_attr(n, names[i]);
		if (!v)
			continue;
		if (a) {
			diag_error(c->d, n, "has both '%s' and '%s'; exactly one value is expected",
			           a->name, v->name);
			return -1;
		}
		if (v->kind != kinds[i]) {
			diag_error(c->d, n, "attribute '%s' has the wrong kind", names[i]);
			return -1;
		}
		a = v;
	}
	if (!a) {
		diag_error(c->d, n, "has no value attribute");
		return -1;
	}
	struct tensor *y = n->outputs[0];
	int64_t len;
	switch (a->kind) {
	case ATTR_TENSOR:
		if (!a->t || !a->t->data || a->t->rank < 0) {
			diag_error(c->d, n, "value tensor has no data");
			return -1;
		}
		if (set_out(c, n, 0, a->t->dtype, a->t->rank, a->t->dims))
			return -1;
		y->data = a->t->data;
		return 0;
	case ATTR_FLOAT:
		if (set_out(c, n, 0, DTYPE_F32, 0, NULL))
			return -1;
		y->data = arena_alloc(&c->g->arena, sizeof(float));
		*(float *)y->data = (float)a->f;
		return 0;
	case ATTR_INT:
		if (set_out(c, n, 0, DTYPE_I64, 0, NULL))
			return -1;
		y->data = arena_memdup(&c->g->arena, &a->i, sizeof a->i);
		return 0;
	case ATTR_FLOATS:
		len = a->n;
		if (set_out(c, n, 0, DTYPE_F32, 1, &len))
			return -1;
		y->data = arena_alloc(&c->g->arena, len ? len * sizeof(float) : 1);
		for (int i = 0; i < a->n; i++)
			((float *)y->data)[i] = (float)a->floats[i];
		return 0;
	case ATTR_INTS:
		len = a->n;
		if (set_out(c, n, 0, DTYPE_I64, 1, &len))
			return -1;
		y->data = arena_alloc(&c->g->arena, len ? len * sizeof(int64_t) : 1);
		for (int i = 0; i < a->n; i++)
			((int64_t *)y->data)[i] = a->ints[i];
		return 0;
	default: unreachable("Constant value kind");
	}
}

/* Shape needs only its input's shape, so it always folds; opset 15 adds
 * start/end, clamped to [0, rank] after counting negatives from the back. */
static int infer_shape(struct ctx *c, struct node *n)
{
	if (check_arity(c, n, 1, 1, 1))
		return -1;
	struct tensor *x = n->inputs[0];
	int64_t r = x->rank;
	int64_t start = ir_attr_int(n, "start", 0), end = ir_attr_int(n, "end", r);
	if (start < 0)
		start += r;
	if (end < 0)
		end += r;
	start = clamp_i64(start, 0, r);
	end = clamp_i64(end, 0, r);
	int64_t len = end > start ? end - start : 0;
	if (set_out(c, n, 0, DTYPE_I64, 1, &len))
		return -1;
	struct tensor *y = n->outputs[0];
	y->data = arena_alloc(&c->g->arena, len ? len * sizeof(int64_t) : 1);
	for (int64_t i = 0; i < len; i++)
		((int64_t *)y->data)[i] = x->dims[start + i];
	return 0;
}

/* Gather: out = data[:axis] + indices.shape + data[axis+1:]; negative indices
 * count from the back. */
static int infer_gather(struct ctx *c, struct node *n)
{
	if (check_arity(c, n, 2, 2, 1))
		return -1;
	struct tensor *x = n->inputs[0], *idx = n->inputs[1];
	int axis;
	if (x->rank < 1) {
		diag_error(c->d, n, "data '%s' is a scalar; Gather needs rank >= 1", x->name);
		return -1;
	}
	if (norm_axis(c, n, "axis", ir_attr_int(n, "axis", 0), x->rank, &axis))
		return -1;
	if (!is_int_index(idx->dtype)) {
		diag_error(c->d, n, "indices '%s' have type %s, expected int64 or int32", idx->name,
		           ir_dtype_names[idx->dtype]);
		return -1;
	}
	int r = x->rank - 1 + idx->rank;
	if (r > IR_MAX_RANK) {
		diag_error(c->d, n, "output would have rank %d; at most %d dimensions are supported",
		           r, IR_MAX_RANK);
		return -1;
	}
	int64_t dim = x->dims[axis], count = ir_numel(idx);
	if (idx->data) {
		for (int64_t i = 0; i < count; i++) {
			int64_t v = ir_elem_i(idx->dtype, idx->data, i);
			if (v < -dim || v >= dim) {
				diag_error(c->d, n,
				           "index %lld is out of range for axis %d of %s (expected "
				           "%lld..%lld)",
				           (long long)v, axis, SHAPE(x), (long long)-dim,
				           (long long)(dim - 1));
				return -1;
			}
		}
	}
	int64_t dims[IR_MAX_RANK];
	int k = 0;
	for (int i = 0; i < axis; i++)
		dims[k++] = x->dims[i];
	for (int i = 0; i < idx->rank; i++)
		dims[k++] = idx->dims[i];
	for (int i = axis + 1; i < x->rank; i++)
		dims[k++] = x->dims[i];
	if (set_out(c, n, 0, x->dtype, r, dims))
		return -1;
	struct tensor *y = n->outputs[0];
	void *p;
	if (!all_const(n) || !(p = fold_alloc(c, y)))
		return 0;
	size_t es = ir_dtype_size(y->dtype);
	int64_t outer = 1, inner = 1;
	for (int i = 0; i < axis; i++)
		outer *= x->dims[i];
	for (int i = axis + 1; i < x->rank; i++)
		inner *= x->dims[i];
	size_t row = (size_t)inner * es;
	char *dst = p;
	for (int64_t o = 0; o < outer; o++) {
		for (int64_t i = 0; i < count; i++) {
			int64_t v = ir_elem_i(idx->dtype, idx->data, i);
			if (v < 0)
				v += dim;
			memcpy(dst, (const char *)x->data + (o * dim + v) * row, row);
			dst += row;
		}
	}
	y->data = p;
	return 0;
}

/* ONNX TensorProto.DataType codes and names (Cast's `to`; a string before
 * opset 6). */
static const struct {
	int code;
	const char *name;
	enum dtype dtype;
} onnx_types[] = {
	{1, "FLOAT", DTYPE_F32},       {2, "UINT8", DTYPE_U8},      {3, "INT8", DTYPE_I8},
	{4, "UINT16", DTYPE_UNDEF},    {5, "INT16", DTYPE_UNDEF},   {6, "INT32", DTYPE_I32},
	{7, "INT64", DTYPE_I64},       {8, "STRING", DTYPE_UNDEF},  {9, "BOOL", DTYPE_BOOL},
	{10, "FLOAT16", DTYPE_UNDEF},  {11, "DOUBLE", DTYPE_F64},   {12, "UINT32", DTYPE_UNDEF},
	{13, "UINT64", DTYPE_UNDEF},   {14, "COMPLEX64", DTYPE_UNDEF},
	{15, "COMPLEX128", DTYPE_UNDEF}, {16, "BFLOAT16", DTYPE_UNDEF},
};

static int infer_cast(struct ctx *c, struct node *n)
{
	if (check_arity(c, n, 1, 1, 1))
		return -1;
	struct attr *a = ir_attr(n, "to");
	int found = -1;
	for (size_t i = 0; a && i < sizeof onnx_types / sizeof onnx_types[0]; i++)
		if ((a->kind == ATTR_INT && a->i == onnx_types[i].code) ||
		    (a->kind == ATTR_STRING && strcmp(a->s, onnx_types[i].name) == 0))
			found = (int)i;
	if (!a) {
		diag_error(c->d, n, "attribute 'to' is required");
		return -1;
	}
	if (found < 0 || onnx_types[found].dtype == DTYPE_UNDEF) {
		if (found < 0 && a->kind == ATTR_INT)
			diag_error(c->d, n, "Cast to ONNX type %lld is not supported", (long long)a->i);
		else
			diag_error(c->d, n, "Cast to %s is not supported",
			           found >= 0 ? onnx_types[found].name
			                      : a->kind == ATTR_STRING ? a->s : "?");
		return -1;
	}
	struct tensor *x = n->inputs[0], *y = n->outputs[0];
	enum dtype to = onnx_types[found].dtype;
	if (set_out(c, n, 0, to, x->rank, x->dims))
		return -1;
	void *p;
	if (!all_const(n) || !ir_dtype_size(x->dtype) || !(p = fold_alloc(c, y)))
		return 0;
	int64_t total = ir_numel(x);
	for (int64_t i = 0; i < total; i++) {
		if (is_float(x->dtype))
			store_f(to, p, i, ir_elem_f(x->dtype, x->data, i));
		else
			store_i(to, p, i, ir_elem_i(x->dtype, x->data, i));
	}
	y->data = p;
	return 0;
}

/* Slice (ONNX Slice-13): per sliced axis, negative starts/ends count from the
 * back; with a positive step start and end clamp to [0, dim], with a negative
 * step to [0, dim - 1] and [-1, dim - 1]; the length is ceil((end - start) /
 * step), at least 0. Before opset 10 starts/ends/axes are attributes and the
 * step is 1. */
static int infer_slice(struct ctx *c, struct node *n)
{
	int64_t starts[IR_MAX_RANK], ends[IR_MAX_RANK], axes[IR_MAX_RANK], steps[IR_MAX_RANK];
	int ns, ne, na = -2, nst = -2;
	if (c->opset < 10) {
		if (check_arity(c, n, 1, 1, 1))
			return -1;
		ns = attr_list(c, n, "starts", starts, IR_MAX_RANK);
		ne = attr_list(c, n, "ends", ends, IR_MAX_RANK);
		na = attr_list(c, n, "axes", axes, IR_MAX_RANK);
		if (ns == -2 || ne == -2) {
			diag_error(c->d, n, "attributes 'starts' and 'ends' are required");
			return -1;
		}
	} else {
		if (check_arity(c, n, 3, 5, 1))
			return -1;
		ns = const_ints(c, n, 1, "starts", starts, IR_MAX_RANK);
		ne = const_ints(c, n, 2, "ends", ends, IR_MAX_RANK);
		if (in(n, 3))
			na = const_ints(c, n, 3, "axes", axes, IR_MAX_RANK);
		if (in(n, 4))
			nst = const_ints(c, n, 4, "steps", steps, IR_MAX_RANK);
	}
	if (ns == -1 || ne == -1 || na == -1 || nst == -1)
		return -1;
	struct tensor *x = n->inputs[0];
	int r = x->rank;
	if (ns != ne || (na >= 0 && na != ns) || (nst >= 0 && nst != ns)) {
		diag_error(c->d, n,
		           "starts has %d values, ends %d, axes %d, steps %d; they must match", ns,
		           ne, na < 0 ? ns : na, nst < 0 ? ns : nst);
		return -1;
	}
	if (ns > r) {
		diag_error(c->d, n, "slices %d axes of %s, which has only %d", ns, SHAPE(x), r);
		return -1;
	}
	if (na < 0)
		for (int i = 0; i < ns; i++)
			axes[i] = i;
	if (nst < 0)
		for (int i = 0; i < ns; i++)
			steps[i] = 1;
	int ax[IR_MAX_RANK];
	unsigned char seen[IR_MAX_RANK];
	if (norm_axes(c, n, "axes", axes, ns, r, ax, seen))
		return -1;
	int64_t dims[IR_MAX_RANK], first[IR_MAX_RANK] = {0}, step[IR_MAX_RANK];
	memcpy(dims, x->dims, sizeof dims);
	for (int i = 0; i < r; i++)
		step[i] = 1;
	for (int i = 0; i < ns; i++) {
		int64_t dim = x->dims[ax[i]], s = steps[i], b = starts[i], e = ends[i];
		if (s == 0) {
			diag_error(c->d, n, "steps[%d] is 0", i);
			return -1;
		}
		if (s < -MAX_ELEMS || s > MAX_ELEMS) {
			diag_error(c->d, n, "steps[%d] is %lld, out of range", i, (long long)s);
			return -1;
		}
		if (b < 0)
			b += dim;
		if (e < 0)
			e += dim;
		int64_t len;
		if (s > 0) {
			b = clamp_i64(b, 0, dim);
			e = clamp_i64(e, 0, dim);
			len = e > b ? (e - b + s - 1) / s : 0;
		} else {
			b = clamp_i64(b, 0, dim - 1);
			e = clamp_i64(e, -1, dim - 1);
			len = b > e ? (b - e - s - 1) / -s : 0;
		}
		dims[ax[i]] = len;
		first[ax[i]] = b;
		step[ax[i]] = s;
	}
	if (set_out(c, n, 0, x->dtype, r, dims))
		return -1;
	struct tensor *y = n->outputs[0];
	void *p;
	if (!all_const(n) || !(p = fold_alloc(c, y)))
		return 0;
	int64_t strides[IR_MAX_RANK], base = 0, s = 1;
	for (int i = r - 1; i >= 0; i--) {
		base += first[i] * s;
		strides[i] = step[i] * s;
		s *= x->dims[i];
	}
	strided_copy(p, x->data, ir_dtype_size(y->dtype), r, dims, base, strides);
	y->data = p;
	return 0;
}

/* Expand (https://onnx.ai/onnx/operators/onnx__Expand.html): x broadcast
 * with the constant shape, numpy rules, so a 1 in shape keeps x's dim. */
static int infer_expand(struct ctx *c, struct node *n)
{
	if (check_arity(c, n, 2, 2, 1))
		return -1;
	int64_t shape[IR_MAX_RANK], dims[IR_MAX_RANK];
	int k = const_ints(c, n, 1, "shape", shape, IR_MAX_RANK), r, bad;
	if (k < 0)
		return -1;
	struct tensor *x = n->inputs[0];
	if (broadcast_dims(x->rank, x->dims, k, shape, &r, dims, &bad)) {
		diag_error(c->d, n, "shape %s does not broadcast with %s", DIMS(k, shape), SHAPE(x));
		return -1;
	}
	return set_out(c, n, 0, x->dtype, r, dims);
}

/* Tile (https://onnx.ai/onnx/operators/onnx__Tile.html): dim d of x
 * repeated repeats[d] times, repeats a constant list of x's rank. */
static int infer_tile(struct ctx *c, struct node *n)
{
	if (check_arity(c, n, 2, 2, 1))
		return -1;
	int64_t rep[IR_MAX_RANK], dims[IR_MAX_RANK];
	int k = const_ints(c, n, 1, "repeats", rep, IR_MAX_RANK);
	if (k < 0)
		return -1;
	struct tensor *x = n->inputs[0];
	if (k != x->rank) {
		diag_error(c->d, n, "repeats has %d values, expected one per dim of %s", k, SHAPE(x));
		return -1;
	}
	for (int i = 0; i < k; i++) {
		if (rep[i] < 0 || rep[i] > MAX_ELEMS) {
			diag_error(c->d, n, "repeats[%d] is %lld, out of range", i, (long long)rep[i]);
			return -1;
		}
		dims[i] = x->dims[i] * rep[i];
	}
	return set_out(c, n, 0, x->dtype, k, dims);
}

/* Split (https://onnx.ai/onnx/operators/onnx__Split.html) along axis: the
 * sizes come from the split attribute (before opset 13) or constant input 1;
 * else from num_outputs (opset 18; the last part is smaller when the dim is
 * not a multiple) or the output count (equal parts). Every output is set. */
static int infer_split(struct ctx *c, struct node *n)
{
	if (check_arity(c, n, 1, 2, INT_MAX))
		return -1;
	struct tensor *x = n->inputs[0];
	int ax;
	if (norm_axis(c, n, "axis", ir_attr_int(n, "axis", 0), x->rank, &ax))
		return -1;
	int m = n->n_outputs;
	for (int i = 0; i < m; i++) {
		if (!n->outputs[i]) {
			diag_error(c->d, n, "output %d is missing", i);
			return -1;
		}
	}
	int64_t *sizes = arena_alloc(&c->g->arena, (size_t)m * sizeof *sizes);
	int k = -2;
	if (in(n, 1)) {
		k = const_ints(c, n, 1, "split", sizes, m);
	} else {
		struct attr *a = ir_attr(n, "split");
		if (a && (a->kind != ATTR_INTS || a->n > m)) {
			diag_error(c->d, n, "attribute 'split' must list one size per output (%d)", m);
			return -1;
		}
		if (a)
			for (k = 0; k < a->n; k++)
				sizes[k] = a->ints[k];
	}
	if (k == -1)
		return -1;
	int64_t dim = x->dims[ax], sum = 0;
	if (k == -2) {
		int64_t parts = ir_attr_int(n, "num_outputs", m);
		if (parts != m) {
			diag_error(c->d, n, "num_outputs is %lld but the node has %d outputs",
			           (long long)parts, m);
			return -1;
		}
		int64_t chunk = (dim + m - 1) / m;
		if (!ir_attr(n, "num_outputs") && dim % m) {
			diag_error(c->d, n, "axis %d of %s does not split into %d equal parts", ax,
			           SHAPE(x), m);
			return -1;
		}
		for (k = 0; k < m; k++) {
			sizes[k] = chunk < dim - sum ? chunk : dim - sum;
			sum += sizes[k];
		}
	} else {
		if (k != m) {
			diag_error(c->d, n, "split lists %d sizes for %d outputs", k, m);
			return -1;
		}
		for (int i = 0; i < m; i++) {
			if (sizes[i] < 0) {
				diag_error(c->d, n, "split[%d] is negative", i);
				return -1;
			}
			sum += sizes[i];
		}
	}
	if (sum != dim) {
		diag_error(c->d, n, "split sizes add up to %lld, axis %d of %s is %lld",
		           (long long)sum, ax, SHAPE(x), (long long)dim);
		return -1;
	}
	int64_t dims[IR_MAX_RANK];
	memcpy(dims, x->dims, sizeof dims);
	for (int i = 0; i < m; i++) {
		dims[ax] = sizes[i];
		if (set_out(c, n, i, x->dtype, x->rank, dims))
			return -1;
	}
	return 0;
}

/* DepthToSpace and SpaceToDepth on [N, C, H, W] with blocksize b:
 * [N, C / b^2, H * b, W * b] and [N, C * b^2, H / b, W / b]. */
static int infer_depth_space(struct ctx *c, struct node *n)
{
	if (check_arity(c, n, 1, 1, 1))
		return -1;
	struct tensor *x = n->inputs[0];
	int64_t b = ir_attr_int(n, "blocksize", 0);
	if (x->rank != 4) {
		diag_error(c->d, n, "input %s must be [N, C, H, W]", SHAPE(x));
		return -1;
	}
	if (b < 1 || b > 4096) {
		diag_error(c->d, n, "blocksize %lld is missing or out of range", (long long)b);
		return -1;
	}
	int64_t dims[4] = {x->dims[0], x->dims[1], x->dims[2], x->dims[3]};
	if (n->op == OP_DEPTH_TO_SPACE) {
		if (dims[1] % (b * b)) {
			diag_error(c->d, n, "channels of %s are not a multiple of blocksize^2 = %lld",
			           SHAPE(x), (long long)(b * b));
			return -1;
		}
		dims[1] /= b * b;
		dims[2] *= b;
		dims[3] *= b;
	} else {
		if (dims[2] % b || dims[3] % b) {
			diag_error(c->d, n, "H and W of %s are not multiples of blocksize %lld", SHAPE(x),
			           (long long)b);
			return -1;
		}
		dims[1] *= b * b;
		dims[2] /= b;
		dims[3] /= b;
	}
	return set_out(c, n, 0, x->dtype, 4, dims);
}

/* Resize and Upsample: output dims are the constant sizes (Resize-11+
 * input 3) or floor(dim * scale) for the constant scales (Upsample-7's
 * attribute, input 1 of Upsample-9 and Resize-10, input 2 of Resize-11+).
 * An empty constant stands for an absent operand. */
static int infer_resize(struct ctx *c, struct node *n)
{
	if (check_arity(c, n, 1, 4, 1))
		return -1;
	struct tensor *x = n->inputs[0];
	int r = x->rank, si = n->n_inputs == 2 ? 1 : 2;
	struct tensor *ts = in(n, si), *tz = n->n_inputs > 3 ? in(n, 3) : NULL;
	int64_t dims[IR_MAX_RANK];
	if (ir_attr(n, "axes")) {
		diag_error(c->d, n, "the axes attribute is not supported");
		return -1;
	}
	if (tz && tz->data && ir_numel(tz) > 0) {
		int k = const_ints(c, n, 3, "sizes", dims, IR_MAX_RANK);
		if (k < 0)
			return -1;
		if (k != r) {
			diag_error(c->d, n, "sizes has %d values, expected %d", k, r);
			return -1;
		}
		return set_out(c, n, 0, x->dtype, r, dims);
	}
	if (tz && !tz->data) {
		diag_error(c->d, n, "sizes '%s' must be a constant, but it is computed at run time%s",
		           tz->name, BIND_HINT(tz));
		return -1;
	}
	double sc[IR_MAX_RANK];
	struct attr *a = n->op == OP_UPSAMPLE && n->n_inputs == 1 ? ir_attr(n, "scales") : NULL;
	if (a) {
		if (a->kind != ATTR_FLOATS || a->n != r) {
			diag_error(c->d, n, "attribute 'scales' must list %d floats", r);
			return -1;
		}
		for (int i = 0; i < r; i++)
			sc[i] = a->floats[i];
	} else {
		if (!ts || (ts->data && ir_numel(ts) == 0)) {
			diag_error(c->d, n, "neither scales nor sizes is given");
			return -1;
		}
		if (!ts->data) {
			diag_error(c->d, n, "scales '%s' must be a constant, but it is computed at run "
			           "time%s", ts->name, BIND_HINT(ts));
			return -1;
		}
		if (!is_float(ts->dtype) || ir_numel(ts) != r) {
			diag_error(c->d, n, "scales '%s' must be a constant list of %d floats", ts->name,
			           r);
			return -1;
		}
		for (int i = 0; i < r; i++)
			sc[i] = ir_elem_f(ts->dtype, ts->data, i);
	}
	for (int i = 0; i < r; i++) {
		if (!(sc[i] > 0) || sc[i] * (double)x->dims[i] > (double)MAX_ELEMS) {
			diag_error(c->d, n, "scale %g of dim %d is out of range", sc[i], i);
			return -1;
		}
		dims[i] = (int64_t)floor(sc[i] * (double)x->dims[i]);
	}
	return set_out(c, n, 0, x->dtype, r, dims);
}

/* ConvTranspose in 1-D to 3-D: x [N, C, spatial...], w [C, M/group,
 * kernel...], bias [M]. Each spatial output length is output_shape's, the
 * input's times the stride under auto_pad SAME_*, else stride * (H - 1) +
 * output_padding + (k - 1) * dilation + 1 minus both pads (the operator
 * page's formula). */
static int infer_conv_transpose(struct ctx *c, struct node *n)
{
	if (check_arity(c, n, 2, 3, 1))
		return -1;
	struct tensor *x = n->inputs[0], *w = n->inputs[1], *b = in(n, 2);
	if (x->rank < 3 || x->rank > 5 || w->rank != x->rank) {
		diag_error(c->d, n, "only 1-D, 2-D and 3-D ConvTranspose is supported, with W of X's "
		           "rank (X %s, W %s)", SHAPE(x), SHAPE(w));
		return -1;
	}
	const int sp = x->rank - 2;
	int64_t group = ir_attr_int(n, "group", 1);
	if (group < 1 || x->dims[1] % group || x->dims[1] != w->dims[0]) {
		diag_error(c->d, n, "W %s does not fit X %s with group %lld", SHAPE(w), SHAPE(x),
		           (long long)group);
		return -1;
	}
	int64_t M = w->dims[1] * group;
	if (b && (b->rank != 1 || b->dims[0] != M)) {
		diag_error(c->d, n, "bias %s must be [%lld]", SHAPE(b), (long long)M);
		return -1;
	}
	int64_t ks[3], st[3] = {1, 1, 1}, dl[3] = {1, 1, 1}, op[3] = {0}, pads[6] = {0}, os[5];
	for (int i = 0; i < sp; i++)
		ks[i] = w->dims[2 + i];
	if (attr_list(c, n, "kernel_shape", ks, sp) == -1 || attr_list(c, n, "strides", st, sp) == -1 ||
	    attr_list(c, n, "dilations", dl, sp) == -1 || attr_list(c, n, "pads", pads, 2 * sp) == -1 ||
	    attr_list(c, n, "output_padding", op, sp) == -1)
		return -1;
	int nos = attr_list(c, n, "output_shape", os, sp + 2);
	if (nos == -1)
		return -1;
	const char *ap = ir_attr_string(n, "auto_pad", "NOTSET");
	int same = strcmp(ap, "SAME_UPPER") == 0 || strcmp(ap, "SAME_LOWER") == 0;
	if (!same && strcmp(ap, "NOTSET") != 0 && strcmp(ap, "VALID") != 0) {
		diag_error(c->d, n, "auto_pad '%s' is not supported", ap);
		return -1;
	}
	if (nos > 0 && nos < sp) {
		diag_error(c->d, n, "output_shape has %d values, expected at least %d", nos, sp);
		return -1;
	}
	int64_t dims[5] = {x->dims[0], M};
	for (int i = 0; i < sp; i++) {
		if (ks[i] != w->dims[2 + i] || st[i] < 1 || dl[i] < 1 || op[i] < 0) {
			diag_error(c->d, n, "kernel_shape, strides, dilations or output_padding out of "
			           "range for W %s", SHAPE(w));
			return -1;
		}
		if (nos >= sp)
			dims[2 + i] = os[nos - sp + i];
		else if (same)
			dims[2 + i] = x->dims[2 + i] * st[i];
		else
			dims[2 + i] = st[i] * (x->dims[2 + i] - 1) + op[i] + (ks[i] - 1) * dl[i] + 1 -
			              (strcmp(ap, "VALID") ? pads[i] + pads[sp + i] : 0);
		if (dims[2 + i] < 1) {
			diag_error(c->d, n, "output would have the length %lld on spatial dim %d",
			           (long long)dims[2 + i], i);
			return -1;
		}
	}
	return set_out(c, n, 0, x->dtype, x->rank, dims);
}

/* ConstantOfShape: a tensor of the given (constant) shape filled with the one
 * element of `value` (default float32 0). It is always materialised. */
static int infer_constant_of_shape(struct ctx *c, struct node *n)
{
	if (check_arity(c, n, 1, 1, 1))
		return -1;
	int64_t dims[IR_MAX_RANK];
	int k = const_ints(c, n, 0, "shape", dims, IR_MAX_RANK);
	if (k < 0)
		return -1;
	if (n->inputs[0]->rank != 1) {
		diag_error(c->d, n, "shape '%s' has shape %s, expected a 1-D list",
		           n->inputs[0]->name, SHAPE(n->inputs[0]));
		return -1;
	}
	struct attr *a = ir_attr(n, "value");
	static const float zero;
	enum dtype dt = DTYPE_F32;
	const void *v = &zero;
	if (a) {
		if (a->kind != ATTR_TENSOR || !a->t || !a->t->data || a->t->rank < 0 ||
		    ir_numel(a->t) != 1 || !ir_dtype_size(a->t->dtype)) {
			diag_error(c->d, n, "value must be a one-element numeric tensor");
			return -1;
		}
		dt = a->t->dtype;
		v = a->t->data;
	}
	if (set_out(c, n, 0, dt, k, dims))
		return -1;
	struct tensor *y = n->outputs[0];
	void *p = fold_alloc(c, y);
	if (!p) {
		diag_error(c->d, n, "output %s is too large to materialise at compile time "
		                    "(limit %zu bytes)", SHAPE(y), (size_t)FOLD_MAX_BYTES);
		return -1;
	}
	size_t es = ir_dtype_size(dt);
	int64_t total = ir_numel(y);
	for (int64_t i = 0; i < total; i++)
		memcpy((char *)p + i * es, v, es);
	y->data = p;
	return 0;
}

/* ---- elementwise math: Pow, PRelu, variadic Max/Min/Mean/Sum ------------------- */

/* Pow (numpy broadcasting, Y typed as X) and PRelu (the slope broadcasts to X
 * in one direction, ONNX PRelu-7+: Y is shaped as X). */
static int infer_pow_prelu(struct ctx *c, struct node *n)
{
	if (check_arity(c, n, 2, 2, 1))
		return -1;
	struct tensor *a = n->inputs[0], *b = n->inputs[1];
	int64_t dims[IR_MAX_RANK];
	int r, bad;
	/* PRelu-6 and before: a slope of C values is per channel (dim 1), which
	 * is numpy broadcasting of the slope shaped [C, 1, ..., 1]; a constant
	 * slope gets that shape (a copy: its data may be shared). */
	if (n->op == OP_PRELU && c->opset < 7 && b->rank == 1 && a->rank > 2 &&
	    b->dims[0] == a->dims[1] && b->dims[0] != 1) {
		if (!b->data || !ir_dtype_size(b->dtype)) {
			diag_error(c->d, n, "per-channel slope '%s' (PRelu-6) is supported only as "
			           "a constant", b->name);
			return -1;
		}
		int64_t db[IR_MAX_RANK];
		db[0] = b->dims[0];
		for (int i = 1; i < a->rank - 1; i++)
			db[i] = 1;
		n->inputs[1] = b = ir_new_constant(c->g, b->name, b->dtype, a->rank - 1, db,
		                                   arena_memdup(&c->g->arena, b->data, ir_nbytes(b)));
	}
	if (broadcast_dims(a->rank, a->dims, b->rank, b->dims, &r, dims, &bad) ||
	    (n->op == OP_PRELU &&
	     (r != a->rank || memcmp(dims, a->dims, (size_t)r * sizeof *dims) != 0))) {
		diag_error(c->d, n, "%s %s does not broadcast %s %s (ONNX %s broadcasting)",
		           n->op == OP_PRELU ? "slope" : "exponent", SHAPE(b),
		           n->op == OP_PRELU ? "to" : "with", SHAPE(a),
		           n->op == OP_PRELU ? "unidirectional" : "multidirectional");
		return -1;
	}
	return set_out(c, n, 0, a->dtype, r, dims);
}

/* Max, Min, Mean, Sum: one or more inputs of one dtype, broadcast together. */
static int infer_variadic(struct ctx *c, struct node *n)
{
	if (check_arity(c, n, 1, INT_MAX, 1))
		return -1;
	struct tensor *a = n->inputs[0];
	int64_t dims[IR_MAX_RANK];
	int r = a->rank;
	memcpy(dims, a->dims, (size_t)r * sizeof *dims);
	for (int i = 1; i < n->n_inputs; i++) {
		struct tensor *b = n->inputs[i];
		int64_t next[IR_MAX_RANK];
		int bad, ro;
		if (!b) {
			diag_error(c->d, n, "input %d is missing", i);
			return -1;
		}
		if (same_dtype(c, n, a, b))
			return -1;
		if (broadcast_dims(r, dims, b->rank, b->dims, &ro, next, &bad)) {
			diag_error(c->d, n, "input %d %s does not broadcast with the shape %s of the "
			           "inputs before it (ONNX multidirectional broadcasting)",
			           i, SHAPE(b), DIMS(r, dims));
			return -1;
		}
		memcpy(dims, next, sizeof next);
		r = ro;
	}
	return set_out(c, n, 0, a->dtype, r, dims);
}

/* ---- reductions ------------------------------------------------------------------- */

/* ReduceSum from opset 13 and the other reductions from 18 read axes from an
 * optional constant input; before that, from the attribute. Either way an
 * empty list reduces every axis, unless noop_with_empty_axes (13/18 on) says
 * the input passes unchanged. keepdims (default 1) keeps reduced dims as 1s. */
static int infer_reduce(struct ctx *c, struct node *n)
{
	if (check_arity(c, n, 1, 2, 1))
		return -1;
	struct tensor *x = n->inputs[0];
	int64_t axes[IR_MAX_RANK];
	int k = in(n, 1) ? const_ints(c, n, 1, "axes", axes, IR_MAX_RANK)
	                 : attr_list(c, n, "axes", axes, IR_MAX_RANK);
	if (k == -1)
		return -1;
	if (k == -2)
		k = 0;
	unsigned char red[IR_MAX_RANK] = {0};
	int ax[IR_MAX_RANK];
	if (norm_axes(c, n, "axes", axes, k, x->rank, ax, red))
		return -1;
	if (k == 0 && ir_attr_int(n, "noop_with_empty_axes", 0))
		return set_out(c, n, 0, x->dtype, x->rank, x->dims);
	int keep = ir_attr_int(n, "keepdims", 1) != 0;
	int64_t dims[IR_MAX_RANK];
	int r = 0;
	for (int i = 0; i < x->rank; i++) {
		if (k == 0 || red[i]) {
			if (x->dims[i] == 0) {
				diag_error(c->d, n, "reduces the empty axis %d of %s", i, SHAPE(x));
				return -1;
			}
			if (keep)
				dims[r++] = 1;
		} else {
			dims[r++] = x->dims[i];
		}
	}
	return set_out(c, n, 0, x->dtype, r, dims);
}

/* LayerNormalization (X, Scale[, B]), InstanceNormalization (X, scale, B),
 * MeanVarianceNormalization (X): Y is shaped as X; LayerNormalization's
 * optional Mean and InvStdDev are X's shape with the normalised dims (axis
 * on) 1, float32 (stash_type 1). */
static int infer_norm(struct ctx *c, struct node *n)
{
	int ln = n->op == OP_LAYER_NORM;
	int need = ln ? 2 : n->op == OP_INSTANCE_NORM ? 3 : 1;
	if (check_arity(c, n, need, ln ? 3 : need, ln ? 3 : 1))
		return -1;
	struct tensor *x = n->inputs[0];
	if (set_out(c, n, 0, x->dtype, x->rank, x->dims))
		return -1;
	if (!ln || ((n->n_outputs < 2 || !n->outputs[1]) && (n->n_outputs < 3 || !n->outputs[2])))
		return 0;
	int axis;
	if (norm_axis(c, n, "axis", ir_attr_int(n, "axis", -1), x->rank, &axis))
		return -1;
	int64_t dims[IR_MAX_RANK];
	for (int i = 0; i < x->rank; i++)
		dims[i] = i < axis ? x->dims[i] : 1;
	for (int k = 1; k < n->n_outputs; k++)
		if (n->outputs[k] && set_out(c, n, k, DTYPE_F32, x->rank, dims))
			return -1;
	return 0;
}

/* ---- the walk --------------------------------------------------------------------- */

static int infer_node(struct ctx *c, struct node *n)
{
	switch (ir_op_kind(n->op)) { /* ops.def: ops that share one hook */
	case OPK_ARITH: return infer_binary(c, n);
	case OPK_ACT:
	case OPK_MATH: return infer_unary(c, n);
	case OPK_POW_PRELU: return infer_pow_prelu(c, n);
	case OPK_VARIADIC: return infer_variadic(c, n);
	case OPK_REDUCE: return infer_reduce(c, n);
	case OPK_NORM: return infer_norm(c, n);
	case OPK_SOFTMAX: return infer_softmax(c, n);
	case OPK_POOL: return infer_pool(c, n);
	case OPK_GLOBAL_POOL: return infer_global_pool(c, n);
	case OPK_DEPTH_SPACE: return infer_depth_space(c, n);
	case OPK_RESIZE: return infer_resize(c, n);
	case OPK_TYPED: return typed_infer(c->g, n, c->d); /* integer and boolean tensors */
	case OPK_TRAIN: break; /* appended later, by autodiff (--train) */
	case OPK_VIEW:
	case OPK_OWN: break;
	}
	switch (n->op) {
	case OP_CONV: return infer_conv(c, n);
	case OP_GEMM: return infer_gemm(c, n);
	case OP_MATMUL: return infer_matmul(c, n);
	case OP_BATCHNORM: return infer_batchnorm(c, n);
	case OP_LRN: return infer_lrn(c, n);
	case OP_CONCAT: return infer_concat(c, n);
	case OP_FLATTEN: return infer_flatten(c, n);
	case OP_RESHAPE: return infer_reshape(c, n);
	case OP_TRANSPOSE: return infer_transpose(c, n);
	case OP_SQUEEZE: return infer_squeeze(c, n);
	case OP_UNSQUEEZE: return infer_unsqueeze(c, n);
	case OP_PAD: return infer_pad(c, n);
	case OP_DROPOUT: return infer_dropout(c, n);
	case OP_IDENTITY: return infer_identity(c, n);
	case OP_CONSTANT: return infer_constant(c, n);
	case OP_SHAPE: return infer_shape(c, n);
	case OP_GATHER: return infer_gather(c, n);
	case OP_CAST: return infer_cast(c, n);
	case OP_SLICE: return infer_slice(c, n);
	case OP_EXPAND: return infer_expand(c, n);
	case OP_TILE: return infer_tile(c, n);
	case OP_SPLIT: return infer_split(c, n);
	case OP_CONV_TRANSPOSE: return infer_conv_transpose(c, n);
	case OP_CONSTANT_OF_SHAPE: return infer_constant_of_shape(c, n);
	case OP_LAYOUT: break; /* inserted later, by select */
	default: break;
	}
	unreachable("infer_node: unknown op");
}

static int has_empty_dim(const struct tensor *t)
{
	for (int i = 0; i < t->rank; i++)
		if (t->dims[i] == 0)
			return 1;
	return 0;
}

/* After a node's outputs are known: empty activations are refused, and a
 * node whose outputs all became constants is dead. */
static void finish_node(struct ctx *c, struct node *n)
{
	int folded = 1;
	for (int i = 0; i < n->n_outputs; i++) {
		struct tensor *t = n->outputs[i];
		if (!t)
			continue;
		if (t->rank < 0)
			unreachable("infer_shapes: an op rule left an output without a shape");
		if (!t->data && has_empty_dim(t)) {
			diag_error(c->d, n, "output '%s' would be empty (shape %s); empty tensors are "
			                    "supported only as constants", t->name, SHAPE(t));
			t->rank = -1;
			return;
		}
		folded &= t->data != NULL;
	}
	if (!folded)
		return;
	n->dead = 1;
	for (int i = 0; i < n->n_outputs; i++)
		if (n->outputs[i])
			n->outputs[i]->producer = NULL;
}

static int check_graph_input(struct ctx *c, const struct tensor *t)
{
	int64_t total = 1;
	if (t->rank < 0) {
		diag_error(c->d, NULL, "graph input '%s' has no known shape", t->name);
		return -1;
	}
	for (int i = 0; i < t->rank; i++) {
		if (t->dims[i] < 1 || t->dims[i] > MAX_ELEMS || total > MAX_ELEMS / t->dims[i]) {
			diag_error(c->d, NULL,
			           "graph input '%s' has shape %s; dims must be >= 1 and the tensor at "
			           "most 2^31 elements",
			           t->name, SHAPE(t));
			return -1;
		}
		total *= t->dims[i];
	}
	uint64_t bytes = (uint64_t)total * ir_dtype_size(t->dtype);
	if (bytes > c->max_bytes) {
		diag_error(c->d, NULL,
		           "graph input '%s' has shape %s: %" PRIu64 " bytes, over the activation "
		           "limit of %" PRIu64 " bytes (--max-arena MiB raises it)",
		           t->name, SHAPE(t), bytes, c->max_bytes);
		return -1;
	}
	return 0;
}

int pass_infer_shapes(struct graph *g, const struct options *opt, struct diag *d)
{
	struct ctx c = {g, d, g->opset > 0 ? g->opset : OPSET_DEFAULT, pass_max_arena(opt)};
	int before = d->errors;
	for (int i = 0; i < g->n_inputs; i++)
		if (check_graph_input(&c, g->inputs[i]))
			g->inputs[i]->rank = -1;
	for (int i = 0; i < g->n_nodes; i++) {
		struct node *n = g->nodes[i];
		if (n->dead)
			continue;
		/* An input left unknown by an earlier error is not reported again. */
		const struct tensor *unknown = NULL;
		for (int k = 0; k < n->n_inputs && !unknown; k++)
			if (n->inputs[k] && n->inputs[k]->rank < 0)
				unknown = n->inputs[k];
		if (unknown) {
			if (d->errors == before)
				diag_error(d, n, "input '%s' has no known shape", unknown->name);
			continue;
		}
		/* A shape the frontend declared is recomputed, never trusted. */
		for (int k = 0; k < n->n_outputs; k++)
			if (n->outputs[k])
				n->outputs[k]->rank = -1;
		if (infer_node(&c, n) == 0)
			finish_node(&c, n);
	}
	for (int i = 0; i < g->n_outputs; i++) {
		struct tensor *t = g->outputs[i];
		if (t->rank >= 0 && has_empty_dim(t))
			diag_error(d, NULL, "graph output '%s' is empty (shape %s)", t->name, SHAPE(t));
	}
	ir_compact(g);
	return d->errors - before;
}
