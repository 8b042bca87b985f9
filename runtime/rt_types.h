/* rt_types.h - types shared by the runtime kernels and by generated code.
 *
 * The runtime is plain C99 with no allocation: callers pass every buffer.
 * It is built twice: as libdnncc_rt.a for the tests and the profiler
 * (RT_FN is empty, prototypes in dnncc_rt.h), and as text that the backend
 * copies into generated code, where RT_FN is `static` so that two generated
 * models link into one program. This header is copied first, without the
 * include guard's help, so it holds only types, macros and static inlines. */
#ifndef DNNCC_RT_TYPES_H
#define DNNCC_RT_TYPES_H

#include <math.h>
#include <stddef.h>
#include <string.h>

#ifndef RT_FN
#define RT_FN
#endif

#define RT_MAX_RANK 8

/* Parallel loops (thread_pool.c). A kernel whose output splits into `items`
 * independent pieces passes fn, ctx and items to rt_parallel; fn(ctx, begin, end)
 * then runs on disjoint ranges covering [0, items), possibly on several
 * threads at once, so fn writes only its pieces' outputs and gives each piece
 * the same arithmetic whatever the range (outputs identical for any thread
 * count). Where RT_THREADS is not defined everything runs on the caller.
 * (This comment names the function without a call, so that the emitter,
 * which keeps a static inline only where copied text calls it, leaves the
 * serial version out of models that do not use it.) */
typedef void (*rt_range_fn)(void *ctx, int begin, int end);
/* Kernels with less work than this (multiply-adds; for pools and copies,
 * elements times window taps) run inline on the calling thread, so a tiny
 * network pays no fork/join per layer and runs at 2 threads as at 1. A
 * dispatch costs the caller a few microseconds (publishing the job, the
 * workers claiming chunks on shared counters, the join), so a layer must
 * run tens of microseconds to gain from a split. Measured on the quiet
 * 2-core AVX-512 Xeon with 64 Ki here: DS-CNN (layers of 0.1-0.5 M
 * multiply-adds, 5-20 us each, every one split) took 103 us a call at 2
 * threads against 73 us at 1; 1 Mi (about 25 us of a vectorised
 * convolution) keeps every DS-CNN and most MobileNetV1-0.25 layers on one
 * thread and splits every layer that matters in the torchvision networks.
 * Kernels slower per unit than a dense convolution (depthwise, pools)
 * count 4 units per multiply-add or element; copies, RT_PARALLEL_COPY_UNITS.
 * The tests set it to 0 to split everything. */
#ifndef RT_PARALLEL_MIN_WORK
#define RT_PARALLEL_MIN_WORK 1048576
#endif
/* Units of RT_PARALLEL_MIN_WORK per element that a memory-bound kernel
 * (layout transforms, Concat, the residual add) moves: such a kernel moves
 * 2.5-4 elements per ns where a dense convolution does about 40 multiply-adds
 * (GoogLeNet's HWC Concats, 1.2 M elements in 0.32 ms; MobileNetV2's 3-channel
 * input to HWC, 150 K in 84 us), so 16, and 64 Ki elements or more split. */
#define RT_PARALLEL_COPY_UNITS 16
/* Items a kernel whose natural pieces are few (a layer with one or two
 * vectors of output channels) cuts its work into, so that 2..4 threads
 * get even shares; a constant, so the cut never depends on the count. */
#define RT_PARALLEL_ITEMS 8
#ifdef RT_THREADS
/* rt_pool_parallel: declared in dnncc_rt.h for the library; generated code
 * copies thread_pool.c right after this header, before any kernel */
#define rt_parallel rt_pool_parallel
#else
static inline void rt_parallel(rt_range_fn fn, void *ctx, int items)
{
	if (items > 0)
		fn(ctx, 0, items);
}
#endif

/* Instruction sets a kernel can be built for (struct rt_conv2d.isa; the
 * GEMM's micro-kernels in sgemm.h). In generated code they are compile-time
 * constants, so a branch on them costs nothing. */
