/* Alpha disassembler, table driven: each entry is a name, the bits that
 * must match, and the operands; the first entry of the word's major opcode
 * that matches wins, so a pseudo-op ("mov", "clr", "ret") comes before the
 * instruction it spells.  The names, their order and the operand forms are
 * what binutils' objdump prints (checked word by word against it by
 * tests/integration/alpha-disasm.sh), for the instruction sets objdump
 * decodes by default: base, BWX, CIX, MAX; PALcode-private opcodes (19, 1b,
 * 1d, 1e, 1f) print as objdump prints them then, "pal19 0x...". */
#include "config.h"

#include "alpha-disasm.h"

#include <stdio.h>
#include <string.h>

/* Operands, in the order printed.  Z*: the field must be 31 (zero) and is
 * not printed; RBA/RCA: the field must equal RA and is not printed. */
enum alpha_arg {
	ARG_END,
	ARG_RA,
	ARG_RB,
	ARG_RC,
	ARG_FA,
	ARG_FB,
	ARG_FC,
	ARG_ZA,
	ARG_ZB,
	ARG_ZC,
	ARG_RBA,
	ARG_RCA,
	ARG_PRB,   /* "(rb)", no comma before it: after a displacement */
	ARG_CPRB,  /* ",(rb)" */
	ARG_LIT,   /* 8-bit literal of the operate format */
	ARG_MDISP, /* signed 16-bit displacement */
	ARG_BDISP, /* branch target */
	ARG_PALFN, /* 26-bit PALcode function */
	ARG_JHINT, /* jmp/jsr hint: an address */
	ARG_RHINT, /* ret/jsr_coroutine hint: a number */
};

/* The qualifier suffixes of a floating-point operation ("/suic"): which
 * trap modes (function bits 10:8) and rounding modes (7:6) exist for it. */
struct alpha_quals {
	const char *trap[8]; /* NULL: no such variant */
	uint8_t rnd[8];	     /* per trap mode, a mask of allowed rounding modes */
	bool rnd_unnamed;    /* cvtql: its one rounding mode has no suffix */
};

static const char *const alpha_rnd_names[4] = { "c", "m", "", "d" };

enum {
	Q_NONE,
	Q_IEEE,	     /* adds ... divt, cvtts, sqrts/t */
	Q_IEEE_V,    /* cvttq: /v for /u */
	Q_IEEE_CVTQ, /* cvtqs, cvtqt */
	Q_IEEE_CMP,  /* cmpt* */
	Q_IEEE_NEG,  /* negs, negt */
	Q_CVTST,
	Q_VAX,	    /* addf ... divg, cvtdg, cvtgf, cvtgd, sqrtf/g */
	Q_VAX_V,    /* cvtgq */
	Q_VAX_CVTQ, /* cvtqf, cvtqg */
	Q_VAX_CMP,  /* cmpg*, negf, negg */
	Q_CVTQL,
};

/* clang-format off */
static const struct alpha_quals alpha_quals[] = {
	[Q_IEEE] = { .trap = { [0] = "", [1] = "u", [5] = "su", [7] = "sui" },
		.rnd = { [0] = 0xf, [1] = 0xf, [5] = 0xf, [7] = 0xf } },
	[Q_IEEE_V] = { .trap = { [0] = "", [1] = "v", [5] = "sv", [7] = "svi" },
		.rnd = { [0] = 0xf, [1] = 0xf, [5] = 0xf, [7] = 0xf } },
	[Q_IEEE_CVTQ] = { .trap = { [0] = "", [7] = "sui" },
		.rnd = { [0] = 0xf, [7] = 0xf } },
	[Q_IEEE_CMP] = { .trap = { [0] = "", [5] = "su" },
		.rnd = { [0] = 0x4, [5] = 0x4 } },
	[Q_IEEE_NEG] = { .trap = { [0] = "", [5] = "su", [7] = "sui" },
		.rnd = { [0] = 0x4, [5] = 0x4, [7] = 0x4 } },
	[Q_CVTST] = { .trap = { [2] = "", [6] = "s" },
		.rnd = { [2] = 0x4, [6] = 0x4 } },
	[Q_VAX] = { .trap = { [0] = "", [1] = "u", [4] = "s", [5] = "su" },
		.rnd = { [0] = 0x5, [1] = 0x5, [4] = 0x5, [5] = 0x5 } },
	[Q_VAX_V] = { .trap = { [0] = "", [1] = "v", [4] = "s", [5] = "sv" },
		.rnd = { [0] = 0x5, [1] = 0x5, [4] = 0x5, [5] = 0x5 } },
	[Q_VAX_CVTQ] = { .trap = { [0] = "" },
		.rnd = { [0] = 0x5 } },
	[Q_VAX_CMP] = { .trap = { [0] = "", [4] = "s" },
		.rnd = { [0] = 0x4, [4] = 0x4 } },
	[Q_CVTQL] = { .trap = { [0] = "", [1] = "v", [5] = "sv" },
		.rnd = { [0] = 0x1, [1] = 0x1, [5] = 0x1 }, .rnd_unnamed = true },
};
/* clang-format on */

