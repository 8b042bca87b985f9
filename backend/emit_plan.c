/* emit_plan.c - the emitter's first step: emit_plan_graph() decides everything and
 * reports every problem before a file is opened (DESIGN.md §2 "Generated
 * code"): which buffer each tensor lives in, each layer's runtime kernel and
 * its parameters as the runtime's own structs (runtime/rt_types.h), the
 * weights blob (every constant a layer reads, float32 little-endian, each
 * 64-byte aligned), the arena and C names. One plan hook per op (plan_op),
 * shared by the ops of one ir/ops.def kind.
 *
 * Needs: the canonical form of passes/passes.h after pass_plan_memory: views
 * have tensor->alias, other activations tensor->offset in an arena of
 * graph->arena_size bytes. */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "backend/emit_internal.h"

void *emit_plan_keep(struct plan *p, void *s)
{
	if (p->n_strings == p->cap_strings) {
		p->cap_strings = p->cap_strings ? 2 * p->cap_strings : 64;
		p->strings = xrealloc(p->strings, p->cap_strings * sizeof *p->strings);
	}
	p->strings[p->n_strings++] = s;
	return s;
}

char *emit_plan_fmt(struct plan *p, const char *fmt, ...)
{
	char small[256];
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(small, sizeof small, fmt, ap);
	va_end(ap);
	if (n < 0)
		unreachable("bad format");
	char *s = xmalloc((size_t)n + 1);
	if ((size_t)n < sizeof small) {
		memcpy(s, small, (size_t)n + 1);
	} else {
		va_start(ap, fmt);
		vsnprintf(s, (size_t)n + 1, fmt, ap);
		va_end(ap);
	}
	return emit_plan_keep(p, s);
}

/* Text safe inside a C comment: printable ASCII only, no comment delimiters,
 * no trigraphs (C99 5.2.1.1), no backslash that could splice lines. */
const char *emit_cmt(struct plan *p, const char *s)
{
	if (!s)
		s = "";
	size_t n = strlen(s);
	char *out = xmalloc(2 * n + 1);
	size_t k = 0;
	for (size_t i = 0; i < n; i++) {
		char c = s[i];
		if ((unsigned char)c < 0x20 || (unsigned char)c >= 0x7f)
			c = '?';
		else if (c == '\\')
			c = '/';
		if (k > 0 && ((out[k - 1] == '*' && c == '/') || (out[k - 1] == '/' && c == '*') ||
		              (out[k - 1] == '?' && c == '?')))
			out[k++] = ' ';
		out[k++] = c;
	}
	out[k] = '\0';
	return emit_plan_keep(p, out);
}

/* "[1, 3, 224, 224]" ("[]" for a scalar). */
static const char *shape_str(struct plan *p, const struct tensor *t)
{
	char buf[IR_MAX_RANK * 24 + 4];
	size_t k = 0;
	buf[k++] = '[';
	for (int i = 0; i < t->rank; i++)
		k += snprintf(buf + k, sizeof buf - k, "%s%" PRId64, i ? ", " : "", t->dims[i]);
	snprintf(buf + k, sizeof buf - k, "]");
	return emit_plan_fmt(p, "%s", buf);
}

/* "'name' [dims]" plus its layout when not the model's own. */
const char *emit_tensor_desc(struct plan *p, const struct tensor *t)
{
	if (t->layout != LAYOUT_MODEL && t->layout < LAYOUT_COUNT_)
		return emit_plan_fmt(p, "'%s' %s %s", emit_cmt(p, t->name), shape_str(p, t),
		                ir_layout_names[t->layout]);
	return emit_plan_fmt(p, "'%s' %s", emit_cmt(p, t->name), shape_str(p, t));
}

static int names_has(const struct name_table *nt, const char *s)
{
	for (int i = 0; i < nt->n; i++)
		if (strcmp(nt->names[i], s) == 0)
			return 1;
	return 0;
}

static const char *names_put(struct name_table *nt, char *s)
{
	if (nt->n == nt->cap) {
		nt->cap = nt->cap ? 2 * nt->cap : 64;
		nt->names = xrealloc(nt->names, nt->cap * sizeof *nt->names);
	}
	nt->names[nt->n++] = s;
	return s;
}

int emit_ident_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

/* prefix + raw with every run of characters outside [A-Za-z0-9] made one '_'
 * ("/net/conv1/Conv" -> "net_conv1_Conv", at most NAME_PART_MAX of them),
 * then "_2", "_3", ... until unused. prefix starts with a letter and ends in
 * '_', so the result is a C identifier without "__". */
static const char *names_add(struct name_table *nt, const char *prefix, const char *raw)
{
	size_t plen = strlen(prefix);
	char *s = xmalloc(plen + NAME_PART_MAX + 24);
	memcpy(s, prefix, plen);
	size_t n = 0;
	for (const char *c = raw ? raw : ""; *c && n < NAME_PART_MAX; c++) {
		int keep = emit_ident_char(*c) && *c != '_';
		if (keep)
			s[plen + n++] = *c;
		else if (n > 0 && s[plen + n - 1] != '_')
			s[plen + n++] = '_';
	}
	while (n > 0 && s[plen + n - 1] == '_')
		n--;
	if (n == 0)
		s[plen + n++] = 'x';
	s[plen + n] = '\0';
	for (int k = 2; names_has(nt, s); k++)
		snprintf(s + plen + n, 24, "_%d", k);
	return names_put(nt, s);
}

static void names_reserve(struct name_table *nt, const char *s)
{
	names_put(nt, xstrdup(s));
}

void emit_names_free(struct name_table *nt)
{
	for (int i = 0; i < nt->n; i++)
		free(nt->names[i]);
	free(nt->names);
}

/* NAME from the -o path when the caller gave none (DESIGN.md §2): the base
 * name without ".c", characters outside [A-Za-z0-9_] made '_', "m_" before a
 * leading digit. */
static char *default_name(struct plan *p, const char *base)
{
	size_t n = strlen(base);
	char *id = xmalloc(n + 3);
	size_t k = 0;
	if (n == 0 || (base[0] >= '0' && base[0] <= '9')) {
		id[k++] = 'm';
		id[k++] = '_';
	}
	for (size_t i = 0; i < n; i++)
		id[k++] = emit_ident_char(base[i]) ? base[i] : '_';
	id[k] = '\0';
	return emit_plan_keep(p, id);
}

/* ---- planning: buffers ---------------------------------------------------- */

static int is_view_op(enum op op)
{
	return ir_op_kind(op) == OPK_VIEW;
}

struct tbuf *emit_tb_of(struct plan *p, const struct tensor *t)
{
	return &p->tb[t->index];
}

/* The tensor whose buffer t uses: t itself, or the end of its alias chain. */
static const struct tensor *root_of(const struct plan *p, const struct tensor *t)
{
	for (int steps = 0; t->alias; steps++) {
		if (steps > p->g->n_tensors)
			unreachable("cycle of tensor aliases");
		t = t->alias;
	}
	return t;
}

static int in_graph(const struct graph *g, const struct tensor *t)
{
	return t->index >= 0 && t->index < g->n_tensors && g->tensors[t->index] == t;
}

/* Places every tensor: inputs, outputs, constants, arena, views. */
static void plan_buffers(struct plan *p)
{
	const struct graph *g = p->g;
	for (int i = 0; i < g->n_tensors; i++) {
		const struct tensor *t = g->tensors[i];
		if (t->index != i)
			unreachable("stale tensor index");
		struct tbuf *b = &p->tb[i];
		if (t->alias) {
			b->kind = BUF_VIEW;
			b->root = root_of(p, t);
		} else if (t->is_input) {
			b->kind = BUF_INPUT;
		} else if (t->data) {
			b->kind = BUF_CONST;
		} else if (t->is_output) {
			b->kind = BUF_OUTPUT;
		} else {
			b->kind = BUF_ARENA;
			b->offset = t->offset;
		}
	}
	for (int j = 0; j < g->n_inputs; j++) {
		const struct tensor *t = g->inputs[j];
		if (!in_graph(g, t) || p->tb[t->index].kind != BUF_INPUT) {
			diag_error(p->d, NULL, "internal error: graph input '%s' is not a plain input",
			           t->name);
			continue;
		}
		p->tb[t->index].slot = j;
	}
	/* A graph output listed twice lives in its first slot. */
	for (int j = g->n_outputs - 1; j >= 0; j--) {
		const struct tensor *t = g->outputs[j];
		if (!in_graph(g, t)) {
			diag_error(p->d, NULL, "internal error: graph output '%s' is not in the graph",
			           t->name);
			continue;
		}
		if (p->tb[t->index].kind == BUF_OUTPUT)
			p->tb[t->index].slot = j;
	}
}

/* Checks that generated code can read or write t as dense float32. */
static int check_tensor(struct plan *p, const struct node *n, const struct tensor *t)
{
	if (!in_graph(p->g, t)) {
		diag_error(p->d, n, "internal error: tensor '%s' is not in the graph", t->name);
		return -1;
	}
	if (t->rank < 0) {
		diag_error(p->d, n, "internal error: tensor '%s' has no shape", t->name);
		return -1;
	}
	if (!typed_dtype_ok(t->dtype)) {
		diag_error(p->d, n, "tensor '%s' has type %s; generated code computes on float32, "
		           "float64, int64, int32, int8, uint8 and bool only",
		           t->name, t->dtype < DTYPE_COUNT_ ? ir_dtype_names[t->dtype] : "?");
		return -1;
	}
	if (ir_numel(t) <= 0) {
		diag_error(p->d, n, "tensor '%s' has no elements (shape %s); empty tensors are not "
		           "supported",
		           t->name, shape_str(p, t));
		return -1;
	}
	const struct tbuf *b = emit_tb_of(p, t);
	if (b->kind == BUF_VIEW) {
		const struct tensor *r = b->root;
		/* a view has the root's type and size; a Concat's slice lies inside it */
		if (r->dtype != t->dtype || r->rank < 0 ||
		    t->alias_offset + ir_nbytes(t) > ir_nbytes(r)) {
			diag_error(p->d, n, "internal error: view '%s' does not match its alias '%s'",
			           t->name, r->name);
			return -1;
		}
	}
	return 0;
}

/* Checks t and marks it, and its alias root, as needing a pointer in
 * NAME_run (only what is used is declared: no unused variables). */
static void use_tensor(struct plan *p, const struct node *n, const struct tensor *t)
{
	if (check_tensor(p, n, t))
		return;
	struct tbuf *b = emit_tb_of(p, t);
	b->used = 1;
	if (t->dtype != DTYPE_F32)
		p->typed = 1;
	if (b->kind == BUF_VIEW)
		emit_tb_of(p, b->root)->used = 1;
}

/* ---- planning: layers ----------------------------------------------------- */

static int fits_int(struct plan *p, const struct node *n, int64_t v, const char *what)
{
	if (v >= 0 && v <= INT_MAX)
		return 1;
	diag_error(p->d, n, "%s %" PRId64 " does not fit the runtime's int parameters", what, v);
	return 0;
}

static int64_t prod(const int64_t *dims, int from, int to)
{
	int64_t r = 1;
	for (int i = from; i < to; i++)
		r *= dims[i];
	return r;
}

/* Drops dims of size 1 and merges neighbours that every operand walks
 * contiguously (s[k] == s[k+1] * dims[k+1]), so broadcasts of high rank fit
 * RT_MAX_RANK and the kernels loop less. strides: n_ops arrays of rank. */
