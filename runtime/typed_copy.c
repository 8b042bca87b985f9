/* typed_copy.c - transpose.c's strided copy for elements of es bytes (the
 * integer, boolean and float64 tensors of Transpose, Slice, Expand, Tile,
 * DepthToSpace and SpaceToDepth): y is dense over p->dims and
 *   y[i] = x[sum(i[d] * sx[d])]   (in elements). */
#include <string.h>

#include "runtime/rt_typed.h"

RT_FN void rt_tcopy(size_t es, const struct rt_transpose *p,
                    const void *x, /* read through p->sx */
                    void *y)       /* out: dense [p->dims]; must not overlap x */
{
	int idx[RT_MAX_RANK] = {0};
	ptrdiff_t ix = 0;
	size_t count = 1;
	for (int d = 0; d < p->rank; d++)
		count *= (size_t)p->dims[d];
	for (size_t t = 0; t < count; t++) {
		memcpy((unsigned char *)y + es * t, (const unsigned char *)x + es * (size_t)ix, es);
		for (int d = p->rank - 1; d >= 0; d--) {
			idx[d]++;
			ix += p->sx[d];
			if (idx[d] < p->dims[d])
				break;
			ix -= (ptrdiff_t)p->sx[d] * p->dims[d];
			idx[d] = 0;
		}
	}
}
