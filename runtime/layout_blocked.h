/* layout_blocked.h - the transforms between the blocked layouts CHW8c and
 * CHW16c and the plain CHW and HWC (transforms.def), each direction written
 * once over the block width B (8 or 16). Block k of an image holds channels
 * [k*B, k*B + B) as [H][W][B]; the channels of the last block past C are
 * zero (the layout's contract, primitives.h).
 *   CHW -> blocked   each full block is a B x (H*W) transpose
 *                    (layout_transpose.c); a partial one (a 3-channel image)
 *                    is copied pixel by pixel, padding lanes written as zero
 *   blocked -> CHW   each block an (H*W) x B matrix whose first
 *                    min(B, C - k*B) columns are transposed
 *   HWC -> blocked   pixel by pixel: one read stream, cb write streams
 *   blocked -> HWC   pixel by pixel: cb read streams, one write stream
 * Each layout_*_chw8c / *_chw16c unit binds B to a constant in a small
 * callback and its RUN, so the compiler specialises and vectorises these
 * loops for its width. Copied into generated code before those units; the
 * helpers a model does not call are left out. The threads take parts of the
 * pixels (rt_parallel), or whole blocks where each block is too small to
 * split but the image is not (CHW <-> blocked); each value is copied alone,
 * so the cut changes nothing that lands. */
#ifndef RT_LAYOUT_BLOCKED_H
#define RT_LAYOUT_BLOCKED_H

#include "runtime/rt_types.h"
/* rt_layout_transpose(_mt) (layout_transpose.c, the CHW units' dependency) */
#include "runtime/dnncc_rt.h"

/* On the units' callbacks: keeps each one the single copy of its pixel
 * loop, called by the serial branch and the threads alike, as the
 * hand-written transforms were; without it gcc -O2 also inlines the loop
 * into the RUN (a second copy: 210 instructions instead of 39). */
#if defined(__GNUC__)
#define RT_BLOCKED_NOINLINE_ __attribute__((noinline))
#else
#define RT_BLOCKED_NOINLINE_
#endif

/* The work of one call of a pixel loop below, shared by the threads. */
struct rt_blocked_job_ {
	int C;          /* channels: of the image; for a partial CHW block, its own */
	size_t hw;      /* pixels, H*W */
	const float *x; /* the source, layout per loop */
	float *y;       /* out: the destination */
};

/* Whether the threads take whole blocks of one image: each block is too
 * small to split (rt_layout_transpose_mt would run it on one thread) but
 * the image is not (GoogLeNet's 128 x 28 x 28: 60-75 us on one thread). */
static inline int rt_blocked_by_blocks_(int C, size_t hw, const int B)
{
	return (double)RT_PARALLEL_COPY_UNITS * B * hw < RT_PARALLEL_MIN_WORK &&
	       (double)RT_PARALLEL_COPY_UNITS * C * hw >= RT_PARALLEL_MIN_WORK && C / B > 1;
}

/* CHW -> blocked, full blocks [begin, end) of one image, each transposed
 * whole on this thread: x [C][hw], y [C/B][hw][B]. */
static inline void rt_chw_to_blocked_blocks_(void *ctx, int begin, int end, const int B)
{
	const struct rt_blocked_job_ *j = ctx;
	for (int k = begin; k < end; k++)
		rt_layout_transpose(B, (int)j->hw, j->x + (size_t)k * B * j->hw, j->hw,
		                    j->y + (size_t)k * j->hw * B, B);
}

/* Blocked -> CHW, blocks [begin, end) of one image (the last one partial),
 * each transposed whole on this thread: x [C/B][hw][B], y [C][hw]. */
static inline void rt_blocked_to_chw_blocks_(void *ctx, int begin, int end, const int B)
{
	const struct rt_blocked_job_ *j = ctx;
	for (int k = begin; k < end; k++) {
		const int rows = j->C - k * B < B ? j->C - k * B : B;
		rt_layout_transpose((int)j->hw, rows, j->x + (size_t)k * j->hw * B, B,
		                    j->y + (size_t)k * B * j->hw, j->hw);
	}
}

/* CHW -> blocked, pixels [hw*begin/RT_PARALLEL_ITEMS, hw*end/RT_PARALLEL_ITEMS)
 * of a partial block: x [C][hw] (C < B), y [hw][B], lanes past C zero. */
static inline void rt_chw_to_blocked_part_(void *ctx, int begin, int end, const int B)
{
	const struct rt_blocked_job_ *j = ctx;
	const size_t p0 = j->hw * (size_t)begin / RT_PARALLEL_ITEMS;
	const size_t p1 = j->hw * (size_t)end / RT_PARALLEL_ITEMS;
	for (size_t p = p0; p < p1; p++) {
		for (int r = 0; r < j->C; r++)
			j->y[p * B + r] = j->x[r * j->hw + p];
		for (int r = j->C; r < B; r++)
			j->y[p * B + r] = 0.0f;
	}
}

/* x [N][C][H][W] -> y [N][C/B][H][W][B]; part and blocks are the unit's
 * rt_chw_to_blocked_part_ and rt_chw_to_blocked_blocks_ with its B. */
