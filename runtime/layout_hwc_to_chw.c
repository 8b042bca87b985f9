/* layout_hwc_to_chw.c - HWC -> CHW (transforms.def): each image is an (H*W) x
 * C matrix to transpose (layout_transpose.c). */
#include "runtime/rt_types.h"

/* layout_transpose.c: the transpose, on the threads of rt_parallel */
RT_FN void rt_layout_transpose_mt(int r, int c, const float *x, size_t ldx, float *y,
                                  size_t ldy);

RT_FN void rt_layout_hwc_to_chw(int N, int C, int H, int W,
                                const float *x, /* [N][H][W][C] */
                                float *y)       /* out: [N][C][H][W] */
{
	const size_t hw = (size_t)H * W, img = (size_t)C * hw;
	for (int n = 0; n < N; n++)
		rt_layout_transpose_mt((int)hw, C, x + n * img, (size_t)C, y + n * img, hw);
}
