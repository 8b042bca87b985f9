/* pool_cl.c - 2-D max and average pooling (ONNX MaxPool, AveragePool) in
 * every layout: HWC, the blocked CHW8c / CHW16c, and CHW.
 *
 * Textbook form: rt_maxpool2d (maxpool.c) and rt_avgpool2d (avgpool.c) on
 * CHW; the window, its pads, dilation, the ceil_mode overhang and the
 * count_include_pad divisor are exactly theirs. Here every layout is seen as
 * nblk blocks of cc channels, each block [H][W][cc]:
 *   HWC      one block, cc = C
 *   CHW8c    ceil(C/8) blocks, cc = 8 (channels past C are zero, and stay
 *            zero: the max or mean of zeros)
 *   CHW16c   ceil(C/16) blocks, cc = 16
 *   CHW      C blocks, cc = 1 (block 1 here): rt_pool_chw_*, below, runs
 *            the vectors along W instead
 * so a window tap is cc contiguous floats and the loop runs down the
 * channels one SIMD vector at a time (rt_simd.h), the rest of cc in scalar
 * code. What makes it run near memory speed:
 *   - the valid window rows are worked out once per output row, and the
 *     output columns split into the border ones (taps cut by the pads or the
 *     ceil_mode overhang, worked out per column) and the interior ones,
 *     whose whole kW taps lie inside the input: there the window is a fixed
 *     rectangle and the loop has no bounds tests;
 *   - max and average are separate loops (no per-tap choice), windows 2 and
 *     3 wide are unrolled, and 3-wide windows at stride 1 or 2 are
 *     separable (rt_pool_cl_*_row_*); 3-wide max windows of the blocked
 *     layouts run whole rows, border columns included, in one such loop
 *     (rt_pool_cl_max3_*);
 *   - a tap's offset is a pointer step (dilation x cc floats across, dilation
 *     x W x cc floats down), no index arithmetic per tap.
 * Averages multiply by the reciprocal of the count; the separable paths and
 * CHW sum down the columns first, others in the textbook's order, so
 * results differ from it by rounding only (within 1e-6 relative). Threads
 * take whole output rows of a block
 * (rt_pool2d_cl), so every element is computed the same way for any thread
 * count. */
#include "runtime/rt_types.h"
#include "runtime/rt_simd.h"

/* Valid window taps of output row (or column) i: u in [*u0, *u1) with the
 * input index inside [0, n) (an interval: the index grows with u); *u0 = k,
 * *u1 = 0 when there is none. The count inside the padded input
 * [-pad0, n + pad1) goes to *padded. */
static inline void rt_pool_cl_taps(int i, int s, int pad0, int pad1, int d, int k, int n,
                                   int *u0, int *u1, int *padded)
{
	*u0 = k;
	*u1 = 0;
	*padded = 0;
	for (int u = 0; u < k; u++) {
		const int ih = i * s - pad0 + u * d;
		if (ih >= -pad0 && ih < n + pad1)
			(*padded)++;
		if (ih < 0 || ih >= n)
			continue;
		if (u < *u0)
			*u0 = u;
		*u1 = u + 1;
	}
}

/* One output pixel from its window of nr rows (du floats apart) x nv taps
 * (dv floats apart), q at its first tap: yo[c] for c < cc (OP: MAX or ADD;
 * INIT the empty window's value; FIN the last step, a scale for averages). */
