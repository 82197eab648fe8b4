/* The x86_64 PLT: its entries named func@plt, as perf and objdump name
 * them, from the relocations that fill their GOT slots (.rela.plt for
 * .plt/.plt.sec, .rela.dyn for .plt.got), where no real symbol is. */
#include "config.h"

#include "elfplt.h"

#include <gelf.h>
#include <stdlib.h>
#include <string.h>

#include "strbuf.h"
#include "symtab.h"
#include "util.h"

void elfplt_note(struct elfplt *plt, uint64_t start, uint64_t size)
{
	/* Sizeless: at least its own start is taken. */
	uint64_t end = size && start + size > start ? start + size : start + 1;

	if (!plt || start >= plt->hi || end <= plt->lo)
		return;
	plt->taken = xgrow(plt->taken, &plt->cap, plt->ntaken + 1, sizeof(*plt->taken));
	plt->taken[plt->ntaken].start = start;
	plt->taken[plt->ntaken].end = end;
	plt->ntaken++;
}


/* x86_64 PLT entries are 16 bytes: with IBT (.plt.sec) entry i is at
 * .plt.sec + 16 * i, else at .plt + 16 * (i + 1) after the PLT0 header. */
#define ELF_PLT_ENTRY 16

void elfplt_find(Elf *elf, struct elfplt_secs *ps, struct elfplt *plt)
{
	Elf_Scn *scn = NULL;
	size_t shstrndx;
	GElf_Shdr sh;

	memset(ps, 0, sizeof(*ps));
	if (elf_getshdrstrndx(elf, &shstrndx) != 0)
		return;
	while ((scn = elf_nextscn(elf, scn)) != NULL) {
		const char *name;

		if (!gelf_getshdr(scn, &sh) || !(name = elf_strptr(elf, shstrndx, sh.sh_name)))
			continue;
		/* Debug files keep the headers but not the bytes (NOBITS). */
		if (strcmp(name, ".rela.plt") == 0 && sh.sh_type == SHT_RELA) {
			ps->rela = scn;
			ps->relash = sh;
			ps->have_rela = true;
		} else if (strcmp(name, ".plt") == 0 && (sh.sh_flags & SHF_EXECINSTR)) {
			ps->pltsh = sh;
			ps->have_plt = true;
		} else if (strcmp(name, ".plt.sec") == 0 && (sh.sh_flags & SHF_EXECINSTR)) {
			ps->secsh = sh;
			ps->have_sec = true;
		} else if (strcmp(name, ".got.plt") == 0) {
			ps->gotsh = sh;
			ps->have_got = true;
		} else if (strcmp(name, ".rela.dyn") == 0 && sh.sh_type == SHT_RELA) {
			ps->reladyn = scn;
			ps->reladynsh = sh;
		} else if (strcmp(name, ".plt.got") == 0 && (sh.sh_flags & SHF_EXECINSTR) &&
			   sh.sh_type == SHT_PROGBITS) {
			ps->pltgot = scn;
			ps->pltgotsh = sh;
		}
	}
	plt->lo = UINT64_MAX;
	if (ps->pltgot && ps->reladyn) {
		plt->lo = ps->pltgotsh.sh_addr;
		plt->hi = ps->pltgotsh.sh_addr + ps->pltgotsh.sh_size;
	}
	if (!ps->have_rela || !(ps->have_plt || ps->have_sec)) {
		ps->have_plt = ps->have_sec = false;
		if (plt->hi <= plt->lo)
			plt->lo = plt->hi = 0;
		return;
	}
	if (ps->have_plt) {
		if (ps->pltsh.sh_addr < plt->lo)
			plt->lo = ps->pltsh.sh_addr;
		if (ps->pltsh.sh_addr + ps->pltsh.sh_size > plt->hi)
			plt->hi = ps->pltsh.sh_addr + ps->pltsh.sh_size;
	}
	if (ps->have_sec) {
		if (ps->secsh.sh_addr < plt->lo)
			plt->lo = ps->secsh.sh_addr;
		if (ps->secsh.sh_addr + ps->secsh.sh_size > plt->hi)
			plt->hi = ps->secsh.sh_addr + ps->secsh.sh_size;
	}
}

static bool elfplt_taken(const struct elfplt *plt, uint64_t addr)
{
	size_t i;

	for (i = 0; i < plt->ntaken; i++)
		if (addr >= plt->taken[i].start && addr < plt->taken[i].end)
			return true;
	return false;
}

