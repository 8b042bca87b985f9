/* test_passes.c - unit tests of pass_canonicalize and pass_plan_memory.
 *
 * Each test builds a tiny graph in C with its shapes set by hand (as
 * pass_infer_shapes would leave them), runs the pass and asserts on the
 * structure it produced: nodes left, attributes, fused epilogues, constants
 * (numerically, for BatchNorm folding), the messages reported, and for the
 * memory plan the aliases, offsets and arena size. The memory plan is also
 * checked exhaustively on random DAGs by simulating execution. */
#include <criterion/criterion.h>
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ir/ir.h"
#include "passes/passes.h"
#include "tests/graph_build.h"
#include "tests/pass_run.h"
#include "tests/diag_capture.h"

/* ---- graph building ---------------------------------------------------------- */

/* SHAPE(1, 3, 5, 5) expands to the rank and the dims array arguments. */
#define SHAPE(...) \
	(int)(sizeof((int64_t[]){__VA_ARGS__}) / sizeof(int64_t)), (const int64_t[]){__VA_ARGS__}
#define INS(...) \
	(int)(sizeof((struct tensor *[]){__VA_ARGS__}) / sizeof(struct tensor *)), \
	(struct tensor *[]){__VA_ARGS__}

static struct graph *graph_new(int64_t opset)
{
	struct graph *g = ir_graph_new("m.onnx");
	g->opset = opset;
	return g;
}

static struct tensor *typed(struct graph *g, const char *name, enum dtype dt, int rank,
                            const int64_t *dims)
{
	struct tensor *t = ir_new_tensor(g, name, dt);
	ir_set_shape(t, rank, dims);
	return t;
}

/* A float32 constant holding a copy of v[numel]. */
static struct tensor *cst(struct graph *g, const char *name, const float *v, int rank,
                          const int64_t *dims)
{
	int64_t n = 1;
	for (int i = 0; i < rank; i++)
		n *= dims[i];
	void *data = arena_memdup(&g->arena, v, (size_t)n * sizeof *v);
	return ir_new_constant(g, name, DTYPE_F32, rank, dims, data);
}

static struct tensor *cst_i64(struct graph *g, const char *name, const int64_t *v, int rank,
                              const int64_t *dims)
{
	int64_t n = 1;
	for (int i = 0; i < rank; i++)
		n *= dims[i];
	void *data = arena_memdup(&g->arena, v, (size_t)n * sizeof *v);
	return ir_new_constant(g, name, DTYPE_I64, rank, dims, data);
}

static void set_int(struct graph *g, struct node *n, const char *name, int64_t v)
{
	ir_add_attr(g, n, name, ATTR_INT)->i = v;
}

static void set_float(struct graph *g, struct node *n, const char *name, double v)
{
	ir_add_attr(g, n, name, ATTR_FLOAT)->f = v;
}

static void set_string(struct graph *g, struct node *n, const char *name, const char *v)
{
	ir_add_attr(g, n, name, ATTR_STRING)->s = arena_strdup(&g->arena, v);
}

static void set_ints(struct graph *g, struct node *n, const char *name, int count,
                     const int64_t *v)
{
	int64_t *copy = arena_memdup(&g->arena, v, (size_t)count * sizeof *v);
	struct attr *a = ir_add_attr(g, n, name, ATTR_INTS);
	a->n = count;
	a->ints = copy;
}

/* ---- running passes ---------------------------------------------------------- */

/* Runs canonicalize on a graph that must come out clean: no errors, no
 * warnings, and a graph the verifier accepts. */
static void canonicalize_ok(struct graph *g)
{
	struct options opt = {0};
	struct capture c;
	capture_open(&c);
	int rc = pass_canonicalize(g, &opt, &c.d);
	cr_assert_eq(rc, 0, "canonicalize failed: %s", capture_text(&c));
	cr_assert_eq(c.d.warnings, 0, "unexpected warnings: %s", capture_text(&c));
	cr_assert_eq(ir_verify(g, "canonicalize", 1, &c.d), 0, "%s", capture_text(&c));
	capture_close(&c);
}

/* Runs canonicalize expecting errors; returns the messages (caller frees). */
static char *canonicalize_fails(struct graph *g, int *errors)
{
	struct options opt = {0};
	struct capture c;
	capture_open(&c);
	int rc = pass_canonicalize(g, &opt, &c.d);
	cr_assert_gt(rc, 0, "canonicalize accepted the graph");
	cr_assert_eq(rc, c.d.errors);
	if (errors)
		*errors = c.d.errors;
	char *text = strdup(capture_text(&c));
	capture_close(&c);
	return text;
}

static struct node *find_op(const struct graph *g, enum op op)
{
	for (int i = 0; i < g->n_nodes; i++)
		if (!g->nodes[i]->dead && g->nodes[i]->op == op)
			return g->nodes[i];
	return NULL;
}

static void assert_ints(struct node *n, const char *name, int count, const int64_t *want)
{
	const int64_t *v;
	int got = ir_attr_ints(n, name, &v);
	cr_assert_eq(got, count, "%s has %d values, expected %d", name, got, count);
	for (int i = 0; i < count; i++)
		cr_assert_eq(v[i], want[i], "%s[%d] is %lld, expected %lld", name, i, (long long)v[i],
		             (long long)want[i]);
}

static void assert_dims(const struct tensor *t, int rank, const int64_t *dims)
{
	cr_assert_eq(t->rank, rank, "'%s' has rank %d, expected %d", t->name, t->rank, rank);
	for (int i = 0; i < rank; i++)
		cr_assert_eq(t->dims[i], dims[i], "'%s' dim %d", t->name, i);
}

/* A small deterministic generator (xorshift64*), so every seed is repeatable. */
static uint64_t rng_next(uint64_t *s)
{
	*s ^= *s >> 12;
	*s ^= *s << 25;
	*s ^= *s >> 27;
	return *s * 2685821657736338717ull;
}

static float rng_float(uint64_t *s, float lo, float hi)
{
	return lo + (hi - lo) * (float)((rng_next(s) >> 11) * (1.0 / 9007199254740992.0));
}

static int rng_int(uint64_t *s, int n)
{
	return (int)(rng_next(s) % (uint64_t)n);
}

/* ---- canonicalize: BatchNormalization ----------------------------------------- */

/* y[m, oh, ow] = b[m] + sum w[m, c, i, j] x[c, oh - pad + i, ow - pad + j],
 * stride 1; x [C, H, W], w [M, C, k, k], y [M, H + 2 pad - k + 1, ...]. */
static void conv_ref(int C, int H, int W, int M, int k, int pad, const float *x, const float *w,
                     const float *b, double *y)
{
	int oH = H + 2 * pad - k + 1, oW = W + 2 * pad - k + 1;
	for (int m = 0; m < M; m++)
		for (int oh = 0; oh < oH; oh++)
			for (int ow = 0; ow < oW; ow++) {
				double acc = b ? b[m] : 0.0;
				for (int c = 0; c < C; c++)
					for (int i = 0; i < k; i++)
						for (int j = 0; j < k; j++) {
							int ih = oh - pad + i, iw = ow - pad + j;
							if (ih < 0 || ih >= H || iw < 0 || iw >= W)
								continue;
							acc += (double)w[((m * C + c) * k + i) * k + j] *
							       x[(c * H + ih) * W + iw];
						}
				y[(m * oH + oh) * oW + ow] = acc;
			}
}

struct bn_case {
	float x[2 * 5 * 5];   /* [1, 2, 5, 5] */
	float w[3 * 2 * 3 * 3]; /* [3, 2, 3, 3] */
	float b[3];
	float scale[3], beta[3], mean[3], var[3];
	double eps;
};

static void bn_case_fill(struct bn_case *k, uint64_t seed)
{
	uint64_t s = seed;
	for (int i = 0; i < 50; i++)
		k->x[i] = rng_float(&s, -1, 1);
	for (int i = 0; i < 54; i++)
		k->w[i] = rng_float(&s, -1, 1);
	for (int i = 0; i < 3; i++) {
		k->b[i] = rng_float(&s, -1, 1);
		k->scale[i] = rng_float(&s, 0.2f, 2);
		k->beta[i] = rng_float(&s, -1, 1);
		k->mean[i] = rng_float(&s, -0.5f, 0.5f);
		k->var[i] = rng_float(&s, 0.01f, 3);
	}
	k->eps = 1e-3;
}

/* conv(x, W, B) -> c -> BatchNormalization -> y, optionally without B. */
static struct graph *conv_bn_graph(const struct bn_case *k, int with_bias, struct node **bn)
{
	struct graph *g = graph_new(13);
	struct tensor *x = input(g, act(g, "x", SHAPE(1, 2, 5, 5)));
	struct tensor *w = cst(g, "W", k->w, SHAPE(3, 2, 3, 3));
	struct tensor *b = cst(g, "B", k->b, SHAPE(3));
	struct tensor *c = act(g, "c", SHAPE(1, 3, 5, 5));
	struct tensor *y = output(g, act(g, "y", SHAPE(1, 3, 5, 5)));
	struct node *conv = with_bias ? node(g, OP_CONV, "conv", INS(x, w, b), c)
	                              : node(g, OP_CONV, "conv", INS(x, w), c);
	set_ints(g, conv, "pads", SHAPE(1, 1, 1, 1));
	set_ints(g, conv, "kernel_shape", SHAPE(3, 3));
	*bn = node(g, OP_BATCHNORM, "bn",
	           INS(c, cst(g, "scale", k->scale, SHAPE(3)), cst(g, "beta", k->beta, SHAPE(3)),
	               cst(g, "mean", k->mean, SHAPE(3)), cst(g, "var", k->var, SHAPE(3))),
	           y);
	set_float(g, *bn, "epsilon", k->eps);
	set_float(g, *bn, "momentum", 0.9);
	return g;
}

static void check_bn_fold(int with_bias, uint64_t seed)
{
	struct bn_case k;
	bn_case_fill(&k, seed);
	struct node *bn;
	struct graph *g = conv_bn_graph(&k, with_bias, &bn);
	struct tensor *w_orig = ir_find_tensor(g, "W");
	float w_copy[54];
	memcpy(w_copy, w_orig->data, sizeof w_copy);

	canonicalize_ok(g);
	cr_assert_eq(g->n_nodes, 1, "BatchNormalization should fold away");
	struct node *conv = g->nodes[0];
	cr_assert_eq(conv->op, OP_CONV);
	cr_assert_eq(conv->n_inputs, 3);
	cr_assert_eq(conv->outputs[0], g->outputs[0]);
	cr_assert_str_eq(conv->outputs[0]->name, "y");
	cr_assert_eq(conv->outputs[0]->producer, conv);
	cr_assert_null(ir_find_tensor(g, "c"));
	cr_assert_eq(conv->act, ACT_NONE);
	const struct tensor *w1 = conv->inputs[1], *b1 = conv->inputs[2];
	cr_assert_not_null(w1->data);
	cr_assert_not_null(b1->data);
	cr_assert(w1 != w_orig, "folding must not reuse the original weights");
	cr_assert_eq(memcmp(w_copy, w_orig->data, sizeof w_copy), 0, "original weights modified");
	assert_dims(w1, SHAPE(3, 2, 3, 3));
	assert_dims(b1, SHAPE(3));

	/* conv then BN by hand, in double, against the folded conv. */
	double ref[3 * 25], got[3 * 25];
	conv_ref(2, 5, 5, 3, 3, 1, k.x, k.w, with_bias ? k.b : NULL, ref);
	for (int m = 0; m < 3; m++) {
		double s = k.scale[m] / sqrt((double)k.var[m] + k.eps);
		for (int i = 0; i < 25; i++)
			ref[m * 25 + i] = (ref[m * 25 + i] - k.mean[m]) * s + k.beta[m];
	}
	conv_ref(2, 5, 5, 3, 3, 1, k.x, w1->data, b1->data, got);
	for (int i = 0; i < 75; i++)
		cr_assert(fabs(got[i] - ref[i]) <= 1e-5 * (1 + fabs(ref[i])),
		          "element %d: folded %.9g, conv+bn %.9g", i, got[i], ref[i]);
	ir_graph_free(g);
}

Test(canonicalize, batchnorm_folds_into_conv_with_bias)
{
	for (uint64_t seed = 1; seed <= 5; seed++)
		check_bn_fold(1, seed);
}

Test(canonicalize, batchnorm_folds_into_conv_without_bias)
{
	for (uint64_t seed = 11; seed <= 15; seed++)
		check_bn_fold(0, seed);
}

Test(canonicalize, batchnorm_fold_leaves_shared_weights_alone)
{
	struct bn_case k;
	bn_case_fill(&k, 7);
	struct node *bn;
	struct graph *g = conv_bn_graph(&k, 1, &bn);
	/* A second conv reads the same W and B. */
	struct tensor *x = g->inputs[0], *w = ir_find_tensor(g, "W"), *b = ir_find_tensor(g, "B");
	struct tensor *z = output(g, act(g, "z", SHAPE(1, 3, 5, 5)));
	struct node *conv2 = node(g, OP_CONV, "conv2", INS(x, w, b), z);
	set_ints(g, conv2, "pads", SHAPE(1, 1, 1, 1));
	canonicalize_ok(g);
	cr_assert_eq(count_op(g, OP_CONV), 2);
	cr_assert_eq(count_op(g, OP_BATCHNORM), 0);
	cr_assert_eq(conv2->inputs[1], w);
	cr_assert_eq(conv2->inputs[2], b);
	cr_assert_eq(memcmp(w->data, k.w, sizeof k.w), 0);
	cr_assert_eq(memcmp(b->data, k.b, sizeof k.b), 0);
	struct node *conv1 = find_op(g, OP_CONV);
	cr_assert_str_eq(conv1->name, "conv");
	cr_assert(conv1->inputs[1] != w && conv1->inputs[2] != b);
	ir_graph_free(g);
}

/* Checks a Mul + Add lowering of BN on x: constants shaped `dims`, values
 * s = scale / sqrt(var + eps) and beta - mean * s. */
