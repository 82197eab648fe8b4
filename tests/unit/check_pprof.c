/* Unit tests for the pprof writer: what it encodes is read back by a small
 * protobuf decoder here (field by field, against profile.proto's numbers),
 * the gzip is inflated with zlib, and the file is replaced whole. */
#include "config.h"

#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <zlib.h>

#include "errmsg.h"
#include "fileread.h"
#include "hist.h"
#include "options.h"
#include "output.h"
#include "pprof-read.h"
#include "pprof.h"
#include "testutil.h"
#include "util.h"
#include "view.h"
#include "profile.pb-c.h"

/* One field of a message: a varint's value, or a length-delimited run. */
struct fld {
	unsigned num, wire;
	uint64_t v;
	const unsigned char *p;
	size_t n;
};

/* The fields of message p[0..n), at most max; fails the test on bad
 * wire data. */
static size_t decode(const unsigned char *p, size_t n, struct fld *out, size_t max)
{
	size_t pos = 0, k = 0;

	while (pos < n) {
		uint64_t key;

		ck_assert_uint_lt(k, max);
		ck_assert_int_eq(testutil_pb_get_varint(p, n, &pos, &key), 0);
		out[k].num = (unsigned)(key >> 3);
		out[k].wire = (unsigned)(key & 7);
		ck_assert_int_eq(testutil_pb_get_varint(p, n, &pos, &out[k].v), 0);
		if (out[k].wire == 2) {
			ck_assert_uint_le(out[k].v, n - pos);
			out[k].p = p + pos;
			out[k].n = (size_t)out[k].v;
			pos += out[k].n;
		} else {
			ck_assert_uint_eq(out[k].wire, 0);
		}
		k++;
	}
	return k;
}

/* The varint of field num in f[0..k) (0 when absent, as protobuf reads;
 * the first value of a packed repeated field, as proto3 writes Profile's
 * comment). */
static uint64_t field_u(const struct fld *f, size_t k, unsigned num)
{
	size_t i, pos = 0;
	uint64_t v;

	for (i = 0; i < k; i++) {
		if (f[i].num == num && f[i].wire == 0)
			return f[i].v;
		if (f[i].num == num && f[i].wire == 2) {
			ck_assert_int_eq(testutil_pb_get_varint(f[i].p, f[i].n, &pos, &v), 0);
			return v;
		}
	}
	return 0;
}

/* A decoded profile: the fields we check, by kind. */
struct prof {
	struct fld top[512];
	size_t ntop;
	const char *strs[64];
	size_t nstrs;
};

static void prof_decode(struct prof *pr, const struct strbuf *raw)
{
	size_t i;

	pr->ntop = decode((const unsigned char *)raw->buf, raw->len, pr->top, 512);
	pr->nstrs = 0;
	for (i = 0; i < pr->ntop; i++)
		if (pr->top[i].num == 6) {
			ck_assert_uint_lt(pr->nstrs, 64);
			pr->strs[pr->nstrs++] = xstrndup((const char *)pr->top[i].p, pr->top[i].n);
		}
}

static void prof_release(struct prof *pr)
{
	size_t i;

	for (i = 0; i < pr->nstrs; i++)
		free((char *)pr->strs[i]);
}

static const char *prof_str(const struct prof *pr, uint64_t idx)
{
	ck_assert_uint_lt(idx, pr->nstrs);
	return pr->strs[idx];
}

/* The n-th (from 0) top-level field num. */
static const struct fld *prof_nth(const struct prof *pr, unsigned num, size_t n)
{
	size_t i;

	for (i = 0; i < pr->ntop; i++)
		if (pr->top[i].num == num && n-- == 0)
			return &pr->top[i];
	return NULL;
}

static size_t prof_count(const struct prof *pr, unsigned num)
{
	size_t i, c = 0;

	for (i = 0; i < pr->ntop; i++)
		c += pr->top[i].num == num;
	return c;
}

/* The function name of location id. */
static const char *prof_loc_name(const struct prof *pr, uint64_t id, uint64_t *mapping)
{
	struct fld f[8], line[4], fn[8];
	size_t i, k, kl, kf;

	for (i = 0; i < prof_count(pr, 4); i++) {
		const struct fld *l = prof_nth(pr, 4, i);
		const struct fld *x;
		uint64_t fid;
		size_t j;

		k = decode(l->p, l->n, f, 8);
		if (field_u(f, k, 1) != id)
			continue;
		*mapping = field_u(f, k, 2);
		for (j = 0; j < k && f[j].num != 4; j++)
			;
		ck_assert_uint_lt(j, k);
		kl = decode(f[j].p, f[j].n, line, 4);
		fid = field_u(line, kl, 1);
		for (j = 0; (x = prof_nth(pr, 5, j)); j++) {
			kf = decode(x->p, x->n, fn, 8);
			if (field_u(fn, kf, 1) == fid)
				return prof_str(pr, field_u(fn, kf, 2));
		}
		ck_abort_msg("location %llu: no function %llu", (unsigned long long)id,
			     (unsigned long long)fid);
	}
	ck_abort_msg("no location %llu", (unsigned long long)id);
	return NULL;
}

