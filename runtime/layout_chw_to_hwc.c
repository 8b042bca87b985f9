/* layout_chw_to_hwc.c - CHW -> HWC (the DT graph's edges: transforms.def):
 * each image is a C x (H*W) matrix to transpose (layout_transpose.c). */
#include "runtime/rt_types.h"

/* layout_transpose.c: the transpose, on the threads of rt_parallel */
RT_FN void rt_layout_transpose_mt(int r, int c, const float *x, size_t ldx, float *y,
                                  size_t ldy);

RT_FN void rt_layout_chw_to_hwc(int N, int C, int H, int W,
                                const float *x, /* [N][C][H][W] */
                                float *y)       /* out: [N][H][W][C] */
{
	const size_t hw = (size_t)H * W, img = (size_t)C * hw;
	for (int n = 0; n < N; n++)
		rt_layout_transpose_mt(C, (int)hw, x + n * img, hw, y + n * img, (size_t)C);
}
