/* Callchains: turning a sample's chain into addresses to resolve, and the
 * store of interned resolved chains that call trees and folded stacks use. */
#include "config.h"

#include "callchain.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

#define CC_MIN_SLOTS 64
#define CC_SLOT_EMPTY UINT32_MAX
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

size_t callchain_ips(const struct sample *s, struct callchain_ip *out, size_t max)
{
	uint16_t mode = s->cpumode & PERF_RECORD_MISC_CPUMODE_MASK;
	bool block_start = true, first = true;
	size_t n = 0, i;

	if (!max)
		return 0;
	out[n].ip = s->ip;
	out[n].cpumode = mode;
	n++;
	for (i = 0; i < s->nr_callchain && n < max; i++) {
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
};

struct callchain_store {
	/* interned frames */
	struct callchain_frame *frames;
	uint64_t *frame_hash;
	size_t nframes, frames_cap;
	uint32_t *fslots;
	size_t nfslots;

	/* interned chains over a pool of frame ids */
	struct cc_chain_rec *chains;
	size_t nchains, chains_cap;
	uint32_t *cslots;
	size_t ncslots;
	uint32_t *ids;
	size_t nids, ids_cap, max_ids;

	uint64_t dropped;
};

static uint64_t cc_mix(uint64_t h, uint64_t v)
{
	return h ^ (v + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2));
}

/* splitmix64's finaliser: pointers differ in few low bits. */
static uint64_t cc_finish(uint64_t h)
{
	h ^= h >> 30;
	h *= 0xbf58476d1ce4e5b9ULL;
	h ^= h >> 27;
	h *= 0x94d049bb133111ebULL;
	h ^= h >> 31;
	return h;
}

static uint32_t *cc_slots_new(size_t n)
{
	uint32_t *s = xmalloc(n * sizeof(*s));

	memset(s, 0xff, n * sizeof(*s));
	return s;
}

struct callchain_store *callchain_store_new(size_t max_ids)
{
	struct callchain_store *st = xcalloc(1, sizeof(*st));

	st->max_ids = max_ids ? max_ids : CC_DEFAULT_MAX_IDS;
	st->nfslots = st->ncslots = CC_MIN_SLOTS;
	st->fslots = cc_slots_new(st->nfslots);
	st->cslots = cc_slots_new(st->ncslots);
	return st;
}

void callchain_store_free(struct callchain_store *st)
{
	if (!st)
		return;
	free(st->frames);
	free(st->frame_hash);
	free(st->fslots);
	free(st->chains);
	free(st->cslots);
	free(st->ids);
	free(st);
}

/* Rebuild an index of nslots slots over n records with the given hashes. */
static void cc_reindex(uint32_t **slots, size_t *nslots, size_t want, size_t n,
		       const void *recs, size_t stride, size_t hash_off)
{
	size_t mask, i;

	if (want != *nslots) {
		free(*slots);
		*slots = xmalloc(want * sizeof(**slots));
		*nslots = want;
	}
	memset(*slots, 0xff, want * sizeof(**slots));
	mask = want - 1;
	for (i = 0; i < n; i++) {
		uint64_t h;
		size_t j;

		memcpy(&h, (const char *)recs + i * stride + hash_off, sizeof(h));
		for (j = h & mask; (*slots)[j] != CC_SLOT_EMPTY; j = (j + 1) & mask)
			;
		(*slots)[j] = (uint32_t)i;
	}
}

static uint32_t cc_frame_id(struct callchain_store *st, const struct callchain_frame *f)
{
	uint64_t h = cc_finish(cc_mix(cc_mix((uintptr_t)f->dso, (uintptr_t)f->sym), f->kernel));
	size_t mask = st->nfslots - 1, j;

	for (j = h & mask; st->fslots[j] != CC_SLOT_EMPTY; j = (j + 1) & mask) {
		uint32_t id = st->fslots[j];
		const struct callchain_frame *g = &st->frames[id];

		if (st->frame_hash[id] == h && g->dso == f->dso && g->sym == f->sym &&
		    g->kernel == f->kernel)
			return id;
	}
	if (st->nframes == st->frames_cap) {
		size_t cap = st->frames_cap;

		st->frames = xgrow(st->frames, &cap, st->nframes + 1, sizeof(*st->frames));
		st->frame_hash = xrealloc(st->frame_hash, cap * sizeof(*st->frame_hash));
		st->frames_cap = cap;
	}
	st->frames[st->nframes] = *f;
	st->frame_hash[st->nframes] = h;
	st->nframes++;
	/* Load at most 1/2: frames are few, short probes matter more. */
	if (st->nframes * 2 > st->nfslots)
		cc_reindex(&st->fslots, &st->nfslots, st->nfslots * 2, st->nframes, st->frame_hash,
			   sizeof(*st->frame_hash), 0);
	else
		st->fslots[j] = (uint32_t)(st->nframes - 1);
	return (uint32_t)(st->nframes - 1);
}

