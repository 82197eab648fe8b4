/* Unit tests for samples on the unwinder's queue across their process's
 * exec (unwind_queue_exec): those queued before it come back with the maps
 * and thread name they were taken under, and are named from them
 * (machine_resolve_map), while the machine already has the new program's;
 * those after it have none.  Driven by hand, the thread running. */
#include "config.h"

#include <check.h>
#include <elf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "dso.h"
#include "errmsg.h"
#include "hist.h"
#include "ingest.h"
#include "machine.h"
#include "offcpu.h"
#include "record.h"
#include "refresh.h"
#include "testutil.h"
#include "unwind-queue.h"
#include "unwind-test.h"
#include "unwind.h"
#include "unwind-fixture.h"
#include "view.h"

#if defined(__x86_64__)

#define BASE 0x400000ULL
#define PID 5151

/* Two programs every Debian system has, told apart by their DSO's name. */
static const char before[] = "/bin/sh", after[] = "/usr/bin/env";

static void map(struct machine *m, const char *path)
{
	uw_map(m, PID, BASE, path);
}

static void comm(struct machine *m, const char *name, bool exec)
{
	struct comm_event ev = { PID, PID, exec, name };

	machine_comm(m, &ev);
}

/* 32 bytes of stack copied, as these tests' samples had. */
static void walk_init(struct uw_walk *w, uint64_t ip)
{
	uw_walk_init(w, PID, ip, 4 * sizeof(uint64_t));
}

/* Three samples before the exec, one after: the three are named from the
 * old program's map, with its name; the machine names the pc from the new
 * one's. */
START_TEST(test_exec_keeps_maps)
{
	struct machine *m = machine_new();
	struct unwind_queue *q;
	const struct perf_event_attr *attr;
	const struct sample *s;
	struct uw_walk w;
	struct resolved r;
	struct dso *old_dso;
	int i, n = 0;

	map(m, before);
	comm(m, "sh", false);
	machine_resolve(m, PID, PID, PERF_RECORD_MISC_USER, BASE + 0x100, &r);
	ck_assert_ptr_nonnull(r.dso);
	old_dso = r.dso;
	q = unwind_queue_new(m, EM_X86_64, 16);
	ck_assert_ptr_nonnull(q);
	walk_init(&w, BASE + 0x100);
	for (i = 0; i < 3; i++)
		ck_assert_int_eq(unwind_queue_submit(q, &w.s, &w.attr, 8), 0);
	unwind_queue_exec(q, PID);
	comm(m, "env", true);
	map(m, after);
	unwind_queue_forget(q, PID);
	ck_assert_int_eq(unwind_queue_submit(q, &w.s, &w.attr, 8), 0);
	machine_resolve(m, PID, PID, PERF_RECORD_MISC_USER, BASE + 0x100, &r);
	ck_assert_ptr_ne(r.dso, old_dso);
	while ((s = unwind_queue_next(q, &attr, true))) {
		const struct unwind_map *maps;
		const char *name = NULL;
		size_t nmaps = 0;

		maps = unwind_queue_old_maps(q, &nmaps, &name);
		if (n++ == 3) {
			ck_assert_ptr_null(maps);
			continue;
		}
		ck_assert_ptr_nonnull(maps);
		ck_assert_uint_eq(nmaps, 1);
		ck_assert_ptr_eq(maps[0].dso, old_dso);
		ck_assert_str_eq(name, "sh");
		ck_assert_ptr_eq(unwind_maps_find(maps, nmaps, s->ip), &maps[0]);
		ck_assert_ptr_null(unwind_maps_find(maps, nmaps, BASE + 0x10000));
		machine_resolve_map(m, maps[0].start, maps[0].end, maps[0].pgoff, maps[0].dso, s->ip,
				    &r);
		ck_assert_ptr_eq(r.dso, old_dso);
	}
	ck_assert_int_eq(n, 4);
	unwind_queue_free(q);
	machine_free(m);
}
END_TEST

/* An exec with nothing queued keeps nothing; the queue freed with old
 * maps still held lets them go (leak checkers). */
