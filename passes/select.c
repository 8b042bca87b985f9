/* select.c - choose a primitive for every convolution and the layouts around
 * it (DESIGN.md §3).
 *
 * Needs: the canonical form (passes.h). Every tensor starts in the model's
 * layout (CHW per image). For each 1-D/2-D Conv the applicable rows of
 * runtime/primitives.def are candidates; the strategy narrows them:
 *   greedy      (default) the cheapest row for this layer, counting the
 *               transforms its input and output layouts need from what is
 *               available (a local choice; the PBQP selector will replace it)
 *   canonical   rows reading and writing CHW only (no transforms)
 *   sum2d       the baseline everywhere
 *   reference   no selection: the emitter's textbook reference kernel
 *   family:F    the cheapest row of family F; layers F cannot do use sum2d
 * and --force-primitive NODE=NAME pins one node (an error if NAME does not
 * apply to it). Costs come from cost_model.c.
 *
 * Layouts are materialised lazily: a convolution writing layout L leaves the
 * model-layout version of its output unwritten until a reader needs it, so
 * two convolutions agreeing on L pass the tensor without transforms, and a
 * conversion to a layout is made once and shared by every reader wanting it.
 * A conversion is a chain of OP_LAYOUT nodes, each one direct transform of
 * runtime/transforms.def, the cheapest chain by Floyd–Warshall over the
 * transform costs for that tensor's shape. Graph outputs end in the model
 * layout.
 *
 * Guarantees: canonical form plus OP_LAYOUT nodes (node->primitive names the
 * transform row); every Conv has node->primitive set (except under
 * "reference") and ws_bytes, and reads its weights as that row's PACK laid
 * them out (a new 1-D constant); tensors carry their layouts. */
#include <float.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "passes/passes.h"
#include "runtime/prep.h"
#include "runtime/primitives.h"
#include "runtime/sgemm.h"

#define NL RT_L_COUNT_

/* ir layout <-> runtime layout (primitives.h: RT_L_CHW = LAYOUT_CHW - 1; the
 * model layout is CHW per image). */
static enum layout ir_layout(int l) { return l == RT_L_CHW ? LAYOUT_MODEL : (enum layout)(l + 1); }

int pass_conv_params(struct node *n, int isa, struct rt_conv2d *p)
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
	return 0;
}

/* A tensor's versions: the tensor holding its data in each layout (NULL: not
 * made yet). Indexed by original tensor index. */
struct versions {
	struct tensor *v[NL];
};

struct ctx {
	struct graph *g;
	const struct options *opt;
	struct diag *d;
	struct versions *ver;     /* [n_tensors at start] */
	int n_orig;               /* tensors that have versions */
	struct node **order;      /* the new node order being built */
	int n_order, cap_order;
	int n_transforms;         /* OP_LAYOUT nodes inserted, for the report */
};

static void push(struct ctx *c, struct node *n)
{
	if (c->n_order == c->cap_order) {
		c->cap_order = c->cap_order ? 2 * c->cap_order : 64;
		c->order = xrealloc(c->order, c->cap_order * sizeof *c->order);
	}
	c->order[c->n_order++] = n;
}

/* N, C, H, W of a 3-D/4-D activation. */
static void nchw(const struct tensor *t, int *N, int *C, int *H, int *W)
{
	*N = (int)t->dims[0];
	*C = (int)t->dims[1];
	*H = t->rank == 4 ? (int)t->dims[2] : 1;
	*W = (int)t->dims[t->rank - 1];
}

/* Cheapest chains between every pair of layouts for a tensor's shape:
 * dist[a][b] in µs, next[a][b] the transform row of the first step. */
static void shortest_paths(const struct options *opt, const struct tensor *t, double dist[NL][NL], int next[NL][NL])
{
	int N, C, H, W;
	nchw(t, &N, &C, &H, &W);
	for (int a = 0; a < NL; a++)
		for (int b = 0; b < NL; b++) {
			dist[a][b] = a == b ? 0 : INFINITY;
			next[a][b] = -1;
		}
	for (int i = 0; i < rt_n_transforms; i++) {
		const struct rt_transform *tr = &rt_transforms[i];
		double cost = costs_transform_us(opt, tr, N, C, H, W);
		if (cost < dist[tr->from][tr->to]) {
			dist[tr->from][tr->to] = cost;
			next[tr->from][tr->to] = i;
		}
	}
	for (int k = 0; k < NL; k++)
		for (int a = 0; a < NL; a++)
			for (int b = 0; b < NL; b++)
				if (dist[a][k] + dist[k][b] < dist[a][b]) {
					dist[a][b] = dist[a][k] + dist[k][b];
					next[a][b] = next[a][k];
				}
}

