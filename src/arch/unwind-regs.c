/* Per-machine register maps for DWARF unwinding: perf's PERF_REG_<ARCH>_*
 * numbering (arch/<arch>/include/uapi/asm/perf_regs.h) to DWARF's. */
#include "config.h"

#include "unwind-regs.h"

#include <elf.h>
#include <stddef.h>

#ifndef EM_AARCH64
#define EM_AARCH64 183
#endif

/* x86-64 DWARF: rax rdx rcx rbx rsi rdi rbp rsp r8..r15; perf: ax bx cx
 * dx si di bp sp ip flags cs ss ds es fs gs r8..r15. */
static const int8_t x86_64_perf_of_dwarf[] = { 0, 3, 2, 1, 4, 5, 6, 7,
					       16, 17, 18, 19, 20, 21, 22, 23 };

/* AArch64: x0..x30 and sp share numbers in both; perf's pc is 32. */
static const int8_t aarch64_perf_of_dwarf[] = { 0,  1,  2,  3,  4,  5,  6,  7,  8,  9,  10,
						11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21,
						22, 23, 24, 25, 26, 27, 28, 29, 30, 31 };

static const struct unwind_regs_arch arches[] = {
	/* perf's PERF_REGS_MASK: all but ds, es, fs, gs. */
	{ EM_X86_64, 0xff0fffULL, 16, x86_64_perf_of_dwarf, 8, 7, 7, true, 6, 16, 6 },
	{ EM_AARCH64, (1ULL << 33) - 1, 32, aarch64_perf_of_dwarf, 32, 31, 31, false, 29, 30, 29 },
};

const struct unwind_regs_arch *unwind_regs_find(int e_machine)
{
	size_t i;

	for (i = 0; i < sizeof(arches) / sizeof(arches[0]); i++)
		if (arches[i].e_machine == e_machine)
			return &arches[i];
	return NULL;
}

bool unwind_regs_get(uint64_t mask, const uint64_t *regs, uint32_t nr, unsigned idx,
		     uint64_t *val)
{
	unsigned pos;

	if (idx >= 64 || !(mask & (1ULL << idx)) || !regs)
		return false;
	/* The words below idx's bit come first. */
	pos = (unsigned)__builtin_popcountll(mask & ((1ULL << idx) - 1));
	if (pos >= nr)
		return false;
	*val = regs[pos];
	return true;
}
