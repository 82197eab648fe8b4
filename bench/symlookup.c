/* Plain address -> function lookups: proftop's sorted table (elfsyms +
 * symtab_lookup) against libdwfl (dwfl_module_addrname), on one ELF file
 * (default: libc's separate debug file, else libc itself).  Prints the
 * load time of each (up to the first answer: libdwfl reads and sorts
 * lazily) and lookups per second over N random addresses of the file's
 * executable PT_LOAD, best of R rounds, and how often the two name the same
 * function.  libdwfl gets the first D of the addresses only (default
 * 20000): it is three orders of magnitude slower here.  Used by
 * bench/symlookup.sh (make bench).
 *
 *   bench/symlookup [-n LOOKUPS] [-d DWFL_LOOKUPS] [-r ROUNDS] [FILE]
 */
#include "config.h"

#include <elfutils/libdwfl.h>
#include <fcntl.h>
#include <gelf.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "elfsyms.h"
#include "symtab.h"

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* xorshift64*: the same addresses for both. */
static uint64_t rnd(uint64_t *s)
{
	*s ^= *s >> 12;
	*s ^= *s << 25;
	*s ^= *s >> 27;
	return *s * 0x2545f4914f6cdd1dULL;
}

static char *libc_debug_file(void)
{
	uint8_t id[ELFSYMS_BUILD_ID_MAX];
	const char *libc = "/lib/x86_64-linux-gnu/libc.so.6";
	char *path;
	int n = elfsyms_read_build_id(libc, id), i, off;

	if (access(libc, R_OK) != 0)
		libc = "/usr/lib/x86_64-linux-gnu/libc.so.6";
	n = elfsyms_read_build_id(libc, id);
	if (n > 1) {
		path = malloc(64 + 2 * (size_t)n);
		off = sprintf(path, "/usr/lib/debug/.build-id/%02x/", id[0]);
		for (i = 1; i < n; i++)
			off += sprintf(path + off, "%02x", id[i]);
		strcpy(path + off, ".debug");
		if (access(path, R_OK) == 0)
			return path;
		free(path);
	}
	return strdup(libc);
}

static char *dwfl_debuginfo_path;
static const Dwfl_Callbacks callbacks = {
	.find_elf = dwfl_build_id_find_elf,
	.find_debuginfo = dwfl_standard_find_debuginfo,
	.section_address = dwfl_offline_section_address,
	.debuginfo_path = &dwfl_debuginfo_path,
};

int main(int argc, char **argv)
{
	size_t n = 1000000, nd = 20000, rounds = 3, i, r, same = 0, ours_found = 0, dwfl_found = 0;
	struct elfsyms_image img;
	uint64_t lo = 0, hi = 0, seed, *addrs;
	double t0, load_ours, load_dwfl, best_ours = 1e9, best_dwfl = 1e9;
	const char **names_ours, **names_dwfl;
	char *path = NULL;
	Dwfl *dwfl;
	Dwfl_Module *mod;
	int opt, fd, nsyms;

	while ((opt = getopt(argc, argv, "n:d:r:")) != -1) {
		if (opt == 'n')
			n = strtoul(optarg, NULL, 10);
		else if (opt == 'd')
			nd = strtoul(optarg, NULL, 10);
		else if (opt == 'r')
			rounds = strtoul(optarg, NULL, 10);
		else
			return 2;
	}
	path = optind < argc ? strdup(argv[optind]) : libc_debug_file();
	if (!n)
		n = 1;
	if (!nd || nd > n)
		nd = n;
	unsetenv("DEBUGINFOD_URLS");

	/* proftop's table: libelf read, sort, alias collapse. */
	t0 = now();
	if (elfsyms_load(path, &img) != 0) {
		fprintf(stderr, "symlookup: cannot load %s\n", path);
		return 1;
	}
	(void)symtab_lookup(img.symtab, 0);
	load_ours = now() - t0;
	for (i = 0; i < img.nsegs; i++)
		if (img.segs[i].flags & PF_X) {
			lo = img.segs[i].vaddr;
			hi = img.segs[i].vaddr + img.segs[i].memsz;
		}
	if (hi <= lo) {
		fprintf(stderr, "symlookup: no executable segment in %s\n", path);
		return 1;
	}

	/* libdwfl: the module at bias 0, its symbol table read in full. */
	t0 = now();
	dwfl = dwfl_begin(&callbacks);
	fd = open(path, O_RDONLY);
	dwfl_report_begin(dwfl);
	mod = dwfl_report_elf(dwfl, path, path, fd, 0, false);
	dwfl_report_end(dwfl, NULL, NULL);
	nsyms = mod ? dwfl_module_getsymtab(mod) : -1;
	if (mod)
		(void)dwfl_module_addrname(mod, lo);
	load_dwfl = now() - t0;
	if (nsyms < 0) {
		fprintf(stderr, "symlookup: dwfl cannot read %s: %s\n", path, dwfl_errmsg(-1));
		return 1;
	}

	addrs = malloc(n * sizeof(*addrs));
	names_ours = malloc(n * sizeof(*names_ours));
	names_dwfl = malloc(n * sizeof(*names_dwfl));
	seed = 0x9e3779b97f4a7c15ULL;
	for (i = 0; i < n; i++)
		addrs[i] = lo + rnd(&seed) % (hi - lo);

	for (r = 0; r < rounds; r++) {
		double t;

		t0 = now();
		for (i = 0; i < n; i++) {
			const struct symbol *s = symtab_lookup(img.symtab, addrs[i]);

			names_ours[i] = s ? s->name : NULL;
		}
		t = now() - t0;
		if (t < best_ours)
			best_ours = t;
		t0 = now();
		for (i = 0; i < nd; i++)
			names_dwfl[i] = dwfl_module_addrname(mod, addrs[i]);
		t = (now() - t0) * (double)n / (double)nd;
		if (t < best_dwfl)
			best_dwfl = t;
	}
	for (i = 0; i < nd; i++) {
		ours_found += names_ours[i] != NULL;
		dwfl_found += names_dwfl[i] != NULL;
		same += names_ours[i] && names_dwfl[i] && !strcmp(names_ours[i], names_dwfl[i]);
	}
	printf("file: %s (%zu symbols in proftop's table, %d in dwfl's; text 0x%llx-0x%llx)\n",
	       path, symtab_count(img.symtab), nsyms, (unsigned long long)lo,
	       (unsigned long long)hi);
	printf("load: proftop %.2f ms, dwfl %.2f ms, ratio %.2f\n", load_ours * 1e3,
	       load_dwfl * 1e3, load_dwfl > 0 ? load_ours / load_dwfl : 0.0);
	printf("lookups: %zu random text addresses (dwfl: the first %zu), best of %zu\n", n, nd,
	       rounds);
	printf("lookups/s: proftop %.0f, dwfl %.0f, ratio %.2f\n", (double)n / best_ours,
	       (double)n / best_dwfl, best_dwfl / best_ours);
	printf("named (of the first %zu): proftop %.2f%%, dwfl %.2f%%; same name %.2f%%\n", nd,
	       100.0 * (double)ours_found / (double)nd, 100.0 * (double)dwfl_found / (double)nd,
	       100.0 * (double)same / (double)nd);
	dwfl_end(dwfl);
	elfsyms_release(&img);
	free(addrs);
	free(names_ours);
	free(names_dwfl);
	free(path);
	return 0;
}
