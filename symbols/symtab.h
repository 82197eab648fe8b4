/* A symbol table: function symbols of one DSO (or of the kernel), sorted by
 * address for binary search.  Built by the ELF loader or the kallsyms parser. */
#ifndef PROFTOP_SYMTAB_H
#define PROFTOP_SYMTAB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct symbol {
	uint64_t start;   /* in the table's address space (ELF vaddr, or kernel address) */
	uint64_t end;     /* exclusive */
	const char *name; /* owned by the table */
};

/* How good a name is when several symbols share a start address: the
 * first that differs decides, as in perf: sized over zero-sized, not weak
 * over weak, global over local, fewer leading underscores, then the longer
 * name. */
enum symtab_bind {
	SYMTAB_LOCAL = 0,
	SYMTAB_WEAK = 1,
	SYMTAB_GLOBAL = 2,
};

struct symtab;

struct symtab *symtab_new(void);
void symtab_free(struct symtab *st);

/* Make room for nsyms more symbols with name_bytes of names (NULs
 * included): a hint that saves the copies of a growing table. */
void symtab_reserve(struct symtab *st, size_t nsyms, size_t name_bytes);

/* Add a symbol.  The name is copied.  A size of 0 means unknown: the symbol
 * then ends at the next symbol's start, but never beyond max_end (pass the
 * end of its section, or UINT64_MAX). */
void symtab_add(struct symtab *st, uint64_t start, uint64_t size,
		enum symtab_bind bind, const char *name, uint64_t max_end);

/* Sort, collapse aliases to one name, give sizeless symbols their end.
 * Must be called once after the last symtab_add and before any lookup. */
void symtab_finish(struct symtab *st);

/* Among symbols of one start, the last one added wins (a named one over
 * an end marker ""), instead of the binding and name rules: kallsyms, as
 * perf report names it.  perf sizes each sizeless kallsyms symbol up to
 * the next one's start, so only the last of a run of aliases gets a size,
 * and it prefers a sized symbol: memcpy, __memcpy and __pi_memcpy at one
 * address are __pi_memcpy.  Call before symtab_finish. */
void symtab_prefer_last(struct symtab *st);

/* The symbol containing addr, or NULL: never the nearest preceding symbol
 * when addr lies past that symbol's end. */
const struct symbol *symtab_lookup(const struct symtab *st, uint64_t addr);

/* Whether sym is one of st's symbols (st may be NULL). */
bool symtab_owns(const struct symtab *st, const struct symbol *sym);

size_t symtab_count(const struct symtab *st);
/* The i-th symbol in address order (i < symtab_count). */
const struct symbol *symtab_get(const struct symtab *st, size_t i);

/* Whether the i-th symbol had a size of its own (else it was extended to
 * the next one). */
bool symtab_sized(const struct symtab *st, size_t i);

/* A finished table from what a finished one held (symtab_get, symtab_sized
 * of each of n symbols): starts[i], ends[i], names at pool + name_offs[i],
 * sized[i].  The pool (pool_len bytes) is copied.  Checked, for a file
 * that may be corrupt: starts strictly increasing, every end above its
 * start, every name inside the pool and the pool NUL-terminated; NULL
 * when not. */
struct symtab *symtab_from_sorted(size_t n, const uint64_t *starts, const uint64_t *ends,
				  const uint32_t *name_offs, const uint8_t *sized,
				  const char *pool, size_t pool_len);

#endif
