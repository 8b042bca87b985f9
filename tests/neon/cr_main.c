/* cr_main.c - runs the tests that the Criterion shim (criterion/criterion.h
 * here) registered: every one whose name contains one of the arguments (all
 * without arguments), each parameter of a parameterised test in turn; with
 * CR_SHIM_MAX_PARAMS=n only the first n parameters of each. Prints one line
 * per test (PASS, SKIP or FAIL with the message) and a summary; exits 1 when
 * a test failed, 0 otherwise. */
#include <setjmp.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "criterion/criterion.h"

static struct cr_shim_test *tests;
static jmp_buf out;

void cr_shim_register(struct cr_shim_test *t)
{
	t->next = tests;
	tests = t;
}

void cr_shim_fail(const char *file, int line, const char *fmt, ...)
{
	va_list ap;
	fprintf(stderr, "%s:%d: assertion failed: ", file, line);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	longjmp(out, 1);
}

void cr_shim_skip(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	longjmp(out, 2);
}

static int wanted(const char *name, int argc, char **argv)
{
	for (int i = 1; i < argc; i++)
		if (strstr(name, argv[i]))
			return 1;
	return argc < 2;
}

int main(int argc, char **argv)
{
	const char *cap = getenv("CR_SHIM_MAX_PARAMS");
	size_t max = cap ? (size_t)strtoul(cap, NULL, 10) : (size_t)-1;
	int n_pass = 0, n_fail = 0, n_skip = 0;
	for (struct cr_shim_test *t = tests; t; t = t->next) {
		if (!wanted(t->name, argc, argv))
			continue;
		struct criterion_test_params p = {0, NULL, 1};
		if (t->params)
			p = t->params();
		int rc = 0;
		size_t i;
		for (i = 0; i < p.length && i < max && rc == 0; i++) {
			rc = setjmp(out);
			if (rc == 0) {
				if (t->fn)
					t->fn();
				else
					t->pfn((char *)p.params + i * p.size);
			}
		}
		const char *what = rc == 1 ? "FAIL" : rc == 2 ? "SKIP" : "PASS";
		n_pass += rc == 0, n_fail += rc == 1, n_skip += rc == 2;
		printf("%s: %s (%zu of %zu parameters)\n", what, t->name, i, p.length);
		fflush(stdout);
	}
	printf("%d passed, %d failed, %d skipped\n", n_pass, n_fail, n_skip);
	return n_fail ? 1 : 0;
}
