/* test_emit.c - the C emitter (backend/emit*.c), end to end: small canonical
 * graphs are built here with the ir.h API and planned by hand (views alias
 * their input, every other activation gets its own arena slot), emitted into
 * a fresh temporary directory, compiled with `cc -std=c99 -Wall -Wextra
 * -pedantic -Werror` together with a generated driver that reads inputs from
 * a file, runs NAME_run and writes the outputs, and the outputs are compared
 * with the runtime library (libdnncc_rt.a) called directly on the same data
 * with parameters written out by hand here, or with plain loops for the ops
 * that only index (broadcasting, MatMul, Concat, Transpose, Pad), so that the
 * emitter's own parameter derivation is checked against an independent one.
 *
 * Also: every weights mode, views, constant and pass-through graph outputs,
 * two models in one program, the header in C and C++, the NAME rule, clang
 * and arm-none-eabi-gcc (skipped when absent), determinism, and failures that
 * must leave no files behind. Set TEST_EMIT_KEEP=1 to keep the directories. */
#include "config.h"

#include <criterion/criterion.h>
#include <dirent.h>
#include <float.h>
#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "backend/backend.h"
#include "passes/passes.h"
#include "runtime/dnncc_rt.h"

#define CFLAGS "-std=c99 -Wall -Wextra -pedantic -Werror"
#define MAX_IO 16

/* ---- building graphs -------------------------------------------------------- */

/* SHAPE(1, 3, 8, 8) expands to the rank and the dims of a shape. */
#define SHAPE(...) \
	(int)(sizeof((int64_t[]){__VA_ARGS__}) / sizeof(int64_t)), (int64_t[]){__VA_ARGS__}
#define SCALAR 0, NULL
#define INS(...) \
	(int)(sizeof((struct tensor *[]){__VA_ARGS__}) / sizeof(struct tensor *)), \
		(struct tensor *[]){__VA_ARGS__}

/* A deterministic value in [-1, 1) for element i of stream seed. */
static float val(unsigned seed, size_t i)
{
	uint32_t x = (uint32_t)(seed * 2654435761u) ^ (uint32_t)(i * 2246822519u + 0x9E3779B9u);
	x ^= x >> 15;
	x *= 2246822519u;
	x ^= x >> 13;
	x *= 3266489917u;
	x ^= x >> 16;
	return (float)(x >> 8) / (float)(1 << 23) - 1.0f;
}

static void push(struct graph *g, struct tensor ***arr, int *n, struct tensor *t)
{
	struct tensor **a = arena_alloc(&g->arena, (*n + 1) * sizeof *a);
	if (*n)
		memcpy(a, *arr, *n * sizeof *a);
	a[(*n)++] = t;
	*arr = a;
}

static struct tensor *act(struct graph *g, const char *name, int rank, const int64_t *dims)
{
	struct tensor *t = ir_new_tensor(g, name, DTYPE_F32);
	ir_set_shape(t, rank, dims);
	return t;
}

static struct tensor *input(struct graph *g, const char *name, int rank, const int64_t *dims)
{
	struct tensor *t = act(g, name, rank, dims);
	t->is_input = 1;
	push(g, &g->inputs, &g->n_inputs, t);
	return t;
}

static void output(struct graph *g, struct tensor *t)
{
	t->is_output = 1;
	push(g, &g->outputs, &g->n_outputs, t);
}

/* A constant filled from val(seed, i). */
static struct tensor *weight(struct graph *g, const char *name, unsigned seed, int rank,
                             const int64_t *dims)
{
	int64_t n = 1;
	for (int i = 0; i < rank; i++)
		n *= dims[i];
	float *data = arena_alloc(&g->arena, (size_t)n * sizeof *data + 1);
	for (int64_t i = 0; i < n; i++)
		data[i] = val(seed, (size_t)i);
	return ir_new_constant(g, name, DTYPE_F32, rank, dims, data);
}

static float *fdata(struct tensor *t)
{
	return t->data;
}

static struct node *node(struct graph *g, enum op op, const char *name, int n_in,
                         struct tensor *const *ins, struct tensor *out)
{
	return ir_add_node(g, op, name, n_in, ins, 1, &out);
}

static void a_int(struct graph *g, struct node *n, const char *name, int64_t v)
{
	ir_add_attr(g, n, name, ATTR_INT)->i = v;
}

static void a_float(struct graph *g, struct node *n, const char *name, double v)
{
	ir_add_attr(g, n, name, ATTR_FLOAT)->f = v;
}

static void a_ints(struct graph *g, struct node *n, const char *name, int cnt, const int64_t *v)
{
	struct attr *a = ir_add_attr(g, n, name, ATTR_INTS);
	a->n = cnt;
	a->ints = arena_memdup(&g->arena, v, (cnt ? cnt : 1) * sizeof *v);
}
#define A_INTS(g, n, name, ...) \
	a_ints(g, n, name, (int)(sizeof((int64_t[]){__VA_ARGS__}) / sizeof(int64_t)), \
	       (int64_t[]){__VA_ARGS__})

static int is_view(enum op op)
{
	return op == OP_FLATTEN || op == OP_RESHAPE || op == OP_SQUEEZE || op == OP_UNSQUEEZE;
}

/* What pass_plan_memory guarantees, done simply: views alias their input, and
 * every other computed tensor that is not a graph output gets its own
 * 64-byte aligned slot of the arena. */
static void plan_by_hand(struct graph *g)
{
	size_t off = 0;
	for (int i = 0; i < g->n_nodes; i++) {
		struct node *n = g->nodes[i];
		struct tensor *y = n->outputs[0];
		if (is_view(n->op)) {
			y->alias = n->inputs[0];
			continue;
		}
		if (y->is_output)
			continue;
		y->offset = off;
		off += (ir_nbytes(y) + 63) / 64 * 64;
	}
	g->arena_size = off;
}

/* The compiler's own planner instead (it reuses arena space, so lifetimes
 * matter): what the hand plan set is cleared first. */
static void plan_for_real(struct graph *g)
{
	struct options opt = {0};
	struct diag d;
	diag_init(&d, g->source, stderr);
	for (int i = 0; i < g->n_tensors; i++) {
		g->tensors[i]->alias = NULL;
		g->tensors[i]->offset = 0;
	}
	g->arena_size = 0;
	cr_assert_eq(pass_plan_memory(g, &opt, &d), 0, "pass_plan_memory failed");
	cr_assert_eq(d.errors, 0);
}

static struct graph *new_graph(void)
{
	struct graph *g = ir_graph_new("models/test.onnx");
	g->producer = "test_emit 1.0";
	return g;
}

/* ---- shell, files ------------------------------------------------------------ */

static int sh(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static int sh(const char *fmt, ...)
{
	char cmd[8192];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(cmd, sizeof cmd, fmt, ap);
	va_end(ap);
	int st = system(cmd);
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128;
}

static int have(const char *tool)
{
	return sh("command -v %s >/dev/null 2>&1", tool) == 0;
}

static void make_dir(char *dir /* out: [64] */)
{
	strcpy(dir, "/tmp/test_emit.XXXXXX");
	cr_assert(mkdtemp(dir), "mkdtemp failed");
}

static void remove_dir(const char *dir)
{
	if (!getenv("TEST_EMIT_KEEP"))
		sh("rm -rf '%s'", dir);
}

static char *read_file(const char *path, size_t *size)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return NULL;
	fseek(f, 0, SEEK_END);
	long n = ftell(f);
	fseek(f, 0, SEEK_SET);
	char *buf = malloc((size_t)n + 1);
	size_t got = fread(buf, 1, (size_t)n, f);
	fclose(f);
	buf[got] = '\0';
	if (size)
		*size = got;
	return buf;
}

static int file_exists(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0;
}

static long file_size(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0 ? (long)st.st_size : -1;
}

static int count_entries(const char *dir)
{
	DIR *d = opendir(dir);
	if (!d)
		return -1;
	int n = 0;
	struct dirent *e;
	while ((e = readdir(d)))
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
			n++;
	closedir(d);
	return n;
}

static int count_substr(const char *s, const char *sub)
{
	int n = 0;
	for (const char *p = strstr(s, sub); p; p = strstr(p + 1, sub))
		n++;
	return n;
}

/* ---- emitting, compiling, running --------------------------------------------- */

static int emit_with(struct graph *g, const char *dir, const char *base, const char *name,
                     enum weights_mode mode, int instrument, struct diag *d)
{
	char out[256];
	snprintf(out, sizeof out, "%s/%s.c", dir, base);
	struct options opt = {0};
	opt.model = g->source;
	opt.output = out;
	opt.name = name;
	opt.command_line = "dnncc models/test.onnx -o out/net.c";
	opt.weights = mode;
	opt.instrument = instrument;
	diag_init(d, g->source, stderr);
	return emit_c(g, &opt, d);
}

static int emit(struct graph *g, const char *dir, const char *base, const char *name,
                enum weights_mode mode, struct diag *d)
{
	return emit_with(g, dir, base, name, mode, 0, d);
}

static void upper(char *dst, const char *src)
{
	for (; *src; src++)
		*dst++ = (*src >= 'a' && *src <= 'z') ? (char)(*src - 32) : *src;
	*dst = '\0';
}

/* A driver for one model: reads every input from argv[1], runs, writes every
 * output to argv[2]. In file mode it first checks that NAME_run refuses to
 * run without weights, also after NAME_init, and that wrong files are refused
 * (argv[4], argv[5]), then loads argv[3] and starts again with NAME_init
 * (which now runs its warm-up call). Otherwise NAME_run starts the model
 * itself, unless the driver is built with -DCALL_INIT (tests/harness.c calls
 * NAME_init). */
static void write_driver(const char *dir, const char *base, const char *name, int file_mode)
{
	char path[256], up[128];
	snprintf(path, sizeof path, "%s/driver.c", dir);
	upper(up, name);
	FILE *f = fopen(path, "w");
	cr_assert(f);
	fprintf(f,
	        "#include <stdio.h>\n#include <stdlib.h>\n#include \"%s.h\"\n"
	        "int main(int argc, char **argv)\n{\n"
	        "\tstatic float *in[%s_NUM_INPUTS + 1];\n"
	        "\tstatic float *out[%s_NUM_OUTPUTS + 1];\n"
	        "\tFILE *f;\n\tint i;\n\tsize_t k;\n"
	        "\tif (argc < 3 || !(f = fopen(argv[1], \"rb\")))\n\t\treturn 2;\n"
	        "\tfor (i = 0; i < %s_NUM_INPUTS; i++) {\n"
	        "\t\tin[i] = malloc(%s_input_sizes[i] * sizeof(float) + 1);\n"
	        "\t\tif (fread(in[i], sizeof(float), %s_input_sizes[i], f) != %s_input_sizes[i])\n"
	        "\t\t\treturn 3;\n\t}\n\tfclose(f);\n"
	        "\tfor (i = 0; i < %s_NUM_OUTPUTS; i++) {\n"
	        "\t\tout[i] = malloc(%s_output_sizes[i] * sizeof(float) + 1);\n"
	        "\t\tfor (k = 0; k < %s_output_sizes[i]; k++)\n\t\t\tout[i][k] = -12345.0f;\n\t}\n"
	        "\tif (%s_run(NULL, out) != -1 || %s_run((const float *const *)in, NULL) != -1)\n"
	        "\t\treturn 4;\n",
	        base, up, up, up, name, name, name, up, name, name, name, name);
	if (file_mode) /* NAME_init before the weights skips its warm-up call; after, it runs it */
		fprintf(f,
		        "\tif (%s_init() != 0 || %s_run((const float *const *)in, out) != -1)\n"
		        "\t\treturn 5;\n"
		        "\tif (%s_load_weights(\"no-such-file.bin\") != -1 || "
		        "%s_load_weights(argv[4]) != -1 || %s_load_weights(argv[5]) != -1)\n"
		        "\t\treturn 6;\n"
		        "\tif (%s_run((const float *const *)in, out) != -1)\n\t\treturn 7;\n"
		        "\tif (%s_load_weights(argv[3]) != 0)\n\t\treturn 8;\n"
		        "\t%s_free();\n\tif (%s_init() != 0)\n\t\treturn 13;\n",
		        name, name, name, name, name, name, name, name, name);
	else
		fprintf(f, "#ifdef CALL_INIT\n\tif (%s_init() != 0)\n\t\treturn 12;\n#endif\n", name);
	fprintf(f,
	        "\tif (%s_run((const float *const *)in, out) != 0)\n\t\treturn 9;\n"
	        "\tif (!(f = fopen(argv[2], \"wb\")))\n\t\treturn 10;\n"
	        "\tfor (i = 0; i < %s_NUM_OUTPUTS; i++)\n"
	        "\t\tif (fwrite(out[i], sizeof(float), %s_output_sizes[i], f) != "
	        "%s_output_sizes[i])\n\t\t\treturn 11;\n"
	        "\treturn fclose(f) != 0;\n}\n",
	        name, up, name, name);
	cr_assert_eq(fclose(f), 0);
}

/* Compiles DIR/BASE.c and DIR/driver.c from inside DIR (as DESIGN.md says),
 * failing the test with the compiler's messages on any warning. */
static void compile(const char *dir, const char *base, const char *extra_objs)
{
	int rc = sh("cd '%s' && cc " CFLAGS " -c '%s.c' -o '%s.o' >log.txt 2>&1 && cc " CFLAGS
	            " driver.c '%s.o' %s -lm -o prog >>log.txt 2>&1",
	            dir, base, base, base, extra_objs);
	if (rc) {
		char log[256];
		snprintf(log, sizeof log, "%s/log.txt", dir);
		char *text = read_file(log, NULL);
		cr_assert_fail("compiling %s/%s.c failed:\n%s", dir, base, text ? text : "");
	}
}

static void write_inputs(const char *dir, const struct graph *g, float *const *inputs)
{
	char path[256];
	snprintf(path, sizeof path, "%s/in.bin", dir);
	FILE *f = fopen(path, "wb");
	cr_assert(f);
	for (int i = 0; i < g->n_inputs; i++)
		fwrite(inputs[i], sizeof(float), (size_t)ir_numel(g->inputs[i]), f);
	cr_assert_eq(fclose(f), 0);
}

/* Reads the driver's outputs into outs[j] (malloc'd, graph output sizes). */
static void read_outputs(const char *dir, const struct graph *g, float **outs)
{
	char path[256];
	snprintf(path, sizeof path, "%s/out.bin", dir);
	FILE *f = fopen(path, "rb");
	cr_assert(f, "no outputs written");
	for (int j = 0; j < g->n_outputs; j++) {
		size_t n = (size_t)ir_numel(g->outputs[j]);
		outs[j] = malloc(n * sizeof(float) + 1);
		cr_assert_eq(fread(outs[j], sizeof(float), n, f), n, "output %d short", j);
	}
	cr_assert_eq(fgetc(f), EOF, "outputs too long");
	fclose(f);
}

