/* typed_concat.c - concat.c's rt_concat_part for elements of es bytes: y
 * viewed as [outer, total], x as [outer, part], written at column offset. */
#include <string.h>

#include "runtime/rt_typed.h"

RT_FN void rt_tconcat_part(size_t es, int outer, int part, int total, int offset,
                           const void *x, /* [outer, part] */
                           void *y)       /* out: columns [offset, offset + part) of [outer, total] */
{
	for (int o = 0; o < outer; o++)
		memcpy((unsigned char *)y + es * ((size_t)o * (size_t)total + (size_t)offset),
		       (const unsigned char *)x + es * (size_t)o * (size_t)part, es * (size_t)part);
}
