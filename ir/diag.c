/* diag.c - one line per problem: "FILE: node 'NAME' (OP): MESSAGE". */
#include "ir/ir.h"

void diag_init(struct diag *d, const char *file, FILE *out)
{
	d->file = file;
	d->out = out;
	d->errors = 0;
	d->warnings = 0;
}

static void report(struct diag *d, const char *kind, const struct node *node, const char *fmt,
                   va_list ap)
{
	fprintf(d->out, "%s: ", d->file ? d->file : "dnncc");
	if (kind)
		fprintf(d->out, "%s: ", kind);
	if (node)
		fprintf(d->out, "node '%s' (%s): ", node->name ? node->name : "?",
		        node->op < OP_COUNT_ ? ir_op_names[node->op] : "?");
	vfprintf(d->out, fmt, ap);
	fputc('\n', d->out);
}

void diag_verror(struct diag *d, const struct node *node, const char *fmt, va_list ap)
{
	report(d, NULL, node, fmt, ap);
	d->errors++;
}

void diag_error(struct diag *d, const struct node *node, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	diag_verror(d, node, fmt, ap);
	va_end(ap);
}

void diag_warning(struct diag *d, const struct node *node, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	report(d, "warning", node, fmt, ap);
	va_end(ap);
	d->warnings++;
}
