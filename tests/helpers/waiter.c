/* Wall-clock workload (proftop --wall): each 50 ms loop iteration spends
 * 40% in nanosleep (in_sleep), 30% blocked in read on a pipe that the
 * "filler" thread writes to 15 ms after being asked (in_read), 20% in a
 * pthread_cond_timedwait nobody signals (in_condwait) and 10% computing
 * (in_compute, 5 ms of this thread's CPU time).  Each libc call goes
 * through a call_* function, so that frame-pointer chains keep the in_*
 * caller even though libc's wrappers keep no frame.
 *
 * usage: waiter [SECONDS]         (default 3)
 *        waiter --runq [SECONDS]  three busy threads pinned to CPU 0 (or
 *                                 the first CPU allowed): each runs a third
 *                                 of the time and waits to run the rest */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static int req_pipe[2], data_pipe[2];
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t never;
static volatile uint64_t sink;

static uint64_t now_ns(clockid_t clk)
{
	struct timespec ts;

	clock_gettime(clk, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

__attribute__((noinline)) void call_nanosleep(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	while (nanosleep(&ts, &ts) != 0)
		;
}

__attribute__((noinline)) void call_read(void)
{
	char c;

	if (read(data_pipe[0], &c, 1) != 1)
		exit(1);
}

__attribute__((noinline)) void call_condwait(long ms)
{
	struct timespec ts;
	uint64_t end = now_ns(CLOCK_MONOTONIC) + (uint64_t)ms * 1000000u;

	ts.tv_sec = (time_t)(end / 1000000000u);
	ts.tv_nsec = (long)(end % 1000000000u);
	pthread_mutex_lock(&lock);
	while (pthread_cond_timedwait(&never, &lock, &ts) == 0)
		;
	pthread_mutex_unlock(&lock);
}

__attribute__((noinline)) void in_sleep(void)
{
	call_nanosleep(20);
}

__attribute__((noinline)) void in_read(void)
{
	/* The filler writes 15 ms after this. */
	if (write(req_pipe[1], "r", 1) != 1)
		exit(1);
	call_read();
}

__attribute__((noinline)) void in_condwait(void)
{
	call_condwait(10);
}

/* ms of this thread's own CPU time. */
__attribute__((noinline)) void in_compute(long ms)
{
	uint64_t end = now_ns(CLOCK_THREAD_CPUTIME_ID) + (uint64_t)ms * 1000000u;
	uint64_t x = 0;

	while (now_ns(CLOCK_THREAD_CPUTIME_ID) < end)
		for (int i = 0; i < 1000; i++)
			x += (uint64_t)i * i;
	sink = x;
}

static void *filler(void *arg)
{
	char c;

	(void)arg;
	pthread_setname_np(pthread_self(), "filler");
	while (read(req_pipe[0], &c, 1) == 1) {
		call_nanosleep(15);
		if (write(data_pipe[1], "d", 1) != 1)
			break;
	}
	return NULL;
}

static int waits(double seconds)
{
	pthread_condattr_t ca;
	pthread_t t;
	uint64_t end = now_ns(CLOCK_MONOTONIC) + (uint64_t)(seconds * 1e9);

	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&never, &ca);
	if (pipe(req_pipe) || pipe(data_pipe) || pthread_create(&t, NULL, filler, NULL))
		return 1;
	while (now_ns(CLOCK_MONOTONIC) < end) {
		in_sleep();
		in_read();
		in_condwait();
		in_compute(5);
	}
	close(req_pipe[1]);
	pthread_join(t, NULL);
	return 0;
}

static double spin_seconds;
static int spin_cpu;

__attribute__((noinline)) void spin(void)
{
	uint64_t end = now_ns(CLOCK_MONOTONIC) + (uint64_t)(spin_seconds * 1e9), x = 0;

	while (now_ns(CLOCK_MONOTONIC) < end)
		for (int i = 0; i < 1000; i++)
			x += (uint64_t)i * i;
	sink = x;
}

static void *spinner(void *arg)
{
	cpu_set_t set;

	(void)arg;
	CPU_ZERO(&set);
	CPU_SET(spin_cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set))
		perror("sched_setaffinity");
	spin();
	return NULL;
}

static int runq(double seconds)
{
	pthread_t t[3];
	cpu_set_t set;
	int i;

	spin_seconds = seconds;
	if (sched_getaffinity(0, sizeof(set), &set) == 0)
		for (spin_cpu = 0; spin_cpu < CPU_SETSIZE && !CPU_ISSET(spin_cpu, &set); spin_cpu++)
			;
	for (i = 0; i < 3; i++)
		if (pthread_create(&t[i], NULL, spinner, NULL))
			return 1;
	for (i = 0; i < 3; i++)
		pthread_join(t[i], NULL);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc > 1 && strcmp(argv[1], "--runq") == 0)
		return runq(argc > 2 ? atof(argv[2]) : 3);
	return waits(argc > 1 ? atof(argv[1]) : 3);
}
