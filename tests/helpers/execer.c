/* Fault-test workload: burns CPU in its own leaf (pre_exec_leaf) for a
 * while, then execs another program in the same process, so that the
 * profiler must flush the old maps and names.
 *
 * usage: execer SECONDS PROGRAM [ARGS...]
 * Prints "ready PID" on stdout once started (as tests/helpers/workload does). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

uint64_t pre_exec_leaf(uint64_t n, uint64_t x);

uint64_t pre_exec_leaf(uint64_t n, uint64_t x)
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
	double end;
	uint64_t x = 1;

	if (argc < 3) {
		fprintf(stderr, "usage: execer SECONDS PROGRAM [ARGS...]\n");
		return 2;
	}
	end = now() + atof(argv[1]);
	printf("ready %d\n", (int)getpid());
	fflush(stdout);
	while (now() < end)
		x = pre_exec_leaf(1000000, x);
	execv(argv[2], argv + 2);
	perror("execer: execv");
	return (int)(x & 0) + 127;
}
