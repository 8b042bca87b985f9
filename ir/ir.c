/* ir.c - construction and queries of the graph. All IR objects come from the
 * graph's arena; only the nodes/tensors pointer arrays and the mapped model
 * file are separate allocations, released by ir_graph_free. */
#include <float.h>
#include <stdlib.h>
#include <string.h>

#include "ir/ir.h"

const char *const ir_op_names[OP_COUNT_] = {
#define OP(e, onnx, arity, canon_arity, kind, flags) onnx,
#include "ir/ops.def"
#undef OP
};

const struct op_info ir_ops[OP_COUNT_] = {
#define OP(e, onnx, arity, canon_arity, kind, flags) {onnx, arity, canon_arity, kind, flags},
#include "ir/ops.def"
#undef OP
};

const char *const ir_dtype_names[DTYPE_COUNT_] = {
	"undef", "float32", "float64", "int64", "int32", "int8", "uint8", "bool", "other",
};

const char *const ir_layout_names[LAYOUT_COUNT_] = {
	"model", "chw", "hcw", "hwc", "chw8c", "chw16c",
};

const char *const ir_act_names[ACT_COUNT_] = {
	"none", "relu", "leaky_relu", "clip", "sigmoid", "tanh",
};

/* Parallel tables indexed by an enum must have one row per constant. */
_Static_assert(sizeof ir_op_names / sizeof ir_op_names[0] == OP_COUNT_, "op names");
_Static_assert(sizeof ir_ops / sizeof ir_ops[0] == OP_COUNT_, "op table");
_Static_assert(sizeof ir_dtype_names / sizeof ir_dtype_names[0] == DTYPE_COUNT_, "dtype names");

struct graph *ir_graph_new(const char *source)
{
	struct graph *g = xcalloc(1, sizeof *g);
	arena_init(&g->arena);
	g->source = arena_strdup(&g->arena, source ? source : "");
	g->producer = "";
	return g;
}

void ir_graph_free(struct graph *g)
{
	if (!g)
		return;
	free(g->nodes);
	free(g->tensors);
	free(g->by_name);
	free(g->mapped);
	arena_free(&g->arena);
	free(g);
}

/* FNV-1a: names are short and this keeps graph construction linear. */
static size_t name_hash(const char *s)
{
	size_t h = 2166136261u;
	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 16777619u;
	return h;
}

static void name_insert(struct graph *g, struct tensor *t)
{
	size_t i = name_hash(t->name) & (g->name_cap - 1);
	while (g->by_name[i])
		i = (i + 1) & (g->name_cap - 1);
	g->by_name[i] = t;
}

/* Rebuilds the name table for the current tensors, growing it as needed. */
static void name_rehash(struct graph *g)
{
	size_t cap = 64;
	while (cap <= 2 * (size_t)g->n_tensors + 2)
		cap *= 2;
	free(g->by_name);
	g->by_name = xcalloc(cap, sizeof *g->by_name);
	g->name_cap = cap;
	for (int i = 0; i < g->n_tensors; i++)
		name_insert(g, g->tensors[i]);
}

struct tensor *ir_find_tensor(struct graph *g, const char *name)
{
	if (!g->by_name)
		return NULL;
	for (size_t i = name_hash(name) & (g->name_cap - 1); g->by_name[i];
	     i = (i + 1) & (g->name_cap - 1))
		if (strcmp(g->by_name[i]->name, name) == 0)
			return g->by_name[i];
	return NULL;
}

static const char *unique_tensor_name(struct graph *g, const char *name)
{
	if (!ir_find_tensor(g, name))
		return arena_strdup(&g->arena, name);
	size_t n = strlen(name) + 24;
	char *buf = arena_alloc(&g->arena, n);
	for (int k = 1;; k++) {
		snprintf(buf, n, "%s_%d", name, k);
		if (!ir_find_tensor(g, buf))
			return buf;
	}
}

struct tensor *ir_new_tensor(struct graph *g, const char *name, enum dtype dtype)
{
	struct tensor *t = arena_alloc(&g->arena, sizeof *t);
	t->name = unique_tensor_name(g, name && *name ? name : "t");
	t->dtype = dtype;
	t->rank = -1;
	t->layout = LAYOUT_MODEL;
	if (g->n_tensors == g->cap_tensors) {
		g->cap_tensors = g->cap_tensors ? 2 * g->cap_tensors : 64;
		g->tensors = xrealloc(g->tensors, g->cap_tensors * sizeof *g->tensors);
	}
	t->index = g->n_tensors;
	g->tensors[g->n_tensors++] = t;
	if (2 * (size_t)g->n_tensors + 2 >= g->name_cap)
		name_rehash(g);
	else
		name_insert(g, t);
	return t;
}

struct tensor *ir_new_constant(struct graph *g, const char *name, enum dtype dtype, int rank,
                               const int64_t *dims, void *data)
{
	struct tensor *t = ir_new_tensor(g, name, dtype);
	ir_set_shape(t, rank, dims);
	t->data = data;
	return t;
}

