/* Live --pprof's refresh work without a live run (bench/pprof.sh): a
 * generated stream of -g samples, 8,000 a refresh over chains that share
 * their callers and differ in leaf addresses and threads, decayed after
 * each refresh as live.  Each refresh is what the engine does after
 * ingesting (bench_refresh, for callgrind's --toggle-collect):
 *   batch  the --batch table (rows, call trees of 5 rows, text to /dev/null)
 *   full   --pprof as before issue 18's work: stacks built and sorted from
 *          nothing, the file deflated at each refresh
 *   kept   --pprof now: stack groups kept with the store, the file stored
 * usage: bench/pprof-refresh batch|full|kept [REFRESHES [SAMPLES]]
 * Deterministic (a fixed seed): instruction counts compare across builds. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
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

static FILE *devnull;

/* Not inlined: callgrind counts its calls alone (--toggle-collect). */
__attribute__((noinline)) static void bench_refresh(struct hist *h, const char *mode,
						   struct pprof_writer *w)
{
	struct view_opts o = { 0 };
	struct snapshot snap = { .event = "cpu-clock", .target = "bench", .mode = "decay" };
	struct errmsg em = ERRMSG_INIT;

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
	if (w && pprof_writer_snapshot(w, &snap, &em))
		fprintf(stderr, "pprof-refresh: %s\n", errmsg_text(&em, -1));
	snapshot_release(&snap);
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "kept";
	long refreshes = argc > 2 ? atol(argv[2]) : 20, per = argc > 3 ? atol(argv[3]) : 8000;
	struct machine *m = machine_new();
	struct dso *dso = machine_dso_get(m, "/usr/bin/app", DSO_USER);
	struct sort_spec spec;
	struct hist *h;
	struct pprof_writer *w = NULL;
	char path[] = "/tmp/pprof-refresh.pb.gz";
	size_t i;
	long r, k;

	if (strcmp(mode, "batch") && strcmp(mode, "full") && strcmp(mode, "kept")) {
		fprintf(stderr, "usage: %s batch|full|kept [REFRESHES [SAMPLES]]\n", argv[0]);
		return 2;
	}
	devnull = fopen("/dev/null", "w");
	for (i = 0; i < NFUNCS; i++) {
		char name[32];

		snprintf(name, sizeof(name), "fn%04zu", i);
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

			s.nr_chain = gen_chain(dso, fr);
			s.chain = fr;
			s.comm = intern("app");
			s.pid = 100;
			s.tid = 100 + rnd(NTIDS);
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
	printf("%s: %ld refreshes of %ld samples, %zu chains at the end, %zu stack groups kept\n",
	       mode, refreshes, per, callchain_store_count(hist_callchains(h)),
	       view_stacks_kept_groups(hist_callchains(h)));
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
