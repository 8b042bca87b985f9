/* test_select.c - unit tests of selection: the DT graph (dtgraph.c), the
 * candidates (candidates.c), and the strategies with their legalisation
 * (select.c).
 *
 * Tests build tiny canonical graphs in C. Where a test needs one choice to
 * beat another, it sets the alternatives' costs itself (struct selection
 * exposes them) relative to the transform costs of the cost model, so it
 * keeps testing the same thing when the model's numbers change. Results are
 * checked on structure: choices, OP_LAYOUT nodes inserted, which tensor each
 * node reads and in which layout, the verifier. */
#include "config.h"

#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ir/ir.h"
#include "passes/passes.h"
#include "tests/graph_build.h"
#include "runtime/primitives.h"
#include "runtime/sgemm.h"

/* ---- graph building ------------------------------------------------------------ */

#define SHAPE(...) \
	(int)(sizeof((int64_t[]){__VA_ARGS__}) / sizeof(int64_t)), (const int64_t[]){__VA_ARGS__}

static void set_ints(struct graph *g, struct node *n, const char *name, int count,
                     const int64_t *v)
{
	struct attr *a = ir_add_attr(g, n, name, ATTR_INTS);
	a->n = count;
	a->ints = arena_memdup(&g->arena, v, (size_t)count * sizeof *v);
}

/* A canonical 3x3 (k = 3) or 1x1 (k = 1) convolution, stride 1, "same"
 * padding, C -> M channels on [1, C, H, W]; returns the node. */
static struct node *conv(struct graph *g, const char *name, struct tensor *x, int M, int k,
                         struct tensor *y)
{
	int C = (int)x->dims[1];
	float *w = arena_alloc(&g->arena, (size_t)M * C * k * k * sizeof *w);
	for (int i = 0; i < M * C * k * k; i++)
		w[i] = (float)((i % 7) - 3) / 8;
	char wn[64];
	snprintf(wn, sizeof wn, "%s_w", name);
	struct tensor *wt = ir_new_constant(g, wn, DTYPE_F32, 4, (const int64_t[]){M, C, k, k}, w);
	struct tensor *ins[2] = {x, wt};
	struct node *n = ir_add_node(g, OP_CONV, name, 2, ins, 1, &y);
	int64_t p = k / 2;
	set_ints(g, n, "kernel_shape", 2, (const int64_t[]){k, k});
	set_ints(g, n, "strides", 2, (const int64_t[]){1, 1});
	set_ints(g, n, "dilations", 2, (const int64_t[]){1, 1});
	set_ints(g, n, "pads", 4, (const int64_t[]){p, p, p, p});
	ir_add_attr(g, n, "group", ATTR_INT)->i = 1;
	return n;
}

static struct node *unary(struct graph *g, enum op op, const char *name, struct tensor *x,
                          struct tensor *y)
{
	return ir_add_node(g, op, name, 1, &x, 1, &y);
}

static struct node *binary(struct graph *g, enum op op, const char *name, struct tensor *a,
                           struct tensor *b, struct tensor *y)
{
	struct tensor *ins[2] = {a, b};
	return ir_add_node(g, op, name, 2, ins, 1, &y);
}

#define IMG(C) SHAPE(1, C, 24, 24)

/* x -> conv a -> [relu ->] conv b -> graph output */
static struct graph *chain(int relu)
{
	struct graph *g = ir_graph_new("m.onnx");
	struct tensor *x = input(g, act(g, "x", IMG(8)));
	struct tensor *t1 = act(g, "t1", IMG(16)), *t2 = t1;
	struct tensor *y = output(g, act(g, "y", IMG(16)));
	conv(g, "a", x, 16, 3, t1);
	if (relu) {
		t2 = act(g, "t2", IMG(16));
		unary(g, OP_RELU, "r", t1, t2);
	}
	conv(g, "b", t2, 16, 3, y);
	return g;
}

static struct graph *chain_graph(void) { return chain(1); }

/* x -> conv a -> t; t -> conv b (3x3), conv c (kc x kc) (fan-out);
 * Concat(b, c) -> y */
static struct graph *fanout(int kc)
{
	struct graph *g = ir_graph_new("m.onnx");
	struct tensor *x = input(g, act(g, "x", IMG(8)));
	struct tensor *t = act(g, "t", IMG(16)), *u = act(g, "u", IMG(16)), *v = act(g, "v", IMG(16));
	struct tensor *y = output(g, act(g, "y", IMG(32)));
	conv(g, "a", x, 16, 3, t);
	conv(g, "b", t, 16, 3, u);
	conv(g, "c", t, 16, kc, v);
	struct tensor *ins[2] = {u, v};
	struct node *cat = ir_add_node(g, OP_CONCAT, "cat", 2, ins, 1, &y);
	ir_add_attr(g, cat, "axis", ATTR_INT)->i = 1;
	return g;
}

static struct graph *fanout_graph(void) { return fanout(1); }

/* An inception-like block: x -> conv a -> t; t -> conv b, c, d (three
 * readers); b -> conv e; Concat(c, d, e) -> y */
static struct graph *inception_graph(void)
{
	struct graph *g = ir_graph_new("m.onnx");
	struct tensor *x = input(g, act(g, "x", IMG(8)));
	struct tensor *t = act(g, "t", IMG(16)), *tb = act(g, "tb", IMG(16));
	struct tensor *tc = act(g, "tc", IMG(8)), *td = act(g, "td", IMG(8)), *te = act(g, "te", IMG(16));
	struct tensor *y = output(g, act(g, "y", IMG(32)));
	conv(g, "a", x, 16, 3, t);
	conv(g, "b", t, 16, 1, tb);
	conv(g, "c", t, 8, 3, tc);
	conv(g, "d", t, 8, 1, td);
	conv(g, "e", tb, 16, 3, te);
	struct tensor *ins[3] = {tc, td, te};
	struct node *cat = ir_add_node(g, OP_CONCAT, "cat", 3, ins, 1, &y);
	ir_add_attr(g, cat, "axis", ATTR_INT)->i = 1;
	return g;
}

