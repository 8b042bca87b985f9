/* select.c - choose a primitive for every convolution and the layouts around
 * it (DESIGN.md §3), then legalise the choice into the graph.
 *
 * Needs: the canonical form (passes.h). Every tensor starts in the model's
 * layout (CHW per image). candidates.c gives each live node its alternatives
 * (a primitive row with the layout it reads and the layout it writes) under
 * the strategy; dtgraph.c gives each tensor the cheapest transform chain
 * between any two layouts. A strategy is a candidate set and a way to choose:
 *   pbqp        (default) every row, chosen over the whole graph by PBQP
 *               (below)
 *   greedy      every row, chosen layer by layer: the cheapest row counting
 *               the conversion of its input from the versions that exist so
 *               far, and the way back to CHW when a non-convolution reads its
 *               output (a local choice)
 *   canonical   rows reading and writing CHW only, no transforms
 *   sum2d       the baseline everywhere
 *   family:F    F's rows (sum2d where F has none), chosen layer by layer as
 *               greedy does: the paper's per-family baselines
 *   reference   no selection: the emitter's textbook reference kernel
 * --force-primitive NODE=NAME leaves one candidate for NODE in every strategy.
 *
 * PBQP (Anderson & Gregg, CGO 2018): a PBQP node per live node, its cost
 * vector the alternatives' primitive costs. For each tensor, the readers
 * with one alternative (non-convolutions, forced layers) and the graph
 * output's need for CHW are served first, in reading order, from the layout
 * the producer writes, and their conversion cost, shared as legalisation
 * shares it, goes into the producer's cost vector. A single reader with a
 * choice gets an edge from the producer whose matrix [producer's output
 * layout][its input layout] is the cheapest chain from what exists by then.
 * Where several readers have a choice (GoogLeNet's inception inputs,
 * ResNet's shortcuts), summing an edge per reader would count a conversion
 * they share once per reader (the approximation the paper accepts); instead
 * an auxiliary PBQP node chooses the set of layouts made from the tensor,
 * each reader must read one of them (INFINITY otherwise), and the set's
 * conversion cost, cheapest missing layout first, sits on the producer's
 * edge.
 *
 * Legalisation (the same walk for every strategy, and for counting what a
 * choice costs without changing the graph): once the choice is known, each
 * tensor gets a plan, the tree of transforms (runtime/transforms.def rows,
 * chains found by dtgraph.c) that makes every layout its readers want, built
 * exactly as the PBQP costs were, so the objective is the legalised cost.
 * The plan is materialised lazily: a node writing layout L leaves the
 * model-layout version of its output unwritten until a reader needs it, and
 * the OP_LAYOUT nodes making a layout go just before its first reader and
 * serve every later one (fan-out). Graph outputs end in the model layout: the
 * chain back to CHW writes the original tensor, the one graph outputs and the
 * model's readers refer to. While greedy chooses, nothing is planned: each
 * reader's layout is made from the cheapest version existing at that point.
 *
 * Guarantees: canonical form plus OP_LAYOUT nodes (node->primitive names the
 * transform row); every Conv has node->primitive set (except under
 * "reference") and ws_bytes, and reads its weights as that row's PACK laid
 * them out (a new 1-D constant); tensors carry their layouts. */
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "passes/passes.h"
#include "runtime/prep.h"
#include "runtime/primitives.h"
#include "runtime/sgemm.h"

/* ir layout <-> runtime layout (primitives.h: RT_L_CHW = LAYOUT_CHW - 1; the
 * model layout is CHW per image). */
static enum layout ir_layout(int l) { return l == RT_L_CHW ? LAYOUT_MODEL : (enum layout)(l + 1); }

int pass_conv_params(struct node *n, int isa, int threads, struct rt_conv2d *p)
{
	const struct tensor *x = n->inputs[0], *y = n->outputs[0];
	const int64_t *k, *s, *dl, *pads;
	if (x->rank != 3 && x->rank != 4)
		return -1;
	int nsp = x->rank - 2;
	if (ir_attr_ints(n, "kernel_shape", &k) != nsp || ir_attr_ints(n, "strides", &s) != nsp ||
	    ir_attr_ints(n, "dilations", &dl) != nsp || ir_attr_ints(n, "pads", &pads) != 2 * nsp)
		unreachable("select: Conv not in canonical form");
	memset(p, 0, sizeof *p);
	p->N = (int)x->dims[0];
	p->C = (int)x->dims[1];
	p->H = nsp == 2 ? (int)x->dims[2] : 1;
	p->W = (int)x->dims[x->rank - 1];
	p->M = (int)y->dims[1];
	p->oH = nsp == 2 ? (int)y->dims[2] : 1;
	p->oW = (int)y->dims[y->rank - 1];
	p->kH = nsp == 2 ? (int)k[0] : 1;
	p->kW = (int)k[nsp - 1];
	p->sH = nsp == 2 ? (int)s[0] : 1;
	p->sW = (int)s[nsp - 1];
	p->dH = nsp == 2 ? (int)dl[0] : 1;
	p->dW = (int)dl[nsp - 1];
	p->padT = nsp == 2 ? (int)pads[0] : 0;
	p->padL = (int)pads[nsp - 1];
	p->group = (int)ir_attr_int(n, "group", 1);
	p->act = (int)n->act;
	p->alpha = n->act_alpha;
	p->beta = n->act_beta;
	p->isa = isa;
	p->threads = threads > 1 ? threads : 1;
	return 0;
}

/* Whether t can live in layouts other than the model's: a tensor of rank 3
 * or 4 that existed when the selection was made and that a convolution
 * writes or reads as X, or a non-convolution with a choice of layout
 * (nonconv.c) writes or reads (no other kernel reads or writes another
 * layout, so nothing else is ever converted, and no transform cost is asked
 * for it). */
static int convertible(const struct selection *s, const struct tensor *t)
{
	return t->index < s->n_tensors && s->conv_io[t->index];
}

/* ---- the selection problem ---------------------------------------------- */

