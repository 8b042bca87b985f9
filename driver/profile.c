/* profile.c - `dnncc profile` and --profile: measured costs for a model on
 * this machine (DESIGN.md §2 "Cost table"; the table's format is in
 * passes/costs.c).
 *
 * 1. Cases. The model goes through its frontend, shape inference and
 *    canonicalisation, as in a compile. Every distinct convolution layer (a
 *    scenario: struct rt_conv2d as selection sees it) gets one case per
 *    primitive row whose predicate accepts it, and every distinct N,C,H,W of
 *    a 3-D/4-D activation gets one case per layout transform. The cost key of
 *    each case is costs.c's, so what is measured is what selection looks up.
 *    Every pooling, global pooling, activation, same-shape element-wise and
 *    channel Concat layer gets one case per kernel row of runtime/nonconv.def
 *    that applies (one per layout: passes/nonconv.c), a small function calling
 *    that kernel as generated code would, with inputs packed one after the
 *    other in one buffer.
 * 2. Cache. Cases already in this machine's cache file are not measured
 *    again. The cache is a cost table per (CPU model, target ISA, compiler,
 *    flags, dnncc version, the runtime's source text, BLAS, whether the
 *    harness evicts the weights: a model larger than the last-level cache,
 *    PROFILE_EVICT_WEIGHTS_BYTES), in $DNNCC_CACHE_DIR, else
 *    $XDG_CACHE_HOME/dnncc, else ~/.cache/dnncc, named costs-HASH.tsv.
 * 3. Harness. The missing cases become one self-contained C99 program: the
 *    runtime units they call, copied by the emitter exactly as generated
 *    code gets them (emit_runtime), a table of cases with literal
 *    parameters and buffer sizes, and the fixed driver of harness_main.c
 *    (timing, statistics, progress). Weights are random: a primitive's
 *    packed weights (Winograd U, FFT spectra, blocked matrices) are filled
 *    with random floats of the packed size, since the values do not change
 *    how long a kernel runs, which keeps the harness small enough to carry
 *    to another board. dnncc builds it with $CC (default cc) -std=c99 -O2,
 *    runs it and reads its standard output, a cost table. A target this
 *    machine cannot run is refused (--emit-harness is the way to measure
 *    it); a harness that crashes is reported with the case it was timing
 *    (it names each case on its output before the case's first call).
 * 4. The table written holds exactly the model's cases; the cache gains the
 *    measured ones. */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "backend/backend.h"
#include "driver/driver.h"
#include "frontend/frontend.h"
#include "runtime/primitives.h"
#include "runtime/sgemm.h"

#define DEFAULT_RUNS 15
#define HARNESS_CFLAGS "-std=c99 -O2"
/* A model whose call touches more bytes than the target's last-level cache
 * (weights, plus twice the largest activation for the arena) streams its
 * weights from memory on every call: the cache does not hold them from one
 * call to the next, so its cases are timed with the harness's
 * --evict-weights. Below it the weights stay in cache and are timed so.
 * The size is --llc MiB, else, for a profile run here, this machine's
 * largest cache (host_llc_bytes), else PROFILE_EVICT_WEIGHTS_BYTES.
 * A fixed 16 MiB mis-timed MobileNetV2 (14 + 10 MB) on a Xeon whose L3
 * holds it: evicted, its layers were predicted 1.25x their in-network
 * times. On an older Xeon reads of 32 MB and more ran at DRAM speed,
 * 10 GB/s, against 27 GB/s up to 16 MB. */
#define PROFILE_EVICT_WEIGHTS_BYTES (16u << 20)

/* Whether a model's bytes stay in the cache from one call to the next, by
 * measurement: a virtual machine reports its host's whole last-level cache
 * (an Emerald Rapids VM with 2 of the host's cores: 260 MiB), of which it
 * holds far less (there, reading a buffer again ran at 28 GB/s up to 64 MiB
 * and at 13-15 GB/s, memory's rate, from 128 MiB). So a buffer of the
 * call's size is read twice and its second pass compared with a
 * RESIDENT_SMALL_MIB buffer's, which any last-level cache holds: below
 * RESIDENT_MIN_RATIO of that rate it came from memory (AlexNet there,
 * 235 MiB, timed in cache, chose layers that ran 2x their profiled times in
 * the network). Cache-resident reads ran 0.9-1.0 of the small buffer's
 * rate, memory 0.43-0.47.
 * The buffer is RESIDENT_MARGIN times the call's bytes: a plan reads more
 * than the model holds (a Winograd F(4x4, 3x3) row reads transformed weights
 * 4x the kernel's, packed panels and workspaces add to that), and on that VM
 * 50.7 MiB (ResNet-18) read again at 0.66-0.83 of the small buffer's rate,
 * so that one profile timed it in cache and the next from memory. Timed in
 * cache, its 14 x 14 x 256 layers went to F(4x4, 3x3), which ran 1.9-2.1 ms
 * in the network against 1.0-1.1 profiled, and the network 25 ms a call
 * against 19.7 with the from-memory plan (19.1-19.3 with the margin).
 * GoogLeNet (31.4 MiB) and MobileNetV2 (22.5), which the margin moves to
 * memory there or to the threshold, ran as fast or faster with the
 * from-memory plan (16.6-16.8 against 16.5-16.9 ms; 5.02-5.05 against
 * 5.11-5.16; 1 thread, interleaved processes, 2026-12-06). */
#define RESIDENT_SMALL_MIB 4
#define RESIDENT_MIN_RATIO 0.7
#define RESIDENT_MARGIN 2

static const char *const isa_names[] = {
	"RT_SGEMM_ISA_C", "RT_SGEMM_ISA_AVX2", "RT_SGEMM_ISA_AVX512", "RT_SGEMM_ISA_NEON",
};

/* Runtime units, numbered as the emitter numbers them (units.def). */
enum profile_unit {
#define X(e, file) e,
#include "runtime/units.def"
#undef X
	PROFILE_UNIT_COUNT_
};

/* One measurement: a primitive on a scenario, a transform on a shape, a
 * non-convolution kernel on a layer, or a fully-connected layer. */
struct pcase {
	int transform;      /* 0: rt_prims[row], 1: rt_transforms[row], 2: nc_kernels[row],
	                       3: gemm_fc with M, N, K in N, C, H */
	int row;
	int scenario;       /* prim: index into profile.scenarios */
	int N, C, H, W;     /* transform: the tensor */
	char key[256];      /* costs.c's scenario key */
	double estimate_us; /* the built-in model's guess, weights the progress ETA */
	char *code;         /* nonconv: body of void f(const float *x, float *y), owned */
	int unit;           /* nonconv: the runtime unit it calls (enum profile_unit) */
	size_t nx, ny;      /* nonconv: floats of all inputs (one after the other) and output */
};

static const char *case_row(const struct pcase *c)
{
	return c->transform == 3 ? "gemm_fc" : c->transform == 2 ? nc_kernels[c->row].name :
	       c->transform ? rt_transforms[c->row].name : rt_prims[c->row].name;
}

struct profile {
	const struct options *opt;
	struct diag *d;
	int n_scenarios;
	struct rt_conv2d *scenarios;
	int n_cases, cap_cases;
	struct pcase *cases;
	char machine[256];
	char compiler[256];
	char isa[128];
	uint64_t weight_bytes; /* the model's constant tensors, as canonicalize leaves them */
	int evict_weights;     /* a call touches more than llc_bytes */
	uint64_t llc_bytes;    /* the target's last-level cache (see PROFILE_EVICT_WEIGHTS_BYTES) */
	const char *llc_from;  /* where llc_bytes came from, for the table's header */
	int llc_from_host;     /* llc_bytes is what this machine reports (checked by reading) */
};

