/* --pprof: profile.proto (ui/profile.proto, pprof's schema) from a
 * snapshot's stacks, packed by protobuf-c, gzip compressed, written
 * atomically.  The tables (strings, functions, locations) are ours; the
 * wire format is the library's.  Measured against the hand-written encoder
 * it replaced (bench/pprof.sh, a 151K-sample -g -a recording, callgrind):
 * writing 442M instructions against 417M (pprof_encode 263M against 237M,
 * gzip 179M both), perf report 2,521M: 0.176x against 0.165x, peak RSS
 * 121 MB against 111 MB; not the bottleneck, so the library stays.
 *
 * Live (a file rewritten at every refresh, pprof-live.c) part of the
 * framing is ours: packing the whole Profile at each refresh re-packed
 * every Location, Function and string although they rarely change
 * (protobuf-c's packing was about 80M of a refresh's 235M instructions,
 * bench/pprof-refresh: 57K chains).  The live encoder keeps these tables
 * and the bytes protobuf-c packed for each Location and Function once, and
 * writes the Profile as the concatenation of fields: a field's tag and
 * length are ours (pprof_live_put), every message in it is still packed
 * by the library.  The file's stored gzip blocks are framed by hand too
 * (pprof-writer.c), so that the kept bytes are not copied at each refresh,
 * and the kept tables' CRC-32 is taken on from the last refresh's.  A
 * refresh went from 235M to 145M instructions (--batch's: 67M).  Then
 * packing the Samples with protobuf-c was about 40M of the 145M, 240
 * instructions a Sample of it the value field, which decay changes at
 * every refresh: a Sample is framed by hand too, protobuf-c packs its
 * location_id and label fields and its value field is two varints
 * written between them (pprof-live.c).  Keeping the packed ids and labels
 * from refresh to refresh, found again by hashing the ids, took a refresh
 * to 114M instructions but cost more CPU than it saved on real hardware
 * (perf of a live -a -g -F 4000 -d 1 run: 3.7% of proftop in packing
 * before, 11% with it: memory traffic that callgrind does not count), so
 * they are packed at each refresh.  With the view's kept member order
 * (view-stacks.c), a refresh is 137M (bench/pprof-refresh kept, 20
 * refreshes).  protobuf-c's packing of the Samples' location_id and
 * label fields was then 33M of those 137M: a Sample is now packed whole
 * by hand (pprof-live.c), 113M.  Then the view keeps each chain's group
 * by the store's chain serial and a group's member order when its chains
 * stay (89M); a kept frame's Location, Function and Mapping are one
 * record by frame id, and a frame the Sample before had at the same place
 * of its group is taken over (80M); stacks share their group's frames
 * (77M, then 76M: not copied at all, a pool); new groups are placed by
 * galloping (75M); a Sample is packed in one pass (70M); the walk
 * fetches the next stack's records ahead (72M, but a fifth less time):
 * --batch's is 67M.  On a load of many stacks (bench/pprof-refresh
 * kept 20 4000 stacks: nearly every sample a new stack) a refresh was
 * 85M: the view orders groups by ranks of their printed frames and
 * fills each member's addresses in the store's order, and the walk marks
 * a frame's record once a walk, takes over a frame id the Sample before
 * had as far from the root whatever its group, and fetches ids 8 stacks
 * ahead: 67M, and the refreshes' CPU time 2.5x less.  The last file, at
 * exit, is this file's one-shot encoding, all the library's.
 *
 * This file: the tables and the stack walk (pprof-impl.h, which the live
 * encoder shares) and the one-shot encoding.  Over 900 lines because the
 * tables and the walk are one piece: the live encoder reads both through
 * pprof-impl.h, and splitting them would put the walk's record layout
 * (pprof_floc) in a third file. */
#include "config.h"

#include "pprof.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "errmsg.h"
#include "hash.h"
#include "hashtab.h"
#include "util.h"
#include "view.h"
#include "pprof-impl.h"

/* ---- the tables of a profile ---- */


static uint64_t pprof_keys_hash_of(const uint32_t *k)
{
	return hash_finish(hash_combine(hash_combine(hash_combine(k[0], k[1]), k[2]), k[3]));
}

static uint64_t pprof_keys_hash(const void *ctx, uint32_t idx)
{
	return pprof_keys_hash_of(((const struct pprof_keys *)ctx)->v[idx]);
}

static bool pprof_keys_eq(const void *ctx, uint32_t idx, const void *key)
{
	return memcmp(((const struct pprof_keys *)ctx)->v[idx], key, sizeof(uint32_t[4])) == 0;
}

static uint32_t pprof_keys_add(struct pprof_keys *t, uint32_t a, uint32_t b, uint32_t c,
			       uint32_t d)
{
	uint32_t k[4] = { a, b, c, d };
	uint64_t h = pprof_keys_hash_of(k);
	size_t slot = hashtab_probe(&t->ht, h, pprof_keys_eq, t, k);

	if (t->ht.slots[slot] != HASHTAB_EMPTY)
		return t->ht.slots[slot];
	t->v = xgrow(t->v, &t->cap, t->n + 1, sizeof(*t->v));
	memcpy(t->v[t->n], k, sizeof(k));
	hashtab_insert_at(&t->ht, slot, (uint32_t)t->n, pprof_keys_hash, t);
	return (uint32_t)t->n++;
}


