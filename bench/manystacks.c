/* A load of many distinct call stacks for bench/pprof.sh --live: 48
 * functions, each calling one of WIDTH (3) others picked by a running
 * random number, 4-11 deep, then a short spin at the leaf.  Built with
 * frame pointers and no inlining or tail calls, so that -g's frame-pointer
 * chains show every level: tens of thousands of distinct chains, where
 * tests/helpers/workload has a handful, so that a live refresh (and
 * --pprof's share of it) is a large part of proftop's CPU.
 * usage: manystacks [SECONDS [WIDTH]]   (0: until killed; default 0, 3) */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define NFN 48

typedef uint64_t (*fn_t)(uint64_t x, unsigned d);
static fn_t table[NFN];
static unsigned width = 3;

static __attribute__((noinline)) uint64_t spin(uint64_t x)
{
	volatile uint64_t v = x;
	unsigned i;

	for (i = 0; i < 3000; i++)
		v = v * 6364136223846793005ULL + 1442695040888963407ULL;
	return v;
}

/* f(i): the leaf at depth 0, else one of width callees; "+ i" after the
   call keeps it from being a tail call. */
#define F(i)                                                                         \
	static __attribute__((noinline)) uint64_t f##i(uint64_t x, unsigned d)      \
	{                                                                            \
		if (!d)                                                              \
			return spin(x) + i;                                          \
		x = x * 2862933555777941757ULL + 3037000493ULL;                      \
		return table[(i * 7 + 1 + (x >> 40) % width) % NFN](x, d - 1) + i; \
	}
#define F8(a) F(a##0) F(a##1) F(a##2) F(a##3) F(a##4) F(a##5) F(a##6) F(a##7)
F8(1) F8(2) F8(3) F8(4) F8(5) F8(6)
#define T8(a) f##a##0, f##a##1, f##a##2, f##a##3, f##a##4, f##a##5, f##a##6, f##a##7
static const fn_t fns[NFN] = { T8(1), T8(2), T8(3), T8(4), T8(5), T8(6) };

int main(int argc, char **argv)
{
	double secs = argc > 1 ? atof(argv[1]) : 0;
	uint64_t x = 88172645463325252ULL, sum = 0;
	struct timespec t0, t;
	unsigned i;

	if (argc > 2 && atoi(argv[2]) > 0)
		width = (unsigned)atoi(argv[2]);
	for (i = 0; i < NFN; i++)
		table[i] = fns[i];
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (;;) {
		for (i = 0; i < 64; i++) {
			x ^= x << 13;
			x ^= x >> 7;
			x ^= x << 17;
			sum += table[x % 4](x, 4 + (unsigned)(x >> 50) % 8);
		}
		clock_gettime(CLOCK_MONOTONIC, &t);
		if (secs > 0 && (double)(t.tv_sec - t0.tv_sec) + (t.tv_nsec - t0.tv_nsec) / 1e9 >= secs)
			break;
	}
	printf("%llu\n", (unsigned long long)(sum & 1));
	return 0;
}
