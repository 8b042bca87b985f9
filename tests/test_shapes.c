/* test_shapes.c - pass_infer_shapes on tiny graphs built with the ir.h API:
 * output shapes per the ONNX operator rules (Conv with every auto_pad mode,
 * pooling with ceil_mode, broadcasting, MatMul, Reshape, ...), constant
 * folding of PyTorch-style shape chains, and the errors (one message naming
 * the node, every problem in one run, absurd sizes refused). */
#include <criterion/criterion.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "ir/ir.h"
#include "passes/passes.h"

static struct graph *g;
static struct diag d;
static char *msgs;      /* diagnostics written by the pass (open_memstream) */
static size_t msgs_len;
static FILE *msgs_file;
static struct options opt;

static void setup(void)
{
	g = ir_graph_new("test.onnx");
	g->opset = 17;
	msgs_file = open_memstream(&msgs, &msgs_len);
	diag_init(&d, "test.onnx", msgs_file);
}

static void teardown(void)
{
	fclose(msgs_file);
	free(msgs);
	ir_graph_free(g);
}

TestSuite(shapes, .init = setup, .fini = teardown);

/* ---- building graphs ----------------------------------------------------------- */

static struct tensor **grow(struct tensor **arr, int n, struct tensor *t)
{
	struct tensor **a = arena_alloc(&g->arena, (n + 1) * sizeof *a);
	if (n)
		memcpy(a, arr, n * sizeof *a);
	a[n] = t;
	return a;
}

static struct tensor *input_t(const char *name, enum dtype dt, int rank, ...)
{
	int64_t dims[IR_MAX_RANK];
	va_list ap;
	va_start(ap, rank);
	for (int i = 0; i < rank; i++)
		dims[i] = va_arg(ap, int64_t);
	va_end(ap);
	struct tensor *t = ir_new_tensor(g, name, dt);
	ir_set_shape(t, rank, dims);
	t->is_input = 1;
	g->inputs = grow(g->inputs, g->n_inputs++, t);
	return t;
}

#define input(name, rank, ...) input_t((name), DTYPE_F32, (rank), __VA_ARGS__)

/* A float constant of the given shape, filled with 0, 1, 2, ... */
static struct tensor *const_f(const char *name, int rank, ...)
{
	int64_t dims[IR_MAX_RANK], n = 1;
	va_list ap;
	va_start(ap, rank);
	for (int i = 0; i < rank; i++) {
		dims[i] = va_arg(ap, int64_t);
		n *= dims[i];
	}
	va_end(ap);
	float *data = arena_alloc(&g->arena, n * sizeof *data + 1);
	for (int64_t i = 0; i < n; i++)
		data[i] = (float)i;
	return ir_new_constant(g, name, DTYPE_F32, rank, dims, data);
}

/* A 1-D int64 constant (rank 0 when count is -1: a scalar holding one value). */
static struct tensor *const_i(const char *name, int count, ...)
{
	int n = count < 0 ? 1 : count;
	int64_t *data = arena_alloc(&g->arena, n * sizeof *data + 1);
	va_list ap;
	va_start(ap, count);
	for (int i = 0; i < n; i++)
		data[i] = va_arg(ap, int64_t);
	va_end(ap);
	int64_t len = count;
	return ir_new_constant(g, name, DTYPE_I64, count < 0 ? 0 : 1, &len, data);
}

static struct tensor *act(const char *name)
{
	return ir_new_tensor(g, name, DTYPE_UNDEF);
}

static void mark_output(struct tensor *t)
{
	t->is_output = 1;
	g->outputs = grow(g->outputs, g->n_outputs++, t);
}

/* node(OP, "name", n_in, in..., n_out, out...); a NULL input or output is
 * an omitted optional one. */
static struct node *node(enum op op, const char *name, int n_in, ...)
{
	struct tensor *ins[16], *outs[8];
	va_list ap;
	va_start(ap, n_in);
	for (int i = 0; i < n_in; i++)
		ins[i] = va_arg(ap, struct tensor *);
	int n_out = va_arg(ap, int);
	for (int i = 0; i < n_out; i++)
		outs[i] = va_arg(ap, struct tensor *);
	va_end(ap);
	return ir_add_node(g, op, name, n_in, ins, n_out, outs);
}

/* One in, one out. */
static struct node *node1(enum op op, const char *name, struct tensor *x, struct tensor *y)
{
	return node(op, name, 1, x, 1, y);
}

static void attr_int(struct node *n, const char *name, int64_t v)
{
	ir_add_attr(g, n, name, ATTR_INT)->i = v;
}

static void attr_float(struct node *n, const char *name, double v)
{
	ir_add_attr(g, n, name, ATTR_FLOAT)->f = v;
}

static void attr_str(struct node *n, const char *name, const char *s)
{
	ir_add_attr(g, n, name, ATTR_STRING)->s = arena_strdup(&g->arena, s);
}

static void attr_ints(struct node *n, const char *name, int count, ...)
{
	struct attr *a = ir_add_attr(g, n, name, ATTR_INTS);
	a->n = count;
	a->ints = arena_alloc(&g->arena, (count + 1) * sizeof *a->ints);
	va_list ap;
	va_start(ap, count);
	for (int i = 0; i < count; i++)
		a->ints[i] = va_arg(ap, int64_t);
	va_end(ap);
}

static void attr_tensor(struct node *n, const char *name, struct tensor *t)
{
	ir_add_attr(g, n, name, ATTR_TENSOR)->t = t;
}

static int run(void)
{
	int rc = pass_infer_shapes(g, &opt, &d);
	fflush(msgs_file);
	return rc;
}

static int lines(void)
{
	int k = 0;
	for (size_t i = 0; i < msgs_len; i++)
		k += msgs[i] == '\n';
	return k;
}

/* Runs the pass expecting success; the graph must then verify. */
static void run_ok(void)
{
	int rc = run();
	cr_assert_eq(rc, 0, "unexpected errors:\n%s", msgs);
	cr_assert_eq(d.errors, 0);
	FILE *null_out = fopen("/dev/null", "w");
	struct diag vd;
	diag_init(&vd, "verify", null_out);
	cr_assert_eq(ir_verify(g, "infer_shapes", 1, &vd), 0, "verifier failed");
	fclose(null_out);
}

/* Runs the pass expecting exactly one error whose text contains each of the
 * given fragments. */
static void run_err1(const char *frag1, const char *frag2)
{
	int rc = run();
	cr_assert_eq(rc, 1, "expected one error, got %d:\n%s", rc, msgs ? msgs : "");
	cr_assert_eq(lines(), 1, "expected one message:\n%s", msgs);
	cr_assert(strstr(msgs, frag1), "'%s' not in: %s", frag1, msgs);
	if (frag2)
		cr_assert(strstr(msgs, frag2), "'%s' not in: %s", frag2, msgs);
}

#define I64(x) ((int64_t)(x))

static void assert_shape(const struct tensor *t, int rank, ...)
{
	cr_assert_eq(t->rank, rank, "'%s' has rank %d, expected %d", t->name, t->rank, rank);
	va_list ap;
	va_start(ap, rank);
	for (int i = 0; i < rank; i++) {
		int64_t v = va_arg(ap, int64_t);
		cr_assert_eq(t->dims[i], v, "'%s' dim %d is %lld, expected %lld", t->name, i,
		             (long long)t->dims[i], (long long)v);
	}
	va_end(ap);
}

static void assert_i64_data(const struct tensor *t, int n, ...)
{
	cr_assert_not_null(t->data, "'%s' was not folded", t->name);
	cr_assert_eq(t->dtype, DTYPE_I64);
	cr_assert_eq(ir_numel(t), n);
	va_list ap;
	va_start(ap, n);
	for (int i = 0; i < n; i++) {
		int64_t v = va_arg(ap, int64_t);
		cr_assert_eq(((int64_t *)t->data)[i], v, "'%s'[%d] is %lld, expected %lld", t->name,
		             i, (long long)((int64_t *)t->data)[i], (long long)v);
	}
	va_end(ap);
}

static int count_op(enum op op)
{
	int k = 0;
	for (int i = 0; i < g->n_nodes; i++)
		k += g->nodes[i]->op == op;
	return k;
}

