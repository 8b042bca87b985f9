/* test_train.c - unit tests of training (dnncc --train).
 *
 * Gradient checks: every backward rule the autodiff pass emits is run with
 * the float kernels generated code uses (train_ops.c, and rt_sgemm with the
 * strides of the gradient Gemm nodes) and compared with central finite
 * differences of a double-precision forward pass, on the scalar
 * L = sum_i r_i f(x)_i for a fixed random r (so dL/dx = J^T r), or on the
 * loss itself for the loss nodes. Tolerance: relative 1e-3 of the largest
 * gradient, or absolute 1e-5 (the kernels compute in float).
 *
 * Pass tests: build tiny graphs in C, run pass_train_check and pass_autodiff,
 * assert on the nodes appended (which gradient GEMMs with which transposes,
 * bias gradients, optimizer steps) and on the refusals. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ir/ir.h"
#include "passes/passes.h"
#include "passes/train.h"
#include "runtime/rt_types.h"
#include "runtime/sgemm.h"
#include "runtime/train_rt.h"

/* ---- helpers ------------------------------------------------------------------ */

static uint64_t rng = 88172645463325252ull;
static double urand(void) /* in [-1, 1) */
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return (double)(rng >> 11) / 4503599627370496.0 - 1.0;
}

static void fill(double *d, float *f, size_t n, double scale)
{
	for (size_t i = 0; i < n; i++) {
		f[i] = (float)(urand() * scale);
		d[i] = f[i];
	}
}

/* Compares got[n] (float kernel) with want[n] (finite differences). */
static void expect_close(const char *what, const float *got, const double *want, size_t n)
{
	double peak = 0.0, worst = 0.0;
	size_t at = 0;
	for (size_t i = 0; i < n; i++)
		peak = fmax(peak, fabs(want[i]));
	for (size_t i = 0; i < n; i++) {
		double e = fabs((double)got[i] - want[i]);
		if (e > worst) {
			worst = e;
			at = i;
		}
	}
	cr_expect(worst <= fmax(1e-3 * peak, 1e-5),
	          "%s: element %zu: kernel %.9g, finite differences %.9g (peak %.3g)", what, at,
	          (double)got[at], want[at], peak);
}

/* Central differences of a scalar function of v[n] (double), into grad[n]. */
typedef double (*scalar_fn)(const double *v, void *ctx);
static void numeric_grad(scalar_fn f, double *v, size_t n, void *ctx, double *grad)
{
	const double h = 1e-6;
	for (size_t i = 0; i < n; i++) {
		double keep = v[i];
		v[i] = keep + h;
		double up = f(v, ctx);
		v[i] = keep - h;
		double down = f(v, ctx);
		v[i] = keep;
		grad[i] = (up - down) / (2 * h);
	}
}

/* ---- activations -------------------------------------------------------------- */

struct act_ctx {
	int act;
	size_t n;
	const double *r;
};

static double act_d(int act, double x)
{
	if (act == RT_ACT_RELU)
		return x > 0 ? x : 0;
	if (act == RT_ACT_SIGMOID)
		return 1 / (1 + exp(-x));
	return tanh(x);
}

static double act_loss(const double *x, void *p)
{
	struct act_ctx *c = p;
	double s = 0;
	for (size_t i = 0; i < c->n; i++)
		s += c->r[i] * act_d(c->act, x[i]);
	return s;
}

static void check_act(int act, const char *name)
{
	enum { N = 97 };
	double xd[N], rd[N], want[N];
	float x[N], r[N], y[N], dx[N];
	fill(xd, x, N, 3.0);
	fill(rd, r, N, 1.0);
	if (act == RT_ACT_RELU) /* keep clear of the kink, where differences are meaningless */
		for (int i = 0; i < N; i++)
			if (fabs(xd[i]) < 1e-3)
				xd[i] = x[i] = 0.5f;
	rt_train_act(act, N, x, y);
	for (int i = 0; i < N; i++)
		cr_expect(fabs(y[i] - act_d(act, xd[i])) < 1e-6, "%s forward at %d", name, i);
	rt_train_act_grad(act, N, y, r, dx);
	struct act_ctx c = {act, N, rd};
	numeric_grad(act_loss, xd, N, &c, want);
	expect_close(name, dx, want, N);
}

