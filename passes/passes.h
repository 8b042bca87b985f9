/* passes.h - the compiler's options and its passes, in pipeline order.
 * Every pass has the same shape: it takes the graph, the options and the
 * diagnostics sink, returns 0, or the number of problems it reported. */
#ifndef DNNCC_PASSES_H
#define DNNCC_PASSES_H

#include "ir/ir.h"

struct cost_table;
struct train_options;

enum weights_mode {
	WEIGHTS_AUTO,   /* C array for small weight sets, .incbin for large ones */
	WEIGHTS_EMBED,  /* NAME.weights.bin, embedded with the assembler's .incbin */
	WEIGHTS_CARRAY, /* a const C array (exact hex-float literals) */
	WEIGHTS_FILE,   /* NAME.weights.bin read at start-up by NAME_load_weights() */
};

struct shape_override {
	const char *input;       /* graph input name */
	int rank;
	int64_t dims[IR_MAX_RANK];
};

/* --bind NAME=VALUES|FILE.pb: a graph input frozen into a constant. */
struct bind_value {
	const char *input; /* graph input name */
	const char *value; /* "1,2,3" (numbers of the input's declared type) or a TensorProto file */
};

struct options {
	const char *model;        /* input model path */
	const char *output;       /* -o path of NAME.c */
	const char *name;         /* C symbol prefix (already a C identifier) */
	const char *command_line; /* for the generated header comment */
	enum weights_mode weights;
	int report;               /* --report */
	int dump_ir;              /* --dump-ir */
	int n_shapes;
	struct shape_override *shapes; /* --shape NAME=d0,d1,... */
	int n_binds;
	const struct bind_value *binds; /* --bind: inputs frozen into constants (ONNX) */
	const char *caffe_weights;     /* --weights X.caffemodel (Caffe) */
	int random_weights;            /* --random-weights SEED given (Caffe) */
	unsigned long random_seed;
	int batch;                     /* --batch N (Caffe), 0 = as declared */
	const char *strategy;          /* --strategy: pbqp (default), greedy, canonical, sum2d,
	                                  reference, family:NAME */
	int n_force;
	struct force_primitive {
		const char *node;      /* conv node name */
		const char *primitive; /* row name in runtime/primitives.def */
	} *force;                      /* --force-primitive NODE=NAME */
	int isa;                       /* GEMM micro-kernel of the target (RT_SGEMM_ISA_*) */
	const char *target;            /* --target, for the generated header */
	int blas_openblas;             /* --blas openblas: GEMMs call cblas_sgemm */
	int instrument;                /* --instrument: NAME_run times each layer (POSIX clock) */
	int threads;                   /* --threads N: the generated code's thread pool size (>= 1;
	                                  0 counts as 1) */
	const struct cost_table *costs; /* --costs / --profile: measured costs (costs.c);
	                                   NULL: the built-in model (cost_model.c); not owned */
	int verify_ilp;                /* --verify-ilp: cross-check the PBQP optimum with GLPK */
	const char *dump_pbqp;         /* --dump-pbqp FILE: write the PBQP instance (pbqp_write) */
	const struct train_options *train; /* --train (passes/train.h); NULL: inference */
	uint64_t max_weights;          /* --max-weights: bytes of constant data, each tensor
	                                  and in all; 0: PASS_MAX_WEIGHTS_DEFAULT */
	uint64_t max_arena;            /* --max-arena: bytes of one activation tensor and of
	                                  the arena (activations and workspaces); 0: default */
	int no_blocked;                /* selection leaves out the blocked layouts (CHW8c,
	                                  CHW16c): --target cortex-m, or to fit --max-arena */
};

/* Size limits, checked before anything of that size is allocated: a model
 * (or a typo such as `pad: 100000`) that asks for more is refused with a
 * message naming the layer, the size and the limit. */
#define PASS_MAX_WEIGHTS_DEFAULT ((uint64_t)1 << 30) /* 1 GiB */
#define PASS_MAX_ARENA_DEFAULT ((uint64_t)1 << 30)   /* 1 GiB */

