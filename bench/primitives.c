/* primitives.c - benchmark: every applicable row of the primitive table
 * (runtime/primitives.def) on every convolution layer of AlexNet, VGG-16,
 * GoogLeNet and ResNet-50 (tests/conv_layers.h; MobileNetV2 on request),
 * single thread, batch 1, bias + ReLU fused, next to oneDNN's convolution
 * and to OpenBLAS-im2col on the same layer.
 *
 * Per layer:
 *   1. sum2d (conv_sum2d_chw) runs first; its output is the reference.
 *   2. Every row whose APPLIES accepts the layer runs through its real
 *      interface: weights packed once by its PACK (not timed), the input
 *      converted into the row's input layout once (not timed: each row is
 *      timed in its own layouts), a 64-byte aligned workspace of WS floats,
 *      p.isa = rt_sgemm_isa_host(). The first call is the warm-up and the
 *      correctness guard: its output, NaN-filled beforehand and converted back
 *      to CHW, must match the reference within the family's tolerance (the
 *      same as tests/test_primitives.c), else the row is marked WRONG and can
 *      win nothing.
 *   3. Timing: a sample is as many back-to-back calls as last at least
 *      --min-time (50 ms); the time per call is the median over the samples
 *      (--runs, default 5; 3 when one call takes longer than 4 x min-time),
 *      on the process's CPU-time clock (the machines are shared; --wall for
 *      the wall clock). sum2d, at 1-2 GFLOP/s, gets fewer: 3 samples, or 1
 *      when a call takes over a second. With --quick, every row first runs
 *      once; only rows within 10x of the fastest first run are then timed
 *      properly, the rest keep their single run (marked "1run").
 *   4. Layout transform overhead: where transforms.def has a chain of
 *      transforms from CHW to the row's input layout and from its output
 *      layout back to CHW (fewest steps), that chain is timed the same way
 *      and reported as a separate column, not added to the row's time.
 *   5. oneDNN (libdnnl, C API): convolution_auto, forward_inference, post-op
 *      eltwise_relu, src / weights / dst with format_tag_any so it picks its
 *      own blocked formats; the reorders into and out of those formats are
 *      not timed (its best case, as for our rows).
 *   6. OpenBLAS-im2col: per group, im2col of the input (Caffe's layout:
 *      [C/group*kH*kW][oH*oW], skipped for 1x1 stride-1 unpadded kernels) and
 *      cblas_sgemm, then one pass of bias + ReLU; everything is timed.
 *   7. Final round: the finalists (each family's fastest row if within 1.5x
 *      of the fastest, and the fastest CHW -> CHW row), oneDNN and
 *      OpenBLAS-im2col are timed together, one sample of each per round in
 *      rotating order, and the tables use these times. The fastest of many
 *      noisy medians is biased low, and a row timed back to back finds its
 *      data in cache as it would not in a network; the final round corrects
 *      both, and treats dnncc's rows and the baselines alike.
 * FLOPs are 2 * M * oH * oW * C/group * kH * kW (multiply and add).
 *
 * Output, on stdout and in the results directory (-o DIR):
 *   primitives.txt   per network a table: the fastest row per layer, its
 *                    family, time, GFLOP/s, speed-up over sum2d, transform
 *                    overhead, oneDNN's and OpenBLAS-im2col's times and their
 *                    ratios; count-weighted totals per network
 *   primitives.tsv   every (layer, row) measurement, oneDNN and OpenBLAS as
 *                    rows "onednn" and "openblas_im2col"
 *   layers_NET.tsv   per layer: best row, best CHW->CHW row, baselines (plot)
 *   families_NET.tsv per layer and family the family's best time over the
 *                    layer's best row (plot)
 *   nets.gp          the networks benchmarked, for plot_primitives.gp
 * Run through `make bench-primitives`, which sets the thread counts to 1 and
 * clears OPENBLAS_CORETYPE and OPENBLAS_L2_SIZE. See bench/README.md. */
#include <cblas.h>
#include <math.h>
#include <oneapi/dnnl/dnnl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "runtime/prep.h"
#include "runtime/sgemm.h"
#include "tests/conv_layers.h"
#include "tests/layout_ref.h"
#include "bench/bench_util.h"

/* OpenBLAS's and libgomp's own calls, declared as their headers do (other
 * BLAS implementations' cblas.h lacks them; omp.h needs -fopenmp). */
void openblas_set_num_threads(int num_threads);
char *openblas_get_config(void);
void omp_set_num_threads(int num_threads);
int omp_get_max_threads(void);

#define MAX_SAMPLES 64
#define MAX_FILTERS 16
#define QUICK_FACTOR 10.0 /* --quick: rows slower than this x the best run once */
#define SUM2D_LONG 1.0    /* seconds: sum2d calls longer than this are timed once */
#define FINAL_FACTOR 1.5  /* a family's fastest row within this of the fastest is a finalist */
#define MAX_CONTENDERS (RT_FAM_COUNT_ + 3) /* finalists, oneDNN, OpenBLAS */

static const char *const default_nets[] = {"alexnet", "vgg16", "googlenet", "resnet50"};
static const char *const all_nets[] = {"alexnet", "vgg16", "googlenet", "resnet50",
                                       "mobilenetv2", "mobilenetv1_025"};

struct opts {
	const char *outdir;               /* results directory */
	const char *nets[8];              /* --net, in the order given; none: default_nets */
	int n_nets;
	const char *layer;                /* --layer SUBSTR or NULL */
	const char *prims[MAX_FILTERS];   /* --prim SUBSTR: only rows matching one */
	int n_prims;
	const char *exclude[MAX_FILTERS]; /* --exclude SUBSTR: skip rows matching one */
	int n_exclude;
	int quick;
	int samples;                      /* --runs */
	double min_time;                  /* seconds per sample */
};

/* The ISA dnncc's rows run with (--isa; default the host's best), and the
 * name of the one oneDNN is capped at to match it (dnnl_set_max_cpu_isa;
 * NULL: uncapped). oneDNN has no plain C: `c` caps it at SSE4.1, its lowest. */
static int bench_isa = -1;
static const char *onednn_cap;

/* A measurement: seconds per call (median, min, max over the samples) on
 * bench_clock, and the median on the wall clock. */
struct meas {
	double med, lo, hi;
	int samples, calls;
	double wall;
};

/* A (layer, row) result: timed; run once (--quick); wrong, excluded; could
 * not be set up (oneDNN); the final interleaved measurement of a winner. */
enum status { ST_OK, ST_ONE_RUN, ST_WRONG, ST_FAILED, ST_FINAL };
static const char *const status_names[] = {"ok", "1run", "WRONG", "failed", "final"};

#define EXT_ONEDNN RT_FAM_COUNT_       /* "families" of the external baselines */
#define EXT_OPENBLAS (RT_FAM_COUNT_ + 1)
#define N_COLUMNS (RT_FAM_COUNT_ + 2)

/* What the tables need of one layer. Times in seconds, INFINITY where none. */
struct layer_result {
	const struct conv_layer *l;
	double flops;
	double t_sum2d;
	int best;          /* index into rt_prims of the fastest correct row, -1 if none */
	double t_best;     /* its time in the final round */
	double t_best_sel; /* the fastest time of the selection pass */
	double xf_best;    /* transform overhead of that row (to and from CHW), NAN unknown */
	int best_chw;      /* fastest correct CHW -> CHW row */
	double t_best_chw;
	double t_col[N_COLUMNS]; /* best per family, then oneDNN, OpenBLAS-im2col */
	double t_final[N_COLUMNS]; /* the same, of the finalists, in the final round */
	char onednn_impl[48];    /* oneDNN's implementation name */
	int n_rows, n_wrong;
	double spread;     /* largest (hi - lo) / med over this layer's timed rows */
};

static FILE *txt_out; /* results/primitives.txt: a copy of stdout */

static void say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void say(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	if (txt_out) {
		va_start(ap, fmt);
		vfprintf(txt_out, fmt, ap);
		va_end(ap);
	}
}

/* The clock timings are read from: the process's CPU time by default, since
 * the machines this runs on are shared (a descheduled benchmark does not
 * count time), or wall time with --wall. Every sample also records wall time
 * (primitives.tsv) so the two can be compared. */
static clockid_t bench_clock = CLOCK_PROCESS_CPUTIME_ID;

static double now(void)
{
	return bench_clock_s(bench_clock);
}

