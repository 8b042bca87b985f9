/* test_pbqp.c - the PBQP solver (passes/pbqp.c) against its brute-force
 * oracle and against GLPK (passes/ilp.c), on random instances of four
 * shapes with INFINITY entries, feasible and infeasible; the text format's
 * round trip; and the selection example of Anderson & Gregg's Figure 2. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "passes/passes.h"
#include "tests/pbqp_gen.h"

/* Sums of up to a few hundred doubles, taken in different orders. */
static int same_cost(double a, double b)
{
	if (isinf(a) || isinf(b))
		return a == b;
	return fabs(a - b) <= 1e-9 * fmax(1, fmax(fabs(a), fabs(b)));
}

static char *to_text(const struct pbqp *q)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	cr_assert(f);
	cr_assert_eq(pbqp_write(q, f), 0);
	fclose(f);
	return buf;
}

/* What every successful solve must satisfy: a full assignment whose cost on
 * the instance is the reported objective, and an unchanged instance. */
static void check_solution(struct pbqp *q, const char *before)
{
	int n = pbqp_n_nodes(q);
	int *s = malloc((n ? n : 1) * sizeof *s);
	for (int u = 0; u < n; u++) {
		s[u] = pbqp_choice(q, u);
		cr_assert(s[u] >= 0 && s[u] < pbqp_n_choices(q, u), "node %d choice %d of %d", u, s[u],
		          pbqp_n_choices(q, u));
	}
	cr_assert_eq(pbqp_eval(q, s), pbqp_objective(q));
	cr_assert(isfinite(pbqp_objective(q)));
	free(s);
	char *after = to_text(q);
	cr_assert_str_eq(before, after, "pbqp_solve changed the instance");
	free(after);
}

/* pbqp_solve with the trace captured; 1 in *split when the exact search
 * solved independent components on their own. */
static int solve_traced(struct pbqp *q, enum pbqp_mode mode, int *split)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	pbqp_set_trace(q, f);
	int ret = pbqp_solve(q, mode);
	pbqp_set_trace(q, NULL);
	fclose(f);
	*split = strstr(buf, "split into") != NULL;
	free(buf);
	return ret;
}

struct tally {
	int solved, infeasible, rn, not_optimal, branched, split;
	int fallback; /* the heuristic's RN ended infeasible, the exact search decided */
};

/* Heuristic and exact against brute force on one instance. */
static void against_brute(struct pbqp *q, struct tally *t)
{
	cr_assert(pbqp_space(q) <= PBQP_BRUTE_MAX);
	char *text = to_text(q);
	int rb = pbqp_solve(q, PBQP_BRUTE);
	double fb = pbqp_objective(q);
	if (rb == 0)
		check_solution(q, text);

	int split;
	int re = solve_traced(q, PBQP_EXACT, &split);
	t->split += split;
	cr_assert_eq(re, rb, "exact returned %d, brute force %d", re, rb);
	cr_assert_eq(pbqp_get_stats(q)->optimal, 1);
	cr_assert_eq(pbqp_get_stats(q)->n_rn, 0);
	if (pbqp_get_stats(q)->bnb_nodes > 0)
		t->branched++;
	if (re == 0) {
		check_solution(q, text);
		cr_assert(same_cost(pbqp_objective(q), fb), "exact %.17g, brute force %.17g",
		          pbqp_objective(q), fb);
	} else {
		cr_assert(isinf(pbqp_objective(q)));
	}

	int rh = pbqp_solve(q, PBQP_HEURISTIC);
	const struct pbqp_stats *st = pbqp_get_stats(q);
	cr_assert_eq(rh, rb, "heuristic returned %d, brute force %d", rh, rb);
	cr_assert_eq(st->optimal, st->n_rn == 0);
	t->rn += st->n_rn > 0;
	t->fallback += st->bnb_nodes > 0;
	if (rh == 0) {
		check_solution(q, text);
		cr_assert(pbqp_objective(q) >= fb - 1e-9 * fmax(1, fabs(fb)),
		          "heuristic %.17g below the optimum %.17g", pbqp_objective(q), fb);
		if (st->optimal)
			cr_assert(same_cost(pbqp_objective(q), fb),
			          "heuristic says optimal: %.17g, brute force %.17g", pbqp_objective(q),
			          fb);
		else
			t->not_optimal++;
	}
	if (rb == 0)
		t->solved++;
	else
		t->infeasible++;
	free(text);
}