/* ---- Conv ----------------------------------------------------------------------- */

Test(shapes, conv_explicit_pads_and_strides)
{
	struct tensor *x = input("x", 4, I64(1), I64(3), I64(32), I64(32));
	struct tensor *y1 = act("y1"), *y2 = act("y2");
	struct node *c1 = node(OP_CONV, "c1", 3, x, const_f("w1", 4, I64(8), I64(3), I64(3), I64(3)),
	                       const_f("b1", 1, I64(8)), 1, y1);
	attr_ints(c1, "pads", 4, I64(1), I64(1), I64(1), I64(1));
	struct node *c2 = node(OP_CONV, "c2", 2, y1, const_f("w2", 4, I64(16), I64(8), I64(3), I64(3)),
	                       1, y2);
	attr_ints(c2, "strides", 2, I64(2), I64(2));
	attr_ints(c2, "pads", 4, I64(0), I64(1), I64(1), I64(0));
	attr_ints(c2, "kernel_shape", 2, I64(3), I64(3));
	mark_output(y2);
	run_ok();
	assert_shape(y1, 4, I64(1), I64(8), I64(32), I64(32));
	/* H: (32 + 0 + 1 - 3) / 2 + 1 = 16; W: (32 + 1 + 0 - 3) / 2 + 1 = 16 */
	assert_shape(y2, 4, I64(1), I64(16), I64(16), I64(16));
	cr_assert_eq(y2->dtype, DTYPE_F32);
	cr_assert_eq(g->n_nodes, 2);
}

Test(shapes, conv_auto_pad_modes)
{
	static const char *const modes[] = {"VALID", "SAME_UPPER", "SAME_LOWER", "NOTSET"};
	/* 7x9 input, 3x3 kernel, stride 2: VALID floor((7-3)/2)+1 = 3, (9-3)/2+1 = 4;
	 * SAME ceil(7/2) = 4, ceil(9/2) = 5; NOTSET without pads = VALID. */
	static const int64_t want[][2] = {{3, 4}, {4, 5}, {4, 5}, {3, 4}};
	struct tensor *x = input("x", 4, I64(2), I64(2), I64(7), I64(9));
	struct tensor *w = const_f("w", 4, I64(4), I64(2), I64(3), I64(3));
	struct tensor *y[4];
	for (int i = 0; i < 4; i++) {
		char name[16];
		snprintf(name, sizeof name, "y%d", i);
		y[i] = act(name);
		struct node *n = node(OP_CONV, name, 2, x, w, 1, y[i]);
		attr_ints(n, "strides", 2, I64(2), I64(2));
		attr_str(n, "auto_pad", modes[i]);
		mark_output(y[i]);
	}
	run_ok();
	for (int i = 0; i < 4; i++)
		assert_shape(y[i], 4, I64(2), I64(4), want[i][0], want[i][1]);
}

Test(shapes, conv_dilations_groups_1d)
{
	struct tensor *x = input("x", 4, I64(1), I64(6), I64(10), I64(10));
	struct tensor *y1 = act("y1"), *y2 = act("y2"), *y3 = act("y3");
	/* dilation 2: effective kernel 5, (10 - 5) / 1 + 1 = 6 */
	struct node *c1 = node(OP_CONV, "dil", 2, x, const_f("w1", 4, I64(4), I64(6), I64(3), I64(3)),
	                       1, y1);
	attr_ints(c1, "dilations", 2, I64(2), I64(2));
	/* group 3: W [12, 2, 3, 3] */
	struct node *c2 = node(OP_CONV, "grp", 2, x, const_f("w2", 4, I64(12), I64(2), I64(3), I64(3)),
	                       1, y2);
	attr_int(c2, "group", 3);
	/* 1-D: [1, 4, 20] with k 5, stride 3: (20 - 5) / 3 + 1 = 6 */
	struct tensor *x1 = input("x1", 3, I64(1), I64(4), I64(20));
	struct node *c3 = node(OP_CONV, "c1d", 2, x1, const_f("w3", 3, I64(5), I64(4), I64(5)), 1, y3);
	attr_ints(c3, "strides", 1, I64(3));
	mark_output(y1);
	mark_output(y2);
	mark_output(y3);
	run_ok();
	assert_shape(y1, 4, I64(1), I64(4), I64(6), I64(6));
	assert_shape(y2, 4, I64(1), I64(12), I64(8), I64(8));
	assert_shape(y3, 3, I64(1), I64(5), I64(6));
}

Test(shapes, conv_channel_mismatch_names_node)
{
	struct tensor *x = input("x", 4, I64(1), I64(3), I64(8), I64(8));
	struct tensor *y = act("y");
	node(OP_CONV, "conv1", 2, x, const_f("w", 4, I64(4), I64(6), I64(3), I64(3)), 1, y);
	mark_output(y);
	run_err1("node 'conv1' (Conv)", "input has 3 channels but weights expect 6 (group 1)");
}

Test(shapes, conv_group_and_pads_errors)
{
	struct tensor *x = input("x", 4, I64(1), I64(4), I64(8), I64(8));
	struct tensor *y = act("y");
	struct node *n = node(OP_CONV, "cg", 2, x, const_f("w", 4, I64(3), I64(2), I64(3), I64(3)), 1, y);
	attr_int(n, "group", 2);
	mark_output(y);
	run_err1("node 'cg' (Conv)", "not a multiple of group 2");
}

Test(shapes, conv_pads_count)
{
	struct tensor *x = input("x", 4, I64(1), I64(1), I64(8), I64(8));
	struct tensor *y = act("y");
	struct node *n = node(OP_CONV, "cp", 2, x, const_f("w", 4, I64(1), I64(1), I64(3), I64(3)), 1, y);
	attr_ints(n, "pads", 3, I64(1), I64(1), I64(1));
	mark_output(y);
	run_err1("node 'cp' (Conv)", "pads has 3 values, expected 4 for a 2-D kernel");
}

Test(shapes, conv_kernel_larger_than_input)
{
	struct tensor *x = input("x", 4, I64(1), I64(1), I64(2), I64(8));
	struct tensor *y = act("y");
	node(OP_CONV, "big", 2, x, const_f("w", 4, I64(1), I64(1), I64(5), I64(3)), 1, y);
	mark_output(y);
	run_err1("node 'big' (Conv)", "smaller than the kernel");
}

/* ---- Gemm, MatMul ---------------------------------------------------------------- */

Test(shapes, gemm_trans_and_bias)
{
	struct tensor *a = input("a", 2, I64(4), I64(3));
	struct tensor *y = act("y");
	struct node *n = node(OP_GEMM, "fc", 3, a, const_f("b", 2, I64(10), I64(3)),
	                      const_f("c", 1, I64(10)), 1, y);
	attr_int(n, "transB", 1);
	mark_output(y);
	run_ok();
	assert_shape(y, 2, I64(4), I64(10));
}

Test(shapes, gemm_k_mismatch)
{
	struct tensor *a = input("a", 2, I64(4), I64(3));
	struct tensor *y = act("y");
	node(OP_GEMM, "fc", 2, a, const_f("b", 2, I64(10), I64(3)), 1, y);
	mark_output(y);
	run_err1("node 'fc' (Gemm)", "K = 3");
}

Test(shapes, matmul_promotion_and_batch)
{
	struct tensor *v = input("v", 1, I64(3));
	struct tensor *m = input("m", 2, I64(2), I64(3));
	struct tensor *a = input("a", 4, I64(5), I64(1), I64(2), I64(3));
	struct tensor *y[4] = {act("vv"), act("mv"), act("vm"), act("bb")};
	node(OP_MATMUL, "vv", 2, v, v, 1, y[0]);
	node(OP_MATMUL, "mv", 2, m, v, 1, y[1]);
	node(OP_MATMUL, "vm", 2, v, const_f("w", 2, I64(3), I64(4)), 1, y[2]);
	node(OP_MATMUL, "bb", 2, a, const_f("w3", 3, I64(4), I64(3), I64(6)), 1, y[3]);
	for (int i = 0; i < 4; i++)
		mark_output(y[i]);
	run_ok();
	assert_shape(y[0], 0);
	assert_shape(y[1], 1, I64(2));
	assert_shape(y[2], 1, I64(4));
	assert_shape(y[3], 4, I64(5), I64(4), I64(2), I64(6));
	cr_assert_eq(count_op(OP_MATMUL), 4, "MatMul on constants is never folded");
}