struct selection *sel_new(struct graph *g, const struct options *opt, const char *strategy,
                          struct diag *d)
{
	struct selection *s = xcalloc(1, sizeof *s);
	s->g = g;
	s->opt = opt;
	s->nodes = xmalloc((g->n_nodes ? g->n_nodes : 1) * sizeof *s->nodes);
	for (int i = 0; i < g->n_nodes; i++)
		if (!g->nodes[i]->dead)
			s->nodes[s->n++] = g->nodes[i];
	s->n_alt = xcalloc(s->n ? s->n : 1, sizeof *s->n_alt);
	s->alt = xcalloc(s->n ? s->n : 1, sizeof *s->alt);
	s->choice = xcalloc(s->n ? s->n : 1, sizeof *s->choice);
	int bad = 0;
	for (int i = 0; i < s->n; i++) {
		s->n_alt[i] = cand_alternatives(s->nodes[i], opt, strategy, &s->alt[i], &s->fell_back, d);
		if (s->n_alt[i] < 0) {
			s->n_alt[i] = 0;
			bad = 1;
		}
	}
	s->n_tensors = g->n_tensors;
	s->conv_io = xcalloc(s->n_tensors ? s->n_tensors : 1, sizeof *s->conv_io);
	for (int i = 0; i < s->n; i++) {
		const struct node *n = s->nodes[i];
		int any_in = n->op == OP_CONV, any_out = n->op == OP_CONV;
		for (int a = 0; a < s->n_alt[i]; a++) {
			any_in |= s->alt[i][a].in != RT_L_CHW;
			any_out |= s->alt[i][a].out != RT_L_CHW;
		}
		int n_in = s->n_alt[i] ? s->alt[i][0].n_in : 1;
		for (int k = 0; k < n->n_inputs + 1; k++) {
			struct tensor *t = k < n->n_inputs ? n->inputs[k] : n->outputs[0];
			if (!(k < n->n_inputs ? any_in && k < (n_in > 1 ? n_in : 1) : any_out))
				continue;
			if (t && (t->rank == 3 || t->rank == 4) && t->dtype == DTYPE_F32)
				s->conv_io[t->index] = 1;
		}
		if (fuse_has_residual(n)) { /* read in the row's output layout */
			struct tensor *r = n->inputs[FUSE_RESIDUAL_INPUT];
			if (r && (r->rank == 3 || r->rank == 4) && r->dtype == DTYPE_F32)
				s->conv_io[r->index] = 1;
		}
	}
	s->dp = xcalloc(s->n_tensors ? s->n_tensors : 1, sizeof *s->dp);
	for (int i = 0; i < s->n_tensors; i++)
		if (convertible(s, g->tensors[i]))
			dt_paths_tensor(&s->dp[i], opt, g->tensors[i]);
	if (bad) {
		sel_free(s);
		return NULL;
	}
	return s;
}

void sel_free(struct selection *s)
{
	if (!s)
		return;
	for (int i = 0; i < s->n; i++)
		free(s->alt[i]);
	free(s->alt);
	free(s->n_alt);
	free(s->nodes);
	free(s->choice);
	free(s->conv_io);
	free(s->dp);
	free(s);
}

/* ---- conversion plans ------------------------------------------------------ */

/* Whether node n reads input slot k as a fused residual (fuse.c): in its
 * row's output layout, since the epilogue adds it element by element. */
static int residual_slot(const struct node *n, int k)
{
	return k == FUSE_RESIDUAL_INPUT && fuse_has_residual(n);
}

/* Whether node j reads input slot k in the layout its alternative says
 * (a convolution's X and residual, a non-convolution's same-layout operands). */
static int flex_slot(const struct selection *s, int j, int k)
{
	int n_in = s->n_alt[j] ? s->alt[j][0].n_in : 1;
	return k < (n_in > 1 ? n_in : 1) || residual_slot(s->nodes[j], k);
}

/* The layout node i reads input slot k in under alternative a. */
static int wants(const struct selection *s, int i, int a, int k)
{
	return residual_slot(s->nodes[i], k) ? s->alt[i][a].out
	       : flex_slot(s, i, k)           ? s->alt[i][a].in
	                                      : RT_L_CHW;
}

/* Readers with a choice are listed as (node, slot) codes. */
#define VAR_CODE(s, j, k) ((j) * 2 + residual_slot((s)->nodes[j], k))
#define VAR_NODE(v) ((v) / 2)
#define VAR_SLOT(v) ((v) % 2 ? FUSE_RESIDUAL_INPUT : 0)

/* The wants of tensor t: readers with one alternative (and the graph
 * output) have fixed wants, fixed[] in reading order; a convolution with
 * several alternatives reads X (and a residual) in its choice's layout:
 * var[], VAR_CODEs. */
static void readers(const struct selection *s, const struct tensor *t, int *fixed, int *n_fixed,
                    int *var, int *n_var)
{
	*n_fixed = *n_var = 0;
	for (int j = 0; j < s->n; j++) {
		const struct node *n = s->nodes[j];
		for (int k = 0; k < n->n_inputs; k++) {
			if (n->inputs[k] != t)
				continue;
			if (flex_slot(s, j, k) && s->n_alt[j] > 1) {
				if (*n_var == 0 || var[*n_var - 1] != VAR_CODE(s, j, k))
					var[(*n_var)++] = VAR_CODE(s, j, k);
			} else {
				fixed[(*n_fixed)++] = wants(s, j, 0, k);
			}
		}
	}
	if (t->is_output)
		fixed[(*n_fixed)++] = RT_L_CHW;
}

/* Which layouts of one tensor are made, each from which: a tree rooted at
 * the layout its producer writes. The PBQP costs and legalisation build it
 * the same way, so the objective is what legalisation then inserts. */
struct plan {
	unsigned made;      /* layouts made or planned (bit l: enum rt_layout l) */
	int from[DT_NL];    /* the layout each is made from; -1: the root, or not made */
	int step[DT_NL];    /* the rt_transforms row making it */
};

static void plan_init(struct plan *pl, int root)
{
	pl->made = 1u << root;
	for (int l = 0; l < DT_NL; l++)
		pl->from[l] = pl->step[l] = -1;
}

/* Adds layout l to the plan: each step from the made layout whose chain to
 * l is cheapest. Returns the cost added (INFINITY when no chain reaches l). */
static double plan_add(const struct dt_paths *dp, struct plan *pl, int l)
{
	double cost = 0;
	while (!(pl->made >> l & 1u)) {
		int a;
		if (isinf(dt_cheapest(dp, pl->made, l, &a)))
			return INFINITY;
		while (pl->made >> dp->hop[a][l] & 1u) /* a tie through a made layout */
			a = dp->hop[a][l];
		int b = dp->hop[a][l];
		/* a prefix of a cheapest chain is a cheapest chain: this is the step's cost */
		cost += dp->cost[a][b];
		pl->from[b] = a;
		pl->step[b] = dp->next[a][l];
		pl->made |= 1u << b;
	}
	return cost;
}

/* The fixed wants want[n], in order. */
static double plan_list(const struct dt_paths *dp, struct plan *pl, const int *want, int n)
{
	double cost = 0;
	for (int k = 0; k < n; k++)
		cost += plan_add(dp, pl, want[k]);
	return cost;
}

/* Every layout of the set want (bits): the cheapest missing one first. */
static double plan_set(const struct dt_paths *dp, struct plan *pl, unsigned want)
{
	double cost = 0;
	while (want & ~pl->made) {
		int best = -1, from;
		double best_c = INFINITY;
		for (int l = 0; l < DT_NL; l++)
			if ((want & ~pl->made) >> l & 1u) {
				double c = dt_cheapest(dp, pl->made, l, &from);
				if (best < 0 || c < best_c) {
					best = l;
					best_c = c;
				}
			}
		if (isinf(best_c))
			return INFINITY;
		cost += plan_add(dp, pl, best);
	}
	return cost;
}

