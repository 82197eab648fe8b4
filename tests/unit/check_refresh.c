/* Unit tests for the refresh scheduler: the first frame, catch-up frames,
 * refreshes held for the kernel's symbols, -n and the last table, from
 * times and events alone (no perf_event_open, no clock). */
#include "config.h"

#include <check.h>

#include "refresh.h"
#include "testutil.h"

#define T0 100.0
#define EPS 1e-9

/* A printed session (--stdio, --json): refreshes wait for the kernel. */
static const struct refresh_config printed = {
	.start = T0, .delay = 1.0, .wait_kernel = true, .last_waits = true,
};
/* The browser: a quick first frame, nothing waits for the kernel. */
static const struct refresh_config browser = {
	.start = T0, .delay = 2.0, .first_frame = true,
};

static struct refresh_input at(double now)
{
	struct refresh_input in = { .now = now };

	return in;
}

static enum refresh_what step(struct refresh *s, const struct refresh_input *in,
			      struct refresh_action *act)
{
	refresh_step(s, in, act);
	return act->what;
}

START_TEST(test_first_frame)
{
	struct refresh s;
	struct refresh_action act;
	struct refresh_input in = at(T0);

	refresh_init(&s, &browser);
	/* Before the first frame, the rings are read often. */
	ck_assert_double_eq_tol(refresh_timeout(&s, &in), REFRESH_FIRST_POLL, EPS);
	in = at(T0 + 0.05);
	ck_assert_int_eq(step(&s, &in, &act), REFRESH_NOTHING);
	/* Due, but the DSOs sampled so far (3 jobs) are not loaded: wait. */
	in = at(T0 + REFRESH_FIRST_FRAME);
	in.symbols_queued = 3;
	in.symbols_loaded = 1;
	ck_assert_int_eq(step(&s, &in, &act), REFRESH_NOTHING);
	in.now += 0.05;
	ck_assert_double_eq_tol(refresh_timeout(&s, &in), REFRESH_FIRST_FRAME_POLL, EPS);
	/* Those 3 are done: the frame comes, whatever was queued since. */
	in.now += 0.05;
	in.symbols_queued = 9;
	in.symbols_loaded = 3;
	ck_assert_int_eq(step(&s, &in, &act), REFRESH_PREVIEW);
	ck_assert_double_eq_tol(act.interval, 0.2, EPS);
	ck_assert(!act.last);
	ck_assert(!act.stop);
	ck_assert(!act.wait_kernel);
	ck_assert_int_eq(act.symbols_wait_ms, 0);
	/* One first frame only. */
	in.now += 0.01;
	in.symbols_loaded = 9;
	refresh_shown(&s, 9, false);
	ck_assert_int_eq(step(&s, &in, &act), REFRESH_NOTHING);
	/* The first full refresh at -d, counted from the start. */
	in = at(T0 + 2.0);
	in.symbols_queued = in.symbols_loaded = 9;
	ck_assert_int_eq(step(&s, &in, &act), REFRESH_FULL);
	ck_assert_double_eq_tol(act.interval, 2.0, EPS);
	ck_assert_int_eq(act.symbols_wait_ms, REFRESH_SYMBOLS_WAIT_MS);
	/* Then every -d, waiting the whole of it. */
	in.now += 0.5;
	ck_assert_double_eq_tol(refresh_timeout(&s, &in), 1.5, EPS);
}
END_TEST

/* Symbols that never come: the first frame waits REFRESH_FIRST_FRAME_WAIT
 * past its time, not longer. */
START_TEST(test_first_frame_gives_up)
{
	struct refresh s;
	struct refresh_action act;
	struct refresh_input in = at(T0 + REFRESH_FIRST_FRAME);

	refresh_init(&s, &browser);
	in.symbols_queued = 4;
	ck_assert_int_eq(step(&s, &in, &act), REFRESH_NOTHING);
	in.now = T0 + REFRESH_FIRST_FRAME + REFRESH_FIRST_FRAME_WAIT - 0.01;
	ck_assert_int_eq(step(&s, &in, &act), REFRESH_NOTHING);
	in.now = T0 + REFRESH_FIRST_FRAME + REFRESH_FIRST_FRAME_WAIT;
	ck_assert_int_eq(step(&s, &in, &act), REFRESH_PREVIEW);
}
END_TEST

/* No first frame for printed tables, nor when -d is shorter than it. */
START_TEST(test_no_first_frame)
{
	struct refresh_config fast = browser;
	struct refresh s;
	struct refresh_action act;
	struct refresh_input in = at(T0);

	refresh_init(&s, &printed);
	ck_assert_double_eq_tol(refresh_timeout(&s, &in), 1.0, EPS);
	in.now = T0 + 0.5;
	ck_assert_int_eq(step(&s, &in, &act), REFRESH_NOTHING);
	fast.delay = 0.05;
	refresh_init(&s, &fast);
	in.now = T0;
	ck_assert_double_eq_tol(refresh_timeout(&s, &in), 0.05, EPS);
	in.now = T0 + 0.05;
	ck_assert_int_eq(step(&s, &in, &act), REFRESH_FULL);
}
END_TEST

