/* test_ir.c - unit tests of the IR core: the arena, graph construction and
 * its queries, compaction, use rewriting, the verifier, attribute lookups and
 * the text dump. Graphs are built by hand and checked on their structure. */
#include <criterion/criterion.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ir/ir.h"
#include "tests/diag_capture.h"

/* ---- helpers --------------------------------------------------------------- */

static struct tensor *act4(struct graph *g, const char *name, int64_t c, int64_t h, int64_t w)
{
	struct tensor *t = ir_new_tensor(g, name, DTYPE_F32);
	int64_t dims[4] = {1, c, h, w};
	ir_set_shape(t, 4, dims);
	return t;
}

static struct tensor *graph_input(struct graph *g, const char *name)
{
	struct tensor *t = act4(g, name, 2, 3, 3);
	t->is_input = 1;
	g->inputs = arena_alloc(&g->arena, sizeof *g->inputs);
	g->inputs[0] = t;
	g->n_inputs = 1;
	return t;
}

static void set_outputs(struct graph *g, int n, struct tensor **ts)
{
	g->outputs = arena_alloc(&g->arena, (size_t)n * sizeof *g->outputs);
	for (int i = 0; i < n; i++) {
		g->outputs[i] = ts[i];
		ts[i]->is_output = 1;
	}
	g->n_outputs = n;
}

static struct node *unary(struct graph *g, enum op op, const char *name, struct tensor *x,
                          struct tensor *y)
{
	return ir_add_node(g, op, name, 1, &x, 1, &y);
}

/* x -> relu a -> sigmoid b (output): the smallest valid graph. */
static struct graph *chain_graph(void)
{
	struct graph *g = ir_graph_new("m.onnx");
	struct tensor *x = graph_input(g, "x");
	struct tensor *a = act4(g, "a", 2, 3, 3), *b = act4(g, "b", 2, 3, 3);
	unary(g, OP_RELU, "relu1", x, a);
	unary(g, OP_SIGMOID, "sig1", a, b);
	set_outputs(g, 1, &b);
	return g;
}

/* ---- arena ----------------------------------------------------------------- */

Test(arena, allocations_are_zeroed_aligned_and_distinct)
{
	struct arena a;
	arena_init(&a);
	unsigned char *prev = NULL;
	for (int i = 1; i < 3000; i++) {
		size_t n = (size_t)(i % 97) + 1;
		unsigned char *p = arena_alloc(&a, n);
		cr_assert_eq((uintptr_t)p % 16, 0, "allocation %d not 16-byte aligned", i);
		for (size_t k = 0; k < n; k++)
			cr_assert_eq(p[k], 0);
		memset(p, 0xab, n);
		cr_assert(p != prev);
		prev = p;
	}
	cr_assert_geq(a.used, 3000);
	arena_free(&a);
	cr_assert_null(a.head);
	cr_assert_eq(a.used, 0);
}

Test(arena, large_request_keeps_current_block_usable)
{
	struct arena a;
	arena_init(&a);
	char *small = arena_alloc(&a, 32);
	strcpy(small, "before");
	size_t big_n = 3u << 20; /* larger than a block */
	unsigned char *big = arena_alloc(&a, big_n);
	cr_assert_eq(big[0], 0);
	cr_assert_eq(big[big_n - 1], 0);
	memset(big, 1, big_n);
	char *after = arena_alloc(&a, 32);
	cr_assert_eq((uintptr_t)after % 16, 0);
	/* The small allocations share the first block; the big one is separate. */
	cr_assert(after > small && after < small + (1u << 20));
	cr_assert_str_eq(small, "before");
	arena_free(&a);
}

Test(arena, strdup_and_memdup_copy)
{
	struct arena a;
	arena_init(&a);
	char src[] = "conv1";
	char *s = arena_strdup(&a, src);
	src[0] = 'X';
	cr_assert_str_eq(s, "conv1");
	int64_t v[3] = {1, -2, 3};
	int64_t *w = arena_memdup(&a, v, sizeof v);
	v[1] = 7;
	cr_assert_eq(w[0], 1);
	cr_assert_eq(w[1], -2);
	cr_assert_eq(w[2], 3);
	arena_free(&a);
}

