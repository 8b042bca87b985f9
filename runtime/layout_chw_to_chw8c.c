/* layout_chw_to_chw8c.c - CHW -> CHW8c (transforms.def): each block of 8
 * channels is a 8 x (H*W) matrix to transpose; the channels of the last
 * block past C are written as zero (layout_blocked.h, with B = 8). */
#include "runtime/rt_types.h"
#include "runtime/layout_blocked.h"

static RT_BLOCKED_NOINLINE_ void rt_chw_to_chw8c_part_(void *ctx, int begin, int end)
{
	rt_chw_to_blocked_part_(ctx, begin, end, 8);
}

static RT_BLOCKED_NOINLINE_ void rt_chw_to_chw8c_blocks_(void *ctx, int begin, int end)
{
	rt_chw_to_blocked_blocks_(ctx, begin, end, 8);
}

RT_FN void rt_layout_chw_to_chw8c(int N, int C, int H, int W,
                                  const float *x, /* [N][C][H][W] */
                                  float *y)       /* out: [N][C/8][H][W][8] */
{
	rt_chw_to_blocked_(N, C, H, W, x, y, 8, rt_chw_to_chw8c_part_, rt_chw_to_chw8c_blocks_);
}
