/* emit_train.c - prints the training graph of pass_autodiff as standalone C99
 * (NAME.c, NAME.h): the forward pass, the loss, the backward pass and the
 * optimizer, one statement per IR node, with every buffer static and sized
 * at compile time for the batch.
 *
 * Storage plan (train_plan, shared with the CUDA emitter):
 * - parameters are one float blob `params` in first-use order (what
 *   NAME_get_params and NAME_set_params copy), initialised from the model's
 *   initializers, which are stored as exact 32-bit patterns (integer
 *   literals compile much faster than float literals);
 * - the gradient of each parameter lives at the same offset of `grads`, the
 *   optimizer state (momentum's v, Adam's m and v) likewise;
 * - every other computed float tensor has its own static buffer, except
 *   views (Flatten, Reshape), which name the buffer of their input;
 * - the input, labels and target are the caller's pointers.
 * GEMMs call rt_sgemm (dnncc's SGEMM, or cblas_sgemm with --blas openblas),
 * whose workspace is one static buffer sized for the largest GEMM. */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "backend/backend.h"
#include "backend/emit_internal.h"
#include "backend/emit_train.h"
#include "runtime/sgemm.h"

static const char *const isa_macros[] = {"RT_SGEMM_ISA_C", "RT_SGEMM_ISA_AVX2",
                                         "RT_SGEMM_ISA_AVX512", "RT_SGEMM_ISA_NEON"};

/* ---- the plan ---------------------------------------------------------------- */

static int is_view(const struct node *n)
{
	return n && (n->op == OP_FLATTEN || n->op == OP_RESHAPE);
}

void train_plan_build(struct train_plan *p, const struct graph *g, const struct options *opt)
{
	memset(p, 0, sizeof *p);
	p->g = g;
	p->opt = opt;
	p->to = opt->train;
	p->kind = xcalloc(g->n_tensors, sizeof *p->kind);
	p->off = xcalloc(g->n_tensors, sizeof *p->off);
	p->params = xcalloc(g->n_tensors, sizeof *p->params);
	for (int i = 0; i < g->n_nodes; i++) {
		const struct node *n = g->nodes[i];
		if (n->op != OP_OPTIMIZER_STEP)
			continue;
		const struct tensor *w = n->inputs[0], *gw = n->inputs[1];
		p->kind[w->index] = TS_PARAM;
		p->kind[gw->index] = TS_GRAD;
		p->off[w->index] = p->off[gw->index] = p->n_floats;
		p->params[p->n_params++] = w;
		p->n_floats += (size_t)ir_numel(w);
	}
	for (int i = 0; i < g->n_tensors; i++) {
		const struct tensor *t = g->tensors[i];
		if (p->kind[i] != TS_NONE)
			continue;
		if (t->is_input)
			p->kind[i] = t->dtype == DTYPE_I32 ? TS_LABELS
			             : (g->n_inputs && g->inputs[0] == t) ? TS_INPUT : TS_TARGET;
		else if (t->data)
			p->kind[i] = TS_NONE; /* Reshape's shape: never read by the code */
		else if (strcmp(t->name, "loss") == 0 && t->producer &&
		         (t->producer->op == OP_SOFTMAX_CE || t->producer->op == OP_MSE))
			p->kind[i] = TS_LOSS;
		else if (is_view(t->producer))
			p->kind[i] = TS_VIEW;
		else if (t->producer)
			p->kind[i] = TS_BUF;
	}
	/* The workspace of the largest GEMM. */
	for (int i = 0; i < g->n_nodes; i++) {
		int M, N, K, ta, tb;
		if (train_gemm_dims(g->nodes[i], &M, &N, &K, &ta, &tb)) {
			size_t ws = rt_sgemm_workspace_size(opt->isa, M, N, K);
			if (ws > p->ws_bytes)
				p->ws_bytes = ws;
		}
	}
}

void train_plan_free(struct train_plan *p)
{
	free(p->kind);
	free(p->off);
	free(p->params);
}

const struct tensor *train_view_root(const struct train_plan *p, const struct tensor *t)
{
	while (p->kind[t->index] == TS_VIEW)
		t = t->producer->inputs[0];
	return t;
}

int train_gemm_dims(const struct node *n, int *M, int *N, int *K, int *ta, int *tb)
{
	if (n->op != OP_GEMM && n->op != OP_MATMUL)
		return 0;
	const struct tensor *a = n->inputs[0], *y = n->outputs[0];
	*ta = 0;
	*tb = 0;
	for (int k = 0; k < n->n_attrs; k++) {
		if (strcmp(n->attrs[k].name, "transA") == 0)
			*ta = (int)n->attrs[k].i;
		if (strcmp(n->attrs[k].name, "transB") == 0)
			*tb = (int)n->attrs[k].i;
	}
	*M = (int)y->dims[0];
	*N = (int)y->dims[1];
	*K = (int)(*ta ? a->dims[0] : a->dims[1]);
	return 1;
}