/* ---- construction and queries ---------------------------------------------- */

Test(ir, new_tensor_names_are_made_unique)
{
	struct graph *g = ir_graph_new("m.onnx");
	struct tensor *a = ir_new_tensor(g, "x", DTYPE_F32);
	struct tensor *b = ir_new_tensor(g, "x", DTYPE_F32);
	struct tensor *c = ir_new_tensor(g, "x", DTYPE_F32);
	struct tensor *e = ir_new_tensor(g, "", DTYPE_F32);
	struct tensor *f = ir_new_tensor(g, NULL, DTYPE_F32);
	cr_assert_str_eq(a->name, "x");
	cr_assert_str_eq(b->name, "x_1");
	cr_assert_str_eq(c->name, "x_2");
	cr_assert_str_eq(e->name, "t");
	cr_assert_str_eq(f->name, "t_1");
	/* A name taken by a uniquified one is uniquified further. */
	struct tensor *h = ir_new_tensor(g, "x_1", DTYPE_F32);
	cr_assert_str_eq(h->name, "x_1_1");
	cr_assert_eq(g->n_tensors, 6);
	for (int i = 0; i < g->n_tensors; i++)
		cr_assert_eq(g->tensors[i]->index, i);
	cr_assert_eq(a->rank, -1);
	cr_assert_eq(ir_find_tensor(g, "x_2"), c);
	cr_assert_null(ir_find_tensor(g, "y"));
	ir_graph_free(g);
}

Test(ir, many_tensors_and_nodes_grow_the_arrays)
{
	struct graph *g = ir_graph_new("m.onnx");
	struct tensor *prev = graph_input(g, "x");
	for (int i = 0; i < 500; i++) {
		struct tensor *t = act4(g, "t", 2, 3, 3);
		unary(g, OP_RELU, NULL, prev, t);
		prev = t;
	}
	set_outputs(g, 1, &prev);
	cr_assert_eq(g->n_nodes, 500);
	cr_assert_eq(g->n_tensors, 501);
	cr_assert_str_eq(g->nodes[0]->name, "Relu_0");
	cr_assert_str_eq(g->nodes[499]->name, "Relu_499");
	cr_assert_str_eq(g->tensors[500]->name, "t_499");
	struct diag d;
	diag_init(&d, "m.onnx", stderr);
	cr_assert_eq(ir_verify(g, "test", 1, &d), 0);
	ir_graph_free(g);
}

Test(ir, add_node_copies_arrays_and_sets_producers)
{
	struct graph *g = ir_graph_new("m.onnx");
	struct tensor *x = graph_input(g, "x");
	struct tensor *y = act4(g, "y", 2, 3, 3), *z = act4(g, "z", 2, 3, 3);
	struct tensor *ins[2] = {x, x};
	struct tensor *outs[1] = {y};
	struct node *n = ir_add_node(g, OP_ADD, "add", 2, ins, 1, outs);
	ins[1] = z;
	outs[0] = z;
	cr_assert_eq(n->inputs[1], x);
	cr_assert_eq(n->outputs[0], y);
	cr_assert_eq(y->producer, n);
	cr_assert_null(z->producer);
	cr_assert_eq(n->index, 0);
	cr_assert_eq(g->nodes[0], n);
	cr_assert_eq(ir_use_count(g, x), 2);
	ir_graph_free(g);
}

Test(ir, constants_have_data_and_shape)
{
	struct graph *g = ir_graph_new("m.onnx");
	float *data = arena_alloc(&g->arena, 6 * sizeof *data);
	int64_t dims[2] = {2, 3};
	struct tensor *w = ir_new_constant(g, "w", DTYPE_F32, 2, dims, data);
	cr_assert_eq(w->data, data);
	cr_assert_eq(w->rank, 2);
	cr_assert_eq(w->dims[1], 3);
	cr_assert_null(w->producer);
	cr_assert_eq(ir_numel(w), 6);
	cr_assert_eq(ir_nbytes(w), 24);
	ir_graph_free(g);
}

