/* typed_ops.c - the operators on integer, boolean and float64 tensors (issue
 * 11): their shape rules, called by infer_shapes, and their canonical form,
 * called by canonicalize. The backend computes them with the runtime's
 * typed_*.c kernels (backend/emit_typed.c).
 *
 * Covered: Cast and Gather on values known only at run time; the comparisons
 * (Equal, Less, Greater, LessOrEqual, GreaterOrEqual), Not/And/Or/Xor,
 * IsNaN/IsInf, Where; Add/Sub/Mul/Div/Max/Min/Abs/Neg/Sign/Pow on integers
 * (Pow also float with an integer exponent), Mod
 * and BitShift; ArgMax/ArgMin, TopK, CumSum, Trilu, GatherElements,
 * NegativeLogLikelihoodLoss and SoftmaxCrossEntropyLoss (float32 scores,
 * integer targets); Size and Range, which always fold into constants here
 * (every shape is static, and Range's operands must be constants: a graph
 * input is frozen with --bind). Each rule follows its operator's page on
 * onnx.ai; an attribute or operand dnncc cannot honour is refused naming the
 * node.
 *
 * Canonical form written by typed_canon(): integer attributes explicit (axis
 * normalised to >= 0; TopK's k, CumSum's axis and Trilu's k moved from their
 * constant inputs into the attributes "k", "axis", "k"; reduction and
 * ignore_index of the losses as ints "reduction" 0 none, 1 sum, 2 mean and
 * "has_ignore"/"ignore_index"). */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "passes/passes.h"
#include "runtime/rt_types.h"

/* Largest tensor a rule here produces, in elements (as infer_shapes). */
#define TYPED_MAX_ELEMS ((int64_t)1 << 31)

int typed_is_new_op(enum op op)
{
	return ir_op_kind(op) == OPK_TYPED;
}

int typed_dtype_ok(enum dtype dt)
{
	return dt == DTYPE_F32 || dt == DTYPE_F64 || dt == DTYPE_I64 || dt == DTYPE_I32 ||
	       dt == DTYPE_I8 || dt == DTYPE_U8 || dt == DTYPE_BOOL;
}

static int is_int(enum dtype dt)
{
	return dt == DTYPE_I64 || dt == DTYPE_I32 || dt == DTYPE_I8 || dt == DTYPE_U8;
}

/* Ops that have float32 kernels of their own and come here only for other
 * types (canonicalize leaves float32 ones to their usual rules). */
static int has_float_kernel(enum op op)
{
	return ir_op_has(op, OPF_TYPED_KERNEL);
}

int typed_runs_typed(const struct node *n)
{
	if (typed_is_new_op(n->op) || n->op == OP_GATHER || n->op == OP_CAST)
		return 1;
	if (!has_float_kernel(n->op) || n->n_inputs < 1 || !n->inputs[0] || n->n_outputs < 1 ||
	    !n->outputs[0])
		return 0;
	if ((n->op == OP_MAX || n->op == OP_MIN) && n->n_inputs != 2)
		return 0;
	for (int i = 0; i < n->n_inputs; i++)
		if (n->inputs[i] && n->inputs[i]->dtype != DTYPE_F32)
			return 1;
	return n->outputs[0]->dtype != DTYPE_F32;
}

/* ---- shapes ------------------------------------------------------------------ */

static int set_out(struct graph *g, struct node *n, int k, enum dtype dt, int rank,
                   const int64_t *dims, struct diag *d)
{
	if (k >= n->n_outputs || !n->outputs[k])
		return 0;
	int64_t total = 1;
	for (int i = 0; i < rank; i++) {
		if (dims[i] < 0 || (dims[i] && total > TYPED_MAX_ELEMS / dims[i])) {
			diag_error(d, n, "output '%s' would have more than 2^31 elements",
			           n->outputs[k]->name);
			return -1;
		}
		total *= dims[i];
	}
	(void)g;
	n->outputs[k]->dtype = dt;
	ir_set_shape(n->outputs[k], rank, dims);
	return 0;
}

