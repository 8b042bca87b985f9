/* test_caffe.c - the Caffe frontend (frontend/caffe.c): small deploy
 * definitions in both styles translated into the IR, asserted on structure
 * (ops, attributes, tensor names, shapes, graph inputs and outputs); weights
 * read from .caffemodel files this test writes with protobuf-c (matched by
 * name, shapes checked, legacy shapes, BatchNorm's factor); random weights;
 * and the error and warning messages, each with its FILE:LINE:COLUMN; and
 * Caffe's shapes against the shape pass's on the sample and BVLC nets. */
#define _XOPEN_SOURCE 700 /* realpath */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "frontend/caffe.pb-c.h"
#include "frontend/frontend.h"
#include "passes/passes.h"

/* A compile of one prototxt with its messages captured. Each Criterion test
 * runs in its own process inside a fresh temporary directory, so the model
 * is always "t.prototxt" and messages are stable. */
struct run {
	struct options opt;
	struct diag d;
	char *out;       /* messages; malloc'd by open_memstream */
	size_t out_len;
	FILE *f;
	struct graph *g; /* NULL when caffe_read failed */
	char dir[64];    /* the temporary directory, removed by run_free */
};

static void enter_tmpdir(struct run *r)
{
	strcpy(r->dir, "/tmp/dnncc_test_caffe_XXXXXX");
	cr_assert_not_null(mkdtemp(r->dir));
	cr_assert_eq(chdir(r->dir), 0);
}

static void write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");
	cr_assert_not_null(f);
	fputs(text, f);
	fclose(f);
}

static void run_opts(struct run *r, const char *text, const struct options *opt)
{
	memset(r, 0, sizeof *r);
	enter_tmpdir(r);
	write_file("t.prototxt", text);
	if (opt) {
		r->opt = *opt;
	} else {
		r->opt.random_weights = 1;
		r->opt.random_seed = 7;
	}
	r->opt.model = "t.prototxt";
	r->f = open_memstream(&r->out, &r->out_len);
	diag_init(&r->d, "t.prototxt", r->f);
	r->g = caffe_read("t.prototxt", &r->opt, &r->d);
	fflush(r->f);
	if (r->g)
		cr_assert_eq(ir_verify(r->g, "frontend", 0, &r->d), 0, "verifier");
}

static void run(struct run *r, const char *text)
{
	run_opts(r, text, NULL);
}

static void run_free(struct run *r)
{
	ir_graph_free(r->g);
	fclose(r->f);
	free(r->out);
	static const char *const files[] = {"t.prototxt", "w.caffemodel"};
	for (int i = 0; i < 2; i++) {
		char path[128];
		snprintf(path, sizeof path, "%s/%s", r->dir, files[i]);
		unlink(path);
	}
	rmdir(r->dir);
}

static struct node *node(struct graph *g, const char *name)
{
	for (int i = 0; i < g->n_nodes; i++)
		if (strcmp(g->nodes[i]->name, name) == 0)
			return g->nodes[i];
	cr_assert_fail("no node '%s'", name);
	return NULL;
}

static struct tensor *tensor(struct graph *g, const char *name)
{
	struct tensor *t = ir_find_tensor(g, name);
	cr_assert_not_null(t, "no tensor '%s'", name);
	return t;
}

static void expect_dims(const struct tensor *t, int rank, const int64_t *dims)
{
	cr_assert_eq(t->rank, rank, "rank of %s", t->name);
	for (int i = 0; i < rank; i++)
		cr_expect_eq(t->dims[i], dims[i], "%s dim %d: %lld, expected %lld", t->name, i,
		             (long long)t->dims[i], (long long)dims[i]);
}

static void expect_ints(struct node *n, const char *name, int count, const int64_t *v)
{
	const int64_t *got;
	cr_assert_eq(ir_attr_ints(n, name, &got), count, "%s.%s count", n->name, name);
	for (int i = 0; i < count; i++)
		cr_expect_eq(got[i], v[i], "%s.%s[%d]", n->name, name, i);
}

/* Fails unless the messages are exactly `expected` (lines joined with \n). */
static void expect_failure(const char *text, const char *expected)
{
	struct run r;
	run(&r, text);
	cr_expect_null(r.g, "should fail:\n%s", text);
	char want[2048];
	snprintf(want, sizeof want, "%s\n", expected);
	cr_expect_str_eq(r.out, want);
	run_free(&r);
}

#define NOTE "t.prototxt: note: no --weights given: using deterministic random weights " \
             "(seed 7); the outputs mean nothing, this is for benchmarking the architecture\n"

/* ---- structure ------------------------------------------------------------- */

Test(caffe, layer_style_with_in_place_relu)
{
	struct run r;
	run(&r, "name: \"tiny\"\n"
	        "layer { name: \"data\" type: \"Input\" top: \"data\"\n"
	        "        input_param { shape { dim: 2 dim: 3 dim: 10 dim: 10 } } }\n"
	        "layer { name: \"conv1\" type: \"Convolution\" bottom: \"data\" top: \"conv1\"\n"
	        "        param { lr_mult: 1 } param { lr_mult: 2 }\n"
	        "        convolution_param { num_output: 4 kernel_size: 3 stride: 2 pad: 1\n"
	        "                            weight_filler { type: \"xavier\" } } }\n"
	        "layer { name: \"relu1\" type: \"ReLU\" bottom: \"conv1\" top: \"conv1\" }\n");
	cr_assert_not_null(r.g, "%s", r.out);
	cr_expect_str_eq(r.out, NOTE);
	struct graph *g = r.g;
	cr_expect_str_eq(g->producer, "caffe tiny");
	cr_assert_eq(g->n_inputs, 1);
	cr_expect_str_eq(g->inputs[0]->name, "data");
	expect_dims(g->inputs[0], 4, (int64_t[]){2, 3, 10, 10});
	cr_assert_eq(g->n_nodes, 2);
	struct node *conv = node(g, "conv1");
	cr_expect_eq(conv->op, OP_CONV);
	cr_expect_eq(conv->n_inputs, 3);
	expect_dims(conv->inputs[1], 4, (int64_t[]){4, 3, 3, 3});
	expect_dims(conv->inputs[2], 1, (int64_t[]){4});
	expect_ints(conv, "kernel_shape", 2, (int64_t[]){3, 3});
	expect_ints(conv, "strides", 2, (int64_t[]){2, 2});
	expect_ints(conv, "pads", 4, (int64_t[]){1, 1, 1, 1});
	expect_ints(conv, "dilations", 2, (int64_t[]){1, 1});
	cr_expect_eq(ir_attr_int(conv, "group", 0), 1);
	/* (10 + 2 - 3) / 2 + 1 = 5 */
	expect_dims(tensor(g, "conv1"), 4, (int64_t[]){2, 4, 5, 5});
	struct node *relu = node(g, "relu1");
	cr_expect_eq(relu->op, OP_RELU);
	cr_expect_eq(relu->inputs[0], tensor(g, "conv1"));
	cr_expect_str_eq(relu->outputs[0]->name, "relu1");
	cr_assert_eq(g->n_outputs, 1);
	cr_expect_eq(g->outputs[0], relu->outputs[0]);
	cr_expect(g->outputs[0]->is_output);
	run_free(&r);
}

