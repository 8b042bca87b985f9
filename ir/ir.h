/* ir.h - the dnncc intermediate representation: tensors, nodes, the graph that
 * owns them, and the services around it (arena, diagnostics, shapes, verifier,
 * text dump). Everything after the frontends sees only these types.
 *
 * Semantics follow the ONNX operator pages: an IR node of op OP_CONV means
 * exactly what an ONNX Conv node means, attributes included (names, defaults
 * and units), so frontends other than ONNX (Caffe) translate into ONNX
 * semantics. Dimensions are fixed at compile time. */
#ifndef DNNCC_IR_H
#define DNNCC_IR_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define IR_MAX_RANK 8

/* ---- util.c: allocation that reports and exits on failure ------------------ */

void *xmalloc(size_t n);
void *xcalloc(size_t n, size_t size);
void *xrealloc(void *p, size_t n);
char *xstrdup(const char *s);
/* A broken invariant is dnncc's bug: print dnncc's own file and line, abort. */
#define unreachable(msg) ir_die(__FILE__, __LINE__, (msg))
_Noreturn void ir_die(const char *file, int line, const char *msg);

/* ---- arena.c: one arena owns every IR object of a graph -------------------- */

struct arena_block;
struct arena {
	struct arena_block *head; /* newest block first; owned */
	size_t used;              /* bytes handed out, for --report */
};

void arena_init(struct arena *a);
void arena_free(struct arena *a);
void *arena_alloc(struct arena *a, size_t n);   /* zeroed, 16-byte aligned */
char *arena_strdup(struct arena *a, const char *s);
void *arena_memdup(struct arena *a, const void *p, size_t n);

/* ---- diag.c: user-facing problems ------------------------------------------ */

struct node;
/* One run of the compiler reports every problem it can find, each on one line:
 *   FILE: node 'NAME' (OP): MESSAGE
 * Errors make the run fail; warnings do not. */
struct diag {
	const char *file; /* the model file being compiled, for messages; not owned */
	FILE *out;        /* where messages go (stderr) */
	int errors;       /* number of errors reported so far */
	int warnings;     /* number of warnings reported so far */
};

