/* layout_hwc_to_chw16c.c - HWC -> CHW16c (transforms.def): each pixel's
 * channels go, 16 at a time, to the pixel's place in each channel block;
 * channels of the last block past C are written as zero. */
#include "runtime/rt_types.h"

RT_FN void rt_layout_hwc_to_chw16c(int N, int C, int H, int W,
                                   const float *x, /* [N][H][W][C] */
                                   float *y)       /* out: [N][C/16][H][W][16] */
{
	const int cb = (C + 15) / 16;
	const size_t hw = (size_t)H * W, blk = hw * 16;
	/* pixel by pixel: one read stream, cb write streams */
	for (int n = 0; n < N; n++) {
		const float *xn = x + (size_t)n * C * hw;
		float *yn = y + (size_t)n * cb * blk;
		for (size_t p = 0; p < hw; p++) {
			const float *xp = xn + p * C; /* [C] */
			float *yp = yn + p * 16;      /* block 0's [16] of this pixel */
			int k = 0;
			for (; (k + 1) * 16 <= C; k++)
				for (int r = 0; r < 16; r++)
					yp[k * blk + r] = xp[k * 16 + r];
			if (k < cb) { /* the last, partial block */
				for (int r = 0; r < C - k * 16; r++)
					yp[k * blk + r] = xp[k * 16 + r];
				for (int r = C - k * 16; r < 16; r++)
					yp[k * blk + r] = 0.0f;
			}
		}
	}
}
