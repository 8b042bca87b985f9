/* maxpool.c - 2-D max pooling, ONNX MaxPool
 * (https://onnx.ai/onnx/operators/onnx__MaxPool.html):
 *   y[n, c, i, j] = max over u < kH, v < kW of
 *                   x[n, c, i*sH - padT + u*dH, j*sW - padL + v*dW]
 * where window positions outside the input (pads, and the overhang of the last
 * window under ceil_mode) are skipped, never counted as zero. A window with no
 * position inside the input (impossible for shapes ONNX accepts) gives -inf. */
#include "runtime/rt_types.h"

RT_FN void rt_maxpool2d(const struct rt_pool2d *p,
                        const float *x, /* [N, C, H, W] */
                        float *y)       /* out: [N, C, oH, oW] */
{
	for (size_t nc = 0; nc < (size_t)p->N * p->C; nc++) {
		const float *xp = x + nc * p->H * p->W;   /* [H, W] */
		float *yp = y + nc * p->oH * p->oW;       /* [oH, oW] */
		for (int i = 0; i < p->oH; i++) {
			for (int j = 0; j < p->oW; j++) {
				float best = -INFINITY;
				for (int u = 0; u < p->kH; u++) {
					const int ih = i * p->sH - p->padT + u * p->dH;
					if (ih < 0 || ih >= p->H)
						continue;
					for (int v = 0; v < p->kW; v++) {
						const int iw = j * p->sW - p->padL + v * p->dW;
						if (iw < 0 || iw >= p->W)
							continue;
						if (xp[(size_t)ih * p->W + iw] > best)
							best = xp[(size_t)ih * p->W + iw];
					}
				}
				yp[(size_t)i * p->oW + j] = best;
			}
		}
	}
}
