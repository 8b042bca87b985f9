/* prep_winograd.c - compile-time side of the winograd family (Lavin & Gray,
 * "Fast algorithms for convolutional neural networks", CVPR 2016): the
 * predicate, workspace size and the weight transform U = G g G^T.
 *
 * The 1-D algorithms F(m, r) are kept here as exact rationals (each matrix an
 * integer table over one denominator); conv_winograd_gemm.c holds the same
 * B^T and A^T as floats (all their entries are dyadic, so exact in float).
 * F(2,3), F(4,3), F(6,3) are the research brief's matrices (points 0, +-1,
 * +-2, +-1/2 and infinity). The 5x5 ones were derived with Cook-Toom in
 * exact rational arithmetic: evaluate at points a_i and infinity,
 * G = [a_i^u], A^T = [a_i^k], B^T = (V^-1)^T for the alpha x alpha
 * Vandermonde V (the transposition principle turns Toom-Cook's linear
 * convolution into correlation), then rows of B^T scaled to small integers
 * (or to the brief's scaling, for the shared point sets) with G compensating:
 *   F(2,5): points 0, +-1, +-2, inf (B^T as F(4,3))
 *   F(3,5): points 0, +-1, +-2, 1/2, inf
 *   F(4,5): points 0, +-1, +-2, +-1/2, inf (B^T as F(6,3))
 * prep_winograd_identity_exact checks every algorithm's identity exactly, and
 * PACK asserts it for the transforms it uses. */
#include <assert.h>
#include <stdlib.h>

#include "runtime/prep.h"
#include "runtime/sgemm.h"

/* A rows x cols rational matrix: entry (i, j) = num[i*cols + j] / den. */
struct wino_rat {
	int rows, cols, den;
	const int *num;
};

/* One 1-D algorithm F(m, r), alpha = m + r - 1. */
struct wino_1d {
	int m, r;
	struct wino_rat at; /* A^T [m][alpha]: output transform */
	struct wino_rat g;  /* G [alpha][r]: kernel transform */
	struct wino_rat bt; /* B^T [alpha][alpha]: input transform */
};

static const int one[] = {1};
/* A^T of F(2,3), [2][4], over 1 */
static const int at23[] = {
	 1,  1,  1,  0,
	 0,  1, -1, -1,
};
/* G of F(2,3), [4][3], over 2 */
static const int g23[] = {
	 2,  0,  0,
	 1,  1,  1,
	 1, -1,  1,
	 0,  0,  2,
};
/* B^T for alpha 4, [4][4], over 1 */
static const int bt4[] = {
	 1,  0, -1,  0,
	 0,  1,  1,  0,
	 0, -1,  1,  0,
	 0,  1,  0, -1,
};
/* A^T of F(4,3), [4][6], over 1 */
static const int at43[] = {
	 1,  1,  1,  1,  1,  0,
	 0,  1, -1,  2, -2,  0,
	 0,  1,  1,  4,  4,  0,
	 0,  1, -1,  8, -8,  1,
};
/* G of F(4,3), [6][3], over 24 */
static const int g43[] = {
	 6,  0,  0,
	-4, -4, -4,
	-4,  4, -4,
	 1,  2,  4,
	 1, -2,  4,
	 0,  0, 24,
};
/* B^T for alpha 6, [6][6], over 1 */
static const int bt6[] = {
	 4,  0, -5,  0,  1,  0,
	 0, -4, -4,  1,  1,  0,
	 0,  4, -4, -1,  1,  0,
	 0, -2, -1,  2,  1,  0,
	 0,  2, -1, -2,  1,  0,
	 0,  4,  0, -5,  0,  1,
};
/* A^T of F(6,3), [6][8], over 32 */
static const int at63[] = {
	   32,    32,    32,    32,    32,    32,    32,     0,
	    0,    32,   -32,    64,   -64,    16,   -16,     0,
	    0,    32,    32,   128,   128,     8,     8,     0,
	    0,    32,   -32,   256,  -256,     4,    -4,     0,
	    0,    32,    32,   512,   512,     2,     2,     0,
	    0,    32,   -32,  1024, -1024,     1,    -1,    32,
};
/* G of F(6,3), [8][3], over 90 */
static const int g63[] = {
	 90,   0,   0,
	-20, -20, -20,
	-20,  20, -20,
	  1,   2,   4,
	  1,  -2,   4,
	 64,  32,  16,
	 64, -32,  16,
	  0,   0,  90,
};
/* B^T for alpha 8, [8][8], over 4 */
static const int bt8[] = {
	  4,   0, -21,   0,  21,   0,  -4,   0,
	  0,   4,   4, -17, -17,   4,   4,   0,
	  0,  -4,   4,  17, -17,  -4,   4,   0,
	  0,   2,   1, -10,  -5,   8,   4,   0,
	  0,  -2,   1,  10,  -5,  -8,   4,   0,
	  0,   8,  16, -10, -20,   2,   4,   0,
	  0,  -8,  16,  10, -20,  -2,   4,   0,
	  0,  -4,   0,  21,   0, -21,   0,   4,
};
/* A^T of F(2,5), [2][6], over 1 */
static const int at25[] = {
	 1,  1,  1,  1,  1,  0,
	 0,  1, -1,  2, -2,  1,
};
/* G of F(2,5), [6][5], over 24 */
static const int g25[] = {
	 6,  0,  0,  0,  0,
	-4, -4, -4, -4, -4,
	-4,  4, -4,  4, -4,
	 1,  2,  4,  8, 16,
	 1, -2,  4, -8, 16,
	 0,  0,  0,  0, 24,
};
/* A^T of F(3,5), [3][7], over 4 */
static const int at35[] = {
	 4,  4,  4,  4,  4,  4,  0,
	 0,  4, -4,  8, -8,  2,  0,
	 0,  4,  4, 16, 16,  1,  4,
};
/* G of F(3,5), [7][5], over 360 */
static const int g35[] = {
	 90,   0,   0,   0,   0,
	-60, -60, -60, -60, -60,
	-20,  20, -20,  20, -20,
	  5,  10,  20,  40,  80,
	  3,  -6,  12, -24,  48,
	256, 128,  64,  32,  16,
	  0,   0,   0,   0, 180,
};
/* B^T for alpha 7, [7][7], over 1 */
static const int bt7[] = {
	  4,  -8,  -5,  10,   1,  -2,   0,
	  0,   4,  -4,  -9,   1,   2,   0,
	  0,   4, -12,   7,   3,  -2,   0,
	  0,   2,  -3,  -4,   3,   2,   0,
	  0,   2,  -5,   0,   5,  -2,   0,
	  0,   4,   0,  -5,   0,   1,   0,
	  0,  -4,   8,   5, -10,  -1,   2,
};
/* A^T of F(4,5), [4][8], over 8 */
static const int at45[] = {
	  8,   8,   8,   8,   8,   8,   8,   0,
	  0,   8,  -8,  16, -16,   4,  -4,   0,
	  0,   8,   8,  32,  32,   2,   2,   0,
	  0,   8,  -8,  64, -64,   1,  -1,   8,
};
/* G of F(4,5), [8][5], over 90 */
static const int g45[] = {
	 90,   0,   0,   0,   0,
	-20, -20, -20, -20, -20,
	-20,  20, -20,  20, -20,
	  1,   2,   4,   8,  16,
	  1,  -2,   4,  -8,  16,
	 64,  32,  16,   8,   4,
	 64, -32,  16,  -8,   4,
	  0,   0,   0,   0,  90,
};

