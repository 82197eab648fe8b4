/* Kernel symbols from /proc/kallsyms, module ranges from /proc/modules. */
#ifndef PROFTOP_KALLSYMS_H
#define PROFTOP_KALLSYMS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct errmsg;
struct symtab;

struct kernel_module {
	char *name;               /* "ext4", or "bpf" for [bpf] symbols */
	uint64_t start, end;      /* text range: from /proc/modules when listed
				     there, else from its symbols */
	struct symtab *symtab;    /* absolute addresses */
	bool listed;              /* in /proc/modules (else a run of [bpf],
				     [__builtin__ftrace]... symbols: dynamic) */
};

/* Where the kernel image lies: copied whole wherever it is copied (the
 * cache file's header, a reload keeping the old image), so a field added
 * here cannot be forgotten in one of them.  Only uint64_t fields: the
 * cache file stores it as it is (a change of it is a change of the file's
 * format, which kallsyms-cache.c asserts). */
struct kallsyms_image {
	uint64_t start, end;      /* kernel text range (_stext.._etext, else
				     the range of its text symbols) */
	uint64_t stext, text;     /* the _stext and _text markers; 0: absent */
	uint64_t span_lo, span_hi; /* what the kernel image's symbols cover
				      (init text included); 0, 0: none */
};

struct kernel_syms {
	struct symtab *kernel;    /* [kernel.kallsyms]: absolute addresses */
	struct kallsyms_image image;
	struct kernel_module *modules; /* sorted by start, non-overlapping */
	size_t nmodules;
	bool restricted;          /* every address read as 0: kptr_restrict */
};

/* Parse kallsyms text (and, if modules is not NULL, /proc/modules text).
 * Keeps text symbols (t, T, w, W).  Returns 0 or -errno. */
int kallsyms_parse(FILE *kallsyms, FILE *modules, struct kernel_syms *out);
/* The same from /proc; a missing /proc/modules is not an error. */
int kallsyms_load(struct kernel_syms *out);
/* The same from other files (NULL: the /proc one), read with read(2) as
 * /proc/kallsyms is: a FIFO works, which lets tests hold a load back. */
int kallsyms_load_files(const char *kallsyms, const char *modules, struct kernel_syms *out);
void kallsyms_release(struct kernel_syms *ks);

/* Find where a kernel address lives: sets *module to the module containing
 * it (or NULL for the kernel image) and returns its symbol, or NULL. */
const struct symbol *kallsyms_lookup(const struct kernel_syms *ks, uint64_t addr,
				     const struct kernel_module **module);

/* Whether addr lies in the kernel image's span or in a module's range:
 * outside them, a kallsyms read now might name what this one cannot (a
 * BPF program, a trampoline, a module loaded since). */
bool kallsyms_covers(const struct kernel_syms *ks, uint64_t addr);
/* Whether addr, not covered, lies where the kernel puts code after boot:
 * above the image (or among the modules) by less than
 * KALLSYMS_DYNAMIC_REACH, where modules, BPF programs and trampolines go
 * (x86-64: the module area, the 1 GB above the image).  Not a frame
 * pointer chain's garbage, nor the byte before _text. */
bool kallsyms_maybe_dynamic(const struct kernel_syms *ks, uint64_t addr);
#define KALLSYMS_DYNAMIC_REACH (2ULL << 30)

/* The copy of kallsyms perf record keeps for the kernel with build ID id
 * (perf report reads it): DIR/[kernel.kallsyms]/HEX/kallsyms, DIR being
 * buildid_cache_dir(cache_dir) (--buildid-dir, $PERF_BUILDID_DIR, else
 * $HOME/.debug).  A regular file reached without leaving DIR, read many
 * times faster than /proc/kallsyms, and with the addresses of the
 * recording's boot.  Returns the path (free it) or NULL. */
char *kallsyms_find_cached(const char *cache_dir, const uint8_t *id, size_t id_size);

#endif
