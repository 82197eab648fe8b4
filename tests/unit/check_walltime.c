/* Unit tests for src/walltime.c: the time columns of --wall and
 * --off-cpu through the hist and the view as the renderers see them
 * (On-CPU + Off-CPU = Wall = Self, Runq a part of Off-CPU), --order by
 * each, decay, and the JSON of a row. */
#include "config.h"

#include <math.h>
#include <string.h>

#include "hist.h"
#include "intern.h"
#include "machine.h"
#include "strbuf.h"
#include "symtab.h"
#include "testutil.h"
#include "view.h"
#include "walltime.h"

static struct machine *machine;
static struct dso *dso_app;
static const struct symbol sym_work = { 0x1000, 0x1100, "work" };
static const struct symbol sym_read = { 0x1100, 0x1200, "read_pipe" };
static const struct symbol sym_rq = { 0, 1, "[runqueue]" };

static void setup(void)
{
	machine = machine_new();
	dso_app = machine_dso_get(machine, "/usr/bin/app", DSO_USER);
}

static void teardown(void)
{
	machine_free(machine);
	machine = NULL;
}

static void add(struct hist *h, uint32_t tid, const struct symbol *sym, enum walltime_kind k,
		uint64_t ns)
{
	struct hist_sample s = {
		.comm = intern("app"), .pid = 100, .tid = tid, .dso = dso_app, .sym = sym,
		.period = ns,
	};
	struct walltime_sample t = { k, ns, 1 };

	hist_add_payload(h, &s, &t);
}

/* Column key's value in row i. */
static double value(const struct snapshot *snap, size_t i, const char *key)
{
	int col = payload_order_column(snap->payload, key);

	ck_assert_int_ge(col, 0);
	return payload_value(snap->payload, snap->rows[i].payload, snap->payload_total,
			     (size_t)col);
}

static struct hist *wall_hist(void)
{
	struct sort_spec spec;
	struct hist *h;

	ck_assert_int_eq(sort_spec_parse("sym", &spec, NULL), 0);
	h = hist_new(&spec);
	hist_enable_payload(h, &walltime_wall);
	/* work: 100 ms on the CPU; read_pipe: 300 ms blocked, 40 ms on;
	 * [runqueue]: 60 ms waiting to run.  500 ms in all. */
	add(h, 1, &sym_work, WALLTIME_ON, 100000000);
	add(h, 1, &sym_read, WALLTIME_BLOCKED, 300000000);
	add(h, 1, &sym_read, WALLTIME_ON, 40000000);
	add(h, 2, &sym_rq, WALLTIME_RUNQ, 60000000);
	return h;
}

START_TEST(test_wall_columns)
{
	struct hist *h = wall_hist();
	struct snapshot snap = { 0 };
	size_t i;

	view_build(h, NULL, &snap);
	ck_assert(snap.payload == &walltime_wall && snap.payload_rows);
	ck_assert_uint_eq(snap.nr_rows, 3);
	ck_assert_str_eq(snap.rows[0].symbol, "read_pipe");
	ck_assert(fabs(value(&snap, 0, "on-cpu") - 8.0) < 1e-9);
	ck_assert(fabs(value(&snap, 0, "off-cpu") - 60.0) < 1e-9);
	ck_assert(fabs(value(&snap, 0, "wall") - 68.0) < 1e-9);
	ck_assert(fabs(value(&snap, 0, "runq")) < 1e-9);
	for (i = 0; i < snap.nr_rows; i++) {
		/* On + Off = Wall = Self, in every row. */
		ck_assert(fabs(value(&snap, i, "on-cpu") + value(&snap, i, "off-cpu") -
			       value(&snap, i, "wall")) < 1e-9);
		ck_assert(fabs(value(&snap, i, "wall") - snap.rows[i].self) < 1e-9);
	}
	ck_assert_str_eq(snap.rows[2].symbol, "[runqueue]");
	ck_assert(fabs(value(&snap, 2, "runq") - 12.0) < 1e-9);
	ck_assert(fabs(value(&snap, 2, "off-cpu") - 12.0) < 1e-9);
	snapshot_release(&snap);
	hist_free(h);
}
END_TEST

