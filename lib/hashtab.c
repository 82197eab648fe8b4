/* The slow paths of the hash table: growing, rebuilding, removal. */
#include "config.h"

#include "hashtab.h"

#include <stdlib.h>
#include <string.h>

#include "alloc.h"
#include "msg.h"

static void hashtab_alloc(struct hashtab *t, size_t nslots)
{
	if (nslots > SIZE_MAX / 2 / sizeof(*t->slots))
		fatal(1, "hash table: too many slots");
	t->slots = xmalloc(nslots * sizeof(*t->slots));
	memset(t->slots, 0xff, nslots * sizeof(*t->slots));
	t->mask = nslots - 1;
}

/* The number of slots that holds n entries at most half full. */
static size_t hashtab_slots_for(size_t n)
{
	size_t s = HASHTAB_MIN_SLOTS;

	while (n * 2 > s)
		s *= 2;
	return s;
}

void hashtab_init(struct hashtab *t, size_t min_slots)
{
	size_t s = HASHTAB_MIN_SLOTS;

	while (s < min_slots)
		s *= 2;
	t->count = 0;
	hashtab_alloc(t, s);
}

void hashtab_release(struct hashtab *t)
{
	free(t->slots);
	t->slots = NULL;
	t->mask = 0;
	t->count = 0;
}

/* Place the n entries of ent (entry numbers) in the empty slots. */
static void hashtab_place(struct hashtab *t, const uint32_t *ent, size_t n,
			  hashtab_hash_fn *hash, const void *ctx)
{
	size_t i, j;

	for (i = 0; i < n; i++) {
		for (j = (size_t)hash(ctx, ent[i]) & t->mask; t->slots[j] != HASHTAB_EMPTY;
		     j = (j + 1) & t->mask)
			;
		t->slots[j] = ent[i];
	}
}

void hashtab_grow(struct hashtab *t, hashtab_hash_fn *hash, const void *ctx)
{
	uint32_t *old = t->slots;
	size_t n = t->mask + 1, i, k = 0;

	/* The old slots become the list of entries to place. */
	for (i = 0; i < n; i++)
		if (old[i] != HASHTAB_EMPTY)
			old[k++] = old[i];
	hashtab_alloc(t, n * 2);
	hashtab_place(t, old, k, hash, ctx);
	free(old);
}

void hashtab_rebuild(struct hashtab *t, size_t n, hashtab_hash_fn *hash, const void *ctx)
{
	size_t want = hashtab_slots_for(n), i, j;

	if (want > t->mask + 1 || want < (t->mask + 1) / 4) {
		free(t->slots);
		hashtab_alloc(t, want);
	} else {
		memset(t->slots, 0xff, (t->mask + 1) * sizeof(*t->slots));
	}
	for (i = 0; i < n; i++) {
		for (j = (size_t)hash(ctx, (uint32_t)i) & t->mask; t->slots[j] != HASHTAB_EMPTY;
		     j = (j + 1) & t->mask)
			;
		t->slots[j] = (uint32_t)i;
	}
	t->count = n;
}

void hashtab_clear(struct hashtab *t)
{
	memset(t->slots, 0xff, (t->mask + 1) * sizeof(*t->slots));
	t->count = 0;
}

void hashtab_remove(struct hashtab *t, size_t slot, hashtab_hash_fn *hash, const void *ctx)
{
	size_t i = slot, j;

	if (t->slots[slot] == HASHTAB_EMPTY)
		return;
	t->slots[i] = HASHTAB_EMPTY;
	t->count--;
	/* Backward shift: an entry after the hole moves into it unless its
	 * home slot lies cyclically in (i, j], where it is still found. */
	for (j = (i + 1) & t->mask; t->slots[j] != HASHTAB_EMPTY; j = (j + 1) & t->mask) {
		size_t home = (size_t)hash(ctx, t->slots[j]) & t->mask;

		if (((j - home) & t->mask) >= ((j - i) & t->mask)) {
			t->slots[i] = t->slots[j];
			t->slots[j] = HASHTAB_EMPTY;
			i = j;
		}
	}
}