static inline uint64_t pass_max_weights(const struct options *opt)
{
	return opt && opt->max_weights ? opt->max_weights : PASS_MAX_WEIGHTS_DEFAULT;
}

static inline uint64_t pass_max_arena(const struct options *opt)
{
	return opt && opt->max_arena ? opt->max_arena : PASS_MAX_ARENA_DEFAULT;
}

/* ---- infer_shapes.c ---------------------------------------------------------
 * Needs: a graph from a frontend (which has applied --shape). Infers every
 * tensor's dtype and shape in topological order, evaluates nodes whose inputs
 * are all constant (Constant, Shape/Gather/Unsqueeze/Concat/Reshape/Cast/Slice
 * chains and small arithmetic) into constants, and marks those nodes dead.
 * Guarantees: every live tensor has a known shape; errors name the node. */
int pass_infer_shapes(struct graph *g, const struct options *opt, struct diag *d);
/* Element strides of a (rank, dims) operand read at every index of a
 * broadcast output of rank r (numpy rules): 0 along broadcast dims. */
void infer_broadcast_strides(int rank, const int64_t *dims, int r, int64_t *st);

/* ---- typed_ops.c -------------------------------------------------------------
 * Operators on integer, boolean and float64 tensors (issue 11). infer_shapes
 * calls typed_infer() for the ops typed_is_new_op() names; canonicalize calls
 * typed_canon() for every node typed_runs_typed() says the typed kernels
 * compute (those ops, Cast and Gather at run time, and integer
 * Add/Sub/Mul/Div/Max/Min/Abs/Neg/Sign). Both return 0 or report. */
int typed_is_new_op(enum op op);
int typed_runs_typed(const struct node *n);
int typed_dtype_ok(enum dtype dt);
int typed_infer(struct graph *g, struct node *n, struct diag *d);
int typed_canon(struct graph *g, struct node *n, struct diag *d);

/* ---- canonicalize.c ---------------------------------------------------------
 * Needs: shapes. Drops Dropout and Identity, folds BatchNormalization into a
 * preceding Conv (or lowers it to a per-channel affine) when its statistics
 * are constants, turns Clip's constant min/max inputs into attributes, fuses Relu/LeakyRelu/Clip/Sigmoid/Tanh into the
 * epilogue of a single-use Conv or Gemm, rejects what the backend cannot run
 * (unsupported dtypes, ranks, non-constant operands where constants are
 * required) with a clear message. */
int pass_canonicalize(struct graph *g, const struct options *opt, struct diag *d);

