/* conformance.c - runs dnncc over the ONNX backend node tests.
 *
 * Every directory under $ONNX_TESTDATA/node and
 * $ONNX_TESTDATA/pytorch-converted holds model.onnx and test_data_set_N/
 * with input_K.pb and output_K.pb (serialized onnx.TensorProto). For each one
 * this program runs
 *
 *   dnncc model.onnx -o TMP/out/model.c --name model
 *
 * and then either
 *   - checks that a refusal was clean (DESIGN.md §2 "Command line"): exit
 *     status 1, not a signal; a message on stderr; nothing left in TMP/out;
 *   - or builds TMP/out/model.c with tests/harness.c using
 *     `cc -std=c99 -O1 -Wall -Wextra -pedantic -Werror ... -lm` from inside
 *     TMP/out (weights may be pulled in with .incbin; a warning in generated
 *     code is a bug), runs it on every data set and compares each output with
 *     the stored one.
 *
 * A test is PASS, REFUSED (clean refusal) or FAIL (wrong output, compile
 * error, crash, timeout, unclean refusal). A test is "in scope" when every op
 * in its graph is one the skeleton implements (in_scope_ops below) and every
 * graph input and output is float32; an in-scope test that dnncc refuses is a
 * failure unless tests/conformance_refused.txt lists it with a reason. That
 * list is checked too: an entry must name an existing, in-scope test that
 * dnncc still refuses.
 *
 *   conformance [-j N] [--dnncc PATH] [--srcdir DIR] [--data DIR] [-v] [FILTER]
 *
 * Defaults come from the environment make check sets (DNNCC, DNNCC_SRCDIR,
 * ONNX_TESTDATA, CC, TMPDIR), else from the build (CONFORMANCE_* below). FILTER keeps the tests whose name contains it.
 * Tests run in -j worker processes (default 2), one process per test with a
 * 60 s alarm; each gets its own directory under $TMPDIR, removed afterwards.
 * Every refusal and failure is listed with its reason, then the totals per
 * ONNX op type (a test counts under each op type its graph uses) and overall.
 * Exit status: 0 when nothing failed, 1 otherwise, 77 (automake's "skipped")
 * when the test data is not installed. */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "frontend/onnx.pb-c.h"

/* Outputs are compared as |got - want| <= ATOL + RTOL * |want|, NaN matching
 * NaN and infinities matching exactly. The references come from ONNX's numpy
 * reference implementation (node/) or from PyTorch (pytorch-converted/),
 * often computed in float64 or summed in another order, while dnncc's
 * reference kernels compute in float32 in their own order: a relative 1e-4
 * covers the rounding of float32 sums over a few thousand terms and of expf
 * and friends, and the absolute 1e-5 covers results that cancel to near
 * zero. */
#define ATOL 1e-5
#define RTOL 1e-4

/* The build passes these (tests/local.mk); the fallbacks suit a run from the
 * top of an in-tree build. */
#ifndef CONFORMANCE_SRCDIR
#define CONFORMANCE_SRCDIR "."
#endif
#ifndef CONFORMANCE_DNNCC
#define CONFORMANCE_DNNCC "./dnncc"
#endif
#ifndef CONFORMANCE_TESTDATA
#define CONFORMANCE_TESTDATA "/usr/share/libonnx-testdata/data"
#endif

#define TEST_TIMEOUT_S 60 /* per test: dnncc, cc and every run together */
#define REASON_MAX 400
#define OPS_MAX 256 /* op type list of one test (longer lists are cut) */

/* The ops dnncc implements (ir/ir.h), including the shape ops that
 * infer_shapes folds into constants. */
static const char *const in_scope_ops[] = {
	"Conv", "Gemm", "MatMul", "Add", "Sub", "Mul", "Div", "Relu", "LeakyRelu", "Clip",
	"Sigmoid", "Tanh", "Softmax", "LogSoftmax", "BatchNormalization", "MaxPool",
	"AveragePool", "GlobalAveragePool", "GlobalMaxPool", "LRN", "Concat", "Flatten",
	"Reshape", "Transpose", "Squeeze", "Unsqueeze", "Pad", "Dropout", "Identity",
	"Constant", "Shape", "Gather", "Cast", "Slice", "ConstantOfShape",
	/* elementwise math (issue 11) */
	"Exp", "Log", "Sqrt", "Abs", "Neg", "Reciprocal", "Floor", "Ceil", "Round", "Sign", "Sin",
	"Cos", "Tan", "Asin", "Acos", "Atan", "Sinh", "Cosh", "Asinh", "Acosh", "Atanh", "Erf",
	"Elu", "Selu", "Celu", "HardSigmoid", "HardSwish", "Softplus", "Softsign", "Mish",
	"ThresholdedRelu", "Gelu", "PRelu", "Pow", "Max", "Min", "Mean", "Sum",
	"ReduceMean", "ReduceSum", "ReduceMax", "ReduceMin", "ReduceProd", "ReduceL1", "ReduceL2",
	"ReduceLogSum", "ReduceLogSumExp", "ReduceSumSquare",
	"LayerNormalization", "InstanceNormalization", "MeanVarianceNormalization", "Hardmax",
	"Slice", "Split", "Expand", "Tile", "DepthToSpace", "SpaceToDepth", "Resize",
	"Upsample", "ConvTranspose",
	/* integer and boolean tensors (issue 11) */
	"Equal", "Less", "Greater", "LessOrEqual", "GreaterOrEqual", "Not", "And", "Or", "Xor",
	"BitShift", "Mod", "Where", "ArgMax", "ArgMin", "TopK", "CumSum", "Trilu",
	"GatherElements", "NegativeLogLikelihoodLoss", "SoftmaxCrossEntropyLoss", "Size", "Range",
	"IsNaN", "IsInf", "CastLike",
};

/* Operands dnncc needs at compile time (they fix shapes, or the kernels take
 * them as constants): a graph input read at one of these positions is frozen
 * with `dnncc --bind NAME=input_K.pb` from the data set being run, and is not
 * fed at run time. {op type, first input index, last input index}. */
static const struct {
	const char *op;
	int first, last;
} bound_operands[] = {
	{"Reshape", 1, 1},   {"Expand", 1, 1},  {"Tile", 1, 1},      {"Slice", 1, 4},
	{"Pad", 1, 3},       {"Resize", 1, 3},  {"Upsample", 1, 1},  {"ConstantOfShape", 0, 0},
	{"Squeeze", 1, 1},   {"Unsqueeze", 1, 1}, {"Split", 1, 1},   {"TopK", 1, 1},
	{"Range", 0, 2},     {"Trilu", 1, 1},   {"CumSum", 1, 1},    {"ReduceSum", 1, 1},
	{"ReduceMean", 1, 1}, {"ReduceMax", 1, 1}, {"ReduceMin", 1, 1}, {"ReduceProd", 1, 1},
	{"ReduceL1", 1, 1},  {"ReduceL2", 1, 1}, {"ReduceLogSum", 1, 1},
	{"ReduceLogSumExp", 1, 1}, {"ReduceSumSquare", 1, 1},
};

