/* gemm.c - benchmark: dnncc's blocked SGEMM (runtime/sgemm.c) against
 * OpenBLAS cblas_sgemm, single-threaded, on the GEMM shapes of every
 * convolution layer of VGG-16 and ResNet-50 (batch 1, 224 x 224 input).
 *
 * A convolution in im2col form is C[M, N] = W[M, K] * col[K, N] with M = out
 * channels, N = Ho * Wo, K = C * kH * kW; a 1x1 stride-1 convolution is that
 * GEMM with col = the input itself. ResNet-50 is torchvision's (v1.5: the
 * stride of a bottleneck is on its 3x3 conv; the projection shortcut is a
 * strided 1x1). Layers with equal shapes are timed once and counted as many
 * times as they occur.
 *
 * For every shape it times, interleaved, trial by trial:
 *   dnncc      rt_sgemm packing A at run time (the same work as cblas_sgemm)
 *   prepacked  rt_sgemm with A packed beforehand, as generated code does with
 *              constant weights
 *   OpenBLAS   cblas_sgemm(RowMajor, NoTrans, NoTrans)
 * and prints the median GFLOP/s of each and the ratios to OpenBLAS, then per
 * network the ratio of total times (sum over layers of count x median).
 * Times are the process's CPU time by default: on a shared machine a
 * descheduled benchmark would otherwise charge other programs' time to
 * whichever library happened to be running (all threads of the process are
 * counted, so OpenBLAS threads could not hide); -w measures wall-clock time.
 *
 * Run it through `make bench`, which clears OPENBLAS_CORETYPE and
 * OPENBLAS_L2_SIZE (set on the project's machines, they halve OpenBLAS's
 * speed) and sets OPENBLAS_NUM_THREADS=1. Usage:
 *   gemm [-t TRIALS] [-w] [-i ISA] [-n vgg16|resnet50] [-s M,N,K]...
 * -i picks the micro-kernel (c, avx2, avx512, neon; default: the best this CPU
 * runs), -n one network, -s ad-hoc shapes instead of the networks. */
#include <cblas.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "runtime/sgemm.h"

/* OpenBLAS's own call, declared here as its cblas.h does (cblas.h of other
 * BLAS implementations lacks it). */
void openblas_set_num_threads(int num_threads);

struct shape {
	const char *layer; /* the layers it stands for */
	int M, N, K;
	int count; /* how many layers of the network have this shape */
};

static const struct shape vgg16[] = {
	{"conv1_1", 64, 50176, 27, 1},
	{"conv1_2", 64, 50176, 576, 1},
	{"conv2_1", 128, 12544, 576, 1},
	{"conv2_2", 128, 12544, 1152, 1},
	{"conv3_1", 256, 3136, 1152, 1},
	{"conv3_2,3_3", 256, 3136, 2304, 2},
	{"conv4_1", 512, 784, 2304, 1},
	{"conv4_2,4_3", 512, 784, 4608, 2},
	{"conv5_1..5_3", 512, 196, 4608, 3},
};

static const struct shape resnet50[] = {
	{"conv1 7x7/2", 64, 12544, 147, 1},
	{"res2 1x1 64>64", 64, 3136, 64, 1},
	{"res2 3x3", 64, 3136, 576, 3},
	{"res2 1x1 64>256 +proj", 256, 3136, 64, 4},
	{"res2 1x1 256>64", 64, 3136, 256, 2},
	{"res3a 1x1 256>128", 128, 3136, 256, 1},
	{"res3a 3x3/2, res3 3x3", 128, 784, 1152, 4},
	{"res3 1x1 128>512", 512, 784, 128, 4},
	{"res3a proj 1x1/2", 512, 784, 256, 1},
	{"res3 1x1 512>128", 128, 784, 512, 3},
	{"res4a 1x1 512>256", 256, 784, 512, 1},
	{"res4a 3x3/2, res4 3x3", 256, 196, 2304, 6},
	{"res4 1x1 256>1024", 1024, 196, 256, 6},
	{"res4a proj 1x1/2", 1024, 196, 512, 1},
	{"res4 1x1 1024>256", 256, 196, 1024, 5},
	{"res5a 1x1 1024>512", 512, 196, 1024, 1},
	{"res5a 3x3/2, res5 3x3", 512, 49, 4608, 3},
	{"res5 1x1 512>2048", 2048, 49, 512, 3},
	{"res5a proj 1x1/2", 2048, 49, 1024, 1},
	{"res5 1x1 2048>512", 512, 49, 2048, 2},
};

struct result {
	double t_dnncc, t_packed, t_blas; /* median seconds per call */
	double max_rel;                   /* max |dnncc - OpenBLAS| / (sum of |terms|) */
};

static clockid_t clock_id = CLOCK_PROCESS_CPUTIME_ID; /* -w: CLOCK_MONOTONIC */