Test(shapes, matmul_batch_mismatch)
{
	struct tensor *a = input("a", 3, I64(2), I64(2), I64(3));
	struct tensor *y = act("y");
	node(OP_MATMUL, "mm", 2, a, const_f("w", 3, I64(3), I64(3), I64(4)), 1, y);
	mark_output(y);
	run_err1("node 'mm' (MatMul)", "do not broadcast");
}

/* ---- elementwise ----------------------------------------------------------------- */

Test(shapes, broadcasting)
{
	struct tensor *a = input("a", 4, I64(2), I64(3), I64(4), I64(5));
	struct tensor *b = input("b", 3, I64(4), I64(1), I64(5));
	struct tensor *y1 = act("y1"), *y2 = act("y2"), *y3 = act("y3");
	node(OP_ADD, "add", 2, a, const_f("c", 1, I64(5)), 1, y1);
	node(OP_MUL, "mul", 2, b, const_f("d", 2, I64(3), I64(1)), 1, y2);
	node(OP_SUB, "sub", 2, const_f("s", 0), a, 1, y3);
	mark_output(y1);
	mark_output(y2);
	mark_output(y3);
	run_ok();
	assert_shape(y1, 4, I64(2), I64(3), I64(4), I64(5));
	assert_shape(y2, 3, I64(4), I64(3), I64(5));
	assert_shape(y3, 4, I64(2), I64(3), I64(4), I64(5));
}

Test(shapes, broadcasting_incompatible)
{
	struct tensor *a = input("a", 2, I64(2), I64(3));
	struct tensor *y = act("y");
	node(OP_DIV, "div", 2, a, const_f("c", 1, I64(4)), 1, y);
	mark_output(y);
	run_err1("node 'div' (Div)", "not broadcastable: dimension 1 is 3 vs 4");
}

Test(shapes, fold_arithmetic_broadcast)
{
	/* [2, 3] + [3] over float constants, and int64 Div. */
	struct tensor *y = act("y"), *q = act("q");
	node(OP_ADD, "add", 2, const_f("a", 2, I64(2), I64(3)), const_f("b", 1, I64(3)), 1, y);
	node(OP_DIV, "div", 2, const_i("n", 3, I64(7), I64(-7), I64(9)), const_i("m", -1, I64(2)), 1,
	     q);
	mark_output(y);
	mark_output(q);
	run_ok();
	cr_assert_eq(g->n_nodes, 0);
	assert_shape(y, 2, I64(2), I64(3));
	const float *p = y->data;
	static const float want[] = {0, 2, 4, 3, 5, 7};
	for (int i = 0; i < 6; i++)
		cr_assert_float_eq(p[i], want[i], 0, "y[%d] = %g", i, p[i]);
	assert_i64_data(q, 3, I64(3), I64(-3), I64(4));
}

Test(shapes, fold_division_by_zero)
{
	struct tensor *q = act("q");
	node(OP_DIV, "div0", 2, const_i("n", 1, I64(7)), const_i("m", 1, I64(0)), 1, q);
	mark_output(q);
	run_err1("node 'div0' (Div)", "divides by zero");
}

Test(shapes, unary_and_softmax)
{
	struct tensor *x = input("x", 2, I64(4), I64(7));
	struct tensor *y1 = act("y1"), *y2 = act("y2"), *y3 = act("y3");
	node1(OP_RELU, "relu", x, y1);
	struct node *cl = node(OP_CLIP, "clip", 3, y1, NULL, const_f("mx", 0), 1, y2);
	(void)cl;
	node1(OP_SOFTMAX, "sm", y2, y3);
	mark_output(y3);
	run_ok();
	assert_shape(y3, 2, I64(4), I64(7));
}

Test(shapes, softmax_axis_out_of_range)
{
	struct tensor *x = input("x", 2, I64(4), I64(7));
	struct tensor *y = act("y");
	struct node *n = node1(OP_LOG_SOFTMAX, "lsm", x, y);
	attr_int(n, "axis", 2);
	mark_output(y);
	run_err1("node 'lsm' (LogSoftmax)", "axis 2 is out of range for rank 2");
}

/* ---- BatchNormalization, Dropout ------------------------------------------------- */

Test(shapes, batchnorm)
{
	struct tensor *x = input("x", 4, I64(1), I64(3), I64(5), I64(5));
	struct tensor *y = act("y");
	node(OP_BATCHNORM, "bn", 5, x, const_f("s", 1, I64(3)), const_f("b", 1, I64(3)),
	     const_f("m", 1, I64(3)), const_f("v", 1, I64(3)), 1, y);
	mark_output(y);
	run_ok();
	assert_shape(y, 4, I64(1), I64(3), I64(5), I64(5));
}

Test(shapes, batchnorm_training_outputs)
{
	struct tensor *x = input("x", 4, I64(1), I64(3), I64(5), I64(5));
	struct tensor *y = act("y");
	node(OP_BATCHNORM, "bn", 5, x, const_f("s", 1, I64(3)), const_f("b", 1, I64(3)),
	     const_f("m", 1, I64(3)), const_f("v", 1, I64(3)), 3, y, act("rm"), act("rv"));
	mark_output(y);
	run_err1("node 'bn' (BatchNormalization)", "only the inference output Y");
}

Test(shapes, batchnorm_wrong_channels)
{
	struct tensor *x = input("x", 4, I64(1), I64(3), I64(5), I64(5));
	struct tensor *y = act("y");
	node(OP_BATCHNORM, "bn", 5, x, const_f("s", 1, I64(3)), const_f("b", 1, I64(4)),
	     const_f("m", 1, I64(3)), const_f("v", 1, I64(3)), 1, y);
	mark_output(y);
	run_err1("node 'bn' (BatchNormalization)", "B 'b' has shape [4], expected [3]");
}

Test(shapes, dropout_unused_mask_ok)
{
	struct tensor *x = input("x", 2, I64(2), I64(3));
	struct tensor *y = act("y"), *mask = act("mask");
	node(OP_DROPOUT, "drop", 1, x, 2, y, mask);
	mark_output(y);
	run_ok();
	assert_shape(y, 2, I64(2), I64(3));
}

Test(shapes, dropout_used_mask)
{
	struct tensor *x = input("x", 2, I64(2), I64(3));
	struct tensor *y = act("y"), *mask = act("mask");
	node(OP_DROPOUT, "drop", 1, x, 2, y, mask);
	mark_output(y);
	mark_output(mask);
	run_err1("node 'drop' (Dropout)", "mask output 'mask' is used");
}

/* ---- pooling ------------------------------------------------------------------------ */

Test(shapes, pool_ceil_mode)
{
	/* ONNX test_maxpool_2d_ceil: [1, 1, 4, 4], k 3, s 2, ceil -> 2x2 (floor: 1x1). */
	struct tensor *x = input("x", 4, I64(1), I64(1), I64(4), I64(4));
	struct tensor *y1 = act("y1"), *y2 = act("y2");
	struct node *p1 = node1(OP_MAXPOOL, "ceil", x, y1);
	attr_ints(p1, "kernel_shape", 2, I64(3), I64(3));
	attr_ints(p1, "strides", 2, I64(2), I64(2));
	attr_int(p1, "ceil_mode", 1);
	struct node *p2 = node1(OP_AVGPOOL, "floor", x, y2);
	attr_ints(p2, "kernel_shape", 2, I64(3), I64(3));
	attr_ints(p2, "strides", 2, I64(2), I64(2));
	mark_output(y1);
	mark_output(y2);
	run_ok();
	assert_shape(y1, 4, I64(1), I64(1), I64(2), I64(2));
	assert_shape(y2, 4, I64(1), I64(1), I64(1), I64(1));
}