static const char *const test_sets[] = {"node", "pytorch-converted"};

enum verdict { V_PASS, V_REFUSED, V_FAIL };

struct test {
	char *name;       /* directory name, e.g. "test_conv_with_strides_padding" */
	char *dir;        /* the test directory, $ONNX_TESTDATA/SET/NAME */
	enum verdict verdict;
	int in_scope;     /* see the file comment */
	int listed;       /* index + 1 into the refused list, 0 if not listed */
	char reason[REASON_MAX]; /* why it did not pass (dnncc's message for REFUSED) */
	int n_binds;             /* graph inputs frozen with --bind (bound_operands) */
	char ops[OPS_MAX];       /* the graph's distinct op types, space-separated */
};

struct refused_entry {
	char *name;   /* test name */
	int line;     /* line in conformance_refused.txt */
	int matched;  /* a test of that name was run */
};

struct config {
	const char *dnncc;      /* absolute path of the dnncc binary */
	const char *harness;    /* absolute path of tests/harness.c */
	const char *data;       /* ONNX_TESTDATA */
	const char *tmpdir;     /* where per-test directories go */
	char **cc;              /* the C compiler command, split into words, NULL-terminated */
	int jobs;               /* worker processes */
	int verbose;            /* print passing tests too */
};

/* ---- small helpers ------------------------------------------------------- */

static void *xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);
	if (!p) {
		fprintf(stderr, "conformance: out of memory\n");
		exit(2);
	}
	return p;
}

static char *xstrdup(const char *s)
{
	char *p = xmalloc(strlen(s) + 1);
	strcpy(p, s);
	return p;
}

static char *path_join(const char *a, const char *b)
{
	size_t n = strlen(a) + strlen(b) + 2;
	char *p = xmalloc(n);
	snprintf(p, n, "%s/%s", a, b);
	return p;
}

/* Fills a REASON_MAX buffer, truncating. */
static void set_reason(char *reason, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(reason, REASON_MAX, fmt, ap);
	va_end(ap);
}

static int file_exists(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0;
}

/* Reads a whole file; returns NULL (errno set) on failure. */
static unsigned char *read_file(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return NULL;
	size_t cap = 1 << 16, n = 0;
	unsigned char *buf = xmalloc(cap);
	for (;;) {
		size_t got = fread(buf + n, 1, cap - n, f);
		n += got;
		if (n < cap)
			break;
		cap *= 2;
		unsigned char *nb = realloc(buf, cap);
		if (!nb) {
			free(buf);
			fclose(f);
			errno = ENOMEM;
			return NULL;
		}
		buf = nb;
	}
	int err = ferror(f);
	fclose(f);
	if (err) {
		free(buf);
		errno = EIO;
		return NULL;
	}
	*len = n;
	return buf;
}

static int contains(const char *s, size_t n, const char *key)
{
	size_t k = strlen(key);
	for (size_t i = 0; i + k <= n; i++)
		if (memcmp(s + i, key, k) == 0)
			return 1;
	return 0;
}

/* The first line of a file that contains want (any line when NULL) and not
 * avoid (when not NULL), trimmed, into out; failing that, the first non-empty
 * line. Returns 1 if a line matched, 0 if only the fallback (or nothing) was
 * found. */
static int pick_line(const char *path, const char *want, const char *avoid, char *out,
                     size_t size)
{
	size_t len;
	unsigned char *text = read_file(path, &len);
	out[0] = '\0';
	if (!text)
		return 0;
	const char *found = NULL, *first = NULL;
	size_t found_len = 0, first_len = 0;
	for (size_t i = 0; i < len && !found;) {
		size_t j = i;
		while (j < len && text[j] != '\n')
			j++;
		size_t a = i, b = j;
		while (a < b && (text[a] == ' ' || text[a] == '\t' || text[a] == '\r'))
			a++;
		while (b > a && (text[b - 1] == ' ' || text[b - 1] == '\t' || text[b - 1] == '\r'))
			b--;
		if (b > a) {
			const char *line = (const char *)text + a;
			if (!first) {
				first = line;
				first_len = b - a;
			}
			if ((!want || contains(line, b - a, want)) &&
			    (!avoid || !contains(line, b - a, avoid))) {
				found = line;
				found_len = b - a;
			}
		}
		i = j + 1;
	}
	int matched = found != NULL;
	if (!found) {
		found = first;
		found_len = first_len;
	}
	if (found) {
		if (found_len >= size)
			found_len = size - 1;
		memcpy(out, found, found_len);
		out[found_len] = '\0';
		for (size_t i = 0; i < found_len; i++)
			if ((unsigned char)out[i] < 0x20)
				out[i] = ' ';
	}
	free(text);
	return matched;
}

/* Removes a directory tree (no symbolic links are followed). */
static void remove_tree(const char *path)
{
	struct stat st;
	if (lstat(path, &st) != 0)
		return;
	if (S_ISDIR(st.st_mode)) {
		DIR *d = opendir(path);
		if (d) {
			struct dirent *e;
			while ((e = readdir(d)) != NULL) {
				if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
					continue;
				char *p = path_join(path, e->d_name);
				remove_tree(p);
				free(p);
			}
			closedir(d);
		}
		rmdir(path);
	} else {
		unlink(path);
	}
}

/* The entries of a directory, sorted; NULL if it cannot be read. */
static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static char **list_dir(const char *path, int *n)
{
	DIR *d = opendir(path);
	if (!d)
		return NULL;
	int cap = 64;
	char **names = xmalloc(cap * sizeof *names);
	*n = 0;
	struct dirent *e;
	while ((e = readdir(d)) != NULL) {
		if (e->d_name[0] == '.')
			continue;
		if (*n == cap) {
			cap *= 2;
			char **nn = realloc(names, cap * sizeof *names);
			if (!nn) {
				fprintf(stderr, "conformance: out of memory\n");
				exit(2);
			}
			names = nn;
		}
		names[(*n)++] = xstrdup(e->d_name);
	}
	closedir(d);
	qsort(names, *n, sizeof *names, cmp_str);
	return names;
}

/* ---- running commands with the per-test deadline -------------------------- */

/* The worker's deadline: when the alarm rings, the handler kills the process
 * group of the command running then (if any), and every later command is not
 * started at all. */
static volatile sig_atomic_t timed_out;
static volatile sig_atomic_t current_group; /* pid of the running command's group, 0 if none */

