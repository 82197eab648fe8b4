/* Unit tests for the perf.data reader: header, features, attr ids, byte
 * order, time ordering, pipe format and damaged files (written by
 * tests/helpers/mkperfdata from descriptions, no binary fixtures). */
#include "config.h"

#include "perfdata.h"

#include <check.h>
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dump.h"
#include "errmsg.h"
#include "record.h"
#include "strbuf.h"
#include "testutil.h"
#include "util.h"

static char *tmpdir;

/* Write desc through mkperfdata (with "order"/"pipe" lines prepended from
 * prefix) and open the result; returns the perfdata_open status. */
static int make(const char *name, const char *prefix, const char *desc, struct perfdata **pd,
		struct errmsg *err)
{
	char *txt = xasprintf("%s/%s.txt", tmpdir, name);
	char *out = xasprintf("%s/%s.data", tmpdir, name);
	FILE *f = fopen(txt, "w");
	int rc;

	ck_assert_ptr_nonnull(f);
	fprintf(f, "%s\n%s", prefix ? prefix : "", desc);
	fclose(f);
	ck_assert_int_eq(testutil_sh("tests/helpers/mkperfdata -o '%s' '%s'", out, txt), 0);
	rc = perfdata_open(out, pd, err);
	free(txt);
	free(out);
	return rc;
}

struct seen {
	uint32_t type;
	uint64_t time, ip, offset;
	size_t ev;
};

/* Every record in processing order; returns the perfdata_next status. */
static int collect(struct perfdata *pd, struct seen *s, size_t max, size_t *n)
{
	struct perfdata_record rec;
	int rc;

	*n = 0;
	while ((rc = perfdata_next(pd, &rec)) > 0) {
		struct record r;

		ck_assert_uint_lt(*n, max);
		ck_assert_uint_eq((uintptr_t)rec.hdr % 8, 0);
		ck_assert_ptr_nonnull(rec.event);
		memset(&s[*n], 0, sizeof(s[*n]));
		s[*n].type = rec.hdr->type;
		s[*n].offset = rec.offset;
		s[*n].ev = (size_t)(rec.event - perfdata_get_event(pd, 0));
		ck_assert_int_eq(record_decode(rec.hdr, &rec.event->attr, &r, NULL), 0);
		s[*n].time = r.sid.time;
		if (r.kind == RECORD_SAMPLE)
			s[*n].ip = r.u.sample.ip;
		(*n)++;
	}
	return rc;
}

static const char two_events[] =
	"attr sample_type=IP|TID|TIME|CPU|PERIOD|ID|CALLCHAIN|RAW period=1000 name=cpu-clock ids=7,8\n"
	"attr config=9 sample_type=IP|TID|TIME|CPU|PERIOD|ID|CALLCHAIN|RAW period=1 name=other ids=9\n"
	"hostname testhost\n"
	"osrelease 9.9.9-test\n"
	"version 6.1\n"
	"arch alpha\n"
	"nrcpus 4 2\n"
	"cmdline perf record -e cpu-clock ./workload\n"
	"sample_time 100 900\n"
	"build_id id=0102030405060708090a0b0c0d0e0f1011121314 file=/usr/bin/true\n"
	"build_id id=a1a2a3a4a5a6a7a8a9aaabacadaeaf10 misc=1 file=[kernel.kallsyms]\n"
	"comm pid=10 comm=work time=1\n"
	"mmap2 pid=10 start=0x400000 len=0x1000 file=/tmp/nothere time=2\n"
	"sample pid=10 ip=0x400010 time=300 cpu=1 id=8 callchain=0xfffffffffffffe00,0x400010 raw=aabbccdd\n"
	"sample pid=10 ip=0x400020 time=200 cpu=0 id=7\n"
	"round\n"
	"sample attr=1 pid=10 ip=0x400030 time=250 cpu=0 id=9\n"
	"fork pid=11 ppid=10 time=400 id=9\n"
	"exit pid=11 ppid=10 time=500\n"
	"round\n";