/* Between the first frame and the first refresh, a frame each time more
 * symbols have come, at most every REFRESH_CATCH_UP s; none after. */
START_TEST(test_catch_up)
{
	struct refresh s;
	struct refresh_action act;
	struct refresh_input in = at(T0 + REFRESH_FIRST_FRAME);

	refresh_init(&s, &browser);
	in.kernel_loading = true;
	ck_assert_int_eq(step(&s, &in, &act), REFRESH_PREVIEW);
	refresh_shown(&s, 0, true);
	/* Read often meanwhile. */
	ck_assert_double_eq_tol(refresh_timeout(&s, &in), REFRESH_FIRST_POLL, EPS);
	/* A DSO loaded, but too soon after the last frame. */
	in.now = T0 + 0.2;
	in.symbols_queued = in.symbols_loaded = 1;
	ck_assert_int_eq(step(&s, &in, &act), REFRESH_NOTHING);
	in.now = T0 + REFRESH_FIRST_FRAME + REFRESH_CATCH_UP;
	ck_assert_int_eq(step(&s, &in, &act), REFRESH_PREVIEW);
	ck_assert_double_eq_tol(act.interval, REFRESH_FIRST_FRAME + REFRESH_CATCH_UP, EPS);
	refresh_shown(&s, 1, true);
	/* Nothing new: no frame. */
	in.now = T0 + 0.6;
	ck_assert_int_eq(step(&s, &in, &act), REFRESH_NOTHING);
	/* The kernel's symbols: a frame. */
	in.kernel_loading = false;
	ck_assert_int_eq(step(&s, &in, &act), REFRESH_PREVIEW);
	refresh_shown(&s, 1, false);
	in.now = T0 + 1.0;
	ck_assert_int_eq(step(&s, &in, &act), REFRESH_NOTHING);
	in.now = T0 + 2.0;
	ck_assert_int_eq(step(&s, &in, &act), REFRESH_FULL);
	/* After the first refresh, new symbols wait for the next. */
	in.now = T0 + 2.5;
	in.symbols_queued = in.symbols_loaded = 5;
	ck_assert_int_eq(step(&s, &in, &act), REFRESH_NOTHING);
	ck_assert_double_eq_tol(refresh_timeout(&s, &in), 1.5, EPS);
}
END_TEST

/* A snapshot that took longer than -d: one refresh at once, then back on
 * the -d grid, not a burst of the ones missed. */
START_TEST(test_slow_snapshot)
{
	struct refresh s;
	struct refresh_action act;
	struct refresh_input in = at(T0 + 1.0);

	refresh_init(&s, &printed);
	ck_assert_int_eq(step(&s, &in, &act), REFRESH_FULL);
	/* That refresh took until T0 + 3.5. */
	in = at(T0 + 3.5);
	in.data = true;
	ck_assert_double_eq_tol(refresh_timeout(&s, &in), 0, EPS);
	ck_assert_int_eq(step(&s, &in, &act), REFRESH_FULL);
	ck_assert_double_eq_tol(act.interval, 2.5, EPS);
	in.now = T0 + 3.6;
	ck_assert_int_eq(step(&s, &in, &act), REFRESH_NOTHING);
	ck_assert_double_eq_tol(refresh_timeout(&s, &in), 0.4, EPS);
	in.now = T0 + 4.0;
	ck_assert_int_eq(step(&s, &in, &act), REFRESH_FULL);
	ck_assert_double_eq_tol(act.interval, 0.5, EPS);
}
END_TEST

/* A printed refresh while the kernel's symbols load is held (the rings
 * still read, every REFRESH_KERNEL_POLL s), then comes with the interval
 * it covers; the browser's is not held. */
START_TEST(test_held_for_kernel)
{
	struct refresh s;
	struct refresh_action act;
	struct refresh_input in = at(T0 + 1.0);

	refresh_init(&s, &printed);
	in.kernel_loading = true;
	ck_assert_int_eq(step(&s, &in, &act), REFRESH_HOLD);
	ck_assert(!act.stop);
	ck_assert_double_eq_tol(refresh_timeout(&s, &in), REFRESH_KERNEL_POLL, EPS);
	in.now = T0 + 1.7;
	ck_assert_int_eq(step(&s, &in, &act), REFRESH_HOLD);
	in.kernel_loading = false;
	ck_assert_int_eq(step(&s, &in, &act), REFRESH_FULL);
	ck_assert_double_eq_tol(act.interval, 1.7, EPS);
	ck_assert(act.wait_kernel);
	ck_assert_int_eq(act.symbols_wait_ms, REFRESH_SYMBOLS_WAIT_MS);
	ck_assert_double_eq_tol(refresh_timeout(&s, &in), 0.3, EPS);

	/* The end is not held: its table is the last. */
	refresh_init(&s, &printed);
	in = at(T0 + 1.0);
	in.kernel_loading = true;
	in.ended = true;
	ck_assert_int_eq(step(&s, &in, &act), REFRESH_FULL);
	ck_assert(act.last);
	ck_assert(act.stop);

	refresh_init(&s, &browser);
	in = at(T0 + 2.0);
	in.kernel_loading = true;
	ck_assert_int_eq(step(&s, &in, &act), REFRESH_FULL);
	ck_assert(!act.wait_kernel);
}
END_TEST

