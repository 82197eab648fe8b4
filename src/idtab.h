/* Id tables: threads by tid and processes by pid, each a struct whose
 * first member is its uint32_t id, indexed by lib/hashtab over a dense
 * array of pointers (removal moves the last one into the hole). */
#ifndef PROFTOP_IDTAB_H
#define PROFTOP_IDTAB_H

#include <stddef.h>
#include <stdint.h>

#include "hashtab.h"

struct idtab {
	void **objs;              /* dense, in no particular order */
	size_t n, cap;
	struct hashtab index;     /* over objs; slots NULL until the first insert */
};

/* The object with this id, or NULL. */
void *idtab_find(const struct idtab *t, uint32_t id);
/* p's id must not be in the table. */
void idtab_insert(struct idtab *t, void *p);
/* Remove exactly the object p (not just any object with its id). */
void idtab_remove(struct idtab *t, const void *p);
/* Free the table's own storage (not the objects). */
void idtab_release(struct idtab *t);

#endif
