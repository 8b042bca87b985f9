/* ---- harness_main.c: the fixed part of the profiling harness ---- */
/* (dnncc's driver/harness_main.c, copied after the runtime and the case
 * table above, which define struct hcase, cases[], n_cases, harness_isa and
 * harness_version.)
 *
 * Cases go by layer (consecutive rows of one kind and key, time_group):
 * buffers of the layer's largest sizes, filled with random floats in
 * [-1, 1]; for every case one warm-up call, which also sets how many calls
 * make one timed sample under --cache hot (enough for about 20 us, so the
 * clock's resolution does not matter; one call per sample otherwise); then
 * up to --runs samples, fewer when a case would take more than --budget-ms
 * (with --runs below 5, a case whose one call takes longer than the budget
 * is timed by that call alone), the layer's cases taking their samples in
 * turn; prints the median, minimum and maximum per call of each.
 * Samples are timed on the process's CPU clock where the C library has one
 * (POSIX CLOCK_PROCESS_CPUTIME_ID) when the harness runs one thread: on a
 * shared machine the wall clock also counts the time other jobs held the
 * core: GoogLeNet's 818 cases of over 1 ms measured 4.3x their CPU time
 * (median) at load 15 on two cores, while the medians of shorter cases,
 * whose samples mostly escape preemption, agreed within 10%. On an idle
 * core the two clocks agree.
 *
 * Threads (dnncc profile --threads N, HARNESS_THREADS N): the cases run as
 * the generated code runs them, on the thread pool of thread_pool.c
 * (defined RT_THREADS), started once, and samples are timed on the wall
 * clock (the CPU clock would add up the threads, spinning workers
 * included). A layer in a network finds the workers spinning (the layer
 * before just ran on them) and its input in both cores' caches, so the
 * "net" state before each sample is written by every thread (each dirties
 * and reads its share), which also leaves the workers awake; under --cache
 * hot, an empty job wakes them before each sample. A case whose first call
 * forks no job (its work is below the split threshold) runs on the caller
 * alone, and so do, most likely, the small layers around it: it is timed
 * as at one thread, input and flush on the caller. Read from both cores'
 * caches, DS-CNN's 64-channel 1x1 layer on 25x5 pixels measured 15.3 us
 * against 10 us in the network, where no layer forks, and a 2-thread
 * build chose HWC rows that ran DS-CNN 12% slower than the 1-thread build.
 *
 * Cache state (--cache): a layer inside a network finds its input in cache
 * (the layer before just wrote it) but its weights, workspace and output
 * cold (last touched a whole network call ago, evicted by the layers in
 * between), while a call repeated back to back finds everything hot. So by
 * default ("net") each sample is one call after writing HARNESS_FLUSH_BYTES
 * of other memory (more than a core's L2) and reading the input: on the
 * project's Xeon the hot measurements were 1.2-2x below the same layers'
 * times in GoogLeNet's generated code (Winograd rows, with large
 * transformed weights and workspaces, the most; bench/README.md). "hot"
 * repeats calls back to back (enough for HARNESS_SAMPLE_US per sample), as
 * the paper measures layers in isolation.
 * --evict-weights (dnncc profile passes it for a model whose weights exceed
 * what the last-level cache holds, PROFILE_EVICT_WEIGHTS_BYTES in
 * driver/profile.c) also evicts the case's weights, bias, workspace and
 * output from every cache level before each sample (then reads the input
 * back in): a network call streams more than the cache between two uses
 * of one layer's memory, so all of it but the input comes from memory.
 * On the project's Xeon (2 MB L2; reads of 16 MB ran at 27 GB/s, of 32 MB
 * and more at 10 GB/s) the 8 MB flush alone left them in the L3, and
 * ResNet-50's 1x1 layers ran 1.3-1.4x their table time in the network.
 * Evicting the weights alone still left AlexNet's 5x5 layer 1.4x its table
 * time in conv_winograd_f3x3_5x5_chw (a 5 MB workspace, in the L3 after the
 * flush), which ranked it ahead of conv_direct_chw16c (1.1x) though it ran
 * slower in the network; with the workspace and output evicted too the two
 * rows measured 2.16-2.40 ms against 2.10-2.31 ms (table: 1.77-1.82 ms
 * against 2.15-2.18 ms; in the network 2.49 ms against 2.23 ms).
 * A layer after one that used a workspace finds the arena in the cache,
 * though, in a network of any size: its workspace and output lie in arena
 * memory that the layers just before it touched (passes/plan_memory.c
 * reuses the arena). ResNet-18's 56 x 56 layers, run as F(4x4, 3x3) Winograd back
 * to back at 2 threads on that Xeon, took 433-508 us each in the network;
 * timed with weights, workspace and output evicted 651 us, with the
 * workspace left in the cache 517, with the workspace and output left 455.
 * So under --evict-weights each case that dnncc marks (driver/profile.c,
 * PROFILE_WARM_MIN_WS) is also timed "warm": its workspace and output
 * written before the flush, as the layers before leave the arena, and not
 * evicted. Those rows have kind "warm" (passes/costs.c); the selection
 * charges them after a layer with a workspace (passes/select.c).
 * Eviction is a cache-line flush where the compiler and CPU have one
 * (x86 clflush, AArch64 dc civac), else a write of HARNESS_EVICT_BYTES of
 * other memory. */

