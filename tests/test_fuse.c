/* test_fuse.c - unit tests of the fusions of passes/fuse.c: the residual Add
 * folded into a convolution (through pass_canonicalize), selection reading
 * the residual in the layout the conv's row writes (pass_select), and the
 * zero-copy Concat of pass_plan_memory, each with the cases it must refuse.
 * Graphs are built in C with their shapes set by hand, as infer_shapes
 * would leave them; the tests assert on structure (nodes left, inputs,
 * epilogues, aliases, offsets, lifetimes), not on printed text. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ir/ir.h"
#include "passes/passes.h"
#include "tests/graph_build.h"
#include "tests/pass_run.h"
#include "runtime/dnncc_rt.h"
#include "runtime/prep_depthwise.h"
#include "runtime/primitives.h"
#include "runtime/sgemm.h"

#define SHAPE(...) \
	(int)(sizeof((int64_t[]){__VA_ARGS__}) / sizeof(int64_t)), (const int64_t[]){__VA_ARGS__}
#define INS(...) \
	(int)(sizeof((struct tensor *[]){__VA_ARGS__}) / sizeof(struct tensor *)), \
	(struct tensor *[]){__VA_ARGS__}

/* ---- graph building ------------------------------------------------------------ */

/* A constant of numel floats, values from a seed. */
static struct tensor *weights(struct graph *g, const char *name, int rank, const int64_t *dims)
{
	int64_t n = 1;
	for (int i = 0; i < rank; i++)
		n *= dims[i];
	float *v = arena_alloc(&g->arena, (size_t)n * sizeof *v);
	for (int64_t i = 0; i < n; i++)
		v[i] = (float)((i * 7919) % 17) / 17.0f - 0.5f;
	return ir_new_constant(g, name, DTYPE_F32, rank, dims, v);
}

/* y = Conv_k x k(x) with M output channels, "same" padding, stride 1. */
static struct node *conv(struct graph *g, const char *name, struct tensor *x, int M, int k,
                         struct tensor *y)
{
	char wn[64];
	snprintf(wn, sizeof wn, "%s_W", name);
	struct tensor *w = weights(g, wn, SHAPE(M, x->dims[1], k, k));
	struct node *n = node(g, OP_CONV, name, INS(x, w), y);
	int64_t *ks = arena_memdup(&g->arena, (int64_t[]){k, k}, 2 * sizeof(int64_t));
	struct attr *a = ir_add_attr(g, n, "kernel_shape", ATTR_INTS);
	a->n = 2;
	a->ints = ks;
	int64_t p = k / 2;
	a = ir_add_attr(g, n, "pads", ATTR_INTS);
	a->n = 4;
	a->ints = arena_memdup(&g->arena, (int64_t[]){p, p, p, p}, 4 * sizeof(int64_t));
	return n;
}

static struct graph *graph_new(void)
{
	struct graph *g = ir_graph_new("m.onnx");
	g->opset = 13;
	return g;
}

static void canonicalize_ok(struct graph *g)
{
	struct options opt = {0};
	struct diag d;
	diag_init(&d, "m.onnx", stderr);
	cr_assert_eq(pass_canonicalize(g, &opt, &d), 0);
	cr_assert_eq(ir_verify(g, "canonicalize", 1, &d), 0);
}

static void select_opt_ok(struct graph *g, const char *strategy, int no_blocked)
{
	struct options opt = {0};
	opt.strategy = strategy;
	opt.isa = rt_sgemm_isa_host();
	opt.no_blocked = no_blocked;
	struct diag d;
	diag_init(&d, "m.onnx", stderr);
	cr_assert_eq(pass_select(g, &opt, &d), 0);
	cr_assert_eq(ir_verify(g, "select", 1, &d), 0);
}

static void select_ok(struct graph *g, const char *strategy)
{
	select_opt_ok(g, strategy, 0);
}

static struct node *find(const struct graph *g, const char *name)
{
	for (int i = 0; i < g->n_nodes; i++)
		if (!g->nodes[i]->dead && strcmp(g->nodes[i]->name, name) == 0)
			return g->nodes[i];
	return NULL;
}

/* ---- residual Add --------------------------------------------------------------- */

/* x -> conv1 -> s; s -> conv2 -> c; Add(c, s) (or Add(s, c)) -> a; Relu -> y */
static struct graph *block(int swap, int relu)
{
	struct graph *g = graph_new();
	struct tensor *x = input(g, act(g, "x", SHAPE(1, 4, 6, 6)));
	struct tensor *s = act(g, "s", SHAPE(1, 8, 6, 6));
	struct tensor *c = act(g, "c", SHAPE(1, 8, 6, 6));
	struct tensor *a = act(g, "a", SHAPE(1, 8, 6, 6));
	conv(g, "conv1", x, 8, 3, s);
	conv(g, "conv2", s, 8, 3, c);
	struct tensor *lhs = swap ? s : c, *rhs = swap ? c : s;
	if (relu) {
		node(g, OP_ADD, "add", INS(lhs, rhs), a);
		node(g, OP_RELU, "relu", INS(a), output(g, act(g, "y", SHAPE(1, 8, 6, 6))));
	} else {
		node(g, OP_ADD, "add", INS(lhs, rhs), output(g, a));
	}
	return g;
}

Test(residual, add_then_relu_fold_into_the_conv)
{
	for (int swap = 0; swap < 2; swap++) {
		struct graph *g = block(swap, 1);
		canonicalize_ok(g);
		cr_assert_eq(count_op(g, OP_ADD), 0);
		cr_assert_eq(count_op(g, OP_RELU), 0);
		struct node *c2 = find(g, "conv2");
		cr_assert(fuse_has_residual(c2));
		cr_assert_eq(c2->n_inputs, FUSE_RESIDUAL_INPUT + 1);
		cr_assert_null(c2->inputs[2], "no bias: the slot stays empty");
		cr_assert_str_eq(c2->inputs[FUSE_RESIDUAL_INPUT]->name, "s");
		cr_assert_eq(c2->act, ACT_RELU, "the Relu after the Add joins the epilogue");
		cr_assert_eq(c2->outputs[0], g->outputs[0]);
		cr_assert_eq(g->outputs[0]->producer, c2);
		cr_assert_not(fuse_has_residual(find(g, "conv1")));
		ir_graph_free(g);
	}
}