static int merge_dims(int rank, int64_t *dims, int n_ops, int64_t strides[][IR_MAX_RANK])
{
	int r = 0;
	for (int k = 0; k < rank; k++) {
		if (dims[k] == 1)
			continue;
		if (r > 0) {
			int contiguous = 1;
			for (int o = 0; o < n_ops; o++)
				if (strides[o][r - 1] != strides[o][k] * dims[k])
					contiguous = 0;
			if (contiguous) {
				dims[r - 1] *= dims[k];
				for (int o = 0; o < n_ops; o++)
					strides[o][r - 1] = strides[o][k];
				continue;
			}
		}
		dims[r] = dims[k];
		for (int o = 0; o < n_ops; o++)
			strides[o][r] = strides[o][k];
		r++;
	}
	return r;
}

/* Strides, in elements of the dense operand x, for reading it broadcast to
 * out_dims (right-aligned, numpy rules); -1 when the shapes do not broadcast. */
static int bcast_strides(int out_rank, const int64_t *out_dims, int x_rank, const int64_t *x_dims,
                         int64_t *strides /* out: [out_rank] */)
{
	if (x_rank > out_rank)
		return -1;
	int64_t s = 1;
	for (int k = out_rank - 1; k >= 0; k--) {
		int xk = k - (out_rank - x_rank);
		int64_t xd = xk >= 0 ? x_dims[xk] : 1;
		if (xd != 1 && xd != out_dims[k])
			return -1;
		strides[k] = xd == 1 ? 0 : s;
		s *= xd;
	}
	return 0;
}

static int to_bcast(struct plan *p, const struct node *n, int rank, int64_t *dims,
                    int64_t strides[][IR_MAX_RANK], struct rt_bcast *b)
{
	rank = merge_dims(rank, dims, 2, strides);
	b->rank = rank;
	for (int k = 0; k < rank; k++) {
		if (!fits_int(p, n, dims[k], "dimension") || !fits_int(p, n, strides[0][k], "stride") ||
		    !fits_int(p, n, strides[1][k], "stride"))
			return -1;
		b->dims[k] = (int)dims[k];
		b->sa[k] = (int)strides[0][k];
		b->sb[k] = (int)strides[1][k];
	}
	return 0;
}

static void add_arg(struct layer *l, struct tensor *t, const char *name)
{
	l->args[l->n_args] = t;
	l->arg_names[l->n_args] = name;
	l->n_args++;
}

/* Spatial attributes of Conv and the pools, mapped to the 2-D kernels: a 1-D
 * operator is a 2-D one with H = 1 (kernel, stride, dilation 1, no pads). */
struct spatial {
	int k[2], s[2], dl[2], pb[2], pe[2]; /* per (H, W): kernel, stride, dilation, pad begin, end */
};

static int get_spatial(struct plan *p, struct node *n, int nsp, struct spatial *sp)
{
	const int64_t *ks, *st, *dl, *pads;
	int nk = ir_attr_ints(n, "kernel_shape", &ks);
	int ns = ir_attr_ints(n, "strides", &st);
	int nd = ir_attr_ints(n, "dilations", &dl);
	int np = ir_attr_ints(n, "pads", &pads);
	if (nk != nsp || (ns && ns != nsp) || (nd && nd != nsp) || (np && np != 2 * nsp)) {
		diag_error(p->d, n, "kernel_shape, strides, dilations or pads do not match %d spatial "
		           "dims",
		           nsp);
		return -1;
	}
	int off = 2 - nsp;
	for (int i = 0; i < 2; i++) {
		sp->k[i] = sp->s[i] = sp->dl[i] = 1;
		sp->pb[i] = sp->pe[i] = 0;
	}
	for (int i = 0; i < nsp; i++) {
		int64_t v[5] = {ks[i], ns ? st[i] : 1, nd ? dl[i] : 1, np ? pads[i] : 0,
		                np ? pads[nsp + i] : 0};
		for (int j = 0; j < 5; j++)
			if (!fits_int(p, n, v[j], "kernel attribute"))
				return -1;
		if (v[0] < 1 || v[1] < 1 || v[2] < 1) {
			diag_error(p->d, n, "kernel, stride and dilation must be positive");
			return -1;
		}
		sp->k[off + i] = (int)v[0];
		sp->s[off + i] = (int)v[1];
		sp->dl[off + i] = (int)v[2];
		sp->pb[off + i] = (int)v[3];
		sp->pe[off + i] = (int)v[4];
	}
	return 0;
}

/* Spatial dims of an [N, C, W] or [N, C, H, W] tensor as (H, W); 0 if its
 * rank is neither. */
static int spatial_dims(const struct tensor *t, int64_t hw[2])
{
	if (t->rank == 3) {
		hw[0] = 1;
		hw[1] = t->dims[2];
		return 1;
	}
	if (t->rank == 4) {
		hw[0] = t->dims[2];
		hw[1] = t->dims[3];
		return 2;
	}
	return 0;
}

/* Conv and pooling in 3-D and ConvTranspose in 1-D and 3-D run on the
 * rt_window3d reference kernels (conv3d.c, pool3d.c, conv_transpose3d.c),
 * the spatial dims right-aligned into (D, H, W) with leading dims of 1. The
 * canonical attributes: kernel_shape, strides, dilations, one value per
 * spatial dim; pads two per dim (ConvTranspose: the leading pads only). */
static int plan_window3d(struct plan *p, struct layer *l)
{
	struct node *n = l->node;
	struct tensor *x = n->inputs[0], *y = n->outputs[0];
	struct tensor *w = n->op == OP_MAXPOOL || n->op == OP_AVGPOOL ? NULL : n->inputs[1];
	struct tensor *b = w && n->n_inputs > 2 ? n->inputs[2] : NULL;
	const int tr = n->op == OP_CONV_TRANSPOSE, sp = x->rank - 2, off = 3 - sp;
	const int64_t *ks, *st, *dl, *pd;
	if (sp < 1 || sp > 3 || y->rank != x->rank || (w && w->rank != x->rank) ||
	    ir_attr_ints(n, "kernel_shape", &ks) != sp || ir_attr_ints(n, "strides", &st) != sp ||
	    ir_attr_ints(n, "dilations", &dl) != sp ||
	    ir_attr_ints(n, "pads", &pd) != (tr ? sp : 2 * sp)) {
		diag_error(p->d, n, "internal error: %s not in canonical form (input %s)",
		           ir_op_names[n->op], shape_str(p, x));
		return -1;
	}
	int64_t v[] = {x->dims[0], x->dims[1], y->dims[1], ir_attr_int(n, "group", 1), ir_numel(x),
	               ir_numel(y)};
	for (size_t i = 0; i < sizeof v / sizeof v[0]; i++)
		if (!fits_int(p, n, v[i], "dimension"))
			return -1;
	struct rt_window3d *c = &l->u.win;
	memset(c, 0, sizeof *c);
	*c = (struct rt_window3d){
		.N = (int)v[0], .C = (int)v[1], .M = (int)v[2], .group = w ? (int)v[3] : 1,
		.act = (int)n->act, .alpha = n->act_alpha, .beta = n->act_beta,
		.max = n->op == OP_MAXPOOL,
		.count_include_pad = n->op == OP_AVGPOOL && ir_attr_int(n, "count_include_pad", 0),
	};
	for (int i = 0; i < 3; i++) {
		int j = i - off; /* the operator's spatial dim, < 0 for an added one */
		c->in[i] = j < 0 ? 1 : (int)x->dims[2 + j];
		c->out[i] = j < 0 ? 1 : (int)y->dims[2 + j];
		c->k[i] = j < 0 ? 1 : (int)ks[j];
		c->s[i] = j < 0 ? 1 : (int)st[j];
		c->d[i] = j < 0 ? 1 : (int)dl[j];
		c->pb[i] = j < 0 ? 0 : (int)pd[j];
		c->pe[i] = j < 0 || tr ? 0 : (int)pd[sp + j];
		if (j >= 0 && (!fits_int(p, n, ks[j], "kernel size") || !fits_int(p, n, st[j], "stride") ||
		               !fits_int(p, n, dl[j], "dilation") || !fits_int(p, n, pd[j], "pad") ||
		               (!tr && !fits_int(p, n, pd[sp + j], "pad"))))
			return -1;
	}
	if (n->op == OP_CONV) {
		l->unit = RT_UNIT_CONV3D;
		l->kernel = "rt_conv3d_ref";
	} else if (tr) {
		l->unit = RT_UNIT_CONV_TRANSPOSE3D;
		l->kernel = "rt_conv_transpose3d_ref";
	} else {
		l->unit = RT_UNIT_POOL3D;
		l->kernel = "rt_pool3d";
	}
	add_arg(l, x, "x");
	if (w)
		add_arg(l, w, "w");
	if (b)
		add_arg(l, b, "b");
	return 0;
}

/* A fused residual (fuse.c): the primitive runs without its activation, then
 * rt_conv_residual adds r (laid out like y) and applies it. */
static void plan_conv_residual(struct plan *p, struct layer *l)
{
	struct node *n = l->node;
	if (!fuse_has_residual(n))
		return;
	add_arg(l, n->inputs[FUSE_RESIDUAL_INPUT], "r");
	if (!l->prim || !rt_prim_fuses_residual(l->prim)) /* else added in its store loop */
		p->unit_used[RT_UNIT_RESIDUAL] = 1;
}

int emit_has_arg(const struct layer *l, const char *name)
{
	for (int k = 0; k < l->n_args; k++)
		if (strcmp(l->arg_names[k], name) == 0)
			return 1;
	return 0;
}

/* A convolution through the primitive select chose: the row's RUN with the
 * layer as literal constants, weights as select packed them, the workspace
 * plan_memory placed. */
static int plan_conv_primitive(struct plan *p, struct layer *l)
{
	struct node *n = l->node;
	struct tensor *b = n->n_inputs > 2 ? n->inputs[2] : NULL;
	l->prim = rt_prim_find(n->primitive);
	if (!l->prim || pass_conv_params(n, p->opt->isa, p->opt->threads, &l->u.conv)) {
		diag_error(p->d, n, "internal error: unknown primitive '%s'", n->primitive);
		return -1;
	}
	l->unit = (enum rt_unit)l->prim->unit;
	l->kernel = l->prim->run_name;
	l->ws_bytes = n->ws_bytes;
	l->ws_offset = n->ws_offset;
	if (n->fused_into) /* runs inside the depthwise's layer (fuse_pw_dw): no code */
		return 0;
	if (fuse_has_pw(n)) { /* rt_conv_pw_dw: the 1x1's input, weights, bias, then ours */
		if (pass_conv_params(n->inputs[0]->producer, p->opt->isa, p->opt->threads,
		                     &l->conv_pw)) {
			diag_error(p->d, n, "internal error: fused 1x1 without its parameters");
			return -1;
		}
		l->unit = RT_UNIT_CONV_PW_DW;
		l->kernel = "rt_conv_pw_dw";
		add_arg(l, n->inputs[FUSE_PW_INPUT], "x");
		add_arg(l, n->inputs[FUSE_PW_INPUT + 1], "we");
		if (n->inputs[FUSE_PW_INPUT + 2])
			add_arg(l, n->inputs[FUSE_PW_INPUT + 2], "be");
		add_arg(l, n->inputs[1], "w");
		if (b)
			add_arg(l, b, "b");
		return 0;
	}
	add_arg(l, n->inputs[0], "x");
	add_arg(l, n->inputs[1], "w");
	if (b)
		add_arg(l, b, "b");
	plan_conv_residual(p, l);
	return 0;
}