/* Emits g into a new directory as BASE.c with symbols NAME, compiles it with a
 * driver, runs it on inputs and returns the outputs in outs (malloc'd). */
static void run_model(struct graph *g, enum weights_mode mode, const char *base,
                      const char *name, float *const *inputs, float **outs, char *dir /* out */)
{
	struct diag d;
	make_dir(dir);
	cr_assert_eq(emit(g, dir, base, name, mode, &d), 0, "emit_c failed");
	cr_assert_eq(d.errors, 0);
	write_driver(dir, base, name, mode == WEIGHTS_FILE);
	compile(dir, base, "");
	write_inputs(dir, g, inputs);
	int rc;
	if (mode == WEIGHTS_FILE)
		rc = sh("cd '%s' && head -c 4 %s.weights.bin >short.bin && cat %s.weights.bin "
		        "%s.weights.bin >long.bin && ./prog in.bin out.bin %s.weights.bin short.bin "
		        "long.bin",
		        dir, base, base, base, base);
	else
		rc = sh("cd '%s' && ./prog in.bin out.bin", dir);
	cr_assert_eq(rc, 0, "the generated program failed with status %d", rc);
	read_outputs(dir, g, outs);
}

/* Inputs of g filled from val(100 + i, k). */
static void make_inputs(const struct graph *g, float **inputs)
{
	for (int i = 0; i < g->n_inputs; i++) {
		size_t n = (size_t)ir_numel(g->inputs[i]);
		inputs[i] = malloc(n * sizeof(float) + 1);
		for (size_t k = 0; k < n; k++)
			inputs[i][k] = val(100 + (unsigned)i, k);
	}
}

static void free_all(float **v, int n)
{
	for (int i = 0; i < n; i++)
		free(v[i]);
}

/* |got - want| <= tol * max(1, |want|) for every element; NaN matches NaN.
 * Reports the worst element. */
static void expect_close(const char *what, const float *got, const float *want, size_t n,
                         double tol)
{
	size_t worst = 0;
	double worst_err = -1;
	for (size_t i = 0; i < n; i++) {
		double err;
		if (isnan(want[i]) || isnan(got[i]))
			err = isnan(want[i]) && isnan(got[i]) ? 0 : INFINITY;
		else if (want[i] == got[i])
			err = 0;
		else
			err = fabs((double)got[i] - want[i]) / fmax(1.0, fabs((double)want[i]));
		if (err > worst_err) {
			worst_err = err;
			worst = i;
		}
	}
	cr_expect(worst_err <= tol, "%s: element %zu is %.9g, expected %.9g (%zu elements)", what,
	          worst, n ? got[worst] : 0.0f, n ? want[worst] : 0.0f, n);
}

/* Emits, compiles and runs g, then compares output j with want[j]. */
static void check_model(struct graph *g, enum weights_mode mode, float *const *inputs,
                        float *const *want, double tol)
{
	float *outs[MAX_IO];
	char dir[64];
	run_model(g, mode, "net", "net", inputs, outs, dir);
	for (int j = 0; j < g->n_outputs; j++) {
		char what[128];
		snprintf(what, sizeof what, "output %d '%s'", j, g->outputs[j]->name);
		expect_close(what, outs[j], want[j], (size_t)ir_numel(g->outputs[j]), tol);
	}
	free_all(outs, g->n_outputs);
	remove_dir(dir);
}

/* check_model, then frees the n_in inputs, the n_want expected outputs and g:
 * the end of most tests below. */
static void check_model_free(struct graph *g, enum weights_mode mode, float **in, int n_in,
                             float **want, int n_want, double tol)
{
	check_model(g, mode, in, want, tol);
	free_all(in, n_in);
	free_all(want, n_want);
	ir_graph_free(g);
}

static float *alloc_out(const struct tensor *t)
{
	return calloc((size_t)ir_numel(t) + 1, sizeof(float));
}

/* ---- independent references ---------------------------------------------------- */

/* Offset in a dense x (dims xd, rank xr) of the element that numpy
 * broadcasting maps to the flat index o of a dense output (dims od, rank r). */
static size_t bidx(size_t o, int r, const int64_t *od, int xr, const int64_t *xd)
{
	size_t xi = 0, stride = 1;
	for (int k = r - 1; k >= 0; k--) {
		size_t i = o % (size_t)od[k];
		o /= (size_t)od[k];
		int xk = k - (r - xr);
		if (xk >= 0) {
			if (xd[xk] != 1)
				xi += i * stride;
			stride *= (size_t)xd[xk];
		}
	}
	return xi;
}

static void ref_binary(enum op op, const struct tensor *a, const float *av, const struct tensor *b,
                       const float *bv, const struct tensor *y, float *out)
{
	for (size_t o = 0; o < (size_t)ir_numel(y); o++) {
		float u = av[bidx(o, y->rank, y->dims, a->rank, a->dims)];
		float v = bv[bidx(o, y->rank, y->dims, b->rank, b->dims)];
		out[o] = op == OP_ADD ? u + v : op == OP_SUB ? u - v : op == OP_MUL ? u * v : u / v;
	}
}

/* numpy.matmul with 1-D promotion, plain loops. */
static void ref_matmul(const struct tensor *a, const float *av, const struct tensor *b,
                       const float *bv, const struct tensor *y, float *out)
{
	int64_t M = a->rank >= 2 ? a->dims[a->rank - 2] : 1, K = a->dims[a->rank - 1];
	int64_t N = b->rank >= 2 ? b->dims[b->rank - 1] : 1;
	int ra = a->rank >= 2 ? a->rank - 2 : 0, rb = b->rank >= 2 ? b->rank - 2 : 0;
	int r = ra > rb ? ra : rb;
	int64_t bd[IR_MAX_RANK];
	for (int k = 0; k < r; k++) {
		int ka = k - (r - ra), kb = k - (r - rb);
		int64_t da = ka >= 0 ? a->dims[ka] : 1, db = kb >= 0 ? b->dims[kb] : 1;
		bd[k] = da > db ? da : db;
	}
	size_t batches = 1;
	for (int k = 0; k < r; k++)
		batches *= (size_t)bd[k];
	for (size_t t = 0; t < batches; t++) {
		const float *am = av + bidx(t, r, bd, ra, a->dims) * M * K;
		const float *bm = bv + bidx(t, r, bd, rb, b->dims) * K * N;
		for (int64_t i = 0; i < M; i++)
			for (int64_t j = 0; j < N; j++) {
				float s = 0;
				for (int64_t k = 0; k < K; k++)
					s += am[i * K + k] * bm[k * N + j];
				out[(t * M + i) * N + j] = s;
			}
	}
}

/* Gemm with C broadcast by index (no strides). */
static void ref_gemm(int M, int N, int K, int ta, int tb, float alpha, float beta, const float *a,
                     const float *b, const struct tensor *c, const float *cv, float *y)
{
	for (int m = 0; m < M; m++)
		for (int n = 0; n < N; n++) {
			float s = 0;
			for (int k = 0; k < K; k++)
				s += (ta ? a[k * M + m] : a[m * K + k]) * (tb ? b[n * K + k] : b[k * N + n]);
			s *= alpha;
			if (c) {
				int64_t od[2] = {M, N};
				s += beta * cv[bidx((size_t)(m * N + n), 2, od, c->rank, c->dims)];
			}
			y[m * N + n] = s;
		}
}

static float sigmoid(float v)
{
	return 1.0f / (1.0f + expf(-v));
}

/* ---- one test per op kind ----------------------------------------------------- */

Test(emit_ops, conv2d)
{
	struct graph *g = new_graph();
	/* x [1, 3, 7, 6], W [4, 3, 3, 2], pads (1, 0, 2, 1), strides (2, 1), dilations (1, 2):
	 * oH = (7 + 3 - 3) / 2 + 1 = 4, oW = (6 + 1 - 3) / 1 + 1 = 5; relu */
	struct tensor *x = input(g, "x", SHAPE(1, 3, 7, 6));
	struct tensor *w = weight(g, "conv1.weight", 1, SHAPE(4, 3, 3, 2));
	struct tensor *b = weight(g, "conv1.bias", 2, SHAPE(4));
	struct tensor *y = act(g, "y", SHAPE(1, 4, 4, 5));
	struct node *n = node(g, OP_CONV, "conv1_relu", INS(x, w, b), y);
	A_INTS(g, n, "kernel_shape", 3, 2);
	A_INTS(g, n, "strides", 2, 1);
	A_INTS(g, n, "dilations", 1, 2);
	A_INTS(g, n, "pads", 1, 0, 2, 1);
	a_int(g, n, "group", 1);
	n->act = ACT_RELU;
	output(g, y);
	/* grouped, no bias, clip epilogue: x2 [2, 4, 5, 5], W [6, 2, 3, 3], group 2, pads 1 */
	struct tensor *x2 = input(g, "x2", SHAPE(2, 4, 5, 5));
	struct tensor *w2 = weight(g, "w2", 3, SHAPE(6, 2, 3, 3));
	struct tensor *y2 = act(g, "y2", SHAPE(2, 6, 5, 5));
	n = node(g, OP_CONV, "grouped", INS(x2, w2), y2);
	A_INTS(g, n, "kernel_shape", 3, 3);
	A_INTS(g, n, "strides", 1, 1);
	A_INTS(g, n, "dilations", 1, 1);
	A_INTS(g, n, "pads", 1, 1, 1, 1);
	a_int(g, n, "group", 2);
	n->act = ACT_CLIP;
	n->act_alpha = -0.25f;
	n->act_beta = 0.5f;
	output(g, y2);
	plan_by_hand(g);

	float *in[2], *want[2] = {alloc_out(y), alloc_out(y2)};
	make_inputs(g, in);
	struct rt_conv2d p1 = {.N = 1, .C = 3, .H = 7, .W = 6, .M = 4, .oH = 4, .oW = 5,
	                       .kH = 3, .kW = 2, .sH = 2, .sW = 1, .dH = 1, .dW = 2,
	                       .padT = 1, .padL = 0, .group = 1, .act = RT_ACT_RELU};
	rt_conv2d_ref(&p1, in[0], fdata(w), fdata(b), want[0]);
	struct rt_conv2d p2 = {.N = 2, .C = 4, .H = 5, .W = 5, .M = 6, .oH = 5, .oW = 5,
	                       .kH = 3, .kW = 3, .sH = 1, .sW = 1, .dH = 1, .dW = 1,
	                       .padT = 1, .padL = 1, .group = 2, .act = RT_ACT_CLIP,
	                       .alpha = -0.25f, .beta = 0.5f};
	rt_conv2d_ref(&p2, in[1], fdata(w2), NULL, want[1]);
	check_model_free(g, WEIGHTS_CARRAY, in, 2, want, 2, 1e-6);
}

Test(emit_ops, conv1d)
{
	struct graph *g = new_graph();
	/* x [1, 2, 9], W [3, 2, 3], pads (1, 2), stride 2: oW = (9 + 3 - 3) / 2 + 1 = 5 */
	struct tensor *x = input(g, "x", SHAPE(1, 2, 9));
	struct tensor *w = weight(g, "w", 1, SHAPE(3, 2, 3));
	struct tensor *b = weight(g, "b", 2, SHAPE(3));
	struct tensor *y = act(g, "y", SHAPE(1, 3, 5));
	struct node *n = node(g, OP_CONV, "conv", INS(x, w, b), y);
	A_INTS(g, n, "kernel_shape", 3);
	A_INTS(g, n, "strides", 2);
	A_INTS(g, n, "dilations", 1);
	A_INTS(g, n, "pads", 1, 2);
	a_int(g, n, "group", 1);
	n->act = ACT_LEAKY_RELU;
	n->act_alpha = 0.125f;
	output(g, y);
	plan_by_hand(g);

	float *in[1], *want[1] = {alloc_out(y)};
	make_inputs(g, in);
	struct rt_conv2d p = {.N = 1, .C = 2, .H = 1, .W = 9, .M = 3, .oH = 1, .oW = 5,
	                      .kH = 1, .kW = 3, .sH = 1, .sW = 2, .dH = 1, .dW = 1,
	                      .padT = 0, .padL = 1, .group = 1, .act = RT_ACT_LEAKY_RELU,
	                      .alpha = 0.125f};
	rt_conv2d_ref(&p, in[0], fdata(w), fdata(b), want[0]);
	check_model_free(g, WEIGHTS_CARRAY, in, 1, want, 1, 1e-6);
}

Test(emit_ops, gemm)
{
	struct graph *g = new_graph();
	struct tensor *a = input(g, "a", SHAPE(3, 4));
	struct tensor *at = input(g, "at", SHAPE(4, 3));
	/* C of every broadcastable shape, B plain and transposed */
	struct {
		const char *name;
		int transA, transB;
		int c_rank;
		int64_t c_dims[2];
		float alpha, beta;
		enum act act;
	} cases[] = {
		{"c_row", 0, 1, 1, {5, 0}, 0.5f, 2.0f, ACT_SIGMOID},
		{"c_col", 1, 0, 2, {3, 1}, 1.0f, 1.0f, ACT_NONE},
		{"c_full", 0, 0, 2, {3, 5}, 1.0f, -1.0f, ACT_RELU},
		{"c_scalar", 0, 0, 0, {0, 0}, 1.0f, 1.0f, ACT_NONE},
		{"c_one", 0, 0, 1, {1, 0}, 2.0f, 0.5f, ACT_TANH},
		{"c_one_row", 0, 0, 2, {1, 5}, 1.0f, 1.0f, ACT_NONE},
		{"no_c", 0, 1, -1, {0, 0}, 1.5f, 1.0f, ACT_NONE},
	};
	int nc = (int)(sizeof cases / sizeof cases[0]);
	struct tensor *bs[8], *cs[8], *ys[8];
	for (int i = 0; i < nc; i++) {
		char nm[32];
		snprintf(nm, sizeof nm, "B_%s", cases[i].name);
		bs[i] = cases[i].transB ? weight(g, nm, 10 + i, SHAPE(5, 4))
		                        : weight(g, nm, 10 + i, SHAPE(4, 5));
		snprintf(nm, sizeof nm, "C_%s", cases[i].name);
		cs[i] = cases[i].c_rank < 0 ? NULL
		                            : weight(g, nm, 20 + i, cases[i].c_rank, cases[i].c_dims);
		ys[i] = act(g, cases[i].name, SHAPE(3, 5));
		struct tensor *A = cases[i].transA ? at : a;
		struct node *n = cs[i] ? node(g, OP_GEMM, cases[i].name, INS(A, bs[i], cs[i]), ys[i])
		                       : node(g, OP_GEMM, cases[i].name, INS(A, bs[i]), ys[i]);
		a_float(g, n, "alpha", cases[i].alpha);
		a_float(g, n, "beta", cases[i].beta);
		a_int(g, n, "transA", cases[i].transA);
		a_int(g, n, "transB", cases[i].transB);
		n->act = cases[i].act;
		output(g, ys[i]);
	}
	plan_by_hand(g);

	float *in[2], *want[8];
	make_inputs(g, in);
	for (int i = 0; i < nc; i++) {
		want[i] = alloc_out(ys[i]);
		ref_gemm(3, 5, 4, cases[i].transA, cases[i].transB, cases[i].alpha, cases[i].beta,
		         cases[i].transA ? in[1] : in[0], fdata(bs[i]), cs[i],
		         cs[i] ? fdata(cs[i]) : NULL, want[i]);
		for (int k = 0; k < 15; k++) {
			float v = want[i][k];
			want[i][k] = cases[i].act == ACT_SIGMOID ? sigmoid(v)
			             : cases[i].act == ACT_RELU  ? (v > 0 ? v : 0)
			             : cases[i].act == ACT_TANH  ? tanhf(v)
			                                         : v;
		}
	}
	check_model_free(g, WEIGHTS_CARRAY, in, 2, want, nc, 1e-5);
}