Test(shapes, pool_ceil_drops_window_in_end_padding)
{
	/* [2, 2], k 1, s 2, ceil: ceil((2 - 1) / 2) + 1 = 2, but the second
	 * window would start at 2 >= 2 + 0: dropped -> 1. With pads 1 on a 5:
	 * ceil((5 + 2 - 2) / 2) + 1 = 4, window 4 starts at 6 >= 5 + 1 -> 3. */
	struct tensor *x = input("x", 4, I64(1), I64(1), I64(2), I64(2));
	struct tensor *x5 = input("x5", 4, I64(1), I64(1), I64(5), I64(5));
	struct tensor *y1 = act("y1"), *y2 = act("y2");
	struct node *p1 = node1(OP_MAXPOOL, "p1", x, y1);
	attr_ints(p1, "kernel_shape", 2, I64(1), I64(1));
	attr_ints(p1, "strides", 2, I64(2), I64(2));
	attr_int(p1, "ceil_mode", 1);
	struct node *p2 = node1(OP_AVGPOOL, "p2", x5, y2);
	attr_ints(p2, "kernel_shape", 2, I64(2), I64(2));
	attr_ints(p2, "strides", 2, I64(2), I64(2));
	attr_ints(p2, "pads", 4, I64(1), I64(1), I64(1), I64(1));
	attr_int(p2, "ceil_mode", 1);
	mark_output(y1);
	mark_output(y2);
	run_ok();
	assert_shape(y1, 4, I64(1), I64(1), I64(1), I64(1));
	assert_shape(y2, 4, I64(1), I64(1), I64(3), I64(3));
}

Test(shapes, pool_auto_pad_and_1d)
{
	struct tensor *x = input("x", 4, I64(1), I64(3), I64(5), I64(6));
	struct tensor *x1 = input("x1", 3, I64(1), I64(3), I64(32));
	struct tensor *y1 = act("y1"), *y2 = act("y2"), *y3 = act("y3");
	struct node *p1 = node1(OP_AVGPOOL, "same", x, y1);
	attr_ints(p1, "kernel_shape", 2, I64(3), I64(3));
	attr_ints(p1, "strides", 2, I64(2), I64(2));
	attr_str(p1, "auto_pad", "SAME_UPPER");
	struct node *p2 = node1(OP_MAXPOOL, "valid", x, y2);
	attr_ints(p2, "kernel_shape", 2, I64(2), I64(3));
	attr_str(p2, "auto_pad", "VALID");
	struct node *p3 = node1(OP_MAXPOOL, "one_d", x1, y3);
	attr_ints(p3, "kernel_shape", 1, I64(2));
	attr_ints(p3, "strides", 1, I64(2));
	mark_output(y1);
	mark_output(y2);
	mark_output(y3);
	run_ok();
	assert_shape(y1, 4, I64(1), I64(3), I64(3), I64(3));
	assert_shape(y2, 4, I64(1), I64(3), I64(4), I64(4));
	assert_shape(y3, 3, I64(1), I64(3), I64(16));
}

Test(shapes, maxpool_indices)
{
	struct tensor *x = input("x", 4, I64(1), I64(1), I64(4), I64(4));
	struct tensor *y = act("y");
	struct node *p = node(OP_MAXPOOL, "mp", 1, x, 2, y, act("idx"));
	attr_ints(p, "kernel_shape", 2, I64(2), I64(2));
	mark_output(y);
	run_err1("node 'mp' (MaxPool)", "MaxPool Indices output is not supported");
}

Test(shapes, pool_pads_not_smaller_than_kernel)
{
	struct tensor *x = input("x", 4, I64(1), I64(1), I64(6), I64(6));
	struct tensor *y = act("y");
	struct node *p = node1(OP_AVGPOOL, "ap", x, y);
	attr_ints(p, "kernel_shape", 2, I64(2), I64(3));
	attr_ints(p, "pads", 4, I64(0), I64(1), I64(2), I64(0));
	mark_output(y);
	run_err1("node 'ap' (AveragePool)", "pads[2] is 2; pads must be smaller than the kernel (2)");
}

Test(shapes, global_pool_lrn)
{
	struct tensor *x = input("x", 4, I64(2), I64(8), I64(7), I64(7));
	struct tensor *y1 = act("y1"), *y2 = act("y2"), *y3 = act("y3");
	struct node *l = node1(OP_LRN, "lrn", x, y1);
	attr_int(l, "size", 5);
	node1(OP_GLOBAL_AVGPOOL, "gap", y1, y2);
	node1(OP_GLOBAL_MAXPOOL, "gmp", x, y3);
	mark_output(y2);
	mark_output(y3);
	run_ok();
	assert_shape(y1, 4, I64(2), I64(8), I64(7), I64(7));
	assert_shape(y2, 4, I64(2), I64(8), I64(1), I64(1));
	assert_shape(y3, 4, I64(2), I64(8), I64(1), I64(1));
}

/* ---- data movement ------------------------------------------------------------------- */

Test(shapes, reshape_zero_and_minus_one)
{
	struct tensor *x = input("x", 3, I64(2), I64(3), I64(4));
	struct tensor *y1 = act("y1"), *y2 = act("y2"), *y3 = act("y3");
	node(OP_RESHAPE, "r1", 2, x, const_i("s1", 2, I64(0), I64(-1)), 1, y1);
	node(OP_RESHAPE, "r2", 2, x, const_i("s2", 1, I64(-1)), 1, y2);
	node(OP_RESHAPE, "r3", 2, x, const_i("s3", 4, I64(0), I64(0), I64(2), I64(2)), 1, y3);
	mark_output(y1);
	mark_output(y2);
	mark_output(y3);
	run_ok();
	assert_shape(y1, 2, I64(2), I64(12));
	assert_shape(y2, 1, I64(24));
	assert_shape(y3, 4, I64(2), I64(3), I64(2), I64(2));
	cr_assert_eq(count_op(OP_RESHAPE), 3, "Reshape of an activation stays");
}

Test(shapes, reshape_errors_all_reported)
{
	struct tensor *x = input("x", 2, I64(2), I64(3));
	struct tensor *y1 = act("y1"), *y2 = act("y2"), *y3 = act("y3"), *y4 = act("y4");
	node(OP_RESHAPE, "two_minus", 2, x, const_i("s1", 2, I64(-1), I64(-1)), 1, y1);
	node(OP_RESHAPE, "count", 2, x, const_i("s2", 2, I64(4), I64(2)), 1, y2);
	node(OP_RESHAPE, "dynamic", 2, x, x, 1, y3);
	/* y4 reads y1, which failed: no second message for it */
	node1(OP_RELU, "after", y1, y4);
	mark_output(y2);
	mark_output(y3);
	mark_output(y4);
	int rc = run();
	cr_assert_eq(rc, 3, "%s", msgs);
	cr_assert_eq(lines(), 3);
	cr_assert(strstr(msgs, "node 'two_minus' (Reshape): shape [-1, -1] has more than one -1"),
	          "%s", msgs);
	cr_assert(strstr(msgs, "node 'count' (Reshape): cannot reshape [2, 3] (6 elements) to "
	                       "[4, 2] (8 elements)"),
	          "%s", msgs);
	cr_assert(strstr(msgs, "node 'dynamic' (Reshape): shape (input 1, 'x') must be a constant"),
	          "%s", msgs);
	cr_assert_null(strstr(msgs, "'after'"), "%s", msgs);
}

Test(shapes, pytorch_shape_chain_folds)
{
	/* x.view(x.size(0), -1) as PyTorch exports it:
	 * Shape -> Gather(0) -> Unsqueeze -> Concat(., [-1]) -> Reshape. */
	struct tensor *x = input("x", 4, I64(2), I64(3), I64(4), I64(4));
	struct tensor *shape = act("shape"), *n0 = act("n0"), *n0u = act("n0u");
	struct tensor *cat = act("cat"), *y = act("y"), *z = act("z");
	node1(OP_SHAPE, "shape", x, shape);
	struct node *ga = node(OP_GATHER, "gather", 2, shape, const_i("zero", -1, I64(0)), 1, n0);
	attr_int(ga, "axis", 0);
	node(OP_UNSQUEEZE, "unsq", 2, n0, const_i("axes", 1, I64(0)), 1, n0u);
	struct node *cc = node(OP_CONCAT, "concat", 2, n0u, const_i("m1", 1, I64(-1)), 1, cat);
	attr_int(cc, "axis", 0);
	node(OP_RESHAPE, "reshape", 2, x, cat, 1, y);
	node1(OP_RELU, "relu", y, z);
	mark_output(z);
	run_ok();
	assert_shape(n0, 0);
	assert_i64_data(n0, 1, I64(2));
	assert_shape(n0u, 1, I64(1));
	assert_i64_data(cat, 2, I64(2), I64(-1));
	assert_shape(y, 2, I64(2), I64(48));
	cr_assert_eq(g->n_nodes, 2, "only Reshape and Relu stay");
	cr_assert_eq(g->nodes[0]->op, OP_RESHAPE);
	cr_assert_eq(g->nodes[0]->inputs[1], cat);
	cr_assert_null(cat->producer);
	cr_assert_null(ir_find_tensor(g, "shape"), "dead intermediate constants are compacted");
	cr_assert_null(ir_find_tensor(g, "n0u"));
	for (int i = 0; i < g->n_nodes; i++)
		cr_assert_eq(g->nodes[i]->index, i);
}

