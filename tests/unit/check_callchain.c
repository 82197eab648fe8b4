/* Unit tests for callchains: chain addresses (markers, ip - 1, the skipped
 * sample ip), the chain store (interning, decay, bounds), children in the
 * hist (recursion once), call trees in the view, and their renderers. */
#include "config.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "callchain.h"
#include "callchain-cache.h"
#include "callchain-test.h"
#include "hist.h"
#include "machine.h"
#include "options.h"
#include "output.h"
#include "symtab.h"
#include "stacks-fixture.h"
#include "testutil.h"
#include "util.h"
#include "view.h"
#include "view-impl.h"

#define K(x) ((uint64_t)(x))

/* ---- addresses ---- */

START_TEST(test_ips_user)
{
	uint64_t chain[] = { K(PERF_CONTEXT_USER), 0x1000, 0x2005, 0x3009 };
	struct sample s = { .ip = 0x1000, .cpumode = PERF_RECORD_MISC_USER,
			    .callchain = chain, .nr_callchain = 4 };
	struct callchain_ip out[8];
	size_t n = callchain_ips(&s, out, 8);

	/* the chain's copy of the sample ip is skipped; returns are ip - 1 */
	ck_assert_uint_eq(n, 3);
	ck_assert_uint_eq(out[0].ip, 0x1000);
	ck_assert_uint_eq(out[1].ip, 0x2004);
	ck_assert_uint_eq(out[2].ip, 0x3008);
	ck_assert_uint_eq(out[1].cpumode, PERF_RECORD_MISC_USER);
}
END_TEST

/* Return addresses of 0 ending a chain (the frame-pointer walk past the
 * outermost frame): left out and counted; a context's first address of 0
 * (a pc, a call through NULL) and a 0 inside the chain stay. */
START_TEST(test_ips_zero_ends)
{
	uint64_t chain[] = { K(PERF_CONTEXT_KERNEL), 0xffff0100, K(PERF_CONTEXT_USER), 0x1000,
			     0x2005, 0, 0 };
	struct sample s = { .ip = 0xffff0100, .cpumode = PERF_RECORD_MISC_KERNEL,
			    .callchain = chain, .nr_callchain = 7 };
	struct callchain_ip out[8];

	ck_assert_uint_eq(callchain_zero_ends(&s), 2);
	ck_assert_uint_eq(callchain_ips(&s, out, 8), 3);
	ck_assert_uint_eq(out[1].ip, 0x1000);
	ck_assert_uint_eq(out[2].ip, 0x2004);
	/* a user pc of 0, then nothing: a real place, kept */
	chain[3] = 0;
	s.nr_callchain = 4;
	ck_assert_uint_eq(callchain_zero_ends(&s), 0);
	ck_assert_uint_eq(callchain_ips(&s, out, 8), 2);
	ck_assert_uint_eq(out[1].ip, 0);
	ck_assert_uint_eq(out[1].cpumode, PERF_RECORD_MISC_USER);
	/* a 0 with a return address after it is not an end */
	chain[3] = 0x1000;
	chain[4] = 0;
	chain[5] = 0x3005;
	s.nr_callchain = 6;
	ck_assert_uint_eq(callchain_zero_ends(&s), 0);
	ck_assert_uint_eq(callchain_ips(&s, out, 8), 4);
	ck_assert_uint_eq(out[2].ip, 0);
	ck_assert_uint_eq(out[3].ip, 0x3004);
	/* the sampled ip's own copy then a 0: the 0 goes */
	s.ip = 0x1000;
	s.cpumode = PERF_RECORD_MISC_USER;
	chain[0] = 0x1000;
	chain[1] = 0;
	s.nr_callchain = 2;
	ck_assert_uint_eq(callchain_zero_ends(&s), 1);
	ck_assert_uint_eq(callchain_ips(&s, out, 8), 1);
}
END_TEST

START_TEST(test_ips_kernel_user)
{
	uint64_t chain[] = { K(PERF_CONTEXT_KERNEL), 0xffff0100, 0xffff0205,
			     K(PERF_CONTEXT_USER), 0x4000, 0x5005 };
	struct sample s = { .ip = 0xffff0100, .cpumode = PERF_RECORD_MISC_KERNEL,
			    .callchain = chain, .nr_callchain = 6 };
	struct callchain_ip out[8];
	size_t n = callchain_ips(&s, out, 8);

	ck_assert_uint_eq(n, 4);
	ck_assert_uint_eq(out[0].cpumode, PERF_RECORD_MISC_KERNEL);
	ck_assert_uint_eq(out[1].ip, 0xffff0204);
	ck_assert_uint_eq(out[1].cpumode, PERF_RECORD_MISC_KERNEL);
	/* the user block starts at the interrupted pc: exact */
	ck_assert_uint_eq(out[2].ip, 0x4000);
	ck_assert_uint_eq(out[2].cpumode, PERF_RECORD_MISC_USER);
	ck_assert_uint_eq(out[3].ip, 0x5004);
	ck_assert_uint_eq(out[3].cpumode, PERF_RECORD_MISC_USER);
}
END_TEST

START_TEST(test_ips_guest_and_limits)
{
	uint64_t chain[] = { K(PERF_CONTEXT_GUEST), K(PERF_CONTEXT_GUEST_KERNEL), 0x10, 0x21,
			     K(PERF_CONTEXT_GUEST_USER), 0x30, K(PERF_CONTEXT_HV), 0x40 };
	struct sample s = { .ip = 0x99, .cpumode = PERF_RECORD_MISC_GUEST_KERNEL,
			    .callchain = chain, .nr_callchain = 8 };
	struct callchain_ip out[8];
	size_t n = callchain_ips(&s, out, 8);

	/* first address differs from ip: kept, exact */
	ck_assert_uint_eq(n, 5);
	ck_assert_uint_eq(out[1].ip, 0x10);
	ck_assert_uint_eq(out[1].cpumode, PERF_RECORD_MISC_GUEST_KERNEL);
	ck_assert_uint_eq(out[2].ip, 0x20);
	ck_assert_uint_eq(out[3].ip, 0x30);
	ck_assert_uint_eq(out[3].cpumode, PERF_RECORD_MISC_GUEST_USER);
	ck_assert_uint_eq(out[4].cpumode, PERF_RECORD_MISC_HYPERVISOR);
	/* max bounds the output, the sample ip first */
	ck_assert_uint_eq(callchain_ips(&s, out, 2), 2);
	ck_assert_uint_eq(callchain_ips(&s, out, 1), 1);
	ck_assert_uint_eq(out[0].ip, 0x99);
	/* no chain at all */
	s.nr_callchain = 0;
	ck_assert_uint_eq(callchain_ips(&s, out, 8), 1);
}
END_TEST

/* callchain_cache_find_sample/insert_sample against callchain_ips: a hit
 * gives the n callchain_ips gives and the callers stored for a sample with
 * the same callers (address and cpumode), never another's; and samples
 * that differ only in where the sampled ip sits in its function share one
 * entry (the case that makes the cache pay).  The stored "frames" here
 * encode the caller addresses themselves, so a wrong hit shows. */
#define KS_N 1500
#define KS_WORDS 10

static uint64_t ks_rng(uint64_t *x)
{
	*x = *x * 6364136223846793005ULL + 1442695040888963407ULL;
	return *x >> 33;
}

static void ks_frames(const struct callchain_ip *ips, size_t n, struct callchain_frame *f)
{
	size_t k;

	for (k = 1; k < n; k++) {
		f[k - 1].dso = (struct dso *)(uintptr_t)(ips[k].cpumode + 1);
		f[k - 1].sym = (const struct symbol *)(uintptr_t)ips[k].ip;
		f[k - 1].kernel = false;
	}
}

