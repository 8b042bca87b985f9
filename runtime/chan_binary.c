/* chan_binary.c - ONNX Add, Sub, Mul, Max, Min and PRelu of an image x
 * [N, C, H, W] and a per-channel operand p broadcast over it (a [C, 1, 1] or
 * [1, C, 1, 1] constant: BatchNormalization lowered to Mul + Add by
 * passes/canonicalize.c, a bias or scale; [N, C, 1, 1]: a squeeze-and-excite
 * gate; a single value), vectorised over the SIMD layer (rt_simd.h), in
 * every layout the convolutions leave an image in:
 *   y[n, c, h, w] = op(x[n, c, h, w], p[n * sn + c * sc])
 * Textbook form: rt_binary (binary.c) with p's strides 0 over H and W.
 *   CHW      channel-outer: one value of p per row of H*W floats, SET1 and
 *            the SIMD loop down the row
 *   HWC      channel-innermost: per pixel, C floats against p's C values
 *   CHW8c    ceil(C/8) blocks [H][W][8]; channels past C are zero and stay
 *   CHW16c   zero: op(0, 0) is 0 for every op here
 * PRelu is max(x, 0) + p * min(x, 0), equal to x < 0 ? p x : x (act_vec.c). */
#include "runtime/rt_types.h"
#include "runtime/rt_simd.h"

#define RT_CHAN_ADD_(a, b) ((a) + (b))
#define RT_CHAN_SUB_(a, b) ((a) - (b))
#define RT_CHAN_MUL_(a, b) ((a) * (b))
#define RT_CHAN_MAX_(a, b) ((a) > (b) ? (a) : (b))
#define RT_CHAN_MIN_(a, b) ((a) < (b) ? (a) : (b))
#define RT_CHAN_PRELU_(a, b) ((a) < 0.0f ? (b) * (a) : (a))

/* One op over the layout: CHW rows of HW floats against SET1(p value), or
 * channel-innermost blocks of cc channels against cc values of p. */
#define RT_CHAN_LOOP_(V, VL, LOAD, STORE, SET1, OPV, OPS)                                        \
	if (block < 0) {                                                                         \
		for (int n = 0; n < N; n++)                                                      \
			for (int c = 0; c < C; c++) {                                            \
				const float s = p[(size_t)n * sn + (size_t)c * sc];              \
				const V pv = SET1(s);                                            \
				const float *xr = x + ((size_t)n * C + c) * HW; /* [HW] */        \
				float *yr = y + ((size_t)n * C + c) * HW;                        \
				size_t k = 0;                                                    \
				for (; k < HW - HW % VL; k += VL) /* rt_simd.h */                \
					STORE(yr + k, OPV(LOAD(xr + k), pv));                    \
				for (; k < HW; k++)                                              \
					yr[k] = OPS(xr[k], s);                                   \
			}                                                                        \
	} else {                                                                                 \
		const int cc = block ? block : C, nblk = block ? (C + block - 1) / block : 1;    \
		for (int n = 0; n < N; n++)                                                      \
			for (int b = 0; b < nblk; b++) {                                         \
				const int live = C - b * cc < cc ? C - b * cc : cc;              \
				const float *pb = p + (size_t)n * sn + (size_t)b * cc * sc;      \
				const size_t o = ((size_t)n * nblk + b) * HW * cc;               \
				const int vec = live / VL * VL; /* past C: scalar, p 0 */         \
				for (size_t k = 0; k < HW; k++) {                                \
					const float *xr = x + o + k * cc; /* [cc] */             \
					float *yr = y + o + k * cc;                              \
					int c = 0;                                               \
					for (; c < vec; c += VL)                                 \
						STORE(yr + c, OPV(LOAD(xr + c),                  \
						                  sc ? LOAD(pb + c) : SET1(pb[0]))); \
					for (; c < cc; c++)                                      \
						yr[c] = OPS(xr[c], c < live ? pb[c * sc] : 0.0f); \
				}                                                                \
			}                                                                        \
	}

#define RT_CHAN_BINARY_(SUF, ATTR, V, VL, ZERO, LOAD, STORE, SET1, ADD, SUB, MUL, MAX, MIN)      \
	static inline ATTR V rt_chan_prelu_##SUF(V t, V s)                                       \
	{                                                                                         \
		const V z = ZERO;                                                                 \
		return ADD(MAX(t, z), MUL(s, MIN(t, z)));                                         \
	}                                                                                         \
	static inline ATTR void rt_chan_binary_##SUF(int op, int block, int N, int C, size_t HW, \
	                                             const float *x, const float *p, int sn,     \
	                                             int sc, float *y)                           \
	{                                                                                         \
		switch (op) {                                                                     \
		case RT_ADD: RT_CHAN_LOOP_(V, VL, LOAD, STORE, SET1, ADD, RT_CHAN_ADD_) break;    \
		case RT_SUB: RT_CHAN_LOOP_(V, VL, LOAD, STORE, SET1, SUB, RT_CHAN_SUB_) break;    \
		case RT_MUL: RT_CHAN_LOOP_(V, VL, LOAD, STORE, SET1, MUL, RT_CHAN_MUL_) break;    \
		case RT_MAX: RT_CHAN_LOOP_(V, VL, LOAD, STORE, SET1, MAX, RT_CHAN_MAX_) break;    \
		case RT_MIN: RT_CHAN_LOOP_(V, VL, LOAD, STORE, SET1, MIN, RT_CHAN_MIN_) break;    \
		default:                                                                          \
			RT_CHAN_LOOP_(V, VL, LOAD, STORE, SET1, rt_chan_prelu_##SUF, RT_CHAN_PRELU_) \
			break;                                                                    \
		}                                                                                 \
	}

RT_SIMD_EACH(RT_CHAN_BINARY_)

RT_FN void rt_chan_binary(int op,    /* RT_ADD, RT_SUB, RT_MUL, RT_MAX, RT_MIN or RT_PRELU */
                          int isa,   /* RT_SGEMM_ISA_* to run (generated code: its own) */
                          int block, /* layout of x and y: -1 CHW, 0 HWC, 8 CHW8c, 16 CHW16c */
                          int N, int C,
                          size_t HW,      /* H * W */
                          const float *x, /* [N] images [C][HW], [HW][C] or [C/b][HW][b] */
                          const float *p, /* the operand: p[n * sn + c * sc] */
                          int sn,         /* p's stride over N (0: one set for all) */
                          int sc,         /* p's stride over C (0: one value) */
                          float *y)       /* out: like x; may equal x */
{
	switch (rt_simd_isa(isa, block > 0 ? block : 16)) {
#if RT_SIMD_HAVE_AVX512
	case RT_SGEMM_ISA_AVX512: rt_chan_binary_avx512(op, block, N, C, HW, x, p, sn, sc, y); break;
#endif
#if RT_SIMD_HAVE_AVX2
	case RT_SGEMM_ISA_AVX2: rt_chan_binary_avx2(op, block, N, C, HW, x, p, sn, sc, y); break;
#endif
#if RT_SIMD_HAVE_NEON
	case RT_SGEMM_ISA_NEON: rt_chan_binary_neon(op, block, N, C, HW, x, p, sn, sc, y); break;
#endif
	default:
#if RT_SIMD_HAVE_C
		rt_chan_binary_c(op, block, N, C, HW, x, p, sn, sc, y);
#endif
		break;
	}
}
