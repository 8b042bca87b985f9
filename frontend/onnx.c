/* onnx.c - the ONNX frontend: reads a ModelProto file and translates it into
 * the IR (ir/ir.h), checking everything it reads.
 *
 * protobuf-c decodes the wire format and nothing else: it reports no reason
 * when it fails, does not validate meaning (sizes, types, references), and
 * recurses once per nested message with no depth limit. So this file
 *   1. walks the wire format first with a nesting limit (a small crafted
 *      file would otherwise overflow the stack inside protobuf-c),
 *   2. unpacks, then checks every field it uses: data sizes against dims,
 *      dtypes, names and their order (ONNX requires topological order,
 *      onnx/docs/IR.md "Graphs"), attribute types, opsets,
 *   3. copies initializer data into the graph's arena (16-byte aligned) and
 *      frees each initializer's protobuf buffer as soon as it is copied, with
 *      the file buffer already freed after unpacking, so peak memory stays
 *      near twice the file size for big models.
 * It interprets no operator: shapes, folding and unused attributes belong to
 * the passes. Every problem is reported with the file and the node or
 * initializer name; one run reports all it can find; onnx_read returns NULL
 * when any error was reported. */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "frontend/frontend.h"
#include "frontend/onnx.pb-c.h"

/* Messages nested deeper than this are refused before protobuf-c sees them
 * (the limit Google's C++ and Java parsers use by default). */
#define ONNX_MAX_DEPTH 100
/* No real tensor has more elements; the limit keeps every size product far
 * from overflowing int64_t and size_t. */
#define ONNX_MAX_ELEMENTS ((int64_t)1 << 40)
/* Opsets the operator semantics of dnncc follow (torch 1.13 exports <= 17). */
#define ONNX_OPSET_MIN 7
#define ONNX_OPSET_MAX 17

/* ---- names: a small open-addressing hash map from model names ------------ */

struct name_entry {
	const char *key;       /* model name (arena); NULL marks an empty slot */
	struct tensor *t;      /* the value; NULL when its producer was rejected */
	const char *unusable;  /* why no node may read it (data dnncc cannot size), or NULL */
	int is_initializer;    /* a weight (initializer), not a graph input or node output */
};

struct name_map {
	struct name_entry *slots; /* [cap], owned (xcalloc) */
	size_t cap;               /* a power of two, or 0 */
	size_t n;                 /* occupied slots */
};

static uint64_t hash_name(const char *s)
{
	uint64_t h = 1469598103934665603u; /* FNV-1a */
	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211u;
	return h;
}

static struct name_entry *map_slot(const struct name_map *m, const char *key)
{
	size_t mask = m->cap - 1;
	for (size_t i = hash_name(key) & mask;; i = (i + 1) & mask)
		if (!m->slots[i].key || strcmp(m->slots[i].key, key) == 0)
			return &m->slots[i];
}

static struct name_entry *map_find(const struct name_map *m, const char *key)
{
	if (!m->cap)
		return NULL;
	struct name_entry *e = map_slot(m, key);
	return e->key ? e : NULL;
}

/* Inserts key (which must be absent and outlive the map) and returns its entry. */
static struct name_entry *map_add(struct name_map *m, const char *key)
{
	if (2 * (m->n + 1) > m->cap) {
		struct name_map bigger = {xcalloc(m->cap ? 2 * m->cap : 64, sizeof *m->slots),
		                          m->cap ? 2 * m->cap : 64, m->n};
		for (size_t i = 0; i < m->cap; i++)
			if (m->slots[i].key)
				*map_slot(&bigger, m->slots[i].key) = m->slots[i];
		free(m->slots);
		*m = bigger;
	}
	struct name_entry *e = map_slot(m, key);
	e->key = key;
	m->n++;
	return e;
}

/* ---- the reader's state ---------------------------------------------------- */

struct reader {
	struct graph *g;
	struct diag *d;
	const struct options *opt;
	ProtobufCAllocator alloc; /* given to protobuf-c, so parts of the message can be freed early */
	int out_of_memory;        /* the unpacker's allocation failed */
	struct name_map values;   /* every value name: initializers, inputs, node outputs */
	struct name_map nodes;    /* node names given out so far */
	int big_endian;           /* host byte order (raw_data is little-endian) */
	uint64_t weight_bytes;    /* tensor data read so far, against --max-weights */
};

static void *pb_alloc(void *data, size_t size)
{
	void *p = malloc(size ? size : 1);
	if (!p)
		((struct reader *)data)->out_of_memory = 1;
	return p;
}

static void pb_free(void *data, void *p)
{
	free(p);
}

/* ---- ONNX data types --------------------------------------------------------
 * TensorProto.DataType (onnx.proto) with the typed field that stores each
 * one when raw_data is not used (the field comments in onnx.proto). Types
 * newer than the schema dnncc is built with (float8, 4-bit) are listed by
 * number so their raw data can still be sized. */

enum typed_field { F_NONE, F_FLOAT, F_INT32, F_INT64, F_DOUBLE, F_UINT64, F_STRING };

struct onnx_type {
	const char *name;
	enum dtype dtype;
	unsigned size;          /* bytes per element; 0: cannot be sized (string) */
	int packed4;            /* 4-bit elements, two per byte */
	enum typed_field field; /* typed field holding it */
	unsigned per_elem;      /* typed values per element (2 for complex) */
	int64_t lo, hi;         /* range of an int32_data/uint64_data value */
};

static const struct onnx_type onnx_types[] = {
	[0] = {"undefined", DTYPE_UNDEF, 0, 0, F_NONE, 0, 0, 0},
	[1] = {"float32", DTYPE_F32, 4, 0, F_FLOAT, 1, 0, 0},
	[2] = {"uint8", DTYPE_U8, 1, 0, F_INT32, 1, 0, 255},
	[3] = {"int8", DTYPE_I8, 1, 0, F_INT32, 1, -128, 127},
	[4] = {"uint16", DTYPE_OTHER, 2, 0, F_INT32, 1, 0, 65535},
	[5] = {"int16", DTYPE_OTHER, 2, 0, F_INT32, 1, -32768, 32767},
	[6] = {"int32", DTYPE_I32, 4, 0, F_INT32, 1, INT32_MIN, INT32_MAX},
	[7] = {"int64", DTYPE_I64, 8, 0, F_INT64, 1, 0, 0},
	[8] = {"string", DTYPE_OTHER, 0, 0, F_STRING, 1, 0, 0},
	[9] = {"bool", DTYPE_BOOL, 1, 0, F_INT32, 1, 0, 1},
	[10] = {"float16", DTYPE_OTHER, 2, 0, F_INT32, 1, 0, 65535},
	[11] = {"float64", DTYPE_F64, 8, 0, F_DOUBLE, 1, 0, 0},
	[12] = {"uint32", DTYPE_OTHER, 4, 0, F_UINT64, 1, 0, UINT32_MAX},
	[13] = {"uint64", DTYPE_OTHER, 8, 0, F_UINT64, 1, 0, 0},
	[14] = {"complex64", DTYPE_OTHER, 8, 0, F_FLOAT, 2, 0, 0},
	[15] = {"complex128", DTYPE_OTHER, 16, 0, F_DOUBLE, 2, 0, 0},
	[16] = {"bfloat16", DTYPE_OTHER, 2, 0, F_INT32, 1, 0, 65535},
	[17] = {"float8e4m3fn", DTYPE_OTHER, 1, 0, F_INT32, 1, 0, 255},
	[18] = {"float8e4m3fnuz", DTYPE_OTHER, 1, 0, F_INT32, 1, 0, 255},
	[19] = {"float8e5m2", DTYPE_OTHER, 1, 0, F_INT32, 1, 0, 255},
	[20] = {"float8e5m2fnuz", DTYPE_OTHER, 1, 0, F_INT32, 1, 0, 255},
	[21] = {"uint4", DTYPE_OTHER, 1, 1, F_NONE, 0, 0, 0},
	[22] = {"int4", DTYPE_OTHER, 1, 1, F_NONE, 0, 0, 0},
	[23] = {"float4e2m1", DTYPE_OTHER, 1, 1, F_NONE, 0, 0, 0},
};

