/* tests/diag_capture.h - a struct diag that writes into memory, so the unit
 * tests (test_ir, test_passes) can search what a pass or the verifier
 * reported. Include after <criterion/criterion.h>. */
#ifndef DNNCC_TESTS_DIAG_CAPTURE_H
#define DNNCC_TESTS_DIAG_CAPTURE_H

#include <stdio.h>
#include <stdlib.h>

#include "ir/ir.h"

struct capture {
	struct diag d;
	char *text; /* what was reported so far (open_memstream) */
	size_t len;
	FILE *f;
};

/* Messages name the file "m.onnx". */
static inline void capture_open(struct capture *c)
{
	c->text = NULL;
	c->len = 0;
	c->f = open_memstream(&c->text, &c->len);
	cr_assert_not_null(c->f);
	diag_init(&c->d, "m.onnx", c->f);
}

static inline const char *capture_text(struct capture *c)
{
	fflush(c->f);
	return c->text ? c->text : "";
}

static inline void capture_close(struct capture *c)
{
	fclose(c->f);
	free(c->text);
}

#endif