int train_infer_only(const struct node *n)
{
	for (int k = 0; k < n->n_attrs; k++)
		if (strcmp(n->attrs[k].name, TRAIN_ATTR_INFER_ONLY) == 0)
			return 1;
	return 0;
}

/* ---- printing helpers ---------------------------------------------------------- */

/* Runtime source text by its path, e.g. "runtime/sgemm.c". */
const char *train_runtime_text(const char *path)
{
	for (const struct embedded_file *f = rt_sources; f->name; f++)
		if (strcmp(f->name, path) == 0)
			return f->text;
	unreachable("runtime file not embedded");
}

/* Copies a runtime file without its `#include "..."` lines, and without the
 * `static inline` functions named in drop (a NULL-terminated list, or NULL):
 * from their first line through the next line starting with '}'. */
void train_copy_runtime_except(FILE *out, const char *path, const char *const *drop)
{
	const char *s = train_runtime_text(path);
	fprintf(out, "/* ---- %s ---- */\n", path);
	int skipping = 0;
	while (*s) {
		const char *eol = strchr(s, '\n');
		size_t len = eol ? (size_t)(eol - s) + 1 : strlen(s);
		if (!skipping && drop && strncmp(s, "static inline ", 14) == 0)
			for (const char *const *d = drop; *d; d++) {
				const char *hit = strstr(s, *d);
				if (hit && hit < s + len && hit[strlen(*d)] == '(')
					skipping = 1;
			}
		if (skipping) {
			if (s[0] == '}')
				skipping = 0;
		} else if (strncmp(s, "#include \"", 10) != 0) {
			fwrite(s, 1, len, out);
		}
		s += len;
	}
	fputc('\n', out);
}

void train_copy_runtime(FILE *out, const char *path)
{
	train_copy_runtime_except(out, path, NULL);
}

/* Copies the functions of a runtime file whose names are in `names` (a
 * NULL-terminated list) with the comment block in front of each, so generated
 * code has no unused static function. A function starts at a line beginning
 * with "RT_FN " and ends at the line "}". */
void train_copy_functions(FILE *out, const char *path, const char *const *names)
{
	const char *text = train_runtime_text(path);
	fprintf(out, "/* ---- %s (the functions this model calls) ---- */\n", path);
	const char *s = text, *comment = NULL;
	while (*s) {
		const char *eol = strchr(s, '\n');
		const char *next = eol ? eol + 1 : s + strlen(s);
		if (strncmp(s, "/*", 2) == 0 && !comment)
			comment = s;
		else if (strncmp(s, " *", 2) != 0 && strncmp(s, "RT_FN ", 6) != 0)
			comment = NULL;
		if (strncmp(s, "RT_FN ", 6) == 0) {
			const char *paren = strchr(s, '(');
			const char *id = paren;
			while (id > s && (id[-1] == '_' || (id[-1] >= 'a' && id[-1] <= 'z') ||
			                  (id[-1] >= '0' && id[-1] <= '9')))
				id--;
			const char *end = strstr(s, "\n}\n");
			if (!end)
				unreachable("runtime function without a closing brace");
			end += 3;
			int want = 0;
			for (int k = 0; names[k]; k++)
				want |= strlen(names[k]) == (size_t)(paren - id) &&
				        strncmp(names[k], id, paren - id) == 0;
			if (want) {
				const char *from = comment ? comment : s;
				fwrite(from, 1, (size_t)(end - from), out);
				fputc('\n', out);
			}
			comment = NULL;
			s = end;
			continue;
		}
		s = next;
	}
}

/* A float constant as an exact C99 hexadecimal literal (6.4.4.2). */
void train_float_literal(char *buf, size_t size, double v)
{
	snprintf(buf, size, "%af", (double)(float)v);
}

static void tensor_expr(const struct train_plan *p, const struct tensor *t, char *buf,
                        size_t size)
{
	t = train_view_root(p, t);
	switch (p->kind[t->index]) {
	case TS_PARAM: snprintf(buf, size, "(params + %zu)", p->off[t->index]); break;
	case TS_GRAD: snprintf(buf, size, "(grads + %zu)", p->off[t->index]); break;
	case TS_BUF: snprintf(buf, size, "b%d", t->index); break;
	case TS_INPUT: snprintf(buf, size, "in_x"); break;
	case TS_LABELS: snprintf(buf, size, "in_labels"); break;
	case TS_TARGET: snprintf(buf, size, "in_target"); break;
	default: unreachable("tensor without storage read by generated code");
	}
}

static const char *shape_str(const struct tensor *t, char *buf, size_t size)
{
	size_t k = 0;
	buf[0] = '\0';
	for (int d = 0; d < t->rank && k + 24 < size; d++)
		k += snprintf(buf + k, size - k, "%s%lld", d ? ", " : "[", (long long)t->dims[d]);
	snprintf(buf + k, size - k, "]");
	return buf;
}

