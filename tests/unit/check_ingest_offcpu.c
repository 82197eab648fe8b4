/* Unit tests for --off-cpu in src/ingest.c, live: sched_switch samples and
 * switch records built by hand, fed to ingest_record, and the off-CPU time
 * of the snapshot a refresh publishes. */
#include "config.h"

#include <linux/perf_event.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "errmsg.h"
#include "hist.h"
#include "ingest.h"
#include "offcpu.h"
#include "output.h"
#include "refresh.h"
#include "testutil.h"
#include "view.h"

/* prev_pid, prev_state, next_pid, as a tracefs format would place them. */
static const char format_text[] =
	"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
	"\tfield:pid_t prev_pid;\toffset:8;\tsize:4;\tsigned:1;\n"
	"\tfield:long prev_state;\toffset:16;\tsize:8;\tsigned:1;\n"
	"\tfield:pid_t next_pid;\toffset:24;\tsize:4;\tsigned:1;\n";

#define RAW_SIZE 28     /* 4 + 28: the sample ends on a word */
#define ID 7

static struct offcpu_format format;
static struct perf_event_attr attr;
static struct ingest *in;

static void feed_switch_on(uint32_t cpu, uint32_t tid, uint32_t next, uint64_t time);

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void setup(void)
{
	struct ingest_config cfg;
	struct errmsg em = ERRMSG_INIT;

	ck_assert_int_eq(offcpu_format_parse(format_text, &format, &em), 0);
	/* As event.c opens it live: the tracepoint, its times on
	 * CLOCK_MONOTONIC, switch records beside it. */
	memset(&attr, 0, sizeof(attr));
	attr.size = sizeof(attr);
	attr.type = PERF_TYPE_TRACEPOINT;
	attr.sample_period = 1;
	attr.sample_type = PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID |
			   PERF_SAMPLE_TIME | PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD |
			   PERF_SAMPLE_CALLCHAIN | PERF_SAMPLE_RAW;
	attr.sample_id_all = 1;
	attr.context_switch = 1;
	attr.use_clockid = 1;
	attr.clockid = CLOCK_MONOTONIC;
	memset(&cfg, 0, sizeof(cfg));
	ck_assert_int_eq(sort_spec_parse("comm,sym", &cfg.sort, &em), 0);
	cfg.mode = HIST_ACCUMULATE;
	cfg.live = true;
	cfg.off_cpu = &format;
	in = ingest_new(&cfg, 62 /* EM_X86_64 */);
}

static void teardown(void)
{
	ingest_free(in);
	in = NULL;
}

/* tid (its own pid) goes off the CPU at time, in state S, for next. */
static void feed_switch(uint32_t tid, uint32_t next, uint64_t time)
{
	feed_switch_on(0, tid, next, time);
}

/* tid of pid goes off cpu at time in state, for next, with chain: its
 * user ips (nr of them, the first being the sample's ip). */
static void feed_switch_chain(uint32_t cpu, uint32_t pid, uint32_t tid, uint32_t next,
			      uint64_t time, uint64_t state, const uint64_t *chain, size_t nr)
{
	uint64_t w[24];
	uint32_t size = RAW_SIZE;
	unsigned char raw[RAW_SIZE];
	struct perf_event_header *h = (void *)w;
	size_t n = 1, i;

	memset(w, 0, sizeof(w));
	memset(raw, 0, sizeof(raw));
	memcpy(raw + 8, &tid, 4);
	memcpy(raw + 16, &state, 8);
	memcpy(raw + 24, &next, 4);
	w[n++] = ID;
	w[n++] = chain[0];                            /* ip */
	w[n++] = pid | (uint64_t)tid << 32;           /* pid, tid */
	w[n++] = time;
	w[n++] = cpu;                                 /* cpu, reserved */
	w[n++] = 1;                                   /* period */
	w[n++] = nr + 1;                              /* callchain */
	w[n++] = PERF_CONTEXT_USER;
	for (i = 0; i < nr; i++)
		w[n++] = chain[i];
	memcpy(&w[n], &size, 4);
	memcpy((char *)&w[n] + 4, raw, RAW_SIZE);
	n += (4 + RAW_SIZE) / 8;
	h->type = PERF_RECORD_SAMPLE;
	h->misc = PERF_RECORD_MISC_USER;
	h->size = (uint16_t)(n * 8);
	ingest_record(in, h, &attr);
}