Test(caffe, v1_layers_style_with_input_dim)
{
	struct run r;
	run(&r, "name: \"VGG_ILSVRC_16_layers\"\n"
	        "input: \"data\"\ninput_dim: 10\ninput_dim: 3\ninput_dim: 16\ninput_dim: 16\n"
	        "layers { bottom: \"data\" top: \"conv1_1\" name: \"conv1_1\" type: CONVOLUTION\n"
	        "  blobs_lr: 1 blobs_lr: 2 weight_decay: 1 weight_decay: 0\n"
	        "  convolution_param { num_output: 8 pad: 1 kernel_size: 3 } }\n"
	        "layers { bottom: \"conv1_1\" top: \"conv1_1\" name: \"relu1_1\" type: RELU }\n"
	        "layers { bottom: \"conv1_1\" top: \"pool1\" name: \"pool1\" type: POOLING\n"
	        "  pooling_param { pool: MAX kernel_size: 2 stride: 2 } }\n"
	        "layers { bottom: \"pool1\" top: \"fc6\" name: \"fc6\" type: INNER_PRODUCT\n"
	        "  inner_product_param { num_output: 5 } }\n"
	        "layers { bottom: \"fc6\" top: \"fc6\" name: \"drop6\" type: DROPOUT\n"
	        "  dropout_param { dropout_ratio: 0.5 } }\n"
	        "layers { bottom: \"fc6\" top: \"prob\" name: \"prob\" type: SOFTMAX }\n");
	cr_assert_not_null(r.g, "%s", r.out);
	cr_expect_str_eq(r.out, NOTE);
	struct graph *g = r.g;
	expect_dims(g->inputs[0], 4, (int64_t[]){10, 3, 16, 16});
	static const enum op ops[] = {OP_CONV, OP_RELU, OP_MAXPOOL, OP_FLATTEN, OP_GEMM, OP_SOFTMAX};
	cr_assert_eq(g->n_nodes, 6);
	for (int i = 0; i < 6; i++)
		cr_expect_eq(g->nodes[i]->op, ops[i], "node %d is %s", i, ir_op_names[g->nodes[i]->op]);
	expect_dims(tensor(g, "pool1"), 4, (int64_t[]){10, 8, 8, 8});
	struct node *fc = node(g, "fc6");
	cr_expect_str_eq(fc->inputs[0]->name, "fc6/flatten");
	expect_dims(fc->inputs[0], 2, (int64_t[]){10, 512});
	expect_dims(fc->inputs[1], 2, (int64_t[]){5, 512});
	cr_expect_eq(ir_attr_int(fc, "transB", 0), 1);
	cr_expect_eq(ir_attr_int(fc, "transA", 1), 0);
	cr_expect_eq(ir_attr_float(fc, "alpha", 0), 1.0);
	cr_expect_eq(ir_attr_float(fc, "beta", 0), 1.0);
	/* Dropout disappears: the softmax reads the Gemm's output. */
	cr_expect_eq(node(g, "prob")->inputs[0], tensor(g, "fc6"));
	cr_expect_eq(ir_attr_int(node(g, "prob"), "axis", -1), 1);
	cr_expect_eq(g->opset, 13);
	run_free(&r);
}

Test(caffe, batch_override_applies_to_every_input_declaration)
{
	static const char *const nets[] = {
		"input: \"data\"\ninput_dim: 10\ninput_dim: 3\ninput_dim: 4\ninput_dim: 4\n",
		"input: \"data\"\ninput_shape { dim: 10 dim: 3 dim: 4 dim: 4 }\n",
		"layer { name: \"data\" type: \"Input\" top: \"data\"\n"
		"        input_param { shape: { dim: 10 dim: 3 dim: 4 dim: 4 } } }\n",
	};
	for (int i = 0; i < 3; i++) {
		char text[1024];
		snprintf(text, sizeof text,
		         "%slayer { name: \"s\" type: \"Sigmoid\" bottom: \"data\" top: \"s\" }\n",
		         nets[i]);
		struct options opt = {0};
		opt.random_weights = 1;
		opt.random_seed = 7;
		opt.batch = 1;
		struct run r;
		run_opts(&r, text, &opt);
		cr_assert_not_null(r.g, "%s", r.out);
		cr_assert_eq(r.g->n_inputs, 1);
		expect_dims(r.g->inputs[0], 4, (int64_t[]){1, 3, 4, 4});
		expect_dims(tensor(r.g, "s"), 4, (int64_t[]){1, 3, 4, 4});
		cr_expect_eq(r.g->nodes[0]->op, OP_SIGMOID);
		run_free(&r);
	}
}

Test(caffe, implicit_and_explicit_splits)
{
	struct run r;
	run(&r, "input: \"data\"\ninput_shape { dim: 1 dim: 2 dim: 4 dim: 4 }\n"
	        "layer { name: \"split\" type: \"Split\" bottom: \"data\" top: \"a\" top: \"b\" }\n"
	        "layer { name: \"t\" type: \"TanH\" bottom: \"a\" top: \"t\" }\n"
	        "layer { name: \"s\" type: \"Sigmoid\" bottom: \"b\" top: \"s\" }\n"
	        "layer { name: \"r\" type: \"ReLU\" bottom: \"t\" top: \"t\" }\n"
	        "layer { name: \"cat\" type: \"Concat\" bottom: \"t\" bottom: \"s\" bottom: \"data\"\n"
	        "        top: \"cat\" }\n"
	        "layer { name: \"e\" type: \"Eltwise\" bottom: \"t\" bottom: \"s\" top: \"e\"\n"
	        "        eltwise_param { operation: PROD } }\n");
	cr_assert_not_null(r.g, "%s", r.out);
	struct graph *g = r.g;
	struct tensor *data = g->inputs[0];
	cr_expect_eq(node(g, "t")->inputs[0], data);
	cr_expect_eq(node(g, "s")->inputs[0], data);
	/* After the in-place ReLU, "t" means the ReLU's output. */
	struct tensor *relu_out = node(g, "r")->outputs[0];
	struct node *cat = node(g, "cat");
	cr_assert_eq(cat->n_inputs, 3);
	cr_expect_eq(cat->inputs[0], relu_out);
	cr_expect_eq(cat->inputs[2], data);
	cr_expect_eq(ir_attr_int(cat, "axis", -1), 1);
	expect_dims(tensor(g, "cat"), 4, (int64_t[]){1, 6, 4, 4});
	struct node *e = node(g, "e");
	cr_expect_eq(e->op, OP_MUL);
	cr_expect_eq(e->inputs[0], relu_out);
	/* Outputs: what nothing reads, in the order written. */
	cr_assert_eq(g->n_outputs, 2);
	cr_expect_str_eq(g->outputs[0]->name, "cat");
	cr_expect_str_eq(g->outputs[1]->name, "e");
	run_free(&r);
}

