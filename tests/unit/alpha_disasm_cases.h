/* Test vectors for the Alpha disassembler, shared by the check suite
 * (tests/unit/check_alpha_disasm.c) and the cross driver run under qemu
 * (tests/helpers/profileme-cross.c): the bytes as they sit in an Alpha
 * file and the text alpha-linux-gnu-objdump -d printed for them at that
 * address (its tab as a space, its " <symbol+off>" dropped). */
#ifndef PROFTOP_ALPHA_DISASM_CASES_H
#define PROFTOP_ALPHA_DISASM_CASES_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "alpha-disasm.h"

struct alpha_disasm_case {
	uint8_t bytes[4];
	uint64_t pc;
	const char *text;
	bool decoded;	 /* false: objdump's ".long" */
	bool has_target; /* a branch, or jmp/jsr with a hint */
	uint64_t target;
};

/* clang-format off */
static const struct alpha_disasm_case alpha_disasm_cases[] = {
	/* memory: displacement and base, with and without a base register */
	{ { 0x08, 0x00, 0x22, 0x20 }, 0x1200000d4, "lda t0,8(t1)", true, false, 0 },
	{ { 0x01, 0x00, 0x3f, 0x20 }, 0x1200000d4, "lda t0,1", true, false, 0 },
	{ { 0xff, 0x7f, 0x85, 0x24 }, 0x1200000dc, "ldah t3,32767(t4)", true, false, 0 },
	{ { 0xf8, 0xff, 0x50, 0xa4 }, 0x120000864, "ldq t1,-8(a0)", true, false, 0 },
	{ { 0x00, 0x00, 0xfe, 0x2f }, 0x1200000f0, "unop", true, false, 0 },
	{ { 0x40, 0x00, 0xfe, 0x9f }, 0x120000100, "stt $f31,64(sp)", true, false, 0 },
	/* branch: forward, backward, floating point, br with zero */
	{ { 0x0b, 0x00, 0x20, 0xee }, 0x120000854, "ble a1,120000884", true, true, 0x120000884 },
	{ { 0xf7, 0xff, 0x7f, 0xe4 }, 0x120000880, "beq t2,120000860", true, true, 0x120000860 },
	{ { 0x02, 0x00, 0xe0, 0xc3 }, 0x120000140, "br 12000014c", true, true, 0x12000014c },
	{ { 0xe2, 0xff, 0x5f, 0xd3 }, 0x120000148, "bsr ra,1200000d4", true, true, 0x1200000d4 },
	{ { 0x00, 0x00, 0xc0, 0xd8 }, 0x120000180, "fbge $f6,120000184", true, true, 0x120000184 },
	/* operate: register, literal, pseudo-ops and aliases */
	{ { 0x00, 0x04, 0xff, 0x47 }, 0x120000850, "clr v0", true, false, 0 },
	{ { 0x1f, 0x04, 0xff, 0x47 }, 0x120000888, "nop", true, false, 0 },
	{ { 0x28, 0x01, 0xe7, 0x43 }, 0x120000198, "negl t6,t7", true, false, 0 },
	{ { 0x2b, 0x0d, 0x2a, 0x41 }, 0x1200001a0, "subq/v s0,s1,s2", true, false, 0 },
	{ { 0x84, 0xf7, 0x40, 0x48 }, 0x120000870, "sra t1,0x7,t3", true, false, 0 },
	{ { 0x09, 0x54, 0xe5, 0x47 }, 0x1200001d8, "mov 0x2a,s0", true, false, 0 },
	{ { 0x03, 0xf1, 0x3f, 0x44 }, 0x1200001e0, "andnot t0,0xff,t2", true, false, 0 },
	{ { 0x84, 0x06, 0xe3, 0x73 }, 0x120000240, "unpkbw t2,t3", true, false, 0 },
	{ { 0x83, 0x3d, 0xe0, 0x47 }, 0x120000258, "implver t2", true, false, 0 },
	/* floating point, with qualifiers */
	{ { 0x03, 0x14, 0x22, 0x58 }, 0x120000260, "addt $f1,$f2,$f3", true, false, 0 },
	{ { 0x63, 0x94, 0x22, 0x54 }, 0x1200002b0, "divg/s $f1,$f2,$f3", true, false, 0 },
	{ { 0x46, 0xfc, 0x85, 0x58 }, 0x120000268, "mult/suid $f4,$f5,$f6", true, false, 0 },
	{ { 0xe2, 0xa5, 0xe1, 0x5b }, 0x120000294, "cvttq/svc $f1,$f2", true, false, 0 },
	{ { 0x25, 0xf0, 0xe4, 0x5b }, 0x12000027c, "negs/sui $f4,$f5", true, false, 0 },
	{ { 0x03, 0x04, 0x22, 0x5c }, 0x1200002d8, "cpys $f1,$f2,$f3", true, false, 0 },
	{ { 0x05, 0x04, 0x84, 0x5c }, 0x1200002d4, "fmov $f4,$f5", true, false, 0 },
	{ { 0x08, 0x0f, 0xff, 0x70 }, 0x12000031c, "ftois $f7,t7", true, false, 0 },
	/* PALcode, barriers */
	{ { 0x83, 0x00, 0x00, 0x00 }, 0x120000324, "callsys", true, false, 0 },
	{ { 0x86, 0x00, 0x00, 0x00 }, 0x120000328, "imb", true, false, 0 },
	{ { 0x34, 0x12, 0x00, 0x00 }, 0x120000348, "call_pal 0x1234", true, false, 0 },
	{ { 0x00, 0x04, 0x00, 0x60 }, 0x120000350, "excb", true, false, 0 },
	{ { 0x00, 0xc0, 0x7f, 0x60 }, 0x120000360, "rpcc t2", true, false, 0 },
	{ { 0x1f, 0x00, 0x20, 0x64 }, 0x120000378, "pal19 0x20001f", true, false, 0 },
	{ { 0x00, 0x80, 0xfd, 0x7b }, 0x120000384, "pal1e 0x3fd8000", true, false, 0 },
	/* jumps: hints as addresses, ret's as numbers */
	{ { 0x01, 0x80, 0xfa, 0x6b }, 0x120000884, "ret", true, false, 0 },
	{ { 0x00, 0x00, 0xe1, 0x6b }, 0x12000039c, "jmp (t0)", true, true, 0x1200003a0 },
	{ { 0x4c, 0x3f, 0x43, 0x68 }, 0x1200003a0, "jmp t1,(t2),1200000d4", true, true, 0x1200000d4 },
	{ { 0xff, 0x7f, 0x5b, 0x6b }, 0x1200003c4, "jsr ra,(t12),1200003c4", true, true, 0x1200003c4 },
	{ { 0x00, 0x80, 0xfa, 0x6b }, 0x1200003b4, "ret zero,(ra),0", true, false, 0 },
	{ { 0xff, 0xbf, 0x22, 0x68 }, 0x1200003b8, "ret t0,(t1),0x3fff", true, false, 0 },
	{ { 0x01, 0xc0, 0x5b, 0x6b }, 0x1200003bc, "jcr ra,(t12),0x1", true, false, 0 },
	/* not instructions */
	{ { 0x00, 0x00, 0x00, 0x04 }, 0x12000038c, ".long 0x4000000", false, false, 0 },
	{ { 0x00, 0x00, 0x00, 0x1c }, 0x120000390, ".long 0x1c000000", false, false, 0 },
};
/* clang-format on */

