/* conv_winograd_gemm.c - Winograd minimal filtering convolution with the
 * transforms batched as GEMMs (Lavin & Gray, "Fast algorithms for
 * convolutional neural networks", CVPR 2016; research brief a.2.6).
 *
 * The textbook form: for every output tile of mh x mw and every pair (m, c),
 *   Y_tile = A_h^T [ (G_h g G_w^T) . (B_h^T d B_w) ] A_w
 * where d is the tile's alpha_h x alpha_w input footprint (alpha = m + r - 1)
 * and the sum over c is taken in the transformed domain. Here:
 *   1. PACK (prep_winograd.c) computed U[g][xi] = (G_h g G_w^T)[xi], one
 *      M/group x C/group matrix per point xi < alpha_h alpha_w, packed for
 *      the GEMM's ISA;
 *   2. the input transform writes V[xi][c][t] = (B_h^T d_{c,t} B_w)[xi] for a
 *      block of tb tiles (tiles numbered row by row over the output);
 *   3. alpha_h alpha_w GEMMs  M[xi] = U[xi] (M/group x C/group) . V[xi]
 *      (C/group x tiles), through rt_sgemm with the pre-packed A;
 *   4. the output transform A_h^T M A_w, plus bias and the epilogue, writes
 *      the valid part of every tile.
 * One engine serves every row: the 1-D algorithm along H and along W is a
 * pair of small matrices (tables below), so F(m x m, r x r) and the 1-D
 * F(m, r) along one axis (F(1,1), no transform, along the other) are the same
 * code, and the layouts are strides (channel, row, column) of the input and
 * the output. Variants (variant = 1000 in + 100 out + 10 h + w, see
 * prep_winograd.h):
 *   h, w: 0 F(1,1), 1 F(2,3), 2 F(4,3), 3 F(6,3), 4 F(2,5), 5 F(3,5), 6 F(4,5)
 *   in, out: CHW, HCW or HWC (enum rt_layout).
 * Stride 1, dilation 1, kernel exactly (r_h, r_w), any padding (tiles reading
 * outside the input read zeros; edge tiles store their valid part only), any
 * group but depthwise (one pass per group). Tiles go in blocks of about 48
 * (the GEMMs' N), blocks in sets with their own V and M (struct rt_wino_cut,
 * rt_types.h).
 *
 * The transforms work on a lane group: up to 16 (AVX-512), 8 (AVX2) or 4
 * (portable C) neighbouring tiles of one tile row, each lane one tile, so V
 * and M are read and written as contiguous vectors. How the footprints get
 * into lanes depends on the layout:
 *   - rows contiguous (CHW, HCW), AVX-512: lane t of footprint column j is
 *     input column mw t + j. Tiles 3 or more columns wide read it with a
 *     256-bit masked load a tile (the masks do the padding) and two 8 x 8
 *     transposes; tiles 1 or 2 wide with masked loads of the row
 *     deinterleaved by two-source permutes. The output interleaves the tile
 *     columns back with permutes at every width;
 *   - HWC, AVX-512: a tile's footprint is a set of 16-channel vectors, so the
 *     transform runs with lanes = channels, then 16 x 16 transposes turn
 *     (tile, channel) blocks into V's (channel, tile) order (and M's back);
 *   - rows contiguous, AVX2: lane t of footprint column j is again element
 *     mw t + j of the row segment. Tiles 1, 2 or 4 columns wide read it
 *     with masked loads deinterleaved by shuffles within 128-bit halves,
 *     tiles 3 or 6 wide with a load a tile (its aw <= 8 columns) and an
 *     8 x 8 transpose; the output interleaves back the same ways and stores
 *     whole row segments (or tiles). Both transforms go channel by channel
 *     over the block;
 *   - AVX-512 builds run the AVX2 rows-contiguous transforms where a tile
 *     row has at most 8 tiles (a lane group is one row's tiles at most);
 *   - HWC on AVX2 gathers (masked) and stores lane by lane; C loops over
 *     lanes.
 * The 1-D matrices are applied with their common subexpressions written out
 * (rt_wino_bt1_ and rt_wino_at1_, one template for AVX-512 and AVX2), else
 * as short sparse sums of multiply-adds read from the tables. Each point's
 * matrix of V and M ends with a cache line of padding (rt_wino_point). SIMD
 * is enabled per function with target attributes; the C path compiles
 * everywhere. */
#include "runtime/rt_types.h"
#include "runtime/sgemm.h"

#if RT_SGEMM_X86_ && (RT_SGEMM_HAVE_AVX512 || RT_SGEMM_HAVE_AVX2)
#include <immintrin.h>
#endif

/* A small matrix as sparse rows: row k = sum over q < n[k] of
 * c[k][q] * in[idx[k][q]] (at most 8 x 8). */
struct rt_wino_sp {
	int n[8];      /* nonzeros of each row */
	int idx[8][8]; /* their columns */
	float c[8][8]; /* their values */
};

/* What the transforms of one layer need. */
struct rt_wino_plan {
	int hid, wid;             /* the 1-D algorithms along H and W (ids above) */
	int ah, aw;               /* footprint alpha_h x alpha_w */
	int mh, mw;               /* output tile */
	int tw;                   /* tiles per output row */
	int cg, mg;               /* input and output channels per group */
	int tb;                   /* most tiles in a block (row stride of V and M) */
	size_t vxs, mxs;          /* floats from one point to the next in V and M (rt_wino_point) */
	int H, W, oH, oW, padT, padL;
	int xcs, xrs, xps;        /* input strides in floats: channel, row, column */
	int ycs, yrs, yps;        /* output strides */
	int act;                  /* epilogue (enum rt_act) */
	float alpha, beta;
	struct rt_wino_sp bh, bw; /* B^T along H [ah][ah] and along W [aw][aw] */
	struct rt_wino_sp oh, ow; /* A^T along H [mh][ah] and along W [mw][aw] */
	/* AVX-512, rows contiguous, tiles 1 or 2 wide (else the input goes by
	 * tile, rt_wino_by_tile_avx512): lane t of a footprint column is element
	 * mw t of a row segment, taken in dn chunks, chunk k from the 32-float
	 * window of 16-float vectors dwin[k], dwin[k] + 1 (nwin vectors loaded) */
	int dn, nwin;
	int dwin[4];
	int dmask[4];             /* lanes chunk k fills */
	int didx[4][16];          /* their positions in its window */
	/* and back: output vector q of a tile row segment (elements 16 q ..
	 * 16 q + 15, element p = mw t + j from tile t's column j) is built from
	 * column pairs (2 k, 2 k + 1), k < (mw + 1) / 2 */
	int imask[8][4];          /* [q][k] elements the pair fills */
	int iidx[8][4][16];       /* [q][k] their lanes: t, or 16 + t for 2 k + 1 */
};

/* The 1-D algorithm F(m, r) number id: m, alpha, B^T [alpha][alpha] and
 * A^T [m][alpha] (the same matrices as prep_winograd.c, where they are
 * exact rationals and their identity is checked; every entry here is dyadic,
 * so exact in float). */
static inline void rt_wino_1d(int id, int *m, int *a, const float **bt, const float **at)
{
	static const float one[1] = {1};
	static const float bt4[16] = {1, 0, -1, 0, 0, 1, 1, 0, 0, -1, 1, 0, 0, 1, 0, -1};
	static const float at23[8] = {1, 1, 1, 0, 0, 1, -1, -1};
	static const float bt6[36] = {4, 0,  -5, 0,  1, 0, 0, -4, -4, 1,  1, 0,
	                              0, 4,  -4, -1, 1, 0, 0, -2, -1, 2,  1, 0,
	                              0, 2,  -1, -2, 1, 0, 0, 4,  0,  -5, 0, 1};
	static const float at43[24] = {1, 1, 1, 1, 1, 0, 0, 1, -1, 2, -2, 0,
	                               0, 1, 1, 4, 4, 0, 0, 1, -1, 8, -8, 1};
	static const float bt8[64] = {
		1, 0,     -5.25f, 0,      5.25f,  0,      -1, 0,
		0, 1,     1,      -4.25f, -4.25f, 1,      1,  0,
		0, -1,    1,      4.25f,  -4.25f, -1,     1,  0,
		0, 0.5f,  0.25f,  -2.5f,  -1.25f, 2,      1,  0,
		0, -0.5f, 0.25f,  2.5f,   -1.25f, -2,     1,  0,
		0, 2,     4,      -2.5f,  -5,     0.5f,   1,  0,
		0, -2,    4,      2.5f,   -5,     -0.5f,  1,  0,
		0, -1,    0,      5.25f,  0,      -5.25f, 0,  1};
	static const float at63[48] = {
		1, 1, 1,  1,  1,   1,        1,         0,
		0, 1, -1, 2,  -2,  0.5f,     -0.5f,     0,
		0, 1, 1,  4,  4,   0.25f,    0.25f,     0,
		0, 1, -1, 8,  -8,  0.125f,   -0.125f,   0,
		0, 1, 1,  16, 16,  0.0625f,  0.0625f,   0,
		0, 1, -1, 32, -32, 0.03125f, -0.03125f, 1};
	static const float at25[12] = {1, 1, 1, 1, 1, 0, 0, 1, -1, 2, -2, 1};
	static const float bt7[49] = {4, -8, -5,  10, 1,   -2, 0, 0, 4, -4, -9, 1,  2,  0,
	                              0, 4,  -12, 7,  3,   -2, 0, 0, 2, -3, -4, 3,  2,  0,
	                              0, 2,  -5,  0,  5,   -2, 0, 0, 4, 0,  -5, 0,  1,  0,
	                              0, -4, 8,   5,  -10, -1, 2};
	static const float at35[21] = {1, 1, 1, 1, 1, 1,     0, 0, 1, -1, 2, -2, 0.5f, 0,
	                               0, 1, 1, 4, 4, 0.25f, 1};
	static const float at45[32] = {1, 1, 1,  1, 1,  1,      1,       0,
	                               0, 1, -1, 2, -2, 0.5f,   -0.5f,   0,
	                               0, 1, 1,  4, 4,  0.25f,  0.25f,   0,
	                               0, 1, -1, 8, -8, 0.125f, -0.125f, 1};
	switch (id) {
	case 1: *m = 2; *a = 4; *bt = bt4; *at = at23; break;
	case 2: *m = 4; *a = 6; *bt = bt6; *at = at43; break;
	case 3: *m = 6; *a = 8; *bt = bt8; *at = at63; break;
	case 4: *m = 2; *a = 6; *bt = bt6; *at = at25; break;
	case 5: *m = 3; *a = 7; *bt = bt7; *at = at35; break;
	case 6: *m = 4; *a = 8; *bt = bt8; *at = at45; break;
	default: *m = 1; *a = 1; *bt = one; *at = one; break;
	}
}

static inline void rt_wino_sparse(int rows, int cols,
                                  const float *dense, /* [rows][cols] */
                                  struct rt_wino_sp *s)
{
	for (int k = 0; k < rows; k++) {
		s->n[k] = 0;
		for (int j = 0; j < cols; j++)
			if (dense[k * cols + j] != 0.0f) {
				s->idx[k][s->n[k]] = j;
				s->c[k][s->n[k]] = dense[k * cols + j];
				s->n[k]++;
			}
	}
}

/* Strides (floats) of channel, row and column of a C x H x W image in layout l
 * (CHW, HCW or HWC). */