static int plan_conv(struct plan *p, struct layer *l)
{
	struct node *n = l->node;
	struct tensor *x = n->inputs[0], *w = n->inputs[1], *y = n->outputs[0];
	struct tensor *b = n->n_inputs > 2 ? n->inputs[2] : NULL;
	if (n->primitive)
		return plan_conv_primitive(p, l);
	if (x->rank == 5)
		return plan_window3d(p, l);
	int64_t xhw[2], yhw[2];
	int nsp = spatial_dims(x, xhw);
	if (!nsp || spatial_dims(y, yhw) != nsp || w->rank != x->rank) {
		diag_error(p->d, n, "only 1-D and 2-D convolutions are supported (input %s, weights "
		           "%s)",
		           shape_str(p, x), shape_str(p, w));
		return -1;
	}
	struct spatial sp;
	if (get_spatial(p, n, nsp, &sp))
		return -1;
	int64_t group = ir_attr_int(n, "group", 1);
	int64_t N = x->dims[0], C = x->dims[1], M = w->dims[0];
	if (group < 1 || C % group || M % group || w->dims[1] != C / group || y->dims[1] != M ||
	    y->dims[0] != N || (b && (b->rank != 1 || b->dims[0] != M))) {
		diag_error(p->d, n, "inconsistent shapes: input %s, weights %s, group %" PRId64,
		           shape_str(p, x), shape_str(p, w), group);
		return -1;
	}
	if (w->dims[w->rank - 1] != sp.k[1] || (nsp == 2 && w->dims[2] != sp.k[0])) {
		diag_error(p->d, n, "weights %s do not match kernel_shape", shape_str(p, w));
		return -1;
	}
	int64_t v[] = {N, C, xhw[0], xhw[1], M, yhw[0], yhw[1], group};
	for (size_t i = 0; i < sizeof v / sizeof v[0]; i++)
		if (!fits_int(p, n, v[i], "dimension"))
			return -1;
	struct rt_conv2d *c = &l->u.conv;
	*c = (struct rt_conv2d){
		.N = (int)N, .C = (int)C, .H = (int)xhw[0], .W = (int)xhw[1],
		.M = (int)M, .oH = (int)yhw[0], .oW = (int)yhw[1],
		.kH = sp.k[0], .kW = sp.k[1], .sH = sp.s[0], .sW = sp.s[1],
		.dH = sp.dl[0], .dW = sp.dl[1], .padT = sp.pb[0], .padL = sp.pb[1],
		.group = (int)group, .act = (int)n->act, .alpha = n->act_alpha, .beta = n->act_beta,
	};
	l->unit = RT_UNIT_CONV_REF;
	l->kernel = "rt_conv2d_ref";
	add_arg(l, x, "x");
	add_arg(l, w, "w");
	if (b)
		add_arg(l, b, "b");
	plan_conv_residual(p, l);
	return 0;
}

/* A tensor select left in HWC or a blocked layout: the layout-aware
 * kernels' block (0 HWC, 8, 16); -1 for the model's layout (and HCW). */
static int cl_block(const struct tensor *t)
{
	return t->layout == LAYOUT_HWC ? 0 : t->layout == LAYOUT_CHW8C ? 8 :
	       t->layout == LAYOUT_CHW16C ? 16 : -1;
}

static int plan_pool(struct plan *p, struct layer *l)
{
	struct node *n = l->node;
	struct tensor *x = n->inputs[0], *y = n->outputs[0];
	if (x->rank == 5)
		return plan_window3d(p, l);
	int64_t xhw[2], yhw[2];
	int nsp = spatial_dims(x, xhw);
	if (!nsp || spatial_dims(y, yhw) != nsp || y->dims[0] != x->dims[0] ||
	    y->dims[1] != x->dims[1]) {
		diag_error(p->d, n, "only 1-D and 2-D pooling is supported (input %s, output %s)",
		           shape_str(p, x), shape_str(p, y));
		return -1;
	}
	struct spatial sp;
	if (get_spatial(p, n, nsp, &sp))
		return -1;
	int64_t v[] = {x->dims[0], x->dims[1], xhw[0], xhw[1], yhw[0], yhw[1]};
	for (size_t i = 0; i < sizeof v / sizeof v[0]; i++)
		if (!fits_int(p, n, v[i], "dimension"))
			return -1;
	int avg = n->op == OP_AVGPOOL;
	l->u.pool = (struct rt_pool2d){
		.N = (int)v[0], .C = (int)v[1], .H = (int)v[2], .W = (int)v[3],
		.oH = (int)v[4], .oW = (int)v[5], .kH = sp.k[0], .kW = sp.k[1],
		.sH = sp.s[0], .sW = sp.s[1], .dH = sp.dl[0], .dW = sp.dl[1],
		.padT = sp.pb[0], .padL = sp.pb[1], .padB = sp.pe[0], .padR = sp.pe[1],
		.count_include_pad = avg ? (int)ir_attr_int(n, "count_include_pad", 0) != 0 : 0,
	};
	l->unit = avg ? RT_UNIT_AVGPOOL : RT_UNIT_MAXPOOL;
	l->kernel = avg ? "rt_avgpool2d" : "rt_maxpool2d";
	/* 2-D pools run pool_cl.c in every layout, CHW (or the model's NCHW) as
	 * blocks of one channel */
	int chw = (x->layout == LAYOUT_CHW || x->layout == LAYOUT_MODEL) && x->rank == 4;
	l->block = chw && nsp == 2 && x->layout == y->layout ? 1 : cl_block(x);
	if (l->block >= 0) {
		if (x->layout != y->layout || nsp != 2) {
			diag_error(p->d, n, "internal error: pooling from %s to %s", emit_tensor_desc(p, x),
			           emit_tensor_desc(p, y));
			return -1;
		}
		l->unit = RT_UNIT_POOL_CL;
		l->kernel = "rt_pool2d_cl";
	}
	add_arg(l, x, "x");
	return 0;
}

/* Gemm or MatMul whose constant B select packed for gemm_fc.c. */
static int is_gemm_fc(const struct node *n)
{
	return n->primitive && strcmp(n->primitive, "gemm_fc") == 0;
}

/* Gemm's C is unidirectionally broadcast to [M, N]: scalar or [1] -> (0, 0),
 * [N] -> (0, 1), [M, 1] -> (1, 0), [M, N] -> (N, 1). */
static int plan_gemm(struct plan *p, struct layer *l)
{
	struct node *n = l->node;
	struct tensor *a = n->inputs[0], *b = n->inputs[1], *y = n->outputs[0];
	struct tensor *c = n->n_inputs > 2 ? n->inputs[2] : NULL;
	int transA = ir_attr_int(n, "transA", 0) != 0, transB = ir_attr_int(n, "transB", 0) != 0;
	/* gemm_fc: select packed B (then 1-D) into panels and checked its shape */
	int fc = is_gemm_fc(n);
	int sg = n->primitive && strcmp(n->primitive, "gemm_sgemm") == 0;
	if (fc && b->rank == 1 && y->rank == 2)
		b = NULL;
	if (a->rank != 2 || (b && b->rank != 2) || y->rank != 2 || (c && c->rank > 2)) {
		diag_error(p->d, n, "Gemm needs 2-D A and B (got %s and %s)", shape_str(p, a),
		           shape_str(p, b));
		return -1;
	}
	int64_t M = y->dims[0], N = y->dims[1];
	int64_t K = transA ? a->dims[0] : a->dims[1];
	int64_t am = transA ? a->dims[1] : a->dims[0];
	int64_t bk = !b ? K : transB ? b->dims[1] : b->dims[0];
	int64_t bn = !b ? N : transB ? b->dims[0] : b->dims[1];
	if (am != M || bk != K || bn != N) {
		diag_error(p->d, n, "inconsistent shapes: A %s, B %s, Y %s", shape_str(p, a),
		           shape_str(p, n->inputs[1]), shape_str(p, y));
		return -1;
	}
	int64_t c_sm = 0, c_sn = 0;
	if (c) {
		int64_t cm = c->rank == 2 ? c->dims[0] : 1;
		int64_t cn = c->rank >= 1 ? c->dims[c->rank - 1] : 1;
		if ((cm != 1 && cm != M) || (cn != 1 && cn != N)) {
			diag_error(p->d, n, "C %s does not broadcast to [%" PRId64 ", %" PRId64 "]",
			           shape_str(p, c), M, N);
			return -1;
		}
		c_sn = cn == 1 ? 0 : 1;
		c_sm = cm == 1 ? 0 : cn;
	}
	if (!fits_int(p, n, M, "dimension") || !fits_int(p, n, N, "dimension") ||
	    !fits_int(p, n, K, "dimension"))
		return -1;
	l->u.gemm = (struct rt_gemm){
		.M = (int)M, .N = (int)N, .K = (int)K, .transA = transA, .transB = transB,
		.alpha = (float)ir_attr_float(n, "alpha", 1.0), .beta = (float)ir_attr_float(n, "beta", 1.0),
		.c_sm = (int)c_sm, .c_sn = (int)c_sn,
		.act = (int)n->act, .act_alpha = n->act_alpha, .act_beta = n->act_beta,
	};
	l->unit = fc ? RT_UNIT_GEMM_FC : sg ? RT_UNIT_GEMM_SGEMM : RT_UNIT_GEMM_REF;
	l->kernel = fc ? "rt_gemm_fc" : sg ? "rt_gemm_sgemm" : "rt_gemm_ref";
	if (sg) {
		l->ws_bytes = n->ws_bytes;
		l->ws_offset = n->ws_offset;
	}
	add_arg(l, a, "a");
	add_arg(l, n->inputs[1], "b");
	if (c)
		add_arg(l, c, "c");
	return 0;
}

/* ONNX MatMul (numpy.matmul): a 1-D A is [1, K] and a 1-D B is [K, 1], with
 * that dim dropped from the output; the batch dims broadcast, and the
 * kernel's batch strides count whole matrices. */