Test(residual, add_alone_folds_without_activation)
{
	struct graph *g = block(0, 0);
	canonicalize_ok(g);
	cr_assert_eq(g->n_nodes, 2);
	cr_assert(fuse_has_residual(find(g, "conv2")));
	cr_assert_eq(find(g, "conv2")->act, ACT_NONE);
	ir_graph_free(g);
}

Test(residual, shortcut_conv_exported_after_the_main_branch)
{
	/* ResNet's downsampling block in PyTorch's export order: the main
	 * branch's conv b (computed first), then the shortcut conv d; Add(b, d).
	 * b cannot take the residual d (not computed yet), so d takes b. */
	struct graph *g = graph_new();
	struct tensor *x = input(g, act(g, "x", SHAPE(1, 4, 6, 6)));
	struct tensor *b = act(g, "b", SHAPE(1, 8, 6, 6)), *d = act(g, "d", SHAPE(1, 8, 6, 6));
	conv(g, "main", x, 8, 3, b);
	conv(g, "short", x, 8, 1, d);
	node(g, OP_ADD, "add", INS(b, d), output(g, act(g, "y", SHAPE(1, 8, 6, 6))));
	canonicalize_ok(g);
	cr_assert_eq(g->n_nodes, 2);
	cr_assert_not(fuse_has_residual(find(g, "main")));
	cr_assert(fuse_has_residual(find(g, "short")));
	cr_assert_eq(find(g, "short")->inputs[FUSE_RESIDUAL_INPUT], b);
	ir_graph_free(g);
}

Test(residual, conv_moves_down_when_its_operand_comes_later)
{
	/* c = conv(x) first, then r = Relu(conv3(x)) (not a conv output); Add(c, r):
	 * the conv must run after r, where the Add was. */
	struct graph *g = graph_new();
	struct tensor *x = input(g, act(g, "x", SHAPE(1, 4, 5, 5)));
	struct tensor *c = act(g, "c", SHAPE(1, 4, 5, 5)), *t = act(g, "t", SHAPE(1, 4, 5, 5));
	struct tensor *r = act(g, "r", SHAPE(1, 4, 5, 5));
	conv(g, "early", x, 4, 3, c);
	node(g, OP_SIGMOID, "sig", INS(x), t);
	node(g, OP_EXP, "exp", INS(t), r);
	node(g, OP_ADD, "add", INS(c, r), output(g, act(g, "y", SHAPE(1, 4, 5, 5))));
	canonicalize_ok(g);
	struct node *e = find(g, "early");
	cr_assert(fuse_has_residual(e));
	cr_assert_eq(e->inputs[FUSE_RESIDUAL_INPUT], r);
	cr_assert_gt(e->index, find(g, "exp")->index, "the conv runs after its residual's producer");
	ir_graph_free(g);
}

Test(residual, refused_where_illegal)
{
	/* broadcasting: the other operand is [1, 8, 1, 1] */
	struct graph *g = graph_new();
	struct tensor *x = input(g, act(g, "x", SHAPE(1, 4, 6, 6)));
	struct tensor *c = act(g, "c", SHAPE(1, 8, 6, 6));
	conv(g, "conv", x, 8, 3, c);
	struct tensor *bias = input(g, act(g, "bias", SHAPE(1, 8, 1, 1)));
	node(g, OP_ADD, "add", INS(c, bias), output(g, act(g, "y", SHAPE(1, 8, 6, 6))));
	canonicalize_ok(g);
	cr_assert_eq(count_op(g, OP_ADD), 1, "broadcasting Add folded");
	ir_graph_free(g);

	/* the conv output has another reader */
	g = block(0, 1);
	node(g, OP_SIGMOID, "other", INS(ir_find_tensor(g, "c")),
	     output(g, act(g, "z", SHAPE(1, 8, 6, 6))));
	canonicalize_ok(g);
	cr_assert_eq(count_op(g, OP_ADD), 1, "shared conv output folded");
	cr_assert_not(fuse_has_residual(find(g, "conv2")));
	ir_graph_free(g);

	/* the conv output is a graph output */
	g = block(0, 1);
	output(g, ir_find_tensor(g, "c"));
	canonicalize_ok(g);
	cr_assert_eq(count_op(g, OP_ADD), 1, "exposed conv output folded");
	ir_graph_free(g);

	/* Relu before the Add: relu(conv) + s is not conv's epilogue + s */
	g = graph_new();
	x = input(g, act(g, "x", SHAPE(1, 4, 6, 6)));
	struct tensor *s = act(g, "s", SHAPE(1, 4, 6, 6)), *r = act(g, "r", SHAPE(1, 4, 6, 6));
	c = act(g, "c", SHAPE(1, 4, 6, 6));
	node(g, OP_SIGMOID, "sig", INS(x), s);
	conv(g, "conv", s, 4, 3, c);
	node(g, OP_RELU, "relu", INS(c), r);
	node(g, OP_ADD, "add", INS(r, s), output(g, act(g, "y", SHAPE(1, 4, 6, 6))));
	canonicalize_ok(g);
	cr_assert_eq(count_op(g, OP_ADD), 1, "Add after an activation folded");
	cr_assert_eq(find(g, "conv")->act, ACT_RELU);
	cr_assert_not(fuse_has_residual(find(g, "conv")));
	ir_graph_free(g);

	/* a constant operand */
	g = graph_new();
	x = input(g, act(g, "x", SHAPE(1, 4, 6, 6)));
	c = act(g, "c", SHAPE(1, 8, 6, 6));
	conv(g, "conv", x, 8, 3, c);
	node(g, OP_ADD, "add", INS(c, weights(g, "k", SHAPE(1, 8, 6, 6))),
	     output(g, act(g, "y", SHAPE(1, 8, 6, 6))));
	canonicalize_ok(g);
	cr_assert_eq(count_op(g, OP_ADD), 1, "constant operand folded");
	ir_graph_free(g);

	/* Add(c, c): the conv output is read twice */
	g = graph_new();
	x = input(g, act(g, "x", SHAPE(1, 4, 6, 6)));
	c = act(g, "c", SHAPE(1, 8, 6, 6));
	conv(g, "conv", x, 8, 3, c);
	node(g, OP_ADD, "add", INS(c, c), output(g, act(g, "y", SHAPE(1, 8, 6, 6))));
	canonicalize_ok(g);
	cr_assert_eq(count_op(g, OP_ADD), 1, "Add(c, c) folded");
	ir_graph_free(g);
}

