/* Id tables: threads by tid and processes by pid (see idtab.h). */
#include "config.h"

#include "idtab.h"

#include <stdbool.h>
#include <stdlib.h>

#include "util.h"

static uint64_t idtab_hash(const void *ctx, uint32_t idx)
{
	const struct idtab *t = ctx;

	return idtab_hash_id(idtab_key(t->objs[idx]));
}

static bool idtab_eq_obj(const void *ctx, uint32_t idx, const void *key)
{
	const struct idtab *t = ctx;

	return t->objs[idx] == key;
}

static bool idtab_eq_idx(const void *ctx, uint32_t idx, const void *key)
{
	return idx == *(const uint32_t *)key;
}

void idtab_insert(struct idtab *t, void *p)
{
	if (!t->index.slots)
		hashtab_init(&t->index, 64);
	t->objs = xgrow(t->objs, &t->cap, t->n + 1, sizeof(*t->objs));
	t->objs[t->n] = p;
	hashtab_add(&t->index, idtab_hash_id(idtab_key(p)), (uint32_t)t->n, idtab_hash, t);
	t->n++;
}

void idtab_remove(struct idtab *t, const void *p)
{
	uint32_t idx, last;
	size_t slot;

	if (!t->n)
		return;
	slot = hashtab_probe(&t->index, idtab_hash_id(idtab_key(p)), idtab_eq_obj, t, p);
	idx = t->index.slots[slot];
	if (idx == HASHTAB_EMPTY)
		return;
	hashtab_remove(&t->index, slot, idtab_hash, t);
	last = (uint32_t)--t->n;
	if (idx != last) {
		/* The last object fills the hole; its slot names it anew. */
		slot = hashtab_probe(&t->index, idtab_hash_id(idtab_key(t->objs[last])), idtab_eq_idx,
				     t, &last);
		t->objs[idx] = t->objs[last];
		hashtab_set(&t->index, slot, idx);
	}
}

void idtab_release(struct idtab *t)
{
	free(t->objs);
	hashtab_release(&t->index);
	t->objs = NULL;
	t->n = t->cap = 0;
}
