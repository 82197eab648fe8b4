/* Unit tests for annotate: the per-instruction counts of a function add
 * up to its hist row's self (period and samples) through decay, zero and
 * accumulate; names and SYMBOL@DSO matching; instruction lines. */
#include "config.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <time.h>
#include <stdlib.h>
#include <string.h>

#include "annotate-test.h"
#include "annotate.h"
#include "errmsg.h"
#include "hist.h"
#include "symtab.h"
#include "testutil.h"
#include "util.h"

static struct symbol hot = { 0x1000, 0x1100, "hot" };
static struct symbol cold = { 0x2000, 0x2040, "cold" };

static const struct hist_entry *find_sym(const struct hist *h, const struct symbol *sym)
{
	size_t i;

	for (i = 0; i < hist_count(h); i++)
		if (hist_entry_at(h, i)->sym == sym)
			return hist_entry_at(h, i);
	return NULL;
}

/* One sample to both, as ingest does. */
static void add(struct hist *h, struct annotate *a, const struct symbol *sym, uint64_t addr,
		uint64_t period)
{
	struct hist_sample s = { .sym = sym, .period = period };

	annotate_sample(a, NULL, sym, addr, period);
	hist_add(h, &s);
}

/* The report's function "hot" against the row: totals and the lines' sums. */
static void check_sums(struct hist *h, struct annotate *a, int round)
{
	const struct hist_entry *e = find_sym(h, &hot);
	struct annotate_report *r = annotate_report(a);
	uint64_t period = 0, samples = 0;
	size_t i;

	ck_assert_uint_eq(r->nr_fns, 1);
	for (i = 0; i < r->fns[0].nr_lines; i++) {
		period += r->fns[0].lines[i].period;
		samples += r->fns[0].lines[i].samples;
	}
	ck_assert_msg(period == (e ? e->period : 0), "round %d: lines' period %llu, row's %llu",
		      round, (unsigned long long)period, (unsigned long long)(e ? e->period : 0));
	ck_assert_msg(samples == (e ? e->samples : 0), "round %d: lines' samples %llu, row's %llu",
		      round, (unsigned long long)samples,
		      (unsigned long long)(e ? e->samples : 0));
	ck_assert_uint_eq(r->fns[0].period, period);
	ck_assert_uint_eq(r->fns[0].samples, samples);
	annotate_report_free(r);
}

static void run_mode(enum hist_mode mode)
{
	const char *specs[] = { "hot" };
	struct sort_spec spec;
	struct hist *h;
	struct annotate *a;
	uint32_t x = 12345;
	int round, k;

	ck_assert_int_eq(sort_spec_parse("dso,sym", &spec, NULL), 0);
	h = hist_new(&spec);
	a = annotate_new(specs, 1, false);
	for (round = 0; round < 40; round++) {
		/* Bursts, then idle rounds where only the decay acts. */
		int n = round < 10 || (round >= 20 && round < 25) ? 200 : 0;

		for (k = 0; k < n; k++) {
			x = x * 1103515245u + 12345u;
			/* Many addresses with small odd counts: rounding on each. */
			add(h, a, &hot, hot.start + (x >> 8) % 0x100, 1 + (x >> 20) % 13);
			if (k % 3 == 0)
				add(h, a, &cold, cold.start + (x >> 4) % 0x40, 7);
		}
		check_sums(h, a, round);
		hist_age(h, mode);
		annotate_age(a, mode);
		check_sums(h, a, round);
	}
	annotate_free(a);
	hist_free(h);
}

START_TEST(test_sums_decay)
{
	run_mode(HIST_DECAY);
}
END_TEST

START_TEST(test_sums_zero)
{
	run_mode(HIST_ZERO);
}
END_TEST

START_TEST(test_sums_accumulate)
{
	run_mode(HIST_ACCUMULATE);
}
END_TEST

/* Only named functions are counted; the hottest address leads; a name
 * with @DSO needs that DSO; unmatched names are listed. */
START_TEST(test_match)
{
	const char *specs[] = { "hot", "cold@libc.so.6", "absent" };
	struct annotate *a = annotate_new(specs, 3, false);
	struct annotate_report *r;
	size_t i, best = 0;

	annotate_sample(a, NULL, &hot, 0x1010, 5);
	annotate_sample(a, NULL, &hot, 0x1010, 5);
	annotate_sample(a, NULL, &hot, 0x1004, 3);
	annotate_sample(a, NULL, &cold, 0x2000, 9);  /* no DSO: not libc's */
	annotate_sample(a, NULL, NULL, 0x3000, 9);   /* [unknown] */
	r = annotate_report(a);
	ck_assert_uint_eq(r->nr_fns, 1);
	ck_assert_str_eq(r->fns[0].symbol, "hot");
	ck_assert_uint_eq(r->fns[0].samples, 3);
	ck_assert_uint_eq(r->fns[0].period, 13);
	/* No file behind it: a note, and the sampled addresses as lines. */
	ck_assert_ptr_nonnull(r->fns[0].note);
	ck_assert_uint_eq(r->fns[0].nr_lines, 2);
	for (i = 0; i < r->fns[0].nr_lines; i++)
		if (r->fns[0].lines[i].period > r->fns[0].lines[best].period)
			best = i;
	ck_assert_uint_eq(r->fns[0].lines[best].addr, 0x1010);
	ck_assert_uint_eq(r->nr_unmatched, 2);
	ck_assert_str_eq(r->unmatched[0], "cold@libc.so.6");
	ck_assert_str_eq(r->unmatched[1], "absent");
	annotate_report_free(r);
	annotate_free(a);
}
END_TEST

