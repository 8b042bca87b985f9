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

#define RT_GPOOL_CL_(SUF, ATTR, V, VL, ZERO, LOAD, STORE, SET1, ADD, SUB, MUL, MAX, MIN)         \
	static inline ATTR void rt_gpool_cl_##SUF(int N, int C, int HW, int avg, int nblk,       \
	                                          int cc, const float *x, float *y)             \
	{                                                                                         \
		float tmp[VL];                                                                    \
		for (int n = 0; n < N; n++)                                                       \
			for (int b = 0; b < nblk; b++) {                                          \
				const float *xb = x + ((size_t)n * nblk + b) * HW * cc; /* [HW][cc] */ \
				float *yb = y + (size_t)n * C + (size_t)b * cc;                   \
				const int live = C - b * cc < cc ? C - b * cc : cc;               \
				int c = 0;                                                        \
				for (; c + VL <= cc && c < live; c += VL) {                       \
					V acc = avg ? ZERO : SET1(-INFINITY);                     \
					for (int k = 0; k < HW; k++) {                            \
						const V t = LOAD(xb + (size_t)k * cc + c);        \
						acc = avg ? ADD(acc, t) : MAX(acc, t);            \
					}                                                         \
					STORE(tmp, acc);                                          \
					for (int q = 0; q < VL && c + q < live; q++)              \
						yb[c + q] = avg ? tmp[q] / (float)HW : tmp[q];    \
				}                                                                 \
				for (; c < live; c++) {                                           \
					float acc = avg ? 0.0f : -INFINITY;                       \
					for (int k = 0; k < HW; k++) {                            \
						const float t = xb[(size_t)k * cc + c];           \
						acc = avg ? acc + t : (t > acc ? t : acc);        \
					}                                                         \
					yb[c] = avg ? acc / (float)HW : acc;                      \
				}                                                                 \
			}                                                                         \
	}

RT_SIMD_EACH(RT_GPOOL_CL_)

RT_FN void rt_global_pool_cl(int N, int C, int HW,
                             int isa,   /* RT_SGEMM_ISA_* to run (generated code: its own) */
                             int block, /* layout of x: 0 HWC, 8 CHW8c, 16 CHW16c */
                             int avg,   /* 1: GlobalAveragePool; 0: GlobalMaxPool */
                             const float *x, /* [N] images [HW][C] or [C/b][HW][b] */
                             float *y)       /* out: [N, C] */
{
	const int nblk = block ? (C + block - 1) / block : 1, cc = block ? block : C;
	switch (rt_simd_isa(isa, cc)) {
#if RT_SIMD_HAVE_AVX512
	case RT_SGEMM_ISA_AVX512: rt_gpool_cl_avx512(N, C, HW, avg, nblk, cc, x, y); break;
#endif
#if RT_SIMD_HAVE_AVX2
	case RT_SGEMM_ISA_AVX2: rt_gpool_cl_avx2(N, C, HW, avg, nblk, cc, x, y); break;
#endif
#if RT_SIMD_HAVE_NEON
	case RT_SGEMM_ISA_NEON: rt_gpool_cl_neon(N, C, HW, avg, nblk, cc, x, y); break;
#endif
	default:
#if RT_SIMD_HAVE_C
		rt_gpool_cl_c(N, C, HW, avg, nblk, cc, x, y);
#endif
		break;
	}
}
