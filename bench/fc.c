/* fc.c - AlexNet's classifier at batch 1 (Gemm 9216x4096, 4096x4096,
 * 4096x1000, weights [N, K] as PyTorch exports them, transB = 1, ReLU on the
 * first two): rt_gemm_ref (the reference) against rt_gemm_fc on weights
 * packed for the host's ISA, and the machine's single-core streaming read
 * bandwidth, so the fraction of it the FC kernel reaches can be stated.
 *
 *   bench/fc [REPS]   (default 15; median of REPS, thread CPU time and wall)
 *
 * Bandwidth: a 512 MiB buffer summed with four independent vector
 * accumulators (AVX-512 where the CPU has it, else plain C, which the
 * compiler may vectorise), best of REPS passes. Weights total 235 MB, far
 * beyond the caches, so every FC run streams them from memory. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "runtime/dnncc_rt.h"
#include "runtime/sgemm.h"

#if RT_SGEMM_HAVE_AVX512
#include <immintrin.h>
#endif

static double now(clockid_t id)
{
	struct timespec t;
	clock_gettime(id, &t);
	return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static int cmp_d(const void *x, const void *y)
{
	double a = *(const double *)x, b = *(const double *)y;
	return a < b ? -1 : a > b;
}

#if RT_SGEMM_HAVE_AVX512
__attribute__((target("avx512f"))) static float sum_avx512(const float *p, size_t n)
{
	__m512 s0 = _mm512_setzero_ps(), s1 = s0, s2 = s0, s3 = s0;
	for (size_t i = 0; i + 64 <= n; i += 64) {
		s0 = _mm512_add_ps(s0, _mm512_loadu_ps(p + i));
		s1 = _mm512_add_ps(s1, _mm512_loadu_ps(p + i + 16));
		s2 = _mm512_add_ps(s2, _mm512_loadu_ps(p + i + 32));
		s3 = _mm512_add_ps(s3, _mm512_loadu_ps(p + i + 48));
	}
	return _mm512_reduce_add_ps(_mm512_add_ps(_mm512_add_ps(s0, s1), _mm512_add_ps(s2, s3)));
}
#endif

static float sum_c(const float *p, size_t n)
{
	float s[16] = {0};
	for (size_t i = 0; i + 16 <= n; i += 16)
		for (int j = 0; j < 16; j++)
			s[j] += p[i + j];
	float t = 0;
	for (int j = 0; j < 16; j++)
		t += s[j];
	return t;
}

int main(int argc, char **argv)
{
	int reps = argc > 1 ? atoi(argv[1]) : 15;
	if (reps < 1)
		reps = 1;
	const int isa = rt_sgemm_isa_host();
	static const int KN[3][2] = {{9216, 4096}, {4096, 4096}, {4096, 1000}};
	float *w[3], *wp[3], *bias[3], *act[4];
	size_t bytes = 0;
	unsigned seed = 1;
	for (int l = 0; l < 3; l++) {
		const int K = KN[l][0], N = KN[l][1];
		w[l] = malloc(sizeof(float) * (size_t)K * N);
		wp[l] = malloc(sizeof(float) * rt_gemm_fc_pack_size(isa, N, K));
		bias[l] = malloc(sizeof(float) * (size_t)N);
		for (size_t i = 0; i < (size_t)K * N; i++) {
			seed = seed * 1103515245u + 12345u;
			w[l][i] = (float)((seed >> 9) & 0x3FF) / 65536.0f - 0.0078f;
		}
		for (int i = 0; i < N; i++)
			bias[l][i] = 0.01f * (float)(i % 7);
		rt_gemm_fc_pack(isa, N, K, w[l], 1, (size_t)K, wp[l]);
		bytes += rt_gemm_fc_pack_size(isa, N, K) * sizeof(float);
	}
	for (int l = 0; l < 4; l++) {
		const int n = l == 0 ? 9216 : l == 3 ? 1000 : 4096;
		act[l] = malloc(sizeof(float) * (size_t)n);
		for (int i = 0; i < n; i++)
			act[l][i] = l == 0 ? (float)(i % 13) / 13.0f : 0.0f;
	}
	struct rt_gemm p[3];
	for (int l = 0; l < 3; l++)
		p[l] = (struct rt_gemm){.M = 1, .N = KN[l][1], .K = KN[l][0], .transB = 1,
		                        .alpha = 1.0f, .beta = 1.0f, .c_sm = 0, .c_sn = 1,
		                        .act = l < 2 ? RT_ACT_RELU : RT_ACT_NONE};
	double *cpu = malloc(sizeof(double) * (size_t)reps), *wall = malloc(sizeof(double) * (size_t)reps);
	float ref_out[1000];
	for (int variant = 0; variant < 2; variant++) {
		for (int r = 0; r < reps; r++) {
			double c0 = now(CLOCK_THREAD_CPUTIME_ID), w0 = now(CLOCK_MONOTONIC);
			for (int l = 0; l < 3; l++) {
				if (variant == 0)
					rt_gemm_ref(&p[l], act[l], w[l], bias[l], act[l + 1]);
				else
					rt_gemm_fc(&p[l], isa, act[l], wp[l], bias[l], act[l + 1]);
			}
			cpu[r] = now(CLOCK_THREAD_CPUTIME_ID) - c0;
			wall[r] = now(CLOCK_MONOTONIC) - w0;
		}
		qsort(cpu, (size_t)reps, sizeof *cpu, cmp_d);
		qsort(wall, (size_t)reps, sizeof *wall, cmp_d);
		double maxdiff = 0;
		if (variant == 0)
			memcpy(ref_out, act[3], sizeof ref_out);
		else
			for (int i = 0; i < 1000; i++) {
				double d = ref_out[i] - act[3][i];
				maxdiff = d < 0 ? (-d > maxdiff ? -d : maxdiff) : (d > maxdiff ? d : maxdiff);
			}
		printf("%-12s median cpu %8.2f ms  wall %8.2f ms  min cpu %8.2f ms  -> %5.1f GB/s of weights (median cpu)",
		       variant ? "rt_gemm_fc" : "rt_gemm_ref", 1e3 * cpu[reps / 2], 1e3 * wall[reps / 2],
		       1e3 * cpu[0], 1e-9 * (double)bytes / cpu[reps / 2]);
		if (variant)
			printf("  max |fc - ref| %.3g", maxdiff);
		printf("\n");
	}
	/* streaming read bandwidth */
	const size_t n = (size_t)512 << 18; /* 512 MiB of floats */
	float *buf = malloc(n * sizeof(float));
	for (size_t i = 0; i < n; i++)
		buf[i] = (float)(i & 7);
	double best = 1e30;
	float sink = 0;
	for (int r = 0; r < reps; r++) {
		double c0 = now(CLOCK_THREAD_CPUTIME_ID);
#if RT_SGEMM_HAVE_AVX512
		sink += rt_sgemm_isa_supported(RT_SGEMM_ISA_AVX512) ? sum_avx512(buf, n) : sum_c(buf, n);
#else
		sink += sum_c(buf, n);
#endif
		double t = now(CLOCK_THREAD_CPUTIME_ID) - c0;
		best = t < best ? t : best;
	}
	printf("read bandwidth (best of %d, cpu time): %.1f GB/s (sink %g); isa %s, weights %.1f MB\n",
	       reps, 1e-9 * (double)(n * sizeof(float)) / best, (double)sink, rt_sgemm_isa_name(isa),
	       1e-6 * (double)bytes);
	return 0;
}