/* The browser's a: a function is counted from annotate_watch on (not
 * before), and the reports carry it from then. */
START_TEST(test_watch)
{
	struct annotate *a = annotate_new(NULL, 0, false);
	struct annotate_report *r;

	annotate_sample(a, NULL, &hot, 0x1010, 5);   /* nothing watched: not kept */
	r = annotate_report_of(a, "hot", NULL, 0);
	ck_assert_uint_eq(r->nr_fns, 0);
	annotate_report_free(r);
	annotate_watch(a, "hot", NULL);
	annotate_watch(a, "hot", NULL);              /* once is enough */
	annotate_sample(a, NULL, &hot, 0x1010, 5);
	annotate_sample(a, NULL, &hot, 0x1020, 2);
	annotate_sample(a, NULL, &cold, 0x2000, 9);
	r = annotate_report(a);
	ck_assert_uint_eq(r->nr_fns, 1);
	ck_assert_uint_eq(r->nr_unmatched, 0);
	ck_assert_str_eq(r->fns[0].symbol, "hot");
	ck_assert_uint_eq(r->fns[0].period, 7);
	ck_assert_uint_eq(r->fns[0].samples, 2);
	annotate_report_free(r);
	r = annotate_report_of(a, "hot", NULL, 0);
	ck_assert_uint_eq(r->nr_fns, 1);
	ck_assert_uint_eq(r->fns[0].period, 7);
	annotate_report_free(r);
	r = annotate_report_of(a, "cold", NULL, 0);
	ck_assert_uint_eq(r->nr_fns, 0);
	annotate_report_free(r);
	annotate_free(a);
}
END_TEST

/* Decoding runs without the samples' lock: a sample from another thread
 * while a function is decoded (the browser's a, the engine's refresh) is
 * counted at once, not after the decoding. */
struct during {
	struct annotate *a;
	int calls, done;
};

static void *during_sample(void *arg)
{
	struct during *d = arg;

	annotate_sample(d->a, NULL, &hot, 0x1010, 3);
	return NULL;
}

static void during_decode(void *arg)
{
	struct during *d = arg;
	struct timespec until;
	pthread_t th;

	d->calls++;
	ck_assert_int_eq(pthread_create(&th, NULL, during_sample, d), 0);
	clock_gettime(CLOCK_REALTIME, &until);
	until.tv_sec += 10;
	if (pthread_timedjoin_np(th, NULL, &until) == 0)
		d->done++;
	else
		pthread_detach(th); /* blocked on the lock: the assertion below fails */
}

START_TEST(test_decode_unlocked)
{
	struct annotate *a = annotate_new(NULL, 0, false);
	struct during d = { .a = a };
	struct annotate_report *r;

	annotate_set_decode_hook(a, during_decode, &d);
	annotate_watch(a, "hot", NULL);
	annotate_sample(a, NULL, &hot, 0x1010, 5);
	r = annotate_report_of(a, "hot", NULL, 0);      /* the browser's thread */
	ck_assert_int_eq(d.calls, 1);
	ck_assert_msg(d.done == 1, "a sample waited for the decoding");
	ck_assert_uint_eq(r->nr_fns, 1);
	ck_assert_uint_eq(r->fns[0].period, 8);
	annotate_report_free(r);
	/* Decoded once: the refresh's report does not decode again. */
	r = annotate_report(a);
	ck_assert_int_eq(d.calls, 1);
	ck_assert_uint_eq(r->fns[0].samples, 2);
	annotate_report_free(r);

	/* The engine's refresh decodes a new function the same way. */
	annotate_watch(a, "cold", NULL);
	annotate_sample(a, NULL, &cold, 0x2000, 1);
	r = annotate_report(a);
	ck_assert_int_eq(d.calls, 2);
	ck_assert_int_eq(d.done, 2);
	ck_assert_uint_eq(r->nr_fns, 2);
	annotate_report_free(r);
	annotate_free(a);
}
END_TEST

/* A recording in the browser: every function is kept, a function opened
 * after the end has all its samples, and only the watched ones (or
 * --annotate's) go into the refresh's report. */
