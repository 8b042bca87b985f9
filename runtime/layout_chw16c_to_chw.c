/* layout_chw16c_to_chw.c - CHW16c -> CHW (transforms.def): each block is an
 * (H*W) x 16 matrix whose first min(16, C - block start) columns are
 * transposed (layout_transpose.c); padding channels are dropped. */
#include "runtime/rt_types.h"

/* layout_transpose.c: the transpose, on the threads of rt_parallel */
RT_FN void rt_layout_transpose(int r, int c, const float *x, size_t ldx, float *y, size_t ldy);
RT_FN void rt_layout_transpose_mt(int r, int c, const float *x, size_t ldx, float *y,
                                  size_t ldy);

struct rt_chw16c_to_chw_job_ {
	int C;
	size_t hw;
	const float *x; /* one image [C/16][hw][16] */
	float *y;       /* out: [C][hw] */
};

/* Blocks [begin, end) of one image, each transposed whole. */
static void rt_chw16c_to_chw_blocks_(void *ctx, int begin, int end)
{
	const struct rt_chw16c_to_chw_job_ *j = ctx;
	for (int k = begin; k < end; k++) {
		const int rows = j->C - k * 16 < 16 ? j->C - k * 16 : 16;
		rt_layout_transpose((int)j->hw, rows, j->x + (size_t)k * j->hw * 16, 16,
		                    j->y + (size_t)k * 16 * j->hw, j->hw);
	}
}

RT_FN void rt_layout_chw16c_to_chw(int N, int C, int H, int W,
                                   const float *x, /* [N][C/16][H][W][16] */
                                   float *y)       /* out: [N][C][H][W] */
{
	const int cb = (C + 15) / 16;
	const size_t hw = (size_t)H * W;
	for (int n = 0; n < N; n++) {
		const float *xn = x + (size_t)n * cb * 16 * hw;
		float *yn = y + (size_t)n * C * hw;
		/* blocks too small to split but enough of them to (GoogLeNet's
		 * 128 x 28 x 28, 60 us on one thread): threads take whole blocks */
		if ((double)RT_PARALLEL_COPY_UNITS * 16 * hw < RT_PARALLEL_MIN_WORK &&
		    (double)RT_PARALLEL_COPY_UNITS * C * hw >= RT_PARALLEL_MIN_WORK && cb > 1) {
			struct rt_chw16c_to_chw_job_ j = {C, hw, xn, yn};
			rt_parallel(rt_chw16c_to_chw_blocks_, &j, cb);
			continue;
		}
		for (int k = 0; k < cb; k++) {
			const int rows = C - k * 16 < 16 ? C - k * 16 : 16;
			rt_layout_transpose_mt((int)hw, rows, xn + (size_t)k * hw * 16, 16,
			                    yn + (size_t)k * 16 * hw, hw);
		}
	}
}
