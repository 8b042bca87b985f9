/* costs.c - where selection gets its costs: a measured cost table when the
 * user gave one (--costs, --profile), else the built-in model of
 * cost_model.c. This file owns the table's format, its reader, writer and
 * lookup.
 *
 * The cost table (DESIGN.md §2 "Cost table") is a text file of tab-separated
 * values that `dnncc profile` writes and `--costs` reads:
 *
 *   # dnncc cost table: microseconds per call (format: passes/costs.c)
 *   # machine: Intel(R) Xeon(R) Platinum 8480+
 *   # isa: host (RT_SGEMM_ISA_AVX512)
 *   # compiler: cc (Debian 12.2.0-14) 12.2.0
 *   # flags: -std=c99 -O2
 *   # threads: 1
 *   # dnncc: 0.1.0
 *   # date: 2026-12-01T20:31:07Z
 *   # kind<TAB>row<TAB>key<TAB>median_us<TAB>min_us<TAB>max_us<TAB>runs
 *   prim<TAB>conv_im2_col_copy_ki_chw<TAB>1,1,28,28,32,28,28,3,3,1,1,1,1,1,1,1,1<TAB>41.2<TAB>40.8<TAB>44.0<TAB>15
 *   transform<TAB>layout_chw_to_hwc<TAB>1,32,28,28<TAB>3.1<TAB>3.0<TAB>3.6<TAB>15
 *
 * Lines starting with '#' are comments; those of the form "# NAME: VALUE"
 * are the header, which says where the numbers were measured (machine: the
 * CPU model from /proc/cpuinfo; isa: the --target and the GEMM micro-kernel
 * it selects; compiler and flags the harness was built with; threads: how
 * many the cases ran on, a positive integer, 1 when absent; the dnncc
 * version; date in UTC). Empty lines are ignored. Every other line is a
 * row of exactly seven tab-separated fields:
 *   1. kind: "prim" (a convolution primitive, runtime/primitives.def) or
 *      "transform" (a layout transform, runtime/transforms.def);
 *   2. the row's name as --list-primitives / --list-transforms print it;
 *   3. the scenario key, comma-separated decimal integers:
 *        prim:      N,C,H,W,M,oH,oW,kH,kW,sH,sW,dH,dW,padT,padL,group,act
 *                   (the fields of struct rt_conv2d that affect time: input
 *                   and output dims, kernel, strides, dilations, leading pads
 *                   (the trailing ones follow from oH and oW), groups and the
 *                   fused epilogue as enum rt_act: 0 none, 1 relu, 2 leaky
 *                   relu, 3 clip, 4 sigmoid, 5 tanh); 1-D layers have H = 1;
 *        transform: N,C,H,W of the tensor converted;
 *   4-6. median, minimum and maximum time of one call in microseconds;
 *   7. the number of timed runs.
 * A (kind, name, key) appears at most once. A row naming a primitive or
 * transform this dnncc does not have is warned about and ignored; any other
 * malformed line is an error naming the file and line, and the table is
 * refused. The instruction set is not in the key: a table describes one
 * machine and target (its header), and profile's cache keeps one file per
 * machine, target and compiler.
 * Kind "nonconv" rows are the non-convolution kernels of runtime/nonconv.def
 * (pooling, global pooling, activations, element-wise ops, Concat, one row
 * per layout), keyed by nc_key (passes/nonconv.c): for a pool
 *   N,C,H,W,oH,oW,kH,kW,sH,sW,dH,dW,padT,padL,padB,padR,count_include_pad,avg
 * and for the others the output's N,C,H,W and the op (enum op), then each
 * input's C for a Concat, or the input's H,W for a global pool.
 * Kind "warm" rows (a harness run with --evict-weights writes them) are
 * "prim" rows timed again with the primitive's workspace and output left in
 * the cache, as a layer finds the arena when the layer before it used a
 * workspace too (driver/harness_main.c): same row, key and fields;
 * selection (passes/select.c) charges a primitive its "warm" time after a
 * layer with a workspace, its "prim" time otherwise.
 * Kind "fc" rows (row "gemm_fc") are fully-connected layers whose packed
 * weights runtime/gemm_fc.c streams (a Gemm or MatMul with a constant B
 * and fewer than 64 rows, passes/select.c), keyed M,N,K (rows, outputs,
 * inputs), timed with a bias and ReLU as AlexNet's classifier has them.
 * A lookup that finds no row (a layer the
 * table was not profiled for, a row added to dnncc since) falls back to the
 * built-in model; --report counts how many did. */