static void feed_switch_on(uint32_t cpu, uint32_t tid, uint32_t next, uint64_t time)
{
	static const uint64_t chain[] = { 0x401000 };

	feed_switch_chain(cpu, tid, tid, next, time, 1, chain, 1);
}

/* A system-wide switch record of tid at time: its switch-out or -in. */
static void feed_record(uint32_t tid, uint64_t time, bool out)
{
	uint64_t w[6];
	struct perf_event_header *h = (void *)w;

	memset(w, 0, sizeof(w));
	w[1] = 0;                                     /* next_prev pid, tid */
	w[2] = tid | (uint64_t)tid << 32;
	w[3] = time;
	w[4] = 0;                                     /* cpu */
	w[5] = ID;
	h->type = PERF_RECORD_SWITCH_CPU_WIDE;
	h->misc = out ? PERF_RECORD_MISC_SWITCH_OUT : 0;
	h->size = sizeof(w);
	ingest_record(in, h, &attr);
}

static bool keep_rate(struct snapshot *snap, void *ctx)
{
	*(double *)ctx = snap->offcpu_ms_per_sec;
	return false;
}

/* Off-CPU ms charged since the last refresh, a refresh of a second. */
static double refresh(void)
{
	struct ingest_header hdr = { .time = 1, .event = "sched:sched_switch" };
	struct refresh_action act = { .what = REFRESH_FULL, .interval = 1 };
	double ms = -1;

	ingest_publish(in, &hdr, &act, keep_rate, &ms);
	return ms;
}

/* Live, a thread still off the CPU is charged up to the refresh's clock,
 * whatever time a switch-out record says: those records are not read
 * (the tracepoint's sample had that switch), and a switch-in record still
 * closes its interval. */
START_TEST(test_live_switch_out_records_unread)
{
	uint64_t t0 = now_ns() - 1000000000u, before, ms;

	feed_switch(100, 0, t0);
	feed_switch(101, 0, t0);
	feed_record(101, t0, true);
	feed_record(101, t0 + 250000000u, false);
	/* A switch-out record far ahead of the clock (another thread's). */
	feed_record(102, t0 + 1000 * 1000000000ull, true);
	before = now_ns();
	ms = (uint64_t)refresh();
	/* 100's second or more so far, and 101's 250 ms. */
	ck_assert_uint_ge(ms, (before - t0) / 1000000 + 250);
	ck_assert_uint_le(ms, (now_ns() - t0) / 1000000 + 250 + 1);
}
END_TEST

static bool keep_snap(struct snapshot *snap, void *ctx)
{
	struct snapshot *out = ctx;

	out->offcpu_ms_per_sec = snap->offcpu_ms_per_sec;
	out->offcpu_dropped = snap->offcpu_dropped;
	out->offcpu_holes_on = snap->offcpu_holes_on;
	out->offcpu_holes = snap->offcpu_holes;
	out->offcpu_holes_closed = snap->offcpu_holes_closed;
	out->offcpu_holes_idle = snap->offcpu_holes_idle;
	out->offcpu_watches = snap->offcpu_watches;
	return false;
}

/* Live system-wide without switch records: an idle task's missing
 * switch-out asks for its CPU's records; while open, they close the
 * intervals the samples cannot; before, the interval is dropped; the idle
 * task's switch-out sampled again closes them.  Other CPUs' chains are
 * their own. */