/* The layout the producer of t writes it in under the current choice. */
static int root_layout(const struct selection *s, const int *pos, const struct tensor *t)
{
	if (!t->producer || t->producer->dead || pos[t->producer->index] < 0)
		return RT_L_CHW;
	int p = pos[t->producer->index];
	return s->nodes[p]->outputs[0] == t ? s->alt[p][s->choice[p]].out : RT_L_CHW;
}

/* ---- the walk: greedy choice, costing and legalisation ------------------- */

struct walk {
	struct selection *s;
	int choose;               /* 1: pick each node's alternative locally (greedy) */
	int apply;                /* 1: change the graph; 0: only count */
	unsigned *have;           /* [n_tensors] layouts present (bit l: enum rt_layout l) */
	struct tensor *(*ver)[DT_NL]; /* [n_tensors] apply: the tensor holding each layout */
	struct plan *plans;       /* [n_tensors] when the choice is given: what to make */
	double total;             /* µs of the chosen alternatives and every conversion */
	struct node **order;      /* apply: the new node order */
	int n_order, cap_order;
};

static void push(struct walk *w, struct node *n)
{
	if (w->n_order == w->cap_order) {
		w->cap_order = w->cap_order ? 2 * w->cap_order : 64;
		w->order = xrealloc(w->order, w->cap_order * sizeof *w->order);
	}
	w->order[w->n_order++] = n;
}

/* N, C, H, W of a 3-D/4-D activation. */
static void nchw(const struct tensor *t, int *N, int *C, int *H, int *W)
{
	*N = (int)t->dims[0];
	*C = (int)t->dims[1];
	*H = t->rank == 4 ? (int)t->dims[2] : 1;
	*W = (int)t->dims[t->rank - 1];
}

/* Cost of making t available in layout l from what exists now. */
static double avail_cost(const struct walk *w, const struct tensor *t, int l)
{
	if (!convertible(w->s, t))
		return l == RT_L_CHW ? 0 : INFINITY;
	int from;
	return dt_cheapest(&w->s->dp[t->index], w->have[t->index], l, &from);
}

/* Makes layout b of t from layout a with transform row tr_i. */
static void make_step(struct walk *w, struct tensor *t, int a, int tr_i)
{
	const struct rt_transform *tr = &rt_transforms[tr_i];
	int N, C, H, W;
	nchw(t, &N, &C, &H, &W);
	double cost = costs_transform_us(w->s->opt, tr, N, C, H, W);
	w->total += cost;
	w->have[t->index] |= 1u << tr->to;
	if (!w->apply)
		return;
	struct tensor **v = w->ver[t->index];
	struct tensor *out = v[tr->to];
	if (!out && tr->to == RT_L_CHW) {
		/* The model-layout version of a tensor is the tensor itself:
		 * graph outputs and every reader named in the model refer to
		 * it, so the chain back to CHW must write that very tensor. */
		out = t;
	} else if (!out) {
		char name[256];
		snprintf(name, sizeof name, "%s_%s", t->name, rt_layout_names[tr->to]);
		out = ir_new_tensor(w->s->g, name, t->dtype);
		ir_set_shape(out, t->rank, t->dims);
	}
	v[tr->to] = out;
	out->layout = ir_layout(tr->to);
	char nname[256];
	snprintf(nname, sizeof nname, "%s_to_%s", t->name, rt_layout_names[tr->to]);
	struct tensor *in = v[a];
	struct node *n = ir_add_node(w->s->g, OP_LAYOUT, nname, 1, &in, 1, &out);
	n->primitive = tr->name;
	n->cost_us = cost;
	push(w, n);
}

/* Makes the planned layout l of t, and first what it is made from. */
static void make_planned(struct walk *w, struct tensor *t, int l)
{
	if (w->have[t->index] >> l & 1u)
		return;
	const struct plan *pl = &w->plans[t->index];
	if (pl->from[l] < 0)
		unreachable("select: a reader wants a layout its tensor's plan does not make");
	make_planned(w, t, pl->from[l]);
	make_step(w, t, pl->from[l], pl->step[l]);
}

/* Makes t available in layout l, just before the reader that wants it; what
 * is made is shared by every later reader. With the choice given, the
 * tensor's plan says how; while greedy chooses, one transform at a time from
 * the cheapest existing version. Returns the tensor holding that layout
 * (apply), or t. */
static struct tensor *need(struct walk *w, struct tensor *t, int l)
{
	if (!convertible(w->s, t)) {
		if (l != RT_L_CHW)
			unreachable("select: a layout other than the model's for an unconvertible tensor");
		return t;
	}
	const struct dt_paths *dp = &w->s->dp[t->index];
	unsigned *have = &w->have[t->index];
	if (w->plans)
		make_planned(w, t, l);
	while (!(*have >> l & 1u)) {
		int a;
		if (isinf(dt_cheapest(dp, *have, l, &a)))
			unreachable("select: no transform chain between layouts");
		/* skip steps of the chain whose output already exists */
		while (*have >> dp->hop[a][l] & 1u)
			a = dp->hop[a][l];
		make_step(w, t, a, dp->next[a][l]);
	}
	return w->apply ? w->ver[t->index][l] : t;
}

/* Whether every live reader of t reads it in a layout of its choice (then a
 * non-CHW output layout costs nothing until one of them wants it back). */
static int only_convs_read(const struct selection *s, const struct tensor *t)
{
	if (t->is_output)
		return 0;
	for (int i = 0; i < s->n; i++) {
		const struct node *n = s->nodes[i];
		for (int k = 0; k < n->n_inputs; k++)
			if (n->inputs[k] == t &&
			    !(flex_slot(s, i, k) && (n->op == OP_CONV || s->alt[i][0].nck)))
				return 0;
	}
	return 1;
}

/* What alternative c of node i saves when the node before it (i - 1: the
 * code runs the live nodes in this order) takes alternative a: c's warm
 * gain (candidates.c) when a's workspace is at least as large as c's, else
 * the share of c's workspace that a's covers. A layer with a workspace
 * finds it, and its output, in the cache when the layer just before used
 * one (driver/harness_main.c): ResNet-18's 56 x 56 layers run as F(4x4, 3x3)
 * Winograd back to back, at 2 threads on the project's Xeon, took 433-508
 * us each, against 455 us timed with workspace and output left in the cache
 * and 651 us with them evicted. A layer after one without pays the evicted
 * time, as AlexNet's 5 x 5 layer did. */