/* One statement (group) per node, indented by one tab. */
static void print_node(FILE *o, const struct train_plan *p, const struct node *n)
{
	char x[64], y[64], z[64], w[64], s1[96];
	const struct tensor *out0 = n->n_outputs ? n->outputs[0] : NULL;
	fprintf(o, "\t/* %s (%s)", n->name, ir_op_names[n->op]);
	if (out0)
		fprintf(o, " -> %s %s", out0->name, shape_str(out0, s1, sizeof s1));
	fprintf(o, " */\n");
	switch (n->op) {
	case OP_GEMM:
	case OP_MATMUL: {
		int M, N, K, ta, tb;
		train_gemm_dims(n, &M, &N, &K, &ta, &tb);
		tensor_expr(p, n->inputs[0], x, sizeof x);
		tensor_expr(p, n->inputs[1], w, sizeof w);
		tensor_expr(p, out0, y, sizeof y);
		fprintf(o, "\trt_sgemm(%s, %d, %d, %d, %s, %d, %d, NULL, %s, %d, %d, %s, %d, 0, ws);\n",
		        isa_macros[p->opt->isa], M, N, K, x, ta ? 1 : K, ta ? M : 1, w, tb ? 1 : N,
		        tb ? K : 1, y, N);
		if (n->n_inputs > 2 && n->inputs[2]) {
			tensor_expr(p, n->inputs[2], z, sizeof z);
			fprintf(o, "\trt_train_bias_add(%d, %d, %s, %s);\n", M, N, y, z);
		}
		break;
	}
	case OP_ADD: {
		const struct tensor *a = n->inputs[0], *b = n->inputs[1];
		tensor_expr(p, out0, y, sizeof y);
		if (p->kind[a->index] == TS_PARAM || p->kind[b->index] == TS_PARAM) {
			if (p->kind[a->index] == TS_PARAM) {
				const struct tensor *t = a;
				a = b;
				b = t;
			}
			tensor_expr(p, a, x, sizeof x);
			tensor_expr(p, b, z, sizeof z);
			fprintf(o, "\tmemcpy(%s, %s, sizeof(float) * %lld);\n", y, x,
			        (long long)ir_numel(out0));
			fprintf(o, "\trt_train_bias_add(%lld, %lld, %s, %s);\n", (long long)out0->dims[0],
			        (long long)(ir_numel(out0) / out0->dims[0]), y, z);
		} else {
			tensor_expr(p, a, x, sizeof x);
			tensor_expr(p, b, z, sizeof z);
			fprintf(o, "\tfor (size_t i = 0; i < %lld; i++)\n\t\t%s[i] = %s[i] + %s[i];\n",
			        (long long)ir_numel(out0), y, x, z);
		}
		break;
	}
	case OP_RELU:
	case OP_SIGMOID:
	case OP_TANH: {
		float alpha, beta; /* none of the three has attributes */
		tensor_expr(p, n->inputs[0], x, sizeof x);
		tensor_expr(p, out0, y, sizeof y);
		fprintf(o, "\trt_train_act(%s, %lld, %s, %s);\n",
		        emit_act_names[ir_act_of((struct node *)n, &alpha, &beta)],
		        (long long)ir_numel(out0), x, y);
		break;
	}
	case OP_SOFTMAX:
		tensor_expr(p, n->inputs[0], x, sizeof x);
		tensor_expr(p, out0, y, sizeof y);
		fprintf(o, "\trt_train_softmax(%lld, %lld, %s, %s);\n", (long long)out0->dims[0],
		        (long long)out0->dims[1], x, y);
		break;
	case OP_FLATTEN:
	case OP_RESHAPE: fprintf(o, "\t/* a view: no code */\n"); break;
	case OP_SOFTMAX_CE:
	case OP_MSE: {
		const struct tensor *in = n->inputs[0];
		tensor_expr(p, in, x, sizeof x);
		tensor_expr(p, n->inputs[1], z, sizeof z);
		tensor_expr(p, n->outputs[1], y, sizeof y);
		fprintf(o, "\tloss = rt_train_%s(%lld, %lld, %s, %s, %s);\n",
		        n->op == OP_MSE ? "mse" : "softmax_ce", (long long)in->dims[0],
		        (long long)(ir_numel(in) / in->dims[0]), x, z, y);
		break;
	}
	case OP_BIAS_GRAD: {
		const struct tensor *dy = n->inputs[0];
		tensor_expr(p, dy, x, sizeof x);
		tensor_expr(p, out0, y, sizeof y);
		fprintf(o, "\trt_train_bias_grad(%lld, %lld, %s, %s);\n", (long long)dy->dims[0],
		        (long long)(ir_numel(dy) / dy->dims[0]), x, y);
		break;
	}
	case OP_ACT_GRAD:
	case OP_SOFTMAX_GRAD:
		tensor_expr(p, n->inputs[0], x, sizeof x);
		tensor_expr(p, n->inputs[1], z, sizeof z);
		tensor_expr(p, out0, y, sizeof y);
		if (n->op == OP_ACT_GRAD)
			fprintf(o, "\trt_train_act_grad(%s, %lld, %s, %s, %s);\n", emit_act_names[n->act],
			        (long long)ir_numel(out0), x, z, y);
		else
			fprintf(o, "\trt_train_softmax_grad(%lld, %lld, %s, %s, %s);\n",
			        (long long)out0->dims[0], (long long)out0->dims[1], x, z, y);
		break;
	case OP_OPTIMIZER_STEP: {
		const struct tensor *w0 = n->inputs[0];
		size_t off = p->off[w0->index], cnt = (size_t)ir_numel(w0);
		if (p->to->optimizer == TRAIN_OPT_SGD)
			fprintf(o, "\trt_train_sgd(%zu, params + %zu, grads + %zu, learning_rate);\n", cnt,
			        off, off);
		else if (p->to->optimizer == TRAIN_OPT_MOMENTUM)
			fprintf(o, "\trt_train_momentum(%zu, params + %zu, grads + %zu, opt_v + %zu, "
			        "learning_rate, MOMENTUM);\n", cnt, off, off, off);
		else
			fprintf(o, "\trt_train_adam(%zu, params + %zu, grads + %zu, opt_m + %zu, opt_v + "
			        "%zu, learning_rate, BETA1, BETA2, EPSILON, adam_t);\n", cnt, off, off,
			        off, off);
		break;
	}
	default: unreachable("node the training emitter does not know");
	}
}

