/* test_onnx.c - the ONNX frontend (frontend/onnx.c). Models are built here
 * with the protobuf-c API, packed, written to a temporary file and read back
 * with onnx_read; the tests check the IR it produces and the exact text of
 * the messages it reports for malformed models. A seeded mutation fuzz test
 * feeds thousands of corrupted encodings and checks that every one ends in
 * either a structurally valid graph or reported errors (run it under ASan and
 * UBSan too). */
#include <criterion/criterion.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "frontend/frontend.h"
#include "frontend/onnx.pb-c.h"

/* ---- building models ------------------------------------------------------
 * Every part is malloc'd so protobuf_c_message_free_unpacked(m, NULL) frees
 * a built model like an unpacked one. */

#define PUSH(arr, n, v)                                              \
	do {                                                         \
		(arr) = realloc((arr), ((n) + 1) * sizeof *(arr));   \
		(arr)[(n)++] = (v);                                  \
	} while (0)

static char *dup_str(const char *s)
{
	return s ? strdup(s) : NULL;
}

enum {
	T_FLOAT = ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT,
	T_UINT8 = ONNX__TENSOR_PROTO__DATA_TYPE__UINT8,
	T_INT8 = ONNX__TENSOR_PROTO__DATA_TYPE__INT8,
	T_INT32 = ONNX__TENSOR_PROTO__DATA_TYPE__INT32,
	T_INT64 = ONNX__TENSOR_PROTO__DATA_TYPE__INT64,
	T_STRING = ONNX__TENSOR_PROTO__DATA_TYPE__STRING,
	T_BOOL = ONNX__TENSOR_PROTO__DATA_TYPE__BOOL,
	T_FLOAT16 = ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT16,
	T_DOUBLE = ONNX__TENSOR_PROTO__DATA_TYPE__DOUBLE,
};

static Onnx__ModelProto *model_new(int64_t opset)
{
	Onnx__ModelProto *m = malloc(sizeof *m);
	onnx__model_proto__init(m);
	m->has_ir_version = 1;
	m->ir_version = 8;
	m->producer_name = dup_str("test");
	m->producer_version = dup_str("1.0");
	Onnx__OperatorSetIdProto *o = malloc(sizeof *o);
	onnx__operator_set_id_proto__init(o);
	o->domain = dup_str("");
	o->has_version = 1;
	o->version = opset;
	PUSH(m->opset_import, m->n_opset_import, o);
	m->graph = malloc(sizeof *m->graph);
	onnx__graph_proto__init(m->graph);
	m->graph->name = dup_str("g");
	return m;
}

/* Splits "a,,b" into names ("" for an omitted one); "" gives none. */
static void split_names(const char *list, size_t *n, char ***out)
{
	*n = 0;
	*out = NULL;
	if (!list || !*list)
		return;
	const char *p = list;
	for (;;) {
		const char *comma = strchr(p, ',');
		size_t len = comma ? (size_t)(comma - p) : strlen(p);
		PUSH(*out, *n, strndup(p, len));
		if (!comma)
			break;
		p = comma + 1;
	}
}

static Onnx__NodeProto *add_node(Onnx__GraphProto *g, const char *op, const char *name,
                                 const char *inputs, const char *outputs)
{
	Onnx__NodeProto *n = malloc(sizeof *n);
	onnx__node_proto__init(n);
	n->op_type = dup_str(op);
	n->name = dup_str(name);
	split_names(inputs, &n->n_input, &n->input);
	split_names(outputs, &n->n_output, &n->output);
	PUSH(g->node, g->n_node, n);
	return n;
}

static Onnx__AttributeProto *add_attr(Onnx__NodeProto *n, const char *name,
                                      Onnx__AttributeProto__AttributeType type)
{
	Onnx__AttributeProto *a = malloc(sizeof *a);
	onnx__attribute_proto__init(a);
	a->name = dup_str(name);
	a->has_type = 1;
	a->type = type;
	PUSH(n->attribute, n->n_attribute, a);
	return a;
}

static void attr_int(Onnx__NodeProto *n, const char *name, int64_t v)
{
	Onnx__AttributeProto *a = add_attr(n, name, ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__INT);
	a->has_i = 1;
	a->i = v;
}

static void attr_float(Onnx__NodeProto *n, const char *name, float v)
{
	Onnx__AttributeProto *a = add_attr(n, name, ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__FLOAT);
	a->has_f = 1;
	a->f = v;
}

static void attr_string(Onnx__NodeProto *n, const char *name, const char *v)
{
	Onnx__AttributeProto *a = add_attr(n, name, ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__STRING);
	a->has_s = 1;
	a->s.len = strlen(v);
	a->s.data = (uint8_t *)strdup(v);
}

static void attr_ints(Onnx__NodeProto *n, const char *name, size_t count, const int64_t *v)
{
	Onnx__AttributeProto *a = add_attr(n, name, ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__INTS);
	a->n_ints = count;
	a->ints = malloc((count ? count : 1) * sizeof *v);
	if (count)
		memcpy(a->ints, v, count * sizeof *v);
}

static void attr_floats(Onnx__NodeProto *n, const char *name, size_t count, const float *v)
{
	Onnx__AttributeProto *a = add_attr(n, name, ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__FLOATS);
	a->n_floats = count;
	a->floats = malloc((count ? count : 1) * sizeof *v);
	if (count)
		memcpy(a->floats, v, count * sizeof *v);
}

static Onnx__TensorProto *tensor_new(const char *name, int32_t type, size_t rank,
                                     const int64_t *dims)
{
	Onnx__TensorProto *t = malloc(sizeof *t);
	onnx__tensor_proto__init(t);
	t->name = dup_str(name);
	t->has_data_type = 1;
	t->data_type = type;
	t->n_dims = rank;
	t->dims = malloc((rank ? rank : 1) * sizeof *dims);
	if (rank)
		memcpy(t->dims, dims, rank * sizeof *dims);
	return t;
}

static void set_raw(Onnx__TensorProto *t, const void *p, size_t n)
{
	t->has_raw_data = 1;
	t->raw_data.len = n;
	t->raw_data.data = malloc(n ? n : 1);
	memcpy(t->raw_data.data, p, n);
}

static void set_floats(Onnx__TensorProto *t, const float *v, size_t n)
{
	t->n_float_data = n;
	t->float_data = malloc((n ? n : 1) * sizeof *v);
	memcpy(t->float_data, v, n * sizeof *v);
}

static void set_int32s(Onnx__TensorProto *t, const int32_t *v, size_t n)
{
	t->n_int32_data = n;
	t->int32_data = malloc((n ? n : 1) * sizeof *v);
	memcpy(t->int32_data, v, n * sizeof *v);
}

static void set_int64s(Onnx__TensorProto *t, const int64_t *v, size_t n)
{
	t->n_int64_data = n;
	t->int64_data = malloc((n ? n : 1) * sizeof *v);
	memcpy(t->int64_data, v, n * sizeof *v);
}

static void set_doubles(Onnx__TensorProto *t, const double *v, size_t n)
{
	t->n_double_data = n;
	t->double_data = malloc((n ? n : 1) * sizeof *v);
	memcpy(t->double_data, v, n * sizeof *v);
}

static void attr_tensor(Onnx__NodeProto *n, const char *name, Onnx__TensorProto *t)
{
	Onnx__AttributeProto *a = add_attr(n, name, ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__TENSOR);
	a->t = t;
}

static void add_initializer(Onnx__GraphProto *g, Onnx__TensorProto *t)
{
	PUSH(g->initializer, g->n_initializer, t);
}