static void check_two_events(const char *prefix, bool swapped, bool pipe)
{
	struct perfdata *pd;
	struct errmsg err = ERRMSG_INIT;
	const struct perfdata_info *in;
	const struct perfdata_event *ev;
	struct seen s[32];
	size_t n;

	ck_assert_int_eq(make("two", prefix, two_events, &pd, &err), 0);
	in = perfdata_get_info(pd);
	ck_assert(in->swapped == swapped);
	ck_assert(in->pipe == pipe);
	ck_assert_str_eq(in->hostname, "testhost");
	ck_assert_str_eq(in->osrelease, "9.9.9-test");
	ck_assert_str_eq(in->version, "6.1");
	ck_assert_str_eq(in->arch, "alpha");
	ck_assert_str_eq(in->cmdline, "perf record -e cpu-clock ./workload");
	ck_assert_uint_eq(in->nr_cpus_avail, 4);
	ck_assert_uint_eq(in->nr_cpus_online, 2);
	ck_assert_uint_eq(in->first_sample_time, 100);
	ck_assert_uint_eq(in->last_sample_time, 900);
	ck_assert_uint_eq(in->nbuild_ids, 2);
	ck_assert_str_eq(in->build_ids[0].filename, "/usr/bin/true");
	ck_assert_uint_eq(in->build_ids[0].size, 20);
	ck_assert_uint_eq(in->build_ids[0].id[19], 0x14);
	ck_assert_int_eq(in->build_ids[0].pid, -1);
	ck_assert_str_eq(in->build_ids[1].filename, "[kernel.kallsyms]");
	ck_assert_uint_eq(in->build_ids[1].size, 16);
	ck_assert_uint_eq(in->build_ids[1].cpumode, PERF_RECORD_MISC_KERNEL);

	ck_assert_uint_eq(perfdata_nr_events(pd), 2);
	ev = perfdata_get_event(pd, 0);
	ck_assert_str_eq(ev->name, "cpu-clock");
	ck_assert_uint_eq(ev->attr.type, PERF_TYPE_SOFTWARE);
	ck_assert_uint_eq(ev->attr.sample_period, 1000);
	ck_assert_uint_eq(ev->attr.sample_type, 0x5e7);
	/* The flag word: bit fields must survive the other byte order. */
	ck_assert_uint_eq(ev->attr.sample_id_all, 1);
	ck_assert_uint_eq(ev->attr.disabled, 1);
	ck_assert_uint_eq(ev->attr.inherit, 1);
	ck_assert_uint_eq(ev->attr.exclude_kernel, 0);
	ck_assert_uint_eq(ev->attr.freq, 0);
	ck_assert_uint_eq(ev->nids, 2);
	ck_assert_uint_eq(ev->ids[1], 8);
	ev = perfdata_get_event(pd, 1);
	ck_assert_str_eq(ev->name, "other");
	ck_assert_uint_eq(ev->attr.config, 9);
	ck_assert_uint_eq(ev->ids[0], 9);
	ck_assert_ptr_null(perfdata_get_event(pd, 2));

	/* perf's rule: round 1's records wait for round 2 (limit 300). */
	ck_assert_int_eq(collect(pd, s, 32, &n), 0);
	if (pipe) {
		/* The pipe's HEADER_ATTR and HEADER_FEATURE records are handed
		 * out too, in front. */
		ck_assert_uint_eq(n, 2 + 9 + 9);
		ck_assert_uint_eq(s[0].type, 64);
		ck_assert_uint_eq(s[10].type, 80);
		memmove(s, s + 11, 9 * sizeof(*s));
		n = 9;
	}
	ck_assert_uint_eq(n, 9);
	/* Round 1 (limit 0) flushes nothing, so its marker comes first;
	 * round 2 flushes up to round 1's max time (300). */
	ck_assert_uint_eq(s[0].type, 68);
	ck_assert_uint_eq(s[1].type, PERF_RECORD_COMM);
	ck_assert_uint_eq(s[2].type, PERF_RECORD_MMAP2);
	ck_assert_uint_eq(s[3].ip, 0x400020);
	ck_assert_uint_eq(s[3].ev, 0);
	ck_assert_uint_eq(s[4].ip, 0x400030);
	ck_assert_uint_eq(s[4].ev, 1);
	ck_assert_uint_eq(s[5].ip, 0x400010);
	ck_assert_uint_eq(s[5].ev, 0);
	ck_assert_uint_eq(s[6].type, 68);
	ck_assert_uint_eq(s[7].type, PERF_RECORD_FORK);
	ck_assert_uint_eq(s[7].ev, 1);
	ck_assert_uint_eq(s[8].type, PERF_RECORD_EXIT);
	ck_assert_uint_eq(s[8].ev, 0);
	perfdata_close(pd);
}