START_TEST(test_exec_nothing_queued)
{
	struct machine *m = machine_new();
	struct unwind_queue *q;
	const struct perf_event_attr *attr;
	struct uw_walk w;

	map(m, before);
	q = unwind_queue_new(m, EM_X86_64, 16);
	unwind_queue_exec(q, PID);
	walk_init(&w, BASE + 0x100);
	ck_assert_int_eq(unwind_queue_submit(q, &w.s, &w.attr, 8), 0);
	ck_assert_ptr_nonnull(unwind_queue_next(q, &attr, true));
	{
		size_t n;
		const char *name;

		ck_assert_ptr_null(unwind_queue_old_maps(q, &n, &name));
	}
	ck_assert_int_eq(unwind_queue_submit(q, &w.s, &w.attr, 8), 0);
	ck_assert_int_eq(unwind_queue_submit(q, &w.s, &w.attr, 8), 0);
	unwind_queue_exec(q, PID);
	unwind_queue_free(q);
	machine_free(m);
}
END_TEST

/* ---- through ingest, live ---- */

static struct perf_event_attr uattr = {
	.size = sizeof(struct perf_event_attr),
	.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_PERIOD |
		       PERF_SAMPLE_CALLCHAIN | PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER,
	.sample_regs_user = 0xff0fff,
	.sample_stack_user = 32,
	.exclude_callchain_user = 1,
};

/* Append the string s, NUL-padded to whole words, at w[*n]. */
static void put_str(uint64_t *w, size_t *n, const char *s)
{
	size_t len = strlen(s) + 1, words = (len + 7) / 8;

	memset(&w[*n], 0, words * 8);
	memcpy(&w[*n], s, len);
	*n += words;
}

static void feed(struct ingest *in, uint64_t *w, size_t n, uint32_t type, uint16_t misc)
{
	struct perf_event_header *h = (void *)w;

	h->type = type;
	h->misc = misc;
	h->size = (uint16_t)(n * 8);
	ingest_record(in, h, &uattr);
}

static void feed_mmap_of(struct ingest *in, uint32_t pid, const char *path)
{
	uint64_t w[32];
	size_t n = 1;

	w[n++] = pid | (uint64_t)pid << 32;
	w[n++] = BASE;
	w[n++] = 0x10000;
	w[n++] = 0;
	put_str(w, &n, path);
	feed(in, w, n, PERF_RECORD_MMAP, PERF_RECORD_MISC_USER);
}

static void feed_comm_of(struct ingest *in, uint32_t pid, const char *name, bool exec)
{
	uint64_t w[8];
	size_t n = 1;

	w[n++] = pid | (uint64_t)pid << 32;
	put_str(w, &n, name);
	feed(in, w, n, PERF_RECORD_COMM, exec ? PERF_RECORD_MISC_COMM_EXEC : 0);
}

static void feed_mmap(struct ingest *in, const char *path)
{
	feed_mmap_of(in, PID, path);
}

static void feed_comm(struct ingest *in, const char *name, bool exec)
{
	feed_comm_of(in, PID, name, exec);
}

static void feed_sample(struct ingest *in, uint64_t ip)
{
	uint64_t w[64];
	size_t n = 1, i;

	w[n++] = ip;
	w[n++] = PID | (uint64_t)PID << 32;
	w[n++] = 1;                                   /* period */
	w[n++] = 0;                                   /* no kernel frames */
	w[n++] = PERF_SAMPLE_REGS_ABI_64;
	for (i = 0; i < 20; i++)
		w[n++] = i == 7 ? 0x7ff000000000ULL : i == 8 ? ip : 0;
	w[n++] = 32;                                  /* the stack copy */
	for (i = 0; i < 4; i++)
		w[n++] = 0;
	w[n++] = 32;
	feed(in, w, n, PERF_RECORD_SAMPLE, PERF_RECORD_MISC_USER);
}

/* A live ingest of comm,dso rows (off-CPU ones with format, if not NULL),
 * PID running before. */
static struct ingest *live_ingest(struct ingest_config *cfg, struct offcpu_format *format)
{
	struct errmsg em = ERRMSG_INIT;
	struct ingest *in;