Test(grad, relu) { check_act(RT_ACT_RELU, "Relu"); }
Test(grad, sigmoid) { check_act(RT_ACT_SIGMOID, "Sigmoid"); }
Test(grad, tanh) { check_act(RT_ACT_TANH, "Tanh"); }

/* ---- softmax ------------------------------------------------------------------ */

enum { SB = 5, SN = 7 };

static void softmax_d(const double *x, double *y)
{
	for (int b = 0; b < SB; b++) {
		double mx = x[b * SN], s = 0;
		for (int j = 1; j < SN; j++)
			mx = fmax(mx, x[b * SN + j]);
		for (int j = 0; j < SN; j++)
			s += exp(x[b * SN + j] - mx);
		for (int j = 0; j < SN; j++)
			y[b * SN + j] = exp(x[b * SN + j] - mx) / s;
	}
}

static double softmax_loss(const double *x, void *p)
{
	const double *r = p;
	double y[SB * SN], s = 0;
	softmax_d(x, y);
	for (int i = 0; i < SB * SN; i++)
		s += r[i] * y[i];
	return s;
}

Test(grad, softmax)
{
	double xd[SB * SN], rd[SB * SN], want[SB * SN];
	float x[SB * SN], r[SB * SN], y[SB * SN], dx[SB * SN];
	fill(xd, x, SB * SN, 4.0);
	fill(rd, r, SB * SN, 1.0);
	rt_train_softmax(SB, SN, x, y);
	rt_train_softmax_grad(SB, SN, y, r, dx);
	numeric_grad(softmax_loss, xd, SB * SN, rd, want);
	expect_close("Softmax", dx, want, SB * SN);
}

static const int ce_labels[SB] = {3, 0, 6, 6, 1};

static double ce_loss(const double *z, void *p)
{
	(void)p;
	double y[SB * SN], s = 0;
	softmax_d(z, y);
	for (int b = 0; b < SB; b++)
		s -= log(y[b * SN + ce_labels[b]]);
	return s / SB;
}

Test(grad, softmax_cross_entropy)
{
	double zd[SB * SN], want[SB * SN];
	float z[SB * SN], dz[SB * SN];
	fill(zd, z, SB * SN, 5.0);
	float loss = rt_train_softmax_ce(SB, SN, z, ce_labels, dz);
	cr_expect(fabs(loss - ce_loss(zd, NULL)) < 1e-5, "loss %.9g, want %.9g", (double)loss,
	          ce_loss(zd, NULL));
	numeric_grad(ce_loss, zd, SB * SN, NULL, want);
	expect_close("SoftmaxCrossEntropy", dz, want, SB * SN);
}

static double mse_loss(const double *y, void *p)
{
	const double *t = p;
	double s = 0;
	for (int i = 0; i < SB * SN; i++)
		s += (y[i] - t[i]) * (y[i] - t[i]);
	return s / (SB * SN);
}

Test(grad, mean_squared_error)
{
	double yd[SB * SN], td[SB * SN], want[SB * SN];
	float y[SB * SN], t[SB * SN], dy[SB * SN];
	fill(yd, y, SB * SN, 2.0);
	fill(td, t, SB * SN, 2.0);
	float loss = rt_train_mse(SB, SN, y, t, dy);
	cr_expect(fabs(loss - mse_loss(yd, td)) < 1e-5);
	numeric_grad(mse_loss, yd, SB * SN, td, want);
	expect_close("MeanSquaredError", dy, want, SB * SN);
}

/* ---- the fully-connected layer: Y = X op(W) + b ----------------------------------- */

enum { LB = 6, LK = 13, LN = 9 };

struct lin_ctx {
	int transB;
	const double *x, *w, *b, *r; /* the operands not being differentiated */
	int which;                   /* 0: d/dX, 1: d/dW, 2: d/db */
};

