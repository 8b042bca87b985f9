/* prototxt.c - a parser for the protobuf text format, the language of Caffe's
 * deploy.prototxt files (protobuf-c reads only the binary format). It knows no
 * schema: it turns the text into a tree of named fields (struct ptx_message in
 * frontend.h), and the reader of the tree (caffe.c) decides what each name
 * means and whether a value has the right kind.
 *
 * The grammar, after the protobuf text format specification
 * (https://protobuf.dev/reference/protobuf/textformat-spec/):
 *   message := { field [ ',' | ';' ] }
 *   field   := NAME ':' scalar
 *            | NAME [':'] '{' message '}'  |  NAME [':'] '<' message '>'
 *            | NAME ':' '[' [ value { ',' value } ] ']'     (repeated shorthand)
 *   scalar  := STRING { STRING } | NUMBER | IDENT | '-' NUMBER | '-' IDENT
 * Comments run from '#' to the end of the line. Strings take '...' or "..."
 * with C escapes (\n \t \\ \' \" \ooo \xHH \uHHHH ...); adjacent strings are
 * joined. Numbers are decimal, octal or hex integers and floats with an
 * optional exponent and an optional f suffix; inf and nan are identifiers
 * (the reader accepts them where it wants a float). A repeated field simply
 * appears several times, in file order.
 *
 * The first error stops the parse and is reported as "FILE:LINE:COLUMN: ..."
 * (1-based; a tab counts as one column). */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "frontend/frontend.h"

/* Nested messages deeper than this are refused instead of overflowing the
 * stack: real network definitions nest four or five levels. */
#define PTX_MAX_DEPTH 100

enum tok_kind {
	TOK_EOF,
	TOK_IDENT,
	TOK_NUMBER,
	TOK_STRING,
	TOK_PUNCT, /* one of { } < > : , ; [ ] - */
};

struct token {
	enum tok_kind kind;
	const char *start;  /* in the source text */
	size_t len;         /* bytes of source text */
	int line, column;   /* of the first character */
	char *str;          /* TOK_STRING: unescaped contents (arena), NUL-terminated */
	size_t str_len;     /* TOK_STRING: bytes in str */
};

struct parser {
	struct arena *arena;
	const char *file;      /* for messages; not owned */
	struct diag *d;
	const char *p, *end;   /* the unread text */
	int line, column;      /* position of *p */
	struct token tok;      /* the current token */
	int failed;            /* an error was reported: stop */
};