#define N_ONNX_TYPES ((int)(sizeof onnx_types / sizeof onnx_types[0]))

static const struct onnx_type *onnx_type(int32_t code)
{
	return code > 0 && code < N_ONNX_TYPES ? &onnx_types[code] : NULL;
}

static const char *const field_names[] = {
	[F_NONE] = "no field", [F_FLOAT] = "float_data", [F_INT32] = "int32_data",
	[F_INT64] = "int64_data", [F_DOUBLE] = "double_data", [F_UINT64] = "uint64_data",
	[F_STRING] = "string_data",
};

/* "[2,3,4]" into buf. */
static const char *format_dims(char *buf, size_t size, size_t rank, const int64_t *dims)
{
	size_t k = 0;
	k += snprintf(buf + k, size - k, "[");
	for (size_t i = 0; i < rank && k + 24 < size; i++)
		k += snprintf(buf + k, size - k, "%s%" PRId64, i ? "," : "", dims[i]);
	if (k + 24 >= size)
		k += snprintf(buf + k, size - k, ",...");
	snprintf(buf + k, size - k, "]");
	return buf;
}

/* Checks a tensor's dims: none negative, rank at most IR_MAX_RANK, element
 * count at most ONNX_MAX_ELEMENTS. Stores the count; -1 after reporting. */
static int check_dims(struct reader *r, const struct node *node, const char *what, size_t rank,
                      const int64_t *dims, int64_t *numel)
{
	char buf[128];
	if (rank > IR_MAX_RANK) {
		diag_error(r->d, node, "%s has rank %zu; dnncc supports at most %d", what, rank,
		           IR_MAX_RANK);
		return -1;
	}
	int64_t n = 1;
	for (size_t i = 0; i < rank; i++) {
		if (dims[i] < 0) {
			diag_error(r->d, node, "%s has a negative dimension (dim %zu of %s)", what, i,
			           format_dims(buf, sizeof buf, rank, dims));
			return -1;
		}
		if (dims[i] > ONNX_MAX_ELEMENTS || (dims[i] && n > ONNX_MAX_ELEMENTS / dims[i])) {
			diag_error(r->d, node,
			           "%s has shape %s, more than the 2^40 elements dnncc supports", what,
			           format_dims(buf, sizeof buf, rank, dims));
			return -1;
		}
		/* A zero dim makes the product 0; keep checking the other dims alone. */
		if (dims[i])
			n *= dims[i];
	}
	for (size_t i = 0; i < rank; i++)
		if (dims[i] == 0)
			n = 0;
	*numel = n;
	return 0;
}

/* ---- tensors (initializers and TENSOR attributes) -------------------------- */

/* A TensorProto read into IR terms. */
struct tensor_value {
	enum dtype dtype;
	int rank;
	int64_t dims[IR_MAX_RANK];
	void *data;           /* row-major contents in the graph arena, or NULL if unusable */
	const char *unusable; /* why data is NULL (a type dnncc cannot size; static), or NULL */
};

static void swap_bytes(unsigned char *p, size_t n, unsigned size)
{
	for (size_t i = 0; i < n; i++, p += size)
		for (unsigned a = 0, b = size - 1; a < b; a++, b--) {
			unsigned char t = p[a];
			p[a] = p[b];
			p[b] = t;
		}
}

/* Number of values and the array of a typed field. */
static size_t typed_count(const Onnx__TensorProto *tp, enum typed_field f)
{
	switch (f) {
	case F_FLOAT: return tp->n_float_data;
	case F_INT32: return tp->n_int32_data;
	case F_INT64: return tp->n_int64_data;
	case F_DOUBLE: return tp->n_double_data;
	case F_UINT64: return tp->n_uint64_data;
	case F_STRING: return tp->n_string_data;
	default: return 0;
	}
}

/* Frees the data buffers of tp now that they are copied (the rest of the
 * message is freed with the model). */
static void release_tensor_data(struct reader *r, Onnx__TensorProto *tp)
{
	pb_free(r, tp->raw_data.data);
	tp->raw_data.data = NULL;
	tp->raw_data.len = 0;
	pb_free(r, tp->float_data);
	tp->float_data = NULL;
	tp->n_float_data = 0;
	pb_free(r, tp->int32_data);
	tp->int32_data = NULL;
	tp->n_int32_data = 0;
	pb_free(r, tp->int64_data);
	tp->int64_data = NULL;
	tp->n_int64_data = 0;
	pb_free(r, tp->double_data);
	tp->double_data = NULL;
	tp->n_double_data = 0;
	pb_free(r, tp->uint64_data);
	tp->uint64_data = NULL;
	tp->n_uint64_data = 0;
}

/* Copies the typed-field values of tp into dst (count values, ty's element
 * layout), checking each int32/uint64 value against the type's range. */
static int copy_typed(struct reader *r, const struct node *node, const char *what,
                      const Onnx__TensorProto *tp, const struct onnx_type *ty, size_t count,
                      unsigned char *dst)
{
	switch (ty->field) {
	case F_FLOAT: memcpy(dst, tp->float_data, count * sizeof(float)); return 0;
	case F_INT64: memcpy(dst, tp->int64_data, count * sizeof(int64_t)); return 0;
	case F_DOUBLE: memcpy(dst, tp->double_data, count * sizeof(double)); return 0;
	case F_INT32:
		for (size_t i = 0; i < count; i++) {
			int32_t v = tp->int32_data[i];
			if (v < ty->lo || v > ty->hi) {
				diag_error(r->d, node,
				           "%s: int32_data value %" PRId32 " (element %zu) is out of range "
				           "for %s",
				           what, v, i, ty->name);
				return -1;
			}
			if (ty->size == 1) {
				dst[i] = (unsigned char)(v & 0xff);
			} else if (ty->size == 2) {
				uint16_t u = (uint16_t)(v & 0xffff);
				memcpy(dst + 2 * i, &u, 2);
			} else {
				memcpy(dst + 4 * i, &v, 4);
			}
		}
		return 0;
	case F_UINT64:
		for (size_t i = 0; i < count; i++) {
			uint64_t v = tp->uint64_data[i];
			if (ty->size == 4) {
				if (v > (uint64_t)ty->hi) {
					diag_error(r->d, node,
					           "%s: uint64_data value %" PRIu64 " (element %zu) is out "
					           "of range for %s",
					           what, v, i, ty->name);
					return -1;
				}
				uint32_t u = (uint32_t)v;
				memcpy(dst + 4 * i, &u, 4);
			} else {
				memcpy(dst + 8 * i, &v, 8);
			}
		}
		return 0;
	default: unreachable("typed field without a copy rule");
	}
}

