/* primitives.c - the primitive and transform tables, expanded from
 * primitives.def and transforms.def (library side: tests, profiler, dnncc). */
#include <string.h>

#include "runtime/dnncc_rt.h"
#include "runtime/prep.h"

enum rt_unit {
#define X(e, file) e,
#include "runtime/units.def"
#undef X
	RT_UNIT_COUNT_
};

#define UNIT(e, file, deps)
const struct rt_prim rt_prims[] = {
#define PRIM(name, fam, in, out, var, run, unit, applies, ws, packed, pack, cons, cost) \
	{#name, fam, in, out, var, #run, unit, run, applies, ws, packed, pack, cons, cost},
#define XFORM(name, from, to, run, unit)
#include "runtime/primitives.def"
#undef PRIM
#undef XFORM
};
const int rt_n_prims = sizeof rt_prims / sizeof rt_prims[0];

const struct rt_transform rt_transforms[] = {
#define PRIM(name, fam, in, out, var, run, unit, applies, ws, packed, pack, cons, cost)
#define XFORM(name, from, to, run, unit) {#name, from, to, #run, unit, run},
#include "runtime/transforms.def"
#undef PRIM
#undef XFORM
	{0, 0, 0, 0, 0, 0},
};
const int rt_n_transforms = sizeof rt_transforms / sizeof rt_transforms[0] - 1;
#undef UNIT

const char *const rt_family_names[RT_FAM_COUNT_] = {
#define X(e, s) s,
	RT_FAMILIES(X)
#undef X
};

const char *const rt_layout_names[RT_L_COUNT_] = {"chw", "hcw", "hwc", "chw8c", "chw16c"};

const struct rt_prim *rt_prim_find(const char *name)
{
	for (int i = 0; i < rt_n_prims; i++)
		if (strcmp(rt_prims[i].name, name) == 0)
			return &rt_prims[i];
	return NULL;
}

/* The RUN functions that add p->res (a fused residual, passes/fuse.c) in
 * their own store loop; every other row leaves it to a second pass over the
 * output (runtime/residual.c) and must be called with p->res NULL. */
static rt_conv_run_fn *const rt_residual_runs[] = {rt_conv_direct_vec, rt_conv_pointwise};

int rt_prim_fuses_residual(const struct rt_prim *r)
{
	for (size_t i = 0; i < sizeof rt_residual_runs / sizeof rt_residual_runs[0]; i++)
		if (r->run == rt_residual_runs[i])
			return 1;
	return 0;
}

int rt_prim_residual_in_place(const struct rt_prim *r, const struct rt_conv2d *p)
{
	/* conv_pointwise keeps a tile's whole sum in registers and stores it
	 * once, right after reading its residual; conv_direct_vec does so when
	 * the layer runs in one chunk of input channels */
	if (r->run == rt_conv_pointwise)
		return 1;
	return r->run == rt_conv_direct_vec && prep_direct_one_pass(p, r->variant);
}
