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
 *     RUN and the prep functions, and the runtime unit holding RUN;
 *   - its cost description (struct rt_prim_cost, RT_COST in the row), from
 *     which the built-in cost model estimates its time without knowing it.
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

/* What the built-in cost model (passes/cost_model.c) knows of a row: how its
 * work is counted, how fast its inner loop runs on each instruction set, and
 * the memory traffic of its transforms. Rows give it with RT_COST(...) in
 * their fam_*.def line; bench/calibrate measures the efficiencies. */
enum rt_cost_work {
	RT_CW_DIRECT,   /* 2 N M C/group kH kW oH oW flops (every direct, im2, depthwise row) */
	RT_CW_GRID,     /* kn2: per tap a GEMM over every input pixel, 2 N M C/g kH kW H W,
	                   then a shift-add of each tap's partial output (accum traffic) */
	RT_CW_WINOGRAD, /* F(tile, k): 2 N alpha_h alpha_w M C/g flops per output tile, plus
	                   input and output transforms (alpha = tile + k - 1 per axis) */
	RT_CW_FFT       /* FFTs of tile x tile blocks (tile 0: the whole padded image) and
	                   complex pointwise products over them */
};

/* Instruction-set bits of rt_prim_cost.simd (1 << RT_SGEMM_ISA_*). */
#define RT_SIMD_AVX2 (1u << 1)
#define RT_SIMD_AVX512 (1u << 2)
#define RT_SIMD_NEON (1u << 3)
#define RT_SIMD_GEMM (RT_SIMD_AVX2 | RT_SIMD_AVX512 | RT_SIMD_NEON) /* what rt_sgemm vectorises */
#define RT_SIMD_X86 (RT_SIMD_AVX2 | RT_SIMD_AVX512)

struct rt_prim_cost {
	unsigned simd;     /* RT_SIMD_* bits: ISAs the inner loop is vectorised for; on any
	                      other ISA the row runs its scalar code */
	float eff_scalar;  /* scalar code: fraction of the portable C SGEMM rate */
	float eff_avx2, eff_avx512, eff_neon; /* vectorised: fraction of that ISA's SGEMM rate */
	enum rt_cost_work work;
	int gemm;          /* 1: the work is a GEMM whose skinny shapes run below peak */
	int tile_h, tile_w; /* Winograd output tile, FFT tile (0: whole image) */
	float patch;       /* bytes moved per element of the im2col/im2row patch matrix
	                      (C/g kH kW x oH oW per group and image); 0 without one */
	float accum;       /* bytes moved per element of the per-tap partial outputs
	                      (M x H x W per tap and image); kn2 only */
	float xform_eff;   /* Winograd / FFT transforms: their flops run at this fraction of
	                      the main work's rate */
};

/* RT_COST(simd, eff_scalar, eff_avx2, eff_avx512, eff_neon, work, gemm, tile_h, tile_w,
 *         patch, accum, xform_eff): the last argument of a PRIM row. */
#define RT_COST(simd, es, e2, e5, en, work, gemm, th, tw, patch, accum, xe) \
	{simd, es, e2, e5, en, work, gemm, th, tw, patch, accum, xe}

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
	struct rt_prim_cost cost; /* for the built-in cost model */
};

extern const struct rt_prim rt_prims[];
extern const int rt_n_prims;
extern const char *const rt_family_names[RT_FAM_COUNT_];
extern const char *const rt_layout_names[RT_L_COUNT_];
const struct rt_prim *rt_prim_find(const char *name);
/* 1 if row r adds p->res itself, before its activation (else p->res must be NULL) */
int rt_prim_fuses_residual(const struct rt_prim *r);
/* 1 if row r, running layer p with a fused residual, may write y over the
 * residual's own buffer (y == p->res): every output is stored once, after
 * its residual was read, and nothing else of y is written before (plan_memory
 * then lets a residual that dies at the layer carry its output) */
int rt_prim_residual_in_place(const struct rt_prim *r, const struct rt_conv2d *p);

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
