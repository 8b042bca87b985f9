/* costs.c - where selection gets its costs: a measured cost table when the
 * user gave one (--costs, --profile), else the built-in model of
 * cost_model.c. This file owns the table's format, its reader and lookup. */
#include <stdlib.h>

#include "passes/passes.h"

double costs_primitive_us(const struct options *opt, const struct rt_prim *prim,
                          const struct rt_conv2d *p)
{
	(void)opt;
	return cost_primitive_us(prim, p);
}

double costs_transform_us(const struct options *opt, const struct rt_transform *t, int N, int C,
                          int H, int W)
{
	(void)opt;
	return cost_transform_us(t, N, C, H, W);
}

struct cost_table *cost_table_read(const char *path, struct diag *d)
{
	diag_error(d, NULL, "--costs %s: measured cost tables are not supported yet", path);
	return NULL;
}

void cost_table_free(struct cost_table *t) { (void)t; }

const char *costs_source(const struct options *opt)
{
	(void)opt;
	return "built-in cost model";
}
