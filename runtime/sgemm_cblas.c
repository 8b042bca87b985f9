/* sgemm_cblas.c - rt_sgemm on OpenBLAS (`dnncc --blas openblas`): the same
 * contract as sgemm.c (sgemm.h), computed by cblas_sgemm. Only generated code
 * uses this unit, in place of sgemm.c and the micro-kernel; link with
 * -lopenblas. A pre-packed A (weights packed at compile time for the
 * target's MR) is multiplied panel by panel: panel p, rows p*MR .. p*MR+MR-1,
 * is a row-major [K][MR] matrix, i.e. the transpose of the MR x K block. A
 * and B given by strides go to cblas as row-major matrices, transposed when
 * their column stride is not 1; strides cblas cannot express fall back to a
 * plain loop. */
#include "runtime/sgemm.h"

#include <cblas.h>

/* How cblas reads a rows x cols matrix with element (i, j) at i*rs + j*cs:
 * 0 if it can't. */
static inline int rt_cblas_layout_(int rows, int cols, size_t rs, size_t cs,
                                   enum CBLAS_TRANSPOSE *trans, int *ld)
{
	if (cs == 1 && (rows == 1 || rs >= (size_t)cols)) {
		*trans = CblasNoTrans;
		*ld = rows == 1 ? (cols > 1 ? cols : 1) : (int)rs;
		return 1;
	}
	if (rs == 1 && (cols == 1 || cs >= (size_t)rows)) {
		*trans = CblasTrans;
		*ld = cols == 1 ? (rows > 1 ? rows : 1) : (int)cs;
		return 1;
	}
	return 0;
}

RT_FN void rt_sgemm(int isa, int M, int N, int K,
                    const float *a,  /* A(i, k) at a[i*rsa + k*csa], [M, K]; unused if ap */
                    size_t rsa, size_t csa,
                    const float *ap, /* A packed for isa's MR (sgemm.h), or NULL */
                    const float *b,  /* B(k, j) at b[k*rsb + j*csb], [K, N] */
                    size_t rsb, size_t csb,
                    float *c,        /* out: [M, N], row stride ldc */
                    size_t ldc, int accumulate,
                    void *ws)        /* unused: OpenBLAS has its own buffers */
{
	enum CBLAS_TRANSPOSE ta, tb;
	int lda, ldb;
	const float beta = accumulate ? 1.0f : 0.0f;
	const int mr = RT_SGEMM_MR(isa);
	(void)ws;
	if (M <= 0 || N <= 0)
		return;
	if (K <= 0 || !rt_cblas_layout_(K, N, rsb, csb, &tb, &ldb) ||
	    (!ap && !rt_cblas_layout_(M, K, rsa, csa, &ta, &lda))) {
		for (int i = 0; i < M; i++)
			for (int j = 0; j < N; j++) {
				float s = accumulate ? c[(size_t)i * ldc + j] : 0.0f;
				for (int k = 0; k < K; k++) {
					float av = ap ? ap[(size_t)(i / mr) * mr * K + (size_t)k * mr + i % mr]
					              : a[(size_t)i * rsa + (size_t)k * csa];
					s += av * b[(size_t)k * rsb + (size_t)j * csb];
				}
				c[(size_t)i * ldc + j] = s;
			}
		return;
	}
	if (!ap) {
		cblas_sgemm(CblasRowMajor, ta, tb, M, N, K, 1.0f, a, lda, b, ldb, beta, c, (int)ldc);
		return;
	}
	for (int ir = 0; ir < M; ir += mr) {
		const int m = M - ir < mr ? M - ir : mr;
		cblas_sgemm(CblasRowMajor, CblasTrans, tb, m, N, K, 1.0f, ap + (size_t)ir * K, mr, b, ldb,
		            beta, c + (size_t)ir * ldc, (int)ldc);
	}
}