/* A case of a two-operand layer: its op, A, B and the expected Y, and
 * whether B is a constant (else an input). */
struct op2_case {
	enum op op;
	int ra;
	int64_t a[4];
	int rb;
	int64_t b[4];
	int ry;
	int64_t y[4];
	int b_const;
};

/* One layer per case, each an output (constant B from seed0 + i); the inputs
 * in in[], the expected outputs in want[] (ref_matmul or ref_binary). */
static void op2_cases(struct graph *g, const struct op2_case *cases, int nc, unsigned seed0,
                      struct node **ns, float **in, float **want)
{
	struct tensor *as[8], *bs[8], *ys[8];
	for (int i = 0; i < nc; i++) {
		char nm[32];
		snprintf(nm, sizeof nm, "a%d", i);
		as[i] = input(g, nm, cases[i].ra, cases[i].a);
		snprintf(nm, sizeof nm, "b%d", i);
		bs[i] = cases[i].b_const ? weight(g, nm, seed0 + (unsigned)i, cases[i].rb, cases[i].b)
		                         : input(g, nm, cases[i].rb, cases[i].b);
		snprintf(nm, sizeof nm, "y%d", i);
		ys[i] = act(g, nm, cases[i].ry, cases[i].y);
		snprintf(nm, sizeof nm, "n%d", i);
		ns[i] = node(g, cases[i].op, nm, INS(as[i], bs[i]), ys[i]);
		output(g, ys[i]);
	}
	make_inputs(g, in);
	for (int i = 0; i < nc; i++) {
		want[i] = alloc_out(ys[i]);
		const float *av = NULL, *bv = bs[i]->data;
		for (int k = 0; k < g->n_inputs; k++) {
			if (g->inputs[k] == as[i])
				av = in[k];
			if (g->inputs[k] == bs[i])
				bv = in[k];
		}
		if (cases[i].op == OP_MATMUL)
			ref_matmul(as[i], av, bs[i], bv, ys[i], want[i]);
		else
			ref_binary(cases[i].op, as[i], av, bs[i], bv, ys[i], want[i]);
	}
}

/* MatMul by plain loops (no select): the even cases multiply two
 * activations, the odd ones by a constant. */
Test(emit_ops, matmul)
{
	struct graph *g = new_graph();
	const struct op2_case cases[] = {
		{OP_MATMUL, 2, {3, 4}, 2, {4, 5}, 2, {3, 5}, 0},
		{OP_MATMUL, 1, {4}, 2, {4, 5}, 1, {5}, 1},
		{OP_MATMUL, 2, {3, 4}, 1, {4}, 1, {3}, 0},
		{OP_MATMUL, 4, {2, 1, 3, 4}, 3, {5, 4, 2}, 4, {2, 5, 3, 2}, 1},
		{OP_MATMUL, 1, {4}, 3, {2, 4, 3}, 2, {2, 3}, 0},
		{OP_MATMUL, 3, {2, 3, 4}, 2, {4, 2}, 3, {2, 3, 2}, 1},
	};
	int nc = (int)(sizeof cases / sizeof cases[0]);
	struct node *ns[8];
	float *in[16], *want[8];
	op2_cases(g, cases, nc, 30, ns, in, want);
	plan_by_hand(g);
	check_model_free(g, WEIGHTS_CARRAY, in, g->n_inputs, want, nc, 1e-6);
}

/* Gemm and MatMul with a constant 2-D B after select: B packed at compile
 * time for gemm_fc (the C target's panels here), transB either way, bias
 * broadcasts, an activation, MatMul's batch dims folded into rows. */
Test(emit_ops, gemm_fc)
{
	struct graph *g = new_graph();
	struct tensor *a = input(g, "a", SHAPE(3, 7));
	struct tensor *at = input(g, "at", SHAPE(7, 3));
	struct tensor *b0 = weight(g, "b0", 40, SHAPE(7, 6)), *b1 = weight(g, "b1", 41, SHAPE(6, 7));
	struct tensor *c0 = weight(g, "c0", 42, SHAPE(6)), *c1 = weight(g, "c1", 43, SHAPE(3, 1));
	struct tensor *y0 = act(g, "y0", SHAPE(3, 6)), *y1 = act(g, "y1", SHAPE(3, 6));
	struct node *n0 = node(g, OP_GEMM, "fc0", INS(a, b0, c0), y0);
	a_float(g, n0, "alpha", 0.5);
	n0->act = ACT_RELU;
	struct node *n1 = node(g, OP_GEMM, "fc1", INS(at, b1, c1), y1);
	a_int(g, n1, "transA", 1);
	a_int(g, n1, "transB", 1);
	a_float(g, n1, "beta", -2.0);
	struct tensor *ma = input(g, "ma", SHAPE(2, 3, 7)), *mv = input(g, "mv", SHAPE(7));
	struct tensor *y2 = act(g, "y2", SHAPE(2, 3, 6)), *y3 = act(g, "y3", SHAPE(6));
	node(g, OP_MATMUL, "mm0", INS(ma, b0), y2);
	node(g, OP_MATMUL, "mm1", INS(mv, b0), y3);
	output(g, y0);
	output(g, y1);
	output(g, y2);
	output(g, y3);
	float *b0v = fdata(b0), *b1v = fdata(b1);
	float *in[4], *want[4];
	make_inputs(g, in);
	want[0] = alloc_out(y0);
	want[1] = alloc_out(y1);
	want[2] = alloc_out(y2);
	want[3] = alloc_out(y3);
	ref_gemm(3, 6, 7, 0, 0, 0.5f, 1.0f, in[0], b0v, c0, fdata(c0), want[0]);
	for (int k = 0; k < 18; k++)
		want[0][k] = want[0][k] > 0 ? want[0][k] : 0;
	ref_gemm(3, 6, 7, 1, 1, 1.0f, -2.0f, in[1], b1v, c1, fdata(c1), want[1]);
	ref_matmul(ma, in[2], b0, b0v, y2, want[2]);
	ref_matmul(mv, in[3], b0, b0v, y3, want[3]);

	struct options opt = {0};
	struct diag d;
	diag_init(&d, g->source, stderr);
	cr_assert_eq(pass_select(g, &opt, &d), 0, "pass_select failed");
	int fc = 0;
	for (int i = 0; i < g->n_nodes; i++)
		if (g->nodes[i]->primitive && strcmp(g->nodes[i]->primitive, "gemm_fc") == 0) {
			cr_expect_eq(g->nodes[i]->inputs[1]->rank, 1, "B is packed");
			fc++;
		}
	cr_expect_eq(fc, 4, "%d of 4 layers on gemm_fc", fc);
	plan_by_hand(g);
	check_model_free(g, WEIGHTS_CARRAY, in, 4, want, 4, 1e-5);
}

/* MatMul of two activations after select: one SGEMM per output matrix
 * (matmul_sgemm.c) with its arena workspace; broadcast batch dims, 1-D
 * operands, and an attention-shaped product (heads x 37 x 37 x 24). */
Test(emit_ops, matmul_sgemm)
{
	struct graph *g = new_graph();
	const struct op2_case cases[] = {
		{OP_MATMUL, 2, {3, 4}, 2, {4, 5}, 2, {3, 5}, 0},
		{OP_MATMUL, 1, {4}, 3, {2, 4, 3}, 2, {2, 3}, 0},
		{OP_MATMUL, 4, {2, 1, 3, 4}, 3, {5, 4, 2}, 4, {2, 5, 3, 2}, 0},
		{OP_MATMUL, 3, {2, 3, 4}, 1, {4}, 2, {2, 3}, 0},
		{OP_MATMUL, 4, {1, 3, 37, 24}, 4, {1, 3, 24, 37}, 4, {1, 3, 37, 37}, 0},
	};
	int nc = (int)(sizeof cases / sizeof cases[0]);
	struct node *ns[8];
	float *in[16], *want[8];
	op2_cases(g, cases, nc, 30, ns, in, want);
	struct options opt = {0};
	struct diag d;
	diag_init(&d, g->source, stderr);
	cr_assert_eq(pass_select(g, &opt, &d), 0, "pass_select failed");
	for (int i = 0; i < nc; i++) {
		cr_expect_str_eq(ns[i]->primitive ? ns[i]->primitive : "(none)", "matmul_sgemm");
		cr_expect_gt(ns[i]->ws_bytes, 0);
	}
	plan_for_real(g);
	check_model_free(g, WEIGHTS_CARRAY, in, g->n_inputs, want, nc, 1e-5);
}

/* A Gemm with many rows and a constant B after select: the blocked SGEMM
 * with its arena workspace, then the epilogue (alpha, beta, C [M, 1], Tanh). */
Test(emit_ops, gemm_sgemm)
{
	struct graph *g = new_graph();
	struct tensor *at = input(g, "at", SHAPE(9, 130));
	struct tensor *b = weight(g, "b", 50, SHAPE(20, 9)), *c = weight(g, "c", 51, SHAPE(130, 1));
	struct tensor *y = act(g, "y", SHAPE(130, 20));
	struct node *n = node(g, OP_GEMM, "fc", INS(at, b, c), y);
	a_int(g, n, "transA", 1);
	a_int(g, n, "transB", 1);
	a_float(g, n, "alpha", -1.5);
	a_float(g, n, "beta", 0.25);
	n->act = ACT_TANH;
	output(g, y);
	float *in[1], *want[1];
	make_inputs(g, in);
	want[0] = alloc_out(y);
	ref_gemm(130, 20, 9, 1, 1, -1.5f, 0.25f, in[0], fdata(b), c, fdata(c), want[0]);
	for (int k = 0; k < 130 * 20; k++)
		want[0][k] = tanhf(want[0][k]);
	struct options opt = {0};
	struct diag d;
	diag_init(&d, g->source, stderr);
	cr_assert_eq(pass_select(g, &opt, &d), 0, "pass_select failed");
	cr_assert_str_eq(n->primitive ? n->primitive : "(none)", "gemm_sgemm");
	cr_expect_gt(n->ws_bytes, 0);
	plan_for_real(g);
	check_model_free(g, WEIGHTS_CARRAY, in, 1, want, 1, 1e-5);
}

Test(emit_ops, binary)
{
	struct graph *g = new_graph();
	const struct op2_case cases[] = {
		{OP_ADD, 3, {2, 3, 4}, 2, {3, 1}, 3, {2, 3, 4}, 0},
		{OP_SUB, 3, {4, 1, 5}, 3, {1, 3, 1}, 3, {4, 3, 5}, 0},
		{OP_MUL, 1, {1}, 2, {2, 3}, 2, {2, 3}, 1},
		{OP_DIV, 2, {2, 3}, 2, {2, 3}, 2, {2, 3}, 1},
		{OP_ADD, 4, {2, 3, 4, 5}, 0, {0}, 4, {2, 3, 4, 5}, 1},
		{OP_MUL, 4, {1, 3, 1, 5}, 4, {2, 1, 4, 1}, 4, {2, 3, 4, 5}, 0},
		{OP_SUB, 0, {0}, 0, {0}, 0, {0}, 0},
	};
	int nc = (int)(sizeof cases / sizeof cases[0]);
	struct node *ns[8];
	float *in[16], *want[8];
	op2_cases(g, cases, nc, 40, ns, in, want);
	plan_by_hand(g);
	check_model_free(g, WEIGHTS_CARRAY, in, g->n_inputs, want, nc, 0);
}

Test(emit_ops, unary)
{
	struct graph *g = new_graph();
	struct tensor *x = input(g, "x", SHAPE(2, 3, 4));
	enum op ops[] = {OP_RELU, OP_LEAKY_RELU, OP_CLIP, OP_SIGMOID, OP_TANH};
	struct tensor *ys[5];
	for (int i = 0; i < 5; i++) {
		char nm[16];
		snprintf(nm, sizeof nm, "y%d", i);
		ys[i] = act(g, nm, SHAPE(2, 3, 4));
		struct node *n = node(g, ops[i], NULL, INS(x), ys[i]);
		if (ops[i] == OP_LEAKY_RELU)
			a_float(g, n, "alpha", 0.2);
		if (ops[i] == OP_CLIP) {
			a_float(g, n, "min", -0.3);
			a_float(g, n, "max", 0.4);
		}
		output(g, ys[i]);
	}
	plan_by_hand(g);

	float *in[1], *want[5];
	make_inputs(g, in);
	for (int i = 0; i < 5; i++) {
		want[i] = alloc_out(ys[i]);
		for (int k = 0; k < 24; k++) {
			float v = in[0][k];
			want[i][k] = i == 0 ? (v > 0 ? v : 0)
			             : i == 1 ? (v >= 0 ? v : v * 0.2f)
			             : i == 2 ? (v < -0.3f ? -0.3f : v > 0.4f ? 0.4f : v)
			             : i == 3 ? sigmoid(v)
			                      : tanhf(v);
		}
	}
	check_model_free(g, WEIGHTS_CARRAY, in, 1, want, 5, 1e-6);
}

