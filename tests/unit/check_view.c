/* Unit tests for view_build: percentages, filters, limits, the order of
 * tied rows and the strings rows carry. */
#include "config.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "alpha-profileme.h"
#include "errmsg.h"
#include "hist.h"
#include "machine.h"
#include "symtab.h"
#include "testutil.h"
#include "util.h"
#include "view.h"

/* A small world: two user DSOs, the kernel, and their functions. */
static struct machine *machine;
static struct dso *dso_app, *dso_libc, *dso_kernel;
static const struct symbol sym_main = { 0x1000, 0x1100, "main" };
static const struct symbol sym_work = { 0x1100, 0x1200, "work" };
static const struct symbol sym_memcpy = { 0x2000, 0x2100, "memcpy" };
static const struct symbol sym_sched = { 0x3000, 0x3100, "schedule" };

static void setup(void)
{
	machine = machine_new();
	dso_app = machine_dso_get(machine, "/usr/bin/app", DSO_USER);
	dso_libc = machine_dso_get(machine, "/usr/lib/libc.so.6", DSO_USER);
	dso_kernel = machine_dso_get(machine, "[kernel.kallsyms]", DSO_KERNEL);
}

static void teardown(void)
{
	machine_free(machine);
	machine = NULL;
}

static struct hist *hist_of(const char *keys)
{
	struct sort_spec spec;

	ck_assert_int_eq(sort_spec_parse(keys, &spec, NULL), 0);
	return hist_new(&spec);
}

static void add(struct hist *h, const char *comm, uint32_t pid, uint32_t tid, uint32_t cpu,
		struct dso *dso, const struct symbol *sym, bool kernel, uint64_t period,
		unsigned times)
{
	struct hist_sample s = {
		.comm = comm ? intern(comm) : NULL,
		.pid = pid,
		.tid = tid,
		.cpu = cpu,
		.dso = dso,
		.sym = sym,
		.kernel = kernel,
		.period = period,
	};

	while (times--)
		hist_add(h, &s);
}

/* app main 50%, app work 25%, libc memcpy 15%, kernel schedule 10% */
static struct hist *standard_hist(const char *keys)
{
	struct hist *h = hist_of(keys);

	add(h, "app", 100, 100, 0, dso_app, &sym_main, false, 1000, 50);
	add(h, "app", 100, 101, 1, dso_app, &sym_work, false, 1000, 25);
	add(h, "app", 100, 100, 0, dso_libc, &sym_memcpy, false, 1000, 15);
	add(h, "app", 100, 100, 2, dso_kernel, &sym_sched, true, 1000, 10);
	return h;
}

START_TEST(test_percent_sum)
{
	struct hist *h = standard_hist("dso,sym");
	struct view_opts opts = { 0 };
	struct snapshot snap = { 0 };
	double sum = 0;
	size_t i;

	view_build(h, &opts, &snap);
	ck_assert_uint_eq(snap.nr_rows, 4);
	ck_assert_uint_eq(snap.nr_entries, 4);
	ck_assert_uint_eq(snap.period, 100000);
	ck_assert_uint_eq(snap.samples, 100);
	ck_assert_uint_eq(snap.kernel_period, 10000);
	ck_assert_uint_eq(snap.sort.n, 2);
	for (i = 0; i < snap.nr_rows; i++)
		sum += snap.rows[i].self;
	ck_assert_double_eq_tol(sum, 100.0, 1e-9);
	ck_assert_double_eq_tol(snap.rows[0].self, 50.0, 1e-9);
	ck_assert_str_eq(snap.rows[0].symbol, "main");
	ck_assert_str_eq(snap.rows[1].symbol, "work");
	ck_assert_str_eq(snap.rows[2].symbol, "memcpy");
	ck_assert_str_eq(snap.rows[3].symbol, "schedule");
	ck_assert_double_eq_tol(snap.rows[3].self, 10.0, 1e-9);
	ck_assert(snap.rows[3].kernel);
	ck_assert(!snap.rows[0].kernel);
	ck_assert_uint_eq(snap.rows[1].samples, 25);
	ck_assert_uint_eq(snap.rows[1].period, 25000);
	snapshot_release(&snap);
	ck_assert_ptr_null(snap.rows);
	ck_assert_uint_eq(snap.nr_rows, 0);
	hist_free(h);
}
END_TEST