/* ---- the files ------------------------------------------------------------------ */

char *train_upper(const char *name)
{
	char *u = xstrdup(name);
	for (char *c = u; *c; c++)
		if (*c >= 'a' && *c <= 'z')
			*c = (char)(*c - 'a' + 'A');
	return u;
}

/* Base name of -o without its extension, and the header path beside it. */
void train_paths(const char *output, const char *ext, char **base, char **header)
{
	const char *slash = strrchr(output, '/');
	const char *b = slash ? slash + 1 : output;
	size_t n = strlen(b) - strlen(ext);
	*base = xmalloc(n + 1);
	memcpy(*base, b, n);
	(*base)[n] = '\0';
	size_t dn = strlen(output) - strlen(ext);
	*header = xmalloc(dn + 3);
	memcpy(*header, output, dn);
	strcpy(*header + dn, ".h");
}

void train_print_header(FILE *o, const struct train_plan *p, const char *N, const char *U,
                        int cuda)
{
	const struct graph *g = p->g;
	const struct tensor *x = g->inputs[0], *y = g->outputs[0];
	const int ce = p->to->loss == TRAIN_LOSS_SOFTMAX_CE;
	fprintf(o, "/* %s.h - training code generated by dnncc %s (dnncc --train); do not edit. */\n",
	        N, PACKAGE_VERSION);
	fprintf(o, "#ifndef %s_H\n#define %s_H\n\n#include <stddef.h>\n\n", U, U);
	fprintf(o, "#ifdef __cplusplus\nextern \"C\" {\n#endif\n\n");
	fprintf(o, "#define %s_NUM_INPUTS 1\n#define %s_NUM_OUTPUTS 1\n", U, U);
	fprintf(o, "#define %s_BATCH %lld         /* rows per step and per NAME_run call */\n", U,
	        (long long)x->dims[0]);
	fprintf(o, "#define %s_INPUT_SIZE %lld    /* floats per row of x */\n", U,
	        (long long)(ir_numel(x) / x->dims[0]));
	fprintf(o, "#define %s_OUTPUT_SIZE %lld   /* floats per row of the output */\n", U,
	        (long long)(ir_numel(y) / y->dims[0]));
	fprintf(o, "#define %s_NUM_PARAM_TENSORS %d\n#define %s_NUM_PARAMS %zu\n\n", U, p->n_params,
	        U, p->n_floats);
	fprintf(o, "extern const size_t %s_input_sizes[];  /* element counts: BATCH * INPUT_SIZE */\n",
	        N);
	fprintf(o, "extern const size_t %s_output_sizes[]; /* BATCH * OUTPUT_SIZE */\n", N);
	fprintf(o, "/* Inference with the current parameters: inputs[0] [%s], outputs[0] [%s].\n"
	        " * 0 on success, -1 if a pointer is NULL. */\n", x->name, y->name);
	fprintf(o, "int %s_run(const float *const inputs[], float *const outputs[]);\n\n", N);
	if (ce) {
		fprintf(o, "/* One step of training on a batch: forward, softmax cross-entropy (mean\n"
		        " * over the batch), backward, one optimizer update.\n"
		        " * x: [BATCH, INPUT_SIZE]; labels: [BATCH], classes 0..OUTPUT_SIZE-1;\n"
		        " * loss_out: the batch's loss before the update, or NULL (then%s).\n"
		        " * 0 on success, -1 if x or labels is NULL. */\n",
		        cuda ? " nothing is copied back from the device" : " it is not stored");
		fprintf(o, "int %s_train_step(const float *x, const int *labels, float *loss_out);\n",
		        N);
	} else {
		fprintf(o, "/* One step of training on a batch with the mean squared error (mean over\n"
		        " * all BATCH * OUTPUT_SIZE elements) against target [BATCH, OUTPUT_SIZE].\n"
		        " * loss_out: the loss before the update, or NULL. 0 on success, -1 on NULL. */\n");
		fprintf(o, "int %s_train_step_mse(const float *x, const float *target, float *loss_out);\n",
		        N);
	}
	fprintf(o, "\n/* The parameters as one float vector of NUM_PARAMS values: the tensors of\n"
	        " * param_names in this order, each row-major in its ONNX shape. */\n");
	fprintf(o, "size_t %s_num_params(void);\n", N);
	fprintf(o, "void %s_get_params(float *dst);\n", N);
	fprintf(o, "void %s_set_params(const float *src);\n", N);
	fprintf(o, "extern const char *const %s_param_names[]; /* ONNX initializer names */\n", N);
	fprintf(o, "extern const size_t %s_param_sizes[];      /* their element counts */\n", N);
	fprintf(o, "/* The learning rate of the following steps (initially %g). */\n",
	        p->to->lr);
	fprintf(o, "void %s_set_lr(float lr);\n", N);
	fprintf(o, "/* Zeroes the optimizer state (momentum, Adam's moments and step count). */\n");
	fprintf(o, "void %s_reset_optimizer(void);\n", N);
	if (cuda)
		train_print_cuda_header_extra(o, p, N, U);
	fprintf(o, "\n#ifdef __cplusplus\n}\n#endif\n\n#endif\n");
}

