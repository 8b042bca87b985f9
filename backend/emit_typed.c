/* emit_typed.c - the layer bodies of the nodes computed by the runtime's
 * typed_*.c kernels (integer, boolean and float64 tensors; passes/typed_ops.c
 * says which nodes and brings them into canonical form). emit.c asks
 * emit_typed_layer() for a node's arguments, runtime unit and body text and
 * prints them like any other layer: the body is C statements calling one
 * kernel with literal parameters, the arguments are the node's data inputs
 * and then its outputs, typed as their dtypes (emit_ctype). */
#include "config.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "backend/backend.h"
#include "runtime/rt_types.h"

enum rt_unit_t {
#define X(e, f) e,
#include "runtime/units.def"
#undef X
	RT_UNIT_T_COUNT_
};

const char *emit_ctype(enum dtype dt)
{
	switch (dt) {
	case DTYPE_F32: return "float";
	case DTYPE_F64: return "double";
	case DTYPE_I64: return "int64_t";
	case DTYPE_I32: return "int32_t";
	case DTYPE_I8: return "int8_t";
	case DTYPE_U8:
	case DTYPE_BOOL: return "uint8_t";
	default: unreachable("C type of a dtype generated code does not compute on");
	}
}

int emit_onnx_dtype(enum dtype dt)
{
	switch (dt) {
	case DTYPE_F32: return 1;
	case DTYPE_U8: return 2;
	case DTYPE_I8: return 3;
	case DTYPE_I32: return 6;
	case DTYPE_I64: return 7;
	case DTYPE_BOOL: return 9;
	case DTYPE_F64: return 11;
	default: return 0;
	}
}

static const char *rt_dt(enum dtype dt)
{
	switch (dt) {
	case DTYPE_F32: return "RT_DT_F32";
	case DTYPE_F64: return "RT_DT_F64";
	case DTYPE_I64: return "RT_DT_I64";
	case DTYPE_I32: return "RT_DT_I32";
	case DTYPE_I8: return "RT_DT_I8";
	case DTYPE_U8: return "RT_DT_U8";
	case DTYPE_BOOL: return "RT_DT_BOOL";
	default: unreachable("runtime dtype of an unsupported dtype");
	}
}

/* A growing text buffer. */
struct text {
	char *s;
	size_t len, cap;
};

