/* Workload for DWARF unwinding: main -> nofp_loop -> libnofp.so's nofp_run
 * -> nofp_caller_a (3 units) / nofp_caller_b (1 unit) -> nofp_leaf, all
 * built -O2 -fomit-frame-pointer (see libnofp.c).
 *
 * usage: nofp [SECONDS]   (default 3; 0 runs until killed)
 * It prints "ready PID" on stdout once started. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

uint64_t nofp_run(uint64_t x);

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

__attribute__((noinline)) static uint64_t nofp_loop(double secs)
{
	double end = now() + secs;
	uint64_t x = 1;

	while (secs == 0 || now() < end)
		x = nofp_run(x) + 1;
	return x;
}

int main(int argc, char **argv)
{
	double secs = argc > 1 ? atof(argv[1]) : 3.0;

	printf("ready %d\n", (int)getpid());
	fflush(stdout);
	return (int)(nofp_loop(secs) & 0);
}
