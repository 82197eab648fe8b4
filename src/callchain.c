/* Callchains: turning a sample's chain into addresses to resolve, and the
 * store of interned resolved chains that call trees and folded stacks use. */
#include "config.h"

#include "callchain.h"
#include "callchain-test.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "hash.h"
#include "hashtab.h"
#include "util.h"

#define CC_MIN_SLOTS 64
#define CC_DEFAULT_MAX_IDS (1u << 20)

/* The cpumode the entries after a marker were recorded in; -1 for a
 * marker that carries no mode (PERF_CONTEXT_GUEST precedes the real one). */
static int callchain_marker_mode(uint64_t marker)
{
	switch ((int64_t)marker) {
	case PERF_CONTEXT_HV:
		return PERF_RECORD_MISC_HYPERVISOR;
	case PERF_CONTEXT_KERNEL:
		return PERF_RECORD_MISC_KERNEL;
	case PERF_CONTEXT_USER:
		return PERF_RECORD_MISC_USER;
	case PERF_CONTEXT_GUEST_KERNEL:
		return PERF_RECORD_MISC_GUEST_KERNEL;
	case PERF_CONTEXT_GUEST_USER:
		return PERF_RECORD_MISC_GUEST_USER;
	default:
		return -1;
	}
}

size_t callchain_zero_ends(const struct sample *s)
{
	size_t end = s->nr_callchain;

	/* Not a context's first address: that one is a pc, and a call
	 * through a NULL pointer does stop at 0. */
	while (end >= 2 && s->callchain[end - 1] == 0 && !record_is_context(s->callchain[end - 2]))
		end--;
	return s->nr_callchain - end;
}

size_t callchain_ips(const struct sample *s, struct callchain_ip *out, size_t max)
{
	uint16_t mode = s->cpumode & PERF_RECORD_MISC_CPUMODE_MASK;
	bool block_start = true, first = true;
	size_t n = 0, i, end = s->nr_callchain - callchain_zero_ends(s);

	if (!max)
		return 0;
	out[n].ip = s->ip;
	out[n].cpumode = mode;
	n++;
	for (i = 0; i < end && n < max; i++) {
		uint64_t ip = s->callchain[i];

		if (record_is_context(ip)) {
			int m = callchain_marker_mode(ip);

			/* Unknown markers (a deferred user chain's cookie
			 * marker, say) keep the mode: what follows is still
			 * in the same context as far as we can tell. */
			if (m >= 0) {
				mode = (uint16_t)m;
				block_start = true;
			}
			continue;
		}
		if (first) {
			first = false;
			if (ip == s->ip) {
				block_start = false;
				continue;
			}
		}
		out[n].cpumode = mode;
		/* The first address of a context is the interrupted pc,
		 * the rest are return addresses: the call is just before. */
		out[n].ip = block_start || ip == 0 ? ip : ip - 1;
		block_start = false;
		n++;
	}
	return n;
}

struct cc_chain_rec {
	struct callchain_key key;
	uint64_t hash;
	uint64_t period;
	uint64_t samples;
	uint32_t off;      /* into ids */
	uint32_t nr;
	uint32_t leaf;     /* ids[off]: the hint's check reads no ids */
	uint32_t serial;   /* callchain_store_serial's low half */
};

struct cc_hint {
	uint64_t token;
	uint32_t chain;
	uint32_t epoch;         /* 0: empty */
};

/* Hints come in sets of two, indexed by the token's low 32 bits: the
 * resolve cache's tokens carry its dense chain number there, so distinct
 * callers never share a set while the table is as large as that number
 * (it grows to it); the two ways hold the same callers under two leaves or
 * keys.  A leaf with an address (kept for --pprof, --inline, srcline)
 * moves the set by its address's hash: a hot loop's callers come under
 * many leaf addresses, each found through a set of its own (by the token
 * alone, live --pprof found 70% of its chains through a hint, --batch
 * 93%; now 99%).  Any other token still works, with more conflicts. */
#define CC_MIN_HINTS 1024
#define CC_MAX_HINTS (1u << 22)

struct callchain_store {
	/* interned frames */
	struct callchain_frame *frames;
	uint64_t *frame_hash;
	uint32_t *frame_fn;     /* the id of the same frame without its address */
	size_t nframes, frames_cap;
	struct hashtab fidx;    /* over frames, by frame_hash */

