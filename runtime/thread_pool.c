/* thread_pool.c - the persistent thread pool behind rt_parallel (rt_types.h),
 * compiled only where RT_THREADS is defined (the most threads, the caller
 * included). Generated code built with --threads N defines RT_THREADS N on
 * POSIX systems with GCC-style atomics, unless NAME_SINGLE_THREAD is defined;
 * the library defines it in dnncc_rt.h so the tests can run kernels threaded.
 *
 * How: rt_pool_start(n) creates n - 1 workers once and returns when each
 * has gone to sleep a first time (so a later call meets no fresh page).
 * rt_pool_parallel(fn, ctx, items) cuts [0, items) into at most 16n chunks
 * at fixed boundaries (items*k/chunks; rt_pool_cut_ picks the count that
 * shares items most evenly) and publishes the job by bumping a generation
 * counter; the caller and the workers then claim chunks one at a time
 * from an atomic word that carries the generation in its high half (so a worker late for
 * one job can never claim a chunk of the next) and the unclaimed range
 * [lo, hi) in its low half, run fn on each, and count them done; the caller
 * returns when all are. The caller claims from the front, the workers from
 * the back, so at 2 threads each takes one run of consecutive items, every
 * layer the same end: the channel blocks an expansion writes on one core
 * are the ones the depthwise layer after it reads there (kernels whose
 * consecutive items share weights or rows keep those on one core too).
 * Chunks claimed alternately, as before, spread every layer's data over both
 * cores' caches: MobileNetV2's threads, pinned to the 2 cores of the Zen 5
 * VM, spent 1.36x the 1-thread CPU time against 1.19x so (CPU time, 8
 * rounds A/B). Which thread runs a chunk varies, what it computes does not:
 * kernels give every item the same arithmetic whatever range it comes in, so
 * outputs do not depend on the thread count or on scheduling. Claiming
 * rather than fixed shares keeps a worker that the OS has descheduled from
 * stalling the whole layer on a busy machine. Workers spin a while on the
 * generation (layers follow each other within microseconds), then sleep on a
 * condition variable. A call made while a job runs (a kernel calling a
 * parallel GEMM from inside its own chunk) runs on its thread alone. Not
 * reentrant: one caller at a time, like the model it serves. rt_pool_stop()
 * joins the workers. */
#ifdef RT_THREADS
#include <pthread.h>
#include <sched.h>
#include <stdint.h>

#if defined(__x86_64__) || defined(__i386__)
#define RT_POOL_PAUSE_() __builtin_ia32_pause()
#else
#define RT_POOL_PAUSE_() ((void)0)
#endif
/* Spins (pauses) before the caller waiting for the last chunks starts
 * yielding its core (4000: 25 us on the 2-core AVX-512 Xeon). */
#define RT_POOL_SPINS_ 4000
/* Spins before a waiting worker sleeps: about 200 us there, longer than the
 * serial stretches between two threaded layers of the large networks
 * (GoogLeNet's unthreaded layout transforms, 60-80 us, put the worker to sleep
 * three times a call at 4000, and a futex wake-up costs the next layer its
 * start), short enough that a worker idle between calls soon gives its core
 * back on a shared machine (bench/threads_profile.c counts such gaps). A
 * pause lasts longer on AMD cores: 32000 took 790-840 us on the Zen 4 VM,
 * so workers there never sleep inside a call either. */
#define RT_POOL_SLEEP_SPINS_ 32000
/* Chunks per thread: enough to even out a late thread, few enough that
 * claiming costs nothing. */
#define RT_POOL_CHUNKS_ 4
/* Measurement hooks, empty unless a tool defines them before the pool's text
 * (bench/threads_profile.c times every chunk and job with them). */
#ifndef RT_POOL_HOOK_CHUNK
#define RT_POOL_HOOK_CHUNK(fn, ctx, b, e, k) fn(ctx, b, e)
#endif
#ifndef RT_POOL_HOOK_JOB
#define RT_POOL_HOOK_JOB(end, chunks) ((void)0)
#endif

static struct {
	int n;                      /* threads working on a job, caller included; 1: no workers */
	int active;                 /* a job is running (nested calls run alone) */
	int quit;                   /* workers exit at the next generation */
	unsigned gen;               /* job generation; bumped (atomically) to publish a job */
	unsigned start_gen;         /* gen when the workers were created */
	unsigned long long left;    /* gen << 32 | lo << 16 | hi: chunks [lo, hi) unclaimed (atomic;
	                               at most 16 RT_THREADS chunks, dnncc's 256 threads fit) */
	int done;                   /* chunks of the current job finished (atomic) */
	int sleepers;               /* workers waiting on cv (atomic) */
	rt_range_fn fn;             /* the job: fn(ctx, begin, end) over [0, items) */
	void *ctx;
	int items, chunks;          /* the job's size; chunks it is cut into */
	pthread_t tid[RT_THREADS];  /* [n - 1] workers */
	pthread_mutex_t mu;         /* guards the sleep on cv */
	pthread_cond_t cv;          /* signalled when gen changes and someone sleeps */
} rt_pool_ = {.n = 1, .mu = PTHREAD_MUTEX_INITIALIZER, .cv = PTHREAD_COND_INITIALIZER};

