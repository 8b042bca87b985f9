/* conv_pw_dw.c - a 1x1 convolution fused with the depthwise convolution that
 * reads its output, on HWC or blocked CHW16c / CHW8c: MobileNetV2's expand
 * (+ReLU6) -> 3x3 depthwise (+ReLU6). Textbook, the two layers one after the
 * other:
 *   e[h][w][c] = act_e(be[c] + sum over k < C of we[c][k] * x[h][w][k])
 *   y[i][j][o] = act_d(bd[o] + sum over u, v < K of
 *                wd[o][u][v] * e[i*S - padT + u][j*S - padL + v][o/m])
 * The unfused pair writes e (Me channels, often 6x the input's) to memory
 * and the depthwise reads it back, twice its size in traffic at resolutions
 * where e does not fit in the caches (112 x 112 x 96 floats is 4.6 MiB).
 *
 * What changes: e never exists whole. Output rows are cut into up to
 * RT_PARALLEL_ITEMS chunks per image (rt_pwdw_chunks_: a function of the
 * shape, so the cut does not depend on the thread count); a chunk walks its
 * output rows in bands of R rows (the band's rows of e about 192 KiB),
 * computes the rows of e the band reads that are not in the buffer yet into
 * a buffer of cap rows (about 384 KiB, so it stays in L2), and runs the
 * depthwise on the band's rows there. Rows of e that the next band reads
 * again (K - S of them) stay where they are; only when the next band's rows
 * would run past the buffer's end do they move to its start (with cap about
 * twice a band's rows, every other band or less), and only a chunk's first
 * band computes rows its neighbour computes too. Both steps are the unfused
 * kernels themselves (rt_conv_pointwise on a band of rows,
 * rt_conv_depthwise_rows with the band's output rows and the buffer seen as
 * a short image), and every element gets the same arithmetic in them
 * whatever the cut, so the output is bitwise that of the unfused pair, at
 * any thread count. What the buffer holds when a chunk starts does not
 * matter, so a thread's call takes the buffer of its range's first item and
 * uses it for every chunk of the range: no two threads share one, and one
 * thread keeps reusing the same warm buffer.
 *
 * Layouts (variant, as the two rows': conv_pointwise_X and
 * conv_depthwise_rows_X): HWC (0), the buffer [cap][W][Me]; blocked (B = 16
 * or 8), the buffer [ceil(Me/B)][cap][W][B]. There the two kernels run
 * through their _blocks entries, which take the distance between channel
 * blocks: the 1x1 reads a band of the whole image (blocks H*W*B apart) and
 * writes the buffer's (cap*W*B apart), the depthwise reads those and writes
 * the band's rows of the whole output (blocks oH*oW*B apart). Kept rows move
 * block by block.
 * Weights packed as each kernel packs them (prep_pointwise_pack,
 * prep_dw_cvec_pack) for the variant. Workspace: prep_pw_dw_ws floats
 * (prep_depthwise.c), a buffer per chunk. */
#include "runtime/rt_types.h"

#include <stddef.h>
#include <string.h>

/* Floats of e a band's rows aim at (192 KiB) and a buffer holds (384 KiB),
 * within L2 with the band's input and output. */
#define RT_PWDW_BAND_FLOATS_ 49152
#define RT_PWDW_BUF_FLOATS_ 98304

/* Floats of one row of e in the buffer: W pixels of Me channels, rounded up
 * to whole blocks when blocked. */
static inline size_t rt_pwdw_row_(const struct rt_conv2d *d, int variant)
{
	const int B = variant == 8 || variant == 16 ? variant : 0;
	return (size_t)d->W * (B ? (d->C + B - 1) / B * B : d->C);
}

static inline int rt_pwdw_rows_(const struct rt_conv2d *d, int variant)
{
	/* output rows per band: as many as keep the band's (R - 1)*S + K rows of
	 * e within RT_PWDW_BAND_FLOATS_, at least one */
	const size_t row = rt_pwdw_row_(d, variant);
	int r = 1;
	while (r < d->oH && (size_t)(r * d->sH + d->kH) * row <= RT_PWDW_BAND_FLOATS_)
		r++;
	return r;
}

/* Rows of e a buffer holds: what RT_PWDW_BUF_FLOATS_ holds, at least a
 * band's, at most H. */
