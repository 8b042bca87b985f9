/* primitives.h - the convolution primitive library as data (DESIGN.md §2
 * "Primitives are data", STYLE.md §6).
 *
 * Every primitive is one row of primitives.def. A row names:
 *   - the C function generated code calls (the "run" entry, in an embedded
 *     runtime unit, see units.def):
 *       RT_FN void RUN(const struct rt_conv2d *p, int variant,
 *                      const float *x,   image(s) in the row's input layout
 *                      const float *w,   weights as PACK left them (or raw
 *                                        [M, C/group, kH, kW] when PACK is 0)
 *                      const float *b,   [M] bias or NULL
 *                      float *y,         out: image(s) in the row's output layout
 *                      float *ws);       workspace of WS(p, variant) floats,
 *                                        64-byte aligned, or NULL when 0
 *     It processes all p->N images; image n starts at n * rt_layout_size(
 *     layout, C, H, W) floats. It applies bias and the fused epilogue
 *     (p->act) itself.
 *   - compile-time functions (prep_*.c, linked into dnncc and the tests, never
 *     embedded): APPLIES(p, variant) — the predicate (shape, stride, dilation,
 *     group); WS(p, variant) — workspace floats; PACKED(p, variant) — floats
 *     of packed weights; PACK(p, variant, w_oihw, out) — re-lays the weights
 *     out at compile time (Winograd U, FFT spectra, blocked or tap-major
 *     matrices). PACKED and PACK are 0 for primitives that read raw weights.
 *   - its family, its input and output layout, the variant number passed to
 *     RUN and the prep functions, and the runtime unit holding RUN.
 * Adding a variant means adding a row (and its code), never touching the
 * passes: the registry, --list-primitives, selection, the emitter, the
 * profiler, the tests and the benchmark all expand this one list. */
#ifndef DNNCC_PRIMITIVES_H
#define DNNCC_PRIMITIVES_H

#include "runtime/rt_types.h"

/* Families of the Anderson & Gregg library (plus depthwise). */
#define RT_FAMILIES(X)        \
	X(RT_FAM_SUM2D, "sum2d")   \
	X(RT_FAM_DIRECT, "direct") \
	X(RT_FAM_IM2, "im2")       \
	X(RT_FAM_KN2, "kn2")       \
	X(RT_FAM_WINOGRAD, "winograd") \
	X(RT_FAM_FFT, "fft")       \
	X(RT_FAM_DEPTHWISE, "depthwise")

enum rt_family {
#define X(e, s) e,
	RT_FAMILIES(X)
#undef X
	RT_FAM_COUNT_
};

/* Activation layouts of one image, outermost dimension first. Blocked CHWxc
 * is [ceil(C/x)][H][W][x] with channels past C zero. Numbering matches
 * enum layout in ir/ir.h from LAYOUT_CHW on (RT_L_CHW = LAYOUT_CHW - 1). */
enum rt_layout { RT_L_CHW, RT_L_HCW, RT_L_HWC, RT_L_CHW8C, RT_L_CHW16C, RT_L_COUNT_ };

/* Floats one image of C x H x W takes in layout l (blocked layouts pad C). */
static inline size_t rt_layout_size(int l, int C, int H, int W)
{
	int cp = l == RT_L_CHW8C ? (C + 7) / 8 * 8 : l == RT_L_CHW16C ? (C + 15) / 16 * 16 : C;
	return (size_t)cp * H * W;
}

typedef void rt_conv_run_fn(const struct rt_conv2d *p, int variant, const float *x,
                            const float *w, const float *b, float *y, float *ws);

struct rt_prim {
	const char *name;     /* states the contract: family_algorithm_variant_inlayout[_outlayout] */
	enum rt_family family;
	enum rt_layout in, out;
	int variant;          /* passed to every function of the row */
	const char *run_name; /* C name of RUN, for the emitter */
	int unit;             /* enum rt_unit holding RUN (units.def) */
	rt_conv_run_fn *run;
	int (*applies)(const struct rt_conv2d *p, int variant);
	size_t (*ws)(const struct rt_conv2d *p, int variant);
	size_t (*packed)(const struct rt_conv2d *p, int variant);   /* NULL: raw weights */
	void (*pack)(const struct rt_conv2d *p, int variant, const float *w, float *out);
	const char *constraints; /* human-readable predicate, for --list-primitives */
};

extern const struct rt_prim rt_prims[];
extern const int rt_n_prims;
extern const char *const rt_family_names[RT_FAM_COUNT_];
extern const char *const rt_layout_names[RT_L_COUNT_];
const struct rt_prim *rt_prim_find(const char *name);

/* Layout transforms: the edges of the DT graph (layouts.def). Each converts
 * N images of C x H x W from one layout to another. */
typedef void rt_layout_fn(int N, int C, int H, int W, const float *x, float *y);
struct rt_transform {
	const char *name;     /* e.g. "layout_chw_to_hwc" */
	enum rt_layout from, to;
	const char *run_name; /* C name in generated code */
	int unit;             /* enum rt_unit */
	rt_layout_fn *run;
};
extern const struct rt_transform rt_transforms[];
extern const int rt_n_transforms;

#endif
