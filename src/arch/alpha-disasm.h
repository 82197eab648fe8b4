/* Alpha instruction words to text, as alpha-linux-gnu-objdump -d prints
 * them (OSF register names, objdump's pseudo-ops and aliases): Capstone 4
 * has no Alpha.  One 32-bit word at a time; no libraries, no allocation, so
 * that it also builds for an Alpha and runs under qemu-alpha. */
#ifndef PROFTOP_ALPHA_DISASM_H
#define PROFTOP_ALPHA_DISASM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Room for the longest text ("hw_coroutine/stall ..." is not decoded; the
 * longest is a jsr_coroutine with two registers and a hint). */
#define ALPHA_DISASM_TEXT_MAX 64

/* The text of insn at pc into buf ("ldq t1,-8(a0)", "ble a1,120000884":
 * objdump's, with one space for its tab and without its " <symbol+off>").
 * Returns false for a word objdump does not decode either; buf then holds
 * objdump's ".long 0x1c000000". */
bool alpha_disasm_insn(uint32_t insn, uint64_t pc, char *buf, size_t size);

/* Where a branch, or a jump's hint, points: true for the branch format
 * (br, bsr, b<cond>, fb<cond>) and for jmp/jsr (the hint: only where the
 * compiler expects the jump to go). */
bool alpha_disasm_target(uint32_t insn, uint64_t pc, uint64_t *target);

/* An instruction word from 4 bytes of Alpha code (little endian, any host). */
uint32_t alpha_disasm_word(const uint8_t *p);

#endif