/* Reports "FILE:LINE:COLUMN: message" through the diag. */
static void error_at(struct parser *ps, int line, int column, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
static void error_at(struct parser *ps, int line, int column, const char *fmt, ...)
{
	if (ps->failed)
		return;
	ps->failed = 1;
	char loc[1024];
	snprintf(loc, sizeof loc, "%s:%d:%d", ps->file ? ps->file : "<text>", line, column);
	const char *saved = ps->d->file;
	ps->d->file = loc;
	va_list ap;
	va_start(ap, fmt);
	diag_verror(ps->d, NULL, fmt, ap);
	va_end(ap);
	ps->d->file = saved;
}

/* A short, printable description of the current token for messages. */
static const char *describe(const struct token *t, char *buf, size_t size)
{
	switch (t->kind) {
	case TOK_EOF: return "end of file";
	case TOK_STRING: return "a string";
	default: break;
	}
	size_t n = t->len < 40 ? t->len : 40;
	snprintf(buf, size, "'%.*s%s'", (int)n, t->start, t->len > n ? "..." : "");
	return buf;
}

static void advance_char(struct parser *ps)
{
	if (*ps->p == '\n') {
		ps->line++;
		ps->column = 1;
	} else {
		ps->column++;
	}
	ps->p++;
}

static void skip_space_and_comments(struct parser *ps)
{
	while (ps->p < ps->end) {
		unsigned char c = (unsigned char)*ps->p;
		if (c == '#') {
			while (ps->p < ps->end && *ps->p != '\n')
				advance_char(ps);
		} else if (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' ||
		           c == '\v') {
			advance_char(ps);
		} else {
			break;
		}
	}
}

static int hex_value(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* Appends code point cp to buf as UTF-8; returns the bytes written (<= 4). */
static size_t put_utf8(char *buf, unsigned long cp)
{
	if (cp < 0x80) {
		buf[0] = (char)cp;
		return 1;
	}
	if (cp < 0x800) {
		buf[0] = (char)(0xC0 | (cp >> 6));
		buf[1] = (char)(0x80 | (cp & 0x3F));
		return 2;
	}
	if (cp < 0x10000) {
		buf[0] = (char)(0xE0 | (cp >> 12));
		buf[1] = (char)(0x80 | ((cp >> 6) & 0x3F));
		buf[2] = (char)(0x80 | (cp & 0x3F));
		return 3;
	}
	buf[0] = (char)(0xF0 | (cp >> 18));
	buf[1] = (char)(0x80 | ((cp >> 12) & 0x3F));
	buf[2] = (char)(0x80 | ((cp >> 6) & 0x3F));
	buf[3] = (char)(0x80 | (cp & 0x3F));
	return 4;
}

/* Reads a quoted string starting at the quote; the unescaped text goes to the
 * arena. The escapes are C's plus \u and \U, as in the protobuf tokenizer. */
static void lex_string(struct parser *ps, struct token *t)
{
	const char quote = *ps->p;
	advance_char(ps);
	/* The unescaped text is never longer than the escaped one (a \U escape
	 * of 10 characters makes at most 4 bytes). */
	const char *close = ps->p;
	while (close < ps->end && *close != quote && *close != '\n') {
		if (*close == '\\' && close + 1 < ps->end && close[1] != '\n')
			close++;
		close++;
	}
	char *out = arena_alloc(ps->arena, (size_t)(close - ps->p) + 1);
	size_t n = 0;
	for (;;) {
		if (ps->p >= ps->end || *ps->p == '\n') {
			error_at(ps, t->line, t->column, "unterminated string (missing %c)", quote);
			return;
		}
		char c = *ps->p;
		if (c == quote) {
			advance_char(ps);
			break;
		}
		if (c != '\\') {
			out[n++] = c;
			advance_char(ps);
			continue;
		}
		int eline = ps->line, ecol = ps->column;
		advance_char(ps);
		if (ps->p >= ps->end || *ps->p == '\n') {
			error_at(ps, t->line, t->column, "unterminated string (missing %c)", quote);
			return;
		}
		char e = *ps->p;
		advance_char(ps);
		switch (e) {
		case 'n': out[n++] = '\n'; break;
		case 't': out[n++] = '\t'; break;
		case 'r': out[n++] = '\r'; break;
		case 'a': out[n++] = '\a'; break;
		case 'b': out[n++] = '\b'; break;
		case 'f': out[n++] = '\f'; break;
		case 'v': out[n++] = '\v'; break;
		case '\\': out[n++] = '\\'; break;
		case '\'': out[n++] = '\''; break;
		case '"': out[n++] = '"'; break;
		case '?': out[n++] = '?'; break;
		case 'x':
		case 'X': {
			int v = 0, digits = 0;
			while (digits < 2 && ps->p < ps->end && hex_value(*ps->p) >= 0) {
				v = v * 16 + hex_value(*ps->p);
				advance_char(ps);
				digits++;
			}
			if (!digits) {
				error_at(ps, eline, ecol, "escape \\x needs a hexadecimal digit");
				return;
			}
			out[n++] = (char)v;
			break;
		}
		case 'u':
		case 'U': {
			int want = e == 'u' ? 4 : 8;
			unsigned long cp = 0;
			for (int k = 0; k < want; k++) {
				if (ps->p >= ps->end || hex_value(*ps->p) < 0) {
					error_at(ps, eline, ecol, "escape \\%c needs %d hexadecimal digits",
					         e, want);
					return;
				}
				cp = cp * 16 + (unsigned long)hex_value(*ps->p);
				advance_char(ps);
			}
			if (cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) {
				error_at(ps, eline, ecol, "escape \\%c: U+%lX is not a Unicode scalar value",
				         e, cp);
				return;
			}
			n += put_utf8(out + n, cp);
			break;
		}
		default:
			if (e >= '0' && e <= '7') {
				int v = e - '0';
				for (int k = 1; k < 3 && ps->p < ps->end && *ps->p >= '0' && *ps->p <= '7';
				     k++) {
					v = v * 8 + (*ps->p - '0');
					advance_char(ps);
				}
				if (v > 0xFF) {
					error_at(ps, eline, ecol, "octal escape \\%o is larger than a byte", v);
					return;
				}
				out[n++] = (char)v;
				break;
			}
			error_at(ps, eline, ecol, "unknown escape sequence '\\%c' in string", e);
			return;
		}
	}
	out[n] = '\0';
	t->str = out;
	t->str_len = n;
}

/* Checks the spelling of a number token: a decimal, octal or hexadecimal
 * integer, or a float ("1.", ".5", "1e-4", "2.5f"). */
static int valid_number(const char *s, size_t len)
{
	size_t i = 0;
	if (len > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
		for (i = 2; i < len; i++)
			if (hex_value(s[i]) < 0)
				return 0;
		return 1;
	}
	size_t digits = 0;
	while (i < len && isdigit((unsigned char)s[i]))
		i++, digits++;
	int is_float = 0;
	if (i < len && s[i] == '.') {
		is_float = 1;
		i++;
		while (i < len && isdigit((unsigned char)s[i]))
			i++, digits++;
	}
	if (!digits)
		return 0;
	if (i < len && (s[i] == 'e' || s[i] == 'E')) {
		is_float = 1;
		i++;
		if (i < len && (s[i] == '+' || s[i] == '-'))
			i++;
		size_t exp_digits = 0;
		while (i < len && isdigit((unsigned char)s[i]))
			i++, exp_digits++;
		if (!exp_digits)
			return 0;
	}
	if (i < len && (s[i] == 'f' || s[i] == 'F')) {
		is_float = 1;
		i++;
	}
	if (i != len)
		return 0;
	/* An integer with a leading 0 is octal: no 8 or 9 in it. */
	if (!is_float && len > 1 && s[0] == '0')
		for (size_t k = 1; k < len; k++)
			if (s[k] > '7')
				return 0;
	return 1;
}

/* Reads the next token into ps->tok. */
static void next(struct parser *ps)
{
	skip_space_and_comments(ps);
	struct token *t = &ps->tok;
	memset(t, 0, sizeof *t);
	t->start = ps->p;
	t->line = ps->line;
	t->column = ps->column;
	if (ps->p >= ps->end) {
		t->kind = TOK_EOF;
		return;
	}
	unsigned char c = (unsigned char)*ps->p;
	if (isalpha(c) || c == '_') {
		while (ps->p < ps->end && (isalnum((unsigned char)*ps->p) || *ps->p == '_'))
			advance_char(ps);
		t->kind = TOK_IDENT;
	} else if (isdigit(c) || (c == '.' && ps->p + 1 < ps->end && isdigit((unsigned char)ps->p[1]))) {
		/* Take everything that could belong to a number, then check its
		 * spelling, so "1.2.3" and "3x" are one bad token, not two good ones. */
		int hex = c == '0' && ps->p + 1 < ps->end && (ps->p[1] == 'x' || ps->p[1] == 'X');
		while (ps->p < ps->end) {
			char k = *ps->p;
			if (isalnum((unsigned char)k) || k == '.' || k == '_') {
				advance_char(ps);
			} else if ((k == '+' || k == '-') && !hex &&
			           (ps->p[-1] == 'e' || ps->p[-1] == 'E')) {
				advance_char(ps);
			} else {
				break;
			}
		}
		t->kind = TOK_NUMBER;
		t->len = (size_t)(ps->p - t->start);
		if (!valid_number(t->start, t->len))
			error_at(ps, t->line, t->column, "bad number '%.*s'", (int)t->len, t->start);
		return;
	} else if (c == '"' || c == '\'') {
		t->kind = TOK_STRING;
		lex_string(ps, t);
	} else if (strchr("{}<>:,;[]-", c)) {
		t->kind = TOK_PUNCT;
		advance_char(ps);
	} else {
		if (isprint(c))
			error_at(ps, t->line, t->column, "unexpected character '%c'", c);
		else
			error_at(ps, t->line, t->column, "unexpected byte 0x%02x", c);
		t->kind = TOK_EOF;
		return;
	}
	t->len = (size_t)(ps->p - t->start);
}

static int is_punct(const struct token *t, char c)
{
	return t->kind == TOK_PUNCT && t->start[0] == c;
}

/* A growable list of fields, copied into the arena when the message ends. */
struct field_list {
	struct ptx_field *v;
	int n, cap;
};

static struct ptx_field *push_field(struct field_list *l)
{
	if (l->n == l->cap) {
		l->cap = l->cap ? 2 * l->cap : 8;
		l->v = xrealloc(l->v, (size_t)l->cap * sizeof *l->v);
	}
	struct ptx_field *f = &l->v[l->n++];
	memset(f, 0, sizeof *f);
	return f;
}

static struct ptx_message *parse_message(struct parser *ps, char close, int open_line,
                                         int open_column, const char *owner, int depth);

/* Parses '{' message '}' or '<' message '>' at the current token into f. */
static void parse_nested(struct parser *ps, struct ptx_field *f, int depth)
{
	char close = is_punct(&ps->tok, '{') ? '}' : '>';
	int line = ps->tok.line, column = ps->tok.column;
	if (depth >= PTX_MAX_DEPTH) {
		error_at(ps, line, column, "messages nested more than %d deep", PTX_MAX_DEPTH);
		return;
	}
	next(ps);
	f->kind = PTX_MESSAGE;
	f->msg = parse_message(ps, close, line, column, f->name, depth + 1);
}

/* Parses one scalar value (the current token onward) into f. */
static void parse_scalar(struct parser *ps, struct ptx_field *f)
{
	char buf[64];
	struct token *t = &ps->tok;
	if (t->kind == TOK_STRING) {
		/* Adjacent strings are one value: "ab" 'cd' is "abcd". */
		char *s = t->str;
		size_t n = t->str_len;
		next(ps);
		while (!ps->failed && ps->tok.kind == TOK_STRING) {
			char *joined = arena_alloc(ps->arena, n + ps->tok.str_len + 1);
			memcpy(joined, s, n);
			memcpy(joined + n, ps->tok.str, ps->tok.str_len);
			n += ps->tok.str_len;
			joined[n] = '\0';
			s = joined;
			next(ps);
		}
		f->kind = PTX_STRING;
		f->text = s;
		f->text_len = n;
		return;
	}
	int negative = 0;
	if (is_punct(t, '-')) {
		negative = 1;
		next(ps);
		if (ps->failed)
			return;
		if (t->kind != TOK_NUMBER && t->kind != TOK_IDENT) {
			error_at(ps, t->line, t->column, "expected a number after '-', found %s",
			         describe(t, buf, sizeof buf));
			return;
		}
	}
	if (t->kind == TOK_NUMBER || t->kind == TOK_IDENT) {
		f->kind = t->kind == TOK_NUMBER ? PTX_NUMBER : PTX_IDENT;
		char *text = arena_alloc(ps->arena, t->len + 2);
		size_t k = 0;
		if (negative)
			text[k++] = '-';
		memcpy(text + k, t->start, t->len);
		text[k + t->len] = '\0';
		f->text = text;
		f->text_len = k + t->len;
		next(ps);
		return;
	}
	error_at(ps, t->line, t->column, "expected a value for field '%s', found %s", f->name,
	         describe(t, buf, sizeof buf));
}

/* Parses the '[' a, b, ... ']' shorthand of a repeated field: each element
 * becomes a field of its own with the same name and position. */
static void parse_list(struct parser *ps, struct field_list *fields, const struct ptx_field *proto,
                       int depth)
{
	char buf[64];
	int line = ps->tok.line, column = ps->tok.column;
	next(ps);
	if (is_punct(&ps->tok, ']')) {
		next(ps);
		return;
	}
	while (!ps->failed) {
		struct ptx_field elem = *proto;
		if (is_punct(&ps->tok, '{') || is_punct(&ps->tok, '<'))
			parse_nested(ps, &elem, depth);
		else
			parse_scalar(ps, &elem);
		if (ps->failed)
			return;
		*push_field(fields) = elem;
		if (is_punct(&ps->tok, ',')) {
			next(ps);
			continue;
		}
		if (is_punct(&ps->tok, ']')) {
			next(ps);
			return;
		}
		error_at(ps, ps->tok.line, ps->tok.column,
		         "expected ',' or ']' in the list of '%s' opened at %d:%d, found %s",
		         proto->name, line, column, describe(&ps->tok, buf, sizeof buf));
	}
}

/* Parses fields until `close` ('}' or '>'), or until the end of the text
 * when close is 0 (the top level). The closing token is consumed. */
static struct ptx_message *parse_message(struct parser *ps, char close, int open_line,
                                         int open_column, const char *owner, int depth)
{
	char buf[64];
	struct field_list fields = {0};
	while (!ps->failed) {
		struct token *t = &ps->tok;
		if (t->kind == TOK_EOF) {
			if (close)
				error_at(ps, t->line, t->column,
				         "expected '%c' to close '%s' opened at %d:%d, found end of file",
				         close, owner, open_line, open_column);
			break;
		}
		if (close && is_punct(t, close)) {
			next(ps);
			break;
		}
		if (t->kind != TOK_IDENT) {
			if ((is_punct(t, '}') || is_punct(t, '>')) && close)
				error_at(ps, t->line, t->column,
				         "expected '%c' to close '%s' opened at %d:%d, found '%c'", close,
				         owner, open_line, open_column, t->start[0]);
			else if (is_punct(t, '}') || is_punct(t, '>'))
				error_at(ps, t->line, t->column, "unbalanced '%c': no message is open",
				         t->start[0]);
			else
				error_at(ps, t->line, t->column, "expected a field name, found %s",
				         describe(t, buf, sizeof buf));
			break;
		}
		struct ptx_field f = {0};
		/* The name may end the text: copy len bytes, then terminate. */
		char *name = arena_alloc(ps->arena, t->len + 1);
		memcpy(name, t->start, t->len);
		name[t->len] = '\0';
		f.name = name;
		f.line = t->line;
		f.column = t->column;
		next(ps);
		if (ps->failed)
			break;
		int colon = 0;
		if (is_punct(t, ':')) {
			colon = 1;
			next(ps);
			if (ps->failed)
				break;
		}
		if (is_punct(t, '{') || is_punct(t, '<')) {
			parse_nested(ps, &f, depth);
		} else if (colon && is_punct(t, '[')) {
			parse_list(ps, &fields, &f, depth);
			goto separator;
		} else if (!colon) {
			error_at(ps, t->line, t->column, "expected ':' or '{' after field name '%s', found %s",
			         f.name, describe(t, buf, sizeof buf));
		} else {
			parse_scalar(ps, &f);
		}
		if (ps->failed)
			break;
		*push_field(&fields) = f;
	separator:
		if (!ps->failed && (is_punct(t, ',') || is_punct(t, ';')))
			next(ps);
	}
	struct ptx_message *m = arena_alloc(ps->arena, sizeof *m);
	m->n_fields = fields.n;
	if (fields.n)
		m->fields = arena_memdup(ps->arena, fields.v, (size_t)fields.n * sizeof *fields.v);
	free(fields.v);
	return m;
}

struct ptx_message *ptx_parse(struct arena *arena, const char *file, const char *text, size_t len,
                              struct diag *d)
{
	struct parser ps = {0};
	ps.arena = arena;
	ps.file = file;
	ps.d = d;
	ps.p = text;
	ps.end = text + len;
	ps.line = 1;
	ps.column = 1;
	/* A UTF-8 byte order mark is not part of the text. */
	if (len >= 3 && memcmp(text, "\xEF\xBB\xBF", 3) == 0)
		ps.p += 3;
	next(&ps);
	struct ptx_message *m = parse_message(&ps, 0, 0, 0, "", 0);
	return ps.failed ? NULL : m;
}