/* A tensor value info; shape is "1,3,batch,?" (numbers, dim_params, '?' for
 * an unknown dim), "" for rank 0, or NULL for no shape at all. */
static Onnx__ValueInfoProto *value_info(const char *name, int32_t elem, const char *shape)
{
	Onnx__ValueInfoProto *vi = malloc(sizeof *vi);
	onnx__value_info_proto__init(vi);
	vi->name = dup_str(name);
	vi->type = malloc(sizeof *vi->type);
	onnx__type_proto__init(vi->type);
	vi->type->value_case = ONNX__TYPE_PROTO__VALUE_TENSOR_TYPE;
	vi->type->tensor_type = malloc(sizeof *vi->type->tensor_type);
	onnx__type_proto__tensor__init(vi->type->tensor_type);
	vi->type->tensor_type->has_elem_type = 1;
	vi->type->tensor_type->elem_type = elem;
	if (!shape)
		return vi;
	Onnx__TensorShapeProto *sp = malloc(sizeof *sp);
	onnx__tensor_shape_proto__init(sp);
	vi->type->tensor_type->shape = sp;
	size_t n;
	char **dims;
	split_names(shape, &n, &dims);
	for (size_t i = 0; i < n; i++) {
		Onnx__TensorShapeProto__Dimension *d = malloc(sizeof *d);
		onnx__tensor_shape_proto__dimension__init(d);
		if (dims[i][0] >= '0' && dims[i][0] <= '9') {
			d->value_case = ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_VALUE;
			d->dim_value = strtoll(dims[i], NULL, 10);
		} else if (strcmp(dims[i], "?") != 0) {
			d->value_case = ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_PARAM;
			d->dim_param = strdup(dims[i]);
		}
		PUSH(sp->dim, sp->n_dim, d);
		free(dims[i]);
	}
	free(dims);
	return vi;
}

static void add_input(Onnx__GraphProto *g, const char *name, int32_t elem, const char *shape)
{
	PUSH(g->input, g->n_input, value_info(name, elem, shape));
}

static void add_output(Onnx__GraphProto *g, const char *name)
{
	PUSH(g->output, g->n_output, value_info(name, T_FLOAT, NULL));
}

/* Packs m into a malloc'd buffer and frees m. */
static uint8_t *pack_model(Onnx__ModelProto *m, size_t *len)
{
	*len = onnx__model_proto__get_packed_size(m);
	uint8_t *buf = malloc(*len ? *len : 1);
	cr_assert_eq(onnx__model_proto__pack(m, buf), *len);
	onnx__model_proto__free_unpacked(m, NULL);
	return buf;
}

/* ---- reading back ---------------------------------------------------------- */

struct result {
	struct graph *g; /* NULL after errors */
	char *msgs;      /* everything the diag printed (malloc'd) */
	int errors, warnings;
};

static struct result read_bytes(const void *buf, size_t len, const struct options *opt)
{
	char path[] = "/tmp/test_onnx_XXXXXX";
	int fd = mkstemp(path);
	cr_assert(fd >= 0);
	cr_assert_eq(write(fd, buf, len), (ssize_t)len);
	close(fd);
	struct result r = {0};
	size_t size;
	FILE *f = open_memstream(&r.msgs, &size);
	struct diag d;
	diag_init(&d, "m.onnx", f);
	struct options none = {0};
	r.g = onnx_read(path, opt ? opt : &none, &d);
	fclose(f);
	unlink(path);
	r.errors = d.errors;
	r.warnings = d.warnings;
	return r;
}

static struct result read_model(Onnx__ModelProto *m, const struct options *opt)
{
	size_t len;
	uint8_t *buf = pack_model(m, &len);
	struct result r = read_bytes(buf, len, opt);
	free(buf);
	return r;
}

static void result_free(struct result *r)
{
	ir_graph_free(r->g);
	free(r->msgs);
}

/* Asserts that the messages contain the line "m.onnx: <line>". */
#define expect_line(r, line)                                                          \
	cr_assert(strstr((r).msgs, "m.onnx: " line "\n") != NULL,                     \
	          "expected the line\n  m.onnx: %s\ngot:\n%s", line, (r).msgs)

static struct node *find_node(struct graph *g, const char *name)
{
	for (int i = 0; i < g->n_nodes; i++)
		if (strcmp(g->nodes[i]->name, name) == 0)
			return g->nodes[i];
	return NULL;
}

static void expect_valid(struct result *r)
{
	cr_assert_not_null(r->g, "onnx_read failed:\n%s", r->msgs);
	cr_assert_eq(r->errors, 0, "%s", r->msgs);
	struct diag d;
	diag_init(&d, "m.onnx", stderr);
	cr_assert_eq(ir_verify(r->g, "frontend", 0, &d), 0);
}

/* ---- a small convolution model ---------------------------------------------
 *   x [N,3,8,8] -> Conv(W [4,3,3,3] raw_data, B [4] float_data) 'conv1'
 *     -> Relu (no name) -> y */

static const float b_values[4] = {0.5f, -1.0f, 2.0f, 0.0f};

static float w_value(int i)
{
	return (float)(i % 17) * 0.25f - 2.0f;
}

static Onnx__ModelProto *conv_model(const char *batch)
{
	Onnx__ModelProto *m = model_new(13);
	Onnx__GraphProto *g = m->graph;
	char shape[64];
	snprintf(shape, sizeof shape, "%s,3,8,8", batch);
	add_input(g, "x", T_FLOAT, shape);
	add_input(g, "W", T_FLOAT, "4,3,3,3"); /* an initializer listed as input: a weight */

	float w[108];
	for (int i = 0; i < 108; i++)
		w[i] = w_value(i);
	Onnx__TensorProto *tw = tensor_new("W", T_FLOAT, 4, (int64_t[]){4, 3, 3, 3});
	set_raw(tw, w, sizeof w);
	add_initializer(g, tw);
	Onnx__TensorProto *tb = tensor_new("B", T_FLOAT, 1, (int64_t[]){4});
	set_floats(tb, b_values, 4);
	add_initializer(g, tb);

	Onnx__NodeProto *conv = add_node(g, "Conv", "conv1", "x,W,B", "c");
	attr_ints(conv, "kernel_shape", 2, (int64_t[]){3, 3});
	attr_ints(conv, "pads", 4, (int64_t[]){1, 1, 1, 1});
	attr_ints(conv, "strides", 2, (int64_t[]){1, 1});
	attr_int(conv, "group", 1);
	attr_string(conv, "auto_pad", "NOTSET");
	add_node(g, "Relu", "", "c", "y");
	add_output(g, "y");
	return m;
}