	/* interned chains over a pool of frame ids */
	struct cc_chain_rec *chains;
	size_t nchains, chains_cap;
	struct hashtab cidx;    /* over chains, by their hash */
	uint32_t *ids;
	size_t nids, ids_cap, max_ids;

	/* Chains by the caller's token (see callchain_store_add_split): sets
	 * of two by the token's number, forgotten when chains move (decay,
	 * clear). */
	struct cc_hint *hints;
	size_t nhints;          /* power of two, two per set */
	uint32_t epoch;         /* of the chain indices; hints of another are stale */

	/* The next chain's serial (1 up), and the serials' generation:
	 * callchain_store_serial is (gen << 32 | serial). */
	uint32_t next_serial, serial_gen;

	uint64_t dropped;
	uint64_t hint_hits;

	void *view_cache;       /* callchain_store_set_view_cache */
	void (*view_cache_release)(void *);
};

static uint64_t cc_frame_hash_of(const void *ctx, uint32_t idx)
{
	return ((const struct callchain_store *)ctx)->frame_hash[idx];
}

static uint64_t cc_chain_hash_of(const void *ctx, uint32_t idx)
{
	return ((const struct callchain_store *)ctx)->chains[idx].hash;
}

struct callchain_store *callchain_store_new(size_t max_ids)
{
	struct callchain_store *st = xcalloc(1, sizeof(*st));

	st->max_ids = max_ids ? max_ids : CC_DEFAULT_MAX_IDS;
	hashtab_init(&st->fidx, CC_MIN_SLOTS);
	hashtab_init(&st->cidx, CC_MIN_SLOTS);
	st->nhints = CC_MIN_HINTS;
	st->hints = xcalloc(st->nhints, sizeof(*st->hints));
	st->epoch = 1;
	st->next_serial = 1;
	return st;
}

void callchain_store_free(struct callchain_store *st)
{
	if (!st)
		return;
	callchain_store_set_view_cache(st, NULL, NULL);
	free(st->frames);
	free(st->frame_hash);
	free(st->frame_fn);
	hashtab_release(&st->fidx);
	free(st->chains);
	hashtab_release(&st->cidx);
	free(st->ids);
	free(st->hints);
	free(st);
}

struct cc_frame_key {
	const struct callchain_frame *f;
	uint64_t hash;
};

static bool cc_frame_id_eq(const void *ctx, uint32_t id, const void *key)
{
	const struct callchain_store *st = ctx;
	const struct cc_frame_key *k = key;
	const struct callchain_frame *g = &st->frames[id], *f = k->f;

	return st->frame_hash[id] == k->hash && g->dso == f->dso && g->sym == f->sym &&
	       g->kernel == f->kernel && g->addr == f->addr;
}

static uint32_t cc_frame_id(struct callchain_store *st, const struct callchain_frame *f)
{
	struct cc_frame_key k = {
		f, hash_finish(hash_combine(
			   hash_combine(hash_combine((uintptr_t)f->dso, (uintptr_t)f->sym), f->kernel),
			   f->addr))
	};
	size_t j = hashtab_probe(&st->fidx, k.hash, cc_frame_id_eq, st, &k);
	uint32_t fn;

	if (st->fidx.slots[j] != HASHTAB_EMPTY)
		return st->fidx.slots[j];
	/* The function's own frame first (a frame with an address is the
	   function at that address): the table may move, so probe again. */
	if (f->addr) {
		struct callchain_frame g = *f;

		g.addr = 0;
		fn = cc_frame_id(st, &g);
		j = hashtab_probe(&st->fidx, k.hash, cc_frame_id_eq, st, &k);
	} else {
		fn = (uint32_t)st->nframes;
	}
	if (st->nframes == st->frames_cap) {
		size_t cap = st->frames_cap;

		st->frames = xgrow(st->frames, &cap, st->nframes + 1, sizeof(*st->frames));
		st->frame_hash = xrealloc(st->frame_hash, cap * sizeof(*st->frame_hash));
		st->frame_fn = xrealloc(st->frame_fn, cap * sizeof(*st->frame_fn));
		st->frames_cap = cap;
	}
	st->frames[st->nframes] = *f;
	st->frame_hash[st->nframes] = k.hash;
	st->frame_fn[st->nframes] = fn;
	st->nframes++;
	hashtab_insert_at(&st->fidx, j, (uint32_t)(st->nframes - 1), cc_frame_hash_of, st);
	return (uint32_t)(st->nframes - 1);
}

