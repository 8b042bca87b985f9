/* sgemm.h - dnncc's own blocked single-precision GEMM: constants, blocking and
 * (for the library build) prototypes.
 *
 * What it computes, for row-major C and arbitrary element strides of A and B:
 *
 *   C[i*ldc + j] (+)= sum over k < K of A(i, k) * B(k, j),   i < M, j < N
 *   A(i, k) = a[i*rsa + k*csa]       B(k, j) = b[k*rsb + j*csb]
 *
 * so every transpose combination is a choice of strides: A row-major [M, K] is
 * (rsa, csa) = (K, 1), A stored as [K, M] is (1, M); B [K, N] is (N, 1), B
 * stored as [N, K] is (1, K). With `accumulate` C += A*B, else C = A*B.
 *
 * How (Goto and van de Geijn, "Anatomy of high-performance matrix
 * multiplication", TOMS 2008; the BLIS five loops): N is cut into NC-wide
 * blocks (loop 5) and K into KC-deep slices (loop 4); each KC x NC block of B
 * is packed into the workspace as NR-wide panels (k-major, zero padded), sized
 * to stay in the L2 cache. Then for every MR-row panel of A (loop 3) the
 * micro-kernel runs across all NR-wide panels of the block (loop 2), keeping
 * an MR x NR tile of C in registers (loop 1 is the micro-kernel's k loop).
 * A is not packed at run time: the micro-kernels read MR rows of A through
 * its strides with one broadcast load per element, which costs the same as
 * reading a packed panel, and an MR x KC slice of A is small enough to stay in
 * the caches whether packed or not; constant A (convolution weights) can be
 * packed once at compile time (rt_sgemm_pack_a), which keeps it contiguous.
 * Ragged edges: B panels are zero padded, and the micro-kernels read only the
 * m rows of A and store only the m x n part of a tile that lies inside C.
 *
 * Micro-kernels, one source file each, selected by ISA:
 *   RT_SGEMM_ISA_C       sgemm_c.c       portable C99, 4 x 4 tile (fits the 32
 *                                         single registers of a Cortex-M4F)
 *   RT_SGEMM_ISA_AVX2    sgemm_avx2.c    AVX2 + FMA, 6 x 16 (12 ymm accumulators)
 *   RT_SGEMM_ISA_AVX512  sgemm_avx512.c  AVX-512F, 8 x 48 (24 zmm accumulators)
 *   RT_SGEMM_ISA_NEON    sgemm_neon.c    AArch64 Advanced SIMD, 8 x 12 (24 q)
 * SIMD is enabled per function (target attributes, <immintrin.h> or
 * <arm_neon.h>), so no -m flags are needed; each SIMD file compiles to nothing
 * on other architectures and compilers.
 *
 * Two builds:
 * - the library (libdnncc_rt.a: tests, benchmarks, dnncc itself, which packs
 *   constant weights with rt_sgemm_pack_a at compile time): RT_SGEMM_ISA is
 *   not defined, every kernel this compiler and architecture can build is
 *   compiled, rt_sgemm takes the ISA as its first argument, and
 *   rt_sgemm_isa_host (sgemm_host.c) says which the running CPU supports;
 * - generated code: the emitter defines RT_SGEMM_ISA (e.g.
 *   `#define RT_SGEMM_ISA RT_SGEMM_ISA_AVX512`) and copies this file, that
 *   ISA's kernel unit and sgemm.c, in this order; only that kernel is
 *   compiled, and rt_sgemm uses it whatever its isa argument says (so the
 *   blocking constants fold). The prototypes and size functions below the
 *   library banner are left out there (dnncc computed the sizes at compile
 *   time, with the same RT_SGEMM_ISA_* value).
 *
 * Every pointer may be unaligned (float alignment); the workspace is aligned
 * to 64 bytes internally. Memory: no allocation, no state; rt_sgemm is
 * reentrant when each caller passes its own workspace. */
#ifndef DNNCC_RT_SGEMM_H
#define DNNCC_RT_SGEMM_H

#include "runtime/rt_types.h"

