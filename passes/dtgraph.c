/* dtgraph.c - the DT graph of layout transforms and its cheapest chains
 * (DESIGN.md §3; Anderson & Gregg, CGO 2018, "data layout transformation
 * graph").
 *
 * Vertices are the layouts of enum rt_layout, edges the direct transform
 * routines of runtime/transforms.def. The routines are deliberately not a
 * complete graph (no CHW8c <-> CHW16c, no HCW <-> blocked), so a conversion
 * may be a chain of them; Floyd–Warshall over the transform costs for one
 * tensor shape gives the cheapest chain for every pair, INFINITY where the
 * graph has no path. */
#include <math.h>

#include "passes/passes.h"
#include "runtime/primitives.h"

_Static_assert(DT_NL == RT_L_COUNT_, "DT_NL must count enum rt_layout");

void dt_paths_compute(struct dt_paths *dp, const struct options *opt, const struct rt_transform *tr,
                      int n_tr, int N, int C, int H, int W)
{
	for (int a = 0; a < DT_NL; a++)
		for (int b = 0; b < DT_NL; b++) {
			dp->cost[a][b] = a == b ? 0 : INFINITY;
			dp->next[a][b] = dp->hop[a][b] = -1;
		}
	for (int i = 0; i < n_tr; i++) {
		double c = costs_transform_us(opt, &tr[i], N, C, H, W);
		if (tr[i].from != tr[i].to && c < dp->cost[tr[i].from][tr[i].to]) {
			dp->cost[tr[i].from][tr[i].to] = c;
			dp->next[tr[i].from][tr[i].to] = i;
			dp->hop[tr[i].from][tr[i].to] = tr[i].to;
		}
	}
	/* Floyd–Warshall: after round k, cost[a][b] is the cheapest chain whose
	 * intermediate layouts are all < k; next follows the first step. */
	for (int k = 0; k < DT_NL; k++)
		for (int a = 0; a < DT_NL; a++)
			for (int b = 0; b < DT_NL; b++)
				if (dp->cost[a][k] + dp->cost[k][b] < dp->cost[a][b]) {
					dp->cost[a][b] = dp->cost[a][k] + dp->cost[k][b];
					dp->next[a][b] = dp->next[a][k];
					dp->hop[a][b] = dp->hop[a][k];
				}
}

void dt_paths_tensor(struct dt_paths *dp, const struct options *opt, const struct tensor *t)
{
	int N = (int)t->dims[0], C = (int)t->dims[1];
	int H = t->rank == 4 ? (int)t->dims[2] : 1, W = (int)t->dims[t->rank - 1];
	dt_paths_compute(dp, opt, rt_transforms, rt_n_transforms, N, C, H, W);
}

int dt_chain(const struct dt_paths *dp, int a, int b, int *steps)
{
	if (isinf(dp->cost[a][b]))
		return -1;
	int n = 0;
	while (a != b) {
		/* a cheapest chain never revisits a layout (costs are >= 0 and a
		 * cycle is only kept when strictly cheaper, which it never is) */
		if (n == DT_NL - 1 || dp->next[a][b] < 0)
			unreachable("dtgraph: broken chain");
		steps[n++] = dp->next[a][b];
		a = dp->hop[a][b];
	}
	return n;
}

double dt_cheapest(const struct dt_paths *dp, unsigned have, int b, int *from)
{
	double best = INFINITY;
	*from = -1;
	for (int a = 0; a < DT_NL; a++)
		if ((have >> a & 1u) && dp->cost[a][b] < best) {
			best = dp->cost[a][b];
			*from = a;
		}
	return best;
}
