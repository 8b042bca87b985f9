/* test_runtime.c - the runtime's reference kernels (the units in runtime/) against
 * independent double-precision references written here, over many shapes,
 * plus hand-computed cases with known exact numbers (from the ONNX operator
 * pages, the ONNX node test data and PyTorch) so that a reference that is
 * wrong in the same way as the kernel cannot hide a bug.
 *
 * Tolerances. A kernel that sums K float products has, by the standard bound
 * for recursive summation, an error of at most about K * 2^-24 times the sum
 * of the terms' magnitudes; the double references are exact by comparison.
 * So each compared element i carries a magnitude mag[i] (the sum of |terms|
 * that built it, plus |result|, plus what a final transcendental function
 * adds) and must satisfy |got - want| <= rtol * mag[i] with rtol =
 * (K + 8) * FLT_EPSILON, about twice the bound; every indexing mistake moves
 * at least one element by a whole term, far beyond that. Kernels that only
 * move data (transpose, pad, concat, max pooling) and single IEEE operations
 * (Add/Sub/Mul/Div, Relu, LeakyRelu, Clip, for which the double result
 * rounded to float is exactly the float result) must match bit for bit
 * (rtol 0).
 *
 * Every output buffer is filled with NaN (an element the kernel forgets fails)
 * and fenced by guard values on both sides (a write out of bounds fails). */
#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/dnncc_rt.h"
#include "runtime/sgemm.h"
#include "tests/rng.h"

/* ---- helpers ---------------------------------------------------------------- */

/* uniform in [lo, hi) */
static float rng_float(struct rng *r, float lo, float hi)
{
	return lo + (hi - lo) * (float)(rng_next(r) >> 8) / 16777216.0f;
}

static void fill(struct rng *r, float *p, size_t n, float lo, float hi)
{
	for (size_t i = 0; i < n; i++)
		p[i] = rng_float(r, lo, hi);
}

#define GUARD 16
static const float guard_value = -12345.678f;

/* n floats for a kernel to write, set to NaN, with GUARD guard values before
 * and after; release with out_free. */
static float *out_new(size_t n)
{
	float *p = malloc((n + 2 * GUARD) * sizeof *p);
	cr_assert(p != NULL, "out of memory");
	for (size_t i = 0; i < n + 2 * GUARD; i++)
		p[i] = guard_value;
	for (size_t i = 0; i < n; i++)
		p[GUARD + i] = NAN;
	return p + GUARD;
}

static void out_free(float *p)
{
	free(p - GUARD);
}

static void expect_guards(const char *desc, const float *p, size_t n)
{
	for (int i = 0; i < GUARD; i++) {
		cr_assert(p[-1 - i] == guard_value, "%s: kernel wrote before its output (element %d)",
		          desc, -1 - i);
		cr_assert(p[n + i] == guard_value, "%s: kernel wrote past its output (element %zu of %zu)",
		          desc, n + i, n);
	}
}

static float *in_new(struct rng *r, size_t n, float lo, float hi)
{
	float *p = malloc((n ? n : 1) * sizeof *p);
	cr_assert(p != NULL, "out of memory");
	fill(r, p, n, lo, hi);
	return p;
}

static double *dbl_new(size_t n)
{
	double *p = calloc(n ? n : 1, sizeof *p);
	cr_assert(p != NULL, "out of memory");
	return p;
}

/* Element i passes when |got[i] - want[i]| <= rtol * mag[i] (mag NULL: the
 * magnitude is |want[i]|); rtol 0 asks for equality. NaN never passes. On
 * failure the message names the case, the count of bad elements and the
 * worst one. */
static void expect_close(const char *desc, const float *got, const double *want, const double *mag,
                         size_t n, double rtol)
{
	size_t bad = 0, worst = 0;
	double worst_excess = -1.0, worst_tol = 0.0;

	for (size_t i = 0; i < n; i++) {
		const double err = fabs((double)got[i] - want[i]);
		const double tol = rtol * (mag ? mag[i] : fabs(want[i]));
		if (err <= tol)
			continue;
		bad++;
		const double excess = isnan(err) ? INFINITY : err - tol;
		if (excess > worst_excess) {
			worst_excess = excess;
			worst = i;
			worst_tol = tol;
		}
	}
	cr_assert(bad == 0,
	          "%s: %zu of %zu elements outside tolerance; worst [%zu]: got %.9g, want %.9g, "
	          "|err| %.3g, tol %.3g",
	          desc, bad, n, worst, bad ? (double)got[worst] : 0.0, bad ? want[worst] : 0.0,
	          bad ? fabs((double)got[worst] - want[worst]) : 0.0, worst_tol);
}

/* Hand cases: got against exact numbers, within a few float roundings. */
static void expect_values(const char *desc, const float *got, const double *want, size_t n)
{
	expect_close(desc, got, want, NULL, n, 4 * FLT_EPSILON);
}

/* "[2,3,4]" */
static const char *dims_str(char *buf, size_t cap, int rank, const int *dims)
{
	size_t len = 0;
	len += (size_t)snprintf(buf + len, cap - len, "[");
	for (int d = 0; d < rank && len < cap; d++)
		len += (size_t)snprintf(buf + len, cap - len, d ? ",%d" : "%d", dims[d]);
	if (len < cap)
		snprintf(buf + len, cap - len, "]");
	return buf;
}

static size_t product(int rank, const int *dims)
{
	size_t n = 1;
	for (int d = 0; d < rank; d++)
		n *= (size_t)dims[d];
	return n;
}

/* The activation epilogue in double; parameters as enum rt_act says. */
static double act_double(int act, float alpha, float beta, double v)
{
	switch (act) {
	case RT_ACT_RELU: return v > 0.0 ? v : 0.0;
	case RT_ACT_LEAKY_RELU: return v < 0.0 ? v * alpha : v;
	case RT_ACT_CLIP: return fmin(fmax(v, alpha), beta);
	case RT_ACT_SIGMOID: return 1.0 / (1.0 + exp(-v));
	case RT_ACT_TANH: return tanh(v);
	default: return v;
	}
}

static const char *const act_names[] = {"none", "relu", "leaky_relu", "clip", "sigmoid", "tanh"};
#define NUM_ACTS 6

/* Parameters used with each activation in the tests. */
static void act_params(int act, float *alpha, float *beta)
{
	*alpha = act == RT_ACT_LEAKY_RELU ? 0.1f : act == RT_ACT_CLIP ? -0.3f : 0.0f;
	*beta = act == RT_ACT_CLIP ? 0.4f : 0.0f;
}

static void free_params(struct criterion_test_params *crp)
{
	cr_free(crp->params);
}

/* ---- hand-computed cases ------------------------------------------------------ */

/* ONNX Conv page, conv_with_strides_padding / basic_conv_with_padding:
 * x = 0..24 as [1, 1, 5, 5], w = ones [1, 1, 3, 3]. */
Test(hand, conv_onnx_examples)
{
	float x[25], w[9], y[25];
	for (int i = 0; i < 25; i++)
		x[i] = (float)i;
	for (int i = 0; i < 9; i++)
		w[i] = 1.0f;

	struct rt_conv2d p = {.N = 1, .C = 1, .H = 5, .W = 5, .M = 1, .oH = 5, .oW = 5, .kH = 3,
	                      .kW = 3, .sH = 1, .sW = 1, .dH = 1, .dW = 1, .padT = 1, .padL = 1,
	                      .group = 1, .act = RT_ACT_NONE};
	const double same[25] = {12, 21, 27, 33, 24, 33, 54, 63, 72, 51, 63, 99, 108,
	                         117, 81, 93, 144, 153, 162, 111, 72, 111, 117, 123, 84};
	rt_conv2d_ref(&p, x, w, NULL, y);
	expect_values("conv 5x5 pad 1", y, same, 25);

	p.sH = p.sW = 2;
	p.oH = p.oW = 3;
	const double strided[9] = {12, 27, 24, 63, 108, 81, 72, 117, 84};
	rt_conv2d_ref(&p, x, w, NULL, y);
	expect_values("conv 5x5 pad 1 stride 2", y, strided, 9);
}

/* ONNX node test conv_with_strides_and_asymmetric_padding: x = 0..34 as
 * [1, 1, 7, 5], w = ones 3x3, strides 2, pads (top 1, left 0, bottom 1, right 0). */
Test(hand, conv_asymmetric_pads)
{
	float x[35], w[9], y[8];
	for (int i = 0; i < 35; i++)
		x[i] = (float)i;
	for (int i = 0; i < 9; i++)
		w[i] = 1.0f;
	struct rt_conv2d p = {.N = 1, .C = 1, .H = 7, .W = 5, .M = 1, .oH = 4, .oW = 2, .kH = 3,
	                      .kW = 3, .sH = 2, .sW = 2, .dH = 1, .dW = 1, .padT = 1, .padL = 0,
	                      .group = 1, .act = RT_ACT_NONE};
	const double want[8] = {21, 33, 99, 117, 189, 207, 171, 183};
	rt_conv2d_ref(&p, x, w, NULL, y);
	expect_values("conv 7x5 stride 2 pads 1,0,1,0", y, want, 8);
}

/* Dilation 2 on x = 0..15 as [4, 4] with a 2x2 kernel of ones: each output
 * sums x[i][j], x[i][j+2], x[i+2][j], x[i+2][j+2]. */
Test(hand, conv_dilation)
{
	float x[16], w[4] = {1, 1, 1, 1}, y[4];
	for (int i = 0; i < 16; i++)
		x[i] = (float)i;
	struct rt_conv2d p = {.N = 1, .C = 1, .H = 4, .W = 4, .M = 1, .oH = 2, .oW = 2, .kH = 2,
	                      .kW = 2, .sH = 1, .sW = 1, .dH = 2, .dW = 2, .group = 1,
	                      .act = RT_ACT_NONE};
	const double want[4] = {20, 24, 36, 40};
	rt_conv2d_ref(&p, x, w, NULL, y);
	expect_values("conv dilation 2", y, want, 4);
}

/* Groups: x [1, 4, 1, 2], 2 groups, w [2, 2, 1, 1] = {1, 2 | 3, -1}, bias
 * {0.5, -1}, Relu. Output channel 0 sees input channels 0, 1; channel 1 sees 2, 3. */
Test(hand, conv_groups_bias_relu)
{
	const float x[8] = {1, 2, 3, 4, 5, 6, 7, 8}; /* c0: 1 2, c1: 3 4, c2: 5 6, c3: 7 8 */
	const float w[4] = {1, 2, 3, -1};
	const float b[2] = {0.5f, -1.0f};
	float y[4];
	struct rt_conv2d p = {.N = 1, .C = 4, .H = 1, .W = 2, .M = 2, .oH = 1, .oW = 2, .kH = 1,
	                      .kW = 1, .sH = 1, .sW = 1, .dH = 1, .dW = 1, .group = 2,
	                      .act = RT_ACT_RELU};
	/* ch0: 1*1 + 2*3 + 0.5 = 7.5, 1*2 + 2*4 + 0.5 = 10.5;
	 * ch1: 3*5 - 7 - 1 = 7, 3*6 - 8 - 1 = 9 */
	const double want[4] = {7.5, 10.5, 7, 9};
	rt_conv2d_ref(&p, x, w, b, y);
	expect_values("conv groups bias relu", y, want, 4);
	/* with Clip [0, 8] */
	p.act = RT_ACT_CLIP;
	p.alpha = 0.0f;
	p.beta = 8.0f;
	const double clipped[4] = {7.5, 8, 7, 8};
	rt_conv2d_ref(&p, x, w, b, y);
	expect_values("conv groups bias clip", y, clipped, 4);
}

/* ONNX node tests maxpool_2d_ceil, maxpool_2d_dilations, averagepool_2d_ceil:
 * x = 1..16 as [1, 1, 4, 4]. */
Test(hand, pool_onnx_examples)
{
	float x[16], y[9];
	for (int i = 0; i < 16; i++)
		x[i] = (float)(i + 1);

	struct rt_pool2d ceil = {.N = 1, .C = 1, .H = 4, .W = 4, .oH = 2, .oW = 2, .kH = 3, .kW = 3,
	                         .sH = 2, .sW = 2, .dH = 1, .dW = 1};
	const double max_ceil[4] = {11, 12, 15, 16};
	rt_maxpool2d(&ceil, x, y);
	expect_values("maxpool_2d_ceil", y, max_ceil, 4);
	const double avg_ceil[4] = {6, 7.5, 12, 13.5};
	rt_avgpool2d(&ceil, x, y);
	expect_values("averagepool_2d_ceil", y, avg_ceil, 4);

	struct rt_pool2d dil = {.N = 1, .C = 1, .H = 4, .W = 4, .oH = 2, .oW = 2, .kH = 2, .kW = 2,
	                        .sH = 1, .sW = 1, .dH = 2, .dW = 2};
	const double max_dil[4] = {11, 12, 15, 16};
	rt_maxpool2d(&dil, x, y);
	expect_values("maxpool_2d_dilations", y, max_dil, 4);
}

/* ONNX node test averagepool_2d_precomputed_pads_count_include_pad:
 * x = 1..25 as [1, 1, 5, 5], kernel 5x5, pads 2, count_include_pad. */
Test(hand, avgpool_count_include_pad)
{
	float x[25], y[25];
	for (int i = 0; i < 25; i++)
		x[i] = (float)(i + 1);
	struct rt_pool2d p = {.N = 1, .C = 1, .H = 5, .W = 5, .oH = 5, .oW = 5, .kH = 5, .kW = 5,
	                      .sH = 1, .sW = 1, .dH = 1, .dW = 1, .padT = 2, .padL = 2, .padB = 2,
	                      .padR = 2, .count_include_pad = 1};
	const double want[25] = {2.52, 3.6, 4.8, 4.08, 3.24, 4.56, 6.4, 8.4, 7.04, 5.52, 7.2, 10, 13,
	                         10.8, 8.4, 6.96, 9.6, 12.4, 10.24, 7.92, 6.12, 8.4, 10.8, 8.88, 6.84};
	rt_avgpool2d(&p, x, y);
	expect_values("averagepool_2d_precomputed_pads_count_include_pad", y, want, 25);
}

