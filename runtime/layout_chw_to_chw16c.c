/* layout_chw_to_chw16c.c - CHW -> CHW16c (transforms.def): each block of 16
 * channels is a 16 x (H*W) matrix to transpose; the channels of the last
 * block past C are written as zero (layout_blocked.h, with B = 16). */
#include "runtime/rt_types.h"
#include "runtime/layout_blocked.h"

static RT_BLOCKED_NOINLINE_ void rt_chw_to_chw16c_part_(void *ctx, int begin, int end)
{
	rt_chw_to_blocked_part_(ctx, begin, end, 16);
}

static RT_BLOCKED_NOINLINE_ void rt_chw_to_chw16c_blocks_(void *ctx, int begin, int end)
{
	rt_chw_to_blocked_blocks_(ctx, begin, end, 16);
}

RT_FN void rt_layout_chw_to_chw16c(int N, int C, int H, int W,
                                   const float *x, /* [N][C][H][W] */
                                   float *y)       /* out: [N][C/16][H][W][16] */
{
	rt_chw_to_blocked_(N, C, H, W, x, y, 16, rt_chw_to_chw16c_part_, rt_chw_to_chw16c_blocks_);
}
