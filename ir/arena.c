/* arena.c - bump allocation in large blocks; everything is released at once
 * by arena_free (STYLE.md §4: no IR object is freed alone). */
#include <stdlib.h>
#include <string.h>

#include "ir/ir.h"

#define ARENA_BLOCK (1u << 20)
#define ARENA_ALIGN 16

struct arena_block {
	struct arena_block *next;
	size_t size; /* usable bytes in data */
	size_t used;
	_Alignas(16) unsigned char data[];
};

void arena_init(struct arena *a)
{
	a->head = NULL;
	a->used = 0;
}

void arena_free(struct arena *a)
{
	struct arena_block *b = a->head;
	while (b) {
		struct arena_block *next = b->next;
		free(b);
		b = next;
	}
	a->head = NULL;
	a->used = 0;
}

void *arena_alloc(struct arena *a, size_t n)
{
	struct arena_block *b = a->head;
	n = (n + ARENA_ALIGN - 1) & ~(size_t)(ARENA_ALIGN - 1);
	if (!b || b->size - b->used < n) {
		size_t size = n > ARENA_BLOCK / 4 ? n : ARENA_BLOCK;
		if (size > SIZE_MAX - sizeof *b)
			unreachable("arena request overflows size_t");
		b = xmalloc(sizeof *b + size);
		b->size = size;
		b->used = 0;
		/* A dedicated block for a big request goes behind the current one, so
		 * the current block's free space stays usable. */
		if (size != ARENA_BLOCK && a->head) {
			b->next = a->head->next;
			a->head->next = b;
		} else {
			b->next = a->head;
			a->head = b;
		}
	}
	void *p = b->data + b->used;
	b->used += n;
	a->used += n;
	memset(p, 0, n);
	return p;
}

char *arena_strdup(struct arena *a, const char *s)
{
	return arena_memdup(a, s, strlen(s) + 1);
}

void *arena_memdup(struct arena *a, const void *p, size_t n)
{
	void *q = arena_alloc(a, n);
	if (n)
		memcpy(q, p, n);
	return q;
}