static void check_bn_lowered(struct graph *g, const struct tensor *x, const struct tensor *y,
                             const struct bn_case *k, int rank, const int64_t *dims)
{
	cr_assert_eq(count_op(g, OP_BATCHNORM), 0);
	struct node *mul = find_op(g, OP_MUL), *add = find_op(g, OP_ADD);
	cr_assert_not_null(mul);
	cr_assert_not_null(add);
	cr_assert_eq(add->index, mul->index + 1, "the Add comes right after the Mul");
	cr_assert_eq(mul->inputs[0], x);
	cr_assert_eq(add->inputs[0], mul->outputs[0]);
	cr_assert_eq(add->outputs[0], y);
	cr_assert_eq(y->producer, add);
	assert_dims(mul->outputs[0], x->rank, x->dims);
	const struct tensor *sc = mul->inputs[1], *sh = add->inputs[1];
	assert_dims(sc, rank, dims);
	assert_dims(sh, rank, dims);
	cr_assert_eq(sc->dtype, DTYPE_F32);
	for (int c = 0; c < 3; c++) {
		double s = k->scale[c] / sqrt((double)k->var[c] + k->eps);
		double t = k->beta[c] - k->mean[c] * s;
		cr_assert_float_eq(((const float *)sc->data)[c], s, 1e-6 * (1 + fabs(s)));
		cr_assert_float_eq(((const float *)sh->data)[c], t, 1e-6 * (1 + fabs(t)));
	}
	cr_assert_eq(mul->n_attrs, 0, "the BatchNormalization attributes do not stay on the Mul");
}

Test(canonicalize, batchnorm_lowered_when_conv_output_has_other_uses)
{
	struct bn_case k;
	bn_case_fill(&k, 3);
	struct node *bn;
	struct graph *g = conv_bn_graph(&k, 1, &bn);
	struct tensor *c = ir_find_tensor(g, "c"), *y = ir_find_tensor(g, "y");
	struct tensor *r = output(g, act(g, "r", SHAPE(1, 3, 5, 5)));
	node(g, OP_RELU, "relu", INS(c), r);
	canonicalize_ok(g);
	cr_assert_eq(g->n_nodes, 4); /* Conv, Mul, Add, Relu: nothing folds or fuses */
	check_bn_lowered(g, c, y, &k, SHAPE(3, 1, 1));
	cr_assert_eq(find_op(g, OP_CONV)->act, ACT_NONE);
	cr_assert_eq(find_op(g, OP_RELU)->inputs[0], c);
	ir_graph_free(g);
}

Test(canonicalize, batchnorm_lowered_when_conv_output_is_a_graph_output)
{
	struct bn_case k;
	bn_case_fill(&k, 4);
	struct node *bn;
	struct graph *g = conv_bn_graph(&k, 1, &bn);
	struct tensor *c = output(g, ir_find_tensor(g, "c"));
	canonicalize_ok(g);
	check_bn_lowered(g, c, ir_find_tensor(g, "y"), &k, SHAPE(3, 1, 1));
	ir_graph_free(g);
}

/* Gemm(A [2, 4], B, C) -> BatchNormalization -> Relu (Linear, BatchNorm1d,
 * ReLU): C forms 0 none, 1 [3], 2 a scalar, 3 [2, 3] (per row: not folded).
 * Folded, one Gemm with a ReLU epilogue remains, whose constants give what
 * Gemm, BN and ReLU computed in double give. */
static void check_bn_gemm(int trans_b, int c_form, uint64_t seed)
{
	struct bn_case k;
	bn_case_fill(&k, seed);
	const double alpha = 0.5, beta = c_form ? 1.5 : 1.0;
	struct graph *g = graph_new(13);
	struct tensor *a = input(g, act(g, "A", SHAPE(2, 4)));
	struct tensor *b = trans_b ? cst(g, "B", k.w, SHAPE(3, 4)) : cst(g, "B", k.w, SHAPE(4, 3));
	static const int64_t c_count[4] = {0, 3, 1, 6};
	struct tensor *c = c_form == 1 ? cst(g, "C", k.w + 12, SHAPE(3))
	                   : c_form == 2 ? cst(g, "C", k.w + 12, SHAPE(1))
	                   : c_form == 3 ? cst(g, "C", k.w + 12, SHAPE(2, 3)) : NULL;
	struct tensor *t = act(g, "t", SHAPE(2, 3)), *u = act(g, "u", SHAPE(2, 3));
	struct tensor *y = output(g, act(g, "y", SHAPE(2, 3)));
	struct node *gemm = c ? node(g, OP_GEMM, "fc", INS(a, b, c), t) : node(g, OP_GEMM, "fc", INS(a, b), t);
	set_int(g, gemm, "transB", trans_b);
	set_float(g, gemm, "alpha", alpha);
	if (c)
		set_float(g, gemm, "beta", beta);
	struct node *bn = node(g, OP_BATCHNORM, "bn",
	                       INS(t, cst(g, "scale", k.scale, SHAPE(3)), cst(g, "beta", k.beta, SHAPE(3)),
	                           cst(g, "mean", k.mean, SHAPE(3)), cst(g, "var", k.var, SHAPE(3))),
	                       u);
	set_float(g, bn, "epsilon", k.eps);
	node(g, OP_RELU, "relu", INS(u), y);
	canonicalize_ok(g);
	cr_assert_eq(count_op(g, OP_BATCHNORM), 0);
	if (c_form == 3) {
		cr_assert_eq(count_op(g, OP_MUL), 1, "a per-row C keeps BN as Mul + Add");
		ir_graph_free(g);
		return;
	}
	cr_assert_eq(g->n_nodes, 1, "BN and ReLU should fold into the Gemm");
	struct node *fc = g->nodes[0];
	cr_assert_eq(fc->op, OP_GEMM);
	cr_assert_eq(fc->act, ACT_RELU);
	cr_assert_eq(fc->outputs[0], g->outputs[0]);
	cr_assert_eq(fc->n_inputs, 3);
	cr_assert(fc->inputs[1] != b, "folding must not reuse the original weights");
	cr_assert_eq(memcmp(b->data, k.w, 12 * sizeof(float)), 0, "original weights modified");
	const float *b1 = fc->inputs[1]->data, *c1 = fc->inputs[2]->data;
	assert_dims(fc->inputs[2], SHAPE(3));
	double alpha1 = ir_attr_float(fc, "alpha", 1.0), beta1 = ir_attr_float(fc, "beta", 1.0);
	for (int m = 0; m < 2; m++)
		for (int n = 0; n < 3; n++) {
			double ref = 0, got = 0;
			for (int j = 0; j < 4; j++) {
				double av = k.x[m * 4 + j];
				ref += av * k.w[trans_b ? n * 4 + j : j * 3 + n];
				got += av * b1[trans_b ? n * 4 + j : j * 3 + n];
			}
			ref = alpha * ref + (c ? beta * k.w[12 + (c_count[c_form] == 1 ? 0 : n)] : 0.0);
			double s = k.scale[n] / sqrt((double)k.var[n] + k.eps);
			ref = (ref - k.mean[n]) * s + k.beta[n];
			ref = ref > 0 ? ref : 0;
			got = alpha1 * got + beta1 * c1[n];
			got = got > 0 ? got : 0;
			cr_assert(fabs(got - ref) <= 1e-5 * (1 + fabs(ref)),
			          "tB %d C %d y[%d,%d]: folded %.9g, gemm+bn+relu %.9g", trans_b, c_form, m,
			          n, got, ref);
		}
	ir_graph_free(g);
}

Test(canonicalize, batchnorm_folds_into_gemm)
{
	uint64_t seed = 21;
	for (int trans_b = 0; trans_b < 2; trans_b++)
		for (int c_form = 0; c_form < 4; c_form++)
			check_bn_gemm(trans_b, c_form, seed++);
}

Test(canonicalize, batchnorm_lowered_when_weights_are_not_constant)
{
	struct bn_case k;
	bn_case_fill(&k, 5);
	struct graph *g = graph_new(13);
	struct tensor *x = input(g, act(g, "x", SHAPE(1, 2, 5, 5)));
	struct tensor *w = input(g, act(g, "W", SHAPE(3, 2, 3, 3)));
	struct tensor *c = act(g, "c", SHAPE(1, 3, 3, 3));
	struct tensor *y = output(g, act(g, "y", SHAPE(1, 3, 3, 3)));
	node(g, OP_CONV, "conv", INS(x, w), c);
	struct node *bn =
		node(g, OP_BATCHNORM, "bn",
		     INS(c, cst(g, "scale", k.scale, SHAPE(3)), cst(g, "beta", k.beta, SHAPE(3)),
		         cst(g, "mean", k.mean, SHAPE(3)), cst(g, "var", k.var, SHAPE(3))),
		     y);
	set_float(g, bn, "epsilon", k.eps);
	canonicalize_ok(g);
	check_bn_lowered(g, c, y, &k, SHAPE(3, 1, 1));
	ir_graph_free(g);
}

/* BN on [N, C] and [N, C, L]: per-channel constants [C] and [C, 1]. */
static void check_bn_rank(int rank, const int64_t *xdims, int crank, const int64_t *cdims)
{
	struct bn_case k;
	bn_case_fill(&k, 9);
	struct graph *g = graph_new(15);
	struct tensor *x = input(g, act(g, "x", rank, xdims));
	struct tensor *y = output(g, act(g, "y", rank, xdims));
	struct tensor *stats[4] = {
		cst(g, "scale", k.scale, SHAPE(3)), cst(g, "beta", k.beta, SHAPE(3)),
		cst(g, "mean", k.mean, SHAPE(3)), cst(g, "var", k.var, SHAPE(3))};
	struct node *bn = node(g, OP_BATCHNORM, "bn", INS(x, stats[0], stats[1], stats[2], stats[3]),
	                       y);
	set_float(g, bn, "epsilon", k.eps);
	set_int(g, bn, "training_mode", 0);
	canonicalize_ok(g);
	cr_assert_eq(g->n_nodes, 2);
	check_bn_lowered(g, x, y, &k, crank, cdims);
	ir_graph_free(g);
}

Test(canonicalize, batchnorm_lowering_shapes_broadcast_per_channel)
{
	check_bn_rank(SHAPE(2, 3), SHAPE(3));
	check_bn_rank(SHAPE(2, 3, 7), SHAPE(3, 1));
	check_bn_rank(SHAPE(1, 3, 4, 4), SHAPE(3, 1, 1));
}

/* Statistics that are graph inputs (ONNX node tests batchnorm_example and
 * batchnorm_epsilon) cannot be folded: the node stays BatchNormalization with
 * its five inputs and epsilon as its only attribute, and the Conv before it
 * keeps its own output. */
Test(canonicalize, batchnorm_with_variable_statistics_stays)
{
	struct bn_case k;
	bn_case_fill(&k, 2);
	struct graph *g = graph_new(13);
	struct tensor *x = input(g, act(g, "x", SHAPE(1, 2, 5, 5)));
	struct tensor *w = cst(g, "W", k.w, SHAPE(3, 2, 3, 3));
	struct tensor *c = act(g, "c", SHAPE(1, 3, 3, 3));
	struct tensor *mean = input(g, act(g, "running_mean", SHAPE(3)));
	struct tensor *y = output(g, act(g, "y", SHAPE(1, 3, 3, 3)));
	struct node *conv = node(g, OP_CONV, "conv", INS(x, w), c);
	struct tensor *scale = cst(g, "scale", k.scale, SHAPE(3));
	struct tensor *beta = cst(g, "beta", k.beta, SHAPE(3));
	struct tensor *var = cst(g, "var", k.var, SHAPE(3));
	struct node *bn = node(g, OP_BATCHNORM, "bn", INS(c, scale, beta, mean, var), y);
	set_float(g, bn, "epsilon", 1e-3);
	set_float(g, bn, "momentum", 0.9);
	set_int(g, bn, "training_mode", 0);
	canonicalize_ok(g);
	cr_assert_eq(g->n_nodes, 2);
	cr_assert_eq(count_op(g, OP_BATCHNORM), 1);
	cr_assert_eq(count_op(g, OP_MUL) + count_op(g, OP_ADD), 0);
	cr_assert_eq(conv->outputs[0], c, "nothing folds into the conv");
	cr_assert_eq(conv->inputs[1], w);
	cr_assert_eq(conv->act, ACT_NONE);
	cr_assert_eq(bn->n_inputs, 5);
	cr_assert_eq(bn->n_outputs, 1);
	struct tensor *want[5] = {c, scale, beta, mean, var};
	for (int i = 0; i < 5; i++)
		cr_assert_eq(bn->inputs[i], want[i], "input %d", i);
	cr_assert_eq(bn->outputs[0], y);
	cr_assert_eq(y->producer, bn);
	cr_assert_eq(bn->n_attrs, 1, "epsilon is the only attribute left");
	cr_assert_float_eq(ir_attr_float(bn, "epsilon", 0), 1e-3, 1e-12);
	ir_graph_free(g);

	/* All four statistics graph inputs, epsilon absent: the ONNX default
	 * becomes explicit; X of rank 2. */
	g = graph_new(15);
	x = input(g, act(g, "x", SHAPE(2, 3)));
	struct tensor *stats[4];
	static const char *const names[4] = {"s", "bias", "mean", "var"};
	for (int i = 0; i < 4; i++)
		stats[i] = input(g, act(g, names[i], SHAPE(3)));
	y = output(g, act(g, "y", SHAPE(2, 3)));
	bn = node(g, OP_BATCHNORM, "bn", INS(x, stats[0], stats[1], stats[2], stats[3]), y);
	canonicalize_ok(g);
	cr_assert_eq(g->n_nodes, 1);
	cr_assert_eq(bn->op, OP_BATCHNORM);
	cr_assert_eq(bn->n_inputs, 5);
	cr_assert_eq(bn->inputs[0], x);
	cr_assert_eq(bn->n_attrs, 1);
	cr_assert_float_eq(ir_attr_float(bn, "epsilon", 0), 1e-5, 1e-12);
	ir_graph_free(g);
}