static double lin_loss(const double *v, void *p)
{
	struct lin_ctx *c = p;
	const double *x = c->which == 0 ? v : c->x, *w = c->which == 1 ? v : c->w;
	const double *b = c->which == 2 ? v : c->b;
	double s = 0;
	for (int i = 0; i < LB; i++)
		for (int j = 0; j < LN; j++) {
			double y = b[j];
			for (int k = 0; k < LK; k++)
				y += x[i * LK + k] * (c->transB ? w[j * LK + k] : w[k * LN + j]);
			s += c->r[i * LN + j] * y;
		}
	return s;
}

/* Runs a gradient Gemm node as the emitter does (train_gemm_dims strides). */
static void run_gemm(int ta, int tb, int M, int N, int K, const float *a, const float *b, float *c)
{
	static unsigned char ws[1 << 22];
	rt_sgemm(rt_sgemm_isa_host(), M, N, K, a, ta ? 1 : K, ta ? M : 1, NULL, b, tb ? 1 : N,
	         tb ? K : 1, c, N, 0, ws);
}

static void check_linear(int transB)
{
	double xd[LB * LK], wd[LK * LN], bd[LN], rd[LB * LN], want[LK * LN];
	float x[LB * LK], w[LK * LN], bias[LN], r[LB * LN], dx[LB * LK], dw[LK * LN], db[LN];
	fill(xd, x, LB * LK, 1.0);
	fill(wd, w, LK * LN, 1.0);
	fill(bd, bias, LN, 1.0);
	fill(rd, r, LB * LN, 1.0);
	/* The rules of autodiff.c's grad_node for Gemm: dX = dY op(W)^T, i.e.
	 * Gemm(dY, W, transB = !transB); dW = transB ? dY^T X : X^T dY (transA = 1). */
	run_gemm(0, !transB, LB, LK, LN, r, w, dx);
	if (transB)
		run_gemm(1, 0, LN, LK, LB, r, x, dw);
	else
		run_gemm(1, 0, LK, LN, LB, x, r, dw);
	rt_train_bias_grad(LB, LN, r, db);
	struct lin_ctx c = {transB, xd, wd, bd, rd, 0};
	numeric_grad(lin_loss, xd, LB * LK, &c, want);
	expect_close(transB ? "Gemm transB=1 dX" : "Gemm transB=0 dX", dx, want, LB * LK);
	c.which = 1;
	numeric_grad(lin_loss, wd, LK * LN, &c, want);
	expect_close(transB ? "Gemm transB=1 dW" : "Gemm transB=0 dW", dw, want, LK * LN);
	c.which = 2;
	numeric_grad(lin_loss, bd, LN, &c, want);
	expect_close("bias", db, want, LN);
	/* and the forward: sgemm + bias_add against the double reference */
	float y[LB * LN];
	run_gemm(0, transB, LB, LN, LK, x, w, y);
	rt_train_bias_add(LB, LN, y, bias);
	for (int i = 0; i < LB; i++)
		for (int j = 0; j < LN; j++) {
			double ref = bd[j];
			for (int k = 0; k < LK; k++)
				ref += xd[i * LK + k] * (transB ? wd[j * LK + k] : wd[k * LN + j]);
			cr_expect(fabs(y[i * LN + j] - ref) < 1e-5, "forward (%d, %d)", i, j);
		}
}

Test(grad, gemm_transB) { check_linear(1); }
Test(grad, matmul) { check_linear(0); }

/* ---- the optimizers, against their update rules in double ---------------------------- */

Test(optimizer, adam_two_steps)
{
	enum { N = 33 };
	double pd[N], gd[N], md[N] = {0}, vd[N] = {0};
	float p[N], g[N], m[N] = {0}, v[N] = {0};
	fill(pd, p, N, 1.0);
	for (long t = 1; t <= 2; t++) {
		fill(gd, g, N, 1.0);
		rt_train_adam(N, p, g, m, v, 0.01f, 0.9f, 0.999f, 1e-8f, t);
		for (int i = 0; i < N; i++) {
			md[i] = 0.9 * md[i] + 0.1 * gd[i];
			vd[i] = 0.999 * vd[i] + 0.001 * gd[i] * gd[i];
			pd[i] -= 0.01 * (md[i] / (1 - pow(0.9, t))) /
			         (sqrt(vd[i] / (1 - pow(0.999, t))) + 1e-8);
		}
	}
	for (int i = 0; i < N; i++)
		cr_expect(fabs(p[i] - pd[i]) < 1e-6, "p[%d] = %.9g, want %.9g", i, (double)p[i], pd[i]);
}