#include "config.h"

#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "passes/passes.h"
#include "runtime/primitives.h"

#define PRIM_KEY_FIELDS 17
#define SHAPE_KEY_FIELDS 4
#define FC_KEY_FIELDS 3

/* Header names, in the order cost_table_write prints them. */
static const char *const header_names[COST_HDR_COUNT_] = {
	"machine", "isa", "compiler", "flags", "threads", "dnncc", "date",
};

/* Distinct lookups selection made, for --report: mutable behind the const
 * table selection sees. */
struct cost_usage {
	size_t n_missed, cap_missed;
	char **missed;      /* open-addressing set of keys that fell back (NULL: free) */
	size_t n_hits;
	unsigned char *hit; /* [n_rows] 1 once a lookup found the row */
};

struct cost_table {
	char *path;       /* file read, or NULL for a table built in memory */
	char *header[COST_HDR_COUNT_];
	char *source;     /* costs_source's line (make_source) */
	size_t n_rows, cap_rows;
	struct cost_row *rows;
	char **full;      /* [n_rows] "kind\trow\tkey": the hash key of each row */
	size_t n_slots;   /* power of two, more than twice n_rows */
	size_t *slots;    /* row index + 1, 0: empty */
	struct cost_usage *usage;
};

/* ---- keys -------------------------------------------------------------------- */

void costs_conv_key(const struct rt_conv2d *p, char *buf, size_t size)
{
	snprintf(buf, size, "%d,%d,%d,%d,%d,%d,%d,%d,%d,%d,%d,%d,%d,%d,%d,%d,%d", p->N, p->C, p->H,
	         p->W, p->M, p->oH, p->oW, p->kH, p->kW, p->sH, p->sW, p->dH, p->dW, p->padT,
	         p->padL, p->group, p->act);
}

void costs_shape_key(int N, int C, int H, int W, char *buf, size_t size)
{
	snprintf(buf, size, "%d,%d,%d,%d", N, C, H, W);
}

void costs_fc_key(int M, int N, int K, char *buf, size_t size)
{
	snprintf(buf, size, "%d,%d,%d", M, N, K);
}

/* kinds: 0 prim, 1 transform, 2 nonconv, 3 fc, 4 warm (cost_row.transform) */
static const char *const kind_names[] = {"prim", "transform", "nonconv", "fc", "warm"};

const char *costs_kind_name(int transform)
{
	return transform >= 0 && transform < (int)(sizeof kind_names / sizeof *kind_names) ?
	               kind_names[transform] : "?";
}

static uint64_t hash_str(const char *s)
{
	uint64_t h = 1469598103934665603ull; /* FNV-1a */
	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ull;
	return h;
}

static char *full_key(int transform, const char *row, const char *key)
{
	size_t n = strlen(row) + strlen(key) + 16;
	char *s = xmalloc(n);
	snprintf(s, n, "%s\t%s\t%s", costs_kind_name(transform), row, key);
	return s;
}

/* ---- the table in memory -------------------------------------------------- */

