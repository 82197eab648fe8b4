/* The resolve cache: a sample's chain, seen before in its process (same
 * maps generation), found resolved by one hash instead of one map and
 * symbol lookup per frame.  Split from callchain.c, whose store it
 * feeds. */
#include "config.h"

#include "callchain-cache.h"

#include <stdlib.h>
#include <string.h>

#include "hash.h"
#include "hashtab.h"
#include "record.h"
#include "util.h"

/* ---- the resolve cache ---- */

#define CCC_PIDGEN_SLOTS 4096
#define CCC_IP_SLOTS 8192
#define CCC_MIN_SLOTS 1024

struct ccc_ip {
	uint64_t ip;
	uint32_t pid, gen;      /* gen 0: empty */
	uint16_t cpumode;
	struct callchain_frame f;
	uint64_t addr;          /* as struct resolved's */
};

struct ccc_chain {
	uint64_t h1, h2;        /* two independent hashes of the addresses */
	uint32_t pid, gen;
	uint32_t off, nr;       /* frames[off..off + nr) */
	/* Sample-keyed (callchain_cache_find_sample): the raw chain words
	 * words[woff..woff + nw), the sampled ip's copy left out; else nw is
	 * CCC_NO_WORDS and the two hashes are the key. */
	uint32_t woff, nw;
	uint16_t mode;          /* the sample's cpumode, | CCC_SKIPPED */
};

#define CCC_NO_WORDS UINT32_MAX
#define CCC_SKIPPED 0x100

struct callchain_cache {
	/* A generation per pid slot: pids that share a slot invalidate each
	 * other, which costs misses, never a stale answer. */
	uint32_t pidgen[CCC_PIDGEN_SLOTS];
	struct ccc_ip ips[CCC_IP_SLOTS];
	struct ccc_chain *chains;
	size_t nchains, chains_cap;
	struct hashtab index;   /* over chains, by h1 */
	struct callchain_frame *frames;
	size_t nframes, frames_cap, max_frames;
	uint64_t *words;        /* sample-keyed chains' raw words */
	size_t nwords, words_cap;
	struct callchain_cache_stats stats;
};

static size_t ccc_pid_slot(uint32_t pid)
{
	return ((size_t)pid * 2654435761u >> 8) & (CCC_PIDGEN_SLOTS - 1);
}

static uint32_t ccc_gen(const struct callchain_cache *c, uint32_t pid)
{
	return c->pidgen[ccc_pid_slot(pid)];
}

struct callchain_cache *callchain_cache_new(size_t max_frames)
{
	struct callchain_cache *c = xcalloc(1, sizeof(*c));
	size_t i;

	for (i = 0; i < CCC_PIDGEN_SLOTS; i++)
		c->pidgen[i] = 1;
	c->max_frames = max_frames ? max_frames : 1u << 19;
	hashtab_init(&c->index, CCC_MIN_SLOTS);
	return c;
}

void callchain_cache_free(struct callchain_cache *c)
{
	if (!c)
		return;
	free(c->chains);
	hashtab_release(&c->index);
	free(c->frames);
	free(c->words);
	free(c);
}

void callchain_cache_clear(struct callchain_cache *c)
{
	c->nchains = 0;
	c->nframes = 0;
	c->nwords = 0;
	hashtab_clear(&c->index);
	c->stats.clears++;
}

void callchain_cache_invalidate(struct callchain_cache *c, uint32_t pid)
{
	uint32_t *g = &c->pidgen[ccc_pid_slot(pid)];

	/* 0 marks an empty ip slot: skip it on wrap-around. */
	if (++*g == 0)
		*g = 1;
}

static size_t ccc_ip_slot(uint32_t pid, uint64_t ip)
{
	return (size_t)(hash_finish(ip ^ ((uint64_t)pid << 40))) & (CCC_IP_SLOTS - 1);
}

bool callchain_cache_find_ip(struct callchain_cache *c, uint32_t pid, uint64_t ip,
			     uint16_t cpumode, struct callchain_frame *out, uint64_t *addr)
{
	const struct ccc_ip *e = &c->ips[ccc_ip_slot(pid, ip)];

	if (e->ip == ip && e->pid == pid && e->cpumode == cpumode && e->gen == ccc_gen(c, pid)) {
		*out = e->f;
		*addr = e->addr;
		c->stats.ip_hits++;
		return true;
	}
	c->stats.ip_misses++;
	return false;
}

void callchain_cache_insert_ip(struct callchain_cache *c, uint32_t pid, uint64_t ip,
			       uint16_t cpumode, const struct callchain_frame *f, uint64_t addr)
{
	struct ccc_ip *e = &c->ips[ccc_ip_slot(pid, ip)];

	e->ip = ip;
	e->pid = pid;
	e->cpumode = cpumode;
	e->gen = ccc_gen(c, pid);
	e->f = *f;
	e->addr = addr;
}