static int plan_matmul(struct plan *p, struct layer *l)
{
	struct node *n = l->node;
	struct tensor *a = n->inputs[0], *b = n->inputs[1], *y = n->outputs[0];
	if (a->rank < 1 || b->rank < 1) {
		diag_error(p->d, n, "MatMul operands must have rank >= 1");
		return -1;
	}
	if (is_gemm_fc(n)) {
		/* constant 2-D B, packed by select: every row of A, batch dims
		 * included, is one row of a Gemm [rows, K] x [K, N] */
		int64_t K = a->dims[a->rank - 1], rows = ir_numel(a) / (K ? K : 1);
		int64_t N = y->rank >= 1 && b->rank == 1 ? ir_numel(y) / (rows ? rows : 1) : 0;
		if (rows * K != ir_numel(a) || rows * N != ir_numel(y) || !fits_int(p, n, rows, "dimension") ||
		    !fits_int(p, n, N, "dimension") || !fits_int(p, n, K, "dimension"))
			return -1;
		l->u.gemm = (struct rt_gemm){
			.M = (int)rows, .N = (int)N, .K = (int)K, .alpha = 1.0f, .beta = 0.0f,
			.act = RT_ACT_NONE,
		};
		l->unit = RT_UNIT_GEMM_FC;
		l->kernel = "rt_gemm_fc";
		add_arg(l, a, "a");
		add_arg(l, b, "b");
		return 0;
	}
	int64_t M, N, K, Kb;
	ir_matmul_dims(a, b, &M, &N, &K, &Kb);
	int ra = a->rank >= 2 ? a->rank - 2 : 0, rb = b->rank >= 2 ? b->rank - 2 : 0;
	int rank = ra > rb ? ra : rb;
	int64_t dims[IR_MAX_RANK], strides[2][IR_MAX_RANK];
	int ok = K == Kb;
	for (int k = 0; ok && k < rank; k++) {
		int ka = k - (rank - ra), kb = k - (rank - rb);
		int64_t da = ka >= 0 ? a->dims[ka] : 1, db = kb >= 0 ? b->dims[kb] : 1;
		if (da != db && da != 1 && db != 1)
			ok = 0;
		dims[k] = da > db ? da : db;
	}
	if (ok)
		ok = bcast_strides(rank, dims, ra, a->dims, strides[0]) == 0 &&
		     bcast_strides(rank, dims, rb, b->dims, strides[1]) == 0;
	if (!ok || prod(dims, 0, rank) * M * N != ir_numel(y)) {
		diag_error(p->d, n, "inconsistent shapes: A %s, B %s, Y %s", shape_str(p, a),
		           shape_str(p, b), shape_str(p, y));
		return -1;
	}
	if (!fits_int(p, n, M, "dimension") || !fits_int(p, n, N, "dimension") ||
	    !fits_int(p, n, K, "dimension"))
		return -1;
	l->u.matmul.M = (int)M;
	l->u.matmul.N = (int)N;
	l->u.matmul.K = (int)K;
	if (to_bcast(p, n, rank, dims, strides, &l->u.matmul.batch))
		return -1;
	if (n->primitive && strcmp(n->primitive, "matmul_sgemm") == 0) {
		l->unit = RT_UNIT_MATMUL_SGEMM;
		l->kernel = "rt_matmul_sgemm";
		l->ws_bytes = n->ws_bytes;
		l->ws_offset = n->ws_offset;
	} else {
		l->unit = RT_UNIT_MATMUL;
		l->kernel = "rt_matmul";
	}
	add_arg(l, a, "a");
	add_arg(l, b, "b");
	return 0;
}

/* x (a) op a per-channel b in any layout but HCW (passes/nonconv.c NC_CHAN);
 * -1 when it is not that. */
static int plan_chan_binary(struct layer *l, struct tensor *a, struct tensor *b,
                            struct tensor *y)
{
	int sn, sc, op = l->u.binary.op, blk = y->layout == LAYOUT_HCW ? -2 : cl_block(y);
	if (nc_kind_of(l->node) != NC_CHAN || nc_chan_strides(l->node, &sn, &sc) || blk < -1 ||
	    a->layout != y->layout || (b->layout != LAYOUT_MODEL && b->layout != LAYOUT_CHW) ||
	    op == RT_DIV || op == RT_POW)
		return -1;
	l->block = blk;
	l->u.binary.b = (struct rt_bcast){.rank = 5, .dims = {(int)y->dims[0], (int)y->dims[1],
	                                  (int)(y->dims[2] * y->dims[3]), sn, sc}};
	l->unit = RT_UNIT_CHAN_BINARY;
	l->kernel = "rt_chan_binary";
	add_arg(l, a, "x");
	add_arg(l, b, "p");
	return 0;
}

static int plan_binary(struct plan *p, struct layer *l)
{
	struct node *n = l->node;
	struct tensor *a = n->inputs[0], *b = n->inputs[1], *y = n->outputs[0];
	int64_t dims[IR_MAX_RANK], strides[2][IR_MAX_RANK];
	for (int k = 0; k < y->rank; k++)
		dims[k] = y->dims[k];
	if (bcast_strides(y->rank, dims, a->rank, a->dims, strides[0]) ||
	    bcast_strides(y->rank, dims, b->rank, b->dims, strides[1])) {
		diag_error(p->d, n, "%s and %s do not broadcast to %s", shape_str(p, a),
		           shape_str(p, b), shape_str(p, y));
		return -1;
	}
	static const int ops[] = {[OP_ADD] = RT_ADD, [OP_SUB] = RT_SUB, [OP_MUL] = RT_MUL,
	                          [OP_DIV] = RT_DIV, [OP_POW] = RT_POW, [OP_PRELU] = RT_PRELU,
	                          [OP_MAX] = RT_MAX, [OP_MIN] = RT_MIN, [OP_SUM] = RT_ADD};
	l->u.binary.op = ops[n->op];
	int same = a->layout == y->layout && b->layout == y->layout && a->rank == y->rank &&
	           b->rank == y->rank;
	for (int k = 0; same && k < y->rank; k++)
		same = a->dims[k] == y->dims[k] && b->dims[k] == y->dims[k];
	int op = l->u.binary.op;
	if (same && a->dtype == DTYPE_F32 && (op == RT_ADD || op == RT_SUB || op == RT_MUL ||
	                                      op == RT_MAX || op == RT_MIN)) {
		/* one shape, one layout: element order does not matter (eltwise.c) */
		l->u.binary.n = (int64_t)(ir_nbytes(y) / sizeof(float));
		l->unit = RT_UNIT_ELTWISE;
		l->kernel = "rt_eltwise";
		add_arg(l, a, "a");
		add_arg(l, b, "b");
		return 0;
	}
	if (plan_chan_binary(l, a, b, y) == 0)
		return 0; /* a per-channel operand, in x's layout (chan_binary.c) */
	if (a->layout != LAYOUT_MODEL || b->layout != LAYOUT_MODEL || y->layout != LAYOUT_MODEL) {
		diag_error(p->d, n, "internal error: broadcasting %s and %s to %s", emit_tensor_desc(p, a),
		           emit_tensor_desc(p, b), emit_tensor_desc(p, y));
		return -1;
	}
	if (to_bcast(p, n, y->rank, dims, strides, &l->u.binary.b))
		return -1;
	l->unit = RT_UNIT_BINARY;
	l->kernel = "rt_binary";
	add_arg(l, a, "a");
	add_arg(l, b, "b");
	return 0;
}

static int plan_unary(struct plan *p, struct layer *l)
{
	struct node *n = l->node;
	struct tensor *x = n->inputs[0], *y = n->outputs[0];
	/* enum act and RT_ACT_* agree (asserted in emit_print.c). */
	l->u.unary.act = (int)ir_act_of(n, &l->u.unary.alpha, &l->u.unary.beta);
	if (l->u.unary.act == ACT_NONE)
		unreachable("not a unary op");
	if (ir_numel(x) != ir_numel(y)) {
		diag_error(p->d, n, "input %s and output %s differ in size", shape_str(p, x),
		           shape_str(p, y));
		return -1;
	}
	if (x->layout != y->layout) {
		diag_error(p->d, n, "internal error: %s from %s", emit_tensor_desc(p, y), emit_tensor_desc(p, x));
		return -1;
	}
	l->u.unary.n = (int64_t)(ir_nbytes(y) / sizeof(float)); /* any layout: element-wise */
	l->unit = RT_UNIT_UNARY;
	if (n->op == OP_RELU || n->op == OP_LEAKY_RELU) {
		l->unit = RT_UNIT_ACT_VEC; /* vectorised */
		l->kernel = "rt_act_vec";
		add_arg(l, x, "x");
		return 0;
	}
	if (n->op == OP_SIGMOID) {
		l->unit = RT_UNIT_UNARY_VEC; /* vectorised exp */
		l->kernel = "rt_unary_vec";
		l->u.unary.act = RT_MATH_SIGMOID;
		add_arg(l, x, "x");
		return 0;
	}
	l->kernel = "rt_unary";
	add_arg(l, x, "x");
	return 0;
}

/* Elementwise math (runtime/unary_math.c): the function, and which canonical
 * attributes become its alpha and beta (ir/math_ops.def). */
static const struct math_row {
	enum op op;
	int fn;            /* enum rt_math_fn */
	const char *alpha; /* attribute read as alpha, or NULL */
	const char *beta;  /* attribute read as beta, or NULL */
} math_rows[] = {
#define MATH(op, fn, alpha, alpha_dflt, beta, beta_dflt) {op, fn, alpha, beta},
#include "ir/math_ops.def"
#undef MATH
};

static const struct math_row *math_row_of(enum op op)
{
	for (size_t i = 0; i < sizeof math_rows / sizeof math_rows[0]; i++)
		if (math_rows[i].op == op)
			return &math_rows[i];
	return NULL;
}

static int plan_math(struct plan *p, struct layer *l)
{
	struct node *n = l->node;
	struct tensor *x = n->inputs[0], *y = n->outputs[0];
	const struct math_row *r = math_row_of(n->op);
	if (!r)
		unreachable("plan_math: not an elementwise math op");
	l->u.unary.act = r->fn;
	if (n->op == OP_GELU && strcmp(ir_attr_string(n, "approximate", "none"), "tanh") == 0)
		l->u.unary.act = RT_MATH_GELU_TANH;
	l->u.unary.alpha = r->alpha ? (float)ir_attr_float(n, r->alpha, 0.0) : 0.0f;
	l->u.unary.beta = r->beta ? (float)ir_attr_float(n, r->beta, 0.0) : 0.0f;
	if (ir_numel(x) != ir_numel(y)) {
		diag_error(p->d, n, "input %s and output %s differ in size", shape_str(p, x),
		           shape_str(p, y));
		return -1;
	}
	l->u.unary.n = ir_numel(y);
	if (rt_unary_vec_has(l->u.unary.act)) {
		l->unit = RT_UNIT_UNARY_VEC;
		l->kernel = "rt_unary_vec";
		add_arg(l, x, "x");
		return 0;
	}
	l->unit = RT_UNIT_UNARY_MATH;
	l->kernel = "rt_unary_math";
	add_arg(l, x, "x");
	return 0;
}

/* The canonical "axes" (ascending, never empty) split x's dims into kept and
 * reduced ones, each with its x stride, in row-major order (struct
 * rt_reduce). Returns the number of elements kept, or -1. */
static int64_t split_axes(struct plan *p, struct node *n, const struct tensor *x,
                          struct rt_reduce *r)
{
	struct attr *a = ir_attr(n, "axes");
	unsigned char red[IR_MAX_RANK] = {0};
	if (!a || a->kind != ATTR_INTS || a->n < 1) {
		diag_error(p->d, n, "internal error: no canonical axes");
		return -1;
	}
	for (int i = 0; i < a->n; i++) {
		if (a->ints[i] < 0 || a->ints[i] >= x->rank) {
			diag_error(p->d, n, "internal error: axis %" PRId64 " out of range", a->ints[i]);
			return -1;
		}
		red[a->ints[i]] = 1;
	}
	int64_t stride[IR_MAX_RANK], s = 1, kept = 1;
	for (int i = x->rank - 1; i >= 0; i--) {
		stride[i] = s;
		s *= x->dims[i];
	}
	r->n_out = r->n_red = 0;
	for (int i = 0; i < x->rank; i++) {
		if (!fits_int(p, n, x->dims[i], "dimension") || !fits_int(p, n, stride[i], "stride"))
			return -1;
		if (red[i]) {
			r->red_dims[r->n_red] = (int)x->dims[i];
			r->red_sx[r->n_red++] = (int)stride[i];
		} else {
			r->out_dims[r->n_out] = (int)x->dims[i];
			r->out_sx[r->n_out++] = (int)stride[i];
			kept *= x->dims[i];
		}
	}
	return kept;
}