/* -n 3: three refreshes, the third the last one (it waits longer for
 * symbols when printed), then the loop ends. */
START_TEST(test_iterations)
{
	struct refresh_config c = printed;
	struct refresh s;
	struct refresh_action act;
	struct refresh_input in;
	int i;

	c.iterations = 3;
	refresh_init(&s, &c);
	for (i = 1; i <= 3; i++) {
		in = at(T0 + i);
		in.data = true;
		ck_assert_int_eq(step(&s, &in, &act), REFRESH_FULL);
		ck_assert_int_eq(act.last, i == 3);
		ck_assert_int_eq(act.stop, i == 3);
		ck_assert_int_eq(act.symbols_wait_ms,
				 i == 3 ? REFRESH_LAST_SYMBOLS_WAIT_MS : REFRESH_SYMBOLS_WAIT_MS);
	}
	/* The browser's last refresh waits as long as any. */
	c = browser;
	c.iterations = 1;
	refresh_init(&s, &c);
	in = at(T0 + 2.0);
	ck_assert_int_eq(step(&s, &in, &act), REFRESH_FULL);
	ck_assert(act.last && act.stop);
	ck_assert_int_eq(act.symbols_wait_ms, REFRESH_SYMBOLS_WAIT_MS);
}
END_TEST

/* The command ends: a last table when records came since the one before
 * (or none was printed yet), else none; the loop ends either way. */
START_TEST(test_last_table)
{
	struct refresh s;
	struct refresh_action act;
	struct refresh_input in = at(T0 + 1.0);

	refresh_init(&s, &printed);
	in.data = true;
	ck_assert_int_eq(step(&s, &in, &act), REFRESH_FULL);
	ck_assert(!act.last);
	/* Ended with nothing read since: nothing more to print. */
	in = at(T0 + 1.2);
	in.ended = true;
	ck_assert_int_eq(step(&s, &in, &act), REFRESH_NOTHING);
	ck_assert(act.stop);

	refresh_init(&s, &printed);
	in = at(T0 + 1.0);
	ck_assert_int_eq(step(&s, &in, &act), REFRESH_FULL);
	in = at(T0 + 1.4);
	in.data = true;
	in.ended = true;
	ck_assert_int_eq(step(&s, &in, &act), REFRESH_FULL);
	ck_assert(act.last && act.stop);
	ck_assert_double_eq_tol(act.interval, 0.4, EPS);
	ck_assert_int_eq(act.symbols_wait_ms, REFRESH_LAST_SYMBOLS_WAIT_MS);

	/* Ended before any refresh: one table all the same. */
	refresh_init(&s, &printed);
	in = at(T0 + 0.3);
	in.ended = true;
	ck_assert_int_eq(step(&s, &in, &act), REFRESH_FULL);
	ck_assert(act.last && act.stop);

	/* Ended before the first frame: no preview, the last table. */
	refresh_init(&s, &browser);
	in = at(T0 + 0.2);
	in.ended = true;
	ck_assert_int_eq(step(&s, &in, &act), REFRESH_FULL);
	ck_assert(act.last && act.stop);

	/* A recording's one refresh. */
	refresh_final(&printed, 12.5, &act);
	ck_assert_int_eq(act.what, REFRESH_FULL);
	ck_assert(act.last && act.wait_kernel);
	ck_assert_double_eq_tol(act.interval, 12.5, EPS);
	ck_assert_int_eq(act.symbols_wait_ms, REFRESH_LAST_SYMBOLS_WAIT_MS);
	refresh_final(&browser, 12.5, &act);
	ck_assert(act.last && !act.wait_kernel);
	ck_assert_int_eq(act.symbols_wait_ms, REFRESH_SYMBOLS_WAIT_MS);
}
END_TEST

/* The /proc sweep goes on between ring reads: no wait meanwhile. */
START_TEST(test_synthesizing)
{
	struct refresh s;
	struct refresh_input in = at(T0);

	refresh_init(&s, &printed);
	in.synthesizing = true;
	ck_assert_double_eq_tol(refresh_timeout(&s, &in), 0, EPS);
	in.synthesizing = false;
	ck_assert_double_eq_tol(refresh_timeout(&s, &in), 1.0, EPS);
}
END_TEST

static Suite *refresh_suite(void)
{
	Suite *s = suite_create("refresh");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, test_first_frame);
	tcase_add_test(tc, test_first_frame_gives_up);
	tcase_add_test(tc, test_no_first_frame);
	tcase_add_test(tc, test_catch_up);
	tcase_add_test(tc, test_slow_snapshot);
	tcase_add_test(tc, test_held_for_kernel);
	tcase_add_test(tc, test_iterations);
	tcase_add_test(tc, test_last_table);
	tcase_add_test(tc, test_synthesizing);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return testutil_run(refresh_suite()) ? 1 : 0;
}