static void add_case(struct profile *pr, const struct pcase *c)
{
	for (int i = 0; i < pr->n_cases; i++)
		if (pr->cases[i].transform == c->transform && pr->cases[i].row == c->row &&
		    strcmp(pr->cases[i].key, c->key) == 0) {
			free(c->code);
			return;
		}
	if (pr->n_cases == pr->cap_cases) {
		pr->cap_cases = pr->cap_cases ? 2 * pr->cap_cases : 64;
		pr->cases = xrealloc(pr->cases, pr->cap_cases * sizeof *pr->cases);
	}
	pr->cases[pr->n_cases++] = *c;
}

static void add_scenario(struct profile *pr, const struct rt_conv2d *p)
{
	char key[256];
	costs_conv_key(p, key, sizeof key);
	for (int i = 0; i < pr->n_scenarios; i++) {
		char k2[256];
		costs_conv_key(&pr->scenarios[i], k2, sizeof k2);
		if (strcmp(key, k2) == 0)
			return;
	}
	pr->scenarios = xrealloc(pr->scenarios, (pr->n_scenarios + 1) * sizeof *pr->scenarios);
	int s = pr->n_scenarios++;
	pr->scenarios[s] = *p;
	for (int i = 0; i < rt_n_prims; i++) {
		const struct rt_prim *r = &rt_prims[i];
		if (!r->applies(p, r->variant))
			continue;
		struct pcase c = {.transform = 0, .row = i, .scenario = s};
		snprintf(c.key, sizeof c.key, "%s", key);
		c.estimate_us = cost_primitive_us(r, p);
		add_case(pr, &c);
	}
}

static void add_shape(struct profile *pr, const struct tensor *t)
{
	if (!t || t->data || (t->rank != 3 && t->rank != 4))
		return;
	struct pcase c = {.transform = 1};
	c.N = (int)t->dims[0];
	c.C = (int)t->dims[1];
	c.H = t->rank == 4 ? (int)t->dims[2] : 1;
	c.W = (int)t->dims[t->rank - 1];
	costs_shape_key(c.N, c.C, c.H, c.W, c.key, sizeof c.key);
	for (int i = 0; i < rt_n_transforms; i++) {
		c.row = i;
		c.estimate_us = cost_transform_us(&rt_transforms[i], c.N, c.C, c.H, c.W);
		add_case(pr, &c);
	}
}

/* The call of non-convolution kernel k on layer n, as the emitter makes it
 * (backend/emit_print.c): a function body over x (the inputs one after the
 * other, each in k's layout) and y. */
static void add_nonconv(struct profile *pr, struct node *n, int row)
{
	const struct nc_kernel *k = &nc_kernels[row];
	const struct tensor *x = n->inputs[0], *y = n->outputs[0];
	int b = nc_block(k->layout), cl = k->layout == RT_L_HWC || b;
	int N = (int)y->dims[0], C = (int)y->dims[1], H = (int)y->dims[2], W = (int)y->dims[3];
	char body[8192];
	size_t len = 0;
	struct pcase c = {.transform = 2, .row = row};
	nc_key(n, c.key, sizeof c.key);
	c.estimate_us = nc_model_us(k, n, pr->opt->isa);
	for (int i = 0; i < nc_n_in(n); i++) {
		const struct tensor *t = n->inputs[i];
		c.nx += (size_t)t->dims[0] * rt_layout_size(k->layout, (int)t->dims[1], (int)t->dims[2],
		                                            (int)t->dims[3]);
	}
	c.ny = (size_t)N * rt_layout_size(k->kind == NC_GPOOL ? RT_L_CHW : k->layout, C, H, W);
	switch (k->kind) {
	case NC_POOL: {
		struct rt_pool2d p;
		if (nc_pool_params(n, &p))
			return;
		int avg = n->op == OP_AVGPOOL;
		len += snprintf(body + len, sizeof body - len,
		                "\tstatic const struct rt_pool2d p = {%d, %d, %d, %d, %d, %d, %d, %d, %d, "
		                "%d, %d, %d, %d, %d, %d, %d, %d};\n",
		                p.N, p.C, p.H, p.W, p.oH, p.oW, p.kH, p.kW, p.sH, p.sW, p.dH, p.dW, p.padT,
		                p.padL, p.padB, p.padR, p.count_include_pad);
		/* as the emitter: pool_cl.c in every layout (CHW: block 1) */
		snprintf(body + len, sizeof body - len,
		         "\trt_pool2d_cl(&p, RT_SGEMM_ISA, %d, %d, x, y);\n", cl ? b : 1, avg);
		c.unit = RT_UNIT_POOL_CL;
		break;
	}
	case NC_GPOOL: {
		int avg = n->op == OP_GLOBAL_AVGPOOL, hw = (int)(x->dims[2] * x->dims[3]);
		if (cl)
			snprintf(body, sizeof body,
			         "\trt_global_pool_cl(%d, %d, %d, RT_SGEMM_ISA, %d, %d, x, y);\n", N, C, hw,
			         b, avg);
		else
			snprintf(body, sizeof body, "\t%s(%d, %d, x, y);\n",
			         avg ? "rt_global_avgpool" : "rt_global_maxpool", N * C, hw);
		c.unit = cl ? RT_UNIT_GLOBAL_POOL_CL : avg ? RT_UNIT_GLOBAL_AVGPOOL
		                                           : RT_UNIT_GLOBAL_MAXPOOL;
		break;
	}
	case NC_ACT: {
		if (n->op == OP_SIGMOID) { /* unary_vec.c, as emitted */
			snprintf(body, sizeof body,
			         "\trt_unary_vec(RT_MATH_SIGMOID, 0.0f, 0.0f, RT_SGEMM_ISA, %zu, x, y);\n",
			         c.ny);
			c.unit = RT_UNIT_UNARY_VEC;
			break;
		}
		const char *act = n->op == OP_RELU ? "RT_ACT_RELU" : n->op == OP_LEAKY_RELU ?
		                  "RT_ACT_LEAKY_RELU" : "RT_ACT_TANH";
		int vec = n->op == OP_RELU || n->op == OP_LEAKY_RELU; /* act_vec.c, as emitted */
		snprintf(body, sizeof body,
		         vec ? "\trt_act_vec(%s, %a, RT_SGEMM_ISA, %zu, x, y);\n"
		             : "\trt_unary(%s, %a, 0.0f, %zu, x, y);\n",
		         act, n->op == OP_LEAKY_RELU ? ir_attr_float(n, "alpha", 0.01) : 0.0, c.ny);
		c.unit = vec ? RT_UNIT_ACT_VEC : RT_UNIT_UNARY;
		break;
	}
	case NC_ELTWISE: {
		const char *op = n->op == OP_SUB ? "RT_SUB" : n->op == OP_MUL ? "RT_MUL" :
		                 n->op == OP_MAX ? "RT_MAX" : n->op == OP_MIN ? "RT_MIN" : "RT_ADD";
		snprintf(body, sizeof body, "\trt_eltwise(%s, RT_SGEMM_ISA, %zu, x, x + %zu, y);\n", op,
		         c.ny, c.ny);
		c.unit = RT_UNIT_ELTWISE;
		break;
	}
	case NC_CHAN: { /* x, then the operand p (N*C floats at most) */
		static const char *const ops[] = {[OP_ADD] = "RT_ADD", [OP_SUB] = "RT_SUB",
		                                  [OP_MUL] = "RT_MUL", [OP_MAX] = "RT_MAX",
		                                  [OP_MIN] = "RT_MIN", [OP_PRELU] = "RT_PRELU"};
		int sn = 0, sc = 0;
		nc_chan_strides(n, &sn, &sc);
		snprintf(body, sizeof body,
		         "\trt_chan_binary(%s, RT_SGEMM_ISA, %d, %d, %d, %d, x, x + %zu, %d, %d, y);\n",
		         ops[n->op], cl ? b : -1, N, C, H * W, c.nx, sn, sc);
		c.nx += (size_t)N * C;
		c.unit = RT_UNIT_CHAN_BINARY;
		break;
	}
	case NC_CONCAT: {
		/* [N*H, C*W] in HCW, [N*H*W, C] in HWC, [N, C*H*W] otherwise */
		long outer = k->layout == RT_L_HCW ? (long)N * H : k->layout == RT_L_HWC ? (long)N * H * W : N;
		long inner = k->layout == RT_L_HCW ? W : k->layout == RT_L_HWC ? 1 : (long)H * W;
		long total = (long)C * inner, off = 0;
		size_t xoff = 0;
		for (int i = 0; i < n->n_inputs && len < sizeof body; i++) {
			long part = (long)n->inputs[i]->dims[1] * inner;
			len += snprintf(body + len, sizeof body - len,
			                "\trt_concat_part(%ld, %ld, %ld, %ld, x + %zu, y);\n", outer, part,
			                total, off, xoff);
			off += part;
			xoff += (size_t)outer * part;
		}
		c.unit = RT_UNIT_CONCAT;
		break;
	}
	}
	c.code = xstrdup(body);
	add_case(pr, &c);
}