/* A residual block whose input is also a graph output and whose first
 * convolution's output is both read by a later node and a graph output:
 * x (output too) -> conv a -> t (output) -> conv b -> u; Add(t, u) -> y */
static struct graph *residual_graph(void)
{
	struct graph *g = ir_graph_new("m.onnx");
	struct tensor *x = output(g, input(g, act(g, "x", IMG(16))));
	struct tensor *t = output(g, act(g, "t", IMG(16))), *u = act(g, "u", IMG(16));
	struct tensor *y = output(g, act(g, "y", IMG(16)));
	conv(g, "a", x, 16, 3, t);
	conv(g, "b", t, 16, 3, u);
	binary(g, OP_ADD, "add", t, u, y);
	return g;
}

/* x -> conv a -> t -> MaxPool 3x3 s2 (pads 1) -> u -> conv b -> v -> GlobalAveragePool
 * -> y (graph output): 16 channels, 24x24 -> 12x12 -> 1x1 */
static struct graph *pool_graph(void)
{
	struct graph *g = ir_graph_new("m.onnx");
	struct tensor *x = input(g, act(g, "x", IMG(16)));
	struct tensor *t = act(g, "t", IMG(16)), *u = act(g, "u", SHAPE(1, 16, 12, 12));
	struct tensor *v = act(g, "v", SHAPE(1, 16, 12, 12));
	struct tensor *y = output(g, act(g, "y", SHAPE(1, 16, 1, 1)));
	conv(g, "a", x, 16, 3, t);
	struct node *p = unary(g, OP_MAXPOOL, "pool", t, u);
	set_ints(g, p, "kernel_shape", 2, (const int64_t[]){3, 3});
	set_ints(g, p, "strides", 2, (const int64_t[]){2, 2});
	set_ints(g, p, "dilations", 2, (const int64_t[]){1, 1});
	set_ints(g, p, "pads", 4, (const int64_t[]){1, 1, 1, 1});
	conv(g, "b", u, 16, 3, v);
	unary(g, OP_GLOBAL_AVGPOOL, "gap", v, y);
	return g;
}

/* ---- helpers ---------------------------------------------------------------------- */

static struct options options(const char *strategy)
{
	struct options o = {0};
	o.model = "m.onnx";
	o.strategy = strategy;
	o.isa = RT_SGEMM_ISA_C;
	return o;
}

static int node_index(const struct selection *s, const char *name)
{
	for (int i = 0; i < s->n; i++)
		if (strcmp(s->nodes[i]->name, name) == 0)
			return i;
	cr_assert_fail("no node %s", name);
	return -1;
}

/* The alternative of node i running row `name`. */
static int alt_of(const struct selection *s, int i, const char *name)
{
	for (int a = 0; a < s->n_alt[i]; a++)
		if (s->alt[i][a].prim && strcmp(s->alt[i][a].prim->name, name) == 0)
			return a;
	cr_assert_fail("%s is not a candidate of %s", name, s->nodes[i]->name);
	return -1;
}

/* Prices every alternative of node i at `rest`, then row name at cost. */
static void price(struct selection *s, int i, double rest, const char *name, double cost)
{
	for (int a = 0; a < s->n_alt[i]; a++)
		s->alt[i][a].cost_us = rest;
	if (name)
		s->alt[i][alt_of(s, i, name)].cost_us = cost;
}

/* Solves s's PBQP instance (exactly) and takes its choice; returns the objective. */
static double choose_pbqp(struct selection *s)
{
	struct pbqp *q = sel_build_pbqp(s, NULL);
	cr_assert_eq(pbqp_solve(q, PBQP_EXACT), 0);
	for (int i = 0; i < s->n; i++)
		s->choice[i] = pbqp_choice(q, i);
	double obj = pbqp_objective(q);
	pbqp_free(q);
	return obj;
}

static int count_op(const struct graph *g, enum op op)
{
	int k = 0;
	for (int i = 0; i < g->n_nodes; i++)
		k += g->nodes[i]->op == op;
	return k;
}

static struct node *find_node(const struct graph *g, const char *name)
{
	for (int i = 0; i < g->n_nodes; i++)
		if (strcmp(g->nodes[i]->name, name) == 0)
			return g->nodes[i];
	cr_assert_fail("no node %s", name);
	return NULL;
}

static enum layout ir_of(int rt) { return rt == RT_L_CHW ? LAYOUT_MODEL : (enum layout)(rt + 1); }

/* What every strategy must leave: a verifier-clean graph where each Conv
 * has a row (but under reference) and reads and writes that row's layouts,
 * every other node reads and writes the model layout, every OP_LAYOUT is a
 * transform from its input's layout to its output's, graph outputs are in
 * the model layout, and the memory planner accepts it. */