/* Reads tp into *out. `what` names it in messages ("initializer 'w'",
 * "attribute 'value'"); node is the node it belongs to, or NULL. The proto's
 * data buffers are freed on return. Returns 0, or -1 after reporting. */
static int read_tensor(struct reader *r, const struct node *node, const char *what,
                       Onnx__TensorProto *tp, struct tensor_value *out)
{
	char buf[128];
	int64_t numel;
	int rc = -1;
	memset(out, 0, sizeof *out);

	if (tp->has_data_location &&
	    tp->data_location == ONNX__TENSOR_PROTO__DATA_LOCATION__EXTERNAL) {
		diag_error(r->d, node, "%s uses external data, which is not supported", what);
		goto out;
	}
	if (tp->segment) {
		diag_error(r->d, node, "%s is a segment of a larger tensor, which is not supported",
		           what);
		goto out;
	}
	if (check_dims(r, node, what, tp->n_dims, tp->dims, &numel))
		goto out;
	out->rank = (int)tp->n_dims;
	for (int i = 0; i < out->rank; i++)
		out->dims[i] = tp->dims[i];
	const char *shape = format_dims(buf, sizeof buf, tp->n_dims, tp->dims);

	if (!tp->has_data_type || tp->data_type == 0) {
		diag_error(r->d, node, "%s has no data type", what);
		goto out;
	}
	const struct onnx_type *ty = onnx_type(tp->data_type);
	if (!ty) {
		out->dtype = DTYPE_OTHER;
		out->unusable = "of an unknown data type";
		rc = 0;
		goto out;
	}
	out->dtype = ty->dtype;

	/* raw_data excludes every typed field (onnx.proto, TensorProto.raw_data). */
	int n_typed = (tp->n_float_data > 0) + (tp->n_int32_data > 0) + (tp->n_int64_data > 0) +
	              (tp->n_double_data > 0) + (tp->n_uint64_data > 0) +
	              (tp->n_string_data > 0);
	if (tp->has_raw_data && n_typed) {
		diag_error(r->d, node, "%s has both raw_data and typed data", what);
		goto out;
	}
	if (n_typed > 1) {
		diag_error(r->d, node, "%s has data in more than one typed field", what);
		goto out;
	}
	if (ty->size == 0) {
		out->unusable = "of type string";
		rc = 0;
		goto out;
	}
	size_t nbytes = ty->packed4 ? (size_t)(numel + 1) / 2 : (size_t)numel * ty->size;
	/* Before the data is looked at, let alone copied. */
	uint64_t limit = pass_max_weights(r->opt);
	if (nbytes > limit) {
		diag_error(r->d, node, "%s (%s %s) has %zu bytes, over the weights limit of %" PRIu64
		           " bytes (--max-weights MiB raises it)", what, ty->name, shape, nbytes, limit);
		goto out;
	}
	if (nbytes > limit - r->weight_bytes) {
		diag_error(r->d, node, "%s (%s %s, %zu bytes) takes the weights to %" PRIu64 " bytes, "
		           "over the limit of %" PRIu64 " bytes (--max-weights MiB raises it)", what,
		           ty->name, shape, nbytes, r->weight_bytes + nbytes, limit);
		goto out;
	}
	r->weight_bytes += nbytes;

	if (tp->has_raw_data) {
		if (tp->raw_data.len != nbytes) {
			diag_error(r->d, node, "%s has %zu bytes of raw_data, expected %zu for %s %s",
			           what, tp->raw_data.len, nbytes, ty->name, shape);
			goto out;
		}
		out->data = arena_alloc(&r->g->arena, nbytes ? nbytes : 1);
		if (nbytes)
			memcpy(out->data, tp->raw_data.data, nbytes);
		if (r->big_endian && !ty->packed4)
			swap_bytes(out->data, (size_t)numel * ty->per_elem, ty->size / ty->per_elem);
		rc = 0;
		goto out;
	}
	if (n_typed == 0) {
		if (numel != 0) {
			diag_error(r->d, node, "%s has no data (expected %" PRId64 " values for %s %s)",
			           what, numel, ty->name, shape);
			goto out;
		}
		out->data = arena_alloc(&r->g->arena, 1);
		rc = 0;
		goto out;
	}
	if (ty->field == F_NONE) {
		out->unusable = "of a 4-bit type stored in typed fields";
		rc = 0;
		goto out;
	}
	size_t count = (size_t)numel * ty->per_elem;
	if (typed_count(tp, ty->field) == 0) {
		const char *got = tp->n_float_data   ? "float_data"
		                  : tp->n_int32_data ? "int32_data"
		                  : tp->n_int64_data ? "int64_data"
		                  : tp->n_double_data ? "double_data"
		                  : tp->n_uint64_data ? "uint64_data"
		                                      : "string_data";
		diag_error(r->d, node, "%s stores %s data in %s, expected %s", what, ty->name, got,
		           field_names[ty->field]);
		goto out;
	}
	if (typed_count(tp, ty->field) != count) {
		diag_error(r->d, node, "%s has %zu %s values, expected %zu for %s %s", what,
		           typed_count(tp, ty->field), field_names[ty->field], count, ty->name, shape);
		goto out;
	}
	out->data = arena_alloc(&r->g->arena, nbytes ? nbytes : 1);
	if (copy_typed(r, node, what, tp, ty, count, out->data)) {
		out->data = NULL;
		goto out;
	}
	rc = 0;
out:
	release_tensor_data(r, tp);
	return rc;
}

/* ---- wire-format pre-check --------------------------------------------------
 * Walks the encoded message with the generated descriptors, following only
 * fields declared as messages, and refuses nesting deeper than
 * ONNX_MAX_DEPTH. Returns 0, -1 for malformed data, -2 for too deep. */

static int read_varint(const uint8_t **p, const uint8_t *end, uint64_t *v)
{
	uint64_t x = 0;
	for (int shift = 0; shift < 70; shift += 7) {
		if (*p == end)
			return -1;
		uint8_t b = *(*p)++;
		if (shift == 63 && b > 1)
			return -1;
		x |= (uint64_t)(b & 0x7f) << shift;
		if (!(b & 0x80)) {
			*v = x;
			return 0;
		}
	}
	return -1;
}