void diag_init(struct diag *d, const char *file, FILE *out);
/* node may be NULL for problems that belong to the whole file. */
void diag_error(struct diag *d, const struct node *node, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
void diag_warning(struct diag *d, const struct node *node, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
void diag_verror(struct diag *d, const struct node *node, const char *fmt, va_list ap);

/* ---- ir.c: tensors, nodes, graph ------------------------------------------- */

enum dtype {
	DTYPE_UNDEF,
	DTYPE_F32,
	DTYPE_F64,
	DTYPE_I64,
	DTYPE_I32,
	DTYPE_I8,
	DTYPE_U8,
	DTYPE_BOOL,
	DTYPE_OTHER, /* anything else: only legal on tensors that are never computed on */
	DTYPE_COUNT_
};

/* Memory layout of an activation. The skeleton keeps every tensor in the
 * model's own layout (LAYOUT_MODEL: dense, row-major over dims[]); the
 * primitive library (issue 3) adds the 4-D layouts below for batch-1 images. */
enum layout {
	LAYOUT_MODEL, /* row-major over dims[], e.g. NCHW for images (CHW per image) */
	LAYOUT_CHW,
	LAYOUT_HCW,
	LAYOUT_HWC,
	LAYOUT_CHW8C,
	LAYOUT_CHW16C,
	LAYOUT_COUNT_
};

/* Operators, in ONNX semantics, and their properties: one row each in
 * ir/ops.def (the columns are described there). */
enum op {
#define OP(e, onnx, arity, canon_arity, kind, flags) e,
#include "ir/ops.def"
#undef OP
	OP_COUNT_
};

/* Ops that share one hook in every stage (ops.def's KIND column). */
enum op_kind {
	OPK_OWN,         /* hooks of its own in each stage */
	OPK_ACT,         /* Relu, LeakyRelu, Clip, Sigmoid, Tanh: foldable as an epilogue */
	OPK_MATH,        /* other element-wise unary math (runtime/unary_math.c) */
	OPK_ARITH,       /* Add, Sub, Mul, Div */
	OPK_POW_PRELU,   /* Pow, PRelu: broadcast binary with ONNX's own rules */
	OPK_VARIADIC,    /* Max, Min, Mean, Sum: any number of inputs */
	OPK_REDUCE,      /* Reduce* (runtime/reduce.c) */
	OPK_NORM,        /* LayerNormalization, InstanceNormalization, MVN (normalize.c) */
	OPK_SOFTMAX,     /* Softmax, LogSoftmax, Hardmax over [outer, len, inner] */
	OPK_POOL,        /* MaxPool, AveragePool */
	OPK_GLOBAL_POOL, /* GlobalAveragePool, GlobalMaxPool */
	OPK_VIEW,        /* Flatten, Reshape, Squeeze, Unsqueeze: views, no code */
	OPK_DEPTH_SPACE, /* DepthToSpace, SpaceToDepth */
	OPK_RESIZE,      /* Resize, Upsample */
	OPK_TYPED,       /* integer and boolean ops (passes/typed_ops.c, runtime/typed_*.c) */
	OPK_TRAIN,       /* dnncc's gradient and update nodes (passes/autodiff.c) */
};

/* ops.def's FLAGS column. */
enum {
	OPF_EPILOGUE = 1 << 0,
	OPF_BINOP = 1 << 1,
	OPF_CONST_OPERANDS = 1 << 2,
	OPF_ANY_DTYPE = 1 << 3,
	OPF_TYPED_KERNEL = 1 << 4,
	OPF_NC_ACT = 1 << 5,
	OPF_NC_ELTWISE = 1 << 6,
	OPF_TBINARY = 1 << 7,
	OPF_BOOL_OUT = 1 << 8,
	OPF_NC_CHAN = 1 << 9,
};

/* One row of ops.def. */
struct op_info {
	const char *onnx;   /* ONNX op_type */
	int arity;          /* inputs the ONNX node must have */
	int canon_arity;    /* inputs it has once canonical */
	enum op_kind kind;
	unsigned flags;     /* OPF_* */
};

/* Fused epilogue applied to every output element (canonicalize fuses a
 * following Relu/LeakyRelu/Clip/Sigmoid/Tanh into Conv and Gemm). */
enum act {
	ACT_NONE,
	ACT_RELU,
	ACT_LEAKY_RELU, /* alpha = slope */
	ACT_CLIP,       /* alpha = min, beta = max */
	ACT_SIGMOID,
	ACT_TANH,
	ACT_COUNT_
};

enum attr_kind { ATTR_FLOAT, ATTR_INT, ATTR_STRING, ATTR_FLOATS, ATTR_INTS, ATTR_TENSOR };

struct tensor;

struct attr {
	const char *name;      /* ONNX attribute name, e.g. "kernel_shape" */
	enum attr_kind kind;
	double f;              /* ATTR_FLOAT */
	int64_t i;             /* ATTR_INT */
	const char *s;         /* ATTR_STRING, NUL-terminated */
	int n;                 /* element count of floats/ints */
	double *floats;        /* ATTR_FLOATS [n] */
	int64_t *ints;         /* ATTR_INTS [n] */
	struct tensor *t;      /* ATTR_TENSOR (Constant's value) */
	int used;              /* set by ir_attr_* lookups; unused ones are warned about */
};

struct tensor {
	const char *name;       /* unique within the graph (interned) */
	enum dtype dtype;
	int rank;               /* -1 while the shape is unknown */
	int64_t dims[IR_MAX_RANK];
	void *data;             /* constant contents (row-major, dtype), or NULL for activations;
	                           arena memory, or mapped from the model file (graph->mapped) */
	struct node *producer;  /* node writing it; NULL for inputs and constants */
	int is_input;           /* graph input (not a weight) */
	int is_output;          /* graph output */
	enum layout layout;     /* memory layout chosen for it (LAYOUT_MODEL in the skeleton) */
	/* memory plan (passes/plan_memory.c) */
	struct tensor *alias;   /* shares the buffer of this tensor (views: Reshape, Flatten, ...;
	                           the inputs of a zero-copy Concat: slices of its output) */
	size_t alias_offset;    /* bytes into alias's buffer where this tensor starts (a slice) */
	size_t offset;          /* byte offset in the activation arena (if not alias) */
	int index;              /* position in graph->tensors */
};

struct node {
	const char *name;        /* unique within the graph; synthesised when the model has none */
	enum op op;
	int n_inputs;
	struct tensor **inputs;  /* [n_inputs]; NULL entries are omitted optional inputs */
	int n_outputs;
	struct tensor **outputs; /* [n_outputs]; NULL entries are unused optional outputs */
	int n_attrs;
	struct attr *attrs;      /* [n_attrs] */
	enum act act;            /* fused epilogue (OP_CONV, OP_GEMM); on a Conv with a residual
	                            operand (input 3) it applies after the add */
	float act_alpha, act_beta;
	int index;               /* position in graph->nodes */
	int dead;                /* removed by a pass; ir_compact() drops it */
	const char *primitive;   /* OP_CONV: primitive row chosen by select (NULL: reference);
	                            OP_LAYOUT: transform row name */
	double cost_us;          /* estimated cost of the choice, for --report and comments */
	double cold_us;          /* what the choice costs with its workspace evicted, when cost_us
	                            is the warm price after a layer that left one (select); else 0 */
	size_t ws_bytes;         /* workspace the primitive needs while it runs */
	size_t ws_offset;        /* its byte offset in the activation arena (plan_memory) */
	struct node *fused_into; /* OP_CONV: the depthwise Conv that runs this 1x1 inside its own
	                            layer (fuse_pw_dw), or NULL */
	int res_in_place;        /* OP_CONV: writes its output over its fused residual's buffer
	                            (plan_memory) */
};

struct graph {
	struct arena arena;       /* owns every node, tensor, attribute and name */
	const char *source;       /* model file path (for messages and the generated header) */
	const char *producer;     /* producer_name + version from the model, or "" */
	int64_t opset;            /* default-domain opset version (ONNX), 0 if unknown */
	int n_nodes, cap_nodes;
	struct node **nodes;      /* [n_nodes], topological order; array owned (xrealloc) */
	int n_tensors, cap_tensors;
	struct tensor **tensors;  /* [n_tensors]; array owned */
	struct tensor **by_name;  /* [name_cap] open-addressing hash of tensors by name; owned */
	size_t name_cap;          /* power of two, > 2 * n_tensors */
	int n_inputs;
	struct tensor **inputs;   /* [n_inputs] graph inputs (not weights), model order; arena */
	int n_outputs;
	struct tensor **outputs;  /* [n_outputs] graph outputs, model order; arena */
	void *mapped;             /* model file contents weights may point into; owned (free) */
	size_t arena_size;        /* activation arena bytes (plan_memory) */
};

extern const char *const ir_op_names[OP_COUNT_];
extern const struct op_info ir_ops[OP_COUNT_]; /* ops.def, indexed by enum op */
extern const char *const ir_dtype_names[DTYPE_COUNT_];
extern const char *const ir_layout_names[LAYOUT_COUNT_];
extern const char *const ir_act_names[ACT_COUNT_];

/* ops.def's columns of an op. */
static inline enum op_kind ir_op_kind(enum op op) { return ir_ops[op].kind; }
static inline int ir_op_has(enum op op, unsigned flag) { return (ir_ops[op].flags & flag) != 0; }

struct graph *ir_graph_new(const char *source);
void ir_graph_free(struct graph *g);

/* Looks up by name; NULL if absent. */
struct tensor *ir_find_tensor(struct graph *g, const char *name);
/* Creates a tensor with unknown shape; the name must be new (made unique if
 * taken). */
struct tensor *ir_new_tensor(struct graph *g, const char *name, enum dtype dtype);
/* A constant: copies nothing, data must be arena memory or graph->mapped. */
struct tensor *ir_new_constant(struct graph *g, const char *name, enum dtype dtype, int rank,
                               const int64_t *dims, void *data);
/* Appends a node; inputs/outputs arrays are copied into the arena and each
 * output's producer is set. */
struct node *ir_add_node(struct graph *g, enum op op, const char *name, int n_inputs,
                         struct tensor *const *inputs, int n_outputs,
                         struct tensor *const *outputs);
/* Adds an attribute to a node (copied into the arena). */
struct attr *ir_add_attr(struct graph *g, struct node *n, const char *name, enum attr_kind kind);
void ir_set_shape(struct tensor *t, int rank, const int64_t *dims);
/* Removes dead nodes and tensors no node or graph output refers to; renumbers. */
void ir_compact(struct graph *g);
/* Replaces every use of `from` (node inputs, graph outputs) by `to`. */
void ir_replace_uses(struct graph *g, struct tensor *from, struct tensor *to);
/* Number of live node inputs that read t. */
int ir_use_count(const struct graph *g, const struct tensor *t);

int64_t ir_numel(const struct tensor *t);          /* product of dims; 1 for rank 0 */
/* The matrix dims of MatMul (numpy.matmul) A [..., M, K] x B [..., Kb, N],
 * a 1-D A read as [1, K] and a 1-D B as [Kb, 1]; ranks must be >= 1. The
 * caller checks K == Kb (kb may be NULL). */
void ir_matmul_dims(const struct tensor *a, const struct tensor *b, int64_t *m, int64_t *n,
                    int64_t *k, int64_t *kb);
int64_t ir_saturate_i64(double v);                 /* NaN -> 0, else clamped to int64 */
int64_t ir_elem_i(enum dtype dt, const void *p, int64_t i); /* element i as an integer */
double ir_elem_f(enum dtype dt, const void *p, int64_t i);  /* element i as a double */
size_t ir_dtype_size(enum dtype dt);                /* bytes per element; 0 for OTHER */
size_t ir_nbytes(const struct tensor *t);          /* blocked layouts pad channels */

/* Attribute lookups; they mark the attribute used. */
struct attr *ir_attr(struct node *n, const char *name);
int64_t ir_attr_int(struct node *n, const char *name, int64_t dflt);
double ir_attr_float(struct node *n, const char *name, double dflt);
/* The one map from activation ops (kind OPK_ACT) to enum act: the epilogue n
 * computes, its parameters in *alpha and *beta (ACT_NONE, 0 and 0 for other
 * ops). canonicalize fuses it into a Conv or Gemm, the emitter runs it alone,
 * autodiff differentiates it. */
enum act ir_act_of(struct node *n, float *alpha, float *beta);
const char *ir_attr_string(struct node *n, const char *name, const char *dflt);
/* Returns the count and stores the array (arena) or NULL when absent. */
int ir_attr_ints(struct node *n, const char *name, const int64_t **out);

/* ---- verify.c: structural invariants --------------------------------------- */

/* Checks topological order, producer links, unique names and known shapes on
 * every tensor once shapes are inferred (shapes_known). Per-op arity and
 * attributes are checked by canonicalize, which reports them to the user.
 * A failure is dnncc's bug: it names the pass that broke the graph. */
int ir_verify(const struct graph *g, const char *after_pass, int shapes_known, struct diag *d);

/* ---- dump.c: --dump-ir ----------------------------------------------------- */

void ir_dump(const struct graph *g, FILE *out, const char *title);

#endif
