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

/* One KC x NC block of the product, shared by the threads working on it. */
struct rt_sgemm_block_ {
	int isa, M, K, mr, nr;
	int kc, nc, jc, pc, acc;     /* this block: depth, width, first column, first k, accumulate */
	const float *a, *ap;         /* A, or A packed (then ap) */
	size_t rsa, csa, ars, acs;   /* A's strides; as the micro-kernel reads them */
	const float *b;              /* B(pc, jc) */
	size_t rsb, csb;
	float *c;                    /* C */
	size_t ldc;
	float *bp;                   /* the packed block, [ceil(nc/nr)][kc][nr] */
};

/* Row panel ir of A at the block's k offset. */
static inline const float *rt_sgemm_a_at_(const struct rt_sgemm_block_ *j, int ir)
{
	return j->ap ? j->ap + (size_t)ir * j->K + (size_t)j->pc * j->mr
	             : j->a + (size_t)ir * j->rsa + (size_t)j->pc * j->csa;
}

/* Column panels [p0, p1) of the block: pack them, then every row panel of A
 * across them. */
static void rt_sgemm_cols_(void *ctx, int p0, int p1)
{
	const struct rt_sgemm_block_ *j = ctx;
	const int nr = j->nr, mr = j->mr, kc = j->kc;
	const int j0 = p0 * nr, j1 = p1 * nr < j->nc ? p1 * nr : j->nc;
	rt_sgemm_pack_b_(nr, kc, j1 - j0, j->b + (size_t)j0 * j->csb, j->rsb, j->csb,
	                 j->bp + (size_t)j0 * kc);
	for (int ir = 0; ir < j->M; ir += mr) {
		const int m = j->M - ir < mr ? j->M - ir : mr;
		const float *pa = rt_sgemm_a_at_(j, ir);
		for (int jr = j0; jr < j1; jr += nr) {
			const int n = j1 - jr < nr ? j1 - jr : nr;
			rt_sgemm_tile_(j->isa, kc, pa, j->ars, j->acs, j->bp + (size_t)jr * kc,
			               j->c + (size_t)ir * j->ldc + j->jc + jr, j->ldc, m, n, j->acc);
		}
	}
}

/* Row panels [r0, r1) of A across the whole packed block. */
static void rt_sgemm_rows_(void *ctx, int r0, int r1)
{
	const struct rt_sgemm_block_ *j = ctx;
	const int nr = j->nr, mr = j->mr, kc = j->kc;
	for (int ir = r0 * mr; ir < j->M && ir < r1 * mr; ir += mr) {
		const int m = j->M - ir < mr ? j->M - ir : mr;
		const float *pa = rt_sgemm_a_at_(j, ir);
		for (int jr = 0; jr < j->nc; jr += nr) {
			const int n = j->nc - jr < nr ? j->nc - jr : nr;
			rt_sgemm_tile_(j->isa, kc, pa, j->ars, j->acs, j->bp + (size_t)jr * kc,
			               j->c + (size_t)ir * j->ldc + j->jc + jr, j->ldc, m, n, j->acc);
		}
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
	struct rt_sgemm_block_ j = {
		.isa = isa, .M = M, .K = K, .mr = mr, .nr = nr, .a = a, .ap = ap, .rsa = rsa,
		.csa = csa, .ars = ars, .acs = acs, .rsb = rsb, .csb = csb, .c = c, .ldc = ldc, .bp = bp,
	};
	const int mpanels = (M + mr - 1) / mr;
	for (int jc = 0; jc < N; jc += ncb) {
		const int nc = N - jc < ncb ? N - jc : ncb, npanels = (nc + nr - 1) / nr;
		for (int pc = 0; pc < K; pc += kcb) {
			j.kc = K - pc < kcb ? K - pc : kcb;
			j.nc = nc;
			j.jc = jc;
			j.pc = pc;
			j.acc = accumulate || pc > 0;
			j.b = b + (size_t)pc * rsb + (size_t)jc * csb;
			/* Threads take whole column panels (each packs its own) or,
			 * when A has more row panels than the block has column panels,
			 * whole row panels of one packed block. Small blocks stay on
			 * one thread. */
			const int small = (double)M * nc * j.kc < RT_PARALLEL_MIN_WORK;
			if (small) {
				rt_sgemm_cols_(&j, 0, npanels);
			} else if (npanels >= mpanels) {
				rt_parallel(rt_sgemm_cols_, &j, npanels);
			} else {
				rt_sgemm_pack_b_(nr, j.kc, nc, j.b, rsb, csb, bp);
				rt_parallel(rt_sgemm_rows_, &j, mpanels);
			}
		}
	}
}
