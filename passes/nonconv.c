/* nonconv.c - the layouts a non-convolution layer can run in, and what each
 * costs (DESIGN.md §3: non-convolution layers are PBQP nodes too, their
 * choices the layouts their kernels support).
 *
 * The kernels are rows of runtime/nonconv.def: a kind of layer (pooling,
 * global pooling, activation, same-shape element-wise op, channel Concat,
 * element-wise op with a per-channel operand) and
 * the layout the row reads. A layer gets one alternative per applicable row
 * under pbqp, greedy and family:F; canonical and sum2d keep CHW (the
 * baselines convert around every non-convolution, as the paper's did). A
 * row's cost is the measured one when the cost table has it (kind
 * "nonconv"), else the model below, from the row's data:
 *
 *   t = work x (v / (VL x eff_simd) + (1 - v) / eff_scalar) ns + bytes / bandwidth
 *
 * work: element operations (a pool's window taps per output, a global pool's
 * input elements, an activation's or element-wise op's outputs; none for a
 * Concat, which only copies); v: the fraction of them the row's SIMD loop
 * does on the target's ISA (whole vectors of the channel block; 0 where the
 * row has no SIMD for it); VL: floats per vector (AVX-512 steps down to 8 for
 * 8-channel blocks, as rt_simd.h does); bytes: every input and the output
 * once, in their layouts (blocked layouts pad C). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "passes/passes.h"
#include "runtime/primitives.h"
#include "runtime/sgemm.h"

const struct nc_kernel nc_kernels[] = {
#define NCK(name, kind, layout, simd, es, ev) {#name, kind, layout, simd, es, ev},
#include "runtime/nonconv.def"
#undef NCK
};
const int nc_n_kernels = (int)(sizeof nc_kernels / sizeof nc_kernels[0]);

static int is_act_op(enum op op)
{
	return ir_op_has(op, OPF_NC_ACT);
}

static int is_eltwise_op(enum op op)
{
	return ir_op_has(op, OPF_NC_ELTWISE);
}

static int act_keeps_zero(enum op op) { return op != OP_SIGMOID; }

static int is_chan_op(enum op op)
{
	return ir_op_has(op, OPF_NC_CHAN);
}

static int image_f32(const struct tensor *t)
{
	return t && t->rank == 4 && t->dtype == DTYPE_F32 && !t->data;
}

static int same_dims(const struct tensor *a, const struct tensor *b)
{
	if (a->rank != b->rank)
		return 0;
	for (int i = 0; i < a->rank; i++)
		if (a->dims[i] != b->dims[i])
			return 0;
	return 1;
}

/* Only the first output may be used (MaxPool's Indices is not supported here). */
static int one_output(const struct node *n)
{
	for (int k = 1; k < n->n_outputs; k++)
		if (n->outputs[k])
			return 0;
	return n->n_outputs >= 1 && n->outputs[0];
}

int nc_kind_of(const struct node *n)
{
	if (!one_output(n) || !image_f32(n->inputs[0]) || n->outputs[0]->dtype != DTYPE_F32)
		return -1;
	const struct tensor *x = n->inputs[0], *y = n->outputs[0];
	switch (n->op) {
	case OP_MAXPOOL:
	case OP_AVGPOOL: return n->n_inputs == 1 && y->rank == 4 ? NC_POOL : -1;
	case OP_GLOBAL_AVGPOOL:
	case OP_GLOBAL_MAXPOOL: return n->n_inputs == 1 ? NC_GPOOL : -1;
	case OP_CONCAT:
		if (n->n_inputs < 1 || n->n_inputs > NC_CONCAT_MAX_INPUTS ||
		    ir_attr_int((struct node *)n, "axis", 0) != 1)
			return -1;
		for (int k = 0; k < n->n_inputs; k++) {
			const struct tensor *t = n->inputs[k];
			if (!image_f32(t) || t->dims[0] != y->dims[0] || t->dims[2] != y->dims[2] ||
			    t->dims[3] != y->dims[3])
				return -1;
		}
		return NC_CONCAT;
	default: break;
	}
	if (!same_dims(x, y))
		return -1;
	if (is_act_op(n->op))
		return n->n_inputs == 1 ? NC_ACT : -1;
	if (is_eltwise_op(n->op) && n->n_inputs == 2 && image_f32(n->inputs[1]) &&
	    same_dims(n->inputs[1], y))
		return NC_ELTWISE;
	int sn, sc;
	if (is_chan_op(n->op) && n->n_inputs == 2 && !nc_chan_strides(n, &sn, &sc))
		return NC_CHAN;
	return -1;
}