/* Sample n as "comm|leaf;caller;... samples period" (labels first). */
static void prof_sample_text(const struct prof *pr, size_t n, struct strbuf *sb)
{
	const struct fld *s = prof_nth(pr, 2, n);
	struct fld f[16], lab[4];
	size_t k, i, pos;

	ck_assert_ptr_nonnull(s);
	k = decode(s->p, s->n, f, 16);
	for (i = 0; i < k; i++) {
		size_t kl;

		if (f[i].num != 3)
			continue;
		kl = decode(f[i].p, f[i].n, lab, 4);
		if (field_u(lab, kl, 2))
			strbuf_addf(sb, "%s=%s|", prof_str(pr, field_u(lab, kl, 1)),
				    prof_str(pr, field_u(lab, kl, 2)));
		else
			strbuf_addf(sb, "%s=%llu|", prof_str(pr, field_u(lab, kl, 1)),
				    (unsigned long long)field_u(lab, kl, 3));
	}
	for (i = 0; i < k; i++) {
		uint64_t v, m;

		if (f[i].num != 1 && f[i].num != 2)
			continue;
		ck_assert_uint_eq(f[i].wire, 2);  /* packed */
		for (pos = 0; pos < f[i].n;) {
			ck_assert_int_eq(testutil_pb_get_varint(f[i].p, f[i].n, &pos, &v), 0);
			if (f[i].num == 1)
				strbuf_addf(sb, "%s%s", prof_loc_name(pr, v, &m),
					    pos < f[i].n ? ";" : "");
			else
				strbuf_addf(sb, " %llu", (unsigned long long)v);
		}
	}
}

static const struct snapshot_frame frames[] = {
	/* stack 0, root first: main -> work -> leaf */
	{ .symbol = "main", .dso = "wl" },
	{ .symbol = "work", .dso = "wl" },
	{ .symbol = "leaf", .dso = "libx.so" },
	/* stack 1: main -> [unknown] in libc -> kernel */
	{ .symbol = "main", .dso = "wl" },
	{ .symbol = "[unknown]", .dso = "libc.so.6" },
	{ .symbol = "do_syscall", .dso = "[kernel.kallsyms]", .kernel = true },
	/* stack 2: no DSO */
	{ .symbol = "[unknown]", .dso = "[unknown]" },
};

static struct snapshot stacks_snapshot(struct snapshot_stack *st)
{
	struct snapshot snap = {
		.time = 2.0,
		.event = "cpu-clock",
		.freq = true,
		.sample_freq = 4000,
		.callchains = true,
		.stacks = st,
		.nr_stacks = 4,
	};

	st[0] = (struct snapshot_stack){
		.comm = "wl", .frames = &frames[0], .nr_frames = 3, .samples = 30, .period = 30000
	};
	st[1] = (struct snapshot_stack){
		.comm = "wl", .frames = &frames[3], .nr_frames = 3, .samples = 10, .period = 10000
	};
	st[2] = (struct snapshot_stack){
		.comm = NULL, .frames = &frames[6], .nr_frames = 1, .samples = 5, .period = 5000
	};
	/* decayed to nothing: left out, as --folded does */
	st[3] = (struct snapshot_stack){
		.comm = "gone", .frames = &frames[0], .nr_frames = 1, .samples = 0, .period = 0
	};
	ck_assert_int_eq(sort_spec_parse("dso,sym", &snap.sort, NULL), 0);
	return snap;
}

START_TEST(test_varint)
{
	static const uint64_t vals[] = { 0, 1, 127, 128, 300, UINT32_MAX, UINT64_MAX };
	unsigned char over[11];
	struct strbuf sb;
	size_t i, pos = 0;
	uint64_t v;

	strbuf_init(&sb);
	for (i = 0; i < sizeof(vals) / sizeof(vals[0]); i++)
		testutil_pb_varint(&sb, vals[i]);
	/* 300 is the spec's example: ac 02 */
	ck_assert_mem_eq(sb.buf + 5, "\xac\x02", 2);
	ck_assert_uint_eq((unsigned char)sb.buf[sb.len - 1], 1);  /* 2^64-1: 10 bytes */
	for (i = 0; i < sizeof(vals) / sizeof(vals[0]); i++) {
		ck_assert_int_eq(testutil_pb_get_varint((unsigned char *)sb.buf, sb.len, &pos, &v), 0);
		ck_assert_uint_eq(v, vals[i]);
	}
	ck_assert_uint_eq(pos, sb.len);
	/* Cut short, and over 10 bytes. */
	pos = 0;
	ck_assert_int_eq(testutil_pb_get_varint((unsigned char *)"\x80", 1, &pos, &v), -EINVAL);
	memset(over, 0x80, sizeof(over));
	pos = 0;
	ck_assert_int_eq(testutil_pb_get_varint(over, sizeof(over), &pos, &v), -EINVAL);
	strbuf_release(&sb);
}
END_TEST