/* Indexed by the transform id of prep_winograd.h. */
static const struct wino_1d wino_1d_tables[] = {
	{1, 1, {1, 1, 1, one}, {1, 1, 1, one}, {1, 1, 1, one}},
	{2, 3, {2, 4, 1, at23}, {4, 3, 2, g23}, {4, 4, 1, bt4}},
	{4, 3, {4, 6, 1, at43}, {6, 3, 24, g43}, {6, 6, 1, bt6}},
	{6, 3, {6, 8, 32, at63}, {8, 3, 90, g63}, {8, 8, 4, bt8}},
	{2, 5, {2, 6, 1, at25}, {6, 5, 24, g25}, {6, 6, 1, bt6}},
	{3, 5, {3, 7, 4, at35}, {7, 5, 360, g35}, {7, 7, 1, bt7}},
	{4, 5, {4, 8, 8, at45}, {8, 5, 90, g45}, {8, 8, 4, bt8}},
};
#define WINO_N_1D ((int)(sizeof wino_1d_tables / sizeof wino_1d_tables[0]))

int prep_winograd_n_transforms(void) { return WINO_N_1D; }

int prep_winograd_identity_exact(int id)
{
	if (id < 0 || id >= WINO_N_1D)
		return 0;
	const struct wino_1d *t = &wino_1d_tables[id];
	const int a = t->m + t->r - 1;
	if (t->at.rows != t->m || t->at.cols != a || t->g.rows != a || t->g.cols != t->r ||
	    t->bt.rows != a || t->bt.cols != a)
		return 0;
	/* sum_xi AT[k][xi] G[xi][u] BT[xi][j] == [j == k + u], over the common
	 * denominator of the three tables: integers, no rounding */
	const long long den = (long long)t->at.den * t->g.den * t->bt.den;
	for (int k = 0; k < t->m; k++)
		for (int u = 0; u < t->r; u++)
			for (int j = 0; j < a; j++) {
				long long s = 0;
				for (int xi = 0; xi < a; xi++)
					s += (long long)t->at.num[k * a + xi] * t->g.num[xi * t->r + u] *
					     t->bt.num[xi * a + j];
				if (s != (j == k + u ? den : 0))
					return 0;
			}
	return 1;
}

/* The variant's layouts and transforms (encoding in prep_winograd.h). */
struct wino_variant {
	int in, out;
	const struct wino_1d *h, *w;
};

