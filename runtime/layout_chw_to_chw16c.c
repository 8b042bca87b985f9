/* layout_chw_to_chw16c.c - CHW -> CHW16c (transforms.def): each block of 16
 * channels is a 16 x (H*W) matrix to transpose (layout_transpose.c); the
 * channels of the last block past C are written as zero (the layout's
 * contract, primitives.h). */
#include "runtime/rt_types.h"

/* layout_transpose.c */
RT_FN void rt_layout_transpose(int r, int c, const float *x, size_t ldx, float *y, size_t ldy);

RT_FN void rt_layout_chw_to_chw16c(int N, int C, int H, int W,
                                   const float *x, /* [N][C][H][W] */
                                   float *y)       /* out: [N][C/16][H][W][16] */
{
	const int cb = (C + 15) / 16;
	const size_t hw = (size_t)H * W;
	for (int n = 0; n < N; n++) {
		const float *xn = x + (size_t)n * C * hw;
		float *yn = y + (size_t)n * cb * 16 * hw;
		for (int k = 0; k < cb; k++) {
			const int rows = C - k * 16 < 16 ? C - k * 16 : 16;
			float *yk = yn + (size_t)k * hw * 16; /* [H*W][16] */
			const float *xk = xn + (size_t)k * 16 * hw; /* [rows][H*W] */
			if (rows == 16) {
				rt_layout_transpose(16, (int)hw, xk, hw, yk, 16);
				continue;
			}
			for (size_t p = 0; p < hw; p++) { /* the last, partial block */
				for (int r = 0; r < rows; r++)
					yk[p * 16 + r] = xk[r * hw + p];
				for (int r = rows; r < 16; r++)
					yk[p * 16 + r] = 0.0f;
			}
		}
	}
}
