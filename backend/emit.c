/* emit.c - the C emitter: turns a planned graph into NAME.c, NAME.h and, when
 * the weights are not written as a C array, NAME.weights.bin (DESIGN.md §2
 * "Generated code", STYLE.md §8).
 *
 * Needs: the canonical form of passes/passes.h after pass_plan_memory: views
 * have tensor->alias, other activations tensor->offset in an arena of
 * graph->arena_size bytes. Works in two steps. plan_graph() decides
 * everything and reports every problem before a file is opened: which buffer
 * each tensor lives in, the weights blob (every constant a layer reads,
 * float32 little-endian, each 64-byte aligned), the runtime units used, C
 * names, and each layer's kernel parameters as the runtime's own structs
 * (runtime/rt_types.h). The print_* functions then write that plan, top to
 * bottom: header comment, includes, runtime text, weights, arena, sizes, one
 * static function per layer, NAME_run. Output depends on the graph and the
 * options only (no addresses, no time), so it is deterministic.
 *
 * Files are written to temporaries in the output directory and renamed into
 * place only when every write succeeded; a failure removes the temporaries
 * and leaves pre-existing files as they were. */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "backend/backend.h"
#include "runtime/primitives.h"
#include "runtime/rt_types.h"

/* The runtime's source units, in units.def order. */
enum rt_unit {
#define X(e, f) e,
#include "runtime/units.def"
#undef X
	RT_UNIT_COUNT_
};

static const char *const rt_unit_files[RT_UNIT_COUNT_] = {
#define X(e, f) f,
#include "runtime/units.def"
#undef X
};

/* What each unit needs besides rt_types.h (units.def's XD rows). */
static const char *const rt_unit_deps[RT_UNIT_COUNT_] = {
#define XD(e, f, deps) deps,
#include "runtime/units.def"
#undef XD
};

/* The GEMM's micro-kernel file for each RT_SGEMM_ISA_* (runtime/sgemm.h). */
static const char *const sgemm_kernel_files[] = {
	"sgemm_c.c", "sgemm_avx2.c", "sgemm_avx512.c", "sgemm_neon.c",
};

/* Spellings of the RT_SGEMM_ISA_* numbers (rt_types.h). */
static const char *const rt_isa_names[] = {
	"RT_SGEMM_ISA_C", "RT_SGEMM_ISA_AVX2", "RT_SGEMM_ISA_AVX512", "RT_SGEMM_ISA_NEON",
};
_Static_assert(RT_SGEMM_ISA_C == 0 && RT_SGEMM_ISA_AVX2 == 1 && RT_SGEMM_ISA_AVX512 == 2 &&
                       RT_SGEMM_ISA_NEON == 3,
               "rt_isa_names follows the RT_SGEMM_ISA_* numbers");

/* Parameter spellings of enum act, which numbers like enum rt_act. */
static const char *const rt_act_names[ACT_COUNT_] = {
	"RT_ACT_NONE", "RT_ACT_RELU", "RT_ACT_LEAKY_RELU", "RT_ACT_CLIP", "RT_ACT_SIGMOID", "RT_ACT_TANH",
};
_Static_assert(sizeof rt_act_names / sizeof rt_act_names[0] == ACT_COUNT_, "act names");
static const char *const rt_math_names[RT_MATH_COUNT_] = {
#define X(e) #e,
	RT_MATH_FNS(X)
#undef X
};

_Static_assert((int)ACT_NONE == (int)RT_ACT_NONE && (int)ACT_RELU == (int)RT_ACT_RELU &&
                       (int)ACT_LEAKY_RELU == (int)RT_ACT_LEAKY_RELU &&
                       (int)ACT_CLIP == (int)RT_ACT_CLIP && (int)ACT_SIGMOID == (int)RT_ACT_SIGMOID &&
                       (int)ACT_TANH == (int)RT_ACT_TANH,
               "enum act numbers like enum rt_act");

/* AUTO writes weight sets up to this size as a C array, larger ones as .incbin:
 * gcc spends about 20 us per float literal (DESIGN.md §2). */
#define CARRAY_MAX_BYTES ((size_t)1 << 20)
/* Every constant starts on a 64-byte boundary of the weights blob. */
#define WEIGHT_ALIGN 64
/* Float literals per line of a C-array weight set. */
#define FLOATS_PER_LINE 8
/* Most inputs a Concat may have (plus one output: a layer's arguments). */
#define CONCAT_MAX_INPUTS 64
#define LAYER_MAX_ARGS (CONCAT_MAX_INPUTS + 1)
/* Longest part of a C identifier taken from a model name. */
#define NAME_PART_MAX 40

/* ---- the emitter helper: indentation, checked lines, braces ------------- */

struct emitter {
	FILE *f;    /* output; write errors are collected by the stream and checked at close */
	int indent; /* tab depth of the next line */
};