START_TEST(test_cache_sample)
{
	static const uint64_t markers[] = { K(PERF_CONTEXT_USER), K(PERF_CONTEXT_KERNEL),
					    K(PERF_CONTEXT_GUEST), K(PERF_CONTEXT_HV) };
	static const size_t maxes[] = { 2, 3, 64 };
	struct callchain_cache *c;
	uint64_t x = 42, chain[KS_WORDS];
	size_t i, k, m, hits = 0;

	for (m = 0; m < 3; m++) {
		c = callchain_cache_new(0);
		for (i = 0; i < KS_N; i++) {
			struct sample s = { 0 };
			struct callchain_ip ips[KS_WORDS + 1];
			struct callchain_frame want[KS_WORDS];
			const struct callchain_frame *got;
			size_t nr = ks_rng(&x) % (KS_WORDS + 1), n, gn = 0;
			uint64_t tok = 0;

			for (k = 0; k < nr; k++) {
				uint64_t r = ks_rng(&x) % 8;

				/* few distinct words, 0 included: many repeats */
				chain[k] = r < 2 ? markers[ks_rng(&x) % 4] :
						   0x1000 * (r - 2) + (r == 2 ? 0 : 1);
			}
			s.ip = ks_rng(&x) % 3 ? 0x1001 + 0x10 * (ks_rng(&x) % 4) : 0x2001;
			/* Often the chain's first address is the sampled ip. */
			for (k = 0; k < nr; k++)
				if (!record_is_context(chain[k])) {
					if (ks_rng(&x) % 2)
						chain[k] = s.ip;
					break;
				}
			s.cpumode = ks_rng(&x) % 4 ? PERF_RECORD_MISC_USER : PERF_RECORD_MISC_KERNEL;
			s.sid.pid = 1 + (uint32_t)(ks_rng(&x) % 2);
			s.callchain = chain;
			s.nr_callchain = nr;
			n = callchain_ips(&s, ips, maxes[m]);
			ks_frames(ips, n, want);
			got = callchain_cache_find_sample(c, &s, &gn, &tok);
			if (got) {
				hits++;
				ck_assert_uint_eq(gn, n);
				ck_assert_uint_ne(tok, 0);
				for (k = 0; k + 1 < n; k++) {
					ck_assert_ptr_eq(got[k].sym, want[k].sym);
					ck_assert_ptr_eq(got[k].dso, want[k].dso);
				}
			} else if (n >= 2) {
				callchain_cache_insert_sample(c, &s, want, n - 1);
			}
		}
		callchain_cache_free(c);
	}
	ck_assert_uint_gt(hits, 100);

	/* The sampled ip moves inside the leaf: the callers' entry stays. */
	{
		uint64_t a[] = { K(PERF_CONTEXT_USER), 0x1010, 0x2005, 0x3009 };
		uint64_t b[] = { K(PERF_CONTEXT_USER), 0x1020, 0x2005, 0x3009 };
		uint64_t d[] = { K(PERF_CONTEXT_USER), 0x1030, 0x2005, 0x3009 };
		uint64_t e[] = { K(PERF_CONTEXT_USER), 0x2005, 0x3009 };
		struct sample sa = { .ip = 0x1010, .cpumode = PERF_RECORD_MISC_USER,
				     .callchain = a, .nr_callchain = 4 };
		struct sample sb = sa, sd = sa;
		struct callchain_ip ips[8];
		struct callchain_frame f[8];
		size_t n;

		c = callchain_cache_new(0);
		sb.ip = 0x1020;
		sb.callchain = b;
		sd.callchain = d;    /* 0x1030 is not the sampled ip: a caller */
		n = callchain_ips(&sa, ips, 64);
		ks_frames(ips, n, f);
		callchain_cache_insert_sample(c, &sa, f, n - 1);
		ck_assert_ptr_nonnull(callchain_cache_find_sample(c, &sb, &n, NULL));
		ck_assert_uint_eq(n, 3);
		ck_assert_ptr_null(callchain_cache_find_sample(c, &sd, &n, NULL));
		/* The same words once the ip's copy is left out, but nothing
		 * was skipped: 0x2005 starts the block (exact), not a return. */
		sd.callchain = e;
		sd.nr_callchain = 3;
		ck_assert_ptr_null(callchain_cache_find_sample(c, &sd, &n, NULL));
		/* another process, or its maps changed: a miss */
		sb.sid.pid = 7;
		ck_assert_ptr_null(callchain_cache_find_sample(c, &sb, &n, NULL));
		sb.sid.pid = 0;
		callchain_cache_invalidate(c, 0);
		ck_assert_ptr_null(callchain_cache_find_sample(c, &sb, &n, NULL));
		callchain_cache_free(c);
	}
}
END_TEST

/* ---- a small world ---- */

static struct machine *machine;
static struct dso *dso_app, *dso_kernel;
static const struct symbol sym_main = { 0x1000, 0x1100, "main" };
static const struct symbol sym_px = { 0x1100, 0x1200, "parent_x" };
static const struct symbol sym_py = { 0x1200, 0x1300, "parent_y" };
static const struct symbol sym_leaf = { 0x1300, 0x1400, "leaf" };
static const struct symbol sym_rec = { 0x1400, 0x1500, "rec" };
static const struct symbol sym_sys = { 0x2000, 0x2100, "sys_read" };

static void setup(void)
{
	machine = machine_new();
	dso_app = machine_dso_get(machine, "/usr/bin/app", DSO_USER);
	dso_kernel = machine_dso_get(machine, "[kernel.kallsyms]", DSO_KERNEL);
}

static void teardown(void)
{
	machine_free(machine);
	machine = NULL;
}

static struct callchain_frame F(const struct symbol *sym)
{
	struct callchain_frame f = { .dso = sym == &sym_sys ? dso_kernel : dso_app, .sym = sym,
				      .kernel = sym == &sym_sys };

	return f;
}

static struct hist *hist_of(const char *keys)
{
	struct sort_spec spec;
	struct hist *h;

	ck_assert_int_eq(sort_spec_parse(keys, &spec, NULL), 0);
	h = hist_new(&spec);
	hist_enable_callchains(h, 0);
	return h;
}

/* Add times samples of period on the chain given innermost first. */
static void add_chain(struct hist *h, const char *comm, uint64_t period, unsigned times, size_t n,
		      ...)
{
	struct callchain_frame fr[16];
	struct hist_sample s = { 0 };
	va_list ap;
	size_t i;

	va_start(ap, n);
	for (i = 0; i < n; i++)
		fr[i] = F(va_arg(ap, const struct symbol *));
	va_end(ap);
	s.comm = intern(comm);
	s.pid = s.tid = 42;
	s.dso = fr[0].dso;
	s.sym = fr[0].sym;
	s.kernel = fr[0].kernel;
	s.period = period;
	s.chain = fr;
	s.nr_chain = n;
	while (times--)
		hist_add(h, &s);
}

static const struct hist_entry *entry_of(const struct hist *h, const struct symbol *sym)
{
	size_t i;

	for (i = 0; i < hist_count(h); i++)
		if (hist_entry_at(h, i)->sym == sym)
			return hist_entry_at(h, i);
	return NULL;
}

/* ---- store ---- */