/* An attribute nothing reads is warned about once, also when the node stays. */
Test(canonicalize, batchnorm_with_variable_statistics_warns_once)
{
	struct graph *g = graph_new(13);
	struct tensor *x = input(g, act(g, "x", SHAPE(1, 3, 2, 2)));
	struct tensor *stats[4];
	static const char *const names[4] = {"s", "bias", "mean", "var"};
	for (int i = 0; i < 4; i++)
		stats[i] = input(g, act(g, names[i], SHAPE(3)));
	struct tensor *y = output(g, act(g, "y", SHAPE(1, 3, 2, 2)));
	struct node *bn =
		node(g, OP_BATCHNORM, "bn", INS(x, stats[0], stats[1], stats[2], stats[3]), y);
	set_float(g, bn, "frobnicate", 1.0);
	struct options opt = {0};
	struct capture c;
	capture_open(&c);
	cr_assert_eq(pass_canonicalize(g, &opt, &c.d), 0, "%s", capture_text(&c));
	cr_assert_eq(c.d.warnings, 1, "%s", capture_text(&c));
	cr_assert(strstr(capture_text(&c), "attribute 'frobnicate' is not supported"), "%s",
	          capture_text(&c));
	cr_assert_eq(bn->op, OP_BATCHNORM);
	cr_assert_eq(bn->n_attrs, 1);
	capture_close(&c);
	ir_graph_free(g);
}

Test(canonicalize, batchnorm_spatial_0_with_variable_statistics_is_rejected)
{
	struct graph *g = graph_new(7);
	float one[12];
	for (int i = 0; i < 12; i++)
		one[i] = 1.0f;
	struct tensor *x = input(g, act(g, "x", SHAPE(1, 3, 2, 2)));
	struct tensor *mean = input(g, act(g, "mean", SHAPE(3, 2, 2)));
	struct tensor *y = output(g, act(g, "y", SHAPE(1, 3, 2, 2)));
	struct node *bn = node(g, OP_BATCHNORM, "bn",
	                       INS(x, cst(g, "s", one, SHAPE(3, 2, 2)), cst(g, "b", one, SHAPE(3, 2, 2)),
	                           mean, cst(g, "v", one, SHAPE(3, 2, 2))),
	                       y);
	set_int(g, bn, "spatial", 0);
	char *text = canonicalize_fails(g, NULL);
	cr_assert(strstr(text, "node 'bn' (BatchNormalization): spatial=0 (statistics per "
	                       "element) with statistics that are not constants is not supported"),
	          "%s", text);
	free(text);
	ir_graph_free(g);
}

Test(canonicalize, batchnorm_spatial_0_keeps_per_element_parameters)
{
	/* BatchNormalization-7 with spatial=0: statistics per (C, H, W) element,
	 * so no Conv folding; the Mul/Add constants keep the [C, H, W] shape. */
	struct graph *g = graph_new(7);
	float one[12], zero[12], mean[12];
	for (int i = 0; i < 12; i++) {
		one[i] = 1.0f;
		zero[i] = 0.0f;
		mean[i] = (float)i;
	}
	static const float w[9] = {1, 2, 3, 4, 5, 6, 7, 8, 9};
	struct tensor *x = input(g, act(g, "x", SHAPE(1, 3, 2, 2)));
	struct tensor *c = act(g, "c", SHAPE(1, 3, 2, 2));
	struct tensor *y = output(g, act(g, "y", SHAPE(1, 3, 2, 2)));
	node(g, OP_CONV, "conv", INS(x, cst(g, "W", w, SHAPE(3, 3, 1, 1))), c);
	struct node *bn = node(g, OP_BATCHNORM, "bn",
	                       INS(c, cst(g, "s", one, SHAPE(3, 2, 2)), cst(g, "b", zero, SHAPE(3, 2, 2)),
	                           cst(g, "m", mean, SHAPE(3, 2, 2)), cst(g, "v", one, SHAPE(3, 2, 2))),
	                       y);
	set_int(g, bn, "spatial", 0);
	set_int(g, bn, "is_test", 1);
	set_float(g, bn, "epsilon", 0.0);
	canonicalize_ok(g);
	cr_assert_eq(g->n_nodes, 3);
	struct node *mul = find_op(g, OP_MUL), *add = find_op(g, OP_ADD);
	assert_dims(mul->inputs[1], SHAPE(3, 2, 2));
	assert_dims(add->inputs[1], SHAPE(3, 2, 2));
	for (int i = 0; i < 12; i++) {
		cr_assert_float_eq(((const float *)mul->inputs[1]->data)[i], 1.0f, 1e-7);
		cr_assert_float_eq(((const float *)add->inputs[1]->data)[i], -(float)i, 1e-6);
	}
	ir_graph_free(g);
}

/* ---- canonicalize: epilogues ---------------------------------------------------- */

/* x -> Conv(1x1) -> c -> ACT -> y (graph output). */
static struct graph *conv_act_graph(enum op act_op, struct node **a)
{
	struct graph *g = graph_new(13);
	static const float w[4] = {1, -1, 2, 0.5f};
	struct tensor *x = input(g, act(g, "x", SHAPE(1, 2, 3, 3)));
	struct tensor *c = act(g, "c", SHAPE(1, 2, 3, 3));
	struct tensor *y = output(g, act(g, "y", SHAPE(1, 2, 3, 3)));
	node(g, OP_CONV, "conv", INS(x, cst(g, "W", w, SHAPE(2, 2, 1, 1))), c);
	*a = node(g, act_op, "act", INS(c), y);
	return g;
}

Test(canonicalize, relu_fuses_into_conv_writing_the_graph_output)
{
	struct node *a;
	struct graph *g = conv_act_graph(OP_RELU, &a);
	canonicalize_ok(g);
	cr_assert_eq(g->n_nodes, 1);
	struct node *conv = g->nodes[0];
	cr_assert_eq(conv->act, ACT_RELU);
	cr_assert_eq(conv->outputs[0], g->outputs[0]);
	cr_assert_str_eq(conv->outputs[0]->name, "y");
	cr_assert_eq(g->outputs[0]->producer, conv);
	cr_assert_null(ir_find_tensor(g, "c"));
	/* Conv's attributes were made explicit along the way. */
	assert_ints(conv, "kernel_shape", SHAPE(1, 1));
	assert_ints(conv, "strides", SHAPE(1, 1));
	assert_ints(conv, "dilations", SHAPE(1, 1));
	assert_ints(conv, "pads", SHAPE(0, 0, 0, 0));
	cr_assert_eq(ir_attr_int(conv, "group", -1), 1);
	ir_graph_free(g);
}

Test(canonicalize, each_activation_maps_to_its_epilogue)
{
	static const struct {
		enum op op;
		enum act act;
	} cases[] = {{OP_RELU, ACT_RELU},
	             {OP_LEAKY_RELU, ACT_LEAKY_RELU},
	             {OP_SIGMOID, ACT_SIGMOID},
	             {OP_TANH, ACT_TANH},
	             {OP_CLIP, ACT_CLIP}};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		struct node *a;
		struct graph *g = conv_act_graph(cases[i].op, &a);
		canonicalize_ok(g);
		cr_assert_eq(g->n_nodes, 1, "%s not fused", ir_op_names[cases[i].op]);
		cr_assert_eq(g->nodes[0]->act, cases[i].act);
		if (cases[i].op == OP_LEAKY_RELU)
			cr_assert_float_eq(g->nodes[0]->act_alpha, 0.01f, 1e-9, "ONNX default alpha");
		if (cases[i].op == OP_CLIP) {
			cr_assert_eq(g->nodes[0]->act_alpha, -FLT_MAX);
			cr_assert_eq(g->nodes[0]->act_beta, FLT_MAX);
		}
		ir_graph_free(g);
	}
}

Test(canonicalize, clip_with_constant_inputs_fuses_into_gemm)
{
	struct graph *g = graph_new(11);
	static const float b[12] = {0};
	static const float lo = 0.0f, hi = 6.0f;
	struct tensor *a = input(g, act(g, "a", SHAPE(2, 4)));
	struct tensor *mm = act(g, "mm", SHAPE(2, 3));
	struct tensor *y = output(g, act(g, "y", SHAPE(2, 3)));
	node(g, OP_GEMM, "fc", INS(a, cst(g, "B", b, SHAPE(4, 3))), mm);
	node(g, OP_CLIP, "clip", INS(mm, cst(g, "lo", &lo, 0, NULL), cst(g, "hi", &hi, 0, NULL)), y);
	canonicalize_ok(g);
	cr_assert_eq(g->n_nodes, 1);
	struct node *fc = g->nodes[0];
	cr_assert_eq(fc->act, ACT_CLIP);
	cr_assert_eq(fc->act_alpha, 0.0f);
	cr_assert_eq(fc->act_beta, 6.0f);
	cr_assert_eq(fc->outputs[0], y);
	cr_assert_float_eq(ir_attr_float(fc, "alpha", 0), 1.0, 1e-12);
	cr_assert_float_eq(ir_attr_float(fc, "beta", 0), 1.0, 1e-12);
	cr_assert_eq(ir_attr_int(fc, "transA", -1), 0);
	cr_assert_eq(ir_attr_int(fc, "transB", -1), 0);
	cr_assert_null(ir_find_tensor(g, "lo"), "the bound constants are gone");
	ir_graph_free(g);
}

Test(canonicalize, activation_not_fused_when_conv_output_is_shared_or_exposed)
{
	/* c read twice */
	struct node *a;
	struct graph *g = conv_act_graph(OP_RELU, &a);
	struct tensor *c = ir_find_tensor(g, "c");
	struct tensor *z = output(g, act(g, "z", SHAPE(1, 2, 3, 3)));
	node(g, OP_SIGMOID, "sig", INS(c), z);
	canonicalize_ok(g);
	cr_assert_eq(g->n_nodes, 3);
	cr_assert_eq(find_op(g, OP_CONV)->act, ACT_NONE);
	ir_graph_free(g);

	/* c is a graph output */
	g = conv_act_graph(OP_RELU, &a);
	output(g, ir_find_tensor(g, "c"));
	canonicalize_ok(g);
	cr_assert_eq(g->n_nodes, 2);
	cr_assert_eq(find_op(g, OP_CONV)->act, ACT_NONE);
	cr_assert_eq(find_op(g, OP_CONV)->outputs[0], g->outputs[1]);
	ir_graph_free(g);
}

Test(canonicalize, only_one_activation_fuses_and_readers_follow)
{
	/* conv -> c -> relu -> r -> sigmoid -> y: the conv takes the Relu and
	 * writes r; the Sigmoid stays and reads r. */
	struct node *a;
	struct graph *g = conv_act_graph(OP_RELU, &a);
	struct tensor *y = g->outputs[0];
	struct tensor *r = act(g, "r", SHAPE(1, 2, 3, 3));
	a->outputs[0] = r;
	r->producer = a;
	y->producer = NULL;
	struct node *sig = node(g, OP_SIGMOID, "sig", INS(r), y);
	canonicalize_ok(g);
	cr_assert_eq(g->n_nodes, 2);
	struct node *conv = find_op(g, OP_CONV);
	cr_assert_eq(conv->act, ACT_RELU);
	cr_assert_eq(conv->outputs[0], r);
	cr_assert_eq(r->producer, conv);
	cr_assert_eq(sig->inputs[0], r);
	cr_assert_eq(sig->act, ACT_NONE);
	ir_graph_free(g);
}

Test(canonicalize, batchnorm_fold_then_relu_fusion)
{
	struct bn_case k;
	bn_case_fill(&k, 21);
	struct node *bn;
	struct graph *g = conv_bn_graph(&k, 1, &bn);
	struct tensor *y = ir_find_tensor(g, "y");
	struct tensor *r = act(g, "r", SHAPE(1, 3, 5, 5));
	g->outputs[0] = r;
	y->is_output = 0;
	r->is_output = 1;
	node(g, OP_RELU, "relu", INS(y), r);
	canonicalize_ok(g);
	cr_assert_eq(g->n_nodes, 1);
	cr_assert_eq(g->nodes[0]->act, ACT_RELU);
	cr_assert_eq(g->nodes[0]->outputs[0], r);
	cr_assert_eq(g->nodes[0]->n_inputs, 3);
	ir_graph_free(g);
}

/* ---- canonicalize: Dropout, Identity ----------------------------------------------- */

Test(canonicalize, dropout_and_identity_are_removed)
{
	struct graph *g = graph_new(12);
	struct tensor *x = input(g, act(g, "x", SHAPE(1, 4)));
	struct tensor *a = act(g, "a", SHAPE(1, 4)), *b = act(g, "b", SHAPE(1, 4));
	struct tensor *m = typed(g, "mask", DTYPE_BOOL, SHAPE(1, 4));
	struct tensor *c = act(g, "c", SHAPE(1, 4));
	struct tensor *y = output(g, act(g, "y", SHAPE(1, 4)));
	static const float ratio = 0.5f;
	node(g, OP_RELU, "relu", INS(x), a);
	struct tensor *drop_out[2] = {b, m};
	struct node *drop =
		ir_add_node(g, OP_DROPOUT, "drop", INS(a, cst(g, "ratio", &ratio, 0, NULL)), 2, drop_out);
	set_int(g, drop, "seed", 42);
	node(g, OP_IDENTITY, "id", INS(b), c);
	struct node *sig = node(g, OP_SIGMOID, "sig", INS(c), y);
	canonicalize_ok(g);
	cr_assert_eq(g->n_nodes, 2);
	cr_assert_eq(g->nodes[0]->op, OP_RELU);
	cr_assert_eq(g->nodes[1], sig);
	cr_assert_eq(sig->inputs[0], a);
	cr_assert_null(ir_find_tensor(g, "b"));
	cr_assert_null(ir_find_tensor(g, "mask"));
	cr_assert_null(ir_find_tensor(g, "c"));
	ir_graph_free(g);
}

/* torch exports AvgPool2d(8) as a Pad of zeros and an AveragePool: the Pad
 * copies, so it goes like an Identity; one that pads stays. */
Test(canonicalize, pad_of_zeros_is_removed_and_a_real_pad_stays)
{
	struct graph *g = graph_new(14);
	struct tensor *x = input(g, act(g, "x", SHAPE(1, 2, 3, 3)));
	struct tensor *a = act(g, "a", SHAPE(1, 2, 3, 3)), *b = act(g, "b", SHAPE(1, 2, 3, 3));
	struct tensor *c = act(g, "c", SHAPE(1, 2, 5, 4));
	struct tensor *y = output(g, act(g, "y", SHAPE(1, 2, 5, 4)));
	node(g, OP_RELU, "relu", INS(x), a);
	struct node *zero = node(g, OP_PAD, "zero_pad", INS(a), b);
	set_ints(g, zero, "pads", 8, (int64_t[]){0, 0, 0, 0, 0, 0, 0, 0});
	struct node *pad = node(g, OP_PAD, "real_pad", INS(b), c);
	set_ints(g, pad, "pads", 8, (int64_t[]){0, 0, 1, 0, 0, 0, 1, 1});
	node(g, OP_SIGMOID, "sig", INS(c), y);
	canonicalize_ok(g);
	cr_assert_eq(g->n_nodes, 3);
	cr_assert_eq(g->nodes[1], pad);
	cr_assert_eq(pad->inputs[0], a, "the real Pad reads the zero Pad's input");
	cr_assert_null(ir_find_tensor(g, "b"));
	ir_graph_free(g);
}