static int wire_check(const uint8_t *p, size_t len, const ProtobufCMessageDescriptor *desc,
                      int depth)
{
	const uint8_t *end = p + len;
	if (depth > ONNX_MAX_DEPTH)
		return -2;
	while (p < end) {
		uint64_t tag, v;
		if (read_varint(&p, end, &tag) || tag >> 32 || (tag >> 3) == 0)
			return -1;
		switch (tag & 7) {
		case 0:
			if (read_varint(&p, end, &v))
				return -1;
			break;
		case 1:
			if (end - p < 8)
				return -1;
			p += 8;
			break;
		case 5:
			if (end - p < 4)
				return -1;
			p += 4;
			break;
		case 2: {
			if (read_varint(&p, end, &v) || v > (uint64_t)(end - p))
				return -1;
			const ProtobufCFieldDescriptor *f =
				desc ? protobuf_c_message_descriptor_get_field(desc, (unsigned)(tag >> 3))
				     : NULL;
			if (f && f->type == PROTOBUF_C_TYPE_MESSAGE) {
				int rc = wire_check(p, (size_t)v, f->descriptor, depth + 1);
				if (rc)
					return rc;
			}
			p += v;
			break;
		}
		default: return -1; /* groups (3, 4) are not used by ONNX; 6, 7 do not exist */
		}
	}
	return 0;
}

/* ---- reading the file ------------------------------------------------------ */

static uint8_t *read_file(struct reader *r, const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	if (!f) {
		diag_error(r->d, NULL, "cannot open: %s", strerror(errno));
		return NULL;
	}
	size_t cap = 1 << 16, n = 0;
	uint8_t *buf = xmalloc(cap);
	for (;;) {
		if (n == cap) {
			if (cap > SIZE_MAX / 2) {
				diag_error(r->d, NULL, "file too large");
				goto fail;
			}
			cap *= 2;
			buf = xrealloc(buf, cap);
		}
		size_t got = fread(buf + n, 1, cap - n, f);
		n += got;
		if (got == 0)
			break;
	}
	if (ferror(f)) {
		diag_error(r->d, NULL, "cannot read: %s", strerror(errno));
		goto fail;
	}
	fclose(f);
	*len = n;
	return buf;
fail:
	fclose(f);
	free(buf);
	return NULL;
}

static const char *str(const char *s)
{
	return s ? s : "";
}

/* ---- model header ---------------------------------------------------------- */

static void read_header(struct reader *r, const Onnx__ModelProto *m)
{
	struct graph *g = r->g;
	if (m->ir_version > ONNX__VERSION__IR_VERSION)
		diag_warning(r->d, NULL,
		             "model IR version %" PRId64 " is newer than the ONNX schema dnncc was "
		             "built with (%d); fields added since are ignored",
		             m->ir_version, (int)ONNX__VERSION__IR_VERSION);

	int found = 0;
	for (size_t i = 0; i < m->n_opset_import; i++) {
		const Onnx__OperatorSetIdProto *o = m->opset_import[i];
		const char *dom = str(o->domain);
		if (strcmp(dom, "") != 0 && strcmp(dom, "ai.onnx") != 0)
			continue;
		if (found) {
			diag_error(r->d, NULL, "opset_import lists the default domain twice");
			continue;
		}
		found = 1;
		if (!o->has_version || o->version < 1) {
			diag_error(r->d, NULL, "opset_import has no valid version for the default domain");
			continue;
		}
		g->opset = o->version;
	}
	if (!found)
		diag_warning(r->d, NULL, "model imports no opset for the default ONNX domain");
	else if (g->opset && (g->opset < ONNX_OPSET_MIN || g->opset > ONNX_OPSET_MAX))
		diag_warning(r->d, NULL,
		             "model uses opset %" PRId64 "; dnncc follows opsets %d to %d, "
		             "trying anyway",
		             g->opset, ONNX_OPSET_MIN, ONNX_OPSET_MAX);

	const char *pn = str(m->producer_name), *pv = str(m->producer_version);
	size_t n = strlen(pn) + strlen(pv) + 2;
	char *producer = arena_alloc(&g->arena, n);
	snprintf(producer, n, "%s%s%s", pn, *pn && *pv ? " " : "", pv);
	g->producer = producer;
}

/* ---- initializers ---------------------------------------------------------- */

static void read_initializers(struct reader *r, Onnx__GraphProto *gp)
{
	for (size_t i = 0; i < gp->n_initializer; i++) {
		Onnx__TensorProto *tp = gp->initializer[i];
		const char *name = str(tp->name);
		if (!*name) {
			diag_error(r->d, NULL, "initializer %zu has no name", i);
			release_tensor_data(r, tp);
			continue;
		}
		if (map_find(&r->values, name)) {
			diag_error(r->d, NULL, "initializer '%s' is defined twice", name);
			release_tensor_data(r, tp);
			continue;
		}
		size_t n = strlen(name) + 32;
		char *what = xmalloc(n);
		snprintf(what, n, "initializer '%s'", name);
		struct tensor_value v;
		int rc = read_tensor(r, NULL, what, tp, &v);
		free(what);
		if (rc) {
			/* reported: the nodes reading it are not reported again */
			map_add(&r->values, arena_strdup(&r->g->arena, name))->t = NULL;
			continue;
		}
		struct tensor *t = ir_new_constant(r->g, name, v.dtype, v.rank, v.dims, v.data);
		struct name_entry *e = map_add(&r->values, t->name);
		e->t = t;
		e->unusable = v.unusable;
		e->is_initializer = 1;
	}
	if (gp->n_sparse_initializer)
		diag_error(r->d, NULL, "the graph has %zu sparse initializers, which are not supported",
		           gp->n_sparse_initializer);
}

/* ---- graph inputs ---------------------------------------------------------- */

static const char *value_kind(Onnx__TypeProto__ValueCase c)
{
	switch (c) {
	case ONNX__TYPE_PROTO__VALUE_SEQUENCE_TYPE: return "a sequence";
	case ONNX__TYPE_PROTO__VALUE_MAP_TYPE: return "a map";
	case ONNX__TYPE_PROTO__VALUE_OPTIONAL_TYPE: return "an optional";
	case ONNX__TYPE_PROTO__VALUE_SPARSE_TENSOR_TYPE: return "a sparse tensor";
	default: return "of another kind";
	}
}

/* The --shape hint for an input: known dims kept, unknown ones shown as 1. */
static void shape_hint(char *buf, size_t size, const char *name,
                       const Onnx__TensorShapeProto *sp)
{
	size_t k = snprintf(buf, size, "--shape %s=", name);
	if (!sp || sp->n_dim == 0 || sp->n_dim > IR_MAX_RANK) {
		snprintf(buf + (k < size ? k : size), k < size ? size - k : 0, "D0,D1,...");
		return;
	}
	for (size_t i = 0; i < sp->n_dim && k < size; i++) {
		const Onnx__TensorShapeProto__Dimension *dim = sp->dim[i];
		int64_t v = dim->value_case == ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_VALUE &&
		                    dim->dim_value > 0
		                    ? dim->dim_value
		                    : 1;
		k += snprintf(buf + k, size - k, "%s%" PRId64, i ? "," : "", v);
	}
}

