/* Disassembly with Capstone 4 (x86-64, i386, AArch64, ARM); without
 * Capstone, or for another machine, the caller shows raw bytes.
 * Capstone is loaded with dlopen at the first disassembly, not linked:
 * linked, it was 3.2 MB of a 17 MB live proftop's RSS (its tables,
 * touched by 82,656 relocations at every start) for a feature most runs
 * never use (issue 15's RSS target: at most 0.5x perf top's). */
#include "config.h"

#include "disasm.h"

#include <elf.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#ifdef HAVE_CAPSTONE
#include <capstone/capstone.h>
#include <dlfcn.h>
#include <pthread.h>
#endif

#include "errmsg.h"
#include "util.h"

bool disasm_parse_syntax(const char *s, enum disasm_syntax *out)
{
	if (strcmp(s, "intel") == 0)
		*out = DISASM_INTEL;
	else if (strcmp(s, "att") == 0)
		*out = DISASM_ATT;
	else
		return false;
	return true;
}

void disasm_raw(const uint8_t *code, size_t len, uint64_t addr, struct disasm_insn **out,
		size_t *n)
{
	struct disasm_insn *v;
	size_t i, k, nr = (len + DISASM_RAW_LINE - 1) / DISASM_RAW_LINE;

	v = xcalloc(nr ? nr : 1, sizeof(*v));
	for (i = 0; i < nr; i++) {
		struct disasm_insn *di = &v[i];
		size_t off = i * DISASM_RAW_LINE, pos = 0;

		di->addr = addr + off;
		di->size = (uint8_t)(len - off < DISASM_RAW_LINE ? len - off : DISASM_RAW_LINE);
		memcpy(di->bytes, code + off, di->size);
		for (k = 0; k < di->size; k++)
			pos += (size_t)snprintf(di->text + pos, sizeof(di->text) - pos, "%s%02x",
						k ? " " : "", di->bytes[k]);
	}
	*out = v;
	*n = nr;
}

#ifdef HAVE_CAPSTONE
#define DISASM_STR_(x) #x
#define DISASM_STR(x) DISASM_STR_(x)
/* The soname follows the API's major number (libcapstone.so.4 for 4.x,
 * .so.5 for 5.x): the library built against, not another one. */
#define DISASM_CAPSTONE_SONAME "libcapstone.so." DISASM_STR(CS_API_MAJOR)

/* The functions used, from the library loaded at the first use. */
static struct {
	cs_err (*open)(cs_arch, cs_mode, csh *);
	cs_err (*option)(csh, cs_opt_type, size_t);
	cs_insn *(*insn_new)(csh);
	bool (*disasm_iter)(csh, const uint8_t **, size_t *, uint64_t *, cs_insn *);
	bool (*insn_group)(csh, const cs_insn *, unsigned int);
	void (*insn_free)(cs_insn *, size_t);
	cs_err (*close)(csh *);
	char why[160];                  /* why it could not be loaded, or "" */
} cs;
static pthread_once_t disasm_cs_once = PTHREAD_ONCE_INIT;

static void disasm_cs_load(void)
{
	void *lib = dlopen(DISASM_CAPSTONE_SONAME, RTLD_NOW | RTLD_LOCAL);
	const char *err;

	if (!lib) {
		snprintf(cs.why, sizeof(cs.why), "cannot load Capstone: %s", dlerror());
		return;
	}
	*(void **)&cs.open = dlsym(lib, "cs_open");
	*(void **)&cs.option = dlsym(lib, "cs_option");
	*(void **)&cs.insn_new = dlsym(lib, "cs_malloc");
	*(void **)&cs.disasm_iter = dlsym(lib, "cs_disasm_iter");
	*(void **)&cs.insn_group = dlsym(lib, "cs_insn_group");
	*(void **)&cs.insn_free = dlsym(lib, "cs_free");
	*(void **)&cs.close = dlsym(lib, "cs_close");
	if (!cs.open || !cs.option || !cs.insn_new || !cs.disasm_iter || !cs.insn_group ||
	    !cs.insn_free || !cs.close) {
		err = dlerror();
		snprintf(cs.why, sizeof(cs.why), "%s lacks a function: %s",
			 DISASM_CAPSTONE_SONAME, err ? err : "?");
		cs.open = NULL;
		dlclose(lib);
	}
}

bool disasm_loaded(void)
{
	return cs.open != NULL;
}

/* An instruction that did not decode: one byte, as objdump's "(bad)" does. */
static void disasm_bad_byte(struct disasm_insn *di, uint64_t addr, uint8_t byte)
{
	di->addr = addr;
	di->size = 1;
	di->bytes[0] = byte;
	snprintf(di->text, sizeof(di->text), ".byte 0x%02x", byte);
}

/* "mnemonic operands", cut to the line: without snprintf, which took a
 * fifth of a big function's decoding. */
static void disasm_text(struct disasm_insn *di, const char *mnemonic, const char *ops)
{
	size_t max = sizeof(di->text) - 1, m = strlen(mnemonic), o = 0;

	if (m > max)
		m = max;
	memcpy(di->text, mnemonic, m);
	if (ops[0] && m + 1 < max) {
		di->text[m++] = ' ';
		o = strlen(ops);
		if (o > max - m)
			o = max - m;
		memcpy(di->text + m, ops, o);
	}
	di->text[m + o] = '\0';
}

