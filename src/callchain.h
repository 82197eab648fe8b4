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
 * first address is skipped when it is the sampled ip itself.  Returns the
 * number of addresses written. */
size_t callchain_ips(const struct sample *s, struct callchain_ip *out, size_t max);

/* A resolved frame: what a hist entry is keyed by (dso and symbol). */
struct callchain_frame {
	struct dso *dso;            /* NULL: no map */
	const struct symbol *sym;   /* NULL: [unknown] */
	bool kernel;
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

/* x 7/8 on every count, dropping chains that reach period 0 (as hist_age
 * does with entries), and compacting the pool. */
void callchain_store_decay(struct callchain_store *st);
/* Forget every chain (-z). */
void callchain_store_clear(struct callchain_store *st);

size_t callchain_store_count(const struct callchain_store *st);
/* The i-th chain (i < count), in no particular order. */
void callchain_store_get(const struct callchain_store *st, size_t i, struct callchain_chain *out);
const struct callchain_frame *callchain_store_frame(const struct callchain_store *st, uint32_t id);
/* Frame ids not stored since the start, because the store was full. */
uint64_t callchain_store_dropped(const struct callchain_store *st);
/* Frame ids held now (for tests and the memory bound). */
size_t callchain_store_nr_ids(const struct callchain_store *st);

#endif
