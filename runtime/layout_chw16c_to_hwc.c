/* layout_chw16c_to_hwc.c - CHW16c -> HWC (transforms.def): each pixel's
 * channels are gathered, 16 at a time, from the channel blocks; padding
 * channels are dropped. */
#include "runtime/rt_types.h"

RT_FN void rt_layout_chw16c_to_hwc(int N, int C, int H, int W,
                                   const float *x, /* [N][C/16][H][W][16] */
                                   float *y)       /* out: [N][H][W][C] */
{
	const int cb = (C + 15) / 16;
	const size_t hw = (size_t)H * W, blk = hw * 16;
	/* pixel by pixel: cb read streams, one write stream */
	for (int n = 0; n < N; n++) {
		const float *xn = x + (size_t)n * cb * blk;
		float *yn = y + (size_t)n * C * hw;
		for (size_t p = 0; p < hw; p++) {
			const float *xp = xn + p * 16; /* block 0's [16] of this pixel */
			float *yp = yn + p * C;         /* [C] */
			int k = 0;
			for (; (k + 1) * 16 <= C; k++)
				for (int r = 0; r < 16; r++)
					yp[k * 16 + r] = xp[k * blk + r];
			for (int c = k * 16; c < C; c++)
				yp[c] = xp[k * blk + c - k * 16];
		}
	}
}