void train_print_param_tables(FILE *o, const struct train_plan *p, const char *N)
{
	fprintf(o, "const char *const %s_param_names[] = {\n", N);
	for (int i = 0; i < p->n_params; i++)
		fprintf(o, "\t\"%s\",\n", p->params[i]->name);
	fprintf(o, "};\nconst size_t %s_param_sizes[] = {", N);
	for (int i = 0; i < p->n_params; i++)
		fprintf(o, "%s%lld", i ? ", " : "", (long long)ir_numel(p->params[i]));
	fprintf(o, "};\n\n");
}

/* The initial parameters as 32-bit patterns, 8 per line. */
void train_print_init_bits(FILE *o, const struct train_plan *p, const char *type)
{
	fprintf(o, "/* The model's initializers, as the bit patterns of the floats (exact,\n"
	        " * and far cheaper for the compiler than float literals). */\n");
	fprintf(o, "static const %s init_bits[%zu] = {\n", type, p->n_floats ? p->n_floats : 1);
	size_t col = 0;
	for (int i = 0; i < p->n_params; i++) {
		const struct tensor *t = p->params[i];
		const float *v = t->data;
		fprintf(o, "\t/* %s */\n", t->name);
		for (int64_t k = 0; k < ir_numel(t); k++) {
			uint32_t bits;
			memcpy(&bits, &v[k], 4);
			fprintf(o, "%s0x%08lxu,", col % 8 == 0 ? "\t" : " ", (unsigned long)bits);
			if (++col % 8 == 0)
				fputc('\n', o);
		}
		if (col % 8) {
			fputc('\n', o);
			col = 0;
		}
	}
	fprintf(o, "};\n\n");
}

/* Writes rt_types.h to out, without the static inlines that the runtime text
 * in scratch (a tmpfile) does not call, then that text; closes scratch. The
 * generated statements after it call only rt_sgemm and the rt_train_ ops. */
static int splice_runtime(FILE *out, FILE *scratch)
{
	long size = ftell(scratch);
	char *text = size >= 0 ? malloc((size_t)size + 1) : NULL;
	int ok = text && fseek(scratch, 0, SEEK_SET) == 0 &&
	         fread(text, 1, (size_t)size, scratch) == (size_t)size;
	fclose(scratch);
	if (!ok) {
		free(text);
		return -1;
	}
	text[size] = '\0';
	/* rt_types.h's helpers call none of each other, so one pass decides */
	const char *types = train_runtime_text("runtime/rt_types.h");
	char names[16][64];
	const char *drop[17];
	int n_drop = 0;
	for (const char *s = strstr(types, "\nstatic inline "); s; s = strstr(s + 1, "\nstatic inline ")) {
		const char *paren = strchr(s + 1, '(');
		const char *id = paren;
		while (id > s && (id[-1] == '_' || (id[-1] >= 'a' && id[-1] <= 'z') ||
		                  (id[-1] >= '0' && id[-1] <= '9')))
			id--;
		size_t len = (size_t)(paren - id);
		if (n_drop == 16 || len >= sizeof names[0])
			unreachable("rt_types.h has more or longer inlines than splice_runtime holds");
		memcpy(names[n_drop], id, len);
		names[n_drop][len] = '(';
		names[n_drop][len + 1] = '\0';
		if (!strstr(text, names[n_drop])) {
			names[n_drop][len] = '\0';
			drop[n_drop] = names[n_drop];
			n_drop++;
		}
	}
	drop[n_drop] = NULL;
	train_copy_runtime_except(out, "runtime/rt_types.h", drop);
	fwrite(text, 1, (size_t)size, out);
	free(text);
	return 0;
}

