/* symlookup [--symfs DIR] [--debug-path] [--no-demangle] FILE ADDR...: the function name
 * proftop gives each ELF virtual address of FILE, one per line ("??" when
 * none), through the same machine and debug-file search as a live session
 * (the file is mapped as if a process had it at 0x10000000).  For comparing
 * with `eu-addr2line -f -e FILE ADDR...` (tests/integration/debugfiles.sh). */
#include "config.h"

#include <inttypes.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "demangle.h"
#include "elfsyms.h"
#include "machine.h"
#include "symtab.h"

#define BASE 0x10000000ull
#define PID 4242u

int main(int argc, char **argv)
{
	struct machine *m = machine_new();
	struct elfsyms_image img;
	bool show_debug = false;
	char *file;
	size_t i;
	int a = 1;

	for (; a < argc && argv[a][0] == '-'; a++) {
		if (strcmp(argv[a], "--symfs") == 0 && a + 1 < argc)
			machine_set_symfs(m, argv[++a]);
		else if (strcmp(argv[a], "--debug-path") == 0)
			show_debug = true;
		else if (strcmp(argv[a], "--no-demangle") == 0)
			demangle_set_enabled(false);
		else
			break;
	}
	if (a >= argc) {
		fprintf(stderr, "usage: symlookup [--symfs DIR] [--debug-path] [--no-demangle] "
				"FILE ADDR...\n");
		return 2;
	}
	/* Mapped paths are absolute, and the debug link is looked up beside. */
	file = realpath(argv[a], NULL);
	if (!file)
		file = argv[a];
	a++;
	if (elfsyms_load(file, &img) != 0) {
		fprintf(stderr, "symlookup: %s: not an ELF file\n", file);
		return 1;
	}
	/* One map per PT_LOAD, as the dynamic loader lays them out. */
	for (i = 0; i < img.nsegs; i++) {
		const struct elfsyms_segment *s = &img.segs[i];
		struct mmap_event ev = { 0 };
		uint64_t skew = s->vaddr & 0xfff;

		ev.pid = ev.tid = PID;
		ev.start = BASE + s->vaddr - skew;
		ev.len = s->filesz + skew;
		ev.pgoff = s->offset - skew;
		ev.prot = 1 | 4;    /* PROT_READ | PROT_EXEC */
		ev.filename = file;
		machine_mmap(m, &ev);
	}
	elfsyms_release(&img);
	for (; a < argc; a++) {
		uint64_t addr = strtoull(argv[a], NULL, 0);
		struct resolved r;

		machine_resolve(m, PID, PID, PERF_RECORD_MISC_USER, BASE + addr, &r);
		printf("%s\n", r.sym ? demangle_display(r.sym->name) : "??");
		if (show_debug && r.dso) {
			const char *dp = dso_debug_path(r.dso);

			fprintf(stderr, "debug: %s\n", dp ? dp : "(none)");
			show_debug = false;
		}
	}
	machine_free(m);
	return 0;
}