Test(onnx, conv_model_reads_into_ir)
{
	struct result r = read_model(conv_model("1"), NULL);
	expect_valid(&r);
	struct graph *g = r.g;
	cr_assert_eq(g->opset, 13);
	cr_assert_str_eq(g->producer, "test 1.0");

	/* x is the only input; W, though listed as an input, is a weight. */
	cr_assert_eq(g->n_inputs, 1);
	struct tensor *x = g->inputs[0];
	cr_assert_str_eq(x->name, "x");
	cr_assert(x->is_input);
	cr_assert_eq(x->dtype, DTYPE_F32);
	cr_assert_eq(x->rank, 4);
	cr_assert_eq(x->dims[0], 1);
	cr_assert_eq(x->dims[1], 3);
	cr_assert_eq(x->dims[2], 8);
	cr_assert_eq(x->dims[3], 8);
	cr_assert_null(x->data);

	struct tensor *w = ir_find_tensor(g, "W");
	cr_assert_not_null(w);
	cr_assert(!w->is_input);
	cr_assert_eq(w->dtype, DTYPE_F32);
	cr_assert_eq(w->rank, 4);
	cr_assert_eq(ir_numel(w), 108);
	cr_assert_not_null(w->data);
	cr_assert_eq((uintptr_t)w->data % 16, 0, "weights are 16-byte aligned");
	for (int i = 0; i < 108; i++)
		cr_assert_eq(((float *)w->data)[i], w_value(i), "W[%d]", i);
	struct tensor *b = ir_find_tensor(g, "B");
	cr_assert_not_null(b);
	cr_assert_eq(b->rank, 1);
	cr_assert_eq(b->dims[0], 4);
	cr_assert_eq(memcmp(b->data, b_values, sizeof b_values), 0);
	cr_assert_null(b->producer);

	cr_assert_eq(g->n_nodes, 2);
	struct node *conv = g->nodes[0], *relu = g->nodes[1];
	cr_assert_str_eq(conv->name, "conv1");
	cr_assert_eq(conv->op, OP_CONV);
	cr_assert_eq(conv->n_inputs, 3);
	cr_assert_eq(conv->inputs[0], x);
	cr_assert_eq(conv->inputs[1], w);
	cr_assert_eq(conv->inputs[2], b);
	cr_assert_eq(conv->n_outputs, 1);
	cr_assert_str_eq(conv->outputs[0]->name, "c");
	cr_assert_eq(conv->outputs[0]->producer, conv);
	cr_assert_eq(conv->outputs[0]->rank, -1, "the frontend infers no shapes");

	cr_assert_eq(conv->n_attrs, 5);
	const int64_t *ks;
	cr_assert_eq(ir_attr_ints(conv, "kernel_shape", &ks), 2);
	cr_assert_eq(ks[0], 3);
	cr_assert_eq(ks[1], 3);
	const int64_t *pads;
	cr_assert_eq(ir_attr_ints(conv, "pads", &pads), 4);
	cr_assert_eq(pads[3], 1);
	cr_assert_eq(ir_attr(conv, "group")->kind, ATTR_INT);
	cr_assert_eq(ir_attr_int(conv, "group", 0), 1);
	cr_assert_str_eq(ir_attr_string(conv, "auto_pad", ""), "NOTSET");

	/* A nameless node gets "<op_type>_<first output>". */
	cr_assert_str_eq(relu->name, "Relu_y");
	cr_assert_eq(relu->op, OP_RELU);
	cr_assert_eq(relu->inputs[0], conv->outputs[0]);
	cr_assert_eq(relu->n_attrs, 0);

	cr_assert_eq(g->n_outputs, 1);
	cr_assert_eq(g->outputs[0], relu->outputs[0]);
	cr_assert(g->outputs[0]->is_output);
	cr_assert_eq(r.warnings, 0, "%s", r.msgs);
	result_free(&r);
}

/* ---- initializer encodings --------------------------------------------------- */

/* One model with the same values stored every way ONNX allows. */
Test(onnx, raw_data_and_typed_fields_agree)
{
	const float f[6] = {1.5f, -2.25f, 0.0f, 3e-8f, -1e30f, 42.0f};
	const int64_t i64[3] = {-5, INT64_MAX, 7};
	const double dbl[2] = {0.1, -1e300};
	const int8_t i8[4] = {-128, -1, 0, 127};
	const int32_t i8_as_i32[4] = {-128, -1, 0, 127};
	const uint8_t u8[3] = {0, 200, 255};
	const int32_t u8_as_i32[3] = {0, 200, 255};
	const uint8_t bools[2] = {1, 0};
	const int32_t bools_as_i32[2] = {1, 0};
	const int32_t i32[2] = {INT32_MIN, 12345};

	Onnx__ModelProto *m = model_new(13);
	Onnx__GraphProto *g = m->graph;
	Onnx__TensorProto *t;
	t = tensor_new("f_raw", T_FLOAT, 2, (int64_t[]){2, 3});
	set_raw(t, f, sizeof f);
	add_initializer(g, t);
	t = tensor_new("f_typed", T_FLOAT, 2, (int64_t[]){2, 3});
	set_floats(t, f, 6);
	add_initializer(g, t);
	t = tensor_new("i64_raw", T_INT64, 1, (int64_t[]){3});
	set_raw(t, i64, sizeof i64);
	add_initializer(g, t);
	t = tensor_new("i64_typed", T_INT64, 1, (int64_t[]){3});
	set_int64s(t, i64, 3);
	add_initializer(g, t);
	t = tensor_new("d_raw", T_DOUBLE, 1, (int64_t[]){2});
	set_raw(t, dbl, sizeof dbl);
	add_initializer(g, t);
	t = tensor_new("d_typed", T_DOUBLE, 1, (int64_t[]){2});
	set_doubles(t, dbl, 2);
	add_initializer(g, t);
	t = tensor_new("i8_raw", T_INT8, 1, (int64_t[]){4});
	set_raw(t, i8, sizeof i8);
	add_initializer(g, t);
	t = tensor_new("i8_typed", T_INT8, 1, (int64_t[]){4});
	set_int32s(t, i8_as_i32, 4);
	add_initializer(g, t);
	t = tensor_new("u8_raw", T_UINT8, 1, (int64_t[]){3});
	set_raw(t, u8, sizeof u8);
	add_initializer(g, t);
	t = tensor_new("u8_typed", T_UINT8, 1, (int64_t[]){3});
	set_int32s(t, u8_as_i32, 3);
	add_initializer(g, t);
	t = tensor_new("b_raw", T_BOOL, 1, (int64_t[]){2});
	set_raw(t, bools, sizeof bools);
	add_initializer(g, t);
	t = tensor_new("b_typed", T_BOOL, 1, (int64_t[]){2});
	set_int32s(t, bools_as_i32, 2);
	add_initializer(g, t);
	t = tensor_new("i32_raw", T_INT32, 1, (int64_t[]){2});
	set_raw(t, i32, sizeof i32);
	add_initializer(g, t);
	t = tensor_new("i32_typed", T_INT32, 1, (int64_t[]){2});
	set_int32s(t, i32, 2);
	add_initializer(g, t);
	t = tensor_new("scalar", T_FLOAT, 0, NULL);
	set_floats(t, f, 1);
	add_initializer(g, t);
	t = tensor_new("empty", T_INT64, 1, (int64_t[]){0});
	add_initializer(g, t);
	t = tensor_new("half", T_FLOAT16, 1, (int64_t[]){2});
	set_int32s(t, (int32_t[]){0x3c00, 0xc000}, 2);
	add_initializer(g, t);
	add_node(g, "Identity", "id", "f_raw", "y");
	add_output(g, "y");

	struct result r = read_model(m, NULL);
	expect_valid(&r);
	static const struct {
		const char *raw, *typed;
		enum dtype dtype;
		size_t bytes;
	} pairs[] = {
		{"f_raw", "f_typed", DTYPE_F32, 24},  {"i64_raw", "i64_typed", DTYPE_I64, 24},
		{"d_raw", "d_typed", DTYPE_F64, 16},  {"i8_raw", "i8_typed", DTYPE_I8, 4},
		{"u8_raw", "u8_typed", DTYPE_U8, 3},  {"b_raw", "b_typed", DTYPE_BOOL, 2},
		{"i32_raw", "i32_typed", DTYPE_I32, 8},
	};
	for (size_t k = 0; k < sizeof pairs / sizeof pairs[0]; k++) {
		struct tensor *a = ir_find_tensor(r.g, pairs[k].raw);
		struct tensor *b = ir_find_tensor(r.g, pairs[k].typed);
		cr_assert(a && b, "%s", pairs[k].raw);
		cr_assert_eq(a->dtype, pairs[k].dtype, "%s", pairs[k].raw);
		cr_assert_eq(b->dtype, pairs[k].dtype, "%s", pairs[k].typed);
		cr_assert_eq(ir_nbytes(a), pairs[k].bytes, "%s", pairs[k].raw);
		cr_assert_eq(memcmp(a->data, b->data, pairs[k].bytes), 0, "%s", pairs[k].raw);
	}
	cr_assert_eq(memcmp(ir_find_tensor(r.g, "f_raw")->data, f, sizeof f), 0);
	cr_assert_eq(memcmp(ir_find_tensor(r.g, "i64_typed")->data, i64, sizeof i64), 0);
	cr_assert_eq(memcmp(ir_find_tensor(r.g, "i8_typed")->data, i8, sizeof i8), 0);
	cr_assert_eq(memcmp(ir_find_tensor(r.g, "u8_typed")->data, u8, sizeof u8), 0);

	struct tensor *s = ir_find_tensor(r.g, "scalar");
	cr_assert_eq(s->rank, 0);
	cr_assert_eq(*(float *)s->data, f[0]);
	struct tensor *e = ir_find_tensor(r.g, "empty");
	cr_assert_eq(e->rank, 1);
	cr_assert_eq(e->dims[0], 0);
	cr_assert_not_null(e->data, "an empty initializer is still a constant");
	struct tensor *h = ir_find_tensor(r.g, "half");
	cr_assert_eq(h->dtype, DTYPE_OTHER);
	uint16_t bits[2];
	memcpy(bits, h->data, sizeof bits);
	cr_assert_eq(bits[0], 0x3c00);
	cr_assert_eq(bits[1], 0xc000);
	result_free(&r);
}

