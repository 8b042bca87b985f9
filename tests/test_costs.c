/* test_costs.c - the cost table of passes/costs.c: the reader's acceptance
 * of a well-formed table (header, rows, lookups, costs_source), its
 * line-numbered errors on malformed ones, write/read round trips, and
 * selection's lookups through costs_primitive_us/costs_transform_us with
 * their fallback to the built-in model and the --report counts. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "passes/passes.h"
#include "runtime/primitives.h"

/* The sample's first convolution: 1x28x28 -> 8x26x26, 3x3, relu. */
static const struct rt_conv2d conv1 = {
	.N = 1, .C = 1, .H = 28, .W = 28, .M = 8, .oH = 26, .oW = 26, .kH = 3, .kW = 3,
	.sH = 1, .sW = 1, .dH = 1, .dW = 1, .group = 1, .act = RT_ACT_RELU,
};
#define CONV1_KEY "1,1,28,28,8,26,26,3,3,1,1,1,1,0,0,1,1"

static const char header[] = "# dnncc cost table\n"
                             "# machine: Test CPU 3000\n"
                             "# isa: host (RT_SGEMM_ISA_C)\n"
                             "# compiler: cc 1.0\n"
                             "# threads: 1\n";

static char path[64];
static char messages[8192];

/* Writes text to a temporary file and reads it as a table; the reader's
 * messages land in messages[], its error count in *errors. */
static struct cost_table *read_text(const char *text, int *errors)
{
	snprintf(path, sizeof path, "/tmp/dnncc-costs-XXXXXX");
	int fd = mkstemp(path);
	cr_assert(fd >= 0);
	FILE *f = fdopen(fd, "w");
	fputs(text, f);
	fclose(f);
	FILE *out = tmpfile();
	struct diag d;
	diag_init(&d, "model.onnx", out);
	struct cost_table *t = cost_table_read(path, &d);
	rewind(out);
	size_t n = fread(messages, 1, sizeof messages - 1, out);
	messages[n] = '\0';
	fclose(out);
	unlink(path);
	*errors = d.errors;
	return t;
}

/* Asserts the table is refused with exactly one message naming the file and
 * containing want. */
static void expect_error(const char *text, const char *want)
{
	int errors;
	struct cost_table *t = read_text(text, &errors);
	cr_assert_null(t, "accepted: %s", text);
	cr_assert_eq(errors, 1, "%d errors: %s", errors, messages);
	cr_assert(strncmp(messages, path, strlen(path)) == 0, "no file name in: %s", messages);
	cr_assert(strstr(messages, want), "expected '%s' in: %s", want, messages);
}

Test(costs, reads_rows_and_header)
{
	char text[1024];
	snprintf(text, sizeof text,
	         "%s\nprim\tconv_sum2d_chw\t" CONV1_KEY "\t12.5\t12\t14\t5\n"
	         "transform\tlayout_chw_to_hwc\t1,8,26,26\t1.25\t1\t2\t9\r\n",
	         header);
	int errors;
	struct cost_table *t = read_text(text, &errors);
	cr_assert_not_null(t, "%s", messages);
	cr_assert_eq(cost_table_n_rows(t), 2);
	const struct cost_row *r = cost_table_find(t, 0, "conv_sum2d_chw", CONV1_KEY);
	cr_assert_not_null(r);
	cr_assert_float_eq(r->median_us, 12.5, 1e-9);
	cr_assert_eq(r->runs, 5);
	cr_assert_eq(r->line, 7);
	cr_assert_null(cost_table_find(t, 1, "conv_sum2d_chw", CONV1_KEY), "kinds are separate");
	cr_assert_not_null(cost_table_find(t, 1, "layout_chw_to_hwc", "1,8,26,26"));
	cr_assert_str_eq(cost_table_header(t, COST_HDR_MACHINE), "Test CPU 3000");
	struct options opt = {.costs = t};
	cr_assert(strstr(costs_source(&opt), "measured: "));
	cr_assert(strstr(costs_source(&opt), "Test CPU 3000, cc 1.0, 1 thread)"), "%s",
	          costs_source(&opt));
	cost_table_free(t);
}

