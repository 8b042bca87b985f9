/* conv_depthwise_group_gemm_hwc.c - grouped convolution as one GEMM per
 * group on HWC images (row conv_depthwise_group_gemm_hwc of
 * fam_depthwise.def).
 *
 * ONNX Conv with group g: output channels [g*Mg, (g+1)*Mg) read only input
 * channels [g*Cg, (g+1)*Cg), Mg = M/group, Cg = C/group. For each image and
 * group, im2row builds one row per output pixel,
 *   A[i*oW + j][(u*kW + v)*Cg + c] = x[i*sH - padT + u*dH][j*sW - padL + v*dW][g*Cg + c]
 * (zero outside the input; K = kH*kW*Cg, tap-major so each tap is one
 * contiguous copy of Cg floats), and
 *   y[i][j][g*Mg + o] = A[i*oW + j][k] * B_g[k][o]
 * is one rt_sgemm call writing the group's Mg columns of the HWC output in
 * place (row stride M). B_g, the group's weights as [K][Mg], was laid out at
 * compile time (prep_dw_ggemm_hwc_pack: [group][kH][kW][Cg][Mg]). A 1x1
 * kernel with stride 1 and no padding needs no im2row: A is the input
 * itself, read with row stride C. One pass over the image's output then adds
 * the bias and applies the epilogue. Any group, kernel, stride, padding and
 * dilation.
 * Workspace (floats): the im2row matrix, oH*oW*K rounded up to 16 (none for
 * the 1x1 case), then rt_sgemm's workspace. */
#include "runtime/rt_types.h"
#include "runtime/sgemm.h"

/* im2row of channels [c0, c0 + Cg) of x [H][W][C] into a [oH*oW][kH*kW*Cg]. */
static inline void rt_dw_ggh_im2row_(const struct rt_conv2d *p, int cg,
                                     const float *xg, /* x at channel c0: [H][W][C] */
                                     float *a)        /* out: [oH*oW][kH*kW*Cg] */
{
	for (int i = 0; i < p->oH; i++) {
		for (int j = 0; j < p->oW; j++) {
			for (int u = 0; u < p->kH; u++) {
				const int ih = i * p->sH - p->padT + u * p->dH;
				for (int v = 0; v < p->kW; v++, a += cg) {
					const int iw = j * p->sW - p->padL + v * p->dW;
					if (ih < 0 || ih >= p->H || iw < 0 || iw >= p->W)
						memset(a, 0, (size_t)cg * sizeof *a);
					else
						memcpy(a, xg + ((size_t)ih * p->W + iw) * p->C, (size_t)cg * sizeof *a);
				}
			}
		}
	}
}

RT_FN void rt_conv_depthwise_ggemm_hwc(const struct rt_conv2d *p, int variant,
                                       const float *x, /* [N][H][W][C] */
                                       const float *w, /* [group][kH][kW][Cg][Mg] */
                                       const float *b, /* [M] or NULL */
                                       float *y,       /* out: [N][oH][oW][M] */
                                       float *ws)      /* im2row matrix, GEMM workspace */
{
	const int cg = p->C / p->group, mg = p->M / p->group, K = cg * p->kH * p->kW;
	const int ohw = p->oH * p->oW;
	const int direct = p->kH == 1 && p->kW == 1 && p->sH == 1 && p->sW == 1 && p->padT == 0 &&
	                   p->padL == 0 && p->oH == p->H && p->oW == p->W;
	const size_t nrow = direct ? 0 : ((size_t)ohw * K + 15) / 16 * 16;
	(void)variant;
	for (int n = 0; n < p->N; n++) {
		const float *xn = x + (size_t)n * p->H * p->W * p->C;
		float *yn = y + (size_t)n * ohw * p->M; /* [oH*oW][M] */
		for (int g = 0; g < p->group; g++) {
			if (!direct)
				rt_dw_ggh_im2row_(p, cg, xn + (size_t)g * cg, ws);
			rt_sgemm(p->isa, ohw, mg, K, direct ? xn + (size_t)g * cg : ws,
			         direct ? (size_t)p->C : (size_t)K, 1, NULL, w + (size_t)g * K * mg,
			         (size_t)mg, 1, yn + (size_t)g * mg, (size_t)p->M, 0, ws + nrow);
		}
		for (int k = 0; k < ohw; k++) {
			float *yk = yn + (size_t)k * p->M;
			for (int o = 0; o < p->M; o++)
				yk[o] = rt_act_apply(p->act, p->alpha, p->beta, yk[o] + (b ? b[o] : 0.0f));
		}
	}
}