static inline void rt_wino_strides(int l, int C, int H, int W, int *cs, int *rs, int *ps)
{
	if (l == 2) { /* HWC */
		*cs = 1; *rs = W * C; *ps = C;
	} else if (l == 1) { /* HCW */
		*cs = W; *rs = C * W; *ps = 1;
	} else { /* CHW */
		*cs = H * W; *rs = W; *ps = 1;
	}
}

/* Tiles in the lane group that starts at tile t0: up to `lanes` tiles of
 * t0's tile row, none at or past tile `end` (the block's end). */
static inline int rt_wino_nl(const struct rt_wino_plan *pl, int t0, int end, int lanes)
{
	const int left = pl->tw - t0 % pl->tw, n = left < lanes ? left : lanes;
	return end - t0 < n ? end - t0 : n;
}

#if RT_SGEMM_X86_ && (RT_SGEMM_HAVE_AVX512 || RT_SGEMM_HAVE_AVX2)
/* The output rows of the lane group that starts at tile t0 (the
 * rows-contiguous output transforms of AVX2 and AVX-512): its first output
 * row oy and column ox, and nv, the valid elements of each row segment (its
 * tiles, clipped at oW); returns its tiles, as rt_wino_nl. */
static inline int rt_wino_oseg(const struct rt_wino_plan *pl, int t0, int end, int lanes, int *oy,
                               int *ox, int *nv)
{
	const int nl = rt_wino_nl(pl, t0, end, lanes);
	*oy = t0 / pl->tw * pl->mh;
	*ox = t0 % pl->tw * pl->mw;
	*nv = nl * pl->mw < pl->oW - *ox ? nl * pl->mw : pl->oW - *ox;
	return nl;
}
#endif

/* The permute tables of the plan (rt_wino_plan, AVX-512 rows path). */
static inline void rt_wino_lane_tables(struct rt_wino_plan *pl)
{
	const int mw = pl->mw;
	pl->dn = 0;
	pl->nwin = 1;
	if (mw > 1) {
		for (int t = 0; t < 16;) {
			const int k = pl->dn++, w = mw * t / 16;
			pl->dwin[k] = w;
			pl->dmask[k] = 0;
			for (int l = 0; l < 16; l++)
				pl->didx[k][l] = 0;
			for (; t < 16 && mw * t - 16 * w < 32; t++) {
				pl->didx[k][t] = mw * t - 16 * w;
				pl->dmask[k] |= 1 << t;
			}
			pl->nwin = w + 2;
		}
	}
	for (int q = 0; q < mw; q++)
		for (int k = 0; 2 * k < mw; k++) {
			pl->imask[q][k] = 0;
			for (int e = 0; e < 16; e++) {
				const int pos = 16 * q + e, j = pos % mw, t = pos / mw;
				pl->iidx[q][k][e] = 0;
				if (j == 2 * k || j == 2 * k + 1) {
					pl->iidx[q][k][e] = t + 16 * (j - 2 * k);
					pl->imask[q][k] |= 1 << e;
				}
			}
		}
}

/* ---- portable C: up to 4 lanes ------------------------------------------- */

static inline void rt_wino_in_c(const struct rt_wino_plan *pl,
                                const float *x, /* channel 0 of the group, input layout */
                                int ty, int tx0, int nl,
                                float *v) /* V at the lane group: (xi, c, l) at v[xi*vxs + c*tb + l] */
{
	float d[64][4], t[64][4]; /* footprint [ah][aw] and B_h^T d, per lane */
	const int ah = pl->ah, aw = pl->aw;
	const int ys = ty * pl->mh - pl->padT, xs = tx0 * pl->mw - pl->padL;
	for (int c = 0; c < pl->cg; c++) {
		const float *xc = x + (size_t)c * pl->xcs; /* one channel */
		for (int i = 0; i < ah; i++)
			for (int j = 0; j < aw; j++)
				for (int l = 0; l < nl; l++) {
					const int iy = ys + i, ix = xs + l * pl->mw + j;
					d[i * aw + j][l] = iy >= 0 && iy < pl->H && ix >= 0 && ix < pl->W ?
					                   xc[(size_t)iy * pl->xrs + (size_t)ix * pl->xps] : 0.0f;
				}
		for (int k = 0; k < ah; k++)
			for (int j = 0; j < aw; j++)
				for (int l = 0; l < nl; l++) {
					float s = 0.0f;
					for (int q = 0; q < pl->bh.n[k]; q++)
						s += pl->bh.c[k][q] * d[pl->bh.idx[k][q] * aw + j][l];
					t[k * aw + j][l] = s;
				}
		for (int k = 0; k < ah; k++)
			for (int j = 0; j < aw; j++) {
				float *vo = v + (size_t)(k * aw + j) * pl->vxs + (size_t)c * pl->tb;
				for (int l = 0; l < nl; l++) {
					float s = 0.0f;
					for (int q = 0; q < pl->bw.n[j]; q++)
						s += pl->bw.c[j][q] * t[k * aw + pl->bw.idx[j][q]][l];
					vo[l] = s;
				}
			}
	}
}

static inline void rt_wino_out_c(const struct rt_wino_plan *pl,
                                 const float *mb, /* M at the lane group: (xi, m, l) at mb[xi*mxs + m*tb + l] */
                                 const float *bias, /* [mg] or NULL */
                                 float *y, /* channel 0 of the group, output layout */
                                 int ty, int tx0, int nl)
{
	float u[64][4]; /* A_h^T M: [mh][aw] per lane */
	const int aw = pl->aw, oy = ty * pl->mh, ox = tx0 * pl->mw;
	for (int m = 0; m < pl->mg; m++) {
		float *ym = y + (size_t)m * pl->ycs; /* one output channel */
		const float bm = bias ? bias[m] : 0.0f;
		for (int i = 0; i < pl->mh; i++)
			for (int j = 0; j < aw; j++)
				for (int l = 0; l < nl; l++) {
					float s = 0.0f;
					for (int q = 0; q < pl->oh.n[i]; q++)
						s += pl->oh.c[i][q] *
						     mb[(size_t)(pl->oh.idx[i][q] * aw + j) * pl->mxs + (size_t)m * pl->tb + l];
					u[i * aw + j][l] = s;
				}
		for (int i = 0; i < pl->mh && oy + i < pl->oH; i++)
			for (int l = 0; l < nl; l++)
				for (int j = 0; j < pl->mw && ox + l * pl->mw + j < pl->oW; j++) {
					float s = bm;
					for (int q = 0; q < pl->ow.n[j]; q++)
						s += pl->ow.c[j][q] * u[i * aw + pl->ow.idx[j][q]][l];
					ym[(size_t)(oy + i) * pl->yrs + (size_t)(ox + l * pl->mw + j) * pl->yps] =
						rt_act_apply(pl->act, pl->alpha, pl->beta, s);
				}
	}
}

/* ---- the transforms over vectors, one template for AVX-512 and AVX2 ---- */

/* RT_WINO_VEC_(SUF, ...) defines, for one ISA (V: VL floats; the lane-wise
 * operations by name), the 1-D transforms rt_wino_bt1_SUF and
 * rt_wino_at1_SUF and the 2-D ones rt_wino_bt_SUF and rt_wino_at_SUF. Every
 * lane is one tile (or one channel), so the ISAs differ only in width. */
#define RT_WINO_VEC_(SUF, ATTR, V, VL, ZERO, LOADU, STOREU, SET1, ADD, SUB, MUL, MAX, FMADD, FNMADD, FMSUB) \
/* One 1-D input transform B^T along a line of vectors d[0], d[ds], ...                                    \
 * into r[0], r[rs], ..., written out with the common subexpressions of                                    \
 * each matrix (Lavin & Gray's F(4,3) and F(6,3) as in the tables); 0 when                                 \
 * the algorithm has no such form here (then the sparse sums do it). */                                    \
ATTR __attribute__((always_inline)) static inline int                                                      \
rt_wino_bt1_##SUF(int id, const V *d, int ds, V *r, int rs)                                                \
{                                                                                                          \
	const V d0 = d[0], d1 = d[ds], d2 = d[2 * ds], d3 = d[3 * ds];                                     \
	if (id == 0) {                                                                                     \
		r[0] = d0;                                                                                 \
		return 1;                                                                                  \
	}                                                                                                  \
	if (id == 1) { /* alpha 4 */                                                                       \
		r[0] = SUB(d0, d2);                                                                        \
		r[rs] = ADD(d1, d2);                                                                       \
		r[2 * rs] = SUB(d2, d1);                                                                   \
		r[3 * rs] = SUB(d1, d3);                                                                   \
		return 1;                                                                                  \
	}                                                                                                  \
	if (id == 2 || id == 4) { /* alpha 6: points 0, +-1, +-2, inf */                                   \
		const V d4 = d[4 * ds], d5 = d[5 * ds];                                                    \
		const V four = SET1(4.0f), five = SET1(5.0f);                                              \
		const V two = SET1(2.0f);                                                                  \
		const V a = FNMADD(four, d2, d4), b = FNMADD(four, d1, d3);                                \
		const V c = SUB(d4, d2), e = SUB(d3, d1);                                                  \
		r[0] = FMADD(four, d0, FNMADD(five, d2, d4));                                              \
		r[rs] = ADD(a, b);                                                                         \
		r[2 * rs] = SUB(a, b);                                                                     \
		r[3 * rs] = FMADD(two, e, c);                                                              \
		r[4 * rs] = FNMADD(two, e, c);                                                             \
		r[5 * rs] = FMADD(four, d1, FNMADD(five, d3, d5));                                         \
		return 1;                                                                                  \
	}                                                                                                  \
	if (id == 5) { /* alpha 7: points 0, +-1, +-2, 1/2, inf (no symmetry to share) */                  \
		const V d4 = d[4 * ds], d5 = d[5 * ds], d6 = d[6 * ds];                                    \
		const V k2 = SET1(2.0f), k3 = SET1(3.0f);                                                  \
		const V k4 = SET1(4.0f), k5 = SET1(5.0f);                                                  \
		const V k8 = SET1(8.0f);                                                                   \
		/* 4 d0 - 8 d1 - 5 d2 + 10 d3 + d4 - 2 d5 */                                               \
		r[0] = FMADD(k4, d0, FNMADD(k8, d1, FNMADD(k5, d2,                                         \
		       FMADD(SET1(10.0f), d3, FNMADD(k2, d5, d4)))));                                      \
		/* 4 (d1 - d2) - 9 d3 + d4 + 2 d5 */                                                       \
		r[rs] = FMADD(k4, SUB(d1, d2),                                                             \
		        FNMADD(SET1(9.0f), d3, FMADD(k2, d5, d4)));                                        \
		/* 4 d1 - 12 d2 + 7 d3 + 3 d4 - 2 d5 */                                                    \
		r[2 * rs] = FMADD(k4, d1, FNMADD(SET1(12.0f), d2,                                          \
		            FMADD(SET1(7.0f), d3, FMADD(k3, d4,                                            \
		            MUL(SET1(-2.0f), d5)))));                                                      \
		/* 2 (d1 + d5) + 3 (d4 - d2) - 4 d3 */                                                     \
		r[3 * rs] = FMADD(k2, ADD(d1, d5),                                                         \
		            FNMADD(k4, d3, MUL(k3, SUB(d4, d2))));                                         \
		/* 2 (d1 - d5) + 5 (d4 - d2) */                                                            \
		r[4 * rs] = FMADD(k2, SUB(d1, d5), MUL(k5, SUB(d4, d2)));                                  \
		/* 4 d1 - 5 d3 + d5 */                                                                     \
		r[5 * rs] = FMADD(k4, d1, FNMADD(k5, d3, d5));                                             \
		/* -4 d1 + 8 d2 + 5 d3 - 10 d4 - d5 + 2 d6 */                                              \
		r[6 * rs] = FNMADD(k4, d1, FMADD(k8, d2, FMADD(k5, d3,                                     \
		            FNMADD(SET1(10.0f), d4, FMSUB(k2, d6, d5)))));                                 \
		return 1;                                                                                  \
	}                                                                                                  \
	if (id == 3 || id == 6) { /* alpha 8: points 0, +-1, +-2, +-1/2, inf */                            \
		const V d4 = d[4 * ds], d5 = d[5 * ds], d6 = d[6 * ds], d7 = d[7 * ds];                    \
		const V k525 = SET1(5.25f), k425 = SET1(4.25f);                                            \
		const V m25d3 = MUL(SET1(-2.5f), d3);                                                      \
		r[0] = FMADD(k525, SUB(d4, d2), SUB(d0, d6));                                              \
		r[7 * rs] = FMADD(k525, SUB(d3, d5), SUB(d7, d1));                                         \
		V a = FNMADD(k425, d4, ADD(d2, d6));                                                       \
		V b = FNMADD(k425, d3, ADD(d1, d5));                                                       \
		r[rs] = ADD(a, b);                                                                         \
		r[2 * rs] = SUB(a, b);                                                                     \
		a = FMADD(SET1(0.25f), d2,                                                                 \
		                    FNMADD(SET1(1.25f), d4, d6));                                          \
		b = FMADD(SET1(0.5f), d1,                                                                  \
		                    FMADD(SET1(2.0f), d5, m25d3));                                         \
		r[3 * rs] = ADD(a, b);                                                                     \
		r[4 * rs] = SUB(a, b);                                                                     \
		a = FMADD(SET1(4.0f), d2, FNMADD(SET1(5.0f), d4, d6));                                     \
		b = FMADD(SET1(2.0f), d1, FMADD(SET1(0.5f), d5, m25d3));                                   \
		r[5 * rs] = ADD(a, b);                                                                     \
		r[6 * rs] = SUB(a, b);                                                                     \
		return 1;                                                                                  \
	}                                                                                                  \
	return 0;                                                                                          \
}                                                                                                          \
                                                                                                           \