static void emit_line(struct emitter *e, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void emit_open(struct emitter *e, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void emit_vline(struct emitter *e, const char *fmt, va_list ap)
{
	for (int i = 0; i < e->indent; i++)
		fputc('\t', e->f);
	vfprintf(e->f, fmt, ap);
	fputc('\n', e->f);
}

/* One line at the current indentation. */
static void emit_line(struct emitter *e, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	emit_vline(e, fmt, ap);
	va_end(ap);
}

/* A line ending in " {", then one level deeper. */
static void emit_open(struct emitter *e, const char *fmt, ...)
{
	va_list ap;
	for (int i = 0; i < e->indent; i++)
		fputc('\t', e->f);
	va_start(ap, fmt);
	vfprintf(e->f, fmt, ap);
	va_end(ap);
	fputs(" {\n", e->f);
	e->indent++;
}

static void emit_blank(struct emitter *e)
{
	fputc('\n', e->f);
}

/* "{" alone on a line (a function body), then one level deeper. */
static void emit_open_block(struct emitter *e)
{
	for (int i = 0; i < e->indent; i++)
		fputc('\t', e->f);
	fputs("{\n", e->f);
	e->indent++;
}

/* One level up, then "}" followed by suffix (e.g. ";"). */
static void emit_close(struct emitter *e, const char *suffix)
{
	e->indent--;
	emit_line(e, "}%s", suffix);
}

/* Text copied as it is (runtime sources). */
static void emit_raw(struct emitter *e, const char *text, size_t n)
{
	fwrite(text, 1, n, e->f);
}

/* ---- the plan ------------------------------------------------------------ */

/* Where a tensor's data lives while NAME_run runs. */
enum buf_kind {
	BUF_NONE,   /* not touched by generated code */
	BUF_INPUT,  /* inputs[slot] */
	BUF_OUTPUT, /* outputs[slot]: a graph output written by its producer */
	BUF_CONST,  /* weights base + offset bytes */
	BUF_ARENA,  /* NAME_arena + offset bytes */
	BUF_VIEW,   /* the buffer of root (a view that the planner aliased) */
};

struct tbuf {
	enum buf_kind kind;
	int slot;                   /* BUF_INPUT, BUF_OUTPUT: graph input or output index */
	size_t offset;              /* BUF_CONST: blob bytes; BUF_ARENA: arena bytes */
	const struct tensor *root;  /* BUF_VIEW: the alias root (never itself a view) */
	int used;                   /* NAME_run needs a pointer variable for it */
	const char *var;            /* that variable's name */
	const char *array;          /* BUF_CONST of another type than float32: its own C array */
};

/* One live node. Views the planner aliased emit nothing; a view it did not
 * alias is a copy. Every other layer is one static function calling one
 * runtime kernel with literal parameters. */
struct layer {
	struct node *node;
	const char *fn;        /* static function name, e.g. l12_conv1 (NULL: view) */
	int number;            /* position among the layer functions */
	int is_view;           /* no code: OP_FLATTEN/RESHAPE/SQUEEZE/UNSQUEEZE, a zero-copy Concat */
	int copy;              /* an unaliased view: memcpy in NAME_run */
	enum rt_unit unit;     /* the runtime unit it calls */
	const char *kernel;    /* the runtime function, for the comment */
	const struct rt_prim *prim; /* OP_CONV: the primitive row select chose, or NULL */
	int block;             /* pool_cl.c, global_pool_cl.c: 0 HWC, 8 CHW8c, 16 CHW16c */
	size_t ws_bytes;       /* arena workspace passed as the last argument, or 0 */
	size_t ws_offset;      /* its arena byte offset */
	int n_args;            /* tensors passed to the function: data inputs, then the output */
	int n_outs;            /* outputs among them (the last ones): 1 but for typed layers */
	struct tensor *args[LAYER_MAX_ARGS];
	const char *arg_names[LAYER_MAX_ARGS];
	union {
		struct rt_conv2d conv;
		struct rt_pool2d pool;
		struct rt_gemm gemm;
		struct {
			struct rt_bcast batch;
			int M, N, K;
		} matmul;
		struct {
			int op; /* enum rt_binop */
			struct rt_bcast b;
			int64_t n; /* eltwise.c: floats of each operand, in their layout */
		} binary;
		struct {
			int act;
			float alpha, beta;
			int64_t n;
		} unary;
		struct {
			int64_t n;
			int has_lo, has_hi; /* min / max read at run time (args lo, hi) */
			float lo, hi;       /* the constant bounds used where not */
		} clip;
		struct {
			int N, C, HW;
			float epsilon;
		} batchnorm;
		struct {
			int outer, len, inner, log;
		} softmax;
		struct {
			int nc, hw;
			int N, C; /* global_pool_cl.c */
		} global;
		struct {
			int N, C, HW, size;
			float alpha, beta, bias;
		} lrn;
		struct {
			int outer, total;
			int *part;   /* [n_args - 1] */
			int *offset; /* [n_args - 1] */
		} concat;
		struct rt_transpose transpose;
		struct {
			struct rt_transpose t;
			int64_t x_offset; /* x element of y[0] */
		} strided;          /* Slice, Expand, Tile: rt_transpose from x + x_offset */
		struct rt_pad pad;
		struct rt_resize resize;
		struct rt_window3d win;
		struct rt_resize3d resize3d;
		struct {
			int op; /* enum rt_reduce_op */
			struct rt_reduce r;
		} reduce;
		struct rt_norm norm;
		struct {
			int N, C, H, W;
		} layout;
		struct {
			const char *body; /* emit_typed.c's statements */
		} typed;
	} u;
};

/* A slice of runtime source text: plain text, or one `static inline`
 * function, which is copied only when the copied text calls it (clang warns
 * about unused static inline functions in a .c file: rt_act_apply in
 * rt_types.h is unused by a model without Conv, Gemm and activations). */
struct piece {
	int file;          /* index into plan.rt_files */
	const char *text;  /* not NUL-terminated */
	size_t len;
	char fn[64];       /* name of the static inline function, or "" */
	int keep;          /* copied */
};

/* Identifiers in the generated file: unique over everything we name, so no
 * local shadows a global and no two models' statics matter. */
struct name_table {
	int n, cap;
	char **names; /* owned */
};

struct plan {
	const struct graph *g;
	const struct options *opt;
	struct diag *d;
	const char *name;        /* NAME, the C symbol prefix */
	char *upper;             /* NAME in capitals */
	char *c_path, *h_path, *bin_path; /* output files */
	char *base;              /* the file name stem, e.g. "3d-net" */
	struct tbuf *tb;         /* [g->n_tensors] */
	int n_layers;
	struct layer *layers;    /* [n_layers], graph order */
	int unit_used[RT_UNIT_COUNT_];
	int n_rt_files;
	const struct embedded_file *rt_files[RT_UNIT_COUNT_ + 8]; /* rt_types.h, the thread pool,
	                                                             the GEMM, rt_simd.h, the units */
	int uses_sgemm;          /* 1: sgemm.h is copied; 2: the whole GEMM */
	int n_pieces;
	struct piece *pieces;    /* [n_pieces] the runtime text, file by file */
	int n_consts;
	const struct tensor **consts; /* [n_consts] the weights, in blob order */
	size_t weights_bytes;    /* blob size */
	enum weights_mode mode;  /* resolved: never WEIGHTS_AUTO */
	const char *weights_sym; /* C name of the blob's first float */
	int uses_arena;
	int typed;               /* some tensor is not float32 (issue 11): stdint.h, aligned arena */
	int typed_io;            /* some graph input or output is not float32: void * interface */
	struct name_table names;
	const char *prof_var;    /* --instrument: NAME_run's struct timespec */
	int n_strings, cap_strings;
	void **strings;          /* owned allocations referred to by the plan */
};

static void *plan_keep(struct plan *p, void *s)
{
	if (p->n_strings == p->cap_strings) {
		p->cap_strings = p->cap_strings ? 2 * p->cap_strings : 64;
		p->strings = xrealloc(p->strings, p->cap_strings * sizeof *p->strings);
	}
	p->strings[p->n_strings++] = s;
	return s;
}

static char *plan_fmt(struct plan *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static char *plan_fmt(struct plan *p, const char *fmt, ...)
{
	char small[256];
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(small, sizeof small, fmt, ap);
	va_end(ap);
	if (n < 0)
		unreachable("bad format");
	char *s = xmalloc((size_t)n + 1);
	if ((size_t)n < sizeof small) {
		memcpy(s, small, (size_t)n + 1);
	} else {
		va_start(ap, fmt);
		vsnprintf(s, (size_t)n + 1, fmt, ap);
		va_end(ap);
	}
	return plan_keep(p, s);
}

/* Text safe inside a C comment: printable ASCII only, no comment delimiters,
 * no trigraphs (C99 5.2.1.1), no backslash that could splice lines. */
static const char *cmt(struct plan *p, const char *s)
{
	if (!s)
		s = "";
	size_t n = strlen(s);
	char *out = xmalloc(2 * n + 1);
	size_t k = 0;
	for (size_t i = 0; i < n; i++) {
		char c = s[i];
		if ((unsigned char)c < 0x20 || (unsigned char)c >= 0x7f)
			c = '?';
		else if (c == '\\')
			c = '/';
		if (k > 0 && ((out[k - 1] == '*' && c == '/') || (out[k - 1] == '/' && c == '*') ||
		              (out[k - 1] == '?' && c == '?')))
			out[k++] = ' ';
		out[k++] = c;
	}
	out[k] = '\0';
	return plan_keep(p, out);
}

/* "[1, 3, 224, 224]" ("[]" for a scalar). */
static const char *shape_str(struct plan *p, const struct tensor *t)
{
	char buf[IR_MAX_RANK * 24 + 4];
	size_t k = 0;
	buf[k++] = '[';
	for (int i = 0; i < t->rank; i++)
		k += snprintf(buf + k, sizeof buf - k, "%s%" PRId64, i ? ", " : "", t->dims[i]);
	snprintf(buf + k, sizeof buf - k, "]");
	return plan_fmt(p, "%s", buf);
}

/* "'name' [dims]" plus its layout when not the model's own. */
static const char *tensor_desc(struct plan *p, const struct tensor *t)
{
	if (t->layout != LAYOUT_MODEL && t->layout < LAYOUT_COUNT_)
		return plan_fmt(p, "'%s' %s %s", cmt(p, t->name), shape_str(p, t),
		                ir_layout_names[t->layout]);
	return plan_fmt(p, "'%s' %s", cmt(p, t->name), shape_str(p, t));
}

static int names_has(const struct name_table *nt, const char *s)
{
	for (int i = 0; i < nt->n; i++)
		if (strcmp(nt->names[i], s) == 0)
			return 1;
	return 0;
}

static const char *names_put(struct name_table *nt, char *s)
{
	if (nt->n == nt->cap) {
		nt->cap = nt->cap ? 2 * nt->cap : 64;
		nt->names = xrealloc(nt->names, nt->cap * sizeof *nt->names);
	}
	nt->names[nt->n++] = s;
	return s;
}

static int ident_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

/* prefix + raw with every run of characters outside [A-Za-z0-9] made one '_'
 * ("/net/conv1/Conv" -> "net_conv1_Conv", at most NAME_PART_MAX of them),
 * then "_2", "_3", ... until unused. prefix starts with a letter and ends in
 * '_', so the result is a C identifier without "__". */
static const char *names_add(struct name_table *nt, const char *prefix, const char *raw)
{
	size_t plen = strlen(prefix);
	char *s = xmalloc(plen + NAME_PART_MAX + 24);
	memcpy(s, prefix, plen);
	size_t n = 0;
	for (const char *c = raw ? raw : ""; *c && n < NAME_PART_MAX; c++) {
		int keep = ident_char(*c) && *c != '_';
		if (keep)
			s[plen + n++] = *c;
		else if (n > 0 && s[plen + n - 1] != '_')
			s[plen + n++] = '_';
	}
	while (n > 0 && s[plen + n - 1] == '_')
		n--;
	if (n == 0)
		s[plen + n++] = 'x';
	s[plen + n] = '\0';
	for (int k = 2; names_has(nt, s); k++)
		snprintf(s + plen + n, 24, "_%d", k);
	return names_put(nt, s);
}

static void names_reserve(struct name_table *nt, const char *s)
{
	names_put(nt, xstrdup(s));
}

static void names_free(struct name_table *nt)
{
	for (int i = 0; i < nt->n; i++)
		free(nt->names[i]);
	free(nt->names);
}

/* NAME from the -o path when the caller gave none (DESIGN.md §2): the base
 * name without ".c", characters outside [A-Za-z0-9_] made '_', "m_" before a
 * leading digit. */
static char *default_name(struct plan *p, const char *base)
{
	size_t n = strlen(base);
	char *id = xmalloc(n + 3);
	size_t k = 0;
	if (n == 0 || (base[0] >= '0' && base[0] <= '9')) {
		id[k++] = 'm';
		id[k++] = '_';
	}
	for (size_t i = 0; i < n; i++)
		id[k++] = ident_char(base[i]) ? base[i] : '_';
	id[k] = '\0';
	return plan_keep(p, id);
}

/* ---- planning: buffers ---------------------------------------------------- */

static int is_view_op(enum op op)
{
	return op == OP_FLATTEN || op == OP_RESHAPE || op == OP_SQUEEZE || op == OP_UNSQUEEZE;
}

static struct tbuf *tb_of(struct plan *p, const struct tensor *t)
{
	return &p->tb[t->index];
}

/* The tensor whose buffer t uses: t itself, or the end of its alias chain. */
static const struct tensor *root_of(const struct plan *p, const struct tensor *t)
{
	for (int steps = 0; t->alias; steps++) {
		if (steps > p->g->n_tensors)
			unreachable("cycle of tensor aliases");
		t = t->alias;
	}
	return t;
}

static int in_graph(const struct graph *g, const struct tensor *t)
{
	return t->index >= 0 && t->index < g->n_tensors && g->tensors[t->index] == t;
}

/* Places every tensor: inputs, outputs, constants, arena, views. */
static void plan_buffers(struct plan *p)
{
	const struct graph *g = p->g;
	for (int i = 0; i < g->n_tensors; i++) {
		const struct tensor *t = g->tensors[i];
		if (t->index != i)
			unreachable("stale tensor index");
		struct tbuf *b = &p->tb[i];
		if (t->alias) {
			b->kind = BUF_VIEW;
			b->root = root_of(p, t);
		} else if (t->is_input) {
			b->kind = BUF_INPUT;
		} else if (t->data) {
			b->kind = BUF_CONST;
		} else if (t->is_output) {
			b->kind = BUF_OUTPUT;
		} else {
			b->kind = BUF_ARENA;
			b->offset = t->offset;
		}
	}
	for (int j = 0; j < g->n_inputs; j++) {
		const struct tensor *t = g->inputs[j];
		if (!in_graph(g, t) || p->tb[t->index].kind != BUF_INPUT) {
			diag_error(p->d, NULL, "internal error: graph input '%s' is not a plain input",
			           t->name);
			continue;
		}
		p->tb[t->index].slot = j;
	}
	/* A graph output listed twice lives in its first slot. */
	for (int j = g->n_outputs - 1; j >= 0; j--) {
		const struct tensor *t = g->outputs[j];
		if (!in_graph(g, t)) {
			diag_error(p->d, NULL, "internal error: graph output '%s' is not in the graph",
			           t->name);
			continue;
		}
		if (p->tb[t->index].kind == BUF_OUTPUT)
			p->tb[t->index].slot = j;
	}
}

/* Checks that generated code can read or write t as dense float32. */
static int check_tensor(struct plan *p, const struct node *n, const struct tensor *t)
{
	if (!in_graph(p->g, t)) {
		diag_error(p->d, n, "internal error: tensor '%s' is not in the graph", t->name);
		return -1;
	}
	if (t->rank < 0) {
		diag_error(p->d, n, "internal error: tensor '%s' has no shape", t->name);
		return -1;
	}
	if (!typed_dtype_ok(t->dtype)) {
		diag_error(p->d, n, "tensor '%s' has type %s; generated code computes on float32, "
		           "float64, int64, int32, int8, uint8 and bool only",
		           t->name, t->dtype < DTYPE_COUNT_ ? ir_dtype_names[t->dtype] : "?");
		return -1;
	}
	if (ir_numel(t) <= 0) {
		diag_error(p->d, n, "tensor '%s' has no elements (shape %s); empty tensors are not "
		           "supported",
		           t->name, shape_str(p, t));
		return -1;
	}
	const struct tbuf *b = tb_of(p, t);
	if (b->kind == BUF_VIEW) {
		const struct tensor *r = b->root;
		/* a view has the root's type and size; a Concat's slice lies inside it */
		if (r->dtype != t->dtype || r->rank < 0 ||
		    t->alias_offset + ir_nbytes(t) > ir_nbytes(r)) {
			diag_error(p->d, n, "internal error: view '%s' does not match its alias '%s'",
			           t->name, r->name);
			return -1;
		}
	}
	return 0;
}

/* Checks t and marks it, and its alias root, as needing a pointer in
 * NAME_run (only what is used is declared: no unused variables). */
static void use_tensor(struct plan *p, const struct node *n, const struct tensor *t)
{
	if (check_tensor(p, n, t))
		return;
	struct tbuf *b = tb_of(p, t);
	b->used = 1;
	if (t->dtype != DTYPE_F32)
		p->typed = 1;
	if (b->kind == BUF_VIEW)
		tb_of(p, b->root)->used = 1;
}

/* ---- planning: layers ----------------------------------------------------- */

static int fits_int(struct plan *p, const struct node *n, int64_t v, const char *what)
{
	if (v >= 0 && v <= INT_MAX)
		return 1;
	diag_error(p->d, n, "%s %" PRId64 " does not fit the runtime's int parameters", what, v);
	return 0;
}

static int64_t prod(const int64_t *dims, int from, int to)
{
	int64_t r = 1;
	for (int i = from; i < to; i++)
		r *= dims[i];
	return r;
}

/* Drops dims of size 1 and merges neighbours that every operand walks
 * contiguously (s[k] == s[k+1] * dims[k+1]), so broadcasts of high rank fit
 * RT_MAX_RANK and the kernels loop less. strides: n_ops arrays of rank. */
static int merge_dims(int rank, int64_t *dims, int n_ops, int64_t strides[][IR_MAX_RANK])
{
	int r = 0;
	for (int k = 0; k < rank; k++) {
		if (dims[k] == 1)
			continue;
		if (r > 0) {
			int contiguous = 1;
			for (int o = 0; o < n_ops; o++)
				if (strides[o][r - 1] != strides[o][k] * dims[k])
					contiguous = 0;
			if (contiguous) {
				dims[r - 1] *= dims[k];
				for (int o = 0; o < n_ops; o++)
					strides[o][r - 1] = strides[o][k];
				continue;
			}
		}
		dims[r] = dims[k];
		for (int o = 0; o < n_ops; o++)
			strides[o][r] = strides[o][k];
		r++;
	}
	return r;
}

/* Strides, in elements of the dense operand x, for reading it broadcast to
 * out_dims (right-aligned, numpy rules); -1 when the shapes do not broadcast. */
static int bcast_strides(int out_rank, const int64_t *out_dims, int x_rank, const int64_t *x_dims,
                         int64_t *strides /* out: [out_rank] */)
{
	if (x_rank > out_rank)
		return -1;
	int64_t s = 1;
	for (int k = out_rank - 1; k >= 0; k--) {
		int xk = k - (out_rank - x_rank);
		int64_t xd = xk >= 0 ? x_dims[xk] : 1;
		if (xd != 1 && xd != out_dims[k])
			return -1;
		strides[k] = xd == 1 ? 0 : s;
		s *= xd;
	}
	return 0;
}

static int to_bcast(struct plan *p, const struct node *n, int rank, int64_t *dims,
                    int64_t strides[][IR_MAX_RANK], struct rt_bcast *b)
{
	rank = merge_dims(rank, dims, 2, strides);
	b->rank = rank;
	for (int k = 0; k < rank; k++) {
		if (!fits_int(p, n, dims[k], "dimension") || !fits_int(p, n, strides[0][k], "stride") ||
		    !fits_int(p, n, strides[1][k], "stride"))
			return -1;
		b->dims[k] = (int)dims[k];
		b->sa[k] = (int)strides[0][k];
		b->sb[k] = (int)strides[1][k];
	}
	return 0;
}

static void add_arg(struct layer *l, struct tensor *t, const char *name)
{
	l->args[l->n_args] = t;
	l->arg_names[l->n_args] = name;
	l->n_args++;
}

/* Spatial attributes of Conv and the pools, mapped to the 2-D kernels: a 1-D
 * operator is a 2-D one with H = 1 (kernel, stride, dilation 1, no pads). */
struct spatial {
	int k[2], s[2], dl[2], pb[2], pe[2]; /* per (H, W): kernel, stride, dilation, pad begin, end */
};

static int get_spatial(struct plan *p, struct node *n, int nsp, struct spatial *sp)
{
	const int64_t *ks, *st, *dl, *pads;
	int nk = ir_attr_ints(n, "kernel_shape", &ks);
	int ns = ir_attr_ints(n, "strides", &st);
	int nd = ir_attr_ints(n, "dilations", &dl);
	int np = ir_attr_ints(n, "pads", &pads);
	if (nk != nsp || (ns && ns != nsp) || (nd && nd != nsp) || (np && np != 2 * nsp)) {
		diag_error(p->d, n, "kernel_shape, strides, dilations or pads do not match %d spatial "
		           "dims",
		           nsp);
		return -1;
	}
	int off = 2 - nsp;
	for (int i = 0; i < 2; i++) {
		sp->k[i] = sp->s[i] = sp->dl[i] = 1;
		sp->pb[i] = sp->pe[i] = 0;
	}
	for (int i = 0; i < nsp; i++) {
		int64_t v[5] = {ks[i], ns ? st[i] : 1, nd ? dl[i] : 1, np ? pads[i] : 0,
		                np ? pads[nsp + i] : 0};
		for (int j = 0; j < 5; j++)
			if (!fits_int(p, n, v[j], "kernel attribute"))
				return -1;
		if (v[0] < 1 || v[1] < 1 || v[2] < 1) {
			diag_error(p->d, n, "kernel, stride and dilation must be positive");
			return -1;
		}
		sp->k[off + i] = (int)v[0];
		sp->s[off + i] = (int)v[1];
		sp->dl[off + i] = (int)v[2];
		sp->pb[off + i] = (int)v[3];
		sp->pe[off + i] = (int)v[4];
	}
	return 0;
}

/* Spatial dims of an [N, C, W] or [N, C, H, W] tensor as (H, W); 0 if its
 * rank is neither. */
static int spatial_dims(const struct tensor *t, int64_t hw[2])
{
	if (t->rank == 3) {
		hw[0] = 1;
		hw[1] = t->dims[2];
		return 1;
	}
	if (t->rank == 4) {
		hw[0] = t->dims[2];
		hw[1] = t->dims[3];
		return 2;
	}
	return 0;
}

/* Conv and pooling in 3-D and ConvTranspose in 1-D and 3-D run on the
 * rt_window3d reference kernels (conv3d.c, pool3d.c, conv_transpose3d.c),
 * the spatial dims right-aligned into (D, H, W) with leading dims of 1. The
 * canonical attributes: kernel_shape, strides, dilations, one value per
 * spatial dim; pads two per dim (ConvTranspose: the leading pads only). */
static int plan_window3d(struct plan *p, struct layer *l)
{
	struct node *n = l->node;
	struct tensor *x = n->inputs[0], *y = n->outputs[0];
	struct tensor *w = n->op == OP_MAXPOOL || n->op == OP_AVGPOOL ? NULL : n->inputs[1];
	struct tensor *b = w && n->n_inputs > 2 ? n->inputs[2] : NULL;
	const int tr = n->op == OP_CONV_TRANSPOSE, sp = x->rank - 2, off = 3 - sp;
	const int64_t *ks, *st, *dl, *pd;
	if (sp < 1 || sp > 3 || y->rank != x->rank || (w && w->rank != x->rank) ||
	    ir_attr_ints(n, "kernel_shape", &ks) != sp || ir_attr_ints(n, "strides", &st) != sp ||
	    ir_attr_ints(n, "dilations", &dl) != sp ||
	    ir_attr_ints(n, "pads", &pd) != (tr ? sp : 2 * sp)) {
		diag_error(p->d, n, "internal error: %s not in canonical form (input %s)",
		           ir_op_names[n->op], shape_str(p, x));
		return -1;
	}
	int64_t v[] = {x->dims[0], x->dims[1], y->dims[1], ir_attr_int(n, "group", 1), ir_numel(x),
	               ir_numel(y)};
	for (size_t i = 0; i < sizeof v / sizeof v[0]; i++)
		if (!fits_int(p, n, v[i], "dimension"))
			return -1;
	struct rt_window3d *c = &l->u.win;
	memset(c, 0, sizeof *c);
	*c = (struct rt_window3d){
		.N = (int)v[0], .C = (int)v[1], .M = (int)v[2], .group = w ? (int)v[3] : 1,
		.act = (int)n->act, .alpha = n->act_alpha, .beta = n->act_beta,
		.max = n->op == OP_MAXPOOL,
		.count_include_pad = n->op == OP_AVGPOOL && ir_attr_int(n, "count_include_pad", 0),
	};
	for (int i = 0; i < 3; i++) {
		int j = i - off; /* the operator's spatial dim, < 0 for an added one */
		c->in[i] = j < 0 ? 1 : (int)x->dims[2 + j];
		c->out[i] = j < 0 ? 1 : (int)y->dims[2 + j];
		c->k[i] = j < 0 ? 1 : (int)ks[j];
		c->s[i] = j < 0 ? 1 : (int)st[j];
		c->d[i] = j < 0 ? 1 : (int)dl[j];
		c->pb[i] = j < 0 ? 0 : (int)pd[j];
		c->pe[i] = j < 0 || tr ? 0 : (int)pd[sp + j];
		if (j >= 0 && (!fits_int(p, n, ks[j], "kernel size") || !fits_int(p, n, st[j], "stride") ||
		               !fits_int(p, n, dl[j], "dilation") || !fits_int(p, n, pd[j], "pad") ||
		               (!tr && !fits_int(p, n, pd[sp + j], "pad"))))
			return -1;
	}
	if (n->op == OP_CONV) {
		l->unit = RT_UNIT_CONV3D;
		l->kernel = "rt_conv3d_ref";
	} else if (tr) {
		l->unit = RT_UNIT_CONV_TRANSPOSE3D;
		l->kernel = "rt_conv_transpose3d_ref";
	} else {
		l->unit = RT_UNIT_POOL3D;
		l->kernel = "rt_pool3d";
	}
	add_arg(l, x, "x");
	if (w)
		add_arg(l, w, "w");
	if (b)
		add_arg(l, b, "b");
	return 0;
}

/* A fused residual (fuse.c): the primitive runs without its activation, then
 * rt_conv_residual adds r (laid out like y) and applies it. */
static void plan_conv_residual(struct plan *p, struct layer *l)
{
	struct node *n = l->node;
	if (!fuse_has_residual(n))
		return;
	add_arg(l, n->inputs[FUSE_RESIDUAL_INPUT], "r");
	p->unit_used[RT_UNIT_RESIDUAL] = 1;
}

static int has_arg(const struct layer *l, const char *name)
{
	for (int k = 0; k < l->n_args; k++)
		if (strcmp(l->arg_names[k], name) == 0)
			return 1;
	return 0;
}

/* A convolution through the primitive select chose: the row's RUN with the
 * layer as literal constants, weights as select packed them, the workspace
 * plan_memory placed. */
static int plan_conv_primitive(struct plan *p, struct layer *l)
{
	struct node *n = l->node;
	struct tensor *b = n->n_inputs > 2 ? n->inputs[2] : NULL;
	l->prim = rt_prim_find(n->primitive);
	if (!l->prim || pass_conv_params(n, p->opt->isa, &l->u.conv)) {
		diag_error(p->d, n, "internal error: unknown primitive '%s'", n->primitive);
		return -1;
	}
	l->unit = (enum rt_unit)l->prim->unit;
	l->kernel = l->prim->run_name;
	l->ws_bytes = n->ws_bytes;
	l->ws_offset = n->ws_offset;
	add_arg(l, n->inputs[0], "x");
	add_arg(l, n->inputs[1], "w");
	if (b)
		add_arg(l, b, "b");
	plan_conv_residual(p, l);
	return 0;
}

static int plan_conv(struct plan *p, struct layer *l)
{
	struct node *n = l->node;
	struct tensor *x = n->inputs[0], *w = n->inputs[1], *y = n->outputs[0];
	struct tensor *b = n->n_inputs > 2 ? n->inputs[2] : NULL;
	if (n->primitive)
		return plan_conv_primitive(p, l);
	if (x->rank == 5)
		return plan_window3d(p, l);
	int64_t xhw[2], yhw[2];
	int nsp = spatial_dims(x, xhw);
	if (!nsp || spatial_dims(y, yhw) != nsp || w->rank != x->rank) {
		diag_error(p->d, n, "only 1-D and 2-D convolutions are supported (input %s, weights "
		           "%s)",
		           shape_str(p, x), shape_str(p, w));
		return -1;
	}
	struct spatial sp;
	if (get_spatial(p, n, nsp, &sp))
		return -1;
	int64_t group = ir_attr_int(n, "group", 1);
	int64_t N = x->dims[0], C = x->dims[1], M = w->dims[0];
	if (group < 1 || C % group || M % group || w->dims[1] != C / group || y->dims[1] != M ||
	    y->dims[0] != N || (b && (b->rank != 1 || b->dims[0] != M))) {
		diag_error(p->d, n, "inconsistent shapes: input %s, weights %s, group %" PRId64,
		           shape_str(p, x), shape_str(p, w), group);
		return -1;
	}
	if (w->dims[w->rank - 1] != sp.k[1] || (nsp == 2 && w->dims[2] != sp.k[0])) {
		diag_error(p->d, n, "weights %s do not match kernel_shape", shape_str(p, w));
		return -1;
	}
	int64_t v[] = {N, C, xhw[0], xhw[1], M, yhw[0], yhw[1], group};
	for (size_t i = 0; i < sizeof v / sizeof v[0]; i++)
		if (!fits_int(p, n, v[i], "dimension"))
			return -1;
	struct rt_conv2d *c = &l->u.conv;
	*c = (struct rt_conv2d){
		.N = (int)N, .C = (int)C, .H = (int)xhw[0], .W = (int)xhw[1],
		.M = (int)M, .oH = (int)yhw[0], .oW = (int)yhw[1],
		.kH = sp.k[0], .kW = sp.k[1], .sH = sp.s[0], .sW = sp.s[1],
		.dH = sp.dl[0], .dW = sp.dl[1], .padT = sp.pb[0], .padL = sp.pb[1],
		.group = (int)group, .act = (int)n->act, .alpha = n->act_alpha, .beta = n->act_beta,
	};
	l->unit = RT_UNIT_CONV_REF;
	l->kernel = "rt_conv2d_ref";
	add_arg(l, x, "x");
	add_arg(l, w, "w");
	if (b)
		add_arg(l, b, "b");
	plan_conv_residual(p, l);
	return 0;
}

/* A tensor select left in HWC or a blocked layout: the layout-aware
 * kernels' block (0 HWC, 8, 16); -1 for the model's layout (and HCW). */
static int cl_block(const struct tensor *t)
{
	return t->layout == LAYOUT_HWC ? 0 : t->layout == LAYOUT_CHW8C ? 8 :
	       t->layout == LAYOUT_CHW16C ? 16 : -1;
}

static int plan_pool(struct plan *p, struct layer *l)
{
	struct node *n = l->node;
	struct tensor *x = n->inputs[0], *y = n->outputs[0];
	if (x->rank == 5)
		return plan_window3d(p, l);
	int64_t xhw[2], yhw[2];
	int nsp = spatial_dims(x, xhw);
	if (!nsp || spatial_dims(y, yhw) != nsp || y->dims[0] != x->dims[0] ||
	    y->dims[1] != x->dims[1]) {
		diag_error(p->d, n, "only 1-D and 2-D pooling is supported (input %s, output %s)",
		           shape_str(p, x), shape_str(p, y));
		return -1;
	}
	struct spatial sp;
	if (get_spatial(p, n, nsp, &sp))
		return -1;
	int64_t v[] = {x->dims[0], x->dims[1], xhw[0], xhw[1], yhw[0], yhw[1]};
	for (size_t i = 0; i < sizeof v / sizeof v[0]; i++)
		if (!fits_int(p, n, v[i], "dimension"))
			return -1;
	int avg = n->op == OP_AVGPOOL;
	l->u.pool = (struct rt_pool2d){
		.N = (int)v[0], .C = (int)v[1], .H = (int)v[2], .W = (int)v[3],
		.oH = (int)v[4], .oW = (int)v[5], .kH = sp.k[0], .kW = sp.k[1],
		.sH = sp.s[0], .sW = sp.s[1], .dH = sp.dl[0], .dW = sp.dl[1],
		.padT = sp.pb[0], .padL = sp.pb[1], .padB = sp.pe[0], .padR = sp.pe[1],
		.count_include_pad = avg ? (int)ir_attr_int(n, "count_include_pad", 0) != 0 : 0,
	};
	l->unit = avg ? RT_UNIT_AVGPOOL : RT_UNIT_MAXPOOL;
	l->kernel = avg ? "rt_avgpool2d" : "rt_maxpool2d";
	if ((l->block = cl_block(x)) >= 0) {
		if (x->layout != y->layout || nsp != 2) {
			diag_error(p->d, n, "internal error: pooling from %s to %s", tensor_desc(p, x),
			           tensor_desc(p, y));
			return -1;
		}
		l->unit = RT_UNIT_POOL_CL;
		l->kernel = "rt_pool2d_cl";
	}
	add_arg(l, x, "x");
	return 0;
}

/* Gemm or MatMul whose constant B select packed for gemm_fc.c. */
static int is_gemm_fc(const struct node *n)
{
	return n->primitive && strcmp(n->primitive, "gemm_fc") == 0;
}

/* Gemm's C is unidirectionally broadcast to [M, N]: scalar or [1] -> (0, 0),
 * [N] -> (0, 1), [M, 1] -> (1, 0), [M, N] -> (N, 1). */
static int plan_gemm(struct plan *p, struct layer *l)
{
	struct node *n = l->node;
	struct tensor *a = n->inputs[0], *b = n->inputs[1], *y = n->outputs[0];
	struct tensor *c = n->n_inputs > 2 ? n->inputs[2] : NULL;
	int transA = ir_attr_int(n, "transA", 0) != 0, transB = ir_attr_int(n, "transB", 0) != 0;
	/* gemm_fc: select packed B (then 1-D) into panels and checked its shape */
	int fc = is_gemm_fc(n);
	int sg = n->primitive && strcmp(n->primitive, "gemm_sgemm") == 0;
	if (fc && b->rank == 1 && y->rank == 2)
		b = NULL;
	if (a->rank != 2 || (b && b->rank != 2) || y->rank != 2 || (c && c->rank > 2)) {
		diag_error(p->d, n, "Gemm needs 2-D A and B (got %s and %s)", shape_str(p, a),
		           shape_str(p, b));
		return -1;
	}
	int64_t M = y->dims[0], N = y->dims[1];
	int64_t K = transA ? a->dims[0] : a->dims[1];
	int64_t am = transA ? a->dims[1] : a->dims[0];
	int64_t bk = !b ? K : transB ? b->dims[1] : b->dims[0];
	int64_t bn = !b ? N : transB ? b->dims[0] : b->dims[1];
	if (am != M || bk != K || bn != N) {
		diag_error(p->d, n, "inconsistent shapes: A %s, B %s, Y %s", shape_str(p, a),
		           shape_str(p, n->inputs[1]), shape_str(p, y));
		return -1;
	}
	int64_t c_sm = 0, c_sn = 0;
	if (c) {
		int64_t cm = c->rank == 2 ? c->dims[0] : 1;
		int64_t cn = c->rank >= 1 ? c->dims[c->rank - 1] : 1;
		if ((cm != 1 && cm != M) || (cn != 1 && cn != N)) {
			diag_error(p->d, n, "C %s does not broadcast to [%" PRId64 ", %" PRId64 "]",
			           shape_str(p, c), M, N);
			return -1;
		}
		c_sn = cn == 1 ? 0 : 1;
		c_sm = cm == 1 ? 0 : cn;
	}
	if (!fits_int(p, n, M, "dimension") || !fits_int(p, n, N, "dimension") ||
	    !fits_int(p, n, K, "dimension"))
		return -1;
	l->u.gemm = (struct rt_gemm){
		.M = (int)M, .N = (int)N, .K = (int)K, .transA = transA, .transB = transB,
		.alpha = (float)ir_attr_float(n, "alpha", 1.0), .beta = (float)ir_attr_float(n, "beta", 1.0),
		.c_sm = (int)c_sm, .c_sn = (int)c_sn,
		.act = (int)n->act, .act_alpha = n->act_alpha, .act_beta = n->act_beta,
	};
	l->unit = fc ? RT_UNIT_GEMM_FC : sg ? RT_UNIT_GEMM_SGEMM : RT_UNIT_GEMM_REF;
	l->kernel = fc ? "rt_gemm_fc" : sg ? "rt_gemm_sgemm" : "rt_gemm_ref";
	if (sg) {
		l->ws_bytes = n->ws_bytes;
		l->ws_offset = n->ws_offset;
	}
	add_arg(l, a, "a");
	add_arg(l, n->inputs[1], "b");
	if (c)
		add_arg(l, c, "c");
	return 0;
}

/* ONNX MatMul (numpy.matmul): a 1-D A is [1, K] and a 1-D B is [K, 1], with
 * that dim dropped from the output; the batch dims broadcast, and the
 * kernel's batch strides count whole matrices. */
static int plan_matmul(struct plan *p, struct layer *l)
{
	struct node *n = l->node;
	struct tensor *a = n->inputs[0], *b = n->inputs[1], *y = n->outputs[0];
	if (a->rank < 1 || b->rank < 1) {
		diag_error(p->d, n, "MatMul operands must have rank >= 1");
		return -1;
	}
	if (is_gemm_fc(n)) {
		/* constant 2-D B, packed by select: every row of A, batch dims
		 * included, is one row of a Gemm [rows, K] x [K, N] */
		int64_t K = a->dims[a->rank - 1], rows = ir_numel(a) / (K ? K : 1);
		int64_t N = y->rank >= 1 && b->rank == 1 ? ir_numel(y) / (rows ? rows : 1) : 0;
		if (rows * K != ir_numel(a) || rows * N != ir_numel(y) || !fits_int(p, n, rows, "dimension") ||
		    !fits_int(p, n, N, "dimension") || !fits_int(p, n, K, "dimension"))
			return -1;
		l->u.gemm = (struct rt_gemm){
			.M = (int)rows, .N = (int)N, .K = (int)K, .alpha = 1.0f, .beta = 0.0f,
			.act = RT_ACT_NONE,
		};
		l->unit = RT_UNIT_GEMM_FC;
		l->kernel = "rt_gemm_fc";
		add_arg(l, a, "a");
		add_arg(l, b, "b");
		return 0;
	}
	int64_t M = a->rank >= 2 ? a->dims[a->rank - 2] : 1, K = a->dims[a->rank - 1];
	int64_t Kb = b->rank >= 2 ? b->dims[b->rank - 2] : b->dims[0];
	int64_t N = b->rank >= 2 ? b->dims[b->rank - 1] : 1;
	int ra = a->rank >= 2 ? a->rank - 2 : 0, rb = b->rank >= 2 ? b->rank - 2 : 0;
	int rank = ra > rb ? ra : rb;
	int64_t dims[IR_MAX_RANK], strides[2][IR_MAX_RANK];
	int ok = K == Kb;
	for (int k = 0; ok && k < rank; k++) {
		int ka = k - (rank - ra), kb = k - (rank - rb);
		int64_t da = ka >= 0 ? a->dims[ka] : 1, db = kb >= 0 ? b->dims[kb] : 1;
		if (da != db && da != 1 && db != 1)
			ok = 0;
		dims[k] = da > db ? da : db;
	}
	if (ok)
		ok = bcast_strides(rank, dims, ra, a->dims, strides[0]) == 0 &&
		     bcast_strides(rank, dims, rb, b->dims, strides[1]) == 0;
	if (!ok || prod(dims, 0, rank) * M * N != ir_numel(y)) {
		diag_error(p->d, n, "inconsistent shapes: A %s, B %s, Y %s", shape_str(p, a),
		           shape_str(p, b), shape_str(p, y));
		return -1;
	}
	if (!fits_int(p, n, M, "dimension") || !fits_int(p, n, N, "dimension") ||
	    !fits_int(p, n, K, "dimension"))
		return -1;
	l->u.matmul.M = (int)M;
	l->u.matmul.N = (int)N;
	l->u.matmul.K = (int)K;
	if (to_bcast(p, n, rank, dims, strides, &l->u.matmul.batch))
		return -1;
	l->unit = RT_UNIT_MATMUL;
	l->kernel = "rt_matmul";
	add_arg(l, a, "a");
	add_arg(l, b, "b");
	return 0;
}

static int plan_binary(struct plan *p, struct layer *l)
{
	struct node *n = l->node;
	struct tensor *a = n->inputs[0], *b = n->inputs[1], *y = n->outputs[0];
	int64_t dims[IR_MAX_RANK], strides[2][IR_MAX_RANK];
	for (int k = 0; k < y->rank; k++)
		dims[k] = y->dims[k];
	if (bcast_strides(y->rank, dims, a->rank, a->dims, strides[0]) ||
	    bcast_strides(y->rank, dims, b->rank, b->dims, strides[1])) {
		diag_error(p->d, n, "%s and %s do not broadcast to %s", shape_str(p, a),
		           shape_str(p, b), shape_str(p, y));
		return -1;
	}
	static const int ops[] = {[OP_ADD] = RT_ADD, [OP_SUB] = RT_SUB, [OP_MUL] = RT_MUL,
	                          [OP_DIV] = RT_DIV, [OP_POW] = RT_POW, [OP_PRELU] = RT_PRELU,
	                          [OP_MAX] = RT_MAX, [OP_MIN] = RT_MIN, [OP_SUM] = RT_ADD};
	l->u.binary.op = ops[n->op];
	int same = a->layout == y->layout && b->layout == y->layout && a->rank == y->rank &&
	           b->rank == y->rank;
	for (int k = 0; same && k < y->rank; k++)
		same = a->dims[k] == y->dims[k] && b->dims[k] == y->dims[k];
	int op = l->u.binary.op;
	if (same && a->dtype == DTYPE_F32 && (op == RT_ADD || op == RT_SUB || op == RT_MUL ||
	                                      op == RT_MAX || op == RT_MIN)) {
		/* one shape, one layout: element order does not matter (eltwise.c) */
		l->u.binary.n = (int64_t)(ir_nbytes(y) / sizeof(float));
		l->unit = RT_UNIT_ELTWISE;
		l->kernel = "rt_eltwise";
		add_arg(l, a, "a");
		add_arg(l, b, "b");
		return 0;
	}
	if (a->layout != LAYOUT_MODEL || b->layout != LAYOUT_MODEL || y->layout != LAYOUT_MODEL) {
		diag_error(p->d, n, "internal error: broadcasting %s and %s to %s", tensor_desc(p, a),
		           tensor_desc(p, b), tensor_desc(p, y));
		return -1;
	}
	if (to_bcast(p, n, y->rank, dims, strides, &l->u.binary.b))
		return -1;
	l->unit = RT_UNIT_BINARY;
	l->kernel = "rt_binary";
	add_arg(l, a, "a");
	add_arg(l, b, "b");
	return 0;
}

static int plan_unary(struct plan *p, struct layer *l)
{
	struct node *n = l->node;
	struct tensor *x = n->inputs[0], *y = n->outputs[0];
	l->u.unary.alpha = l->u.unary.beta = 0.0f;
	switch (n->op) {
	case OP_RELU: l->u.unary.act = RT_ACT_RELU; break;
	case OP_SIGMOID: l->u.unary.act = RT_ACT_SIGMOID; break;
	case OP_TANH: l->u.unary.act = RT_ACT_TANH; break;
	case OP_LEAKY_RELU:
		l->u.unary.act = RT_ACT_LEAKY_RELU;
		l->u.unary.alpha = (float)ir_attr_float(n, "alpha", 0.01);
		break;
	case OP_CLIP:
		l->u.unary.act = RT_ACT_CLIP;
		l->u.unary.alpha = (float)ir_attr_float(n, "min", -HUGE_VAL);
		l->u.unary.beta = (float)ir_attr_float(n, "max", HUGE_VAL);
		break;
	default: unreachable("not a unary op");
	}
	if (ir_numel(x) != ir_numel(y)) {
		diag_error(p->d, n, "input %s and output %s differ in size", shape_str(p, x),
		           shape_str(p, y));
		return -1;
	}
	if (x->layout != y->layout) {
		diag_error(p->d, n, "internal error: %s from %s", tensor_desc(p, y), tensor_desc(p, x));
		return -1;
	}
	l->u.unary.n = (int64_t)(ir_nbytes(y) / sizeof(float)); /* any layout: element-wise */
	l->unit = RT_UNIT_UNARY;
	if (n->op == OP_RELU || n->op == OP_LEAKY_RELU) {
		l->unit = RT_UNIT_ACT_VEC; /* vectorised */
		l->kernel = "rt_act_vec";
		add_arg(l, x, "x");
		return 0;
	}
	l->kernel = "rt_unary";
	add_arg(l, x, "x");
	return 0;
}

/* Elementwise math (runtime/unary_math.c): the function, and which canonical
 * attributes (passes/canonicalize.c) become its alpha and beta. */
static const struct math_row {
	enum op op;
	int fn;            /* enum rt_math_fn */
	const char *alpha; /* attribute read as alpha, or NULL */
	const char *beta;  /* attribute read as beta, or NULL */
} math_rows[] = {
	{OP_EXP, RT_MATH_EXP, NULL, NULL},
	{OP_LOG, RT_MATH_LOG, NULL, NULL},
	{OP_SQRT, RT_MATH_SQRT, NULL, NULL},
	{OP_ABS, RT_MATH_ABS, NULL, NULL},
	{OP_NEG, RT_MATH_NEG, NULL, NULL},
	{OP_RECIPROCAL, RT_MATH_RECIPROCAL, NULL, NULL},
	{OP_FLOOR, RT_MATH_FLOOR, NULL, NULL},
	{OP_CEIL, RT_MATH_CEIL, NULL, NULL},
	{OP_ROUND, RT_MATH_ROUND, NULL, NULL},
	{OP_SIGN, RT_MATH_SIGN, NULL, NULL},
	{OP_SIN, RT_MATH_SIN, NULL, NULL},
	{OP_COS, RT_MATH_COS, NULL, NULL},
	{OP_TAN, RT_MATH_TAN, NULL, NULL},
	{OP_ASIN, RT_MATH_ASIN, NULL, NULL},
	{OP_ACOS, RT_MATH_ACOS, NULL, NULL},
	{OP_ATAN, RT_MATH_ATAN, NULL, NULL},
	{OP_SINH, RT_MATH_SINH, NULL, NULL},
	{OP_COSH, RT_MATH_COSH, NULL, NULL},
	{OP_ASINH, RT_MATH_ASINH, NULL, NULL},
	{OP_ACOSH, RT_MATH_ACOSH, NULL, NULL},
	{OP_ATANH, RT_MATH_ATANH, NULL, NULL},
	{OP_ERF, RT_MATH_ERF, NULL, NULL},
	{OP_ELU, RT_MATH_ELU, "alpha", NULL},
	{OP_SELU, RT_MATH_SELU, "alpha", "gamma"},
	{OP_CELU, RT_MATH_CELU, "alpha", NULL},
	{OP_HARD_SIGMOID, RT_MATH_HARD_SIGMOID, "alpha", "beta"},
	{OP_HARD_SWISH, RT_MATH_HARD_SWISH, NULL, NULL},
	{OP_SOFTPLUS, RT_MATH_SOFTPLUS, NULL, NULL},
	{OP_SOFTSIGN, RT_MATH_SOFTSIGN, NULL, NULL},
	{OP_MISH, RT_MATH_MISH, NULL, NULL},
	{OP_THRESHOLDED_RELU, RT_MATH_THRESHOLDED_RELU, "alpha", NULL},
	{OP_GELU, RT_MATH_GELU, NULL, NULL}, /* approximate="tanh": RT_MATH_GELU_TANH */
};

static const struct math_row *math_row_of(enum op op)
{
	for (size_t i = 0; i < sizeof math_rows / sizeof math_rows[0]; i++)
		if (math_rows[i].op == op)
			return &math_rows[i];
	return NULL;
}

static int plan_math(struct plan *p, struct layer *l)
{
	struct node *n = l->node;
	struct tensor *x = n->inputs[0], *y = n->outputs[0];
	const struct math_row *r = math_row_of(n->op);
	if (!r)
		unreachable("plan_math: not an elementwise math op");
	l->u.unary.act = r->fn;
	if (n->op == OP_GELU && strcmp(ir_attr_string(n, "approximate", "none"), "tanh") == 0)
		l->u.unary.act = RT_MATH_GELU_TANH;
	l->u.unary.alpha = r->alpha ? (float)ir_attr_float(n, r->alpha, 0.0) : 0.0f;
	l->u.unary.beta = r->beta ? (float)ir_attr_float(n, r->beta, 0.0) : 0.0f;
	if (ir_numel(x) != ir_numel(y)) {
		diag_error(p->d, n, "input %s and output %s differ in size", shape_str(p, x),
		           shape_str(p, y));
		return -1;
	}
	l->u.unary.n = ir_numel(y);
	l->unit = RT_UNIT_UNARY_MATH;
	l->kernel = "rt_unary_math";
	add_arg(l, x, "x");
	return 0;
}

/* The canonical "axes" (ascending, never empty) split x's dims into kept and
 * reduced ones, each with its x stride, in row-major order (struct
 * rt_reduce). Returns the number of elements kept, or -1. */
static int64_t split_axes(struct plan *p, struct node *n, const struct tensor *x,
                          struct rt_reduce *r)
{
	struct attr *a = ir_attr(n, "axes");
	unsigned char red[IR_MAX_RANK] = {0};
	if (!a || a->kind != ATTR_INTS || a->n < 1) {
		diag_error(p->d, n, "internal error: no canonical axes");
		return -1;
	}
	for (int i = 0; i < a->n; i++) {
		if (a->ints[i] < 0 || a->ints[i] >= x->rank) {
			diag_error(p->d, n, "internal error: axis %" PRId64 " out of range", a->ints[i]);
			return -1;
		}
		red[a->ints[i]] = 1;
	}
	int64_t stride[IR_MAX_RANK], s = 1, kept = 1;
	for (int i = x->rank - 1; i >= 0; i--) {
		stride[i] = s;
		s *= x->dims[i];
	}
	r->n_out = r->n_red = 0;
	for (int i = 0; i < x->rank; i++) {
		if (!fits_int(p, n, x->dims[i], "dimension") || !fits_int(p, n, stride[i], "stride"))
			return -1;
		if (red[i]) {
			r->red_dims[r->n_red] = (int)x->dims[i];
			r->red_sx[r->n_red++] = (int)stride[i];
		} else {
			r->out_dims[r->n_out] = (int)x->dims[i];
			r->out_sx[r->n_out++] = (int)stride[i];
			kept *= x->dims[i];
		}
	}
	return kept;
}

/* Reductions (runtime/reduce.c). */
static int plan_reduce(struct plan *p, struct layer *l)
{
	static const struct {
		enum op op;
		int rt; /* enum rt_reduce_op */
	} rows[] = {
		{OP_REDUCE_SUM, RT_REDUCE_SUM},       {OP_REDUCE_MEAN, RT_REDUCE_MEAN},
		{OP_REDUCE_MAX, RT_REDUCE_MAX},       {OP_REDUCE_MIN, RT_REDUCE_MIN},
		{OP_REDUCE_PROD, RT_REDUCE_PROD},     {OP_REDUCE_L1, RT_REDUCE_L1},
		{OP_REDUCE_L2, RT_REDUCE_L2},         {OP_REDUCE_LOG_SUM, RT_REDUCE_LOG_SUM},
		{OP_REDUCE_LOG_SUM_EXP, RT_REDUCE_LOG_SUM_EXP},
		{OP_REDUCE_SUM_SQUARE, RT_REDUCE_SUM_SQUARE},
	};
	struct node *n = l->node;
	struct tensor *x = n->inputs[0], *y = n->outputs[0]; /* y: x with reduced dims 1 or gone */
	l->u.reduce.op = -1;
	for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++)
		if (rows[i].op == n->op)
			l->u.reduce.op = rows[i].rt;
	if (l->u.reduce.op < 0)
		unreachable("plan_reduce: not a reduction");
	int64_t kept = split_axes(p, n, x, &l->u.reduce.r);
	if (kept < 0)
		return -1;
	if (kept != ir_numel(y)) {
		diag_error(p->d, n, "output %s does not match input %s reduced over its axes",
		           shape_str(p, y), shape_str(p, x));
		return -1;
	}
	l->unit = RT_UNIT_REDUCE;
	l->kernel = "rt_reduce";
	add_arg(l, x, "x");
	return 0;
}

/* Normalisations (runtime/normalize.c): groups from the canonical axes;
 * LayerNormalization's Scale and B run along the group (or are one value),
 * InstanceNormalization's along the channel, the group's last kept dim. */
static int plan_norm(struct plan *p, struct layer *l)
{
	struct node *n = l->node;
	struct tensor *x = n->inputs[0], *y = n->outputs[0];
	struct tensor *scale = n->n_inputs > 1 ? n->inputs[1] : NULL;
	struct tensor *bias = n->n_inputs > 2 ? n->inputs[2] : NULL;
	struct rt_norm *c = &l->u.norm;
	if (split_axes(p, n, x, &c->r) < 0)
		return -1;
	if (ir_numel(x) != ir_numel(y)) {
		diag_error(p->d, n, "input %s and output %s differ in size", shape_str(p, x),
		           shape_str(p, y));
		return -1;
	}
	c->epsilon = (float)ir_attr_float(n, "epsilon", 1e-5);
	c->eps_outside = n->op == OP_MVN;
	c->s_mod = 1;
	c->s_o = c->s_t = 0;
	if (n->op == OP_INSTANCE_NORM) {
		c->s_mod = (int)x->dims[1];
		c->s_o = 1;
	} else if (n->op == OP_LAYER_NORM) {
		c->s_t = ir_numel(scale) == 1 ? 0 : 1;
		if (bias && (ir_numel(bias) == 1) != (ir_numel(scale) == 1)) {
			diag_error(p->d, n, "Scale %s and B %s must both be one value or both full",
			           shape_str(p, scale), shape_str(p, bias));
			return -1;
		}
	}
	l->unit = RT_UNIT_NORMALIZE;
	l->kernel = "rt_normalize";
	add_arg(l, x, "x");
	if (scale)
		add_arg(l, scale, "scale");
	if (bias)
		add_arg(l, bias, "bias");
	return 0;
}

/* Clip with a bound computed at run time: input 1 (min) and/or 2 (max) is a
 * float32 scalar, an absent one comes from the attribute (canonical form). */
static int plan_clip(struct plan *p, struct layer *l)
{
	struct node *n = l->node;
	struct tensor *x = n->inputs[0], *y = n->outputs[0];
	struct tensor *lo = n->n_inputs > 1 ? n->inputs[1] : NULL; /* scalar, or NULL */
	struct tensor *hi = n->n_inputs > 2 ? n->inputs[2] : NULL; /* scalar, or NULL */
	if (ir_numel(x) != ir_numel(y)) {
		diag_error(p->d, n, "input %s and output %s differ in size", shape_str(p, x),
		           shape_str(p, y));
		return -1;
	}
	if ((lo && ir_numel(lo) != 1) || (hi && ir_numel(hi) != 1)) {
		diag_error(p->d, n, "internal error: a Clip bound is not a scalar");
		return -1;
	}
	l->u.clip.n = ir_numel(y);
	l->u.clip.has_lo = lo != NULL;
	l->u.clip.has_hi = hi != NULL;
	l->u.clip.lo = (float)ir_attr_float(n, "min", -HUGE_VAL);
	l->u.clip.hi = (float)ir_attr_float(n, "max", HUGE_VAL);
	l->unit = RT_UNIT_CLIP;
	l->kernel = "rt_clip";
	add_arg(l, x, "x");
	if (lo)
		add_arg(l, lo, "lo");
	if (hi)
		add_arg(l, hi, "hi");
	return 0;
}

/* Softmax along axis: [outer, len, inner]; coerce_2d (opset < 13) reduces over
 * every dim from axis on. */
static int plan_softmax(struct plan *p, struct layer *l)
{
	struct node *n = l->node;
	struct tensor *x = n->inputs[0];
	int64_t axis = ir_attr_int(n, "axis", x->rank - 1);
	int coerce = ir_attr_int(n, "coerce_2d", 0) != 0;
	if (x->rank == 0)
		axis = 0;
	else if (axis < 0 || axis >= x->rank) {
		diag_error(p->d, n, "axis %" PRId64 " out of range for %s", axis, shape_str(p, x));
		return -1;
	}
	int ax = (int)axis;
	int64_t outer = prod(x->dims, 0, ax < x->rank ? ax : x->rank);
	int64_t len = x->rank == 0 ? 1 : coerce ? prod(x->dims, ax, x->rank) : x->dims[ax];
	int64_t inner = x->rank == 0 || coerce ? 1 : prod(x->dims, ax + 1, x->rank);
	if (!fits_int(p, n, outer, "size") || !fits_int(p, n, len, "size") ||
	    !fits_int(p, n, inner, "size"))
		return -1;
	l->u.softmax.outer = (int)outer;
	l->u.softmax.len = (int)len;
	l->u.softmax.inner = (int)inner;
	l->u.softmax.log = n->op == OP_LOG_SOFTMAX;
	l->unit = RT_UNIT_SOFTMAX;
	l->kernel = "rt_softmax";
	add_arg(l, x, "x");
	return 0;
}

static int plan_global_pool(struct plan *p, struct layer *l)
{
	struct node *n = l->node;
	struct tensor *x = n->inputs[0];
	if (x->rank < 3) {
		diag_error(p->d, n, "input %s must have rank >= 3", shape_str(p, x));
		return -1;
	}
	int64_t nc = x->dims[0] * x->dims[1], hw = prod(x->dims, 2, x->rank);
	if (!fits_int(p, n, nc, "size") || !fits_int(p, n, hw, "size"))
		return -1;
	l->u.global.nc = (int)nc;
	l->u.global.hw = (int)hw;
	int avg = n->op == OP_GLOBAL_AVGPOOL;
	l->unit = avg ? RT_UNIT_GLOBAL_AVGPOOL : RT_UNIT_GLOBAL_MAXPOOL;
	l->kernel = avg ? "rt_global_avgpool" : "rt_global_maxpool";
	if ((l->block = cl_block(x)) >= 0) { /* y [N, C] in the model's layout */
		if (x->rank != 4 || n->outputs[0]->layout != LAYOUT_MODEL) {
			diag_error(p->d, n, "internal error: global pooling of %s", tensor_desc(p, x));
			return -1;
		}
		l->u.global.N = (int)x->dims[0];
		l->u.global.C = (int)x->dims[1];
		l->unit = RT_UNIT_GLOBAL_POOL_CL;
		l->kernel = "rt_global_pool_cl";
	}
	add_arg(l, x, "x");
	return 0;
}

static int plan_lrn(struct plan *p, struct layer *l)
{
	struct node *n = l->node;
	struct tensor *x = n->inputs[0];
	int64_t size = ir_attr_int(n, "size", 0);
	if (x->rank < 2 || size < 1) {
		diag_error(p->d, n, "LRN needs an input of rank >= 2 and size >= 1");
		return -1;
	}
	int64_t hw = prod(x->dims, 2, x->rank);
	if (!fits_int(p, n, x->dims[0], "size") || !fits_int(p, n, x->dims[1], "size") ||
	    !fits_int(p, n, hw, "size") || !fits_int(p, n, size, "size"))
		return -1;
	l->u.lrn.N = (int)x->dims[0];
	l->u.lrn.C = (int)x->dims[1];
	l->u.lrn.HW = (int)hw;
	l->u.lrn.size = (int)size;
	l->u.lrn.alpha = (float)ir_attr_float(n, "alpha", 1e-4);
	l->u.lrn.beta = (float)ir_attr_float(n, "beta", 0.75);
	l->u.lrn.bias = (float)ir_attr_float(n, "bias", 1.0);
	l->unit = RT_UNIT_LRN;
	l->kernel = "rt_lrn";
	add_arg(l, x, "x");
	return 0;
}

/* BatchNormalization with statistics read at run time, x viewed as
 * [N, C, HW]; scale, B, mean and var [C] each. */
static int plan_batchnorm(struct plan *p, struct layer *l)
{
	struct node *n = l->node;
	struct tensor *x = n->inputs[0];
	static const char *const names[5] = {"x", "scale", "bias", "mean", "var"};
	if (x->rank < 2 || n->n_inputs != 5) {
		diag_error(p->d, n, "internal error: BatchNormalization needs X of rank >= 2 and "
		           "four statistics");
		return -1;
	}
	for (int k = 1; k < 5; k++) {
		if (ir_numel(n->inputs[k]) != x->dims[1]) {
			diag_error(p->d, n, "internal error: %s %s does not have %" PRId64 " values",
			           names[k], shape_str(p, n->inputs[k]), x->dims[1]);
			return -1;
		}
	}
	int64_t hw = prod(x->dims, 2, x->rank);
	if (!fits_int(p, n, x->dims[0], "size") || !fits_int(p, n, x->dims[1], "size") ||
	    !fits_int(p, n, hw, "size"))
		return -1;
	l->u.batchnorm.N = (int)x->dims[0];
	l->u.batchnorm.C = (int)x->dims[1];
	l->u.batchnorm.HW = (int)hw;
	l->u.batchnorm.epsilon = (float)ir_attr_float(n, "epsilon", 1e-5);
	l->unit = RT_UNIT_BATCHNORM;
	l->kernel = "rt_batchnorm";
	for (int k = 0; k < 5; k++)
		add_arg(l, n->inputs[k], names[k]);
	return 0;
}

/* The output viewed as [outer, total] and each input as [outer, part]. */
static int plan_concat(struct plan *p, struct layer *l)
{
	struct node *n = l->node;
	struct tensor *y = n->outputs[0];
	int64_t axis = ir_attr_int(n, "axis", 0);
	int k = n->n_inputs;
	if (axis < 0 || axis >= y->rank || k < 1 || k > CONCAT_MAX_INPUTS) {
		diag_error(p->d, n, "axis %" PRId64 " or %d inputs out of range", axis, k);
		return -1;
	}
	int ax = (int)axis;
	/* Zero-copy (plan_memory made every input a slice of y): no code. */
	int sliced = 1;
	for (int i = 0; i < k; i++)
		sliced &= n->inputs[i] && n->inputs[i]->alias == y;
	if (sliced) {
		l->is_view = 1;
		use_tensor(p, n, y);
		return 0;
	}
	int64_t outer = prod(y->dims, 0, ax), inner = prod(y->dims, ax + 1, y->rank);
	int64_t blk = y->layout == LAYOUT_CHW8C ? 8 : y->layout == LAYOUT_CHW16C ? 16 : 1;
	if (y->layout != LAYOUT_MODEL) {
		/* channels of another layout: [N][H][C][W] is [N*H, C*W]; [N][H][W][C] is
		 * [N*H*W, C]; [N][C/b][H][W][b] is [N, C*H*W] (each C a multiple of b) */
		int ok = ax == 1 && y->rank == 4;
		for (int i = 0; ok && i < k; i++)
			ok = n->inputs[i] && n->inputs[i]->layout == y->layout &&
			     n->inputs[i]->rank == 4 && n->inputs[i]->dims[1] % blk == 0;
		if (!ok) {
			diag_error(p->d, n, "internal error: Concat on axis %" PRId64 " into %s", axis,
			           tensor_desc(p, y));
			return -1;
		}
		if (y->layout == LAYOUT_HCW) {
			outer = y->dims[0] * y->dims[2];
			inner = y->dims[3];
		} else if (y->layout == LAYOUT_HWC) {
			outer = y->dims[0] * y->dims[2] * y->dims[3];
			inner = 1;
		}
	}
	int64_t total = y->dims[ax] * inner, offset = 0;
	if (!fits_int(p, n, outer, "size") || !fits_int(p, n, total, "size"))
		return -1;
	l->u.concat.outer = (int)outer;
	l->u.concat.total = (int)total;
	l->u.concat.part = plan_keep(p, xcalloc(k, sizeof(int)));
	l->u.concat.offset = plan_keep(p, xcalloc(k, sizeof(int)));
	for (int i = 0; i < k; i++) {
		struct tensor *x = n->inputs[i];
		int same = x && x->rank == y->rank;
		for (int d = 0; same && d < y->rank; d++)
			same = d == ax || x->dims[d] == y->dims[d];
		if (!same) {
			diag_error(p->d, n, "input %d does not match the output %s on the other axes", i,
			           shape_str(p, y));
			return -1;
		}
		l->u.concat.part[i] = (int)(x->dims[ax] * inner);
		l->u.concat.offset[i] = (int)offset;
		offset += x->dims[ax] * inner;
		add_arg(l, x, plan_fmt(p, "x%d", i));
	}
	if (offset != total) {
		diag_error(p->d, n, "inputs do not add up to the output %s", shape_str(p, y));
		return -1;
	}
	l->unit = RT_UNIT_CONCAT;
	l->kernel = "rt_concat_part";
	return 0;
}

static int plan_transpose(struct plan *p, struct layer *l)
{
	struct node *n = l->node;
	struct tensor *x = n->inputs[0], *y = n->outputs[0];
	const int64_t *perm;
	int np = ir_attr_ints(n, "perm", &perm);
	int64_t rev[IR_MAX_RANK];
	if (np == 0) { /* ONNX default: reverse the dims */
		for (int k = 0; k < x->rank; k++)
			rev[k] = x->rank - 1 - k;
		perm = rev;
		np = x->rank;
	}
	int64_t xs[IR_MAX_RANK], dims[IR_MAX_RANK], strides[1][IR_MAX_RANK], s = 1;
	int seen[IR_MAX_RANK] = {0};
	int ok = np == x->rank && y->rank == x->rank;
	for (int k = x->rank - 1; k >= 0; k--) {
		xs[k] = s;
		s *= x->dims[k];
	}
	for (int k = 0; ok && k < np; k++) {
		if (perm[k] < 0 || perm[k] >= x->rank || seen[perm[k]]++ ||
		    y->dims[k] != x->dims[perm[k]]) {
			ok = 0;
			break;
		}
		dims[k] = x->dims[perm[k]];
		strides[0][k] = xs[perm[k]];
	}
	if (!ok || !fits_int(p, n, ir_numel(x), "size")) {
		if (!ok)
			diag_error(p->d, n, "perm does not permute %s into %s", shape_str(p, x),
			           shape_str(p, y));
		return -1;
	}
	int rank = merge_dims(np, dims, 1, strides);
	struct rt_transpose *t = &l->u.transpose;
	t->rank = rank;
	for (int k = 0; k < rank; k++) {
		t->dims[k] = (int)dims[k];
		t->sx[k] = (int)strides[0][k];
	}
	l->unit = RT_UNIT_TRANSPOSE;
	l->kernel = "rt_transpose";
	add_arg(l, x, "x");
	return 0;
}

/* y, dense over dims[rank], read from x (the layer's first argument) as
 *   y[i] = x[x_offset + sum(i[d] * sx[d])]
 * with any strides (negative for a reversed Slice, 0 where Expand
 * broadcasts): rt_transpose from x + x_offset. */
static int plan_strided(struct plan *p, struct layer *l, int rank, int64_t *dims, int64_t *sx,
                        int64_t x_offset)
{
	struct node *n = l->node;
	int64_t strides[1][IR_MAX_RANK];
	memcpy(strides[0], sx, (size_t)rank * sizeof *sx);
	int r = merge_dims(rank, dims, 1, strides);
	if (r > RT_MAX_RANK) {
		diag_error(p->d, n, "needs a %d-D strided copy; at most %d-D is supported", r,
		           RT_MAX_RANK);
		return -1;
	}
	if (!fits_int(p, n, ir_numel(n->inputs[0]), "size") ||
	    !fits_int(p, n, ir_numel(n->outputs[0]), "size"))
		return -1;
	struct rt_transpose *t = &l->u.strided.t;
	t->rank = r;
	for (int k = 0; k < r; k++) {
		t->dims[k] = (int)dims[k];
		t->sx[k] = (int)strides[0][k];
	}
	l->u.strided.x_offset = x_offset;
	l->unit = RT_UNIT_TRANSPOSE;
	l->kernel = "rt_transpose";
	add_arg(l, n->inputs[0], "x");
	return 0;
}

/* Slice in canonical form: y[i] = x[starts + i * steps]. */
static int plan_slice(struct plan *p, struct layer *l)
{
	struct node *n = l->node;
	struct tensor *x = n->inputs[0], *y = n->outputs[0];
	const int64_t *starts, *steps;
	if (ir_attr_ints(n, "starts", &starts) != x->rank ||
	    ir_attr_ints(n, "steps", &steps) != x->rank || y->rank != x->rank) {
		diag_error(p->d, n, "Slice is not in canonical form");
		return -1;
	}
	int64_t dims[IR_MAX_RANK], sx[IR_MAX_RANK], s = 1, base = 0;
	for (int k = x->rank - 1; k >= 0; k--) {
		dims[k] = y->dims[k];
		sx[k] = steps[k] * s;
		base += starts[k] * s;
		s *= x->dims[k];
	}
	return plan_strided(p, l, x->rank, dims, sx, base);
}

/* Expand: x read broadcast to y's shape, stride 0 on the broadcast dims. */
static int plan_expand(struct plan *p, struct layer *l)
{
	struct tensor *x = l->node->inputs[0], *y = l->node->outputs[0];
	int64_t dims[IR_MAX_RANK], sx[IR_MAX_RANK];
	if (bcast_strides(y->rank, y->dims, x->rank, x->dims, sx) < 0) {
		diag_error(p->d, l->node, "%s does not broadcast to %s", shape_str(p, x),
		           shape_str(p, y));
		return -1;
	}
	memcpy(dims, y->dims, (size_t)y->rank * sizeof *dims);
	return plan_strided(p, l, y->rank, dims, sx, 0);
}

/* Tile: output dim d, of size repeats[d] * x dim d, is read as the pair
 * (repeat, index) row-major, so y is dense over [r0, d0, r1, d1, ...] with x
 * strides [0, s0, 0, s1, ...]; the pairs' dims of size 1 are left out. */
static int plan_tile(struct plan *p, struct layer *l)
{
	struct node *n = l->node;
	struct tensor *x = n->inputs[0], *y = n->outputs[0];
	int64_t dims[2 * IR_MAX_RANK], sx[2 * IR_MAX_RANK], s = 1;
	int r = 2 * IR_MAX_RANK; /* filled from the back */
	for (int k = x->rank - 1; k >= 0; k--) {
		if (x->dims[k] == 0 || y->dims[k] % x->dims[k]) {
			diag_error(p->d, n, "%s is not a tiling of %s", shape_str(p, y), shape_str(p, x));
			return -1;
		}
		if (x->dims[k] != 1) {
			dims[--r] = x->dims[k];
			sx[r] = s;
		}
		if (y->dims[k] != x->dims[k]) {
			dims[--r] = y->dims[k] / x->dims[k];
			sx[r] = 0;
		}
		s *= x->dims[k];
	}
	if (2 * IR_MAX_RANK - r > IR_MAX_RANK) {
		diag_error(p->d, n, "tiling %s into %s needs a %d-D strided copy; at most %d-D is "
		           "supported", shape_str(p, x), shape_str(p, y), 2 * IR_MAX_RANK - r,
		           IR_MAX_RANK);
		return -1;
	}
	return plan_strided(p, l, 2 * IR_MAX_RANK - r, dims + r, sx + r, 0);
}

/* DepthToSpace and SpaceToDepth (x, y [N, C, H, W], blocksize b) as
 * strided copies over 6-D views of y, after the reshape and transpose of
 * the ONNX operator pages:
 *   DepthToSpace DCR: y [N, C', H, b1, W, b2] = x[N, (b1 * b + b2) * C' + c', H, W]
 *   DepthToSpace CRD: y [N, C', H, b1, W, b2] = x[N, c' * b^2 + b1 * b + b2, H, W]
 *   SpaceToDepth:     y [N, b1, b2, C, H', W'] = x[N, C, h' * b + b1, w' * b + b2]
 * with C' = C / b^2 and y's channel (b1 * b + b2) * C + c for SpaceToDepth. */
static int plan_depth_space(struct plan *p, struct layer *l)
{
	struct node *n = l->node;
	struct tensor *x = n->inputs[0];
	int64_t b = ir_attr_int(n, "blocksize", 1);
	int64_t N = x->dims[0], C = x->dims[1], H = x->dims[2], W = x->dims[3], HW = H * W;
	int64_t dims[6], sx[6];
	if (n->op == OP_SPACE_TO_DEPTH) {
		int64_t d[6] = {N, b, b, C, H / b, W / b}, s[6] = {C * HW, W, 1, HW, b * W, b};
		memcpy(dims, d, sizeof d);
		memcpy(sx, s, sizeof s);
	} else {
		int64_t Co = C / (b * b);
		int crd = strcmp(ir_attr_string(n, "mode", "DCR"), "CRD") == 0;
		int64_t d[6] = {N, Co, H, b, W, b};
		int64_t s[6] = {C * HW, crd ? b * b * HW : HW, W, crd ? b * HW : b * Co * HW, 1,
		                crd ? HW : Co * HW};
		memcpy(dims, d, sizeof d);
		memcpy(sx, s, sizeof s);
	}
	return plan_strided(p, l, 6, dims, sx, 0);
}

/* Resize in canonical form: the last two dims resized, the others folded
 * into outer. */
/* Resize with cubic mode or a third resized dim: resize3d.c over the last
 * three dims (a rank-2 input gets D = 1). */
static int plan_resize3d(struct plan *p, struct layer *l, int coord, int rounding)
{
	struct node *n = l->node;
	struct tensor *x = n->inputs[0], *y = n->outputs[0];
	const int r = x->rank;
	const char *mode = ir_attr_string(n, "mode", "");
	struct rt_resize3d *c = &l->u.resize3d;
	memset(c, 0, sizeof *c);
	for (int i = 0; i < 3; i++) {
		c->in[i] = r - 3 + i >= 0 ? (int)x->dims[r - 3 + i] : 1;
		c->out[i] = r - 3 + i >= 0 ? (int)y->dims[r - 3 + i] : 1;
	}
	c->outer = (int)(ir_numel(x) / ((int64_t)c->in[0] * c->in[1] * c->in[2]));
	c->scale[0] = ir_attr_float(n, "scale_d", 1.0);
	c->scale[1] = ir_attr_float(n, "scale_h", 1.0);
	c->scale[2] = ir_attr_float(n, "scale_w", 1.0);
	c->mode = strcmp(mode, "cubic") == 0 ? 2 : strcmp(mode, "linear") == 0 ? 1 : 0;
	c->coord = coord;
	c->rounding = rounding;
	c->cubic_a = (float)ir_attr_float(n, "cubic_coeff_a", -0.75);
	c->exclude_outside = ir_attr_int(n, "exclude_outside", 0) != 0;
	l->unit = RT_UNIT_RESIZE3D;
	l->kernel = "rt_resize3d";
	add_arg(l, x, "x");
	return 0;
}

static int plan_resize(struct plan *p, struct layer *l)
{
	struct node *n = l->node;
	struct tensor *x = n->inputs[0], *y = n->outputs[0];
	static const char *const coords[] = {"half_pixel", "pytorch_half_pixel", "asymmetric",
	                                     "align_corners", "tf_half_pixel_for_nn"};
	static const char *const roundings[] = {"round_prefer_floor", "round_prefer_ceil", "floor",
	                                        "ceil"};
	const char *coord = ir_attr_string(n, "coordinate_transformation_mode", "");
	const char *rounding = ir_attr_string(n, "nearest_mode", "");
	struct rt_resize *rs = &l->u.resize;
	rs->coord = rs->rounding = -1;
	for (int i = 0; i < 5; i++)
		if (strcmp(coord, coords[i]) == 0)
			rs->coord = i;
	for (int i = 0; i < 4; i++)
		if (strcmp(rounding, roundings[i]) == 0)
			rs->rounding = i;
	int r = x->rank;
	if (rs->coord < 0 || rs->rounding < 0 || r < 2 || y->rank != r) {
		diag_error(p->d, n, "Resize is not in canonical form");
		return -1;
	}
	if (!fits_int(p, n, ir_numel(x), "size") || !fits_int(p, n, ir_numel(y), "size"))
		return -1;
	if (ir_attr(n, "scale_d"))
		return plan_resize3d(p, l, rs->coord, rs->rounding);
	rs->outer = (int)(ir_numel(x) / (x->dims[r - 2] * x->dims[r - 1]));
	rs->in_h = (int)x->dims[r - 2];
	rs->in_w = (int)x->dims[r - 1];
	rs->out_h = (int)y->dims[r - 2];
	rs->out_w = (int)y->dims[r - 1];
	rs->scale_h = ir_attr_float(n, "scale_h", 1.0);
	rs->scale_w = ir_attr_float(n, "scale_w", 1.0);
	rs->linear = strcmp(ir_attr_string(n, "mode", ""), "linear") == 0;
	l->unit = RT_UNIT_RESIZE;
	l->kernel = "rt_resize";
	add_arg(l, x, "x");
	return 0;
}

/* ConvTranspose in canonical form: the reference scatter kernel. */
static int plan_conv_transpose(struct plan *p, struct layer *l)
{
	struct node *n = l->node;
	struct tensor *x = n->inputs[0], *w = n->inputs[1], *y = n->outputs[0];
	struct tensor *b = n->n_inputs > 2 ? n->inputs[2] : NULL;
	const int64_t *st, *dl, *pd;
	if (x->rank != 4)
		return plan_window3d(p, l);
	if (ir_attr_ints(n, "strides", &st) != 2 || ir_attr_ints(n, "dilations", &dl) != 2 ||
	    ir_attr_ints(n, "pads", &pd) != 2) {
		diag_error(p->d, n, "ConvTranspose is not in canonical form");
		return -1;
	}
	if (!fits_int(p, n, ir_numel(x), "size") || !fits_int(p, n, ir_numel(y), "size"))
		return -1;
	struct rt_conv2d *c = &l->u.conv;
	memset(c, 0, sizeof *c);
	c->N = (int)x->dims[0];
	c->C = (int)x->dims[1];
	c->H = (int)x->dims[2];
	c->W = (int)x->dims[3];
	c->M = (int)y->dims[1];
	c->oH = (int)y->dims[2];
	c->oW = (int)y->dims[3];
	c->kH = (int)w->dims[2];
	c->kW = (int)w->dims[3];
	c->sH = (int)st[0];
	c->sW = (int)st[1];
	c->dH = (int)dl[0];
	c->dW = (int)dl[1];
	c->padT = (int)pd[0];
	c->padL = (int)pd[1];
	c->group = (int)ir_attr_int(n, "group", 1);
	l->unit = RT_UNIT_CONV_TRANSPOSE;
	l->kernel = "rt_conv_transpose_ref";
	add_arg(l, x, "x");
	add_arg(l, w, "w");
	if (b)
		add_arg(l, b, "bias");
	return 0;
}

static int plan_pad(struct plan *p, struct layer *l)
{
	struct node *n = l->node;
	struct tensor *x = n->inputs[0], *y = n->outputs[0];
	const int64_t *pads;
	int np = ir_attr_ints(n, "pads", &pads);
	const char *mode = ir_attr_string(n, "mode", "constant");
	int constant = strcmp(mode, "constant") == 0;
	if (!constant && strcmp(mode, "edge") != 0 && strcmp(mode, "reflect") != 0) {
		diag_error(p->d, n, "Pad mode '%s' is not supported (constant, edge, reflect)", mode);
		return -1;
	}
	int ok = np == 2 * x->rank && y->rank == x->rank;
	for (int k = 0; ok && k < x->rank; k++)
		ok = x->dims[k] + pads[k] + pads[x->rank + k] == y->dims[k] && pads[k] > INT_MIN &&
		     pads[k] < INT_MAX && fits_int(p, n, x->dims[k], "dimension") &&
		     fits_int(p, n, y->dims[k], "dimension");
	if (!ok) {
		diag_error(p->d, n, "pads do not take %s to %s", shape_str(p, x), shape_str(p, y));
		return -1;
	}
	struct rt_pad *pd = &l->u.pad;
	pd->rank = x->rank;
	for (int k = 0; k < x->rank; k++) {
		pd->in_dims[k] = (int)x->dims[k];
		pd->out_dims[k] = (int)y->dims[k];
		pd->begin[k] = (int)pads[k];
	}
	pd->value = (float)ir_attr_float(n, "value", 0.0);
	l->unit = constant ? RT_UNIT_PAD : RT_UNIT_PAD_MODE;
	l->kernel = constant ? "rt_pad_constant" : "rt_pad_edge_reflect";
	add_arg(l, x, "x");
	return 0;
}

/* A layout transform select inserted: one row of runtime/transforms.def. */
static int plan_layout(struct plan *p, struct layer *l)
{
	struct node *n = l->node;
	const struct tensor *x = n->inputs[0];
	const struct rt_transform *tr = NULL;
	for (int i = 0; i < rt_n_transforms && n->primitive; i++)
		if (strcmp(rt_transforms[i].name, n->primitive) == 0)
			tr = &rt_transforms[i];
	if (!tr || (x->rank != 3 && x->rank != 4)) {
		diag_error(p->d, n, "internal error: layout transform '%s' on %s",
		           n->primitive ? n->primitive : "?", shape_str(p, x));
		return -1;
	}
	l->unit = (enum rt_unit)tr->unit;
	l->kernel = tr->run_name;
	l->u.layout.N = (int)x->dims[0];
	l->u.layout.C = (int)x->dims[1];
	l->u.layout.H = x->rank == 4 ? (int)x->dims[2] : 1;
	l->u.layout.W = (int)x->dims[x->rank - 1];
	add_arg(l, n->inputs[0], "x");
	return 0;
}

static int plan_typed(struct plan *p, struct layer *l);

static int plan_layer(struct plan *p, struct layer *l)
{
	struct node *n = l->node;
	if (n->n_outputs < 1 || !n->outputs[0]) {
		diag_error(p->d, n, "internal error: node has no output");
		return -1;
	}
	if (typed_runs_typed(n)) /* emit_typed.c: outputs of its own */
		return plan_typed(p, l);
	for (int k = 1; k < n->n_outputs; k++) {
		if (n->outputs[k] && (n->outputs[k]->is_output || ir_use_count(p->g, n->outputs[k]))) {
			diag_error(p->d, n, "only the first output can be used (output '%s' is read)",
			           n->outputs[k]->name);
			return -1;
		}
	}
	int need = n->op == OP_BATCHNORM ? 5
	           : n->op == OP_INSTANCE_NORM ? 3
	           : n->op == OP_LAYER_NORM || n->op == OP_CONV || n->op == OP_GEMM || n->op == OP_MATMUL || n->op == OP_ADD ||
	                   n->op == OP_SUB || n->op == OP_MUL || n->op == OP_DIV ||
	                   n->op == OP_POW || n->op == OP_PRELU || n->op == OP_MAX ||
	                   n->op == OP_MIN || n->op == OP_SUM
	                   ? 2
	                   : 1;
	int ok = n->n_inputs >= need;
	for (int k = 0; ok && k < need; k++)
		ok = n->inputs[k] != NULL;
	if (!ok) {
		diag_error(p->d, n, "internal error: a required input is missing");
		return -1;
	}
	if (n->act != ACT_NONE && n->op != OP_CONV && n->op != OP_GEMM) {
		diag_error(p->d, n, "internal error: fused epilogue on an op that has none");
		return -1;
	}
	if (is_view_op(n->op)) {
		l->is_view = 1;
		struct tensor *x = n->inputs[0], *y = n->outputs[0];
		if (check_tensor(p, n, x) || check_tensor(p, n, y))
			return -1;
		if (ir_numel(x) != ir_numel(y)) {
			diag_error(p->d, n, "view %s of %s changes the element count", shape_str(p, y),
			           shape_str(p, x));
			return -1;
		}
		/* The planner aliases views (no code); one it did not alias is copied. */
		if (root_of(p, y) != root_of(p, x)) {
			enum buf_kind k = tb_of(p, y)->kind;
			if (k != BUF_OUTPUT && k != BUF_ARENA) {
				diag_error(p->d, n, "internal error: output '%s' is not a writable buffer",
				           y->name);
				return -1;
			}
			l->copy = 1;
			use_tensor(p, n, x);
			use_tensor(p, n, y);
		}
		return 0;
	}
	int rc;
	switch (n->op) {
	case OP_CONV: rc = plan_conv(p, l); break;
	case OP_MAXPOOL:
	case OP_AVGPOOL: rc = plan_pool(p, l); break;
	case OP_GEMM: rc = plan_gemm(p, l); break;
	case OP_MATMUL: rc = plan_matmul(p, l); break;
	case OP_ADD:
	case OP_SUB:
	case OP_MUL:
	case OP_DIV:
	case OP_POW:
	case OP_PRELU:
	case OP_MAX:
	case OP_MIN:
	case OP_SUM: rc = plan_binary(p, l); break;
	case OP_RELU:
	case OP_LEAKY_RELU:
	case OP_SIGMOID:
	case OP_TANH: rc = plan_unary(p, l); break;
	case OP_CLIP: rc = n->n_inputs > 1 ? plan_clip(p, l) : plan_unary(p, l); break;
	case OP_EXP:
	case OP_LOG:
	case OP_SQRT:
	case OP_ABS:
	case OP_NEG:
	case OP_RECIPROCAL:
	case OP_FLOOR:
	case OP_CEIL:
	case OP_ROUND:
	case OP_SIGN:
	case OP_SIN:
	case OP_COS:
	case OP_TAN:
	case OP_ASIN:
	case OP_ACOS:
	case OP_ATAN:
	case OP_SINH:
	case OP_COSH:
	case OP_ASINH:
	case OP_ACOSH:
	case OP_ATANH:
	case OP_ERF:
	case OP_ELU:
	case OP_SELU:
	case OP_CELU:
	case OP_HARD_SIGMOID:
	case OP_HARD_SWISH:
	case OP_SOFTPLUS:
	case OP_SOFTSIGN:
	case OP_MISH:
	case OP_THRESHOLDED_RELU:
	case OP_GELU: rc = plan_math(p, l); break;
	case OP_REDUCE_MEAN:
	case OP_REDUCE_SUM:
	case OP_REDUCE_MAX:
	case OP_REDUCE_MIN:
	case OP_REDUCE_PROD:
	case OP_REDUCE_L1:
	case OP_REDUCE_L2:
	case OP_REDUCE_LOG_SUM:
	case OP_REDUCE_LOG_SUM_EXP:
	case OP_REDUCE_SUM_SQUARE: rc = plan_reduce(p, l); break;
	case OP_LAYER_NORM:
	case OP_INSTANCE_NORM:
	case OP_MVN: rc = plan_norm(p, l); break;
	case OP_BATCHNORM: rc = plan_batchnorm(p, l); break;
	case OP_SOFTMAX:
	case OP_LOG_SOFTMAX: rc = plan_softmax(p, l); break;
	case OP_HARDMAX:
		rc = plan_softmax(p, l);
		l->unit = RT_UNIT_HARDMAX; /* the same [outer, len, inner] view */
		l->kernel = "rt_hardmax";
		break;
	case OP_GLOBAL_AVGPOOL:
	case OP_GLOBAL_MAXPOOL: rc = plan_global_pool(p, l); break;
	case OP_LRN: rc = plan_lrn(p, l); break;
	case OP_CONCAT: rc = plan_concat(p, l); break;
	case OP_TRANSPOSE: rc = plan_transpose(p, l); break;
	case OP_PAD: rc = plan_pad(p, l); break;
	case OP_SLICE: rc = plan_slice(p, l); break;
	case OP_EXPAND: rc = plan_expand(p, l); break;
	case OP_TILE: rc = plan_tile(p, l); break;
	case OP_DEPTH_TO_SPACE:
	case OP_SPACE_TO_DEPTH: rc = plan_depth_space(p, l); break;
	case OP_RESIZE:
	case OP_UPSAMPLE: rc = plan_resize(p, l); break;
	case OP_CONV_TRANSPOSE: rc = plan_conv_transpose(p, l); break;
	case OP_LAYOUT: rc = plan_layout(p, l); break;
	default:
		diag_error(p->d, n, "operator %s cannot be emitted (not in canonical form)",
		           n->op < OP_COUNT_ ? ir_op_names[n->op] : "?");
		return -1;
	}
	if (rc || l->is_view)
		return rc;
	if (n->outputs[0]->dtype != DTYPE_F32) /* canonicalize allows data movement only */
		l->unit = n->op == OP_CONCAT ? RT_UNIT_TCONCAT : RT_UNIT_TCOPY;
	add_arg(l, n->outputs[0], "y");
	l->n_outs = 1;
	for (int k = 0; k < l->n_args; k++)
		use_tensor(p, n, l->args[k]);
	struct tbuf *out = tb_of(p, n->outputs[0]);
	if (out->kind == BUF_VIEW) /* a slice of a zero-copy Concat */
		out = tb_of(p, out->root);
	if (out->kind != BUF_OUTPUT && out->kind != BUF_ARENA) {
		diag_error(p->d, n, "internal error: output '%s' is not a writable buffer",
		           n->outputs[0]->name);
		return -1;
	}
	p->unit_used[l->unit] = 1;
	return 0;
}

/* A node the typed_*.c kernels compute (emit_typed.c). */
static int plan_typed(struct plan *p, struct layer *l)
{
	struct node *n = l->node;
	struct emit_typed_layer t;
	if (emit_typed_layer(p->g, n, p->d, &t))
		return -1;
	l->u.typed.body = plan_keep(p, t.body);
	l->unit = (enum rt_unit)t.unit;
	l->kernel = t.kernel;
	l->n_outs = t.n_outs;
	for (int k = 0; k < t.n_args; k++)
		add_arg(l, t.args[k], t.arg_names[k]);
	for (int k = 0; k < l->n_args; k++)
		use_tensor(p, n, l->args[k]);
	for (int k = l->n_args - l->n_outs; k < l->n_args; k++) {
		struct tbuf *out = tb_of(p, l->args[k]);
		if (out->kind != BUF_OUTPUT && out->kind != BUF_ARENA) {
			diag_error(p->d, n, "internal error: output '%s' is not a writable buffer",
			           l->args[k]->name);
			return -1;
		}
	}
	p->unit_used[l->unit] = 1;
	return 0;
}

/* ---- planning: weights, arena, names -------------------------------------- */

static size_t align_up(size_t v, size_t a)
{
	return (v + a - 1) / a * a;
}

static void plan_weights(struct plan *p)
{
	const struct graph *g = p->g;
	p->consts = xcalloc(g->n_tensors, sizeof *p->consts);
	size_t off = 0;
	for (int i = 0; i < g->n_tensors; i++) {
		struct tbuf *b = &p->tb[i];
		if (b->kind != BUF_CONST || !b->used || g->tensors[i]->dtype != DTYPE_F32)
			continue;
		off = align_up(off, WEIGHT_ALIGN);
		b->offset = off;
		off += ir_nbytes(g->tensors[i]);
		p->consts[p->n_consts++] = g->tensors[i];
	}
	p->weights_bytes = off;
	/* x86-64 and Arm code models address static data within +-2 GiB */
	if (off > ((size_t)1 << 31) - 4096)
		diag_error(p->d, NULL, "the weights take %zu bytes after packing, more than the 2 GiB "
		           "generated code can address statically (a strategy with smaller packed "
		           "weights, e.g. without fft, may fit)", off);
	p->mode = p->opt->weights;
	if (p->mode == WEIGHTS_AUTO)
		p->mode = off <= CARRAY_MAX_BYTES ? WEIGHTS_CARRAY : WEIGHTS_EMBED;
	p->weights_sym = plan_fmt(p, p->mode == WEIGHTS_EMBED ? "%s_weights_data" : "%s_weights",
	                          p->name);
}

static void plan_arena(struct plan *p)
{
	const struct graph *g = p->g;
	for (int i = 0; i < g->n_tensors; i++) {
		const struct tensor *t = g->tensors[i];
		const struct tbuf *b = &p->tb[i];
		if (b->kind != BUF_ARENA || !b->used)
			continue;
		p->uses_arena = 1;
		if (t->offset % sizeof(float) || t->offset > g->arena_size ||
		    ir_nbytes(t) > g->arena_size - t->offset)
			diag_error(p->d, t->producer,
			           "internal error: tensor '%s' (%zu bytes at offset %zu) lies outside "
			           "the %zu-byte activation arena",
			           t->name, ir_nbytes(t), t->offset, g->arena_size);
	}
	for (int i = 0; i < p->n_layers; i++) {
		const struct layer *l = &p->layers[i];
		if (!l->ws_bytes)
			continue;
		p->uses_arena = 1;
		if (l->ws_offset % 64 || l->ws_offset > g->arena_size ||
		    l->ws_bytes > g->arena_size - l->ws_offset)
			diag_error(p->d, l->node,
			           "internal error: workspace (%zu bytes at offset %zu) lies outside the "
			           "%zu-byte activation arena",
			           l->ws_bytes, l->ws_offset, g->arena_size);
	}
}

static void plan_names(struct plan *p)
{
	static const char *const globals[] = {
		"_run", "_arena", "_weights", "_weights_data", "_weights_loaded",
		"_load_weights", "_input_sizes", "_output_sizes",
	};
	for (size_t i = 0; i < sizeof globals / sizeof globals[0]; i++) {
		char buf[512];
		snprintf(buf, sizeof buf, "%s%s", p->name, globals[i]);
		names_reserve(&p->names, buf);
	}
	static const char *const profile_globals[] = {
		"_profile_print", "_profile_reset", "_profile_count", "_profile_entry",
		"_profile_rows", "_profile_row", "_profile_add", "_profile_n", "_profile_ratio",
	};
	for (size_t i = 0; p->opt->instrument && i < sizeof profile_globals / sizeof *profile_globals;
	     i++) {
		char buf[512];
		snprintf(buf, sizeof buf, "%s%s", p->name, profile_globals[i]);
		names_reserve(&p->names, buf);
	}
	/* Layer functions l<number>_<node name>, then the pointer variables of
	 * NAME_run. */
	int number = 0;
	for (int i = 0; i < p->n_layers; i++) {
		struct layer *l = &p->layers[i];
		if (l->is_view)
			continue;
		char prefix[32];
		l->number = number++;
		snprintf(prefix, sizeof prefix, "l%d_", l->number);
		l->fn = names_add(&p->names, prefix, l->node->name);
	}
	for (int i = 0; i < p->g->n_tensors; i++)
		if (p->tb[i].used)
			p->tb[i].var = names_add(&p->names, "t_", p->g->tensors[i]->name);
	for (int i = 0; i < p->g->n_tensors; i++)
		if (p->tb[i].used && p->tb[i].kind == BUF_CONST &&
		    p->g->tensors[i]->dtype != DTYPE_F32)
			p->tb[i].array = names_add(&p->names, "k_", p->g->tensors[i]->name);
	if (p->opt->instrument)
		p->prof_var = names_add(&p->names, "prof_", "start");
}

/* Output paths: DIR/BASE.c as given, DIR/BASE.h, DIR/BASE.weights.bin. */
static int plan_paths(struct plan *p)
{
	const char *out = p->opt->output;
	if (!out || !*out) {
		diag_error(p->d, NULL, "no output file given");
		return -1;
	}
	size_t n = strlen(out);
	size_t stem = n > 2 && strcmp(out + n - 2, ".c") == 0 ? n - 2 : n;
	const char *slash = strrchr(out, '/');
	size_t dir_len = slash ? (size_t)(slash - out) : 0;
	p->c_path = plan_fmt(p, "%s", out);
	p->h_path = plan_fmt(p, "%.*s.h", (int)stem, out);
	p->bin_path = plan_fmt(p, "%.*s.weights.bin", (int)stem, out);
	size_t base_from = slash ? dir_len + 1 : 0;
	p->base = plan_fmt(p, "%.*s", (int)(stem - base_from), out + base_from);
	if (!*p->base || stem <= base_from) {
		diag_error(p->d, NULL, "-o %s: the output needs a file name", out);
		return -1;
	}
	for (const char *c = p->base; *c; c++) {
		if (*c == '"' || *c == '\\' || (unsigned char)*c < 0x20 || *c == '?') {
			diag_error(p->d, NULL,
			           "-o %s: the file name cannot be written in an #include (it contains "
			           "'\"', '\\\\', '?' or a control character)",
			           out);
			return -1;
		}
	}
	p->name = p->opt->name && *p->opt->name ? p->opt->name : default_name(p, p->base);
	p->upper = plan_fmt(p, "%s", p->name);
	for (char *c = p->upper; *c; c++)
		if (*c >= 'a' && *c <= 'z')
			*c = (char)(*c - 'a' + 'A');
	return 0;
}

static const struct embedded_file *find_source(struct plan *p, const char *file)
{
	char path[256];
	snprintf(path, sizeof path, "runtime/%s", file);
	for (const struct embedded_file *f = rt_sources; f->name; f++)
		if (strcmp(f->name, path) == 0)
			return f;
	diag_error(p->d, NULL, "internal error: runtime source %s is not embedded in dnncc", path);
	return NULL;
}

static int ident_at(const char *s, size_t i)
{
	return ident_char(s[i]);
}

/* The function a line `static inline ... NAME(` defines, into name; 0 when
 * the line is not such a definition (or is one this scan cannot name). */
static int inline_fn_name(const char *line, size_t len, char name[64])
{
	static const char prefix[] = "static inline ";
	size_t plen = sizeof prefix - 1;
	if (len < plen || strncmp(line, prefix, plen) != 0)
		return 0;
	const char *paren = memchr(line, '(', len);
	if (!paren)
		return 0;
	size_t end = (size_t)(paren - line);
	while (end > plen && (line[end - 1] == ' ' || line[end - 1] == '\t'))
		end--;
	size_t begin = end;
	while (begin > plen && ident_at(line, begin - 1))
		begin--;
	if (begin == end || end - begin >= 64 || strncmp(line + begin, "__attribute__", end - begin) == 0)
		return 0;
	memcpy(name, line + begin, end - begin);
	name[end - begin] = '\0';
	return 1;
}

static void add_piece(struct plan *p, int file, const char *text, size_t len, const char *fn)
{
	if (len == 0)
		return;
	p->pieces = xrealloc(p->pieces, (p->n_pieces + 1) * sizeof *p->pieces);
	struct piece *pc = &p->pieces[p->n_pieces++];
	pc->file = file;
	pc->text = text;
	pc->len = len;
	snprintf(pc->fn, sizeof pc->fn, "%s", fn ? fn : "");
	pc->keep = !fn;
}

/* 1 if text calls fn: the identifier, then optional blanks and "(". */
static int calls(const char *text, size_t len, const char *fn)
{
	size_t n = strlen(fn);
	for (size_t i = 0; i + n <= len; i++) {
		if (memcmp(text + i, fn, n) != 0 || (i > 0 && ident_at(text, i - 1)))
			continue;
		size_t k = i + n;
		while (k < len && (text[k] == ' ' || text[k] == '\t'))
			k++;
		if (k < len && text[k] == '(')
			return 1;
	}
	return 0;
}

/* Splits a runtime file into pieces: `#include "..."` lines are dropped (the
 * file is pasted after rt_types.h); a line starting `static inline ... NAME(`
 * through the next line starting with '}' is a function piece. */
static void split_source(struct plan *p, int file)
{
	const struct embedded_file *f = p->rt_files[file];
	const char *s = f->text, *end = f->text + f->size, *plain = s;
	while (s < end) {
		const char *nl = memchr(s, '\n', (size_t)(end - s));
		const char *eol = nl ? nl + 1 : end;
		const char *c = s;
		while (c < eol && (*c == ' ' || *c == '\t'))
			c++;
		if (c < eol && *c == '#') {
			c++;
			while (c < eol && (*c == ' ' || *c == '\t'))
				c++;
			if ((size_t)(eol - c) > 7 && strncmp(c, "include", 7) == 0) {
				c += 7;
				while (c < eol && (*c == ' ' || *c == '\t'))
					c++;
				if (c < eol && *c == '"') {
					add_piece(p, file, plain, (size_t)(s - plain), NULL);
					plain = s = eol;
					continue;
				}
			}
		}
		char fn[64];
		if (inline_fn_name(s, (size_t)(eol - s), fn)) {
			/* the body ends at the next line that starts with '}' */
			const char *t = eol;
			while (t < end && *t != '}') {
				const char *n2 = memchr(t, '\n', (size_t)(end - t));
				t = n2 ? n2 + 1 : end;
			}
			if (t < end) {
				const char *n2 = memchr(t, '\n', (size_t)(end - t));
				const char *close = n2 ? n2 + 1 : end;
				add_piece(p, file, plain, (size_t)(s - plain), NULL);
				add_piece(p, file, s, (size_t)(close - s), fn);
				plain = s = close;
				continue;
			}
		}
		s = eol;
	}
	add_piece(p, file, plain, (size_t)(end - plain), NULL);
}

static const struct embedded_file *find_source(struct plan *p, const char *file);

/* The threads the generated code runs on (--threads; 1 without). */
static int threads_of(const struct plan *p)
{
	return p->opt->threads > 1 ? p->opt->threads : 1;
}

/* The runtime text the model needs: rt_types.h and the units it calls, with
 * each static inline function kept only when kept text calls it. */
static int plan_runtime(struct plan *p)
{
	p->rt_files[p->n_rt_files++] = find_source(p, "rt_types.h");
	if (threads_of(p) > 1)
		p->rt_files[p->n_rt_files++] = find_source(p, "thread_pool.c");
	/* Units a used unit depends on are used too (they come earlier in
	 * units.def, so they are copied first); the GEMM is handled below. */
	for (int changed = 1; changed;) {
		changed = 0;
		for (int u = 0; u < RT_UNIT_COUNT_; u++) {
			if (!p->unit_used[u])
				continue;
			for (int v = 0; v < RT_UNIT_COUNT_; v++) {
				const char *hit = strstr(rt_unit_deps[u], rt_unit_files[v]);
				size_t len = strlen(rt_unit_files[v]);
				if (!p->unit_used[v] && hit && (hit[len] == ' ' || hit[len] == '\0') &&
				    (hit == rt_unit_deps[u] || hit[-1] == ' '))
					p->unit_used[v] = changed = 1;
			}
		}
	}
	/* The GEMM comes before the units calling it: sgemm.h, then the target's
	 * micro-kernel and the driver when any unit calls rt_sgemm. */
	for (int u = 0; u < RT_UNIT_COUNT_; u++) {
		if (!p->unit_used[u])
			continue;
		if (strstr(rt_unit_deps[u], "sgemm.c"))
			p->uses_sgemm = 2;
		else if (strstr(rt_unit_deps[u], "sgemm.h") && !p->uses_sgemm)
			p->uses_sgemm = 1;
	}
	if (p->uses_sgemm)
		p->rt_files[p->n_rt_files++] = find_source(p, "sgemm.h");
	for (int u = 0; u < RT_UNIT_COUNT_; u++) /* the SIMD layer, after sgemm.h */
		if (p->unit_used[u] && strstr(rt_unit_deps[u], "rt_simd.h")) {
			p->rt_files[p->n_rt_files++] = find_source(p, "rt_simd.h");
			break;
		}
	if (p->uses_sgemm == 2 && p->opt->blas_openblas) {
		p->rt_files[p->n_rt_files++] = find_source(p, "sgemm_cblas.c");
	} else if (p->uses_sgemm == 2) {
		p->rt_files[p->n_rt_files++] = find_source(p, sgemm_kernel_files[p->opt->isa]);
		p->rt_files[p->n_rt_files++] = find_source(p, "sgemm.c");
	}
	for (int u = 0; u < RT_UNIT_COUNT_; u++)
		if (p->unit_used[u])
			p->rt_files[p->n_rt_files++] = find_source(p, rt_unit_files[u]);
	for (int i = 0; i < p->n_rt_files; i++)
		if (!p->rt_files[i])
			return -1;
	for (int i = 0; i < p->n_rt_files; i++)
		split_source(p, i);
	for (int changed = 1; changed;) {
		changed = 0;
		for (int i = 0; i < p->n_pieces; i++) {
			struct piece *f = &p->pieces[i];
			for (int k = 0; !f->keep && k < p->n_pieces; k++) {
				const struct piece *q = &p->pieces[k];
				if (k != i && q->keep && calls(q->text, q->len, f->fn))
					f->keep = changed = 1;
			}
		}
	}
	return 0;
}

static int plan_graph(struct plan *p)
{
	const struct graph *g = p->g;
	int before = p->d->errors;
	if (plan_paths(p))
		return -1;
	p->tb = xcalloc(g->n_tensors, sizeof *p->tb);
	p->layers = xcalloc(g->n_nodes, sizeof *p->layers);
	plan_buffers(p);
	for (int j = 0; j < g->n_inputs; j++)
		check_tensor(p, NULL, g->inputs[j]);
	for (int i = 0; i < g->n_nodes; i++) {
		if (g->nodes[i]->dead)
			continue;
		struct layer *l = &p->layers[p->n_layers++];
		l->node = g->nodes[i];
		plan_layer(p, l);
	}
	for (int j = 0; j < g->n_outputs; j++) {
		const struct tensor *t = g->outputs[j];
		use_tensor(p, NULL, t);
		if (!t->producer && !t->data && !t->is_input && !t->alias)
			diag_error(p->d, NULL, "internal error: graph output '%s' is never written",
			           t->name);
	}
	for (int j = 0; j < g->n_inputs; j++)
		p->typed_io |= g->inputs[j]->dtype != DTYPE_F32;
	for (int j = 0; j < g->n_outputs; j++)
		p->typed_io |= g->outputs[j]->dtype != DTYPE_F32;
	p->typed |= p->typed_io;
	if (p->d->errors != before || plan_runtime(p))
		return -1;
	plan_weights(p);
	plan_arena(p);
	plan_names(p);
	return p->d->errors != before ? -1 : 0;
}

/* ---- printing helpers ----------------------------------------------------- */

/* The shortest decimal float literal that reads back as v exactly. */
static void float_lit(char *buf, size_t size, float v)
{
	if (isnan(v)) {
		snprintf(buf, size, "NAN");
		return;
	}
	if (isinf(v)) {
		snprintf(buf, size, "%sHUGE_VALF", v < 0 ? "-" : "");
		return;
	}
	for (int prec = 1; prec <= 9; prec++) {
		snprintf(buf, size, "%.*g", prec, (double)v);
		if (strtof(buf, NULL) == v && (v != 0.0f || signbit(v) == (buf[0] == '-')))
			break;
	}
	if (!strpbrk(buf, ".eE"))
		strncat(buf, ".0", size - strlen(buf) - 1);
	strncat(buf, "f", size - strlen(buf) - 1);
}

/* An exact C99 hexadecimal float literal (6.4.4.2). */
static void hex_float_lit(char *buf, size_t size, float v)
{
	if (isnan(v))
		snprintf(buf, size, "NAN");
	else if (isinf(v))
		snprintf(buf, size, "%sHUGE_VALF", v < 0 ? "-" : "");
	else
		snprintf(buf, size, "%af", (double)v);
}

/* Element i of a constant (float32; the data may be unaligned). */
static float const_at(const struct tensor *t, size_t i)
{
	float v;
	memcpy(&v, (const unsigned char *)t->data + i * sizeof v, sizeof v);
	return v;
}

static void ints_str(char *buf, size_t size, const int *v, int n)
{
	size_t k = 0;
	k += snprintf(buf + k, size - k, "{");
	for (int i = 0; i < n && k < size; i++)
		k += snprintf(buf + k, size - k, "%s%d", i ? ", " : "", v[i]);
	if (n == 0 && k < size)
		k += snprintf(buf + k, size - k, "0");
	if (k < size)
		snprintf(buf + k, size - k, "}");
}

static const char *weights_mode_name(struct plan *p)
{
	switch (p->mode) {
	case WEIGHTS_EMBED: return plan_fmt(p, "embed (.incbin of %s.weights.bin)", cmt(p, p->base));
	case WEIGHTS_CARRAY: return "c-array (hexadecimal float literals)";
	case WEIGHTS_FILE:
		return plan_fmt(p, "file (%s.weights.bin, read by %s_load_weights())", cmt(p, p->base),
		                p->name);
	default: return "auto";
	}
}

/* ---- printing the header -------------------------------------------------- */

static void print_io_list(struct plan *p, struct emitter *e, const char *what, int n,
                          struct tensor *const *ts)
{
	if (p->typed_io) { /* issue 11: each with its type */
		emit_line(e, " * %s (dense, in the model's own layout):", what);
		for (int i = 0; i < n; i++)
			emit_line(e, " *   %d: %s, %" PRId64 " values of %s (%s)", i,
			          tensor_desc(p, ts[i]), ir_numel(ts[i]), ir_dtype_names[ts[i]->dtype],
			          emit_ctype(ts[i]->dtype));
		return;
	}
	emit_line(e, " * %s (float32, dense, in the model's own layout):", what);
	if (n == 0)
		emit_line(e, " *   (none)");
	for (int i = 0; i < n; i++)
		emit_line(e, " *   %d: %s, %" PRId64 " floats", i, tensor_desc(p, ts[i]),
		          ir_numel(ts[i]));
}

/* ---- --instrument: per-layer timing ---------------------------------------- */

/* s as a C string literal: printable ASCII as is, the rest as octal escapes;
 * '?' is escaped too, so no trigraph forms. */
static const char *str_lit(struct plan *p, const char *s)
{
	if (!s)
		s = "";
	size_t n = strlen(s);
	char *out = xmalloc(4 * n + 3);
	size_t k = 0;
	out[k++] = '"';
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];
		if (c == '"' || c == '\\' || c == '?') {
			out[k++] = '\\';
			out[k++] = (char)c;
		} else if (c < 0x20 || c >= 0x7f) {
			k += (size_t)snprintf(out + k, 5, "\\%03o", c);
		} else {
			out[k++] = (char)c;
		}
	}
	out[k++] = '"';
	out[k] = '\0';
	return plan_keep(p, out);
}

