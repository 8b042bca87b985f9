/* layout_chw_to_hcw.c - CHW -> HCW (transforms.def): whole W-long rows move
 * unchanged, so it is a sequence of row copies. */
#include "runtime/rt_types.h"

RT_FN void rt_layout_chw_to_hcw(int N, int C, int H, int W,
                                const float *x, /* [N][C][H][W] */
                                float *y)       /* out: [N][H][C][W] */
{
	const size_t img = (size_t)C * H * W;
	for (int n = 0; n < N; n++)
		for (int h = 0; h < H; h++)
			for (int c = 0; c < C; c++)
				memcpy(y + n * img + ((size_t)h * C + c) * W, x + n * img + ((size_t)c * H + h) * W,
				       (size_t)W * sizeof *y);
}
