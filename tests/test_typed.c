/* test_typed.c - the runtime's kernels on integer, boolean and float64
 * tensors (runtime/typed_*.c), on hand-computed cases: the numbers come from
 * the ONNX operator pages and numpy's rules (integer wrap-around, Mod's sign,
 * ties in ArgMax/TopK), so each case states the answer, not a second
 * implementation of it. Every output starts poisoned, so an element a kernel
 * forgets fails. */
#include <criterion/criterion.h>
#include <stdint.h>
#include <string.h>

#include "runtime/dnncc_rt.h"

/* A rt_tbcast for same-shape 1-D operands of n elements. */
static struct rt_tbcast flat(int n)
{
	struct rt_tbcast p;
	memset(&p, 0, sizeof p);
	p.rank = 1;
	p.dims[0] = n;
	for (int o = 0; o < 3; o++)
		p.s[o][0] = 1;
	return p;
}

Test(typed, cast_wraps_truncates_and_tests_nonzero)
{
	const float x[5] = {-1.9f, 2.7f, 300.0f, 0.0f, -0.0f};
	int8_t y8[5];
	uint8_t yb[5];
	int64_t y64[5];
	memset(y8, 0x55, sizeof y8);
	rt_cast(5, RT_DT_F32, x, RT_DT_I8, y8);
	cr_expect(y8[0] == -1 && y8[1] == 2 && y8[2] == 44 && y8[3] == 0, "%d %d %d", y8[0], y8[1],
	          y8[2]); /* 300 wraps to 300 - 256 */
	rt_cast(5, RT_DT_F32, x, RT_DT_BOOL, yb);
	cr_expect(yb[0] == 1 && yb[1] == 1 && yb[3] == 0 && yb[4] == 0);
	const int32_t big[2] = {INT32_MIN, 7};
	rt_cast(2, RT_DT_I32, big, RT_DT_I64, y64);
	cr_expect(y64[0] == INT32_MIN && y64[1] == 7);
}

Test(typed, mod_follows_the_divisor_sign_and_fmod_the_dividend)
{
	const int64_t a[4] = {-7, 7, -7, 7}, b[4] = {3, -3, -3, 3};
	int64_t y[4];
	struct rt_tbcast p = flat(4);
	rt_tbinary(RT_TB_MOD, &p, RT_DT_I64, a, RT_DT_I64, b, RT_DT_I64, y);
	cr_expect(y[0] == 2 && y[1] == -2 && y[2] == -1 && y[3] == 1, "%lld %lld %lld %lld",
	          (long long)y[0], (long long)y[1], (long long)y[2], (long long)y[3]);
	rt_tbinary(RT_TB_FMOD, &p, RT_DT_I64, a, RT_DT_I64, b, RT_DT_I64, y);
	cr_expect(y[0] == -1 && y[1] == 1 && y[2] == -1 && y[3] == 1);
}

Test(typed, uint8_arithmetic_wraps_and_compares_broadcast)
{
	const uint8_t a[3] = {250, 3, 9}, b[1] = {10};
	uint8_t y[3], c[3];
	struct rt_tbcast p = flat(3);
	p.s[1][0] = 0; /* b broadcast */
	rt_tbinary(RT_TB_ADD, &p, RT_DT_U8, a, RT_DT_U8, b, RT_DT_U8, y);
	cr_expect(y[0] == 4 && y[1] == 13 && y[2] == 19);
	rt_tbinary(RT_TB_SUB, &p, RT_DT_U8, a, RT_DT_U8, b, RT_DT_U8, y);
	cr_expect(y[1] == 249, "%d", y[1]);
	rt_tbinary(RT_TB_LT, &p, RT_DT_U8, a, RT_DT_U8, b, RT_DT_BOOL, c);
	cr_expect(c[0] == 0 && c[1] == 1 && c[2] == 1);
	rt_tbinary(RT_TB_SHL, &p, RT_DT_U8, a, RT_DT_U8, (const uint8_t[]){1}, RT_DT_U8, y);
	cr_expect(y[0] == 244 && y[1] == 6 && y[2] == 18, "%d", y[0]);
}

Test(typed, where_broadcasts_condition_and_operands)
{
	const uint8_t cond[2] = {1, 0};       /* [2] broadcast over rows */
	const int64_t x[4] = {1, 2, 3, 4};    /* [2, 2] */
	const int64_t yv[1] = {-9};           /* scalar */
	int64_t out[4];
	struct rt_tbcast p;
	memset(&p, 0, sizeof p);
	p.rank = 2;
	p.dims[0] = p.dims[1] = 2;
	p.s[0][1] = 1;
	p.s[1][0] = 2;
	p.s[1][1] = 1;
	rt_where(&p, sizeof(int64_t), cond, x, yv, out);
	cr_expect(out[0] == 1 && out[1] == -9 && out[2] == 3 && out[3] == -9);
}

Test(typed, gather_negative_indices_and_axis)
{
	const float x[6] = {1, 2, 3, 4, 5, 6}; /* [2, 3], gather along axis 1 */
	const int64_t idx[2] = {-1, 0};
	float y[4];
	rt_gather(sizeof(float), x, RT_DT_I64, idx, y, 2, 3, 1, 2);
	cr_expect(y[0] == 3 && y[1] == 1 && y[2] == 6 && y[3] == 4);
}