static uint64_t pprof_strings_hash(const void *ctx, uint32_t idx)
{
	return hash_fnv1a(((const struct pprof_strings *)ctx)->v[idx]);
}

static bool pprof_strings_eq(const void *ctx, uint32_t idx, const void *key)
{
	return strcmp(((const struct pprof_strings *)ctx)->v[idx], key) == 0;
}

/* s must outlive the encoding (the snapshot's strings do); a live
 * writer's tables outlive snapshots and keep interned copies. */
uint32_t pprof_str(struct pprof_strings *t, const char *s)
{
	size_t slot = hashtab_probe(&t->ht, hash_fnv1a(s), pprof_strings_eq, t, s);

	if (t->ht.slots[slot] != HASHTAB_EMPTY)
		return t->ht.slots[slot];
	t->v = xgrow(t->v, &t->cap, t->n + 1, sizeof(*t->v));
	t->v[t->n] = t->keep ? intern(s) : s;
	hashtab_insert_at(&t->ht, slot, (uint32_t)t->n, pprof_strings_hash, t);
	return (uint32_t)t->n++;
}


struct pprof_memo {
	const void *symbol, *dso, *object;
	bool kernel;
	uint64_t fid;
};

static uint64_t pprof_memo_hash_of(const struct pprof_memo *m)
{
	return hash_finish(hash_combine(hash_combine(hash_combine((uintptr_t)m->symbol,
								  (uintptr_t)m->dso),
						     (uintptr_t)m->object),
					m->kernel));
}

static uint64_t pprof_memo_hash(const void *ctx, uint32_t idx)
{
	return pprof_memo_hash_of(&((const struct pprof_enc *)ctx)->memo[idx]);
}

static bool pprof_memo_eq(const void *ctx, uint32_t idx, const void *key)
{
	const struct pprof_memo *a = &((const struct pprof_enc *)ctx)->memo[idx], *b = key;

	return a->symbol == b->symbol && a->dso == b->dso && a->object == b->object &&
	       a->kernel == b->kernel;
}

/* The function of a frame, as --folded names it: an unknown symbol by its
 * object, "[libc.so.6]", so that pprof's stacks read like the folded ones.
 * Returns the Function id. */
static uint64_t pprof_frame(struct pprof_enc *e, const char *symbol, const char *dso,
			    const struct dso *obj, const char *path, bool kernel)
{
	uint32_t name, map = 0;

	if (!symbol)
		symbol = "[unknown]";
	if (!dso)
		dso = "[unknown]";
	if (strcmp(symbol, "[unknown]") == 0 && strcmp(dso, "[unknown]") != 0 && dso[0] != '[') {
		char buf[256];

		snprintf(buf, sizeof(buf), "[%s]", dso);
		/* The table keeps pointers: the name lives in intern's store. */
		symbol = intern(buf);
	}
	name = pprof_str(&e->strs, symbol);
	if (strcmp(dso, "[unknown]") != 0) {
		size_t n = e->maps.n;

		if (obj)
			path = view_object_path(obj);
		map = pprof_keys_add(&e->maps, pprof_str(&e->strs, dso),
				     pprof_str(&e->strs, path ? path : dso), 0, 0) + 1;
		if (e->maps.n > n) {
			e->objs = xgrow(e->objs, &e->objs_cap, e->maps.n, sizeof(*e->objs));
			e->objs[n] = obj;
		} else if (e->fref && !e->objs[map - 1]) {
			/* live: the first DSO of this walk (pprof_live_walk) */
			e->objs[map - 1] = obj;
		}
	}
	return pprof_keys_add(&e->funcs, name, map, kernel, 0) + 1;
}

/* Function fid is in this walk's profile (a live writer's tables keep
 * others). */
static uint64_t pprof_fn_ref(struct pprof_enc *e, uint64_t fid)
{
	if (e->fref) {
		if (fid > e->fref_cap) {
			size_t old = e->fref_cap;

			e->fref = xgrow(e->fref, &e->fref_cap, fid, sizeof(*e->fref));
			memset(e->fref + old, 0, (e->fref_cap - old) * sizeof(*e->fref));
		}
		e->fref[fid - 1] = e->walk;
	}
	return fid;
}

/* pprof_frame of a stack's frame, remembered by its pointers. */
static uint64_t pprof_stack_frame(struct pprof_enc *e, const struct snapshot_frame *f)
{
	struct pprof_memo k = { f->symbol, f->dso, f->object, f->kernel, 0 };
	uint64_t h = pprof_memo_hash_of(&k);
	size_t slot = hashtab_probe(&e->memo_ht, h, pprof_memo_eq, e, &k);

	if (e->memo_ht.slots[slot] != HASHTAB_EMPTY)
		return pprof_fn_ref(e, e->memo[e->memo_ht.slots[slot]].fid);
	k.fid = pprof_fn_ref(e, pprof_frame(e, f->symbol, f->dso, f->object, NULL, f->kernel));
	e->memo = xgrow(e->memo, &e->memo_cap, e->nmemo + 1, sizeof(*e->memo));
	e->memo[e->nmemo] = k;
	hashtab_insert_at(&e->memo_ht, slot, (uint32_t)e->nmemo++, pprof_memo_hash, e);
	return k.fid;
}

