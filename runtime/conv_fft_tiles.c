/* conv_fft_tiles.c - convolution through the 2-D real FFT (research brief
 * a.2.7), written here from scratch: no FFT library.
 *
 * The textbook form: with X^_c = FFT2(x_c) and W^_{m,c} = FFT2(w_{m,c}), both
 * zero padded to Nh x Nw, the correlation (ONNX Conv) is
 *   y_m = IFFT2( sum over c of X^_c . conj(W^_{m,c}) )
 * and no circular wrap-around reaches the valid outputs when Nh >= (oH - 1)
 * sH + kH (same along W). A stride keeps every s-th output: subsampling
 * in space is aliasing in frequency, so the product spectrum is folded to
 * Nh/sH x Nw/sW (sum of the sH sW aliases) and the inverse FFT is that much
 * smaller. Variants:
 *   0        whole image: one transform per input plane, Nh x Nw covering the
 *            whole (padded) input; per frequency the sum over channels is a
 *            matrix-vector product with the weight spectra [M][C];
 *   S > 0    overlap-save tiles: the output is cut into tiles of toh x tow,
 *            each read through an input patch of Nh x Nw ~ S x S; for a block
 *            of tiles, per frequency, Y^ (M x tiles) = conj(W^) (M x C) .
 *            X^ (C x tiles), four real GEMMs (rt_sgemm with weights packed at
 *            compile time); memory is bounded by the tile, and every weight
 *            spectrum is read once per block, not once per tile.
 * PACK (prep_fft.c) computes the weight spectra in double, scaled by
 * 1/(Nh Nw) so every transform here is unnormalised.
 *
 * The FFTs: a complex Stockham autosort FFT (decimation in frequency, radix
 * 4, 2, 3, 5 and, for other primes, the r-point DFT) over many sequences at
 * once, element e of sequence b at [e][b], so every inner loop runs along
 * the batch, contiguously. A real FFT of even size n is the complex FFT of
 * size n/2 of the even and odd samples as real and imaginary parts, plus a
 * split step (and its inverse). A plane is transformed along W first (real),
 * then along H (complex) on the Nw/2 + 1 half-spectrum columns; the inverse
 * runs H, then W. Buffers are planar: real parts, then imaginary parts.
 *
 * Any kernel, stride and padding; dilation 1; any group (one pass per
 * group); CHW in and out. Workspace and packed weights are bounded by the
 * predicate (the weight spectra of big layers do not fit). */
#include "runtime/rt_types.h"
#include "runtime/sgemm.h"

#if RT_SGEMM_X86_ && RT_SGEMM_HAVE_AVX512
#include <immintrin.h>
#endif

/* Smallest n >= x whose only prime factors are 2, 3 and 5 (even if asked). */
static inline int rt_fft_nice(int x, int even)
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

/* Sizes along one axis of output size o, kernel k, stride s, for tile S (0:
 * the whole image); prep_fft.c computes the same (keep in step). The folded
 * size n2 is nice (and even along W, for the real inverse); the forward size
 * n = s n2; a tile gives to = (n - k)/s + 1 outputs. A tile is at least S
 * wide and yields at least 4 outputs, but never more than the whole
 * image needs. */
static inline void rt_fft_axis(int o, int k, int s, int S, int even, int *n, int *n2, int *to)
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
	*n2 = rt_fft_nice(need, even);
	*n = s * *n2;
	*to = (*n - k) / s + 1;
	if (*to > o)
		*to = o;
}

/* The layer's transform sizes and blocking. */
struct rt_fft_plan {
	int Nh, Nw;   /* forward sizes: complex along H, real along W */
	int nh, nw;   /* inverse sizes, the spectrum folded by the strides: Nh/sH, Nw/sW */
	int Kw, kw2;  /* half-spectrum columns Nw/2 + 1 and nw/2 + 1 */
	int F;        /* frequencies kept, Nh * Kw */
	int toh, tow; /* outputs per tile */
	int th, tw;   /* tiles per output column and row */
	int tb;       /* tiles per block */
	size_t buf;   /* floats of each of the two work buffers, per tile */
};