/* costs_source's line: "measured: PATH (MACHINE, COMPILER, N thread)". */
static void make_source(struct cost_table *t)
{
	const char *m = t->header[COST_HDR_MACHINE], *c = t->header[COST_HDR_COMPILER];
	const char *th = t->header[COST_HDR_THREADS];
	size_t n = 64 + (t->path ? strlen(t->path) : 0) + (m ? strlen(m) : 0) + (c ? strlen(c) : 0) +
	           (th ? strlen(th) : 0);
	free(t->source);
	t->source = xmalloc(n);
	snprintf(t->source, n, "measured: %s (%s, %s, %s thread%s)", t->path ? t->path : "(profiled)",
	         m ? m : "unknown machine", c ? c : "unknown compiler", th ? th : "1",
	         th && strcmp(th, "1") ? "s" : "");
}

struct cost_table *cost_table_new(void)
{
	struct cost_table *t = xcalloc(1, sizeof *t);
	t->usage = xcalloc(1, sizeof *t->usage);
	make_source(t);
	return t;
}

static size_t find_slot(const struct cost_table *t, const char *full)
{
	size_t mask = t->n_slots - 1, i = (size_t)hash_str(full) & mask;
	while (t->slots[i] && strcmp(t->full[t->slots[i] - 1], full) != 0)
		i = (i + 1) & mask;
	return i;
}

static void rehash(struct cost_table *t, size_t n_slots)
{
	free(t->slots);
	t->n_slots = n_slots;
	t->slots = xcalloc(n_slots, sizeof *t->slots);
	for (size_t r = 0; r < t->n_rows; r++)
		t->slots[find_slot(t, t->full[r])] = r + 1;
}

const struct cost_row *cost_table_find(const struct cost_table *t, int transform,
                                       const char *row, const char *key)
{
	if (!t || t->n_rows == 0)
		return NULL;
	char buf[512];
	snprintf(buf, sizeof buf, "%s\t%s\t%s", costs_kind_name(transform), row, key);
	size_t s = t->slots[find_slot(t, buf)];
	return s ? &t->rows[s - 1] : NULL;
}

const struct cost_row *cost_table_add(struct cost_table *t, const struct cost_row *r)
{
	char *full = full_key(r->transform, r->row, r->key);
	if (t->n_slots && t->slots[find_slot(t, full)]) {
		free(full);
		return NULL;
	}
	if (t->n_rows == t->cap_rows) {
		t->cap_rows = t->cap_rows ? 2 * t->cap_rows : 64;
		t->rows = xrealloc(t->rows, t->cap_rows * sizeof *t->rows);
		t->full = xrealloc(t->full, t->cap_rows * sizeof *t->full);
	}
	struct cost_row *n = &t->rows[t->n_rows];
	*n = *r;
	n->row = xstrdup(r->row);
	n->key = xstrdup(r->key);
	t->full[t->n_rows++] = full;
	if (2 * t->n_rows >= t->n_slots)
		rehash(t, t->n_slots ? 2 * t->n_slots : 256);
	else
		t->slots[find_slot(t, full)] = t->n_rows;
	free(t->usage->hit);
	t->usage->hit = NULL; /* sized on the first lookup after the last add */
	t->usage->n_hits = 0;
	return n;
}

size_t cost_table_n_rows(const struct cost_table *t) { return t ? t->n_rows : 0; }

const struct cost_row *cost_table_row(const struct cost_table *t, size_t i)
{
	return &t->rows[i];
}

void cost_table_set_header(struct cost_table *t, enum cost_header h, const char *value)
{
	free(t->header[h]);
	t->header[h] = value ? xstrdup(value) : NULL;
	make_source(t);
}

void cost_table_set_path(struct cost_table *t, const char *path)
{
	free(t->path);
	t->path = path ? xstrdup(path) : NULL;
	make_source(t);
}

const char *cost_table_header(const struct cost_table *t, enum cost_header h)
{
	return t->header[h];
}