/* The --shape override for name, or NULL; marks it used. */
static const struct shape_override *find_override(struct reader *r, const char *name,
                                                  unsigned char *used)
{
	const struct shape_override *found = NULL;
	for (int k = 0; r->opt && k < r->opt->n_shapes; k++) {
		if (strcmp(r->opt->shapes[k].input, name) != 0)
			continue;
		if (found)
			diag_error(r->d, NULL, "--shape is given twice for input '%s'", name);
		else
			found = &r->opt->shapes[k];
		used[k] = 1;
	}
	return found;
}

/* Reads one graph input that is not a weight. Returns the tensor or NULL
 * after reporting. */
static struct tensor *read_input(struct reader *r, const Onnx__ValueInfoProto *vi,
                                 unsigned char *used)
{
	const char *name = str(vi->name);
	const Onnx__TypeProto *tp = vi->type;
	const struct shape_override *ov = find_override(r, name, used);
	if (!tp || tp->value_case == ONNX__TYPE_PROTO__VALUE__NOT_SET) {
		diag_error(r->d, NULL, "input '%s' has no type", name);
		return NULL;
	}
	if (tp->value_case != ONNX__TYPE_PROTO__VALUE_TENSOR_TYPE || !tp->tensor_type) {
		diag_error(r->d, NULL, "input '%s' is %s, not a tensor; dnncc reads tensors only",
		           name, value_kind(tp->value_case));
		return NULL;
	}
	const Onnx__TypeProto__Tensor *tt = tp->tensor_type;
	if (!tt->has_elem_type || tt->elem_type == 0) {
		diag_error(r->d, NULL, "input '%s' has no element type", name);
		return NULL;
	}
	const struct onnx_type *ty = onnx_type(tt->elem_type);
	enum dtype dtype = ty ? ty->dtype : DTYPE_OTHER;

	const Onnx__TensorShapeProto *sp = tt->shape;
	size_t what_n = strlen(name) + 32;
	char *what = xmalloc(what_n);
	snprintf(what, what_n, "%sinput '%s'", ov ? "--shape for " : "", name);
	char hint[256], buf[128];
	int64_t dims[IR_MAX_RANK], numel;
	int rank = -1;
	struct tensor *t = NULL;

	if (ov) {
		if (check_dims(r, NULL, what, (size_t)(ov->rank < 0 ? 0 : ov->rank), ov->dims, &numel))
			goto out;
		rank = ov->rank;
		memcpy(dims, ov->dims, sizeof dims);
	} else if (!sp) {
		shape_hint(hint, sizeof hint, name, sp);
		diag_error(r->d, NULL, "input '%s' has no declared shape: pin it with %s", name, hint);
		goto out;
	} else {
		if (sp->n_dim > IR_MAX_RANK) {
			diag_error(r->d, NULL, "input '%s' has rank %zu; dnncc supports at most %d", name,
			           sp->n_dim, IR_MAX_RANK);
			goto out;
		}
		for (size_t i = 0; i < sp->n_dim; i++) {
			const Onnx__TensorShapeProto__Dimension *dim = sp->dim[i];
			if (dim->value_case == ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_VALUE) {
				dims[i] = dim->dim_value;
				continue;
			}
			shape_hint(hint, sizeof hint, name, sp);
			if (dim->value_case == ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_PARAM &&
			    dim->dim_param && *dim->dim_param)
				diag_error(r->d, NULL,
				           "input '%s' has symbolic dimension '%s' (dim %zu): pin it with %s",
				           name, dim->dim_param, i, hint);
			else
				diag_error(r->d, NULL,
				           "input '%s' has an unknown dimension (dim %zu): pin it with %s",
				           name, i, hint);
			goto out;
		}
		if (check_dims(r, NULL, what, sp->n_dim, dims, &numel))
			goto out;
		rank = (int)sp->n_dim;
	}
	if (ov && sp && sp->n_dim <= IR_MAX_RANK) {
		/* Overriding a fully static declared shape with another is allowed,
		 * but worth a word. */
		int is_static = 1, same = (size_t)ov->rank == sp->n_dim;
		for (size_t i = 0; i < sp->n_dim; i++) {
			const Onnx__TensorShapeProto__Dimension *dim = sp->dim[i];
			if (dim->value_case != ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_VALUE)
				is_static = 0;
			else if (same && dim->dim_value != ov->dims[i])
				same = 0;
		}
		if (is_static && !same) {
			int64_t decl[IR_MAX_RANK];
			for (size_t i = 0; i < sp->n_dim; i++)
				decl[i] = sp->dim[i]->dim_value;
			diag_warning(r->d, NULL, "--shape replaces the declared shape %s of input '%s'",
			             format_dims(buf, sizeof buf, sp->n_dim, decl), name);
		}
	}
	t = ir_new_tensor(r->g, name, dtype);
	ir_set_shape(t, rank, dims);
	t->is_input = 1;
out:
	free(what);
	return t;
}

/* --bind NAME=VALUE: the graph input vi frozen into a constant (issue 11),
 * from a TensorProto file (VALUE ends in ".pb", the format of ONNX's test
 * data) or from comma-separated numbers of the input's declared type and
 * rank (a scalar takes one number, any other rank is read as 1-D). NULL after
 * reporting. */
