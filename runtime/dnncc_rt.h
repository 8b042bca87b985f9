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
/* pool_cl.c, global_pool_cl.c, eltwise.c: the layout-aware, vectorised
 * kernels (block: 0 HWC, 8 CHW8c, 16 CHW16c; isa: RT_SGEMM_ISA_*) */
void rt_pool2d_cl(const struct rt_pool2d *p, int isa, int block, int avg, const float *x, float *y);
void rt_global_pool_cl(int N, int C, int HW, int isa, int block, int avg, const float *x, float *y);
void rt_eltwise(int op, int isa, size_t n, const float *a, const float *b, float *y);
/* act_vec.c: Relu, LeakyRelu (act: RT_ACT_RELU, RT_ACT_LEAKY_RELU) */
void rt_act_vec(int act, float alpha, int isa, size_t n, const float *x, float *y);
/* unary_vec.c: Sigmoid, Exp, Erf, Gelu, HardSigmoid, HardSwish vectorised
 * (fn: enum rt_math_fn where rt_unary_vec_has(fn)) */
void rt_unary_vec(int fn, float alpha, float beta, int isa, size_t n, const float *x, float *y);
/* softmax_vec.c: rt_softmax's contract, exp on rt_unary_vec */
void rt_softmax_vec(int outer, int len, int inner, int log_softmax, int isa, const float *x,
                    float *y);
/* chan_binary.c: x op p[n*sn + c*sc] (op: RT_ADD, SUB, MUL, MAX, MIN, PRELU;
 * block: -1 CHW, 0 HWC, 8 CHW8c, 16 CHW16c) */
void rt_chan_binary(int op, int isa, int block, int N, int C, size_t HW, const float *x,
                    const float *p, int sn, int sc, float *y);
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
/* matmul_sgemm.c: rt_matmul's contract on the SGEMM; ws of
 * rt_sgemm_workspace_size(isa, M, N, K) bytes */
void rt_matmul_sgemm(const struct rt_bcast *batch, int M, int N, int K, int isa, const float *a,
                     const float *b, float *y, void *ws);
/* binary.c: y = a OP b with broadcasting */
void rt_binary(int op, const struct rt_bcast *p, const float *a, const float *b, float *y);
/* unary.c: y[i] = act(x[i]) for n elements; x may equal y */
void rt_unary(int act, float alpha, float beta, size_t n, const float *x, float *y);
/* residual.c: y = act(y + r) over N images of M channels x HW pixels, dense
 * (block 0) or blocked CHWxc (block 8, 16: pad channels left alone), on ISA
 * isa (RT_SGEMM_ISA_*; the bits are the same on each) */
void rt_conv_residual(int isa, int N, int M, int HW, int block, int act, float alpha,
                      float beta, const float *r, float *y);
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
/* conv3d.c, conv_transpose3d.c, pool3d.c: Conv, ConvTranspose (1-D and 3-D)
 * and MaxPool/AveragePool over three spatial dims (struct rt_window3d) */
void rt_conv3d_ref(const struct rt_window3d *p, const float *x, const float *w, const float *b,
                   float *y);
void rt_conv_transpose3d_ref(const struct rt_window3d *p, const float *x, const float *w,
                             const float *b, float *y);
void rt_pool3d(const struct rt_window3d *p, const float *x, float *y);
/* resize3d.c: ONNX Resize nearest/linear/cubic over the last three dims */
void rt_resize3d(const struct rt_resize3d *p, const float *x, float *y);
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

/* typed_*.c: integer, boolean and float64 tensors (rt_typed.h: enum rt_dtype,
 * struct rt_tbcast, enum rt_tbinop, enum rt_tunop) */
#include "runtime/rt_typed.h"
void rt_cast(size_t n, int xt, const void *x, int yt, void *y);
void rt_tbinary(int op, const struct rt_tbcast *p, int at, const void *a, int bt, const void *b,
                int yt, void *y);
void rt_tunary(int op, size_t n, int xt, const void *x, int yt, void *y);
void rt_where(const struct rt_tbcast *p, size_t es, const uint8_t *cond, const void *x,
              const void *y, void *out);
void rt_gather(size_t es, const void *x, int it, const void *idx, void *y, size_t outer,
               int64_t axis_len, size_t inner, size_t n_idx);
void rt_argmax(int xt, const void *x, int64_t *y, size_t outer, size_t len, size_t inner,
               int is_min, int select_last);
void rt_topk(int xt, const void *x, void *vals, int64_t *ind, size_t outer, size_t len,
             size_t inner, size_t k, int largest);
void rt_cumsum(int xt, const void *x, void *y, size_t outer, size_t len, size_t inner,
               int exclusive, int reverse);
void rt_trilu(size_t es, const void *x, void *y, size_t batch, size_t rows, size_t cols,
              int64_t k, int upper);
void rt_gather_elements(size_t es, const void *x, int it, const void *idx, void *y, int rank,
                        const int *xdims, const int *idims, int axis);
void rt_tcopy(size_t es, const struct rt_transpose *p, const void *x, void *y);
void rt_tconcat_part(size_t es, int outer, int part, int total, int offset, const void *x,
                     void *y);
void rt_nll(const float *x, int tt, const void *target, const float *w, float *y, float *logp,
            size_t N, size_t C, size_t D, int reduction, int has_ignore, int64_t ignore_index,
            int log_softmax);

/* Every unit's RT_FN kernels, declared from their definitions at build time
 * (tools/unit_protos.sh): a new unit needs no line here, though a comment
 * above its kernel in the unit says what the arguments hold. */
#include "runtime/rt_unit_protos.h"

#endif