Test(emit_ops, softmax)
{
	struct graph *g = new_graph();
	struct tensor *x = input(g, "x", SHAPE(2, 3, 4));
	struct {
		enum op op;
		int axis, coerce;
	} cases[] = {{OP_SOFTMAX, 1, 0}, {OP_LOG_SOFTMAX, 2, 0}, {OP_SOFTMAX, 1, 1}, {OP_SOFTMAX, 0, 0}};
	struct tensor *ys[4];
	for (int i = 0; i < 4; i++) {
		char nm[16];
		snprintf(nm, sizeof nm, "y%d", i);
		ys[i] = act(g, nm, SHAPE(2, 3, 4));
		struct node *n = node(g, cases[i].op, NULL, INS(x), ys[i]);
		a_int(g, n, "axis", cases[i].axis);
		a_int(g, n, "coerce_2d", cases[i].coerce);
		output(g, ys[i]);
	}
	plan_by_hand(g);

	float *in[1], *want[4];
	make_inputs(g, in);
	/* (outer, len, inner) worked out by hand from [2, 3, 4] */
	int shapes[4][3] = {{2, 3, 4}, {6, 4, 1}, {2, 12, 1}, {1, 2, 12}};
	for (int i = 0; i < 4; i++) {
		want[i] = alloc_out(ys[i]);
		int o = shapes[i][0], len = shapes[i][1], inner = shapes[i][2];
		for (int a = 0; a < o; a++)
			for (int c = 0; c < inner; c++) {
				double sum = 0, mx = -INFINITY;
				for (int k = 0; k < len; k++)
					mx = fmax(mx, in[0][(a * len + k) * inner + c]);
				for (int k = 0; k < len; k++)
					sum += exp(in[0][(a * len + k) * inner + c] - mx);
				for (int k = 0; k < len; k++) {
					double v = in[0][(a * len + k) * inner + c] - mx;
					want[i][(a * len + k) * inner + c] =
						(float)(cases[i].op == OP_LOG_SOFTMAX ? v - log(sum) : exp(v) / sum);
				}
			}
	}
	check_model_free(g, WEIGHTS_CARRAY, in, 1, want, 4, 1e-5);
}

Test(emit_ops, pools)
{
	struct graph *g = new_graph();
	struct tensor *x = input(g, "x", SHAPE(1, 2, 6, 7));
	/* k (3, 2), s (2, 2), pads (1, 0, 1, 1): oH = (6 + 2 - 3) / 2 + 1 = 3,
	 * oW = (7 + 1 - 2) / 2 + 1 = 4 */
	enum op ops[3] = {OP_MAXPOOL, OP_AVGPOOL, OP_AVGPOOL};
	struct tensor *ys[4];
	for (int i = 0; i < 3; i++) {
		char nm[16];
		snprintf(nm, sizeof nm, "y%d", i);
		ys[i] = act(g, nm, SHAPE(1, 2, 3, 4));
		struct node *n = node(g, ops[i], NULL, INS(x), ys[i]);
		A_INTS(g, n, "kernel_shape", 3, 2);
		A_INTS(g, n, "strides", 2, 2);
		A_INTS(g, n, "dilations", 1, 1);
		A_INTS(g, n, "pads", 1, 0, 1, 1);
		a_int(g, n, "count_include_pad", i == 2);
		output(g, ys[i]);
	}
	/* 1-D max pool: x1 [1, 2, 8], k 3, s 2, pads (1, 1), dilation 2: oW = (8 + 2 - 5) / 2 + 1 = 3 */
	struct tensor *x1 = input(g, "x1", SHAPE(1, 2, 8));
	ys[3] = act(g, "y3", SHAPE(1, 2, 3));
	struct node *n = node(g, OP_MAXPOOL, "pool1d", INS(x1), ys[3]);
	A_INTS(g, n, "kernel_shape", 3);
	A_INTS(g, n, "strides", 2);
	A_INTS(g, n, "dilations", 2);
	A_INTS(g, n, "pads", 1, 1);
	output(g, ys[3]);
	plan_by_hand(g);

	float *in[2], *want[4];
	make_inputs(g, in);
	for (int i = 0; i < 4; i++)
		want[i] = alloc_out(ys[i]);
	struct rt_pool2d p = {.N = 1, .C = 2, .H = 6, .W = 7, .oH = 3, .oW = 4, .kH = 3, .kW = 2,
	                      .sH = 2, .sW = 2, .dH = 1, .dW = 1,
	                      .padT = 1, .padL = 0, .padB = 1, .padR = 1};
	rt_maxpool2d(&p, in[0], want[0]);
	rt_avgpool2d(&p, in[0], want[1]);
	p.count_include_pad = 1;
	rt_avgpool2d(&p, in[0], want[2]);
	struct rt_pool2d p1 = {.N = 1, .C = 2, .H = 1, .W = 8, .oH = 1, .oW = 3, .kH = 1, .kW = 3,
	                       .sH = 1, .sW = 2, .dH = 1, .dW = 2, .padL = 1, .padR = 1};
	rt_maxpool2d(&p1, in[1], want[3]);
	check_model_free(g, WEIGHTS_CARRAY, in, 2, want, 4, 1e-6);
}

Test(emit_ops, global_pools_and_lrn)
{
	struct graph *g = new_graph();
	struct tensor *x = input(g, "x", SHAPE(2, 3, 4, 5));
	struct tensor *x3 = input(g, "x3", SHAPE(2, 3, 7));
	struct tensor *ya = act(g, "ya", SHAPE(2, 3, 1, 1));
	struct tensor *ym = act(g, "ym", SHAPE(2, 3, 1));
	struct tensor *yl = act(g, "yl", SHAPE(2, 3, 4, 5));
	node(g, OP_GLOBAL_AVGPOOL, "gap", INS(x), ya);
	node(g, OP_GLOBAL_MAXPOOL, "gmp", INS(x3), ym);
	struct node *n = node(g, OP_LRN, "lrn", INS(x), yl);
	a_float(g, n, "alpha", 1e-3);
	a_float(g, n, "beta", 0.75);
	a_float(g, n, "bias", 2.0);
	a_int(g, n, "size", 3);
	output(g, ya);
	output(g, ym);
	output(g, yl);
	plan_by_hand(g);

	float *in[2], *want[3] = {alloc_out(ya), alloc_out(ym), alloc_out(yl)};
	make_inputs(g, in);
	for (int c = 0; c < 6; c++) {
		float s = 0, m = -INFINITY;
		for (int k = 0; k < 20; k++)
			s += in[0][c * 20 + k];
		for (int k = 0; k < 7; k++)
			m = fmaxf(m, in[1][c * 7 + k]);
		want[0][c] = s / 20;
		want[1][c] = m;
	}
	rt_lrn(2, 3, 20, 3, 1e-3f, 0.75f, 2.0f, in[0], want[2]);
	check_model_free(g, WEIGHTS_CARRAY, in, 2, want, 3, 1e-6);
}

Test(emit_ops, concat_transpose_pad)
{
	struct graph *g = new_graph();
	struct tensor *x0 = input(g, "x0", SHAPE(2, 1, 3));
	struct tensor *x1 = input(g, "x1", SHAPE(2, 2, 3));
	struct tensor *x2 = weight(g, "x2", 7, SHAPE(2, 3, 3));
	struct tensor *yc = act(g, "yc", SHAPE(2, 6, 3));
	struct node *n = node(g, OP_CONCAT, "cat", INS(x0, x1, x2), yc);
	a_int(g, n, "axis", 1);
	output(g, yc);

	struct tensor *xt = input(g, "xt", SHAPE(2, 3, 4));
	struct tensor *yt = act(g, "yt", SHAPE(4, 2, 3));
	n = node(g, OP_TRANSPOSE, "tr", INS(xt), yt);
	A_INTS(g, n, "perm", 2, 0, 1);
	output(g, yt);
	/* size-1 dims and a merge: [1, 3, 1, 4] perm (3, 1, 2, 0) -> [4, 3, 1, 1] */
	struct tensor *xt2 = input(g, "xt2", SHAPE(1, 3, 1, 4));
	struct tensor *yt2 = act(g, "yt2", SHAPE(4, 3, 1, 1));
	n = node(g, OP_TRANSPOSE, "tr2", INS(xt2), yt2);
	A_INTS(g, n, "perm", 3, 1, 2, 0);
	output(g, yt2);

	/* [2, 3] pads (1, -1, 0, 2) -> [3, 4], value 1.5 */
	struct tensor *xp = input(g, "xp", SHAPE(2, 3));
	struct tensor *yp = act(g, "yp", SHAPE(3, 4));
	n = node(g, OP_PAD, "pad", INS(xp), yp);
	A_INTS(g, n, "pads", 1, -1, 0, 2);
	a_float(g, n, "value", 1.5);
	output(g, yp);
	plan_by_hand(g);

	/* inputs: x0, x1, xt, xt2, xp */
	float *in[5], *want[4] = {alloc_out(yc), alloc_out(yt), alloc_out(yt2), alloc_out(yp)};
	make_inputs(g, in);
	for (int a = 0; a < 2; a++)
		for (int c = 0; c < 6; c++)
			for (int k = 0; k < 3; k++)
				want[0][(a * 6 + c) * 3 + k] = c < 1   ? in[0][(a * 1 + c) * 3 + k]
				                               : c < 3 ? in[1][(a * 2 + c - 1) * 3 + k]
				                                       : fdata(x2)[(a * 3 + c - 3) * 3 + k];
	for (int i = 0; i < 4; i++)
		for (int a = 0; a < 2; a++)
			for (int b = 0; b < 3; b++)
				want[1][(i * 2 + a) * 3 + b] = in[2][(a * 3 + b) * 4 + i];
	for (int i = 0; i < 4; i++)
		for (int c = 0; c < 3; c++)
			want[2][i * 3 + c] = in[3][c * 4 + i];
	for (int r = 0; r < 3; r++)
		for (int c = 0; c < 4; c++) {
			int sr = r - 1, sc = c + 1; /* begin pads 1 and -1 */
			want[3][r * 4 + c] = sr >= 0 && sr < 2 && sc < 3 ? in[4][sr * 3 + sc] : 1.5f;
		}
	check_model_free(g, WEIGHTS_CARRAY, in, 5, want, 4, 0);
}

/* ---- views, special outputs, weights modes ---------------------------------------- */

/* x [1, 2, 3, 3] -> relu r -> flatten f [1, 18] (output 0, a view)
 * W0 [72] constant -> reshape W [18, 4] (a view of a constant)
 * gemm(f, W, b [4]) -> y [1, 4] (output 1); constant K as output 2; x as
 * output 3; y again as output 4. */
static struct graph *views_graph(struct tensor **w0, struct tensor **b, struct tensor **k)
{
	struct graph *g = new_graph();
	struct tensor *x = input(g, "x", SHAPE(1, 2, 3, 3));
	struct tensor *r = act(g, "r", SHAPE(1, 2, 3, 3));
	struct tensor *f = act(g, "f", SHAPE(1, 18));
	struct tensor *shape = ir_new_constant(g, "shape", DTYPE_I64, SHAPE(2),
	                                       arena_memdup(&g->arena, (int64_t[]){18, 4}, 16));
	*w0 = weight(g, "W0", 5, SHAPE(72));
	struct tensor *w = act(g, "W", SHAPE(18, 4));
	*b = weight(g, "b", 6, SHAPE(4));
	struct tensor *y = act(g, "y", SHAPE(1, 4));
	node(g, OP_RELU, "relu", INS(x), r);
	struct node *n = node(g, OP_FLATTEN, "flatten", INS(r), f);
	a_int(g, n, "axis", 1);
	node(g, OP_RESHAPE, "reshape", INS(*w0, shape), w);
	node(g, OP_GEMM, "fc", INS(f, w, *b), y);
	/* special float values survive every weights mode */
	float *kv = arena_alloc(&g->arena, 8 * sizeof *kv);
	float special[8] = {0.0f, -0.0f, INFINITY, -INFINITY, NAN, 1e-45f, FLT_MAX, 0.1f};
	memcpy(kv, special, sizeof special);
	*k = ir_new_constant(g, "K", DTYPE_F32, SHAPE(2, 4), kv);
	output(g, f);
	output(g, y);
	output(g, *k);
	output(g, x);
	push(g, &g->outputs, &g->n_outputs, y);
	plan_by_hand(g);
	return g;
}

static void check_views(enum weights_mode mode, const char *expect_in_c, int expect_bin,
                        int real_planner)
{
	struct tensor *w0, *b, *k;
	struct graph *g = views_graph(&w0, &b, &k);
	if (real_planner)
		plan_for_real(g);
	float *in[1], *outs[8];
	make_inputs(g, in);
	float r[18], y[4];
	for (int i = 0; i < 18; i++)
		r[i] = in[0][i] > 0 ? in[0][i] : 0;
	ref_gemm(1, 4, 18, 0, 0, 1.0f, 1.0f, r, fdata(w0), b, fdata(b), y);

	char dir[64], path[256];
	run_model(g, mode, "net", "net", in, outs, dir);
	expect_close("flatten view output", outs[0], r, 18, 0);
	expect_close("gemm output", outs[1], y, 4, 1e-6);
	/* bit-exact, signed zeros included (NaN: any NaN) */
	const float *kv = fdata(k);
	for (int i = 0; i < 8; i++) {
		if (isnan(kv[i]))
			cr_expect(isnan(outs[2][i]), "constant output element %d", i);
		else
			cr_expect(memcmp(&outs[2][i], &kv[i], 4) == 0, "constant output element %d: %a vs %a",
			          i, outs[2][i], kv[i]);
	}
	expect_close("input passed through", outs[3], in[0], 18, 0);
	expect_close("output listed twice", outs[4], y, 4, 1e-6);

	snprintf(path, sizeof path, "%s/net.c", dir);
	char *c = read_file(path, NULL);
	cr_assert(c);
	cr_expect(strstr(c, expect_in_c), "net.c lacks \"%s\"", expect_in_c);
	cr_expect(!strstr(c, "int64") && !strstr(c, "rt_conv2d_ref"), "unneeded content in net.c");
	/* the shape input of Reshape is not a weight: W0 at 0, b at 320, K at 384 */
	snprintf(path, sizeof path, "%s/net.weights.bin", dir);
	cr_expect_eq(file_exists(path), expect_bin, "net.weights.bin %s",
	             expect_bin ? "missing" : "written although not needed");
	if (expect_bin) {
		cr_expect_eq(file_size(path), 384 + 32);
		size_t n;
		char *bin = read_file(path, &n);
		cr_assert(bin && n == 416);
		cr_expect(memcmp(bin, fdata(w0), 72 * 4) == 0, "W0 at offset 0");
		cr_expect(memcmp(bin + 320, fdata(b), 16) == 0, "b at offset 320 (64-byte aligned)");
		cr_expect(memcmp(bin + 384, kv, 32) == 0, "K at offset 384");
		free(bin);
	}
	free(c);
	free_all(in, 1);
	free_all(outs, 5);
	remove_dir(dir);
	ir_graph_free(g);
}