Test(canonicalize, identity_writing_a_graph_output_hands_it_the_input)
{
	struct graph *g = graph_new(13);
	struct tensor *x = input(g, act(g, "x", SHAPE(1, 4)));
	struct tensor *a = act(g, "a", SHAPE(1, 4));
	struct tensor *y = output(g, act(g, "y", SHAPE(1, 4)));
	struct tensor *z = act(g, "z", SHAPE(1, 4));
	struct node *relu = node(g, OP_RELU, "relu", INS(x), a);
	node(g, OP_IDENTITY, "id", INS(a), y);
	struct node *tanh_n = node(g, OP_TANH, "tanh", INS(y), z);
	output(g, z);
	canonicalize_ok(g);
	cr_assert_eq(g->n_nodes, 2);
	cr_assert_eq(g->outputs[0], a);
	cr_assert(a->is_output);
	cr_assert_eq(a->producer, relu);
	cr_assert_eq(tanh_n->inputs[0], a);
	cr_assert_null(ir_find_tensor(g, "y"));
	ir_graph_free(g);
}

Test(canonicalize, identity_of_a_graph_input_leaves_no_node)
{
	struct graph *g = graph_new(13);
	struct tensor *x = input(g, act(g, "x", SHAPE(2, 2)));
	struct tensor *y = output(g, act(g, "y", SHAPE(2, 2)));
	struct tensor *z = output(g, act(g, "z", SHAPE(2, 2)));
	node(g, OP_IDENTITY, "id", INS(x), y);
	node(g, OP_DROPOUT, "drop", INS(y), z);
	canonicalize_ok(g);
	cr_assert_eq(g->n_nodes, 0);
	cr_assert_eq(g->n_outputs, 2);
	cr_assert_eq(g->outputs[0], x);
	cr_assert_eq(g->outputs[1], x);
	cr_assert(x->is_input && x->is_output);
	ir_graph_free(g);
}

Test(canonicalize, dropout_mask_in_use_is_rejected)
{
	struct graph *g = graph_new(13);
	struct tensor *x = input(g, act(g, "x", SHAPE(2, 2)));
	struct tensor *y = output(g, act(g, "y", SHAPE(2, 2)));
	struct tensor *m = output(g, typed(g, "mask", DTYPE_BOOL, SHAPE(2, 2)));
	struct tensor *outs[2] = {y, m};
	ir_add_node(g, OP_DROPOUT, "drop", INS(x), 2, outs);
	char *text = canonicalize_fails(g, NULL);
	cr_assert(strstr(text, "node 'drop' (Dropout): the mask output ('mask') is used"), "%s",
	          text);
	free(text);
	ir_graph_free(g);
}

Test(canonicalize, cast_to_the_same_type_is_removed)
{
	struct graph *g = graph_new(13);
	struct tensor *x = input(g, act(g, "x", SHAPE(3)));
	struct tensor *c = act(g, "c", SHAPE(3));
	struct tensor *y = output(g, act(g, "y", SHAPE(3)));
	struct node *cast = node(g, OP_CAST, "cast", INS(x), c);
	set_int(g, cast, "to", 1);
	struct node *relu = node(g, OP_RELU, "relu", INS(c), y);
	canonicalize_ok(g);
	cr_assert_eq(g->n_nodes, 1);
	cr_assert_eq(relu->inputs[0], x);
	ir_graph_free(g);
}

/* ---- canonicalize: windows -------------------------------------------------------- */

/* Conv of x [1, 1, in, in] with a k x k kernel, one auto_pad, output out x out. */
static struct node *conv_window(struct graph *g, int64_t in, int64_t k, int64_t out)
{
	float w[25] = {0};
	struct tensor *x = input(g, act(g, "x", SHAPE(1, 1, in, in)));
	struct tensor *y = output(g, act(g, "y", SHAPE(1, 1, out, out)));
	return node(g, OP_CONV, "conv", INS(x, cst(g, "W", w, 4, (int64_t[]){1, 1, k, k})), y);
}

Test(canonicalize, auto_pad_is_resolved_into_pads)
{
	static const struct {
		const char *mode;
		int64_t in, k, stride, dil, out;
		int64_t pads[4];
	} cases[] = {
		{"SAME_UPPER", 4, 2, 1, 1, 4, {0, 0, 1, 1}},
		{"SAME_LOWER", 4, 2, 1, 1, 4, {1, 1, 0, 0}},
		{"SAME_UPPER", 5, 3, 2, 1, 3, {1, 1, 1, 1}},
		{"SAME_UPPER", 6, 3, 2, 1, 3, {0, 0, 1, 1}},
		{"SAME_LOWER", 6, 3, 2, 1, 3, {1, 1, 0, 0}},
		{"SAME_UPPER", 7, 3, 1, 2, 7, {2, 2, 2, 2}},
		{"SAME_UPPER", 4, 1, 4, 1, 1, {0, 0, 0, 0}},
		{"VALID", 5, 3, 1, 1, 3, {0, 0, 0, 0}},
		{"NOTSET", 5, 3, 1, 1, 3, {0, 0, 0, 0}},
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		struct graph *g = graph_new(13);
		struct node *conv = conv_window(g, cases[i].in, cases[i].k, cases[i].out);
		set_string(g, conv, "auto_pad", cases[i].mode);
		set_ints(g, conv, "strides", SHAPE(cases[i].stride, cases[i].stride));
		set_ints(g, conv, "dilations", SHAPE(cases[i].dil, cases[i].dil));
		canonicalize_ok(g);
		assert_ints(conv, "pads", 4, cases[i].pads);
		assert_ints(conv, "kernel_shape", SHAPE(cases[i].k, cases[i].k));
		cr_assert_str_eq(ir_attr_string(conv, "auto_pad", ""), "NOTSET");
		ir_graph_free(g);
	}
}

Test(canonicalize, pool_auto_pad_and_defaults)
{
	struct graph *g = graph_new(13);
	struct tensor *x = input(g, act(g, "x", SHAPE(1, 3, 5, 6)));
	struct tensor *y = output(g, act(g, "y", SHAPE(1, 3, 3, 3)));
	struct node *pool = node(g, OP_AVGPOOL, "pool", INS(x), y);
	set_ints(g, pool, "kernel_shape", SHAPE(2, 3));
	set_ints(g, pool, "strides", SHAPE(2, 2));
	set_string(g, pool, "auto_pad", "SAME_LOWER");
	canonicalize_ok(g);
	/* H: out 3, total (3-1)*2+2-5 = 1; W: out 3, total (3-1)*2+3-6 = 1 */
	assert_ints(pool, "pads", SHAPE(1, 1, 0, 0));
	assert_ints(pool, "dilations", SHAPE(1, 1));
	cr_assert_eq(ir_attr_int(pool, "count_include_pad", -1), 0);
	ir_graph_free(g);
}

Test(canonicalize, maxpool_ceil_mode_drops_a_window_in_the_padding)
{
	/* in 3, k 1, s 2, pads 0+1: ceil((3+1-1)/2)+1 = 3 windows, but the last
	 * starts at 4 >= 3 + 0, inside the end padding: 2 remain. */
	struct graph *g = graph_new(13);
	struct tensor *x = input(g, act(g, "x", SHAPE(1, 1, 3, 3)));
	struct tensor *y = output(g, act(g, "y", SHAPE(1, 1, 2, 2)));
	struct tensor *idx = typed(g, "idx", DTYPE_I64, SHAPE(1, 1, 2, 2));
	struct tensor *outs[2] = {y, idx};
	struct node *pool = ir_add_node(g, OP_MAXPOOL, "pool", INS(x), 2, outs);
	set_ints(g, pool, "kernel_shape", SHAPE(1, 1));
	set_ints(g, pool, "strides", SHAPE(2, 2));
	set_ints(g, pool, "pads", SHAPE(0, 0, 1, 1));
	set_int(g, pool, "ceil_mode", 1);
	canonicalize_ok(g);
	cr_assert_eq(pool->n_outputs, 1, "the unused Indices output is dropped");
	cr_assert_null(ir_find_tensor(g, "idx"));
	ir_graph_free(g);

	/* The same node claiming 3 x 3 disagrees with its own window. */
	g = graph_new(13);
	x = input(g, act(g, "x", SHAPE(1, 1, 3, 3)));
	y = output(g, act(g, "y", SHAPE(1, 1, 3, 3)));
	pool = node(g, OP_MAXPOOL, "pool", INS(x), y);
	set_ints(g, pool, "kernel_shape", SHAPE(1, 1));
	set_ints(g, pool, "strides", SHAPE(2, 2));
	set_ints(g, pool, "pads", SHAPE(0, 0, 1, 1));
	set_int(g, pool, "ceil_mode", 1);
	char *text = canonicalize_fails(g, NULL);
	cr_assert(strstr(text, "inferred output size 3 in spatial dimension 0 disagrees"), "%s",
	          text);
	free(text);
	ir_graph_free(g);
}

Test(canonicalize, maxpool_indices_in_use_is_rejected)
{
	struct graph *g = graph_new(13);
	struct tensor *x = input(g, act(g, "x", SHAPE(1, 1, 4, 4)));
	struct tensor *y = output(g, act(g, "y", SHAPE(1, 1, 2, 2)));
	struct tensor *idx = output(g, typed(g, "idx", DTYPE_I64, SHAPE(1, 1, 2, 2)));
	struct tensor *outs[2] = {y, idx};
	struct node *pool = ir_add_node(g, OP_MAXPOOL, "pool", INS(x), 2, outs);
	set_ints(g, pool, "kernel_shape", SHAPE(2, 2));
	set_ints(g, pool, "strides", SHAPE(2, 2));
	char *text = canonicalize_fails(g, NULL);
	cr_assert(strstr(text, "node 'pool' (MaxPool): the Indices output ('idx') is used"), "%s",
	          text);
	free(text);
	ir_graph_free(g);
}

Test(canonicalize, bad_window_attributes_are_reported)
{
	struct graph *g = graph_new(13);
	struct node *conv = conv_window(g, 5, 3, 3);
	set_ints(g, conv, "pads", SHAPE(0, 0, 0));
	char *text = canonicalize_fails(g, NULL);
	cr_assert(strstr(text, "m.onnx: node 'conv' (Conv): pads has 3 values, expected 4 for a "
	                       "2-D kernel"),
	          "%s", text);
	free(text);
	ir_graph_free(g);

	g = graph_new(13);
	conv = conv_window(g, 5, 3, 3);
	set_string(g, conv, "auto_pad", "SAME");
	text = canonicalize_fails(g, NULL);
	cr_assert(strstr(text, "auto_pad 'SAME' is not one of"), "%s", text);
	free(text);
	ir_graph_free(g);

	g = graph_new(13);
	conv = conv_window(g, 5, 3, 3);
	set_ints(g, conv, "kernel_shape", SHAPE(3, 2));
	text = canonicalize_fails(g, NULL);
	cr_assert(strstr(text, "kernel_shape[1] is 2 but the weights have 3"), "%s", text);
	free(text);
	ir_graph_free(g);
}

Test(canonicalize, conv_1d_is_canonical)
{
	struct graph *g = graph_new(13);
	static const float w[6] = {1, 2, 3, 4, 5, 6};
	struct tensor *x = input(g, act(g, "x", SHAPE(1, 2, 8)));
	struct tensor *y = output(g, act(g, "y", SHAPE(1, 2, 4)));
	struct node *conv = node(g, OP_CONV, "conv", INS(x, cst(g, "W", w, SHAPE(2, 1, 3))), y);
	set_int(g, conv, "group", 2);
	set_ints(g, conv, "strides", SHAPE(2));
	set_string(g, conv, "auto_pad", "SAME_UPPER");
	canonicalize_ok(g);
	/* out 4, total (4-1)*2+3-8 = 1 */
	assert_ints(conv, "pads", SHAPE(0, 1));
	assert_ints(conv, "kernel_shape", SHAPE(3));
	assert_ints(conv, "dilations", SHAPE(1));
	cr_assert_eq(ir_attr_int(conv, "group", 0), 2);
	ir_graph_free(g);
}

/* ---- canonicalize: operands into attributes ------------------------------------------ */

Test(canonicalize, clip_inputs_become_attributes)
{
	struct graph *g = graph_new(13);
	static const float lo = -1.5f;
	struct tensor *x = input(g, act(g, "x", SHAPE(4)));
	struct tensor *y = output(g, act(g, "y", SHAPE(4)));
	struct node *clip = node(g, OP_CLIP, "clip", INS(x, cst(g, "lo", &lo, 0, NULL), NULL), y);
	canonicalize_ok(g);
	cr_assert_eq(clip->n_inputs, 1);
	cr_assert_float_eq(ir_attr_float(clip, "min", 0), -1.5, 1e-12);
	cr_assert_float_eq(ir_attr_float(clip, "max", 0), FLT_MAX, 1e30);
	cr_assert_null(ir_find_tensor(g, "lo"));
	ir_graph_free(g);

	/* Clip-6: attributes, one missing. */
	g = graph_new(6);
	x = input(g, act(g, "x", SHAPE(4)));
	y = output(g, act(g, "y", SHAPE(4)));
	clip = node(g, OP_CLIP, "clip", INS(x), y);
	set_float(g, clip, "max", 6.0);
	canonicalize_ok(g);
	cr_assert_float_eq(ir_attr_float(clip, "min", 0), -FLT_MAX, 1e30);
	cr_assert_float_eq(ir_attr_float(clip, "max", 0), 6.0, 1e-12);
	ir_graph_free(g);

	/* min > max: everything becomes max. */
	g = graph_new(13);
	static const float two = 2.0f, one = 1.0f;
	x = input(g, act(g, "x", SHAPE(4)));
	y = output(g, act(g, "y", SHAPE(4)));
	clip = node(g, OP_CLIP, "clip",
	            INS(x, cst(g, "two", &two, 0, NULL), cst(g, "one", &one, 0, NULL)), y);
	canonicalize_ok(g);
	cr_assert_float_eq(ir_attr_float(clip, "min", 0), 1.0, 1e-12);
	cr_assert_float_eq(ir_attr_float(clip, "max", 0), 1.0, 1e-12);
	ir_graph_free(g);
}