Test(pbqp, random_small_vs_brute_force)
{
	struct rng r = {0x5eed0001};
	struct tally t = {0};
	const double p_inf[] = {0, 0.15, 0.4};
	for (int it = 0; it < 1200; it++) {
		enum gen_shape shape = it % GEN_N_SHAPES;
		int n = shape == GEN_CLUSTERS ? rng_int(&r, 9, 11)
		        : shape == GEN_DENSE  ? rng_int(&r, 4, 9)
		                              : rng_int(&r, 1, 9);
		int max_alt = rng_int(&r, 2, n <= 5 ? 8 : n <= 7 ? 4 : 3);
		struct pbqp *q = gen_random(&r, shape, n, shape >= GEN_DENSE ? 2 : 1, max_alt, p_inf[it % 3],
		                           it % 4 != 3);
		against_brute(q, &t);
		pbqp_free(q);
	}
	/* The instances must exercise every path, or this test proves little. */
	cr_log_info("brute force: %d solved, %d infeasible, %d with RN (%d not optimal), "
	            "%d branched, %d split, %d heuristic fallbacks",
	            t.solved, t.infeasible, t.rn, t.not_optimal, t.branched, t.split, t.fallback);
	cr_assert_gt(t.solved, 600);
	cr_assert_gt(t.infeasible, 20);
	cr_assert_gt(t.rn, 50);
	cr_assert_gt(t.branched, 50);
	cr_assert_gt(t.fallback, 0);
	cr_assert_gt(t.split, 10);
}

/* Few nodes, many alternatives (selection's raw instances have up to ~80):
 * triangles, 4-cliques (degree 3: RN or branching) and paths. */
Test(pbqp, many_alternatives_vs_brute_force)
{
	struct rng r = {0x5eed0002};
	struct tally t = {0};
	for (int it = 0; it < 60; it++) {
		int n = rng_int(&r, 2, 4);
		int max_alt = n == 4 ? 30 : n == 3 ? 80 : 80;
		enum gen_shape shape = it % 2 ? GEN_DENSE : GEN_CHAIN;
		struct pbqp *q = gen_random(&r, shape, n, 1, max_alt, it % 3 ? 0.2 : 0, 1);
		against_brute(q, &t);
		pbqp_free(q);
	}
	cr_assert_eq(t.infeasible, 0);
}

/* Trees and chains have treewidth 1: R0/RI alone solve them, optimally. */
Test(pbqp, trees_and_chains_are_solved_by_reductions)
{
	struct rng r = {0x5eed0003};
	for (int it = 0; it < 20; it++) {
		struct pbqp *q = gen_random(&r, it % 2 ? GEN_TREE : GEN_CHAIN, rng_int(&r, 20, 60), 1, 80,
		                            0.1, 1);
		char *text = to_text(q);
		cr_assert_eq(pbqp_solve(q, PBQP_HEURISTIC), 0);
		const struct pbqp_stats *st = pbqp_get_stats(q);
		cr_assert_eq(st->n_rn, 0);
		cr_assert_eq(st->n_r2, 0);
		cr_assert_eq(st->optimal, 1);
		cr_assert_eq(st->n_r0 + st->n_r1, pbqp_n_nodes(q));
		check_solution(q, text);
		double fh = pbqp_objective(q);
		cr_assert_eq(pbqp_solve(q, PBQP_EXACT), 0);
		cr_assert_eq(pbqp_get_stats(q)->bnb_nodes, 0);
		cr_assert(same_cost(pbqp_objective(q), fh));
		free(text);
		pbqp_free(q);
	}
}

/* Medium instances (tens of nodes, too many assignments for brute force):
 * exact must match the ILP, the heuristic never beat it. */