/* Input 1 of a binary op on image x = input 0 ([N, C, H, W], like y), when
 * it broadcasts per channel: its dims, right-aligned with x's, are 1 over H
 * and W, C or 1 over C, N or 1 over N. Its float strides over N and C (0
 * where broadcast) go to *sn and *sc. */
int nc_chan_strides(const struct node *n, int *sn, int *sc)
{
	const struct tensor *x = n->inputs[0], *p = n->inputs[1];
	if (!p || p->dtype != DTYPE_F32 || p->rank > 4 || x->rank != 4)
		return -1;
	int64_t d[4] = {1, 1, 1, 1};
	for (int i = 0; i < p->rank; i++)
		d[4 - p->rank + i] = p->dims[i];
	if (d[2] != 1 || d[3] != 1 || (d[1] != 1 && d[1] != x->dims[1]) ||
	    (d[0] != 1 && d[0] != x->dims[0]))
		return -1;
	*sc = d[1] > 1 ? 1 : 0;
	*sn = d[0] > 1 ? (int)d[1] : 0;
	return 0;
}

int nc_n_in(const struct node *n)
{
	int kind = nc_kind_of(n);
	/* NC_CHAN: the per-channel operand (input 1) stays in the model's layout */
	return kind == NC_ELTWISE ? 2 : kind == NC_CONCAT ? n->n_inputs : kind >= 0 ? 1 : 0;
}

int nc_block(int layout) { return layout == RT_L_CHW8C ? 8 : layout == RT_L_CHW16C ? 16 : 0; }

int nc_applies(const struct nc_kernel *k, const struct node *n)
{
	int kind = nc_kind_of(n);
	if (kind < 0 || (int)k->kind != kind)
		return 0;
	int b = nc_block(k->layout);
	if (!b)
		return 1;
	if (kind == NC_ACT)
		return act_keeps_zero(n->op) || n->inputs[0]->dims[1] % b == 0;
	if (kind == NC_CONCAT)
		for (int i = 0; i < n->n_inputs; i++)
			if (n->inputs[i]->dims[1] % b)
				return 0;
	return 1;
}

int nc_pool_params(struct node *n, struct rt_pool2d *p)
{
	const struct tensor *x = n->inputs[0], *y = n->outputs[0];
	const int64_t *k, *s, *dl, *pads;
	if (ir_attr_ints(n, "kernel_shape", &k) != 2)
		return -1;
	int ns = ir_attr_ints(n, "strides", &s), nd = ir_attr_ints(n, "dilations", &dl);
	int np = ir_attr_ints(n, "pads", &pads);
	memset(p, 0, sizeof *p);
	p->N = (int)x->dims[0];
	p->C = (int)x->dims[1];
	p->H = (int)x->dims[2];
	p->W = (int)x->dims[3];
	p->oH = (int)y->dims[2];
	p->oW = (int)y->dims[3];
	p->kH = (int)k[0];
	p->kW = (int)k[1];
	p->sH = ns == 2 ? (int)s[0] : 1;
	p->sW = ns == 2 ? (int)s[1] : 1;
	p->dH = nd == 2 ? (int)dl[0] : 1;
	p->dW = nd == 2 ? (int)dl[1] : 1;
	p->padT = np == 4 ? (int)pads[0] : 0;
	p->padL = np == 4 ? (int)pads[1] : 0;
	p->padB = np == 4 ? (int)pads[2] : 0;
	p->padR = np == 4 ? (int)pads[3] : 0;
	p->count_include_pad = n->op == OP_AVGPOOL && ir_attr_int(n, "count_include_pad", 0) != 0;
	return 0;
}

void nc_key(struct node *n, char *buf, size_t size)
{
	const struct tensor *x = n->inputs[0], *y = n->outputs[0];
	struct rt_pool2d p;
	int kind = nc_kind_of(n);
	if (kind == NC_POOL && !nc_pool_params(n, &p)) {
		snprintf(buf, size, "%d,%d,%d,%d,%d,%d,%d,%d,%d,%d,%d,%d,%d,%d,%d,%d,%d,%d", p.N, p.C,
		         p.H, p.W, p.oH, p.oW, p.kH, p.kW, p.sH, p.sW, p.dH, p.dW, p.padT, p.padL, p.padB,
		         p.padR, p.count_include_pad, n->op == OP_AVGPOOL);
		return;
	}
	int len = snprintf(buf, size, "%d,%d,%d,%d,%d", (int)y->dims[0], (int)y->dims[1],
	                   (int)y->dims[2], (int)y->dims[3], (int)n->op);
	for (int k = 0; kind == NC_CONCAT && k < n->n_inputs && len > 0 && (size_t)len < size; k++)
		len += snprintf(buf + len, size - len, ",%d", (int)n->inputs[k]->dims[1]);
	if (kind == NC_GPOOL && len > 0 && (size_t)len < size)
		snprintf(buf + len, size - len, ",%d,%d", (int)x->dims[2], (int)x->dims[3]);
}

