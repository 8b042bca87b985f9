/* pbqp.c - a solver for partitioned boolean quadratic problems (Scholz &
 * Eckstein 2002; the reduction rules of Scholz's h_pbqp.c and of Hames &
 * Scholz 2006), used by selection to pick one (primitive, layout) alternative
 * per layer (Anderson & Gregg, CGO 2018).
 *
 * An instance has N nodes; node u has n_u alternatives with a cost vector c_u,
 * and an edge u-v has a matrix C_uv [n_u][n_v]. The objective of an
 * assignment s is sum_u c_u[s_u] + sum_(u,v) C_uv[s_u][s_v]. Entries may be
 * INFINITY (forbidden), never NaN or -INFINITY.
 *
 * Solving works on a copy of the instance (struct wstate), so pbqp_solve can
 * be called again, in another mode, on the same instance:
 *   0. Normalisation: every edge's row minima move into c_u and its column
 *      minima into c_v, so all entries are >= 0 and each row and column has a
 *      zero; rows and columns of forbidden alternatives are zeroed. An edge
 *      that becomes all zero (an independent edge, C[a][b] = r[a] + s[b]) is
 *      removed. Every edge that a reduction creates or changes is normalised.
 *   1. Reductions, lowest degree first: R0 (degree 0: the node's minimum),
 *      RI (degree 1: c_j[b] += min_a c_i[a] + C_ij[a][b]) and RII (degree 2:
 *      C_jk[b][c] += min_a c_i[a] + C_ij[a][b] + C_ik[a][c], merged into an
 *      existing edge j-k). They are exact, and reduce every graph of
 *      treewidth <= 2 (chains, trees, series-parallel inception blocks).
 *   2. When every remaining node has degree >= 3:
 *      PBQP_HEURISTIC applies RN (Scholz 2003): the node of maximum degree
 *      (ties: fewest alternatives) is fixed to
 *      argmin_a c_i[a] + sum_j min_b (C_ij[a][b] + c_j[b]), its rows are
 *      folded into the neighbours, and the result is no longer proven
 *      optimal. Fixing a node with a single alternative is exact and is not
 *      counted as RN.
 *      PBQP_EXACT branches instead (in the style of Hames & Scholz 2006): on
 *      the same node, each alternative in increasing RN score is fixed on a
 *      copy of the state and the reductions resume recursively. Since
 *      normalised edges are >= 0, the committed cost plus the sum of the
 *      remaining nodes' minima is a lower bound; a branch whose bound reaches
 *      the incumbent (seeded by the heuristic) is pruned. When the live
 *      graph falls apart into components (branching on the node between
 *      two DenseNet-style blocks, say), each is searched on its own and
 *      their optima add up, instead of one search tree per combination.
 *      The search stops after pbqp_set_limit's number of branches
 *      (PBQP_DEFAULT_LIMIT), but only once it holds a finite assignment,
 *      with optimal = 0; otherwise it completes and the answer is optimal.
 *      The limit counts branches, not seconds, so a compilation does not
 *      depend on the machine's speed or load.
 *   3. Back-propagation in reverse reduction order: a reduced node takes
 *      argmin_a c_i[a] + sum_j C_ij[a][s_j] over the neighbours it had when it
 *      was reduced (they were reduced later, so they are already decided),
 *      or the alternative it was fixed to.
 * The objective reported is the assignment evaluated on the original
 * instance. PBQP_BRUTE enumerates every assignment (the tests' oracle).
 * Statistics: n_r0, n_r1, n_r2 and n_rn count the reductions of the search
 * (in PBQP_EXACT, over all branches, without the heuristic that seeds the
 * incumbent); bnb_nodes counts the branches taken, 0 when the reductions
 * alone solve the instance. When RN leaves PBQP_HEURISTIC with no finite
 * assignment, it falls back to PBQP_EXACT (and reports its statistics), so
 * that -1 always means that every assignment costs INFINITY; after -1,
 * pbqp_objective is INFINITY and the choices mean nothing.
 * pbqp_set_trace writes one line per reduction, branch and decision.
 *
 * Text format (pbqp_write, pbqp_read). Tokens are separated by white space;
 * a '#' starts a comment that runs to the end of the line.
 *     pbqp N E                   N nodes, E edges
 *     node u n c_0 ... c_{n-1}   once per node, u = 0 .. N-1 in order
 *     edge u v                   E times, u != v, followed by the matrix:
 *     m_00 ... m_0(n_v-1)        n_u rows of n_v entries (rows: u's alternatives)
 *     ...
 * Numbers are written with %.17g, so reading them back gives the same
 * doubles; "inf" is INFINITY. Reading two edges between the same nodes
 * accumulates them, as pbqp_add_edge does. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "passes/passes.h"

struct pbqp_edge {
	int u, v;  /* endpoints, u != v */
	double *m; /* [n_alt[u]][n_alt[v]] row-major, owned */
};

struct pbqp {
	int n;                   /* nodes */
	int *n_alt;              /* [n] alternatives per node */
	double **cost;           /* [n] cost vectors [n_alt[u]], owned (NULL: none yet) */
	struct pbqp_edge *edges; /* [n_edges], at most one per pair of nodes */
	int n_edges, cap_edges;
	int *choice;             /* [n] the last pbqp_solve's assignment */
	double objective;        /* its cost on this instance */
	struct pbqp_stats stats; /* of the last pbqp_solve */
	FILE *trace;             /* reduction trace, not owned; NULL: none */
	long limit;              /* PBQP_EXACT's branch limit; 0: none */
};

