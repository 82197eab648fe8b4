/* Live --pprof's encoding (pprof-live.h): the tables of pprof.c kept from
 * one refresh to the next, each new Location, Function and string packed
 * once (protobuf-c packs every message but a Sample's value field; the
 * fields' framing is ours, see pprof.c's top comment for the measurement). */
#include "config.h"

#include "pprof-live.h"

#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <zlib.h>

#include "pprof-impl.h"
#include "strbuf.h"
#include "util.h"
#include "view.h"

/* Its tables outlive a refresh: strings, Functions, Mappings and
 * Locations keep their ids, and a Function, Location or string is packed
 * once, when new, its bytes kept.  A refresh packs its Samples, the
 * Mappings (few, and their flags follow the refresh) and the scalar fields,
 * and the Profile is the concatenation of those fields with the kept ones
 * (profile.proto's repeated fields may come in any order).  The tables
 * keep entries no refresh uses any more: when the unused would be more
 * than half of a table, they start again from nothing (pprof_live_sparse). */
struct pprof_live {
	struct pprof_enc e;
	bool started;
	struct strbuf strs, funcs, locs;   /* packed fields, in id order */
	size_t nstrs, nfuncs;              /* entries packed */
	/* By loctab entry: packed into locs, and its mapping and Lines (all,
	   and with a line number) for the Mappings' flags. */
	struct pprof_live_loc {
		bool packed;
		uint32_t mapping, lines, numbered;
	} *loc;
	size_t loc_cap, nlocs;             /* nlocs: Locations packed */
	/* By Function: the file and start line its bytes have, and this
	   refresh's file (pprof_function_file's, or NULL). */
	const char **fn_packed_file;
	unsigned *fn_packed_start;
	size_t fn_packed_cap;
	uint32_t *sref;                    /* by string: the last walk using it */
	size_t sref_cap;
	size_t nfixed;                     /* strings every profile has */
	Line *lines;                       /* a Location's, packing it */
	Line **lines_p;
	size_t lines_cap;
	size_t restarts;                   /* tables started again (sparse) */
	/* The CRC-32 of the first crc_len[i] bytes of locs, funcs, strs:
	   they grow at the end, so a refresh's CRC goes on from there. */
	uLong crc[3];
	size_t crc_len[3];
};

static void pprof_live_release(struct pprof_live *l)
{
	if (l->started)
		pprof_enc_release(&l->e);
	strbuf_release(&l->strs);
	strbuf_release(&l->funcs);
	strbuf_release(&l->locs);
	free(l->loc);
	free(l->fn_packed_file);
	free(l->fn_packed_start);
	free(l->sref);
	free(l->lines);
	free(l->lines_p);
}

/* From nothing: a first refresh, or the tables had become sparse. */
static void pprof_live_start(struct pprof_live *l, const struct snapshot *snap)
{
	size_t restarts = l->restarts + l->started;

	pprof_live_release(l);
	memset(l, 0, sizeof(*l));
	l->restarts = restarts;
	l->started = true;
	pprof_enc_init(&l->e, snap->callchains ? snap->nr_stacks : 0, true);
	strbuf_init(&l->strs);
	strbuf_init(&l->funcs);
	strbuf_init(&l->locs);
}

/* A field of message m, numbered field (1-15), framed: its tag, its length
 * as a varint, the bytes protobuf-c packs. */
static void pprof_live_put(struct strbuf *out, unsigned field, const ProtobufCMessage *m)
{
	size_t bound = protobuf_c_message_get_packed_size(m), n, k, v;
	uint8_t *p;

	out->buf = xgrow(out->buf, &out->cap, out->len + 12 + bound, 1);
	p = (uint8_t *)out->buf + out->len;
	*p++ = (uint8_t)(field << 3 | 2);
	/* Packed after a one-byte length; moved when the length is longer. */
	n = protobuf_c_message_pack(m, p + 1);
	for (k = 1, v = n; v >= 0x80; v >>= 7)
		k++;
	if (k > 1)
		memmove(p + k, p + 1, n);
	for (v = n; v >= 0x80; v >>= 7)
		*p++ = (uint8_t)(v | 0x80);
	*p++ = (uint8_t)v;
	out->len = (size_t)((char *)p - out->buf) + n;
	out->buf[out->len] = '\0';
}