Test(caffe, pooling_uses_caffe_ceil_rule)
{
	struct run r;
	run(&r, "input: \"data\"\ninput_shape { dim: 1 dim: 2 dim: 112 dim: 13 }\n"
	        "layer { name: \"max\" type: \"Pooling\" bottom: \"data\" top: \"max\"\n"
	        "        pooling_param { pool: MAX kernel_size: 3 stride: 2 } }\n"
	        "layer { name: \"ave\" type: \"Pooling\" bottom: \"data\" top: \"ave\"\n"
	        "        pooling_param { pool: AVE kernel_h: 3 kernel_w: 2 stride: 2 pad: 1 } }\n"
	        "layer { name: \"glob\" type: \"Pooling\" bottom: \"data\" top: \"glob\"\n"
	        "        pooling_param { pool: AVE global_pooling: true } }\n"
	        "layer { name: \"gmax\" type: \"Pooling\" bottom: \"data\" top: \"gmax\"\n"
	        "        pooling_param { global_pooling: true } }\n");
	cr_assert_not_null(r.g, "%s", r.out);
	struct graph *g = r.g;
	struct node *mx = node(g, "max");
	cr_expect_eq(mx->op, OP_MAXPOOL);
	expect_ints(mx, "kernel_shape", 2, (int64_t[]){3, 3});
	expect_ints(mx, "strides", 2, (int64_t[]){2, 2});
	expect_ints(mx, "pads", 4, (int64_t[]){0, 0, 0, 0});
	cr_expect_eq(ir_attr_int(mx, "ceil_mode", 0), 1);
	cr_expect_null(ir_attr(mx, "count_include_pad"));
	/* ceil((112 - 3) / 2) + 1 = 56 (floor would give 55); ceil(10/2)+1 = 6 */
	expect_dims(tensor(g, "max"), 4, (int64_t[]){1, 2, 56, 6});
	struct node *ave = node(g, "ave");
	cr_expect_eq(ave->op, OP_AVGPOOL);
	expect_ints(ave, "kernel_shape", 2, (int64_t[]){3, 2});
	expect_ints(ave, "pads", 4, (int64_t[]){1, 1, 1, 1});
	cr_expect_eq(ir_attr_int(ave, "count_include_pad", 0), 1);
	cr_expect_eq(ir_attr_int(ave, "ceil_mode", 0), 1);
	/* H: ceil((112 + 2 - 3) / 2) + 1 = 57, (57-1)*2 = 112 >= 112 + 1? no: 57.
	 * W: ceil((13 + 2 - 2) / 2) + 1 = 8, (8-1)*2 = 14 >= 13 + 1: drop -> 7. */
	expect_dims(tensor(g, "ave"), 4, (int64_t[]){1, 2, 57, 7});
	cr_expect_eq(node(g, "glob")->op, OP_GLOBAL_AVGPOOL);
	cr_expect_eq(node(g, "gmax")->op, OP_GLOBAL_MAXPOOL);
	expect_dims(tensor(g, "glob"), 4, (int64_t[]){1, 2, 1, 1});
	run_free(&r);
}

Test(caffe, convolution_variants)
{
	struct run r;
	run(&r, "input: \"data\"\ninput_shape { dim: 1 dim: 4 dim: 9 dim: 11 }\n"
	        "layer { name: \"g\" type: \"Convolution\" bottom: \"data\" top: \"g\"\n"
	        "  convolution_param { num_output: 6 group: 2 kernel_h: 3 kernel_w: 1\n"
	        "    stride_h: 2 stride_w: 1 pad_h: 1 pad_w: 0 bias_term: false } }\n"
	        "layer { name: \"d\" type: \"Convolution\" bottom: \"data\" top: \"d\"\n"
	        "  convolution_param { num_output: 2 kernel_size: [3, 5] dilation: 2 pad: [2, 1] } }\n"
	        "layer { name: \"h\" type: \"Convolution\" bottom: \"data\" top: \"h\"\n"
	        "  convolution_param { num_output: 2 kernel_size: 3 pad_w: 1 } }\n");
	cr_assert_not_null(r.g, "%s", r.out);
	struct graph *g = r.g;
	struct node *c = node(g, "g");
	cr_expect_eq(c->n_inputs, 2);
	expect_dims(c->inputs[1], 4, (int64_t[]){6, 2, 3, 1});
	expect_ints(c, "kernel_shape", 2, (int64_t[]){3, 1});
	expect_ints(c, "strides", 2, (int64_t[]){2, 1});
	expect_ints(c, "pads", 4, (int64_t[]){1, 0, 1, 0});
	cr_expect_eq(ir_attr_int(c, "group", 0), 2);
	expect_dims(tensor(g, "g"), 4, (int64_t[]){1, 6, 5, 11});
	struct node *d = node(g, "d");
	expect_ints(d, "kernel_shape", 2, (int64_t[]){3, 5});
	expect_ints(d, "dilations", 2, (int64_t[]){2, 2});
	expect_ints(d, "pads", 4, (int64_t[]){2, 1, 2, 1});
	/* H: (9 + 4 - 5) / 1 + 1 = 9; W: (11 + 2 - 9) + 1 = 5 */
	expect_dims(tensor(g, "d"), 4, (int64_t[]){1, 2, 9, 5});
	/* A lone pad_w: pad_h is 0, as in Caffe. */
	expect_ints(node(g, "h"), "pads", 4, (int64_t[]){0, 1, 0, 1});
	run_free(&r);
}

Test(caffe, inner_product_variants)
{
	struct run r;
	run(&r, "input: \"x\"\ninput_shape { dim: 2 dim: 6 }\n"
	        "input: \"y\"\ninput_shape { dim: 2 dim: 3 dim: 4 }\n"
	        "layer { name: \"plain\" type: \"InnerProduct\" bottom: \"x\" top: \"plain\"\n"
	        "        inner_product_param { num_output: 5 transpose: true bias_term: false } }\n"
	        "layer { name: \"ax2\" type: \"InnerProduct\" bottom: \"y\" top: \"ax2\"\n"
	        "        inner_product_param { num_output: 7 axis: -1 } }\n");
	cr_assert_not_null(r.g, "%s", r.out);
	struct graph *g = r.g;
	struct node *plain = node(g, "plain");
	cr_expect_eq(plain->inputs[0], g->inputs[0], "no Flatten for a 2-D bottom");
	cr_expect_eq(plain->n_inputs, 2);
	expect_dims(plain->inputs[1], 2, (int64_t[]){6, 5});
	cr_expect_eq(ir_attr_int(plain, "transB", 1), 0);
	/* axis 2 of [2,3,4]: Flatten(2) -> [6,4], Gemm -> [6,7], Reshape -> [2,3,7] */
	cr_expect_eq(ir_attr_int(node(g, "ax2/flatten"), "axis", 0), 2);
	expect_dims(node(g, "ax2/gemm")->outputs[0], 2, (int64_t[]){6, 7});
	struct node *rs = node(g, "ax2/reshape");
	cr_expect_eq(rs->op, OP_RESHAPE);
	const int64_t *shape = rs->inputs[1]->data;
	cr_expect_eq(rs->inputs[1]->dtype, DTYPE_I64);
	cr_expect(shape[0] == 2 && shape[1] == 3 && shape[2] == 7);
	expect_dims(tensor(g, "ax2"), 3, (int64_t[]){2, 3, 7});
	run_free(&r);
}