struct alpha_op {
	const char *name;
	uint32_t match, mask;
	uint8_t quals; /* Q_*: the function's bits 10:6 are a qualifier */
	uint8_t args[3];
};

/* clang-format off */
#define OP(x) ((uint32_t)(x) << 26)
#define OP_MASK 0xfc000000u
/* Each format: the bits it fixes beyond the major opcode. */
#define MEM(o) OP(o), OP_MASK
#define MFC(o, f) (OP(o) | (f)), (OP_MASK | 0xffff)
#define MBR(o, h) (OP(o) | ((h) << 14)), (OP_MASK | 0xc000)
#define OPR(o, f) (OP(o) | ((f) << 5)), (OP_MASK | 0x1fe0)
#define OPRL(o, f) (OP(o) | ((f) << 5) | 0x1000), (OP_MASK | 0x1fe0)
#define FP(o, f) (OP(o) | ((f) << 5)), (OP_MASK | 0xffe0)
/* A floating-point operation whose bits 10:6 are its qualifiers. */
#define FPQ(o, f) (OP(o) | ((f) << 5)), (OP_MASK | 0x07e0)
#define BRA(o) OP(o), OP_MASK
#define PCD(o) OP(o), OP_MASK
#define SPCD(o, f) (OP(o) | (f)), 0xffffffffu

#define A_NONE 0, { 0 }
#define A_MEM 0, { ARG_RA, ARG_MDISP, ARG_PRB }
#define A_FMEM 0, { ARG_FA, ARG_MDISP, ARG_PRB }
#define A_OPR 0, { ARG_RA, ARG_RB, ARG_RC }
#define A_OPRL 0, { ARG_RA, ARG_LIT, ARG_RC }
#define A_OPRZ1 0, { ARG_ZA, ARG_RB, ARG_RC }
#define A_OPRLZ1 0, { ARG_ZA, ARG_LIT, ARG_RC }
#define A_FP 0, { ARG_FA, ARG_FB, ARG_FC }
#define A_FPZ1 0, { ARG_ZA, ARG_FB, ARG_FC }
#define A_BRA 0, { ARG_RA, ARG_BDISP }
#define A_FBRA 0, { ARG_FA, ARG_BDISP }
#define A_PCD 0, { ARG_PALFN }
#define Q_FP(q) q, { ARG_FA, ARG_FB, ARG_FC }
#define Q_FPZ1(q) q, { ARG_ZA, ARG_FB, ARG_FC }

/* An operate instruction in both forms: register and literal. */
#define OPR2(name, o, f) { name, OPR(o, f), A_OPR }, { name, OPRL(o, f), A_OPRL }
#define OPR2Z1(name, o, f) { name, OPR(o, f), A_OPRZ1 }, { name, OPRL(o, f), A_OPRLZ1 }

/* Sorted by major opcode (alpha_disasm_insn starts at the first entry of
 * the word's); within one, the more specific spelling first. */
