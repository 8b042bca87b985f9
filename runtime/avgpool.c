/* avgpool.c - 2-D average pooling, ONNX AveragePool
 * (https://onnx.ai/onnx/operators/onnx__AveragePool.html):
 *   y[n, c, i, j] = (sum of x[n, c, ih, iw] over the window positions
 *                    ih = i*sH - padT + u*dH, iw = j*sW - padL + v*dW,
 *                    u < kH, v < kW, that lie inside the input) / count
 * Pads contribute zeros to the sum. With count_include_pad, count is the
 * number of window positions inside the padded input
 * [-padT, H + padB) x [-padL, W + padR); without it, only those inside the
 * input. Positions beyond the padded input (the overhang of the last window
 * under ceil_mode) are never counted: this is what the ONNX reference
 * implementation does (it pads such positions with NaN and drops them). A
 * window with no counted position (impossible for shapes ONNX accepts)
 * gives 0. */
#include "runtime/rt_types.h"

RT_FN void rt_avgpool2d(const struct rt_pool2d *p,
                        const float *x, /* [N, C, H, W] */
                        float *y)       /* out: [N, C, oH, oW] */
{
	for (size_t nc = 0; nc < (size_t)p->N * p->C; nc++) {
		const float *xp = x + nc * p->H * p->W;   /* [H, W] */
		float *yp = y + nc * p->oH * p->oW;       /* [oH, oW] */
		for (int i = 0; i < p->oH; i++) {
			for (int j = 0; j < p->oW; j++) {
				float sum = 0.0f;
				int count = 0;
				for (int u = 0; u < p->kH; u++) {
					const int ih = i * p->sH - p->padT + u * p->dH;
					const int row_in = ih >= 0 && ih < p->H;
					const int row_padded = ih >= -p->padT && ih < p->H + p->padB;
					for (int v = 0; v < p->kW; v++) {
						const int iw = j * p->sW - p->padL + v * p->dW;
						const int col_in = iw >= 0 && iw < p->W;
						const int col_padded = iw >= -p->padL && iw < p->W + p->padR;
						if (row_in && col_in) {
							sum += xp[(size_t)ih * p->W + iw];
							count++;
						} else if (p->count_include_pad && row_padded && col_padded) {
							count++;
						}
					}
				}
				yp[(size_t)i * p->oW + j] = count > 0 ? sum / (float)count : 0.0f;
			}
		}
	}
}