/* Bounds that are graph inputs (ONNX node tests test_clip*) stay inputs 1
 * and 2; a constant or absent one becomes its attribute and leaves a NULL
 * slot when the other is read at run time. */
Test(canonicalize, clip_variable_bounds_stay_inputs)
{
	/* min a graph input, max absent */
	struct graph *g = graph_new(13);
	struct tensor *x = input(g, act(g, "x", SHAPE(4)));
	struct tensor *lo = input(g, act(g, "lo", 0, NULL));
	struct tensor *y = output(g, act(g, "y", SHAPE(4)));
	struct node *clip = node(g, OP_CLIP, "clip", INS(x, lo), y);
	canonicalize_ok(g);
	cr_assert_eq(clip->n_inputs, 2);
	cr_assert_eq(clip->inputs[0], x);
	cr_assert_eq(clip->inputs[1], lo);
	cr_assert_eq(ir_attr_float(clip, "min", 0), -FLT_MAX);
	cr_assert_eq(ir_attr_float(clip, "max", 0), FLT_MAX);
	ir_graph_free(g);

	/* min a constant (above max's range: nothing is lowered), max an input */
	g = graph_new(13);
	static const float two = 2.0f;
	x = input(g, act(g, "x", SHAPE(4)));
	struct tensor *hi = input(g, act(g, "hi", SHAPE(1)));
	y = output(g, act(g, "y", SHAPE(4)));
	clip = node(g, OP_CLIP, "clip", INS(x, cst(g, "two", &two, 0, NULL), hi), y);
	canonicalize_ok(g);
	cr_assert_eq(clip->n_inputs, 3);
	cr_assert_null(clip->inputs[1]);
	cr_assert_eq(clip->inputs[2], hi);
	cr_assert_float_eq(ir_attr_float(clip, "min", 0), 2.0, 1e-12);
	cr_assert_eq(ir_attr_float(clip, "max", 0), FLT_MAX);
	cr_assert_null(ir_find_tensor(g, "two"), "the constant bound is gone");
	ir_graph_free(g);

	/* both inputs */
	g = graph_new(13);
	x = input(g, act(g, "x", SHAPE(4)));
	lo = input(g, act(g, "lo", 0, NULL));
	hi = input(g, act(g, "hi", 0, NULL));
	y = output(g, act(g, "y", SHAPE(4)));
	clip = node(g, OP_CLIP, "clip", INS(x, lo, hi), y);
	canonicalize_ok(g);
	cr_assert_eq(clip->n_inputs, 3);
	cr_assert_eq(clip->inputs[1], lo);
	cr_assert_eq(clip->inputs[2], hi);
	ir_graph_free(g);
}

Test(canonicalize, clip_with_variable_bound_is_not_fused)
{
	struct graph *g = graph_new(11);
	static const float b[12] = {0};
	struct tensor *a = input(g, act(g, "a", SHAPE(2, 4)));
	struct tensor *hi = input(g, act(g, "hi", 0, NULL));
	struct tensor *mm = act(g, "mm", SHAPE(2, 3));
	struct tensor *y = output(g, act(g, "y", SHAPE(2, 3)));
	struct node *fc = node(g, OP_GEMM, "fc", INS(a, cst(g, "B", b, SHAPE(4, 3))), mm);
	struct node *clip = node(g, OP_CLIP, "clip", INS(mm, NULL, hi), y);
	canonicalize_ok(g);
	cr_assert_eq(g->n_nodes, 2);
	cr_assert_eq(fc->act, ACT_NONE);
	cr_assert_eq(fc->outputs[0], mm);
	cr_assert_eq(clip->inputs[0], mm);
	cr_assert_eq(clip->inputs[2], hi);
	cr_assert_eq(y->producer, clip);
	ir_graph_free(g);
}

Test(canonicalize, clip_variable_bound_must_be_a_float_scalar)
{
	struct graph *g = graph_new(13);
	struct tensor *x = input(g, act(g, "x", SHAPE(4)));
	struct tensor *lo = input(g, act(g, "lo", SHAPE(2)));
	struct tensor *y = output(g, act(g, "y", SHAPE(4)));
	node(g, OP_CLIP, "clip", INS(x, lo), y);
	char *text = canonicalize_fails(g, NULL);
	cr_assert(strstr(text, "node 'clip' (Clip): min 'lo' must be a scalar, found 2 values"),
	          "%s", text);
	free(text);
	ir_graph_free(g);

	g = graph_new(13);
	x = input(g, act(g, "x", SHAPE(4)));
	struct tensor *hi = input(g, typed(g, "hi", DTYPE_F64, 0, NULL));
	y = output(g, act(g, "y", SHAPE(4)));
	node(g, OP_CLIP, "clip", INS(x, NULL, hi), y);
	text = canonicalize_fails(g, NULL);
	cr_assert(strstr(text, "node 'clip' (Clip): max 'hi' has data type "), "%s", text);
	cr_assert(strstr(text, "a bound computed at run time must be float32"), "%s", text);
	free(text);
	ir_graph_free(g);
}

Test(canonicalize, pad_inputs_become_attributes)
{
	struct graph *g = graph_new(13);
	static const int64_t pads[8] = {0, 0, 1, 2, 0, 0, 3, -1};
	static const float value = 0.25f;
	struct tensor *x = input(g, act(g, "x", SHAPE(1, 2, 3, 4)));
	struct tensor *y = output(g, act(g, "y", SHAPE(1, 2, 7, 5)));
	struct node *pad = node(
		g, OP_PAD, "pad",
		INS(x, cst_i64(g, "pads", pads, SHAPE(8)), cst(g, "value", &value, 0, NULL)), y);
	canonicalize_ok(g);
	cr_assert_eq(pad->n_inputs, 1);
	assert_ints(pad, "pads", 8, pads);
	cr_assert_float_eq(ir_attr_float(pad, "value", 0), 0.25, 1e-12);
	cr_assert_null(ir_find_tensor(g, "pads"));
	ir_graph_free(g);

	/* Pad-18 axes: pads for the listed axes only (negative axes allowed). */
	g = graph_new(18);
	static const int64_t p2[4] = {1, 2, 3, 4}, axes[2] = {-1, 2};
	x = input(g, act(g, "x", SHAPE(1, 2, 3, 4)));
	y = output(g, act(g, "y", SHAPE(1, 2, 9, 8)));
	pad = node(g, OP_PAD, "pad",
	           INS(x, cst_i64(g, "pads", p2, SHAPE(4)), NULL, cst_i64(g, "axes", axes, SHAPE(2))),
	           y);
	canonicalize_ok(g);
	assert_ints(pad, "pads", SHAPE(0, 0, 2, 1, 0, 0, 4, 3));
	cr_assert_float_eq(ir_attr_float(pad, "value", 1), 0.0, 1e-12);
	ir_graph_free(g);

	/* Pad-2: attributes. */
	g = graph_new(2);
	x = input(g, act(g, "x", SHAPE(2, 3)));
	y = output(g, act(g, "y", SHAPE(3, 5)));
	pad = node(g, OP_PAD, "pad", INS(x), y);
	set_ints(g, pad, "pads", SHAPE(1, 0, 0, 2));
	set_float(g, pad, "value", -1.0);
	set_string(g, pad, "mode", "constant");
	canonicalize_ok(g);
	assert_ints(pad, "pads", SHAPE(1, 0, 0, 2));
	cr_assert_float_eq(ir_attr_float(pad, "value", 0), -1.0, 1e-12);
	ir_graph_free(g);
}

Test(canonicalize, pad_mode_wrap_is_rejected)
{
	struct graph *g = graph_new(13);
	static const int64_t pads[4] = {1, 1, 1, 1};
	struct tensor *x = input(g, act(g, "x", SHAPE(3, 3)));
	struct tensor *y = output(g, act(g, "y", SHAPE(5, 5)));
	struct node *pad = node(g, OP_PAD, "pad", INS(x, cst_i64(g, "pads", pads, SHAPE(4))), y);
	set_string(g, pad, "mode", "wrap");
	char *text = canonicalize_fails(g, NULL);
	cr_assert(strstr(text, "node 'pad' (Pad): Pad mode 'wrap' is not supported"), "%s", text);
	free(text);
	ir_graph_free(g);
}

Test(canonicalize, softmax_axis_and_coerce_follow_the_opset)
{
	static const struct {
		int64_t opset;
		int has_axis;
		int64_t axis, want_axis, want_coerce;
	} cases[] = {
		{11, 0, 0, 1, 1}, {11, 1, -1, 2, 1}, {13, 0, 0, 2, 0}, {13, 1, -2, 1, 0}, {0, 0, 0, 2, 0},
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		struct graph *g = graph_new(cases[i].opset);
		struct tensor *x = input(g, act(g, "x", SHAPE(2, 3, 4)));
		struct tensor *y = output(g, act(g, "y", SHAPE(2, 3, 4)));
		struct node *sm = node(g, OP_SOFTMAX, "sm", INS(x), y);
		if (cases[i].has_axis)
			set_int(g, sm, "axis", cases[i].axis);
		canonicalize_ok(g);
		cr_assert_eq(ir_attr_int(sm, "axis", -9), cases[i].want_axis, "case %zu", i);
		cr_assert_eq(ir_attr_int(sm, "coerce_2d", -9), cases[i].want_coerce, "case %zu", i);
		ir_graph_free(g);
	}
}

Test(canonicalize, defaults_are_filled_and_axes_normalised)
{
	struct graph *g = graph_new(13);
	struct tensor *x = input(g, act(g, "x", SHAPE(2, 3, 4)));
	struct tensor *t = act(g, "t", SHAPE(4, 3, 2));
	struct tensor *l = act(g, "l", SHAPE(4, 3, 2));
	struct tensor *c = act(g, "c", SHAPE(4, 3, 4));
	struct tensor *n = act(g, "n", SHAPE(4, 3, 4));
	struct tensor *y = output(g, act(g, "y", SHAPE(4, 3, 4)));
	struct node *tr = node(g, OP_TRANSPOSE, "tr", INS(x), t);
	struct node *lr = node(g, OP_LEAKY_RELU, "lr", INS(t), l);
	struct node *cat = node(g, OP_CONCAT, "cat", INS(t, l), c);
	set_int(g, cat, "axis", -1);
	struct node *lrn = node(g, OP_LRN, "lrn", INS(c), n);
	set_int(g, lrn, "size", 3);
	struct node *ls = node(g, OP_LOG_SOFTMAX, "ls", INS(n), y);
	set_int(g, ls, "axis", -3);
	canonicalize_ok(g);
	assert_ints(tr, "perm", SHAPE(2, 1, 0));
	cr_assert_float_eq(ir_attr_float(lr, "alpha", 0), 0.01, 1e-12);
	cr_assert_eq(ir_attr_int(cat, "axis", -9), 2);
	cr_assert_float_eq(ir_attr_float(lrn, "alpha", 0), 1e-4, 1e-12);
	cr_assert_float_eq(ir_attr_float(lrn, "beta", 0), 0.75, 1e-12);
	cr_assert_float_eq(ir_attr_float(lrn, "bias", 0), 1.0, 1e-12);
	cr_assert_eq(ir_attr_int(lrn, "size", 0), 3);
	cr_assert_eq(ir_attr_int(ls, "axis", -9), 0);
	cr_assert_eq(ir_attr_int(ls, "coerce_2d", -9), 0);
	ir_graph_free(g);
}

/* A Transpose that moves only dims of size 1 is a view (a Reshape to its
 * output's shape); one that reorders two dims larger than 1 is a copy and
 * stays, also when size-1 dims move with them. */
Test(canonicalize, transpose_of_unit_dims_is_a_view)
{
	struct graph *g = graph_new(13);
	struct tensor *x = input(g, act(g, "x", SHAPE(197, 1, 768)));
	struct tensor *a = act(g, "a", SHAPE(1, 197, 768));
	struct tensor *b = act(g, "b", SHAPE(768, 1, 197));
	struct tensor *y = output(g, act(g, "y", SHAPE(1, 768, 1, 197)));
	struct tensor *z = output(g, act(g, "z", SHAPE(768, 197, 1)));
	struct node *t1 = node(g, OP_TRANSPOSE, "t1", INS(x), a);
	set_ints(g, t1, "perm", SHAPE(1, 0, 2));
	struct node *t2 = node(g, OP_TRANSPOSE, "t2", INS(a), b);
	set_ints(g, t2, "perm", SHAPE(2, 0, 1));
	struct node *un = node(g, OP_UNSQUEEZE, "un", INS(b), y);
	set_ints(g, un, "axes", SHAPE(0));
	struct node *t3 = node(g, OP_TRANSPOSE, "t3", INS(a), z); /* the default perm */
	canonicalize_ok(g);
	cr_assert_eq(t1->op, OP_RESHAPE);
	cr_assert_eq(t1->n_inputs, 1);
	cr_assert_eq(t2->op, OP_TRANSPOSE);
	assert_ints(t2, "perm", SHAPE(2, 0, 1));
	cr_assert_eq(t3->op, OP_TRANSPOSE, "reversing [1, 197, 768] swaps 197 and 768");
	ir_graph_free(g);
}

