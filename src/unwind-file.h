/* The ELF files DWARF unwinding reads, one per DSO for every process that
 * maps it: the file (mapped once, no descriptor kept), its .eh_frame CFI,
 * and the unwind rules found in it so far, keyed by the file's own
 * addresses.  Used by the unwinder's thread only. */
#ifndef PROFTOP_UNWIND_FILE_H
#define PROFTOP_UNWIND_FILE_H

#include <elfutils/libdw.h>
#include <libelf.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct dso;
struct unwind_files;
struct unwind_regs_arch;

enum unwind_rule_kind {
	RULE_EMPTY,          /* a free slot */
	RULE_SIMPLE,
	RULE_ROOT,           /* the return address is undefined */
	RULE_LIBDW,          /* another shape, or no CFI: libdw's walk decides */
	RULE_NO_MAP,         /* no ELF file mapped there */
	RULE_NO_FDE,         /* no CFI (yet): libdw's walk, and .debug_frame asked again */
};

enum unwind_rule_fp { FP_SAME, FP_SAVED, FP_UNDEFINED };

/* How to find the caller's frame at one address: CFA = sp or fp + cfa_off;
 * the return address at CFA + ra_off; the fp kept, saved at CFA + fp_off,
 * or lost; the caller's sp the CFA. */
struct unwind_rule {
	uint64_t vaddr;
	uint8_t kind;        /* enum unwind_rule_kind */
	uint8_t cfa_fp;      /* CFA from the fp, else from the sp */
	uint8_t fp;          /* enum unwind_rule_fp */
	uint8_t dbg_read;    /* RULE_NO_FDE: the file's .debug_frame was read then */
	int32_t cfa_off, ra_off, fp_off;
};

/* A row of CFI: the addresses [start, end) that share one rule. */
struct unwind_row {
	uint64_t start, end;
	struct unwind_rule rule;
};

struct unwind_file {
	struct dso *dso;
	Elf *elf;            /* NULL: the file could not be read */
	Dwarf_CFI *cfi;      /* its .eh_frame's, or NULL */
	struct unwind_rule *rules;
	size_t nrules, cap;  /* cap a power of 2, 0 until the first rule */
	/* CFI rows met (address ranges of one rule): sorted by start up to
	 * nrows_sorted, then a few in the order found */
	struct unwind_row *rows;
	size_t nrows, nrows_sorted, rowcap;
	uint64_t cfi_lookups;  /* rules libdw was asked for */
	/* Unreadable: asked for how often, opened how often, asks at which
	 * it is tried again, and whether it failed before its symbols'
	 * file was known */
	uint32_t asks, opens, next_try;
	bool failed_nosym;
	/* .debug_frame (the file's own, else its debug file's), read at the
	 * first pc .eh_frame has no FDE for, once for every process: its
	 * image for libdw's walks (a memfd, 0 until read) and its CFI for
	 * the cached one; NULL until read, and read again when the debug
	 * file found is another, or after a failure to read it at the 2nd,
	 * 4th, 8th... ask. */
	int dbg_fd;
	Elf *dbg_elf;
	Dwarf *dbg_dw;
	Dwarf_CFI *dbg_cfi;
	uint32_t dbg_asks, dbg_opens, dbg_next_try;
	const char *dbg_path;     /* the debug file it was looked for with */
	bool dbg_refused;         /* a Dwfl was told there is none */
	bool dbg_waited;          /* a walk waited for its symbols once */
	struct unwind_file *next;
};

struct unwind_files *unwind_files_new(void);
void unwind_files_free(struct unwind_files *fs);

/* dso's file, opened at the first call (its symbols' file once they are
 * loaded, else its path); never NULL, but ->elf NULL when unreadable (and
 * tried again at the 2nd, 4th, 8th... call, or at the first once its
 * symbols' file is known, if it was not then). */
struct unwind_file *unwind_files_get(struct unwind_files *fs, struct dso *dso);

/* f's .debug_frame CFI (file addresses), or NULL: read at the first call
 * and kept (see struct unwind_file). */
Dwarf_CFI *unwind_file_debug_cfi(struct unwind_file *f);
/* The same .debug_frame as a small ELF file for libdw (a new descriptor,
 * the caller's), or -1. */
int unwind_file_debug_fd(struct unwind_file *f);
/* How many times a .debug_frame was read that some Dwfl had been told
 * did not exist (libdw keeps that answer for the Dwfl's life): a Dwfl
 * made before the last one is made again. */
uint64_t unwind_file_debug_found_late(void);

/* The file's loaded addresses, from its first segment's page (libdw's
 * module start for it) to its last segment's end. */
bool unwind_elf_range(Elf *elf, uint64_t *low, uint64_t *high);

/* Where the file's address 0 is when mapped at start from file offset
 * pgoff; false when no PT_LOAD holds pgoff. */
bool unwind_elf_bias(Elf *elf, uint64_t start, uint64_t pgoff, uint64_t *bias);
/* The word at file address vaddr, from a segment that is not writable. */
bool unwind_file_read(const struct unwind_file *f, uint64_t vaddr, uint64_t *val);
/* The rule slot for vaddr: found, or a new one of kind RULE_EMPTY for the
 * caller to fill (valid until the next call). */
struct unwind_rule *unwind_file_rule(struct unwind_file *f, uint64_t vaddr);
/* Fill the new slot r (r->vaddr set) from f's .eh_frame: from a row
 * already met, else from libdw's row for it (kept): RULE_SIMPLE or
 * RULE_ROOT for the shapes the cached walk follows, RULE_NO_FDE where no
 * FDE covers it, else RULE_LIBDW.  f->cfi non-NULL. */
void unwind_file_rule_fill(struct unwind_file *f, const struct unwind_regs_arch *a,
			   struct unwind_rule *r);
/* The rule at vaddr from its CFI f (module bias applied): RULE_SIMPLE or
 * RULE_ROOT for the shapes the cached walk follows, else RULE_LIBDW. */
void unwind_file_rule_make(const struct unwind_regs_arch *a, Dwarf_Frame *f, uint64_t vaddr,
			   struct unwind_rule *r);

#endif
