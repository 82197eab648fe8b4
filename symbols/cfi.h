/* Function bounds from call frame information: the FDEs of .eh_frame (or
 * .debug_frame) name, as sub_<hex>, the functions a stripped binary has no
 * symbol for. */
#ifndef PROFTOP_CFI_H
#define PROFTOP_CFI_H

#include <libelf.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct symtab;

/* One CFI section's bytes as the file holds them. */
struct cfi_section {
	const uint8_t *buf;
	size_t size;
	uint64_t addr;            /* sh_addr: pcrel pointers are relative to it */
	bool eh;                  /* .eh_frame (else .debug_frame) */
	bool msb;                 /* big-endian */
	unsigned addr_size;       /* 4 or 8: the ELF class's */
};

/* Call fn(start, end, arg) for each FDE of sec whose range decodes, in
 * section order; end is exclusive and above start.  Malformed entries are
 * skipped, a truncated one ends the walk: every read is bounded by
 * sec->size.  Returns the number of FDEs given to fn. */
size_t cfi_walk(const struct cfi_section *sec,
		void (*fn)(uint64_t start, uint64_t end, void *arg), void *arg);

/* The functions of elf known only from its CFI: the FDE ranges that lie
 * in an executable section and whose start no symbol of real covers,
 * named sub_<hex> from their start (an ELF virtual address, as objdump
 * prints it).  Read from .eh_frame and .debug_frame.  NULL when there
 * are none. */
struct symtab *cfi_symtab_new(Elf *elf, const struct symtab *real);

/* The functions of a binary (cfi, from cfi_symtab_new, and real, its
 * symbols) once its debug file dbg is known: cfi's and the FDEs of dbg's
 * .debug_frame (code built without unwind tables has them only there),
 * those real covers left out; *added says how many are dbg's alone.
 * NULL when none is left. */
struct symtab *cfi_symtab_debug(Elf *dbg, const struct symtab *cfi, const struct symtab *real,
				size_t *added);

/* The functions of cfi (a table from cfi_symtab_new) whose start no
 * symbol of real covers: after real gained a debug file's symbols.  NULL
 * when none is left. */
struct symtab *cfi_symtab_refine(const struct symtab *cfi, const struct symtab *real);

#endif
