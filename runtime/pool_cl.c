/* pool_cl.c - 2-D max and average pooling (ONNX MaxPool, AveragePool) on
 * the channel-innermost layouts: HWC and the blocked CHW8c / CHW16c.
 *
 * Textbook form: rt_maxpool2d (maxpool.c) and rt_avgpool2d (avgpool.c) on
 * CHW; the window, its pads, dilation, the ceil_mode overhang and the
 * count_include_pad divisor are exactly theirs. Here every layout is seen as
 * nblk blocks of cc channels, each block [H][W][cc]:
 *   HWC      one block, cc = C
 *   CHW8c    ceil(C/8) blocks, cc = 8 (channels past C are zero, and stay
 *            zero: the max or mean of zeros)
 *   CHW16c   ceil(C/16) blocks, cc = 16
 * so a window tap is cc contiguous floats and the loop runs down the
 * channels one SIMD vector at a time (rt_simd.h), the window's bounds worked
 * out once per output pixel, the rest of cc in scalar code. Averages
 * multiply by the reciprocal of the count (within an ulp of the division). */
#include "runtime/rt_types.h"
#include "runtime/rt_simd.h"

/* Valid window taps of output row (or column) i: u in [*u0, *u1) with the
 * input index inside [0, n); with dilation the taps between may be any. The
 * count inside the padded input [-pad0, n + pad1) goes to *padded. */
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

#define RT_POOL_CL_(SUF, ATTR, V, VL, ZERO, LOAD, STORE, SET1, ADD, SUB, MUL, MAX, MIN)          \
	static inline ATTR void rt_pool_cl_##SUF(const struct rt_pool2d *p, int avg, int cc,      \
	                                         const float *x, float *y, int begin, int end)   \
	{                                                                                         \
		const size_t xb = (size_t)p->H * p->W * cc, yb = (size_t)p->oH * p->oW * cc;      \
		for (int k = begin; k < end; k++) {                                               \
			const size_t b = (size_t)(k / p->oH);                                     \
			const float *xp = x + b * xb; /* [H][W][cc] */                            \
			float *yp = y + b * yb;       /* [oH][oW][cc] */                          \
			{                                                                         \
				const int i = k % p->oH;                                          \
				int u0, u1, ph;                                                   \
				rt_pool_cl_taps(i, p->sH, p->padT, p->padB, p->dH, p->kH, p->H,  \
				                &u0, &u1, &ph);                                   \
				for (int j = 0; j < p->oW; j++) {                                 \
					int v0, v1, pw;                                           \
					rt_pool_cl_taps(j, p->sW, p->padL, p->padR, p->dW, p->kW, \
					                p->W, &v0, &v1, &pw);                     \
					int count = 0;                                            \
					for (int u = u0; u < u1; u++)                             \
						for (int v = v0; v < v1; v++) {                   \
							const int ih = i * p->sH - p->padT + u * p->dH; \
							const int iw = j * p->sW - p->padL + v * p->dW; \
							count += ih >= 0 && ih < p->H && iw >= 0 && iw < p->W; \
						}                                                 \
					if (p->count_include_pad)                                 \
						count = ph * pw;                                  \
					const float scale = count > 0 ? 1.0f / (float)count : 0.0f; \
					float *yo = yp + ((size_t)i * p->oW + j) * cc;            \
					int c = 0;                                                \
					for (; c + VL <= cc; c += VL) {                           \
						V acc = avg ? ZERO : SET1(-INFINITY);             \
						for (int u = u0; u < u1; u++) {                   \
							const int ih = i * p->sH - p->padT + u * p->dH; \
							if (ih < 0 || ih >= p->H)                 \
								continue;                         \
							for (int v = v0; v < v1; v++) {           \
								const int iw = j * p->sW - p->padL + v * p->dW; \
								if (iw < 0 || iw >= p->W)         \
									continue;                 \
								const V t = LOAD(xp + ((size_t)ih * p->W + iw) * cc + c); \
								acc = avg ? ADD(acc, t) : MAX(acc, t); \
							}                                         \
						}                                                 \
						STORE(yo + c, avg ? MUL(acc, SET1(scale)) : acc); \
					}                                                         \
					for (; c < cc; c++) {                                     \
						float acc = avg ? 0.0f : -INFINITY;               \
						for (int u = u0; u < u1; u++) {                   \
							const int ih = i * p->sH - p->padT + u * p->dH; \
							if (ih < 0 || ih >= p->H)                 \
								continue;                         \
							for (int v = v0; v < v1; v++) {           \
								const int iw = j * p->sW - p->padL + v * p->dW; \
								if (iw < 0 || iw >= p->W)         \
									continue;                 \
								const float t = xp[((size_t)ih * p->W + iw) * cc + c]; \
								acc = avg ? acc + t : (t > acc ? t : acc); \
							}                                         \
						}                                                 \
						yo[c] = avg ? acc * scale : acc;                  \
					}                                                         \
				}                                                                 \
			}                                                                         \
		}                                                                                 \
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
	switch (j->isa) {
#if RT_SIMD_HAVE_AVX512
	case RT_SGEMM_ISA_AVX512: rt_pool_cl_avx512(j->p, j->avg, j->cc, j->x, j->y, begin, end); break;
#endif
#if RT_SIMD_HAVE_AVX2
	case RT_SGEMM_ISA_AVX2: rt_pool_cl_avx2(j->p, j->avg, j->cc, j->x, j->y, begin, end); break;
#endif
#if RT_SIMD_HAVE_NEON
	case RT_SGEMM_ISA_NEON: rt_pool_cl_neon(j->p, j->avg, j->cc, j->x, j->y, begin, end); break;
#endif
	default:
#if RT_SIMD_HAVE_C
		rt_pool_cl_c(j->p, j->avg, j->cc, j->x, j->y, begin, end);
#endif
		break;
	}
}

RT_FN void rt_pool2d_cl(const struct rt_pool2d *p,
                        int isa,    /* RT_SGEMM_ISA_* to run (generated code: its own) */
                        int block,  /* layout of x and y: 0 HWC, 8 CHW8c, 16 CHW16c */
                        int avg,    /* 1: AveragePool; 0: MaxPool */
                        const float *x, /* [N] images [H][W][C] or [C/b][H][W][b] */
                        float *y)       /* out: [N] images [oH][oW][C] or [C/b][oH][oW][b] */
{
	const int nblk = block ? (p->C + block - 1) / block : 1, cc = block ? block : p->C;
	struct rt_pool_cl_job_ j = {p, rt_simd_isa(isa, cc), avg, cc, x, y};
	const int items = p->N * nblk * p->oH;
	/* threads take whole output rows of a block: the same arithmetic for
	 * every element whoever computes it */
	if (4.0 * p->N * nblk * cc * p->oH * p->oW * p->kH * p->kW < RT_PARALLEL_MIN_WORK)
		rt_pool_cl_items_(&j, 0, items);
	else
		rt_parallel(rt_pool_cl_items_, &j, items);
}
