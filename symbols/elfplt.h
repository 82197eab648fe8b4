/* The x86_64 PLT's entries as func@plt symbols (elfsyms' helper). */
#ifndef PROFTOP_ELFPLT_H
#define PROFTOP_ELFPLT_H

#include <gelf.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct symtab;

/* The PLT sections, and the symbols found inside them: synthesized
 * func@plt names go only where no real symbol is. */
struct elfplt {
	uint64_t lo, hi;          /* union of .plt and .plt.sec; lo == hi: none */
	struct { uint64_t start, end; } *taken;
	size_t ntaken, cap;
};

/* The .plt / .plt.sec / .rela.plt sections, when the file has them, and
 * .plt.got with the .rela.dyn that names its GOT slots. */
struct elfplt_secs {
	Elf_Scn *rela, *reladyn, *pltgot;
	GElf_Shdr relash, pltsh, secsh, gotsh, reladynsh, pltgotsh;
	bool have_rela, have_plt, have_sec, have_got;
};


/* Find the PLT sections of elf: ps for elfplt_synth, plt's range (lo == hi:
 * none). */
void elfplt_find(Elf *elf, struct elfplt_secs *ps, struct elfplt *plt);
/* A real symbol at [start, start + size): no func@plt is made there
 * (plt NULL, or outside it: nothing). */
void elfplt_note(struct elfplt *plt, uint64_t start, uint64_t size);
/* Add func@plt for each PLT entry no noted symbol covers. */
void elfplt_synth(Elf *elf, const struct elfplt_secs *ps, const struct elfplt *plt,
		  struct symtab *st);

#endif
