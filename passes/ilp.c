/* ilp.c - a PBQP instance as an integer linear program, solved by GLPK: the
 * independent cross-check of pbqp.c (--verify-ilp and the tests). This is the
 * only file that uses GLPK; without it (configure found no glpk.h or
 * libglpk) ilp_solve_pbqp reports that and returns -1.
 *
 * The formulation is the marginal (local-polytope) one, whose LP relaxation
 * is exact on trees and so much tighter than y >= x_ua + x_vb - 1:
 *   binary x_{u,a}            node u takes alternative a
 *   0 <= y_{e,a,b} <= 1       edge e = (u, v) takes the pair (a, b)
 *   minimise   sum c_u[a] x_{u,a} + sum C_e[a][b] y_{e,a,b}
 *   subject to sum_a x_{u,a} = 1                 for every node u
 *              sum_b y_{e,a,b} = x_{u,a}         for every edge e and a
 *              sum_a y_{e,a,b} = x_{v,b}         for every edge e and b
 * The y stay continuous: once the x are integral, the two marginal rows
 * force y_{e,.,.} to the single 1 at (s_u, s_v). A forbidden alternative
 * (c_u[a] = INFINITY) has its x fixed at 0, and a forbidden pair has no y at
 * all, so the marginal rows keep incompatible alternatives apart without
 * big-M constants. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "config.h"
#include "passes/passes.h"

#ifdef HAVE_GLPK
#include <glpk.h>

/* Growing triplet lists for glp_load_matrix (1-based, index 0 unused). */
struct triplets {
	int *ia, *ja;
	double *ar;
	int n, cap;
};

static void trip_add(struct triplets *t, int row, int col, double val)
{
	if (t->n + 1 >= t->cap) {
		t->cap = t->cap ? 2 * t->cap : 1024;
		t->ia = xrealloc(t->ia, t->cap * sizeof(int));
		t->ja = xrealloc(t->ja, t->cap * sizeof(int));
		t->ar = xrealloc(t->ar, t->cap * sizeof(double));
	}
	t->n++;
	t->ia[t->n] = row;
	t->ja[t->n] = col;
	t->ar[t->n] = val;
}

#endif

int ilp_solve_pbqp(const struct pbqp *q, int *choice, double *objective, char *err,
                   size_t errlen)
{
#ifndef HAVE_GLPK
	(void)q;
	(void)choice;
	(void)objective;
	snprintf(err, errlen, "dnncc was built without GLPK (install libglpk-dev and reconfigure)");
	return -1;
#else
	int n = pbqp_n_nodes(q);
	for (int u = 0; u < n; u++)
		if (pbqp_n_choices(q, u) == 0)
			return 1;
	if (n == 0) {
		*objective = 0;
		return 0;
	}
	int ne = pbqp_n_edges(q);

	glp_prob *lp = glp_create_prob();
	glp_set_obj_dir(lp, GLP_MIN);
	struct triplets t = {0};

	/* Columns: x first, then y per edge. */
	int *xcol = xmalloc(n * sizeof(int)); /* [n] column of x_{u,0} */
	for (int u = 0; u < n; u++) {
		int k = pbqp_n_choices(q, u);
		xcol[u] = glp_add_cols(lp, k);
		for (int a = 0; a < k; a++) {
			int col = xcol[u] + a;
			double c = pbqp_cost(q, u, a);
			glp_set_col_kind(lp, col, GLP_BV);
			if (isinf(c))
				glp_set_col_bnds(lp, col, GLP_FX, 0, 0);
			else
				glp_set_obj_coef(lp, col, c);
		}
	}

	/* Rows: one choice per node. */
	int row = glp_add_rows(lp, n);
	for (int u = 0; u < n; u++) {
		glp_set_row_bnds(lp, row + u, GLP_FX, 1, 1);
		for (int a = 0; a < pbqp_n_choices(q, u); a++)
			trip_add(&t, row + u, xcol[u] + a, 1);
	}
	for (int k = 0; k < ne; k++) {
		int u, v;
		const double *m;
		pbqp_edge(q, k, &u, &v, &m);
		int nu = pbqp_n_choices(q, u), nv = pbqp_n_choices(q, v);
		int rrow = glp_add_rows(lp, nu + nv); /* nu row marginals, then nv column ones */
		for (int r = 0; r < nu + nv; r++)
			glp_set_row_bnds(lp, rrow + r, GLP_FX, 0, 0);
		for (int a = 0; a < nu; a++)
			trip_add(&t, rrow + a, xcol[u] + a, -1);
		for (int b = 0; b < nv; b++)
			trip_add(&t, rrow + nu + b, xcol[v] + b, -1);
		for (int a = 0; a < nu; a++)
			for (int b = 0; b < nv; b++) {
				double c = m[a * nv + b];
				if (isinf(c) || glp_get_col_type(lp, xcol[u] + a) == GLP_FX ||
				    glp_get_col_type(lp, xcol[v] + b) == GLP_FX)
					continue;
				int col = glp_add_cols(lp, 1);
				glp_set_col_bnds(lp, col, GLP_DB, 0, 1);
				glp_set_obj_coef(lp, col, c);
				trip_add(&t, rrow + a, col, 1);
				trip_add(&t, rrow + nu + b, col, 1);
			}
	}
	glp_load_matrix(lp, t.n, t.ia, t.ja, t.ar);

	glp_iocp parm;
	glp_init_iocp(&parm);
	parm.presolve = GLP_ON;
	parm.msg_lev = GLP_MSG_OFF;
	int old_out = glp_term_out(GLP_OFF);
	int rc = glp_intopt(lp, &parm);
	glp_term_out(old_out);

	int ret;
	int status = rc == 0 ? glp_mip_status(lp) : 0;
	if (rc == GLP_ENOPFS || (rc == 0 && status == GLP_NOFEAS)) {
		ret = 1;
	} else if (rc != 0 || status != GLP_OPT) {
		snprintf(err, errlen, "ilp: GLPK's glp_intopt failed (return code %d, status %d)", rc,
		         status);
		ret = -1;
	} else {
		for (int u = 0; u < n; u++) {
			choice[u] = -1;
			for (int a = 0; a < pbqp_n_choices(q, u); a++)
				if (glp_mip_col_val(lp, xcol[u] + a) > 0.5)
					choice[u] = a;
		}
		*objective = pbqp_eval(q, choice);
		ret = 0;
	}
	glp_delete_prob(lp);
	free(t.ia);
	free(t.ja);
	free(t.ar);
	free(xcol);
	return ret;
#endif
}
