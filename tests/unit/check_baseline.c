/* Unit tests for --baseline: the pprof reader (proftop's own profiles read
 * back, and hand-made hostile ones: each refused with its reason), the
 * folded reader, and the matching of rows (deltas, new and gone rows, a
 * baseline of another event). */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "baseline.h"
#include "column.h"
#include "errmsg.h"
#include "pprof-read.h"
#include "pprof.h"
#include "strbuf.h"
#include "testutil.h"
#include "util.h"
#include "view.h"

/* ---- building messages by hand ---- */

static void put_uint(struct strbuf *sb, unsigned field, uint64_t v)
{
	testutil_pb_key(sb, field, 0);
	testutil_pb_varint(sb, v);
}

static void put_bytes(struct strbuf *sb, unsigned field, const char *p, size_t n)
{
	testutil_pb_key(sb, field, 2);
	testutil_pb_varint(sb, n);
	strbuf_add(sb, p, n);
}

static void put_msg(struct strbuf *sb, unsigned field, struct strbuf *msg)
{
	put_bytes(sb, field, msg->buf, msg->len);
	strbuf_reset(msg);
}

/* What a hand-made profile gets wrong, one thing at a time. */
struct flaw {
	uint64_t fn_name;            /* the function's name index (3: "leaf") */
	uint64_t sample_loc;         /* the location id a sample names (1) */
	uint64_t line_fn;            /* the function id a Line names (1) */
	bool first_not_empty;        /* string_table[0] is not "" */
	bool extra_value;            /* a sample with 2 values for 1 type */
	bool dup_location;           /* two Locations with id 1 */
	const char *type;            /* the sample type ("samples") */
};

#define FLAW_NONE { .fn_name = 3, .sample_loc = 1, .line_fn = 1, .type = "samples" }

/* strings: "", type, "count", "leaf", "/usr/lib/libx.so", "comm", "wl" */
static void build(struct strbuf *out, const struct flaw *fl)
{
	const char *strs[] = { fl->first_not_empty ? "x" : "", fl->type, "count", "leaf",
			       "/usr/lib/libx.so", "comm", "wl" };
	struct strbuf m, sub;
	size_t i;

	strbuf_init(&m);
	strbuf_init(&sub);
	put_uint(&m, 1, 1);
	put_uint(&m, 2, 2);
	put_msg(out, 1, &m);
	/* A sample, values and location ids unpacked (pprof allows both). */
	put_uint(&m, 1, fl->sample_loc);
	put_uint(&m, 2, 5);
	if (fl->extra_value)
		put_uint(&m, 2, 6);
	put_uint(&sub, 1, 5);
	put_uint(&sub, 2, 6);
	put_msg(&m, 3, &sub);
	put_msg(out, 2, &m);
	put_uint(&m, 1, 1);
	put_uint(&m, 5, 4);
	put_msg(out, 3, &m);
	for (i = 0; i < (fl->dup_location ? 2u : 1u); i++) {
		put_uint(&m, 1, 1);
		put_uint(&m, 2, 1);
		put_uint(&sub, 1, fl->line_fn);
		put_msg(&m, 4, &sub);
		put_msg(out, 4, &m);
	}
	put_uint(&m, 1, 1);
	put_uint(&m, 2, fl->fn_name);
	put_msg(out, 5, &m);
	for (i = 0; i < ARRAY_SIZE(strs); i++)
		put_bytes(out, 6, strs[i], strlen(strs[i]));
	strbuf_release(&m);
	strbuf_release(&sub);
}

/* Decode a flawed profile: the error, with its message in em. */
static int decode_flawed(const struct flaw *fl, struct errmsg *em)
{
	struct pprof_profile p;
	struct strbuf sb;
	int err;

	strbuf_init(&sb);
	build(&sb, fl);
	err = pprof_decode((const unsigned char *)sb.buf, sb.len, &p, em);
	pprof_profile_release(&p);
	strbuf_release(&sb);
	return err;
}