/* Canonical form: what canonicalize guarantees and the backend relies on.
 * Every live tensor has a known shape; every tensor a live node computes on
 * (activations and the constants that feed them) is DTYPE_F32. Attributes are
 * explicit, with ONNX names, defaults filled in and negative axes normalised:
 *   OP_CONV      inputs X [N,C,W] or [N,C,H,W], W, optional B (any of them may
 *                be a non-constant graph input), optional residual R shaped
 *                like the output (fuse.c; then B may be NULL and act applies
 *                to conv + B + R); ints kernel_shape, strides,
 *                dilations (one per spatial dim), pads (2 per spatial dim:
 *                begins then ends, auto_pad resolved), int group; node->act.
 *   OP_GEMM      A, B, optional C; float alpha, beta; int transA, transB; act.
 *   OP_MATMUL    A, B (ONNX numpy-style broadcasting and 1-D promotion).
 *   OP_ADD/SUB/MUL/DIV  A, B with multidirectional broadcasting.
 *   OP_RELU, OP_SIGMOID, OP_TANH; OP_LEAKY_RELU float alpha;
 *   OP_CLIP      input x; float min, max (constant bounds folded in); a
 *                bound computed at run time (a non-constant float32 scalar)
 *                stays input 1 (min) or 2 (max), the other slot NULL, and
 *                such a Clip is never fused into an epilogue.
 *   OP_SOFTMAX, OP_LOG_SOFTMAX  int axis (>= 0); int coerce_2d (1 when the
 *                model's opset < 13: reduce over all dims from axis on).
 *   OP_MAXPOOL, OP_AVGPOOL  input [N,C,W] or [N,C,H,W]; ints kernel_shape,
 *                strides, dilations, pads (begins, ends); int
 *                count_include_pad; ceil_mode is resolved into the output
 *                shape (a last window starting in the end padding is
 *                dropped, as PyTorch and Caffe do). One output (no Indices).
 *   OP_GLOBAL_AVGPOOL, OP_GLOBAL_MAXPOOL  input rank >= 3.
 *   OP_LRN       float alpha, beta, bias; int size.
 *   OP_BATCHNORM X [N,C,...], scale, B, input_mean, input_var ([C] each, not
 *                all constants: constant statistics are folded into a Conv
 *                or lowered to Mul + Add); float epsilon; inference only.
 *   OP_CONCAT    int axis (>= 0).
 *   OP_TRANSPOSE ints perm.
 *   OP_PAD       one input; ints pads (2 * rank, begins then ends, may be
 *                negative); float value; constant mode only.
 *   OP_FLATTEN, OP_RESHAPE, OP_SQUEEZE, OP_UNSQUEEZE  views: the output is the
 *                input's data with another shape; extra inputs are ignored.
 * No other op is live: Dropout and Identity are gone, and
 * Constant/Shape/Gather/Cast/Slice/ConstantOfShape were folded (a leftover is
 * reported as unsupported on non-constant input). Graph outputs may be
 * constants, graph inputs, or views whose root is an arena tensor, and
 * g->outputs may list one tensor twice (outputs a and Identity(a)). */

/* ---- fuse.c ------------------------------------------------------------------
 * Fusions that remove layers (see fuse.c's opening comment). fuse_residual,
 * called by canonicalize on every node before activations are fused, folds
 * an Add into the Conv producing one of its operands: the Conv gets the other
 * operand as input FUSE_RESIDUAL_INPUT (its bias slot may then be NULL) and
 * computes act(conv + bias + residual). Returns 1 when it folded. */
#define FUSE_RESIDUAL_INPUT 3
int fuse_residual(struct graph *g, struct node *add);
/* Whether Conv n has a residual operand. */
int fuse_has_residual(const struct node *n);
/* Whether Concat n can be zero-copy (its inputs slices of its output), after
 * selection fixed the layouts; off[n->n_inputs] (output) gets each input's
 * byte offset in the output. */
int fuse_concat_slices(const struct graph *g, const struct node *n, size_t *off);
/* Whether Concat n will be zero-copy if selection gives it `layout` (its
 * inputs converted to it): then it costs nothing (nc_alternatives). */
int fuse_concat_free(const struct node *n, enum layout layout);
/* A 1x1 Conv (HWC, CHW16c or CHW8c) fused into the depthwise that reads its output, after
 * selection (fuse_pw_dw in fuse.c): the depthwise gets the 1x1's input,
 * packed weights and bias as inputs FUSE_PW_INPUT .. FUSE_PW_INPUT + 2 (so
 * plan_memory keeps the 1x1's input alive until it runs) and the fused
 * kernel's workspace; the 1x1 keeps its node, runs no code and has
 * fused_into set. Returns the number of pairs fused. */
#define FUSE_PW_INPUT 4
int fuse_pw_dw(struct graph *g, const struct options *opt);
/* Whether Conv n runs a fused 1x1 (its inputs FUSE_PW_INPUT ..). */
int fuse_has_pw(const struct node *n);

/* ---- select.c ----------------------------------------------------------------
 * Needs: canonical form. Chooses a primitive (runtime/primitives.def) for every
 * 1-D/2-D convolution by opt->strategy (pbqp: all layers together; greedy and
 * the baselines: layer by layer) and --force-primitive, using the costs of
 * costs.c, and gives each tensor a layout: graph inputs, outputs
 * and every non-convolution tensor stay in the model's layout (CHW per
 * image); a convolution reading or writing another layout gets OP_LAYOUT
 * nodes (chains of the direct transforms of runtime/transforms.def, the
 * cheapest by all-pairs shortest paths) inserted before it or before the
 * first reader that needs the model layout, shared by all readers that want
 * the same layout. Sets node->primitive, node->ws_bytes. */