Test(caffe, activations_lrn_softmax_flatten)
{
	struct run r;
	run(&r, "input: \"data\"\ninput_shape { dim: 1 dim: 3 dim: 2 dim: 5 }\n"
	        "layer { name: \"leaky\" type: \"ReLU\" bottom: \"data\" top: \"leaky\"\n"
	        "        relu_param { negative_slope: 0.1 } }\n"
	        "layer { name: \"lrn\" type: \"LRN\" bottom: \"leaky\" top: \"lrn\"\n"
	        "        lrn_param { local_size: 3 alpha: 0.0001 beta: 0.75 k: 2 } }\n"
	        "layer { name: \"sm\" type: \"Softmax\" bottom: \"lrn\" top: \"sm\"\n"
	        "        softmax_param { axis: -2 } }\n"
	        "layer { name: \"fl\" type: \"Flatten\" bottom: \"sm\" top: \"fl\" }\n"
	        "layer { name: \"fl2\" type: \"Flatten\" bottom: \"sm\" top: \"fl2\"\n"
	        "        flatten_param { axis: 2 } }\n");
	cr_assert_not_null(r.g, "%s", r.out);
	struct graph *g = r.g;
	struct node *leaky = node(g, "leaky");
	cr_expect_eq(leaky->op, OP_LEAKY_RELU);
	cr_expect_eq(ir_attr_float(leaky, "alpha", 0), (double)0.1f);
	struct node *lrn = node(g, "lrn");
	cr_expect_eq(ir_attr_int(lrn, "size", 0), 3);
	cr_expect_eq(ir_attr_float(lrn, "alpha", 0), (double)0.0001f);
	cr_expect_eq(ir_attr_float(lrn, "beta", 0), 0.75);
	cr_expect_eq(ir_attr_float(lrn, "bias", 0), 2.0);
	cr_expect_eq(ir_attr_int(node(g, "sm"), "axis", -1), 2);
	cr_expect_eq(node(g, "fl")->op, OP_FLATTEN);
	expect_dims(tensor(g, "fl"), 2, (int64_t[]){1, 30});
	cr_expect_eq(node(g, "fl2/reshape")->op, OP_RESHAPE);
	expect_dims(tensor(g, "fl2"), 3, (int64_t[]){1, 3, 10});
	run_free(&r);
}

Test(caffe, eltwise_sum_with_coefficients)
{
	struct run r;
	run(&r, "input: \"a\"\ninput_shape { dim: 1 dim: 2 }\n"
	        "input: \"b\"\ninput_shape { dim: 1 dim: 2 }\n"
	        "input: \"c\"\ninput_shape { dim: 1 dim: 2 }\n"
	        "layer { name: \"sum\" type: \"Eltwise\" bottom: \"a\" bottom: \"b\" bottom: \"c\"\n"
	        "        top: \"sum\" eltwise_param { coeff: 1 coeff: -1 coeff: 0.5 } }\n"
	        "layer { name: \"plain\" type: \"Eltwise\" bottom: \"a\" bottom: \"b\" top: \"p\" }\n");
	cr_assert_not_null(r.g, "%s", r.out);
	struct graph *g = r.g;
	/* a + (-1 * b) + (0.5 * c), left to right */
	struct node *m1 = node(g, "sum/scaled1");
	cr_expect_eq(m1->op, OP_MUL);
	cr_expect_eq(m1->inputs[0], g->inputs[1]);
	cr_expect_eq(((float *)m1->inputs[1]->data)[0], -1.0f);
	struct node *m2 = node(g, "sum/scaled2");
	cr_expect_eq(((float *)m2->inputs[1]->data)[0], 0.5f);
	struct node *add1 = node(g, "sum/add1");
	cr_expect_eq(add1->op, OP_ADD);
	cr_expect_eq(add1->inputs[0], g->inputs[0]);
	cr_expect_eq(add1->inputs[1], m1->outputs[0]);
	struct node *add2 = node(g, "sum");
	cr_expect_eq(add2->inputs[0], add1->outputs[0]);
	cr_expect_eq(add2->inputs[1], m2->outputs[0]);
	cr_expect_str_eq(add2->outputs[0]->name, "sum");
	struct node *p = node(g, "plain");
	cr_expect_eq(p->op, OP_ADD);
	cr_expect_eq(g->n_nodes, 5);
	run_free(&r);
}

Test(caffe, include_and_exclude_rules)
{
	struct run r;
	run(&r, "input: \"data\"\ninput_shape { dim: 1 dim: 2 }\n"
	        "layer { name: \"train_only\" type: \"Data\" top: \"junk\" include { phase: TRAIN } }\n"
	        "layer { name: \"s\" type: \"Sigmoid\" bottom: \"data\" top: \"s\"\n"
	        "        include { phase: TEST } }\n"
	        "layer { name: \"loss\" type: \"SoftmaxWithLoss\" bottom: \"s\" top: \"loss\"\n"
	        "        exclude { phase: TEST } }\n"
	        "layer { name: \"staged\" type: \"Accuracy\" bottom: \"s\" top: \"acc\"\n"
	        "        include { stage: \"eval\" } }\n");
	cr_assert_not_null(r.g, "%s", r.out);
	cr_expect_str_eq(r.out, NOTE);
	cr_assert_eq(r.g->n_nodes, 1);
	cr_expect_str_eq(r.g->outputs[0]->name, "s");
	run_free(&r);
}

/* ---- random weights ----------------------------------------------------------- */

static const char *const conv_net =
	"input: \"data\"\ninput_shape { dim: 1 dim: 8 dim: 5 dim: 5 }\n"
	"layer { name: \"conv\" type: \"Convolution\" bottom: \"data\" top: \"conv\"\n"
	"        convolution_param { num_output: 16 kernel_size: 3 } }\n";

Test(caffe, random_weights_are_deterministic_and_bounded)
{
	struct options opt = {0};
	opt.random_weights = 1;
	opt.random_seed = 42;
	struct run a, b, c;
	run_opts(&a, conv_net, &opt);
	run_opts(&b, conv_net, &opt);
	opt.random_seed = 43;
	run_opts(&c, conv_net, &opt);
	cr_assert(a.g && b.g && c.g);
	const float *wa = node(a.g, "conv")->inputs[1]->data;
	const float *wb = node(b.g, "conv")->inputs[1]->data;
	const float *wc = node(c.g, "conv")->inputs[1]->data;
	const float *ba = node(a.g, "conv")->inputs[2]->data;
	const int n = 16 * 8 * 3 * 3;
	cr_expect(memcmp(wa, wb, n * sizeof *wa) == 0, "same seed, same weights");
	cr_expect(memcmp(wa, wc, n * sizeof *wa) != 0, "another seed, other weights");
	/* Kaiming-uniform: |w| <= sqrt(6 / fan_in), fan_in = 8 * 3 * 3, spread out. */
	float bound = sqrtf(6.0f / 72.0f), lo = 1, hi = -1;
	double mean = 0;
	for (int i = 0; i < n; i++) {
		cr_assert(fabsf(wa[i]) <= bound, "w[%d] = %g", i, wa[i]);
		lo = fminf(lo, wa[i]);
		hi = fmaxf(hi, wa[i]);
		mean += wa[i] / n;
	}
	cr_expect(lo < -0.9f * bound && hi > 0.9f * bound, "range %g..%g", lo, hi);
	cr_expect(fabs(mean) < 0.05, "mean %g", mean);
	for (int i = 0; i < 16; i++)
		cr_expect(fabsf(ba[i]) <= 1.0f / sqrtf(72.0f));
	char note[256];
	snprintf(note, sizeof note, "t.prototxt: note: no --weights given: using deterministic "
	                            "random weights (seed 42)");
	cr_expect(strncmp(a.out, note, strlen(note)) == 0, "%s", a.out);
	run_free(&a);
	run_free(&b);
	run_free(&c);
}

