/* Id tables: threads by tid and processes by pid (see idtab.h). */
#include "config.h"

#include "idtab.h"

#include <stdbool.h>
#include <stdlib.h>

#include "util.h"

static inline uint32_t idtab_key(const void *p)
{
	return *(const uint32_t *)p;
}

static inline size_t idtab_slot(uint32_t id, size_t cap)
{
	/* An odd multiplier is a bijection mod 2^k: sequential ids spread. */
	return ((size_t)id * 2654435761u) & (cap - 1);
}

void *idtab_find(const struct idtab *t, uint32_t id)
{
	size_t i;

	if (!t->cap)
		return NULL;
	for (i = idtab_slot(id, t->cap); t->slots[i]; i = (i + 1) & (t->cap - 1))
		if (idtab_key(t->slots[i]) == id)
			return t->slots[i];
	return NULL;
}

static void idtab_place(void **slots, size_t cap, void *p)
{
	size_t i = idtab_slot(idtab_key(p), cap);

	while (slots[i])
		i = (i + 1) & (cap - 1);
	slots[i] = p;
}

/* p's id must not be in the table. */
void idtab_insert(struct idtab *t, void *p)
{
	if ((t->count + 1) * 2 > t->cap) {
		size_t ncap = t->cap ? t->cap * 2 : 64, i;
		void **ns = xcalloc(ncap, sizeof(*ns));

		for (i = 0; i < t->cap; i++)
			if (t->slots[i])
				idtab_place(ns, ncap, t->slots[i]);
		free(t->slots);
		t->slots = ns;
		t->cap = ncap;
	}
	idtab_place(t->slots, t->cap, p);
	t->count++;
}

/* Remove exactly the object p (not just any object with its id). */
void idtab_remove(struct idtab *t, const void *p)
{
	size_t mask = t->cap - 1, i, j;

	if (!t->cap)
		return;
	for (i = idtab_slot(idtab_key(p), t->cap); t->slots[i] != p; i = (i + 1) & mask)
		if (!t->slots[i])
			return;
	t->slots[i] = NULL;
	t->count--;
	/* Pull back later members of the probe run that would become unreachable. */
	for (j = (i + 1) & mask; t->slots[j]; j = (j + 1) & mask) {
		size_t k = idtab_slot(idtab_key(t->slots[j]), t->cap);
		bool stays = i <= j ? (i < k && k <= j) : (i < k || k <= j);

		if (!stays) {
			t->slots[i] = t->slots[j];
			t->slots[j] = NULL;
			i = j;
		}
	}
}