static inline int rt_pwdw_cap_(const struct rt_conv2d *d, int variant)
{
	const int band = (rt_pwdw_rows_(d, variant) - 1) * d->sH + d->kH;
	const int fit = (int)(RT_PWDW_BUF_FLOATS_ / rt_pwdw_row_(d, variant));
	const int cap = fit > band ? fit : band;
	return cap < d->H ? cap : d->H;
}

/* Chunks of an image: each computes K - S rows of e its neighbour computes
 * too, so a chunk takes at least 24*(K - S)/S output rows (the rows of e
 * computed twice stay under about 4%); at least 2 where the image has 8
 * output rows or more (2 threads share evenly), at most RT_PARALLEL_ITEMS. */
static inline int rt_pwdw_chunks_(const struct rt_conv2d *d)
{
	const int least = (24 * (d->kH - d->sH) + d->sH - 1) / d->sH;
	int c = d->oH / (least > 1 ? least : 1);
	if (c < 2)
		c = d->oH >= 8 ? 2 : 1;
	return c < RT_PARALLEL_ITEMS ? c : RT_PARALLEL_ITEMS;
}

struct rt_pwdw_job_ {
	const struct rt_conv2d *e, *d; /* the 1x1 and the depthwise */
	int B;                         /* channel block: 16, 8, or 0 for HWC */
	const float *x, *we, *be, *wd, *bd;
	float *y, *ws;
	int R, chunks, cap; /* output rows per band, chunks per image, rows of e per buffer */
};

/* The unfused kernels this one runs (conv_pointwise.c, conv_depthwise_rows.c);
 * HWC through their plain entries, so that a model whose every 1x1 is fused
 * still calls each function its text holds. */
RT_FN void rt_conv_pointwise(const struct rt_conv2d *p, int variant, const float *x, const float *w,
                             const float *b, float *y, float *ws);
RT_FN void rt_conv_pointwise_blocks(const struct rt_conv2d *p, int variant, const float *x,
                                    size_t xcb, const float *w, const float *b, float *y,
                                    size_t ycb);
RT_FN void rt_conv_depthwise_rows(const struct rt_conv2d *p, int variant, const float *x,
                                  const float *w, const float *b, float *y, float *ws);
RT_FN void rt_conv_depthwise_rows_blocks(const struct rt_conv2d *p, int variant, const float *x,
                                         size_t xcb, const float *w, const float *b, float *y,
                                         size_t ycb);

/* Items [i0, i1): item c is chunk c of every image, one image after the
 * other; all of them in the buffer of item i0. */
