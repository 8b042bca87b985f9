/* pbqp_gen.h - random PBQP instances for tests/test_pbqp.c and bench/pbqp.c:
 * random graphs of four shapes, and selection-like instances of a
 * GoogLeNet-sized network (layer nodes whose alternatives are (primitive,
 * input layout, output layout) triples, edges that charge the layout
 * transform between producer and consumer). Everything is static inline:
 * each program includes it once. Deterministic for a given seed. */
#ifndef DNNCC_PBQP_GEN_H
#define DNNCC_PBQP_GEN_H

#include <math.h>
#include <stdint.h>
#include <stdlib.h>

#include "passes/passes.h"

struct rng {
	uint64_t s; /* xorshift64* state, never 0 */
};

static inline uint64_t rng_next(struct rng *r)
{
	r->s ^= r->s >> 12;
	r->s ^= r->s << 25;
	r->s ^= r->s >> 27;
	return r->s * 0x2545F4914F6CDD1DULL;
}

/* Uniform in lo..hi inclusive. */
static inline int rng_int(struct rng *r, int lo, int hi)
{
	return lo + (int)(rng_next(r) % (uint64_t)(hi - lo + 1));
}

/* Uniform in [0, 1). */
static inline double rng_unit(struct rng *r)
{
	return (rng_next(r) >> 11) * (1.0 / 9007199254740992.0);
}

/* GEN_CLUSTERS: node 0 is a hub joined to two cliques of the others, which
 * fall apart once the hub is decided. */
enum gen_shape { GEN_CHAIN, GEN_TREE, GEN_DAG, GEN_DENSE, GEN_CLUSTERS, GEN_N_SHAPES };

/* Half the values are small integers (ties), half are fractional. */
static inline double gen_cost(struct rng *r)
{
	return rng_int(r, 0, 1) ? (double)rng_int(r, 0, 12) : 100 * rng_unit(r);
}

/* Adds a random edge u-v. Some matrices are all zero or independent
 * (r[a] + s[b]), which normalisation removes; entries are INFINITY with
 * probability p_inf, except at the planted pair (pu, pv) when pu >= 0. */
static inline void gen_edge(struct pbqp *q, struct rng *r, int u, int v, double p_inf, int pu, int pv)
{
	int nu = pbqp_n_choices(q, u), nv = pbqp_n_choices(q, v);
	double *m = malloc((size_t)nu * nv * sizeof *m + 1);
	int kind = rng_int(r, 0, 9);
	double rs[128], cs[128];
	for (int a = 0; a < nu; a++)
		rs[a] = gen_cost(r);
	for (int b = 0; b < nv; b++)
		cs[b] = gen_cost(r);
	for (int a = 0; a < nu; a++)
		for (int b = 0; b < nv; b++) {
			double x = kind == 0 ? 0 : kind == 1 ? rs[a] + cs[b] : gen_cost(r);
			if (kind >= 2 && rng_unit(r) < p_inf && !(a == pu && b == pv))
				x = INFINITY;
			m[a * nv + b] = x;
		}
	pbqp_add_edge(q, u, v, m);
	free(m);
}

/* A random instance of n nodes with min_alt..max_alt alternatives (<= 128).
 * With plant set, a random assignment is kept finite, so the instance is
 * feasible; without it, INFINITY entries may make it infeasible. */
