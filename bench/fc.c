/* fc.c - AlexNet's classifier at batch 1 (Gemm 9216x4096, 4096x4096,
 * 4096x1000, weights [N, K] as PyTorch exports them, transB = 1, ReLU on the
 * first two): rt_gemm_ref (the reference) against rt_gemm_fc on weights
 * packed for the host's ISA, and the machine's single-core streaming read
 * bandwidth, so the fraction of it the FC kernel reaches can be stated.
 *
 *   bench/fc [REPS]   (default 15; median of REPS, thread CPU time and wall)
 *
 * Then what two cores reach together, for a bandwidth-bound layer's 2-thread
 * speedup: two threads pinned to CPUs 0 and 1 each stream their own half of
 * the first layer's packed weights (rt_gemm_fc on four panels, 9.4 MB, a
 * pass) or of the bandwidth buffer (8 MiB a pass), and one thread alone
 * does the same. On a loaded machine a pass counts only when it ran
 * undisturbed (wall within 2% of its thread CPU time) and, at 2 threads,
 * when undisturbed passes of the other thread cover it; printed: the
 * median rate of such passes per thread and their sum, against one core.
 *
 * Page size (Linux): the packed weights are also copied into memory that
 * asks for 2 MiB pages (madvise MADV_HUGEPAGE; THP is often madvise-only),
 * and rt_gemm_fc is timed on both copies, alternately, and at two cores on
 * both; the line says how much of the copy the kernel gave huge pages
 * (AnonHugePages). Generated code embeds its weights in .rodata, 4 KiB
 * pages of the executable, so the 4 KiB figures are the network's.
 *
 * Bandwidth: a 512 MiB buffer summed with four independent vector
 * accumulators (AVX-512 where the CPU has it, else plain C, which the
 * compiler may vectorise), best of REPS passes. Weights total 235 MB, far
 * beyond the caches, so every FC run streams them from memory. */
#define _GNU_SOURCE /* pthread_setaffinity_np */
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#ifdef __linux__
#include <sys/mman.h> /* madvise */
#endif

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

static float sum_any(const float *p, size_t n)
{
#if RT_SGEMM_HAVE_AVX512
	if (rt_sgemm_isa_supported(RT_SGEMM_ISA_AVX512))
		return sum_avx512(p, n);
#endif
	return sum_c(p, n);
}

/* Two cores streaming at once (see the top). */
#define FC_PASSES 600
struct fc_pass {
	double w0, w1, cpu; /* wall start and end, thread CPU time (s) */
};
struct fc_stream {
	int cpu;                    /* CPU to pin to; -1: stay */
	int isa, fc;                /* fc: rt_gemm_fc passes, else sums */
	const struct rt_gemm *p;    /* the layer (fc) */
	const float *a, *bp, *c;    /* its input, packed weights, bias */
	float *y;                   /* [N] out */
	int p0, np;                 /* this thread's panels [p0, p0 + np) */
	const float *buf;           /* sums: this thread's part, parts x 8 MiB */
	int parts;
	float sink;
	int passes;
	struct fc_pass rec[FC_PASSES];
};

static void *fc_stream_run(void *arg)
{
	struct fc_stream *s = arg;
	const int nb = RT_FC_NB(s->isa), step = 4; /* panels a pass */
	const size_t part = (size_t)2 << 20;       /* floats a sum pass */
	if (s->cpu >= 0) {
		cpu_set_t set;
		CPU_ZERO(&set);
		CPU_SET(s->cpu, &set);
		pthread_setaffinity_np(pthread_self(), sizeof set, &set);
	}
	for (int i = 0; i < s->passes; i++) {
		double c0 = now(CLOCK_THREAD_CPUTIME_ID), w0 = now(CLOCK_MONOTONIC);
		if (s->fc) {
			const int q = s->p0 + (i * step) % s->np; /* first panel */
			struct rt_gemm g = *s->p;
			g.N = step * nb;
			rt_gemm_fc(&g, s->isa, s->a, s->bp + (size_t)q * nb * g.K, s->c + (size_t)q * nb,
			           s->y + (size_t)q * nb);
		} else {
			s->sink += sum_any(s->buf + (size_t)(i % s->parts) * part, part);
		}
		double w1 = now(CLOCK_MONOTONIC);
		s->rec[i] = (struct fc_pass){w0, w1, now(CLOCK_THREAD_CPUTIME_ID) - c0};
	}
	return NULL;
}

static int fc_clean(const struct fc_pass *r)
{
	return r->w1 - r->w0 < 1.02 * r->cpu;
}

/* Median rate (GB/s) of thread t's clean passes, at 2 threads those that
 * clean passes of the other thread cover; *count: how many. */
static double fc_rate(struct fc_stream *s, int nt, int t, double bytes, int *count)
{
	double *r = malloc(sizeof(double) * FC_PASSES);
	int n = 0;
	for (int i = 0; i < s[t].passes; i++) {
		const struct fc_pass *a = &s[t].rec[i];
		if (!fc_clean(a))
			continue;
		double cover = 0;
		for (int k = 0; nt == 2 && k < s[1 - t].passes; k++) {
			const struct fc_pass *b = &s[1 - t].rec[k];
			double lo = a->w0 > b->w0 ? a->w0 : b->w0, hi = a->w1 < b->w1 ? a->w1 : b->w1;
			if (fc_clean(b) && hi > lo)
				cover += hi - lo;
		}
		if (nt == 1 || cover > 0.98 * (a->w1 - a->w0))
			r[n++] = 1e-9 * bytes / (a->w1 - a->w0);
	}
	qsort(r, (size_t)n, sizeof *r, cmp_d);
	double med = n ? r[n / 2] : 0;
	free(r);
	*count = n;
	return med;
}