Test(ir, sizes)
{
	struct tensor t = {0};
	t.rank = 0;
	t.dtype = DTYPE_I64;
	cr_assert_eq(ir_numel(&t), 1);
	cr_assert_eq(ir_nbytes(&t), 8);
	t.rank = 3;
	t.dims[0] = 2;
	t.dims[1] = 0;
	t.dims[2] = 5;
	cr_assert_eq(ir_numel(&t), 0);
	cr_assert_eq(ir_dtype_size(DTYPE_F32), 4);
	cr_assert_eq(ir_dtype_size(DTYPE_U8), 1);
	cr_assert_eq(ir_dtype_size(DTYPE_OTHER), 0);
	cr_assert_str_eq(ir_op_names[OP_BATCHNORM], "BatchNormalization");
	cr_assert_str_eq(ir_op_names[OP_CONSTANT_OF_SHAPE], "ConstantOfShape");
	cr_assert_str_eq(ir_dtype_names[DTYPE_I64], "int64");
}

Test(ir, replace_uses_rewrites_live_inputs_and_graph_outputs)
{
	struct graph *g = ir_graph_new("m.onnx");
	struct tensor *x = graph_input(g, "x");
	struct tensor *a = act4(g, "a", 2, 3, 3), *b = act4(g, "b", 2, 3, 3);
	struct tensor *c = act4(g, "c", 2, 3, 3), *e = act4(g, "e", 2, 3, 3);
	unary(g, OP_IDENTITY, "id", x, a);
	struct tensor *ins[2] = {a, a};
	ir_add_node(g, OP_ADD, "add", 2, ins, 1, &b);
	struct node *dead = unary(g, OP_RELU, "dead", a, c);
	dead->dead = 1;
	unary(g, OP_RELU, "relu", b, e);
	struct tensor *outs[2] = {a, e};
	set_outputs(g, 2, outs);

	cr_assert_eq(ir_use_count(g, a), 2); /* the dead node does not count */
	ir_replace_uses(g, a, x);
	cr_assert_eq(g->nodes[1]->inputs[0], x);
	cr_assert_eq(g->nodes[1]->inputs[1], x);
	cr_assert_eq(dead->inputs[0], a, "dead nodes are left alone");
	cr_assert_eq(g->outputs[0], x);
	cr_assert_eq(g->outputs[1], e);
	cr_assert_eq(ir_use_count(g, a), 0);
	cr_assert_eq(ir_use_count(g, x), 3); /* id, and add twice */
	ir_graph_free(g);
}

Test(ir, compact_drops_dead_nodes_and_orphan_tensors)
{
	struct graph *g = ir_graph_new("m.onnx");
	struct tensor *x = graph_input(g, "x");
	struct tensor *a = act4(g, "a", 2, 3, 3), *b = act4(g, "b", 2, 3, 3);
	struct tensor *c = act4(g, "c", 2, 3, 3);
	struct tensor *orphan = act4(g, "orphan", 1, 1, 1);
	unary(g, OP_RELU, "r0", x, a);
	struct node *mid = unary(g, OP_IDENTITY, "id", a, b);
	unary(g, OP_RELU, "r2", b, c);
	set_outputs(g, 1, &c);

	ir_replace_uses(g, b, a);
	mid->dead = 1;
	ir_compact(g);

	cr_assert_eq(g->n_nodes, 2);
	cr_assert_str_eq(g->nodes[0]->name, "r0");
	cr_assert_str_eq(g->nodes[1]->name, "r2");
	cr_assert_eq(g->nodes[1]->index, 1);
	cr_assert_eq(g->n_tensors, 3);
	cr_assert_null(ir_find_tensor(g, "b"));
	cr_assert_null(ir_find_tensor(g, "orphan"));
	for (int i = 0; i < g->n_tensors; i++)
		cr_assert_eq(g->tensors[i]->index, i);
	(void)orphan;
	struct diag d;
	diag_init(&d, "m.onnx", stderr);
	cr_assert_eq(ir_verify(g, "test", 1, &d), 0);
	ir_graph_free(g);
}

