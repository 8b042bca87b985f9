/* layout_chw8c_to_chw.c - CHW8c -> CHW (transforms.def): each block is an
 * (H*W) x 8 matrix whose first min(8, C - block start) columns are
 * transposed; padding channels are dropped (layout_blocked.h, with B = 8). */
#include "runtime/rt_types.h"
#include "runtime/layout_blocked.h"

static RT_BLOCKED_NOINLINE_ void rt_chw8c_to_chw_blocks_(void *ctx, int begin, int end)
{
	rt_blocked_to_chw_blocks_(ctx, begin, end, 8);
}

RT_FN void rt_layout_chw8c_to_chw(int N, int C, int H, int W,
                                  const float *x, /* [N][C/8][H][W][8] */
                                  float *y)       /* out: [N][C][H][W] */
{
	rt_blocked_to_chw_(N, C, H, W, x, y, 8, rt_chw8c_to_chw_blocks_);
}