START_TEST(test_decode_hand_made)
{
	struct flaw fl = FLAW_NONE;
	struct pprof_profile p;
	struct errmsg em = ERRMSG_INIT;
	struct strbuf sb;
	size_t n;

	strbuf_init(&sb);
	build(&sb, &fl);
	ck_assert_int_eq(pprof_decode((const unsigned char *)sb.buf, sb.len, &p, &em), 0);
	ck_assert_uint_eq(p.nr_samples, 1);
	ck_assert_uint_eq(p.nr_types, 1);
	ck_assert_str_eq(pprof_str_at(&p, p.types[0][0]), "samples");
	ck_assert_int_eq(p.values[0], 5);
	ck_assert_uint_eq(p.samples[0].nr_locs, 1);
	ck_assert_uint_eq(p.locations[p.sample_locs[0]].mapping, 1);
	ck_assert_str_eq(pprof_str_at(&p, p.mappings[0].filename), "/usr/lib/libx.so");
	ck_assert_str_eq(pprof_str_at(&p, p.functions[p.lines[0].function].name), "leaf");
	ck_assert_str_eq(pprof_str_at(&p, p.labels[0].key), "comm");
	pprof_profile_release(&p);
	/* Every cut of it decodes or is refused, never read past its end
	   (valgrind and ASan runs of this suite watch that). */
	for (n = 0; n < sb.len; n++) {
		pprof_decode((const unsigned char *)sb.buf, n, &p, NULL);
		pprof_profile_release(&p);
	}
	strbuf_release(&sb);
}
END_TEST

START_TEST(test_decode_hostile)
{
	struct flaw fl = FLAW_NONE;
	struct errmsg em = ERRMSG_INIT;
	struct pprof_profile p;
	unsigned char over[16];

	fl.fn_name = 99;
	ck_assert_int_eq(decode_flawed(&fl, &em), -EINVAL);
	ck_assert_ptr_nonnull(strstr(em.text, "string index 99, the table has 7"));
	fl = (struct flaw)FLAW_NONE;
	fl.sample_loc = 7;
	errmsg_clear(&em);
	ck_assert_int_eq(decode_flawed(&fl, &em), -EINVAL);
	ck_assert_ptr_nonnull(strstr(em.text, "location id 7, which no Location has"));
	fl = (struct flaw)FLAW_NONE;
	fl.line_fn = 3;
	errmsg_clear(&em);
	ck_assert_int_eq(decode_flawed(&fl, &em), -EINVAL);
	ck_assert_ptr_nonnull(strstr(em.text, "function id 3"));
	fl = (struct flaw)FLAW_NONE;
	fl.first_not_empty = true;
	errmsg_clear(&em);
	ck_assert_int_eq(decode_flawed(&fl, &em), -EINVAL);
	ck_assert_ptr_nonnull(strstr(em.text, "does not start with"));
	fl = (struct flaw)FLAW_NONE;
	fl.extra_value = true;
	errmsg_clear(&em);
	ck_assert_int_eq(decode_flawed(&fl, &em), -EINVAL);
	ck_assert_ptr_nonnull(strstr(em.text, "2 values for 1 sample types"));
	fl = (struct flaw)FLAW_NONE;
	fl.dup_location = true;
	errmsg_clear(&em);
	ck_assert_int_eq(decode_flawed(&fl, &em), -EINVAL);
	ck_assert_ptr_nonnull(strstr(em.text, "used twice"));
	/* A key varint of 11 bytes. */
	memset(over, 0x80, sizeof(over));
	errmsg_clear(&em);
	ck_assert_int_eq(pprof_decode(over, 11, &p, &em), -EINVAL);
	ck_assert_ptr_nonnull(strstr(em.text, "damaged or truncated"));
	pprof_profile_release(&p);
	/* A length past the end. */
	errmsg_clear(&em);
	ck_assert_int_eq(pprof_decode((const unsigned char *)"\x32\x7f" "ab", 4, &p, &em),
			 -EINVAL);
	pprof_profile_release(&p);
}
END_TEST