Test(costs, lookups_fall_back_to_the_model_and_are_counted)
{
	char text[1024];
	snprintf(text, sizeof text, "%sprim\tconv_sum2d_chw\t" CONV1_KEY "\t0.5\t0.5\t0.5\t1\n",
	         header);
	int errors;
	struct cost_table *t = read_text(text, &errors);
	cr_assert_not_null(t, "%s", messages);
	struct options opt = {.costs = t};
	const struct rt_prim *sum2d = rt_prim_find("conv_sum2d_chw");
	const struct rt_prim *other = rt_prim_find("conv_direct_mcuvij_chw");
	cr_assert(sum2d && other);
	cr_assert_float_eq(costs_primitive_us(&opt, sum2d, &conv1), 0.5, 1e-12);
	cr_assert_float_eq(costs_primitive_us(&opt, sum2d, &conv1), 0.5, 1e-12);
	cr_assert_float_eq(costs_primitive_us(&opt, other, &conv1),
	                   cost_primitive_us(other, &conv1), 1e-9);
	struct rt_conv2d stride2 = conv1;
	stride2.sH = stride2.sW = 2;
	stride2.oH = stride2.oW = 13;
	cr_assert_float_eq(costs_primitive_us(&opt, sum2d, &stride2),
	                   cost_primitive_us(sum2d, &stride2), 1e-9, "another layer's key");
	const struct rt_transform *tr = &rt_transforms[0];
	cr_assert_float_eq(costs_transform_us(&opt, tr, 1, 8, 26, 26),
	                   cost_transform_us(tr, 1, 8, 26, 26), 1e-9);
	long measured, fallback;
	costs_usage(&opt, &measured, &fallback);
	cr_assert_eq(measured, 1, "distinct rows found");
	cr_assert_eq(fallback, 3, "distinct lookups that fell back");
	struct options none = {0};
	cr_assert_str_eq(costs_source(&none), "built-in cost model");
	cr_assert_float_eq(costs_primitive_us(&none, sum2d, &conv1), cost_primitive_us(sum2d, &conv1),
	                   1e-9);
	cost_table_free(t);
}

Test(costs, write_then_read_is_the_same_table)
{
	struct cost_table *t = cost_table_new();
	cost_table_set_header(t, COST_HDR_MACHINE, "Round Trip CPU");
	cost_table_set_header(t, COST_HDR_THREADS, "1");
	char key[256];
	costs_conv_key(&conv1, key, sizeof key);
	cr_assert_str_eq(key, CONV1_KEY);
	struct cost_row r = {.row = (char *)rt_prims[1].name, .key = key, .median_us = 3.25,
	                     .min_us = 3, .max_us = 4.5, .runs = 7};
	cr_assert_not_null(cost_table_add(t, &r));
	cr_assert_null(cost_table_add(t, &r), "a second add of one key is refused");
	struct cost_row s = {.transform = 1, .row = (char *)rt_transforms[2].name, .key = "2,3,4,5",
	                     .median_us = 0.125, .min_us = 0.125, .max_us = 0.25, .runs = 3};
	cost_table_add(t, &s);
	char out[] = "/tmp/dnncc-costs-out-XXXXXX";
	int fd = mkstemp(out);
	cr_assert(fd >= 0);
	close(fd);
	struct diag d;
	diag_init(&d, "x", stderr);
	cr_assert_eq(cost_table_write(t, out, &d), 0);
	struct cost_table *u = cost_table_read(out, &d);
	unlink(out);
	cr_assert_not_null(u);
	cr_assert_eq(cost_table_n_rows(u), 2);
	const struct cost_row *a = cost_table_find(u, 0, r.row, key);
	const struct cost_row *b = cost_table_find(u, 1, s.row, "2,3,4,5");
	cr_assert(a && b);
	cr_assert_float_eq(a->median_us, 3.25, 1e-9);
	cr_assert_float_eq(a->max_us, 4.5, 1e-9);
	cr_assert_eq(a->runs, 7);
	cr_assert_float_eq(b->min_us, 0.125, 1e-9);
	cr_assert_str_eq(cost_table_header(u, COST_HDR_MACHINE), "Round Trip CPU");
	cost_table_free(t);
	cost_table_free(u);
}

Test(costs, many_rows_stay_findable)
{
	struct cost_table *t = cost_table_new();
	char key[64];
	for (int i = 1; i <= 2000; i++) {
		costs_shape_key(1, i, 7, 7, key, sizeof key);
		struct cost_row r = {.transform = 1, .row = (char *)rt_transforms[i % rt_n_transforms].name,
		                     .key = key, .median_us = i, .min_us = i, .max_us = i, .runs = 1};
		cr_assert_not_null(cost_table_add(t, &r));
	}
	for (int i = 1; i <= 2000; i++) {
		costs_shape_key(1, i, 7, 7, key, sizeof key);
		const struct cost_row *r =
			cost_table_find(t, 1, rt_transforms[i % rt_n_transforms].name, key);
		cr_assert_not_null(r, "row %d", i);
		cr_assert_float_eq(r->median_us, i, 1e-9);
		cr_assert_null(cost_table_find(t, 1, rt_transforms[(i + 1) % rt_n_transforms].name, key));
	}
	cost_table_free(t);
}

