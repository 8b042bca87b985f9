/* fuzz_common.c - the pipeline tail shared by the harnesses (fuzz.h). */
#include <stdio.h>
#include <stdlib.h>

#include "tests/fuzz/fuzz.h"

int fuzz_accepted;

void fuzz_diag(struct diag *d, const char *file)
{
	static FILE *sink;
	if (!sink)
		sink = fopen("/dev/null", "w");
	if (!sink) {
		perror("fuzz: /dev/null");
		abort();
	}
	diag_init(d, file, sink);
}

/* The verifier found a broken graph after stage although nothing reported
 * an error: print what it found (the first run went to the sink) and stop. */
static void broken(const struct graph *g, const char *stage, int shapes_known)
{
	struct diag loud;
	diag_init(&loud, "fuzz input", stderr);
	ir_verify(g, stage, shapes_known, &loud);
	fprintf(stderr, "fuzz: the IR verifier failed after %s without an error reported\n",
	        stage);
	abort();
}

void fuzz_pipeline(struct graph *g, const struct options *opt, struct diag *d)
{
	static const struct {
		const char *name;
		int (*run)(struct graph *, const struct options *, struct diag *);
	} passes[] = {
		{"infer_shapes", pass_infer_shapes},
		{"canonicalize", pass_canonicalize},
	};
	if (!g)
		return;
	if (d->errors) {
		ir_graph_free(g);
		return;
	}
	if (ir_verify(g, "frontend", 0, d))
		broken(g, "frontend", 0);
	size_t i = 0;
	for (; i < sizeof passes / sizeof passes[0]; i++) {
		int errors = d->errors;
		if (passes[i].run(g, opt, d) || d->errors > errors)
			break;
		if (ir_verify(g, passes[i].name, 1, d))
			broken(g, passes[i].name, 1);
	}
	fuzz_accepted += i == sizeof passes / sizeof passes[0];
	ir_graph_free(g);
}
