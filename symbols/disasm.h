/* Disassembly for annotate: machine code to one text line per instruction,
 * with Capstone (when configure found it). */
#ifndef PROFTOP_DISASM_H
#define PROFTOP_DISASM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct errmsg;

enum disasm_syntax {
	DISASM_ATT,                  /* objdump's and perf's default on x86 */
	DISASM_INTEL,                /* -M intel */
};

#define DISASM_INSN_MAX 16       /* bytes: x86's longest instruction is 15 */

enum disasm_flow {
	DISASM_FLOW_NONE,
	DISASM_FLOW_JUMP,            /* a direct jump or branch, conditional or not */
	DISASM_FLOW_CALL,            /* a direct call */
};

struct disasm_insn {
	uint64_t addr;
	uint8_t size;
	uint8_t bytes[DISASM_INSN_MAX];
	char text[200];          /* "mov %rsp, %rbp"; ".byte 0xff" when undecodable */
	uint8_t flow;            /* enum disasm_flow */
	uint64_t target;         /* with a flow: the destination */
};

/* Decode len bytes of code at addr for e_machine (EM_*): *out (allocated,
 * free it) gets *n instructions covering every byte.  Bytes that do not
 * decode are one ".byte" each, and decoding resumes after them.
 * Returns 0, or -ENOTSUP (no disassembler for e_machine in this build:
 * em says why) and then nothing is allocated. */
int disasm_decode(int e_machine, enum disasm_syntax syntax, const uint8_t *code, size_t len,
		  uint64_t addr, struct disasm_insn **out, size_t *n, struct errmsg *em);

/* Whether the disassembler's library has been loaded: it is at the first
 * disasm_decode of a machine it knows, not before. */
bool disasm_loaded(void);

/* Without a disassembler: the raw bytes, DISASM_RAW_LINE a line, so that
 * the addresses of the samples still show. */
#define DISASM_RAW_LINE 8
void disasm_raw(const uint8_t *code, size_t len, uint64_t addr, struct disasm_insn **out,
		size_t *n);

/* -M's value, "intel" or "att"; false when unknown. */
bool disasm_parse_syntax(const char *s, enum disasm_syntax *out);

#endif
