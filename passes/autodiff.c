/* autodiff.c - the backward graph of a fully-connected network, derived in
 * the IR (reverse-mode differentiation, one rule per forward op).
 *
 * Needs: a graph pass_train_check accepted. Appends, after the unchanged
 * forward nodes:
 *   1. the loss node: SoftmaxCrossEntropy(logits, labels) -> (loss, dlogits)
 *      or MeanSquaredError(y, target) -> (loss, dy); a trailing Softmax is
 *      absorbed into softmax-ce (the loss reads its input, the logits, and
 *      the Softmax node is marked as run by inference only);
 *   2. for each forward node, last to first, the nodes that compute the
 *      gradients of its inputs from the gradient of its output (the rules are
 *      in grad_node); a tensor read by several nodes sums its gradients with
 *      Add nodes, which is complete because every reader of a tensor comes
 *      after its producer in topological order;
 *   3. one OptimizerStep(param, grad) per parameter, in first-use order.
 * Gradient GEMMs are ordinary Gemm nodes with transA/transB attributes:
 * for Y = X W^T (transB = 1, W [N, K]): dX = dY W, dW = dY^T X; for Y = X W
 * (W [K, N]): dX = dY W^T, dW = X^T dY. Only tensors that depend on a
 * parameter get gradients (none for the input and views of it). */
#include "passes/train.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int is_param(const struct tensor *t)
{
	return t && t->data && t->dtype == DTYPE_F32;
}

/* ---- pass_autodiff ----------------------------------------------------------- */

struct autodiff {
	struct graph *g;
	int n_fwd;               /* tensors of the forward graph (indices below it) */
	unsigned char *needs;    /* [n_fwd] 1: depends on a parameter (gets a gradient) */
	struct tensor **grad;    /* [n_fwd] gradient of each forward tensor so far, or NULL */
};

static struct tensor *new_like(struct autodiff *ad, const char *prefix, const struct tensor *like,
                               enum dtype dtype)
{
	char name[256];
	snprintf(name, sizeof name, "%s%s", prefix, like->name);
	struct tensor *t = ir_new_tensor(ad->g, name, dtype);
	ir_set_shape(t, like->rank, like->dims);
	return t;
}

static struct node *add1(struct autodiff *ad, enum op op, const char *what, const struct node *fwd,
                         int n_in, struct tensor *const *in, struct tensor *out)
{
	char name[256];
	snprintf(name, sizeof name, "%s/%s", fwd ? fwd->name : "train", what);
	return ir_add_node(ad->g, op, name, n_in, in, out ? 1 : 0, &out);
}

static void set_int(struct graph *g, struct node *n, const char *name, int64_t v)
{
	ir_add_attr(g, n, name, ATTR_INT)->i = v;
}

/* Records gt as (a part of) the gradient of forward tensor t. */
static void add_grad(struct autodiff *ad, struct tensor *t, struct tensor *gt)
{
	struct tensor *have = ad->grad[t->index];
	if (!have) {
		ad->grad[t->index] = gt;
		return;
	}
	struct tensor *sum = new_like(ad, "grad_sum_", t, DTYPE_F32);
	struct tensor *in[2] = {have, gt};
	add1(ad, OP_ADD, "grad_sum", t->producer, 2, in, sum);
	ad->grad[t->index] = sum;
}

/* The chain rule for one forward node n with output gradient dy. */
static void grad_node(struct autodiff *ad, struct node *n, struct tensor *dy)
{
	struct graph *g = ad->g;
	struct tensor *x = n->inputs[0], *y = n->outputs[0];
	const int need_x = ad->needs[x->index];
	switch (n->op) {
	case OP_GEMM:
	case OP_MATMUL: {
		struct tensor *w = n->inputs[1];
		struct tensor *c = n->op == OP_GEMM && n->n_inputs > 2 ? n->inputs[2] : NULL;
		const int tb = n->op == OP_GEMM ? (int)ir_attr_int(n, "transB", 0) : 0;
		if (need_x) {
			struct tensor *dx = new_like(ad, "grad_", x, DTYPE_F32);
			struct tensor *in[2] = {dy, w};
			struct node *m = add1(ad, OP_GEMM, "grad_A", n, 2, in, dx);
			set_int(g, m, "transA", 0);
			set_int(g, m, "transB", !tb);
			add_grad(ad, x, dx);
		}
		struct tensor *dw = new_like(ad, "grad_", w, DTYPE_F32);
		struct tensor *in[2] = {tb ? dy : x, tb ? x : dy};
		struct node *m = add1(ad, OP_GEMM, "grad_B", n, 2, in, dw);
		set_int(g, m, "transA", 1);
		set_int(g, m, "transB", 0);
		add_grad(ad, w, dw);
		if (c) {
			struct tensor *dc = new_like(ad, "grad_", c, DTYPE_F32);
			add1(ad, OP_BIAS_GRAD, "grad_C", n, 1, &dy, dc);
			add_grad(ad, c, dc);
		}
		break;
	}
	case OP_ADD:
		for (int k = 0; k < 2; k++) {
			struct tensor *t = n->inputs[k];
			if (is_param(t)) {
				struct tensor *db = new_like(ad, "grad_", t, DTYPE_F32);
				add1(ad, OP_BIAS_GRAD, "grad_bias", n, 1, &dy, db);
				add_grad(ad, t, db);
			} else if (ad->needs[t->index]) {
				add_grad(ad, t, dy); /* d(x + b)/dx = 1: the same tensor */
			}
		}
		break;
	case OP_RELU:
	case OP_SIGMOID:
	case OP_TANH:
		if (need_x) {
			struct tensor *dx = new_like(ad, "grad_", x, DTYPE_F32);
			struct tensor *in[2] = {y, dy};
			struct node *m = add1(ad, OP_ACT_GRAD, "grad", n, 2, in, dx);
			float alpha, beta;
			m->act = ir_act_of(n, &alpha, &beta);
			add_grad(ad, x, dx);
		}
		break;
	case OP_SOFTMAX:
		if (need_x) {
			struct tensor *dx = new_like(ad, "grad_", x, DTYPE_F32);
			struct tensor *in[2] = {y, dy};
			add1(ad, OP_SOFTMAX_GRAD, "grad", n, 2, in, dx);
			add_grad(ad, x, dx);
		}
		break;
	case OP_FLATTEN:
	case OP_RESHAPE:
		if (need_x) {
			/* The gradient of a view is the same bytes under the input's shape. */
			struct tensor *dx = new_like(ad, "grad_", x, DTYPE_F32);
			add1(ad, OP_RESHAPE, "grad", n, 1, &dy, dx);
			add_grad(ad, x, dx);
		}
		break;
	default: unreachable("pass_train_check let an unsupported op through");
	}
}

