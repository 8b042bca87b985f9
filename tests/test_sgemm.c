/* test_sgemm.c - dnncc's blocked SGEMM (runtime/sgemm.c and its micro-kernels)
 * against a naive double-precision reference written here.
 *
 * Every test runs once per micro-kernel ISA (c, avx2, avx512, neon); an ISA
 * this CPU cannot run is skipped, and the test says so. Sizes:
 * - small: every (M, N) in 1..40 x 1..40, with K running through 1..40;
 * - k_sweep: every K in 1..40 and around the K blocking, with varied M, N;
 * - edges: one below, at and above the register tile (MR, NR), the cache
 *   blocks (KC, NC) and their multiples, crossed;
 * - big: a few GEMMs larger than every block in every dimension.
 * Each case is one of 16 variants: A stored [M, K] or [K, M], B stored [K, N]
 * or [N, K] (the four transpose combinations, through the strides), C stored
 * or accumulated into, A read directly or packed with rt_sgemm_pack_a; the
 * variant rotates with the case number so that every size class meets every
 * variant. `strides` adds padded leading dimensions and a padded C.
 *
 * Tolerance. An element sums K products (plus C when accumulating); with
 * float arithmetic in any order, and with or without fused multiply-adds,
 * the error is at most about K * 2^-24 times the sum of the magnitudes of the
 * terms (Higham, Accuracy and Stability of Numerical Algorithms, 3.1). Each
 * element must satisfy |got - want| <= (K + 8) * FLT_EPSILON * mag with mag
 * = sum of |A(i,k) B(k,j)| (+ |C0|): FLT_EPSILON is 2^-23, so this is about
 * twice the bound, while any indexing mistake moves an element by a whole
 * term. On failure the worst element is printed.
 *
 * Memory. A, B, C and the workspace each end exactly at a page that is made
 * inaccessible, so a read or write past their end crashes the test; C is
 * filled with NaN when not accumulated (an element the kernel forgets, or a
 * C it reads although told not to, fails), and the padding columns of a
 * padded C must keep their value. */
#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "runtime/dnncc_rt.h" /* rt_pool_start, rt_pool_stop */
#include "runtime/sgemm.h"
#include "tests/rng.h"

/* ---- helpers ------------------------------------------------------------- */

/* uniform in [-1, 1) */
static float rng_float(struct rng *r)
{
	return -1.0f + 2.0f * (float)(rng_next(r) >> 8) / 16777216.0f;
}

/* A buffer whose end touches an inaccessible page. */
struct fenced {
	void *base;   /* the allocation (page aligned) */
	size_t pages; /* accessible pages before the fence */
	void *p;      /* the user's bytes, ending at the fence */
};

static size_t page_size(void)
{
	return (size_t)sysconf(_SC_PAGESIZE);
}

static void *fenced_new(struct fenced *f, size_t bytes)
{
	const size_t ps = page_size();
	f->pages = (bytes + ps - 1) / ps;
	cr_assert(posix_memalign(&f->base, ps, (f->pages + 1) * ps) == 0, "out of memory");
	cr_assert(mprotect((char *)f->base + f->pages * ps, ps, PROT_NONE) == 0, "mprotect failed");
	f->p = (char *)f->base + f->pages * ps - bytes;
	return f->p;
}

static void fenced_free(struct fenced *f)
{
	const size_t ps = page_size();
	mprotect((char *)f->base + f->pages * ps, ps, PROT_READ | PROT_WRITE);
	free(f->base);
}

/* ---- one GEMM against the reference -------------------------------------- */

enum {
	V_A_T = 1,    /* A stored [K, M] */
	V_B_T = 2,    /* B stored [N, K] */
	V_ACC = 4,    /* C += A*B */
	V_PACKED = 8, /* A packed with rt_sgemm_pack_a */
	V_PAD = 16    /* leading dimensions padded: A, B by 3, C by 5 */
};

static const char *isa_names[] = {"c", "avx2", "avx512", "neon"};

/* Runs C[M, N] (+)= A * B for one variant and checks every element; seed
 * picks the data. */