START_TEST(test_empty)
{
	struct hist *h = hist_of("dso,sym");
	struct snapshot snap = { 0 };

	view_build(h, NULL, &snap);
	ck_assert_uint_eq(snap.nr_rows, 0);
	ck_assert_uint_eq(snap.nr_entries, 0);
	ck_assert_uint_eq(snap.period, 0);
	snapshot_release(&snap);
	hist_free(h);
}
END_TEST

/* The engine fills the header; view_build must leave it alone. */
START_TEST(test_header_kept)
{
	struct hist *h = standard_hist("dso,sym");
	struct snapshot snap = { .time = 2.5,
				 .event = "cpu-clock",
				 .freq = true,
				 .sample_freq = 4000,
				 .target = "system-wide",
				 .total_samples = 1234,
				 .lost = 3,
				 .mode = "decay" };

	view_build(h, NULL, &snap);
	ck_assert_double_eq(snap.time, 2.5);
	ck_assert_str_eq(snap.event, "cpu-clock");
	ck_assert_str_eq(snap.target, "system-wide");
	ck_assert_uint_eq(snap.total_samples, 1234);
	ck_assert_uint_eq(snap.lost, 3);
	ck_assert_str_eq(snap.mode, "decay");
	snapshot_release(&snap);
	hist_free(h);
}
END_TEST

START_TEST(test_hide_kernel)
{
	struct hist *h = standard_hist("dso,sym");
	struct view_opts opts = { .hide_kernel = true };
	struct snapshot snap = { 0 };
	size_t i;

	view_build(h, &opts, &snap);
	ck_assert_uint_eq(snap.nr_rows, 3);
	ck_assert_uint_eq(snap.nr_entries, 4);
	for (i = 0; i < snap.nr_rows; i++)
		ck_assert(!snap.rows[i].kernel);
	/* absolute percentages: hiding does not inflate the others */
	ck_assert_double_eq_tol(snap.rows[0].self, 50.0, 1e-9);
	ck_assert_uint_eq(snap.kernel_period, 10000);
	ck_assert_uint_eq(snap.period, 100000);
	snapshot_release(&snap);
	hist_free(h);
}
END_TEST

START_TEST(test_hide_user)
{
	struct hist *h = standard_hist("dso,sym");
	struct view_opts opts = { .hide_user = true };
	struct snapshot snap = { 0 };

	view_build(h, &opts, &snap);
	ck_assert_uint_eq(snap.nr_rows, 1);
	ck_assert(snap.rows[0].kernel);
	ck_assert_str_eq(snap.rows[0].symbol, "schedule");
	ck_assert_str_eq(snap.rows[0].dso, "[kernel.kallsyms]");
	ck_assert_double_eq_tol(snap.rows[0].self, 10.0, 1e-9);
	snapshot_release(&snap);

	opts.hide_kernel = true;
	view_build(h, &opts, &snap);
	ck_assert_uint_eq(snap.nr_rows, 0);
	ck_assert_uint_eq(snap.nr_entries, 4);
	snapshot_release(&snap);
	hist_free(h);
}
END_TEST

START_TEST(test_percent_limit)
{
	struct hist *h = standard_hist("dso,sym");
	struct view_opts opts = { .percent_limit = 15.0 };
	struct snapshot snap = { 0 };

	view_build(h, &opts, &snap);
	/* 15% itself is not below the limit */
	ck_assert_uint_eq(snap.nr_rows, 3);
	ck_assert_str_eq(snap.rows[2].symbol, "memcpy");
	snapshot_release(&snap);

	opts.percent_limit = 15.01;
	view_build(h, &opts, &snap);
	ck_assert_uint_eq(snap.nr_rows, 2);
	snapshot_release(&snap);

	opts.percent_limit = 99;
	view_build(h, &opts, &snap);
	ck_assert_uint_eq(snap.nr_rows, 0);
	ck_assert_uint_eq(snap.period, 100000);
	snapshot_release(&snap);
	hist_free(h);
}
END_TEST