static int emit_c_file(FILE *o, const struct train_plan *p, const char *N, const char *base)
{
	const struct graph *g = p->g;
	const struct train_options *to = p->to;
	const int ce = to->loss == TRAIN_LOSS_SOFTMAX_CE;
	const struct tensor *x = g->inputs[0], *y = g->outputs[0];
	char lit[64], s1[96];
	fprintf(o, "/* %s.c - training code generated by dnncc %s; do not edit.\n *\n", base,
	        PACKAGE_VERSION);
	fprintf(o, " * command line: %s\n", p->opt->command_line ? p->opt->command_line : "");
	fprintf(o, " * model file:   %s\n", g->source);
	fprintf(o, " * loss:         %s\n", ce ? "softmax cross-entropy" : "mean squared error");
	fprintf(o, " * optimizer:    %s, lr %g\n",
	        to->optimizer == TRAIN_OPT_SGD ? "SGD" : to->optimizer == TRAIN_OPT_MOMENTUM
	                                                     ? "SGD with momentum" : "Adam",
	        to->lr);
	fprintf(o, " * batch:        %d\n", to->batch);
	fprintf(o, " * parameters:   %zu floats in %d tensors\n", p->n_floats, p->n_params);
	fprintf(o, " * GEMM:         %s\n *\n", p->opt->blas_openblas ? "OpenBLAS (cblas_sgemm)"
	                                                                : "dnncc's SGEMM");
	fprintf(o, " * The IR nodes below, in order: the forward graph, the loss, the gradients\n"
	        " * derived by dnncc's autodiff pass, the optimizer steps.\n");
	fprintf(o, " * Compile from this directory: cc -std=c99 -O2 -c %s.c; link with %s-lm. */\n",
	        base, p->opt->blas_openblas ? "-lopenblas " : "");
	fprintf(o, "#include \"%s.h\"\n\n#include <math.h>\n#include <stddef.h>\n#include <stdint.h>\n"
	        "#include <string.h>\n\n", base);
	fprintf(o, "#define RT_FN static\n#define RT_SGEMM_ISA %s\n\n", isa_macros[p->opt->isa]);
	/* The runtime text after rt_types.h goes to a scratch file first, so
	 * that rt_types.h's static inlines are copied only where that text
	 * calls them (clang warns on an unused one, and the header grows
	 * helpers a fully-connected trainer never calls). */
	FILE *const out = o;
	o = tmpfile();
	if (!o)
		return -1;
	train_copy_runtime(o, "runtime/sgemm.h");
	if (p->opt->blas_openblas) {
		train_copy_runtime(o, "runtime/sgemm_cblas.c");
	} else {
		static const char *const kernels[] = {"runtime/sgemm_c.c", "runtime/sgemm_avx2.c",
		                                      "runtime/sgemm_avx512.c", "runtime/sgemm_neon.c"};
		train_copy_runtime(o, kernels[p->opt->isa]);
		train_copy_runtime(o, "runtime/sgemm.c");
	}
	/* The kernels this graph calls. */
	const char *used[16];
	int n_used = 0;
	int seen[OP_COUNT_] = {0};
	for (int i = 0; i < g->n_nodes; i++)
		seen[g->nodes[i]->op] = 1;
	used[n_used++] = "rt_train_bias_add";
	if (seen[OP_RELU] || seen[OP_SIGMOID] || seen[OP_TANH])
		used[n_used++] = "rt_train_act";
	if (seen[OP_ACT_GRAD])
		used[n_used++] = "rt_train_act_grad";
	if (seen[OP_SOFTMAX])
		used[n_used++] = "rt_train_softmax";
	if (seen[OP_SOFTMAX_GRAD])
		used[n_used++] = "rt_train_softmax_grad";
	used[n_used++] = ce ? "rt_train_softmax_ce" : "rt_train_mse";
	if (seen[OP_BIAS_GRAD])
		used[n_used++] = "rt_train_bias_grad";
	used[n_used++] = to->optimizer == TRAIN_OPT_SGD ? "rt_train_sgd"
	                 : to->optimizer == TRAIN_OPT_MOMENTUM ? "rt_train_momentum"
	                                                       : "rt_train_adam";
	used[n_used] = NULL;
	train_copy_functions(o, "runtime/train_ops.c", used);
	if (splice_runtime(out, o) != 0)
		return -1;
	o = out;

	fprintf(o, "/* ---- state: every buffer static, sized for batch %d ---- */\n", to->batch);
	train_print_init_bits(o, p, "uint32_t");
	fprintf(o, "static float params[%zu]; /* the parameters, see %s_param_names */\n",
	        p->n_floats, N);
	fprintf(o, "static float grads[%zu];  /* their gradients, same offsets */\n", p->n_floats);
	if (to->optimizer == TRAIN_OPT_ADAM)
		fprintf(o, "static float opt_m[%zu]; /* Adam's first moments */\n", p->n_floats);
	if (to->optimizer != TRAIN_OPT_SGD)
		fprintf(o, "static float opt_v[%zu]; /* %s */\n", p->n_floats,
		        to->optimizer == TRAIN_OPT_ADAM ? "Adam's second moments" : "momentum buffers");
	if (to->optimizer == TRAIN_OPT_ADAM)
		fprintf(o, "static long adam_t;        /* steps taken */\n");
	fprintf(o, "static int params_ready;   /* params holds init_bits or set_params' values */\n");
	train_float_literal(lit, sizeof lit, to->lr);
	fprintf(o, "static float learning_rate = %s; /* %g */\n", lit, to->lr);
	if (to->optimizer == TRAIN_OPT_MOMENTUM) {
		train_float_literal(lit, sizeof lit, to->momentum);
		fprintf(o, "#define MOMENTUM %s /* %g */\n", lit, to->momentum);
	}
	if (to->optimizer == TRAIN_OPT_ADAM) {
		train_float_literal(lit, sizeof lit, to->beta1);
		fprintf(o, "#define BETA1 %s /* %g */\n", lit, to->beta1);
		train_float_literal(lit, sizeof lit, to->beta2);
		fprintf(o, "#define BETA2 %s /* %g */\n", lit, to->beta2);
		train_float_literal(lit, sizeof lit, to->eps);
		fprintf(o, "#define EPSILON %s /* %g */\n", lit, to->eps);
	}
	fprintf(o, "static unsigned char ws[%zu]; /* the GEMMs' workspace */\n", p->ws_bytes);
	fprintf(o, "static float loss;           /* of the last step */\n");
	fprintf(o, "static const float *in_x;    /* the caller's batch [%s] */\n",
	        shape_str(x, s1, sizeof s1));
	fprintf(o, "static const %s *in_%s;\n", ce ? "int" : "float", ce ? "labels" : "target");
	for (int i = 0; i < g->n_tensors; i++) {
		const struct tensor *t = g->tensors[i];
		if (p->kind[i] == TS_BUF)
			fprintf(o, "static float b%d[%lld]; /* %s %s */\n", i, (long long)ir_numel(t),
			        t->name, shape_str(t, s1, sizeof s1));
	}
	fprintf(o, "\n");
	fprintf(o, "static void init_params(void)\n{\n\tif (!params_ready) {\n"
	        "\t\tmemcpy(params, init_bits, sizeof params);\n\t\tparams_ready = 1;\n\t}\n}\n\n");

	/* forward */
	fprintf(o, "/* The forward graph; `infer` also runs the nodes that only inference needs. */\n");
	fprintf(o, "static void forward(int infer)\n{\n");
	int any_infer = 0;
	for (int i = 0; i < g->n_nodes; i++)
		any_infer |= train_infer_only(g->nodes[i]);
	if (!any_infer)
		fprintf(o, "\t(void)infer;\n");
	int i = 0;
	for (; i < g->n_nodes && g->nodes[i]->op != OP_SOFTMAX_CE && g->nodes[i]->op != OP_MSE; i++) {
		const struct node *n = g->nodes[i];
		const struct node *next = i + 1 < g->n_nodes ? g->nodes[i + 1] : NULL;
		const int last = !next || next->op == OP_SOFTMAX_CE || next->op == OP_MSE;
		if (train_infer_only(n) && last) {
			fprintf(o, "\tif (!infer)\n\t\treturn; /* the rest only for inference */\n");
			print_node(o, p, n);
		} else if (train_infer_only(n)) {
			fprintf(o, "\tif (infer) {\n");
			print_node(o, p, n);
			fprintf(o, "\t}\n");
		} else {
			print_node(o, p, n);
		}
	}
	fprintf(o, "}\n\n");
	fprintf(o, "/* The loss and the gradients (autodiff). */\nstatic void backward(void)\n{\n");
	for (; i < g->n_nodes && g->nodes[i]->op != OP_OPTIMIZER_STEP; i++)
		print_node(o, p, g->nodes[i]);
	fprintf(o, "}\n\n");
	fprintf(o, "/* One optimizer step per parameter. */\nstatic void update(void)\n{\n");
	if (to->optimizer == TRAIN_OPT_ADAM)
		fprintf(o, "\tadam_t++;\n");
	for (; i < g->n_nodes; i++)
		print_node(o, p, g->nodes[i]);
	fprintf(o, "}\n\n");

	char yx[64];
	tensor_expr(p, y, yx, sizeof yx);
	fprintf(o, "const size_t %s_input_sizes[] = {%lld};\n", N, (long long)ir_numel(x));
	fprintf(o, "const size_t %s_output_sizes[] = {%lld};\n\n", N, (long long)ir_numel(y));
	fprintf(o, "int %s_run(const float *const inputs[], float *const outputs[])\n{\n", N);
	fprintf(o, "\tif (!inputs || !outputs || !inputs[0] || !outputs[0])\n\t\treturn -1;\n");
	fprintf(o, "\tinit_params();\n\tin_x = inputs[0];\n\tforward(1);\n");
	fprintf(o, "\tmemcpy(outputs[0], %s, sizeof(float) * %lld);\n\treturn 0;\n}\n\n", yx,
	        (long long)ir_numel(y));
	if (ce)
		fprintf(o, "int %s_train_step(const float *x, const int *labels, float *loss_out)\n{\n"
		        "\tif (!x || !labels)\n\t\treturn -1;\n\tin_labels = labels;\n", N);
	else
		fprintf(o, "int %s_train_step_mse(const float *x, const float *target, float *loss_out)"
		        "\n{\n\tif (!x || !target)\n\t\treturn -1;\n\tin_target = target;\n", N);
	fprintf(o, "\tinit_params();\n\tin_x = x;\n\tforward(0);\n\tbackward();\n\tupdate();\n"
	        "\tif (loss_out)\n\t\t*loss_out = loss;\n\treturn 0;\n}\n\n");
	fprintf(o, "size_t %s_num_params(void)\n{\n\treturn %zu;\n}\n\n", N, p->n_floats);
	fprintf(o, "void %s_get_params(float *dst)\n{\n\tinit_params();\n"
	        "\tmemcpy(dst, params, sizeof params);\n}\n\n", N);
	fprintf(o, "void %s_set_params(const float *src)\n{\n\tmemcpy(params, src, sizeof params);\n"
	        "\tparams_ready = 1;\n}\n\n", N);
	fprintf(o, "void %s_set_lr(float lr)\n{\n\tlearning_rate = lr;\n}\n\n", N);
	fprintf(o, "void %s_reset_optimizer(void)\n{\n", N);
	if (to->optimizer == TRAIN_OPT_SGD)
		fprintf(o, "\t/* plain SGD has no state */\n");
	if (to->optimizer == TRAIN_OPT_ADAM)
		fprintf(o, "\tmemset(opt_m, 0, sizeof opt_m);\n\tadam_t = 0;\n");
	if (to->optimizer != TRAIN_OPT_SGD)
		fprintf(o, "\tmemset(opt_v, 0, sizeof opt_v);\n");
	fprintf(o, "}\n\n");
	train_print_param_tables(o, p, N);
	return ferror(o) ? -1 : 0;
}

