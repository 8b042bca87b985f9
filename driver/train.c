/* train.c - `dnncc --train MODEL -o OUT/NAME.c [options]`: the command line
 * and the pipeline of training code for fully-connected networks. Reading
 * train_compile() is reading it: the ONNX frontend (with the batch pinned on
 * the input), shape inference, the --train check, autodiff, the emitter; the
 * IR verifier after each step and, with --dump-ir, a dump. */
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "backend/backend.h"
#include "backend/emit_train.h"
#include "driver/driver.h"
#include "driver/train.h"
#include "frontend/frontend.h"
#include "frontend/onnx.pb-c.h"
#include "ir/ir.h"
#include "passes/passes.h"
#include "passes/train.h"
#include "runtime/sgemm.h"

#define TRAIN_USAGE                                                                          \
	"usage: dnncc --train MODEL.onnx -o OUT/NAME.c [options]\n"                            \
	"  MODEL: Gemm or MatMul+Add layers with Relu, Sigmoid, Tanh, Softmax, and\n"           \
	"  Flatten/Reshape in front; the initial parameters are its initializers\n"            \
	"options:\n"                                                                           \
	"  -o FILE                NAME.c (NAME.cu with --target cuda); NAME.h beside it\n"      \
	"  --name PREFIX          C symbol prefix (default: NAME from -o)\n"                   \
	"  --loss L               softmax-ce (default; a trailing Softmax is absorbed) | mse\n" \
	"  --optimizer O          sgd (default) | momentum | adam\n"                           \
	"  --lr X                 learning rate (default 0.01; Adam 0.001)\n"                   \
	"  --momentum M           momentum of --optimizer momentum (default 0.9)\n"            \
	"  --batch N              rows per step, fixed at compile time (default 64)\n"         \
	"  --target T             host (default) | c99 | x86-64-v3 | x86-64-v4 | armv8\n"      \
	"                         | cortex-m | cuda\n"                                        \
	"  --blas B               own (default: dnncc's SGEMM) | openblas\n"                   \
	"  --pool-batches K       cuda: batches per host-to-device pool (default 16)\n"        \
	"  --dump-ir              print the IR after each step\n"

/* Pins the batch: every graph input's first dimension becomes `batch`, its
 * other dimensions must be fixed in the model. */
static int batch_overrides(const char *path, int batch, struct shape_override *ov, int cap,
                           int *n_ov)
{
	FILE *f = fopen(path, "rb");
	if (!f) {
		fprintf(stderr, "%s: cannot open: %s\n", path, strerror(errno));
		return -1;
	}
	size_t cap_b = 1 << 20, len = 0;
	uint8_t *buf = xmalloc(cap_b);
	size_t got;
	while ((got = fread(buf + len, 1, cap_b - len, f)) > 0) {
		len += got;
		if (len == cap_b)
			buf = xrealloc(buf, cap_b *= 2);
	}
	fclose(f);
	Onnx__ModelProto *m = onnx__model_proto__unpack(NULL, len, buf);
	free(buf);
	if (!m || !m->graph) {
		fprintf(stderr, "%s: not an ONNX model\n", path);
		if (m)
			onnx__model_proto__free_unpacked(m, NULL);
		return -1;
	}
	int rc = 0;
	*n_ov = 0;
	const Onnx__GraphProto *g = m->graph;
	for (size_t i = 0; i < g->n_input; i++) {
		const Onnx__ValueInfoProto *in = g->input[i];
		int is_init = 0;
		for (size_t k = 0; k < g->n_initializer; k++)
			is_init |= g->initializer[k]->name && in->name &&
			           strcmp(g->initializer[k]->name, in->name) == 0;
		if (is_init || !in->type || !in->type->tensor_type || !in->type->tensor_type->shape)
			continue;
		const Onnx__TensorShapeProto *s = in->type->tensor_type->shape;
		if (*n_ov == cap || s->n_dim == 0 || s->n_dim > IR_MAX_RANK)
			continue;
		struct shape_override *o = &ov[(*n_ov)++];
		o->input = xstrdup(in->name);
		o->rank = (int)s->n_dim;
		o->dims[0] = batch;
		for (size_t d = 1; d < s->n_dim; d++) {
			if (s->dim[d]->value_case != ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_VALUE ||
			    s->dim[d]->dim_value <= 0) {
				fprintf(stderr, "%s: input '%s': dimension %zu must be fixed for --train "
				        "(only the batch, dimension 0, may be symbolic)\n", path, in->name, d);
				rc = -1;
			}
			o->dims[d] = s->dim[d]->dim_value;
		}
	}
	onnx__model_proto__free_unpacked(m, NULL);
	return rc;
}

