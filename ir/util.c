/* util.c - allocation wrappers: the compiler reports an out-of-memory once and
 * exits, so no caller has to handle NULL. */
#include <stdlib.h>
#include <string.h>

#include "ir/ir.h"

static _Noreturn void out_of_memory(size_t n)
{
	fprintf(stderr, "dnncc: out of memory (allocating %zu bytes)\n", n);
	exit(2);
}

void *xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);
	if (!p)
		out_of_memory(n);
	return p;
}

void *xcalloc(size_t n, size_t size)
{
	void *p = calloc(n ? n : 1, size ? size : 1);
	if (!p)
		out_of_memory(n * size);
	return p;
}

void *xrealloc(void *p, size_t n)
{
	p = realloc(p, n ? n : 1);
	if (!p)
		out_of_memory(n);
	return p;
}

char *xstrdup(const char *s)
{
	size_t n = strlen(s) + 1;
	return memcpy(xmalloc(n), s, n);
}

_Noreturn void ir_die(const char *file, int line, const char *msg)
{
	fprintf(stderr, "dnncc: internal error at %s:%d: %s\n", file, line, msg);
	abort();
}
