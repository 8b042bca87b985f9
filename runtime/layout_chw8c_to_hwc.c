/* layout_chw8c_to_hwc.c - CHW8c -> HWC (transforms.def): each pixel's
 * channels are gathered, 8 at a time, from the channel blocks; padding
 * channels are dropped. */
#include "runtime/rt_types.h"

struct rt_chw8c_to_hwc_job_ {
	int C;
	size_t hw;
	const float *x; /* [N][C/8][H][W][8] */
	float *y;       /* [N][H][W][C] */
};

/* Items [begin, end): image it / RT_PARALLEL_ITEMS, part it % RT_PARALLEL_ITEMS
 * of its pixels. Pixel by pixel: cb read streams, one write stream. */
static void rt_chw8c_to_hwc_items_(void *ctx, int begin, int end)
{
	const struct rt_chw8c_to_hwc_job_ *j = ctx;
	const int C = j->C, cb = (C + 7) / 8;
	const size_t hw = j->hw, blk = hw * 8;
	for (int it = begin; it < end; it++) {
		const int n = it / RT_PARALLEL_ITEMS, part = it % RT_PARALLEL_ITEMS;
		const float *xn = j->x + (size_t)n * cb * blk;
		float *yn = j->y + (size_t)n * C * hw;
		const size_t p1 = hw * (part + 1) / RT_PARALLEL_ITEMS;
		for (size_t p = hw * part / RT_PARALLEL_ITEMS; p < p1; p++) {
			const float *xp = xn + p * 8; /* block 0's [8] of this pixel */
			float *yp = yn + p * C; /* [C] */
			int k = 0;
			for (; (k + 1) * 8 <= C; k++)
				for (int r = 0; r < 8; r++)
					yp[k * 8 + r] = xp[k * blk + r];
			for (int c = k * 8; c < C; c++)
				yp[c] = xp[k * blk + c - k * 8];
		}
	}
}

/* Threads take parts of the pixels (rt_parallel); each pixel is copied
 * alone, so the cut changes nothing that lands. */
RT_FN void rt_layout_chw8c_to_hwc(int N, int C, int H, int W,
                                  const float *x, /* [N][C/8][H][W][8] */
                                  float *y)       /* out: [N][H][W][C] */
{
	struct rt_chw8c_to_hwc_job_ j = {C, (size_t)H * W, x, y};
	if ((double)RT_PARALLEL_COPY_UNITS * N * C * H * W < RT_PARALLEL_MIN_WORK)
		rt_chw8c_to_hwc_items_(&j, 0, N * RT_PARALLEL_ITEMS);
	else
		rt_parallel(rt_chw8c_to_hwc_items_, &j, N * RT_PARALLEL_ITEMS);
}