Test(optimizer, momentum_two_steps)
{
	enum { N = 33 };
	double pd[N], gd[N], vd[N] = {0};
	float p[N], g[N], v[N] = {0};
	fill(pd, p, N, 1.0);
	for (int t = 0; t < 2; t++) {
		fill(gd, g, N, 1.0);
		rt_train_momentum(N, p, g, v, 0.1f, 0.9f);
		for (int i = 0; i < N; i++) {
			vd[i] = 0.9 * vd[i] + gd[i];
			pd[i] -= 0.1 * vd[i];
		}
	}
	for (int i = 0; i < N; i++)
		cr_expect(fabs(p[i] - pd[i]) < 1e-6);
}

/* ---- the passes ----------------------------------------------------------------------- */

static struct tensor *shaped(struct graph *g, const char *name, int rank, const int64_t *dims)
{
	struct tensor *t = ir_new_tensor(g, name, DTYPE_F32);
	ir_set_shape(t, rank, dims);
	return t;
}

static struct tensor *param(struct graph *g, const char *name, int rank, const int64_t *dims)
{
	int64_t n = 1;
	for (int i = 0; i < rank; i++)
		n *= dims[i];
	float *v = arena_alloc(&g->arena, (size_t)n * sizeof *v);
	return ir_new_constant(g, name, DTYPE_F32, rank, dims, v);
}

/* x [8, 4] -> Gemm(W1 [6, 4], b1, transB) -> Relu -> MatMul(W2 [6, 3]) -> Add(b2)
 * -> Softmax -> y [8, 3] */
static struct graph *mlp(int with_conv)
{
	struct graph *g = ir_graph_new("t.onnx");
	g->opset = 13;
	struct tensor *x = shaped(g, "x", 2, (int64_t[]){8, 4});
	x->is_input = 1;
	g->n_inputs = 1;
	g->inputs = arena_alloc(&g->arena, sizeof *g->inputs);
	g->inputs[0] = x;
	struct tensor *w1 = param(g, "W1", 2, (int64_t[]){6, 4}), *b1 = param(g, "b1", 1, (int64_t[]){6});
	struct tensor *h = shaped(g, "h", 2, (int64_t[]){8, 6}), *r = shaped(g, "r", 2, (int64_t[]){8, 6});
	struct node *n = ir_add_node(g, OP_GEMM, "fc1", 3, (struct tensor *[]){x, w1, b1}, 1, &h);
	ir_add_attr(g, n, "transB", ATTR_INT)->i = 1;
	ir_add_node(g, with_conv ? OP_CONV : OP_RELU, "act1", 1, &h, 1, &r);
	struct tensor *w2 = param(g, "W2", 2, (int64_t[]){6, 3}), *b2 = param(g, "b2", 1, (int64_t[]){3});
	struct tensor *z = shaped(g, "z", 2, (int64_t[]){8, 3}), *zb = shaped(g, "zb", 2, (int64_t[]){8, 3});
	struct tensor *y = shaped(g, "y", 2, (int64_t[]){8, 3});
	ir_add_node(g, OP_MATMUL, "fc2", 2, (struct tensor *[]){r, w2}, 1, &z);
	ir_add_node(g, OP_ADD, "bias2", 2, (struct tensor *[]){z, b2}, 1, &zb);
	ir_add_node(g, OP_SOFTMAX, "prob", 1, &zb, 1, &y);
	y->is_output = 1;
	g->n_outputs = 1;
	g->outputs = arena_alloc(&g->arena, sizeof *g->outputs);
	g->outputs[0] = y;
	return g;
}