Test(pbqp, random_medium_vs_glpk)
{
#ifndef HAVE_GLPK
	cr_skip_test("dnncc was built without GLPK");
#else
	struct rng r = {0x5eed0004};
	int solved = 0, infeasible = 0, branched = 0, splits = 0;
	for (int it = 0; it < 60; it++) {
		const enum gen_shape shapes[] = {GEN_DAG, GEN_TREE, GEN_DENSE, GEN_CLUSTERS};
		enum gen_shape shape = shapes[it % 4];
		int n = shape == GEN_DENSE     ? rng_int(&r, 8, 12)
		        : shape == GEN_CLUSTERS ? rng_int(&r, 12, 17)
		                                : rng_int(&r, 20, 45);
		struct pbqp *q = gen_random(&r, shape, n, shape == GEN_CLUSTERS ? 2 : 1,
		                            shape >= GEN_DENSE ? 4 : 6,
		                            it % 2 ? 0.2 : 0, it % 5 != 4);
		char *text = to_text(q);
		int *s = malloc(n * sizeof *s);
		double f_ilp = NAN;
		char err[200] = "";
		int ri = ilp_solve_pbqp(q, s, &f_ilp, err, sizeof err);
		cr_assert(ri == 0 || ri == 1, "GLPK: %s", err);
		int split;
		int re = solve_traced(q, PBQP_EXACT, &split);
		splits += split;
		cr_assert_eq(re == 0, ri == 0, "exact %d, ILP %d", re, ri);
		if (ri == 0) {
			cr_assert(same_cost(pbqp_eval(q, s), f_ilp));
			check_solution(q, text);
			cr_assert(same_cost(pbqp_objective(q), f_ilp), "exact %.17g, ILP %.17g",
			          pbqp_objective(q), f_ilp);
			branched += pbqp_get_stats(q)->bnb_nodes > 0;
			cr_assert_eq(pbqp_solve(q, PBQP_HEURISTIC), 0);
			check_solution(q, text);
			cr_assert(pbqp_objective(q) >= f_ilp - 1e-9 * fmax(1, fabs(f_ilp)));
			if (pbqp_get_stats(q)->optimal)
				cr_assert(same_cost(pbqp_objective(q), f_ilp));
			solved++;
		} else {
			cr_assert_eq(pbqp_solve(q, PBQP_HEURISTIC), -1);
			infeasible++;
		}
		free(s);
		free(text);
		pbqp_free(q);
	}
	cr_log_info("GLPK: %d solved, %d infeasible, %d branched, %d split", solved, infeasible,
	            branched, splits);
	cr_assert_gt(solved, 30);
	cr_assert_gt(branched, 5);
	cr_assert_geq(splits, 3); /* mostly the bound prunes before the hub splits */
#endif
}

Test(pbqp, ilp_without_glpk_says_so)
{
#ifdef HAVE_GLPK
	cr_skip_test("dnncc was built with GLPK");
#else
	struct pbqp *q = pbqp_new(1);
	double c[] = {1};
	pbqp_set_costs(q, 0, 1, c);
	int s[1];
	double f;
	char err[200] = "";
	cr_assert_eq(ilp_solve_pbqp(q, s, &f, err, sizeof err), -1);
	cr_assert(strstr(err, "without GLPK"), "%s", err);
	pbqp_free(q);
#endif
}

static struct pbqp *coloring(int n_nodes, int n_colors, const int (*edges)[2], int n_edges)
{
	struct pbqp *q = pbqp_new(n_nodes);
	double c[8] = {0}, m[64];
	for (int u = 0; u < n_nodes; u++) {
		for (int a = 0; a < n_colors; a++)
			c[a] = a; /* prefer low colours, so the heuristic is tempted */
		pbqp_set_costs(q, u, n_colors, c);
	}
	for (int a = 0; a < n_colors; a++)
		for (int b = 0; b < n_colors; b++)
			m[a * n_colors + b] = a == b ? INFINITY : 0;
	for (int e = 0; e < n_edges; e++)
		pbqp_add_edge(q, edges[e][0], edges[e][1], m);
	return q;
}

