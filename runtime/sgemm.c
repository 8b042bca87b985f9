/* sgemm.c - dnncc's blocked SGEMM driver: the loops around the micro-kernel.
 *
 * Computes C[M, N] (+)= A * B with A and B read through element strides (so
 * any transpose combination), as specified in sgemm.h, which also describes
 * the blocking. The loops, outermost first:
 *   jc: N in blocks of at most NC columns
 *   pc: K in slices of at most KC; pack the block of B into NR-wide panels
 *   ir: M in MR-row panels of A (packed at compile time, or A itself)
 *   jr: the block's NR-wide panels; one micro-kernel call per MR x NR tile
 * The first K slice stores C (or adds to it when accumulating), later slices
 * add. Packed B stays in L2 while every A panel sweeps over it.
 *
 * The micro-kernel is chosen by the isa argument among those compiled in (all
 * this compiler can build, in the library); generated code compiles only the
 * kernel RT_SGEMM_ISA names and uses it whatever isa says. See sgemm.h. */
#include "runtime/sgemm.h"

#include <stdint.h>

/* Packs the kc x nc block B(k, j) = b[k*rsb + j*csb] into ceil(nc/nr) panels
 * of [kc][nr], columns past nc zero. */
static inline void rt_sgemm_pack_b_(int nr, int kc, int nc,
                                    const float *restrict b, /* B(k, j) at b[k*rsb + j*csb] */
                                    size_t rsb, size_t csb,
                                    float *restrict bp) /* out: [ceil(nc/nr)][kc][nr] */
{
	for (int j0 = 0; j0 < nc; j0 += nr) {
		const int w = nc - j0 < nr ? nc - j0 : nr;
		const float *restrict src = b + (size_t)j0 * csb; /* the panel's first column */
		if (csb == 1) {
			for (int k = 0; k < kc; k++) {
				const float *restrict s = src + (size_t)k * rsb;
				float *restrict d = bp + (size_t)k * nr;
				for (int j = 0; j < w; j++)
					d[j] = s[j];
				for (int j = w; j < nr; j++)
					d[j] = 0.0f;
			}
		} else {
			for (int k = 0; k < kc; k++) {
				float *d = bp + (size_t)k * nr;
				for (int j = w; j < nr; j++)
					d[j] = 0.0f;
			}
			/* column by column, so a transposed B (rsb == 1) is read in order */
			for (int j = 0; j < w; j++) {
				const float *s = src + (size_t)j * csb;
				for (int k = 0; k < kc; k++)
					bp[(size_t)k * nr + j] = s[(size_t)k * rsb];
			}
		}
		bp += (size_t)kc * nr;
	}
}

/* Calls the isa's micro-kernel (contract in sgemm.h). */
static inline void rt_sgemm_tile_(int isa, int kc, const float *a, size_t ars, size_t acs,
                                  const float *b, float *c, size_t ldc, int m, int n,
                                  int accumulate)
{
	switch (isa) {
#if RT_SGEMM_HAVE_AVX512
	case RT_SGEMM_ISA_AVX512:
		rt_sgemm_kernel_avx512(kc, a, ars, acs, b, c, ldc, m, n, accumulate);
		break;
#endif
#if RT_SGEMM_HAVE_AVX2
	case RT_SGEMM_ISA_AVX2:
		rt_sgemm_kernel_avx2(kc, a, ars, acs, b, c, ldc, m, n, accumulate);
		break;
#endif
#if RT_SGEMM_HAVE_NEON
	case RT_SGEMM_ISA_NEON:
		rt_sgemm_kernel_neon(kc, a, ars, acs, b, c, ldc, m, n, accumulate);
		break;
#endif
#if RT_SGEMM_HAVE_C
	default:
		rt_sgemm_kernel_c(kc, a, ars, acs, b, c, ldc, m, n, accumulate);
		break;
#else
	default:
		break;
#endif
	}
}

RT_FN void rt_sgemm(int isa, int M, int N, int K,
                    const float *a,  /* A(i, k) at a[i*rsa + k*csa], [M, K]; unused if ap */
                    size_t rsa, size_t csa,
                    const float *ap, /* A packed by rt_sgemm_pack_a (sgemm.h), or NULL */
                    const float *b,  /* B(k, j) at b[k*rsb + j*csb], [K, N] */
                    size_t rsb, size_t csb,
                    float *c,        /* out: [M, N], row stride ldc */
                    size_t ldc, int accumulate,
                    void *ws)        /* workspace, rt_sgemm_workspace_size bytes */
{
#ifdef RT_SGEMM_ISA
	isa = RT_SGEMM_ISA; /* generated code has this one kernel */
#endif
	const int mr = RT_SGEMM_MR(isa), nr = RT_SGEMM_NR(isa);
	const int kcmax = RT_SGEMM_KC(isa), ncmax = RT_SGEMM_NC(isa);
	if (M <= 0 || N <= 0)
		return;
	if (K <= 0) {
		if (!accumulate)
			for (int i = 0; i < M; i++)
				for (int j = 0; j < N; j++)
					c[(size_t)i * ldc + j] = 0.0f;
		return;
	}
	float *bp = (float *)(((uintptr_t)ws + 63) & ~(uintptr_t)63); /* [ceil(nc/nr)][kc][nr] */
	const size_t ars = ap ? 1 : rsa, acs = ap ? (size_t)mr : csa; /* A's strides as read */
	/* blocks of equal size, at most NC (a multiple of NR) wide and KC deep, so
	 * that no block is a sliver that costs a whole pass over A or C */
	const int nblocks = (N + ncmax - 1) / ncmax, kslices = (K + kcmax - 1) / kcmax;
	const int ncb = ((N + nblocks - 1) / nblocks + nr - 1) / nr * nr;
	const int kcb = (K + kslices - 1) / kslices;
	for (int jc = 0; jc < N; jc += ncb) {
		const int nc = N - jc < ncb ? N - jc : ncb;
		for (int pc = 0; pc < K; pc += kcb) {
			const int kc = K - pc < kcb ? K - pc : kcb;
			const int acc = accumulate || pc > 0;
			rt_sgemm_pack_b_(nr, kc, nc, b + (size_t)pc * rsb + (size_t)jc * csb, rsb, csb, bp);
			for (int ir = 0; ir < M; ir += mr) {
				const int m = M - ir < mr ? M - ir : mr;
				/* A(ir, pc): rows ir.. of the packed panel, or of A */
				const float *pa = ap ? ap + (size_t)ir * K + (size_t)pc * mr
				                     : a + (size_t)ir * rsa + (size_t)pc * csa;
				for (int jr = 0; jr < nc; jr += nr) {
					const int n = nc - jr < nr ? nc - jr : nr;
					rt_sgemm_tile_(isa, kc, pa, ars, acs, bp + (size_t)jr * kc,
					               c + (size_t)ir * ldc + jc + jr, ldc, m, n, acc);
				}
			}
		}
	}
}
