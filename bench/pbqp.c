/* bench/pbqp.c - how long the PBQP solver takes on selection instances of a
 * GoogLeNet-sized network (tests/pbqp_gen.h: 85 layer nodes, 111 edges,
 * convolutions with 5..80 raw (primitive, layout) alternatives, or 3..9 after
 * dominance pruning), and with DenseNet-style blocks that force branch and
 * bound. Prints the best and median of repeated solves per mode, and checks
 * the exact answer against GLPK on the pruned instances where dnncc was built
 * with it (glpk ms -1: not run; -g runs it everywhere).
 * Given files in the text format of passes/pbqp.c (dnncc --dump-pbqp), it
 * times those instead; -t prints the exact solver's reduction trace.
 * Usage: bench/pbqp [-n REPS (50)] [-t] [-g] [FILE.pbqp ...] */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "config.h"
#include "passes/passes.h"
#include "tests/pbqp_gen.h"

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + 1e-9 * ts.tv_nsec;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

/* Best and median wall time of reps solves, in ms. */
static void time_mode(struct pbqp *q, enum pbqp_mode mode, int reps, double *best, double *med)
{
	double *t = malloc(reps * sizeof *t);
	for (int k = 0; k < reps; k++) {
		double t0 = now();
		if (pbqp_solve(q, mode) != 0) {
			fprintf(stderr, "bench/pbqp: instance infeasible\n");
			exit(1);
		}
		t[k] = 1e3 * (now() - t0);
	}
	qsort(t, reps, sizeof *t, cmp_double);
	*best = t[0];
	*med = t[reps / 2];
	free(t);
}

/* Times one instance and prints its row; with_glpk runs the cross-check.
 * Returns 0, or 1 when the instance is infeasible or GLPK disagrees. */
static int bench_one(const char *name, struct pbqp *q, int reps, int with_glpk)
{
	if (pbqp_solve(q, PBQP_EXACT) != 0) {
		printf("%-26s infeasible\n", name);
		return 1;
	}
	double eb, em, hb, hm;
	time_mode(q, PBQP_HEURISTIC, reps, &hb, &hm);
	double fh = pbqp_objective(q);
	int rn = pbqp_get_stats(q)->n_rn;
	time_mode(q, PBQP_EXACT, reps, &eb, &em);
	double fe = pbqp_objective(q);
	const struct pbqp_stats *st = pbqp_get_stats(q);
	double glpk_ms = -1;
#ifdef HAVE_GLPK
	if (with_glpk) {
		int *s = malloc((pbqp_n_nodes(q) + 1) * sizeof *s);
		double fi, t0 = now();
		char err[200];
		if (ilp_solve_pbqp(q, s, &fi, err, sizeof err) != 0) {
			fprintf(stderr, "bench/pbqp: %s: GLPK: %s\n", name, err);
			return 1;
		}
		glpk_ms = 1e3 * (now() - t0);
		free(s);
		if (fabs(fi - fe) > 1e-9 * fabs(fe)) {
			fprintf(stderr, "bench/pbqp: %s: exact %.17g but GLPK %.17g\n", name, fe, fi);
			return 1;
		}
	}
#endif
	printf("%-26s %5d %5d %4d %4d %5ld %8.3f %8.3f %8.3f %8.3f %9.1f %.2g%%\n", name,
	       pbqp_n_nodes(q), pbqp_n_edges(q), st->n_r2, rn, st->bnb_nodes, eb, em, hb, hm,
	       glpk_ms, fe != 0 ? 100 * (fh - fe) / fabs(fe) : 0.0);
	return 0;
}

int main(int argc, char **argv)
{
	int reps = 50, trace = 0, glpk = 0, k = 1;
	for (; k < argc && argv[k][0] == '-'; k++) {
		if (!strcmp(argv[k], "-n") && k + 1 < argc) {
			reps = atoi(argv[++k]);
		} else if (!strcmp(argv[k], "-t")) {
			trace = 1;
		} else if (!strcmp(argv[k], "-g")) {
			glpk = 1;
		} else {
			fprintf(stderr, "usage: bench/pbqp [-n REPS] [-t] [-g] [FILE.pbqp ...]\n");
			return 2;
		}
	}
	if (reps < 1)
		reps = 1;
	printf("%-26s %5s %5s %4s %4s %5s %8s %8s %8s %8s %9s %s\n", "instance", "nodes", "edges",
	       "RII", "RN", "bnb", "exact", "(med)", "heur", "(med)", "glpk ms", "heur gap");
	int bad = 0;
	if (k < argc) {
		/* Instances from files, e.g. written by dnncc --dump-pbqp. */
		for (; k < argc; k++) {
			FILE *f = fopen(argv[k], "r");
			char err[200] = "";
			struct pbqp *q = f ? pbqp_read(f, err, sizeof err) : NULL;
			if (f)
				fclose(f);
			if (!q) {
				fprintf(stderr, "bench/pbqp: %s: %s\n", argv[k], f ? err : strerror(errno));
				bad = 1;
				continue;
			}
			if (trace) {
				pbqp_set_trace(q, stderr);
				pbqp_solve(q, PBQP_EXACT);
				pbqp_set_trace(q, NULL);
			}
			bad |= bench_one(argv[k], q, reps, glpk);
			pbqp_free(q);
		}
		return bad;
	}
	struct {
		const char *name;
		int min_alt, max_alt, dense_blocks;
	} cases[] = {
		{"googlenet raw", 5, 80, 0},
		{"googlenet pruned", 3, 9, 0},
		{"googlenet+2 dense raw", 5, 80, 2},
		{"googlenet+2 dense pruned", 3, 9, 2},
	};
	for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++)
		for (int seed = 1; seed <= 3; seed++) {
			struct rng r = {0x9e3779b97f4a7c15ULL * seed};
			struct pbqp *q = gen_googlenet(&r, cases[c].min_alt, cases[c].max_alt,
			                               cases[c].dense_blocks);
			char name[64];
			snprintf(name, sizeof name, "%s s%d", cases[c].name, seed);
			/* GLPK takes seconds to minutes on the raw instances. */
			bad |= bench_one(name, q, reps, glpk || cases[c].max_alt <= 9);
			pbqp_free(q);
		}
	return bad;
}