static const char *const optimizer_names[] = {"sgd", "momentum", "adam"};

int pass_autodiff(struct graph *g, const struct options *opt, struct diag *d)
{
	const struct train_options *to = opt->train;
	const int before = d->errors;
	ir_compact(g);
	struct autodiff ad = {g, g->n_tensors, xcalloc(g->n_tensors, 1),
	                      xcalloc(g->n_tensors, sizeof(struct tensor *))};
	const int n_fwd_nodes = g->n_nodes;

	/* Which tensors depend on a parameter. */
	for (int i = 0; i < g->n_tensors; i++)
		ad.needs[i] = (unsigned char)is_param(g->tensors[i]);
	for (int i = 0; i < n_fwd_nodes; i++) {
		struct node *n = g->nodes[i];
		int any = 0;
		for (int k = 0; k < n->n_inputs; k++)
			any |= n->inputs[k] && ad.needs[n->inputs[k]->index];
		for (int k = 0; k < n->n_outputs; k++)
			if (n->outputs[k])
				ad.needs[n->outputs[k]->index] = (unsigned char)any;
	}

	/* The loss. */
	struct tensor *y = g->outputs[0];
	struct node *last = y->producer;
	if (to->loss == TRAIN_LOSS_SOFTMAX_CE && last->op == OP_SOFTMAX) {
		ir_add_attr(g, last, TRAIN_ATTR_INFER_ONLY, ATTR_INT)->i = 1;
		y = last->inputs[0];
	}
	if (!ad.needs[y->index]) {
		diag_error(d, NULL, "--train: output '%s' does not depend on any parameter", y->name);
		goto out;
	}
	int64_t scalar[1] = {1};
	struct tensor *loss = ir_new_tensor(g, "loss", DTYPE_F32);
	ir_set_shape(loss, 1, scalar);
	struct tensor *dy = new_like(&ad, "grad_", y, DTYPE_F32);
	struct tensor *truth;
	if (to->loss == TRAIN_LOSS_SOFTMAX_CE) {
		truth = ir_new_tensor(g, "labels", DTYPE_I32);
		ir_set_shape(truth, 1, y->dims);
	} else {
		truth = new_like(&ad, "target_", y, DTYPE_F32);
	}
	truth->is_input = 1; /* an argument of NAME_train_step, not of NAME_run */
	struct tensor *lin[2] = {y, truth}, *lout[2] = {loss, dy};
	ir_add_node(g, to->loss == TRAIN_LOSS_SOFTMAX_CE ? OP_SOFTMAX_CE : OP_MSE, "train/loss", 2,
	            lin, 2, lout);
	ad.grad[y->index] = dy;

	/* The gradients, last forward node first. */
	for (int i = n_fwd_nodes - 1; i >= 0; i--) {
		struct node *n = g->nodes[i];
		if (ir_attr(n, TRAIN_ATTR_INFER_ONLY))
			continue;
		struct tensor *gy = ad.grad[n->outputs[0]->index];
		if (gy)
			grad_node(&ad, n, gy);
	}

	/* The updates, one per parameter in first-use order. */
	for (int i = 0; i < n_fwd_nodes; i++) {
		struct node *n = g->nodes[i];
		for (int k = 0; k < n->n_inputs; k++) {
			struct tensor *p = n->inputs[k];
			if (!is_param(p) || p->index >= ad.n_fwd || ad.needs[p->index] == 2)
				continue;
			if (n->op == OP_RESHAPE || n->op == OP_FLATTEN)
				continue;
			ad.needs[p->index] = 2; /* seen */
			if (!ad.grad[p->index]) {
				diag_error(d, n, "--train: parameter '%s' does not influence the loss",
				           p->name);
				continue;
			}
			struct tensor *in[2] = {p, ad.grad[p->index]};
			char name[256];
			snprintf(name, sizeof name, "train/step/%s", p->name);
			struct node *m = ir_add_node(g, OP_OPTIMIZER_STEP, name, 2, in, 0, NULL);
			struct attr *a = ir_add_attr(g, m, "optimizer", ATTR_STRING);
			a->s = optimizer_names[to->optimizer];
			ir_add_attr(g, m, "lr", ATTR_FLOAT)->f = to->lr;
		}
	}
out:
	free(ad.needs);
	free(ad.grad);
	return d->errors - before;
}