START_TEST(test_gunzip)
{
	struct flaw fl = FLAW_NONE;
	struct errmsg em = ERRMSG_INIT;
	struct strbuf raw, gz, two;
	unsigned char *out;
	size_t n;

	strbuf_init(&raw);
	strbuf_init(&gz);
	strbuf_init(&two);
	build(&raw, &fl);
	ck_assert_int_eq(pprof_gzip(raw.buf, raw.len, &gz, NULL), 0);
	ck_assert_int_eq(pprof_gunzip(gz.buf, gz.len, 1 << 20, &out, &n, &em), 0);
	ck_assert_uint_eq(n, raw.len);
	ck_assert_mem_eq(out, raw.buf, n);
	free(out);
	/* Two members, one after the other, are one stream. */
	strbuf_add(&two, gz.buf, gz.len);
	strbuf_add(&two, gz.buf, gz.len);
	ck_assert_int_eq(pprof_gunzip(two.buf, two.len, 1 << 20, &out, &n, &em), 0);
	ck_assert_uint_eq(n, 2 * raw.len);
	free(out);
	ck_assert_int_eq(pprof_gunzip(gz.buf, gz.len - 10, 1 << 20, &out, &n, &em), -EINVAL);
	ck_assert_ptr_nonnull(strstr(em.text, "truncated"));
	ck_assert_ptr_null(out);
	errmsg_clear(&em);
	ck_assert_int_eq(pprof_gunzip(raw.buf, raw.len, 1 << 20, &out, &n, &em), -EINVAL);
	ck_assert_ptr_nonnull(strstr(em.text, "not a gzip"));
	errmsg_clear(&em);
	ck_assert_int_eq(pprof_gunzip(gz.buf, gz.len, 16, &out, &n, &em), -E2BIG);
	/* A flipped byte in the deflate data. */
	gz.buf[12] ^= 0x55;
	errmsg_clear(&em);
	ck_assert_int_ne(pprof_gunzip(gz.buf, gz.len, 1 << 20, &out, &n, &em), 0);
	strbuf_release(&raw);
	strbuf_release(&gz);
	strbuf_release(&two);
}
END_TEST

/* ---- baselines ---- */

static char *write_tmp(const char *name, const char *data, size_t n)
{
	char *dir = testutil_tmpdir("baseline");
	char *path = xasprintf("%s/%s", dir, name);
	FILE *f = fopen(path, "w");

	ck_assert_ptr_nonnull(f);
	ck_assert_uint_eq(fwrite(data, 1, n, f), n);
	fclose(f);
	free(dir);
	return path;
}

static struct baseline *load_ok(const char *name, const char *text)
{
	char *path = write_tmp(name, text, strlen(text));
	struct errmsg em = ERRMSG_INIT;
	struct baseline *bl;

	ck_assert_msg(baseline_load(path, &bl, &em) == 0, "%s", em.text);
	free(path);
	return bl;
}

static int load_bad(const char *name, const char *data, size_t n, struct errmsg *em)
{
	char *path = write_tmp(name, data, n);
	struct baseline *bl = NULL;
	int err = baseline_load(path, &bl, em);

	ck_assert_ptr_null(bl);
	free(path);
	return err;
}

/* A table of three rows, sorted by comm,sym: leaf 50%, newfn 30%, main
 * 20% (no self: a caller). */
static struct snapshot table(struct snapshot_row *rows)
{
	struct snapshot snap = {
		.event = "cpu-clock",
		.period = 100,
		.samples = 100,
		.nr_rows = 3,
	};

	rows[0] = (struct snapshot_row){ .self = 50, .samples = 50, .period = 50, .comm = "wl",
					 .dso = "wl", .symbol = "leaf" };
	rows[1] = (struct snapshot_row){ .self = 30, .samples = 30, .period = 30, .comm = "wl",
					 .dso = "libx.so", .symbol = "newfn" };
	rows[2] = (struct snapshot_row){ .self = 0, .samples = 0, .period = 0, .comm = "wl",
					 .dso = "wl", .symbol = "main" };
	snap.rows = xmalloc(3 * sizeof(*rows));
	memcpy(snap.rows, rows, 3 * sizeof(*rows));
	ck_assert_int_eq(sort_spec_parse("comm,sym", &snap.sort, NULL), 0);
	return snap;
}

