/* prep_fft.c - compile-time side of the fft family (conv_fft_tiles.c): the
 * predicate, workspace size and the weight spectra.
 *
 * The plan (transform sizes, tiles, blocking) is computed exactly as the
 * unit computes it; the functions below mirror rt_fft_nice, rt_fft_axis and
 * rt_fft_plan_make there (keep them in step). */
#include <assert.h>
#include <math.h>
#include <stdlib.h>

#include "runtime/prep.h"
#include "runtime/sgemm.h"

struct fft_plan {
	int Nh, Nw, nh, nw, Kw, kw2, F, toh, tow, th, tw, tb;
	size_t buf;
};

static int fft_nice(int x, int even)
{
	for (int n = x < 1 ? 1 : x;; n++) {
		int r = n;
		if (even && n % 2)
			continue;
		while (r % 2 == 0)
			r /= 2;
		while (r % 3 == 0)
			r /= 3;
		while (r % 5 == 0)
			r /= 5;
		if (r == 1)
			return n;
	}
}

static void fft_axis(int o, int k, int s, int S, int even, int *n, int *n2, int *to)
{
	const int whole = ((o - 1) * s + k + s - 1) / s;
	int need = whole;
	if (S > 0) {
		need = (S + s - 1) / s;
		if (need < (k + 4 * s - 1) / s)
			need = (k + 4 * s - 1) / s;
		if (need > whole)
			need = whole;
	}
	*n2 = fft_nice(need, even);
	*n = s * *n2;
	*to = (*n - k) / s + 1;
	if (*to > o)
		*to = o;
}

static void fft_plan_make(const struct rt_conv2d *p, int variant, struct fft_plan *f)
{
	const size_t cg = (size_t)(p->C / p->group), mg = (size_t)(p->M / p->group);
	fft_axis(p->oH, p->kH, p->sH, variant, 0, &f->Nh, &f->nh, &f->toh);
	fft_axis(p->oW, p->kW, p->sW, variant, 1, &f->Nw, &f->nw, &f->tow);
	f->Kw = f->Nw / 2 + 1;
	f->kw2 = f->nw / 2 + 1;
	f->F = f->Nh * f->Kw;
	f->th = (p->oH + f->toh - 1) / f->toh;
	f->tw = (p->oW + f->tow - 1) / f->tow;
	size_t b = (size_t)f->Nw * f->Nh * cg;
	if (b < 2 * (size_t)f->F * cg)
		b = 2 * (size_t)f->F * cg;
	if (b < 2 * (size_t)f->nh * f->Kw * mg)
		b = 2 * (size_t)f->nh * f->Kw * mg;
	if (b < 2 * (size_t)f->kw2 * f->toh * mg)
		b = 2 * (size_t)f->kw2 * f->toh * mg;
	f->buf = b;
	f->tb = 1;
	if (variant > 0) {
		const size_t per_tile = 2 * b + 2 * (size_t)f->F * mg;
		const size_t tiles = (size_t)f->th * f->tw;
		size_t tb = (size_t)2097152 / per_tile;
		if (tb < 1)
			tb = 1;
		if (tb > tiles)
			tb = tiles;
		f->tb = (int)tb;
	}
}

/* Each computed in floating point so that absurd layers cannot overflow. */
static double fft_ws_d(const struct rt_conv2d *p, int variant, const struct fft_plan *f)
{
	const double mg = p->M / p->group, cg = p->C / p->group, tb = f->tb;
	double gemm = 0;
	if (variant > 0)
		gemm = (double)rt_sgemm_workspace_size(p->isa, (int)mg, f->tb, (int)cg) / sizeof(float) + 1;
	return 2 * tb * (double)f->buf + 2 * (double)f->F * mg * tb +
	       2.0 * (f->Nh + f->Nw + f->nh + f->nw) + gemm;
}

static double fft_packed_d(const struct rt_conv2d *p, int variant, const struct fft_plan *f)
{
	const int mg = p->M / p->group, cg = p->C / p->group;
	if (variant == 0)
		return (double)p->group * f->F * 2 * mg * cg;
	return (double)p->group * f->F * 3 * (double)rt_sgemm_pack_a_size(p->isa, mg, cg);
}

int prep_fft_applies(const struct rt_conv2d *p, int variant)
{
	const double lim = 33554432.0; /* 2^25 floats */
	struct fft_plan f;
	if (!prep_applies_any(p, variant) || !prep_is_dilation1(p) || p->oH <= 0 || p->oW <= 0 ||
	    p->sH < 1 || p->sW < 1)
		return 0;
	/* a 1x1 kernel is a pointwise product already: the transforms only add
	 * work, and the spectra would be H*W times the weights */
	if (p->kH * p->kW == 1)
		return 0;
	/* sizes first (the plan's products could overflow int otherwise) */
	if ((double)((p->oH - 1) * p->sH + p->kH) * ((p->oW - 1) * p->sW + p->kW) > lim)
		return 0;
	fft_plan_make(p, variant, &f);
	/* a tiled variant whose one tile is the whole image is the whole-image
	 * variant with a worse product (a GEMM of one column) */
	if (variant > 0 && f.th * f.tw == 1)
		return 0;
	return fft_ws_d(p, variant, &f) <= lim && fft_packed_d(p, variant, &f) <= lim;
}

