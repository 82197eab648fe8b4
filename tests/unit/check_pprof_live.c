/* Unit tests for the live --pprof writer (ui/pprof.c's kept tables): each
 * refresh's file, decoded by protobuf-c, has the samples, locations and
 * functions of a one-shot encoding of the same snapshot; ids stay; the
 * tables keep old entries but no more than half of them unused. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <zlib.h>

#include "callchain.h"
#include "errmsg.h"
#include "fileread.h"
#include "hist.h"
#include "intern.h"
#include "machine.h"
#include "pprof.h"
#include "pprof-live.h"
#include "symtab.h"
#include "testutil.h"
#include "util.h"
#include "view.h"
#include "view-impl.h"
#include "profile.pb-c.h"

typedef Perftools__Profiles__Profile Profile;

static Profile *unpack(const struct strbuf *raw)
{
	Profile *p = perftools__profiles__profile__unpack(NULL, raw->len, (const uint8_t *)raw->buf);

	ck_assert_ptr_nonnull(p);
	return p;
}

/* The live file at path, inflated and unpacked. */
static Profile *read_profile(const char *path)
{
	struct strbuf raw;
	z_stream z;
	char *data, buf[65536];
	size_t len;
	int rc;
	Profile *p;

	ck_assert_int_eq(read_file(path, 64 << 20, &data, &len), 0);
	strbuf_init(&raw);
	memset(&z, 0, sizeof(z));
	ck_assert_int_eq(inflateInit2(&z, 15 + 16), Z_OK);
	z.next_in = (Bytef *)data;
	z.avail_in = (uInt)len;
	do {
		z.next_out = (Bytef *)buf;
		z.avail_out = sizeof(buf);
		rc = inflate(&z, Z_NO_FLUSH);
		ck_assert(rc == Z_OK || rc == Z_STREAM_END);
		strbuf_add(&raw, buf, sizeof(buf) - z.avail_out);
	} while (rc != Z_STREAM_END);
	inflateEnd(&z);
	free(data);
	p = unpack(&raw);
	strbuf_release(&raw);
	return p;
}

/* (check's asserts each cost a message to the parent: these helpers run
 * for every field, and fail the test only when they must.) */
static const char *str(const Profile *p, int64_t i)
{
	if (i < 0 || (size_t)i >= p->n_string_table)
		ck_abort_msg("string %lld out of range", (long long)i);
	return p->string_table[i];
}

/* A profile's Locations, Functions and Mappings by id (ids are at most
 * their count's few times: the writer numbers them from 1). */
struct byid {
	const Profile *p;
	const Perftools__Profiles__Location **loc;
	const Perftools__Profiles__Function **fn;
	size_t nloc, nfn;
};

static void byid_init(struct byid *t, const Profile *p)
{
	size_t i;

	t->p = p;
	t->nloc = t->nfn = 1;
	for (i = 0; i < p->n_location; i++)
		if (p->location[i]->id >= t->nloc)
			t->nloc = p->location[i]->id + 1;
	for (i = 0; i < p->n_function; i++)
		if (p->function[i]->id >= t->nfn)
			t->nfn = p->function[i]->id + 1;
	t->loc = xcalloc(t->nloc, sizeof(*t->loc));
	t->fn = xcalloc(t->nfn, sizeof(*t->fn));
	for (i = 0; i < p->n_location; i++) {
		if (t->loc[p->location[i]->id])  /* ids unique */
			ck_abort_msg("location id %llu twice", (unsigned long long)p->location[i]->id);
		t->loc[p->location[i]->id] = p->location[i];
	}
	for (i = 0; i < p->n_function; i++) {
		if (t->fn[p->function[i]->id])
			ck_abort_msg("function id %llu twice", (unsigned long long)p->function[i]->id);
		t->fn[p->function[i]->id] = p->function[i];
	}
}

static const Perftools__Profiles__Location *loc(const struct byid *t, uint64_t id)
{
	if (!id || id >= t->nloc || !t->loc[id])
		ck_abort_msg("no location %llu", (unsigned long long)id);
	return t->loc[id];
}