START_TEST(test_max_rows)
{
	struct hist *h = standard_hist("dso,sym");
	struct view_opts opts = { .max_rows = 2 };
	struct snapshot snap = { 0 };

	view_build(h, &opts, &snap);
	ck_assert_uint_eq(snap.nr_rows, 2);
	ck_assert_str_eq(snap.rows[0].symbol, "main");
	ck_assert_str_eq(snap.rows[1].symbol, "work");
	snapshot_release(&snap);

	/* limits combine: the kernel row is hidden first */
	opts.max_rows = 10;
	opts.hide_user = true;
	view_build(h, &opts, &snap);
	ck_assert_uint_eq(snap.nr_rows, 1);
	snapshot_release(&snap);
	hist_free(h);
}
END_TEST

/* Equal periods order by samples, then by name, whatever the insertion
 * order, so rows do not jitter between refreshes. */
START_TEST(test_ties)
{
	static const struct symbol syms[] = {
		{ 0, 1, "delta" }, { 1, 2, "alpha" }, { 2, 3, "charlie" },
		{ 3, 4, "bravo" }, { 4, 5, "echo" },
	};
	static const char *const expect[] = { "alpha", "bravo", "charlie", "delta", "echo" };
	struct hist *fwd = hist_of("dso,sym"), *rev = hist_of("dso,sym");
	struct snapshot a = { 0 }, b = { 0 };
	size_t i;

	for (i = 0; i < ARRAY_SIZE(syms); i++) {
		add(fwd, "x", 1, 1, 0, dso_app, &syms[i], false, 10, 1);
		add(rev, "x", 1, 1, 0, dso_app, &syms[ARRAY_SIZE(syms) - 1 - i], false, 10, 1);
	}
	/* same period as the others but more samples: first */
	add(fwd, "x", 1, 1, 0, dso_libc, &sym_memcpy, false, 5, 2);
	add(rev, "x", 1, 1, 0, dso_libc, &sym_memcpy, false, 5, 2);
	/* same symbol name in another DSO: after app's, by dso name */
	add(fwd, "x", 1, 1, 0, dso_libc, &sym_main, false, 10, 1);
	add(rev, "x", 1, 1, 0, dso_libc, &sym_main, false, 10, 1);
	add(fwd, "x", 1, 1, 0, dso_app, &sym_main, false, 10, 1);
	add(rev, "x", 1, 1, 0, dso_app, &sym_main, false, 10, 1);

	view_build(fwd, NULL, &a);
	view_build(rev, NULL, &b);
	ck_assert_uint_eq(a.nr_rows, 8);
	ck_assert_uint_eq(b.nr_rows, 8);
	ck_assert_str_eq(a.rows[0].symbol, "memcpy");
	for (i = 0; i < 4; i++)
		ck_assert_str_eq(a.rows[1 + i].symbol, expect[i]);
	ck_assert_str_eq(a.rows[6].symbol, "main");
	ck_assert_str_eq(a.rows[6].dso, "app");
	ck_assert_str_eq(a.rows[7].symbol, "main");
	ck_assert_str_eq(a.rows[7].dso, "libc.so.6");
	ck_assert_str_eq(a.rows[5].symbol, "echo");
	for (i = 0; i < a.nr_rows; i++) {
		ck_assert_str_eq(a.rows[i].symbol, b.rows[i].symbol);
		ck_assert_str_eq(a.rows[i].dso, b.rows[i].dso);
	}
	snapshot_release(&a);
	snapshot_release(&b);
	hist_free(fwd);
	hist_free(rev);
}
END_TEST

/* With comm,pid,tid,cpu keys the tie-break runs through those too. */
START_TEST(test_ties_numeric)
{
	struct hist *h = hist_of("comm,pid,tid,cpu");
	struct snapshot snap = { 0 };

	add(h, "b", 2, 2, 0, NULL, NULL, false, 10, 1);
	add(h, "a", 9, 9, 3, NULL, NULL, false, 10, 1);
	add(h, "a", 3, 5, 1, NULL, NULL, false, 10, 1);
	add(h, "a", 3, 4, 2, NULL, NULL, false, 10, 1);
	add(h, "a", 3, 4, 1, NULL, NULL, false, 10, 1);
	view_build(h, NULL, &snap);
	ck_assert_uint_eq(snap.nr_rows, 5);
	ck_assert_str_eq(snap.rows[0].comm, "a");
	ck_assert_uint_eq(snap.rows[0].pid, 3);
	ck_assert_uint_eq(snap.rows[0].tid, 4);
	ck_assert_uint_eq(snap.rows[0].cpu, 1);
	ck_assert_uint_eq(snap.rows[1].cpu, 2);
	ck_assert_uint_eq(snap.rows[2].tid, 5);
	ck_assert_uint_eq(snap.rows[3].pid, 9);
	ck_assert_str_eq(snap.rows[4].comm, "b");
	ck_assert(snap.rows[0].has_tid && snap.rows[0].has_cpu && snap.rows[0].has_pid);
	ck_assert(!snap.rows[0].has_dso && !snap.rows[0].has_sym);
	ck_assert_ptr_null(snap.rows[0].dso);
	ck_assert_ptr_null(snap.rows[0].symbol);
	snapshot_release(&snap);
	hist_free(h);
}
END_TEST