/* Pads and ceil_mode together, numbers from PyTorch's avg_pool2d / max_pool2d
 * (x = 1..16 as [4, 4], kernel 3, stride 2, pad 1, ceil_mode: 3x3 output).
 * The last row/column of windows runs past the bottom/right pad: those
 * positions never count, the pad positions count only with count_include_pad. */
Test(hand, pool_pads_and_ceil)
{
	float x[16], y[9];
	for (int i = 0; i < 16; i++)
		x[i] = (float)(i + 1);
	struct rt_pool2d p = {.N = 1, .C = 1, .H = 4, .W = 4, .oH = 3, .oW = 3, .kH = 3, .kW = 3,
	                      .sH = 2, .sW = 2, .dH = 1, .dW = 1, .padT = 1, .padL = 1, .padB = 1,
	                      .padR = 1, .count_include_pad = 1};
	const double incl[9] = {14.0 / 9, 30.0 / 9, 2, 57.0 / 9, 11, 6, 4.5, 7.5, 4};
	rt_avgpool2d(&p, x, y);
	expect_values("avgpool pads ceil count_include_pad", y, incl, 9);

	p.count_include_pad = 0;
	const double excl[9] = {3.5, 5, 6, 9.5, 11, 12, 13.5, 15, 16};
	rt_avgpool2d(&p, x, y);
	expect_values("avgpool pads ceil", y, excl, 9);

	const double max[9] = {6, 8, 8, 14, 16, 16, 14, 16, 16};
	rt_maxpool2d(&p, x, y);
	expect_values("maxpool pads ceil", y, max, 9);

	/* x = 1..9 as [3, 3], kernel 2, stride 2, ceil_mode, no pads: the clipped
	 * windows divide by what they cover, with and without count_include_pad. */
	struct rt_pool2d q = {.N = 1, .C = 1, .H = 3, .W = 3, .oH = 2, .oW = 2, .kH = 2, .kW = 2,
	                      .sH = 2, .sW = 2, .dH = 1, .dW = 1, .count_include_pad = 1};
	const double clipped[4] = {3, 4.5, 7.5, 9};
	rt_avgpool2d(&q, x, y);
	expect_values("avgpool 3x3 k2 s2 ceil", y, clipped, 4);
	q.count_include_pad = 0;
	rt_avgpool2d(&q, x, y);
	expect_values("avgpool 3x3 k2 s2 ceil, excluding pads", y, clipped, 4);
}

Test(hand, global_pools)
{
	const float x[6] = {1, -2, 6, -4, -5, -3}; /* [2, 3] */
	float y[2];
	const double avg[2] = {5.0 / 3, -4};
	const double max[2] = {6, -3};
	rt_global_avgpool(2, 3, x, y);
	expect_values("global average pool", y, avg, 2);
	rt_global_maxpool(2, 3, x, y);
	expect_values("global max pool", y, max, 2);
}

/* A [2, 3] * B [3, 2] with alpha 2, beta 0.5, a row-vector C broadcast. */
Test(hand, gemm)
{
	const float a[6] = {1, 2, 3, 4, 5, 6};    /* [2, 3] */
	const float at[6] = {1, 4, 2, 5, 3, 6};   /* the same, stored [3, 2] */
	const float b[6] = {7, 8, 9, 10, 11, 12}; /* [3, 2] */
	const float bt[6] = {7, 9, 11, 8, 10, 12};
	const float c[2] = {10, -20};
	float y[4];
	/* A*B = [[58, 64], [139, 154]] */
	const double want[4] = {2 * 58 + 5, 2 * 64 - 10, 2 * 139 + 5, 2 * 154 - 10};
	struct rt_gemm p = {.M = 2, .N = 2, .K = 3, .alpha = 2.0f, .beta = 0.5f, .c_sm = 0,
	                    .c_sn = 1, .act = RT_ACT_NONE};
	rt_gemm_ref(&p, a, b, c, y);
	expect_values("gemm", y, want, 4);
	p.transA = 1;
	p.transB = 1;
	rt_gemm_ref(&p, at, bt, c, y);
	expect_values("gemm transA transB", y, want, 4);
	/* column C [2, 1], no alpha, Relu */
	struct rt_gemm q = {.M = 2, .N = 2, .K = 3, .alpha = 1.0f, .beta = 1.0f, .c_sm = 1,
	                    .c_sn = 0, .act = RT_ACT_RELU};
	const float col[2] = {-60, -150};
	const double relu[4] = {0, 4, 0, 4};
	rt_gemm_ref(&q, a, b, col, y);
	expect_values("gemm column C relu", y, relu, 4);
}

/* MatMul [2, 1, 1, 2] x [3, 2, 1] -> [2, 3, 1, 1]: batches [2, 1] and [3]
 * broadcast to [2, 3], y[i][j] = a_i . b_j. */
Test(hand, matmul_broadcast)
{
	const float a[4] = {1, 2, 3, 4};        /* [2, 1, 1, 2]: batch [2, 1] */
	const float b[6] = {1, 0, 0, 1, 1, 1};  /* [3, 2, 1]: batch [3] */
	float y[6];
	struct rt_bcast batch = {.rank = 2, .dims = {2, 3}, .sa = {1, 0}, .sb = {0, 1}};
	const double want[6] = {1, 2, 3, 3, 4, 7};
	rt_matmul(&batch, 1, 1, 2, a, b, y);
	expect_values("matmul broadcast", y, want, 6);
}

Test(hand, binary)
{
	const float a[6] = {1, 2, 3, 4, 5, 6}; /* [2, 3] */
	const float b[3] = {10, 20, 40};       /* [3] */
	float y[6];
	struct rt_bcast p = {.rank = 2, .dims = {2, 3}, .sa = {3, 1}, .sb = {0, 1}};
	const double add[6] = {11, 22, 43, 14, 25, 46};
	const double sub[6] = {-9, -18, -37, -6, -15, -34};
	const double mul[6] = {10, 40, 120, 40, 100, 240};
	const double div[6] = {0.1, 0.1, 0.075, 0.4, 0.25, 0.15};
	rt_binary(RT_ADD, &p, a, b, y);
	expect_values("add", y, add, 6);
	rt_binary(RT_SUB, &p, a, b, y);
	expect_values("sub", y, sub, 6);
	rt_binary(RT_MUL, &p, a, b, y);
	expect_values("mul", y, mul, 6);
	rt_binary(RT_DIV, &p, a, b, y);
	expect_values("div", y, div, 6);
}

Test(hand, unary)
{
	const float x[5] = {-2, -0.5f, 0, 0.5f, 3};
	float y[5];
	const double relu[5] = {0, 0, 0, 0.5, 3};
	const double leaky[5] = {-0.2, -0.05, 0, 0.5, 3};
	const double clip[5] = {-1, -0.5, 0, 0.5, 1};
	const double sigmoid[5] = {0.11920292202211755, 0.3775406687981454, 0.5, 0.6224593312018546,
	                           0.9525741268224334};
	const double tanh_[5] = {-0.9640275800758169, -0.46211715726000974, 0, 0.46211715726000974,
	                         0.9950547536867305};
	rt_unary(RT_ACT_RELU, 0, 0, 5, x, y);
	expect_values("relu", y, relu, 5);
	rt_unary(RT_ACT_LEAKY_RELU, 0.1f, 0, 5, x, y);
	expect_values("leaky relu", y, leaky, 5);
	rt_unary(RT_ACT_CLIP, -1, 1, 5, x, y);
	expect_values("clip", y, clip, 5);
	rt_unary(RT_ACT_SIGMOID, 0, 0, 5, x, y);
	expect_values("sigmoid", y, sigmoid, 5);
	rt_unary(RT_ACT_TANH, 0, 0, 5, x, y);
	expect_values("tanh", y, tanh_, 5);
}

/* Large inputs must not overflow: softmax([1000, 1001, 1002]) is
 * softmax([0, 1, 2]) (ONNX node test softmax_large_number). */
Test(hand, softmax_large_numbers)
{
	const float x[3] = {1000, 1001, 1002};
	float y[3];
	const double soft[3] = {0.09003057317038046, 0.24472847105479764, 0.6652409557748219};
	const double logsoft[3] = {-2.4076059644443806, -1.4076059644443806, -0.40760596444438063};
	rt_softmax(1, 3, 1, 0, x, y);
	expect_values("softmax large", y, soft, 3);
	rt_softmax(1, 3, 1, 1, x, y);
	expect_values("log-softmax large", y, logsoft, 3);
}

/* LRN on one position with channels x = {1, 2, 3}, bias 1, beta 1 and
 * alpha = size so that alpha / size = 1: y = x / (1 + square_sum).
 * size 3 sums channels c-1..c+1; size 2 (even) sums c..c+1 (ONNX: floor
 * below, ceil above). */
Test(hand, lrn)
{
	const float x[3] = {1, 2, 3};
	float y[3];
	const double odd[3] = {1.0 / 6, 2.0 / 15, 3.0 / 14};
	const double even[3] = {1.0 / 6, 2.0 / 14, 3.0 / 10};
	rt_lrn(1, 3, 1, 3, 3.0f, 1.0f, 1.0f, x, y);
	expect_values("lrn size 3", y, odd, 3);
	rt_lrn(1, 3, 1, 2, 2.0f, 1.0f, 1.0f, x, y);
	expect_values("lrn size 2", y, even, 3);
	/* beta 0.5: y = x / sqrt(1 + square_sum) */
	const double half[3] = {1 / sqrt(6.0), 2 / sqrt(15.0), 3 / sqrt(14.0)};
	rt_lrn(1, 3, 1, 3, 3.0f, 0.5f, 1.0f, x, y);
	expect_values("lrn size 3 beta 0.5", y, half, 3);
}

Test(hand, transpose_pad_concat)
{
	const float x[6] = {1, 2, 3, 4, 5, 6}; /* [2, 3] */
	float y[12];
	struct rt_transpose t = {.rank = 2, .dims = {3, 2}, .sx = {1, 3}};
	const double xt[6] = {1, 4, 2, 5, 3, 6};
	rt_transpose(&t, x, y);
	expect_values("transpose 2x3", y, xt, 6);

	/* ONNX Pad page example: [3, 2] padded with pads (0, 2, 0, 0). */
	const float px[6] = {1.0f, 1.2f, 2.3f, 3.4f, 4.5f, 5.7f};
	struct rt_pad p = {.rank = 2, .in_dims = {3, 2}, .out_dims = {3, 4}, .begin = {0, 2}};
	const double padded[12] = {0, 0, 1.0f, 1.2f, 0, 0, 2.3f, 3.4f, 0, 0, 4.5f, 5.7f};
	rt_pad_constant(&p, px, y);
	expect_values("pad onnx example", y, padded, 12);

	/* x = 1..9 as [3, 3]: begin (-1, 1), end (0, -1): rows 1..2, a column of
	 * value 7 on the left, the last column cropped. */
	const float sq[9] = {1, 2, 3, 4, 5, 6, 7, 8, 9};
	struct rt_pad c = {.rank = 2, .in_dims = {3, 3}, .out_dims = {2, 3}, .begin = {-1, 1},
	                   .value = 7.0f};
	const double cropped[6] = {7, 4, 5, 7, 7, 8};
	rt_pad_constant(&c, sq, y);
	expect_values("pad negative", y, cropped, 6);

	/* concat [2, 1] and [2, 2] along axis 1 into [2, 3] */
	const float c0[2] = {1, 4}, c1[4] = {2, 3, 5, 6};
	rt_concat_part(2, 1, 3, 0, c0, y);
	rt_concat_part(2, 2, 3, 1, c1, y);
	const double cat[6] = {1, 2, 3, 4, 5, 6};
	expect_values("concat", y, cat, 6);
}

/* ---- convolution ---------------------------------------------------------------- */

struct conv_case {
	int N, C, H, W, M;
	int kH, kW, sH, sW, dH, dW;
	int padT, padL, padB, padR;
	int group;
	int bias; /* 1: with a bias */
	int act;  /* enum rt_act */
};

/* Named shapes; the generated sweep below adds strides 1..4 x dilations 1..3
 * x kernels 1, 2, 3, 5, 7 x (plain, grouped, depthwise). */
static const struct conv_case conv_table[] = {
	/* N  C   H   W  M  kH kW sH sW dH dW pT pL pB pR grp bias act */
	{1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 1, 0, RT_ACT_NONE},     /* scalar */
	{2, 3, 5, 7, 4, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 1, 1, RT_ACT_RELU},     /* pointwise */
	{1, 3, 9, 9, 5, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, RT_ACT_NONE},     /* same 3x3 */
	{1, 3, 15, 13, 4, 7, 7, 2, 2, 1, 1, 3, 3, 3, 3, 1, 1, RT_ACT_RELU},   /* stem 7x7/2 */
	{1, 6, 11, 10, 6, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1, 6, 1, RT_ACT_CLIP},   /* depthwise /2 */
	{1, 4, 7, 8, 8, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 4, 0, RT_ACT_NONE},     /* channel mult 2 */
	{2, 6, 9, 7, 9, 3, 3, 1, 1, 1, 1, 0, 1, 2, 0, 3, 1, RT_ACT_SIGMOID},  /* 3 groups */
	{1, 2, 17, 13, 3, 5, 5, 1, 1, 3, 3, 6, 6, 6, 6, 1, 1, RT_ACT_TANH},   /* dilation 3 */
	{1, 3, 6, 12, 2, 1, 7, 1, 1, 1, 1, 0, 3, 0, 3, 1, 1, RT_ACT_NONE},    /* 1x7 */
	{1, 3, 12, 6, 2, 7, 1, 1, 1, 1, 1, 3, 0, 3, 0, 1, 0, RT_ACT_LEAKY_RELU}, /* 7x1 */
	{1, 2, 8, 9, 3, 3, 3, 1, 1, 1, 1, 0, 2, 3, 1, 1, 1, RT_ACT_NONE},     /* asymmetric pads */
	{1, 2, 4, 5, 2, 3, 3, 1, 1, 1, 1, 4, 4, 4, 4, 1, 1, RT_ACT_NONE},     /* pads > kernel */
	{3, 2, 5, 5, 2, 2, 2, 3, 3, 1, 1, 0, 0, 1, 1, 1, 1, RT_ACT_RELU},     /* batch 3 */
	{1, 5, 3, 3, 7, 3, 3, 1, 1, 1, 1, 0, 0, 0, 0, 1, 1, RT_ACT_NONE},     /* output 1x1 */
	{1, 8, 10, 10, 8, 4, 2, 3, 2, 2, 3, 2, 1, 0, 3, 2, 1, RT_ACT_TANH},   /* mixed everything */
};
#define CONV_TABLE_LEN (sizeof conv_table / sizeof conv_table[0])