static const Perftools__Profiles__Function *func(const struct byid *t, uint64_t id)
{
	if (!id || id >= t->nfn || !t->fn[id])
		ck_abort_msg("no function %llu", (unsigned long long)id);
	return t->fn[id];
}

static const Perftools__Profiles__Mapping *mapping(const Profile *p, uint64_t id)
{
	size_t i;

	for (i = 0; i < p->n_mapping; i++)
		if (p->mapping[i]->id == id)
			return p->mapping[i];
	ck_abort_msg("no mapping %llu", (unsigned long long)id);
	return NULL;
}

/* What a profile says, without its ids: the scalar fields, then each
 * Sample in order with its values, labels and Locations (address,
 * Mapping, Lines with their Functions), by content.  *nloc, *nfn: the
 * Locations and Functions the Samples use. */
static void profile_text(const Profile *p, struct strbuf *sb, size_t *nloc, size_t *nfn)
{
	size_t i, j, k;
	struct byid t;
	bool *lseen, *fseen;

	byid_init(&t, p);
	lseen = xcalloc(t.nloc, sizeof(*lseen));
	fseen = xcalloc(t.nfn, sizeof(*fseen));
	*nloc = *nfn = 0;
	for (i = 0; i < p->n_sample_type; i++)
		strbuf_addf(sb, "%s/%s ", str(p, p->sample_type[i]->type), str(p, p->sample_type[i]->unit));
	strbuf_addf(sb, "period %s/%s %lld time %lld %lld", str(p, p->period_type->type),
		    str(p, p->period_type->unit), (long long)p->period, (long long)p->time_nanos,
		    (long long)p->duration_nanos);
	for (i = 0; i < p->n_comment; i++)
		strbuf_addf(sb, " '%s'", str(p, p->comment[i]));
	strbuf_addch(sb, '\n');
	for (i = 0; i < p->n_sample; i++) {
		const Perftools__Profiles__Sample *s = p->sample[i];

		for (j = 0; j < s->n_value; j++)
			strbuf_addf(sb, "%lld ", (long long)s->value[j]);
		for (j = 0; j < s->n_label; j++)
			strbuf_addf(sb, "%s=%s/%lld ", str(p, s->label[j]->key), str(p, s->label[j]->str),
				    (long long)s->label[j]->num);
		for (j = 0; j < s->n_location_id; j++) {
			const Perftools__Profiles__Location *l = loc(&t, s->location_id[j]);

			*nloc += !lseen[l->id];
			lseen[l->id] = true;
			strbuf_addf(sb, "[%llx", (unsigned long long)l->address);
			if (l->mapping_id) {
				const Perftools__Profiles__Mapping *m = mapping(p, l->mapping_id);

				strbuf_addf(sb, " %s %llx-%llx+%llx '%s' %d%d%d%d",
					    str(p, m->filename), (unsigned long long)m->memory_start,
					    (unsigned long long)m->memory_limit,
					    (unsigned long long)m->file_offset, str(p, m->build_id),
					    m->has_functions, m->has_filenames, m->has_line_numbers,
					    m->has_inline_frames);
			}
			for (k = 0; k < l->n_line; k++) {
				const Perftools__Profiles__Function *f = func(&t, l->line[k]->function_id);

				*nfn += !fseen[f->id];
				fseen[f->id] = true;
				strbuf_addf(sb, " %s/%s/%s:%lld@%lld", str(p, f->name), str(p, f->system_name),
					    str(p, f->filename), (long long)f->start_line,
					    (long long)l->line[k]->line);
			}
			strbuf_addstr(sb, "] ");
		}
		strbuf_addch(sb, '\n');
	}
	free(lseen);
	free(fseen);
	free(t.loc);
	free(t.fn);
}

/* A snapshot of refresh r: stacks over a few functions in two DSOs, some
 * with a function inlined (a Location of two Lines), one whose function's
 * file changes from refresh to refresh; stacks come and go, their counts
 * grow and decay.  fresh: every function named and placed anew each
 * refresh (what old entries the tables keep).  Frames are calloc'd (the
 * writer compares whole frames) and their names freed by snap_free. */
