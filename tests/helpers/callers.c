/* Integration workload for callchains: one leaf function called from two
 * parents, parent_x for 3 units of work and parent_y for 1, so the leaf's
 * callers split 75% / 25% and the parents' children shares follow.
 *
 * usage: callers [SECONDS]   (default 3; 0 runs until killed)
 * It prints "ready PID" on stdout once started. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#define UNIT 200000

uint64_t cc_leaf(uint64_t n, uint64_t x);
uint64_t parent_x(uint64_t x);
uint64_t parent_y(uint64_t x);

uint64_t cc_leaf(uint64_t n, uint64_t x)
{
	volatile uint64_t v = x;

	for (uint64_t i = 0; i < n; i++)
		v = v * 6364136223846793005ULL + 1442695040888963407ULL;
	return v;
}

uint64_t parent_x(uint64_t x)
{
	return cc_leaf(3 * UNIT, x);
}

uint64_t parent_y(uint64_t x)
{
	return cc_leaf(1 * UNIT, x);
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
	uint64_t x = 1;

	printf("ready %d\n", (int)getpid());
	fflush(stdout);
	while (secs == 0 || now() < end) {
		x = parent_x(x);
		x = parent_y(x);
	}
	return (int)(x & 0);
}