/* Cost of making t available in layout l from its cheapest existing version. */
static double availability_cost(struct ctx *c, struct tensor *t, int l)
{
	if (t->index >= c->n_orig || t->rank < 3)
		return l == RT_L_CHW ? 0 : INFINITY;
	struct versions *v = &c->ver[t->index];
	if (v->v[l])
		return 0;
	double dist[NL][NL];
	int next[NL][NL];
	shortest_paths(c->opt, t, dist, next);
	double best = INFINITY;
	for (int a = 0; a < NL; a++)
		if (v->v[a] && dist[a][l] < best)
			best = dist[a][l];
	return best;
}

/* Returns t's version in layout l, inserting the transforms that make it. */
static struct tensor *make_available(struct ctx *c, struct tensor *t, int l)
{
	if (t->index >= c->n_orig || t->rank < 3)
		return t;
	struct versions *v = &c->ver[t->index];
	if (v->v[l])
		return v->v[l];
	double dist[NL][NL];
	int next[NL][NL];
	shortest_paths(c->opt, t, dist, next);
	int from = -1;
	for (int a = 0; a < NL; a++)
		if (v->v[a] && (from < 0 || dist[a][l] < dist[from][l]))
			from = a;
	if (from < 0 || isinf(dist[from][l]))
		unreachable("select: no transform chain between layouts");
	int N, C, H, W;
	nchw(t, &N, &C, &H, &W);
	while (from != l) {
		const struct rt_transform *tr = &rt_transforms[next[from][l]];
		struct tensor *out = v->v[tr->to];
		if (!out && tr->to == RT_L_CHW) {
			/* The model-layout version of a tensor is the tensor itself:
			 * graph outputs and every reader named in the model refer to
			 * it, so the chain back to CHW must write that very tensor. */
			out = t;
			v->v[RT_L_CHW] = t;
		}
		if (!out) {
			char name[256];
			snprintf(name, sizeof name, "%s_%s", t->name, rt_layout_names[tr->to]);
			out = ir_new_tensor(c->g, name, t->dtype);
			ir_set_shape(out, t->rank, t->dims);
			v->v[tr->to] = out;
		}
		out->layout = ir_layout(tr->to);
		char nname[256];
		snprintf(nname, sizeof nname, "%s_to_%s", t->name, rt_layout_names[tr->to]);
		struct tensor *in = v->v[from];
		struct node *n = ir_add_node(c->g, OP_LAYOUT, nname, 1, &in, 1, &out);
		n->primitive = tr->name;
		n->cost_us = costs_transform_us(c->opt, tr, N, C, H, W);
		push(c, n);
		c->n_transforms++;
		from = tr->to;
	}
	return v->v[l];
}

static const char *forced_primitive(const struct options *opt, const struct node *n)
{
	for (int i = 0; i < opt->n_force; i++)
		if (strcmp(opt->force[i].node, n->name) == 0)
			return opt->force[i].primitive;
	return NULL;
}

/* Whether every reader of t is a convolution (then a non-CHW output layout
 * costs nothing until one of them wants it back). */
static int only_convs_read(const struct graph *g, const struct tensor *t)
{
	if (t->is_output)
		return 0;
	for (int i = 0; i < g->n_nodes; i++) {
		const struct node *n = g->nodes[i];
		for (int k = 0; k < n->n_inputs; k++)
			if (n->inputs[k] == t && (n->op != OP_CONV || k != 0))
				return 0;
	}
	return 1;
}

static int allowed(const struct ctx *c, const struct rt_prim *r, const char *strategy)
{
	if (strcmp(strategy, "greedy") == 0)
		return 1;
	if (strcmp(strategy, "canonical") == 0)
		return r->in == RT_L_CHW && r->out == RT_L_CHW;
	if (strcmp(strategy, "sum2d") == 0)
		return r->family == RT_FAM_SUM2D;
	if (strncmp(strategy, "family:", 7) == 0)
		return strcmp(rt_family_names[r->family], strategy + 7) == 0;
	(void)c;
	return 0;
}