static struct snapshot make_snap(unsigned r, bool fresh, char ***names, size_t *nnames)
{
	struct snapshot snap = {
		.time = 1.0 + r,
		.event = "cpu-clock",
		.freq = true,
		.sample_freq = 1000,
		.callchains = true,
		.inline_frames = true,
		.wall_start_ns = 1000000000,
	};
	size_t nst = 24, i, j;
	struct snapshot_stack *st = xcalloc(nst, sizeof(*st));

	*names = xcalloc(nst * 8 + 1, sizeof(**names));
	*nnames = 0;
	ck_assert_int_eq(sort_spec_parse("comm,dso,sym,tid", &snap.sort, NULL), 0);
	for (i = 0; i < nst; i++) {
		size_t nr = 2 + i % 5;
		struct snapshot_frame *fr = xcalloc(nr, sizeof(*fr));

		for (j = 0; j < nr; j++) {
			unsigned fn = (unsigned)(j == 0 ? 0 : (i * 7 + j * 3) % 9);
			char *name = fresh ? xasprintf("g%u_%u", r, fn) : xasprintf("fn%u", fn);

			(*names)[(*nnames)++] = name;
			fr[j].symbol = name;
			fr[j].dso = fn % 4 == 3 ? "libx.so" : "wl";
			fr[j].addr = 0x1000 + 0x100 * fn + 4 * ((i + j) % 3) + (fresh ? 0x10000 * r : 0);
			if (fn % 4 != 3) {
				fr[j].file = fn == 5 ? (r % 2 ? "a.h" : "b.h") : "wl.c";
				fr[j].start_line = 100 + fn;
			}
			/* fn 2 inlined into its caller at the caller's address */
			if (j > 0 && fn == 2) {
				fr[j].inlined = true;
				fr[j].addr = fr[j - 1].addr;
			}
			/* a line follows from the function and address */
			fr[j].line = 10 + fn + (unsigned)((fr[j].addr >> 2) & 0x3f);
		}
		st[i].frames = fr;
		st[i].nr_frames = nr;
		st[i].comm = i % 3 ? "wl" : "bg";
		st[i].has_tid = true;
		st[i].tid = 100 + (uint32_t)(i % 4);
		/* present in some refreshes only, decaying; one 0-sample
		   stack keeps its period */
		if ((i + r) % 5 == 0)
			continue;
		st[i].samples = (i * 13 + 7) >> (r % 3);
		st[i].period = 1000 * st[i].samples + (st[i].samples ? 0 : 500);
	}
	snap.stacks = st;
	snap.nr_stacks = nst;
	return snap;
}

static void snap_free(struct snapshot *snap, char **names, size_t nnames)
{
	size_t i;

	for (i = 0; i < snap->nr_stacks; i++)
		free((void *)snap->stacks[i].frames);
	free(snap->stacks);
	for (i = 0; i < nnames; i++)
		free(names[i]);
	free(names);
}

/* a and b equal (check's messages are too short for whole profiles). */
static void same_text(const struct strbuf *a, const struct strbuf *b)
{
	size_t i;

	for (i = 0; i < a->len && i < b->len && a->buf[i] == b->buf[i]; i++)
		;
	if (i < a->len || i < b->len)
		ck_abort_msg("live and one-shot differ at %zu: '%.80s' against '%.80s'", i,
			     a->buf + (i > 40 ? i - 40 : 0), b->buf + (i > 40 ? i - 40 : 0));
}

/* What one live refresh's file holds, beside the one-shot encoding. */
struct refresh {
	size_t nloc, nfn;            /* used by the samples */
	size_t locs, fns, strs;      /* in the live file's tables */
	size_t once_locs, once_strs; /* in the one-shot encoding's */
};

/* The live file at path decoded against pprof_encode of snap (comment "c",
 * time_nanos t): the same samples, locations and functions, by content. */