struct pbqp *pbqp_new(int n_nodes)
{
	struct pbqp *q = xcalloc(1, sizeof *q);
	if (n_nodes < 0)
		unreachable("pbqp_new: negative node count");
	q->n = n_nodes;
	q->n_alt = xcalloc(n_nodes ? n_nodes : 1, sizeof *q->n_alt);
	q->cost = xcalloc(n_nodes ? n_nodes : 1, sizeof *q->cost);
	q->choice = xcalloc(n_nodes ? n_nodes : 1, sizeof *q->choice);
	for (int u = 0; u < n_nodes; u++)
		q->choice[u] = -1;
	q->objective = INFINITY;
	q->limit = PBQP_DEFAULT_LIMIT;
	return q;
}

void pbqp_free(struct pbqp *q)
{
	if (!q)
		return;
	for (int u = 0; u < q->n; u++)
		free(q->cost[u]);
	for (int e = 0; e < q->n_edges; e++)
		free(q->edges[e].m);
	free(q->edges);
	free(q->cost);
	free(q->n_alt);
	free(q->choice);
	free(q);
}

static int edge_find(const struct pbqp *q, int u, int v)
{
	for (int e = 0; e < q->n_edges; e++)
		if ((q->edges[e].u == u && q->edges[e].v == v) ||
		    (q->edges[e].u == v && q->edges[e].v == u))
			return e;
	return -1;
}

void pbqp_set_costs(struct pbqp *q, int u, int n, const double *costs)
{
	if (u < 0 || u >= q->n || n < 0)
		unreachable("pbqp_set_costs: node or count out of range");
	for (int e = 0; e < q->n_edges; e++)
		if ((q->edges[e].u == u || q->edges[e].v == u) && n != q->n_alt[u])
			unreachable("pbqp_set_costs: changing the alternatives of a node with edges");
	free(q->cost[u]);
	q->cost[u] = xmalloc((n ? n : 1) * sizeof(double));
	if (n)
		memcpy(q->cost[u], costs, n * sizeof(double));
	q->n_alt[u] = n;
}

void pbqp_add_edge(struct pbqp *q, int u, int v, const double *m)
{
	if (u < 0 || u >= q->n || v < 0 || v >= q->n || u == v)
		unreachable("pbqp_add_edge: bad endpoints");
	int nu = q->n_alt[u], nv = q->n_alt[v];
	int e = edge_find(q, u, v);
	if (e >= 0) {
		struct pbqp_edge *ed = &q->edges[e];
		for (int a = 0; a < nu; a++)
			for (int b = 0; b < nv; b++)
				if (ed->u == u)
					ed->m[a * nv + b] += m[a * nv + b];
				else
					ed->m[b * nu + a] += m[a * nv + b];
		return;
	}
	if (q->n_edges == q->cap_edges) {
		q->cap_edges = q->cap_edges ? 2 * q->cap_edges : 16;
		q->edges = xrealloc(q->edges, q->cap_edges * sizeof *q->edges);
	}
	struct pbqp_edge *ed = &q->edges[q->n_edges++];
	ed->u = u;
	ed->v = v;
	ed->m = xmalloc((nu && nv ? nu * nv : 1) * sizeof(double));
	if (nu && nv)
		memcpy(ed->m, m, nu * nv * sizeof(double));
}

int pbqp_n_nodes(const struct pbqp *q) { return q->n; }
int pbqp_n_choices(const struct pbqp *q, int u) { return q->n_alt[u]; }
int pbqp_choice(const struct pbqp *q, int u) { return q->choice[u]; }
double pbqp_objective(const struct pbqp *q) { return q->objective; }
const struct pbqp_stats *pbqp_get_stats(const struct pbqp *q) { return &q->stats; }
void pbqp_set_trace(struct pbqp *q, FILE *out) { q->trace = out; }
void pbqp_set_limit(struct pbqp *q, long max_branches) { q->limit = max_branches; }
double pbqp_cost(const struct pbqp *q, int u, int a) { return q->cost[u][a]; }
int pbqp_n_edges(const struct pbqp *q) { return q->n_edges; }

void pbqp_edge(const struct pbqp *q, int e, int *u, int *v, const double **m)
{
	*u = q->edges[e].u;
	*v = q->edges[e].v;
	*m = q->edges[e].m;
}

double pbqp_space(const struct pbqp *q)
{
	double s = 1;
	for (int u = 0; u < q->n; u++)
		s *= q->n_alt[u];
	return s;
}

double pbqp_eval(const struct pbqp *q, const int *choice)
{
	double f = 0;
	for (int u = 0; u < q->n; u++) {
		if (choice[u] < 0 || choice[u] >= q->n_alt[u])
			return INFINITY;
		f += q->cost[u][choice[u]];
	}
	for (int e = 0; e < q->n_edges; e++) {
		const struct pbqp_edge *ed = &q->edges[e];
		f += ed->m[choice[ed->u] * q->n_alt[ed->v] + choice[ed->v]];
	}
	return f;
}

/* ---- the working copy ------------------------------------------------------ */

struct wedge {
	int u, v;  /* endpoints */
	double *m; /* [na[u]][na[v]], owned by the state; kept after the edge dies,
	              for back-propagation */
	int alive;
};

struct wstate {
	int n;
	const int *na;   /* [n] alternatives: the instance's */
	double **c;      /* [n] working cost vectors, owned; NULL for nodes already
	                    reduced when this state was copied */
	char *alive;     /* [n] not reduced yet */
	int n_alive;
	int **adj;       /* [n] ids of the live edges at the node */
	int *deg, *adj_cap;
	struct wedge *e; /* [ne] */
	int ne, cap;
	double base;     /* cost committed by R0 and by fixed nodes */
};

