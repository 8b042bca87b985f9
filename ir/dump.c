/* dump.c - the IR as text, for --dump-ir and for reading test failures:
 *   %name: float32[1,64,56,56] = Conv(%x, %w, %b) {group=1, ...} act=relu
 * Constants are listed with their shapes only. */
#include <inttypes.h>

#include "ir/ir.h"

static void dump_shape(const struct tensor *t, FILE *out)
{
	fprintf(out, "%s", ir_dtype_names[t->dtype]);
	if (t->rank < 0) {
		fputs("[?]", out);
		return;
	}
	fputc('[', out);
	for (int i = 0; i < t->rank; i++)
		fprintf(out, "%s%" PRId64, i ? "," : "", t->dims[i]);
	fputc(']', out);
}

static void dump_attr(const struct attr *a, FILE *out)
{
	fprintf(out, "%s=", a->name);
	switch (a->kind) {
	case ATTR_FLOAT: fprintf(out, "%g", a->f); break;
	case ATTR_INT: fprintf(out, "%" PRId64, a->i); break;
	case ATTR_STRING: fprintf(out, "\"%s\"", a->s); break;
	case ATTR_FLOATS:
		fputc('[', out);
		for (int i = 0; i < a->n; i++)
			fprintf(out, "%s%g", i ? "," : "", a->floats[i]);
		fputc(']', out);
		break;
	case ATTR_INTS:
		fputc('[', out);
		for (int i = 0; i < a->n; i++)
			fprintf(out, "%s%" PRId64, i ? "," : "", a->ints[i]);
		fputc(']', out);
		break;
	case ATTR_TENSOR: fputs("<tensor>", out); break;
	}
}

void ir_dump(const struct graph *g, FILE *out, const char *title)
{
	fprintf(out, "# IR %s: %d nodes, %d tensors\n", title ? title : "", g->n_nodes,
	        g->n_tensors);
	for (int i = 0; i < g->n_inputs; i++) {
		fprintf(out, "input %%%s: ", g->inputs[i]->name);
		dump_shape(g->inputs[i], out);
		fputc('\n', out);
	}
	for (int i = 0; i < g->n_tensors; i++) {
		const struct tensor *t = g->tensors[i];
		if (!t->data)
			continue;
		fprintf(out, "const %%%s: ", t->name);
		dump_shape(t, out);
		fputc('\n', out);
	}
	for (int i = 0; i < g->n_nodes; i++) {
		const struct node *n = g->nodes[i];
		if (n->dead)
			continue;
		for (int k = 0; k < n->n_outputs; k++) {
			if (!n->outputs[k])
				continue;
			fprintf(out, "%s%%%s: ", k ? ", " : "", n->outputs[k]->name);
			dump_shape(n->outputs[k], out);
		}
		fprintf(out, " = %s(", ir_op_names[n->op]);
		for (int k = 0; k < n->n_inputs; k++)
			fprintf(out, "%s%s%s", k ? ", " : "", n->inputs[k] ? "%" : "",
			        n->inputs[k] ? n->inputs[k]->name : "-");
		fputc(')', out);
		if (n->n_attrs) {
			fputs(" {", out);
			for (int k = 0; k < n->n_attrs; k++) {
				if (k)
					fputs(", ", out);
				dump_attr(&n->attrs[k], out);
			}
			fputc('}', out);
		}
		if (n->act != ACT_NONE)
			fprintf(out, " act=%s", ir_act_names[n->act]);
		if (n->primitive)
			fprintf(out, " primitive=%s", n->primitive);
		fprintf(out, "  # node '%s'\n", n->name);
	}
	for (int i = 0; i < g->n_outputs; i++)
		fprintf(out, "output %%%s\n", g->outputs[i]->name);
}