/* The plan for a layer and variant (tile size; 0: whole image); prep_fft.c
 * computes the same (keep in step). */
static inline void rt_fft_plan_make(const struct rt_conv2d *p, int variant, struct rt_fft_plan *f)
{
	const size_t cg = (size_t)(p->C / p->group), mg = (size_t)(p->M / p->group);
	rt_fft_axis(p->oH, p->kH, p->sH, variant, 0, &f->Nh, &f->nh, &f->toh);
	rt_fft_axis(p->oW, p->kW, p->sW, variant, 1, &f->Nw, &f->nw, &f->tow);
	f->Kw = f->Nw / 2 + 1;
	f->kw2 = f->nw / 2 + 1;
	f->F = f->Nh * f->Kw;
	f->th = (p->oH + f->toh - 1) / f->toh;
	f->tw = (p->oW + f->tow - 1) / f->tow;
	/* the largest stage: input patches, their spectra, the folded product
	 * spectra, the rows being transformed back */
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
		/* two buffers and the product spectra per tile, about 8 MiB a block */
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

/* The inner loops of the FFT and of the frequency-domain products run
 * along a batch of B sequences; these are their bodies, in C and, for
 * AVX-512, 16 lanes at a time with a masked tail. */

/* Radix-4 butterfly: a_j at a + j*ijs, y_u at o + u*ous, [B] each (re and im
 * planes); s = sign of the transform. */
static inline void rt_fft_r4_c(int B, float s, const float *ar, const float *ai, size_t ijs,
                               float *or_, float *oi, size_t ous)
{
	for (int b = 0; b < B; b++) {
		const float a0r = ar[b], a0i = ai[b], a1r = ar[ijs + b], a1i = ai[ijs + b];
		const float a2r = ar[2 * ijs + b], a2i = ai[2 * ijs + b];
		const float a3r = ar[3 * ijs + b], a3i = ai[3 * ijs + b];
		const float t0r = a0r + a2r, t0i = a0i + a2i, t1r = a0r - a2r, t1i = a0i - a2i;
		const float t2r = a1r + a3r, t2i = a1i + a3i;
		const float t3r = -s * (a1i - a3i), t3i = s * (a1r - a3r); /* (a1 - a3) times s i */
		or_[b] = t0r + t2r;
		oi[b] = t0i + t2i;
		or_[ous + b] = t1r + t3r;
		oi[ous + b] = t1i + t3i;
		or_[2 * ous + b] = t0r - t2r;
		oi[2 * ous + b] = t0i - t2i;
		or_[3 * ous + b] = t1r - t3r;
		oi[3 * ous + b] = t1i - t3i;
	}
}

/* y (+)= a (c + i sn), [B] complex: acc 0 stores, 1 adds. */
static inline void rt_fft_cmul_c(int B, int acc, float c, float sn, const float *ar, const float *ai,
                                 float *yr, float *yi)
{
	for (int b = 0; b < B; b++) {
		const float vr = c * ar[b] - sn * ai[b], vi = c * ai[b] + sn * ar[b];
		yr[b] = acc ? yr[b] + vr : vr;
		yi[b] = acc ? yi[b] + vi : vi;
	}
}

#if RT_SGEMM_X86_ && RT_SGEMM_HAVE_AVX512

__attribute__((target("avx512f"))) static inline void
rt_fft_r4_avx512(int B, float s, const float *ar, const float *ai, size_t ijs, float *or_, float *oi,
                 size_t ous)
{
	const __m512 sv = _mm512_set1_ps(s);
	for (int b = 0; b < B; b += 16) {
		const __mmask16 k = (__mmask16)(B - b >= 16 ? 0xFFFF : (1u << (B - b)) - 1u);
		const __m512 a0r = _mm512_maskz_loadu_ps(k, ar + b), a0i = _mm512_maskz_loadu_ps(k, ai + b);
		const __m512 a1r = _mm512_maskz_loadu_ps(k, ar + ijs + b);
		const __m512 a1i = _mm512_maskz_loadu_ps(k, ai + ijs + b);
		const __m512 a2r = _mm512_maskz_loadu_ps(k, ar + 2 * ijs + b);
		const __m512 a2i = _mm512_maskz_loadu_ps(k, ai + 2 * ijs + b);
		const __m512 a3r = _mm512_maskz_loadu_ps(k, ar + 3 * ijs + b);
		const __m512 a3i = _mm512_maskz_loadu_ps(k, ai + 3 * ijs + b);
		const __m512 t0r = _mm512_add_ps(a0r, a2r), t0i = _mm512_add_ps(a0i, a2i);
		const __m512 t1r = _mm512_sub_ps(a0r, a2r), t1i = _mm512_sub_ps(a0i, a2i);
		const __m512 t2r = _mm512_add_ps(a1r, a3r), t2i = _mm512_add_ps(a1i, a3i);
		const __m512 t3r = _mm512_mul_ps(sv, _mm512_sub_ps(a3i, a1i));
		const __m512 t3i = _mm512_mul_ps(sv, _mm512_sub_ps(a1r, a3r));
		_mm512_mask_storeu_ps(or_ + b, k, _mm512_add_ps(t0r, t2r));
		_mm512_mask_storeu_ps(oi + b, k, _mm512_add_ps(t0i, t2i));
		_mm512_mask_storeu_ps(or_ + ous + b, k, _mm512_add_ps(t1r, t3r));
		_mm512_mask_storeu_ps(oi + ous + b, k, _mm512_add_ps(t1i, t3i));
		_mm512_mask_storeu_ps(or_ + 2 * ous + b, k, _mm512_sub_ps(t0r, t2r));
		_mm512_mask_storeu_ps(oi + 2 * ous + b, k, _mm512_sub_ps(t0i, t2i));
		_mm512_mask_storeu_ps(or_ + 3 * ous + b, k, _mm512_sub_ps(t1r, t3r));
		_mm512_mask_storeu_ps(oi + 3 * ous + b, k, _mm512_sub_ps(t1i, t3i));
	}
}

__attribute__((target("avx512f"))) static inline void
rt_fft_cmul_avx512(int B, int acc, float c, float sn, const float *ar, const float *ai, float *yr,
                   float *yi)
{
	const __m512 cv = _mm512_set1_ps(c), sv = _mm512_set1_ps(sn);
	for (int b = 0; b < B; b += 16) {
		const __mmask16 k = (__mmask16)(B - b >= 16 ? 0xFFFF : (1u << (B - b)) - 1u);
		const __m512 xr = _mm512_maskz_loadu_ps(k, ar + b), xi = _mm512_maskz_loadu_ps(k, ai + b);
		__m512 vr = _mm512_fnmadd_ps(sv, xi, _mm512_mul_ps(cv, xr));
		__m512 vi = _mm512_fmadd_ps(sv, xr, _mm512_mul_ps(cv, xi));
		if (acc) {
			vr = _mm512_add_ps(vr, _mm512_maskz_loadu_ps(k, yr + b));
			vi = _mm512_add_ps(vi, _mm512_maskz_loadu_ps(k, yi + b));
		}
		_mm512_mask_storeu_ps(yr + b, k, vr);
		_mm512_mask_storeu_ps(yi + b, k, vi);
	}
}

/* The whole-image product of one frequency: y (mg) = conj(W) (mg x cg) x
 * (cg), W stored column by column ([cg][mg] re, then im), 16 outputs at a
 * time. */
__attribute__((target("avx512f"))) static inline void
rt_fft_mv_avx512(int mg, int cg, const float *wr, const float *wi, const float *xr, const float *xi,
                 float *yr, float *yi)
{
	for (int m = 0; m < mg; m += 16) {
		const __mmask16 k = (__mmask16)(mg - m >= 16 ? 0xFFFF : (1u << (mg - m)) - 1u);
		__m512 sr = _mm512_setzero_ps(), si = _mm512_setzero_ps();
		for (int c = 0; c < cg; c++) {
			const __m512 a = _mm512_maskz_loadu_ps(k, wr + (size_t)c * mg + m);
			const __m512 bq = _mm512_maskz_loadu_ps(k, wi + (size_t)c * mg + m);
			const __m512 xrc = _mm512_set1_ps(xr[c]), xic = _mm512_set1_ps(xi[c]);
			sr = _mm512_fmadd_ps(a, xrc, _mm512_fmadd_ps(bq, xic, sr));
			si = _mm512_fmadd_ps(a, xic, _mm512_fnmadd_ps(bq, xrc, si));
		}
		_mm512_mask_storeu_ps(yr + m, k, sr);
		_mm512_mask_storeu_ps(yi + m, k, si);
	}
}
#endif

/* Batched complex DFT of size n, unnormalised, in place: element e of
 * sequence b is (re[e*B + b], im[e*B + b]); sign -1 forward (kernel
 * e^{-2 pi i e k / n}), +1 inverse. Stockham autosort: stage after stage the
 * length-len subsequences are split by a radix r butterfly into r of length
 * len/r (decimation in frequency), ping-ponging between the data and the
 * work arrays wr, wi (n*B floats each). tw: cos and sin of 2 pi k / (n ts),
 * k < n ts (a table for a multiple of n serves). vec: use AVX-512. */
static inline void rt_fft_c(int n, int B, int sign, float *re, float *im, float *wr, float *wi,
                            const float *tw, int ts, int vec)
{
	float *xr = re, *xi = im, *yr = wr, *yi = wi;
	const int N = n * ts;
	const float sg = (float)sign;
	(void)vec;
	for (int len = n, s = 1; len > 1;) {
		int r = len % 4 == 0 ? 4 : len % 2 == 0 ? 2 : len % 3 == 0 ? 3 : len % 5 == 0 ? 5 : 7;
		while (len % r)
			r++; /* the smallest prime factor */
		const int m = len / r;
		const int tstep = N / len; /* table step of the stage's twiddle e^{2 pi i / len} */
		const size_t ijs = (size_t)s * m * B, ous = (size_t)s * B;
		for (int p = 0; p < m; p++)
			for (int q = 0; q < s; q++) {
				/* inputs a_j at in + j*ijs, outputs y_u at out + u*ous, [B] each */
				const float *ar = xr + (size_t)(q + s * p) * B, *ai = xi + (size_t)(q + s * p) * B;
				float *or_ = yr + (size_t)(q + s * r * p) * B, *oi = yi + (size_t)(q + s * r * p) * B;
				if (r == 4) {
#if RT_SGEMM_X86_ && RT_SGEMM_HAVE_AVX512
					if (vec)
						rt_fft_r4_avx512(B, sg, ar, ai, ijs, or_, oi, ous);
					else
#endif
						rt_fft_r4_c(B, sg, ar, ai, ijs, or_, oi, ous);
				} else {
					/* the r-point DFT: y_u = sum over j of a_j e^{sign 2 pi i u j / r} */
					for (int u = 0; u < r; u++)
						for (int j = 0; j < r; j++) {
							const int k = u * j % r * (N / r);
#if RT_SGEMM_X86_ && RT_SGEMM_HAVE_AVX512
							if (vec) {
								rt_fft_cmul_avx512(B, j > 0, tw[2 * k], sg * tw[2 * k + 1], ar + j * ijs,
								                   ai + j * ijs, or_ + u * ous, oi + u * ous);
								continue;
							}
#endif
							rt_fft_cmul_c(B, j > 0, tw[2 * k], sg * tw[2 * k + 1], ar + j * ijs, ai + j * ijs,
							              or_ + u * ous, oi + u * ous);
						}
				}
				/* twiddles: y_u times e^{sign 2 pi i p u / len} */
				if (p > 0)
					for (int u = 1; u < r; u++) {
						const int k = (int)((long long)p * u * tstep % N);
#if RT_SGEMM_X86_ && RT_SGEMM_HAVE_AVX512
						if (vec) {
							rt_fft_cmul_avx512(B, 0, tw[2 * k], sg * tw[2 * k + 1], or_ + u * ous,
							                   oi + u * ous, or_ + u * ous, oi + u * ous);
							continue;
						}
#endif
						rt_fft_cmul_c(B, 0, tw[2 * k], sg * tw[2 * k + 1], or_ + u * ous, oi + u * ous,
						              or_ + u * ous, oi + u * ous);
					}
			}
		float *t = xr;
		xr = yr;
		yr = t;
		t = xi;
		xi = yi;
		yi = t;
		len = m;
		s *= r;
	}
	if (xr != re)
		for (size_t e = 0; e < (size_t)n * B; e++) {
			re[e] = xr[e];
			im[e] = xi[e];
		}
}

/* cos and sin of 2 pi k / n for k < n: tw [n][2]. */
static inline void rt_fft_table(int n, float *tw)
{
	const double two_pi = 6.283185307179586476925286766559;
	for (int k = 0; k < n; k++) {
		tw[2 * k] = (float)cos(two_pi * k / n);
		tw[2 * k + 1] = (float)sin(two_pi * k / n);
	}
}

/* Workspace layout (floats), from the plan. */
struct rt_fft_ws {
	float *a, *b;        /* work buffers, tb * buf floats each */
	float *y;            /* product spectra: re [F][M/group][tiles], then im */
	float *th, *tw;      /* tables: [Nh][2], [Nw][2] */
	float *th2, *tw2;    /* tables: [nh][2], [nw][2] */
	float *gemm;         /* rt_sgemm's workspace */
};

static inline void rt_fft_ws_split(const struct rt_fft_plan *f, size_t mg, float *ws, struct rt_fft_ws *w)
{
	const size_t tb = (size_t)f->tb;
	w->a = ws;
	w->b = w->a + tb * f->buf;
	w->y = w->b + tb * f->buf;
	w->th = w->y + 2 * (size_t)f->F * mg * tb;
	w->tw = w->th + 2 * (size_t)f->Nh;
	w->th2 = w->tw + 2 * (size_t)f->Nw;
	w->tw2 = w->th2 + 2 * (size_t)f->nh;
	w->gemm = w->tw2 + 2 * (size_t)f->nw;
}

RT_FN void rt_conv_fft(const struct rt_conv2d *p, int variant,
                       const float *x, /* [N][C][H][W] */
                       const float *w, /* weight spectra, prep_fft.c: variant 0 [group][F][2][C/group][M/group],
                                          else [group][F][3][packed M/group x C/group] (re, im, -im) */
                       const float *bias, /* [M] or NULL */
                       float *y,       /* out: [N][M][oH][oW] */
                       float *ws)      /* the buffers of struct rt_fft_ws */
{
	struct rt_fft_plan f;
	struct rt_fft_ws k;
	rt_fft_plan_make(p, variant, &f);
	const int cg = p->C / p->group, mg = p->M / p->group;
	rt_fft_ws_split(&f, (size_t)mg, ws, &k);
	rt_fft_table(f.Nh, k.th);
	rt_fft_table(f.Nw, k.tw);
	rt_fft_table(f.nh, k.th2);
	rt_fft_table(f.nw, k.tw2);
	const int Nh = f.Nh, Nw = f.Nw, hw = Nw / 2, Kw = f.Kw, F = f.F;
	const int nh = f.nh, nw = f.nw, hw2 = nw / 2, kw2 = f.kw2, toh = f.toh, tow = f.tow;
	const int tiles = f.th * f.tw;
	int vec = 0; /* AVX-512 loops */
#if RT_SGEMM_X86_ && RT_SGEMM_HAVE_AVX512
	vec = p->isa == RT_SGEMM_ISA_AVX512;
#endif
	const size_t panel = (size_t)((mg + RT_SGEMM_MR(p->isa) - 1) / RT_SGEMM_MR(p->isa)) *
	                     RT_SGEMM_MR(p->isa) * cg; /* one packed M/group x C/group matrix */

	for (int n = 0; n < p->N; n++)
		for (int g = 0; g < p->group; g++) {
			const float *xg = x + ((size_t)n * p->C + (size_t)g * cg) * p->H * p->W; /* [cg][H][W] */
			float *yg = y + ((size_t)n * p->M + (size_t)g * mg) * p->oH * p->oW;   /* [mg][oH][oW] */
			const float *bg = bias ? bias + g * mg : NULL;                           /* [mg] or NULL */
			for (int t0 = 0; t0 < tiles; t0 += f.tb) {
				const int T = tiles - t0 < f.tb ? tiles - t0 : f.tb;
				const size_t CT = (size_t)cg * T, MT = (size_t)mg * T;

				/* 1. patches, W axis split even/odd: a = zr [Nw/2][Nh][cg][T],
				 *    then zi; a patch reads input rows from oy0 sH - padT */
				const size_t B1 = (size_t)Nh * CT;
				float *zr = k.a, *zi = k.a + (size_t)hw * B1;
				for (int c = 0; c < cg; c++)
					for (int t = 0; t < T; t++) {
						const int ty = (t0 + t) / f.tw, tx = (t0 + t) % f.tw;
						const int iy0 = ty * toh * p->sH - p->padT, ix0 = tx * tow * p->sW - p->padL;
						const float *xc = xg + (size_t)c * p->H * p->W; /* [H][W] */
						for (int yy = 0; yy < Nh; yy++) {
							const int iy = iy0 + yy;
							const size_t col = ((size_t)yy * cg + c) * T + t;
							for (int xx = 0; xx < Nw; xx++) {
								const int ix = ix0 + xx;
								const float v = iy >= 0 && iy < p->H && ix >= 0 && ix < p->W ?
								                xc[(size_t)iy * p->W + ix] : 0.0f;
								(xx % 2 ? zi : zr)[(size_t)(xx / 2) * B1 + col] = v;
							}
						}
					}
				/* 2. complex FFT of size Nw/2 along W */
				rt_fft_c(hw, (int)B1, -1, zr, zi, k.b, k.b + (size_t)hw * B1, k.tw, 2, vec);
				/* 3. split into the real FFT's half spectrum, kw = 0..Nw/2,
				 *    stored transposed: b = X [Nh][Kw][cg][T], re then im */
				float *xr = k.b, *xi = k.b + (size_t)F * CT;
				for (int kk = 0; kk <= hw; kk++) {
					const int ka = kk % hw, kb = (hw - kk) % hw;
					const float c = k.tw[2 * kk], s = k.tw[2 * kk + 1]; /* W^k = c - i s */
					for (int yy = 0; yy < Nh; yy++) {
						const float *pr = zr + (size_t)ka * B1 + (size_t)yy * CT;
						const float *pi = zi + (size_t)ka * B1 + (size_t)yy * CT;
						const float *qr = zr + (size_t)kb * B1 + (size_t)yy * CT;
						const float *qi = zi + (size_t)kb * B1 + (size_t)yy * CT;
						float *or_ = xr + ((size_t)yy * Kw + kk) * CT, *oi = xi + ((size_t)yy * Kw + kk) * CT;
						for (size_t j = 0; j < CT; j++) {
							/* even part (Z[k] + conj Z[h-k]) / 2, odd part
							 * (Z[k] - conj Z[h-k]) / 2i, X = even + W^k odd */
							const float er = 0.5f * (pr[j] + qr[j]), ei = 0.5f * (pi[j] - qi[j]);
							const float dr = 0.5f * (pi[j] + qi[j]), di = -0.5f * (pr[j] - qr[j]);
							or_[j] = er + c * dr + s * di;
							oi[j] = ei + c * di - s * dr;
						}
					}
				}
				/* 4. complex FFT of size Nh along H: X^ [F][cg][T] */
				rt_fft_c(Nh, (int)((size_t)Kw * CT), -1, xr, xi, k.a, k.a + (size_t)F * CT, k.th, 1, vec);

				/* 5. per frequency, Y^ = conj(W^) X^ summed over c:
				 *    y = Y^ [F][mg][T], re then im */
				float *yr = k.y, *yi = k.y + (size_t)F * MT;
				for (int fq = 0; fq < F; fq++) {
					const float *xfr = xr + (size_t)fq * CT, *xfi = xi + (size_t)fq * CT; /* [cg][T] */
					float *yfr = yr + (size_t)fq * MT, *yfi = yi + (size_t)fq * MT;       /* [mg][T] */
					if (variant == 0) {
						/* [2][cg][mg] spectra of this frequency, column by column */
						const float *wr = w + ((size_t)g * F + fq) * 2 * mg * cg, *wi = wr + (size_t)mg * cg;
#if RT_SGEMM_X86_ && RT_SGEMM_HAVE_AVX512
						if (vec) {
							rt_fft_mv_avx512(mg, cg, wr, wi, xfr, xfi, yfr, yfi);
							continue;
						}
#endif
						for (int m = 0; m < mg; m++) {
							yfr[m] = 0.0f;
							yfi[m] = 0.0f;
						}
						for (int c = 0; c < cg; c++) {
							const float *wrc = wr + (size_t)c * mg, *wic = wi + (size_t)c * mg; /* [mg] */
							for (int m = 0; m < mg; m++) {
								yfr[m] += wrc[m] * xfr[c] + wic[m] * xfi[c];
								yfi[m] += wrc[m] * xfi[c] - wic[m] * xfr[c];
							}
						}
					} else {
						/* Yr = Wr Xr + Wi Xi, Yi = Wr Xi - Wi Xr */
						const float *wf = w + ((size_t)g * F + fq) * 3 * panel;
						rt_sgemm(p->isa, mg, T, cg, NULL, 0, 0, wf, xfr, (size_t)T, 1, yfr, (size_t)T, 0, k.gemm);
						rt_sgemm(p->isa, mg, T, cg, NULL, 0, 0, wf + panel, xfi, (size_t)T, 1, yfr, (size_t)T, 1,
						         k.gemm);
						rt_sgemm(p->isa, mg, T, cg, NULL, 0, 0, wf, xfi, (size_t)T, 1, yfi, (size_t)T, 0, k.gemm);
						rt_sgemm(p->isa, mg, T, cg, NULL, 0, 0, wf + 2 * panel, xfr, (size_t)T, 1, yfi,
						         (size_t)T, 1, k.gemm);
					}
				}

				/* 6. fold H by the stride: a = Y' [nh][Kw][mg][T] */
				const size_t row = (size_t)Kw * MT;
				float *fr = k.a, *fi = k.a + (size_t)nh * row;
				for (int kh = 0; kh < nh; kh++)
					for (size_t j = 0; j < row; j++) {
						float sr = 0.0f, si = 0.0f;
						for (int q = kh; q < Nh; q += nh) {
							sr += yr[(size_t)q * row + j];
							si += yi[(size_t)q * row + j];
						}
						fr[(size_t)kh * row + j] = sr;
						fi[(size_t)kh * row + j] = si;
					}
				/* 7. inverse complex FFT of size nh along H: rows y' */
				rt_fft_c(nh, (int)row, 1, fr, fi, k.b, k.b + (size_t)nh * row, k.th2, 1, vec);
				/* 8. fold W (the half spectrum of a real row: kw past Nw/2 is
				 *    the conjugate of Nw - kw) for rows y' < toh, transposed:
				 *    b = Z' [kw2][toh][mg][T] */
				const size_t B3 = (size_t)toh * MT;
				float *gr = k.b, *gi = k.b + (size_t)kw2 * B3;
				for (int kk = 0; kk < kw2; kk++)
					for (int yy = 0; yy < toh; yy++) {
						float *dr = gr + ((size_t)kk * toh + yy) * MT, *di = gi + ((size_t)kk * toh + yy) * MT;
						for (size_t j = 0; j < MT; j++) {
							dr[j] = 0.0f;
							di[j] = 0.0f;
						}
						for (int kf = kk; kf < Nw; kf += nw) {
							const int mirror = kf > hw;
							const size_t o = (size_t)yy * row + (size_t)(mirror ? Nw - kf : kf) * MT;
							const float sgn = mirror ? -1.0f : 1.0f;
							for (size_t j = 0; j < MT; j++) {
								dr[j] += fr[o + j];
								di[j] += sgn * fi[o + j];
							}
						}
					}
				/* 9. real inverse FFT of size nw along W: from the half
				 *    spectrum X, V[k] = E + i O with E = X[k] + conj X[h-k],
				 *    O = (X[k] - conj X[h-k]) e^{2 pi i k/nw}; a = V [nw/2][B3] */
				float *vr = k.a, *vi = k.a + (size_t)hw2 * B3;
				for (int kk = 0; kk < hw2; kk++) {
					const float c = k.tw2[2 * kk], s = k.tw2[2 * kk + 1]; /* e^{+i theta} = c + i s */
					const float *pr = gr + (size_t)kk * B3, *pi = gi + (size_t)kk * B3;
					const float *qr = gr + (size_t)(hw2 - kk) * B3, *qi = gi + (size_t)(hw2 - kk) * B3;
					float *or_ = vr + (size_t)kk * B3, *oi = vi + (size_t)kk * B3;
					for (size_t j = 0; j < B3; j++) {
						const float er = pr[j] + qr[j], ei = pi[j] - qi[j];
						const float dr = pr[j] - qr[j], di = pi[j] + qi[j];
						const float odr = c * dr - s * di, odi = c * di + s * dr;
						or_[j] = er - odi;
						oi[j] = ei + odr;
					}
				}
				rt_fft_c(hw2, (int)B3, 1, vr, vi, k.b, k.b + (size_t)hw2 * B3, k.tw2, 2, vec);
				/* 10. output x' = 2e from vr[e], 2e + 1 from vi[e]; bias,
				 *     epilogue, the tile's valid part */
				for (int t = 0; t < T; t++) {
					const int ty = (t0 + t) / f.tw, tx = (t0 + t) % f.tw;
					const int oy0 = ty * toh, ox0 = tx * tow;
					const int ny = p->oH - oy0 < toh ? p->oH - oy0 : toh;
					const int nx = p->oW - ox0 < tow ? p->oW - ox0 : tow;
					for (int m = 0; m < mg; m++) {
						const float bm = bg ? bg[m] : 0.0f;
						float *ym = yg + (size_t)m * p->oH * p->oW; /* [oH][oW] */
						for (int yy = 0; yy < ny; yy++)
							for (int xx = 0; xx < nx; xx++) {
								const size_t o = (size_t)(xx / 2) * B3 + ((size_t)yy * mg + m) * T + t;
								const float v = (xx % 2 ? vi : vr)[o] + bm;
								ym[(size_t)(oy0 + yy) * p->oW + ox0 + xx] =
									rt_act_apply(p->act, p->alpha, p->beta, v);
							}
					}
				}
			}
		}
}