static void all_modes_infeasible(struct pbqp *q)
{
	for (int mode = PBQP_HEURISTIC; mode <= PBQP_BRUTE; mode++) {
		cr_assert_eq(pbqp_solve(q, mode), -1, "mode %d", mode);
		cr_assert(isinf(pbqp_objective(q)));
	}
#ifdef HAVE_GLPK
	int s[16];
	double f;
	char err[200];
	cr_assert_eq(ilp_solve_pbqp(q, s, &f, err, sizeof err), 1);
#endif
}

Test(pbqp, infeasible_instances)
{
	/* A node with every alternative forbidden, and one with none at all. */
	struct pbqp *q = pbqp_new(2);
	double c[] = {INFINITY, INFINITY}, m[4] = {0};
	pbqp_set_costs(q, 0, 2, c);
	c[0] = 1;
	pbqp_set_costs(q, 1, 2, c);
	pbqp_add_edge(q, 0, 1, m);
	all_modes_infeasible(q);
	pbqp_free(q);
	q = pbqp_new(3);
	double one[] = {1};
	pbqp_set_costs(q, 0, 1, one);
	pbqp_set_costs(q, 2, 1, one);
	cr_assert_eq(pbqp_solve(q, PBQP_EXACT), -1);
	cr_assert_eq(pbqp_solve(q, PBQP_HEURISTIC), -1);
	pbqp_free(q);

	/* A triangle cannot take two colours: found by RII. */
	static const int tri[][2] = {{0, 1}, {1, 2}, {2, 0}};
	q = coloring(3, 2, tri, 3);
	all_modes_infeasible(q);
	pbqp_free(q);

	/* K4 cannot take three colours: every node has degree 3, so the
	 * heuristic's RN must not be taken as proof, and branching decides. */
	static const int k4[][2] = {{0, 1}, {0, 2}, {0, 3}, {1, 2}, {1, 3}, {2, 3}};
	q = coloring(4, 3, k4, 6);
	all_modes_infeasible(q);
	pbqp_free(q);

	/* ... but it takes four, at cost 0 + 1 + 2 + 3. */
	q = coloring(4, 4, k4, 6);
	cr_assert_eq(pbqp_solve(q, PBQP_EXACT), 0);
	cr_assert_eq(pbqp_objective(q), 6);
	cr_assert_eq(pbqp_solve(q, PBQP_HEURISTIC), 0);
	cr_assert_geq(pbqp_objective(q), 6);
	pbqp_free(q);
}

/* A dense instance where RN's greedy choice loses: the heuristic must not
 * claim optimality there, and the exact search must find the optimum. */
Test(pbqp, heuristic_gap_is_reported)
{
	struct rng r = {0x5eed0005};
	int found = 0;
	for (int it = 0; it < 500 && !found; it++) {
		struct pbqp *q = gen_random(&r, GEN_DENSE, 7, 2, 4, 0, 1);
		cr_assert_eq(pbqp_solve(q, PBQP_BRUTE), 0);
		double fb = pbqp_objective(q);
		cr_assert_eq(pbqp_solve(q, PBQP_HEURISTIC), 0);
		if (pbqp_objective(q) > fb + 1e-9) {
			cr_assert_eq(pbqp_get_stats(q)->optimal, 0);
			cr_assert_gt(pbqp_get_stats(q)->n_rn, 0);
			cr_assert_eq(pbqp_solve(q, PBQP_EXACT), 0);
			cr_assert(same_cost(pbqp_objective(q), fb));
			cr_assert_gt(pbqp_get_stats(q)->bnb_nodes, 0);
			found = 1;
		}
		pbqp_free(q);
	}
	cr_assert(found, "no random dense instance where RN loses: the heuristic gap is untested");
}