START_TEST(test_header_features)
{
	check_two_events("", false, false);
}
END_TEST

START_TEST(test_swapped)
{
	check_two_events("order swapped", true, false);
}
END_TEST

START_TEST(test_pipe)
{
	check_two_events("pipe", false, true);
}
END_TEST

/* Pipe format: the tracepoints' formats come as a HEADER_TRACING_DATA
 * record followed by the data, outside its size (perf record -o -): kept
 * as the TRACING_DATA feature is, whole or as far as a cut stream goes. */
static void pipe_tracing(const char *name, const char *text, uint32_t claimed, bool records_after,
			 struct perfdata **pd)
{
	struct strbuf desc;
	struct errmsg em = ERRMSG_INIT;
	size_t i, n = strlen(text);

	strbuf_init(&desc);
	strbuf_addstr(&desc, "attr type=2 config=316 sample_type=IP|TID|TIME|CPU|PERIOD|RAW "
			     "period=1 name=sched:sched_switch\n");
	strbuf_addf(&desc, "record type=66 size=16 hex=%02x%02x%02x%02x00000000", claimed & 0xff,
		    (claimed >> 8) & 0xff, (claimed >> 16) & 0xff, claimed >> 24);
	for (i = 0; i < n; i++)
		strbuf_addf(&desc, "%02x", (unsigned char)text[i]);
	for (; i % 8; i++)
		strbuf_addstr(&desc, "00");
	strbuf_addstr(&desc, "\n");
	if (records_after)
		strbuf_addstr(&desc, "comm pid=10 comm=work time=1\n");
	ck_assert_int_eq(make(name, "pipe", desc.buf, pd, &em), 0);
	strbuf_release(&desc);
}

START_TEST(test_pipe_tracing_data)
{
	static const char text[] = "\x17\bD\x04tracing0.6 name: sched_switch\nID: 316\n"
				   "format:\n\tfield:pid_t prev_pid;\toffset:24;\tsize:4;\tsigned:1;\n";
	struct perfdata *pd;
	const struct perfdata_info *in;
	struct seen s[8];
	size_t n;

	pipe_tracing("pipetrace", text, sizeof(text) - 1, true, &pd);
	in = perfdata_get_info(pd);
	ck_assert_uint_eq(in->tracing_data_size, sizeof(text) - 1);
	ck_assert(memcmp(in->tracing_data, text, sizeof(text) - 1) == 0);
	/* The data after it is read as records, the formats skipped. */
	ck_assert_int_eq(collect(pd, s, 8, &n), 0);
	ck_assert_uint_ge(n, 2);
	ck_assert_uint_eq(s[n - 2].type, 66);
	ck_assert_uint_eq(s[n - 1].type, PERF_RECORD_COMM);
	perfdata_close(pd);

	/* The stream ends inside the formats: what there is of them. */
	pipe_tracing("pipetrace-cut", text, 4096, false, &pd);
	in = perfdata_get_info(pd);
	ck_assert_uint_ge(in->tracing_data_size, sizeof(text) - 1);
	ck_assert_uint_lt(in->tracing_data_size, 4096);
	ck_assert(memmem(in->tracing_data, in->tracing_data_size, "name: sched_switch", 18));
	perfdata_close(pd);
}
END_TEST

