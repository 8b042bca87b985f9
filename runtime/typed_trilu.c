/* typed_trilu.c - ONNX Trilu (https://onnx.ai/onnx/operators/onnx__Trilu.html):
 * x viewed as [batch, rows, cols]; upper keeps the elements with
 * col - row >= k, lower those with col - row <= k, the rest become zero. */
#include <string.h>

#include "runtime/rt_typed.h"

RT_FN void rt_trilu(size_t es, const void *x, /* [batch, rows, cols], es bytes each */
                    void *y,                  /* out: like x */
                    size_t batch, size_t rows, size_t cols, int64_t k, int upper)
{
	for (size_t b = 0; b < batch; b++)
		for (size_t r = 0; r < rows; r++)
			for (size_t c = 0; c < cols; c++) {
				size_t at = es * ((b * rows + r) * cols + c);
				int64_t d = (int64_t)c - (int64_t)r;
				if (upper ? d >= k : d <= k)
					memcpy((unsigned char *)y + at, (const unsigned char *)x + at, es);
				else
					memset((unsigned char *)y + at, 0, es);
			}
}