static const int sweep_kernels[5] = {1, 2, 3, 5, 7};
#define CONV_SWEEP_LEN (4 * 3 * 5 * 3)

static int conv_out_dim(int in, int pad_begin, int pad_end, int k, int s, int d)
{
	return (in + pad_begin + pad_end - ((k - 1) * d + 1)) / s + 1;
}

/* One sweep case: stride s, dilation d, kernel index ki, group kind gk
 * (0 plain, 1 grouped, 2 depthwise); the rest drawn from the case number. */
static struct conv_case conv_sweep_case(int index, int s, int d, int ki, int gk)
{
	struct rng r;
	struct conv_case k;
	rng_seed(&r, (uint64_t)index + 1000);
	k.kH = sweep_kernels[ki];
	k.kW = index % 2 ? sweep_kernels[(ki + 2) % 5] : k.kH;
	k.sH = s;
	k.sW = index % 3 ? s : 1 + s % 4;
	k.dH = d;
	k.dW = index % 4 == 1 ? 1 + d % 3 : d;
	const int ekH = (k.kH - 1) * k.dH + 1, ekW = (k.kW - 1) * k.dW + 1;
	k.padT = rng_int(&r, 0, ekH - 1);
	k.padB = rng_int(&r, 0, ekH - 1);
	k.padL = rng_int(&r, 0, ekW - 1);
	k.padR = rng_int(&r, 0, ekW - 1);
	const int minH = ekH - k.padT - k.padB, minW = ekW - k.padL - k.padR;
	k.H = (minH > 1 ? minH : 1) + rng_int(&r, 0, 2 * s + 3);
	k.W = (minW > 1 ? minW : 1) + rng_int(&r, 0, 2 * s + 3);
	if (gk == 0) {
		k.group = 1;
		k.C = rng_int(&r, 1, 4);
		k.M = rng_int(&r, 1, 5);
	} else if (gk == 1) {
		k.group = rng_int(&r, 2, 3);
		k.C = k.group * rng_int(&r, 1, 3);
		k.M = k.group * rng_int(&r, 1, 3);
	} else {
		k.group = rng_int(&r, 1, 6);
		k.C = k.group;
		k.M = k.group * (index % 4 == 3 ? 2 : 1);
	}
	k.N = 1 + index % 2;
	k.bias = (index / 2) % 2;
	k.act = index % NUM_ACTS;
	return k;
}

ParameterizedTestParameters(conv, ref_vs_double)
{
	const size_t n = CONV_TABLE_LEN + CONV_SWEEP_LEN;
	struct conv_case *cases = cr_malloc(n * sizeof *cases);
	size_t i = 0;
	for (; i < CONV_TABLE_LEN; i++)
		cases[i] = conv_table[i];
	for (int s = 1; s <= 4; s++)
		for (int d = 1; d <= 3; d++)
			for (int ki = 0; ki < 5; ki++)
				for (int gk = 0; gk < 3; gk++, i++)
					cases[i] = conv_sweep_case((int)i, s, d, ki, gk);
	return cr_make_param_array(struct conv_case, cases, n, free_params);
}

/* Double reference, written in padded coordinates: output (i, j) looks at
 * padded rows i*sH + u*dH, which are input rows minus padT. mag: the sum of
 * |terms| (products and bias) plus |result|. */
static void conv_double(const struct conv_case *k, int oH, int oW, const float *x, const float *w,
                        const float *b, float alpha, float beta, double *want, double *mag)
{
	const int cpg = k->C / k->group, mpg = k->M / k->group;
	for (int n = 0; n < k->N; n++)
		for (int m = 0; m < k->M; m++)
			for (int i = 0; i < oH; i++)
				for (int j = 0; j < oW; j++) {
					double s = 0.0, a = 0.0;
					for (int c = 0; c < cpg; c++) {
						const int ci = (m / mpg) * cpg + c;
						for (int u = 0; u < k->kH; u++)
							for (int v = 0; v < k->kW; v++) {
								const int row = i * k->sH + u * k->dH - k->padT;
								const int col = j * k->sW + v * k->dW - k->padL;
								if (row < 0 || row >= k->H || col < 0 || col >= k->W)
									continue;
								const double t =
								    (double)x[((size_t)(n * k->C + ci) * k->H + row) * k->W + col] *
								    w[((size_t)(m * cpg + c) * k->kH + u) * k->kW + v];
								s += t;
								a += fabs(t);
							}
					}
					if (b) {
						s += b[m];
						a += fabs(b[m]);
					}
					const size_t o = ((size_t)(n * k->M + m) * oH + i) * oW + j;
					want[o] = act_double(k->act, alpha, beta, s);
					mag[o] = a + fabs(want[o]);
				}
}

ParameterizedTest(struct conv_case *k, conv, ref_vs_double)
{
	const int oH = conv_out_dim(k->H, k->padT, k->padB, k->kH, k->sH, k->dH);
	const int oW = conv_out_dim(k->W, k->padL, k->padR, k->kW, k->sW, k->dW);
	char desc[256];
	snprintf(desc, sizeof desc,
	         "conv N%d C%d H%d W%d M%d k%dx%d s%d,%d d%d,%d pads(t%d l%d b%d r%d) group %d%s %s "
	         "-> %dx%d",
	         k->N, k->C, k->H, k->W, k->M, k->kH, k->kW, k->sH, k->sW, k->dH, k->dW, k->padT,
	         k->padL, k->padB, k->padR, k->group, k->bias ? " bias" : "", act_names[k->act], oH,
	         oW);
	cr_assert(oH >= 1 && oW >= 1, "%s: bad test case", desc);

	struct rng r;
	rng_seed(&r, (uint64_t)(k->C * 131 + k->H * 17 + k->W + k->M * 7 + k->kH));
	const size_t nx = (size_t)k->N * k->C * k->H * k->W;
	const size_t nw = (size_t)k->M * (k->C / k->group) * k->kH * k->kW;
	const size_t ny = (size_t)k->N * k->M * oH * oW;
	float *x = in_new(&r, nx, -1.0f, 1.0f);
	float *w = in_new(&r, nw, -1.0f, 1.0f);
	float *b = k->bias ? in_new(&r, (size_t)k->M, -1.0f, 1.0f) : NULL;
	float *y = out_new(ny);
	double *want = dbl_new(ny), *mag = dbl_new(ny);
	float alpha, beta;
	act_params(k->act, &alpha, &beta);

	struct rt_conv2d p = {.N = k->N, .C = k->C, .H = k->H, .W = k->W, .M = k->M, .oH = oH,
	                      .oW = oW, .kH = k->kH, .kW = k->kW, .sH = k->sH, .sW = k->sW,
	                      .dH = k->dH, .dW = k->dW, .padT = k->padT, .padL = k->padL,
	                      .group = k->group, .act = k->act, .alpha = alpha, .beta = beta};
	rt_conv2d_ref(&p, x, w, b, y);
	conv_double(k, oH, oW, x, w, b, alpha, beta, want, mag);

	const int terms = (k->C / k->group) * k->kH * k->kW + 1;
	expect_guards(desc, y, ny);
	expect_close(desc, y, want, mag, ny, (terms + 8) * FLT_EPSILON);

	free(x);
	free(w);
	free(b);
	out_free(y);
	free(want);
	free(mag);
}

/* ---- pooling -------------------------------------------------------------------- */

struct pool_case {
	int N, C, H, W;
	int kH, kW, sH, sW, dH, dW;
	int padT, padL, padB, padR;
	int ceil_mode;
};

/* ONNX MaxPool/AveragePool output size; with ceil_mode the last window must
 * start inside the input or the leading pad (as ONNX since opset 19 and
 * PyTorch do), which is what the frontend will compute. */
static int pool_out_dim(int in, int pad_begin, int pad_end, int k, int s, int d, int ceil_mode)
{
	const int span = in + pad_begin + pad_end - ((k - 1) * d + 1);
	int out = (ceil_mode ? (span + s - 1) / s : span / s) + 1;
	if (ceil_mode && (out - 1) * s >= in + pad_begin)
		out--;
	return out;
}

#define POOL_SWEEP_LEN (4 * 3 * 2 * 2 * 2)

ParameterizedTestParameters(pool, ref_vs_double)
{
	const size_t n = POOL_SWEEP_LEN;
	struct pool_case *cases = cr_malloc(n * sizeof *cases);
	size_t i = 0;
	for (int k = 1; k <= 4; k++)
		for (int s = 1; s <= 3; s++)
			for (int d = 1; d <= 2; d++)
				for (int ceil_mode = 0; ceil_mode <= 1; ceil_mode++)
					for (int padded = 0; padded <= 1; padded++, i++) {
						struct rng r;
						struct pool_case *c = &cases[i];
						rng_seed(&r, i + 7);
						c->N = rng_int(&r, 1, 2);
						c->C = rng_int(&r, 1, 3);
						c->kH = k;
						c->kW = i % 3 ? k : 1 + k % 4;
						c->sH = s;
						c->sW = i % 5 ? s : 1 + s % 3;
						c->dH = d;
						c->dW = i % 7 ? d : 3 - d;
						/* ONNX requires pads smaller than the kernel */
						c->padT = padded ? rng_int(&r, 0, c->kH - 1) : 0;
						c->padB = padded ? rng_int(&r, 0, c->kH - 1) : 0;
						c->padL = padded ? rng_int(&r, 0, c->kW - 1) : 0;
						c->padR = padded ? rng_int(&r, 0, c->kW - 1) : 0;
						/* at least one window, and every window meets the input */
						const int ekH = (c->kH - 1) * c->dH + 1, ekW = (c->kW - 1) * c->dW + 1;
						c->H = ekH + rng_int(&r, 0, 3 * s + 2);
						c->W = ekW + rng_int(&r, 0, 3 * s + 2);
						c->ceil_mode = ceil_mode;
					}
	return cr_make_param_array(struct pool_case, cases, n, free_params);
}

/* Double references over the zero-padded plane [padT + H + padB, ...]:
 * window (i, j) covers padded rows i*sH + u*dH; rows at or past the padded
 * height are the ceil_mode overhang and do not exist. Empty windows (not
 * generated) would give -inf for max and 0 for average, as the kernels. */
static void pool_double(const struct pool_case *k, int oH, int oW, const float *x, int average,
                        int count_include_pad, double *want, double *mag)
{
	const int Hp = k->padT + k->H + k->padB, Wp = k->padL + k->W + k->padR;
	for (int nc = 0; nc < k->N * k->C; nc++)
		for (int i = 0; i < oH; i++)
			for (int j = 0; j < oW; j++) {
				double best = -INFINITY, sum = 0.0, abs_sum = 0.0;
				int inside = 0, in_padded = 0;
				for (int u = 0; u < k->kH; u++)
					for (int v = 0; v < k->kW; v++) {
						const int hp = i * k->sH + u * k->dH, wp = j * k->sW + v * k->dW;
						if (hp >= Hp || wp >= Wp)
							continue;
						in_padded++;
						const int h = hp - k->padT, w = wp - k->padL;
						if (h < 0 || h >= k->H || w < 0 || w >= k->W)
							continue;
						inside++;
						const double e = x[((size_t)nc * k->H + h) * k->W + w];
						best = e > best ? e : best;
						sum += e;
						abs_sum += fabs(e);
					}
				const size_t o = ((size_t)nc * oH + i) * oW + j;
				if (average) {
					const int count = count_include_pad ? in_padded : inside;
					want[o] = count ? sum / count : 0.0;
					mag[o] = (count ? abs_sum / count : 0.0) + fabs(want[o]);
				} else {
					want[o] = best;
					mag[o] = 0.0;
				}
			}
}

ParameterizedTest(struct pool_case *k, pool, ref_vs_double)
{
	const int oH = pool_out_dim(k->H, k->padT, k->padB, k->kH, k->sH, k->dH, k->ceil_mode);
	const int oW = pool_out_dim(k->W, k->padL, k->padR, k->kW, k->sW, k->dW, k->ceil_mode);
	char shape[200], desc[256];
	snprintf(shape, sizeof shape,
	         "N%d C%d H%d W%d k%dx%d s%d,%d d%d,%d pads(t%d l%d b%d r%d)%s -> %dx%d", k->N, k->C,
	         k->H, k->W, k->kH, k->kW, k->sH, k->sW, k->dH, k->dW, k->padT, k->padL, k->padB,
	         k->padR, k->ceil_mode ? " ceil" : "", oH, oW);
	cr_assert(oH >= 1 && oW >= 1, "%s: bad test case", shape);

	struct rng r;
	rng_seed(&r, (uint64_t)(k->H * 31 + k->W));
	const size_t nx = (size_t)k->N * k->C * k->H * k->W, ny = (size_t)k->N * k->C * oH * oW;
	float *x = in_new(&r, nx, -1.0f, 1.0f);
	double *want = dbl_new(ny), *mag = dbl_new(ny);
	struct rt_pool2d p = {.N = k->N, .C = k->C, .H = k->H, .W = k->W, .oH = oH, .oW = oW,
	                      .kH = k->kH, .kW = k->kW, .sH = k->sH, .sW = k->sW, .dH = k->dH,
	                      .dW = k->dW, .padT = k->padT, .padL = k->padL, .padB = k->padB,
	                      .padR = k->padR};

	float *y = out_new(ny);
	snprintf(desc, sizeof desc, "maxpool %s", shape);
	rt_maxpool2d(&p, x, y);
	pool_double(k, oH, oW, x, 0, 0, want, mag);
	expect_guards(desc, y, ny);
	expect_close(desc, y, want, mag, ny, 0.0);
	out_free(y);

	for (int cip = 0; cip <= 1; cip++) {
		y = out_new(ny);
		p.count_include_pad = cip;
		snprintf(desc, sizeof desc, "avgpool%s %s", cip ? " count_include_pad" : "", shape);
		rt_avgpool2d(&p, x, y);
		pool_double(k, oH, oW, x, 1, cip, want, mag);
		expect_guards(desc, y, ny);
		expect_close(desc, y, want, mag, ny, (k->kH * k->kW + 8) * FLT_EPSILON);
		out_free(y);
	}
	free(x);
	free(want);
	free(mag);
}

