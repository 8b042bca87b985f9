/* conv_pw_dw.c - a 1x1 convolution fused with the depthwise convolution that
 * reads its output, on HWC: MobileNetV2's expand (+ReLU6) -> 3x3 depthwise
 * (+ReLU6). Textbook, the two layers one after the other:
 *   e[h][w][c] = act_e(be[c] + sum over k < C of we[c][k] * x[h][w][k])
 *   y[i][j][o] = act_d(bd[o] + sum over u, v < K of
 *                wd[o][u][v] * e[i*S - padT + u][j*S - padL + v][o/m])
 * The unfused pair writes e (Me channels, often 6x the input's) to memory
 * and the depthwise reads it back, twice its size in traffic at resolutions
 * where e does not fit in the caches (112 x 112 x 96 floats is 4.6 MiB).
 *
 * What changes: e never exists whole. Output rows are cut into
 * up to RT_PARALLEL_ITEMS chunks per image (rt_pwdw_chunks_: a
 * function of the shape, so the cut does not depend on the thread count); a chunk walks its output rows in bands of R rows,
 * computes the rows of e the band reads into a buffer of its own (about
 * 192 KiB, so it stays in L2), and runs the depthwise on that buffer. Rows of
 * e that the next band reads again (K - S of them) move to the buffer's
 * start instead of being computed again; only a chunk's first band computes
 * rows its neighbour computes too. Both steps are the unfused kernels
 * themselves (rt_conv_pointwise on a band of rows, rt_conv_depthwise_rows
 * with the band's output rows and the buffer seen as a short image), and
 * every element gets the same arithmetic in them whatever the cut, so the
 * output is bitwise that of the unfused pair, at any thread count.
 * Weights packed as each kernel packs them (prep_pointwise_pack,
 * prep_dw_cvec_pack). Workspace: prep_pw_dw_ws floats
 * (prep_depthwise.c), a buffer per chunk. */
#include "runtime/rt_types.h"

#include <stddef.h>
#include <string.h>

/* Floats of e a band's buffer aims at: 192 KiB, within L2 with the band's
 * input and output. */
#define RT_PWDW_BUF_FLOATS_ 49152

static inline int rt_pwdw_rows_(const struct rt_conv2d *d)
{
	/* output rows per band: as many as keep the band's (R - 1)*S + K rows of
	 * e within the buffer, at least one */
	const size_t row = (size_t)d->W * d->C;
	int r = 1;
	while (r < d->oH && (size_t)(r * d->sH + d->kH) * row <= RT_PWDW_BUF_FLOATS_)
		r++;
	return r;
}

/* Chunks of an image: each computes K - S rows of e its neighbour computes
 * too, so a chunk takes at least 12*(K - S)/S output rows (the rows of e
 * computed twice stay under about 8%), and there are at most
 * RT_PARALLEL_ITEMS of them. */
static inline int rt_pwdw_chunks_(const struct rt_conv2d *d)
{
	const int least = (12 * (d->kH - d->sH) + d->sH - 1) / d->sH;
	const int c = d->oH / (least > 1 ? least : 1);
	return c < 1 ? 1 : c < RT_PARALLEL_ITEMS ? c : RT_PARALLEL_ITEMS;
}

struct rt_pwdw_job_ {
	const struct rt_conv2d *e, *d; /* the 1x1 and the depthwise */
	const float *x, *we, *be, *wd, *bd;
	float *y, *ws;
	int R, chunks;
	size_t cap; /* floats of one chunk's buffer */
};

/* The unfused kernels this one runs (conv_pointwise.c, conv_depthwise_rows.c). */
RT_FN void rt_conv_pointwise(const struct rt_conv2d *p, int variant, const float *x, const float *w,
                             const float *b, float *y, float *ws);
RT_FN void rt_conv_depthwise_rows(const struct rt_conv2d *p, int variant, const float *x,
                                  const float *w, const float *b, float *y, float *ws);

