/* Off-CPU workload: each loop iteration sleeps 30 ms under sleep_long and
 * 10 ms under sleep_short (through nap, so that frame-pointer chains keep
 * both callers even though libc's sleep wrappers keep no frame), then
 * computes ~1 ms: of its time off the CPU, 75% is under sleep_long and 25%
 * under sleep_short.
 *
 * usage: sleeper [SECONDS]   (default 3) */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

__attribute__((noinline)) void nap(long ms);
__attribute__((noinline)) void sleep_long(void);
__attribute__((noinline)) void sleep_short(void);

__attribute__((noinline)) void nap(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	nanosleep(&ts, NULL);
}

__attribute__((noinline)) void sleep_long(void)
{
	nap(30);
}

__attribute__((noinline)) void sleep_short(void)
{
	nap(10);
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	double secs = argc > 1 ? atof(argv[1]) : 3, end = now() + secs;
	volatile uint64_t v = 1;

	while (now() < end) {
		sleep_long();
		sleep_short();
		for (long i = 0; i < 300000; i++)
			v = v * 6364136223846793005ULL + 1;
	}
	return 0;
}
