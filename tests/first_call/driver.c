/* driver.c - counts the minor page faults (getrusage ru_minflt) of a
 * generated model's first call, for tests/first_call/check.sh. Built with the
 * model's C file, generated with `--name m`:
 *
 *   driver init     m_init(), then the first m_run: prints its fault count
 *   driver noinit   the first m_run alone (it runs m_init itself)
 *
 * Everything the driver owns (input and output buffers, getrusage's own
 * first call) is written before counting, so the count is the model's:
 * pages of the arena, the weights and the code that its first call meets
 * for the first time. Inputs are 0.25: page faults do not depend on values. */
#define _POSIX_C_SOURCE 200112L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include "m.h"

static long minor_faults(void)
{
	struct rusage r;
	getrusage(RUSAGE_SELF, &r);
	return r.ru_minflt;
}

int main(int argc, char **argv)
{
	const float *in[M_NUM_INPUTS];
	float *out[M_NUM_OUTPUTS];
	int with_init = argc == 2 && strcmp(argv[1], "init") == 0;
	if (argc != 2 || (!with_init && strcmp(argv[1], "noinit") != 0)) {
		fprintf(stderr, "usage: %s init|noinit\n", argv[0]);
		return 2;
	}
	for (int i = 0; i < M_NUM_INPUTS; i++) {
		float *x = malloc(m_input_sizes[i] * sizeof *x);
		if (!x)
			return 1;
		for (size_t j = 0; j < m_input_sizes[i]; j++) /* written: calloc's pages may be unmapped */
			x[j] = 0.25f;
		in[i] = x;
	}
	for (int i = 0; i < M_NUM_OUTPUTS; i++) {
		out[i] = malloc(m_output_sizes[i] * sizeof *out[i]);
		if (!out[i])
			return 1;
		memset(out[i], 0, m_output_sizes[i] * sizeof *out[i]);
	}
	if (with_init && m_init() != 0)
		return 3;
	minor_faults();
	long before = minor_faults();
	if (m_run(in, out) != 0)
		return 3;
	long first = minor_faults() - before;
	before = minor_faults();
	m_run(in, out);
	printf("%ld %ld\n", first, minor_faults() - before);
	return 0;
}