START_TEST(test_pipe_swapped)
{
	check_two_events("order swapped\npipe", true, true);
}
END_TEST

START_TEST(test_swapped_same_dump)
{
	struct perfdata *a, *b;
	struct perfdata_record ra, rb;
	struct errmsg err = ERRMSG_INIT;
	int rca, rcb;

	ck_assert_int_eq(make("dn", "", two_events, &a, &err), 0);
	ck_assert_int_eq(make("ds", "order swapped", two_events, &b, &err), 0);
	perfdata_set_file_order(a, true);
	perfdata_set_file_order(b, true);
	/* Every record, swapped back, is byte for byte the native one
	 * except the raw payload (the recording host's bytes either way). */
	while ((rca = perfdata_next(a, &ra)) > 0) {
		rcb = perfdata_next(b, &rb);
		ck_assert_int_eq(rcb, 1);
		ck_assert_uint_eq(ra.offset, rb.offset);
		ck_assert_int_eq(memcmp(ra.hdr, rb.hdr, ra.hdr->size), 0);
	}
	ck_assert_int_eq(rca, 0);
	ck_assert_int_eq(perfdata_next(b, &rb), 0);
	perfdata_close(a);
	perfdata_close(b);
}
END_TEST

START_TEST(test_identifier)
{
	struct perfdata *pd;
	struct errmsg err = ERRMSG_INIT;
	struct seen s[16];
	size_t n;

	ck_assert_int_eq(make("ident", "order swapped",
			      "attr sample_type=IDENTIFIER|IP|TID|TIME|PERIOD ids=100,101 name=a\n"
			      "attr sample_type=IDENTIFIER|IP|TID|TIME|PERIOD ids=200 name=b\n"
			      "comm pid=1 comm=x time=5 id=200\n"
			      "sample pid=1 ip=1 time=10 id=200\n"
			      "sample pid=1 ip=2 time=11 id=101\n"
			      "sample pid=1 ip=3 time=12 id=999\n",
			      &pd, &err), 0);
	ck_assert_int_eq(collect(pd, s, 16, &n), 0);
	ck_assert_uint_eq(n, 4);
	ck_assert_uint_eq(s[0].ev, 1);
	ck_assert_uint_eq(s[1].ev, 1);
	ck_assert_uint_eq(s[2].ev, 0);
	/* An unknown id falls back to the first event. */
	ck_assert_uint_eq(s[3].ev, 0);
	perfdata_close(pd);
}
END_TEST

START_TEST(test_reorder)
{
	struct perfdata *pd;
	struct errmsg err = ERRMSG_INIT;
	struct seen s[32];
	size_t n, i;
	static const char desc[] =
		"attr sample_type=IP|TID|TIME|CPU|PERIOD\n"
		"sample pid=1 ip=5 time=50\n"
		"sample pid=1 ip=3 time=30\n"
		"sample pid=1 ip=4 time=30\n" /* same time: file order kept */
		"round\n"
		"sample pid=1 ip=1 time=10\n" /* older than round 1's max */
		"sample pid=1 ip=9 time=90\n"
		"round\n"
		"sample pid=1 ip=6 time=60\n"
		"sample pid=1 ip=2 time=20\n";
	static const uint64_t want[] = { 1, 3, 4, 5, 2, 6, 9 };
	static const uint64_t file_order[] = { 5, 3, 4, 1, 9, 6, 2 };
	uint64_t got[16];
	size_t k = 0;

	ck_assert_int_eq(make("reorder", "", desc, &pd, &err), 0);
	ck_assert_int_eq(collect(pd, s, 32, &n), 0);
	for (i = 0; i < n; i++)
		if (s[i].type == PERF_RECORD_SAMPLE)
			got[k++] = s[i].ip;
	ck_assert_uint_eq(k, 7);
	/* Round 1 (limit 0) flushes nothing; round 2 flushes <= 50; the end
	 * the rest.  Records past a round's limit wait, as in perf. */
	for (i = 0; i < 7; i++)
		ck_assert_uint_eq(got[i], want[i]);
	perfdata_close(pd);

	ck_assert_int_eq(make("reorder", "", desc, &pd, &err), 0);
	perfdata_set_file_order(pd, true);
	ck_assert_int_eq(collect(pd, s, 32, &n), 0);
	for (i = 0, k = 0; i < n; i++)
		if (s[i].type == PERF_RECORD_SAMPLE)
			ck_assert_uint_eq(s[i].ip, file_order[k++]);
	perfdata_close(pd);
}
END_TEST

