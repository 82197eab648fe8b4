/* bench/cfiload [-r N] FILE...: the time symbols/cfi.c takes to read every
 * FDE range of each FILE's .eh_frame, next to libdw doing the same work
 * through its public API (dwarf_getcfi_elf, then dwarf_cfi_addrframe and
 * dwarf_frame_info at each FDE start), best of N runs (default 3), in
 * thread CPU milliseconds.  libdw's dwarf_frame_info gives the range of
 * one row of the FDE's table, not the FDE's: its "ends" are counted where
 * they fall short.  Not part of make bench: there is no perf figure. */
#include "config.h"

#include <elfutils/libdw.h>
#include <fcntl.h>
#include <gelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cfi.h"
#include "util.h"

struct range {
	uint64_t start, end;
};

struct ranges {
	struct range *v;
	size_t n, cap;
};

static void cfiload_add(uint64_t start, uint64_t end, void *arg)
{
	struct ranges *r = arg;

	r->v = xgrow(r->v, &r->cap, r->n + 1, sizeof(*r->v));
	r->v[r->n].start = start;
	r->v[r->n++].end = end;
}

static double cfiload_cpu_ms(void)
{
	struct timespec t;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
	return (double)t.tv_sec * 1e3 + (double)t.tv_nsec / 1e6;
}

/* .eh_frame of elf as a cfi_section, or false. */
static bool cfiload_section(Elf *elf, struct cfi_section *sec)
{
	Elf_Scn *scn = NULL;
	size_t shstrndx;
	GElf_Ehdr eh;
	GElf_Shdr sh;

	if (!gelf_getehdr(elf, &eh) || elf_getshdrstrndx(elf, &shstrndx) != 0)
		return false;
	while ((scn = elf_nextscn(elf, scn)) != NULL) {
		const char *name;
		Elf_Data *d;

		if (!gelf_getshdr(scn, &sh) || !(name = elf_strptr(elf, shstrndx, sh.sh_name)) ||
		    strcmp(name, ".eh_frame") != 0 || !(d = elf_rawdata(scn, NULL)))
			continue;
		memset(sec, 0, sizeof(*sec));
		sec->buf = d->d_buf;
		sec->size = d->d_size;
		sec->addr = sh.sh_addr;
		sec->eh = true;
		sec->msb = eh.e_ident[EI_DATA] == ELFDATA2MSB;
		sec->addr_size = eh.e_ident[EI_CLASS] == ELFCLASS32 ? 4 : 8;
		return true;
	}
	return false;
}

int main(int argc, char **argv)
{
	int reps = 3, a = 1, k;

	if (argc > 2 && strcmp(argv[1], "-r") == 0) {
		reps = atoi(argv[2]);
		a = 3;
	}
	if (a >= argc || reps < 1) {
		fprintf(stderr, "usage: bench/cfiload [-r N] FILE...\n");
		return 2;
	}
	elf_version(EV_CURRENT);
	printf("%-28s %8s %10s %10s %8s %10s\n", "file", "FDEs", "ours ms", "libdw ms", "ratio",
	       "libdw short");
	for (; a < argc; a++) {
		double ours = 1e30, dw = 1e30, t0;
		struct ranges r = { 0 };
		struct cfi_section sec;
		size_t i, shorter = 0;
		int fd = open(argv[a], O_RDONLY);
		Elf *elf = fd >= 0 ? elf_begin(fd, ELF_C_READ, NULL) : NULL;

		if (!elf || !cfiload_section(elf, &sec)) {
			fprintf(stderr, "cfiload: %s: no .eh_frame\n", argv[a]);
			return 1;
		}
		/* Both sides read the section from the file each time. */
		for (k = 0; k < reps; k++) {
			Elf *e2 = elf_begin(fd, ELF_C_READ, NULL);
			struct cfi_section s2;

			r.n = 0;
			t0 = cfiload_cpu_ms();
			if (e2 && cfiload_section(e2, &s2))
				cfi_walk(&s2, cfiload_add, &r);
			if (cfiload_cpu_ms() - t0 < ours)
				ours = cfiload_cpu_ms() - t0;
			elf_end(e2);
		}
		for (k = 0; k < reps; k++) {
			/* A fresh Elf each time: libdw caches the CFI per Elf. */
			Elf *e2 = elf_begin(fd, ELF_C_READ, NULL);
			Dwarf_CFI *cfi;

			t0 = cfiload_cpu_ms();
			cfi = dwarf_getcfi_elf(e2);
			shorter = 0;
			for (i = 0; cfi && i < r.n; i++) {
				Dwarf_Frame *frame = NULL;
				Dwarf_Addr s, e;

				if (dwarf_cfi_addrframe(cfi, r.v[i].start, &frame) == 0 &&
				    dwarf_frame_info(frame, &s, &e, NULL) >= 0 && e < r.v[i].end)
					shorter++;
				free(frame);
			}
			if (cfiload_cpu_ms() - t0 < dw)
				dw = cfiload_cpu_ms() - t0;
			if (cfi)
				dwarf_cfi_end(cfi);
			elf_end(e2);
		}
		printf("%-28.28s %8zu %10.2f %10.2f %7.1fx %10zu\n", strrchr(argv[a], '/') ?
		       strrchr(argv[a], '/') + 1 : argv[a], r.n, ours, dw, ours > 0 ? dw / ours : 0.0,
		       shorter);
		free(r.v);
		elf_end(elf);
		close(fd);
	}
	return 0;
}