#define RT_POOL_CL_WIN_(SUF, ATTR, V, VL, LOAD, STORE, SET1, OP, INIT, FIN, SOP, SFIN, NAME)   \
	static inline ATTR void rt_pool_cl_##NAME##_##SUF(int cc, const float *q, int nr, size_t du, \
	                                                  int nv, size_t dv, float scale, float *yo) \
	{                                                                                         \
		const V vs = SET1(scale);                                                         \
		int c = 0;                                                                        \
		(void)vs;                                                                         \
		for (; c + VL <= cc; c += VL) {                                                   \
			V acc = SET1(INIT);                                                       \
			const float *r = q + c;                                                   \
			if (nv == 3)                                                              \
				for (int u = 0; u < nr; u++, r += du)                             \
					acc = OP(OP(OP(acc, LOAD(r)), LOAD(r + dv)), LOAD(r + 2 * dv)); \
			else if (nv == 2)                                                         \
				for (int u = 0; u < nr; u++, r += du)                             \
					acc = OP(OP(acc, LOAD(r)), LOAD(r + dv));                 \
			else                                                                      \
				for (int u = 0; u < nr; u++, r += du)                             \
					for (int v = 0; v < nv; v++)                              \
						acc = OP(acc, LOAD(r + v * dv));                  \
			STORE(yo + c, FIN(acc, vs));                                              \
		}                                                                                 \
		for (; c < cc; c++) {                                                             \
			float acc = INIT;                                                         \
			const float *r = q + c;                                                   \
			if (nv == 3)                                                              \
				for (int u = 0; u < nr; u++, r += du)                             \
					acc = SOP(SOP(SOP(acc, r[0]), r[dv]), r[2 * dv]);         \
			else                                                                      \
				for (int u = 0; u < nr; u++, r += du)                             \
					for (int v = 0; v < nv; v++)                              \
						acc = SOP(acc, r[v * dv]);                        \
			yo[c] = SFIN(acc, scale);                                                 \
		}                                                                                 \
	}
/* n interior output pixels of one row, the first window at q, the next
 * step floats on, outputs cc floats apart from yo. A window 3 taps wide at
 * stride 1 (dv = step = cc) is separable: each input column's reduction
 * down the nr rows serves three outputs, kept in registers as the row is
 * walked (3 loads and 4 operations per output instead of 9 and 8 for 3x3);
 * at stride 2 an output's last column is the next one's first (6 loads
 * instead of 9). Wide channel counts (HWC) take the row in parts whose
 * input fits in L1, each part once per vector of channels. Other windows
 * run one by one. */
#define RT_POOL_CL_ROW_(SUF, ATTR, V, VL, LOAD, STORE, SET1, OP, INIT, FIN, NAME)               \
	static inline ATTR void rt_pool_cl_##NAME##_row_##SUF(int cc, const float *q, int nr,     \
	                                                      size_t du, int nv, size_t dv,       \
	                                                      size_t step, int n, float scale,    \
	                                                      float *yo)                          \
	{                                                                                         \
		const V vs = SET1(scale);                                                         \
		const int s1 = step == (size_t)cc, s2 = step == 2 * (size_t)cc;                   \
		(void)vs;                                                                         \
		if (nv == 3 && nr > 0 && dv == (size_t)cc && (s1 || s2) && cc % VL == 0) {        \
			/* outputs per pass over the channels: the rows they read fit in L1 */  \
			int jb = (int)(4096 / ((size_t)nr * step));                               \
			if (jb < 4)                                                               \
				jb = 4;                                                           \
			for (int j0 = 0; j0 < n; j0 += jb) {                                      \
				const int m = n - j0 < jb ? n - j0 : jb;                          \
				for (int c = 0; c < cc; c += VL) {                                \
					const float *r = q + j0 * step + c;                       \
					float *o = yo + (size_t)j0 * cc + c;                      \
					V a = LOAD(r), b = LOAD(r + cc);                          \
					for (int u = 1; u < nr; u++) {                            \
						a = OP(a, LOAD(r + u * du));                      \
						b = OP(b, LOAD(r + u * du + cc));                 \
					}                                                         \
					for (int j = 0; j < m; j++, r += step, o += cc) {         \
						V t = LOAD(r + 2 * (size_t)cc);                   \
						for (int u = 1; u < nr; u++)                      \
							t = OP(t, LOAD(r + u * du + 2 * (size_t)cc)); \
						STORE(o, FIN(OP(OP(a, b), t), vs));               \
						if (s1) {                                         \
							a = b;                                    \
							b = t;                                    \
						} else if (j + 1 < m) {                           \
							a = t;                                    \
							b = LOAD(r + 3 * (size_t)cc);             \
							for (int u = 1; u < nr; u++)              \
								b = OP(b, LOAD(r + u * du + 3 * (size_t)cc)); \
						}                                                 \
					}                                                         \
				}                                                                 \
			}                                                                         \
			return;                                                                   \
		}                                                                                 \
		for (int j = 0; j < n; j++)                                                       \
			rt_pool_cl_##NAME##_##SUF(cc, q + j * step, nr, du, nv, dv, scale,        \
			                          yo + (size_t)j * cc);                           \
	}
