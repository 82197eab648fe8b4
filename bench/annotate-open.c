/* bench/annotate-open [-r N] FILE SYMBOL: the time the browser's a takes
 * to open SYMBOL of FILE (annotate_report_of on a function not decoded
 * yet: the code read, Capstone, the DWARF source lines, the lines built),
 * then a refresh of it (the lines again, decoded already), best of N
 * (default 5), wall-clock and thread CPU milliseconds.  FILE is mapped as
 * a process would have it, through the machine, as in a session.  Also
 * the longest a sample (annotate_sample, from another thread, as the
 * engine's ingestion) waited while the function was opened: decoding is
 * outside the samples' lock.  Used by bench/annotate.sh, which compares
 * with perf annotate. */
#include "config.h"

#include <linux/perf_event.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "annotate.h"
#include "elfsyms.h"
#include "machine.h"
#include "symtab.h"
#include "view.h"

#define BASE 0x10000000ull
#define PID 4242u

static double open_ms(const struct timespec *a, const struct timespec *b)
{
	return (double)(b->tv_sec - a->tv_sec) * 1e3 + (double)(b->tv_nsec - a->tv_nsec) / 1e6;
}

/* The ingestion's side during an open: samples one after another, the
 * longest one's wait kept. */
struct open_sampler {
	struct annotate *an;
	struct resolved *r;
	atomic_bool stop;
	double longest_ms, blocked_ms;  /* the sum of the waits over 1 ms */
	unsigned long n;
};

static void *open_sample(void *arg)
{
	struct open_sampler *s = arg;

	while (!atomic_load(&s->stop)) {
		struct timespec t0, t1;
		double ms;

		clock_gettime(CLOCK_MONOTONIC, &t0);
		annotate_sample(s->an, s->r->dso, s->r->sym, s->r->sym->start, 1);
		clock_gettime(CLOCK_MONOTONIC, &t1);
		ms = (double)(t1.tv_sec - t0.tv_sec) * 1e3 + (double)(t1.tv_nsec - t0.tv_nsec) / 1e6;
		if (ms > s->longest_ms)
			s->longest_ms = ms;
		if (ms > 1.0)
			s->blocked_ms += ms;
		s->n++;
	}
	return NULL;
}

/* FILE's PT_LOAD segments as maps of process PID. */
static void open_map(struct machine *m, const char *file, const struct elfsyms_image *img)
{
	size_t i;

	for (i = 0; i < img->nsegs; i++) {
		const struct elfsyms_segment *s = &img->segs[i];
		struct mmap_event ev = { 0 };
		uint64_t skew = s->vaddr & 0xfff;

		ev.pid = ev.tid = PID;
		ev.start = BASE + s->vaddr - skew;
		ev.len = s->filesz + skew;
		ev.pgoff = s->offset - skew;
		ev.prot = 1 | 4;
		ev.filename = file;
		machine_mmap(m, &ev);
	}
}

int main(int argc, char **argv)
{
	double wall[2] = { 1e30, 1e30 }, cpu[2] = { 1e30, 1e30 }, waited = 0;
	double opening = 0, blocked = 0;
	unsigned long nsamples = 0;
	struct machine *m = machine_new();
	struct elfsyms_image img;
	const struct symbol *sym = NULL;
	struct resolved r;
	size_t i, n = 0, with_src = 0;
	int reps = 5, a = 1, k;
	char *file;

	if (argc > 2 && strcmp(argv[1], "-r") == 0) {
		reps = atoi(argv[2]);
		a = 3;
	}
	if (a + 2 != argc || reps < 1) {
		fprintf(stderr, "usage: bench/annotate-open [-r N] FILE SYMBOL\n");
		return 2;
	}
	file = realpath(argv[a], NULL);
	if (!file || elfsyms_load(file, &img) != 0) {
		fprintf(stderr, "annotate-open: %s: not an ELF file\n", argv[a]);
		return 1;
	}
	for (i = 0; i < symtab_count(img.symtab) && !sym; i++)
		if (strcmp(symtab_get(img.symtab, i)->name, argv[a + 1]) == 0)
			sym = symtab_get(img.symtab, i);
	if (!sym) {
		fprintf(stderr, "annotate-open: no symbol %s in %s\n", argv[a + 1], file);
		return 1;
	}
	open_map(m, file, &img);
	machine_resolve(m, PID, PID, PERF_RECORD_MISC_USER, BASE + sym->start, &r);
	if (!r.sym || strcmp(r.sym->name, argv[a + 1]) != 0) {
		fprintf(stderr, "annotate-open: %s does not resolve\n", argv[a + 1]);
		return 1;
	}
	for (k = 0; k < reps; k++) {
		struct annotate *an = annotate_new(NULL, 0, false);
		int pass;

		/* Samples at a few of its addresses, as a session has. */
		annotate_keep_all(an);
		for (i = 0; i < 64; i++)
			annotate_sample(an, r.dso, r.sym,
					r.sym->start + (r.sym->end - r.sym->start) * i / 64, 1);
		for (pass = 0; pass < 2; pass++) {
			struct open_sampler smp = { .an = an, .r = &r };
			struct timespec w0, w1, c0, c1;
			struct annotate_report *rep;
			pthread_t th;
			bool sampling = pass == 0 &&
					pthread_create(&th, NULL, open_sample, &smp) == 0;

			clock_gettime(CLOCK_MONOTONIC, &w0);
			clock_gettime(CLOCK_THREAD_CPUTIME_ID, &c0);
			rep = annotate_report_of(an, argv[a + 1], NULL, 0);
			clock_gettime(CLOCK_THREAD_CPUTIME_ID, &c1);
			clock_gettime(CLOCK_MONOTONIC, &w1);
			if (sampling) {
				atomic_store(&smp.stop, true);
				pthread_join(th, NULL);
				if (smp.longest_ms > waited)
					waited = smp.longest_ms;
				nsamples += smp.n;
				blocked += smp.blocked_ms;
				opening += open_ms(&w0, &w1);
			}
			if (rep->nr_fns != 1) {
				fprintf(stderr, "annotate-open: no view of %s\n", argv[a + 1]);
				return 1;
			}
			if (open_ms(&w0, &w1) < wall[pass])
				wall[pass] = open_ms(&w0, &w1);
			if (open_ms(&c0, &c1) < cpu[pass])
				cpu[pass] = open_ms(&c0, &c1);
			n = rep->fns[0].nr_lines;
			for (i = with_src = 0; i < n; i++)
				with_src += rep->fns[0].lines[i].source != NULL;
			annotate_report_free(rep);
		}
		annotate_free(an);
	}
	printf("%s %s: %zu instructions, %zu with a source line\n", file, argv[a + 1], n, with_src);
	printf("open: %.1f ms (CPU %.1f ms)  refresh: %.1f ms (CPU %.1f ms)  best of %d\n", wall[0],
	       cpu[0], wall[1], cpu[1], reps);
	printf("samples during the opens (%.1f ms): %lu, waits over 1 ms %.1f ms in all (%.0f%% of "
	       "the time), the longest %.3f ms (a preempted thread's too, on a busy machine)\n",
	       opening, nsamples, blocked, opening > 0 ? 100.0 * blocked / opening : 0.0, waited);
	elfsyms_release(&img);
	machine_free(m);
	free(file);
	return 0;
}
