/* prep_common.c - predicates and sizes shared by several primitive families. */
#include "runtime/prep.h"

int prep_applies_any(const struct rt_conv2d *p, int variant)
{
	(void)variant;
	return p->group > 0 && p->C % p->group == 0 && p->M % p->group == 0;
}

size_t prep_ws_none(const struct rt_conv2d *p, int variant)
{
	(void)p;
	(void)variant;
	return 0;
}

int prep_is_stride1(const struct rt_conv2d *p) { return p->sH == 1 && p->sW == 1; }
int prep_is_dilation1(const struct rt_conv2d *p) { return p->dH == 1 && p->dW == 1; }
int prep_is_group1(const struct rt_conv2d *p) { return p->group == 1; }
int prep_is_depthwise(const struct rt_conv2d *p) { return p->group == p->C && p->group > 1; }
