/* main.c - the dnncc command line and the pipeline. Reading compile() is
 * reading the compiler: a frontend, then the passes in order, each followed
 * by the IR verifier and, with --dump-ir, a dump; then the emitter. */
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "backend/backend.h"
#include "driver/driver.h"
#include "driver/train.h"
#include "frontend/frontend.h"
#include "ir/ir.h"
#include "passes/passes.h"
#include "runtime/primitives.h"
#include "runtime/sgemm.h"

#define DNNCC_USAGE                                                                       \
	"usage: dnncc MODEL -o OUT/NAME.c [options]\n"                                    \
	"       dnncc profile MODEL -o costs.tsv | --emit-harness DIR [options]\n"        \
	"  MODEL is an ONNX file (.onnx) or a Caffe deploy.prototxt\n"                 \
	"options:\n"                                                                      \
	"  -o FILE                output C file; NAME.h (and NAME.weights.bin) go beside it\n" \
	"  --name PREFIX          C symbol prefix (default: NAME from -o)\n"             \
	"  --weights MODE         auto (default) | embed | c-array | file\n"             \
	"  --weights X.caffemodel Caffe weights for a .prototxt model\n"               \
	"  --random-weights SEED  Caffe without weights: deterministic random weights\n" \
	"  --batch N              Caffe: override the declared batch size\n"          \
	"  --shape NAME=D0,D1,..  pin the shape of a graph input (symbolic dims)\n"     \
	"  --bind NAME=V0,V1,..|NAME=FILE.pb  freeze a graph input into a constant\n"  \
	"  --strategy S           pbqp (default) | greedy | canonical | sum2d | reference\n" \
	"                         | family:sum2d|direct|im2|kn2|winograd|fft|depthwise\n" \
	"  --force-primitive NODE=PRIMITIVE   use this primitive for this Conv node\n"    \
	"  --target T             host (default) | c99 | x86-64-v3 | x86-64-v4 | armv8\n" \
	"                         | cortex-m (no blocked layouts: padding costs RAM)\n" \
	"  --blas B               own (default: dnncc's SGEMM) | openblas (cblas_sgemm;\n" \
	"                         link the generated code with -lopenblas)\n"           \
	"  --list-primitives      print the convolution primitives and exit\n"         \
	"  --list-transforms      print the layout transforms (DT graph edges) and exit\n" \
	"  --costs FILE           use a measured cost table (dnncc profile writes one)\n" \
	"  --profile              measure costs on this machine first (cached), then compile\n" \
	"  --threads N            generated code runs on N threads (default 1; same outputs)\n" \
	"  --instrument           generated code times each layer; NAME_profile_print()\n" \
	"  --report               print per-layer choices, their costs against every\n" \
	"                         strategy's, and the memory plan\n"                     \
	"  --verify-ilp           check the PBQP optimum against GLPK's ILP optimum\n"   \
	"  --dump-pbqp FILE       write the selection's PBQP instance to FILE\n"        \
	"  --dump-ir              print the IR after each pass\n"                       \
	"  --max-weights MiB      refuse models whose weights pass this (default 1024)\n" \
	"  --max-arena MiB        refuse activations (one tensor, or the arena with\n"   \
	"                         workspaces) that pass this (default 1024; 256K: KiB);\n" \
	"                         selection drops blocked layouts, then the canonical\n" \
	"                         strategy, to fit\n"                                     \
	"  --train ...            emit training code (dnncc --train --help)\n"          \
	"dnncc profile takes the options that read the model, --target, --blas and\n" \
	"--threads (the cases run on that many threads), and:\n" \
	"  -o FILE                the cost table to write (TSV, see README)\n"        \
	"  --emit-harness DIR     write the harness (harness.c, Makefile) instead of running it\n" \
	"  --no-cache             measure everything again, refresh the cache (also --profile)\n" \
	"  --runs N               at most N timed runs per measurement, default 15 (also\n" \
	"                         --profile)\n"                                         \
	"  --llc MiB              the target's last-level cache (512K: KiB): a model\n" \
	"                         whose weights and activations pass it is timed with\n" \
	"                         its weights from memory (default: this machine's;\n" \
	"                         16 with --emit-harness; also --profile)\n"          \
	"  --help, --version\n"

/* --max-weights and --max-arena at most 1 TiB: sizes stay far from
 * overflowing any product of them. */
#define DNNCC_MAX_MIB (1 << 20)