Test(canonicalize, views_drop_operands_and_unread_shape_arithmetic_goes)
{
	struct graph *g = graph_new(13);
	static const int64_t axes[1] = {0};
	struct tensor *x = input(g, act(g, "x", SHAPE(2, 3, 4)));
	struct tensor *s = typed(g, "s", DTYPE_I64, SHAPE(3));
	struct tensor *r = act(g, "r", SHAPE(6, 4, 1));
	struct tensor *u = act(g, "u", SHAPE(1, 6, 4, 1));
	struct tensor *q = act(g, "q", SHAPE(6, 4, 1));
	struct tensor *f = output(g, act(g, "f", SHAPE(24, 1)));
	struct tensor *unused = act(g, "unused", SHAPE(2, 3, 4));
	node(g, OP_SHAPE, "shape", INS(x), s); /* left unfolded, only feeds the Reshape */
	struct node *rs = node(g, OP_RESHAPE, "rs", INS(x, s), r);
	set_int(g, rs, "allowzero", 0);
	struct node *un = node(g, OP_UNSQUEEZE, "un", INS(r, cst_i64(g, "ax", axes, SHAPE(1))), u);
	struct node *sq = node(g, OP_SQUEEZE, "sq", INS(u), q);
	set_ints(g, sq, "axes", SHAPE(0));
	struct node *fl = node(g, OP_FLATTEN, "fl", INS(q), f);
	set_int(g, fl, "axis", -1);
	node(g, OP_RELU, "dead_end", INS(x), unused);
	canonicalize_ok(g);
	cr_assert_eq(g->n_nodes, 4);
	cr_assert_eq(count_op(g, OP_SHAPE), 0);
	cr_assert_eq(count_op(g, OP_RELU), 0);
	cr_assert_eq(rs->n_inputs, 1);
	cr_assert_eq(un->n_inputs, 1);
	cr_assert_eq(ir_attr_int(fl, "axis", -9), 2);
	cr_assert_null(ir_find_tensor(g, "s"));
	cr_assert_null(ir_find_tensor(g, "ax"));
	cr_assert_null(ir_find_tensor(g, "unused"));
	ir_graph_free(g);
}

Test(canonicalize, legacy_broadcast_axis_reshapes_a_constant)
{
	struct graph *g = graph_new(6);
	static const float b[3] = {1, 2, 3};
	struct tensor *x = input(g, act(g, "x", SHAPE(1, 3, 2, 2)));
	struct tensor *bt = cst(g, "b", b, SHAPE(3));
	struct tensor *y = output(g, act(g, "y", SHAPE(1, 3, 2, 2)));
	struct node *add = node(g, OP_ADD, "add", INS(x, bt), y);
	set_int(g, add, "broadcast", 1);
	set_int(g, add, "axis", 1);
	canonicalize_ok(g);
	assert_dims(add->inputs[1], SHAPE(3, 1, 1));
	cr_assert_eq(add->inputs[1]->data, bt->data);
	cr_assert_eq(bt->rank, 1, "the original constant keeps its shape");
	ir_graph_free(g);
}

/* ---- canonicalize: diagnostics -------------------------------------------------------- */

Test(canonicalize, unused_attributes_are_named_in_warnings)
{
	struct bn_case k;
	bn_case_fill(&k, 31);
	struct node *bn;
	struct graph *g = conv_bn_graph(&k, 1, &bn);
	set_int(g, bn, "frobnicate", 1);
	struct node *conv = find_op(g, OP_CONV);
	set_int(g, conv, "consumed_inputs", 0); /* legacy, harmless */
	struct tensor *y = ir_find_tensor(g, "y");
	struct tensor *r = act(g, "r", SHAPE(1, 3, 5, 5));
	y->is_output = 0;
	g->outputs[0] = r;
	r->is_output = 1;
	struct node *relu = node(g, OP_RELU, "relu", INS(y), r);
	set_float(g, relu, "gamma", 2.0);

	struct options opt = {0};
	struct capture c;
	capture_open(&c);
	cr_assert_eq(pass_canonicalize(g, &opt, &c.d), 0);
	const char *text = capture_text(&c);
	cr_assert_eq(c.d.warnings, 2, "%s", text);
	cr_assert(strstr(text, "m.onnx: warning: node 'bn' (BatchNormalization): attribute "
	                       "'frobnicate' is not supported and was ignored"),
	          "%s", text);
	cr_assert(strstr(text, "warning: node 'relu' (Relu): attribute 'gamma' is not supported"),
	          "%s", text);
	cr_assert_null(strstr(text, "momentum"), "%s", text);
	cr_assert_null(strstr(text, "consumed_inputs"), "%s", text);
	capture_close(&c);
	/* The warnings do not stop the folding and fusing. */
	cr_assert_eq(g->n_nodes, 1);
	cr_assert_eq(g->nodes[0]->act, ACT_RELU);
	ir_graph_free(g);
}

Test(canonicalize, non_float_compute_is_rejected)
{
	/* Integer Add runs on the typed kernels (issue 11); a type they do not
	 * know (int16 reads as "other") is refused, and so is an integer Conv. */
	struct graph *g = graph_new(13);
	struct tensor *x = input(g, typed(g, "x", DTYPE_OTHER, SHAPE(4)));
	struct tensor *y = output(g, typed(g, "y", DTYPE_OTHER, SHAPE(4)));
	node(g, OP_ADD, "add", INS(x, x), y);
	int errors;
	char *text = canonicalize_fails(g, &errors);
	cr_assert(strstr(text, "node 'add' (Add): unsupported data type other for input 'x'"), "%s",
	          text);
	free(text);
	ir_graph_free(g);

	g = graph_new(13);
	int64_t *wv = arena_alloc(&g->arena, 4 * sizeof *wv);
	x = input(g, typed(g, "x", DTYPE_I64, SHAPE(1, 1, 2, 2)));
	struct tensor *w = ir_new_constant(g, "w64", DTYPE_I64, SHAPE(1, 1, 2, 2), wv);
	y = output(g, typed(g, "y", DTYPE_I64, SHAPE(1, 1, 1, 1)));
	node(g, OP_CONV, "conv", INS(x, w), y);
	text = canonicalize_fails(g, &errors);
	cr_assert(strstr(text, "node 'conv' (Conv): unsupported data type int64 for input 'x'"), "%s",
	          text);
	free(text);
	ir_graph_free(g);
}

Test(canonicalize, integer_add_is_left_to_the_typed_kernels)
{
	struct graph *g = graph_new(13);
	struct tensor *x = input(g, typed(g, "x", DTYPE_I64, SHAPE(4)));
	struct tensor *y = output(g, typed(g, "y", DTYPE_I64, SHAPE(4)));
	struct node *n = node(g, OP_ADD, "add", INS(x, x), y);
	struct diag d;
	diag_init(&d, "m.onnx", stderr);
	cr_assert_eq(pass_canonicalize(g, NULL, &d), 0);
	cr_assert(typed_runs_typed(n));
	ir_graph_free(g);
}

Test(canonicalize, leftover_shape_arithmetic_is_rejected)
{
	struct graph *g = graph_new(13);
	/* Gather at run time is the typed kernels' (issue 11); a ConstantOfShape
	 * whose shape is computed at run time is not folded and is refused. */
	struct tensor *shp = input(g, typed(g, "shp", DTYPE_I64, SHAPE(2)));
	struct tensor *y = output(g, act(g, "y", SHAPE(3, 2)));
	node(g, OP_CONSTANT_OF_SHAPE, "cos", INS(shp), y);
	int errors;
	char *text = canonicalize_fails(g, &errors);
	cr_assert_eq(errors, 1, "%s", text);
	cr_assert(strstr(text, "node 'cos' (ConstantOfShape): ConstantOfShape on non-constant input "
	                       "is not supported"),
	          "%s", text);
	free(text);
	ir_graph_free(g);
}

/* 1-D to 3-D Conv and pooling are canonical; more spatial dims are refused. */
Test(canonicalize, convolution_beyond_3d_is_rejected)
{
	struct graph *g = graph_new(13);
	float w[16] = {0};
	struct tensor *x = input(g, act(g, "x", SHAPE(1, 1, 4, 4, 4, 4)));
	struct tensor *y = output(g, act(g, "y", SHAPE(1, 1, 3, 3, 3, 3)));
	node(g, OP_CONV, "conv4d", INS(x, cst(g, "W", w, SHAPE(1, 1, 2, 2, 2, 2))), y);
	struct tensor *z = output(g, act(g, "z", SHAPE(1, 1, 2, 2, 2, 2)));
	struct node *pool = node(g, OP_MAXPOOL, "pool4d", INS(x), z);
	set_ints(g, pool, "kernel_shape", SHAPE(2, 2, 2, 2));
	int errors;
	char *text = canonicalize_fails(g, &errors);
	cr_assert_eq(errors, 2, "%s", text);
	cr_assert(strstr(text, "node 'conv4d' (Conv): 4-D convolution is not supported"), "%s",
	          text);
	cr_assert(strstr(text, "node 'pool4d' (MaxPool): 4-D pooling is not supported"), "%s", text);
	free(text);
	ir_graph_free(g);
}

Test(canonicalize, non_float_graph_output_constant_is_rejected)
{
	struct graph *g = graph_new(13);
	static const int64_t v[2] = {1, 2};
	struct tensor *x = input(g, act(g, "x", SHAPE(2)));
	struct tensor *y = output(g, act(g, "y", SHAPE(2)));
	node(g, OP_RELU, "relu", INS(x), y);
	output(g, cst_i64(g, "shape_out", v, SHAPE(2))); /* fine since issue 11 */
	output(g, typed(g, "odd_out", DTYPE_OTHER, SHAPE(2)));
	int errors;
	char *text = canonicalize_fails(g, &errors);
	cr_assert_eq(errors, 1, "%s", text);
	cr_assert(strstr(text, "unsupported data type other for graph output 'odd_out'"), "%s",
	          text);
	free(text);
	ir_graph_free(g);
}

Test(canonicalize, unused_non_float_graph_input_is_rejected)
{
	struct graph *g = graph_new(13);
	struct tensor *x = input(g, act(g, "x", SHAPE(2)));
	input(g, typed(g, "ids", DTYPE_I32, SHAPE(2))); /* fine since issue 11 */
	input(g, typed(g, "odd", DTYPE_OTHER, SHAPE(2)));
	struct tensor *y = output(g, act(g, "y", SHAPE(2)));
	node(g, OP_RELU, "relu", INS(x), y);
	int errors;
	char *text = canonicalize_fails(g, &errors);
	cr_assert_eq(errors, 1, "%s", text);
	cr_assert(strstr(text, "m.onnx: unsupported data type other for graph input 'odd'"), "%s",
	          text);
	free(text);
	ir_graph_free(g);
}

/* ---- plan_memory ---------------------------------------------------------------------- */

static int ranges_overlap(size_t a, size_t an, size_t b, size_t bn)
{
	return an && bn && a < b + bn && b < a + an;
}

static size_t padded(const struct tensor *t)
{
	return (ir_nbytes(t) + 63) / 64 * 64;
}

Test(plan_memory, chain_reuses_memory)
{
	/* x -> a -> b -> c -> y: a and c can share, b sits beside them. */
	struct graph *g = graph_new(13);
	struct tensor *x = input(g, act(g, "x", SHAPE(1000)));
	struct tensor *a = act(g, "a", SHAPE(1000)), *b = act(g, "b", SHAPE(1000));
	struct tensor *c = act(g, "c", SHAPE(1000));
	struct tensor *y = output(g, act(g, "y", SHAPE(1000)));
	node(g, OP_RELU, "n0", INS(x), a);
	node(g, OP_SIGMOID, "n1", INS(a), b);
	node(g, OP_TANH, "n2", INS(b), c);
	node(g, OP_RELU, "n3", INS(c), y);
	plan_ok(g);
	size_t sum = padded(a) + padded(b) + padded(c);
	cr_assert_lt(g->arena_size, sum, "arena %zu, no sharing %zu", g->arena_size, sum);
	cr_assert_eq(g->arena_size, 2 * padded(a));
	cr_assert_eq(a->offset, c->offset);
	cr_assert(!ranges_overlap(a->offset, padded(a), b->offset, padded(b)));
	cr_assert(!ranges_overlap(b->offset, padded(b), c->offset, padded(c)));
	ir_graph_free(g);
}

Test(plan_memory, inputs_outputs_and_constants_stay_outside)
{
	struct graph *g = graph_new(13);
	static const float w[4] = {1, 2, 3, 4};
	struct tensor *x = input(g, act(g, "x", SHAPE(4)));
	struct tensor *y = output(g, act(g, "y", SHAPE(4)));
	node(g, OP_ADD, "add", INS(x, cst(g, "w", w, SHAPE(4))), y);
	plan_ok(g);
	cr_assert_eq(g->arena_size, 0);
	ir_graph_free(g);
}

Test(plan_memory, long_lived_tensor_keeps_its_slot)
{
	/* a is read by the last node, so it overlaps b and c in time. */
	struct graph *g = graph_new(13);
	struct tensor *x = input(g, act(g, "x", SHAPE(10)));
	struct tensor *a = act(g, "a", SHAPE(100)), *b = act(g, "b", SHAPE(100));
	struct tensor *c = act(g, "c", SHAPE(100)), *e = act(g, "e", SHAPE(100));
	struct tensor *y = output(g, act(g, "y", SHAPE(100)));
	node(g, OP_RELU, "n0", INS(x), a);
	node(g, OP_RELU, "n1", INS(a), b);
	node(g, OP_RELU, "n2", INS(b), c);
	node(g, OP_RELU, "n3", INS(c), e);
	node(g, OP_ADD, "n4", INS(a, e), y);
	plan_ok(g);
	struct tensor *ts[4] = {a, b, c, e};
	for (int i = 0; i < 4; i++)
		cr_assert_eq(ts[i]->offset % 64, 0);
	for (int i = 1; i < 4; i++)
		cr_assert(!ranges_overlap(a->offset, padded(a), ts[i]->offset, padded(ts[i])),
		          "a overlaps %s", ts[i]->name);
	cr_assert(!ranges_overlap(b->offset, padded(b), c->offset, padded(c)));
	cr_assert(!ranges_overlap(c->offset, padded(c), e->offset, padded(e)));
	cr_assert_eq(b->offset, e->offset, "b is dead when e is written");
	cr_assert_eq(g->arena_size, 3 * padded(a));
	cr_assert_eq(g->arena_size % 64, 0);
	ir_graph_free(g);
}