/* Layers NAME_run times: every layer function (transforms included) and every
 * unaliased view's copy, one profile row each, in call order. */
static int is_profiled(const struct layer *l)
{
	return !l->is_view || l->copy;
}

/* The primitive column of a row: the convolution's row, the transform's row,
 * "copy" for a view's memcpy, else the runtime function. */
static const char *profile_primitive(const struct layer *l)
{
	if (l->copy)
		return "copy";
	if (l->node->op == OP_CONV && l->prim)
		return l->prim->name;
	if (l->node->op == OP_LAYOUT && l->node->primitive)
		return l->node->primitive;
	if (l->node->primitive && strncmp(l->node->primitive, "nc_", 3) == 0)
		return l->node->primitive; /* a non-convolution's kernel row (nonconv.def) */
	return l->kernel;
}

static void print_profile_decls(struct plan *p, struct emitter *e)
{
	const char *N = p->name;
	emit_blank(e);
	emit_line(e, "/* Per-layer timing (--instrument). Each %s_run() call adds one call and",
	          N);
	emit_line(e, " * its time to every layer's row. Rows are in call order, one per layer");
	emit_line(e, " * function or layout transform (and per copied view). */");
	emit_line(e, "/* Writes one line per row (node, op, primitive, calls, mean us, share of");
	emit_line(e, " * the total, the compile-time estimate and measured/estimated), then the");
	emit_line(e, " * total per run. */");
	emit_line(e, "void %s_profile_print(FILE *out);", N);
	emit_line(e, "/* Sets every row's calls and time to 0. */");
	emit_line(e, "void %s_profile_reset(void);", N);
	emit_line(e, "/* The number of rows. */");
	emit_line(e, "size_t %s_profile_count(void);", N);
	emit_line(e, "/* Row i: node name, op, primitive, estimated us per call (0: none), calls");
	emit_line(e, " * and total measured us; NULL pointers are skipped. Returns 0, or -1 when");
	emit_line(e, " * i >= %s_profile_count(). */", N);
	emit_line(e, "int %s_profile_entry(size_t i, const char **node, const char **op,", N);
	emit_line(e, "        const char **primitive, double *predicted_us, unsigned long *calls,");
	emit_line(e, "        double *total_us);");
}