/* A round of nruns interleaved ascending runs (as perf writes per-CPU
 * rings one after the other), with ties across runs: out in (time, file
 * offset) order, every record once.  nruns 1 is an ordered round, 3 and
 * 5 leave a run without a partner in the pairwise merge, 300 descending
 * records are too many runs to merge (qsort). */
static void check_runs(size_t nruns, size_t per_run, bool descending)
{
	struct perfdata *pd;
	struct errmsg err = ERRMSG_INIT;
	char name[32];
	size_t total = nruns * per_run, n, i, r, k = 0;
	struct seen *s = xcalloc(total + 8, sizeof(*s));
	struct strbuf sb;
	uint64_t *count = xcalloc(total, sizeof(*count));

	strbuf_init(&sb);
	strbuf_addf(&sb, "attr sample_type=IP|TID|TIME|CPU|PERIOD\n");
	for (r = 0; r < nruns; r++)
		for (i = 0; i < per_run; i++) {
			/* ip numbers the records in file order */
			uint64_t t = descending ? 10 * (total - k) : 100 + 7 * i + (r % 3) * 5;

			strbuf_addf(&sb, "sample pid=1 cpu=%zu ip=%zu time=%" PRIu64 "\n", r, k, t);
			k++;
		}
	strbuf_addf(&sb, "round\n");
	snprintf(name, sizeof(name), "runs%zu", nruns);
	ck_assert_int_eq(make(name, "", sb.buf, &pd, &err), 0);
	ck_assert_int_eq(collect(pd, s, total + 8, &n), 0);
	for (i = 0, k = 0; i < n; i++) {
		if (s[i].type != PERF_RECORD_SAMPLE)
			continue;
		ck_assert_uint_lt(s[i].ip, total);
		count[s[i].ip]++;
		if (k) {
			ck_assert_uint_ge(s[i].time, s[i - 1].time);
			if (s[i].time == s[i - 1].time)
				ck_assert_uint_gt(s[i].ip, s[i - 1].ip);
		}
		k++;
	}
	ck_assert_uint_eq(k, total);
	for (i = 0; i < total; i++)
		ck_assert_uint_eq(count[i], 1);
	perfdata_close(pd);
	strbuf_release(&sb);
	free(count);
	free(s);
}

START_TEST(test_reorder_runs)
{
	check_runs(1, 50, false);
	check_runs(2, 40, false);
	check_runs(3, 40, false);
	check_runs(5, 33, false);
	check_runs(16, 20, false);
	check_runs(300, 1, true);
}
END_TEST

START_TEST(test_no_time_file_order)
{
	struct perfdata *pd;
	struct errmsg err = ERRMSG_INIT;
	struct seen s[8];
	size_t n;

	ck_assert_int_eq(make("notime", "",
			      "attr sample_type=IP|TID|PERIOD\n"
			      "sample pid=1 ip=2\nsample pid=1 ip=1\n",
			      &pd, &err), 0);
	ck_assert_int_eq(collect(pd, s, 8, &n), 0);
	ck_assert_uint_eq(n, 2);
	ck_assert_uint_eq(s[0].ip, 2);
	ck_assert_uint_eq(s[1].ip, 1);
	perfdata_close(pd);
}
END_TEST

static const char small[] =
	"attr sample_type=IP|TID|TIME|PERIOD|CALLCHAIN\n"
	"comm pid=1 comm=x time=1\n"
	"sample pid=1 ip=1 time=10 callchain=1,2\n"
	"sample pid=1 ip=2 time=20\n"
	"sample pid=1 ip=3 time=30\n";