Test(plan_memory, views_alias_their_root_and_extend_its_life)
{
	/* a -> Reshape r -> Flatten f; b is written after the Reshape but while
	 * f (that is, a) is still to be read, so a and b must not share. */
	struct graph *g = graph_new(13);
	struct tensor *x = input(g, act(g, "x", SHAPE(2, 8)));
	struct tensor *a = act(g, "a", SHAPE(2, 8));
	struct tensor *r = act(g, "r", SHAPE(4, 4));
	struct tensor *f = act(g, "f", SHAPE(16));
	struct tensor *b = act(g, "b", SHAPE(16));
	struct tensor *y = output(g, act(g, "y", SHAPE(16)));
	node(g, OP_RELU, "n0", INS(x), a);
	node(g, OP_RESHAPE, "n1", INS(a), r);
	node(g, OP_FLATTEN, "n2", INS(r), f);
	node(g, OP_SIGMOID, "n3", INS(x), b);
	node(g, OP_ADD, "n4", INS(f, b), y);
	plan_ok(g);
	cr_assert_eq(r->alias, a);
	cr_assert_eq(f->alias, a, "alias chains resolve to the root");
	cr_assert_null(a->alias);
	cr_assert_null(b->alias);
	cr_assert(!ranges_overlap(a->offset, padded(a), b->offset, padded(b)));
	cr_assert_eq(g->arena_size, padded(a) + padded(b));
	ir_graph_free(g);
}

Test(plan_memory, arena_tensor_viewed_by_a_graph_output_lives_to_the_end)
{
	/* y = Reshape(a) is a graph output: a keeps its slot to the end, so the
	 * later c cannot take it even though no node reads a after n1. */
	struct graph *g = graph_new(13);
	struct tensor *x = input(g, act(g, "x", SHAPE(64)));
	struct tensor *a = act(g, "a", SHAPE(64));
	struct tensor *y = output(g, act(g, "y", SHAPE(8, 8)));
	struct tensor *b = act(g, "b", SHAPE(64)), *c = act(g, "c", SHAPE(64));
	struct tensor *z = output(g, act(g, "z", SHAPE(64)));
	node(g, OP_RELU, "n0", INS(x), a);
	node(g, OP_RESHAPE, "n1", INS(a), y);
	node(g, OP_TANH, "n2", INS(x), b);
	node(g, OP_TANH, "n3", INS(b), c);
	node(g, OP_TANH, "n4", INS(c), z);
	plan_ok(g);
	cr_assert_eq(y->alias, a);
	cr_assert(!ranges_overlap(a->offset, padded(a), b->offset, padded(b)));
	cr_assert(!ranges_overlap(a->offset, padded(a), c->offset, padded(c)));
	ir_graph_free(g);
}

Test(plan_memory, view_of_a_graph_input_aliases_it)
{
	struct graph *g = graph_new(13);
	struct tensor *x = input(g, act(g, "x", SHAPE(2, 3)));
	struct tensor *v = act(g, "v", SHAPE(6));
	struct tensor *y = output(g, act(g, "y", SHAPE(6)));
	node(g, OP_FLATTEN, "fl", INS(x), v);
	node(g, OP_RELU, "relu", INS(v), y);
	plan_ok(g);
	cr_assert_eq(v->alias, x);
	cr_assert_eq(g->arena_size, 0);
	ir_graph_free(g);
}

/* A random DAG of n_nodes nodes over float vectors of random lengths: unary,
 * binary and ternary compute nodes reading earlier tensors (often recent
 * ones), views of earlier tensors, and a few graph outputs. */
static struct graph *random_dag(uint64_t seed, int n_nodes)
{
	uint64_t s = seed * 0x9e3779b97f4a7c15ull + 1;
	struct graph *g = graph_new(13);
	struct tensor **ts = xcalloc((size_t)n_nodes + 2, sizeof *ts);
	int n_ts = 0;
	ts[n_ts++] = input(g, act(g, "x", SHAPE(1 + rng_int(&s, 300))));
	if (rng_int(&s, 2))
		ts[n_ts++] = input(g, act(g, "x2", SHAPE(1 + rng_int(&s, 300))));
	for (int i = 0; i < n_nodes; i++) {
		struct tensor *in[3];
		int k = 1 + rng_int(&s, 3);
		for (int j = 0; j < k; j++) {
			int back = rng_int(&s, 3) ? rng_int(&s, n_ts < 4 ? n_ts : 4)
			                          : rng_int(&s, n_ts);
			in[j] = ts[n_ts - 1 - back];
		}
		int view = rng_int(&s, 5) == 0;
		int64_t len = view ? ir_numel(in[0]) : 1 + rng_int(&s, 2000);
		struct tensor *out = act(g, "t", 1, &len);
		if (view)
			node(g, rng_int(&s, 2) ? OP_RESHAPE : OP_FLATTEN, NULL, 1, in, out);
		else
			node(g, k == 1 ? OP_RELU : k == 2 ? OP_ADD : OP_CONCAT, NULL, k, in, out);
		ts[n_ts++] = out;
	}
	output(g, ts[n_ts - 1]);
	int extra = rng_int(&s, 4);
	for (int j = 0; j < extra; j++) {
		struct tensor *t = ts[rng_int(&s, n_ts - 1)];
		int dup = t->is_input;
		for (int k = 0; k < g->n_outputs; k++)
			dup |= g->outputs[k] == t;
		if (!dup)
			output(g, t);
	}
	free(ts);
	return g;
}

static int is_outside(const struct graph *g, const struct tensor *t)
{
	if (t->data)
		return 1;
	for (int k = 0; k < g->n_inputs; k++)
		if (g->inputs[k] == t)
			return 1;
	for (int k = 0; k < g->n_outputs; k++)
		if (g->outputs[k] == t)
			return 1;
	return 0;
}

static const struct tensor *root(const struct tensor *t)
{
	return t->alias ? t->alias : t;
}

/* Checks a plan two ways. Pairwise: lifetimes computed here from scratch
 * (writer to last reader of the tensor or a view of it; to the end for
 * what a graph output views) never overlap where bytes do. By simulation:
 * run the graph, recording which tensor owns each 64-byte granule; every read
 * must find its data still there, and the graph outputs' viewed roots must
 * survive to the end. */
static void check_plan(const struct graph *g)
{
	int nt = g->n_tensors;
	int *first = malloc((size_t)nt * sizeof *first), *last = malloc((size_t)nt * sizeof *last);
	for (int i = 0; i < nt; i++)
		first[i] = last[i] = -1;
	for (int i = 0; i < g->n_nodes; i++) {
		const struct node *n = g->nodes[i];
		int view = n->op == OP_RESHAPE || n->op == OP_FLATTEN;
		const struct tensor *o = n->outputs[0];
		if (view) {
			cr_assert_eq(o->alias, root(n->inputs[0]), "view %s", o->name);
			cr_assert_null(root(n->inputs[0])->alias);
		} else {
			cr_assert_null(o->alias);
			first[o->index] = i;
			last[o->index] = i;
		}
		for (int k = 0; k < n->n_inputs; k++)
			last[root(n->inputs[k])->index] = i;
	}
	for (int k = 0; k < g->n_outputs; k++)
		if (g->outputs[k]->alias)
			last[g->outputs[k]->alias->index] = g->n_nodes;

	for (int i = 0; i < nt; i++) {
		const struct tensor *a = g->tensors[i];
		if (is_outside(g, a) || a->alias)
			continue;
		cr_assert_eq(a->offset % 64, 0);
		cr_assert_leq(a->offset + padded(a), g->arena_size);
		for (int j = i + 1; j < nt; j++) {
			const struct tensor *b = g->tensors[j];
			if (is_outside(g, b) || b->alias)
				continue;
			if (first[i] <= last[j] && first[j] <= last[i])
				cr_assert(!ranges_overlap(a->offset, padded(a), b->offset, padded(b)),
				          "'%s' [%d,%d] @%zu+%zu and '%s' [%d,%d] @%zu+%zu overlap", a->name,
				          first[i], last[i], a->offset, padded(a), b->name, first[j],
				          last[j], b->offset, padded(b));
		}
	}

	size_t n_gran = g->arena_size / 64;
	int *owner = malloc((n_gran ? n_gran : 1) * sizeof *owner);
	for (size_t q = 0; q < n_gran; q++)
		owner[q] = -1;
	for (int i = 0; i < g->n_nodes; i++) {
		const struct node *n = g->nodes[i];
		const struct tensor *o = n->outputs[0];
		if (!o->alias && !is_outside(g, o))
			for (size_t q = o->offset / 64; q < (o->offset + padded(o)) / 64; q++)
				owner[q] = o->index;
		for (int k = 0; k < n->n_inputs; k++) {
			const struct tensor *r = root(n->inputs[k]);
			if (is_outside(g, r))
				continue;
			for (size_t q = r->offset / 64; q < (r->offset + padded(r)) / 64; q++)
				cr_assert_eq(owner[q], r->index, "node %d reads '%s' after it was clobbered",
				             i, r->name);
		}
	}
	for (int k = 0; k < g->n_outputs; k++) {
		const struct tensor *r = root(g->outputs[k]);
		if (is_outside(g, r))
			continue;
		for (size_t q = r->offset / 64; q < (r->offset + padded(r)) / 64; q++)
			cr_assert_eq(owner[q], r->index, "output view of '%s' clobbered", r->name);
	}
	free(owner);
	free(first);
	free(last);
}

Test(plan_memory, random_dags_never_overlap_live_tensors)
{
	for (uint64_t seed = 1; seed <= 300; seed++) {
		struct graph *g = random_dag(seed, 20 + (int)(seed % 41));
		plan_ok(g);
		check_plan(g);
		/* Sharing happened: the arena is no larger than everything side by side. */
		size_t sum = 0;
		for (int i = 0; i < g->n_tensors; i++)
			if (!is_outside(g, g->tensors[i]) && !g->tensors[i]->alias)
				sum += padded(g->tensors[i]);
		cr_assert_leq(g->arena_size, sum);
		/* Planning again gives the same plan. */
		size_t size = g->arena_size;
		size_t *offsets = malloc((size_t)g->n_tensors * sizeof *offsets);
		for (int i = 0; i < g->n_tensors; i++)
			offsets[i] = g->tensors[i]->offset;
		plan_ok(g);
		cr_assert_eq(g->arena_size, size);
		for (int i = 0; i < g->n_tensors; i++)
			cr_assert_eq(g->tensors[i]->offset, offsets[i]);
		free(offsets);
		ir_graph_free(g);
	}
}

Test(plan_memory, canonical_graph_end_to_end)
{
	/* conv -> bn -> relu -> reshape -> gemm: canonicalize, then plan. */
	struct bn_case k;
	bn_case_fill(&k, 41);
	struct node *bn;
	struct graph *g = conv_bn_graph(&k, 1, &bn);
	struct tensor *y = ir_find_tensor(g, "y");
	y->is_output = 0;
	struct tensor *r = act(g, "r", SHAPE(1, 3, 5, 5));
	struct tensor *f = act(g, "f", SHAPE(1, 75));
	struct tensor *z = act(g, "z", SHAPE(1, 2));
	g->outputs[0] = z;
	z->is_output = 1;
	static float wfc[150];
	node(g, OP_RELU, "relu", INS(y), r);
	node(g, OP_FLATTEN, "flat", INS(r), f);
	node(g, OP_GEMM, "fc", INS(f, cst(g, "Wfc", wfc, SHAPE(75, 2))), z);
	canonicalize_ok(g);
	cr_assert_eq(g->n_nodes, 3);
	plan_ok(g);
	cr_assert_eq(f->alias, r);
	cr_assert_eq(r->producer->op, OP_CONV);
	cr_assert_eq(g->arena_size, padded(r));
	check_plan(g);
	ir_graph_free(g);
}

/* ---- elementwise math, reductions, normalisations (issue 11) ------------------- */

Test(canonicalize, variadic_mean_becomes_sum_chain_and_div)
{
	struct graph *g = graph_new(13);
	struct tensor *a = input(g, act(g, "a", SHAPE(2, 3)));
	struct tensor *b = input(g, act(g, "b", SHAPE(3)));
	struct tensor *c = input(g, act(g, "c", SHAPE(2, 1)));
	struct tensor *y = output(g, act(g, "y", SHAPE(2, 3)));
	node(g, OP_MEAN, "mean", INS(a, b, c), y);
	canonicalize_ok(g);
	cr_assert_eq(count_op(g, OP_MEAN), 0);
	cr_assert_eq(count_op(g, OP_SUM), 2);
	struct node *div = find_op(g, OP_DIV);
	cr_assert_not_null(div);
	cr_assert_eq(div->outputs[0], y);
	cr_assert_eq(div->inputs[0]->producer->op, OP_SUM);
	cr_assert_eq(ir_numel(div->inputs[1]), 1);
	cr_assert_float_eq(((const float *)div->inputs[1]->data)[0], 3.0f, 0.0f);
	for (int i = 0; i < g->n_nodes; i++)
		cr_assert_eq(g->nodes[i]->n_inputs, 2, "node %s", g->nodes[i]->name);
	ir_graph_free(g);
}

Test(canonicalize, variadic_max_of_one_input_is_dropped)
{
	struct graph *g = graph_new(13);
	struct tensor *a = input(g, act(g, "a", SHAPE(4)));
	struct tensor *m = act(g, "m", SHAPE(4)), *y = output(g, act(g, "y", SHAPE(4)));
	node(g, OP_MAX, "max", INS(a), m);
	node(g, OP_RELU, "relu", INS(m), y);
	canonicalize_ok(g);
	cr_assert_eq(count_op(g, OP_MAX), 0);
	cr_assert_eq(find_op(g, OP_RELU)->inputs[0], a);
	ir_graph_free(g);
}

Test(canonicalize, reduce_axes_input_becomes_sorted_attribute)
{
	struct graph *g = graph_new(18);
	static const int64_t axes[2] = {-1, 0};
	struct tensor *x = input(g, act(g, "x", SHAPE(2, 3, 4)));
	struct tensor *y = output(g, act(g, "y", SHAPE(1, 3, 1)));
	struct node *n = node(g, OP_REDUCE_L2, "l2", INS(x, cst_i64(g, "axes", axes, SHAPE(2))), y);
	canonicalize_ok(g);
	cr_assert_eq(n->n_inputs, 1);
	struct attr *a = ir_attr(n, "axes");
	cr_assert_not_null(a);
	cr_assert_eq(a->n, 2);
	cr_assert_eq(a->ints[0], 0);
	cr_assert_eq(a->ints[1], 2);
	cr_assert_eq(ir_attr_int(n, "keepdims", -1), 1);
	ir_graph_free(g);
}