static void on_alarm(int sig)
{
	(void)sig;
	timed_out = 1;
	if (current_group > 0)
		kill(-(pid_t)current_group, SIGKILL);
}

enum run_status { RUN_EXITED, RUN_SIGNALED, RUN_TIMEOUT, RUN_NOSTART };

/* Runs argv in cwd with stdin from /dev/null and stdout/stderr into the named
 * files (NULL: /dev/null), in its own process group so that a timeout kills
 * the compiler's subprocesses too. *code gets the exit status or the signal. */
static enum run_status run_cmd(char *const argv[], const char *cwd, const char *out_path,
                               const char *err_path, int *code)
{
	if (timed_out)
		return RUN_TIMEOUT;
	pid_t pid = fork();
	if (pid < 0)
		return RUN_NOSTART;
	if (pid == 0) {
		setpgid(0, 0);
		signal(SIGALRM, SIG_DFL);
		int in = open("/dev/null", O_RDONLY);
		int out = open(out_path ? out_path : "/dev/null", O_WRONLY | O_CREAT | O_TRUNC, 0644);
		int err = open(err_path ? err_path : "/dev/null", O_WRONLY | O_CREAT | O_TRUNC, 0644);
		if (in < 0 || out < 0 || err < 0 || dup2(in, 0) < 0 || dup2(out, 1) < 0 ||
		    dup2(err, 2) < 0)
			_exit(126);
		if (cwd && chdir(cwd) != 0) {
			fprintf(stderr, "conformance: cannot enter %s: %s\n", cwd, strerror(errno));
			_exit(126);
		}
		execvp(argv[0], argv);
		fprintf(stderr, "conformance: cannot run %s: %s\n", argv[0], strerror(errno));
		_exit(127);
	}
	setpgid(pid, pid); /* also here, so that the group exists before the handler may kill it */
	current_group = pid;
	if (timed_out)
		kill(-pid, SIGKILL);
	int st;
	pid_t r;
	while ((r = waitpid(pid, &st, 0)) < 0 && errno == EINTR)
		;
	current_group = 0;
	if (r != pid)
		return RUN_NOSTART;
	if (timed_out)
		return RUN_TIMEOUT;
	if (WIFSIGNALED(st)) {
		*code = WTERMSIG(st);
		return RUN_SIGNALED;
	}
	*code = WEXITSTATUS(st);
	if (*code == 126 || *code == 127)
		return RUN_NOSTART;
	return RUN_EXITED;
}

/* ---- reading the test data -------------------------------------------------- */

static int in_scope_op(const char *op, const char *domain)
{
	if (domain && domain[0] && strcmp(domain, "ai.onnx") != 0)
		return 0;
	for (size_t i = 0; i < sizeof in_scope_ops / sizeof in_scope_ops[0]; i++)
		if (strcmp(op, in_scope_ops[i]) == 0)
			return 1;
	return 0;
}

/* TensorProto.DataType numbers generated code takes and the runner feeds:
 * float, uint8, int8, int32, int64, bool, double. */
static int supported_type(int dt)
{
	return dt == 1 || dt == 2 || dt == 3 || dt == 6 || dt == 7 || dt == 9 || dt == 11;
}

static int is_supported_value(const Onnx__ValueInfoProto *v)
{
	return v->type && v->type->value_case == ONNX__TYPE_PROTO__VALUE_TENSOR_TYPE &&
	       v->type->tensor_type->has_elem_type &&
	       supported_type(v->type->tensor_type->elem_type);
}

static int is_bound_operand(const Onnx__GraphProto *g, const char *name)
{
	for (size_t i = 0; i < g->n_node; i++) {
		const Onnx__NodeProto *n = g->node[i];
		for (size_t k = 0; k < sizeof bound_operands / sizeof bound_operands[0]; k++) {
			if (!n->op_type || strcmp(n->op_type, bound_operands[k].op) != 0)
				continue;
			for (int j = bound_operands[k].first;
			     j <= bound_operands[k].last && (size_t)j < n->n_input; j++)
				if (n->input[j] && strcmp(n->input[j], name) == 0)
					return 1;
		}
	}
	return 0;
}

static int is_initializer(const Onnx__GraphProto *g, const char *name)
{
	for (size_t i = 0; i < g->n_initializer; i++)
		if (g->initializer[i]->name && strcmp(g->initializer[i]->name, name) == 0)
			return 1;
	return 0;
}

/* What the runner needs to know about a model: is it in scope, and are its
 * graph inputs (weights excluded) and outputs all float32. */
#define MAX_MODEL_INPUTS 64
struct model_facts {
	int all_float; /* every graph input that is not an initializer, and every output, has a
	                  type of supported_type() */
	int n_inputs;  /* graph inputs that are not initializers, model order */
	char *input_names[MAX_MODEL_INPUTS]; /* owned */
	int bound[MAX_MODEL_INPUTS];         /* 1: frozen with --bind, not fed */
	int ops_ok;    /* every node's op is in in_scope_ops */
	char *ops;     /* out: [OPS_MAX] the distinct op types, space-separated, model order */
};

/* Appends op to the space-separated list unless it is there already. */
static void add_op_type(char *ops, const char *op)
{
	size_t len = strlen(ops), k = strlen(op);
	for (const char *p = ops; *p;) {
		size_t w = strcspn(p, " ");
		if (w == k && strncmp(p, op, k) == 0)
			return;
		p += w + (p[w] == ' ');
	}
	if (k == 0 || strchr(op, ' ') || len + k + 2 > OPS_MAX)
		return;
	if (len)
		ops[len++] = ' ';
	memcpy(ops + len, op, k + 1);
}

static int read_model_facts(const char *path, struct model_facts *f, char *reason)
{
	size_t len;
	unsigned char *buf = read_file(path, &len);
	if (!buf) {
		set_reason(reason, "cannot read %s: %s", path, strerror(errno));
		return -1;
	}
	Onnx__ModelProto *m = onnx__model_proto__unpack(NULL, len, buf);
	free(buf);
	if (!m || !m->graph) {
		set_reason(reason, "%s is not an ONNX model the runner can read", path);
		if (m)
			onnx__model_proto__free_unpacked(m, NULL);
		return -1;
	}
	const Onnx__GraphProto *g = m->graph;
	f->all_float = 1;
	f->ops_ok = 1;
	f->n_inputs = 0;
	for (size_t i = 0; i < g->n_input; i++) {
		if (is_initializer(g, g->input[i]->name))
			continue;
		if (!is_supported_value(g->input[i]))
			f->all_float = 0;
		if (f->n_inputs < MAX_MODEL_INPUTS) {
			f->input_names[f->n_inputs] = xstrdup(g->input[i]->name ? g->input[i]->name : "");
			f->bound[f->n_inputs] = is_bound_operand(g, g->input[i]->name ? g->input[i]->name
			                                                             : "");
			f->n_inputs++;
		}
	}
	for (size_t i = 0; i < g->n_output; i++)
		if (!is_supported_value(g->output[i]))
			f->all_float = 0;
	for (size_t i = 0; i < g->n_node; i++) {
		const Onnx__NodeProto *n = g->node[i];
		if (!in_scope_op(n->op_type, n->domain))
			f->ops_ok = 0;
		add_op_type(f->ops, n->op_type ? n->op_type : "");
	}
	onnx__model_proto__free_unpacked(m, NULL);
	return 0;
}