/* A fully-connected layer that selection gives gemm_fc (passes/select.c),
 * timed as the emitter calls it: packed weights, a bias, ReLU. */
static void add_fc(struct profile *pr, struct node *n)
{
	int64_t M, N, K;
	if (pass_fc_shape(n, pr->opt, &M, &N, &K) != 1 || M > INT_MAX)
		return;
	struct pcase c = {.transform = 3, .N = (int)M, .C = (int)N, .H = (int)K};
	costs_fc_key(c.N, c.C, c.H, c.key, sizeof c.key);
	c.estimate_us = cost_fc_us(pr->opt->isa, (double)M, (double)N, (double)K);
	add_case(pr, &c);
}

/* Step 1: the model's scenarios and tensor shapes, as selection will see them. */
static int reread_rates(uint64_t bytes, double *big, double *small); /* below */

static int find_cases(struct profile *pr)
{
	const struct options *opt = pr->opt;
	struct diag *d = pr->d;
	size_t n = strlen(opt->model);
	struct graph *g = n > 9 && strcmp(opt->model + n - 9, ".prototxt") == 0
	                          ? caffe_read(opt->model, opt, d)
	                          : onnx_read(opt->model, opt, d);
	if (!g || d->errors || ir_verify(g, "frontend", 0, d) ||
	    pass_infer_shapes(g, opt, d) || d->errors || ir_verify(g, "infer_shapes", 1, d) ||
	    pass_canonicalize(g, opt, d) || d->errors || ir_verify(g, "canonicalize", 1, d)) {
		ir_graph_free(g);
		return -1;
	}
	for (int i = 0; i < g->n_nodes; i++) {
		struct node *nd = g->nodes[i];
		if (nd->dead)
			continue;
		struct rt_conv2d p;
		if (nd->op == OP_CONV && pass_conv_params(nd, opt->isa, opt->threads, &p) == 0)
			add_scenario(pr, &p);
		for (int k = 0; k < nc_n_kernels; k++)
			if (nc_applies(&nc_kernels[k], nd))
				add_nonconv(pr, nd, k);
		add_fc(pr, nd);
	}
	/* what one call touches: the weights and, standing in for the arena
	 * (sized later, by the memory planner), twice the largest activation */
	uint64_t largest = 0;
	for (int i = 0; i < g->n_tensors; i++) {
		const struct tensor *t = g->tensors[i];
		if (t->data)
			pr->weight_bytes += ir_nbytes(t);
		else if (ir_nbytes(t) > largest)
			largest = ir_nbytes(t);
	}
	uint64_t touched = pr->weight_bytes + 2 * largest;
	pr->evict_weights = touched > pr->llc_bytes;
	fprintf(stderr, "dnncc profile: a call touches %.1f MiB (weights and twice the largest "
	        "activation), the last-level cache is %.1f MiB (%s): weights timed %s\n",
	        touched / 1048576.0, pr->llc_bytes / 1048576.0, pr->llc_from,
	        pr->evict_weights ? "from memory" : "in cache");
	if (!pr->evict_weights && pr->llc_from_host && touched > PROFILE_EVICT_WEIGHTS_BYTES) {
		double big, small;
		if (reread_rates(RESIDENT_MARGIN * touched, &big, &small) == 0) {
			pr->evict_weights = big < RESIDENT_MIN_RATIO * small;
			fprintf(stderr, "dnncc profile: %.1f MiB (%dx that) read again at %.1f GB/s "
			        "against %.1f GB/s for %d MiB: %s\n",
			        RESIDENT_MARGIN * touched / 1048576.0, RESIDENT_MARGIN, big / 1e9,
			        small / 1e9, RESIDENT_SMALL_MIB,
			        pr->evict_weights ? "the cache this machine gives us is smaller; "
			                            "weights timed from memory"
			                          : "it stays in cache; weights timed in cache");
		}
	}
	for (int i = 0; i < g->n_nodes; i++) {
		struct node *nd = g->nodes[i];
		if (nd->dead)
			continue;
		for (int k = 0; k < nd->n_inputs; k++)
			add_shape(pr, nd->inputs[k]);
		for (int k = 0; k < nd->n_outputs; k++)
			add_shape(pr, nd->outputs[k]);
	}
	ir_graph_free(g);
	return 0;
}

/* ---- this machine ------------------------------------------------------------ */

/* The CPU model as /proc/cpuinfo names it (x86 "model name"; Arm "Hardware",
 * "Model" or "CPU part"), else "unknown CPU". */