static int select_conv(struct ctx *c, struct node *n)
{
	struct rt_conv2d p;
	if (pass_conv_params(n, c->opt->isa, &p))
		return 0; /* canonicalize already refused other ranks */
	struct tensor *x = n->inputs[0], *w = n->inputs[1], *y = n->outputs[0];
	const char *strategy = c->opt->strategy ? c->opt->strategy : "greedy";
	const char *forced = forced_primitive(c->opt, n);
	int weights_const = w->data != NULL;
	const struct rt_prim *best = NULL;
	double best_cost = INFINITY, best_prim_cost = 0;

	if (forced) {
		best = rt_prim_find(forced);
		if (!best) {
			diag_error(c->d, n, "--force-primitive: no primitive named '%s' (see dnncc "
			           "--list-primitives)", forced);
			return 1;
		}
		if (!best->applies(&p, best->variant)) {
			diag_error(c->d, n, "--force-primitive: %s does not apply to this layer (it "
			           "needs: %s)", forced, best->constraints);
			return 1;
		}
		if (best->packed && !weights_const) {
			diag_error(c->d, n, "--force-primitive: %s packs its weights at compile time, "
			           "but weights '%s' are a graph input", forced, w->name);
			return 1;
		}
		best_prim_cost = costs_primitive_us(c->opt, best, &p);
	} else {
		for (int pass = 0; pass < 2 && !best; pass++) {
			/* pass 1: a family strategy falls back to the baseline */
			const char *s = pass == 0 ? strategy : "sum2d";
			for (int i = 0; i < rt_n_prims; i++) {
				const struct rt_prim *r = &rt_prims[i];
				if (!allowed(c, r, s) || !r->applies(&p, r->variant))
					continue;
				if (r->packed && !weights_const)
					continue;
				double pc = costs_primitive_us(c->opt, r, &p);
				double cost = pc + availability_cost(c, x, r->in);
				if (r->out != RT_L_CHW && !only_convs_read(c->g, y)) {
					double dist[NL][NL];
					int next[NL][NL];
					shortest_paths(c->opt, y, dist, next);
					cost += dist[r->out][RT_L_CHW];
				}
				if (cost < best_cost) {
					best = r;
					best_cost = cost;
					best_prim_cost = pc;
				}
			}
		}
		if (!best)
			unreachable("select: not even sum2d applies");
	}

	n->inputs[0] = make_available(c, x, best->in);
	if (best->out != RT_L_CHW && y->index < c->n_orig) {
		char name[256];
		snprintf(name, sizeof name, "%s_%s", y->name, rt_layout_names[best->out]);
		struct tensor *yo = ir_new_tensor(c->g, name, y->dtype);
		ir_set_shape(yo, y->rank, y->dims);
		yo->layout = ir_layout(best->out);
		yo->producer = n;
		n->outputs[0] = yo;
		y->producer = NULL; /* made later by a transform, when a reader wants it */
		c->ver[y->index].v[RT_L_CHW] = NULL;
		c->ver[y->index].v[best->out] = yo;
	}
	if (best->packed) {
		/* re-lay the weights out at compile time, as the row's PACK says */
		size_t nf = best->packed(&p, best->variant);
		float *data = arena_alloc(&c->g->arena, (nf ? nf : 1) * sizeof(float));
		best->pack(&p, best->variant, w->data, data);
		char name[256];
		snprintf(name, sizeof name, "%s_%s", w->name, best->name);
		int64_t dims[1] = {(int64_t)nf};
		n->inputs[1] = ir_new_constant(c->g, name, DTYPE_F32, 1, dims, data);
	}
	n->primitive = best->name;
	n->cost_us = best_prim_cost;
	n->ws_bytes = best->ws(&p, best->variant) * sizeof(float);
	return 0;
}

/* A fully-connected layer (Gemm, or MatMul with a 2-D right operand) whose
 * B is a constant. Below GEMM_SGEMM_MIN_M rows, B is packed at compile time
 * into the panels gemm_fc.c streams (rt_gemm_fc_pack) and the node is marked
 * "gemm_fc"; a Gemm with more rows, or any under --blas openblas, is marked
 * "gemm_sgemm" (the blocked SGEMM or cblas_sgemm, B as it is, a workspace).
 * Shapes that do not agree are left to the backend's diagnostics. */
/* Measured on one AVX-512 core (4096 x 4096 weights): gemm_fc 43 GFLOP/s
 * against rt_sgemm's 50 at M = 64, 25 against 17 at M = 16. */
#define GEMM_SGEMM_MIN_M 64