enum { RED_R0, RED_R1, RED_R2, RED_FIX };

/* One reduced node, for back-propagation. The pointers are into the state
 * that reduced it, which outlives the record (see bnb). */
struct red {
	int node, kind;
	int fixed;          /* RED_FIX: the alternative */
	int n_nb, nb[2];    /* RED_R1, RED_R2: the neighbours */
	const double *m[2]; /* the edges to them */
	int node_is_u[2];   /* 1: m's rows are node's alternatives */
	const double *c;    /* node's cost vector when reduced */
};

struct solver {
	const struct pbqp *q;
	struct red *st;           /* reduction stack */
	int nst, cap;
	struct pbqp_stats *stats; /* where the counts go */
	FILE *trace;
	int *best;                /* [n] the answer; in PBQP_EXACT the incumbent */
	double best_val;          /* its cost (in branch and bound: as the reductions summed it) */
	int *tmp;                 /* [n] PBQP_BRUTE's current assignment */
	int depth;                /* branch-and-bound depth, for the trace */
	long limit;               /* branches before giving up (once best_val is finite); 0: none */
	int stopped;              /* the limit ended the search */
};

static double vmin(const double *c, int n)
{
	double m = INFINITY;
	for (int a = 0; a < n; a++)
		if (c[a] < m)
			m = c[a];
	return m;
}

static void adj_add(struct wstate *S, int u, int id)
{
	if (S->deg[u] == S->adj_cap[u]) {
		S->adj_cap[u] = S->adj_cap[u] ? 2 * S->adj_cap[u] : 4;
		S->adj[u] = xrealloc(S->adj[u], S->adj_cap[u] * sizeof(int));
	}
	S->adj[u][S->deg[u]++] = id;
}

static void adj_remove(struct wstate *S, int u, int id)
{
	for (int k = 0; k < S->deg[u]; k++)
		if (S->adj[u][k] == id) {
			S->adj[u][k] = S->adj[u][--S->deg[u]];
			return;
		}
	unreachable("pbqp: edge missing from its node's adjacency");
}

static struct wstate *ws_new(int n, const int *na)
{
	struct wstate *S = xcalloc(1, sizeof *S);
	int k = n ? n : 1;
	S->n = n;
	S->na = na;
	S->c = xcalloc(k, sizeof *S->c);
	S->alive = xcalloc(k, 1);
	S->adj = xcalloc(k, sizeof *S->adj);
	S->deg = xcalloc(k, sizeof *S->deg);
	S->adj_cap = xcalloc(k, sizeof *S->adj_cap);
	return S;
}

static void ws_free(struct wstate *S)
{
	for (int u = 0; u < S->n; u++) {
		free(S->c[u]);
		free(S->adj[u]);
	}
	for (int e = 0; e < S->ne; e++)
		free(S->e[e].m);
	free(S->e);
	free(S->c);
	free(S->alive);
	free(S->adj);
	free(S->deg);
	free(S->adj_cap);
	free(S);
}

static double *dup_doubles(const double *p, int n)
{
	double *d = xmalloc((n ? n : 1) * sizeof(double));
	if (n)
		memcpy(d, p, n * sizeof(double));
	return d;
}

/* Adds a live edge that takes ownership of m. */
static int ws_add_edge(struct wstate *S, int u, int v, double *m)
{
	if (S->ne == S->cap) {
		S->cap = S->cap ? 2 * S->cap : 16;
		S->e = xrealloc(S->e, S->cap * sizeof *S->e);
	}
	int id = S->ne++;
	S->e[id] = (struct wedge){u, v, m, 1};
	adj_add(S, u, id);
	adj_add(S, v, id);
	return id;
}

static void ws_kill_edge(struct wstate *S, int id)
{
	struct wedge *e = &S->e[id];
	adj_remove(S, e->u, id);
	adj_remove(S, e->v, id);
	e->alive = 0;
}

/* A copy of the live part of S; records of reduced nodes keep pointing into S. */
static struct wstate *ws_copy(const struct wstate *S)
{
	struct wstate *T = ws_new(S->n, S->na);
	T->base = S->base;
	T->n_alive = S->n_alive;
	for (int u = 0; u < S->n; u++) {
		T->alive[u] = S->alive[u];
		if (S->alive[u])
			T->c[u] = dup_doubles(S->c[u], S->na[u]);
	}
	for (int id = 0; id < S->ne; id++) {
		const struct wedge *e = &S->e[id];
		if (e->alive)
			ws_add_edge(T, e->u, e->v, dup_doubles(e->m, S->na[e->u] * S->na[e->v]));
	}
	return T;
}

