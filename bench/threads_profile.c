/* threads_profile.c - how well a model's threaded layers could scale to 2
 * threads, from CPU time, so it can be measured on a loaded machine where
 * wall-clock speedups mean nothing. Compiled together with a model that dnncc
 * generated with `--name model --threads 2 --instrument` (bench/threads_profile.sh
 * does it):
 *
 *   cc -std=gnu99 -O2 -I. -DDNNCC_PROFILE_CLOCK=CLOCK_THREAD_CPUTIME_ID \
 *      -o prof .../bench/threads_profile.c -lm -lpthread     (in the model's folder)
 *   ./prof INPUT.bin RUNS [TOP]
 *
 * It hooks the pool (RT_POOL_HOOK_CHUNK/JOB, thread_pool.c) to time every
 * chunk on its thread's CPU clock and the caller's CPU time in every job, and
 * reads the per-layer rows of --instrument, here on the caller's CPU clock.
 * It alternates runs at 1 thread (model_set_threads(1): every layer on the
 * caller) and at 2 threads, RUNS of each, and takes per-layer medians:
 *
 *   t1      the layer's CPU time at 1 thread
 *   work2   its CPU time at 2 threads, every thread together: the serial part
 *           (caller time outside jobs) plus every chunk
 *   best2   the critical path the split allows: the serial part plus, per job,
 *           the finish time of 2 threads claiming its chunks in order (each takes
 *           the next chunk when it is free), fork/join cost not counted
 *   max2    the critical path as run: the larger of the two threads' busy CPU
 *           times (the caller's serial part and chunks; the worker's chunks),
 *           waiting not counted
 *
 * and per network: t1 / best2 (the best 2-thread speedup the split allows),
 * the serial fraction (serial CPU / work2), jobs per run, and the 2-thread
 * overhead work2 / t1 (memory contention shows up there); PROF_TSV=FILE also
 * writes every row's medians to FILE (for A/B scripts), and PROF_PIN=1 pins
 * the caller to CPU 0 and the worker to CPU 1. Pin on a loaded machine:
 * unpinned, the worker often shares the caller's core (max2 then equals
 * work2), and what a second core costs (its caches hold the other thread's
 * data) never shows; pinned, each thread keeps its core, time-shared with
 * other jobs but not with the other thread. Then the TOP layers
 * that lose most against a perfect halving (best2 - t1 / 2). A last line
 * times an empty job (minimum wall time over many: the fork/join cost on an
 * idle core; on a loaded machine only the minimum means something). */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define PROF_MAX_JOBS 8192
#define PROF_MAX_CHUNKS 64
/* How long a waiting worker spins before it sleeps (RT_POOL_SLEEP_SPINS_
 * pauses: 200 us on the 2-core Xeon; 25 us before this tool's first use) */
#ifndef PROF_SPIN_US
#define PROF_SPIN_US 200
#endif

struct prof_job {
	int row;                        /* the --instrument row running it */
	int chunks;
	double caller_us;               /* caller CPU from the job's start to its end */
	double begin_us;                /* the caller's CPU clock at the start */
	double chunk_us[PROF_MAX_CHUNKS];
	int by_worker[PROF_MAX_CHUNKS]; /* the chunk ran on the worker, not the caller */
};

static struct prof_job prof_jobs[PROF_MAX_JOBS];
static int prof_njobs, prof_on;
static long prof_chunks; /* chunks timed (every 2-thread run) */
static double prof_t0;
static pthread_t prof_caller;
static int prof_current_row(void);

static double prof_cpu_us(void)
{
	struct timespec t;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
	return (double)t.tv_sec * 1e6 + (double)t.tv_nsec / 1e3;
}

static void prof_job(int end, int chunks)
{
	if (!prof_on)
		return;
	if (!end) {
		if (prof_njobs < PROF_MAX_JOBS) {
			struct prof_job *j = &prof_jobs[prof_njobs];
			j->row = prof_current_row();
			j->chunks = chunks < PROF_MAX_CHUNKS ? chunks : PROF_MAX_CHUNKS;
		}
		prof_t0 = prof_cpu_us();
		if (prof_njobs < PROF_MAX_JOBS)
			prof_jobs[prof_njobs].begin_us = prof_t0;
	} else if (prof_njobs < PROF_MAX_JOBS) {
		prof_jobs[prof_njobs++].caller_us = prof_cpu_us() - prof_t0;
	}
}

