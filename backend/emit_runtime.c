/* emit_runtime.c - the runtime text a model needs. dnncc embeds the runtime's
 * sources (backend/runtime_text.c, made by tools/embed.c); emit_plan_runtime()
 * picks the files of the units the layers use (runtime/units.def) with their
 * dependencies, cuts them into pieces and keeps a `static inline` function
 * only when kept text calls it; emit_print_runtime() copies the kept pieces.
 * emit_runtime() writes the runtime alone (dnncc profile's harness). */
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

static const char *const rt_unit_files[RT_UNIT_COUNT_] = {
#define X(e, f) f,
#include "runtime/units.def"
#undef X
};

/* What each unit needs besides rt_types.h (units.def's XD rows). */
static const char *const rt_unit_deps[RT_UNIT_COUNT_] = {
#define XD(e, f, deps) deps,
#include "runtime/units.def"
#undef XD
};

/* The GEMM's micro-kernel file for each RT_SGEMM_ISA_* (runtime/sgemm.h). */
static const char *const sgemm_kernel_files[] = {
	"sgemm_c.c", "sgemm_avx2.c", "sgemm_avx512.c", "sgemm_neon.c",
};

/* Spellings of the RT_SGEMM_ISA_* numbers (rt_types.h). */
const char *const emit_rt_isa_names[] = {
	"RT_SGEMM_ISA_C", "RT_SGEMM_ISA_AVX2", "RT_SGEMM_ISA_AVX512", "RT_SGEMM_ISA_NEON",
};
_Static_assert(RT_SGEMM_ISA_C == 0 && RT_SGEMM_ISA_AVX2 == 1 && RT_SGEMM_ISA_AVX512 == 2 &&
                       RT_SGEMM_ISA_NEON == 3,
               "emit_rt_isa_names follows the RT_SGEMM_ISA_* numbers");

static const struct embedded_file *find_source(struct plan *p, const char *file)
{
	char path[256];
	snprintf(path, sizeof path, "runtime/%s", file);
	for (const struct embedded_file *f = rt_sources; f->name; f++)
		if (strcmp(f->name, path) == 0)
			return f;
	diag_error(p->d, NULL, "internal error: runtime source %s is not embedded in dnncc", path);
	return NULL;
}

static int ident_at(const char *s, size_t i)
{
	return emit_ident_char(s[i]);
}

/* The function a line `static inline ... NAME(` defines, into name; 0 when
 * the line is not such a definition (or is one this scan cannot name). */
static int inline_fn_name(const char *line, size_t len, char name[64])
{
	static const char prefix[] = "static inline ";
	size_t plen = sizeof prefix - 1;
	if (len < plen || strncmp(line, prefix, plen) != 0)
		return 0;
	const char *paren = memchr(line, '(', len);
	if (!paren)
		return 0;
	size_t end = (size_t)(paren - line);
	while (end > plen && (line[end - 1] == ' ' || line[end - 1] == '\t'))
		end--;
	size_t begin = end;
	while (begin > plen && ident_at(line, begin - 1))
		begin--;
	if (begin == end || end - begin >= 64 || strncmp(line + begin, "__attribute__", end - begin) == 0)
		return 0;
	memcpy(name, line + begin, end - begin);
	name[end - begin] = '\0';
	return 1;
}

static void add_piece(struct plan *p, int file, const char *text, size_t len, const char *fn)
{
	if (len == 0)
		return;
	p->pieces = xrealloc(p->pieces, (p->n_pieces + 1) * sizeof *p->pieces);
	struct piece *pc = &p->pieces[p->n_pieces++];
	pc->file = file;
	pc->text = text;
	pc->len = len;
	snprintf(pc->fn, sizeof pc->fn, "%s", fn ? fn : "");
	pc->keep = !fn;
}