static struct refresh check_refresh(const char *path, const struct snapshot *snap, int64_t t)
{
	struct strbuf a, b, raw;
	struct refresh res;
	size_t n2, f2;
	Profile *live, *one;

	strbuf_init(&a);
	strbuf_init(&b);
	strbuf_init(&raw);
	live = read_profile(path);
	pprof_encode(&raw, snap, "c", t);
	one = unpack(&raw);
	profile_text(live, &a, &res.nloc, &res.nfn);
	profile_text(one, &b, &n2, &f2);
	same_text(&a, &b);
	ck_assert_uint_eq(res.nloc, n2);
	ck_assert_uint_eq(res.nfn, f2);
	res.locs = live->n_location;
	res.fns = live->n_function;
	res.strs = live->n_string_table;
	res.once_locs = one->n_location;
	res.once_strs = one->n_string_table;
	perftools__profiles__profile__free_unpacked(live, NULL);
	perftools__profiles__profile__free_unpacked(one, NULL);
	strbuf_release(&a);
	strbuf_release(&b);
	strbuf_release(&raw);
	return res;
}

/* Live refreshes against one-shot encodings of the same snapshots: the
 * same text; the Locations of the last file keep their ids though others
 * went; the file at exit is the one-shot's, byte for byte. */
START_TEST(test_live_same_as_once)
{
	char *dir = testutil_tmpdir("check_pprof_live");
	char *path = xasprintf("%s/live.pb.gz", dir), *once = xasprintf("%s/once.pb.gz", dir);
	struct pprof_writer *w = pprof_writer_new(path, "c");
	struct errmsg em = ERRMSG_INIT;
	size_t len, len2;
	bool kept = false;
	char *d1, *d2;
	unsigned r;

	pprof_writer_live(w);
	for (r = 0; r < 12; r++) {
		char **names;
		size_t nnames;
		struct snapshot snap = make_snap(r, false, &names, &nnames);
		struct refresh x;

		ck_assert_int_eq(pprof_writer_snapshot(w, &snap, &em), 0);
		x = check_refresh(path, &snap, 1000000000);
		ck_assert_uint_eq(x.once_locs, x.nloc);
		/* tables keep what the snapshot no longer uses, within bounds */
		kept |= x.locs > x.nloc;
		ck_assert_uint_le(x.locs, 2 * x.nloc);
		ck_assert_uint_le(x.fns, 2 * x.nfn);
		if (r < 11) {
			snap_free(&snap, names, nnames);
			continue;
		}
		/* exit: the last snapshot, exactly as a one-shot writer writes it */
		ck_assert_int_eq(pprof_writer_finish(w, &snap, &em), 0);
		pprof_writer_free(w);
		w = pprof_writer_new(once, "c");
		ck_assert_int_eq(pprof_writer_snapshot(w, &snap, &em), 0);
		ck_assert_int_eq(pprof_writer_finish(w, NULL, &em), 0);
		pprof_writer_free(w);
		snap_free(&snap, names, nnames);
	}
	ck_assert(kept);
	ck_assert_int_eq(read_file(path, 1 << 24, &d1, &len), 0);
	ck_assert_int_eq(read_file(once, 1 << 24, &d2, &len2), 0);
	ck_assert_uint_eq(len, len2);
	ck_assert_mem_eq(d1, d2, len);
	free(d1);
	free(d2);
	free(path);
	free(once);
	free(dir);
}
END_TEST

/* A Location keeps its id from one refresh to the next when the stacks
 * before it go (a one-shot encoding numbers them again from 1). */