START_TEST(test_store_intern)
{
	struct callchain_store *st = callchain_store_new(0);
	struct callchain_key k1 = { intern("a"), 0, 0, 0 }, k2 = { intern("b"), 0, 0, 0 };
	struct callchain_frame c1[3] = { F(&sym_leaf), F(&sym_px), F(&sym_main) };
	struct callchain_frame c2[3] = { F(&sym_leaf), F(&sym_py), F(&sym_main) };
	struct callchain_chain c;
	size_t i;

	for (i = 0; i < 3; i++)
		ck_assert_int_eq(callchain_store_add(st, &k1, c1, 3, 10), 0);
	callchain_store_add(st, &k1, c2, 3, 10);
	callchain_store_add(st, &k2, c1, 3, 10);
	callchain_store_add(st, &k1, c1, 2, 10);
	ck_assert_uint_eq(callchain_store_count(st), 4);
	/* frames are shared: the pool holds ids, the frames are 4 */
	ck_assert_uint_eq(callchain_store_nr_ids(st), 11);
	callchain_store_get(st, 0, &c);
	ck_assert_uint_eq(c.nr, 3);
	ck_assert_uint_eq(c.period, 30);
	ck_assert_uint_eq(c.samples, 3);
	ck_assert_ptr_eq(callchain_store_frame(st, c.ids[0])->sym, &sym_leaf);
	ck_assert_ptr_eq(callchain_store_frame(st, c.ids[2])->sym, &sym_main);
	ck_assert_ptr_null(callchain_store_frame(st, 99));
	callchain_store_free(st);
}
END_TEST

START_TEST(test_store_many_and_decay)
{
	struct callchain_store *st = callchain_store_new(0);
	struct callchain_key k = { NULL, 0, 0, 0 };
	struct symbol syms[300];
	struct callchain_frame fr[2];
	struct callchain_chain c;
	size_t i, found = 0;

	for (i = 0; i < 300; i++) {
		syms[i].start = i * 16;
		syms[i].end = i * 16 + 16;
		syms[i].name = "s";
		fr[0].dso = dso_app;
		fr[0].sym = &syms[i];
		fr[0].kernel = false;
		fr[1] = F(&sym_main);
		/* chain i gets period i + 1: decay drops the small ones */
		callchain_store_add(st, &k, fr, 2, i + 1);
	}
	ck_assert_uint_eq(callchain_store_count(st), 300);
	callchain_store_decay(st);
	/* 1 * 7/8 rounds to 0: only that chain goes */
	ck_assert_uint_eq(callchain_store_count(st), 299);
	ck_assert_uint_eq(callchain_store_nr_ids(st), 598);
	/* still found after compaction: re-adding does not grow the store */
	fr[0].sym = &syms[150];
	callchain_store_add(st, &k, fr, 2, 1);
	ck_assert_uint_eq(callchain_store_count(st), 299);
	for (i = 0; i < callchain_store_count(st); i++) {
		callchain_store_get(st, i, &c);
		if (callchain_store_frame(st, c.ids[0])->sym == &syms[150]) {
			ck_assert_uint_eq(c.period, 151 * 7 / 8 + 1);
			found++;
		}
	}
	ck_assert_uint_eq(found, 1);
	callchain_store_clear(st);
	ck_assert_uint_eq(callchain_store_count(st), 0);
	ck_assert_uint_eq(callchain_store_nr_ids(st), 0);
	callchain_store_free(st);
}
END_TEST

START_TEST(test_store_bound)
{
	struct callchain_store *st = callchain_store_new(5);
	struct callchain_key k = { NULL, 0, 0, 0 };
	struct callchain_frame c1[3] = { F(&sym_leaf), F(&sym_px), F(&sym_main) };
	struct callchain_frame c2[3] = { F(&sym_leaf), F(&sym_py), F(&sym_main) };

	ck_assert_int_eq(callchain_store_add(st, &k, c1, 3, 1), 0);
	ck_assert_int_eq(callchain_store_add(st, &k, c2, 3, 1), -ENOSPC);
	/* a known chain still counts when full */
	ck_assert_int_eq(callchain_store_add(st, &k, c1, 3, 1), 0);
	ck_assert_uint_eq(callchain_store_dropped(st), 3);
	ck_assert_uint_eq(callchain_store_count(st), 1);
	callchain_store_free(st);
}
END_TEST

START_TEST(test_store_split_token)
{
	struct callchain_store *st = callchain_store_new(0);
	struct callchain_key k1 = { intern("a"), 0, 0, 0 }, k2 = { intern("b"), 0, 0, 0 };
	struct callchain_frame c1[3] = { F(&sym_leaf), F(&sym_px), F(&sym_main) };
	struct callchain_frame other = F(&sym_rec);
	struct callchain_chain c;
	size_t i1, i2, i3, i4;

	/* split and contiguous are one chain */
	ck_assert_int_eq(callchain_store_add(st, &k1, c1, 3, 1), 0);
	ck_assert_int_eq(callchain_store_add_split(st, &k1, &c1[0], c1 + 1, 2, 0, 2, &i1), 0);
	ck_assert_int_eq(callchain_store_add_split(st, &k1, &c1[0], c1 + 1, 2, 77, 4, &i2), 0);
	ck_assert_uint_eq(i1, i2);
	/* the token finds it again; another leaf or key with the same token
	 * (the same callers) is another chain */
	ck_assert_int_eq(callchain_store_add_split(st, &k1, &c1[0], c1 + 1, 2, 77, 8, &i3), 0);
	ck_assert_uint_eq(i3, i1);
	ck_assert_int_eq(callchain_store_add_split(st, &k1, &other, c1 + 1, 2, 77, 16, &i3), 0);
	ck_assert_uint_ne(i3, i1);
	ck_assert_int_eq(callchain_store_add_split(st, &k2, &c1[0], c1 + 1, 2, 77, 32, &i4), 0);
	ck_assert_uint_ne(i4, i1);
	ck_assert_uint_ne(i4, i3);
	ck_assert_uint_eq(callchain_store_count(st), 3);
	callchain_store_get(st, i1, &c);
	ck_assert_uint_eq(c.period, 15);
	ck_assert_uint_eq(c.samples, 4);
	callchain_store_get(st, i3, &c);
	ck_assert_uint_eq(c.period, 16);
	ck_assert_ptr_eq(callchain_store_frame(st, c.ids[0])->sym, &sym_rec);
	ck_assert_ptr_eq(callchain_store_frame(st, c.ids[1])->sym, &sym_px);
	/* decay moves chains: the hint must not point at the old index */
	callchain_store_decay(st);
	ck_assert_uint_eq(callchain_store_count(st), 3);
	ck_assert_int_eq(callchain_store_add_split(st, &k2, &c1[0], c1 + 1, 2, 77, 8, &i4), 0);
	callchain_store_get(st, i4, &c);
	ck_assert_ptr_eq(c.key.comm, intern("b"));
	ck_assert_ptr_eq(callchain_store_frame(st, c.ids[0])->sym, &sym_leaf);
	ck_assert_uint_eq(c.period, 32 * 7 / 8 + 8);
	callchain_store_clear(st);
	ck_assert_int_eq(callchain_store_add_split(st, &k1, &c1[0], c1 + 1, 2, 77, 1, &i1), 0);
	ck_assert_uint_eq(i1, 0);
	ck_assert_uint_eq(callchain_store_count(st), 1);
	callchain_store_free(st);
}
END_TEST

/* The resolve cache's tokens carry its dense chain number: every caller
 * chain gets a hint set of its own, so a repeat is always found through
 * it (a hashed direct-mapped table lost some to conflicts), including the
 * same callers under two leaves (the set's two ways). */
#define HINT_CHAINS 4096