/* The branch limit: the best assignment found so far, not claimed optimal. */
Test(pbqp, branch_limit)
{
	struct rng r = {0x5eed0009};
	int limited = 0;
	for (int it = 0; it < 200 && limited < 10; it++) {
		struct pbqp *q = gen_random(&r, GEN_DENSE, 9, 3, 4, 0, 1);
		char *text = to_text(q);
		cr_assert_eq(pbqp_solve(q, PBQP_BRUTE), 0);
		double fb = pbqp_objective(q);
		pbqp_set_limit(q, 0);
		cr_assert_eq(pbqp_solve(q, PBQP_EXACT), 0);
		long branches = pbqp_get_stats(q)->bnb_nodes;
		cr_assert(same_cost(pbqp_objective(q), fb));
		if (branches >= 3) {
			pbqp_set_limit(q, 2);
			cr_assert_eq(pbqp_solve(q, PBQP_EXACT), 0);
			const struct pbqp_stats *st = pbqp_get_stats(q);
			cr_assert_eq(st->bnb_nodes, 2);
			cr_assert_eq(st->optimal, 0);
			check_solution(q, text);
			cr_assert_geq(pbqp_objective(q), fb - 1e-9 * fmax(1, fabs(fb)));
			limited++;
		}
		free(text);
		pbqp_free(q);
	}
	cr_assert_eq(limited, 10, "only %d instances needed 3 branches", limited);
}

Test(pbqp, brute_force_refuses_huge_spaces)
{
	struct pbqp *q = pbqp_new(8);
	double c[10] = {0};
	for (int u = 0; u < 8; u++)
		pbqp_set_costs(q, u, 10, c);
	cr_assert_gt(pbqp_space(q), PBQP_BRUTE_MAX);
	cr_assert_eq(pbqp_solve(q, PBQP_BRUTE), -1);
	cr_assert_eq(pbqp_solve(q, PBQP_EXACT), 0);
	cr_assert_eq(pbqp_objective(q), 0);
	pbqp_free(q);
}

Test(pbqp, empty_instance)
{
	struct pbqp *q = pbqp_new(0);
	for (int mode = PBQP_HEURISTIC; mode <= PBQP_BRUTE; mode++) {
		cr_assert_eq(pbqp_solve(q, mode), 0);
		cr_assert_eq(pbqp_objective(q), 0);
	}
	pbqp_free(q);
}

/* Edges accumulate, in either direction (the transpose goes in). */
Test(pbqp, edges_accumulate)
{
	struct pbqp *q = pbqp_new(2);
	double c2[] = {0, 0}, c3[] = {0, 0, 0};
	pbqp_set_costs(q, 0, 2, c2);
	pbqp_set_costs(q, 1, 3, c3);
	double m01[] = {1, 2, 3, 4, 5, 6};    /* [2][3] */
	double m10[] = {10, 40, 20, 50, 30, 60}; /* [3][2] */
	pbqp_add_edge(q, 0, 1, m01);
	pbqp_add_edge(q, 1, 0, m10);
	cr_assert_eq(pbqp_n_edges(q), 1);
	for (int a = 0; a < 2; a++)
		for (int b = 0; b < 3; b++) {
			int s[] = {a, b};
			cr_assert_eq(pbqp_eval(q, s), 11 * m01[a * 3 + b]);
		}
	int bad[] = {2, 0};
	cr_assert(isinf(pbqp_eval(q, bad)));
	pbqp_free(q);
}

Test(pbqp, text_round_trip)
{
	struct rng r = {0x5eed0006};
	for (int it = 0; it < 100; it++) {
		struct pbqp *q = gen_random(&r, it % GEN_N_SHAPES, rng_int(&r, 0, 15), 1, 6, 0.2, 0);
		char *text = to_text(q);
		FILE *f = fmemopen(text, strlen(text), "r");
		char err[200] = "";
		struct pbqp *p = pbqp_read(f, err, sizeof err);
		fclose(f);
		cr_assert(p, "%s", err);
		char *again = to_text(p);
		cr_assert_str_eq(text, again);
		int n = pbqp_n_nodes(q);
		cr_assert_eq(pbqp_n_nodes(p), n);
		cr_assert_eq(pbqp_n_edges(p), pbqp_n_edges(q));
		int *s = malloc((n ? n : 1) * sizeof *s);
		for (int k = 0; k < 20; k++) {
			for (int u = 0; u < n; u++)
				s[u] = rng_int(&r, 0, pbqp_n_choices(q, u) - 1);
			double a = pbqp_eval(q, s), b = pbqp_eval(p, s);
			cr_assert(a == b || (isnan(a) && isnan(b)), "%.17g != %.17g", a, b);
		}
		free(s);
		free(again);
		free(text);
		pbqp_free(p);
		pbqp_free(q);
	}
}