static uint64_t cc_key_hash(const struct callchain_key *k)
{
	uint64_t h = hash_combine(0, (uintptr_t)k->comm);

	h = hash_combine(h, k->pid);
	h = hash_combine(h, k->tid);
	return hash_combine(h, k->cpu);
}

static bool cc_key_eq(const struct callchain_key *a, const struct callchain_key *b)
{
	return a->comm == b->comm && a->pid == b->pid && a->tid == b->tid && a->cpu == b->cpu;
}

/* The chain hash is taken over the frames themselves, not their ids, so
 * that a chain seen before is found without interning each frame again:
 * the ids are only computed for a new chain. */
static uint64_t cc_frame_mix(uint64_t h, const struct callchain_frame *f)
{
	return hash_combine(h, ((uintptr_t)f->dso * 31) ^ (uintptr_t)f->sym ^ f->kernel ^ (f->addr << 1));
}

static bool cc_frame_eq(const struct callchain_frame *a, const struct callchain_frame *b)
{
	return a->sym == b->sym && a->dso == b->dso && a->kernel == b->kernel && a->addr == b->addr;
}

static bool cc_chain_eq(const struct callchain_store *st, const struct cc_chain_rec *c,
			const struct callchain_frame *leaf, const struct callchain_frame *callers,
			size_t ncallers)
{
	const uint32_t *ids = st->ids + c->off;
	size_t i;

	if (!cc_frame_eq(&st->frames[ids[0]], leaf))
		return false;
	for (i = 0; i < ncallers; i++)
		if (!cc_frame_eq(&st->frames[ids[i + 1]], &callers[i]))
			return false;
	return true;
}

struct cc_chain_key {
	const struct callchain_key *key;
	const struct callchain_frame *leaf, *callers;
	size_t ncallers;
	uint64_t hash;
};

static bool cc_chain_key_eq(const void *ctx, uint32_t idx, const void *key)
{
	const struct callchain_store *st = ctx;
	const struct cc_chain_key *k = key;
	const struct cc_chain_rec *c = &st->chains[idx];

	return c->hash == k->hash && c->nr == k->ncallers + 1 && cc_key_eq(&c->key, k->key) &&
	       cc_chain_eq(st, c, k->leaf, k->callers, k->ncallers);
}

/* The two hints of the set of token and the leaf's address. */
static struct cc_hint *cc_hint_set(struct callchain_store *st, uint64_t token, uint64_t leaf_addr)
{
	uint64_t spread = leaf_addr ? hash_finish(leaf_addr) : 0;

	return &st->hints[((token + spread) * 2) & (st->nhints - 1)];
}

/* A bigger hint table, the current hints moved into their new sets. */
static void cc_hints_grow(struct callchain_store *st, size_t want)
{
	struct cc_hint *old = st->hints;
	size_t n = st->nhints, i;

	st->hints = xcalloc(want, sizeof(*st->hints));
	st->nhints = want;
	for (i = 0; i < n; i++) {
		struct cc_hint *set;

		if (old[i].epoch != st->epoch)
			continue;
		/* An old set splits into new ones, never merges with
		 * another: its two ways still fit, in their order. */
		set = cc_hint_set(st, old[i].token,
				  st->frames[st->chains[old[i].chain].leaf].addr);
		set[set[0].epoch == st->epoch] = old[i];
	}
	free(old);
}

/* Whether the table grows to give token's number a set of its own: a
 * dense number (a few per chain) does, an arbitrary token wraps. */
static bool cc_hint_covers(const struct callchain_store *st, uint64_t token)
{
	return (token & UINT32_MAX) <= 4 * (uint64_t)st->nchains + CC_MIN_HINTS;
}

/* Chain indices moved: no hint holds any more. */
static void cc_hints_forget(struct callchain_store *st)
{
	if (++st->epoch == 0) {
		memset(st->hints, 0, st->nhints * sizeof(*st->hints));
		st->epoch = 1;
	}
}