START_TEST(test_store_token_hints)
{
	static struct symbol syms[HINT_CHAINS];
	struct callchain_store *st = callchain_store_new(0);
	struct callchain_key k = { intern("a"), 0, 0, 0 };
	struct callchain_frame leaf = F(&sym_leaf), other = F(&sym_rec);
	struct callchain_frame callers[HINT_CHAINS][2];
	size_t i, round, idx, first[HINT_CHAINS];
	uint64_t hits;

	for (i = 0; i < HINT_CHAINS; i++) {
		syms[i].start = 0x10000 + i * 16;
		syms[i].end = syms[i].start + 16;
		syms[i].name = "s";
		callers[i][0] = (struct callchain_frame)F(&syms[i]);
		callers[i][1] = (struct callchain_frame)F(&sym_main);
	}
	for (round = 0; round < 3; round++) {
		hits = callchain_store_hint_hits(st);
		for (i = 0; i < HINT_CHAINS; i++) {
			uint64_t token = 1ULL << 32 | (i + 1);

			ck_assert_int_eq(callchain_store_add_split(st, &k, &leaf, callers[i], 2,
								   token, 1, &idx),
					 0);
			if (!round)
				first[i] = idx;
			ck_assert_uint_eq(idx, first[i]);
			ck_assert_int_eq(callchain_store_add_split(st, &k, &other, callers[i], 2,
								   token, 2, &idx),
					 0);
			ck_assert_uint_ne(idx, first[i]);
		}
		if (round)
			ck_assert_uint_eq(callchain_store_hint_hits(st) - hits, 2 * HINT_CHAINS);
	}
	ck_assert_uint_eq(callchain_store_count(st), 2 * HINT_CHAINS);
	callchain_store_free(st);
}
END_TEST

/* With addresses (--pprof, --inline, -s srcline) the same callers come
 * under many leaf addresses of one function (a hot loop): the leaf's
 * address picks the hint set too, so each is found through a hint, not
 * only the two a set holds (by the token alone, 8 leaves taken in turn
 * never hit: live --pprof hashed a third of its chains). */
START_TEST(test_store_token_hints_leaf_addrs)
{
	struct callchain_store *st = callchain_store_new(0);
	struct callchain_key k = { intern("a"), 0, 0, 0 };
	struct callchain_frame leaf[8], callers[2] = { F(&sym_px), F(&sym_main) };
	size_t i, round, idx, first[8];
	uint64_t hits;

	for (i = 0; i < 8; i++) {
		leaf[i] = F(&sym_leaf);
		leaf[i].addr = sym_leaf.start + 2 * i + 1;
	}
	for (round = 0; round < 4; round++) {
		hits = callchain_store_hint_hits(st);
		for (i = 0; i < 8; i++) {
			ck_assert_int_eq(callchain_store_add_split(st, &k, &leaf[i], callers, 2,
								   1ULL << 32 | 1, 1, &idx),
					 0);
			if (!round)
				first[i] = idx;
			ck_assert_uint_eq(idx, first[i]);
		}
		if (round)
			ck_assert_uint_ge(callchain_store_hint_hits(st) - hits, 7);
	}
	ck_assert_uint_eq(callchain_store_count(st), 8);
	callchain_store_free(st);
}
END_TEST

/* ---- hist children ---- */

START_TEST(test_children_recursion)
{
	struct hist *h = hist_of("dso,sym");

	/* leaf <- rec <- rec <- rec <- main: rec counts once per sample */
	add_chain(h, "app", 10, 4, 5, &sym_leaf, &sym_rec, &sym_rec, &sym_rec, &sym_main);
	add_chain(h, "app", 10, 1, 2, &sym_rec, &sym_main);
	ck_assert_uint_eq(hist_total_period(h), 50);
	ck_assert_uint_eq(entry_of(h, &sym_rec)->children, 50);
	ck_assert_uint_eq(entry_of(h, &sym_rec)->period, 10);
	ck_assert_uint_eq(entry_of(h, &sym_leaf)->children, 40);
	ck_assert_uint_eq(entry_of(h, &sym_leaf)->period, 40);
	ck_assert_uint_eq(entry_of(h, &sym_main)->children, 50);
	ck_assert_uint_eq(entry_of(h, &sym_main)->period, 0);
	ck_assert_uint_eq(callchain_store_count(hist_callchains(h)), 2);
	hist_free(h);
}
END_TEST

START_TEST(test_children_decay_zero)
{
	struct hist *h = hist_of("dso,sym");

	add_chain(h, "app", 16, 1, 2, &sym_leaf, &sym_main);
	hist_age(h, HIST_DECAY);
	ck_assert_uint_eq(entry_of(h, &sym_main)->children, 14);
	ck_assert_uint_eq(entry_of(h, &sym_leaf)->children, 14);
	ck_assert_uint_eq(hist_total_period(h), 14);
	/* an entry with children only stays while they last */
	ck_assert_ptr_nonnull(entry_of(h, &sym_main));
	{
		struct callchain_chain c;

		callchain_store_get(hist_callchains(h), 0, &c);
		ck_assert_uint_eq(c.period, 14);
	}
	hist_age(h, HIST_ACCUMULATE);
	ck_assert_uint_eq(entry_of(h, &sym_main)->children, 14);
	hist_age(h, HIST_ZERO);
	ck_assert_uint_eq(hist_count(h), 0);
	ck_assert_uint_eq(callchain_store_count(hist_callchains(h)), 0);
	hist_free(h);
}
END_TEST

START_TEST(test_children_keys)
{
	struct hist *h = hist_of("comm,sym");
	size_t i, mains = 0;

	add_chain(h, "a", 1, 3, 2, &sym_leaf, &sym_main);
	add_chain(h, "b", 1, 1, 2, &sym_leaf, &sym_main);
	for (i = 0; i < hist_count(h); i++) {
		const struct hist_entry *e = hist_entry_at(h, i);

		if (e->sym == &sym_main) {
			mains++;
			ck_assert_uint_eq(e->children, e->comm == intern("a") ? 3 : 1);
		}
	}
	ck_assert_uint_eq(mains, 2);
	hist_free(h);
}
END_TEST

/* Children, self and the uniform comm/pid of every entry against a plain
 * recount, with samples given as a whole chain, or split with a token as
 * the engine gives them: the per-chain memo (repeat chains without
 * lookups) must not change a thing, across decay and zeroing too. */
#define MEMO_SYMS 5
#define MEMO_SAMPLES 400

struct memo_ref {
	uint64_t period, samples, children;
	const char *only_comm;
	uint32_t only_pid;
	bool mixed_comm, mixed_pid, seen;
};

static void memo_check(const struct hist *h, const struct symbol *syms, const char **comms,
		       struct memo_ref (*ref)[MEMO_SYMS], bool by_comm)
{
	size_t i, c, k, nref = 0;

	for (c = 0; c < 2; c++)
		for (k = 0; k < MEMO_SYMS; k++)
			nref += ref[c][k].seen && (ref[c][k].period || ref[c][k].children);
	ck_assert_uint_eq(hist_count(h), nref);
	for (i = 0; i < hist_count(h); i++) {
		const struct hist_entry *e = hist_entry_at(h, i);
		const struct memo_ref *r;

		k = (size_t)(e->sym - syms);
		c = by_comm && e->comm == intern(comms[1]);
		ck_assert_uint_lt(k, MEMO_SYMS);
		r = &ref[c][k];
		ck_assert_uint_eq(e->period, r->period);
		ck_assert_uint_eq(e->samples, r->samples);
		ck_assert_uint_eq(e->children, r->children);
		ck_assert_ptr_eq(e->only_comm, r->mixed_comm ? NULL : r->only_comm);
		ck_assert_int_eq(e->mixed_pid, r->mixed_pid);
		if (!r->mixed_pid)
			ck_assert_uint_eq(e->only_pid, r->only_pid);
	}
}