/* Items [i0, i1): item it is chunk it % chunks of image it / chunks. */
static void rt_pwdw_items_(void *ctx, int i0, int i1)
{
	const struct rt_pwdw_job_ *j = ctx;
	const struct rt_conv2d *e = j->e, *d = j->d;
	const size_t row = (size_t)d->W * d->C; /* floats per row of e */
	for (int it = i0; it < i1; it++) {
		const int n = it / j->chunks, c = it % j->chunks;
		const int o0 = (int)((long)d->oH * c / j->chunks);
		const int o1 = (int)((long)d->oH * (c + 1) / j->chunks);
		const float *xn = j->x + (size_t)n * e->H * e->W * e->C;
		float *yn = j->y + (size_t)n * d->oH * d->oW * d->M;
		float *buf = j->ws + (size_t)c * j->cap; /* [rows][W][Me] */
		int b0 = 0, b1 = 0; /* rows of e in buf: [b0, b1), buf row 0 = row b0 */
		for (int i0b = o0; i0b < o1; i0b += j->R) {
			const int i1b = i0b + j->R < o1 ? i0b + j->R : o1;
			int r0 = i0b * d->sH - d->padT, r1 = (i1b - 1) * d->sH - d->padT + d->kH;
			r0 = r0 > 0 ? r0 : 0;
			r1 = r1 < d->H ? r1 : d->H;
			if (r1 <= r0) { /* every tap row is padding: the depthwise alone */
				r0 = r1 = 0;
			}
			/* keep the rows of e already computed, compute the rest */
			int have = 0;
			if (r0 >= b0 && r0 < b1) {
				have = b1 - r0 < r1 - r0 ? b1 - r0 : r1 - r0;
				if (r0 > b0)
					memmove(buf, buf + (size_t)(r0 - b0) * row, (size_t)have * row * sizeof *buf);
			}
			if (r1 - r0 > have) {
				struct rt_conv2d pe = *e;
				pe.N = 1;
				pe.H = pe.oH = r1 - r0 - have;
				rt_conv_pointwise(&pe, 0, xn + (size_t)(r0 + have) * e->W * e->C, j->we, j->be,
				                  buf + (size_t)have * row, NULL);
			}
			b0 = r0;
			b1 = r1;
			/* the band's output rows, the buffer an image of r1 - r0 rows
			 * whose row 0 is row r0 of e */
			struct rt_conv2d pd = *d;
			pd.N = 1;
			pd.H = r1 - r0;
			pd.oH = i1b - i0b;
			pd.padT = d->padT + r0 - i0b * d->sH;
			rt_conv_depthwise_rows(&pd, 0, buf, j->wd, j->bd, yn + (size_t)i0b * d->oW * d->M,
			                       NULL);
		}
	}
}

RT_FN void rt_conv_pw_dw(const struct rt_conv2d *e, /* the 1x1: N, C, H, W -> Me = d->C,
                                                        stride 1, no padding, group 1 */
                         const struct rt_conv2d *d, /* the depthwise: group == C == Me, HWC
                                                        rows (3x3 or 5x5, stride 1 or 2) */
                         const float *x,  /* [N][H][W][C] */
                         const float *we, /* packed as prep_pointwise_pack, variant 0 */
                         const float *be, /* [Me] or NULL */
                         const float *wd, /* packed as prep_dw_cvec_pack, variant 0 */
                         const float *bd, /* [M] or NULL */
                         float *y,        /* out: [N][oH][oW][M] */
                         float *ws)       /* prep_pw_dw_ws(d) floats: chunks x buffer */
{
	struct rt_pwdw_job_ j;
	const int rows = (rt_pwdw_rows_(d) - 1) * d->sH + d->kH;
	j.e = e;
	j.d = d;
	j.x = x;
	j.we = we;
	j.be = be;
	j.wd = wd;
	j.bd = bd;
	j.y = y;
	j.ws = ws;
	j.R = rt_pwdw_rows_(d);
	j.chunks = rt_pwdw_chunks_(d);
	j.cap = (size_t)(rows < d->H ? rows : d->H) * d->W * d->C;
	const int items = d->N * j.chunks;
	const double work = (double)e->M * e->C * e->H * e->W * e->N +
	                    4.0 * d->M * d->kH * d->kW * d->oH * d->oW * d->N;
	if (work < RT_PARALLEL_MIN_WORK)
		rt_pwdw_items_(&j, 0, items);
	else
		rt_parallel(rt_pwdw_items_, &j, items);
}