#ifndef HARNESS_THREADS
#define HARNESS_THREADS 1
#endif
#define HARNESS_SAMPLE_US 20.0
#define HARNESS_FLUSH_BYTES (8u << 20)
#ifndef HARNESS_EVICT_BYTES
#define HARNESS_EVICT_BYTES (256u << 20) /* over any last-level cache a core gets */
#endif
#define HARNESS_LINE 64

/* -DHARNESS_NO_LINE_FLUSH: the portable eviction (tests/profile.sh) */
#if defined(HARNESS_NO_LINE_FLUSH)
#elif defined(__GNUC__) && (defined(__x86_64__) || (defined(__i386__) && defined(__SSE2__)))
#define harness_flush_line(p) __builtin_ia32_clflush(p)
#define harness_fence() __builtin_ia32_mfence()
#elif defined(__GNUC__) && defined(__aarch64__)
#define harness_flush_line(p) __asm__ __volatile__("dc civac, %0" : : "r"(p) : "memory")
#define harness_fence() __asm__ __volatile__("dsb ish" : : : "memory")
#endif

static int harness_hot;   /* --cache hot */
static int harness_evict; /* --evict-weights */
static float *harness_flush;
#ifndef harness_flush_line
static float *harness_evict_buf; /* HARNESS_EVICT_BYTES of other memory */
#endif
static volatile float harness_sink;

#ifndef HARNESS_CFLAGS
#define HARNESS_CFLAGS "unknown (build with -DHARNESS_CFLAGS='\"...\"')"
#endif

static double now_us(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec * 1e-3;
}

/* The clock samples are timed on, in microseconds. */
static double sample_us(void)
{
#if defined(CLOCK_PROCESS_CPUTIME_ID) && HARNESS_THREADS == 1
	struct timespec ts;
	if (clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts) == 0)
		return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec * 1e-3;
#endif
	return now_us();
}

/* 64-byte aligned floats (at least one), or exits. */
static float *alloc_floats(size_t n)
{
	void *p = NULL;
	if (posix_memalign(&p, 64, (n ? n : 1) * sizeof(float)) != 0) {
		fprintf(stderr, "harness: out of memory (%lu floats)\n", (unsigned long)n);
		exit(1);
	}
	return (float *)p;
}