static void memo_run(const char *keys, bool split)
{
	static struct symbol syms[MEMO_SYMS];
	const char *comms[2] = { "m0", "m1" };
	struct memo_ref ref[2][MEMO_SYMS];
	struct hist *h = hist_of(keys);
	bool by_comm = strstr(keys, "comm") != NULL;
	uint32_t rnd = 12345;
	size_t i, j, k, c;

	for (k = 0; k < MEMO_SYMS; k++) {
		syms[k].start = 0x9000 + k * 16;
		syms[k].end = syms[k].start + 16;
		syms[k].name = "m";
	}
	memset(ref, 0, sizeof(ref));
	for (i = 0; i < MEMO_SAMPLES; i++) {
		/* 8 chains of up to 6 frames over 5 symbols (recursion
		 * included), 2 comms, pid 1, then pids 1 and 2 in turn (entries
		 * turn mixed after their memo was built) */
		struct callchain_frame fr[6];
		unsigned which = (rnd = rnd * 1103515245 + 12345) >> 16 & 7;
		size_t n = 1 + which % 6;
		struct hist_sample s = { 0 };
		bool on[MEMO_SYMS] = { false };

		for (j = 0; j < n; j++) {
			fr[j].dso = dso_app;
			fr[j].sym = &syms[(which * 7 + j * (which | 1)) % MEMO_SYMS];
			fr[j].kernel = false;
		}
		c = which & 1;
		s.comm = intern(comms[c]);
		s.pid = s.tid = i > MEMO_SAMPLES / 2 ? 1 + (i / 3 & 1) : 1;
		s.dso = fr[0].dso;
		s.sym = fr[0].sym;
		s.period = 1 + which;
		s.nr_chain = n;
		if (split) {
			s.callers = fr + 1;
			/* one token per distinct callers: the chain's number */
			s.callers_token = 100 + which;
		} else {
			s.chain = fr;
		}
		hist_add(h, &s);
		if (!by_comm)
			c = 0;
		for (j = 0; j < n; j++) {
			struct memo_ref *r = &ref[c][fr[j].sym - syms];

			if (!r->seen) {
				r->seen = true;
				r->only_comm = s.comm;
				r->only_pid = s.pid;
			}
			if (r->only_comm != s.comm)
				r->mixed_comm = true;
			if (r->only_pid != s.pid)
				r->mixed_pid = true;
			if (!j) {
				r->period += s.period;
				r->samples++;
			}
			if (!on[fr[j].sym - syms])
				r->children += s.period;
			on[fr[j].sym - syms] = true;
		}
		if (i == MEMO_SAMPLES / 4 || i == MEMO_SAMPLES * 3 / 4) {
			memo_check(h, syms, comms, ref, by_comm);
			hist_age(h, HIST_DECAY);
			for (c = 0; c < 2; c++)
				for (k = 0; k < MEMO_SYMS; k++) {
					struct memo_ref *r = &ref[c][k];

					r->period = r->period / 8 * 7 + r->period % 8 * 7 / 8;
					r->samples = r->samples / 8 * 7 + r->samples % 8 * 7 / 8;
					r->children = r->children / 8 * 7 + r->children % 8 * 7 / 8;
					if (!r->period && !r->children)
						memset(r, 0, sizeof(*r));
				}
		}
		if (i == MEMO_SAMPLES / 2) {
			memo_check(h, syms, comms, ref, by_comm);
			hist_age(h, HIST_ZERO);
			memset(ref, 0, sizeof(ref));
		}
	}
	memo_check(h, syms, comms, ref, by_comm);
	hist_free(h);
}

START_TEST(test_children_memo)
{
	memo_run("dso,sym", false);
	memo_run("dso,sym", true);
	memo_run("comm,dso,sym", false);
	memo_run("comm,dso,sym", true);
}
END_TEST

/* ---- view trees ---- */

static const struct snapshot_row *row_of(const struct snapshot *snap, const char *sym)
{
	size_t i;

	for (i = 0; i < snap->nr_rows; i++)
		if (strcmp(snap->rows[i].symbol, sym) == 0)
			return &snap->rows[i];
	return NULL;
}

static struct hist *two_parents(void)
{
	struct hist *h = hist_of("dso,sym");

	add_chain(h, "app", 10, 30, 3, &sym_leaf, &sym_px, &sym_main);
	add_chain(h, "app", 10, 10, 3, &sym_leaf, &sym_py, &sym_main);
	add_chain(h, "app", 10, 10, 3, &sym_sys, &sym_py, &sym_main);
	return h;
}

START_TEST(test_tree_callers)
{
	struct hist *h = two_parents();
	struct view_opts o = { .tree_rows = 10 };
	struct snapshot snap = { 0 };
	const struct snapshot_row *r;
	const struct snapshot_node *n;

	view_build(h, &o, &snap);
	ck_assert(snap.callchains && snap.children);
	/* sorted by children: main 100, leaf 80, parent_x 60... */
	ck_assert_str_eq(snap.rows[0].symbol, "main");
	ck_assert_str_eq(snap.rows[1].symbol, "leaf");
	r = row_of(&snap, "leaf");
	ck_assert_double_eq_tol(r->children, 80.0, 1e-9);
	ck_assert_double_eq_tol(r->self, 80.0, 1e-9);
	n = r->callers;
	ck_assert_str_eq(n->symbol, "leaf");
	ck_assert_uint_eq(n->period, 400);
	ck_assert_uint_eq(n->nr_children, 2);
	ck_assert_str_eq(n->children[0].symbol, "parent_x");
	ck_assert_double_eq_tol(n->children[0].share, 75.0, 1e-9);
	ck_assert_double_eq_tol(n->children[0].share_total, 60.0, 1e-9);
	ck_assert_str_eq(n->children[1].symbol, "parent_y");
	ck_assert_double_eq_tol(n->children[1].share, 25.0, 1e-9);
	ck_assert_uint_eq(n->children[1].depth, 1);
	ck_assert_uint_eq(n->children[1].nr_children, 1);
	ck_assert_str_eq(n->children[1].children[0].symbol, "main");
	ck_assert_uint_eq(n->children[1].children[0].depth, 2);
	/* main's callees: parent_x 60, parent_y 40 (of which leaf 20, sys 20) */
	r = row_of(&snap, "main");
	n = r->callees;
	ck_assert_uint_eq(n->nr_children, 2);
	ck_assert_str_eq(n->children[1].symbol, "parent_y");
	ck_assert_double_eq_tol(n->children[1].share, 40.0, 1e-9);
	ck_assert_uint_eq(n->children[1].nr_children, 2);
	ck_assert(n->children[1].children[1].kernel || n->children[1].children[0].kernel);
	/* parent_y: its callees split, its self is 0 */
	r = row_of(&snap, "parent_y");
	ck_assert_double_eq_tol(r->children, 40.0, 1e-9);
	ck_assert_uint_eq(r->callees->nr_children, 2);
	snapshot_release(&snap);
	hist_free(h);
}
END_TEST

/* The first rows' trees are built in one pass over the chains: a chain
 * goes to every row whose function it passes through, with that row's
 * comm (rows of one function under two comms keep their own chains), from
 * the row's innermost frame (callers) and outermost (callees) when the
 * function recurs. */
static const struct snapshot_row *row_of_comm(const struct snapshot *snap, const char *comm,
					      const char *sym)
{
	size_t i;

	for (i = 0; i < snap->nr_rows; i++)
		if (strcmp(snap->rows[i].symbol, sym) == 0 && snap->rows[i].comm &&
		    strcmp(snap->rows[i].comm, comm) == 0)
			return &snap->rows[i];
	return NULL;
}

