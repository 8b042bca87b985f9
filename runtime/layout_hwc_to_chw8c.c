/* layout_hwc_to_chw8c.c - HWC -> CHW8c (transforms.def): each pixel's
 * channels go, 8 at a time, to the pixel's place in each channel block;
 * channels of the last block past C are written as zero (layout_blocked.h,
 * with B = 8). */
#include "runtime/rt_types.h"
#include "runtime/layout_blocked.h"

static RT_BLOCKED_NOINLINE_ void rt_hwc_to_chw8c_items_(void *ctx, int begin, int end)
{
	rt_hwc_to_blocked_items_(ctx, begin, end, 8);
}

RT_FN void rt_layout_hwc_to_chw8c(int N, int C, int H, int W,
                                  const float *x, /* [N][H][W][C] */
                                  float *y)       /* out: [N][C/8][H][W][8] */
{
	rt_blocked_hwc_run_(N, C, H, W, x, y, rt_hwc_to_chw8c_items_);
}
