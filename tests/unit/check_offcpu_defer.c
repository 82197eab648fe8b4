/* Unit tests for src/offcpu-defer.c: the FIFO that holds --off-cpu's
 * events behind switch-outs still on the unwinder's queue: order kept
 * across the ring's growth and wrap-around, each SWITCH's chain its own
 * copy (the reader's buffer is reused at once), the last push taken back. */
#include "config.h"

#include <stdint.h>
#include <string.h>

#include "offcpu-defer.h"
#include "testutil.h"

START_TEST(test_order_and_chains)
{
	struct offcpu_defer *d = offcpu_defer_new();
	const struct offcpu_defer_event *h;
	struct offcpu_defer_event ev;
	uint64_t chain[3];
	unsigned i, next = 0, round;

	ck_assert_ptr_null(offcpu_defer_head(d));
	/* Pushes and pops interleaved so that the ring wraps, then grows
	 * while wrapped (64 slots at first). */
	for (round = 0, i = 0; round < 3; round++) {
		unsigned n = round == 2 ? 150 : 50;

		for (; n--; i++) {
			memset(&ev, 0, sizeof(ev));
			ev.kind = i % 3 == 0 ? OFFCPU_DEFER_SWITCH :
				  i % 3 == 1 ? OFFCPU_DEFER_QUEUED : OFFCPU_DEFER_IN;
			ev.tid = i;
			ev.sw.prev_pid = i;
			chain[0] = PERF_CONTEXT_KERNEL;
			chain[1] = 0xffff0000u + i;
			chain[2] = 0xffff1000u + i;
			ev.s.callchain = chain;
			ev.s.nr_callchain = 3;
			ev.s.raw = chain;
			ev.s.raw_size = 8;
			offcpu_defer_push(d, &ev);
			/* The reader's buffer is overwritten by the next sample. */
			memset(chain, 0xa5, sizeof(chain));
		}
		for (n = round == 2 ? 200 : 30; n-- && (h = offcpu_defer_head(d)); next++) {
			ck_assert_uint_eq(h->tid, next);
			ck_assert_uint_eq(h->sw.prev_pid, next);
			if (h->kind == OFFCPU_DEFER_SWITCH) {
				ck_assert_uint_eq(h->s.nr_callchain, 3);
				ck_assert_uint_eq(h->s.callchain[1], 0xffff0000u + next);
				ck_assert_uint_eq(h->s.callchain[2], 0xffff1000u + next);
				ck_assert_ptr_null(h->s.raw);
			}
			offcpu_defer_pop(d);
		}
	}
	ck_assert_uint_eq(next, i);
	ck_assert_uint_eq(offcpu_defer_len(d), 0);
	ck_assert_ptr_null(offcpu_defer_head(d));
	offcpu_defer_pop(d);    /* empty: nothing happens */
	ck_assert_uint_eq(offcpu_defer_len(d), 0);
	offcpu_defer_free(d);
}
END_TEST

START_TEST(test_drop_last)
{
	struct offcpu_defer *d = offcpu_defer_new();
	struct offcpu_defer_event ev = { .kind = OFFCPU_DEFER_QUEUED, .tid = 1 };

	offcpu_defer_push(d, &ev);
	ev.tid = 2;
	offcpu_defer_push(d, &ev);
	offcpu_defer_drop_last(d);
	ck_assert_uint_eq(offcpu_defer_len(d), 1);
	ck_assert_uint_eq(offcpu_defer_head(d)->tid, 1);
	ev.kind = OFFCPU_DEFER_EXIT;
	ev.tid = 3;
	offcpu_defer_push(d, &ev);
	offcpu_defer_pop(d);
	ck_assert_uint_eq(offcpu_defer_head(d)->tid, 3);
	ck_assert_int_eq(offcpu_defer_head(d)->kind, OFFCPU_DEFER_EXIT);
	offcpu_defer_free(d);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("offcpu_defer");
	TCase *tc = tcase_create("offcpu_defer");

	tcase_add_test(tc, test_order_and_chains);
	tcase_add_test(tc, test_drop_last);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return testutil_run(suite()) != 0;
}