static double warm_gain(const struct selection *s, int i, int c, int a)
{
	const struct sel_alt *al = &s->alt[i][c];
	if (i == 0 || al->warm_gain_us <= 0)
		return 0;
	double before = s->alt[i - 1][a].ws_floats;
	return before >= al->ws_floats ? al->warm_gain_us : al->warm_gain_us * before / al->ws_floats;
}

/* The cost of alternative c of node i after the choice made for node i - 1. */
static double alt_cost(const struct selection *s, int i, int c)
{
	return s->alt[i][c].cost_us - (i > 0 ? warm_gain(s, i, c, s->choice[i - 1]) : 0);
}

/* The greedy rule for node i given what exists now. */
static int choose_locally(const struct walk *w, int i)
{
	const struct selection *s = w->s;
	const struct node *n = s->nodes[i];
	int best = 0;
	double best_cost = INFINITY;
	for (int a = 0; a < s->n_alt[i]; a++) {
		const struct sel_alt *al = &s->alt[i][a];
		double cost = alt_cost(s, i, a);
		for (int k = 0; k < n->n_inputs; k++)
			if (n->inputs[k] && flex_slot(s, i, k) && !residual_slot(n, k) &&
			    (k == 0 || n->inputs[k] != n->inputs[0]))
				cost += avail_cost(w, n->inputs[k], al->in);
		if (fuse_has_residual(n))
			cost += avail_cost(w, n->inputs[FUSE_RESIDUAL_INPUT], al->out);
		const struct tensor *y = n->n_outputs > 0 ? n->outputs[0] : NULL;
		if (al->out != RT_L_CHW && y && convertible(s, y) && !only_convs_read(s, y))
			cost += s->dp[y->index].cost[al->out][RT_L_CHW];
		if (cost < best_cost) {
			best = a;
			best_cost = cost;
		}
	}
	return best;
}

/* Re-lays n's weights out at compile time, as the row's PACK says. */
static void pack_weights(struct graph *g, struct node *n, const struct rt_prim *r,
                         const struct rt_conv2d *p)
{
	struct tensor *w = n->inputs[1];
	size_t nf = r->packed(p, r->variant);
	float *data = arena_alloc(&g->arena, (nf ? nf : 1) * sizeof(float));
	r->pack(p, r->variant, w->data, data);
	char name[256];
	snprintf(name, sizeof name, "%s_%s", w->name, r->name);
	int64_t dims[1] = {(int64_t)nf};
	n->inputs[1] = ir_new_constant(g, name, DTYPE_F32, 1, dims, data);
}

/* A fully-connected layer (Gemm, or MatMul with a 2-D right operand) whose
 * B is a constant. Below GEMM_SGEMM_MIN_M rows, B is packed at compile time
 * into the panels gemm_fc.c streams (rt_gemm_fc_pack) and the node is marked
 * "gemm_fc"; a Gemm with more rows, or any under --blas openblas, is marked
 * "gemm_sgemm" (the blocked SGEMM or cblas_sgemm, B as it is, a workspace).
 * Shapes that do not agree are left to the backend's diagnostics. */
/* gemm_fc against rt_sgemm (B as it is, packed at run time, as gemm_sgemm
 * runs it), one Zen 4 core, GFLOP/s, weights 4096 x 4096, 1000 x 512 and
 * 1024 x 9216 alike within 10%: AVX-512 90 against 45 at M = 64, 95 against
 * 59 at 128, 100 against 88 at 1024; AVX2 60 against 50 at 64, 57-64 against
 * 57-62 at 128, 60 against 71-82 at 256. (On the Xeon, before gemm_fc kept
 * its sums in registers: 43 against 50 at M = 64.) */
#define GEMM_SGEMM_MIN_M 128

int pass_fc_shape(struct node *n, const struct options *opt, int64_t *Mp, int64_t *Np,
                  int64_t *Kp)
{
	const struct tensor *a = n->inputs[0], *b = n->n_inputs > 1 ? n->inputs[1] : NULL;
	if ((n->op != OP_GEMM && n->op != OP_MATMUL) || !a || !b || !b->data ||
	    b->dtype != DTYPE_F32 || b->rank != 2)
		return 0;
	int transB = n->op == OP_GEMM && ir_attr_int(n, "transB", 0) != 0;
	int64_t K = transB ? b->dims[1] : b->dims[0], N = transB ? b->dims[0] : b->dims[1];
	int64_t Ka = n->op == OP_GEMM && ir_attr_int(n, "transA", 0) ? a->dims[0]
	                                                             : a->dims[a->rank - 1];
	if (a->rank < 1 || (n->op == OP_GEMM && a->rank != 2) || Ka != K || K < 1 || N < 1 ||
	    K > INT_MAX || N > INT_MAX)
		return 0;
	/* rows: a Gemm's M; a MatMul's batch dims fold into rows (gemm_fc only) */
	int64_t M = n->op == OP_GEMM ? n->outputs[0]->dims[0] : ir_numel(a) / K;
	*Mp = M;
	*Np = N;
	*Kp = K;
	if (n->op == OP_GEMM && n->outputs[0]->rank == 2 && M <= INT_MAX &&
	    (opt->blas_openblas || M >= GEMM_SGEMM_MIN_M))
		return 2;
	return opt->blas_openblas ? 0 : 1;
}

/* A MatMul that is not a fully-connected layer (B an activation, or any
 * MatMul under --blas openblas) runs one SGEMM per output matrix
 * (matmul_sgemm.c) and is marked "matmul_sgemm", with the workspace one call
 * packs its B into; shapes the backend would refuse keep the textbook
 * kernel, so that it names the problem. */
static void select_matmul(const struct options *opt, struct node *n)
{
	const struct tensor *a = n->inputs[0], *b = n->inputs[1], *y = n->outputs[0];
	if (!a || !b || !y || a->dtype != DTYPE_F32 || b->dtype != DTYPE_F32 || a->rank < 1 ||
	    b->rank < 1)
		return;
	int64_t M, N, K;
	ir_matmul_dims(a, b, &M, &N, &K, NULL);
	if (M > INT_MAX || N > INT_MAX || K > INT_MAX || M < 0 || N < 0 || K < 0)
		return;
	int64_t count = M * N != 0 ? ir_numel(y) / (M * N) : 0;
	n->primitive = "matmul_sgemm";
	n->ws_bytes = rt_sgemm_workspace_size(opt->isa, (int)M, (int)N, (int)K);
	n->cost_us = cost_fc_us(opt->isa, (double)(count * M), (double)N, (double)K);
}