static double floats(const struct tensor *t, int layout)
{
	return (double)t->dims[0] * rt_layout_size(layout, (int)t->dims[1], (int)t->dims[2],
	                                           (int)t->dims[3]);
}

double nc_model_us(const struct nc_kernel *k, struct node *n, int isa)
{
	const struct tensor *x = n->inputs[0], *y = n->outputs[0];
	double work = 0, bytes = 0;
	int cc = nc_block(k->layout) ? nc_block(k->layout) : (int)x->dims[1];
	switch (k->kind) {
	case NC_POOL: {
		struct rt_pool2d p;
		if (nc_pool_params(n, &p))
			return INFINITY;
		work = (double)ir_numel(y) * p.kH * p.kW;
		if (k->layout == RT_L_CHW) /* pool_cl.c runs its vectors along W */
			cc = 1 << 30;
		break;
	}
	case NC_GPOOL: work = (double)ir_numel(x); break;
	case NC_ACT:
	case NC_ELTWISE:
		work = (double)ir_numel(y);
		cc = 1 << 30; /* element order does not matter: every float is in a vector */
		break;
	case NC_CHAN:
		work = (double)ir_numel(y);
		if (k->layout == RT_L_CHW) /* a row of H*W per channel */
			cc = (int)(x->dims[2] * x->dims[3]);
		bytes += 4.0 * (double)ir_numel(n->inputs[1]);
		break;
	case NC_CONCAT: break;
	}
	for (int i = 0; i < nc_n_in(n); i++)
		bytes += 4 * floats(n->inputs[i], k->layout);
	bytes += 4 * floats(y, k->kind == NC_GPOOL ? RT_L_CHW : k->layout);
	double ns = 0;
	if (work > 0) {
		int vl = isa == RT_SGEMM_ISA_AVX512 ? 16 : isa == RT_SGEMM_ISA_AVX2 ? 8 :
		         isa == RT_SGEMM_ISA_NEON ? 4 : 0;
		if (vl == 16 && cc % 16)
			vl = 8;
		double v = 0;
		if (vl && (k->simd >> isa & 1u) && cc >= vl)
			v = cc >= (1 << 30) ? 1.0 : (double)(cc / vl * vl) / cc;
		ns = work * (v > 0 ? v / (vl * k->eff_simd) : 0) +
		     work * (1 - v) / k->eff_scalar;
	}
	ns += bytes / cost_bandwidth * 1e9;
	return ns * 1e-3;
}

int nc_alternatives(struct node *n, const struct options *opt, const char *strategy,
                    struct sel_alt **alts)
{
	int kind = nc_kind_of(n);
	int all = strcmp(strategy, "canonical") != 0 && strcmp(strategy, "sum2d") != 0;
	if (kind < 0)
		return 0;
	*alts = xcalloc(nc_n_kernels, sizeof **alts); /* fields not set here are 0 */
	int m = 0;
	for (int i = 0; i < nc_n_kernels; i++) {
		const struct nc_kernel *k = &nc_kernels[i];
		if (!nc_applies(k, n) || (!all && k->layout != RT_L_CHW) ||
		    (opt->no_blocked && nc_block(k->layout)))
			continue;
		(*alts)[m].prim = NULL;
		(*alts)[m].nck = k;
		(*alts)[m].in = k->layout;
		(*alts)[m].out = kind == NC_GPOOL ? RT_L_CHW : k->layout;
		(*alts)[m].n_in = nc_n_in(n);
		/* a zero-copy Concat (plan_memory) runs no code in this layout */
		(*alts)[m].cost_us = kind == NC_CONCAT &&
		                     fuse_concat_free(n, k->layout == RT_L_CHW ? LAYOUT_MODEL :
		                                         (enum layout)(k->layout + 1))
		                     ? 0 : costs_nonconv_us(opt, k, n);
		m++;
	}
	if (m == 0) {
		free(*alts);
		*alts = NULL;
	}
	return m;
}