Test(pool, global)
{
	static const int shapes[][2] = {{1, 1}, {1, 49}, {6, 1}, {3, 7}, {16, 169}, {2, 1000}};
	for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++) {
		const int nc = shapes[s][0], hw = shapes[s][1];
		struct rng r;
		rng_seed(&r, s);
		float *x = in_new(&r, (size_t)nc * hw, -3.0f, 2.0f);
		double *want = dbl_new((size_t)nc), *mag = dbl_new((size_t)nc);
		char desc[64];

		for (int i = 0; i < nc; i++) {
			double best = -INFINITY;
			for (int k = 0; k < hw; k++)
				best = fmax(best, x[(size_t)i * hw + k]);
			want[i] = best;
		}
		float *y = out_new((size_t)nc);
		snprintf(desc, sizeof desc, "global max pool [%d, %d]", nc, hw);
		rt_global_maxpool(nc, hw, x, y);
		expect_guards(desc, y, (size_t)nc);
		expect_close(desc, y, want, NULL, (size_t)nc, 0.0);
		out_free(y);

		for (int i = 0; i < nc; i++) {
			double sum = 0.0, abs_sum = 0.0;
			for (int k = 0; k < hw; k++) {
				sum += x[(size_t)i * hw + k];
				abs_sum += fabs(x[(size_t)i * hw + k]);
			}
			want[i] = sum / hw;
			mag[i] = abs_sum / hw + fabs(want[i]);
		}
		y = out_new((size_t)nc);
		snprintf(desc, sizeof desc, "global average pool [%d, %d]", nc, hw);
		rt_global_avgpool(nc, hw, x, y);
		expect_guards(desc, y, (size_t)nc);
		expect_close(desc, y, want, mag, (size_t)nc, (hw + 8) * FLT_EPSILON);
		out_free(y);

		free(x);
		free(want);
		free(mag);
	}
}

/* ---- gemm ------------------------------------------------------------------------- */

struct gemm_shape {
	int M, N, K;
};

ParameterizedTestParameters(gemm, ref_vs_double)
{
	static struct gemm_shape shapes[] = {{1, 1, 1}, {3, 5, 7}, {16, 9, 33}, {2, 17, 1},
	                                     {31, 8, 12}, {1, 64, 100}, {10, 1, 3}};
	return cr_make_param_array(struct gemm_shape, shapes, sizeof shapes / sizeof shapes[0]);
}

/* C kinds: none, scalar [1, 1], row [1, N], column [M, 1], full [M, N] */
static const char *const c_kinds[] = {"no C", "scalar C", "row C", "column C", "full C"};

ParameterizedTest(struct gemm_shape *s, gemm, ref_vs_double)
{
	const int M = s->M, N = s->N, K = s->K;
	struct rng r;
	rng_seed(&r, (uint64_t)(M * 1000 + N * 10 + K));
	float *a = in_new(&r, (size_t)M * K, -1.0f, 1.0f);
	float *b = in_new(&r, (size_t)K * N, -1.0f, 1.0f);
	float *c = in_new(&r, (size_t)M * N, -1.0f, 1.0f);
	double *want = dbl_new((size_t)M * N), *mag = dbl_new((size_t)M * N);
	int case_no = 0;

	for (int ta = 0; ta <= 1; ta++)
		for (int tb = 0; tb <= 1; tb++)
			for (int ck = 0; ck < 5; ck++, case_no++) {
				const int act = case_no % NUM_ACTS;
				const int cM = ck == 3 || ck == 4 ? M : 1, cN = ck == 2 || ck == 4 ? N : 1;
				float act_alpha, act_beta;
				act_params(act, &act_alpha, &act_beta);
				const float alpha = case_no % 3 ? 1.0f : 0.75f, beta = case_no % 4 ? 1.0f : -1.5f;
				struct rt_gemm p = {.M = M, .N = N, .K = K, .transA = ta, .transB = tb,
				                    .alpha = alpha, .beta = beta,
				                    .c_sm = cM == 1 ? 0 : cN, .c_sn = cN == 1 ? 0 : 1,
				                    .act = act, .act_alpha = act_alpha, .act_beta = act_beta};
				char desc[160];
				snprintf(desc, sizeof desc, "gemm M%d N%d K%d%s%s alpha %g beta %g %s %s", M, N,
				         K, ta ? " transA" : "", tb ? " transB" : "", alpha, beta, c_kinds[ck],
				         act_names[act]);

				for (int m = 0; m < M; m++)
					for (int n = 0; n < N; n++) {
						double sum = 0.0, abs_sum = 0.0;
						for (int k = 0; k < K; k++) {
							/* a holds A [M, K], or A^T stored as [K, M] */
							const double av = ta ? a[(size_t)k * M + m] : a[(size_t)m * K + k];
							const double bv = tb ? b[(size_t)n * K + k] : b[(size_t)k * N + n];
							sum += av * bv;
							abs_sum += fabs(av * bv);
						}
						double v = alpha * sum, v_mag = fabs(alpha) * abs_sum;
						if (ck) {
							/* C of shape [cM, cN], broadcast to [M, N] */
							const double cv = c[(size_t)(cM == 1 ? 0 : m) * cN + (cN == 1 ? 0 : n)];
							v += beta * cv;
							v_mag += fabs(beta * cv);
						}
						want[(size_t)m * N + n] = act_double(act, act_alpha, act_beta, v);
						mag[(size_t)m * N + n] = v_mag + fabs(want[(size_t)m * N + n]);
					}
				float *y = out_new((size_t)M * N);
				rt_gemm_ref(&p, a, b, ck ? c : NULL, y);
				expect_guards(desc, y, (size_t)M * N);
				expect_close(desc, y, want, mag, (size_t)M * N, (K + 10) * FLT_EPSILON);
				out_free(y);
			}
	free(a);
	free(b);
	free(c);
	free(want);
	free(mag);
}

/* ---- broadcasting helpers (binary, matmul) --------------------------------------- */

/* numpy broadcasting of shapes da (rank ra) and db (rank rb): fills the output
 * dims and, for each operand, its dense stride on a dim it has and does not
 * broadcast, else 0 (this is what the backend will do). */
static void make_bcast(int ra, const int *da, int rb, const int *db, struct rt_bcast *p)
{
	const int rank = ra > rb ? ra : rb;
	int stride_a = 1, stride_b = 1;
	p->rank = rank;
	for (int d = rank - 1; d >= 0; d--) {
		const int ia = d - (rank - ra), ib = d - (rank - rb);
		const int ea = ia >= 0 ? da[ia] : 1, eb = ib >= 0 ? db[ib] : 1;
		p->dims[d] = ea > eb ? ea : eb;
		p->sa[d] = ea == 1 ? 0 : stride_a;
		p->sb[d] = eb == 1 ? 0 : stride_b;
		stride_a *= ea;
		stride_b *= eb;
	}
}

/* Independently of the strides: the linear index, in an operand of rank r and
 * dims `dims`, of the element that output index vector out_idx (rank
 * out_rank) reads, by numpy's rule (align right; a dim of 1 reads index 0). */
static size_t bcast_source(int r, const int *dims, int out_rank, const int *out_idx)
{
	size_t lin = 0;
	for (int d = 0; d < r; d++) {
		const int i = out_idx[d + out_rank - r];
		lin = lin * (size_t)dims[d] + (size_t)(dims[d] == 1 ? 0 : i);
	}
	return lin;
}

/* index vector of linear index t in dense dims */
static void unravel(size_t t, int rank, const int *dims, int *idx)
{
	for (int d = rank - 1; d >= 0; d--) {
		idx[d] = (int)(t % (size_t)dims[d]);
		t /= (size_t)dims[d];
	}
}

/* ---- matmul --------------------------------------------------------------------- */

struct matmul_case {
	int ra, a_batch[3]; /* a: [a_batch..., M, K] */
	int rb, b_batch[3]; /* b: [b_batch..., K, N] */
	int M, N, K;
};

ParameterizedTestParameters(matmul, ref_vs_double)
{
	static struct matmul_case cases[] = {
		{0, {0}, 0, {0}, 1, 1, 1},
		{0, {0}, 0, {0}, 5, 7, 9},
		{1, {2}, 0, {0}, 3, 4, 5},
		{0, {0}, 1, {3}, 3, 4, 5},
		{2, {2, 3}, 2, {2, 3}, 4, 2, 6},
		{3, {2, 1, 4}, 2, {3, 1}, 2, 3, 4},
		{2, {1, 5}, 2, {4, 1}, 3, 1, 7},
		{3, {3, 1, 2}, 3, {1, 2, 1}, 2, 5, 3},
		{1, {1}, 1, {1}, 6, 6, 6},
		{1, {1}, 3, {2, 2, 2}, 1, 8, 16},
		{3, {2, 3, 2}, 1, {2}, 7, 1, 1},
		/* the SGEMM's blocking: rows past one MR panel, N past one NC
		 * block, K past one KC slice, ragged everywhere */
		{1, {3}, 1, {1}, 70, 530, 400},
		{2, {2, 1}, 2, {1, 3}, 19, 61, 33},
		{0, {0}, 0, {0}, 0, 3, 4},
		{0, {0}, 0, {0}, 3, 4, 0},
	};
	return cr_make_param_array(struct matmul_case, cases, sizeof cases / sizeof cases[0]);
}

ParameterizedTest(struct matmul_case *k, matmul, ref_vs_double)
{
	struct rt_bcast batch;
	make_bcast(k->ra, k->a_batch, k->rb, k->b_batch, &batch);
	const size_t nbatch = product(batch.rank, batch.dims);
	const size_t mk = (size_t)k->M * k->K, kn = (size_t)k->K * k->N, mn = (size_t)k->M * k->N;
	const size_t na = product(k->ra, k->a_batch) * mk, nb = product(k->rb, k->b_batch) * kn;
	char da[64], db[64], desc[200];
	snprintf(desc, sizeof desc, "matmul %s x %s, M%d N%d K%d",
	         dims_str(da, sizeof da, k->ra, k->a_batch), dims_str(db, sizeof db, k->rb, k->b_batch),
	         k->M, k->N, k->K);

	struct rng r;
	rng_seed(&r, na * 3 + nb);
	float *a = in_new(&r, na, -1.0f, 1.0f), *b = in_new(&r, nb, -1.0f, 1.0f);
	float *y = out_new(nbatch * mn);
	double *want = dbl_new(nbatch * mn), *mag = dbl_new(nbatch * mn);

	for (size_t t = 0; t < nbatch; t++) {
		int idx[RT_MAX_RANK];
		unravel(t, batch.rank, batch.dims, idx);
		const float *am = a + bcast_source(k->ra, k->a_batch, batch.rank, idx) * mk;
		const float *bm = b + bcast_source(k->rb, k->b_batch, batch.rank, idx) * kn;
		for (int i = 0; i < k->M; i++)
			for (int j = 0; j < k->N; j++) {
				double s = 0.0, abs_sum = 0.0;
				for (int l = 0; l < k->K; l++) {
					const double prod = (double)am[i * k->K + l] * bm[l * k->N + j];
					s += prod;
					abs_sum += fabs(prod);
				}
				want[t * mn + (size_t)i * k->N + j] = s;
				mag[t * mn + (size_t)i * k->N + j] = abs_sum + fabs(s);
			}
	}
	rt_matmul(&batch, k->M, k->N, k->K, a, b, y);
	expect_guards(desc, y, nbatch * mn);
	expect_close(desc, y, want, mag, nbatch * mn, (k->K + 8) * FLT_EPSILON);
	/* the same contract on the SGEMM, every micro-kernel this CPU runs */
	for (int isa = 0; isa < RT_SGEMM_ISA_COUNT; isa++) {
		if (!rt_sgemm_isa_supported(isa))
			continue;
		char d2[260];
		snprintf(d2, sizeof d2, "%s, rt_matmul_sgemm %s", desc, rt_sgemm_isa_name(isa));
		void *ws = malloc(rt_sgemm_workspace_size(isa, k->M, k->N, k->K));
		for (size_t i = 0; i < nbatch * mn; i++)
			y[i] = NAN; /* every output must be written */
		rt_matmul_sgemm(&batch, k->M, k->N, k->K, isa, a, b, y, ws);
		expect_guards(d2, y, nbatch * mn);
		expect_close(d2, y, want, mag, nbatch * mn, (k->K + 8) * FLT_EPSILON);
		free(ws);
	}
	free(a);
	free(b);
	out_free(y);
	free(want);
	free(mag);
}

/* ---- binary --------------------------------------------------------------------- */

struct binary_case {
	int ra, da[6];
	int rb, db[6];
};

ParameterizedTestParameters(binary, ref_vs_double)
{
	static struct binary_case cases[] = {
		{0, {0}, 0, {0}},
		{1, {5}, 0, {0}},
		{0, {0}, 1, {4}},
		{2, {3, 4}, 1, {4}},
		{2, {3, 1}, 2, {1, 4}},
		{3, {2, 3, 4}, 2, {3, 1}},
		{4, {2, 1, 4, 1}, 3, {3, 1, 5}},
		{5, {2, 3, 1, 4, 5}, 5, {1, 3, 2, 1, 5}},
		{1, {1}, 2, {2, 3}},
		{2, {6, 7}, 2, {6, 7}},
		{6, {2, 2, 1, 2, 2, 3}, 1, {3}},
		{3, {1, 1, 1}, 3, {4, 1, 3}},
		{2, {1, 300}, 2, {5, 1}},
	};
	return cr_make_param_array(struct binary_case, cases, sizeof cases / sizeof cases[0]);
}