Test(residual, selection_reads_the_residual_in_the_rows_output_layout)
{
	/* Under every strategy, and every row forced in turn: the residual
	 * arrives in the layout the chosen row writes. */
	static const char *const strategies[] = {"pbqp", "greedy", "canonical", "sum2d",
	                                         "family:direct", "family:im2"};
	for (size_t si = 0; si < sizeof strategies / sizeof strategies[0]; si++) {
		struct graph *g = block(si % 2, 1);
		canonicalize_ok(g);
		select_ok(g, strategies[si]);
		struct node *c2 = find(g, "conv2");
		const struct rt_prim *r = rt_prim_find(c2->primitive);
		cr_assert_not_null(r);
		enum layout want = r->out == RT_L_CHW ? LAYOUT_MODEL : (enum layout)(r->out + 1);
		cr_assert_eq(c2->inputs[FUSE_RESIDUAL_INPUT]->layout, want, "%s: residual in %s, row %s",
		             strategies[si], ir_layout_names[c2->inputs[FUSE_RESIDUAL_INPUT]->layout],
		             r->name);
		cr_assert_eq(c2->outputs[0]->layout, want);
		ir_graph_free(g);
	}
	int forced = 0;
	for (int i = 0; i < rt_n_prims; i++) {
		struct graph *g = block(0, 1);
		canonicalize_ok(g);
		struct options opt = {0};
		opt.strategy = "pbqp";
		opt.isa = rt_sgemm_isa_host();
		struct force_primitive f = {"conv2", rt_prims[i].name};
		opt.force = &f;
		opt.n_force = 1;
		struct rt_conv2d p;
		cr_assert_eq(pass_conv_params(find(g, "conv2"), opt.isa, opt.threads, &p), 0);
		if (!rt_prims[i].applies(&p, rt_prims[i].variant)) {
			ir_graph_free(g);
			continue;
		}
		struct diag d;
		diag_init(&d, "m.onnx", stderr);
		cr_assert_eq(pass_select(g, &opt, &d), 0);
		struct node *c2 = find(g, "conv2");
		enum layout want = rt_prims[i].out == RT_L_CHW ? LAYOUT_MODEL
		                                               : (enum layout)(rt_prims[i].out + 1);
		cr_assert_eq(c2->inputs[FUSE_RESIDUAL_INPUT]->layout, want, "row %s", rt_prims[i].name);
		forced++;
		ir_graph_free(g);
	}
	cr_assert_gt(forced, 10);
}

/* ResNet-50's bottleneck tail: x (256 channels) -> 1x1 to 64 -> 1x1 to 256,
 * Add x, Relu. The last 1x1 takes the Add and the Relu; with the built-in
 * costs, on a CPU with SIMD, it runs on a pointwise row, which adds the
 * residual in its own store loop (no second pass, and no reason to take a
 * direct row for the fused add, as selection did before). */
Test(residual, bottleneck_1x1_fuses_the_add_in_a_pointwise_row)
{
	if (rt_sgemm_isa_host() == RT_SGEMM_ISA_C)
		cr_skip_test("no SIMD on this CPU: the pointwise rows need not win");
	static const char *const strategies[] = {"pbqp", "greedy"};
	for (size_t si = 0; si < sizeof strategies / sizeof strategies[0]; si++) {
		struct graph *g = graph_new();
		struct tensor *x = input(g, act(g, "x", SHAPE(1, 256, 14, 14)));
		struct tensor *t = act(g, "t", SHAPE(1, 64, 14, 14));
		struct tensor *c = act(g, "c", SHAPE(1, 256, 14, 14));
		struct tensor *a = act(g, "a", SHAPE(1, 256, 14, 14));
		conv(g, "conv1", x, 64, 1, t);
		conv(g, "conv3", t, 256, 1, c);
		node(g, OP_ADD, "add", INS(c, x), a);
		node(g, OP_RELU, "relu", INS(a), output(g, act(g, "y", SHAPE(1, 256, 14, 14))));
		canonicalize_ok(g);
		select_ok(g, strategies[si]);
		struct node *c3 = find(g, "conv3");
		cr_assert(fuse_has_residual(c3));
		const struct rt_prim *r = rt_prim_find(c3->primitive);
		cr_assert_not_null(r);
		cr_assert(strncmp(r->name, "conv_pointwise_", 15) == 0 && rt_prim_fuses_residual(r),
		          "%s: the 1x1 with the residual runs on %s", strategies[si], r->name);
		ir_graph_free(g);
	}
}

/* x -> conv0 (1x1) -> r; r -> conv1 (1x1) -> t -> conv3 (1x1) -> c; Add(c, r)
 * -> a; Relu -> b; Sigmoid -> y. With `keep_r`, r is read once more after
 * the block (y = Sigmoid(b) + r); with `self`, conv3 reads r itself
 * (c = conv3(r)). */
static struct graph *bottleneck(int keep_r, int self)
{
	struct graph *g = graph_new();
	struct tensor *x = input(g, act(g, "x", SHAPE(1, 16, 8, 8)));
	struct tensor *r = act(g, "r", SHAPE(1, 32, 8, 8));
	struct tensor *t = act(g, "t", SHAPE(1, 32, 8, 8));
	struct tensor *c = act(g, "c", SHAPE(1, 32, 8, 8));
	struct tensor *a = act(g, "a", SHAPE(1, 32, 8, 8));
	struct tensor *b = act(g, "b", SHAPE(1, 32, 8, 8));
	conv(g, "conv0", x, 32, 1, r);
	conv(g, "conv1", r, 32, 1, t);
	conv(g, "conv3", self ? r : t, 32, 1, c);
	node(g, OP_ADD, "add", INS(c, r), a);
	node(g, OP_RELU, "relu", INS(a), b);
	if (keep_r) {
		struct tensor *s = act(g, "s", SHAPE(1, 32, 8, 8));
		node(g, OP_SIGMOID, "sig", INS(b), s);
		node(g, OP_ADD, "add2", INS(s, r), output(g, act(g, "y", SHAPE(1, 32, 8, 8))));
	} else {
		node(g, OP_SIGMOID, "sig", INS(b), output(g, act(g, "y", SHAPE(1, 32, 8, 8))));
	}
	return g;
}