static uint64_t cc_key_hash(const struct callchain_key *k)
{
	uint64_t h = cc_mix(0, (uintptr_t)k->comm);

	h = cc_mix(h, k->pid);
	h = cc_mix(h, k->tid);
	return cc_mix(h, k->cpu);
}

static bool cc_key_eq(const struct callchain_key *a, const struct callchain_key *b)
{
	return a->comm == b->comm && a->pid == b->pid && a->tid == b->tid && a->cpu == b->cpu;
}

int callchain_store_add(struct callchain_store *st, const struct callchain_key *key,
			const struct callchain_frame *frames, size_t n, uint64_t period)
{
	/* Frame ids of this chain: on the stack, as the chain is bounded by
	 * --max-stack (at most 65535 + 1 frames). */
	uint32_t idbuf[256], *ids = idbuf;
	struct cc_chain_rec *c;
	uint64_t h = cc_key_hash(key);
	size_t mask, i, j;
	int ret = 0;

	if (n > ARRAY_SIZE(idbuf))
		ids = xmalloc(n * sizeof(*ids));
	for (i = 0; i < n; i++) {
		ids[i] = cc_frame_id(st, &frames[i]);
		h = cc_mix(h, ids[i]);
	}
	h = cc_finish(cc_mix(h, n));
	mask = st->ncslots - 1;
	for (j = h & mask; st->cslots[j] != CC_SLOT_EMPTY; j = (j + 1) & mask) {
		c = &st->chains[st->cslots[j]];
		if (c->hash == h && c->nr == n && cc_key_eq(&c->key, key) &&
		    memcmp(st->ids + c->off, ids, n * sizeof(*ids)) == 0)
			goto account;
	}
	if (st->nids + n > st->max_ids || st->nchains >= CC_SLOT_EMPTY - 1) {
		st->dropped += n;
		ret = -ENOSPC;
		goto out;
	}
	if (st->nids + n > st->ids_cap)
		st->ids = xgrow(st->ids, &st->ids_cap, st->nids + n, sizeof(*st->ids));
	memcpy(st->ids + st->nids, ids, n * sizeof(*ids));
	if (st->nchains == st->chains_cap)
		st->chains = xgrow(st->chains, &st->chains_cap, st->nchains + 1, sizeof(*st->chains));
	c = &st->chains[st->nchains];
	c->key = *key;
	c->hash = h;
	c->period = 0;
	c->samples = 0;
	c->off = (uint32_t)st->nids;
	c->nr = (uint32_t)n;
	st->nids += n;
	st->nchains++;
	/* Load at most 5/8, as the hist. */
	if (st->nchains * 8 > st->ncslots * 5)
		cc_reindex(&st->cslots, &st->ncslots, st->ncslots * 2, st->nchains, st->chains,
			   sizeof(*st->chains), offsetof(struct cc_chain_rec, hash));
	else
		st->cslots[j] = (uint32_t)(st->nchains - 1);
account:
	c->period += period;
	c->samples++;
out:
	if (ids != idbuf)
		free(ids);
	return ret;
}

/* x * 7 / 8 without overflow, as hist_age. */
static uint64_t cc_decay(uint64_t x)
{
	return (x / 8) * 7 + (x % 8) * 7 / 8;
}

void callchain_store_decay(struct callchain_store *st)
{
	size_t i, n = 0, nids = 0, slots;

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
	for (slots = CC_MIN_SLOTS; n * 8 > slots * 5; slots *= 2)
		;
	/* Keep the index size unless it became far too big. */
	if (slots < st->ncslots / 4 || slots > st->ncslots)
		cc_reindex(&st->cslots, &st->ncslots, slots, n, st->chains, sizeof(*st->chains),
			   offsetof(struct cc_chain_rec, hash));
	else
		cc_reindex(&st->cslots, &st->ncslots, st->ncslots, n, st->chains,
			   sizeof(*st->chains), offsetof(struct cc_chain_rec, hash));
}

void callchain_store_clear(struct callchain_store *st)
{
	st->nchains = 0;
	st->nids = 0;
	cc_reindex(&st->cslots, &st->ncslots, CC_MIN_SLOTS, 0, st->chains, sizeof(*st->chains),
		   offsetof(struct cc_chain_rec, hash));
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

const struct callchain_frame *callchain_store_frame(const struct callchain_store *st, uint32_t id)
{
	return id < st->nframes ? &st->frames[id] : NULL;
}

uint64_t callchain_store_dropped(const struct callchain_store *st)
{
	return st->dropped;
}

size_t callchain_store_nr_ids(const struct callchain_store *st)
{
	return st->nids;
}