Test(emit_weights, carray)
{
	check_views(WEIGHTS_CARRAY, "static const float net_weights[104] RT_ALIGN64 = {", 0, 0);
}

Test(emit_planned, views)
{
	check_views(WEIGHTS_CARRAY, "static const float net_weights[104] RT_ALIGN64 = {", 0, 1);
}

Test(emit_weights, embed)
{
	check_views(WEIGHTS_EMBED, ".incbin \\\"net.weights.bin\\\"", 1, 0);
}

Test(emit_weights, file)
{
	check_views(WEIGHTS_FILE, "int net_load_weights(const char *path)", 1, 0);
}

Test(emit_weights, auto_small_is_carray)
{
	check_views(WEIGHTS_AUTO, "static const float net_weights[104] RT_ALIGN64 = {", 0, 0);
}

/* Over 1 MiB of weights: AUTO embeds them, and the C file stays small. */
Test(emit_weights, auto_large_is_embed, .timeout = 120)
{
	struct graph *g = new_graph();
	struct tensor *a = input(g, "a", SHAPE(1, 512));
	struct tensor *b = weight(g, "B", 9, SHAPE(512, 600));
	struct tensor *y = act(g, "y", SHAPE(1, 600));
	struct node *n = node(g, OP_GEMM, "fc", INS(a, b), y);
	a_float(g, n, "alpha", 1.0);
	a_float(g, n, "beta", 1.0);
	output(g, y);
	plan_by_hand(g);
	float *in[1], *want[1] = {alloc_out(y)};
	make_inputs(g, in);
	ref_gemm(1, 600, 512, 0, 0, 1.0f, 1.0f, in[0], fdata(b), NULL, NULL, want[0]);
	float *outs[1];
	char dir[64], path[256];
	run_model(g, WEIGHTS_AUTO, "big", "big", in, outs, dir);
	expect_close("y", outs[0], want[0], 600, 1e-5);
	snprintf(path, sizeof path, "%s/big.weights.bin", dir);
	cr_expect_eq(file_size(path), 512 * 600 * 4);
	snprintf(path, sizeof path, "%s/big.c", dir);
	cr_expect(file_size(path) < 100000, "big.c has %ld bytes: weights written as literals?",
	          file_size(path));
	free_all(in, 1);
	free_all(want, 1);
	free_all(outs, 1);
	remove_dir(dir);
	ir_graph_free(g);
}

/* A model without nodes: its input is its output. No arena, no weights. */
Test(emit_weights, input_straight_to_output)
{
	struct graph *g = new_graph();
	struct tensor *x = input(g, "x", SHAPE(3, 5));
	output(g, x);
	plan_by_hand(g);
	float *in[1], *outs[1];
	make_inputs(g, in);
	char dir[64], path[256];
	run_model(g, WEIGHTS_AUTO, "net", "net", in, outs, dir);
	expect_close("x", outs[0], in[0], 15, 0);
	snprintf(path, sizeof path, "%s/net.c", dir);
	char *c = read_file(path, NULL);
	cr_expect(!strstr(c, "net_arena") && !strstr(c, "net_weights"), "unneeded arena or weights");
	cr_expect(!strstr(c, "RT_FN void"), "runtime units copied although none is used");
	cr_expect(!strstr(c, "rt_act_apply"), "an unused inline helper was copied");
	free(c);
	free_all(in, 1);
	free_all(outs, 1);
	remove_dir(dir);
	ir_graph_free(g);
}

/* A view whose planner left it unaliased is copied, not dropped. */
Test(emit_weights, unaliased_view_is_copied)
{
	struct graph *g = new_graph();
	struct tensor *x = input(g, "x", SHAPE(2, 3));
	struct tensor *r = act(g, "r", SHAPE(2, 3));
	struct tensor *f = act(g, "f", SHAPE(6));
	struct tensor *y = act(g, "y", SHAPE(6));
	node(g, OP_RELU, "relu", INS(x), r);
	node(g, OP_FLATTEN, "flat", INS(r), f);
	node(g, OP_SIGMOID, "sig", INS(f), y);
	output(g, y);
	plan_by_hand(g);
	f->alias = NULL;
	f->offset = g->arena_size;
	g->arena_size += 64;
	float *in[1], *want[1] = {alloc_out(y)};
	make_inputs(g, in);
	for (int i = 0; i < 6; i++)
		want[0][i] = sigmoid(in[0][i] > 0 ? in[0][i] : 0);
	check_model_free(g, WEIGHTS_AUTO, in, 1, want, 1, 1e-6);
}

/* ---- the generated files ------------------------------------------------------- */

/* Two models with the same node and tensor names and different weights, one
 * as a C array and one embedded, link into one program. */
Test(emit_files, two_models_link_together)
{
	struct tensor *w0[2], *b[2], *k[2];
	struct graph *g[2];
	char dir[64];
	struct diag d;
	make_dir(dir);
	for (int m = 0; m < 2; m++) {
		g[m] = views_graph(&w0[m], &b[m], &k[m]);
		for (int i = 0; i < 72; i++)
			fdata(w0[m])[i] += (float)m;
		cr_assert_eq(emit(g[m], dir, m ? "model_b" : "model_a", m ? "net_b" : "net_a",
		                  m ? WEIGHTS_EMBED : WEIGHTS_CARRAY, &d),
		             0);
	}
	char path[256];
	snprintf(path, sizeof path, "%s/driver.c", dir);
	FILE *f = fopen(path, "w");
	fputs("#include <stdio.h>\n#include \"model_a.h\"\n#include \"model_b.h\"\n"
	      "int main(void)\n{\n"
	      "\tstatic float x[18], o[5][18];\n"
	      "\tconst float *in[1];\n\tfloat *out[5];\n\tint i, m;\n"
	      "\tfor (i = 0; i < 18; i++)\n\t\tx[i] = (float)(i % 7) - 3.0f;\n"
	      "\tin[0] = x;\n\tfor (i = 0; i < 5; i++)\n\t\tout[i] = o[i];\n"
	      "\tfor (m = 0; m < 2; m++) {\n"
	      "\t\tif ((m ? net_b_run(in, out) : net_a_run(in, out)) != 0)\n\t\t\treturn 1;\n"
	      "\t\tfor (i = 0; i < 4; i++)\n\t\t\tprintf(\"%a\\n\", (double)o[1][i]);\n\t}\n"
	      "\treturn NET_A_NUM_OUTPUTS != 5 || NET_B_NUM_INPUTS != 1;\n}\n",
	      f);
	fclose(f);
	int rc = sh("cd '%s' && cc " CFLAGS " -c model_a.c && cc " CFLAGS " -c model_b.c && cc " CFLAGS
	            " driver.c model_a.o model_b.o -lm -o prog >log.txt 2>&1 && ./prog >out.txt",
	            dir);
	cr_assert_eq(rc, 0, "building or running the two-model program failed (see %s)", dir);
	snprintf(path, sizeof path, "%s/out.txt", dir);
	f = fopen(path, "r");
	for (int m = 0; m < 2; m++) {
		float x[18], r[18], y[4];
		for (int i = 0; i < 18; i++) {
			x[i] = (float)(i % 7) - 3.0f;
			r[i] = x[i] > 0 ? x[i] : 0;
		}
		ref_gemm(1, 4, 18, 0, 0, 1.0f, 1.0f, r, fdata(w0[m]), b[m], fdata(b[m]), y);
		for (int i = 0; i < 4; i++) {
			double v;
			cr_assert_eq(fscanf(f, "%la", &v), 1);
			cr_expect(fabs(v - y[i]) <= 1e-5 * fmax(1, fabs(y[i])), "model %d y[%d] = %g, want %g",
			          m, i, v, y[i]);
		}
	}
	fclose(f);
	remove_dir(dir);
	ir_graph_free(g[0]);
	ir_graph_free(g[1]);
}

Test(emit_files, header_alone_and_cplusplus)
{
	struct tensor *w0, *b, *k;
	struct graph *g = views_graph(&w0, &b, &k);
	char dir[64];
	struct diag d;
	make_dir(dir);
	cr_assert_eq(emit(g, dir, "net", "net", WEIGHTS_FILE, &d), 0);
	int rc = sh("cd '%s' && printf '#include \"net.h\"\\n#include \"net.h\"\\n"
	            "size_t n(void) { return net_input_sizes[0] + NET_NUM_INPUTS + NET_NUM_OUTPUTS; }\\n'"
	            " >alone.c && cc " CFLAGS " -c alone.c >log.txt 2>&1",
	            dir);
	cr_expect_eq(rc, 0, "net.h does not compile on its own (see %s)", dir);
	if (have("g++")) {
		rc = sh("cd '%s' && g++ -std=c++11 -Wall -Wextra -pedantic -Werror -fsyntax-only -x c++ "
		        "net.h >>log.txt 2>&1",
		        dir);
		cr_expect_eq(rc, 0, "net.h is not C++ (see %s)", dir);
		/* and the C linkage holds: a C++ program links the C object */
		rc = sh("cd '%s' && cc " CFLAGS " -c net.c && printf '#include \"net.h\"\\n"
		        "int main() { return net_load_weights(\"net.weights.bin\") || "
		        "net_output_sizes[0] != 18; }\\n' >main.cc && g++ main.cc net.o -lm -o cxx "
		        ">>log.txt 2>&1 && ./cxx",
		        dir);
		cr_expect_eq(rc, 0, "a C++ program cannot use the model (see %s)", dir);
	}
	char path[256];
	snprintf(path, sizeof path, "%s/net.h", dir);
	char *h = read_file(path, NULL);
	cr_expect(strstr(h, "#define NET_NUM_INPUTS 1") && strstr(h, "#define NET_NUM_OUTPUTS 5"));
	cr_expect(strstr(h, "extern const size_t net_input_sizes[];"));
	cr_expect(strstr(h, "int net_run(const float *const inputs[], float *const outputs[]);"));
	cr_expect(strstr(h, "int net_load_weights(const char *path);"));
	cr_expect(strstr(h, "#include <stddef.h>") && strstr(h, "extern \"C\""));
	cr_expect(strstr(h, "'x' [1, 2, 3, 3]") && strstr(h, "'f' [1, 18]"),
	          "the header lists inputs and outputs with names and shapes");
	free(h);
	remove_dir(dir);
	ir_graph_free(g);
}

/* The layout of NAME.c: header comment, includes, RT_FN, runtime text (each
 * used unit once, in units.def order, without its includes), weights, arena,
 * layers, NAME_run last. */
Test(emit_files, c_file_layout)
{
	struct graph *g = new_graph();
	struct tensor *x = input(g, "x:0", SHAPE(1, 2, 4, 4));
	struct tensor *w = weight(g, "w", 1, SHAPE(2, 2, 1, 1));
	struct tensor *c1 = act(g, "a/b", SHAPE(1, 2, 4, 4));
	struct tensor *c2 = act(g, "a-b", SHAPE(1, 2, 4, 4));
	struct tensor *y = act(g, "y", SHAPE(1, 2, 4, 4));
	struct node *n[2];
	for (int i = 0; i < 2; i++) {
		/* the same (sanitised) node names twice, and comment breakers */
		n[i] = node(g, OP_CONV, i ? "conv1/relu" : "conv1:relu */ ?\?/", INS(i ? c1 : x, w),
		            i ? c2 : c1);
		A_INTS(g, n[i], "kernel_shape", 1, 1);
		A_INTS(g, n[i], "strides", 1, 1);
		A_INTS(g, n[i], "dilations", 1, 1);
		A_INTS(g, n[i], "pads", 0, 0, 0, 0);
		a_int(g, n[i], "group", 1);
		n[i]->act = ACT_RELU;
	}
	node(g, OP_RELU, "relu", INS(c2), y);
	output(g, y);
	plan_by_hand(g);
	float *in[1], *want[1] = {alloc_out(y)};
	make_inputs(g, in);
	float t1[32], t2[32];
	struct rt_conv2d p = {.N = 1, .C = 2, .H = 4, .W = 4, .M = 2, .oH = 4, .oW = 4, .kH = 1,
	                      .kW = 1, .sH = 1, .sW = 1, .dH = 1, .dW = 1, .group = 1,
	                      .act = RT_ACT_RELU};
	rt_conv2d_ref(&p, in[0], fdata(w), NULL, t1);
	rt_conv2d_ref(&p, t1, fdata(w), NULL, t2);
	rt_unary(RT_ACT_RELU, 0, 0, 32, t2, want[0]);
	float *outs[1];
	char dir[64], path[256];
	run_model(g, WEIGHTS_CARRAY, "net", "net", in, outs, dir);
	expect_close("y", outs[0], want[0], 32, 1e-6);

	snprintf(path, sizeof path, "%s/net.c", dir);
	char *c = read_file(path, NULL);
	const char *order[] = {
		"generated by dnncc " PACKAGE_VERSION,
		"command line: dnncc models/test.onnx -o out/net.c",
		"model file:   models/test.onnx",
		"producer:     test_emit 1.0",
		"strategy:     reference",
		"costs:        built-in cost model",
		"weights:      c-array",
		"#include \"net.h\"",
		"#define RT_FN static",
		"struct rt_conv2d {",
		"RT_FN void rt_conv2d_ref(",
		"RT_FN void rt_act_vec(", /* Relu: the vectorised kernel */
		"static const float net_weights[",
		"static float net_arena[",
		"const size_t net_input_sizes[] = {32};",
		"static void l0_conv1_relu(",
		"static void l1_conv1_relu(",
		"static void l2_relu(",
		"int net_run(const float *const inputs[], float *const outputs[])",
	};
	const char *at = c;
	for (size_t i = 0; i < sizeof order / sizeof order[0]; i++) {
		const char *s = strstr(at, order[i]);
		cr_expect(s, "net.c lacks \"%s\" after the previous item", order[i]);
		if (s)
			at = s;
	}
	cr_expect_eq(count_substr(c, "RT_FN void rt_conv2d_ref("), 1, "conv_ref.c copied once");
	cr_expect_eq(count_substr(c, "static inline float rt_act_apply("), 1,
	             "rt_act_apply is kept: conv_ref.c calls it");
	cr_expect_eq(count_substr(c, "#include \"runtime/"), 0, "runtime includes are removed");
	cr_expect(!strstr(c, "rt_gemm_ref") && !strstr(c, "rt_softmax"), "unused units copied");
	cr_expect(!strstr(c, "?\?/") && !strstr(c, "conv1:relu */") && strstr(c, "conv1:relu * /"),
	          "a node name broke a comment");
	cr_expect(strstr(c, "t_a_b =") && strstr(c, "t_a_b_2 =") && strstr(c, "t_x_0 ="),
	          "tensor names made unique C identifiers");
	free(c);
	free_all(in, 1);
	free_all(want, 1);
	free_all(outs, 1);
	remove_dir(dir);
	ir_graph_free(g);
}