static void put(struct text *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void put(struct text *t, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (t->len + (size_t)n + 1 > t->cap) {
		t->cap = 2 * (t->len + (size_t)n + 1);
		t->s = xrealloc(t->s, t->cap);
	}
	va_start(ap, fmt);
	vsnprintf(t->s + t->len, t->cap - t->len, fmt, ap);
	va_end(ap);
	t->len += (size_t)n;
}

static int64_t prod(const int64_t *dims, int from, int to)
{
	int64_t r = 1;
	for (int i = from; i < to; i++)
		r *= dims[i];
	return r;
}

/* "static const struct rt_tbcast p = ..." for the output y and n operands
 * broadcast to it. */
static int put_tbcast(struct text *t, const struct tensor *y, int n,
                      const struct tensor *const *ops, struct node *node, struct diag *d)
{
	int64_t s[3][IR_MAX_RANK] = {{0}};
	for (int o = 0; o < n; o++) {
		const struct tensor *x = ops[o];
		int64_t st = 1;
		for (int k = y->rank - 1; k >= 0; k--) {
			int xk = k - (y->rank - x->rank);
			int64_t xd = xk >= 0 ? x->dims[xk] : 1;
			s[o][k] = xd == 1 ? 0 : st;
			st *= xd;
		}
	}
	for (int k = 0; k < y->rank; k++)
		if (y->dims[k] > INT32_MAX) {
			diag_error(d, node, "dimension %" PRId64 " does not fit the runtime's int parameters",
			           y->dims[k]);
			return -1;
		}
	put(t, "static const struct rt_tbcast p = {%d, {", y->rank);
	for (int k = 0; k < y->rank || k == 0; k++)
		put(t, "%s%" PRId64, k ? ", " : "", y->rank ? y->dims[k] : 0);
	put(t, "}, {");
	for (int o = 0; o < 3; o++) {
		put(t, "%s{", o ? ", " : "");
		for (int k = 0; k < y->rank || k == 0; k++)
			put(t, "%s%" PRId64, k ? ", " : "", y->rank ? s[o][k] : 0);
		put(t, "}");
	}
	put(t, "}};\n");
	return 0;
}

static int tbinop(const struct node *n)
{
	switch (n->op) {
	case OP_ADD: return 0;
	case OP_SUB: return 1;
	case OP_MUL: return 2;
	case OP_DIV: return 3;
	case OP_MOD: return ir_attr_int((struct node *)n, "fmod", 0) ? 5 : 4;
	case OP_MAX: return 6;
	case OP_MIN: return 7;
	case OP_BITSHIFT: return ir_attr_int((struct node *)n, "left", 1) ? 8 : 9;
	case OP_EQUAL: return 10;
	case OP_LESS: return 11;
	case OP_GREATER: return 12;
	case OP_LESS_OR_EQUAL: return 13;
	case OP_GREATER_OR_EQUAL: return 14;
	case OP_AND: return 15;
	case OP_OR: return 16;
	case OP_XOR: return 17;
	case OP_POW: return 18;
	default: return -1;
	}
}

static const char *const tbinop_names[] = {
	"RT_TB_ADD", "RT_TB_SUB", "RT_TB_MUL", "RT_TB_DIV", "RT_TB_MOD", "RT_TB_FMOD",
	"RT_TB_MAX", "RT_TB_MIN", "RT_TB_SHL", "RT_TB_SHR", "RT_TB_EQ", "RT_TB_LT",
	"RT_TB_GT", "RT_TB_LE", "RT_TB_GE", "RT_TB_AND", "RT_TB_OR", "RT_TB_XOR", "RT_TB_POW",
};

int emit_typed_layer(const struct graph *g, struct node *n, struct diag *d,
                     struct emit_typed_layer *out)
{
	static const char *const in_names[] = {"a", "b", "c", "e"};
	static const char *const out_names[] = {"y", "y1"};
	struct text t = {NULL, 0, 0};
	struct tensor *x = n->inputs[0], *y = n->outputs[0];
	out->n_args = out->n_outs = 0;
	int n_data = n->n_inputs;
	if (n->op == OP_CAST_LIKE)
		n_data = 1;
	for (int i = 0; i < n_data && i < 4; i++) {
		if (!n->inputs[i])
			continue;
		out->args[out->n_args] = n->inputs[i];
		out->arg_names[out->n_args++] = in_names[i];
	}
	for (int i = 0; i < n->n_outputs && i < 2; i++) {
		struct tensor *o = n->outputs[i];
		if (!o || (i > 0 && !o->is_output && ir_use_count(g, o) == 0))
			continue;
		out->args[out->n_args] = o;
		out->arg_names[out->n_args++] = out_names[i];
		out->n_outs++;
	}
	size_t numel = (size_t)ir_numel(y);
	int rc = 0;
	switch (n->op) {
	case OP_CAST:
	case OP_CAST_LIKE:
		out->unit = RT_UNIT_CAST;
		out->kernel = "rt_cast";
		put(&t, "rt_cast(%zu, %s, a, %s, y);\n", numel, rt_dt(x->dtype), rt_dt(y->dtype));
		break;
	case OP_NOT:
	case OP_ABS:
	case OP_NEG:
	case OP_SIGN:
	case OP_ISNAN:
	case OP_ISINF: {
		const char *op = n->op == OP_NOT ? "RT_TU_NOT" : n->op == OP_ABS ? "RT_TU_ABS"
		                 : n->op == OP_NEG ? "RT_TU_NEG" : n->op == OP_SIGN ? "RT_TU_SIGN"
		                 : n->op == OP_ISNAN ? "RT_TU_ISNAN" : NULL;
		if (!op) {
			int pos = (int)ir_attr_int(n, "detect_positive", 1) != 0;
			int neg = (int)ir_attr_int(n, "detect_negative", 1) != 0;
			op = pos && neg ? "RT_TU_ISINF" : pos ? "RT_TU_ISPOSINF" : neg ? "RT_TU_ISNEGINF"
			                                                               : NULL;
		}
		out->unit = RT_UNIT_TUNARY;
		out->kernel = "rt_tunary";
		if (!op) /* IsInf detecting neither sign: all false */
			put(&t, "memset(y, 0, %zu);\n", numel);
		else
			put(&t, "rt_tunary(%s, %zu, %s, a, %s, y);\n", op, numel, rt_dt(x->dtype),
			    rt_dt(y->dtype));
		break;
	}
	case OP_WHERE: {
		const struct tensor *ops[3] = {n->inputs[0], n->inputs[1], n->inputs[2]};
		out->unit = RT_UNIT_WHERE;
		out->kernel = "rt_where";
		rc = put_tbcast(&t, y, 3, ops, n, d);
		put(&t, "rt_where(&p, %zu, a, b, c, y);\n", ir_dtype_size(y->dtype));
		break;
	}
	case OP_GATHER: {
		int axis = (int)ir_attr_int(n, "axis", 0);
		out->unit = RT_UNIT_GATHER;
		out->kernel = "rt_gather";
		put(&t, "rt_gather(%zu, a, %s, b, y, %" PRId64 ", %" PRId64 ", %" PRId64 ", %" PRId64
		        ");\n",
		    ir_dtype_size(x->dtype), rt_dt(n->inputs[1]->dtype), prod(x->dims, 0, axis),
		    x->dims[axis], prod(x->dims, axis + 1, x->rank), ir_numel(n->inputs[1]));
		break;
	}
	case OP_ARGMAX:
	case OP_ARGMIN: {
		int axis = (int)ir_attr_int(n, "axis", 0);
		out->unit = RT_UNIT_ARGMAX;
		out->kernel = "rt_argmax";
		put(&t, "rt_argmax(%s, a, y, %" PRId64 ", %" PRId64 ", %" PRId64 ", %d, %d);\n",
		    rt_dt(x->dtype), prod(x->dims, 0, axis), x->dims[axis],
		    prod(x->dims, axis + 1, x->rank), n->op == OP_ARGMIN,
		    (int)ir_attr_int(n, "select_last_index", 0) != 0);
		break;
	}
	case OP_TOPK: {
		int axis = (int)ir_attr_int(n, "axis", -1);
		out->unit = RT_UNIT_TOPK;
		out->kernel = "rt_topk";
		if (out->n_outs != 2 || out->arg_names[out->n_args - 1][1] != '1') {
			diag_error(d, n, "TopK is supported with both outputs used");
			rc = -1;
			break;
		}
		put(&t, "rt_topk(%s, a, y, y1, %" PRId64 ", %" PRId64 ", %" PRId64 ", %" PRId64
		        ", %d);\n",
		    rt_dt(x->dtype), prod(x->dims, 0, axis), x->dims[axis],
		    prod(x->dims, axis + 1, x->rank), ir_attr_int(n, "k", 1),
		    (int)ir_attr_int(n, "largest", 1) != 0);
		break;
	}
	case OP_CUMSUM: {
		int axis = (int)ir_attr_int(n, "axis", 0);
		out->unit = RT_UNIT_CUMSUM;
		out->kernel = "rt_cumsum";
		put(&t, "rt_cumsum(%s, a, y, %" PRId64 ", %" PRId64 ", %" PRId64 ", %d, %d);\n",
		    rt_dt(x->dtype), prod(x->dims, 0, axis), x->dims[axis],
		    prod(x->dims, axis + 1, x->rank), (int)ir_attr_int(n, "exclusive", 0) != 0,
		    (int)ir_attr_int(n, "reverse", 0) != 0);
		break;
	}
	case OP_TRILU:
		out->unit = RT_UNIT_TRILU;
		out->kernel = "rt_trilu";
		put(&t, "rt_trilu(%zu, a, y, %" PRId64 ", %" PRId64 ", %" PRId64 ", %" PRId64 ", %d);\n",
		    ir_dtype_size(x->dtype), prod(x->dims, 0, x->rank - 2), x->dims[x->rank - 2],
		    x->dims[x->rank - 1], ir_attr_int(n, "k", 0), (int)ir_attr_int(n, "upper", 1) != 0);
		break;
	case OP_GATHER_ELEMENTS: {
		const struct tensor *idx = n->inputs[1];
		out->unit = RT_UNIT_GATHER_ELEMENTS;
		out->kernel = "rt_gather_elements";
		put(&t, "static const int xdims[] = {");
		for (int k = 0; k < x->rank; k++)
			put(&t, "%s%" PRId64, k ? ", " : "", x->dims[k]);
		put(&t, "};\nstatic const int idims[] = {");
		for (int k = 0; k < idx->rank; k++)
			put(&t, "%s%" PRId64, k ? ", " : "", idx->dims[k]);
		put(&t, "};\nrt_gather_elements(%zu, a, %s, b, y, %d, xdims, idims, %d);\n",
		    ir_dtype_size(x->dtype), rt_dt(idx->dtype), x->rank,
		    (int)ir_attr_int(n, "axis", 0));
		break;
	}
	case OP_NLL_LOSS:
	case OP_SCE_LOSS: {
		int has_w = n->n_inputs > 2 && n->inputs[2];
		int has_logp = out->n_outs == 2;
		out->unit = RT_UNIT_NLL;
		out->kernel = "rt_nll";
		put(&t, "rt_nll(a, %s, b, %s, y, %s, %" PRId64 ", %" PRId64 ", %" PRId64
		        ", %d, %d, INT64_C(%" PRId64 "), %d);\n",
		    rt_dt(n->inputs[1]->dtype), has_w ? "c" : "NULL", has_logp ? "y1" : "NULL",
		    x->dims[0], x->dims[1], prod(x->dims, 2, x->rank),
		    (int)ir_attr_int(n, "reduction", 2), (int)ir_attr_int(n, "has_ignore", 0),
		    ir_attr_int(n, "ignore_index", 0), n->op == OP_SCE_LOSS);
		break;
	}
	default: {
		/* The broadcast binary ops: ops.def's OPF_TBINARY rows. */
		if (!ir_op_has(n->op, OPF_TBINARY)) {
			diag_error(d, n, "internal error: no typed kernel for %s", ir_op_names[n->op]);
			rc = -1;
			break;
		}
		const struct tensor *ops[2] = {n->inputs[0], n->inputs[1]};
		out->unit = RT_UNIT_TBINARY;
		out->kernel = "rt_tbinary";
		rc = put_tbcast(&t, y, 2, ops, n, d);
		put(&t, "rt_tbinary(%s, &p, %s, a, %s, b, %s, y);\n", tbinop_names[tbinop(n)],
		    rt_dt(ops[0]->dtype), rt_dt(ops[1]->dtype), rt_dt(y->dtype));
	}
	}
	if (rc) {
		free(t.s);
		return -1;
	}
	out->body = t.s;
	return 0;
}