START_TEST(test_holes_cpu_watch)
{
	struct ingest_header hdr = { .time = 1, .event = "sched:sched_switch" };
	struct refresh_action act = { .what = REFRESH_FULL, .interval = 1 };
	struct snapshot snap = { 0 };
	uint64_t t0 = now_ns() - 1000000000u, ms = 1000000;
	uint32_t cpu;
	bool on;

	ingest_offcpu_watch_holes(in);
	feed_switch(30, 0, t0);
	feed_switch_on(1, 40, 41, t0);             /* CPU 1: no hole after it */
	/* 30 back on at 100 ms, unsampled (the idle task's switch-out), and
	 * off again at 200: its first interval's end is unknown. */
	feed_switch(30, 0, t0 + 200 * ms);
	ck_assert(ingest_offcpu_hole_next(in, &cpu, &on));
	ck_assert_uint_eq(cpu, 0);
	ck_assert(on);
	ck_assert(!ingest_offcpu_hole_next(in, &cpu, &on));
	ingest_offcpu_cpu_watched(in, 0, true);
	/* Now the CPU's switch record has the switch-in: 200 to 300 ms. */
	feed_record(30, t0 + 300 * ms, false);
	feed_switch(30, 0, t0 + 400 * ms);
	feed_switch_on(1, 41, 40, t0 + 400 * ms);
	/* The idle task's switch-out sampled: 400 to 500 ms, and close. */
	feed_switch(0, 30, t0 + 500 * ms);
	ck_assert(ingest_offcpu_hole_next(in, &cpu, &on));
	ck_assert_uint_eq(cpu, 0);
	ck_assert(!on);
	ck_assert(!ingest_offcpu_hole_next(in, &cpu, &on));
	ingest_offcpu_cpu_watched(in, 0, false);
	feed_switch(30, 31, t0 + 600 * ms);
	feed_switch(31, 30, t0 + 700 * ms);        /* 30: 600 to 700 ms */
	ingest_publish(in, &hdr, &act, keep_snap, &snap);
	ck_assert(snap.offcpu_holes_on);
	ck_assert_uint_eq(snap.offcpu_holes, 2);
	ck_assert_uint_eq(snap.offcpu_holes_idle, 2);
	ck_assert_uint_eq(snap.offcpu_holes_closed, 1);
	ck_assert_uint_eq(snap.offcpu_watches, 1);
	ck_assert_uint_eq(snap.offcpu_dropped, 1);
	/* 30's 100 + 100 + 100 ms, 40's 400, and 31 and 41 still off: from
	 * 700 and 400 ms up to the refresh's clock (about 300 and 600 ms). */
	ck_assert_uint_ge((uint64_t)snap.offcpu_ms_per_sec, 300 + 400 + 300 + 600);
	ck_assert_uint_le((uint64_t)snap.offcpu_ms_per_sec, 300 + 400 + 300 + 600 + 50);
}
END_TEST

/* A COMM record (a rename, not an exec) of tid of pid at time. */
static void feed_comm(uint32_t pid, uint32_t tid, const char *comm, uint64_t time)
{
	uint64_t w[8];
	struct perf_event_header *h = (void *)w;

	memset(w, 0, sizeof(w));
	w[1] = pid | (uint64_t)tid << 32;
	strncpy((char *)&w[2], comm, 15);
	w[4] = pid | (uint64_t)tid << 32;             /* sample_id: pid, tid */
	w[5] = time;
	w[6] = 0;                                     /* cpu */
	w[7] = ID;
	h->type = PERF_RECORD_COMM;
	h->size = sizeof(w);
	ingest_record(in, h, &attr);
}

/* An EXIT record of tid of pid at time. */
static void feed_exit(uint32_t pid, uint32_t tid, uint64_t time)
{
	uint64_t w[8];
	struct perf_event_header *h = (void *)w;

	memset(w, 0, sizeof(w));
	w[1] = pid | (uint64_t)pid << 32;             /* pid, ppid */
	w[2] = tid | (uint64_t)pid << 32;             /* tid, ptid */
	w[3] = time;
	w[4] = pid | (uint64_t)tid << 32;
	w[5] = time;
	w[6] = 0;
	w[7] = ID;
	h->type = PERF_RECORD_EXIT;
	h->size = sizeof(w);
	ingest_record(in, h, &attr);
}

static bool render_snap(struct snapshot *snap, void *ctx)
{
	FILE *f = ctx;

	output_json(f, snap);
	output_folded(f, snap);
	return false;
}

