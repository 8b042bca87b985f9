/* global_pool_cl.c - ONNX GlobalAveragePool and GlobalMaxPool on the
 * channel-innermost layouts (HWC, CHW8c, CHW16c), writing [N, C]: with one
 * pixel left, the model's layout, so the classifier after it reads it as it
 * is. Textbook form: global_avgpool.c and global_maxpool.c on CHW (the mean
 * accumulates in float, then divides by H*W).
 *
 * As in pool_cl.c, a layout is nblk blocks of cc channels, [HW][cc] each;
 * one SIMD vector of channels (rt_simd.h) accumulates down the pixels, the
 * rest of cc in scalar code, and only channels below C are written. */
#include "runtime/rt_types.h"
#include "runtime/rt_simd.h"

/* Work items are units of 16 channels of one block of one image (every
 * vector length divides 16, so a unit starts on a vector), numbered image by
 * image, block by block; each channel's sum or max runs down the pixels in
 * the same order whatever range of units holds it. */
#define RT_GPOOL_CL_(SUF, ATTR, V, VL, ZERO, LOAD, STORE, SET1, ADD, SUB, MUL, MAX, MIN)         \
	static inline ATTR void rt_gpool_cl_##SUF(int C, int HW, int avg, int nblk, int cc,      \
	                                          const float *x, float *y, int u0, int u1)      \
	{                                                                                         \
		const int upb = (cc + 15) / 16; /* units per block */                            \
		float tmp[VL];                                                                    \
		for (int u = u0; u < u1; u++) {                                                   \
			const int nb = u / upb, n = nb / nblk, b = nb % nblk;                     \
			const float *xb = x + (size_t)nb * HW * cc; /* [HW][cc] */                \
			float *yb = y + (size_t)n * C + (size_t)b * cc;                           \
			const int live = C - b * cc < cc ? C - b * cc : cc;                       \
			int c = u % upb * 16;                                                     \
			const int end = c + 16 < live ? c + 16 : live;                            \
			for (; c + VL <= cc && c < end; c += VL) {                                \
				V acc = avg ? ZERO : SET1(-INFINITY);                             \
				for (int k = 0; k < HW; k++) {                                    \
					const V t = LOAD(xb + (size_t)k * cc + c);                \
					acc = avg ? ADD(acc, t) : MAX(acc, t);                    \
				}                                                                 \
				STORE(tmp, acc);                                                  \
				for (int q = 0; q < VL && c + q < end; q++)                       \
					yb[c + q] = avg ? tmp[q] / (float)HW : tmp[q];            \
			}                                                                         \
			for (; c < end; c++) {                                                    \
				float acc = avg ? 0.0f : -INFINITY;                               \
				for (int k = 0; k < HW; k++) {                                    \
					const float t = xb[(size_t)k * cc + c];                   \
					acc = avg ? acc + t : (t > acc ? t : acc);                \
				}                                                                 \
				yb[c] = avg ? acc / (float)HW : acc;                              \
			}                                                                         \
		}                                                                                 \
	}

RT_SIMD_EACH(RT_GPOOL_CL_)

struct rt_gpool_cl_job_ {
	int C, HW, isa, avg, nblk, cc;
	const float *x;
	float *y;
};

static void rt_gpool_cl_units_(void *ctx, int u0, int u1)
{
	const struct rt_gpool_cl_job_ *j = (const struct rt_gpool_cl_job_ *)ctx;
	switch (j->isa) {
#if RT_SIMD_HAVE_AVX512
	case RT_SGEMM_ISA_AVX512:
		rt_gpool_cl_avx512(j->C, j->HW, j->avg, j->nblk, j->cc, j->x, j->y, u0, u1);
		break;
#endif
#if RT_SIMD_HAVE_AVX2
	case RT_SGEMM_ISA_AVX2:
		rt_gpool_cl_avx2(j->C, j->HW, j->avg, j->nblk, j->cc, j->x, j->y, u0, u1);
		break;
#endif
#if RT_SIMD_HAVE_NEON
	case RT_SGEMM_ISA_NEON:
		rt_gpool_cl_neon(j->C, j->HW, j->avg, j->nblk, j->cc, j->x, j->y, u0, u1);
		break;
#endif
	default:
#if RT_SIMD_HAVE_C
		rt_gpool_cl_c(j->C, j->HW, j->avg, j->nblk, j->cc, j->x, j->y, u0, u1);
#endif
		break;
	}
}

/* Threads take units of 16 channels (rt_parallel) when the input passes
 * RT_PARALLEL_MIN_WORK at RT_PARALLEL_COPY_UNITS an element (it is read once:
 * memory-bound), e.g. SqueezeNet's 1000 x 13 x 13 and ResNet-50's
 * 2048 x 7 x 7 (20 and 10 us on one thread). */
RT_FN void rt_global_pool_cl(int N, int C, int HW,
                             int isa,   /* RT_SGEMM_ISA_* to run (generated code: its own) */
                             int block, /* layout of x: 0 HWC, 8 CHW8c, 16 CHW16c */
                             int avg,   /* 1: GlobalAveragePool; 0: GlobalMaxPool */
                             const float *x, /* [N] images [HW][C] or [C/b][HW][b] */
                             float *y)       /* out: [N, C] */
{
	struct rt_gpool_cl_job_ j;
	j.C = C;
	j.HW = HW;
	j.avg = avg;
	j.nblk = block ? (C + block - 1) / block : 1;
	j.cc = block ? block : C;
	j.isa = rt_simd_isa(isa, j.cc);
	j.x = x;
	j.y = y;
	const int units = N * j.nblk * ((j.cc + 15) / 16);
	if ((double)RT_PARALLEL_COPY_UNITS * N * C * HW < RT_PARALLEL_MIN_WORK)
		rt_gpool_cl_units_(&j, 0, units);
	else
		rt_parallel(rt_gpool_cl_units_, &j, units);
}