/* A conv whose fused residual dies at it writes its output over the
 * residual's buffer, on every row that may (rt_prim_residual_in_place), and
 * on no other; never when the residual is read later, or is the conv's own
 * input. */
Test(residual, output_carried_in_place_over_a_dying_residual)
{
	int in_place = 0, not_in_place = 0;
	for (int i = 0; i < rt_n_prims; i++) {
		if (!rt_prim_fuses_residual(&rt_prims[i]))
			continue;
		for (int variant = 0; variant < 3; variant++) {
			struct graph *g = bottleneck(variant == 1, variant == 2);
			canonicalize_ok(g);
			struct options opt = {0};
			opt.strategy = "pbqp";
			opt.isa = rt_sgemm_isa_host();
			struct force_primitive f = {"conv3", rt_prims[i].name};
			opt.force = &f;
			opt.n_force = 1;
			struct node *c3 = find(g, "conv3");
			cr_assert(fuse_has_residual(c3));
			struct rt_conv2d p;
			cr_assert_eq(pass_conv_params(c3, opt.isa, opt.threads, &p), 0);
			if (!rt_prims[i].applies(&p, rt_prims[i].variant)) {
				ir_graph_free(g);
				continue;
			}
			struct diag d;
			diag_init(&d, "m.onnx", stderr);
			cr_assert_eq(pass_select(g, &opt, &d), 0);
			cr_assert_eq(pass_plan_memory(g, &opt, &d), 0);
			const struct tensor *r = c3->inputs[FUSE_RESIDUAL_INPUT], *y = c3->outputs[0];
			const struct tensor *root = r->alias ? r->alias : r;
			const int may = variant == 0 && rt_prim_residual_in_place(&rt_prims[i], &p);
			cr_assert_eq(c3->res_in_place, may, "%s, case %d: in place %d", rt_prims[i].name,
			             variant, c3->res_in_place);
			if (may) {
				cr_assert_eq(y->alias, root, "%s: the output is not the residual's buffer",
				             rt_prims[i].name);
				in_place++;
			} else {
				cr_assert(y->alias != root && (y->alias || y->offset + ir_nbytes(y) <= root->offset ||
				                               root->offset + ir_nbytes(root) <= y->offset),
				          "%s, case %d: output and residual share bytes", rt_prims[i].name,
				          variant);
				not_in_place++;
			}
			ir_graph_free(g);
		}
	}
	cr_assert_gt(in_place, 0);
	cr_assert_gt(not_in_place, 0);
}

/* ---- 1x1 into the depthwise after it --------------------------------------------- */

/* x [1, 16, H, H] -> 1x1 "pw" to 96 channels -> e -> 3x3 depthwise "dw",
 * stride s -> y -> Sigmoid -> z; with `also_out`, e is a graph output too. */
static struct graph *expand_dw(int H, int s, int also_out, struct tensor **e_out)
{
	struct graph *g = graph_new();
	const int oH = (H + 2 - 3) / s + 1;
	struct tensor *x = input(g, act(g, "x", SHAPE(1, 16, H, H)));
	struct tensor *e = act(g, "e", SHAPE(1, 96, H, H));
	struct tensor *y = act(g, "y", SHAPE(1, 96, oH, oH));
	conv(g, "pw", x, 96, 1, e);
	struct node *d = conv(g, "dw", e, 96, 3, y);
	d->inputs[1] = weights(g, "dw_W1", SHAPE(96, 1, 3, 3)); /* depthwise: (M, 1, kH, kW) */
	ir_add_attr(g, d, "group", ATTR_INT)->i = 96;
	struct attr *a = ir_add_attr(g, d, "strides", ATTR_INTS);
	a->n = 2;
	a->ints = arena_memdup(&g->arena, (int64_t[]){s, s}, 2 * sizeof(int64_t));
	node(g, OP_SIGMOID, "sig", INS(y), output(g, act(g, "z", SHAPE(1, 96, oH, oH))));
	if (also_out)
		output(g, e);
	*e_out = e;
	return g;
}

/* HWC pairs fuse from 1 MiB of e. With the blocked layouts on, the built-in
 * model may rate CHW16c ahead (it does for AVX-512), where pairs fuse only
 * from 6 MiB; these tests select without them (as --target cortex-m and a
 * tight --max-arena do), so the pair is HWC. */
#define PW_DW_ISA rt_sgemm_isa_host()

Test(pw_dw, expand_then_depthwise_fuse_where_the_expanded_tensor_is_large)
{
	if (rt_sgemm_isa_host() == RT_SGEMM_ISA_C)
		cr_skip_test("no SIMD on this CPU: the HWC rows need not win");
	int n_fused = 0;
	for (int s = 1; s <= 2; s++) {
		struct tensor *e;
		struct graph *g = expand_dw(56, s, 0, &e); /* e: 96 x 56 x 56 floats, 1.15 MiB */
		canonicalize_ok(g);
		select_opt_ok(g, "pbqp", 1);
		struct node *pw = find(g, "pw"), *dw = find(g, "dw");
		cr_assert_str_eq(pw->primitive, "conv_pointwise_hwc");
		if (strcmp(dw->primitive, "conv_depthwise_rows_hwc") != 0) {
			/* a specialised depthwise row (conv_depthwise_3x3s1_hwc on
			 * AVX2) has no fused form: left alone */
			cr_assert_not(fuse_has_pw(dw), "stride %d: fused into %s", s, dw->primitive);
			cr_assert_null(pw->fused_into);
			ir_graph_free(g);
			continue;
		}
		n_fused++;
		cr_assert(fuse_has_pw(dw), "stride %d: not fused", s);
		cr_assert_eq(pw->fused_into, dw);
		cr_assert_eq(dw->inputs[0]->producer, pw); /* shapes still read off e */
		cr_assert_eq(dw->inputs[FUSE_PW_INPUT], pw->inputs[0]);
		cr_assert_eq(dw->inputs[FUSE_PW_INPUT + 1], pw->inputs[1]);
		struct rt_conv2d pd;
		cr_assert_eq(pass_conv_params(dw, PW_DW_ISA, 1, &pd), 0);
		cr_assert_geq(dw->ws_bytes, prep_pw_dw_ws(&pd, 0) * sizeof(float));
		/* the 1x1's input lives until the fused layer has run */
		struct options opt = {0};
		struct diag d;
		diag_init(&d, "m.onnx", stderr);
		cr_assert_eq(pass_plan_memory(g, &opt, &d), 0);
		const struct tensor *xin = pw->inputs[0], *y = dw->outputs[0];
		cr_assert(!xin->is_input && !xin->data && !xin->alias && !y->alias);
		cr_assert(xin->offset + ir_nbytes(xin) <= y->offset ||
			          y->offset + ir_nbytes(y) <= xin->offset);
		ir_graph_free(g);
	}
	cr_assert_gt(n_fused, 0, "neither stride fused: the fusion is dead code under the built-in model");
}