/* Name the PLT entries func@plt from their R_X86_64_JUMP_SLOT relocations
 * (perf does the same): samples in them are otherwise [unknown]. */
static void elfplt_synth_jump_slots(Elf *elf, const struct elfplt_secs *ps,
				    const struct elfplt *plt, struct symtab *st)
{
	Elf_Data *rel, *dyn;
	Elf_Scn *dynscn;
	GElf_Shdr dynsh;
	uint64_t base, end;
	size_t i, nrel;
	struct strbuf name;

	if (!ps->have_plt && !ps->have_sec)
		return;
	rel = elf_getdata(ps->rela, NULL);
	dynscn = elf_getscn(elf, ps->relash.sh_link);
	if (!rel || !rel->d_buf || ps->relash.sh_entsize == 0 || !dynscn ||
	    !gelf_getshdr(dynscn, &dynsh) || dynsh.sh_type != SHT_DYNSYM || dynsh.sh_entsize == 0)
		return;
	dyn = elf_getdata(dynscn, NULL);
	if (!dyn || !dyn->d_buf)
		return;
	if (ps->have_sec) {
		base = ps->secsh.sh_addr;
		end = ps->secsh.sh_addr + ps->secsh.sh_size;
	} else {
		base = ps->pltsh.sh_addr + ELF_PLT_ENTRY;
		end = ps->pltsh.sh_addr + ps->pltsh.sh_size;
	}
	nrel = rel->d_size / ps->relash.sh_entsize;
	strbuf_init(&name);
	for (i = 0; i < nrel; i++) {
		uint64_t slot = i, addr;
		const char *sname;
		GElf_Rela r;
		GElf_Sym sym;

		if (!gelf_getrela(rel, (int)i, &r))
			continue;
		/* The slot is the entry's .got.plt word (after 3 reserved
		 * ones): linkers move IRELATIVE relocations to the end of
		 * .rela.plt, so the relocation's index is only a fallback. */
		if (ps->have_got && r.r_offset >= ps->gotsh.sh_addr + 24 &&
		    r.r_offset < ps->gotsh.sh_addr + ps->gotsh.sh_size)
			slot = (r.r_offset - ps->gotsh.sh_addr) / 8 - 3;
		addr = base + slot * ELF_PLT_ENTRY;
		if (slot > (end - base) / ELF_PLT_ENTRY || addr + ELF_PLT_ENTRY > end)
			continue;
		/* Only JUMP_SLOTs name a function (IRELATIVE has no symbol). */
		if (GELF_R_TYPE(r.r_info) != R_X86_64_JUMP_SLOT ||
		    GELF_R_SYM(r.r_info) >= dyn->d_size / dynsh.sh_entsize ||
		    !gelf_getsym(dyn, (int)GELF_R_SYM(r.r_info), &sym) ||
		    !(sname = elf_strptr(elf, dynsh.sh_link, sym.st_name)) || !*sname ||
		    elfplt_taken(plt, addr))
			continue;
		strbuf_reset(&name);
		strbuf_addstr(&name, sname);
		strbuf_addstr(&name, "@plt");
		symtab_add(st, addr, ELF_PLT_ENTRY, SYMTAB_LOCAL, name.buf, end);
	}
	strbuf_release(&name);
}

/* A GOT slot and the .dynsym index its R_X86_64_GLOB_DAT names. */
struct elfplt_gotslot {
	uint64_t addr;
	uint32_t sym;
};