/* Progress on a terminal: the row being run, overwritten in place. */
static void progress(const char *what)
{
	if (isatty(2))
		fprintf(stderr, "  %-44s\r", what);
}

static void die(const char *what)
{
	fprintf(stderr, "primitives: %s\n", what);
	exit(1);
}

/* n floats, 64-byte aligned (aligned_alloc wants a multiple of 64 bytes). */
static float *falloc(size_t n)
{
	size_t bytes = (n * sizeof(float) + 63) / 64 * 64;
	float *p = aligned_alloc(64, bytes ? bytes : 64);
	if (!p)
		die("out of memory");
	return p;
}

/* ---- timing ------------------------------------------------------------- */

typedef void call_fn(void *ctx);

/* Something to time: fn(ctx), whose warm-up call took t_first seconds. */
struct contender {
	call_fn *fn;
	void *ctx;
	double t_first;
	struct meas m; /* out */
};

static double median_of(double *v, int n)
{
	qsort(v, (size_t)n, sizeof *v, bench_cmp_double);
	return bench_median_sorted(v, n);
}

/* Times n contenders in `samples` interleaved rounds: each round takes one
 * sample of each (back-to-back calls lasting at least min_time), in an order
 * rotated from round to round, so that drifting load hits all alike. */
static void measure_interleaved(struct contender *c, int n, int samples, double min_time)
{
	double v[MAX_CONTENDERS][MAX_SAMPLES], vw[MAX_CONTENDERS][MAX_SAMPLES];
	if (samples > MAX_SAMPLES)
		samples = MAX_SAMPLES;
	if (n > MAX_CONTENDERS)
		die("measure_interleaved: too many contenders");
	for (int k = 0; k < n; k++) {
		const double t1 = c[k].t_first > 1e-7 ? c[k].t_first : 1e-7;
		c[k].m.calls = t1 >= min_time ? 1 : (int)ceil(min_time / t1);
		c[k].m.samples = samples;
	}
	for (int s = 0; s < samples; s++)
		for (int i = 0; i < n; i++) {
			struct contender *k = &c[(i + s) % n];
			double t = now(), tw = bench_clock_s(CLOCK_MONOTONIC);
			for (int j = 0; j < k->m.calls; j++)
				k->fn(k->ctx);
			v[k - c][s] = (now() - t) / k->m.calls;
			vw[k - c][s] = (bench_clock_s(CLOCK_MONOTONIC) - tw) / k->m.calls;
		}
	for (int k = 0; k < n; k++) {
		c[k].m.med = median_of(v[k], samples);
		c[k].m.wall = median_of(vw[k], samples);
		c[k].m.lo = v[k][0];
		c[k].m.hi = v[k][samples - 1];
	}
}

/* Times fn(ctx) alone after a warm-up call of t_first seconds. */
static struct meas measure(call_fn *fn, void *ctx, double t_first, int samples, double min_time)
{
	struct contender c = {fn, ctx, t_first, {0, 0, 0, 0, 0, 0}};
	measure_interleaved(&c, 1, samples, min_time);
	return c.m;
}

static struct meas one_run(double t)
{
	struct meas m = {t, t, t, 1, 1, NAN};
	return m;
}

/* Samples for a call of t_first seconds: fewer for slow calls. */
static int samples_for(const struct opts *o, double t_first, int is_sum2d)
{
	int n = o->samples;
	if (is_sum2d)
		return t_first > SUM2D_LONG ? 1 : (n < 3 ? n : 3);
	if (t_first > 4 * o->min_time && n > 3)
		n = 3;
	return n;
}

/* ---- correctness guard -------------------------------------------------- */

/* Tolerances on relative L2 error and max error / max |ref|, per family, as
 * in tests/test_primitives.c. oneDNN may pick Winograd: it gets F(4)'s. */
static void tolerance(int family, const char *name, double *l2, double *maxrel)
{
	*l2 = 1e-5;
	*maxrel = 1e-4;
	if (family == RT_FAM_WINOGRAD) {
		*l2 = strstr(name, "f6") ? 2e-4 : strstr(name, "f4") ? 5e-5 : 2e-5;
		*maxrel = strstr(name, "f6") ? 2e-3 : 5e-4;
	} else if (family == RT_FAM_FFT) {
		*l2 = 5e-5;
		*maxrel = 5e-4;
	} else if (family == EXT_ONEDNN) {
		*l2 = 5e-5;
		*maxrel = 5e-4;
	}
}

/* Compares y [M][oH][oW] with ref; returns the relative L2 error (INFINITY
 * for NaN) and sets *maxrel. */
static double compare(const float *y, const float *ref, size_t n, double *maxrel)
{
	double e2 = 0, r2 = 0, emax = 0, rmax = 0;
	for (size_t i = 0; i < n; i++) {
		double e = fabs((double)y[i] - ref[i]);
		if (!(e <= emax))
			emax = isnan(e) ? INFINITY : e;
		e2 += e * e;
		r2 += (double)ref[i] * ref[i];
		if (fabs(ref[i]) > rmax)
			rmax = fabs(ref[i]);
	}
	*maxrel = emax / (rmax > 0 ? rmax : 1);
	return isnan(e2) ? INFINITY : sqrt(e2) / (r2 > 0 ? sqrt(r2) : 1);
}

/* ---- the layer ---------------------------------------------------------- */

static struct rt_conv2d layer_conv(const struct conv_layer *l)
{
	struct rt_conv2d p = bench_layer_conv(l);
	p.isa = bench_isa;
	return p;
}

/* The layer's data: CHW input, raw weights, bias, reference output. */
struct data {
	struct rt_conv2d p;
	float *x;   /* [C][H][W] */
	float *w;   /* [M, C/group, kH, kW] */
	float *b;   /* [M] */
	float *ref; /* [M][oH][oW]: sum2d's output */
	float *y;   /* [M][oH][oW]: scratch for a row's output converted to CHW */
	size_t nx, nw, ny;
};

static unsigned long long rng_state;

static float rnd_float(void)
{
	rng_state = rng_state * 6364136223846793005ULL + 1442695040888963407ULL;
	return (float)((unsigned)(rng_state >> 33) % 20001) / 10000.0f - 1.0f;
}

static void data_init(struct data *d, const struct conv_layer *l)
{
	d->p = layer_conv(l);
	const struct rt_conv2d *p = &d->p;
	const int cg = p->C / p->group;
	d->nx = (size_t)p->C * p->H * p->W;
	d->nw = (size_t)p->M * cg * p->kH * p->kW;
	d->ny = (size_t)p->M * p->oH * p->oW;
	d->x = falloc(d->nx);
	d->w = falloc(d->nw);
	d->b = falloc((size_t)p->M);
	d->ref = falloc(d->ny);
	d->y = falloc(d->ny);
	rng_state = 0x2545f4914f6cdd1dULL ^ d->nx ^ (d->nw << 20);
	for (size_t i = 0; i < d->nx; i++)
		d->x[i] = rnd_float();
	/* weights scaled so outputs stay O(1) whatever the fan-in */
	const float scale = 1.0f / sqrtf((float)(cg * p->kH * p->kW));
	for (size_t i = 0; i < d->nw; i++)
		d->w[i] = rnd_float() * scale;
	for (int i = 0; i < p->M; i++)
		d->b[i] = rnd_float();
}

static void data_free(struct data *d)
{
	free(d->x);
	free(d->w);
	free(d->b);
	free(d->ref);
	free(d->y);
}

/* ---- one row of the table, set up on one layer --------------------------- */

struct row_run {
	const struct rt_prim *pr;
	const struct rt_conv2d *p;
	float *x;        /* input in pr->in */
	const float *w;  /* PACK's output, or the raw weights */
	float *packed;   /* PACK's buffer, or NULL */
	const float *b;  /* [M] */
	float *y;        /* out: output in pr->out */
	float *ws;       /* WS floats or NULL */
	size_t ny;       /* floats of y */
};

static void row_setup(struct row_run *r, const struct rt_prim *pr, const struct data *d)
{
	const struct rt_conv2d *p = &d->p;
	r->pr = pr;
	r->p = p;
	r->x = falloc(rt_layout_size(pr->in, p->C, p->H, p->W));
	to_layout(pr->in, 1, p->C, p->H, p->W, d->x, r->x);
	r->packed = NULL;
	r->w = d->w;
	if (pr->packed) {
		r->packed = falloc(pr->packed(p, pr->variant));
		pr->pack(p, pr->variant, d->w, r->packed);
		r->w = r->packed;
	}
	r->b = d->b;
	r->ny = rt_layout_size(pr->out, p->M, p->oH, p->oW);
	r->y = falloc(r->ny);
	size_t nws = pr->ws(p, pr->variant);
	r->ws = nws ? falloc(nws) : NULL;
}