static const struct alpha_op alpha_ops[] = {
	{ "halt", SPCD(0x00, 0x0000), A_NONE },
	{ "draina", SPCD(0x00, 0x0002), A_NONE },
	{ "bpt", SPCD(0x00, 0x0080), A_NONE },
	{ "bugchk", SPCD(0x00, 0x0081), A_NONE },
	{ "callsys", SPCD(0x00, 0x0083), A_NONE },
	{ "imb", SPCD(0x00, 0x0086), A_NONE },
	{ "rduniq", SPCD(0x00, 0x009e), A_NONE },
	{ "wruniq", SPCD(0x00, 0x009f), A_NONE },
	{ "gentrap", SPCD(0x00, 0x00aa), A_NONE },
	{ "call_pal", PCD(0x00), A_PCD },

	{ "lda", MEM(0x08), 0, { ARG_RA, ARG_MDISP, ARG_ZB } },
	{ "lda", MEM(0x08), A_MEM },
	{ "ldah", MEM(0x09), 0, { ARG_RA, ARG_MDISP, ARG_ZB } },
	{ "ldah", MEM(0x09), A_MEM },
	{ "ldbu", MEM(0x0a), A_MEM },
	{ "unop", MEM(0x0b), 0, { ARG_ZA } },
	{ "ldq_u", MEM(0x0b), A_MEM },
	{ "ldwu", MEM(0x0c), A_MEM },
	{ "stw", MEM(0x0d), A_MEM },
	{ "stb", MEM(0x0e), A_MEM },
	{ "stq_u", MEM(0x0f), A_MEM },

	OPR2Z1("sextl", 0x10, 0x00),
	OPR2("addl", 0x10, 0x00),
	OPR2("s4addl", 0x10, 0x02),
	OPR2Z1("negl", 0x10, 0x09),
	OPR2("subl", 0x10, 0x09),
	OPR2("s4subl", 0x10, 0x0b),
	OPR2("cmpbge", 0x10, 0x0f),
	OPR2("s8addl", 0x10, 0x12),
	OPR2("s8subl", 0x10, 0x1b),
	OPR2("cmpult", 0x10, 0x1d),
	OPR2("addq", 0x10, 0x20),
	OPR2("s4addq", 0x10, 0x22),
	OPR2Z1("negq", 0x10, 0x29),
	OPR2("subq", 0x10, 0x29),
	OPR2("s4subq", 0x10, 0x2b),
	OPR2("cmpeq", 0x10, 0x2d),
	OPR2("s8addq", 0x10, 0x32),
	OPR2("s8subq", 0x10, 0x3b),
	OPR2("cmpule", 0x10, 0x3d),
	OPR2("addl/v", 0x10, 0x40),
	OPR2Z1("negl/v", 0x10, 0x49),
	OPR2("subl/v", 0x10, 0x49),
	OPR2("cmplt", 0x10, 0x4d),
	OPR2("addq/v", 0x10, 0x60),
	OPR2Z1("negq/v", 0x10, 0x69),
	OPR2("subq/v", 0x10, 0x69),
	OPR2("cmple", 0x10, 0x6d),

	OPR2("and", 0x11, 0x00),
	OPR2("andnot", 0x11, 0x08), /* objdump's name for bic */
	OPR2("cmovlbs", 0x11, 0x14),
	OPR2("cmovlbc", 0x11, 0x16),
	{ "nop", OPR(0x11, 0x20), 0, { ARG_ZA, ARG_ZB, ARG_ZC } },
	{ "clr", OPR(0x11, 0x20), 0, { ARG_ZA, ARG_ZB, ARG_RC } },
	{ "mov", OPR(0x11, 0x20), 0, { ARG_ZA, ARG_RB, ARG_RC } },
	{ "mov", OPR(0x11, 0x20), 0, { ARG_RA, ARG_RBA, ARG_RC } },
	{ "mov", OPRL(0x11, 0x20), 0, { ARG_ZA, ARG_LIT, ARG_RC } },
	OPR2("or", 0x11, 0x20), /* objdump's name for bis */
	OPR2("cmoveq", 0x11, 0x24),
	OPR2("cmovne", 0x11, 0x26),
	OPR2Z1("not", 0x11, 0x28),
	OPR2("ornot", 0x11, 0x28),
	OPR2("xor", 0x11, 0x40),
	OPR2("cmovlt", 0x11, 0x44),
	OPR2("cmovge", 0x11, 0x46),
	OPR2("eqv", 0x11, 0x48),
	OPR2Z1("amask", 0x11, 0x61),
	OPR2("cmovle", 0x11, 0x64),
	OPR2("cmovgt", 0x11, 0x66),
	{ "implver", OP(0x11) | (0x6c << 5) | 0x1000 | (31 << 21) | (1 << 13), 0xffffffe0u, 0,
	  { ARG_RC } },

	OPR2("mskbl", 0x12, 0x02),
	OPR2("extbl", 0x12, 0x06),
	OPR2("insbl", 0x12, 0x0b),
	OPR2("mskwl", 0x12, 0x12),
	OPR2("extwl", 0x12, 0x16),
	OPR2("inswl", 0x12, 0x1b),
	OPR2("mskll", 0x12, 0x22),
	OPR2("extll", 0x12, 0x26),
	OPR2("insll", 0x12, 0x2b),
	OPR2("zap", 0x12, 0x30),
	OPR2("zapnot", 0x12, 0x31),
	OPR2("mskql", 0x12, 0x32),
	OPR2("srl", 0x12, 0x34),
	OPR2("extql", 0x12, 0x36),
	OPR2("sll", 0x12, 0x39),
	OPR2("insql", 0x12, 0x3b),
	OPR2("sra", 0x12, 0x3c),
	OPR2("mskwh", 0x12, 0x52),
	OPR2("inswh", 0x12, 0x57),
	OPR2("extwh", 0x12, 0x5a),
	OPR2("msklh", 0x12, 0x62),
	OPR2("inslh", 0x12, 0x67),
	OPR2("extlh", 0x12, 0x6a),
	OPR2("mskqh", 0x12, 0x72),
	OPR2("insqh", 0x12, 0x77),
	OPR2("extqh", 0x12, 0x7a),

	OPR2("mull", 0x13, 0x00),
	OPR2("mulq", 0x13, 0x20),
	OPR2("umulh", 0x13, 0x30),
	OPR2("mull/v", 0x13, 0x40),
	OPR2("mulq/v", 0x13, 0x60),

	{ "itofs", FP(0x14, 0x004), 0, { ARG_RA, ARG_ZB, ARG_FC } },
	{ "itoff", FP(0x14, 0x014), 0, { ARG_RA, ARG_ZB, ARG_FC } },
	{ "itoft", FP(0x14, 0x024), 0, { ARG_RA, ARG_ZB, ARG_FC } },
	{ "sqrtf", FPQ(0x14, 0x0a), Q_FPZ1(Q_VAX) },
	{ "sqrts", FPQ(0x14, 0x0b), Q_FPZ1(Q_IEEE) },
	{ "sqrtg", FPQ(0x14, 0x2a), Q_FPZ1(Q_VAX) },
	{ "sqrtt", FPQ(0x14, 0x2b), Q_FPZ1(Q_IEEE) },

	{ "addf", FPQ(0x15, 0x00), Q_FP(Q_VAX) },
	{ "negf", FPQ(0x15, 0x01), Q_FPZ1(Q_VAX_CMP) },
	{ "subf", FPQ(0x15, 0x01), Q_FP(Q_VAX) },
	{ "mulf", FPQ(0x15, 0x02), Q_FP(Q_VAX) },
	{ "divf", FPQ(0x15, 0x03), Q_FP(Q_VAX) },
	{ "cvtdg", FPQ(0x15, 0x1e), Q_FPZ1(Q_VAX) },
	{ "addg", FPQ(0x15, 0x20), Q_FP(Q_VAX) },
	{ "negg", FPQ(0x15, 0x21), Q_FPZ1(Q_VAX_CMP) },
	{ "subg", FPQ(0x15, 0x21), Q_FP(Q_VAX) },
	{ "mulg", FPQ(0x15, 0x22), Q_FP(Q_VAX) },
	{ "divg", FPQ(0x15, 0x23), Q_FP(Q_VAX) },
	{ "cmpgeq", FPQ(0x15, 0x25), Q_FP(Q_VAX_CMP) },
	{ "cmpglt", FPQ(0x15, 0x26), Q_FP(Q_VAX_CMP) },
	{ "cmpgle", FPQ(0x15, 0x27), Q_FP(Q_VAX_CMP) },
	{ "cvtgf", FPQ(0x15, 0x2c), Q_FPZ1(Q_VAX) },
	{ "cvtgd", FPQ(0x15, 0x2d), Q_FPZ1(Q_VAX) },
	{ "cvtgq", FPQ(0x15, 0x2f), Q_FPZ1(Q_VAX_V) },
	{ "cvtqf", FPQ(0x15, 0x3c), Q_FPZ1(Q_VAX_CVTQ) },
	{ "cvtqg", FPQ(0x15, 0x3e), Q_FPZ1(Q_VAX_CVTQ) },

	{ "adds", FPQ(0x16, 0x00), Q_FP(Q_IEEE) },
	{ "negs", FPQ(0x16, 0x01), Q_FPZ1(Q_IEEE_NEG) },
	{ "subs", FPQ(0x16, 0x01), Q_FP(Q_IEEE) },
	{ "muls", FPQ(0x16, 0x02), Q_FP(Q_IEEE) },
	{ "divs", FPQ(0x16, 0x03), Q_FP(Q_IEEE) },
	{ "addt", FPQ(0x16, 0x20), Q_FP(Q_IEEE) },
	{ "negt", FPQ(0x16, 0x21), Q_FPZ1(Q_IEEE_NEG) },
	{ "subt", FPQ(0x16, 0x21), Q_FP(Q_IEEE) },
	{ "mult", FPQ(0x16, 0x22), Q_FP(Q_IEEE) },
	{ "divt", FPQ(0x16, 0x23), Q_FP(Q_IEEE) },
	{ "cmptun", FPQ(0x16, 0x24), Q_FP(Q_IEEE_CMP) },
	{ "cmpteq", FPQ(0x16, 0x25), Q_FP(Q_IEEE_CMP) },
	{ "cmptlt", FPQ(0x16, 0x26), Q_FP(Q_IEEE_CMP) },
	{ "cmptle", FPQ(0x16, 0x27), Q_FP(Q_IEEE_CMP) },
	{ "cvtts", FPQ(0x16, 0x2c), Q_FPZ1(Q_IEEE) },
	{ "cvtst", FPQ(0x16, 0x2c), Q_FPZ1(Q_CVTST) },
	{ "cvttq", FPQ(0x16, 0x2f), Q_FPZ1(Q_IEEE_V) },
	{ "cvtqs", FPQ(0x16, 0x3c), Q_FPZ1(Q_IEEE_CVTQ) },
	{ "cvtqt", FPQ(0x16, 0x3e), Q_FPZ1(Q_IEEE_CVTQ) },

	{ "cvtlq", FP(0x17, 0x010), A_FPZ1 },
	{ "fnop", FP(0x17, 0x020), 0, { ARG_ZA, ARG_ZB, ARG_ZC } },
	{ "fclr", FP(0x17, 0x020), 0, { ARG_ZA, ARG_ZB, ARG_FC } },
	{ "fabs", FP(0x17, 0x020), A_FPZ1 },
	{ "fmov", FP(0x17, 0x020), 0, { ARG_FA, ARG_RBA, ARG_FC } },
	{ "cpys", FP(0x17, 0x020), A_FP },
	{ "fneg", FP(0x17, 0x021), 0, { ARG_FA, ARG_RBA, ARG_FC } },
	{ "cpysn", FP(0x17, 0x021), A_FP },
	{ "cpyse", FP(0x17, 0x022), A_FP },
	{ "mt_fpcr", FP(0x17, 0x024), 0, { ARG_FA, ARG_RBA, ARG_RCA } },
	{ "mf_fpcr", FP(0x17, 0x025), 0, { ARG_FA, ARG_RBA, ARG_RCA } },
	{ "fcmoveq", FP(0x17, 0x02a), A_FP },
	{ "fcmovne", FP(0x17, 0x02b), A_FP },
	{ "fcmovlt", FP(0x17, 0x02c), A_FP },
	{ "fcmovge", FP(0x17, 0x02d), A_FP },
	{ "fcmovle", FP(0x17, 0x02e), A_FP },
	{ "fcmovgt", FP(0x17, 0x02f), A_FP },
	{ "cvtql", FPQ(0x17, 0x30), Q_FPZ1(Q_CVTQL) },

	{ "trapb", MFC(0x18, 0x0000), A_NONE },
	{ "excb", MFC(0x18, 0x0400), A_NONE },
	{ "mb", MFC(0x18, 0x4000), A_NONE },
	{ "wmb", MFC(0x18, 0x4400), A_NONE },
	{ "fetch", MFC(0x18, 0x8000), 0, { ARG_ZA, ARG_PRB } },
	{ "fetch_m", MFC(0x18, 0xa000), 0, { ARG_ZA, ARG_PRB } },
	{ "rpcc", MFC(0x18, 0xc000), 0, { ARG_RA, ARG_ZB } },
	{ "rpcc", MFC(0x18, 0xc000), 0, { ARG_RA, ARG_RB } },
	{ "rc", MFC(0x18, 0xe000), 0, { ARG_RA } },
	{ "ecb", MFC(0x18, 0xe800), 0, { ARG_ZA, ARG_PRB } },
	{ "rs", MFC(0x18, 0xf000), 0, { ARG_RA } },
	{ "wh64", MFC(0x18, 0xf800), 0, { ARG_ZA, ARG_PRB } },
	{ "wh64en", MFC(0x18, 0xfc00), 0, { ARG_ZA, ARG_PRB } },

	{ "pal19", PCD(0x19), A_PCD },

	/* jmp without a hint; ret zero,(ra),1 */
	{ "jmp", OP(0x1a), OP_MASK | 0xffff, 0, { ARG_ZA, ARG_CPRB } },
	{ "jmp", MBR(0x1a, 0), 0, { ARG_RA, ARG_CPRB, ARG_JHINT } },
	{ "jsr", MBR(0x1a, 1), 0, { ARG_RA, ARG_CPRB, ARG_JHINT } },
	{ "ret", OP(0x1a) | (2 << 14) | (31 << 21) | (26 << 16) | 1, 0xffffffffu, A_NONE },
	{ "ret", MBR(0x1a, 2), 0, { ARG_RA, ARG_CPRB, ARG_RHINT } },
	{ "jcr", MBR(0x1a, 3), 0, { ARG_RA, ARG_CPRB, ARG_RHINT } }, /* jsr_coroutine */

	{ "pal1b", PCD(0x1b), A_PCD },

	{ "sextb", OPR(0x1c, 0x00), A_OPRZ1 },
	{ "sextw", OPR(0x1c, 0x01), A_OPRZ1 },
	{ "ctpop", OPR(0x1c, 0x30), A_OPRZ1 },
	{ "perr", OPR(0x1c, 0x31), A_OPR },
	{ "ctlz", OPR(0x1c, 0x32), A_OPRZ1 },
	{ "cttz", OPR(0x1c, 0x33), A_OPRZ1 },
	{ "unpkbw", OPR(0x1c, 0x34), A_OPRZ1 },
	{ "unpkbl", OPR(0x1c, 0x35), A_OPRZ1 },
	{ "pkwb", OPR(0x1c, 0x36), A_OPRZ1 },
	{ "pklb", OPR(0x1c, 0x37), A_OPRZ1 },
	OPR2("minsb8", 0x1c, 0x38),
	OPR2("minsw4", 0x1c, 0x39),
	OPR2("minub8", 0x1c, 0x3a),
	OPR2("minuw4", 0x1c, 0x3b),
	OPR2("maxub8", 0x1c, 0x3c),
	OPR2("maxuw4", 0x1c, 0x3d),
	OPR2("maxsb8", 0x1c, 0x3e),
	OPR2("maxsw4", 0x1c, 0x3f),
	{ "ftoit", FP(0x1c, 0x70), 0, { ARG_FA, ARG_ZB, ARG_RC } },
	{ "ftois", FP(0x1c, 0x78), 0, { ARG_FA, ARG_ZB, ARG_RC } },

	{ "pal1d", PCD(0x1d), A_PCD },
	{ "pal1e", PCD(0x1e), A_PCD },
	{ "pal1f", PCD(0x1f), A_PCD },

	{ "ldf", MEM(0x20), A_FMEM },
	{ "ldg", MEM(0x21), A_FMEM },
	{ "lds", MEM(0x22), A_FMEM },
	{ "ldt", MEM(0x23), A_FMEM },
	{ "stf", MEM(0x24), A_FMEM },
	{ "stg", MEM(0x25), A_FMEM },
	{ "sts", MEM(0x26), A_FMEM },
	{ "stt", MEM(0x27), A_FMEM },
	{ "ldl", MEM(0x28), A_MEM },
	{ "ldq", MEM(0x29), A_MEM },
	{ "ldl_l", MEM(0x2a), A_MEM },
	{ "ldq_l", MEM(0x2b), A_MEM },
	{ "stl", MEM(0x2c), A_MEM },
	{ "stq", MEM(0x2d), A_MEM },
	{ "stl_c", MEM(0x2e), A_MEM },
	{ "stq_c", MEM(0x2f), A_MEM },

	{ "br", BRA(0x30), 0, { ARG_ZA, ARG_BDISP } },
	{ "br", BRA(0x30), A_BRA },
	{ "fbeq", BRA(0x31), A_FBRA },
	{ "fblt", BRA(0x32), A_FBRA },
	{ "fble", BRA(0x33), A_FBRA },
	{ "bsr", BRA(0x34), A_BRA },
	{ "fbne", BRA(0x35), A_FBRA },
	{ "fbge", BRA(0x36), A_FBRA },
	{ "fbgt", BRA(0x37), A_FBRA },
	{ "blbc", BRA(0x38), A_BRA },
	{ "beq", BRA(0x39), A_BRA },
	{ "blt", BRA(0x3a), A_BRA },
	{ "ble", BRA(0x3b), A_BRA },
	{ "blbs", BRA(0x3c), A_BRA },
	{ "bne", BRA(0x3d), A_BRA },
	{ "bge", BRA(0x3e), A_BRA },
	{ "bgt", BRA(0x3f), A_BRA },
};

