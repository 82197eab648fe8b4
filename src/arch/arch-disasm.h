/* Disassembly by ELF machine for annotate: the decoders of src/arch (Alpha:
 * Capstone 4 has none) first, then Capstone's (symbols/disasm.c).  Here,
 * not in symbols/disasm.c, because symbols/ is a layer below src/arch/ and
 * may not name it (README, "Hacking"). */
#ifndef PROFTOP_ARCH_DISASM_H
#define PROFTOP_ARCH_DISASM_H

#include <stddef.h>
#include <stdint.h>

#include "disasm.h"

struct errmsg;

/* disasm_decode's contract (symbols/disasm.h) for every machine proftop
 * decodes: EM_ALPHA here, with or without Capstone; the others through
 * Capstone.  An Alpha word that does not decode is one instruction of 4
 * bytes (".long 0x..." as objdump prints it); bytes after the last whole
 * word are one ".byte" each. */
int arch_disasm_decode(int e_machine, enum disasm_syntax syntax, const uint8_t *code, size_t len,
		       uint64_t addr, struct disasm_insn **out, size_t *n, struct errmsg *em);

/* Where the instruction at addr goes, for a machine that src/arch decodes
 * (Alpha: branches, and the hint of jmp/jsr); false otherwise. */
bool arch_disasm_target(int e_machine, const struct disasm_insn *di, uint64_t *target);

#endif