struct node *ir_add_node(struct graph *g, enum op op, const char *name, int n_inputs,
                         struct tensor *const *inputs, int n_outputs,
                         struct tensor *const *outputs)
{
	struct node *n = arena_alloc(&g->arena, sizeof *n);
	n->op = op;
	if (name && *name) {
		n->name = arena_strdup(&g->arena, name);
	} else {
		char buf[64];
		snprintf(buf, sizeof buf, "%s_%d", ir_op_names[op], g->n_nodes);
		n->name = arena_strdup(&g->arena, buf);
	}
	n->n_inputs = n_inputs;
	n->inputs = arena_alloc(&g->arena, (n_inputs ? n_inputs : 1) * sizeof *n->inputs);
	for (int i = 0; i < n_inputs; i++)
		n->inputs[i] = inputs[i];
	n->n_outputs = n_outputs;
	n->outputs = arena_alloc(&g->arena, (n_outputs ? n_outputs : 1) * sizeof *n->outputs);
	for (int i = 0; i < n_outputs; i++) {
		n->outputs[i] = outputs[i];
		if (outputs[i])
			outputs[i]->producer = n;
	}
	if (g->n_nodes == g->cap_nodes) {
		g->cap_nodes = g->cap_nodes ? 2 * g->cap_nodes : 64;
		g->nodes = xrealloc(g->nodes, g->cap_nodes * sizeof *g->nodes);
	}
	n->index = g->n_nodes;
	g->nodes[g->n_nodes++] = n;
	return n;
}

struct attr *ir_add_attr(struct graph *g, struct node *n, const char *name, enum attr_kind kind)
{
	struct attr *a = arena_alloc(&g->arena, (n->n_attrs + 1) * sizeof *a);
	if (n->n_attrs)
		memcpy(a, n->attrs, n->n_attrs * sizeof *a);
	n->attrs = a;
	a += n->n_attrs++;
	a->name = arena_strdup(&g->arena, name);
	a->kind = kind;
	return a;
}

void ir_set_shape(struct tensor *t, int rank, const int64_t *dims)
{
	if (rank < 0 || rank > IR_MAX_RANK)
		unreachable("rank out of range");
	t->rank = rank;
	for (int i = 0; i < rank; i++)
		t->dims[i] = dims[i];
}

void ir_replace_uses(struct graph *g, struct tensor *from, struct tensor *to)
{
	for (int i = 0; i < g->n_nodes; i++) {
		struct node *n = g->nodes[i];
		if (n->dead)
			continue;
		for (int k = 0; k < n->n_inputs; k++)
			if (n->inputs[k] == from)
				n->inputs[k] = to;
	}
	for (int k = 0; k < g->n_outputs; k++)
		if (g->outputs[k] == from)
			g->outputs[k] = to;
}

int ir_use_count(const struct graph *g, const struct tensor *t)
{
	int uses = 0;
	for (int i = 0; i < g->n_nodes; i++) {
		const struct node *n = g->nodes[i];
		if (n->dead)
			continue;
		for (int k = 0; k < n->n_inputs; k++)
			uses += n->inputs[k] == t;
	}
	return uses;
}

void ir_compact(struct graph *g)
{
	int k = 0;
	for (int i = 0; i < g->n_nodes; i++) {
		if (g->nodes[i]->dead)
			continue;
		g->nodes[i]->index = k;
		g->nodes[k++] = g->nodes[i];
	}
	g->n_nodes = k;

	/* A tensor stays when a live node reads or writes it or the graph
	 * exposes it. */
	unsigned char *live = xcalloc(g->n_tensors ? g->n_tensors : 1, 1);
	for (int i = 0; i < g->n_tensors; i++)
		g->tensors[i]->index = i;
	for (int i = 0; i < g->n_nodes; i++) {
		struct node *n = g->nodes[i];
		for (int j = 0; j < n->n_inputs; j++)
			if (n->inputs[j])
				live[n->inputs[j]->index] = 1;
		for (int j = 0; j < n->n_outputs; j++)
			if (n->outputs[j])
				live[n->outputs[j]->index] = 1;
	}
	for (int j = 0; j < g->n_inputs; j++)
		live[g->inputs[j]->index] = 1;
	for (int j = 0; j < g->n_outputs; j++)
		live[g->outputs[j]->index] = 1;
	k = 0;
	for (int i = 0; i < g->n_tensors; i++) {
		struct tensor *t = g->tensors[i];
		if (!live[i])
			continue;
		if (t->producer && t->producer->dead)
			t->producer = NULL;
		t->index = k;
		g->tensors[k++] = t;
	}
	g->n_tensors = k;
	free(live);
	name_rehash(g);
}

int64_t ir_numel(const struct tensor *t)
{
	int64_t n = 1;
	for (int i = 0; i < t->rank; i++)
		n *= t->dims[i];
	return n;
}

