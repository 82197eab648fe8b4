/* Unit tests for src/offcpu.c: the sched_switch format parser and raw
 * decoder (offsets from the text, fields missing or beyond the payload),
 * and the interval bookkeeping: switch-out/in pairing with the chain kept,
 * runnable vs blocked, a thread that exits while off the CPU, a switch-in
 * never seen going out, a lost switch-in, time going backwards, and open
 * intervals charged up to a refresh. */
#include "config.h"

#include <errno.h>
#include <stdint.h>
#include <string.h>

#include "errmsg.h"
#include "offcpu.h"
#include "testutil.h"

/* A 6.x kernel's format, with the fields moved from their usual places so
 * that hard-coded offsets would fail. */
static const char format_text[] =
	"name: sched_switch\n"
	"ID: 316\n"
	"format:\n"
	"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
	"\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n"
	"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n"
	"\n"
	"\tfield:char prev_comm[16];\toffset:8;\tsize:16;\tsigned:0;\n"
	"\tfield:pid_t prev_pid;\toffset:28;\tsize:4;\tsigned:1;\n"
	"\tfield:int prev_prio;\toffset:32;\tsize:4;\tsigned:1;\n"
	"\tfield:long prev_state;\toffset:40;\tsize:8;\tsigned:1;\n"
	"\tfield:char next_comm[16];\toffset:48;\tsize:16;\tsigned:0;\n"
	"\tfield:pid_t next_pid;\toffset:64;\tsize:4;\tsigned:1;\n"
	"\tfield:int next_prio;\toffset:68;\tsize:4;\tsigned:1;\n"
	"\n"
	"print fmt: \"prev_comm=%s prev_pid=%d\", REC->prev_comm, REC->prev_pid\n";

START_TEST(test_format_parse_decode)
{
	struct offcpu_format f;
	struct errmsg em = ERRMSG_INIT;
	struct offcpu_switch sw;
	unsigned char raw[72];
	uint32_t prev = 1234, next = 5678;
	uint64_t state = 0x100;

	ck_assert_int_eq(offcpu_format_parse(format_text, &f, &em), 0);
	ck_assert_uint_eq(f.prev_pid.offset, 28);
	ck_assert_uint_eq(f.prev_state.offset, 40);
	ck_assert_uint_eq(f.prev_state.size, 8);
	ck_assert_uint_eq(f.next_pid.offset, 64);
	memset(raw, 0xee, sizeof(raw));
	memcpy(raw + 28, &prev, 4);
	memcpy(raw + 40, &state, 8);
	memcpy(raw + 64, &next, 4);
	ck_assert(offcpu_decode(&f, raw, sizeof(raw), &sw));
	ck_assert_uint_eq(sw.prev_pid, 1234);
	ck_assert_uint_eq(sw.next_pid, 5678);
	ck_assert_uint_eq(sw.prev_state, 0x100);
	/* Preempted (TASK_REPORT_MAX set, no state bit) is runnable; S, D
	 * and the idle report are not. */
	ck_assert(offcpu_state_runnable(sw.prev_state));
	ck_assert(offcpu_state_runnable(0));
	ck_assert(!offcpu_state_runnable(1));
	ck_assert(!offcpu_state_runnable(2));
	ck_assert(!offcpu_state_runnable(0x80));
	/* X and Z: a thread's last switch; S, D and preempted are not. */
	ck_assert(offcpu_state_dead(0x10));
	ck_assert(offcpu_state_dead(0x20));
	ck_assert(!offcpu_state_dead(0x1));
	ck_assert(!offcpu_state_dead(0x2));
	ck_assert(!offcpu_state_dead(0x100));
	/* next_pid ends at 68: one byte short fails, not reads past. */
	ck_assert(offcpu_decode(&f, raw, 68, &sw));
	ck_assert(!offcpu_decode(&f, raw, 67, &sw));
	ck_assert(!offcpu_decode(&f, raw, 0, &sw));
}
END_TEST