void callchain_cache_key(const struct callchain_cache *c, uint32_t pid,
			 const struct callchain_ip *ips, size_t n, struct callchain_cache_key *k)
{
	uint64_t h1 = 0x243f6a8885a308d3ULL ^ pid, h2 = 0x13198a2e03707344ULL + n;
	size_t i;

	/* Two unrelated mixes: a hit needs both 64-bit hashes, the pid, the
	 * length and the generation to match, so no addresses are kept. */
	for (i = 0; i < n; i++) {
		uint64_t v = ips[i].ip ^ ((uint64_t)ips[i].cpumode << 56);

		h1 = (h1 ^ v) * 0x9e3779b97f4a7c15ULL;
		h1 ^= h1 >> 29;
		h2 = (h2 + v) * 0xff51afd7ed558ccdULL;
		h2 = (h2 << 23) | (h2 >> 41);
	}
	k->h1 = hash_finish(h1 ^ n);
	k->h2 = hash_finish(h2);
	k->pid = pid;
	k->gen = ccc_gen(c, pid);
	k->nr = n;
}

static uint64_t ccc_hash_of(const void *ctx, uint32_t idx)
{
	return ((const struct callchain_cache *)ctx)->chains[idx].h1;
}

static bool ccc_key_eq(const void *ctx, uint32_t idx, const void *key)
{
	const struct ccc_chain *e = &((const struct callchain_cache *)ctx)->chains[idx];
	const struct callchain_cache_key *k = key;

	return e->h1 == k->h1 && e->h2 == k->h2 && e->pid == k->pid && e->nr == k->nr &&
	       e->gen == k->gen && e->nw == CCC_NO_WORDS;
}

/* A hit: count it and give the caller its token.  A chain's frames never
 * change until a clear, and each clear starts a new (clears, index)
 * space. */
static const struct ccc_chain *ccc_hit(struct callchain_cache *c, uint32_t idx, uint64_t *token)
{
	c->stats.chain_hits++;
	if (token)
		*token = (c->stats.clears + 1) << 32 | (uint64_t)(idx + 1);
	return &c->chains[idx];
}

const struct callchain_frame *callchain_cache_find(struct callchain_cache *c,
						   const struct callchain_cache_key *k, uint64_t *token)
{
	uint32_t idx = hashtab_find(&c->index, k->h1, ccc_key_eq, c, k);

	if (idx != HASHTAB_EMPTY)
		return c->frames + ccc_hit(c, idx, token)->off;
	c->stats.chain_misses++;
	return NULL;
}

/* Index the chain just appended (hash h): a stale entry (old generation)
 * keeps its slot until the next clear. */
static void ccc_place(struct callchain_cache *c, uint64_t h)
{
	hashtab_add(&c->index, h, (uint32_t)(c->nchains - 1), ccc_hash_of, c);
}

void callchain_cache_insert(struct callchain_cache *c, const struct callchain_cache_key *k,
			    const struct callchain_frame *frames)
{
	struct ccc_chain *e;

	if (k->nr > c->max_frames)
		return;
	/* Full: start over rather than evict; the live engine clears at
	 * every refresh anyway, so this only bounds a replay. */
	if (c->nframes + k->nr > c->max_frames || c->nchains >= HASHTAB_MAX_ENTRIES)
		callchain_cache_clear(c);
	if (c->nframes + k->nr > c->frames_cap)
		c->frames = xgrow(c->frames, &c->frames_cap, c->nframes + k->nr, sizeof(*c->frames));
	if (c->nchains == c->chains_cap)
		c->chains = xgrow(c->chains, &c->chains_cap, c->nchains + 1, sizeof(*c->chains));
	e = &c->chains[c->nchains];
	e->h1 = k->h1;
	e->h2 = k->h2;
	e->pid = k->pid;
	e->gen = k->gen;
	e->off = (uint32_t)c->nframes;
	e->nr = (uint32_t)k->nr;
	e->woff = 0;
	e->nw = CCC_NO_WORDS;
	e->mode = 0;
	memcpy(c->frames + c->nframes, frames, k->nr * sizeof(*frames));
	c->nframes += k->nr;
	c->nchains++;
	ccc_place(c, k->h1);
}

/* ---- chains keyed by the sample's raw words ---- */

/* Where the chain's first address is (after the leading markers), and
 * whether it is the sampled ip (callchain_ips leaves it out then). */
static size_t ccc_first_addr(const struct sample *s, bool *skipped)
{
	size_t i;

	for (i = 0; i < s->nr_callchain && record_is_context(s->callchain[i]); i++)
		;
	*skipped = i < s->nr_callchain && s->callchain[i] == s->ip;
	return i;
}

/* A few words are enough to spread the chains over the slots: a hit is
 * confirmed by comparing all of them. */
static uint64_t ccc_sample_hash(uint32_t pid, uint16_t mode, const uint64_t *w, size_t first,
				size_t nr, bool skipped)
{
	size_t rest = first + skipped;
	uint64_t h = hash_combine(hash_combine((uint64_t)pid << 32 | mode, nr), first);

	if (rest < nr)
		h = hash_combine(h, w[rest]);
	if (rest + 1 < nr)
		h = hash_combine(h, w[rest + 1]);
	if (nr > rest + 2)
		h = hash_combine(hash_combine(h, w[nr - 1]), w[(rest + nr) / 2]);
	return hash_finish(h);
}