START_TEST(test_tree_rows_shared)
{
	struct hist *h = hist_of("comm,dso,sym");
	struct view_opts o = { .tree_rows = 10 };
	struct snapshot snap = { 0 };
	const struct snapshot_row *r;
	const struct snapshot_node *n;

	add_chain(h, "a", 10, 3, 4, &sym_leaf, &sym_rec, &sym_rec, &sym_main);
	add_chain(h, "b", 10, 1, 3, &sym_leaf, &sym_rec, &sym_main);
	view_build(h, &o, &snap);
	ck_assert_uint_eq(snap.nr_rows, 6);
	/* a's rec: callers from the inner rec, callees from the outer */
	r = row_of_comm(&snap, "a", "rec");
	ck_assert_ptr_nonnull(r);
	n = r->callers;
	ck_assert_uint_eq(n->period, 30);
	ck_assert_uint_eq(n->nr_children, 1);
	ck_assert_str_eq(n->children[0].symbol, "rec");
	ck_assert_uint_eq(n->children[0].nr_children, 1);
	ck_assert_str_eq(n->children[0].children[0].symbol, "main");
	n = r->callees;
	ck_assert_uint_eq(n->period, 30);
	ck_assert_str_eq(n->children[0].symbol, "rec");
	ck_assert_str_eq(n->children[0].children[0].symbol, "leaf");
	/* b's rec: b's chain only */
	r = row_of_comm(&snap, "b", "rec");
	ck_assert_ptr_nonnull(r);
	ck_assert_uint_eq(r->callers->period, 10);
	ck_assert_str_eq(r->callers->children[0].symbol, "main");
	ck_assert_uint_eq(r->callers->children[0].nr_children, 0);
	ck_assert_str_eq(r->callees->children[0].symbol, "leaf");
	/* main of each comm: its callees through rec */
	r = row_of_comm(&snap, "a", "main");
	ck_assert_uint_eq(r->callees->period, 30);
	ck_assert_uint_eq(r->callees->children[0].children[0].children[0].period, 30);
	ck_assert_str_eq(r->callees->children[0].children[0].children[0].symbol, "leaf");
	r = row_of_comm(&snap, "b", "main");
	ck_assert_uint_eq(r->callees->period, 10);
	ck_assert_str_eq(r->callees->children[0].children[0].symbol, "leaf");
	snapshot_release(&snap);
	/* Without children: a row's chains are those sampled in it. */
	o.no_children = true;
	memset(&snap, 0, sizeof(snap));
	view_build(h, &o, &snap);
	r = row_of_comm(&snap, "a", "leaf");
	ck_assert_ptr_nonnull(r);
	ck_assert_uint_eq(r->callers->period, 30);
	ck_assert_str_eq(r->callers->children[0].symbol, "rec");
	ck_assert_uint_eq(r->callees->nr_children, 0);
	snapshot_release(&snap);
	hist_free(h);
}
END_TEST

START_TEST(test_tree_total_threshold_cap)
{
	struct hist *h = two_parents();
	struct view_opts o = { .tree_rows = 1, .tree_percent_total = true,
			       .percent_limit = 21 };
	struct snapshot snap = { 0 };
	const struct snapshot_row *r;

	/* percent_limit 21 cuts rows below 21% children and nodes below 21%
	 * of the total */
	add_chain(h, "app", 1, 1, 2, &sym_rec, &sym_main);
	view_build(h, &o, &snap);
	ck_assert(snap.tree_percent_total);
	ck_assert_str_eq(snap.rows[0].symbol, "main");
	ck_assert_ptr_null(snap.rows[1].callers);
	r = &snap.rows[0];
	ck_assert_uint_eq(r->callees->nr_children, 2);
	ck_assert_double_eq_tol(r->callees->children[0].share,
				100.0 * 300 / 501, 1e-9);
	/* parent_y's children are 20% of the total each: cut */
	ck_assert_uint_eq(r->callees->children[1].nr_children, 0);
	snapshot_release(&snap);

	/* a node cap: what does not fit is counted */
	o.percent_limit = 0;
	o.tree_max_nodes = 2;
	view_build(h, &o, &snap);
	ck_assert_uint_gt(snap.callchain_nodes_dropped, 0);
	snapshot_release(&snap);
	hist_free(h);
}
END_TEST

START_TEST(test_tree_no_children)
{
	struct hist *h = two_parents();
	struct view_opts o = { .tree_rows = 5, .no_children = true };
	struct snapshot snap = { 0 };
	const struct snapshot_row *r;

	view_build(h, &o, &snap);
	ck_assert(snap.callchains && !snap.children);
	ck_assert_uint_eq(snap.nr_rows, 2);
	ck_assert_str_eq(snap.rows[0].symbol, "leaf");
	ck_assert_ptr_null(row_of(&snap, "main"));
	r = row_of(&snap, "sys_read");
	ck_assert_uint_eq(r->callers->nr_children, 1);
	ck_assert_str_eq(r->callers->children[0].symbol, "parent_y");
	ck_assert_uint_eq(r->callees->nr_children, 0);
	snapshot_release(&snap);
	hist_free(h);
}
END_TEST

START_TEST(test_tree_decay)
{
	struct hist *h = two_parents();
	struct view_opts o = { .tree_rows = 5 };
	struct snapshot snap = { 0 };
	const struct snapshot_row *r;

	hist_age(h, HIST_DECAY);
	add_chain(h, "app", 10, 8, 3, &sym_leaf, &sym_py, &sym_main);
	view_build(h, &o, &snap);
	r = row_of(&snap, "leaf");
	/* parent_x 300 -> 262, parent_y 100 -> 87 + 80 */
	ck_assert_uint_eq(r->callers->period, 262 + 167);
	/* the entry decays as one sum (400 -> 350): off by rounding only */
	ck_assert_uint_eq(r->children_period, 350 + 80);
	ck_assert_str_eq(r->callers->children[0].symbol, "parent_x");
	ck_assert_uint_eq(r->callers->children[0].period, 262);
	ck_assert_uint_eq(r->callers->children[1].period, 167);
	snapshot_release(&snap);
	hist_free(h);
}
END_TEST

/* ---- renderers ---- */

static char *render(void (*fn)(FILE *, const struct snapshot *), const struct snapshot *snap)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	fn(f, snap);
	fclose(f);
	return buf;
}

START_TEST(test_folded)
{
	struct hist *h = two_parents();
	struct view_opts o = { .stacks = true };
	struct snapshot snap = { 0 };
	char *out;

	add_chain(h, "a;b", 10, 2, 2, &sym_rec, &sym_main);
	/* a second pid with the same stack merges (pid is not a key) */
	view_build(h, &o, &snap);
	ck_assert_uint_eq(snap.nr_stacks, 4);
	out = render(output_folded, &snap);
	ck_assert_ptr_nonnull(strstr(out, "app;main;parent_x;leaf 30\n"));
	ck_assert_ptr_nonnull(strstr(out, "app;main;parent_y;leaf 10\n"));
	ck_assert_ptr_nonnull(strstr(out, "app;main;parent_y;sys_read 10\n"));
	ck_assert_ptr_nonnull(strstr(out, "a:b;main;rec 2\n"));
	free(out);
	snapshot_release(&snap);
	hist_free(h);
}
END_TEST

/* Folded lines in the order of what they print, whatever order the chains
 * came in (held samples change that from run to run). */
START_TEST(test_folded_order)
{
	struct hist *h1 = hist_of("dso,sym"), *h2 = hist_of("dso,sym");
	struct view_opts o = { .stacks = true };
	struct snapshot s1 = { 0 }, s2 = { 0 };
	char *out1, *out2;

	add_chain(h1, "app", 10, 3, 3, &sym_sys, &sym_py, &sym_main);
	add_chain(h1, "app", 10, 2, 3, &sym_leaf, &sym_px, &sym_main);
	add_chain(h1, "app", 10, 1, 3, &sym_leaf, &sym_py, &sym_main);
	add_chain(h2, "app", 10, 2, 3, &sym_leaf, &sym_px, &sym_main);
	add_chain(h2, "app", 10, 1, 3, &sym_leaf, &sym_py, &sym_main);
	add_chain(h2, "app", 10, 3, 3, &sym_sys, &sym_py, &sym_main);
	view_build(h1, &o, &s1);
	view_build(h2, &o, &s2);
	out1 = render(output_folded, &s1);
	out2 = render(output_folded, &s2);
	ck_assert_str_eq(out1, out2);
	ck_assert_str_eq(out1, "app;main;parent_x;leaf 2\napp;main;parent_y;leaf 1\n"
			       "app;main;parent_y;sys_read 3\n\n");
	free(out1);
	free(out2);
	snapshot_release(&s1);
	snapshot_release(&s2);
	hist_free(h1);
	hist_free(h2);
}
END_TEST

