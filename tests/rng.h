/* tests/rng.h - xorshift64*, the small deterministic generator of the
 * runtime unit tests (test_runtime, test_sgemm), so failures reproduce. Each
 * test file draws floats from it in its own range. */
#ifndef DNNCC_TESTS_RNG_H
#define DNNCC_TESTS_RNG_H

#include <stdint.h>

struct rng {
	uint64_t s;
};

static inline void rng_seed(struct rng *r, uint64_t seed)
{
	r->s = seed * 0x9E3779B97F4A7C15ull + 0x2545F4914F6CDD1Dull;
}

static inline uint32_t rng_next(struct rng *r)
{
	r->s ^= r->s >> 12;
	r->s ^= r->s << 25;
	r->s ^= r->s >> 27;
	return (uint32_t)((r->s * 0x2545F4914F6CDD1Dull) >> 32);
}

/* uniform in [lo, hi] */
static inline int rng_int(struct rng *r, int lo, int hi)
{
	return lo + (int)(rng_next(r) % (uint32_t)(hi - lo + 1));
}

#endif