/* A string_table entry: a string field (6) is framed as a message is. */
static void pprof_live_put_string(struct strbuf *out, const char *s)
{
	size_t n = strlen(s), v;
	char tag[11];
	size_t k = 0;

	tag[k++] = 6 << 3 | 2;
	for (v = n; v >= 0x80; v >>= 7)
		tag[k++] = (char)(v | 0x80);
	tag[k++] = (char)v;
	strbuf_add(out, tag, k);
	strbuf_add(out, s, n);
}

static void pprof_live_sref(struct pprof_live *l, uint32_t idx)
{
	if (idx >= l->sref_cap) {
		size_t old = l->sref_cap;

		l->sref = xgrow(l->sref, &l->sref_cap, (size_t)idx + 1, sizeof(*l->sref));
		memset(l->sref + old, 0, (l->sref_cap - old) * sizeof(*l->sref));
	}
	l->sref[idx] = l->e.walk;
}

static bool pprof_live_fn_used(const struct pprof_enc *e, size_t i)
{
	return i < e->fref_cap && e->fref[i] == e->walk;
}

/* A refresh's walk over the kept tables; its Functions' files and the
 * Mappings' build IDs are in the string table after it.  Returns whether
 * the tables are sparse: more than half of the Locations, Functions,
 * Mappings or strings unused by this snapshot. */
static bool pprof_live_walk(struct pprof_live *l, const struct snapshot *snap,
			    const char *comment, ValueType *types)
{
	struct pprof_enc *e = &l->e;
	size_t i, nloc = 0, used = 0, fns = 0, maps = 0, strs = 0;

	if (++e->walk == 0) {
		/* 2^32 refreshes: no stale mark may look current. */
		if (e->fref_cap)
			memset(e->fref, 0, e->fref_cap * sizeof(*e->fref));
		if (l->sref_cap)
			memset(l->sref, 0, l->sref_cap * sizeof(*l->sref));
		if (e->floc_cap)
			memset(e->floc, 0, e->floc_cap * sizeof(*e->floc));
		e->walk = 1;
	}
	e->nsmp = e->nids = e->nlabels = 0;
	e->last_label = NULL;
	/* Pointers are good for one snapshot: the frames' memo and the
	   Mappings' DSOs start again (a JIT map's symbols and DSOs go). */
	e->nmemo = 0;
	hashtab_clear(&e->memo_ht);
	/* (never memset(NULL, 0, 0): undefined, and UBSan says so) */
	if (e->maps.n)
		memset(e->objs, 0, e->maps.n * sizeof(*e->objs));
	/* Frame ids are another store's: their Locations are found again. */
	if (snap->frame_ids_of != e->floc_of) {
		e->floc_of = snap->frame_ids_of;
		if (e->floc_cap)
			memset(e->floc, 0, e->floc_cap * sizeof(*e->floc));
	}
	if (e->used_n)
		memset(e->used, 0, e->used_n * sizeof(*e->used));
	if (e->fn_file_cap) {
		memset(e->fn_file, 0, e->fn_file_cap * sizeof(*e->fn_file));
		memset(e->fn_start, 0, e->fn_file_cap * sizeof(*e->fn_start));
	}
	pprof_sample_types(e, types, snap);
	if (comment)
		pprof_str(&e->strs, comment);
	if (!l->nfixed)
		l->nfixed = e->strs.n;
	pprof_enc_walk(e, snap);

	for (i = 0; i < e->loctab.n; i++) {
		used += e->used[i];
		nloc += e->used[i] || (i < l->loc_cap && l->loc[i].packed);
	}
	for (i = 0; i < l->nfixed; i++)
		pprof_live_sref(l, (uint32_t)i);
	for (i = 0; i < e->nlabels; i++)
		if (e->labels[i].str)
			pprof_live_sref(l, e->labels[i].str);
	for (i = 0; i < e->funcs.n; i++) {
		uint32_t m = e->funcs.v[i][1];

		if (!pprof_live_fn_used(e, i))
			continue;
		fns++;
		pprof_live_sref(l, e->funcs.v[i][0]);
		if (i < e->fn_file_cap && e->fn_file[i])
			pprof_live_sref(l, pprof_str(&e->strs, e->fn_file[i]));
		if (m) {
			pprof_live_sref(l, e->maps.v[m - 1][0]);
			pprof_live_sref(l, e->maps.v[m - 1][1]);
		}
	}
	for (i = 0; i < e->maps.n; i++) {
		bool in = l->sref_cap > e->maps.v[i][1] && l->sref[e->maps.v[i][1]] == e->walk;
		uint32_t id = pprof_build_id(e, e->objs[i]);

		maps += in;
		if (in && id)
			pprof_live_sref(l, id);
	}
	for (i = 0; i < e->strs.n; i++)
		strs += i < l->sref_cap && l->sref[i] == e->walk;
	return nloc > 2 * used || e->funcs.n > 2 * fns || e->maps.n > 2 * maps ||
	       e->strs.n > 2 * strs;
}

