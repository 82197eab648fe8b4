/* Id tables: open addressing with linear probing over pointers to structs
 * whose first member is their uint32_t id (threads by tid, processes by
 * pid); deletion shifts back (no tombstones). */
#ifndef PROFTOP_IDTAB_H
#define PROFTOP_IDTAB_H

#include <stddef.h>
#include <stdint.h>

struct idtab {
	void **slots;
	size_t cap, count;        /* cap is a power of two (or 0) */
};

/* The object with this id, or NULL. */
void *idtab_find(const struct idtab *t, uint32_t id);
/* p's id must not be in the table. */
void idtab_insert(struct idtab *t, void *p);
/* Remove exactly the object p (not just any object with its id). */
void idtab_remove(struct idtab *t, const void *p);

#endif