/* With the blocked layouts on, an AVX-512 host puts the pair in CHW16c (the
 * built-in model; CHW8c or HWC elsewhere). A blocked pair fuses only where e
 * is 6 MiB or more (fuse.c): 96 x 132 x 132 (6.4 MiB) does, 96 x 120 x 120
 * (5.3 MiB) and 96 x 56 x 56 do not. */
Test(pw_dw, blocked_pair_fuses_where_the_expanded_tensor_is_large)
{
	if (rt_sgemm_isa_host() == RT_SGEMM_ISA_C)
		cr_skip_test("no SIMD on this CPU: the blocked rows need not win");
	static const int sizes[] = {56, 120, 132};
	int n_blocked = 0, n_fused = 0;
	for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++)
		for (int s = 1; s <= 2; s++) {
			struct tensor *e;
			struct graph *g = expand_dw(sizes[k], s, 0, &e);
			canonicalize_ok(g);
			select_opt_ok(g, "pbqp", 0);
			struct node *pw = find(g, "pw"), *dw = find(g, "dw");
			int B = 0;
			if (strcmp(pw->primitive, "conv_pointwise_chw16c") == 0 &&
			    strcmp(dw->primitive, "conv_depthwise_rows_chw16c") == 0)
				B = 16;
			else if (strcmp(pw->primitive, "conv_pointwise_chw8c") == 0 &&
			         strcmp(dw->primitive, "conv_depthwise_rows_chw8c") == 0)
				B = 8;
			if (!B) {
				ir_graph_free(g);
				continue;
			}
			n_blocked++;
			if (ir_nbytes(e) < ((size_t)6 << 20)) {
				cr_assert_not(fuse_has_pw(dw), "%d x %d, stride %d: fused", sizes[k],
				              sizes[k], s);
				cr_assert_null(pw->fused_into);
				ir_graph_free(g);
				continue;
			}
			n_fused++;
			cr_assert(fuse_has_pw(dw), "%d x %d, stride %d: not fused", sizes[k], sizes[k], s);
			cr_assert_eq(pw->fused_into, dw);
			cr_assert_eq(dw->inputs[FUSE_PW_INPUT], pw->inputs[0]);
			cr_assert_eq(dw->inputs[FUSE_PW_INPUT + 1], pw->inputs[1]);
			struct rt_conv2d pd;
			cr_assert_eq(pass_conv_params(dw, PW_DW_ISA, 1, &pd), 0);
			cr_assert_geq(dw->ws_bytes, prep_pw_dw_ws(&pd, B) * sizeof(float));
			struct options opt = {0};
			struct diag d;
			diag_init(&d, "m.onnx", stderr);
			cr_assert_eq(pass_plan_memory(g, &opt, &d), 0);
			const struct tensor *xin = pw->inputs[0], *y = dw->outputs[0];
			cr_assert(xin->offset + ir_nbytes(xin) <= y->offset ||
			          y->offset + ir_nbytes(y) <= xin->offset);
			ir_graph_free(g);
		}
	if (rt_sgemm_isa_host() == RT_SGEMM_ISA_AVX512) {
		cr_assert_eq(n_blocked, 6, "the AVX-512 built-in model left some pair out of CHW16c");
		cr_assert_eq(n_fused, 2);
	}
}

Test(pw_dw, refused_where_the_expanded_tensor_is_small_or_read_elsewhere)
{
	struct tensor *e;
	struct graph *g = expand_dw(28, 1, 0, &e); /* 96 x 28 x 28: 294 KiB, stays in L2 */
	canonicalize_ok(g);
	select_opt_ok(g, "pbqp", 1);
	cr_assert_not(fuse_has_pw(find(g, "dw")));
	cr_assert_null(find(g, "pw")->fused_into);
	ir_graph_free(g);
	g = expand_dw(56, 1, 1, &e); /* e is also a graph output */
	canonicalize_ok(g);
	select_opt_ok(g, "pbqp", 1);
	cr_assert_not(fuse_has_pw(find(g, "dw")));
	cr_assert_null(find(g, "pw")->fused_into);
	ir_graph_free(g);
}

/* ---- zero-copy Concat ------------------------------------------------------------- */

/* x -> conv a (2 ch), conv b (3 ch), maxpool-free sigmoid s (4 ch) -> Concat -> cat */
static struct graph *inception(int64_t batch, struct tensor **cat)
{
	struct graph *g = graph_new();
	struct tensor *x = input(g, act(g, "x", SHAPE(batch, 4, 5, 5)));
	struct tensor *a = act(g, "a", SHAPE(batch, 2, 5, 5)), *b = act(g, "b", SHAPE(batch, 3, 5, 5));
	struct tensor *s = act(g, "s", SHAPE(batch, 4, 5, 5));
	conv(g, "ca", x, 2, 1, a);
	conv(g, "cb", x, 3, 3, b);
	node(g, OP_SIGMOID, "sig", INS(x), s);
	*cat = act(g, "cat", SHAPE(batch, 9, 5, 5));
	struct node *n = node(g, OP_CONCAT, "concat", INS(a, b, s), *cat);
	ir_add_attr(g, n, "axis", ATTR_INT)->i = 1;
	return g;
}

