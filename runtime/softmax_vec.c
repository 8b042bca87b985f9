/* softmax_vec.c - ONNX Softmax and LogSoftmax, vectorised: the contract of
 * rt_softmax (softmax.c, the textbook loops), on [outer, len, inner] with
 * the axis in the middle, x may equal y:
 *   softmax:     y[k] = exp(x[k] - max) / sum over l of exp(x[l] - max)
 *   log-softmax: y[k] = (x[k] - max) - log(sum over l of exp(x[l] - max))
 * exp is rt_unary_vec's (unary_vec.c: a few float ulps, on the ISA's
 * vectors; libm's expf in the plain C form). A maximum ignores NaN (as the
 * textbook's `>` does), and a NaN input makes its vector's sum, so all its
 * outputs, NaN.
 * - inner == 1 (the last axis: attention scores, classifier outputs): per
 *   vector, the maximum and the sum run in RT_SMV_LANES_ interleaved partial
 *   results, which the compiler can keep in vector registers; they are
 *   combined in a fixed order, so results depend on len only, not on the
 *   ISA's width or on the thread count.
 * - inner > 1 (a channel axis): tiles of up to RT_SMV_COLS_ columns, each
 *   column's maximum and sum taken over k in order, column by column side
 *   by side.
 * Threads take whole vectors or tiles when the layer moves at least
 * RT_PARALLEL_MIN_WORK / RT_PARALLEL_COPY_UNITS elements (exp costs about
 * what a copy's memory traffic does). */
#include "runtime/rt_types.h"

#define RT_SMV_LANES_ 16
#define RT_SMV_COLS_ 64

struct rt_softmax_vec_job_ {
	int len, inner, log, isa, tiles;
	const float *x;
	float *y;
};

/* the vector y[0..len) = x - max, its exp summed; inner == 1 */
static void rt_softmax_vec_row_(const struct rt_softmax_vec_job_ *j, const float *x, float *y)
{
	const int len = j->len, full = len - len % RT_SMV_LANES_;
	float m[RT_SMV_LANES_], s[RT_SMV_LANES_], t[4 * RT_SMV_LANES_];
	for (int l = 0; l < RT_SMV_LANES_; l++)
		m[l] = -INFINITY, s[l] = 0.0f;
	for (int k = 0; k < full; k += RT_SMV_LANES_)
		for (int l = 0; l < RT_SMV_LANES_; l++)
			m[l] = x[k + l] > m[l] ? x[k + l] : m[l];
	for (int k = full; k < len; k++)
		m[k - full] = x[k] > m[k - full] ? x[k] : m[k - full];
	float max = m[0];
	for (int l = 1; l < RT_SMV_LANES_; l++)
		max = m[l] > max ? m[l] : max;
	for (int k = 0; k < len; k++)
		y[k] = x[k] - max;
	/* exp in stack chunks (y keeps x - max, which log-softmax needs),
	 * summed lane by lane */
	for (int k0 = 0; k0 < len; k0 += 4 * RT_SMV_LANES_) {
		const int w = len - k0 < 4 * RT_SMV_LANES_ ? len - k0 : 4 * RT_SMV_LANES_;
		rt_unary_vec(RT_MATH_EXP, 0.0f, 0.0f, j->isa, (size_t)w, y + k0, t);
		for (int k = 0; k < w; k++)
			s[(k0 + k) % RT_SMV_LANES_] += t[k];
		if (!j->log)
			for (int k = 0; k < w; k++)
				y[k0 + k] = t[k];
	}
	float sum = 0.0f;
	for (int l = 0; l < RT_SMV_LANES_; l++)
		sum += s[l];
	if (j->log) {
		const float ls = logf(sum);
		for (int k = 0; k < len; k++)
			y[k] -= ls;
	} else {
		for (int k = 0; k < len; k++)
			y[k] /= sum;
	}
}

/* columns [0, w) of the [len, inner] slab at x, y; inner > 1 */
static void rt_softmax_vec_cols_(const struct rt_softmax_vec_job_ *j, int w, const float *x,
                                 float *y)
{
	const size_t in = (size_t)j->inner;
	float m[RT_SMV_COLS_], s[RT_SMV_COLS_], t[RT_SMV_COLS_];
	for (int c = 0; c < w; c++)
		m[c] = -INFINITY, s[c] = 0.0f;
	for (int k = 0; k < j->len; k++)
		for (int c = 0; c < w; c++)
			m[c] = x[k * in + c] > m[c] ? x[k * in + c] : m[c];
	for (int k = 0; k < j->len; k++) {
		float *yr = y + k * in;
		for (int c = 0; c < w; c++)
			yr[c] = x[k * in + c] - m[c];
		rt_unary_vec(RT_MATH_EXP, 0.0f, 0.0f, j->isa, (size_t)w, yr, t);
		for (int c = 0; c < w; c++)
			s[c] += t[c];
		if (!j->log)
			for (int c = 0; c < w; c++)
				yr[c] = t[c];
	}
	if (j->log)
		for (int c = 0; c < w; c++)
			s[c] = logf(s[c]);
	for (int k = 0; k < j->len; k++) {
		float *yr = y + k * in;
		if (j->log)
			for (int c = 0; c < w; c++)
				yr[c] -= s[c];
		else
			for (int c = 0; c < w; c++)
				yr[c] /= s[c];
	}
}

/* items: vector o's tile c at o * tiles + c */
static void rt_softmax_vec_items_(void *ctx, int i0, int i1)
{
	const struct rt_softmax_vec_job_ *j = (const struct rt_softmax_vec_job_ *)ctx;
	for (int i = i0; i < i1; i++) {
		const int o = i / j->tiles, c0 = i % j->tiles * RT_SMV_COLS_;
		const size_t at = (size_t)o * j->len * j->inner + (size_t)c0;
		if (j->inner == 1)
			rt_softmax_vec_row_(j, j->x + at, j->y + at);
		else
			rt_softmax_vec_cols_(j, j->inner - c0 < RT_SMV_COLS_ ? j->inner - c0 : RT_SMV_COLS_,
			                     j->x + at, j->y + at);
	}
}

RT_FN void rt_softmax_vec(int outer, int len, int inner, int log_softmax,
                          int isa,        /* RT_SGEMM_ISA_* to run (generated code: its own) */
                          const float *x, /* [outer, len, inner] */
                          float *y)       /* out: [outer, len, inner]; may equal x */
{
	struct rt_softmax_vec_job_ j;
	j.len = len, j.inner = inner, j.log = log_softmax, j.isa = isa, j.x = x, j.y = y;
	j.tiles = (inner + RT_SMV_COLS_ - 1) / RT_SMV_COLS_;
	if (outer <= 0 || len <= 0 || inner <= 0)
		return;
	const int items = outer * j.tiles;
	if ((double)outer * len * inner * RT_PARALLEL_COPY_UNITS >= (double)RT_PARALLEL_MIN_WORK)
		rt_parallel(rt_softmax_vec_items_, &j, items);
	else
		rt_softmax_vec_items_(&j, 0, items);
}
