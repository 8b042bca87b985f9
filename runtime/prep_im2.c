/* prep_im2.c - compile-time side of the im2 family (fam_im2.def): which
 * layers each row takes, how much workspace it needs, and the weights
 * re-laid out for its GEMMs.
 *
 * Every im2 row multiplies, per group g (and per kernel row u in the
 * accumulating "acc" rows), the weights W_g [mg][Kg] by a patch matrix whose
 * Kg rows (columns of W_g) are taps of the kernel in some order:
 *   im2col  (c', u, v)   the order of [M, C/group, kH, kW] itself
 *   im2row  (u, v, c')   the order of one contiguous HWC input run
 *   1x1     (c')
 * (c' is the channel within the group; acc rows take one u at a time). When
 * the weights are GEMM operand A (the "ki" rows: W·P, output CHW or HCW)
 * they are packed here with rt_sgemm_pack_a for p->isa, one packed block per
 * (group, kernel-row slice); when they are operand B (the "ik" rows: Pᵀ·Wᵀ,
 * output HWC) they are stored transposed, one row-major [Kg][mg] block per
 * (group, slice), so that rt_sgemm packs B from unit-stride rows.
 *
 * Workspace (floats): the patch matrix (or its band / kernel-row slice),
 * rounded up to 16 floats so the sgemm workspace after it stays 64-byte
 * aligned, plus rt_sgemm's own workspace for the largest GEMM the row runs.
 * The band height and the patch sizes are computed with the same formulas
 * as in the units (conv_im2_col.c, conv_im2_row.c, conv_im2_1x1.c); the
 * primitive test's guard values catch any disagreement. */
#include "runtime/prep.h"
#include "runtime/sgemm.h"

/* Variant bits of conv_im2_col.c and conv_im2_row.c (see fam_im2.def). */
#define IM2_IK 1          /* Pᵀ·Wᵀ, HWC output (else W·P) */
#define IM2_MODE(v) (((v) >> 1) & 3)
#define IM2_COPY 0        /* whole patch matrix */
#define IM2_SCAN 1        /* bands of output rows */
#define IM2_ACC 2         /* one kernel row u at a time, GEMMs accumulate */
#define IM2_HCW_IN 8      /* im2col: HCW input (else CHW) */
#define IM2_HCW_OUT 16    /* im2col ki: HCW output, one GEMM per output row */

/* Variants of conv_im2_1x1.c. */
#define IM2_1X1_HCW 4     /* HCW in and out, ki */

/* Column order of a weight matrix: column k of W_g is the mixed-radix number
 * (d0, d1, d2) with radices rad[], and lies at base + sum d_i * stride[i]
 * floats from the start of its row of [M, C/group, kH, kW]. */
struct im2_kmap {
	int rad[3];
	size_t stride[3];
	size_t base;
};

static int kmap_len(const struct im2_kmap *km) { return km->rad[0] * km->rad[1] * km->rad[2]; }

/* Merges adjacent digits that form one uniform stride (e.g. (u, v) with
 * stride (kW, 1) is one digit of kH*kW), so packing copies longer runs. */
static void kmap_coalesce(struct im2_kmap *km)
{
	int rad[3], n = 0;
	size_t st[3];
	for (int i = 0; i < 3; i++)
		if (km->rad[i] != 1) {
			rad[n] = km->rad[i];
			st[n++] = km->stride[i];
		}
	for (int i = n - 1; i > 0; i--)
		if (st[i - 1] == (size_t)rad[i] * st[i]) {
			rad[i - 1] *= rad[i];
			st[i - 1] = st[i];
			for (int j = i; j + 1 < n; j++) {
				rad[j] = rad[j + 1];
				st[j] = st[j + 1];
			}
			n--;
		}
	for (int i = 0; i < 3; i++) {
		const int j = i - (3 - n); /* digits sit at the inner end */
		km->rad[i] = j >= 0 ? rad[j] : 1;
		km->stride[i] = j >= 0 ? st[j] : 0;
	}
	if (n == 0)
		km->stride[2] = 1;
}

/* Packs A (rows x K), A(i, k) = src[i*rsa + koff(k)], into the layout of
 * rt_sgemm_pack_a: one call per MR-row panel and per run of the innermost
 * digit. A panel's columns k0 .. k0+n-1 are the contiguous [n][MR] stretch
 * at k0*MR of the panel, which is what rt_sgemm_pack_a writes for an
 * (at most MR)-row matrix of n columns, zero rows included. */
