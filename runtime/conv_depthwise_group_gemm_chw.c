/* conv_depthwise_group_gemm_chw.c - grouped convolution as one GEMM per
 * group on CHW images (row conv_depthwise_group_gemm_chw of
 * fam_depthwise.def).
 *
 * ONNX Conv with group g: output channels [g*Mg, (g+1)*Mg) read only input
 * channels [g*Cg, (g+1)*Cg), Mg = M/group, Cg = C/group. For each image and
 * group, im2col builds the matrix
 *   B[(c*kH + u)*kW + v][i*oW + j] = x[g*Cg + c][i*sH - padT + u*dH][j*sW - padL + v*dW]
 * (zero outside the input), K = Cg*kH*kW rows by oH*oW columns, and
 *   y[g*Mg + o][i][j] = A_g[o][k] * B[k][i*oW + j]
 * is one rt_sgemm call whose A_g, the group's [Mg][K] slice of the weights,
 * was packed at compile time for p->isa (prep_dw_ggemm_chw_pack: the packed
 * groups one after another, rt_sgemm_pack_a's layout). The GEMM writes the
 * group's output planes in place; one pass then adds the bias and applies
 * the epilogue while they are still in cache. A 1x1 kernel with stride 1 and
 * no padding needs no im2col: B is the group's input planes themselves.
 * Any group, kernel, stride, padding and dilation.
 * Workspace (floats): the im2col matrix, K*oH*oW rounded up to 16 (none
 * for the 1x1 case), then rt_sgemm's workspace. */
#include "runtime/rt_types.h"
#include "runtime/sgemm.h"

/* im2col of input channels xg [Cg][H][W] into col [Cg*kH*kW][oH*oW]. */
static inline void rt_dw_ggc_im2col_(const struct rt_conv2d *p, int cg,
                                     const float *xg, /* [Cg][H][W] */
                                     float *col)      /* out: [Cg*kH*kW][oH*oW] */
{
	const int oW = p->oW;
	for (int c = 0; c < cg; c++) {
		const float *xc = xg + (size_t)c * p->H * p->W;
		for (int u = 0; u < p->kH; u++) {
			for (int v = 0; v < p->kW; v++) {
				/* columns j with iw = j*sW - padL + v*dW inside [0, W) */
				const int off = v * p->dW - p->padL;
				int j0 = off >= 0 ? 0 : (-off + p->sW - 1) / p->sW;
				int j1 = p->W - 1 - off >= 0 ? (p->W - 1 - off) / p->sW + 1 : 0;
				j0 = j0 < oW ? j0 : oW;
				j1 = j1 < oW ? (j1 > j0 ? j1 : j0) : oW;
				for (int i = 0; i < p->oH; i++, col += oW) {
					const int ih = i * p->sH - p->padT + u * p->dH;
					if (ih < 0 || ih >= p->H) {
						memset(col, 0, (size_t)oW * sizeof *col);
						continue;
					}
					const float *xr = xc + (size_t)ih * p->W; /* [W] */
					for (int j = 0; j < j0; j++)
						col[j] = 0.0f;
					if (p->sW == 1)
						memcpy(col + j0, xr + j0 + off, (size_t)(j1 - j0) * sizeof *col);
					else
						for (int j = j0; j < j1; j++)
							col[j] = xr[j * p->sW + off];
					for (int j = j1; j < oW; j++)
						col[j] = 0.0f;
				}
			}
		}
	}
}

RT_FN void rt_conv_depthwise_ggemm_chw(const struct rt_conv2d *p, int variant,
                                       const float *x, /* [N][C][H][W] */
                                       const float *w, /* per group: A_g packed for p->isa */
                                       const float *b, /* [M] or NULL */
                                       float *y,       /* out: [N][M][oH][oW] */
                                       float *ws)      /* im2col matrix, GEMM workspace */
{
	const int cg = p->C / p->group, mg = p->M / p->group, K = cg * p->kH * p->kW;
	const int ohw = p->oH * p->oW, mr = RT_SGEMM_MR(p->isa);
	const size_t apg = (size_t)(mg + mr - 1) / mr * mr * K; /* packed floats per group */
	const int direct = p->kH == 1 && p->kW == 1 && p->sH == 1 && p->sW == 1 && p->padT == 0 &&
	                   p->padL == 0 && p->oH == p->H && p->oW == p->W;
	const size_t ncol = direct ? 0 : ((size_t)K * ohw + 15) / 16 * 16;
	(void)variant;
	for (int n = 0; n < p->N; n++) {
		for (int g = 0; g < p->group; g++) {
			const float *xg = x + ((size_t)n * p->C + (size_t)g * cg) * p->H * p->W;
			float *yg = y + ((size_t)n * p->M + (size_t)g * mg) * ohw; /* [Mg][oH*oW] */
			if (!direct)
				rt_dw_ggc_im2col_(p, cg, xg, ws);
			rt_sgemm(p->isa, mg, ohw, K, NULL, 0, 0, w + g * apg, direct ? xg : ws,
			         (size_t)ohw, 1, yg, (size_t)ohw, 0, ws + ncol);
			for (int o = 0; o < mg; o++) {
				const float bo = b ? b[g * mg + o] : 0.0f;
				float *yo = yg + (size_t)o * ohw;
				for (int k = 0; k < ohw; k++)
					yo[k] = rt_act_apply(p->act, p->alpha, p->beta, yo[k] + bo);
			}
		}
	}
}