static void cpu_model(char *buf, size_t size)
{
	static const char *const keys[] = {"model name", "Model", "Hardware", "cpu model", "CPU part"};
	char found[5][256] = {{0}};
	FILE *f = fopen("/proc/cpuinfo", "r");
	char line[512];
	while (f && fgets(line, sizeof line, f)) {
		for (int k = 0; k < 5; k++) {
			size_t n = strlen(keys[k]);
			if (found[k][0] || strncmp(line, keys[k], n) != 0)
				continue;
			const char *v = line + n;
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
	/* the first key found; the precision bounds the copy at one found[]
	 * entry, which GCC's -Wformat-truncation otherwise takes for all five */
	for (int k = 0; k < 5; k++)
		if (found[k][0]) {
			snprintf(buf, size, "%.*s", (int)sizeof found[k] - 1, found[k]);
			return;
		}
	snprintf(buf, size, "unknown CPU");
}

/* The first line of cpu0's cache/index<i>/<name> in sysfs into buf; 0 when
 * it is there. $DNNCC_SYSFS_CPU stands for /sys/devices/system/cpu: a test
 * gives a machine a cache it does not have (tests/profile.sh). */
static int cache_attr(int i, const char *name, char *buf, int size)
{
	const char *root = getenv("DNNCC_SYSFS_CPU");
	char path[1024];
	if (snprintf(path, sizeof path, "%s/cpu0/cache/index%d/%s",
	             root && *root ? root : "/sys/devices/system/cpu", i, name) >= (int)sizeof path)
		return 1;
	FILE *f = fopen(path, "r");
	int ok = f && fgets(buf, size, f) != NULL;
	if (f)
		fclose(f);
	return !ok;
}

static double wall_seconds(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* Bytes per second of the fastest of `passes` passes over buf[n] after one
 * untimed pass; the eight XOR chains keep the loads independent. */
static double reread_rate(const uint64_t *buf, size_t n, int passes, uint64_t *sink)
{
	double best = 0.0;
	for (int r = -1; r < passes; r++) {
		uint64_t x0 = 0, x1 = 0, x2 = 0, x3 = 0, x4 = 0, x5 = 0, x6 = 0, x7 = 0;
		const double t0 = wall_seconds();
		for (size_t i = 0; i + 8 <= n; i += 8) {
			x0 ^= buf[i];
			x1 ^= buf[i + 1];
			x2 ^= buf[i + 2];
			x3 ^= buf[i + 3];
			x4 ^= buf[i + 4];
			x5 ^= buf[i + 5];
			x6 ^= buf[i + 6];
			x7 ^= buf[i + 7];
		}
		const double t = wall_seconds() - t0;
		*sink ^= x0 ^ x1 ^ x2 ^ x3 ^ x4 ^ x5 ^ x6 ^ x7;
		if (r >= 0 && t > 0 && (double)n * 8 / t > best)
			best = (double)n * 8 / t;
	}
	return best;
}

/* The rates of a second read of `bytes` and of RESIDENT_SMALL_MIB; -1 when
 * the memory is not there (then the size rule stands). */
static int reread_rates(uint64_t bytes, double *big, double *small)
{
	const size_t n = (size_t)(bytes / 8), ns = (size_t)RESIDENT_SMALL_MIB << 17;
	uint64_t *buf = bytes / 8 <= SIZE_MAX / 8 ? malloc(n * 8) : NULL;
	if (!buf || n < ns) {
		free(buf);
		return -1;
	}
	for (size_t i = 0; i < n; i++)
		buf[i] = i * 0x9E3779B97F4A7C15ull;
	volatile uint64_t keep;
	uint64_t sink = 0;
	*big = reread_rate(buf, n, 3, &sink);
	*small = reread_rate(buf, ns, 30, &sink);
	keep = sink;
	(void)keep;
	free(buf);
	return *big > 0 && *small > 0 ? 0 : -1;
}

/* This machine's largest data or unified cache in bytes, from Linux's sysfs
 * (cpu0's cache/indexN/{type,level,size}), else 0. What one core can use of a
 * shared cache is less when other programs run; a profile is taken on a
 * quiet machine, as the generated code's users run it. */
static uint64_t host_llc_bytes(void)
{
	uint64_t best = 0;
	int best_level = 0;
	char type[64], level[16], size[32];
	for (int i = 0; cache_attr(i, "type", type, sizeof type) == 0; i++) {
		unsigned long long v;
		char unit = 0;
		if (strncmp(type, "Instruction", 11) == 0 || cache_attr(i, "level", level, sizeof level) ||
		    cache_attr(i, "size", size, sizeof size) || sscanf(size, "%llu%c", &v, &unit) < 1)
			continue;
		const int lv = atoi(level);
		const uint64_t bytes = v << (unit == 'K' ? 10 : unit == 'M' ? 20 : unit == 'G' ? 30 : 0);
		if (lv > best_level || (lv == best_level && bytes > best)) {
			best_level = lv;
			best = bytes;
		}
	}
	return best;
}

static const char *cc_command(void)
{
	const char *cc = getenv("CC");
	return cc && *cc ? cc : "cc";
}

/* The first line `$CC --version` prints, which names the compiler. */
static int compiler_id(char *buf, size_t size, struct diag *d)
{
	char cmd[1024];
	snprintf(cmd, sizeof cmd, "%s --version 2>/dev/null", cc_command());
	FILE *p = popen(cmd, "r");
	buf[0] = '\0';
	if (p) {
		if (fgets(buf, (int)size, p))
			buf[strcspn(buf, "\r\n")] = '\0';
		while (fgetc(p) != EOF)
			;
		int st = pclose(p);
		if (st != 0)
			buf[0] = '\0';
	}
	if (!buf[0]) {
		diag_error(d, NULL, "cannot run the C compiler '%s' (set CC to a working compiler)",
		           cc_command());
		return -1;
	}
	return 0;
}

/* The threads the cases run on: --threads, as the generated code will. */
static int profile_threads(const struct options *opt)
{
	return opt->threads > 1 ? opt->threads : 1;
}

/* " -pthread" for a threaded harness's build (older C libraries keep
 * pthreads apart), else "". */
static const char *pthread_flag(const struct options *opt)
{
	return profile_threads(opt) > 1 ? " -pthread" : "";
}

static void fill_header(struct profile *pr, struct cost_table *t)
{
	char date[64];
	time_t now = time(NULL);
	strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%SZ", gmtime(&now));
	cost_table_set_header(t, COST_HDR_MACHINE, pr->machine);
	cost_table_set_header(t, COST_HDR_ISA, pr->isa);
	cost_table_set_header(t, COST_HDR_COMPILER, pr->compiler);
	cost_table_set_header(t, COST_HDR_FLAGS, HARNESS_CFLAGS);
	char threads[16];
	snprintf(threads, sizeof threads, "%d", profile_threads(pr->opt));
	cost_table_set_header(t, COST_HDR_THREADS, threads);
	cost_table_set_header(t, COST_HDR_VERSION, PACKAGE_VERSION);
	cost_table_set_header(t, COST_HDR_DATE, date);
}

/* ---- the harness ----------------------------------------------------------------- */

static size_t conv_weights(const struct rt_prim *r, const struct rt_conv2d *p)
{
	if (r->packed)
		return r->packed(p, r->variant);
	return (size_t)p->M * (p->C / p->group) * p->kH * p->kW;
}

/* Whether the harness times case c "warm" too (harness_main.c): a
 * primitive whose weights are evicted, with a workspace of at least
 * PROFILE_WARM_MIN_WS floats. A smaller one comes from memory in a few
 * microseconds (64 KiB at 10 GB/s: 6.5 us), within a layer's noise. The
 * twins add to the profile's time: 394 of ResNet-18's 693 cases have one,
 * and its 2-thread profile took 2 min 37 s against 2 min 0 s without. */
#define PROFILE_WARM_MIN_WS 16384
static int has_warm_row(const struct profile *pr, const struct pcase *c)
{
	if (c->transform != 0 || !pr->evict_weights)
		return 0;
	const struct rt_prim *r = &rt_prims[c->row];
	return r->ws(&pr->scenarios[c->scenario], r->variant) >= PROFILE_WARM_MIN_WS;
}

/* Writes the harness for cases[n] to f: header comment, runtime, cases,
 * driver. Returns 0, -1 after reporting. *openblas is set when the runtime
 * calls cblas_sgemm. */
static int write_harness(struct profile *pr, FILE *f, const int *which, int n, int *openblas)
{
	const struct options *opt = pr->opt;
	int n_prims = 0, n_xforms = 0, n_layers = 0, n_nc = 0;
	int *used = xcalloc(pr->n_scenarios ? pr->n_scenarios : 1, sizeof *used);
	for (int i = 0; i < n; i++) {
		const struct pcase *c = &pr->cases[which[i]];
		if (c->transform >= 2) {
			n_nc++;
		} else if (c->transform) {
			n_xforms++;
		} else {
			n_prims++;
			n_layers += !used[c->scenario];
			used[c->scenario] = 1;
		}
	}
	/* the model's path, safe inside a comment */
	char model[512];
	snprintf(model, sizeof model, "%s", opt->model);
	for (char *m = model; *m; m++)
		if ((m[0] == '*' && m[1] == '/') || (unsigned char)*m < 0x20)
			*m = '?';
	fprintf(f,
	        "/* harness.c - dnncc %s profiling harness for %s, target %s; generated, do not "
	        "edit.\n"
	        " *\n"
	        " * Times %d (primitive, layer) pairs on %d convolution layers, %d\n"
	        " * (layout transform, shape) pairs and %d (kernel, layer) pairs of other\n"
	        " * layers, on %d thread%s, and prints a dnncc\n"
	        " * cost table (format: dnncc's passes/costs.c) on standard output;\n"
	        " * progress goes to standard error. Weights and inputs are random:\n"
	        " * values do not change how long a kernel runs.\n"
	        " *\n"
	        " * Build: cc -std=c99 -O2 -DHARNESS_CFLAGS='\"-std=c99 -O2\"' -o harness "
	        "harness.c -lm%s%s\n"
	        " * Run:   ./harness [--runs N] [--budget-ms T] [--cache net|hot] > costs.tsv\n"
	        " * Use:   dnncc MODEL -o NAME.c --costs costs.tsv */\n"
	        "#define _POSIX_C_SOURCE 200112L\n"
	        "#include <stdio.h>\n#include <stdlib.h>\n#include <string.h>\n"
	        "#include <time.h>\n#include <unistd.h>\n\n",
	        PACKAGE_VERSION, model, opt->target, n_prims, n_layers, n_xforms, n_nc,
	        profile_threads(opt), profile_threads(opt) > 1 ? "s" : "",
	        opt->blas_openblas ? " -lopenblas" : "", pthread_flag(opt));
	if (profile_threads(opt) > 1)
		fprintf(f,
		        "/* The cases run on the thread pool, as code built with --threads %d does. */\n"
		        "#define HARNESS_THREADS %d\n"
		        "#if !defined(__GNUC__) || !(defined(__unix__) || defined(__APPLE__))\n"
		        "#error \"a threaded harness needs POSIX threads and GCC-style atomics\"\n"
		        "#endif\n"
		        "#define RT_THREADS HARNESS_THREADS\n"
		        "/* Jobs the pool forked (its hook): a case that forks none runs on\n"
		        " * the caller alone and is timed with its input there (first_call). */\n"
		        "static long harness_jobs;\n"
		        "#define RT_POOL_HOOK_JOB(end, chunks) ((void)(chunks), harness_jobs += !(end))\n\n",
		        profile_threads(opt), profile_threads(opt));
	/* the runtime units the cases call */
	int *units = xmalloc((n ? n : 1) * sizeof *units);
	for (int i = 0; i < n; i++) {
		const struct pcase *c = &pr->cases[which[i]];
		units[i] = c->transform == 3 ? RT_UNIT_GEMM_FC : c->transform == 2 ? c->unit :
		           c->transform ? rt_transforms[c->row].unit : rt_prims[c->row].unit;
	}
	int rc = emit_runtime(f, units, n, opt, pr->d);
	free(units);
	if (rc < 0) {
		free(used);
		return -1;
	}
	*openblas = rc == 1;
	/* the layers, once each */
	fprintf(f, "/* ---- the cases ---- */\n");
	for (int s = 0; s < pr->n_scenarios; s++) {
		if (!used[s])
			continue;
		const struct rt_conv2d *p = &pr->scenarios[s];
		fprintf(f,
		        "static const struct rt_conv2d layer%d = {%d, %d, %d, %d, %d, %d, %d, %d, %d, "
		        "%d, %d, %d, %d, %d, %d, %d, %d, %a, %a, %s, NULL, %d};\n",
		        s, p->N, p->C, p->H, p->W, p->M, p->oH, p->oW, p->kH, p->kW, p->sH, p->sW,
		        p->dH, p->dW, p->padT, p->padL, p->group, p->act, (double)p->alpha,
		        (double)p->beta, isa_names[p->isa], p->threads);
	}
	free(used);
	for (int i = 0; i < n; i++) {
		const struct pcase *c = &pr->cases[which[i]];
		if (c->transform == 2)
			fprintf(f, "static void nc_case%d(const float *x, float *y)\n{\n%s}\n", i, c->code);
		else if (c->transform == 3)
			fprintf(f,
			        "static void fc_case%d(const float *x, const float *w, const float *b, "
			        "float *y)\n{\n"
			        "\tstatic const struct rt_gemm p = {.M = %d, .N = %d, .K = %d, .alpha = 1.0f, "
			        ".beta = 1.0f, .c_sm = 0, .c_sn = 1, .act = RT_ACT_RELU};\n"
			        "\trt_gemm_fc(&p, RT_SGEMM_ISA, x, w, b, y);\n}\n",
			        i, c->N, c->C, c->H);
	}
	fprintf(f, "\n"
	           "typedef void conv_fn(const struct rt_conv2d *p, int variant, const float *x,\n"
	           "                     const float *w, const float *b, float *y, float *ws);\n"
	           "typedef void layout_fn(int N, int C, int H, int W, const float *x, float *y);\n"
	           "\n"
	           "/* One measurement; sizes in floats. */\n"
	           "struct hcase {\n"
	           "\tconst char *kind, *row, *key; /* the cost table's first three columns */\n"
	           "\tconv_fn *conv;                /* a primitive on *p, or */\n"
	           "\tlayout_fn *layout;            /* a transform of N x C x H x W */\n"
	           "\tconst struct rt_conv2d *p;\n"
	           "\tint variant;\n"
	           "\tint N, C, H, W;\n"
	           "\tsize_t x, w, b, y, ws;         /* input, weights (packed), bias, output, "
	           "workspace */\n"
	           "\tdouble estimate_us;            /* dnncc's model, for the progress ETA */\n"
	           "\tvoid (*nc)(const float *x, float *y); /* or a non-convolution layer, or */\n"
	           "\tvoid (*fc)(const float *x, const float *w, const float *b, float *y); /* gemm_fc */\n"
	           "\tint warm;                      /* also timed with its workspace in cache */\n"
	           "};\n\n"
	           "static const struct hcase cases[] = {\n");
	for (int i = 0; i < n; i++) {
		const struct pcase *c = &pr->cases[which[i]];
		if (c->transform == 3) {
			fprintf(f,
			        "\t{\"fc\", \"gemm_fc\", \"%s\", 0, 0, 0, 0, 0, 0, 0, 0, %zu, %zu, %d, %zu, 0, "
			        "%.6g, 0, fc_case%d, 0},\n",
			        c->key, (size_t)c->N * c->H, rt_gemm_fc_pack_size(opt->isa, c->C, c->H), c->C,
			        (size_t)c->N * c->C, isfinite(c->estimate_us) ? c->estimate_us : 0.0, i);
		} else if (c->transform == 2) {
			fprintf(f,
			        "\t{\"nonconv\", \"%s\", \"%s\", 0, 0, 0, 0, 0, 0, 0, 0, %zu, 0, 0, %zu, 0, "
			        "%.6g, nc_case%d, 0, 0},\n",
			        nc_kernels[c->row].name, c->key, c->nx, c->ny,
			        isfinite(c->estimate_us) ? c->estimate_us : 0.0, i);
		} else if (c->transform) {
			const struct rt_transform *t = &rt_transforms[c->row];
			fprintf(f,
			        "\t{\"transform\", \"%s\", \"%s\", 0, %s, 0, 0, %d, %d, %d, %d, %zu, 0, 0, "
			        "%zu, 0, %.6g, 0, 0, 0},\n",
			        t->name, c->key, t->run_name, c->N, c->C, c->H, c->W,
			        (size_t)c->N * rt_layout_size(t->from, c->C, c->H, c->W),
			        (size_t)c->N * rt_layout_size(t->to, c->C, c->H, c->W), isfinite(c->estimate_us) ? c->estimate_us : 0.0);
		} else {
			const struct rt_prim *r = &rt_prims[c->row];
			const struct rt_conv2d *p = &pr->scenarios[c->scenario];
			fprintf(f,
			        "\t{\"prim\", \"%s\", \"%s\", %s, 0, &layer%d, %d, 0, 0, 0, 0, %zu, %zu, %d, "
			        "%zu, %zu, %.6g, 0, 0, %d},\n",
			        r->name, c->key, r->run_name, c->scenario, r->variant,
			        (size_t)p->N * rt_layout_size(r->in, p->C, p->H, p->W), conv_weights(r, p),
			        p->M, (size_t)p->N * rt_layout_size(r->out, p->M, p->oH, p->oW),
			        r->ws(p, r->variant), isfinite(c->estimate_us) ? c->estimate_us : 0.0,
			        has_warm_row(pr, c));
		}
	}
	fprintf(f, "};\n"
	           "static const int n_cases = (int)(sizeof cases / sizeof cases[0]);\n"
	           "static const char harness_isa[] = \"%s\";\n"
	           "static const char harness_version[] = \"%s\";\n\n",
	           pr->isa, PACKAGE_VERSION);
	/* the fixed driver */
	const struct embedded_file *m = &harness_sources[0];
	fwrite(m->text, 1, m->size, f);
	return ferror(f) ? -1 : 0;
}

/* ---- running it ---------------------------------------------------------------- */

static int run_shell(const char *cmd)
{
	int st = system(cmd);
	if (st == -1 || !WIFEXITED(st))
		return -1;
	return WEXITSTATUS(st);
}

/* Removes the temporary folder and whatever the compiler left in it. */
static void remove_dir(const char *dir)
{
	DIR *dp = opendir(dir);
	struct dirent *e;
	while (dp && (e = readdir(dp))) {
		if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
			continue;
		char path[8192];
		snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
		unlink(path);
	}
	if (dp)
		closedir(dp);
	rmdir(dir);
}

/* Builds and runs the harness for cases which[n]; the measured table, or
 * NULL after reporting. */
static struct cost_table *measure(struct profile *pr, const int *which, int n, int runs)
{
	struct diag *d = pr->d;
	const char *tmpdir = getenv("TMPDIR");
	char dir[4096], src[4200], exe[4200], out[4200], cmd[16384];
	snprintf(dir, sizeof dir, "%s/dnncc-profile-XXXXXX", tmpdir && *tmpdir ? tmpdir : "/tmp");
	if (!mkdtemp(dir)) {
		diag_error(d, NULL, "cannot create a temporary folder %s: %s", dir, strerror(errno));
		return NULL;
	}
	snprintf(src, sizeof src, "%s/harness.c", dir);
	snprintf(exe, sizeof exe, "%s/harness", dir);
	snprintf(out, sizeof out, "%s/costs.tsv", dir);
	struct cost_table *t = NULL;
	int openblas = 0;
	FILE *f = fopen(src, "w");
	if (!f) {
		diag_error(d, NULL, "cannot create %s: %s", src, strerror(errno));
		goto out;
	}
	int bad = write_harness(pr, f, which, n, &openblas);
	if (fclose(f) != 0 || bad) {
		if (!d->errors)
			diag_error(d, NULL, "cannot write %s: %s", src, strerror(errno));
		goto out;
	}
	snprintf(cmd, sizeof cmd, "%s %s -DHARNESS_CFLAGS='\"%s\"' -o '%s' '%s' -lm%s%s", cc_command(),
	         HARNESS_CFLAGS, HARNESS_CFLAGS, exe, src, openblas ? " -lopenblas" : "",
	         pthread_flag(pr->opt));
	fprintf(stderr, "dnncc profile: building the harness for %d cases (%s)\n", n, cc_command());
	if (run_shell(cmd) != 0) {
		diag_error(d, NULL, "the profiling harness did not build (%s); the compiler's messages "
		           "are above",
		           cmd);
		goto out;
	}
	snprintf(cmd, sizeof cmd, "'%s' --runs %d%s > '%s'", exe, runs,
	         pr->evict_weights ? " --evict-weights" : "", out);
	int st = run_shell(cmd);
	if (st != 0) {
		/* the harness names each case before its first call ("# timing
		 * case I", I in harness order) and prints a layer's rows after
		 * timing them all: the last case named is the one that failed */
		int done = 0, k;
		FILE *o = fopen(out, "r");
		char line[1024];
		while (o && fgets(line, sizeof line, o))
			if (sscanf(line, "# timing case %d", &k) == 1 && k >= 0 && k < n)
				done = k;
		if (o)
			fclose(o);
		const struct pcase *c = done < n ? &pr->cases[which[done]] : NULL;
		if (st < 0 || st > 128)
			diag_error(d, NULL, "the profiling harness was interrupted or crashed%s%s%s%s",
			           c ? " measuring " : "",
			           c ? case_row(c) : "",
			           c ? " on " : "", c ? c->key : "");
		else
			diag_error(d, NULL, "the profiling harness failed (exit status %d)%s%s%s%s", st,
			           c ? " measuring " : "",
			           c ? case_row(c) : "",
			           c ? " on " : "", c ? c->key : "");
		goto out;
	}
	t = cost_table_read(out, d);
	int rows = n;
	for (int i = 0; i < n; i++)
		rows += has_warm_row(pr, &pr->cases[which[i]]);
	if (t && (int)cost_table_n_rows(t) != rows) {
		diag_error(d, NULL, "internal error: the harness printed %zu rows for %d cases (%d "
		           "rows)", cost_table_n_rows(t), n, rows);
		cost_table_free(t);
		t = NULL;
	}
out:
	remove_dir(dir);
	return t;
}

/* ---- the cache ---------------------------------------------------------------- */

/* $DNNCC_CACHE_DIR, $XDG_CACHE_HOME/dnncc or ~/.cache/dnncc, created; NULL
 * (after a warning) when there is none. */
static char *cache_dir(struct diag *d)
{
	const char *env = getenv("DNNCC_CACHE_DIR");
	const char *xdg = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");
	char path[4096];
	if (env && *env)
		snprintf(path, sizeof path, "%s", env);
	else if (xdg && *xdg)
		snprintf(path, sizeof path, "%s/dnncc", xdg);
	else if (home && *home)
		snprintf(path, sizeof path, "%s/.cache/dnncc", home);
	else {
		diag_warning(d, NULL, "no cache folder (set DNNCC_CACHE_DIR or HOME): measuring "
		                      "everything, caching nothing");
		return NULL;
	}
	/* mkdir -p */
	for (char *s = path + 1;; s++) {
		if (*s != '/' && *s)
			continue;
		char c = *s;
		*s = '\0';
		if (mkdir(path, 0777) != 0 && errno != EEXIST) {
			diag_warning(d, NULL, "cannot create the cache folder %s: %s (caching nothing)",
			             path, strerror(errno));
			return NULL;
		}
		*s = c;
		if (!c)
			break;
	}
	return xstrdup(path);
}

static char *cache_path(struct profile *pr, const char *dir)
{
	char id[2048];
	/* "cpu clock": rows timed on the wall clock by older harnesses are not
	 * reused; "net cache": nor rows timed hot (harness_main.c); a model
	 * whose weights are evicted (above the last-level cache) has its own
	 * file, and older files, with the weights, or the workspace and output,
	 * left in the L3, or without "warm" rows, are not reused; each thread
	 * count has its own file
	 * (one thread's id, older than threaded profiles, names none), and
	 * threaded files older than serial cases read on the caller are not */
	char threads[64] = "";
	if (profile_threads(pr->opt) > 1)
		snprintf(threads, sizeof threads, "\n%d threads\nserial cases on the caller",
		         profile_threads(pr->opt));
	snprintf(id, sizeof id, "%s\n%s\n%s\n%s\n%s\n%s\ncpu clock\nnet cache\n%s%s", pr->machine,
	         pr->isa, pr->compiler, HARNESS_CFLAGS, PACKAGE_VERSION,
	         pr->opt->blas_openblas ? "openblas" : "own",
	         pr->evict_weights ? "weights, workspace and output evicted\nwarm workspace rows" :
	                             "weights cached",
	         threads);
	uint64_t h = 1469598103934665603ull;
	for (const char *s = id; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ull;
	/* and the runtime's text: a kernel changed since (the version stays
	 * 0.1.0 while the code moves) measures anew instead of the selection
	 * ranking it by its old costs; MobileNetV2's depthwise rows ran 13%
	 * faster after one change while the cache kept their old times */
	for (const struct embedded_file *f = rt_sources; f->name; f++)
		for (size_t k = 0; k < f->size; k++)
			h = (h ^ (unsigned char)f->text[k]) * 1099511628211ull;
	size_t n = strlen(dir) + 64;
	char *p = xmalloc(n);
	snprintf(p, n, "%s/costs-%016llx.tsv", dir, (unsigned long long)h);
	return p;
}

/* ---- the whole ----------------------------------------------------------------- */

static int profile_init(struct profile *pr, const struct options *opt,
                        const struct profile_options *po, struct diag *d)
{
	memset(pr, 0, sizeof *pr);
	pr->opt = opt;
	pr->d = d;
	cpu_model(pr->machine, sizeof pr->machine);
	pr->llc_bytes = po->llc_bytes;
	pr->llc_from = "--llc";
	if (!pr->llc_bytes && !po->emit_harness) {
		pr->llc_bytes = host_llc_bytes();
		pr->llc_from = "this machine's largest cache";
		pr->llc_from_host = 1;
	}
	if (!pr->llc_bytes) {
		pr->llc_bytes = PROFILE_EVICT_WEIGHTS_BYTES;
		pr->llc_from = po->emit_harness ? "the default for --emit-harness; --llc sets it"
		                                : "the default: this machine's cache size is unknown";
	}
	snprintf(pr->isa, sizeof pr->isa, "%s (%s)%s", opt->target, isa_names[opt->isa],
	         opt->blas_openblas ? " with --blas openblas" : "");
	return find_cases(pr);
}

static void profile_free(struct profile *pr)
{
	for (int i = 0; i < pr->n_cases; i++)
		free(pr->cases[i].code);
	free(pr->cases);
	free(pr->scenarios);
}

/* Steps 2 to 4: the model's table, measured through the cache. */
static struct cost_table *profile_run(struct profile *pr, const struct profile_options *po,
                                      char **cache_file)
{
	struct diag *d = pr->d;
	*cache_file = NULL;
	int host = rt_sgemm_isa_host(), isa = pr->opt->isa;
	if (isa != RT_SGEMM_ISA_C && isa != host &&
	    !(host == RT_SGEMM_ISA_AVX512 && isa == RT_SGEMM_ISA_AVX2)) {
		diag_error(d, NULL,
		           "this machine cannot run code for --target %s (%s): measure on the target "
		           "with --emit-harness DIR",
		           pr->opt->target, isa_names[isa]);
		return NULL;
	}
	if (compiler_id(pr->compiler, sizeof pr->compiler, d))
		return NULL;
	struct cost_table *cache = NULL;
	char *dir = cache_dir(d);
	if (dir) {
		*cache_file = cache_path(pr, dir);
		free(dir);
	}
	if (*cache_file && !po->no_cache && access(*cache_file, F_OK) == 0) {
		struct diag cd;
		diag_init(&cd, *cache_file, d->out);
		cache = cost_table_read(*cache_file, &cd);
		if (!cache)
			diag_warning(d, NULL, "ignoring the malformed cache file %s (it will be rewritten)",
			             *cache_file);
	}
	int *missing = xmalloc((pr->n_cases ? pr->n_cases : 1) * sizeof *missing);
	int n_missing = 0;
	for (int i = 0; i < pr->n_cases; i++) {
		const struct pcase *c = &pr->cases[i];
		const char *row = case_row(c);
		if (!cost_table_find(cache, c->transform, row, c->key) ||
		    (has_warm_row(pr, c) && !cost_table_find(cache, 4, row, c->key)))
			missing[n_missing++] = i;
	}
	struct cost_table *measured = NULL, *table = NULL;
	if (n_missing) {
		measured = measure(pr, missing, n_missing, po->runs ? po->runs : DEFAULT_RUNS);
		if (!measured)
			goto out;
	}
	table = cost_table_new();
	fill_header(pr, table);
	for (int i = 0; i < pr->n_cases; i++) {
		const struct pcase *c = &pr->cases[i];
		const char *row = case_row(c);
		/* the row, and its "warm" twin, from the table that has it */
		const struct cost_table *src =
			cost_table_find(measured, c->transform, row, c->key) ? measured : cache;
		const struct cost_row *r = cost_table_find(src, c->transform, row, c->key);
		if (!r) {
			diag_error(d, NULL, "internal error: the harness did not measure %s %s %s",
			           c->transform == 3 ? "fc" : c->transform == 2 ? "nonconv" :
			           c->transform ? "transform" : "prim", row,
			           c->key);
			cost_table_free(table);
			table = NULL;
			goto out;
		}
		struct cost_row copy = *r;
		copy.line = 0;
		cost_table_add(table, &copy);
		if (!has_warm_row(pr, c))
			continue;
		r = cost_table_find(src, 4, row, c->key);
		if (!r) {
			diag_error(d, NULL, "internal error: the harness did not measure warm %s %s", row,
			           c->key);
			cost_table_free(table);
			table = NULL;
			goto out;
		}
		copy = *r;
		copy.line = 0;
		cost_table_add(table, &copy);
	}
	fprintf(stderr, "dnncc profile: %d measured, %d from cache (%d convolution layer%s, %d cases)\n",
	        n_missing, pr->n_cases - n_missing, pr->n_scenarios, pr->n_scenarios == 1 ? "" : "s",
	        pr->n_cases);
	if (measured && *cache_file) {
		/* The cache gains the new rows: measured first, so they win over
		 * old ones, then what the file holds now (another profile may have
		 * added rows while this one measured), then what it held before. */
		struct cost_table *merged = cost_table_new(), *now = NULL;
		FILE *quiet = fopen("/dev/null", "w");
		if (quiet && access(*cache_file, F_OK) == 0) {
			struct diag qd;
			diag_init(&qd, *cache_file, quiet);
			now = cost_table_read(*cache_file, &qd);
		}
		if (quiet)
			fclose(quiet);
		fill_header(pr, merged);
		const struct cost_table *parts[] = {measured, now, cache};
		for (int k = 0; k < 3; k++)
			for (size_t i = 0; i < cost_table_n_rows(parts[k]); i++)
				cost_table_add(merged, cost_table_row(parts[k], i));
		cost_table_free(now);
		struct diag wd;
		diag_init(&wd, *cache_file, d->out);
		if (cost_table_write(merged, *cache_file, &wd))
			diag_warning(d, NULL, "the cache was not updated");
		cost_table_free(merged);
	}
out:
	free(missing);
	cost_table_free(measured);
	cost_table_free(cache);
	return table;
}

struct cost_table *profile_costs(const struct options *opt, const struct profile_options *po,
                                 struct diag *d)
{
	struct profile pr;
	struct cost_table *t = NULL;
	char *cache_file = NULL;
	if (profile_init(&pr, opt, po, d) == 0)
		t = profile_run(&pr, po, &cache_file);
	if (t) {
		char label[4200];
		snprintf(label, sizeof label, "--profile%s%s", cache_file ? ", cached in " : "",
		         cache_file ? cache_file : "");
		cost_table_set_path(t, label);
	}
	free(cache_file);
	profile_free(&pr);
	return t;
}

/* --emit-harness DIR: harness.c and a Makefile, every case, no cache. */
static int emit_harness_dir(struct profile *pr, const char *dir)
{
	struct diag *d = pr->d;
	if (pr->n_cases == 0) {
		diag_error(d, NULL, "nothing to profile: the model has no convolution and no 3-D or "
		                    "4-D activation");
		return -1;
	}
	if (mkdir(dir, 0777) != 0 && errno != EEXIST) {
		diag_error(d, NULL, "cannot create %s: %s", dir, strerror(errno));
		return -1;
	}
	int *all = xmalloc((pr->n_cases ? pr->n_cases : 1) * sizeof *all);
	for (int i = 0; i < pr->n_cases; i++)
		all[i] = i;
	char src[4200], mk[4200], tsrc[4300], tmk[4300];
	snprintf(src, sizeof src, "%s/harness.c", dir);
	snprintf(mk, sizeof mk, "%s/Makefile", dir);
	snprintf(tsrc, sizeof tsrc, "%s.tmp", src);
	snprintf(tmk, sizeof tmk, "%s.tmp", mk);
	int openblas = 0, rc = -1;
	FILE *f = fopen(tsrc, "w"), *m = fopen(tmk, "w");
	if (!f || !m) {
		diag_error(d, NULL, "cannot create files in %s: %s", dir, strerror(errno));
		goto out;
	}
	if (write_harness(pr, f, all, pr->n_cases, &openblas))
		goto out;
	fprintf(m,
	        "# Builds dnncc's profiling harness (generated by dnncc %s). Cross-compile with\n"
	        "# make CC=aarch64-linux-gnu-gcc; on the target: ./harness%s > costs.tsv, then\n"
	        "# dnncc MODEL -o NAME.c --costs costs.tsv\n"
	        "CC = cc\n"
	        "CFLAGS = %s\n"
	        "harness: harness.c\n"
	        "\t$(CC) $(CFLAGS) -DHARNESS_CFLAGS='\"$(CFLAGS)\"' -o $@ harness.c -lm%s%s\n"
	        "clean:\n"
	        "\trm -f harness\n",
	        PACKAGE_VERSION, pr->evict_weights ? " --evict-weights" : "", HARNESS_CFLAGS,
	        openblas ? " -lopenblas" : "", pthread_flag(pr->opt));
	int bad = ferror(f) || ferror(m);
	bad |= fclose(f) != 0;
	bad |= fclose(m) != 0;
	f = m = NULL;
	if (bad || rename(tsrc, src) != 0 || rename(tmk, mk) != 0) {
		diag_error(d, NULL, "cannot write the harness into %s: %s", dir, strerror(errno));
		unlink(src);
		goto out;
	}
	fprintf(stderr, "dnncc profile: wrote %s and %s (%d cases on %d convolution layer%s)\n",
	        src, mk, pr->n_cases, pr->n_scenarios, pr->n_scenarios == 1 ? "" : "s");
	rc = 0;
out:
	if (f)
		fclose(f);
	if (m)
		fclose(m);
	unlink(tsrc);
	unlink(tmk);
	free(all);
	return rc;
}

int profile_command(const struct options *opt, const struct profile_options *po)
{
	struct diag d;
	diag_init(&d, opt->model, stderr);
	struct profile pr;
	int rc = 1;
	if (opt->output) {
		/* before minutes of measuring: can the table be written there? */
		char *dir = xstrdup(opt->output);
		char *slash = strrchr(dir, '/');
		if (slash)
			slash[slash == dir] = '\0';
		int ok = access(slash ? dir : ".", W_OK) == 0;
		if (!ok)
			fprintf(stderr, "%s: cannot write there: %s\n", opt->output, strerror(errno));
		free(dir);
		if (!ok)
			return 1;
	}
	if (profile_init(&pr, opt, po, &d) == 0) {
		if (po->emit_harness) {
			rc = emit_harness_dir(&pr, po->emit_harness) != 0;
		} else {
			char *cache_file = NULL;
			struct cost_table *t = profile_run(&pr, po, &cache_file);
			struct diag wd;
			diag_init(&wd, opt->output, stderr);
			if (t && cost_table_write(t, opt->output, &wd) == 0) {
				fprintf(stderr, "dnncc profile: wrote %s%s%s\n", opt->output,
				        cache_file ? "; cache " : "", cache_file ? cache_file : "");
				rc = 0;
			}
			cost_table_free(t);
			free(cache_file);
		}
	}
	profile_free(&pr);
	return rc || d.errors ? 1 : 0;
}

void profile_check_target(const struct cost_table *t, const char *path, const struct options *opt,
                          struct diag *d)
{
	const char *isa = cost_table_header(t, COST_HDR_ISA);
	if (isa && !strstr(isa, isa_names[opt->isa]))
		diag_warning(d, NULL,
		             "%s was measured for %s, but the target is %s (%s): its costs may "
		             "rank primitives wrongly",
		             path, isa, opt->target, isa_names[opt->isa]);
	/* One thread's costs under --threads N are the documented default (the
	 * selection then ranks rows as if they ran alone); costs measured on
	 * another pool size are a mix-up. */
	int tt = cost_table_threads(t), threads = profile_threads(opt);
	if (tt > 1 && tt != threads)
		diag_warning(d, NULL,
		             "%s was measured on %d threads, but the code runs on %d: its costs may "
		             "rank primitives wrongly",
		             path, tt, threads);
}