Test(concat, inputs_become_slices_of_the_output)
{
	struct tensor *cat;
	struct graph *g = inception(1, &cat);
	node(g, OP_RELU, "after", INS(cat), output(g, act(g, "y", SHAPE(1, 9, 5, 5))));
	canonicalize_ok(g);
	select_ok(g, "reference"); /* no workspaces */
	plan_ok(g);
	const char *names[] = {"a", "b", "s"};
	size_t want = 0;
	for (int k = 0; k < 3; k++) {
		struct tensor *t = ir_find_tensor(g, names[k]);
		cr_assert_eq(t->alias, cat, "%s is a slice", names[k]);
		cr_assert_eq(t->alias_offset, want);
		want += ir_nbytes(t);
	}
	cr_assert_null(cat->alias);
	/* the buffer lives from the first slice's writer: the arena holds the
	 * concatenation and, before it is complete, nothing else */
	cr_assert_eq(g->arena_size, (ir_nbytes(cat) + 63) / 64 * 64);
	ir_graph_free(g);
}

Test(concat, output_may_be_a_graph_output)
{
	struct tensor *cat;
	struct graph *g = inception(1, &cat);
	output(g, cat);
	canonicalize_ok(g);
	select_ok(g, "reference");
	plan_ok(g);
	cr_assert_eq(ir_find_tensor(g, "a")->alias, cat);
	cr_assert_eq(g->arena_size, 0, "the producers write the caller's buffer");
	ir_graph_free(g);
}

Test(concat, slices_keep_their_producers_inputs_apart)
{
	/* b is computed from slice a of the same Concat: a lives in the
	 * buffer, and b's writer must not clobber it */
	struct graph *g = graph_new();
	struct tensor *x = input(g, act(g, "x", SHAPE(1, 4, 5, 5)));
	struct tensor *a = act(g, "a", SHAPE(1, 4, 5, 5)), *b = act(g, "b", SHAPE(1, 4, 5, 5));
	conv(g, "ca", x, 4, 3, a);
	conv(g, "cb", a, 4, 3, b);
	struct tensor *cat = act(g, "cat", SHAPE(1, 8, 5, 5));
	struct node *n = node(g, OP_CONCAT, "concat", INS(a, b), cat);
	ir_add_attr(g, n, "axis", ATTR_INT)->i = 1;
	node(g, OP_RELU, "after", INS(cat), output(g, act(g, "y", SHAPE(1, 8, 5, 5))));
	canonicalize_ok(g);
	select_ok(g, "canonical");
	plan_ok(g);
	cr_assert_eq(a->alias, cat);
	cr_assert_eq(b->alias, cat);
	cr_assert_eq(b->alias_offset, ir_nbytes(a));
	ir_graph_free(g);
}

Test(concat, refused_where_slices_are_not_contiguous_or_not_free)
{
	struct tensor *cat;
	/* batch 2: channels are not the outermost dimension */
	struct graph *g = inception(2, &cat);
	output(g, cat);
	canonicalize_ok(g);
	select_ok(g, "canonical");
	plan_ok(g);
	cr_assert_null(ir_find_tensor(g, "a")->alias, "batch-2 concat made zero-copy");
	ir_graph_free(g);

	/* axis 2 (rows) of a batch-1 image */
	g = graph_new();
	struct tensor *x = input(g, act(g, "x", SHAPE(1, 2, 3, 3)));
	struct tensor *a = act(g, "a", SHAPE(1, 2, 3, 3)), *b = act(g, "b", SHAPE(1, 2, 3, 3));
	node(g, OP_SIGMOID, "s1", INS(x), a);
	node(g, OP_TANH, "s2", INS(x), b);
	cat = output(g, act(g, "cat", SHAPE(1, 2, 6, 3)));
	ir_add_attr(g, node(g, OP_CONCAT, "concat", INS(a, b), cat), "axis", ATTR_INT)->i = 2;
	canonicalize_ok(g);
	plan_ok(g);
	cr_assert_null(a->alias, "axis-2 concat made zero-copy");
	ir_graph_free(g);

	/* an input that is a graph input, one that is a graph output, one read
	 * twice by the Concat, one that is a view */
	for (int c = 0; c < 4; c++) {
		g = graph_new();
		x = input(g, act(g, "x", SHAPE(1, 2, 3, 3)));
		a = act(g, "a", SHAPE(1, 2, 3, 3));
		node(g, OP_SIGMOID, "s1", INS(x), a);
		struct tensor *other = x;
		if (c == 1)
			other = output(g, act(g, "o", SHAPE(1, 2, 3, 3)));
		if (c == 1)
			node(g, OP_TANH, "s2", INS(x), other);
		if (c == 2)
			other = a;
		if (c == 3) {
			struct tensor *flat = act(g, "flat", SHAPE(1, 18));
			node(g, OP_TANH, "s2", INS(x), other = act(g, "t", SHAPE(1, 2, 3, 3)));
			node(g, OP_FLATTEN, "f", INS(other), flat);
			other = act(g, "back", SHAPE(1, 2, 3, 3));
			node(g, OP_RESHAPE, "r", INS(flat), other);
		}
		cat = act(g, "cat", SHAPE(1, 4, 3, 3));
		ir_add_attr(g, node(g, OP_CONCAT, "concat", INS(a, other), cat), "axis", ATTR_INT)->i =
			1;
		node(g, OP_RELU, "after", INS(cat), output(g, act(g, "y", SHAPE(1, 4, 3, 3))));
		canonicalize_ok(g);
		plan_ok(g);
		struct node *cn = find(g, "concat");
		size_t off[2];
		cr_assert_not(fuse_concat_slices(g, cn, off), "case %d made zero-copy", c);
		cr_assert(a->alias != cat, "case %d", c);
		ir_graph_free(g);
	}
}

Test(concat, blocked_layout_needs_whole_blocks)
{
	/* CHW8c, batch 1, axis 1: slices of 8 and 3 channels are whole blocks
	 * but for the last; 3 then 8 is not */
	for (int c = 0; c < 2; c++) {
		struct graph *g = graph_new();
		struct tensor *x = input(g, act(g, "x", SHAPE(1, 2, 3, 3)));
		int64_t ca = c ? 3 : 8, cb = c ? 8 : 3;
		struct tensor *a = act(g, "a", SHAPE(1, ca, 3, 3)), *b = act(g, "b", SHAPE(1, cb, 3, 3));
		conv(g, "ca", x, (int)ca, 1, a);
		conv(g, "cb", x, (int)cb, 1, b);
		struct tensor *cat = act(g, "cat", SHAPE(1, 11, 3, 3));
		struct node *n = node(g, OP_CONCAT, "concat", INS(a, b), cat);
		ir_add_attr(g, n, "axis", ATTR_INT)->i = 1;
		a->layout = b->layout = cat->layout = LAYOUT_CHW8C;
		size_t off[2];
		cr_assert_eq(fuse_concat_slices(g, n, off), !c, "case %d", c);
		if (!c)
			cr_assert_eq(off[1], 8 * 9 * sizeof(float));
		ir_graph_free(g);
	}
}