/* Function fid's source file is file, defined at line start: of several
 * (two static functions of one name), the least file by strcmp, then line,
 * whatever order the stacks come in. */
static void pprof_function_file(struct pprof_enc *e, uint64_t fid, const char *file,
				unsigned start)
{
	size_t old = e->fn_file_cap;
	int c;

	if (fid > e->fn_file_cap) {
		e->fn_file = xgrow(e->fn_file, &e->fn_file_cap, fid, sizeof(*e->fn_file));
		e->fn_start = xrealloc(e->fn_start, e->fn_file_cap * sizeof(*e->fn_start));
		memset(e->fn_file + old, 0, (e->fn_file_cap - old) * sizeof(*e->fn_file));
		memset(e->fn_start + old, 0, (e->fn_file_cap - old) * sizeof(*e->fn_start));
	}
	c = e->fn_file[fid - 1] ? strcmp(file, e->fn_file[fid - 1]) : -1;
	if (c < 0 || (c == 0 && start < e->fn_start[fid - 1])) {
		e->fn_file[fid - 1] = file;
		e->fn_start[fid - 1] = start;
	}
}

/* The string index of obj's build ID in hex, or 0 ("") when unknown (no
 * DSO, or its symbols not loaded). */
uint32_t pprof_build_id(struct pprof_enc *e, const struct dso *obj)
{
	const uint8_t *id;
	size_t n = obj ? view_object_build_id(obj, &id) : 0, i;
	char hex[2 * 64 + 1];

	if (!n || n > 64)
		return 0;
	for (i = 0; i < n; i++)
		snprintf(hex + 2 * i, 3, "%02x", id[i]);
	/* The table keeps pointers: the text lives in intern's store. */
	return pprof_str(&e->strs, intern(hex));
}

/* What protobuf-c's __init functions copy, copied here without a call
 * (a Sample and a Label each a stack at every refresh). */
static const Label pprof_label_init = PERFTOOLS__PROFILES__LABEL__INIT;
static const Sample pprof_sample_init = PERFTOOLS__PROFILES__SAMPLE__INIT;

static void pprof_label(struct pprof_enc *e, uint32_t key, uint32_t str, uint64_t num)
{
	Label *l;

	/* (xgrow is a call: only when full, as below) */
	if (e->nlabels == e->labels_cap)
		e->labels = xgrow(e->labels, &e->labels_cap, e->nlabels + 1, sizeof(*e->labels));
	l = &e->labels[e->nlabels++];
	*l = pprof_label_init;
	l->key = key;
	l->str = str;
	l->num = (int64_t)num;
	e->smp[e->nsmp - 1].n_label++;
}

static void pprof_label_str(struct pprof_enc *e, uint32_t key, const char *s)
{
	/* Stacks come by comm: the last one's index, without hashing. */
	if (s != e->last_label) {
		e->last_label = s;
		e->last_label_idx = pprof_str(&e->strs, s);
	}
	pprof_label(e, key, e->last_label_idx, 0);
}

static void pprof_label_num(struct pprof_enc *e, uint32_t key, uint64_t v)
{
	pprof_label(e, key, 0, v);
}

/* The Location of function ids fn[0..n), innermost inlined first, the
 * real function last, at addr (0: unknown): the address is part of each
 * entry's key, so a Location is one address's.  line[0..n) (or NULL: none
 * known) are their Lines' lines, which follow from the address. */
static uint64_t pprof_location(struct pprof_enc *e, const uint64_t *fn, const unsigned *line,
			       size_t n, uint64_t addr)
{
	uint64_t loc = 0;

	while (n--) {
		size_t had = e->loctab.n;

		loc = pprof_keys_add(&e->loctab, (uint32_t)fn[n], (uint32_t)loc, (uint32_t)addr,
				     (uint32_t)(addr >> 32)) + 1;
		if (e->loctab.n > had) {
			e->loc_line = xgrow(e->loc_line, &e->loc_line_cap, e->loctab.n,
					    sizeof(*e->loc_line));
			e->loc_line[loc - 1] = line ? line[n] : 0;
		}
	}
	if (e->loctab.n > e->used_cap)
		e->used = xgrow(e->used, &e->used_cap, e->loctab.n, sizeof(*e->used));
	while (e->used_n < e->loctab.n)
		e->used[e->used_n++] = false;
	e->used[loc - 1] = true;
	return loc;
}

/* A new Sample of n location ids, which the caller puts in
 * e->ids[e->nids - n ..), leaf first (pprof_sample_ids makes the room),
 * then adds the labels. */
static uint64_t *pprof_sample_ids(struct pprof_enc *e, size_t n)
{
	/* (+ 1: a stack of no frame first still gets an array, not NULL + 0) */
	if (e->nids + n >= e->ids_cap)
		e->ids = xgrow(e->ids, &e->ids_cap, e->nids + n + 1, sizeof(*e->ids));
	return e->ids + e->nids;
}