/* One 1-D output transform A^T along s[0], s[ss], ... into o[0], o[os], ...                               \
 * (0 when the sparse sums have to do it). */                                                              \
ATTR __attribute__((always_inline)) static inline int                                                      \
rt_wino_at1_##SUF(int id, const V *s, int ss, V *o, int os)                                                \
{                                                                                                          \
	const V s0 = s[0];                                                                                 \
	if (id == 0) {                                                                                     \
		o[0] = s0;                                                                                 \
		return 1;                                                                                  \
	}                                                                                                  \
	const V s1 = s[ss], s2 = s[2 * ss], s3 = s[3 * ss];                                                \
	if (id == 1) { /* F(2,3) */                                                                        \
		o[0] = ADD(ADD(s0, s1), s2);                                                               \
		o[os] = SUB(SUB(s1, s2), s3);                                                              \
		return 1;                                                                                  \
	}                                                                                                  \
	const V p1 = ADD(s1, s2), q1 = SUB(s1, s2);                                                        \
	if (id == 2 || id == 4) { /* F(4,3), F(2,5): alpha 6 */                                            \
		const V s4 = s[4 * ss], s5 = s[5 * ss];                                                    \
		const V p2 = ADD(s3, s4), q2 = SUB(s3, s4);                                                \
		o[0] = ADD(ADD(s0, p1), p2);                                                               \
		if (id == 4) {                                                                             \
			o[os] = ADD(FMADD(SET1(2.0f), q2, q1), s5);                                        \
			return 1;                                                                          \
		}                                                                                          \
		o[os] = FMADD(SET1(2.0f), q2, q1);                                                         \
		o[2 * os] = FMADD(SET1(4.0f), p2, p1);                                                     \
		o[3 * os] = ADD(FMADD(SET1(8.0f), q2, q1), s5);                                            \
		return 1;                                                                                  \
	}                                                                                                  \
	if (id == 5) { /* F(3,5): alpha 7 */                                                               \
		const V s4 = s[4 * ss], s5 = s[5 * ss], s6 = s[6 * ss];                                    \
		const V p2 = ADD(s3, s4), q2 = SUB(s3, s4);                                                \
		o[0] = ADD(ADD(s0, p1), ADD(p2, s5));                                                      \
		o[os] = FMADD(SET1(0.5f), s5, FMADD(SET1(2.0f), q2, q1));                                  \
		o[2 * os] = ADD(FMADD(SET1(0.25f), s5,                                                     \
		                                          FMADD(SET1(4.0f), p2, p1)),                      \
		                          s6);                                                             \
		return 1;                                                                                  \
	}                                                                                                  \
	if (id == 3 || id == 6) { /* F(6,3), F(4,5): alpha 8 */                                            \
		const V s4 = s[4 * ss], s5 = s[5 * ss], s6 = s[6 * ss], s7 = s[7 * ss];                    \
		const V p2 = ADD(s3, s4), q2 = SUB(s3, s4);                                                \
		const V p3 = ADD(s5, s6), q3 = SUB(s5, s6);                                                \
		o[0] = ADD(ADD(s0, p1), ADD(p2, p3));                                                      \
		o[os] = FMADD(SET1(0.5f), q3,                                                              \
		                        FMADD(SET1(2.0f), q2, q1));                                        \
		o[2 * os] = FMADD(SET1(0.25f), p3,                                                         \
		                            FMADD(SET1(4.0f), p2, p1));                                    \
		const V o3 = FMADD(SET1(0.125f), q3,                                                       \
		                                  FMADD(SET1(8.0f), q2, q1));                              \
		if (id == 6) {                                                                             \
			o[3 * os] = ADD(o3, s7);                                                           \
			return 1;                                                                          \
		}                                                                                          \
		o[3 * os] = o3;                                                                            \
		o[4 * os] = FMADD(SET1(0.0625f), p3,                                                       \
		                            FMADD(SET1(16.0f), p2, p1));                                   \
		o[5 * os] = ADD(FMADD(SET1(0.03125f), q3,                                                  \
		                                          FMADD(SET1(32.0f), q2, q1)),                     \
		                          s7);                                                             \
		return 1;                                                                                  \
	}                                                                                                  \
	return 0;                                                                                          \
}                                                                                                          \
                                                                                                           \
/* The 2-D transforms of square tiles, F(m x m, r x r) with one 1-D                                        \
 * algorithm id on both axes, a constant after inlining: the 1-D transforms                                \
 * then inline as straight-line code (rt_wino_bt_ and rt_wino_at_ call these                               \
 * for F(2,3), F(4,3) and F(6,3)). a: alpha; m: the output tile's side. */                                 \
ATTR __attribute__((always_inline)) static inline void                                                     \
rt_wino_bt_sq_##SUF(int id, int a, const V *d, V *t, V *r)                                                 \
{                                                                                                          \
	for (int j = 0; j < a; j++)                                                                        \
		rt_wino_bt1_##SUF(id, d + j, a, t + j, a);                                                 \
	for (int k = 0; k < a; k++)                                                                        \
		rt_wino_bt1_##SUF(id, t + k * a, 1, r + k * a, 1);                                         \
}                                                                                                          \
ATTR __attribute__((always_inline)) static inline void                                                     \
rt_wino_at_sq_##SUF(int id, int a, int m, const V *s, V *u, V *o)                                          \
{                                                                                                          \
	for (int j = 0; j < a; j++)                                                                        \
		rt_wino_at1_##SUF(id, s + j, a, u + j, a);                                                 \
	for (int i = 0; i < m; i++)                                                                        \
		rt_wino_at1_##SUF(id, u + i * a, 1, o + i * m, 1);                                         \
}                                                                                                          \
                                                                                                           \
/* The sparse sums of one 1-D transform (the algorithms rt_wino_bt1_ and                                   \
 * rt_wino_at1_ do not write out): out[k os] = sum over q of                                               \
 * sp->c[k][q] in[sp->idx[k][q] is], for k < n. */                                                         \
ATTR static inline void                                                                                    \
rt_wino_sp1_##SUF(const struct rt_wino_sp *sp, int n, const V *in, int is, V *out, int os)                 \
{                                                                                                          \
	for (int k = 0; k < n; k++) {                                                                      \
		V s = ZERO;                                                                                \
		for (int q = 0; q < sp->n[k]; q++)                                                         \
			s = FMADD(SET1(sp->c[k][q]), in[sp->idx[k][q] * is], s);                           \
		out[k * os] = s;                                                                           \
	}                                                                                                  \
}                                                                                                          \
                                                                                                           \