static void check_legal(struct graph *g, const char *strategy)
{
	struct diag d;
	diag_init(&d, "m.onnx", stderr);
	cr_assert_eq(ir_verify(g, "select", 1, &d), 0, "%s: the verifier refused the graph", strategy);
	for (int i = 0; i < g->n_nodes; i++) {
		const struct node *n = g->nodes[i];
		if (n->op == OP_CONV && strcmp(strategy, "reference") != 0) {
			cr_assert_not_null(n->primitive, "%s: %s has no primitive", strategy, n->name);
			const struct rt_prim *r = rt_prim_find(n->primitive);
			cr_assert_not_null(r);
			cr_assert_eq(n->inputs[0]->layout, ir_of(r->in), "%s: %s reads layout %d, %s wants %d",
			             strategy, n->name, n->inputs[0]->layout, r->name, ir_of(r->in));
			cr_assert_eq(n->outputs[0]->layout, ir_of(r->out), "%s: %s writes the wrong layout",
			             strategy, n->name);
		} else if (n->op == OP_LAYOUT) {
			const struct rt_transform *tr = NULL;
			for (int k = 0; k < rt_n_transforms; k++)
				if (strcmp(rt_transforms[k].name, n->primitive) == 0)
					tr = &rt_transforms[k];
			cr_assert_not_null(tr, "%s: unknown transform %s", strategy, n->primitive);
			cr_assert_eq(n->inputs[0]->layout, ir_of(tr->from), "%s: %s", strategy, n->name);
			cr_assert_eq(n->outputs[0]->layout, ir_of(tr->to), "%s: %s", strategy, n->name);
		} else if (n->primitive && strncmp(n->primitive, "nc_", 3) == 0) {
			/* a non-convolution's kernel row: its layout in, and out (global pools: [N, C]) */
			const struct nc_kernel *k = NULL;
			for (int r = 0; r < nc_n_kernels; r++)
				if (strcmp(nc_kernels[r].name, n->primitive) == 0)
					k = &nc_kernels[r];
			cr_assert_not_null(k, "%s: unknown kernel %s", strategy, n->primitive);
			for (int q = 0; q < n->n_inputs; q++)
				cr_assert_eq(n->inputs[q]->layout, q < nc_n_in(n) ? ir_of(k->layout) : LAYOUT_MODEL,
				             "%s: %s input %d", strategy, n->name, q);
			cr_assert_eq(n->outputs[0]->layout, k->kind == NC_GPOOL ? LAYOUT_MODEL : ir_of(k->layout),
			             "%s: %s writes the wrong layout", strategy, n->name);
		} else {
			for (int k = 0; k < n->n_inputs; k++)
				cr_assert(!n->inputs[k] || n->inputs[k]->layout == LAYOUT_MODEL,
				          "%s: %s reads a converted tensor", strategy, n->name);
			cr_assert_eq(n->outputs[0]->layout, LAYOUT_MODEL, "%s: %s", strategy, n->name);
		}
	}
	for (int k = 0; k < g->n_outputs; k++)
		cr_assert_eq(g->outputs[k]->layout, LAYOUT_MODEL, "%s: output %s not in the model layout",
		             strategy, g->outputs[k]->name);
	struct options o = options(strategy);
	cr_assert_eq(pass_plan_memory(g, &o, &d), 0);
}

/* ---- the DT graph --------------------------------------------------------------------- */

static const struct rt_transform *transform(const char *name)
{
	for (int k = 0; k < rt_n_transforms; k++)
		if (strcmp(rt_transforms[k].name, name) == 0)
			return &rt_transforms[k];
	cr_assert_fail("no transform %s", name);
	return NULL;
}

Test(dtgraph, chains_where_no_direct_routine_exists)
{
	struct options o = options("greedy");
	struct dt_paths dp;
	dt_paths_compute(&dp, &o, rt_transforms, rt_n_transforms, 1, 24, 20, 20);
	/* no HCW -> CHW8c routine: a chain through CHW or HWC */
	int steps[DT_NL];
	int n = dt_chain(&dp, RT_L_HCW, RT_L_CHW8C, steps);
	cr_assert_eq(n, 2);
	const struct rt_transform *s0 = &rt_transforms[steps[0]], *s1 = &rt_transforms[steps[1]];
	cr_assert_eq(s0->from, RT_L_HCW);
	cr_assert_eq(s0->to, s1->from);
	cr_assert_eq(s1->to, RT_L_CHW8C);
	double sum = costs_transform_us(&o, s0, 1, 24, 20, 20) + costs_transform_us(&o, s1, 1, 24, 20, 20);
	cr_assert_float_eq(dp.cost[RT_L_HCW][RT_L_CHW8C], sum, 1e-9 * sum);
	/* the chain is the cheapest of the two-step ones */
	for (int via = 0; via < DT_NL; via++)
		cr_assert_leq(dp.cost[RT_L_HCW][RT_L_CHW8C], dp.cost[RT_L_HCW][via] + dp.cost[via][RT_L_CHW8C]);
	/* blocked to blocked, and the diagonal */
	cr_assert_eq(dt_chain(&dp, RT_L_CHW8C, RT_L_CHW16C, steps), 2);
	cr_assert_eq(dt_chain(&dp, RT_L_HWC, RT_L_HWC, steps), 0);
	cr_assert_eq(dp.cost[RT_L_HWC][RT_L_HWC], 0);
	/* a direct routine is a one-step chain at most as dear as itself */
	const struct rt_transform *d = transform("layout_chw_to_hwc");
	cr_assert_leq(dp.cost[RT_L_CHW][RT_L_HWC], costs_transform_us(&o, d, 1, 24, 20, 20));
}

Test(dtgraph, infinity_where_no_chain_exists)
{
	/* a DT graph with two edges: CHW -> HWC -> CHW8c */
	struct rt_transform two[2] = {*transform("layout_chw_to_hwc"), *transform("layout_hwc_to_chw8c")};
	struct options o = options("greedy");
	struct dt_paths dp;
	dt_paths_compute(&dp, &o, two, 2, 1, 16, 8, 8);
	int steps[DT_NL];
	cr_assert_eq(dt_chain(&dp, RT_L_CHW, RT_L_CHW8C, steps), 2);
	cr_assert_eq(steps[0], 0);
	cr_assert_eq(steps[1], 1);
	cr_assert(isinf(dp.cost[RT_L_CHW8C][RT_L_CHW]));
	cr_assert_eq(dt_chain(&dp, RT_L_CHW8C, RT_L_CHW, steps), -1);
	cr_assert_eq(dp.next[RT_L_CHW8C][RT_L_CHW], -1);
	for (int a = 0; a < DT_NL; a++)
		if (a != RT_L_HCW)
			cr_assert(isinf(dp.cost[a][RT_L_HCW]), "nothing reaches HCW");
	int from;
	cr_assert(isinf(dt_cheapest(&dp, 1u << RT_L_CHW8C, RT_L_HWC, &from)));
	cr_assert_eq(from, -1);
	cr_assert_float_eq(dt_cheapest(&dp, 1u << RT_L_CHW | 1u << RT_L_HWC, RT_L_CHW8C, &from),
	                   dp.cost[RT_L_HWC][RT_L_CHW8C], 1e-12);
	cr_assert_eq(from, RT_L_HWC);
}