/* A whole output row of a 3-wide max window at stride 1 or 2 (dilation 1),
 * border columns included: an input column outside [0, W) (the pads, the
 * ceil_mode overhang) reduces to -inf, so the border outputs take the same
 * separable loop as the interior ones and a row has no per-column window
 * set-up. Each input column is reduced down the nr rows once (xr: the
 * first valid row, [W][cc]); the outputs then keep the last column or two
 * in registers (rt_pool_cl_max_row_*'s scheme). c0: the input column under
 * output 0's first tap (-padL). Taken where a block is whole vectors, not by
 * the plain C code (VL 1): its column-by-column bounds tests made GoogLeNet's
 * pools 10-30% slower there than the interior/border split. */
#define RT_POOL_CL_MAX3_(SUF, ATTR, V, VL, LOAD, STORE, SET1, MAX)                               \
	static inline ATTR V rt_pool_cl_max3_col_##SUF(const float *xr, int col, int W, int nr,   \
	                                               size_t du, int cc)                         \
	{                                                                                         \
		if (col < 0 || col >= W)                                                          \
			return SET1(-INFINITY);                                                   \
		const float *r = xr + (size_t)col * cc;                                           \
		V a = LOAD(r);                                                                    \
		for (int u = 1; u < nr; u++)                                                      \
			a = MAX(a, LOAD(r + u * du));                                             \
		return a;                                                                         \
	}                                                                                         \
	static inline ATTR void rt_pool_cl_max3_##SUF(int cc, const float *xr, int nr, size_t du, \
	                                              int W, int c0, int s, int n, float *yo)    \
	{                                                                                         \
		for (int c = 0; c < cc; c += VL) {                                                \
			const float *x = xr + c;                                                  \
			float *o = yo + c;                                                        \
			V a = rt_pool_cl_max3_col_##SUF(x, c0, W, nr, du, cc);                    \
			if (s == 1) {                                                             \
				V b = rt_pool_cl_max3_col_##SUF(x, c0 + 1, W, nr, du, cc);        \
				for (int j = 0; j < n; j++, o += cc) {                            \
					const V t = rt_pool_cl_max3_col_##SUF(x, c0 + j + 2, W, nr, du, cc); \
					STORE(o, MAX(MAX(a, b), t));                              \
					a = b;                                                    \
					b = t;                                                    \
				}                                                                 \
			} else {                                                                  \
				for (int j = 0; j < n; j++, o += cc) {                            \
					const V b = rt_pool_cl_max3_col_##SUF(x, c0 + 2 * j + 1, W, nr, du, cc); \
					const V t = rt_pool_cl_max3_col_##SUF(x, c0 + 2 * j + 2, W, nr, du, cc); \
					STORE(o, MAX(MAX(a, b), t));                              \
					a = t;                                                    \
				}                                                                 \
			}                                                                         \
		}                                                                                 \
	}
#define RT_POOL_CL_KEEP_(a, s) ((void)(s), (a))
#define RT_POOL_CL_SMAX_(a, t) ((t) > (a) ? (t) : (a))
#define RT_POOL_CL_SADD_(a, t) ((a) + (t))
#define RT_POOL_CL_SMUL_(a, s) ((a) * (s))

/* CHW (block 1): one output row of a channel at a time, in chunks of at most
 * RT_POOL_CHW_BUF_ input columns. The nr valid window rows are reduced down
 * into buf, contiguous along W, so that runs in vectors at any stride, with
 * INIT (the empty window's value) in the columns outside [0, W); then each
 * output reduces its kW taps across buf: in vectors of VL outputs at stride
 * 1, scalar otherwise. Max needs nothing else (pads and the ceil_mode
 * overhang hold -inf); averages then redo the divisor of the border columns.
 * Sums run down, then across (not the textbook's order: within 1e-6).
 * buf is 512 bytes of stack: small enough for a Cortex-M's default 1 KiB. */