#define RT_POOL_HOOK_JOB(end, chunks) prof_job(end, chunks)
#define RT_POOL_HOOK_CHUNK(fn, ctx, b, e, k)                                              \
	do {                                                                                  \
		double t_ = prof_on ? prof_cpu_us() : 0;                                          \
		fn(ctx, b, e);                                                                    \
		if (prof_on && prof_njobs < PROF_MAX_JOBS && (k) < PROF_MAX_CHUNKS) {              \
			prof_jobs[prof_njobs].chunk_us[k] = prof_cpu_us() - t_;                       \
			__atomic_add_fetch(&prof_chunks, 1, __ATOMIC_RELAXED);                        \
			prof_jobs[prof_njobs].by_worker[k] = !pthread_equal(pthread_self(), prof_caller); \
		}                                                                                 \
	} while (0)

#include "model.c"

/* PROF_PIN=1: the caller on CPU 0, the pool's worker (if any) on CPU 1. */
static void prof_pin(void)
{
	cpu_set_t c;
	if (!getenv("PROF_PIN"))
		return;
	CPU_ZERO(&c);
	CPU_SET(0, &c);
	pthread_setaffinity_np(pthread_self(), sizeof c, &c);
	if (rt_pool_.n > 1) {
		CPU_ZERO(&c);
		CPU_SET(1, &c);
		pthread_setaffinity_np(rt_pool_.tid[0], sizeof c, &c);
	}
}

/* The row running now: rows before it have one call more than it has; when
 * every row has as many calls, row 0 runs. */