/* ---- candidates ------------------------------------------------------------------------ */

Test(candidates, strategies_narrow_the_rows)
{
	struct graph *g = fanout_graph();
	struct node *b = find_node(g, "b"), *c = find_node(g, "c"), *cat = find_node(g, "cat");
	struct options o = options("greedy");
	struct diag d;
	diag_init(&d, "m.onnx", stderr);
	struct sel_alt *alt;
	int all = cand_alternatives(b, &o, "pbqp", &alt, NULL, &d);
	cr_assert_gt(all, 10);
	free(alt);
	int n = cand_alternatives(b, &o, "canonical", &alt, NULL, &d);
	cr_assert(n > 0 && n < all);
	for (int a = 0; a < n; a++)
		cr_assert(alt[a].in == RT_L_CHW && alt[a].out == RT_L_CHW, "%s", alt[a].prim->name);
	free(alt);
	int fell = 0;
	n = cand_alternatives(b, &o, "family:winograd", &alt, &fell, &d);
	cr_assert_eq(fell, 0);
	for (int a = 0; a < n; a++)
		cr_assert_eq(alt[a].prim->family, RT_FAM_WINOGRAD);
	free(alt);
	/* winograd has no 1x1 row: sum2d, and the fall-back is said */
	n = cand_alternatives(c, &o, "family:winograd", &alt, &fell, &d);
	cr_assert_eq(fell, 1);
	for (int a = 0; a < n; a++)
		cr_assert_eq(alt[a].prim->family, RT_FAM_SUM2D);
	free(alt);
	/* a channel Concat of 16-channel images: every layout, in = out, both
	 * inputs read in it; the baselines keep CHW. In CHW and the blocked
	 * layouts plan_memory makes it zero-copy (its inputs slices of its
	 * output), so it costs nothing there; in HCW and HWC it copies */
	n = cand_alternatives(cat, &o, "pbqp", &alt, NULL, &d);
	cr_assert_eq(n, RT_L_COUNT_);
	unsigned seen = 0;
	for (int a = 0; a < n; a++) {
		cr_assert_null(alt[a].prim);
		cr_assert_not_null(alt[a].nck);
		cr_assert_eq(alt[a].in, alt[a].out);
		cr_assert_eq(alt[a].n_in, 2);
		if (alt[a].in == RT_L_HCW || alt[a].in == RT_L_HWC)
			cr_assert_gt(alt[a].cost_us, 0, "%s", alt[a].nck->name);
		else
			cr_assert_eq(alt[a].cost_us, 0, "%s is zero-copy", alt[a].nck->name);
		seen |= 1u << alt[a].in;
	}
	cr_assert_eq(seen, (1u << RT_L_COUNT_) - 1);
	free(alt);
	/* 8-channel inputs are not whole 16-channel blocks: that Concat copies
	 * in CHW16c, and is free in CHW8c and CHW */
	struct graph *g2 = inception_graph();
	n = cand_alternatives(find_node(g2, "cat"), &o, "pbqp", &alt, NULL, &d);
	seen = 0;
	for (int a = 0; a < n; a++) {
		if (alt[a].in == RT_L_CHW16C || alt[a].in == RT_L_HWC)
			cr_assert_gt(alt[a].cost_us, 0, "%s", alt[a].nck->name);
		else if (alt[a].in == RT_L_CHW8C || alt[a].in == RT_L_CHW)
			cr_assert_eq(alt[a].cost_us, 0, "%s is zero-copy", alt[a].nck->name);
		seen |= 1u << alt[a].in;
	}
	cr_assert_eq(seen & (1u << RT_L_CHW | 1u << RT_L_CHW8C | 1u << RT_L_HWC),
	             1u << RT_L_CHW | 1u << RT_L_CHW8C | 1u << RT_L_HWC);
	free(alt);
	ir_graph_free(g2);
	cr_assert_eq(cand_alternatives(cat, &o, "canonical", &alt, NULL, &d), 1);
	cr_assert_eq(alt[0].in, RT_L_CHW);
	cr_assert_eq(alt[0].out, RT_L_CHW);
	free(alt);
	cr_assert_eq(d.errors, 0);
	ir_graph_free(g);
}

Test(candidates, forced_rows)
{
	struct graph *g = fanout_graph();
	struct node *c = find_node(g, "c");
	struct force_primitive f[1] = {{"c", "conv_im2_1x1_ik_chw_hwc"}};
	struct options o = options("pbqp");
	o.n_force = 1;
	o.force = f;
	char *text = NULL;
	size_t len = 0;
	FILE *mem = open_memstream(&text, &len);
	struct diag d;
	diag_init(&d, "m.onnx", mem);
	struct sel_alt *alt;
	cr_assert_eq(cand_alternatives(c, &o, "pbqp", &alt, NULL, &d), 1);
	cr_assert_str_eq(alt[0].prim->name, "conv_im2_1x1_ik_chw_hwc");
	cr_assert_eq(alt[0].out, RT_L_HWC);
	free(alt);
	f[0].primitive = "conv_winograd_f2x2_3x3_chw";
	cr_assert_eq(cand_alternatives(c, &o, "pbqp", &alt, NULL, &d), -1);
	f[0].primitive = "conv_nonesuch";
	cr_assert_eq(cand_alternatives(c, &o, "pbqp", &alt, NULL, &d), -1);
	fflush(mem);
	cr_assert_eq(d.errors, 2);
	cr_assert_not_null(strstr(text, "does not apply to this layer"), "%s", text);
	cr_assert_not_null(strstr(text, "no primitive named 'conv_nonesuch'"), "%s", text);
	fclose(mem);
	free(text);
	ir_graph_free(g);
}