static void row_call(void *ctx)
{
	const struct row_run *r = ctx;
	r->pr->run(r->p, r->pr->variant, r->x, r->w, r->b, r->y, r->ws);
}

static void row_free(struct row_run *r)
{
	free(r->x);
	free(r->packed);
	free(r->y);
	free(r->ws);
}

/* Warm-up call on NaN-filled output (*t: its time), then the check against
 * the reference (*err: relative L2 error). Returns whether the output is
 * within the family's tolerance. */
static int row_first(struct row_run *r, struct data *d, double *t, double *err)
{
	for (size_t i = 0; i < r->ny; i++)
		r->y[i] = NAN;
	*t = now();
	row_call(r);
	*t = now() - *t;
	from_layout(r->pr->out, 1, d->p.M, d->p.oH, d->p.oW, r->y, d->y);
	double maxrel, tol_l2, tol_max;
	*err = compare(d->y, d->ref, d->ny, &maxrel);
	tolerance(r->pr->family, r->pr->name, &tol_l2, &tol_max);
	return *err <= tol_l2 && maxrel <= tol_max;
}

/* ---- layout transforms (transforms.def) ---------------------------------- */

/* The shortest chain of transforms from layout a to b: indices into
 * rt_transforms in chain[], returns its length, or -1 if there is none. */
static int xform_chain(int a, int b, int chain[RT_L_COUNT_])
{
	int via[RT_L_COUNT_], queue[RT_L_COUNT_], head = 0, tail = 0;
	for (int l = 0; l < RT_L_COUNT_; l++)
		via[l] = -2; /* unreached */
	via[a] = -1;
	queue[tail++] = a;
	while (head < tail) {
		int l = queue[head++];
		for (int t = 0; t < rt_n_transforms; t++)
			if ((int)rt_transforms[t].from == l && via[rt_transforms[t].to] == -2) {
				via[rt_transforms[t].to] = t;
				queue[tail++] = (int)rt_transforms[t].to;
			}
	}
	if (via[b] == -2)
		return -1;
	int n = 0;
	for (int l = b; l != a; l = (int)rt_transforms[via[l]].from)
		n++;
	int k = n;
	for (int l = b; l != a; l = (int)rt_transforms[via[l]].from)
		chain[--k] = via[l];
	return n;
}

struct xform_run {
	int n, chain[RT_L_COUNT_];
	int C, H, W;
	float *buf[RT_L_COUNT_ + 1]; /* buf[0] the source, buf[k+1] step k's output */
};

static void xform_call(void *ctx)
{
	const struct xform_run *x = ctx;
	for (int k = 0; k < x->n; k++)
		rt_transforms[x->chain[k]].run(1, x->C, x->H, x->W, x->buf[k], x->buf[k + 1]);
}

/* Seconds to convert one C x H x W image from layout a to b (0 if a == b,
 * NAN if transforms.def has no chain). */
static double xform_time(const struct opts *o, int a, int b, int C, int H, int W)
{
	struct xform_run x;
	if (a == b)
		return 0;
	x.n = xform_chain(a, b, x.chain);
	if (x.n < 0)
		return NAN;
	x.C = C, x.H = H, x.W = W;
	x.buf[0] = falloc(rt_layout_size(a, C, H, W));
	for (size_t i = 0, n = rt_layout_size(a, C, H, W); i < n; i++)
		x.buf[0][i] = (float)(i % 7);
	for (int k = 0; k < x.n; k++)
		x.buf[k + 1] = falloc(rt_layout_size(rt_transforms[x.chain[k]].to, C, H, W));
	double t = now();
	xform_call(&x);
	t = now() - t;
	struct meas m = measure(xform_call, &x, t, o->samples, o->min_time);
	for (int k = 0; k <= x.n; k++)
		free(x.buf[k]);
	return m.med;
}

/* ---- oneDNN -------------------------------------------------------------- */

struct dnnl_run {
	dnnl_engine_t eng;
	dnnl_stream_t st;
	dnnl_post_ops_t po;
	dnnl_primitive_attr_t attr;
	dnnl_primitive_desc_t pd;
	dnnl_primitive_t conv;
	dnnl_memory_t src, wei, bia, dst;  /* in oneDNN's chosen formats (bias: [M]) */
	const dnnl_memory_desc_t *dst_md;  /* dst's format (owned by pd) */
	dnnl_memory_desc_t dst_user_md;    /* [1][M][oH][oW] */
	dnnl_memory_t dst_user;            /* over data.y, for the check */
};

static void dnnl_call(void *ctx)
{
	const struct dnnl_run *r = ctx;
	dnnl_exec_arg_t args[4] = {{DNNL_ARG_SRC, r->src}, {DNNL_ARG_WEIGHTS, r->wei},
	                           {DNNL_ARG_BIAS, r->bia}, {DNNL_ARG_DST, r->dst}};
	dnnl_primitive_execute(r->conv, r->st, 4, args);
	dnnl_stream_wait(r->st);
}

#define DNNL_TRY(call)                                                               \
	do {                                                                             \
		dnnl_status_t s_ = (call);                                                   \
		if (s_ != dnnl_success) {                                                    \
			fprintf(stderr, "primitives: oneDNN: %s failed (status %d)\n", #call, \
			        (int)s_);                                                        \
			return ST_FAILED;                                                    \
		}                                                                            \
	} while (0)

/* Copies `from` into a new memory of md (a oneDNN reorder, not timed). */
static int dnnl_reorder_into(dnnl_engine_t eng, dnnl_stream_t st, dnnl_memory_t from,
                             const dnnl_memory_desc_t *from_md, const dnnl_memory_desc_t *md,
                             dnnl_memory_t to)
{
	dnnl_primitive_desc_t pd;
	dnnl_primitive_t re;
	DNNL_TRY(dnnl_reorder_primitive_desc_create(&pd, from_md, eng, md, eng, NULL));
	DNNL_TRY(dnnl_primitive_create(&re, pd));
	dnnl_exec_arg_t args[2] = {{DNNL_ARG_FROM, from}, {DNNL_ARG_TO, to}};
	DNNL_TRY(dnnl_primitive_execute(re, st, 2, args));
	DNNL_TRY(dnnl_stream_wait(st));
	dnnl_primitive_destroy(re);
	dnnl_primitive_desc_destroy(pd);
	return 0;
}

/* Sets up oneDNN's convolution of the layer in r (source and weights
 * reordered into its formats, not timed) and names its implementation in
 * impl; returns ST_OK or ST_FAILED. */