START_TEST(test_unknown_names)
{
	struct hist *h = hist_of("dso,sym");
	struct snapshot snap = { 0 };
	size_t i;

	add(h, "x", 1, 1, 0, NULL, NULL, false, 10, 3);
	add(h, "x", 1, 1, 0, dso_libc, NULL, false, 10, 2);
	add(h, "x", 1, 1, 0, dso_libc, &sym_memcpy, false, 10, 1);
	view_build(h, NULL, &snap);
	ck_assert_uint_eq(snap.nr_rows, 3);
	ck_assert_str_eq(snap.rows[0].dso, "[unknown]");
	ck_assert_str_eq(snap.rows[0].dso_path, "[unknown]");
	ck_assert_str_eq(snap.rows[0].symbol, "[unknown]");
	ck_assert_str_eq(snap.rows[1].dso, "libc.so.6");
	ck_assert_str_eq(snap.rows[1].dso_path, "/usr/lib/libc.so.6");
	ck_assert_str_eq(snap.rows[1].symbol, "[unknown]");
	ck_assert_str_eq(snap.rows[2].symbol, "memcpy");
	for (i = 0; i < snap.nr_rows; i++)
		ck_assert(snap.rows[i].has_dso && snap.rows[i].has_sym);
	snapshot_release(&snap);
	hist_free(h);
}
END_TEST

/* comm/pid appear when keys, or when every sample agreed. */
START_TEST(test_row_fields)
{
	struct hist *h = hist_of("sym");
	struct snapshot snap = { 0 };

	add(h, "solo", 7, 8, 1, dso_app, &sym_main, false, 10, 3);
	add(h, "one", 5, 5, 1, dso_app, &sym_work, false, 10, 2);
	add(h, "two", 6, 6, 1, dso_app, &sym_work, false, 10, 2);
	add(h, "one", 5, 5, 1, dso_app, &sym_memcpy, false, 10, 1);
	add(h, "one", 9, 9, 1, dso_app, &sym_memcpy, false, 10, 1);
	view_build(h, NULL, &snap);
	ck_assert_uint_eq(snap.nr_rows, 3);

	ck_assert_str_eq(snap.rows[0].symbol, "work");
	ck_assert_ptr_null(snap.rows[0].comm);
	ck_assert(!snap.rows[0].has_pid);

	ck_assert_str_eq(snap.rows[1].symbol, "main");
	ck_assert_str_eq(snap.rows[1].comm, "solo");
	ck_assert(snap.rows[1].has_pid);
	ck_assert_uint_eq(snap.rows[1].pid, 7);
	ck_assert(!snap.rows[1].has_tid);
	ck_assert(!snap.rows[1].has_cpu);
	ck_assert(!snap.rows[1].has_dso);

	ck_assert_str_eq(snap.rows[2].symbol, "memcpy");
	ck_assert_str_eq(snap.rows[2].comm, "one");
	ck_assert(!snap.rows[2].has_pid);
	snapshot_release(&snap);
	hist_free(h);

	/* comm as a key is reported as the key */
	h = hist_of("comm");
	add(h, "k", 1, 1, 0, NULL, NULL, false, 1, 1);
	view_build(h, NULL, &snap);
	ck_assert_str_eq(snap.rows[0].comm, "k");
	ck_assert(!snap.rows[0].has_sym);
	snapshot_release(&snap);
	hist_free(h);
}
END_TEST