/* r = B_h^T d B_w: d, r [ah][aw] vectors, t scratch of as many */                                         \
ATTR static inline void                                                                                    \
rt_wino_bt_##SUF(const struct rt_wino_plan *pl, const V *d, V *t, V *r)                                    \
{                                                                                                          \
	const int ah = pl->ah, aw = pl->aw;                                                                \
	switch (pl->hid == pl->wid ? pl->hid : 0) {                                                        \
	case 1: rt_wino_bt_sq_##SUF(1, 4, d, t, r); return;                                                \
	case 2: rt_wino_bt_sq_##SUF(2, 6, d, t, r); return;                                                \
	case 3: rt_wino_bt_sq_##SUF(3, 8, d, t, r); return;                                                \
	default: break;                                                                                    \
	}                                                                                                  \
	for (int j = 0; j < aw; j++)                                                                       \
		if (!rt_wino_bt1_##SUF(pl->hid, d + j, aw, t + j, aw))                                     \
			rt_wino_sp1_##SUF(&pl->bh, ah, d + j, aw, t + j, aw);                              \
	for (int k = 0; k < ah; k++)                                                                       \
		if (!rt_wino_bt1_##SUF(pl->wid, t + k * aw, 1, r + k * aw, 1))                             \
			rt_wino_sp1_##SUF(&pl->bw, aw, t + k * aw, 1, r + k * aw, 1);                      \
}                                                                                                          \
                                                                                                           \
/* o = A_h^T s A_w without bias (any algorithms): s [ah][aw], o [mh][mw]                                   \
 * vectors, u scratch [mh][aw] */                                                                          \
ATTR static inline void                                                                                    \
rt_wino_at_any_##SUF(const struct rt_wino_plan *pl, const V *s, V *u, V *o)                                \
{                                                                                                          \
	const int aw = pl->aw, mw = pl->mw;                                                                \
	for (int j = 0; j < aw; j++)                                                                       \
		if (!rt_wino_at1_##SUF(pl->hid, s + j, aw, u + j, aw))                                     \
			rt_wino_sp1_##SUF(&pl->oh, pl->mh, s + j, aw, u + j, aw);                          \
	for (int i = 0; i < pl->mh; i++)                                                                   \
		if (!rt_wino_at1_##SUF(pl->wid, u + i * aw, 1, o + i * mw, 1))                             \
			rt_wino_sp1_##SUF(&pl->ow, mw, u + i * aw, 1, o + i * mw, 1);                      \
}                                                                                                          \
                                                                                                           \
                                                                                                           \
/* o = A_h^T s A_w + bias, then the epilogue: s [ah][aw], o [mh][mw] vectors,                              \
 * u scratch [mh][aw] */                                                                                   \
ATTR static inline void                                                                                    \
rt_wino_at_##SUF(const struct rt_wino_plan *pl, const V *s, V *u, V bias, V *o)                            \
{                                                                                                          \
	float tmp[VL];                                                                                     \
	switch (pl->hid == pl->wid ? pl->hid : 0) {                                                        \
	case 1: rt_wino_at_sq_##SUF(1, 4, 2, s, u, o); break;                                              \
	case 2: rt_wino_at_sq_##SUF(2, 6, 4, s, u, o); break;                                              \
	case 3: rt_wino_at_sq_##SUF(3, 8, 6, s, u, o); break;                                              \
	default: rt_wino_at_any_##SUF(pl, s, u, o); break;                                                 \
	}                                                                                                  \
	for (int e = 0; e < pl->mh * pl->mw; e++) {                                                        \
		V a = ADD(o[e], bias);                                                                     \
		if (pl->act == RT_ACT_RELU) {                                                              \
			a = MAX(a, ZERO);                                                                  \
		} else if (pl->act != RT_ACT_NONE) {                                                       \
			STOREU(tmp, a);                                                                    \
			for (int l = 0; l < VL; l++)                                                       \
				tmp[l] = rt_act_apply(pl->act, pl->alpha, pl->beta, tmp[l]);               \
			a = LOADU(tmp);                                                                    \
		}                                                                                          \
		o[e] = a;                                                                                  \
	}                                                                                                  \
}


/* ---- 8 x 8 transposes (AVX2, and the AVX-512 tile paths) ------------------ */

#if RT_SGEMM_X86_ && (RT_SGEMM_HAVE_AVX512 || RT_SGEMM_HAVE_AVX2)

/* The 4 x 4 transposes within both 128-bit halves: o[j] lane k (and 4 + k)
 * is lane j (and 4 + j) of the k-th of a, b, c, e. */
__attribute__((target("avx2"))) static inline void
rt_wino_tr4_avx2(__m256 a, __m256 b, __m256 c, __m256 e, __m256 *o)
{
	const __m256 t0 = _mm256_unpacklo_ps(a, b), t1 = _mm256_unpackhi_ps(a, b);
	const __m256 t2 = _mm256_unpacklo_ps(c, e), t3 = _mm256_unpackhi_ps(c, e);
	o[0] = _mm256_shuffle_ps(t0, t2, 0x44);
	o[1] = _mm256_shuffle_ps(t0, t2, 0xEE);
	o[2] = _mm256_shuffle_ps(t1, t3, 0x44);
	o[3] = _mm256_shuffle_ps(t1, t3, 0xEE);
}

/* In-place transpose of an 8 x 8 block: r[a] lane b <-> r[b] lane a. */
__attribute__((target("avx2"))) static inline void rt_wino_tr8_avx2(__m256 *r)
{
	__m256 t[8];
	rt_wino_tr4_avx2(r[0], r[1], r[2], r[3], t);     /* rows 0-3, columns j and 4 + j */
	rt_wino_tr4_avx2(r[4], r[5], r[6], r[7], t + 4); /* rows 4-7 */
	for (int j = 0; j < 4; j++) {
		r[j] = _mm256_permute2f128_ps(t[j], t[4 + j], 0x20);
		r[4 + j] = _mm256_permute2f128_ps(t[j], t[4 + j], 0x31);
	}
}

#endif

/* ---- AVX2: up to 8 lanes -------------------------------------------------- */

/* AVX-512 builds have these too: their rows-contiguous transforms of layers
 * whose tile rows are at most 8 tiles run here (rt_wino_channels_). */
#if RT_SGEMM_X86_ && (RT_SGEMM_HAVE_AVX2 || RT_SGEMM_HAVE_AVX512)

/* Whether the rows-contiguous AVX2 transforms move a tile row segment a
 * tile at a time (its columns in one vector, then 8 x 8 transposes): tiles
 * 3 or 6 columns wide; 1, 2 and 4 have their own loads and shuffles. */
static inline int rt_wino_by_tile_avx2(int mw)
{
	return mw == 3 || mw == 6;
}

RT_WINO_VEC_(avx2, __attribute__((target("avx2,fma"))), __m256, 8, _mm256_setzero_ps(),
             _mm256_loadu_ps, _mm256_storeu_ps, _mm256_set1_ps, _mm256_add_ps, _mm256_sub_ps,
             _mm256_mul_ps, _mm256_max_ps, _mm256_fmadd_ps, _mm256_fnmadd_ps, _mm256_fmsub_ps)

/* Stores lanes [0, n) of v at p, n <= 8, in pieces of 4, 2 and 1 floats:
 * AVX2's masked store is microcoded on AMD cores, and a lane group of 7
 * tiles (a 28-wide output in F(4,3)) would pay it on every vector of V. */
__attribute__((target("avx2"))) static inline void rt_wino_stn_avx2(float *p, __m256 v, int n)
{
	if (n >= 8) {
		_mm256_storeu_ps(p, v);
		return;
	}
	__m128 h = _mm256_castps256_ps128(v);
	if (n >= 4) {
		_mm_storeu_ps(p, h);
		h = _mm256_extractf128_ps(v, 1);
		p += 4;
		n -= 4;
	}
	if (n >= 2) {
		_mm_storel_pi((__m64 *)p, h);
		h = _mm_movehl_ps(h, h);
		p += 2;
		n -= 2;
	}
	if (n)
		_mm_store_ss(p, h);
}

/* One footprint row of a lane group, the row contiguous: d[j] lane t is
 * element mw t + j of the row segment at row. Masked loads (cm[k], the load
 * at offset 8 k, or 2 k when mw is 2, or mw k, tile k's columns, when
 * rt_wino_by_tile_avx2) read zero outside the input's row; shuffles then
 * deinterleave the tiles. d has room for 8 vectors: tiles 3, 4 or 6 columns
 * wide write d[aw .. 7] too (the next footprint row overwrites them), as the
 * transposes store straight into d (a copy after them would be compiled to a
 * call to memcpy). */
__attribute__((target("avx2"))) static inline void
rt_wino_cols_avx2(const float *row, int mw, int aw, const __m256i *cm, __m256 *d)
{
	if (mw == 1) { /* aw is 1 */
		d[0] = _mm256_maskload_ps(row, cm[0]);
		return;
	}
	if (rt_wino_by_tile_avx2(mw)) { /* tile t's aw <= 8 columns in one load, transposed */
		for (int t = 0; t < 8; t++)
			d[t] = _mm256_maskload_ps(row + mw * t, cm[t]);
		rt_wino_tr8_avx2(d);
		return;
	}
	if (mw == 2) { /* column j = 2 q (+ 1): the even (odd) elements from 2 q on */
		for (int q = 0; 2 * q < aw; q++) {
			const __m256 lo = _mm256_maskload_ps(row + 2 * q, cm[q]);
			const __m256 hi = _mm256_maskload_ps(row + 2 * q + 8, cm[q + 4]);
			d[2 * q] = _mm256_castpd_ps(
				_mm256_permute4x64_pd(_mm256_castps_pd(_mm256_shuffle_ps(lo, hi, 0x88)), 0xD8));
			d[2 * q + 1] = _mm256_castpd_ps(
				_mm256_permute4x64_pd(_mm256_castps_pd(_mm256_shuffle_ps(lo, hi, 0xDD)), 0xD8));
		}
		return;
	}
	/* mw 4: the halves [4 t, 4 t + 4) of tiles t and t + 4 paired up, so
	 * that one transpose gives columns 0-3 of all 8 tiles, and one of the
	 * pairs a tile further on columns 4-7 (tile t + 1's 0-3) */
	__m256 p[5], h[5];
	for (int k = 0; k < 5; k++)
		p[k] = _mm256_maskload_ps(row + 8 * k, cm[k]);
	h[0] = _mm256_permute2f128_ps(p[0], p[2], 0x20); /* tiles 0, 4 */
	h[1] = _mm256_permute2f128_ps(p[0], p[2], 0x31); /* 1, 5 */
	h[2] = _mm256_permute2f128_ps(p[1], p[3], 0x20); /* 2, 6 */
	h[3] = _mm256_permute2f128_ps(p[1], p[3], 0x31); /* 3, 7 */
	h[4] = _mm256_permute2f128_ps(p[2], p[4], 0x20); /* 4, 8 */
	rt_wino_tr4_avx2(h[0], h[1], h[2], h[3], d);
	rt_wino_tr4_avx2(h[1], h[2], h[3], h[4], d + 4); /* aw is 6 or 8 */
}

/* The masks of a lane group's row loads (rt_wino_cols_avx2) for a row
 * segment from column xs: lanes inside [0, W). */
__attribute__((target("avx2"))) static inline void
rt_wino_colmask_avx2(const struct rt_wino_plan *pl, int xs, __m256i *cm)
{
	const __m256i lane = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
	const __m256i neg1 = _mm256_set1_epi32(-1), wv = _mm256_set1_epi32(pl->W);
	if (rt_wino_by_tile_avx2(pl->mw)) { /* a load a tile: its aw columns */
		const __m256i fp = _mm256_cmpgt_epi32(_mm256_set1_epi32(pl->aw), lane);
		for (int t = 0; t < 8; t++) {
			const __m256i q = _mm256_add_epi32(lane, _mm256_set1_epi32(xs + pl->mw * t));
			cm[t] = _mm256_and_si256(fp, _mm256_and_si256(_mm256_cmpgt_epi32(q, neg1),
			                                              _mm256_cmpgt_epi32(wv, q)));
		}
		return;
	}
	const int n = pl->mw == 2 ? 8 : pl->mw == 4 ? 5 : 1, step = pl->mw == 2 ? 2 : 8;
	for (int k = 0; k < n; k++) {
		const __m256i q = _mm256_add_epi32(lane, _mm256_set1_epi32(xs + step * k));
		cm[k] = _mm256_and_si256(_mm256_cmpgt_epi32(q, neg1), _mm256_cmpgt_epi32(wv, q));
	}
}

/* Input transform of the block's tiles [tb0, tb0 + nt), channels [c0, c1),
 * rows contiguous (xps == 1): channel by channel, the lane groups
 * left to right, so that a channel's rows and its V rows stay in L1 while
 * its groups go by. */
__attribute__((target("avx2,fma"))) static inline void
rt_wino_in_rows_avx2(const struct rt_wino_plan *pl,
                     const float *x, /* channel 0 of the group, input layout */
                     int tb0, int nt,
                     float *v, /* V of the block: (xi, c, t) at v[xi*vxs + c*tb + t - tb0] */
                     int c0, int c1)
{
	__m256 d[64], t[64], r[64]; /* footprint [ah][aw], B_h^T d, B_h^T d B_w */
	__m256i cm[8];
	const int ah = pl->ah, aw = pl->aw;
	for (int c = c0; c < c1; c++) {
		const float *xc = x + (size_t)c * pl->xcs; /* one channel */
		for (int t0 = tb0, nl; t0 < tb0 + nt; t0 += nl) {
			const int ty = t0 / pl->tw, tx0 = t0 % pl->tw;
			nl = rt_wino_nl(pl, t0, tb0 + nt, 8);
			const int ys = ty * pl->mh - pl->padT, xs = tx0 * pl->mw - pl->padL;
			/* made again for every group: kept from one group to the
			 * next where xs had not changed, they ran 2-3% slower on
			 * Zen 4 (28 x 28 and 14 x 14 F(4x4, 3x3)) */
			rt_wino_colmask_avx2(pl, xs, cm);
			for (int i = 0; i < ah; i++) {
				const int iy = ys + i;
				if (iy < 0 || iy >= pl->H) {
					for (int j = 0; j < aw; j++)
						d[i * aw + j] = _mm256_setzero_ps();
					continue;
				}
				rt_wino_cols_avx2(xc + (ptrdiff_t)iy * pl->xrs + xs, pl->mw, aw, cm, d + i * aw);
			}
			rt_wino_bt_avx2(pl, d, t, r);
			for (int e = 0; e < ah * aw; e++)
				rt_wino_stn_avx2(v + (size_t)e * pl->vxs + (size_t)c * pl->tb + (t0 - tb0), r[e], nl);
		}
	}
}

#if RT_SGEMM_HAVE_AVX2 /* HWC in AVX-512 builds goes through their stage */
/* Input transform of a lane group into V by masked gathers (any layout). */
__attribute__((target("avx2,fma"))) static inline void
rt_wino_in_avx2(const struct rt_wino_plan *pl,
                const float *x, /* channel 0 of the group, input layout */
                int ty, int tx0, int nl,
                float *v) /* V at the lane group: (xi, c, l) at v[xi*vxs + c*tb + l] */
{
	__m256 d[64], t[64], r[64]; /* footprint [ah][aw], B_h^T d, B_h^T d B_w */
	__m256i idx[64];            /* input offsets of the footprint's points */
	__m256 mk[64];              /* which lanes read inside the input (sign bits) */
	const int ah = pl->ah, aw = pl->aw;
	const int ys = ty * pl->mh - pl->padT, xs = tx0 * pl->mw - pl->padL;
	const __m256i lane = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
	const __m256i neg1 = _mm256_set1_epi32(-1), wv = _mm256_set1_epi32(pl->W);
	const __m256i valid = _mm256_cmpgt_epi32(_mm256_set1_epi32(nl), lane);
	const __m256i ix = _mm256_add_epi32(_mm256_set1_epi32(xs),
	                                    _mm256_mullo_epi32(lane, _mm256_set1_epi32(pl->mw)));
	for (int i = 0; i < ah; i++) {
		const int iy = ys + i;
		const __m256i row = iy >= 0 && iy < pl->H ? valid : _mm256_setzero_si256();
		for (int j = 0; j < aw; j++) {
			const __m256i q = _mm256_add_epi32(ix, _mm256_set1_epi32(j));
			const __m256i in = _mm256_and_si256(
				row, _mm256_and_si256(_mm256_cmpgt_epi32(q, neg1), _mm256_cmpgt_epi32(wv, q)));
			mk[i * aw + j] = _mm256_castsi256_ps(in);
			idx[i * aw + j] = _mm256_add_epi32(_mm256_set1_epi32(iy * pl->xrs),
			                                   _mm256_mullo_epi32(q, _mm256_set1_epi32(pl->xps)));
		}
	}
	for (int c = 0; c < pl->cg; c++) {
		const float *xc = x + (size_t)c * pl->xcs; /* one channel */
		for (int e = 0; e < ah * aw; e++)
			d[e] = _mm256_mask_i32gather_ps(_mm256_setzero_ps(), xc, idx[e], mk[e], 4);
		rt_wino_bt_avx2(pl, d, t, r);
		for (int e = 0; e < ah * aw; e++)
			rt_wino_stn_avx2(v + (size_t)e * pl->vxs + (size_t)c * pl->tb, r[e], nl);
	}
}

#endif /* RT_SGEMM_HAVE_AVX2 */

/* Output transform of the block's tiles [tb0, tb0 + nt), output channels
 * [m0, m1), with bias and epilogue, rows contiguous (yps == 1):
 * channel by channel, the lane groups left to right; the tiles' columns
 * are interleaved back with shuffles and stored as whole row segments. */
__attribute__((target("avx2,fma"))) static inline void
rt_wino_out_rows_avx2(const struct rt_wino_plan *pl,
                      const float *mb, /* M of the block: (xi, m, t) at mb[xi*mxs + m*tb + t - tb0] */
                      const float *bias, /* [mg] or NULL */
                      float *y, /* channel 0 of the group, output layout */
                      int tb0, int nt, int m0, int m1)
{
	__m256 s[64], u[64], o[64], g[4]; /* M [ah][aw], A_h^T M [mh][aw], tile outputs [mh][mw] */
	const int ah = pl->ah, aw = pl->aw, mh = pl->mh, mw = pl->mw;
	for (int m = m0; m < m1; m++) {
		float *ym = y + (size_t)m * pl->ycs; /* one output channel */
		const __m256 bm = _mm256_set1_ps(bias ? bias[m] : 0.0f);
		for (int t0 = tb0, nl, oy, ox, nv; t0 < tb0 + nt; t0 += nl) {
			nl = rt_wino_oseg(pl, t0, tb0 + nt, 8, &oy, &ox, &nv);
			for (int e = 0; e < ah * aw; e++)
				s[e] = _mm256_loadu_ps(mb + (size_t)e * pl->mxs + (size_t)m * pl->tb + (t0 - tb0));
			rt_wino_at_avx2(pl, s, u, bm, o);
			for (int i = 0; i < mh && oy + i < pl->oH; i++) {
				const __m256 *oi = o + i * mw; /* [mw] columns, lanes = tiles */
				float *row = ym + (size_t)(oy + i) * pl->yrs + ox; /* the tiles' row segment */
				int n = 1;
				if (rt_wino_by_tile_avx2(mw)) { /* tile t's mw columns a vector */
					__m256 q[8];
					for (int j = 0; j < 8; j++)
						q[j] = j < mw ? oi[j] : _mm256_setzero_ps();
					rt_wino_tr8_avx2(q);
					for (int t = 0; t < nl && mw * t < nv; t++)
						rt_wino_stn_avx2(row + mw * t, q[t], nv - mw * t < mw ? nv - mw * t : mw);
					continue;
				}
				if (mw == 1) {
					g[0] = oi[0];
				} else if (mw == 2) { /* tiles 0-3, 4-7 */
					const __m256 lo = _mm256_unpacklo_ps(oi[0], oi[1]);
					const __m256 hi = _mm256_unpackhi_ps(oi[0], oi[1]);
					g[0] = _mm256_permute2f128_ps(lo, hi, 0x20);
					g[1] = _mm256_permute2f128_ps(lo, hi, 0x31);
					n = 2;
				} else { /* tiles (0, 4), (1, 5), ... to 0-1, 2-3, 4-5, 6-7 */
					__m256 q[4];
					rt_wino_tr4_avx2(oi[0], oi[1], oi[2], oi[3], q);
					g[0] = _mm256_permute2f128_ps(q[0], q[1], 0x20);
					g[1] = _mm256_permute2f128_ps(q[2], q[3], 0x20);
					g[2] = _mm256_permute2f128_ps(q[0], q[1], 0x31);
					g[3] = _mm256_permute2f128_ps(q[2], q[3], 0x31);
					n = 4;
				}
				for (int k = 0; k < n && 8 * k < nv; k++)
					rt_wino_stn_avx2(row + 8 * k, g[k], nv - 8 * k);
			}
		}
	}
}

#if RT_SGEMM_HAVE_AVX2 /* HWC in AVX-512 builds goes through their stage */
/* Output transform of a lane group from M, with bias and epilogue, stored
 * lane by lane (any layout). */
__attribute__((target("avx2,fma"))) static inline void
rt_wino_out_avx2(const struct rt_wino_plan *pl,
                 const float *mb, /* M at the lane group: (xi, m, l) at mb[xi*mxs + m*tb + l] */
                 const float *bias, /* [mg] or NULL */
                 float *y, /* channel 0 of the group, output layout */
                 int ty, int tx0, int nl)
{
	__m256 s[64], u[64], o[64]; /* M [ah][aw], A_h^T M [mh][aw], tile outputs [mh][mw] */
	float tmp[8];
	const int ah = pl->ah, aw = pl->aw, mh = pl->mh, mw = pl->mw;
	const int oy = ty * mh, ox = tx0 * mw;
	for (int m = 0; m < pl->mg; m++) {
		float *ym = y + (size_t)m * pl->ycs; /* one output channel */
		for (int e = 0; e < ah * aw; e++)
			s[e] = _mm256_loadu_ps(mb + (size_t)e * pl->mxs + (size_t)m * pl->tb);
		rt_wino_at_avx2(pl, s, u, _mm256_set1_ps(bias ? bias[m] : 0.0f), o);
		for (int i = 0; i < mh && oy + i < pl->oH; i++)
			for (int j = 0; j < mw; j++) {
				_mm256_storeu_ps(tmp, o[i * mw + j]);
				for (int l = 0; l < nl && ox + l * mw + j < pl->oW; l++)
					ym[(size_t)(oy + i) * pl->yrs + (size_t)(ox + l * mw + j) * pl->yps] = tmp[l];
			}
	}
}

#endif /* RT_SGEMM_HAVE_AVX2 */
#endif

/* ---- AVX-512: up to 16 lanes, loads and permutes ------------------------- */
#if RT_SGEMM_X86_ && RT_SGEMM_HAVE_AVX512

RT_WINO_VEC_(avx512, __attribute__((target("avx512f"))), __m512, 16, _mm512_setzero_ps(),
             _mm512_loadu_ps, _mm512_storeu_ps, _mm512_set1_ps, _mm512_add_ps, _mm512_sub_ps,
             _mm512_mul_ps, _mm512_max_ps, _mm512_fmadd_ps, _mm512_fnmadd_ps, _mm512_fmsub_ps)

/* In-place transpose of a 16 x 16 block: r[a] lane b <-> r[b] lane a. */
__attribute__((target("avx512f"))) static inline void rt_wino_tr16_avx512(__m512 *r)
{
	__m512 t[16];
	for (int i = 0; i < 8; i++) {
		t[2 * i] = _mm512_unpacklo_ps(r[2 * i], r[2 * i + 1]);
		t[2 * i + 1] = _mm512_unpackhi_ps(r[2 * i], r[2 * i + 1]);
	}
	/* r[4g + e], 128-bit lane k: rows 4g..4g+3 of column 4k + e */
	for (int g = 0; g < 4; g++) {
		const __m512d lo0 = _mm512_castps_pd(t[4 * g]), lo1 = _mm512_castps_pd(t[4 * g + 2]);
		const __m512d hi0 = _mm512_castps_pd(t[4 * g + 1]), hi1 = _mm512_castps_pd(t[4 * g + 3]);
		r[4 * g] = _mm512_castpd_ps(_mm512_unpacklo_pd(lo0, lo1));
		r[4 * g + 1] = _mm512_castpd_ps(_mm512_unpackhi_pd(lo0, lo1));
		r[4 * g + 2] = _mm512_castpd_ps(_mm512_unpacklo_pd(hi0, hi1));
		r[4 * g + 3] = _mm512_castpd_ps(_mm512_unpackhi_pd(hi0, hi1));
	}
	/* then a 4 x 4 transpose of 128-bit lanes among r[e], r[4+e], r[8+e], r[12+e] */
	for (int e = 0; e < 4; e++) {
		const __m512 p0 = _mm512_shuffle_f32x4(r[e], r[4 + e], 0x44);
		const __m512 p1 = _mm512_shuffle_f32x4(r[e], r[4 + e], 0xEE);
		const __m512 p2 = _mm512_shuffle_f32x4(r[8 + e], r[12 + e], 0x44);
		const __m512 p3 = _mm512_shuffle_f32x4(r[8 + e], r[12 + e], 0xEE);
		t[e] = _mm512_shuffle_f32x4(p0, p2, 0x88);
		t[4 + e] = _mm512_shuffle_f32x4(p0, p2, 0xDD);
		t[8 + e] = _mm512_shuffle_f32x4(p1, p3, 0x88);
		t[12 + e] = _mm512_shuffle_f32x4(p1, p3, 0xDD);
	}
	for (int i = 0; i < 16; i++)
		r[i] = t[i];
}

/* Whether the rows-contiguous AVX-512 input transform reads a lane group's
 * row segment a tile at a time: each tile's aw <= 8 columns in one 256-bit
 * load, then 8 x 8 transposes between tiles and lanes, as on AVX2 (256-bit
 * shuffles cost half of 512-bit ones on cores that split those in two,
 * Zen 4). Else whole 16-float vectors and permutes (pl->didx). Measured
 * at one thread on Zen 4, whole layers: tiles 3, 4 and 6 wide ran 4-19%
 * faster by tile; tiles 2 wide (4 columns a tile, one permute a column)
 * 12% slower. The output transform stays with permutes (pl->iidx): by tile
 * it stored 16 narrow masked vectors a row and ran 5-20% slower. */
static inline int rt_wino_by_tile_avx512(int mw)
{
	return mw >= 3;
}

/* The masks of the tile loads of a lane group whose row segment starts at
 * column xs: tile t's columns j < aw with xs + mw t + j inside [0, W). */
static inline void rt_wino_tilemask_avx512(const struct rt_wino_plan *pl, int xs, __mmask8 *tm)
{
	for (int t = 0; t < 16; t++) {
		const int lo = xs + pl->mw * t, a = lo < 0 ? -lo : 0;
		const int b = pl->W - lo < pl->aw ? pl->W - lo : pl->aw;
		tm[t] = (__mmask8)(b > a ? ((1u << b) - 1u) & ~((1u << a) - 1u) : 0u);
	}
}

/* One footprint row of a lane group, tile by tile: d[j] lane t is column j
 * of tile t, read from row + mw t under mask tm[t]. Where nl <= 8, lanes
 * 8-15 are zero (tiles 8-15 are not loaded). d has room for 8 vectors
 * (columns aw .. 7 are written too). */
__attribute__((target("avx512f,avx512vl,avx2"))) static inline void
rt_wino_tiles_in_avx512(const float *row, int mw, int nl, const __mmask8 *tm, __m512 *d)
{
	__m256 lo[8], hi[8];
	for (int t = 0; t < 8; t++)
		lo[t] = _mm256_maskz_loadu_ps(tm[t], row + mw * t);
	rt_wino_tr8_avx2(lo);
	if (nl <= 8) {
		for (int j = 0; j < 8; j++)
			d[j] = _mm512_zextps256_ps512(lo[j]); /* lanes 8-15: never stored */
		return;
	}
	for (int t = 0; t < 8; t++)
		hi[t] = _mm256_maskz_loadu_ps(tm[8 + t], row + mw * (8 + t));
	rt_wino_tr8_avx2(hi);
	for (int j = 0; j < 8; j++)
		d[j] = _mm512_castpd_ps(_mm512_insertf64x4(_mm512_castpd256_pd512(_mm256_castps_pd(lo[j])),
		                                           _mm256_castps_pd(hi[j]), 1));
}

/* Input transform of a block, rows contiguous (xps == 1). Channel by
 * channel, then the block's lane groups left to right, so that the reads
 * stream along ah rows at a time. */
__attribute__((target("avx512f,avx512vl,avx2"))) static inline void
rt_wino_in_rows_avx512(const struct rt_wino_plan *pl,
                       const float *x, /* channel 0 of the group, input layout */
                       int tb0, int nt, /* the block's tiles */
                       float *v, /* V of the block: (xi, c, t) at v[xi*vxs + c*tb + t - tb0] */
                       int c0, int c1) /* the channels to transform */
{
	__m512 d[64], t[64], r[64], u[8]; /* by tile, row i writes d[i aw .. i aw + 7]: (ah - 1) aw + 8 <= 64 */
	__m512i didx[4];
	__mmask16 cm[8][8]; /* [j][q]: lanes of window vector q of column j inside the row */
	__mmask8 tm[16];    /* by tile: tile t's columns inside the row */
	const int ah = pl->ah, aw = pl->aw, dn = pl->dn, by_tile = rt_wino_by_tile_avx512(pl->mw);
	const __m512i iota = _mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
	int m_xs = -pl->padL - 1; /* the segment tm or cm is for (none yet) */
	for (int k = 0; k < dn; k++)
		didx[k] = _mm512_loadu_si512(pl->didx[k]);
	for (int c = c0; c < c1; c++) {
		const float *xc = x + (size_t)c * pl->xcs; /* one channel */
		for (int t0 = tb0, nl; t0 < tb0 + nt; t0 += nl) {
			const int ty = t0 / pl->tw, tx0 = t0 % pl->tw;
			nl = rt_wino_nl(pl, t0, tb0 + nt, 16);
			const int ys = ty * pl->mh - pl->padT, xs = tx0 * pl->mw - pl->padL;
			const __mmask16 vm = (__mmask16)(nl >= 16 ? 0xFFFF : (1u << nl) - 1u);
			/* the masks depend on xs alone: kept while it holds (a row
			 * of 9-16 tiles is one group), 1% faster on Zen 4 */
			if (xs != m_xs) {
				if (by_tile)
					rt_wino_tilemask_avx512(pl, xs, tm);
				else
					for (int j = 0; j < aw; j++)
						for (int q = 0; q < pl->nwin; q++)
							cm[j][q] = _mm512_cmplt_epu32_mask(
								_mm512_add_epi32(iota, _mm512_set1_epi32(xs + j + 16 * q)),
								_mm512_set1_epi32(pl->W));
				m_xs = xs;
			}
			for (int i = 0; i < ah; i++) {
				const int iy = ys + i;
				if (iy < 0 || iy >= pl->H) {
					for (int j = 0; j < aw; j++)
						d[i * aw + j] = _mm512_setzero_ps();
					continue;
				}
				/* the row segment from column xs (masked loads skip
				 * columns outside the row, so padding reads zeros) */
				const float *row = xc + (ptrdiff_t)iy * pl->xrs + xs;
				/* the next channel's segment, needed a channel from now:
				 * ah rows of many channels are too many streams for the
				 * hardware prefetcher */
				if (c + 1 < pl->cg)
					for (int q = 0; q <= pl->nwin; q++)
						_mm_prefetch((const char *)(row + pl->xcs + 16 * q), _MM_HINT_T0);
				if (by_tile) {
					rt_wino_tiles_in_avx512(row, pl->mw, nl, tm, d + i * aw);
					continue;
				}
				for (int j = 0; j < aw; j++) {
					if (dn == 0) {
						d[i * aw + j] = _mm512_maskz_loadu_ps(cm[j][0], row + j);
						continue;
					}
					for (int q = 0; q < pl->nwin; q++)
						u[q] = _mm512_maskz_loadu_ps(cm[j][q], row + j + 16 * q);
					__m512 e = _mm512_permutex2var_ps(u[pl->dwin[0]], didx[0], u[pl->dwin[0] + 1]);
					for (int k = 1; k < dn; k++)
						e = _mm512_mask_blend_ps((__mmask16)pl->dmask[k], e,
						                         _mm512_permutex2var_ps(u[pl->dwin[k]], didx[k],
						                                                u[pl->dwin[k] + 1]));
					d[i * aw + j] = e;
				}
			}
			rt_wino_bt_avx512(pl, d, t, r);
			for (int e = 0; e < ah * aw; e++)
				_mm512_mask_storeu_ps(v + (size_t)e * pl->vxs + (size_t)c * pl->tb + (t0 - tb0), vm, r[e]);
		}
	}
}

/* Input transform, channels contiguous (xcs == 1): lanes = channels, then
 * transposed into V through the stage. */
__attribute__((target("avx512f"))) static inline void
rt_wino_in_pix_avx512(const struct rt_wino_plan *pl,
                      const float *x, /* channel 0 of the group, input layout */
                      int ty, int tx0, int nl,
                      float *v,  /* V at the lane group: (xi, c, l) at v[xi*vxs + c*tb + l] */
                      float *st) /* stage: [ah*aw][16 tiles][16 channels] */
{
	__m512 d[64], t[64], r[64];
	const int ah = pl->ah, aw = pl->aw, nxi = ah * aw;
	const int ys = ty * pl->mh - pl->padT;
	const __mmask16 vm = (__mmask16)(nl >= 16 ? 0xFFFF : (1u << nl) - 1u);
	for (int c0 = 0; c0 < pl->cg; c0 += 16) {
		const int nc = pl->cg - c0 < 16 ? pl->cg - c0 : 16;
		const __mmask16 cmk = (__mmask16)(nc >= 16 ? 0xFFFF : (1u << nc) - 1u);
		for (int l = 0; l < nl; l++) {
			const int xs = (tx0 + l) * pl->mw - pl->padL;
			for (int i = 0; i < ah; i++)
				for (int j = 0; j < aw; j++) {
					const int iy = ys + i, ix = xs + j;
					d[i * aw + j] =
						iy >= 0 && iy < pl->H && ix >= 0 && ix < pl->W ?
						_mm512_maskz_loadu_ps(cmk, x + (size_t)iy * pl->xrs +
						                               (size_t)ix * pl->xps + c0) :
						_mm512_setzero_ps();
				}
			rt_wino_bt_avx512(pl, d, t, r);
			for (int e = 0; e < nxi; e++)
				_mm512_storeu_ps(st + ((size_t)e * 16 + l) * 16, r[e]);
		}
		for (int e = 0; e < nxi; e++) {
			for (int l = 0; l < 16; l++)
				r[l] = l < nl ? _mm512_loadu_ps(st + ((size_t)e * 16 + l) * 16) : _mm512_setzero_ps();
			rt_wino_tr16_avx512(r);
			for (int k = 0; k < nc; k++)
				_mm512_mask_storeu_ps(v + (size_t)e * pl->vxs + (size_t)(c0 + k) * pl->tb, vm, r[k]);
		}
	}
}

/* Output transform of a block, rows contiguous (yps == 1). Channel by
 * channel, then the block's lane groups left to right, as the input
 * transform: the threads split channels, which balance where lane groups do
 * not (7 of them at 28x28 F(4,3)), and each channel's M and output rows are
 * read and written in one pass. */
__attribute__((target("avx512f"))) static inline void
rt_wino_out_rows_avx512(const struct rt_wino_plan *pl,
                        const float *mb, /* M of the block: (xi, m, t) at mb[xi*mxs + m*tb + t - tb0] */
                        const float *bias, /* [mg] or NULL */
                        float *y, /* channel 0 of the group, output layout */
                        int tb0, int nt, int m0, int m1)
{
	__m512 s[64], u[64], o[64];
	__m512i iidx[8][4];
	const int ah = pl->ah, aw = pl->aw, mh = pl->mh, mw = pl->mw, np = (mw + 1) / 2;
	for (int q = 0; q < mw; q++)
		for (int k = 0; k < np; k++)
			iidx[q][k] = _mm512_loadu_si512(pl->iidx[q][k]);
	for (int m = m0; m < m1; m++) {
		float *ym = y + (size_t)m * pl->ycs; /* one output channel */
		const __m512 bm = _mm512_set1_ps(bias ? bias[m] : 0.0f);
		for (int t0 = tb0, nl, oy, ox, nv; t0 < tb0 + nt; t0 += nl) {
			nl = rt_wino_oseg(pl, t0, tb0 + nt, 16, &oy, &ox, &nv);
			__mmask16 qm[8];
			for (int q = 0; q < mw; q++) {
				const int left = nv - 16 * q;
				qm[q] = (__mmask16)(left >= 16 ? 0xFFFF : left <= 0 ? 0 : (1u << left) - 1u);
			}
			for (int e = 0; e < ah * aw; e++)
				s[e] = _mm512_loadu_ps(mb + (size_t)e * pl->mxs + (size_t)m * pl->tb + (t0 - tb0));
			rt_wino_at_avx512(pl, s, u, bm, o);
			for (int i = 0; i < mh && oy + i < pl->oH; i++) {
				float *row = ym + (size_t)(oy + i) * pl->yrs + ox; /* the tiles' row segment */
				const __m512 *oi = o + i * mw;                    /* [mw] columns, lanes = tiles */
				if (mw == 1) {
					_mm512_mask_storeu_ps(row, qm[0], oi[0]);
					continue;
				}
				for (int q = 0; q < mw; q++) {
					__m512 e = _mm512_permutex2var_ps(oi[0], iidx[q][0], oi[1]);
					for (int k = 1; k < np; k++)
						e = _mm512_mask_blend_ps((__mmask16)pl->imask[q][k], e,
						                         _mm512_permutex2var_ps(oi[2 * k], iidx[q][k],
						                                                oi[2 * k + 1 < mw ? 2 * k + 1 : 2 * k]));
					_mm512_mask_storeu_ps(row + 16 * q, qm[q], e);
				}
			}
		}
	}
}

/* Output transform, channels contiguous (ycs == 1): M is transposed into the
 * stage (lanes = channels), then each tile is transformed and stored. */
__attribute__((target("avx512f"))) static inline void
rt_wino_out_pix_avx512(const struct rt_wino_plan *pl,
                       const float *mb, /* M at the lane group: (xi, m, l) at mb[xi*mxs + m*tb + l] */
                       const float *bias, /* [mg] or NULL */
                       float *y,  /* channel 0 of the group, output layout */
                       int ty, int tx0, int nl,
                       float *st) /* stage: [ah*aw][16 tiles][16 channels] */
{
	__m512 s[64], u[64], o[64];
	const int ah = pl->ah, aw = pl->aw, nxi = ah * aw, mh = pl->mh, mw = pl->mw;
	const int oy = ty * mh;
	for (int m0 = 0; m0 < pl->mg; m0 += 16) {
		const int nm = pl->mg - m0 < 16 ? pl->mg - m0 : 16;
		const __mmask16 mmk = (__mmask16)(nm >= 16 ? 0xFFFF : (1u << nm) - 1u);
		const __m512 bv = bias ? _mm512_maskz_loadu_ps(mmk, bias + m0) : _mm512_setzero_ps();
		for (int e = 0; e < nxi; e++) {
			for (int k = 0; k < 16; k++)
				s[k] = k < nm ? _mm512_loadu_ps(mb + (size_t)e * pl->mxs + (size_t)(m0 + k) * pl->tb) :
				                _mm512_setzero_ps();
			rt_wino_tr16_avx512(s);
			for (int l = 0; l < nl; l++)
				_mm512_storeu_ps(st + ((size_t)e * 16 + l) * 16, s[l]);
		}
		for (int l = 0; l < nl; l++) {
			const int ox = (tx0 + l) * mw;
			for (int e = 0; e < nxi; e++)
				s[e] = _mm512_loadu_ps(st + ((size_t)e * 16 + l) * 16);
			rt_wino_at_avx512(pl, s, u, bv, o);
			for (int i = 0; i < mh && oy + i < pl->oH; i++)
				for (int j = 0; j < mw && ox + j < pl->oW; j++)
					_mm512_mask_storeu_ps(y + (size_t)(oy + i) * pl->yrs + (size_t)(ox + j) * pl->yps + m0,
					                      mmk, o[i * mw + j]);
		}
	}
}

#endif

/* ---- the primitive -------------------------------------------------------- */

/* What the threads of one layer share. A layer of several tile blocks is cut
 * into sets of whole blocks (rt_wino_sets_), each thread taking a set through
 * all three phases on the set's own V, M, stage and GEMM workspace: it reads
 * only what it wrote, and the layer ends in one join. A layer of one block
 * splits each phase instead (rt_wino_block_): whole lane groups (up to
 * `lanes` tiles of one tile row, grouped from tb0 as in the serial loop) or,
 * where a transform goes channel by channel (rt_wino_by_channels_: the
 * AVX-512 and AVX2 transforms of rows-contiguous layouts), whole channels,
 * then the GEMMs in parts. Each tile and channel gets the same arithmetic
 * whoever transforms it, and the blocks do not depend on the thread count. */
struct rt_wino_job_ {
	const struct rt_wino_plan *pl;
	const float *xg, *bg; /* the group's input channel 0; its bias or NULL */
	float *yg;            /* the group's output channel 0 */
	float *vb, *mb, *st;  /* V, M and the stage buffer of the workspace */
	int tb0, nt, lanes;   /* the block's tiles; tiles per lane group */
	int phase;            /* 0: input transform into V, 1: output transform from M */
	/* the GEMM phase: M[xi] = U[xi] V[xi] for every point xi */
	const float *ug;      /* the group's packed U: [nxi][upanel] */
	size_t upanel;        /* floats of one packed U[xi] */
	float *gws;           /* `slots` GEMM workspaces of gsize floats */
	size_t gsize;         /* 0: every part uses the first one (one thread) */
	int isa, nxi;
	int groups;           /* lane groups of the block, for rt_wino_parts_ */
	/* the layer's blocks, for rt_wino_sets_ */
	int tiles, nominal;   /* tiles of the layer; tiles of every block but the last */
	int nb, sets;         /* blocks; sets of blocks (and of V and M) */
	int slots;            /* stages and GEMM workspaces: 1, or one a part */
	size_t vmsize;        /* floats of one set's V and M */
};

/* Lane groups [i0, i1) of the block, staging through st when the layout
 * needs it (HWC on AVX-512). */
static void rt_wino_run_(const struct rt_wino_job_ *j, int i0, int i1, float *st)
{
	const struct rt_wino_plan *pl = j->pl;
	(void)st; /* only the AVX-512 HWC transforms stage */
	const int tb0 = j->tb0, nt = j->nt, lanes = j->lanes;
	int gi = 0;
	for (int t0 = tb0, nl; t0 < tb0 + nt && gi < i1; t0 += nl, gi++) {
		const int ty = t0 / pl->tw, tx0 = t0 % pl->tw;
		nl = rt_wino_nl(pl, t0, tb0 + nt, lanes);
		if (gi < i0)
			continue;
		if (j->phase == 0) {
			float *vl = j->vb + (t0 - tb0); /* the lane group's columns of V */
#if RT_SGEMM_X86_ && RT_SGEMM_HAVE_AVX512
			if (lanes == 16) {
				rt_wino_in_pix_avx512(pl, j->xg, ty, tx0, nl, vl, st);
				continue;
			}
#endif
#if RT_SGEMM_X86_ && RT_SGEMM_HAVE_AVX2
			if (lanes == 8) {
				rt_wino_in_avx2(pl, j->xg, ty, tx0, nl, vl);
				continue;
			}
#endif
			rt_wino_in_c(pl, j->xg, ty, tx0, nl, vl);
		} else {
			const float *ml = j->mb + (t0 - tb0); /* the lane group's columns of M */
#if RT_SGEMM_X86_ && RT_SGEMM_HAVE_AVX512
			if (lanes == 16) { /* rows contiguous go by channels */
				rt_wino_out_pix_avx512(pl, ml, j->bg, j->yg, ty, tx0, nl, st);
				continue;
			}
#endif
#if RT_SGEMM_X86_ && RT_SGEMM_HAVE_AVX2
			if (lanes == 8) {
				rt_wino_out_avx2(pl, ml, j->bg, j->yg, ty, tx0, nl);
				continue;
			}
#endif
			rt_wino_out_c(pl, ml, j->bg, j->yg, ty, tx0, nl);
		}
	}
}

/* Lane groups [i0, i1) of the block, one stage buffer (layouts that need
 * none run any range on any thread). */
static void rt_wino_lanes_(void *ctx, int i0, int i1)
{
	const struct rt_wino_job_ *j = ctx;
	rt_wino_run_(j, i0, i1, j->st);
}

/* The GEMM phase of a one-block layer is cut into RT_WINO_GEMM_SLOTS
 * (rt_types.h) parts of consecutive points xi, part k packing its B panels
 * into the k-th GEMM workspace, so that the threads run whole GEMMs side by
 * side: one block's GEMMs (tb <= 96 tiles wide) are too narrow to split each
 * over the threads and too small to pass RT_PARALLEL_MIN_WORK alone (28 x 28
 * x 128: 128 x 48 x 128 per point), while the block's 16 to 64 of them
 * together are not. */

/* Parts [k0, k1) of the block's GEMMs. Each M[xi] is one rt_sgemm call
 * whoever makes it (nested in a job it runs on its thread alone), so the
 * outputs do not depend on the thread count. */
static void rt_wino_gemms_(void *ctx, int k0, int k1)
{
	const struct rt_wino_job_ *j = ctx;
	const struct rt_wino_plan *pl = j->pl;
	for (int k = k0; k < k1; k++) {
		float *gws = j->gws + (size_t)k * j->gsize;
		const int xi1 = j->nxi * (k + 1) / RT_WINO_GEMM_SLOTS;
		for (int xi = j->nxi * k / RT_WINO_GEMM_SLOTS; xi < xi1; xi++)
			rt_sgemm(j->isa, pl->mg, j->nt, pl->cg, NULL, 0, 0, j->ug + (size_t)xi * j->upanel,
			         j->vb + (size_t)xi * pl->vxs, (size_t)pl->tb, 1,
			         j->mb + (size_t)xi * pl->mxs, (size_t)pl->tb, 0, gws);
	}
}

/* Parts [k0, k1) of the block's lane groups, RT_WINO_GEMM_SLOTS parts,
 * part k staging through the k-th stage buffer: the transforms that stage
 * (HWC on AVX-512) run on the threads side by side. A lane group's result
 * does not depend on the stage it used. */
#if RT_SGEMM_X86_ && RT_SGEMM_HAVE_AVX512
static void rt_wino_parts_(void *ctx, int k0, int k1)
{
	const struct rt_wino_job_ *j = ctx;
	for (int k = k0; k < k1; k++)
		rt_wino_run_(j, j->groups * k / RT_WINO_GEMM_SLOTS, j->groups * (k + 1) / RT_WINO_GEMM_SLOTS,
		             j->st + (size_t)k * j->nxi * 256);
}
#endif

/* How many lane groups the block has. */
static inline int rt_wino_groups_(const struct rt_wino_job_ *j)
{
	int n = 0;
	for (int t0 = j->tb0; t0 < j->tb0 + j->nt; n++)
		t0 += rt_wino_nl(j->pl, t0, j->tb0 + j->nt, j->lanes);
	return n;
}

/* Whether the block's current phase goes channel by channel: on AVX-512
 * and AVX2, where its layout has rows contiguous (CHW, HCW); else (HWC, and
 * portable C) lane group by lane group. */
static inline int rt_wino_by_channels_(const struct rt_wino_job_ *j)
{
	const struct rt_wino_plan *pl = j->pl;
	return (j->lanes == 16 || j->lanes == 8) && (j->phase == 0 ? pl->xps : pl->yps) == 1;
}

/* Channels [c0, c1) of the block's transform by channels: input channels
 * in phase 0, output channels in phase 1. */
static void rt_wino_channels_(void *ctx, int c0, int c1)
{
	const struct rt_wino_job_ *j = ctx;
#if RT_SGEMM_X86_ && RT_SGEMM_HAVE_AVX512
	/* A lane group never spans two tile rows, so where a row has at most 8
	 * tiles, 16 lanes would be half empty or worse: the 8-lane transforms
	 * do the same work with vectors half as wide (one F(4x4, 3x3) or
	 * F(6x6, 3x3) conv of 13 x 13 to 28 x 28 on Zen 4: 11-16% faster) */
	if (j->lanes == 16 && j->pl->tw > 8) {
		if (j->phase == 0)
			rt_wino_in_rows_avx512(j->pl, j->xg, j->tb0, j->nt, j->vb, c0, c1);
		else
			rt_wino_out_rows_avx512(j->pl, j->mb, j->bg, j->yg, j->tb0, j->nt, c0, c1);
		return;
	}
#endif
#if RT_SGEMM_X86_ && (RT_SGEMM_HAVE_AVX2 || RT_SGEMM_HAVE_AVX512)
	if (j->phase == 0)
		rt_wino_in_rows_avx2(j->pl, j->xg, j->tb0, j->nt, j->vb, c0, c1);
	else
		rt_wino_out_rows_avx2(j->pl, j->mb, j->bg, j->yg, j->tb0, j->nt, c0, c1);
#else
	(void)j;
	(void)c0;
	(void)c1;
#endif
}

/* The block's current transform (j->phase): by channels where
 * rt_wino_by_channels_ says so, else by lane groups, on the threads when
 * threaded; the staged AVX-512 transforms (HWC) go to the threads in parts,
 * a stage each, only when split (the GEMMs have a slot per part), else run on
 * this thread with the one stage. */
static void rt_wino_transform_(struct rt_wino_job_ *j, int threaded, int split)
{
	if (rt_wino_by_channels_(j)) {
		const int channels = j->phase == 0 ? j->pl->cg : j->pl->mg;
		if (threaded)
			rt_parallel(rt_wino_channels_, j, channels);
		else
			rt_wino_channels_(j, 0, channels);
		return;
	}
	if (!threaded) {
		rt_wino_lanes_(j, 0, j->groups);
		return;
	}
	(void)split; /* only the staged transforms split */
#if RT_SGEMM_X86_ && RT_SGEMM_HAVE_AVX512
	if (j->lanes == 16 && split) /* staged: a stage per part */
		rt_parallel(rt_wino_parts_, j, RT_WINO_GEMM_SLOTS);
	else if (j->lanes == 16)
		rt_wino_lanes_(j, 0, j->groups);
	else
#endif
		rt_parallel(rt_wino_lanes_, j, j->groups);
}

/* Tiles [tb0, tb0 + nt), one block, through the three phases: on the
 * threads phase by phase when threaded (the layer's only block), else on
 * this thread alone with the job's V, M, stage and first GEMM workspace. */
static void rt_wino_block_(struct rt_wino_job_ *j, int tb0, int nt, int threaded)
{
	const size_t gsize = j->gsize;
	j->tb0 = tb0;
	j->nt = nt;
	j->phase = 0;
	j->groups = rt_wino_groups_(j);
	/* the parts (GEMMs, staged transforms) go to the threads when the
	 * block's GEMMs together pass RT_PARALLEL_MIN_WORK and the layer has a
	 * slot for each part (built for more than one thread) */
#ifdef RT_THREADS
	const int split = threaded && j->slots > 1 &&
	                  (double)j->nxi * j->pl->mg * nt * j->pl->cg >= RT_PARALLEL_MIN_WORK;
#else
	const int split = 0;
#endif
	rt_wino_transform_(j, threaded, split);
	if (!split) {
		j->gsize = 0; /* one thread, one workspace */
		rt_wino_gemms_(j, 0, RT_WINO_GEMM_SLOTS);
		j->gsize = gsize;
	} else {
		rt_parallel(rt_wino_gemms_, j, RT_WINO_GEMM_SLOTS);
	}
	j->phase = 1;
	rt_wino_transform_(j, threaded, split);
}

/* Sets [k0, k1) of the layer's blocks: set k takes blocks
 * [ceil(nb k / sets), ceil(nb (k + 1) / sets)) through all three phases on
 * its own V and M, stage and GEMM workspace, the k0-th of each: the sets of
 * one range run one after the other on one thread, so they share the
 * buffers of the first (at 1 thread the layer's V and M stay as warm as with
 * one set). Rounding the cuts up puts the larger sets first, so two threads
 * claiming sets in order finish within a block of each other (5 blocks: 2,
 * 1, 1, 1). */
static void rt_wino_sets_(void *ctx, int k0, int k1)
{
	const struct rt_wino_job_ *l = ctx;
	struct rt_wino_job_ j = *l;
	j.vb = l->vb + (size_t)k0 * l->vmsize;
	j.mb = j.vb + (size_t)l->nxi * l->pl->vxs;
	j.st = l->st + (size_t)k0 * l->nxi * 256;
	j.gws = l->gws + (size_t)k0 * l->gsize;
	for (int k = k0; k < k1; k++) {
		const int b1 = (l->nb * (k + 1) + l->sets - 1) / l->sets;
		for (int bk = (l->nb * k + l->sets - 1) / l->sets; bk < b1; bk++) {
			const int tb0 = bk * l->nominal;
			rt_wino_block_(&j, tb0, bk == l->nb - 1 ? l->tiles - tb0 : l->nominal, 0);
		}
	}
}

RT_FN void rt_conv_winograd_gemm(const struct rt_conv2d *p, int variant,
                                 const float *x, /* [N] images C x H x W, layout variant/1000 */
                                 const float *w, /* U: [group][ah*aw][packed M/group x C/group] */
                                 const float *b, /* [M] or NULL */
                                 float *y,       /* out: [N] images M x oH x oW, layout variant/100%10 */
                                 float *ws)      /* per set of blocks V [ah*aw][C/group][tb] and
                                                    M [ah*aw][M/group][tb]; per slot a stage
                                                    [ah*aw][256] and the GEMM's workspace
                                                    (struct rt_wino_cut) */
{
	struct rt_wino_plan pl;
	const float *bth, *ath, *btw, *atw;
	pl.hid = variant / 10 % 10;
	pl.wid = variant % 10;
	rt_wino_1d(pl.hid, &pl.mh, &pl.ah, &bth, &ath);
	rt_wino_1d(pl.wid, &pl.mw, &pl.aw, &btw, &atw);
	rt_wino_sparse(pl.ah, pl.ah, bth, &pl.bh);
	rt_wino_sparse(pl.aw, pl.aw, btw, &pl.bw);
	rt_wino_sparse(pl.mh, pl.ah, ath, &pl.oh);
	rt_wino_sparse(pl.mw, pl.aw, atw, &pl.ow);
	rt_wino_lane_tables(&pl);
	const int nxi = pl.ah * pl.aw;
	const int th = (p->oH + pl.mh - 1) / pl.mh;
	pl.tw = (p->oW + pl.mw - 1) / pl.mw;
	const int tiles = th * pl.tw;
	pl.cg = p->C / p->group;
	pl.mg = p->M / p->group;
	/* blocks, sets and slots, as prep_winograd_ws reserved them */
	const struct rt_wino_cut cut = rt_wino_cut_of(tiles, nxi, pl.cg, pl.mg, p->threads);
	pl.tb = cut.tb;
	pl.vxs = rt_wino_point(pl.cg, cut.tb);
	pl.mxs = rt_wino_point(pl.mg, cut.tb);
	pl.H = p->H;
	pl.W = p->W;
	pl.oH = p->oH;
	pl.oW = p->oW;
	pl.padT = p->padT;
	pl.padL = p->padL;
	rt_wino_strides(variant / 1000, p->C, p->H, p->W, &pl.xcs, &pl.xrs, &pl.xps);
	rt_wino_strides(variant / 100 % 10, p->M, p->oH, p->oW, &pl.ycs, &pl.yrs, &pl.yps);
	pl.act = p->act;
	pl.alpha = p->alpha;
	pl.beta = p->beta;

	const size_t xsize = (size_t)p->C * p->H * p->W, ysize = (size_t)p->M * p->oH * p->oW;
	const int mr = RT_SGEMM_MR(p->isa);
	const size_t upanel = (size_t)((pl.mg + mr - 1) / mr) * mr * pl.cg; /* one packed U[xi] */
	/* cut.sets of V: [nxi][cg][tb] and M: [nxi][mg][tb] */
	float *vb = ws;
	float *mb = vb + (size_t)nxi * pl.vxs;
	float *st = vb + (size_t)cut.sets * nxi * (pl.vxs + pl.mxs);
	/* stages: [cut.slots][nxi][16][16] */
	float *gws = st + (size_t)cut.slots * nxi * 256; /* rt_sgemm's workspaces, gsize floats each */
	/* floats of rt_sgemm_workspace_size(p->isa, mg, tb, cg) (sgemm.h; library
	 * builds only, so written out): the packed B block plus 64 bytes */
	const size_t gkc = (size_t)(pl.cg < RT_SGEMM_KC(p->isa) ? pl.cg : RT_SGEMM_KC(p->isa));
	const size_t gnc = (size_t)(pl.tb < RT_SGEMM_NC(p->isa) ? pl.tb : RT_SGEMM_NC(p->isa));
	const size_t gnr = (size_t)RT_SGEMM_NR(p->isa);
	const size_t gsize = (gnc + gnr - 1) / gnr * gnr * gkc + 16;
	int lanes = 4;
#if RT_SGEMM_X86_ && RT_SGEMM_HAVE_AVX512
	if (p->isa == RT_SGEMM_ISA_AVX512)
		lanes = 16;
#endif
#if RT_SGEMM_X86_ && RT_SGEMM_HAVE_AVX2
	if (p->isa == RT_SGEMM_ISA_AVX2)
		lanes = 8;
#endif
	struct rt_wino_job_ j = {.pl = &pl, .vb = vb, .mb = mb, .st = st, .lanes = lanes,
	                         .upanel = upanel, .gws = gws, .isa = p->isa, .nxi = nxi};

	j.tiles = tiles;
	j.nominal = cut.nominal;
	j.nb = cut.blocks;
	j.sets = cut.sets;
	j.slots = cut.slots;
	j.vmsize = (size_t)nxi * (pl.vxs + pl.mxs);
	j.gsize = gsize;
#ifdef RT_THREADS
	/* the sets go to the threads when the layer's GEMMs together pass
	 * RT_PARALLEL_MIN_WORK */
	const double work = (double)nxi * pl.mg * tiles * pl.cg; /* the GEMMs' multiply-adds */
	const int split = j.sets > 1 && work >= RT_PARALLEL_MIN_WORK;
#else
	const int split = 0;
#endif

	for (int n = 0; n < p->N; n++)
		for (int g = 0; g < p->group; g++) {
			j.xg = x + n * xsize + (size_t)g * pl.cg * pl.xcs; /* group's channel 0 */
			j.yg = y + n * ysize + (size_t)g * pl.mg * pl.ycs;
			j.bg = b ? b + g * pl.mg : NULL;                   /* [mg] or NULL */
			j.ug = w + (size_t)g * nxi * upanel;                /* [nxi][packed] */
			if (j.nb == 1)
				rt_wino_block_(&j, 0, tiles, 1);
			else if (split)
				rt_parallel(rt_wino_sets_, &j, j.sets);
			else
				rt_wino_sets_(&j, 0, j.sets);
		}
}