/* A tensor from a .pb file: count values of one supported_type(), as
 * little-endian bytes. */
struct f32_tensor {
	size_t count;
	int dtype;            /* TensorProto.DataType */
	size_t es;            /* bytes per element */
	unsigned char *bytes; /* [es * count], little-endian */
};

static size_t type_size(int dt)
{
	return dt == 2 || dt == 3 || dt == 9 ? 1 : dt == 7 || dt == 11 ? 8 : 4;
}

static void put_le(unsigned char *p, uint64_t v, size_t es)
{
	for (size_t k = 0; k < es; k++)
		p[k] = (unsigned char)(v >> (8 * k));
}

static uint64_t get_le(const unsigned char *p, size_t es)
{
	uint64_t v = 0;
	for (size_t k = 0; k < es; k++)
		v |= (uint64_t)p[k] << (8 * k);
	return v;
}

/* Element i as a double (floats) or an exact integer in *iv (the others). */
static double get_value(const struct f32_tensor *t, const unsigned char *bytes, size_t i,
                        int64_t *iv)
{
	uint64_t u = get_le(bytes + t->es * i, t->es);
	*iv = 0;
	switch (t->dtype) {
	case 1: {
		uint32_t w = (uint32_t)u;
		float f;
		memcpy(&f, &w, 4);
		return f;
	}
	case 11: {
		double f;
		memcpy(&f, &u, 8);
		return f;
	}
	case 3: *iv = (int8_t)(uint8_t)u; break;
	case 6: *iv = (int32_t)(uint32_t)u; break;
	case 7: *iv = (int64_t)u; break;
	default: *iv = (int64_t)u; break; /* uint8, bool */
	}
	return (double)*iv;
}

static void put_le32(unsigned char *p, float v)
{
	uint32_t u;
	memcpy(&u, &v, 4);
	p[0] = u & 0xff;
	p[1] = u >> 8 & 0xff;
	p[2] = u >> 16 & 0xff;
	p[3] = u >> 24 & 0xff;
}

static int read_f32_tensor(const char *path, struct f32_tensor *t, char *reason)
{
	size_t len;
	unsigned char *buf = read_file(path, &len);
	if (!buf) {
		set_reason(reason, "cannot read %s: %s", path, strerror(errno));
		return -1;
	}
	Onnx__TensorProto *p = onnx__tensor_proto__unpack(NULL, len, buf);
	free(buf);
	const char *base = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
	if (!p) {
		set_reason(reason, "%s: not a TensorProto", base);
		return -1;
	}
	int rc = -1;
	size_t count = 1;
	for (size_t i = 0; i < p->n_dims; i++)
		count *= (size_t)p->dims[i];
	t->count = count;
	t->bytes = NULL;
	t->dtype = p->has_data_type ? p->data_type : 0;
	t->es = type_size(t->dtype);
	size_t es = t->es;
	if (!supported_type(t->dtype)) {
		set_reason(reason, "%s: data type %d, which the runner does not feed (the model is "
		           "out of scope)", base, t->dtype);
	} else if (p->has_raw_data) {
		if (p->raw_data.len != es * count) {
			set_reason(reason, "%s: raw_data has %zu bytes for %zu values", base,
			         p->raw_data.len, count);
		} else {
			t->bytes = xmalloc(es * count + 1);
			memcpy(t->bytes, p->raw_data.data, es * count);
			rc = 0;
		}
	} else {
		size_t have = t->dtype == 1 ? p->n_float_data : t->dtype == 7 ? p->n_int64_data
		              : t->dtype == 11 ? p->n_double_data : p->n_int32_data;
		if (have != count) {
			set_reason(reason, "%s: %zu typed values for %zu elements", base, have, count);
		} else {
			t->bytes = xmalloc(es * count + 1);
			for (size_t i = 0; i < count; i++) {
				unsigned char *q = t->bytes + es * i;
				if (t->dtype == 1) {
					put_le32(q, p->float_data[i]);
				} else if (t->dtype == 11) {
					uint64_t u;
					memcpy(&u, &p->double_data[i], 8);
					put_le(q, u, 8);
				} else if (t->dtype == 7) {
					put_le(q, (uint64_t)p->int64_data[i], 8);
				} else {
					put_le(q, (uint64_t)(int64_t)p->int32_data[i], es);
				}
			}
			rc = 0;
		}
	}
	onnx__tensor_proto__free_unpacked(p, NULL);
	return rc;
}

static int write_bytes(const char *path, const unsigned char *bytes, size_t n)
{
	FILE *f = fopen(path, "wb");
	if (!f)
		return -1;
	int ok = fwrite(bytes, 1, n, f) == n;
	return fclose(f) == 0 && ok ? 0 : -1;
}

/* Compares got (from the generated code) with want; on a mismatch says which
 * element was worst. */
static int compare_output(const char *name, const struct f32_tensor *want,
                          const unsigned char *got_bytes, size_t got_len, char *reason)
{
	if (got_len != want->es * want->count) {
		set_reason(reason, "%s: generated code wrote %zu bytes, expected %zu values of %zu",
		           name, got_len, want->count, want->es);
		return -1;
	}
	size_t bad = 0, worst = 0;
	double worst_excess = -1;
	int is_float = want->dtype == 1 || want->dtype == 11;
	for (size_t i = 0; i < want->count; i++) {
		int64_t wi, gi;
		double w = get_value(want, want->bytes, i, &wi), g = get_value(want, got_bytes, i, &gi);
		int ok;
		double excess;
		if (!is_float) { /* integers and bools: exactly */
			ok = wi == gi;
			excess = ok ? 0 : INFINITY;
		} else if (isnan(w) || isnan(g) || isinf(w) || isinf(g)) {
			ok = (isnan(w) && isnan(g)) || w == g;
			excess = ok ? 0 : INFINITY;
		} else {
			double err = fabs(g - w), tol = ATOL + RTOL * fabs(w);
			ok = err <= tol;
			excess = err / tol;
		}
		if (!ok) {
			bad++;
			if (excess > worst_excess) {
				worst_excess = excess;
				worst = i;
			}
		}
	}
	if (bad) {
		snprintf(reason, REASON_MAX,
		         "%s: %zu of %zu values differ; worst at [%zu]: got %.9g, want %.9g", name,
		         bad, want->count, worst, get_value(want, got_bytes, worst, &(int64_t){0}),
		         get_value(want, want->bytes, worst, &(int64_t){0}));
		return -1;
	}
	return 0;
}

