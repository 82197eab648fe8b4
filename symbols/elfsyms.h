/* Reading an ELF file with libelf: its type, PT_LOAD segments, build ID and
 * function symbols (.symtab, else .dynsym). */
#ifndef PROFTOP_ELFSYMS_H
#define PROFTOP_ELFSYMS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct symtab;

struct elfsyms_segment {          /* one PT_LOAD */
	uint64_t vaddr, offset, filesz, memsz;
	uint32_t flags;           /* PF_X | PF_W | PF_R */
};

#define ELFSYMS_BUILD_ID_MAX 20

struct elfsyms_image {
	int type;                 /* ET_EXEC, ET_DYN, ... */
	int machine;              /* EM_X86_64, EM_ALPHA, ... */
	uint8_t build_id[ELFSYMS_BUILD_ID_MAX];
	size_t build_id_size;     /* 0 when the file has no NT_GNU_BUILD_ID */
	struct elfsyms_segment *segs;
	size_t nsegs;
	struct symtab *symtab;    /* never NULL after a successful load (may be empty) */
	struct symtab *cfi_symtab; /* sub_<hex>: functions only CFI knows, in
				      symtab's gaps (cfi.h); NULL when none */
	bool from_dynsym;         /* the file has no .symtab: names came from
				     .dynsym (and .gnu_debugdata, if any) */
	bool no_symtab;           /* no .symtab (with or without .dynsym): a
				     separate debug file may have more */
	bool from_debugdata;      /* .gnu_debugdata's symbols were merged in */
	char *debuglink;          /* .gnu_debuglink file name, or NULL */
	uint32_t debuglink_crc;   /* and the CRC-32 of that file */
};

/* Load everything above from path, opened with nsopen_file (a regular
 * file only, a path under /proc/PID/root resolved inside that root).
 * Returns 0, or -errno (-ENOEXEC when the file is not a usable ELF or not
 * a regular file). */
int elfsyms_load(const char *path, struct elfsyms_image *out);
/* The same from fd, a readable descriptor of a regular file (opened by
 * the caller, e.g. under a container's root with nsopen); fd stays open. */
int elfsyms_load_fd(int fd, struct elfsyms_image *out);
/* The same from an ELF image in memory (the vdso), which is copied first:
 * it may be read-only and need not outlive the call. */
int elfsyms_load_memory(const void *image, size_t size, struct elfsyms_image *out);
void elfsyms_release(struct elfsyms_image *img);

/* Merge the .symtab of the separate debug file at path (found by build ID
 * or .gnu_debuglink, and checked by the caller) into img's symbols: the
 * debug file's names win, img's own (func@plt, ...) stay where the debug
 * file has none.  Only the symbols change (the debug file's segments are
 * NOBITS).  Returns 0, -ENODATA when the debug file adds no symbol (img
 * unchanged), or -errno. */
int elfsyms_merge_debug(struct elfsyms_image *img, const char *path);

/* Map a file offset (ip - map_start + map_pgoff) to an ELF virtual address
 * through the PT_LOAD that contains it (the executable one if several do).
 * Returns 0, or -ENOENT when no segment contains the offset. */
int elfsyms_offset_to_vaddr(const struct elfsyms_image *img, uint64_t offset,
			      uint64_t *vaddr);

/* The same for a data address, at offset in a map that is writable or
 * not: the segment whose pages hold it, its .bss included, the writable
 * one first for a writable map (its first page may hold the end of the
 * read-only segment before it, RELRO).  Pages of ELFSYMS_DATA_PAGE
 * bytes. */
#define ELFSYMS_DATA_PAGE 4096
int elfsyms_data_offset_to_vaddr(const struct elfsyms_image *img, uint64_t offset,
				  bool writable, uint64_t *vaddr);

/* The data objects (STT_OBJECT in allocated sections that are not code)
 * of the ELF file at path, for EM_* machine: from its .symtab, else its
 * .dynsym, in a new table *out (free it with symtab_free).  STT_TLS
 * objects are left out: their values are offsets in each thread's block,
 * not addresses.  Only -s daddr_sym asks for these.  Returns 0, or -errno
 * (-ENOEXEC: not an ELF of that machine). */
int elfsyms_load_objects(const char *path, int machine, struct symtab **out);

/* Only the build ID (cheap: no symbols).  Returns its size (0 if none) or
 * -errno. */
int elfsyms_read_build_id(const char *path, uint8_t id[ELFSYMS_BUILD_ID_MAX]);
/* The same from a readable descriptor (it stays open). */
int elfsyms_read_build_id_fd(int fd, uint8_t id[ELFSYMS_BUILD_ID_MAX]);
/* Whether the file at fd carries build ID id (size bytes).  A recording's
 * 20-byte ID may be a shorter one (MD5, 16 bytes) padded with zeros: the
 * file's shorter ID matches when the rest is zero. */
bool elfsyms_fd_has_build_id(int fd, const uint8_t *id, size_t size);

/* Code bytes for annotate: a function is cut at this size (a note says so). */
#define ELFSYMS_CODE_MAX (1u << 20)

/* The file bytes of [vaddr, vaddr + size) from path (nsopen_file), found
 * through the PT_LOAD that holds vaddr: at most ELFSYMS_CODE_MAX bytes, and
 * fewer when the segment's file part ends first.  When id_size is not 0
 * the file's build ID must be id (-ESTALE otherwise: the file changed since
 * its symbols were read).  *out is allocated (free it), *len its length,
 * *e_machine the file's EM_*.  Returns 0, or -errno (-ENOENT: no segment
 * holds vaddr), with the reason in em. */
struct errmsg;
int elfsyms_read_code(const char *path, const uint8_t *id, size_t id_size, uint64_t vaddr,
		      uint64_t size, uint8_t **out, size_t *len, int *e_machine,
		      struct errmsg *em);

#endif