static Onnx__ModelProto *one_initializer(Onnx__TensorProto *t)
{
	Onnx__ModelProto *m = model_new(13);
	add_initializer(m->graph, t);
	add_node(m->graph, "Identity", "id", t->name, "y");
	add_output(m->graph, "y");
	return m;
}

Test(onnx, short_raw_data)
{
	float w[27] = {0};
	Onnx__TensorProto *t = tensor_new("W", T_FLOAT, 4, (int64_t[]){1, 3, 3, 3});
	set_raw(t, w, sizeof w - 2);
	struct result r = read_model(one_initializer(t), NULL);
	cr_assert_null(r.g);
	expect_line(r, "initializer 'W' has 106 bytes of raw_data, expected 108 for float32 "
	               "[1,3,3,3]");
	result_free(&r);
}

Test(onnx, typed_count_mismatch)
{
	Onnx__TensorProto *t = tensor_new("B", T_FLOAT, 1, (int64_t[]){4});
	set_floats(t, b_values, 3);
	struct result r = read_model(one_initializer(t), NULL);
	cr_assert_null(r.g);
	expect_line(r, "initializer 'B' has 3 float_data values, expected 4 for float32 [4]");
	result_free(&r);
}

Test(onnx, typed_field_of_the_wrong_type)
{
	Onnx__TensorProto *t = tensor_new("K", T_INT64, 1, (int64_t[]){4});
	set_floats(t, b_values, 4);
	struct result r = read_model(one_initializer(t), NULL);
	cr_assert_null(r.g);
	expect_line(r, "initializer 'K' stores int64 data in float_data, expected int64_data");
	result_free(&r);
}

Test(onnx, int32_data_out_of_range)
{
	Onnx__TensorProto *t = tensor_new("q", T_UINT8, 1, (int64_t[]){2});
	set_int32s(t, (int32_t[]){7, 300}, 2);
	struct result r = read_model(one_initializer(t), NULL);
	cr_assert_null(r.g);
	expect_line(r, "initializer 'q': int32_data value 300 (element 1) is out of range for uint8");
	result_free(&r);
}

Test(onnx, raw_and_typed_data_together)
{
	Onnx__TensorProto *t = tensor_new("B", T_FLOAT, 1, (int64_t[]){4});
	set_floats(t, b_values, 4);
	set_raw(t, b_values, sizeof b_values);
	struct result r = read_model(one_initializer(t), NULL);
	cr_assert_null(r.g);
	expect_line(r, "initializer 'B' has both raw_data and typed data");
	result_free(&r);
}

Test(onnx, initializer_without_data)
{
	Onnx__TensorProto *t = tensor_new("B", T_FLOAT, 2, (int64_t[]){2, 2});
	struct result r = read_model(one_initializer(t), NULL);
	cr_assert_null(r.g);
	expect_line(r, "initializer 'B' has no data (expected 4 values for float32 [2,2])");
	result_free(&r);
}

Test(onnx, external_data)
{
	Onnx__TensorProto *t = tensor_new("W", T_FLOAT, 1, (int64_t[]){1024});
	t->has_data_location = 1;
	t->data_location = ONNX__TENSOR_PROTO__DATA_LOCATION__EXTERNAL;
	Onnx__StringStringEntryProto *e = malloc(sizeof *e);
	onnx__string_string_entry_proto__init(e);
	e->key = strdup("location");
	e->value = strdup("weights.bin");
	PUSH(t->external_data, t->n_external_data, e);
	struct result r = read_model(one_initializer(t), NULL);
	cr_assert_null(r.g);
	expect_line(r, "initializer 'W' uses external data, which is not supported");
	result_free(&r);
}

Test(onnx, bad_initializer_dims)
{
	Onnx__ModelProto *m = model_new(13);
	Onnx__GraphProto *g = m->graph;
	add_initializer(g, tensor_new("neg", T_FLOAT, 2, (int64_t[]){2, -3}));
	add_initializer(g, tensor_new("deep", T_FLOAT, 9, (int64_t[]){1, 1, 1, 1, 1, 1, 1, 1, 1}));
	add_initializer(g, tensor_new("huge", T_FLOAT, 3, (int64_t[]){1 << 20, 1 << 20, 2}));
	add_initializer(g, tensor_new("giant", T_FLOAT, 2, (int64_t[]){INT64_MAX, INT64_MAX}));
	add_node(g, "Relu", "r", "", "y");
	add_output(g, "y");
	struct result r = read_model(m, NULL);
	cr_assert_null(r.g);
	expect_line(r, "initializer 'neg' has a negative dimension (dim 1 of [2,-3])");
	expect_line(r, "initializer 'deep' has rank 9; dnncc supports at most 8");
	expect_line(r, "initializer 'huge' has shape [1048576,1048576,2], more than the 2^40 "
	               "elements dnncc supports");
	expect_line(r, "initializer 'giant' has shape [9223372036854775807,9223372036854775807], "
	               "more than the 2^40 elements dnncc supports");
	cr_assert_eq(r.errors, 4, "%s", r.msgs);
	result_free(&r);
}