/* --pprof's detail: each group (the same functions) splits by tid and
 * frame addresses; every member's frames are its own addresses, root
 * first, with its group's names (issue 18 copies them from the group). */
START_TEST(test_stacks_detail)
{
	struct hist *h = hist_of("tid,sym");
	struct view_opts o = { .stacks = true, .stack_detail = true };
	struct snapshot snap = { 0 };
	static const struct {
		uint32_t tid;
		uint64_t leaf, mid;
		unsigned times;
	} c[] = { { 7, 0x1310, 0x1110, 1 }, { 7, 0x1320, 0x1110, 2 }, { 8, 0x1310, 0x1120, 4 } };
	size_t i, j;

	for (i = 0; i < 3; i++) {
		struct callchain_frame fr[3] = { F(&sym_leaf), F(&sym_px), F(&sym_main) };
		struct hist_sample s = { 0 };

		fr[0].addr = c[i].leaf;
		fr[1].addr = c[i].mid;
		fr[2].addr = 0x1010;
		s.comm = intern("app");
		s.pid = 42;
		s.tid = c[i].tid;
		s.dso = dso_app;
		s.sym = &sym_leaf;
		s.addr = c[i].leaf;
		s.period = 10;
		s.chain = fr;
		s.nr_chain = 3;
		for (j = 0; j < c[i].times; j++)
			hist_add(h, &s);
	}
	view_build(h, &o, &snap);
	ck_assert_uint_eq(snap.nr_stacks, 3);
	for (i = 0; i < 3; i++) {
		const struct snapshot_stack *st = &snap.stacks[i];

		ck_assert_uint_eq(st->group, 0);
		ck_assert(st->has_tid);
		ck_assert_uint_eq(st->tid, c[i].tid);
		ck_assert_uint_eq(st->samples, c[i].times);
		ck_assert_uint_eq(st->nr_frames, 3);
		ck_assert_str_eq(st->frames[0].symbol, "main");
		ck_assert_str_eq(st->frames[1].symbol, "parent_x");
		ck_assert_str_eq(st->frames[2].symbol, "leaf");
		ck_assert_uint_eq(snapshot_frame_addr(st, 0), 0x1010);
		ck_assert_uint_eq(snapshot_frame_addr(st, 1), c[i].mid);
		ck_assert_uint_eq(snapshot_frame_addr(st, 2), c[i].leaf);
		ck_assert_ptr_eq(st->frames[2].object, dso_app);
	}
	snapshot_release(&snap);
	hist_free(h);
}
END_TEST

/* ---- stacks kept between refreshes ---- */

static const struct symbol sym_dup1 = { 0x1500, 0x1600, "dup" };
static const struct symbol sym_dup2 = { 0x1600, 0x1700, "dup" };

/* n random chains (seeded by *seed): 1-4 frames of six functions, two of
 * them named alike (stacks that print the same), addresses in them,
 * three tids, two comms. */
static void add_random_chains(struct hist *h, unsigned *seed, size_t n, uint64_t period, bool addrs)
{
	static const struct symbol *const syms[] = { &sym_main, &sym_px, &sym_py, &sym_leaf,
						     &sym_dup1, &sym_dup2 };
	size_t i, k;

	for (i = 0; i < n; i++) {
		struct callchain_frame fr[4];
		struct hist_sample s = { 0 };
		size_t nr = 1 + rand_r(seed) % 4;

		for (k = 0; k < nr; k++) {
			const struct symbol *sym = syms[rand_r(seed) % 6];

			fr[k] = F(sym);
			fr[k].addr = addrs ? sym->start + 4 * (rand_r(seed) % 3) : 0;
		}
		s.comm = intern(rand_r(seed) % 4 ? "app" : "bb");
		s.pid = 42;
		s.tid = 1 + rand_r(seed) % 3;
		s.dso = fr[0].dso;
		s.sym = fr[0].sym;
		s.addr = fr[0].addr;
		s.period = period + rand_r(seed) % 7;
		s.chain = fr;
		s.nr_chain = nr;
		hist_add(h, &s);
	}
}

/* The store's chain serials increase with the index (stacks kept by
 * serial depend on it). */
static void assert_serials_ascending(const struct callchain_store *st)
{
	size_t i, n = callchain_store_count(st);

	for (i = 1; i < n; i++)
		if (callchain_store_serial(st, i - 1) >= callchain_store_serial(st, i))
			ck_abort_msg("serial of chain %zu not above the one before", i);
}

/* view_build_stacks keeps its groups with the store from one refresh to
 * the next: after adds, decays that drop and compact chains, a clear, a
 * mass of groups that die (pruned) and the serials' wrap, each refresh's
 * stacks are exactly those built and sorted from nothing; with and
 * without detail.  A chain keeps its group by its serial: only new chains
 * are grouped by hashing.  A group's member order is the last build's
 * when it still holds: a build with nothing new sorts no group again and
 * compares no member; after a decay alone, no chain is hashed.  Stacks
 * point into the groups' frames, not a copy: a snapshot held while later
 * builds add, prune and move the groups still reads the same. */