/* Writes path through a temporary, renamed into place only on success. */
int train_write_file(const char *path, int (*print)(FILE *, void *), void *arg,
                     struct diag *d)
{
	size_t n = strlen(path);
	char *tmp = xmalloc(n + 8);
	snprintf(tmp, n + 8, "%s.tmpXXX", path);
	FILE *f = fopen(tmp, "w");
	int rc = -1;
	if (!f) {
		diag_error(d, NULL, "cannot write %s", tmp);
		free(tmp);
		return -1;
	}
	rc = print(f, arg);
	if (fclose(f) != 0)
		rc = -1;
	if (rc == 0 && rename(tmp, path) != 0)
		rc = -1;
	if (rc != 0) {
		diag_error(d, NULL, "cannot write %s", path);
		unlink(tmp);
	}
	free(tmp);
	return rc;
}

struct c_job {
	const struct train_plan *p;
	const char *name, *upper, *base;
	int cuda;
};

static int print_c(FILE *f, void *arg)
{
	struct c_job *j = arg;
	return emit_c_file(f, j->p, j->name, j->base);
}

static int print_h(FILE *f, void *arg)
{
	struct c_job *j = arg;
	train_print_header(f, j->p, j->name, j->upper, j->cuda);
	return ferror(f) ? -1 : 0;
}

int emit_train_c(const struct graph *g, const struct options *opt, struct diag *d)
{
	struct train_plan p;
	train_plan_build(&p, g, opt);
	char *base, *header;
	const int cuda = opt->train->cuda;
	train_paths(opt->output, cuda ? ".cu" : ".c", &base, &header);
	struct c_job job = {&p, opt->name, train_upper(opt->name), base, cuda};
	int rc = train_write_file(header, print_h, &job, d);
	if (rc == 0)
		rc = cuda ? train_write_cuda(&p, opt->output, opt->name, base, d)
		          : train_write_file(opt->output, print_c, &job, d);
	if (rc != 0)
		unlink(header);
	free((char *)job.upper);
	free(base);
	free(header);
	train_plan_free(&p);
	return rc;
}