static int onednn_setup(struct dnnl_run *r, struct data *d, char *impl, size_t impl_len)
{
	const struct rt_conv2d *p = &d->p;
	dnnl_memory_desc_t src_any, wei_any, dst_any, bia_md, src_user, wei_user;
	const int G = p->group;
	dnnl_dims_t src_dims = {1, p->C, p->H, p->W}, dst_dims = {1, p->M, p->oH, p->oW};
	dnnl_dims_t wei_dims = {p->M, p->C, p->kH, p->kW}, bia_dims = {p->M};
	dnnl_dims_t gwei_dims = {G, p->M / G, p->C / G, p->kH, p->kW};
	/* trailing pads: exactly what the output size implies */
	dnnl_dims_t strides = {p->sH, p->sW}, pad_l = {p->padT, p->padL};
	dnnl_dims_t pad_r = {(p->oH - 1) * p->sH + p->kH - p->H - p->padT,
	                     (p->oW - 1) * p->sW + p->kW - p->W - p->padL};
	const int wnd = G > 1 ? 5 : 4;
	const dnnl_dim_t *wdims = G > 1 ? gwei_dims : wei_dims;

	memset(r, 0, sizeof *r);
	DNNL_TRY(dnnl_engine_create(&r->eng, dnnl_cpu, 0));
	DNNL_TRY(dnnl_stream_create(&r->st, r->eng, dnnl_stream_default_flags));
	DNNL_TRY(dnnl_memory_desc_init_by_tag(&src_any, 4, src_dims, dnnl_f32, dnnl_format_tag_any));
	DNNL_TRY(dnnl_memory_desc_init_by_tag(&wei_any, wnd, wdims, dnnl_f32, dnnl_format_tag_any));
	DNNL_TRY(dnnl_memory_desc_init_by_tag(&dst_any, 4, dst_dims, dnnl_f32, dnnl_format_tag_any));
	DNNL_TRY(dnnl_memory_desc_init_by_tag(&bia_md, 1, bia_dims, dnnl_f32, dnnl_x));
	DNNL_TRY(dnnl_memory_desc_init_by_tag(&src_user, 4, src_dims, dnnl_f32, dnnl_nchw));
	DNNL_TRY(dnnl_memory_desc_init_by_tag(&wei_user, wnd, wdims, dnnl_f32,
	                                      G > 1 ? dnnl_goihw : dnnl_oihw));
	DNNL_TRY(dnnl_memory_desc_init_by_tag(&r->dst_user_md, 4, dst_dims, dnnl_f32, dnnl_nchw));

	dnnl_convolution_desc_t cd;
	DNNL_TRY(dnnl_convolution_forward_desc_init(&cd, dnnl_forward_inference,
	                                            dnnl_convolution_auto, &src_any, &wei_any,
	                                            &bia_md, &dst_any, strides, pad_l, pad_r));
	DNNL_TRY(dnnl_post_ops_create(&r->po));
	DNNL_TRY(dnnl_post_ops_append_eltwise(r->po, 1.0f, dnnl_eltwise_relu, 0.0f, 0.0f));
	DNNL_TRY(dnnl_primitive_attr_create(&r->attr));
	DNNL_TRY(dnnl_primitive_attr_set_post_ops(r->attr, r->po));
	DNNL_TRY(dnnl_primitive_desc_create(&r->pd, &cd, r->attr, r->eng, NULL));
	const char *name = NULL;
	if (dnnl_primitive_desc_query(r->pd, dnnl_query_impl_info_str, 0, &name) == dnnl_success
	    && name)
		snprintf(impl, impl_len, "%s", name);
	const dnnl_memory_desc_t *src_md = dnnl_primitive_desc_query_md(r->pd, dnnl_query_src_md, 0);
	const dnnl_memory_desc_t *wei_md =
		dnnl_primitive_desc_query_md(r->pd, dnnl_query_weights_md, 0);
	r->dst_md = dnnl_primitive_desc_query_md(r->pd, dnnl_query_dst_md, 0);
	DNNL_TRY(dnnl_primitive_create(&r->conv, r->pd));

	dnnl_memory_t src_u, wei_u;
	DNNL_TRY(dnnl_memory_create(&src_u, &src_user, r->eng, d->x));
	DNNL_TRY(dnnl_memory_create(&wei_u, &wei_user, r->eng, d->w));
	DNNL_TRY(dnnl_memory_create(&r->dst_user, &r->dst_user_md, r->eng, d->y));
	DNNL_TRY(dnnl_memory_create(&r->bia, &bia_md, r->eng, d->b));
	DNNL_TRY(dnnl_memory_create(&r->src, src_md, r->eng, DNNL_MEMORY_ALLOCATE));
	DNNL_TRY(dnnl_memory_create(&r->wei, wei_md, r->eng, DNNL_MEMORY_ALLOCATE));
	DNNL_TRY(dnnl_memory_create(&r->dst, r->dst_md, r->eng, DNNL_MEMORY_ALLOCATE));
	int st = dnnl_reorder_into(r->eng, r->st, src_u, &src_user, src_md, r->src)
	         || dnnl_reorder_into(r->eng, r->st, wei_u, &wei_user, wei_md, r->wei);
	dnnl_memory_destroy(src_u);
	dnnl_memory_destroy(wei_u);
	return st ? ST_FAILED : ST_OK;
}

/* The warm-up call (*t) and the check of its output (*err, reordered to NCHW
 * into d->y); returns ST_OK, ST_WRONG or ST_FAILED. */
static int onednn_first(struct dnnl_run *r, struct data *d, double *t, double *err)
{
	for (size_t i = 0; i < d->ny; i++)
		d->y[i] = NAN;
	*t = now();
	dnnl_call(r);
	*t = now() - *t;
	if (dnnl_reorder_into(r->eng, r->st, r->dst, r->dst_md, &r->dst_user_md, r->dst_user))
		return ST_FAILED;
	double maxrel, tol_l2, tol_max;
	*err = compare(d->y, d->ref, d->ny, &maxrel);
	tolerance(EXT_ONEDNN, "", &tol_l2, &tol_max);
	return *err <= tol_l2 && maxrel <= tol_max ? ST_OK : ST_WRONG;
}

static void onednn_free(struct dnnl_run *r)
{
	dnnl_memory_t *mems[] = {&r->dst_user, &r->bia, &r->src, &r->wei, &r->dst};
	for (size_t i = 0; i < sizeof mems / sizeof mems[0]; i++)
		if (*mems[i])
			dnnl_memory_destroy(*mems[i]);
	if (r->conv)
		dnnl_primitive_destroy(r->conv);
	if (r->pd)
		dnnl_primitive_desc_destroy(r->pd);
	if (r->attr)
		dnnl_primitive_attr_destroy(r->attr);
	if (r->po)
		dnnl_post_ops_destroy(r->po);
	if (r->st)
		dnnl_stream_destroy(r->st);
	if (r->eng)
		dnnl_engine_destroy(r->eng);
}

/* ---- OpenBLAS-im2col ----------------------------------------------------- */

struct blas_run {
	const struct rt_conv2d *p;
	const float *x; /* [C][H][W] */
	const float *w; /* [M, C/group, kH, kW] = per group [M/group][C/group*kH*kW] */
	const float *b; /* [M] */
	float *y;       /* out: [M][oH][oW] */
	float *col;     /* [C/group*kH*kW][oH*oW], or NULL for 1x1 stride-1 unpadded */
};

/* Caffe's im2col of one group: col [(c,u,v)][(i,j)]. */
static void im2col(const struct rt_conv2d *p, const float *x, int cg, float *col)
{
	const size_t npix = (size_t)p->oH * p->oW;
	for (int c = 0; c < cg; c++)
		for (int u = 0; u < p->kH; u++)
			for (int v = 0; v < p->kW; v++) {
				float *row = col + ((size_t)(c * p->kH + u) * p->kW + v) * npix;
				for (int i = 0; i < p->oH; i++) {
					const int ih = i * p->sH - p->padT + u * p->dH;
					float *dst = row + (size_t)i * p->oW;
					if (ih < 0 || ih >= p->H) {
						memset(dst, 0, (size_t)p->oW * sizeof *dst);
						continue;
					}
					const float *src = x + ((size_t)c * p->H + ih) * p->W;
					for (int j = 0; j < p->oW; j++) {
						const int iw = j * p->sW - p->padL + v * p->dW;
						dst[j] = iw >= 0 && iw < p->W ? src[iw] : 0.0f;
					}
				}
			}
}

static void blas_call(void *ctx)
{
	const struct blas_run *r = ctx;
	const struct rt_conv2d *p = r->p;
	const int cg = p->C / p->group, mg = p->M / p->group, K = cg * p->kH * p->kW;
	const int npix = p->oH * p->oW;
	for (int g = 0; g < p->group; g++) {
		const float *xg = r->x + (size_t)g * cg * p->H * p->W;
		const float *col = xg;
		if (r->col) {
			im2col(p, xg, cg, r->col);
			col = r->col;
		}
		cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, mg, npix, K, 1.0f,
		            r->w + (size_t)g * mg * K, K, col, npix, 0.0f, r->y + (size_t)g * mg * npix,
		            npix);
	}
	for (int m = 0; m < p->M; m++) {
		float *ym = r->y + (size_t)m * npix;
		const float bm = r->b[m];
		for (int k = 0; k < npix; k++) {
			const float v = ym[k] + bm;
			ym[k] = v > 0.0f ? v : 0.0f;
		}
	}
}

static void blas_setup(struct blas_run *r, const struct data *d)
{
	const struct rt_conv2d *p = &d->p;
	const int direct = p->kH == 1 && p->kW == 1 && p->sH == 1 && p->sW == 1 && p->padT == 0
	                   && p->padL == 0;
	r->p = p;
	r->x = d->x;
	r->w = d->w;
	r->b = d->b;
	r->y = falloc(d->ny);
	r->col = direct ? NULL
	                : falloc((size_t)(p->C / p->group) * p->kH * p->kW * p->oH * p->oW);
}

