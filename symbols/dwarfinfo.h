/* DWARF answers for displayed addresses: the chain of inlined functions at
 * an address and its source file:line, from libdw, opened lazily per file
 * and cached per address.  Slow (a CU's DIE tree is walked per address),
 * so callers ask only for rows and frames that are shown, never per sample. */
#ifndef PROFTOP_DWARFINFO_H
#define PROFTOP_DWARFINFO_H

#include <stddef.h>
#include <stdint.h>

/* One inlined function at an address (a DW_TAG_inlined_subroutine scope). */
struct dwarfinfo_inline {
	const char *name;       /* the inlined function, demangled; interned */
	const char *call_file;  /* where its caller called it: full path, interned,
				   or NULL when the DWARF does not say */
	unsigned call_line;
	const char *decl_file;  /* where the function is defined (DW_AT_decl_file of
				   its abstract origin), full path, or NULL */
	unsigned decl_line;     /* its DW_AT_decl_line, or 0 */
};

/* What the DWARF says about one address.  File names are those
 * eu-addr2line prints (its default -A): a relative name gets the
 * compilation directory in front, even when that is relative too (glibc's
 * "./elf/./elf/rtld.c": binutils' addr2line and llvm-symbolizer print the
 * same), for the line table's files and the call and decl files alike.
 * Strings are interned (valid until the program exits), so an answer may
 * outlive the cache entry it came from; the struct itself is valid until
 * the next dwarfinfo_lookup or dwarfinfo_cache_free on the same cache. */
struct dwarfinfo {
	const char *file;       /* source file of the address (line table), full
				   path, interned; NULL when unknown */
	unsigned line;          /* 0 when unknown */
	const char *function;   /* the out-of-line function containing the
				   address (DW_TAG_subprogram), or NULL */
	const char *function_file; /* where it is defined (DW_AT_decl_file), full
				      path, interned, or NULL */
	unsigned function_line; /* its DW_AT_decl_line, or 0 */
	const struct dwarfinfo_inline *inlines; /* innermost first: inlines[0] is the
					       function the address is in */
	size_t nr_inlines;      /* 0: not in inlined code */
};

struct dwarfinfo_cache;

/* max_entries: addresses remembered (0: 16K); past it the cache starts
 * over.  At most a few files are kept open (least recently used closed).
 * Never reaches the network: separate debug files are searched on disk
 * only (the caller passes the debug file itself when it knows it), and
 * never when DEBUGINFOD_URLS is set, since libdwfl would then ask the
 * servers. */
struct dwarfinfo_cache *dwarfinfo_cache_new(size_t max_entries);
void dwarfinfo_cache_free(struct dwarfinfo_cache *c);

/* The answer for address addr (ELF virtual address of the file at path,
 * the space of .symtab and of the DWARF), from the cache or libdw.
 * Returns 0 with *out set (fields NULL/0 where the DWARF has nothing),
 * or -errno when the file cannot be opened or has no DWARF at all
 * (remembered: the file is not tried again).  Thread-safe (one lock). */
int dwarfinfo_lookup(struct dwarfinfo_cache *c, const char *path, uint64_t addr,
		     const struct dwarfinfo **out);
/* The same, using path only when its build ID is id (size bytes; no check
 * when size is 0): -ESTALE otherwise.  A path is opened and checked once
 * per (path, id). */
int dwarfinfo_lookup_id(struct dwarfinfo_cache *c, const char *path, const uint8_t *id,
			size_t size, uint64_t addr, const struct dwarfinfo **out);

/* The source line and inlined function of each of n addresses of one
 * function (sorted, ascending), as dwarfinfo_lookup_id's file and
 * innermost inline, but from one walk of the function's DIE tree instead
 * of one per address: annotate's thousands of instructions.  out[i] gets
 * zero fields where the DWARF has nothing.  Returns 0 or -errno (the
 * file, as dwarfinfo_lookup_id).  Not cached. */
struct dwarfinfo_line {
	const char *file;       /* full path, interned, or NULL */
	unsigned line;
	const char *inlined;    /* the innermost inlined function there, or NULL */
};
int dwarfinfo_lines_id(struct dwarfinfo_cache *c, const char *path, const uint8_t *id,
		       size_t size, const uint64_t *addrs, size_t n, struct dwarfinfo_line *out);

/* "file:line" the way perf's srcline sort prints it: the file's base name
 * and the line (or "file:?" / NULL when unknown).  Interned. */
const char *dwarfinfo_srcline(const struct dwarfinfo *info);

struct dwarfinfo_stats {
	uint64_t hits, misses;      /* lookups answered from the cache, from libdw */
	uint64_t files_opened;      /* dwfl sessions begun */
	size_t entries;             /* addresses cached now */
};
void dwarfinfo_cache_stats(struct dwarfinfo_cache *c, struct dwarfinfo_stats *out);

#endif
