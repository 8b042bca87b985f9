/* test_prototxt.c - the protobuf text-format parser (frontend/prototxt.c):
 * the tree it builds for well-formed text (nesting, repeated fields in
 * order, strings and their escapes, numbers, identifiers, comments, the
 * optional colon, angle brackets and list shorthand), and for malformed text
 * the one "FILE:LINE:COLUMN: message" error it reports. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "frontend/frontend.h"

/* One parse with its diagnostics captured as text. */
struct parse {
	struct arena arena;
	struct diag d;
	char *out;          /* diagnostics text; malloc'd by open_memstream */
	size_t out_len;
	FILE *f;
	struct ptx_message *m;
};

static void parse_text(struct parse *p, const char *text)
{
	memset(p, 0, sizeof *p);
	arena_init(&p->arena);
	p->f = open_memstream(&p->out, &p->out_len);
	cr_assert(p->f);
	diag_init(&p->d, "t.prototxt", p->f);
	p->m = ptx_parse(&p->arena, "t.prototxt", text, strlen(text), &p->d);
	fflush(p->f);
}

static void parse_free(struct parse *p)
{
	fclose(p->f);
	free(p->out);
	arena_free(&p->arena);
}

/* Parses text that must fail with exactly the message `expected` (one line). */
static void expect_error(const char *text, const char *expected)
{
	struct parse p;
	parse_text(&p, text);
	cr_expect_null(p.m, "parse of [%s] should fail", text);
	cr_expect_eq(p.d.errors, 1, "one error for [%s], got %d:\n%s", text, p.d.errors, p.out);
	char line[512];
	snprintf(line, sizeof line, "%s\n", expected);
	cr_expect_str_eq(p.out, line, "for [%s]", text);
	parse_free(&p);
}

static const struct ptx_field *field(const struct ptx_message *m, int i)
{
	cr_assert_lt(i, m->n_fields);
	return &m->fields[i];
}

Test(prototxt, nested_messages_and_repeated_fields_in_order)
{
	struct parse p;
	parse_text(&p, "name: \"net\"\n"
	               "layer {\n"
	               "  name: 'a'  top: \"x\" top: \"y\"\n"
	               "  param { shape { dim: 1 dim: 3 } }\n"
	               "}\n"
	               "layer { name: 'b' }\n");
	cr_assert_not_null(p.m, "%s", p.out);
	cr_assert_eq(p.m->n_fields, 3);
	cr_expect_str_eq(field(p.m, 0)->name, "name");
	cr_expect_eq(field(p.m, 0)->kind, PTX_STRING);
	cr_expect_str_eq(field(p.m, 0)->text, "net");
	const struct ptx_field *l = field(p.m, 1);
	cr_expect_str_eq(l->name, "layer");
	cr_expect_eq(l->kind, PTX_MESSAGE);
	cr_expect_eq(l->line, 2);
	cr_expect_eq(l->column, 1);
	cr_assert_eq(l->msg->n_fields, 4);
	cr_expect_str_eq(field(l->msg, 1)->text, "x");
	cr_expect_str_eq(field(l->msg, 2)->text, "y");
	cr_expect_eq(field(l->msg, 2)->line, 3);
	cr_expect_eq(field(l->msg, 2)->column, 23);
	const struct ptx_field *shape = field(field(l->msg, 3)->msg, 0);
	cr_expect_str_eq(shape->name, "shape");
	cr_assert_eq(shape->msg->n_fields, 2);
	cr_expect_str_eq(field(shape->msg, 1)->text, "3");
	cr_expect_eq(field(shape->msg, 1)->kind, PTX_NUMBER);
	cr_expect_str_eq(field(field(p.m, 2)->msg, 0)->text, "b");
	parse_free(&p);
}

Test(prototxt, colon_before_brace_angle_brackets_and_separators)
{
	struct parse p;
	parse_text(&p, "a: { x: 1, y: 2; } b < z: 3 > c: < >");
	cr_assert_not_null(p.m, "%s", p.out);
	cr_assert_eq(p.m->n_fields, 3);
	cr_expect_eq(field(p.m, 0)->msg->n_fields, 2);
	cr_expect_str_eq(field(field(p.m, 1)->msg, 0)->text, "3");
	cr_expect_eq(field(p.m, 2)->kind, PTX_MESSAGE);
	cr_expect_eq(field(p.m, 2)->msg->n_fields, 0);
	parse_free(&p);
}