Test(onnx, string_initializer_only_matters_when_used)
{
	Onnx__ModelProto *m = model_new(13);
	Onnx__GraphProto *g = m->graph;
	Onnx__TensorProto *t = tensor_new("labels", T_STRING, 1, (int64_t[]){1});
	t->n_string_data = 1;
	t->string_data = malloc(sizeof *t->string_data);
	t->string_data[0].data = (uint8_t *)strdup("cat");
	t->string_data[0].len = 3;
	add_initializer(g, t);
	add_input(g, "x", T_FLOAT, "2");
	add_node(g, "Relu", "r", "x", "y");
	add_output(g, "y");
	struct result r = read_model(m, NULL);
	expect_valid(&r);
	cr_assert_eq(ir_find_tensor(r.g, "labels")->dtype, DTYPE_OTHER);
	result_free(&r);

	m = model_new(13);
	g = m->graph;
	t = tensor_new("labels", T_STRING, 1, (int64_t[]){1});
	add_initializer(g, t);
	add_node(g, "Identity", "id", "labels", "y");
	add_output(g, "y");
	r = read_model(m, NULL);
	cr_assert_null(r.g);
	expect_line(r, "input 'labels' of node 'id' is an initializer of type string, which dnncc "
	               "cannot read");
	result_free(&r);
}

/* ---- inputs and --shape -------------------------------------------------------- */

Test(onnx, symbolic_dimension_needs_shape)
{
	struct result r = read_model(conv_model("batch_size"), NULL);
	cr_assert_null(r.g);
	expect_line(r, "input 'x' has symbolic dimension 'batch_size' (dim 0): pin it with "
	               "--shape x=1,3,8,8");
	cr_assert_eq(r.errors, 1, "%s", r.msgs);
	result_free(&r);
}

Test(onnx, unknown_dimension_needs_shape)
{
	struct result r = read_model(conv_model("?"), NULL);
	cr_assert_null(r.g);
	expect_line(r, "input 'x' has an unknown dimension (dim 0): pin it with --shape x=1,3,8,8");
	result_free(&r);
}

Test(onnx, shape_override_pins_symbolic_dims)
{
	struct shape_override s = {"x", 4, {2, 3, 8, 8}};
	struct options opt = {0};
	opt.n_shapes = 1;
	opt.shapes = &s;
	struct result r = read_model(conv_model("batch_size"), &opt);
	expect_valid(&r);
	struct tensor *x = r.g->inputs[0];
	cr_assert_eq(x->rank, 4);
	cr_assert_eq(x->dims[0], 2);
	cr_assert_eq(x->dims[3], 8);
	cr_assert_eq(r.warnings, 0, "%s", r.msgs);
	result_free(&r);
}

Test(onnx, shape_override_replaces_a_static_shape_with_a_warning)
{
	struct shape_override s = {"x", 4, {1, 3, 16, 16}};
	struct options opt = {0};
	opt.n_shapes = 1;
	opt.shapes = &s;
	struct result r = read_model(conv_model("1"), &opt);
	expect_valid(&r);
	cr_assert_eq(r.g->inputs[0]->dims[2], 16);
	expect_line(r, "warning: --shape replaces the declared shape [1,3,8,8] of input 'x'");
	result_free(&r);
}

Test(onnx, shape_override_must_name_an_input)
{
	struct shape_override s[2] = {{"nope", 1, {4}}, {"W", 1, {4}}};
	struct options opt = {0};
	opt.n_shapes = 2;
	opt.shapes = s;
	struct result r = read_model(conv_model("1"), &opt);
	cr_assert_null(r.g);
	expect_line(r, "--shape names 'nope', which is not a graph input");
	expect_line(r, "--shape names 'W', which is a weight (initializer), not an input");
	result_free(&r);
}

Test(onnx, shape_override_is_checked)
{
	struct shape_override s[2] = {{"x", 2, {-1, 4}}, {"x", 4, {1, 3, 8, 8}}};
	struct options opt = {0};
	opt.n_shapes = 2;
	opt.shapes = s;
	struct result r = read_model(conv_model("1"), &opt);
	cr_assert_null(r.g);
	expect_line(r, "--shape is given twice for input 'x'");
	expect_line(r, "--shape for input 'x' has a negative dimension (dim 0 of [-1,4])");
	cr_assert_eq(r.errors, 2, "%s", r.msgs);
	result_free(&r);

	struct shape_override big = {"x", 3, {1 << 20, 1 << 20, 1 << 20}};
	opt.n_shapes = 1;
	opt.shapes = &big;
	r = read_model(conv_model("1"), &opt);
	cr_assert_null(r.g);
	expect_line(r, "--shape for input 'x' has shape [1048576,1048576,1048576], more than the "
	               "2^40 elements dnncc supports");
	result_free(&r);
}

Test(onnx, input_without_shape_or_tensor_type)
{
	Onnx__ModelProto *m = model_new(13);
	Onnx__GraphProto *g = m->graph;
	add_input(g, "a", T_FLOAT, NULL);
	Onnx__ValueInfoProto *seq = value_info("s", T_FLOAT, "1");
	protobuf_c_message_free_unpacked(&seq->type->tensor_type->base, NULL);
	seq->type->value_case = ONNX__TYPE_PROTO__VALUE_SEQUENCE_TYPE;
	seq->type->sequence_type = malloc(sizeof *seq->type->sequence_type);
	onnx__type_proto__sequence__init(seq->type->sequence_type);
	PUSH(g->input, g->n_input, seq);
	add_input(g, "i", T_INT64, "");
	add_node(g, "Add", "add", "a,s", "y");
	add_output(g, "y");
	add_output(g, "i");
	struct result r = read_model(m, NULL);
	cr_assert_null(r.g);
	expect_line(r, "input 'a' has no declared shape: pin it with --shape a=D0,D1,...");
	expect_line(r, "input 's' is a sequence, not a tensor; dnncc reads tensors only");
	/* Consumers of rejected inputs are not reported again. */
	cr_assert_eq(r.errors, 2, "%s", r.msgs);
	result_free(&r);
}

Test(onnx, integer_scalar_input_and_input_as_output)
{
	Onnx__ModelProto *m = model_new(13);
	add_input(m->graph, "i", T_INT64, "");
	add_output(m->graph, "i");
	struct result r = read_model(m, NULL);
	expect_valid(&r);
	cr_assert_eq(r.g->n_inputs, 1);
	cr_assert_eq(r.g->inputs[0]->dtype, DTYPE_I64);
	cr_assert_eq(r.g->inputs[0]->rank, 0);
	cr_assert_eq(r.g->outputs[0], r.g->inputs[0]);
	cr_assert(r.g->inputs[0]->is_output);
	result_free(&r);
}

/* ---- nodes ------------------------------------------------------------------- */

Test(onnx, unsupported_operators_are_all_reported)
{
	Onnx__ModelProto *m = conv_model("1");
	Onnx__GraphProto *g = m->graph;
	add_node(g, "FooBar", "weird", "y", "z");
	Onnx__NodeProto *ms = add_node(g, "FusedConv", "fused", "z", "z2");
	ms->domain = strdup("com.microsoft");
	add_node(g, "Relu", "after", "z2", "z3");
	add_node(g, "GridSample", "", "z3", "z4");
	add_output(g, "z4");
	struct result r = read_model(m, NULL);
	cr_assert_null(r.g);
	expect_line(r, "node 'weird': unsupported operator 'FooBar'");
	expect_line(r, "node 'fused': unsupported operator 'com.microsoft::FusedConv'");
	expect_line(r, "node 'GridSample_z4': unsupported operator 'GridSample'");
	/* Nothing more: consumers of rejected nodes are not reported. */
	cr_assert_eq(r.errors, 3, "%s", r.msgs);
	result_free(&r);
}

Test(onnx, ai_onnx_domain_is_the_default)
{
	Onnx__ModelProto *m = model_new(13);
	add_input(m->graph, "x", T_FLOAT, "2");
	Onnx__NodeProto *n = add_node(m->graph, "Relu", "r", "x", "y");
	n->domain = strdup("ai.onnx");
	add_output(m->graph, "y");
	struct result r = read_model(m, NULL);
	expect_valid(&r);
	cr_assert_eq(r.g->nodes[0]->op, OP_RELU);
	result_free(&r);
}

