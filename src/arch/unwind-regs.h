/* The user registers a DWARF unwinder needs, per machine: which to ask the
 * kernel for (sample_regs_user) and where each DWARF register sits in a
 * sample's PERF_SAMPLE_REGS_USER words.  The only place that knows perf's
 * and DWARF's register numbering. */
#ifndef PROFTOP_UNWIND_REGS_H
#define PROFTOP_UNWIND_REGS_H

#include <stdbool.h>
#include <stdint.h>

struct unwind_regs_arch {
	int e_machine;               /* EM_X86_64, ... */
	uint64_t perf_mask;          /* sample_regs_user to ask for (perf's own) */
	unsigned ndwarf;             /* DWARF registers 0..ndwarf-1 handed over */
	const int8_t *perf_of_dwarf; /* perf's index of each; -1: none */
	unsigned perf_pc, perf_sp;   /* perf's index of the pc and the sp */
	unsigned dwarf_sp;           /* DWARF number of the sp */
	/* For the cached-rule walk (CFA from sp or fp, return address and fp
	 * saved on the stack, the caller's sp the CFA): the fp's and the
	 * return address's DWARF numbers; fast false where the ABI does not
	 * fit that shape (the return address in a register). */
	bool fast;
	unsigned dwarf_fp, dwarf_ra, perf_fp;
};

/* The table for e_machine, or NULL where DWARF unwinding is not known. */
const struct unwind_regs_arch *unwind_regs_find(int e_machine);

/* Perf register idx of a sample: regs holds nr words, one per bit of mask
 * (the attr's sample_regs_user), lowest bit first.  False when mask lacks
 * idx or the words are fewer than the mask says. */
bool unwind_regs_get(uint64_t mask, const uint64_t *regs, uint32_t nr, unsigned idx,
		     uint64_t *val);

#endif