void ir_matmul_dims(const struct tensor *a, const struct tensor *b, int64_t *m, int64_t *n,
                    int64_t *k, int64_t *kb)
{
	*m = a->rank >= 2 ? a->dims[a->rank - 2] : 1;
	*k = a->dims[a->rank - 1];
	*n = b->rank >= 2 ? b->dims[b->rank - 1] : 1;
	if (kb)
		*kb = b->rank >= 2 ? b->dims[b->rank - 2] : b->dims[0];
}

int64_t ir_saturate_i64(double v)
{
	if (v != v)
		return 0;
	if (v >= 9223372036854775807.0)
		return INT64_MAX;
	if (v <= -9223372036854775808.0)
		return INT64_MIN;
	return (int64_t)v;
}

/* Element i of a constant, as an integer (floats truncate toward zero, as
 * ONNX Cast does) or as a double. */
int64_t ir_elem_i(enum dtype dt, const void *p, int64_t i)
{
	switch (dt) {
	case DTYPE_F32: return ir_saturate_i64(((const float *)p)[i]);
	case DTYPE_F64: return ir_saturate_i64(((const double *)p)[i]);
	case DTYPE_I64: return ((const int64_t *)p)[i];
	case DTYPE_I32: return ((const int32_t *)p)[i];
	case DTYPE_I8: return ((const int8_t *)p)[i];
	case DTYPE_U8: return ((const uint8_t *)p)[i];
	case DTYPE_BOOL: return ((const uint8_t *)p)[i] != 0;
	default: unreachable("ir_elem_i on a dtype without numbers");
	}
}

double ir_elem_f(enum dtype dt, const void *p, int64_t i)
{
	switch (dt) {
	case DTYPE_F32: return ((const float *)p)[i];
	case DTYPE_F64: return ((const double *)p)[i];
	default: return (double)ir_elem_i(dt, p, i);
	}
}

size_t ir_dtype_size(enum dtype dt)
{
	switch (dt) {
	case DTYPE_F32: return 4;
	case DTYPE_F64: return 8;
	case DTYPE_I64: return 8;
	case DTYPE_I32: return 4;
	case DTYPE_I8: return 1;
	case DTYPE_U8: return 1;
	case DTYPE_BOOL: return 1;
	default: return 0;
	}
}

size_t ir_nbytes(const struct tensor *t)
{
	size_t n = (size_t)ir_numel(t) * ir_dtype_size(t->dtype);
	int block = t->layout == LAYOUT_CHW8C ? 8 : t->layout == LAYOUT_CHW16C ? 16 : 0;
	if (block && t->rank >= 2 && t->dims[1] > 0) /* [N][ceil(C/b)][...][b] */
		n = n / (size_t)t->dims[1] * (size_t)((t->dims[1] + block - 1) / block * block);
	return n;
}

struct attr *ir_attr(struct node *n, const char *name)
{
	for (int i = 0; i < n->n_attrs; i++) {
		if (strcmp(n->attrs[i].name, name) == 0) {
			n->attrs[i].used = 1;
			return &n->attrs[i];
		}
	}
	return NULL;
}

int64_t ir_attr_int(struct node *n, const char *name, int64_t dflt)
{
	struct attr *a = ir_attr(n, name);
	return a && a->kind == ATTR_INT ? a->i : dflt;
}

double ir_attr_float(struct node *n, const char *name, double dflt)
{
	struct attr *a = ir_attr(n, name);
	if (!a)
		return dflt;
	if (a->kind == ATTR_FLOAT)
		return a->f;
	if (a->kind == ATTR_INT)
		return (double)a->i;
	return dflt;
}

/* ONNX defaults: LeakyRelu alpha 0.01; Clip the float range (canonicalize
 * writes both bounds as attributes, so later stages never see the default). */
enum act ir_act_of(struct node *n, float *alpha, float *beta)
{
	*alpha = *beta = 0.0f;
	switch (n->op) {
	case OP_RELU: return ACT_RELU;
	case OP_LEAKY_RELU: *alpha = (float)ir_attr_float(n, "alpha", 0.01); return ACT_LEAKY_RELU;
	case OP_CLIP:
		*alpha = (float)ir_attr_float(n, "min", -FLT_MAX);
		*beta = (float)ir_attr_float(n, "max", FLT_MAX);
		return ACT_CLIP;
	case OP_SIGMOID: return ACT_SIGMOID;
	case OP_TANH: return ACT_TANH;
	default: return ACT_NONE;
	}
}

const char *ir_attr_string(struct node *n, const char *name, const char *dflt)
{
	struct attr *a = ir_attr(n, name);
	return a && a->kind == ATTR_STRING ? a->s : dflt;
}

int ir_attr_ints(struct node *n, const char *name, const int64_t **out)
{
	struct attr *a = ir_attr(n, name);
	if (!a || a->kind != ATTR_INTS) {
		*out = NULL;
		return 0;
	}
	*out = a->ints;
	return a->n;
}
