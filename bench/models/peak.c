/* peak.c - the machine's single-core fp32 peak and read bandwidth, for
 * `make bench-models` (which states each network's fraction of peak).
 *
 *   bench/peak [REPS]    (default 5; best of REPS, thread CPU time)
 *
 * Peak: a loop of fused multiply-adds on independent vector accumulators
 * (more than FMA latency x FMA ports, so the loop is bound by throughput, and
 * few enough that they and the two operands stay in registers: AVX2 has 16
 * ymm registers, so 12 accumulators there, 16 on AVX-512's 32 zmm; with 16
 * on AVX2 two of them went through the stack every trip and the loop ran at
 * half the peak of a Zen 3), for each instruction set the CPU runs: AVX-512
 * (16 lanes), AVX2 + FMA (8 lanes), and plain C (scalar multiply-add, what
 * the compiler makes of it). 2 flops per lane per FMA. The best set's figure
 * is the peak.
 * Read bandwidth: a 256 MiB buffer (far beyond the caches) summed with eight
 * independent accumulators, vectorised the same way, best of REPS passes.
 * The best of several is the least disturbed by other jobs on a shared machine;
 * thread CPU time does not count time the thread was descheduled.
 * Then the same buffer by two threads at once, each summing its own half:
 * the 256 MiB over the wall time from the first thread's start to the last
 * one's end, best of REPS. What two cores read together bounds the 2-thread
 * speedup of a network whose time goes to streaming its weights (AlexNet's
 * and VGG's classifiers read 235 and 484 MB a call): a VM's second core often
 * adds far less bandwidth than its first, and how much varies with the host's
 * load.
 *
 * Prints lines the benchmark reads:
 *   peak_gflops ISA VALUE
 *   bandwidth_gbs VALUE      (one core)
 *   bandwidth2_gbs VALUE     (two threads)
 *
 *   bench/peak handoff      prints what handing a buffer from one core to
 *                           the other costs (below), between two round trips
 *   bench/peak roundtrip    prints only  roundtrip_ns VALUE
 * the time for two threads to hand a cache line to each other and back
 * (one spins until the other's write arrives, then answers), median of
 * 9 passes of 20000 round trips, the threads pinned to CPUs 0 and 1 (on
 * Linux; elsewhere left to the scheduler). On the 2-core Zen 4 VMs this
 * project runs on, it is 50-90 ns most of the time and 310-360 ns for
 * stretches of tens of seconds, when the host has placed the two vCPUs on
 * cores that share no L3 (different CCDs); 2-thread code that hands
 * layers' data between its threads runs 25% slower then (bench/README.md),
 * so bench_models.py measures it before every round.
 * Needs libc and POSIX threads; the vector code is enabled per function
 * (GCC/Clang target attributes on x86-64) and chosen at run time, so any
 * x86-64 or other CPU runs it. */
#ifdef __linux__
#define _GNU_SOURCE /* pthread_setaffinity_np, for the round trips */
#endif
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 199309L
#endif
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define HAVE_X86 1
#include <cpuid.h>
#include <immintrin.h>
#else
#define HAVE_X86 0
#endif

#define ACC 16        /* independent accumulators: AVX-512 and plain C */
#define ACC_AVX2 12   /* AVX2: 12 + the two operands of 16 ymm registers */
#define ITERS 4000000 /* loop trips per measurement */