static void read_fails(const char *text, const char *expect)
{
	FILE *f = fmemopen((void *)text, strlen(text), "r");
	char err[200] = "";
	struct pbqp *q = pbqp_read(f, err, sizeof err);
	fclose(f);
	cr_assert_null(q, "read: %s", text);
	cr_assert(strstr(err, expect), "for '%s': '%s' lacks '%s'", text, err, expect);
}

Test(pbqp, text_read_errors_and_comments)
{
	read_fails("", "'pbqp'");
	read_fails("pbqp 2 0\nnode 0 1 1\n", "'node'");
	read_fails("pbqp 1 0\nnode 0 2 1 x\n", "a cost");
	read_fails("pbqp 1 0\nnode 0 2 1 nan\n", "a cost");
	read_fails("pbqp 1 0\nnode 0 1 -inf\n", "a cost");
	read_fails("pbqp 2 1\nnode 0 1 1\nnode 1 1 1\nedge 0 0 1\n", "two different nodes");
	read_fails("pbqp 2 1\nnode 0 1 1\nnode 1 1 1\nedge 0 2 1\n", "a node number");
	read_fails("pbqp 2 1\nnode 0 1 1\nnode 1 2 1 1\nedge 0 1 1\n", "a cost");
	read_fails("pbqp 1 0\nnode 0 1 1 2\n", "the end of the file");
	read_fails("pbqp 1 0\nnode 1 1 1\n", "the next node's number");

	const char *ok = "# two nodes\npbqp 2 1 # header\nnode 0 2 1.5 inf\nnode 1 1 0\n"
	                 "edge 1 0\n 2 # a row of one\n 3\n";
	FILE *f = fmemopen((void *)ok, strlen(ok), "r");
	char err[200] = "";
	struct pbqp *q = pbqp_read(f, err, sizeof err);
	fclose(f);
	cr_assert(q, "%s", err);
	int s[] = {0, 0};
	cr_assert_eq(pbqp_eval(q, s), 1.5 + 2);
	cr_assert_eq(pbqp_solve(q, PBQP_EXACT), 0);
	cr_assert_eq(pbqp_choice(q, 0), 0);
	pbqp_free(q);
}

/* The point of Anderson & Gregg's Figure 2, with our own numbers: picking
 * each layer's fastest primitive ignores the layout transforms between
 * layers. Input (CHW) -> conv1 -> conv2 -> conv3 -> output (CHW); each conv
 * has a CHW and an HWC primitive, and a CHW<->HWC transform costs 5. The
 * fastest primitives are HWC, CHW, HWC (9 + 10 + 8 = 27 us) and need four
 * transforms (47 in all); everything in CHW costs 30. */