void cost_table_free(struct cost_table *t)
{
	if (!t)
		return;
	for (size_t i = 0; i < t->n_rows; i++) {
		free(t->rows[i].row);
		free(t->rows[i].key);
		free(t->full[i]);
	}
	for (int h = 0; h < COST_HDR_COUNT_; h++)
		free(t->header[h]);
	for (size_t i = 0; i < t->usage->cap_missed; i++)
		free(t->usage->missed[i]);
	free(t->usage->missed);
	free(t->usage->hit);
	free(t->usage);
	free(t->rows);
	free(t->full);
	free(t->slots);
	free(t->path);
	free(t->source);
	free(t);
}

/* ---- reading -------------------------------------------------------------- */

/* Parses exactly n comma-separated integers of s, each >= lo (act's and
 * padding's 0, dims' 1 come from the caller's list); 0 on success. */
static int parse_ints(const char *s, int n, int *v)
{
	for (int i = 0; i < n; i++) {
		char *end;
		errno = 0;
		long x = strtol(s, &end, 10);
		if (end == s || errno || x < 0 || x > 1L << 30 || (*s < '0' || *s > '9'))
			return -1;
		v[i] = (int)x;
		if (i + 1 < n && *end != ',')
			return -1;
		s = end + (i + 1 < n);
		if (i + 1 == n && *end)
			return -1;
	}
	return 0;
}

/* Checks a key of the given kind and writes it canonically into out. */
static const char *canonical_key(int transform, const char *key, char *out, size_t size)
{
	int v[PRIM_KEY_FIELDS];
	if (transform == 3) {
		if (parse_ints(key, FC_KEY_FIELDS, v))
			return "expected M,N,K (3 non-negative integers)";
		if (!v[0] || !v[1] || !v[2])
			return "M, N and K must be positive";
		costs_fc_key(v[0], v[1], v[2], out, size);
		return NULL;
	}
	if (transform == 2) { /* comma-separated non-negative integers, as nc_key writes */
		size_t len = strlen(key);
		int ok = len > 0 && len < size && key[0] != ',' && key[len - 1] != ',';
		for (size_t i = 0; ok && i < len; i++)
			ok = (key[i] >= '0' && key[i] <= '9') || (key[i] == ',' && key[i + 1] != ',');
		if (!ok)
			return "expected comma-separated non-negative integers";
		memcpy(out, key, len + 1);
		return NULL;
	}
	if (transform == 1) {
		if (parse_ints(key, SHAPE_KEY_FIELDS, v))
			return "expected N,C,H,W (4 non-negative integers)";
		if (!v[0] || !v[1] || !v[2] || !v[3])
			return "N, C, H and W must be positive";
		costs_shape_key(v[0], v[1], v[2], v[3], out, size);
		return NULL;
	}
	if (parse_ints(key, PRIM_KEY_FIELDS, v))
		return "expected N,C,H,W,M,oH,oW,kH,kW,sH,sW,dH,dW,padT,padL,group,act "
		       "(17 non-negative integers)";
	struct rt_conv2d p = {
		.N = v[0], .C = v[1], .H = v[2], .W = v[3], .M = v[4], .oH = v[5], .oW = v[6],
		.kH = v[7], .kW = v[8], .sH = v[9], .sW = v[10], .dH = v[11], .dW = v[12],
		.padT = v[13], .padL = v[14], .group = v[15], .act = v[16],
	};
	for (int i = 0; i < 13; i++)
		if (!v[i])
			return "N, C, H, W, M, oH, oW, kH, kW, sH, sW, dH and dW must be positive";
	if (!p.group || p.C % p.group || p.M % p.group)
		return "group must be positive and divide C and M";
	if (p.act > RT_ACT_TANH)
		return "act must be 0 to 5 (enum rt_act)";
	costs_conv_key(&p, out, size);
	return NULL;
}

static int parse_time(const char *s, double *v)
{
	char *end;
	errno = 0;
	*v = strtod(s, &end);
	return end == s || *end || errno || !isfinite(*v) || *v < 0 ? -1 : 0;
}

