/* layout_chw_to_chw8c.c - CHW -> CHW8c (transforms.def): each block of 8
 * channels is a 8 x (H*W) matrix to transpose (layout_transpose.c); the
 * channels of the last block past C are written as zero (the layout's
 * contract, primitives.h). */
#include "runtime/rt_types.h"

/* layout_transpose.c */
RT_FN void rt_layout_transpose(int r, int c, const float *x, size_t ldx, float *y, size_t ldy);

RT_FN void rt_layout_chw_to_chw8c(int N, int C, int H, int W,
                                  const float *x, /* [N][C][H][W] */
                                  float *y)       /* out: [N][C/8][H][W][8] */
{
	const int cb = (C + 7) / 8;
	const size_t hw = (size_t)H * W;
	for (int n = 0; n < N; n++) {
		const float *xn = x + (size_t)n * C * hw;
		float *yn = y + (size_t)n * cb * 8 * hw;
		for (int k = 0; k < cb; k++) {
			const int rows = C - k * 8 < 8 ? C - k * 8 : 8;
			float *yk = yn + (size_t)k * hw * 8; /* [H*W][8] */
			const float *xk = xn + (size_t)k * 8 * hw; /* [rows][H*W] */
			if (rows == 8) {
				rt_layout_transpose(8, (int)hw, xk, hw, yk, 8);
				continue;
			}
			for (size_t p = 0; p < hw; p++) { /* the last, partial block */
				for (int r = 0; r < rows; r++)
					yk[p * 8 + r] = xk[r * hw + p];
				for (int r = rows; r < 8; r++)
					yk[p * 8 + r] = 0.0f;
			}
		}
	}
}