/* ---- .caffemodel weights -------------------------------------------------------- */

/* Builds a NetParameter for the test and writes it as a .caffemodel. */
struct model {
	Caffe__NetParameter net;
	Caffe__LayerParameter *layer[8];
	Caffe__V1LayerParameter *layers[8];
};

static void model_init(struct model *m)
{
	memset(m, 0, sizeof *m);
	caffe__net_parameter__init(&m->net);
	m->net.layer = m->layer;
	m->net.layers = m->layers;
}

/* A blob of the given shape holding first, first+1, ... (legacy: num,
 * channels, height, width instead of a shape). */
static Caffe__BlobProto *blob(int rank, const int64_t *dims, float first, int legacy)
{
	Caffe__BlobProto *b = calloc(1, sizeof *b);
	caffe__blob_proto__init(b);
	size_t n = 1;
	for (int i = 0; i < rank; i++)
		n *= dims[i];
	b->n_data = n;
	b->data = calloc(n, sizeof *b->data);
	for (size_t i = 0; i < n; i++)
		b->data[i] = first + i;
	if (legacy) {
		int32_t l4[4] = {1, 1, 1, 1};
		for (int i = 0; i < rank; i++)
			l4[4 - rank + i] = (int32_t)dims[i];
		b->has_num = b->has_channels = b->has_height = b->has_width = 1;
		b->num = l4[0];
		b->channels = l4[1];
		b->height = l4[2];
		b->width = l4[3];
	} else {
		b->shape = calloc(1, sizeof *b->shape);
		caffe__blob_shape__init(b->shape);
		b->shape->n_dim = rank;
		b->shape->dim = calloc(rank ? rank : 1, sizeof(int64_t));
		memcpy(b->shape->dim, dims, rank * sizeof(int64_t));
	}
	return b;
}

static void add_layer(struct model *m, const char *name, int n_blobs, Caffe__BlobProto **blobs)
{
	Caffe__LayerParameter *l = calloc(1, sizeof *l);
	caffe__layer_parameter__init(l);
	l->name = (char *)name;
	l->n_blobs = n_blobs;
	l->blobs = calloc(n_blobs ? n_blobs : 1, sizeof *l->blobs);
	for (int i = 0; i < n_blobs; i++)
		l->blobs[i] = blobs[i];
	m->layer[m->net.n_layer++] = l;
}

static void add_v1_layer(struct model *m, const char *name, int n_blobs, Caffe__BlobProto **blobs)
{
	Caffe__V1LayerParameter *l = calloc(1, sizeof *l);
	caffe__v1_layer_parameter__init(l);
	l->name = (char *)name;
	l->n_blobs = n_blobs;
	l->blobs = calloc(n_blobs ? n_blobs : 1, sizeof *l->blobs);
	for (int i = 0; i < n_blobs; i++)
		l->blobs[i] = blobs[i];
	m->layers[m->net.n_layers++] = l;
}

static void blobs_free(size_t n, Caffe__BlobProto **blobs)
{
	for (size_t i = 0; i < n; i++) {
		free(blobs[i]->data);
		free(blobs[i]->double_data);
		if (blobs[i]->shape)
			free(blobs[i]->shape->dim);
		free(blobs[i]->shape);
		free(blobs[i]);
	}
	free(blobs);
}

/* Writes the model and frees what the builders allocated. */
static void model_write(struct model *m, const char *path)
{
	size_t n = caffe__net_parameter__get_packed_size(&m->net);
	uint8_t *buf = malloc(n ? n : 1);
	caffe__net_parameter__pack(&m->net, buf);
	FILE *f = fopen(path, "wb");
	cr_assert_not_null(f);
	fwrite(buf, 1, n, f);
	fclose(f);
	free(buf);
	for (size_t i = 0; i < m->net.n_layer; i++) {
		blobs_free(m->layer[i]->n_blobs, m->layer[i]->blobs);
		free(m->layer[i]);
	}
	for (size_t i = 0; i < m->net.n_layers; i++) {
		blobs_free(m->layers[i]->n_blobs, m->layers[i]->blobs);
		free(m->layers[i]);
	}
}

static void run_weights(struct run *r, const char *text, struct model *m)
{
	memset(r, 0, sizeof *r);
	enter_tmpdir(r);
	write_file("t.prototxt", text);
	model_write(m, "w.caffemodel");
	r->opt.model = "t.prototxt";
	r->opt.caffe_weights = "w.caffemodel";
	r->f = open_memstream(&r->out, &r->out_len);
	diag_init(&r->d, "t.prototxt", r->f);
	r->g = caffe_read("t.prototxt", &r->opt, &r->d);
	fflush(r->f);
	if (r->g)
		cr_assert_eq(ir_verify(r->g, "frontend", 0, &r->d), 0, "verifier");
}

Test(caffe, weights_matched_by_name_with_legacy_shapes)
{
	struct model m;
	model_init(&m);
	/* An unrelated layer first, and the conv's legacy 4-D shapes. */
	add_layer(&m, "unused_loss", 0, NULL);
	add_layer(&m, "conv", 2,
	          (Caffe__BlobProto *[]){blob(4, (int64_t[]){16, 8, 3, 3}, 0.0f, 1),
	                                 blob(1, (int64_t[]){16}, 100.0f, 1)});
	struct run r;
	run_weights(&r, conv_net, &m);
	cr_assert_not_null(r.g, "%s", r.out);
	cr_expect_str_eq(r.out, "");
	const float *w = node(r.g, "conv")->inputs[1]->data;
	const float *b = node(r.g, "conv")->inputs[2]->data;
	cr_expect_eq(w[0], 0.0f);
	cr_expect_eq(w[1151], 1151.0f);
	cr_expect_eq(b[15], 115.0f);
	run_free(&r);
}

Test(caffe, weights_from_v1_layers_and_double_data)
{
	struct model m;
	model_init(&m);
	Caffe__BlobProto *wb = blob(2, (int64_t[]){3, 4}, 1.0f, 0);
	/* The same values as doubles instead of floats. */
	wb->n_double_data = wb->n_data;
	wb->double_data = calloc(wb->n_data, sizeof(double));
	for (size_t i = 0; i < wb->n_data; i++)
		wb->double_data[i] = 0.25 * i;
	wb->n_data = 0;
	add_v1_layer(&m, "fc", 2, (Caffe__BlobProto *[]){wb, blob(1, (int64_t[]){3}, -1.0f, 0)});
	add_v1_layer(&m, "extra", 1, (Caffe__BlobProto *[]){blob(1, (int64_t[]){1}, 0.0f, 0)});
	struct run r;
	run_weights(&r,
	            "input: \"x\" input_dim: 2 input_dim: 4 input_dim: 1 input_dim: 1\n"
	            "layers { name: \"fc\" type: INNER_PRODUCT bottom: \"x\" top: \"y\"\n"
	            "         inner_product_param { num_output: 3 } }\n",
	            &m);
	cr_assert_not_null(r.g, "%s", r.out);
	cr_expect_str_eq(r.out, "w.caffemodel: warning: weights of layer 'extra' are not used: the "
	                        "prototxt has no layer of that name\n");
	const float *w = node(r.g, "fc")->inputs[1]->data;
	cr_expect_eq(w[11], 2.75f);
	cr_expect_eq(((float *)node(r.g, "fc")->inputs[2]->data)[2], 1.0f);
	run_free(&r);
}