#define RT_SGEMM_ISA_C 0
#define RT_SGEMM_ISA_AVX2 1
#define RT_SGEMM_ISA_AVX512 2
#define RT_SGEMM_ISA_NEON 3

/* Epilogue applied to every output element; numbering matches enum act. */
enum rt_act {
	RT_ACT_NONE,
	RT_ACT_RELU,
	RT_ACT_LEAKY_RELU, /* alpha: slope for x < 0 */
	RT_ACT_CLIP,       /* alpha: min, beta: max */
	RT_ACT_SIGMOID,
	RT_ACT_TANH
};

static inline float rt_act_apply(int act, float alpha, float beta, float v)
{
	switch (act) {
	case RT_ACT_RELU: return v > 0.0f ? v : 0.0f;
	case RT_ACT_LEAKY_RELU: return v >= 0.0f ? v : v * alpha;
	case RT_ACT_CLIP: return v < alpha ? alpha : (v > beta ? beta : v);
	case RT_ACT_SIGMOID: return 1.0f / (1.0f + expf(-v));
	case RT_ACT_TANH: return tanhf(v);
	default: return v;
	}
}
static inline int rt_pw_pairs_tail(int M, int bs)
{
	/* Whether a 1x1 convolution's weights, packed in blocks of bs output
	 * channels, also carry their last block interleaved by input channel
	 * pairs: blocks of 16 whose last holds 8 channels or fewer. The packer
	 * (prep_pointwise_pack) appends that tail and the AVX-512 kernel
	 * (conv_pointwise.c) reads it, both by this rule. (Said inside the body,
	 * so a model that does not call it gets none of its text.) */
	return bs == 16 && M % 16 != 0 && M % 16 <= 8;
}
static inline void rt_tap_range(int i0, int d, int n, int k, int *t0, int *t1)
{
	/* [*t0, *t1): the t < k with 0 <= i0 + t*d < n (empty, *t0 == *t1,
	 * when there is none). The taps of a window that stay inside the input
	 * (i0 = o*stride - pad, d the dilation), or the outputs o < k that one
	 * tap reads inside it (i0 the tap's offset, d the stride); the direct
	 * convolutions and the stems clip with it. (Said inside the body, so a
	 * model that does not call it gets none of its text.) */
	int a = i0 >= 0 ? 0 : (-i0 + d - 1) / d;
	int e = n - 1 - i0 < 0 ? 0 : (n - 1 - i0) / d + 1;
	if (e > k)
		e = k;
	if (a > e)
		a = e;
	*t0 = a;
	*t1 = e;
}
static inline int rt_dvec_chunk(int bs, int vl, size_t wcb)
{
	/* Input channel blocks (bs 16 or 8) or channels (HWC, bs 0) per chunk
	 * of conv_direct_vec.c, vectors of vl floats: a blocked chunk keeps
	 * about 40 KiB of weights (wcb floats a block) per vector pair, half as
	 * many blocks when the pair is two whole blocks (bs = vl; measured: two
	 * 3x3 blocks beat one by a few per cent, four lose); an HWC chunk is
	 * 64 channels (32 to 128 are close, all of C thrashes L1). The kernel
	 * cuts by it, and prep_direct_one_pass decides by it which layers run
	 * in one chunk (and so may write y over their residual). (Said inside
	 * the body, so a model that does not call it gets none of its text.) */
	if (!bs)
		return 64;
	const int c = (int)(10240 / (wcb * (bs / vl == 2 ? 1 : 2)));
	return c < 1 ? 1 : c;
}

/* Elementwise math functions of unary_math.c, one per ONNX operator
 * (https://onnx.ai/onnx/operators/, the operator of the same name); alpha and
 * beta carry the operator's float attributes as the comment says. X(enum). */
