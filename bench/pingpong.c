/* A pipe ping-pong for bench/offcpu.sh: a parent and a child pass a byte
 * back and forth, ROUNDS round trips a second (paced in 1 ms batches) for
 * SECONDS; each round trip blocks both sides once, so the system sees a
 * few context switches per round trip.  Prints the round trips done, the
 * seconds taken and the CPU seconds both processes used.
 *
 * usage: pingpong ROUNDS SECONDS   (ROUNDS 0: as fast as it goes) */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static double tv_s(struct timeval tv)
{
	return (double)tv.tv_sec + (double)tv.tv_usec / 1e6;
}

int main(int argc, char **argv)
{
	double rounds = argc > 1 ? atof(argv[1]) : 5000, seconds = argc > 2 ? atof(argv[2]) : 15;
	int ping[2], pong[2];
	uint64_t start, end, done = 0, tick;
	struct rusage self, kids;
	char c = 'x';
	pid_t child;

	if (pipe(ping) || pipe(pong))
		return 1;
	child = fork();
	if (child < 0)
		return 1;
	if (child == 0) {
		close(ping[1]);
		close(pong[0]);
		while (read(ping[0], &c, 1) == 1)
			if (write(pong[1], &c, 1) != 1)
				break;
		_exit(0);
	}
	close(ping[0]);
	close(pong[1]);
	start = tick = now_ns();
	end = start + (uint64_t)(seconds * 1e9);
	for (;;) {
		uint64_t t = now_ns(), due;
		struct timespec ts;

		if (t >= end)
			break;
		/* Catch up to the pace, then sleep to the next millisecond. */
		due = rounds > 0 ? (uint64_t)((double)(t - start) / 1e9 * rounds) + 1 : done + 1000;
		while (done < due) {
			if (write(ping[1], &c, 1) != 1 || read(pong[0], &c, 1) != 1)
				return 1;
			done++;
		}
		if (rounds <= 0)
			continue;
		tick += 1000000;
		if (tick < t)
			tick = t;
		ts.tv_sec = (time_t)(tick / 1000000000u);
		ts.tv_nsec = (long)(tick % 1000000000u);
		clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL);
	}
	close(ping[1]);
	waitpid(child, NULL, 0);
	getrusage(RUSAGE_SELF, &self);
	getrusage(RUSAGE_CHILDREN, &kids);
	printf("rounds %llu seconds %.3f cpu %.3f\n", (unsigned long long)done,
	       (double)(now_ns() - start) / 1e9,
	       tv_s(self.ru_utime) + tv_s(self.ru_stime) + tv_s(kids.ru_utime) +
		       tv_s(kids.ru_stime));
	return 0;
}