Test(prototxt, list_shorthand_expands_to_repeated_fields)
{
	struct parse p;
	parse_text(&p, "dim: [1, 3, 224]\nshape: [{dim: 1}, {dim: 2}]\nnone: []");
	cr_assert_not_null(p.m, "%s", p.out);
	cr_assert_eq(p.m->n_fields, 5);
	cr_expect_str_eq(field(p.m, 0)->text, "1");
	cr_expect_str_eq(field(p.m, 2)->text, "224");
	cr_expect_str_eq(field(p.m, 2)->name, "dim");
	cr_expect_str_eq(field(field(p.m, 4)->msg, 0)->text, "2");
	parse_free(&p);
}

Test(prototxt, strings_with_escapes)
{
	struct parse p;
	parse_text(&p, "a: \"tab\\tnl\\nq\\\"b\\\\\"\n"
	               "b: 'it\\'s \\x41\\101\\u00e9'\n"
	               "c: \"nul\\0end\"\n"
	               "d: \"con\" 'cat' \"enated\"\n"
	               "e: \"# not a comment\"\n"
	               "f: \"\"\n");
	cr_assert_not_null(p.m, "%s", p.out);
	cr_expect_str_eq(field(p.m, 0)->text, "tab\tnl\nq\"b\\");
	cr_expect_str_eq(field(p.m, 1)->text, "it's AA\xC3\xA9");
	cr_expect_eq(field(p.m, 2)->text_len, 7);
	cr_expect(memcmp(field(p.m, 2)->text, "nul\0end", 7) == 0);
	cr_expect_str_eq(field(p.m, 3)->text, "concatenated");
	cr_expect_str_eq(field(p.m, 4)->text, "# not a comment");
	cr_expect_eq(field(p.m, 5)->text_len, 0);
	cr_expect_eq(p.m->n_fields, 6);
	parse_free(&p);
}

Test(prototxt, numbers_identifiers_and_signs)
{
	struct parse p;
	parse_text(&p, "a: 42 b: -7 c: 0.0001 d: 1e-5 e: 2.5E+3 f: .5 g: 1.5f h: 0x1F i: 017\n"
	               "j: -inf k: nan l: MAX m: true n: - 3");
	cr_assert_not_null(p.m, "%s", p.out);
	static const char *const texts[] = {"42",  "-7",   "0.0001", "1e-5", "2.5E+3", ".5", "1.5f",
	                                    "0x1F", "017", "-inf", "nan",   "MAX",  "true", "-3"};
	static const enum ptx_kind kinds[] = {PTX_NUMBER, PTX_NUMBER, PTX_NUMBER, PTX_NUMBER,
	                                      PTX_NUMBER, PTX_NUMBER, PTX_NUMBER, PTX_NUMBER,
	                                      PTX_NUMBER, PTX_IDENT,  PTX_IDENT,  PTX_IDENT,
	                                      PTX_IDENT,  PTX_NUMBER};
	cr_assert_eq(p.m->n_fields, 14);
	for (int i = 0; i < 14; i++) {
		cr_expect_str_eq(field(p.m, i)->text, texts[i]);
		cr_expect_eq(field(p.m, i)->kind, kinds[i], "field %d", i);
	}
	parse_free(&p);
}

Test(prototxt, comments_whitespace_and_empty_text)
{
	struct parse p;
	parse_text(&p, "# a comment line\r\n\ta: 1 # trailing comment { not parsed\n\n  b: 2#x\n#end");
	cr_assert_not_null(p.m, "%s", p.out);
	cr_assert_eq(p.m->n_fields, 2);
	cr_expect_eq(field(p.m, 0)->line, 2);
	cr_expect_eq(field(p.m, 0)->column, 2);
	cr_expect_eq(field(p.m, 1)->line, 4);
	cr_expect_eq(field(p.m, 1)->column, 3);
	parse_free(&p);

	parse_text(&p, "");
	cr_assert_not_null(p.m);
	cr_expect_eq(p.m->n_fields, 0);
	parse_free(&p);

	parse_text(&p, "\xEF\xBB\xBF" "a: 1");
	cr_assert_not_null(p.m, "%s", p.out);
	cr_expect_eq(field(p.m, 0)->column, 1);
	parse_free(&p);
}