/* A larger table: rows strictly follow the comparator's order. */
START_TEST(test_sorted_many)
{
	struct hist *h = hist_of("pid");
	struct snapshot snap = { 0 };
	uint32_t i;
	size_t r;

	for (i = 0; i < 5000; i++)
		add(h, "p", (i * 7919) % 5000, 0, 0, NULL, NULL, false, 1 + (i * 31) % 50,
		    1 + i % 3);
	view_build(h, NULL, &snap);
	ck_assert_uint_eq(snap.nr_rows, 5000);
	for (r = 1; r < snap.nr_rows; r++) {
		const struct snapshot_row *p = &snap.rows[r - 1], *q = &snap.rows[r];

		ck_assert(p->period > q->period ||
			  (p->period == q->period &&
			   (p->samples > q->samples ||
			    (p->samples == q->samples && p->pid < q->pid))));
	}
	snapshot_release(&snap);
	hist_free(h);
}
END_TEST

/* ---- Alpha ProfileMe ---- */

/* A decoded sample: retired or not, killed or not, SL1 and PCTR1. */
static struct profileme pm_sample(bool retired, bool killed, unsigned sl1, uint32_t pctr1)
{
	struct profileme pm;
	uint64_t ctl = (retired ? 2 : 0) | (uint64_t)sl1 << 2 | (uint64_t)pctr1 << 6 |
		       (killed ? 1ULL << 26 : 0);

	profileme_from_regs(1, 0x120001000, 0, ctl, &pm);
	return pm;
}

static const struct profileme_stats *pm_of(const void *stats)
{
	return stats;
}

/* Row i's value of the column --order word names. */
static double pm_value(const struct snapshot *snap, size_t i, const char *order)
{
	return payload_value(snap->payload, snap->rows[i].payload, snap->payload_total,
			     (size_t)payload_order_column(snap->payload, order));
}

static void add_pm(struct hist *h, const struct symbol *sym, struct dso *dso,
		   const struct profileme *pm, unsigned times)
{
	struct hist_sample s = {
		.comm = intern("app"), .pid = 100, .tid = 100, .dso = dso, .sym = sym,
		.period = 1000,
	};

	while (times--)
		hist_add_payload(h, &s, pm);
}

START_TEST(test_profileme_rows)
{
	struct hist *h = hist_of("dso,sym");
	struct snapshot snap = { 0 };
	struct profileme ret = pm_sample(true, false, 1, 20), kill = pm_sample(false, true, 1, 4),
			 cyc = pm_sample(true, false, 0, 100);
	size_t i;

	hist_enable_payload(h, &profileme_payload);
	add(h, "app", 100, 100, 0, dso_libc, &sym_memcpy, false, 1000, 5); /* no payload */
	add_pm(h, &sym_main, dso_app, &ret, 6);	 /* main: 10 samples, 60% retired */
	add_pm(h, &sym_main, dso_app, &kill, 4);
	add_pm(h, &sym_work, dso_app, &ret, 1);	 /* work: 4 samples, 25% retired */
	add_pm(h, &sym_work, dso_app, &kill, 3);
	add_pm(h, &sym_work, dso_app, NULL, 2); /* and 2 not ProfileMe */
	add_pm(h, &sym_work, dso_app, &cyc, 1);	 /* SL1 0 once: 1 is the majority */
	view_build(h, NULL, &snap);
	ck_assert_ptr_eq(snap.payload, &profileme_payload);
	ck_assert(snap.payload_rows);
	ck_assert_uint_eq(snap.payload_samples, 15);
	ck_assert_uint_eq(snap.payload_other, 2);
	ck_assert_uint_eq(pm_of(snap.payload_total)->samples, 15);
	ck_assert_uint_eq(pm_of(snap.payload_total)->retired, 8);
	ck_assert_uint_eq(profileme_stats_dominant_sl1(snap.payload_total), 1);
	ck_assert_uint_eq(snap.nr_rows, 3);
	/* default order: main (10), work (7), memcpy (5) */
	ck_assert_str_eq(snap.rows[0].symbol, "main");
	ck_assert_uint_eq(pm_of(snap.rows[0].payload)->samples, 10);
	ck_assert_double_eq_tol(pm_value(&snap, 0, "retired"), 60.0, 1e-9);
	ck_assert_double_eq_tol(pm_value(&snap, 0, "pctr1"), (6 * 20 + 4 * 4) / 10.0, 1e-9);
	ck_assert_str_eq(snap.rows[1].symbol, "work");
	ck_assert_uint_eq(pm_of(snap.rows[1].payload)->other, 2);
	ck_assert_double_eq_tol(pm_value(&snap, 1, "killed"), 60.0, 1e-9);
	ck_assert_str_eq(snap.rows[2].symbol, "memcpy");
	ck_assert_uint_eq(pm_of(snap.rows[2].payload)->samples, 0);
	ck_assert(pm_value(&snap, 2, "retired") < 0);
	/* The rows' stats are the snapshot's copy, not the hist's. */
	for (i = 0; i < snap.nr_rows; i++)
		ck_assert_ptr_eq(snap.rows[i].payload,
				 snap.payload_store + i * sizeof(struct profileme_stats));
	snapshot_release(&snap);
	ck_assert_ptr_null(snap.payload_store);
	ck_assert_ptr_null(snap.payload_total);
	hist_free(h);
}
END_TEST