/* The warm-up call (*t) and the check (*err); returns ST_OK or ST_WRONG. */
static int blas_first(struct blas_run *r, const struct data *d, double *t, double *err)
{
	for (size_t i = 0; i < d->ny; i++)
		r->y[i] = NAN;
	*t = now();
	blas_call(r);
	*t = now() - *t;
	double maxrel, tol_l2, tol_max;
	*err = compare(r->y, d->ref, d->ny, &maxrel);
	tolerance(EXT_OPENBLAS, "", &tol_l2, &tol_max);
	return *err <= tol_l2 && maxrel <= tol_max ? ST_OK : ST_WRONG;
}

static void blas_free(struct blas_run *r)
{
	free(r->y);
	free(r->col);
}

/* ---- one layer ----------------------------------------------------------- */

static int row_selected(const struct opts *o, const struct rt_prim *pr)
{
	for (int i = 0; i < o->n_exclude; i++)
		if (strstr(pr->name, o->exclude[i]))
			return 0;
	if (pr->family == RT_FAM_SUM2D || o->n_prims == 0)
		return 1;
	for (int i = 0; i < o->n_prims; i++)
		if (strstr(pr->name, o->prims[i]))
			return 1;
	return 0;
}

static void tsv_row(FILE *tsv, const char *net, const struct conv_layer *l, double flops,
                    const char *name, const char *family, const char *in, const char *out,
                    int status, const struct meas *m, double xf_in, double xf_out, double err)
{
	fprintf(tsv, "%s\t%s\t%d\t%d\t%d\t%d\t%d\t%d\t%d\t%d\t%d\t%.3f\t%s\t%s\t%s\t%s\t%s\t%d\t%d"
	             "\t%.3f\t%.3f\t%.3f\t%.3f\t%.3f\t%.3f\t%.3f\t%.2e\n",
	        net, l->name, l->count, l->C, l->H, l->W, l->M, l->k, l->s, l->pad, l->group,
	        flops * 1e-6, name, family, in, out, status_names[status], m->samples, m->calls,
	        m->med * 1e6, m->lo * 1e6, m->hi * 1e6, m->wall * 1e6, flops / m->med * 1e-9,
	        xf_in * 1e6, xf_out * 1e6, err);
	fflush(tsv);
}

static void bench_layer(const struct opts *o, const struct conv_layer *l, FILE *tsv,
                        struct layer_result *res)
{
	struct data d;
	data_init(&d, l);
	const struct rt_conv2d *p = &d.p;
	const struct rt_prim *base = rt_prim_find("conv_sum2d_chw");
	if (!base)
		die("the sum2d baseline conv_sum2d_chw is missing from the table");
	memset(res, 0, sizeof *res);
	res->l = l;
	res->flops = bench_conv_flops(p);
	res->best = res->best_chw = -1;
	res->t_best = res->t_best_chw = INFINITY;
	for (int c = 0; c < N_COLUMNS; c++)
		res->t_col[c] = res->t_final[c] = INFINITY;

	/* Layout transforms to and from CHW, per layout, timed when first needed. */
	double xf_in[RT_L_COUNT_], xf_out[RT_L_COUNT_];
	int xf_done[RT_L_COUNT_][2] = {{0}};

	/* sum2d: the reference output, then its time. */
	struct row_run r;
	row_setup(&r, base, &d);
	double t = now();
	row_call(&r);
	t = now() - t;
	memcpy(d.ref, r.y, d.ny * sizeof *d.ref);
	struct meas m0 = one_run(t);
	if (!o->quick)
		m0 = measure(row_call, &r, t, samples_for(o, t, 1), o->min_time);
	row_free(&r);

	/* Rows: pass 1 warms up and checks each row (and, unless --quick, times
	 * it); with --quick, pass 2 times the rows within QUICK_FACTOR of the
	 * fastest first run. */
	int *rows = malloc((size_t)rt_n_prims * sizeof *rows);
	struct meas *ms = malloc((size_t)rt_n_prims * sizeof *ms);
	int *st = malloc((size_t)rt_n_prims * sizeof *st);
	double *errs = malloc((size_t)rt_n_prims * sizeof *errs);
	if (!rows || !ms || !st || !errs)
		die("out of memory");
	int n = 0;
	double fastest_first = INFINITY;
	for (int k = 0; k < rt_n_prims; k++) {
		const struct rt_prim *pr = &rt_prims[k];
		if (!row_selected(o, pr) || !pr->applies(p, pr->variant))
			continue;
		rows[n] = k;
		if (pr == base) {
			ms[n] = m0;
			st[n] = o->quick ? ST_ONE_RUN : ST_OK;
			errs[n] = 0;
			n++;
			continue;
		}
		progress(pr->name);
		row_setup(&r, pr, &d);
		double t1;
		if (!row_first(&r, &d, &t1, &errs[n])) {
			st[n] = ST_WRONG;
			ms[n] = one_run(t1);
			fprintf(stderr, "primitives: %s gives a WRONG result on %s/%s (relative L2 "
			                "error %.2e): excluded\n",
			        pr->name, l->net, l->name, errs[n]);
		} else if (o->quick) {
			st[n] = ST_ONE_RUN;
			ms[n] = one_run(t1);
			if (t1 < fastest_first)
				fastest_first = t1;
		} else {
			st[n] = ST_OK;
			ms[n] = measure(row_call, &r, t1, samples_for(o, t1, 0), o->min_time);
		}
		row_free(&r);
		n++;
	}
	if (o->quick)
		for (int i = 0; i < n; i++) {
			const struct rt_prim *pr = &rt_prims[rows[i]];
			if (st[i] != ST_ONE_RUN || pr == base || ms[i].med > QUICK_FACTOR * fastest_first)
				continue;
			progress(pr->name);
			row_setup(&r, pr, &d);
			double t1 = now();
			row_call(&r);
			t1 = now() - t1;
			ms[i] = measure(row_call, &r, t1, samples_for(o, t1, 0), o->min_time);
			st[i] = ST_OK;
			row_free(&r);
		}
	progress("");

	res->t_sum2d = m0.med;
	for (int i = 0; i < n; i++) {
		const struct rt_prim *pr = &rt_prims[rows[i]];
		res->n_rows++;
		if (st[i] == ST_WRONG) {
			res->n_wrong++;
		} else {
			const double tm = ms[i].med;
			if (tm < res->t_col[pr->family])
				res->t_col[pr->family] = tm;
			if (tm < res->t_best)
				res->t_best = tm, res->best = rows[i];
			if (pr->in == RT_L_CHW && pr->out == RT_L_CHW && tm < res->t_best_chw)
				res->t_best_chw = tm, res->best_chw = rows[i];
			if (ms[i].samples > 1 && (ms[i].hi - ms[i].lo) / tm > res->spread)
				res->spread = (ms[i].hi - ms[i].lo) / tm;
		}
		if (!xf_done[pr->in][0]) {
			xf_in[pr->in] = xform_time(o, RT_L_CHW, pr->in, p->C, p->H, p->W);
			xf_done[pr->in][0] = 1;
		}
		if (!xf_done[pr->out][1]) {
			xf_out[pr->out] = xform_time(o, pr->out, RT_L_CHW, p->M, p->oH, p->oW);
			xf_done[pr->out][1] = 1;
		}
		tsv_row(tsv, l->net, l, res->flops, pr->name, rt_family_names[pr->family],
		        rt_layout_names[pr->in], rt_layout_names[pr->out], st[i], &ms[i],
		        xf_in[pr->in], xf_out[pr->out], errs[i]);
	}
	res->t_best_sel = res->t_best;