#define RT_POOL_CHW_BUF_ 128
#define RT_POOL_CHW_(SUF, ATTR, V, VL, LOAD, STORE, SET1, OP, INIT, FIN, SOP, SFIN, AVG, NAME)  \
	static inline ATTR void rt_pool_chw_##NAME##_##SUF(const struct rt_pool2d *p,             \
	                                                   const float *x, float *y, int begin,   \
	                                                   int end)                               \
	{                                                                                         \
		float buf[RT_POOL_CHW_BUF_];                                                      \
		const int span = (p->kW - 1) * p->dW + 1;  /* input columns of one window */     \
		const int per = (RT_POOL_CHW_BUF_ - span) / p->sW + 1; /* outputs per chunk */  \
		const size_t du = (size_t)p->dH * p->W;                                           \
		int jl, jr;                                                                       \
		rt_pool_cl_interior(p, &jl, &jr);                                                 \
		for (int k = begin; k < end; k++) {                                               \
			const size_t b = (size_t)(k / p->oH);                                     \
			const int i = k % p->oH;                                                  \
			const float *xp = x + b * p->H * p->W; /* [H][W] */                       \
			float *yo = y + (b * p->oH + i) * p->oW; /* [oW] */                       \
			int u0, u1, ph;                                                           \
			rt_pool_cl_taps(i, p->sH, p->padT, p->padB, p->dH, p->kH, p->H, &u0, &u1, &ph); \
			const int nr = u1 > u0 ? u1 - u0 : 0;                                     \
			const float *xr = nr ? xp + (size_t)(i * p->sH - p->padT + u0 * p->dH) * p->W \
			                     : xp;                                                \
			const float inner = p->count_include_pad ? (float)(ph * p->kW) : (float)(nr * p->kW); \
			const float scale = inner > 0 ? 1.0f / inner : 0.0f;                      \
			const V vs = SET1(scale);                                                 \
			(void)vs;                                                                 \
			if (span > RT_POOL_CHW_BUF_) { /* a window wider than buf: no chunks */  \
				for (int j = 0; j < p->oW; j++) {                                 \
					int v0, v1, pw;                                           \
					rt_pool_cl_taps(j, p->sW, p->padL, p->padR, p->dW, p->kW, \
					                p->W, &v0, &v1, &pw);                     \
					const ptrdiff_t c = (ptrdiff_t)j * p->sW - p->padL;       \
					float a = INIT;                                           \
					for (int u = 0; u < nr; u++)                              \
						for (int v = v0; v < v1; v++)                     \
							a = SOP(a, xr[(ptrdiff_t)(u * du) + c +   \
							              (ptrdiff_t)v * p->dW]);    \
					const int cnt = p->count_include_pad ? ph * pw            \
					                : v1 > v0 ? nr * (v1 - v0) : 0;           \
					yo[j] = SFIN(a, cnt > 0 ? 1.0f / (float)cnt : 0.0f);      \
				}                                                                 \
				continue;                                                         \
			}                                                                         \
			for (int j0 = 0; j0 < p->oW; j0 += per) {                                 \
				const int n = p->oW - j0 < per ? p->oW - j0 : per;                \
				const int c0 = j0 * p->sW - p->padL; /* input column of buf[0] */ \
				const int len = (n - 1) * p->sW + span;                           \
				int t = 0, te = nr ? p->W - c0 : 0; /* buf[t], t < te: inside */  \
				if (te > len)                                                     \
					te = len;                                                 \
				for (; t < len && (c0 + t < 0 || t >= te); t++)                   \
					buf[t] = INIT;                                            \
				for (; t + VL <= te; t += VL) {                                   \
					const float *r = xr + c0 + t;                             \
					V a = LOAD(r);                                            \
					for (int u = 1; u < nr; u++)                              \
						a = OP(a, LOAD(r + u * du));                      \
					STORE(buf + t, a);                                        \
				}                                                                 \
				for (; t < te; t++) {                                             \
					const float *r = xr + c0 + t;                             \
					float a = r[0];                                           \
					for (int u = 1; u < nr; u++)                              \
						a = SOP(a, r[u * du]);                            \
					buf[t] = a;                                               \
				}                                                                 \
				for (; t < len; t++)                                              \
					buf[t] = INIT;                                            \
				int j = 0;                                                        \
				if (p->sW == 1)                                                   \
					for (; j + VL <= n; j += VL) {                            \
						V a = LOAD(buf + j);                              \
						for (int v = 1; v < p->kW; v++)                   \
							a = OP(a, LOAD(buf + j + v * p->dW));     \
						STORE(yo + j0 + j, FIN(a, vs));                   \
					}                                                         \
				for (; j < n; j++) {                                              \
					const float *r = buf + j * p->sW;                         \
					float a = r[0];                                           \
					for (int v = 1; v < p->kW; v++)                           \
						a = SOP(a, r[v * p->dW]);                         \
					float s = scale;                                          \
					if (AVG && (j0 + j < jl || j0 + j >= jr)) {               \
						int v0, v1, pw;                                   \
						rt_pool_cl_taps(j0 + j, p->sW, p->padL, p->padR, p->dW, \
						                p->kW, p->W, &v0, &v1, &pw);      \
						const int cnt = p->count_include_pad ? ph * pw     \
						                : v1 > v0 ? nr * (v1 - v0) : 0;   \
						s = cnt > 0 ? 1.0f / (float)cnt : 0.0f;           \
					}                                                         \
					yo[j0 + j] = SFIN(a, s);                                  \
				}                                                                 \
				/* vectors took the border columns at the inner divisor */        \
				for (j = 0; AVG && p->sW == 1 && j < n - n % VL; j++) {           \
					if (j0 + j >= jl && j0 + j < jr)                          \
						continue;                                         \
					const float *r = buf + j;                                 \
					float a = r[0];                                           \
					for (int v = 1; v < p->kW; v++)                           \
						a = SOP(a, r[v * p->dW]);                         \
					int v0, v1, pw;                                           \
					rt_pool_cl_taps(j0 + j, 1, p->padL, p->padR, p->dW, p->kW, p->W, \
					                &v0, &v1, &pw);                           \
					const int cnt = p->count_include_pad ? ph * pw                \
					                : v1 > v0 ? nr * (v1 - v0) : 0;           \
					yo[j0 + j] = SFIN(a, cnt > 0 ? 1.0f / (float)cnt : 0.0f); \
				}                                                                 \
			}                                                                         \
		}                                                                                 \
	}

