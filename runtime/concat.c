/* concat.c - one input of ONNX Concat
 * (https://onnx.ai/onnx/operators/onnx__Concat.html). Viewing the output as
 * [outer, total] (outer: the product of the dims before the axis; total: the
 * output's axis dim times the product of the dims after it) and this input as
 * [outer, part], the input occupies columns [offset, offset + part); a Concat
 * is one call per input. */
#include "runtime/rt_types.h"

struct rt_concat_job_ {
	int outer, part, total, offset;
	const float *x;
	float *y;
};

/* Items [begin, end): rows [outer*begin/I, outer*end/I) of the input, I =
 * RT_PARALLEL_ITEMS, or when the input has fewer rows than that (a CHW
 * Concat: one row per image), parts of its one row; either way each element
 * is copied alone, so the cut changes nothing that lands. */
static void rt_concat_items_(void *ctx, int begin, int end)
{
	const struct rt_concat_job_ *j = ctx;
	if (j->outer >= RT_PARALLEL_ITEMS) {
		const int o1 = (int)((long long)j->outer * end / RT_PARALLEL_ITEMS);
		for (int o = (int)((long long)j->outer * begin / RT_PARALLEL_ITEMS); o < o1; o++)
			memcpy(j->y + (size_t)o * j->total + j->offset, j->x + (size_t)o * j->part,
			       (size_t)j->part * sizeof(float));
		return;
	}
	const size_t e0 = (size_t)j->part * begin / RT_PARALLEL_ITEMS;
	const size_t e1 = (size_t)j->part * end / RT_PARALLEL_ITEMS;
	for (int o = 0; o < j->outer; o++)
		memcpy(j->y + (size_t)o * j->total + j->offset + e0, j->x + (size_t)o * j->part + e0,
		       (e1 - e0) * sizeof(float));
}

/* Threads take parts of the input (rt_parallel) when it is worth a split. */
RT_FN void rt_concat_part(int outer, int part, int total, int offset,
                          const float *x, /* [outer, part] */
                          float *y)       /* out: [outer, total], columns offset.. */
{
	struct rt_concat_job_ j = {outer, part, total, offset, x, y};
	if ((double)RT_PARALLEL_COPY_UNITS * outer * part < RT_PARALLEL_MIN_WORK)
		rt_concat_items_(&j, 0, RT_PARALLEL_ITEMS);
	else
		rt_parallel(rt_concat_items_, &j, RT_PARALLEL_ITEMS);
}
