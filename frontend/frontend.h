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

#endif