int pass_select(struct graph *g, const struct options *opt, struct diag *d);

/* ---- dtgraph.c ----------------------------------------------------------------
 * The DT graph (DESIGN.md §3): layouts are vertices, the direct transforms of
 * runtime/transforms.def are edges weighted by their cost on one tensor shape;
 * Floyd–Warshall gives the cheapest chain between every pair of layouts. */
struct rt_prim;
struct rt_transform;
#define DT_NL 5 /* layouts: enum rt_layout, RT_L_COUNT_ (checked in dtgraph.c) */
struct dt_paths {
	double cost[DT_NL][DT_NL]; /* µs of the cheapest chain from layout a to b: 0 when
	                              a == b, INFINITY when no chain exists */
	int next[DT_NL][DT_NL];    /* index (in the transforms given) of that chain's first
	                              step; -1 when a == b or there is no chain */
	int hop[DT_NL][DT_NL];     /* the layout that first step writes (-1 likewise) */
};
/* Paths over the n_tr transforms tr[] for N images of C x H x W. */
void dt_paths_compute(struct dt_paths *dp, const struct options *opt, const struct rt_transform *tr,
                      int n_tr, int N, int C, int H, int W);
/* Paths over every transform of the registry for tensor t ([N,C,W] or [N,C,H,W]). */
void dt_paths_tensor(struct dt_paths *dp, const struct options *opt, const struct tensor *t);
/* The chain from a to b as transform indices into steps[DT_NL] (output);
 * returns its length (0 when a == b), -1 when there is none. */
int dt_chain(const struct dt_paths *dp, int a, int b, int *steps);
/* Cheapest chain to layout b from any layout in the bit set have (bit a:
 * layout a present); *from (output) is where it starts, -1 when none. */
double dt_cheapest(const struct dt_paths *dp, unsigned have, int b, int *from);

/* ---- candidates.c --------------------------------------------------------------
 * A node's alternatives for selection: a convolution's applicable rows of
 * runtime/primitives.def, narrowed by the strategy and --force-primitive;
 * every other node one alternative, the model layout in and out (no other
 * kernel reads or writes anything else). */
struct sel_alt {
	const struct rt_prim *prim; /* OP_CONV: the row; NULL: the node's own kernel (or the
	                               reference convolution) */
	const struct nc_kernel *nck; /* a non-convolution's kernel row (nonconv.c), or NULL */
	int in, out;                /* enum rt_layout read from input 0, written to output 0 */
	int n_in;                   /* inputs 0..n_in-1 are read in layout in (0 counts as 1);
	                               the rest in CHW */
	double cost_us;             /* the row's cost on this layer; 0 for other nodes */
	double ws_floats;           /* the row's workspace on this layer (floats) */
	double warm_gain_us;        /* cost_us less its cost when the node before it used a
	                               workspace at least as large (partly: pro rata) */
};
/* Whether s names a strategy (reference included). */
int cand_strategy_known(const char *s);
/* Fills *alts (xmalloc'd, caller frees) with n's alternatives under strategy
 * greedy, pbqp (every applicable row), canonical (CHW in and out), sum2d or
 * family:F (F's rows; sum2d where F has none, then *fell_back is set when
 * fell_back is not NULL). Returns the count (>= 1), or -1 after reporting a
 * bad --force-primitive for n through d. */
int cand_alternatives(struct node *n, const struct options *opt, const char *strategy,
                      struct sel_alt **alts, int *fell_back, struct diag *d);

/* ---- nonconv.c ------------------------------------------------------------------
 * Non-convolution layers with a choice of layout: kinds of layer, the kernel
 * rows of runtime/nonconv.def, which apply to a node, and the model cost. */
