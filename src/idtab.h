/* Id tables: threads by tid and processes by pid, each a struct whose
 * first member is its uint32_t id, indexed by lib/hashtab over a dense
 * array of pointers (removal moves the last one into the hole). */
#ifndef PROFTOP_IDTAB_H
#define PROFTOP_IDTAB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "hashtab.h"

struct idtab {
	void **objs;              /* dense, in no particular order */
	size_t n, cap;
	struct hashtab index;     /* over objs; slots NULL until the first insert */
};

static inline uint32_t idtab_key(const void *p)
{
	return *(const uint32_t *)p;
}

/* An odd multiplier is a bijection mod 2^k: sequential ids spread over the
 * low bits the table uses, at a third of hash_finish's cost. */
static inline uint64_t idtab_hash_id(uint32_t id)
{
	return (uint64_t)id * 2654435761u;
}

static inline bool idtab_eq_id(const void *ctx, uint32_t idx, const void *key)
{
	const struct idtab *t = ctx;

	return idtab_key(t->objs[idx]) == *(const uint32_t *)key;
}

/* The object with this id, or NULL.  Inline: the thread lookup runs for
 * every sample and every frame (a call cost as much as the probe). */
static inline void *idtab_find(const struct idtab *t, uint32_t id)
{
	uint32_t idx;

	if (!t->n)
		return NULL;
	idx = hashtab_find(&t->index, idtab_hash_id(id), idtab_eq_id, t, &id);
	return idx == HASHTAB_EMPTY ? NULL : t->objs[idx];
}
/* p's id must not be in the table. */
void idtab_insert(struct idtab *t, void *p);
/* Remove exactly the object p (not just any object with its id). */
void idtab_remove(struct idtab *t, const void *p);
/* Free the table's own storage (not the objects). */
void idtab_release(struct idtab *t);

#endif