static inline void rt_chw_to_blocked_(int N, int C, int H, int W, const float *x, float *y,
                                      const int B, rt_range_fn part, rt_range_fn blocks)
{
	const int cb = (C + B - 1) / B;
	const size_t hw = (size_t)H * W;
	for (int n = 0; n < N; n++) {
		const float *xn = x + (size_t)n * C * hw;
		float *yn = y + (size_t)n * cb * B * hw;
		int k0 = 0;
		if (rt_blocked_by_blocks_(C, hw, B)) {
			struct rt_blocked_job_ j = {C, hw, xn, yn};
			k0 = C / B;
			rt_parallel(blocks, &j, k0);
		}
		for (int k = k0; k < cb; k++) {
			const int rows = C - k * B < B ? C - k * B : B;
			float *yk = yn + (size_t)k * hw * B;       /* [H*W][B] */
			const float *xk = xn + (size_t)k * B * hw; /* [rows][H*W] */
			if (rows == B) {
				rt_layout_transpose_mt(B, (int)hw, xk, hw, yk, B);
				continue;
			}
			/* the last, partial block: pixels cut into RT_PARALLEL_ITEMS parts */
			struct rt_blocked_job_ j = {rows, hw, xk, yk};
			if ((double)RT_PARALLEL_COPY_UNITS * hw * B < RT_PARALLEL_MIN_WORK)
				part(&j, 0, RT_PARALLEL_ITEMS);
			else
				rt_parallel(part, &j, RT_PARALLEL_ITEMS);
		}
	}
}

/* x [N][C/B][H][W][B] -> y [N][C][H][W]; padding channels are dropped;
 * blocks is the unit's rt_blocked_to_chw_blocks_ with its B. */
static inline void rt_blocked_to_chw_(int N, int C, int H, int W, const float *x, float *y,
                                      const int B, rt_range_fn blocks)
{
	const int cb = (C + B - 1) / B;
	const size_t hw = (size_t)H * W;
	for (int n = 0; n < N; n++) {
		const float *xn = x + (size_t)n * cb * B * hw;
		float *yn = y + (size_t)n * C * hw;
		if (rt_blocked_by_blocks_(C, hw, B)) {
			struct rt_blocked_job_ j = {C, hw, xn, yn};
			rt_parallel(blocks, &j, cb);
			continue;
		}
		for (int k = 0; k < cb; k++) {
			const int rows = C - k * B < B ? C - k * B : B;
			rt_layout_transpose_mt((int)hw, rows, xn + (size_t)k * hw * B, B,
			                       yn + (size_t)k * B * hw, hw);
		}
	}
}

/* HWC -> blocked, items [begin, end): image it / RT_PARALLEL_ITEMS, part
 * it % RT_PARALLEL_ITEMS of its pixels; x [N][H][W][C], y [N][C/B][H][W][B]. */
static inline void rt_hwc_to_blocked_items_(void *ctx, int begin, int end, const int B)
{
	const struct rt_blocked_job_ *j = ctx;
	const int C = j->C, cb = (C + B - 1) / B;
	const size_t hw = j->hw, blk = hw * B;
	for (int it = begin; it < end; it++) {
		const int n = it / RT_PARALLEL_ITEMS, part = it % RT_PARALLEL_ITEMS;
		const float *xn = j->x + (size_t)n * C * hw;
		float *yn = j->y + (size_t)n * cb * blk;
		const size_t p1 = hw * (part + 1) / RT_PARALLEL_ITEMS;
		for (size_t p = hw * part / RT_PARALLEL_ITEMS; p < p1; p++) {
			const float *xp = xn + p * C; /* [C] */
			float *yp = yn + p * B;       /* block 0's [B] of this pixel */
			int k = 0;
			for (; (k + 1) * B <= C; k++)
				for (int r = 0; r < B; r++)
					yp[k * blk + r] = xp[k * B + r];
			if (k < cb) { /* the last, partial block */
				for (int r = 0; r < C - k * B; r++)
					yp[k * blk + r] = xp[k * B + r];
				for (int r = C - k * B; r < B; r++)
					yp[k * blk + r] = 0.0f;
			}
		}
	}
}

/* Blocked -> HWC, items as rt_hwc_to_blocked_items_; x [N][C/B][H][W][B],
 * y [N][H][W][C]. */
static inline void rt_blocked_to_hwc_items_(void *ctx, int begin, int end, const int B)
{
	const struct rt_blocked_job_ *j = ctx;
	const int C = j->C, cb = (C + B - 1) / B;
	const size_t hw = j->hw, blk = hw * B;
	for (int it = begin; it < end; it++) {
		const int n = it / RT_PARALLEL_ITEMS, part = it % RT_PARALLEL_ITEMS;
		const float *xn = j->x + (size_t)n * cb * blk;
		float *yn = j->y + (size_t)n * C * hw;
		const size_t p1 = hw * (part + 1) / RT_PARALLEL_ITEMS;
		for (size_t p = hw * part / RT_PARALLEL_ITEMS; p < p1; p++) {
			const float *xp = xn + p * B; /* block 0's [B] of this pixel */
			float *yp = yn + p * C;       /* [C] */
			int k = 0;
			for (; (k + 1) * B <= C; k++)
				for (int r = 0; r < B; r++)
					yp[k * B + r] = xp[k * blk + r];
			for (int c = k * B; c < C; c++)
				yp[c] = xp[k * blk + c - k * B];
		}
	}
}

/* Runs items, the unit's rt_hwc_to_blocked_items_ or rt_blocked_to_hwc_items_
 * with its B, over N images of C x H x W. */
static inline void rt_blocked_hwc_run_(int N, int C, int H, int W, const float *x, float *y,
                                       rt_range_fn items)
{
	struct rt_blocked_job_ j = {C, (size_t)H * W, x, y};
	if ((double)RT_PARALLEL_COPY_UNITS * N * C * H * W < RT_PARALLEL_MIN_WORK)
		items(&j, 0, N * RT_PARALLEL_ITEMS);
	else
		rt_parallel(items, &j, N * RT_PARALLEL_ITEMS);
}

#endif