static struct wino_variant decode(int variant)
{
	struct wino_variant v;
	v.in = variant / 1000;
	v.out = variant / 100 % 10;
	v.h = &wino_1d_tables[variant / 10 % 10];
	v.w = &wino_1d_tables[variant % 10];
	return v;
}

int prep_winograd_applies(const struct rt_conv2d *p, int variant)
{
	const struct wino_variant v = decode(variant);
	const double lim = 2147483647.0;
	return prep_applies_any(p, variant) && !prep_is_depthwise(p) && prep_is_stride1(p) &&
	       prep_is_dilation1(p) &&
	       p->kH == v.h->r && p->kW == v.w->r && p->oH > 0 && p->oW > 0 &&
	       (double)p->C * p->H * p->W < lim && (double)p->M * p->oH * p->oW < lim;
}

size_t prep_winograd_ws(const struct rt_conv2d *p, int variant)
{
	const struct wino_variant v = decode(variant);
	const int ah = v.h->m + v.h->r - 1, aw = v.w->m + v.w->r - 1, nxi = ah * aw;
	const int cg = p->C / p->group, mg = p->M / p->group;
	const int tiles = ((p->oH + v.h->m - 1) / v.h->m) * ((p->oW + v.w->m - 1) / v.w->m);
	/* the cut rt_conv_winograd_gemm makes, for the threads p was built for */
	const struct rt_wino_cut cut = rt_wino_cut_of(tiles, nxi, cg, mg, p->threads);
	const size_t gemm = (rt_sgemm_workspace_size(p->isa, mg, cut.tb, cg) + sizeof(float) - 1) /
	                    sizeof(float);
	/* V and M for each set of blocks, and for each slot (a part that runs
	 * side by side with the others) the 16 x 16 transpose stage per point
	 * and the GEMM's packing */
	const size_t vm = (size_t)nxi * (rt_wino_point(cg, cut.tb) + rt_wino_point(mg, cut.tb));
	return (size_t)cut.sets * vm + (size_t)cut.slots * ((size_t)nxi * 256 + gemm);
}

size_t prep_winograd_packed(const struct rt_conv2d *p, int variant)
{
	const struct wino_variant v = decode(variant);
	const int nxi = (v.h->m + v.h->r - 1) * (v.w->m + v.w->r - 1);
	return (size_t)p->group * nxi * rt_sgemm_pack_a_size(p->isa, p->M / p->group, p->C / p->group);
}

void prep_winograd_pack(const struct rt_conv2d *p, int variant,
                        const float *w, /* [M, C/group, kH, kW] */
                        float *out)     /* out: [group][nxi][packed mg x cg] */
{
	const struct wino_variant v = decode(variant);
	const int rh = v.h->r, rw = v.w->r;
	const int ah = v.h->m + rh - 1, aw = v.w->m + rw - 1, nxi = ah * aw;
	const int cg = p->C / p->group, mg = p->M / p->group;
	const size_t panel = rt_sgemm_pack_a_size(p->isa, mg, cg);
	assert(prep_winograd_identity_exact(variant / 10 % 10));
	assert(prep_winograd_identity_exact(variant % 10));
	double gh[8][8], gw[8][8]; /* G along H [ah][rh] and along W [aw][rw] */
	for (int i = 0; i < ah; i++)
		for (int u = 0; u < rh; u++)
			gh[i][u] = (double)v.h->g.num[i * rh + u] / v.h->g.den;
	for (int i = 0; i < aw; i++)
		for (int u = 0; u < rw; u++)
			gw[i][u] = (double)v.w->g.num[i * rw + u] / v.w->g.den;
	float *u = malloc((size_t)nxi * mg * cg * sizeof *u); /* [nxi][mg][cg] of one group */
	assert(u);
	for (int g = 0; g < p->group; g++) {
		for (int m = 0; m < mg; m++)
			for (int c = 0; c < cg; c++) {
				/* [rh][rw] kernel of (m, c) */
				const float *k = w + (((size_t)g * mg + m) * cg + c) * rh * rw;
				double t[8][8]; /* G_h k: [ah][rw] */
				for (int i = 0; i < ah; i++)
					for (int b = 0; b < rw; b++) {
						double s = 0;
						for (int a = 0; a < rh; a++)
							s += gh[i][a] * k[a * rw + b];
						t[i][b] = s;
					}
				for (int i = 0; i < ah; i++)
					for (int j = 0; j < aw; j++) {
						double s = 0;
						for (int b = 0; b < rw; b++)
							s += t[i][b] * gw[j][b];
						u[((size_t)(i * aw + j) * mg + m) * cg + c] = (float)s;
					}
			}
		for (int xi = 0; xi < nxi; xi++)
			rt_sgemm_pack_a(p->isa, mg, cg, u + (size_t)xi * mg * cg, (size_t)cg, 1,
			                out + ((size_t)g * nxi + xi) * panel);
	}
	free(u);
}