/* Numpy broadcast of the inputs [0, count). */
static int bcast_shape(struct node *n, int count, int *rank, int64_t *dims, struct diag *d)
{
	int r = 0;
	for (int i = 0; i < count; i++)
		if (n->inputs[i]->rank > r)
			r = n->inputs[i]->rank;
	for (int k = 0; k < r; k++)
		dims[k] = 1;
	for (int i = 0; i < count; i++) {
		const struct tensor *t = n->inputs[i];
		for (int k = 0; k < t->rank; k++) {
			int64_t v = t->dims[k], *o = &dims[r - t->rank + k];
			if (v == *o || v == 1)
				continue;
			if (*o != 1) {
				diag_error(d, n, "inputs do not broadcast: '%s' has dim %" PRId64
				           " where another has %" PRId64, t->name, v, *o);
				return -1;
			}
			*o = v;
		}
	}
	*rank = r;
	return 0;
}

static int need_inputs(struct node *n, int lo, int hi, struct diag *d)
{
	int have = 0;
	for (int i = 0; i < n->n_inputs; i++)
		have = n->inputs[i] ? i + 1 : have;
	if (n->n_inputs < lo || n->n_inputs > hi) {
		diag_error(d, n, "has %d inputs, expected %d to %d", n->n_inputs, lo, hi);
		return -1;
	}
	for (int i = 0; i < lo; i++)
		if (!n->inputs[i]) {
			diag_error(d, n, "required input %d is missing", i);
			return -1;
		}
	(void)have;
	if (n->n_outputs < 1 || !n->outputs[0]) {
		diag_error(d, n, "has no output");
		return -1;
	}
	return 0;
}

/* Element i of a constant: floats saturate into int64 (ir_elem_i). */
static int64_t const_i(const struct tensor *t, int64_t i)
{
	return ir_elem_i(t->dtype, t->data, i);
}

static double const_f(const struct tensor *t, int64_t i)
{
	return ir_elem_f(t->dtype, t->data, i);
}

/* A scalar operand that must be known at compile time. */
static int const_scalar(struct node *n, int index, const char *what, struct tensor **out,
                        struct diag *d)
{
	struct tensor *t = n->n_inputs > index ? n->inputs[index] : NULL;
	*out = t;
	if (!t)
		return 0;
	if (!t->data) {
		diag_error(d, n, "%s (input %d, '%s') must be a constant, but it is computed at run "
		           "time%s", what, index, t->name,
		           t->is_input ? "; freeze it with --bind NAME=VALUES or --bind NAME=FILE.pb" : "");
		return -1;
	}
	if (ir_numel(t) != 1 || !ir_dtype_size(t->dtype)) {
		diag_error(d, n, "%s '%s' must be one number, found %" PRId64 " values", what, t->name,
		           ir_numel(t));
		return -1;
	}
	return 1;
}

static int norm_axis(struct node *n, int64_t *axis, int rank, struct diag *d)
{
	int64_t a = *axis;
	if (a < -rank || a >= rank || rank == 0) {
		diag_error(d, n, "axis %" PRId64 " is out of range for rank %d", a, rank);
		return -1;
	}
	*axis = a < 0 ? a + rank : a;
	return 0;
}

static int infer_range(struct graph *g, struct node *n, struct diag *d)
{
	struct tensor *s, *l, *dl;
	if (const_scalar(n, 0, "start", &s, d) != 1 || const_scalar(n, 1, "limit", &l, d) != 1 ||
	    const_scalar(n, 2, "delta", &dl, d) != 1)
		return -1;
	enum dtype dt = s->dtype;
	int flt = dt == DTYPE_F32 || dt == DTYPE_F64;
	double fs = const_f(s, 0), fl = const_f(l, 0), fd = const_f(dl, 0);
	int64_t is = const_i(s, 0), il = const_i(l, 0), id = const_i(dl, 0);
	if ((flt && fd == 0.0) || (!flt && id == 0)) {
		diag_error(d, n, "delta is zero");
		return -1;
	}
	double cnt = flt ? ceil((fl - fs) / fd) : ceil(((double)il - (double)is) / (double)id);
	if (!(cnt <= 1e8))
		cnt = 1e8 + 1;
	int64_t count = cnt > 0 ? (int64_t)cnt : 0;
	if (count > 100000000) {
		diag_error(d, n, "Range would have more than 1e8 elements");
		return -1;
	}
	if (set_out(g, n, 0, dt, 1, &count, d))
		return -1;
	size_t es = ir_dtype_size(dt);
	void *p = arena_alloc(&g->arena, count ? (size_t)count * es : 1);
	for (int64_t i = 0; i < count; i++) {
		/* in unsigned arithmetic: the count comes from doubles, so near
		 * int64's ends the last element may step past the limit */
		const int64_t v = (int64_t)((uint64_t)is + (uint64_t)i * (uint64_t)id);
		switch (dt) {
		case DTYPE_F32: ((float *)p)[i] = (float)(fs + (double)i * fd); break;
		case DTYPE_F64: ((double *)p)[i] = fs + (double)i * fd; break;
		case DTYPE_I64: ((int64_t *)p)[i] = v; break;
		case DTYPE_I32: ((int32_t *)p)[i] = (int32_t)v; break;
		case DTYPE_I8: ((int8_t *)p)[i] = (int8_t)v; break;
		case DTYPE_U8: ((uint8_t *)p)[i] = (uint8_t)v; break;
		default:
			diag_error(d, n, "Range on %s is not supported", ir_dtype_names[dt]);
			return -1;
		}
	}
	n->outputs[0]->data = p;
	return 0;
}

