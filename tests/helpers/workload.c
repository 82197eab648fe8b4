/* Integration workload: leaf_a, leaf_b and leaf_c in this binary and
 * lib_leaf in libworkload.so run the same loop body for 6:3:1:2 units of
 * iterations, so their shares of the samples are 50%, 25%, 8.3% and 16.7%.
 *
 * usage: workload [SECONDS [C_UNITS]]   (default 3; 0 runs until killed;
 * C_UNITS, default 1, makes leaf_c that many units: 2 doubles its cost, for
 * the baseline diff test)
 * It prints "ready PID" on stdout once started. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#define UNIT 200000

uint64_t lib_leaf(uint64_t n, uint64_t x);
uint64_t leaf_a(uint64_t n, uint64_t x);
uint64_t leaf_b(uint64_t n, uint64_t x);
uint64_t leaf_c(uint64_t n, uint64_t x);

uint64_t leaf_a(uint64_t n, uint64_t x)
{
	volatile uint64_t v = x;

	for (uint64_t i = 0; i < n; i++)
		v = v * 6364136223846793005ULL + 1442695040888963407ULL;
	return v;
}

uint64_t leaf_b(uint64_t n, uint64_t x)
{
	volatile uint64_t v = x;

	for (uint64_t i = 0; i < n; i++)
		v = v * 6364136223846793005ULL + 1442695040888963407ULL;
	return v;
}

uint64_t leaf_c(uint64_t n, uint64_t x)
{
	volatile uint64_t v = x;

	for (uint64_t i = 0; i < n; i++)
		v = v * 6364136223846793005ULL + 1442695040888963407ULL;
	return v;
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	double secs = argc > 1 ? atof(argv[1]) : 3.0;
	double end = now() + secs;
	uint64_t c = argc > 2 ? strtoull(argv[2], NULL, 10) : 1;
	uint64_t x = 1;

	printf("ready %d\n", (int)getpid());
	fflush(stdout);
	while (secs == 0 || now() < end) {
		x = leaf_a(6 * UNIT, x);
		x = leaf_b(3 * UNIT, x);
		x = leaf_c(c * UNIT, x);
		x = lib_leaf(2 * UNIT, x);
	}
	return (int)(x & 0);
}