/* Reductions (runtime/reduce.c). */
static int plan_reduce(struct plan *p, struct layer *l)
{
	static const struct {
		enum op op;
		int rt; /* enum rt_reduce_op */
	} rows[] = {
		{OP_REDUCE_SUM, RT_REDUCE_SUM},       {OP_REDUCE_MEAN, RT_REDUCE_MEAN},
		{OP_REDUCE_MAX, RT_REDUCE_MAX},       {OP_REDUCE_MIN, RT_REDUCE_MIN},
		{OP_REDUCE_PROD, RT_REDUCE_PROD},     {OP_REDUCE_L1, RT_REDUCE_L1},
		{OP_REDUCE_L2, RT_REDUCE_L2},         {OP_REDUCE_LOG_SUM, RT_REDUCE_LOG_SUM},
		{OP_REDUCE_LOG_SUM_EXP, RT_REDUCE_LOG_SUM_EXP},
		{OP_REDUCE_SUM_SQUARE, RT_REDUCE_SUM_SQUARE},
	};
	struct node *n = l->node;
	struct tensor *x = n->inputs[0], *y = n->outputs[0]; /* y: x with reduced dims 1 or gone */
	l->u.reduce.op = -1;
	for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++)
		if (rows[i].op == n->op)
			l->u.reduce.op = rows[i].rt;
	if (l->u.reduce.op < 0)
		unreachable("plan_reduce: not a reduction");
	int64_t kept = split_axes(p, n, x, &l->u.reduce.r);
	if (kept < 0)
		return -1;
	if (kept != ir_numel(y)) {
		diag_error(p->d, n, "output %s does not match input %s reduced over its axes",
		           shape_str(p, y), shape_str(p, x));
		return -1;
	}
	l->unit = RT_UNIT_REDUCE;
	l->kernel = "rt_reduce";
	add_arg(l, x, "x");
	return 0;
}

/* Normalisations (runtime/normalize.c): groups from the canonical axes;
 * LayerNormalization's Scale and B run along the group (or are one value),
 * InstanceNormalization's along the channel, the group's last kept dim. */
static int plan_norm(struct plan *p, struct layer *l)
{
	struct node *n = l->node;
	struct tensor *x = n->inputs[0], *y = n->outputs[0];
	struct tensor *scale = n->n_inputs > 1 ? n->inputs[1] : NULL;
	struct tensor *bias = n->n_inputs > 2 ? n->inputs[2] : NULL;
	struct rt_norm *c = &l->u.norm;
	if (split_axes(p, n, x, &c->r) < 0)
		return -1;
	if (ir_numel(x) != ir_numel(y)) {
		diag_error(p->d, n, "input %s and output %s differ in size", shape_str(p, x),
		           shape_str(p, y));
		return -1;
	}
	c->epsilon = (float)ir_attr_float(n, "epsilon", 1e-5);
	c->eps_outside = n->op == OP_MVN;
	c->s_mod = 1;
	c->s_o = c->s_t = 0;
	if (n->op == OP_INSTANCE_NORM) {
		c->s_mod = (int)x->dims[1];
		c->s_o = 1;
	} else if (n->op == OP_LAYER_NORM) {
		c->s_t = ir_numel(scale) == 1 ? 0 : 1;
		if (bias && (ir_numel(bias) == 1) != (ir_numel(scale) == 1)) {
			diag_error(p->d, n, "Scale %s and B %s must both be one value or both full",
			           shape_str(p, scale), shape_str(p, bias));
			return -1;
		}
	}
	l->unit = RT_UNIT_NORMALIZE;
	l->kernel = "rt_normalize";
	add_arg(l, x, "x");
	if (scale)
		add_arg(l, scale, "scale");
	if (bias)
		add_arg(l, bias, "bias");
	return 0;
}

/* Clip with a bound computed at run time: input 1 (min) and/or 2 (max) is a
 * float32 scalar, an absent one comes from the attribute (canonical form). */
static int plan_clip(struct plan *p, struct layer *l)
{
	struct node *n = l->node;
	struct tensor *x = n->inputs[0], *y = n->outputs[0];
	struct tensor *lo = n->n_inputs > 1 ? n->inputs[1] : NULL; /* scalar, or NULL */
	struct tensor *hi = n->n_inputs > 2 ? n->inputs[2] : NULL; /* scalar, or NULL */
	if (ir_numel(x) != ir_numel(y)) {
		diag_error(p->d, n, "input %s and output %s differ in size", shape_str(p, x),
		           shape_str(p, y));
		return -1;
	}
	if ((lo && ir_numel(lo) != 1) || (hi && ir_numel(hi) != 1)) {
		diag_error(p->d, n, "internal error: a Clip bound is not a scalar");
		return -1;
	}
	l->u.clip.n = ir_numel(y);
	l->u.clip.has_lo = lo != NULL;
	l->u.clip.has_hi = hi != NULL;
	l->u.clip.lo = (float)ir_attr_float(n, "min", -HUGE_VAL);
	l->u.clip.hi = (float)ir_attr_float(n, "max", HUGE_VAL);
	l->unit = RT_UNIT_CLIP;
	l->kernel = "rt_clip";
	add_arg(l, x, "x");
	if (lo)
		add_arg(l, lo, "lo");
	if (hi)
		add_arg(l, hi, "hi");
	return 0;
}

/* Softmax along axis: [outer, len, inner]; coerce_2d (opset < 13) reduces over
 * every dim from axis on. */
static int plan_softmax(struct plan *p, struct layer *l)
{
	struct node *n = l->node;
	struct tensor *x = n->inputs[0];
	int64_t axis = ir_attr_int(n, "axis", x->rank - 1);
	int coerce = ir_attr_int(n, "coerce_2d", 0) != 0;
	if (x->rank == 0)
		axis = 0;
	else if (axis < 0 || axis >= x->rank) {
		diag_error(p->d, n, "axis %" PRId64 " out of range for %s", axis, shape_str(p, x));
		return -1;
	}
	int ax = (int)axis;
	int64_t outer = prod(x->dims, 0, ax < x->rank ? ax : x->rank);
	int64_t len = x->rank == 0 ? 1 : coerce ? prod(x->dims, ax, x->rank) : x->dims[ax];
	int64_t inner = x->rank == 0 || coerce ? 1 : prod(x->dims, ax + 1, x->rank);
	if (!fits_int(p, n, outer, "size") || !fits_int(p, n, len, "size") ||
	    !fits_int(p, n, inner, "size"))
		return -1;
	l->u.softmax.outer = (int)outer;
	l->u.softmax.len = (int)len;
	l->u.softmax.inner = (int)inner;
	l->u.softmax.log = n->op == OP_LOG_SOFTMAX;
	l->unit = RT_UNIT_SOFTMAX_VEC; /* Hardmax: its own kernel, set by the caller */
	l->kernel = "rt_softmax_vec";
	add_arg(l, x, "x");
	return 0;
}

static int plan_global_pool(struct plan *p, struct layer *l)
{
	struct node *n = l->node;
	struct tensor *x = n->inputs[0];
	if (x->rank < 3) {
		diag_error(p->d, n, "input %s must have rank >= 3", shape_str(p, x));
		return -1;
	}
	int64_t nc = x->dims[0] * x->dims[1], hw = prod(x->dims, 2, x->rank);
	if (!fits_int(p, n, nc, "size") || !fits_int(p, n, hw, "size"))
		return -1;
	l->u.global.nc = (int)nc;
	l->u.global.hw = (int)hw;
	int avg = n->op == OP_GLOBAL_AVGPOOL;
	l->unit = avg ? RT_UNIT_GLOBAL_AVGPOOL : RT_UNIT_GLOBAL_MAXPOOL;
	l->kernel = avg ? "rt_global_avgpool" : "rt_global_maxpool";
	if ((l->block = cl_block(x)) >= 0) { /* y [N, C] in the model's layout */
		if (x->rank != 4 || n->outputs[0]->layout != LAYOUT_MODEL) {
			diag_error(p->d, n, "internal error: global pooling of %s", emit_tensor_desc(p, x));
			return -1;
		}
		l->u.global.N = (int)x->dims[0];
		l->u.global.C = (int)x->dims[1];
		l->unit = RT_UNIT_GLOBAL_POOL_CL;
		l->kernel = "rt_global_pool_cl";
	}
	add_arg(l, x, "x");
	return 0;
}

static int plan_lrn(struct plan *p, struct layer *l)
{
	struct node *n = l->node;
	struct tensor *x = n->inputs[0];
	int64_t size = ir_attr_int(n, "size", 0);
	if (x->rank < 2 || size < 1) {
		diag_error(p->d, n, "LRN needs an input of rank >= 2 and size >= 1");
		return -1;
	}
	int64_t hw = prod(x->dims, 2, x->rank);
	if (!fits_int(p, n, x->dims[0], "size") || !fits_int(p, n, x->dims[1], "size") ||
	    !fits_int(p, n, hw, "size") || !fits_int(p, n, size, "size"))
		return -1;
	l->u.lrn.N = (int)x->dims[0];
	l->u.lrn.C = (int)x->dims[1];
	l->u.lrn.HW = (int)hw;
	l->u.lrn.size = (int)size;
	l->u.lrn.alpha = (float)ir_attr_float(n, "alpha", 1e-4);
	l->u.lrn.beta = (float)ir_attr_float(n, "beta", 0.75);
	l->u.lrn.bias = (float)ir_attr_float(n, "bias", 1.0);
	l->unit = RT_UNIT_LRN;
	l->kernel = "rt_lrn";
	add_arg(l, x, "x");
	return 0;
}

/* BatchNormalization with statistics read at run time, x viewed as
 * [N, C, HW]; scale, B, mean and var [C] each. */
static int plan_batchnorm(struct plan *p, struct layer *l)
{
	struct node *n = l->node;
	struct tensor *x = n->inputs[0];
	static const char *const names[5] = {"x", "scale", "bias", "mean", "var"};
	if (x->rank < 2 || n->n_inputs != 5) {
		diag_error(p->d, n, "internal error: BatchNormalization needs X of rank >= 2 and "
		           "four statistics");
		return -1;
	}
	for (int k = 1; k < 5; k++) {
		if (ir_numel(n->inputs[k]) != x->dims[1]) {
			diag_error(p->d, n, "internal error: %s %s does not have %" PRId64 " values",
			           names[k], shape_str(p, n->inputs[k]), x->dims[1]);
			return -1;
		}
	}
	int64_t hw = prod(x->dims, 2, x->rank);
	if (!fits_int(p, n, x->dims[0], "size") || !fits_int(p, n, x->dims[1], "size") ||
	    !fits_int(p, n, hw, "size"))
		return -1;
	l->u.batchnorm.N = (int)x->dims[0];
	l->u.batchnorm.C = (int)x->dims[1];
	l->u.batchnorm.HW = (int)hw;
	l->u.batchnorm.epsilon = (float)ir_attr_float(n, "epsilon", 1e-5);
	l->unit = RT_UNIT_BATCHNORM;
	l->kernel = "rt_batchnorm";
	for (int k = 0; k < 5; k++)
		add_arg(l, n->inputs[k], names[k]);
	return 0;
}