/* ---- one test, in a worker process ----------------------------------------- */

static int count_files(const char *dir, const char *prefix)
{
	int n = 0;
	for (;;) {
		char name[64];
		snprintf(name, sizeof name, "%s%d.pb", prefix, n);
		char *p = path_join(dir, name);
		int ok = file_exists(p);
		free(p);
		if (!ok)
			return n;
		n++;
	}
}

/* Builds and runs the generated model on one data set. */
static enum verdict run_data_set(const char *tmp, const char *out, const char *set_dir,
                                 const char *set_name, const struct model_facts *facts,
                                 char *reason)
{
	int n_in = count_files(set_dir, "input_"), n_out = count_files(set_dir, "output_");
	int argc = 0;
	char **argv = xmalloc((n_in + n_out + 2) * sizeof *argv);
	enum verdict v = V_FAIL;
	char detail[REASON_MAX];
	argv[argc++] = xstrdup("./run");
	for (int i = 0; i < n_in; i++) {
		char name[64];
		if (i < facts->n_inputs && facts->bound[i])
			continue; /* compiled in with --bind */
		snprintf(name, sizeof name, "input_%d.pb", i);
		char *pb = path_join(set_dir, name);
		struct f32_tensor t;
		int rc = read_f32_tensor(pb, &t, reason);
		free(pb);
		if (rc != 0)
			goto out;
		snprintf(name, sizeof name, "in_%d.bin", i);
		argv[argc++] = path_join(tmp, name);
		rc = write_bytes(argv[argc - 1], t.bytes, t.es * t.count);
		free(t.bytes);
		if (rc != 0) {
			set_reason(reason, "cannot write %s", argv[argc - 1]);
			goto out;
		}
	}
	for (int i = 0; i < n_out; i++) {
		char name[64];
		snprintf(name, sizeof name, "out_%d.bin", i);
		argv[argc++] = path_join(tmp, name);
		unlink(argv[argc - 1]);
	}
	argv[argc] = NULL;

	char *err_path = path_join(tmp, "run.err");
	int code = 0;
	enum run_status rs = run_cmd(argv, out, NULL, err_path, &code);
	pick_line(err_path, NULL, NULL, detail, sizeof detail);
	free(err_path);
	switch (rs) {
	case RUN_TIMEOUT:
		set_reason(reason, "%s: timeout (%d s) running the generated code", set_name,
		         TEST_TIMEOUT_S);
		goto out;
	case RUN_SIGNALED:
		set_reason(reason, "%s: generated code killed by signal %d (%s)", set_name,
		         code, strsignal(code));
		goto out;
	case RUN_NOSTART:
		set_reason(reason, "%s: cannot run the harness: %s", set_name, detail);
		goto out;
	case RUN_EXITED:
		if (code != 0) {
			set_reason(reason, "%s: harness exit status %d: %s", set_name, code,
			         detail);
			goto out;
		}
		break;
	}
	for (int i = 0; i < n_out; i++) {
		char name[64];
		snprintf(name, sizeof name, "output_%d.pb", i);
		char *pb = path_join(set_dir, name);
		struct f32_tensor want;
		int rc = read_f32_tensor(pb, &want, reason);
		free(pb);
		if (rc != 0)
			goto out;
		size_t got_len;
		unsigned char *got = read_file(argv[argc - n_out + i], &got_len);
		if (!got) {
			set_reason(reason, "%s: no output %d written", set_name, i);
			free(want.bytes);
			goto out;
		}
		char what[96];
		snprintf(what, sizeof what, "%s output %d", set_name, i);
		rc = compare_output(what, &want, got, got_len, reason);
		free(got);
		free(want.bytes);
		if (rc != 0)
			goto out;
	}
	v = V_PASS;
out:
	for (int i = 0; i < argc; i++)
		free(argv[i]);
	free(argv);
	return v;
}

/* Compiles the model with dnncc (binding the inputs facts->bound marks to
 * set_dir's files) and builds it with the harness inside out. V_PASS when
 * built; otherwise the verdict, its reason in t->reason. */
