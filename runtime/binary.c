/* binary.c - elementwise arithmetic with broadcasting, ONNX Add, Sub, Mul,
 * Div, Pow, PRelu, and Max and Min of two inputs
 * (https://onnx.ai/onnx/operators/onnx__Add.html and siblings), numpy
 * multidirectional broadcasting:
 *   y[i] = a[sum(i[d] * sa[d])] OP b[sum(i[d] * sb[d])]
 * for every index vector i of the dense output p->dims (stride 0 on a
 * broadcast dim); rank 0 is a single element. y may equal a or b when that
 * operand is not broadcast. */
#include "runtime/rt_types.h"

static inline float rt_binary_apply(int op, float u, float v)
{
	switch (op) {
	case RT_ADD: return u + v;
	case RT_SUB: return u - v;
	case RT_MUL: return u * v;
	case RT_DIV: return u / v;
	case RT_POW: return (float)pow(u, v);
	case RT_PRELU: return u < 0.0f ? u * v : u;
	case RT_MAX: return u != u || v != v ? u + v : u > v ? u : v; /* NaN wins */
	default: return u != u || v != v ? u + v : u < v ? u : v;   /* RT_MIN */
	}
}

RT_FN void rt_binary(int op, /* enum rt_binop */
                     const struct rt_bcast *p,
                     const float *a, /* read through p->sa */
                     const float *b, /* read through p->sb */
                     float *y)       /* out: dense [p->dims] */
{
	int idx[RT_MAX_RANK] = {0}; /* current output index vector */
	ptrdiff_t ia = 0, ib = 0;   /* its a and b offsets */
	const size_t count = rt_bcast_count(p); /* number of output elements */

	for (size_t t = 0; t < count; t++) {
		y[t] = rt_binary_apply(op, a[ia], b[ib]);
		rt_bcast_next(p, idx, &ia, &ib); /* next index */
	}
}
