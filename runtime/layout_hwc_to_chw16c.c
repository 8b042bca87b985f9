/* layout_hwc_to_chw16c.c - HWC -> CHW16c (transforms.def): each pixel's
 * channels go, 16 at a time, to the pixel's place in each channel block;
 * channels of the last block past C are written as zero. */
#include "runtime/rt_types.h"

struct rt_hwc_to_chw16c_job_ {
	int C;
	size_t hw;
	const float *x; /* [N][H][W][C] */
	float *y;       /* [N][C/16][H][W][16] */
};

/* Items [begin, end): image it / RT_PARALLEL_ITEMS, part it % RT_PARALLEL_ITEMS
 * of its pixels. Pixel by pixel: one read stream, cb write streams. */
static void rt_hwc_to_chw16c_items_(void *ctx, int begin, int end)
{
	const struct rt_hwc_to_chw16c_job_ *j = ctx;
	const int C = j->C, cb = (C + 15) / 16;
	const size_t hw = j->hw, blk = hw * 16;
	for (int it = begin; it < end; it++) {
		const int n = it / RT_PARALLEL_ITEMS, part = it % RT_PARALLEL_ITEMS;
		const float *xn = j->x + (size_t)n * C * hw;
		float *yn = j->y + (size_t)n * cb * blk;
		const size_t p1 = hw * (part + 1) / RT_PARALLEL_ITEMS;
		for (size_t p = hw * part / RT_PARALLEL_ITEMS; p < p1; p++) {
			const float *xp = xn + p * C; /* [C] */
			float *yp = yn + p * 16; /* block 0's [16] of this pixel */
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

/* Threads take parts of the pixels (rt_parallel); each pixel is copied
 * alone, so the cut changes nothing that lands. */
RT_FN void rt_layout_hwc_to_chw16c(int N, int C, int H, int W,
                                   const float *x, /* [N][H][W][C] */
                                   float *y)       /* out: [N][C/16][H][W][16] */
{
	struct rt_hwc_to_chw16c_job_ j = {C, (size_t)H * W, x, y};
	if ((double)RT_PARALLEL_COPY_UNITS * N * C * H * W < RT_PARALLEL_MIN_WORK)
		rt_hwc_to_chw16c_items_(&j, 0, N * RT_PARALLEL_ITEMS);
	else
		rt_parallel(rt_hwc_to_chw16c_items_, &j, N * RT_PARALLEL_ITEMS);
}