Test(ir, compact_keeps_unused_graph_inputs_and_clears_dead_producers)
{
	struct graph *g = ir_graph_new("m.onnx");
	struct tensor *x = graph_input(g, "x");
	struct tensor *a = act4(g, "a", 2, 3, 3);
	struct node *n = unary(g, OP_RELU, "r0", x, a);
	/* a stays a graph output although the node writing it died (the verifier
	 * would then report it as never written). */
	set_outputs(g, 1, &a);
	n->dead = 1;
	ir_compact(g);
	cr_assert_eq(g->n_nodes, 0);
	cr_assert_eq(g->n_tensors, 2);
	cr_assert_null(a->producer);
	cr_assert_eq(g->inputs[0], x);
	struct capture c;
	capture_open(&c);
	cr_assert_gt(ir_verify(g, "mypass", 1, &c.d), 0);
	cr_assert(strstr(capture_text(&c), "graph output never written: a"), "got: %s",
	          capture_text(&c));
	capture_close(&c);
	ir_graph_free(g);
}

/* ---- verifier -------------------------------------------------------------- */

Test(verify, accepts_a_valid_graph)
{
	struct graph *g = chain_graph();
	struct capture c;
	capture_open(&c);
	cr_assert_eq(ir_verify(g, "test", 1, &c.d), 0, "%s", capture_text(&c));
	cr_assert_eq(c.d.errors, 0);
	capture_close(&c);
	ir_graph_free(g);
}

Test(verify, catches_use_before_definition)
{
	struct graph *g = ir_graph_new("m.onnx");
	struct tensor *x = graph_input(g, "x");
	struct tensor *a = act4(g, "a", 2, 3, 3), *b = act4(g, "b", 2, 3, 3);
	unary(g, OP_RELU, "early", a, b); /* reads a before late writes it */
	unary(g, OP_RELU, "late", x, a);
	set_outputs(g, 1, &b);
	struct capture c;
	capture_open(&c);
	cr_assert_gt(ir_verify(g, "mypass", 1, &c.d), 0);
	const char *text = capture_text(&c);
	cr_assert(strstr(text, "node 'early' (Relu)"), "got: %s", text);
	cr_assert(strstr(text, "used before it is written: a"), "got: %s", text);
	cr_assert(strstr(text, "after pass 'mypass'"), "got: %s", text);
	capture_close(&c);
	ir_graph_free(g);
}

Test(verify, catches_a_tensor_written_twice)
{
	struct graph *g = ir_graph_new("m.onnx");
	struct tensor *x = graph_input(g, "x");
	struct tensor *a = act4(g, "a", 2, 3, 3);
	unary(g, OP_RELU, "first", x, a);
	struct node *second = unary(g, OP_SIGMOID, "second", x, a);
	set_outputs(g, 1, &a);
	cr_assert_eq(a->producer, second);
	struct capture c;
	capture_open(&c);
	cr_assert_gt(ir_verify(g, "mypass", 1, &c.d), 0);
	const char *text = capture_text(&c);
	cr_assert(strstr(text, "tensor written twice: a"), "got: %s", text);
	/* first's output no longer names it as producer either */
	cr_assert(strstr(text, "node 'first' (Relu): internal error: IR verifier after pass "
	                       "'mypass': producer link broken on a"),
	          "got: %s", text);
	capture_close(&c);
	ir_graph_free(g);
}

Test(verify, catches_unknown_shapes_and_duplicate_names)
{
	struct graph *g = chain_graph();
	struct tensor *a = ir_find_tensor(g, "a");
	a->rank = -1;
	struct capture c;
	capture_open(&c);
	cr_assert_eq(ir_verify(g, "frontend", 0, &c.d), 0, "shapes not required yet");
	cr_assert_gt(ir_verify(g, "infer_shapes", 1, &c.d), 0);
	cr_assert(strstr(capture_text(&c), "shape unknown after inference: a"));
	a->rank = 4;
	ir_find_tensor(g, "b")->name = "a";
	cr_assert_gt(ir_verify(g, "p", 1, &c.d), 0);
	cr_assert(strstr(capture_text(&c), "duplicate tensor name a"));
	capture_close(&c);
	ir_graph_free(g);
}

