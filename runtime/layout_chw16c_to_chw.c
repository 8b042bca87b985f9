/* layout_chw16c_to_chw.c - CHW16c -> CHW (transforms.def): each block is an
 * (H*W) x 16 matrix whose first min(16, C - block start) columns are
 * transposed (layout_transpose.c); padding channels are dropped. */
#include "runtime/rt_types.h"

/* layout_transpose.c: the transpose, on the threads of rt_parallel */
RT_FN void rt_layout_transpose_mt(int r, int c, const float *x, size_t ldx, float *y,
                                  size_t ldy);

RT_FN void rt_layout_chw16c_to_chw(int N, int C, int H, int W,
                                   const float *x, /* [N][C/16][H][W][16] */
                                   float *y)       /* out: [N][C][H][W] */
{
	const int cb = (C + 15) / 16;
	const size_t hw = (size_t)H * W;
	for (int n = 0; n < N; n++) {
		const float *xn = x + (size_t)n * cb * 16 * hw;
		float *yn = y + (size_t)n * C * hw;
		for (int k = 0; k < cb; k++) {
			const int rows = C - k * 16 < 16 ? C - k * 16 : 16;
			rt_layout_transpose_mt((int)hw, rows, xn + (size_t)k * hw * 16, 16,
			                    yn + (size_t)k * 16 * hw, hw);
		}
	}
}