/* Largest output fold_small computes at compile time. */
#define TYPED_FOLD_MAX 4096

/* Where, the comparisons and Not over constants small enough to be shape
 * arithmetic (torch's expand(n, -1, -1) exports Equal and Where over the
 * target shape) fold into a constant, so an Expand or Reshape reading it
 * sees a static shape. Integers compare exactly, floats as doubles (NaN
 * unequal to all). A node with a non-constant input, or a bigger output,
 * stays. */
static void fold_small(struct graph *g, struct node *n)
{
	struct tensor *y = n->outputs[0];
	const int64_t total = ir_numel(y);
	const size_t es = ir_dtype_size(y->dtype);
	if (total > TYPED_FOLD_MAX || !es)
		return;
	int64_t st[3][IR_MAX_RANK], at[3] = {0, 0, 0}, idx[IR_MAX_RANK] = {0};
	for (int i = 0; i < n->n_inputs; i++) {
		const struct tensor *t = n->inputs[i];
		if (!t || !t->data || !ir_dtype_size(t->dtype))
			return;
		infer_broadcast_strides(t->rank, t->dims, y->rank, st[i]);
	}
	unsigned char *p = arena_alloc(&g->arena, total ? (size_t)total * es : 1);
	for (int64_t k = 0; k < total; k++) {
		if (n->op == OP_WHERE) {
			const int pick = const_i(n->inputs[0], at[0]) ? 1 : 2;
			memcpy(p + (size_t)k * es,
			       (const unsigned char *)n->inputs[pick]->data + (size_t)at[pick] * es, es);
		} else if (n->op == OP_NOT) {
			p[k] = !const_i(n->inputs[0], at[0]);
		} else {
			const struct tensor *a = n->inputs[0], *b = n->inputs[1];
			int c; /* -1, 0, 1; 2 when unordered */
			if (is_int(a->dtype) || a->dtype == DTYPE_BOOL) {
				const int64_t u = const_i(a, at[0]), v = const_i(b, at[1]);
				c = u < v ? -1 : u > v;
			} else {
				const double u = const_f(a, at[0]), v = const_f(b, at[1]);
				c = u < v ? -1 : u > v ? 1 : u == v ? 0 : 2;
			}
			switch (n->op) {
			case OP_EQUAL: p[k] = c == 0; break;
			case OP_LESS: p[k] = c == -1; break;
			case OP_GREATER: p[k] = c == 1; break;
			case OP_LESS_OR_EQUAL: p[k] = c == -1 || c == 0; break;
			default: p[k] = c == 1 || c == 0; break; /* OP_GREATER_OR_EQUAL */
			}
		}
		for (int d = y->rank - 1; d >= 0; d--) { /* next output index */
			for (int i = 0; i < n->n_inputs; i++)
				at[i] += st[i][d];
			if (++idx[d] < y->dims[d])
				break;
			for (int i = 0; i < n->n_inputs; i++)
				at[i] -= st[i][d] * y->dims[d];
			idx[d] = 0;
		}
	}
	y->data = p;
}

static int folds_small(enum op op)
{
	return op == OP_WHERE || op == OP_NOT || op == OP_EQUAL || op == OP_LESS ||
	       op == OP_GREATER || op == OP_LESS_OR_EQUAL || op == OP_GREATER_OR_EQUAL;
}

/* And, Or, Xor and Not take bool only: refused in the shape rule, before
 * fold_small reads a Not's constant operand as bool. */