static void pack_a_kmap(int isa, int rows, const float *src, /* row i at src + i*rsa */
                        size_t rsa, struct im2_kmap km,
                        float *out) /* out: [ceil(rows/MR)][K][MR] */
{
	const int mr = RT_SGEMM_MR(isa), K = kmap_len(&km);
	kmap_coalesce(&km);
	for (int i0 = 0; i0 < rows; i0 += mr) {
		const int m = rows - i0 < mr ? rows - i0 : mr;
		float *panel = out + (size_t)i0 * K; /* [K][mr] */
		int k = 0;
		for (int d0 = 0; d0 < km.rad[0]; d0++)
			for (int d1 = 0; d1 < km.rad[1]; d1++) {
				const size_t off = km.base + d0 * km.stride[0] + d1 * km.stride[1];
				rt_sgemm_pack_a(isa, m, km.rad[2], src + (size_t)i0 * rsa + off, rsa,
				                km.stride[2], panel + (size_t)k * mr);
				k += km.rad[2];
			}
	}
}

/* Writes B = A^T as row-major [K][rows]: out[k*rows + i] = src[i*rsa + koff(k)]. */
static void pack_bt_kmap(int rows, const float *src, size_t rsa, const struct im2_kmap *km,
                         float *out) /* out: [K][rows] */
{
	int k = 0;
	for (int d0 = 0; d0 < km->rad[0]; d0++)
		for (int d1 = 0; d1 < km->rad[1]; d1++)
			for (int d2 = 0; d2 < km->rad[2]; d2++, k++) {
				const size_t off = km->base + d0 * km->stride[0] + d1 * km->stride[1] +
				                   d2 * km->stride[2];
				for (int i = 0; i < rows; i++)
					out[(size_t)k * rows + i] = src[(size_t)i * rsa + off];
			}
}

/* Floats of sgemm workspace for GEMMs up to these sizes. */
static size_t sgemm_ws_floats(int isa, int M, int N, int K)
{
	return (rt_sgemm_workspace_size(isa, M, N, K) + sizeof(float) - 1) / sizeof(float);
}

static size_t round16(size_t n) { return (n + 15) / 16 * 16; }

static int group_ok(const struct rt_conv2d *p)
{
	return p->group > 0 && p->C % p->group == 0 && p->M % p->group == 0 && p->oH > 0 &&
	       p->oW > 0;
}

/* Output rows per band of the scan rows: whole output rows, at most about
 * one sgemm NC block of pixels, the bands balanced so that the last one is
 * not a thin remainder (same formula in conv_im2_col.c, conv_im2_row.c). */
static int band_rows(const struct rt_conv2d *p)
{
	const int nc = RT_SGEMM_NC(p->isa);
	const int most = p->oW >= nc ? 1 : nc / p->oW, nbands = (p->oH + most - 1) / most;
	return (p->oH + nbands - 1) / nbands;
}

/* Shared by im2col and im2row: rows of the patch matrix per group (Kg), the
 * number of kernel-row slices, the pixels per patch block. */
static void im2_geometry(const struct rt_conv2d *p, int variant, int *Kg, int *slices, int *nb)
{
	const int acc = IM2_MODE(variant) == IM2_ACC;
	*slices = acc ? p->kH : 1;
	*Kg = p->C / p->group * (acc ? 1 : p->kH) * p->kW;
	*nb = (IM2_MODE(variant) == IM2_SCAN ? band_rows(p) : p->oH) * p->oW;
}

/* Column map of weight block (slice s) for im2col (c', u, v) or im2row
 * (u, v, c') order. */
static struct im2_kmap im2_kmap_of(const struct rt_conv2d *p, int variant, int row_order, int s)
{
	const int acc = IM2_MODE(variant) == IM2_ACC, cg = p->C / p->group;
	const int nu = acc ? 1 : p->kH;
	const size_t kk = (size_t)p->kH * p->kW;
	struct im2_kmap km;
	if (row_order) {
		km.rad[0] = nu, km.rad[1] = p->kW, km.rad[2] = cg;
		km.stride[0] = p->kW, km.stride[1] = 1, km.stride[2] = kk;
	} else {
		km.rad[0] = cg, km.rad[1] = nu, km.rad[2] = p->kW;
		km.stride[0] = kk, km.stride[1] = p->kW, km.stride[2] = 1;
	}
	km.base = (size_t)(acc ? s : 0) * p->kW;
	return km;
}

static size_t im2_packed(const struct rt_conv2d *p, int variant)
{
	int Kg, slices, nb;
	const int mg = p->M / p->group;
	im2_geometry(p, variant, &Kg, &slices, &nb);
	const size_t block = variant & IM2_IK ? (size_t)Kg * mg : rt_sgemm_pack_a_size(p->isa, mg, Kg);
	return block * p->group * slices;
}