static enum verdict build_model(const struct config *cfg, struct test *t, const char *tmp,
                                const char *model, const char *out,
                                const struct model_facts *facts, const char *set_dir)
{
	char detail[REASON_MAX];
	char *model_c = path_join(out, "model.c");
	char *err_path = path_join(tmp, "dnncc.err");
	enum verdict v = V_FAIL;
	int code = 0;
	char *dnncc_argv[8 + 2 * MAX_MODEL_INPUTS];
	char *binds[MAX_MODEL_INPUTS];
	int argc = 0, n_binds = 0;
	dnncc_argv[argc++] = (char *)cfg->dnncc;
	dnncc_argv[argc++] = (char *)model;
	dnncc_argv[argc++] = "-o";
	dnncc_argv[argc++] = model_c;
	dnncc_argv[argc++] = "--name";
	dnncc_argv[argc++] = "model";
	for (int i = 0; set_dir && i < facts->n_inputs; i++) {
		if (!facts->bound[i])
			continue;
		size_t n = strlen(facts->input_names[i]) + strlen(set_dir) + 32;
		binds[n_binds] = xmalloc(n);
		snprintf(binds[n_binds], n, "%s=%s/input_%d.pb", facts->input_names[i], set_dir, i);
		dnncc_argv[argc++] = "--bind";
		dnncc_argv[argc++] = binds[n_binds++];
	}
	dnncc_argv[argc] = NULL;
	enum run_status rs = run_cmd(dnncc_argv, NULL, NULL, err_path, &code);
	for (int i = 0; i < n_binds; i++)
		free(binds[i]);
	/* A refusal must say why: a line that is not just a warning. */
	int has_message = pick_line(err_path, NULL, "warning:", detail, sizeof detail);
	size_t n_model = strlen(model);
	if (strncmp(detail, model, n_model) == 0) /* "/long/path/model.onnx: ..." */
		memmove(detail, detail + n_model - strlen("model.onnx"),
		        strlen(detail + n_model) + strlen("model.onnx") + 1);
	if (rs == RUN_TIMEOUT) {
		set_reason(t->reason, "dnncc: timeout (%d s)", TEST_TIMEOUT_S);
		goto done;
	}
	if (rs == RUN_SIGNALED) {
		set_reason(t->reason, "dnncc killed by signal %d (%s)", code,
		         strsignal(code));
		goto done;
	}
	if (rs == RUN_NOSTART) {
		set_reason(t->reason, "cannot run %s: %s", cfg->dnncc, detail);
		goto done;
	}
	if (code != 0) {
		int n_left = 0;
		char **left = list_dir(out, &n_left);
		if (code != 1)
			set_reason(t->reason, "unclean refusal: exit status %d (expected 1): %s",
			         code, detail);
		else if (!has_message)
			set_reason(t->reason, "unclean refusal: no error message on stderr%s%s",
			           detail[0] ? ", only: " : "", detail);
		else if (n_left > 0)
			set_reason(t->reason, "unclean refusal: left %s behind (%s)", left[0],
			         detail);
		else {
			set_reason(t->reason, "%s", detail);
			v = V_REFUSED;
		}
		for (int i = 0; i < n_left; i++)
			free(left[i]);
		free(left);
		goto done;
	}

	if (!facts->all_float) {
		snprintf(t->reason, REASON_MAX,
		         "dnncc accepted a model whose graph inputs/outputs have types it does not "
		         "support");
		goto done;
	}
	char *model_h = path_join(out, "model.h");
	int have_h = file_exists(model_h);
	free(model_h);
	if (!file_exists(model_c) || !have_h) {
		set_reason(t->reason, "dnncc exited 0 but did not write model.c and model.h");
		goto done;
	}

	/* Build the generated code with the harness, from inside its directory. */
	int n_cc = 0;
	while (cfg->cc[n_cc])
		n_cc++;
	const char *flags[] = {"-std=c99", "-O1",   "-Wall", "-Wextra", "-pedantic", "-Werror",
	                       "-I.",      "-o",    "run",   "model.c", cfg->harness, "-lm"};
	size_t n_flags = sizeof flags / sizeof flags[0];
	char **cc_argv = xmalloc((n_cc + n_flags + 1) * sizeof *cc_argv);
	for (int i = 0; i < n_cc; i++)
		cc_argv[i] = cfg->cc[i];
	for (size_t i = 0; i < n_flags; i++)
		cc_argv[n_cc + i] = (char *)flags[i];
	cc_argv[n_cc + n_flags] = NULL;
	char *cc_err = path_join(tmp, "cc.err");
	rs = run_cmd(cc_argv, out, NULL, cc_err, &code);
	free(cc_argv);
	pick_line(cc_err, "error", NULL, detail, sizeof detail);
	free(cc_err);
	if (rs == RUN_TIMEOUT) {
		set_reason(t->reason, "cc: timeout (%d s)", TEST_TIMEOUT_S);
		goto done;
	}
	if (rs != RUN_EXITED || code != 0) {
		set_reason(t->reason, "generated C does not build: %s", detail);
		goto done;
	}
	v = V_PASS;
done:
	free(model_c);
	free(err_path);
	return v;
}

static enum verdict run_test(const struct config *cfg, struct test *t, const char *tmp)
{
	struct model_facts facts;
	char *model = path_join(t->dir, "model.onnx");
	char *out = path_join(tmp, "out");
	enum verdict v = V_FAIL;

	t->in_scope = 0;
	t->ops[0] = '\0';
	memset(&facts, 0, sizeof facts);
	facts.ops = t->ops;
	if (read_model_facts(model, &facts, t->reason) != 0)
		goto done;
	t->in_scope = facts.ops_ok && facts.all_float;
	for (int i = 0; i < facts.n_inputs; i++)
		t->n_binds += facts.bound[i];

	int n_sets = 0;
	char **sets = list_dir(t->dir, &n_sets);
	int n_run = 0;
	/* Without bound inputs one build serves every data set; with them each
	 * data set is compiled with its own values. */
	v = V_PASS;
	for (int i = 0; sets && i < n_sets && v == V_PASS; i++) {
		if (strncmp(sets[i], "test_data_set_", 14) != 0)
			continue;
		char *set_dir = path_join(t->dir, sets[i]);
		if (n_run == 0 || t->n_binds) {
			remove_tree(out);
			if (mkdir(out, 0755) != 0) {
				set_reason(t->reason, "cannot create %s: %s", out, strerror(errno));
				v = V_FAIL;
			} else {
				v = build_model(cfg, t, tmp, model, out, &facts,
				                t->n_binds ? set_dir : NULL);
			}
		}
		if (v == V_PASS)
			v = run_data_set(tmp, out, set_dir, sets[i], &facts, t->reason);
		free(set_dir);
		n_run++;
	}
	if (v == V_PASS && n_run == 0) {
		set_reason(t->reason, "no test_data_set_* directory");
		v = V_FAIL;
	}
	for (int i = 0; i < n_sets; i++)
		free(sets[i]);
	free(sets);
done:
	for (int i = 0; i < facts.n_inputs; i++)
		free(facts.input_names[i]);
	free(model);
	free(out);
	return v;
}

/* The worker: runs one test and leaves "VERDICT IN_SCOPE REASON" in tmp/result. */
static void worker(const struct config *cfg, struct test *t, const char *tmp)
{
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_alarm;
	sigaction(SIGALRM, &sa, NULL);
	alarm(TEST_TIMEOUT_S);
	enum verdict v = run_test(cfg, t, tmp);
	alarm(0);
	char *path = path_join(tmp, "result");
	FILE *f = fopen(path, "w");
	if (f) {
		fprintf(f, "%d %d %s\n%s\n", (int)v, t->in_scope, t->reason, t->ops);
		fclose(f);
	}
	free(path);
	_exit(f ? 0 : 1);
}

static void collect(struct test *t, const char *tmp, int status)
{
	char *path = path_join(tmp, "result");
	FILE *f = fopen(path, "r");
	free(path);
	int v = -1, scope = 0;
	t->reason[0] = '\0';
	t->ops[0] = '\0';
	if (f) {
		if (fscanf(f, "%d %d", &v, &scope) != 2)
			v = -1;
		getc(f);
		if (!fgets(t->reason, sizeof t->reason, f))
			t->reason[0] = '\0';
		t->reason[strcspn(t->reason, "\n")] = '\0';
		if (!fgets(t->ops, sizeof t->ops, f))
			t->ops[0] = '\0';
		t->ops[strcspn(t->ops, "\n")] = '\0';
		fclose(f);
	}
	if (v < V_PASS || v > V_FAIL || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
		t->verdict = V_FAIL;
		if (WIFSIGNALED(status))
			set_reason(t->reason, "runner process killed by signal %d",
			         WTERMSIG(status));
		else
			set_reason(t->reason, "runner process left no result");
		return;
	}
	t->verdict = v;
	t->in_scope = scope;
}