static void check_gemm(int isa, int M, int N, int K, int v, uint64_t seed)
{
	struct rng r;
	rng_seed(&r, seed);
	const int pad_ab = v & V_PAD ? 3 : 0, pad_c = v & V_PAD ? 5 : 0;
	/* A(i, k) = a[i*rsa + k*csa], B(k, j) = b[k*rsb + j*csb] */
	const size_t rsa = v & V_A_T ? 1 : (size_t)(K + pad_ab);
	const size_t csa = v & V_A_T ? (size_t)(M + pad_ab) : 1;
	const size_t rsb = v & V_B_T ? 1 : (size_t)(N + pad_ab);
	const size_t csb = v & V_B_T ? (size_t)(K + pad_ab) : 1;
	const size_t ldc = (size_t)N + (size_t)pad_c;
	/* extents: the last element plus one */
	const size_t na = M && K ? (size_t)(M - 1) * rsa + (size_t)(K - 1) * csa + 1 : 1;
	const size_t nb = K && N ? (size_t)(K - 1) * rsb + (size_t)(N - 1) * csb + 1 : 1;
	const size_t nc = M ? (size_t)(M - 1) * ldc + (size_t)N + (size_t)pad_c : 1;
	const size_t nap = rt_sgemm_pack_a_size(isa, M, K) + 1;
	const size_t nws = rt_sgemm_workspace_size(isa, M, N, K);

	struct fenced fa, fb, fc, fap, fws;
	float *a = fenced_new(&fa, na * sizeof(float));
	float *b = fenced_new(&fb, nb * sizeof(float));
	float *c = fenced_new(&fc, nc * sizeof(float));
	float *ap = fenced_new(&fap, nap * sizeof(float));
	void *ws = fenced_new(&fws, nws);
	float *c0 = malloc(nc * sizeof *c0);
	cr_assert(c0 != NULL, "out of memory");
	for (size_t i = 0; i < na; i++)
		a[i] = rng_float(&r);
	for (size_t i = 0; i < nb; i++)
		b[i] = rng_float(&r);
	for (size_t i = 0; i < nc; i++)
		c0[i] = v & V_ACC ? rng_float(&r) : NAN;
	for (int i = 0; i < M; i++) /* padding columns: a value that must survive */
		for (int j = N; j < N + pad_c; j++)
			c0[(size_t)i * ldc + j] = 777.0f;
	memcpy(c, c0, nc * sizeof *c);
	memset(ws, 0x5A, nws); /* the workspace's old contents must not matter */

	if (v & V_PACKED) {
		ap[nap - 1] = 555.0f; /* one past the packed size: must stay */
		rt_sgemm_pack_a(isa, M, K, a, rsa, csa, ap);
		cr_assert(ap[nap - 1] == 555.0f, "rt_sgemm_pack_a wrote past its size");
		rt_sgemm(isa, M, N, K, NULL, 0, 0, ap, b, rsb, csb, c, ldc, v & V_ACC ? 1 : 0, ws);
	} else {
		rt_sgemm(isa, M, N, K, a, rsa, csa, NULL, b, rsb, csb, c, ldc, v & V_ACC ? 1 : 0, ws);
	}

	const double rtol = (K + 8) * (double)FLT_EPSILON;
	double worst = 0.0;
	int wi = -1, wj = -1;
	double wgot = 0.0, wwant = 0.0, wmag = 0.0;
	for (int i = 0; i < M; i++) {
		for (int j = 0; j < N; j++) {
			double want = 0.0, mag = 0.0;
			for (int k = 0; k < K; k++) {
				const double t = (double)a[(size_t)i * rsa + (size_t)k * csa]
				                 * (double)b[(size_t)k * rsb + (size_t)j * csb];
				want += t;
				mag += fabs(t);
			}
			if (v & V_ACC) {
				want += c0[(size_t)i * ldc + j];
				mag += fabs(c0[(size_t)i * ldc + j]);
			}
			const double got = c[(size_t)i * ldc + j];
			/* a NaN (never written, or C read when not accumulating) fails too */
			const double e = fabs(got - want) / (rtol * mag + DBL_MIN);
			if (!(e <= worst)) {
				worst = isnan(e) ? INFINITY : e;
				wi = i, wj = j, wgot = got, wwant = want, wmag = mag;
			}
		}
		for (int j = N; j < N + pad_c; j++)
			cr_assert(c[(size_t)i * ldc + j] == 777.0f,
			          "%s M=%d N=%d K=%d variant %d: padding C[%d, %d] overwritten",
			          isa_names[isa], M, N, K, v, i, j);
	}
	cr_assert(worst <= 1.0,
	          "%s M=%d N=%d K=%d variant %d (A%s B%s%s%s): worst C[%d, %d] = %.9g, want %.9g "
	          "(error %.3g x tolerance, sum of |terms| %.3g)",
	          isa_names[isa], M, N, K, v, v & V_A_T ? "^T" : "", v & V_B_T ? "^T" : "",
	          v & V_ACC ? ", accumulate" : "", v & V_PACKED ? ", packed A" : "", wi, wj, wgot,
	          wwant, worst, wmag);
	free(c0);
	fenced_free(&fa), fenced_free(&fb), fenced_free(&fc), fenced_free(&fap), fenced_free(&fws);
}