START_TEST(test_profileme_order)
{
	struct hist *h = hist_of("dso,sym");
	struct view_opts opts = { .order = "killed" };
	struct snapshot snap = { 0 };
	struct profileme ret = pm_sample(true, false, 1, 20), kill = pm_sample(false, true, 1, 4);
	const char *o;
	struct errmsg bad = ERRMSG_INIT;

	hist_enable_payload(h, &profileme_payload);
	add(h, "app", 100, 100, 0, dso_libc, &sym_memcpy, false, 1000, 50); /* none: last */
	add_pm(h, &sym_main, dso_app, &ret, 9);	 /* 10% killed */
	add_pm(h, &sym_main, dso_app, &kill, 1);
	add_pm(h, &sym_work, dso_app, &kill, 2); /* 100% killed */
	add_pm(h, &sym_sched, dso_kernel, &ret, 1); /* 50% */
	add_pm(h, &sym_sched, dso_kernel, &kill, 1);
	view_build(h, &opts, &snap);
	ck_assert_str_eq(snap.order, "killed");
	ck_assert_int_eq(snap.order_column, payload_order_column(&profileme_payload, "killed"));
	ck_assert_uint_eq(snap.nr_rows, 4);
	ck_assert_str_eq(snap.rows[0].symbol, "work");
	ck_assert_str_eq(snap.rows[1].symbol, "schedule");
	ck_assert_str_eq(snap.rows[2].symbol, "main");
	ck_assert_str_eq(snap.rows[3].symbol, "memcpy");
	snapshot_release(&snap);
	/* -E keeps the first rows of that order. */
	opts.max_rows = 1;
	view_build(h, &opts, &snap);
	ck_assert_uint_eq(snap.nr_rows, 1);
	ck_assert_str_eq(snap.rows[0].symbol, "work");
	snapshot_release(&snap);
	hist_free(h);

	/* --order's words: the default, and the decoders' order keys. */
	ck_assert_int_eq(view_order_parse("overhead", &o, &bad), 0);
	ck_assert_ptr_null(o);
	ck_assert_int_eq(view_order_parse("pctr1", &o, &bad), 0);
	ck_assert_str_eq(o, "pctr1");
	ck_assert_int_eq(view_order_parse("retire", &o, &bad), -EINVAL);
	/* Every decoder's keys, in the decoders' order (ProfileMe, then IBS). */
	ck_assert_pstr_eq(strstr(bad.text, "known orders: overhead, retired, killed, stalled, "
				    "mispredict, traps, icmiss, ldst, pctr1, "), bad.text);
	ck_assert_ptr_nonnull(strstr(bad.text, ", ldlat, "));
	/* and the time columns' (--wall, --off-cpu) last */
	ck_assert_ptr_nonnull(strstr(bad.text, ", on-cpu, off-cpu, runq, wall"));
}
END_TEST

START_TEST(test_profileme_x86)
{
	struct hist *h = standard_hist("dso,sym");
	struct snapshot snap = { 0 };
	size_t i;

	view_build(h, NULL, &snap);
	ck_assert_ptr_null(snap.payload);
	ck_assert(!snap.payload_rows);
	ck_assert_ptr_null(snap.payload_store);
	ck_assert_ptr_null(snap.payload_total);
	ck_assert_int_eq(snap.order_column, -1);
	for (i = 0; i < snap.nr_rows; i++)
		ck_assert_ptr_null(snap.rows[i].payload);
	snapshot_release(&snap);
	hist_free(h);
}
END_TEST