/* The Location or Function packed into a kept buffer. */
static void pprof_live_pack_location(struct pprof_live *l, size_t i)
{
	struct pprof_enc *e = &l->e;
	struct pprof_live_loc *ll = &l->loc[i];
	Location lo;
	size_t n = 0, k;
	uint32_t c;

	for (c = (uint32_t)i + 1; c; c = e->loctab.v[c - 1][1])
		n++;
	if (n > l->lines_cap) {
		size_t cap = l->lines_cap;

		l->lines = xgrow(l->lines, &cap, n, sizeof(*l->lines));
		l->lines_p = xrealloc(l->lines_p, cap * sizeof(*l->lines_p));
		l->lines_cap = cap;
	}
	pprof_location_fill(e, i, &lo, l->lines, l->lines_p);
	pprof_live_put(&l->locs, 4, &lo.base);
	ll->packed = true;
	ll->mapping = (uint32_t)lo.mapping_id;
	ll->lines = (uint32_t)lo.n_line;
	for (k = 0; k < lo.n_line; k++)
		ll->numbered += l->lines[k].line != 0;
	l->nlocs++;
}

/* (Location ids and counts are mostly of 1 to 3 bytes: those first.) */
static inline size_t pprof_live_varint_len(uint64_t x)
{
	size_t n = 4;

	if (x < 1u << 7)
		return 1;
	if (x < 1u << 14)
		return 2;
	if (x < 1u << 21)
		return 3;
	for (x >>= 28; x; x >>= 7)
		n++;
	return n;
}

static inline uint8_t *pprof_live_varint(uint8_t *p, uint64_t x)
{
	if (x < 1u << 7) {
		*p = (uint8_t)x;
		return p + 1;
	}
	if (x < 1u << 14) {
		p[0] = (uint8_t)(x | 0x80);
		p[1] = (uint8_t)(x >> 7);
		return p + 2;
	}
	for (; x >= 0x80; x >>= 7)
		*p++ = (uint8_t)(x | 0x80);
	*p++ = (uint8_t)x;
	return p;
}

/* A Label's bytes: its fields that are not 0, as proto3 and protobuf-c
 * leave zeros out (int64s below 0 are 10-byte varints). */
static size_t pprof_live_label_len(const Label *lb)
{
	return (lb->key ? 1 + pprof_live_varint_len((uint64_t)lb->key) : 0) +
	       (lb->str ? 1 + pprof_live_varint_len((uint64_t)lb->str) : 0) +
	       (lb->num ? 1 + pprof_live_varint_len((uint64_t)lb->num) : 0) +
	       (lb->num_unit ? 1 + pprof_live_varint_len((uint64_t)lb->num_unit) : 0);
}

static uint8_t *pprof_live_label_field(uint8_t *p, unsigned field, int64_t v)
{
	if (!v)
		return p;
	*p++ = (uint8_t)(field << 3);
	return pprof_live_varint(p, (uint64_t)v);
}

/* Sample sm, its labels lb[0..sm->n_label), framed into out as field 2
 * of the Profile, byte for byte what protobuf-c packs: its fields in
 * their numbers' order, location_id and value packed (left out when
 * empty), each Label a message.  Written by hand: decay changes every
 * Sample's value at every refresh, so every Sample is packed at every
 * refresh, and protobuf-c's generic packing of these three fields was a
 * quarter of a refresh (bench/pprof-refresh kept: 33M of 137M
 * instructions, about 830 a Sample; by hand the refresh took 113M, and
 * one pass over the ids rather than two, 4.5M less again).  Keeping the
 * packed ids and labels from one refresh to the next, found again by
 * hashing them, cost more than packing them: 3.7% of a live run's CPU
 * went to 11% (perf, -a -g -F 4000 -d 1), the kept bytes' memory
 * traffic.  check_pprof_live's live_same compares each Sample with
 * protobuf-c's packing of it. */