static void select_fc(struct graph *g, const struct options *opt, struct node *n)
{
	int64_t M, N, K;
	int kind = pass_fc_shape(n, opt, &M, &N, &K);
	if (kind == 2) {
		n->primitive = "gemm_sgemm";
		n->ws_bytes = rt_sgemm_workspace_size(opt->isa, (int)M, (int)N, (int)K);
		n->cost_us = cost_fc_us(opt->isa, (double)M, (double)N, (double)K);
		return;
	}
	if (kind == 0 && n->op == OP_MATMUL) {
		select_matmul(opt, n);
		return;
	}
	if (kind != 1)
		return;
	struct tensor *b = n->inputs[1];
	int transB = n->op == OP_GEMM && ir_attr_int(n, "transB", 0) != 0;
	size_t nf = rt_gemm_fc_pack_size(opt->isa, (int)N, (int)K);
	float *data = arena_alloc(&g->arena, nf * sizeof(float));
	rt_gemm_fc_pack(opt->isa, (int)N, (int)K, (const float *)b->data, transB ? 1 : (size_t)N,
	                transB ? (size_t)K : 1, data);
	char name[256];
	snprintf(name, sizeof name, "%s_gemm_fc", b->name);
	int64_t dims[1] = {(int64_t)nf};
	n->inputs[1] = ir_new_constant(g, name, DTYPE_F32, 1, dims, data);
	n->primitive = "gemm_fc";
	/* measured (dnncc profile's "fc" rows) where the table has the layer */
	n->cost_us = M <= INT_MAX ? costs_fc_us(opt, (int)M, (int)N, (int)K)
	                          : cost_fc_us(opt->isa, (double)M, (double)N, (double)K);
}

static void walk_node(struct walk *w, int i)
{
	struct selection *s = w->s;
	struct node *n = s->nodes[i];
	if (w->choose)
		s->choice[i] = choose_locally(w, i);
	const struct sel_alt *al = &s->alt[i][s->choice[i]];
	const double cost = alt_cost(s, i, s->choice[i]);
	w->total += cost;
	for (int k = 0; k < n->n_inputs; k++)
		if (n->inputs[k]) {
			struct tensor *t = need(w, n->inputs[k], wants(s, i, s->choice[i], k));
			if (w->apply)
				n->inputs[k] = t;
		}
	for (int k = 0; k < n->n_outputs; k++) {
		struct tensor *y = n->outputs[k];
		if (!y || !convertible(s, y))
			continue;
		int l = k == 0 ? al->out : RT_L_CHW;
		w->have[y->index] = 1u << l;
		if (!w->apply || l == RT_L_CHW)
			continue;
		char name[256];
		snprintf(name, sizeof name, "%s_%s", y->name, rt_layout_names[l]);
		struct tensor *yo = ir_new_tensor(s->g, name, y->dtype);
		ir_set_shape(yo, y->rank, y->dims);
		yo->layout = ir_layout(l);
		yo->producer = n;
		n->outputs[k] = yo;
		y->producer = NULL; /* made later by a transform, when a reader wants it */
		w->ver[y->index][RT_L_CHW] = NULL;
		w->ver[y->index][l] = yo;
	}
	if (w->apply && al->prim) {
		struct rt_conv2d p;
		if (pass_conv_params(n, s->opt->isa, s->opt->threads, &p))
			unreachable("select: a primitive for a layer it cannot describe");
		if (al->prim->packed)
			pack_weights(s->g, n, al->prim, &p);
		n->primitive = al->prim->name;
		n->cost_us = cost;
		n->cold_us = cost < al->cost_us ? al->cost_us : 0;
		n->ws_bytes = al->prim->ws(&p, al->prim->variant) * sizeof(float);
	} else if (w->apply && al->nck) {
		n->primitive = al->nck->name; /* the emitter reads the layout off the tensors */
		n->cost_us = cost;
	} else if (w->apply && (n->op == OP_GEMM || n->op == OP_MATMUL)) {
		select_fc(s->g, s->opt, n);
	}
	if (w->apply)
		push(w, n);
}

/* Every tensor's plan under the current choice: the fixed wants in reading
 * order, then the set the readers with a choice want (as sel_build_pbqp
 * prices it). */
static struct plan *plans(const struct selection *s)
{
	struct graph *g = s->g;
	struct plan *pl = xcalloc(s->n_tensors ? s->n_tensors : 1, sizeof *pl);
	int *pos = xmalloc((g->n_nodes ? g->n_nodes : 1) * sizeof *pos);
	for (int i = 0; i < g->n_nodes; i++)
		pos[i] = -1;
	for (int i = 0; i < s->n; i++)
		pos[s->nodes[i]->index] = i;
	int n_reads = 1;
	for (int i = 0; i < s->n; i++)
		n_reads += s->nodes[i]->n_inputs;
	int *fixed = xmalloc(n_reads * sizeof *fixed);
	int *var = xmalloc((2 * s->n + 1) * sizeof *var);
	for (int t_i = 0; t_i < s->n_tensors; t_i++) {
		const struct tensor *t = g->tensors[t_i];
		plan_init(&pl[t_i], RT_L_CHW);
		if (!convertible(s, t))
			continue;
		int n_fixed, n_var;
		readers(s, t, fixed, &n_fixed, var, &n_var);
		plan_init(&pl[t_i], root_layout(s, pos, t));
		plan_list(&s->dp[t_i], &pl[t_i], fixed, n_fixed);
		unsigned set = 0;
		for (int v = 0; v < n_var; v++)
			set |= 1u << wants(s, VAR_NODE(var[v]), s->choice[VAR_NODE(var[v])],
			                   VAR_SLOT(var[v]));
		plan_set(&s->dp[t_i], &pl[t_i], set);
	}
	free(fixed);
	free(var);
	free(pos);
	return pl;
}

static double walk(struct selection *s, int choose, int apply)
{
	struct walk w = {s, choose, apply, NULL, NULL, NULL, 0, NULL, 0, 0};
	int nt = s->n_tensors ? s->n_tensors : 1;
	w.have = xmalloc(nt * sizeof *w.have);
	for (int i = 0; i < s->n_tensors; i++)
		w.have[i] = 1u << RT_L_CHW;
	if (apply) {
		w.ver = xcalloc(nt, sizeof *w.ver);
		for (int i = 0; i < s->n_tensors; i++)
			w.ver[i][RT_L_CHW] = s->g->tensors[i];
	}
	if (!choose)
		w.plans = plans(s);
	for (int i = 0; i < s->n; i++)
		walk_node(&w, i);
	for (int k = 0; k < s->g->n_outputs; k++)
		need(&w, s->g->outputs[k], RT_L_CHW);
	if (apply) {
		/* ir_add_node appended the transforms; the order built here
		 * replaces the graph's (dead nodes go with ir_compact). */
		struct graph *g = s->g;
		int n_dead = 0;
		for (int i = 0; i < g->n_nodes; i++)
			n_dead += g->nodes[i]->dead;
		if (w.n_order + n_dead != g->n_nodes)
			unreachable("select: lost a node while reordering");
		for (int i = 0; i < g->n_nodes; i++)
			if (g->nodes[i]->dead)
				push(&w, g->nodes[i]);
		if (g->n_nodes) /* a graph whose outputs are its inputs has no node (nodes NULL) */
			memcpy(g->nodes, w.order, g->n_nodes * sizeof *g->nodes);
		for (int i = 0; i < g->n_nodes; i++)
			g->nodes[i]->index = i;
		ir_compact(g);
	}
	free(w.have);
	free(w.ver);
	free(w.plans);
	free(w.order);
	return w.total;
}

