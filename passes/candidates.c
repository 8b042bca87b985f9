/* candidates.c - what selection may choose for each node (DESIGN.md §3).
 *
 * A 1-D/2-D convolution may run any row of runtime/primitives.def whose
 * predicate accepts the layer (rows that pack their weights at compile time
 * only when the weights are constants); each row fixes the layout it reads
 * and the layout it writes. The strategy narrows the rows:
 *   greedy, pbqp  every applicable row
 *   canonical     rows reading and writing CHW (no transforms at all)
 *   sum2d         the baseline family
 *   family:F      the rows of family F, sum2d for layers F cannot do
 * and --force-primitive NODE=NAME leaves exactly that row (an error when it
 * does not apply). Pools, global pools, activations, same-shape element-wise
 * ops and channel Concats have one alternative per layout their kernels run
 * in (nonconv.c, runtime/nonconv.def), at their kernels' costs; every other
 * node has one alternative, the model layout (CHW) in and out, at cost 0:
 * its one kernel costs the same whatever is chosen around it. The
 * "reference" strategy selects nothing and never gets here. */
#include <stdlib.h>
#include <string.h>

#include "passes/passes.h"
#include "runtime/primitives.h"

int cand_strategy_known(const char *s)
{
	if (strcmp(s, "greedy") == 0 || strcmp(s, "pbqp") == 0 || strcmp(s, "canonical") == 0 ||
	    strcmp(s, "sum2d") == 0 || strcmp(s, "reference") == 0)
		return 1;
	if (strncmp(s, "family:", 7) == 0)
		for (int f = 0; f < RT_FAM_COUNT_; f++)
			if (strcmp(s + 7, rt_family_names[f]) == 0)
				return 1;
	return 0;
}

static int row_allowed(const struct rt_prim *r, const char *strategy)
{
	if (strcmp(strategy, "greedy") == 0 || strcmp(strategy, "pbqp") == 0)
		return 1;
	if (strcmp(strategy, "canonical") == 0)
		return r->in == RT_L_CHW && r->out == RT_L_CHW;
	if (strcmp(strategy, "sum2d") == 0)
		return r->family == RT_FAM_SUM2D;
	if (strncmp(strategy, "family:", 7) == 0)
		return strcmp(rt_family_names[r->family], strategy + 7) == 0;
	return 0;
}

static const char *forced_primitive(const struct options *opt, const struct node *n)
{
	for (int i = 0; i < opt->n_force; i++)
		if (strcmp(opt->force[i].node, n->name) == 0)
			return opt->force[i].primitive;
	return NULL;
}

static int one_alternative(struct sel_alt **alts, const struct rt_prim *r, double cost)
{
	*alts = xcalloc(1, sizeof **alts);
	(*alts)[0].prim = r;
	(*alts)[0].n_in = 1;
	(*alts)[0].in = r ? (int)r->in : RT_L_CHW;
	(*alts)[0].out = r ? (int)r->out : RT_L_CHW;
	(*alts)[0].cost_us = cost;
	return 1;
}

/* A fused residual epilogue (fuse.c) after row r: a second pass over the
 * output (runtime/residual.c), or, in the rows that add it in their store
 * loop (rt_prim_fuses_residual), only the read of the shortcut, a third of it.
 * Except a 1x1 writing HWC: its tiles store two vectors of a pixel's M
 * channels at a time, M floats apart, and read the shortcut the same way;
 * measured (conv_pointwise_hwc, ResNet-50's conv3 shapes, Xeon) that costs
 * one to two passes more than the conv alone, against a third of a pass in
 * CHW16c, whose tiles read and write whole lines in order. */
static double residual_us(const struct node *n, const struct rt_prim *r,
                          const struct rt_conv2d *p)
{
	if (!fuse_has_residual(n))
		return 0;
	double pass = cost_residual_us((double)ir_numel(n->outputs[0]));
	if (!rt_prim_fuses_residual(r) || (r->out == RT_L_HWC && p->kH == 1 && p->kW == 1))
		return pass;
	return pass / 3;
}

/* A primitive's workspace and what it saves, against prim_us (its
 * costs_primitive_us), when a layer before it left a workspace in the cache
 * (the table's "warm" row; costs.c). */
static void warm_terms(struct sel_alt *a, const struct options *opt, const struct rt_conv2d *p,
                       double prim_us)
{
	const struct rt_prim *r = a->prim;
	a->ws_floats = (double)r->ws(p, r->variant);
	double gain = prim_us - costs_primitive_warm_us(opt, r, p);
	a->warm_gain_us = gain > 0 && a->ws_floats > 0 ? gain : 0;
}

int cand_alternatives(struct node *n, const struct options *opt, const char *strategy,
                      struct sel_alt **alts, int *fell_back, struct diag *d)
{
	struct rt_conv2d p;
	if (n->op != OP_CONV) {
		int k = nc_alternatives(n, opt, strategy, alts);
		return k > 0 ? k : one_alternative(alts, NULL, 0);
	}
	if (pass_conv_params(n, opt->isa, opt->threads, &p))
		return one_alternative(alts, NULL, 0); /* canonicalize refused other ranks */
	int weights_const = n->inputs[1]->data != NULL;
	const char *forced = forced_primitive(opt, n);
	if (forced) {
		const struct rt_prim *r = rt_prim_find(forced);
		if (!r) {
			diag_error(d, n, "--force-primitive: no primitive named '%s' (see dnncc "
			           "--list-primitives)", forced);
			return -1;
		}
		if (!r->applies(&p, r->variant)) {
			diag_error(d, n, "--force-primitive: %s does not apply to this layer (it "
			           "needs: %s)", forced, r->constraints);
			return -1;
		}
		if (r->packed && !weights_const) {
			diag_error(d, n, "--force-primitive: %s packs its weights at compile time, "
			           "but weights '%s' are a graph input", forced, n->inputs[1]->name);
			return -1;
		}
		const double prim_us = costs_primitive_us(opt, r, &p);
		one_alternative(alts, r, prim_us + residual_us(n, r, &p));
		warm_terms(&(*alts)[0], opt, &p, prim_us);
		return 1;
	}
	*alts = xcalloc(rt_n_prims, sizeof **alts);
	int k = 0;
	for (int pass = 0; pass < 2 && k == 0; pass++) {
		/* pass 1: a family with no row for this layer falls back to sum2d */
		const char *s = pass == 0 ? strategy : "sum2d";
		if (pass == 1 && fell_back)
			*fell_back = 1;
		for (int i = 0; i < rt_n_prims; i++) {
			const struct rt_prim *r = &rt_prims[i];
			if (!row_allowed(r, s) || !r->applies(&p, r->variant) ||
			    (r->packed && !weights_const) ||
			    (opt->no_blocked && (nc_block(r->in) || nc_block(r->out))))
				continue;
			(*alts)[k].prim = r;
			(*alts)[k].in = r->in;
			(*alts)[k].out = r->out;
			(*alts)[k].n_in = 1;
			const double prim_us = costs_primitive_us(opt, r, &p);
			(*alts)[k].cost_us = prim_us + residual_us(n, r, &p);
			warm_terms(&(*alts)[k], opt, &p, prim_us);
			k++;
		}
	}
	if (k == 0)
		unreachable("candidates: not even sum2d applies");
	return k;
}