static int known_row(int transform, const char *name)
{
	if (transform == 0 || transform == 4)
		return rt_prim_find(name) != NULL;
	if (transform == 3)
		return strcmp(name, "gemm_fc") == 0;
	if (transform == 2) {
		for (int i = 0; i < nc_n_kernels; i++)
			if (strcmp(nc_kernels[i].name, name) == 0)
				return 1;
		return 0;
	}
	for (int i = 0; i < rt_n_transforms; i++)
		if (strcmp(rt_transforms[i].name, name) == 0)
			return 1;
	return 0;
}

/* One "# NAME: VALUE" header line (anything else after '#' is a comment). */
static void read_header_line(struct cost_table *t, char *s)
{
	s++;
	while (*s == ' ')
		s++;
	for (int h = 0; h < COST_HDR_COUNT_; h++) {
		size_t n = strlen(header_names[h]);
		if (strncmp(s, header_names[h], n) == 0 && s[n] == ':') {
			const char *v = s + n + 1;
			while (*v == ' ')
				v++;
			cost_table_set_header(t, (enum cost_header)h, v);
		}
	}
}

/* One row; reports problems as "PATH: line N: ..." through d. */
static void read_row(struct cost_table *t, char *s, int line, struct diag *d)
{
	char *f[8];
	int n = 0;
	for (char *p = s;; p++) {
		if (n < 8)
			f[n] = p;
		n++;
		p = strchr(p, '\t');
		if (!p)
			break;
		*p = '\0';
	}
	if (n != 7) {
		diag_error(d, NULL,
		           "line %d: expected 7 tab-separated fields (kind, row, key, median_us, "
		           "min_us, max_us, runs), found %d",
		           line, n);
		return;
	}
	int transform = 0;
	while (transform < (int)(sizeof kind_names / sizeof *kind_names) &&
	       strcmp(f[0], kind_names[transform]) != 0)
		transform++;
	if (transform == (int)(sizeof kind_names / sizeof *kind_names)) {
		diag_error(d, NULL, "line %d: unknown kind '%s', expected prim, transform, nonconv, fc or "
		           "warm", line, f[0]);
		return;
	}
	char key[256];
	const char *why = canonical_key(transform, f[2], key, sizeof key);
	if (why) {
		diag_error(d, NULL, "line %d: %s key '%s': %s", line, f[0], f[2], why);
		return;
	}
	struct cost_row r = {.transform = transform, .row = f[1], .key = key, .line = line};
	static const char *const what[] = {"median_us", "min_us", "max_us"};
	double *v[] = {&r.median_us, &r.min_us, &r.max_us};
	for (int i = 0; i < 3; i++)
		if (parse_time(f[3 + i], v[i])) {
			diag_error(d, NULL, "line %d: %s '%s' is not a non-negative number", line,
			           what[i], f[3 + i]);
			return;
		}
	char *end;
	errno = 0;
	long runs = strtol(f[6], &end, 10);
	if (end == f[6] || *end || errno || runs < 1 || runs > 1000000000L) {
		diag_error(d, NULL, "line %d: runs '%s' is not a positive integer", line, f[6]);
		return;
	}
	r.runs = (int)runs;
	if (!(r.min_us <= r.median_us && r.median_us <= r.max_us)) {
		diag_error(d, NULL, "line %d: expected min_us <= median_us <= max_us, found %s, %s, %s",
		           line, f[4], f[3], f[5]);
		return;
	}
	if (!known_row(transform, f[1])) {
		diag_warning(d, NULL, "line %d: no %s named '%s' in this dnncc (row ignored)", line,
		             transform == 3 ? "fully-connected kernel" :
		             transform == 2 ? "non-convolution kernel" :
		             transform == 1 ? "layout transform" : "primitive", f[1]);
		return;
	}
	if (!cost_table_add(t, &r)) {
		const struct cost_row *o = cost_table_find(t, transform, f[1], key);
		diag_error(d, NULL, "line %d: %s %s %s repeats line %d", line, f[0], f[1], key,
		           o->line);
	}
}

