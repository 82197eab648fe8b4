/* The engine's cache of resolved callchains (callchain-cache.c). */
#ifndef PROFTOP_CALLCHAIN_CACHE_H
#define PROFTOP_CALLCHAIN_CACHE_H

#include "callchain.h"

/* A cache of resolved addresses for the engine, so that a chain seen before
 * costs one hash instead of one map and symbol lookup per frame.  Entries
 * are keyed by pid and checked against a per-pid generation that the engine
 * bumps when the process's maps change (MMAP, exec, fork, exit).  A chain
 * is identified by two independent 64-bit hashes of its addresses (with
 * pid and length) rather than by the addresses themselves: half the
 * memory, at a collision chance far below any other error in a profile. */
struct callchain_cache;

struct callchain_cache_key {
	uint64_t h1, h2;
	uint32_t pid, gen;
	size_t nr;
};

struct callchain_cache_stats {
	uint64_t ip_hits, ip_misses, chain_hits, chain_misses, clears;
};

/* max_frames: bound on the frames held (0: 512K); past it, the cache starts
 * over. */
struct callchain_cache *callchain_cache_new(size_t max_frames);
void callchain_cache_free(struct callchain_cache *c);
void callchain_cache_clear(struct callchain_cache *c);
/* pid's maps changed: its entries no longer count. */
void callchain_cache_invalidate(struct callchain_cache *c, uint32_t pid);

/* One address (the sampled ip): a small direct-mapped table. */
bool callchain_cache_find_ip(struct callchain_cache *c, uint32_t pid, uint64_t ip,
			     uint16_t cpumode, struct callchain_frame *out, uint64_t *addr);
void callchain_cache_insert_ip(struct callchain_cache *c, uint32_t pid, uint64_t ip,
			       uint16_t cpumode, const struct callchain_frame *f, uint64_t addr);

/* A chain's addresses ips[0..n): the key, then its n frames if known (valid
 * until the next insert or clear), or NULL; insert stores n frames.  On a
 * hit *token (when token is not NULL) is a non-zero value naming those
 * frames: the same token, the same frames, until the cache is freed (see
 * callchain_store_add_split). */
void callchain_cache_key(const struct callchain_cache *c, uint32_t pid,
			 const struct callchain_ip *ips, size_t n, struct callchain_cache_key *k);
const struct callchain_frame *callchain_cache_find(struct callchain_cache *c,
						   const struct callchain_cache_key *k, uint64_t *token);
void callchain_cache_insert(struct callchain_cache *c, const struct callchain_cache_key *k,
			    const struct callchain_frame *frames);
/* The same keyed by the sample itself: its raw chain words (the sampled
 * ip's copy left out, as callchain_ips does), pid and cpumode, compared
 * word for word, so a chain seen before costs no callchain_ips, no full
 * hash and no lookups.  A hit gives the callers and *n, what callchain_ips
 * would return (for the same max every time: the engine's max_stack).
 * insert stores the ncallers frames resolved for s on a miss. */
const struct callchain_frame *callchain_cache_find_sample(struct callchain_cache *c,
							  const struct sample *s, size_t *n,
							  uint64_t *token);
void callchain_cache_insert_sample(struct callchain_cache *c, const struct sample *s,
				   const struct callchain_frame *callers, size_t ncallers);
const struct callchain_cache_stats *callchain_cache_get_stats(const struct callchain_cache *c);

#endif