/* ---- the refused list -------------------------------------------------------- */

/* Reads "NAME: reason" lines; '#' starts a comment. Returns -1 on a malformed
 * line (reported). */
static int read_refused(const char *path, struct refused_entry **out, int *n_out)
{
	size_t len;
	unsigned char *text = read_file(path, &len);
	*out = NULL;
	*n_out = 0;
	if (!text) {
		fprintf(stderr, "conformance: cannot read %s: %s\n", path, strerror(errno));
		return -1;
	}
	int cap = 16, n = 0, bad = 0, line = 0;
	struct refused_entry *e = xmalloc(cap * sizeof *e);
	char *s = (char *)text;
	for (size_t i = 0; i < len;) {
		size_t j = i;
		while (j < len && s[j] != '\n')
			j++;
		line++;
		char buf[512];
		size_t l = j - i < sizeof buf - 1 ? j - i : sizeof buf - 1;
		memcpy(buf, s + i, l);
		buf[l] = '\0';
		i = j + 1;
		char *p = buf;
		while (*p == ' ' || *p == '\t')
			p++;
		if (*p == '#' || *p == '\0' || *p == '\r')
			continue;
		char *colon = strchr(p, ':');
		char *r = colon ? colon + 1 : NULL;
		while (r && (*r == ' ' || *r == '\t'))
			r++;
		if (!colon || colon == p || !r || *r == '\0' || *r == '\r') {
			fprintf(stderr, "%s:%d: expected \"test_name: reason\"\n", path, line);
			bad = 1;
			continue;
		}
		*colon = '\0';
		if (n == cap) {
			cap *= 2;
			struct refused_entry *ne = realloc(e, cap * sizeof *e);
			if (!ne) {
				fprintf(stderr, "conformance: out of memory\n");
				exit(2);
			}
			e = ne;
		}
		e[n].name = xstrdup(p);
		e[n].line = line;
		e[n].matched = 0;
		n++;
	}
	free(text);
	*out = e;
	*n_out = n;
	return bad ? -1 : 0;
}

/* ---- main ---------------------------------------------------------------------- */

static char **split_words(const char *s)
{
	size_t cap = strlen(s) / 2 + 2;
	char **w = xmalloc(cap * sizeof *w);
	size_t n = 0;
	char *copy = xstrdup(s);
	for (char *tok = strtok(copy, " \t"); tok; tok = strtok(NULL, " \t"))
		w[n++] = tok;
	w[n] = NULL;
	return w;
}

static const char *env_or(const char *name, const char *fallback)
{
	const char *v = getenv(name);
	return v && v[0] ? v : fallback;
}

/* path made absolute (the workers run commands from other directories). */
static char *absolute(const char *path)
{
	if (!file_exists(path)) {
		fprintf(stderr, "conformance: %s: %s\n", path, strerror(errno));
		exit(2);
	}
	if (path[0] == '/')
		return xstrdup(path);
	char cwd[PATH_MAX];
	if (!getcwd(cwd, sizeof cwd)) {
		fprintf(stderr, "conformance: getcwd: %s\n", strerror(errno));
		exit(2);
	}
	return path_join(cwd, path);
}

/* The tests under cfg->data whose name contains filter (all when NULL), each
 * matched against the refused list. */
static struct test *find_tests(const struct config *cfg, const char *filter,
                               struct refused_entry *refused, int n_refused, int *n_tests)
{
	int n = 0, cap = 1024;
	struct test *tests = xmalloc(cap * sizeof *tests);
	for (size_t s = 0; s < sizeof test_sets / sizeof test_sets[0]; s++) {
		char *set = path_join(cfg->data, test_sets[s]);
		int n_names = 0;
		char **names = list_dir(set, &n_names);
		for (int i = 0; names && i < n_names; i++) {
			char *dir = path_join(set, names[i]);
			char *model = path_join(dir, "model.onnx");
			int ok = file_exists(model) && (!filter || strstr(names[i], filter));
			free(model);
			if (!ok) {
				free(dir);
				free(names[i]);
				continue;
			}
			if (n == cap) {
				cap *= 2;
				struct test *nt = realloc(tests, cap * sizeof *tests);
				if (!nt) {
					fprintf(stderr, "conformance: out of memory\n");
					exit(2);
				}
				tests = nt;
			}
			struct test *t = &tests[n++];
			memset(t, 0, sizeof *t);
			t->name = names[i];
			t->dir = dir;
			for (int k = 0; k < n_refused; k++)
				if (strcmp(refused[k].name, t->name) == 0) {
					t->listed = k + 1;
					refused[k].matched = 1;
				}
		}
		free(names);
		free(set);
	}
	*n_tests = n;
	return tests;
}

/* Runs every test in its own worker process, cfg->jobs at a time. */
static void run_all(const struct config *cfg, struct test *tests, int n_tests)
{
	struct slot {
		pid_t pid;  /* worker, 0 when the slot is free */
		int test;   /* index into tests */
		char *tmp;  /* the worker's directory */
	};
	struct slot *slots = xmalloc(cfg->jobs * sizeof *slots);
	for (int i = 0; i < cfg->jobs; i++)
		slots[i].pid = 0;
	int next = 0, running = 0;
	fflush(stdout);
	while (next < n_tests || running > 0) {
		while (running < cfg->jobs && next < n_tests) {
			int k = 0;
			while (slots[k].pid)
				k++;
			char *tmp = path_join(cfg->tmpdir, "dnncc-conf-XXXXXX");
			if (!mkdtemp(tmp)) {
				fprintf(stderr, "conformance: mkdtemp %s: %s\n", tmp, strerror(errno));
				exit(2);
			}
			pid_t pid = fork();
			if (pid < 0) {
				fprintf(stderr, "conformance: fork: %s\n", strerror(errno));
				exit(2);
			}
			if (pid == 0)
				worker(cfg, &tests[next], tmp);
			slots[k].pid = pid;
			slots[k].test = next++;
			slots[k].tmp = tmp;
			running++;
		}
		int st;
		pid_t pid = waitpid(-1, &st, 0);
		if (pid < 0) {
			if (errno == EINTR)
				continue;
			fprintf(stderr, "conformance: waitpid: %s\n", strerror(errno));
			exit(2);
		}
		for (int k = 0; k < cfg->jobs; k++) {
			if (slots[k].pid != pid)
				continue;
			collect(&tests[slots[k].test], slots[k].tmp, st);
			remove_tree(slots[k].tmp);
			free(slots[k].tmp);
			slots[k].pid = 0;
			running--;
		}
	}
	free(slots);
}

