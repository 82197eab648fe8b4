/* Live --pprof's refresh work without a live run (bench/pprof.sh): a
 * generated stream of -g samples, 8,000 a refresh over chains that share
 * their callers and differ in leaf addresses and threads, decayed after
 * each refresh as live.  Each refresh is what the engine does after
 * ingesting (bench_refresh, for callgrind's --toggle-collect):
 *   batch  the --batch table (rows, call trees of 5 rows, text to /dev/null)
 *   full   --pprof as before issue 18's work: stacks built and sorted from
 *          nothing, the file deflated at each refresh
 *   kept   --pprof now: stack groups kept with the store, the file stored
 * usage: bench/pprof-refresh batch|full|kept [REFRESHES [SAMPLES [SHAPE]]]
 * SHAPE: tree (the default: the chains above) or stacks (bench/manystacks'
 * shape: 48 functions, each calling one of 3 others, 4-11 deep under one
 * of 4 roots, a leaf at one of 6 addresses of spin; nearly every sample a
 * new stack, so new groups at every refresh).
 * Deterministic (a fixed seed): instruction counts compare across builds. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "callchain.h"
#include "errmsg.h"
#include "hist.h"
#include "intern.h"
#include "machine.h"
#include "output.h"
#include "pprof.h"
#include "symtab.h"
#include "view-impl.h"
#include "view.h"

#define NFUNCS 3000
#define NTIDS 48

static struct symbol syms[NFUNCS];
static uint64_t seed = 0x2545f4914f6cdd1dULL;

static uint32_t rnd(uint32_t n)
{
	seed ^= seed << 13;
	seed ^= seed >> 7;
	seed ^= seed << 17;
	return (uint32_t)((seed >> 11) % n);
}

/* A chain: a root among 4, then each caller's callee among the 3 or 2 its
 * number picks (6 levels; then one), 3-14 deep; the leaf at one of
 * 3 addresses of its function, the callers at one of 2 call sites. */
static size_t gen_chain(struct dso *dso, struct callchain_frame *fr)
{
	size_t depth = 3 + rnd(12), i;
	uint32_t f = rnd(4), path[16];

	for (i = 0; i < depth; i++) {
		path[i] = f;
		f = (f * 2654435761u + 97 * (i < 4 ? rnd(3) + 1 : i < 6 ? rnd(2) + 1 : 1) + (uint32_t)i) % NFUNCS;
	}
	for (i = 0; i < depth; i++) {
		const struct symbol *s = &syms[path[depth - 1 - i]];

		fr[i].dso = dso;
		fr[i].sym = s;
		fr[i].kernel = false;
		fr[i].addr = s->start + (i > 1 ? 4 : i ? 4 + 8 * rnd(2) : 4 * rnd(3));
	}
	return depth;
}

/* bench/manystacks' chains: __libc_start_call_main, main, one of the 4
 * roots, then 4-11 calls each to one of 3 callees, spin at the leaf
 * (syms: 0-47 the functions, 48 spin, 49 main, 50 the libc one). */
static size_t gen_chain_stacks(struct dso *dso, struct dso *libc, struct callchain_frame *fr)
{
	uint32_t f = rnd(4), d = 4 + rnd(8), path[16], i, n = 0;

	path[0] = f;
	for (i = 1; i <= d; i++)
		path[i] = f = (f * 7 + 1 + rnd(3)) % 48;
	fr[n++] = (struct callchain_frame){ dso, &syms[48], false, syms[48].start + 4 * rnd(6) };
	for (i = d + 1; i-- > 0;)
		fr[n++] = (struct callchain_frame){ dso, &syms[path[i]], false,
						    syms[path[i]].start + 0x24 };
	fr[n++] = (struct callchain_frame){ dso, &syms[49], false, syms[49].start + 0x60 };
	fr[n++] = (struct callchain_frame){ libc, &syms[50], false, syms[50].start + 0x3a };
	return n;
}

static FILE *devnull;
static double view_cpu, write_cpu;
/* --pprof keeps the last snapshot until the next one (main.c: the file at
 * exit is written from it), and with it the view's frames pool. */
static struct snapshot held;
static bool holding;

static double cpu_now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
	return (double)t.tv_sec + t.tv_nsec / 1e9;
}

/* Not inlined: callgrind counts its calls alone (--toggle-collect). */
__attribute__((noinline)) static void bench_refresh(struct hist *h, const char *mode,
						   struct pprof_writer *w)
{
	struct view_opts o = { 0 };
	struct snapshot snap = { .event = "cpu-clock", .target = "bench", .mode = "decay" };
	struct errmsg em = ERRMSG_INIT;
	double t0 = cpu_now(), t1;