/* ---- PBQP against the local choice ----------------------------------------------------- */

/* Convolution a may write HWC a little cheaper than CHW, but b then reads
 * CHW only after a transform: greedy takes a's local best and pays the
 * transform, PBQP sees both layers and keeps CHW throughout. */
Test(select, pbqp_differs_from_the_local_choice_because_of_transforms)
{
	struct graph *g = chain(0);
	struct node *b = find_node(g, "b");
	struct options o = options("pbqp");
	struct diag d;
	diag_init(&d, "m.onnx", stderr);
	struct selection *s = sel_new(g, &o, "pbqp", &d);
	cr_assert_not_null(s);
	int ia = node_index(s, "a"), ib = node_index(s, "b");
	double t = s->dp[b->inputs[0]->index].cost[RT_L_HWC][RT_L_CHW];
	cr_assert_gt(t, 0);
	price(s, ia, 1e6, "conv_im2_col_copy_ik_chw_hwc", 100);
	s->alt[ia][alt_of(s, ia, "conv_im2_col_copy_ki_chw")].cost_us = 100 + t / 2;
	price(s, ib, 1e6, "conv_im2_col_copy_ki_chw", 100);

	sel_choose_greedy(s);
	cr_assert_str_eq(s->alt[ia][s->choice[ia]].prim->name, "conv_im2_col_copy_ik_chw_hwc");
	double greedy = sel_total(s);
	cr_assert_float_eq(greedy, 200 + t, 1e-9 * greedy);

	double obj = choose_pbqp(s);
	cr_assert_str_eq(s->alt[ia][s->choice[ia]].prim->name, "conv_im2_col_copy_ki_chw");
	cr_assert_str_eq(s->alt[ib][s->choice[ib]].prim->name, "conv_im2_col_copy_ki_chw");
	double pbqp = sel_total(s);
	cr_assert_float_eq(pbqp, 200 + t / 2, 1e-9 * pbqp);
	cr_assert_float_eq(obj, pbqp, 1e-9 * pbqp, "the objective is the legalised cost");
	cr_assert_lt(pbqp, greedy);

	sel_apply(s);
	sel_free(s);
	cr_assert_eq(count_op(g, OP_LAYOUT), 0);
	cr_assert_str_eq(find_node(g, "a")->primitive, "conv_im2_col_copy_ki_chw");
	check_legal(g, "pbqp");
	ir_graph_free(g);
}

/* b and c both read t. Converting t to HWC once for both pays; once per
 * reader it would not: reading HWC saves 0.6 of the conversion per reader.
 * PBQP must count the shared conversion once and legalisation must make
 * exactly one. Greedy, one reader at a time, keeps CHW. */
Test(select, fanout_shares_one_conversion)
{
	struct graph *g = fanout(3); /* both readers 3x3: the same rows apply */
	struct options o = options("pbqp");
	struct diag d;
	diag_init(&d, "m.onnx", stderr);
	struct selection *s = sel_new(g, &o, "pbqp", &d);
	cr_assert_not_null(s);
	int ia = node_index(s, "a"), ib = node_index(s, "b"), ic = node_index(s, "c");
	struct tensor *t = find_node(g, "b")->inputs[0];
	double conv_t = s->dp[t->index].cost[RT_L_CHW][RT_L_HWC];
	cr_assert_gt(conv_t, 0);
	int icat = node_index(s, "cat");
	for (int a = 0; a < s->n_alt[icat]; a++) /* the Concat: free in CHW, dear elsewhere */
		s->alt[icat][a].cost_us = s->alt[icat][a].in == RT_L_CHW ? 0 : 1e6;
	price(s, ia, 1e6, "conv_im2_col_copy_ki_chw", 100);
	for (int i = ib; i <= ic; i += ic - ib) {
		price(s, i, 1e6, "conv_im2_row_copy_ki_hwc_chw", 100);
		s->alt[i][alt_of(s, i, "conv_im2_col_copy_ki_chw")].cost_us = 100 + 0.6 * conv_t;
	}

	sel_choose_greedy(s);
	cr_assert_str_eq(s->alt[ib][s->choice[ib]].prim->name, "conv_im2_col_copy_ki_chw");
	cr_assert_str_eq(s->alt[ic][s->choice[ic]].prim->name, "conv_im2_col_copy_ki_chw");
	double greedy = sel_total(s);

	double obj = choose_pbqp(s);
	cr_assert_str_eq(s->alt[ib][s->choice[ib]].prim->name, "conv_im2_row_copy_ki_hwc_chw");
	cr_assert_str_eq(s->alt[ic][s->choice[ic]].prim->name, "conv_im2_row_copy_ki_hwc_chw");
	double pbqp = sel_total(s);
	cr_assert_float_eq(pbqp, 300 + conv_t, 1e-9 * pbqp);
	cr_assert_float_eq(obj, pbqp, 1e-9 * pbqp, "the shared conversion is counted once");
	cr_assert_lt(pbqp, greedy);

	sel_apply(s);
	sel_free(s);
	cr_assert_eq(count_op(g, OP_LAYOUT), 1, "one conversion for both readers");
	struct node *bn = find_node(g, "b"), *cn = find_node(g, "c");
	cr_assert_eq(bn->inputs[0], cn->inputs[0]);
	cr_assert_eq(bn->inputs[0]->layout, LAYOUT_HWC);
	cr_assert_eq(bn->inputs[0]->producer->op, OP_LAYOUT);
	check_legal(g, "pbqp");
	ir_graph_free(g);
}

