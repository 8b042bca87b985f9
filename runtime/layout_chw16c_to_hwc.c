/* layout_chw16c_to_hwc.c - CHW16c -> HWC (transforms.def): each pixel's
 * channels are gathered, 16 at a time, from the channel blocks; padding
 * channels are dropped (layout_blocked.h, with B = 16). */
#include "runtime/rt_types.h"
#include "runtime/layout_blocked.h"

static RT_BLOCKED_NOINLINE_ void rt_chw16c_to_hwc_items_(void *ctx, int begin, int end)
{
	rt_blocked_to_hwc_items_(ctx, begin, end, 16);
}

RT_FN void rt_layout_chw16c_to_hwc(int N, int C, int H, int W,
                                   const float *x, /* [N][C/16][H][W][16] */
                                   float *y)       /* out: [N][H][W][C] */
{
	rt_blocked_hwc_run_(N, C, H, W, x, y, rt_chw16c_to_hwc_items_);
}