static struct train_options topt = {.loss = TRAIN_LOSS_SOFTMAX_CE, .optimizer = TRAIN_OPT_SGD,
                                    .lr = 0.1, .batch = 8};

static int count_op(const struct graph *g, enum op op)
{
	int k = 0;
	for (int i = 0; i < g->n_nodes; i++)
		k += !g->nodes[i]->dead && g->nodes[i]->op == op;
	return k;
}

static int64_t attr_i(struct node *n, const char *name)
{
	return ir_attr_int(n, name, -1);
}

Test(autodiff, mlp_backward_graph)
{
	struct graph *g = mlp(0);
	struct options opt = {.train = &topt};
	struct diag d;
	diag_init(&d, "t.onnx", stderr);
	cr_assert_eq(pass_train_check(g, &opt, &d), 0);
	cr_assert_eq(pass_autodiff(g, &opt, &d), 0);
	cr_assert_eq(ir_verify(g, "autodiff", 1, &d), 0);
	/* forward 5, loss 1, Gemm: dW1 (no dX: x is the input); MatMul: dr, dW2;
	 * Add: db2 (dz is dzb itself); Relu: dh; Gemm: db1; 4 optimizer steps */
	cr_expect_eq(count_op(g, OP_SOFTMAX_CE), 1);
	cr_expect_eq(count_op(g, OP_GEMM), 1 + 3);
	cr_expect_eq(count_op(g, OP_BIAS_GRAD), 2);
	cr_expect_eq(count_op(g, OP_ACT_GRAD), 1);
	cr_expect_eq(count_op(g, OP_SOFTMAX_GRAD), 0, "softmax-ce absorbs the trailing Softmax");
	cr_expect_eq(count_op(g, OP_OPTIMIZER_STEP), 4);
	cr_expect_not_null(ir_attr(g->nodes[4], TRAIN_ATTR_INFER_ONLY));
	for (int i = 0; i < g->n_nodes; i++) {
		struct node *n = g->nodes[i];
		if (strcmp(n->name, "fc2/grad_A") == 0) {
			cr_expect_eq(attr_i(n, "transA"), 0);
			cr_expect_eq(attr_i(n, "transB"), 1, "dX = dY W^T for Y = X W");
		}
		if (strcmp(n->name, "fc2/grad_B") == 0) {
			cr_expect_eq(attr_i(n, "transA"), 1, "dW = X^T dY");
			cr_expect_str_eq(n->inputs[0]->name, "r");
		}
		if (strcmp(n->name, "fc1/grad_B") == 0)
			cr_expect_str_eq(n->inputs[1]->name, "x", "dW = dY^T X for Y = X W^T");
		cr_expect(strcmp(n->name, "fc1/grad_A") != 0, "no gradient for the input");
		if (n->op == OP_OPTIMIZER_STEP)
			cr_expect_eq(ir_numel(n->inputs[0]), ir_numel(n->inputs[1]));
	}
	cr_expect_str_eq(g->nodes[g->n_nodes - 4]->inputs[0]->name, "W1", "first-use order");
	ir_graph_free(g);
}

Test(autodiff, mse_keeps_softmax_gradient)
{
	struct graph *g = mlp(0);
	struct train_options to = topt;
	to.loss = TRAIN_LOSS_MSE;
	struct options opt = {.train = &to};
	struct diag d;
	diag_init(&d, "t.onnx", stderr);
	cr_assert_eq(pass_train_check(g, &opt, &d) + pass_autodiff(g, &opt, &d), 0);
	cr_expect_eq(count_op(g, OP_MSE), 1);
	cr_expect_eq(count_op(g, OP_SOFTMAX_GRAD), 1);
	ir_graph_free(g);
}

Test(autodiff, refuses_other_ops)
{
	struct graph *g = mlp(1);
	struct options opt = {.train = &topt};
	struct diag d;
	FILE *log = tmpfile();
	diag_init(&d, "t.onnx", log);
	cr_expect_eq(pass_train_check(g, &opt, &d), 1);
	rewind(log);
	char line[512] = "";
	cr_assert_not_null(fgets(line, sizeof line, log));
	cr_expect(strstr(line, "node 'act1' (Conv)") && strstr(line, "not supported"), "got: %s",
	          line);
	fclose(log);
	ir_graph_free(g);
}