/* NAME_init ends with a warm-up call (NAME_warm_up: zero inputs, scratch
 * outputs from calloc) unless the file is built with -DNAME_NO_WARM_UP;
 * --target cortex-m (no heap to borrow from) and --instrument (the call
 * would be counted) leave it out. A program that calls NAME_init computes
 * the same outputs with and without the warm-up, and as one that does not
 * call it (NAME_run then starts the model itself). */
Test(emit_files, warm_up_in_init)
{
	const char *targets[3] = {NULL, "cortex-m", NULL};
	for (int v = 0; v < 3; v++) {
		struct tensor *w0, *b, *k;
		struct graph *g = views_graph(&w0, &b, &k);
		char dir[64], out[256], path[256];
		struct diag d;
		make_dir(dir);
		snprintf(out, sizeof out, "%s/net.c", dir);
		struct options opt = {0};
		opt.model = g->source;
		opt.output = out;
		opt.name = "net";
		opt.command_line = "dnncc models/test.onnx -o out/net.c";
		opt.weights = WEIGHTS_CARRAY;
		opt.target = targets[v];
		opt.instrument = v == 2;
		diag_init(&d, g->source, stderr);
		cr_assert_eq(emit_c(g, &opt, &d), 0);
		char *c = read_file(out, NULL);
		snprintf(path, sizeof path, "%s/net.h", dir);
		char *h = read_file(path, NULL);
		cr_assert(c && h);
		int in_c = strstr(c, "static void net_warm_up(void)") && strstr(c, "net_warm_up();") &&
		           strstr(c, "#ifndef NET_NO_WARM_UP") && strstr(c, "#include <stdlib.h>");
		int in_h = strstr(h, "-DNET_NO_WARM_UP") != NULL;
		cr_expect_eq(in_c, v == 0, "variant %d: net.c %s the warm-up call", v,
		             v == 0 ? "lacks" : "has");
		cr_expect_eq(in_h, v == 0, "variant %d: net.h %s the warm-up", v,
		             v == 0 ? "does not document" : "documents");
		cr_expect(v == 0 || !strstr(c, "calloc"), "variant %d: net.c borrows heap memory", v);
		/* a model of a few bytes stays in the caches: three warm-up calls */
		cr_expect(v != 0 || (strstr(c, "ok && i < 3; i++)") && strstr(h, "3 times")),
		          "net.c does not warm a cache-sized model up three times");
		free(c);
		free(h);
		if (v == 0) {
			float *in[1];
			make_inputs(g, in);
			write_inputs(dir, g, in);
			write_driver(dir, "net", "net", 0);
			/* the driver with a NAME_init call before its NAME_run: -DCALL_INIT */
			int rc = sh("cd '%s' && cc " CFLAGS " -O2 driver.c net.c -lm -o prog >log.txt 2>&1"
			            " && cc " CFLAGS " -O2 -DCALL_INIT driver.c net.c -lm -o prog_warm"
			            " >>log.txt 2>&1 && cc " CFLAGS " -O2 -DCALL_INIT -DNET_NO_WARM_UP driver.c"
			            " net.c -lm -o prog_cold >>log.txt 2>&1 && ./prog in.bin out.bin"
			            " && ./prog_warm in.bin out_warm.bin && ./prog_cold in.bin out_cold.bin"
			            " && cmp out.bin out_warm.bin && cmp out.bin out_cold.bin",
			            dir);
			if (rc) {
				snprintf(path, sizeof path, "%s/log.txt", dir);
				char *log = read_file(path, NULL);
				cr_expect_fail("warm-up builds (status %d):\n%s", rc, log ? log : "");
				free(log);
			}
			free_all(in, 1);
		}
		remove_dir(dir);
		ir_graph_free(g);
	}
}

/* A model whose arena outgrows the caches (an 18 MiB activation between two
 * Relus) is warmed up by one call, not three: its data streams from memory
 * on every call anyway. */
Test(emit_files, warm_up_once_when_large)
{
	struct graph *g = new_graph();
	struct tensor *x = input(g, "x", SHAPE(1, 4718592));
	struct tensor *r = act(g, "r", SHAPE(1, 4718592)), *y = act(g, "y", SHAPE(1, 4718592));
	node(g, OP_RELU, "relu0", INS(x), r);
	node(g, OP_RELU, "relu1", INS(r), y);
	output(g, y);
	plan_by_hand(g);
	cr_assert_gt(g->arena_size, (size_t)16 << 20);
	char dir[64], path[256];
	struct diag d;
	make_dir(dir);
	cr_assert_eq(emit(g, dir, "net", "net", WEIGHTS_CARRAY, &d), 0);
	snprintf(path, sizeof path, "%s/net.c", dir);
	char *c = read_file(path, NULL);
	snprintf(path, sizeof path, "%s/net.h", dir);
	char *h = read_file(path, NULL);
	cr_assert(c && h);
	cr_expect(strstr(c, "ok && i < 1; i++)") && strstr(h, "runs the model once"),
	          "net.c does not warm an 18 MiB model up once");
	free(c);
	free(h);
	remove_dir(dir);
	ir_graph_free(g);
}

Test(emit_files, deterministic)
{
	char dirs[2][64];
	char *texts[2][3];
	for (int r = 0; r < 2; r++) {
		struct tensor *w0, *b, *k;
		struct graph *g = views_graph(&w0, &b, &k);
		struct diag d;
		make_dir(dirs[r]);
		cr_assert_eq(emit(g, dirs[r], "net", "net", WEIGHTS_EMBED, &d), 0);
		const char *files[3] = {"net.c", "net.h", "net.weights.bin"};
		for (int i = 0; i < 3; i++) {
			char path[256];
			snprintf(path, sizeof path, "%s/%s", dirs[r], files[i]);
			texts[r][i] = read_file(path, NULL);
			cr_assert(texts[r][i]);
		}
		ir_graph_free(g);
	}
	for (int i = 0; i < 3; i++) {
		cr_expect_str_eq(texts[0][i], texts[1][i], "file %d differs between two runs", i);
		free(texts[0][i]);
		free(texts[1][i]);
	}
	remove_dir(dirs[0]);
	remove_dir(dirs[1]);
}

/* -o out/3d-net.c: files 3d-net.c and 3d-net.h, symbols m_3d_net_* (the NAME
 * rule of DESIGN.md §2 applies when no --name is given). */
Test(emit_files, name_rule)
{
	struct tensor *w0, *b, *k;
	struct graph *g = views_graph(&w0, &b, &k);
	float *in[1], *outs[8];
	make_inputs(g, in);
	char dir[64], path[256];
	run_model(g, WEIGHTS_EMBED, "3d-net", "m_3d_net", in, outs, dir);
	snprintf(path, sizeof path, "%s/3d-net.weights.bin", dir);
	cr_expect(file_exists(path));
	free_all(outs, 5);
	remove_dir(dir);

	struct diag d;
	make_dir(dir);
	cr_assert_eq(emit(g, dir, "3d-net", NULL, WEIGHTS_CARRAY, &d), 0);
	snprintf(path, sizeof path, "%s/3d-net.h", dir);
	char *h = read_file(path, NULL);
	cr_assert(h);
	cr_expect(strstr(h, "int m_3d_net_run(") && strstr(h, "#define M_3D_NET_NUM_INPUTS 1"),
	          "NAME from the file name is m_3d_net");
	free(h);
	free_all(in, 1);
	remove_dir(dir);
	ir_graph_free(g);
}

/* ---- other compilers ----------------------------------------------------------- */

/* Every op kind in one model, for compilers we only compile with. */
static struct graph *all_ops_graph(void)
{
	struct graph *g = new_graph();
	struct tensor *x = input(g, "x", SHAPE(1, 3, 8, 8));
	struct tensor *w = weight(g, "w", 1, SHAPE(4, 3, 3, 3));
	struct tensor *c = act(g, "c", SHAPE(1, 4, 8, 8));
	struct node *n = node(g, OP_CONV, "conv", INS(x, w), c);
	A_INTS(g, n, "kernel_shape", 3, 3);
	A_INTS(g, n, "strides", 1, 1);
	A_INTS(g, n, "dilations", 1, 1);
	A_INTS(g, n, "pads", 1, 1, 1, 1);
	a_int(g, n, "group", 1);
	n->act = ACT_CLIP;
	n->act_alpha = -INFINITY;
	n->act_beta = 6.0f;
	struct tensor *m = act(g, "m", SHAPE(1, 4, 4, 4));
	n = node(g, OP_MAXPOOL, "maxpool", INS(c), m);
	A_INTS(g, n, "kernel_shape", 2, 2);
	A_INTS(g, n, "strides", 2, 2);
	A_INTS(g, n, "dilations", 1, 1);
	A_INTS(g, n, "pads", 0, 0, 0, 0);
	struct tensor *av = act(g, "av", SHAPE(1, 4, 4, 4));
	n = node(g, OP_AVGPOOL, "avgpool", INS(m), av);
	A_INTS(g, n, "kernel_shape", 3, 3);
	A_INTS(g, n, "strides", 1, 1);
	A_INTS(g, n, "dilations", 1, 1);
	A_INTS(g, n, "pads", 1, 1, 1, 1);
	a_int(g, n, "count_include_pad", 0);
	struct tensor *l = act(g, "l", SHAPE(1, 4, 4, 4));
	n = node(g, OP_LRN, "lrn", INS(av), l);
	a_float(g, n, "alpha", 1e-4);
	a_float(g, n, "beta", 0.75);
	a_float(g, n, "bias", 1.0);
	a_int(g, n, "size", 3);
	struct tensor *cat = act(g, "cat", SHAPE(1, 8, 4, 4));
	n = node(g, OP_CONCAT, "concat", INS(l, m), cat);
	a_int(g, n, "axis", 1);
	struct tensor *t = act(g, "t", SHAPE(1, 4, 4, 8));
	n = node(g, OP_TRANSPOSE, "transpose", INS(cat), t);
	A_INTS(g, n, "perm", 0, 2, 3, 1);
	struct tensor *pd = act(g, "pd", SHAPE(1, 4, 5, 8));
	n = node(g, OP_PAD, "pad", INS(t), pd);
	A_INTS(g, n, "pads", 0, 0, 1, 0, 0, 0, 0, 0);
	a_float(g, n, "value", 0.0);
	struct tensor *gp = act(g, "gp", SHAPE(1, 4, 1, 1));
	node(g, OP_GLOBAL_AVGPOOL, "gap", INS(pd), gp);
	struct tensor *gm = act(g, "gm", SHAPE(1, 4, 1, 1));
	node(g, OP_GLOBAL_MAXPOOL, "gmp", INS(pd), gm);
	struct tensor *s = act(g, "s", SHAPE(1, 4, 1, 1));
	node(g, OP_ADD, "add", INS(gp, gm), s);
	struct tensor *f = act(g, "f", SHAPE(1, 4));
	node(g, OP_FLATTEN, "flatten", INS(s), f);
	struct tensor *fw = weight(g, "fw", 2, SHAPE(4, 6));
	struct tensor *mm = act(g, "mm", SHAPE(1, 6));
	node(g, OP_MATMUL, "matmul", INS(f, fw), mm);
	struct tensor *gw = weight(g, "gw", 3, SHAPE(6, 5));
	struct tensor *gb = weight(g, "gb", 4, SHAPE(5));
	struct tensor *ge = act(g, "ge", SHAPE(1, 5));
	n = node(g, OP_GEMM, "gemm", INS(mm, gw, gb), ge);
	n->act = ACT_TANH;
	struct tensor *sm = act(g, "sm", SHAPE(1, 5));
	n = node(g, OP_SOFTMAX, "softmax", INS(ge), sm);
	a_int(g, n, "axis", 1);
	struct tensor *sg = act(g, "sg", SHAPE(1, 5));
	node(g, OP_SIGMOID, "sigmoid", INS(sm), sg);
	output(g, sg);
	plan_by_hand(g);
	return g;
}

static struct graph *views_graph_only(void)
{
	struct tensor *w0, *b, *k;
	return views_graph(&w0, &b, &k);
}

/* No nodes and no weights: an input passed straight to the output. */
static struct graph *passthrough_graph(void)
{
	struct graph *g = new_graph();
	output(g, input(g, "x", SHAPE(2, 2)));
	return g;
}

/* Units that do not call rt_act_apply (rt_types.h's inline helper). */
static struct graph *pool_softmax_graph(void)
{
	struct graph *g = new_graph();
	struct tensor *x = input(g, "x", SHAPE(1, 2, 4, 4));
	struct tensor *m = act(g, "m", SHAPE(1, 2, 2, 2));
	struct node *n = node(g, OP_MAXPOOL, "pool", INS(x), m);
	A_INTS(g, n, "kernel_shape", 2, 2);
	A_INTS(g, n, "strides", 2, 2);
	struct tensor *y = act(g, "y", SHAPE(1, 2, 2, 2));
	n = node(g, OP_SOFTMAX, "softmax", INS(m), y);
	a_int(g, n, "axis", 1);
	output(g, y);
	plan_by_hand(g);
	return g;
}

/* Compiles the all-ops, views (special float values, every kind of output),
 * pass-through and pool+softmax models in every weights mode with tool,
 * warnings as errors. */
static void compile_with(const char *tool, const char *flags)
{
	if (!have(tool))
		cr_skip_test("%s is not installed", tool);
	struct graph *(*const builders[4])(void) = {all_ops_graph, views_graph_only,
	                                             passthrough_graph, pool_softmax_graph};
	enum weights_mode modes[3] = {WEIGHTS_CARRAY, WEIGHTS_EMBED, WEIGHTS_FILE};
	for (int k = 0; k < 4; k++) {
		for (int i = 0; i < 3; i++) {
			struct graph *g = builders[k]();
			char dir[64];
			struct diag d;
			make_dir(dir);
			cr_assert_eq(emit(g, dir, "net", "net", modes[i], &d), 0);
			int rc = sh("cd '%s' && %s %s -c net.c -o net.o >log.txt 2>&1", dir, tool, flags);
			if (rc) {
				char path[256];
				snprintf(path, sizeof path, "%s/log.txt", dir);
				char *log = read_file(path, NULL);
				cr_expect_fail("%s (model %d, weights mode %d) failed:\n%s", tool, k, modes[i],
				               log);
				free(log);
			}
			remove_dir(dir);
			ir_graph_free(g);
		}
	}
}