START_TEST(test_live_ids_stay)
{
	static const struct snapshot_frame fr[] = {
		{ .symbol = "main", .dso = "wl", .addr = 0x10 },
		{ .symbol = "a", .dso = "wl", .addr = 0x20 },
		{ .symbol = "main", .dso = "wl", .addr = 0x14 },
		{ .symbol = "b", .dso = "wl", .addr = 0x30 },
	};
	struct snapshot_stack st[2] = {
		{ .comm = "wl", .frames = &fr[0], .nr_frames = 2, .samples = 3, .period = 3 },
		{ .comm = "wl", .frames = &fr[2], .nr_frames = 2, .samples = 2, .period = 2 },
	};
	struct snapshot snap = { .event = "cpu-clock", .callchains = true, .stacks = st,
				 .nr_stacks = 2 };
	char *dir = testutil_tmpdir("check_pprof_live");
	char *path = xasprintf("%s/live.pb.gz", dir);
	struct pprof_writer *w = pprof_writer_new(path, NULL);
	struct errmsg em = ERRMSG_INIT;
	uint64_t leaf_b;
	struct byid t;
	Profile *p;

	ck_assert_int_eq(sort_spec_parse("dso,sym", &snap.sort, NULL), 0);
	pprof_writer_live(w);
	ck_assert_int_eq(pprof_writer_snapshot(w, &snap, &em), 0);
	p = read_profile(path);
	ck_assert_uint_eq(p->n_sample, 2);
	leaf_b = p->sample[1]->location_id[0];
	byid_init(&t, p);
	ck_assert_uint_eq(loc(&t, leaf_b)->address, 0x30);
	free(t.loc);
	free(t.fn);
	perftools__profiles__profile__free_unpacked(p, NULL);
	/* a decays out; b stays, twice the Locations it uses */
	st[0].samples = st[0].period = 0;
	ck_assert_int_eq(pprof_writer_snapshot(w, &snap, &em), 0);
	p = read_profile(path);
	ck_assert_uint_eq(p->n_sample, 1);
	ck_assert_uint_eq(p->sample[0]->location_id[0], leaf_b);
	byid_init(&t, p);
	ck_assert_uint_eq(loc(&t, leaf_b)->address, 0x30);
	free(t.loc);
	free(t.fn);
	ck_assert_uint_eq(p->n_location, 4);
	perftools__profiles__profile__free_unpacked(p, NULL);
	pprof_writer_free(w);
	free(path);
	free(dir);
}
END_TEST

/* Every refresh with new functions at new addresses: the tables start
 * again rather than grow; no file has more than twice the Locations,
 * Functions and strings its samples use. */
START_TEST(test_live_bounded)
{
	char *dir = testutil_tmpdir("check_pprof_live");
	char *path = xasprintf("%s/live.pb.gz", dir);
	struct pprof_writer *w = pprof_writer_new(path, "c");
	struct errmsg em = ERRMSG_INIT;
	struct refresh x = { 0 };
	size_t most = 0;
	unsigned r;

	pprof_writer_live(w);
	for (r = 0; r < 30; r++) {
		char **names;
		size_t nnames;
		struct snapshot snap = make_snap(r, true, &names, &nnames);

		ck_assert_int_eq(pprof_writer_snapshot(w, &snap, &em), 0);
		x = check_refresh(path, &snap, 1000000000);
		ck_assert_uint_le(x.locs, 2 * x.nloc);
		ck_assert_uint_le(x.fns, 2 * x.nfn);
		/* the one-shot's strings are those used (and the Mappings'
		   short names, kept as keys) */
		ck_assert_uint_le(x.strs, 2 * x.once_strs + 2);
		if (x.locs > most)
			most = x.locs;
		snap_free(&snap, names, nnames);
	}
	ck_assert_uint_le(most, 2 * x.nloc + 2);
	pprof_writer_free(w);
	free(path);
	free(dir);
}
END_TEST

/* The live profile of snap reads as the one-shot one, and each of its
 * Samples is in its bytes as protobuf-c packs it (the Sample is
 * written by hand). */