int callchain_store_add_split(struct callchain_store *st, const struct callchain_key *key,
			      const struct callchain_frame *leaf,
			      const struct callchain_frame *callers, size_t ncallers,
			      uint64_t token, uint64_t period, size_t *index)
{
	return callchain_store_add_split_n(st, key, leaf, callers, ncallers, token, period, 1,
					   index);
}

int callchain_store_add_split_n(struct callchain_store *st, const struct callchain_key *key,
				const struct callchain_frame *leaf,
				const struct callchain_frame *callers, size_t ncallers,
				uint64_t token, uint64_t period, uint64_t samples, size_t *index)
{
	struct cc_chain_rec *c;
	struct cc_hint *hint = NULL;
	struct cc_chain_key ck = { key, leaf, callers, ncallers, 0 };
	size_t n = ncallers + 1, i, j;
	uint64_t kh = cc_key_hash(key), h;

	/* The same callers (token), key and leaf: the chain found last time. */
	if (token) {
		hint = cc_hint_set(st, token, leaf->addr);
		for (i = 0; i < 2; i++) {
			if (hint[i].epoch != st->epoch || hint[i].token != token)
				continue;
			c = &st->chains[hint[i].chain];
			if (c->nr == n && cc_key_eq(&c->key, key) &&
			    cc_frame_eq(&st->frames[c->leaf], leaf)) {
				/* The most recent first. */
				if (i) {
					struct cc_hint t = hint[1];

					hint[1] = hint[0];
					hint[0] = t;
				}
				st->hint_hits++;
				goto account;
			}
		}
	}
	h = cc_frame_mix(kh, leaf);
	for (i = 0; i < ncallers; i++)
		h = cc_frame_mix(h, &callers[i]);
	h = hash_finish(hash_combine(h, n));

	ck.hash = h;
	j = hashtab_probe(&st->cidx, h, cc_chain_key_eq, st, &ck);
	if (st->cidx.slots[j] != HASHTAB_EMPTY) {
		c = &st->chains[st->cidx.slots[j]];
		goto found;
	}
	if (st->nids + n > st->max_ids || st->nchains >= HASHTAB_MAX_ENTRIES) {
		st->dropped += n * samples;
		return -ENOSPC;
	}
	if (st->nids + n > st->ids_cap)
		st->ids = xgrow(st->ids, &st->ids_cap, st->nids + n, sizeof(*st->ids));
	/* Interning may grow and reindex the frames, not the chain slots:
	 * j stays the free slot found above. */
	st->ids[st->nids] = cc_frame_id(st, leaf);
	for (i = 0; i < ncallers; i++)
		st->ids[st->nids + 1 + i] = cc_frame_id(st, &callers[i]);
	if (st->nchains == st->chains_cap)
		st->chains = xgrow(st->chains, &st->chains_cap, st->nchains + 1, sizeof(*st->chains));
	c = &st->chains[st->nchains];
	c->key = *key;
	c->hash = h;
	c->period = 0;
	c->samples = 0;
	c->off = (uint32_t)st->nids;
	c->nr = (uint32_t)n;
	c->leaf = st->ids[st->nids];
	if (st->next_serial == UINT32_MAX) {
		/* Serials wrapped: the chains numbered again in their
		   order, in a new generation (a view keyed by the old ones
		   sees none of them again). */
		for (i = 0; i < st->nchains; i++)
			st->chains[i].serial = (uint32_t)i + 1;
		st->next_serial = (uint32_t)st->nchains + 1;
		st->serial_gen++;
	}
	c->serial = st->next_serial++;
	st->nids += n;
	st->nchains++;
	hashtab_insert_at(&st->cidx, j, (uint32_t)(st->nchains - 1), cc_chain_hash_of, st);
	/* A set per chain at least, and one per token number (up to a
	 * bound): a bigger table starts empty (hints are only a shortcut). */
	if (st->nchains * 2 > st->nhints ||
	    (token && cc_hint_covers(st, token) && (token & UINT32_MAX) * 2 >= st->nhints)) {
		size_t want = st->nhints;

		while (want < CC_MAX_HINTS &&
		       (st->nchains * 2 > want ||
			(token && cc_hint_covers(st, token) && (token & UINT32_MAX) * 2 >= want)))
			want *= 2;
		cc_hints_grow(st, want);
		if (token)
			hint = cc_hint_set(st, token, leaf->addr);
	}
found:
	if (token) {
		/* The set's older way goes; the found chain comes first. */
		if (!(hint[0].epoch == st->epoch && hint[0].token == token &&
		      hint[0].chain == (uint32_t)(c - st->chains)))
			hint[1] = hint[0];
		hint[0].token = token;
		hint[0].chain = (uint32_t)(c - st->chains);
		hint[0].epoch = st->epoch;
	}
account:
	c->period += period;
	c->samples += samples;
	if (index)
		*index = (size_t)(c - st->chains);
	return 0;
}

