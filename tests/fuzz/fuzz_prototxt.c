/* fuzz_prototxt.c - the protobuf text-format parser (frontend/prototxt.c)
 * and the Caffe frontend (frontend/caffe.c) on arbitrary text: the parse
 * tree is checked for what frontend.h promises, then the text is read as a
 * deploy.prototxt with deterministic random weights and, when accepted, goes
 * through shape inference and canonicalisation. */
#include <stdio.h>
#include <stdlib.h>

#include "tests/fuzz/fuzz.h"

/* Every field has a name and a position, and its kind's payload. */
static void check_tree(const struct ptx_message *m, int depth)
{
	if (depth > 200 || m->n_fields < 0 || (m->n_fields && !m->fields))
		abort();
	for (int i = 0; i < m->n_fields; i++) {
		const struct ptx_field *f = &m->fields[i];
		if (!f->name || f->line < 1 || f->column < 1)
			abort();
		if (f->kind == PTX_MESSAGE) {
			if (!f->msg)
				abort();
			check_tree(f->msg, depth + 1);
		} else if (!f->text) {
			abort();
		}
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *text = (const char *)data;
	struct diag d;
	fuzz_diag(&d, "fuzz.prototxt");
	struct arena arena;
	arena_init(&arena);
	struct ptx_message *m = ptx_parse(&arena, "fuzz.prototxt", text, size, &d);
	if (m)
		check_tree(m, 0);
	else if (!d.errors)
		abort(); /* a refused parse must say why */
	arena_free(&arena);

	struct options opt = {0};
	opt.model = "fuzz.prototxt";
	opt.weights = WEIGHTS_AUTO;
	opt.random_weights = 1;
	opt.random_seed = 1;
	fuzz_diag(&d, opt.model);
	struct graph *g = caffe_read_mem(opt.model, text, size, NULL, 0, &opt, &d);
	fuzz_pipeline(g, &opt, &d);
	return 0;
}