#define RT_MATH_FNS(X)                                                         \
	X(RT_MATH_EXP)                                                         \
	X(RT_MATH_LOG)                                                         \
	X(RT_MATH_SQRT)                                                        \
	X(RT_MATH_ABS)                                                         \
	X(RT_MATH_NEG)                                                         \
	X(RT_MATH_RECIPROCAL)                                                  \
	X(RT_MATH_FLOOR)                                                       \
	X(RT_MATH_CEIL)                                                        \
	X(RT_MATH_ROUND)            /* half to even */                         \
	X(RT_MATH_SIGN)                                                        \
	X(RT_MATH_SIN)                                                         \
	X(RT_MATH_COS)                                                         \
	X(RT_MATH_TAN)                                                         \
	X(RT_MATH_ASIN)                                                        \
	X(RT_MATH_ACOS)                                                        \
	X(RT_MATH_ATAN)                                                        \
	X(RT_MATH_SINH)                                                        \
	X(RT_MATH_COSH)                                                        \
	X(RT_MATH_ASINH)                                                       \
	X(RT_MATH_ACOSH)                                                       \
	X(RT_MATH_ATANH)                                                       \
	X(RT_MATH_ERF)                                                         \
	X(RT_MATH_ELU)              /* alpha */                                \
	X(RT_MATH_SELU)             /* alpha, beta: gamma */                   \
	X(RT_MATH_CELU)             /* alpha */                                \
	X(RT_MATH_HARD_SIGMOID)     /* alpha, beta */                          \
	X(RT_MATH_HARD_SWISH)                                                  \
	X(RT_MATH_SOFTPLUS)                                                    \
	X(RT_MATH_SOFTSIGN)                                                    \
	X(RT_MATH_MISH)                                                        \
	X(RT_MATH_THRESHOLDED_RELU) /* alpha */                                \
	X(RT_MATH_GELU)             /* approximate="none" */                   \
	X(RT_MATH_GELU_TANH)        /* approximate="tanh" */                   \
	X(RT_MATH_SIGMOID)          /* ONNX Sigmoid (an rt_act elsewhere) */

enum rt_math_fn {
#define X(e) e,
	RT_MATH_FNS(X)
#undef X
	RT_MATH_COUNT_
};
static inline int rt_unary_vec_has(int fn)
{
	/* Whether unary_vec.c vectorises fn (enum rt_math_fn); the others run
	 * unary_math.c's double-precision loop. (Said inside the body, so a
	 * model that does not call it gets none of its text.) */
	return fn == RT_MATH_SIGMOID || fn == RT_MATH_EXP || fn == RT_MATH_ERF ||
	       fn == RT_MATH_GELU || fn == RT_MATH_HARD_SIGMOID || fn == RT_MATH_HARD_SWISH;
}

/* 2-D convolution, ONNX Conv semantics (cross-correlation).
 * x: [N, C, H, W]   w: [M, C/group, kH, kW]   b: [M] or NULL   y: [N, M, oH, oW] */
struct rt_conv2d {
	int N, C, H, W;   /* input dims */
	int M, oH, oW;    /* output channels and spatial dims */
	int kH, kW;       /* kernel */
	int sH, sW;       /* strides */
	int dH, dW;       /* dilations */
	int padT, padL;   /* leading pads (trailing pads are implied by oH, oW) */
	int group;        /* C and M are multiples of group */
	int act;          /* enum rt_act epilogue */
	float alpha, beta;
	int isa;          /* GEMM micro-kernel (RT_SGEMM_ISA_*, runtime/sgemm.h) that
	                     GEMM-based primitives use: the compiler sets the
	                     target's, the same one it packed the weights for */
	const float *res; /* fused residual r, laid out like y, or NULL: y = act(conv +
	                     bias + r), r added in the store loop before the activation;
	                     only rows rt_prim_fuses_residual names read it */
	int threads;      /* the threads the code was built for (--threads; 0 counts
	                     as 1): rows that keep a workspace per thread (Winograd's
	                     sets, rt_wino_cut) reserve and use at most this many */
};

