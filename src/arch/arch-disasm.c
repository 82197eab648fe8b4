/* Disassembly by ELF machine: the Alpha decoder of src/arch, else Capstone
 * through symbols/disasm.c. */
#include "config.h"

#include "arch-disasm.h"

#include <elf.h>
#include <stdio.h>
#include <string.h>

#include "alpha-disasm.h"
#include "util.h"

/* Capstone's flow for an Alpha word: bsr and jsr call, the other branches
 * and jmp jump (jmp/jsr to their hint, the address objdump prints). */
static void arch_disasm_alpha_flow(struct disasm_insn *di)
{
	uint32_t insn = alpha_disasm_word(di->bytes);
	unsigned major = insn >> 26;

	if (!arch_disasm_target(EM_ALPHA, di, &di->target))
		return;
	di->flow = major == 0x34 || (major == 0x1a && ((insn >> 14) & 3) == 1) ?
			   DISASM_FLOW_CALL : DISASM_FLOW_JUMP;
}

static void arch_disasm_alpha(const uint8_t *code, size_t len, uint64_t addr,
			      struct disasm_insn **out, size_t *n)
{
	size_t nr = len / 4 + len % 4, i = 0, off = 0;
	struct disasm_insn *v = xcalloc(nr ? nr : 1, sizeof(*v));

	for (; off + 4 <= len; off += 4, i++) {
		v[i].addr = addr + off;
		v[i].size = 4;
		memcpy(v[i].bytes, code + off, 4);
		alpha_disasm_insn(alpha_disasm_word(code + off), addr + off, v[i].text,
				  sizeof(v[i].text));
		arch_disasm_alpha_flow(&v[i]);
	}
	/* A symbol that does not end on a word: what is left, byte by byte. */
	for (; off < len; off++, i++) {
		v[i].addr = addr + off;
		v[i].size = 1;
		v[i].bytes[0] = code[off];
		snprintf(v[i].text, sizeof(v[i].text), ".byte 0x%02x", code[off]);
	}
	*out = v;
	*n = nr;
}

int arch_disasm_decode(int e_machine, enum disasm_syntax syntax, const uint8_t *code, size_t len,
		       uint64_t addr, struct disasm_insn **out, size_t *n, struct errmsg *em)
{
	if (e_machine == EM_ALPHA) {
		arch_disasm_alpha(code, len, addr, out, n);
		return 0;
	}
	return disasm_decode(e_machine, syntax, code, len, addr, out, n, em);
}

bool arch_disasm_target(int e_machine, const struct disasm_insn *di, uint64_t *target)
{
	if (e_machine != EM_ALPHA || di->size != 4)
		return false;
	return alpha_disasm_target(alpha_disasm_word(di->bytes), di->addr, target);
}