static void im2_pack(const struct rt_conv2d *p, int variant, int row_order, const float *w,
                     float *out)
{
	int Kg, slices, nb;
	const int mg = p->M / p->group, cg = p->C / p->group;
	const size_t rsa = (size_t)cg * p->kH * p->kW;
	im2_geometry(p, variant, &Kg, &slices, &nb);
	for (int g = 0; g < p->group; g++)
		for (int s = 0; s < slices; s++) {
			const struct im2_kmap km = im2_kmap_of(p, variant, row_order, s);
			const float *wg = w + (size_t)g * mg * rsa; /* [mg][cg][kH][kW] */
			if (variant & IM2_IK) {
				pack_bt_kmap(mg, wg, rsa, &km, out);
				out += (size_t)Kg * mg;
			} else {
				pack_a_kmap(p->isa, mg, wg, rsa, km, out);
				out += rt_sgemm_pack_a_size(p->isa, mg, Kg);
			}
		}
}

static size_t im2_ws(const struct rt_conv2d *p, int variant)
{
	int Kg, slices, nb;
	const int mg = p->M / p->group;
	im2_geometry(p, variant, &Kg, &slices, &nb);
	const size_t patch = round16((size_t)Kg * p->group * nb);
	if (variant & IM2_IK)
		return patch + sgemm_ws_floats(p->isa, nb, mg, Kg);
	return patch + sgemm_ws_floats(p->isa, mg, variant & IM2_HCW_OUT ? p->oW : nb, Kg);
}

/* ---- im2col ------------------------------------------------------------- */

int prep_im2_col_applies(const struct rt_conv2d *p, int variant)
{
	(void)variant;
	return group_ok(p);
}

size_t prep_im2_col_ws(const struct rt_conv2d *p, int variant) { return im2_ws(p, variant); }

size_t prep_im2_col_packed(const struct rt_conv2d *p, int variant)
{
	return im2_packed(p, variant);
}

void prep_im2_col_pack(const struct rt_conv2d *p, int variant, const float *w, float *out)
{
	im2_pack(p, variant, 0, w, out);
}

/* ---- im2row ------------------------------------------------------------- */

int prep_im2_row_applies(const struct rt_conv2d *p, int variant)
{
	(void)variant;
	return group_ok(p);
}

size_t prep_im2_row_ws(const struct rt_conv2d *p, int variant) { return im2_ws(p, variant); }

size_t prep_im2_row_packed(const struct rt_conv2d *p, int variant)
{
	return im2_packed(p, variant);
}

void prep_im2_row_pack(const struct rt_conv2d *p, int variant, const float *w, float *out)
{
	im2_pack(p, variant, 1, w, out);
}

/* ---- 1x1 ---------------------------------------------------------------- */

/* Whether RUN must first gather the strided pixels into the workspace. */
static int needs_subsample(const struct rt_conv2d *p)
{
	return !(p->sH == 1 && p->sW == 1 && p->oH == p->H && p->oW == p->W);
}

int prep_im2_1x1_applies(const struct rt_conv2d *p, int variant)
{
	(void)variant;
	/* every output pixel reads an input pixel: no padding on any side */
	return group_ok(p) && p->kH == 1 && p->kW == 1 && p->padT == 0 && p->padL == 0 &&
	       (p->oH - 1) * p->sH < p->H && (p->oW - 1) * p->sW < p->W;
}

size_t prep_im2_1x1_ws(const struct rt_conv2d *p, int variant)
{
	const int mg = p->M / p->group, cg = p->C / p->group;
	const int npix = variant == IM2_1X1_HCW ? p->oW : p->oH * p->oW;
	size_t sub = variant != IM2_1X1_HCW && needs_subsample(p) ?
	                     round16((size_t)p->C * p->oH * p->oW) : 0;
	if (variant & IM2_IK)
		return sub + sgemm_ws_floats(p->isa, npix, mg, cg);
	return sub + sgemm_ws_floats(p->isa, mg, npix, cg);
}

size_t prep_im2_1x1_packed(const struct rt_conv2d *p, int variant)
{
	const int mg = p->M / p->group, cg = p->C / p->group;
	const size_t block = variant & IM2_IK ? (size_t)cg * mg : rt_sgemm_pack_a_size(p->isa, mg, cg);
	return block * p->group;
}

void prep_im2_1x1_pack(const struct rt_conv2d *p, int variant, const float *w, float *out)
{
	const int mg = p->M / p->group, cg = p->C / p->group;
	const struct im2_kmap km = {{1, 1, cg}, {0, 0, 1}, 0};
	for (int g = 0; g < p->group; g++) {
		const float *wg = w + (size_t)g * mg * cg; /* [mg][cg] */
		if (variant & IM2_IK) {
			pack_bt_kmap(mg, wg, cg, &km, out);
			out += (size_t)cg * mg;
		} else {
			pack_a_kmap(p->isa, mg, wg, cg, km, out);
			out += rt_sgemm_pack_a_size(p->isa, mg, cg);
		}
	}
}