Test(emit_compilers, gcc_O2)
{
	compile_with("cc", CFLAGS " -O2");
}

Test(emit_compilers, clang)
{
	compile_with("clang", CFLAGS " -O2");
}

Test(emit_compilers, arm_none_eabi_gcc)
{
	compile_with("arm-none-eabi-gcc", "-mcpu=cortex-m4 -mthumb " CFLAGS " -O2");
}

/* The all-ops model also runs, against the runtime library step by step. */
static void check_all_ops(int real_planner)
{
	struct graph *g = all_ops_graph();
	if (real_planner)
		plan_for_real(g);
	float *in[1];
	make_inputs(g, in);
	float c[256], m[64], av[64], l[64], cat[128], t[128], pd[160], gp[4], gm[4], s[4], mm[6],
		ge[5], sm[5], want[5];
	struct rt_conv2d pc = {.N = 1, .C = 3, .H = 8, .W = 8, .M = 4, .oH = 8, .oW = 8, .kH = 3,
	                       .kW = 3, .sH = 1, .sW = 1, .dH = 1, .dW = 1, .padT = 1, .padL = 1,
	                       .group = 1, .act = RT_ACT_CLIP, .alpha = -INFINITY, .beta = 6.0f};
	rt_conv2d_ref(&pc, in[0], fdata(g->tensors[1]), NULL, c);
	struct rt_pool2d pm = {.N = 1, .C = 4, .H = 8, .W = 8, .oH = 4, .oW = 4, .kH = 2, .kW = 2,
	                       .sH = 2, .sW = 2, .dH = 1, .dW = 1};
	rt_maxpool2d(&pm, c, m);
	struct rt_pool2d pa = {.N = 1, .C = 4, .H = 4, .W = 4, .oH = 4, .oW = 4, .kH = 3, .kW = 3,
	                       .sH = 1, .sW = 1, .dH = 1, .dW = 1, .padT = 1, .padL = 1, .padB = 1,
	                       .padR = 1};
	rt_avgpool2d(&pa, m, av);
	rt_lrn(1, 4, 16, 3, 1e-4f, 0.75f, 1.0f, av, l);
	memcpy(cat, l, sizeof l);
	memcpy(cat + 64, m, sizeof m);
	for (int h = 0; h < 4; h++)
		for (int w = 0; w < 4; w++)
			for (int k = 0; k < 8; k++)
				t[(h * 4 + w) * 8 + k] = cat[(k * 4 + h) * 4 + w];
	for (int k = 0; k < 160; k++)
		pd[k] = 0;
	for (int ch = 0; ch < 4; ch++)
		for (int w = 0; w < 4; w++)
			for (int k = 0; k < 8; k++)
				pd[(ch * 5 + w + 1) * 8 + k] = t[(ch * 4 + w) * 8 + k];
	rt_global_avgpool(4, 40, pd, gp);
	rt_global_maxpool(4, 40, pd, gm);
	for (int k = 0; k < 4; k++)
		s[k] = gp[k] + gm[k];
	float *fw = NULL, *gw = NULL, *gb = NULL;
	for (int i = 0; i < g->n_tensors; i++) {
		if (!strcmp(g->tensors[i]->name, "fw"))
			fw = fdata(g->tensors[i]);
		if (!strcmp(g->tensors[i]->name, "gw"))
			gw = fdata(g->tensors[i]);
		if (!strcmp(g->tensors[i]->name, "gb"))
			gb = fdata(g->tensors[i]);
	}
	for (int j = 0; j < 6; j++) {
		float acc = 0;
		for (int k = 0; k < 4; k++)
			acc += s[k] * fw[k * 6 + j];
		mm[j] = acc;
	}
	struct rt_gemm pg = {.M = 1, .N = 5, .K = 6, .alpha = 1, .beta = 1, .c_sn = 1,
	                     .act = RT_ACT_TANH};
	rt_gemm_ref(&pg, mm, gw, gb, ge);
	rt_softmax(1, 5, 1, 0, ge, sm);
	rt_unary(RT_ACT_SIGMOID, 0, 0, 5, sm, want);
	float *wants[1] = {want};
	check_model(g, WEIGHTS_EMBED, in, wants, 1e-5);
	free_all(in, 1);
	ir_graph_free(g);
}

Test(emit_compilers, all_ops_runs)
{
	check_all_ops(0);
}

Test(emit_planned, all_ops_runs)
{
	check_all_ops(1);
}

/* ---- failures leave nothing behind ------------------------------------------- */

Test(emit_fail, missing_directory)
{
	struct tensor *w0, *b, *k;
	struct graph *g = views_graph(&w0, &b, &k);
	char dir[64], sub[128];
	struct diag d;
	make_dir(dir);
	snprintf(sub, sizeof sub, "%s/no/such/dir", dir);
	FILE *saved = stderr;
	stderr = fopen("/dev/null", "w");
	int rc = emit(g, sub, "net", "net", WEIGHTS_EMBED, &d);
	fclose(stderr);
	stderr = saved;
	cr_expect_neq(rc, 0, "emit_c succeeded without a directory");
	cr_expect_gt(d.errors, 0, "no error reported");
	cr_expect_eq(count_entries(dir), 0, "files left behind");
	remove_dir(dir);
	ir_graph_free(g);
}

/* A graph the emitter refuses leaves earlier outputs as they were. */
Test(emit_fail, refused_graph_keeps_old_files)
{
	struct graph *g = new_graph();
	struct tensor *x = input(g, "x", SHAPE(1, 2, 3, 3, 3));
	struct tensor *w = weight(g, "w", 1, SHAPE(2, 2, 1, 1, 1));
	struct tensor *y = act(g, "y", SHAPE(1, 2, 3, 3, 3));
	struct node *n = node(g, OP_CONV, "conv3d", INS(x, w), y);
	A_INTS(g, n, "kernel_shape", 1, 1, 1);
	output(g, y);
	/* and an op that is not canonical */
	struct tensor *z = act(g, "z", SHAPE(1, 2, 3, 3, 3));
	node(g, OP_IDENTITY, "id", INS(x), z);
	output(g, z);
	plan_by_hand(g);
	char dir[64], path[256];
	make_dir(dir);
	snprintf(path, sizeof path, "%s/net.c", dir);
	FILE *f = fopen(path, "w");
	fputs("old", f);
	fclose(f);
	struct diag d;
	char *msg = NULL;
	size_t len = 0;
	FILE *saved = stderr;
	stderr = open_memstream(&msg, &len);
	int rc = emit(g, dir, "net", "net", WEIGHTS_AUTO, &d);
	fclose(stderr);
	stderr = saved;
	cr_expect_neq(rc, 0);
	cr_expect_eq(d.errors, 2, "both problems reported: %s", msg);
	cr_expect(strstr(msg, "node 'conv3d' (Conv)") && strstr(msg, "node 'id' (Identity)"),
	          "messages name the nodes: %s", msg);
	char *old = read_file(path, NULL);
	cr_expect_str_eq(old, "old");
	cr_expect_eq(count_entries(dir), 1, "files left behind");
	free(old);
	free(msg);
	remove_dir(dir);
	ir_graph_free(g);
}

/* A write that fails (here: the file size limit, as on a full disk) is
 * reported and removes every temporary. */
Test(emit_fail, write_error)
{
	struct graph *g = new_graph();
	struct tensor *a = input(g, "a", SHAPE(1, 256));
	struct tensor *b = weight(g, "B", 9, SHAPE(256, 256));
	struct tensor *y = act(g, "y", SHAPE(1, 256));
	node(g, OP_GEMM, "fc", INS(a, b), y);
	output(g, y);
	plan_by_hand(g);
	char dir[64];
	make_dir(dir);
	enum weights_mode modes[2] = {WEIGHTS_CARRAY, WEIGHTS_EMBED};
	for (int i = 0; i < 2; i++) {
		pid_t pid = fork();
		cr_assert_neq(pid, -1);
		if (pid == 0) {
			struct rlimit lim = {64 * 1024, 64 * 1024};
			signal(SIGXFSZ, SIG_IGN);
			setrlimit(RLIMIT_FSIZE, &lim);
			if (!freopen("/dev/null", "w", stderr))
				_exit(2);
			struct diag d;
			int rc = emit(g, dir, "net", "net", modes[i], &d);
			_exit(rc != 0 && d.errors > 0 ? 0 : 1);
		}
		int st;
		waitpid(pid, &st, 0);
		cr_expect(WIFEXITED(st) && WEXITSTATUS(st) == 0, "mode %d: the write error went unnoticed",
		          modes[i]);
		cr_expect_eq(count_entries(dir), 0, "mode %d: files left behind", modes[i]);
	}
	remove_dir(dir);
	ir_graph_free(g);
}

/* ---- operands read at run time ----------------------------------------------- */

/* Clip whose bounds and BatchNormalization whose statistics are graph inputs
 * (the canonical form keeps them as inputs: rt_clip, rt_batchnorm), checked
 * against plain loops. Clip: both bounds inputs; min an attribute and max an
 * input (input 1 NULL); min an input and max absent. BatchNormalization on
 * [2, 3, 2, 2] with scale and mean inputs, B and var constants, and on
 * [2, 3] with all four statistics inputs. */
static void check_runtime_operands(int real_planner)
{
	struct graph *g = new_graph();
	struct tensor *x = input(g, "x", SHAPE(2, 3, 4));
	struct tensor *lo = input(g, "lo", SCALAR);
	struct tensor *hi = input(g, "hi", SCALAR);
	struct tensor *xb = input(g, "xb", SHAPE(2, 3, 2, 2));
	struct tensor *scale = input(g, "scale", SHAPE(3));
	struct tensor *mean = input(g, "mean", SHAPE(3));
	struct tensor *x2 = input(g, "x2", SHAPE(2, 3));
	struct tensor *st[4] = {input(g, "s2", SHAPE(3)), input(g, "b2", SHAPE(3)),
	                        input(g, "m2", SHAPE(3)), input(g, "v2", SHAPE(3))};
	struct tensor *bias = weight(g, "bias", 11, SHAPE(3));
	struct tensor *var = weight(g, "var", 12, SHAPE(3));
	for (int c = 0; c < 3; c++)
		fdata(var)[c] = 0.25f + fabsf(fdata(var)[c]);
	struct tensor *y[5] = {act(g, "y0", SHAPE(2, 3, 4)), act(g, "y1", SHAPE(2, 3, 4)),
	                       act(g, "y2", SHAPE(2, 3, 4)), act(g, "y3", SHAPE(2, 3, 2, 2)),
	                       act(g, "y4", SHAPE(2, 3))};
	struct node *n = node(g, OP_CLIP, "clip_both", INS(x, lo, hi), y[0]);
	a_float(g, n, "min", -FLT_MAX);
	a_float(g, n, "max", FLT_MAX);
	n = node(g, OP_CLIP, "clip_max", INS(x, NULL, hi), y[1]);
	a_float(g, n, "min", -0.25);
	a_float(g, n, "max", FLT_MAX);
	n = node(g, OP_CLIP, "clip_min", INS(x, lo), y[2]);
	a_float(g, n, "min", -FLT_MAX);
	a_float(g, n, "max", FLT_MAX);
	n = node(g, OP_BATCHNORM, "bn4", INS(xb, scale, bias, mean, var), y[3]);
	a_float(g, n, "epsilon", 1e-3);
	n = node(g, OP_BATCHNORM, "bn2", INS(x2, st[0], st[1], st[2], st[3]), y[4]);
	a_float(g, n, "epsilon", 1e-5);
	for (int i = 0; i < 5; i++)
		output(g, y[i]);
	plan_by_hand(g);
	if (real_planner)
		plan_for_real(g);

	float *in[11], *want[5];
	make_inputs(g, in);
	in[1][0] = -0.3f; /* lo */
	in[2][0] = 0.4f;  /* hi */
	for (int c = 0; c < 3; c++)
		in[10][c] = 0.5f + fabsf(in[10][c]); /* v2 */
	for (int i = 0; i < 5; i++)
		want[i] = alloc_out(y[i]);
	for (int k = 0; k < 24; k++) {
		float v = in[0][k];
		want[0][k] = v < -0.3f ? -0.3f : v > 0.4f ? 0.4f : v;
		want[1][k] = v < -0.25f ? -0.25f : v > 0.4f ? 0.4f : v;
		want[2][k] = v < -0.3f ? -0.3f : v;
	}
	for (int b = 0; b < 2; b++)
		for (int c = 0; c < 3; c++) {
			double sd = sqrt((double)fdata(var)[c] + 1e-3);
			for (int k = 0; k < 4; k++) {
				int o = (b * 3 + c) * 4 + k;
				want[3][o] = (float)((in[3][o] - (double)in[5][c]) / sd * in[4][c] +
				                     fdata(bias)[c]);
			}
			int o = b * 3 + c;
			want[4][o] = (float)((in[6][o] - (double)in[9][c]) / sqrt(in[10][c] + 1e-5) *
			                     in[7][c] + in[8][c]);
		}
	check_model_free(g, WEIGHTS_CARRAY, in, 11, want, 5, 1e-5);
}

Test(emit_ops, clip_and_batchnorm_runtime_operands)
{
	check_runtime_operands(0);
}

Test(emit_planned, clip_and_batchnorm_runtime_operands)
{
	check_runtime_operands(1);
}

/* Elementwise math that no ONNX node test in Debian's test data covers
 * (Gelu both ways, Mish) and a reduction and a normalisation, compiled and
 * run: the generated call passes the function and its parameters. */
