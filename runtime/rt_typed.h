/* rt_typed.h - element access for the kernels on integer, boolean and
 * float64 tensors (typed_*.c): ONNX's numeric types, numbered as
 * TensorProto.DataType numbers them, loaded as int64 or double and stored back
 * with C's conversions (integers wrap, as numpy's astype does). Copied into
 * generated code before the typed units; the inline helpers a model does not
 * call are left out. */
#ifndef RT_TYPED_H
#define RT_TYPED_H

#include <stdint.h>

#include "runtime/rt_types.h"

/* TensorProto.DataType numbers of the types generated code computes on. */
enum rt_dtype {
	RT_DT_F32 = 1,
	RT_DT_U8 = 2,
	RT_DT_I8 = 3,
	RT_DT_I32 = 6,
	RT_DT_I64 = 7,
	RT_DT_BOOL = 9,
	RT_DT_F64 = 11
};

/* rt_tbinary's operators (typed_binary.c). */
enum rt_tbinop {
	RT_TB_ADD, RT_TB_SUB, RT_TB_MUL, RT_TB_DIV, RT_TB_MOD, RT_TB_FMOD, RT_TB_MAX, RT_TB_MIN,
	RT_TB_SHL, RT_TB_SHR, RT_TB_EQ, RT_TB_LT, RT_TB_GT, RT_TB_LE, RT_TB_GE, RT_TB_AND,
	RT_TB_OR, RT_TB_XOR, RT_TB_POW
};

/* rt_tunary's operators (typed_unary.c). */
enum rt_tunop { RT_TU_NOT, RT_TU_ABS, RT_TU_NEG, RT_TU_SIGN, RT_TU_ISNAN, RT_TU_ISINF,
	        RT_TU_ISPOSINF, RT_TU_ISNEGINF };

/* Numpy broadcasting over up to three operands: operand o is read at
 * sum(idx[d] * s[o][d]) (stride 0 on a broadcast dim); the output is dense. */
struct rt_tbcast {
	int rank;
	int dims[RT_MAX_RANK];
	int s[3][RT_MAX_RANK];
};

static inline int rt_dt_is_float(int dt)
{
	return dt == RT_DT_F32 || dt == RT_DT_F64;
}

static inline int64_t rt_ld_i(int dt, const void *p, size_t i)
{
	switch (dt) {
	case RT_DT_U8:
	case RT_DT_BOOL: return ((const uint8_t *)p)[i];
	case RT_DT_I8: return ((const int8_t *)p)[i];
	case RT_DT_I32: return ((const int32_t *)p)[i];
	case RT_DT_F32: return (int64_t)((const float *)p)[i];
	case RT_DT_F64: return (int64_t)((const double *)p)[i];
	default: return ((const int64_t *)p)[i];
	}
}

static inline double rt_ld_f(int dt, const void *p, size_t i)
{
	switch (dt) {
	case RT_DT_F32: return ((const float *)p)[i];
	case RT_DT_F64: return ((const double *)p)[i];
	default: return (double)rt_ld_i(dt, p, i);
	}
}

/* Stores v, wrapping it to the width of dt (two's complement). */
static inline void rt_st_i(int dt, void *p, size_t i, int64_t v)
{
	switch (dt) {
	case RT_DT_U8: ((uint8_t *)p)[i] = (uint8_t)(uint64_t)v; break;
	case RT_DT_BOOL: ((uint8_t *)p)[i] = v != 0; break;
	case RT_DT_I8: ((int8_t *)p)[i] = (int8_t)(uint8_t)(uint64_t)v; break;
	case RT_DT_I32: ((int32_t *)p)[i] = (int32_t)(uint32_t)(uint64_t)v; break;
	case RT_DT_F32: ((float *)p)[i] = (float)v; break;
	case RT_DT_F64: ((double *)p)[i] = (double)v; break;
	default: ((int64_t *)p)[i] = v; break;
	}
}

/* Stores v; into an integer type it is truncated toward zero (NaN gives 0,
 * values beyond int64 saturate) and then wrapped. */
static inline void rt_st_f(int dt, void *p, size_t i, double v)
{
	if (dt == RT_DT_F32) {
		((float *)p)[i] = (float)v;
	} else if (dt == RT_DT_F64) {
		((double *)p)[i] = v;
	} else if (dt == RT_DT_BOOL) {
		((uint8_t *)p)[i] = v != 0.0;
	} else {
		int64_t w = v != v ? 0 : v >= 9.2233720368547758e18 ? INT64_MAX
		                      : v <= -9.2233720368547758e18 ? INT64_MIN : (int64_t)v;
		rt_st_i(dt, p, i, w);
	}
}

/* Advances idx (last dim fastest) and the operands' offsets by one output
 * element. */
static inline void rt_tbcast_next(const struct rt_tbcast *p, int *idx, ptrdiff_t *off)
{
	for (int d = p->rank - 1; d >= 0; d--) {
		for (int o = 0; o < 3; o++)
			off[o] += p->s[o][d];
		if (++idx[d] < p->dims[d])
			return;
		for (int o = 0; o < 3; o++)
			off[o] -= (ptrdiff_t)p->s[o][d] * p->dims[d];
		idx[d] = 0;
	}
}

static inline size_t rt_tbcast_count(const struct rt_tbcast *p)
{
	size_t count = 1;
	for (int d = 0; d < p->rank; d++)
		count *= (size_t)p->dims[d];
	return count;
}

#endif