static double cpu_now(void)
{
	struct timespec t;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
	return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static volatile float sink;

static double wall_now(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* Each returns the flops it performed. */
static double fma_c(void)
{
	float acc[ACC];
	float b = 0.999999f, c = 1e-6f;
	int i, j;
	for (j = 0; j < ACC; j++)
		acc[j] = (float)j;
	for (i = 0; i < ITERS / 4; i++)
#pragma GCC unroll 16
		for (j = 0; j < ACC; j++)
			acc[j] = acc[j] * b + c;
	for (j = 1; j < ACC; j++)
		acc[0] += acc[j];
	sink = acc[0];
	return 2.0 * ACC * (ITERS / 4);
}

static double sum_c(const float *p, size_t n)
{
	float acc[8] = {0};
	size_t i;
	int j;
	for (i = 0; i + 8 <= n; i += 8)
		for (j = 0; j < 8; j++)
			acc[j] += p[i + j];
	for (j = 1; j < 8; j++)
		acc[0] += acc[j];
	return acc[0];
}

#if HAVE_X86
__attribute__((target("avx512f"))) static double fma_avx512(void)
{
	__m512 acc[ACC];
	__m512 b = _mm512_set1_ps(0.999999f), c = _mm512_set1_ps(1e-6f);
	int i, j;
	for (j = 0; j < ACC; j++)
		acc[j] = _mm512_set1_ps((float)j);
	for (i = 0; i < ITERS; i++)
#pragma GCC unroll 16
		for (j = 0; j < ACC; j++)
			acc[j] = _mm512_fmadd_ps(acc[j], b, c);
	for (j = 1; j < ACC; j++)
		acc[0] = _mm512_add_ps(acc[0], acc[j]);
	sink = _mm512_reduce_add_ps(acc[0]);
	return 2.0 * 16 * ACC * ITERS;
}

__attribute__((target("avx2,fma"))) static double fma_avx2(void)
{
	__m256 acc[ACC_AVX2];
	__m256 b = _mm256_set1_ps(0.999999f), c = _mm256_set1_ps(1e-6f);
	float out[8];
	int i, j;
	for (j = 0; j < ACC_AVX2; j++)
		acc[j] = _mm256_set1_ps((float)j);
	for (i = 0; i < ITERS; i++)
#pragma GCC unroll 12
		for (j = 0; j < ACC_AVX2; j++)
			acc[j] = _mm256_fmadd_ps(acc[j], b, c);
	for (j = 1; j < ACC_AVX2; j++)
		acc[0] = _mm256_add_ps(acc[0], acc[j]);
	_mm256_storeu_ps(out, acc[0]);
	sink = out[0];
	return 2.0 * 8 * ACC_AVX2 * ITERS;
}

__attribute__((target("avx512f"))) static double sum_avx512(const float *p, size_t n)
{
	__m512 a[8];
	size_t i;
	int j;
	for (j = 0; j < 8; j++)
		a[j] = _mm512_setzero_ps();
	for (i = 0; i + 128 <= n; i += 128)
		for (j = 0; j < 8; j++)
			a[j] = _mm512_add_ps(a[j], _mm512_loadu_ps(p + i + 16 * j));
	for (j = 1; j < 8; j++)
		a[0] = _mm512_add_ps(a[0], a[j]);
	return _mm512_reduce_add_ps(a[0]);
}

__attribute__((target("avx2"))) static double sum_avx2(const float *p, size_t n)
{
	__m256 a[8];
	float out[8];
	size_t i;
	int j;
	for (j = 0; j < 8; j++)
		a[j] = _mm256_setzero_ps();
	for (i = 0; i + 64 <= n; i += 64)
		for (j = 0; j < 8; j++)
			a[j] = _mm256_add_ps(a[j], _mm256_loadu_ps(p + i + 8 * j));
	for (j = 1; j < 8; j++)
		a[0] = _mm256_add_ps(a[0], a[j]);
	_mm256_storeu_ps(out, a[0]);
	return out[0];
}
#endif

/* One thread's half of the 2-thread bandwidth pass. */
struct half {
	double (*sum)(const float *, size_t);
	const float *p;
	size_t n;
	double total;
};

static void *sum_half(void *arg)
{
	struct half *h = arg;
	h->total = h->sum(h->p, h->n);
	return NULL;
}

/* Best wall time of REPS passes of two threads over the halves of buf[n];
 * 0 when a thread could not start. */
static double two_thread_pass(double (*sum)(const float *, size_t), const float *buf, size_t n,
                              int reps)
{
	double best = 1e30;
	int r;
	for (r = 0; r < reps; r++) {
		struct half h[2];
		pthread_t th;
		double t0, t;
		h[0].sum = h[1].sum = sum;
		h[0].p = buf;
		h[0].n = n / 2;
		h[1].p = buf + n / 2;
		h[1].n = n - n / 2;
		t0 = wall_now();
		if (pthread_create(&th, NULL, sum_half, &h[1]) != 0)
			return 0;
		sum_half(&h[0]);
		pthread_join(th, NULL);
		t = wall_now() - t0;
		sink = (float)(h[0].total + h[1].total);
		best = t < best ? t : best;
	}
	return best;
}

static double best_gflops(double (*f)(void), int reps)
{
	double best = 0;
	int r;
	for (r = 0; r < reps; r++) {
		double t0 = cpu_now(), flops = f(), t = cpu_now() - t0;
		if (t > 0 && flops / t > best)
			best = flops / t;
	}
	return 1e-9 * best;
}

/* The round trips: the caller writes 1, the partner answers 0 (and writes
 * 0 once first, when it runs). */
#define RT_TRIPS 20000
static volatile int baton __attribute__((aligned(64)));

/* Pins the calling thread to CPU c where the system lets it. */
static void pin_to(int c)
{
#ifdef __linux__
	cpu_set_t set;
	CPU_ZERO(&set);
	CPU_SET(c, &set);
	pthread_setaffinity_np(pthread_self(), sizeof set, &set);
#else
	(void)c;
#endif
}

static void *partner(void *arg)
{
	int i;
	(void)arg;
	pin_to(1);
	baton = 0; /* ready */
	for (i = 0; i < RT_TRIPS; i++) {
		while (baton != 1)
			;
		baton = 0;
	}
	return NULL;
}

static int cmp_double(const void *a, const void *b)
{
	const double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

/* Median ns of one round trip over 9 passes; negative when no thread. */
static double roundtrip_ns(void)
{
	double t[9];
	int r, i;
	pin_to(0);
	for (r = 0; r < 9; r++) {
		pthread_t th;
		double t0;
		baton = 2;
		if (pthread_create(&th, NULL, partner, NULL) != 0)
			return -1;
		while (baton != 0) /* the partner runs, pinned */
			;
		t0 = wall_now();
		for (i = 0; i < RT_TRIPS; i++) {
			baton = 1;
			while (baton != 0)
				;
		}
		t[r] = (wall_now() - t0) * 1e9 / RT_TRIPS;
		pthread_join(th, NULL);
	}
	qsort(t, 9, sizeof *t, cmp_double);
	return t[4];
}

/* The hand-off: CPU 0 writes a 1 MiB buffer, CPU 1 then reads all of it,
 * and again, the way one layer's output on one core becomes the next
 * layer's input on the other; ns per 64-byte line for each side, median
 * of HO_PASSES passes after HO_WARM. Three ways: "private", CPU 0 alone
 * rewriting a buffer no one else reads (the floor); "stores", ordinary
 * stores, so every line CPU 0 rewrites is one the other core holds a copy
 * of; "stream" (x86-64), non-temporal stores, which write around the caches;
 * "flush" (x86-64 with clflushopt), ordinary stores after dropping the whole
 * buffer from every cache with clflushopt, which runs many lines at once.
 * On the Zen 4 VMs ordinary stores cost about 6 ns a line with a shared
 * L3 and 26-29 ns in split-L3 stretches, against 1.1 private: each line
 * the writer rewrites is one it still holds, shared with the other core,
 * whose copy must be invalidated first, one line at a time (the hardware
 * prefetcher does not ask for lines the writer already holds, and a
 * software prefetchw made no difference). Streaming stores cost about
 * 2.4 ns and the read after them 1.8, in both states; flush then store
 * about 4.3 ns (4.1 shared), the read after them as after plain stores. */
#define HO_FLOATS (1 << 18) /* 1 MiB */
#define HO_WARM 5
#define HO_PASSES 41
static float *ho_buf;
static volatile int ho_go, ho_ack;
static double ho_read_ns; /* the reader's last pass, ns */

#if HAVE_X86
/* Drops every line of the buffer from every cache, many at a time. */
__attribute__((target("clflushopt"))) static void ho_flush(void)
{
	size_t i;
	for (i = 0; i < HO_FLOATS; i += 16)
		_mm_clflushopt(ho_buf + i);
	_mm_sfence();
}
#endif

static void ho_write(int how, float v)
{
	size_t i;
#if HAVE_X86
	if (how == 3)
		ho_flush();
	if (how == 2) {
		const __m128 x = _mm_set1_ps(v);
		for (i = 0; i < HO_FLOATS; i += 4)
			_mm_stream_ps(ho_buf + i, x);
		_mm_sfence();
		return;
	}
#endif
	(void)how;
	/* a line a trip: the loop's own overhead and where its code happens to
	 * land (one store a trip ran at 1.1 or 2.2 ns a line, private, as the
	 * loop crossed a 64-byte boundary or not) do not show in the figures */
	for (i = 0; i < HO_FLOATS; i += 16) {
		int j;
		for (j = 0; j < 16; j++)
			ho_buf[i + j] = v;
	}
}

static void *ho_reader(void *arg)
{
	int seen = 0;
	(void)arg;
	pin_to(1);
	for (;;) {
		double t0;
		while (ho_go == seen)
			;
		seen = ho_go;
		if (seen < 0)
			return NULL;
		t0 = wall_now();
		sink = (float)sum_c(ho_buf, HO_FLOATS);
		ho_read_ns = (wall_now() - t0) * 1e9;
		ho_ack = seen;
	}
}

/* Prints one handoff_ns line for the way how (0 private, 1 stores, 2
 * stream, 3 flush). */
static int handoff(int how)
{
	static const char *name[4] = {"private", "stores", "stream", "flush"};
	double w[HO_PASSES], rd[HO_PASSES];
	const double lines = HO_FLOATS * sizeof(float) / 64.0;
	pthread_t th;
	int r;
	pin_to(0);
	ho_go = ho_ack = 0;
	if (pthread_create(&th, NULL, ho_reader, NULL) != 0)
		return -1;
	for (r = 0; r < HO_WARM + HO_PASSES; r++) {
		const double t0 = wall_now();
		ho_write(how, (float)r);
		const double t = (wall_now() - t0) * 1e9;
		if (how > 0) {
			ho_go = r + 1;
			while (ho_ack != r + 1)
				;
		}
		if (r >= HO_WARM) {
			w[r - HO_WARM] = t / lines;
			rd[r - HO_WARM] = how > 0 ? ho_read_ns / lines : 0;
		}
	}
	ho_go = -1;
	pthread_join(th, NULL);
	qsort(w, HO_PASSES, sizeof *w, cmp_double);
	qsort(rd, HO_PASSES, sizeof *rd, cmp_double);
	if (how > 0)
		printf("handoff_ns %s write %.2f read %.2f\n", name[how], w[HO_PASSES / 2],
		       rd[HO_PASSES / 2]);
	else
		printf("handoff_ns %s write %.2f\n", name[how], w[HO_PASSES / 2]);
	return 0;
}

/* Whether the CPU has clflushopt (the "flush" way). */
static int ho_can_flush(void)
{
#if HAVE_X86
	unsigned a, b, c, d; /* CPUID leaf 7: EBX bit 23 (clang 14 knows no "clflushopt" here) */
	return __get_cpuid_count(7, 0, &a, &b, &c, &d) && (b >> 23 & 1);
#else
	return 0;
#endif
}

int main(int argc, char **argv)
{
	int reps = argc > 1 ? atoi(argv[1]) : 5;
	const size_t n = (size_t)64 << 20; /* floats: 256 MiB */
	double (*sum)(const float *, size_t) = sum_c;
	const char *sum_isa = "c";
	double best = 1e30, total = 0;
	float *buf;
	size_t i;
	int r;

	if (argc > 1 && strcmp(argv[1], "roundtrip") == 0) {
		const double ns = roundtrip_ns();
		if (ns < 0) {
			fprintf(stderr, "peak: could not start a thread\n");
			return 1;
		}
		printf("roundtrip_ns %.1f\n", ns);
		return 0;
	}
	if (argc > 1 && strcmp(argv[1], "handoff") == 0) {
		int how;
		ho_buf = malloc(HO_FLOATS * sizeof *ho_buf + 64);
		if (!ho_buf) {
			fprintf(stderr, "peak: no memory for the hand-off buffer\n");
			return 1;
		}
		ho_buf = (float *)(((size_t)ho_buf + 63) & ~(size_t)63); /* never freed */
		printf("roundtrip_ns %.1f\n", roundtrip_ns());
		for (how = 0; how < 4; how++)
			if ((how < 2 || HAVE_X86) && (how < 3 || ho_can_flush()) && handoff(how) != 0) {
				fprintf(stderr, "peak: could not start a thread\n");
				return 1;
			}
		printf("roundtrip_ns %.1f\n", roundtrip_ns());
		return 0;
	}
	if (reps < 1)
		reps = 1;
	printf("peak_gflops c %.2f\n", best_gflops(fma_c, reps));
#if HAVE_X86
	__builtin_cpu_init();
	if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) {
		printf("peak_gflops avx2 %.2f\n", best_gflops(fma_avx2, reps));
		sum = sum_avx2;
		sum_isa = "avx2";
	}
	if (__builtin_cpu_supports("avx512f")) {
		printf("peak_gflops avx512 %.2f\n", best_gflops(fma_avx512, reps));
		sum = sum_avx512;
		sum_isa = "avx512";
	}
#endif
	fflush(stdout);
	buf = malloc(n * sizeof *buf);
	if (!buf) {
		fprintf(stderr, "peak: no memory for the 256 MiB bandwidth buffer\n");
		return 1;
	}
	for (i = 0; i < n; i++)
		buf[i] = (float)(i & 7);
	for (r = 0; r < reps; r++) {
		double t0 = cpu_now(), t;
		total += sum(buf, n);
		t = cpu_now() - t0;
		best = t < best ? t : best;
	}
	sink = (float)total;
	printf("bandwidth_gbs %.2f\n", 1e-9 * (double)(n * sizeof *buf) / best);
	printf("bandwidth_isa %s\n", sum_isa);
	best = two_thread_pass(sum, buf, n, reps);
	if (best > 0)
		printf("bandwidth2_gbs %.2f\n", 1e-9 * (double)(n * sizeof *buf) / best);
	free(buf);
	return 0;
}