static void fc_two_cores(const char *what, struct fc_stream *s, double bytes)
{
	pthread_t tid[2];
	int n1, n2a, n2b;
	struct fc_stream one = s[0];
	one.cpu = -1;
	one.np *= 2;
	one.parts *= 2;
	fc_stream_run(&one);
	double r1 = fc_rate(&one, 1, 0, bytes, &n1);
	for (int t = 0; t < 2; t++)
		pthread_create(&tid[t], NULL, fc_stream_run, &s[t]);
	for (int t = 0; t < 2; t++)
		pthread_join(tid[t], NULL);
	double ra = fc_rate(s, 2, 0, bytes, &n2a), rb = fc_rate(s, 2, 1, bytes, &n2b);
	printf("%-10s 1 core %5.1f GB/s (%3d clean passes); 2 cores %5.1f + %5.1f = %5.1f GB/s (%3d, %3d); "
	       "2 cores / 1: %.2f\n",
	       what, r1, n1, ra, rb, ra + rb, n2a, n2b, r1 > 0 ? (ra + rb) / r1 : 0);
}

/* A copy of n floats in memory that asks for 2 MiB pages where the system
 * has madvise(MADV_HUGEPAGE); NULL elsewhere or when out of memory. */
static float *huge_copy(const float *src, size_t n)
{
#if defined(__linux__) && defined(MADV_HUGEPAGE)
	const size_t huge = (size_t)2 << 20, bytes = (n * sizeof(float) + huge - 1) / huge * huge;
	float *d = aligned_alloc(huge, bytes);
	if (!d)
		return NULL;
	madvise(d, bytes, MADV_HUGEPAGE);
	memcpy(d, src, n * sizeof(float));
	return d;
#else
	(void)src;
	(void)n;
	return NULL;
#endif
}

/* This process's AnonHugePages in MiB (/proc/self/smaps_rollup), -1 if unknown. */
static double anon_huge_mib(void)
{
	FILE *f = fopen("/proc/self/smaps_rollup", "r");
	char line[256];
	double kib = -1;
	while (f && fgets(line, sizeof line, f))
		if (sscanf(line, "AnonHugePages: %lf kB", &kib) == 1)
			break;
	if (f)
		fclose(f);
	return kib < 0 ? -1 : kib / 1024;
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
		/* 64-byte aligned, as generated code places weights */
		wp[l] = aligned_alloc(64, (sizeof(float) * rt_gemm_fc_pack_size(isa, N, K) + 63) / 64 * 64);
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
	/* the same weights in 2 MiB pages, timed alternately with the 4 KiB copy */
	float *hp[3] = {NULL, NULL, NULL};
	for (int l = 0; l < 3; l++)
		hp[l] = huge_copy(wp[l], rt_gemm_fc_pack_size(isa, KN[l][1], KN[l][0]));
	if (hp[0] && hp[1] && hp[2]) {
		double *cpu_h = malloc(sizeof(double) * (size_t)reps);
		for (int r = 0; r < reps; r++)
			for (int v = 0; v < 2; v++) {
				double c0 = now(CLOCK_THREAD_CPUTIME_ID);
				for (int l = 0; l < 3; l++)
					rt_gemm_fc(&p[l], isa, act[l], v ? hp[l] : wp[l], bias[l], act[l + 1]);
				(v ? cpu_h : cpu)[r] = now(CLOCK_THREAD_CPUTIME_ID) - c0;
			}
		qsort(cpu, (size_t)reps, sizeof *cpu, cmp_d);
		qsort(cpu_h, (size_t)reps, sizeof *cpu_h, cmp_d);
		printf("page size    rt_gemm_fc median cpu %.2f ms on 4 KiB pages (%.1f GB/s), %.2f ms on "
		       "2 MiB pages (%.1f GB/s; %.0f MiB of them granted): x%.2f\n",
		       1e3 * cpu[reps / 2], 1e-9 * (double)bytes / cpu[reps / 2], 1e3 * cpu_h[reps / 2],
		       1e-9 * (double)bytes / cpu_h[reps / 2], anon_huge_mib(), cpu[reps / 2] / cpu_h[reps / 2]);
		free(cpu_h);
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
	/* two cores: layer 0's 64 panels (32 a thread), the buffer's 64 parts
	 * of 8 MiB (32 a thread) */
	static struct fc_stream st[2];
	const int panels = (KN[0][1] + RT_FC_NB(isa) - 1) / RT_FC_NB(isa);
	for (int t = 0; t < 2; t++)
		st[t] = (struct fc_stream){.cpu = t, .isa = isa, .fc = 1, .p = &p[0], .a = act[0],
		                           .bp = wp[0], .c = bias[0], .y = act[1],
		                           .p0 = t * (panels / 2), .np = panels / 2,
		                           .passes = FC_PASSES};
	if (panels >= 8 && panels % 8 == 0) {
		fc_two_cores("rt_gemm_fc", st, 4.0 * 4 * RT_FC_NB(isa) * KN[0][0]);
		if (hp[0]) {
			st[0].bp = st[1].bp = hp[0];
			fc_two_cores("fc 2 MiB", st, 4.0 * 4 * RT_FC_NB(isa) * KN[0][0]);
		}
	}
	for (int t = 0; t < 2; t++)
		st[t] = (struct fc_stream){.cpu = t, .isa = isa, .fc = 0, .buf = buf + (n / 2) * t,
		                           .parts = (int)(n / 2 / ((size_t)2 << 20)), .passes = FC_PASSES};
	fc_two_cores("read", st, 4.0 * (2 << 20));
	return 0;
}