/* --order on-cpu puts work (20%) before read_pipe (8%); runq the
 * [runqueue] row first. */
START_TEST(test_wall_order)
{
	struct hist *h = wall_hist();
	struct snapshot snap = { 0 };
	struct view_opts opts = { 0 };

	opts.order = "on-cpu";
	view_build(h, &opts, &snap);
	ck_assert_str_eq(snap.rows[0].symbol, "work");
	ck_assert_str_eq(snap.rows[1].symbol, "read_pipe");
	snapshot_release(&snap);
	opts.order = "runq";
	memset(&snap, 0, sizeof(snap));
	view_build(h, &opts, &snap);
	ck_assert_str_eq(snap.rows[0].symbol, "[runqueue]");
	snapshot_release(&snap);
	hist_free(h);
	ck_assert(walltime_order_known("wall") && walltime_order_known("runq"));
	ck_assert(!walltime_order_known("overhead") && !walltime_order_known(NULL));
	ck_assert_str_eq(walltime_order_keys(), "on-cpu, off-cpu, runq, wall");
}
END_TEST

/* Decayed with their row (x 7/8), and a row whose sample count decayed
 * to 0 still shows its time. */
START_TEST(test_decay)
{
	struct hist *h = wall_hist();
	struct snapshot snap = { 0 };
	const struct walltime_stats *st;

	hist_age(h, HIST_DECAY);
	view_build(h, NULL, &snap);
	st = snap.rows[0].payload;
	ck_assert_uint_eq(st->blocked_ns, 300000000ull * 7 / 8);
	ck_assert_uint_eq(st->on_ns, 40000000ull * 7 / 8);
	/* [runqueue]: one sample, now 0, 52.5 ms left. */
	ck_assert_str_eq(snap.rows[2].symbol, "[runqueue]");
	ck_assert(value(&snap, 2, "runq") > 0);
	ck_assert(fabs(value(&snap, 0, "wall") - snap.rows[0].self) < 1e-9);
	snapshot_release(&snap);
	hist_free(h);
}
END_TEST

START_TEST(test_json)
{
	struct hist *h = wall_hist();
	struct snapshot snap = { 0 };
	struct strbuf sb;

	view_build(h, NULL, &snap);
	strbuf_init(&sb);
	payload_json(&sb, snap.payload, snap.rows[0].payload, snap.payload_total);
	ck_assert_str_eq(sb.buf, "{\"samples\":2,\"on_cpu_ns\":40000000,\"blocked_ns\":300000000,"
				 "\"runq_ns\":0,\"off_cpu_ns\":300000000,\"wall_ns\":340000000}");
	strbuf_release(&sb);
	snapshot_release(&snap);
	hist_free(h);
}
END_TEST

/* --off-cpu: Runq alone, a share of the off-CPU time. */
START_TEST(test_offcpu_runq)
{
	struct sort_spec spec;
	struct hist *h;
	struct snapshot snap = { 0 };

	ck_assert_int_eq(sort_spec_parse("tid", &spec, NULL), 0);
	h = hist_new(&spec);
	hist_enable_payload(h, &walltime_offcpu);
	add(h, 1, &sym_read, WALLTIME_BLOCKED, 100);
	add(h, 1, &sym_rq, WALLTIME_RUNQ, 200);
	add(h, 2, &sym_rq, WALLTIME_RUNQ, 100);
	view_build(h, NULL, &snap);
	ck_assert_uint_eq(snap.nr_rows, 2);
	ck_assert_uint_eq(snap.rows[0].tid, 1);
	ck_assert_uint_eq(walltime_offcpu.nr_columns, 1);
	ck_assert(fabs(value(&snap, 0, "runq") - 50.0) < 1e-9);
	ck_assert(fabs(value(&snap, 1, "runq") - 25.0) < 1e-9);
	snapshot_release(&snap);
	hist_free(h);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("walltime");
	TCase *tc = tcase_create("columns");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_wall_columns);
	tcase_add_test(tc, test_wall_order);
	tcase_add_test(tc, test_decay);
	tcase_add_test(tc, test_json);
	tcase_add_test(tc, test_offcpu_runq);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return testutil_run(suite()) ? 1 : 0;
}