/* Step 0 on one live edge; kills it when it becomes all zero. */
static void normalize(struct wstate *S, int id)
{
	struct wedge *e = &S->e[id];
	int nu = S->na[e->u], nv = S->na[e->v];
	double *m = e->m, *cu = S->c[e->u], *cv = S->c[e->v];
	for (int a = 0; a < nu; a++) {
		double *row = m + a * nv;
		double r = isinf(cu[a]) ? INFINITY : vmin(row, nv);
		if (isinf(r)) {
			cu[a] = INFINITY;
			memset(row, 0, nv * sizeof(double));
		} else if (r != 0) {
			cu[a] += r;
			for (int b = 0; b < nv; b++)
				row[b] -= r;
		}
	}
	for (int b = 0; b < nv; b++) {
		double r = INFINITY;
		if (!isinf(cv[b]))
			for (int a = 0; a < nu; a++)
				if (!isinf(cu[a]) && m[a * nv + b] < r)
					r = m[a * nv + b];
		if (isinf(r)) {
			cv[b] = INFINITY;
			for (int a = 0; a < nu; a++)
				m[a * nv + b] = 0;
		} else if (r != 0) {
			cv[b] += r;
			for (int a = 0; a < nu; a++)
				if (!isinf(cu[a]))
					m[a * nv + b] -= r;
		}
	}
	for (int k = 0; k < nu * nv; k++)
		if (m[k] != 0)
			return;
	ws_kill_edge(S, id);
}

static void normalize_around(struct wstate *S, int u)
{
	for (int k = S->deg[u] - 1; k >= 0; k--)
		if (k < S->deg[u])
			normalize(S, S->adj[u][k]);
}

static struct wstate *ws_from_instance(const struct pbqp *q)
{
	struct wstate *S = ws_new(q->n, q->n_alt);
	for (int u = 0; u < q->n; u++) {
		S->c[u] = dup_doubles(q->cost[u], q->n_alt[u]);
		S->alive[u] = 1;
	}
	S->n_alive = q->n;
	for (int e = 0; e < q->n_edges; e++) {
		const struct pbqp_edge *ed = &q->edges[e];
		ws_add_edge(S, ed->u, ed->v, dup_doubles(ed->m, q->n_alt[ed->u] * q->n_alt[ed->v]));
	}
	for (int id = 0; id < S->ne; id++)
		if (S->e[id].alive)
			normalize(S, id);
	return S;
}

/* C_e[a][b] with a an alternative of `from` and b of the other end. */
static double edge_at(const struct wstate *S, const struct wedge *e, int from, int a, int b)
{
	return e->u == from ? e->m[a * S->na[e->v] + b] : e->m[b * S->na[e->v] + a];
}

static int other_end(const struct wedge *e, int u) { return e->u == u ? e->v : e->u; }

static void push(struct solver *sv, struct red r)
{
	if (sv->nst == sv->cap) {
		sv->cap = sv->cap ? 2 * sv->cap : 64;
		sv->st = xrealloc(sv->st, sv->cap * sizeof *sv->st);
	}
	sv->st[sv->nst++] = r;
}

static void retire(struct wstate *S, int i)
{
	S->alive[i] = 0;
	S->n_alive--;
}

static void reduce_r0(struct solver *sv, struct wstate *S, int i)
{
	push(sv, (struct red){.node = i, .kind = RED_R0, .c = S->c[i]});
	S->base += vmin(S->c[i], S->na[i]);
	retire(S, i);
	sv->stats->n_r0++;
	if (sv->trace)
		fprintf(sv->trace, "%*sR0 %d\n", 2 * sv->depth, "", i);
}

static void reduce_r1(struct solver *sv, struct wstate *S, int i)
{
	int id = S->adj[i][0];
	struct wedge *e = &S->e[id];
	int j = other_end(e, i), ni = S->na[i], nj = S->na[j];
	const double *ci = S->c[i];
	double *cj = S->c[j];
	for (int b = 0; b < nj; b++) {
		double d = INFINITY;
		for (int a = 0; a < ni; a++) {
			double t = ci[a] + edge_at(S, e, i, a, b);
			if (t < d)
				d = t;
		}
		cj[b] += d;
	}
	push(sv, (struct red){.node = i, .kind = RED_R1, .n_nb = 1, .nb = {j}, .m = {e->m},
	                      .node_is_u = {e->u == i}, .c = ci});
	ws_kill_edge(S, id);
	retire(S, i);
	normalize_around(S, j);
	sv->stats->n_r1++;
	if (sv->trace)
		fprintf(sv->trace, "%*sRI %d into %d\n", 2 * sv->depth, "", i, j);
}

static void reduce_r2(struct solver *sv, struct wstate *S, int i)
{
	int id1 = S->adj[i][0], id2 = S->adj[i][1];
	struct wedge *e1 = &S->e[id1], *e2 = &S->e[id2];
	int j = other_end(e1, i), k = other_end(e2, i);
	int ni = S->na[i], nj = S->na[j], nk = S->na[k];
	const double *ci = S->c[i];
	/* O(ni nj nk), the solver's inner loop: both matrices as rows of i's
	 * alternatives, so the innermost loop runs over contiguous memory. */
	double *delta = xmalloc((nj && nk ? nj * nk : 1) * sizeof(double));
	double *m1 = xmalloc((ni * nj + ni * nk + 1) * sizeof(double)), *m2 = m1 + ni * nj;
	for (int a = 0; a < ni; a++) {
		for (int b = 0; b < nj; b++)
			m1[a * nj + b] = ci[a] + edge_at(S, e1, i, a, b);
		for (int c = 0; c < nk; c++)
			m2[a * nk + c] = edge_at(S, e2, i, a, c);
	}
	for (int t = 0; t < nj * nk; t++)
		delta[t] = INFINITY;
	for (int a = 0; a < ni; a++)
		for (int b = 0; b < nj; b++) {
			double x = m1[a * nj + b], *d = delta + b * nk;
			const double *row = m2 + a * nk;
			for (int c = 0; c < nk; c++) {
				double t = x + row[c];
				d[c] = t < d[c] ? t : d[c];
			}
		}
	free(m1);
	push(sv, (struct red){.node = i, .kind = RED_R2, .n_nb = 2, .nb = {j, k},
	                      .m = {e1->m, e2->m}, .node_is_u = {e1->u == i, e2->u == i},
	                      .c = ci});
	ws_kill_edge(S, id1);
	ws_kill_edge(S, id2);
	retire(S, i);
	int jk = -1;
	for (int t = 0; t < S->deg[j]; t++)
		if (other_end(&S->e[S->adj[j][t]], j) == k)
			jk = S->adj[j][t];
	if (jk < 0) {
		jk = ws_add_edge(S, j, k, delta);
	} else {
		struct wedge *e = &S->e[jk];
		for (int b = 0; b < nj; b++)
			for (int c = 0; c < nk; c++)
				if (e->u == j)
					e->m[b * nk + c] += delta[b * nk + c];
				else
					e->m[c * nj + b] += delta[b * nk + c];
		free(delta);
	}
	normalize(S, jk);
	sv->stats->n_r2++;
	if (sv->trace)
		fprintf(sv->trace, "%*sRII %d into edge %d-%d\n", 2 * sv->depth, "", i, j, k);
}