START_TEST(test_encode_stacks)
{
	struct snapshot_stack st[4];
	struct snapshot snap = stacks_snapshot(st);
	struct strbuf raw, sb;
	struct prof pr;
	struct fld f[16];
	const struct fld *x;
	size_t k, i;
	uint64_t m;
	int kernel_maps = 0;

	strbuf_init(&raw);
	strbuf_init(&sb);
	pprof_encode(&raw, &snap, "proftop test", 123456789);
	prof_decode(&pr, &raw);

	ck_assert_str_eq(pr.strs[0], "");
	/* sample_type: samples/count, then the event in its unit */
	ck_assert_uint_eq(prof_count(&pr, 1), 2);
	k = decode(prof_nth(&pr, 1, 0)->p, prof_nth(&pr, 1, 0)->n, f, 16);
	ck_assert_str_eq(prof_str(&pr, field_u(f, k, 1)), "samples");
	ck_assert_str_eq(prof_str(&pr, field_u(f, k, 2)), "count");
	k = decode(prof_nth(&pr, 1, 1)->p, prof_nth(&pr, 1, 1)->n, f, 16);
	ck_assert_str_eq(prof_str(&pr, field_u(f, k, 1)), "cpu");
	ck_assert_str_eq(prof_str(&pr, field_u(f, k, 2)), "nanoseconds");
	k = decode(prof_nth(&pr, 11, 0)->p, prof_nth(&pr, 11, 0)->n, f, 16);
	ck_assert_str_eq(prof_str(&pr, field_u(f, k, 1)), "cpu");
	/* -F 4000 of a clock: a sample per 250 us */
	ck_assert_uint_eq(field_u(pr.top, pr.ntop, 12), 250000);
	ck_assert_uint_eq(field_u(pr.top, pr.ntop, 9), 123456789);
	ck_assert_uint_eq(field_u(pr.top, pr.ntop, 10), 2000000000);
	ck_assert_str_eq(prof_str(&pr, field_u(pr.top, pr.ntop, 13)), "proftop test");

	/* Three samples (the one decayed to 0 is left out), leaf first. */
	ck_assert_uint_eq(prof_count(&pr, 2), 3);
	prof_sample_text(&pr, 0, &sb);
	ck_assert_str_eq(sb.buf, "comm=wl|leaf;work;main 30 30000");
	strbuf_reset(&sb);
	prof_sample_text(&pr, 1, &sb);
	ck_assert_str_eq(sb.buf, "comm=wl|do_syscall;[libc.so.6];main 10 10000");
	strbuf_reset(&sb);
	prof_sample_text(&pr, 2, &sb);
	ck_assert_str_eq(sb.buf, "[unknown] 5 5000");

	/* One location per function (main once), in its DSO's mapping;
	 * [unknown] without a DSO has none. */
	ck_assert_uint_eq(prof_count(&pr, 4), 6);
	ck_assert_uint_eq(prof_count(&pr, 5), 6);
	ck_assert_uint_eq(prof_count(&pr, 3), 4);
	for (i = 1; i <= 6; i++) {
		const char *name = prof_loc_name(&pr, i, &m);

		if (strcmp(name, "[unknown]") == 0) {
			ck_assert_uint_eq(m, 0);
			continue;
		}
		ck_assert_uint_ge(m, 1);
		ck_assert_uint_le(m, 4);
		k = decode(prof_nth(&pr, 3, m - 1)->p, prof_nth(&pr, 3, m - 1)->n, f, 16);
		ck_assert_uint_eq(field_u(f, k, 1), m);
		if (strcmp(name, "do_syscall") == 0) {
			ck_assert_str_eq(prof_str(&pr, field_u(f, k, 5)), "[kernel.kallsyms]");
			kernel_maps++;
		}
		if (strcmp(name, "work") == 0)
			ck_assert_str_eq(prof_str(&pr, field_u(f, k, 5)), "wl");
	}
	ck_assert_int_eq(kernel_maps, 1);
	/* has_functions only: no addresses, files or lines behind them */
	for (i = 0; (x = prof_nth(&pr, 3, i)); i++) {
		k = decode(x->p, x->n, f, 16);
		ck_assert_uint_eq(field_u(f, k, 7), 1);
		ck_assert_uint_eq(field_u(f, k, 8), 0);
		ck_assert_uint_eq(field_u(f, k, 9), 0);
		ck_assert_uint_eq(field_u(f, k, 2), 0);
	}
	prof_release(&pr);
	strbuf_release(&raw);
	strbuf_release(&sb);
}
END_TEST