/* Damage in the record stream: the message names the offset. */
static void expect_damage(const char *name, const char *damage, bool at_end, size_t nread,
			  const char *words)
{
	struct perfdata *pd;
	struct errmsg err = ERRMSG_INIT;
	char *desc = xasprintf("%s%s\n", small, damage);
	struct seen s[16];
	size_t n;

	ck_assert_int_eq(make(name, "", desc, &pd, &err), 0);
	ck_assert_int_eq(collect(pd, s, 16, &n), -EINVAL);
	ck_assert_uint_eq(n, nread);
	ck_assert_msg(strstr(perfdata_error(pd), "offset ") != NULL, "%s", perfdata_error(pd));
	ck_assert_msg(strstr(perfdata_error(pd), words) != NULL, "%s lacks %s",
		      perfdata_error(pd), words);
	ck_assert(perfdata_damage_at_end(pd) == at_end);
	/* It stays failed. */
	ck_assert_int_eq(collect(pd, s, 16, &n), -EINVAL);
	perfdata_close(pd);
	free(desc);
}

START_TEST(test_truncated)
{
	/* Cut inside the last sample, and inside a header. */
	expect_damage("trunc1", "truncate @3+12", true, 3, "truncated");
	expect_damage("trunc2", "truncate @3+4", true, 3, "truncated");
}
END_TEST

START_TEST(test_bad_sizes)
{
	/* size 4: smaller than the header; size 13: not whole words. */
	expect_damage("size4", "poke @2+6 0400", false, 2, "smaller than");
	expect_damage("size13", "poke @2+6 0d00", false, 2, "multiple of 8");
	/* Callchain nr far beyond the record. */
	expect_damage("ccnr", "poke @1+40 ffffffff00000000", false, 1, "callchain");
}
END_TEST

START_TEST(test_bad_headers)
{
	struct perfdata *pd = NULL;
	struct errmsg err = ERRMSG_INIT;

	ck_assert_int_eq(make("magic", "", "attr\npoke 0 5045524646494c45\n", &pd, &err), -EINVAL);
	ck_assert_msg(strstr(err.text, "PERFFILE") != NULL, "%s", err.text);
	ck_assert_int_eq(make("magic2", "", "attr\npoke 0 00\n", &pd, &err), -EINVAL);
	ck_assert_msg(strstr(err.text, "offset 0") && strstr(err.text, "magic"), "%s", err.text);
	ck_assert_int_eq(make("short", "", "attr\ntruncate 50\n", &pd, &err), -EINVAL);
	ck_assert_msg(strstr(err.text, "offset 50") != NULL, "%s", err.text);
	/* attrs section offset far outside the file. */
	ck_assert_int_eq(make("attrs", "", "attr\npoke 24 00000000000000f0\n", &pd, &err), -EINVAL);
	ck_assert_msg(strstr(err.text, "offset 24") && strstr(err.text, "attrs"), "%s", err.text);
	/* attr_size silly. */
	ck_assert_int_eq(make("asize", "", "attr\npoke 16 0300000000000000\n", &pd, &err), -EINVAL);
	ck_assert_msg(strstr(err.text, "offset 16") != NULL, "%s", err.text);
	/* An ids section of 2^60 bytes: refused, not allocated. */
	ck_assert_int_eq(make("ids", "", "attr ids=1\npoke 248 0000000000000010\n", &pd, &err), -EINVAL);
	ck_assert_msg(strstr(err.text, "ids") != NULL, "%s", err.text);
	ck_assert_int_eq(make("empty", "", "attr\ntruncate 0\n", &pd, &err), -EINVAL);
	ck_assert_msg(strstr(err.text, "empty") != NULL, "%s", err.text);
	ck_assert_ptr_null(pd);
	/* The open's own failure, and the reason left alone on success. */
	errmsg_clear(&err);
	ck_assert_int_eq(perfdata_open("/nonexistent/x.data", &pd, &err), -ENOENT);
	ck_assert_str_eq(err.text, "cannot open /nonexistent/x.data: No such file or directory");
	errmsg_set(&err, -EIO, "kept");
	ck_assert_int_eq(make("ok", "", two_events, &pd, &err), 0);
	ck_assert_str_eq(err.text, "kept");
	perfdata_close(pd);
}
END_TEST