/* Fields of every size the format may give, at unaligned offsets, each
 * widened by its sign (an older kernel's short prev_state, a signed pid). */
START_TEST(test_decode_sizes)
{
	struct offcpu_format f;
	struct errmsg em = ERRMSG_INIT;
	struct offcpu_switch sw;
	unsigned char raw[16];
	int16_t state = -2;
	int8_t next = -3;
	uint32_t prev = 0x80000001u;

	ck_assert_int_eq(offcpu_format_parse(
				 "\tfield:u8 next_pid;\toffset:1;\tsize:1;\tsigned:1;\n"
				 "\tfield:short prev_state;\toffset:3;\tsize:2;\tsigned:1;\n"
				 "\tfield:u32 prev_pid;\toffset:5;\tsize:4;\tsigned:0;\n", &f, &em), 0);
	memset(raw, 0, sizeof(raw));
	memcpy(raw + 1, &next, 1);
	memcpy(raw + 3, &state, 2);
	memcpy(raw + 5, &prev, 4);
	ck_assert(offcpu_decode(&f, raw, sizeof(raw), &sw));
	ck_assert_uint_eq(sw.next_pid, (uint32_t)-3);
	ck_assert_uint_eq(sw.prev_state, (uint64_t)-2);
	ck_assert_uint_eq(sw.prev_pid, 0x80000001u);
	f.prev_state.is_signed = false;
	f.next_pid.is_signed = false;
	ck_assert(offcpu_decode(&f, raw, sizeof(raw), &sw));
	ck_assert_uint_eq(sw.prev_state, 0xfffe);
	ck_assert_uint_eq(sw.next_pid, 0xfd);
	/* prev_pid ends at 9. */
	ck_assert(offcpu_decode(&f, raw, 9, &sw));
	ck_assert(!offcpu_decode(&f, raw, 8, &sw));
}
END_TEST

START_TEST(test_format_bad)
{
	struct offcpu_format f;
	struct errmsg em = ERRMSG_INIT;
	int err;

	err = offcpu_format_parse("\tfield:pid_t prev_pid;\toffset:24;\tsize:4;\tsigned:1;\n"
				  "\tfield:pid_t next_pid;\toffset:56;\tsize:4;\tsigned:1;\n", &f, &em);
	ck_assert_int_lt(err, 0);
	ck_assert(strstr(errmsg_text(&em, err), "prev_state") != NULL);
	err = offcpu_format_parse("\tfield:pid_t prev_pid;\toffset:24;\tsize:3;\tsigned:1;\n", &f,
				  &em);
	ck_assert_int_lt(err, 0);
	ck_assert_int_lt(offcpu_format_parse("", &f, &em), 0);
	ck_assert_int_lt(offcpu_format_parse("field:pid_t prev_pid;", &f, &em), 0);
	/* Offsets far beyond any payload parse, and then fail to decode. */
	ck_assert_int_eq(offcpu_format_parse(
				 "\tfield:pid_t prev_pid;\toffset:4000000000;\tsize:4;\tsigned:1;\n"
				 "\tfield:long prev_state;\toffset:8;\tsize:8;\tsigned:1;\n"
				 "\tfield:pid_t next_pid;\toffset:16;\tsize:4;\tsigned:1;\n", &f, &em), 0);
	{
		unsigned char raw[64] = { 0 };
		struct offcpu_switch sw;

		ck_assert(!offcpu_decode(&f, raw, sizeof(raw), &sw));
	}
}
END_TEST

/* A recording's tracing data: other formats around sched_switch's, with
 * binary sizes between; truncated inside its fields, or without it. */