/* --pprof's detail (view_opts.stack_detail): stacks of one group differ by
 * frame address and pid/tid; each address is a Location of its own, the
 * pids and tids are labels, and --folded prints the group as one line. */
START_TEST(test_encode_detail)
{
	static const struct snapshot_frame fr[] = {
		{ .symbol = "main", .dso = "wl", .addr = 0x10 },
		{ .symbol = "leaf", .dso = "wl", .addr = 0x20 },
		{ .symbol = "main", .dso = "wl", .addr = 0x10 },
		{ .symbol = "leaf", .dso = "wl", .addr = 0x24 },
	};
	struct snapshot_stack st[2] = {
		{ .comm = "wl", .frames = &fr[0], .nr_frames = 2, .samples = 2, .period = 20,
		  .has_pid = true, .pid = 1, .has_tid = true, .tid = 2 },
		{ .comm = "wl", .frames = &fr[2], .nr_frames = 2, .samples = 1, .period = 10,
		  .has_pid = true, .pid = 3, .has_tid = true, .tid = 3 },
	};
	struct snapshot snap = {
		.event = "cpu-clock", .callchains = true, .stacks = st, .nr_stacks = 2,
	};
	struct pprof_profile p;
	struct strbuf raw;
	char *text = NULL;
	size_t len = 0, i, j;
	uint64_t addrs[3] = { 0 };
	FILE *f;

	strbuf_init(&raw);
	pprof_encode(&raw, &snap, NULL, 0);
	ck_assert_int_eq(pprof_decode((const unsigned char *)raw.buf, raw.len, &p, NULL), 0);
	ck_assert_uint_eq(p.nr_samples, 2);
	ck_assert_uint_eq(p.nr_locations, 3);
	for (i = 0; i < 3; i++)
		addrs[i] = p.locations[i].address;
	ck_assert_uint_eq(addrs[0] + addrs[1] + addrs[2], 0x10 + 0x20 + 0x24);
	/* Sample 0: leaf at 0x20, main at 0x10; pid 1, tid 2. */
	ck_assert_uint_eq(p.locations[p.sample_locs[p.samples[0].first_loc]].address, 0x20);
	ck_assert_uint_eq(p.locations[p.sample_locs[p.samples[0].first_loc + 1]].address, 0x10);
	ck_assert_uint_eq(p.locations[p.sample_locs[p.samples[1].first_loc]].address, 0x24);
	for (i = 0; i < 2; i++) {
		uint32_t want[2][2] = { { 1, 2 }, { 3, 3 } };
		size_t seen = 0;

		for (j = 0; j < p.samples[i].nr_labels; j++) {
			const struct pprof_label *l = &p.labels[p.samples[i].first_label + j];
			const char *key = pprof_str_at(&p, l->key);

			if (strcmp(key, "pid") == 0 && ++seen)
				ck_assert_int_eq(l->num, want[i][0]);
			if (strcmp(key, "tid") == 0 && ++seen)
				ck_assert_int_eq(l->num, want[i][1]);
		}
		ck_assert_uint_eq(seen, 2);
	}
	pprof_profile_release(&p);
	/* --folded: the group is one line. */
	f = open_memstream(&text, &len);
	output_folded(f, &snap);
	fclose(f);
	ck_assert_str_eq(text, "wl;main;leaf 3\n\n");
	free(text);
	strbuf_release(&raw);
}
END_TEST

/* Without callchains each row is a one-frame sample, labelled with the
 * pid and tid the sort keys hold; a counted event is in its own unit. */
