/* unary.c - elementwise activations: ONNX Relu, LeakyRelu, Clip, Sigmoid and
 * Tanh (https://onnx.ai/onnx/operators/onnx__Relu.html and siblings), the same
 * functions as the epilogues fused into Conv and Gemm (rt_act_apply):
 *   y[i] = act(x[i]), alpha/beta as enum rt_act says. */
#include "runtime/rt_types.h"

RT_FN void rt_unary(int act, float alpha, float beta, size_t n,
                    const float *x, /* [n] */
                    float *y)       /* out: [n]; may equal x */
{
	for (size_t i = 0; i < n; i++)
		y[i] = rt_act_apply(act, alpha, beta, x[i]);
}
