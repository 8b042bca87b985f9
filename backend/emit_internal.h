/* emit_internal.h - what the parts of the C emitter share (backend/emit*.c;
 * not installed, not for other folders). emit.c drives: emit_plan.c plans
 * (emit_plan_graph: buffers, layers, weights, arena, names), emit_runtime.c picks
 * and cuts the runtime text a model needs, emit_print.c writes the plan as C.
 * The plan types below are filled by emit_plan.c and emit_runtime.c and only
 * read by the printers. */
#ifndef DNNCC_BACKEND_EMIT_INTERNAL_H
#define DNNCC_BACKEND_EMIT_INTERNAL_H

#include <stdarg.h>
#include <stdio.h>

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

/* ---- the emitter helper: indentation, checked lines, braces (emit_print.c) -- */

struct emitter {
	FILE *f;    /* output; write errors are collected by the stream and checked at close */
	int indent; /* tab depth of the next line */
};

void emit_line(struct emitter *e, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void emit_blank(struct emitter *e);
void emit_raw(struct emitter *e, const char *text, size_t n);

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
	struct rt_conv2d conv_pw; /* OP_CONV with a fused 1x1 (fuse_has_pw): the 1x1's shapes */
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

/* ---- emit_print.c --------------------------------------------------------- */
/* The RT_ACT_* spelling of each enum act (the training emitters use it too). */
extern const char *const emit_act_names[ACT_COUNT_];

void emit_print_header(struct plan *p, struct emitter *e);
void emit_print_c_file(struct plan *p, struct emitter *e);
void emit_print_blob(struct plan *p, FILE *f);

/* ---- emit_plan.c ----------------------------------------------------------- */

void *emit_plan_keep(struct plan *p, void *s);
char *emit_plan_fmt(struct plan *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
const char *emit_cmt(struct plan *p, const char *s);
const char *emit_tensor_desc(struct plan *p, const struct tensor *t);
int emit_ident_char(char c);
void emit_names_free(struct name_table *nt);
struct tbuf *emit_tb_of(struct plan *p, const struct tensor *t);
int emit_has_arg(const struct layer *l, const char *name);
size_t emit_align_up(size_t v, size_t a);
int emit_plan_graph(struct plan *p);

/* ---- emit_runtime.c -------------------------------------------------------- */

/* Spellings of the RT_SGEMM_ISA_* numbers (rt_types.h). */
extern const char *const emit_rt_isa_names[];
int emit_threads_of(const struct plan *p);
int emit_plan_runtime(struct plan *p);
void emit_print_runtime(struct plan *p, struct emitter *e);

#endif