size_t prep_fft_ws(const struct rt_conv2d *p, int variant)
{
	struct fft_plan f;
	fft_plan_make(p, variant, &f);
	return (size_t)fft_ws_d(p, variant, &f);
}

size_t prep_fft_packed(const struct rt_conv2d *p, int variant)
{
	struct fft_plan f;
	fft_plan_make(p, variant, &f);
	return (size_t)fft_packed_d(p, variant, &f);
}

void prep_fft_pack(const struct rt_conv2d *p, int variant,
                   const float *w, /* [M, C/group, kH, kW] */
                   float *out)     /* out: see prep_fft.h */
{
	const double two_pi = 6.283185307179586476925286766559;
	struct fft_plan f;
	fft_plan_make(p, variant, &f);
	const int mg = p->M / p->group, cg = p->C / p->group, kH = p->kH, kW = p->kW;
	const int Nh = f.Nh, Nw = f.Nw, Kw = f.Kw, F = f.F;
	const double scale = 1.0 / ((double)Nh * Nw);
	double *ch = malloc(2 * (size_t)Nh * sizeof *ch);         /* cos, sin of 2 pi k / Nh */
	double *cw = malloc(2 * (size_t)Nw * sizeof *cw);         /* cos, sin of 2 pi k / Nw */
	double *a = malloc(2 * (size_t)kH * Kw * sizeof *a);      /* row DFTs [kH][Kw][2] */
	float *spec = malloc(2 * (size_t)F * mg * cg * sizeof *spec); /* one group: [F][2][mg][cg] */
	assert(ch && cw && a && spec);
	for (int k = 0; k < Nh; k++) {
		ch[2 * k] = cos(two_pi * k / Nh);
		ch[2 * k + 1] = sin(two_pi * k / Nh);
	}
	for (int k = 0; k < Nw; k++) {
		cw[2 * k] = cos(two_pi * k / Nw);
		cw[2 * k + 1] = sin(two_pi * k / Nw);
	}
	const size_t panel = rt_sgemm_pack_a_size(p->isa, mg, cg);
	for (int g = 0; g < p->group; g++) {
		for (int m = 0; m < mg; m++)
			for (int c = 0; c < cg; c++) {
				/* [kH][kW] kernel of (m, c): its DFT, e^{-2 pi i (kh u / Nh + kw v / Nw)},
				 * first along W for every kernel row, then along H */
				const float *kr = w + (((size_t)g * mg + m) * cg + c) * kH * kW;
				for (int u = 0; u < kH; u++)
					for (int kw = 0; kw < Kw; kw++) {
						double sr = 0, si = 0;
						for (int v = 0; v < kW; v++) {
							const int e = (int)((long long)kw * v % Nw);
							sr += kr[u * kW + v] * cw[2 * e];
							si -= kr[u * kW + v] * cw[2 * e + 1];
						}
						a[2 * (u * Kw + kw)] = sr;
						a[2 * (u * Kw + kw) + 1] = si;
					}
				for (int kh = 0; kh < Nh; kh++)
					for (int kw = 0; kw < Kw; kw++) {
						double sr = 0, si = 0;
						for (int u = 0; u < kH; u++) {
							const int e = (int)((long long)kh * u % Nh);
							const double c0 = ch[2 * e], s0 = -ch[2 * e + 1];
							const double ar = a[2 * (u * Kw + kw)], ai = a[2 * (u * Kw + kw) + 1];
							sr += ar * c0 - ai * s0;
							si += ar * s0 + ai * c0;
						}
						const size_t fq = (size_t)kh * Kw + kw;
						spec[(fq * 2 * mg + m) * cg + c] = (float)(sr * scale);
						spec[((fq * 2 + 1) * mg + m) * cg + c] = (float)(si * scale);
					}
			}
		if (variant == 0) {
			/* transposed per frequency: [F][2][cg][mg] */
			float *o = out + (size_t)g * F * 2 * mg * cg;
			for (size_t fr = 0; fr < (size_t)F * 2; fr++)
				for (int m = 0; m < mg; m++)
					for (int c = 0; c < cg; c++)
						o[(fr * cg + c) * mg + m] = spec[(fr * mg + m) * cg + c];
			continue;
		}
		for (int fq = 0; fq < F; fq++) {
			float *re = spec + (size_t)fq * 2 * mg * cg, *im = re + (size_t)mg * cg; /* [mg][cg] */
			float *o = out + ((size_t)g * F + fq) * 3 * panel;
			rt_sgemm_pack_a(p->isa, mg, cg, re, (size_t)cg, 1, o);
			rt_sgemm_pack_a(p->isa, mg, cg, im, (size_t)cg, 1, o + panel);
			for (size_t i = 0; i < (size_t)mg * cg; i++)
				im[i] = -im[i];
			rt_sgemm_pack_a(p->isa, mg, cg, im, (size_t)cg, 1, o + 2 * panel);
		}
	}
	free(ch);
	free(cw);
	free(a);
	free(spec);
}
