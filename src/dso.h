/* DSOs: the objects maps point to (ELF files, the kernel and its modules,
 * [vdso], anonymous code), one per path and identity, with their symbols
 * (loaded lazily, see dso.c), source lines and inlined frames. */
#ifndef PROFTOP_DSO_H
#define PROFTOP_DSO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct machine;
struct dso;
struct symbol;
struct dwarfinfo;

enum dso_kind {
	DSO_USER,     /* an ELF file */
	DSO_KERNEL,   /* [kernel.kallsyms] */
	DSO_MODULE,   /* [ext4] */
	DSO_VDSO,     /* [vdso] */
	DSO_ANON,     /* //anon, [heap], memfd, JIT: no symbols */
};

/* The DSO for path (a file, or a bracketed name like "[vdso]"), created on
 * first use.  One object per path and identity; symbols load lazily on the
 * first machine_resolve that needs them. */
struct dso *machine_dso_get(struct machine *m, const char *path, enum dso_kind kind);

/* Look for binaries under dir (dir/path, dir/.build-id/xx/rest) before
 * the paths themselves: --symfs, for recordings made elsewhere. */
void machine_set_symfs(struct machine *m, const char *dir);

/* Look binaries and debug files up by build ID in perf's build-id cache
 * at buildid_cache_dir(dir) (dir: --buildid-dir, or NULL), after the file
 * on disk.  Returns 0, or -errno when there is no cache there (none is
 * used then). */
int machine_set_buildid_dir(struct machine *m, const char *dir);
/* How many DSOs got their symbols or debug file from a build-id cache
 * (perf's or --symfs), and in *refused how many cache entries were
 * refused (a link out of the cache, a loop, not a regular file, another
 * build ID).  From any thread. */
size_t machine_buildid_cache_used(const struct machine *m, size_t *refused);

/* A build ID known for path (perf.data's BUILD_ID feature): its symbols then
 * come only from a file with the same build ID. */
void machine_add_build_id(struct machine *m, const char *path, const uint8_t *id,
			  size_t size);

/* DSO accessors. */
const char *dso_short_name(const struct dso *d); /* "libc.so.6", "[kernel.kallsyms]" */
const char *dso_path(const struct dso *d);       /* full path, or the short name */
enum dso_kind dso_kind(const struct dso *d);
bool dso_is_kernel(const struct dso *d);
/* Whether sym (a symbol of d) is a sub_<hex> name made from CFI, not one
 * of the file's symbols. */
bool dso_symbol_synthetic(const struct dso *d, const struct symbol *sym);
/* Once d's symbols are loaded: the file they were read from (may be a
 * /proc/PID/... path), and the separate debug file used for its symbol
 * table, or NULL.  NULL before loading or when it failed. */
const char *dso_sym_path(const struct dso *d);
const char *dso_debug_path(const struct dso *d);
/* Once loaded, the ELF symbol of a user DSO at vaddr (its symbol space),
 * or NULL (not loaded, no symbol there).  From any thread. */
const struct symbol *dso_symbol_at(const struct dso *d, uint64_t vaddr);
/* Once loaded: the build ID of the file the symbols came from (*id, its
 * size returned), or 0 when it has none or is not loaded.  Lets a later
 * reader (DWARF, after a /proc/PID path is gone) check another path holds
 * the same binary. */
size_t dso_file_build_id(const struct dso *d, const uint8_t **id);
/* Once a user DSO's symbols are loaded: its (first) executable PT_LOAD,
 * the space of symbol addresses.  Returns 0, or -ENOENT. */
int dso_text_segment(const struct dso *d, uint64_t *vaddr, uint64_t *memsz, uint64_t *offset);

/* The DWARF answer (inlined functions, source line) at addr in dso (valid
 * until the next lookup), or NULL: from its debug file, else the file its
 * symbols came from, else (that was a /proc/PID path of a process now
 * gone) its path, each only with the build ID of the file the symbols came
 * from.  One cache for the process, used from one thread at a time. */
const struct dwarfinfo *dso_dwarf_at(struct dso *dso, uint64_t addr);
/* dwarfinfo_lines_id on the same files, with a cache of the caller's
 * (annotate's, which may ask from another thread than the engine's).
 * Returns 0 or -errno. */
struct dwarfinfo_cache;
struct dwarfinfo_line;
int dso_dwarf_lines(struct dwarfinfo_cache *c, const struct dso *dso, const uint64_t *addrs,
		    size_t n, struct dwarfinfo_line *out);
/* perf's srcline for addr given dso_dwarf_at's answer in (may be NULL):
 * from the line table, else "sym+off", "dso[addr]" or "??:0"; interned. */
const char *dso_srcline_of(const struct dwarfinfo *in, struct dso *dso, const struct symbol *sym,
			   uint64_t addr);
/* The source line of addr (ELF vaddr of dso's symbol space) in perf's
 * format (see snapshot_row.srcline), interned; sym may be NULL.  Cached
 * per address; the DWARF comes from dso_debug_path(), else dso_sym_path(). */
const char *dso_srcline(struct dso *dso, const struct symbol *sym, uint64_t addr);

#endif