Test(onnx, inputs_must_be_produced_before_use)
{
	Onnx__ModelProto *m = model_new(13);
	Onnx__GraphProto *g = m->graph;
	add_input(g, "x", T_FLOAT, "2");
	add_node(g, "Relu", "second", "a", "y");
	add_node(g, "Relu", "first", "x", "a");
	add_output(g, "y");
	struct result r = read_model(m, NULL);
	cr_assert_null(r.g);
	expect_line(r, "input 'a' of node 'second' is not produced before it is used");
	result_free(&r);
}

Test(onnx, values_are_assigned_once)
{
	Onnx__ModelProto *m = model_new(13);
	Onnx__GraphProto *g = m->graph;
	add_input(g, "x", T_FLOAT, "2");
	add_node(g, "Relu", "r1", "x", "y");
	add_node(g, "Relu", "r2", "x", "y");
	add_node(g, "Relu", "r3", "x", "x");
	add_output(g, "y");
	struct result r = read_model(m, NULL);
	cr_assert_null(r.g);
	expect_line(r, "node 'r2' (Relu) writes 'y', which is already defined (ONNX values are "
	               "assigned once)");
	expect_line(r, "node 'r3' (Relu) writes 'x', which is already defined (ONNX values are "
	               "assigned once)");
	result_free(&r);
}

Test(onnx, omitted_optional_inputs_and_outputs)
{
	Onnx__ModelProto *m = model_new(13);
	Onnx__GraphProto *g = m->graph;
	add_input(g, "x", T_FLOAT, "4");
	Onnx__TensorProto *t = tensor_new("hi", T_FLOAT, 0, NULL);
	set_floats(t, (float[]){6.0f}, 1);
	add_initializer(g, t);
	add_node(g, "Clip", "clip", "x,,hi", "c");
	add_node(g, "Dropout", "drop", "c", "y,");
	add_output(g, "y");
	struct result r = read_model(m, NULL);
	expect_valid(&r);
	struct node *clip = find_node(r.g, "clip"), *drop = find_node(r.g, "drop");
	cr_assert_eq(clip->n_inputs, 3);
	cr_assert_null(clip->inputs[1]);
	cr_assert_str_eq(clip->inputs[2]->name, "hi");
	cr_assert_eq(drop->n_outputs, 2);
	cr_assert_not_null(drop->outputs[0]);
	cr_assert_null(drop->outputs[1]);
	result_free(&r);
}

Test(onnx, node_names_are_made_unique)
{
	Onnx__ModelProto *m = model_new(13);
	Onnx__GraphProto *g = m->graph;
	add_input(g, "x", T_FLOAT, "2");
	add_node(g, "Relu", "n", "x", "a");
	add_node(g, "Relu", "n", "a", "b");
	add_node(g, "Relu", "n", "b", "c");
	add_node(g, "Relu", "", "c", "d");
	add_node(g, "Relu", "Relu_d", "d", "e");
	add_output(g, "e");
	struct result r = read_model(m, NULL);
	expect_valid(&r);
	cr_assert_str_eq(r.g->nodes[0]->name, "n");
	cr_assert_str_eq(r.g->nodes[1]->name, "n_1");
	cr_assert_str_eq(r.g->nodes[2]->name, "n_2");
	cr_assert_str_eq(r.g->nodes[3]->name, "Relu_d");
	cr_assert_str_eq(r.g->nodes[4]->name, "Relu_d_1");
	result_free(&r);
}

Test(onnx, attribute_kinds)
{
	Onnx__ModelProto *m = model_new(13);
	Onnx__GraphProto *g = m->graph;
	add_input(g, "x", T_FLOAT, "1,2,5,5");
	Onnx__NodeProto *n = add_node(g, "LRN", "lrn", "x", "y");
	attr_float(n, "alpha", 1e-4f);
	attr_float(n, "beta", 0.75f);
	attr_int(n, "size", 3);
	attr_floats(n, "fs", 3, (float[]){1.0f, -0.5f, 2.5f});
	attr_ints(n, "empty", 0, NULL);
	/* IR version 1 style: no type, the value's field says it. */
	Onnx__AttributeProto *old = add_attr(n, "old", ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__UNDEFINED);
	old->has_type = 0;
	old->has_i = 1;
	old->i = -9;
	add_output(g, "y");
	struct result r = read_model(m, NULL);
	expect_valid(&r);
	struct node *lrn = r.g->nodes[0];
	cr_assert_eq(lrn->n_attrs, 6);
	cr_assert_eq(ir_attr(lrn, "alpha")->kind, ATTR_FLOAT);
	cr_assert_eq(ir_attr_float(lrn, "alpha", 0), (double)1e-4f);
	cr_assert_eq(ir_attr_float(lrn, "beta", 0), 0.75);
	cr_assert_eq(ir_attr_int(lrn, "size", 0), 3);
	struct attr *fs = ir_attr(lrn, "fs");
	cr_assert_eq(fs->kind, ATTR_FLOATS);
	cr_assert_eq(fs->n, 3);
	cr_assert_eq(fs->floats[1], -0.5);
	cr_assert_eq(ir_attr(lrn, "empty")->kind, ATTR_INTS);
	cr_assert_eq(ir_attr(lrn, "empty")->n, 0);
	cr_assert_eq(ir_attr_int(lrn, "old", 0), -9);
	result_free(&r);
}

Test(onnx, constant_tensor_attribute)
{
	Onnx__ModelProto *m = model_new(13);
	Onnx__GraphProto *g = m->graph;
	Onnx__NodeProto *n = add_node(g, "Constant", "k", "", "shape");
	Onnx__TensorProto *t = tensor_new("", T_INT64, 1, (int64_t[]){2});
	set_int64s(t, (int64_t[]){1, -1}, 2);
	attr_tensor(n, "value", t);
	add_output(g, "shape");
	struct result r = read_model(m, NULL);
	expect_valid(&r);
	struct node *k = r.g->nodes[0];
	cr_assert_eq(k->op, OP_CONSTANT);
	cr_assert_eq(k->n_inputs, 0);
	struct attr *a = ir_attr(k, "value");
	cr_assert_eq(a->kind, ATTR_TENSOR);
	cr_assert_eq(a->t->dtype, DTYPE_I64);
	cr_assert_eq(a->t->rank, 1);
	cr_assert_eq(a->t->dims[0], 2);
	cr_assert_eq(((int64_t *)a->t->data)[0], 1);
	cr_assert_eq(((int64_t *)a->t->data)[1], -1);
	cr_assert_null(k->outputs[0]->data, "Constant is folded later, not here");
	result_free(&r);
}