int callchain_store_add(struct callchain_store *st, const struct callchain_key *key,
			const struct callchain_frame *frames, size_t n, uint64_t period)
{
	/* Every chain has its sampled function: an empty one is not a chain. */
	if (!n)
		return 0;
	return callchain_store_add_split(st, key, frames, frames + 1, n - 1, 0, period, NULL);
}

/* x * 7 / 8 without overflow, as hist_age. */
static uint64_t cc_decay(uint64_t x)
{
	return (x / 8) * 7 + (x % 8) * 7 / 8;
}

void callchain_store_decay(struct callchain_store *st)
{
	size_t i, n = 0, nids = 0;

	for (i = 0; i < st->nchains; i++) {
		struct cc_chain_rec c = st->chains[i];

		c.period = cc_decay(c.period);
		c.samples = cc_decay(c.samples);
		if (!c.period)
			continue;
		/* Compact the pool in place: kept chains only move down. */
		if (nids != c.off)
			memmove(st->ids + nids, st->ids + c.off, c.nr * sizeof(*st->ids));
		c.off = (uint32_t)nids;
		nids += c.nr;
		st->chains[n++] = c;
	}
	st->nchains = n;
	st->nids = nids;
	cc_hints_forget(st);
	/* Keeps the index size unless it became far too big. */
	hashtab_rebuild(&st->cidx, n, cc_chain_hash_of, st);
}

void callchain_store_clear(struct callchain_store *st)
{
	st->nchains = 0;
	st->nids = 0;
	cc_hints_forget(st);
	hashtab_rebuild(&st->cidx, 0, cc_chain_hash_of, st);
}

size_t callchain_store_count(const struct callchain_store *st)
{
	return st->nchains;
}

void callchain_store_get(const struct callchain_store *st, size_t i, struct callchain_chain *out)
{
	const struct cc_chain_rec *c = &st->chains[i];

	out->key = c->key;
	out->ids = st->ids + c->off;
	out->nr = c->nr;
	out->period = c->period;
	out->samples = c->samples;
}

uint64_t callchain_store_serial(const struct callchain_store *st, size_t i)
{
	return (uint64_t)st->serial_gen << 32 | st->chains[i].serial;
}

const struct callchain_frame *callchain_store_frames(const struct callchain_store *st)
{
	return st->frames;
}

const struct callchain_frame *callchain_store_frame(const struct callchain_store *st, uint32_t id)
{
	return id < st->nframes ? &st->frames[id] : NULL;
}

uint32_t callchain_store_function(const struct callchain_store *st, uint32_t id)
{
	return id < st->nframes ? st->frame_fn[id] : id;
}

uint64_t callchain_store_dropped(const struct callchain_store *st)
{
	return st->dropped;
}

void *callchain_store_view_cache(const struct callchain_store *st)
{
	return st->view_cache;
}

void callchain_store_set_view_cache(const struct callchain_store *cst, void *cache,
				    void (*release)(void *))
{
	/* The cache is not the store's data: the view keeps it here. */
	struct callchain_store *st = (struct callchain_store *)(uintptr_t)cst;

	if (st->view_cache && st->view_cache_release)
		st->view_cache_release(st->view_cache);
	st->view_cache = cache;
	st->view_cache_release = release;
}

size_t callchain_store_nr_ids(const struct callchain_store *st)
{
	return st->nids;
}

uint64_t callchain_store_hint_hits(const struct callchain_store *st)
{
	return st->hint_hits;
}

void callchain_store_set_next_serial(struct callchain_store *st, uint32_t serial)
{
	st->next_serial = serial;
}