Test(caffe, batchnorm_and_scale_fold_with_moving_average_factor)
{
	struct model m;
	model_init(&m);
	add_layer(&m, "bn", 3,
	          (Caffe__BlobProto *[]){blob(1, (int64_t[]){2}, 4.0f, 0),
	                                 blob(1, (int64_t[]){2}, 8.0f, 0),
	                                 blob(1, (int64_t[]){1}, 2.0f, 0)});
	add_layer(&m, "sc", 2,
	          (Caffe__BlobProto *[]){blob(1, (int64_t[]){2}, 3.0f, 0),
	                                 blob(1, (int64_t[]){2}, -1.0f, 0)});
	add_layer(&m, "sc2", 1, (Caffe__BlobProto *[]){blob(1, (int64_t[]){2}, 5.0f, 0)});
	struct run r;
	run_weights(&r,
	            "input: \"x\" input_shape { dim: 1 dim: 2 dim: 3 dim: 3 }\n"
	            "layer { name: \"bn\" type: \"BatchNorm\" bottom: \"x\" top: \"x\"\n"
	            "        batch_norm_param { eps: 0.001 } }\n"
	            "layer { name: \"sc\" type: \"Scale\" bottom: \"x\" top: \"x\"\n"
	            "        scale_param { bias_term: true } }\n"
	            "layer { name: \"sc2\" type: \"Scale\" bottom: \"x\" top: \"y\" }\n",
	            &m);
	cr_assert_not_null(r.g, "%s", r.out);
	cr_expect_str_eq(r.out, "");
	struct graph *g = r.g;
	cr_assert_eq(g->n_nodes, 2, "BatchNorm and Scale become one node, the lone Scale a Mul");
	struct node *bn = node(g, "bn");
	cr_expect_eq(bn->op, OP_BATCHNORM);
	cr_expect_eq(ir_attr_float(bn, "epsilon", 0), (double)0.001f);
	const float *scale = bn->inputs[1]->data, *shift = bn->inputs[2]->data;
	const float *mean = bn->inputs[3]->data, *var = bn->inputs[4]->data;
	cr_expect(scale[0] == 3.0f && scale[1] == 4.0f);
	cr_expect(shift[0] == -1.0f && shift[1] == 0.0f);
	/* Caffe divides the stored sums by the factor (2). */
	cr_expect(mean[0] == 2.0f && mean[1] == 2.5f);
	cr_expect(var[0] == 4.0f && var[1] == 4.5f);
	struct node *mul = node(g, "sc2");
	cr_expect_eq(mul->op, OP_MUL);
	cr_expect_eq(mul->inputs[0], bn->outputs[0]);
	expect_dims(mul->inputs[1], 3, (int64_t[]){2, 1, 1});
	cr_expect_eq(g->outputs[0], mul->outputs[0]);
	run_free(&r);
}

Test(caffe, weight_errors_name_the_layer)
{
	struct model m;
	model_init(&m);
	add_layer(&m, "conv", 2,
	          (Caffe__BlobProto *[]){blob(4, (int64_t[]){16, 8, 3, 4}, 0.0f, 0),
	                                 blob(1, (int64_t[]){16}, 0.0f, 0)});
	struct run r;
	run_weights(&r, conv_net, &m);
	cr_expect_null(r.g);
	cr_expect_str_eq(r.out, "w.caffemodel: layer 'conv' (Convolution): blob 0 (weights) has "
	                        "shape 16x8x3x4 in the file, the prototxt implies 16x8x3x3\n");
	run_free(&r);

	model_init(&m);
	add_layer(&m, "conv", 1, (Caffe__BlobProto *[]){blob(4, (int64_t[]){16, 8, 3, 3}, 0, 0)});
	run_weights(&r, conv_net, &m);
	cr_expect_str_eq(r.out, "w.caffemodel: layer 'conv' (Convolution): 1 parameter blob in the "
	                        "file, expected 2 (weights, bias)\n");
	run_free(&r);

	model_init(&m);
	add_layer(&m, "other", 1, (Caffe__BlobProto *[]){blob(1, (int64_t[]){1}, 0, 0)});
	run_weights(&r, conv_net, &m);
	cr_expect_str_eq(r.out, "w.caffemodel: layer 'conv' (Convolution): no weights for this "
	                        "layer (no layer of that name in the file)\n");
	run_free(&r);

	model_init(&m);
	Caffe__BlobProto *short_blob = blob(1, (int64_t[]){16}, 0, 0);
	short_blob->n_data = 3;
	add_layer(&m, "conv", 2,
	          (Caffe__BlobProto *[]){blob(4, (int64_t[]){16, 8, 3, 3}, 0, 0), short_blob});
	run_weights(&r, conv_net, &m);
	cr_expect_str_eq(r.out, "w.caffemodel: layer 'conv' (Convolution): blob 1 (bias) holds 3 "
	                        "values, its shape 16 needs 16\n");
	run_free(&r);
}

Test(caffe, weights_file_that_is_not_a_caffemodel)
{
	struct run r;
	memset(&r, 0, sizeof r);
	enter_tmpdir(&r);
	write_file("t.prototxt", conv_net);
	write_file("w.caffemodel", "this is text, not protobuf\xff\xff\xff");
	r.opt.model = "t.prototxt";
	r.opt.caffe_weights = "w.caffemodel";
	r.f = open_memstream(&r.out, &r.out_len);
	diag_init(&r.d, "t.prototxt", r.f);
	r.g = caffe_read("t.prototxt", &r.opt, &r.d);
	fflush(r.f);
	cr_expect_null(r.g);
	cr_expect_str_eq(r.out, "t.prototxt: w.caffemodel is not a Caffe NetParameter in binary "
	                        "protobuf form (a .caffemodel); protobuf-c could not parse it\n");
	run_free(&r);
}

/* ---- errors and warnings ---------------------------------------------------------- */

Test(caffe, weights_are_required)
{
	struct options opt = {0};
	struct run r;
	run_opts(&r, conv_net, &opt);
	cr_expect_null(r.g);
	cr_expect_str_eq(r.out, "t.prototxt: no weights: a deploy.prototxt holds the architecture "
	                        "only; give --weights X.caffemodel, or --random-weights SEED to "
	                        "compile with deterministic random weights (for benchmarking the "
	                        "architecture)\n");
	run_free(&r);
	opt.random_weights = 1;
	opt.caffe_weights = "w.caffemodel";
	run_opts(&r, conv_net, &opt);
	cr_expect_null(r.g);
	cr_expect_str_eq(r.out, "t.prototxt: give either --weights w.caffemodel or --random-weights "
	                        "0, not both\n");
	run_free(&r);
}