	if (strcmp(mode, "batch") == 0) {
		o.tree_rows = 5;
		view_build(h, &o, &snap);
		output_text(devnull, &snap);
	} else if (strcmp(mode, "full") == 0) {
		view_build(h, &o, &snap);
		view_build_stacks_sorted(hist_callchains(h), NULL, &snap, true);
	} else {
		o.stacks = o.stack_detail = true;
		view_build(h, &o, &snap);
	}
	t1 = cpu_now();
	view_cpu += t1 - t0;
	if (w && pprof_writer_snapshot(w, &snap, &em))
		fprintf(stderr, "pprof-refresh: %s\n", errmsg_text(&em, -1));
	write_cpu += cpu_now() - t1;
	if (holding)
		snapshot_release(&held);
	if (w) {
		held = snap;
		holding = true;
	} else {
		snapshot_release(&snap);
	}
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "kept";
	long refreshes = argc > 2 ? atol(argv[2]) : 20, per = argc > 3 ? atol(argv[3]) : 8000;
	struct machine *m = machine_new();
	struct dso *dso = machine_dso_get(m, "/usr/bin/app", DSO_USER);
	struct dso *libc = machine_dso_get(m, "/usr/lib/libc.so.6", DSO_USER);
	bool stacks = argc > 4 && strcmp(argv[4], "stacks") == 0;
	struct sort_spec spec;
	struct hist *h;
	struct pprof_writer *w = NULL;
	char path[] = "/tmp/pprof-refresh.pb.gz";
	size_t i;
	long r, k;

	if ((strcmp(mode, "batch") && strcmp(mode, "full") && strcmp(mode, "kept")) ||
	    (argc > 4 && !stacks && strcmp(argv[4], "tree"))) {
		fprintf(stderr, "usage: %s batch|full|kept [REFRESHES [SAMPLES [tree|stacks]]]\n",
			argv[0]);
		return 2;
	}
	devnull = fopen("/dev/null", "w");
	for (i = 0; i < NFUNCS; i++) {
		char name[32];

		if (!stacks)
			snprintf(name, sizeof(name), "fn%04zu", i);
		else if (i < 48)  /* manystacks' f10-f17, ..., f60-f67 */
			snprintf(name, sizeof(name), "f%zu%zu", i / 8 + 1, i % 8);
		else
			snprintf(name, sizeof(name), "%s",
				 i == 48 ? "spin" : i == 49 ? "main" : "__libc_start_call_main");
		syms[i].start = 0x10000 + 0x100 * i;
		syms[i].end = syms[i].start + 0x100;
		syms[i].name = intern(name);
	}
	sort_spec_parse("dso,sym", &spec, NULL);
	h = hist_new(&spec);
	hist_enable_callchains(h, 0);
	if (strcmp(mode, "batch")) {
		w = pprof_writer_new(path, "bench");
		if (strcmp(mode, "kept") == 0)
			pprof_writer_live(w);
	}
	for (r = 0; r < refreshes; r++) {
		for (k = 0; k < per; k++) {
			struct callchain_frame fr[16];
			struct hist_sample s = { 0 };

			s.nr_chain = stacks ? gen_chain_stacks(dso, libc, fr) : gen_chain(dso, fr);
			s.chain = fr;
			s.comm = intern(stacks ? "manystacks" : "app");
			s.pid = 100;
			s.tid = stacks ? 100 : 100 + rnd(NTIDS);
			s.dso = dso;
			s.sym = fr[0].sym;
			/* The batch table keeps no addresses (ingest_wants_addr). */
			s.addr = strcmp(mode, "batch") ? fr[0].addr : 0;
			if (!strcmp(mode, "batch"))
				for (i = 0; i < s.nr_chain; i++)
					fr[i].addr = 0;
			s.period = 250000;
			hist_add(h, &s);
		}
		bench_refresh(h, mode, w);
		hist_age(h, HIST_DECAY);
	}
	printf("%s: %ld refreshes of %ld samples, %zu chains at the end, %zu stack groups kept, "
	       "refreshes' CPU %.1f ms (view %.1f, write %.1f)\n",
	       mode, refreshes, per, callchain_store_count(hist_callchains(h)),
	       view_stacks_kept_groups(hist_callchains(h)), (view_cpu + write_cpu) * 1e3,
	       view_cpu * 1e3, write_cpu * 1e3);
	if (holding)
		snapshot_release(&held);
	if (w) {
		struct errmsg em = ERRMSG_INIT;

		if (pprof_writer_finish(w, NULL, &em))
			fprintf(stderr, "pprof-refresh: %s\n", errmsg_text(&em, -1));
		pprof_writer_free(w);
		unlink(path);
	}
	hist_free(h);
	machine_free(m);
	fclose(devnull);
	return 0;
}