Test(onnx, bad_attributes)
{
	Onnx__ModelProto *m = model_new(13);
	Onnx__GraphProto *g = m->graph;
	add_input(g, "x", T_FLOAT, "2");
	Onnx__NodeProto *n = add_node(g, "Identity", "id", "x", "y");
	Onnx__AttributeProto *a = add_attr(n, "body", ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__GRAPH);
	a->g = malloc(sizeof *a->g);
	onnx__graph_proto__init(a->g);
	a = add_attr(n, "names", ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__STRINGS);
	a->n_strings = 1;
	a->strings = malloc(sizeof *a->strings);
	a->strings[0].data = (uint8_t *)strdup("a");
	a->strings[0].len = 1;
	attr_int(n, "dup", 1);
	attr_int(n, "dup", 2);
	add_attr(n, "novalue", ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__TENSOR);
	Onnx__TensorProto *t = tensor_new("", T_FLOAT, 1, (int64_t[]){2});
	set_floats(t, b_values, 1);
	attr_tensor(n, "value", t);
	add_output(g, "y");
	struct result r = read_model(m, NULL);
	cr_assert_null(r.g);
	expect_line(r, "node 'id' (Identity): attribute 'body' of type GRAPH is not supported");
	expect_line(r, "node 'id' (Identity): attribute 'names' of type STRINGS is not supported");
	expect_line(r, "node 'id' (Identity): attribute 'dup' is given twice");
	expect_line(r, "node 'id' (Identity): attribute 'novalue' of type TENSOR has no value");
	expect_line(r, "node 'id' (Identity): attribute 'value' has 1 float_data values, "
	               "expected 2 for float32 [2]");
	cr_assert_eq(r.errors, 5, "%s", r.msgs);
	result_free(&r);
}

/* ONNX's checker wants exactly one value field, of the declared type. */
Test(onnx, attribute_value_must_match_its_type)
{
	Onnx__ModelProto *m = model_new(13);
	Onnx__GraphProto *g = m->graph;
	add_input(g, "x", T_FLOAT, "2");
	Onnx__NodeProto *n = add_node(g, "LeakyRelu", "lr", "x", "y");
	Onnx__AttributeProto *a = add_attr(n, "alpha", ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__INTS);
	a->has_f = 1;
	a->f = 0.5f;
	a = add_attr(n, "two", ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__INT);
	a->has_i = 1;
	a->has_f = 1;
	add_attr(n, "none", ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__FLOAT);
	a = add_attr(n, "future", 99);
	a->has_i = 1;
	add_output(g, "y");
	struct result r = read_model(m, NULL);
	cr_assert_null(r.g);
	expect_line(r, "node 'lr' (LeakyRelu): attribute 'alpha' is declared INTS but holds a "
	               "FLOAT value");
	expect_line(r, "node 'lr' (LeakyRelu): attribute 'two' holds more than one value");
	expect_line(r, "node 'lr' (LeakyRelu): attribute 'none' of type FLOAT has no value");
	expect_line(r, "node 'lr' (LeakyRelu): attribute 'future' has unknown type 99");
	cr_assert_eq(r.errors, 4, "%s", r.msgs);
	result_free(&r);
}

/* ---- graph outputs and the model header --------------------------------------- */

Test(onnx, missing_output)
{
	Onnx__ModelProto *m = conv_model("1");
	add_output(m->graph, "zz");
	struct result r = read_model(m, NULL);
	cr_assert_null(r.g);
	expect_line(r, "graph output 'zz' is not produced by any node");
	cr_assert_eq(r.errors, 1, "%s", r.msgs);
	result_free(&r);
}

Test(onnx, no_outputs)
{
	Onnx__ModelProto *m = model_new(13);
	add_input(m->graph, "x", T_FLOAT, "2");
	struct result r = read_model(m, NULL);
	cr_assert_null(r.g);
	expect_line(r, "the graph has no outputs");
	result_free(&r);
}

Test(onnx, newer_opset_is_tried_with_a_warning)
{
	Onnx__ModelProto *m = conv_model("1");
	m->opset_import[0]->version = 19;
	m->ir_version = 9;
	Onnx__OperatorSetIdProto *ml = malloc(sizeof *ml);
	onnx__operator_set_id_proto__init(ml);
	ml->domain = strdup("ai.onnx.ml");
	ml->has_version = 1;
	ml->version = 3;
	PUSH(m->opset_import, m->n_opset_import, ml);
	struct result r = read_model(m, NULL);
	expect_valid(&r);
	cr_assert_eq(r.g->opset, 19);
	expect_line(r, "warning: model uses opset 19; dnncc follows opsets 7 to 17, trying anyway");
	expect_line(r, "warning: model IR version 9 is newer than the ONNX schema dnncc was built "
	               "with (8); fields added since are ignored");
	cr_assert_eq(r.warnings, 2, "%s", r.msgs);
	result_free(&r);
}

Test(onnx, model_without_graph_or_ir_version)
{
	Onnx__ModelProto *m = model_new(13);
	onnx__graph_proto__free_unpacked(m->graph, NULL);
	m->graph = NULL;
	struct result r = read_model(m, NULL);
	cr_assert_null(r.g);
	expect_line(r, "not a valid ONNX model (no graph)");
	result_free(&r);

	m = conv_model("1");
	m->has_ir_version = 0;
	r = read_model(m, NULL);
	cr_assert_null(r.g);
	expect_line(r, "not a valid ONNX model (no IR version)");
	result_free(&r);
}

/* ---- damaged files ------------------------------------------------------------- */

Test(onnx, missing_file)
{
	struct diag d;
	char *msgs;
	size_t size;
	FILE *f = open_memstream(&msgs, &size);
	diag_init(&d, "m.onnx", f);
	struct options opt = {0};
	struct graph *g = onnx_read("/nonexistent/dir/m.onnx", &opt, &d);
	fclose(f);
	cr_assert_null(g);
	cr_assert_str_eq(msgs, "m.onnx: cannot open: No such file or directory\n");
	free(msgs);
}

Test(onnx, empty_file)
{
	struct result r = read_bytes("", 0, NULL);
	cr_assert_null(r.g);
	cr_assert_str_eq(r.msgs, "m.onnx: not a valid ONNX model (the file is empty)\n");
	result_free(&r);
}

Test(onnx, truncated_file)
{
	size_t len;
	uint8_t *buf = pack_model(conv_model("1"), &len);
	/* Cutting inside the weights' raw_data breaks the length prefix. */
	struct result r = read_bytes(buf, len / 2, NULL);
	cr_assert_null(r.g);
	cr_assert_str_eq(r.msgs, "m.onnx: not a valid ONNX model (protobuf decoding failed)\n");
	result_free(&r);
	/* Every other cut ends cleanly too: a graph or errors, never both. */
	for (size_t cut = 1; cut < len; cut++) {
		r = read_bytes(buf, cut, NULL);
		cr_assert((r.g != NULL) == (r.errors == 0), "cut at %zu:\n%s", cut, r.msgs);
		result_free(&r);
	}
	free(buf);
}

Test(onnx, random_bytes)
{
	uint64_t s = 0x9e3779b97f4a7c15u;
	uint8_t buf[4096];
	int rejected_as_protobuf = 0;
	for (int trial = 0; trial < 50; trial++) {
		size_t len = 1 + (size_t)(trial * 83 % sizeof buf);
		for (size_t i = 0; i < len; i++) {
			s ^= s << 13, s ^= s >> 7, s ^= s << 17;
			buf[i] = (uint8_t)s;
		}
		struct result r = read_bytes(buf, len, NULL);
		cr_assert_null(r.g);
		cr_assert(strncmp(r.msgs, "m.onnx: not a valid ONNX model (", 32) == 0, "%s", r.msgs);
		rejected_as_protobuf += strstr(r.msgs, "protobuf decoding failed") != NULL;
		result_free(&r);
	}
	cr_assert(rejected_as_protobuf > 40);
}