Test(caffe, unsupported_layer_types)
{
	expect_failure("input: \"data\"\ninput_shape { dim: 1 dim: 2 }\n"
	               "layer { name: \"p\" type: \"PReLU\" bottom: \"data\" top: \"p\" }\n",
	               "t.prototxt:3:1: layer 'p' (PReLU): layer type PReLU is not supported "
	               "(supported: Input, Convolution, Pooling, InnerProduct, ReLU, Sigmoid, TanH, "
	               "LRN, Concat, Eltwise, BatchNorm, Scale, Dropout, Softmax, Flatten, Split)");
	expect_failure("input: \"data\"\ninput_dim: 1 input_dim: 1 input_dim: 1 input_dim: 1\n"
	               "layers { name: \"d\" type: DATA top: \"data2\" }\n",
	               "t.prototxt:3:1: layer 'd' (Data): layer type Data belongs in a training "
	               "definition: compile the deploy.prototxt");
	expect_failure("input: \"data\"\ninput_shape { dim: 1 dim: 2 }\n"
	               "layers { name: \"x\" type: WARP top: \"y\" }\n",
	               "t.prototxt:3:20: layer 'x' (?): type: unknown V1 layer type 'WARP'");
}

Test(caffe, unsupported_parameters)
{
	expect_failure("input: \"data\"\ninput_shape { dim: 1 dim: 2 }\n"
	               "layer { name: \"m\" type: \"Eltwise\" bottom: \"data\" bottom: \"data\"\n"
	               "        top: \"m\" eltwise_param { operation: MAX } }\n",
	               "t.prototxt:4:34: layer 'm' (Eltwise): operation MAX is not supported: the "
	               "IR has no element-wise maximum (ONNX Max), and rewriting it as b + Relu(a - "
	               "b) would not be exact");
	expect_failure("input: \"data\"\ninput_shape { dim: 1 dim: 2 dim: 3 dim: 3 }\n"
	               "layer { name: \"n\" type: \"LRN\" bottom: \"data\" top: \"n\"\n"
	               "        lrn_param { norm_region: WITHIN_CHANNEL } }\n",
	               "t.prototxt:4:21: layer 'n' (LRN): norm_region WITHIN_CHANNEL is not "
	               "supported: the IR's LRN (ONNX) normalises across channels only");
	expect_failure("input: \"data\"\ninput_shape { dim: 1 dim: 2 dim: 9 dim: 9 }\n"
	               "layer { name: \"p\" type: \"Pooling\" bottom: \"data\" top: \"p\"\n"
	               "        pooling_param { pool: STOCHASTIC kernel_size: 2 } }\n",
	               "t.prototxt:4:25: layer 'p' (Pooling): pool: STOCHASTIC pooling is not "
	               "supported (its test-time form weights by activation; the IR has MAX and AVE "
	               "pooling)");
}

Test(caffe, unknown_enum_and_bad_values_have_positions)
{
	expect_failure("input: \"data\"\ninput_shape { dim: 1 dim: 2 dim: 9 dim: 9 }\n"
	               "layer { name: \"p\" type: \"Pooling\" bottom: \"data\" top: \"p\"\n"
	               "  pooling_param {\n    pool: MEDIAN kernel_size: 2 } }\n",
	               "t.prototxt:5:5: layer 'p' (Pooling): pool: unknown enum value 'MEDIAN' "
	               "(expected MAX, AVE or STOCHASTIC)");
	expect_failure("input: \"data\"\ninput_shape { dim: 1 dim: 2 dim: 9 dim: 9 }\n"
	               "layer { name: \"c\" type: \"Convolution\" bottom: \"data\" top: \"c\"\n"
	               "  convolution_param { num_output: 2.5 kernel_size: 3 } }\n",
	               "t.prototxt:4:23: layer 'c' (Convolution): num_output: expected an integer, "
	               "found '2.5'");
	expect_failure("input: \"data\"\ninput_shape { dim: 1 dim: 2 dim: 9 dim: 9 }\n"
	               "layer { name: \"c\" type: \"Convolution\" bottom: \"data\" top: \"c\"\n"
	               "  convolution_param { num_output: 2 kernel_size: 3 bias_term: maybe } }\n",
	               "t.prototxt:4:52: layer 'c' (Convolution): bias_term: expected true or false, "
	               "found an identifier 'maybe'");
	expect_failure("input: \"data\"\ninput_shape { dim: 1 dim: 2 dim: 9 dim: 9 }\n"
	               "layer { name: \"c\" type: Convolution bottom: \"data\" top: \"c\" }\n",
	               "t.prototxt:3:19: layer 'c' (?): type: expected a quoted string, found an "
	               "identifier");
	expect_failure("input: \"data\"\ninput_shape { dim: 1 dim: 2 dim: 9 dim: 9 }\n"
	               "layer { name: \"r\" type: \"ReLU\" bottom: \"data\" top: \"r\"\n"
	               "        relu_param { negative_slope: 0.1 negative_slope: 0.2 } }\n",
	               "t.prototxt:4:42: layer 'r' (ReLU): field 'negative_slope' given twice "
	               "(first at line 4)");
}

Test(caffe, syntax_errors_come_from_the_parser)
{
	expect_failure("layer {\n  name: \"a\"\n", "t.prototxt:3:1: expected '}' to close 'layer' "
	                                             "opened at 1:7, found end of file");
}

Test(caffe, graph_errors)
{
	expect_failure("input: \"data\"\ninput_shape { dim: 1 dim: 2 }\n"
	               "layer { name: \"s\" type: \"Sigmoid\" bottom: \"nope\" top: \"s\" }\n",
	               "t.prototxt:3:35: layer 's' (Sigmoid): bottom 'nope' is not an input and no "
	               "earlier layer writes it");
	expect_failure("input: \"data\"\ninput_shape { dim: 1 dim: 2 }\n"
	               "layer { name: \"s\" type: \"Sigmoid\" bottom: \"data\" top: \"s\" }\n"
	               "layer { name: \"t\" type: \"TanH\" bottom: \"data\" top: \"s\" }\n",
	               "t.prototxt:4:47: layer 't' (TanH): top 's' is already written by layer 's': "
	               "Caffe rewrites a blob only in place (top 0 equal to bottom 0)");
	expect_failure("input: \"data\"\ninput_shape { dim: 1 dim: 2 }\n"
	               "layer { name: \"s\" type: \"Sigmoid\" bottom: \"data\" top: \"s\" }\n"
	               "layer { name: \"s\" type: \"TanH\" bottom: \"s\" top: \"t\" }\n",
	               "t.prototxt:4:9: layer 's' (TanH): a layer of this name already exists (line "
	               "3)");
	expect_failure("input: \"data\"\ninput_dim: 1 input_dim: 3\n"
	               "layer { name: \"s\" type: \"Sigmoid\" bottom: \"data\" top: \"s\" }\n",
	               "t.prototxt:2:1: 2 input_dim values for 1 input: give four (num, channels, "
	               "height, width) per input, or an input_shape");
	expect_failure("input: \"a\"\ninput_shape { dim: 1 dim: 2 }\n"
	               "input: \"b\"\ninput_shape { dim: 1 dim: 3 }\n"
	               "layer { name: \"e\" type: \"Eltwise\" bottom: \"a\" bottom: \"b\" top: \"e\" }\n",
	               "t.prototxt:5:47: layer 'e' (Eltwise): bottom 'b' has shape 1x3, 'a' has 1x2: "
	               "Eltwise needs equal shapes");
	expect_failure("input: \"data\"\ninput_shape { dim: 1 dim: 2 dim: 5 dim: 5 }\n"
	               "layer { name: \"c\" type: \"Convolution\" bottom: \"data\" top: \"c\"\n"
	               "  convolution_param { num_output: 3 group: 2 kernel_size: 1 } }\n",
	               "t.prototxt:3:1: layer 'c' (Convolution): group 2 must divide both the input "
	               "channels (2) and num_output (3)");
	expect_failure("input: \"data\"\ninput_shape { dim: 1 dim: 2 dim: 5 dim: 5 }\n"
	               "layer { name: \"p\" type: \"Pooling\" bottom: \"data\" top: \"p\"\n"
	               "  pooling_param { kernel_size: 1 stride: 3 } }\n",
	               "t.prototxt:3:1: layer 'p' (Pooling): with kernel 1 smaller than stride 3 and "
	               "no padding, Caffe's last window lies entirely outside the input (3 outputs); "
	               "the IR's pooling does not produce such windows");
	expect_failure("input: \"data\"\ninput_shape { dim: 1 dim: 2 }\n"
	               "layer { name: \"a\" type: \"Sigmoid\" bottom: \"data\" top: \"s\" top: \"t\" }\n",
	               "t.prototxt:3:1: layer 'a' (Sigmoid): 2 tops, expected 1");
}

