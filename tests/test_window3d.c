/* test_window3d.c - the rt_window3d reference kernels (conv3d.c,
 * conv_transpose3d.c, pool3d.c) against double-precision references written
 * the other way round, on random shapes with groups, strides, dilations,
 * asymmetric pads and epilogues; and, where a 2-D kernel exists, against it
 * with D = 1 (the 1-D and 2-D operators the compiler routes here run with
 * leading dims of 1, so the two must agree exactly in layout and rounding of
 * the index arithmetic).
 *
 * Tolerances: each output is a float32 sum of at most a few hundred terms
 * in the kernel's loop order; it must lie within 1e-6 of the sum of the
 * terms' magnitudes (a few ulps of the largest possible partial sum) from
 * the double result. Pooling max is exact; average within 1e-6 relative. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/dnncc_rt.h"

static uint64_t rng_state;
static uint32_t rng_next(void)
{
	rng_state = rng_state * 6364136223846793005ULL + 1442695040888963407ULL;
	return (uint32_t)(rng_state >> 33);
}
static int rng_int(int lo, int hi) { return lo + (int)(rng_next() % (uint32_t)(hi - lo + 1)); }
static float *rand_floats(size_t n)
{
	float *p = malloc((n ? n : 1) * sizeof *p);
	for (size_t i = 0; i < n; i++)
		p[i] = (float)rng_next() / 4294967296.0f * 2.0f - 1.0f;
	return p;
}

static size_t vol(const int d[3]) { return (size_t)d[0] * d[1] * d[2]; }

/* Random window parameters for pooling or convolution; out from the ONNX
 * formula floor((in + pb + pe - ext) / s) + 1 (>= 1 by construction). */
static void random_window(struct rt_window3d *p, int conv)
{
	memset(p, 0, sizeof *p);
	p->N = rng_int(1, 2);
	p->group = conv ? rng_int(1, 2) : 1;
	p->C = p->group * rng_int(1, 3);
	p->M = conv ? p->group * rng_int(1, 3) : p->C;
	for (int i = 0; i < 3; i++) {
		p->k[i] = rng_int(1, 3);
		p->s[i] = rng_int(1, 2);
		p->d[i] = rng_int(1, 2);
		p->pb[i] = rng_int(0, p->k[i] - 1);
		p->pe[i] = rng_int(0, p->k[i] - 1);
		int ext = (p->k[i] - 1) * p->d[i] + 1;
		p->in[i] = rng_int(ext > p->pb[i] + p->pe[i] ? ext - p->pb[i] - p->pe[i] : 1, 6);
		if (p->in[i] + p->pb[i] + p->pe[i] < ext)
			p->in[i] = ext;
		p->out[i] = (p->in[i] + p->pb[i] + p->pe[i] - ext) / p->s[i] + 1;
	}
}

static void expect_close(const char *what, const float *got, const double *want,
                         const double *mag, size_t n, double tol)
{
	for (size_t i = 0; i < n; i++)
		cr_assert(fabs(got[i] - want[i]) <= tol * mag[i] + 1e-30 || got[i] == want[i],
		          "%s: element %zu is %.9g, expected %.9g", what, i, got[i], want[i]);
}

Test(window3d, conv3d_vs_double)
{
	rng_state = 11;
	for (int trial = 0; trial < 60; trial++) {
		struct rt_window3d p;
		random_window(&p, 1);
		p.act = trial % 3 == 0 ? RT_ACT_RELU : RT_ACT_NONE;
		const int cg = p.C / p.group, mg = p.M / p.group;
		const size_t ks = vol(p.k), ny = (size_t)p.N * p.M * vol(p.out);
		float *x = rand_floats((size_t)p.N * p.C * vol(p.in));
		float *w = rand_floats((size_t)p.M * cg * ks);
		float *b = trial % 2 ? rand_floats((size_t)p.M) : NULL;
		double *want = malloc(ny * sizeof *want), *mag = malloc(ny * sizeof *mag);
		size_t o = 0;
		for (int n = 0; n < p.N; n++)
			for (int m = 0; m < p.M; m++)
				for (int a = 0; a < p.out[0]; a++)
					for (int i = 0; i < p.out[1]; i++)
						for (int j = 0; j < p.out[2]; j++, o++) {
							double s = b ? b[m] : 0.0, am = b ? fabs(b[m]) : 0.0;
							for (int c = 0; c < cg; c++)
								for (int t = 0; t < p.k[0]; t++)
									for (int u = 0; u < p.k[1]; u++)
										for (int v = 0; v < p.k[2]; v++) {
											int id = a * p.s[0] - p.pb[0] + t * p.d[0];
											int ih = i * p.s[1] - p.pb[1] + u * p.d[1];
											int iw = j * p.s[2] - p.pb[2] + v * p.d[2];
											if (id < 0 || id >= p.in[0] || ih < 0 ||
											    ih >= p.in[1] || iw < 0 || iw >= p.in[2])
												continue;
											int ci = m / mg * cg + c;
											double term =
											        (double)x[(((size_t)n * p.C + ci) * p.in[0] + id) * p.in[1] * p.in[2] +
											                  (size_t)ih * p.in[2] + iw] *
											        w[(((size_t)m * cg + c) * p.k[0] + t) * p.k[1] * p.k[2] +
											          (size_t)u * p.k[2] + v];
											s += term;
											am += fabs(term);
										}
							want[o] = p.act == RT_ACT_RELU && s < 0 ? 0.0 : s;
							mag[o] = am;
						}
		float *y = malloc(ny * sizeof *y);
		rt_conv3d_ref(&p, x, w, b, y);
		expect_close("conv3d", y, want, mag, ny, 1e-6);
		free(y);
		free(want);
		free(mag);
		free(b);
		free(w);
		free(x);
	}
}

