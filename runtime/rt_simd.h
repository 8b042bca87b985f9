/* rt_simd.h - the thin SIMD layer the layout-aware non-convolution kernels
 * are written over (STYLE.md §6): one kernel source, instantiated per ISA.
 *
 * A kernel file defines its loop once as a macro template
 *   #define MY_KERNEL_(SUF, ATTR, V, VL, ZERO, LOAD, STORE, SET1, ADD, SUB, MUL, MAX, MIN)
 * (SUF: name suffix; ATTR: the function attribute enabling the ISA; V: the
 * vector type of VL floats; LOAD/STORE unaligned; SET1 broadcast; the rest
 * lane-wise) and writes RT_SIMD_EACH(MY_KERNEL_) to get rt_..._avx512,
 * _avx2, _neon and _c where this compiler can build them. The C "vector" is
 * one float, so the portable kernel is the same loop, scalar (Cortex-M).
 *
 * Which ISAs exist follows sgemm.h: the library builds every ISA the
 * compiler can; generated code (RT_SGEMM_ISA defined) builds its target's,
 * plus AVX2 under AVX-512 (every AVX-512F CPU has AVX2): 8-channel blocks
 * (CHW8c) run at AVX2 width there. RT_SIMD_HAVE_* say which.
 *
 * A vector loop over a size_t count stops at n - n % VL, not at i + VL <= n:
 * i + VL may wrap for all gcc knows, and when a call passes a constant n
 * (generated code does) gcc 12 at -O2 warns that the scalar tail loop
 * after it "invokes undefined behavior" (-Waggressive-loop-optimizations),
 * which breaks the warning-free build users get (a Relu over 6336 floats
 * did). Loops over int counts do not wrap and keep the plain form. */
#ifndef DNNCC_RT_SIMD_H
#define DNNCC_RT_SIMD_H

#include "runtime/sgemm.h"

#define RT_SIMD_HAVE_AVX512 RT_SGEMM_HAVE_AVX512
#define RT_SIMD_HAVE_AVX2 (RT_SGEMM_HAVE_AVX2 || RT_SGEMM_HAVE_AVX512)
#define RT_SIMD_HAVE_NEON RT_SGEMM_HAVE_NEON
#define RT_SIMD_HAVE_C RT_SGEMM_HAVE_C

#if RT_SIMD_HAVE_AVX512 || RT_SIMD_HAVE_AVX2
#include <immintrin.h>
#endif
#if RT_SIMD_HAVE_NEON
#include <arm_neon.h>
#endif

#if RT_SIMD_HAVE_AVX512
#define RT_SIMD_AVX512_(M)                                                                  \
	M(avx512, __attribute__((target("avx512f"))), __m512, 16, _mm512_setzero_ps(),       \
	  _mm512_loadu_ps, _mm512_storeu_ps, _mm512_set1_ps, _mm512_add_ps, _mm512_sub_ps,    \
	  _mm512_mul_ps, _mm512_max_ps, _mm512_min_ps)
#else
#define RT_SIMD_AVX512_(M)
#endif
#if RT_SIMD_HAVE_AVX2
#define RT_SIMD_AVX2_(M)                                                                    \
	M(avx2, __attribute__((target("avx2"))), __m256, 8, _mm256_setzero_ps(),              \
	  _mm256_loadu_ps, _mm256_storeu_ps, _mm256_set1_ps, _mm256_add_ps, _mm256_sub_ps,    \
	  _mm256_mul_ps, _mm256_max_ps, _mm256_min_ps)
#else
#define RT_SIMD_AVX2_(M)
#endif
#if RT_SIMD_HAVE_NEON
#define RT_SIMD_NEON_(M)                                                                    \
	M(neon, , float32x4_t, 4, vdupq_n_f32(0.0f), vld1q_f32, vst1q_f32, vdupq_n_f32,       \
	  vaddq_f32, vsubq_f32, vmulq_f32, vmaxq_f32, vminq_f32)
#else
#define RT_SIMD_NEON_(M)
#endif
#if RT_SIMD_HAVE_C
#define RT_SIMD_C_LOAD_(q) (*(q))
#define RT_SIMD_C_STORE_(q, v) (*(q) = (v))
#define RT_SIMD_C_SET1_(x) (x)
#define RT_SIMD_C_ADD_(a, b) ((a) + (b))
#define RT_SIMD_C_SUB_(a, b) ((a) - (b))
#define RT_SIMD_C_MUL_(a, b) ((a) * (b))
#define RT_SIMD_C_MAX_(a, b) ((a) > (b) ? (a) : (b))
#define RT_SIMD_C_MIN_(a, b) ((a) < (b) ? (a) : (b))
#define RT_SIMD_C_(M)                                                                       \
	M(c, , float, 1, 0.0f, RT_SIMD_C_LOAD_, RT_SIMD_C_STORE_, RT_SIMD_C_SET1_,           \
	  RT_SIMD_C_ADD_, RT_SIMD_C_SUB_, RT_SIMD_C_MUL_, RT_SIMD_C_MAX_, RT_SIMD_C_MIN_)
#else
#define RT_SIMD_C_(M)
#endif

/* Instantiates template M for every ISA built here. */
#define RT_SIMD_EACH(M) RT_SIMD_AVX512_(M) RT_SIMD_AVX2_(M) RT_SIMD_NEON_(M) RT_SIMD_C_(M)

/* The ISA a kernel runs: generated code has its target's; a vector wider
 * than the channel block (cc, e.g. 8 under AVX-512) steps down to AVX2. */
static inline int rt_simd_isa(int isa, int cc)
{
#ifdef RT_SGEMM_ISA
	isa = RT_SGEMM_ISA;
#endif
	if (isa == RT_SGEMM_ISA_AVX512 && cc % 16 != 0)
		isa = RT_SGEMM_ISA_AVX2;
	return isa;
}

#endif