Test(emit_ops, math_reduce_normalize)
{
	struct graph *g = new_graph();
	struct tensor *x = input(g, "x", SHAPE(2, 3, 4));
	struct tensor *ys[5];
	for (int i = 0; i < 5; i++) {
		char nm[16];
		snprintf(nm, sizeof nm, "y%d", i);
		ys[i] = act(g, nm, i == 3 ? 2 : 3, i == 3 ? (int64_t[]){2, 4} : (int64_t[]){2, 3, 4});
	}
	node(g, OP_GELU, NULL, INS(x), ys[0]);
	struct node *gt = node(g, OP_GELU, NULL, INS(x), ys[1]);
	struct attr *a = ir_add_attr(g, gt, "approximate", ATTR_STRING);
	a->s = arena_strdup(&g->arena, "tanh");
	node(g, OP_MISH, NULL, INS(x), ys[2]);
	struct node *r = node(g, OP_REDUCE_LOG_SUM_EXP, NULL, INS(x), ys[3]);
	a_ints(g, r, "axes", 1, (const int64_t[]){1});
	a_int(g, r, "keepdims", 0);
	struct node *mvn = node(g, OP_MVN, NULL, INS(x), ys[4]);
	a_ints(g, mvn, "axes", 2, (const int64_t[]){0, 2});
	a_float(g, mvn, "epsilon", 1e-9);
	for (int i = 0; i < 5; i++)
		output(g, ys[i]);
	plan_by_hand(g);

	float *in[1], *want[5];
	make_inputs(g, in);
	for (int i = 0; i < 5; i++)
		want[i] = alloc_out(ys[i]);
	const float *v = in[0]; /* [2, 3, 4] */
	for (int k = 0; k < 24; k++) {
		double t = v[k];
		want[0][k] = (float)(0.5 * t * (1 + erf(t / sqrt(2.0))));
		want[1][k] = (float)(0.5 * t * (1 + tanh(sqrt(2.0 / 3.14159265358979323846) * (t + 0.044715 * t * t * t))));
		want[2][k] = (float)(t * tanh(log(1 + exp(t))));
	}
	for (int n = 0; n < 2; n++)
		for (int w = 0; w < 4; w++) {
			double s = 0;
			for (int c = 0; c < 3; c++)
				s += exp(v[(n * 3 + c) * 4 + w]);
			want[3][n * 4 + w] = (float)log(s);
		}
	for (int c = 0; c < 3; c++) {
		double s = 0, q = 0;
		for (int n = 0; n < 2; n++)
			for (int w = 0; w < 4; w++)
				s += v[(n * 3 + c) * 4 + w];
		s /= 8;
		for (int n = 0; n < 2; n++)
			for (int w = 0; w < 4; w++)
				q += (v[(n * 3 + c) * 4 + w] - s) * (v[(n * 3 + c) * 4 + w] - s);
		q = sqrt(q / 8) + 1e-9;
		for (int n = 0; n < 2; n++)
			for (int w = 0; w < 4; w++)
				want[4][(n * 3 + c) * 4 + w] = (float)((v[(n * 3 + c) * 4 + w] - s) / q);
	}
	check_model_free(g, WEIGHTS_CARRAY, in, 1, want, 5, 1e-5);
}

/* ---- --instrument ------------------------------------------------------------- */

/* Every model of compile_with, instrumented, builds warning-free with cc and
 * clang; the header declares the profile functions (and includes <stdio.h>
 * for FILE) only then. The pass-through model has no layer: an empty
 * profile. */
Test(emit_instrument, every_model_compiles)
{
	struct graph *(*const builders[4])(void) = {all_ops_graph, views_graph_only,
	                                             passthrough_graph, pool_softmax_graph};
	const char *tools[2] = {"cc", "clang"};
	for (int k = 0; k < 4; k++) {
		struct graph *g = builders[k]();
		char dir[64], path[256];
		struct diag d;
		make_dir(dir);
		cr_assert_eq(emit_with(g, dir, "net", "net", WEIGHTS_CARRAY, 1, &d), 0);
		snprintf(path, sizeof path, "%s/net.h", dir);
		char *h = read_file(path, NULL);
		cr_expect(strstr(h, "#include <stdio.h>") && strstr(h, "void net_profile_print(FILE *out);") &&
		          strstr(h, "void net_profile_reset(void);") &&
		          strstr(h, "size_t net_profile_count(void);") &&
		          strstr(h, "int net_profile_entry(size_t i, const char **node,"),
		          "model %d: the header lacks the profile functions", k);
		free(h);
		for (int t = 0; t < 2; t++) {
			if (!have(tools[t]))
				continue;
			int rc = sh("cd '%s' && %s " CFLAGS " -O2 -c net.c -o net.o >log.txt 2>&1", dir,
			            tools[t]);
			if (rc) {
				snprintf(path, sizeof path, "%s/log.txt", dir);
				char *log = read_file(path, NULL);
				cr_expect_fail("%s (model %d) failed:\n%s", tools[t], k, log);
				free(log);
			}
		}
		remove_dir(dir);
		ir_graph_free(g);
	}
}

/* Node names go into string literals: quotes, backslashes, trigraph-like
 * "??=" and non-ASCII bytes come back unchanged from NAME_profile_entry, and
 * a copied view has its own row. */
Test(emit_instrument, names_rows_and_calls)
{
	static const char odd[] = "q\"\\?\?=\303\251";
	struct graph *g = new_graph();
	struct tensor *x = input(g, "x", SHAPE(2, 3));
	struct tensor *r = act(g, "r", SHAPE(2, 3));
	struct tensor *f = act(g, "f", SHAPE(6));
	struct tensor *y = act(g, "y", SHAPE(6));
	node(g, OP_RELU, odd, INS(x), r);
	node(g, OP_FLATTEN, "flat", INS(r), f);
	node(g, OP_SIGMOID, "sig", INS(f), y);
	output(g, y);
	plan_by_hand(g);
	f->alias = NULL;
	f->offset = g->arena_size;
	g->arena_size += 64;
	char dir[64], path[256];
	struct diag d;
	make_dir(dir);
	cr_assert_eq(emit_with(g, dir, "net", "net", WEIGHTS_CARRAY, 1, &d), 0);
	snprintf(path, sizeof path, "%s/driver.c", dir);
	FILE *o = fopen(path, "w");
	cr_assert(o);
	fputs("#include <string.h>\n#include \"net.h\"\n"
	      "int main(void)\n{\n"
	      "\tstatic const float in[6] = {-1, 2, -3, 4, -5, 6};\n"
	      "\tfloat out[6];\n\tconst float *ins[1] = {in};\n\tfloat *outs[1] = {out};\n"
	      "\tconst char *node, *op, *prim;\n\tunsigned long calls;\n\tdouble pred, total;\n"
	      "\tint i;\n"
	      "\tfor (i = 0; i < 3; i++)\n\t\tif (net_run(ins, outs) != 0)\n\t\t\treturn 10;\n"
	      "\tif (net_profile_count() != 3)\n\t\treturn 11;\n"
	      "\tif (net_profile_entry(0, &node, &op, &prim, &pred, &calls, &total) != 0 ||\n"
	      "\t    strcmp(node, \"q\\\"\\\\\\?\\?=\\303\\251\") != 0 ||\n"
	      "\t    strcmp(op, \"Relu\") != 0 || calls != 3 || total < 0 || pred != 0)\n"
	      "\t\treturn 12;\n"
	      "\tif (net_profile_entry(1, &node, &op, &prim, NULL, &calls, NULL) != 0 ||\n"
	      "\t    strcmp(node, \"flat\") != 0 || strcmp(prim, \"copy\") != 0 || calls != 3)\n"
	      "\t\treturn 13;\n"
	      "\tif (net_profile_entry(2, &node, NULL, NULL, NULL, &calls, NULL) != 0 ||\n"
	      "\t    strcmp(node, \"sig\") != 0 || calls != 3)\n"
	      "\t\treturn 14;\n"
	      "\tif (net_profile_entry(3, &node, NULL, NULL, NULL, NULL, NULL) != -1)\n"
	      "\t\treturn 15;\n"
	      "\tnet_profile_print(stdout);\n"
	      "\treturn 0;\n}\n",
	      o);
	cr_assert_eq(fclose(o), 0);
	compile(dir, "net", "");
	int rc = sh("cd '%s' && ./prog >profile.txt", dir);
	cr_expect_eq(rc, 0, "the driver's check %d failed (see %s)", rc, dir);
	snprintf(path, sizeof path, "%s/profile.txt", dir);
	char *text = read_file(path, NULL);
	cr_assert(text);
	cr_expect_eq(count_substr(text, "\n"), 5, "header, 3 rows and the total:\n%s", text);
	cr_expect(strstr(text, "total per run") && strstr(text, "copy"), "%s", text);
	free(text);
	remove_dir(dir);
	ir_graph_free(g);
}

/* Slice in canonical form (full-rank starts and steps), reversed on one axis
 * and strided on another, compiled and run: the generated rt_transpose
 * starts at x's element starts and walks x with the signed strides. */
Test(emit_ops, slice_negative_and_positive_steps)
{
	struct graph *g = new_graph();
	struct tensor *x = input(g, "x", SHAPE(3, 4, 5));
	struct tensor *y = act(g, "y", SHAPE(2, 4, 2));
	struct node *s = node(g, OP_SLICE, NULL, INS(x), y);
	a_ints(g, s, "starts", 3, (const int64_t[]){2, 0, 1});
	a_ints(g, s, "steps", 3, (const int64_t[]){-1, 1, 3});
	output(g, y);
	plan_by_hand(g);

	float *in[1], *want[1];
	make_inputs(g, in);
	want[0] = alloc_out(y);
	for (int i = 0; i < 2; i++)
		for (int j = 0; j < 4; j++)
			for (int k = 0; k < 2; k++)
				want[0][(i * 4 + j) * 2 + k] = in[0][((2 - i) * 4 + j) * 5 + 1 + 3 * k];
	check_model_free(g, WEIGHTS_CARRAY, in, 1, want, 1, 0.0);
}

/* Expand (a broadcast dim and a new leading dim) and Tile (repeats on a
 * middle and the last dim, one of 1), compiled and run: both are
 * rt_transpose reading x with stride 0 where values repeat. */
Test(emit_ops, expand_and_tile)
{
	struct graph *g = new_graph();
	struct tensor *x = input(g, "x", SHAPE(3, 1, 2));
	struct tensor *ye = act(g, "ye", SHAPE(2, 3, 4, 2));
	struct tensor *yt = act(g, "yt", SHAPE(3, 2, 6));
	node(g, OP_EXPAND, NULL, INS(x), ye);
	node(g, OP_TILE, NULL, INS(x), yt);
	output(g, ye);
	output(g, yt);
	plan_by_hand(g);

	float *in[1], *want[2];
	make_inputs(g, in);
	want[0] = alloc_out(ye);
	want[1] = alloc_out(yt);
	for (int a = 0; a < 2; a++)
		for (int b = 0; b < 3; b++)
			for (int c = 0; c < 4; c++)
				for (int k = 0; k < 2; k++)
					want[0][((a * 3 + b) * 4 + c) * 2 + k] = in[0][b * 2 + k];
	for (int b = 0; b < 3; b++)
		for (int c = 0; c < 2; c++)
			for (int k = 0; k < 6; k++)
				want[1][(b * 2 + c) * 6 + k] = in[0][b * 2 + k % 2];
	check_model_free(g, WEIGHTS_CARRAY, in, 1, want, 2, 0.0);
}

/* Bilinear tap of plane x [h, w] at (ch, cw), the coordinates clamped. */
static double bilinear_ref(const float *x, int h, int w, double ch, double cw)
{
	ch = ch < 0 ? 0 : ch > h - 1 ? h - 1 : ch;
	cw = cw < 0 ? 0 : cw > w - 1 ? w - 1 : cw;
	int h0 = (int)floor(ch), w0 = (int)floor(cw);
	int h1 = h0 + 1 < h ? h0 + 1 : h0, w1 = w0 + 1 < w ? w0 + 1 : w0;
	double a = ch - h0, b = cw - w0;
	return (1 - a) * ((1 - b) * x[h0 * w + w0] + b * x[h0 * w + w1]) +
	       a * ((1 - b) * x[h1 * w + w0] + b * x[h1 * w + w1]);
}

/* Resize in canonical form, compiled and run: nearest with asymmetric
 * coordinates and floor (Upsample's rule), bilinear with align_corners, and
 * bilinear with half_pixel (coordinates below 0 clamp), against the ONNX
 * formulas in double. */
Test(emit_ops, resize_nearest_and_linear)
{
	struct graph *g = new_graph();
	struct tensor *x = input(g, "x", SHAPE(1, 2, 2, 3));
	struct tensor *y[3] = {act(g, "y0", SHAPE(1, 2, 4, 6)), act(g, "y1", SHAPE(1, 2, 3, 5)),
	                       act(g, "y2", SHAPE(1, 2, 3, 6))};
	static const char *const mode[3] = {"nearest", "linear", "linear"};
	static const char *const coord[3] = {"asymmetric", "align_corners", "half_pixel"};
	const double sh[3] = {2, 1.5, 1.5}, sw[3] = {2, 5.0 / 3, 2};
	for (int i = 0; i < 3; i++) {
		struct node *n = node(g, OP_RESIZE, NULL, INS(x), y[i]);
		struct attr *a = ir_add_attr(g, n, "mode", ATTR_STRING);
		a->s = arena_strdup(&g->arena, mode[i]);
		a = ir_add_attr(g, n, "coordinate_transformation_mode", ATTR_STRING);
		a->s = arena_strdup(&g->arena, coord[i]);
		a = ir_add_attr(g, n, "nearest_mode", ATTR_STRING);
		a->s = arena_strdup(&g->arena, "floor");
		a_float(g, n, "scale_h", sh[i]);
		a_float(g, n, "scale_w", sw[i]);
		output(g, y[i]);
	}
	plan_by_hand(g);

	float *in[1], *want[3];
	make_inputs(g, in);
	for (int i = 0; i < 3; i++)
		want[i] = alloc_out(y[i]);
	for (int c = 0; c < 2; c++) {
		const float *xc = in[0] + c * 6; /* [2, 3] */
		for (int h = 0; h < 4; h++)
			for (int w = 0; w < 6; w++)
				want[0][(c * 4 + h) * 6 + w] = xc[(h / 2) * 3 + w / 2];
		for (int h = 0; h < 3; h++)
			for (int w = 0; w < 5; w++)
				want[1][(c * 3 + h) * 5 + w] =
				        (float)bilinear_ref(xc, 2, 3, h * 1.0 / 2, w * 2.0 / 4);
		for (int h = 0; h < 3; h++)
			for (int w = 0; w < 6; w++)
				want[2][(c * 3 + h) * 6 + w] = (float)bilinear_ref(
				        xc, 2, 3, (h + 0.5) / 1.5 - 0.5, (w + 0.5) / 2 - 0.5);
	}
	check_model_free(g, WEIGHTS_CARRAY, in, 1, want, 3, 1e-6);
}