typedef void conv3d_fn(const struct rt_window3d *p, const float *x, const float *w,
                       const float *b, float *y);
typedef void conv2d_fn(const struct rt_conv2d *p, const float *x, const float *w,
                       const float *b, float *y);

/* f3 on p and f2 on q (the same window with D = 1) over the same random x, w
 * and b (drawn in that order) must give the same bits. Both windows have
 * p->M * (p->C / p->group) * vol(p->k) weights (Conv: (M, C/group, kD, kH,
 * kW); ConvTranspose: (C, M/group, kD, kH, kW)). */
static void expect_same_as_2d(const char *what, const struct rt_window3d *p,
                              const struct rt_conv2d *q, conv3d_fn *f3, conv2d_fn *f2)
{
	const size_t ny = (size_t)p->N * p->M * vol(p->out);
	float *x = rand_floats((size_t)p->N * p->C * vol(p->in));
	float *w = rand_floats((size_t)p->M * (p->C / p->group) * vol(p->k));
	float *b = rand_floats((size_t)p->M);
	float *y = malloc(ny * sizeof *y), *z = malloc(ny * sizeof *z);
	f3(p, x, w, b, y);
	f2(q, x, w, b, z);
	cr_assert(memcmp(y, z, ny * sizeof *y) == 0, "%s", what);
	free(z);
	free(y);
	free(b);
	free(w);
	free(x);
}

/* D = 1: the same numbers as the 2-D reference, bit for bit. */
Test(window3d, conv3d_matches_conv2d)
{
	rng_state = 12;
	for (int trial = 0; trial < 20; trial++) {
		struct rt_window3d p;
		random_window(&p, 1);
		p.in[0] = p.out[0] = p.k[0] = p.s[0] = p.d[0] = 1;
		p.pb[0] = p.pe[0] = 0;
		p.act = RT_ACT_LEAKY_RELU;
		p.alpha = 0.1f;
		const struct rt_conv2d q = {
			.N = p.N, .C = p.C, .H = p.in[1], .W = p.in[2], .M = p.M, .oH = p.out[1],
			.oW = p.out[2], .kH = p.k[1], .kW = p.k[2], .sH = p.s[1], .sW = p.s[2],
			.dH = p.d[1], .dW = p.d[2], .padT = p.pb[1], .padL = p.pb[2], .group = p.group,
			.act = RT_ACT_LEAKY_RELU, .alpha = 0.1f};
		expect_same_as_2d("conv3d with D = 1 differs from conv2d", &p, &q, rt_conv3d_ref,
		                  rt_conv2d_ref);
	}
}

/* ConvTranspose as a gather in double: y[n, m, o] sums x[n, c, i] * w[c, m', t]
 * over the i, t with i * s - pb + t * d = o in every dim, c in m's group. The
 * output may be longer than the natural length (output_padding). */
Test(window3d, conv_transpose3d_vs_double)
{
	rng_state = 13;
	for (int trial = 0; trial < 60; trial++) {
		struct rt_window3d p;
		random_window(&p, 1);
		for (int i = 0; i < 3; i++) { /* in and out swap roles */
			p.in[i] = rng_int(1, 4);
			p.out[i] = p.s[i] * (p.in[i] - 1) + (p.k[i] - 1) * p.d[i] + 1 - p.pb[i] - p.pe[i] +
			           rng_int(0, p.s[i] - 1);
			if (p.out[i] < 1)
				p.out[i] = 1;
		}
		const int cg = p.C / p.group, mg = p.M / p.group;
		const size_t ks = vol(p.k), ny = (size_t)p.N * p.M * vol(p.out);
		float *x = rand_floats((size_t)p.N * p.C * vol(p.in));
		float *w = rand_floats((size_t)p.C * mg * ks);
		float *b = trial % 2 ? rand_floats((size_t)p.M) : NULL;
		double *want = malloc(ny * sizeof *want), *mag = malloc(ny * sizeof *mag);
		size_t o = 0;
		for (int n = 0; n < p.N; n++)
			for (int m = 0; m < p.M; m++)
				for (int a = 0; a < p.out[0]; a++)
					for (int i = 0; i < p.out[1]; i++)
						for (int j = 0; j < p.out[2]; j++, o++) {
							double s = b ? b[m] : 0.0, am = b ? fabs(b[m]) : 0.0;
							int g = m / mg, mm = m % mg;
							for (int c = g * cg; c < (g + 1) * cg; c++)
								for (int ia = 0; ia < p.in[0]; ia++)
									for (int ii = 0; ii < p.in[1]; ii++)
										for (int ij = 0; ij < p.in[2]; ij++)
											for (int t = 0; t < p.k[0]; t++)
												for (int u = 0; u < p.k[1]; u++)
													for (int v = 0; v < p.k[2]; v++) {
														if (ia * p.s[0] - p.pb[0] + t * p.d[0] != a ||
														    ii * p.s[1] - p.pb[1] + u * p.d[1] != i ||
														    ij * p.s[2] - p.pb[2] + v * p.d[2] != j)
															continue;
														double term =
														        (double)x[(((size_t)n * p.C + c) * p.in[0] + ia) * p.in[1] * p.in[2] +
														                  (size_t)ii * p.in[2] + ij] *
														        w[(((size_t)c * mg + mm) * p.k[0] + t) * p.k[1] * p.k[2] +
														          (size_t)u * p.k[2] + v];
														s += term;
														am += fabs(term);
													}
							want[o] = s;
							mag[o] = am;
						}
		float *y = malloc(ny * sizeof *y);
		rt_conv_transpose3d_ref(&p, x, w, b, y);
		expect_close("conv_transpose3d", y, want, mag, ny, 1e-6);
		free(y);
		free(want);
		free(mag);
		free(b);
		free(w);
		free(x);
	}
}

