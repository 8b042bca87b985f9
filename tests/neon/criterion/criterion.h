/* criterion/criterion.h - the few Criterion macros that tests/test_nonconv.c
 * and tests/test_primitives.c use, in plain C99 + POSIX (setjmp), so those
 * files build unchanged with a cross compiler that has no Criterion (make
 * check-neon builds them for AArch64 and runs them under qemu-aarch64).
 * Not Criterion: no fork per test, no timeouts, no parallel runs. Tests are
 * registered by constructors (a GCC/Clang attribute) and run by cr_main.c,
 * which takes name filters on its command line. */
#ifndef DNNCC_CR_SHIM_H
#define DNNCC_CR_SHIM_H

#include <stddef.h>

/* A test's parameter array (cr_make_param_array). */
struct criterion_test_params {
	size_t size;   /* bytes of one parameter */
	void *params;  /* [length] parameters */
	size_t length;
};
#define cr_make_param_array(type, arr, len) \
	((struct criterion_test_params){sizeof(type), (void *)(arr), (size_t)(len)})

struct cr_shim_test {
	const char *name;                            /* "suite::test" */
	void (*fn)(void);                            /* a plain Test, or NULL */
	void (*pfn)(void *);                         /* a ParameterizedTest, or NULL */
	struct criterion_test_params (*params)(void); /* its parameters */
	struct cr_shim_test *next;
};
void cr_shim_register(struct cr_shim_test *t);
void cr_shim_fail(const char *file, int line, const char *fmt, ...);
void cr_shim_skip(const char *fmt, ...);

#define CR_SHIM_REG_(suite, name, fn, pfn, params)                                           \
	static struct cr_shim_test suite##_##name##_shim = {#suite "::" #name, fn, pfn, params,  \
	                                                    NULL};                               \
	__attribute__((constructor)) static void suite##_##name##_shim_reg(void)                \
	{                                                                                        \
		cr_shim_register(&suite##_##name##_shim);                                        \
	}

#define Test(suite, name, ...)                                                               \
	static void suite##_##name(void);                                                    \
	CR_SHIM_REG_(suite, name, suite##_##name, NULL, NULL)                                \
	static void suite##_##name(void)

#define ParameterizedTestParameters(suite, name)                                             \
	static struct criterion_test_params suite##_##name##_params(void)

#define ParameterizedTest(param, suite, name, ...)                                           \
	static void suite##_##name(param);                                                   \
	static void suite##_##name##_any(void *p) { suite##_##name(p); }                      \
	CR_SHIM_REG_(suite, name, NULL, suite##_##name##_any, suite##_##name##_params)      \
	static void suite##_##name(param)

#define cr_assert(cond, ...)                                                                 \
	do {                                                                                 \
		if (!(cond))                                                                 \
			cr_shim_fail(__FILE__, __LINE__, "" __VA_ARGS__);                    \
	} while (0)
#define cr_expect cr_assert
#define cr_assert_eq(a, b, ...) cr_assert((a) == (b), __VA_ARGS__)
#define cr_skip_test(...) cr_shim_skip(__VA_ARGS__)

#endif