static void rt_pwdw_items_(void *ctx, int i0, int i1)
{
	const struct rt_pwdw_job_ *j = ctx;
	const struct rt_conv2d *e = j->e, *d = j->d;
	const int B = j->B;
	const int nb = B ? (d->C + B - 1) / B : 1;                    /* blocks of e */
	const size_t rf = B ? (size_t)d->W * B : (size_t)d->W * d->C; /* floats per row of a block */
	const size_t bcb = (size_t)j->cap * rf;                      /* buffer: between blocks */
	const size_t xcb = (size_t)e->H * e->W * B, ycb = (size_t)d->oH * d->oW * B;
	const size_t ximg = B ? (size_t)((e->C + B - 1) / B) * xcb : (size_t)e->H * e->W * e->C;
	const size_t yimg = B ? (size_t)((d->M + B - 1) / B) * ycb : (size_t)d->oH * d->oW * d->M;
	const size_t yrow = (size_t)d->oW * (B ? B : d->M); /* floats per output row of a block */
	float *buf = j->ws + (size_t)i0 * nb * bcb; /* [cap][W][Me] or [nb][cap][W][B] */
	for (int it = i0 * d->N; it < i1 * d->N; it++) {
		const int n = it % d->N, c = it / d->N;
		const int o0 = (int)((long)d->oH * c / j->chunks);
		const int o1 = (int)((long)d->oH * (c + 1) / j->chunks);
		const float *xn = j->x + (size_t)n * ximg;
		float *yn = j->y + (size_t)n * yimg;
		int b0 = 0, b1 = 0; /* rows of e in buf: [b0, b1), buf row 0 = row b0 */
		for (int i0b = o0; i0b < o1; i0b += j->R) {
			const int i1b = i0b + j->R < o1 ? i0b + j->R : o1;
			int r0 = i0b * d->sH - d->padT, r1 = (i1b - 1) * d->sH - d->padT + d->kH;
			r0 = r0 > 0 ? r0 : 0;
			r1 = r1 < d->H ? r1 : d->H;
			struct rt_conv2d pd = *d;
			pd.N = 1;
			pd.oH = i1b - i0b;
			if (r1 <= r0) { /* every tap row is padding: the depthwise alone */
				r0 = r1 = 0;
			} else {
				if (r0 < b0 || r0 > b1) /* nothing the band reads is kept */
					b0 = b1 = r0;
				if (r1 - b0 > j->cap) { /* the kept rows [r0, b1) to the start */
					for (int cb = 0; cb < nb; cb++)
						memmove(buf + cb * bcb, buf + cb * bcb + (size_t)(r0 - b0) * rf,
						        (size_t)(b1 - r0) * rf * sizeof *buf);
					b0 = r0;
				}
				if (r1 > b1) { /* rows [b1, r1) of e */
					struct rt_conv2d pe = *e;
					pe.N = 1;
					pe.H = pe.oH = r1 - b1;
					if (B)
						rt_conv_pointwise_blocks(&pe, B, xn + (size_t)b1 * e->W * B, xcb, j->we,
						                         j->be, buf + (size_t)(b1 - b0) * rf, bcb);
					else
						rt_conv_pointwise(&pe, 0, xn + (size_t)b1 * e->W * e->C, j->we, j->be,
						                  buf + (size_t)(b1 - b0) * rf, NULL);
					b1 = r1;
				}
			}
			/* the band's output rows on rows [r0, r1) of e, an image of
			 * r1 - r0 rows whose row 0 is row r0 of e */
			const float *eb = buf + (size_t)(r0 - b0) * rf;
			pd.H = r1 - r0;
			pd.padT = d->padT + r0 - i0b * d->sH;
			if (B)
				rt_conv_depthwise_rows_blocks(&pd, B, eb, bcb, j->wd, j->bd,
				                              yn + (size_t)i0b * yrow, ycb);
			else
				rt_conv_depthwise_rows(&pd, 0, eb, j->wd, j->bd, yn + (size_t)i0b * yrow, NULL);
		}
	}
}

RT_FN void rt_conv_pw_dw(const struct rt_conv2d *e, /* the 1x1: N, C, H, W -> Me = d->C,
                                                        stride 1, no padding, group 1 */
                         const struct rt_conv2d *d, /* the depthwise: group == C == Me, rows
                                                        (3x3 or 5x5, stride 1 or 2) */
                         int variant,     /* 0 HWC, 16 CHW16c, 8 CHW8c (both layers) */
                         const float *x,  /* [N][H][W][C] or [N][ceil(C/B)][H][W][B] */
                         const float *we, /* packed as prep_pointwise_pack, variant */
                         const float *be, /* [Me] or NULL */
                         const float *wd, /* packed as prep_dw_cvec_pack, variant */
                         const float *bd, /* [M] or NULL */
                         float *y,        /* out: [N][oH][oW][M] or [N][ceil(M/B)][oH][oW][B] */
                         float *ws)       /* prep_pw_dw_ws(d, variant) floats: a buffer per chunk */
{
	struct rt_pwdw_job_ j;
	j.e = e;
	j.d = d;
	j.B = variant == 8 || variant == 16 ? variant : 0;
	j.x = x;
	j.we = we;
	j.be = be;
	j.wd = wd;
	j.bd = bd;
	j.y = y;
	j.ws = ws;
	j.R = rt_pwdw_rows_(d, variant);
	j.chunks = rt_pwdw_chunks_(d);
	j.cap = rt_pwdw_cap_(d, variant);
	const double work = (double)e->M * e->C * e->H * e->W * e->N +
	                    4.0 * d->M * d->kH * d->kW * d->oH * d->oW * d->N;
	if (work < RT_PARALLEL_MIN_WORK)
		rt_pwdw_items_(&j, 0, j.chunks);
	else
		rt_parallel(rt_pwdw_items_, &j, j.chunks);
}