static double binop_double(int op, double u, double v)
{
	switch (op) {
	case RT_ADD: return u + v;
	case RT_SUB: return u - v;
	case RT_MUL: return u * v;
	case RT_DIV: return u / v;
	case RT_POW: return pow(u, v);
	case RT_PRELU: return u >= 0.0 ? u : u * v;
	case RT_MAX: return u >= v ? u : v;
	default: return u <= v ? u : v; /* RT_MIN */
	}
}

ParameterizedTest(struct binary_case *k, binary, ref_vs_double)
{
	static const char *const op_names[] = {"add", "sub", "mul", "div",
	                                       "pow", "prelu", "max", "min"};
	struct rt_bcast p;
	make_bcast(k->ra, k->da, k->rb, k->db, &p);
	const size_t n = product(p.rank, p.dims), na = product(k->ra, k->da),
	             nb = product(k->rb, k->db);
	char sa[64], sb[64], desc[200];
	struct rng r;
	rng_seed(&r, na * 7 + nb);
	float *a = in_new(&r, na, -2.0f, 2.0f), *b = in_new(&r, nb, 0.5f, 2.0f);
	for (size_t i = 0; i < nb; i += 2)
		b[i] = -b[i]; /* both signs, never 0 (Div) */
	double *want = dbl_new(n);
	float *a_pos = in_new(&r, na, 0.0f, 1.0f); /* Pow's bases: |a|, real results */
	for (size_t i = 0; i < na; i++)
		a_pos[i] = fabsf(a[i]);

	for (int op = RT_ADD; op <= RT_MIN; op++) {
		const float *x = op == RT_POW ? a_pos : a;
		snprintf(desc, sizeof desc, "%s %s with %s", op_names[op],
		         dims_str(sa, sizeof sa, k->ra, k->da), dims_str(sb, sizeof sb, k->rb, k->db));
		for (size_t t = 0; t < n; t++) {
			int idx[RT_MAX_RANK];
			unravel(t, p.rank, p.dims, idx);
			const double u = x[bcast_source(k->ra, k->da, p.rank, idx)];
			const double v = b[bcast_source(k->rb, k->db, p.rank, idx)];
			/* one IEEE operation or selection (Pow: the double result
			 * rounded once): exactly the float result */
			want[t] = (float)binop_double(op, u, v);
		}
		float *y = out_new(n);
		rt_binary(op, &p, x, b, y);
		expect_guards(desc, y, n);
		expect_close(desc, y, want, NULL, n, 0.0);
		out_free(y);

		if (na == n) { /* a not broadcast: y may be a */
			float *inplace = out_new(n);
			memcpy(inplace, x, n * sizeof *inplace);
			strncat(desc, ", in place", sizeof desc - strlen(desc) - 1);
			rt_binary(op, &p, inplace, b, inplace);
			expect_guards(desc, inplace, n);
			expect_close(desc, inplace, want, NULL, n, 0.0);
			out_free(inplace);
		}
	}
	free(a);
	free(a_pos);
	free(b);
	free(want);
}

/* Pow with negative bases and integer exponents, Max and Min with NaN, PRelu
 * at 0 (ONNX Pow, Max, Min, PRelu). */
Test(hand, binary_math)
{
	struct rt_bcast p = {.rank = 1, .dims = {4}, .sa = {1}, .sb = {1}};
	const float a[4] = {-2.0f, -3.0f, 4.0f, 0.0f}, b[4] = {3.0f, 2.0f, 0.5f, -1.0f};
	float y[4];
	rt_binary(RT_POW, &p, a, b, y);
	expect_values("pow", y, (const double[]){-8.0, 9.0, 2.0, INFINITY}, 3);
	cr_expect(isinf(y[3]) && y[3] > 0, "pow(0, -1) = %g, want +inf", y[3]);
	rt_binary(RT_PRELU, &p, a, b, y);
	expect_values("prelu", y, (const double[]){-6.0, -6.0, 4.0, 0.0}, 4);
	const float c[4] = {NAN, 1.0f, -1.0f, 2.0f}, e[4] = {0.0f, NAN, -2.0f, 2.0f};
	rt_binary(RT_MAX, &p, c, e, y);
	cr_expect(isnan(y[0]) && isnan(y[1]) && y[2] == -1.0f && y[3] == 2.0f,
	          "max: %g %g %g %g", y[0], y[1], y[2], y[3]);
	rt_binary(RT_MIN, &p, c, e, y);
	cr_expect(isnan(y[0]) && isnan(y[1]) && y[2] == -2.0f && y[3] == 2.0f,
	          "min: %g %g %g %g", y[0], y[1], y[2], y[3]);
}

/* ---- unary math ----------------------------------------------------------------- */

/* The ONNX formulas, literally, in double (the kernel rewrites some of them to
 * avoid overflow and cancellation: expm1, log1p). */
static double math_double(int fn, double alpha, double beta, double x)
{
	const double pi = 3.14159265358979323846;
	switch (fn) {
	case RT_MATH_EXP: return exp(x);
	case RT_MATH_LOG: return log(x);
	case RT_MATH_SQRT: return sqrt(x);
	case RT_MATH_ABS: return x < 0 ? -x : x;
	case RT_MATH_NEG: return -x;
	case RT_MATH_RECIPROCAL: return 1.0 / x;
	case RT_MATH_FLOOR: return floor(x);
	case RT_MATH_CEIL: return ceil(x);
	case RT_MATH_ROUND: {
		double f = floor(x), d = x - f;
		if (d != 0.5)
			return d < 0.5 ? f : f + 1.0;
		return fmod(f, 2.0) == 0.0 ? f : f + 1.0; /* a tie: the even neighbour */
	}
	case RT_MATH_SIGN: return x > 0 ? 1.0 : x < 0 ? -1.0 : 0.0;
	case RT_MATH_SIN: return sin(x);
	case RT_MATH_COS: return cos(x);
	case RT_MATH_TAN: return tan(x);
	case RT_MATH_ASIN: return asin(x);
	case RT_MATH_ACOS: return acos(x);
	case RT_MATH_ATAN: return atan(x);
	case RT_MATH_SINH: return (exp(x) - exp(-x)) / 2.0;
	case RT_MATH_COSH: return (exp(x) + exp(-x)) / 2.0;
	case RT_MATH_ASINH: /* odd; log(x + sqrt(x^2 + 1)) cancels for x < 0 */
		return x < 0 ? -log(-x + sqrt(x * x + 1.0)) : log(x + sqrt(x * x + 1.0));
	case RT_MATH_ACOSH: return log(x + sqrt(x * x - 1.0));
	case RT_MATH_ATANH: return 0.5 * log((1.0 + x) / (1.0 - x));
	case RT_MATH_ERF: return erf(x);
	case RT_MATH_ELU: return x < 0 ? alpha * (exp(x) - 1.0) : x;
	case RT_MATH_SELU: return x <= 0 ? beta * (alpha * exp(x) - alpha) : beta * x;
	case RT_MATH_CELU: return fmax(0.0, x) + fmin(0.0, alpha * (exp(x / alpha) - 1.0));
	case RT_MATH_HARD_SIGMOID: return fmax(0.0, fmin(1.0, alpha * x + beta));
	case RT_MATH_HARD_SWISH: return x * fmax(0.0, fmin(1.0, x / 6.0 + 0.5));
	case RT_MATH_SOFTPLUS: return log(exp(x) + 1.0);
	case RT_MATH_SOFTSIGN: return x / (1.0 + fabs(x));
	case RT_MATH_MISH: return x * tanh(log(exp(x) + 1.0));
	case RT_MATH_THRESHOLDED_RELU: return x > alpha ? x : 0.0;
	case RT_MATH_GELU: return 0.5 * x * (1.0 + erf(x / sqrt(2.0)));
	case RT_MATH_GELU_TANH:
		return 0.5 * x * (1.0 + tanh(sqrt(2.0 / pi) * (x + 0.044715 * pow(x, 3.0))));
	case RT_MATH_SIGMOID: return 1.0 / (1.0 + exp(-x));
	default: return NAN;
	}
}

Test(unary_math, ref_vs_double)
{
	static const char *const names[] = {
#define X(e) #e,
		RT_MATH_FNS(X)
#undef X
	};
	static const size_t sizes[] = {0, 1, 9, 1000};
	for (int fn = 0; fn < RT_MATH_COUNT_; fn++)
		for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
			const size_t n = sizes[s];
			/* each function's domain; the activations also see their kinks */
			float lo = -6.0f, hi = 6.0f, alpha = 0.7f, beta = 0.3f;
			if (fn == RT_MATH_LOG || fn == RT_MATH_SQRT)
				lo = 1e-3f, hi = 50.0f;
			if (fn == RT_MATH_ASIN || fn == RT_MATH_ACOS || fn == RT_MATH_ATANH)
				lo = -0.99f, hi = 0.99f;
			if (fn == RT_MATH_ACOSH)
				lo = 1.0f, hi = 40.0f;
			if (fn == RT_MATH_TAN)
				lo = -1.5f, hi = 1.5f;
			if (fn == RT_MATH_SELU)
				alpha = 1.6732632f, beta = 1.050701f;
			if (fn == RT_MATH_HARD_SIGMOID)
				alpha = 0.2f, beta = 0.5f;
			struct rng r;
			rng_seed(&r, (uint64_t)fn * 10 + s);
			float *x = in_new(&r, n, lo, hi);
			/* the edges: kinks, ties of Round, the domain's ends */
			const float edges[6] = {lo, hi, 0.5f, -2.5f, alpha, -3.0f};
			for (size_t i = 0; i < n && i < 6; i++)
				if (edges[i] >= lo && edges[i] <= hi)
					x[i] = edges[i];
			if (n > 6 && lo < 0.0f && fn != RT_MATH_RECIPROCAL)
				x[6] = 0.0f;
			double *want = dbl_new(n);
			for (size_t i = 0; i < n; i++)
				want[i] = math_double(fn, alpha, beta, x[i]);
			/* one rounding of the kernel's double result to float, plus the
			 * difference of the formulas in double (far below that) */
			const double rtol = 2 * FLT_EPSILON;
			char desc[80];
			snprintf(desc, sizeof desc, "%s n=%zu", names[fn], n);

			float *y = out_new(n);
			rt_unary_math(fn, alpha, beta, n, x, y);
			expect_guards(desc, y, n);
			expect_close(desc, y, want, NULL, n, rtol);
			memcpy(y, x, n * sizeof *y); /* in place */
			rt_unary_math(fn, alpha, beta, n, y, y);
			expect_guards(desc, y, n);
			expect_close(desc, y, want, NULL, n, rtol);
			out_free(y);
			free(x);
			free(want);
		}
}

/* Round ties to even, Sign of 0 and NaN, Softplus and Mish far out (ONNX
 * Round, Sign, Softplus, Mish). */
Test(hand, unary_math)
{
	const float x[6] = {0.5f, 1.5f, 2.5f, -0.5f, -2.5f, 2.6f};
	float y[6];
	rt_unary_math(RT_MATH_ROUND, 0, 0, 6, x, y);
	expect_values("round", y, (const double[]){0.0, 2.0, 2.0, -0.0, -2.0, 3.0}, 6);
	const float s[3] = {0.0f, -7.0f, NAN};
	rt_unary_math(RT_MATH_SIGN, 0, 0, 3, s, y);
	cr_expect(y[0] == 0.0f && y[1] == -1.0f && isnan(y[2]), "sign: %g %g %g", y[0], y[1], y[2]);
	/* exp(200) overflows float and double alike */
	const float big[2] = {800.0f, -20.0f};
	rt_unary_math(RT_MATH_SOFTPLUS, 0, 0, 2, big, y);
	expect_values("softplus far out", y, (const double[]){800.0, log1p(exp(-20.0))}, 2);
	rt_unary_math(RT_MATH_MISH, 0, 0, 2, big, y);
	expect_values("mish far out", y,
	              (const double[]){800.0, -20.0 * tanh(log1p(exp(-20.0)))}, 2);
}

/* ---- unary ---------------------------------------------------------------------- */

Test(unary, ref_vs_double)
{
	static const size_t sizes[] = {0, 1, 7, 1000};
	for (int act = 0; act < NUM_ACTS; act++)
		for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
			const size_t n = sizes[s];
			float alpha, beta;
			act_params(act, &alpha, &beta);
			struct rng r;
			rng_seed(&r, (uint64_t)act * 10 + s);
			float *x = in_new(&r, n, -8.0f, 8.0f);
			/* the edges: 0, -0, the Clip bounds */
			static const float edges[4] = {0.0f, -0.0f, -0.3f, 0.4f};
			for (size_t i = 0; i < n && i < 4; i++)
				x[i] = edges[i];
			double *want = dbl_new(n);
			for (size_t i = 0; i < n; i++)
				want[i] = act == RT_ACT_SIGMOID || act == RT_ACT_TANH
				              ? act_double(act, alpha, beta, x[i])
				              : (float)act_double(act, alpha, beta, x[i]);
			/* Sigmoid and Tanh go through expf/tanhf: a few ulps; the rest
			 * are single IEEE operations or selections: exact. */
			const double rtol = act == RT_ACT_SIGMOID || act == RT_ACT_TANH ? 8 * FLT_EPSILON : 0.0;
			char desc[64];
			snprintf(desc, sizeof desc, "unary %s n=%zu", act_names[act], n);

			float *y = out_new(n);
			rt_unary(act, alpha, beta, n, x, y);
			expect_guards(desc, y, n);
			expect_close(desc, y, want, NULL, n, rtol);
			/* in place */
			memcpy(y, x, n * sizeof *y);
			rt_unary(act, alpha, beta, n, y, y);
			expect_guards(desc, y, n);
			expect_close(desc, y, want, NULL, n, rtol);
			out_free(y);
			free(x);
			free(want);
		}
}

/* ---- softmax -------------------------------------------------------------------- */

struct softmax_case {
	int rank, dims[4];
};