/* A size option's value (--max-weights, --max-arena, --llc): MiB from 1 to
 * DNNCC_MAX_MIB, or KiB with a K after it ("256K": Cortex-M budgets, small
 * boards' caches), into *bytes; non-zero after saying what was expected. */
static int parse_mib(const char *opt, const char *val, const char *what, uint64_t *bytes)
{
	char *end;
	errno = 0;
	unsigned long long v = strtoull(val, &end, 10);
	int kib = *end == 'K' && end != val;
	if (end == val || end[kib] || errno || v == 0 || v > ((unsigned long long)DNNCC_MAX_MIB << 10)
	    || (!kib && v > DNNCC_MAX_MIB)) {
		fprintf(stderr, "dnncc: %s %s: expected %s in MiB from 1 to %d (or in KiB with a K "
		        "after it)\n", opt, val, what, DNNCC_MAX_MIB);
		return 1;
	}
	*bytes = (uint64_t)v << (kib ? 10 : 20);
	return 0;
}
/* Most threads --threads accepts (the pool's array in generated code). */
#define DNNCC_MAX_THREADS 256

struct pass_entry {
	const char *name;
	int (*run)(struct graph *, const struct options *, struct diag *);
	int shapes_known; /* verifier: every tensor must have a shape afterwards */
};

static const struct pass_entry pipeline[] = {
	{"infer_shapes", pass_infer_shapes, 1},
	{"canonicalize", pass_canonicalize, 1},
	{"select", pass_select, 1},
	{"plan_memory", pass_plan_memory, 1},
};

int driver_ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), m = strlen(suffix);
	return n >= m && strcmp(s + n - m, suffix) == 0;
}

/* NAME from a path: the base name without ext, every character outside
 * [A-Za-z0-9_] replaced by '_', "m_" in front of a leading digit (DESIGN §2). */
char *driver_c_identifier(const char *path, const char *ext)
{
	const char *base = strrchr(path, '/');
	base = base ? base + 1 : path;
	size_t n = strlen(base), m = strlen(ext);
	if (n > m && strcmp(base + n - m, ext) == 0)
		n -= m;
	char *id = xmalloc(n + 3);
	size_t k = 0;
	if (n == 0 || isdigit((unsigned char)base[0])) {
		id[k++] = 'm';
		id[k++] = '_';
	}
	for (size_t i = 0; i < n; i++)
		id[k++] = isalnum((unsigned char)base[i]) || base[i] == '_' ? base[i] : '_';
	id[k] = '\0';
	return id;
}

char *driver_command_line(int argc, char **argv)
{
	size_t len = 1;
	for (int i = 0; i < argc; i++)
		len += strlen(argv[i]) + 1;
	char *cmd = xcalloc(1, len);
	for (int i = 0; i < argc; i++) {
		if (i)
			strcat(cmd, " ");
		strcat(cmd, i ? argv[i] : "dnncc");
	}
	return cmd;
}

static int parse_shape(const char *arg, struct shape_override *s)
{
	const char *eq = strrchr(arg, '=');
	if (!eq || eq == arg)
		return -1;
	s->input = strndup(arg, eq - arg);
	s->rank = 0;
	const char *p = eq + 1;
	while (*p) {
		char *end;
		errno = 0;
		long long v = strtoll(p, &end, 10);
		if (end == p || errno || v <= 0 || s->rank == IR_MAX_RANK)
			return -1;
		s->dims[s->rank++] = v;
		if (*end == ',')
			end++;
		else if (*end)
			return -1;
		p = end;
	}
	return s->rank > 0 ? 0 : -1;
}

static void report(const struct graph *g, const struct options *opt)
{
	size_t weights = 0, unshared = 0;
	for (int i = 0; i < g->n_tensors; i++) {
		const struct tensor *t = g->tensors[i];
		if (t->data)
			weights += ir_nbytes(t);
		else if (!t->is_input && !t->is_output && !t->alias)
			unshared += ir_nbytes(t);
	}
	printf("dnncc report for %s (%d layers)\n", opt->model, g->n_nodes);
	printf("%-32s %-18s %-24s %-12s %s\n", "node", "op", "output", "epilogue", "primitive");
	for (int i = 0; i < g->n_nodes; i++) {
		const struct node *n = g->nodes[i];
		char shape[96] = "";
		const struct tensor *t = n->outputs[0];
		size_t k = 0;
		for (int d = 0; t && d < t->rank && k < sizeof shape - 24; d++)
			k += snprintf(shape + k, sizeof shape - k, "%s%" PRId64, d ? "x" : "",
			              t->dims[d]);
		char epi[32]; /* a fused residual add (fuse.c) comes before the activation */
		snprintf(epi, sizeof epi, "%s", ir_act_names[n->act]);
		if (fuse_has_residual(n))
			snprintf(epi, sizeof epi, "add%s%s", n->act ? "+" : "",
			         n->act ? ir_act_names[n->act] : "");
		printf("%-32s %-18s %-24s %-12s %s\n", n->name, ir_op_names[n->op], shape, epi,
		       n->primitive ? n->primitive : "reference");
	}
	printf("memory plan: activation arena %zu bytes (peak), %zu bytes without sharing, "
	       "weights %zu bytes\n",
	       g->arena_size, unshared, weights);
	long measured, fallback;
	costs_usage(opt, &measured, &fallback);
	printf("costs: %s", costs_source(opt));
	if (opt->costs)
		printf("; %ld distinct costs from the table, %ld from the built-in model (no row)",
		       measured, fallback);
	printf("\n");
}