/* The output viewed as [outer, total] and each input as [outer, part]. */
static int plan_concat(struct plan *p, struct layer *l)
{
	struct node *n = l->node;
	struct tensor *y = n->outputs[0];
	int64_t axis = ir_attr_int(n, "axis", 0);
	int k = n->n_inputs;
	if (axis < 0 || axis >= y->rank || k < 1 || k > CONCAT_MAX_INPUTS) {
		diag_error(p->d, n, "axis %" PRId64 " or %d inputs out of range", axis, k);
		return -1;
	}
	int ax = (int)axis;
	/* Zero-copy (plan_memory made every input a slice of y): no code. */
	int sliced = 1;
	for (int i = 0; i < k; i++)
		sliced &= n->inputs[i] && n->inputs[i]->alias == y;
	if (sliced) {
		l->is_view = 1;
		use_tensor(p, n, y);
		return 0;
	}
	int64_t outer = prod(y->dims, 0, ax), inner = prod(y->dims, ax + 1, y->rank);
	int64_t blk = y->layout == LAYOUT_CHW8C ? 8 : y->layout == LAYOUT_CHW16C ? 16 : 1;
	if (y->layout != LAYOUT_MODEL) {
		/* channels of another layout: [N][H][C][W] is [N*H, C*W]; [N][H][W][C] is
		 * [N*H*W, C]; [N][C/b][H][W][b] is [N, C*H*W] (each C a multiple of b) */
		int ok = ax == 1 && y->rank == 4;
		for (int i = 0; ok && i < k; i++)
			ok = n->inputs[i] && n->inputs[i]->layout == y->layout &&
			     n->inputs[i]->rank == 4 && n->inputs[i]->dims[1] % blk == 0;
		if (!ok) {
			diag_error(p->d, n, "internal error: Concat on axis %" PRId64 " into %s", axis,
			           emit_tensor_desc(p, y));
			return -1;
		}
		if (y->layout == LAYOUT_HCW) {
			outer = y->dims[0] * y->dims[2];
			inner = y->dims[3];
		} else if (y->layout == LAYOUT_HWC) {
			outer = y->dims[0] * y->dims[2] * y->dims[3];
			inner = 1;
		}
	}
	int64_t total = y->dims[ax] * inner, offset = 0;
	if (!fits_int(p, n, outer, "size") || !fits_int(p, n, total, "size"))
		return -1;
	l->u.concat.outer = (int)outer;
	l->u.concat.total = (int)total;
	l->u.concat.part = emit_plan_keep(p, xcalloc(k, sizeof(int)));
	l->u.concat.offset = emit_plan_keep(p, xcalloc(k, sizeof(int)));
	for (int i = 0; i < k; i++) {
		struct tensor *x = n->inputs[i];
		int same = x && x->rank == y->rank;
		for (int d = 0; same && d < y->rank; d++)
			same = d == ax || x->dims[d] == y->dims[d];
		if (!same) {
			diag_error(p->d, n, "input %d does not match the output %s on the other axes", i,
			           shape_str(p, y));
			return -1;
		}
		l->u.concat.part[i] = (int)(x->dims[ax] * inner);
		l->u.concat.offset[i] = (int)offset;
		offset += x->dims[ax] * inner;
		add_arg(l, x, emit_plan_fmt(p, "x%d", i));
	}
	if (offset != total) {
		diag_error(p->d, n, "inputs do not add up to the output %s", shape_str(p, y));
		return -1;
	}
	l->unit = RT_UNIT_CONCAT;
	l->kernel = "rt_concat_part";
	return 0;
}

static int plan_transpose(struct plan *p, struct layer *l)
{
	struct node *n = l->node;
	struct tensor *x = n->inputs[0], *y = n->outputs[0];
	const int64_t *perm;
	int np = ir_attr_ints(n, "perm", &perm);
	int64_t rev[IR_MAX_RANK];
	if (np == 0) { /* ONNX default: reverse the dims */
		for (int k = 0; k < x->rank; k++)
			rev[k] = x->rank - 1 - k;
		perm = rev;
		np = x->rank;
	}
	int64_t xs[IR_MAX_RANK], dims[IR_MAX_RANK], strides[1][IR_MAX_RANK], s = 1;
	int seen[IR_MAX_RANK] = {0};
	int ok = np == x->rank && y->rank == x->rank;
	for (int k = x->rank - 1; k >= 0; k--) {
		xs[k] = s;
		s *= x->dims[k];
	}
	for (int k = 0; ok && k < np; k++) {
		if (perm[k] < 0 || perm[k] >= x->rank || seen[perm[k]]++ ||
		    y->dims[k] != x->dims[perm[k]]) {
			ok = 0;
			break;
		}
		dims[k] = x->dims[perm[k]];
		strides[0][k] = xs[perm[k]];
	}
	if (!ok || !fits_int(p, n, ir_numel(x), "size")) {
		if (!ok)
			diag_error(p->d, n, "perm does not permute %s into %s", shape_str(p, x),
			           shape_str(p, y));
		return -1;
	}
	int rank = merge_dims(np, dims, 1, strides);
	struct rt_transpose *t = &l->u.transpose;
	t->rank = rank;
	for (int k = 0; k < rank; k++) {
		t->dims[k] = (int)dims[k];
		t->sx[k] = (int)strides[0][k];
	}
	l->unit = RT_UNIT_TRANSPOSE;
	l->kernel = "rt_transpose";
	add_arg(l, x, "x");
	return 0;
}

/* y, dense over dims[rank], read from x (the layer's first argument) as
 *   y[i] = x[x_offset + sum(i[d] * sx[d])]
 * with any strides (negative for a reversed Slice, 0 where Expand
 * broadcasts): rt_transpose from x + x_offset. */
static int plan_strided(struct plan *p, struct layer *l, int rank, int64_t *dims, int64_t *sx,
                        int64_t x_offset)
{
	struct node *n = l->node;
	int64_t strides[1][IR_MAX_RANK];
	memcpy(strides[0], sx, (size_t)rank * sizeof *sx);
	int r = merge_dims(rank, dims, 1, strides);
	if (r > RT_MAX_RANK) {
		diag_error(p->d, n, "needs a %d-D strided copy; at most %d-D is supported", r,
		           RT_MAX_RANK);
		return -1;
	}
	if (!fits_int(p, n, ir_numel(n->inputs[0]), "size") ||
	    !fits_int(p, n, ir_numel(n->outputs[0]), "size"))
		return -1;
	struct rt_transpose *t = &l->u.strided.t;
	t->rank = r;
	for (int k = 0; k < r; k++) {
		t->dims[k] = (int)dims[k];
		t->sx[k] = (int)strides[0][k];
	}
	l->u.strided.x_offset = x_offset;
	l->unit = RT_UNIT_TRANSPOSE;
	l->kernel = "rt_transpose";
	add_arg(l, n->inputs[0], "x");
	return 0;
}

/* Slice in canonical form: y[i] = x[starts + i * steps]. */
static int plan_slice(struct plan *p, struct layer *l)
{
	struct node *n = l->node;
	struct tensor *x = n->inputs[0], *y = n->outputs[0];
	const int64_t *starts, *steps;
	if (ir_attr_ints(n, "starts", &starts) != x->rank ||
	    ir_attr_ints(n, "steps", &steps) != x->rank || y->rank != x->rank) {
		diag_error(p->d, n, "Slice is not in canonical form");
		return -1;
	}
	int64_t dims[IR_MAX_RANK], sx[IR_MAX_RANK], s = 1, base = 0;
	for (int k = x->rank - 1; k >= 0; k--) {
		dims[k] = y->dims[k];
		sx[k] = steps[k] * s;
		base += starts[k] * s;
		s *= x->dims[k];
	}
	return plan_strided(p, l, x->rank, dims, sx, base);
}

/* Expand: x read broadcast to y's shape, stride 0 on the broadcast dims. */
static int plan_expand(struct plan *p, struct layer *l)
{
	struct tensor *x = l->node->inputs[0], *y = l->node->outputs[0];
	int64_t dims[IR_MAX_RANK], sx[IR_MAX_RANK];
	if (bcast_strides(y->rank, y->dims, x->rank, x->dims, sx) < 0) {
		diag_error(p->d, l->node, "%s does not broadcast to %s", shape_str(p, x),
		           shape_str(p, y));
		return -1;
	}
	memcpy(dims, y->dims, (size_t)y->rank * sizeof *dims);
	return plan_strided(p, l, y->rank, dims, sx, 0);
}

/* Tile: output dim d, of size repeats[d] * x dim d, is read as the pair
 * (repeat, index) row-major, so y is dense over [r0, d0, r1, d1, ...] with x
 * strides [0, s0, 0, s1, ...]; the pairs' dims of size 1 are left out. */
static int plan_tile(struct plan *p, struct layer *l)
{
	struct node *n = l->node;
	struct tensor *x = n->inputs[0], *y = n->outputs[0];
	int64_t dims[2 * IR_MAX_RANK], sx[2 * IR_MAX_RANK], s = 1;
	int r = 2 * IR_MAX_RANK; /* filled from the back */
	for (int k = x->rank - 1; k >= 0; k--) {
		if (x->dims[k] == 0 || y->dims[k] % x->dims[k]) {
			diag_error(p->d, n, "%s is not a tiling of %s", shape_str(p, y), shape_str(p, x));
			return -1;
		}
		if (x->dims[k] != 1) {
			dims[--r] = x->dims[k];
			sx[r] = s;
		}
		if (y->dims[k] != x->dims[k]) {
			dims[--r] = y->dims[k] / x->dims[k];
			sx[r] = 0;
		}
		s *= x->dims[k];
	}
	if (2 * IR_MAX_RANK - r > IR_MAX_RANK) {
		diag_error(p->d, n, "tiling %s into %s needs a %d-D strided copy; at most %d-D is "
		           "supported", shape_str(p, x), shape_str(p, y), 2 * IR_MAX_RANK - r,
		           IR_MAX_RANK);
		return -1;
	}
	return plan_strided(p, l, 2 * IR_MAX_RANK - r, dims + r, sx + r, 0);
}

/* DepthToSpace and SpaceToDepth (x, y [N, C, H, W], blocksize b) as
 * strided copies over 6-D views of y, after the reshape and transpose of
 * the ONNX operator pages:
 *   DepthToSpace DCR: y [N, C', H, b1, W, b2] = x[N, (b1 * b + b2) * C' + c', H, W]
 *   DepthToSpace CRD: y [N, C', H, b1, W, b2] = x[N, c' * b^2 + b1 * b + b2, H, W]
 *   SpaceToDepth:     y [N, b1, b2, C, H', W'] = x[N, C, h' * b + b1, w' * b + b2]
 * with C' = C / b^2 and y's channel (b1 * b + b2) * C + c for SpaceToDepth. */
static int plan_depth_space(struct plan *p, struct layer *l)
{
	struct node *n = l->node;
	struct tensor *x = n->inputs[0];
	int64_t b = ir_attr_int(n, "blocksize", 1);
	int64_t N = x->dims[0], C = x->dims[1], H = x->dims[2], W = x->dims[3], HW = H * W;
	int64_t dims[6], sx[6];
	if (n->op == OP_SPACE_TO_DEPTH) {
		int64_t d[6] = {N, b, b, C, H / b, W / b}, s[6] = {C * HW, W, 1, HW, b * W, b};
		memcpy(dims, d, sizeof d);
		memcpy(sx, s, sizeof s);
	} else {
		int64_t Co = C / (b * b);
		int crd = strcmp(ir_attr_string(n, "mode", "DCR"), "CRD") == 0;
		int64_t d[6] = {N, Co, H, b, W, b};
		int64_t s[6] = {C * HW, crd ? b * b * HW : HW, W, crd ? b * HW : b * Co * HW, 1,
		                crd ? HW : Co * HW};
		memcpy(dims, d, sizeof d);
		memcpy(sx, s, sizeof s);
	}
	return plan_strided(p, l, 6, dims, sx, 0);
}

/* Resize in canonical form: the last two dims resized, the others folded
 * into outer. */
/* Resize with cubic mode or a third resized dim: resize3d.c over the last
 * three dims (a rank-2 input gets D = 1). */
