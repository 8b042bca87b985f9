/* dnncc_rt.h - the runtime kernels as a library (tests, profiler).
 * Generated code does not include this file: the backend copies
 * rt_types.h and the units the model needs (see units.def). */
#ifndef DNNCC_RT_H
#define DNNCC_RT_H

/* The library is built with the thread pool (thread_pool.c), so tests can
 * run kernels on several threads; nothing starts it unless asked. */
#ifndef RT_THREADS
#define RT_THREADS 16
#endif
#include "runtime/rt_types.h"

/* thread_pool.c: rt_pool_start(n) starts n - 1 workers (returns the thread
 * count now used); rt_pool_stop() joins them. */
int rt_pool_start(int n);
void rt_pool_stop(void);
void rt_pool_parallel(rt_range_fn fn, void *ctx, int items); /* rt_parallel */

/* conv_ref.c: textbook reference (direct loops, any stride/pad/dilation/group) */
void rt_conv2d_ref(const struct rt_conv2d *p, const float *x, const float *w, const float *b,
                   float *y);
/* maxpool.c, avgpool.c */
void rt_maxpool2d(const struct rt_pool2d *p, const float *x, float *y);
void rt_avgpool2d(const struct rt_pool2d *p, const float *x, float *y);
/* global_avgpool.c, global_maxpool.c: x [NC, HW] -> y [NC] */
void rt_global_avgpool(int nc, int hw, const float *x, float *y);
void rt_global_maxpool(int nc, int hw, const float *x, float *y);
/* gemm_fc.c: B packed by rt_gemm_fc_pack (sgemm.h) for isa */
void rt_gemm_fc(const struct rt_gemm *p, int isa, const float *a, const float *bp, const float *c,
                float *y);
/* gemm_sgemm.c: ws of rt_sgemm_workspace_size(isa, M, N, K) bytes */
void rt_gemm_sgemm(const struct rt_gemm *p, int isa, const float *a, const float *b, const float *c,
                   float *y, void *ws);
/* gemm_ref.c */
void rt_gemm_ref(const struct rt_gemm *p, const float *a, const float *b, const float *c, float *y);
/* matmul.c: y[batch][M][N] = a[batch][M][K] * b[batch][K][N]; batch->sa/sb
 * count matrices (offsets are multiplied by M*K and K*N); y is dense. */
void rt_matmul(const struct rt_bcast *batch, int M, int N, int K, const float *a, const float *b,
               float *y);
/* binary.c: y = a OP b with broadcasting */
void rt_binary(int op, const struct rt_bcast *p, const float *a, const float *b, float *y);
/* unary.c: y[i] = act(x[i]) for n elements; x may equal y */
void rt_unary(int act, float alpha, float beta, size_t n, const float *x, float *y);
/* unary_math.c: y[i] = f(x[i]) for n elements, f the enum rt_math_fn with its
 * alpha and beta; x may equal y */
void rt_unary_math(int fn, float alpha, float beta, size_t n, const float *x, float *y);
/* reduce.c: y = the reduction op of x over p's reduced dims */
void rt_reduce(int op, const struct rt_reduce *p, const float *x, float *y);
/* normalize.c: y = x normalised per group of p->r (scale, bias may be NULL) */
void rt_normalize(const struct rt_norm *p, const float *x, const float *scale, const float *bias,
                  float *y);
/* softmax.c: x, y [outer, len, inner]; softmax (or log-softmax) along len */
void rt_softmax(int outer, int len, int inner, int log_softmax, const float *x, float *y);
/* hardmax.c: x, y [outer, len, inner]; 1 at the first maximum along len */
void rt_hardmax(int outer, int len, int inner, const float *x, float *y);
/* lrn.c: ONNX LRN across channels; x, y [N, C, HW] */
void rt_lrn(int N, int C, int HW, int size, float alpha, float beta, float bias, const float *x,
            float *y);
/* concat.c: copies x [outer, part] into y [outer, total] at column offset */
void rt_concat_part(int outer, int part, int total, int offset, const float *x, float *y);
/* transpose.c */
void rt_transpose(const struct rt_transpose *p, const float *x, float *y);
/* pad.c */
void rt_pad_constant(const struct rt_pad *p, const float *x, float *y);
/* pad_mode.c: ONNX Pad edge (reflect = 0) and reflect (1) modes; x [in_dims], y [out_dims] */
void rt_pad_edge_reflect(const struct rt_pad *p, int reflect, const float *x, float *y);
/* resize.c: ONNX Resize nearest/linear over the last two dims; x [outer, in_h, in_w] */
void rt_resize(const struct rt_resize *p, const float *x, float *y);
/* conv_transpose.c: ONNX ConvTranspose 2-D; x [N, C, H, W], w [C, M/group, kH, kW], b [M] or NULL */
void rt_conv_transpose_ref(const struct rt_conv2d *p, const float *x, const float *w,
                           const float *b, float *y);
/* clip.c: y[i] = min(max(x[i], lo), hi) for n elements, each bound read from
 * its pointer (one float) or, when that is NULL, the constant; x may equal y */
void rt_clip(size_t n, const float *x, const float *lo, const float *hi, float lo_const,
             float hi_const, float *y);
/* batchnorm.c: inference BatchNormalization per channel; x, y [N, C, HW],
 * scale, bias, mean, var [C]; x may equal y */
void rt_batchnorm(int N, int C, int HW, float epsilon, const float *x, const float *scale,
                  const float *bias, const float *mean, const float *var, float *y);


/* Every convolution primitive's RUN and every layout transform (the tables
 * are in primitives.def / transforms.def; see primitives.h). */
#include "runtime/primitives.h"
#define UNIT(e, file, deps)
#define PRIM(name, fam, in, out, var, run, unit, applies, ws, packed, pack, cons, cost) \
	void run(const struct rt_conv2d *p, int variant, const float *x, const float *w,  \
	         const float *b, float *y, float *ws);
#define XFORM(name, from, to, run, unit) \
	void run(int N, int C, int H, int W, const float *x, float *y);
#include "runtime/primitives.def"
#include "runtime/transforms.def"
#undef UNIT
#undef PRIM
#undef XFORM

#endif
