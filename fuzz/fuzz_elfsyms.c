/* Fuzz target: the ELF symbol loader (symbols/elfsyms.c) on mutated
 * binaries, written to a temporary file as the loader reads files. */
#include "config.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "elfsyms.h"
#include "fuzz.h"
#include "symtab.h"

static char path[64];

static void cleanup(void)
{
	unlink(path);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	int fd;

	snprintf(path, sizeof(path), "/tmp/proftop-fuzz-elf.XXXXXX");
	fd = mkstemp(path);
	if (fd < 0)
		abort();
	close(fd);
	atexit(cleanup);
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct elfsyms_image img;
	uint8_t id[ELFSYMS_BUILD_ID_MAX];
	uint64_t vaddr;
	size_t i, n;
	int fd;

	fd = open(path, O_WRONLY | O_TRUNC | O_CLOEXEC);
	if (fd < 0 || write(fd, data, size) != (ssize_t)size)
		abort();
	close(fd);
	if (elfsyms_read_build_id(path, id) > ELFSYMS_BUILD_ID_MAX)
		abort();
	if (elfsyms_load(path, &img))
		return 0;
	if (!img.symtab || img.build_id_size > ELFSYMS_BUILD_ID_MAX)
		abort();
	n = symtab_count(img.symtab);
	for (i = 0; i < n; i++) {
		const struct symbol *s = symtab_get(img.symtab, i);

		(void)fuzz_touch(s->name, strlen(s->name));
		(void)symtab_lookup(img.symtab, s->start);
	}
	/* sub_<hex> functions from CFI (cfi.c): inside the code, never a
	 * start a real symbol covers. */
	n = img.cfi_symtab ? symtab_count(img.cfi_symtab) : 0;
	for (i = 0; i < n; i++) {
		const struct symbol *s = symtab_get(img.cfi_symtab, i);

		if (s->end <= s->start || symtab_lookup(img.symtab, s->start))
			abort();
		(void)fuzz_touch(s->name, strlen(s->name));
	}
	for (i = 0; i < img.nsegs; i++) {
		(void)elfsyms_offset_to_vaddr(&img, img.segs[i].offset, &vaddr);
		(void)elfsyms_offset_to_vaddr(&img, img.segs[i].offset + img.segs[i].filesz,
						&vaddr);
	}
	(void)elfsyms_offset_to_vaddr(&img, UINT64_MAX, &vaddr);
	elfsyms_release(&img);
	return 0;
}
