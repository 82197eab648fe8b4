/* The shared-library part of the integration workload: one leaf function
 * with the same loop body as the ones in tests/helpers/workload.c. */
#include <stdint.h>

uint64_t lib_leaf(uint64_t n, uint64_t x);

uint64_t lib_leaf(uint64_t n, uint64_t x)
{
	volatile uint64_t v = x;

	for (uint64_t i = 0; i < n; i++)
		v = v * 6364136223846793005ULL + 1442695040888963407ULL;
	return v;
}