START_TEST(test_bad_feature_table)
{
	struct perfdata *pd;
	struct errmsg err = ERRMSG_INIT;
	struct seen s[16];
	size_t n;

	/* A feature section pointing outside the file costs the features,
	 * not the samples. */
	ck_assert_int_eq(make("feat", "", "attr\nhostname h\nsample pid=1 ip=1 time=1\n"
			      "poke @0+40 ffffffffffffff7f\n", &pd, &err), 0);
	ck_assert_ptr_null(perfdata_get_info(pd)->hostname);
	ck_assert_int_eq(collect(pd, s, 16, &n), 0);
	ck_assert_uint_eq(n, 1);
	perfdata_close(pd);
}
END_TEST

START_TEST(test_dump)
{
	struct perfdata *pd;
	struct perfdata_record rec;
	struct errmsg err = ERRMSG_INIT;
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	ck_assert_int_eq(make("dump", "", two_events, &pd, &err), 0);
	perfdata_set_file_order(pd, true);
	dump_header(f, pd);
	while (perfdata_next(pd, &rec) > 0)
		dump_record(f, &rec);
	fclose(f);
	ck_assert_msg(strstr(buf, "# hostname: testhost\n") != NULL, "%s", buf);
	ck_assert(strstr(buf, "# event 1: other: type 1, config 0x9") != NULL);
	ck_assert(strstr(buf, "SAMPLE (9)") != NULL);
	ck_assert(strstr(buf, "time 300 pid/tid 10/10 cpu 1 id 8") != NULL);
	ck_assert(strstr(buf, "0xfffffffffffffe00 (user)") != NULL);
	ck_assert(strstr(buf, "    0000: aa bb cc dd\n") != NULL);
	ck_assert(strstr(buf, "file /tmp/nothere") != NULL);
	ck_assert(strstr(buf, "pid 11 ppid 10 tid 11 ptid 10 time 400") != NULL);
	ck_assert(strstr(buf, "comm work") != NULL);
	perfdata_close(pd);
	free(buf);
}
END_TEST

/* Resident kB of the mappings of path in /proc/self/smaps, or -1. */
static long mapped_rss_kb(const char *path)
{
	FILE *f = fopen("/proc/self/smaps", "r");
	char line[4096];
	bool in = false;
	long kb = -1, v;
	unsigned long lo, hi;

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		size_t len = strcspn(line, "\n"), plen = strlen(path);

		/* "LO-HI perms offset dev inode   PATH" starts a mapping. */
		if (sscanf(line, "%lx-%lx ", &lo, &hi) == 2) {
			in = len > plen && line[len - plen - 1] == ' ' &&
			     strncmp(line + len - plen, path, plen) == 0;
			continue;
		}
		if (in && sscanf(line, "Rss: %ld kB", &v) == 1)
			kb = kb < 0 ? v : kb + v;
	}
	fclose(f);
	return kb;
}

/* A file read through once is not left resident: the reader gives back
 * the pages behind the oldest record still queued.  9.6 MB of 1.6 KB samples
 * in rounds of 100 (shuffled within a round, so the queue holds them), in
 * time order and in file order; every payload still reads right. */
