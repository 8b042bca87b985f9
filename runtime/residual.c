/* residual.c - the residual epilogue of a convolution (passes/fuse.c): after
 * the primitive wrote y = conv(x) + bias, add the shortcut r, laid out like
 * y, and apply the activation the layer had fused after the Add:
 *   y = act(y + r)
 * ResNet's "Add then Relu" in one pass over the output instead of two layers
 * and a tensor. Dense layouts (CHW, HCW, HWC) cover N * M * HW elements; a
 * blocked CHWxc layout (block 8 or 16) holds [N][ceil(M/x)][HW][x] with the
 * channels past M zero, and those stay zero (act(0) need not be 0). */
#include "runtime/rt_types.h"

/* y[i] = act(y[i] + r[i]) for n contiguous elements; Relu and no activation
 * get loops the compiler vectorises. */
static inline void rt_residual_run_(int act, float alpha, float beta, size_t n, const float *r,
                                    float *y)
{
	if (act == RT_ACT_NONE) {
		for (size_t i = 0; i < n; i++)
			y[i] += r[i];
	} else if (act == RT_ACT_RELU) {
		for (size_t i = 0; i < n; i++) {
			float v = y[i] + r[i];
			y[i] = v > 0.0f ? v : 0.0f;
		}
	} else {
		for (size_t i = 0; i < n; i++)
			y[i] = rt_act_apply(act, alpha, beta, y[i] + r[i]);
	}
}

RT_FN void rt_conv_residual(int N, int M, int HW, int block, int act, float alpha, float beta,
                            const float *r, /* like y */
                            float *y)       /* in and out: N images of M x HW */
{
	if (block == 0) {
		rt_residual_run_(act, alpha, beta, (size_t)N * M * HW, r, y);
		return;
	}
	int nb = (M + block - 1) / block;
	for (int b = 0; b < N * nb; b++) {
		int valid = M - b % nb * block < block ? M - b % nb * block : block;
		float *yb = y + (size_t)b * HW * block;
		const float *rb = r + (size_t)b * HW * block;
		if (valid == block) { /* a whole block is contiguous */
			rt_residual_run_(act, alpha, beta, (size_t)HW * block, rb, yb);
			continue;
		}
		for (size_t i = 0; i < (size_t)HW; i++)
			for (int l = 0; l < valid; l++) {
				size_t k = i * block + l;
				yb[k] = rt_act_apply(act, alpha, beta, yb[k] + rb[k]);
			}
	}
}
