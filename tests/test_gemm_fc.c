/* test_gemm_fc.c - the fully-connected kernel (runtime/gemm_fc.c) with its
 * compile-time packing (gemm_fc_pack.c) against a double-precision Gemm, on
 * ragged shapes (M = 1..9, N and K off the vector widths), transA and transB,
 * alpha and beta, every broadcast form of C and every fused activation
 * (whole panels take the register epilogue where it applies, the rest the
 * scalar one), for each ISA the running CPU executes; and layers past 4 MiB
 * of weights, which AVX-512 streams through other loads. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>

#include "runtime/dnncc_rt.h"
#include "runtime/sgemm.h"

static float frand(unsigned *s)
{
	*s = *s * 1103515245u + 12345u;
	return (float)((*s >> 8) & 0xFFFF) / 32768.0f - 1.0f;
}

static double act_ref(int act, double al, double be, double v)
{
	switch (act) {
	case RT_ACT_RELU: return v > 0 ? v : 0;
	case RT_ACT_LEAKY_RELU: return v >= 0 ? v : v * al;
	case RT_ACT_CLIP: return v < al ? al : (v > be ? be : v);
	case RT_ACT_SIGMOID: return 1.0 / (1.0 + exp(-v));
	case RT_ACT_TANH: return tanh(v);
	default: return v;
	}
}

/* C forms: 0 none, 1 scalar, 2 [N], 3 [M, 1], 4 [M, N] -> (c_sm, c_sn, count) */
static int c_form(int form, int M, int N, int *sm, int *sn)
{
	static const int sms[5] = {0, 0, 0, 1, -1}, sns[5] = {0, 0, 1, 0, 1};
	*sm = sms[form] < 0 ? N : sms[form];
	*sn = sns[form];
	return form == 0 ? 0 : form == 1 ? 1 : form == 2 ? N : form == 3 ? M : M * N;
}

static int check(int isa, int M, int N, int K, int transA, int transB, float alpha, float beta,
                 int form, int act, unsigned seed)
{
	float *a = malloc(sizeof(float) * (size_t)M * K), *b = malloc(sizeof(float) * (size_t)K * N);
	float *c = malloc(sizeof(float) * (size_t)M * N), *y = malloc(sizeof(float) * (size_t)M * N);
	float *bp = malloc(sizeof(float) * rt_gemm_fc_pack_size(isa, N, K));
	for (int i = 0; i < M * K; i++)
		a[i] = frand(&seed);
	for (int i = 0; i < K * N; i++)
		b[i] = frand(&seed);
	for (int i = 0; i < M * N; i++) {
		c[i] = frand(&seed);
		y[i] = 1e30f;
	}
	int c_sm, c_sn;
	int has_c = c_form(form, M, N, &c_sm, &c_sn) > 0;
	struct rt_gemm p = {.M = M, .N = N, .K = K, .transA = transA, .transB = transB,
	                    .alpha = alpha, .beta = beta, .c_sm = c_sm, .c_sn = c_sn,
	                    .act = act, .act_alpha = act == RT_ACT_CLIP ? -0.5f : 0.1f,
	                    .act_beta = 0.75f};
	/* B [K, N] (rsb, csb) = (N, 1); stored as [N, K] when transB: (1, K) */
	rt_gemm_fc_pack(isa, N, K, b, transB ? 1 : (size_t)N, transB ? (size_t)K : 1, bp);
	rt_gemm_fc(&p, isa, a, bp, has_c ? c : NULL, y);
	int bad = 0;
	for (int m = 0; m < M && !bad; m++)
		for (int n = 0; n < N && !bad; n++) {
			double s = 0, mag = 0;
			for (int k = 0; k < K; k++) {
				double av = transA ? a[k * M + m] : a[m * K + k];
				double bv = transB ? b[n * K + k] : b[k * N + n];
				s += av * bv;
				mag += fabs(av * bv);
			}
			s *= alpha;
			if (has_c)
				s += beta * (double)c[m * c_sm + n * c_sn];
			double want = act_ref(act, p.act_alpha, p.act_beta, s);
			double got = y[m * N + n];
			if (!(fabs(got - want) <= 1e-5 * (fabs(alpha) * mag + 2.0))) {
				cr_log_error("isa %s M %d N %d K %d tA %d tB %d C %d act %d: y[%d,%d] = %g, want %g",
				             rt_sgemm_isa_name(isa), M, N, K, transA, transB, form, act, m, n,
				             got, want);
				bad = 1;
			}
		}
	free(a);
	free(b);
	free(c);
	free(y);
	free(bp);
	return bad;
}

static void sweep(int isa)
{
	if (!rt_sgemm_isa_supported(isa))
		cr_skip_test("the CPU lacks %s", rt_sgemm_isa_name(isa));
	static const int Ns[] = {1, 3, 8, 17, 33, 48, 67, 130};
	static const int Ks[] = {1, 5, 19, 70};
	unsigned seed = 7;
	int bad = 0;
	for (int M = 1; M <= 9; M++)
		for (size_t ni = 0; ni < sizeof Ns / sizeof *Ns; ni++)
			for (size_t ki = 0; ki < sizeof Ks / sizeof *Ks; ki++)
				for (int t = 0; t < 4; t++) {
					int form = (int)((M + ni + ki + (size_t)t) % 5);
					int act = (int)((M * 3 + ni + ki * 2) % 6);
					float alpha = t == 3 ? -0.75f : 1.0f, beta = t >= 2 ? 0.5f : 1.0f;
					bad += check(isa, M, Ns[ni], Ks[ki], t & 1, (t >> 1) & 1, alpha, beta,
					             form, act, seed++);
				}
	/* every activation and C form on one ragged shape */
	for (int act = 0; act <= RT_ACT_TANH; act++)
		for (int form = 0; form < 5; form++)
			bad += check(isa, 5, 37, 23, 0, 1, 1.25f, -0.5f, form, act, seed++);
	/* whole panels of every ISA (N = 130: 2 x 64 + 2, 4 x 32 + 2) at the batches
	 * of small-batch FC layers: the register epilogue (none or ReLU, no C or a
	 * [N] bias) beside the scalar one (the others, and the partial panel) */
	for (int M = 1; M <= 5; M++)
		for (int act = 0; act <= RT_ACT_TANH; act++)
			for (int form = 0; form < 5; form++)
				bad += check(isa, M, 130, 70, 0, M & 1, M == 2 ? -0.75f : 1.0f,
				             M == 3 ? 0.5f : 1.0f, form, act, seed++);
	/* weights past 4 MiB (RT_FC_STREAM_BYTES), which AVX-512 reads as 256-bit
	 * halves: N = 1030 (16 x 64 + 6), K = 1100, 4.5 MB; both epilogues */
	for (int M = 1; M <= 5; M += 2)
		for (int t = 0; t < 4; t++)
			bad += check(isa, M, 1030, 1100, 0, t & 1, t == 3 ? -0.75f : 1.0f, 0.5f,
			             (t + M) % 3 == 0 ? 0 : 2, t < 2 ? RT_ACT_RELU : t, seed++);
	cr_expect_eq(bad, 0, "%d mismatching cases", bad);
}

Test(gemm_fc, c) { sweep(RT_SGEMM_ISA_C); }
Test(gemm_fc, avx2) { sweep(RT_SGEMM_ISA_AVX2); }
Test(gemm_fc, avx512) { sweep(RT_SGEMM_ISA_AVX512); }
Test(gemm_fc, neon) { sweep(RT_SGEMM_ISA_NEON); }