Test(typed, argmax_first_or_last_of_ties)
{
	const int32_t x[6] = {2, 7, 7, 1, 1, 0}; /* [2, 3] along axis 1 */
	int64_t y[2];
	rt_argmax(RT_DT_I32, x, y, 2, 3, 1, 0, 0);
	cr_expect(y[0] == 1 && y[1] == 0);
	rt_argmax(RT_DT_I32, x, y, 2, 3, 1, 0, 1);
	cr_expect(y[0] == 2 && y[1] == 1);
	rt_argmax(RT_DT_I32, x, y, 2, 3, 1, 1, 1);
	cr_expect(y[0] == 0 && y[1] == 2);
}

Test(typed, topk_orders_values_and_breaks_ties_by_index)
{
	const float x[5] = {3, 9, 3, 1, 9};
	float v[3];
	int64_t i[3];
	rt_topk(RT_DT_F32, x, v, i, 1, 5, 1, 3, 1);
	cr_expect(v[0] == 9 && v[1] == 9 && v[2] == 3 && i[0] == 1 && i[1] == 4 && i[2] == 0);
	rt_topk(RT_DT_F32, x, v, i, 1, 5, 1, 2, 0);
	cr_expect(v[0] == 1 && v[1] == 3 && i[0] == 3 && i[1] == 0);
}

Test(typed, cumsum_exclusive_reverse)
{
	const int64_t x[4] = {1, 2, 3, 4};
	int64_t y[4];
	rt_cumsum(RT_DT_I64, x, y, 1, 4, 1, 0, 0);
	cr_expect(y[0] == 1 && y[1] == 3 && y[2] == 6 && y[3] == 10);
	rt_cumsum(RT_DT_I64, x, y, 1, 4, 1, 1, 1);
	cr_expect(y[0] == 9 && y[1] == 7 && y[2] == 4 && y[3] == 0);
}

Test(typed, trilu_upper_and_lower_with_k)
{
	const int64_t x[9] = {1, 2, 3, 4, 5, 6, 7, 8, 9};
	int64_t y[9];
	rt_trilu(sizeof(int64_t), x, y, 1, 3, 3, 1, 1);
	const int64_t up1[9] = {0, 2, 3, 0, 0, 6, 0, 0, 0};
	cr_expect(memcmp(y, up1, sizeof y) == 0);
	rt_trilu(sizeof(int64_t), x, y, 1, 3, 3, -1, 0);
	const int64_t lo[9] = {0, 0, 0, 4, 0, 0, 7, 8, 0};
	cr_expect(memcmp(y, lo, sizeof y) == 0);
}

Test(typed, gather_elements_along_axis_0)
{
	const float x[4] = {1, 2, 3, 4}; /* [2, 2] */
	const int32_t idx[4] = {1, 0, -2, 1};
	float y[4];
	const int d[2] = {2, 2};
	rt_gather_elements(sizeof(float), x, RT_DT_I32, idx, y, 2, d, d, 0);
	cr_expect(y[0] == 3 && y[1] == 2 && y[2] == 1 && y[3] == 4);
}

Test(typed, nll_weighted_mean_skips_ignored_targets)
{
	/* x [N=3, C=2], weights [2]: loss = -(x[0][1] w1 + x[2][0] w0) / (w1 + w0), row 1 ignored */
	const float x[6] = {-1.0f, -2.0f, -3.0f, -4.0f, -5.0f, -6.0f};
	const int64_t t[3] = {1, 7, 0};
	const float w[2] = {0.5f, 2.0f};
	float y[3];
	rt_nll(x, RT_DT_I64, t, w, y, NULL, 3, 2, 1, 2, 1, 7, 0);
	cr_expect_float_eq(y[0], (2.0f * 2.0f + 5.0f * 0.5f) / 2.5f, 1e-6f, "%g", y[0]);
	rt_nll(x, RT_DT_I64, t, NULL, y, NULL, 3, 2, 1, 0, 1, 7, 0);
	cr_expect(y[0] == 2.0f && y[1] == 0.0f && y[2] == 5.0f);
}

Test(typed, integer_pow_by_squaring_and_negative_exponents)
{
	const int64_t a[4] = {3, -2, 2, -1}, b[4] = {4, 3, -1, -3};
	int64_t y[4];
	struct rt_tbcast p = flat(4);
	rt_tbinary(RT_TB_POW, &p, RT_DT_I64, a, RT_DT_I64, b, RT_DT_I64, y);
	cr_expect(y[0] == 81 && y[1] == -8 && y[2] == 0 && y[3] == -1);
	const float base[2] = {1.5f, -2.0f};
	const int32_t e[2] = {2, 3};
	float yf[2];
	p = flat(2); /* two elements here, four above */
	rt_tbinary(RT_TB_POW, &p, RT_DT_F32, base, RT_DT_I32, e, RT_DT_F32, yf);
	cr_expect(yf[0] == 2.25f && yf[1] == -8.0f);
}

Test(typed, strided_copy_and_concat_of_int64)
{
	/* transpose of [2, 3] int64 values too large for float */
	const int64_t x[6] = {1, 2, 3, INT64_MAX, INT64_MIN, 6};
	int64_t y[6];
	struct rt_transpose t = {2, {3, 2}, {1, 3}};
	rt_tcopy(sizeof(int64_t), &t, x, y);
	cr_expect(y[0] == 1 && y[1] == INT64_MAX && y[2] == 2 && y[3] == INT64_MIN && y[4] == 3 &&
	          y[5] == 6);
	int64_t z[8];
	memset(z, 0x55, sizeof z);
	rt_tconcat_part(sizeof(int64_t), 2, 3, 4, 1, x, z);
	rt_tconcat_part(sizeof(int64_t), 2, 1, 4, 0, (const int64_t[]){-1, -2}, z);
	cr_expect(z[0] == -1 && z[1] == 1 && z[3] == 3 && z[4] == -2 && z[5] == INT64_MAX &&
	          z[7] == 6);
}