START_TEST(test_keep_all)
{
	const char *specs[] = { "cold" };
	struct annotate *a = annotate_new(specs, 1, false);
	struct annotate_report *r;
	int i;

	annotate_keep_all(a);
	for (i = 0; i < 100; i++) {
		annotate_sample(a, NULL, &hot, 0x1000 + (uint64_t)(i % 7) * 4, 1);
		annotate_sample(a, NULL, &cold, 0x2000, 3);
	}
	r = annotate_report(a);
	ck_assert_uint_eq(r->nr_fns, 1);
	ck_assert_str_eq(r->fns[0].symbol, "cold");
	annotate_report_free(r);
	r = annotate_report_of(a, "hot", NULL, 0);
	ck_assert_uint_eq(r->nr_fns, 1);
	ck_assert_uint_eq(r->fns[0].samples, 100);
	ck_assert_uint_eq(r->fns[0].nr_lines, 7);
	annotate_report_free(r);
	/* Many functions: each its own counts (the index grows). */
	{
		static struct symbol many[300];
		static char names[300][16];

		for (i = 0; i < 300; i++) {
			snprintf(names[i], sizeof(names[i]), "f%d", i);
			many[i] = (struct symbol){ 0x10000 + (uint64_t)i * 0x100,
						   0x10000 + (uint64_t)i * 0x100 + 0x100, names[i] };
			annotate_sample(a, NULL, &many[i], many[i].start + 4, (uint64_t)i + 1);
			annotate_sample(a, NULL, &many[i], many[i].start + 8, 1);
		}
		for (i = 0; i < 300; i += 37) {
			r = annotate_report_of(a, names[i], NULL, 0);
			ck_assert_uint_eq(r->nr_fns, 1);
			ck_assert_uint_eq(r->fns[0].samples, 2);
			ck_assert_uint_eq(r->fns[0].period, (uint64_t)i + 2);
			annotate_report_free(r);
		}
	}
	annotate_watch(a, "hot", NULL);
	r = annotate_report(a);
	ck_assert_uint_eq(r->nr_fns, 2);
	ck_assert_str_eq(r->fns[0].symbol, "hot");
	ck_assert_uint_eq(r->fns[0].period, 100);
	annotate_report_free(r);
	annotate_free(a);
}
END_TEST

/* A function the browser opens, or --annotate names, that has no samples
 * of its own yet (a row with only children, say) is found among the
 * hist's entries and shown with none; a name no entry has stays
 * unmatched. */
START_TEST(test_resolve)
{
	const char *specs[] = { "nowhere" };
	struct sort_spec spec;
	struct hist *h;
	struct annotate *a = annotate_new(specs, 1, false);
	struct annotate_report *r;

	ck_assert_int_eq(sort_spec_parse("dso,sym", &spec, NULL), 0);
	h = hist_new(&spec);
	add(h, NULL, &hot, 0x1010, 5);
	add(h, NULL, &cold, 0x2000, 5);
	annotate_resolve(a, h);
	r = annotate_report(a);
	ck_assert_uint_eq(r->nr_fns, 0);
	ck_assert_uint_eq(r->nr_unmatched, 1);
	annotate_report_free(r);
	annotate_watch(a, "cold", NULL);
	r = annotate_report_of(a, "cold", NULL, 0);
	ck_assert_uint_eq(r->nr_fns, 0);
	annotate_report_free(r);
	annotate_resolve(a, h);
	r = annotate_report(a);
	ck_assert_uint_eq(r->nr_fns, 1);
	ck_assert_str_eq(r->fns[0].symbol, "cold");
	ck_assert_uint_eq(r->fns[0].samples, 0);
	ck_assert_uint_eq(r->nr_unmatched, 1);
	ck_assert_str_eq(r->unmatched[0], "nowhere");
	annotate_report_free(r);
	/* Counted from then on. */
	annotate_sample(a, NULL, &cold, 0x2004, 3);
	r = annotate_report_of(a, "cold", NULL, 0);
	ck_assert_uint_eq(r->fns[0].samples, 1);
	ck_assert_uint_eq(r->fns[0].period, 3);
	annotate_report_free(r);
	annotate_free(a);

	/* --annotate's name: as the browser's. */
	a = annotate_new((const char *[]){ "hot" }, 1, false);
	r = annotate_report(a);
	ck_assert_uint_eq(r->nr_unmatched, 1);
	annotate_report_free(r);
	annotate_resolve(a, h);
	r = annotate_report(a);
	ck_assert_uint_eq(r->nr_unmatched, 0);
	ck_assert_uint_eq(r->nr_fns, 1);
	ck_assert_str_eq(r->fns[0].symbol, "hot");
	ck_assert_uint_eq(r->fns[0].samples, 0);
	annotate_report_free(r);
	annotate_free(a);
	hist_free(h);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("annotate");
	TCase *tc = tcase_create("sums");

	tcase_add_test(tc, test_sums_decay);
	tcase_add_test(tc, test_sums_zero);
	tcase_add_test(tc, test_sums_accumulate);
	suite_add_tcase(s, tc);
	tc = tcase_create("match");
	tcase_add_test(tc, test_match);
	tcase_add_test(tc, test_watch);
	tcase_add_test(tc, test_decode_unlocked);
	tcase_add_test(tc, test_keep_all);
	tcase_add_test(tc, test_resolve);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return testutil_run(suite()) != 0;
}
