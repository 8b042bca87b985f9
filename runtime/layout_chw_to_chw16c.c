/* layout_chw_to_chw16c.c - CHW -> CHW16c (transforms.def): each block of 16
 * channels is a 16 x (H*W) matrix to transpose (layout_transpose.c); the
 * channels of the last block past C are written as zero (the layout's
 * contract, primitives.h). */
#include "runtime/rt_types.h"

/* layout_transpose.c: the transpose, on the threads of rt_parallel */
RT_FN void rt_layout_transpose(int r, int c, const float *x, size_t ldx, float *y, size_t ldy);
RT_FN void rt_layout_transpose_mt(int r, int c, const float *x, size_t ldx, float *y,
                                  size_t ldy);

struct rt_chw_to_chw16c_blocks_job_ {
	size_t hw;
	const float *x; /* one image [C][hw] */
	float *y;       /* out: [C/16][hw][16] */
};

/* Full blocks [begin, end) of one image, each transposed whole. */
static void rt_chw_to_chw16c_blocks_(void *ctx, int begin, int end)
{
	const struct rt_chw_to_chw16c_blocks_job_ *j = ctx;
	for (int k = begin; k < end; k++)
		rt_layout_transpose(16, (int)j->hw, j->x + (size_t)k * 16 * j->hw, j->hw,
		                    j->y + (size_t)k * j->hw * 16, 16);
}

struct rt_chw_to_chw16c_job_ {
	int rows;       /* channels in the block, < 16 */
	size_t hw;      /* pixels */
	const float *x; /* [rows][hw] */
	float *y;       /* out: [hw][16] */
};

/* Pixels [hw*begin/RT_PARALLEL_ITEMS, hw*end/RT_PARALLEL_ITEMS) of a partial
 * block; lanes past rows are written as zero. */
static void rt_chw_to_chw16c_part_(void *ctx, int begin, int end)
{
	const struct rt_chw_to_chw16c_job_ *j = ctx;
	const size_t p0 = j->hw * (size_t)begin / RT_PARALLEL_ITEMS;
	const size_t p1 = j->hw * (size_t)end / RT_PARALLEL_ITEMS;
	for (size_t p = p0; p < p1; p++) {
		for (int r = 0; r < j->rows; r++)
			j->y[p * 16 + r] = j->x[r * j->hw + p];
		for (int r = j->rows; r < 16; r++)
			j->y[p * 16 + r] = 0.0f;
	}
}

RT_FN void rt_layout_chw_to_chw16c(int N, int C, int H, int W,
                                   const float *x, /* [N][C][H][W] */
                                   float *y)       /* out: [N][C/16][H][W][16] */
{
	const int cb = (C + 15) / 16;
	const size_t hw = (size_t)H * W;
	for (int n = 0; n < N; n++) {
		const float *xn = x + (size_t)n * C * hw;
		float *yn = y + (size_t)n * cb * 16 * hw;
		int k0 = 0;
		/* full blocks too small to split but enough of them to (GoogLeNet's
		 * 128 x 28 x 28, 75 us on one thread): threads take whole blocks */
		if ((double)RT_PARALLEL_COPY_UNITS * 16 * hw < RT_PARALLEL_MIN_WORK &&
		    (double)RT_PARALLEL_COPY_UNITS * C * hw >= RT_PARALLEL_MIN_WORK && C / 16 > 1) {
			struct rt_chw_to_chw16c_blocks_job_ j = {hw, xn, yn};
			k0 = C / 16;
			rt_parallel(rt_chw_to_chw16c_blocks_, &j, k0);
		}
		for (int k = k0; k < cb; k++) {
			const int rows = C - k * 16 < 16 ? C - k * 16 : 16;
			float *yk = yn + (size_t)k * hw * 16; /* [H*W][16] */
			const float *xk = xn + (size_t)k * 16 * hw; /* [rows][H*W] */
			if (rows == 16) {
				rt_layout_transpose_mt(16, (int)hw, xk, hw, yk, 16);
				continue;
			}
			/* the last, partial block (a 3-channel image): pixels cut
			 * into RT_PARALLEL_ITEMS parts */
			struct rt_chw_to_chw16c_job_ j = {rows, hw, xk, yk};
			if ((double)RT_PARALLEL_COPY_UNITS * hw * 16 < RT_PARALLEL_MIN_WORK)
				rt_chw_to_chw16c_part_(&j, 0, RT_PARALLEL_ITEMS);
			else
				rt_parallel(rt_chw_to_chw16c_part_, &j, RT_PARALLEL_ITEMS);
		}
	}
}
