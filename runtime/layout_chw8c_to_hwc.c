/* layout_chw8c_to_hwc.c - CHW8c -> HWC (transforms.def): each pixel's
 * channels are gathered, 8 at a time, from the channel blocks; padding
 * channels are dropped (layout_blocked.h, with B = 8). */
#include "runtime/rt_types.h"
#include "runtime/layout_blocked.h"

static RT_BLOCKED_NOINLINE_ void rt_chw8c_to_hwc_items_(void *ctx, int begin, int end)
{
	rt_blocked_to_hwc_items_(ctx, begin, end, 8);
}

RT_FN void rt_layout_chw8c_to_hwc(int N, int C, int H, int W,
                                  const float *x, /* [N][C/8][H][W][8] */
                                  float *y)       /* out: [N][H][W][C] */
{
	rt_blocked_hwc_run_(N, C, H, W, x, y, rt_chw8c_to_hwc_items_);
}
