/* sgemm_host.c - which SGEMM micro-kernels the running CPU can execute.
 *
 * Library build only (tests, benchmarks, dnncc's --target host and its
 * profiler); generated code is built for one ISA chosen at compile time. On
 * x86-64, GCC's and Clang's __builtin_cpu_supports also check that the OS
 * saves the vector registers (XCR0), so an "avx512f" answer is safe to act on.
 * Advanced SIMD is part of the AArch64 base architecture. */
#include "runtime/sgemm.h"

#ifndef RT_SGEMM_ISA

int rt_sgemm_isa_supported(int isa)
{
	switch (isa) {
	case RT_SGEMM_ISA_C:
		return 1;
#if RT_SGEMM_HAVE_AVX2
	case RT_SGEMM_ISA_AVX2:
		return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
#endif
#if RT_SGEMM_HAVE_AVX512
	case RT_SGEMM_ISA_AVX512:
		/* the AVX-512 kernels also use 256-bit masked ops (AVX512VL), which
		 * every AVX-512 CPU but Xeon Phi has */
		return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512vl");
#endif
#if RT_SGEMM_HAVE_NEON
	case RT_SGEMM_ISA_NEON:
		return 1;
#endif
	default:
		return 0;
	}
}

int rt_sgemm_isa_host(void)
{
	static const int best_first[] = {RT_SGEMM_ISA_AVX512, RT_SGEMM_ISA_AVX2, RT_SGEMM_ISA_NEON};
	for (size_t i = 0; i < sizeof best_first / sizeof best_first[0]; i++)
		if (rt_sgemm_isa_supported(best_first[i]))
			return best_first[i];
	return RT_SGEMM_ISA_C;
}

const char *rt_sgemm_isa_name(int isa)
{
	switch (isa) {
	case RT_SGEMM_ISA_AVX2: return "avx2";
	case RT_SGEMM_ISA_AVX512: return "avx512";
	case RT_SGEMM_ISA_NEON: return "neon";
	default: return "c";
	}
}

#endif