struct cost_table *cost_table_read(const char *path, struct diag *d)
{
	struct diag local;
	diag_init(&local, path, d->out);
	FILE *f = fopen(path, "r");
	if (!f) {
		diag_error(&local, NULL, "cannot read the cost table: %s", strerror(errno));
		d->errors++;
		return NULL;
	}
	struct cost_table *t = cost_table_new();
	cost_table_set_path(t, path);
	char *buf = NULL;
	size_t cap = 0;
	ssize_t len;
	int line = 0;
	while ((len = getline(&buf, &cap, f)) >= 0) {
		line++;
		while (len > 0 && (buf[len - 1] == '\n' || buf[len - 1] == '\r'))
			buf[--len] = '\0';
		if ((size_t)len != strlen(buf))
			diag_error(&local, NULL, "line %d: contains a NUL byte", line);
		else if (buf[0] == '#')
			read_header_line(t, buf);
		else if (len > 0)
			read_row(t, buf, line, &local);
	}
	if (ferror(f))
		diag_error(&local, NULL, "read error: %s", strerror(errno));
	free(buf);
	fclose(f);
	const char *threads = t->header[COST_HDR_THREADS];
	if (!local.errors && threads && cost_table_threads(t) < 1)
		diag_error(&local, NULL, "threads '%s' is not a positive integer", threads);
	d->errors += local.errors;
	d->warnings += local.warnings;
	if (local.errors) {
		cost_table_free(t);
		return NULL;
	}
	return t;
}

int cost_table_threads(const struct cost_table *t)
{
	const char *s = t ? t->header[COST_HDR_THREADS] : NULL;
	int v;
	if (!s)
		return 1;
	return parse_ints(s, 1, &v) == 0 && v >= 1 && v <= 4096 ? v : 0;
}

/* ---- writing -------------------------------------------------------------- */

int cost_table_print(const struct cost_table *t, FILE *f)
{
	fprintf(f, "# dnncc cost table: microseconds per call (format: passes/costs.c)\n");
	for (int h = 0; h < COST_HDR_COUNT_; h++)
		if (t->header[h])
			fprintf(f, "# %s: %s\n", header_names[h], t->header[h]);
	fprintf(f, "# kind\trow\tkey\tmedian_us\tmin_us\tmax_us\truns\n");
	for (size_t i = 0; i < t->n_rows; i++) {
		const struct cost_row *r = &t->rows[i];
		fprintf(f, "%s\t%s\t%s\t%.3f\t%.3f\t%.3f\t%d\n", costs_kind_name(r->transform), r->row,
		        r->key, r->median_us, r->min_us, r->max_us, r->runs);
	}
	return ferror(f) ? -1 : 0;
}

int cost_table_write(const struct cost_table *t, const char *path, struct diag *d)
{
	size_t n = strlen(path) + 16;
	char *tmp = xmalloc(n);
	snprintf(tmp, n, "%s.tmpXXXXXX", path);
	int fd = mkstemp(tmp);
	FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;
	if (!f) {
		diag_error(d, NULL, "cannot create %s: %s", path, strerror(errno));
		if (fd >= 0) {
			close(fd);
			unlink(tmp);
		}
		free(tmp);
		return -1;
	}
	int bad = cost_table_print(t, f);
	int err = errno;
	if (fclose(f) != 0 && !bad) {
		bad = -1;
		err = errno;
	}
	if (bad || rename(tmp, path) != 0) {
		diag_error(d, NULL, "cannot write %s: %s", path, strerror(bad ? err : errno));
		unlink(tmp);
		free(tmp);
		return -1;
	}
	free(tmp);
	return 0;
}

/* ---- what selection asks ------------------------------------------------------ */

/* Looks up (transform, row, key) in opt->costs and records the outcome for
 * --report; NULL when there is no table or no such row. */