/* Fixes node i to alternative a: row a of every edge folds into the neighbour. */
static void fix(struct solver *sv, struct wstate *S, int i, int a)
{
	while (S->deg[i] > 0) {
		int id = S->adj[i][0];
		struct wedge *e = &S->e[id];
		int j = other_end(e, i);
		for (int b = 0; b < S->na[j]; b++)
			S->c[j][b] += edge_at(S, e, i, a, b);
		ws_kill_edge(S, id);
		normalize_around(S, j);
	}
	S->base += S->c[i][a];
	push(sv, (struct red){.node = i, .kind = RED_FIX, .fixed = a, .c = S->c[i]});
	retire(S, i);
}

/* The RN score of alternative a of node i. */
static double rn_score(const struct wstate *S, int i, int a)
{
	double s = S->c[i][a];
	for (int k = 0; k < S->deg[i] && !isinf(s); k++) {
		const struct wedge *e = &S->e[S->adj[i][k]];
		int j = other_end(e, i);
		double m = INFINITY;
		for (int b = 0; b < S->na[j]; b++) {
			double t = edge_at(S, e, i, a, b) + S->c[j][b];
			if (t < m)
				m = t;
		}
		s += m;
	}
	return s;
}

/* Max degree, ties to fewest alternatives: the RN and branching node. */
static int pick_node(const struct wstate *S)
{
	int best = -1;
	for (int u = 0; u < S->n; u++)
		if (S->alive[u] && (best < 0 || S->deg[u] > S->deg[best] ||
		                    (S->deg[u] == S->deg[best] && S->na[u] < S->na[best])))
			best = u;
	return best;
}

/* R0, RI and RII, lowest degree first, until none applies. */
static void reduce_exact(struct solver *sv, struct wstate *S)
{
	for (;;) {
		int best = -1;
		for (int u = 0; u < S->n && (best < 0 || S->deg[best] > 0); u++)
			if (S->alive[u] && S->deg[u] <= 2 && (best < 0 || S->deg[u] < S->deg[best]))
				best = u;
		if (best < 0)
			return;
		if (S->deg[best] == 0)
			reduce_r0(sv, S, best);
		else if (S->deg[best] == 1)
			reduce_r1(sv, S, best);
		else
			reduce_r2(sv, S, best);
	}
}

/* Reduces S completely, with RN whenever the exact rules are stuck. */
static void reduce_heuristic(struct solver *sv, struct wstate *S)
{
	for (;;) {
		reduce_exact(sv, S);
		if (S->n_alive == 0)
			return;
		int i = pick_node(S), best = 0;
		double best_s = INFINITY;
		for (int a = 0; a < S->na[i]; a++) {
			double s = rn_score(S, i, a);
			if (s < best_s) {
				best_s = s;
				best = a;
			}
		}
		if (sv->trace)
			fprintf(sv->trace, "%*sRN %d = %d (degree %d, score %.17g)\n", 2 * sv->depth, "",
			        i, best, S->deg[i], best_s);
		if (S->na[i] > 1)
			sv->stats->n_rn++;
		fix(sv, S, i, best);
	}
}

static void backprop(struct solver *sv, int *choice)
{
	for (int k = sv->nst - 1; k >= 0; k--) {
		const struct red *r = &sv->st[k];
		int i = r->node, ni = sv->q->n_alt[i];
		if (r->kind == RED_FIX) {
			choice[i] = r->fixed;
			continue;
		}
		int best = 0;
		double best_t = INFINITY;
		for (int a = 0; a < ni; a++) {
			double t = r->c[a];
			for (int t_nb = 0; t_nb < r->n_nb; t_nb++) {
				int j = r->nb[t_nb], nj = sv->q->n_alt[j], sj = choice[j];
				t += r->node_is_u[t_nb] ? r->m[t_nb][a * nj + sj] : r->m[t_nb][sj * ni + a];
			}
			if (a == 0 || t < best_t) {
				best_t = t;
				best = a;
			}
		}
		choice[i] = best;
	}
}

struct ranked {
	double score;
	int a;
};

static int ranked_cmp(const void *x, const void *y)
{
	const struct ranked *p = x, *r = y;
	if (p->score != r->score)
		return p->score < r->score ? -1 : 1;
	return p->a - r->a;
}

static void bnb(struct solver *sv, struct wstate *S);