static int plan_resize3d(struct plan *p, struct layer *l, int coord, int rounding)
{
	struct node *n = l->node;
	struct tensor *x = n->inputs[0], *y = n->outputs[0];
	const int r = x->rank;
	const char *mode = ir_attr_string(n, "mode", "");
	struct rt_resize3d *c = &l->u.resize3d;
	memset(c, 0, sizeof *c);
	for (int i = 0; i < 3; i++) {
		c->in[i] = r - 3 + i >= 0 ? (int)x->dims[r - 3 + i] : 1;
		c->out[i] = r - 3 + i >= 0 ? (int)y->dims[r - 3 + i] : 1;
	}
	c->outer = (int)(ir_numel(x) / ((int64_t)c->in[0] * c->in[1] * c->in[2]));
	c->scale[0] = ir_attr_float(n, "scale_d", 1.0);
	c->scale[1] = ir_attr_float(n, "scale_h", 1.0);
	c->scale[2] = ir_attr_float(n, "scale_w", 1.0);
	c->mode = strcmp(mode, "cubic") == 0 ? 2 : strcmp(mode, "linear") == 0 ? 1 : 0;
	c->coord = coord;
	c->rounding = rounding;
	c->cubic_a = (float)ir_attr_float(n, "cubic_coeff_a", -0.75);
	c->exclude_outside = ir_attr_int(n, "exclude_outside", 0) != 0;
	l->unit = RT_UNIT_RESIZE3D;
	l->kernel = "rt_resize3d";
	add_arg(l, x, "x");
	return 0;
}

static int plan_resize(struct plan *p, struct layer *l)
{
	struct node *n = l->node;
	struct tensor *x = n->inputs[0], *y = n->outputs[0];
	static const char *const coords[] = {"half_pixel", "pytorch_half_pixel", "asymmetric",
	                                     "align_corners", "tf_half_pixel_for_nn"};
	static const char *const roundings[] = {"round_prefer_floor", "round_prefer_ceil", "floor",
	                                        "ceil"};
	const char *coord = ir_attr_string(n, "coordinate_transformation_mode", "");
	const char *rounding = ir_attr_string(n, "nearest_mode", "");
	struct rt_resize *rs = &l->u.resize;
	rs->coord = rs->rounding = -1;
	for (int i = 0; i < 5; i++)
		if (strcmp(coord, coords[i]) == 0)
			rs->coord = i;
	for (int i = 0; i < 4; i++)
		if (strcmp(rounding, roundings[i]) == 0)
			rs->rounding = i;
	int r = x->rank;
	if (rs->coord < 0 || rs->rounding < 0 || r < 2 || y->rank != r) {
		diag_error(p->d, n, "Resize is not in canonical form");
		return -1;
	}
	if (!fits_int(p, n, ir_numel(x), "size") || !fits_int(p, n, ir_numel(y), "size"))
		return -1;
	if (ir_attr(n, "scale_d"))
		return plan_resize3d(p, l, rs->coord, rs->rounding);
	rs->outer = (int)(ir_numel(x) / (x->dims[r - 2] * x->dims[r - 1]));
	rs->in_h = (int)x->dims[r - 2];
	rs->in_w = (int)x->dims[r - 1];
	rs->out_h = (int)y->dims[r - 2];
	rs->out_w = (int)y->dims[r - 1];
	rs->scale_h = ir_attr_float(n, "scale_h", 1.0);
	rs->scale_w = ir_attr_float(n, "scale_w", 1.0);
	rs->linear = strcmp(ir_attr_string(n, "mode", ""), "linear") == 0;
	l->unit = RT_UNIT_RESIZE;
	l->kernel = "rt_resize";
	add_arg(l, x, "x");
	return 0;
}

/* ConvTranspose in canonical form: the reference scatter kernel. */
static int plan_conv_transpose(struct plan *p, struct layer *l)
{
	struct node *n = l->node;
	struct tensor *x = n->inputs[0], *w = n->inputs[1], *y = n->outputs[0];
	struct tensor *b = n->n_inputs > 2 ? n->inputs[2] : NULL;
	const int64_t *st, *dl, *pd;
	if (x->rank != 4)
		return plan_window3d(p, l);
	if (ir_attr_ints(n, "strides", &st) != 2 || ir_attr_ints(n, "dilations", &dl) != 2 ||
	    ir_attr_ints(n, "pads", &pd) != 2) {
		diag_error(p->d, n, "ConvTranspose is not in canonical form");
		return -1;
	}
	if (!fits_int(p, n, ir_numel(x), "size") || !fits_int(p, n, ir_numel(y), "size"))
		return -1;
	struct rt_conv2d *c = &l->u.conv;
	memset(c, 0, sizeof *c);
	c->N = (int)x->dims[0];
	c->C = (int)x->dims[1];
	c->H = (int)x->dims[2];
	c->W = (int)x->dims[3];
	c->M = (int)y->dims[1];
	c->oH = (int)y->dims[2];
	c->oW = (int)y->dims[3];
	c->kH = (int)w->dims[2];
	c->kW = (int)w->dims[3];
	c->sH = (int)st[0];
	c->sW = (int)st[1];
	c->dH = (int)dl[0];
	c->dW = (int)dl[1];
	c->padT = (int)pd[0];
	c->padL = (int)pd[1];
	c->group = (int)ir_attr_int(n, "group", 1);
	l->unit = RT_UNIT_CONV_TRANSPOSE;
	l->kernel = "rt_conv_transpose_ref";
	add_arg(l, x, "x");
	add_arg(l, w, "w");
	if (b)
		add_arg(l, b, "bias");
	return 0;
}

static int plan_pad(struct plan *p, struct layer *l)
{
	struct node *n = l->node;
	struct tensor *x = n->inputs[0], *y = n->outputs[0];
	const int64_t *pads;
	int np = ir_attr_ints(n, "pads", &pads);
	const char *mode = ir_attr_string(n, "mode", "constant");
	int constant = strcmp(mode, "constant") == 0;
	if (!constant && strcmp(mode, "edge") != 0 && strcmp(mode, "reflect") != 0) {
		diag_error(p->d, n, "Pad mode '%s' is not supported (constant, edge, reflect)", mode);
		return -1;
	}
	int ok = np == 2 * x->rank && y->rank == x->rank;
	for (int k = 0; ok && k < x->rank; k++)
		ok = x->dims[k] + pads[k] + pads[x->rank + k] == y->dims[k] && pads[k] > INT_MIN &&
		     pads[k] < INT_MAX && fits_int(p, n, x->dims[k], "dimension") &&
		     fits_int(p, n, y->dims[k], "dimension");
	if (!ok) {
		diag_error(p->d, n, "pads do not take %s to %s", shape_str(p, x), shape_str(p, y));
		return -1;
	}
	struct rt_pad *pd = &l->u.pad;
	pd->rank = x->rank;
	for (int k = 0; k < x->rank; k++) {
		pd->in_dims[k] = (int)x->dims[k];
		pd->out_dims[k] = (int)y->dims[k];
		pd->begin[k] = (int)pads[k];
	}
	pd->value = (float)ir_attr_float(n, "value", 0.0);
	l->unit = constant ? RT_UNIT_PAD : RT_UNIT_PAD_MODE;
	l->kernel = constant ? "rt_pad_constant" : "rt_pad_edge_reflect";
	add_arg(l, x, "x");
	return 0;
}

/* A layout transform select inserted: one row of runtime/transforms.def. */
static int plan_layout(struct plan *p, struct layer *l)
{
	struct node *n = l->node;
	const struct tensor *x = n->inputs[0];
	const struct rt_transform *tr = NULL;
	for (int i = 0; i < rt_n_transforms && n->primitive; i++)
		if (strcmp(rt_transforms[i].name, n->primitive) == 0)
			tr = &rt_transforms[i];
	if (!tr || (x->rank != 3 && x->rank != 4)) {
		diag_error(p->d, n, "internal error: layout transform '%s' on %s",
		           n->primitive ? n->primitive : "?", shape_str(p, x));
		return -1;
	}
	l->unit = (enum rt_unit)tr->unit;
	l->kernel = tr->run_name;
	l->u.layout.N = (int)x->dims[0];
	l->u.layout.C = (int)x->dims[1];
	l->u.layout.H = x->rank == 4 ? (int)x->dims[2] : 1;
	l->u.layout.W = (int)x->dims[x->rank - 1];
	add_arg(l, n->inputs[0], "x");
	return 0;
}

static int plan_typed(struct plan *p, struct layer *l);

/* The plan hook of a node's op: one per ops.def kind, or the op's own. */
static int plan_op(struct plan *p, struct layer *l)
{
	struct node *n = l->node;
	int rc;
	if (ir_op_has(n->op, OPF_BINOP))
		return plan_binary(p, l);
	switch (ir_op_kind(n->op)) {
	case OPK_ACT: return n->op == OP_CLIP && n->n_inputs > 1 ? plan_clip(p, l) : plan_unary(p, l);
	case OPK_MATH: return plan_math(p, l);
	case OPK_REDUCE: return plan_reduce(p, l);
	case OPK_NORM: return plan_norm(p, l);
	default: break;
	}
	switch (n->op) {
	case OP_CONV: return plan_conv(p, l);
	case OP_MAXPOOL:
	case OP_AVGPOOL: return plan_pool(p, l);
	case OP_GEMM: return plan_gemm(p, l);
	case OP_MATMUL: return plan_matmul(p, l);
	case OP_BATCHNORM: return plan_batchnorm(p, l);
	case OP_SOFTMAX:
	case OP_LOG_SOFTMAX: return plan_softmax(p, l);
	case OP_HARDMAX:
		rc = plan_softmax(p, l);
		l->unit = RT_UNIT_HARDMAX; /* the same [outer, len, inner] view */
		l->kernel = "rt_hardmax";
		return rc;
	case OP_GLOBAL_AVGPOOL:
	case OP_GLOBAL_MAXPOOL: return plan_global_pool(p, l);
	case OP_LRN: return plan_lrn(p, l);
	case OP_CONCAT: return plan_concat(p, l);
	case OP_TRANSPOSE: return plan_transpose(p, l);
	case OP_PAD: return plan_pad(p, l);
	case OP_SLICE: return plan_slice(p, l);
	case OP_EXPAND: return plan_expand(p, l);
	case OP_TILE: return plan_tile(p, l);
	case OP_DEPTH_TO_SPACE:
	case OP_SPACE_TO_DEPTH: return plan_depth_space(p, l);
	case OP_RESIZE:
	case OP_UPSAMPLE: return plan_resize(p, l);
	case OP_CONV_TRANSPOSE: return plan_conv_transpose(p, l);
	case OP_LAYOUT: return plan_layout(p, l);
	default:
		diag_error(p->d, n, "operator %s cannot be emitted (not in canonical form)",
		           n->op < OP_COUNT_ ? ir_op_names[n->op] : "?");
		return -1;
	}
}