static void live_same(struct pprof_live *l, const struct snapshot *snap)
{
	struct strbuf a, b, raw, lraw;
	Profile *live, *one;
	size_t n1, f1, n2, f2, i;
	struct iovec v[4];

	strbuf_init(&lraw);
	pprof_live_encode(l, &lraw, snap, "c", 1000000000);
	n1 = pprof_live_pieces(l, v, NULL);
	for (i = 0; i < n1; i++)
		strbuf_add(&lraw, v[i].iov_base, v[i].iov_len);
	live = unpack(&lraw);
	for (i = 0; i < live->n_sample; i++) {
		uint8_t buf[4096];
		size_t n = perftools__profiles__sample__pack(live->sample[i], buf);

		ck_assert_uint_lt(n, sizeof(buf));
		ck_assert_ptr_nonnull(memmem(lraw.buf, lraw.len, buf, n));
	}
	strbuf_release(&lraw);

	strbuf_init(&a);
	strbuf_init(&b);
	strbuf_init(&raw);
	pprof_encode(&raw, snap, "c", 1000000000);
	one = unpack(&raw);
	profile_text(live, &a, &n1, &f1);
	profile_text(one, &b, &n2, &f2);
	same_text(&a, &b);
	perftools__profiles__profile__free_unpacked(live, NULL);
	perftools__profiles__profile__free_unpacked(one, NULL);
	strbuf_release(&a);
	strbuf_release(&b);
	strbuf_release(&raw);
}

/* Stacks the view keeps with the chain store (-g, plain keys): the live
 * writer finds their Locations by the store's frame ids; decoded, each
 * refresh is still the one-shot encoding of its snapshot. */
START_TEST(test_live_kept_stacks)
{
	static struct symbol syms[60];
	char *dir = testutil_tmpdir("check_pprof_live");
	char *path = xasprintf("%s/live.pb.gz", dir);
	struct machine *m = machine_new();
	struct dso *dso = machine_dso_get(m, "/usr/bin/app", DSO_USER);
	struct dso *lib = machine_dso_get(m, "/usr/lib/libx.so", DSO_USER);
	struct pprof_writer *w = pprof_writer_new(path, "c");
	struct errmsg em = ERRMSG_INIT;
	struct sort_spec spec;
	size_t i;
	uint32_t seed = 12345;
	struct hist *h;
	unsigned r, k;
	struct pprof_live *l = pprof_live_new();
	size_t f2, t2, f3, t3, nfr;
	struct strbuf enc;

	for (i = 0; i < 60; i++) {
		char name[16];

		snprintf(name, sizeof(name), "fn%02zu", i);
		syms[i].start = 0x10000 + 0x100 * i;
		syms[i].end = syms[i].start + 0x100;
		syms[i].name = intern(name);
	}
	ck_assert_int_eq(sort_spec_parse("dso,sym,tid", &spec, NULL), 0);
	h = hist_new(&spec);
	hist_enable_callchains(h, 0);
	pprof_writer_live(w);
	strbuf_init(&enc);
	for (r = 0; r < 12; r++) {
		struct view_opts o = { .stacks = true, .stack_detail = true };
		struct snapshot snap = { .event = "cpu-clock", .target = "t", .mode = "decay",
					 .wall_start_ns = 1 };
		struct refresh x;

		for (k = 0; k < 400; k++) {
			struct callchain_frame fr[8];
			struct hist_sample hs = { 0 };
			size_t depth = 2 + (seed = seed * 1103515245 + 12345) % 6, d;

			for (d = 0; d < depth; d++) {
				/* callers at one call site, the leaf at one of 3
				   addresses; later refreshes reach new functions */
				size_t f = (d * 7 + (seed >> (d + 8)) % (4 + r)) % 60;

				fr[d].sym = &syms[f];
				fr[d].dso = f % 5 == 4 ? lib : dso;
				fr[d].kernel = false;
				fr[d].addr = syms[f].start + (d ? 8 : 4 * ((seed >> 20) % 3));
			}
			hs.nr_chain = depth;
			hs.chain = fr;
			hs.comm = intern("app");
			hs.pid = 100;
			hs.tid = 100 + (seed >> 24) % 3;
			hs.dso = fr[0].dso;
			hs.sym = fr[0].sym;
			hs.addr = fr[0].addr;
			hs.period = 1000;
			hist_add(h, &hs);
		}
		view_build(h, &o, &snap);
		ck_assert_ptr_nonnull(snap.frame_ids_of);
		ck_assert_ptr_nonnull(snap.stacks[0].frame_ids);
		ck_assert_int_eq(pprof_writer_snapshot(w, &snap, &em), 0);
		x = check_refresh(path, &snap, 1);
		ck_assert_uint_le(x.locs, 2 * x.nloc);
		/* A live encoder of its own (the writer's does the same),
		   twice over the snapshot: the
		   second time every frame is known, each found by its id or
		   taken over from the Sample before (a group's callers). */
		strbuf_reset(&enc);
		pprof_live_encode(l, &enc, &snap, "c", 1);
		pprof_live_frame_counts(l, &f2, &t2);
		strbuf_reset(&enc);
		pprof_live_encode(l, &enc, &snap, "c", 1);
		pprof_live_frame_counts(l, &f3, &t3);
		for (i = 0, nfr = 0; i < snap.nr_stacks; i++)
			nfr += snap.stacks[i].samples || snap.stacks[i].period ?
				       snap.stacks[i].nr_frames : 0;
		/* The one-shot encoding (the file at exit) reads the kept
		   stacks' addresses as those of stacks built from nothing. */
		{
			struct snapshot b = snap;
			struct strbuf x1, x2;

			b.stacks = NULL;
			b.stack_frames = NULL;
			b.stack_addrs = NULL;
			view_build_stacks_sorted(hist_callchains(h), NULL, &b, true);
			ck_assert_ptr_null(b.stacks[0].addrs);
			ck_assert_ptr_nonnull(snap.stacks[0].addrs);
			strbuf_init(&x1);
			strbuf_init(&x2);
			pprof_encode(&x1, &snap, "c", 1);
			pprof_encode(&x2, &b, "c", 1);
			ck_assert_uint_eq(x1.len, x2.len);
			ck_assert(memcmp(x1.buf, x2.buf, x1.len) == 0);
			strbuf_release(&x1);
			strbuf_release(&x2);
			free(b.stacks);
			free(b.stack_frames);
		}
		if (f3 >= f2 && t3 >= t2) {  /* (else the tables started again) */
			ck_assert_uint_eq((f3 - f2) + (t3 - t2), nfr);
			ck_assert_uint_gt(t3 - t2, 0);
		}
		snapshot_release(&snap);
		hist_age(h, HIST_DECAY);
	}
	pprof_live_free(l);
	strbuf_release(&enc);
	pprof_writer_free(w);
	hist_free(h);
	machine_free(m);
	free(path);
	free(dir);
}
END_TEST