	memset(cfg, 0, sizeof(*cfg));
	ck_assert_int_eq(sort_spec_parse("comm,dso", &cfg->sort, &em), 0);
	cfg->mode = HIST_ACCUMULATE;
	cfg->live = true;
	cfg->off_cpu = format;
	in = ingest_new(cfg, EM_X86_64);
	ck_assert_ptr_nonnull(in);
	feed_mmap(in, before);
	feed_comm(in, "sh", false);
	return in;
}

/* PID execs after while what it queued waits, the unwinder held since
 * before it was fed; then the unwinder goes on. */
static void exec_while_held(struct ingest *in)
{
	feed_comm(in, "env", true);
	feed_mmap(in, after);
	unwind_queue_test_hold(false);
}

struct seen {
	uint64_t samples;
	char comm[32], dso[32];
	bool mixed;
};

static bool keep_rows(struct snapshot *snap, void *ctx)
{
	struct seen *s = ctx;
	size_t i;

	memset(s, 0, sizeof(*s));
	for (i = 0; i < snap->nr_rows; i++) {
		const struct snapshot_row *r = &snap->rows[i];

		if (!r->samples)
			continue;
		if (s->samples && (strcmp(s->comm, r->comm ? r->comm : "") ||
				   strcmp(s->dso, r->dso ? r->dso : "")))
			s->mixed = true;
		snprintf(s->comm, sizeof(s->comm), "%s", r->comm ? r->comm : "");
		snprintf(s->dso, sizeof(s->dso), "%s", r->dso ? r->dso : "");
		s->samples += r->samples;
	}
	return false;
}

/* Live, samples the unwinder has not walked yet when their process execs:
 * their rows are the old program's (its name and DSO), not the new one's
 * the machine has by the time they come back. */
START_TEST(test_ingest_exec)
{
	struct ingest_config cfg;
	struct ingest_header hdr = { .time = 1, .event = "cpu-clock" };
	struct refresh_action act = { .what = REFRESH_FULL, .interval = 1 };
	struct ingest *in = live_ingest(&cfg, NULL);
	struct seen seen;
	int i;

	unwind_queue_test_hold(true);
	for (i = 0; i < 3; i++)
		feed_sample(in, BASE + 0x100);
	exec_while_held(in);
	/* Until the symbols' loader has let every sample in. */
	for (i = 0; i < 500; i++) {
		ingest_publish(in, &hdr, &act, keep_rows, &seen);
		if (seen.samples >= 3)
			break;
		usleep(10000);
	}
	ck_assert_uint_eq(seen.samples, 3);
	ck_assert(!seen.mixed);
	ck_assert_str_eq(seen.comm, "sh");
	ck_assert_str_eq(seen.dso, "sh");
	ingest_free(in);
}
END_TEST

/* ---- --off-cpu: a switch unwound after its process's exec ---- */

#define OTHER 6161

/* prev_pid, prev_state, next_pid, as a tracefs format would place them. */
static const char switch_format[] =
	"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
	"\tfield:pid_t prev_pid;\toffset:8;\tsize:4;\tsigned:1;\n"
	"\tfield:long prev_state;\toffset:16;\tsize:8;\tsigned:1;\n"
	"\tfield:pid_t next_pid;\toffset:24;\tsize:4;\tsigned:1;\n";

/* sched_switch with --call-graph dwarf, as event.c opens it live. */
static struct perf_event_attr sw_attr = {
	.size = sizeof(struct perf_event_attr),
	.type = PERF_TYPE_TRACEPOINT,
	.sample_period = 1,
	.sample_type = PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID |
		       PERF_SAMPLE_TIME | PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD |
		       PERF_SAMPLE_CALLCHAIN | PERF_SAMPLE_RAW | PERF_SAMPLE_REGS_USER |
		       PERF_SAMPLE_STACK_USER,
	.sample_regs_user = 0xff0fff,
	.sample_stack_user = 32,
	.exclude_callchain_user = 1,
	.use_clockid = 1,
	.clockid = CLOCK_MONOTONIC,
};

/* pid (its only thread) goes off the CPU at time, in state S, for next,
 * in user code at ip (a stack of 32 zero bytes). */
