/* emit.c - the C emitter: turns a planned graph into NAME.c, NAME.h and, when
 * the weights are not written as a C array, NAME.weights.bin (DESIGN.md §2
 * "Generated code", STYLE.md §8).
 *
 * Works in two steps: emit_plan_graph() (emit_plan.c, with emit_runtime.c for the
 * runtime text) decides everything and reports every problem before a file
 * is opened; the print_* functions (emit_print.c) then write that plan.
 * emit_internal.h holds the plan types they share.
 *
 * Files are written to temporaries in the output directory and renamed into
 * place only when every write succeeded; a failure removes the temporaries
 * and leaves pre-existing files as they were. */
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

/* ---- files ---------------------------------------------------------------- */

struct out_file {
	const char *path;  /* final name */
	char *tmp;         /* temporary beside it; owned */
	FILE *f;
	int renamed;       /* tmp is now path */
};

static int open_temp(struct plan *p, struct out_file *o)
{
	const char *slash = strrchr(o->path, '/');
	size_t dir = slash ? (size_t)(slash - o->path) + 1 : 0;
	size_t n = strlen(o->path) + 16;
	o->tmp = xmalloc(n);
	snprintf(o->tmp, n, "%.*s.%s.XXXXXX", (int)dir, o->path, o->path + dir);
	int fd = mkstemp(o->tmp);
	if (fd < 0) {
		diag_error(p->d, NULL, "cannot create %s: %s", o->path, strerror(errno));
		free(o->tmp);
		o->tmp = NULL;
		return -1;
	}
	/* mkstemp makes the file private; outputs get the usual permissions. */
	mode_t mask = umask(0);
	umask(mask);
	if (fchmod(fd, 0666 & ~mask) != 0 || !(o->f = fdopen(fd, "wb"))) {
		diag_error(p->d, NULL, "cannot write %s: %s", o->path, strerror(errno));
		close(fd);
		return -1;
	}
	return 0;
}

static int close_temp(struct plan *p, struct out_file *o)
{
	if (!o->f)
		return 0;
	int bad = ferror(o->f);
	int err = errno;
	if (fclose(o->f) != 0) {
		bad = 1;
		err = errno;
	}
	o->f = NULL;
	if (bad) {
		diag_error(p->d, NULL, "cannot write %s: %s", o->path, strerror(err ? err : EIO));
		return -1;
	}
	return 0;
}

int emit_c(const struct graph *g, const struct options *opt, struct diag *d)
{
	struct plan pl = {.g = g, .opt = opt, .d = d};
	struct plan *p = &pl;
	int before = d->errors;
	enum { F_BIN, F_H, F_C, F_COUNT };
	struct out_file files[F_COUNT] = {{0}};
	int rc = -1;

	if (emit_plan_graph(p))
		goto out;
	files[F_BIN].path = p->bin_path;
	files[F_H].path = p->h_path;
	files[F_C].path = p->c_path;
	int with_bin = p->mode == WEIGHTS_FILE || (p->mode == WEIGHTS_EMBED && p->n_consts);
	for (int i = with_bin ? F_BIN : F_H; i < F_COUNT; i++)
		if (open_temp(p, &files[i]))
			goto out;
	if (with_bin)
		emit_print_blob(p, files[F_BIN].f);
	struct emitter eh = {.f = files[F_H].f}, ec = {.f = files[F_C].f};
	emit_print_header(p, &eh);
	emit_print_c_file(p, &ec);
	if (d->errors != before)
		goto out;
	for (int i = 0; i < F_COUNT; i++)
		if (close_temp(p, &files[i]))
			goto out;
	for (int i = 0; i < F_COUNT; i++) {
		if (!files[i].tmp)
			continue;
		if (rename(files[i].tmp, files[i].path) != 0) {
			diag_error(d, NULL, "cannot create %s: %s", files[i].path, strerror(errno));
			/* Take back what was already renamed: all or nothing. */
			for (int k = 0; k < i; k++)
				if (files[k].renamed)
					unlink(files[k].path);
			goto out;
		}
		files[i].renamed = 1;
		free(files[i].tmp);
		files[i].tmp = NULL;
	}
	rc = 0;
out:
	for (int i = 0; i < F_COUNT; i++) {
		if (files[i].f)
			fclose(files[i].f);
		if (files[i].tmp) {
			unlink(files[i].tmp);
			free(files[i].tmp);
		}
	}
	for (int i = 0; i < p->n_strings; i++)
		free(p->strings[i]);
	free(p->strings);
	emit_names_free(&p->names);
	free(p->tb);
	free(p->layers);
	free(p->consts);
	free(p->pieces);
	return rc == 0 && d->errors == before ? 0 : d->errors - before;
}