/* How a Winograd layer (conv_winograd_gemm.c) is cut, in one place so that
 * the workspace prep_winograd.c reserves is the one the kernel uses. Tiles
 * go in blocks (the N of the alpha^2 GEMMs M[xi] = U[xi] V[xi]): 48 tiles,
 * one AVX-512 panel or three AVX2 ones, measured best on VGG-16; a tail of
 * under 24 tiles joins the last block rather than streaming all of U again
 * for a few tiles; up to 96 tiles make one block. Blocks go in sets, each
 * set with its own V and M, that the threads take whole: one set for a
 * single block or for a layer of under 1 Mi multiply-adds in its GEMMs
 * (RT_PARALLEL_MIN_WORK's default, fixed here so the workspace does not
 * depend on how the code is built: small layers, which would not split, keep
 * one V and M), else one a block up to RT_WINO_GEMM_SLOTS and up to the
 * threads the code was built for. A one-block layer cuts its GEMM phase
 * (and the staged transforms) into RT_WINO_GEMM_SLOTS parts that run side
 * by side, each with a stage and a GEMM workspace (a slot); built for one
 * thread, nothing runs side by side and one slot serves. Every block gets
 * the same arithmetic whatever set or part runs it, so outputs do not depend
 * on the thread count the code was built for or runs on. */
#define RT_WINO_GEMM_SLOTS 4
/* Floats from one point's matrix of V (rows: C/group) or M (rows: M/group)
 * to the next: rows x tb and a cache line. Without the line, rows x tb x 4
 * bytes is a multiple of 4 KiB in most layers (tb is a multiple of 16), so
 * the alpha^2 vectors a transform stores for one channel all fall in one L1
 * set and evict each other: the AVX2 input transform of 28 x 28 x 128 in
 * F(4,3) spent about half its time on those stores. */
#define RT_WINO_POINT_PAD 16
static inline size_t rt_wino_point(int rows, int tb)
{
	return (size_t)rows * tb + RT_WINO_POINT_PAD;
}
struct rt_wino_cut {
	int tb;      /* tiles a block holds: the row stride of V and M, a multiple of 16 */
	int nominal; /* tiles of every block but the last (which has the tail) */
	int blocks;  /* blocks of the layer */
	int sets;    /* sets of whole blocks, each with its own V and M */
	int slots;   /* stages and GEMM workspaces: RT_WINO_GEMM_SLOTS, or 1 for one thread */
};
static inline struct rt_wino_cut rt_wino_cut_of(int tiles, int nxi, int cg, int mg, int threads)
{
	/* tiles: of the layer's output (per image and group); nxi: alpha^2
	 * points; cg, mg: input and output channels of a group. */
	struct rt_wino_cut c;
	c.nominal = tiles <= 96 ? tiles : 48;
	c.tb = tiles <= 96 ? (tiles + 15) / 16 * 16 : 80; /* 48 + a tail under 24 */
	c.blocks = 0;
	for (int t0 = 0, nt; t0 < tiles; t0 += nt, c.blocks++) {
		nt = tiles - t0 < c.nominal ? tiles - t0 : c.nominal;
		if (tiles - t0 - nt < c.nominal / 2)
			nt = tiles - t0; /* the tail joins this block */
	}
	if (threads < 1)
		threads = 1;
	c.sets = c.blocks < RT_WINO_GEMM_SLOTS ? c.blocks : RT_WINO_GEMM_SLOTS;
	if (c.sets > threads)
		c.sets = threads;
	if ((double)nxi * mg * tiles * cg < 1048576.0)
		c.sets = 1;
	c.slots = threads > 1 ? RT_WINO_GEMM_SLOTS : 1;
	return c;
}

/* 2-D pooling, ONNX MaxPool / AveragePool semantics.
 * x: [N, C, H, W]   y: [N, C, oH, oW]. Window (i, j) covers input rows
 * i*sH - padT + u*dH, u < kH (columns likewise). Elements outside the input are
 * skipped (max) or count as zero; for average, the divisor counts the window
 * elements inside [−padT, H + padB) x [−padL, W + padR) when
 * count_include_pad, else only those inside the input. */
struct rt_pool2d {
	int N, C, H, W;
	int oH, oW;
	int kH, kW;
	int sH, sW;
	int dH, dW;
	int padT, padL, padB, padR;
	int count_include_pad;
};