/* Seeds the incumbent with the heuristic on a copy of S, unrecorded. */
static void seed(struct solver *sv, const struct wstate *S)
{
	struct pbqp_stats scratch = {0};
	struct pbqp_stats *st = sv->stats;
	FILE *trace = sv->trace;
	struct wstate *H = ws_copy(S);
	int mark = sv->nst;
	sv->stats = &scratch;
	sv->trace = NULL;
	reduce_heuristic(sv, H);
	sv->best_val = H->base;
	backprop(sv, sv->best);
	sv->nst = mark;
	sv->stats = st;
	sv->trace = trace;
	ws_free(H);
	if (sv->trace)
		fprintf(sv->trace, "%*score of %d nodes; heuristic incumbent %.17g\n", 2 * sv->depth, "",
		        S->n_alive, sv->best_val);
}

/* Connected components of S's live nodes: comp[u] for live u; the count. */
static int components(const struct wstate *S, int *comp, int *queue)
{
	int nc = 0;
	for (int u = 0; u < S->n; u++)
		comp[u] = -1;
	for (int r = 0; r < S->n; r++) {
		if (!S->alive[r] || comp[r] >= 0)
			continue;
		int head = 0, tail = 0;
		queue[tail++] = r;
		comp[r] = nc;
		while (head < tail) {
			int u = queue[head++];
			for (int k = 0; k < S->deg[u]; k++) {
				int v = other_end(&S->e[S->adj[u][k]], u);
				if (comp[v] < 0) {
					comp[v] = nc;
					queue[tail++] = v;
				}
			}
		}
		nc++;
	}
	return nc;
}

/* A copy of component c of S alone, with nothing committed (base 0). */
static struct wstate *ws_component(const struct wstate *S, const int *comp, int c)
{
	struct wstate *T = ws_new(S->n, S->na);
	for (int u = 0; u < S->n; u++)
		if (S->alive[u] && comp[u] == c) {
			T->alive[u] = 1;
			T->n_alive++;
			T->c[u] = dup_doubles(S->c[u], S->na[u]);
		}
	for (int id = 0; id < S->ne; id++) {
		const struct wedge *e = &S->e[id];
		if (e->alive && comp[e->u] == c)
			ws_add_edge(T, e->u, e->v, dup_doubles(e->m, S->na[e->u] * S->na[e->v]));
	}
	return T;
}

/* Branch and bound over one component T on its own: its optimal cost, and
 * the choices of its nodes in choice[]. */
static double solve_component(struct solver *sv, struct wstate *T, int *choice)
{
	int n = sv->q->n;
	struct solver sub = {.q = sv->q, .stats = sv->stats, .trace = sv->trace,
	                     .best_val = INFINITY, .depth = sv->depth + 1, .limit = sv->limit};
	sub.best = xmalloc(n * sizeof(int));
	seed(&sub, T);
	bnb(&sub, T);
	for (int u = 0; u < n; u++)
		if (T->c[u]) /* one of the component's nodes */
			choice[u] = sub.best[u];
	sv->stopped |= sub.stopped;
	free(sub.st);
	free(sub.best);
	return sub.best_val;
}

/* When the live graph of S falls apart into components (after branching on
 * an articulation node, say), they are independent: solving each on its own
 * adds their optima instead of multiplying their search trees. Returns 0
 * when S is connected, else 1 after updating the incumbent. */
static int split(struct solver *sv, struct wstate *S, double minsum)
{
	int n = S->n;
	int *comp = xmalloc(3 * n * sizeof(int) + 1), *queue = comp + n, *choice = comp + 2 * n;
	int nc = components(S, comp, queue);
	if (nc < 2) {
		free(comp);
		return 0;
	}
	if (sv->trace)
		fprintf(sv->trace, "%*ssplit into %d components\n", 2 * sv->depth, "", nc);
	double *lb = xcalloc(nc, sizeof *lb); /* [nc] each component's sum of minima */
	for (int u = 0; u < n; u++)
		if (S->alive[u])
			lb[comp[u]] += vmin(S->c[u], S->na[u]);
	double total = S->base, rest = minsum;
	int done = 1;
	for (int c = 0; c < nc && done; c++) {
		rest -= lb[c];
		struct wstate *T = ws_component(S, comp, c);
		total += solve_component(sv, T, choice);
		ws_free(T);
		/* The components left cannot bring it under the incumbent. */
		if (c + 1 < nc && !(total + rest < sv->best_val))
			done = 0;
	}
	if (done && total < sv->best_val) {
		/* Complete the assignment: the components' nodes are chosen, the
		 * nodes reduced before them follow by back-propagation. */
		sv->best_val = total;
		for (int u = 0; u < n; u++)
			if (S->alive[u])
				sv->best[u] = choice[u];
		backprop(sv, sv->best);
	}
	free(lb);
	free(comp);
	return 1;
}

/* Branch and bound over S, which the caller frees. Every record pushed here
 * points into S or a copy that lives until its subtree is done, and is popped
 * before returning. */
