/* eltwise.c - element-wise Add, Sub, Mul, Max and Min of two tensors of one
 * shape (ONNX Add and siblings without broadcasting), vectorised over the
 * SIMD layer (rt_simd.h). Textbook form: rt_binary (binary.c) with equal
 * strides. Both operands and y are in one layout, whichever it is (the
 * element order does not matter), so n counts the floats of that layout: a
 * blocked layout's zero channels give zero under every op here. */
#include "runtime/rt_types.h"
#include "runtime/rt_simd.h"

#define RT_ELTWISE_LOOP_(V, VL, LOAD, STORE, OPV, OPS)                                           \
	for (; i < n - n % VL; i += VL) /* not i + VL <= n: rt_simd.h */                         \
		STORE(y + i, OPV(LOAD(a + i), LOAD(b + i)));                                     \
	for (; i < n; i++)                                                                       \
		y[i] = OPS(a[i], b[i]);

#define RT_ELTWISE_ADD_(p, q) ((p) + (q))
#define RT_ELTWISE_SUB_(p, q) ((p) - (q))
#define RT_ELTWISE_MUL_(p, q) ((p) * (q))
#define RT_ELTWISE_MAX_(p, q) ((p) > (q) ? (p) : (q))
#define RT_ELTWISE_MIN_(p, q) ((p) < (q) ? (p) : (q))

#define RT_ELTWISE_(SUF, ATTR, V, VL, ZERO, LOAD, STORE, SET1, ADD, SUB, MUL, MAX, MIN)          \
	static inline ATTR void rt_eltwise_##SUF(int op, size_t n, const float *a, const float *b, \
	                                         float *y)                                        \
	{                                                                                         \
		size_t i = 0;                                                                     \
		switch (op) {                                                                     \
		case RT_ADD: RT_ELTWISE_LOOP_(V, VL, LOAD, STORE, ADD, RT_ELTWISE_ADD_) break;    \
		case RT_SUB: RT_ELTWISE_LOOP_(V, VL, LOAD, STORE, SUB, RT_ELTWISE_SUB_) break;    \
		case RT_MUL: RT_ELTWISE_LOOP_(V, VL, LOAD, STORE, MUL, RT_ELTWISE_MUL_) break;    \
		case RT_MAX: RT_ELTWISE_LOOP_(V, VL, LOAD, STORE, MAX, RT_ELTWISE_MAX_) break;    \
		default: RT_ELTWISE_LOOP_(V, VL, LOAD, STORE, MIN, RT_ELTWISE_MIN_) break;        \
		}                                                                                 \
	}

RT_SIMD_EACH(RT_ELTWISE_)

RT_FN void rt_eltwise(int op,   /* RT_ADD, RT_SUB, RT_MUL, RT_MAX or RT_MIN */
                      int isa,  /* RT_SGEMM_ISA_* to run (generated code: its own) */
                      size_t n, /* floats of each operand */
                      const float *a, const float *b, /* [n] each */
                      float *y)                       /* out: [n]; may be a or b */
{
	switch (rt_simd_isa(isa, 16)) {
#if RT_SIMD_HAVE_AVX512
	case RT_SGEMM_ISA_AVX512: rt_eltwise_avx512(op, n, a, b, y); break;
#endif
#if RT_SIMD_HAVE_AVX2
	case RT_SGEMM_ISA_AVX2: rt_eltwise_avx2(op, n, a, b, y); break;
#endif
#if RT_SIMD_HAVE_NEON
	case RT_SGEMM_ISA_NEON: rt_eltwise_neon(op, n, a, b, y); break;
#endif
	default:
#if RT_SIMD_HAVE_C
		rt_eltwise_c(op, n, a, b, y);
#endif
		break;
	}
}