Test(shapes, fold_cast_slice_constant_of_shape)
{
	/* Shape (opset 15 start) -> Cast float -> Slice reversed; ConstantOfShape. */
	g->opset = 15;
	struct tensor *x = input("x", 4, I64(1), I64(3), I64(10), I64(20));
	struct tensor *hw = act("hw"), *hwf = act("hwf"), *rev = act("rev");
	struct tensor *fill = act("fill");
	struct node *sh = node1(OP_SHAPE, "shape", x, hw);
	attr_int(sh, "start", -2);
	struct node *ca = node1(OP_CAST, "cast", hw, hwf);
	attr_int(ca, "to", 1);
	node(OP_SLICE, "slice", 5, hw, const_i("st", 1, I64(-1)), const_i("en", 1, INT64_MIN),
	     const_i("ax", 1, I64(0)), const_i("sp", 1, I64(-1)), 1, rev);
	node(OP_SLICE, "slice_step", 5, const_i("r", 7, I64(0), I64(1), I64(2), I64(3), I64(4), I64(5), I64(6)),
	     const_i("st2", 1, I64(-1)), const_i("en2", 1, INT64_MIN), NULL,
	     const_i("sp2", 1, I64(-3)), 1, act("every3"));
	struct node *cos = node1(OP_CONSTANT_OF_SHAPE, "cos", hw, fill);
	int64_t one = 1;
	int64_t *seven = arena_alloc(&g->arena, sizeof *seven);
	*seven = 7;
	struct tensor *val = ir_new_constant(g, "val", DTYPE_I64, 1, &one, seven);
	attr_tensor(cos, "value", val);
	mark_output(hwf);
	mark_output(rev);
	mark_output(fill);
	mark_output(ir_find_tensor(g, "every3"));
	run_ok();
	cr_assert_eq(g->n_nodes, 0);
	assert_i64_data(hw, 2, I64(10), I64(20));
	cr_assert_eq(hwf->dtype, DTYPE_F32);
	cr_assert_float_eq(((float *)hwf->data)[1], 20.0f, 0);
	assert_i64_data(rev, 2, I64(20), I64(10));
	assert_i64_data(ir_find_tensor(g, "every3"), 3, I64(6), I64(3), I64(0));
	assert_shape(fill, 2, I64(10), I64(20));
	cr_assert_eq(fill->dtype, DTYPE_I64);
	cr_assert_eq(((int64_t *)fill->data)[199], 7);
}

Test(shapes, slice_activation)
{
	struct tensor *x = input("x", 3, I64(4), I64(10), I64(6));
	struct tensor *y = act("y");
	node(OP_SLICE, "sl", 5, x, const_i("s", 2, I64(0), I64(-4)), const_i("e", 2, I64(1000), I64(-1)),
	     const_i("a", 2, I64(1), I64(-1)), const_i("p", 2, I64(3), I64(1)), 1, y);
	mark_output(y);
	run_ok();
	/* axis 1: 0, 3, 6, 9 -> 4; axis 2: 2..4 -> 3 */
	assert_shape(y, 3, I64(4), I64(4), I64(3));
	cr_assert_eq(count_op(OP_SLICE), 1);
}

Test(shapes, slice_attributes_before_opset_10)
{
	g->opset = 9;
	struct tensor *x = input("x", 2, I64(5), I64(8));
	struct tensor *y = act("y");
	struct node *n = node1(OP_SLICE, "sl", x, y);
	attr_ints(n, "starts", 1, I64(2));
	attr_ints(n, "ends", 1, I64(-1));
	attr_ints(n, "axes", 1, I64(1));
	mark_output(y);
	run_ok();
	assert_shape(y, 2, I64(5), I64(5));
}

Test(shapes, transpose_fold_and_default_perm)
{
	struct tensor *x = input("x", 3, I64(2), I64(3), I64(4));
	struct tensor *y = act("y"), *t = act("t");
	node1(OP_TRANSPOSE, "rev", x, y);
	struct node *n = node1(OP_TRANSPOSE, "tc", const_f("c", 2, I64(2), I64(3)), t);
	attr_ints(n, "perm", 2, I64(1), I64(0));
	mark_output(y);
	mark_output(t);
	run_ok();
	assert_shape(y, 3, I64(4), I64(3), I64(2));
	assert_shape(t, 2, I64(3), I64(2));
	cr_assert_not_null(t->data);
	static const float want[] = {0, 3, 1, 4, 2, 5};
	for (int i = 0; i < 6; i++)
		cr_assert_float_eq(((float *)t->data)[i], want[i], 0);
	cr_assert_eq(g->n_nodes, 1);
}

Test(shapes, transpose_bad_perm)
{
	struct tensor *x = input("x", 3, I64(2), I64(3), I64(4));
	struct tensor *y = act("y");
	struct node *n = node1(OP_TRANSPOSE, "tp", x, y);
	attr_ints(n, "perm", 3, I64(0), I64(2), I64(2));
	mark_output(y);
	run_err1("node 'tp' (Transpose)", "not a permutation");
}

Test(shapes, squeeze_unsqueeze_both_opsets)
{
	struct tensor *x = input("x", 4, I64(1), I64(3), I64(1), I64(5));
	struct tensor *y1 = act("y1"), *y2 = act("y2"), *y3 = act("y3");
	node(OP_SQUEEZE, "sq_all", 1, x, 1, y1);
	node(OP_SQUEEZE, "sq_ax", 2, x, const_i("a", 1, I64(-2)), 1, y2);
	node(OP_UNSQUEEZE, "unsq", 2, y1, const_i("b", 2, I64(0), I64(-1)), 1, y3);
	mark_output(y2);
	mark_output(y3);
	run_ok();
	assert_shape(y1, 2, I64(3), I64(5));
	assert_shape(y2, 3, I64(1), I64(3), I64(5));
	assert_shape(y3, 4, I64(1), I64(3), I64(5), I64(1));
}

Test(shapes, squeeze_unsqueeze_attributes_opset_11)
{
	g->opset = 11;
	struct tensor *x = input("x", 3, I64(1), I64(3), I64(1));
	struct tensor *y1 = act("y1"), *y2 = act("y2");
	struct node *s = node1(OP_SQUEEZE, "sq", x, y1);
	attr_ints(s, "axes", 1, I64(2));
	struct node *u = node1(OP_UNSQUEEZE, "unsq", y1, y2);
	attr_ints(u, "axes", 2, I64(1), I64(3));
	mark_output(y2);
	run_ok();
	assert_shape(y1, 2, I64(1), I64(3));
	assert_shape(y2, 4, I64(1), I64(1), I64(3), I64(1));
}

Test(shapes, squeeze_non_one)
{
	struct tensor *x = input("x", 2, I64(2), I64(3));
	struct tensor *y = act("y");
	node(OP_SQUEEZE, "sq", 2, x, const_i("a", 1, I64(0)), 1, y);
	mark_output(y);
	run_err1("node 'sq' (Squeeze)", "removes only dims of size 1");
}