START_TEST(test_encode_rows)
{
	struct snapshot_row rows[2] = {
		{ .samples = 7, .period = 7000000, .comm = "wl", .has_pid = true, .pid = 42,
		  .has_tid = true, .tid = 43, .dso = "wl", .symbol = "leaf" },
		{ .samples = 3, .period = 3000000, .comm = "sh", .has_pid = true, .pid = 9,
		  .has_tid = true, .tid = 9, .dso = "libc.so.6", .symbol = "[unknown]" },
	};
	struct snapshot snap = {
		.time = 1.0,
		.event = "cycles",
		.freq = false,
		.sample_period = 1000000,
		.rows = rows,
		.nr_rows = 2,
	};
	struct strbuf raw, sb;
	struct prof pr;
	struct fld f[16];
	size_t k;

	ck_assert_int_eq(sort_spec_parse("comm,pid,sym", &snap.sort, NULL), 0);
	strbuf_init(&raw);
	strbuf_init(&sb);
	pprof_encode(&raw, &snap, NULL, 0);
	prof_decode(&pr, &raw);
	k = decode(prof_nth(&pr, 1, 1)->p, prof_nth(&pr, 1, 1)->n, f, 16);
	ck_assert_str_eq(prof_str(&pr, field_u(f, k, 1)), "cycles");
	prof_release(&pr);
	/* perf's modifiers: still a clock, in nanoseconds */
	snap.event = "task-clock:ppp";
	strbuf_reset(&raw);
	pprof_encode(&raw, &snap, NULL, 0);
	prof_decode(&pr, &raw);
	k = decode(prof_nth(&pr, 1, 1)->p, prof_nth(&pr, 1, 1)->n, f, 16);
	ck_assert_str_eq(prof_str(&pr, field_u(f, k, 1)), "cpu");
	ck_assert_str_eq(prof_str(&pr, field_u(f, k, 2)), "nanoseconds");
	prof_release(&pr);
	snap.event = "cycles";
	strbuf_reset(&raw);
	pprof_encode(&raw, &snap, NULL, 0);
	prof_decode(&pr, &raw);
	k = decode(prof_nth(&pr, 1, 1)->p, prof_nth(&pr, 1, 1)->n, f, 16);
	ck_assert_str_eq(prof_str(&pr, field_u(f, k, 1)), "cycles");
	ck_assert_str_eq(prof_str(&pr, field_u(f, k, 2)), "count");
	ck_assert_uint_eq(field_u(pr.top, pr.ntop, 12), 1000000);
	ck_assert_uint_eq(prof_count(&pr, 13), 0);
	prof_sample_text(&pr, 0, &sb);
	/* tid is not a key: no tid label */
	ck_assert_str_eq(sb.buf, "comm=wl|pid=42|leaf 7 7000000");
	strbuf_reset(&sb);
	prof_sample_text(&pr, 1, &sb);
	ck_assert_str_eq(sb.buf, "comm=sh|pid=9|[libc.so.6] 3 3000000");
	prof_release(&pr);
	strbuf_release(&raw);
	strbuf_release(&sb);
}
END_TEST

/* --inline: helper inlined into work (the frame before it, root first) is
 * the first Line of work's Location; main stays a Location of its own. */
START_TEST(test_encode_inline)
{
	static const struct snapshot_frame fr[] = {
		{ .symbol = "main", .dso = "wl" },
		{ .symbol = "work", .dso = "wl" },
		{ .symbol = "helper", .dso = "wl", .inlined = true },
	};
	struct snapshot_stack st = {
		.comm = "wl", .frames = fr, .nr_frames = 3, .samples = 4, .period = 4000
	};
	struct snapshot snap = {
		.event = "cpu-clock",
		.callchains = true,
		.stacks = &st,
		.nr_stacks = 1,
		.inline_frames = true,
	};
	struct strbuf raw, names;
	struct prof pr;
	struct fld f[16], line[4], fn[8];
	const struct fld *x;
	size_t k, i, j;

	ck_assert_int_eq(sort_spec_parse("dso,sym", &snap.sort, NULL), 0);
	strbuf_init(&raw);
	strbuf_init(&names);
	pprof_encode(&raw, &snap, NULL, 0);
	prof_decode(&pr, &raw);
	ck_assert_uint_eq(prof_count(&pr, 4), 2);
	for (i = 0; (x = prof_nth(&pr, 4, i)); i++) {
		k = decode(x->p, x->n, f, 16);
		strbuf_addf(&names, "%llu:", (unsigned long long)field_u(f, k, 1));
		for (j = 0; j < k; j++) {
			const struct fld *y;
			size_t kl, n;

			if (f[j].num != 4)
				continue;
			kl = decode(f[j].p, f[j].n, line, 4);
			for (n = 0; (y = prof_nth(&pr, 5, n)); n++) {
				size_t kf = decode(y->p, y->n, fn, 8);

				if (field_u(fn, kf, 1) == field_u(line, kl, 1))
					strbuf_addf(&names, " %s", prof_str(&pr, field_u(fn, kf, 2)));
			}
		}
		strbuf_addch(&names, ';');
	}
	/* The sample's first Location holds helper then work. */
	ck_assert_ptr_nonnull(strstr(names.buf, " helper work;"));
	ck_assert_ptr_nonnull(strstr(names.buf, " main;"));
	x = prof_nth(&pr, 3, 0);
	k = decode(x->p, x->n, f, 16);
	ck_assert_uint_eq(field_u(f, k, 10), 1);  /* has_inline_frames */
	prof_release(&pr);
	strbuf_release(&raw);
	strbuf_release(&names);
}
END_TEST

/* With --inline or -s srcline the frames carry lines: each Location's
 * Lines have them (the inlined helper's own line, then work's call line),
 * Functions their start lines, and only a mapping whose every Line has one
 * says has_line_numbers.  A Function two frames name with two files gets
 * the least, whichever stack comes first. */