static void list_primitives(void)
{
	printf("%-40s %-10s %-7s %-7s %s\n", "primitive", "family", "in", "out", "applies to");
	for (int i = 0; i < rt_n_prims; i++) {
		const struct rt_prim *r = &rt_prims[i];
		printf("%-40s %-10s %-7s %-7s %s\n", r->name, rt_family_names[r->family],
		       rt_layout_names[r->in], rt_layout_names[r->out], r->constraints);
	}
	printf("%d primitives\n", rt_n_prims);
}

static void list_transforms(void)
{
	printf("%-28s %-7s %-7s %s\n", "transform", "from", "to", "function");
	for (int i = 0; i < rt_n_transforms; i++) {
		const struct rt_transform *t = &rt_transforms[i];
		printf("%-28s %-7s %-7s %s\n", t->name, rt_layout_names[t->from], rt_layout_names[t->to],
		       t->run_name);
	}
	printf("%d transforms (edges of the DT graph; longer conversions are chains of them)\n",
	       rt_n_transforms);
}

/* --target: the GEMM micro-kernel (and so the SIMD) generated code uses. */
static int target_isa(const char *t)
{
	if (strcmp(t, "host") == 0)
		return rt_sgemm_isa_host();
	if (strcmp(t, "c99") == 0 || strcmp(t, "cortex-m") == 0)
		return RT_SGEMM_ISA_C;
	if (strcmp(t, "x86-64-v3") == 0)
		return RT_SGEMM_ISA_AVX2;
	if (strcmp(t, "x86-64-v4") == 0)
		return RT_SGEMM_ISA_AVX512;
	if (strcmp(t, "armv8") == 0)
		return RT_SGEMM_ISA_NEON;
	return -1;
}

/* The model read and run through the pipeline, or NULL after reporting. */
static struct graph *build(const struct options *opt, struct diag *d);

/* Builds with *o but silently (no report, no IR dump, messages to quiet);
 * returns the arena size, or 0 when the build failed. */
static size_t arena_of(const struct options *o, FILE *quiet)
{
	struct options q = *o;
	struct diag d;
	q.report = 0;
	q.dump_ir = 0;
	q.dump_pbqp = NULL;
	diag_init(&d, o->model, quiet);
	struct graph *g = build(&q, &d);
	size_t size = g ? g->arena_size : 0;
	ir_graph_free(g);
	return size;
}

/* The arena counts: on Cortex-M, whose selection leaves out the blocked
 * layouts, a selection with them is tried too and kept when its arena is
 * smaller (padding can cost less than the workspaces the others need). With
 * --max-arena, a selection that plans a larger arena tries again without the
 * blocked layouts, then with the canonical strategy (not always smaller: it
 * may need im2col workspaces), and keeps the first that fits; plan_memory
 * reports when none does. The first build prints its messages; the trials
 * print nothing, and the one kept is built again with --report's output. */