static int elfplt_gotslot_cmp(const void *a, const void *b)
{
	const struct elfplt_gotslot *x = a, *y = b;

	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

/* The GOT slot an x86_64 .plt.got entry jumps through: the entry is
 * `jmp *disp32(%rip)` (ff 25), maybe after endbr64 (f3 0f 1e fa) and with
 * a bnd prefix (f2).  Returns false when the bytes are anything else. */
static bool elfplt_pltgot_target(const unsigned char *p, size_t len, uint64_t addr,
				 uint64_t *slot)
{
	size_t i = 0;
	int32_t disp;

	if (len >= 4 && p[0] == 0xf3 && p[1] == 0x0f && p[2] == 0x1e && p[3] == 0xfa)
		i = 4;
	if (i < len && p[i] == 0xf2)
		i++;
	if (i + 6 > len || p[i] != 0xff || p[i + 1] != 0x25)
		return false;
	disp = (int32_t)((uint32_t)p[i + 2] | (uint32_t)p[i + 3] << 8 |
			 (uint32_t)p[i + 4] << 16 | (uint32_t)p[i + 5] << 24);
	*slot = addr + i + 6 + (uint64_t)(int64_t)disp;
	return true;
}

/* Name the .plt.got entries func@plt, as perf and objdump do: the linker
 * puts there the PLT entries of functions whose address is also taken,
 * which jump through a GOT slot that an R_X86_64_GLOB_DAT relocation of
 * .rela.dyn fills with func.  Entries are 8 bytes, or 16 with IBT. */
static void elfplt_synth_pltgot(Elf *elf, const struct elfplt_secs *ps,
				const struct elfplt *plt, struct symtab *st)
{
	struct elfplt_gotslot *slots = NULL;
	size_t nslots = 0, cap = 0, i, nrel, nsyms, esize;
	const unsigned char *code;
	Elf_Data *rel, *dyn, *text;
	Elf_Scn *dynscn;
	GElf_Shdr dynsh;
	uint64_t base, size;
	struct strbuf name;

	if (!ps->pltgot || !ps->reladyn || ps->reladynsh.sh_entsize == 0)
		return;
	text = elf_getdata(ps->pltgot, NULL);
	rel = elf_getdata(ps->reladyn, NULL);
	dynscn = elf_getscn(elf, ps->reladynsh.sh_link);
	if (!text || !text->d_buf || !rel || !rel->d_buf || !dynscn ||
	    !gelf_getshdr(dynscn, &dynsh) || dynsh.sh_type != SHT_DYNSYM || dynsh.sh_entsize == 0)
		return;
	dyn = elf_getdata(dynscn, NULL);
	if (!dyn || !dyn->d_buf)
		return;
	nsyms = dyn->d_size / dynsh.sh_entsize;
	nrel = rel->d_size / ps->reladynsh.sh_entsize;
	for (i = 0; i < nrel; i++) {
		GElf_Rela r;

		if (!gelf_getrela(rel, (int)i, &r) || GELF_R_TYPE(r.r_info) != R_X86_64_GLOB_DAT ||
		    GELF_R_SYM(r.r_info) == 0 || GELF_R_SYM(r.r_info) >= nsyms)
			continue;
		slots = xgrow(slots, &cap, nslots + 1, sizeof(*slots));
		slots[nslots].addr = r.r_offset;
		slots[nslots].sym = (uint32_t)GELF_R_SYM(r.r_info);
		nslots++;
	}
	if (!nslots)
		return;
	qsort(slots, nslots, sizeof(*slots), elfplt_gotslot_cmp);
	code = text->d_buf;
	size = text->d_size < ps->pltgotsh.sh_size ? text->d_size : ps->pltgotsh.sh_size;
	base = ps->pltgotsh.sh_addr;
	/* With IBT every entry starts with endbr64 and is 16 bytes. */
	esize = size >= 4 && code[0] == 0xf3 && code[1] == 0x0f && code[2] == 0x1e &&
		code[3] == 0xfa ? 16 : 8;
	strbuf_init(&name);
	for (i = 0; i + esize <= size; i += esize) {
		struct elfplt_gotslot key, *hit;
		const char *sname;
		uint64_t slot;
		GElf_Sym sym;

		if (!elfplt_pltgot_target(code + i, esize, base + i, &slot))
			continue;
		key.addr = slot;
		hit = bsearch(&key, slots, nslots, sizeof(*slots), elfplt_gotslot_cmp);
		if (!hit || !gelf_getsym(dyn, (int)hit->sym, &sym) ||
		    !(sname = elf_strptr(elf, dynsh.sh_link, sym.st_name)) || !*sname ||
		    elfplt_taken(plt, base + i))
			continue;
		strbuf_reset(&name);
		strbuf_addstr(&name, sname);
		strbuf_addstr(&name, "@plt");
		symtab_add(st, base + i, esize, SYMTAB_LOCAL, name.buf, base + size);
	}
	strbuf_release(&name);
	free(slots);
}

void elfplt_synth(Elf *elf, const struct elfplt_secs *ps, const struct elfplt *plt,
		  struct symtab *st)
{
	elfplt_synth_jump_slots(elf, ps, plt, st);
	elfplt_synth_pltgot(elf, ps, plt, st);
}