Test(shapes, concat_and_flatten)
{
	struct tensor *a = input("a", 4, I64(1), I64(2), I64(3), I64(3));
	struct tensor *b = input("b", 4, I64(1), I64(5), I64(3), I64(3));
	struct tensor *y = act("y"), *f0 = act("f0"), *f1 = act("f1"), *fm = act("fm");
	struct node *c = node(OP_CONCAT, "cat", 2, a, b, 1, y);
	attr_int(c, "axis", -3);
	struct node *n0 = node1(OP_FLATTEN, "f0", y, f0);
	attr_int(n0, "axis", 0);
	node1(OP_FLATTEN, "f1", y, f1);
	struct node *nm = node1(OP_FLATTEN, "fm", y, fm);
	attr_int(nm, "axis", -1);
	mark_output(f0);
	mark_output(f1);
	mark_output(fm);
	run_ok();
	assert_shape(y, 4, I64(1), I64(7), I64(3), I64(3));
	assert_shape(f0, 2, I64(1), I64(63));
	assert_shape(f1, 2, I64(1), I64(63));
	assert_shape(fm, 2, I64(21), I64(3));
}

Test(shapes, concat_fold_axis1)
{
	struct tensor *y = act("y");
	struct node *c = node(OP_CONCAT, "cat", 2, const_f("a", 2, I64(2), I64(1)),
	                      const_f("b", 2, I64(2), I64(2)), 1, y);
	attr_int(c, "axis", 1);
	mark_output(y);
	run_ok();
	static const float want[] = {0, 0, 1, 1, 2, 3};
	assert_shape(y, 2, I64(2), I64(3));
	for (int i = 0; i < 6; i++)
		cr_assert_float_eq(((float *)y->data)[i], want[i], 0, "y[%d]", i);
}

Test(shapes, concat_mismatch)
{
	struct tensor *a = input("a", 2, I64(2), I64(3));
	struct tensor *b = input("b", 2, I64(3), I64(3));
	struct tensor *y = act("y");
	struct node *c = node(OP_CONCAT, "cat", 2, a, b, 1, y);
	attr_int(c, "axis", 1);
	mark_output(y);
	run_err1("node 'cat' (Concat)", "all dims except axis 1 must match");
}

Test(shapes, pad_input_and_attribute_forms)
{
	struct tensor *x = input("x", 4, I64(1), I64(3), I64(4), I64(4));
	struct tensor *y = act("y");
	node(OP_PAD, "pad", 2, x, const_i("p", 8, I64(0), I64(0), I64(1), I64(2), I64(0), I64(0),
	                                   I64(3), I64(-1)),
	     1, y);
	mark_output(y);
	run_ok();
	assert_shape(y, 4, I64(1), I64(3), I64(8), I64(5));
}

Test(shapes, pad_attribute_opset_2)
{
	g->opset = 2;
	struct tensor *x = input("x", 2, I64(3), I64(4));
	struct tensor *y = act("y");
	struct node *n = node1(OP_PAD, "pad", x, y);
	attr_ints(n, "pads", 4, I64(1), I64(1), I64(1), I64(1));
	attr_float(n, "value", 1.5);
	mark_output(y);
	run_ok();
	assert_shape(y, 2, I64(5), I64(6));
}

Test(shapes, gather_axis_and_range)
{
	struct tensor *x = input("x", 3, I64(2), I64(5), I64(3));
	int64_t dims[2] = {1, 2};
	int64_t *iv = arena_alloc(&g->arena, 2 * sizeof *iv);
	iv[0] = 0;
	iv[1] = -1;
	struct tensor *idx = ir_new_constant(g, "idx", DTYPE_I64, 2, dims, iv);
	struct tensor *y = act("y");
	struct node *n = node(OP_GATHER, "ga", 2, x, idx, 1, y);
	attr_int(n, "axis", 1);
	mark_output(y);
	run_ok();
	assert_shape(y, 4, I64(2), I64(1), I64(2), I64(3));
}

Test(shapes, gather_index_out_of_range)
{
	struct tensor *x = input("x", 2, I64(2), I64(5));
	struct tensor *y = act("y");
	struct node *n = node(OP_GATHER, "ga", 2, x, const_i("i", 1, I64(5)), 1, y);
	attr_int(n, "axis", -1);
	mark_output(y);
	run_err1("node 'ga' (Gather)", "index 5 is out of range for axis 1");
}

Test(shapes, gather_fold_2d)
{
	struct tensor *y = act("y");
	node(OP_GATHER, "ga", 2, const_f("c", 2, I64(3), I64(2)), const_i("i", 2, I64(2), I64(-3)),
	     1, y);
	mark_output(y);
	run_ok();
	static const float want[] = {4, 5, 0, 1};
	assert_shape(y, 2, I64(2), I64(2));
	for (int i = 0; i < 4; i++)
		cr_assert_float_eq(((float *)y->data)[i], want[i], 0);
}

Test(shapes, constant_node_forms)
{
	struct tensor *y1 = act("y1"), *y2 = act("y2"), *y3 = act("y3");
	struct node *c1 = node(OP_CONSTANT, "c1", 0, 1, y1);
	attr_ints(c1, "value_ints", 3, I64(4), I64(5), I64(6));
	struct node *c2 = node(OP_CONSTANT, "c2", 0, 1, y2);
	attr_float(c2, "value_float", 0.5);
	struct node *c3 = node(OP_CONSTANT, "c3", 0, 1, y3);
	attr_tensor(c3, "value", const_f("t", 2, I64(2), I64(2)));
	struct tensor *x = input("x", 2, I64(2), I64(2));
	struct tensor *z = act("z");
	node(OP_ADD, "add", 2, x, y3, 1, z);
	mark_output(y1);
	mark_output(y2);
	mark_output(z);
	run_ok();
	assert_i64_data(y1, 3, I64(4), I64(5), I64(6));
	assert_shape(y2, 0);
	cr_assert_float_eq(*(float *)y2->data, 0.5f, 0);
	assert_shape(y3, 2, I64(2), I64(2));
	cr_assert_not_null(y3->data);
	cr_assert_eq(g->n_nodes, 1);
	cr_assert_eq(g->nodes[0]->op, OP_ADD);
}

Test(shapes, constant_without_value)
{
	struct tensor *y = act("y");
	node(OP_CONSTANT, "c", 0, 1, y);
	mark_output(y);
	run_err1("node 'c' (Constant)", "no value attribute");
}

Test(shapes, cast_unsupported_type)
{
	struct tensor *x = input("x", 1, I64(3));
	struct tensor *y = act("y");
	struct node *n = node1(OP_CAST, "cast", x, y);
	attr_int(n, "to", 10);
	mark_output(y);
	run_err1("node 'cast' (Cast)", "Cast to FLOAT16 is not supported");
}

Test(shapes, legacy_broadcast_axis)
{
	/* Opset 6 Add with broadcast=1, axis=1: B [3] aligns with A's dim 1. */
	g->opset = 6;
	struct tensor *a = input("a", 4, I64(2), I64(3), I64(4), I64(5));
	struct tensor *y = act("y");
	struct node *n = node(OP_ADD, "add", 2, a, const_f("b", 1, I64(3)), 1, y);
	attr_int(n, "broadcast", 1);
	attr_int(n, "axis", 1);
	mark_output(y);
	run_ok();
	assert_shape(y, 4, I64(2), I64(3), I64(4), I64(5));
	assert_shape(n->inputs[1], 3, I64(3), I64(1), I64(1));
}

/* ---- robustness --------------------------------------------------------------------- */

Test(shapes, too_large_output)
{
	struct tensor *a = input("a", 2, I64(65536), I64(1));
	struct tensor *y = act("y");
	node(OP_MATMUL, "outer", 2, a, const_f("b", 2, I64(1), I64(65536)), 1, y);
	mark_output(y);
	run_err1("node 'outer' (MatMul)", "more than 2^31 elements: too large");
}

Test(shapes, absurd_constant_of_shape)
{
	struct tensor *y = act("y"), *y2 = act("y2");
	node1(OP_CONSTANT_OF_SHAPE, "huge", const_i("s", 2, INT64_MAX, INT64_MAX), y);
	node1(OP_CONSTANT_OF_SHAPE, "big", const_i("s2", 2, I64(1) << 20, I64(1) << 7), y2);
	mark_output(y);
	mark_output(y2);
	int rc = run();
	cr_assert_eq(rc, 2, "%s", msgs);
	cr_assert(strstr(msgs, "node 'huge' (ConstantOfShape): output 'y' would have shape "
	                       "[9223372036854775807, 9223372036854775807], more than 2^31"),
	          "%s", msgs);
	cr_assert(strstr(msgs, "node 'big' (ConstantOfShape): output [1048576, 128] is too "
	                       "large to materialise"),
	          "%s", msgs);
}