static void pprof_sample(struct pprof_enc *e, size_t n, uint64_t samples, uint64_t period)
{
	Sample *sm;

	if (e->nsmp == e->smp_cap) {
		e->smp = xgrow(e->smp, &e->smp_cap, e->nsmp + 1, sizeof(*e->smp));
		e->id_off = xrealloc(e->id_off, e->smp_cap * sizeof(*e->id_off));
		e->label_off = xrealloc(e->label_off, e->smp_cap * sizeof(*e->label_off));
		e->vals = xrealloc(e->vals, 2 * e->smp_cap * sizeof(*e->vals));
	}
	sm = &e->smp[e->nsmp];
	*sm = pprof_sample_init;
	sm->n_location_id = n;
	sm->n_value = 2;
	e->id_off[e->nsmp] = e->nids;
	e->label_off[e->nsmp] = e->nlabels;
	e->vals[2 * e->nsmp] = (int64_t)samples;
	e->vals[2 * e->nsmp + 1] = (int64_t)period;
	e->nids += n;
	e->nsmp++;
}

/* cpu-clock and task-clock count nanoseconds, with perf's modifiers too
 * ("cpu-clock:ppp" in a recording). */
static bool pprof_time_event(const char *event)
{
	size_t n = strcspn(event, ":");

	return (n == 9 && strncmp(event, "cpu-clock", n) == 0) ||
	       (n == 10 && strncmp(event, "task-clock", n) == 0);
}

const char *pprof_event_type(const char *event)
{
	if (!event)
		return "events";
	return pprof_time_event(event) ? "cpu" : event;
}

static void pprof_value_type(struct pprof_enc *e, ValueType *vt, const char *type,
			     const char *unit)
{
	perftools__profiles__value_type__init(vt);
	vt->type = pprof_str(&e->strs, type);
	vt->unit = pprof_str(&e->strs, unit);
}

/* The tables and scratch of an encoding; keep: a live writer's, whose
 * strings outlive the snapshot and whose Functions are marked when used
 * (pprof_fn_ref).  The string table starts "", then the labels' keys. */
void pprof_enc_init(struct pprof_enc *e, size_t nr_stacks, bool keep)
{
	memset(e, 0, sizeof(*e));
	e->strs.keep = keep;
	hashtab_init(&e->strs.ht, 0);
	hashtab_init(&e->funcs.ht, 0);
	hashtab_init(&e->maps.ht, 0);
	/* About a Location per stack (one address each, mostly): sized
	   once, not grown and rehashed at every refresh. */
	hashtab_init(&e->loctab.ht, 2 * nr_stacks);
	hashtab_init(&e->memo_ht, 0);
	if (keep) {
		e->fref_cap = 64;
		e->fref = xcalloc(e->fref_cap, sizeof(*e->fref));
	}
	pprof_str(&e->strs, "");
	e->comm_key = pprof_str(&e->strs, "comm");
	e->pid_key = pprof_str(&e->strs, "pid");
	e->tid_key = pprof_str(&e->strs, "tid");
}

void pprof_enc_release(struct pprof_enc *e)
{
	free(e->smp);
	free(e->id_off);
	free(e->label_off);
	free(e->ids);
	free(e->vals);
	free(e->labels);
	free(e->strs.v);
	free(e->funcs.v);
	free(e->maps.v);
	free(e->objs);
	free(e->loctab.v);
	free(e->used);
	free(e->loc_line);
	free(e->fn);
	free(e->ln);
	free(e->prev_loc);
	free(e->cur_loc);
	free(e->fref);
	free(e->floc);
	hashtab_release(&e->loctab.ht);
	hashtab_release(&e->memo_ht);
	free(e->memo);
	free(e->fn_file);
	free(e->fn_start);
	hashtab_release(&e->strs.ht);
	hashtab_release(&e->funcs.ht);
	hashtab_release(&e->maps.ht);
}

/* A live walk's stack of kept frames (no inlined ones), leaf first into
 * ids: a frame id's Location is that of its first sight while the tables
 * last, found without hashing, with its Function and Mapping to mark
 * (a record of its own: no lookup in the tables), once a walk: the record
 * says which walk marked them last, so a frame met again reads its record
 * alone, not the stack's frame (issue 18: the frames' reads, a group's
 * frames each, were most of the walk's time on a load of many stacks).
 * The address is checked, for the store's ids to be the ones the Location
 * was made from.  A frame id the last Sample, prev (or NULL), had at the
 * same place from the root is the same Location, already marked: its id
 * is taken over (the stacks are sorted root first: a group's members
 * mostly differ at the leaf end, and the next group shares the callers
 * up to where it branches off). */
/* pprof_enc_frames' frame f of id at addr looked up (apart: the walk's
 * loop keeps its registers).  Returns its Location. */