static const struct cost_row *lookup(const struct options *opt, int transform, const char *row,
                                     const char *key)
{
	const struct cost_table *t = opt->costs;
	if (!t)
		return NULL;
	struct cost_usage *u = t->usage;
	const struct cost_row *r = cost_table_find(t, transform, row, key);
	if (r) {
		if (!u->hit)
			u->hit = xcalloc(t->n_rows ? t->n_rows : 1, 1);
		size_t i = (size_t)(r - t->rows);
		u->n_hits += !u->hit[i];
		u->hit[i] = 1;
		return r;
	}
	char *full = full_key(transform, row, key);
	if (2 * (u->n_missed + 1) > u->cap_missed) {
		size_t old_cap = u->cap_missed;
		char **old = u->missed;
		u->cap_missed = old_cap ? 2 * old_cap : 64;
		u->missed = xcalloc(u->cap_missed, sizeof *u->missed);
		for (size_t i = 0; i < old_cap; i++) {
			if (!old[i])
				continue;
			size_t k = (size_t)hash_str(old[i]) & (u->cap_missed - 1);
			while (u->missed[k])
				k = (k + 1) & (u->cap_missed - 1);
			u->missed[k] = old[i];
		}
		free(old);
	}
	size_t k = (size_t)hash_str(full) & (u->cap_missed - 1);
	while (u->missed[k] && strcmp(u->missed[k], full) != 0)
		k = (k + 1) & (u->cap_missed - 1);
	if (u->missed[k]) {
		free(full);
	} else {
		u->missed[k] = full;
		u->n_missed++;
	}
	return NULL;
}

double costs_primitive_us(const struct options *opt, const struct rt_prim *prim,
                          const struct rt_conv2d *p)
{
	if (opt->costs) {
		char key[256];
		costs_conv_key(p, key, sizeof key);
		const struct cost_row *r = lookup(opt, 0, prim->name, key);
		if (r)
			return r->median_us;
	}
	return cost_primitive_us(prim, p);
}

double costs_primitive_warm_us(const struct options *opt, const struct rt_prim *prim,
                               const struct rt_conv2d *p)
{
	if (opt->costs && prim->ws(p, prim->variant) > 0) {
		char key[256];
		costs_conv_key(p, key, sizeof key);
		const struct cost_row *r = cost_table_find(opt->costs, 4, prim->name, key);
		if (r)
			return r->median_us;
	}
	return costs_primitive_us(opt, prim, p);
}

double costs_transform_us(const struct options *opt, const struct rt_transform *t, int N, int C,
                          int H, int W)
{
	if (opt->costs) {
		char key[64];
		costs_shape_key(N, C, H, W, key, sizeof key);
		const struct cost_row *r = lookup(opt, 1, t->name, key);
		if (r)
			return r->median_us;
	}
	return cost_transform_us(t, N, C, H, W);
}

double costs_nonconv_us(const struct options *opt, const struct nc_kernel *k, struct node *n)
{
	if (opt->costs) {
		char key[1024];
		nc_key(n, key, sizeof key);
		const struct cost_row *r = lookup(opt, 2, k->name, key);
		if (r)
			return r->median_us;
	}
	return nc_model_us(k, n, opt->isa);
}

double costs_fc_us(const struct options *opt, int M, int N, int K)
{
	if (opt->costs) {
		char key[64];
		costs_fc_key(M, N, K, key, sizeof key);
		const struct cost_row *r = lookup(opt, 3, "gemm_fc", key);
		if (r)
			return r->median_us;
	}
	return cost_fc_us(opt->isa, (double)M, (double)N, (double)K);
}

const char *costs_source(const struct options *opt)
{
	return opt->costs ? opt->costs->source : "built-in cost model";
}

void costs_usage(const struct options *opt, long *measured, long *fallback)
{
	const struct cost_table *t = opt->costs;
	*measured = t ? (long)t->usage->n_hits : 0;
	*fallback = t ? (long)t->usage->n_missed : 0;
}
