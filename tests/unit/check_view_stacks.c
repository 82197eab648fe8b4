/* Unit tests for the view's kept stack groups (src/view-stacks.c) ordered
 * by their printed frames' ranks: functions that come while groups are
 * kept, with names that sort between the known ones, alike names (two
 * symbols of one name, one name in two DSOs), kernel and user frames; each
 * build's stacks are those built and sorted from nothing, and the frames
 * are ranked again only when a build meets new ones. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "callchain.h"
#include "hist.h"
#include "intern.h"
#include "machine.h"
#include "symtab.h"
#include "stacks-fixture.h"
#include "testutil.h"
#include "util.h"
#include "view.h"
#include "view-impl.h"

#define NSYM 40

static struct machine *machine;
static struct dso *dso_app, *dso_lib, *dso_kernel;
static struct symbol syms[NSYM];

static void setup(void)
{
	size_t i;

	machine = machine_new();
	dso_app = machine_dso_get(machine, "/usr/bin/app", DSO_USER);
	dso_lib = machine_dso_get(machine, "/usr/lib/libz.so", DSO_USER);
	dso_kernel = machine_dso_get(machine, "[kernel.kallsyms]", DSO_KERNEL);
	/* Names in no order of their numbers (i * 17 % 40), and symbols
	   36-39 named as 0-3: stacks that print alike. */
	for (i = 0; i < NSYM; i++) {
		char name[16];

		snprintf(name, sizeof(name), "fn%02zu", i < 36 ? i * 17 % 40 : (i - 36) * 17 % 40);
		syms[i].start = 0x10000 + 0x100 * i;
		syms[i].end = syms[i].start + 0x100;
		syms[i].name = intern(name);
	}
}

static void teardown(void)
{
	machine_free(machine);
	machine = NULL;
}

/* A frame of symbol i: in the lib when i % 7 == 3 (the same names in two
 * DSOs), the kernel's when i % 11 == 5. */
static struct callchain_frame frame_of(size_t i, uint64_t off)
{
	struct callchain_frame f = { .dso = i % 11 == 5 ? dso_kernel : i % 7 == 3 ? dso_lib : dso_app,
				     .sym = &syms[i], .kernel = i % 11 == 5,
				     .addr = syms[i].start + off };

	return f;
}

/* n chains of 1-6 frames of the first nsym symbols, leaf at one of 3
 * addresses, two comms, two tids. */
static void add_chains(struct hist *h, unsigned *seed, size_t n, size_t nsym)
{
	size_t i, k;

	for (i = 0; i < n; i++) {
		struct callchain_frame fr[6];
		struct hist_sample s = { 0 };
		size_t nr = 1 + rand_r(seed) % 6;

		for (k = 0; k < nr; k++)
			fr[k] = frame_of(rand_r(seed) % nsym, k ? 8 : 4 * (rand_r(seed) % 3));
		s.comm = intern(rand_r(seed) % 5 ? "app" : "zz");
		s.pid = 42;
		s.tid = 42 + rand_r(seed) % 2;
		s.dso = fr[0].dso;
		s.sym = fr[0].sym;
		s.addr = fr[0].addr;
		s.period = 100 + rand_r(seed) % 5;
		s.chain = fr;
		s.nr_chain = nr;
		hist_add(h, &s);
	}
}

/* Functions come 4 more a round, their names falling between the known
 * ones: each round's kept stacks are the sorted ones (stale ranks would
 * misplace the new groups), and the frames are ranked again in a round
 * that meets new ones, not in one that only adds groups of known ones
 * (which still places new groups). */
START_TEST(test_ranks_new_functions)
{
	struct sort_spec spec;
	size_t round;
	unsigned seed = 99;
	struct hist *h;

	ck_assert_int_eq(sort_spec_parse("pid,tid,sym", &spec, NULL), 0);
	h = hist_new(&spec);
	hist_enable_callchains(h, 0);
	for (round = 0; round < 10; round++) {
		/* (detail: chains with addresses are --pprof's) */
		struct view_opts o = { .stacks = true, .stack_detail = true };
		struct snapshot a = { 0 }, b = { 0 };
		struct view_stacks_counts k1, k2;
		size_t nsym = round < 9 ? 4 + 4 * round : NSYM;

		view_stacks_counts(hist_callchains(h), &k1);
		add_chains(h, &seed, 300, nsym);
		view_build(h, &o, &a);
		view_stacks_counts(hist_callchains(h), &k2);
		b.sort = a.sort;
		view_build_stacks_sorted(hist_callchains(h), NULL, &b, o.stack_detail);
		assert_same_stacks(&a, &b);
		ck_assert_uint_eq(k2.reranks, k1.reranks + 1);
		snapshot_release(&a);
		snapshot_release(&b);

		/* New groups of known functions only: no ranking. */
		view_stacks_counts(hist_callchains(h), &k1);
		add_chains(h, &seed, 200, nsym);
		memset(&a, 0, sizeof(a));
		memset(&b, 0, sizeof(b));
		view_build(h, &o, &a);
		view_stacks_counts(hist_callchains(h), &k2);
		b.sort = a.sort;
		view_build_stacks_sorted(hist_callchains(h), NULL, &b, o.stack_detail);
		assert_same_stacks(&a, &b);
		ck_assert_uint_gt(k2.hashed, k1.hashed);
		ck_assert_uint_gt(k2.placing, k1.placing);
		ck_assert_uint_eq(k2.reranks, k1.reranks);
		snapshot_release(&a);
		snapshot_release(&b);
		hist_age(h, HIST_DECAY);
	}
	hist_free(h);
}
END_TEST

static Suite *view_stacks_suite(void)
{
	Suite *s = suite_create("view_stacks");
	TCase *tc = tcase_create("ranks");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_set_timeout(tc, 30);
	tcase_add_test(tc, test_ranks_new_functions);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return testutil_run(view_stacks_suite()) ? 1 : 0;
}
