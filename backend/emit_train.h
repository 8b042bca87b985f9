/* emit_train.h - the emitters of training code (dnncc --train): the storage
 * plan they share (emit_train.c), the C99 printer (emit_train.c) and the CUDA
 * printer (emit_train_cuda.c). */
#ifndef DNNCC_EMIT_TRAIN_H
#define DNNCC_EMIT_TRAIN_H

#include <stdio.h>

#include "ir/ir.h"
#include "passes/passes.h"
#include "passes/train.h"

/* Where a tensor lives in generated training code. */
enum train_storage {
	TS_NONE,   /* never read (Reshape's shape constant) */
	TS_PARAM,  /* in the parameter blob, at off */
	TS_GRAD,   /* a parameter's gradient, at the parameter's off in the gradient blob */
	TS_BUF,    /* its own buffer */
	TS_VIEW,   /* its input's buffer (Flatten, Reshape) */
	TS_INPUT,  /* the caller's batch x */
	TS_LABELS, /* the caller's labels (softmax-ce) */
	TS_TARGET, /* the caller's target (mse) */
	TS_LOSS,   /* the scalar loss */
};

struct train_plan {
	const struct graph *g;               /* after pass_autodiff; not owned */
	const struct options *opt;           /* not owned */
	const struct train_options *to;      /* opt->train */
	enum train_storage *kind;            /* [g->n_tensors] */
	size_t *off;                         /* [g->n_tensors] float offset of params and grads */
	const struct tensor **params;        /* [n_params] in blob order */
	int n_params;
	size_t n_floats;                     /* floats in the parameter blob */
	size_t ws_bytes;                     /* rt_sgemm workspace of the largest GEMM */
};

/* ---- emit_train.c ------------------------------------------------------------ */
void train_plan_build(struct train_plan *p, const struct graph *g, const struct options *opt);
void train_plan_free(struct train_plan *p);
const struct tensor *train_view_root(const struct train_plan *p, const struct tensor *t);
/* For Gemm and MatMul nodes: the GEMM's sizes and transposes; 0 for others. */
int train_gemm_dims(const struct node *n, int *M, int *N, int *K, int *ta, int *tb);
int train_infer_only(const struct node *n);
const char *train_runtime_text(const char *path);
void train_copy_runtime(FILE *out, const char *path);
void train_copy_runtime_except(FILE *out, const char *path, const char *const *drop);
void train_copy_functions(FILE *out, const char *path, const char *const *names);
void train_float_literal(char *buf, size_t size, double v);
char *train_upper(const char *name);
void train_paths(const char *output, const char *ext, char **base, char **header);
void train_print_header(FILE *o, const struct train_plan *p, const char *N, const char *U,
                        int cuda);
void train_print_param_tables(FILE *o, const struct train_plan *p, const char *N);
void train_print_init_bits(FILE *o, const struct train_plan *p, const char *type);
int train_write_file(const char *path, int (*print)(FILE *, void *), void *arg, struct diag *d);

/* ---- emit_train_cuda.c ------------------------------------------------------- */
/* The CUDA-only part of NAME.h: the epoch entry point and pinned memory. */
void train_print_cuda_header_extra(FILE *o, const struct train_plan *p, const char *N,
                                   const char *U);
/* Writes NAME.cu at path. */
int train_write_cuda(const struct train_plan *p, const char *path, const char *name,
                     const char *base, struct diag *d);

/* Needs: a graph after pass_autodiff. Writes opt->output (NAME.c, or NAME.cu
 * with opt->train->cuda) and NAME.h beside it; on failure, nothing. */
int emit_train_c(const struct graph *g, const struct options *opt, struct diag *d);

#endif