/* NAME_profile_add, which NAME_run calls after each layer. */
static void print_profile_add(struct emitter *e, const char *N)
{
	emit_line(e, "/* Adds one call and the time since *start to row i. */");
	emit_line(e, "static void %s_profile_add(size_t i, const struct timespec *start)", N);
	emit_open_block(e);
	emit_line(e, "struct timespec now;");
	emit_line(e, "double us;");
	emit_line(e, "clock_gettime(CLOCK_MONOTONIC, &now);");
	emit_line(e, "us = (double)(now.tv_sec - start->tv_sec) * 1e6 +");
	emit_line(e, "     (double)(now.tv_nsec - start->tv_nsec) / 1e3;");
	emit_line(e, "%s_profile_rows[i].calls++;", N);
	emit_line(e, "if (us > 0)");
	emit_line(e, "\t%s_profile_rows[i].total_us += us;", N);
	emit_close(e, "");
}

static void print_profile(struct plan *p, struct emitter *e)
{
	const char *N = p->name;
	size_t rows = 0;
	for (int i = 0; i < p->n_layers; i++)
		rows += is_profiled(&p->layers[i]);
	emit_line(e, "/* ---- per-layer timing (--instrument) ---- */");
	emit_line(e, "struct %s_profile_row {", N);
	emit_line(e, "\tconst char *node, *op, *primitive;");
	emit_line(e, "\tdouble predicted_us; /* the compile-time estimate, 0: none */");
	emit_line(e, "\tunsigned long calls;");
	emit_line(e, "\tdouble total_us;");
	emit_line(e, "};");
	emit_blank(e);
	if (!rows)
		emit_line(e, "/* No layer runs code; C has no empty arrays, so one unused row. */");
	emit_open(e, "static struct %s_profile_row %s_profile_rows[%zu] =", N, N,
	          rows ? rows : 1);
	char est[64];
	for (int i = 0; i < p->n_layers; i++) {
		const struct layer *l = &p->layers[i];
		if (!is_profiled(l))
			continue;
		double cost = l->copy ? 0.0 : l->node->cost_us;
		snprintf(est, sizeof est, "%.4f", cost > 0 && isfinite(cost) ? cost : 0.0);
		emit_line(e, "{%s, %s, %s, %s, 0, 0.0},", str_lit(p, l->node->name),
		          str_lit(p, ir_op_names[l->node->op]), str_lit(p, profile_primitive(l)), est);
	}
	if (!rows)
		emit_line(e, "{\"\", \"\", \"\", 0.0, 0, 0.0},");
	emit_close(e, ";");
	emit_line(e, "static const size_t %s_profile_n = %zu;", N, rows);
	emit_blank(e);
	if (rows) {
		print_profile_add(e, N);
		emit_blank(e);
	}
	emit_line(e, "size_t %s_profile_count(void)", N);
	emit_open_block(e);
	emit_line(e, "return %s_profile_n;", N);
	emit_close(e, "");
	emit_blank(e);
	emit_line(e, "int %s_profile_entry(size_t i, const char **node, const char **op,", N);
	emit_line(e, "        const char **primitive, double *predicted_us, unsigned long *calls,");
	emit_line(e, "        double *total_us)");
	emit_open_block(e);
	emit_line(e, "const struct %s_profile_row *r;", N);
	emit_line(e, "if (i >= %s_profile_n)", N);
	emit_line(e, "\treturn -1;");
	emit_line(e, "r = &%s_profile_rows[i];", N);
	emit_line(e, "if (node)");
	emit_line(e, "\t*node = r->node;");
	emit_line(e, "if (op)");
	emit_line(e, "\t*op = r->op;");
	emit_line(e, "if (primitive)");
	emit_line(e, "\t*primitive = r->primitive;");
	emit_line(e, "if (predicted_us)");
	emit_line(e, "\t*predicted_us = r->predicted_us;");
	emit_line(e, "if (calls)");
	emit_line(e, "\t*calls = r->calls;");
	emit_line(e, "if (total_us)");
	emit_line(e, "\t*total_us = r->total_us;");
	emit_line(e, "return 0;");
	emit_close(e, "");
	emit_blank(e);
	emit_line(e, "void %s_profile_reset(void)", N);
	emit_open_block(e);
	emit_line(e, "size_t i;");
	emit_open(e, "for (i = 0; i < %s_profile_n; i++)", N);
	emit_line(e, "%s_profile_rows[i].calls = 0;", N);
	emit_line(e, "%s_profile_rows[i].total_us = 0.0;", N);
	emit_close(e, "");
	emit_close(e, "");
	emit_blank(e);
	emit_line(e, "/* Measured/estimated, or \"-\" without an estimate or a call. */");
	emit_line(e, "static void %s_profile_ratio(FILE *out, double mean_us, double predicted_us)", N);
	emit_open_block(e);
	emit_line(e, "if (predicted_us > 0 && mean_us > 0)");
	emit_line(e, "\tfprintf(out, \" %%7.2f\\n\", mean_us / predicted_us);");
	emit_line(e, "else");
	emit_line(e, "\tfprintf(out, \" %%7s\\n\", \"-\");");
	emit_close(e, "");
	emit_blank(e);
	emit_line(e, "void %s_profile_print(FILE *out)", N);
	emit_open_block(e);
	emit_line(e, "double sum = 0.0, estimated = 0.0, predicted = 0.0, mean;");
	emit_line(e, "unsigned long runs = 0;");
	emit_line(e, "int wn = 13, wo = 2, wp = 9; /* column widths: the longest name */");
	emit_line(e, "size_t i;");
	emit_open(e, "for (i = 0; i < %s_profile_n; i++)", N);
	emit_line(e, "const struct %s_profile_row *r = &%s_profile_rows[i];", N, N);
	emit_line(e, "sum += r->total_us;");
	emit_open(e, "if (r->predicted_us > 0)");
	emit_line(e, "estimated += r->total_us;");
	emit_line(e, "predicted += r->predicted_us;");
	emit_close(e, "");
	emit_line(e, "if (r->calls > runs)");
	emit_line(e, "	runs = r->calls;");
	emit_line(e, "if ((int)strlen(r->node) > wn)");
	emit_line(e, "	wn = (int)strlen(r->node);");
	emit_line(e, "if ((int)strlen(r->op) > wo)");
	emit_line(e, "	wo = (int)strlen(r->op);");
	emit_line(e, "if ((int)strlen(r->primitive) > wp)");
	emit_line(e, "	wp = (int)strlen(r->primitive);");
	emit_close(e, "");
	emit_line(e, "fprintf(out, \"%%-3s %%-*s %%-*s %%-*s %%8s %%11s %%6s %%11s %%7s\\n\", \"#\", wn, "
	             "\"node\", wo, \"op\",");
	emit_line(e, "        wp, \"primitive\", \"calls\", \"mean us\", \"share\", \"estimate\", "
	             "\"ratio\");");
	emit_open(e, "for (i = 0; i < %s_profile_n; i++)", N);
	emit_line(e, "const struct %s_profile_row *r = &%s_profile_rows[i];", N, N);
	emit_line(e, "mean = r->calls ? r->total_us / (double)r->calls : 0.0;");
	emit_line(e, "fprintf(out, \"%%-3lu %%-*s %%-*s %%-*s %%8lu %%11.3f %%5.1f%%%% %%11.3f\", "
	             "(unsigned long)i, wn,");
	emit_line(e, "        r->node, wo, r->op, wp, r->primitive, r->calls, mean,");
	emit_line(e, "        sum > 0 ? 100.0 * r->total_us / sum : 0.0, r->predicted_us);");
	emit_line(e, "%s_profile_ratio(out, mean, r->predicted_us);", N);
	emit_close(e, "");
	emit_line(e, "/* The total's ratio: the rows with an estimate against their estimates. */");
	emit_line(e, "fprintf(out, \"%%-3s %%-*s %%-*s %%-*s %%8lu %%11.3f %%5.1f%%%% %%11.3f\", \"\", wn, "
	             "\"total per run\", wo,");
	emit_line(e, "        \"\", wp, \"\", runs, runs ? sum / (double)runs : 0.0, sum > 0 ? 100.0 : 0.0,");
	emit_line(e, "        predicted);");
	emit_line(e, "%s_profile_ratio(out, runs ? estimated / (double)runs : 0.0, predicted);", N);
	emit_close(e, "");
	emit_blank(e);
}