/* Claims and runs chunks of job generation g until none is left: the
 * caller (front) the lowest unclaimed chunk, a worker the highest. The job's
 * fields are read only after a successful claim, which proves they belong to
 * generation g: they are written before g is published and not again until
 * every chunk of g is done. */
static void rt_pool_work_(unsigned g, int front)
{
	unsigned long long v = __atomic_load_n(&rt_pool_.left, __ATOMIC_ACQUIRE);
	for (;;) {
		const int lo = (int)(v >> 16 & 0xffffu), hi = (int)(v & 0xffffu);
		if ((unsigned)(v >> 32) != g || lo >= hi)
			return;
		if (!__atomic_compare_exchange_n(&rt_pool_.left, &v, front ? v + 0x10000u : v - 1, 0,
		                                 __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
			continue; /* v now holds the current value */
		const int items = rt_pool_.items, chunks = rt_pool_.chunks;
		const int k = front ? lo : hi - 1; /* the chunk claimed */
		const int b = (int)((long long)items * k / chunks);
		const int e = (int)((long long)items * (k + 1) / chunks);
		RT_POOL_HOOK_CHUNK(rt_pool_.fn, rt_pool_.ctx, b, e, k);
		__atomic_add_fetch(&rt_pool_.done, 1, __ATOMIC_RELEASE);
		v = __atomic_load_n(&rt_pool_.left, __ATOMIC_ACQUIRE);
	}
}

/* Faults in the worker's first RT_POOL_STACK_ bytes of stack, so that a
 * kernel whose frame goes deeper than any this worker ran before (chunks go
 * to whichever thread claims them) meets no fresh stack page in a later call
 * (the Winograd transforms alone keep 12 KiB of vectors). */
#define RT_POOL_STACK_ 65536
__attribute__((noinline)) static void rt_pool_touch_stack_(void)
{
	volatile char pad[RT_POOL_STACK_];
	for (int i = 0; i < RT_POOL_STACK_; i += 1024)
		pad[i] = 0;
	(void)pad[0];
}

static void *rt_pool_worker_(void *arg)
{
	unsigned seen = rt_pool_.start_gen;
	/* the first wait sleeps at once, so that the sleep and its wake-up
	 * (mutex, condition variable, futex: code and stack the spin never
	 * meets) run first at start-up, not inside some later call */
	int spins = RT_POOL_SLEEP_SPINS_;
	(void)arg;
	rt_pool_touch_stack_();
	for (;;) {
		unsigned g;
		while ((g = __atomic_load_n(&rt_pool_.gen, __ATOMIC_ACQUIRE)) == seen) {
			if (++spins < RT_POOL_SLEEP_SPINS_) {
				RT_POOL_PAUSE_();
				continue;
			}
			pthread_mutex_lock(&rt_pool_.mu);
			__atomic_add_fetch(&rt_pool_.sleepers, 1, __ATOMIC_SEQ_CST);
			while (__atomic_load_n(&rt_pool_.gen, __ATOMIC_SEQ_CST) == seen)
				pthread_cond_wait(&rt_pool_.cv, &rt_pool_.mu);
			__atomic_sub_fetch(&rt_pool_.sleepers, 1, __ATOMIC_SEQ_CST);
			pthread_mutex_unlock(&rt_pool_.mu);
		}
		spins = 0; /* for the next wait */
		seen = g;
		if (__atomic_load_n(&rt_pool_.quit, __ATOMIC_ACQUIRE))
			break;
		rt_pool_work_(g, 0);
	}
	return NULL;
}

/* Publishes the next generation and wakes sleeping workers. */
static void rt_pool_publish_(void)
{
	unsigned g = __atomic_load_n(&rt_pool_.gen, __ATOMIC_RELAXED) + 1;
	__atomic_store_n(&rt_pool_.left, (unsigned long long)g << 32 | (unsigned)rt_pool_.chunks,
	                 __ATOMIC_RELEASE);
	__atomic_store_n(&rt_pool_.gen, g, __ATOMIC_SEQ_CST);
	if (__atomic_load_n(&rt_pool_.sleepers, __ATOMIC_SEQ_CST)) {
		pthread_mutex_lock(&rt_pool_.mu);
		pthread_cond_broadcast(&rt_pool_.cv);
		pthread_mutex_unlock(&rt_pool_.mu);
	}
}

/* The chunks a job of items is cut into on n threads: items when that is at
 * most RT_POOL_CHUNKS_ per thread, else the count from RT_POOL_CHUNKS_ to
 * 4 RT_POOL_CHUNKS_ per thread whose chunks, taken in order by whichever
 * thread is free, leave the fewest items on the busiest thread (the first
 * within items / 64n of ceil(items / n)). Uneven cuts of few items cost a whole chunk: 12
 * channel blocks on 2 threads in 8 chunks of 1 and 2 give one thread 7 blocks,
 * in 12 chunks 6 each (GoogLeNet's conv3: 14% of the layer). */
static int rt_pool_cut_(int items, int n)
{
	const int lo = RT_POOL_CHUNKS_ * n, hi = items < 4 * lo ? items : 4 * lo;
	const int even = (items + n - 1) / n + items / (64 * n);
	int best = lo, best_span = items + 1;
	if (items <= lo)
		return items;
	for (int c = lo; c <= hi && best_span > even; c++) {
		int t[RT_THREADS] = {0}, span = 0;
		for (int k = 0; k < c; k++) {
			int w = 0;
			for (int i = 1; i < n; i++)
				if (t[i] < t[w])
					w = i;
			t[w] += (int)((long long)items * (k + 1) / c - (long long)items * k / c);
			if (t[w] > span)
				span = t[w];
		}
		if (span < best_span) {
			best = c;
			best_span = span;
		}
	}
	return best;
}

/* Runs fn over [0, items), chunks of it on every thread of the pool. */
RT_FN void rt_pool_parallel(rt_range_fn fn, void *ctx, int items)
{
	const int n = rt_pool_.n;
	if (items <= 0)
		return;
	if (n <= 1 || items == 1 || __atomic_load_n(&rt_pool_.active, __ATOMIC_RELAXED)) {
		fn(ctx, 0, items);
		return;
	}
	__atomic_store_n(&rt_pool_.active, 1, __ATOMIC_RELAXED);
	rt_pool_.chunks = rt_pool_cut_(items, n);
	RT_POOL_HOOK_JOB(0, rt_pool_.chunks);
	rt_pool_.fn = fn;
	rt_pool_.ctx = ctx;
	rt_pool_.items = items;
	__atomic_store_n(&rt_pool_.done, 0, __ATOMIC_RELAXED);
	rt_pool_publish_();
	rt_pool_work_(__atomic_load_n(&rt_pool_.gen, __ATOMIC_RELAXED), 1);
	for (int spins = 0; __atomic_load_n(&rt_pool_.done, __ATOMIC_ACQUIRE) != rt_pool_.chunks;
	     spins++) {
		if (spins < RT_POOL_SPINS_)
			RT_POOL_PAUSE_();
		else
			sched_yield();
	}
	RT_POOL_HOOK_JOB(1, rt_pool_.chunks);
	__atomic_store_n(&rt_pool_.active, 0, __ATOMIC_RELAXED);
}

/* Joins the workers; the pool then runs everything on the caller's thread. */
RT_FN void rt_pool_stop(void)
{
	const int n = rt_pool_.n;
	if (n <= 1)
		return;
	__atomic_store_n(&rt_pool_.quit, 1, __ATOMIC_RELEASE);
	rt_pool_.chunks = 0;
	rt_pool_publish_();
	for (int t = 1; t < n; t++)
		pthread_join(rt_pool_.tid[t - 1], NULL);
	rt_pool_.quit = 0;
	rt_pool_.n = 1;
}

/* Starts n - 1 workers (n at most RT_THREADS) unless some already run.
 * Returns the number of threads jobs now run on; 1 when none could start. */
RT_FN int rt_pool_start(int n)
{
	if (rt_pool_.n > 1)
		return rt_pool_.n;
	if (n > RT_THREADS)
		n = RT_THREADS;
	rt_pool_.start_gen = __atomic_load_n(&rt_pool_.gen, __ATOMIC_SEQ_CST);
	int t;
	for (t = 1; t < n; t++)
		if (pthread_create(&rt_pool_.tid[t - 1], NULL, rt_pool_worker_, (void *)(intptr_t)t))
			break;
	rt_pool_.n = t;
	if (t < n) {
		rt_pool_stop();
		return 1;
	}
	/* until every worker has gone to sleep once (its first wait), so that
	 * the next job wakes them: see rt_pool_worker_ */
	while (__atomic_load_n(&rt_pool_.sleepers, __ATOMIC_SEQ_CST) != n - 1)
		sched_yield();
	return rt_pool_.n;
}
#endif