void sel_choose_greedy(struct selection *s) { walk(s, 1, 0); }

double sel_total(const struct selection *s) { return walk((struct selection *)s, 0, 0); }

void sel_apply(struct selection *s) { walk(s, 0, 1); }

/* ---- the PBQP instance ----------------------------------------------------- */

/* The instance being built: cost vectors of the selection's nodes, then of
 * auxiliary nodes, and the edges (added once every vector is known, since
 * pbqp_add_edge needs both ends' sizes). */
struct builder {
	int n, cap;             /* PBQP nodes */
	int *n_alt;             /* [n] */
	double **vec;           /* [n][n_alt[u]], owned */
	struct pending {
		int u, v;
		double *m;      /* [n_alt[u]][n_alt[v]], owned */
	} *edges;
	int n_edges, cap_edges;
};

static int builder_node(struct builder *b, int n_alt)
{
	if (b->n == b->cap) {
		b->cap = b->cap ? 2 * b->cap : 64;
		b->n_alt = xrealloc(b->n_alt, b->cap * sizeof *b->n_alt);
		b->vec = xrealloc(b->vec, b->cap * sizeof *b->vec);
	}
	b->n_alt[b->n] = n_alt;
	b->vec[b->n] = xcalloc(n_alt ? n_alt : 1, sizeof **b->vec);
	return b->n++;
}

/* A zeroed matrix for the edge u-v, to be filled by the caller. */
static double *builder_edge(struct builder *b, int u, int v)
{
	if (b->n_edges == b->cap_edges) {
		b->cap_edges = b->cap_edges ? 2 * b->cap_edges : 64;
		b->edges = xrealloc(b->edges, b->cap_edges * sizeof *b->edges);
	}
	struct pending *e = &b->edges[b->n_edges++];
	e->u = u;
	e->v = v;
	e->m = xcalloc((size_t)b->n_alt[u] * b->n_alt[v], sizeof *e->m);
	return e->m;
}

/* Terms of one tensor t (producer p, -1 for none, with np alternatives).
 * A single reader with a choice gets the chain cost on an edge from p (or
 * in its own vector when p has no choice). Several readers with a choice
 * share conversions: an auxiliary node chooses the set of layouts made from
 * t; each reader's alternative must read a layout of that set (INFINITY
 * otherwise), and the set's cost, shared, is on the edge from p. */
static void tensor_terms(const struct selection *s, struct builder *b, const struct dt_paths *dp,
                         int p, int np, const struct plan *pl, const int *var, int n_var)
{
	if (n_var == 1) {
		int j = VAR_NODE(var[0]), slot = VAR_SLOT(var[0]);
		double *m = p >= 0 && np > 1 ? builder_edge(b, p, j) : b->vec[j];
		for (int a = 0; a < (p >= 0 && np > 1 ? np : 1); a++)
			for (int c = 0; c < s->n_alt[j]; c++) {
				int from;
				m[(size_t)a * s->n_alt[j] + c] +=
					dt_cheapest(dp, pl[a].made, wants(s, j, c, slot), &from);
			}
		return;
	}
	unsigned any = 0; /* every layout a reader may want */
	for (int v = 0; v < n_var; v++)
		for (int c = 0; c < s->n_alt[VAR_NODE(var[v])]; c++)
			any |= 1u << wants(s, VAR_NODE(var[v]), c, VAR_SLOT(var[v]));
	unsigned sets[1u << DT_NL];
	int n_sets = 0;
	for (unsigned m = 1; m < 1u << DT_NL; m++)
		if (!(m & ~any))
			sets[n_sets++] = m;
	int x = builder_node(b, n_sets);
	double *pm = p >= 0 && np > 1 ? builder_edge(b, p, x) : b->vec[x];
	for (int a = 0; a < (p >= 0 && np > 1 ? np : 1); a++)
		for (int k = 0; k < n_sets; k++) {
			struct plan tmp = pl[a];
			pm[(size_t)a * n_sets + k] = plan_set(dp, &tmp, sets[k]);
		}
	for (int v = 0; v < n_var; v++) {
		int j = VAR_NODE(var[v]), slot = VAR_SLOT(var[v]);
		double *m = builder_edge(b, x, j);
		for (int k = 0; k < n_sets; k++)
			for (int c = 0; c < s->n_alt[j]; c++)
				m[(size_t)k * s->n_alt[j] + c] =
					sets[k] >> wants(s, j, c, slot) & 1u ? 0 : INFINITY;
	}
}