/* ---- the CUDA trainer's pool schedule (train_pool.c), simulated ---------------------- */

/* Runs the ops on two simulated streams in a random interleaving that the
 * events allow (ops are atomic; a wait holds its stream until the event's
 * latest record issued before it has run). Returns 0 when every batch is
 * trained once, in order, from a pool holding its chunk; otherwise a code
 * saying what went wrong: 1 deadlock, 2 stale or overwritten pool data,
 * 3 batches out of order or missing. */
static int simulate(const struct rt_pool_op *ops, int n, int n_batches, uint64_t seed)
{
	static int target[8192], q[2][8192];
	int gen[4] = {0}, done[4] = {0}; /* events: copied[0..1], consumed[0..1] */
	int len[2] = {0}, head[2] = {0};
	cr_assert(n <= 8192);
	for (int i = 0; i < n; i++) {
		const int k = ops[i].kind;
		const int ev = (k == RT_POOL_WAIT_COPIED || k == RT_POOL_RECORD_COPIED ? 0 : 2) + ops[i].pool;
		if (k == RT_POOL_RECORD_COPIED || k == RT_POOL_RECORD_CONSUMED)
			target[i] = ++gen[ev];
		else
			target[i] = gen[ev];
		const int s = k <= RT_POOL_RECORD_COPIED ? 1 : 0;
		q[s][len[s]++] = i;
	}
	int pool_chunk[2] = {-1, -1}, next = 0;
	rng = seed;
	while (head[0] < len[0] || head[1] < len[1]) {
		int ready[2], nr = 0;
		for (int s = 0; s < 2; s++) {
			if (head[s] == len[s])
				continue;
			const struct rt_pool_op *o = &ops[q[s][head[s]]];
			const int t = target[q[s][head[s]]];
			if (o->kind == RT_POOL_WAIT_COPIED && done[o->pool] < t)
				continue;
			if (o->kind == RT_POOL_WAIT_CONSUMED && done[2 + o->pool] < t)
				continue;
			ready[nr++] = s;
		}
		if (nr == 0)
			return 1;
		const int s = ready[nr == 2 && urand() > 0 ? 1 : 0];
		const int i = q[s][head[s]++];
		const struct rt_pool_op *o = &ops[i];
		switch (o->kind) {
		case RT_POOL_RECORD_COPIED: done[o->pool] = target[i]; break;
		case RT_POOL_RECORD_CONSUMED: done[2 + o->pool] = target[i]; break;
		case RT_POOL_COPY: pool_chunk[o->pool] = o->chunk; break;
		case RT_POOL_TRAIN:
			if (pool_chunk[o->pool] != o->chunk)
				return 2;
			if (o->first_batch != next || o->n_batches < 1)
				return 3;
			next += o->n_batches;
			break;
		default: break;
		}
	}
	return next == n_batches ? 0 : 3;
}

Test(pool, every_interleaving_trains_each_batch_once_in_order)
{
	static const int batches[] = {1, 2, 3, 5, 7, 16, 17, 100, 937};
	static const int pools[] = {1, 2, 3, 4, 16, 64};
	static struct rt_pool_op ops[8192];
	for (size_t a = 0; a < sizeof batches / sizeof batches[0]; a++)
		for (size_t b = 0; b < sizeof pools / sizeof pools[0]; b++) {
			const int nb = batches[a], K = pools[b];
			const int n = rt_pool_schedule(nb, K, ops, 8192);
			cr_assert_eq(n, rt_pool_max_ops(nb, K));
			/* the last chunk holds the remainder */
			const struct rt_pool_op *last = &ops[n - 2];
			cr_expect_eq(last->kind, RT_POOL_TRAIN);
			cr_expect_eq(last->n_batches, nb % K ? nb % K : K, "%d batches, K %d", nb, K);
			for (uint64_t seed = 1; seed <= 200; seed++)
				cr_expect_eq(simulate(ops, n, nb, seed * 2654435761u), 0,
				             "%d batches, K %d, interleaving %llu", nb, K,
				             (unsigned long long)seed);
		}
}

