/* Our own process's vdso: the kernel maps the same image into every
 * process of our ABI, so its symbols name [vdso] code in all of them. */
#ifndef PROFTOP_VDSO_H
#define PROFTOP_VDSO_H

#include <stddef.h>

/* Find our vdso (getauxval(AT_SYSINFO_EHDR)) and its size: the end of
 * its furthest PT_LOAD or of its section headers, whichever is later.
 * *map_size is that rounded up to pages: the length of a [vdso] mapping
 * of the same image.  Returns 0, -ENOENT (no vdso) or -ENOEXEC (not a
 * native ELF image). */
int vdso_self(const void **image, size_t *size, size_t *map_size);

#endif