struct train_step {
	const char *name;
	int (*run)(struct graph *, const struct options *, struct diag *);
};

static const struct train_step train_pipeline[] = {
	{"infer_shapes", pass_infer_shapes},
	{"train_check", pass_train_check},
	{"autodiff", pass_autodiff},
};

static int train_compile(const struct options *opt)
{
	struct diag d;
	diag_init(&d, opt->model, stderr);
	struct graph *g = onnx_read(opt->model, opt, &d);
	if (!g || d.errors || ir_verify(g, "frontend", 0, &d)) {
		ir_graph_free(g);
		return 1;
	}
	if (opt->dump_ir)
		ir_dump(g, stdout, "after frontend");
	for (size_t i = 0; i < sizeof train_pipeline / sizeof train_pipeline[0]; i++) {
		const struct train_step *s = &train_pipeline[i];
		if (s->run(g, opt, &d) || d.errors || ir_verify(g, s->name, 1, &d)) {
			ir_graph_free(g);
			return 1;
		}
		if (opt->dump_ir)
			ir_dump(g, stdout, s->name);
	}
	int rc = emit_train_c(g, opt, &d) || d.errors;
	ir_graph_free(g);
	return rc;
}

static int parse_double(const char *opt, const char *val, double lo, double *out)
{
	char *end;
	errno = 0;
	double v = strtod(val, &end);
	if (end == val || *end || errno || !(v > lo) || v > 1e6) {
		fprintf(stderr, "dnncc: %s %s: expected a number above %g\n", opt, val, lo);
		return -1;
	}
	*out = v;
	return 0;
}

static int parse_int(const char *opt, const char *val, long lo, long hi, int *out)
{
	char *end;
	errno = 0;
	long v = strtol(val, &end, 10);
	if (end == val || *end || errno || v < lo || v > hi) {
		fprintf(stderr, "dnncc: %s %s: expected an integer from %ld to %ld\n", opt, val, lo, hi);
		return -1;
	}
	*out = (int)v;
	return 0;
}