static struct tensor *bind_input(struct reader *r, const Onnx__ValueInfoProto *vi,
                                 const struct bind_value *b)
{
	const char *name = str(vi->name);
	struct tensor_value v;
	memset(&v, 0, sizeof v);
	size_t n = strlen(b->value);
	if (n > 3 && strcmp(b->value + n - 3, ".pb") == 0) {
		size_t len = 0;
		uint8_t *buf = read_file(r, b->value, &len);
		if (!buf)
			return NULL;
		Onnx__TensorProto *tp = onnx__tensor_proto__unpack(&r->alloc, len, buf);
		free(buf);
		if (!tp) {
			diag_error(r->d, NULL, "--bind %s: %s is not a TensorProto file", name, b->value);
			return NULL;
		}
		size_t what_n = strlen(name) + 32;
		char *what = xmalloc(what_n);
		snprintf(what, what_n, "--bind value of '%s'", name);
		int rc = read_tensor(r, NULL, what, tp, &v);
		free(what);
		onnx__tensor_proto__free_unpacked(tp, &r->alloc);
		if (rc)
			return NULL;
		if (!v.data) {
			diag_error(r->d, NULL, "--bind %s: %s holds %s data", name, b->value,
			           v.unusable ? v.unusable : "unusable");
			return NULL;
		}
	} else {
		const Onnx__TypeProto *tp = vi->type;
		const struct onnx_type *ty =
			tp && tp->value_case == ONNX__TYPE_PROTO__VALUE_TENSOR_TYPE && tp->tensor_type &&
					tp->tensor_type->has_elem_type
				? onnx_type(tp->tensor_type->elem_type) : NULL;
		enum dtype dt = ty ? ty->dtype : DTYPE_OTHER;
		if (dt != DTYPE_F32 && dt != DTYPE_F64 && dt != DTYPE_I64 && dt != DTYPE_I32 &&
		    dt != DTYPE_I8 && dt != DTYPE_U8 && dt != DTYPE_BOOL) {
			diag_error(r->d, NULL, "--bind %s: the input's type is not a number type dnncc "
			           "reads from a list; give a .pb file", name);
			return NULL;
		}
		size_t es = ir_dtype_size(dt), count = 0, cap = 8;
		unsigned char *data = xmalloc(cap * es);
		for (const char *q = b->value; *q;) {
			char *end;
			double f = 0;
			long long iv = 0;
			errno = 0;
			if (dt == DTYPE_F32 || dt == DTYPE_F64)
				f = strtod(q, &end);
			else
				iv = strtoll(q, &end, 10);
			if (end == q || errno || (*end && *end != ',')) {
				diag_error(r->d, NULL, "--bind %s=%s: expected comma-separated %s numbers", name,
				           b->value, ir_dtype_names[dt]);
				free(data);
				return NULL;
			}
			if (count == cap)
				data = xrealloc(data, (cap *= 2) * es);
			switch (dt) {
			case DTYPE_F32: { float x = (float)f; memcpy(data + count * es, &x, es); break; }
			case DTYPE_F64: memcpy(data + count * es, &f, es); break;
			case DTYPE_I64: { int64_t x = iv; memcpy(data + count * es, &x, es); break; }
			case DTYPE_I32: { int32_t x = (int32_t)iv; memcpy(data + count * es, &x, es); break; }
			default: data[count * es] = (unsigned char)(dt == DTYPE_BOOL ? iv != 0 : iv); break;
			}
			count++;
			q = *end ? end + 1 : end;
		}
		const Onnx__TensorShapeProto *sp = tp->tensor_type->shape;
		int scalar = sp && sp->n_dim == 0 && count == 1;
		v.dtype = dt;
		v.rank = scalar ? 0 : 1;
		v.dims[0] = (int64_t)count;
		v.data = arena_memdup(&r->g->arena, data, count > 0 ? count * es : 1);
		free(data);
	}
	struct tensor *t = ir_new_constant(r->g, name, v.dtype, v.rank, v.dims, v.data);
	return t;
}

static void read_inputs(struct reader *r, const Onnx__GraphProto *gp)
{
	struct graph *g = r->g;
	int n_shapes = r->opt ? r->opt->n_shapes : 0;
	unsigned char *used = xcalloc(n_shapes ? n_shapes : 1, 1);
	int n_binds = r->opt ? r->opt->n_binds : 0;
	unsigned char *bound = xcalloc(n_binds ? n_binds : 1, 1);
	g->inputs = arena_alloc(&g->arena, (gp->n_input ? gp->n_input : 1) * sizeof *g->inputs);

	for (size_t i = 0; i < gp->n_input; i++) {
		const Onnx__ValueInfoProto *vi = gp->input[i];
		const char *name = str(vi->name);
		if (!*name) {
			diag_error(r->d, NULL, "graph input %zu has no name", i);
			continue;
		}
		struct name_entry *e = map_find(&r->values, name);
		if (e && e->is_initializer) {
			/* A weight (with a default value in old exporters): not an input. */
			for (int k = 0; k < n_shapes; k++)
				if (strcmp(r->opt->shapes[k].input, name) == 0) {
					diag_error(r->d, NULL,
					           "--shape names '%s', which is a weight (initializer), "
					           "not an input",
					           name);
					used[k] = 1;
				}
			continue;
		}
		if (e) {
			diag_error(r->d, NULL, "graph input '%s' is listed twice", name);
			continue;
		}
		const struct bind_value *bv = NULL;
		for (int k = 0; r->opt && k < r->opt->n_binds; k++)
			if (strcmp(r->opt->binds[k].input, name) == 0) {
				bv = &r->opt->binds[k];
				bound[k] = 1;
			}
		if (bv) { /* a constant from now on, like an initializer */
			struct tensor *t = bind_input(r, vi, bv);
			e = map_add(&r->values, t ? t->name : arena_strdup(&g->arena, name));
			e->t = t;
			e->is_initializer = 1;
			continue;
		}
		struct tensor *t = read_input(r, vi, used);
		e = map_add(&r->values, t ? t->name : arena_strdup(&g->arena, name));
		e->t = t;
		if (t)
			g->inputs[g->n_inputs++] = t;
	}
	for (int k = 0; k < n_shapes; k++)
		if (!used[k])
			diag_error(r->d, NULL, "--shape names '%s', which is not a graph input",
			           r->opt->shapes[k].input);
	for (int k = 0; k < n_binds; k++)
		if (!bound[k])
			diag_error(r->d, NULL, "--bind names '%s', which is not a graph input (weights "
			           "and node outputs cannot be bound)", r->opt->binds[k].input);
	free(used);
	free(bound);
}

/* ---- nodes ----------------------------------------------------------------- */

static int default_domain(const char *domain)
{
	return !*domain || strcmp(domain, "ai.onnx") == 0;
}

static enum op lookup_op(const char *op_type)
{
	for (int i = 0; i < OP_COUNT_; i++)
		if (strcmp(ir_op_names[i], op_type) == 0)
			return (enum op)i;
	return OP_COUNT_;
}

/* The node's name in the IR: the model's, or "<op_type>_<first output>"
 * when it has none; unique (a "_N" suffix on duplicates). Arena memory. */
static const char *node_name(struct reader *r, const Onnx__NodeProto *np, size_t index)
{
	const char *base = str(np->name);
	char *buf = NULL;
	if (!*base) {
		const char *out = np->n_output && np->output[0] ? np->output[0] : "";
		size_t n = strlen(str(np->op_type)) + strlen(out) + 32;
		buf = xmalloc(n);
		if (*out)
			snprintf(buf, n, "%s_%s", *str(np->op_type) ? np->op_type : "node", out);
		else
			snprintf(buf, n, "%s_%zu", *str(np->op_type) ? np->op_type : "node", index);
		base = buf;
	}
	const char *name;
	if (!map_find(&r->nodes, base)) {
		name = arena_strdup(&r->g->arena, base);
	} else {
		size_t n = strlen(base) + 24;
		char *s = arena_alloc(&r->g->arena, n);
		for (int k = 1;; k++) {
			snprintf(s, n, "%s_%d", base, k);
			if (!map_find(&r->nodes, s))
				break;
		}
		name = s;
	}
	map_add(&r->nodes, name);
	free(buf);
	return name;
}

static const char *attr_type_name(int type)
{
	switch (type) {
	case ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__FLOAT: return "FLOAT";
	case ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__INT: return "INT";
	case ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__STRING: return "STRING";
	case ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__TENSOR: return "TENSOR";
	case ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__GRAPH: return "GRAPH";
	case ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__SPARSE_TENSOR: return "SPARSE_TENSOR";
	case ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__TYPE_PROTO: return "TYPE_PROTO";
	case ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__FLOATS: return "FLOATS";
	case ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__INTS: return "INTS";
	case ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__STRINGS: return "STRINGS";
	case ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__TENSORS: return "TENSORS";
	case ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__GRAPHS: return "GRAPHS";
	case ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__SPARSE_TENSORS: return "SPARSE_TENSORS";
	case ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__TYPE_PROTOS: return "TYPE_PROTOS";
	default: return NULL;
	}
}