/* ---- the tests, one per ISA ------------------------------------------------ */

ParameterizedTestParameters(sgemm, small)
{
	static int isas[] = {RT_SGEMM_ISA_C, RT_SGEMM_ISA_AVX2, RT_SGEMM_ISA_AVX512,
	                     RT_SGEMM_ISA_NEON};
	return cr_make_param_array(int, isas, sizeof isas / sizeof isas[0]);
}

static void skip_unless_supported(int isa)
{
	if (!rt_sgemm_isa_supported(isa))
		cr_skip_test("the %s kernel is not built for, or not run by, this CPU", isa_names[isa]);
}

/* every (M, N) in 1..40 x 1..40; K runs through 1..40 */
ParameterizedTest(int *isa, sgemm, small)
{
	skip_unless_supported(*isa);
	int n = 0;
	for (int M = 1; M <= 40; M++)
		for (int N = 1; N <= 40; N++, n++)
			check_gemm(*isa, M, N, 1 + (M * 7 + N * 3) % 40, n % 16, (uint64_t)n);
}

ParameterizedTestParameters(sgemm, k_sweep)
{
	static int isas[] = {RT_SGEMM_ISA_C, RT_SGEMM_ISA_AVX2, RT_SGEMM_ISA_AVX512,
	                     RT_SGEMM_ISA_NEON};
	return cr_make_param_array(int, isas, sizeof isas / sizeof isas[0]);
}

/* every K in 1..40 and across the first K blocks, M and N random */
ParameterizedTest(int *isa, sgemm, k_sweep)
{
	skip_unless_supported(*isa);
	const int kc = RT_SGEMM_KC(*isa);
	struct rng r;
	rng_seed(&r, 77);
	int n = 0;
	for (int K = 1; K <= 40; K++)
		for (int t = 0; t < 4; t++, n++)
			check_gemm(*isa, rng_int(&r, 1, 40), rng_int(&r, 1, 60), K, n % 16, (uint64_t)n);
	const int ks[] = {kc - 1, kc, kc + 1, 2 * kc - 1, 2 * kc, 2 * kc + 1, 3 * kc + 7};
	for (size_t i = 0; i < sizeof ks / sizeof ks[0]; i++)
		for (int v = 0; v < 16; v++, n++)
			check_gemm(*isa, rng_int(&r, 1, 20), rng_int(&r, 1, 70), ks[i], v, (uint64_t)n);
}

ParameterizedTestParameters(sgemm, edges)
{
	static int isas[] = {RT_SGEMM_ISA_C, RT_SGEMM_ISA_AVX2, RT_SGEMM_ISA_AVX512,
	                     RT_SGEMM_ISA_NEON};
	return cr_make_param_array(int, isas, sizeof isas / sizeof isas[0]);
}

/* one below, at and above the tile and block sizes, crossed; edges of 1, 4
 * and 5 columns past whole panels (AVX-512 takes up to 4 down the rows) */
ParameterizedTest(int *isa, sgemm, edges)
{
	skip_unless_supported(*isa);
	const int mr = RT_SGEMM_MR(*isa), nr = RT_SGEMM_NR(*isa);
	const int kc = RT_SGEMM_KC(*isa), nc = RT_SGEMM_NC(*isa);
	const int ms[] = {1, mr - 1, mr, mr + 1, 2 * mr, 2 * mr + 1, 3 * mr - 1};
	const int ns[] = {1, 4, nr - 1, nr, nr + 1, nr + 4, nr + 5, 2 * nr - 1, 2 * nr + 1,
	                  nc - 1, nc, nc + 1, 2 * nc + nr + 1};
	const int ks[] = {1, 2, kc - 1, kc, kc + 1, 2 * kc + 1};
	int n = 0;
	for (size_t i = 0; i < sizeof ms / sizeof ms[0]; i++)
		for (size_t j = 0; j < sizeof ns / sizeof ns[0]; j++)
			for (size_t k = 0; k < sizeof ks / sizeof ks[0]; k++, n++)
				check_gemm(*isa, ms[i], ns[j], ks[k], n % 16, (uint64_t)n);
}

ParameterizedTestParameters(sgemm, big)
{
	static int isas[] = {RT_SGEMM_ISA_C, RT_SGEMM_ISA_AVX2, RT_SGEMM_ISA_AVX512,
	                     RT_SGEMM_ISA_NEON};
	return cr_make_param_array(int, isas, sizeof isas / sizeof isas[0]);
}