static void pprof_live_sample(struct strbuf *out, const Sample *sm, const Label *lb)
{
	size_t idlen, vlen = 0, n, h, i;
	uint8_t *base, *body, *p, head[12];
	/* (locals: the byte stores may alias anything, so the compiler would
	   read sm's fields again after each) */
	const uint64_t *id = sm->location_id, *id_end = id + sm->n_location_id;

	/* One pass: the fields from location_id's ids on, written 12 bytes
	   on, then moved down behind the heads (the two lengths) once
	   known. */
	n = 12 + 10 * (sm->n_location_id + sm->n_value) + 2 + 46 * sm->n_label;
	if (out->len + n >= out->cap)
		out->buf = xgrow(out->buf, &out->cap, out->len + n + 1, 1);
	base = (uint8_t *)out->buf + out->len;
	p = body = base + 12;
	for (; id < id_end; id++)
		p = pprof_live_varint(p, *id);
	idlen = (size_t)(p - body);
	for (i = 0; i < sm->n_value; i++)
		vlen += pprof_live_varint_len((uint64_t)sm->value[i]);
	if (vlen) {
		*p++ = 2 << 3 | 2;
		p = pprof_live_varint(p, vlen);
		for (i = 0; i < sm->n_value; i++)
			p = pprof_live_varint(p, (uint64_t)sm->value[i]);
	}
	for (i = 0; i < sm->n_label; i++) {
		*p++ = 3 << 3 | 2;
		p = pprof_live_varint(p, pprof_live_label_len(&lb[i]));
		p = pprof_live_label_field(p, 1, lb[i].key);
		p = pprof_live_label_field(p, 2, lb[i].str);
		p = pprof_live_label_field(p, 3, lb[i].num);
		p = pprof_live_label_field(p, 4, lb[i].num_unit);
	}
	/* the Sample's tag and length, then location_id's (when any) */
	n = (size_t)(p - body) + (idlen ? 1 + pprof_live_varint_len(idlen) : 0);
	head[0] = 2 << 3 | 2;
	h = (size_t)(pprof_live_varint(head + 1, n) - head);
	if (idlen) {
		head[h++] = 1 << 3 | 2;
		h = (size_t)(pprof_live_varint(head + h, idlen) - head);
	}
	memmove(base + h, body, (size_t)(p - body));
	memcpy(base, head, h);
	out->len += h + (size_t)(p - body);
	out->buf[out->len] = '\0';
}

/* The refresh's profile: the kept tables brought up to date, and the
 * refresh's fields into out; the profile is out followed by the kept
 * locs, funcs and strs (pprof_writer_pieces). */
