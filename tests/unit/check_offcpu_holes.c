/* Unit tests for src/offcpu-holes.c: holes in each CPU's chain of
 * sched_switch samples counted; an idle task's hole asks for its CPU's
 * switch records once, and its next sampled switch-out closes them; other
 * tasks' holes are counted only; CPUs kept apart. */
#include "config.h"

#include <stdint.h>

#include "offcpu-holes.h"
#include "testutil.h"

START_TEST(test_no_holes)
{
	struct offcpu_holes *h = offcpu_holes_new();
	uint32_t cpu;
	bool on;

	/* Two CPUs interleaved, each chained: 0 -> 10 -> 0 -> 11, 0 -> 20 -> 0. */
	offcpu_holes_switch(h, 0, 0, 10);
	offcpu_holes_switch(h, 3, 0, 20);
	offcpu_holes_switch(h, 0, 10, 0);
	offcpu_holes_switch(h, 3, 20, 0);
	offcpu_holes_switch(h, 0, 0, 11);
	ck_assert_uint_eq(offcpu_holes_stats(h)->holes, 0);
	ck_assert(!offcpu_holes_take(h, &cpu, &on));
	offcpu_holes_free(h);
}
END_TEST

START_TEST(test_idle_hole_watch)
{
	struct offcpu_holes *h = offcpu_holes_new();
	const struct offcpu_holes_stats *st = offcpu_holes_stats(h);
	uint32_t cpu;
	bool on;

	/* CPU 1: idle switched to, then 30's switch-out with no idle
	 * switch-out before it. */
	offcpu_holes_switch(h, 1, 10, 0);
	offcpu_holes_switch(h, 1, 30, 0);
	ck_assert_uint_eq(st->holes, 1);
	ck_assert_uint_eq(st->idle, 1);
	ck_assert_uint_eq(st->closed, 0);
	ck_assert(offcpu_holes_take(h, &cpu, &on));
	ck_assert_uint_eq(cpu, 1);
	ck_assert(on);
	ck_assert(!offcpu_holes_take(h, &cpu, &on));
	/* Asked once, however many more before it opens. */
	offcpu_holes_switch(h, 1, 31, 0);
	ck_assert(!offcpu_holes_take(h, &cpu, &on));
	ck_assert_uint_eq(st->holes, 2);
	ck_assert_uint_eq(st->closed, 0);
	/* Open: its switch records have the holes' switch-ins. */
	offcpu_holes_cpu_watched(h, 1, true);
	offcpu_holes_switch(h, 1, 32, 0);
	ck_assert_uint_eq(st->holes, 3);
	ck_assert_uint_eq(st->closed, 1);
	ck_assert(!offcpu_holes_take(h, &cpu, &on));
	/* The idle task's switch-out sampled: close them. */
	offcpu_holes_switch(h, 1, 0, 33);
	ck_assert_uint_eq(st->holes, 3);
	ck_assert(offcpu_holes_take(h, &cpu, &on));
	ck_assert_uint_eq(cpu, 1);
	ck_assert(!on);
	offcpu_holes_cpu_watched(h, 1, false);
	offcpu_holes_switch(h, 1, 0, 34);
	ck_assert(!offcpu_holes_take(h, &cpu, &on));
	/* Holes again: asked again. */
	offcpu_holes_switch(h, 1, 34, 0);
	offcpu_holes_switch(h, 1, 35, 0);
	ck_assert(offcpu_holes_take(h, &cpu, &on));
	ck_assert(on);
	ck_assert_uint_eq(st->watches, 2);
	ck_assert_uint_eq(st->unwatches, 1);
	ck_assert_uint_eq(st->closed, 1);
	offcpu_holes_free(h);
}
END_TEST

START_TEST(test_thread_hole_counted)
{
	struct offcpu_holes *h = offcpu_holes_new();
	const struct offcpu_holes_stats *st = offcpu_holes_stats(h);
	uint32_t cpu;
	bool on;

	/* 70 switched in on CPU 0, and the next sample is 40's switch-out:
	 * 70's went unsampled.  No CPU's records for it. */
	offcpu_holes_switch(h, 0, 0, 70);
	offcpu_holes_switch(h, 0, 40, 41);
	ck_assert_uint_eq(st->holes, 1);
	ck_assert_uint_eq(st->idle, 0);
	ck_assert(!offcpu_holes_take(h, &cpu, &on));
	/* On a CPU with its records (for its idle task) it is closed. */
	offcpu_holes_switch(h, 2, 5, 0);
	offcpu_holes_switch(h, 2, 6, 70);
	ck_assert(offcpu_holes_take(h, &cpu, &on));
	ck_assert_uint_eq(cpu, 2);
	offcpu_holes_cpu_watched(h, 2, true);
	offcpu_holes_switch(h, 2, 7, 8);
	ck_assert_uint_eq(st->holes, 3);
	ck_assert_uint_eq(st->closed, 1);
	/* The first sample of a CPU has nothing before it to miss. */
	offcpu_holes_switch(h, 9, 50, 51);
	ck_assert_uint_eq(st->holes, 3);
	offcpu_holes_free(h);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("offcpu_holes");
	TCase *tc = tcase_create("offcpu_holes");

	tcase_add_test(tc, test_no_holes);
	tcase_add_test(tc, test_idle_hole_watch);
	tcase_add_test(tc, test_thread_hole_counted);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return testutil_run(suite()) != 0;
}