/* larger than every block in every dimension */
ParameterizedTest(int *isa, sgemm, big)
{
	skip_unless_supported(*isa);
	const int mr = RT_SGEMM_MR(*isa), nr = RT_SGEMM_NR(*isa);
	const int kc = RT_SGEMM_KC(*isa), nc = RT_SGEMM_NC(*isa);
	check_gemm(*isa, 13 * mr + 5, 2 * nc + 3 * nr + 7, 2 * kc + 17, 0, 1);
	check_gemm(*isa, 11 * mr + 3, nc + 5, kc + 3, V_A_T | V_B_T | V_ACC, 2);
	check_gemm(*isa, 64, 3 * nc + 1, 3 * kc + 1, V_PACKED | V_ACC, 3);
	check_gemm(*isa, 9 * mr - 1, 2 * nc - 1, kc - 1, V_PACKED | V_B_T | V_PAD, 4);
}

ParameterizedTestParameters(sgemm, strides)
{
	static int isas[] = {RT_SGEMM_ISA_C, RT_SGEMM_ISA_AVX2, RT_SGEMM_ISA_AVX512,
	                     RT_SGEMM_ISA_NEON};
	return cr_make_param_array(int, isas, sizeof isas / sizeof isas[0]);
}

/* all 16 variants with padded leading dimensions and a padded C */
ParameterizedTest(int *isa, sgemm, strides)
{
	skip_unless_supported(*isa);
	const int mr = RT_SGEMM_MR(*isa), nr = RT_SGEMM_NR(*isa);
	int n = 0;
	for (int v = 0; v < 16; v++) {
		check_gemm(*isa, 3, 5, 7, v | V_PAD, (uint64_t)n++);
		check_gemm(*isa, 2 * mr + 1, 3 * nr - 1, 37, v | V_PAD, (uint64_t)n++);
		check_gemm(*isa, mr, nr, RT_SGEMM_KC(*isa) + 2, v | V_PAD, (uint64_t)n++);
	}
}

ParameterizedTestParameters(sgemm, degenerate)
{
	static int isas[] = {RT_SGEMM_ISA_C, RT_SGEMM_ISA_AVX2, RT_SGEMM_ISA_AVX512,
	                     RT_SGEMM_ISA_NEON};
	return cr_make_param_array(int, isas, sizeof isas / sizeof isas[0]);
}

/* K = 0 gives C = 0, or C unchanged when accumulating; M or N = 0 writes
 * nothing */
ParameterizedTest(int *isa, sgemm, degenerate)
{
	skip_unless_supported(*isa);
	float a[4] = {1, 2, 3, 4}, b[4] = {5, 6, 7, 8}, c[6];
	unsigned char ws[64 + 4 * sizeof(float)];
	for (int i = 0; i < 6; i++)
		c[i] = 9.0f;
	rt_sgemm(*isa, 2, 3, 0, a, 0, 1, NULL, b, 3, 1, c, 3, 1, ws);
	for (int i = 0; i < 6; i++)
		cr_assert(c[i] == 9.0f, "K = 0, accumulate: C[%d] = %g, want 9", i, c[i]);
	rt_sgemm(*isa, 2, 3, 0, a, 0, 1, NULL, b, 3, 1, c, 3, 0, ws);
	for (int i = 0; i < 6; i++)
		cr_assert(c[i] == 0.0f, "K = 0: C[%d] = %g, want 0", i, c[i]);
	for (int i = 0; i < 6; i++)
		c[i] = 9.0f;
	rt_sgemm(*isa, 0, 3, 2, a, 2, 1, NULL, b, 3, 1, c, 3, 0, ws);
	rt_sgemm(*isa, 2, 0, 2, a, 2, 1, NULL, b, 3, 1, c, 3, 0, ws);
	for (int i = 0; i < 6; i++)
		cr_assert(c[i] == 9.0f, "M or N = 0: C[%d] = %g changed", i, c[i]);
}

ParameterizedTestParameters(sgemm, pack_a_layout)
{
	static int isas[] = {RT_SGEMM_ISA_C, RT_SGEMM_ISA_AVX2, RT_SGEMM_ISA_AVX512,
	                     RT_SGEMM_ISA_NEON};
	return cr_make_param_array(int, isas, sizeof isas / sizeof isas[0]);
}

/* the documented packed layout: element (i, k) at (i/MR)*K*MR + k*MR + i%MR,
 * rows past M zero. Packing is plain C, so this runs for every ISA on any
 * CPU (dnncc packs weights for other targets). */