static void fill_random(float *v, size_t n, unsigned long long *state)
{
	for (size_t i = 0; i < n; i++) {
		*state = *state * 6364136223846793005ULL + 1442695040888963407ULL;
		v[i] = (float)((*state >> 40) & 0xffffff) / (float)0x800000 - 1.0f;
	}
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

/* The CPU model as /proc/cpuinfo names it (as dnncc itself reads it). */
static void cpu_model(char *buf, size_t size)
{
	static const char *const keys[] = {"model name", "Model", "Hardware", "cpu model", "CPU part"};
	char found[5][256];
	char line[512];
	int k;
	FILE *f = fopen("/proc/cpuinfo", "r");
	for (k = 0; k < 5; k++)
		found[k][0] = '\0';
	while (f && fgets(line, sizeof line, f)) {
		for (k = 0; k < 5; k++) {
			size_t n = strlen(keys[k]);
			const char *v = line + n;
			if (found[k][0] || strncmp(line, keys[k], n) != 0)
				continue;
			while (*v == ' ' || *v == '\t')
				v++;
			if (*v++ != ':')
				continue;
			while (*v == ' ' || *v == '\t')
				v++;
			snprintf(found[k], sizeof found[k], "%.*s", (int)strcspn(v, "\r\n"), v);
		}
	}
	if (f)
		fclose(f);
	for (k = 0; k < 5; k++)
		if (found[k][0]) {
			snprintf(buf, size, "%s", found[k]);
			return;
		}
	snprintf(buf, size, "unknown CPU");
}

static void call_case(const struct hcase *c, const float *x, const float *w, const float *b,
                      float *y, float *ws)
{
	if (c->conv)
		c->conv(c->p, c->variant, x, w, b, y, ws);
	else if (c->fc)
		c->fc(x, w, b, y);
	else if (c->nc)
		c->nc(x, y);
	else
		c->layout(c->N, c->C, c->H, c->W, x, y);
}

/* The "net" cache state before one call: other memory written through (the
 * cache full of dirty lines), then the input, as the layer before would
 * have left it. cache_share prepares share `part` of h->parts (one per
 * thread: in a threaded harness each thread prepares its own). */
struct harness_share {
	const float *x;
	size_t nx;
	int parts;
};

static void cache_share(const struct harness_share *h, int part)
{
	size_t n = HARNESS_FLUSH_BYTES / sizeof(float) / (size_t)h->parts;
	size_t i, b = n * (size_t)part, e = b + n;
	size_t xb = h->nx * (size_t)part / (size_t)h->parts;
	size_t xe = h->nx * (size_t)(part + 1) / (size_t)h->parts;
	float s = 0;
	for (i = b; i < e; i += 16)
		s += harness_flush[i]++; /* dirty, as the layers before leave their outputs */
	for (i = xb - xb % 16; i < xe; i += 16)
		s += h->x[i];
	harness_sink = s;
}

#ifdef RT_THREADS
static void cache_share_range(void *ctx, int begin, int end)
{
	int k;
	for (k = begin; k < end; k++)
		cache_share((const struct harness_share *)ctx, k);
}

static void wake_range(void *ctx, int begin, int end)
{
	(void)ctx, (void)begin, (void)end;
}
#endif

/* Every thread prepares its share when the case forks (threads > 1), as a
 * threaded layer before it would leave the input; otherwise the caller
 * prepares everything. */
static void cache_as_in_network(const float *x, size_t nx, int threads)
{
	struct harness_share h;
	h.x = x;
	h.nx = nx;
	h.parts = threads;
#ifdef RT_THREADS
	if (threads > 1) {
		rt_pool_parallel(cache_share_range, &h, h.parts);
		return;
	}
#endif
	cache_share(&h, 0);
}

/* Wakes the workers of a threaded harness (they sleep after a while idle). */
static void wake_workers(void)
{
#ifdef RT_THREADS
	rt_pool_parallel(wake_range, NULL, 2 * HARNESS_THREADS);
#endif
}

#ifdef harness_flush_line
/* The n floats at w leave every cache level. */
static void evict_lines(const float *w, size_t n)
{
	const char *p = (const char *)w, *end = p + n * sizeof *w;
	for (; p < end; p += HARNESS_LINE)
		harness_flush_line(p);
}
#endif

/* --evict-weights: a case's weights w, bias b, output y and workspace ws
 * (nw, nb, ny, nws floats) leave every cache level; the input may go too
 * (the portable way evicts everything), so cache_as_in_network follows. */
static void evict(const float *w, size_t nw, const float *b, size_t nb, const float *y, size_t ny,
                  const float *ws, size_t nws)
{
#ifdef harness_flush_line
	evict_lines(w, nw);
	evict_lines(b, nb);
	evict_lines(y, ny);
	evict_lines(ws, nws);
	harness_fence();
#else
	size_t i, m = HARNESS_EVICT_BYTES / sizeof(float);
	float s = 0;
	(void)w, (void)nw, (void)b, (void)nb, (void)y, (void)ny, (void)ws, (void)nws;
	if (!harness_evict_buf) {
		harness_evict_buf = alloc_floats(m);
		memset(harness_evict_buf, 0, HARNESS_EVICT_BYTES);
	}
	for (i = 0; i < m; i += HARNESS_LINE / sizeof(float))
		s += harness_evict_buf[i]++;
	harness_sink = s;
#endif
}

/* One case while its group is timed. */
struct timing {
	const struct hcase *c;
	double *t;   /* its samples, us per call */
	long inner;  /* calls per sample */
	int runs;    /* samples to take */
	int first;   /* samples already taken (1: the first call stands for all) */
	int threads; /* 1 when the case ran on the caller alone */
	int warm;    /* --evict-weights: workspace and output left in the cache ("warm" rows) */
	double med, lo, hi;
};

/* The first call of case g (the warm-up): sets how many calls make a sample
 * and how many samples fit the budget. */
static void first_call(struct timing *g, int max_runs, double budget_us, const float *x,
                       const float *w, const float *b, float *y, float *ws)
{
	const struct hcase *c = g->c;
	double t0, one;
#if HARNESS_THREADS > 1
	long jobs;
#endif
	g->threads = HARNESS_THREADS;
	wake_workers();
#if HARNESS_THREADS > 1
	jobs = harness_jobs;
#endif
	t0 = sample_us();
	call_case(c, x, w, c->b ? b : NULL, y, c->ws ? ws : NULL);
	one = sample_us() - t0;
#if HARNESS_THREADS > 1
	if (harness_jobs == jobs)
		g->threads = 1; /* the case ran on the caller alone */
#endif
	g->inner = one >= HARNESS_SAMPLE_US ? 1
	           : (long)(HARNESS_SAMPLE_US / (one > 0.01 ? one : 0.01)) + 1;
	if (g->inner > 100000)
		g->inner = 100000;
	if (!harness_hot)
		g->inner = 1;
	g->runs = max_runs;
	g->first = 0;
	if (one * g->inner * g->runs > budget_us) {
		g->runs = (int)(budget_us / (one * g->inner));
		if (g->runs < 3)
			g->runs = 3;
		if (g->runs > max_runs)
			g->runs = max_runs;
	}
	if (max_runs < 5 && !harness_hot && one > budget_us) {
		/* a quick profile (--runs below 5; make bench-strategies): a case
		 * slower than the whole budget (the scalar rows on VGG-16's layers
		 * take a second) is timed by its first call, cold like the others */
		g->runs = 1;
		g->t[0] = one;
		g->first = 1;
	}
}

/* One sample of case g: the cache state of a network (or calls back to
 * back under --cache hot), then g->inner calls; returns us per call. */
static double one_sample(const struct timing *g, const float *x, const float *w, const float *b,
                         float *y, float *ws)
{
	const struct hcase *c = g->c;
	double t0;
	long k;
	if (!harness_hot && harness_evict)
		evict(w, c->w, b, c->b, y, g->warm ? 0 : c->y, ws, g->warm ? 0 : c->ws);
	if (!harness_hot && harness_evict && g->warm) {
		/* written, as the layers before leave the arena (the portable
		 * eviction above took them out with everything else) */
		volatile float *v = ws;
		size_t i;
		for (i = 0; i < c->ws; i += HARNESS_LINE / sizeof(float))
			v[i] = v[i];
		for (v = y, i = 0; i < c->y; i += HARNESS_LINE / sizeof(float))
			v[i] = v[i];
	}
	if (!harness_hot)
		cache_as_in_network(x, c->x, g->threads);
	else if (g->threads > 1)
		wake_workers();
	t0 = sample_us();
	for (k = 0; k < g->inner; k++)
		call_case(c, x, w, c->b ? b : NULL, y, c->ws ? ws : NULL);
	return (sample_us() - t0) / (double)g->inner;
}

/* Times the n cases at g, the rows of one layer (one kind and key), their
 * samples interleaved: round r takes sample r of every case, starting one
 * case further on each round. A shared machine runs slow for seconds at a
 * time (neighbours' memory traffic: on a 2-core Zen 3 VM one 1x1 layer ran
 * 0.85 ms and, a minute later, 1.4-1.7 ms); timed one after the other, the
 * rows that fell in such a stretch lost their place, and MobileNetV2's
 * 64 -> 384 1x1 layer measured conv_pointwise_chw16c at 308 us against
 * conv_direct_chw16c's 227 (run again: 249 against 309), so the selection
 * took the slower row. Interleaved, every row of a layer sees the same
 * stretches, and the ranking that the selection uses holds. The cases
 * share buffers of the group's largest sizes (random floats: the values do
 * not change how long a kernel runs). Before its first call each case is
 * named on stdout ("# timing case I", a comment to the cost table's
 * reader), so that dnncc names the case a crash happened in. */
static void time_group(struct timing *g, int n, int max_runs, double budget_us,
                       unsigned long long *seed)
{
	size_t nx = 0, nw = 0, nb = 0, ny = 0, nws = 0;
	int k, r, rounds = 0;
	float *x, *w, *b, *y, *ws;
	for (k = 0; k < n; k++) {
		const struct hcase *c = g[k].c;
		nx = c->x > nx ? c->x : nx;
		nw = c->w > nw ? c->w : nw;
		nb = c->b > nb ? c->b : nb;
		ny = c->y > ny ? c->y : ny;
		nws = c->ws > nws ? c->ws : nws;
	}
	x = alloc_floats(nx);
	w = alloc_floats(nw);
	b = alloc_floats(nb);
	y = alloc_floats(ny);
	ws = alloc_floats(nws);
	fill_random(x, nx, seed);
	fill_random(w, nw, seed);
	fill_random(b, nb, seed);
	memset(y, 0, ny * sizeof *y);
	memset(ws, 0, nws * sizeof *ws);
	for (k = 0; k < n; k++) {
		const int i = (int)(g[k].c - cases); /* a warm twin names its case again */
		printf("# timing case %d\n", i);
		fflush(stdout);
#ifdef HARNESS_CRASH_CASE /* tests/profile.sh: this case "crashes" */
		if (i == HARNESS_CRASH_CASE)
			abort();
#endif
		first_call(&g[k], max_runs, budget_us, x, w, b, y, ws);
		if (g[k].runs > rounds)
			rounds = g[k].runs;
	}
	for (r = 0; r < rounds; r++)
		for (k = 0; k < n; k++) {
			struct timing *h = &g[(k + r) % n];
			if (r >= h->first && r < h->runs)
				h->t[r] = one_sample(h, x, w, b, y, ws);
		}
	for (k = 0; k < n; k++) {
		double *t = g[k].t;
		int runs = g[k].runs;
		qsort(t, (size_t)runs, sizeof *t, cmp_double);
		g[k].med = runs % 2 ? t[runs / 2] : 0.5 * (t[runs / 2 - 1] + t[runs / 2]);
		g[k].lo = t[0];
		g[k].hi = t[runs - 1];
	}
	free(x);
	free(w);
	free(b);
	free(y);
	free(ws);
}

/* The rows of one layer (one kind and key) from case i on: how many
 * consecutive cases time_group takes together. */
static int group_len(int i)
{
	int n = 1;
	while (i + n < n_cases && strcmp(cases[i].kind, cases[i + n].kind) == 0 &&
	       strcmp(cases[i].key, cases[i + n].key) == 0)
		n++;
	return n;
}

/* Progress on stderr: a bar redrawn in place on a terminal, a plain line per
 * tenth of the work otherwise. Work is weighted by dnncc's estimates. */
static void progress(int done, double done_est, double total_est, double elapsed_us, int tty,
                     int *last_tenth)
{
	double frac = total_est > 0 ? done_est / total_est : (double)done / n_cases;
	double eta = frac > 0 ? elapsed_us * (1 - frac) / frac * 1e-6 : 0;
	int tenth = (int)(frac * 10);
	if (frac > 1)
		frac = 1;
	if (tty) {
		char bar[31];
		int i, fill = (int)(frac * 30);
		for (i = 0; i < 30; i++)
			bar[i] = i < fill ? '#' : '.';
		bar[30] = '\0';
		fprintf(stderr, "\rprofiling [%s] %d/%d cases, %3.0f%%, ETA %dm%02ds \033[K", bar, done,
		        n_cases, 100 * frac, (int)eta / 60, (int)eta % 60);
		if (done == n_cases)
			fputc('\n', stderr);
	} else if (tenth > *last_tenth || done == n_cases) {
		*last_tenth = tenth;
		fprintf(stderr, "profiling: %d/%d cases, %.0f%%, ETA %dm%02ds\n", done, n_cases,
		        100 * frac, (int)eta / 60, (int)eta % 60);
	}
	fflush(stderr);
}

int main(int argc, char **argv)
{
	int max_runs = 15, i, tty = isatty(2), last_tenth = 0;
	double budget_us = 100e3, total_est = 0, done_est = 0, start;
	unsigned long long seed = 12345;
	struct timing *group;
	double *samples;
	int n, largest = 1;
	char machine[256], date[64];
	time_t now = time(NULL);
	for (i = 1; i < argc; i++) {
		char *end = NULL;
		long v = i + 1 < argc ? strtol(argv[i + 1], &end, 10) : 0;
		if (strcmp(argv[i], "--runs") == 0 && end && !*end && v >= 1 && v <= 100000) {
			max_runs = (int)v;
			i++;
		} else if (strcmp(argv[i], "--budget-ms") == 0 && end && !*end && v >= 1) {
			budget_us = v * 1e3;
			i++;
		} else if (strcmp(argv[i], "--cache") == 0 && i + 1 < argc &&
		           (strcmp(argv[i + 1], "net") == 0 || strcmp(argv[i + 1], "hot") == 0)) {
			harness_hot = strcmp(argv[++i], "hot") == 0;
		} else if (strcmp(argv[i], "--evict-weights") == 0) {
			harness_evict = 1;
		} else {
			fprintf(stderr, "usage: %s [--runs N] [--budget-ms T] [--cache net|hot] [--evict-weights] "
			                "> costs.tsv\n"
			                "  --runs N        at most N timed samples per case (default 15)\n"
			                "  --budget-ms T   fewer samples (at least 3) when a case would "
			                "take longer than T ms (default 100); with N below 5, "
			                "once when one call takes longer\n"
			                "  --cache net     each call with its input in cache, the rest "
			                "cold, as in a network (default)\n"
			                "  --cache hot     calls repeated back to back\n"
			                "  --evict-weights with net: weights, workspace and output "
			                "from memory, as in a network larger than the cache\n",
			        argv[0]);
			return 2;
		}
	}
#ifdef RT_THREADS
	if (rt_pool_start(HARNESS_THREADS) != HARNESS_THREADS) {
		fprintf(stderr, "harness: cannot start %d threads\n", HARNESS_THREADS);
		return 1;
	}
#elif HARNESS_THREADS > 1
#error "a harness for HARNESS_THREADS threads needs the thread pool (RT_THREADS)"
#endif
	cpu_model(machine, sizeof machine);
	strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%SZ", gmtime(&now));
	printf("# dnncc cost table: microseconds per call (format: passes/costs.c)\n");
	printf("# machine: %s\n", machine);
	printf("# isa: %s\n", harness_isa);
#ifdef __VERSION__
#ifdef __clang__
	printf("# compiler: clang %s\n", __VERSION__);
#elif defined(__GNUC__)
	printf("# compiler: gcc %s\n", __VERSION__);
#else
	printf("# compiler: %s\n", __VERSION__);
#endif
#else
	printf("# compiler: unknown C compiler\n");
#endif
	printf("# flags: %s\n", HARNESS_CFLAGS);
	printf("# threads: %d\n", HARNESS_THREADS);
	printf("# cache: %s\n", harness_hot ? "hot (calls back to back)" :
	                        harness_evict ? "net (input in cache, weights, workspace and output from memory)" :
	                                        "net (input in cache, the rest cold)");
#if defined(CLOCK_PROCESS_CPUTIME_ID) && HARNESS_THREADS == 1
	printf("# clock: process CPU time\n");
#else
	printf("# clock: wall (monotonic)\n");
#endif
	printf("# dnncc: %s\n", harness_version);
	printf("# date: %s\n", date);
	printf("# kind\trow\tkey\tmedian_us\tmin_us\tmax_us\truns\n");
	fflush(stdout);
	if (!harness_hot) {
		harness_flush = alloc_floats(HARNESS_FLUSH_BYTES / sizeof(float));
		memset(harness_flush, 0, HARNESS_FLUSH_BYTES);
	}
	for (i = 0; i < n_cases; i++)
		total_est += cases[i].estimate_us;
	/* the largest group's state */
	for (i = 0; i < n_cases; i += n) {
		n = group_len(i);
		largest = n > largest ? n : largest;
	}
	largest *= 2; /* a "warm" twin of each case with a workspace */
	group = (struct timing *)malloc((size_t)largest * sizeof *group);
	samples = (double *)malloc((size_t)largest * (size_t)max_runs * sizeof *samples);
	if (!group || !samples) {
		fprintf(stderr, "harness: out of memory\n");
		return 1;
	}
	start = now_us();
	for (i = 0; i < n_cases;) {
		int k, m = 0;
		n = group_len(i);
		for (k = 0; k < n; k++) {
			const struct hcase *c = &cases[i + k];
			int twins = 1 + (harness_evict && !harness_hot && c->warm), t;
			for (t = 0; t < twins; t++, m++) {
				group[m].c = c;
				group[m].warm = t;
				group[m].t = samples + (size_t)m * max_runs;
			}
		}
		time_group(group, m, max_runs, budget_us, &seed);
		for (k = 0; k < m; k++) {
			const struct hcase *c = group[k].c;
			printf("%s\t%s\t%s\t%.3f\t%.3f\t%.3f\t%d\n", group[k].warm ? "warm" : c->kind,
			       c->row, c->key, group[k].med, group[k].lo, group[k].hi, group[k].runs);
			if (!group[k].warm)
				done_est += c->estimate_us;
		}
		fflush(stdout);
		i += n;
		progress(i, done_est, total_est, now_us() - start, tty, &last_tenth);
	}
	free(group);
	free(samples);
	if (fflush(stdout) != 0 || ferror(stdout)) {
		fprintf(stderr, "harness: cannot write the table\n");
		return 1;
	}
	return 0;
}