Test(window3d, conv_transpose3d_matches_2d)
{
	rng_state = 14;
	struct rt_window3d p = {.N = 2, .C = 4, .M = 6, .group = 2, .in = {1, 3, 4},
	                        .out = {1, 8, 9}, .k = {1, 3, 2}, .s = {1, 2, 3}, .d = {1, 1, 2},
	                        .pb = {0, 1, 0}};
	const struct rt_conv2d q = {.N = 2, .C = 4, .H = 3, .W = 4, .M = 6, .oH = 8, .oW = 9,
	                            .kH = 3, .kW = 2, .sH = 2, .sW = 3, .dH = 1, .dW = 2,
	                            .padT = 1, .padL = 0, .group = 2};
	expect_same_as_2d("conv_transpose3d with D = 1 differs from 2-D", &p, &q,
	                  rt_conv_transpose3d_ref, rt_conv_transpose_ref);
}

/* Max and average (with and without count_include_pad), against double; some
 * trials extend the output by one window that starts inside the input but
 * overhangs the end padding (ceil_mode), whose overhang is never counted. */
Test(window3d, pool3d_vs_double)
{
	rng_state = 15;
	for (int trial = 0; trial < 90; trial++) {
		struct rt_window3d p;
		random_window(&p, 0);
		p.max = trial % 3 == 0;
		p.count_include_pad = trial % 3 == 1;
		if (trial % 2) /* ceil_mode's extra window, when it starts inside input + pb */
			for (int i = 0; i < 3; i++)
				if (p.out[i] * p.s[i] < p.in[i] + p.pb[i] &&
				    (p.in[i] + p.pb[i] + p.pe[i] - ((p.k[i] - 1) * p.d[i] + 1)) % p.s[i])
					p.out[i]++;
		const size_t ny = (size_t)p.N * p.C * vol(p.out);
		float *x = rand_floats((size_t)p.N * p.C * vol(p.in));
		double *want = malloc(ny * sizeof *want), *mag = malloc(ny * sizeof *mag);
		size_t o = 0;
		for (int nc = 0; nc < p.N * p.C; nc++)
			for (int a = 0; a < p.out[0]; a++)
				for (int i = 0; i < p.out[1]; i++)
					for (int j = 0; j < p.out[2]; j++, o++) {
						double s = 0, am = 0, best = -INFINITY;
						int count = 0;
						for (int t = 0; t < p.k[0]; t++)
							for (int u = 0; u < p.k[1]; u++)
								for (int v = 0; v < p.k[2]; v++) {
									int pos[3] = {a * p.s[0] - p.pb[0] + t * p.d[0],
									              i * p.s[1] - p.pb[1] + u * p.d[1],
									              j * p.s[2] - p.pb[2] + v * p.d[2]};
									int inside = 1, padded = 1;
									for (int q = 0; q < 3; q++) {
										inside &= pos[q] >= 0 && pos[q] < p.in[q];
										padded &= pos[q] >= -p.pb[q] && pos[q] < p.in[q] + p.pe[q];
									}
									if (inside) {
										double xv = x[(size_t)nc * vol(p.in) +
										              ((size_t)pos[0] * p.in[1] + pos[1]) * p.in[2] + pos[2]];
										s += xv;
										am += fabs(xv);
										best = xv > best ? xv : best;
										count++;
									} else if (p.count_include_pad && padded) {
										count++;
									}
								}
						want[o] = p.max ? best : count ? s / count : 0.0;
						mag[o] = p.max ? 0.0 : count ? am / count : 0.0;
					}
		float *y = malloc(ny * sizeof *y);
		rt_pool3d(&p, x, y);
		expect_close(p.max ? "maxpool3d" : "avgpool3d", y, want, mag, ny, 1e-6);
		free(y);
		free(want);
		free(mag);
		free(x);
	}
}