enum nc_kind { NC_POOL, NC_GPOOL, NC_ACT, NC_ELTWISE, NC_CONCAT, NC_CHAN };
#define NC_CONCAT_MAX_INPUTS 64 /* the emitter's limit */
struct rt_pool2d;
struct nc_kernel {
	const char *name;    /* e.g. "nc_pool_chw8c" */
	enum nc_kind kind;
	int layout;          /* enum rt_layout read (and written, but NC_GPOOL writes CHW) */
	unsigned simd;       /* RT_SIMD_* bits: ISAs its loop is vectorised for */
	float eff_scalar;    /* element operations per ns, scalar code */
	float eff_simd;      /* element operations per ns per vector lane */
};
extern const struct nc_kernel nc_kernels[];
extern const int nc_n_kernels;
int nc_kind_of(const struct node *n);       /* enum nc_kind, -1: CHW only */
int nc_n_in(const struct node *n);          /* inputs read in the chosen layout */
int nc_block(int layout);                   /* 8, 16 for blocked layouts, else 0 */
/* NC_CHAN: input 1's strides over N and C (0 where broadcast); -1: not per channel */
int nc_chan_strides(const struct node *n, int *sn, int *sc);
int nc_applies(const struct nc_kernel *k, const struct node *n);
int nc_pool_params(struct node *n, struct rt_pool2d *p); /* 0, or -1 if not canonical */
void nc_key(struct node *n, char *buf, size_t size);    /* the cost table's key */
double nc_model_us(const struct nc_kernel *k, struct node *n, int isa);
/* n's alternatives (xmalloc'd) under strategy; 0 (none allocated) when n has
 * no choice of layout. */
int nc_alternatives(struct node *n, const struct options *opt, const char *strategy,
                    struct sel_alt **alts);
double costs_nonconv_us(const struct options *opt, const struct nc_kernel *k, struct node *n);

/* ---- select.c: the selection problem, also used by the tests ---------------
 * The live nodes of a canonical graph with their alternatives under one
 * strategy, a choice per node, and what the choice costs once legalised. */
struct pbqp;
struct selection {
	struct graph *g;
	const struct options *opt;
	int n;                   /* live nodes, in graph order */
	struct node **nodes;     /* [n] */
	int *n_alt;              /* [n] alternatives per node */
	struct sel_alt **alt;    /* [n][n_alt[i]], owned; tests may change cost_us */
	int n_tensors;           /* tensors of the graph when the selection was made */
	char *conv_io;           /* [n_tensors] 1: a convolution's X or Y of rank 3-4, the
	                            only tensors that may take another layout */
	struct dt_paths *dp;     /* [n_tensors] chains for each such tensor's shape */
	int *choice;             /* [n] index into alt[i], after a sel_choose_* */
	int fell_back;           /* family:F: some layer had no row of F and uses sum2d */
};
/* NULL after reporting (a bad --force-primitive). */
struct selection *sel_new(struct graph *g, const struct options *opt, const char *strategy,
                          struct diag *d);
void sel_free(struct selection *s);
/* Local choice, layer by layer (greedy and the baselines). */
void sel_choose_greedy(struct selection *s);
/* The PBQP instance of s: PBQP node i < s->n is live node i, its cost vector
 * the alternatives' costs plus the conversions its output needs for readers
 * without a choice; edges carry the chain costs between a producer's output
 * layout and a reader's input layout; nodes from s->n on are auxiliary (the
 * set of layouts made from a tensor several readers with a choice share).
 * *n_edges (output) may be NULL. */
struct pbqp *sel_build_pbqp(const struct selection *s, int *n_edges);
/* Legalised cost of the current choice: the alternatives' costs plus every
 * conversion the legalisation inserts (shared where consumers agree). */
double sel_total(const struct selection *s);
/* Legalises the choice into the graph: OP_LAYOUT chains, packed weights,
 * node->primitive, cost_us and ws_bytes. Once per selection. */