/* The type of the one value field an attribute sets (ONNX's checker wants
 * exactly one, onnx/checker.cc check_attribute), UNDEFINED when none is set
 * (an empty list), or -1 when several are. IR version 1 models carry no
 * attribute type: this is how it is found. */
static int attr_value_type(const Onnx__AttributeProto *ap)
{
	static const int types[] = {
		ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__FLOAT,
		ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__INT,
		ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__STRING,
		ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__TENSOR,
		ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__GRAPH,
		ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__SPARSE_TENSOR,
		ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__TYPE_PROTO,
		ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__FLOATS,
		ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__INTS,
		ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__STRINGS,
		ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__TENSORS,
		ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__GRAPHS,
		ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__SPARSE_TENSORS,
		ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__TYPE_PROTOS,
	};
	const int set[] = {
		ap->has_f, ap->has_i, ap->has_s, ap->t != NULL, ap->g != NULL,
		ap->sparse_tensor != NULL, ap->tp != NULL, ap->n_floats > 0, ap->n_ints > 0,
		ap->n_strings > 0, ap->n_tensors > 0, ap->n_graphs > 0, ap->n_sparse_tensors > 0,
		ap->n_type_protos > 0,
	};
	_Static_assert(sizeof types / sizeof types[0] == sizeof set / sizeof set[0], "fields");
	int type = ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__UNDEFINED;
	for (size_t i = 0; i < sizeof set / sizeof set[0]; i++) {
		if (!set[i])
			continue;
		if (type != ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__UNDEFINED)
			return -1;
		type = types[i];
	}
	return type;
}

static int is_list_type(int type)
{
	return type == ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__FLOATS ||
	       type == ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__INTS ||
	       type == ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__STRINGS ||
	       type == ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__TENSORS ||
	       type == ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__GRAPHS ||
	       type == ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__SPARSE_TENSORS ||
	       type == ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__TYPE_PROTOS;
}

static void read_attr(struct reader *r, struct node *n, Onnx__AttributeProto *ap, size_t index)
{
	struct graph *g = r->g;
	const char *name = str(ap->name);
	if (!*name) {
		diag_error(r->d, n, "attribute %zu has no name", index);
		return;
	}
	for (int k = 0; k < n->n_attrs; k++)
		if (strcmp(n->attrs[k].name, name) == 0) {
			diag_error(r->d, n, "attribute '%s' is given twice", name);
			return;
		}
	if (ap->ref_attr_name && *ap->ref_attr_name) {
		diag_error(r->d, n,
		           "attribute '%s' refers to '%s' of an enclosing function, which only "
		           "function bodies may do",
		           name, ap->ref_attr_name);
		return;
	}
	int held = attr_value_type(ap);
	int type = ap->has_type ? (int)ap->type : ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__UNDEFINED;
	if (held < 0) {
		diag_error(r->d, n, "attribute '%s' holds more than one value", name);
		return;
	}
	if (type == ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__UNDEFINED) {
		type = held;
	} else if (attr_type_name(type) && held != type &&
	           (held != ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__UNDEFINED || !is_list_type(type))) {
		if (held == ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__UNDEFINED)
			diag_error(r->d, n, "attribute '%s' of type %s has no value", name,
			           attr_type_name(type));
		else
			diag_error(r->d, n, "attribute '%s' is declared %s but holds a %s value", name,
			           attr_type_name(type), attr_type_name(held));
		return;
	}
	struct attr *a;
	switch (type) {
	case ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__FLOAT:
		a = ir_add_attr(g, n, name, ATTR_FLOAT);
		a->f = ap->f;
		break;
	case ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__INT:
		a = ir_add_attr(g, n, name, ATTR_INT);
		a->i = ap->i;
		break;
	case ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__STRING: {
		size_t len = ap->s.len;
		if (len && memchr(ap->s.data, '\0', len)) {
			diag_error(r->d, n, "attribute '%s' holds a string with a NUL byte", name);
			return;
		}
		char *s = arena_alloc(&g->arena, len + 1);
		if (len)
			memcpy(s, ap->s.data, len);
		a = ir_add_attr(g, n, name, ATTR_STRING);
		a->s = s;
		break;
	}
	case ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__FLOATS:
		if (ap->n_floats > INT_MAX) {
			diag_error(r->d, n, "attribute '%s' has too many values", name);
			return;
		}
		a = ir_add_attr(g, n, name, ATTR_FLOATS);
		a->n = (int)ap->n_floats;
		a->floats = arena_alloc(&g->arena, (ap->n_floats ? ap->n_floats : 1) * sizeof(double));
		for (size_t i = 0; i < ap->n_floats; i++)
			a->floats[i] = ap->floats[i];
		break;
	case ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__INTS:
		if (ap->n_ints > INT_MAX) {
			diag_error(r->d, n, "attribute '%s' has too many values", name);
			return;
		}
		a = ir_add_attr(g, n, name, ATTR_INTS);
		a->n = (int)ap->n_ints;
		a->ints = arena_alloc(&g->arena, (ap->n_ints ? ap->n_ints : 1) * sizeof(int64_t));
		if (ap->n_ints)
			memcpy(a->ints, ap->ints, ap->n_ints * sizeof(int64_t));
		break;
	case ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__TENSOR: {
		if (!ap->t)
			unreachable("a TENSOR attribute without a tensor passed the value check");
		size_t what_n = strlen(name) + 16;
		char *what = xmalloc(what_n);
		snprintf(what, what_n, "attribute '%s'", name);
		struct tensor_value v;
		int rc = read_tensor(r, n, what, ap->t, &v);
		if (!rc && v.unusable) {
			diag_error(r->d, n, "%s holds a tensor %s, which dnncc cannot read", what,
			           v.unusable);
			rc = -1;
		}
		free(what);
		if (rc)
			return;
		/* The value lives beside the graph's tensor list: it is part of the
		 * node, and the pass that folds the node makes its output from it. */
		struct tensor *t = arena_alloc(&g->arena, sizeof *t);
		const char *tname = ap->t->name && *ap->t->name ? ap->t->name : name;
		t->name = arena_strdup(&g->arena, tname);
		t->dtype = v.dtype;
		ir_set_shape(t, v.rank, v.dims);
		t->data = v.data;
		t->layout = LAYOUT_MODEL;
		t->index = -1;
		a = ir_add_attr(g, n, name, ATTR_TENSOR);
		a->t = t;
		break;
	}
	default:
		if (attr_type_name(type) && type != ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__UNDEFINED)
			diag_error(r->d, n, "attribute '%s' of type %s is not supported", name,
			           attr_type_name(type));
		else if (type == ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__UNDEFINED)
			diag_error(r->d, n, "attribute '%s' has no type and no value", name);
		else
			diag_error(r->d, n, "attribute '%s' has unknown type %d", name, type);
		return;
	}
}