Test(costs, missing_file)
{
	FILE *out = tmpfile();
	struct diag d;
	diag_init(&d, "model.onnx", out);
	cr_assert_null(cost_table_read("/nonexistent/costs.tsv", &d));
	cr_assert_eq(d.errors, 1);
	rewind(out);
	size_t n = fread(messages, 1, sizeof messages - 1, out);
	messages[n] = '\0';
	fclose(out);
	cr_assert(strstr(messages, "/nonexistent/costs.tsv: cannot read the cost table"), "%s",
	          messages);
}

Test(costs, wrong_field_count)
{
	expect_error("# x\nprim\tconv_sum2d_chw\t" CONV1_KEY "\t1\t1\t1\n",
	             ": line 2: expected 7 tab-separated fields");
}

Test(costs, unknown_kind)
{
	expect_error("\n\nlayer\tconv_sum2d_chw\t" CONV1_KEY "\t1\t1\t1\t1\n",
	             ": line 3: unknown kind 'layer'");
}

Test(costs, short_key)
{
	expect_error("prim\tconv_sum2d_chw\t1,1,28,28\t1\t1\t1\t1\n",
	             ": line 1: prim key '1,1,28,28': expected N,C,H,W,M");
}

Test(costs, key_with_junk)
{
	expect_error("transform\tlayout_chw_to_hwc\t1,8,26,26x\t1\t1\t1\t1\n",
	             ": line 1: transform key '1,8,26,26x'");
}

Test(costs, zero_dimension)
{
	expect_error("transform\tlayout_chw_to_hwc\t1,0,26,26\t1\t1\t1\t1\n", "must be positive");
}

Test(costs, group_must_divide)
{
	expect_error("prim\tconv_sum2d_chw\t1,3,28,28,8,26,26,3,3,1,1,1,1,0,0,2,0\t1\t1\t1\t1\n",
	             "line 1: prim key");
}

Test(costs, bad_number)
{
	expect_error("prim\tconv_sum2d_chw\t" CONV1_KEY "\tfast\t1\t1\t1\n",
	             ": line 1: median_us 'fast' is not a non-negative number");
	expect_error("prim\tconv_sum2d_chw\t" CONV1_KEY "\t1\t-1\t1\t1\n", "min_us '-1'");
	expect_error("prim\tconv_sum2d_chw\t" CONV1_KEY "\t1\t1\tinf\t1\n", "max_us 'inf'");
}

Test(costs, bad_runs)
{
	expect_error("prim\tconv_sum2d_chw\t" CONV1_KEY "\t1\t1\t1\t0\n",
	             ": line 1: runs '0' is not a positive integer");
}

Test(costs, unordered_times)
{
	expect_error("prim\tconv_sum2d_chw\t" CONV1_KEY "\t1\t2\t3\t1\n",
	             ": line 1: expected min_us <= median_us <= max_us, found 2, 1, 3");
}

Test(costs, duplicate_row_names_both_lines)
{
	expect_error("prim\tconv_sum2d_chw\t" CONV1_KEY "\t1\t1\t1\t1\n"
	             "# comment\n"
	             "prim\tconv_sum2d_chw\t" CONV1_KEY "\t2\t2\t2\t1\n",
	             ": line 3: prim conv_sum2d_chw " CONV1_KEY " repeats line 1");
}

Test(costs, the_thread_count_is_read)
{
	int errors;
	struct cost_table *t =
	    read_text("# threads: 4\nprim\tconv_sum2d_chw\t" CONV1_KEY "\t1\t1\t1\t1\n", &errors);
	cr_assert_not_null(t, "%s", messages);
	cr_expect_eq(errors, 0);
	cr_expect_eq(cost_table_threads(t), 4);
	cost_table_free(t);
	t = read_text("prim\tconv_sum2d_chw\t" CONV1_KEY "\t1\t1\t1\t1\n", &errors);
	cr_assert_not_null(t, "%s", messages);
	cr_expect_eq(cost_table_threads(t), 1, "a table without the line is one thread's");
	cost_table_free(t);
	cr_expect_eq(cost_table_threads(NULL), 1);
}