static double now(void)
{
	struct timespec t;
	clock_gettime(clock_id, &t);
	return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static int cmp_double(const void *x, const void *y)
{
	double a = *(const double *)x, b = *(const double *)y;
	return (a > b) - (a < b);
}

static double median(double *v, int n)
{
	qsort(v, (size_t)n, sizeof *v, cmp_double);
	return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

static void *xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);
	if (!p) {
		fprintf(stderr, "gemm: out of memory (%zu bytes)\n", n);
		exit(1);
	}
	return p;
}

enum { DNNCC, PACKED, BLAS };

struct problem {
	int isa, M, N, K;
	const float *a;  /* [M, K] */
	const float *ap; /* a packed for isa */
	const float *b;  /* [K, N] */
	float *c;        /* [M, N] */
	void *ws;        /* rt_sgemm workspace */
};

static void run(const struct problem *p, int which)
{
	switch (which) {
	case DNNCC:
		rt_sgemm(p->isa, p->M, p->N, p->K, p->a, (size_t)p->K, 1, NULL, p->b, (size_t)p->N, 1,
		         p->c, (size_t)p->N, 0, p->ws);
		break;
	case PACKED:
		rt_sgemm(p->isa, p->M, p->N, p->K, NULL, 0, 0, p->ap, p->b, (size_t)p->N, 1, p->c,
		         (size_t)p->N, 0, p->ws);
		break;
	default:
		cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, p->M, p->N, p->K, 1.0f, p->a,
		            p->K, p->b, p->N, 0.0f, p->c, p->N);
	}
}

/* Seconds per call of `which`, one trial: enough calls to last ~20 ms. */
static double trial(const struct problem *p, int which, int calls)
{
	double t = now();
	for (int r = 0; r < calls; r++)
		run(p, which);
	return (now() - t) / calls;
}

static struct result measure(int isa, int M, int N, int K, int trials)
{
	struct result res;
	struct problem p = {isa, M, N, K, 0, 0, 0, 0, 0};
	float *a = xmalloc((size_t)M * K * sizeof *a);
	float *b = xmalloc((size_t)K * N * sizeof *b);
	float *ap = xmalloc(rt_sgemm_pack_a_size(isa, M, K) * sizeof *ap);
	float *c = xmalloc((size_t)M * N * sizeof *c);
	float *want = xmalloc((size_t)M * N * sizeof *want);
	unsigned s = 12345u;
	for (size_t i = 0; i < (size_t)M * K; i++, s = s * 1103515245u + 12345u)
		a[i] = (float)((s >> 8) & 0xFFFF) / 32768.0f - 1.0f;
	for (size_t i = 0; i < (size_t)K * N; i++, s = s * 1103515245u + 12345u)
		b[i] = (float)((s >> 8) & 0xFFFF) / 32768.0f - 1.0f;
	rt_sgemm_pack_a(isa, M, K, a, (size_t)K, 1, ap);
	p.a = a, p.ap = ap, p.b = b, p.c = c;
	p.ws = xmalloc(rt_sgemm_workspace_size(isa, M, N, K));

	/* check: dnncc against OpenBLAS, relative to K (|a|, |b| <= 1) */
	run(&p, BLAS);
	memcpy(want, c, (size_t)M * N * sizeof *c);
	res.max_rel = 0.0;
	for (int which = DNNCC; which <= PACKED; which++) {
		run(&p, which);
		for (size_t i = 0; i < (size_t)M * N; i++) {
			double e = fabs((double)c[i] - (double)want[i]) / K;
			if (!(e <= res.max_rel))
				res.max_rel = e;
		}
	}

	int calls = 1;
	double t1 = trial(&p, BLAS, 1);
	if (t1 < 0.02)
		calls = (int)(0.02 / (t1 > 1e-7 ? t1 : 1e-7)) + 1;
	double *ts[3];
	for (int w = 0; w < 3; w++)
		ts[w] = xmalloc((size_t)trials * sizeof *ts[w]);
	for (int r = 0; r < trials; r++)
		for (int w = 0; w < 3; w++) {
			const int which = (w + r) % 3; /* rotate the order against drift */
			ts[which][r] = trial(&p, which, calls);
		}
	res.t_dnncc = median(ts[DNNCC], trials);
	res.t_packed = median(ts[PACKED], trials);
	res.t_blas = median(ts[BLAS], trials);
	for (int w = 0; w < 3; w++)
		free(ts[w]);
	free(a), free(b), free(ap), free(c), free(want), free(p.ws);
	return res;
}

static double gflops(int M, int N, int K, double t)
{
	return 2.0 * M * N * K / t * 1e-9;
}

/* Times the shapes and prints one row each and the network's totals; returns
 * nonzero if a result disagreed with OpenBLAS. */