static int prof_current_row(void)
{
	size_t lo = 0, hi = model_profile_n - 1;
	unsigned long c0 = model_profile_rows[0].calls;
	if (model_profile_rows[hi].calls == c0)
		return 0;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		if (model_profile_rows[mid].calls == c0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return (int)lo;
}

/* 2 threads claiming chunks in order, each the next one when it is free. */
static double makespan2(const double *c, int n)
{
	double t[2] = {0, 0};
	for (int i = 0; i < n; i++) {
		int w = t[1] < t[0];
		t[w] += c[i];
	}
	return t[0] > t[1] ? t[0] : t[1];
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

static double median(double *v, int n)
{
	qsort(v, (size_t)n, sizeof *v, cmp_double);
	return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

static void empty_fn(void *ctx, int b, int e)
{
	(void)ctx;
	(void)b;
	(void)e;
}

static double wall_us(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec * 1e6 + (double)t.tv_nsec / 1e3;
}

struct layer_stat {
	double t1, work2, best2, serial2, max2;
	int jobs;
	int idx;
};

static int cmp_loss(const void *a, const void *b)
{
	const struct layer_stat *x = a, *y = b;
	double lx = x->best2 - x->t1 / 2, ly = y->best2 - y->t1 / 2;
	return (lx < ly) - (lx > ly);
}

int main(int argc, char **argv)
{
	if (argc < 3) {
		fprintf(stderr, "usage: %s INPUT.bin RUNS [TOP]\n", argv[0]);
		return 2;
	}
	const int runs = atoi(argv[2]), top = argc > 3 ? atoi(argv[3]) : 12;
	const size_t nin = model_input_sizes[0], nout = model_output_sizes[0];
	float *in = calloc(nin, sizeof *in), *out = calloc(nout, sizeof *out);
	FILE *f = fopen(argv[1], "rb");
	if (!in || !out || !f || fread(in, sizeof *in, nin, f) != nin) {
		fprintf(stderr, "cannot read %s\n", argv[1]);
		return 1;
	}
	fclose(f);
	const float *ins[1] = {in};
	float *outs[1] = {out};
	const int rows = (int)model_profile_n;
	double *t1 = calloc((size_t)rows * runs, sizeof *t1);
	double *w2 = calloc((size_t)rows * runs, sizeof *w2);
	double *b2 = calloc((size_t)rows * runs, sizeof *b2);
	double *s2 = calloc((size_t)rows * runs, sizeof *s2);
	double *cb2 = calloc((size_t)rows * runs, sizeof *cb2); /* caller busy */
	double *wb2 = calloc((size_t)rows * runs, sizeof *wb2); /* worker busy */
	double *njobs = calloc((size_t)rows, sizeof *njobs);
	double *gaps = calloc((size_t)runs, sizeof *gaps), *long_gaps = calloc((size_t)runs, sizeof *gaps);
	double *n_long = calloc((size_t)runs, sizeof *gaps), *n_25 = calloc((size_t)runs, sizeof *gaps);
	prof_caller = pthread_self();
	model_init();
	prof_pin();
	for (int w = 0; w < 2; w++) {
		model_set_threads(1);
		model_run(ins, outs);
		model_set_threads(2);
		prof_pin(); /* the worker is a new thread after every model_set_threads */
		model_run(ins, outs);
	}
	for (int r = 0; r < runs; r++) {
		model_set_threads(1);
		model_profile_reset();
		model_run(ins, outs);
		for (int i = 0; i < rows; i++)
			t1[(size_t)i * runs + r] = model_profile_rows[i].total_us;
		model_set_threads(2);
		prof_pin(); /* the worker is a new thread after every model_set_threads */
		model_profile_reset();
		prof_njobs = 0;
		prof_on = 1;
		model_run(ins, outs);
		prof_on = 0;
		if (prof_njobs >= PROF_MAX_JOBS) {
			fprintf(stderr, "more than %d jobs a run\n", PROF_MAX_JOBS);
			return 1;
		}
		for (int i = 0; i < rows; i++) {
			double caller = model_profile_rows[i].total_us;
			w2[(size_t)i * runs + r] = caller;
			b2[(size_t)i * runs + r] = caller;
			s2[(size_t)i * runs + r] = caller;
			cb2[(size_t)i * runs + r] = caller;
			wb2[(size_t)i * runs + r] = 0;
			if (r == 0)
				njobs[i] = 0;
		}
		for (int j = 1; j < prof_njobs; j++) {
			double g = prof_jobs[j].begin_us - prof_jobs[j - 1].begin_us -
			           prof_jobs[j - 1].caller_us;
			gaps[r] += g;
			n_25[r] += g > 25;
			if (g > PROF_SPIN_US) {
				long_gaps[r] += g;
				n_long[r]++;
			}
		}
		for (int j = 0; j < prof_njobs; j++) {
			const struct prof_job *p = &prof_jobs[j];
			size_t at = (size_t)p->row * runs + r;
			double sum = 0;
			for (int k = 0; k < p->chunks; k++)
				sum += p->chunk_us[k];
			s2[at] -= p->caller_us;
			w2[at] += sum - p->caller_us;
			cb2[at] -= p->caller_us;
			for (int k = 0; k < p->chunks; k++)
				*(p->by_worker[k] ? &wb2[at] : &cb2[at]) += p->chunk_us[k];
			b2[at] += makespan2(p->chunk_us, p->chunks) - p->caller_us;
			if (r == 0)
				njobs[p->row]++;
		}
	}
	/* PROF_ROW=i: the last 2-thread run's jobs of row i, chunk by chunk */
	if (getenv("PROF_ROW")) {
		const int row = atoi(getenv("PROF_ROW"));
		for (int j = 0; j < prof_njobs; j++) {
			const struct prof_job *p = &prof_jobs[j];
			if (p->row != row)
				continue;
			printf("row %d job %d: %d chunks, makespan2 %.1f us:", row, j, p->chunks,
			       makespan2(p->chunk_us, p->chunks));
			for (int k = 0; k < p->chunks; k++)
				printf(" %.1f", p->chunk_us[k]);
			printf("\n");
		}
	}
	struct layer_stat *ls = calloc((size_t)rows, sizeof *ls);
	double T1 = 0, W2 = 0, B2 = 0, S2 = 0, M2 = 0;
	int J = 0;
	for (int i = 0; i < rows; i++) {
		ls[i].idx = i;
		ls[i].t1 = median(t1 + (size_t)i * runs, runs);
		ls[i].work2 = median(w2 + (size_t)i * runs, runs);
		ls[i].best2 = median(b2 + (size_t)i * runs, runs);
		ls[i].serial2 = median(s2 + (size_t)i * runs, runs);
		if (ls[i].serial2 < 0)
			ls[i].serial2 = 0;
		ls[i].jobs = (int)njobs[i];
		for (int r = 0; r < runs; r++) {
			const size_t at = (size_t)i * runs + r;
			cb2[at] = cb2[at] > wb2[at] ? cb2[at] : wb2[at];
		}
		ls[i].max2 = median(cb2 + (size_t)i * runs, runs);
		T1 += ls[i].t1;
		W2 += ls[i].work2;
		B2 += ls[i].best2;
		S2 += ls[i].serial2;
		M2 += ls[i].max2;
		J += ls[i].jobs;
	}
	/* PROF_TSV=FILE: every row's medians, for A/B scripts */
	if (getenv("PROF_TSV")) {
		FILE *t = fopen(getenv("PROF_TSV"), "w");
		if (!t) {
			fprintf(stderr, "cannot write %s\n", getenv("PROF_TSV"));
			return 1;
		}
		fprintf(t, "row\tnode\tprimitive\tt1_us\twork2_us\tbest2_us\tmax2_us\tjobs\n");
		for (int i = 0; i < rows; i++)
			fprintf(t, "%d\t%s\t%s\t%.1f\t%.1f\t%.1f\t%.1f\t%d\n", i, model_profile_rows[i].node,
			        model_profile_rows[i].primitive, ls[i].t1, ls[i].work2, ls[i].best2, ls[i].max2,
			        ls[i].jobs);
		fclose(t);
	}
	printf("total: t1 %.0f us, work2 %.0f us (x%.3f of t1), best2 %.0f us; best 2T speedup "
	       "t1/best2 %.3f (work2/best2 %.3f); serial %.0f us = %.1f%% of work2; %d jobs a run\n",
	       T1, W2, W2 / T1, B2, T1 / B2, W2 / B2, S2, 100 * S2 / W2, J);
	printf("max2 (the busier thread's CPU, layer by layer) %.0f us: t1/max2 %.3f\n", M2, T1 / M2);
	printf("caller CPU between jobs: %.0f us a run; %.0f gaps longer than 25 us; %.0f longer "
	       "than %d us (a worker goes to sleep in them), %.0f us together\n",
	       median(gaps, runs), median(n_25, runs), median(n_long, runs), PROF_SPIN_US,
	       median(long_gaps, runs));
	printf("serial layers over 10 us at 2 threads:");
	for (int i = 0; i < rows; i++)
		if (ls[i].serial2 > 10)
			printf(" %s (%s, %.0f us)", model_profile_rows[i].node,
			       model_profile_rows[i].primitive, ls[i].serial2);
	printf("\n");
	qsort(ls, (size_t)rows, sizeof *ls, cmp_loss);
	printf("%-4s %-36s %-6s %-28s %9s %9s %9s %9s %9s %5s %9s\n", "row", "node", "op", "primitive",
	       "t1_us", "work2_us", "best2_us", "max2_us", "serial", "jobs", "loss_us");
	for (int i = 0; i < rows && i < top; i++) {
		const struct model_profile_row *pr = &model_profile_rows[ls[i].idx];
		printf("%-4d %-36.36s %-6.6s %-28.28s %9.1f %9.1f %9.1f %9.1f %9.1f %5d %9.1f\n",
		       ls[i].idx, pr->node, pr->op, pr->primitive, ls[i].t1, ls[i].work2, ls[i].best2,
		       ls[i].max2, ls[i].serial2, ls[i].jobs, ls[i].best2 - ls[i].t1 / 2);
	}
	/* what the hooks' clock reads add to work2: one read (a system call for
	 * this clock, about 0.5 us on the Zen 5 VM) lies inside every chunk's
	 * time; MobileNetV2 times some 470 chunks a run */
	double clk = prof_cpu_us(), clk1 = clk;
	for (int r = 0; r < 1000; r++)
		clk1 = prof_cpu_us();
	clk = (clk1 - clk) / 1000;
	printf("hook clock reads: %.0f chunks a run, %.2f us a read: about %.0f us of work2\n",
	       (double)prof_chunks / runs, clk, clk * (double)prof_chunks / runs);
	/* the fork/join cost: an empty job, minimum wall time over many */
	double best = 1e9;
	for (int r = 0; r < 20000; r++) {
		double t = wall_us();
		rt_pool_parallel(empty_fn, NULL, 8);
		t = wall_us() - t;
		if (t < best)
			best = t;
	}
	printf("empty 2-thread job: min %.2f us wall (x %d jobs = %.0f us a run)\n", best, J,
	       best * J);
	model_free();
	return 0;
}