int train_main(int argc, char **argv)
{
	struct options opt = {0};
	struct train_options to = {0};
	static struct shape_override shapes[16];
	const char *name = NULL;
	double lr = 0.0;
	to.loss = TRAIN_LOSS_SOFTMAX_CE;
	to.optimizer = TRAIN_OPT_SGD;
	to.momentum = 0.9;
	to.beta1 = 0.9;
	to.beta2 = 0.999;
	to.eps = 1e-8;
	to.batch = 64;
	to.pool_batches = 16;
	opt.target = "host";
	opt.strategy = "reference";
	opt.train = &to;

	char *cmd = driver_command_line(argc, argv);
	opt.command_line = cmd;

	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		const char *val = i + 1 < argc ? argv[i + 1] : NULL;
		if (strcmp(a, "--train") == 0)
			continue;
		if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
			fputs(TRAIN_USAGE, stdout);
			return 0;
		}
		if (strcmp(a, "--dump-ir") == 0) {
			opt.dump_ir = 1;
			continue;
		}
		if (a[0] == '-' && a[1] && !val) {
			fprintf(stderr, "dnncc: option %s needs a value\n%s", a, TRAIN_USAGE);
			return 2;
		}
		if (strcmp(a, "-o") == 0) {
			opt.output = argv[++i];
		} else if (strcmp(a, "--name") == 0) {
			name = argv[++i];
		} else if (strcmp(a, "--loss") == 0) {
			i++;
			if (strcmp(val, "softmax-ce") == 0)
				to.loss = TRAIN_LOSS_SOFTMAX_CE;
			else if (strcmp(val, "mse") == 0)
				to.loss = TRAIN_LOSS_MSE;
			else {
				fprintf(stderr, "dnncc: --loss %s: expected softmax-ce or mse\n", val);
				return 2;
			}
		} else if (strcmp(a, "--optimizer") == 0) {
			i++;
			if (strcmp(val, "sgd") == 0)
				to.optimizer = TRAIN_OPT_SGD;
			else if (strcmp(val, "momentum") == 0)
				to.optimizer = TRAIN_OPT_MOMENTUM;
			else if (strcmp(val, "adam") == 0)
				to.optimizer = TRAIN_OPT_ADAM;
			else {
				fprintf(stderr, "dnncc: --optimizer %s: expected sgd, momentum or adam\n", val);
				return 2;
			}
		} else if (strcmp(a, "--lr") == 0) {
			if (parse_double(a, argv[++i], 0.0, &lr))
				return 2;
		} else if (strcmp(a, "--momentum") == 0) {
			if (parse_double(a, argv[++i], -1e-300, &to.momentum))
				return 2;
		} else if (strcmp(a, "--batch") == 0) {
			if (parse_int(a, argv[++i], 1, 65536, &to.batch))
				return 2;
		} else if (strcmp(a, "--pool-batches") == 0) {
			if (parse_int(a, argv[++i], 1, 4096, &to.pool_batches))
				return 2;
		} else if (strcmp(a, "--target") == 0) {
			opt.target = argv[++i];
		} else if (strcmp(a, "--blas") == 0) {
			i++;
			if (strcmp(val, "openblas") == 0)
				opt.blas_openblas = 1;
			else if (strcmp(val, "own") != 0) {
				fprintf(stderr, "dnncc: --blas %s: expected own (default) or openblas\n", val);
				return 2;
			}
		} else if (a[0] == '-' && a[1]) {
			fprintf(stderr, "dnncc: --train: unknown or unsupported option %s\n%s", a,
			        TRAIN_USAGE);
			return 2;
		} else if (!opt.model) {
			opt.model = a;
		} else {
			fprintf(stderr, "dnncc: more than one model given (%s and %s)\n", opt.model, a);
			return 2;
		}
	}
	if (strcmp(opt.target, "host") == 0)
		opt.isa = rt_sgemm_isa_host();
	else if (strcmp(opt.target, "c99") == 0 || strcmp(opt.target, "cortex-m") == 0)
		opt.isa = RT_SGEMM_ISA_C;
	else if (strcmp(opt.target, "x86-64-v3") == 0)
		opt.isa = RT_SGEMM_ISA_AVX2;
	else if (strcmp(opt.target, "x86-64-v4") == 0)
		opt.isa = RT_SGEMM_ISA_AVX512;
	else if (strcmp(opt.target, "armv8") == 0)
		opt.isa = RT_SGEMM_ISA_NEON;
	else if (strcmp(opt.target, "cuda") == 0)
		to.cuda = 1;
	else {
		fprintf(stderr, "dnncc: --target %s: expected host, c99, x86-64-v3, x86-64-v4, armv8, "
		        "cortex-m or cuda\n", opt.target);
		return 2;
	}
	to.lr = lr > 0.0 ? lr : to.optimizer == TRAIN_OPT_ADAM ? 1e-3 : 1e-2;
	if (!opt.model || !opt.output) {
		fputs(TRAIN_USAGE, stderr);
		return 2;
	}
	if (!driver_ends_with(opt.model, ".onnx")) {
		fprintf(stderr, "dnncc: --train reads ONNX models (.onnx), not %s\n", opt.model);
		return 2;
	}
	const char *ext = to.cuda ? ".cu" : ".c";
	if (!driver_ends_with(opt.output, ext)) {
		fprintf(stderr, "dnncc: -o %s: the output must be a %s file%s\n", opt.output, ext,
		        to.cuda ? " with --target cuda" : "");
		return 2;
	}
	if (to.cuda && opt.blas_openblas) {
		fprintf(stderr, "dnncc: --blas openblas: the cuda target uses cuBLAS\n");
		return 2;
	}
	opt.name = driver_c_identifier(name ? name : opt.output, name ? "" : ext);
	if (batch_overrides(opt.model, to.batch, shapes, 16, &opt.n_shapes))
		return 1;
	opt.shapes = shapes;
	int rc = train_compile(&opt);
	for (int i = 0; i < opt.n_shapes; i++)
		free((char *)shapes[i].input);
	free((char *)opt.name);
	free(cmd);
	return rc;
}