/* A convolution forced to write HWC produces a graph output that a later
 * node also reads: one transform back to CHW writes the original tensor,
 * shared by the reader and the output. */
Test(select, graph_output_in_another_layout_is_converted_back)
{
	struct graph *g = ir_graph_new("m.onnx");
	struct tensor *x = input(g, act(g, "x", IMG(8)));
	struct tensor *y = output(g, act(g, "y", IMG(16)));
	struct tensor *z = output(g, act(g, "z", IMG(16)));
	conv(g, "a", x, 16, 1, y);
	unary(g, OP_RELU, "r", y, z);
	struct force_primitive f[1] = {{"a", "conv_im2_1x1_ik_chw_hwc"}};
	const char *strategies[] = {"pbqp", "greedy"};
	for (int k = 0; k < 2; k++) {
		struct graph *h = k == 0 ? g : NULL;
		if (!h) {
			h = ir_graph_new("m.onnx");
			struct tensor *hx = input(h, act(h, "x", IMG(8)));
			struct tensor *hy = output(h, act(h, "y", IMG(16)));
			struct tensor *hz = output(h, act(h, "z", IMG(16)));
			conv(h, "a", hx, 16, 1, hy);
			unary(h, OP_RELU, "r", hy, hz);
		}
		struct options o = options(strategies[k]);
		o.n_force = 1;
		o.force = f;
		struct diag d;
		diag_init(&d, "m.onnx", stderr);
		cr_assert_eq(pass_select(h, &o, &d), 0);
		struct node *a = find_node(h, "a");
		struct tensor *hy = h->outputs[0];
		cr_assert_str_eq(a->primitive, "conv_im2_1x1_ik_chw_hwc");
		cr_assert_neq(a->outputs[0], hy);
		cr_assert_eq(a->outputs[0]->layout, LAYOUT_HWC);
		cr_assert_eq(count_op(h, OP_LAYOUT), 1, "%s", strategies[k]);
		cr_assert_eq(hy->producer->op, OP_LAYOUT);
		cr_assert_eq(hy->layout, LAYOUT_MODEL);
		cr_assert_eq(find_node(h, "r")->inputs[0], hy);
		cr_assert_lt(hy->producer->index, find_node(h, "r")->index);
		check_legal(h, strategies[k]);
		ir_graph_free(h);
	}
}

/* ---- every strategy on small graphs ---------------------------------------------------- */

Test(select, every_strategy_leaves_a_legal_graph)
{
	static const char *const strategies[] = {
		"greedy", "pbqp", "canonical", "sum2d", "reference", "family:sum2d", "family:direct",
		"family:im2", "family:kn2", "family:winograd", "family:fft", "family:depthwise"};
	struct graph *(*const graphs[])(void) = {chain_graph, fanout_graph, residual_graph,
	                                         inception_graph, pool_graph};
	for (size_t gi = 0; gi < sizeof graphs / sizeof graphs[0]; gi++)
		for (size_t si = 0; si < sizeof strategies / sizeof strategies[0]; si++) {
			struct graph *g = graphs[gi]();
			struct options o = options(strategies[si]);
			struct diag d;
			diag_init(&d, "m.onnx", stderr);
			cr_assert_eq(pass_select(g, &o, &d), 0, "graph %zu, %s", gi, strategies[si]);
			check_legal(g, strategies[si]);
			ir_graph_free(g);
		}
}

/* Under the built-in costs PBQP is never worse than greedy, and its
 * objective is what legalisation then costs. */
Test(select, pbqp_objective_is_the_legalised_cost_and_beats_greedy)
{
	struct graph *(*const graphs[])(void) = {chain_graph, fanout_graph, residual_graph,
	                                         inception_graph, pool_graph};
	for (size_t gi = 0; gi < sizeof graphs / sizeof graphs[0]; gi++) {
		struct graph *g = graphs[gi]();
		struct options o = options("pbqp");
		struct diag d;
		diag_init(&d, "m.onnx", stderr);
		struct selection *s = sel_new(g, &o, "pbqp", &d);
		sel_choose_greedy(s);
		double greedy = sel_total(s);
		double obj = choose_pbqp(s);
		double pbqp = sel_total(s);
		cr_assert_float_eq(obj, pbqp, 1e-9 * pbqp, "graph %zu", gi);
		cr_assert_leq(pbqp, greedy * (1 + 1e-12), "graph %zu", gi);
		sel_free(s);
		ir_graph_free(g);
	}
}

Test(select, unknown_strategy_lists_the_known_ones)
{
	struct graph *g = chain_graph();
	struct options o = options("fastest");
	char *text = NULL;
	size_t len = 0;
	FILE *mem = open_memstream(&text, &len);
	struct diag d;
	diag_init(&d, "m.onnx", mem);
	cr_assert_eq(pass_select(g, &o, &d), 1);
	fflush(mem);
	cr_assert_not_null(strstr(text, "--strategy fastest: expected pbqp, greedy, canonical"), "%s",
	                   text);
	fclose(mem);
	free(text);
	ir_graph_free(g);
}

/* --dump-pbqp writes an instance pbqp_read accepts, with a node per layer. */
Test(select, dump_pbqp_writes_the_instance)
{
	struct graph *g = fanout_graph();
	char path[] = "/tmp/test_select_XXXXXX";
	int fd = mkstemp(path);
	cr_assert_geq(fd, 0);
	struct options o = options("pbqp");
	o.dump_pbqp = path;
	struct diag d;
	diag_init(&d, "m.onnx", stderr);
	cr_assert_eq(pass_select(g, &o, &d), 0);
	FILE *f = fopen(path, "r");
	char err[256];
	struct pbqp *q = pbqp_read(f, err, sizeof err);
	cr_assert_not_null(q, "%s", err);
	cr_assert_geq(pbqp_n_nodes(q), 4);
	pbqp_free(q);
	fclose(f);
	close(fd);
	unlink(path);
	ir_graph_free(g);
}