static void select_fc(struct ctx *c, struct node *n)
{
	struct tensor *a = n->inputs[0], *b = n->n_inputs > 1 ? n->inputs[1] : NULL;
	if (!a || !b || !b->data || b->dtype != DTYPE_F32 || b->rank != 2)
		return;
	int transB = n->op == OP_GEMM && ir_attr_int(n, "transB", 0) != 0;
	int64_t K = transB ? b->dims[1] : b->dims[0], N = transB ? b->dims[0] : b->dims[1];
	int64_t Ka = n->op == OP_GEMM && ir_attr_int(n, "transA", 0) ? a->dims[0]
	                                                             : a->dims[a->rank - 1];
	if (a->rank < 1 || (n->op == OP_GEMM && a->rank != 2) || Ka != K || K < 1 || N < 1 ||
	    K > INT_MAX || N > INT_MAX)
		return;
	/* rows: a Gemm's M; a MatMul's batch dims fold into rows (gemm_fc only) */
	int64_t M = n->op == OP_GEMM ? n->outputs[0]->dims[0] : ir_numel(a) / K;
	if (n->op == OP_GEMM && n->outputs[0]->rank == 2 && M <= INT_MAX &&
	    (c->opt->blas_openblas || M >= GEMM_SGEMM_MIN_M)) {
		n->primitive = "gemm_sgemm";
		n->ws_bytes = rt_sgemm_workspace_size(c->opt->isa, (int)M, (int)N, (int)K);
		return;
	}
	if (c->opt->blas_openblas)
		return;
	size_t nf = rt_gemm_fc_pack_size(c->opt->isa, (int)N, (int)K);
	float *data = arena_alloc(&c->g->arena, nf * sizeof(float));
	rt_gemm_fc_pack(c->opt->isa, (int)N, (int)K, (const float *)b->data, transB ? 1 : (size_t)N,
	                transB ? (size_t)K : 1, data);
	char name[256];
	snprintf(name, sizeof name, "%s_gemm_fc", b->name);
	int64_t dims[1] = {(int64_t)nf};
	n->inputs[1] = ir_new_constant(c->g, name, DTYPE_F32, 1, dims, data);
	n->primitive = "gemm_fc";
}

int pass_select(struct graph *g, const struct options *opt, struct diag *d)
{
	const char *s = opt->strategy ? opt->strategy : "greedy";
	if (strcmp(s, "reference") == 0)
		return 0;
	int known = strcmp(s, "greedy") == 0 || strcmp(s, "canonical") == 0 ||
	            strcmp(s, "sum2d") == 0;
	if (strncmp(s, "family:", 7) == 0)
		for (int f = 0; f < RT_FAM_COUNT_; f++)
			known |= strcmp(s + 7, rt_family_names[f]) == 0;
	if (!known) {
		diag_error(d, NULL, "--strategy %s: expected greedy, canonical, sum2d, reference or "
		           "family:NAME with NAME one of sum2d, direct, im2, kn2, winograd, fft, "
		           "depthwise%s",
		           s, strcmp(s, "pbqp") == 0 ? " (the PBQP selector is not built yet)" : "");
		return 1;
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

	struct ctx c = {g, opt, d, NULL, g->n_tensors, NULL, 0, 0, 0};
	c.ver = xcalloc(g->n_tensors ? g->n_tensors : 1, sizeof *c.ver);
	for (int i = 0; i < g->n_tensors; i++)
		c.ver[i].v[RT_L_CHW] = g->tensors[i];
	int n_nodes = g->n_nodes, errors = 0;
	struct node **nodes = xmalloc((n_nodes ? n_nodes : 1) * sizeof *nodes);
	memcpy(nodes, g->nodes, n_nodes * sizeof *nodes);

	for (int i = 0; i < n_nodes; i++) {
		struct node *n = nodes[i];
		if (n->dead)
			continue;
		if (n->op == OP_CONV) {
			errors += select_conv(&c, n);
		} else {
			/* every other op reads the model layout */
			for (int k = 0; k < n->n_inputs; k++)
				if (n->inputs[k])
					n->inputs[k] = make_available(&c, n->inputs[k], RT_L_CHW);
			if (n->op == OP_GEMM || n->op == OP_MATMUL)
				select_fc(&c, n);
		}
		push(&c, n);
	}
	for (int k = 0; k < g->n_outputs; k++)
		make_available(&c, g->outputs[k], RT_L_CHW);

	/* ir_add_node appended the transforms; the order built here replaces it. */
	if (c.n_order != g->n_nodes)
		unreachable("select: lost a node while reordering");
	memcpy(g->nodes, c.order, c.n_order * sizeof *g->nodes);
	for (int i = 0; i < g->n_nodes; i++)
		g->nodes[i]->index = i;
	ir_compact(g);
	free(nodes);
	free(c.order);
	free(c.ver);
	return errors;
}
