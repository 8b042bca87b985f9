/* caffe.c - the Caffe frontend: a deploy.prototxt (architecture, protobuf
 * text format, parsed by prototxt.c) plus optionally a .caffemodel (weights,
 * a binary NetParameter read through protobuf-c with the schema subset in
 * caffe.proto), translated into the IR in ONNX semantics.
 *
 * What it reads (field names and defaults from Caffe's caffe.proto):
 *  - both definition styles: `layer { type: "Convolution" }` and the
 *    deprecated V1 `layers { type: CONVOLUTION }` of the VGG releases; layers
 *    excluded from the TEST phase by include/exclude rules are skipped;
 *  - inputs from `input:` + `input_shape { }`, `input:` + four `input_dim`,
 *    or an `Input` layer; `--batch N` replaces every input's first dimension;
 *  - the layers Convolution, Pooling, InnerProduct, ReLU, Sigmoid, TanH, LRN,
 *    Concat, Eltwise, BatchNorm, Scale, Dropout, Softmax, Flatten, Split and
 *    Input. Anything else is an error naming the layer and its type.
 *
 * Blobs versus tensors: Caffe names blobs, and an in-place layer (top i equal
 * to bottom i) overwrites one. Here every write is a new value (struct
 * value), so an IR tensor is written once: the first writer of blob "conv1"
 * makes tensor "conv1", an in-place ReLU "relu1" after it makes tensor "relu1"
 * (unique names are kept by ir_new_tensor), and later readers of "conv1" get
 * the latest value, as Caffe's layer order gives them. Split and Dropout only
 * rename values (no node). Net outputs are the values no layer reads, which
 * is Caffe's rule (its net outputs are the blobs left unconsumed), in the
 * order they were written.
 *
 * Translation (each line: Caffe layer -> IR nodes):
 *  Convolution  -> Conv (weights [M, C/group, kH, kW], bias [M]: the layouts
 *                  agree), floor output size as in Caffe and ONNX.
 *  Pooling      -> MaxPool / AveragePool with symmetric pads and ceil_mode 1:
 *                  Caffe's out = ceil((H + 2p - k) / s) + 1, minus one when
 *                  the last window starts in the end padding, is the IR's
 *                  ceil rule; AVE divides by the window clipped to
 *                  [-p, H + p), which is count_include_pad = 1. global_pooling
 *                  -> GlobalAveragePool / GlobalMaxPool.
 *  InnerProduct -> [Flatten(axis)] Gemm(transB = 1; 0 with `transpose`)
 *                  [Reshape back when axis != 1].
 *  ReLU -> Relu, or LeakyRelu(alpha = negative_slope). Sigmoid, TanH alike.
 *  LRN          -> LRN(size, alpha, beta, bias = k): ONNX divides alpha by
 *                  size exactly as Caffe does; WITHIN_CHANNEL is refused.
 *  Concat -> Concat(axis). Softmax -> Softmax(axis), opset 13 semantics.
 *  Eltwise      -> SUM: Add chain, with Mul by a constant for coefficients
 *                  other than 1; PROD: Mul chain; MAX: refused (the IR has no
 *                  element-wise Max).
 *  BatchNorm    -> BatchNormalization with Caffe's stored statistics divided
 *                  by its moving-average factor (third blob), folded together
 *                  with a channel-wise Scale that is its only reader; a lone
 *                  Scale -> Mul (and Add for its bias) by [C, 1, 1] constants.
 *  Flatten -> Flatten(axis = 1), or Reshape for other axes.
 *
 * Weights come from the .caffemodel, matched to layers by name with the blob
 * count and shapes checked (legacy num/channels/height/width shapes too), or,
 * with --random-weights SEED, from a deterministic generator seeded by SEED
 * and the layer's position (Kaiming-uniform, so activations stay finite
 * through deep nets). Training-only fields (param, fillers, blobs_lr, engine,
 * dropout_ratio, ...) are accepted silently; every other field nothing read
 * gets a warning. Errors say "FILE:LINE:COLUMN: layer 'NAME' (TYPE): ...". */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "frontend/caffe.pb-c.h"
#include "frontend/frontend.h"

/* One version of a Caffe blob: each top a layer writes is a new value. */
struct value {
	const char *blob;          /* Caffe blob name */
	int writer;                /* index of the layer that wrote it; -1 for a net input,
	                              -2 for a stand-in after an unknown bottom */
	int rewrite;               /* written in place over an earlier value of the blob */
	int uses;                  /* number of layer bottoms reading it */
	int reader;                /* the last layer reading it (when uses > 0) */
	struct tensor *t;          /* IR tensor holding it; NULL until built or after an error */
	int rank;                  /* its shape as Caffe computes it */
	int64_t dims[IR_MAX_RANK];
};

struct layer {
	struct ptx_field *field;   /* the layer { } or layers { } field */
	struct ptx_message *msg;   /* its contents */
	const char *name;
	const char *type;          /* V2 type name ("Convolution"); V1 enums are mapped */
	int index;                 /* position among included layers; seeds random weights */
	int n_bottoms, n_tops;
	struct ptx_field **bottom_f, **top_f; /* [n_bottoms], [n_tops]: for locations */
	int *bottoms, *tops;       /* [n_bottoms], [n_tops]: value indices */
	int failed;                /* an error was reported for it */
	int folded;                /* a Scale folded into the BatchNorm before it */
};

/* A layer's parameter blobs as found in the .caffemodel. */
struct weight_source {
	const char *name;
	size_t n_blobs;
	Caffe__BlobProto **blobs;  /* [n_blobs]; owned by the unpacked message */
	int used;                  /* matched to a layer of the prototxt */
};

/* One parameter blob a layer needs: its role, shape and the range random
 * weights are drawn from. */
struct param_spec {
	const char *what;          /* "weights", "bias", "mean", ... */
	int rank;
	int64_t dims[4];
	float lo, hi;              /* uniform random range */
};

struct caffe {
	const char *path;               /* the prototxt, for messages */
	const struct options *opt;
	struct diag *d;
	struct graph *g;
	struct arena text;              /* the parsed prototxt tree; freed at the end */
	struct ptx_message *net;        /* the NetParameter text */
	struct layer *layers;           /* [n_layers] included layers, in order; xmalloc */
	int n_layers;
	struct value *values;           /* [n_values]; xrealloc */
	int n_values, cap_values;
	struct layer *cur;              /* the layer being read, for messages */
	Caffe__NetParameter *model;     /* unpacked .caffemodel, or NULL */
	struct weight_source *sources;  /* [n_sources], from model; xmalloc */
	int n_sources;
	int random;                     /* draw random weights */
	uint64_t weight_bytes;          /* parameter bytes so far, against --max-weights */
};

/* ---- messages --------------------------------------------------------------- */

/* Reports at a field's position (or the current layer's, or the file's) with
 * the current layer named: "FILE:L:C: layer 'NAME' (TYPE): MESSAGE". */
static void vreport(struct caffe *cf, int warning, const char *file, const struct ptx_field *at,
                    const char *fmt, va_list ap)
{
	char loc[1024], msg[1024], prefix[512] = "";
	if (!at && cf->cur && file == cf->path)
		at = cf->cur->field;
	if (at)
		snprintf(loc, sizeof loc, "%s:%d:%d", file, at->line, at->column);
	else
		snprintf(loc, sizeof loc, "%s", file);
	if (cf->cur)
		snprintf(prefix, sizeof prefix, "layer '%s' (%s): ", cf->cur->name, cf->cur->type);
	vsnprintf(msg, sizeof msg, fmt, ap);
	const char *saved = cf->d->file;
	cf->d->file = loc;
	if (warning) {
		diag_warning(cf->d, NULL, "%s%s", prefix, msg);
	} else {
		diag_error(cf->d, NULL, "%s%s", prefix, msg);
		if (cf->cur)
			cf->cur->failed = 1;
	}
	cf->d->file = saved;
}