/* A frame id the Sample before had as far from the root is taken over,
 * whatever its group: three groups (their leaves differ) under the same
 * callers, one of them deeper.  A second walk over the snapshot takes
 * over main and mid in the second and third (4 frames), finds the rest
 * by their ids, and the file is still the one-shot encoding. */
START_TEST(test_live_taken_across_groups)
{
	static struct symbol syms[5];
	static const char *const names[] = { "main", "mid", "mid2", "leaf_a", "leaf_b" };
	/* innermost first: leaf_a mid main, leaf_b mid main, leaf_a mid2 mid main */
	static const int chains[3][4] = { { 3, 1, 0, -1 }, { 4, 1, 0, -1 }, { 3, 2, 1, 0 } };
	struct machine *m = machine_new();
	struct dso *dso = machine_dso_get(m, "/usr/bin/app", DSO_USER);
	struct view_opts o = { .stacks = true, .stack_detail = true };
	struct snapshot snap = { .event = "cpu-clock", .target = "t", .mode = "decay",
				 .wall_start_ns = 1 };
	struct pprof_live *l = pprof_live_new();
	struct sort_spec spec;
	struct strbuf enc;
	size_t i, k, f1, t1, f2, t2;
	struct hist *h;

	for (i = 0; i < 5; i++) {
		syms[i].start = 0x1000 + 0x100 * i;
		syms[i].end = syms[i].start + 0x100;
		syms[i].name = intern(names[i]);
	}
	ck_assert_int_eq(sort_spec_parse("dso,sym", &spec, NULL), 0);
	h = hist_new(&spec);
	hist_enable_callchains(h, 0);
	for (i = 0; i < 3; i++) {
		struct callchain_frame fr[4];
		struct hist_sample hs = { 0 };

		for (k = 0; k < 4 && chains[i][k] >= 0; k++)
			fr[k] = (struct callchain_frame){ dso, &syms[chains[i][k]], false,
							  syms[chains[i][k]].start + 8 };
		hs.nr_chain = k;
		hs.chain = fr;
		hs.comm = intern("app");
		hs.pid = hs.tid = 7;
		hs.dso = dso;
		hs.sym = fr[0].sym;
		hs.addr = fr[0].addr;
		hs.period = 1000;
		hist_add(h, &hs);
	}
	view_build(h, &o, &snap);
	ck_assert_uint_eq(snap.nr_stacks, 3);
	strbuf_init(&enc);
	pprof_live_encode(l, &enc, &snap, "c", 1);
	pprof_live_frame_counts(l, &f1, &t1);
	strbuf_reset(&enc);
	pprof_live_encode(l, &enc, &snap, "c", 1);
	pprof_live_frame_counts(l, &f2, &t2);
	ck_assert_uint_eq(t2 - t1, 4);
	ck_assert_uint_eq(f2 - f1, 10 - 4);
	live_same(l, &snap);
	strbuf_release(&enc);
	snapshot_release(&snap);
	pprof_live_free(l);
	hist_free(h);
	machine_free(m);
}
END_TEST