/* 1 if text calls fn: the identifier, then optional blanks and "(". */
static int calls(const char *text, size_t len, const char *fn)
{
	size_t n = strlen(fn);
	for (size_t i = 0; i + n <= len; i++) {
		if (memcmp(text + i, fn, n) != 0 || (i > 0 && ident_at(text, i - 1)))
			continue;
		size_t k = i + n;
		while (k < len && (text[k] == ' ' || text[k] == '\t'))
			k++;
		if (k < len && text[k] == '(')
			return 1;
	}
	return 0;
}

/* Splits a runtime file into pieces: `#include "..."` lines are dropped (the
 * file is pasted after rt_types.h); a line starting `static inline ... NAME(`
 * through the next line starting with '}' is a function piece. */
static void split_source(struct plan *p, int file)
{
	const struct embedded_file *f = p->rt_files[file];
	const char *s = f->text, *end = f->text + f->size, *plain = s;
	while (s < end) {
		const char *nl = memchr(s, '\n', (size_t)(end - s));
		const char *eol = nl ? nl + 1 : end;
		const char *c = s;
		while (c < eol && (*c == ' ' || *c == '\t'))
			c++;
		if (c < eol && *c == '#') {
			c++;
			while (c < eol && (*c == ' ' || *c == '\t'))
				c++;
			if ((size_t)(eol - c) > 7 && strncmp(c, "include", 7) == 0) {
				c += 7;
				while (c < eol && (*c == ' ' || *c == '\t'))
					c++;
				if (c < eol && *c == '"') {
					add_piece(p, file, plain, (size_t)(s - plain), NULL);
					plain = s = eol;
					continue;
				}
			}
		}
		char fn[64];
		if (inline_fn_name(s, (size_t)(eol - s), fn)) {
			/* the body ends at the next line that starts with '}' */
			const char *t = eol;
			while (t < end && *t != '}') {
				const char *n2 = memchr(t, '\n', (size_t)(end - t));
				t = n2 ? n2 + 1 : end;
			}
			if (t < end) {
				const char *n2 = memchr(t, '\n', (size_t)(end - t));
				const char *close = n2 ? n2 + 1 : end;
				add_piece(p, file, plain, (size_t)(s - plain), NULL);
				add_piece(p, file, s, (size_t)(close - s), fn);
				plain = s = close;
				continue;
			}
		}
		s = eol;
	}
	add_piece(p, file, plain, (size_t)(end - plain), NULL);
}

static const struct embedded_file *find_source(struct plan *p, const char *file);

/* The threads the generated code runs on (--threads; 1 without). */
int emit_threads_of(const struct plan *p)
{
	return p->opt->threads > 1 ? p->opt->threads : 1;
}

/* The runtime text the model needs: rt_types.h and the units it calls, with
 * each static inline function kept only when kept text calls it. */
