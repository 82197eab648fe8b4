/* Unit tests for annotate-payload: per-instruction payload stats (Alpha
 * ProfileMe's, through the payload interface) add up, field by field, to
 * a row's stats kept as hist keeps them, through accumulation, decay
 * (many rounds, remainders shared out) and zeroing; sums over ranges. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "alpha-profileme.h"
#include "annotate-payload.h"
#include "annotate.h"
#include "hist.h"
#include "payload.h"
#include "symtab.h"
#include "testutil.h"

#define NWORDS (sizeof(struct profileme_stats) / sizeof(uint64_t))

static uint64_t rnd_state = 88172645463325252ull;

static uint64_t rnd(void)
{
	rnd_state ^= rnd_state << 13;
	rnd_state ^= rnd_state >> 7;
	rnd_state ^= rnd_state << 17;
	return rnd_state;
}

/* Every part's stats over the whole range must be the total, and the
 * total the row's. */
static void check_sums(const struct annotate_payload *p, const struct profileme_stats *row)
{
	struct profileme_stats sum;
	const uint64_t *t = annotate_payload_total(p), *r = (const uint64_t *)row;
	const uint64_t *s = (const uint64_t *)&sum;
	size_t k;

	annotate_payload_sum(p, 0, UINT64_MAX, &sum);
	for (k = 0; k < NWORDS; k++) {
		ck_assert_uint_eq(t[k], r[k]);
		ck_assert_uint_eq(s[k], t[k]);
	}
}

START_TEST(test_decay_adds_up)
{
	const struct payload_ops *ops = &profileme_payload;
	struct annotate_payload *p = annotate_payload_new(ops);
	struct profileme_stats row;
	int round, i;

	ck_assert(ops->stats_counters);
	memset(&row, 0, sizeof(row));
	for (round = 0; round < 40; round++) {
		for (i = 0; i < 50; i++) {
			struct profileme pm;
			uint64_t addr = 0x120000930 + 4 * (rnd() % 13);

			if (rnd() % 10 == 0) {
				annotate_payload_add(p, addr, NULL);
				ops->stats_add_other(&row);
				continue;
			}
			profileme_from_regs(1, rnd(), rnd(), rnd(), &pm);
			annotate_payload_add(p, addr, &pm);
			ops->stats_add(&row, &pm);
		}
		check_sums(p, &row);
		annotate_payload_age(p, HIST_DECAY);
		ops->stats_decay(&row, 7, 8);
		check_sums(p, &row);
	}
	/* Decayed to nothing: no part is left. */
	for (round = 0; round < 400; round++) {
		annotate_payload_age(p, HIST_DECAY);
		ops->stats_decay(&row, 7, 8);
	}
	check_sums(p, &row);
	{
		struct profileme_stats st;

		ck_assert(!annotate_payload_sum(p, 0, UINT64_MAX, &st));
	}
	annotate_payload_free(p);
}
END_TEST

START_TEST(test_ranges_zero_accumulate)
{
	const struct payload_ops *ops = &profileme_payload;
	struct annotate_payload *p = annotate_payload_new(ops);
	struct profileme pm;
	struct profileme_stats st;

	/* retired (VAL) at 0x100 twice, killed at 0x104, other at 0x108 */
	profileme_from_regs(1, 0x100, 0, 1ull << 1, &pm);
	annotate_payload_add(p, 0x100, &pm);
	annotate_payload_add(p, 0x100, &pm);
	profileme_from_regs(1, 0x104, 0, 1ull << 26, &pm);
	annotate_payload_add(p, 0x104, &pm);
	annotate_payload_add(p, 0x108, NULL);
	ck_assert(annotate_payload_sum(p, 0x100, 0x104, &st));
	ck_assert_uint_eq(st.samples, 2);
	ck_assert_uint_eq(st.retired, 2);
	ck_assert_uint_eq(st.killed, 0);
	ck_assert(annotate_payload_sum(p, 0x104, 0x108, &st));
	ck_assert_uint_eq(st.samples, 1);
	ck_assert_uint_eq(st.killed, 1);
	ck_assert(annotate_payload_sum(p, 0x108, 0x10c, &st));
	ck_assert_uint_eq(st.samples, 0);
	ck_assert_uint_eq(st.other, 1);
	ck_assert(!annotate_payload_sum(p, 0x10c, 0x200, &st));
	ck_assert_uint_eq(st.other, 0);
	annotate_payload_age(p, HIST_ACCUMULATE);
	ck_assert(annotate_payload_sum(p, 0x100, 0x104, &st));
	ck_assert_uint_eq(st.retired, 2);
	annotate_payload_age(p, HIST_ZERO);
	ck_assert(!annotate_payload_sum(p, 0, UINT64_MAX, &st));
	ck_assert_uint_eq(((const struct profileme_stats *)annotate_payload_total(p))->samples, 0);
	annotate_payload_free(p);
	annotate_payload_free(NULL);
}
END_TEST

/* Through annotate and hist as ingest drives them: a row whose period
 * decays to nothing is dropped with its stats, and so are the function's
 * per-instruction stats; samples after that start both from zero. */
START_TEST(test_row_dropped)
{
	static struct symbol hot = { 0x1000, 0x1100, "hot" };
	const char *specs[] = { "hot" };
	const struct payload_ops *ops = &profileme_payload;
	struct sort_spec spec;
	struct hist *h;
	struct annotate *a;
	struct annotate_report *r;
	int round, i;

	ck_assert_int_eq(sort_spec_parse("dso,sym", &spec, NULL), 0);
	h = hist_new(&spec);
	hist_enable_payload(h, ops);
	a = annotate_new(specs, 1, false);
	annotate_enable_payload(a, ops);
	for (round = 0; round < 3; round++) {
		/* Period 1: gone after one decay; PCTR0 sums stay big. */
		for (i = 0; i < 3; i++) {
			struct hist_sample hs = { .sym = &hot, .period = 1 };
			struct profileme pm;

			profileme_from_regs(1, 0x1000, 0, 0xfffff0000000ull | (1ull << 1), &pm);
			annotate_sample_payload(a, NULL, &hot, 0x1000 + 4 * (uint64_t)i, 1, &pm);
			hist_add_payload(h, &hs, &pm);
		}
		for (i = 0; i < 20; i++) {
			hist_age(h, HIST_DECAY);
			annotate_age(a, HIST_DECAY);
		}
	}
	{
		struct hist_sample hs = { .sym = &hot, .period = 1 };
		struct profileme pm;

		profileme_from_regs(1, 0x1000, 0, 1ull << 28, &pm);
		annotate_sample_payload(a, NULL, &hot, 0x1000, 1, &pm);
		hist_add_payload(h, &hs, &pm);
	}
	ck_assert_uint_eq(hist_count(h), 1);
	r = annotate_report(a);
	ck_assert_uint_eq(r->nr_fns, 1);
	ck_assert_ptr_nonnull(r->fns[0].payload);
	ck_assert(memcmp(r->fns[0].payload, hist_entry_payload(h, 0), ops->stats_size) == 0);
	ck_assert_uint_eq(((const struct profileme_stats *)r->fns[0].payload)->pctr0_sum, 1);
	annotate_report_free(r);
	annotate_free(a);
	hist_free(h);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("annotate_payload");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, test_decay_adds_up);
	tcase_add_test(tc, test_ranges_zero_accumulate);
	tcase_add_test(tc, test_row_dropped);
	suite_add_tcase(s, tc);
	return testutil_run(s) ? 1 : 0;
}