/* Y = act(alpha * op(A) * op(B) + beta * C), ONNX Gemm.
 * a: [M, K] ([K, M] if transA)   b: [K, N] ([N, K] if transB)
 * c: element (m, n) at c[m * c_sm + n * c_sn] (strides 0 broadcast), or NULL
 * y: [M, N] */
struct rt_gemm {
	int M, N, K;
	int transA, transB;
	float alpha, beta;
	int c_sm, c_sn;
	int act;
	float act_alpha, act_beta;
};

/* Broadcast iteration over a dense output of `rank` dims: element with index
 * vector i reads a at sum(i[k] * sa[k]) and b at sum(i[k] * sb[k]) (stride 0
 * on broadcast dims). Also used for MatMul's batch dims, where the strides
 * count elements of whole matrices. */
struct rt_bcast {
	int rank;
	int dims[RT_MAX_RANK];
	int sa[RT_MAX_RANK];
	int sb[RT_MAX_RANK];
};

/* Elements (or, for a MatMul's batch, matrices) of the output p describes. */
static inline size_t rt_bcast_count(const struct rt_bcast *p)
{
	size_t count = 1;
	for (int d = 0; d < p->rank; d++)
		count *= (size_t)p->dims[d];
	return count;
}

/* Advances idx (last dim fastest) and a's and b's offsets ia, ib by one
 * output element (rt_typed.h has the same for struct rt_tbcast). */
static inline void rt_bcast_next(const struct rt_bcast *p, int *idx, ptrdiff_t *ia,
                                 ptrdiff_t *ib)
{
	for (int d = p->rank - 1; d >= 0; d--) {
		idx[d]++;
		*ia += (ptrdiff_t)p->sa[d];
		*ib += (ptrdiff_t)p->sb[d];
		if (idx[d] < p->dims[d])
			return;
		*ia -= (ptrdiff_t)p->sa[d] * p->dims[d];
		*ib -= (ptrdiff_t)p->sb[d] * p->dims[d];
		idx[d] = 0;
	}
}

/* RT_POW: a to the power b (ONNX Pow); RT_PRELU: a where a >= 0, else a * b
 * (ONNX PRelu, b the slope); RT_MAX, RT_MIN: the larger or smaller, NaN if
 * either is NaN (ONNX Max, Min with two inputs). */
enum rt_binop { RT_ADD, RT_SUB, RT_MUL, RT_DIV, RT_POW, RT_PRELU, RT_MAX, RT_MIN };

/* Reductions of reduce.c, ONNX ReduceSum and siblings
 * (https://onnx.ai/onnx/operators/onnx__ReduceSum.html). */
enum rt_reduce_op {
	RT_REDUCE_SUM,
	RT_REDUCE_MEAN,
	RT_REDUCE_MAX,
	RT_REDUCE_MIN,
	RT_REDUCE_PROD,
	RT_REDUCE_L1,          /* sum of |x| */
	RT_REDUCE_L2,          /* sqrt of the sum of x^2 */
	RT_REDUCE_LOG_SUM,     /* log of the sum */
	RT_REDUCE_LOG_SUM_EXP, /* log of the sum of exp(x) */
	RT_REDUCE_SUM_SQUARE   /* sum of x^2 */
};

/* y is dense over the kept dims out_dims[n_out] (keepdims only adds 1s);
 * y's element with index vector i reduces the x elements at
 * sum(i[k] * out_sx[k]) + sum(j[k] * red_sx[k]) for every index vector j of
 * red_dims[n_red]. */
struct rt_reduce {
	int n_out;
	int out_dims[RT_MAX_RANK];
	int out_sx[RT_MAX_RANK];
	int n_red;
	int red_dims[RT_MAX_RANK];
	int red_sx[RT_MAX_RANK];
};

