/* The hash table: an open-addressing index (linear probing, a power-of-two
 * number of slots, at most half full) of uint32_t entry numbers, over
 * entries the caller keeps in its own dense array.  The caller hashes its
 * keys and says, through callbacks, what an entry's hash is and whether it
 * matches a key; the probe and the inline helpers below are compiled into
 * each caller, where the callbacks become direct calls, so a lookup costs
 * what a hand-written loop did.  Iteration is the caller's dense array, so
 * no output ever depends on the hash order. */
#ifndef PROFTOP_HASHTAB_H
#define PROFTOP_HASHTAB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define HASHTAB_EMPTY UINT32_MAX
/* Entry numbers are below this (HASHTAB_EMPTY marks a free slot). */
#define HASHTAB_MAX_ENTRIES (UINT32_MAX - 1)
#define HASHTAB_MIN_SLOTS 16

struct hashtab {
	uint32_t *slots;        /* entry number, or HASHTAB_EMPTY */
	size_t mask;            /* number of slots - 1 */
	size_t count;           /* entry numbers stored */
};

/* The hash of entry idx (the same value the caller probed with): for
 * growing, rebuilding and removal.  ctx is the caller's table. */
typedef uint64_t hashtab_hash_fn(const void *ctx, uint32_t idx);
/* Whether entry idx has key. */
typedef bool hashtab_eq_fn(const void *ctx, uint32_t idx, const void *key);

/* An empty table with at least min_slots slots (rounded up to a power of
 * two, HASHTAB_MIN_SLOTS at least). */
void hashtab_init(struct hashtab *t, size_t min_slots);
void hashtab_release(struct hashtab *t);

/* Doubles the slots and places every entry again: hashtab_insert_at's slow
 * path. */
void hashtab_grow(struct hashtab *t, hashtab_hash_fn *hash, const void *ctx);

/* The slot for key (hash): the one holding an entry eq matches, else the
 * empty slot where it would go (hashtab_insert_at). */
static inline size_t hashtab_probe(const struct hashtab *t, uint64_t hash, hashtab_eq_fn *eq,
				   const void *ctx, const void *key)
{
	size_t j;

	for (j = (size_t)hash & t->mask; t->slots[j] != HASHTAB_EMPTY; j = (j + 1) & t->mask)
		if (eq(ctx, t->slots[j], key))
			break;
	return j;
}

/* The entry matching key, or HASHTAB_EMPTY. */
static inline uint32_t hashtab_find(const struct hashtab *t, uint64_t hash, hashtab_eq_fn *eq,
				    const void *ctx, const void *key)
{
	return t->slots[hashtab_probe(t, hash, eq, ctx, key)];
}

/* Store entry idx (< HASHTAB_MAX_ENTRIES) in slot, an empty slot from
 * hashtab_probe with no insertion since; the slots grow past half full,
 * which is when hash is called (for every entry, idx included). */
static inline void hashtab_insert_at(struct hashtab *t, size_t slot, uint32_t idx,
				     hashtab_hash_fn *hash, const void *ctx)
{
	t->slots[slot] = idx;
	if (++t->count * 2 > t->mask + 1)
		hashtab_grow(t, hash, ctx);
}

/* Index entry idx under hash without looking for an equal one (the caller
 * knows there is none, or keeps duplicates apart itself). */
static inline void hashtab_add(struct hashtab *t, uint64_t hash, uint32_t idx,
			       hashtab_hash_fn *hashfn, const void *ctx)
{
	size_t j;

	for (j = (size_t)hash & t->mask; t->slots[j] != HASHTAB_EMPTY; j = (j + 1) & t->mask)
		;
	hashtab_insert_at(t, j, idx, hashfn, ctx);
}

/* A table that keeps several entries under one key (hashtab_add) walks
 * the probe run of the key's hash and tests each entry itself:
 *	for (pos = hashtab_run(t, hash); (idx = hashtab_run_next(t, &pos)) != HASHTAB_EMPTY;)
 * Every entry of that hash is in the run (others may be too). */
static inline size_t hashtab_run(const struct hashtab *t, uint64_t hash)
{
	return (size_t)hash & t->mask;
}

static inline uint32_t hashtab_run_next(const struct hashtab *t, size_t *pos)
{
	uint32_t idx = t->slots[*pos];

	if (idx != HASHTAB_EMPTY)
		*pos = (*pos + 1) & t->mask;
	return idx;
}

/* Make slot (from hashtab_probe, holding an entry) hold entry idx instead,
 * of the same hash: after the caller moved an entry within its array. */
static inline void hashtab_set(struct hashtab *t, size_t slot, uint32_t idx)
{
	t->slots[slot] = idx;
}

/* Index entries 0..n-1 anew (after the caller compacted or renumbered its
 * array): the slots grow to fit, and shrink when a quarter would do. */
void hashtab_rebuild(struct hashtab *t, size_t n, hashtab_hash_fn *hash, const void *ctx);

/* Forget every entry, keeping the number of slots (a table refilled to
 * about the same size each time); hashtab_rebuild with n = 0 shrinks. */
void hashtab_clear(struct hashtab *t);

/* Remove what slot holds (from hashtab_probe), moving later entries of its
 * probe run back so that no lookup misses them (no tombstones). */
void hashtab_remove(struct hashtab *t, size_t slot, hashtab_hash_fn *hash, const void *ctx);

#endif