/* --max-arena: a node output over the limit is refused, naming node, shape,
 * size and limit; the same output fits once the limit is raised. */
static void concat_of_two_mib(void)
{
	struct tensor *x = input("x", 2, I64(1024), I64(1024));
	struct tensor *y = act("y"), *z = act("z");
	node1(OP_RELU, "relu", x, y);
	attr_int(node(OP_CONCAT, "cat", 2, y, y, 1, z), "axis", 1);
	mark_output(z);
}

Test(shapes, activation_limit)
{
	concat_of_two_mib();
	opt.max_arena = (uint64_t)6 << 20;
	cr_assert_eq(run(), 1, "%s", msgs);
	cr_assert(strstr(msgs, "node 'cat' (Concat): output 'z' would have shape [1024, 2048]: "
	                       "8388608 bytes, over the activation limit of 6291456 bytes"),
	          "%s", msgs);
}

Test(shapes, activation_limit_raised)
{
	concat_of_two_mib();
	opt.max_arena = (uint64_t)8 << 20;
	cr_assert_eq(run(), 0, "%s", msgs);
}

Test(shapes, absurd_attributes)
{
	struct tensor *x = input("x", 4, I64(1), I64(1), I64(8), I64(8));
	struct tensor *y1 = act("y1"), *y2 = act("y2");
	struct node *p = node1(OP_MAXPOOL, "mp", x, y1);
	attr_ints(p, "kernel_shape", 2, INT64_MAX, I64(2));
	struct node *c = node(OP_CONV, "cv", 2, x, const_f("w", 4, I64(1), I64(1), I64(1), I64(1)),
	                      1, y2);
	attr_ints(c, "dilations", 2, I64(1), I64(-4));
	mark_output(y1);
	mark_output(y2);
	int rc = run();
	cr_assert_eq(rc, 2, "%s", msgs);
	cr_assert(strstr(msgs, "node 'mp' (MaxPool): kernel_shape[0] is 9223372036854775807"),
	          "%s", msgs);
	cr_assert(strstr(msgs, "node 'cv' (Conv): dilations[1] is -4"), "%s", msgs);
}

Test(shapes, graph_input_too_large)
{
	struct tensor *x = input("x", 3, I64(4096), I64(4096), I64(4096));
	struct tensor *y = act("y");
	node1(OP_RELU, "relu", x, y);
	mark_output(y);
	int rc = run();
	cr_assert_eq(rc, 1, "%s", msgs);
	cr_assert(strstr(msgs, "graph input 'x' has shape [4096, 4096, 4096]"), "%s", msgs);
}

Test(shapes, empty_activation_refused)
{
	struct tensor *x = input("x", 2, I64(4), I64(6));
	struct tensor *y = act("y");
	node(OP_SLICE, "sl", 3, x, const_i("s", 1, I64(3)), const_i("e", 1, I64(1)), 1, y);
	mark_output(y);
	run_err1("node 'sl' (Slice)", "would be empty (shape [0, 6])");
}

Test(shapes, missing_input_arity)
{
	struct tensor *x = input("x", 4, I64(1), I64(1), I64(4), I64(4));
	struct tensor *y = act("y");
	node1(OP_CONV, "c", x, y);
	mark_output(y);
	run_err1("node 'c' (Conv)", "has 1 inputs, expected 2 to 3");
}

/* Expand broadcasts with the constant shape (numpy rules, a 1 keeps x's
 * dim); Tile multiplies each dim by its repeat. */
Test(shapes, expand_and_tile)
{
	struct tensor *x = input("x", 3, I64(3), I64(1), I64(2));
	struct tensor *ye = act("ye"), *yt = act("yt"), *yb = act("yb");
	node(OP_EXPAND, "ex", 2, x, const_i("s", 4, I64(2), I64(1), I64(4), I64(1)), 1, ye);
	node(OP_TILE, "ti", 2, x, const_i("r", 3, I64(1), I64(2), I64(3)), 1, yt);
	mark_output(ye);
	mark_output(yt);
	run_ok();
	assert_shape(ye, 4, I64(2), I64(3), I64(4), I64(2));
	assert_shape(yt, 3, I64(3), I64(2), I64(6));
	node(OP_EXPAND, "bad", 2, x, const_i("s2", 1, I64(3)), 1, yb);
	mark_output(yb);
	run_err1("node 'bad' (Expand)", "does not broadcast with [3, 1, 2]");
}

/* Split by num_outputs (opset 18): the last part is the smaller one. */
Test(shapes, split_num_outputs_uneven)
{
	struct tensor *x = input("x", 2, I64(7), I64(2));
	struct tensor *y[3] = {act("y0"), act("y1"), act("y2")};
	struct node *n = node(OP_SPLIT, "sp", 1, x, 3, y[0], y[1], y[2]);
	attr_int(n, "num_outputs", 3);
	for (int i = 0; i < 3; i++)
		mark_output(y[i]);
	run_ok();
	assert_shape(y[0], 2, I64(3), I64(2));
	assert_shape(y[1], 2, I64(3), I64(2));
	assert_shape(y[2], 2, I64(1), I64(2));
}

/* Resize-11+: floor(dim * scale) from constant scales (input 2). */
Test(shapes, resize_scales_floor)
{
	struct tensor *x = input("x", 4, I64(1), I64(2), I64(5), I64(4));
	static float sc[4] = {1, 1, 0.6f, 2.5f};
	int64_t four = 4;
	struct tensor *s = ir_new_constant(g, "sc", DTYPE_F32, 1, &four, sc);
	struct tensor *y = act("y");
	node(OP_RESIZE, "rs", 3, x, NULL, s, 1, y);
	mark_output(y);
	run_ok();
	assert_shape(y, 4, I64(1), I64(2), I64(3), I64(10));
}

/* ConvTranspose: stride * (H - 1) + output_padding + (k - 1) * dilation + 1
 * - pads, or output_shape when given; M = W's dim 1 * group. */
Test(shapes, conv_transpose_lengths)
{
	struct tensor *x = input("x", 4, I64(1), I64(4), I64(3), I64(3));
	struct tensor *w = input("w", 4, I64(4), I64(3), I64(3), I64(2));
	struct tensor *y = act("y"), *y2 = act("y2");
	struct node *n = node(OP_CONV_TRANSPOSE, "ct", 2, x, w, 1, y);
	attr_int(n, "group", 2);
	attr_ints(n, "strides", 2, I64(2), I64(3));
	attr_ints(n, "pads", 4, I64(1), I64(0), I64(1), I64(1));
	attr_ints(n, "output_padding", 2, I64(1), I64(0));
	struct node *m = node(OP_CONV_TRANSPOSE, "ct2", 2, x, w, 1, y2);
	attr_int(m, "group", 2);
	attr_ints(m, "output_shape", 2, I64(9), I64(8));
	mark_output(y);
	mark_output(y2);
	run_ok();
	assert_shape(y, 4, I64(1), I64(6), I64(2 * 2 + 1 + 2 + 1 - 2), I64(3 * 2 + 0 + 1 + 1 - 1));
	assert_shape(y2, 4, I64(1), I64(6), I64(9), I64(8));
}

