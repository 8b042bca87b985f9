/* layout_hwc_to_hcw.c - HWC -> HCW (transforms.def): each input row is a W x C
 * matrix to transpose (layout_transpose.c). */
#include "runtime/rt_types.h"

/* layout_transpose.c: the transpose, on the threads of rt_parallel */
RT_FN void rt_layout_transpose_mt(int r, int c, const float *x, size_t ldx, float *y,
                                  size_t ldy);

RT_FN void rt_layout_hwc_to_hcw(int N, int C, int H, int W,
                                const float *x, /* [N][H][W][C] */
                                float *y)       /* out: [N][H][C][W] */
{
	const size_t row = (size_t)C * W, img = row * H;
	for (int n = 0; n < N; n++)
		for (int h = 0; h < H; h++)
			rt_layout_transpose_mt(W, C, x + n * img + h * row, (size_t)C, y + n * img + h * row,
			                    (size_t)W);
}