static void print_header(struct plan *p, struct emitter *e)
{
	const struct graph *g = p->g;
	const char *N = p->name;
	emit_line(e, "/* %s.h - generated by dnncc %s from %s; do not edit.", cmt(p, p->base),
	          PACKAGE_VERSION, cmt(p, g->source));
	emit_line(e, " *");
	print_io_list(p, e, "Inputs", g->n_inputs, g->inputs);
	print_io_list(p, e, "Outputs", g->n_outputs, g->outputs);
	if (p->mode == WEIGHTS_FILE) {
		emit_line(e, " *");
		emit_line(e, " * Weights are read at run time: call %s_load_weights() with the path of",
		          N);
		emit_line(e, " * %s.weights.bin before %s_run(). */", cmt(p, p->base), N);
	} else {
		emit_line(e, " */");
	}
	emit_line(e, "#ifndef %s_H", p->upper);
	emit_line(e, "#define %s_H", p->upper);
	emit_blank(e);
	emit_line(e, "#include <stddef.h>");
	if (p->opt->instrument)
		emit_line(e, "#include <stdio.h>");
	emit_blank(e);
	emit_line(e, "#ifdef __cplusplus");
	emit_line(e, "extern \"C\" {");
	emit_line(e, "#endif");
	emit_blank(e);
	emit_line(e, "#define %s_NUM_INPUTS %d", p->upper, g->n_inputs);
	emit_line(e, "#define %s_NUM_OUTPUTS %d", p->upper, g->n_outputs);
	emit_blank(e);
	emit_line(e, "/* Element counts of the inputs and outputs, in graph order. */");
	emit_line(e, "extern const size_t %s_input_sizes[];", N);
	emit_line(e, "extern const size_t %s_output_sizes[];", N);
	emit_blank(e);
	if (p->typed_io) {
		emit_line(e, "/* Element types of the inputs and outputs, as ONNX numbers them");
		emit_line(e, " * (TensorProto.DataType): 1 float, 2 uint8_t, 3 int8_t, 6 int32_t,");
		emit_line(e, " * 7 int64_t, 9 bool as uint8_t 0 or 1, 11 double. */");
		emit_line(e, "#define %s_TYPED_IO 1", p->upper);
		emit_line(e, "extern const int %s_input_dtypes[];", N);
		emit_line(e, "extern const int %s_output_dtypes[];", N);
		emit_blank(e);
	}
	emit_line(e, "/* Runs the model once: reads inputs[i] (%s_input_sizes[i] %s), writes",
	          N, p->typed_io ? "values" : "floats");
	emit_line(e, " * outputs[j] (%s_output_sizes[j] %s), keeps no state between calls and",
	          N, p->typed_io ? "values" : "floats");
	emit_line(e, " * is not reentrant (one static activation arena). Returns 0 on success, -1");
	if (p->mode == WEIGHTS_FILE)
		emit_line(e, " * when a buffer pointer is NULL or the weights are not loaded. */");
	else
		emit_line(e, " * when a buffer pointer is NULL. */");
	if (p->typed_io)
		emit_line(e, "int %s_run(const void *const inputs[], void *const outputs[]);", N);
	else
		emit_line(e, "int %s_run(const float *const inputs[], float *const outputs[]);", N);
	emit_blank(e);
	emit_line(e, "/* Optional start-up, paid once: touches the activation arena and the weights");
	if (threads_of(p) > 1) {
		emit_line(e, " * so no call pays their page faults, and starts the %d worker threads.",
		          threads_of(p) - 1);
		emit_line(e, " * %s_run() calls it when nobody did. Returns 0. %s_free() joins the", N, N);
		emit_line(e, " * threads; a later %s_run() starts them again. */", N);
	} else {
		emit_line(e, " * so no call pays their page faults. %s_run() calls it when nobody did.", N);
		emit_line(e, " * Returns 0. %s_free() undoes it (nothing to release here). */", N);
	}
	emit_line(e, "int %s_init(void);", N);
	emit_line(e, "void %s_free(void);", N);
	if (threads_of(p) > 1) {
		emit_line(e, "/* Runs later calls on n threads (1 <= n <= %d, clamped), restarting the", threads_of(p));
		emit_line(e, " * pool if it runs; returns the count now used (1 when built single-threaded).");
		emit_line(e, " * Outputs are the same for every n. */");
		emit_line(e, "int %s_set_threads(int n);", N);
	}
	if (p->mode == WEIGHTS_FILE) {
		emit_blank(e);
		emit_line(e, "/* Reads the weights from path (%s.weights.bin: %zu bytes of float32,",
		          cmt(p, p->base), p->weights_bytes);
		emit_line(e, " * little-endian). Returns 0 on success, -1 when the file cannot be read or");
		emit_line(e, " * has another size; %s_run() fails until a load succeeded. */", N);
		emit_line(e, "int %s_load_weights(const char *path);", N);
	}
	if (p->opt->instrument)
		print_profile_decls(p, e);
	emit_blank(e);
	emit_line(e, "#ifdef __cplusplus");
	emit_line(e, "}");
	emit_line(e, "#endif");
	emit_blank(e);
	emit_line(e, "#endif");
}