START_TEST(test_folded_apply)
{
	/* Two refreshes (--folded -n 2): the last one counts. */
	struct baseline *bl = load_ok("a.folded", "wl;main;old 99\n\n"
						  "wl;main;leaf 30\n"
						  "wl;main;leaf 50\n"
						  "wl;main;gone_fn_[k] 20\n");
	struct snapshot_row rows[3];
	struct snapshot snap = table(rows);
	struct strbuf sb;
	size_t i;

	strbuf_init(&sb);
	/* Applied twice: the gone rows are not added twice. */
	for (i = 0; i < 2; i++) {
		ck_assert_int_eq(baseline_apply(bl, &snap, NULL, NULL), 0);
		ck_assert(snap.baseline);
		ck_assert_uint_eq(snap.nr_rows, 4);
		ck_assert_uint_eq(snap.nr_gone, 1);
	}
	ck_assert(snap.rows[0].has_baseline);
	ck_assert_double_eq_tol(snap.rows[0].baseline, 80.0, 1e-9);
	ck_assert_double_eq_tol(column_delta(&snap.rows[0]), -30.0, 1e-9);
	ck_assert(!snap.rows[1].has_baseline);
	ck_assert(snap.rows[2].has_baseline && snap.rows[2].baseline == 0);
	column_text(&sb, &snap, &snap.rows[1], COLUMN_DELTA, 30, 0, COLUMN_BATCH);
	ck_assert_str_eq(sb.buf, "new");
	strbuf_reset(&sb);
	column_text(&sb, &snap, &snap.rows[1], COLUMN_BASELINE, 30, 0, COLUMN_BATCH);
	ck_assert_str_eq(sb.buf, "-");
	strbuf_reset(&sb);
	column_text(&sb, &snap, &snap.rows[0], COLUMN_DELTA, 50, 0, COLUMN_BATCH);
	ck_assert_str_eq(sb.buf, "-30.00");
	/* gone_fn: only in the baseline, a kernel function by its mark */
	ck_assert(snap.rows[3].gone);
	ck_assert_str_eq(snap.rows[3].symbol, "gone_fn");
	ck_assert_str_eq(snap.rows[3].comm, "wl");
	ck_assert(snap.rows[3].kernel);
	ck_assert_double_eq_tol(snap.rows[3].baseline, 20.0, 1e-9);
	strbuf_reset(&sb);
	column_text(&sb, &snap, &snap.rows[3], COLUMN_DELTA, 0, 0, COLUMN_BATCH);
	ck_assert_str_eq(sb.buf, "gone");
	/* Sorted by Delta: the new row (+30), the caller (0), gone_fn (-20),
	   leaf (-30). */
	ck_assert_int_lt(column_cmp(&snap, COLUMN_DELTA, &snap.rows[1], &snap.rows[2]), 0);
	ck_assert_int_lt(column_cmp(&snap, COLUMN_DELTA, &snap.rows[2], &snap.rows[3]), 0);
	ck_assert_int_lt(column_cmp(&snap, COLUMN_DELTA, &snap.rows[3], &snap.rows[0]), 0);
	/* The columns: Self, Baseline, Delta, Samples, ... */
	{
		enum column_id cols[COLUMN__MAX];

		ck_assert_uint_ge(column_list(&snap, true, cols), 4);
		ck_assert_int_eq(cols[1], COLUMN_BASELINE);
		ck_assert_int_eq(cols[2], COLUMN_DELTA);
	}
	/* The batch table's filters: -K, --percent-limit, -E hide it. */
	{
		struct view_opts v = { .hide_kernel = true };

		ck_assert_int_eq(baseline_apply(bl, &snap, &v, NULL), 0);
		ck_assert_uint_eq(snap.nr_gone, 0);
		v = (struct view_opts){ .percent_limit = 20.5 };
		ck_assert_int_eq(baseline_apply(bl, &snap, &v, NULL), 0);
		ck_assert_uint_eq(snap.nr_gone, 0);
		v = (struct view_opts){ .percent_limit = 19.5, .max_rows = 3 };
		ck_assert_int_eq(baseline_apply(bl, &snap, &v, NULL), 0);
		ck_assert_uint_eq(snap.nr_gone, 0);
		v.max_rows = 4;
		ck_assert_int_eq(baseline_apply(bl, &snap, &v, NULL), 0);
		ck_assert_uint_eq(snap.nr_gone, 1);
	}
	strbuf_release(&sb);
	snapshot_release(&snap);
	baseline_free(bl);
}
END_TEST

/* B: the table as the baseline gives every row a delta of 0, and a
 * folded baseline (counts, no event) fits any event; a pprof of another
 * event does not. */