static void error_at(struct caffe *cf, const struct ptx_field *at, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static void error_at(struct caffe *cf, const struct ptx_field *at, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vreport(cf, 0, cf->path, at, fmt, ap);
	va_end(ap);
}

static void weights_error(struct caffe *cf, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static void weights_error(struct caffe *cf, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vreport(cf, 0, cf->opt->caffe_weights, NULL, fmt, ap);
	va_end(ap);
}

static void warning_at(struct caffe *cf, const char *file, const struct ptx_field *at,
                       const char *fmt, ...) __attribute__((format(printf, 4, 5)));
static void warning_at(struct caffe *cf, const char *file, const struct ptx_field *at,
                       const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vreport(cf, 1, file, at, fmt, ap);
	va_end(ap);
}

/* "96x3x11x11" */
static const char *shape_str(char *buf, size_t size, int rank, const int64_t *dims)
{
	size_t k = 0;
	buf[0] = '\0';
	for (int i = 0; i < rank && k < size; i++)
		k += snprintf(buf + k, size - k, "%s%" PRId64, i ? "x" : "", dims[i]);
	if (rank == 0)
		snprintf(buf, size, "scalar");
	return buf;
}

/* ---- reading fields of the text tree ----------------------------------------- */

struct enum_value {
	const char *name;
	int value;
};

/* The single occurrence of an optional field, marked used; NULL when absent
 * (or when m is NULL: an absent parameter message has only defaults). */
static struct ptx_field *optional_field(struct caffe *cf, struct ptx_message *m, const char *name)
{
	struct ptx_field *found = NULL;
	for (int i = 0; m && i < m->n_fields; i++) {
		struct ptx_field *f = &m->fields[i];
		if (strcmp(f->name, name) != 0)
			continue;
		f->used = 1;
		if (found) {
			error_at(cf, f, "field '%s' given twice (first at line %d)", name, found->line);
			return NULL;
		}
		found = f;
	}
	return found;
}

static int count_fields(struct ptx_message *m, const char *name)
{
	int n = 0;
	for (int i = 0; m && i < m->n_fields; i++)
		n += strcmp(m->fields[i].name, name) == 0;
	return n;
}

/* The k-th occurrence of a repeated field, marked used. */
static struct ptx_field *nth_field(struct ptx_message *m, const char *name, int k)
{
	for (int i = 0; m && i < m->n_fields; i++) {
		struct ptx_field *f = &m->fields[i];
		if (strcmp(f->name, name) == 0 && k-- == 0) {
			f->used = 1;
			return f;
		}
	}
	return NULL;
}

static void mark_all_used(struct ptx_message *m)
{
	for (int i = 0; m && i < m->n_fields; i++) {
		m->fields[i].used = 1;
		if (m->fields[i].kind == PTX_MESSAGE)
			mark_all_used(m->fields[i].msg);
	}
}

/* Marks fields that matter only for training as read, contents included. */
static void accept_fields(struct ptx_message *m, const char *const *names)
{
	for (int i = 0; m && i < m->n_fields; i++) {
		for (int k = 0; names[k]; k++) {
			if (strcmp(m->fields[i].name, names[k]) != 0)
				continue;
			m->fields[i].used = 1;
			if (m->fields[i].kind == PTX_MESSAGE)
				mark_all_used(m->fields[i].msg);
		}
	}
}

static const char *kind_name(enum ptx_kind k)
{
	switch (k) {
	case PTX_NUMBER: return "a number";
	case PTX_STRING: return "a string";
	case PTX_IDENT: return "an identifier";
	case PTX_MESSAGE: return "a message";
	}
	return "?";
}

static int int_value(struct caffe *cf, const struct ptx_field *f, int64_t min, int64_t max,
                     int64_t *out)
{
	if (f->kind != PTX_NUMBER) {
		error_at(cf, f, "%s: expected an integer, found %s", f->name, kind_name(f->kind));
		return -1;
	}
	char *end;
	errno = 0;
	long long v = strtoll(f->text, &end, 0);
	if (end != f->text + f->text_len) {
		error_at(cf, f, "%s: expected an integer, found '%s'", f->name, f->text);
		return -1;
	}
	if (errno == ERANGE || v < min || v > max) {
		error_at(cf, f, "%s: %s is out of range (%" PRId64 " to %" PRId64 ")", f->name,
		         f->text, min, max);
		return -1;
	}
	*out = v;
	return 0;
}

static int float_value(struct caffe *cf, const struct ptx_field *f, double *out)
{
	if (f->kind == PTX_IDENT) {
		const char *s = f->text + (f->text[0] == '-');
		double sign = f->text[0] == '-' ? -1.0 : 1.0;
		if (strcasecmp(s, "inf") == 0 || strcasecmp(s, "infinity") == 0) {
			*out = sign * INFINITY;
			return 0;
		}
		if (strcasecmp(s, "nan") == 0) {
			*out = NAN;
			return 0;
		}
	}
	if (f->kind != PTX_NUMBER) {
		error_at(cf, f, "%s: expected a number, found %s%s%s%s", f->name, kind_name(f->kind),
		         f->kind == PTX_IDENT ? " '" : "", f->kind == PTX_IDENT ? f->text : "",
		         f->kind == PTX_IDENT ? "'" : "");
		return -1;
	}
	char *end;
	errno = 0;
	double v = strtod(f->text, &end);
	if (end < f->text + f->text_len && (*end == 'f' || *end == 'F'))
		end++;
	if (end != f->text + f->text_len) {
		error_at(cf, f, "%s: expected a number, found '%s'", f->name, f->text);
		return -1;
	}
	/* Caffe's fields are 32-bit floats: round as Caffe would. */
	*out = (double)(float)v;
	return 0;
}

static int64_t get_int(struct caffe *cf, struct ptx_message *m, const char *name, int64_t dflt,
                       int64_t min, int64_t max)
{
	struct ptx_field *f = optional_field(cf, m, name);
	int64_t v = dflt;
	if (f && int_value(cf, f, min, max, &v) != 0)
		return dflt;
	return v;
}

static int has_field(struct ptx_message *m, const char *name)
{
	return count_fields(m, name) > 0;
}

static double get_float(struct caffe *cf, struct ptx_message *m, const char *name, double dflt)
{
	struct ptx_field *f = optional_field(cf, m, name);
	double v = dflt;
	if (f && float_value(cf, f, &v) != 0)
		return dflt;
	return v;
}

static int get_bool(struct caffe *cf, struct ptx_message *m, const char *name, int dflt)
{
	struct ptx_field *f = optional_field(cf, m, name);
	if (!f)
		return dflt;
	/* The text format's spellings of a bool. */
	static const char *const yes[] = {"true", "True", "t", "1", NULL};
	static const char *const no[] = {"false", "False", "f", "0", NULL};
	if (f->kind == PTX_IDENT || f->kind == PTX_NUMBER) {
		for (int i = 0; yes[i]; i++)
			if (strcmp(f->text, yes[i]) == 0)
				return 1;
		for (int i = 0; no[i]; i++)
			if (strcmp(f->text, no[i]) == 0)
				return 0;
	}
	error_at(cf, f, "%s: expected true or false, found %s%s%s%s", name, kind_name(f->kind),
	         f->kind != PTX_MESSAGE ? " '" : "", f->kind != PTX_MESSAGE ? f->text : "",
	         f->kind != PTX_MESSAGE ? "'" : "");
	return dflt;
}

static const char *string_value(struct caffe *cf, const struct ptx_field *f)
{
	if (f->kind != PTX_STRING) {
		error_at(cf, f, "%s: expected a quoted string, found %s", f->name, kind_name(f->kind));
		return NULL;
	}
	if (strlen(f->text) != f->text_len) {
		error_at(cf, f, "%s: the string holds a NUL byte", f->name);
		return NULL;
	}
	return f->text;
}

static const char *get_string(struct caffe *cf, struct ptx_message *m, const char *name,
                              const char *dflt)
{
	struct ptx_field *f = optional_field(cf, m, name);
	const char *s;
	if (!f || !(s = string_value(cf, f)))
		return dflt;
	return s;
}

/* An enum field: an identifier from values[], or its number. */
static int enum_value(struct caffe *cf, const struct ptx_field *f, const struct enum_value *values,
                      int *out)
{
	if (f->kind == PTX_IDENT || f->kind == PTX_NUMBER) {
		for (int i = 0; values[i].name; i++) {
			if (f->kind == PTX_IDENT ? strcmp(f->text, values[i].name) == 0
			                         : strtol(f->text, NULL, 0) == values[i].value) {
				*out = values[i].value;
				return 0;
			}
		}
	}
	char expected[512];
	size_t k = 0;
	for (int i = 0; values[i].name && k < sizeof expected; i++)
		k += snprintf(expected + k, sizeof expected - k, "%s%s",
		              i == 0 ? "" : values[i + 1].name ? ", " : " or ", values[i].name);
	if (f->kind == PTX_MESSAGE || f->kind == PTX_STRING)
		error_at(cf, f, "%s: expected one of %s, found %s", f->name, expected,
		         kind_name(f->kind));
	else
		error_at(cf, f, "%s: unknown enum value '%s' (expected %s)", f->name, f->text, expected);
	return -1;
}

static int get_enum(struct caffe *cf, struct ptx_message *m, const char *name,
                    const struct enum_value *values, int dflt)
{
	struct ptx_field *f = optional_field(cf, m, name);
	int v = dflt;
	if (f && enum_value(cf, f, values, &v) != 0)
		return dflt;
	return v;
}

/* A parameter message; NULL when absent. */
static struct ptx_message *get_message(struct caffe *cf, struct ptx_message *m, const char *name)
{
	struct ptx_field *f = optional_field(cf, m, name);
	if (!f)
		return NULL;
	if (f->kind != PTX_MESSAGE) {
		error_at(cf, f, "%s: expected a message { ... }, found %s", name, kind_name(f->kind));
		return NULL;
	}
	return f->msg;
}

/* A repeated unsigned integer field; returns the count (at most max, more is
 * an error) with the values in out. */
static int get_uints(struct caffe *cf, struct ptx_message *m, const char *name, int64_t *out,
                     int max)
{
	int n = count_fields(m, name);
	if (n > max) {
		error_at(cf, nth_field(m, name, max), "%s: at most %d values, found %d", name, max, n);
		return 0;
	}
	for (int k = 0; k < n; k++)
		if (int_value(cf, nth_field(m, name, k), 0, INT32_MAX, &out[k]) != 0)
			return 0;
	return n;
}

/* A BlobShape { dim: ... } message; returns the rank or -1. */
static int blob_shape(struct caffe *cf, struct ptx_field *f, int64_t *dims)
{
	if (f->kind != PTX_MESSAGE) {
		error_at(cf, f, "%s: expected a shape { dim: ... }, found %s", f->name,
		         kind_name(f->kind));
		return -1;
	}
	int n = count_fields(f->msg, "dim");
	if (n > IR_MAX_RANK) {
		error_at(cf, f, "%s: %d dimensions, at most %d are supported", f->name, n,
		         IR_MAX_RANK);
		return -1;
	}
	for (int k = 0; k < n; k++) {
		struct ptx_field *dim = nth_field(f->msg, "dim", k);
		if (int_value(cf, dim, 1, INT32_MAX, &dims[k]) != 0)
			return -1;
	}
	if (n == 0) {
		error_at(cf, f, "%s: no dimensions given", f->name);
		return -1;
	}
	return n;
}

/* ---- values and tensors ---------------------------------------------------- */

static int new_value(struct caffe *cf, const char *blob, int writer)
{
	if (cf->n_values == cf->cap_values) {
		cf->cap_values = cf->cap_values ? 2 * cf->cap_values : 64;
		cf->values = xrealloc(cf->values, (size_t)cf->cap_values * sizeof *cf->values);
	}
	struct value *v = &cf->values[cf->n_values];
	memset(v, 0, sizeof *v);
	v->blob = blob;
	v->writer = writer;
	v->rank = -1;
	return cf->n_values++;
}

static struct value *in(struct caffe *cf, const struct layer *l, int i)
{
	return &cf->values[l->bottoms[i]];
}

static struct value *out(struct caffe *cf, const struct layer *l, int i)
{
	return &cf->values[l->tops[i]];
}

static void set_shape(struct value *v, int rank, const int64_t *dims)
{
	v->rank = rank;
	for (int i = 0; i < rank; i++)
		v->dims[i] = dims[i];
}

/* The IR tensor for top i: named after the blob, or after the layer when the
 * layer rewrites the blob in place. */
static struct tensor *top_tensor(struct caffe *cf, const struct layer *l, int i, int rank,
                                 const int64_t *dims)
{
	struct value *v = out(cf, l, i);
	v->t = ir_new_tensor(cf->g, v->rewrite ? l->name : v->blob, DTYPE_F32);
	ir_set_shape(v->t, rank, dims);
	set_shape(v, rank, dims);
	return v->t;
}

/* Top i is bottom j under another name (Split, Dropout, a folded Scale). */
static void alias_top(struct caffe *cf, const struct layer *l, int i, int j)
{
	struct value *v = out(cf, l, i), *src = in(cf, l, j);
	v->t = src->t;
	set_shape(v, src->rank, src->dims);
}

/* A name for a helper tensor or node: "LAYER/WHAT". The caller frees it. */
static char *sub_name(const char *layer, const char *what)
{
	size_t n = strlen(layer) + strlen(what) + 2;
	char *s = xmalloc(n);
	snprintf(s, n, "%s/%s", layer, what);
	return s;
}

/* An intermediate tensor of a layer that makes several nodes: "LAYER/WHAT". */
static struct tensor *temp_tensor(struct caffe *cf, const struct layer *l, const char *what,
                                  int rank, const int64_t *dims)
{
	char *name = sub_name(l->name, what);
	struct tensor *t = ir_new_tensor(cf->g, name, DTYPE_F32);
	free(name);
	ir_set_shape(t, rank, dims);
	return t;
}

static struct tensor *constant(struct caffe *cf, const struct layer *l, const char *what,
                               enum dtype dtype, int rank, const int64_t *dims, void *data)
{
	char *name = sub_name(l->name, what);
	struct tensor *t = ir_new_constant(cf->g, name, dtype, rank, dims, data);
	free(name);
	return t;
}

/* A float constant filled with one value. */
static struct tensor *constant_fill(struct caffe *cf, const struct layer *l, const char *what,
                                    int rank, const int64_t *dims, float value)
{
	int64_t n = 1;
	for (int i = 0; i < rank; i++)
		n *= dims[i];
	float *data = arena_alloc(&cf->g->arena, (size_t)n * sizeof *data);
	for (int64_t i = 0; i < n; i++)
		data[i] = value;
	return constant(cf, l, what, DTYPE_F32, rank, dims, data);
}

/* A node named after the layer (suffix NULL) or "LAYER/SUFFIX" for the extra
 * nodes one layer may need, made unique among node names. */
static struct node *add_node(struct caffe *cf, const struct layer *l, enum op op,
                             const char *suffix, int n_inputs, struct tensor *const *inputs,
                             struct tensor *output)
{
	char *base = suffix ? sub_name(l->name, suffix) : xstrdup(l->name);
	char *name = xmalloc(strlen(base) + 24);
	strcpy(name, base);
	for (int k = 1;; k++) {
		int taken = 0;
		for (int i = 0; i < cf->g->n_nodes && !taken; i++)
			taken = strcmp(cf->g->nodes[i]->name, name) == 0;
		if (!taken)
			break;
		sprintf(name, "%s_%d", base, k);
	}
	struct node *n = ir_add_node(cf->g, op, name, n_inputs, inputs, 1, &output);
	free(name);
	free(base);
	return n;
}

static void attr_int(struct caffe *cf, struct node *n, const char *name, int64_t v)
{
	ir_add_attr(cf->g, n, name, ATTR_INT)->i = v;
}

static void attr_float(struct caffe *cf, struct node *n, const char *name, double v)
{
	ir_add_attr(cf->g, n, name, ATTR_FLOAT)->f = v;
}

static void attr_ints(struct caffe *cf, struct node *n, const char *name, int count,
                      const int64_t *v)
{
	struct attr *a = ir_add_attr(cf->g, n, name, ATTR_INTS);
	a->n = count;
	a->ints = arena_memdup(&cf->g->arena, v, (size_t)count * sizeof *v);
}

/* Caffe's CanonicalAxisIndex: -rank <= axis < rank, negative from the end. */
static int canonical_axis(struct caffe *cf, int64_t axis, int rank, const char *what)
{
	if (axis < -rank || axis >= rank) {
		error_at(cf, NULL, "%s %" PRId64 " is out of range for a blob of %d axes", what, axis,
		         rank);
		return -1;
	}
	return (int)(axis < 0 ? axis + rank : axis);
}

/* ---- weights ---------------------------------------------------------------- */

/* splitmix64 (Steele, Lea, Flood: "Fast splittable pseudorandom number
 * generators", OOPSLA 2014): a tiny generator whose output depends only on
 * the seed, so --random-weights SEED gives the same weights everywhere. */
static uint64_t splitmix64(uint64_t *state)
{
	uint64_t z = (*state += 0x9E3779B97F4A7C15ull);
	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
	return z ^ (z >> 31);
}

static void random_fill(float *x, int64_t n, uint64_t seed, float lo, float hi)
{
	uint64_t state = seed;
	for (int64_t i = 0; i < n; i++) {
		float u = (float)(splitmix64(&state) >> 40) * (1.0f / 16777216.0f); /* [0, 1) */
		x[i] = lo + (hi - lo) * u;
	}
}

static struct weight_source *find_source(struct caffe *cf, const char *name)
{
	for (int i = 0; i < cf->n_sources; i++)
		if (strcmp(cf->sources[i].name, name) == 0)
			return &cf->sources[i];
	return NULL;
}

/* Caffe's Blob::ShapeEquals: a blob with legacy dimensions matches a shape
 * of at most 4 axes padded with leading 1s; otherwise the shapes are equal. */
static int blob_matches(const Caffe__BlobProto *b, const struct param_spec *s, char *found,
                        size_t size)
{
	if (b->has_num || b->has_channels || b->has_height || b->has_width) {
		int64_t legacy[4] = {b->num, b->channels, b->height, b->width};
		snprintf(found, size, "num %d, channels %d, height %d, width %d", b->num, b->channels,
		         b->height, b->width);
		if (s->rank > 4)
			return 0;
		for (int k = 0; k < 4; k++) {
			int axis = k - (4 - s->rank);
			if (legacy[k] != (axis >= 0 ? s->dims[axis] : 1))
				return 0;
		}
		return 1;
	}
	int rank = b->shape ? (int)b->shape->n_dim : 0;
	if (rank > IR_MAX_RANK)
		rank = IR_MAX_RANK;
	shape_str(found, size, rank, b->shape ? b->shape->dim : NULL);
	if (rank != s->rank)
		return 0;
	for (int k = 0; k < rank; k++)
		if (b->shape->dim[k] != s->dims[k])
			return 0;
	return 1;
}

/* The bytes of `rank` float dims, or UINT64_MAX when the product would pass
 * 2^62 (so no product below can overflow). */
static uint64_t float_bytes(int rank, const int64_t *dims)
{
	uint64_t n = sizeof(float);
	for (int k = 0; k < rank; k++) {
		if (dims[k] < 0)
			return UINT64_MAX;
		if (dims[k] && n > ((uint64_t)1 << 62) / (uint64_t)dims[k])
			return UINT64_MAX;
		n *= (uint64_t)dims[k];
	}
	return n;
}

static int64_t spec_numel(const struct param_spec *s)
{
	int64_t n = 1;
	for (int k = 0; k < s->rank; k++)
		n *= s->dims[k];
	return n;
}

/* Refuses a blob over --max-arena (one activation), so no later layer works
 * from (or multiplies up) its shape: its tensor is dropped after reporting. */
static void check_value_size(struct caffe *cf, struct value *v)
{
	char shape[256];
	uint64_t limit = pass_max_arena(cf->opt);
	if (!v->t)
		return;
	uint64_t bytes = float_bytes(v->rank, v->dims);
	if (bytes <= limit)
		return;
	char size[32] = "more than 2^62";
	if (bytes != UINT64_MAX)
		snprintf(size, sizeof size, "%" PRIu64, bytes);
	error_at(cf, NULL, "blob '%s' would have shape %s: %s bytes, over the activation limit of %"
	         PRIu64 " bytes (--max-arena MiB raises it)", v->blob,
	         shape_str(shape, sizeof shape, v->rank, v->dims), size, limit);
	v->t = NULL;
}

/* Refuses parameter blobs over --max-weights, each and all together, before
 * anything is allocated for them. Returns 0, or -1 after reporting. */
static int check_weight_sizes(struct caffe *cf, int n, const struct param_spec *specs)
{
	char shape[256];
	uint64_t limit = pass_max_weights(cf->opt);
	for (int i = 0; i < n; i++) {
		uint64_t bytes = float_bytes(specs[i].rank, specs[i].dims);
		shape_str(shape, sizeof shape, specs[i].rank, specs[i].dims);
		if (bytes > limit) {
			char size[32] = "more than 2^62";
			if (bytes != UINT64_MAX)
				snprintf(size, sizeof size, "%" PRIu64, bytes);
			error_at(cf, NULL, "the %s blob %s needs %s bytes, over the weights limit of %" PRIu64
			         " bytes (--max-weights MiB raises it)", specs[i].what, shape, size, limit);
			return -1;
		}
		if (bytes > limit - cf->weight_bytes) {
			error_at(cf, NULL, "the %s blob %s (%" PRIu64 " bytes) takes the weights to %" PRIu64
			         " bytes, over the limit of %" PRIu64 " bytes (--max-weights MiB raises it)",
			         specs[i].what, shape, bytes, cf->weight_bytes + bytes, limit);
			return -1;
		}
		cf->weight_bytes += bytes;
	}
	return 0;
}

/* Fills data[i] (arena) for each of the layer's n parameter blobs, from the
 * .caffemodel or from the random generator. Returns 0, or -1 after
 * reporting. */
static int layer_params(struct caffe *cf, struct layer *l, int n, const struct param_spec *specs,
                        float **data)
{
	char want[256], found[256];
	if (check_weight_sizes(cf, n, specs))
		return -1;
	if (!cf->model) {
		for (int i = 0; i < n; i++) {
			int64_t count = spec_numel(&specs[i]);
			data[i] = arena_alloc(&cf->g->arena, (size_t)count * sizeof(float));
			uint64_t seed = (uint64_t)cf->opt->random_seed * 0x100000001B3ull ^
			                ((uint64_t)l->index << 8 | (uint64_t)i);
			random_fill(data[i], count, seed, specs[i].lo, specs[i].hi);
		}
		return 0;
	}
	struct weight_source *src = find_source(cf, l->name);
	if (!src) {
		weights_error(cf, "no weights for this layer (no layer of that name in the file)");
		return -1;
	}
	src->used = 1;
	if (src->n_blobs != (size_t)n) {
		size_t k = 0;
		for (int i = 0; i < n && k < sizeof want; i++)
			k += snprintf(want + k, sizeof want - k, "%s%s", i ? ", " : "", specs[i].what);
		weights_error(cf, "%zu parameter blob%s in the file, expected %d (%s)", src->n_blobs,
		              src->n_blobs == 1 ? "" : "s", n, want);
		return -1;
	}
	for (int i = 0; i < n; i++) {
		const Caffe__BlobProto *b = src->blobs[i];
		const struct param_spec *s = &specs[i];
		if (!blob_matches(b, s, found, sizeof found)) {
			weights_error(cf, "blob %d (%s) has shape %s in the file, the prototxt implies %s",
			              i, s->what, found, shape_str(want, sizeof want, s->rank, s->dims));
			return -1;
		}
		int64_t count = spec_numel(s);
		data[i] = arena_alloc(&cf->g->arena, (size_t)count * sizeof(float));
		if (b->n_data == (size_t)count) {
			memcpy(data[i], b->data, (size_t)count * sizeof(float));
		} else if (b->n_data == 0 && b->n_double_data == (size_t)count) {
			for (int64_t k = 0; k < count; k++)
				data[i][k] = (float)b->double_data[k];
		} else {
			weights_error(cf, "blob %d (%s) holds %zu values, its shape %s needs %" PRId64, i,
			              s->what, b->n_data ? b->n_data : b->n_double_data,
			              shape_str(want, sizeof want, s->rank, s->dims), count);
			return -1;
		}
	}
	return 0;
}

/* Unpacks the .caffemodel bytes (the contents of the file path names) and
 * indexes its layers by name. */
static int load_caffemodel(struct caffe *cf, const char *path, const uint8_t *buf, size_t len)
{
	cf->model = caffe__net_parameter__unpack(NULL, len, buf);
	if (!cf->model) {
		diag_error(cf->d, NULL,
		           "%s is not a Caffe NetParameter in binary protobuf form (a .caffemodel); "
		           "protobuf-c could not parse it",
		           path);
		return -1;
	}
	Caffe__NetParameter *m = cf->model;
	cf->n_sources = (int)(m->n_layer + m->n_layers);
	cf->sources = xcalloc(cf->n_sources ? cf->n_sources : 1, sizeof *cf->sources);
	int k = 0;
	for (size_t i = 0; i < m->n_layer; i++, k++) {
		cf->sources[k].name = m->layer[i]->name ? m->layer[i]->name : "";
		cf->sources[k].n_blobs = m->layer[i]->n_blobs;
		cf->sources[k].blobs = m->layer[i]->blobs;
	}
	for (size_t i = 0; i < m->n_layers; i++, k++) {
		cf->sources[k].name = m->layers[i]->name ? m->layers[i]->name : "";
		cf->sources[k].n_blobs = m->layers[i]->n_blobs;
		cf->sources[k].blobs = m->layers[i]->blobs;
	}
	return 0;
}

/* Kaiming-uniform bound for ReLU nets (He et al., ICCV 2015): variance 2/fan_in. */
static float kaiming(int64_t fan_in)
{
	return sqrtf(6.0f / (float)(fan_in > 0 ? fan_in : 1));
}

/* ---- layers ------------------------------------------------------------------ */

/* Training-only fields of a layer message, accepted and ignored. */
static const char *const training_fields[] = {
	"param", "blobs_lr", "weight_decay", "loss_weight", "propagate_down", "phase", NULL,
};
/* ... and of parameter messages. */
static const char *const training_params[] = {
	"weight_filler", "bias_filler", "filler", "engine", "force_nd_im2col",
	"moving_average_fraction", "stable_prod_grad", NULL,
};

static int require_rank(struct caffe *cf, const struct value *v, int lo, int hi)
{
	if (v->rank >= lo && v->rank <= hi)
		return 0;
	char buf[128];
	if (lo == hi)
		error_at(cf, NULL, "bottom '%s' has shape %s (%d axes), expected %d axes", v->blob,
		         shape_str(buf, sizeof buf, v->rank, v->dims), v->rank, lo);
	else
		error_at(cf, NULL, "bottom '%s' has shape %s (%d axes), expected %d to %d axes", v->blob,
		         shape_str(buf, sizeof buf, v->rank, v->dims), v->rank, lo, hi);
	return -1;
}

/* Reads a spatial parameter given either as a repeated NAME (one value for
 * every spatial axis, or one per axis) or as BASE_h and BASE_w (2-D only),
 * e.g. kernel_size or kernel_h and kernel_w. Returns 1 when given, 0 when
 * absent (out keeps dflt), -1 on error. */
static int spatial_param(struct caffe *cf, struct ptx_message *p, const char *name,
                         const char *base, int nsp, int64_t dflt, int64_t *out)
{
	char hname[64], wname[64];
	snprintf(hname, sizeof hname, "%s_h", base);
	snprintf(wname, sizeof wname, "%s_w", base);
	for (int k = 0; k < nsp; k++)
		out[k] = dflt;
	int64_t v[IR_MAX_RANK];
	int n = get_uints(cf, p, name, v, IR_MAX_RANK);
	int has_hw = has_field(p, hname) || has_field(p, wname);
	if (n && has_hw) {
		error_at(cf, nth_field(p, hname, 0) ? nth_field(p, hname, 0) : nth_field(p, wname, 0),
		         "give either %s or %s and %s, not both", name, hname, wname);
		return -1;
	}
	if (has_hw) {
		if (nsp != 2) {
			error_at(cf, NULL, "%s and %s are for 2-D blobs only", hname, wname);
			return -1;
		}
		/* Caffe defaults a lone pad_h or pad_w's partner to 0; a kernel or
		 * stride needs both. */
		if ((!has_field(p, hname) || !has_field(p, wname)) && strcmp(base, "pad") != 0) {
			error_at(cf, NULL, "give both %s and %s", hname, wname);
			return -1;
		}
		out[0] = get_int(cf, p, hname, 0, 0, INT32_MAX);
		out[1] = get_int(cf, p, wname, 0, 0, INT32_MAX);
		return 1;
	}
	if (n == 0)
		return 0;
	if (n != 1 && n != nsp) {
		error_at(cf, nth_field(p, name, 0), "%s: %d values, expected 1 or %d (one per spatial axis)",
		         name, n, nsp);
		return -1;
	}
	for (int k = 0; k < nsp; k++)
		out[k] = v[n == 1 ? 0 : k];
	return 1;
}

static void build_input(struct caffe *cf, struct layer *l);

static void build_convolution(struct caffe *cf, struct layer *l)
{
	struct ptx_message *p = get_message(cf, l->msg, "convolution_param");
	accept_fields(p, training_params);
	struct value *x = in(cf, l, 0);
	if (require_rank(cf, x, 3, 4))
		return;
	int nsp = x->rank - 2;
	int64_t axis = get_int(cf, p, "axis", 1, INT32_MIN, INT32_MAX);
	if (canonical_axis(cf, axis, x->rank, "axis") != 1) {
		if (!l->failed)
			error_at(cf, NULL, "axis %" PRId64 ": only channels on axis 1 are supported", axis);
		return;
	}
	if (!has_field(p, "num_output")) {
		error_at(cf, NULL, "convolution_param.num_output is required");
		return;
	}
	int64_t M = get_int(cf, p, "num_output", 0, 1, INT32_MAX);
	int bias = get_bool(cf, p, "bias_term", 1);
	int64_t group = get_int(cf, p, "group", 1, 1, INT32_MAX);
	int64_t kernel[2], stride[2], pad[2], dilation[2];
	int has_kernel = spatial_param(cf, p, "kernel_size", "kernel", nsp, 0, kernel);
	if (has_kernel == 0)
		error_at(cf, NULL, "convolution_param: kernel_size (or kernel_h and kernel_w) is required");
	if (has_kernel <= 0 || spatial_param(cf, p, "stride", "stride", nsp, 1, stride) < 0 ||
	    spatial_param(cf, p, "pad", "pad", nsp, 0, pad) < 0)
		return;
	int64_t dv[IR_MAX_RANK];
	int nd = get_uints(cf, p, "dilation", dv, IR_MAX_RANK);
	if (nd != 0 && nd != 1 && nd != nsp) {
		error_at(cf, nth_field(p, "dilation", 0), "dilation: %d values, expected 1 or %d", nd, nsp);
		return;
	}
	for (int k = 0; k < nsp; k++)
		dilation[k] = nd == 0 ? 1 : dv[nd == 1 ? 0 : k];
	if (l->failed)
		return;
	int64_t C = x->dims[1];
	if (C % group || M % group) {
		error_at(cf, NULL,
		         "group %" PRId64 " must divide both the input channels (%" PRId64
		         ") and num_output (%" PRId64 ")",
		         group, C, M);
		return;
	}
	int64_t ydims[4] = {x->dims[0], M};
	for (int k = 0; k < nsp; k++) {
		if (kernel[k] < 1 || stride[k] < 1 || dilation[k] < 1) {
			error_at(cf, NULL, "kernel size, stride and dilation must be at least 1");
			return;
		}
		int64_t extent = dilation[k] * (kernel[k] - 1) + 1;
		int64_t span = x->dims[2 + k] + 2 * pad[k] - extent;
		if (span < 0) {
			error_at(cf, NULL,
			         "the kernel (extent %" PRId64 ") is larger than the padded input (%" PRId64
			         ")",
			         extent, x->dims[2 + k] + 2 * pad[k]);
			return;
		}
		ydims[2 + k] = span / stride[k] + 1;
	}
	struct param_spec specs[2] = {
		{"weights", 2 + nsp, {M, C / group, kernel[0], nsp == 2 ? kernel[1] : 0}, 0, 0},
		{"bias", 1, {M}, 0, 0},
	};
	int64_t fan_in = C / group * kernel[0] * (nsp == 2 ? kernel[1] : 1);
	specs[0].hi = kaiming(fan_in);
	specs[0].lo = -specs[0].hi;
	specs[1].hi = 1.0f / sqrtf((float)fan_in);
	specs[1].lo = -specs[1].hi;
	float *data[2];
	if (layer_params(cf, l, bias ? 2 : 1, specs, data) != 0)
		return;
	struct tensor *ins[3] = { /* X [N, C, H, W], W [M, C/group, kH, kW], B [M] */
		x->t,
		constant(cf, l, "weight", DTYPE_F32, specs[0].rank, specs[0].dims, data[0]),
		bias ? constant(cf, l, "bias", DTYPE_F32, 1, specs[1].dims, data[1]) : NULL,
	};
	struct tensor *y = top_tensor(cf, l, 0, x->rank, ydims); /* [N, M, oH, oW] */
	struct node *n = add_node(cf, l, OP_CONV, NULL, bias ? 3 : 2, ins, y);
	int64_t pads[4] = {pad[0], pad[nsp - 1], pad[0], pad[nsp - 1]};
	if (nsp == 1)
		pads[1] = pad[0];
	attr_ints(cf, n, "kernel_shape", nsp, kernel);
	attr_ints(cf, n, "strides", nsp, stride);
	attr_ints(cf, n, "pads", 2 * nsp, pads);
	attr_ints(cf, n, "dilations", nsp, dilation);
	attr_int(cf, n, "group", group);
}

static const struct enum_value pool_methods[] = {{"MAX", 0}, {"AVE", 1}, {"STOCHASTIC", 2}, {0}};
static const struct enum_value round_modes[] = {{"CEIL", 0}, {"FLOOR", 1}, {0}};

static void build_pooling(struct caffe *cf, struct layer *l)
{
	struct ptx_message *p = get_message(cf, l->msg, "pooling_param");
	accept_fields(p, training_params);
	struct value *x = in(cf, l, 0);
	if (require_rank(cf, x, 4, 4))
		return;
	int method = get_enum(cf, p, "pool", pool_methods, 0);
	int global = get_bool(cf, p, "global_pooling", 0);
	int round = get_enum(cf, p, "round_mode", round_modes, 0);
	int64_t kernel[2], stride[2], pad[2];
	int has_kernel = spatial_param(cf, p, "kernel_size", "kernel", 2, 0, kernel);
	int has_stride = spatial_param(cf, p, "stride", "stride", 2, 1, stride);
	int has_pad = spatial_param(cf, p, "pad", "pad", 2, 0, pad);
	if (has_kernel < 0 || has_stride < 0 || has_pad < 0 || l->failed)
		return;
	if (method == 2) {
		error_at(cf, nth_field(p, "pool", 0),
		         "pool: STOCHASTIC pooling is not supported (its test-time form weights "
		         "by activation; the IR has MAX and AVE pooling)");
		return;
	}
	if (global) {
		if (has_kernel) {
			error_at(cf, NULL, "global_pooling takes the whole input: give no kernel_size");
			return;
		}
		if (pad[0] || pad[1] || stride[0] != 1 || stride[1] != 1) {
			error_at(cf, NULL, "global_pooling needs pad 0 and stride 1");
			return;
		}
		int64_t ydims[4] = {x->dims[0], x->dims[1], 1, 1};
		struct tensor *y = top_tensor(cf, l, 0, 4, ydims); /* [N, C, 1, 1] */
		add_node(cf, l, method == 0 ? OP_GLOBAL_MAXPOOL : OP_GLOBAL_AVGPOOL, NULL, 1, &x->t, y);
		return;
	}
	if (!has_kernel) {
		error_at(cf, NULL,
		         "pooling_param: kernel_size (or kernel_h and kernel_w) is required unless "
		         "global_pooling is set");
		return;
	}
	int64_t ydims[4] = {x->dims[0], x->dims[1]};
	for (int k = 0; k < 2; k++) {
		int64_t H = x->dims[2 + k], K = kernel[k], S = stride[k], P = pad[k];
		if (K < 1 || S < 1) {
			error_at(cf, NULL, "kernel size and stride must be at least 1");
			return;
		}
		if (P >= K) {
			error_at(cf, NULL, "pad %" PRId64 " must be smaller than the kernel size %" PRId64
			         " (as Caffe requires)", P, K);
			return;
		}
		if (H + 2 * P < K) {
			error_at(cf, NULL, "the kernel (%" PRId64 ") is larger than the padded input (%" PRId64
			         ")", K, H + 2 * P);
			return;
		}
		/* Caffe's PoolingLayer::Reshape: ceil (or floor) of the window count,
		 * and when either axis is padded, no window may start in the end
		 * padding. */
		int64_t span = H + 2 * P - K;
		int64_t caffe_out = (round == 0 ? (span + S - 1) / S : span / S) + 1;
		if ((pad[0] || pad[1]) && (caffe_out - 1) * S >= H + P)
			caffe_out--;
		/* The IR (ceil_mode as PyTorch): the same count, always dropping a
		 * last window that starts in the end padding or beyond the input. */
		int64_t ir_out = (round == 0 ? (span + S - 1) / S : span / S) + 1;
		if ((ir_out - 1) * S >= H + P)
			ir_out--;
		if (ir_out != caffe_out) {
			error_at(cf, NULL,
			         "with kernel %" PRId64 " smaller than stride %" PRId64
			         " and no padding, Caffe's last window lies entirely outside the input "
			         "(%" PRId64 " outputs); the IR's pooling does not produce such windows",
			         K, S, caffe_out);
			return;
		}
		ydims[2 + k] = caffe_out;
	}
	struct tensor *y = top_tensor(cf, l, 0, 4, ydims); /* [N, C, oH, oW] */
	struct node *n = add_node(cf, l, method == 0 ? OP_MAXPOOL : OP_AVGPOOL, NULL, 1, &x->t, y);
	int64_t pads[4] = {pad[0], pad[1], pad[0], pad[1]};
	int64_t dilations[2] = {1, 1};
	attr_ints(cf, n, "kernel_shape", 2, kernel);
	attr_ints(cf, n, "strides", 2, stride);
	attr_ints(cf, n, "pads", 4, pads);
	attr_ints(cf, n, "dilations", 2, dilations);
	attr_int(cf, n, "ceil_mode", round == 0);
	if (method == 1)
		attr_int(cf, n, "count_include_pad", 1);
}

/* A Reshape of t to the given dims, as one extra node of layer l. */
/* y = Reshape(t) to y's shape, as an extra node "LAYER/SUFFIX" of layer l. */
static void reshape(struct caffe *cf, const struct layer *l, const char *suffix, struct tensor *t,
                    struct tensor *y)
{
	int64_t shape_dims[1] = {y->rank};
	int64_t *shape = arena_memdup(&cf->g->arena, y->dims, (size_t)y->rank * sizeof *y->dims);
	char *what = sub_name(suffix, "shape");
	struct tensor *ins[2] = {t, constant(cf, l, what, DTYPE_I64, 1, shape_dims, shape)};
	free(what);
	add_node(cf, l, OP_RESHAPE, suffix, 2, ins, y);
}

static void build_inner_product(struct caffe *cf, struct layer *l)
{
	struct ptx_message *p = get_message(cf, l->msg, "inner_product_param");
	accept_fields(p, training_params);
	struct value *x = in(cf, l, 0);
	if (!has_field(p, "num_output")) {
		error_at(cf, NULL, "inner_product_param.num_output is required");
		return;
	}
	int64_t N = get_int(cf, p, "num_output", 0, 1, INT32_MAX);
	int bias = get_bool(cf, p, "bias_term", 1);
	int transpose = get_bool(cf, p, "transpose", 0);
	int axis = canonical_axis(cf, get_int(cf, p, "axis", 1, INT32_MIN, INT32_MAX), x->rank, "axis");
	if (l->failed)
		return;
	if (axis < 1) {
		error_at(cf, NULL, "axis 0 (one inner product over the whole blob) is not supported");
		return;
	}
	int64_t M = 1, K = 1;
	for (int k = 0; k < axis; k++)
		M *= x->dims[k];
	for (int k = axis; k < x->rank; k++)
		K *= x->dims[k];
	struct param_spec specs[2] = {
		{"weights", 2, {transpose ? K : N, transpose ? N : K}, 0, 0},
		{"bias", 1, {N}, 0, 0},
	};
	specs[0].hi = kaiming(K);
	specs[0].lo = -specs[0].hi;
	specs[1].hi = 1.0f / sqrtf((float)K);
	specs[1].lo = -specs[1].hi;
	float *data[2];
	if (layer_params(cf, l, bias ? 2 : 1, specs, data) != 0)
		return;
	struct tensor *a = x->t; /* [d0, ..., dn] */
	if (x->rank != 2 || axis != 1) {
		int64_t fdims[2] = {M, K};
		struct tensor *flat = temp_tensor(cf, l, "flatten", 2, fdims); /* [d0 * ... * d(axis-1), K] */
		struct node *fl = add_node(cf, l, OP_FLATTEN, "flatten", 1, &a, flat);
		attr_int(cf, fl, "axis", axis);
		a = flat;
	}
	int64_t ydims[IR_MAX_RANK];
	for (int k = 0; k < axis; k++)
		ydims[k] = x->dims[k];
	ydims[axis] = N;
	struct tensor *ins[3] = { /* A [M, K], W [N, K] ([K, N] transposed), B [N] */
		a,
		constant(cf, l, "weight", DTYPE_F32, 2, specs[0].dims, data[0]),
		bias ? constant(cf, l, "bias", DTYPE_F32, 1, specs[1].dims, data[1]) : NULL,
	};
	struct tensor *y; /* [d0, ..., d(axis-1), N] */
	if (axis == 1) {
		y = top_tensor(cf, l, 0, 2, ydims);
	} else {
		int64_t gdims[2] = {M, N};
		y = temp_tensor(cf, l, "gemm", 2, gdims);
	}
	struct node *n = add_node(cf, l, OP_GEMM, axis == 1 ? NULL : "gemm", bias ? 3 : 2, ins, y);
	attr_float(cf, n, "alpha", 1.0);
	attr_float(cf, n, "beta", 1.0);
	attr_int(cf, n, "transA", 0);
	attr_int(cf, n, "transB", !transpose);
	if (axis != 1)
		reshape(cf, l, "reshape", y, top_tensor(cf, l, 0, axis + 1, ydims));
}

static void build_relu(struct caffe *cf, struct layer *l)
{
	struct ptx_message *p = get_message(cf, l->msg, "relu_param");
	accept_fields(p, training_params);
	double slope = get_float(cf, p, "negative_slope", 0.0);
	if (l->failed)
		return;
	struct value *x = in(cf, l, 0);
	struct tensor *y = top_tensor(cf, l, 0, x->rank, x->dims);
	if (slope == 0.0) {
		add_node(cf, l, OP_RELU, NULL, 1, &x->t, y);
	} else {
		struct node *n = add_node(cf, l, OP_LEAKY_RELU, NULL, 1, &x->t, y);
		attr_float(cf, n, "alpha", slope);
	}
}

static void build_unary(struct caffe *cf, struct layer *l, enum op op, const char *param)
{
	accept_fields(get_message(cf, l->msg, param), training_params);
	if (l->failed)
		return;
	struct value *x = in(cf, l, 0);
	add_node(cf, l, op, NULL, 1, &x->t, top_tensor(cf, l, 0, x->rank, x->dims));
}

static void build_sigmoid(struct caffe *cf, struct layer *l)
{
	build_unary(cf, l, OP_SIGMOID, "sigmoid_param");
}

static void build_tanh(struct caffe *cf, struct layer *l)
{
	build_unary(cf, l, OP_TANH, "tanh_param");
}

static const struct enum_value norm_regions[] = {
	{"ACROSS_CHANNELS", 0}, {"WITHIN_CHANNEL", 1}, {0}};

static void build_lrn(struct caffe *cf, struct layer *l)
{
	struct ptx_message *p = get_message(cf, l->msg, "lrn_param");
	accept_fields(p, training_params);
	struct value *x = in(cf, l, 0);
	if (require_rank(cf, x, 4, 4))
		return;
	int64_t size = get_int(cf, p, "local_size", 5, 1, INT32_MAX);
	double alpha = get_float(cf, p, "alpha", 1.0);
	double beta = get_float(cf, p, "beta", 0.75);
	double k = get_float(cf, p, "k", 1.0);
	int region = get_enum(cf, p, "norm_region", norm_regions, 0);
	if (l->failed)
		return;
	if (region != 0) {
		error_at(cf, nth_field(p, "norm_region", 0),
		         "norm_region WITHIN_CHANNEL is not supported: the IR's LRN (ONNX) "
		         "normalises across channels only");
		return;
	}
	if (size % 2 == 0) {
		error_at(cf, nth_field(p, "local_size", 0), "local_size %" PRId64 " must be odd (as Caffe "
		         "requires)", size);
		return;
	}
	struct node *n = add_node(cf, l, OP_LRN, NULL, 1, &x->t, top_tensor(cf, l, 0, 4, x->dims));
	attr_int(cf, n, "size", size);
	attr_float(cf, n, "alpha", alpha);
	attr_float(cf, n, "beta", beta);
	attr_float(cf, n, "bias", k);
}

static void build_concat(struct caffe *cf, struct layer *l)
{
	struct ptx_message *p = get_message(cf, l->msg, "concat_param");
	struct value *x0 = in(cf, l, 0);
	int axis;
	if (has_field(p, "concat_dim") && has_field(p, "axis")) {
		error_at(cf, nth_field(p, "axis", 0), "give either axis or concat_dim, not both");
		return;
	}
	if (has_field(p, "concat_dim"))
		axis = canonical_axis(cf, get_int(cf, p, "concat_dim", 1, 0, INT32_MAX), x0->rank,
		                      "concat_dim");
	else
		axis = canonical_axis(cf, get_int(cf, p, "axis", 1, INT32_MIN, INT32_MAX), x0->rank,
		                      "axis");
	if (l->failed)
		return;
	int64_t ydims[IR_MAX_RANK];
	for (int k = 0; k < x0->rank; k++)
		ydims[k] = x0->dims[k];
	/* [n_bottoms] tensors, their shapes equal outside axis */
	struct tensor **ins = xmalloc((size_t)l->n_bottoms * sizeof *ins);
	for (int i = 0; i < l->n_bottoms; i++) {
		struct value *x = in(cf, l, i);
		ins[i] = x->t;
		int same = x->rank == x0->rank;
		for (int k = 0; same && k < x0->rank; k++)
			same = k == axis || x->dims[k] == x0->dims[k];
		if (!same) {
			char a[128], b[128];
			error_at(cf, l->bottom_f[i],
			         "bottom '%s' has shape %s, which does not match %s of '%s' outside axis %d",
			         x->blob, shape_str(a, sizeof a, x->rank, x->dims),
			         shape_str(b, sizeof b, x0->rank, x0->dims), x0->blob, axis);
			free(ins);
			return;
		}
		if (i)
			ydims[axis] += x->dims[axis];
	}
	/* the bottoms' shape, their dims along axis summed */
	struct tensor *y = top_tensor(cf, l, 0, x0->rank, ydims);
	struct node *n = add_node(cf, l, OP_CONCAT, NULL, l->n_bottoms, ins, y);
	attr_int(cf, n, "axis", axis);
	free(ins);
}

static const struct enum_value eltwise_ops[] = {{"PROD", 0}, {"SUM", 1}, {"MAX", 2}, {0}};

static void build_eltwise(struct caffe *cf, struct layer *l)
{
	struct ptx_message *p = get_message(cf, l->msg, "eltwise_param");
	accept_fields(p, training_params);
	int op = get_enum(cf, p, "operation", eltwise_ops, 1);
	int n_coeff = count_fields(p, "coeff");
	if (l->failed)
		return;
	if (op == 2) {
		error_at(cf, nth_field(p, "operation", 0),
		         "operation MAX is not supported: the IR has no element-wise maximum "
		         "(ONNX Max), and rewriting it as b + Relu(a - b) would not be exact");
		return;
	}
	if (n_coeff && op != 1) {
		error_at(cf, nth_field(p, "coeff", 0), "coeff applies to the SUM operation only");
		return;
	}
	if (n_coeff && n_coeff != l->n_bottoms) {
		error_at(cf, nth_field(p, "coeff", 0), "%d coeff values for %d bottoms", n_coeff,
		         l->n_bottoms);
		return;
	}
	struct value *x0 = in(cf, l, 0);
	for (int i = 1; i < l->n_bottoms; i++) {
		struct value *x = in(cf, l, i);
		int same = x->rank == x0->rank;
		for (int k = 0; same && k < x->rank; k++)
			same = x->dims[k] == x0->dims[k];
		if (!same) {
			char a[128], b[128];
			error_at(cf, l->bottom_f[i], "bottom '%s' has shape %s, '%s' has %s: Eltwise needs equal shapes",
			         x->blob, shape_str(a, sizeof a, x->rank, x->dims), x0->blob,
			         shape_str(b, sizeof b, x0->rank, x0->dims));
			return;
		}
	}
	/* Each bottom, scaled by its coefficient when that is not 1. */
	/* [n_bottoms] tensors of the bottoms' common shape */
	struct tensor **terms = xmalloc((size_t)l->n_bottoms * sizeof *terms);
	for (int i = 0; i < l->n_bottoms; i++) {
		terms[i] = in(cf, l, i)->t;
		double c = 1.0;
		if (n_coeff && float_value(cf, nth_field(p, "coeff", i), &c) != 0) {
			free(terms);
			return;
		}
		if (c == 1.0)
			continue;
		char what[32];
		snprintf(what, sizeof what, "coeff%d", i);
		int64_t one = 1;
		struct tensor *ins[2] = {terms[i], constant_fill(cf, l, what, 1, &one, (float)c)};
		snprintf(what, sizeof what, "scaled%d", i);
		terms[i] = temp_tensor(cf, l, what, x0->rank, x0->dims);
		add_node(cf, l, OP_MUL, what, 2, ins, terms[i]);
	}
	/* Left to right, as Caffe accumulates. */
	struct tensor *acc = terms[0];
	for (int i = 1; i < l->n_bottoms; i++) {
		struct tensor *y;
		char what[32];
		snprintf(what, sizeof what, "%s%d", op == 1 ? "add" : "mul", i);
		if (i == l->n_bottoms - 1) {
			y = top_tensor(cf, l, 0, x0->rank, x0->dims);
		} else {
			y = temp_tensor(cf, l, what, x0->rank, x0->dims);
		}
		struct tensor *ins[2] = {acc, terms[i]};
		add_node(cf, l, op == 1 ? OP_ADD : OP_MUL, i == l->n_bottoms - 1 ? NULL : what, 2, ins, y);
		acc = y;
	}
	if (l->n_bottoms == 1) {
		/* A single bottom: the (scaled) input itself. */
		if (acc == x0->t) {
			alias_top(cf, l, 0, 0);
		} else {
			out(cf, l, 0)->t = acc;
			set_shape(out(cf, l, 0), x0->rank, x0->dims);
		}
	}
	free(terms);
}

/* The Scale that reads a BatchNorm's output and nothing else does, with one
 * channel-wise parameter (axis 1, num_axes 1): folded into the BatchNorm. */
static struct layer *foldable_scale(struct caffe *cf, struct layer *bn)
{
	struct value *v = out(cf, bn, 0);
	if (v->uses != 1)
		return NULL;
	struct layer *sc = &cf->layers[v->reader];
	if (strcmp(sc->type, "Scale") != 0 || sc->n_bottoms != 1 || sc->failed)
		return NULL;
	struct ptx_message *p = NULL;
	for (int i = 0; i < sc->msg->n_fields; i++)
		if (strcmp(sc->msg->fields[i].name, "scale_param") == 0)
			p = sc->msg->fields[i].kind == PTX_MESSAGE ? sc->msg->fields[i].msg : NULL;
	static const char *const names[] = {"axis", "num_axes"};
	for (int k = 0; k < 2; k++) {
		int n = count_fields(p, names[k]);
		if (n > 1)
			return NULL;
		if (n == 1) {
			struct ptx_field *f = NULL;
			for (int i = 0; i < p->n_fields; i++)
				if (strcmp(p->fields[i].name, names[k]) == 0)
					f = &p->fields[i];
			if (f->kind != PTX_NUMBER || strcmp(f->text, "1") != 0)
				return NULL;
		}
	}
	return sc;
}

static void build_batchnorm(struct caffe *cf, struct layer *l)
{
	struct ptx_message *p = get_message(cf, l->msg, "batch_norm_param");
	accept_fields(p, training_params);
	struct value *x = in(cf, l, 0);
	if (require_rank(cf, x, 2, IR_MAX_RANK))
		return;
	int global = get_bool(cf, p, "use_global_stats", 1);
	double eps = get_float(cf, p, "eps", 1e-5);
	if (l->failed)
		return;
	if (!global) {
		error_at(cf, nth_field(p, "use_global_stats", 0),
		         "use_global_stats: false normalises with the statistics of each batch; "
		         "only inference with the stored statistics is supported");
		return;
	}
	int64_t C = x->dims[1];
	struct param_spec specs[3] = {
		{"mean", 1, {C}, -0.1f, 0.1f},
		{"variance", 1, {C}, 0.5f, 1.5f},
		{"moving-average factor", 1, {1}, 1.0f, 1.0f},
	};
	float *stats[3];
	if (layer_params(cf, l, 3, specs, stats) != 0)
		return;
	/* Caffe's BatchNormLayer::Forward_cpu: the stored sums are scaled by
	 * 1 / factor, and a zero factor means zero statistics. */
	float factor = stats[2][0] == 0.0f ? 0.0f : 1.0f / stats[2][0];
	for (int64_t c = 0; c < C; c++) {
		stats[0][c] *= factor;
		stats[1][c] *= factor;
	}
	/* scale and B: from a Scale folded in, else 1 and 0. */
	float *gamma = NULL, *beta = NULL;
	struct layer *sc = foldable_scale(cf, l);
	if (sc) {
		struct layer *saved = cf->cur;
		cf->cur = sc;
		struct ptx_message *sp = get_message(cf, sc->msg, "scale_param");
		accept_fields(sp, training_params);
		get_int(cf, sp, "axis", 1, 1, 1);
		get_int(cf, sp, "num_axes", 1, 1, 1);
		int bias = get_bool(cf, sp, "bias_term", 0);
		struct param_spec sspecs[2] = {
			{"scale", 1, {C}, 0.5f, 1.5f},
			{"bias", 1, {C}, -0.1f, 0.1f},
		};
		float *sdata[2] = {NULL, NULL};
		if (!sc->failed && layer_params(cf, sc, bias ? 2 : 1, sspecs, sdata) == 0) {
			gamma = sdata[0];
			beta = bias ? sdata[1] : NULL;
			sc->folded = 1;
		}
		cf->cur = saved;
		if (sc->failed)
			return;
	}
	int64_t cdims[1] = {C};
	struct tensor *ins[5] = { /* X [N, C, ...], scale, B, mean, var [C] */
		x->t,
		gamma ? constant(cf, l, "scale", DTYPE_F32, 1, cdims, gamma)
		      : constant_fill(cf, l, "scale", 1, cdims, 1.0f),
		beta ? constant(cf, l, "shift", DTYPE_F32, 1, cdims, beta)
		     : constant_fill(cf, l, "shift", 1, cdims, 0.0f),
		constant(cf, l, "mean", DTYPE_F32, 1, cdims, stats[0]),
		constant(cf, l, "var", DTYPE_F32, 1, cdims, stats[1]),
	};
	struct node *n = add_node(cf, l, OP_BATCHNORM, NULL, 5, ins,
	                          top_tensor(cf, l, 0, x->rank, x->dims));
	attr_float(cf, n, "epsilon", eps);
}

static void build_scale(struct caffe *cf, struct layer *l)
{
	if (l->folded) {
		alias_top(cf, l, 0, 0);
		return;
	}
	if (l->n_bottoms != 1) {
		error_at(cf, NULL, "a Scale with its factor from a second bottom is not supported");
		return;
	}
	struct ptx_message *p = get_message(cf, l->msg, "scale_param");
	accept_fields(p, training_params);
	struct value *x = in(cf, l, 0);
	int axis = canonical_axis(cf, get_int(cf, p, "axis", 1, INT32_MIN, INT32_MAX), x->rank,
	                          "axis");
	int64_t num_axes = get_int(cf, p, "num_axes", 1, -1, IR_MAX_RANK);
	int bias = get_bool(cf, p, "bias_term", 0);
	if (l->failed)
		return;
	if (num_axes == -1)
		num_axes = x->rank - axis;
	if (axis + num_axes > x->rank) {
		error_at(cf, NULL, "axis %d with num_axes %" PRId64 " goes beyond the %d axes of '%s'",
		         axis, num_axes, x->rank, x->blob);
		return;
	}
	/* The parameter covers dims[axis, axis + num_axes); as a constant it gets
	 * trailing 1s so that ONNX broadcasting lines it up with those axes. */
	struct param_spec specs[2] = {{"scale", (int)num_axes, {0}, 0.5f, 1.5f},
	                              {"bias", (int)num_axes, {0}, -0.1f, 0.1f}};
	if (num_axes > 4) {
		error_at(cf, NULL, "num_axes %" PRId64 " is more than 4", num_axes);
		return;
	}
	int64_t cdims[IR_MAX_RANK];
	int crank = x->rank - axis;
	for (int k = 0; k < crank; k++)
		cdims[k] = k < num_axes ? x->dims[axis + k] : 1;
	for (int k = 0; k < num_axes; k++)
		specs[0].dims[k] = specs[1].dims[k] = x->dims[axis + k];
	float *data[2];
	if (layer_params(cf, l, bias ? 2 : 1, specs, data) != 0)
		return;
	struct tensor *ins[2] = {x->t, constant(cf, l, "scale", DTYPE_F32, crank, cdims, data[0])};
	struct tensor *y; /* the bottom's shape */
	if (bias) {
		y = temp_tensor(cf, l, "mul", x->rank, x->dims);
	} else {
		y = top_tensor(cf, l, 0, x->rank, x->dims);
	}
	add_node(cf, l, OP_MUL, bias ? "mul" : NULL, 2, ins, y);
	if (bias) {
		struct tensor *ins2[2] = {y, constant(cf, l, "bias", DTYPE_F32, crank, cdims, data[1])};
		add_node(cf, l, OP_ADD, NULL, 2, ins2, top_tensor(cf, l, 0, x->rank, x->dims));
	}
}

static void build_dropout(struct caffe *cf, struct layer *l)
{
	/* At test time Caffe's Dropout passes its input through (it scales
	 * during training instead: scale_train defaults to true). */
	struct ptx_message *p = get_message(cf, l->msg, "dropout_param");
	static const char *const ignored[] = {"dropout_ratio", NULL};
	accept_fields(p, ignored);
	if (!get_bool(cf, p, "scale_train", 1)) {
		error_at(cf, nth_field(p, "scale_train", 0),
		         "scale_train: false scales by the keep ratio at test time; not supported");
		return;
	}
	alias_top(cf, l, 0, 0);
}

static void build_split(struct caffe *cf, struct layer *l)
{
	for (int i = 0; i < l->n_tops; i++)
		alias_top(cf, l, i, 0);
}

static void build_softmax(struct caffe *cf, struct layer *l)
{
	struct ptx_message *p = get_message(cf, l->msg, "softmax_param");
	accept_fields(p, training_params);
	struct value *x = in(cf, l, 0);
	int axis = canonical_axis(cf, get_int(cf, p, "axis", 1, INT32_MIN, INT32_MAX), x->rank,
	                          "axis");
	if (l->failed)
		return;
	struct node *n = add_node(cf, l, OP_SOFTMAX, NULL, 1, &x->t,
	                          top_tensor(cf, l, 0, x->rank, x->dims));
	attr_int(cf, n, "axis", axis);
}

static void build_flatten(struct caffe *cf, struct layer *l)
{
	struct ptx_message *p = get_message(cf, l->msg, "flatten_param");
	struct value *x = in(cf, l, 0);
	int axis = canonical_axis(cf, get_int(cf, p, "axis", 1, INT32_MIN, INT32_MAX), x->rank,
	                          "axis");
	int end = canonical_axis(cf, get_int(cf, p, "end_axis", -1, INT32_MIN, INT32_MAX), x->rank,
	                         "end_axis");
	if (l->failed)
		return;
	if (end < axis) {
		error_at(cf, NULL, "end_axis %d comes before axis %d", end, axis);
		return;
	}
	/* Caffe keeps the axes outside [axis, end_axis] and multiplies the rest. */
	int64_t ydims[IR_MAX_RANK];
	int rank = 0;
	for (int k = 0; k < axis; k++)
		ydims[rank++] = x->dims[k];
	int64_t prod = 1;
	for (int k = axis; k <= end; k++)
		prod *= x->dims[k];
	ydims[rank++] = prod;
	for (int k = end + 1; k < x->rank; k++)
		ydims[rank++] = x->dims[k];
	struct tensor *y = top_tensor(cf, l, 0, rank, ydims);
	if (axis == 1 && end == x->rank - 1) {
		struct node *n = add_node(cf, l, OP_FLATTEN, NULL, 1, &x->t, y);
		attr_int(cf, n, "axis", 1);
	} else {
		reshape(cf, l, "reshape", x->t, y);
	}
}

/* Layer kinds: the Caffe type, its V1 enum, the bottoms and tops it takes
 * (-1: any number from the minimum), and its translation. */
struct layer_kind {
	const char *type;
	const char *v1;
	int min_bottoms, max_bottoms;
	int min_tops, max_tops;
	void (*build)(struct caffe *, struct layer *);
};

static const struct layer_kind layer_kinds[] = {
	{"Input", NULL, 0, 0, 1, -1, build_input},
	{"Convolution", "CONVOLUTION", 1, 1, 1, 1, build_convolution},
	{"Pooling", "POOLING", 1, 1, 1, 1, build_pooling},
	{"InnerProduct", "INNER_PRODUCT", 1, 1, 1, 1, build_inner_product},
	{"ReLU", "RELU", 1, 1, 1, 1, build_relu},
	{"Sigmoid", "SIGMOID", 1, 1, 1, 1, build_sigmoid},
	{"TanH", "TANH", 1, 1, 1, 1, build_tanh},
	{"LRN", "LRN", 1, 1, 1, 1, build_lrn},
	{"Concat", "CONCAT", 1, -1, 1, 1, build_concat},
	{"Eltwise", "ELTWISE", 1, -1, 1, 1, build_eltwise},
	{"BatchNorm", NULL, 1, 1, 1, 1, build_batchnorm},
	{"Scale", NULL, 1, 2, 1, 1, build_scale},
	{"Dropout", "DROPOUT", 1, 1, 1, 1, build_dropout},
	{"Softmax", "SOFTMAX", 1, 1, 1, 1, build_softmax},
	{"Flatten", "FLATTEN", 1, 1, 1, 1, build_flatten},
	{"Split", "SPLIT", 1, 1, 1, -1, build_split},
};
#define N_LAYER_KINDS ((int)(sizeof layer_kinds / sizeof layer_kinds[0]))

/* V1LayerParameter.LayerType: enum name, number, and the V2 type name. */
static const struct {
	const char *name;
	int value;
	const char *type;
} v1_types[] = {
	{"NONE", 0, "None"}, {"ABSVAL", 35, "AbsVal"}, {"ACCURACY", 1, "Accuracy"},
	{"ARGMAX", 30, "ArgMax"}, {"BNLL", 2, "BNLL"}, {"CONCAT", 3, "Concat"},
	{"CONTRASTIVE_LOSS", 37, "ContrastiveLoss"}, {"CONVOLUTION", 4, "Convolution"},
	{"DATA", 5, "Data"}, {"DECONVOLUTION", 39, "Deconvolution"}, {"DROPOUT", 6, "Dropout"},
	{"DUMMY_DATA", 32, "DummyData"}, {"EUCLIDEAN_LOSS", 7, "EuclideanLoss"},
	{"ELTWISE", 25, "Eltwise"}, {"EXP", 38, "Exp"}, {"FLATTEN", 8, "Flatten"},
	{"HDF5_DATA", 9, "HDF5Data"}, {"HDF5_OUTPUT", 10, "HDF5Output"},
	{"HINGE_LOSS", 28, "HingeLoss"}, {"IM2COL", 11, "Im2col"}, {"IMAGE_DATA", 12, "ImageData"},
	{"INFOGAIN_LOSS", 13, "InfogainLoss"}, {"INNER_PRODUCT", 14, "InnerProduct"},
	{"LRN", 15, "LRN"}, {"MEMORY_DATA", 29, "MemoryData"},
	{"MULTINOMIAL_LOGISTIC_LOSS", 16, "MultinomialLogisticLoss"}, {"MVN", 34, "MVN"},
	{"POOLING", 17, "Pooling"}, {"POWER", 26, "Power"}, {"RELU", 18, "ReLU"},
	{"SIGMOID", 19, "Sigmoid"}, {"SIGMOID_CROSS_ENTROPY_LOSS", 27, "SigmoidCrossEntropyLoss"},
	{"SILENCE", 36, "Silence"}, {"SOFTMAX", 20, "Softmax"}, {"SOFTMAX_LOSS", 21, "SoftmaxWithLoss"},
	{"SPLIT", 22, "Split"}, {"SLICE", 33, "Slice"}, {"TANH", 23, "TanH"},
	{"WINDOW_DATA", 24, "WindowData"}, {"THRESHOLD", 31, "Threshold"},
};

static const struct layer_kind *find_kind(const char *type)
{
	for (int i = 0; i < N_LAYER_KINDS; i++)
		if (strcmp(layer_kinds[i].type, type) == 0)
			return &layer_kinds[i];
	return NULL;
}

/* Types that appear in training definitions only. */
static int is_training_type(const char *type)
{
	static const char *const suffixes[] = {"Data", "Loss", NULL};
	if (strcmp(type, "Accuracy") == 0 || strcmp(type, "Silence") == 0)
		return 1;
	size_t n = strlen(type);
	for (int i = 0; suffixes[i]; i++) {
		size_t m = strlen(suffixes[i]);
		if (n >= m && strcmp(type + n - m, suffixes[i]) == 0)
			return 1;
	}
	return 0;
}

/* ---- inputs -------------------------------------------------------------- */

/* Declares a graph input for value vi with its shape, after --batch and
 * --shape. */
static void make_input(struct caffe *cf, int vi, int rank, int64_t *dims)
{
	struct value *v = &cf->values[vi];
	for (int i = 0; i < cf->opt->n_shapes; i++) {
		const struct shape_override *s = &cf->opt->shapes[i];
		if (strcmp(s->input, v->blob) == 0) {
			rank = s->rank;
			memcpy(dims, s->dims, (size_t)rank * sizeof *dims);
		}
	}
	if (cf->opt->batch > 0)
		dims[0] = cf->opt->batch;
	v->t = ir_new_tensor(cf->g, v->blob, DTYPE_F32);
	v->t->is_input = 1;
	ir_set_shape(v->t, rank, dims);
	set_shape(v, rank, dims);
}

static void build_input(struct caffe *cf, struct layer *l)
{
	struct ptx_message *p = get_message(cf, l->msg, "input_param");
	int n = count_fields(p, "shape");
	if (n == 0) {
		error_at(cf, NULL, "input_param { shape { dim: ... } } is required: dnncc compiles for "
		                   "fixed input shapes");
		return;
	}
	if (n != 1 && n != l->n_tops) {
		error_at(cf, nth_field(p, "shape", 0), "%d shapes for %d tops: give one, or one per top",
		         n, l->n_tops);
		return;
	}
	for (int i = 0; i < l->n_tops; i++) {
		int64_t dims[IR_MAX_RANK];
		int rank = blob_shape(cf, nth_field(p, "shape", n == 1 ? 0 : i), dims);
		if (rank < 0)
			return;
		make_input(cf, l->tops[i], rank, dims);
	}
}

/* The deprecated net-level declarations: input: + input_shape or input_dim.
 * Every named input gets a value, so a bad shape is reported once and not
 * again by each layer reading the input. */
static void net_inputs(struct caffe *cf)
{
	struct ptx_message *net = cf->net;
	int n = count_fields(net, "input");
	int n_shape = count_fields(net, "input_shape");
	int n_dim = count_fields(net, "input_dim");
	int first = cf->n_values;
	for (int i = 0; i < n; i++) {
		const char *name = string_value(cf, nth_field(net, "input", i));
		new_value(cf, name ? name : "?", -1);
	}
	if (n == 0) {
		if (n_shape || n_dim)
			error_at(cf, nth_field(net, n_shape ? "input_shape" : "input_dim", 0),
			         "input shapes without an input: name");
		return;
	}
	if (n_shape && n_dim) {
		error_at(cf, nth_field(net, "input_dim", 0), "give either input_shape or input_dim, not both");
		return;
	}
	if (n_shape && n_shape != n) {
		error_at(cf, nth_field(net, "input_shape", 0), "%d input_shape for %d inputs", n_shape, n);
		return;
	}
	if (!n_shape && n_dim != 4 * n) {
		error_at(cf, n_dim ? nth_field(net, "input_dim", 0) : nth_field(net, "input", 0),
		         "%d input_dim values for %d input%s: give four (num, channels, height, width) "
		         "per input, or an input_shape",
		         n_dim, n, n == 1 ? "" : "s");
		return;
	}
	for (int i = 0; i < n; i++) {
		int64_t dims[IR_MAX_RANK];
		int rank = 4;
		if (n_shape) {
			rank = blob_shape(cf, nth_field(net, "input_shape", i), dims);
			if (rank < 0)
				continue;
		} else {
			int bad = 0;
			for (int k = 0; k < 4 && !bad; k++)
				bad = int_value(cf, nth_field(net, "input_dim", 4 * i + k), 1, INT32_MAX,
				                &dims[k]) != 0;
			if (bad)
				continue;
		}
		make_input(cf, first + i, rank, dims);
	}
}

/* ---- the net --------------------------------------------------------------- */

static const struct enum_value phases[] = {{"TRAIN", 0}, {"TEST", 1}, {0}};

/* Caffe's StateMeetsRule for the inference state: phase TEST, level 0, no
 * stages. */
static int rule_met(struct caffe *cf, struct ptx_field *rule)
{
	if (rule->kind != PTX_MESSAGE) {
		error_at(cf, rule, "%s: expected a rule { phase: ... }", rule->name);
		return 0;
	}
	struct ptx_message *r = rule->msg;
	int met = 1;
	if (has_field(r, "phase") && get_enum(cf, r, "phase", phases, 1) != 1)
		met = 0;
	if (has_field(r, "min_level") && get_int(cf, r, "min_level", 0, INT32_MIN, INT32_MAX) > 0)
		met = 0;
	if (has_field(r, "max_level") && get_int(cf, r, "max_level", 0, INT32_MIN, INT32_MAX) < 0)
		met = 0;
	if (has_field(r, "stage"))
		met = 0;
	mark_all_used(r);
	return met;
}

static int included(struct caffe *cf, struct layer *l)
{
	int n_inc = count_fields(l->msg, "include"), n_exc = count_fields(l->msg, "exclude");
	if (n_inc && n_exc) {
		error_at(cf, nth_field(l->msg, "exclude", 0), "give include or exclude rules, not both");
		return 1;
	}
	if (n_inc) {
		int any = 0;
		for (int k = 0; k < n_inc; k++)
			any |= rule_met(cf, nth_field(l->msg, "include", k));
		return any;
	}
	for (int k = 0; k < n_exc; k++)
		if (rule_met(cf, nth_field(l->msg, "exclude", k)))
			return 0;
	return 1;
}

/* The layer's type: a string in layer { }, an enum in V1 layers { }. */
static const char *layer_type(struct caffe *cf, struct layer *l, int v1)
{
	struct ptx_field *f = optional_field(cf, l->msg, "type");
	if (!f) {
		error_at(cf, NULL, "the layer has no type");
		return NULL;
	}
	if (!v1)
		return string_value(cf, f);
	if (f->kind == PTX_IDENT || f->kind == PTX_NUMBER) {
		for (size_t i = 0; i < sizeof v1_types / sizeof v1_types[0]; i++)
			if (f->kind == PTX_IDENT ? strcmp(f->text, v1_types[i].name) == 0
			                         : strtol(f->text, NULL, 0) == v1_types[i].value)
				return v1_types[i].type;
		error_at(cf, f, "type: unknown V1 layer type '%s'", f->text);
		return NULL;
	}
	error_at(cf, f, "type: a V1 layers { } entry takes an enum (e.g. CONVOLUTION), found %s",
	         kind_name(f->kind));
	return NULL;
}

/* Reads the layer list, skipping layers the TEST phase excludes. */
static void read_layers(struct caffe *cf)
{
	struct ptx_message *net = cf->net;
	int n_new = count_fields(net, "layer"), n_v1 = count_fields(net, "layers");
	if (n_new && n_v1) {
		error_at(cf, nth_field(net, "layers", 0),
		         "the file mixes layer { } and the deprecated layers { }: use one style");
		return;
	}
	int v1 = n_v1 > 0;
	int n = v1 ? n_v1 : n_new;
	cf->layers = xcalloc(n ? n : 1, sizeof *cf->layers);
	for (int k = 0; k < n; k++) {
		struct ptx_field *f = nth_field(net, v1 ? "layers" : "layer", k);
		struct layer *l = &cf->layers[cf->n_layers];
		memset(l, 0, sizeof *l);
		l->field = f;
		l->name = "?";
		l->type = "?";
		if (f->kind != PTX_MESSAGE) {
			error_at(cf, f, "%s: expected a message { ... }", f->name);
			continue;
		}
		l->msg = f->msg;
		cf->cur = l;
		if (v1 && has_field(l->msg, "layer")) {
			error_at(cf, nth_field(l->msg, "layer", 0),
			         "the V0 format (layers { layer { ... } }) is not supported: upgrade the "
			         "file with Caffe's upgrade_net_proto_text");
			mark_all_used(l->msg);
			cf->cur = NULL;
			continue;
		}
		const char *name = get_string(cf, l->msg, "name", NULL);
		if (name)
			l->name = name;
		else if (!l->failed)
			error_at(cf, NULL, "the layer has no name (weights are matched by name)");
		const char *type = layer_type(cf, l, v1);
		if (type)
			l->type = type;
		accept_fields(l->msg, training_fields);
		if (!included(cf, l)) {
			mark_all_used(l->msg);
			cf->cur = NULL;
			continue;
		}
		for (int i = 0; i < cf->n_layers && name; i++)
			if (strcmp(cf->layers[i].name, name) == 0) {
				error_at(cf, nth_field(l->msg, "name", 0),
				         "a layer of this name already exists (line %d)",
				         cf->layers[i].field->line);
				break;
			}
		l->n_bottoms = count_fields(l->msg, "bottom");
		l->n_tops = count_fields(l->msg, "top");
		l->bottom_f = xcalloc(l->n_bottoms + 1, sizeof *l->bottom_f);
		l->top_f = xcalloc(l->n_tops + 1, sizeof *l->top_f);
		l->bottoms = xcalloc(l->n_bottoms + 1, sizeof *l->bottoms);
		l->tops = xcalloc(l->n_tops + 1, sizeof *l->tops);
		for (int i = 0; i < l->n_bottoms; i++)
			l->bottom_f[i] = nth_field(l->msg, "bottom", i);
		for (int i = 0; i < l->n_tops; i++)
			l->top_f[i] = nth_field(l->msg, "top", i);
		l->index = cf->n_layers++;
		cf->cur = NULL;
	}
}

/* Connects bottoms and tops to values (see the file comment), checking the
 * counts each type takes. */
static void resolve(struct caffe *cf)
{
	/* binding: the latest value of each blob name, searched from the end. */
	for (int li = 0; li < cf->n_layers; li++) {
		struct layer *l = &cf->layers[li];
		cf->cur = l;
		const struct layer_kind *kind = find_kind(l->type);
		if (!l->failed && !kind) {
			if (is_training_type(l->type))
				error_at(cf, NULL,
				         "layer type %s belongs in a training definition: compile the "
				         "deploy.prototxt",
				         l->type);
			else
				error_at(cf, NULL,
				         "layer type %s is not supported (supported: Input, Convolution, "
				         "Pooling, InnerProduct, ReLU, Sigmoid, TanH, LRN, Concat, Eltwise, "
				         "BatchNorm, Scale, Dropout, Softmax, Flatten, Split)",
				         l->type);
		}
		if (kind && !l->failed) {
			if (l->n_bottoms < kind->min_bottoms ||
			    (kind->max_bottoms >= 0 && l->n_bottoms > kind->max_bottoms))
				error_at(cf, NULL, "%d bottom%s, expected %d%s", l->n_bottoms,
				         l->n_bottoms == 1 ? "" : "s", kind->min_bottoms,
				         kind->max_bottoms < 0 ? " or more"
				         : kind->max_bottoms > kind->min_bottoms ? " or 2" : "");
			else if (l->n_tops < kind->min_tops ||
			         (kind->max_tops >= 0 && l->n_tops > kind->max_tops))
				error_at(cf, NULL, "%d top%s, expected %d%s", l->n_tops,
				         l->n_tops == 1 ? "" : "s", kind->min_tops,
				         kind->max_tops < 0 ? " or more" : "");
		}
		const char **bnames = xcalloc(l->n_bottoms + 1, sizeof *bnames);
		for (int i = 0; i < l->n_bottoms; i++) {
			const char *b = string_value(cf, l->bottom_f[i]);
			bnames[i] = b;
			int vi = -1;
			for (int k = cf->n_values - 1; b && k >= 0 && vi < 0; k--)
				if (cf->values[k].writer != -2 && strcmp(cf->values[k].blob, b) == 0)
					vi = k;
			if (b && vi < 0)
				error_at(cf, l->bottom_f[i],
				         "bottom '%s' is not an input and no earlier layer writes it", b);
			if (vi < 0) {
				/* A placeholder value so the layer can be skipped cleanly. */
				vi = new_value(cf, b ? b : "?", -2);
			}
			l->bottoms[i] = vi;
			cf->values[vi].uses++;
			cf->values[vi].reader = li;
		}
		for (int i = 0; i < l->n_tops; i++) {
			const char *t = string_value(cf, l->top_f[i]);
			int prev = -1;
			for (int k = cf->n_values - 1; t && k >= 0 && prev < 0; k--)
				if (cf->values[k].writer != -2 && strcmp(cf->values[k].blob, t) == 0)
					prev = k;
			int in_place = t && i < l->n_bottoms && bnames[i] && strcmp(bnames[i], t) == 0;
			if (prev >= 0 && !in_place) {
				const struct value *pv = &cf->values[prev];
				error_at(cf, l->top_f[i],
				         "top '%s' is already written by %s%s%s: Caffe rewrites a blob only in "
				         "place (top %d equal to bottom %d)",
				         t, pv->writer >= 0 ? "layer '" : "the net input",
				         pv->writer >= 0 ? cf->layers[pv->writer].name : "",
				         pv->writer >= 0 ? "'" : "", i, i);
			}
			int vi = new_value(cf, t ? t : "?", li);
			cf->values[vi].rewrite = prev >= 0;
			l->tops[i] = vi;
		}
		free(bnames);
		cf->cur = NULL;
	}
}

/* Warns about every field nothing read; a whole unread message once. Fields
 * of a layer are named from the layer down ("convolution_param.foo"). */
static void warn_unused(struct caffe *cf, struct ptx_message *m, const char *path)
{
	for (int i = 0; m && i < m->n_fields; i++) {
		struct ptx_field *f = &m->fields[i];
		if (!f->used) {
			warning_at(cf, cf->path, f, "field '%s%s%s' is not used", path, *path ? "." : "",
			           f->name);
			continue;
		}
		if (f->kind != PTX_MESSAGE)
			continue;
		struct layer *l = NULL;
		for (int k = 0; m == cf->net && k < cf->n_layers && !l; k++)
			if (cf->layers[k].field == f)
				l = &cf->layers[k];
		if (l) {
			cf->cur = l;
			warn_unused(cf, f->msg, "");
			cf->cur = NULL;
			continue;
		}
		size_t n = strlen(path) + strlen(f->name) + 2;
		char *sub = xmalloc(n);
		snprintf(sub, n, "%s%s%s", path, *path ? "." : "", f->name);
		warn_unused(cf, f->msg, sub);
		free(sub);
	}
}

/* The whole file; what says which file it is in messages ("" or "weights "). */
static char *read_file(const char *path, const char *what, size_t *len, struct diag *d)
{
	FILE *f = fopen(path, "rb");
	if (!f) {
		diag_error(d, NULL, "cannot open %s%s: %s", what, path, strerror(errno));
		return NULL;
	}
	size_t cap = 1 << 16, n = 0;
	char *buf = xmalloc(cap);
	for (;;) {
		n += fread(buf + n, 1, cap - n, f);
		if (n < cap)
			break;
		cap *= 2;
		buf = xrealloc(buf, cap);
	}
	if (ferror(f)) {
		diag_error(d, NULL, "cannot read %s%s: %s", what, path, strerror(errno));
		fclose(f);
		free(buf);
		return NULL;
	}
	fclose(f);
	*len = n;
	return buf;
}

static void caffe_free(struct caffe *cf)
{
	for (int i = 0; i < cf->n_layers; i++) {
		free(cf->layers[i].bottom_f);
		free(cf->layers[i].top_f);
		free(cf->layers[i].bottoms);
		free(cf->layers[i].tops);
	}
	free(cf->layers);
	free(cf->values);
	free(cf->sources);
	if (cf->model)
		caffe__net_parameter__free_unpacked(cf->model, NULL);
	arena_free(&cf->text);
}

struct graph *caffe_read(const char *path, const struct options *opt, struct diag *d)
{
	size_t len = 0, weights_len = 0;
	char *text = read_file(path, "", &len, d);
	if (!text)
		return NULL;
	char *weights = NULL;
	if (opt->caffe_weights && !opt->random_weights) {
		weights = read_file(opt->caffe_weights, "weights ", &weights_len, d);
		if (!weights) {
			free(text);
			return NULL;
		}
	}
	struct graph *g =
		caffe_read_mem(path, text, len, (const uint8_t *)weights, weights_len, opt, d);
	free(text);
	free(weights);
	return g;
}

struct graph *caffe_read_mem(const char *path, const char *text, size_t len,
                             const uint8_t *weights, size_t weights_len,
                             const struct options *opt, struct diag *d)
{
	struct caffe cf = {0};
	cf.path = path;
	cf.opt = opt;
	cf.d = d;
	arena_init(&cf.text);
	int errors = d->errors;

	if (opt->caffe_weights && opt->random_weights)
		diag_error(d, NULL, "give either --weights %s or --random-weights %lu, not both",
		           opt->caffe_weights, opt->random_seed);
	else if (!opt->caffe_weights && !opt->random_weights)
		diag_error(d, NULL,
		           "no weights: a deploy.prototxt holds the architecture only; give --weights "
		           "X.caffemodel, or --random-weights SEED to compile with deterministic random "
		           "weights (for benchmarking the architecture)");
	cf.random = !opt->caffe_weights;

	cf.net = ptx_parse(&cf.text, path, text, len, d);
	if (!cf.net) {
		caffe_free(&cf);
		return NULL;
	}
	if (opt->caffe_weights && !opt->random_weights &&
	    load_caffemodel(&cf, opt->caffe_weights, weights, weights_len)) {
		caffe_free(&cf);
		return NULL;
	}

	cf.g = ir_graph_new(path);
	/* Softmax over one axis, as Caffe computes it, is ONNX Softmax from opset 13. */
	cf.g->opset = 13;
	const char *net_name = get_string(&cf, cf.net, "name", "");
	char *producer = xmalloc(strlen(net_name) + 16);
	sprintf(producer, "caffe%s%s", *net_name ? " " : "", net_name);
	cf.g->producer = arena_strdup(&cf.g->arena, producer);
	free(producer);
	static const char *const net_ignored[] = {"force_backward", "debug_info", NULL};
	accept_fields(cf.net, net_ignored);

	net_inputs(&cf);
	for (int i = 0; i < cf.n_values; i++)
		check_value_size(&cf, &cf.values[i]);
	read_layers(&cf);
	resolve(&cf);

	for (int li = 0; li < cf.n_layers; li++) {
		struct layer *l = &cf.layers[li];
		cf.cur = l;
		int ready = !l->failed;
		for (int i = 0; i < l->n_bottoms && ready; i++)
			ready = in(&cf, l, i)->t != NULL;
		if (ready) {
			find_kind(l->type)->build(&cf, l);
			for (int i = 0; i < l->n_tops; i++)
				check_value_size(&cf, out(&cf, l, i));
		} else
			mark_all_used(l->msg); /* no warnings about the fields of a broken layer */
		if (l->failed)
			mark_all_used(l->msg);
		cf.cur = NULL;
	}

	/* Graph inputs and outputs: every input in declaration order; every value
	 * nothing reads, in the order written. */
	int n_in = 0, n_out = 0;
	for (int i = 0; i < cf.g->n_tensors; i++)
		n_in += cf.g->tensors[i]->is_input;
	cf.g->inputs = arena_alloc(&cf.g->arena, (size_t)(n_in + 1) * sizeof *cf.g->inputs);
	for (int i = 0; i < cf.g->n_tensors; i++)
		if (cf.g->tensors[i]->is_input)
			cf.g->inputs[cf.g->n_inputs++] = cf.g->tensors[i];
	cf.g->outputs = arena_alloc(&cf.g->arena, (size_t)(cf.n_values + 1) * sizeof *cf.g->outputs);
	for (int i = 0; i < cf.n_values; i++) {
		struct value *v = &cf.values[i];
		if (v->uses || !v->t || v->t->is_output)
			continue;
		v->t->is_output = 1;
		cf.g->outputs[n_out++] = v->t;
	}
	cf.g->n_outputs = n_out;
	if (d->errors == errors && n_in == 0)
		diag_error(d, NULL, "the net declares no input (input: or an Input layer)");
	if (d->errors == errors && n_out == 0)
		diag_error(d, NULL, "the net has no output");

	if (d->errors == errors) {
		warn_unused(&cf, cf.net, "");
		for (int i = 0; i < cf.n_sources; i++)
			if (!cf.sources[i].used && cf.sources[i].n_blobs)
				warning_at(&cf, opt->caffe_weights, NULL,
				           "weights of layer '%s' are not used: the prototxt has no layer of "
				           "that name",
				           cf.sources[i].name);
		if (cf.random)
			fprintf(d->out,
			        "%s: note: no --weights given: using deterministic random weights (seed "
			        "%lu); the outputs mean nothing, this is for benchmarking the "
			        "architecture\n",
			        path, opt->random_seed);
	}
	caffe_free(&cf);
	if (d->errors != errors) {
		ir_graph_free(cf.g);
		return NULL;
	}
	return cf.g;
}
