/* typed_where.c - ONNX Where (https://onnx.ai/onnx/operators/onnx__Where.html):
 * out = cond ? x : y elementwise, the three operands broadcast numpy-style;
 * x, y and out share one type of es bytes per element. */
#include <string.h>

#include "runtime/rt_typed.h"

RT_FN void rt_where(const struct rt_tbcast *p, /* cond via s[0], x via s[1], y via s[2] */
                    size_t es,                  /* bytes per element of x, y, out */
                    const uint8_t *cond, const void *x, const void *y,
                    void *out) /* out: dense [p->dims] */
{
	int idx[RT_MAX_RANK] = {0};
	ptrdiff_t off[3] = {0, 0, 0};
	size_t count = rt_tbcast_count(p);
	for (size_t t = 0; t < count; t++) {
		const unsigned char *src = cond[off[0]] ? (const unsigned char *)x + es * (size_t)off[1]
		                                        : (const unsigned char *)y + es * (size_t)off[2];
		memcpy((unsigned char *)out + es * t, src, es);
		rt_tbcast_next(p, idx, off);
	}
}