/* Normalisation of normalize.c, ONNX LayerNormalization,
 * InstanceNormalization and MeanVarianceNormalization: each group of x
 * elements that r reduces (output element o of r is group o) becomes
 *   y = (x - mean) / sqrt(var + epsilon) * scale + bias   (eps_outside = 0)
 *   y = (x - mean) / (sqrt(var) + epsilon)                 (eps_outside = 1, MVN)
 * with the group's mean and (biased) variance, written where x was read. The
 * t-th element (row-major over r.red_dims) of group o reads scale and bias at
 * (o % s_mod) * s_o + t * s_t. */
struct rt_norm {
	struct rt_reduce r;
	float epsilon;
	int eps_outside;
	int s_mod, s_o, s_t;
};

/* Transpose: y is dense over dims[]; y's element with index i reads x at
 * sum(i[k] * sx[k]). */
struct rt_transpose {
	int rank;
	int dims[RT_MAX_RANK];
	int sx[RT_MAX_RANK];
};

/* Constant pad: x dense [in_dims], y dense [out_dims],
 * out_dims[k] = in_dims[k] + begin[k] + end[k] (ends may be negative: crop). */
/* Resize of resize.c: coordinate_transformation_mode, nearest_mode. */
enum rt_resize_coord {
	RT_RESIZE_HALF_PIXEL,
	RT_RESIZE_PYTORCH_HALF_PIXEL,
	RT_RESIZE_ASYMMETRIC,
	RT_RESIZE_ALIGN_CORNERS,
	RT_RESIZE_TF_HALF_PIXEL_FOR_NN
};
enum rt_nearest_mode {
	RT_NEAREST_ROUND_PREFER_FLOOR,
	RT_NEAREST_ROUND_PREFER_CEIL,
	RT_NEAREST_FLOOR,
	RT_NEAREST_CEIL
};

/* x [outer, in_h, in_w] resized to y [outer, out_h, out_w] (resize.c). */
struct rt_resize {
	int outer, in_h, in_w, out_h, out_w;
	double scale_h, scale_w; /* y length / x length as the model gives it */
	int linear;              /* 1: bilinear, 0: nearest */
	int coord;               /* enum rt_resize_coord */
	int rounding;            /* enum rt_nearest_mode (nearest only) */
};

struct rt_pad {
	int rank;
	int in_dims[RT_MAX_RANK];
	int out_dims[RT_MAX_RANK];
	int begin[RT_MAX_RANK];
	float value;
};

/* Convolution, ConvTranspose and pooling over three spatial dims (D, H, W),
 * ONNX semantics (conv3d.c, conv_transpose3d.c, pool3d.c); an operator with
 * fewer spatial dims runs with the leading ones 1 (kernel, stride and
 * dilation 1, no pads). x: [N, C, in[0], in[1], in[2]],
 * y: [N, M, out[0], out[1], out[2]] (pooling: M = C). Window position u of
 * output index o along dim i reads input index o*s[i] - pb[i] + u*d[i]
 * (ConvTranspose scatters the other way: input i adds to output
 * i*s[i] - pb[i] + u*d[i]). */
struct rt_window3d {
	int N, C, M, group;
	int in[3], out[3];  /* spatial dims of x and y */
	int k[3], s[3], d[3]; /* kernel, strides, dilations */
	int pb[3], pe[3];   /* pads at the beginning and the end of each dim */
	int act;            /* Conv: enum rt_act epilogue */
	float alpha, beta;
	int max;            /* pooling: 1 max, 0 average */
	int count_include_pad; /* average pooling: pads count in the divisor */
};

/* Resize over the last three dims (resize3d.c): nearest, linear or cubic;
 * a 2-D or 1-D resize runs with leading dims of 1 and scale 1.
 * x [outer, in[0], in[1], in[2]] -> y [outer, out[0], out[1], out[2]]. */
struct rt_resize3d {
	int outer, in[3], out[3];
	double scale[3];     /* y length / x length as the model gives it */
	int mode;            /* 0 nearest, 1 linear, 2 cubic */
	int coord;           /* enum rt_resize_coord */
	int rounding;        /* enum rt_nearest_mode (nearest only) */
	float cubic_a;       /* cubic_coeff_a */
	int exclude_outside; /* cubic: taps outside x get weight 0, the rest renormalised */
};

#endif
