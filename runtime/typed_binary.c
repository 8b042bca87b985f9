/* typed_binary.c - elementwise operators of two inputs on any numeric type,
 * with numpy broadcasting: arithmetic on integers (Add, Sub, Mul, Div, Mod,
 * Max, Min, BitShift), the comparisons (Equal, Less, Greater, LessOrEqual,
 * GreaterOrEqual; bool out), the logical operators (And, Or, Xor on bool) and
 * Pow with an integer base or exponent (an integer power by repeated squaring,
 * wrapping; a negative exponent gives 0 unless the base is 1 or -1).
 * Floating-point inputs are computed in double, integers in int64 and wrapped
 * to the output's width (Add/Sub/Mul wrap as unsigned arithmetic, so no
 * overflow is undefined). Integer division truncates toward zero; a zero
 * divisor gives 0. Mod with fmod = 0 takes the divisor's sign (Python's %),
 * fmod = 1 the dividend's (C's % and fmod). */
#include <math.h>

#include "runtime/rt_typed.h"

static inline int64_t rt_tbinary_int(int op, int64_t u, int64_t v, int bits)
{
	switch (op) {
	case RT_TB_ADD: return (int64_t)((uint64_t)u + (uint64_t)v);
	case RT_TB_SUB: return (int64_t)((uint64_t)u - (uint64_t)v);
	case RT_TB_MUL: return (int64_t)((uint64_t)u * (uint64_t)v);
	case RT_TB_DIV: return v == 0 || (v == -1 && u == INT64_MIN) ? 0 : u / v;
	case RT_TB_MOD:
	case RT_TB_FMOD: {
		if (v == 0 || v == -1)
			return 0;
		int64_t r = u % v;
		if (op == RT_TB_MOD && r != 0 && ((r < 0) != (v < 0)))
			r += v;
		return r;
	}
	case RT_TB_MAX: return u > v ? u : v;
	case RT_TB_MIN: return u < v ? u : v;
	case RT_TB_SHL: return v < 0 || v >= bits ? 0 : (int64_t)((uint64_t)u << v);
	case RT_TB_SHR: return v < 0 || v >= bits ? 0 : (int64_t)((uint64_t)u >> v);
	case RT_TB_EQ: return u == v;
	case RT_TB_LT: return u < v;
	case RT_TB_GT: return u > v;
	case RT_TB_LE: return u <= v;
	case RT_TB_GE: return u >= v;
	case RT_TB_AND: return (u != 0) & (v != 0);
	case RT_TB_OR: return (u != 0) | (v != 0);
	case RT_TB_POW: {
		uint64_t r = 1, b = (uint64_t)u;
		if (v < 0)
			return u == 1 ? 1 : u == -1 ? ((v & 1) ? -1 : 1) : 0;
		for (; v; v >>= 1, b *= b)
			if (v & 1)
				r *= b;
		return (int64_t)r;
	}
	default: return (u != 0) ^ (v != 0); /* RT_TB_XOR */
	}
}

static inline double rt_tbinary_float(int op, double u, double v)
{
	switch (op) {
	case RT_TB_ADD: return u + v;
	case RT_TB_SUB: return u - v;
	case RT_TB_MUL: return u * v;
	case RT_TB_DIV: return u / v;
	case RT_TB_MOD: {
		double r = fmod(u, v);
		return r != 0.0 && ((r < 0.0) != (v < 0.0)) ? r + v : r;
	}
	case RT_TB_FMOD: return fmod(u, v);
	case RT_TB_MAX: return u != u || v != v ? u + v : u > v ? u : v;
	case RT_TB_MIN: return u != u || v != v ? u + v : u < v ? u : v;
	case RT_TB_EQ: return u == v;
	case RT_TB_LT: return u < v;
	case RT_TB_GT: return u > v;
	case RT_TB_LE: return u <= v;
	case RT_TB_GE: return u >= v;
	case RT_TB_AND: return (u != 0.0) & (v != 0.0);
	case RT_TB_OR: return (u != 0.0) | (v != 0.0);
	case RT_TB_XOR: return (u != 0.0) ^ (v != 0.0);
	case RT_TB_POW: return pow(u, v);
	default: return 0.0; /* shifts are integer-only */
	}
}

RT_FN void rt_tbinary(int op, /* enum rt_tbinop */
                      const struct rt_tbcast *p, /* a read through s[0], b through s[1] */
                      int at, const void *a, int bt, const void *b,
                      int yt, void *y) /* out: dense [p->dims] of yt */
{
	int idx[RT_MAX_RANK] = {0};
	ptrdiff_t off[3] = {0, 0, 0};
	size_t count = rt_tbcast_count(p);
	int bits = at == RT_DT_I64 ? 64 : at == RT_DT_I32 ? 32 : 8;
	int flt = rt_dt_is_float(at) || rt_dt_is_float(bt);
	for (size_t t = 0; t < count; t++) {
		if (flt)
			rt_st_f(yt, y, t,
			        rt_tbinary_float(op, rt_ld_f(at, a, (size_t)off[0]),
			                         rt_ld_f(bt, b, (size_t)off[1])));
		else
			rt_st_i(yt, y, t,
			        rt_tbinary_int(op, rt_ld_i(at, a, (size_t)off[0]),
			                       rt_ld_i(bt, b, (size_t)off[1]), bits));
		rt_tbcast_next(p, idx, off);
	}
}