int emit_plan_runtime(struct plan *p)
{
	p->rt_files[p->n_rt_files++] = find_source(p, "rt_types.h");
	if (emit_threads_of(p) > 1)
		p->rt_files[p->n_rt_files++] = find_source(p, "thread_pool.c");
	/* Units a used unit depends on are used too (they come earlier in
	 * units.def, so they are copied first); the GEMM is handled below. */
	for (int changed = 1; changed;) {
		changed = 0;
		for (int u = 0; u < RT_UNIT_COUNT_; u++) {
			if (!p->unit_used[u])
				continue;
			for (int v = 0; v < RT_UNIT_COUNT_; v++) {
				const char *hit = strstr(rt_unit_deps[u], rt_unit_files[v]);
				size_t len = strlen(rt_unit_files[v]);
				if (!p->unit_used[v] && hit && (hit[len] == ' ' || hit[len] == '\0') &&
				    (hit == rt_unit_deps[u] || hit[-1] == ' '))
					p->unit_used[v] = changed = 1;
			}
		}
	}
	/* The GEMM comes before the units calling it: sgemm.h, then the target's
	 * micro-kernel and the driver when any unit calls rt_sgemm. */
	for (int u = 0; u < RT_UNIT_COUNT_; u++) {
		if (!p->unit_used[u])
			continue;
		if (strstr(rt_unit_deps[u], "sgemm.c"))
			p->uses_sgemm = 2;
		else if (strstr(rt_unit_deps[u], "sgemm.h") && !p->uses_sgemm)
			p->uses_sgemm = 1;
	}
	if (p->uses_sgemm)
		p->rt_files[p->n_rt_files++] = find_source(p, "sgemm.h");
	for (int u = 0; u < RT_UNIT_COUNT_; u++) /* the SIMD layer, after sgemm.h */
		if (p->unit_used[u] && strstr(rt_unit_deps[u], "rt_simd.h")) {
			p->rt_files[p->n_rt_files++] = find_source(p, "rt_simd.h");
			break;
		}
	if (p->uses_sgemm == 2 && p->opt->blas_openblas) {
		p->rt_files[p->n_rt_files++] = find_source(p, "sgemm_cblas.c");
	} else if (p->uses_sgemm == 2) {
		p->rt_files[p->n_rt_files++] = find_source(p, sgemm_kernel_files[p->opt->isa]);
		p->rt_files[p->n_rt_files++] = find_source(p, "sgemm.c");
	}
	for (int u = 0; u < RT_UNIT_COUNT_; u++)
		if (p->unit_used[u])
			p->rt_files[p->n_rt_files++] = find_source(p, rt_unit_files[u]);
	for (int i = 0; i < p->n_rt_files; i++)
		if (!p->rt_files[i])
			return -1;
	for (int i = 0; i < p->n_rt_files; i++)
		split_source(p, i);
	for (int changed = 1; changed;) {
		changed = 0;
		for (int i = 0; i < p->n_pieces; i++) {
			struct piece *f = &p->pieces[i];
			for (int k = 0; !f->keep && k < p->n_pieces; k++) {
				const struct piece *q = &p->pieces[k];
				if (k != i && q->keep && calls(q->text, q->len, f->fn))
					f->keep = changed = 1;
			}
		}
	}
	return 0;
}

/* rt_types.h, then each unit the model calls, once, in units.def order,
 * without their includes and unused inline helpers (emit_plan_runtime). */
void emit_print_runtime(struct plan *p, struct emitter *e)
{
	for (int i = 0; i < p->n_rt_files; i++) {
		const struct embedded_file *f = p->rt_files[i];
		emit_line(e, "/* ---- %s ---- */", f->name);
		for (int k = 0; k < p->n_pieces; k++)
			if (p->pieces[k].file == i && p->pieces[k].keep)
				emit_raw(e, p->pieces[k].text, p->pieces[k].len);
		if (f->size && f->text[f->size - 1] != '\n')
			emit_blank(e);
		emit_blank(e);
	}
}

int emit_runtime(FILE *f, const int *units, int n_units, const struct options *opt,
                 struct diag *d)
{
	struct plan pl = {.opt = opt, .d = d};
	struct plan *p = &pl;
	for (int i = 0; i < n_units; i++) {
		if (units[i] < 0 || units[i] >= RT_UNIT_COUNT_)
			unreachable("emit_runtime: unit number out of range");
		p->unit_used[units[i]] = 1;
	}
	int rc = -1;
	if (emit_plan_runtime(p) == 0) {
		struct emitter e = {.f = f};
		emit_line(&e, "/* Runtime functions are private to this file. */");
		emit_line(&e, "#define RT_FN static");
		emit_line(&e, "/* The GEMM micro-kernel of the target (%s). */",
		          opt->target ? opt->target : "host");
		emit_line(&e, "#define RT_SGEMM_ISA %s", emit_rt_isa_names[opt->isa]);
		emit_blank(&e);
		emit_print_runtime(p, &e);
		rc = p->uses_sgemm == 2 && opt->blas_openblas ? 1 : 0;
	}
	free(p->pieces);
	return rc;
}