Test(concat, views_of_slices_keep_their_offset)
{
	/* Flatten(b) where b is the second slice: the view aliases the Concat's
	 * buffer at b's offset, not at its start */
	struct tensor *cat;
	struct graph *g = inception(1, &cat);
	struct tensor *b = ir_find_tensor(g, "b");
	struct tensor *fb = output(g, act(g, "fb", SHAPE(1, 75)));
	node(g, OP_FLATTEN, "flat_b", INS(b), fb);
	node(g, OP_RELU, "after", INS(cat), output(g, act(g, "y", SHAPE(1, 9, 5, 5))));
	canonicalize_ok(g);
	select_ok(g, "reference");
	plan_ok(g);
	cr_assert_eq(b->alias, cat);
	cr_assert_eq(fb->alias, cat);
	cr_assert_eq(fb->alias_offset, b->alias_offset);
	cr_assert_eq(b->alias_offset, 2 * 25 * sizeof(float));
	ir_graph_free(g);
}

/* ---- the runtime's residual epilogue ---------------------------------------------- */

Test(residual, runtime_epilogue_in_dense_and_blocked_layouts)
{
	/* y = act(y + r) on every real element, bit for bit the scalar
	 * rt_act_apply on every ISA the host runs (the vector loops and their
	 * tails: 37 pixels), -0 and NaN included; a blocked layout's pad
	 * channels (M = 11 in blocks of 8: 5 pad lanes) keep their zeros even
	 * where act(0) is not 0 */
	enum { N = 2, M = 11, HW = 37, B = 8, NB = (M + B - 1) / B, SIZE = N * NB * B * HW };
	static const int acts[] = {RT_ACT_NONE, RT_ACT_RELU, RT_ACT_SIGMOID, RT_ACT_CLIP};
	static float y[SIZE], r[SIZE], y0[SIZE];
	for (int isa = 0; isa < RT_SGEMM_ISA_COUNT; isa++) {
		if (!rt_sgemm_isa_supported(isa))
			continue;
		for (size_t a = 0; a < sizeof acts / sizeof acts[0]; a++)
			for (int block = 0; block <= B; block += B) {
				for (int i = 0; i < SIZE; i++) {
					y0[i] = y[i] = (float)((i * 37) % 23) / 11.0f - 1.0f;
					r[i] = (float)((i * 11) % 19) / 9.0f - 1.0f;
				}
				y0[3] = y[3] = r[3] = -0.0f; /* -0 + -0: Relu gives +0 */
				y0[9] = y[9] = NAN;
				for (int n = 0; block && n < N; n++) /* zero pad lanes, as producers leave them */
					for (int i = 0; i < HW; i++)
						for (int l = M % B; l < B; l++) {
							size_t k = ((size_t)(n * NB + NB - 1) * HW + i) * B + l;
							y0[k] = y[k] = r[k] = 0.0f;
						}
				rt_conv_residual(isa, N, M, HW, block, acts[a], -0.25f, 0.5f, r, y);
				int n_real = N * M * HW, seen = 0;
				for (int i = 0; i < (block ? SIZE : N * M * HW); i++) {
					int lane = i % B, blk = i / (B * HW) % NB;
					int pad = block && blk == NB - 1 && lane >= M % B;
					float want = pad ? 0.0f
					                 : rt_act_apply(acts[a], -0.25f, 0.5f, y0[i] + r[i]);
					cr_assert(memcmp(&y[i], &want, sizeof want) == 0,
					          "isa %d, act %d, block %d, element %d: %.9g, want %.9g", isa,
					          acts[a], block, i, y[i], want);
					seen += !pad;
				}
				cr_assert_eq(seen, n_real);
			}
	}
}

/* ---- GELU from its parts (canonicalize.c fuse_gelu) ------------------------------ */

/* A float32 scalar constant (rank 0). */
static struct tensor *scalar(struct graph *g, const char *name, float v)
{
	float *p = arena_alloc(&g->arena, sizeof *p);
	*p = v;
	return ir_new_constant(g, name, DTYPE_F32, 0, NULL, p);
}

/* x -> Relu -> r; GELU(r) written out in five nodes, the exporters' ways:
 * form 0 torch's Mul(Mul(r, s), 0.5) with u = Div(r, sqrt 2); form 1
 * Mul(Mul(0.5, r), s) with u = Mul(r, 1/sqrt 2) and operands swapped;
 * form 2 like 0 with the Add's constant 2 (no GELU); form 3 like 0 with
 * the Erf's output also a graph output; form 4 like 0 with a Div by 2. */
static struct graph *gelu_parts(int form)
{
	struct graph *g = graph_new();
	struct tensor *x = input(g, act(g, "x", SHAPE(1, 8, 5, 5)));
	struct tensor *r = act(g, "r", SHAPE(1, 8, 5, 5)), *u = act(g, "u", SHAPE(1, 8, 5, 5));
	struct tensor *e = act(g, "e", SHAPE(1, 8, 5, 5)), *s = act(g, "s", SHAPE(1, 8, 5, 5));
	struct tensor *m = act(g, "m", SHAPE(1, 8, 5, 5));
	struct tensor *y = output(g, act(g, "y", SHAPE(1, 8, 5, 5)));
	node(g, OP_RELU, "relu", INS(x), r);
	if (form == 1)
		node(g, OP_MUL, "scale", INS(scalar(g, "c", 0.70710678f), r), u);
	else
		node(g, OP_DIV, "scale", INS(r, scalar(g, "c", form == 4 ? 2.0f : 1.4142135f)), u);
	node(g, OP_ERF, "erf", INS(u), e);
	if (form == 3)
		output(g, e);
	node(g, OP_ADD, "add", INS(scalar(g, "one", form == 2 ? 2.0f : 1.0f), e), s);
	if (form == 1) {
		node(g, OP_MUL, "half", INS(scalar(g, "h", 0.5f), r), m);
		node(g, OP_MUL, "out", INS(s, m), y);
	} else {
		node(g, OP_MUL, "half", INS(r, s), m);
		node(g, OP_MUL, "out", INS(m, scalar(g, "h", 0.5f)), y);
	}
	return g;
}