static void encode_lines(struct snapshot_stack *st, size_t n, Perftools__Profiles__Profile **out)
{
	struct snapshot snap = {
		.event = "cpu-clock", .callchains = true, .stacks = st, .nr_stacks = n,
		.inline_frames = true,
	};
	struct strbuf raw;

	ck_assert_int_eq(sort_spec_parse("dso,sym", &snap.sort, NULL), 0);
	strbuf_init(&raw);
	pprof_encode(&raw, &snap, NULL, 0);
	*out = perftools__profiles__profile__unpack(NULL, raw.len, (const uint8_t *)raw.buf);
	ck_assert_ptr_nonnull(*out);
	strbuf_release(&raw);
}

static const char *lines_fn(const Perftools__Profiles__Profile *p, uint64_t id, unsigned *start,
			    const char **file)
{
	size_t i;

	for (i = 0; i < p->n_function; i++)
		if (p->function[i]->id == id) {
			*start = (unsigned)p->function[i]->start_line;
			*file = p->string_table[p->function[i]->filename];
			return p->string_table[p->function[i]->name];
		}
	ck_abort_msg("no function %llu", (unsigned long long)id);
	return NULL;
}

/* "addr:name@line,name@line;" for each Location, in id order, and
 * "name file:start;" for each Function with a file, and the mappings'
 * has_line_numbers. */
static void lines_text(const Perftools__Profiles__Profile *p, struct strbuf *sb)
{
	size_t i, j;
	unsigned start;
	const char *file, *name;

	for (i = 0; i < p->n_location; i++) {
		strbuf_addf(sb, "%llx:", (unsigned long long)p->location[i]->address);
		for (j = 0; j < p->location[i]->n_line; j++) {
			name = lines_fn(p, p->location[i]->line[j]->function_id, &start, &file);
			strbuf_addf(sb, "%s%s@%lld", j ? "," : "", name,
				    (long long)p->location[i]->line[j]->line);
		}
		strbuf_addch(sb, ';');
	}
	for (i = 0; i < p->n_function; i++) {
		name = lines_fn(p, p->function[i]->id, &start, &file);
		if (*file)
			strbuf_addf(sb, " %s %s:%u;", name, file, start);
	}
	for (i = 0; i < p->n_mapping; i++)
		strbuf_addf(sb, " %s%s", p->string_table[p->mapping[i]->filename],
			    p->mapping[i]->has_line_numbers ? "[LN]" : "");
}

START_TEST(test_encode_lines)
{
	static const struct snapshot_frame fr[] = {
		/* main -> work, helper inlined into it at 0x1100 */
		{ .symbol = "main", .dso = "wl", .addr = 0x1010, .file = "wl.c", .start_line = 25,
		  .line = 30 },
		{ .symbol = "work", .dso = "wl", .addr = 0x1100, .file = "wl.c", .start_line = 10,
		  .line = 12 },
		{ .symbol = "helper", .dso = "wl", .inlined = true, .addr = 0x1100, .file = "h.h",
		  .start_line = 3, .line = 5 },
		/* main -> leaf in a library without lines; helper again, named
		   with another file (a second static helper) */
		{ .symbol = "main", .dso = "wl", .addr = 0x1020, .file = "wl.c", .start_line = 25,
		  .line = 31 },
		{ .symbol = "work", .dso = "wl", .addr = 0x1104, .file = "wl.c", .start_line = 10,
		  .line = 13 },
		{ .symbol = "helper", .dso = "wl", .inlined = true, .addr = 0x1104, .file = "a.h",
		  .start_line = 7, .line = 8 },
		{ .symbol = "leaf", .dso = "libx.so", .addr = 0x500 },
	};
	struct snapshot_stack st[2] = {
		{ .comm = "wl", .frames = &fr[0], .nr_frames = 3, .samples = 2, .period = 20 },
		{ .comm = "wl", .frames = &fr[3], .nr_frames = 4, .samples = 1, .period = 10 },
	}, rev[2] = { st[1], st[0] };
	Perftools__Profiles__Profile *p;
	struct strbuf a, b;

	strbuf_init(&a);
	strbuf_init(&b);
	encode_lines(st, 2, &p);
	lines_text(p, &a);
	perftools__profiles__profile__free_unpacked(p, NULL);
	ck_assert_str_eq(a.buf, "1100:helper@5,work@12;1010:main@30;500:leaf@0;1104:helper@8,work@13;"
				"1020:main@31; helper a.h:7; work wl.c:10; main wl.c:25; wl[LN] libx.so");
	encode_lines(rev, 2, &p);
	lines_text(p, &b);
	perftools__profiles__profile__free_unpacked(p, NULL);
	ck_assert_ptr_nonnull(strstr(b.buf, " helper a.h:7;"));
	ck_assert_ptr_nonnull(strstr(b.buf, " wl[LN]"));
	ck_assert_ptr_null(strstr(b.buf, "libx.so[LN]"));
	strbuf_release(&a);
	strbuf_release(&b);
}
END_TEST