static void bnb(struct solver *sv, struct wstate *S)
{
	int mark = sv->nst;
	reduce_exact(sv, S);
	double minsum = 0;
	for (int u = 0; u < S->n; u++)
		if (S->alive[u])
			minsum += vmin(S->c[u], S->na[u]);
	double lb = S->base + minsum;
	if (!(lb < sv->best_val)) {
		if (sv->trace)
			fprintf(sv->trace, "%*sprune: bound %.17g, incumbent %.17g\n", 2 * sv->depth, "",
			        lb, sv->best_val);
		sv->nst = mark;
		return;
	}
	if (S->n_alive == 0) {
		/* Everything is reduced: base is the cost of the back-propagated
		 * assignment (of this search's nodes). */
		if (sv->trace)
			fprintf(sv->trace, "%*sleaf: %.17g\n", 2 * sv->depth, "", S->base);
		if (S->base < sv->best_val) {
			sv->best_val = S->base;
			backprop(sv, sv->best);
		}
		sv->nst = mark;
		return;
	}
	if (split(sv, S, minsum)) {
		sv->nst = mark;
		return;
	}
	int i = pick_node(S), ni = S->na[i];
	struct ranked *order = xmalloc(ni * sizeof *order);
	for (int a = 0; a < ni; a++)
		order[a] = (struct ranked){rn_score(S, i, a), a};
	qsort(order, ni, sizeof *order, ranked_cmp);
	/* Fixing i to a leaves c_i[a] plus, at each neighbour j, at least
	 * min_b C_ij[a][b] + c_j[b]: the RN score. With the other nodes' minima
	 * this bounds the branch before copying; the scores are sorted, so the
	 * first branch over the incumbent ends the loop. */
	double rest = minsum - vmin(S->c[i], ni);
	for (int k = 0; k < S->deg[i]; k++) {
		int j = other_end(&S->e[S->adj[i][k]], i);
		rest -= vmin(S->c[j], S->na[j]);
	}
	int after = sv->nst;
	for (int k = 0; k < ni; k++) {
		int a = order[k].a;
		if (!(S->base + order[k].score + rest < sv->best_val))
			break;
		if (sv->limit && sv->stats->bnb_nodes >= sv->limit && !isinf(sv->best_val)) {
			if (sv->trace && !sv->stopped)
				fprintf(sv->trace, "%*slimit of %ld branches reached\n", 2 * sv->depth, "",
				        sv->limit);
			sv->stopped = 1;
			break;
		}
		struct wstate *T = ws_copy(S);
		sv->stats->bnb_nodes++;
		if (sv->trace)
			fprintf(sv->trace, "%*sbranch %d = %d (degree %d)\n", 2 * sv->depth, "", i, a,
			        S->deg[i]);
		fix(sv, T, i, a);
		sv->depth++;
		bnb(sv, T);
		sv->depth--;
		ws_free(T);
		sv->nst = after;
	}
	free(order);
	sv->nst = mark;
}

/* PBQP_BRUTE: every assignment in lexicographic order, no pruning. */
static void brute(const struct pbqp *q, int u, int *s, double *best_val, int *best)
{
	if (u == q->n) {
		double v = pbqp_eval(q, s);
		if (v < *best_val) {
			*best_val = v;
			memcpy(best, s, q->n * sizeof(int));
		}
		return;
	}
	for (s[u] = 0; s[u] < q->n_alt[u]; s[u]++)
		brute(q, u + 1, s, best_val, best);
}

/* The solving thread's CPU time: on a loaded machine the wall clock also
 * counts the time other jobs held the core (GoogLeNet's 1.6 ms solve read
 * 35-50 ms on the wall clock at load 12). */
static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return ts.tv_sec + 1e-9 * ts.tv_nsec;
}

static void solve_exact(struct solver *sv, struct pbqp_stats *st)
{
	struct wstate *S = ws_from_instance(sv->q);
	reduce_exact(sv, S);
	if (S->n_alive > 0)
		seed(sv, S);
	bnb(sv, S);
	ws_free(S);
	st->optimal = !sv->stopped;
}

int pbqp_solve(struct pbqp *q, enum pbqp_mode mode)
{
	double t0 = now();
	struct pbqp_stats *st = &q->stats;
	memset(st, 0, sizeof *st);
	struct solver sv = {.q = q, .stats = st, .trace = q->trace, .best_val = INFINITY,
	                    .limit = q->limit};
	int k = q->n ? q->n : 1;
	sv.best = xmalloc(k * sizeof(int));
	sv.tmp = xmalloc(k * sizeof(int));
	for (int u = 0; u < q->n; u++)
		sv.best[u] = -1;
	int empty = 0;
	for (int u = 0; u < q->n; u++)
		if (q->n_alt[u] == 0)
			empty = 1;

	int ret = 0;
	if (empty) {
		ret = -1;
	} else if (mode == PBQP_BRUTE) {
		if (pbqp_space(q) > PBQP_BRUTE_MAX) {
			ret = -1;
		} else {
			brute(q, 0, sv.tmp, &sv.best_val, sv.best);
			st->optimal = 1;
		}
	} else if (mode == PBQP_EXACT) {
		solve_exact(&sv, st);
	} else {
		struct wstate *S = ws_from_instance(q);
		reduce_heuristic(&sv, S);
		backprop(&sv, sv.best);
		sv.best_val = pbqp_eval(q, sv.best);
		sv.nst = 0;
		ws_free(S);
		st->optimal = st->n_rn == 0;
		if (isinf(sv.best_val) && st->n_rn > 0) {
			/* RN may have fixed a node into infeasibility: only the exact
			 * search can tell whether some assignment is finite. */
			if (sv.trace)
				fprintf(sv.trace, "heuristic infeasible: exact search\n");
			memset(st, 0, sizeof *st);
			solve_exact(&sv, st);
		}
	}
	if (ret == 0 && isinf(sv.best_val))
		ret = -1;
	memcpy(q->choice, sv.best, q->n * sizeof(int));
	/* The searches add costs in their own order: evaluate the answer once. */
	q->objective = ret == 0 ? pbqp_eval(q, sv.best) : INFINITY;
	if (sv.trace && ret == 0)
		for (int u = 0; u < q->n; u++)
			fprintf(sv.trace, "choose %d = %d\n", u, q->choice[u]);
	free(sv.st);
	free(sv.best);
	free(sv.tmp);
	st->seconds = now() - t0;
	return ret;
}