#define ALPHA_DISASM_NCASES (sizeof(alpha_disasm_cases) / sizeof(alpha_disasm_cases[0]))

/* Whether the decoder gives case c: text, decoded and target.  why gets
 * the difference. */
static inline bool alpha_disasm_case_check(const struct alpha_disasm_case *c, char *why,
					   size_t size)
{
	char text[ALPHA_DISASM_TEXT_MAX];
	uint32_t w = alpha_disasm_word(c->bytes);
	uint64_t to = 0;
	bool dec = alpha_disasm_insn(w, c->pc, text, sizeof(text));
	bool tgt = alpha_disasm_target(w, c->pc, &to);

	if (strcmp(text, c->text) != 0 || dec != c->decoded) {
		snprintf(why, size, "%08x: \"%s\" (%s), want \"%s\" (%s)", w, text,
			 dec ? "decoded" : ".long", c->text, c->decoded ? "decoded" : ".long");
		return false;
	}
	if (tgt != c->has_target || (tgt && to != c->target)) {
		snprintf(why, size, "%08x: target %s %llx, want %s %llx", w, tgt ? "yes" : "no",
			 (unsigned long long)to, c->has_target ? "yes" : "no",
			 (unsigned long long)c->target);
		return false;
	}
	return true;
}

#endif