/* ---- printing the C file -------------------------------------------------- */

static void print_front_matter(struct plan *p, struct emitter *e)
{
	const struct graph *g = p->g;
	int n_fn = 0;
	for (int i = 0; i < p->n_layers; i++)
		n_fn += !p->layers[i].is_view;
	emit_line(e, "/* %s.c - generated by dnncc %s; do not edit.", cmt(p, p->base),
	          PACKAGE_VERSION);
	emit_line(e, " *");
	emit_line(e, " * command line: %s",
	          p->opt->command_line ? cmt(p, p->opt->command_line) : "(not recorded)");
	emit_line(e, " * model file:   %s", cmt(p, g->source));
	emit_line(e, " * producer:     %s", g->producer && *g->producer ? cmt(p, g->producer)
	                                                              : "(unknown)");
	emit_line(e, " * strategy:     %s", p->opt->strategy ? p->opt->strategy : "reference");
	emit_line(e, " * costs:        %s", cmt(p, costs_source(p->opt)));
	emit_line(e, " * target:       %s (%s)", p->opt->target ? p->opt->target : "host",
	          rt_isa_names[p->opt->isa]);
	emit_line(e, " * weights:      %s, %zu bytes", weights_mode_name(p), p->weights_bytes);
	emit_line(e, " * arena:        %zu bytes of activations", p->uses_arena ? g->arena_size : 0);
	emit_line(e, " * layers:       %d functions for %d nodes", n_fn, p->n_layers);
	emit_line(e, " *");
	if (p->opt->instrument) {
		emit_line(e, " * Instrumented (--instrument): %s_run times each layer and transform with",
		          p->name);
		emit_line(e, " * clock_gettime(CLOCK_MONOTONIC), so this file defines _POSIX_C_SOURCE");
		emit_line(e, " * 199309L before its first include; %s_profile_print() shows the times.",
		          p->name);
		emit_line(e, " *");
	}
	if (threads_of(p) > 1) {
		emit_line(e, " * Threads (--threads %d): %s_init() starts a pool of %d POSIX threads", threads_of(p),
		          p->name, threads_of(p) - 1);
		emit_line(e, " * besides the caller (%s_run() calls it when nobody did), %s_free() joins", p->name,
		          p->name);
		emit_line(e, " * them. Each layer splits its output statically over the threads, so the");
		emit_line(e, " * outputs do not depend on the thread count. Needs GCC-style __atomic");
		emit_line(e, " * builtins and pthreads (in libc since glibc 2.34; -pthread before that);");
		emit_line(e, " * with -D%s_SINGLE_THREAD, or elsewhere, it runs on the caller alone.", p->upper);
		emit_line(e, " *");
	}
	if (p->uses_sgemm == 2 && p->opt->blas_openblas)
		emit_line(e, " * Compile from this directory: cc -std=c99 -c %s.c; link with "
		          "-lopenblas -lm. */", cmt(p, p->base));
	else
		emit_line(e, " * Compile from this directory: cc -std=c99 -c %s.c; link with -lm. */",
		          cmt(p, p->base));
	if (p->opt->instrument || threads_of(p) > 1) {
		emit_line(e, "#ifndef _POSIX_C_SOURCE");
		emit_line(e, "#define _POSIX_C_SOURCE %s", threads_of(p) > 1 ? "200112L" : "199309L");
		emit_line(e, "#endif");
	}
	emit_line(e, "#include \"%s.h\"", p->base);
	emit_blank(e);
	emit_line(e, "#include <math.h>");
	emit_line(e, "#include <stddef.h>");
	if (p->typed)
		emit_line(e, "#include <stdint.h>");
	if (p->mode == WEIGHTS_FILE || p->opt->instrument)
		emit_line(e, "#include <stdio.h>");
	emit_line(e, "#include <string.h>");
	if (p->opt->instrument)
		emit_line(e, "#include <time.h>");
	emit_blank(e);
	emit_line(e, "/* Runtime functions are private to this file, so models link together. */");
	emit_line(e, "#define RT_FN static");
	if (threads_of(p) > 1) {
		emit_line(e, "#if !defined(%s_SINGLE_THREAD) && defined(__GNUC__) && \\", p->upper);
		emit_line(e, "    (defined(__unix__) || defined(__APPLE__))");
		emit_line(e, "#define RT_THREADS %d /* the thread pool's size, caller included */",
		          threads_of(p));
		emit_line(e, "#endif");
	}
	if (p->uses_sgemm) {
		emit_line(e, "/* The GEMM micro-kernel of the target (%s); SIMD is enabled per function. */",
		          p->opt->target ? p->opt->target : "host");
		emit_line(e, "#define RT_SGEMM_ISA %s", rt_isa_names[p->opt->isa]);
	}
	emit_blank(e);
}

/* rt_types.h, then each unit the model calls, once, in units.def order,
 * without their includes and unused inline helpers (plan_runtime). */
static void print_runtime(struct plan *p, struct emitter *e)
{
	for (int i = 0; i < p->n_rt_files; i++) {
		const struct embedded_file *f = p->rt_files[i];
		emit_line(e, "/* ---- %s ---- */", f->name);
		for (int k = 0; k < p->n_pieces; k++)
			if (p->pieces[k].file == i && p->pieces[k].keep)
				emit_raw(e, p->pieces[k].text, p->pieces[k].len);
		if (f->size && f->text[f->size - 1] != '\n')
			emit_blank(e);
		emit_blank(e);
	}
}

static void print_weights(struct plan *p, struct emitter *e)
{
	const char *N = p->name;
	size_t count = p->weights_bytes / sizeof(float);
	if (p->n_consts == 0 && p->mode != WEIGHTS_FILE)
		return;
	emit_line(e, "/* ---- weights ---- */");
	if (p->mode == WEIGHTS_EMBED) {
		emit_line(e, "/* The weights blob (%zu bytes of float32, little-endian, each tensor",
		          p->weights_bytes);
		emit_line(e, " * 64-byte aligned), embedded by the assembler from %s.weights.bin;",
		          cmt(p, p->base));
		emit_line(e, " * .incbin finds it relative to the compiler's working directory. */");
		emit_line(e, "__asm__(\".section .rodata\\n\"");
		emit_line(e, "        \"\\t.balign %d\\n\"", WEIGHT_ALIGN);
		emit_line(e, "        \"\\t.globl %s\\n\"", p->weights_sym);
		emit_line(e, "        \"\\t.hidden %s\\n\"", p->weights_sym);
		emit_line(e, "        \"\\t.type %s, %%object\\n\"", p->weights_sym);
		emit_line(e, "        \"%s:\\n\"", p->weights_sym);
		emit_line(e, "        \"\\t.incbin \\\"%s.weights.bin\\\"\\n\"", p->base);
		emit_line(e, "        \"\\t.size %s, . - %s\\n\"", p->weights_sym, p->weights_sym);
		emit_line(e, "        \"\\t.previous\\n\");");
		emit_line(e, "extern const float %s[]; /* [%zu] */", p->weights_sym, count);
		emit_blank(e);
		return;
	}
	if (p->mode == WEIGHTS_FILE) {
		emit_line(e, "/* The weights blob (%zu bytes of float32, each tensor 64-byte aligned),",
		          p->weights_bytes);
		emit_line(e, " * filled by %s_load_weights() from %s.weights.bin. */", N,
		          cmt(p, p->base));
		if (count)
			emit_line(e, "static float %s[%zu];", p->weights_sym, count);
		emit_line(e, "static int %s_weights_loaded; /* set by a successful load */", N);
		emit_blank(e);
		return;
	}
	/* C array: hexadecimal literals are exact (C99 6.4.4.2). */
	emit_line(e, "/* The weights (%zu bytes), each tensor 64-byte aligned in the blob. */",
	          p->weights_bytes);
	emit_open(e, "static const float %s[%zu] =", p->weights_sym, count);
	size_t at = 0; /* floats written */
	for (int i = 0; i < p->n_consts; i++) {
		const struct tensor *t = p->consts[i];
		size_t first = tb_of(p, t)->offset / sizeof(float), n = (size_t)ir_numel(t);
		if (at < first)
			emit_line(e, "/* padding to a 64-byte boundary */");
		while (at < first) {
			char line[FLOATS_PER_LINE * 8 + 1] = "";
			for (int k = 0; k < FLOATS_PER_LINE && at < first; k++, at++)
				strcat(line, k ? " 0.0f," : "0.0f,");
			emit_line(e, "%s", line);
		}
		emit_line(e, "/* %s at float %zu */", tensor_desc(p, t), first);
		for (size_t k = 0; k < n; k += FLOATS_PER_LINE) {
			char line[FLOATS_PER_LINE * 40];
			size_t len = 0;
			for (size_t j = k; j < n && j < k + FLOATS_PER_LINE; j++) {
				char lit[40];
				hex_float_lit(lit, sizeof lit, const_at(t, j));
				len += snprintf(line + len, sizeof line - len, "%s%s,", j > k ? " " : "", lit);
			}
			emit_line(e, "%s", line);
		}
		at += n;
	}
	emit_close(e, ";");
	emit_blank(e);
}

/* Constants of types other than float32 (indices, masks), each its own
 * array: they are small, and the weights blob holds float32 only. */
static void print_typed_consts(struct plan *p, struct emitter *e)
{
	const struct graph *g = p->g;
	for (int i = 0; i < g->n_tensors; i++) {
		const struct tensor *t = g->tensors[i];
		const struct tbuf *b = &p->tb[i];
		if (!b->array)
			continue;
		size_t n = (size_t)ir_numel(t);
		emit_line(e, "/* %s */", tensor_desc(p, t));
		emit_open(e, "static const %s %s[%zu] =", emit_ctype(t->dtype), b->array, n);
		for (size_t k = 0; k < n; k += 8) {
			char line[8 * 48];
			size_t len = 0;
			for (size_t j = k; j < n && j < k + 8; j++) {
				char lit[40];
				const unsigned char *src = (const unsigned char *)t->data;
				int64_t v = 0;
				double dv = 0;
				switch (t->dtype) {
				case DTYPE_I64: memcpy(&v, src + 8 * j, 8); break;
				case DTYPE_I32: { int32_t w; memcpy(&w, src + 4 * j, 4); v = w; break; }
				case DTYPE_I8: v = (int8_t)src[j]; break;
				case DTYPE_U8:
				case DTYPE_BOOL: v = src[j]; break;
				default: memcpy(&dv, src + 8 * j, 8); break;
				}
				if (t->dtype == DTYPE_F64)
					snprintf(lit, sizeof lit, isnan(dv) ? "NAN" : isinf(dv) ? (dv < 0 ?
					         "-HUGE_VAL" : "HUGE_VAL") : "%a", dv);
				else if (t->dtype == DTYPE_I64 && v == INT64_MIN)
					snprintf(lit, sizeof lit, "INT64_MIN");
				else if (t->dtype == DTYPE_I64)
					snprintf(lit, sizeof lit, "INT64_C(%" PRId64 ")", v);
				else
					snprintf(lit, sizeof lit, "%" PRId64, v);
				len += snprintf(line + len, sizeof line - len, "%s%s,", j > k ? " " : "", lit);
			}
			emit_line(e, "%s", line);
		}
		emit_close(e, ";");
	}
}

static void print_arena_and_sizes(struct plan *p, struct emitter *e)
{
	const struct graph *g = p->g;
	const char *N = p->name;
	if (p->uses_arena) {
		emit_line(e, "/* ---- activations ---- */");
		emit_line(e, "/* Every intermediate tensor, at the offsets the memory planner chose. */");
		if (p->typed) { /* 8-byte types live in it too */
			size_t n8 = align_up(g->arena_size, 8) / 8;
			emit_line(e, "static union { float f[%zu]; int64_t i[%zu]; double d[%zu]; } "
			          "%s_arena_store;", 2 * n8, n8, n8, N);
			emit_line(e, "static float *const %s_arena = %s_arena_store.f;", N, N);
		} else {
			emit_line(e, "static float %s_arena[%zu];", N,
			          align_up(g->arena_size, sizeof(float)) / sizeof(float));
		}
		emit_blank(e);
	}
	print_typed_consts(p, e);
	const char *what[2] = {"input", "output"};
	int counts[2] = {g->n_inputs, g->n_outputs};
	struct tensor **ts[2] = {g->inputs, g->outputs};
	for (int k = 0; k < 2; k++) {
		char line[4096];
		size_t len = 0;
		len += snprintf(line, sizeof line, "const size_t %s_%s_sizes[] = {", N, what[k]);
		for (int i = 0; i < counts[k] && len < sizeof line; i++)
			len += snprintf(line + len, sizeof line - len, "%s%" PRId64, i ? ", " : "",
			                ir_numel(ts[k][i]));
		if (len < sizeof line && counts[k] == 0)
			len += snprintf(line + len, sizeof line - len, "0");
		if (len < sizeof line)
			snprintf(line + len, sizeof line - len, "};");
		if (len < sizeof line) {
			emit_line(e, "%s", line);
			continue;
		}
		/* Many inputs: one per line. */
		emit_open(e, "const size_t %s_%s_sizes[] =", N, what[k]);
		for (int i = 0; i < counts[k]; i++)
			emit_line(e, "%" PRId64 ",", ir_numel(ts[k][i]));
		emit_close(e, ";");
	}
	for (int k = 0; p->typed_io && k < 2; k++) {
		char line[4096];
		size_t len = 0;
		len += snprintf(line, sizeof line, "const int %s_%s_dtypes[] = {", N, what[k]);
		for (int i = 0; i < counts[k] && len < sizeof line - 16; i++)
			len += snprintf(line + len, sizeof line - len, "%s%d", i ? ", " : "",
			                emit_onnx_dtype(ts[k][i]->dtype));
		if (counts[k] == 0)
			len += snprintf(line + len, sizeof line - len, "0");
		snprintf(line + len, sizeof line - len, "};");
		emit_line(e, "%s", line);
	}
	emit_blank(e);
}

