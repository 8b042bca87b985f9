/* tests/layout_ref.h - the activation layouts of runtime/primitives.h by
 * their definition, element by element: the oracle the primitive tests
 * (test_primitives) and the benchmark's correctness guard (bench/primitives)
 * convert through. Slow on purpose; nothing here is used by the runtime. */
#ifndef DNNCC_TESTS_LAYOUT_REF_H
#define DNNCC_TESTS_LAYOUT_REF_H

#include <stddef.h>
#include <string.h>

#include "runtime/primitives.h"

/* Where element (c, h, w) of one [C][H][W] image lies in layout l. */
static inline size_t layout_index(int l, int C, int H, int W, int c, int h, int w)
{
	switch (l) {
	case RT_L_CHW: return ((size_t)c * H + h) * W + w;
	case RT_L_HCW: return ((size_t)h * C + c) * W + w;
	case RT_L_HWC: return ((size_t)h * W + w) * C + c;
	case RT_L_CHW8C: return (((size_t)(c / 8) * H + h) * W + w) * 8 + c % 8;
	case RT_L_CHW16C: return (((size_t)(c / 16) * H + h) * W + w) * 16 + c % 16;
	}
	return 0;
}

/* x: N images [C][H][W] -> y: N images in layout l (padding channels zero) */
static inline void to_layout(int l, int N, int C, int H, int W, const float *x, float *y)
{
	size_t img = rt_layout_size(l, C, H, W);
	memset(y, 0, N * img * sizeof *y);
	for (int n = 0; n < N; n++)
		for (int c = 0; c < C; c++)
			for (int h = 0; h < H; h++)
				for (int w = 0; w < W; w++)
					y[n * img + layout_index(l, C, H, W, c, h, w)] =
						x[(((size_t)n * C + c) * H + h) * W + w];
}

/* x: N images in layout l -> y: N images [C][H][W] */
static inline void from_layout(int l, int N, int C, int H, int W, const float *x, float *y)
{
	size_t img = rt_layout_size(l, C, H, W);
	for (int n = 0; n < N; n++)
		for (int c = 0; c < C; c++)
			for (int h = 0; h < H; h++)
				for (int w = 0; w < W; w++)
					y[(((size_t)n * C + c) * H + h) * W + w] =
						x[n * img + layout_index(l, C, H, W, c, h, w)];
}

#endif