/* -s daddr_dso,daddr_sym: rows by data object, else by mapping (anon as
 * perf names it), [unknown] without a data address; other keys ignore
 * the data address, and daddr_sym alone still tells two mappings apart. */
static void add_data(struct hist *h, const struct symbol *sym, struct dso *ddso,
		     const struct symbol *dsym, unsigned times)
{
	struct hist_sample s = {
		.comm = intern("app"), .pid = 100, .tid = 100, .dso = dso_app, .sym = sym,
		.period = 1000, .ddso = ddso, .dsym = dsym,
	};

	while (times--)
		hist_add(h, &s);
}

static void data_world(struct hist *h)
{
	static const struct symbol obj_table = { 0x4040, 0x4440, "table" };
	static const struct symbol obj_count = { 0x4020, 0x4028, "counter" };
	struct dso *heap = machine_dso_get(machine, "[heap]", DSO_ANON);
	struct dso *anon = machine_dso_get(machine, "//anon", DSO_ANON);

	add_data(h, &sym_main, dso_app, &obj_table, 7);
	add_data(h, &sym_work, dso_app, &obj_table, 3);
	add_data(h, &sym_main, dso_app, &obj_count, 2);
	add_data(h, &sym_main, heap, NULL, 5);
	add_data(h, &sym_work, anon, NULL, 1);
	add_data(h, &sym_main, NULL, NULL, 4);
	add_data(h, &sym_main, dso_libc, NULL, 6);
}

START_TEST(test_daddr_rows)
{
	static const struct {
		const char *keys;
		size_t nr;
		const char *want; /* "dso/sym:samples ..." in row order */
	} cases[] = {
		{ "daddr_dso,daddr_sym", 6,
		  "app/table:10 libc.so.6/libc.so.6:6 [heap]/[heap]:5 [unknown]/[unknown]:4 "
		  "app/counter:2 anon/anon:1 " },
		{ "daddr_dso", 5,
		  "app/-:12 libc.so.6/-:6 [heap]/-:5 [unknown]/-:4 anon/-:1 " },
		{ "daddr_sym", 6,
		  "-/table:10 -/libc.so.6:6 -/[heap]:5 -/[unknown]:4 -/counter:2 -/anon:1 " },
		{ "sym", 2, "-/-:24 -/-:4 " },
	};
	size_t i, j;

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		struct hist *h = hist_of(cases[i].keys);
		struct snapshot snap = { 0 };
		char got[512] = "";

		data_world(h);
		view_build(h, NULL, &snap);
		ck_assert_uint_eq(snap.nr_rows, cases[i].nr);
		for (j = 0; j < snap.nr_rows; j++) {
			const struct snapshot_row *r = &snap.rows[j];

			ck_assert_int_eq(r->has_daddr_dso, r->daddr_dso != NULL);
			ck_assert_int_eq(r->has_daddr_sym, r->daddr_sym != NULL);
			snprintf(got + strlen(got), sizeof(got) - strlen(got), "%s/%s:%llu ",
				 r->daddr_dso ? r->daddr_dso : "-",
				 r->daddr_sym ? r->daddr_sym : "-", (unsigned long long)r->samples);
		}
		ck_assert_str_eq(got, cases[i].want);
		snapshot_release(&snap);
		hist_free(h);
	}
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("view");
	TCase *tc;

	tc = tcase_create("percentages");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_percent_sum);
	tcase_add_test(tc, test_empty);
	tcase_add_test(tc, test_header_kept);
	suite_add_tcase(s, tc);

	tc = tcase_create("filters");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_hide_kernel);
	tcase_add_test(tc, test_hide_user);
	tcase_add_test(tc, test_percent_limit);
	tcase_add_test(tc, test_max_rows);
	suite_add_tcase(s, tc);

	tc = tcase_create("order");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_ties);
	tcase_add_test(tc, test_ties_numeric);
	tcase_add_test(tc, test_sorted_many);
	suite_add_tcase(s, tc);

	tc = tcase_create("row_fields");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_unknown_names);
	tcase_add_test(tc, test_row_fields);
	suite_add_tcase(s, tc);

	tc = tcase_create("profileme");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_profileme_rows);
	tcase_add_test(tc, test_profileme_order);
	tcase_add_test(tc, test_profileme_x86);
	tcase_add_test(tc, test_daddr_rows);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return testutil_run(suite()) != 0;
}