	/* Final round: the finalists (each family's fastest row if within
	 * FINAL_FACTOR of the fastest, and the fastest CHW -> CHW row), oneDNN
	 * and OpenBLAS-im2col, timed again side by side in interleaved rounds;
	 * the tables use these times. Why: the fastest of ~50 noisy medians is
	 * biased low, and a row timed back to back finds its weights and
	 * workspace still in cache, which in a network, between other layers,
	 * it does not (Winograd rows, with 16 C M floats of transformed weights
	 * for F(2x2), lose up to 40% when interleaved). */
	int fam_row[RT_FAM_COUNT_]; /* index into rows[] of each family's fastest */
	for (int f = 0; f < RT_FAM_COUNT_; f++)
		fam_row[f] = -1;
	int chw_row = -1;
	for (int i = 0; i < n; i++) {
		const struct rt_prim *pr = &rt_prims[rows[i]];
		if (st[i] == ST_WRONG)
			continue;
		if (fam_row[pr->family] < 0 || ms[i].med < ms[fam_row[pr->family]].med)
			fam_row[pr->family] = i;
		if (rows[i] == res->best_chw)
			chw_row = i;
	}
	struct contender c[MAX_CONTENDERS];
	struct row_run rr[RT_FAM_COUNT_ + 1];
	int fin_row[RT_FAM_COUNT_ + 1]; /* index into rows[] of finalist k */
	int nf = 0;
	for (int f = 0; f < RT_FAM_COUNT_; f++)
		if (fam_row[f] >= 0 && ms[fam_row[f]].med <= FINAL_FACTOR * res->t_best)
			fin_row[nf++] = fam_row[f];
	int have_chw = 0;
	for (int k = 0; k < nf; k++)
		have_chw |= fin_row[k] == chw_row;
	if (chw_row >= 0 && !have_chw)
		fin_row[nf++] = chw_row;
	double t1;
	for (int k = 0; k < nf; k++) {
		row_setup(&rr[k], &rt_prims[rows[fin_row[k]]], &d);
		t1 = now();
		row_call(&rr[k]);
		c[k] = (struct contender){row_call, &rr[k], now() - t1, one_run(NAN)};
	}
	int nc = nf, kd = -1, kbl = -1;
	double err_d = NAN, err_b = NAN;
	struct dnnl_run dr;
	struct blas_run br;
	snprintf(res->onednn_impl, sizeof res->onednn_impl, "?");
	int sd = onednn_setup(&dr, &d, res->onednn_impl, sizeof res->onednn_impl);
	if (sd == ST_OK)
		sd = onednn_first(&dr, &d, &t1, &err_d);
	if (sd == ST_OK)
		c[kd = nc++] = (struct contender){dnnl_call, &dr, t1, one_run(NAN)};
	else
		fprintf(stderr, "primitives: oneDNN %s on %s/%s\n", status_names[sd], l->net, l->name);
	blas_setup(&br, &d);
	int sb = blas_first(&br, &d, &t1, &err_b);
	if (sb == ST_OK)
		c[kbl = nc++] = (struct contender){blas_call, &br, t1, one_run(NAN)};
	else
		fprintf(stderr, "primitives: OpenBLAS-im2col WRONG on %s/%s\n", l->net, l->name);
	double t_max = 0;
	for (int k = 0; k < nc; k++)
		if (c[k].t_first > t_max)
			t_max = c[k].t_first;
	measure_interleaved(c, nc, samples_for(o, t_max, 0), o->min_time);

	res->best = res->best_chw = -1;
	res->t_best = res->t_best_chw = INFINITY;
	for (int k = 0; k < nf; k++) {
		const int i = fin_row[k];
		const struct rt_prim *pr = &rt_prims[rows[i]];
		const double tm = c[k].m.med;
		if (tm < res->t_best)
			res->t_best = tm, res->best = rows[i];
		if (pr->in == RT_L_CHW && pr->out == RT_L_CHW && tm < res->t_best_chw)
			res->t_best_chw = tm, res->best_chw = rows[i];
		if (tm < res->t_final[pr->family])
			res->t_final[pr->family] = tm;
		tsv_row(tsv, l->net, l, res->flops, pr->name, rt_family_names[pr->family],
		        rt_layout_names[pr->in], rt_layout_names[pr->out], ST_FINAL, &c[k].m,
		        xf_in[pr->in], xf_out[pr->out], errs[i]);
		row_free(&rr[k]);
	}
	if (res->best >= 0) {
		const struct rt_prim *pr = &rt_prims[res->best];
		res->xf_best = xf_in[pr->in] + xf_out[pr->out];
	}
	struct meas none = one_run(NAN);
	if (kd >= 0)
		res->t_col[EXT_ONEDNN] = res->t_final[EXT_ONEDNN] = c[kd].m.med;
	tsv_row(tsv, l->net, l, res->flops, "onednn", "onednn", "chw", "chw", sd,
	        kd >= 0 ? &c[kd].m : &none, 0, 0, err_d);
	onednn_free(&dr);
	if (kbl >= 0)
		res->t_col[EXT_OPENBLAS] = res->t_final[EXT_OPENBLAS] = c[kbl].m.med;
	tsv_row(tsv, l->net, l, res->flops, "openblas_im2col", "openblas", "chw", "chw", sb,
	        kbl >= 0 ? &c[kbl].m : &none, 0, 0, err_b);
	blas_free(&br);

	free(rows);
	free(ms);
	free(st);
	free(errs);
	data_free(&d);
}

/* ---- tables -------------------------------------------------------------- */

static const char *col_name(int c)
{
	return c == EXT_ONEDNN ? "onednn" : c == EXT_OPENBLAS ? "openblas" : rt_family_names[c];
}

static void fmt_ms(char *buf, size_t n, double t)
{
	if (isfinite(t))
		snprintf(buf, n, "%.3f", t * 1e3);
	else
		snprintf(buf, n, "-");
}

static void fmt_ratio(char *buf, size_t n, double num, double den)
{
	if (isfinite(num) && isfinite(den) && den > 0)
		snprintf(buf, n, "%.2f", num / den);
	else
		snprintf(buf, n, "-");
}

static FILE *open_out(const struct opts *o, const char *name, const char *net)
{
	char path[4096];
	if (net)
		snprintf(path, sizeof path, "%s/%s_%s.tsv", o->outdir, name, net);
	else
		snprintf(path, sizeof path, "%s/%s", o->outdir, name);
	FILE *f = fopen(path, "w");
	if (!f) {
		fprintf(stderr, "primitives: cannot write %s\n", path);
		exit(1);
	}
	return f;
}