ParameterizedTest(int *isa, sgemm, pack_a_layout)
{
	const int mr = RT_SGEMM_MR(*isa), M = 2 * mr + 3, K = 11;
	float a[(2 * 16 + 3) * 11], ap[3 * 16 * 11];
	cr_assert(rt_sgemm_pack_a_size(*isa, M, K) == (size_t)3 * mr * K, "%s: pack size %zu",
	          isa_names[*isa], rt_sgemm_pack_a_size(*isa, M, K));
	for (int i = 0; i < M * K; i++)
		a[i] = (float)(i + 1);
	rt_sgemm_pack_a(*isa, M, K, a, 1, (size_t)M, ap); /* A stored [K, M] */
	for (int i = 0; i < 3 * mr; i++)
		for (int k = 0; k < K; k++) {
			const float got = ap[(i / mr) * K * mr + k * mr + i % mr];
			const float want = i < M ? a[k * M + i] : 0.0f;
			cr_assert(got == want, "%s: packed A(%d, %d) = %g, want %g", isa_names[*isa], i,
			          k, got, want);
		}
}

Test(sgemm, host)
{
	const int host = rt_sgemm_isa_host();
	cr_assert(rt_sgemm_isa_supported(RT_SGEMM_ISA_C), "the C kernel must always run");
	cr_assert(rt_sgemm_isa_supported(host), "host ISA %d is not supported", host);
	cr_assert(!rt_sgemm_isa_supported(RT_SGEMM_ISA_COUNT), "ISA %d is not a kernel",
	          RT_SGEMM_ISA_COUNT);
	for (int isa = 0; isa < RT_SGEMM_ISA_COUNT; isa++)
		cr_assert_str_eq(rt_sgemm_isa_name(isa), isa_names[isa]);
#if defined(__x86_64__)
	cr_assert(host == RT_SGEMM_ISA_AVX512 || host == RT_SGEMM_ISA_AVX2
	          || !__builtin_cpu_supports("avx2"), "an AVX2 CPU must not fall back to C");
#endif
}

ParameterizedTestParameters(sgemm, threads)
{
	static int isas[] = {RT_SGEMM_ISA_C, RT_SGEMM_ISA_AVX2, RT_SGEMM_ISA_AVX512,
	                     RT_SGEMM_ISA_NEON};
	return cr_make_param_array(int, isas, sizeof isas / sizeof isas[0]);
}

/* The same bits on 1, 2 and 3 threads (thread_pool.c): shapes whose blocks
 * split by column panels, by row panels (more rows of A than columns in a
 * block), and ragged ones, packed A or not, accumulating or not. */
ParameterizedTest(int *isa, sgemm, threads)
{
	skip_unless_supported(*isa);
	static const int shapes[][3] = {{64, 1000, 300}, {500, 40, 200}, {37, 777, 513}, {9, 5000, 70}};
	for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++) {
		const int M = shapes[s][0], N = shapes[s][1], K = shapes[s][2];
		const int acc = (int)s % 2, packed = s >= 2;
		struct rng r;
		rng_seed(&r, 99 + s);
		float *a = malloc((size_t)M * K * sizeof *a), *b = malloc((size_t)K * N * sizeof *b);
		float *ap = malloc(rt_sgemm_pack_a_size(*isa, M, K) * sizeof *ap);
		float *c[3];
		void *ws = malloc(rt_sgemm_workspace_size(*isa, M, N, K));
		cr_assert(a && b && ap && ws, "out of memory");
		for (size_t i = 0; i < (size_t)M * K; i++)
			a[i] = rng_float(&r);
		for (size_t i = 0; i < (size_t)K * N; i++)
			b[i] = rng_float(&r);
		rt_sgemm_pack_a(*isa, M, K, a, (size_t)K, 1, ap);
		for (int t = 0; t < 3; t++) {
			c[t] = malloc((size_t)M * N * sizeof(float));
			cr_assert(c[t] != NULL, "out of memory");
			for (size_t i = 0; i < (size_t)M * N; i++)
				c[t][i] = (float)(i % 7);
			cr_assert(rt_pool_start(t + 1) == t + 1, "%d threads did not start", t + 1);
			rt_sgemm(*isa, M, N, K, packed ? NULL : a, (size_t)K, 1, packed ? ap : NULL, b,
			         (size_t)N, 1, c[t], (size_t)N, acc, ws);
			rt_pool_stop();
			if (t)
				cr_assert(memcmp(c[t], c[0], (size_t)M * N * sizeof(float)) == 0,
				          "%s M=%d N=%d K=%d: %d threads give other bits than one",
				          isa_names[*isa], M, N, K, t + 1);
		}
		for (int t = 0; t < 3; t++)
			free(c[t]);
		free(a), free(b), free(ap), free(ws);
	}
}
