/* concat.c - one input of ONNX Concat
 * (https://onnx.ai/onnx/operators/onnx__Concat.html). Viewing the output as
 * [outer, total] (outer: the product of the dims before the axis; total: the
 * output's axis dim times the product of the dims after it) and this input as
 * [outer, part], the input occupies columns [offset, offset + part); a Concat
 * is one call per input. */
#include "runtime/rt_types.h"

RT_FN void rt_concat_part(int outer, int part, int total, int offset,
                          const float *x, /* [outer, part] */
                          float *y)       /* out: [outer, total], columns offset.. */
{
	for (int o = 0; o < outer; o++)
		memcpy(y + (size_t)o * total + offset, x + (size_t)o * part, (size_t)part * sizeof(float));
}