static void check_pages_dropped(bool file_order)
{
	enum { NSAMPLES = 6000, RAW = 1600, ROUND = 100 };
	struct errmsg err = ERRMSG_INIT;
	char line[2 * RAW], *out = xasprintf("%s/dropped.data", tmpdir);
	unsigned char want[RAW];
	char *abs;
	struct perfdata *pd;
	struct perfdata_record rec;
	struct strbuf sb;
	size_t i, k, n = 0;
	uint64_t last = 0;
	long kb;
	int rc;

	strbuf_init(&sb);
	strbuf_addf(&sb, "attr sample_type=IP|TID|TIME|CPU|PERIOD|RAW\n");
	for (i = 0; i < NSAMPLES; i++) {
		/* time: reversed inside each round */
		uint64_t t = 1000 + (i / ROUND) * ROUND + (ROUND - 1 - i % ROUND);

		strbuf_addf(&sb, "sample pid=1 ip=%zu time=%" PRIu64 " raw=", i, t);
		for (k = 0; k < RAW - 4; k++) { /* the u32 size leads: whole words */
			unsigned b = (unsigned)((i + k) & 0xff);

			line[2 * k] = "0123456789abcdef"[b >> 4];
			line[2 * k + 1] = "0123456789abcdef"[b & 15];
		}
		line[2 * k] = '\n';
		strbuf_add(&sb, line, 2 * k + 1);
		if (i % ROUND == ROUND - 1)
			strbuf_addf(&sb, "round\n");
	}
	ck_assert_int_eq(make("dropped", "", sb.buf, &pd, &err), 0);
	perfdata_set_file_order(pd, file_order);
	while ((rc = perfdata_next(pd, &rec)) > 0) {
		struct record r;
		const unsigned char *raw;

		if (rec.hdr->type != PERF_RECORD_SAMPLE)
			continue;
		ck_assert_int_eq(record_decode(rec.hdr, &rec.event->attr, &r, NULL), 0);
		if (!file_order) {
			ck_assert_uint_ge(r.sid.time, last);
			last = r.sid.time;
		}
		ck_assert_uint_eq(r.u.sample.raw_size, RAW - 4);
		raw = r.u.sample.raw;
		for (k = 0; k < RAW - 4; k++)
			want[k] = (unsigned char)((r.u.sample.ip + k) & 0xff);
		ck_assert(memcmp(raw, want, RAW - 4) == 0);
		n++;
	}
	ck_assert_int_eq(rc, 0);
	ck_assert_uint_eq(n, NSAMPLES);
	abs = realpath(out, NULL);
	ck_assert_ptr_nonnull(abs);
	kb = mapped_rss_kb(abs);
	free(abs);
	ck_assert_int_ge(kb, 0);
	/* Without the drop it is the whole file (~9,600 kB).  What stays is
	 * the last step (DROP_STEP) and the queue, rounded up to the 2 MB
	 * folios the kernel may map a file with. */
	ck_assert_int_lt(kb, 4096);
	perfdata_close(pd);
	strbuf_release(&sb);
	free(out);
}

START_TEST(test_pages_dropped)
{
	check_pages_dropped(false);
	check_pages_dropped(true);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("perfdata");
	TCase *tc;

	tc = tcase_create("header");
	tcase_set_timeout(tc, 30);
	tcase_add_test(tc, test_header_features);
	tcase_add_test(tc, test_swapped);
	tcase_add_test(tc, test_swapped_same_dump);
	tcase_add_test(tc, test_pipe);
	tcase_add_test(tc, test_pipe_swapped);
	tcase_add_test(tc, test_pipe_tracing_data);
	tcase_add_test(tc, test_identifier);
	suite_add_tcase(s, tc);

	tc = tcase_create("order");
	tcase_add_test(tc, test_reorder);
	tcase_add_test(tc, test_reorder_runs);
	tcase_add_test(tc, test_no_time_file_order);
	suite_add_tcase(s, tc);

	tc = tcase_create("memory");
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, test_pages_dropped);
	suite_add_tcase(s, tc);

	tc = tcase_create("damage");
	tcase_set_timeout(tc, 30);
	tcase_add_test(tc, test_truncated);
	tcase_add_test(tc, test_bad_sizes);
	tcase_add_test(tc, test_bad_headers);
	tcase_add_test(tc, test_bad_feature_table);
	suite_add_tcase(s, tc);

	tc = tcase_create("dump");
	tcase_add_test(tc, test_dump);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	int failed;

	tmpdir = testutil_tmpdir("check_perfdata");
	failed = testutil_run(suite());
	testutil_sh("rm -rf '%s'", tmpdir);
	free(tmpdir);
	return failed != 0;
}
