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

/* Operators, in ONNX semantics. X(enum, ONNX op_type) */
#define IR_OPS(X)                                      \
	X(OP_CONV, "Conv")                             \
	X(OP_GEMM, "Gemm")                             \
	X(OP_MATMUL, "MatMul")                         \
	X(OP_ADD, "Add")                               \
	X(OP_SUB, "Sub")                               \
	X(OP_MUL, "Mul")                               \
	X(OP_DIV, "Div")                               \
	X(OP_RELU, "Relu")                             \
	X(OP_LEAKY_RELU, "LeakyRelu")                  \
	X(OP_CLIP, "Clip")                             \
	X(OP_SIGMOID, "Sigmoid")                       \
	X(OP_TANH, "Tanh")                             \
	X(OP_SOFTMAX, "Softmax")                       \
	X(OP_LOG_SOFTMAX, "LogSoftmax")                \
	X(OP_BATCHNORM, "BatchNormalization")          \
	X(OP_MAXPOOL, "MaxPool")                       \
	X(OP_AVGPOOL, "AveragePool")                   \
	X(OP_GLOBAL_AVGPOOL, "GlobalAveragePool")      \
	X(OP_GLOBAL_MAXPOOL, "GlobalMaxPool")          \
	X(OP_LRN, "LRN")                               \
	X(OP_CONCAT, "Concat")                         \
	X(OP_FLATTEN, "Flatten")                       \
	X(OP_RESHAPE, "Reshape")                       \
	X(OP_TRANSPOSE, "Transpose")                   \
	X(OP_SQUEEZE, "Squeeze")                       \
	X(OP_UNSQUEEZE, "Unsqueeze")                   \
	X(OP_PAD, "Pad")                               \
	X(OP_DROPOUT, "Dropout")                       \
	X(OP_IDENTITY, "Identity")                     \
	X(OP_CONSTANT, "Constant")                     \
	/* shape arithmetic: folded at compile time */ \
	X(OP_SHAPE, "Shape")                           \
	X(OP_GATHER, "Gather")                         \
	X(OP_CAST, "Cast")                             \
	X(OP_SLICE, "Slice")                           \
	X(OP_CONSTANT_OF_SHAPE, "ConstantOfShape")      \
	/* elementwise math (runtime/unary_math.c, binary.c) */ \
	X(OP_EXP, "Exp")                                      \
	X(OP_LOG, "Log")                                      \
	X(OP_SQRT, "Sqrt")                                    \
	X(OP_ABS, "Abs")                                      \
	X(OP_NEG, "Neg")                                      \
	X(OP_RECIPROCAL, "Reciprocal")                        \
	X(OP_FLOOR, "Floor")                                  \
	X(OP_CEIL, "Ceil")                                    \
	X(OP_ROUND, "Round")                                  \
	X(OP_SIGN, "Sign")                                    \
	X(OP_SIN, "Sin")                                      \
	X(OP_COS, "Cos")                                      \
	X(OP_TAN, "Tan")                                      \
	X(OP_ASIN, "Asin")                                    \
	X(OP_ACOS, "Acos")                                    \
	X(OP_ATAN, "Atan")                                    \
	X(OP_SINH, "Sinh")                                    \
	X(OP_COSH, "Cosh")                                    \
	X(OP_ASINH, "Asinh")                                  \
	X(OP_ACOSH, "Acosh")                                  \
	X(OP_ATANH, "Atanh")                                  \
	X(OP_ERF, "Erf")                                      \
	X(OP_ELU, "Elu")                                      \
	X(OP_SELU, "Selu")                                    \
	X(OP_CELU, "Celu")                                    \
	X(OP_HARD_SIGMOID, "HardSigmoid")                     \
	X(OP_HARD_SWISH, "HardSwish")                         \
	X(OP_SOFTPLUS, "Softplus")                            \
	X(OP_SOFTSIGN, "Softsign")                            \
	X(OP_MISH, "Mish")                                    \
	X(OP_THRESHOLDED_RELU, "ThresholdedRelu")             \
	X(OP_GELU, "Gelu")                                    \
	X(OP_PRELU, "PRelu")                                  \
	X(OP_POW, "Pow")                                      \
	X(OP_MAX, "Max")                                      \
	X(OP_MIN, "Min")                                      \
	X(OP_MEAN, "Mean")                                    \
	X(OP_SUM, "Sum")                                      \
	/* reductions (runtime/reduce.c) */ \
	X(OP_REDUCE_MEAN, "ReduceMean")                       \
	X(OP_REDUCE_SUM, "ReduceSum")                         \
	X(OP_REDUCE_MAX, "ReduceMax")                         \
	X(OP_REDUCE_MIN, "ReduceMin")                         \
	X(OP_REDUCE_PROD, "ReduceProd")                       \
	X(OP_REDUCE_L1, "ReduceL1")                           \
	X(OP_REDUCE_L2, "ReduceL2")                           \
	X(OP_REDUCE_LOG_SUM, "ReduceLogSum")                  \
	X(OP_REDUCE_LOG_SUM_EXP, "ReduceLogSumExp")           \
	X(OP_REDUCE_SUM_SQUARE, "ReduceSumSquare")            \
	/* normalisations (runtime/normalize.c) */ \
	X(OP_LAYER_NORM, "LayerNormalization")                \
	X(OP_INSTANCE_NORM, "InstanceNormalization")          \
	X(OP_MVN, "MeanVarianceNormalization")                \
	X(OP_HARDMAX, "Hardmax")                              \
	/* data movement: strided copies (runtime/transpose.c) */ \
	X(OP_EXPAND, "Expand")                                \
	X(OP_TILE, "Tile")                                    \
	X(OP_SPLIT, "Split")                                  \
	X(OP_DEPTH_TO_SPACE, "DepthToSpace")                  \
	X(OP_SPACE_TO_DEPTH, "SpaceToDepth")                  \
	X(OP_RESIZE, "Resize")                                \
	X(OP_UPSAMPLE, "Upsample")                            \
	X(OP_CONV_TRANSPOSE, "ConvTranspose")                 \
	/* integer and boolean tensors (passes/typed_ops.c, runtime/typed_*.c) */ \
	X(OP_EQUAL, "Equal")                                  \
	X(OP_LESS, "Less")                                    \
	X(OP_GREATER, "Greater")                              \
	X(OP_LESS_OR_EQUAL, "LessOrEqual")                    \
	X(OP_GREATER_OR_EQUAL, "GreaterOrEqual")              \
	X(OP_NOT, "Not")                                      \
	X(OP_AND, "And")                                      \
	X(OP_OR, "Or")                                        \
	X(OP_XOR, "Xor")                                      \
	X(OP_BITSHIFT, "BitShift")                            \
	X(OP_MOD, "Mod")                                      \
	X(OP_WHERE, "Where")                                  \
	X(OP_ARGMAX, "ArgMax")                                \
	X(OP_ARGMIN, "ArgMin")                                \
	X(OP_TOPK, "TopK")                                    \
	X(OP_CUMSUM, "CumSum")                                \
	X(OP_TRILU, "Trilu")                                  \
	X(OP_GATHER_ELEMENTS, "GatherElements")               \
	X(OP_NLL_LOSS, "NegativeLogLikelihoodLoss")           \
	X(OP_SCE_LOSS, "SoftmaxCrossEntropyLoss")             \
	X(OP_SIZE, "Size")                                    \
	X(OP_RANGE, "Range")                                  \
	X(OP_ISNAN, "IsNaN")                                  \
	X(OP_ISINF, "IsInf")                                  \
	X(OP_CAST_LIKE, "CastLike")                           \
	/* dnncc's own: converts one tensor between layouts (select.c) */ \
	X(OP_LAYOUT, "dnncc.LayoutTransform")                            \
	/* dnncc's own gradient and update nodes, appended by autodiff.c */ \
	X(OP_ACT_GRAD, "dnncc.ActivationGrad")                            \
	X(OP_SOFTMAX_GRAD, "dnncc.SoftmaxGrad")                           \
	X(OP_BIAS_GRAD, "dnncc.BiasGrad")                                 \
	X(OP_SOFTMAX_CE, "dnncc.SoftmaxCrossEntropy")                     \
	X(OP_MSE, "dnncc.MeanSquaredError")                               \
	X(OP_OPTIMIZER_STEP, "dnncc.OptimizerStep")

enum op {
#define X(e, s) e,
	IR_OPS(X)
#undef X
	OP_COUNT_
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
	size_t ws_bytes;         /* workspace the primitive needs while it runs */
	size_t ws_offset;        /* its byte offset in the activation arena (plan_memory) */
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
extern const char *const ir_dtype_names[DTYPE_COUNT_];
extern const char *const ir_layout_names[LAYOUT_COUNT_];
extern const char *const ir_act_names[ACT_COUNT_];

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
size_t ir_dtype_size(enum dtype dt);                /* bytes per element; 0 for OTHER */
size_t ir_nbytes(const struct tensor *t);          /* blocked layouts pad channels */

/* Attribute lookups; they mark the attribute used. */
struct attr *ir_attr(struct node *n, const char *name);
int64_t ir_attr_int(struct node *n, const char *name, int64_t dflt);
double ir_attr_float(struct node *n, const char *name, double dflt);
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
