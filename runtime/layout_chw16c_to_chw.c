/* layout_chw16c_to_chw.c - CHW16c -> CHW (transforms.def): each block is an
 * (H*W) x 16 matrix whose first min(16, C - block start) columns are
 * transposed; padding channels are dropped (layout_blocked.h, with B = 16). */
#include "runtime/rt_types.h"
#include "runtime/layout_blocked.h"

static RT_BLOCKED_NOINLINE_ void rt_chw16c_to_chw_blocks_(void *ctx, int begin, int end)
{
	rt_blocked_to_chw_blocks_(ctx, begin, end, 16);
}

RT_FN void rt_layout_chw16c_to_chw(int N, int C, int H, int W,
                                   const float *x, /* [N][C/16][H][W][16] */
                                   float *y)       /* out: [N][C][H][W] */
{
	rt_blocked_to_chw_(N, C, H, W, x, y, 16, rt_chw16c_to_chw_blocks_);
}