/* The same switches through an ingest with runs or without: every
 * refresh's JSON (rows, counts, trees) and folded stacks, and in *in_runs
 * the intervals counted into runs.  Three threads take turns on two CPUs,
 * each going off with the chain it had the last few times (runs of about
 * 7; one thread with either of two in turn), sometimes preempted
 * (runnable: [runqueue]); four refreshes with
 * decay between; a thread renamed, one exiting while off (closed at its
 * exit) and one while on, each replaced by a new thread. */
static char *offcpu_script(bool runs, uint64_t *in_runs)
{
	static const uint64_t chains[4][4] = {
		{ 0x401000 },
		{ 0x401100, 0x402000 },
		{ 0x401200, 0x402000, 0x403000 },
		{ 0x401000, 0x402100, 0x403100, 0x404000 },
	};
	struct ingest_config cfg;
	struct errmsg em = ERRMSG_INIT;
	struct ingest_header hdr = { .time = 1, .event = "sched:sched_switch" };
	struct refresh_action act = { .what = REFRESH_FULL, .interval = 1 };
	uint32_t pids[3] = { 100, 100, 102 }, tids[3] = { 100, 101, 102 };
	uint64_t t = 1000000000u;
	char *buf = NULL;
	size_t len = 0, k;
	FILE *f = open_memstream(&buf, &len);

	ck_assert_ptr_nonnull(f);
	ingest_free(in);
	/* Times from the switches alone: no clock at the refreshes. */
	attr.use_clockid = 0;
	memset(&cfg, 0, sizeof(cfg));
	ck_assert_int_eq(sort_spec_parse("comm,pid,tid,cpu,sym", &cfg.sort, &em), 0);
	cfg.mode = HIST_DECAY;
	cfg.callchain = true;
	cfg.view.tree_rows = 100;
	cfg.view.stacks = true;
	cfg.off_cpu = &format;
	in = ingest_new(&cfg, 62 /* EM_X86_64 */);
	ingest_offcpu_test_runs(in, runs);
	for (k = 0; k < 200; k++) {
		/* Thread 0 takes turns between two chains (two runs). */
		size_t i = k % 3, c = (k / 20 + i + (i ? 0 : k / 3 % 2)) % 4;

		if (k == 60)
			feed_comm(100, 101, "renamed", t);
		if (k == 132) {
			/* tids[2] went off at k = 131. */
			feed_exit(pids[2], tids[2], t);
			pids[2] = tids[2] = 103;
		}
		if (k == 172) {
			/* tids[1] came on at k = 171. */
			feed_exit(pids[1], tids[1], t);
			pids[1] = tids[1] = 104;
		}
		feed_switch_chain((k / 29) % 2, pids[i], tids[i], tids[(i + 1) % 3], t,
				  (k / 23) % 3 ? 1 : 0, chains[c], c + 1);
		t += 1000 + (k * 37) % 101;
		if (k == 40 || k == 90 || k == 150 || k == 199)
			ingest_publish(in, &hdr, &act, render_snap, f);
	}
	fclose(f);
	*in_runs = ingest_offcpu_test_runs(in, runs);
	return buf;
}

/* Intervals of one key charged at once as a run give every row, count,
 * tree and stack that charging them one by one gives, across refreshes
 * with decay, a rename and exits. */
START_TEST(test_runs_same_as_alone)
{
	uint64_t with_runs, without;
	char *a = offcpu_script(false, &without);
	char *b = offcpu_script(true, &with_runs);

	ck_assert_uint_eq(without, 0);
	/* Most intervals go into runs. */
	ck_assert_uint_ge(with_runs, 80);
	ck_assert_ptr_nonnull(strstr(a, "renamed"));
	ck_assert_ptr_nonnull(strstr(a, "[runqueue]"));
	/* Whole, not through ck_assert_str_eq: its message is too short. */
	ck_assert_msg(!strcmp(a, b), "runs change the output");
	free(a);
	free(b);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("ingest_offcpu");
	TCase *tc = tcase_create("live");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_live_switch_out_records_unread);
	tcase_add_test(tc, test_holes_cpu_watch);
	tcase_add_test(tc, test_runs_same_as_alone);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return testutil_run(suite()) != 0;
}