START_TEST(test_from_snapshot)
{
	struct snapshot_row rows[3];
	struct snapshot snap = table(rows);
	struct errmsg em = ERRMSG_INIT;
	struct baseline *bl = baseline_from_snapshot(&snap, NULL);
	struct flaw fl = FLAW_NONE;
	struct strbuf raw, gz;
	char *path;
	size_t i;

	ck_assert_int_eq(baseline_apply(bl, &snap, NULL, NULL), 0);
	ck_assert_uint_eq(snap.nr_gone, 0);
	for (i = 0; i < snap.nr_rows; i++) {
		ck_assert(snap.rows[i].has_baseline);
		ck_assert_double_eq_tol(column_delta(&snap.rows[i]), 0, 1e-9);
	}
	baseline_free(bl);

	strbuf_init(&raw);
	strbuf_init(&gz);
	fl.type = "cycles";
	build(&raw, &fl);
	ck_assert_int_eq(pprof_gzip(raw.buf, raw.len, &gz, NULL), 0);
	path = write_tmp("cycles.pb.gz", gz.buf, gz.len);
	ck_assert_int_eq(baseline_load(path, &bl, &em), 0);
	ck_assert_int_eq(baseline_apply(bl, &snap, NULL, &em), -EINVAL);
	ck_assert_ptr_nonnull(strstr(em.text, "counts cycles, this profile cpu"));
	ck_assert(!snap.baseline);
	baseline_free(bl);
	free(path);
	strbuf_release(&raw);
	strbuf_release(&gz);
	snapshot_release(&snap);
}
END_TEST

/* A pprof baseline matched by comm (a label), DSO (the mapping's base
 * name) and symbol. */
START_TEST(test_pprof_apply)
{
	struct snapshot_row rows[3];
	struct snapshot snap = table(rows);
	struct flaw fl = FLAW_NONE;
	struct strbuf raw, gz;
	struct baseline *bl;
	char *path;

	strbuf_init(&raw);
	strbuf_init(&gz);
	build(&raw, &fl);
	ck_assert_int_eq(pprof_gzip(raw.buf, raw.len, &gz, NULL), 0);
	path = write_tmp("a.pb.gz", gz.buf, gz.len);
	ck_assert_int_eq(baseline_load(path, &bl, NULL), 0);
	/* Its DSO is libx.so: with dso a key, leaf of wl is new. */
	ck_assert_int_eq(sort_spec_parse("comm,dso,sym", &snap.sort, NULL), 0);
	ck_assert_int_eq(baseline_apply(bl, &snap, NULL, NULL), 0);
	ck_assert(!snap.rows[0].has_baseline);
	ck_assert_uint_eq(snap.nr_gone, 1);
	ck_assert_str_eq(snap.rows[3].dso, "libx.so");
	ck_assert_str_eq(snap.rows[3].symbol, "leaf");
	ck_assert_double_eq_tol(snap.rows[3].baseline, 100, 1e-9);
	/* Without the dso key, it is leaf's. */
	ck_assert_int_eq(sort_spec_parse("comm,sym", &snap.sort, NULL), 0);
	ck_assert_int_eq(baseline_apply(bl, &snap, NULL, NULL), 0);
	ck_assert_uint_eq(snap.nr_gone, 0);
	ck_assert_double_eq_tol(snap.rows[0].baseline, 100, 1e-9);
	baseline_free(bl);
	free(path);
	strbuf_release(&raw);
	strbuf_release(&gz);
	snapshot_release(&snap);
}
END_TEST

START_TEST(test_bad_files)
{
	struct errmsg em = ERRMSG_INIT;
	char *longline;
	size_t n = (1u << 20) + 10;

	ck_assert_int_eq(load_bad("count.folded", "a;b 12x\n", 8, &em), -EINVAL);
	ck_assert_ptr_nonnull(strstr(em.text, "line 1: the count '12x' is not a whole number"));
	/* A blank and a sign after the last space (fuzz_pprof found it:
	   strtoull took it as 2^64 - 1). */
	errmsg_clear(&em);
	ck_assert_int_eq(load_bad("sign.folded", "a;b 3\nc;d \t-01\n", 15, &em), -EINVAL);
	ck_assert_ptr_nonnull(strstr(em.text, "line 2: the count"));
	errmsg_clear(&em);
	ck_assert_int_eq(load_bad("neg.folded", "a;b 1\na;c -3\n", 13, &em), -EINVAL);
	ck_assert_ptr_nonnull(strstr(em.text, "line 2:"));
	errmsg_clear(&em);
	ck_assert_int_eq(load_bad("nocount.folded", "a;b\n", 4, &em), -EINVAL);
	errmsg_clear(&em);
	ck_assert_int_eq(load_bad("empty.folded", "\n\n", 2, &em), -EINVAL);
	ck_assert_ptr_nonnull(strstr(em.text, "no stacks"));
	errmsg_clear(&em);
	ck_assert_int_eq(load_bad("nul.folded", "a;b\0c 1\n", 8, &em), -EINVAL);
	errmsg_clear(&em);
	ck_assert_int_eq(load_bad("perf.data", "PERFILE2\0\0\0\0", 12, &em), -EINVAL);
	ck_assert_ptr_nonnull(strstr(em.text, "a perf.data recording"));
	errmsg_clear(&em);
	ck_assert_int_eq(load_bad("gz", "\x1f\x8b\x08\0\0\0\0\0\0\x03\x01\x02\x03\x04\x05\x06\x07\x08",
				  18, &em), -EINVAL);
	errmsg_clear(&em);
	longline = xmalloc(n);
	memset(longline, 'x', n);
	memcpy(longline + n - 3, " 1\n", 3);
	ck_assert_int_eq(load_bad("long.folded", longline, n, &em), -EINVAL);
	ck_assert_ptr_nonnull(strstr(em.text, "line 1 is over"));
	free(longline);
	errmsg_clear(&em);
	ck_assert_int_eq(baseline_load("/nonexistent/x", &(struct baseline *){ NULL }, &em),
			 -ENOENT);
	ck_assert_ptr_nonnull(strstr(em.text, "/nonexistent/x"));
}
END_TEST