Test(costs, a_bad_thread_count_is_refused)
{
	expect_error("# threads: many\nprim\tconv_sum2d_chw\t" CONV1_KEY "\t1\t1\t1\t1\n",
	             "threads 'many' is not a positive integer");
	expect_error("# threads: 0\nprim\tconv_sum2d_chw\t" CONV1_KEY "\t1\t1\t1\t1\n",
	             "threads '0' is not a positive integer");
}

Test(costs, every_bad_line_is_reported)
{
	int errors;
	struct cost_table *t = read_text("prim\tx\n"
	                                 "prim\tconv_sum2d_chw\t" CONV1_KEY "\t1\t1\t1\t1\n"
	                                 "transform\tlayout_chw_to_hwc\t1,2,3\t1\t1\t1\t1\n",
	                                 &errors);
	cr_assert_null(t);
	cr_assert_eq(errors, 2, "%s", messages);
	cr_assert(strstr(messages, "line 1:") && strstr(messages, "line 3:"), "%s", messages);
}

Test(costs, unknown_rows_are_warned_about_and_ignored)
{
	int errors;
	struct cost_table *t = read_text("prim\tconv_from_the_future\t" CONV1_KEY "\t1\t1\t1\t1\n"
	                                 "prim\tconv_sum2d_chw\t" CONV1_KEY "\t1\t1\t1\t1\n",
	                                 &errors);
	cr_assert_not_null(t, "%s", messages);
	cr_assert_eq(errors, 0);
	cr_assert(strstr(messages, "warning: line 1: no primitive named 'conv_from_the_future'"),
	          "%s", messages);
	cr_assert_eq(cost_table_n_rows(t), 1);
	cost_table_free(t);
}

/* Kind "nonconv": a kernel row of runtime/nonconv.def on a layer, keyed by
 * nc_key; selection's lookup (costs_nonconv_us) takes the table's time for
 * that row and falls back to the model for the others. */
Test(costs, nonconv_rows_are_read_and_looked_up)
{
	struct graph *g = ir_graph_new("m.onnx");
	struct tensor *x = ir_new_tensor(g, "x", DTYPE_F32), *y = ir_new_tensor(g, "y", DTYPE_F32);
	ir_set_shape(x, 4, (const int64_t[]){1, 8, 26, 26});
	ir_set_shape(y, 4, (const int64_t[]){1, 8, 13, 13});
	struct node *n = ir_add_node(g, OP_MAXPOOL, "pool", 1, &x, 1, &y);
	static const int64_t k[2] = {2, 2}, s[2] = {2, 2}, dl[2] = {1, 1}, pads[4] = {0, 0, 0, 0};
	const int64_t *v[4] = {k, s, dl, pads};
	const char *names[4] = {"kernel_shape", "strides", "dilations", "pads"};
	for (int i = 0; i < 4; i++) {
		struct attr *a = ir_add_attr(g, n, names[i], ATTR_INTS);
		a->n = i == 3 ? 4 : 2;
		a->ints = arena_memdup(&g->arena, v[i], (size_t)a->n * sizeof(int64_t));
	}
	char key[256];
	nc_key(n, key, sizeof key);
	cr_assert_str_eq(key, "1,8,26,26,13,13,2,2,2,2,1,1,0,0,0,0,0,0");
	char text[1024];
	snprintf(text, sizeof text, "%snonconv\tnc_pool_chw8c\t%s\t0.25\t0.25\t0.25\t3\n", header,
	         key);
	int errors;
	struct cost_table *t = read_text(text, &errors);
	cr_assert_not_null(t, "%s", messages);
	struct options opt = {.costs = t, .isa = RT_SGEMM_ISA_AVX2};
	const struct nc_kernel *b8 = NULL, *chw = NULL;
	for (int i = 0; i < nc_n_kernels; i++) {
		if (strcmp(nc_kernels[i].name, "nc_pool_chw8c") == 0)
			b8 = &nc_kernels[i];
		if (strcmp(nc_kernels[i].name, "nc_pool_chw") == 0)
			chw = &nc_kernels[i];
	}
	cr_assert(b8 && chw && nc_applies(b8, n) && nc_applies(chw, n));
	cr_assert_float_eq(costs_nonconv_us(&opt, b8, n), 0.25, 1e-12);
	cr_assert_float_eq(costs_nonconv_us(&opt, chw, n), nc_model_us(chw, n, RT_SGEMM_ISA_AVX2),
	                   1e-12);
	cr_assert_gt(nc_model_us(chw, n, RT_SGEMM_ISA_AVX2), nc_model_us(b8, n, RT_SGEMM_ISA_AVX2),
	             "the model ranks the vectorised pool ahead of the scalar one");
	long measured, fallback;
	costs_usage(&opt, &measured, &fallback);
	cr_assert_eq(measured, 1);
	cr_assert_eq(fallback, 1);
	cost_table_free(t);
	ir_graph_free(g);
	expect_error("\n\nnonconv\tnc_pool_chw\t1,,2\t1\t1\t1\t1\n", ": line 3: nonconv key '1,,2'");
}

