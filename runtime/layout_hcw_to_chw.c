/* layout_hcw_to_chw.c - HCW -> CHW (transforms.def): row copies, the inverse
 * of layout_chw_to_hcw. */
#include "runtime/rt_types.h"

RT_FN void rt_layout_hcw_to_chw(int N, int C, int H, int W,
                                const float *x, /* [N][H][C][W] */
                                float *y)       /* out: [N][C][H][W] */
{
	const size_t img = (size_t)C * H * W;
	for (int n = 0; n < N; n++)
		for (int c = 0; c < C; c++)
			for (int h = 0; h < H; h++)
				memcpy(y + n * img + ((size_t)c * H + h) * W, x + n * img + ((size_t)h * C + c) * W,
				       (size_t)W * sizeof *y);
}