Test(canonicalize, reduce_without_axes_reduces_all)
{
	struct graph *g = graph_new(13);
	struct tensor *x = input(g, act(g, "x", SHAPE(2, 3)));
	struct tensor *y = output(g, act(g, "y", SHAPE(0)));
	y->rank = 0;
	struct node *n = node(g, OP_REDUCE_MAX, "max", INS(x), y);
	set_int(g, n, "keepdims", 0);
	canonicalize_ok(g);
	struct attr *a = ir_attr(n, "axes");
	cr_assert_not_null(a);
	cr_assert_eq(a->n, 2);
	cr_assert_eq(ir_attr_int(n, "keepdims", -1), 0);
	ir_graph_free(g);
}

Test(canonicalize, gelu_unknown_approximation_refused)
{
	struct graph *g = graph_new(20);
	struct tensor *x = input(g, act(g, "x", SHAPE(4)));
	struct tensor *y = output(g, act(g, "y", SHAPE(4)));
	struct node *n = node(g, OP_GELU, "gelu", INS(x), y);
	set_string(g, n, "approximate", "sigmoid");
	char *msg = canonicalize_fails(g, NULL);
	cr_assert(strstr(msg, "node 'gelu' (Gelu): approximate is 'sigmoid'"), "%s", msg);
	free(msg);
	ir_graph_free(g);
}

Test(canonicalize, math_defaults_filled)
{
	struct graph *g = graph_new(13);
	struct tensor *x = input(g, act(g, "x", SHAPE(4)));
	struct tensor *y = output(g, act(g, "y", SHAPE(4)));
	struct node *n = node(g, OP_SELU, "selu", INS(x), y);
	canonicalize_ok(g);
	cr_assert_float_eq(ir_attr_float(n, "alpha", 0), 1.67326319217681884765625, 1e-12);
	cr_assert_float_eq(ir_attr_float(n, "gamma", 0), 1.05070102214813232421875, 1e-12);
	ir_graph_free(g);
}

Test(canonicalize, layer_norm_mean_output_computed_by_reduce_mean)
{
	struct graph *g = graph_new(17);
	static const float s[4] = {1, 2, 3, 4};
	struct tensor *x = input(g, act(g, "x", SHAPE(3, 4)));
	struct tensor *y = output(g, act(g, "y", SHAPE(3, 4)));
	struct tensor *mean = output(g, act(g, "mean", SHAPE(3, 1)));
	struct tensor *outs[3] = {y, mean, NULL};
	struct tensor *ins[2] = {x, cst(g, "scale", s, SHAPE(4))};
	struct node *n = ir_add_node(g, OP_LAYER_NORM, "ln", 2, ins, 3, outs);
	canonicalize_ok(g);
	cr_assert_eq(n->n_outputs, 1);
	struct node *r = find_op(g, OP_REDUCE_MEAN);
	cr_assert_not_null(r);
	cr_assert_eq(r->outputs[0], mean);
	cr_assert_eq(r->inputs[0], x);
	cr_assert_eq(count_op(g, OP_RECIPROCAL), 0); /* InvStdDev is not read */
	ir_graph_free(g);
}

/* --max-arena and --max-weights as plan_memory sees them, after selection:
 * a workspace over the arena limit names its node and primitive; weights
 * over the limit are counted as selection stored them; both pass when the
 * limit is raised. */
static int plan_limited(struct graph *g, uint64_t max_arena, uint64_t max_weights, char **msgs)
{
	struct options opt = {0};
	opt.max_arena = max_arena;
	opt.max_weights = max_weights;
	struct capture c;
	capture_open(&c);
	int rc = pass_plan_memory(g, &opt, &c.d);
	*msgs = strdup(capture_text(&c));
	capture_close(&c);
	return rc;
}

static struct graph *relu_with_workspace(size_t ws_bytes)
{
	struct graph *g = graph_new(13);
	struct tensor *x = input(g, act(g, "x", SHAPE(256)));
	struct tensor *y = output(g, act(g, "y", SHAPE(256)));
	struct node *n = node(g, OP_RELU, "r", INS(x), y);
	n->primitive = "some_primitive";
	n->ws_bytes = ws_bytes;
	return g;
}

Test(plan_memory, workspace_over_the_arena_limit)
{
	struct graph *g = relu_with_workspace((3u << 20) / 2);
	char *msgs;
	cr_assert_eq(plan_limited(g, 1u << 20, 0, &msgs), 1);
	cr_assert(strstr(msgs, "m.onnx: node 'r' (Relu): the workspace of some_primitive needs "
	                       "1572864 bytes, over the arena limit of 1048576 bytes"),
	          "%s", msgs);
	free(msgs);
	cr_assert_eq(plan_limited(g, 2u << 20, 0, &msgs), 0, "%s", msgs);
	cr_assert_eq(g->arena_size, (3u << 20) / 2);
	free(msgs);
	ir_graph_free(g);
}

Test(plan_memory, weights_over_the_limit)
{
	static float w[300000];
	struct graph *g = graph_new(13);
	struct tensor *x = input(g, act(g, "x", SHAPE(300000)));
	struct tensor *y = output(g, act(g, "y", SHAPE(300000)));
	node(g, OP_ADD, "add", INS(x, cst(g, "w", w, SHAPE(300000))), y);
	char *msgs;
	cr_assert_eq(plan_limited(g, 0, 1u << 20, &msgs), 1);
	cr_assert(strstr(msgs, "m.onnx: the weights take 1200000 bytes as the selected primitives "
	                       "store them, over the limit of 1048576 bytes"),
	          "%s", msgs);
	free(msgs);
	cr_assert_eq(plan_limited(g, 0, 2u << 20, &msgs), 0, "%s", msgs);
	free(msgs);
	ir_graph_free(g);
}

/* Slice on an activation keeps one input; starts become the x index of y's
 * first element on every axis (clamped, negative ones counted from the back)
 * and steps cover every axis, 1 where not sliced. */
Test(canonicalize, slice_becomes_full_rank_starts_and_steps)
{
	struct graph *g = graph_new(13);
	static const int64_t starts[2] = {-1, 9}, ends[2] = {0, -100}, axes[2] = {2, 0},
	                     steps[2] = {-2, -1};
	struct tensor *x = input(g, act(g, "x", SHAPE(3, 4, 5)));
	/* axis 2: 4, 2 (ends 0 exclusive); axis 0: 9 clamps to 2, down to -1: 2, 1, 0 */
	struct tensor *y = output(g, act(g, "y", SHAPE(3, 4, 2)));
	struct node *n = node(g, OP_SLICE, "s",
	                      INS(x, cst_i64(g, "b", starts, SHAPE(2)), cst_i64(g, "e", ends, SHAPE(2)),
	                          cst_i64(g, "a", axes, SHAPE(2)), cst_i64(g, "t", steps, SHAPE(2))),
	                      y);
	canonicalize_ok(g);
	cr_assert_eq(n->n_inputs, 1);
	assert_ints(n, "starts", 3, (const int64_t[]){2, 0, 4});
	assert_ints(n, "steps", 3, (const int64_t[]){-1, 1, -2});
	ir_graph_free(g);
}

Test(canonicalize, slice_with_computed_starts_refused)
{
	struct graph *g = graph_new(13);
	static const int64_t ends[1] = {2};
	struct tensor *x = input(g, act(g, "x", SHAPE(4)));
	struct tensor *b = input(g, typed(g, "b", DTYPE_I64, SHAPE(1)));
	struct tensor *y = output(g, act(g, "y", SHAPE(2)));
	node(g, OP_SLICE, "s", INS(x, b, cst_i64(g, "e", ends, SHAPE(1))), y);
	char *msg = canonicalize_fails(g, NULL);
	cr_assert(strstr(msg, "node 's' (Slice): starts 'b' must be a constant"), "%s", msg);
	free(msg);
	ir_graph_free(g);
}

/* Split becomes one canonical Slice per output, at the running offset along
 * the (negative) axis; infer_shapes gives the parts from the split input. */
Test(canonicalize, split_becomes_slices)
{
	struct graph *g = graph_new(13);
	static const int64_t split[3] = {1, 3, 2};
	struct tensor *x = input(g, act(g, "x", SHAPE(2, 6)));
	struct tensor *y[3];
	for (int i = 0; i < 3; i++) {
		char nm[8];
		snprintf(nm, sizeof nm, "y%d", i);
		y[i] = output(g, act(g, nm, SHAPE(2, 1)));
	}
	struct node *n = ir_add_node(g, OP_SPLIT, "sp", 2,
	                             (struct tensor *[]){x, cst_i64(g, "s", split, SHAPE(3))}, 3, y);
	set_int(g, n, "axis", -1);
	struct options opt = {0};
	struct diag d;
	diag_init(&d, "m.onnx", stderr);
	cr_assert_eq(pass_infer_shapes(g, &opt, &d), 0);
	assert_dims(y[1], 2, (const int64_t[]){2, 3});
	canonicalize_ok(g);
	cr_assert_eq(count_op(g, OP_SPLIT), 0);
	cr_assert_eq(count_op(g, OP_SLICE), 3);
	static const int64_t want0[2] = {0, 0}, want1[2] = {0, 1}, want2[2] = {0, 4};
	const int64_t *const want[3] = {want0, want1, want2};
	for (int i = 0; i < 3; i++) {
		struct node *s = y[i]->producer;
		cr_assert_eq(s->op, OP_SLICE);
		cr_assert_eq(s->n_inputs, 1);
		cr_assert_eq(s->inputs[0], x);
		assert_ints(s, "starts", 2, want[i]);
		assert_ints(s, "steps", 2, (const int64_t[]){1, 1});
	}
	ir_graph_free(g);
}

/* DepthToSpace's mode is written back (DCR by default); others are refused. */
Test(canonicalize, depth_to_space_mode)
{
	struct graph *g = graph_new(13);
	struct tensor *x = input(g, act(g, "x", SHAPE(1, 8, 2, 3)));
	struct tensor *y = output(g, act(g, "y", SHAPE(1, 2, 4, 6)));
	struct node *n = node(g, OP_DEPTH_TO_SPACE, "d2s", INS(x), y);
	set_int(g, n, "blocksize", 2);
	canonicalize_ok(g);
	cr_assert_str_eq(ir_attr_string(n, "mode", ""), "DCR");
	ir_graph_free(g);

	g = graph_new(13);
	x = input(g, act(g, "x", SHAPE(1, 8, 2, 3)));
	y = output(g, act(g, "y", SHAPE(1, 2, 4, 6)));
	n = node(g, OP_DEPTH_TO_SPACE, "d2s", INS(x), y);
	set_int(g, n, "blocksize", 2);
	set_string(g, n, "mode", "RCD");
	char *msg = canonicalize_fails(g, NULL);
	cr_assert(strstr(msg, "node 'd2s' (DepthToSpace): DepthToSpace mode 'RCD' is not supported"),
	          "%s", msg);
	free(msg);
	ir_graph_free(g);
}

/* Resize: an unknown mode is refused with the node named; nearest with sizes
 * keeps one input and spells out the scales y / x and the default modes;
 * cubic, and a resize of the third-last dim, also get scale_d and the cubic
 * parameters (resize3d.c's cases). */
Test(canonicalize, resize_modes_spelled_out)
{
	struct graph *g = graph_new(13);
	static const int64_t sizes[4] = {1, 2, 6, 3};
	struct tensor *x = input(g, act(g, "x", SHAPE(1, 2, 4, 4)));
	struct tensor *y = output(g, act(g, "y", SHAPE(1, 2, 6, 3)));
	static const float none[1];
	struct tensor *e = cst(g, "e", none, SHAPE(0));
	struct node *n = node(g, OP_RESIZE, "rs", INS(x, e, e, cst_i64(g, "sz", sizes, SHAPE(4))), y);
	canonicalize_ok(g);
	cr_assert_eq(n->n_inputs, 1);
	cr_assert_str_eq(ir_attr_string(n, "coordinate_transformation_mode", ""), "half_pixel");
	cr_assert_str_eq(ir_attr_string(n, "nearest_mode", ""), "round_prefer_floor");
	cr_assert_float_eq(ir_attr_float(n, "scale_h", 0), 1.5, 1e-12);
	cr_assert_float_eq(ir_attr_float(n, "scale_w", 0), 0.75, 1e-12);
	cr_assert_null(ir_attr(n, "scale_d"));
	ir_graph_free(g);

	g = graph_new(13);
	x = input(g, act(g, "x", SHAPE(1, 2, 4, 4)));
	y = output(g, act(g, "y", SHAPE(1, 2, 6, 3)));
	n = node(g, OP_RESIZE, "rs", INS(x, NULL, NULL, cst_i64(g, "sz", sizes, SHAPE(4))), y);
	set_string(g, n, "mode", "lanczos");
	char *msg = canonicalize_fails(g, NULL);
	cr_assert(strstr(msg, "node 'rs' (Resize): Resize mode 'lanczos' is not supported"), "%s",
	          msg);
	free(msg);
	ir_graph_free(g);

	g = graph_new(13);
	x = input(g, act(g, "x", SHAPE(1, 2, 4, 4)));
	y = output(g, act(g, "y", SHAPE(1, 2, 6, 3)));
	n = node(g, OP_RESIZE, "rs", INS(x, NULL, NULL, cst_i64(g, "sz", sizes, SHAPE(4))), y);
	set_string(g, n, "mode", "cubic");
	canonicalize_ok(g);
	cr_assert_float_eq(ir_attr_float(n, "scale_d", 0), 1.0, 1e-12);
	cr_assert_float_eq(ir_attr_float(n, "cubic_coeff_a", 0), -0.75, 1e-12);
	cr_assert_eq(ir_attr_int(n, "exclude_outside", -1), 0);
	ir_graph_free(g);

	static const int64_t sizes3[5] = {1, 2, 8, 6, 3};
	g = graph_new(13);
	x = input(g, act(g, "x", SHAPE(1, 2, 4, 4, 4)));
	y = output(g, act(g, "y", SHAPE(1, 2, 8, 6, 3)));
	n = node(g, OP_RESIZE, "rs", INS(x, NULL, NULL, cst_i64(g, "sz", sizes3, SHAPE(5))), y);
	set_string(g, n, "mode", "linear");
	canonicalize_ok(g);
	cr_assert_float_eq(ir_attr_float(n, "scale_d", 0), 2.0, 1e-12);
	cr_assert_float_eq(ir_attr_float(n, "scale_h", 0), 1.5, 1e-12);
	ir_graph_free(g);
}