Test(verify, catches_constant_with_producer_and_foreign_tensor)
{
	struct graph *g = chain_graph();
	struct node *relu = g->nodes[0];
	static float one = 1.0f;
	relu->outputs[0]->data = &one;
	struct capture c;
	capture_open(&c);
	cr_assert_gt(ir_verify(g, "p", 1, &c.d), 0);
	cr_assert(strstr(capture_text(&c), "constant tensor has a producer: a"));
	relu->outputs[0]->data = NULL;

	struct tensor foreign = {0};
	foreign.name = "foreign";
	foreign.index = 0; /* claims a slot that holds another tensor */
	foreign.rank = 0;
	g->nodes[1]->inputs[0] = &foreign;
	int before = c.d.errors;
	cr_assert_gt(ir_verify(g, "p", 1, &c.d), 0);
	cr_assert_gt(c.d.errors, before);
	cr_assert(strstr(capture_text(&c), "input not in the graph: foreign"));
	capture_close(&c);
	ir_graph_free(g);
}

/* ---- attributes ------------------------------------------------------------ */

Test(attr, lookups_return_values_defaults_and_mark_use)
{
	struct graph *g = chain_graph();
	struct node *n = g->nodes[0];
	ir_add_attr(g, n, "group", ATTR_INT)->i = 4;
	ir_add_attr(g, n, "alpha", ATTR_FLOAT)->f = 0.5;
	ir_add_attr(g, n, "auto_pad", ATTR_STRING)->s = "SAME_UPPER";
	struct attr *k = ir_add_attr(g, n, "kernel_shape", ATTR_INTS);
	static int64_t ks[2] = {3, 5};
	k->ints = ks;
	k->n = 2;
	ir_add_attr(g, n, "beta", ATTR_INT)->i = 2;
	ir_add_attr(g, n, "unread", ATTR_INT)->i = 1;
	cr_assert_eq(n->n_attrs, 6);
	for (int i = 0; i < n->n_attrs; i++)
		cr_assert_eq(n->attrs[i].used, 0);

	cr_assert_eq(ir_attr_int(n, "group", 1), 4);
	cr_assert_eq(ir_attr_int(n, "missing", 7), 7);
	cr_assert_float_eq(ir_attr_float(n, "alpha", 0.0), 0.5, 1e-12);
	cr_assert_float_eq(ir_attr_float(n, "beta", 0.0), 2.0, 1e-12, "ints read as floats");
	cr_assert_float_eq(ir_attr_float(n, "gone", 0.25), 0.25, 1e-12);
	cr_assert_str_eq(ir_attr_string(n, "auto_pad", "NOTSET"), "SAME_UPPER");
	cr_assert_str_eq(ir_attr_string(n, "group", "dflt"), "dflt", "wrong kind gives default");
	cr_assert_eq(ir_attr_int(n, "alpha", -1), -1, "a float is not an int");
	const int64_t *v;
	cr_assert_eq(ir_attr_ints(n, "kernel_shape", &v), 2);
	cr_assert_eq(v[0], 3);
	cr_assert_eq(v[1], 5);
	cr_assert_eq(ir_attr_ints(n, "pads", &v), 0);
	cr_assert_null(v);
	cr_assert_eq(ir_attr_ints(n, "group", &v), 0);
	cr_assert_null(v);

	for (int i = 0; i < n->n_attrs; i++) {
		if (strcmp(n->attrs[i].name, "unread") == 0)
			cr_assert_eq(n->attrs[i].used, 0);
		else
			cr_assert_eq(n->attrs[i].used, 1, "%s not marked used", n->attrs[i].name);
	}
	cr_assert_not_null(ir_attr(n, "unread"));
	cr_assert_eq(n->attrs[5].used, 1);
	cr_assert_null(ir_attr(n, "nope"));
	ir_graph_free(g);
}

/* ---- diagnostics and dump -------------------------------------------------- */