static void inflate_all(const struct strbuf *gz, struct strbuf *out)
{
	z_stream z;
	char buf[4096];
	int rc;

	memset(&z, 0, sizeof(z));
	ck_assert_int_eq(inflateInit2(&z, 15 + 16), Z_OK);  /* gzip only */
	z.next_in = (Bytef *)gz->buf;
	z.avail_in = (uInt)gz->len;
	do {
		z.next_out = (Bytef *)buf;
		z.avail_out = sizeof(buf);
		rc = inflate(&z, Z_NO_FLUSH);
		ck_assert(rc == Z_OK || rc == Z_STREAM_END);
		strbuf_add(out, buf, sizeof(buf) - z.avail_out);
	} while (rc != Z_STREAM_END);
	ck_assert_uint_eq(z.avail_in, 0);
	inflateEnd(&z);
}

START_TEST(test_gzip)
{
	struct strbuf in, gz, back;
	size_t i;

	strbuf_init(&in);
	strbuf_init(&gz);
	strbuf_init(&back);
	/* More than one output buffer's worth, incompressible enough. */
	for (i = 0; i < 100000; i++)
		strbuf_addch(&in, (char)(i * 2654435761u >> 13));
	ck_assert_int_eq(pprof_gzip(in.buf, in.len, &gz, NULL), 0);
	ck_assert_mem_eq(gz.buf, "\x1f\x8b", 2);
	inflate_all(&gz, &back);
	ck_assert_uint_eq(back.len, in.len);
	ck_assert_mem_eq(back.buf, in.buf, in.len);
	strbuf_release(&in);
	strbuf_release(&gz);
	strbuf_release(&back);
}
END_TEST

/* Live, each refresh's file is stored (gzip without deflate: the CPU of a
 * file rewritten every second, issue 18), the same profile; finishing
 * compresses the last one into exactly what a one-shot writer writes. */
START_TEST(test_writer_live)
{
	char *dir = testutil_tmpdir("check_pprof");
	char *live = xasprintf("%s/live.pb.gz", dir), *once = xasprintf("%s/once.pb.gz", dir);
	struct snapshot_stack st[4];
	struct snapshot snap = stacks_snapshot(st);
	struct errmsg em = ERRMSG_INIT;
	struct pprof_writer *w = pprof_writer_new(live, "c"), *o = pprof_writer_new(once, "c");
	struct strbuf gz, back, raw;
	struct prof pr;
	size_t len, len2;
	char *data, *data2;

	snap.wall_start_ns = 1234567890;
	pprof_writer_live(w);
	ck_assert_int_eq(pprof_writer_snapshot(w, &snap, &em), 0);
	st[0].samples = 77;
	ck_assert_int_eq(pprof_writer_snapshot(w, &snap, &em), 0);
	strbuf_init(&raw);
	pprof_encode(&raw, &snap, "c", 1234567890);
	ck_assert_int_eq(read_file(live, 1 << 20, &data, &len), 0);
	strbuf_init(&gz);
	strbuf_init(&back);
	strbuf_add(&gz, data, len);
	ck_assert_mem_eq(gz.buf, "\x1f\x8b", 2);
	/* stored: the live profile's bytes as they are, plus framing (its
	   content against a one-shot's: check_pprof_live) */
	inflate_all(&gz, &back);
	ck_assert_uint_gt(len, back.len);
	ck_assert_ptr_nonnull(memmem(data, len, back.buf, back.len));
	prof_decode(&pr, &back);
	ck_assert_uint_eq(prof_count(&pr, 2), 3);
	strbuf_reset(&gz);
	prof_sample_text(&pr, 0, &gz);
	ck_assert_str_eq(gz.buf, "comm=wl|leaf;work;main 77 30000");
	prof_release(&pr);
	free(data);

	ck_assert_int_eq(pprof_writer_finish(w, &snap, &em), 0);
	pprof_writer_free(w);
	ck_assert_int_eq(pprof_writer_snapshot(o, &snap, &em), 0);
	ck_assert_int_eq(pprof_writer_finish(o, NULL, &em), 0);
	pprof_writer_free(o);
	ck_assert_int_eq(read_file(live, 1 << 20, &data, &len), 0);
	ck_assert_int_eq(read_file(once, 1 << 20, &data2, &len2), 0);
	ck_assert_uint_eq(len, len2);
	ck_assert_mem_eq(data, data2, len);
	ck_assert_uint_lt(len, raw.len);
	ck_assert_int_eq(testutil_sh("test $(ls '%s' | wc -l) = 2", dir), 0);

	free(data);
	free(data2);
	strbuf_release(&gz);
	strbuf_release(&back);
	strbuf_release(&raw);
	free(live);
	free(once);
	free(dir);
}
END_TEST