/* Items [begin, end) of rt_pool2d_cl: item k is output row k % oH of block
 * k / oH (all images' blocks in a row). */
#define RT_POOL_CL_(SUF, ATTR, V, VL, ZERO, LOAD, STORE, SET1, ADD, SUB, MUL, MAX, MIN)          \
	RT_POOL_CL_WIN_(SUF, ATTR, V, VL, LOAD, STORE, SET1, MAX, -INFINITY, RT_POOL_CL_KEEP_,   \
	                RT_POOL_CL_SMAX_, RT_POOL_CL_KEEP_, max)                                 \
	RT_POOL_CL_WIN_(SUF, ATTR, V, VL, LOAD, STORE, SET1, ADD, 0.0f, MUL, RT_POOL_CL_SADD_,   \
	                RT_POOL_CL_SMUL_, avg)                                                   \
	RT_POOL_CL_ROW_(SUF, ATTR, V, VL, LOAD, STORE, SET1, MAX, -INFINITY, RT_POOL_CL_KEEP_, max) \
	RT_POOL_CL_ROW_(SUF, ATTR, V, VL, LOAD, STORE, SET1, ADD, 0.0f, MUL, avg)                \
	RT_POOL_CL_MAX3_(SUF, ATTR, V, VL, LOAD, STORE, SET1, MAX)                              \
	RT_POOL_CHW_(SUF, ATTR, V, VL, LOAD, STORE, SET1, MAX, -INFINITY, RT_POOL_CL_KEEP_,      \
	             RT_POOL_CL_SMAX_, RT_POOL_CL_KEEP_, 0, max)                                 \
	RT_POOL_CHW_(SUF, ATTR, V, VL, LOAD, STORE, SET1, ADD, 0.0f, MUL, RT_POOL_CL_SADD_,      \
	             RT_POOL_CL_SMUL_, 1, avg)                                                   \
	static inline ATTR void rt_pool_cl_##SUF(const struct rt_pool2d *p, int avg, int cc,      \
	                                         const float *x, float *y, int begin, int end)   \
	{                                                                                         \
		const size_t xb = (size_t)p->H * p->W * cc, yb = (size_t)p->oH * p->oW * cc;      \
		const size_t dv = (size_t)p->dW * cc, du = (size_t)p->dH * p->W * cc;             \
		int jl, jr;                                                                       \
		rt_pool_cl_interior(p, &jl, &jr);                                                 \
		/* 3-wide max windows in blocks of whole vectors: one loop a row */               \
		const int max3 = !avg && p->kW == 3 && p->dW == 1 && (p->sW == 1 || p->sW == 2) &&   \
		                 VL > 1 && cc % VL == 0 && cc <= 16;                                \
		for (int k = begin; k < end; k++) {                                               \
			const size_t b = (size_t)(k / p->oH);                                     \
			const int i = k % p->oH;                                                  \
			const float *xp = x + b * xb; /* [H][W][cc] */                            \
			float *yo = y + b * yb + (size_t)i * p->oW * cc; /* [oW][cc] */           \
			int u0, u1, ph;                                                           \
			rt_pool_cl_taps(i, p->sH, p->padT, p->padB, p->dH, p->kH, p->H, &u0, &u1, &ph); \
			const int nr = u1 > u0 ? u1 - u0 : 0;                                     \
			/* [W][cc]: the first valid window row */                                 \
			const float *xr = nr ? xp + (size_t)(i * p->sH - p->padT + u0 * p->dH) * p->W * cc \
			                     : xp;                                                \
			const float inner = p->count_include_pad ? (float)(ph * p->kW) : (float)(nr * p->kW); \
			const float inner_scale = inner > 0 ? 1.0f / inner : 0.0f;                \
			if (max3 && nr) {                                                         \
				rt_pool_cl_max3_##SUF(cc, xr, nr, du, p->W, -p->padL, p->sW, p->oW, yo); \
				continue;                                                         \
			}                                                                         \
			for (int j = 0; j < p->oW; j++, yo += cc) {                               \
				if (j == jl && jr > jl && nr) {                                   \
					const float *q = xr + (size_t)(j * p->sW - p->padL) * cc; \
					const size_t step = (size_t)p->sW * cc;                   \
					if (avg)                                                  \
						rt_pool_cl_avg_row_##SUF(cc, q, nr, du, p->kW, dv, step, \
						                         jr - jl, inner_scale, yo); \
					else                                                      \
						rt_pool_cl_max_row_##SUF(cc, q, nr, du, p->kW, dv, step, \
						                         jr - jl, inner_scale, yo); \
					yo += (size_t)(jr - jl - 1) * cc;                         \
					j = jr - 1;                                               \
					continue;                                                 \
				}                                                                 \
				int v0 = 0, v1 = p->kW, pw = p->kW;                               \
				float scale = inner_scale;                                        \
				if (j < jl || j >= jr) {                                          \
					rt_pool_cl_taps(j, p->sW, p->padL, p->padR, p->dW, p->kW, \
					                p->W, &v0, &v1, &pw);                     \
					if (v1 < v0)                                              \
						v1 = v0;                                          \
					const int count = p->count_include_pad ? ph * pw : nr * (v1 - v0); \
					scale = count > 0 ? 1.0f / (float)count : 0.0f;           \
				}                                                                 \
				const int nv = v1 - v0;                                           \
				const float *q = xr;                                              \
				if (nr && nv)                                                     \
					q += (size_t)(j * p->sW - p->padL + v0 * p->dW) * cc;     \
				if (avg)                                                          \
					rt_pool_cl_avg_##SUF(cc, q, nv ? nr : 0, du, nv, dv, scale, yo); \
				else                                                              \
					rt_pool_cl_max_##SUF(cc, q, nv ? nr : 0, du, nv, dv, scale, yo); \
			}                                                                         \
		}                                                                                 \
	}