/* Proftop's own profile (stacks, comm labels, mappings) read back. */
START_TEST(test_roundtrip)
{
	static const struct snapshot_frame fr[] = {
		{ .symbol = "main", .dso = "wl" },
		{ .symbol = "leaf", .dso = "libx.so" },
		{ .symbol = "[unknown]", .dso = "libc.so.6" },
	};
	struct snapshot_stack st[2] = {
		{ .comm = "wl", .frames = &fr[0], .nr_frames = 2, .samples = 3, .period = 3000 },
		{ .comm = "sh", .frames = &fr[1], .nr_frames = 2, .samples = 1, .period = 1000 },
	};
	struct snapshot_row rows[2] = {
		{ .self = 75, .period = 3000, .samples = 3, .comm = "wl", .dso = "libx.so",
		  .symbol = "leaf" },
		{ .self = 25, .period = 1000, .samples = 1, .comm = "sh", .dso = "libc.so.6",
		  .symbol = "[unknown]" },
	};
	struct snapshot snap = {
		.event = "cpu-clock", .callchains = true, .stacks = st, .nr_stacks = 2,
		.period = 4000,
	};
	struct strbuf raw, gz;
	struct baseline *bl;
	char *path;

	ck_assert_int_eq(sort_spec_parse("comm,dso,sym", &snap.sort, NULL), 0);
	strbuf_init(&raw);
	strbuf_init(&gz);
	pprof_encode(&raw, &snap, "c", 0);
	ck_assert_int_eq(pprof_gzip(raw.buf, raw.len, &gz, NULL), 0);
	path = write_tmp("own.pb.gz", gz.buf, gz.len);
	ck_assert_int_eq(baseline_load(path, &bl, NULL), 0);
	snap.stacks = NULL;
	snap.nr_stacks = 0;
	snap.rows = xmalloc(sizeof(rows));
	memcpy(snap.rows, rows, sizeof(rows));
	snap.nr_rows = 2;
	ck_assert_int_eq(baseline_apply(bl, &snap, NULL, NULL), 0);
	ck_assert_uint_eq(snap.nr_gone, 0);
	/* "[libc.so.6]" in the file is libc's [unknown] again. */
	ck_assert(snap.rows[1].has_baseline);
	ck_assert_double_eq_tol(snap.rows[0].baseline, 75, 1e-9);
	ck_assert_double_eq_tol(snap.rows[1].baseline, 25, 1e-9);
	baseline_free(bl);
	free(path);
	strbuf_release(&raw);
	strbuf_release(&gz);
	snapshot_release(&snap);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("baseline");
	TCase *tc = tcase_create("baseline");

	tcase_set_timeout(tc, 30);
	tcase_add_test(tc, test_decode_hand_made);
	tcase_add_test(tc, test_decode_hostile);
	tcase_add_test(tc, test_gunzip);
	tcase_add_test(tc, test_folded_apply);
	tcase_add_test(tc, test_from_snapshot);
	tcase_add_test(tc, test_pprof_apply);
	tcase_add_test(tc, test_bad_files);
	tcase_add_test(tc, test_roundtrip);
	suite_add_tcase(s, tc);
	return testutil_run(s) ? 1 : 0;
}