static int bench(const char *name, const struct shape *sh, int n, int isa, int trials)
{
	double tot_d = 0, tot_p = 0, tot_b = 0, worst = 1e30;
	const char *worst_layer = "";
	int bad = 0;
	printf("\n%s (%s kernel), GFLOP/s, median of %d trials:\n", name, rt_sgemm_isa_name(isa),
	       trials);
	printf("%-24s %5s %6s %5s %3s %8s %9s %8s %7s %9s\n", "layer", "M", "N", "K", "x", "dnncc",
	       "prepacked", "OpenBLAS", "ratio", "ratio-pp");
	for (int i = 0; i < n; i++) {
		const struct shape *s = &sh[i];
		struct result r = measure(isa, s->M, s->N, s->K, trials);
		const double ratio = r.t_blas / r.t_dnncc, ratio_p = r.t_blas / r.t_packed;
		printf("%-24s %5d %6d %5d %3d %8.1f %9.1f %8.1f %7.3f %9.3f%s\n", s->layer, s->M, s->N,
		       s->K, s->count, gflops(s->M, s->N, s->K, r.t_dnncc),
		       gflops(s->M, s->N, s->K, r.t_packed), gflops(s->M, s->N, s->K, r.t_blas), ratio,
		       ratio_p, r.max_rel > 1e-5 ? "  MISMATCH" : "");
		fflush(stdout);
		bad |= r.max_rel > 1e-5;
		tot_d += s->count * r.t_dnncc;
		tot_p += s->count * r.t_packed;
		tot_b += s->count * r.t_blas;
		if (ratio < worst)
			worst = ratio, worst_layer = s->layer;
	}
	printf("%s total: dnncc %.2f ms, prepacked %.2f ms, OpenBLAS %.2f ms; ratio %.3f "
	       "(prepacked %.3f); worst shape %.3f (%s)\n",
	       name, 1e3 * tot_d, 1e3 * tot_p, 1e3 * tot_b, tot_b / tot_d, tot_b / tot_p, worst,
	       worst_layer);
	return bad;
}

static int isa_by_name(const char *s)
{
	for (int isa = 0; isa < RT_SGEMM_ISA_COUNT; isa++)
		if (strcmp(s, rt_sgemm_isa_name(isa)) == 0)
			return isa;
	return -1;
}

int main(int argc, char **argv)
{
	int trials = 7, isa = rt_sgemm_isa_host(), bad = 0;
	const char *net = NULL;
	struct shape adhoc[32];
	int n_adhoc = 0;
	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "-t") == 0 && i + 1 < argc) {
			trials = atoi(argv[++i]);
		} else if (strcmp(argv[i], "-w") == 0) {
			clock_id = CLOCK_MONOTONIC;
		} else if (strcmp(argv[i], "-i") == 0 && i + 1 < argc) {
			isa = isa_by_name(argv[++i]);
			if (isa < 0 || !rt_sgemm_isa_supported(isa)) {
				fprintf(stderr, "gemm: -i %s: not a kernel this CPU runs\n", argv[i]);
				return 2;
			}
		} else if (strcmp(argv[i], "-n") == 0 && i + 1 < argc) {
			net = argv[++i];
		} else if (strcmp(argv[i], "-s") == 0 && i + 1 < argc && n_adhoc < 32) {
			struct shape *s = &adhoc[n_adhoc++];
			s->layer = argv[++i];
			s->count = 1;
			if (sscanf(argv[i], "%d,%d,%d", &s->M, &s->N, &s->K) != 3 || s->M < 1 || s->N < 1
			    || s->K < 1) {
				fprintf(stderr, "gemm: -s %s: expected M,N,K\n", argv[i]);
				return 2;
			}
		} else {
			fprintf(stderr, "usage: gemm [-t TRIALS] [-w] [-i c|avx2|avx512|neon] "
			                "[-n vgg16|resnet50] [-s M,N,K]...\n");
			return 2;
		}
	}
	if (trials < 1)
		trials = 1;
	openblas_set_num_threads(1);
	printf("dnncc sgemm vs OpenBLAS cblas_sgemm, single thread, C = A*B row-major; %s time.\n",
	       clock_id == CLOCK_MONOTONIC ? "wall-clock" : "process CPU");
	printf("OPENBLAS_CORETYPE and OPENBLAS_L2_SIZE must be unset (`make bench` runs this with\n"
	       "env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE: set, they halve OpenBLAS's speed): %s\n",
	       getenv("OPENBLAS_CORETYPE") || getenv("OPENBLAS_L2_SIZE") ? "SET, numbers are off"
	                                                                  : "unset");
	if (n_adhoc)
		return bench("shapes", adhoc, n_adhoc, isa, trials);
	if (!net || strcmp(net, "vgg16") == 0)
		bad |= bench("VGG-16", vgg16, (int)(sizeof vgg16 / sizeof vgg16[0]), isa, trials);
	if (!net || strcmp(net, "resnet50") == 0)
		bad |= bench("ResNet-50", resnet50, (int)(sizeof resnet50 / sizeof resnet50[0]), isa,
		             trials);
	if (bad)
		fprintf(stderr, "gemm: dnncc and OpenBLAS disagree (MISMATCH rows)\n");
	return bad;
}