static void print_load_weights(struct plan *p, struct emitter *e)
{
	const char *N = p->name;
	const char *W = p->weights_sym;
	size_t count = p->weights_bytes / sizeof(float);
	emit_line(e, "int %s_load_weights(const char *path)", N);
	emit_open_block(e);
	emit_line(e, "FILE *f;");
	if (count)
		emit_line(e, "size_t got;");
	emit_line(e, "int extra;");
	emit_blank(e);
	emit_line(e, "%s_weights_loaded = 0;", N);
	emit_line(e, "if (path == NULL || (f = fopen(path, \"rb\")) == NULL)");
	emit_line(e, "\treturn -1;");
	if (count)
		emit_line(e, "got = fread(%s, sizeof %s[0], sizeof %s / sizeof %s[0], f);", W, W, W, W);
	emit_line(e, "extra = fgetc(f); /* EOF unless the file is too long */");
	if (count)
		emit_line(e, "if (fclose(f) != 0 || extra != EOF || got != sizeof %s / sizeof %s[0])",
		          W, W);
	else
		emit_line(e, "if (fclose(f) != 0 || extra != EOF)");
	emit_line(e, "\treturn -1;");
	if (count) {
		emit_open_block(e);
		emit_line(e, "/* The file is little-endian: swap the bytes on a big-endian target. */");
		emit_line(e, "const unsigned int one = 1u;");
		emit_open(e, "if (*(const unsigned char *)&one == 0u)");
		emit_line(e, "unsigned char *b = (unsigned char *)%s;", W);
		emit_line(e, "size_t i;");
		emit_open(e, "for (i = 0; i < sizeof %s; i += 4)", W);
		emit_line(e, "unsigned char t0 = b[i], t1 = b[i + 1];");
		emit_line(e, "b[i] = b[i + 3];");
		emit_line(e, "b[i + 1] = b[i + 2];");
		emit_line(e, "b[i + 2] = t1;");
		emit_line(e, "b[i + 3] = t0;");
		emit_close(e, "");
		emit_close(e, "");
		emit_close(e, "");
	}
	emit_line(e, "%s_weights_loaded = 1;", N);
	emit_line(e, "return 0;");
	emit_close(e, "");
	emit_blank(e);
}

static void print_struct_fields(struct emitter *e, const char *decl, const char *fields)
{
	emit_line(e, "static const %s = {%s};", decl, fields);
}

/* The rt_window3d layers of plan_window3d. */
static void print_window3d(struct emitter *e, const struct layer *l)
{
	const struct rt_window3d *c = &l->u.win;
	char f[2][64];
	float_lit(f[0], sizeof f[0], c->alpha);
	float_lit(f[1], sizeof f[1], c->beta);
	emit_open(e, "static const struct rt_window3d p =");
	emit_line(e, ".N = %d, .C = %d, .M = %d, .group = %d,", c->N, c->C, c->M, c->group);
	emit_line(e, ".in = {%d, %d, %d}, .out = {%d, %d, %d}, /* D, H, W */", c->in[0], c->in[1],
	          c->in[2], c->out[0], c->out[1], c->out[2]);
	emit_line(e, ".k = {%d, %d, %d}, .s = {%d, %d, %d}, .d = {%d, %d, %d},", c->k[0], c->k[1],
	          c->k[2], c->s[0], c->s[1], c->s[2], c->d[0], c->d[1], c->d[2]);
	emit_line(e, ".pb = {%d, %d, %d}, .pe = {%d, %d, %d},", c->pb[0], c->pb[1], c->pb[2],
	          c->pe[0], c->pe[1], c->pe[2]);
	emit_line(e, ".act = %s, .alpha = %s, .beta = %s, .max = %d, .count_include_pad = %d,",
	          rt_act_names[c->act], f[0], f[1], c->max, c->count_include_pad);
	emit_close(e, ";");
	if (l->unit == RT_UNIT_POOL3D)
		emit_line(e, "rt_pool3d(&p, x, y);");
	else
		emit_line(e, "%s(&p, x, w, %s, y);", l->kernel, l->n_args == 4 ? "b" : "NULL");
}

/* The body of one layer function: its kernel parameters as literal
 * constants, then the call. */
static void print_layer_body(struct emitter *e, const struct layer *l)
{
	char f[6][64];
	char buf[2048];
	const struct node *n = l->node;
	/* bytes per element of a data movement on another type than float32 */
	size_t es = n->outputs[0]->dtype != DTYPE_F32 ? ir_dtype_size(n->outputs[0]->dtype) : 0;
	if (l->unit == RT_UNIT_CONV3D || l->unit == RT_UNIT_CONV_TRANSPOSE3D ||
	    l->unit == RT_UNIT_POOL3D) {
		print_window3d(e, l);
		return;
	}
	if (l->unit == RT_UNIT_RESIZE3D) {
		const struct rt_resize3d *c = &l->u.resize3d;
		float_lit(f[0], sizeof f[0], c->cubic_a);
		emit_open(e, "static const struct rt_resize3d p =");
		emit_line(e, ".outer = %d, .in = {%d, %d, %d}, .out = {%d, %d, %d}, /* D, H, W */",
		          c->outer, c->in[0], c->in[1], c->in[2], c->out[0], c->out[1], c->out[2]);
		emit_line(e, ".scale = {%.17g, %.17g, %.17g},", c->scale[0], c->scale[1], c->scale[2]);
		emit_line(e, ".mode = %d, .coord = %d, .rounding = %d, /* mode: 0 nearest, 1 linear, "
		             "2 cubic */",
		          c->mode, c->coord, c->rounding);
		emit_line(e, ".cubic_a = %s, .exclude_outside = %d,", f[0], c->exclude_outside);
		emit_close(e, ";");
		emit_line(e, "rt_resize3d(&p, x, y);");
		return;
	}
	switch (n->op) {
	case OP_LAYOUT:
		emit_line(e, "%s(%d, %d, %d, %d, x, y); /* N, C, H, W */", l->kernel, l->u.layout.N,
		          l->u.layout.C, l->u.layout.H, l->u.layout.W);
		break;
	case OP_CONV: {
		const struct rt_conv2d *c = &l->u.conv;
		float_lit(f[0], sizeof f[0], c->alpha);
		float_lit(f[1], sizeof f[1], c->beta);
		emit_open(e, "static const struct rt_conv2d p =");
		emit_line(e, ".N = %d, .C = %d, .H = %d, .W = %d, /* x [N, C, H, W] */", c->N, c->C, c->H,
		          c->W);
		emit_line(e, ".M = %d, .oH = %d, .oW = %d, /* y [N, M, oH, oW] */", c->M, c->oH, c->oW);
		emit_line(e, ".kH = %d, .kW = %d, .sH = %d, .sW = %d, .dH = %d, .dW = %d,", c->kH, c->kW,
		          c->sH, c->sW, c->dH, c->dW);
		emit_line(e, ".padT = %d, .padL = %d, .group = %d,", c->padT, c->padL, c->group);
		int res = has_arg(l, "r");
		if (res) /* the activation follows the residual add */
			emit_line(e, ".act = RT_ACT_NONE,");
		else
			emit_line(e, ".act = %s, .alpha = %s, .beta = %s,", rt_act_names[c->act], f[0],
			          f[1]);
		if (l->prim)
			emit_line(e, ".isa = %s,", rt_isa_names[c->isa]);
		emit_close(e, ";");
		const char *bias = has_arg(l, "b") ? "b" : "NULL";
		if (l->prim)
			emit_line(e, "%s(&p, %d, x, w, %s, y, %s);", l->kernel, l->prim->variant, bias,
			          l->ws_bytes ? "ws" : "NULL");
		else
			emit_line(e, "rt_conv2d_ref(&p, x, w, %s, y);", bias);
		if (res) {
			int lo = l->prim ? (int)l->prim->out : RT_L_CHW;
			int block = lo == RT_L_CHW8C ? 8 : lo == RT_L_CHW16C ? 16 : 0;
			emit_line(e, "/* y = %s(y + r), r laid out like y (%s) */",
			          ir_act_names[c->act], rt_layout_names[lo]);
			emit_line(e, "rt_conv_residual(%d, %d, %d, %d, %s, %s, %s, r, y); "
			          "/* N, M, oH * oW, channel block */", c->N, c->M, c->oH * c->oW, block,
			          rt_act_names[c->act], f[0], f[1]);
		}
		break;
	}
	case OP_MAXPOOL:
	case OP_AVGPOOL: {
		const struct rt_pool2d *c = &l->u.pool;
		emit_open(e, "static const struct rt_pool2d p =");
		emit_line(e, ".N = %d, .C = %d, .H = %d, .W = %d, .oH = %d, .oW = %d,", c->N, c->C, c->H,
		          c->W, c->oH, c->oW);
		emit_line(e, ".kH = %d, .kW = %d, .sH = %d, .sW = %d, .dH = %d, .dW = %d,", c->kH, c->kW,
		          c->sH, c->sW, c->dH, c->dW);
		emit_line(e, ".padT = %d, .padL = %d, .padB = %d, .padR = %d, .count_include_pad = %d,",
		          c->padT, c->padL, c->padB, c->padR, c->count_include_pad);
		emit_close(e, ";");
		if (l->unit == RT_UNIT_POOL_CL)
			emit_line(e, "rt_pool2d_cl(&p, RT_SGEMM_ISA, %d, %d, x, y); /* ISA, block (0: "
			             "HWC), average */",
			          l->block, n->op == OP_AVGPOOL);
		else
			emit_line(e, "%s(&p, x, y);", l->kernel);
		break;
	}
	case OP_GEMM: {
		const struct rt_gemm *c = &l->u.gemm;
		float_lit(f[0], sizeof f[0], c->alpha);
		float_lit(f[1], sizeof f[1], c->beta);
		float_lit(f[2], sizeof f[2], c->act_alpha);
		float_lit(f[3], sizeof f[3], c->act_beta);
		emit_open(e, "static const struct rt_gemm p =");
		emit_line(e, ".M = %d, .N = %d, .K = %d, .transA = %d, .transB = %d,", c->M, c->N, c->K,
		          c->transA, c->transB);
		emit_line(e, ".alpha = %s, .beta = %s, .c_sm = %d, .c_sn = %d,", f[0], f[1], c->c_sm,
		          c->c_sn);
		emit_line(e, ".act = %s, .act_alpha = %s, .act_beta = %s,", rt_act_names[c->act], f[2],
		          f[3]);
		emit_close(e, ";");
		if (l->unit == RT_UNIT_GEMM_FC)
			emit_line(e, "rt_gemm_fc(&p, RT_SGEMM_ISA, a, b, %s, y); /* b: packed panels */",
			          l->n_args == 4 ? "c" : "NULL");
		else if (l->unit == RT_UNIT_GEMM_SGEMM)
			emit_line(e, "rt_gemm_sgemm(&p, RT_SGEMM_ISA, a, b, %s, y, ws);",
			          l->n_args == 4 ? "c" : "NULL");
		else
			emit_line(e, "rt_gemm_ref(&p, a, b, %s, y);", l->n_args == 4 ? "c" : "NULL");
		break;
	}
	case OP_MATMUL: {
		if (l->unit == RT_UNIT_GEMM_FC) {
			const struct rt_gemm *c = &l->u.gemm;
			emit_open(e, "static const struct rt_gemm p =");
			emit_line(e, ".M = %d, .N = %d, .K = %d, .alpha = 1.0f,", c->M, c->N, c->K);
			emit_close(e, ";");
			emit_line(e, "rt_gemm_fc(&p, RT_SGEMM_ISA, a, b, NULL, y); /* b: packed panels */");
			break;
		}
		const struct rt_bcast *b = &l->u.matmul.batch;
		ints_str(f[0], sizeof f[0], b->dims, b->rank);
		ints_str(f[1], sizeof f[1], b->sa, b->rank);
		ints_str(f[2], sizeof f[2], b->sb, b->rank);
		snprintf(buf, sizeof buf, ".rank = %d, .dims = %s, .sa = %s, .sb = %s", b->rank, f[0],
		         f[1], f[2]);
		emit_line(e, "/* batch dims of y; a's and b's strides count whole matrices */");
		print_struct_fields(e, "struct rt_bcast batch", buf);
		emit_line(e, "rt_matmul(&batch, %d, %d, %d, a, b, y); /* M, N, K */", l->u.matmul.M,
		          l->u.matmul.N, l->u.matmul.K);
		break;
	}
	case OP_ADD:
	case OP_SUB:
	case OP_MUL:
	case OP_DIV:
	case OP_POW:
	case OP_PRELU:
	case OP_MAX:
	case OP_MIN:
	case OP_SUM: {
		static const char *const opn[] = {"RT_ADD", "RT_SUB", "RT_MUL", "RT_DIV",
		                                  "RT_POW", "RT_PRELU", "RT_MAX", "RT_MIN"};
		_Static_assert(sizeof opn / sizeof opn[0] == RT_MIN + 1, "one name per rt_binop");
		if (l->unit == RT_UNIT_ELTWISE) {
			emit_line(e, "rt_eltwise(%s, RT_SGEMM_ISA, %" PRId64 ", a, b, y); /* op, ISA, "
			             "floats */",
			          opn[l->u.binary.op], l->u.binary.n);
			break;
		}
		const struct rt_bcast *b = &l->u.binary.b;
		ints_str(f[0], sizeof f[0], b->dims, b->rank);
		ints_str(f[1], sizeof f[1], b->sa, b->rank);
		ints_str(f[2], sizeof f[2], b->sb, b->rank);
		snprintf(buf, sizeof buf, ".rank = %d, .dims = %s, .sa = %s, .sb = %s", b->rank, f[0],
		         f[1], f[2]);
		emit_line(e, "/* y's dims (size-1 dims dropped, contiguous ones merged); a's and b's "
		             "strides, 0 where broadcast */");
		print_struct_fields(e, "struct rt_bcast p", buf);
		emit_line(e, "rt_binary(%s, &p, a, b, y);", opn[l->u.binary.op]);
		break;
	}
	case OP_RELU:
	case OP_LEAKY_RELU:
	case OP_CLIP:
	case OP_SIGMOID:
	case OP_TANH:
		if (l->unit == RT_UNIT_CLIP) {
			float_lit(f[0], sizeof f[0], l->u.clip.lo);
			float_lit(f[1], sizeof f[1], l->u.clip.hi);
			emit_line(e, "rt_clip(%" PRId64 ", x, %s, %s, %s, %s, y); /* n, min, max, "
			             "constant min, max where NULL */",
			          l->u.clip.n, l->u.clip.has_lo ? "lo" : "NULL",
			          l->u.clip.has_hi ? "hi" : "NULL", f[0], f[1]);
			break;
		}
		float_lit(f[0], sizeof f[0], l->u.unary.alpha);
		float_lit(f[1], sizeof f[1], l->u.unary.beta);
		if (l->unit == RT_UNIT_ACT_VEC) {
			emit_line(e, "rt_act_vec(%s, %s, RT_SGEMM_ISA, %" PRId64 ", x, y); /* act, alpha, "
			             "ISA, n */",
			          rt_act_names[l->u.unary.act], f[0], l->u.unary.n);
			break;
		}
		emit_line(e, "rt_unary(%s, %s, %s, %" PRId64 ", x, y); /* act, alpha, beta, n */",
		          rt_act_names[l->u.unary.act], f[0], f[1], l->u.unary.n);
		break;
	case OP_EXP:
	case OP_LOG:
	case OP_SQRT:
	case OP_ABS:
	case OP_NEG:
	case OP_RECIPROCAL:
	case OP_FLOOR:
	case OP_CEIL:
	case OP_ROUND:
	case OP_SIGN:
	case OP_SIN:
	case OP_COS:
	case OP_TAN:
	case OP_ASIN:
	case OP_ACOS:
	case OP_ATAN:
	case OP_SINH:
	case OP_COSH:
	case OP_ASINH:
	case OP_ACOSH:
	case OP_ATANH:
	case OP_ERF:
	case OP_ELU:
	case OP_SELU:
	case OP_CELU:
	case OP_HARD_SIGMOID:
	case OP_HARD_SWISH:
	case OP_SOFTPLUS:
	case OP_SOFTSIGN:
	case OP_MISH:
	case OP_THRESHOLDED_RELU:
	case OP_GELU:
		float_lit(f[0], sizeof f[0], l->u.unary.alpha);
		float_lit(f[1], sizeof f[1], l->u.unary.beta);
		emit_line(e, "rt_unary_math(%s, %s, %s, %" PRId64 ", x, y); /* function, alpha, beta, "
		             "n */",
		          rt_math_names[l->u.unary.act], f[0], f[1], l->u.unary.n);
		break;
	case OP_REDUCE_MEAN:
	case OP_REDUCE_SUM:
	case OP_REDUCE_MAX:
	case OP_REDUCE_MIN:
	case OP_REDUCE_PROD:
	case OP_REDUCE_L1:
	case OP_REDUCE_L2:
	case OP_REDUCE_LOG_SUM:
	case OP_REDUCE_LOG_SUM_EXP:
	case OP_REDUCE_SUM_SQUARE: {
		static const char *const opn[] = {
			"RT_REDUCE_SUM", "RT_REDUCE_MEAN", "RT_REDUCE_MAX", "RT_REDUCE_MIN",
			"RT_REDUCE_PROD", "RT_REDUCE_L1", "RT_REDUCE_L2", "RT_REDUCE_LOG_SUM",
			"RT_REDUCE_LOG_SUM_EXP", "RT_REDUCE_SUM_SQUARE"};
		_Static_assert(sizeof opn / sizeof opn[0] == RT_REDUCE_SUM_SQUARE + 1,
		               "one name per rt_reduce_op");
		const struct rt_reduce *r = &l->u.reduce.r;
		ints_str(f[0], sizeof f[0], r->out_dims, r->n_out);
		ints_str(f[1], sizeof f[1], r->out_sx, r->n_out);
		ints_str(f[2], sizeof f[2], r->red_dims, r->n_red);
		ints_str(f[3], sizeof f[3], r->red_sx, r->n_red);
		snprintf(buf, sizeof buf,
		         ".n_out = %d, .out_dims = %s, .out_sx = %s, .n_red = %d, .red_dims = %s, "
		         ".red_sx = %s",
		         r->n_out, f[0], f[1], r->n_red, f[2], f[3]);
		emit_line(e, "/* y's dims and the reduced dims, with their strides in x */");
		print_struct_fields(e, "struct rt_reduce p", buf);
		emit_line(e, "rt_reduce(%s, &p, x, y);", opn[l->u.reduce.op]);
		break;
	}
	case OP_LAYER_NORM:
	case OP_INSTANCE_NORM:
	case OP_MVN: {
		const struct rt_norm *c = &l->u.norm;
		const struct rt_reduce *r = &c->r;
		ints_str(f[0], sizeof f[0], r->out_dims, r->n_out);
		ints_str(f[1], sizeof f[1], r->out_sx, r->n_out);
		ints_str(f[2], sizeof f[2], r->red_dims, r->n_red);
		ints_str(f[3], sizeof f[3], r->red_sx, r->n_red);
		float_lit(f[4], sizeof f[4], c->epsilon);
		snprintf(buf, sizeof buf,
		         ".r = {.n_out = %d, .out_dims = %s, .out_sx = %s, .n_red = %d, .red_dims = %s, "
		         ".red_sx = %s}, .epsilon = %s, .eps_outside = %d, .s_mod = %d, .s_o = %d, "
		         ".s_t = %d",
		         r->n_out, f[0], f[1], r->n_red, f[2], f[3], f[4], c->eps_outside, c->s_mod,
		         c->s_o, c->s_t);
		emit_line(e, "/* groups (kept dims) and their elements (normalised dims), strides in "
		             "x; scale and bias indices */");
		print_struct_fields(e, "struct rt_norm p", buf);
		emit_line(e, "rt_normalize(&p, x, %s, %s, y);", l->n_args > 2 ? "scale" : "NULL",
		          l->n_args > 3 ? "bias" : "NULL");
		break;
	}
	case OP_HARDMAX:
		emit_line(e, "rt_hardmax(%d, %d, %d, x, y); /* outer, len, inner */",
		          l->u.softmax.outer, l->u.softmax.len, l->u.softmax.inner);
		break;
	case OP_SOFTMAX:
	case OP_LOG_SOFTMAX:
		emit_line(e, "rt_softmax(%d, %d, %d, %d, x, y); /* outer, len, inner, log */",
		          l->u.softmax.outer, l->u.softmax.len, l->u.softmax.inner, l->u.softmax.log);
		break;
	case OP_GLOBAL_AVGPOOL:
	case OP_GLOBAL_MAXPOOL:
		if (l->unit == RT_UNIT_GLOBAL_POOL_CL) {
			emit_line(e, "rt_global_pool_cl(%d, %d, %d, RT_SGEMM_ISA, %d, %d, x, y); /* N, C, "
			             "spatial size, ISA, block (0: HWC), average */",
			          l->u.global.N, l->u.global.C, l->u.global.hw, l->block,
			          n->op == OP_GLOBAL_AVGPOOL);
			break;
		}
		emit_line(e, "%s(%d, %d, x, y); /* N*C, spatial size */", l->kernel, l->u.global.nc,
		          l->u.global.hw);
		break;
	case OP_LRN:
		float_lit(f[0], sizeof f[0], l->u.lrn.alpha);
		float_lit(f[1], sizeof f[1], l->u.lrn.beta);
		float_lit(f[2], sizeof f[2], l->u.lrn.bias);
		emit_line(e, "rt_lrn(%d, %d, %d, %d, %s, %s, %s, x, y); /* N, C, HW, size, alpha, beta, "
		             "bias */",
		          l->u.lrn.N, l->u.lrn.C, l->u.lrn.HW, l->u.lrn.size, f[0], f[1], f[2]);
		break;
	case OP_BATCHNORM:
		float_lit(f[0], sizeof f[0], l->u.batchnorm.epsilon);
		emit_line(e, "rt_batchnorm(%d, %d, %d, %s, x, scale, bias, mean, var, y); /* N, C, HW, "
		             "epsilon */",
		          l->u.batchnorm.N, l->u.batchnorm.C, l->u.batchnorm.HW, f[0]);
		break;
	case OP_CONCAT:
		emit_line(e, "/* y as [%d, %d]; each input as [%d, part] at a column offset */",
		          l->u.concat.outer, l->u.concat.total, l->u.concat.outer);
		for (int i = 0; i + 1 < l->n_args; i++) {
			if (es) /* another type than float32: typed_concat.c */
				emit_line(e, "rt_tconcat_part(%zu, %d, %d, %d, %d, %s, y);", es,
				          l->u.concat.outer, l->u.concat.part[i], l->u.concat.total,
				          l->u.concat.offset[i], l->arg_names[i]);
			else
				emit_line(e, "rt_concat_part(%d, %d, %d, %d, %s, y); /* outer, part, total, "
				          "offset */",
				          l->u.concat.outer, l->u.concat.part[i], l->u.concat.total,
				          l->u.concat.offset[i], l->arg_names[i]);
		}
		break;
	case OP_TRANSPOSE: {
		const struct rt_transpose *t = &l->u.transpose;
		ints_str(f[0], sizeof f[0], t->dims, t->rank);
		ints_str(f[1], sizeof f[1], t->sx, t->rank);
		snprintf(buf, sizeof buf, ".rank = %d, .dims = %s, .sx = %s", t->rank, f[0], f[1]);
		emit_line(e, "/* y's dims (size-1 dims dropped, contiguous ones merged), x's strides */");
		print_struct_fields(e, "struct rt_transpose p", buf);
		if (es)
			emit_line(e, "rt_tcopy(%zu, &p, x, y);", es);
		else
			emit_line(e, "rt_transpose(&p, x, y);");
		break;
	}
	case OP_SLICE:
	case OP_EXPAND:
	case OP_TILE:
	case OP_DEPTH_TO_SPACE:
	case OP_SPACE_TO_DEPTH: {
		const struct rt_transpose *t = &l->u.strided.t;
		ints_str(f[0], sizeof f[0], t->dims, t->rank);
		ints_str(f[1], sizeof f[1], t->sx, t->rank);
		snprintf(buf, sizeof buf, ".rank = %d, .dims = %s, .sx = %s", t->rank, f[0], f[1]);
		emit_line(e, "/* y's dims (size-1 dims dropped, contiguous ones merged), x's strides */");
		print_struct_fields(e, "struct rt_transpose p", buf);
		if (es)
			emit_line(e, "rt_tcopy(%zu, &p, x + %lld, y); /* from x's element %lld */", es,
			          (long long)l->u.strided.x_offset, (long long)l->u.strided.x_offset);
		else
			emit_line(e, "rt_transpose(&p, x + %lld, y); /* from x's element %lld */",
			          (long long)l->u.strided.x_offset, (long long)l->u.strided.x_offset);
		break;
	}
	case OP_CONV_TRANSPOSE: {
		const struct rt_conv2d *c = &l->u.conv;
		emit_open(e, "static const struct rt_conv2d p =");
		emit_line(e, ".N = %d, .C = %d, .H = %d, .W = %d, .M = %d, .oH = %d, .oW = %d,", c->N,
		          c->C, c->H, c->W, c->M, c->oH, c->oW);
		emit_line(e, ".kH = %d, .kW = %d, .sH = %d, .sW = %d, .dH = %d, .dW = %d,", c->kH, c->kW,
		          c->sH, c->sW, c->dH, c->dW);
		emit_line(e, ".padT = %d, .padL = %d, .group = %d,", c->padT, c->padL, c->group);
		emit_close(e, ";");
		emit_line(e, "rt_conv_transpose_ref(&p, x, w, %s, y);", l->n_args > 3 ? "bias" : "NULL");
		break;
	}
	case OP_RESIZE:
	case OP_UPSAMPLE: {
		const struct rt_resize *t = &l->u.resize;
		emit_open(e, "static const struct rt_resize p =");
		emit_line(e, ".outer = %d, .in_h = %d, .in_w = %d, .out_h = %d, .out_w = %d,", t->outer,
		          t->in_h, t->in_w, t->out_h, t->out_w);
		emit_line(e, ".scale_h = %.17g, .scale_w = %.17g,", t->scale_h, t->scale_w);
		emit_line(e, ".linear = %d, .coord = %d, .rounding = %d,", t->linear, t->coord,
		          t->rounding);
		emit_close(e, ";");
		emit_line(e, "rt_resize(&p, x, y); /* x [outer, in_h, in_w], y [outer, out_h, out_w] */");
		break;
	}
	case OP_PAD: {
		const struct rt_pad *t = &l->u.pad;
		ints_str(f[0], sizeof f[0], t->in_dims, t->rank);
		ints_str(f[1], sizeof f[1], t->out_dims, t->rank);
		ints_str(f[2], sizeof f[2], t->begin, t->rank);
		float_lit(f[3], sizeof f[3], t->value);
		emit_open(e, "static const struct rt_pad p =");
		emit_line(e, ".rank = %d, .in_dims = %s, .out_dims = %s,", t->rank, f[0], f[1]);
		emit_line(e, ".begin = %s, .value = %s,", f[2], f[3]);
		emit_close(e, ";");
		if (l->unit == RT_UNIT_PAD)
			emit_line(e, "rt_pad_constant(&p, x, y);");
		else
			emit_line(e, "rt_pad_edge_reflect(&p, %d, x, y); /* reflect */",
			          strcmp(ir_attr_string(l->node, "mode", ""), "reflect") == 0);
		break;
	}
	default: unreachable("op without a layer body");
	}
}