ParameterizedTestParameters(softmax, ref_vs_double)
{
	static struct softmax_case cases[] = {
		{1, {7}}, {1, {1}}, {2, {3, 5}}, {3, {2, 3, 4}}, {4, {2, 1, 3, 5}}, {2, {4, 33}},
		{2, {1000, 2}},
		/* rt_softmax_vec's column tiles (inner past 64, ragged) and lanes */
		{3, {3, 37, 70}}, {2, {2, 197}},
	};
	return cr_make_param_array(struct softmax_case, cases, sizeof cases / sizeof cases[0]);
}

ParameterizedTest(struct softmax_case *k, softmax, ref_vs_double)
{
	const size_t n = product(k->rank, k->dims);
	struct rng r;
	rng_seed(&r, n);
	float *x = in_new(&r, n, -4.0f, 4.0f);
	double *want = dbl_new(n), *mag = dbl_new(n);
	char shape[64], desc[128];
	dims_str(shape, sizeof shape, k->rank, k->dims);

	for (int axis = 0; axis < k->rank; axis++)
		for (int log_softmax = 0; log_softmax <= 1; log_softmax++) {
			const int outer = (int)product(axis, k->dims), len = k->dims[axis];
			const int inner = (int)product(k->rank - axis - 1, k->dims + axis + 1);
			snprintf(desc, sizeof desc, "%s %s axis %d", log_softmax ? "log-softmax" : "softmax",
			         shape, axis);
			/* each vector along the axis: elements whose index differs only in `axis` */
			for (size_t t = 0; t < n; t++) {
				int idx[RT_MAX_RANK];
				unravel(t, k->rank, k->dims, idx);
				if (idx[axis] != 0)
					continue;
				const size_t step = (size_t)inner;
				double max = -INFINITY, min = INFINITY, sum = 0.0;
				for (int l = 0; l < len; l++) {
					max = fmax(max, x[t + l * step]);
					min = fmin(min, x[t + l * step]);
				}
				for (int l = 0; l < len; l++)
					sum += exp(x[t + l * step] - max);
				for (int l = 0; l < len; l++) {
					const double d = x[t + l * step] - max;
					const size_t o = t + l * step;
					if (log_softmax) {
						/* errors: rounding of d, of log(sum) (relative error of
						 * the float sum, about len ulps), of the difference */
						want[o] = d - log(sum);
						mag[o] = 1.0 + fabs(d) + fabs(log(sum)) + fabs(want[o]);
					} else {
						/* expf turns the rounding of x - max into a relative
						 * error of up to |x - max| ulps, in this element and in
						 * the sum's terms (up to max - min) */
						want[o] = exp(d) / sum;
						mag[o] = fabs(want[o]) * (2.0 + fabs(d) + (max - min));
					}
				}
			}
			float *y = out_new(n);
			rt_softmax(outer, len, inner, log_softmax, x, y);
			expect_guards(desc, y, n);
			expect_close(desc, y, want, mag, n, (len + 8) * FLT_EPSILON);
			/* in place */
			memcpy(y, x, n * sizeof *y);
			rt_softmax(outer, len, inner, log_softmax, y, y);
			expect_close(desc, y, want, mag, n, (len + 8) * FLT_EPSILON);
			/* the vectorised kernel, on every ISA this CPU runs, the same
			 * bound (its exp is within a few ulps, as expf is) */
			for (int isa = 0; isa < RT_SGEMM_ISA_COUNT; isa++) {
				if (!rt_sgemm_isa_supported(isa))
					continue;
				char d2[160];
				snprintf(d2, sizeof d2, "%s, rt_softmax_vec %s", desc, rt_sgemm_isa_name(isa));
				for (size_t i = 0; i < n; i++)
					y[i] = NAN;
				rt_softmax_vec(outer, len, inner, log_softmax, isa, x, y);
				expect_guards(d2, y, n);
				expect_close(d2, y, want, mag, n, (len + 8) * FLT_EPSILON);
				memcpy(y, x, n * sizeof *y);
				rt_softmax_vec(outer, len, inner, log_softmax, isa, y, y);
				expect_close(d2, y, want, mag, n, (len + 8) * FLT_EPSILON);
			}
			out_free(y);
		}
	free(x);
	free(want);
	free(mag);
}

/* Special values through rt_softmax_vec, every ISA: a NaN makes its whole
 * vector NaN (the textbook kernel's sum does the same), -inf contributes 0,
 * a vector of equal values is uniform, and huge inputs do not overflow. */
Test(softmax, vec_special_values)
{
	const float x[4][5] = {
		{1.0f, NAN, 2.0f, 3.0f, 4.0f},
		{-INFINITY, 0.0f, -INFINITY, 0.0f, -INFINITY},
		{7.0f, 7.0f, 7.0f, 7.0f, 7.0f},
		{1e30f, -1e30f, 1e30f, 3e38f, 0.0f},
	};
	for (int isa = 0; isa < RT_SGEMM_ISA_COUNT; isa++) {
		if (!rt_sgemm_isa_supported(isa))
			continue;
		float y[4][5];
		rt_softmax_vec(4, 5, 1, 0, isa, &x[0][0], &y[0][0]);
		for (int k = 0; k < 5; k++) {
			cr_expect(isnan(y[0][k]), "%s: NaN row, y[%d] = %g", rt_sgemm_isa_name(isa), k,
			          (double)y[0][k]);
			cr_expect_eq(y[1][k], k % 2 ? 0.5f : 0.0f, "%s: -inf row, y[%d] = %g",
			             rt_sgemm_isa_name(isa), k, (double)y[1][k]);
			cr_expect_eq(y[2][k], 0.2f, "%s: uniform row", rt_sgemm_isa_name(isa));
			cr_expect_eq(y[3][k], k == 3 ? 1.0f : 0.0f, "%s: huge row, y[%d] = %g",
			             rt_sgemm_isa_name(isa), k, (double)y[3][k]);
		}
		rt_softmax_vec(4, 5, 1, 1, isa, &x[0][0], &y[0][0]);
		cr_expect(isnan(y[0][4]) && y[1][0] == -INFINITY && y[3][3] == 0.0f,
		          "%s: log-softmax special values", rt_sgemm_isa_name(isa));
		cr_expect(fabsf(y[1][1] + 0.69314718f) < 1e-6f, "%s: log(1/2)", rt_sgemm_isa_name(isa));
	}
}

/* ---- LRN ------------------------------------------------------------------------ */

Test(lrn, ref_vs_double)
{
	static const int shapes[][3] = {{1, 1, 1}, {1, 5, 4}, {2, 7, 3}, {1, 16, 9}, {3, 2, 5}};
	for (int size = 1; size <= 5; size++)
		for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++)
			for (int params = 0; params < 2; params++) {
				const int N = shapes[s][0], C = shapes[s][1], HW = shapes[s][2];
				const size_t n = (size_t)N * C * HW;
				struct rng r;
				rng_seed(&r, (uint64_t)size * 100 + s * 2 + (uint64_t)params);
				/* AlexNet's parameters, and strong random ones */
				const float alpha = params ? rng_float(&r, 0.1f, 2.0f) : 1e-4f;
				const float beta = params ? rng_float(&r, 0.5f, 1.0f) : 0.75f;
				const float bias = params ? rng_float(&r, 1.0f, 2.0f) : 1.0f;
				float *x = in_new(&r, n, -2.0f, 2.0f);
				double *want = dbl_new(n);
				char desc[128];
				snprintf(desc, sizeof desc, "lrn [%d, %d, %d] size %d alpha %g beta %g bias %g", N,
				         C, HW, size, alpha, beta, bias);
				for (int b = 0; b < N; b++)
					for (int c = 0; c < C; c++)
						for (int k = 0; k < HW; k++) {
							const int lo = (int)fmax(0.0, c - floor((size - 1) / 2.0));
							const int hi = (int)fmin(C - 1, c + ceil((size - 1) / 2.0));
							double sq = 0.0;
							for (int j = lo; j <= hi; j++) {
								const double v = x[((size_t)b * C + j) * HW + k];
								sq += v * v;
							}
							const size_t o = ((size_t)b * C + c) * HW + k;
							want[o] = x[o] / pow(bias + (double)alpha / size * sq, beta);
						}
				float *y = out_new(n);
				rt_lrn(N, C, HW, size, alpha, beta, bias, x, y);
				expect_guards(desc, y, n);
				/* the float square sum and base carry about size + 4 ulps,
				 * raised to beta; powf and the division add a few more */
				expect_close(desc, y, want, NULL, n, (size + 16) * (1.0 + beta) * FLT_EPSILON);
				out_free(y);
				free(x);
				free(want);
			}
}

/* ---- concat --------------------------------------------------------------------- */

Test(concat, parts)
{
	static const struct {
		int outer, nparts, parts[4];
	} cases[] = {{1, 1, {7}}, {3, 3, {2, 5, 1}}, {4, 2, {3, 3}}, {2, 4, {1, 1, 1, 1}},
	             {5, 3, {12, 1, 30}}};
	for (size_t s = 0; s < sizeof cases / sizeof cases[0]; s++) {
		const int outer = cases[s].outer;
		int total = 0;
		for (int i = 0; i < cases[s].nparts; i++)
			total += cases[s].parts[i];
		const size_t n = (size_t)outer * total;
		float *y = out_new(n);
		double *want = dbl_new(n);
		char desc[128];
		struct rng r;
		rng_seed(&r, s);
		int offset = 0;
		for (int i = 0; i < cases[s].nparts; i++) {
			const int part = cases[s].parts[i];
			float *x = in_new(&r, (size_t)outer * part, -1.0f, 1.0f);
			snprintf(desc, sizeof desc, "concat outer %d part %d of %d at %d", outer, part, total,
			         offset);
			/* copy of y before: only this part's columns may change */
			float *before = malloc(n * sizeof *before);
			cr_assert(before != NULL);
			memcpy(before, y, n * sizeof *before);
			rt_concat_part(outer, part, total, offset, x, y);
			expect_guards(desc, y, n);
			for (int o = 0; o < outer; o++)
				for (int col = 0; col < total; col++) {
					const size_t e = (size_t)o * total + col;
					if (col >= offset && col < offset + part) {
						want[e] = x[(size_t)o * part + (col - offset)];
						cr_assert(y[e] == x[(size_t)o * part + (col - offset)],
						          "%s: element [%d, %d] is %g, want %g", desc, o, col, y[e],
						          want[e]);
					} else {
						cr_assert(memcmp(&y[e], &before[e], sizeof y[e]) == 0,
						          "%s: element [%d, %d] outside the part changed", desc, o, col);
					}
				}
			free(before);
			free(x);
			offset += part;
		}
		snprintf(desc, sizeof desc, "concat outer %d, %d parts", outer, cases[s].nparts);
		expect_close(desc, y, want, NULL, n, 0.0);
		out_free(y);
		free(want);
	}
}

/* ---- transpose ------------------------------------------------------------------ */

Test(transpose, permutations)
{
	for (int rank = 0; rank <= 5; rank++)
		for (int trial = 0; trial < 12; trial++) {
			struct rng r;
			rng_seed(&r, (uint64_t)rank * 100 + (uint64_t)trial);
			int xd[RT_MAX_RANK], perm[RT_MAX_RANK];
			for (int d = 0; d < rank; d++) {
				xd[d] = rng_int(&r, 1, rank > 3 ? 4 : 6);
				perm[d] = d;
			}
			for (int d = rank - 1; d > 0; d--) { /* Fisher-Yates */
				const int e = rng_int(&r, 0, d), tmp = perm[d];
				perm[d] = perm[e];
				perm[e] = tmp;
			}
			/* x's dense strides, and y's dims and read strides */
			int xs[RT_MAX_RANK];
			for (int d = rank - 1, st = 1; d >= 0; d--) {
				xs[d] = st;
				st *= xd[d];
			}
			struct rt_transpose p = {.rank = rank};
			for (int d = 0; d < rank; d++) {
				p.dims[d] = xd[perm[d]];
				p.sx[d] = xs[perm[d]];
			}
			const size_t n = product(rank, xd);
			float *x = in_new(&r, n, -1.0f, 1.0f);
			double *want = dbl_new(n);
			char sx[64], sp[64], desc[160];
			snprintf(desc, sizeof desc, "transpose %s perm %s", dims_str(sx, sizeof sx, rank, xd),
			         dims_str(sp, sizeof sp, rank, perm));
			/* scatter: x element at index vector xi goes to y at yi[d] = xi[perm[d]] */
			for (size_t t = 0; t < n; t++) {
				int xi[RT_MAX_RANK];
				unravel(t, rank, xd, xi);
				size_t o = 0;
				for (int d = 0; d < rank; d++)
					o = o * (size_t)xd[perm[d]] + (size_t)xi[perm[d]];
				want[o] = x[t];
			}
			float *y = out_new(n);
			rt_transpose(&p, x, y);
			expect_guards(desc, y, n);
			expect_close(desc, y, want, NULL, n, 0.0);
			out_free(y);
			free(x);
			free(want);
		}
}

/* Strides other than a permutation: a broadcast (stride 0) and a strided
 * read (every other column of a [3, 8]). */
Test(transpose, general_strides)
{
	const float x[24] = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11,
	                     12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23};
	float *y = out_new(12);
	struct rt_transpose bc = {.rank = 2, .dims = {3, 4}, .sx = {0, 1}};
	const double rows[12] = {0, 1, 2, 3, 0, 1, 2, 3, 0, 1, 2, 3};
	rt_transpose(&bc, x, y);
	expect_guards("broadcast rows", y, 12);
	expect_close("broadcast rows", y, rows, NULL, 12, 0.0);
	struct rt_transpose every_other = {.rank = 2, .dims = {3, 4}, .sx = {8, 2}};
	const double cols[12] = {0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22};
	rt_transpose(&every_other, x, y);
	expect_guards("every other column", y, 12);
	expect_close("every other column", y, cols, NULL, 12, 0.0);
	out_free(y);
}

/* ---- pad ------------------------------------------------------------------------ */