/* clang-format on */

#define ALPHA_NOPS (sizeof(alpha_ops) / sizeof(alpha_ops[0]))

static const char *const alpha_regs[32] = {
	"v0", "t0", "t1",  "t2",  "t3", "t4",  "t5", "t6", "t7", "s0",	 "s1",
	"s2", "s3", "s4",  "s5",  "fp", "a0",  "a1", "a2", "a3", "a4",	 "a5",
	"t8", "t9", "t10", "t11", "ra", "t12", "at", "gp", "sp", "zero",
};

#define RA(i) (((i) >> 21) & 0x1f)
#define RB(i) (((i) >> 16) & 0x1f)
#define RC(i) ((i)&0x1f)

uint32_t alpha_disasm_word(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

/* Whether the fields an entry's Z/RBA/RCA operands constrain hold. */
static bool alpha_fields_ok(const struct alpha_op *op, uint32_t insn)
{
	size_t k;

	for (k = 0; k < 3 && op->args[k] != ARG_END; k++) {
		switch (op->args[k]) {
		case ARG_ZA:
			if (RA(insn) != 31)
				return false;
			break;
		case ARG_ZB:
			if (RB(insn) != 31)
				return false;
			break;
		case ARG_ZC:
			if (RC(insn) != 31)
				return false;
			break;
		case ARG_RBA:
			if (RB(insn) != RA(insn))
				return false;
			break;
		case ARG_RCA:
			if (RC(insn) != RA(insn))
				return false;
			break;
		default:
			break;
		}
	}
	return true;
}

/* The qualifier suffix of insn for quals q ("" for none), or NULL when
 * this trap and rounding mode is not one of the operation's. */
static const char *alpha_qual(unsigned q, uint32_t insn, char *buf, size_t size)
{
	const struct alpha_quals *qs = &alpha_quals[q];
	unsigned trap = (insn >> 13) & 7, rnd = (insn >> 11) & 3;
	const char *t = qs->trap[trap], *r = qs->rnd_unnamed ? "" : alpha_rnd_names[rnd];

	if (!t || !(qs->rnd[trap] & (1u << rnd)))
		return NULL;
	if (!*t && !*r)
		return "";
	snprintf(buf, size, "/%s%s", t, r);
	return buf;
}

static const struct alpha_op *alpha_find(uint32_t insn, const char **qual, char *qbuf, size_t qsize)
{
	size_t lo = 0, hi = ALPHA_NOPS, i;
	uint32_t major = insn & OP_MASK;

	/* The first entry of the major opcode. */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if ((alpha_ops[mid].match & OP_MASK) < major)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (i = lo; i < ALPHA_NOPS && (alpha_ops[i].match & OP_MASK) == major; i++) {
		const struct alpha_op *op = &alpha_ops[i];

		if ((insn & op->mask) != op->match || !alpha_fields_ok(op, insn))
			continue;
		*qual = op->quals ? alpha_qual(op->quals, insn, qbuf, qsize) : "";
		if (*qual)
			return op;
	}
	return NULL;
}

static int32_t alpha_sext(uint32_t v, unsigned bits)
{
	uint32_t sign = 1u << (bits - 1);

	return (int32_t)((v ^ sign) - sign);
}

bool alpha_disasm_insn(uint32_t insn, uint64_t pc, char *buf, size_t size)
{
	const struct alpha_op *op;
	const char *qual;
	char qbuf[8];
	size_t pos, k;
	bool comma = false;

	if (!size)
		return false;
	op = alpha_find(insn, &qual, qbuf, sizeof(qbuf));
	if (!op) {
		snprintf(buf, size, ".long %#08x", insn);
		return false;
	}
	pos = (size_t)snprintf(buf, size, "%s%s", op->name, qual);
	for (k = 0; k < 3 && op->args[k] != ARG_END && pos < size; k++) {
		enum alpha_arg a = op->args[k];
		const char *sep = comma ? "," : "";
		int w = 0;

		if (!comma && pos < size)
			sep = " ";
		switch (a) {
		case ARG_ZA:
		case ARG_ZB:
		case ARG_ZC:
		case ARG_RBA:
		case ARG_RCA:
			continue;
		case ARG_RA:
			w = snprintf(buf + pos, size - pos, "%s%s", sep, alpha_regs[RA(insn)]);
			break;
		case ARG_RB:
			w = snprintf(buf + pos, size - pos, "%s%s", sep, alpha_regs[RB(insn)]);
			break;
		case ARG_RC:
			w = snprintf(buf + pos, size - pos, "%s%s", sep, alpha_regs[RC(insn)]);
			break;
		case ARG_FA:
			w = snprintf(buf + pos, size - pos, "%s$f%u", sep, RA(insn));
			break;
		case ARG_FB:
			w = snprintf(buf + pos, size - pos, "%s$f%u", sep, RB(insn));
			break;
		case ARG_FC:
			w = snprintf(buf + pos, size - pos, "%s$f%u", sep, RC(insn));
			break;
		case ARG_PRB:
			/* Right after a displacement: "8(a0)". */
			w = snprintf(buf + pos, size - pos, "%s(%s)", comma ? "" : " ",
				     alpha_regs[RB(insn)]);
			break;
		case ARG_CPRB:
			w = snprintf(buf + pos, size - pos, "%s(%s)", sep, alpha_regs[RB(insn)]);
			break;
		case ARG_LIT:
			w = snprintf(buf + pos, size - pos, "%s%#x", sep, (insn >> 13) & 0xff);
			break;
		case ARG_MDISP:
			w = snprintf(buf + pos, size - pos, "%s%d", sep,
				     alpha_sext(insn & 0xffff, 16));
			break;
		case ARG_PALFN:
			w = snprintf(buf + pos, size - pos, "%s%#x", sep, insn & 0x3ffffff);
			break;
		case ARG_RHINT:
			w = snprintf(buf + pos, size - pos, "%s%#x", sep, insn & 0x3fff);
			break;
		case ARG_BDISP:
		case ARG_JHINT: {
			uint64_t to = 0;

			alpha_disasm_target(insn, pc, &to);
			w = snprintf(buf + pos, size - pos, "%s%llx", sep, (unsigned long long)to);
			break;
		}
		case ARG_END:
			break;
		}
		if (w > 0)
			pos += (size_t)w;
		comma = true;
	}
	return true;
}

bool alpha_disasm_target(uint32_t insn, uint64_t pc, uint64_t *target)
{
	unsigned major = insn >> 26;

	if (major >= 0x30) {
		*target = pc + 4 + (uint64_t)(int64_t)alpha_sext(insn & 0x1fffff, 21) * 4;
		return true;
	}
	/* jmp and jsr carry a hint; ret and jsr_coroutine a number. */
	if (major == 0x1a && ((insn >> 14) & 3) < 2) {
		*target = pc + 4 + (uint64_t)(int64_t)alpha_sext(insn & 0x3fff, 14) * 4;
		return true;
	}
	return false;
}
