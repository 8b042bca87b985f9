/* residual.c - the residual epilogue of a convolution (passes/fuse.c): after
 * the primitive wrote y = conv(x) + bias, add the shortcut r, laid out like
 * y, and apply the activation the layer had fused after the Add:
 *   y = act(y + r)
 * ResNet's "Add then Relu" in one pass over the output instead of two layers
 * and a tensor. Dense layouts (CHW, HCW, HWC) cover N * M * HW elements; a
 * blocked CHWxc layout (block 8 or 16) holds [N][ceil(M/x)][HW][x] with the
 * channels past M zero, and those stay zero (act(0) need not be 0). */
#include "runtime/rt_types.h"
#include "runtime/rt_simd.h"

/* y[i] = act(y[i] + r[i]) for n contiguous elements, scalar: the tail of the
 * vector loops below, the other activations, and the pad-lane blocks. */
static inline void rt_residual_run_(int act, float alpha, float beta, size_t n, const float *r,
                                    float *y)
{
	if (act == RT_ACT_NONE) {
		for (size_t i = 0; i < n; i++)
			y[i] += r[i];
	} else if (act == RT_ACT_RELU) {
		for (size_t i = 0; i < n; i++) {
			float v = y[i] + r[i];
			y[i] = v > 0.0f ? v : 0.0f;
		}
	} else {
		for (size_t i = 0; i < n; i++)
			y[i] = rt_act_apply(act, alpha, beta, y[i] + r[i]);
	}
}

/* The same over the SIMD layer (rt_simd.h) for no activation and Relu, the
 * rest and the tail through rt_residual_run_. The plain loops run over an
 * unknown count with a store that may alias their loads, which gcc -O2 (the
 * build users get) does not reliably vectorise: ResNet-18's 64 x 56 x 56
 * Winograd layer that adds the residual took 614-620 us at 2 threads with
 * them and 434-441 with this (--instrument, Xeon, 2026-12-07). max(v, 0) is
 * v > 0 ? v : 0 bit for bit, -0 and NaN included, as in the rows that fuse
 * the Relu in registers. */
#define RT_RESIDUAL_(SUF, ATTR, V, VL, ZERO, LOAD, STORE, SET1, ADD, SUB, MUL, MAX, MIN)        \
	static inline ATTR void rt_residual_##SUF(int act, float alpha, float beta, size_t n,     \
	                                          const float *r, float *y)                       \
	{                                                                                         \
		size_t i = 0;                                                                     \
		if (act == RT_ACT_NONE) {                                                         \
			for (; i < n - n % VL; i += VL) /* not i + VL <= n: rt_simd.h */          \
				STORE(y + i, ADD(LOAD(y + i), LOAD(r + i)));                      \
		} else if (act == RT_ACT_RELU) {                                                  \
			const V zero = ZERO;                                                      \
			for (; i < n - n % VL; i += VL)                                           \
				STORE(y + i, MAX(ADD(LOAD(y + i), LOAD(r + i)), zero));           \
		}                                                                                 \
		rt_residual_run_(act, alpha, beta, n - i, r + i, y + i);                          \
	}

RT_SIMD_EACH(RT_RESIDUAL_)

static void rt_residual_isa_(int isa, int act, float alpha, float beta, size_t n, const float *r,
                             float *y)
{
	switch (rt_simd_isa(isa, 16)) {
#if RT_SIMD_HAVE_AVX512
	case RT_SGEMM_ISA_AVX512: rt_residual_avx512(act, alpha, beta, n, r, y); break;
#endif
#if RT_SIMD_HAVE_AVX2
	case RT_SGEMM_ISA_AVX2: rt_residual_avx2(act, alpha, beta, n, r, y); break;
#endif
#if RT_SIMD_HAVE_NEON
	case RT_SGEMM_ISA_NEON: rt_residual_neon(act, alpha, beta, n, r, y); break;
#endif
	default:
#if RT_SIMD_HAVE_C
		rt_residual_c(act, alpha, beta, n, r, y);
#else
		rt_residual_run_(act, alpha, beta, n, r, y);
#endif
		break;
	}
}

struct rt_residual_job_ {
	int isa, N, M, HW, block, act;
	float alpha, beta;
	const float *r;
	float *y;
};

/* Items [begin, end): dense layouts are cut into RT_PARALLEL_ITEMS parts of
 * the elements, blocked ones into their N * ceil(M/x) blocks. */
static void rt_residual_items_(void *ctx, int begin, int end)
{
	const struct rt_residual_job_ *j = ctx;
	const int M = j->M, HW = j->HW, block = j->block;
	if (block == 0) {
		const size_t n = (size_t)j->N * M * HW;
		const size_t e0 = n * (size_t)begin / RT_PARALLEL_ITEMS;
		const size_t e1 = n * (size_t)end / RT_PARALLEL_ITEMS;
		rt_residual_isa_(j->isa, j->act, j->alpha, j->beta, e1 - e0, j->r + e0, j->y + e0);
		return;
	}
	const int nb = (M + block - 1) / block;
	for (int b = begin; b < end; b++) {
		int valid = M - b % nb * block < block ? M - b % nb * block : block;
		float *yb = j->y + (size_t)b * HW * block;
		const float *rb = j->r + (size_t)b * HW * block;
		if (valid == block) { /* a whole block is contiguous */
			rt_residual_isa_(j->isa, j->act, j->alpha, j->beta, (size_t)HW * block, rb,
			                 yb);
			continue;
		}
		for (size_t i = 0; i < (size_t)HW; i++)
			for (int l = 0; l < valid; l++) {
				size_t k = i * block + l;
				yb[k] = rt_act_apply(j->act, j->alpha, j->beta, yb[k] + rb[k]);
			}
	}
}

/* Threads take parts of the elements (rt_parallel); each element gets the
 * same arithmetic whoever computes it. An element counts as
 * RT_PARALLEL_COPY_UNITS (two loads, an add, a store: memory-bound). */
RT_FN void rt_conv_residual(int isa, /* RT_SGEMM_ISA_* to run (generated code: its own) */
                            int N, int M, int HW, int block, int act, float alpha, float beta,
                            const float *r, /* like y */
                            float *y)       /* in and out: N images of M x HW */
{
	struct rt_residual_job_ j = {isa, N, M, HW, block, act, alpha, beta, r, y};
	const int items = block ? N * ((M + block - 1) / block) : RT_PARALLEL_ITEMS;
	if ((double)RT_PARALLEL_COPY_UNITS * N * M * HW < RT_PARALLEL_MIN_WORK)
		rt_residual_items_(&j, 0, items);
	else
		rt_parallel(rt_residual_items_, &j, items);
}
