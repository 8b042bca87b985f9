/* train.h - training code for fully-connected networks (dnncc --train): the
 * training options, the passes that check a forward graph and derive its
 * backward graph, and the emitters that print it as C or CUDA. */
#ifndef DNNCC_TRAIN_H
#define DNNCC_TRAIN_H

#include "ir/ir.h"
#include "passes/passes.h"

enum train_loss {
	TRAIN_LOSS_SOFTMAX_CE, /* softmax cross-entropy on the logits, labels int [B] */
	TRAIN_LOSS_MSE,        /* mean squared error against a float target [B, C] */
};

enum train_optimizer {
	TRAIN_OPT_SGD,      /* p -= lr g */
	TRAIN_OPT_MOMENTUM, /* v = mu v + g; p -= lr v (torch.optim.SGD momentum) */
	TRAIN_OPT_ADAM,     /* torch.optim.Adam, no weight decay */
};

struct train_options {
	enum train_loss loss;           /* --loss */
	enum train_optimizer optimizer; /* --optimizer */
	double lr;                      /* --lr */
	double momentum;                /* --momentum (momentum optimizer) */
	double beta1, beta2, eps;       /* Adam's constants (PyTorch's defaults) */
	int batch;                      /* --batch: rows per step, fixed at compile time */
	int cuda;                       /* --target cuda: NAME.cu instead of NAME.c */
	int pool_batches;               /* --pool-batches K (cuda): batches per pool */
};

/* Attribute set on a forward node that only inference runs: the trailing
 * Softmax that softmax-ce absorbs. */
#define TRAIN_ATTR_INFER_ONLY "dnncc_inference_only"

/* ---- train_check.c, autodiff.c -------------------------------------------------
 * pass_train_check (train_check.c) needs: shapes (pass_infer_shapes). It accepts exactly the
 * graphs --train supports: one float input [B, ...], one output [B, C];
 * Gemm (alpha = beta = 1, transA = 0, constant B and C) or MatMul with a
 * constant right operand, Add of a constant bias, Relu, Sigmoid, Tanh,
 * Softmax over the last axis of a [B, N] tensor, Flatten and Reshape to
 * [B, N]. Every other node is refused, by name.
 *
 * pass_autodiff (autodiff.c) needs: a checked graph, opt->train. It appends the loss node
 * (labels or target become a new input tensor), then, walking the forward
 * nodes backwards, one gradient node group per forward node (chain rule:
 * Gemm nodes for the GEMM gradients, BiasGrad, ActivationGrad, SoftmaxGrad,
 * Reshape views, Add where one tensor feeds several nodes), then one
 * OptimizerStep per parameter in the order the forward graph first reads
 * them. Parameters are the float constants the GEMMs and bias adds read.
 * Guarantees: every new tensor has its shape; the forward nodes are first and
 * unchanged (the absorbed Softmax carries TRAIN_ATTR_INFER_ONLY). */
int pass_train_check(struct graph *g, const struct options *opt, struct diag *d);
int pass_autodiff(struct graph *g, const struct options *opt, struct diag *d);

#endif