/* Kind "fc": a gemm_fc layer keyed M,N,K; costs_fc_us takes the table's time
 * for that shape and falls back to the built-in roofline for the others. */
Test(costs, fc_rows_are_read_and_looked_up)
{
	char text[1024];
	snprintf(text, sizeof text, "%sfc\tgemm_fc\t1,4096,9216\t9000.5\t8000\t9500\t3\n", header);
	int errors;
	struct cost_table *t = read_text(text, &errors);
	cr_assert_not_null(t, "%s", messages);
	struct options opt = {.costs = t, .isa = RT_SGEMM_ISA_AVX2};
	cr_assert_float_eq(costs_fc_us(&opt, 1, 4096, 9216), 9000.5, 1e-12);
	cr_assert_float_eq(costs_fc_us(&opt, 1, 1000, 4096), cost_fc_us(RT_SGEMM_ISA_AVX2, 1, 1000, 4096),
	                   1e-12);
	long measured, fallback;
	costs_usage(&opt, &measured, &fallback);
	cr_assert_eq(measured, 1);
	cr_assert_eq(fallback, 1);
	cost_table_free(t);
	expect_error("\n\nfc\tgemm_fc\t1,4096\t1\t1\t1\t1\n", ": line 3: fc key '1,4096'");
	expect_error("\n\nfc\tgemm_fc\t0,4096,9216\t1\t1\t1\t1\n", ": line 3: fc key '0,4096,9216'");
}

/* "warm" rows (a primitive timed with its workspace and output in the
 * cache): read with a prim key, looked up by costs_primitive_warm_us, which
 * falls back to the row's "prim" time (or the model) where there is none or
 * where the row has no workspace, and written back as "warm". */
Test(costs, warm_rows_are_read_looked_up_and_written)
{
	const struct rt_prim *wino = rt_prim_find("conv_winograd_f4x4_3x3_chw");
	const struct rt_prim *sum2d = rt_prim_find("conv_sum2d_chw");
	cr_assert(wino && sum2d);
	cr_assert(wino->applies(&conv1, wino->variant) && wino->ws(&conv1, wino->variant) > 0);
	cr_assert_eq(sum2d->ws(&conv1, sum2d->variant), 0);
	char text[1024];
	snprintf(text, sizeof text,
	         "%sprim\tconv_winograd_f4x4_3x3_chw\t" CONV1_KEY "\t30\t29\t31\t5\n"
	         "warm\tconv_winograd_f4x4_3x3_chw\t" CONV1_KEY "\t20\t19\t21\t5\n"
	         "prim\tconv_sum2d_chw\t" CONV1_KEY "\t50\t50\t50\t5\n"
	         "warm\tconv_sum2d_chw\t" CONV1_KEY "\t10\t10\t10\t5\n",
	         header);
	int errors;
	struct cost_table *t = read_text(text, &errors);
	cr_assert_not_null(t, "%s", messages);
	cr_assert_eq(cost_table_n_rows(t), 4);
	struct options opt = {.costs = t};
	cr_assert_float_eq(costs_primitive_us(&opt, wino, &conv1), 30, 1e-12);
	cr_assert_float_eq(costs_primitive_warm_us(&opt, wino, &conv1), 20, 1e-12);
	cr_assert_float_eq(costs_primitive_warm_us(&opt, sum2d, &conv1), 50, 1e-12,
	                   "a row without a workspace has no warm time");
	struct rt_conv2d other = conv1;
	other.M = 16;
	cr_assert_float_eq(costs_primitive_warm_us(&opt, wino, &other),
	                   cost_primitive_us(wino, &other), 1e-9, "no row: the model");
	FILE *f = tmpfile();
	cr_assert_eq(cost_table_print(t, f), 0);
	rewind(f);
	char out[2048];
	size_t n = fread(out, 1, sizeof out - 1, f);
	out[n] = '\0';
	fclose(f);
	cr_assert(strstr(out, "\nwarm\tconv_winograd_f4x4_3x3_chw\t" CONV1_KEY "\t20.000\t"), "%s", out);
	cost_table_free(t);
	expect_error("\n\nwarm\tconv_sum2d_chw\t1,2,3\t1\t1\t1\t1\n", ": line 3: warm key '1,2,3'");
}
