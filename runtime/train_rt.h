/* train_rt.h - prototypes of the training kernels (train_ops.c) and the
 * host-side batch pool schedule of the CUDA trainer (train_pool.h), for the
 * library build and the tests. Generated code copies the .c files, not this
 * header. */
#ifndef DNNCC_TRAIN_RT_H
#define DNNCC_TRAIN_RT_H

#include <stddef.h>

#ifndef RT_FN
#define RT_FN
#endif

/* ---- train_ops.c ----------------------------------------------------------- */
void rt_train_bias_add(int B, int N, float *y, const float *bias);
void rt_train_bias_grad(int B, int N, const float *dy, float *db);
void rt_train_act(int act, size_t n, const float *x, float *y);
void rt_train_act_grad(int act, size_t n, const float *y, const float *dy, float *dx);
void rt_train_softmax(int B, int N, const float *x, float *y);
void rt_train_softmax_grad(int B, int N, const float *y, const float *dy, float *dx);
float rt_train_softmax_ce(int B, int N, const float *z, const int *labels, float *dz);
float rt_train_mse(int B, int N, const float *y, const float *t, float *dy);
int rt_train_count_correct(int B, int N, const float *z, const int *labels);
void rt_train_sgd(size_t n, float *p, const float *g, float lr);
void rt_train_momentum(size_t n, float *p, const float *g, float *v, float lr, float mu);
void rt_train_adam(size_t n, float *p, const float *g, float *m, float *v, float lr, float b1,
                   float b2, float eps, long t);

#include "runtime/train_pool.h"

#endif
