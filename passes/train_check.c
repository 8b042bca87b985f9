/* train_check.c - what `dnncc --train` can differentiate: one float input
 * [B, ...], one float output [B, C], and only Gemm (alpha = beta = 1,
 * transA = 0, constant B and C), MatMul with a constant right operand, Add of
 * a constant bias, Relu, Sigmoid, Tanh, Softmax over the last axis of a
 * [B, N] tensor, Flatten and Reshape to [B, N]. Needs shapes
 * (pass_infer_shapes); reports every node it refuses, by name, and changes
 * nothing. pass_autodiff relies on what it accepts. */
#include "passes/train.h"

static int is_param(const struct tensor *t)
{
	return t && t->data && t->dtype == DTYPE_F32;
}

static int is_activation(const struct tensor *t)
{
	return t && !t->data && t->dtype == DTYPE_F32 && t->rank >= 1;
}

static void check_2d(struct diag *d, struct node *n, const struct tensor *t, int64_t batch,
                     const char *what)
{
	if (t->rank != 2 || t->dims[0] != batch)
		diag_error(d, n, "--train: %s '%s' must be [%lld, N] (batch %lld, features), "
		           "it has rank %d", what, t->name, (long long)batch, (long long)batch,
		           t->rank);
}

static void check_gemm(struct diag *d, struct node *n, int64_t batch)
{
	const struct tensor *a = n->inputs[0], *w = n->n_inputs > 1 ? n->inputs[1] : NULL;
	const struct tensor *c = n->n_inputs > 2 ? n->inputs[2] : NULL;
	int64_t cols = 0;
	if (!is_activation(a)) {
		diag_error(d, n, "--train: input A must be a float activation, not a constant");
		return;
	}
	check_2d(d, n, a, batch, "input A");
	if (!is_param(w) || w->rank != 2) {
		diag_error(d, n, "--train: input B must be a 2-D float initializer (the weights)");
		return;
	}
	if (n->op == OP_GEMM) {
		double alpha = ir_attr_float(n, "alpha", 1.0), beta = ir_attr_float(n, "beta", 1.0);
		int64_t ta = ir_attr_int(n, "transA", 0), tb = ir_attr_int(n, "transB", 0);
		if (alpha != 1.0 || (c && beta != 1.0))
			diag_error(d, n, "--train: alpha = %g, beta = %g; only alpha = beta = 1 is "
			           "supported", alpha, beta);
		if (ta)
			diag_error(d, n, "--train: transA = 1 is not supported (A is the batch of "
			           "activations)");
		cols = tb ? w->dims[0] : w->dims[1];
		if (c && (!is_param(c) || ir_numel(c) != cols || (c->rank == 2 && c->dims[0] != 1) ||
		          c->rank > 2))
			diag_error(d, n, "--train: input C must be a float initializer of shape [%lld] "
			           "or [1, %lld] (the bias)", (long long)cols, (long long)cols);
	}
}

static void check_add(struct diag *d, struct node *n, int64_t batch)
{
	const struct tensor *x = n->inputs[0], *b = n->inputs[1];
	if (is_param(x)) {
		const struct tensor *t = x;
		x = b;
		b = t;
	}
	if (!is_activation(x) || !is_param(b)) {
		diag_error(d, n, "--train: Add must add a float initializer (a bias) to an activation");
		return;
	}
	check_2d(d, n, x, batch, "input");
	if (x->rank == 2 && (ir_numel(b) != x->dims[1] || b->rank > 2 ||
	                     (b->rank == 2 && b->dims[0] != 1)))
		diag_error(d, n, "--train: bias '%s' must have shape [%lld] or [1, %lld]", b->name,
		           (long long)x->dims[1], (long long)x->dims[1]);
}

int pass_train_check(struct graph *g, const struct options *opt, struct diag *d)
{
	const int before = d->errors;
	const int64_t batch = opt->train->batch;
	if (g->n_inputs != 1)
		diag_error(d, NULL, "--train: the model must have exactly one input (it has %d)",
		           g->n_inputs);
	else if (g->inputs[0]->dtype != DTYPE_F32 || g->inputs[0]->dims[0] != batch)
		diag_error(d, NULL, "--train: input '%s' must be float with the batch (%lld) as its "
		           "first dimension", g->inputs[0]->name, (long long)batch);
	if (g->n_outputs != 1) {
		diag_error(d, NULL, "--train: the model must have exactly one output (it has %d)",
		           g->n_outputs);
	} else {
		const struct tensor *y = g->outputs[0];
		if (!y->producer || y->rank != 2 || y->dims[0] != batch || y->dtype != DTYPE_F32)
			diag_error(d, NULL, "--train: output '%s' must be a computed float tensor "
			           "[%lld, C]", y->name, (long long)batch);
	}
	for (int i = 0; i < g->n_nodes; i++) {
		struct node *n = g->nodes[i];
		if (n->dead)
			continue;
		switch (n->op) {
		case OP_GEMM:
		case OP_MATMUL: check_gemm(d, n, batch); break;
		case OP_ADD: check_add(d, n, batch); break;
		case OP_RELU:
		case OP_SIGMOID:
		case OP_TANH:
			if (!is_activation(n->inputs[0]))
				diag_error(d, n, "--train: the input must be a float activation");
			break;
		case OP_SOFTMAX: {
			const struct tensor *x = n->inputs[0];
			int64_t axis = ir_attr_int(n, "axis", g->opset >= 13 || !g->opset ? -1 : 1);
			if (!is_activation(x))
				diag_error(d, n, "--train: the input must be a float activation");
			else if (x->rank != 2 || (axis != -1 && axis != 1))
				diag_error(d, n, "--train: Softmax must act on the last axis of a [batch, N] "
				           "tensor");
			break;
		}
		case OP_FLATTEN:
		case OP_RESHAPE:
			if (!is_activation(n->inputs[0]) || !n->outputs[0])
				diag_error(d, n, "--train: the input must be a float activation");
			else
				check_2d(d, n, n->outputs[0], batch, "output");
			break;
		default:
			diag_error(d, n, "--train: operator %s is not supported (supported: Gemm, MatMul, "
			           "Add of a bias, Relu, Sigmoid, Tanh, Softmax, Flatten, Reshape)",
			           ir_op_names[n->op]);
		}
	}
	return d->errors - before;
}