/* A direct jump's or call's destination: its immediate operand. */
static bool disasm_imm_target(cs_arch arch, const cs_insn *insn, uint64_t *target)
{
	const cs_detail *d = insn->detail;
	int i;

	switch (arch) {
	case CS_ARCH_X86:
		for (i = 0; i < d->x86.op_count; i++)
			if (d->x86.operands[i].type == X86_OP_IMM) {
				*target = (uint64_t)d->x86.operands[i].imm;
				return true;
			}
		return false;
	case CS_ARCH_ARM64:
		/* cbz x0, #t and tbz x0, #3, #t: the target is the last. */
		for (i = d->arm64.op_count - 1; i >= 0; i--)
			if (d->arm64.operands[i].type == ARM64_OP_IMM) {
				*target = (uint64_t)d->arm64.operands[i].imm;
				return true;
			}
		return false;
	case CS_ARCH_ARM:
		for (i = d->arm.op_count - 1; i >= 0; i--)
			if (d->arm.operands[i].type == ARM_OP_IMM) {
				*target = (uint32_t)d->arm.operands[i].imm;
				return true;
			}
		return false;
	default:
		return false;
	}
}

/* Whether insn jumps or calls somewhere it names: di's flow and target. */
static void disasm_flow(csh h, cs_arch arch, const cs_insn *insn, struct disasm_insn *di)
{
	uint64_t target;
	bool call = cs.insn_group(h, insn, CS_GRP_CALL);

	if (!call && !cs.insn_group(h, insn, CS_GRP_JUMP))
		return;
	if (!disasm_imm_target(arch, insn, &target))
		return;
	di->flow = call ? DISASM_FLOW_CALL : DISASM_FLOW_JUMP;
	di->target = target;
}

static bool disasm_arch(int e_machine, cs_arch *arch, cs_mode *mode)
{
	switch (e_machine) {
	case EM_X86_64:
		*arch = CS_ARCH_X86;
		*mode = CS_MODE_64;
		return true;
	case EM_386:
		*arch = CS_ARCH_X86;
		*mode = CS_MODE_32;
		return true;
	case EM_AARCH64:
		*arch = CS_ARCH_ARM64;
		*mode = CS_MODE_ARM;
		return true;
	case EM_ARM:
		*arch = CS_ARCH_ARM;
		*mode = CS_MODE_ARM;
		return true;
	default:
		return false;
	}
}

int disasm_decode(int e_machine, enum disasm_syntax syntax, const uint8_t *code, size_t len,
		  uint64_t addr, struct disasm_insn **out, size_t *n, struct errmsg *em)
{
	struct disasm_insn *v = NULL;
	size_t nr = 0, cap = 0;
	cs_arch arch;
	cs_mode mode;
	csh h;
	cs_insn *insn;

	if (!disasm_arch(e_machine, &arch, &mode))
		return errmsg_set(em, -ENOTSUP, "no disassembler for ELF machine %d", e_machine);
	pthread_once(&disasm_cs_once, disasm_cs_load);
	if (!cs.open)
		return errmsg_set(em, -ENOTSUP, "%s", cs.why);
	if (cs.open(arch, mode, &h) != CS_ERR_OK)
		return errmsg_set(em, -ENOTSUP, "Capstone cannot open ELF machine %d", e_machine);
	if (arch == CS_ARCH_X86)
		cs.option(h, CS_OPT_SYNTAX,
			  syntax == DISASM_INTEL ? CS_OPT_SYNTAX_INTEL : CS_OPT_SYNTAX_ATT);
	/* The operands and groups: which instructions jump, and where. */
	cs.option(h, CS_OPT_DETAIL, CS_OPT_ON);
	insn = cs.insn_new(h);
	while (len) {
		const uint8_t *p = code;
		size_t left = len;
		uint64_t at = addr;
		struct disasm_insn *di;

		v = xgrow(v, &cap, nr + 1, sizeof(*v));
		di = &v[nr++];
		memset(di, 0, sizeof(*di));
		/* cs_disasm_iter: no allocation per instruction. */
		if (!cs.disasm_iter(h, &p, &left, &at, insn) || insn->size > DISASM_INSN_MAX) {
			disasm_bad_byte(di, addr, code[0]);
		} else {
			di->addr = addr;
			di->size = (uint8_t)insn->size;
			memcpy(di->bytes, code, insn->size);
			disasm_text(di, insn->mnemonic, insn->op_str);
			disasm_flow(h, arch, insn, di);
		}
		code += di->size;
		len -= di->size;
		addr += di->size;
	}
	cs.insn_free(insn, 1);
	cs.close(&h);
	*out = v;
	*n = nr;
	return 0;
}
#else
bool disasm_loaded(void)
{
	return false;
}

int disasm_decode(int e_machine, enum disasm_syntax syntax, const uint8_t *code, size_t len,
		  uint64_t addr, struct disasm_insn **out, size_t *n, struct errmsg *em)
{
	(void)e_machine;
	(void)syntax;
	(void)code;
	(void)len;
	(void)addr;
	(void)out;
	(void)n;
	return errmsg_set(em, -ENOTSUP,
			  "built without Capstone (apt-get install libcapstone-dev, then ./configure)");
}
#endif
