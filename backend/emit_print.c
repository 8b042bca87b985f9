/* emit_print.c - the emitter's second step: writes the plan of emit_plan.c,
 * top to bottom (STYLE.md §8): NAME.h, then NAME.c's header comment,
 * includes, runtime text, weights, arena, sizes, one static function per
 * layer, NAME_run; and NAME.weights.bin. Everything is decided by the plan,
 * so output depends on the graph and the options only (no addresses, no
 * time): it is deterministic. */
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

#include "backend/emit_internal.h"

/* Parameter spellings of enum act, which numbers like enum rt_act. */
const char *const emit_act_names[ACT_COUNT_] = {
	"RT_ACT_NONE", "RT_ACT_RELU", "RT_ACT_LEAKY_RELU", "RT_ACT_CLIP", "RT_ACT_SIGMOID", "RT_ACT_TANH",
};
_Static_assert(sizeof emit_act_names / sizeof emit_act_names[0] == ACT_COUNT_, "act names");
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

/* ---- the emitter helper: indentation, checked lines, braces ------------- */

static void emit_open(struct emitter *e, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void emit_vline(struct emitter *e, const char *fmt, va_list ap)
{
	for (int i = 0; i < e->indent; i++)
		fputc('\t', e->f);
	vfprintf(e->f, fmt, ap);
	fputc('\n', e->f);
}

/* One line at the current indentation. */
void emit_line(struct emitter *e, const char *fmt, ...)
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

void emit_blank(struct emitter *e)
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
void emit_raw(struct emitter *e, const char *text, size_t n)
{
	fwrite(text, 1, n, e->f);
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
	case WEIGHTS_EMBED:
		return emit_plan_fmt(p, "embed (.incbin of %s.weights.bin)", emit_cmt(p, p->base));
	case WEIGHTS_CARRAY: return "c-array (hexadecimal float literals)";
	case WEIGHTS_FILE:
		return emit_plan_fmt(p, "file (%s.weights.bin, read by %s_load_weights())", emit_cmt(p, p->base),
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
			          emit_tensor_desc(p, ts[i]), ir_numel(ts[i]), ir_dtype_names[ts[i]->dtype],
			          emit_ctype(ts[i]->dtype));
		return;
	}
	emit_line(e, " * %s (float32, dense, in the model's own layout):", what);
	if (n == 0)
		emit_line(e, " *   (none)");
	for (int i = 0; i < n; i++)
		emit_line(e, " *   %d: %s, %" PRId64 " floats", i, emit_tensor_desc(p, ts[i]),
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
	return emit_plan_keep(p, out);
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
	emit_line(e, "#ifndef DNNCC_PROFILE_CLOCK /* -DDNNCC_PROFILE_CLOCK=CLOCK_THREAD_CPUTIME_ID: CPU time */");
	emit_line(e, "#define DNNCC_PROFILE_CLOCK CLOCK_MONOTONIC");
	emit_line(e, "#endif");
	emit_line(e, "/* Adds one call and the time since *start to row i. */");
	emit_line(e, "static void %s_profile_add(size_t i, const struct timespec *start)", N);
	emit_open_block(e);
	emit_line(e, "struct timespec now;");
	emit_line(e, "double us;");
	emit_line(e, "clock_gettime(DNNCC_PROFILE_CLOCK, &now);");
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

/* Up to this many bytes, a model's weights are meant to stay in the caches
 * from one call to the next (WARM_WEIGHTS_BYTES, print_init). */
#define WARM_WEIGHTS_BYTES ((size_t)16 << 20)

/* Calls NAME_warm_up makes: WARM_UP_CACHED_CALLS where the weights and the
 * arena together fit WARM_WEIGHTS_BYTES, else one. A cache-resident model
 * reaches its steady speed only after a few passes, not after one read of
 * every line (the autoencoder on the 2-core Emerald Rapids Xeon VM: first
 * call 1.3-2.2x a steady one after one warm-up call, 1.1-1.2x after three,
 * 14 us a call); a larger model streams its weights from memory every call,
 * and one call warms its code and branch predictors. */
#define WARM_UP_CACHED_CALLS 3
static int warm_up_calls(const struct plan *p)
{
	size_t arena = p->uses_arena ? p->g->arena_size : 0;
	return p->weights_bytes + arena <= WARM_WEIGHTS_BYTES ? WARM_UP_CACHED_CALLS : 1;
}

/* "once", "twice", "3 times": how the comments in NAME.c and NAME.h say
 * warm_up_calls, whatever its count. */
static const char *times_text(int calls, char *buf, size_t size)
{
	if (calls == 1)
		return "once";
	if (calls == 2)
		return "twice";
	snprintf(buf, size, "%d times", calls);
	return buf;
}

/* Whether NAME_init ends with NAME_warm_up: not under --instrument (the
 * warm-up call would be counted) nor for --target cortex-m (firmware: no heap
 * to borrow the scratch buffers from, and nothing cached to warm). */
static int emits_warm_up(const struct plan *p)
{
	return !p->opt->instrument && !(p->opt->target && strcmp(p->opt->target, "cortex-m") == 0);
}

void emit_print_header(struct plan *p, struct emitter *e)
{
	const struct graph *g = p->g;
	const char *N = p->name;
	emit_line(e, "/* %s.h - generated by dnncc %s from %s; do not edit.", emit_cmt(p, p->base),
	          PACKAGE_VERSION, emit_cmt(p, g->source));
	emit_line(e, " *");
	print_io_list(p, e, "Inputs", g->n_inputs, g->inputs);
	print_io_list(p, e, "Outputs", g->n_outputs, g->outputs);
	if (p->mode == WEIGHTS_FILE) {
		emit_line(e, " *");
		emit_line(e, " * Weights are read at run time: call %s_load_weights() with the path of",
		          N);
		emit_line(e, " * %s.weights.bin before %s_run(). */", emit_cmt(p, p->base), N);
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
	if (emit_threads_of(p) > 1)
		emit_line(e, " * so no call pays their page faults, starts the %d worker threads,",
		          emit_threads_of(p) - 1);
	else
		emit_line(e, " * so no call pays their page faults,");
	if (emits_warm_up(p)) {
		const int calls = warm_up_calls(p);
		char times[32];
		emit_line(e, " * and runs the model %s on zero inputs%s, so that the first",
		          times_text(calls, times, sizeof times),
		          p->mode == WEIGHTS_FILE ? " (when the weights are loaded)" : "");
		emit_line(e, " * %s_run() finds code, caches and branch predictors as later calls do", N);
		emit_line(e, " * (that costs %s here; -D%s_NO_WARM_UP leaves it out).",
		          calls == 1 ? "one call's time" : "as many calls' time", p->upper);
	} else {
		emit_line(e, " * without a warm-up call (%s).",
		          p->opt->instrument ? "--instrument counts every call" : "--target cortex-m");
	}
	emit_line(e, " * %s_run() starts the same way when nobody called this, but without", N);
	if (emit_threads_of(p) > 1) {
		emit_line(e, " * the warm-up. Returns 0. %s_free() joins the threads; a later %s_run()", N, N);
		emit_line(e, " * starts them again. */");
	} else {
		emit_line(e, " * the warm-up. Returns 0. %s_free() undoes it (nothing to release). */", N);
	}
	emit_line(e, "int %s_init(void);", N);
	emit_line(e, "void %s_free(void);", N);
	if (emit_threads_of(p) > 1) {
		emit_line(e, "/* Runs later calls on n threads (1 <= n <= %d, clamped), restarting the",
		          emit_threads_of(p));
		emit_line(e, " * pool if it runs; returns the count now used (1 when built single-threaded).");
		emit_line(e, " * Outputs are the same for every n. */");
		emit_line(e, "int %s_set_threads(int n);", N);
	}
	if (p->mode == WEIGHTS_FILE) {
		emit_blank(e);
		emit_line(e, "/* Reads the weights from path (%s.weights.bin: %zu bytes of float32,",
		          emit_cmt(p, p->base), p->weights_bytes);
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
	emit_line(e, "/* %s.c - generated by dnncc %s; do not edit.", emit_cmt(p, p->base),
	          PACKAGE_VERSION);
	emit_line(e, " *");
	emit_line(e, " * command line: %s",
	          p->opt->command_line ? emit_cmt(p, p->opt->command_line) : "(not recorded)");
	emit_line(e, " * model file:   %s", emit_cmt(p, g->source));
	emit_line(e, " * producer:     %s", g->producer && *g->producer ? emit_cmt(p, g->producer)
	                                                              : "(unknown)");
	emit_line(e, " * strategy:     %s", p->opt->strategy ? p->opt->strategy : "reference");
	emit_line(e, " * costs:        %s", emit_cmt(p, costs_source(p->opt)));
	emit_line(e, " * target:       %s (%s)", p->opt->target ? p->opt->target : "host",
	          emit_rt_isa_names[p->opt->isa]);
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
	if (emit_threads_of(p) > 1) {
		emit_line(e, " * Threads (--threads %d): %s_init() starts a pool of %d POSIX threads", emit_threads_of(p),
		          p->name, emit_threads_of(p) - 1);
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
		          "-lopenblas -lm. */", emit_cmt(p, p->base));
	else
		emit_line(e, " * Compile from this directory: cc -std=c99 -c %s.c; link with -lm. */",
		          emit_cmt(p, p->base));
	if (p->opt->instrument || emit_threads_of(p) > 1) {
		emit_line(e, "#ifndef _POSIX_C_SOURCE");
		emit_line(e, "#define _POSIX_C_SOURCE %s", emit_threads_of(p) > 1 ? "200112L" : "199309L");
		emit_line(e, "#endif");
	}
	emit_line(e, "#include \"%s.h\"", p->base);
	emit_blank(e);
	emit_line(e, "#include <math.h>");
	emit_line(e, "#include <stddef.h>");
	if (emits_warm_up(p))
		emit_line(e, "#include <stdlib.h>");
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
	emit_line(e, "/* The arena and the weights start on a cache line (64 bytes) where the");
	emit_line(e, " * compiler takes GCC's aligned attribute: their tensors lie at multiples of");
	emit_line(e, " * 64 bytes from the start, so no 64-byte vector of a blocked layout then");
	emit_line(e, " * straddles two lines (a plain static array of floats is 16- or 32-byte");
	emit_line(e, " * aligned). The kernels accept any float alignment. */");
	emit_line(e, "#ifdef __GNUC__");
	emit_line(e, "#define RT_ALIGN64 __attribute__((aligned(64)))");
	emit_line(e, "#else");
	emit_line(e, "#define RT_ALIGN64");
	emit_line(e, "#endif");
	if (emit_threads_of(p) > 1) {
		emit_line(e, "#if !defined(%s_SINGLE_THREAD) && defined(__GNUC__) && \\", p->upper);
		emit_line(e, "    (defined(__unix__) || defined(__APPLE__))");
		emit_line(e, "#define RT_THREADS %d /* the thread pool's size, caller included */",
		          emit_threads_of(p));
		emit_line(e, "#endif");
	}
	if (p->uses_sgemm) {
		emit_line(e, "/* The GEMM micro-kernel of the target (%s); SIMD is enabled per function. */",
		          p->opt->target ? p->opt->target : "host");
		emit_line(e, "#define RT_SGEMM_ISA %s", emit_rt_isa_names[p->opt->isa]);
	}
	emit_blank(e);
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
		          emit_cmt(p, p->base));
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
		          emit_cmt(p, p->base));
		if (count)
			emit_line(e, "static float %s[%zu] RT_ALIGN64;", p->weights_sym, count);
		emit_line(e, "static int %s_weights_loaded; /* set by a successful load */", N);
		emit_blank(e);
		return;
	}
	/* C array: hexadecimal literals are exact (C99 6.4.4.2). */
	emit_line(e, "/* The weights (%zu bytes), each tensor 64-byte aligned in the blob. */",
	          p->weights_bytes);
	emit_open(e, "static const float %s[%zu] RT_ALIGN64 =", p->weights_sym, count);
	size_t at = 0; /* floats written */
	for (int i = 0; i < p->n_consts; i++) {
		const struct tensor *t = p->consts[i];
		size_t first = emit_tb_of(p, t)->offset / sizeof(float), n = (size_t)ir_numel(t);
		if (at < first)
			emit_line(e, "/* padding to a 64-byte boundary */");
		while (at < first) {
			char line[FLOATS_PER_LINE * 8 + 1] = "";
			for (int k = 0; k < FLOATS_PER_LINE && at < first; k++, at++)
				strcat(line, k ? " 0.0f," : "0.0f,");
			emit_line(e, "%s", line);
		}
		emit_line(e, "/* %s at float %zu */", emit_tensor_desc(p, t), first);
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
		emit_line(e, "/* %s */", emit_tensor_desc(p, t));
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
			size_t n8 = emit_align_up(g->arena_size, 8) / 8;
			emit_line(e, "static union { float f[%zu]; int64_t i[%zu]; double d[%zu]; } "
			          "%s_arena_store RT_ALIGN64;", 2 * n8, n8, n8, N);
			emit_line(e, "static float *const %s_arena = %s_arena_store.f;", N, N);
		} else {
			emit_line(e, "static float %s_arena[%zu] RT_ALIGN64;", N,
			          emit_align_up(g->arena_size, sizeof(float)) / sizeof(float));
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
	          emit_act_names[c->act], f[0], f[1], c->max, c->count_include_pad);
	emit_close(e, ";");
	if (l->unit == RT_UNIT_POOL3D)
		emit_line(e, "rt_pool3d(&p, x, y);");
	else
		emit_line(e, "%s(&p, x, w, %s, y);", l->kernel, l->n_args == 4 ? "b" : "NULL");
}

/* The body of one layer function: its kernel parameters as literal
 * constants, then the call. */
/* print_layer_body's switch key: the ops that share one body (ops.def's
 * OPF_BINOP, OPK_ACT, OPK_MATH, OPK_REDUCE, OPK_NORM) print under the case
 * of their first op; every other op is its own key. */
static enum op print_key(enum op op)
{
	if (ir_op_has(op, OPF_BINOP))
		return OP_ADD;
	switch (ir_op_kind(op)) {
	case OPK_ACT: return OP_RELU;
	case OPK_MATH: return OP_EXP;
	case OPK_REDUCE: return OP_REDUCE_MEAN;
	case OPK_NORM: return OP_LAYER_NORM;
	default: return op;
	}
}

/* The geometry lines of a `struct rt_conv2d` initialiser. */
static void print_conv_geometry(struct emitter *e, const struct rt_conv2d *c)
{
	emit_line(e, ".N = %d, .C = %d, .H = %d, .W = %d, /* x [N, C, H, W] */", c->N, c->C, c->H,
	          c->W);
	emit_line(e, ".M = %d, .oH = %d, .oW = %d, /* y [N, M, oH, oW] */", c->M, c->oH, c->oW);
	emit_line(e, ".kH = %d, .kW = %d, .sH = %d, .sW = %d, .dH = %d, .dW = %d,", c->kH, c->kW,
	          c->sH, c->sW, c->dH, c->dW);
	emit_line(e, ".padT = %d, .padL = %d, .group = %d,", c->padT, c->padL, c->group);
}

/* `static const struct rt_conv2d NAME = {...};` for a fused layer's two halves. */
static void print_conv_struct(struct emitter *e, const char *name, const struct rt_conv2d *c)
{
	char a[64], b[64];
	float_lit(a, sizeof a, c->alpha);
	float_lit(b, sizeof b, c->beta);
	emit_open(e, "static const struct rt_conv2d %s =", name);
	print_conv_geometry(e, c);
	emit_line(e, ".act = %s, .alpha = %s, .beta = %s,", emit_act_names[c->act], a, b);
	emit_line(e, ".isa = %s,", emit_rt_isa_names[c->isa]);
	if (c->threads > 1)
		emit_line(e, ".threads = %d, /* built for (workspace per thread) */", c->threads);
	emit_close(e, ";");
}

/* A Sigmoid or math function runtime/unary_vec.c vectorises (the planner's
 * choice: rt_unary_vec_has); alpha and beta already spelled. */
static void print_unary_vec(struct emitter *e, const struct layer *l, const char *alpha,
                            const char *beta)
{
	emit_line(e, "rt_unary_vec(%s, %s, %s, RT_SGEMM_ISA, %" PRId64 ", x, y); /* function, "
	             "alpha, beta, ISA, n */",
	          rt_math_names[l->u.unary.act], alpha, beta, l->u.unary.n);
}

static void print_layer_body(struct plan *p, struct emitter *e, const struct layer *l)
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
	switch (print_key(n->op)) {
	case OP_LAYOUT:
		emit_line(e, "%s(%d, %d, %d, %d, x, y); /* N, C, H, W */", l->kernel, l->u.layout.N,
		          l->u.layout.C, l->u.layout.H, l->u.layout.W);
		break;
	case OP_CONV: {
		const struct rt_conv2d *c = &l->u.conv;
		if (n->fused_into) {
			emit_line(e, "(void)y; /* computed band by band inside '%s' (rt_conv_pw_dw) */",
			          emit_cmt(p, n->fused_into->name));
			break;
		}
		if (l->unit == RT_UNIT_CONV_PW_DW) {
			print_conv_struct(e, "pe", &l->conv_pw);
			print_conv_struct(e, "pd", c);
			emit_line(e, "rt_conv_pw_dw(&pe, &pd, %d, x, we, %s, w, %s, y, ws);",
			          l->prim->variant, emit_has_arg(l, "be") ? "be" : "NULL",
			          emit_has_arg(l, "b") ? "b" : "NULL");
			break;
		}
		float_lit(f[0], sizeof f[0], c->alpha);
		float_lit(f[1], sizeof f[1], c->beta);
		emit_open(e, "static const struct rt_conv2d p =");
		print_conv_geometry(e, c);
		int fused = l->prim && emit_has_arg(l, "r") && rt_prim_fuses_residual(l->prim);
		int res = emit_has_arg(l, "r") && !fused;
		if (res) /* the activation follows the residual add */
			emit_line(e, ".act = RT_ACT_NONE,");
		else
			emit_line(e, ".act = %s, .alpha = %s, .beta = %s,", emit_act_names[c->act], f[0],
			          f[1]);
		if (l->prim)
			emit_line(e, ".isa = %s,", emit_rt_isa_names[c->isa]);
		if (l->prim && c->threads > 1) /* what select sized the workspace for */
			emit_line(e, ".threads = %d, /* built for (workspace per thread) */", c->threads);
		emit_close(e, ";");
		const char *bias = emit_has_arg(l, "b") ? "b" : "NULL";
		if (fused) /* the row adds r before the activation as it stores y */
			emit_line(e, "struct rt_conv2d pr = p; /* with the residual r, laid out like y */");
		if (fused)
			emit_line(e, "pr.res = r;");
		if (l->prim)
			emit_line(e, "%s(&%s, %d, x, w, %s, y, %s);", l->kernel, fused ? "pr" : "p",
			          l->prim->variant, bias, l->ws_bytes ? "ws" : "NULL");
		else
			emit_line(e, "rt_conv2d_ref(&p, x, w, %s, y);", bias);
		if (res) {
			int lo = l->prim ? (int)l->prim->out : RT_L_CHW;
			int block = lo == RT_L_CHW8C ? 8 : lo == RT_L_CHW16C ? 16 : 0;
			emit_line(e, "/* y = %s(y + r), r laid out like y (%s) */",
			          ir_act_names[c->act], rt_layout_names[lo]);
			emit_line(e, "rt_conv_residual(RT_SGEMM_ISA, %d, %d, %d, %d, %s, %s, %s, r, y); "
			          "/* ISA, N, M, oH * oW, channel block */", c->N, c->M, c->oH * c->oW, block,
			          emit_act_names[c->act], f[0], f[1]);
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
			             "HWC, 1: CHW), average */",
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
		emit_line(e, ".act = %s, .act_alpha = %s, .act_beta = %s,", emit_act_names[c->act], f[2],
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
		if (l->unit == RT_UNIT_MATMUL_SGEMM)
			emit_line(e, "rt_matmul_sgemm(&batch, %d, %d, %d, RT_SGEMM_ISA, a, b, y, ws); "
			             "/* M, N, K */",
			          l->u.matmul.M, l->u.matmul.N, l->u.matmul.K);
		else
			emit_line(e, "rt_matmul(&batch, %d, %d, %d, a, b, y); /* M, N, K */",
			          l->u.matmul.M, l->u.matmul.N, l->u.matmul.K);
		break;
	}
	case OP_ADD: { /* every OPF_BINOP op */
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
		if (l->unit == RT_UNIT_CHAN_BINARY) { /* dims: N, C, HW, p's strides over N, C */
			emit_line(e, "rt_chan_binary(%s, RT_SGEMM_ISA, %d, %d, %d, %d, x, p, %d, %d, y); "
			             "/* op, ISA, layout, N, C, HW, x, p, p's N and C strides */",
			          opn[l->u.binary.op], l->block, b->dims[0], b->dims[1], b->dims[2],
			          b->dims[3], b->dims[4]);
			break;
		}
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
	case OP_RELU: /* OPK_ACT */
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
		if (l->unit == RT_UNIT_UNARY_VEC) {
			print_unary_vec(e, l, f[0], f[1]);
			break;
		}
		if (l->unit == RT_UNIT_ACT_VEC) {
			emit_line(e, "rt_act_vec(%s, %s, RT_SGEMM_ISA, %" PRId64 ", x, y); /* act, alpha, "
			             "ISA, n */",
			          emit_act_names[l->u.unary.act], f[0], l->u.unary.n);
			break;
		}
		emit_line(e, "rt_unary(%s, %s, %s, %" PRId64 ", x, y); /* act, alpha, beta, n */",
		          emit_act_names[l->u.unary.act], f[0], f[1], l->u.unary.n);
		break;
	case OP_EXP: /* OPK_MATH */
		float_lit(f[0], sizeof f[0], l->u.unary.alpha);
		float_lit(f[1], sizeof f[1], l->u.unary.beta);
		if (l->unit == RT_UNIT_UNARY_VEC) {
			print_unary_vec(e, l, f[0], f[1]);
			break;
		}
		emit_line(e, "rt_unary_math(%s, %s, %s, %" PRId64 ", x, y); /* function, alpha, beta, "
		             "n */",
		          rt_math_names[l->u.unary.act], f[0], f[1], l->u.unary.n);
		break;
	case OP_REDUCE_MEAN: { /* OPK_REDUCE */
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
	case OP_LAYER_NORM: { /* OPK_NORM */
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
		emit_line(e, "rt_softmax_vec(%d, %d, %d, %d, RT_SGEMM_ISA, x, y); /* outer, len, "
		             "inner, log */",
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
		return emit_plan_fmt(p, "residual add, then %s", act_desc1(p, n));
	return act_desc1(p, n);
}

static const char *act_desc1(struct plan *p, const struct node *n)
{
	char a[64], b[64];
	switch (n->act) {
	case ACT_NONE: return "none";
	case ACT_LEAKY_RELU:
		float_lit(a, sizeof a, n->act_alpha);
		return emit_plan_fmt(p, "leaky_relu(alpha %s)", a);
	case ACT_CLIP:
		float_lit(a, sizeof a, n->act_alpha);
		float_lit(b, sizeof b, n->act_beta);
		return emit_plan_fmt(p, "clip(%s, %s)", a, b);
	default: return ir_act_names[n->act];
	}
}

static void print_layer(struct plan *p, struct emitter *e, const struct layer *l)
{
	const struct node *n = l->node;
	emit_line(e, "/* Layer %d: node '%s' (%s)", l->number, emit_cmt(p, n->name), ir_op_names[n->op]);
	for (int k = 0; k < l->n_args; k++)
		emit_line(e, " *   %s%s: %s", l->arg_names[k], k >= l->n_args - l->n_outs ? " (out)" : "",
		          emit_tensor_desc(p, l->args[k]));
	if (l->ws_bytes)
		emit_line(e, " *   ws: %zu bytes of workspace, arena bytes [%zu, %zu)", l->ws_bytes,
		          l->ws_offset, l->ws_offset + l->ws_bytes);
	if (n->op == OP_CONV && l->prim)
		emit_line(e, " * primitive: %s, %s -> %s (%s, estimated %.1f us), epilogue: %s */",
		          l->prim->name, rt_layout_names[l->prim->in], rt_layout_names[l->prim->out],
		          rt_family_names[l->prim->family], n->cost_us, act_desc(p, n));
	else
		emit_line(e, " * primitive: %s (%s), epilogue: %s */",
		          n->primitive ? emit_cmt(p, n->primitive) : "reference", l->kernel, act_desc(p, n));
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
		print_layer_body(p, e, l);
	}
	emit_close(e, "");
	emit_blank(e);
}

/* The pointer expression of a tensor in NAME_run. */
static const char *pointer_expr(struct plan *p, const struct tensor *t)
{
	const struct tbuf *b = emit_tb_of(p, t);
	switch (b->kind) {
	case BUF_INPUT: return emit_plan_fmt(p, "inputs[%d]", b->slot);
	case BUF_OUTPUT: return emit_plan_fmt(p, "outputs[%d]", b->slot);
	case BUF_CONST:
		if (b->array)
			return b->array;
		return emit_plan_fmt(p, "weights + %zu", b->offset / sizeof(float));
	case BUF_ARENA: /* run's local arena, print_run */
		if (t->dtype != DTYPE_F32)
			return emit_plan_fmt(p, "(%s *)(void *)(arena + %zu)", emit_ctype(t->dtype),
			                b->offset / sizeof(float));
		return emit_plan_fmt(p, "arena + %zu", b->offset / sizeof(float));
	case BUF_VIEW:
		if (t->alias_offset) /* a slice of a zero-copy Concat's output, in elements of its type */
			return emit_plan_fmt(p, "%s + %zu", emit_tb_of(p, b->root)->var,
			                t->alias_offset / (t->dtype == DTYPE_F32 ? sizeof(float)
			                                                         : ir_dtype_size(t->dtype)));
		return emit_tb_of(p, b->root)->var;
	default: unreachable("pointer to an unplaced tensor");
	}
}

static const char *where_desc(struct plan *p, const struct tensor *t)
{
	const struct tbuf *b = emit_tb_of(p, t);
	switch (b->kind) {
	case BUF_INPUT: return emit_plan_fmt(p, "graph input %d", b->slot);
	case BUF_OUTPUT: return emit_plan_fmt(p, "graph output %d", b->slot);
	case BUF_CONST:
		return emit_plan_fmt(p, "weights bytes [%zu, %zu)", b->offset, b->offset + ir_nbytes(t));
	case BUF_ARENA:
		return emit_plan_fmt(p, "arena bytes [%zu, %zu)", b->offset, b->offset + ir_nbytes(t));
	default:
		if (t->alias_offset || ir_nbytes(t) != ir_nbytes(b->root))
			return emit_plan_fmt(p, "slice of '%s' from byte %zu", emit_cmt(p, b->root->name),
			                t->alias_offset);
		if (t->producer && t->producer->res_in_place)
			return emit_plan_fmt(p, "written over its residual '%s'",
			                     emit_cmt(p, b->root->name));
		return emit_plan_fmt(p, "view of '%s'", emit_cmt(p, b->root->name));
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
		          emit_ctype(t->dtype), b->var, pointer_expr(p, t), emit_tensor_desc(p, t),
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
		const struct tbuf *b = emit_tb_of(p, t);
		if (b->kind == BUF_OUTPUT && b->slot == j)
			continue;
		const struct tensor *r = b->kind == BUF_VIEW ? b->root : t;
		if (r->producer != when)
			continue;
		emit_line(e, "memcpy(outputs[%d], %s, %" PRId64 " * sizeof(%s)); /* output %d: %s */",
		          j, b->var, ir_numel(t), emit_ctype(t->dtype), j, emit_tensor_desc(p, t));
	}
}

/* NAME_warm_up: NAME_run, warm_up_calls times, on zeroed inputs (zero is a
 * valid value for every input type, indices included) into scratch outputs,
 * both from calloc and freed again; skipped when an allocation fails.
 * Touching the arena and the weights leaves the code, the instruction caches
 * and the branch predictors cold, and on small networks that is most of what
 * a first call pays (MobileNetV1 0.25 on a Zen 4 VM: first call 1.1-1.8x a
 * steady one without the warm-up). */
static void print_warm_up(struct plan *p, struct emitter *e)
{
	const struct graph *g = p->g;
	const char *N = p->name;
	const char *ptr = p->typed_io ? "void" : "float";
	const int n_io = g->n_inputs + g->n_outputs; /* arrays get at least one slot */
	emit_line(e, "#ifndef %s_NO_WARM_UP", p->upper);
	const int calls = warm_up_calls(p);
	char times[32];
	emit_line(e, "/* Runs the model %s on zero inputs into scratch outputs (%s_init). */",
	          times_text(calls, times, sizeof times), N);
	emit_line(e, "static void %s_warm_up(void)", N);
	emit_open_block(e);
	emit_line(e, "static const size_t bytes[%d] = {", n_io > 0 ? n_io : 1);
	for (int j = 0; j < n_io; j++) {
		const struct tensor *t = j < g->n_inputs ? g->inputs[j] : g->outputs[j - g->n_inputs];
		emit_line(e, "\t%" PRId64 " * sizeof(%s),%s", ir_numel(t), emit_ctype(t->dtype),
		          j == g->n_inputs ? " /* outputs */" : "");
	}
	if (n_io == 0)
		emit_line(e, "\t0");
	emit_line(e, "};");
	emit_line(e, "const %s *in[%d];", ptr, g->n_inputs > 0 ? g->n_inputs : 1);
	emit_line(e, "%s *out[%d];", ptr, g->n_outputs > 0 ? g->n_outputs : 1);
	emit_line(e, "void *buf[%d];", n_io > 0 ? n_io : 1);
	emit_line(e, "int i, ok = 1;");
	emit_line(e, "for (i = 0; i < %d; i++)", n_io);
	emit_line(e, "\tok &= (buf[i] = calloc(1, bytes[i] ? bytes[i] : 1)) != NULL;");
	emit_line(e, "for (i = 0; i < %d; i++)", g->n_inputs);
	emit_line(e, "\tin[i] = (const %s *)buf[i];", ptr);
	emit_line(e, "for (i = 0; i < %d; i++)", g->n_outputs);
	emit_line(e, "\tout[i] = (%s *)buf[%d + i];", ptr, g->n_inputs);
	emit_line(e, "for (i = 0; ok && i < %d; i++)", calls);
	emit_line(e, "\t(void)%s_run(in, out);", N);
	emit_line(e, "for (i = 0; i < %d; i++)", n_io);
	emit_line(e, "\tfree(buf[i]);");
	emit_close(e, "");
	emit_line(e, "#endif");
	emit_blank(e);
}

/* NAME_init and NAME_free (emit_print_header documents them). The arena is
 * written (zeroed) in 64 KiB chunks, by the pool's threads when there are
 * some, and the constant weights are read: every 64-byte line of them up to
 * WARM_WEIGHTS_BYTES, so that the first call finds them in the caches as the
 * next ones do (measured: the autoencoder's first call 2.2x a steady one
 * with one float per page read, 1.1x with every line), else one float per
 * 4 KiB page (the page faults; the weights outgrow the caches anyway). */
static void print_init(struct plan *p, struct emitter *e)
{
	const char *N = p->name;
	const size_t chunk = 16384; /* floats */
	size_t arena_floats =
		p->uses_arena ? emit_align_up(p->g->arena_size, sizeof(float)) / sizeof(float) : 0;
	size_t n_chunks = (arena_floats + chunk - 1) / chunk;
	int touch_weights = p->mode != WEIGHTS_FILE && p->weights_bytes >= sizeof(float);
	emit_line(e, "/* ---- start-up and release ---- */");
	emit_line(e, "static int %s_ready; /* %s_init ran */", N, N);
	emit_blank(e);
	if (emit_threads_of(p) > 1) {
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
	emit_line(e, "/* The start-up of %s_init without the warm-up; %s_run calls it. */", N, N);
	emit_line(e, "static void %s_start(void)", N);
	emit_open_block(e);
	if (emit_threads_of(p) > 1) {
		emit_line(e, "#ifdef RT_THREADS");
		emit_line(e, "rt_pool_start(%s_threads);", N);
		emit_line(e, "rt_pool_parallel(%s_touch_arena, NULL, %zu);", N, n_chunks ? n_chunks : 1);
		emit_line(e, "#else");
	}
	if (arena_floats)
		/* by count: the typed arena's NAME_arena is a pointer into a union */
		emit_line(e, "memset(%s_arena, 0, %zu * sizeof(float));", N, arena_floats);
	if (emit_threads_of(p) > 1)
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
	emit_close(e, "");
	emit_blank(e);
	if (emits_warm_up(p))
		print_warm_up(p, e);
	emit_line(e, "int %s_init(void)", N);
	emit_open_block(e);
	emit_line(e, "if (%s_ready)", N);
	emit_line(e, "\treturn 0;");
	emit_line(e, "%s_start();", N);
	if (emits_warm_up(p)) {
		emit_line(e, "#ifndef %s_NO_WARM_UP", p->upper);
		if (p->mode == WEIGHTS_FILE) {
			emit_line(e, "if (%s_weights_loaded)", N);
			emit_line(e, "\t%s_warm_up();", N);
		} else {
			emit_line(e, "%s_warm_up();", N);
		}
		emit_line(e, "#endif");
	}
	emit_line(e, "return 0;");
	emit_close(e, "");
	emit_blank(e);
	emit_line(e, "void %s_free(void)", N);
	emit_open_block(e);
	if (emit_threads_of(p) > 1) {
		emit_line(e, "#ifdef RT_THREADS");
		emit_line(e, "rt_pool_stop();");
		emit_line(e, "#endif");
	}
	emit_line(e, "%s_ready = 0;", N);
	emit_close(e, "");
	emit_blank(e);
	if (emit_threads_of(p) > 1) {
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

/* run's tensors point into the arena and the weights through two local
 * bases whose value the optimiser cannot see. With every tensor's address a
 * compile-time constant, gcc 12 at -O2 cloned a kernel for those addresses,
 * took an address its vectorised loop computed from them for a null access
 * (its pure-const analysis, "NULL memory access"), concluded the kernel had
 * no effect and dropped the call: a per-channel Mul whose operands both live
 * in the arena wrote nothing (tests/regress). An empty asm that may change
 * the pointer stops constant propagation of addresses and nothing else. */
static void print_bases(struct plan *p, struct emitter *e)
{
	int w = 0;
	for (int i = 0; i < p->g->n_tensors && !w; i++) {
		const struct tbuf *b = &p->tb[i];
		w = b->used && b->kind == BUF_CONST && !b->array;
	}
	if (!p->uses_arena && !w)
		return;
	if (p->uses_arena)
		emit_line(e, "float *arena = %s_arena;", p->name);
	if (w)
		emit_line(e, "const float *weights = %s;", p->weights_sym);
	emit_line(e, "#ifdef __GNUC__ /* not a constant (gcc 12 -O2 miscompiled one layer) */");
	if (p->uses_arena)
		emit_line(e, "__asm__(\"\" : \"+r\"(arena));");
	if (w)
		emit_line(e, "__asm__(\"\" : \"+r\"(weights));");
	emit_line(e, "#endif");
	if (p->uses_arena)
		emit_line(e, "(void)arena;");
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
	emit_line(e, "\t%s_start();", N);
	emit_blank(e);
	print_bases(p, e);
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
			emit_line(e, "clock_gettime(DNNCC_PROFILE_CLOCK, &%s);", p->prof_var);
		if (l->copy) {
			emit_line(e, "memcpy(%s, %s, %" PRId64 " * sizeof(%s)); /* view '%s' (%s) */",
			          emit_tb_of(p, n->outputs[0])->var, emit_tb_of(p, n->inputs[0])->var,
			          ir_numel(n->outputs[0]), emit_ctype(n->outputs[0]->dtype),
			          emit_cmt(p, n->name), ir_op_names[n->op]);
		} else {
			char args[4096];
			size_t len = 0;
			for (int k = 0; k < l->n_args; k++)
				len += snprintf(args + len, sizeof args - len, "%s%s", k ? ", " : "",
				                emit_tb_of(p, l->args[k])->var);
			if (l->ws_bytes)
				snprintf(args + len, sizeof args - len, ", arena + %zu",
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

void emit_print_c_file(struct plan *p, struct emitter *e)
{
	print_front_matter(p, e);
	emit_print_runtime(p, e);
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
void emit_print_blob(struct plan *p, FILE *f)
{
	unsigned char buf[4096];
	size_t k = 0, at = 0;
	for (int i = 0; i < p->n_consts; i++) {
		const struct tensor *t = p->consts[i];
		size_t first = emit_tb_of(p, t)->offset, n = (size_t)ir_numel(t);
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