void sel_apply(struct selection *s);

/* ---- cost_model.c ---------------------------------------------------------
 * The built-in cost model (DESIGN.md §2 "Cost table": used without --costs):
 * estimated microseconds of a primitive on a layer and of a layout transform
 * on a tensor, for a typical single core. */
struct rt_conv2d;
struct rt_prim;
struct rt_transform;
double cost_primitive_us(const struct rt_prim *prim, const struct rt_conv2d *p);
double cost_transform_us(const struct rt_transform *t, int N, int C, int H, int W);
/* The pieces of the estimate, for bench/calibrate and the tests: the row's
 * work on this layer, the GEMM shape factor, transform flops, bytes moved. */
struct cost_parts {
	double flops;       /* main work */
	double shape;       /* fraction of peak the GEMM's shape allows (1: not a GEMM) */
	double xform_flops; /* Winograd / FFT transforms */
	double bytes;       /* memory traffic */
	double wbytes;      /* packed weights, read once per call from memory (cold in a
	                       network: every layer's differ); at cost_stream_bandwidth */
};
void cost_primitive_parts(const struct rt_prim *prim, const struct rt_conv2d *p,
                          struct cost_parts *out);
int cost_vectorised(const struct rt_prim *prim, int isa);   /* inner loop uses isa's SIMD */
double cost_efficiency(const struct rt_prim *prim, int isa); /* eff the row reaches on isa */
extern const double cost_gemm_gflops[];                     /* [RT_SGEMM_ISA_COUNT] */
extern const double cost_bandwidth;                         /* bytes/s */
/* A fully-connected layer, M x K times constant K x N (gemm_fc, or the SGEMM
 * from 64 rows): the slower of its flops and streaming its weights once, at
 * cost_fc_bandwidth. */
double cost_fc_us(int isa, double M, double N, double K);
/* A convolution's fused residual epilogue over this many output elements,
 * added to every row's cost (the same for all: in the total, not the choice). */
double cost_residual_us(double elements);
extern const double cost_stream_bandwidth;                  /* bytes/s, weights read once */
extern const double cost_fc_bandwidth;                      /* bytes/s, an FC layer's weights */

/* ---- costs.c ------------------------------------------------------------------
 * What selection asks for a cost: the measured table of opt->costs where it
 * has a row for this (primitive, layer) or (transform, shape), else the
 * built-in model above. Microseconds for one call. */
double costs_primitive_us(const struct options *opt, const struct rt_prim *prim,
                          const struct rt_conv2d *p);
/* The same with the row's workspace in the cache (the layer before used
 * one): the table's "warm" row, else costs_primitive_us. */
double costs_primitive_warm_us(const struct options *opt, const struct rt_prim *prim,
                               const struct rt_conv2d *p);
/* A row kind's name in the table ("prim", "transform", "nonconv", "fc",
 * "warm" for cost_row.transform 0-4). */
const char *costs_kind_name(int transform);
double costs_transform_us(const struct options *opt, const struct rt_transform *t, int N, int C,
                          int H, int W);
/* passes/select.c: a Gemm or MatMul with a constant 2-D B as selection
 * classifies it, 1 gemm_fc (B packed, streamed), 2 gemm_sgemm, else 0; its
 * rows, outputs and inputs in *M, *N, *K (dnncc profile's "fc" cases). */
int pass_fc_shape(struct node *n, const struct options *opt, int64_t *M, int64_t *N,
                  int64_t *K);
/* A gemm_fc layer of M rows, N outputs, K inputs (table kind "fc"). */
double costs_fc_us(const struct options *opt, int M, int N, int K);
/* Reads a cost table (the TSV that `dnncc profile` writes); NULL after
 * reporting through d when the file is missing or malformed. */
struct cost_table *cost_table_read(const char *path, struct diag *d);
void cost_table_free(struct cost_table *t);
/* A one-line description of where costs come from, for --report and the
 * generated file's header ("built-in model", or the table's path and machine). */