Test(onnx, other_protobuf_message)
{
	/* A TensorProto is a valid protobuf but no model. */
	Onnx__TensorProto *t = tensor_new("W", T_FLOAT, 2, (int64_t[]){2, 2});
	set_floats(t, (float[]){1, 2, 3, 4}, 4);
	size_t len = onnx__tensor_proto__get_packed_size(t);
	uint8_t *buf = malloc(len);
	onnx__tensor_proto__pack(t, buf);
	onnx__tensor_proto__free_unpacked(t, NULL);
	struct result r = read_bytes(buf, len, NULL);
	cr_assert_null(r.g);
	cr_assert(strncmp(r.msgs, "m.onnx: not a valid ONNX model (", 32) == 0, "%s", r.msgs);
	cr_assert_eq(r.errors, 1);
	result_free(&r);
	free(buf);
}

/* Appends a varint. */
static size_t put_varint(uint8_t *p, uint64_t v)
{
	size_t n = 0;
	do {
		p[n++] = (uint8_t)((v & 0x7f) | (v > 0x7f ? 0x80 : 0));
		v >>= 7;
	} while (v);
	return n;
}

/* Graphs nested in attributes to 100000 levels: protobuf-c would recurse
 * once per level and overflow the stack; the frontend must refuse it. */
Test(onnx, deep_nesting_is_refused)
{
	enum { LEVELS = 3 * 100000 };
	/* ModelProto{graph: GraphProto{node: NodeProto{attribute:
	 * AttributeProto{g: GraphProto{...}}}}}: message k (0 = innermost) is
	 * key, varint(len[k-1]), message k-1; written outside in. */
	static const uint8_t keys[3] = {
		(6 << 3) | 2, /* AttributeProto.g */
		(5 << 3) | 2, /* NodeProto.attribute */
		(1 << 3) | 2, /* GraphProto.node */
	};
	uint8_t tmp[10];
	size_t *inner = malloc((LEVELS + 1) * sizeof *inner); /* body length of level k */
	inner[0] = 0;
	for (int k = 1; k <= LEVELS; k++)
		inner[k] = 1 + put_varint(tmp, inner[k - 1]) + inner[k - 1];
	size_t total = 4 + 10 + inner[LEVELS];
	uint8_t *buf = malloc(total);
	size_t n = 0;
	buf[n++] = (1 << 3) | 0; /* ir_version 8 */
	buf[n++] = 8;
	buf[n++] = (7 << 3) | 2; /* ModelProto.graph */
	n += put_varint(buf + n, inner[LEVELS]);
	for (int k = LEVELS; k >= 1; k--) {
		buf[n++] = keys[(k - 1) % 3];
		n += put_varint(buf + n, inner[k - 1]);
	}
	struct result r = read_bytes(buf, n, NULL);
	cr_assert_null(r.g);
	cr_assert_str_eq(r.msgs,
	                 "m.onnx: not a valid ONNX model (messages nested deeper than 100 levels)\n");
	result_free(&r);
	free(buf);
	free(inner);
}

/* ---- mutation fuzzing ---------------------------------------------------------- */

/* A model that touches most of the reader: typed and raw initializers of
 * several types, a Constant with a tensor attribute, every attribute kind,
 * optional inputs, a symbolic dim pinned by --shape. */
static Onnx__ModelProto *rich_model(void)
{
	Onnx__ModelProto *m = conv_model("N");
	Onnx__GraphProto *g = m->graph;
	Onnx__NodeProto *k = add_node(g, "Constant", "k", "", "shape");
	Onnx__TensorProto *t = tensor_new("", T_INT64, 1, (int64_t[]){2});
	set_int64s(t, (int64_t[]){1, -1}, 2);
	attr_tensor(k, "value", t);
	add_node(g, "Reshape", "flat", "y,shape", "f");
	t = tensor_new("mask", T_BOOL, 1, (int64_t[]){3});
	set_int32s(t, (int32_t[]){1, 0, 1}, 3);
	add_initializer(g, t);
	t = tensor_new("d", T_DOUBLE, 1, (int64_t[]){1});
	set_doubles(t, (double[]){2.0}, 1);
	add_initializer(g, t);
	Onnx__NodeProto *lrn = add_node(g, "LeakyRelu", "", "f", "z");
	attr_float(lrn, "alpha", 0.1f);
	attr_floats(lrn, "fs", 2, (float[]){1, 2});
	attr_string(lrn, "mode", "x");
	add_node(g, "Clip", "clip", "z,,", "out");
	add_output(g, "out");
	return m;
}

static uint64_t rng_next(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

/* One seeded mutation of src[0..len) into dst; returns the new length
 * (dst holds at least len + 16 bytes). */
static size_t mutate(uint64_t *rng, const uint8_t *src, size_t len, uint8_t *dst)
{
	memcpy(dst, src, len);
	size_t pos = rng_next(rng) % len;
	switch (rng_next(rng) % 6) {
	case 0: /* flip one to four bits */
		for (int k = 1 + (int)(rng_next(rng) % 4); k > 0; k--) {
			size_t p = rng_next(rng) % len;
			dst[p] ^= (uint8_t)(1u << (rng_next(rng) % 8));
		}
		return len;
	case 1: /* truncate */
		return pos;
	case 2: { /* insert one to eight random bytes */
		size_t n = 1 + rng_next(rng) % 8;
		memmove(dst + pos + n, dst + pos, len - pos);
		for (size_t i = 0; i < n; i++)
			dst[pos + i] = (uint8_t)rng_next(rng);
		return len + n;
	}
	case 3: { /* overwrite with a varint: huge, negative-looking or small */
		static const uint64_t values[] = {0, 1, 127, 128, 0xffffffffu, 0x7fffffffffffffffu,
		                                  UINT64_MAX, 1u << 30};
		uint8_t v[10];
		size_t n = put_varint(v, values[rng_next(rng) % 8]);
		if (pos + n > len)
			n = len - pos;
		memcpy(dst + pos, v, n);
		return len;
	}
	case 4: /* delete a run */ {
		size_t n = 1 + rng_next(rng) % 16;
		if (pos + n > len)
			n = len - pos;
		memmove(dst + pos, dst + pos + n, len - pos - n);
		return len - n;
	}
	default: /* set a byte to an extreme */
		dst[pos] = rng_next(rng) & 1 ? 0xff : 0x00;
		return len;
	}
}

Test(onnx, mutation_fuzz, .timeout = 600)
{
	size_t len;
	uint8_t *base = pack_model(rich_model(), &len);
	uint8_t *buf = malloc(len + 16);
	struct shape_override s = {"x", 4, {1, 3, 8, 8}};
	struct options opt = {0};
	opt.n_shapes = 1;
	opt.shapes = &s;

	/* The unmutated model reads. */
	struct result r = read_bytes(base, len, &opt);
	expect_valid(&r);
	cr_assert_eq(r.g->n_nodes, 6);
	result_free(&r);

	uint64_t rng = 20240611;
	int accepted = 0;
	FILE *null = fopen("/dev/null", "w");
	for (int i = 0; i < 3000; i++) {
		size_t n = mutate(&rng, base, len, buf);
		r = read_bytes(buf, n, &opt);
		cr_assert((r.g != NULL) == (r.errors == 0), "mutation %d:\n%s", i, r.msgs);
		if (r.g) {
			/* What the frontend returns is a structurally valid graph. */
			struct diag d;
			diag_init(&d, "m.onnx", stderr);
			cr_assert_eq(ir_verify(r.g, "frontend", 0, &d), 0, "mutation %d", i);
			ir_dump(r.g, null, "fuzz");
			accepted++;
		}
		result_free(&r);
	}
	fclose(null);
	/* Many mutations hit weight bytes and leave a valid model. */
	cr_assert(accepted > 100 && accepted < 2900, "accepted %d", accepted);
	free(buf);
	free(base);
}