#define RT_SGEMM_ISA_C 0
#define RT_SGEMM_ISA_AVX2 1
#define RT_SGEMM_ISA_AVX512 2
#define RT_SGEMM_ISA_NEON 3
#define RT_SGEMM_ISA_COUNT 4

/* Register tile (MR rows of A x NR columns of B) and cache blocking per ISA.
 * A KC x NC block of packed B stays in L2 while the A panels sweep over it;
 * a KC x NR panel of B and an MR x KC slice of A stream through L1:
 * - AVX-512 (Skylake-SP to Sapphire Rapids: 32-48 KiB L1d, 1-2 MiB L2): a B
 *   block of 384 x 480 x 4 = 720 KiB, B panels of 72 KiB, A slices of 12 KiB.
 *   Measured on a Sapphire Rapids core (bench/gemm, VGG-16 and ResNet-50
 *   shapes), KC in 192..512 with NC in 384..768 were within noise of each
 *   other; NC >= 1536 lost 10-25% on the many-pixel layers, where B streams
 *   from memory.
 * - AVX2 (Haswell to Zen 4: 32 KiB L1d, 256 KiB - 1 MiB L2): 256 x 384 x 4 =
 *   384 KiB, 16 KiB, 6 KiB.
 * - NEON (Cortex-A53 to Neoverse: 32-64 KiB L1d, 256 KiB - 1 MiB L2):
 *   256 x 240 x 4 = 240 KiB, 12 KiB, 8 KiB.
 * - C (Cortex-M with tens to hundreds of KiB of SRAM, or any unknown CPU):
 *   128 x 128 x 4 = 64 KiB, which also bounds the workspace.
 * These are upper bounds: rt_sgemm cuts K and N into slices and blocks of
 * equal size. NC is a multiple of NR. KC and NC may be overridden at build time (the same
 * for every file); MR and NR are the kernels' own. */
#define RT_SGEMM_C_MR 4
#define RT_SGEMM_C_NR 4
#ifndef RT_SGEMM_C_KC
#define RT_SGEMM_C_KC 128
#endif
#ifndef RT_SGEMM_C_NC
#define RT_SGEMM_C_NC 128
#endif
#define RT_SGEMM_AVX2_MR 6
#define RT_SGEMM_AVX2_NR 16
#ifndef RT_SGEMM_AVX2_KC
#define RT_SGEMM_AVX2_KC 256
#endif
#ifndef RT_SGEMM_AVX2_NC
#define RT_SGEMM_AVX2_NC 384
#endif
#define RT_SGEMM_AVX512_MR 8
#define RT_SGEMM_AVX512_NR 48
#ifndef RT_SGEMM_AVX512_KC
#define RT_SGEMM_AVX512_KC 384
#endif
#ifndef RT_SGEMM_AVX512_NC
#define RT_SGEMM_AVX512_NC 480
#endif
#define RT_SGEMM_NEON_MR 8
#define RT_SGEMM_NEON_NR 12
#ifndef RT_SGEMM_NEON_KC
#define RT_SGEMM_NEON_KC 256
#endif
#ifndef RT_SGEMM_NEON_NC
#define RT_SGEMM_NEON_NC 240
#endif

/* The parameters of an ISA by its id (macros, so unused ones cost nothing in
 * generated code). */