__attribute__((noinline)) static uint64_t pprof_enc_frame_new(struct pprof_enc *e,
							     const struct snapshot_frame *f,
							     uint32_t id, uint64_t addr)
{
	uint64_t fid = pprof_stack_frame(e, f), loc;

	if (f->file)
		pprof_function_file(e, fid, f->file, f->start_line);
	loc = pprof_location(e, &fid, &f->line, 1, addr);
	/* (a frame with a file, or inlined, is looked up every time: kept
	   stacks have none) */
	if (f->file || f->inlined)
		return loc;
	if (id >= e->floc_cap) {
		size_t old = e->floc_cap;

		e->floc = xgrow(e->floc, &e->floc_cap, (size_t)id + 1, sizeof(*e->floc));
		memset(e->floc + old, 0, (e->floc_cap - old) * sizeof(*e->floc));
	}
	e->floc[id] = (struct pprof_floc){ addr, (uint32_t)loc, (uint32_t)fid,
					   e->funcs.v[fid - 1][1], e->walk };
	return loc;
}

static void pprof_enc_frames(struct pprof_enc *e, const struct snapshot_stack *st,
			     const struct snapshot_stack *prev, uint64_t *ids)
{
	size_t j, nr = st->nr_frames, found = 0, taken = 0;
	const uint32_t *fids = st->frame_ids;
	/* prev's frame j - from + off is as far from the root as this
	   one's j (from <= j; with no prev, from is nr); the last Sample's
	   ids end where this one's start */
	size_t pnr = prev ? prev->nr_frames : 0, from = !prev ? nr : nr > pnr ? nr - pnr : 0;
	size_t off = pnr > nr ? pnr - nr : 0;
	const uint32_t *pf = prev ? prev->frame_ids : fids;
	const uint64_t *pids = ids - pnr;
	const uint64_t *ad = st->addrs;
	uint32_t walk = e->walk;
	/* (locals: ids is uint64_t, which may alias e's size_t fields, so
	   the compiler would read these again after every store) */
	struct pprof_floc *floc = e->floc;
	size_t cap = e->floc_cap;

	for (j = 0; j < nr; j++) {
		uint32_t id = fids[j];
		struct pprof_floc *r;
		uint64_t addr;

		if (j >= from && pf[j - from + off] == id) {
			ids[j] = pids[j - from + off];
			taken++;
			continue;
		}
		addr = ad ? ad[nr - 1 - j] : st->frames[nr - 1 - j].addr;
		r = id < cap ? &floc[id] : NULL;
		if (r && r->loc && r->addr == addr) {
			if (r->walk != walk) {
				r->walk = walk;
				e->used[r->loc - 1] = true;
				/* fref has room: fn was marked when it was made */
				e->fref[r->fn - 1] = walk;
				/* the Mapping's DSO: its first frame's, as
				   pprof_frame */
				if (r->map && !e->objs[r->map - 1])
					e->objs[r->map - 1] = st->frames[nr - 1 - j].object;
			}
			ids[j] = r->loc;
			found++;
			continue;
		}
		ids[j] = pprof_enc_frame_new(e, &st->frames[nr - 1 - j], id, addr);
		floc = e->floc;
		cap = e->floc_cap;
	}
	e->frames_found += found;
	e->frames_taken += taken;
}

/* snap's Samples into e's flat arrays, numbering the Functions, Mappings
 * and Locations they use (e->used) as they come. */
