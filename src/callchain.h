/* Callchains: the addresses of a sample's chain (PERF_CONTEXT_* markers,
 * return addresses), and a store of resolved chains interned with their
 * counts, from which call trees and folded stacks are built at refresh. */
#ifndef PROFTOP_CALLCHAIN_H
#define PROFTOP_CALLCHAIN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "record.h"

struct dso;
struct symbol;

/* One address of a chain to look up, innermost first. */
struct callchain_ip {
	uint64_t ip;        /* the address to resolve: a return address already minus 1 */
	uint16_t cpumode;   /* PERF_RECORD_MISC_KERNEL, _USER, _GUEST_*, _HYPERVISOR */
};

/* The addresses of sample s, innermost first, at most max of them (max >= 1):
 * out[0] is the sampled ip (with the sample's cpumode); then the chain's
 * entries, where a PERF_CONTEXT_* marker sets the cpumode of the entries
 * after it.  The first address of each context block is where that context
 * was interrupted (exact); the others are return addresses, looked up at
 * ip - 1 so that a call ending a function is attributed to it.  The chain's
 * first address is skipped when it is the sampled ip itself, and so are
 * the zero return addresses that end it (callchain_zero_ends).  Returns
 * the number of addresses written. */
size_t callchain_ips(const struct sample *s, struct callchain_ip *out, size_t max);

/* How many return addresses of 0 end s's chain.  No call returns to 0
 * (page 0 is never code): the kernel's frame-pointer walk read them past
 * the outermost frame (a thread's or _start's, or through code that uses
 * the frame register for data), where perf report shows a row
 * "[unknown] 0000000000000000" with Children and no Self.  callchain_ips
 * leaves them out; the engine counts them. */
size_t callchain_zero_ends(const struct sample *s);

/* A resolved frame: what a hist entry is keyed by (dso and symbol). */
struct callchain_frame {
	struct dso *dso;            /* NULL: no map */
	const struct symbol *sym;   /* NULL: [unknown] */
	bool kernel;
	uint64_t addr;              /* 0, or (--inline, -s srcline) the address in
				       dso's symbol space: then part of the frame's
				       identity */
};

/* The keys of a chain besides its frames: the sample's comm (always, for
 * folded stacks), and pid/tid/cpu when they are sort keys (0 otherwise). */
struct callchain_key {
	const char *comm;           /* interned, or NULL */
	uint32_t pid, tid, cpu;
};

/* A chain as stored: frame ids (see callchain_store_frame), innermost
 * first (ids[0] is the sampled function), and its decayed counts. */
struct callchain_chain {
	struct callchain_key key;
	const uint32_t *ids;        /* valid until the next add/decay/clear */
	size_t nr;
	uint64_t period;
	uint64_t samples;
};

/* Unique chains with counts, in one open-addressing hash over a pool of
 * frame ids; frames are interned too.  Adding a chain seen before costs
 * hashing and one compare, and never allocates; a new chain appends to
 * the pool (amortised growth).  The pool is bounded: a chain that does not
 * fit is not stored and its frames are counted as dropped. */
struct callchain_store;

/* max_ids: bound on stored frame ids over all chains (0: the default, 1M). */
struct callchain_store *callchain_store_new(size_t max_ids);
void callchain_store_free(struct callchain_store *st);

/* Count one sample of period on the chain frames[0..n) (innermost first).
 * Returns 0, or -ENOSPC when the store is full (the chain is dropped). */
int callchain_store_add(struct callchain_store *st, const struct callchain_key *key,
			const struct callchain_frame *frames, size_t n, uint64_t period);
/* The same for the chain *leaf, callers[0..ncallers), so that a caller can
 * pass frames it holds elsewhere (the resolve cache's) without copying
 * them behind the leaf.  token, when not 0, promises that callers with the
 * same token are the same frames (callchain_cache_find's): a chain seen
 * with it before is then found without hashing and comparing the callers.
 * On success *index is the chain's index for callchain_store_get, stable
 * until the next decay or clear: the hist keys per-chain state by it. */
int callchain_store_add_split(struct callchain_store *st, const struct callchain_key *key,
			      const struct callchain_frame *leaf,
			      const struct callchain_frame *callers, size_t ncallers,
			      uint64_t token, uint64_t period, size_t *index);
/* The same for samples samples at once, of period in all (--off-cpu's
 * intervals of one chain, merged): counted as that many adds would. */
int callchain_store_add_split_n(struct callchain_store *st, const struct callchain_key *key,
				const struct callchain_frame *leaf,
				const struct callchain_frame *callers, size_t ncallers,
				uint64_t token, uint64_t period, uint64_t samples, size_t *index);

/* x 7/8 on every count, dropping chains that reach period 0 (as hist_age
 * does with entries), and compacting the pool. */
void callchain_store_decay(struct callchain_store *st);
/* Forget every chain (-z). */
void callchain_store_clear(struct callchain_store *st);

size_t callchain_store_count(const struct callchain_store *st);
/* The i-th chain (i < count), in no particular order. */
void callchain_store_get(const struct callchain_store *st, size_t i, struct callchain_chain *out);
/* The i-th chain's serial number: the same from the add that made the
 * chain to the decay or clear that drops it, and increasing with i (decay
 * keeps the chains' order, new chains come last with greater numbers), so
 * that per-chain state survives decay's compaction (the view's kept
 * stacks).  Never reused by another chain of the store. */
uint64_t callchain_store_serial(const struct callchain_store *st, size_t i);
const struct callchain_frame *callchain_store_frame(const struct callchain_store *st, uint32_t id);
/* Every frame, by id (callchain_store_frame's, unchecked: for loops over
 * the ids of chains), valid until the next add. */
const struct callchain_frame *callchain_store_frames(const struct callchain_store *st);
/* The id of frame id's function: the same frame without its address
 * (itself when it has none), for what counts functions, not addresses. */
uint32_t callchain_store_function(const struct callchain_store *st, uint32_t id);
/* Frame ids not stored since the start, because the store was full. */
uint64_t callchain_store_dropped(const struct callchain_store *st);
/* A cache the view keeps from one refresh to the next (view-stacks.c's
 * stack groups): what it holds is keyed by frame and function ids, which
 * live as long as the store (decay and clear drop chains, never frames).
 * The store only holds it, and frees it with release when it is replaced
 * or the store freed.  Set through a const store: the view sees it so. */
void *callchain_store_view_cache(const struct callchain_store *st);
void callchain_store_set_view_cache(const struct callchain_store *st, void *cache,
				    void (*release)(void *));

#endif