static const char *act_desc1(struct plan *p, const struct node *n);

static const char *act_desc(struct plan *p, const struct node *n)
{
	if (fuse_has_residual(n))
		return plan_fmt(p, "residual add, then %s", act_desc1(p, n));
	return act_desc1(p, n);
}

static const char *act_desc1(struct plan *p, const struct node *n)
{
	char a[64], b[64];
	switch (n->act) {
	case ACT_NONE: return "none";
	case ACT_LEAKY_RELU:
		float_lit(a, sizeof a, n->act_alpha);
		return plan_fmt(p, "leaky_relu(alpha %s)", a);
	case ACT_CLIP:
		float_lit(a, sizeof a, n->act_alpha);
		float_lit(b, sizeof b, n->act_beta);
		return plan_fmt(p, "clip(%s, %s)", a, b);
	default: return ir_act_names[n->act];
	}
}

static void print_layer(struct plan *p, struct emitter *e, const struct layer *l)
{
	const struct node *n = l->node;
	emit_line(e, "/* Layer %d: node '%s' (%s)", l->number, cmt(p, n->name), ir_op_names[n->op]);
	for (int k = 0; k < l->n_args; k++)
		emit_line(e, " *   %s%s: %s", l->arg_names[k], k >= l->n_args - l->n_outs ? " (out)" : "",
		          tensor_desc(p, l->args[k]));
	if (l->ws_bytes)
		emit_line(e, " *   ws: %zu bytes of workspace, arena bytes [%zu, %zu)", l->ws_bytes,
		          l->ws_offset, l->ws_offset + l->ws_bytes);
	if (n->op == OP_CONV && l->prim)
		emit_line(e, " * primitive: %s, %s -> %s (%s, estimated %.1f us), epilogue: %s */",
		          l->prim->name, rt_layout_names[l->prim->in], rt_layout_names[l->prim->out],
		          rt_family_names[l->prim->family], n->cost_us, act_desc(p, n));
	else
		emit_line(e, " * primitive: %s (%s), epilogue: %s */",
		          n->primitive ? cmt(p, n->primitive) : "reference", l->kernel, act_desc(p, n));
	char params[4096];
	size_t len = 0;
	for (int k = 0; k < l->n_args; k++)
		len += snprintf(params + len, sizeof params - len, "%s%s%s *%s", k ? ", " : "",
		                k >= l->n_args - l->n_outs ? "" : "const ",
		                emit_ctype(l->args[k]->dtype), l->arg_names[k]);
	if (l->ws_bytes)
		snprintf(params + len, sizeof params - len, ", float *ws");
	emit_line(e, "static void %s(%s)", l->fn, params);
	emit_open_block(e);
	if (typed_runs_typed(n)) {
		for (const char *s = l->u.typed.body; *s;) {
			const char *nl = strchr(s, '\n');
			int len = nl ? (int)(nl - s) : (int)strlen(s);
			emit_line(e, "%.*s", len, s);
			s += len + (nl != NULL);
		}
	} else {
		print_layer_body(e, l);
	}
	emit_close(e, "");
	emit_blank(e);
}

/* The pointer expression of a tensor in NAME_run. */
static const char *pointer_expr(struct plan *p, const struct tensor *t)
{
	const struct tbuf *b = tb_of(p, t);
	switch (b->kind) {
	case BUF_INPUT: return plan_fmt(p, "inputs[%d]", b->slot);
	case BUF_OUTPUT: return plan_fmt(p, "outputs[%d]", b->slot);
	case BUF_CONST:
		if (b->array)
			return b->array;
		return plan_fmt(p, "%s + %zu", p->weights_sym, b->offset / sizeof(float));
	case BUF_ARENA:
		if (t->dtype != DTYPE_F32)
			return plan_fmt(p, "(%s *)(void *)(%s_arena + %zu)", emit_ctype(t->dtype), p->name,
			                b->offset / sizeof(float));
		return plan_fmt(p, "%s_arena + %zu", p->name, b->offset / sizeof(float));
	case BUF_VIEW:
		if (t->alias_offset) /* a slice of a zero-copy Concat's output, in elements of its type */
			return plan_fmt(p, "%s + %zu", tb_of(p, b->root)->var,
			                t->alias_offset / (t->dtype == DTYPE_F32 ? sizeof(float)
			                                                         : ir_dtype_size(t->dtype)));
		return tb_of(p, b->root)->var;
	default: unreachable("pointer to an unplaced tensor");
	}
}

static const char *where_desc(struct plan *p, const struct tensor *t)
{
	const struct tbuf *b = tb_of(p, t);
	switch (b->kind) {
	case BUF_INPUT: return plan_fmt(p, "graph input %d", b->slot);
	case BUF_OUTPUT: return plan_fmt(p, "graph output %d", b->slot);
	case BUF_CONST:
		return plan_fmt(p, "weights bytes [%zu, %zu)", b->offset, b->offset + ir_nbytes(t));
	case BUF_ARENA:
		return plan_fmt(p, "arena bytes [%zu, %zu)", b->offset, b->offset + ir_nbytes(t));
	default:
		if (t->alias_offset || ir_nbytes(t) != ir_nbytes(b->root))
			return plan_fmt(p, "slice of '%s' from byte %zu", cmt(p, b->root->name),
			                t->alias_offset);
		return plan_fmt(p, "view of '%s'", cmt(p, b->root->name));
	}
}

static int is_const_buffer(const struct plan *p, const struct tensor *t)
{
	const struct tbuf *b = &p->tb[t->index];
	if (b->kind == BUF_VIEW)
		b = &p->tb[b->root->index];
	return b->kind == BUF_INPUT || b->kind == BUF_CONST;
}

static void print_declarations(struct plan *p, struct emitter *e, int views)
{
	const struct graph *g = p->g;
	for (int i = 0; i < g->n_tensors; i++) {
		const struct tensor *t = g->tensors[i];
		const struct tbuf *b = &p->tb[i];
		if (!b->used || (b->kind == BUF_VIEW) != views)
			continue;
		emit_line(e, "%s%s *%s = %s; /* %s, %s */", is_const_buffer(p, t) ? "const " : "",
		          emit_ctype(t->dtype), b->var, pointer_expr(p, t), tensor_desc(p, t),
		          where_desc(p, t));
	}
}

/* Graph outputs whose data is not written into outputs[j] by a layer: views,
 * inputs, constants, and a tensor's second slot. Copies of computed data
 * follow the layer that computed it (when = that layer's node), the others
 * come last (when = NULL). */
static void print_output_copies(struct plan *p, struct emitter *e, const struct node *when)
{
	const struct graph *g = p->g;
	for (int j = 0; j < g->n_outputs; j++) {
		const struct tensor *t = g->outputs[j];
		const struct tbuf *b = tb_of(p, t);
		if (b->kind == BUF_OUTPUT && b->slot == j)
			continue;
		const struct tensor *r = b->kind == BUF_VIEW ? b->root : t;
		if (r->producer != when)
			continue;
		emit_line(e, "memcpy(outputs[%d], %s, %" PRId64 " * sizeof(%s)); /* output %d: %s */",
		          j, b->var, ir_numel(t), emit_ctype(t->dtype), j, tensor_desc(p, t));
	}
}

/* NAME_init and NAME_free (print_header documents them). The arena is
 * written (zeroed) in 64 KiB chunks, by the pool's threads when there are
 * some, and the constant weights are read: every 64-byte line of them up to
 * WARM_WEIGHTS_BYTES, so that the first call finds them in the caches as the
 * next ones do (measured: the autoencoder's first call 2.2x a steady one
 * with one float per page read, 1.1x with every line), else one float per
 * 4 KiB page (the page faults; the weights outgrow the caches anyway). */
#define WARM_WEIGHTS_BYTES ((size_t)16 << 20)
static void print_init(struct plan *p, struct emitter *e)
{
	const char *N = p->name;
	const size_t chunk = 16384; /* floats */
	size_t arena_floats = p->uses_arena ? align_up(p->g->arena_size, sizeof(float)) / sizeof(float) : 0;
	size_t n_chunks = (arena_floats + chunk - 1) / chunk;
	int touch_weights = p->mode != WEIGHTS_FILE && p->weights_bytes >= sizeof(float);
	emit_line(e, "/* ---- start-up and release ---- */");
	emit_line(e, "static int %s_ready; /* %s_init ran */", N, N);
	emit_blank(e);
	if (threads_of(p) > 1) {
		emit_line(e, "#ifdef RT_THREADS");
		emit_line(e, "static int %s_threads = RT_THREADS; /* %s_set_threads */", N, N);
		emit_blank(e);
		emit_line(e, "/* Zeroes arena chunks [begin, end) of %zu floats. */", chunk);
		emit_line(e, "static void %s_touch_arena(void *ctx, int begin, int end)", N);
		emit_open_block(e);
		emit_line(e, "(void)ctx;");
		if (arena_floats) {
			emit_line(e, "size_t from = (size_t)begin * %zu, to = (size_t)end * %zu;", chunk, chunk);
			emit_line(e, "memset(%s_arena + from, 0, ((to < %zu ? to : %zu) - from) * sizeof(float));",
			          N, arena_floats, arena_floats);
		} else {
			emit_line(e, "(void)begin;");
			emit_line(e, "(void)end;");
		}
		emit_close(e, "");
		emit_line(e, "#endif");
		emit_blank(e);
	}
	emit_line(e, "int %s_init(void)", N);
	emit_open_block(e);
	emit_line(e, "if (%s_ready)", N);
	emit_line(e, "\treturn 0;");
	if (threads_of(p) > 1) {
		emit_line(e, "#ifdef RT_THREADS");
		emit_line(e, "rt_pool_start(%s_threads);", N);
		emit_line(e, "rt_pool_parallel(%s_touch_arena, NULL, %zu);", N, n_chunks ? n_chunks : 1);
		emit_line(e, "#else");
	}
	if (arena_floats)
		emit_line(e, "memset(%s_arena, 0, sizeof %s_arena);", N, N);
	if (threads_of(p) > 1)
		emit_line(e, "#endif");
	if (touch_weights) {
		emit_open_block(e);
		emit_line(e, "volatile float sink = 0.0f;");
		emit_line(e, "size_t i;");
		emit_line(e, "for (i = 0; i < %zu; i += %d)", p->weights_bytes / sizeof(float),
		          p->weights_bytes <= WARM_WEIGHTS_BYTES ? 16 : 1024);
		emit_line(e, "\tsink += %s[i];", p->weights_sym);
		emit_line(e, "(void)sink;");
		emit_close(e, "");
	}
	emit_line(e, "%s_ready = 1;", N);
	emit_line(e, "return 0;");
	emit_close(e, "");
	emit_blank(e);
	emit_line(e, "void %s_free(void)", N);
	emit_open_block(e);
	if (threads_of(p) > 1) {
		emit_line(e, "#ifdef RT_THREADS");
		emit_line(e, "rt_pool_stop();");
		emit_line(e, "#endif");
	}
	emit_line(e, "%s_ready = 0;", N);
	emit_close(e, "");
	emit_blank(e);
	if (threads_of(p) > 1) {
		emit_line(e, "int %s_set_threads(int n)", N);
		emit_open_block(e);
		emit_line(e, "#ifdef RT_THREADS");
		emit_line(e, "%s_threads = n < 1 ? 1 : n > RT_THREADS ? RT_THREADS : n;", N);
		emit_line(e, "if (%s_ready)", N);
		emit_open_block(e);
		emit_line(e, "rt_pool_stop();");
		emit_line(e, "rt_pool_start(%s_threads);", N);
		emit_close(e, "");
		emit_line(e, "return %s_threads;", N);
		emit_line(e, "#else");
		emit_line(e, "(void)n;");
		emit_line(e, "return 1;");
		emit_line(e, "#endif");
		emit_close(e, "");
		emit_blank(e);
	}
}

static void print_run(struct plan *p, struct emitter *e)
{
	const struct graph *g = p->g;
	const char *N = p->name;
	emit_line(e, "/* ---- entry point ---- */");
	if (p->typed_io)
		emit_line(e, "int %s_run(const void *const inputs[], void *const outputs[])", N);
	else
		emit_line(e, "int %s_run(const float *const inputs[], float *const outputs[])", N);
	emit_open_block(e);
	/* Caller misuse is all NAME_run checks (STYLE.md §5). */
	emit_line(e, "if (inputs == NULL || outputs == NULL)");
	emit_line(e, "\treturn -1;");
	if (g->n_inputs + g->n_outputs > 0) {
		char line[128];
		size_t len = 0;
		int first = 1;
		for (int j = 0; j < g->n_inputs + g->n_outputs; j++) {
			int in = j < g->n_inputs;
			char cond[48];
			snprintf(cond, sizeof cond, "%s[%d] == NULL", in ? "inputs" : "outputs",
			         in ? j : j - g->n_inputs);
			if (len && len + strlen(cond) + 4 > 72) {
				emit_line(e, "%s%s ||", first ? "if (" : "    ", line);
				first = 0;
				len = 0;
			}
			len += snprintf(line + len, sizeof line - len, "%s%s", len ? " || " : "", cond);
		}
		emit_line(e, "%s%s)", first ? "if (" : "    ", line);
		emit_line(e, "\treturn -1;");
	}
	if (p->mode == WEIGHTS_FILE) {
		emit_line(e, "if (!%s_weights_loaded)", N);
		emit_line(e, "\treturn -1;");
	}
	emit_line(e, "if (!%s_ready)", N);
	emit_line(e, "\t%s_init();", N);
	emit_blank(e);
	print_declarations(p, e, 0);
	print_declarations(p, e, 1);
	int timed = 0;
	for (int i = 0; p->opt->instrument && i < p->n_layers; i++)
		timed |= is_profiled(&p->layers[i]);
	if (timed)
		emit_line(e, "struct timespec %s; /* when the running layer started */", p->prof_var);
	emit_blank(e);
	size_t row = 0;
	for (int i = 0; i < p->n_layers; i++) {
		const struct layer *l = &p->layers[i];
		const struct node *n = l->node;
		if (l->is_view && !l->copy) {
			print_output_copies(p, e, n); /* a zero-copy Concat's output */
			continue;
		}
		if (p->opt->instrument)
			emit_line(e, "clock_gettime(CLOCK_MONOTONIC, &%s);", p->prof_var);
		if (l->copy) {
			emit_line(e, "memcpy(%s, %s, %" PRId64 " * sizeof(%s)); /* view '%s' (%s) */",
			          tb_of(p, n->outputs[0])->var, tb_of(p, n->inputs[0])->var,
			          ir_numel(n->outputs[0]), emit_ctype(n->outputs[0]->dtype),
			          cmt(p, n->name), ir_op_names[n->op]);
		} else {
			char args[4096];
			size_t len = 0;
			for (int k = 0; k < l->n_args; k++)
				len += snprintf(args + len, sizeof args - len, "%s%s", k ? ", " : "",
				                tb_of(p, l->args[k])->var);
			if (l->ws_bytes)
				snprintf(args + len, sizeof args - len, ", %s_arena + %zu", p->name,
				         l->ws_offset / sizeof(float));
			emit_line(e, "%s(%s);", l->fn, args);
		}
		if (p->opt->instrument)
			emit_line(e, "%s_profile_add(%zu, &%s);", p->name, row++, p->prof_var);
		print_output_copies(p, e, n);
	}
	print_output_copies(p, e, NULL);
	emit_line(e, "return 0;");
	emit_close(e, "");
}

static void print_c_file(struct plan *p, struct emitter *e)
{
	print_front_matter(p, e);
	print_runtime(p, e);
	print_weights(p, e);
	print_arena_and_sizes(p, e);
	if (p->mode == WEIGHTS_FILE)
		print_load_weights(p, e);
	for (int i = 0; i < p->n_layers; i++)
		if (!p->layers[i].is_view)
			print_layer(p, e, &p->layers[i]);
	if (p->opt->instrument)
		print_profile(p, e);
	print_init(p, e);
	print_run(p, e);
}

/* The weights blob: float32 little-endian whatever the host, zero padding. */
static void print_blob(struct plan *p, FILE *f)
{
	unsigned char buf[4096];
	size_t k = 0, at = 0;
	for (int i = 0; i < p->n_consts; i++) {
		const struct tensor *t = p->consts[i];
		size_t first = tb_of(p, t)->offset, n = (size_t)ir_numel(t);
		for (; at < first; at++) {
			buf[k++] = 0;
			if (k == sizeof buf) {
				fwrite(buf, 1, k, f);
				k = 0;
			}
		}
		for (size_t j = 0; j < n; j++) {
			float v = const_at(t, j);
			uint32_t u;
			memcpy(&u, &v, sizeof u);
			for (int byte = 0; byte < 4; byte++)
				buf[k++] = (unsigned char)(u >> (8 * byte));
			if (k == sizeof buf) {
				fwrite(buf, 1, k, f);
				k = 0;
			}
		}
		at += n * sizeof(float);
	}
	fwrite(buf, 1, k, f);
}

/* ---- files ---------------------------------------------------------------- */

struct out_file {
	const char *path;  /* final name */
	char *tmp;         /* temporary beside it; owned */
	FILE *f;
	int renamed;       /* tmp is now path */
};

static int open_temp(struct plan *p, struct out_file *o)
{
	const char *slash = strrchr(o->path, '/');
	size_t dir = slash ? (size_t)(slash - o->path) + 1 : 0;
	size_t n = strlen(o->path) + 16;
	o->tmp = xmalloc(n);
	snprintf(o->tmp, n, "%.*s.%s.XXXXXX", (int)dir, o->path, o->path + dir);
	int fd = mkstemp(o->tmp);
	if (fd < 0) {
		diag_error(p->d, NULL, "cannot create %s: %s", o->path, strerror(errno));
		free(o->tmp);
		o->tmp = NULL;
		return -1;
	}
	/* mkstemp makes the file private; outputs get the usual permissions. */
	mode_t mask = umask(0);
	umask(mask);
	if (fchmod(fd, 0666 & ~mask) != 0 || !(o->f = fdopen(fd, "wb"))) {
		diag_error(p->d, NULL, "cannot write %s: %s", o->path, strerror(errno));
		close(fd);
		return -1;
	}
	return 0;
}

static int close_temp(struct plan *p, struct out_file *o)
{
	if (!o->f)
		return 0;
	int bad = ferror(o->f);
	int err = errno;
	if (fclose(o->f) != 0) {
		bad = 1;
		err = errno;
	}
	o->f = NULL;
	if (bad) {
		diag_error(p->d, NULL, "cannot write %s: %s", o->path, strerror(err ? err : EIO));
		return -1;
	}
	return 0;
}

int emit_runtime(FILE *f, const int *units, int n_units, const struct options *opt,
                 struct diag *d)
{
	struct plan pl = {.opt = opt, .d = d};
	struct plan *p = &pl;
	for (int i = 0; i < n_units; i++) {
		if (units[i] < 0 || units[i] >= RT_UNIT_COUNT_)
			unreachable("emit_runtime: unit number out of range");
		p->unit_used[units[i]] = 1;
	}
	int rc = -1;
	if (plan_runtime(p) == 0) {
		struct emitter e = {.f = f};
		emit_line(&e, "/* Runtime functions are private to this file. */");
		emit_line(&e, "#define RT_FN static");
		emit_line(&e, "/* The GEMM micro-kernel of the target (%s). */",
		          opt->target ? opt->target : "host");
		emit_line(&e, "#define RT_SGEMM_ISA %s", rt_isa_names[opt->isa]);
		emit_blank(&e);
		print_runtime(p, &e);
		rc = p->uses_sgemm == 2 && opt->blas_openblas ? 1 : 0;
	}
	free(p->pieces);
	return rc;
}

int emit_c(const struct graph *g, const struct options *opt, struct diag *d)
{
	struct plan pl = {.g = g, .opt = opt, .d = d};
	struct plan *p = &pl;
	int before = d->errors;
	enum { F_BIN, F_H, F_C, F_COUNT };
	struct out_file files[F_COUNT] = {{0}};
	int rc = -1;

	if (plan_graph(p))
		goto out;
	files[F_BIN].path = p->bin_path;
	files[F_H].path = p->h_path;
	files[F_C].path = p->c_path;
	int with_bin = p->mode == WEIGHTS_FILE || (p->mode == WEIGHTS_EMBED && p->n_consts);
	for (int i = with_bin ? F_BIN : F_H; i < F_COUNT; i++)
		if (open_temp(p, &files[i]))
			goto out;
	if (with_bin)
		print_blob(p, files[F_BIN].f);
	struct emitter eh = {.f = files[F_H].f}, ec = {.f = files[F_C].f};
	print_header(p, &eh);
	print_c_file(p, &ec);
	if (d->errors != before)
		goto out;
	for (int i = 0; i < F_COUNT; i++)
		if (close_temp(p, &files[i]))
			goto out;
	for (int i = 0; i < F_COUNT; i++) {
		if (!files[i].tmp)
			continue;
		if (rename(files[i].tmp, files[i].path) != 0) {
			diag_error(d, NULL, "cannot create %s: %s", files[i].path, strerror(errno));
			/* Take back what was already renamed: all or nothing. */
			for (int k = 0; k < i; k++)
				if (files[k].renamed)
					unlink(files[k].path);
			goto out;
		}
		files[i].renamed = 1;
		free(files[i].tmp);
		files[i].tmp = NULL;
	}
	rc = 0;
out:
	for (int i = 0; i < F_COUNT; i++) {
		if (files[i].f)
			fclose(files[i].f);
		if (files[i].tmp) {
			unlink(files[i].tmp);
			free(files[i].tmp);
		}
	}
	for (int i = 0; i < p->n_strings; i++)
		free(p->strings[i]);
	free(p->strings);
	names_free(&p->names);
	free(p->tb);
	free(p->layers);
	free(p->consts);
	free(p->pieces);
	return rc == 0 && d->errors == before ? 0 : d->errors - before;
}