/* The network's table on stdout and primitives.txt, and its plot data. */
static void report_net(const struct opts *o, const char *net, const struct layer_result *res,
                       int n)
{
	double tot[N_COLUMNS], part[N_COLUMNS], tot_best = 0, tot_chw = 0, tot_sum2d = 0, tot_xf = 0, flops = 0;
	int wins[RT_FAM_COUNT_] = {0}, layers = 0, xf_known = 1, applies[N_COLUMNS] = {0};
	for (int c = 0; c < N_COLUMNS; c++)
		tot[c] = part[c] = 0;

	say("\n== %s: %d distinct conv layer shapes, batch 1, bias + ReLU, times in ms (median) ==\n",
	    net, n);
	say("%-20s %-23s %2s  %-36s %-9s %8s %7s %7s %7s | %8s %6s %-20s | %8s %6s\n", "layer",
	    "C x H x W > M k s p [g]", "n", "fastest dnncc row", "family", "time", "GFLOP/s",
	    "xsum2d", "xform", "oneDNN", "ratio", "oneDNN impl", "OpenBLAS", "ratio");
	for (int i = 0; i < n; i++) {
		const struct layer_result *r = &res[i];
		const struct conv_layer *l = r->l;
		char shape[64], tb[16], ts[16], tx[16], td[16], rd[16], to[16], ro[16], gf[16];
		snprintf(shape, sizeof shape, "%dx%dx%d>%d k%d s%d p%d", l->C, l->H, l->W, l->M, l->k,
		         l->s, l->pad);
		if (l->group > 1)
			snprintf(shape + strlen(shape), sizeof shape - strlen(shape), " g%d", l->group);
		fmt_ms(tb, sizeof tb, r->t_best);
		fmt_ratio(ts, sizeof ts, r->t_sum2d, r->t_best);
		fmt_ms(tx, sizeof tx, r->xf_best);
		if (r->best >= 0 && !isnan(r->xf_best) && r->xf_best == 0)
			snprintf(tx, sizeof tx, "0");
		fmt_ms(td, sizeof td, r->t_col[EXT_ONEDNN]);
		fmt_ratio(rd, sizeof rd, r->t_col[EXT_ONEDNN], r->t_best);
		fmt_ms(to, sizeof to, r->t_col[EXT_OPENBLAS]);
		fmt_ratio(ro, sizeof ro, r->t_col[EXT_OPENBLAS], r->t_best);
		if (r->best >= 0)
			snprintf(gf, sizeof gf, "%.1f", r->flops / r->t_best * 1e-9);
		else
			snprintf(gf, sizeof gf, "-");
		say("%-20s %-23s %2d  %-36s %-9s %8s %7s %7s %7s | %8s %6s %-20.20s | %8s %6s%s\n",
		    l->name, shape, l->count, r->best >= 0 ? rt_prims[r->best].name : "(none)",
		    r->best >= 0 ? rt_family_names[rt_prims[r->best].family] : "-", tb, gf, ts, tx, td,
		    rd, r->onednn_impl, to, ro, r->n_wrong ? "  (WRONG rows excluded)" : "");
		if (r->best < 0)
			continue;
		layers += l->count;
		wins[rt_prims[r->best].family] += l->count;
		flops += l->count * r->flops;
		tot_best += l->count * r->t_best;
		tot_chw += l->count * r->t_best_chw;
		tot_sum2d += l->count * r->t_sum2d;
		if (isnan(r->xf_best))
			xf_known = 0;
		else
			tot_xf += l->count * r->xf_best;
		for (int c = 0; c < N_COLUMNS; c++) {
			tot[c] += l->count * r->t_col[c];
			if (isfinite(r->t_col[c]))
				part[c] += l->count * r->t_col[c], applies[c] += l->count;
		}
	}
	char a[16], b[16], c[16], e[16];
	say("-- %s totals over %d conv layers (each shape x its count), ms:\n", net, layers);
	fmt_ms(a, sizeof a, tot_best);
	fmt_ratio(b, sizeof b, tot_sum2d, tot_best);
	say("   dnncc fastest row per layer %s (%.1f GFLOP/s, %s x sum2d's %.1f ms)\n", a,
	    flops / tot_best * 1e-9, b, tot_sum2d * 1e3);
	fmt_ms(a, sizeof a, tot_chw);
	say("   dnncc fastest CHW->CHW row per layer %s (no layout transforms needed)\n", a);
	if (xf_known)
		say("   transform overhead of the fastest rows, were each converted from and to CHW: "
		    "%.3f\n", tot_xf * 1e3);
	else
		say("   transform overhead: some layouts have no chain in transforms.def yet\n");
	fmt_ms(a, sizeof a, tot[EXT_ONEDNN]);
	fmt_ratio(b, sizeof b, tot[EXT_ONEDNN], tot_best);
	fmt_ratio(c, sizeof c, tot[EXT_ONEDNN], tot_chw);
	say("   oneDNN %s: oneDNN/dnncc = %s (%s for CHW->CHW rows)%s\n", a, b, c,
	    isfinite(tot[EXT_ONEDNN]) ? "" : " (oneDNN failed on some layer)");
	fmt_ms(a, sizeof a, tot[EXT_OPENBLAS]);
	fmt_ratio(b, sizeof b, tot[EXT_OPENBLAS], tot_best);
	fmt_ratio(e, sizeof e, tot[EXT_OPENBLAS], tot_chw);
	say("   OpenBLAS-im2col %s: OpenBLAS/dnncc = %s (%s for CHW->CHW rows)\n", a, b, e);
	say("   winning family (layers, counted): ");
	for (int f = 0; f < RT_FAM_COUNT_; f++)
		if (wins[f])
			say(" %s %d", rt_family_names[f], wins[f]);
	say("\n   fastest row per family (selection pass) summed over the layers it applies to, "
	    "ms (layers):");
	for (int f = 0; f < N_COLUMNS; f++)
		if (applies[f])
			say(" %s %.1f (%d)", col_name(f), part[f] * 1e3, applies[f]);
	say("\n");
	fflush(stdout);

	/* plot data */
	FILE *lf = open_out(o, "layers", net), *ff = open_out(o, "families", net);
	fprintf(lf, "# idx\tlayer\tcount\tmflop\tbest_row\tbest_family\tbest_us\tbest_chw_us"
	            "\tsum2d_us\tonednn_us\topenblas_us\tbest_gflops\tonednn_gflops"
	            "\topenblas_gflops\n");
	fprintf(ff, "# per (layer, family): the family's fastest time over the layer's fastest "
	            "dnncc row; finalists' in the final round, the others' in the selection pass\n");
	fprintf(ff, "# idx\tfamily_idx\tlayer\tfamily\ttime_us\tratio_to_best\twinner\n");
	for (int i = 0; i < n; i++) {
		const struct layer_result *r = &res[i];
		fprintf(lf, "%d\t%s\t%d\t%.3f\t%s\t%s\t%.3f\t%.3f\t%.3f\t%.3f\t%.3f\t%.3f\t%.3f\t%.3f\n", i,
		        r->l->name, r->l->count, r->flops * 1e-6,
		        r->best >= 0 ? rt_prims[r->best].name : "-",
		        r->best >= 0 ? rt_family_names[rt_prims[r->best].family] : "-", r->t_best * 1e6,
		        r->t_best_chw * 1e6, r->t_sum2d * 1e6, r->t_col[EXT_ONEDNN] * 1e6,
		        r->t_col[EXT_OPENBLAS] * 1e6, r->flops / r->t_best * 1e-9,
		        r->flops / r->t_col[EXT_ONEDNN] * 1e-9, r->flops / r->t_col[EXT_OPENBLAS] * 1e-9);
		for (int c = 0; c < N_COLUMNS; c++)
			if (isfinite(r->t_col[c]) && r->best >= 0)
				fprintf(ff, "%d\t%d\t%s\t%s\t%.3f\t%.4f\t%d\n", i, c, r->l->name, col_name(c),
				        (isfinite(r->t_final[c]) ? r->t_final[c] : r->t_col[c]) * 1e6,
				        isfinite(r->t_final[c]) ? r->t_final[c] / r->t_best
				                                : r->t_col[c] / r->t_best_sel,
				        c < RT_FAM_COUNT_ && c == (int)rt_prims[r->best].family);
	}
	fclose(lf);
	fclose(ff);
}

/* ---- main ---------------------------------------------------------------- */

static void usage(void)
{
	fprintf(stderr,
	        "usage: primitives [-o DIR] [--net NAME]... [--layer SUBSTR] [--prim SUBSTR]...\n"
	        "                  [--exclude SUBSTR]... [--quick] [--runs N] [--min-time MS] [--wall]\n"
	        "                  [--isa avx2|c]\n"
	        "  -o DIR          results directory (default bench/results)\n"
	        "  --net NAME      alexnet, vgg16, googlenet, resnet50 (default: these four) or\n"
	        "                  mobilenetv2, mobilenetv1_025; repeatable\n"
	        "  --layer SUBSTR  only layers whose name contains SUBSTR\n"
	        "  --prim SUBSTR   only rows whose name contains SUBSTR (sum2d always runs)\n"
	        "  --exclude SUBSTR  skip rows whose name contains SUBSTR\n"
	        "  --quick         time only rows within %gx of the fastest first run\n"
	        "  --runs N        samples per measurement (default 5, at least 3)\n"
	        "  --min-time MS   length of a sample (default 50)\n"
	        "  --wall          time on the wall clock (default: the process's CPU time)\n"
	        "  --isa ISA       avx2 or c: dnncc's rows run that ISA's kernels and oneDNN is\n"
	        "                  capped at it (c: at SSE4.1, its lowest; default: the host's\n"
	        "                  best, oneDNN uncapped)\n",
	        QUICK_FACTOR);
	exit(2);
}

static int known_net(const char *s)
{
	for (size_t i = 0; i < sizeof all_nets / sizeof all_nets[0]; i++)
		if (strcmp(s, all_nets[i]) == 0)
			return 1;
	return 0;
}