/* The stored words of e against s's, the skipped ip's copy left out. */
static bool ccc_words_eq(const struct callchain_cache *c, const struct ccc_chain *e,
			 const struct sample *s, size_t first, bool skipped)
{
	const uint64_t *a = c->words + e->woff, *w = s->callchain;
	size_t rest = first + skipped;

	if (memcmp(a, w, first * sizeof(*w)) != 0)
		return false;
	return memcmp(a + first, w + rest, (s->nr_callchain - rest) * sizeof(*w)) == 0;
}

struct ccc_sample_key {
	const struct sample *s;
	uint64_t h;
	size_t first, nw;
	uint32_t gen;
	uint16_t mode;
	bool skipped;
};

static bool ccc_sample_eq(const void *ctx, uint32_t idx, const void *key)
{
	const struct callchain_cache *c = ctx;
	const struct ccc_chain *e = &c->chains[idx];
	const struct ccc_sample_key *k = key;

	return e->h1 == k->h && e->nw == k->nw && e->pid == k->s->sid.pid && e->mode == k->mode &&
	       e->gen == k->gen && ccc_words_eq(c, e, k->s, k->first, k->skipped);
}

const struct callchain_frame *callchain_cache_find_sample(struct callchain_cache *c,
							  const struct sample *s, size_t *n,
							  uint64_t *token)
{
	struct ccc_sample_key k = { .s = s };
	const struct ccc_chain *e;
	uint32_t idx;

	k.first = ccc_first_addr(s, &k.skipped);
	k.mode = (uint16_t)((s->cpumode & PERF_RECORD_MISC_CPUMODE_MASK) |
			    (k.skipped ? CCC_SKIPPED : 0));
	k.gen = ccc_gen(c, s->sid.pid);
	if (s->nr_callchain >= CCC_NO_WORDS)
		return NULL;
	k.nw = (size_t)s->nr_callchain - k.skipped;
	k.h = ccc_sample_hash(s->sid.pid, k.mode, s->callchain, k.first, (size_t)s->nr_callchain,
			      k.skipped);
	idx = hashtab_find(&c->index, k.h, ccc_sample_eq, c, &k);
	if (idx != HASHTAB_EMPTY) {
		e = ccc_hit(c, idx, token);
		*n = e->nr + 1;
		return c->frames + e->off;
	}
	c->stats.chain_misses++;
	return NULL;
}

void callchain_cache_insert_sample(struct callchain_cache *c, const struct sample *s,
				   const struct callchain_frame *callers, size_t ncallers)
{
	bool skipped;
	size_t first = ccc_first_addr(s, &skipped), nw;
	uint16_t mode = (uint16_t)((s->cpumode & PERF_RECORD_MISC_CPUMODE_MASK) |
				   (skipped ? CCC_SKIPPED : 0));
	struct ccc_chain *e;

	if (s->nr_callchain >= CCC_NO_WORDS || ncallers > c->max_frames ||
	    s->nr_callchain > 2 * c->max_frames)
		return;
	nw = (size_t)s->nr_callchain - skipped;
	if (c->nframes + ncallers > c->max_frames || c->nwords + nw > 2 * c->max_frames ||
	    c->nchains >= HASHTAB_MAX_ENTRIES)
		callchain_cache_clear(c);
	if (c->nframes + ncallers > c->frames_cap)
		c->frames = xgrow(c->frames, &c->frames_cap, c->nframes + ncallers,
				  sizeof(*c->frames));
	if (c->nwords + nw > c->words_cap)
		c->words = xgrow(c->words, &c->words_cap, c->nwords + nw, sizeof(*c->words));
	if (c->nchains == c->chains_cap)
		c->chains = xgrow(c->chains, &c->chains_cap, c->nchains + 1, sizeof(*c->chains));
	e = &c->chains[c->nchains];
	e->h1 = ccc_sample_hash(s->sid.pid, mode, s->callchain, first, (size_t)s->nr_callchain,
				skipped);
	e->h2 = 0;
	e->pid = s->sid.pid;
	e->gen = ccc_gen(c, s->sid.pid);
	e->off = (uint32_t)c->nframes;
	e->nr = (uint32_t)ncallers;
	e->woff = (uint32_t)c->nwords;
	e->nw = (uint32_t)nw;
	e->mode = mode;
	memcpy(c->words + c->nwords, s->callchain, first * sizeof(*c->words));
	memcpy(c->words + c->nwords + first, s->callchain + first + skipped,
	       (nw - first) * sizeof(*c->words));
	c->nwords += nw;
	memcpy(c->frames + c->nframes, callers, ncallers * sizeof(*callers));
	c->nframes += ncallers;
	c->nchains++;
	ccc_place(c, e->h1);
}

const struct callchain_cache_stats *callchain_cache_get_stats(const struct callchain_cache *c)
{
	return &c->stats;
}