/* The file is replaced at each snapshot, with no temporary left, readable
 * by others; a directory that does not exist is a clear error. */
START_TEST(test_writer_file)
{
	char *dir = testutil_tmpdir("check_pprof");
	char *path = xasprintf("%s/p.pb.gz", dir), *bad = xasprintf("%s/no/p.pb.gz", dir);
	struct snapshot_stack st[4];
	struct snapshot snap = stacks_snapshot(st);
	struct errmsg em = ERRMSG_INIT;
	struct pprof_writer *w = pprof_writer_new(path, "c");
	struct strbuf gz, raw;
	struct prof pr;
	struct stat sbuf;
	size_t len;
	char *data;

	ck_assert_int_eq(pprof_writer_snapshot(w, &snap, &em), 0);
	st[0].samples = 99;
	ck_assert_int_eq(pprof_writer_snapshot(w, &snap, &em), 0);
	ck_assert_int_eq(pprof_writer_finish(w, NULL, &em), 0);
	pprof_writer_free(w);
	ck_assert_int_eq(testutil_sh("test $(ls '%s' | wc -l) = 1", dir), 0);
	ck_assert_int_eq(stat(path, &sbuf), 0);
	ck_assert_uint_eq(sbuf.st_mode & 0777, 0644);

	ck_assert_int_eq(read_file(path, 1 << 20, &data, &len), 0);
	strbuf_init(&gz);
	strbuf_init(&raw);
	strbuf_add(&gz, data, len);
	inflate_all(&gz, &raw);
	prof_decode(&pr, &raw);
	strbuf_reset(&gz);
	prof_sample_text(&pr, 0, &gz);
	/* the second snapshot's */
	ck_assert_str_eq(gz.buf, "comm=wl|leaf;work;main 99 30000");
	prof_release(&pr);

	w = pprof_writer_new(bad, NULL);
	ck_assert_int_eq(pprof_writer_snapshot(w, &snap, &em), -ENOENT);
	ck_assert_ptr_nonnull(strstr(errmsg_text(&em, -ENOENT), "/no/p.pb.gz"));
	pprof_writer_free(w);

	free(data);
	strbuf_release(&gz);
	strbuf_release(&raw);
	free(path);
	free(bad);
	free(dir);
}
END_TEST

/* argv for options_parse: "proftop" then the NULL-terminated args. */
static int parse(struct options *o, char **args)
{
	char *argv[8] = { "proftop" };
	enum options_result res;
	int argc = 1;

	while (*args)
		argv[argc++] = *args++;
	argv[argc] = NULL;
	optind = 0;
	return options_parse(o, argc, argv, false, &res);
}

/* --pprof alone prints no table and keeps stacks (live: with chains);
 * with --batch the table too; "-" shares stdout with no table format. */
START_TEST(test_options)
{
	struct options o;

	ck_assert_int_eq(parse(&o, (char *[]){ "--pprof=p.gz", NULL }), 0);
	ck_assert_int_eq(o.output, OUTPUT_NONE);
	ck_assert_str_eq(o.pprof, "p.gz");
	ck_assert(o.view.stacks);
	ck_assert(o.callchain);
	options_release(&o);
	ck_assert_int_eq(parse(&o, (char *[]){ "--pprof=p.gz", "--batch", NULL }), 0);
	ck_assert_int_eq(o.output, OUTPUT_TEXT);
	options_release(&o);
	ck_assert_int_eq(parse(&o, (char *[]){ "--pprof=-", "--json", "-i", "x", NULL }), -EINVAL);
	ck_assert_int_eq(parse(&o, (char *[]){ "--pprof=p.gz", "--json", "-i", "x", NULL }), 0);
	ck_assert_int_eq(o.output, OUTPUT_JSON);
	ck_assert(!o.callchain);  /* a recording has chains or not */
	options_release(&o);
	ck_assert_int_eq(parse(&o, (char *[]){ "--pprof=", NULL }), -EINVAL);
	ck_assert_int_eq(parse(&o, (char *[]){ "--pprof=p", "--tui", NULL }), -EINVAL);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("pprof");
	TCase *tc = tcase_create("pprof");

	tcase_add_test(tc, test_varint);
	tcase_add_test(tc, test_encode_stacks);
	tcase_add_test(tc, test_encode_detail);
	tcase_add_test(tc, test_encode_rows);
	tcase_add_test(tc, test_encode_inline);
	tcase_add_test(tc, test_encode_lines);
	tcase_add_test(tc, test_gzip);
	tcase_add_test(tc, test_writer_file);
	tcase_add_test(tc, test_writer_live);
	tcase_add_test(tc, test_options);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return testutil_run(suite()) != 0;
}
