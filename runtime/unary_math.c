/* unary_math.c - elementwise math and activation functions, one ONNX
 * operator each (enum rt_math_fn in rt_types.h lists them; the semantics are
 * those of the operator's page, https://onnx.ai/onnx/operators/onnx__NAME.html):
 *   y[i] = f(x[i]; alpha, beta)
 * Each value is computed in double and rounded to float once, so the result
 * is the correctly rounded float of the double-precision function, close to
 * the numpy reference the ONNX tests hold. */
#include "runtime/rt_types.h"

/* The ONNX formula, written so that no intermediate overflows where the
 * result is finite (Softplus and Mish of large x). */
static inline double rt_math_apply(int fn, double alpha, double beta, double v)
{
	switch (fn) {
	case RT_MATH_EXP: return exp(v);
	case RT_MATH_LOG: return log(v);
	case RT_MATH_SQRT: return sqrt(v);
	case RT_MATH_ABS: return fabs(v);
	case RT_MATH_NEG: return -v;
	case RT_MATH_RECIPROCAL: return 1.0 / v;
	case RT_MATH_FLOOR: return floor(v);
	case RT_MATH_CEIL: return ceil(v);
	case RT_MATH_ROUND: return nearbyint(v); /* default mode: to nearest, ties to even */
	case RT_MATH_SIGN: return v > 0.0 ? 1.0 : v < 0.0 ? -1.0 : v; /* keeps 0 and NaN */
	case RT_MATH_SIN: return sin(v);
	case RT_MATH_COS: return cos(v);
	case RT_MATH_TAN: return tan(v);
	case RT_MATH_ASIN: return asin(v);
	case RT_MATH_ACOS: return acos(v);
	case RT_MATH_ATAN: return atan(v);
	case RT_MATH_SINH: return sinh(v);
	case RT_MATH_COSH: return cosh(v);
	case RT_MATH_ASINH: return asinh(v);
	case RT_MATH_ACOSH: return acosh(v);
	case RT_MATH_ATANH: return atanh(v);
	case RT_MATH_ERF: return erf(v);
	/* Elu: x for x >= 0, else alpha * (exp(x) - 1) */
	case RT_MATH_ELU: return v >= 0.0 ? v : alpha * expm1(v);
	/* Selu: gamma * x for x > 0, else gamma * alpha * (exp(x) - 1) */
	case RT_MATH_SELU: return v > 0.0 ? beta * v : beta * alpha * expm1(v);
	/* Celu: max(0, x) + min(0, alpha * (exp(x / alpha) - 1)) */
	case RT_MATH_CELU: {
		double t = alpha * expm1(v / alpha);
		return (v > 0.0 ? v : 0.0) + (t > 0.0 ? 0.0 : t);
	}
	/* HardSigmoid: max(0, min(1, alpha * x + beta)) */
	case RT_MATH_HARD_SIGMOID: {
		double t = alpha * v + beta;
		return t < 0.0 ? 0.0 : t > 1.0 ? 1.0 : t;
	}
	/* HardSwish: x * max(0, min(1, x / 6 + 1 / 2)) */
	case RT_MATH_HARD_SWISH: {
		double t = v / 6.0 + 0.5;
		return v * (t < 0.0 ? 0.0 : t > 1.0 ? 1.0 : t);
	}
	/* Softplus: log(exp(x) + 1) = max(x, 0) + log1p(exp(-|x|)) */
	case RT_MATH_SOFTPLUS: return (v > 0.0 ? v : 0.0) + log1p(exp(-fabs(v)));
	/* Softsign: x / (1 + |x|) */
	case RT_MATH_SOFTSIGN: return v / (1.0 + fabs(v));
	/* Mish: x * tanh(softplus(x)) */
	case RT_MATH_MISH: return v * tanh((v > 0.0 ? v : 0.0) + log1p(exp(-fabs(v))));
	/* ThresholdedRelu: x for x > alpha, else 0 */
	case RT_MATH_THRESHOLDED_RELU: return v > alpha ? v : 0.0;
	/* Gelu: x * Phi(x) = x / 2 * (1 + erf(x / sqrt(2))), as x / 2 * erfc(-x / sqrt(2)):
	 * the same function, without 1 + erf cancelling to 0 for x below about -8 */
	case RT_MATH_GELU: return 0.5 * v * erfc(-v * 0.70710678118654752440);
	/* Gelu, approximate="tanh": x / 2 * (1 + tanh(sqrt(2 / pi) * (x + 0.044715 x^3))) */
	case RT_MATH_GELU_TANH:
		return 0.5 * v * (1.0 + tanh(0.79788456080286535588 * (v + 0.044715 * v * v * v)));
	/* Sigmoid: 1 / (1 + exp(-x)) (rt_unary_vec's reference) */
	case RT_MATH_SIGMOID: return 1.0 / (1.0 + exp(-v));
	default: return v;
	}
}

RT_FN void rt_unary_math(int fn, /* enum rt_math_fn */
                         float alpha, float beta, size_t n,
                         const float *x, /* [n] */
                         float *y)       /* out: [n]; may equal x */
{
	for (size_t i = 0; i < n; i++)
		y[i] = (float)rt_math_apply(fn, alpha, beta, x[i]);
}