static inline struct pbqp *gen_random(struct rng *r, enum gen_shape shape, int n, int min_alt,
                               int max_alt, double p_inf, int plant)
{
	struct pbqp *q = pbqp_new(n);
	int *s = malloc((n ? n : 1) * sizeof *s);
	double c[128];
	for (int u = 0; u < n; u++) {
		int k = rng_int(r, min_alt, max_alt);
		s[u] = plant ? rng_int(r, 0, k - 1) : -1;
		for (int a = 0; a < k; a++)
			c[a] = (rng_unit(r) < p_inf && a != s[u]) ? INFINITY : gen_cost(r);
		pbqp_set_costs(q, u, k, c);
	}
	for (int v = 1; v < n && shape == GEN_CLUSTERS; v++) {
		gen_edge(q, r, 0, v, p_inf, s[0], s[v]);
		for (int u = v - 2; u >= 1; u -= 2)
			gen_edge(q, r, u, v, p_inf, s[u], s[v]);
	}
	for (int v = 1; v < n && shape != GEN_CLUSTERS; v++) {
		int first = shape == GEN_CHAIN ? v - 1 : rng_int(r, 0, v - 1);
		gen_edge(q, r, first, v, p_inf, s[first], s[v]);
		if (shape == GEN_DAG) {
			int extra = rng_int(r, 0, 2);
			for (int k = 0; k < extra; k++) {
				/* Repeats accumulate into the same edge (pbqp_add_edge). */
				int u = rng_int(r, 0, v - 1);
				gen_edge(q, r, u, v, p_inf, s[u], s[v]);
			}
		} else if (shape == GEN_DENSE) {
			for (int u = 0; u < v; u++)
				if (u != first && rng_unit(r) < 0.6)
					gen_edge(q, r, u, v, p_inf, s[u], s[v]);
		}
	}
	free(s);
	return q;
}

/* ---- selection-like instances --------------------------------------------- */

#define GEN_LAYOUTS 3 /* CHW, HCW, HWC */

struct gen_net {
	struct pbqp *q;
	int n;              /* nodes so far */
	int cap;
	int *n_alt;         /* [n] */
	int (*io)[2][80];   /* [n][in/out][alternative] layouts */
	struct rng *r;
	int min_alt, max_alt; /* alternatives of a convolution */
};

/* Transform costs between layouts for one tensor: 0 on the diagonal. */
static inline void gen_transforms(struct rng *r, double d[GEN_LAYOUTS][GEN_LAYOUTS])
{
	for (int a = 0; a < GEN_LAYOUTS; a++)
		for (int b = 0; b < GEN_LAYOUTS; b++)
			d[a][b] = a == b ? 0 : 5 + 125 * rng_unit(r);
}

/* A layer node: a convolution has min_alt..max_alt (primitive, in, out)
 * alternatives with costs of 50..2000 us; any other layer one alternative
 * per layout (in = out) of 5..60 us; a graph input or output one fixed
 * alternative in CHW at no cost. */
enum gen_layer { GEN_CONV, GEN_OTHER, GEN_IO };

static inline int gen_layer(struct gen_net *g, enum gen_layer kind)
{
	int u = g->n++;
	struct rng *r = g->r;
	int k = kind == GEN_CONV ? rng_int(r, g->min_alt, g->max_alt)
	        : kind == GEN_OTHER ? GEN_LAYOUTS : 1;
	double c[80];
	for (int a = 0; a < k; a++) {
		if (kind == GEN_CONV) {
			g->io[u][0][a] = rng_int(r, 0, GEN_LAYOUTS - 1);
			g->io[u][1][a] = rng_int(r, 0, GEN_LAYOUTS - 1);
			c[a] = 50 * exp(log(40.0) * rng_unit(r));
		} else {
			g->io[u][0][a] = g->io[u][1][a] = a;
			c[a] = kind == GEN_OTHER ? 5 + 55 * rng_unit(r) : 0;
		}
	}
	g->n_alt[u] = k;
	pbqp_set_costs(g->q, u, k, c);
	return u;
}

/* The tensor from p to q: the transform from p's output layout to q's input. */
static inline void gen_flow(struct gen_net *g, int p, int q)
{
	double d[GEN_LAYOUTS][GEN_LAYOUTS], m[80 * 80];
	gen_transforms(g->r, d);
	for (int a = 0; a < g->n_alt[p]; a++)
		for (int b = 0; b < g->n_alt[q]; b++)
			m[a * g->n_alt[q] + b] = d[g->io[p][1][a]][g->io[q][0][b]];
	pbqp_add_edge(g->q, p, q, m);
}

