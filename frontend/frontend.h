/* frontend.h - model readers. A frontend translates a file into a graph in
 * ONNX semantics (ir/ir.h) and checks what it reads: every problem is reported
 * through the diag with the file and node name. Nothing after a frontend sees
 * protobuf-c types or prototxt text. */
#ifndef DNNCC_FRONTEND_H
#define DNNCC_FRONTEND_H

#include "ir/ir.h"
#include "passes/passes.h"

/* ---- onnx.c ---------------------------------------------------------------
 * Reads an ONNX ModelProto. Initializers (raw_data or typed fields, external
 * data refused) become constant tensors; Constant nodes stay nodes (folded by
 * infer_shapes); graph inputs that are initializers are weights. Input shapes
 * come from the declared value_info; symbolic dims must be pinned with
 * --shape (opt->shapes) or are an error. Returns NULL after reporting. */
struct graph *onnx_read(const char *path, const struct options *opt, struct diag *d);
/* The same from the file's bytes already in memory (buf[len], not kept);
 * path only names the model in messages. The fuzz harnesses use it. */
struct graph *onnx_read_mem(const char *path, const uint8_t *buf, size_t len,
                            const struct options *opt, struct diag *d);

/* ---- prototxt.c: protobuf text format (protobuf-c has no text parser) -------
 * A parsed text-format message is a tree of fields; errors carry line:column. */
struct ptx_field;
struct ptx_message {
	int n_fields;
	struct ptx_field *fields; /* [n_fields], in file order */
};
enum ptx_kind { PTX_NUMBER, PTX_STRING, PTX_IDENT, PTX_MESSAGE };
struct ptx_field {
	const char *name;          /* field name */
	enum ptx_kind kind;
	const char *text;          /* PTX_NUMBER/PTX_IDENT: the token; PTX_STRING: unescaped */
	size_t text_len;           /* bytes in text (strings may hold NUL) */
	struct ptx_message *msg;   /* PTX_MESSAGE */
	int line, column;          /* where the field name starts (1-based) */
	int used;                  /* set when a reader consumed it; unused ones are warned about */
};
/* Parses text into a tree allocated in arena. On error reports
 * "FILE:LINE:COLUMN: message" through d and returns NULL. */
struct ptx_message *ptx_parse(struct arena *arena, const char *file, const char *text, size_t len,
                              struct diag *d);

/* ---- caffe.c ----------------------------------------------------------------
 * Reads a Caffe deploy.prototxt (layer {} and legacy V1 layers {} styles) and,
 * with opt->caffe_weights, its .caffemodel (binary NetParameter through a
 * protobuf-c schema subset, frontend/caffe.proto); without weights only when
 * opt->random_weights asks for deterministic random ones. Translates into
 * ONNX semantics. Returns NULL after reporting. */
struct graph *caffe_read(const char *path, const struct options *opt, struct diag *d);
/* The same from memory: text[len] is the prototxt path names; weights[weights_len]
 * the contents of opt->caffe_weights when that is set (and random weights are
 * not asked for), else unused. Neither buffer is kept. */
struct graph *caffe_read_mem(const char *path, const char *text, size_t len,
                             const uint8_t *weights, size_t weights_len,
                             const struct options *opt, struct diag *d);

#endif