static int bool_only(const struct node *n, struct diag *d)
{
	const enum dtype dt = n->inputs[0]->dtype;
	if ((n->op == OP_AND || n->op == OP_OR || n->op == OP_XOR || n->op == OP_NOT) &&
	    dt != DTYPE_BOOL) {
		diag_error(d, n, "%s needs bool inputs, not %s", ir_op_names[n->op], ir_dtype_names[dt]);
		return -1;
	}
	return 0;
}

static int typed_infer_rule(struct graph *g, struct node *n, struct diag *d)
{
	int rank;
	int64_t dims[IR_MAX_RANK];
	struct tensor *x = n->n_inputs > 0 ? n->inputs[0] : NULL;
	/* The broadcast binary ops (ops.def's OPF_TBINARY): inputs of one type. */
	if (ir_op_has(n->op, OPF_TBINARY)) {
		if (need_inputs(n, 2, 2, d) || bcast_shape(n, 2, &rank, dims, d))
			return -1;
		if (n->inputs[0]->dtype != n->inputs[1]->dtype) {
			diag_error(d, n, "inputs '%s' (%s) and '%s' (%s) differ in type", x->name,
			           ir_dtype_names[x->dtype], n->inputs[1]->name,
			           ir_dtype_names[n->inputs[1]->dtype]);
			return -1;
		}
		if (bool_only(n, d))
			return -1;
		enum dtype dt = ir_op_has(n->op, OPF_BOOL_OUT) ? DTYPE_BOOL : x->dtype;
		return set_out(g, n, 0, dt, rank, dims, d);
	}
	switch (n->op) {
	case OP_WHERE:
		if (need_inputs(n, 3, 3, d) || bcast_shape(n, 3, &rank, dims, d))
			return -1;
		if (n->inputs[0]->dtype != DTYPE_BOOL || n->inputs[1]->dtype != n->inputs[2]->dtype) {
			diag_error(d, n, "expected a bool condition and X, Y of one type");
			return -1;
		}
		return set_out(g, n, 0, n->inputs[1]->dtype, rank, dims, d);
	case OP_NOT:
	case OP_ISNAN:
	case OP_ISINF:
		if (need_inputs(n, 1, 1, d))
			return -1;
		if (bool_only(n, d))
			return -1;
		return set_out(g, n, 0, DTYPE_BOOL, x->rank, x->dims, d);
	case OP_CAST_LIKE:
		if (need_inputs(n, 2, 2, d))
			return -1;
		return set_out(g, n, 0, n->inputs[1]->dtype, x->rank, x->dims, d);
	case OP_CUMSUM:
	case OP_TRILU:
		if (need_inputs(n, 1, 2, d))
			return -1;
		if (n->op == OP_TRILU && x->rank < 2) {
			diag_error(d, n, "input '%s' has rank %d; Trilu needs rank >= 2", x->name, x->rank);
			return -1;
		}
		return set_out(g, n, 0, x->dtype, x->rank, x->dims, d);
	case OP_ARGMAX:
	case OP_ARGMIN: {
		if (need_inputs(n, 1, 1, d))
			return -1;
		int64_t axis = ir_attr_int(n, "axis", 0);
		int keep = ir_attr_int(n, "keepdims", 1) != 0;
		if (norm_axis(n, &axis, x->rank, d))
			return -1;
		rank = 0;
		for (int i = 0; i < x->rank; i++)
			if (i != axis)
				dims[rank++] = x->dims[i];
			else if (keep)
				dims[rank++] = 1;
		return set_out(g, n, 0, DTYPE_I64, rank, dims, d);
	}
	case OP_TOPK: {
		struct tensor *kt;
		if (need_inputs(n, 2, 2, d) || const_scalar(n, 1, "K", &kt, d) != 1)
			return -1;
		int64_t axis = ir_attr_int(n, "axis", -1), k = const_i(kt, 0);
		if (norm_axis(n, &axis, x->rank, d))
			return -1;
		if (k < 1 || k > x->dims[axis]) {
			diag_error(d, n, "K = %" PRId64 " is outside 1..%" PRId64, k, x->dims[axis]);
			return -1;
		}
		memcpy(dims, x->dims, sizeof dims[0] * (size_t)x->rank);
		dims[axis] = k;
		if (set_out(g, n, 0, x->dtype, x->rank, dims, d))
			return -1;
		return set_out(g, n, 1, DTYPE_I64, x->rank, dims, d);
	}
	case OP_GATHER_ELEMENTS: {
		if (need_inputs(n, 2, 2, d))
			return -1;
		const struct tensor *idx = n->inputs[1];
		if (idx->rank != x->rank || (idx->dtype != DTYPE_I64 && idx->dtype != DTYPE_I32)) {
			diag_error(d, n, "indices '%s' must be int64 or int32 of the data's rank", idx->name);
			return -1;
		}
		return set_out(g, n, 0, x->dtype, idx->rank, idx->dims, d);
	}
	case OP_NLL_LOSS:
	case OP_SCE_LOSS: {
		if (need_inputs(n, 2, 3, d))
			return -1;
		const struct tensor *t = n->inputs[1];
		const char *red = ir_attr_string(n, "reduction", "mean");
		if (x->rank < 2 || t->rank != x->rank - 1 || t->dims[0] != x->dims[0]) {
			diag_error(d, n, "input '%s' %s and target '%s' do not match [N, C, d...] and "
			           "[N, d...]", x->name, x->rank >= 0 ? "" : "?", t->name);
			return -1;
		}
		if (strcmp(red, "none") == 0) {
			if (set_out(g, n, 0, x->dtype, t->rank, t->dims, d))
				return -1;
		} else if (set_out(g, n, 0, x->dtype, 0, dims, d)) {
			return -1;
		}
		return n->op == OP_SCE_LOSS ? set_out(g, n, 1, x->dtype, x->rank, x->dims, d) : 0;
	}
	case OP_SIZE: {
		if (need_inputs(n, 1, 1, d) || set_out(g, n, 0, DTYPE_I64, 0, dims, d))
			return -1;
		int64_t *v = arena_alloc(&g->arena, sizeof *v);
		*v = ir_numel(x);
		n->outputs[0]->data = v;
		return 0;
	}
	case OP_RANGE:
		if (need_inputs(n, 3, 3, d))
			return -1;
		return infer_range(g, n, d);
	default: unreachable("typed_infer on an op without a typed rule");
	}
}