Test(pbqp, figure2_local_minimum_is_not_optimal)
{
	enum { CHW, HWC };
	const double conv[3][2] = {{10, 9}, {10, 12}, {10, 8}};
	const double transform[2][2] = {{0, 5}, {5, 0}};
	struct pbqp *q = pbqp_new(5);
	double io[] = {0}; /* the graph input and output: CHW only */
	pbqp_set_costs(q, 0, 1, io);
	pbqp_set_costs(q, 4, 1, io);
	for (int k = 0; k < 3; k++)
		pbqp_set_costs(q, k + 1, 2, conv[k]);
	double from_io[] = {transform[CHW][CHW], transform[CHW][HWC]};
	pbqp_add_edge(q, 0, 1, from_io);
	pbqp_add_edge(q, 1, 2, &transform[0][0]);
	pbqp_add_edge(q, 2, 3, &transform[0][0]);
	pbqp_add_edge(q, 3, 4, from_io);

	int local[5] = {0};
	for (int k = 0; k < 3; k++)
		local[k + 1] = conv[k][HWC] < conv[k][CHW] ? HWC : CHW;
	cr_assert_eq(pbqp_eval(q, local), 47);

	for (int mode = PBQP_HEURISTIC; mode <= PBQP_BRUTE; mode++) {
		cr_assert_eq(pbqp_solve(q, mode), 0);
		cr_assert_eq(pbqp_objective(q), 30);
		cr_assert_lt(pbqp_objective(q), pbqp_eval(q, local));
		int differs = 0;
		for (int u = 1; u <= 3; u++) {
			cr_assert_eq(pbqp_choice(q, u), CHW);
			differs |= pbqp_choice(q, u) != local[u];
		}
		cr_assert(differs);
		cr_assert_eq(pbqp_get_stats(q)->optimal, 1);
	}
	pbqp_free(q);
}

/* A GoogLeNet-sized selection instance is series-parallel: the reductions
 * solve it optimally without RN or branching, and agree with GLPK. The time
 * is logged, not asserted (bench/pbqp measures it). */
Test(pbqp, googlenet_sized_instance)
{
	struct rng r = {0x5eed0007};
	struct pbqp *q = gen_googlenet(&r, 5, 80, 0);
	char *text = to_text(q);
	cr_assert_eq(pbqp_solve(q, PBQP_EXACT), 0);
	const struct pbqp_stats *st = pbqp_get_stats(q);
	cr_assert_eq(st->n_rn, 0);
	cr_assert_eq(st->bnb_nodes, 0);
	cr_assert_eq(st->optimal, 1);
	cr_assert_gt(st->n_r2, 0);
	check_solution(q, text);
	cr_log_info("GoogLeNet-sized: %d nodes, %d edges, exact in %.3f ms", pbqp_n_nodes(q),
	            pbqp_n_edges(q), 1e3 * st->seconds);
	double fe = pbqp_objective(q);
	cr_assert_eq(pbqp_solve(q, PBQP_HEURISTIC), 0);
	cr_assert_eq(pbqp_objective(q), fe);
	free(text);
	pbqp_free(q);

	/* With DenseNet-style blocks the graph is not series-parallel; branching
	 * on the node between the blocks leaves them independent. */
	q = gen_googlenet(&r, 3, 12, 2);
	text = to_text(q);
	int split;
	cr_assert_eq(solve_traced(q, PBQP_EXACT, &split), 0);
	cr_assert(split);
	cr_assert_gt(pbqp_get_stats(q)->bnb_nodes, 0);
	cr_assert_eq(pbqp_get_stats(q)->optimal, 1);
	check_solution(q, text);
	fe = pbqp_objective(q);
#ifdef HAVE_GLPK
	int *s = malloc(pbqp_n_nodes(q) * sizeof *s);
	double fi;
	char err[200];
	cr_assert_eq(ilp_solve_pbqp(q, s, &fi, err, sizeof err), 0, "%s", err);
	cr_assert(same_cost(fe, fi), "exact %.17g, ILP %.17g", fe, fi);
	free(s);
#endif
	free(text);
	pbqp_free(q);
}

Test(pbqp, trace_lists_reductions)
{
	struct rng r = {0x5eed0008};
	struct pbqp *q = gen_random(&r, GEN_DENSE, 7, 2, 3, 0, 1);
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	pbqp_set_trace(q, f);
	cr_assert_eq(pbqp_solve(q, PBQP_EXACT), 0);
	pbqp_set_trace(q, NULL);
	fclose(f);
	const struct pbqp_stats *st = pbqp_get_stats(q);
	int r0 = 0, choose = 0;
	for (char *p = buf; (p = strstr(p, "R0 ")); p++)
		r0++;
	for (char *p = buf; (p = strstr(p, "choose ")); p++)
		choose++;
	cr_assert_eq(r0, st->n_r0, "%s", buf);
	cr_assert_eq(choose, pbqp_n_nodes(q));
	free(buf);
	pbqp_free(q);
}