void pprof_enc_walk(struct pprof_enc *e, const struct snapshot *snap)
{
	bool pids = sort_spec_has(&snap->sort, SORT_PID);
	bool tids = sort_spec_has(&snap->sort, SORT_TID);
	uint64_t *ids, fn1;
	size_t i, j, g, n;

	if (snap->callchains) {
		const struct snapshot_stack *prev = NULL, *prev_ids = NULL;
		uint64_t *swap;
		size_t shared, nr;

		for (i = 0; i < snap->nr_stacks; i++) {
			const struct snapshot_stack *st = &snap->stacks[i];

			/* Kept stacks come in the view's order, their frame
			   ids and those ids' records all over memory: the
			   next stacks' are fetched ahead (the ids 8 stacks
			   ahead: 2 ahead was too late, bench/pprof-refresh
			   kept stacks' write CPU ~355 -> ~290 ms). */
			if (i + 8 < snap->nr_stacks && snap->stacks[i + 8].frame_ids)
				__builtin_prefetch(snap->stacks[i + 8].frame_ids);
			if (i + 1 < snap->nr_stacks && snap->stacks[i + 1].frame_ids && e->floc) {
				const struct snapshot_stack *nx = &snap->stacks[i + 1];

				/* (the leaf end's: the callers are mostly the
				   stack before's, taken over) */
				for (j = 0; j < nx->nr_frames && j < 3; j++)
					if (nx->frame_ids[j] < e->floc_cap)
						__builtin_prefetch(&e->floc[nx->frame_ids[j]]);
			}
			/* Decay takes a stack's samples to 0 before its period:
			   the table still counts the period. */
			if (!st->samples && !st->period)
				continue;
			nr = st->nr_frames;
			ids = pprof_sample_ids(e, nr);
			if (nr + 1 > e->fn_cap) {
				e->fn = xgrow(e->fn, &e->fn_cap, nr + 1, sizeof(*e->fn));
				e->ln = xrealloc(e->ln, e->fn_cap * sizeof(*e->ln));
			}
			if (nr > e->loc_cap) {
				size_t cap = e->loc_cap;

				e->prev_loc = xgrow(e->prev_loc, &cap, nr, sizeof(*e->prev_loc));
				e->cur_loc = xrealloc(e->cur_loc, cap * sizeof(*e->cur_loc));
				e->loc_cap = cap;
			}
			if (e->fref && st->frame_ids && snap->frame_ids_of == e->floc_of) {
				pprof_enc_frames(e, st, prev_ids, ids);
				n = nr;
				/* (no cur_loc: the next stack shares nothing
				   through the frames) */
				prev = NULL;
				prev_ids = st;
				goto sample;
			}
			prev_ids = NULL;
			/* The outer frames this stack shares with the one
			 * before (a group's members differ at the leaf end,
			 * groups are sorted root first): their Functions and
			 * the Locations that start there are known, and are
			 * taken over without lookups.  Nothing new is numbered
			 * there, so the ids are those a lookup gives.  Whole
			 * frames are compared, every field (the view zeroes
			 * their padding). */
			for (shared = 0; prev && shared < nr && shared < prev->nr_frames &&
					 memcmp(&st->frames[shared], &prev->frames[shared],
						sizeof(*st->frames)) == 0 &&
					 /* (a snapshot's stacks all have addrs or none) */
					 (!st->addrs || snapshot_frame_addr(st, shared) ==
								snapshot_frame_addr(prev, shared));
			     shared++)
				;
			/* Frames are root first; pprof wants the leaf first,
			 * and a function inlined into the next one (--inline)
			 * as a Line of the same Location. */
			for (j = 0; j < nr; j++) {
				const struct snapshot_frame *f = &st->frames[nr - 1 - j];

				e->fn[j] = 0;
				e->ln[j] = f->line;
				if (nr - 1 - j < shared)
					continue;
				e->fn[j] = pprof_stack_frame(e, f);
				if (f->file)
					pprof_function_file(e, e->fn[j], f->file, f->start_line);
			}
			if (nr)  /* (cur_loc is NULL until a stack has frames) */
				memset(e->cur_loc, 0, nr * sizeof(*e->cur_loc));
			for (j = 0, n = 0; j < nr; j = g + 1) {
				size_t pos = nr - 1 - j, k;

				for (g = j; g + 1 < nr && st->frames[nr - 1 - g].inlined; g++)
					;
				if (pos < shared && e->prev_loc[pos]) {
					ids[n] = e->prev_loc[pos];
				} else {
					for (k = j; k <= g; k++)
						if (!e->fn[k])
							e->fn[k] = pprof_stack_frame(e, &st->frames[nr - 1 - k]);
					ids[n] = pprof_location(e, e->fn + j, e->ln + j, g - j + 1,
								snapshot_frame_addr(st, nr - 1 - g));
				}
				e->cur_loc[pos] = ids[n++];
			}
			/* Past nr, prev_loc is stale: never read (shared <= nr). */
			swap = e->prev_loc;
			e->prev_loc = e->cur_loc;
			e->cur_loc = swap;
			prev = st;
sample:
			pprof_sample(e, n, st->samples, st->period);
			if (st->comm)
				pprof_label_str(e, e->comm_key, st->comm);
			if (st->has_pid)
				pprof_label_num(e, e->pid_key, st->pid);
			if (st->has_tid)
				pprof_label_num(e, e->tid_key, st->tid);
		}
	} else {
		/* No chains: each row is a one-frame stack, as --folded does. */
		for (i = 0; i < snap->nr_rows; i++) {
			const struct snapshot_row *r = &snap->rows[i];

			if (!r->samples && !r->period)
				continue;
			ids = pprof_sample_ids(e, 1);
			fn1 = pprof_fn_ref(e, pprof_frame(e, r->symbol, r->dso, NULL, r->dso_path,
							  r->kernel));
			ids[0] = pprof_location(e, &fn1, NULL, 1, 0);
			pprof_sample(e, 1, r->samples, r->period);
			if (r->comm)
				pprof_label_str(e, e->comm_key, r->comm);
			if (pids && r->has_pid)
				pprof_label_num(e, e->pid_key, r->pid);
			if (tids && r->has_tid)
				pprof_label_num(e, e->tid_key, r->tid);
		}
	}
	/* The flat arrays are complete: point the Samples into them. */
	for (i = 0; i < e->nsmp; i++) {
		e->smp[i].location_id = e->ids + e->id_off[i];
		e->smp[i].value = e->vals + 2 * i;
	}
}

/* Mapping i's fields but has_filenames and has_line_numbers. */
void pprof_mapping_fill(struct pprof_enc *e, size_t i, Mapping *m,
			const struct snapshot *snap)
{
	uint64_t start, limit, offset;

	perftools__profiles__mapping__init(m);
	m->id = i + 1;
	if (e->objs[i] && view_object_text(e->objs[i], &start, &limit, &offset) == 0) {
		m->memory_start = start;
		m->memory_limit = limit;
		m->file_offset = offset;
	}
	m->filename = e->maps.v[i][1];
	m->build_id = pprof_build_id(e, e->objs[i]);
	m->has_functions = 1;
	m->has_inline_frames = snap->inline_frames;
}

