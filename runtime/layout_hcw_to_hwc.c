/* layout_hcw_to_hwc.c - HCW -> HWC (transforms.def): each input row is a C x W
 * matrix to transpose (layout_transpose.c). */
#include "runtime/rt_types.h"

/* layout_transpose.c: the transpose, on the threads of rt_parallel */
RT_FN void rt_layout_transpose_mt(int r, int c, const float *x, size_t ldx, float *y,
                                  size_t ldy);

RT_FN void rt_layout_hcw_to_hwc(int N, int C, int H, int W,
                                const float *x, /* [N][H][C][W] */
                                float *y)       /* out: [N][H][W][C] */
{
	const size_t row = (size_t)C * W, img = row * H;
	for (int n = 0; n < N; n++)
		for (int h = 0; h < H; h++)
			rt_layout_transpose_mt(C, W, x + n * img + h * row, (size_t)W, y + n * img + h * row,
			                    (size_t)C);
}