Test(pad, constant)
{
	for (int rank = 1; rank <= 4; rank++)
		for (int trial = 0; trial < 15; trial++) {
			struct rng r;
			rng_seed(&r, (uint64_t)rank * 1000 + (uint64_t)trial);
			struct rt_pad p = {.rank = rank, .value = rng_float(&r, -5.0f, 5.0f)};
			int end[RT_MAX_RANK];
			for (int d = 0; d < rank; d++) {
				p.in_dims[d] = rng_int(&r, 1, 5);
				do {
					p.begin[d] = rng_int(&r, -2, 3);
					end[d] = rng_int(&r, -2, 3);
				} while (p.in_dims[d] + p.begin[d] + end[d] < 1);
				p.out_dims[d] = p.in_dims[d] + p.begin[d] + end[d];
			}
			const size_t nx = product(rank, p.in_dims), ny = product(rank, p.out_dims);
			float *x = in_new(&r, nx, -1.0f, 1.0f);
			double *want = dbl_new(ny);
			char si[64], sb[64], se[64], desc[240];
			snprintf(desc, sizeof desc, "pad %s begin %s end %s value %g",
			         dims_str(si, sizeof si, rank, p.in_dims),
			         dims_str(sb, sizeof sb, rank, p.begin), dims_str(se, sizeof se, rank, end),
			         p.value);
			/* scatter: everything is value, then each x element that lands
			 * inside y is placed */
			for (size_t t = 0; t < ny; t++)
				want[t] = p.value;
			for (size_t t = 0; t < nx; t++) {
				int xi[RT_MAX_RANK];
				unravel(t, rank, p.in_dims, xi);
				size_t o = 0;
				int inside = 1;
				for (int d = 0; d < rank; d++) {
					const int yi = xi[d] + p.begin[d];
					inside = inside && yi >= 0 && yi < p.out_dims[d];
					o = o * (size_t)p.out_dims[d] + (size_t)(yi >= 0 ? yi : 0);
				}
				if (inside)
					want[o] = x[t];
			}
			float *y = out_new(ny);
			rt_pad_constant(&p, x, y);
			expect_guards(desc, y, ny);
			expect_close(desc, y, want, NULL, ny, 0.0);
			out_free(y);
			free(x);
			free(want);
		}
}

/* ---- clip with run-time bounds -------------------------------------------------- */

/* ONNX node tests clip_example / clip_splitbounds / clip_default_min, and
 * min > max (every value becomes max). */
Test(hand, clip_runtime_bounds)
{
	const float x[5] = {-2, -0.5f, 0, 0.5f, 3};
	float y[5];
	const float lo = -1.0f, hi = 1.0f, big = 2.0f, small = 0.25f;
	const double both[5] = {-1, -0.5, 0, 0.5, 1};
	const double only_hi[5] = {-2, -0.5, 0, 0.5, 1};
	const double only_lo[5] = {-1, -0.5, 0, 0.5, 3};
	const double inverted[5] = {0.25, 0.25, 0.25, 0.25, 0.25};
	rt_clip(5, x, &lo, &hi, 0.0f, 0.0f, y);
	expect_values("clip lo, hi", y, both, 5);
	rt_clip(5, x, NULL, &hi, -FLT_MAX, 0.0f, y);
	expect_values("clip default min", y, only_hi, 5);
	rt_clip(5, x, &lo, NULL, 0.0f, FLT_MAX, y);
	expect_values("clip default max", y, only_lo, 5);
	rt_clip(5, x, NULL, NULL, -1.0f, 1.0f, y);
	expect_values("clip constants", y, both, 5);
	rt_clip(5, x, &big, &small, 0.0f, 0.0f, y);
	expect_values("clip min > max", y, inverted, 5);
	/* a pointer wins over its constant */
	rt_clip(5, x, &lo, &hi, 5.0f, -5.0f, y);
	expect_values("clip pointers over constants", y, both, 5);
}

Test(clip, ref_vs_double)
{
	static const size_t sizes[] = {0, 1, 7, 1000};
	for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++)
		for (int mode = 0; mode < 4; mode++) {
			/* mode bit 0: lo from a pointer; bit 1: hi from a pointer */
			const size_t n = sizes[s];
			struct rng r;
			rng_seed(&r, 7000 + s * 4 + (uint64_t)mode);
			float *x = in_new(&r, n, -8.0f, 8.0f);
			float lo = rng_float(&r, -6.0f, 2.0f), hi = rng_float(&r, -2.0f, 6.0f);
			const float lo_const = rng_float(&r, -6.0f, 2.0f);
			const float hi_const = rng_float(&r, -2.0f, 6.0f);
			const float *plo = mode & 1 ? &lo : NULL, *phi = mode & 2 ? &hi : NULL;
			const double a = plo ? lo : lo_const, b = phi ? hi : hi_const;
			/* the edges: the bounds themselves, 0, -0 */
			const float edges[4] = {(float)a, (float)b, 0.0f, -0.0f};
			for (size_t i = 0; i < n && i < 4; i++)
				x[i] = edges[i];
			double *want = dbl_new(n);
			for (size_t i = 0; i < n; i++)
				want[i] = a > b ? b : fmin(fmax(x[i], a), b);
			char desc[96];
			snprintf(desc, sizeof desc, "clip n=%zu [%g, %g]%s%s", n, a, b,
			         plo ? " lo ptr" : "", phi ? " hi ptr" : "");
			float *y = out_new(n);
			rt_clip(n, x, plo, phi, lo_const, hi_const, y);
			expect_guards(desc, y, n);
			expect_close(desc, y, want, NULL, n, 0.0); /* selections: exact */
			/* in place */
			memcpy(y, x, n * sizeof *y);
			rt_clip(n, y, plo, phi, lo_const, hi_const, y);
			expect_guards(desc, y, n);
			expect_close(desc, y, want, NULL, n, 0.0);
			out_free(y);
			free(x);
			free(want);
		}
}

/* ---- batch normalization ---------------------------------------------------------- */

/* ONNX node test batchnorm_example's parameters on a small input:
 * x [1, 2, 3], scale {1, 1.5}, bias {0, 1}, mean {0, 3}, var {1, 1.5},
 * epsilon 1e-5. */
Test(hand, batchnorm)
{
	const float x[6] = {-1, 0, 1, 2, 3, 4};
	const float scale[2] = {1, 1.5f}, bias[2] = {0, 1}, mean[2] = {0, 3}, var[2] = {1, 1.5f};
	float y[6];
	const double s0 = 1.0 / sqrt(1.0 + 1e-5), s1 = 1.5 / sqrt(1.5 + 1e-5);
	const double want[6] = {-1 * s0, 0, 1 * s0, (2 - 3) * s1 + 1, 1, (4 - 3) * s1 + 1};
	rt_batchnorm(1, 2, 3, 1e-5f, x, scale, bias, mean, var, y);
	expect_values("batchnorm", y, want, 6);
	/* epsilon 0, var 4: y = (x - mean) / 2 * scale + bias, exactly */
	const float var4[2] = {4, 4};
	const double exact[6] = {-0.5, 0, 0.5, (2 - 3) * 0.75 + 1, 1, (4 - 3) * 0.75 + 1};
	rt_batchnorm(1, 2, 3, 0.0f, x, scale, bias, mean, var4, y);
	expect_close("batchnorm eps 0", y, exact, NULL, 6, 0.0);
}

Test(batchnorm, ref_vs_double)
{
	static const int shapes[][3] = {{1, 1, 1}, {2, 3, 1}, {1, 5, 7}, {3, 4, 9}, {2, 16, 25}};
	for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++)
		for (int e = 0; e < 2; e++) {
			const int N = shapes[s][0], C = shapes[s][1], HW = shapes[s][2];
			const size_t n = (size_t)N * C * HW;
			const float epsilon = e ? 1e-2f : 1e-5f;
			struct rng r;
			rng_seed(&r, 8000 + s * 2 + (uint64_t)e);
			float *x = in_new(&r, n, -4.0f, 4.0f);
			float *scale = in_new(&r, (size_t)C, -2.0f, 2.0f);
			float *bias = in_new(&r, (size_t)C, -1.0f, 1.0f);
			float *mean = in_new(&r, (size_t)C, -1.0f, 1.0f);
			float *var = in_new(&r, (size_t)C, 0.01f, 3.0f);
			double *want = dbl_new(n), *mag = dbl_new(n);
			for (int b = 0; b < N; b++)
				for (int c = 0; c < C; c++) {
					const double sd = sqrt((double)var[c] + (double)epsilon);
					for (int k = 0; k < HW; k++) {
						const size_t o = ((size_t)b * C + c) * HW + k;
						const double t = (x[o] - (double)mean[c]) / sd * scale[c];
						want[o] = t + bias[c];
						/* half-ulp roundings: x - mean, var + epsilon (halved
						 * by the root), the root, the division and the
						 * product each move t by at most |t| / 2 ulps, the
						 * sum adds |y| / 2: about 3 ulps of |t| + |y| */
						mag[o] = fabs(t) + fabs(want[o]);
					}
				}
			char desc[96];
			snprintf(desc, sizeof desc, "batchnorm [%d, %d, %d] eps %g", N, C, HW, epsilon);
			float *y = out_new(n);
			rt_batchnorm(N, C, HW, epsilon, x, scale, bias, mean, var, y);
			expect_guards(desc, y, n);
			expect_close(desc, y, want, mag, n, 8 * FLT_EPSILON);
			/* in place */
			memcpy(y, x, n * sizeof *y);
			rt_batchnorm(N, C, HW, epsilon, y, scale, bias, mean, var, y);
			expect_close(desc, y, want, mag, n, 8 * FLT_EPSILON);
			out_free(y);
			free(x);
			free(scale);
			free(bias);
			free(mean);
			free(var);
			free(want);
			free(mag);
		}
}

/* ---- reductions ----------------------------------------------------------------- */

struct reduce_case {
	int rank, dims[5];
	unsigned mask; /* bit d: dim d is reduced */
};

ParameterizedTestParameters(reduce, ref_vs_double)
{
	static struct reduce_case cases[] = {
		{1, {7}, 1},          {2, {3, 4}, 1},           {2, {3, 4}, 2},
		{2, {3, 4}, 3},       {3, {2, 3, 4}, 5},        {3, {2, 3, 4}, 2},
		{4, {2, 3, 1, 5}, 10}, {4, {2, 3, 4, 5}, 15},   {5, {2, 1, 3, 2, 3}, 21},
		{3, {1, 300, 2}, 2},  {2, {5, 1}, 2},
	};
	return cr_make_param_array(struct reduce_case, cases, sizeof cases / sizeof cases[0]);
}

/* The ONNX definitions over the reduced values v[count], in double. */
static double reduce_double(int op, const double *v, size_t count)
{
	double s = op == RT_REDUCE_PROD ? 1.0 : 0.0, m = v[0];
	for (size_t i = 0; i < count; i++) {
		switch (op) {
		case RT_REDUCE_PROD: s *= v[i]; break;
		case RT_REDUCE_L1: s += fabs(v[i]); break;
		case RT_REDUCE_L2:
		case RT_REDUCE_SUM_SQUARE: s += v[i] * v[i]; break;
		case RT_REDUCE_LOG_SUM_EXP: s += exp(v[i]); break;
		default: s += v[i]; break;
		}
		if (op == RT_REDUCE_MAX ? v[i] > m : v[i] < m)
			m = v[i];
	}
	switch (op) {
	case RT_REDUCE_MEAN: return s / (double)count;
	case RT_REDUCE_MAX:
	case RT_REDUCE_MIN: return m;
	case RT_REDUCE_L2: return sqrt(s);
	case RT_REDUCE_LOG_SUM:
	case RT_REDUCE_LOG_SUM_EXP: return log(s);
	default: return s;
	}
}

ParameterizedTest(struct reduce_case *k, reduce, ref_vs_double)
{
	static const char *const op_names[] = {"sum", "mean", "max",    "min",        "prod",
	                                       "l1",  "l2",   "logsum", "logsumexp", "sumsquare"};
	struct rt_reduce p = {0};
	int stride[5], out_dims[5], n_out = 0;
	size_t n = product(k->rank, k->dims);
	for (int d = k->rank - 1, s = 1; d >= 0; d--) {
		stride[d] = s;
		s *= k->dims[d];
	}
	for (int d = 0; d < k->rank; d++) {
		if (k->mask >> d & 1) {
			p.red_dims[p.n_red] = k->dims[d];
			p.red_sx[p.n_red++] = stride[d];
		} else {
			p.out_dims[p.n_out] = out_dims[n_out++] = k->dims[d];
			p.out_sx[p.n_out++] = stride[d];
		}
	}
	const size_t n_y = product(n_out, out_dims), count = n / n_y;
	struct rng r;
	rng_seed(&r, n * 31 + k->mask);
	/* positive for LogSum; near 1 so that Prod stays in range */
	float *x = in_new(&r, n, 0.5f, 1.5f);
	double *v = dbl_new(count), *want = dbl_new(n_y), *mag = dbl_new(n_y);
	char sx[64], desc[160];
	for (int op = RT_REDUCE_SUM; op <= RT_REDUCE_SUM_SQUARE; op++) {
		for (int signs = 0; signs < 2; signs++) {
			if (signs && op == RT_REDUCE_LOG_SUM)
				continue; /* log of a negative sum */
			float *xs = in_new(&r, n, 0.0f, 1.0f);
			for (size_t i = 0; i < n; i++)
				xs[i] = signs && i % 3 == 1 ? -x[i] : x[i];
			/* every output element: gather its reduced values by brute force */
			for (size_t o = 0; o < n_y; o++) {
				size_t c = 0;
				for (size_t t = 0; t < n; t++) {
					int idx[5];
					unravel(t, k->rank, k->dims, idx);
					size_t oo = 0;
					for (int d = 0; d < k->rank; d++)
						if (!(k->mask >> d & 1))
							oo = oo * (size_t)k->dims[d] + (size_t)idx[d];
					if (oo == o)
						v[c++] = xs[t];
				}
				cr_assert_eq(c, count);
				want[o] = reduce_double(op, v, count);
				mag[o] = fabs(want[o]);
				if (op == RT_REDUCE_SUM || op == RT_REDUCE_MEAN)
					mag[o] += reduce_double(RT_REDUCE_L1, v, count) /
					          (op == RT_REDUCE_MEAN ? (double)count : 1.0);
			}
			snprintf(desc, sizeof desc, "reduce %s of %s mask %u%s", op_names[op],
			         dims_str(sx, sizeof sx, k->rank, k->dims), k->mask,
			         signs ? ", mixed signs" : "");
			float *y = out_new(n_y);
			rt_reduce(op, &p, xs, y);
			expect_guards(desc, y, n_y);
			/* accumulated in double, rounded once; Sum with mixed signs
			 * may cancel: tolerance relative to the sum of magnitudes */
			expect_close(desc, y, want, mag, n_y, 2 * FLT_EPSILON);
			out_free(y);
			free(xs);
		}
	}
	free(x);
	free(v);
	free(want);
	free(mag);
}