const char *costs_source(const struct options *opt);
/* Distinct lookups selection made in opt->costs so far: answered by a row
 * (*measured) and fallen back to the built-in model (*fallback). */
void costs_usage(const struct options *opt, long *measured, long *fallback);
/* Scenario keys (the table's third column): a convolution layer, and the
 * N,C,H,W of a transformed tensor. */
void costs_conv_key(const struct rt_conv2d *p, char *buf, size_t size);
void costs_shape_key(int N, int C, int H, int W, char *buf, size_t size);
void costs_fc_key(int M, int N, int K, char *buf, size_t size);
/* Tables built in memory (dnncc profile): rows, header, writing. */
enum cost_header {
	COST_HDR_MACHINE, COST_HDR_ISA, COST_HDR_COMPILER, COST_HDR_FLAGS,
	COST_HDR_THREADS, COST_HDR_VERSION, COST_HDR_DATE, COST_HDR_COUNT_
};
struct cost_row {
	int transform;       /* 0: prim row, 1: transform row, 2: nonconv, 3: fc, 4: warm */
	char *row;           /* primitive or transform name */
	char *key;           /* canonical scenario key */
	double median_us, min_us, max_us;
	int runs;
	int line;            /* line in the file read, 0 if built in memory */
};
struct cost_table *cost_table_new(void);
/* Copies r in; NULL (and nothing added) when its (kind, row, key) is there. */
const struct cost_row *cost_table_add(struct cost_table *t, const struct cost_row *r);
const struct cost_row *cost_table_find(const struct cost_table *t, int transform,
                                       const char *row, const char *key);
size_t cost_table_n_rows(const struct cost_table *t);
const struct cost_row *cost_table_row(const struct cost_table *t, size_t i);
void cost_table_set_header(struct cost_table *t, enum cost_header h, const char *value);
const char *cost_table_header(const struct cost_table *t, enum cost_header h);
/* The threads its cases ran on (the header's; 1 without one; 0 if malformed). */
int cost_table_threads(const struct cost_table *t);
void cost_table_set_path(struct cost_table *t, const char *path); /* for costs_source */
/* Prints the table in the documented format; writes it to path through a
 * temporary renamed into place (nothing left behind on failure). */
int cost_table_print(const struct cost_table *t, FILE *f);
int cost_table_write(const struct cost_table *t, const char *path, struct diag *d);

/* ---- pbqp.c -------------------------------------------------------------------
 * Partitioned boolean quadratic programming (Scholz & Eckstein; as used for
 * primitive selection by Anderson & Gregg, CGO 2018): choose one alternative
 * per node minimising the sum of the chosen nodes' costs plus, for every edge
 * (u, v), the matrix entry [choice u][choice v]. Costs may be INFINITY
 * (forbidden). All state lives in the instance. */
struct pbqp;
enum pbqp_mode {
	PBQP_HEURISTIC, /* reductions R0, RI, RII; RN (heuristic) when none applies */
	PBQP_EXACT,     /* reductions R0, RI, RII; branch and bound instead of RN */
	PBQP_BRUTE,     /* enumerate every assignment: the test oracle, small instances only */
};
struct pbqp_stats {
	int n_r0, n_r1, n_r2, n_rn; /* reductions applied */
	long bnb_nodes;             /* branch-and-bound search nodes (PBQP_EXACT) */
	int optimal;                /* 1 when the answer is proven optimal (no RN was needed,
	                               or branch and bound completed) */
	double seconds;             /* CPU time of pbqp_solve (the thread's) */
};
/* An instance of n nodes, all with 0 alternatives until pbqp_set_costs. */
struct pbqp *pbqp_new(int n_nodes);
void pbqp_free(struct pbqp *q);
/* Node u's cost vector: n alternatives, costs[n] copied. */
void pbqp_set_costs(struct pbqp *q, int u, int n, const double *costs);
/* Adds matrix m [n_u][n_v] (row-major, rows are u's alternatives) to the edge
 * u-v, u != v; an existing edge (either direction) accumulates. */