/* Interior output columns [*jl, *jr): every tap j*sW - padL + v*dW, v < kW,
 * inside [0, W) (*jl = *jr when there is none). */
static inline void rt_pool_cl_interior(const struct rt_pool2d *p, int *jl, int *jr)
{
	const int last = p->W - 1 + p->padL - (p->kW - 1) * p->dW; /* j * sW <= last */
	*jl = (p->padL + p->sW - 1) / p->sW;
	*jr = last < 0 ? 0 : last / p->sW + 1;
	if (*jl > p->oW)
		*jl = p->oW;
	if (*jr > p->oW)
		*jr = p->oW;
	if (*jr < *jl)
		*jr = *jl;
}

RT_SIMD_EACH(RT_POOL_CL_)
struct rt_pool_cl_job_ {
	const struct rt_pool2d *p;
	int isa, avg, cc;
	const float *x;
	float *y;
};

/* Items [begin, end): item k is output row k % oH of block k / oH. */
static void rt_pool_cl_items_(void *ctx, int begin, int end)
{
	const struct rt_pool_cl_job_ *j = ctx;
#define RT_POOL_CL_RUN_(SUF)                                                                    \
	(j->cc == 1 ? (j->avg ? rt_pool_chw_avg_##SUF : rt_pool_chw_max_##SUF)(j->p, j->x, j->y,  \
	                                                                       begin, end)        \
	            : rt_pool_cl_##SUF(j->p, j->avg, j->cc, j->x, j->y, begin, end))
	switch (j->isa) {
#if RT_SIMD_HAVE_AVX512
	case RT_SGEMM_ISA_AVX512: RT_POOL_CL_RUN_(avx512); break;
#endif
#if RT_SIMD_HAVE_AVX2
	case RT_SGEMM_ISA_AVX2: RT_POOL_CL_RUN_(avx2); break;
#endif
#if RT_SIMD_HAVE_NEON
	case RT_SGEMM_ISA_NEON: RT_POOL_CL_RUN_(neon); break;
#endif
	default:
#if RT_SIMD_HAVE_C
		RT_POOL_CL_RUN_(c);
#endif
		break;
	}
#undef RT_POOL_CL_RUN_
}

RT_FN void rt_pool2d_cl(const struct rt_pool2d *p,
                        int isa,    /* RT_SGEMM_ISA_* to run (generated code: its own) */
                        int block,  /* layout of x and y: 0 HWC, 8 CHW8c, 16 CHW16c, 1 CHW */
                        int avg,    /* 1: AveragePool; 0: MaxPool */
                        const float *x, /* [N] images [H][W][C] or [ceil(C/b)][H][W][b] */
                        float *y)       /* out: [N] images [oH][oW][C] or [ceil(C/b)][oH][oW][b] */
{
	const int nblk = block ? (p->C + block - 1) / block : 1, cc = block ? block : p->C;
	/* CHW: vectors along rows, 16 wide where rows fill two */
	const int lanes = block == 1 ? (p->W >= 32 ? 16 : 8) : cc;
	struct rt_pool_cl_job_ j = {p, rt_simd_isa(isa, lanes), avg, cc, x, y};
	const int items = p->N * nblk * p->oH;
	/* threads take whole output rows of a block: the same arithmetic for
	 * every element whoever computes it. The kernels run near memory speed,
	 * about 0.1 ns per float read or written on one Xeon core (bench/pools),
	 * some 8 multiply-adds of RT_PARALLEL_MIN_WORK's */
	const double floats = (double)p->N * nblk * cc * ((double)p->H * p->W + (double)p->oH * p->oW);
	if (8.0 * floats < RT_PARALLEL_MIN_WORK)
		rt_pool_cl_items_(&j, 0, items);
	else
		rt_parallel(rt_pool_cl_items_, &j, items);
}