/* GoogLeNet (Szegedy et al. 2015) as selection sees it: a stem, nine
 * inception modules (four branches from a fan-out to a concat), pools
 * between stages, a classifier: 91 nodes, 116 edges. With dense_blocks > 0,
 * that many DenseNet-style blocks of four convolutions (each one reads every
 * earlier output of its block) follow; they are not series-parallel, so the
 * exact solver has to branch. */
static inline struct pbqp *gen_googlenet(struct rng *r, int min_alt, int max_alt, int dense_blocks)
{
	enum { MAX_NODES = 200 };
	struct gen_net g = {.q = pbqp_new(MAX_NODES), .cap = MAX_NODES, .r = r,
	                    .min_alt = min_alt, .max_alt = max_alt};
	g.n_alt = calloc(MAX_NODES, sizeof *g.n_alt);
	g.io = calloc(MAX_NODES, sizeof *g.io);
	int prev = gen_layer(&g, GEN_IO);
	const enum gen_layer stem[] = {GEN_CONV, GEN_OTHER, GEN_OTHER, GEN_CONV,
	                               GEN_CONV, GEN_OTHER, GEN_OTHER};
	for (size_t k = 0; k < sizeof stem / sizeof stem[0]; k++) {
		int u = gen_layer(&g, stem[k]);
		gen_flow(&g, prev, u);
		prev = u;
	}
	for (int m = 0; m < 9; m++) {
		int b1 = gen_layer(&g, GEN_CONV);
		int b2r = gen_layer(&g, GEN_CONV), b2 = gen_layer(&g, GEN_CONV);
		int b3r = gen_layer(&g, GEN_CONV), b3 = gen_layer(&g, GEN_CONV);
		int b4p = gen_layer(&g, GEN_OTHER), b4 = gen_layer(&g, GEN_CONV);
		int cat = gen_layer(&g, GEN_OTHER);
		gen_flow(&g, prev, b1);
		gen_flow(&g, prev, b2r);
		gen_flow(&g, prev, b3r);
		gen_flow(&g, prev, b4p);
		gen_flow(&g, b2r, b2);
		gen_flow(&g, b3r, b3);
		gen_flow(&g, b4p, b4);
		gen_flow(&g, b1, cat);
		gen_flow(&g, b2, cat);
		gen_flow(&g, b3, cat);
		gen_flow(&g, b4, cat);
		prev = cat;
		if (m == 1 || m == 6) {
			int pool = gen_layer(&g, GEN_OTHER);
			gen_flow(&g, prev, pool);
			prev = pool;
		}
	}
	for (int b = 0; b < dense_blocks; b++) {
		int layer[5];
		layer[0] = prev;
		for (int k = 1; k < 5; k++) {
			layer[k] = gen_layer(&g, GEN_CONV);
			for (int j = 0; j < k; j++)
				gen_flow(&g, layer[j], layer[k]);
		}
		prev = gen_layer(&g, GEN_OTHER);
		for (int k = 0; k < 5; k++)
			gen_flow(&g, layer[k], prev);
	}
	const enum gen_layer tail[] = {GEN_OTHER, GEN_OTHER, GEN_IO};
	for (size_t k = 0; k < sizeof tail / sizeof tail[0]; k++) {
		int u = gen_layer(&g, tail[k]);
		gen_flow(&g, prev, u);
		prev = u;
	}
	/* Shrink to the nodes used. */
	struct pbqp *q = pbqp_new(g.n);
	for (int u = 0; u < g.n; u++) {
		double c[80];
		for (int a = 0; a < g.n_alt[u]; a++)
			c[a] = pbqp_cost(g.q, u, a);
		pbqp_set_costs(q, u, g.n_alt[u], c);
	}
	for (int e = 0; e < pbqp_n_edges(g.q); e++) {
		int u, v;
		const double *m;
		pbqp_edge(g.q, e, &u, &v, &m);
		pbqp_add_edge(q, u, v, m);
	}
	pbqp_free(g.q);
	free(g.n_alt);
	free(g.io);
	return q;
}

#endif