START_TEST(test_format_from_tracing)
{
	static const char other[] = "name: sched_wakeup\nID: 317\nformat:\n"
		"\tfield:pid_t pid;\toffset:24;\tsize:4;\tsigned:1;\n"
		"print fmt: \"pid=%d\", REC->pid\n";
	unsigned char data[4096];
	struct offcpu_format f;
	struct errmsg em = ERRMSG_INIT;
	size_t n = 0, at;
	int err;

	memcpy(data + n, "\x17\x08\x44tracing0.6", 13);
	n += 13;
	memcpy(data + n, other, sizeof(other) - 1);
	n += sizeof(other) - 1;
	memset(data + n, 0, 8);
	data[n] = (unsigned char)(sizeof(format_text) - 1);
	n += 8;
	at = n;
	memcpy(data + n, format_text, sizeof(format_text) - 1);
	n += sizeof(format_text) - 1;
	memcpy(data + n, other, sizeof(other) - 1);
	n += sizeof(other) - 1;
	ck_assert_int_eq(offcpu_format_from_tracing(data, n, &f, &em), 0);
	ck_assert_uint_eq(f.prev_state.offset, 40);
	ck_assert_uint_eq(f.next_pid.offset, 64);
	/* Cut before next_pid's line: the field is missing, said so. */
	err = offcpu_format_from_tracing(data, at + (size_t)(strstr(format_text, "\tfield:pid_t next_pid") -
							  format_text), &f, &em);
	ck_assert_int_eq(err, -EINVAL);
	ck_assert(strstr(errmsg_text(&em, err), "next_pid") != NULL);
	/* Cut inside the name: not found. */
	ck_assert_int_eq(offcpu_format_from_tracing(data, at + 10, &f, &em), -ENOENT);
	ck_assert_int_eq(offcpu_format_from_tracing(NULL, 0, &f, &em), -ENOENT);
}
END_TEST

static void out_at(struct offcpu *o, uint32_t tid, uint64_t t, bool runnable,
		   const uint64_t *chain, uint64_t n)
{
	struct offcpu_interval at;

	memset(&at, 0, sizeof(at));
	at.pid = 100;
	at.tid = tid;
	at.cpu = 1;
	at.start = t;
	at.runnable = runnable;
	at.ip = 0xffffffff81000000ull;
	at.chain = chain;
	at.nr_chain = n;
	ck_assert(!offcpu_out(o, &at, &at));
}

START_TEST(test_pairing)
{
	struct offcpu *o = offcpu_new();
	struct offcpu_interval iv;
	uint64_t chain_a[3] = { 1, 2, 3 }, chain_b[2] = { 7, 8 };

	out_at(o, 11, 1000, false, chain_a, 3);
	out_at(o, 12, 1500, true, chain_b, 2);
	/* The caller's buffer is reused: the tracker kept its own copy. */
	chain_a[0] = chain_a[1] = chain_a[2] = 99;
	ck_assert(offcpu_in(o, 11, 4000, &iv));
	ck_assert_uint_eq(iv.tid, 11);
	ck_assert_uint_eq(iv.pid, 100);
	ck_assert_uint_eq(iv.start, 1000);
	ck_assert_uint_eq(iv.end, 4000);
	ck_assert(!iv.runnable);
	ck_assert_uint_eq(iv.nr_chain, 3);
	ck_assert_uint_eq(iv.chain[0], 1);
	ck_assert_uint_eq(iv.chain[2], 3);
	/* Closed once: a second switch-in is unmatched. */
	ck_assert(!offcpu_in(o, 11, 5000, &iv));
	ck_assert(offcpu_in(o, 12, 1600, &iv));
	ck_assert(iv.runnable);
	ck_assert_uint_eq(iv.end - iv.start, 100);
	ck_assert_uint_eq(iv.chain[1], 8);
	ck_assert_uint_eq(offcpu_stats(o)->blocked_ns, 3000);
	ck_assert_uint_eq(offcpu_stats(o)->runnable_ns, 100);
	ck_assert_uint_eq(offcpu_stats(o)->intervals, 2);
	ck_assert_uint_eq(offcpu_stats(o)->unmatched_in, 1);
	/* Never seen going out. */
	ck_assert(!offcpu_in(o, 77, 5000, &iv));
	ck_assert_uint_eq(offcpu_stats(o)->unmatched_in, 2);
	offcpu_free(o);
}
END_TEST