void pbqp_add_edge(struct pbqp *q, int u, int v, const double *m);
int pbqp_n_nodes(const struct pbqp *q);
int pbqp_n_choices(const struct pbqp *q, int u);
/* Solves; 0 on success, -1 when every assignment costs INFINITY. The
 * instance's costs are unchanged (solving works on a copy). */
int pbqp_solve(struct pbqp *q, enum pbqp_mode mode);
int pbqp_choice(const struct pbqp *q, int u);  /* after pbqp_solve */
double pbqp_objective(const struct pbqp *q);   /* after pbqp_solve */
const struct pbqp_stats *pbqp_get_stats(const struct pbqp *q);
/* Total cost of any assignment choice[n_nodes] (INFINITY if forbidden). */
double pbqp_eval(const struct pbqp *q, const int *choice);
/* The documented text format (pbqp.c's opening comment): written by
 * --dump-pbqp, read back by the tests. pbqp_read returns NULL and fills err on
 * a malformed file. */
int pbqp_write(const struct pbqp *q, FILE *out);
struct pbqp *pbqp_read(FILE *in, char *err, size_t errlen);
/* PBQP_BRUTE refuses instances with more assignments than this (the product
 * of the alternative counts, pbqp_space): pbqp_solve returns -1 without
 * solving, so check pbqp_space first where -1 must mean "infeasible". */
#define PBQP_BRUTE_MAX 1e7
double pbqp_space(const struct pbqp *q);
/* Read access for other solvers (ilp.c): node u's cost of alternative a, and
 * edge e (0 <= e < pbqp_n_edges) with its matrix m [n_u][n_v], at most one
 * edge per pair of nodes. */
double pbqp_cost(const struct pbqp *q, int u, int a);
int pbqp_n_edges(const struct pbqp *q);
void pbqp_edge(const struct pbqp *q, int e, int *u, int *v, const double **m);
/* Writes one line per reduction, branch and decision of later pbqp_solve
 * calls to out (not owned), for debugging; NULL stops it. */
void pbqp_set_trace(struct pbqp *q, FILE *out);
/* PBQP_EXACT stops after max_branches branches once it has a finite
 * assignment, and returns the best found with optimal = 0; 0: no limit. */
#define PBQP_DEFAULT_LIMIT 100000L
void pbqp_set_limit(struct pbqp *q, long max_branches);

/* ---- ilp.c --------------------------------------------------------------------
 * The same instance as an integer linear program (one binary per alternative,
 * one per pair of alternatives on an edge, linearised products), solved by
 * GLPK: the cross-check of --verify-ilp. Returns 0 and fills choice[n_nodes]
 * and *objective; 1 when infeasible; -1 with err filled when GLPK is missing
 * (dnncc built without it) or fails. */
int ilp_solve_pbqp(const struct pbqp *q, int *choice, double *objective, char *err,
                   size_t errlen);

/* Fills p from a canonical Conv node (shapes and attributes) for the GEMM
 * micro-kernel isa and code built for `threads` threads (--threads; the
 * Winograd rows size their per-thread workspace by it); 1-D convolutions get
 * H = 1. Returns -1 for anything but 1-D/2-D. Shared by select and the
 * emitter so both see the same layer, and the workspace select sizes is the
 * one the emitted layer uses. */
int pass_conv_params(struct node *n, int isa, int threads, struct rt_conv2d *p);

/* ---- plan_memory.c ----------------------------------------------------------
 * Needs: final graph. Views (Reshape, Flatten, Squeeze, Unsqueeze) alias their
 * input, and the inputs of a zero-copy Concat (fuse_concat_slices) alias a
 * slice of its output, and the output of a Conv whose fused residual dies at it aliases the
 * residual where its row allows (rt_prim_residual_in_place; node->res_in_place); every other
 * activation gets an offset in one arena so that tensors whose lifetimes overlap never
 * overlap in memory. Sets graph->arena_size. */
int pass_plan_memory(struct graph *g, const struct options *opt, struct diag *d);

#endif