/* The same formula per spatial dim in 1-D and 3-D; 4-D is refused. */
Test(shapes, conv_transpose_1d_3d)
{
	struct tensor *x1 = input("x1", 3, I64(1), I64(2), I64(5));
	struct tensor *w1 = input("w1", 3, I64(2), I64(3), I64(4));
	struct tensor *x3 = input("x3", 5, I64(1), I64(2), I64(3), I64(4), I64(5));
	struct tensor *w3 = input("w3", 5, I64(2), I64(1), I64(3), I64(2), I64(2));
	struct tensor *y1 = act("y1"), *y3 = act("y3");
	struct node *n = node(OP_CONV_TRANSPOSE, "ct1", 2, x1, w1, 1, y1);
	attr_ints(n, "strides", 1, I64(3));
	attr_ints(n, "pads", 2, I64(1), I64(2));
	attr_ints(n, "output_padding", 1, I64(2));
	struct node *m = node(OP_CONV_TRANSPOSE, "ct3", 2, x3, w3, 1, y3);
	attr_int(m, "group", 2);
	attr_ints(m, "strides", 3, I64(1), I64(2), I64(3));
	attr_ints(m, "dilations", 3, I64(2), I64(1), I64(1));
	mark_output(y1);
	mark_output(y3);
	run_ok();
	assert_shape(y1, 3, I64(1), I64(3), I64(3 * 4 + 2 + 3 + 1 - 3));
	assert_shape(y3, 5, I64(1), I64(2), I64(3 - 1 + 4 + 1), I64(2 * 3 + 1 + 1),
	             I64(3 * 4 + 1 + 1));
}

Test(shapes, expand_target_from_equal_and_where_folds)
{
	/* t.expand(n, -1, -1) as torch exports it (ViT's class token): the
	 * target [n, -1, -1] goes through Equal(target, -1) and Where(., 1,
	 * target), all constants, so Expand sees a static shape. */
	struct tensor *tok = input("tok", 3, I64(1), I64(1), I64(8));
	struct tensor *tgt = const_i("tgt", 3, I64(1), I64(-1), I64(-1));
	struct tensor *eq = act("eq"), *wh = act("wh"), *y = act("y"), *z = act("z");
	struct tensor *lt = act("lt"), *nt = act("nt");
	node(OP_EQUAL, "equal", 2, tgt, const_i("m1", -1, I64(-1)), 1, eq);
	node(OP_WHERE, "where", 3, eq, const_i("ones", 3, I64(1), I64(1), I64(1)), tgt, 1, wh);
	node(OP_EXPAND, "expand", 2, tok, wh, 1, y);
	node1(OP_RELU, "relu", y, z);
	node(OP_LESS, "less", 2, tgt, const_i("zero", -1, I64(0)), 1, lt);
	node1(OP_NOT, "not", lt, nt);
	mark_output(z);
	mark_output(nt);
	run_ok();
	cr_assert_not_null(eq->data);
	cr_assert_eq(((const unsigned char *)eq->data)[0], 0);
	cr_assert_eq(((const unsigned char *)eq->data)[1], 1);
	assert_i64_data(wh, 3, I64(1), I64(1), I64(1));
	assert_shape(y, 3, I64(1), I64(1), I64(8));
	cr_assert_not_null(nt->data);
	cr_assert(((const unsigned char *)nt->data)[0] == 1 &&
	          ((const unsigned char *)nt->data)[1] == 0 && ((const unsigned char *)nt->data)[2] == 0);
	cr_assert_eq(count_op(OP_EQUAL) + count_op(OP_WHERE) + count_op(OP_LESS) + count_op(OP_NOT), 0);
}

Test(shapes, typed_op_with_an_extra_output_names_node)
{
	/* make fuzz found an And with two outputs: the second had no shape and
	 * the pass stopped on an internal error instead of naming the node */
	struct tensor *a = input_t("a", DTYPE_BOOL, 1, I64(4));
	struct tensor *b = input_t("b", DTYPE_BOOL, 1, I64(4));
	struct tensor *y = act("y"), *extra = act("extra");
	node(OP_AND, "and1", 2, a, b, 2, y, extra);
	mark_output(y);
	run_err1("node 'and1' (And)", "has 2 outputs, expected at most 1");
}

Test(shapes, not_of_a_float_constant_is_refused_before_folding)
{
	/* the fold read floats as integers, undefined for 1.7e38 (make fuzz) */
	float *v = arena_alloc(&g->arena, 2 * sizeof *v);
	v[0] = -1.7e38f;
	v[1] = 0.5f;
	int64_t two = 2;
	struct tensor *c = ir_new_constant(g, "c", DTYPE_F32, 1, &two, v);
	struct tensor *y = act("y");
	node1(OP_NOT, "not1", c, y);
	mark_output(y);
	run_err1("node 'not1' (Not)", "Not needs bool inputs, not float32");
}

Test(shapes, logic_ops_refuse_non_bool_inputs)
{
	/* And, Or and Xor are refused by the same shape rule as Not */
	static const enum op ops[] = {OP_AND, OP_OR, OP_XOR};
	static const char *const nodes[] = {"l0", "l1", "l2"}, *const ins[] = {"a0", "a1", "a2"};
	static const char *const outs[] = {"y0", "y1", "y2"};
	static const char *const names[] = {"node 'l0' (And)", "node 'l1' (Or)", "node 'l2' (Xor)"};
	for (int k = 0; k < 3; k++) {
		struct tensor *a = input_t(ins[k], DTYPE_I64, 1, I64(4));
		struct tensor *y = act(outs[k]);
		node(ops[k], nodes[k], 2, a, a, 1, y);
		mark_output(y);
	}
	cr_assert_eq(run(), 3, "expected three errors:\n%s", msgs);
	for (int k = 0; k < 3; k++)
		cr_assert(strstr(msgs, names[k]), "'%s' not in: %s", names[k], msgs);
	cr_assert(strstr(msgs, "needs bool inputs, not int64"), "%s", msgs);
}

Test(shapes, saturating_element_reads)
{
	/* float constants read as integers (shape operands, K, Range bounds)
	 * saturate instead of overflowing the conversion */
	const float f[4] = {-1.7e38f, 4.5e27f, -2.9f, NAN};
	cr_assert_eq(ir_elem_i(DTYPE_F32, f, 0), INT64_MIN);
	cr_assert_eq(ir_elem_i(DTYPE_F32, f, 1), INT64_MAX);
	cr_assert_eq(ir_elem_i(DTYPE_F32, f, 2), -2);
	cr_assert_eq(ir_elem_i(DTYPE_F32, f, 3), 0);
}

/* Outputs an OPK_TYPED op defines (ONNX): a second for TopK (indices) and
 * SoftmaxCrossEntropyLoss (log_prob). Written here, not read from
 * typed_ops.c, so the test does not share the table it checks. */
static int typed_outputs_defined(int op)
{
	return op == OP_TOPK || op == OP_SCE_LOSS ? 2 : 1;
}

Test(shapes, every_typed_op_refuses_an_output_it_does_not_define)
{
	/* the class of the fuzz finding above: each OPK_TYPED op (ops.def) with
	 * one output more than it defines (two for TopK and
	 * SoftmaxCrossEntropyLoss, which have a second) gets an error naming
	 * it, never a shapeless output; its ARITY inputs are bool vectors,
	 * since the count is checked before the op's own rule */
	int ops = 0;
	for (int op = 0; op < OP_COUNT_; op++) {
		if (ir_op_kind((enum op)op) != OPK_TYPED)
			continue;
		const int out = typed_outputs_defined(op) + 1;
		struct tensor *ins[4], *outs[3];
		char name[64];
		for (int i = 0; i < ir_ops[op].arity; i++) {
			snprintf(name, sizeof name, "%s_in%d", ir_op_names[op], i);
			ins[i] = input_t(arena_strdup(&g->arena, name), DTYPE_BOOL, 1, I64(4));
		}
		for (int k = 0; k < out; k++) {
			snprintf(name, sizeof name, "%s_out%d", ir_op_names[op], k);
			outs[k] = act(arena_strdup(&g->arena, name));
		}
		ir_add_node(g, (enum op)op, ir_op_names[op], ir_ops[op].arity, ins, out, outs);
		mark_output(outs[0]);
		ops++;
	}
	cr_assert_gt(ops, 20);
	cr_assert_eq(run(), ops, "expected one error per typed op (%d):\n%s", ops, msgs);
	cr_assert_eq(lines(), ops, "%s", msgs);
	for (int op = 0; op < OP_COUNT_; op++) {
		if (ir_op_kind((enum op)op) != OPK_TYPED)
			continue;
		char want[128];
		snprintf(want, sizeof want, "(%s): has %d outputs, expected at most %d",
		         ir_ops[op].onnx, typed_outputs_defined(op) + 1, typed_outputs_defined(op));
		cr_assert(strstr(msgs, want), "'%s' not in: %s", want, msgs);
	}
}