static void feed_switch(struct ingest *in, uint32_t pid, uint32_t next, uint64_t time,
			uint64_t ip)
{
	uint64_t w[64], state = 1;
	uint32_t size = 28;
	unsigned char raw[28];
	struct perf_event_header *h = (void *)w;
	size_t n = 1, i;

	memset(raw, 0, sizeof(raw));
	memcpy(raw + 8, &pid, 4);
	memcpy(raw + 16, &state, 8);
	memcpy(raw + 24, &next, 4);
	w[n++] = 7;                                   /* identifier */
	w[n++] = ip;
	w[n++] = pid | (uint64_t)pid << 32;
	w[n++] = time;
	w[n++] = 0;                                   /* cpu, reserved */
	w[n++] = 1;                                   /* period */
	w[n++] = 0;                                   /* no kernel frames */
	memcpy(&w[n], &size, 4);                      /* raw: 4 + 28 bytes */
	memcpy((char *)&w[n] + 4, raw, sizeof(raw));
	n += 4;
	w[n++] = PERF_SAMPLE_REGS_ABI_64;
	for (i = 0; i < 20; i++)
		w[n++] = i == 7 ? 0x7ff000000000ULL : i == 8 ? ip : 0;
	w[n++] = 32;
	for (i = 0; i < 4; i++)
		w[n++] = 0;
	w[n++] = 32;
	h->type = PERF_RECORD_SAMPLE;
	h->misc = PERF_RECORD_MISC_USER;
	h->size = (uint16_t)(n * 8);
	ingest_record(in, h, &sw_attr);
}

struct other_row {
	uint64_t samples;
	char dso[32];
};

static bool keep_other(struct snapshot *snap, void *ctx)
{
	struct other_row *o = ctx;
	size_t i;

	for (i = 0; i < snap->nr_rows; i++) {
		const struct snapshot_row *r = &snap->rows[i];

		if (r->samples && r->comm && !strcmp(r->comm, "other")) {
			o->samples = r->samples;
			snprintf(o->dso, sizeof(o->dso), "%s", r->dso ? r->dso : "");
		}
	}
	return false;
}

/* On one CPU, OTHER goes off for PID, then PID goes off for OTHER; both
 * switch-outs wait for the unwinder while PID execs.  PID's switch comes
 * back with PID's old maps, and ends OTHER's interval: that interval is
 * OTHER's, named from OTHER's own maps and name, never from those PID
 * had (before, it was charged under PID's old name: no "other" row). */
START_TEST(test_offcpu_other_not_under_old_maps)
{
	struct ingest_config cfg;
	struct offcpu_format format;
	struct errmsg em = ERRMSG_INIT;
	struct ingest_header hdr = { .time = 1, .event = "sched:sched_switch" };
	struct refresh_action act = { .what = REFRESH_FULL, .interval = 1 };
	struct ingest *in;
	struct other_row other;
	struct timespec ts;
	uint64_t now;
	int i;

	ck_assert_int_eq(offcpu_format_parse(switch_format, &format, &em), 0);
	in = live_ingest(&cfg, &format);
	clock_gettime(CLOCK_MONOTONIC, &ts);
	now = (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
	feed_mmap_of(in, OTHER, after);
	feed_comm_of(in, OTHER, "other", false);
	unwind_queue_test_hold(true);
	feed_switch(in, OTHER, PID, now - 2000000, BASE + 0x100);
	feed_switch(in, PID, OTHER, now - 1000000, BASE + 0x100);
	exec_while_held(in);
	memset(&other, 0, sizeof(other));
	for (i = 0; i < 200 && !other.samples; i++) {
		ingest_publish(in, &hdr, &act, keep_other, &other);
		if (!other.samples)
			usleep(10000);
	}
	ck_assert_uint_eq(other.samples, 1);
	ck_assert_str_eq(other.dso, "env");
	ingest_free(in);
}
END_TEST

#endif

int main(void)
{
	Suite *s = suite_create("unwind_exec");
	TCase *tc = tcase_create("core");

#if defined(__x86_64__)
	tcase_add_test(tc, test_exec_keeps_maps);
	tcase_add_test(tc, test_exec_nothing_queued);
	tcase_add_test(tc, test_ingest_exec);
	tcase_add_test(tc, test_offcpu_other_not_under_old_maps);
#endif
	suite_add_tcase(s, tc);
	return testutil_run(s) ? EXIT_FAILURE : EXIT_SUCCESS;
}
