/* act_vec.c - ONNX Relu and LeakyRelu vectorised over the SIMD layer
 * (rt_simd.h); textbook form: rt_unary (unary.c), y[i] = act(x[i]):
 *   Relu       max(x, 0)
 *   LeakyRelu  max(x, 0) + alpha * min(x, 0)  (equal to x >= 0 ? x : alpha x)
 * Element order does not matter, so x and y may be in any layout (n counts
 * the floats of that layout; zero channels stay zero). */
#include "runtime/rt_types.h"
#include "runtime/rt_simd.h"

#define RT_ACT_VEC_(SUF, ATTR, V, VL, ZERO, LOAD, STORE, SET1, ADD, SUB, MUL, MAX, MIN)          \
	static inline ATTR void rt_act_vec_##SUF(int leaky, float alpha, size_t n, const float *x, \
	                                         float *y)                                        \
	{                                                                                         \
		size_t i = 0;                                                                     \
		const V z = ZERO, a = SET1(alpha);                                                \
		const size_t nv = n - n % VL; /* not i + VL <= n: rt_simd.h */                    \
		if (leaky)                                                                        \
			for (; i < nv; i += VL) {                                                 \
				const V t = LOAD(x + i);                                          \
				STORE(y + i, ADD(MAX(t, z), MUL(a, MIN(t, z))));                  \
			}                                                                         \
		else                                                                              \
			for (; i < nv; i += VL)                                                   \
				STORE(y + i, MAX(LOAD(x + i), z));                                \
		for (; i < n; i++)                                                                \
			y[i] = x[i] > 0.0f ? x[i] : leaky ? alpha * x[i] : 0.0f;                  \
	}

RT_SIMD_EACH(RT_ACT_VEC_)

RT_FN void rt_act_vec(int act,     /* RT_ACT_RELU or RT_ACT_LEAKY_RELU */
                      float alpha, /* LeakyRelu's slope */
                      int isa,     /* RT_SGEMM_ISA_* to run (generated code: its own) */
                      size_t n,
                      const float *x, /* [n] */
                      float *y)       /* out: [n]; may equal x */
{
	const int leaky = act == RT_ACT_LEAKY_RELU;
	switch (rt_simd_isa(isa, 16)) {
#if RT_SIMD_HAVE_AVX512
	case RT_SGEMM_ISA_AVX512: rt_act_vec_avx512(leaky, alpha, n, x, y); break;
#endif
#if RT_SIMD_HAVE_AVX2
	case RT_SGEMM_ISA_AVX2: rt_act_vec_avx2(leaky, alpha, n, x, y); break;
#endif
#if RT_SIMD_HAVE_NEON
	case RT_SGEMM_ISA_NEON: rt_act_vec_neon(leaky, alpha, n, x, y); break;
#endif
	default:
#if RT_SIMD_HAVE_C
		rt_act_vec_c(leaky, alpha, n, x, y);
#endif
		break;
	}
}