/* ---- PBQP against brute force ------------------------------------------------------------- */

/* Keeps, for every convolution of s, one alternative per distinct pair of
 * (input, output) layouts (at most 6), priced at random in [0, 2 scale):
 * small enough to enumerate every assignment. */
static void shrink_and_price(struct selection *s, unsigned *seed, double scale)
{
	for (int i = 0; i < s->n; i++) {
		if (s->n_alt[i] < 2)
			continue;
		int k = 0;
		for (int a = 0; a < s->n_alt[i] && k < 6; a++) {
			int seen = 0;
			for (int b = 0; b < k; b++)
				seen |= s->alt[i][b].in == s->alt[i][a].in && s->alt[i][b].out == s->alt[i][a].out;
			if (!seen) {
				struct sel_alt tmp = s->alt[i][k];
				s->alt[i][k] = s->alt[i][a];
				s->alt[i][a] = tmp;
				k++;
			}
		}
		s->n_alt[i] = k;
		for (int a = 0; a < k; a++) {
			*seed = *seed * 1103515245u + 12345u;
			s->alt[i][a].cost_us = 2 * scale * (double)(*seed >> 8 & 0xffff) / 65536.0;
		}
	}
}

static double brute_force_total(struct selection *s)
{
	double best = INFINITY;
	for (int i = 0; i < s->n; i++)
		s->choice[i] = 0;
	for (;;) {
		double t = sel_total(s);
		if (t < best)
			best = t;
		int i = 0;
		while (i < s->n && ++s->choice[i] == s->n_alt[i])
			s->choice[i++] = 0;
		if (i == s->n)
			return best;
	}
}

/* Random prices on four graphs, then, with warm set, random workspaces
 * (some none) and warm gains up to each alternative's cost (select.c,
 * warm_gain): the PBQP optimum is the cheapest legalised assignment of all,
 * and its objective what legalisation costs. Returns how many optima the
 * warm gains lowered. */
static int pbqp_against_brute_force(unsigned seed, int warm)
{
	struct graph *(*const graphs[])(void) = {chain_graph, fanout_graph, residual_graph,
	                                         inception_graph};
	int lowered = 0;
	for (size_t gi = 0; gi < sizeof graphs / sizeof graphs[0]; gi++)
		for (int round = 0; round < (gi == 3 ? 4 : 25); round++) {
			struct graph *g = graphs[gi]();
			struct options o = options("pbqp");
			struct diag d;
			diag_init(&d, "m.onnx", stderr);
			struct selection *s = sel_new(g, &o, "pbqp", &d);
			struct tensor *x = g->inputs[0];
			shrink_and_price(s, &seed, s->dp[x->index].cost[RT_L_CHW][RT_L_HWC]);
			double cold = brute_force_total(s);
			for (int i = 0; warm && i < s->n; i++)
				for (int a = 0; a < s->n_alt[i]; a++) {
					seed = seed * 1103515245u + 12345u;
					unsigned r = seed >> 8;
					s->alt[i][a].ws_floats = r % 3 == 0 ? 0 : (double)(1 + r % 5) * 1000;
					s->alt[i][a].warm_gain_us = s->alt[i][a].ws_floats > 0 ?
					        s->alt[i][a].cost_us * (double)(r >> 4 & 0xff) / 256.0 : 0;
				}
			double best = warm ? brute_force_total(s) : cold;
			lowered += best < cold;
			double obj = choose_pbqp(s);
			double pbqp = sel_total(s);
			cr_assert_float_eq(pbqp, best, 1e-9 * best, "graph %zu round %d: PBQP %g, best %g",
			                   gi, round, pbqp, best);
			cr_assert_float_eq(obj, pbqp, 1e-9 * pbqp, "graph %zu round %d", gi, round);
			sel_free(s);
			ir_graph_free(g);
		}
	return lowered;
}

Test(select, pbqp_matches_brute_force_over_legalised_costs)
{
	pbqp_against_brute_force(12345, 0);
}

/* With workspaces the node before leaves warm, the edges that price a cold
 * workspace keep the optimum and the objective right (the node vectors
 * alone would not: the test fails without the edges, which is how it was
 * checked). */
Test(select, pbqp_matches_brute_force_with_warm_workspaces)
{
	int lowered = pbqp_against_brute_force(777, 1);
	cr_assert_gt(lowered, 20, "the warm gains lowered only %d optima", lowered);
}

/* --verify-ilp agrees on a graph with fan-out, or says it needs GLPK. */
Test(select, verify_ilp_agrees_or_needs_glpk)
{
	struct graph *g = inception_graph();
	struct options o = options("pbqp");
	o.verify_ilp = 1;
	char *text = NULL;
	size_t len = 0;
	FILE *mem = open_memstream(&text, &len);
	struct diag d;
	diag_init(&d, "m.onnx", mem);
	int rc = pass_select(g, &o, &d);
	fflush(mem);
#ifdef HAVE_GLPK
	cr_assert_eq(rc, 0, "%s", text);
	check_legal(g, "pbqp");
#else
	cr_assert_eq(rc, 1);
	cr_assert_not_null(strstr(text, "--verify-ilp needs GLPK"), "%s", text);
#endif
	fclose(mem);
	free(text);
	ir_graph_free(g);
}

/* --report: the choice per layer with the transforms inserted, the totals
 * of the other strategies under the same costs, the solver's statistics and
 * where the costs came from. */