#define RT_SGEMM_SELECT_(isa, x)                                                 \
	((isa) == RT_SGEMM_ISA_AVX512 ? RT_SGEMM_AVX512_##x :                     \
	 (isa) == RT_SGEMM_ISA_AVX2   ? RT_SGEMM_AVX2_##x :                       \
	 (isa) == RT_SGEMM_ISA_NEON   ? RT_SGEMM_NEON_##x : RT_SGEMM_C_##x)
#define RT_SGEMM_MR(isa) RT_SGEMM_SELECT_(isa, MR)
#define RT_SGEMM_NR(isa) RT_SGEMM_SELECT_(isa, NR)
#define RT_SGEMM_KC(isa) RT_SGEMM_SELECT_(isa, KC)
#define RT_SGEMM_NC(isa) RT_SGEMM_SELECT_(isa, NC)

/* Fully-connected layers (gemm_fc.c) read constant weights packed at compile
 * time into panels of RT_FC_NB(isa) columns: four SIMD vectors wide (C: four
 * floats), so a panel row is one cache line on AVX-512. */
#define RT_FC_NB(isa)                                                            \
	((isa) == RT_SGEMM_ISA_AVX512 ? 64 : (isa) == RT_SGEMM_ISA_AVX2 ? 32 :    \
	 (isa) == RT_SGEMM_ISA_NEON   ? 16 : 4)

/* Which kernels this compiler can build here: SIMD kernels need GCC or Clang
 * (target attributes) on their architecture; generated code builds only the
 * one it names. */
#if defined(__GNUC__) && defined(__x86_64__)
#define RT_SGEMM_X86_ 1
#else
#define RT_SGEMM_X86_ 0
#endif
#if defined(__GNUC__) && defined(__aarch64__)
#define RT_SGEMM_ARM64_ 1
#else
#define RT_SGEMM_ARM64_ 0
#endif
#ifdef RT_SGEMM_ISA
#define RT_SGEMM_HAVE_C (RT_SGEMM_ISA == RT_SGEMM_ISA_C)
#define RT_SGEMM_HAVE_AVX2 (RT_SGEMM_ISA == RT_SGEMM_ISA_AVX2 && RT_SGEMM_X86_)
#define RT_SGEMM_HAVE_AVX512 (RT_SGEMM_ISA == RT_SGEMM_ISA_AVX512 && RT_SGEMM_X86_)
#define RT_SGEMM_HAVE_NEON (RT_SGEMM_ISA == RT_SGEMM_ISA_NEON && RT_SGEMM_ARM64_)
#else
#define RT_SGEMM_HAVE_C 1
#define RT_SGEMM_HAVE_AVX2 RT_SGEMM_X86_
#define RT_SGEMM_HAVE_AVX512 RT_SGEMM_X86_
#define RT_SGEMM_HAVE_NEON RT_SGEMM_ARM64_
#endif
#if !(RT_SGEMM_HAVE_C || RT_SGEMM_HAVE_AVX2 || RT_SGEMM_HAVE_AVX512 || RT_SGEMM_HAVE_NEON)
#error "RT_SGEMM_ISA names a SIMD kernel this compiler cannot build here: regenerate for this target"
#endif

/* A micro-kernel (one per ISA, same contract):
 *   C tile (+)= A * Bp over kc steps, storing only rows i < m, columns j < n
 * a:   A(i, k) at a[i*ars + k*acs], i < m, k < kc: packed A (ars = 1, acs =
 *      MR) or A itself; rows past m are never read
 * b:   packed B panel, [kc][NR] (column j at b[k*NR + j]), zero past n
 * c:   C tile, [m][n] with row stride ldc; m in 1..MR, n in 1..NR
 * accumulate: nonzero: C += A*B, zero: C = A*B (C is not read)
 * kc may be 0 (then the tile is stored as zeros or left as it is). */

/* Packed A, the layout rt_sgemm_pack_a writes and rt_sgemm reads: ceil(M/MR)
 * panels, panel p = rows p*MR .. p*MR+MR-1, each [K][MR] (element (i, k) at
 * ap[(i/MR)*K*MR + k*MR + i%MR]); rows past M are zero. It depends only on MR,
 * not on the blocking, so dnncc can pack weights for any target. */

/* ---- library build only -------------------------------------------------- */
#ifndef RT_SGEMM_ISA

/* Floats of packed A (rt_sgemm_pack_a's output) for an M x K matrix. */
static inline size_t rt_sgemm_pack_a_size(int isa, int M, int K)
{
	const size_t mr = (size_t)RT_SGEMM_MR(isa);
	return (((size_t)M + mr - 1) / mr) * mr * (size_t)K;
}

/* Bytes of workspace rt_sgemm needs for these sizes (the packed B block),
 * including 64 bytes for alignment. */
static inline size_t rt_sgemm_workspace_size(int isa, int M, int N, int K)
{
	const size_t nr = (size_t)RT_SGEMM_NR(isa);
	const size_t kc = (size_t)(K < RT_SGEMM_KC(isa) ? K : RT_SGEMM_KC(isa));
	const size_t nc = (size_t)(N < RT_SGEMM_NC(isa) ? N : RT_SGEMM_NC(isa));
	(void)M;
	return ((nc + nr - 1) / nr) * nr * kc * sizeof(float) + 64;
}

/* sgemm_c.c, sgemm_avx2.c, sgemm_avx512.c, sgemm_neon.c: micro-kernels */
void rt_sgemm_kernel_c(int kc, const float *a, size_t ars, size_t acs, const float *b, float *c,
                       size_t ldc, int m, int n, int accumulate);
#if RT_SGEMM_HAVE_AVX2
void rt_sgemm_kernel_avx2(int kc, const float *a, size_t ars, size_t acs, const float *b,
                          float *c, size_t ldc, int m, int n, int accumulate);
#endif
#if RT_SGEMM_HAVE_AVX512
void rt_sgemm_kernel_avx512(int kc, const float *a, size_t ars, size_t acs, const float *b,
                            float *c, size_t ldc, int m, int n, int accumulate);
#endif
#if RT_SGEMM_HAVE_NEON
void rt_sgemm_kernel_neon(int kc, const float *a, size_t ars, size_t acs, const float *b,
                          float *c, size_t ldc, int m, int n, int accumulate);
#endif

/* sgemm.c: C[M, N] (+)= A * B as described at the top.
 * isa:  RT_SGEMM_ISA_*, a kernel the CPU runs (rt_sgemm_isa_supported)
 * a:    A(i, k) at a[i*rsa + k*csa]; not read when ap is given (may be NULL)
 * ap:   A packed for this isa by rt_sgemm_pack_a, or NULL
 * b:    B(k, j) at b[k*rsb + j*csb]
 * c:    out: [M, N] with row stride ldc >= N; must not overlap a, ap or b
 * ws:   rt_sgemm_workspace_size(isa, M, N, K) bytes
 * M, N, K >= 0; K == 0 gives C = 0 (or C unchanged when accumulating). */
void rt_sgemm(int isa, int M, int N, int K, const float *a, size_t rsa, size_t csa, const float *ap,
              const float *b, size_t rsb, size_t csb, float *c, size_t ldc, int accumulate,
              void *ws);

/* sgemm_pack.c: packs A(i, k) = a[i*rsa + k*csa], M x K, into
 * ap [rt_sgemm_pack_a_size(isa, M, K)] (layout above). */
void rt_sgemm_pack_a(int isa, int M, int K, const float *a, size_t rsa, size_t csa, float *ap);

/* gemm_fc_pack.c: packs the constant B(k, j) = b[k*rsb + j*csb], K x N, into
 * ceil(N/NB) panels, NB = RT_FC_NB(isa): panel p starts at bp[p*NB*K] and is
 * [K][W], W = NB but for the last panel, whose W is its columns rounded up to
 * whole SIMD vectors (NB / 4: a Gemm of N = 8 streams 8 columns on AVX-512,
 * not 64); element (k, j) at bp[(j/NB)*NB*K + k*W + j%NB], columns past N
 * zero. */
static inline size_t rt_gemm_fc_pack_size(int isa, int N, int K)
{
	const size_t vl = (size_t)RT_FC_NB(isa) / 4;
	return (((size_t)N + vl - 1) / vl) * vl * (size_t)K;
}
void rt_gemm_fc_pack(int isa, int N, int K, const float *b, size_t rsb, size_t csb, float *bp);

/* sgemm_host.c: whether the running CPU (and OS) can run an ISA's kernel,
 * and the fastest one it can. */
int rt_sgemm_isa_supported(int isa);
int rt_sgemm_isa_host(void);
/* its name ("c", "avx2", "avx512", "neon") */
const char *rt_sgemm_isa_name(int isa);

#endif /* !RT_SGEMM_ISA */

#endif