/* Location entry i (a loctab index) with its Lines, innermost first, in
 * lines[] (as many as its chain has: the caller makes the room). */
void pprof_location_fill(struct pprof_enc *e, size_t i, Location *lo, Line *lines,
			 Line **lines_p)
{
	uint32_t l;

	perftools__profiles__location__init(lo);
	lo->id = i + 1;
	lo->mapping_id = e->funcs.v[e->loctab.v[i][0] - 1][1];
	lo->address = (uint64_t)e->loctab.v[i][3] << 32 | e->loctab.v[i][2];
	lo->line = lines_p;
	for (l = (uint32_t)i + 1; l; l = e->loctab.v[l - 1][1]) {
		perftools__profiles__line__init(&lines[lo->n_line]);
		lines[lo->n_line].function_id = e->loctab.v[l - 1][0];
		lines[lo->n_line].line = e->loc_line[l - 1];
		lines_p[lo->n_line] = &lines[lo->n_line];
		lo->n_line++;
	}
}

/* Function i, its file and start line (NULL, 0: none). */
void pprof_function_fill(struct pprof_enc *e, size_t i, Function *f, const char *file,
			 unsigned start)
{
	perftools__profiles__function__init(f);
	f->id = i + 1;
	f->name = e->funcs.v[i][0];
	/* The snapshot has the shown (demangled) name only. */
	f->system_name = e->funcs.v[i][0];
	/* The table keeps pointers: the DWARF reader's are interned. */
	if (file) {
		f->filename = pprof_str(&e->strs, file);
		f->start_line = start;
	}
}

/* The fields of a Profile but its tables: sample_type, period_type,
 * period, the times, the comment (its string index in *comment_idx). */
void pprof_profile_head(struct pprof_enc *e, Profile *prof, ValueType *types,
			ValueType *period_type, ValueType **types_p,
			const struct snapshot *snap, const char *comment,
			int64_t *comment_idx, int64_t time_nanos)
{
	const char *event = pprof_event_type(snap->event);
	bool timed = strcmp(event, "cpu") == 0;

	pprof_value_type(e, period_type, event, timed ? "nanoseconds" : "count");
	if (comment) {
		*comment_idx = pprof_str(&e->strs, comment);
		prof->n_comment = 1;
		prof->comment = comment_idx;
	}
	if (!snap->freq)
		prof->period = (int64_t)snap->sample_period;
	else if (timed && snap->sample_freq)
		prof->period = (int64_t)(1000000000ULL / snap->sample_freq);
	types_p[0] = &types[0];
	types_p[1] = &types[1];
	prof->n_sample_type = 2;
	prof->sample_type = types_p;
	prof->time_nanos = time_nanos;
	prof->duration_nanos = (int64_t)(snap->time * 1e9);
	prof->period_type = period_type;
}

void pprof_sample_types(struct pprof_enc *e, ValueType *types, const struct snapshot *snap)
{
	const char *event = pprof_event_type(snap->event);

	pprof_value_type(e, &types[0], "samples", "count");
	pprof_value_type(e, &types[1], event, strcmp(event, "cpu") == 0 ? "nanoseconds" : "count");
}

/* Each distinct address of a stack's frame (view_opts.stack_detail; with
 * --inline the run of inlined functions at it and the one they were
 * inlined into, as its Lines) is one Location, in the Mapping of its DSO,
 * which gives the DSO's executable segment once its symbols are loaded
 * (the addresses are the ELF's, as in its symbol table) and says
 * has_functions (the names are resolved) and nothing else it cannot back:
 * has_filenames and has_line_numbers only where the DWARF gave every
 * function its file and every Line its line (--inline, -s srcline). */