Test(select, report_compares_the_strategies)
{
	struct graph *g = fanout_graph();
	struct force_primitive f[1] = {{"b", "conv_im2_row_copy_ki_hwc_chw"}};
	struct options o = options("pbqp");
	o.report = 1;
	o.n_force = 1;
	o.force = f;
	struct diag d;
	diag_init(&d, "m.onnx", stderr);
	/* the report goes to stdout: catch it in a file */
	FILE *out = tmpfile();
	cr_assert_not_null(out);
	fflush(stdout);
	int saved = dup(1);
	dup2(fileno(out), 1);
	int rc = pass_select(g, &o, &d);
	fflush(stdout);
	dup2(saved, 1);
	close(saved);
	cr_assert_eq(rc, 0);
	rewind(out);
	char text[8192];
	size_t n = fread(text, 1, sizeof text - 1, out);
	text[n] = '\0';
	fclose(out);
	char want[256];
	snprintf(want, sizeof want, "selection: strategy pbqp; costs: %s", costs_source(&o));
	cr_assert_not_null(strstr(text, want), "%s", text);
	cr_assert_not_null(strstr(text, "conv_im2_row_copy_ki_hwc_chw"), "%s", text);
	/* b reads HWC: some transform into HWC is inserted (from CHW or from the
	 * blocked layout a chose, whichever the cost model finds cheaper) */
	const char *into_hwc = strstr(text, "_to_hwc ");
	cr_assert(into_hwc && strstr(text, "+ layout_") && strstr(text, "+ layout_") < into_hwc,
	          "the transform b needs: %s", text);
	cr_assert_not_null(strstr(text, "  pbqp: "), "%s", text);
	cr_assert_not_null(strstr(text, "proven optimal"), "%s", text);
	const char *rivals[] = {"    pbqp ", "    greedy ", "    canonical ", "    sum2d "};
	for (int i = 0; i < 4; i++)
		cr_assert_not_null(strstr(text, rivals[i]), "no %s total: %s", rivals[i], text);
	cr_assert_not_null(strstr(text, "(chosen)"), "%s", text);
	/* winograd has no 1x1 row (c), so it is not compared */
	cr_assert_null(strstr(text, "family:winograd"), "%s", text);
	ir_graph_free(g);
}

/* Issue 9: a pool between two convolutions that run in CHW16c runs in
 * CHW16c too (its vectorised kernel costs less than the scalar CHW one,
 * and reading CHW would cost two transforms), and the global pool after the
 * second reads CHW16c and writes [N, C]: the only transforms left are the
 * input's and none at the output. Under canonical the pool stays CHW. */
Test(select, pool_between_blocked_convs_stays_blocked)
{
	struct graph *g = pool_graph();
	struct options o = options("pbqp");
	struct diag d;
	diag_init(&d, "m.onnx", stderr);
	struct selection *s = sel_new(g, &o, "pbqp", &d);
	cr_assert_not_null(s);
	int ia = node_index(s, "a"), ib = node_index(s, "b"), ip = node_index(s, "pool");
	price(s, ia, 1e6, "conv_direct_chw16c", 100);
	price(s, ib, 1e6, "conv_direct_chw16c", 100);
	cr_assert_gt(s->n_alt[ip], 1, "the pool has a choice of layouts");
	double obj = choose_pbqp(s);
	cr_assert_float_eq(obj, sel_total(s), 1e-9 * obj);
	cr_assert_eq(s->alt[ip][s->choice[ip]].in, RT_L_CHW16C, "the pool reads %s",
	             rt_layout_names[s->alt[ip][s->choice[ip]].in]);
	sel_apply(s);
	sel_free(s);
	cr_assert_str_eq(find_node(g, "pool")->primitive, "nc_pool_chw16c");
	cr_assert_str_eq(find_node(g, "gap")->primitive, "nc_gpool_chw16c");
	cr_assert_eq(count_op(g, OP_LAYOUT), 1, "only the input is converted");
	check_legal(g, "pbqp");
	ir_graph_free(g);

	g = pool_graph();
	o = options("canonical");
	cr_assert_eq(pass_select(g, &o, &d), 0);
	cr_assert_str_eq(find_node(g, "pool")->primitive, "nc_pool_chw");
	check_legal(g, "canonical");
	ir_graph_free(g);
}

/* A Winograd layer's workspace follows the threads the code is built for
 * (struct rt_conv2d.threads, rt_wino_cut_of): select sizes it through
 * pass_conv_params as the emitter will describe the layer, one set of V and
 * M at --threads 1 and more for more threads (60 x 60, 16 -> 24 channels: 2
 * to 19 tile blocks whichever tile the family picks). */
Test(select, winograd_workspace_follows_the_threads)
{
	size_t ws[6] = {0};
	for (int t = 1; t <= 5; t++) {
		struct graph *g = ir_graph_new("m.onnx");
		struct tensor *x = input(g, act(g, "x", SHAPE(1, 16, 60, 60)));
		struct tensor *y = output(g, act(g, "y", SHAPE(1, 24, 60, 60)));
		struct node *n = conv(g, "a", x, 24, 3, y);
		struct options o = options("family:winograd");
		o.threads = t;
		struct diag d;
		diag_init(&d, "m.onnx", stderr);
		cr_assert_eq(pass_select(g, &o, &d), 0);
		const struct rt_prim *r = rt_prim_find(n->primitive);
		cr_assert(r && r->family == RT_FAM_WINOGRAD, "a runs %s", n->primitive);
		struct rt_conv2d p;
		cr_assert_eq(pass_conv_params(n, o.isa, o.threads, &p), 0);
		cr_assert_eq(p.threads, t);
		ws[t] = n->ws_bytes;
		cr_assert_eq(ws[t], r->ws(&p, r->variant) * sizeof(float), "%s at %d threads", r->name, t);
		ir_graph_free(g);
	}
	cr_assert(ws[1] < ws[2] && ws[2] <= ws[3] && ws[3] <= ws[4] && ws[4] <= ws[5],
	          "workspace bytes at 1..5 threads: %zu %zu %zu %zu %zu", ws[1], ws[2], ws[3], ws[4],
	          ws[5]);
}
