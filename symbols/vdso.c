/* The vdso image of this process, located through the auxiliary vector
 * and sized from its own headers (it has no file to stat). */
#include "config.h"

#include "vdso.h"

#include <elf.h>
#include <errno.h>
#include <stdint.h>
#include <string.h>
#include <sys/auxv.h>
#include <unistd.h>

#if UINTPTR_MAX == 0xffffffffu
#define VDSO_CLASS ELFCLASS32
typedef Elf32_Ehdr vdso_ehdr;
typedef Elf32_Phdr vdso_phdr;
#else
#define VDSO_CLASS ELFCLASS64
typedef Elf64_Ehdr vdso_ehdr;
typedef Elf64_Phdr vdso_phdr;
#endif

int vdso_self(const void **image, size_t *size, size_t *map_size)
{
	const vdso_ehdr *eh = (const vdso_ehdr *)getauxval(AT_SYSINFO_EHDR);
	const vdso_phdr *ph;
	size_t end = sizeof(*eh), page = (size_t)sysconf(_SC_PAGESIZE);
	unsigned i;

	if (!eh)
		return -ENOENT;
	if (memcmp(eh->e_ident, ELFMAG, SELFMAG) != 0 || eh->e_ident[EI_CLASS] != VDSO_CLASS ||
	    eh->e_phentsize != sizeof(*ph) || eh->e_phoff == 0 || eh->e_phnum == 0)
		return -ENOEXEC;
	/* The program headers lie in the first page, which is mapped. */
	if (eh->e_phoff + (size_t)eh->e_phnum * sizeof(*ph) > page)
		return -ENOEXEC;
	ph = (const vdso_phdr *)((const char *)eh + eh->e_phoff);
	for (i = 0; i < eh->e_phnum; i++)
		if (ph[i].p_type == PT_LOAD && ph[i].p_offset + ph[i].p_filesz > end)
			end = ph[i].p_offset + ph[i].p_filesz;
	if (eh->e_shoff && eh->e_shoff + (size_t)eh->e_shnum * eh->e_shentsize > end)
		end = eh->e_shoff + (size_t)eh->e_shnum * eh->e_shentsize;
	/* Sanity: a vdso is a few pages, and the mapping must cover it. */
	if (end > 64 * page)
		return -ENOEXEC;
	*image = eh;
	*size = end;
	*map_size = (end + page - 1) / page * page;
	return 0;
}
