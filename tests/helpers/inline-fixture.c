/* Fixture for --inline and srcline tests, compiled by the tests themselves
 * with gcc -O2 -g: a hot always_inline function called from a noinline
 * function in a loop.  Runs for argv[1] seconds (default 1). */
#include <stdlib.h>
#include <time.h>

volatile unsigned long inline_fixture_sink;

static inline __attribute__((always_inline)) unsigned long hot_inline(unsigned long x)
{
	unsigned long i, acc = x;

	for (i = 0; i < 4000; i++)
		acc = acc * 6364136223846793005UL + (acc >> 7) + 1442695040888963407UL;
	return acc;
}

__attribute__((noinline)) unsigned long outer_noinline(unsigned long n)
{
	unsigned long s = 0, k;

	for (k = 0; k < n; k++)
		s += hot_inline(k);
	return s;
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	double secs = argc > 1 ? atof(argv[1]) : 1.0, end = now() + secs;

	/* The volatile read keeps the call in the loop (it is pure). */
	do
		inline_fixture_sink += outer_noinline(100 + (inline_fixture_sink & 1));
	while (now() < end);
	return 0;
}