START_TEST(test_exit_and_lost)
{
	struct offcpu *o = offcpu_new();
	struct offcpu_interval iv;
	uint64_t chain[1] = { 5 };

	/* Exits while off the CPU: closed at the exit. */
	out_at(o, 21, 100, false, chain, 1);
	ck_assert(offcpu_exit(o, 21, 900, &iv));
	ck_assert_uint_eq(iv.end - iv.start, 800);
	ck_assert_uint_eq(offcpu_stats(o)->exited, 1);
	/* Exits on the CPU: nothing to close. */
	ck_assert(!offcpu_exit(o, 21, 1000, &iv));
	/* Out twice: the first interval's end was lost, dropped. */
	out_at(o, 22, 100, false, chain, 1);
	out_at(o, 22, 500, false, chain, 1);
	ck_assert_uint_eq(offcpu_stats(o)->dropped, 1);
	ck_assert(offcpu_in(o, 22, 600, &iv));
	ck_assert_uint_eq(iv.start, 500);
	/* Out of order: an end before the start is dropped, not charged. */
	out_at(o, 23, 1000, false, chain, 1);
	ck_assert(!offcpu_in(o, 23, 900, &iv));
	ck_assert_uint_eq(offcpu_stats(o)->dropped, 2);
	ck_assert_uint_eq(offcpu_stats(o)->blocked_ns, 900);
	offcpu_free(o);
}
END_TEST

/* System-wide, a switch-out read after its switch-in (the rings are
 * drained each up to where it is, so another CPU's record can come a drain
 * late): closed at that switch-in, not lost, nothing dropped. */
START_TEST(test_reordered)
{
	struct offcpu *o = offcpu_new();
	struct offcpu_interval iv, at;
	uint64_t chain[2] = { 4, 5 };

	out_at(o, 31, 1000, false, chain, 2);
	ck_assert(offcpu_in(o, 31, 2000, &iv));
	/* In at 3500 read first: unmatched for now. */
	ck_assert(!offcpu_in(o, 31, 3500, &iv));
	ck_assert_uint_eq(offcpu_stats(o)->unmatched_in, 1);
	memset(&at, 0, sizeof(at));
	at.tid = 31;
	at.start = 3000;
	at.runnable = true;
	at.chain = chain;
	at.nr_chain = 2;
	chain[0] = 6;
	ck_assert(offcpu_out(o, &at, &iv));
	ck_assert_uint_eq(iv.start, 3000);
	ck_assert_uint_eq(iv.end, 3500);
	ck_assert(iv.runnable);
	ck_assert_uint_eq(iv.chain[0], 6);
	ck_assert_uint_eq(offcpu_stats(o)->unmatched_in, 0);
	ck_assert_uint_eq(offcpu_stats(o)->reordered, 1);
	ck_assert_uint_eq(offcpu_stats(o)->runnable_ns, 500);
	/* Back on the CPU: the next switch-out opens an interval as usual. */
	out_at(o, 31, 4000, false, chain, 2);
	ck_assert(offcpu_in(o, 31, 4500, &iv));
	ck_assert_uint_eq(iv.start, 4000);
	ck_assert_uint_eq(offcpu_stats(o)->dropped, 0);
	/* An old unmatched switch-in does not close a later switch-out. */
	ck_assert(!offcpu_in(o, 31, 5000, &iv));
	out_at(o, 31, 6000, false, chain, 2);
	ck_assert(offcpu_in(o, 31, 6100, &iv));
	ck_assert_uint_eq(iv.end - iv.start, 100);
	/* A thread never seen going out gets no entry from a switch-in. */
	ck_assert(!offcpu_in(o, 99, 7000, &iv));
	ck_assert_uint_eq(offcpu_threads(o), 1);
	offcpu_free(o);
}
END_TEST

/* Exited threads are forgotten (pid churn keeps the table bounded), and
 * the others stay found as entries move. */