static void header(const struct opts *o)
{
	char model[256] = "unknown", line[512], load[128] = "?";
	FILE *f = fopen("/proc/cpuinfo", "r");
	if (f) {
		while (fgets(line, sizeof line, f))
			if (strncmp(line, "model name", 10) == 0) {
				char *c = strchr(line, ':');
				if (c)
					snprintf(model, sizeof model, "%s", c + 2);
				model[strcspn(model, "\n")] = 0;
				break;
			}
		fclose(f);
	}
	f = fopen("/proc/loadavg", "r");
	if (f) {
		if (fgets(load, sizeof load, f))
			load[strcspn(load, "\n")] = 0;
		fclose(f);
	}
	time_t now_t = time(NULL);
	char date[64];
	strftime(date, sizeof date, "%Y-%m-%d %H:%M UTC", gmtime(&now_t));
	const dnnl_version_t *v = dnnl_version();
	say("dnncc primitive benchmark (bench/primitives), %s\n", date);
#ifndef BENCH_CFLAGS
#define BENCH_CFLAGS "?"
#endif
	say("machine: %s; compiler: %s, CFLAGS %s; dnncc sgemm ISA: %s\n", model,
#if defined(__clang__)
	    __VERSION__,
#elif defined(__GNUC__)
	    "gcc " __VERSION__,
#else
	    "?",
#endif
	    BENCH_CFLAGS, rt_sgemm_isa_name(bench_isa));
	if (onednn_cap)
		say("--isa %s: dnncc's rows run %s kernels on a host that has %s; oneDNN capped at %s\n",
		    rt_sgemm_isa_name(bench_isa), rt_sgemm_isa_name(bench_isa),
		    rt_sgemm_isa_name(rt_sgemm_isa_host()), onednn_cap);
	say("baselines: oneDNN %d.%d.%d (convolution_auto, formats of its choice, reorders not "
	    "timed: its best case; max threads %d), OpenBLAS-im2col (%s)\n",
	    v->major, v->minor, v->patch, omp_get_max_threads(), openblas_get_config());
	say("single thread; OPENBLAS_CORETYPE / OPENBLAS_L2_SIZE %s (these machines set them, which "
	    "halves OpenBLAS's speed: `make bench-primitives` runs with env -u for both)\n",
	    getenv("OPENBLAS_CORETYPE") || getenv("OPENBLAS_L2_SIZE") ? "SET: OpenBLAS numbers are off"
	                                                              : "unset");
	say("rows: %d in the table; timing: %s, median of %d samples of >= %.0f ms each (3 for "
	    "calls over %.0f ms, sum2d 3 or 1)%s; load average at start: %s\n",
	    rt_n_prims,
	    bench_clock == CLOCK_MONOTONIC ? "wall clock" : "process CPU time (the machine is shared)",
	    o->samples, o->min_time * 1e3, 4 * o->min_time * 1e3,
	    o->quick ? ", --quick: rows over 10x the fastest first run run once" : "", load);
	say("final round: per layer, each family's fastest row within %.1fx of the fastest and the "
	    "fastest CHW -> CHW row are timed again, interleaved round by round with oneDNN and "
	    "OpenBLAS-im2col; the tables use those times\n", FINAL_FACTOR);
	say("ratios: xsum2d = sum2d time / fastest row's; oneDNN and OpenBLAS ratio = their time / "
	    "fastest dnncc row's (> 1: dnncc faster); xform = CHW -> input layout + output layout -> "
	    "CHW for the fastest row, not included in its time\n");
}

int main(int argc, char **argv)
{
	struct opts o;
	memset(&o, 0, sizeof o);
	o.outdir = "bench/results";
	o.samples = 5;
	o.min_time = 0.05;
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
		if (strcmp(a, "--quick") == 0) {
			o.quick = 1;
		} else if (strcmp(a, "--wall") == 0) {
			bench_clock = CLOCK_MONOTONIC;
		} else if (!v) {
			usage();
		} else if (strcmp(a, "-o") == 0) {
			o.outdir = v, i++;
		} else if (strcmp(a, "--net") == 0) {
			if (!known_net(v) || o.n_nets == 8) {
				fprintf(stderr, "primitives: --net %s: not one of alexnet, vgg16, googlenet, "
				                "resnet50, mobilenetv2, mobilenetv1_025\n", v);
				return 2;
			}
			o.nets[o.n_nets++] = v, i++;
		} else if (strcmp(a, "--layer") == 0) {
			o.layer = v, i++;
		} else if (strcmp(a, "--prim") == 0 && o.n_prims < MAX_FILTERS) {
			o.prims[o.n_prims++] = v, i++;
		} else if (strcmp(a, "--exclude") == 0 && o.n_exclude < MAX_FILTERS) {
			o.exclude[o.n_exclude++] = v, i++;
		} else if (strcmp(a, "--runs") == 0) {
			o.samples = atoi(v), i++;
			if (o.samples < 3 || o.samples > MAX_SAMPLES) {
				fprintf(stderr, "primitives: --runs must be 3..%d\n", MAX_SAMPLES);
				return 2;
			}
		} else if (strcmp(a, "--isa") == 0) {
			bench_isa = strcmp(v, "avx2") == 0 ? RT_SGEMM_ISA_AVX2
			          : strcmp(v, "c") == 0    ? RT_SGEMM_ISA_C
			                                   : -2;
			if (bench_isa == -2 || !rt_sgemm_isa_supported(bench_isa)) {
				fprintf(stderr, "primitives: --isa %s: not avx2 or c, or not on this CPU\n", v);
				return 2;
			}
			const int avx2 = bench_isa == RT_SGEMM_ISA_AVX2;
			onednn_cap = avx2 ? "avx2" : "sse4.1";
			dnnl_status_t st = dnnl_set_max_cpu_isa(avx2 ? dnnl_cpu_isa_avx2 : dnnl_cpu_isa_sse41);
			if (st != dnnl_success) {
				fprintf(stderr, "primitives: oneDNN refused to cap its ISA (status %d)\n", (int)st);
				return 2;
			}
			i++;
		} else if (strcmp(a, "--min-time") == 0) {
			o.min_time = atof(v) * 1e-3, i++;
			if (!(o.min_time > 0)) {
				fprintf(stderr, "primitives: --min-time must be positive\n");
				return 2;
			}
		} else {
			usage();
		}
	}
	if (bench_isa < 0)
		bench_isa = rt_sgemm_isa_host();
	if (o.n_nets == 0)
		for (size_t i = 0; i < sizeof default_nets / sizeof default_nets[0]; i++)
			o.nets[o.n_nets++] = default_nets[i];

	openblas_set_num_threads(1);
	omp_set_num_threads(1);
	mkdir(o.outdir, 0777);
	txt_out = open_out(&o, "primitives.txt", NULL);
	FILE *tsv = open_out(&o, "primitives.tsv", NULL);
	header(&o);
	fprintf(tsv, "# dnncc primitive benchmark: one line per (layer, row); times in microseconds "
	             "per call (median, min, max over the samples); xform: CHW -> in layout and out "
	             "layout -> CHW (nan: no chain); wall_us: median on the wall clock (nan for a single run); "
	             "status: ok, 1run (--quick), WRONG, failed, final (the fastest row and the fastest CHW row "
	             "timed again, interleaved with oneDNN and OpenBLAS: what the tables use)\n");
	fprintf(tsv, "net\tlayer\tcount\tC\tH\tW\tM\tk\ts\tpad\tgroup\tmflop\trow\tfamily\tin\tout"
	             "\tstatus\tsamples\tcalls\tmedian_us\tmin_us\tmax_us\twall_us\tgflops\txform_in_us"
	             "\txform_out_us\trel_l2_err\n");

	FILE *nets_gp = open_out(&o, "nets.gp", NULL);
	fprintf(nets_gp, "# written by bench/primitives: the networks in this results directory\n"
	                 "nets = \"");
	double max_spread = 0;
	int wrong = 0, n_done = 0;
	for (int ni = 0; ni < o.n_nets; ni++) {
		const char *net = o.nets[ni];
		struct layer_result res[N_CONV_LAYERS];
		int n = 0;
		for (int i = 0; i < N_CONV_LAYERS; i++) {
			const struct conv_layer *l = &conv_layers[i];
			if (strcmp(l->net, net) != 0 || (o.layer && !strstr(l->name, o.layer)))
				continue;
			fprintf(stderr, "primitives: %s/%s\n", net, l->name);
			bench_layer(&o, l, tsv, &res[n]);
			if (res[n].spread > max_spread)
				max_spread = res[n].spread;
			wrong += res[n].n_wrong;
			n++;
		}
		if (n == 0)
			continue;
		report_net(&o, net, res, n);
		fprintf(nets_gp, "%s%s", n_done++ ? " " : "", net);
	}
	fprintf(nets_gp, "\"\n");
	fclose(nets_gp);
	char load[128] = "?";
	FILE *f = fopen("/proc/loadavg", "r");
	if (f) {
		if (fgets(load, sizeof load, f))
			load[strcspn(load, "\n")] = 0;
		fclose(f);
	}
	say("\nnoise: the widest spread (max - min) / median of any timed row's samples was %.0f%%; "
	    "load average at the end: %s\n",
	    max_spread * 100, load);
	if (wrong)
		say("%d (layer, row) results were WRONG and excluded (see primitives.tsv)\n", wrong);
	fclose(tsv);
	fclose(txt_out);
	return wrong ? 1 : 0;
}