Test(caffe, every_problem_is_reported_in_one_run)
{
	expect_failure("input: \"data\"\ninput_shape { dim: 1 dim: 2 }\n"
	               "layer { name: \"p\" type: \"PReLU\" bottom: \"data\" top: \"p\" }\n"
	               "layer { name: \"q\" type: \"Sigmoid\" bottom: \"p\" top: \"q\" }\n"
	               "layer { name: \"r\" type: \"Sigmoid\" bottom: \"missing\" top: \"r\" }\n",
	               "t.prototxt:3:1: layer 'p' (PReLU): layer type PReLU is not supported "
	               "(supported: Input, Convolution, Pooling, InnerProduct, ReLU, Sigmoid, TanH, "
	               "LRN, Concat, Eltwise, BatchNorm, Scale, Dropout, Softmax, Flatten, Split)\n"
	               "t.prototxt:5:35: layer 'r' (Sigmoid): bottom 'missing' is not an input and no "
	               "earlier layer writes it");
}

Test(caffe, unused_fields_get_warnings)
{
	struct run r;
	run(&r, "name: \"n\"\nmystery: 3\n"
	        "input: \"data\"\ninput_shape { dim: 1 dim: 2 dim: 4 dim: 4 }\n"
	        "layer { name: \"c\" type: \"Convolution\" bottom: \"data\" top: \"c\"\n"
	        "  param { lr_mult: 1 }\n"
	        "  convolution_param { num_output: 2 kernel_size: 1 colour: \"red\"\n"
	        "    weight_filler { type: \"gaussian\" std: 0.01 } }\n"
	        "  pooling_param { pool: MAX } }\n");
	cr_assert_not_null(r.g, "%s", r.out);
	cr_expect_str_eq(r.out,
	                 "t.prototxt:2:1: warning: field 'mystery' is not used\n"
	                 "t.prototxt:7:52: warning: layer 'c' (Convolution): field "
	                 "'convolution_param.colour' is not used\n"
	                 "t.prototxt:9:3: warning: layer 'c' (Convolution): field 'pooling_param' is "
	                 "not used\n" NOTE);
	cr_expect_eq(r.d.warnings, 3);
	cr_expect_eq(r.d.errors, 0);
	run_free(&r);
}

/* ---- Caffe's shapes against the IR's ---------------------------------------------- */

/* The frontend computes every blob's shape by Caffe's rules (ceil-mode
 * pooling in particular); the shape pass must compute the same from the IR's
 * ONNX semantics. Runs on the project's samples and, where ../shared exists
 * next to the source tree, on the BVLC definitions. */
static void check_shapes(const char *path)
{
	struct options opt = {0};
	opt.model = path;
	opt.random_weights = 1;
	opt.batch = 1;
	char *out = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&out, &len);
	struct diag d;
	diag_init(&d, path, f);
	struct graph *g = caffe_read(path, &opt, &d);
	fflush(f);
	cr_assert_not_null(g, "%s", out);
	int n = g->n_tensors, changed = 0;
	struct tensor *saved = malloc(n * sizeof *saved);
	for (int i = 0; i < n; i++) {
		struct tensor *t = g->tensors[i];
		saved[i] = *t;
		cr_assert_geq(t->rank, 0, "%s: the frontend left %s without a shape", path, t->name);
		if (!t->data && !t->is_input)
			t->rank = -1;
	}
	cr_assert_eq(pass_infer_shapes(g, &opt, &d), 0, "%s", out);
	for (int i = 0; i < n; i++) {
		const struct tensor *t = g->tensors[i], *c = &saved[i];
		int same = t->rank == c->rank;
		for (int k = 0; same && k < t->rank; k++)
			same = t->dims[k] == c->dims[k];
		if (!same) {
			char a[128] = "", b[128] = "";
			for (int k = 0, m = 0; k < c->rank; k++)
				m += snprintf(a + m, sizeof a - m, " %lld", (long long)c->dims[k]);
			for (int k = 0, m = 0; k < t->rank; k++)
				m += snprintf(b + m, sizeof b - m, " %lld", (long long)t->dims[k]);
			cr_expect_fail("%s: %s is [%s ] by Caffe's rules, [%s ] by the shape pass", path,
			               t->name, a, b);
			changed++;
		}
	}
	cr_expect_eq(changed, 0);
	free(saved);
	ir_graph_free(g);
	fclose(f);
	free(out);
}

static char *source_path(const char *rel)
{
	const char *srcdir = getenv("srcdir");
	char *base = realpath(srcdir ? srcdir : ".", NULL);
	cr_assert_not_null(base);
	char *p = malloc(strlen(base) + strlen(rel) + 2);
	sprintf(p, "%s/%s", base, rel);
	free(base);
	return p;
}

Test(caffe, shapes_agree_with_the_shape_pass_on_the_samples)
{
	static const char *const samples[] = {"alexnet", "googlenet", "vgg16"};
	for (int i = 0; i < 3; i++) {
		char rel[64];
		snprintf(rel, sizeof rel, "samples/caffe/%s.prototxt", samples[i]);
		char *path = source_path(rel);
		cr_assert(access(path, R_OK) == 0, "%s is missing (set srcdir)", path);
		check_shapes(path);
		free(path);
	}
}

Test(caffe, shapes_agree_with_the_shape_pass_on_bvlc_models)
{
	static const char *const models[] = {"bvlc_alexnet", "bvlc_reference_caffenet",
	                                     "bvlc_googlenet", "bvlc_reference_rcnn_ilsvrc13"};
	char *dir = source_path("../shared/models/caffe");
	if (access(dir, R_OK) != 0) {
		free(dir);
		cr_skip_test("no ../shared/models/caffe next to the source tree");
	}
	for (int i = 0; i < 4; i++) {
		char *path = malloc(strlen(dir) + 64);
		sprintf(path, "%s/%s/deploy.prototxt", dir, models[i]);
		check_shapes(path);
		free(path);
	}
	free(dir);
}