START_TEST(test_exit_forgets)
{
	struct offcpu *o = offcpu_new();
	struct offcpu_interval iv;
	uint64_t chain[2];
	uint32_t tid;

	for (tid = 1; tid <= 300; tid++) {
		chain[0] = tid;
		chain[1] = tid * 10;
		out_at(o, tid, 1000, false, chain, 2);
	}
	ck_assert_uint_eq(offcpu_threads(o), 300);
	/* Exit the odd ones, some back on the CPU first. */
	for (tid = 1; tid <= 300; tid += 2) {
		if (tid % 3 == 0) {
			ck_assert(offcpu_in(o, tid, 1500, &iv));
			ck_assert(!offcpu_exit(o, tid, 2000, &iv));
		} else {
			ck_assert(offcpu_exit(o, tid, 2000, &iv));
			ck_assert_uint_eq(iv.tid, tid);
			ck_assert_uint_eq(iv.chain[0], tid);
			ck_assert_uint_eq(iv.chain[1], tid * 10);
		}
	}
	ck_assert_uint_eq(offcpu_threads(o), 150);
	ck_assert(!offcpu_exit(o, 1, 3000, &iv));
	for (tid = 2; tid <= 300; tid += 2) {
		ck_assert(offcpu_in(o, tid, 4000, &iv));
		ck_assert_uint_eq(iv.chain[0], tid);
		ck_assert_uint_eq(iv.end - iv.start, 3000);
	}
	/* A tid reused after its exit starts afresh. */
	ck_assert(!offcpu_in(o, 5, 4000, &iv));
	out_at(o, 5, 5000, true, chain, 1);
	ck_assert(offcpu_in(o, 5, 5100, &iv));
	ck_assert(iv.runnable);
	offcpu_free(o);
}
END_TEST

START_TEST(test_open_at_refresh)
{
	struct offcpu *o = offcpu_new();
	struct offcpu_interval iv;
	uint64_t chain[2] = { 1, 2 };
	size_t at = 0, n = 0;
	uint32_t tid;

	for (tid = 1; tid <= 100; tid++)
		out_at(o, tid, 1000, tid % 2, chain, 2);
	ck_assert(offcpu_in(o, 50, 1500, &iv));
	/* 99 still off: each charged up to the refresh, once. */
	while (offcpu_next_open(o, &at, 3000, &iv)) {
		ck_assert_uint_eq(iv.start, 1000);
		ck_assert_uint_eq(iv.end, 3000);
		ck_assert_uint_ne(iv.tid, 50);
		n++;
	}
	ck_assert_uint_eq(n, 99);
	/* ... and continuing from there. */
	ck_assert(offcpu_in(o, 7, 3500, &iv));
	ck_assert_uint_eq(iv.start, 3000);
	ck_assert_uint_eq(iv.end, 3500);
	at = 0;
	n = 0;
	while (offcpu_next_open(o, &at, 3000, &iv))
		n++;
	ck_assert_uint_eq(n, 0);
	/* A switch-in read after the refresh but earlier than it: closed,
	 * nothing more to charge, not counted as dropped. */
	ck_assert(!offcpu_in(o, 9, 2900, &iv));
	ck_assert_uint_eq(offcpu_stats(o)->dropped, 0);
	ck_assert(!offcpu_in(o, 9, 3100, &iv));
	offcpu_free(o);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("offcpu");
	TCase *tc = tcase_create("offcpu");

	tcase_add_test(tc, test_format_parse_decode);
	tcase_add_test(tc, test_decode_sizes);
	tcase_add_test(tc, test_format_bad);
	tcase_add_test(tc, test_format_from_tracing);
	tcase_add_test(tc, test_pairing);
	tcase_add_test(tc, test_exit_and_lost);
	tcase_add_test(tc, test_open_at_refresh);
	tcase_add_test(tc, test_exit_forgets);
	tcase_add_test(tc, test_reordered);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return testutil_run(suite()) != 0;
}