static int compile(const struct options *opt)
{
	struct diag d;
	struct options o = *opt, t;
	const char *how = NULL; /* why o differs from *opt, for --report */
	if (o.max_arena < PASS_MAX_ARENA_DEFAULT)
		o.max_arena = 0; /* the default limit: measure first */
	diag_init(&d, opt->model, stderr);
	struct graph *g = build(&o, &d);
	if (!g)
		return 1;
	size_t arena = g->arena_size, first = arena, second = 0, a;
	FILE *quiet = tmpfile();
	if (!quiet) {
		ir_graph_free(g);
		fprintf(stderr, "dnncc: cannot make a temporary file: %s\n", strerror(errno));
		return 1;
	}
	t = o;
	t.no_blocked = 0;
	if (opt->no_blocked && (a = arena_of(&t, quiet)) && a < arena) {
		o = t, arena = a;
		how = "with the blocked layouts (a smaller arena)";
	}
	if (opt->max_arena && arena > opt->max_arena) {
		t = o;
		t.no_blocked = 1;
		if (!o.no_blocked && (a = arena_of(&t, quiet)) && a <= opt->max_arena) {
			o = t;
			how = "without the blocked layouts, to meet --max-arena";
		} else {
			second = o.no_blocked ? 0 : a;
			o = *opt;
			o.no_blocked = 1;
			o.strategy = "canonical";
			how = "with the canonical strategy, to meet --max-arena";
		}
	}
	fclose(quiet);
	if (how) { /* the one kept, with its report */
		ir_graph_free(g);
		diag_init(&d, opt->model, stderr);
		o.dump_ir = 0;
		if (opt->report)
			printf("memory: selected %s\n", how);
		if (!(g = build(&o, &d))) {
			if (opt->max_arena)
				fprintf(stderr, "%s: --max-arena %" PRIu64 " bytes: not met by the "
				        "canonical strategy (above), nor by %s (%zu bytes)%s%.0zu%s\n",
				        opt->model, opt->max_arena, opt->strategy, first,
				        second ? ", nor without the blocked layouts (" : "", second,
				        second ? " bytes)" : "");
			return 1;
		}
	}
	diag_init(&d, opt->model, stderr);
	if (opt->report)
		report(g, &o);
	int rc = emit_c(g, &o, &d) || d.errors;
	ir_graph_free(g);
	return rc;
}

static struct graph *build(const struct options *opt, struct diag *d)
{
	struct graph *g = NULL;
	if (driver_ends_with(opt->model, ".prototxt"))
		g = caffe_read(opt->model, opt, d);
	else
		g = onnx_read(opt->model, opt, d);
	if (!g || d->errors) {
		ir_graph_free(g);
		return NULL;
	}
	if (opt->dump_ir)
		ir_dump(g, stdout, "after frontend");
	if (ir_verify(g, "frontend", 0, d)) {
		ir_graph_free(g);
		return NULL;
	}
	for (size_t i = 0; i < sizeof pipeline / sizeof pipeline[0]; i++) {
		const struct pass_entry *p = &pipeline[i];
		if (p->run(g, opt, d) || d->errors ||
		    ir_verify(g, p->name, p->shapes_known, d)) {
			ir_graph_free(g);
			return NULL;
		}
		if (opt->dump_ir)
			ir_dump(g, stdout, p->name);
	}
	return g;
}