Test(prototxt, unbalanced_braces)
{
	expect_error("layer {\n  name: 'a'\n",
	             "t.prototxt:3:1: expected '}' to close 'layer' opened at 1:7, found end of file");
	expect_error("layer { name: 'a' }\n}\n", "t.prototxt:2:1: unbalanced '}': no message is open");
	expect_error("a < b: 1 }", "t.prototxt:1:10: expected '>' to close 'a' opened at 1:3, found '}'");
	expect_error("a {\n b { c: 1 }\n", "t.prototxt:3:1: expected '}' to close 'a' opened at 1:3, "
	                                   "found end of file");
}

Test(prototxt, bad_numbers)
{
	expect_error("kernel_size: 1.2.3", "t.prototxt:1:14: bad number '1.2.3'");
	expect_error("a: 1\nkernel_size: 3x3", "t.prototxt:2:14: bad number '3x3'");
	expect_error("a: 08", "t.prototxt:1:4: bad number '08'");
	expect_error("a: 1e", "t.prototxt:1:4: bad number '1e'");
	expect_error("a: 0xZ1", "t.prototxt:1:4: bad number '0xZ1'");
	expect_error("a: -}", "t.prototxt:1:5: expected a number after '-', found '}'");
}

Test(prototxt, bad_strings)
{
	expect_error("name: \"conv1\n", "t.prototxt:1:7: unterminated string (missing \")");
	expect_error("name: 'a\\qb'", "t.prototxt:1:9: unknown escape sequence '\\q' in string");
	expect_error("name: 'a\\x'", "t.prototxt:1:9: escape \\x needs a hexadecimal digit");
	expect_error("name: '\\u12'", "t.prototxt:1:8: escape \\u needs 4 hexadecimal digits");
	expect_error("name: '\\777'", "t.prototxt:1:8: octal escape \\777 is larger than a byte");
}

Test(prototxt, bad_structure)
{
	expect_error("name \"x\"", "t.prototxt:1:6: expected ':' or '{' after field name 'name', "
	                           "found a string");
	expect_error("layer { top: }", "t.prototxt:1:14: expected a value for field 'top', found '}'");
	expect_error("a: 1\n: 2", "t.prototxt:2:1: expected a field name, found ':'");
	expect_error("a: 1 @", "t.prototxt:1:6: unexpected character '@'");
	expect_error("a: [1, 2", "t.prototxt:1:9: expected ',' or ']' in the list of 'a' opened at "
	                         "1:4, found end of file");
	expect_error("a: [1 2]", "t.prototxt:1:7: expected ',' or ']' in the list of 'a' opened at "
	                         "1:4, found '2'");
	expect_error("3: 1", "t.prototxt:1:1: expected a field name, found '3'");
}

Test(prototxt, nesting_depth_is_limited)
{
	/* a { a { a { ... } } }: 100 levels parse, the 101st is refused at its '{'. */
	char deep[4 * 101 + 1];
	size_t k = 0;
	for (int depth = 100; depth <= 101; depth++) {
		k = 0;
		for (int i = 0; i < depth; i++) {
			deep[k++] = 'a';
			deep[k++] = '{';
		}
		for (int i = 0; i < depth; i++)
			deep[k++] = '}';
		deep[k] = '\0';
		if (depth == 100) {
			struct parse p;
			parse_text(&p, deep);
			cr_expect_not_null(p.m, "%s", p.out);
			parse_free(&p);
		}
	}
	expect_error(deep, "t.prototxt:1:202: messages nested more than 100 deep");
}

Test(prototxt, only_the_first_error_is_reported)
{
	struct parse p;
	parse_text(&p, "a: 1.2.3\nb: 'x\nc {\n");
	cr_expect_null(p.m);
	cr_expect_eq(p.d.errors, 1);
	cr_expect_str_eq(p.out, "t.prototxt:1:4: bad number '1.2.3'\n");
	parse_free(&p);
}