Test(gelu, parts_become_one_gelu_node)
{
	for (int form = 0; form < 2; form++) {
		struct graph *g = gelu_parts(form);
		canonicalize_ok(g);
		cr_assert_eq(count_op(g, OP_GELU), 1, "form %d", form);
		cr_assert_eq(count_op(g, OP_ERF) + count_op(g, OP_MUL) + count_op(g, OP_DIV) +
		                     count_op(g, OP_ADD), 0, "form %d: parts left", form);
		struct node *n = find(g, "out");
		cr_assert_not_null(n);
		cr_assert_eq(n->op, OP_GELU);
		cr_assert_eq(n->n_inputs, 1);
		cr_assert_str_eq(n->inputs[0]->name, "r");
		cr_assert_str_eq(ir_attr_string(n, "approximate", "?"), "none");
		cr_assert_eq(n->outputs[0], g->outputs[0]);
		ir_graph_free(g);
	}
}

Test(gelu, parts_stay_where_the_pattern_differs)
{
	for (int form = 2; form <= 4; form++) {
		struct graph *g = gelu_parts(form);
		canonicalize_ok(g);
		cr_assert_eq(count_op(g, OP_GELU), 0, "form %d fused", form);
		cr_assert_eq(count_op(g, OP_ERF), 1, "form %d", form);
		ir_graph_free(g);
	}
}

/* ---- MatMul + bias (canonicalize.c fuse_matmul_bias) ----------------------------- */

/* x [1, 6, 8] -> MatMul(x, w [8, 5]) -> Add with c: form 0 c [5] after the
 * product, form 1 c [1, 1, 5] before it; form 2 c [6, 1] (per row: no
 * fusion), form 3 the product also a graph output (no fusion), form 4 w
 * an activation (no fusion). */
static struct graph *matmul_bias(int form)
{
	struct graph *g = graph_new();
	struct tensor *x = input(g, act(g, "x", SHAPE(1, 6, 8)));
	struct tensor *w = form == 4 ? input(g, act(g, "w", SHAPE(8, 5))) : weights(g, "w", SHAPE(8, 5));
	struct tensor *c = form == 1   ? weights(g, "c", SHAPE(1, 1, 5))
	                   : form == 2 ? weights(g, "c", SHAPE(6, 1))
	                               : weights(g, "c", SHAPE(5));
	struct tensor *p = act(g, "p", SHAPE(1, 6, 5));
	struct tensor *y = output(g, act(g, "y", SHAPE(1, 6, 5)));
	node(g, OP_MATMUL, "mm", INS(x, w), p);
	if (form == 3)
		output(g, p);
	if (form == 1)
		node(g, OP_ADD, "add", INS(c, p), y);
	else
		node(g, OP_ADD, "add", INS(p, c), y);
	return g;
}

Test(matmul_bias, becomes_gemm_between_views)
{
	for (int form = 0; form < 2; form++) {
		struct graph *g = matmul_bias(form);
		canonicalize_ok(g);
		cr_assert_eq(count_op(g, OP_MATMUL) + count_op(g, OP_ADD), 0, "form %d", form);
		cr_assert_eq(count_op(g, OP_GEMM), 1, "form %d", form);
		cr_assert_eq(count_op(g, OP_RESHAPE), 2, "form %d", form);
		struct node *gm = NULL;
		for (int i = 0; i < g->n_nodes; i++)
			if (g->nodes[i]->op == OP_GEMM)
				gm = g->nodes[i];
		cr_assert_eq(gm->n_inputs, 3);
		cr_assert_eq(gm->inputs[0]->rank, 2);
		cr_assert_eq(gm->inputs[0]->dims[0], 6);
		cr_assert_eq(gm->inputs[0]->dims[1], 8);
		cr_assert_str_eq(gm->inputs[1]->name, "w");
		cr_assert_eq(gm->inputs[2]->rank, 1, "form %d: bias as [N]", form);
		cr_assert_eq(gm->inputs[2]->dims[0], 5);
		cr_assert_eq(gm->outputs[0]->dims[0], 6);
		cr_assert_eq(gm->outputs[0]->dims[1], 5);
		/* the graph output is still the Add's tensor, now a view */
		struct node *v = g->outputs[0]->producer;
		cr_assert_eq(v->op, OP_RESHAPE);
		cr_assert_eq(v->inputs[0], gm->outputs[0]);
		cr_assert_eq(gm->inputs[0]->producer->op, OP_RESHAPE);
		cr_assert_str_eq(gm->inputs[0]->producer->inputs[0]->name, "x");
		ir_graph_free(g);
	}
}

Test(matmul_bias, stays_where_the_pattern_differs)
{
	for (int form = 2; form <= 4; form++) {
		struct graph *g = matmul_bias(form);
		canonicalize_ok(g);
		cr_assert_eq(count_op(g, OP_MATMUL), 1, "form %d fused", form);
		cr_assert_eq(count_op(g, OP_ADD), 1, "form %d", form);
		ir_graph_free(g);
	}
}

/* Mul(per-channel gate, x): the image operand goes first, so the gate
 * reaches the per-channel kernels (canonicalize.c full_operand_first);
 * Sub does not commute and keeps its order. */
Test(commute, image_operand_goes_first)
{
	struct graph *g = graph_new();
	struct tensor *x = input(g, act(g, "x", SHAPE(1, 8, 5, 5)));
	struct tensor *s = input(g, act(g, "s", SHAPE(1, 8, 1, 1)));
	struct tensor *y = output(g, act(g, "y", SHAPE(1, 8, 5, 5)));
	struct tensor *z = output(g, act(g, "z", SHAPE(1, 8, 5, 5)));
	node(g, OP_MUL, "gate", INS(s, x), y);
	node(g, OP_SUB, "sub", INS(s, x), z);
	canonicalize_ok(g);
	struct node *m = find(g, "gate"), *d = find(g, "sub");
	cr_assert_eq(m->inputs[0], x);
	cr_assert_eq(m->inputs[1], s);
	cr_assert_eq(d->inputs[0], s);
	cr_assert_eq(d->inputs[1], x);
	int sn, sc;
	cr_assert_eq(nc_chan_strides(m, &sn, &sc), 0, "the gate is per channel");
	ir_graph_free(g);
}