/* Applies the refused list's rules to a finished test. */
static void judge(struct test *t, const struct refused_entry *refused)
{
	char buf[REASON_MAX + 128];
	if (t->listed) {
		int line = refused[t->listed - 1].line;
		if (t->verdict == V_PASS) {
			snprintf(buf, sizeof buf,
			         "listed in conformance_refused.txt:%d but passes: remove the entry", line);
			t->verdict = V_FAIL;
			set_reason(t->reason, "%s", buf);
		} else if (t->verdict == V_REFUSED && !t->in_scope) {
			snprintf(buf, sizeof buf,
			         "listed in conformance_refused.txt:%d but out of scope anyway: remove "
			         "the entry (%s)",
			         line, t->reason);
			t->verdict = V_FAIL;
			set_reason(t->reason, "%s", buf);
		}
	} else if (t->verdict == V_REFUSED && t->in_scope) {
		snprintf(buf, sizeof buf, "in scope but refused, and not in conformance_refused.txt: %s",
		         t->reason);
		t->verdict = V_FAIL;
		set_reason(t->reason, "%s", buf);
	}
}

/* Per-operator totals: a test counts once under every op type its graph
 * uses, so the rows add up to more than the number of tests. */
struct op_total {
	char name[64];
	int n[3]; /* indexed by enum verdict */
};

static int cmp_op_total(const void *a, const void *b)
{
	return strcmp(((const struct op_total *)a)->name, ((const struct op_total *)b)->name);
}

static void print_op_totals(const struct test *tests, int n_tests)
{
	int n = 0, cap = 64;
	struct op_total *tot = xmalloc(cap * sizeof *tot);
	for (int i = 0; i < n_tests; i++) {
		const char *p = tests[i].ops;
		while (*p) {
			size_t w = strcspn(p, " ");
			char name[64];
			snprintf(name, sizeof name, "%.*s", (int)w, p);
			p += w + (p[w] == ' ');
			int k = 0;
			while (k < n && strcmp(tot[k].name, name) != 0)
				k++;
			if (k == n) {
				if (n == cap) {
					cap *= 2;
					struct op_total *nt = realloc(tot, cap * sizeof *tot);
					if (!nt) {
						fprintf(stderr, "conformance: out of memory\n");
						exit(2);
					}
					tot = nt;
				}
				memset(&tot[n], 0, sizeof tot[n]);
				memcpy(tot[n].name, name, sizeof name);
				n++;
			}
			tot[k].n[tests[i].verdict]++;
		}
	}
	qsort(tot, n, sizeof *tot, cmp_op_total);
	printf("per operator (a test counts under each op type in its graph):\n");
	printf("  %-28s %6s %8s %7s\n", "op_type", "passed", "refused", "failed");
	for (int k = 0; k < n; k++)
		printf("  %-28s %6d %8d %7d\n", tot[k].name, tot[k].n[V_PASS], tot[k].n[V_REFUSED],
		       tot[k].n[V_FAIL]);
	free(tot);
}

int main(int argc, char **argv)
{
	struct config cfg;
	const char *dnncc = env_or("DNNCC", CONFORMANCE_DNNCC);
	const char *srcdir = env_or("DNNCC_SRCDIR", CONFORMANCE_SRCDIR);
	const char *filter = NULL;
	cfg.data = env_or("ONNX_TESTDATA", CONFORMANCE_TESTDATA);
	cfg.tmpdir = env_or("TMPDIR", "/tmp");
	cfg.cc = split_words(env_or("CC", "cc"));
	cfg.jobs = 2;
	cfg.verbose = 0;
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		if (strcmp(a, "-j") == 0 && i + 1 < argc) {
			cfg.jobs = atoi(argv[++i]);
			if (cfg.jobs < 1)
				cfg.jobs = 1;
		} else if (strcmp(a, "--dnncc") == 0 && i + 1 < argc) {
			dnncc = argv[++i];
		} else if (strcmp(a, "--srcdir") == 0 && i + 1 < argc) {
			srcdir = argv[++i];
		} else if (strcmp(a, "--data") == 0 && i + 1 < argc) {
			cfg.data = argv[++i];
		} else if (strcmp(a, "-v") == 0) {
			cfg.verbose = 1;
		} else if (a[0] == '-' || filter) {
			fprintf(stderr,
			        "usage: conformance [-j N] [--dnncc PATH] [--srcdir DIR] [--data DIR] "
			        "[-v] [FILTER]\n");
			return 2;
		} else {
			filter = a;
		}
	}

	char *node_dir = path_join(cfg.data, "node");
	int have_data = file_exists(node_dir);
	free(node_dir);
	if (!have_data) {
		printf("SKIP: no ONNX node tests in %s (install libonnx-testdata or set "
		       "ONNX_TESTDATA)\n",
		       cfg.data);
		return 77;
	}
	cfg.dnncc = absolute(dnncc);
	char *harness = path_join(srcdir, "tests/harness.c");
	cfg.harness = absolute(harness);
	free(harness);
	struct refused_entry *refused;
	int n_refused, n_tests;
	char *list_path = path_join(srcdir, "tests/conformance_refused.txt");
	if (read_refused(list_path, &refused, &n_refused) != 0)
		return 2;
	free(list_path);
	struct test *tests = find_tests(&cfg, filter, refused, n_refused, &n_tests);
	if (n_tests == 0) {
		fprintf(stderr, "conformance: no test%s%s\n", filter ? " matches " : "s in ",
		        filter ? filter : cfg.data);
		return 1;
	}

	run_all(&cfg, tests, n_tests);

	int passed = 0, failed = 0, n_refusals = 0, refused_in_scope = 0;
	for (int i = 0; i < n_tests; i++) {
		struct test *t = &tests[i];
		judge(t, refused);
		switch (t->verdict) {
		case V_PASS:
			passed++;
			if (cfg.verbose)
				printf("PASS    %s\n", t->name);
			break;
		case V_REFUSED:
			n_refusals++;
			refused_in_scope += t->in_scope;
			printf("REFUSED %s: %s\n", t->name, t->reason);
			break;
		case V_FAIL:
			failed++;
			printf("FAIL    %s%s: %s\n", t->name, t->in_scope ? "" : " (out of scope)",
			       t->reason);
			break;
		}
	}
	if (!filter)
		for (int k = 0; k < n_refused; k++)
			if (!refused[k].matched) {
				printf("FAIL    conformance_refused.txt:%d: no test named %s\n",
				       refused[k].line, refused[k].name);
				failed++;
			}
	print_op_totals(tests, n_tests);
	printf("%d tests: %d passed, %d refused cleanly, %d failed\n", n_tests, passed,
	       n_refusals, failed);
	printf("refused as unsupported: %d (in scope: %d listed)\n", n_refusals, refused_in_scope);
	printf("%d passed, %d failed\n", passed, failed);
	return failed ? 1 : 0;
}