START_TEST(test_stacks_kept)
{
	static const struct {
		const char *keys;
		bool detail, addrs;
	} cases[] = { { "pid,tid,sym", true, true }, { "sym", true, true }, { "dso,sym", false, false } };
	size_t ci;

	for (ci = 0; ci < 3; ci++) {
		struct hist *h = hist_of(cases[ci].keys);
		struct view_opts o = { .stacks = true, .stack_detail = cases[ci].detail };
		unsigned seed = 7 + (unsigned)ci;
		void *cache = NULL;
		size_t round, before = 0;
		struct snapshot held = { 0 };
		char *held_text = NULL;

		for (round = 0; round < 12; round++) {
			struct snapshot a = { 0 }, b = { 0 };
			struct view_stacks_counts k1, k2;

			/* The next chains' serials wrap (a new generation). */
			if (round == 6)
				callchain_store_set_next_serial(
					(struct callchain_store *)hist_callchains(h), UINT32_MAX - 20);
			add_random_chains(h, &seed, 60, 400, cases[ci].addrs);
			/* Many groups that the next decay drops: pruned then. */
			if (round == 3)
				add_random_chains(h, &seed, 8000, 0, cases[ci].addrs);
			assert_serials_ascending(hist_callchains(h));
			view_build(h, &o, &a);
			if (cache)
				ck_assert_ptr_eq(callchain_store_view_cache(hist_callchains(h)), cache);
			cache = callchain_store_view_cache(hist_callchains(h));
			ck_assert_ptr_nonnull(cache);
			b.sort = a.sort;
			view_build_stacks_sorted(hist_callchains(h), NULL, &b, cases[ci].detail);
			ck_assert_uint_gt(a.nr_stacks, 0);
			assert_same_stacks(&a, &b);
			ck_assert_ptr_null(a.stack_frames);
			ck_assert_ptr_nonnull(a.stack_pool);
			if (round == 2) {
				/* held through the clear, pruning and growth */
				held = a;
				held_text = render(output_folded, &held);
				memset(&a, 0, sizeof(a));
			}
			if (round == 11) {
				char *again = render(output_folded, &held);

				ck_assert_str_eq(again, held_text);
				free(again);
				free(held_text);
				snapshot_release(&held);
			}
			if (round % 4 == 2) {
				struct snapshot again = { 0 };

				view_stacks_counts(hist_callchains(h), &k1);
				view_build(h, &o, &again);
				view_stacks_counts(hist_callchains(h), &k2);
				assert_same_stacks(&again, &b);
				ck_assert_uint_eq(k2.sorted, k1.sorted);
				ck_assert_uint_eq(k2.reused, k1.reused);
				ck_assert_uint_eq(k2.hashed, k1.hashed);
				if (cases[ci].detail)
					ck_assert_uint_gt(k2.kept, k1.kept);
				snapshot_release(&again);
			}
			if (round % 4 == 1) {
				/* a decay and no add: chains go and move down */
				struct snapshot c = { 0 }, d = { 0 };
				size_t n = callchain_store_count(hist_callchains(h));

				hist_age(h, HIST_DECAY);
				hist_age(h, HIST_DECAY);
				view_stacks_counts(hist_callchains(h), &k1);
				view_build(h, &o, &c);
				view_stacks_counts(hist_callchains(h), &k2);
				d.sort = c.sort;
				view_build_stacks_sorted(hist_callchains(h), NULL, &d, cases[ci].detail);
				assert_same_stacks(&c, &d);
				ck_assert_uint_eq(k2.hashed, k1.hashed);
				if (round == 5)
					ck_assert_uint_lt(callchain_store_count(hist_callchains(h)), n);
				snapshot_release(&c);
				snapshot_release(&d);
			}
			if (round == 3) {
				/* One new group among thousands: placed with
				   a few compares, not one a group. */
				struct hist_sample s = { 0 };
				struct callchain_frame fr1 = F(&sym_main);
				struct snapshot one = { 0 };

				before = view_stacks_kept_groups(hist_callchains(h));
				ck_assert_uint_gt(before, 1000);
				s.comm = intern("newcomm");
				s.dso = fr1.dso;
				s.sym = fr1.sym;
				s.period = 1;
				s.chain = &fr1;
				s.nr_chain = 1;
				hist_add(h, &s);
				view_stacks_counts(hist_callchains(h), &k1);
				view_build(h, &o, &one);
				view_stacks_counts(hist_callchains(h), &k2);
				ck_assert_uint_gt(k2.placing, k1.placing);
				ck_assert_uint_lt(k2.placing - k1.placing, 40);
				snapshot_release(&one);
			}
			/* Round 8's clear leaves round 9's groups alive: pruned
			   as round 10 starts. */
			if (round == 10)
				ck_assert_uint_lt(view_stacks_kept_groups(hist_callchains(h)), before);
			snapshot_release(&a);
			snapshot_release(&b);
			hist_age(h, round == 8 ? HIST_ZERO : HIST_DECAY);
		}
		hist_free(h);
	}
}
END_TEST

START_TEST(test_render_tree)
{
	struct hist *h = two_parents();
	struct view_opts o = { .tree_rows = 2 };
	struct snapshot snap = { .event = "cpu-clock", .target = "t", .mode = "decay" };
	char *out;

	view_build(h, &o, &snap);
	out = render(output_text, &snap);
	ck_assert_ptr_nonnull(strstr(out, "Children"));
	ck_assert_ptr_nonnull(strstr(out, "callchain nodes dropped: 0"));
	ck_assert_ptr_nonnull(strstr(out, "---leaf\n"));
	ck_assert_ptr_nonnull(strstr(out, "|--75.00%--parent_x\n"));
	ck_assert_ptr_nonnull(strstr(out, " --25.00%--parent_y\n"));
	free(out);
	out = render(output_json, &snap);
	ck_assert_ptr_nonnull(strstr(out, "\"callchain_nodes_dropped\":0"));
	ck_assert_ptr_nonnull(strstr(out, "\"children\":80.00"));
	ck_assert_ptr_nonnull(strstr(out, "\"callers\":[{\"symbol\":\"parent_x\",\"dso\":\"app\","
					  "\"kernel\":false,\"share\":75.00"));
	ck_assert_ptr_nonnull(strstr(out, "\"callees\":["));
	ck_assert_int_eq(testutil_sh("printf '%%s' '%s' | python3 -c 'import json,sys; json.load(sys.stdin)'", out), 0);
	free(out);
	snapshot_release(&snap);
	hist_free(h);
}
END_TEST

/* ---- options ---- */

static int parse(struct options *o, int argc, char **argv)
{
	enum options_result res;

	return options_parse(o, argc, argv, false, &res);
}

START_TEST(test_options)
{
	struct options o;
	char *a1[] = { "proftop", "-g", "--max-stack=32", "-G", "3", "--tree-percent=total",
		       "--no-children", NULL };
	char *a2[] = { "proftop", "--call-graph", "fp", "--folded", NULL };
	char *a3[] = { "proftop", "--call-graph=dwarf,4097", NULL }; /* not a multiple of 8 */
	char *a4[] = { "proftop", "--max-stack=0", NULL };
	char *a5[] = { "proftop", "--folded", "--json", NULL };
	char *a6[] = { "proftop", "-i", "x.data", "-g", NULL };

	ck_assert_int_eq(parse(&o, 7, a1), 0);
	ck_assert(o.callchain);
	ck_assert_uint_eq(o.max_stack, 32);
	ck_assert_uint_eq(o.view.tree_rows, 3);
	ck_assert(o.view.tree_percent_total);
	ck_assert(o.view.no_children);
	options_release(&o);
	ck_assert_int_eq(parse(&o, 4, a2), 0);
	ck_assert(o.callchain);
	ck_assert_int_eq(o.output, OUTPUT_FOLDED);
	ck_assert(o.view.stacks);
	ck_assert_uint_eq(o.view.tree_rows, 5);
	options_release(&o);
	ck_assert_int_eq(parse(&o, 2, a3), -EINVAL);
	options_release(&o);
	ck_assert_int_eq(parse(&o, 2, a4), -EINVAL);
	options_release(&o);
	ck_assert_int_eq(parse(&o, 3, a5), -EINVAL);
	options_release(&o);
	ck_assert_int_eq(parse(&o, 4, a6), 0);
	options_release(&o);
}
END_TEST

static Suite *callchain_suite(void)
{
	Suite *s = suite_create("callchain");
	TCase *tc;

	tc = tcase_create("ips");
	tcase_add_test(tc, test_ips_user);
	tcase_add_test(tc, test_ips_kernel_user);
	tcase_add_test(tc, test_ips_zero_ends);
	tcase_add_test(tc, test_ips_guest_and_limits);
	tcase_add_test(tc, test_cache_sample);
	suite_add_tcase(s, tc);

	tc = tcase_create("store");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_store_intern);
	tcase_add_test(tc, test_store_many_and_decay);
	tcase_add_test(tc, test_store_bound);
	tcase_add_test(tc, test_store_split_token);
	tcase_add_test(tc, test_store_token_hints);
	tcase_add_test(tc, test_store_token_hints_leaf_addrs);
	suite_add_tcase(s, tc);

	tc = tcase_create("children");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_children_recursion);
	tcase_add_test(tc, test_children_decay_zero);
	tcase_add_test(tc, test_children_keys);
	tcase_add_test(tc, test_children_memo);
	suite_add_tcase(s, tc);

	tc = tcase_create("trees");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_tree_callers);
	tcase_add_test(tc, test_tree_rows_shared);
	tcase_add_test(tc, test_tree_total_threshold_cap);
	tcase_add_test(tc, test_tree_no_children);
	tcase_add_test(tc, test_tree_decay);
	suite_add_tcase(s, tc);

	tc = tcase_create("render");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_folded);
	tcase_add_test(tc, test_folded_order);
	tcase_add_test(tc, test_stacks_detail);
	tcase_add_test(tc, test_render_tree);
	tcase_add_test(tc, test_options);
	suite_add_tcase(s, tc);

	/* Thousands of chains over a dozen refreshes: room on a busy host. */
	tc = tcase_create("kept");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_stacks_kept);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return testutil_run(callchain_suite()) ? 1 : 0;
}