/* All -inf, a +inf, and a NaN (ONNX ReduceLogSumExp, ReduceMax). */
Test(hand, reduce_special_values)
{
	struct rt_reduce p = {.n_out = 1, .out_dims = {3}, .out_sx = {2}, .n_red = 1,
	                      .red_dims = {2}, .red_sx = {1}};
	const float x[6] = {-INFINITY, -INFINITY, INFINITY, 1.0f, NAN, 2.0f};
	float y[3];
	rt_reduce(RT_REDUCE_LOG_SUM_EXP, &p, x, y);
	cr_expect(isinf(y[0]) && y[0] < 0 && isinf(y[1]) && y[1] > 0 && isnan(y[2]),
	          "logsumexp: %g %g %g", y[0], y[1], y[2]);
	rt_reduce(RT_REDUCE_MAX, &p, x, y);
	cr_expect(isinf(y[0]) && y[0] < 0 && isinf(y[1]) && isnan(y[2]), "max: %g %g %g", y[0],
	          y[1], y[2]);
	const float big[6] = {100.0f, 100.0f, -3.0f, 4.0f, 1.0f, 1.0f};
	rt_reduce(RT_REDUCE_LOG_SUM_EXP, &p, big, y);
	expect_values("logsumexp, exp overflows float", y,
	              (const double[]){100.0 + log(2.0), 4.0 + log1p(exp(-7.0)), 1.0 + log(2.0)}, 3);
}

/* ---- normalisation -------------------------------------------------------------- */

/* LayerNormalization over the last two dims of [3, 4, 5] with per-element
 * scale and bias, InstanceNormalization of [2, 3, 7] with per-channel ones,
 * MVN over dims 0 and 2 (epsilon outside the square root); against the
 * textbook formula in double, in place too. The longer groups (ViT's 768,
 * 197, 50 and 37: whole and partial rounds of the 16 interleaved sums) and
 * a LayerNormalization with one scale and bias value take the consecutive
 * groups' vectorisable loops. */
Test(normalize, ref_vs_double)
{
	static const struct {
		const char *what;
		int rank, dims[3];
		unsigned mask; /* normalised dims */
		int s_mod, s_o, s_t, eps_outside;
	} cases[] = {
		{"layernorm", 3, {3, 4, 5}, 6, 1, 0, 1, 0},
		{"instancenorm", 3, {2, 3, 7}, 4, 3, 1, 0, 0},
		{"mvn", 3, {2, 3, 4}, 5, 1, 0, 0, 1},
		{"layernorm_768", 2, {3, 768}, 2, 1, 0, 1, 0},
		{"layernorm_50", 3, {2, 5, 10}, 6, 1, 0, 1, 0},
		{"layernorm_one_value", 2, {4, 37}, 2, 1, 0, 0, 0},
		{"instancenorm_197", 3, {2, 2, 197}, 4, 2, 1, 0, 0},
		{"mvn_hw", 3, {2, 3, 16}, 4, 1, 0, 0, 1},
	};
	for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
		struct rt_norm p = {.epsilon = 1e-3f, .eps_outside = cases[c].eps_outside,
		                    .s_mod = cases[c].s_mod, .s_o = cases[c].s_o, .s_t = cases[c].s_t};
		const int rank = cases[c].rank;
		const int *dims = cases[c].dims;
		int stride[3];
		for (int d = rank - 1, s = 1; d >= 0; d--) {
			stride[d] = s;
			s *= dims[d];
		}
		for (int d = 0; d < rank; d++) {
			if (cases[c].mask >> d & 1) {
				p.r.red_dims[p.r.n_red] = dims[d];
				p.r.red_sx[p.r.n_red++] = stride[d];
			} else {
				p.r.out_dims[p.r.n_out] = dims[d];
				p.r.out_sx[p.r.n_out++] = stride[d];
			}
		}
		const size_t n = product(rank, dims);
		struct rng r;
		rng_seed(&r, 77 + c);
		float *x = in_new(&r, n, -3.0f, 5.0f), *scale = in_new(&r, n, 0.5f, 2.0f),
		      *bias = in_new(&r, n, -1.0f, 1.0f);
		double *want = dbl_new(n);
		/* group of element t: its kept coordinates; its index in the group:
		 * its reduced coordinates, both row-major */
		for (size_t t = 0; t < n; t++) {
			int idx[3], jdx[3];
			unravel(t, rank, dims, idx);
			size_t g = 0, e = 0;
			for (int d = 0; d < rank; d++)
				if (cases[c].mask >> d & 1)
					e = e * (size_t)dims[d] + (size_t)idx[d];
				else
					g = g * (size_t)dims[d] + (size_t)idx[d];
			double sum = 0.0, sq = 0.0;
			size_t count = 0;
			for (size_t u = 0; u < n; u++) {
				unravel(u, rank, dims, jdx);
				int same = 1;
				for (int d = 0; d < rank; d++)
					if (!(cases[c].mask >> d & 1) && jdx[d] != idx[d])
						same = 0;
				if (same) {
					sum += x[u];
					sq += (double)x[u] * x[u];
					count++;
				}
			}
			const double mean = sum / count, var = sq / count - mean * mean;
			const double sd = p.eps_outside ? sqrt(var) + p.epsilon : sqrt(var + p.epsilon);
			const size_t k = (g % (size_t)p.s_mod) * (size_t)p.s_o + e * (size_t)p.s_t;
			want[t] = p.eps_outside ? (x[t] - mean) / sd : (x[t] - mean) / sd * scale[k] + bias[k];
		}
		float *y = out_new(n);
		const float *sp = p.eps_outside ? NULL : scale, *bp = p.eps_outside ? NULL : bias;
		rt_normalize(&p, x, sp, bp, y);
		expect_guards(cases[c].what, y, n);
		/* rounding to float, and the one-pass variance of the reference */
		double *mag = dbl_new(n);
		for (size_t t = 0; t < n; t++)
			mag[t] = fabs(want[t]) + 1.0;
		expect_close(cases[c].what, y, want, mag, n, 1e-6);
		memcpy(y, x, n * sizeof *y);
		rt_normalize(&p, y, sp, bp, y);
		expect_close(cases[c].what, y, want, mag, n, 1e-6);
		out_free(y);
		free(x);
		free(scale);
		free(bias);
		free(want);
		free(mag);
	}
}

/* ---- hardmax -------------------------------------------------------------------- */

/* ONNX Hardmax: 1 at the first maximum of every vector along the middle
 * axis of [outer, len, inner], ties to the lowest index; in place too. */
Test(hardmax, ties_and_layout)
{
	enum { OUTER = 2, LEN = 4, INNER = 3, N = OUTER * LEN * INNER };
	struct rng r;
	rng_seed(&r, 5);
	float *x = in_new(&r, N, -1.0f, 1.0f);
	/* vector (0, 1): a tie between k = 1 and k = 3 */
	x[0 * LEN * INNER + 1 * INNER + 1] = 2.0f;
	x[0 * LEN * INNER + 3 * INNER + 1] = 2.0f;
	double want[N];
	for (int o = 0; o < OUTER; o++)
		for (int i = 0; i < INNER; i++) {
			int arg = 0;
			for (int k = 0; k < LEN; k++)
				if (x[(o * LEN + k) * INNER + i] > x[(o * LEN + arg) * INNER + i])
					arg = k;
			for (int k = 0; k < LEN; k++)
				want[(o * LEN + k) * INNER + i] = k == arg;
		}
	cr_assert_eq(want[0 * LEN * INNER + 1 * INNER + 1], 1.0);
	float *y = out_new(N);
	rt_hardmax(OUTER, LEN, INNER, x, y);
	expect_guards("hardmax", y, N);
	expect_close("hardmax", y, want, NULL, N, 0.0);
	memcpy(y, x, N * sizeof *y);
	rt_hardmax(OUTER, LEN, INNER, y, y);
	expect_close("hardmax in place", y, want, NULL, N, 0.0);
	out_free(y);
	free(x);
}

/* ---- pad edge / reflect -------------------------------------------------------- */

/* numpy.pad's edge and reflect modes on [2, 3, 4], pads wider than the dim
 * (reflection folds back more than once), a crop (negative end) and a dim
 * of 1, against an index map computed independently: reflect walks a
 * triangle wave 0, 1, ..., n - 1, n - 2, ..., 1, 0, 1, ... */
Test(pad_mode, edge_and_reflect)
{
	enum { R = 3 };
	const int in_dims[R] = {2, 1, 4}, begin[R] = {3, 2, 5}, end[R] = {2, 1, -1};
	struct rt_pad p = {.rank = R, .value = 0.0f};
	size_t nx = 1, ny = 1;
	for (int d = 0; d < R; d++) {
		p.in_dims[d] = in_dims[d];
		p.begin[d] = begin[d];
		p.out_dims[d] = in_dims[d] + begin[d] + end[d];
		nx *= (size_t)in_dims[d];
		ny *= (size_t)p.out_dims[d];
	}
	struct rng r;
	rng_seed(&r, 11);
	float *x = in_new(&r, nx, -1.0f, 1.0f);
	for (int reflect = 0; reflect <= 1; reflect++) {
		double *want = malloc(ny * sizeof *want);
		for (int i = 0; i < p.out_dims[0]; i++)
			for (int j = 0; j < p.out_dims[1]; j++)
				for (int k = 0; k < p.out_dims[2]; k++) {
					int o[R] = {i, j, k}, m[R];
					for (int d = 0; d < R; d++) {
						int c = o[d] - begin[d], n = in_dims[d];
						if (!reflect) {
							m[d] = c < 0 ? 0 : c > n - 1 ? n - 1 : c;
						} else if (n == 1) {
							m[d] = 0;
						} else {
							int a = c < 0 ? -c : c; /* symmetric about 0 */
							int ph = a % (2 * n - 2);
							m[d] = ph < n ? ph : 2 * n - 2 - ph;
						}
					}
					want[(i * p.out_dims[1] + j) * p.out_dims[2] + k] =
					        x[(m[0] * in_dims[1] + m[1]) * in_dims[2] + m[2]];
				}
		float *y = out_new(ny);
		rt_pad_edge_reflect(&p, reflect, x, y);
		expect_guards(reflect ? "pad reflect" : "pad edge", y, ny);
		expect_close(reflect ? "pad reflect" : "pad edge", y, want, NULL, ny, 0.0);
		out_free(y);
		free(want);
	}
	free(x);
}

/* ---- conv transpose -------------------------------------------------------------- */

/* rt_conv_transpose_ref (a scatter) against a gather in double: y[n, m, oh,
 * ow] sums x[n, c, i, j] * w[c, m', u, v] over the (i, u) with i * sH - padT
 * + u * dH = oh (columns likewise), c in m's group; groups, strides,
 * dilations, pads and an output longer than the natural length. */
Test(conv_transpose, ref_vs_double)
{
	const struct rt_conv2d p = {.N = 2, .C = 4, .H = 3, .W = 4, .M = 6, .oH = 8, .oW = 9,
	                            .kH = 3, .kW = 2, .sH = 2, .sW = 3, .dH = 1, .dW = 2,
	                            .padT = 1, .padL = 0, .group = 2};
	const int Cg = p.C / p.group, Mg = p.M / p.group;
	const size_t nx = (size_t)p.N * p.C * p.H * p.W, nw = (size_t)p.C * Mg * p.kH * p.kW;
	const size_t ny = (size_t)p.N * p.M * p.oH * p.oW;
	struct rng r;
	rng_seed(&r, 21);
	float *x = in_new(&r, nx, -1.0f, 1.0f), *w = in_new(&r, nw, -1.0f, 1.0f);
	float *b = in_new(&r, (size_t)p.M, -1.0f, 1.0f);
	double *want = malloc(ny * sizeof *want), *mag = malloc(ny * sizeof *mag);
	for (int n = 0; n < p.N; n++)
		for (int m = 0; m < p.M; m++)
			for (int oh = 0; oh < p.oH; oh++)
				for (int ow = 0; ow < p.oW; ow++) {
					double s = b[m], a = fabs(b[m]);
					int g = m / Mg, mg = m % Mg;
					for (int c = g * Cg; c < (g + 1) * Cg; c++)
						for (int i = 0; i < p.H; i++)
							for (int u = 0; u < p.kH; u++)
								for (int j = 0; j < p.W; j++)
									for (int v = 0; v < p.kW; v++)
										if (i * p.sH - p.padT + u * p.dH == oh &&
										    j * p.sW - p.padL + v * p.dW == ow) {
											double t = (double)x[((n * p.C + c) * p.H + i) * p.W + j] *
											           w[((c * Mg + mg) * p.kH + u) * p.kW + v];
											s += t;
											a += fabs(t);
										}
					want[((n * p.M + m) * p.oH + oh) * p.oW + ow] = s;
					mag[((n * p.M + m) * p.oH + oh) * p.oW + ow] = a;
				}
	float *y = out_new(ny);
	rt_conv_transpose_ref(&p, x, w, b, y);
	expect_guards("conv transpose", y, ny);
	/* float32 sums of a few terms: a few ulps of the terms' magnitudes */
	expect_close("conv transpose", y, want, mag, ny, 1e-6);
	out_free(y);
	free(want);
	free(mag);
	free(b);
	free(w);
	free(x);
}