Test(diag, messages_name_file_node_and_op)
{
	struct graph *g = chain_graph();
	struct capture c;
	capture_open(&c);
	diag_error(&c.d, g->nodes[0], "pads has %d values, expected %d", 3, 4);
	diag_warning(&c.d, NULL, "something about the file");
	cr_assert_eq(c.d.errors, 1);
	cr_assert_eq(c.d.warnings, 1);
	cr_assert_str_eq(capture_text(&c),
	                 "m.onnx: node 'relu1' (Relu): pads has 3 values, expected 4\n"
	                 "m.onnx: warning: something about the file\n");
	capture_close(&c);
	ir_graph_free(g);
}

Test(dump, lists_nodes_shapes_attributes_and_epilogues)
{
	struct graph *g = chain_graph();
	struct node *n = g->nodes[0];
	ir_add_attr(g, n, "alpha", ATTR_FLOAT)->f = 0.5;
	g->nodes[1]->act = ACT_RELU;
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	ir_dump(g, f, "after test");
	fclose(f);
	cr_assert(strstr(text, "# IR after test: 2 nodes, 3 tensors"), "%s", text);
	cr_assert(strstr(text, "input %x: float32[1,2,3,3]"), "%s", text);
	cr_assert(strstr(text, "%a: float32[1,2,3,3] = Relu(%x) {alpha=0.5}  # node 'relu1'"), "%s",
	          text);
	cr_assert(strstr(text, "= Sigmoid(%a) act=relu  # node 'sig1'"), "%s", text);
	cr_assert(strstr(text, "output %b"), "%s", text);
	free(text);
	ir_graph_free(g);
}

/* ---- the operator table (ir/ops.def) ---------------------------------------- */

/* The rows agree with each other and with the names: one ONNX name per op,
 * the view ops move bytes and read only their data input, an epilogue
 * holder is not itself foldable, the layout-aware kinds are subsets of the
 * kinds their kernels implement. */
Test(ops, table_is_consistent)
{
	for (int i = 0; i < OP_COUNT_; i++) {
		const struct op_info *o = &ir_ops[i];
		cr_assert_str_eq(o->onnx, ir_op_names[i]);
		for (int j = 0; j < i; j++)
			cr_assert_str_neq(o->onnx, ir_ops[j].onnx, "ops %d and %d share a name", j, i);
		cr_assert(o->arity >= 0 && o->arity <= 5 && o->canon_arity >= 1 && o->canon_arity <= 5,
		          "%s: arity %d, canonical %d", o->onnx, o->arity, o->canon_arity);
		if (o->kind == OPK_VIEW)
			cr_assert(ir_op_has(i, OPF_ANY_DTYPE) && ir_op_has(i, OPF_CONST_OPERANDS), "%s",
			          o->onnx);
		if (ir_op_has(i, OPF_EPILOGUE))
			cr_assert(o->kind == OPK_OWN, "%s", o->onnx);
		if (ir_op_has(i, OPF_NC_ACT))
			cr_assert(o->kind == OPK_ACT, "%s", o->onnx);
		if (ir_op_has(i, OPF_NC_ELTWISE) || ir_op_has(i, OPF_NC_CHAN))
			cr_assert(ir_op_has(i, OPF_BINOP) && o->canon_arity == 2, "%s", o->onnx);
		if (ir_op_has(i, OPF_BINOP))
			cr_assert(o->kind == OPK_ARITH || o->kind == OPK_POW_PRELU || o->kind == OPK_VARIADIC,
			          "%s", o->onnx);
		if (o->kind == OPK_TYPED || o->kind == OPK_TRAIN)
			cr_assert((o->flags & ~(unsigned)(OPF_TBINARY | OPF_BOOL_OUT)) == 0, "%s", o->onnx);
		if (ir_op_has(i, OPF_TBINARY))
			cr_assert(o->kind == OPK_TYPED || ir_op_has(i, OPF_TYPED_KERNEL), "%s", o->onnx);
		if (ir_op_has(i, OPF_BOOL_OUT))
			cr_assert(ir_op_has(i, OPF_TBINARY) && o->kind == OPK_TYPED, "%s", o->onnx);
	}
}