/* A Sample is packed by hand (its location_id, value and label
 * fields): values of every varint length, int64s
 * below 0 (10 bytes), two stacks of one key (same frames and labels)
 * with other values, labels of 0 and of every length, all decode as
 * the one-shot profile does, each Sample as protobuf-c packs it. */
START_TEST(test_live_sample_values)
{
	static const uint64_t big[] = { 0, 1, 127, 128, 16383, 16384, 1ULL << 35,
					(1ULL << 63) - 1, 1ULL << 63, UINT64_MAX };
	struct pprof_live *l = pprof_live_new();
	char **names;
	size_t nnames, q;
	struct snapshot snap = make_snap(1, false, &names, &nnames);
	struct snapshot_stack *st = (struct snapshot_stack *)snap.stacks;

	live_same(l, &snap);
	ck_assert(st[5].samples);
	for (q = 0; q + 1 < sizeof(big) / sizeof(*big); q++) {
		st[5].samples = big[q];
		st[5].period = big[q + 1];
		live_same(l, &snap);
	}
	/* stack 7 made stack 6's twin but for its counts */
	ck_assert(st[6].samples && st[7].samples);
	free((void *)st[7].frames);
	st[7].frames = xcalloc(st[6].nr_frames, sizeof(*st[7].frames));
	memcpy((void *)st[7].frames, st[6].frames, st[6].nr_frames * sizeof(*st[6].frames));
	st[7].nr_frames = st[6].nr_frames;
	st[7].comm = st[6].comm;
	st[7].tid = st[6].tid;
	st[7].samples = st[6].samples + 1;
	live_same(l, &snap);
	/* Labels packed by hand too: a pid of 0 (its num left out, as
	   proto3 does), tids of every varint length, no comm. */
	for (q = 0; q < snap.nr_stacks; q++) {
		st[q].has_pid = true;
		st[q].pid = q % 2 ? 0 : 1u << (3 * q % 32);
		st[q].tid = q % 3 ? UINT32_MAX >> q : 0;
		if (q % 5 == 1)
			st[q].comm = NULL;
	}
	live_same(l, &snap);
	snap_free(&snap, names, nnames);
	pprof_live_free(l);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("pprof_live");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, test_live_same_as_once);
	tcase_add_test(tc, test_live_ids_stay);
	tcase_add_test(tc, test_live_bounded);
	tcase_add_test(tc, test_live_kept_stacks);
	tcase_add_test(tc, test_live_taken_across_groups);
	tcase_add_test(tc, test_live_sample_values);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return testutil_run(suite()) != 0;
}