static int plan_layer(struct plan *p, struct layer *l)
{
	struct node *n = l->node;
	if (n->n_outputs < 1 || !n->outputs[0]) {
		diag_error(p->d, n, "internal error: node has no output");
		return -1;
	}
	if (typed_runs_typed(n)) /* emit_typed.c: outputs of its own */
		return plan_typed(p, l);
	for (int k = 1; k < n->n_outputs; k++) {
		if (n->outputs[k] && (n->outputs[k]->is_output || ir_use_count(p->g, n->outputs[k]))) {
			diag_error(p->d, n, "only the first output can be used (output '%s' is read)",
			           n->outputs[k]->name);
			return -1;
		}
	}
	int need = ir_ops[n->op].canon_arity;
	int ok = n->n_inputs >= need;
	for (int k = 0; ok && k < need; k++)
		ok = n->inputs[k] != NULL;
	if (!ok) {
		diag_error(p->d, n, "internal error: a required input is missing");
		return -1;
	}
	if (n->act != ACT_NONE && !ir_op_has(n->op, OPF_EPILOGUE)) {
		diag_error(p->d, n, "internal error: fused epilogue on an op that has none");
		return -1;
	}
	if (is_view_op(n->op)) {
		l->is_view = 1;
		struct tensor *x = n->inputs[0], *y = n->outputs[0];
		if (check_tensor(p, n, x) || check_tensor(p, n, y))
			return -1;
		if (ir_numel(x) != ir_numel(y)) {
			diag_error(p->d, n, "view %s of %s changes the element count", shape_str(p, y),
			           shape_str(p, x));
			return -1;
		}
		/* The planner aliases views (no code); one it did not alias is copied. */
		if (root_of(p, y) != root_of(p, x)) {
			enum buf_kind k = emit_tb_of(p, y)->kind;
			if (k != BUF_OUTPUT && k != BUF_ARENA) {
				diag_error(p->d, n, "internal error: output '%s' is not a writable buffer",
				           y->name);
				return -1;
			}
			l->copy = 1;
			use_tensor(p, n, x);
			use_tensor(p, n, y);
		}
		return 0;
	}
	int rc = plan_op(p, l);
	if (rc || l->is_view)
		return rc;
	if (n->outputs[0]->dtype != DTYPE_F32) /* canonicalize allows data movement only */
		l->unit = n->op == OP_CONCAT ? RT_UNIT_TCONCAT : RT_UNIT_TCOPY;
	add_arg(l, n->outputs[0], "y");
	l->n_outs = 1;
	for (int k = 0; k < l->n_args; k++)
		use_tensor(p, n, l->args[k]);
	struct tbuf *out = emit_tb_of(p, n->outputs[0]);
	if (out->kind == BUF_VIEW) /* a slice of a zero-copy Concat */
		out = emit_tb_of(p, out->root);
	if (out->kind != BUF_OUTPUT && out->kind != BUF_ARENA) {
		diag_error(p->d, n, "internal error: output '%s' is not a writable buffer",
		           n->outputs[0]->name);
		return -1;
	}
	p->unit_used[l->unit] = 1;
	return 0;
}

/* A node the typed_*.c kernels compute (emit_typed.c). */
static int plan_typed(struct plan *p, struct layer *l)
{
	struct node *n = l->node;
	struct emit_typed_layer t;
	if (emit_typed_layer(p->g, n, p->d, &t))
		return -1;
	l->u.typed.body = emit_plan_keep(p, t.body);
	l->unit = (enum rt_unit)t.unit;
	l->kernel = t.kernel;
	l->n_outs = t.n_outs;
	for (int k = 0; k < t.n_args; k++)
		add_arg(l, t.args[k], t.arg_names[k]);
	for (int k = 0; k < l->n_args; k++)
		use_tensor(p, n, l->args[k]);
	for (int k = l->n_args - l->n_outs; k < l->n_args; k++) {
		struct tbuf *out = emit_tb_of(p, l->args[k]);
		if (out->kind != BUF_OUTPUT && out->kind != BUF_ARENA) {
			diag_error(p->d, n, "internal error: output '%s' is not a writable buffer",
			           l->args[k]->name);
			return -1;
		}
	}
	p->unit_used[l->unit] = 1;
	return 0;
}

/* ---- planning: weights, arena, names -------------------------------------- */

size_t emit_align_up(size_t v, size_t a)
{
	return (v + a - 1) / a * a;
}

static void plan_weights(struct plan *p)
{
	const struct graph *g = p->g;
	p->consts = xcalloc(g->n_tensors, sizeof *p->consts);
	size_t off = 0;
	for (int i = 0; i < g->n_tensors; i++) {
		struct tbuf *b = &p->tb[i];
		if (b->kind != BUF_CONST || !b->used || g->tensors[i]->dtype != DTYPE_F32)
			continue;
		off = emit_align_up(off, WEIGHT_ALIGN);
		b->offset = off;
		off += ir_nbytes(g->tensors[i]);
		p->consts[p->n_consts++] = g->tensors[i];
	}
	p->weights_bytes = off;
	/* x86-64 and Arm code models address static data within +-2 GiB */
	if (off > ((size_t)1 << 31) - 4096)
		diag_error(p->d, NULL, "the weights take %zu bytes after packing, more than the 2 GiB "
		           "generated code can address statically (a strategy with smaller packed "
		           "weights, e.g. without fft, may fit)", off);
	p->mode = p->opt->weights;
	if (p->mode == WEIGHTS_AUTO)
		p->mode = off <= CARRAY_MAX_BYTES ? WEIGHTS_CARRAY : WEIGHTS_EMBED;
	p->weights_sym = emit_plan_fmt(p, p->mode == WEIGHTS_EMBED ? "%s_weights_data" : "%s_weights",
	                          p->name);
}

static void plan_arena(struct plan *p)
{
	const struct graph *g = p->g;
	for (int i = 0; i < g->n_tensors; i++) {
		const struct tensor *t = g->tensors[i];
		const struct tbuf *b = &p->tb[i];
		if (b->kind != BUF_ARENA || !b->used)
			continue;
		p->uses_arena = 1;
		if (t->producer && t->producer->fused_into) /* never written: no room (plan_memory) */
			continue;
		if (t->offset % sizeof(float) || t->offset > g->arena_size ||
		    ir_nbytes(t) > g->arena_size - t->offset)
			diag_error(p->d, t->producer,
			           "internal error: tensor '%s' (%zu bytes at offset %zu) lies outside "
			           "the %zu-byte activation arena",
			           t->name, ir_nbytes(t), t->offset, g->arena_size);
	}
	for (int i = 0; i < p->n_layers; i++) {
		const struct layer *l = &p->layers[i];
		if (!l->ws_bytes)
			continue;
		p->uses_arena = 1;
		if (l->ws_offset % 64 || l->ws_offset > g->arena_size ||
		    l->ws_bytes > g->arena_size - l->ws_offset)
			diag_error(p->d, l->node,
			           "internal error: workspace (%zu bytes at offset %zu) lies outside the "
			           "%zu-byte activation arena",
			           l->ws_bytes, l->ws_offset, g->arena_size);
	}
}

static void plan_names(struct plan *p)
{
	static const char *const globals[] = {
		"_run", "_arena", "_weights", "_weights_data", "_weights_loaded",
		"_load_weights", "_input_sizes", "_output_sizes",
	};
	for (size_t i = 0; i < sizeof globals / sizeof globals[0]; i++) {
		char buf[512];
		snprintf(buf, sizeof buf, "%s%s", p->name, globals[i]);
		names_reserve(&p->names, buf);
	}
	static const char *const profile_globals[] = {
		"_profile_print", "_profile_reset", "_profile_count", "_profile_entry",
		"_profile_rows", "_profile_row", "_profile_add", "_profile_n", "_profile_ratio",
	};
	for (size_t i = 0; p->opt->instrument && i < sizeof profile_globals / sizeof *profile_globals;
	     i++) {
		char buf[512];
		snprintf(buf, sizeof buf, "%s%s", p->name, profile_globals[i]);
		names_reserve(&p->names, buf);
	}
	/* Layer functions l<number>_<node name>, then the pointer variables of
	 * NAME_run. */
	int number = 0;
	for (int i = 0; i < p->n_layers; i++) {
		struct layer *l = &p->layers[i];
		if (l->is_view)
			continue;
		char prefix[32];
		l->number = number++;
		snprintf(prefix, sizeof prefix, "l%d_", l->number);
		l->fn = names_add(&p->names, prefix, l->node->name);
	}
	for (int i = 0; i < p->g->n_tensors; i++)
		if (p->tb[i].used)
			p->tb[i].var = names_add(&p->names, "t_", p->g->tensors[i]->name);
	for (int i = 0; i < p->g->n_tensors; i++)
		if (p->tb[i].used && p->tb[i].kind == BUF_CONST &&
		    p->g->tensors[i]->dtype != DTYPE_F32)
			p->tb[i].array = names_add(&p->names, "k_", p->g->tensors[i]->name);
	if (p->opt->instrument)
		p->prof_var = names_add(&p->names, "prof_", "start");
}

/* Output paths: DIR/BASE.c as given, DIR/BASE.h, DIR/BASE.weights.bin. */
static int plan_paths(struct plan *p)
{
	const char *out = p->opt->output;
	if (!out || !*out) {
		diag_error(p->d, NULL, "no output file given");
		return -1;
	}
	size_t n = strlen(out);
	size_t stem = n > 2 && strcmp(out + n - 2, ".c") == 0 ? n - 2 : n;
	const char *slash = strrchr(out, '/');
	size_t dir_len = slash ? (size_t)(slash - out) : 0;
	p->c_path = emit_plan_fmt(p, "%s", out);
	p->h_path = emit_plan_fmt(p, "%.*s.h", (int)stem, out);
	p->bin_path = emit_plan_fmt(p, "%.*s.weights.bin", (int)stem, out);
	size_t base_from = slash ? dir_len + 1 : 0;
	p->base = emit_plan_fmt(p, "%.*s", (int)(stem - base_from), out + base_from);
	if (!*p->base || stem <= base_from) {
		diag_error(p->d, NULL, "-o %s: the output needs a file name", out);
		return -1;
	}
	for (const char *c = p->base; *c; c++) {
		if (*c == '"' || *c == '\\' || (unsigned char)*c < 0x20 || *c == '?') {
			diag_error(p->d, NULL,
			           "-o %s: the file name cannot be written in an #include (it contains "
			           "'\"', '\\\\', '?' or a control character)",
			           out);
			return -1;
		}
	}
	p->name = p->opt->name && *p->opt->name ? p->opt->name : default_name(p, p->base);
	p->upper = emit_plan_fmt(p, "%s", p->name);
	for (char *c = p->upper; *c; c++)
		if (*c >= 'a' && *c <= 'z')
			*c = (char)(*c - 'a' + 'A');
	return 0;
}

int emit_plan_graph(struct plan *p)
{
	const struct graph *g = p->g;
	int before = p->d->errors;
	if (plan_paths(p))
		return -1;
	p->tb = xcalloc(g->n_tensors, sizeof *p->tb);
	p->layers = xcalloc(g->n_nodes, sizeof *p->layers);
	plan_buffers(p);
	for (int j = 0; j < g->n_inputs; j++)
		check_tensor(p, NULL, g->inputs[j]);
	for (int i = 0; i < g->n_nodes; i++) {
		if (g->nodes[i]->dead)
			continue;
		struct layer *l = &p->layers[p->n_layers++];
		l->node = g->nodes[i];
		plan_layer(p, l);
	}
	for (int j = 0; j < g->n_outputs; j++) {
		const struct tensor *t = g->outputs[j];
		use_tensor(p, NULL, t);
		if (!t->producer && !t->data && !t->is_input && !t->alias)
			diag_error(p->d, NULL, "internal error: graph output '%s' is never written",
			           t->name);
	}
	for (int j = 0; j < g->n_inputs; j++)
		p->typed_io |= g->inputs[j]->dtype != DTYPE_F32;
	for (int j = 0; j < g->n_outputs; j++)
		p->typed_io |= g->outputs[j]->dtype != DTYPE_F32;
	p->typed |= p->typed_io;
	if (p->d->errors != before || emit_plan_runtime(p))
		return -1;
	plan_weights(p);
	plan_arena(p);
	plan_names(p);
	return p->d->errors != before ? -1 : 0;
}