void pprof_encode(struct strbuf *out, const struct snapshot *snap, const char *comment,
		  int64_t time_nanos)
{
	struct pprof_enc e;
	size_t *map_fns, *map_files, *map_lines, *map_numbered;
	size_t i, nlocs = 0, nlines = 0;
	Profile prof;
	ValueType types[2], period_type, *types_p[2];
	Sample **smp_p;
	Label **label_p;
	Mapping *maps, **maps_p;
	Location *locs, **locs_p;
	Line *lines, **lines_p;
	Function *funcs, **funcs_p;
	int64_t comment_idx;
	size_t len;

	pprof_enc_init(&e, snap->callchains ? snap->nr_stacks : 0, false);
	perftools__profiles__profile__init(&prof);
	pprof_sample_types(&e, types, snap);
	pprof_enc_walk(&e, snap);
	smp_p = xmalloc((e.nsmp + 1) * sizeof(*smp_p));
	label_p = xmalloc((e.nlabels + 1) * sizeof(*label_p));
	for (i = 0; i < e.nlabels; i++)
		label_p[i] = &e.labels[i];
	for (i = 0; i < e.nsmp; i++) {
		e.smp[i].label = label_p + e.label_off[i];
		smp_p[i] = &e.smp[i];
	}

	/* A mapping has_filenames when every function of it has one. */
	map_fns = xcalloc(e.maps.n + 1, sizeof(*map_fns));
	map_files = xcalloc(e.maps.n + 1, sizeof(*map_files));
	map_lines = xcalloc(e.maps.n + 1, sizeof(*map_lines));
	map_numbered = xcalloc(e.maps.n + 1, sizeof(*map_numbered));
	for (i = 0; i < e.funcs.n; i++) {
		uint32_t m = e.funcs.v[i][1];

		if (m) {
			map_fns[m - 1]++;
			map_files[m - 1] += i < e.fn_file_cap && e.fn_file[i];
		}
	}
	maps = xmalloc((e.maps.n + 1) * sizeof(*maps));
	maps_p = xmalloc((e.maps.n + 1) * sizeof(*maps_p));
	for (i = 0; i < e.maps.n; i++) {
		pprof_mapping_fill(&e, i, &maps[i], snap);
		maps[i].has_filenames = map_fns[i] && map_files[i] == map_fns[i];
		maps_p[i] = &maps[i];
	}

	for (i = 0; i < e.loctab.n; i++) {
		uint32_t l;

		for (l = (uint32_t)i + 1; e.used[i] && l; l = e.loctab.v[l - 1][1])
			nlines++;
	}
	locs = xmalloc((e.loctab.n + 1) * sizeof(*locs));
	locs_p = xmalloc((e.loctab.n + 1) * sizeof(*locs_p));
	lines = xmalloc((nlines + 1) * sizeof(*lines));
	lines_p = xmalloc((nlines + 1) * sizeof(*lines_p));
	for (i = 0, nlines = 0; i < e.loctab.n; i++) {
		Location *lo = &locs[nlocs];
		size_t k;

		if (!e.used[i])
			continue;
		pprof_location_fill(&e, i, lo, lines + nlines, lines_p + nlines);
		for (k = 0; lo->mapping_id && k < lo->n_line; k++) {
			map_lines[lo->mapping_id - 1]++;
			map_numbered[lo->mapping_id - 1] += lines[nlines + k].line != 0;
		}
		nlines += lo->n_line;
		locs_p[nlocs++] = lo;
	}
	/* A mapping has_line_numbers when every Line of its Locations has one. */
	for (i = 0; i < e.maps.n; i++)
		maps[i].has_line_numbers = map_lines[i] && map_numbered[i] == map_lines[i];

	funcs = xmalloc((e.funcs.n + 1) * sizeof(*funcs));
	funcs_p = xmalloc((e.funcs.n + 1) * sizeof(*funcs_p));
	for (i = 0; i < e.funcs.n; i++) {
		bool has = i < e.fn_file_cap && e.fn_file[i];

		pprof_function_fill(&e, i, &funcs[i], has ? e.fn_file[i] : NULL,
				    has ? e.fn_start[i] : 0);
		funcs_p[i] = &funcs[i];
	}

	pprof_profile_head(&e, &prof, types, &period_type, types_p, snap, comment, &comment_idx,
			   time_nanos);
	prof.n_sample = e.nsmp;
	prof.sample = smp_p;
	prof.n_mapping = e.maps.n;
	prof.mapping = maps_p;
	prof.n_location = nlocs;
	prof.location = locs_p;
	prof.n_function = e.funcs.n;
	prof.function = funcs_p;
	/* protobuf-c takes char **: it does not write through them. */
	prof.n_string_table = e.strs.n;
	prof.string_table = (char **)e.strs.v;

	len = perftools__profiles__profile__get_packed_size(&prof);
	if (out->cap < out->len + len + 1) {
		out->cap = out->len + len + 1;
		out->buf = xrealloc(out->buf, out->cap);
	}
	out->len += perftools__profiles__profile__pack(&prof, (uint8_t *)out->buf + out->len);
	out->buf[out->len] = '\0';

	free(smp_p);
	free(label_p);
	free(maps);
	free(maps_p);
	free(locs);
	free(locs_p);
	free(lines);
	free(lines_p);
	free(funcs);
	free(funcs_p);
	free(map_fns);
	free(map_files);
	free(map_lines);
	free(map_numbered);
	pprof_enc_release(&e);
}
int pprof_gzip(const void *in, size_t n, struct strbuf *out, struct errmsg *em)
{
	z_stream z;
	int rc;

	memset(&z, 0, sizeof(z));
	/* 15 + 16: a gzip header and trailer around the deflate stream. */
	if (deflateInit2(&z, Z_BEST_SPEED, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK)
		return errmsg_set(em, -ENOMEM, "zlib: cannot start compressing");
	z.next_in = (Bytef *)(uintptr_t)in;
	z.avail_in = (uInt)n;
	do {
		char buf[16384];

		z.next_out = (Bytef *)buf;
		z.avail_out = sizeof(buf);
		rc = deflate(&z, Z_FINISH);
		if (rc == Z_STREAM_ERROR) {
			deflateEnd(&z);
			return errmsg_set(em, -EIO, "zlib: compression failed");
		}
		strbuf_add(out, buf, sizeof(buf) - z.avail_out);
	} while (rc != Z_STREAM_END);
	deflateEnd(&z);
	return 0;
}