/* ---- canonical form ---------------------------------------------------------- */

static void put_int(struct graph *g, struct node *n, const char *name, int64_t v)
{
	struct attr *a = ir_attr(n, name);
	if (!a)
		a = ir_add_attr(g, n, name, ATTR_INT);
	a->kind = ATTR_INT;
	a->i = v;
	a->used = 1;
}

int typed_canon(struct graph *g, struct node *n, struct diag *d)
{
	int err = 0;
	for (int i = 0; i < n->n_inputs; i++) {
		const struct tensor *t = n->inputs[i];
		if (t && !typed_dtype_ok(t->dtype)) {
			diag_error(d, n, "unsupported data type %s for input '%s'", ir_dtype_names[t->dtype],
			           t->name);
			err++;
		}
		if (t && t->rank > RT_MAX_RANK) {
			diag_error(d, n, "rank %d of input '%s' exceeds the supported maximum of %d",
			           t->rank, t->name, RT_MAX_RANK);
			err++;
		}
	}
	for (int i = 0; i < n->n_outputs; i++) {
		const struct tensor *t = n->outputs[i];
		if (t && !typed_dtype_ok(t->dtype)) {
			diag_error(d, n, "unsupported data type %s for output '%s'", ir_dtype_names[t->dtype],
			           t->name);
			err++;
		}
	}
	if (err)
		return err;
	struct tensor *x = n->inputs[0], *kt;
	int64_t axis;
	switch (n->op) {
	case OP_BITSHIFT: {
		const char *dir = ir_attr_string(n, "direction", "");
		if (strcmp(dir, "LEFT") != 0 && strcmp(dir, "RIGHT") != 0) {
			diag_error(d, n, "direction must be LEFT or RIGHT, not '%s'", dir);
			return 1;
		}
		if (!is_int(x->dtype)) {
			diag_error(d, n, "BitShift on %s", ir_dtype_names[x->dtype]);
			return 1;
		}
		put_int(g, n, "left", strcmp(dir, "LEFT") == 0);
		break;
	}
	case OP_MOD:
		put_int(g, n, "fmod", ir_attr_int(n, "fmod", 0));
		if (!is_int(x->dtype) && !ir_attr_int(n, "fmod", 0)) {
			diag_error(d, n, "Mod on %s needs fmod = 1", ir_dtype_names[x->dtype]);
			return 1;
		}
		break;
	case OP_ISINF:
		put_int(g, n, "detect_positive", ir_attr_int(n, "detect_positive", 1));
		put_int(g, n, "detect_negative", ir_attr_int(n, "detect_negative", 1));
		break;
	case OP_ARGMAX:
	case OP_ARGMIN:
		axis = ir_attr_int(n, "axis", 0);
		if (norm_axis(n, &axis, x->rank, d))
			return 1;
		put_int(g, n, "axis", axis);
		put_int(g, n, "keepdims", ir_attr_int(n, "keepdims", 1));
		put_int(g, n, "select_last_index", ir_attr_int(n, "select_last_index", 0));
		break;
	case OP_TOPK:
		axis = ir_attr_int(n, "axis", -1);
		if (norm_axis(n, &axis, x->rank, d) || const_scalar(n, 1, "K", &kt, d) != 1)
			return 1;
		put_int(g, n, "axis", axis);
		put_int(g, n, "k", const_i(kt, 0));
		put_int(g, n, "largest", ir_attr_int(n, "largest", 1));
		ir_attr_int(n, "sorted", 1); /* always sorted: a valid order for sorted = 0 too */
		n->n_inputs = 1;
		break;
	case OP_CUMSUM:
		if (const_scalar(n, 1, "axis", &kt, d) != 1)
			return 1;
		axis = const_i(kt, 0);
		if (norm_axis(n, &axis, x->rank, d))
			return 1;
		put_int(g, n, "axis", axis);
		put_int(g, n, "exclusive", ir_attr_int(n, "exclusive", 0));
		put_int(g, n, "reverse", ir_attr_int(n, "reverse", 0));
		n->n_inputs = 1;
		break;
	case OP_TRILU: {
		int have = const_scalar(n, 1, "k", &kt, d);
		if (have < 0)
			return 1;
		put_int(g, n, "k", have ? const_i(kt, 0) : 0);
		put_int(g, n, "upper", ir_attr_int(n, "upper", 1));
		n->n_inputs = 1;
		break;
	}
	case OP_GATHER:
		axis = ir_attr_int(n, "axis", 0);
		if (norm_axis(n, &axis, x->rank, d))
			return 1;
		put_int(g, n, "axis", axis);
		break;
	case OP_GATHER_ELEMENTS:
		axis = ir_attr_int(n, "axis", 0);
		if (norm_axis(n, &axis, x->rank, d))
			return 1;
		put_int(g, n, "axis", axis);
		break;
	case OP_NLL_LOSS:
	case OP_SCE_LOSS: {
		const char *red = ir_attr_string(n, "reduction", "mean");
		int r = strcmp(red, "none") == 0 ? 0 : strcmp(red, "sum") == 0 ? 1
		        : strcmp(red, "mean") == 0 ? 2 : -1;
		if (r < 0) {
			diag_error(d, n, "reduction '%s' is not none, sum or mean", red);
			return 1;
		}
		if (x->dtype != DTYPE_F32 || (n->n_inputs > 2 && n->inputs[2] &&
		                              n->inputs[2]->dtype != DTYPE_F32) ||
		    (n->inputs[1]->dtype != DTYPE_I64 && n->inputs[1]->dtype != DTYPE_I32)) {
			diag_error(d, n, "only float32 scores and weights with int64 or int32 targets are "
			           "supported");
			return 1;
		}
		put_int(g, n, "reduction", r);
		struct attr *a = ir_attr(n, "ignore_index");
		put_int(g, n, "has_ignore", a != NULL);
		put_int(g, n, "ignore_index", a ? a->i : 0);
		break;
	}
	case OP_SIZE:
	case OP_RANGE:
		diag_error(d, n, "%s was not folded into a constant", ir_op_names[n->op]);
		return 1;
	default: break;
	}
	return 0;
}

/* Outputs an op of this file defines: TopK's indices and
 * SoftmaxCrossEntropyLoss's log_prob are the only second ones. */
static int max_outputs(enum op op)
{
	return op == OP_TOPK || op == OP_SCE_LOSS ? 2 : 1;
}

int typed_infer(struct graph *g, struct node *n, struct diag *d)
{
	const int max_out = max_outputs(n->op);
	for (int i = max_out; i < n->n_outputs; i++)
		if (n->outputs[i]) { /* a rule gives shapes to its outputs only */
			diag_error(d, n, "has %d outputs, expected at most %d", n->n_outputs, max_out);
			return -1;
		}
	if (typed_infer_rule(g, n, d))
		return -1;
	if (folds_small(n->op)) /* the rule gave output 0 its shape */
		fold_small(g, n);
	return 0;
}
