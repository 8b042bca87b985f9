/* layout_chw8c_to_hwc.c - CHW8c -> HWC (transforms.def): each pixel's channels
 * are gathered, 8 at a time, from the channel blocks; padding channels are
 * dropped. */
#include "runtime/rt_types.h"

RT_FN void rt_layout_chw8c_to_hwc(int N, int C, int H, int W,
                                  const float *x, /* [N][C/8][H][W][8] */
                                  float *y)       /* out: [N][H][W][C] */
{
	const int cb = (C + 7) / 8;
	const size_t hw = (size_t)H * W, blk = hw * 8;
	/* pixel by pixel: cb read streams, one write stream */
	for (int n = 0; n < N; n++) {
		const float *xn = x + (size_t)n * cb * blk;
		float *yn = y + (size_t)n * C * hw;
		for (size_t p = 0; p < hw; p++) {
			const float *xp = xn + p * 8; /* block 0's [8] of this pixel */
			float *yp = yn + p * C;         /* [C] */
			int k = 0;
			for (; (k + 1) * 8 <= C; k++)
				for (int r = 0; r < 8; r++)
					yp[k * 8 + r] = xp[k * blk + r];
			for (int c = k * 8; c < C; c++)
				yp[c] = xp[k * blk + c - k * 8];
		}
	}
}