struct pbqp *sel_build_pbqp(const struct selection *s, int *n_edges)
{
	struct graph *g = s->g;
	int *pos = xmalloc((g->n_nodes ? g->n_nodes : 1) * sizeof *pos);
	for (int i = 0; i < g->n_nodes; i++)
		pos[i] = -1;
	for (int i = 0; i < s->n; i++)
		pos[s->nodes[i]->index] = i;
	struct builder b = {0};
	for (int i = 0; i < s->n; i++) {
		builder_node(&b, s->n_alt[i]);
		for (int a = 0; a < s->n_alt[i]; a++)
			b.vec[i][a] = s->alt[i][a].cost_us - (i > 0 ? s->alt[i][a].warm_gain_us : 0);
	}
	/* node i's alternatives cost their warm time, and the edge from node
	 * i - 1 adds back what the alternative there leaves cold (warm_gain) */
	for (int i = 1; i < s->n; i++) {
		int cold = 0;
		for (int c = 0; c < s->n_alt[i]; c++)
			for (int a = 0; a < s->n_alt[i - 1]; a++)
				cold |= warm_gain(s, i, c, a) < s->alt[i][c].warm_gain_us;
		if (!cold)
			continue;
		double *m = s->n_alt[i - 1] > 1 ? builder_edge(&b, i - 1, i) : b.vec[i];
		for (int a = 0; a < (s->n_alt[i - 1] > 1 ? s->n_alt[i - 1] : 1); a++)
			for (int c = 0; c < s->n_alt[i]; c++)
				m[(size_t)a * s->n_alt[i] + c] += s->alt[i][c].warm_gain_us - warm_gain(s, i, c, a);
	}
	int n_reads = 1;
	for (int i = 0; i < s->n; i++)
		n_reads += s->nodes[i]->n_inputs;
	int *fixed = xmalloc(n_reads * sizeof *fixed);
	int *var = xmalloc((2 * s->n + 1) * sizeof *var);
	for (int t_i = 0; t_i < s->n_tensors; t_i++) {
		const struct tensor *t = g->tensors[t_i];
		if (!convertible(s, t))
			continue;
		int n_fixed, n_var;
		readers(s, t, fixed, &n_fixed, var, &n_var);
		if (n_fixed == 0 && n_var == 0)
			continue;
		int p = t->producer && !t->producer->dead ? pos[t->producer->index] : -1;
		int np = p >= 0 ? s->n_alt[p] : 1;
		/* what exists after the fixed wants, per producer alternative; their
		 * cost goes to the producer (a constant without one: left out) */
		struct plan *pl = xmalloc(np * sizeof *pl);
		for (int a = 0; a < np; a++) {
			int out = RT_L_CHW;
			if (p >= 0 && s->nodes[p]->outputs[0] == t)
				out = s->alt[p][a].out;
			plan_init(&pl[a], out);
			double c = plan_list(&s->dp[t_i], &pl[a], fixed, n_fixed);
			if (p >= 0)
				b.vec[p][a] += c;
		}
		if (n_var)
			tensor_terms(s, &b, &s->dp[t_i], p, np, pl, var, n_var);
		free(pl);
	}
	struct pbqp *q = pbqp_new(b.n);
	for (int i = 0; i < b.n; i++) {
		pbqp_set_costs(q, i, b.n_alt[i], b.vec[i]);
		free(b.vec[i]);
	}
	for (int e = 0; e < b.n_edges; e++) {
		pbqp_add_edge(q, b.edges[e].u, b.edges[e].v, b.edges[e].m);
		free(b.edges[e].m);
	}
	if (n_edges)
		*n_edges = pbqp_n_edges(q); /* edges between the same nodes were merged */
	free(b.edges);
	free(b.vec);
	free(b.n_alt);
	free(fixed);
	free(var);
	free(pos);
	return q;
}

/* ---- choosing and reporting -------------------------------------------------- */

struct solved {
	struct pbqp_stats st; /* of the solve whose choice was taken */
	double objective;     /* PBQP objective of that choice (µs, the modelled cost) */
	int n_nodes, n_edges;
	int verified;         /* --verify-ilp agreed */
};

/* Solves s by PBQP and takes its choice (with --dump-pbqp and --verify-ilp
 * when dump is set). Returns the number of errors reported. */
static int solve_pbqp(struct selection *s, int checks, struct diag *d, struct solved *out)
{
	const struct options *opt = s->opt;
	int errors = 0;
	struct pbqp *q = sel_build_pbqp(s, &out->n_edges);
	out->n_nodes = pbqp_n_nodes(q);
	if (checks && opt->dump_pbqp) {
		FILE *f = fopen(opt->dump_pbqp, "w");
		if (!f || pbqp_write(q, f) || fclose(f)) {
			diag_error(d, NULL, "--dump-pbqp %s: cannot write the instance", opt->dump_pbqp);
			errors++;
		}
	}
	/* (pbqp.c turns to branch and bound itself when RN leads only to
	 * forbidden assignments, so -1 means there is no finite one) */
	if (pbqp_solve(q, PBQP_HEURISTIC)) {
		diag_error(d, NULL, "select: no assignment avoids a layout conversion that no "
		           "transform chain provides (%d nodes, %d edges)", s->n, out->n_edges);
		pbqp_free(q);
		return errors + 1;
	}
	if (checks && opt->verify_ilp) {
		/* the ILP finds the optimum, so compare with a proven one */
		if (!pbqp_get_stats(q)->optimal && pbqp_solve(q, PBQP_EXACT))
			unreachable("select: branch and bound failed where RN succeeded");
		int *choice = xmalloc(pbqp_n_nodes(q) * sizeof *choice + 1);
		double ilp = 0;
		char err[256] = "";
		int rc = ilp_solve_pbqp(q, choice, &ilp, err, sizeof err);
		double mine = pbqp_objective(q);
		if (rc < 0) {
			diag_error(d, NULL, "--verify-ilp needs GLPK to solve the instance: %s", err);
			errors++;
		} else if (rc > 0 || fabs(ilp - mine) > 1e-9 * fmax(fabs(ilp), fabs(mine)) + 1e-9) {
			diag_error(d, NULL, "--verify-ilp: the PBQP instance of model %s (%d nodes, %d "
			           "edges; write it with --dump-pbqp FILE) has PBQP %s %.17g µs but "
			           "ILP %s %.17g µs", opt->model ? opt->model : "?", out->n_nodes,
			           out->n_edges,
			           pbqp_get_stats(q)->optimal ? "optimum" :
			                                        "best (branch limit reached, not proven)",
			           mine, rc > 0 ? "(infeasible)" : "optimum", ilp);
			errors++;
		} else {
			out->verified = 1;
		}
		free(choice);
	}
	for (int i = 0; i < s->n; i++)
		s->choice[i] = pbqp_choice(q, i);
	out->st = *pbqp_get_stats(q);
	out->objective = pbqp_objective(q);
	pbqp_free(q);
	return errors;
}

/* The strategies --report compares, under the same costs. */
struct rival {
	char name[40];
	double total; /* legalised µs */
};

static int rivals(struct graph *g, const struct options *opt, struct diag *d, struct rival *r)
{
	static const char *const fixed[] = {"pbqp", "greedy", "canonical", "sum2d"};
	int n = 0;
	for (int i = 0; i < (int)(sizeof fixed / sizeof fixed[0]) + RT_FAM_COUNT_; i++) {
		char name[40];
		if (i < 4)
			snprintf(name, sizeof name, "%s", fixed[i]);
		else if (i - 4 == RT_FAM_SUM2D)
			continue; /* the same as sum2d */
		else
			snprintf(name, sizeof name, "family:%s", rt_family_names[i - 4]);
		struct selection *s = sel_new(g, opt, name, d);
		if (!s)
			return -1;
		struct solved sv = {0};
		if (strcmp(name, "pbqp") == 0 ? solve_pbqp(s, 0, d, &sv) != 0 : (sel_choose_greedy(s), 0)) {
			sel_free(s);
			return -1;
		}
		if (!s->fell_back) { /* a family only where every layer has a row of it */
			snprintf(r[n].name, sizeof r[n].name, "%s", name);
			r[n].total = sel_total(s);
			n++;
		}
		sel_free(s);
	}
	return n;
}

/* Issue 8: the convolutions given a row whose inner loop is scalar on the
 * target although a vectorised row applies to them (a measured table can
 * make that choice; the built-in model never does). bench/check_vectorised.py
 * reads this line with --instrument's times. */
