/* The library of the DWARF unwinding workload (tests/helpers/nofp.c),
 * built -O2 -fomit-frame-pointer like a distribution's: nofp_run calls
 * nofp_caller_a for 3 units of work and nofp_caller_b for 1, both call
 * nofp_leaf, so the leaf's callers split 75% / 25%.  Only CFI can find the
 * callers: no frame pointers, and rbp is used for data in the leaf. */
#include <stdint.h>

uint64_t nofp_leaf(uint64_t n, uint64_t x);
uint64_t nofp_caller_a(uint64_t x);
uint64_t nofp_caller_b(uint64_t x);
uint64_t nofp_run(uint64_t x);

#define NOFP_UNIT 200000

__attribute__((noinline)) uint64_t nofp_leaf(uint64_t n, uint64_t x)
{
	uint64_t a = x, b = x ^ 0x9e3779b97f4a7c15ULL, c = x + 7, d = x * 3;

	/* Enough live values that rbp holds one of them. */
	for (uint64_t i = 0; i < n; i++) {
		a = a * 6364136223846793005ULL + 1442695040888963407ULL;
		b ^= a >> 7;
		c += b * 31;
		d = (d << 3) ^ c;
		__asm__ volatile("" : "+r"(a), "+r"(b), "+r"(c), "+r"(d));
	}
	return a ^ b ^ c ^ d;
}

/* Work after each call keeps it a call, not a tail jump. */
__attribute__((noinline)) uint64_t nofp_caller_a(uint64_t x)
{
	return nofp_leaf(3 * NOFP_UNIT, x) * 5 + 1;
}

__attribute__((noinline)) uint64_t nofp_caller_b(uint64_t x)
{
	return nofp_leaf(1 * NOFP_UNIT, x) * 3 + 2;
}

__attribute__((noinline)) uint64_t nofp_run(uint64_t x)
{
	x = nofp_caller_a(x) + 1;
	x = nofp_caller_b(x) + 1;
	return x * 7;
}
