/* replay.c - runs files through a fuzz harness without libFuzzer, so the
 * committed corpus and every saved crash reproducer are regression tests of
 * the normal build (make check). Arguments are files or directories (every
 * regular file in them, in name order). With none it runs the directories
 * compiled in: FUZZ_CORPUS, the seeds, each of which must also get through
 * the frontend and the passes without an error (else the seeds stopped
 * reaching the code behind the frontend), and FUZZ_REGRESS, the crash
 * reproducers and malformed inputs, which only must not crash. A harness
 * that crashes or aborts fails the test. */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "tests/fuzz/fuzz.h"

static int run_file(const char *path)
{
	FILE *f = fopen(path, "rb");
	if (!f) {
		perror(path);
		return 1;
	}
	size_t cap = 4096, n = 0;
	uint8_t *buf = malloc(cap);
	for (;;) {
		if (!buf) {
			fprintf(stderr, "replay: out of memory reading %s\n", path);
			fclose(f);
			return 1;
		}
		n += fread(buf + n, 1, cap - n, f);
		if (n < cap)
			break;
		cap *= 2;
		buf = realloc(buf, cap);
	}
	int bad = ferror(f);
	fclose(f);
	if (bad) {
		fprintf(stderr, "replay: cannot read %s\n", path);
		free(buf);
		return 1;
	}
	/* An exact-size copy, so reading past the input shows under ASan as it
	 * would under libFuzzer. */
	uint8_t *exact = malloc(n ? n : 1);
	memcpy(exact, buf, n);
	free(buf);
	LLVMFuzzerTestOneInput(exact, n);
	free(exact);
	return 0;
}

static int by_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Runs path, or every regular file in it; *count gets the files run. */
static int run_path(const char *path, int *count)
{
	struct stat st;
	if (stat(path, &st)) {
		perror(path);
		return 1;
	}
	if (!S_ISDIR(st.st_mode)) {
		++*count;
		return run_file(path);
	}
	DIR *dir = opendir(path);
	if (!dir) {
		perror(path);
		return 1;
	}
	char **names = NULL;
	size_t n = 0, cap = 0;
	for (struct dirent *e; (e = readdir(dir));) {
		if (e->d_name[0] == '.')
			continue;
		if (n == cap) {
			cap = cap ? 2 * cap : 64;
			names = realloc(names, cap * sizeof *names);
		}
		size_t len = strlen(path) + strlen(e->d_name) + 2;
		names[n] = malloc(len);
		snprintf(names[n++], len, "%s/%s", path, e->d_name);
	}
	closedir(dir);
	qsort(names, n, sizeof *names, by_name);
	int rc = 0;
	for (size_t i = 0; i < n; i++) {
		if (stat(names[i], &st) == 0 && S_ISREG(st.st_mode)) {
			++*count;
			rc |= run_file(names[i]);
		}
		free(names[i]);
	}
	free(names);
	return rc;
}

int main(int argc, char **argv)
{
	int rc = 0, count = 0;
	for (int i = 1; i < argc; i++)
		rc |= run_path(argv[i], &count);
#if defined FUZZ_CORPUS && defined FUZZ_REGRESS
	if (argc < 2) {
		rc |= run_path(FUZZ_CORPUS, &count);
		if (fuzz_accepted != count) {
			fprintf(stderr, "replay: only %d of the %d seeds in %s got through without an error\n",
			        fuzz_accepted, count, FUZZ_CORPUS);
			rc = 1;
		}
		rc |= run_path(FUZZ_REGRESS, &count);
	}
#endif
	printf("replay: %d inputs through the harness, %d accepted%s\n", count, fuzz_accepted,
	       rc ? "; FAILED" : "");
	return rc;
}