/* ---- the text format ------------------------------------------------------- */

static void write_num(FILE *out, double x)
{
	if (isinf(x))
		fputs(" inf", out);
	else
		fprintf(out, " %.17g", x);
}

int pbqp_write(const struct pbqp *q, FILE *out)
{
	fprintf(out, "pbqp %d %d\n", q->n, q->n_edges);
	for (int u = 0; u < q->n; u++) {
		fprintf(out, "node %d %d", u, q->n_alt[u]);
		for (int a = 0; a < q->n_alt[u]; a++)
			write_num(out, q->cost[u][a]);
		fputc('\n', out);
	}
	for (int e = 0; e < q->n_edges; e++) {
		const struct pbqp_edge *ed = &q->edges[e];
		int nu = q->n_alt[ed->u], nv = q->n_alt[ed->v];
		fprintf(out, "edge %d %d\n", ed->u, ed->v);
		for (int a = 0; a < nu; a++) {
			for (int b = 0; b < nv; b++)
				write_num(out, ed->m[a * nv + b]);
			fputc('\n', out);
		}
	}
	return ferror(out) ? -1 : 0;
}

struct reader {
	FILE *in;
	char tok[128];
	char *err;
	size_t errlen;
	int failed;
};

/* The next token, or NULL at the end of the file. */
static const char *next_tok(struct reader *r)
{
	int ch, n = 0;
	for (;;) {
		ch = getc(r->in);
		if (ch == '#') {
			while (ch != EOF && ch != '\n')
				ch = getc(r->in);
		}
		if (ch == EOF)
			return NULL;
		if (ch != ' ' && ch != '\t' && ch != '\n' && ch != '\r')
			break;
	}
	while (ch != EOF && ch != ' ' && ch != '\t' && ch != '\n' && ch != '\r' && ch != '#') {
		if (n + 1 < (int)sizeof r->tok)
			r->tok[n++] = (char)ch;
		ch = getc(r->in);
	}
	if (ch == '#')
		ungetc(ch, r->in);
	r->tok[n] = 0;
	return r->tok;
}

static void fail(struct reader *r, const char *what, const char *tok)
{
	if (!r->failed && r->err && r->errlen)
		snprintf(r->err, r->errlen, "pbqp: expected %s, found %s", what,
		         tok ? tok : "end of file");
	r->failed = 1;
}

static int read_word(struct reader *r, const char *word)
{
	const char *t = next_tok(r);
	if (!t || strcmp(t, word) != 0) {
		char what[64];
		snprintf(what, sizeof what, "'%s'", word);
		fail(r, what, t);
		return -1;
	}
	return 0;
}

static int read_int(struct reader *r, const char *what, int lo, int hi, int *x)
{
	const char *t = next_tok(r);
	char *end;
	long v = t ? strtol(t, &end, 10) : 0;
	if (!t || *end || end == t || v < lo || v > hi) {
		fail(r, what, t);
		return -1;
	}
	*x = (int)v;
	return 0;
}

static int read_double(struct reader *r, double *x)
{
	const char *t = next_tok(r);
	char *end;
	double v = t ? strtod(t, &end) : 0;
	if (!t || *end || end == t || isnan(v) || v == -INFINITY) {
		fail(r, "a cost (a number or inf)", t);
		return -1;
	}
	*x = v;
	return 0;
}

struct pbqp *pbqp_read(FILE *in, char *err, size_t errlen)
{
	struct reader r = {.in = in, .err = err, .errlen = errlen};
	int n, ne;
	if (read_word(&r, "pbqp") || read_int(&r, "the node count", 0, 1 << 24, &n) ||
	    read_int(&r, "the edge count", 0, 1 << 28, &ne))
		return NULL;
	struct pbqp *q = pbqp_new(n);
	double *buf = NULL;
	for (int u = 0; u < n; u++) {
		int id, k;
		if (read_word(&r, "node") || read_int(&r, "the next node's number", u, u, &id) ||
		    read_int(&r, "an alternative count", 0, 1 << 20, &k))
			goto bad;
		buf = xrealloc(buf, (k ? k : 1) * sizeof(double));
		for (int a = 0; a < k; a++)
			if (read_double(&r, &buf[a]))
				goto bad;
		pbqp_set_costs(q, u, k, buf);
	}
	for (int e = 0; e < ne; e++) {
		int u, v;
		if (read_word(&r, "edge") || read_int(&r, "a node number", 0, n - 1, &u) ||
		    read_int(&r, "a node number", 0, n - 1, &v))
			goto bad;
		if (u == v) {
			fail(&r, "two different nodes", "an edge from a node to itself");
			goto bad;
		}
		int cnt = q->n_alt[u] * q->n_alt[v];
		buf = xrealloc(buf, (cnt ? cnt : 1) * sizeof(double));
		for (int k = 0; k < cnt; k++)
			if (read_double(&r, &buf[k]))
				goto bad;
		pbqp_add_edge(q, u, v, buf);
	}
	const char *t = next_tok(&r);
	if (t) {
		fail(&r, "the end of the file", t);
		goto bad;
	}
	free(buf);
	return q;
bad:
	free(buf);
	pbqp_free(q);
	return NULL;
}