static void report_scalar(const struct graph *g, const struct options *opt)
{
	int n_bad = 0;
	double us = 0;
	for (int i = 0; i < g->n_nodes; i++) {
		struct node *n = g->nodes[i];
		const struct rt_prim *r = n->op == OP_CONV && n->primitive ? rt_prim_find(n->primitive)
		                                                           : NULL;
		struct rt_conv2d p;
		if (!r || cost_vectorised(r, opt->isa) ||
		    pass_conv_params(n, opt->isa, opt->threads, &p))
			continue;
		int k = 0;
		while (k < rt_n_prims && !(cost_vectorised(&rt_prims[k], opt->isa) &&
		                           rt_prims[k].applies(&p, rt_prims[k].variant)))
			k++;
		if (k == rt_n_prims)
			continue;
		printf(n_bad++ ? ", %s (%s)" : "  scalar rows where a vectorised row applies: %s (%s)",
		       n->name, r->name);
		us += n->cost_us;
	}
	if (n_bad)
		printf("; %d layers, %.2f µs predicted\n", n_bad, us);
	else
		printf("  scalar rows where a vectorised row applies: none\n");
}

static void report(const struct graph *g, const struct options *opt, const char *strategy,
                   double total, const struct solved *sv, const struct rival *r, int n_r)
{
	double convs = 0, transforms = 0, others = 0, fcs = 0;
	int n_tr = 0, n_fc = 0;
	printf("selection: strategy %s; costs: %s\n", strategy, costs_source(opt));
	/* cost first: the layer table after this one is keyed by node name */
	printf("  %13s  %-40s %s\n", "cost (µs)", "primitive or kernel, + transform inserted",
	       "layer or tensor converted");
	for (int i = 0; i < g->n_nodes; i++) {
		const struct node *n = g->nodes[i];
		if (n->op == OP_LAYOUT) {
			printf("  %12.2f  + %-38s %s\n", n->cost_us, n->primitive, n->inputs[0]->name);
			transforms += n->cost_us;
			n_tr++;
		} else if (n->op == OP_CONV) {
			printf("  %12.2f  %-40s %s", n->cost_us, n->primitive ? n->primitive : "reference",
			       n->name);
			if (n->cold_us > 0) /* priced warm: the layer before left a workspace in cache */
				printf(" (warm; %.2f cold)", n->cold_us);
			printf("\n");
			convs += n->cost_us;
		} else if ((n->op == OP_GEMM || n->op == OP_MATMUL) && n->primitive) {
			/* the same whatever the strategy: in the total, not in the objective */
			printf("  %12.2f  %-40s %s\n", n->cost_us, n->primitive, n->name);
			fcs += n->cost_us;
			n_fc++;
		} else if (n->primitive && strncmp(n->primitive, "nc_", 3) == 0) {
			/* a non-convolution's kernel row: its name says the layout */
			printf("  %12.2f  %-40s %s (%s)\n", n->cost_us, n->primitive, n->name,
			       ir_op_names[n->op]);
			others += n->cost_us;
		}
	}
	printf("  predicted: convolutions %.2f µs + other layers %.2f µs + %d transforms %.2f µs + "
	       "%d fully-connected %.2f µs = %.2f µs\n",
	       convs, others, n_tr, transforms, n_fc, fcs, total + fcs);
	report_scalar(g, opt);
	if (sv)
		printf("  pbqp: %d nodes, %d edges; reductions R0 %d, RI %d, RII %d, RN %d (%s); %s; "
		       "objective %.2f µs%s; %.4f s\n",
		       sv->n_nodes, sv->n_edges, sv->st.n_r0, sv->st.n_r1, sv->st.n_r2, sv->st.n_rn,
		       sv->st.n_rn ? "RN used" : "RN not needed",
		       sv->st.optimal ? "proven optimal" : "not proven optimal", sv->objective,
		       sv->verified ? ", the ILP agrees" : "", sv->st.seconds);
	printf("  every strategy under the same costs (predicted µs, after legalisation):\n");
	for (int i = 0; i < n_r; i++)
		printf("    %-20s %12.2f%s\n", r[i].name, r[i].total,
		       strcmp(r[i].name, strategy) == 0 ? "  (chosen)" : "");
}

int pass_select(struct graph *g, const struct options *opt, struct diag *d)
{
	const char *strategy = opt->strategy ? opt->strategy : "pbqp";
	if (!cand_strategy_known(strategy)) {
		diag_error(d, NULL, "--strategy %s: expected pbqp, greedy, canonical, sum2d, reference "
		           "or family:NAME with NAME one of sum2d, direct, im2, kn2, winograd, fft, "
		           "depthwise", strategy);
		return 1;
	}
	if (strcmp(strategy, "reference") == 0) {
		if (opt->verify_ilp || opt->dump_pbqp)
			diag_warning(d, NULL, "%s: --strategy reference selects nothing, so there is no "
			             "PBQP instance", opt->verify_ilp ? "--verify-ilp" : "--dump-pbqp");
		if (opt->report)
			printf("selection: strategy reference (the emitter's reference kernels, no "
			       "selection)\n");
		return 0;
	}
	for (int i = 0; i < opt->n_force; i++) {
		int found = 0;
		for (int k = 0; k < g->n_nodes && !found; k++)
			found = g->nodes[k]->op == OP_CONV && strcmp(g->nodes[k]->name, opt->force[i].node) == 0;
		if (!found)
			diag_error(d, NULL, "--force-primitive %s=%s: the model has no Conv node named '%s'",
			           opt->force[i].node, opt->force[i].primitive, opt->force[i].node);
	}
	if (d->errors)
		return d->errors;

	struct selection *s = sel_new(g, opt, strategy, d);
	if (!s)
		return d->errors;
	int errors = 0, is_pbqp = strcmp(strategy, "pbqp") == 0;
	struct solved sv = {0};
	if (is_pbqp) {
		errors += solve_pbqp(s, 1, d, &sv);
	} else {
		sel_choose_greedy(s);
		if (opt->verify_ilp || opt->dump_pbqp) {
			/* the checks are about the whole-graph instance, whatever is chosen */
			struct selection *whole = sel_new(g, opt, "pbqp", d);
			errors += whole ? solve_pbqp(whole, 1, d, &sv) : 1;
			sel_free(whole);
		}
	}
	struct rival r[4 + RT_FAM_COUNT_];
	int n_r = 0;
	if (!errors && opt->report && (n_r = rivals(g, opt, d, r)) < 0)
		errors++;
	if (errors) {
		sel_free(s);
		return errors;
	}
	double total = sel_total(s);
	sel_apply(s);
	sel_free(s);
	fuse_pw_dw(g, opt);
	if (opt->report)
		report(g, opt, strategy, total, is_pbqp || opt->verify_ilp || opt->dump_pbqp ? &sv : NULL, r,
		       n_r);
	return 0;
}