void pprof_live_encode(struct pprof_live *l, struct strbuf *out,
		       const struct snapshot *snap, const char *comment, int64_t time_nanos)
{
	struct pprof_enc *e;
	size_t i, *map_fns, *map_files, *map_lines, *map_numbered;
	bool refile = false;
	Profile prof;
	ValueType types[2], period_type, *types_p[2];
	int64_t comment_idx;

	if (!l->started)
		pprof_live_start(l, snap);
	if (pprof_live_walk(l, snap, comment, types)) {
		pprof_live_start(l, snap);
		pprof_live_walk(l, snap, comment, types);
	}
	e = &l->e;

	/* New Locations; every used one's Lines for the Mappings' flags. */
	if (e->loctab.n > l->loc_cap) {
		size_t old = l->loc_cap;

		l->loc = xgrow(l->loc, &l->loc_cap, e->loctab.n, sizeof(*l->loc));
		memset(l->loc + old, 0, (l->loc_cap - old) * sizeof(*l->loc));
	}
	map_fns = xcalloc(4 * (e->maps.n + 1), sizeof(*map_fns));
	map_files = map_fns + e->maps.n + 1;
	map_lines = map_files + e->maps.n + 1;
	map_numbered = map_lines + e->maps.n + 1;
	for (i = 0; i < e->loctab.n; i++) {
		struct pprof_live_loc *ll = &l->loc[i];

		if (!e->used[i])
			continue;
		if (!ll->packed)
			pprof_live_pack_location(l, i);
		if (ll->mapping) {
			map_lines[ll->mapping - 1] += ll->lines;
			map_numbered[ll->mapping - 1] += ll->numbered;
		}
	}

	/* Functions: new ones packed; a used one whose file changed (the
	   least of those seen, this refresh) repacks them all. */
	if (e->funcs.n > l->fn_packed_cap) {
		size_t cap = l->fn_packed_cap;

		l->fn_packed_file = xgrow(l->fn_packed_file, &cap, e->funcs.n,
					  sizeof(*l->fn_packed_file));
		l->fn_packed_start = xrealloc(l->fn_packed_start, cap * sizeof(*l->fn_packed_start));
		l->fn_packed_cap = cap;
	}
	for (i = 0; i < e->funcs.n; i++) {
		const char *file = i < e->fn_file_cap ? e->fn_file[i] : NULL;
		unsigned start = file ? e->fn_start[i] : 0;
		uint32_t m = e->funcs.v[i][1];

		if (i < l->nfuncs && !pprof_live_fn_used(e, i))
			continue;
		if (m) {
			map_fns[m - 1]++;
			map_files[m - 1] += file != NULL;
		}
		if (i < l->nfuncs && (l->fn_packed_file[i] != file || l->fn_packed_start[i] != start))
			refile = true;
		l->fn_packed_file[i] = file;
		l->fn_packed_start[i] = start;
	}
	if (refile) {
		strbuf_reset(&l->funcs);
		l->crc_len[1] = 0;
		l->nfuncs = 0;
	}
	for (; l->nfuncs < e->funcs.n; l->nfuncs++) {
		Function f;

		pprof_function_fill(e, l->nfuncs, &f, l->fn_packed_file[l->nfuncs],
				    l->fn_packed_start[l->nfuncs]);
		pprof_live_put(&l->funcs, 5, &f.base);
	}

	/* The head, then the Samples, Mappings and kept tables. */
	perftools__profiles__profile__init(&prof);
	pprof_profile_head(e, &prof, types, &period_type, types_p, snap, comment, &comment_idx,
			   time_nanos);
	out->buf = xgrow(out->buf, &out->cap,
			 out->len + 1 + perftools__profiles__profile__get_packed_size(&prof), 1);
	out->len += perftools__profiles__profile__pack(&prof, (uint8_t *)out->buf + out->len);
	for (i = 0; i < e->nsmp; i++)
		pprof_live_sample(out, &e->smp[i], e->labels + e->label_off[i]);
	for (i = 0; i < e->maps.n; i++) {
		Mapping m;

		pprof_mapping_fill(e, i, &m, snap);
		m.has_filenames = map_fns[i] && map_files[i] == map_fns[i];
		m.has_line_numbers = map_lines[i] && map_numbered[i] == map_lines[i];
		pprof_live_put(out, 3, &m.base);
	}
	free(map_fns);
	for (; l->nstrs < e->strs.n; l->nstrs++)
		pprof_live_put_string(&l->strs, e->strs.v[l->nstrs]);
}

struct pprof_live *pprof_live_new(void)
{
	return xcalloc(1, sizeof(struct pprof_live));
}

void pprof_live_free(struct pprof_live *l)
{
	if (!l)
		return;
	pprof_live_release(l);
	free(l);
}

void pprof_live_frame_counts(const struct pprof_live *l, size_t *found, size_t *taken)
{
	*found = l->started ? l->e.frames_found : 0;
	*taken = l->started ? l->e.frames_taken : 0;
}

size_t pprof_live_pieces(struct pprof_live *l, struct iovec *v, uLong *crc)
{
	const struct strbuf *b[3] = { &l->locs, &l->funcs, &l->strs };
	size_t i;

	for (i = 0; i < 3; i++) {
		v[i].iov_base = b[i]->buf;
		v[i].iov_len = b[i]->len;
		if (!crc)
			continue;
		if (!l->crc_len[i] || l->crc_len[i] > b[i]->len) {
			l->crc[i] = crc32(0, NULL, 0);
			l->crc_len[i] = 0;
		}
		l->crc[i] = crc32_z(l->crc[i], (const Bytef *)b[i]->buf + l->crc_len[i],
				    b[i]->len - l->crc_len[i]);
		l->crc_len[i] = b[i]->len;
		crc[i] = l->crc[i];
	}
	return 3;
}