/* Registers a rejected node's outputs so its consumers are not reported
 * again as reading undefined values. */
static void skip_outputs(struct reader *r, const Onnx__NodeProto *np)
{
	for (size_t k = 0; k < np->n_output; k++) {
		const char *out = str(np->output[k]);
		if (*out && !map_find(&r->values, out))
			map_add(&r->values, arena_strdup(&r->g->arena, out));
	}
}

static void read_node(struct reader *r, Onnx__NodeProto *np, size_t index)
{
	struct graph *g = r->g;
	const char *name = node_name(r, np, index);
	const char *op_type = str(np->op_type), *domain = str(np->domain);

	enum op op = default_domain(domain) ? lookup_op(op_type) : OP_COUNT_;
	if (op == OP_COUNT_) {
		if (!*op_type)
			diag_error(r->d, NULL, "node '%s' has no op_type", name);
		else if (!default_domain(domain))
			diag_error(r->d, NULL, "node '%s': unsupported operator '%s::%s'", name, domain,
			           op_type);
		else
			diag_error(r->d, NULL, "node '%s': unsupported operator '%s'", name, op_type);
		skip_outputs(r, np);
		return;
	}
	if (np->n_input > INT_MAX || np->n_output > INT_MAX) {
		diag_error(r->d, NULL, "node '%s' (%s) has too many inputs or outputs", name, op_type);
		skip_outputs(r, np);
		return;
	}

	/* inputs [n_input]: NULL for omitted optional inputs (empty names) */
	struct tensor **inputs = xcalloc(np->n_input ? np->n_input : 1, sizeof *inputs);
	for (size_t k = 0; k < np->n_input; k++) {
		const char *in = str(np->input[k]);
		if (!*in)
			continue;
		const struct name_entry *e = map_find(&r->values, in);
		if (!e)
			diag_error(r->d, NULL, "input '%s' of node '%s' is not produced before it is used",
			           in, name);
		else if (e->unusable)
			diag_error(r->d, NULL,
			           "input '%s' of node '%s' is an initializer %s, which dnncc cannot "
			           "read",
			           in, name, e->unusable);
		else
			inputs[k] = e->t;
	}
	/* outputs [n_output]: NULL for unused optional outputs */
	struct tensor **outputs = xcalloc(np->n_output ? np->n_output : 1, sizeof *outputs);
	for (size_t k = 0; k < np->n_output; k++) {
		const char *out = str(np->output[k]);
		if (!*out)
			continue;
		if (map_find(&r->values, out)) {
			diag_error(r->d, NULL, "node '%s' (%s) writes '%s', which is already defined "
			           "(ONNX values are assigned once)", name, op_type, out);
			continue;
		}
		outputs[k] = ir_new_tensor(g, out, DTYPE_UNDEF);
		map_add(&r->values, outputs[k]->name)->t = outputs[k];
	}
	struct node *n = ir_add_node(g, op, name, (int)np->n_input, inputs, (int)np->n_output,
	                             outputs);
	free(inputs);
	free(outputs);
	for (size_t k = 0; k < np->n_attribute; k++)
		read_attr(r, n, np->attribute[k], k);
}

/* ---- graph outputs --------------------------------------------------------- */

static void read_outputs(struct reader *r, const Onnx__GraphProto *gp)
{
	struct graph *g = r->g;
	if (gp->n_output == 0) {
		diag_error(r->d, NULL, "the graph has no outputs");
		return;
	}
	g->outputs = arena_alloc(&g->arena, gp->n_output * sizeof *g->outputs);
	for (size_t i = 0; i < gp->n_output; i++) {
		const char *name = str(gp->output[i]->name);
		if (!*name) {
			diag_error(r->d, NULL, "graph output %zu has no name", i);
			continue;
		}
		const struct name_entry *e = map_find(&r->values, name);
		if (!e) {
			diag_error(r->d, NULL, "graph output '%s' is not produced by any node", name);
			continue;
		}
		if (e->unusable) {
			diag_error(r->d, NULL,
			           "graph output '%s' is an initializer %s, which dnncc cannot read",
			           name, e->unusable);
			continue;
		}
		if (!e->t)
			continue; /* its producer was rejected and reported */
		e->t->is_output = 1;
		g->outputs[g->n_outputs++] = e->t;
	}
}

/* ---- the entry point ------------------------------------------------------- */

struct graph *onnx_read(const char *path, const struct options *opt, struct diag *d)
{
	struct reader r = {0};
	r.d = d;
	size_t len = 0;
	uint8_t *buf = read_file(&r, path, &len);
	if (!buf)
		return NULL;
	struct graph *g = onnx_read_mem(path, buf, len, opt, d);
	free(buf);
	return g;
}

struct graph *onnx_read_mem(const char *path, const uint8_t *buf, size_t len,
                            const struct options *opt, struct diag *d)
{
	int errors = d->errors;
	const uint16_t one = 1;
	struct reader r = {0};
	r.d = d;
	r.opt = opt;
	r.alloc.alloc = pb_alloc;
	r.alloc.free = pb_free;
	r.alloc.allocator_data = &r;
	r.big_endian = *(const uint8_t *)&one == 0;

	if (len == 0) {
		diag_error(d, NULL, "not a valid ONNX model (the file is empty)");
		return NULL;
	}
	int rc = wire_check(buf, len, &onnx__model_proto__descriptor, 0);
	if (rc) {
		if (rc == -2)
			diag_error(d, NULL,
			           "not a valid ONNX model (messages nested deeper than %d levels)",
			           ONNX_MAX_DEPTH);
		else
			diag_error(d, NULL, "not a valid ONNX model (protobuf decoding failed)");
		return NULL;
	}
	Onnx__ModelProto *m = onnx__model_proto__unpack(&r.alloc, len, buf);
	if (!m) {
		if (r.out_of_memory)
			diag_error(d, NULL, "out of memory while decoding the model");
		else
			diag_error(d, NULL, "not a valid ONNX model (protobuf decoding failed)");
		return NULL;
	}
	if (!m->has_ir_version || m->ir_version < 1) {
		diag_error(d, NULL, "not a valid ONNX model (no IR version)");
		onnx__model_proto__free_unpacked(m, &r.alloc);
		return NULL;
	}
	if (!m->graph) {
		diag_error(d, NULL, "not a valid ONNX model (no graph)");
		onnx__model_proto__free_unpacked(m, &r.alloc);
		return NULL;
	}

	r.g = ir_graph_new(path);
	read_header(&r, m);
	Onnx__GraphProto *gp = m->graph;
	read_initializers(&r, gp);
	read_inputs(&r, gp);
	for (size_t i = 0; i < gp->n_node; i++)
		read_node(&r, gp->node[i], i);
	read_outputs(&r, gp);

	onnx__model_proto__free_unpacked(m, &r.alloc);
	free(r.values.slots);
	free(r.nodes.slots);
	if (d->errors > errors) {
		ir_graph_free(r.g);
		return NULL;
	}
	return r.g;
}