int main(int argc, char **argv)
{
	struct options opt = {0};
	opt.weights = WEIGHTS_AUTO;
	const char *name = NULL;
	static struct shape_override shapes[64];
	static struct bind_value binds[64];
	static struct force_primitive forces[256];
	for (int i = 1; i < argc; i++)
		if (strcmp(argv[i], "--train") == 0)
			return train_main(argc, argv);
	/* dnncc profile (argv[1]) takes the same options; --costs, --profile. */
	struct profile_options prof = {0};
	int profiling = argc > 1 && strcmp(argv[1], "profile") == 0, profile_first = 0;
	const char *costs_path = NULL;

	for (int i = 1 + profiling; i < argc; i++) {
		const char *a = argv[i];
		const char *val = i + 1 < argc ? argv[i + 1] : NULL;
		if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
			fputs(DNNCC_USAGE, stdout);
			return 0;
		} else if (strcmp(a, "--version") == 0) {
			printf("dnncc %s\n", PACKAGE_VERSION);
			return 0;
		} else if (strcmp(a, "--report") == 0) {
			opt.report = 1;
		} else if (strcmp(a, "--dump-ir") == 0) {
			opt.dump_ir = 1;
		} else if (strcmp(a, "--instrument") == 0) {
			opt.instrument = 1;
		} else if (strcmp(a, "--verify-ilp") == 0) {
			opt.verify_ilp = 1;
		} else if (strcmp(a, "--list-primitives") == 0) {
			list_primitives();
			return 0;
		} else if (strcmp(a, "--list-transforms") == 0) {
			list_transforms();
			return 0;
		} else if (strcmp(a, "--profile") == 0) {
			profile_first = 1;
		} else if (strcmp(a, "--no-cache") == 0) {
			prof.no_cache = 1;
		} else if (a[0] == '-' && a[1] && !val) {
			fprintf(stderr, "dnncc: option %s needs a value\n%s", a, DNNCC_USAGE);
			return 2;
		} else if (strcmp(a, "-o") == 0) {
			opt.output = argv[++i];
		} else if (strcmp(a, "--name") == 0) {
			name = argv[++i];
		} else if (strcmp(a, "--weights") == 0) {
			i++;
			if (strcmp(val, "auto") == 0)
				opt.weights = WEIGHTS_AUTO;
			else if (strcmp(val, "embed") == 0)
				opt.weights = WEIGHTS_EMBED;
			else if (strcmp(val, "c-array") == 0)
				opt.weights = WEIGHTS_CARRAY;
			else if (strcmp(val, "file") == 0)
				opt.weights = WEIGHTS_FILE;
			else if (driver_ends_with(val, ".caffemodel"))
				opt.caffe_weights = val;
			else {
				fprintf(stderr,
				        "dnncc: --weights %s: expected auto, embed, c-array, file or a "
				        ".caffemodel\n",
				        val);
				return 2;
			}
		} else if (strcmp(a, "--random-weights") == 0 || strcmp(a, "--batch") == 0) {
			char *end;
			errno = 0;
			unsigned long v = strtoul(argv[++i], &end, 10);
			if (end == val || *end || errno || (a[2] == 'b' && (v == 0 || v > 65536))) {
				fprintf(stderr, "dnncc: %s %s: expected a %s\n", a, val,
				        a[2] == 'b' ? "batch size from 1 to 65536" : "non-negative seed");
				return 2;
			}
			if (a[2] == 'b') {
				opt.batch = (int)v;
			} else {
				opt.random_weights = 1;
				opt.random_seed = v;
			}
		} else if (strcmp(a, "--shape") == 0) {
			i++;
			if (opt.n_shapes == (int)(sizeof shapes / sizeof shapes[0]) ||
			    parse_shape(val, &shapes[opt.n_shapes]) != 0) {
				fprintf(stderr,
				        "dnncc: --shape %s: expected NAME=D0,D1,... with positive dims\n",
				        val);
				return 2;
			}
			opt.n_shapes++;
		} else if (strcmp(a, "--bind") == 0) {
			i++;
			const char *eq = strchr(val, '=');
			if (opt.n_binds == (int)(sizeof binds / sizeof binds[0]) || !eq || eq == val ||
			    !eq[1]) {
				fprintf(stderr, "dnncc: --bind %s: expected NAME=V0,V1,... or NAME=FILE.pb\n",
				        val);
				return 2;
			}
			binds[opt.n_binds].input = strndup(val, (size_t)(eq - val));
			binds[opt.n_binds++].value = eq + 1;
		} else if (strcmp(a, "--strategy") == 0) {
			opt.strategy = argv[++i];
		} else if (strcmp(a, "--dump-pbqp") == 0) {
			opt.dump_pbqp = argv[++i];
		} else if (strcmp(a, "--target") == 0) {
			opt.target = argv[++i];
			if (target_isa(opt.target) < 0) {
				fprintf(stderr, "dnncc: --target %s: expected host, c99, x86-64-v3, "
				        "x86-64-v4, armv8 or cortex-m\n", opt.target);
				return 2;
			}
		} else if (strcmp(a, "--blas") == 0) {
			i++;
			if (strcmp(val, "openblas") == 0)
				opt.blas_openblas = 1;
			else if (strcmp(val, "own") != 0) {
				fprintf(stderr, "dnncc: --blas %s: expected own (default) or openblas\n", val);
				return 2;
			}
		} else if (strcmp(a, "--force-primitive") == 0) {
			const char *eq = strchr(argv[++i], '=');
			if (!eq || eq == val || !eq[1] ||
			    opt.n_force == (int)(sizeof forces / sizeof forces[0])) {
				fprintf(stderr, "dnncc: --force-primitive %s: expected NODE=PRIMITIVE\n",
				        val);
				return 2;
			}
			forces[opt.n_force].node = strndup(val, eq - val);
			forces[opt.n_force].primitive = eq + 1;
			opt.n_force++;
		} else if (strcmp(a, "--max-weights") == 0 || strcmp(a, "--max-arena") == 0) {
			i++;
			if (parse_mib(a, val, "a size", a[6] == 'w' ? &opt.max_weights : &opt.max_arena))
				return 2;
				} else if (strcmp(a, "--costs") == 0) {
			costs_path = argv[++i];
		} else if (strcmp(a, "--emit-harness") == 0) {
			prof.emit_harness = argv[++i];
		} else if (strcmp(a, "--llc") == 0) {
			i++;
			if (parse_mib(a, val, "a cache size", &prof.llc_bytes))
				return 2;
		} else if (strcmp(a, "--threads") == 0 || strcmp(a, "--runs") == 0) {
			char *end;
			errno = 0;
			long v = strtol(argv[++i], &end, 10);
			if (end == val || *end || errno || v < 1 || v > 100000) {
				fprintf(stderr, "dnncc: %s %s: expected a positive count\n", a, val);
				return 2;
			}
			if (a[2] == 'r') {
				prof.runs = (int)v;
			} else if (v > DNNCC_MAX_THREADS) {
				fprintf(stderr, "dnncc: --threads %s: at most %d threads\n", val,
				        DNNCC_MAX_THREADS);
				return 2;
			} else {
				opt.threads = (int)v;
			}
		} else if (a[0] == '-' && a[1]) {
			fprintf(stderr, "dnncc: unknown option %s\n%s", a, DNNCC_USAGE);
			return 2;
		} else if (!opt.model) {
			opt.model = a;
		} else {
			fprintf(stderr, "dnncc: more than one model given (%s and %s)\n", opt.model,
			        a);
			return 2;
		}
	}
	opt.shapes = shapes;
	opt.binds = binds;
	opt.force = forces;
	if (!opt.target)
		opt.target = "host";
	if (!opt.strategy)
		opt.strategy = "pbqp";
	opt.isa = target_isa(opt.target);
	/* Cortex-M has no float vectors: 8- and 16-channel blocks (SIMD register
	 * widths) would only pay their padding in RAM. */
	opt.no_blocked = strcmp(opt.target, "cortex-m") == 0;
	if (opt.threads > 1 && strcmp(opt.target, "cortex-m") == 0) {
		fprintf(stderr, "dnncc: --threads %d: --target cortex-m code is single-threaded "
		                "(firmware has no threads); use --threads 1\n",
		        opt.threads);
		return 2;
	}
	if (opt.instrument && (profiling || strcmp(opt.target, "cortex-m") == 0)) {
		fprintf(stderr, profiling ? "dnncc profile: --instrument is a compile option\n"
		                          : "dnncc: --instrument needs a POSIX clock (clock_gettime), "
		                            "which --target cortex-m does not have\n");
		return 2;
	}
	if (profiling) {
		if (!opt.model || !opt.output == !prof.emit_harness) {
			fprintf(stderr, "dnncc profile: give a model and either -o FILE or --emit-harness "
			                "DIR\n%s",
			        DNNCC_USAGE);
			return 2;
		}
		if (costs_path || profile_first) {
			fprintf(stderr, "dnncc profile: %s is a compile option\n",
			        costs_path ? "--costs" : "--profile");
			return 2;
		}
		return profile_command(&opt, &prof);
	}
	if (prof.emit_harness) {
		fprintf(stderr, "dnncc: --emit-harness is an option of dnncc profile\n");
		return 2;
	}
	if (!profile_first && (prof.runs || prof.no_cache || prof.llc_bytes)) {
		fprintf(stderr, "dnncc: %s measures costs: use it with --profile or dnncc profile\n",
		        prof.runs ? "--runs" : prof.no_cache ? "--no-cache" : "--llc");
		return 2;
	}
	if (costs_path && profile_first) {
		fprintf(stderr, "dnncc: --costs and --profile exclude each other\n");
		return 2;
	}
	if (!opt.model || !opt.output) {
		fputs(DNNCC_USAGE, stderr);
		return 2;
	}
	if (!driver_ends_with(opt.output, ".c")) {
		fprintf(stderr, "dnncc: -o %s: the output must be a .c file\n", opt.output);
		return 2;
	}
	char *id = driver_c_identifier(name ? name : opt.output, ".c");
	opt.name = id;

	char *cmd = driver_command_line(argc, argv);
	opt.command_line = cmd;

	struct cost_table *costs = NULL;
	if (costs_path || profile_first) {
		struct diag d;
		diag_init(&d, opt.model, stderr);
		costs = costs_path ? cost_table_read(costs_path, &d) : profile_costs(&opt, &prof, &d);
		if (!costs) {
			free(cmd);
			free(id);
			return 1;
		}
		profile_check_target(costs, costs_path ? costs_path : "the profile", &opt, &d);
		opt.costs = costs;
	}
	int rc = compile(&opt);
	cost_table_free(costs);
	free(cmd);
	free(id);
	return rc;
}