/* ir_act_of, the one op -> epilogue map: every OPK_ACT op has an epilogue
 * (so canonicalize can fuse it and the emitter can run it alone), no other
 * op has one, and the parameters are the ONNX attributes or their defaults. */
Test(ops, act_of_maps_exactly_the_activation_kind)
{
	struct graph *g = ir_graph_new("act_of");
	for (int i = 0; i < OP_COUNT_; i++) {
		struct node *n = ir_add_node(g, (enum op)i, NULL, 0, NULL, 0, NULL);
		float alpha = 1.0f, beta = 1.0f;
		enum act a = ir_act_of(n, &alpha, &beta);
		if (ir_op_kind((enum op)i) == OPK_ACT)
			cr_assert(a != ACT_NONE && a < ACT_COUNT_, "%s", ir_op_names[i]);
		else
			cr_assert(a == ACT_NONE && alpha == 0.0f && beta == 0.0f, "%s", ir_op_names[i]);
	}
	struct node *lr = ir_add_node(g, OP_LEAKY_RELU, NULL, 0, NULL, 0, NULL);
	float alpha, beta;
	cr_assert_eq(ir_act_of(lr, &alpha, &beta), ACT_LEAKY_RELU);
	cr_assert_float_eq(alpha, 0.01f, 1e-9f); /* LeakyRelu: alpha defaults to 0.01 */
	struct node *clip = ir_add_node(g, OP_CLIP, NULL, 0, NULL, 0, NULL);
	ir_add_attr(g, clip, "min", ATTR_FLOAT)->f = -1.5;
	ir_add_attr(g, clip, "max", ATTR_FLOAT)->f = 6.0;
	cr_assert_eq(ir_act_of(clip, &alpha, &beta), ACT_CLIP);
	cr_assert(alpha == -1.5f && beta == 6.0f);
	ir_graph_free(g);
}

/* Spot checks of the columns against the ONNX operator pages. */
Test(ops, rows_say_what_the_onnx_pages_say)
{
	cr_assert_eq(ir_ops[OP_BATCHNORM].arity, 5); /* X, scale, B, input_mean, input_var */
	cr_assert_eq(ir_ops[OP_INSTANCE_NORM].arity, 3);
	cr_assert_eq(ir_ops[OP_CONSTANT].arity, 0);
	cr_assert_eq(ir_ops[OP_MAX].arity, 1);       /* variadic: 1 to 2^31-1 inputs */
	cr_assert_eq(ir_ops[OP_MAX].canon_arity, 2); /* canonicalize chains them */
	cr_assert_eq(ir_op_kind(OP_RELU), OPK_ACT);
	cr_assert_eq(ir_op_kind(OP_GELU), OPK_MATH);
	cr_assert(ir_op_has(OP_LESS, OPF_TBINARY) && ir_op_has(OP_LESS, OPF_BOOL_OUT)); /* T -> bool */
	cr_assert(ir_op_has(OP_MOD, OPF_TBINARY) && !ir_op_has(OP_MOD, OPF_BOOL_OUT)); /* T -> T */
	cr_assert_eq(ir_op_kind(OP_SQUEEZE), OPK_VIEW);
	cr_assert_neq(ir_op_kind(OP_IDENTITY), OPK_VIEW); /* removed by canonicalize, no view */
	cr_assert(ir_op_has(OP_CONV, OPF_EPILOGUE) && ir_op_has(OP_GEMM, OPF_EPILOGUE));
	cr_assert(!ir_op_has(OP_MATMUL, OPF_EPILOGUE));
	cr_assert(ir_op_has(OP_SLICE, OPF_CONST_OPERANDS) && !ir_op_has(OP_CONCAT, OPF_CONST_OPERANDS));
	cr_assert(!ir_op_has(OP_DIV, OPF_NC_ELTWISE)); /* eltwise.c has no division */
	cr_assert_eq(ir_op_kind(OP_CAST_LIKE), OPK_TYPED);
}