Test(pool, copy_of_the_next_chunk_is_issued_before_training_this_one)
{
	struct rt_pool_op ops[64];
	int n = rt_pool_schedule(10, 4, ops, 64); /* chunks of 4, 4, 2 */
	cr_assert_eq(n, 18);
	int copy1 = -1, train0 = -1;
	for (int i = 0; i < n; i++) {
		if (ops[i].kind == RT_POOL_COPY && ops[i].chunk == 1)
			copy1 = i;
		if (ops[i].kind == RT_POOL_TRAIN && ops[i].chunk == 0)
			train0 = i;
	}
	cr_expect(copy1 >= 0 && copy1 < train0, "the copy overlaps the training");
	cr_expect_eq(ops[train0].pool, 0);
	cr_expect_eq(ops[copy1].pool, 1);
}

Test(pool, the_simulator_catches_a_missing_wait)
{
	/* Without the copy stream's waits on consumed[], some interleaving
	 * overwrites a pool that is still to be trained on. */
	static struct rt_pool_op ops[256], broken[256];
	const int n = rt_pool_schedule(12, 2, ops, 256);
	int m = 0, caught = 0;
	for (int i = 0; i < n; i++)
		if (ops[i].kind != RT_POOL_WAIT_CONSUMED)
			broken[m++] = ops[i];
	for (uint64_t seed = 1; seed <= 200; seed++)
		caught += simulate(broken, m, 12, seed * 2654435761u) == 2;
	cr_expect(caught > 0);
}

Test(autodiff, shared_weight_sums_its_gradients)
{
	/* x [4, 5] -> Gemm(W [5, 5]) -> Tanh -> Gemm(W again) -> y: W's gradient is
	 * the sum of both layers' contributions, added by one Add node, and W gets
	 * one optimizer step. */
	struct graph *g = ir_graph_new("t.onnx");
	g->opset = 13;
	struct tensor *x = shaped(g, "x", 2, (int64_t[]){4, 5});
	x->is_input = 1;
	g->n_inputs = 1;
	g->inputs = arena_alloc(&g->arena, sizeof *g->inputs);
	g->inputs[0] = x;
	struct tensor *w = param(g, "W", 2, (int64_t[]){5, 5});
	struct tensor *h = shaped(g, "h", 2, (int64_t[]){4, 5}), *t = shaped(g, "t", 2, (int64_t[]){4, 5});
	struct tensor *y = shaped(g, "y", 2, (int64_t[]){4, 5});
	ir_add_node(g, OP_GEMM, "fc1", 2, (struct tensor *[]){x, w}, 1, &h);
	ir_add_node(g, OP_TANH, "tanh", 1, &h, 1, &t);
	ir_add_node(g, OP_GEMM, "fc2", 2, (struct tensor *[]){t, w}, 1, &y);
	y->is_output = 1;
	g->n_outputs = 1;
	g->outputs = arena_alloc(&g->arena, sizeof *g->outputs);
	g->outputs[0] = y;
	struct train_options to = topt;
	to.batch = 4;
	struct options opt = {.train = &to};
	struct diag d;
	diag_init(&d, "t.onnx", stderr);
	cr_assert_eq(pass_train_check(g, &opt, &d) + pass_autodiff(g, &opt, &d), 0);
	cr_assert_eq(ir_verify(g, "autodiff", 1, &d), 0);
	cr_expect_eq(count_op(g, OP_ADD), 1);
	cr_expect_eq(count_op(g, OP_OPTIMIZER_STEP), 1);
	struct node *step = g->nodes[g->n_nodes - 1];
	cr_expect_eq(step->op, OP_OPTIMIZER_STEP);
	cr_expect_eq(step->inputs[1]->producer->op, OP_ADD, "the step reads the summed gradient");
	ir_graph_free(g);
}
