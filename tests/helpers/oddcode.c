/* Integration workload for code that no ELF file on disk names.
 *
 * usage: oddcode jit SECONDS [nomap]
 *                               a fake JIT: copies a small loop into an
 *                               anonymous executable mapping, names it in
 *                               /tmp/perf-PID.map (PID as the process sees
 *                               itself) and runs it; halfway through it
 *                               maps a second copy, appends its line and
 *                               runs that one (perf map re-reads)
 *        oddcode vdso SECONDS   calls clock_gettime and time in a loop:
 *                               its samples are in the [vdso]
 * nomap: no map is written (the tests put one there themselves).
 * SECONDS 0 runs until killed.  Prints "ready PID" once started (for jit
 * after the first map line is written), and for jit the code addresses.
 * jit exits 77 where it cannot make code (not x86_64, or W^X refused). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

#if defined(__x86_64__)
/* 1: sub $1,%rdi; jnz 1b; ret -- counts its argument down. */
static const unsigned char loop_code[] = { 0x48, 0x83, 0xef, 0x01, 0x75, 0xfa, 0xc3 };
#endif

typedef void (*loop_fn)(uint64_t n);

/* A fresh page of code: written, then made executable (never both). */
static loop_fn make_code(void)
{
#if defined(__x86_64__)
	long page = sysconf(_SC_PAGESIZE);
	unsigned char *p = mmap(NULL, (size_t)page, PROT_READ | PROT_WRITE,
				MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED)
		return NULL;
	/* Not at the page start: names must come from the map, not luck. */
	memcpy(p + 0x40, loop_code, sizeof(loop_code));
	if (mprotect(p, (size_t)page, PROT_READ | PROT_EXEC) != 0)
		return NULL;
	return (loop_fn)(void *)(p + 0x40);
#else
	return NULL;
#endif
}

static int run_jit(double secs, int nomap)
{
	double start = now(), end = start + secs;
	loop_fn first = make_code(), second = NULL;
	char path[64];
	FILE *map;

	if (!first) {
		fprintf(stderr, "oddcode: cannot make code here\n");
		return 77;
	}
	snprintf(path, sizeof(path), "/tmp/perf-%d.map", (int)getpid());
	map = fopen(nomap ? "/dev/null" : path, "w");
	if (!map) {
		perror(path);
		return 1;
	}
	fprintf(map, "%lx %zx jit_first\n", (unsigned long)(uintptr_t)first, sizeof(loop_code));
	fflush(map);
	printf("ready %d\nfirst %p\n", (int)getpid(), (void *)first);
	fflush(stdout);
	while (secs == 0 || now() < end) {
		if (!second && now() - start >= (secs ? secs / 2 : 2)) {
			second = make_code();
			if (!second)
				return 1;
			fprintf(map, "%lx %zx jit_second\n", (unsigned long)(uintptr_t)second,
				sizeof(loop_code));
			fflush(map);
			printf("second %p\n", (void *)second);
			fflush(stdout);
		}
		(second ? second : first)(2000000);
	}
	fclose(map);
	if (!nomap)
		unlink(path);
	return 0;
}

static int run_vdso(double secs)
{
	double end = now() + secs;
	struct timespec ts;
	volatile long sink = 0;
	int i;

	printf("ready %d\n", (int)getpid());
	fflush(stdout);
	while (secs == 0 || now() < end) {
		for (i = 0; i < 10000; i++) {
			clock_gettime(CLOCK_MONOTONIC, &ts);
			sink += ts.tv_nsec + time(NULL);
		}
	}
	return (int)(sink & 0);
}

int main(int argc, char **argv)
{
	double secs = argc > 2 ? atof(argv[2]) : 3.0;

	if (argc > 1 && strcmp(argv[1], "jit") == 0)
		return run_jit(secs, argc > 3 && strcmp(argv[3], "nomap") == 0);
	if (argc > 1 && strcmp(argv[1], "vdso") == 0)
		return run_vdso(secs);
	fprintf(stderr, "usage: oddcode jit|vdso [SECONDS]\n");
	return 2;
}
