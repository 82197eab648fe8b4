/* bench/symload [-r N] FILE[=DEBUGFILE]...: the time elfsyms_load takes
 * on each FILE (with =DEBUGFILE: then elfsyms_merge_debug, as for a
 * stripped binary whose debug file is found), best of N runs (default 3),
 * in wall-clock and thread CPU milliseconds, and the symbols it gives.
 * Not part of make bench: there is no perf figure to compare with. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "elfsyms.h"
#include "symtab.h"

static double symload_ms(const struct timespec *a, const struct timespec *b)
{
	return (double)(b->tv_sec - a->tv_sec) * 1e3 + (double)(b->tv_nsec - a->tv_nsec) / 1e6;
}

int main(int argc, char **argv)
{
	int reps = 3, a = 1, k;

	if (argc > 2 && strcmp(argv[1], "-r") == 0) {
		reps = atoi(argv[2]);
		a = 3;
	}
	if (a >= argc || reps < 1) {
		fprintf(stderr, "usage: bench/symload [-r N] FILE[=DEBUGFILE]...\n");
		return 2;
	}
	for (; a < argc; a++) {
		char *path = argv[a], *dbg = strchr(path, '=');
		double wall = 1e30, cpu = 1e30;
		size_t n = 0;

		if (dbg)
			*dbg++ = '\0';
		for (k = 0; k < reps; k++) {
			struct timespec w0, w1, c0, c1;
			struct elfsyms_image img;
			int err;

			clock_gettime(CLOCK_MONOTONIC, &w0);
			clock_gettime(CLOCK_THREAD_CPUTIME_ID, &c0);
			err = elfsyms_load(path, &img);
			if (!err && dbg && elfsyms_merge_debug(&img, dbg) != 0)
				fprintf(stderr, "symload: %s adds no symbols to %s\n", dbg, path);
			clock_gettime(CLOCK_THREAD_CPUTIME_ID, &c1);
			clock_gettime(CLOCK_MONOTONIC, &w1);
			if (err) {
				fprintf(stderr, "symload: %s: cannot load (%d)\n", path, err);
				return 1;
			}
			if (symload_ms(&w0, &w1) < wall)
				wall = symload_ms(&w0, &w1);
			if (symload_ms(&c0, &c1) < cpu)
				cpu = symload_ms(&c0, &c1);
			n = symtab_count(img.symtab);
			elfsyms_release(&img);
		}
		printf("%s%s%s: %.1f ms (CPU %.1f ms), %zu symbols, best of %d\n", path,
		       dbg ? " + " : "", dbg ? dbg : "", wall, cpu, n, reps);
	}
	return 0;
}
