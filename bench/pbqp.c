/* bench/pbqp.c - how long the PBQP solver takes on selection instances of a
 * GoogLeNet-sized network (tests/pbqp_gen.h: 85 layer nodes, 111 edges,
 * convolutions with 5..80 raw (primitive, layout) alternatives, or 3..9 after
 * dominance pruning), and with DenseNet-style blocks that force branch and
 * bound. Prints the best and median of repeated solves per mode, and checks
 * the exact answer against GLPK on the pruned instances where dnncc was built
 * with it (glpk ms -1: not run).
 * Usage: bench/pbqp [repetitions]   (default 50) */
#include <stdio.h>
#include <stdlib.h>
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

int main(int argc, char **argv)
{
	int reps = argc > 1 ? atoi(argv[1]) : 50;
	if (reps < 1)
		reps = 1;
	struct {
		const char *name;
		int min_alt, max_alt, dense_blocks;
	} cases[] = {
		{"googlenet raw", 5, 80, 0},
		{"googlenet pruned", 3, 9, 0},
		{"googlenet+2 dense raw", 5, 80, 2},
		{"googlenet+2 dense pruned", 3, 9, 2},
	};
	printf("%-26s %5s %5s %4s %4s %5s %8s %8s %8s %8s %9s %s\n", "instance", "nodes", "edges",
	       "RII", "RN", "bnb", "exact", "(med)", "heur", "(med)", "glpk ms", "heur gap");
	for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++)
		for (int seed = 1; seed <= 3; seed++) {
			struct rng r = {0x9e3779b97f4a7c15ULL * seed};
			struct pbqp *q = gen_googlenet(&r, cases[c].min_alt, cases[c].max_alt,
			                               cases[c].dense_blocks);
			double eb, em, hb, hm;
			time_mode(q, PBQP_HEURISTIC, reps, &hb, &hm);
			double fh = pbqp_objective(q);
			int rn = pbqp_get_stats(q)->n_rn;
			time_mode(q, PBQP_EXACT, reps, &eb, &em);
			double fe = pbqp_objective(q);
			const struct pbqp_stats *st = pbqp_get_stats(q);
			double glpk_ms = -1;
#ifdef HAVE_GLPK
			/* GLPK takes seconds to minutes on the raw instances. */
			if (cases[c].max_alt <= 9) {
				int *s = malloc(pbqp_n_nodes(q) * sizeof *s);
				double fi, t0 = now();
				char err[200];
				if (ilp_solve_pbqp(q, s, &fi, err, sizeof err) != 0) {
					fprintf(stderr, "bench/pbqp: GLPK: %s\n", err);
					return 1;
				}
				glpk_ms = 1e3 * (now() - t0);
				if (fabs(fi - fe) > 1e-9 * fe) {
					fprintf(stderr, "bench/pbqp: exact %.17g but GLPK %.17g\n", fe, fi);
					return 1;
				}
				free(s);
			}
#endif
			printf("%-22s s%d %5d %5d %4d %4d %5ld %8.3f %8.3f %8.3f %8.3f %9.1f %.2g%%\n",
			       cases[c].name, seed, pbqp_n_nodes(q), pbqp_n_edges(q), st->n_r2, rn,
			       st->bnb_nodes, eb, em, hb, hm, glpk_ms, 100 * (fh - fe) / fe);
			pbqp_free(q);
		}
	return 0;
}
