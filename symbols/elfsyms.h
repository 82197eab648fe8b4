/* Reading an ELF file with libelf: its type, PT_LOAD segments, build ID and
 * function symbols (.symtab, else .dynsym). */
#ifndef PROFTOP_ELFSYMS_H
#define PROFTOP_ELFSYMS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct symtab;

struct elf_segment {          /* one PT_LOAD */
	uint64_t vaddr, offset, filesz, memsz;
	uint32_t flags;           /* PF_X | PF_W | PF_R */
};

#define ELF_BUILD_ID_MAX 20

struct elf_image {
	int type;                 /* ET_EXEC, ET_DYN, ... */
	int machine;              /* EM_X86_64, EM_ALPHA, ... */
	uint8_t build_id[ELF_BUILD_ID_MAX];
	size_t build_id_size;     /* 0 when the file has no NT_GNU_BUILD_ID */
	struct elf_segment *segs;
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

/* Load everything above from path.  Returns 0, or -errno (-ENOEXEC when the
 * file is not a usable ELF). */
int elf_image_load(const char *path, struct elf_image *out);
/* The same from fd, a readable descriptor of a regular file (opened by
 * the caller, e.g. under a container's root with nsopen); fd stays open. */
int elf_image_load_fd(int fd, struct elf_image *out);
/* The same from an ELF image in memory (the vdso), which is copied first:
 * it may be read-only and need not outlive the call. */
int elf_image_load_memory(const void *image, size_t size, struct elf_image *out);
void elf_image_release(struct elf_image *img);

/* Merge the .symtab of the separate debug file at path (found by build ID
 * or .gnu_debuglink, and checked by the caller) into img's symbols: the
 * debug file's names win, img's own (func@plt, ...) stay where the debug
 * file has none.  Only the symbols change (the debug file's segments are
 * NOBITS).  Returns 0, -ENODATA when the debug file adds no symbol (img
 * unchanged), or -errno. */
int elf_image_merge_debug(struct elf_image *img, const char *path);

/* Open path read-only if it is a regular file (never a FIFO or device:
 * paths come from others).  Returns an fd or -errno. */
int elf_open_checked(const char *path);

/* Map a file offset (ip - map_start + map_pgoff) to an ELF virtual address
 * through the PT_LOAD that contains it (the executable one if several do).
 * Returns 0, or -ENOENT when no segment contains the offset. */
int elf_image_offset_to_vaddr(const struct elf_image *img, uint64_t offset,
			      uint64_t *vaddr);

/* Only the build ID (cheap: no symbols).  Returns its size (0 if none) or
 * -errno. */
int elf_read_build_id(const char *path, uint8_t id[ELF_BUILD_ID_MAX]);
/* The same from a readable descriptor (it stays open). */
int elf_read_build_id_fd(int fd, uint8_t id[ELF_BUILD_ID_MAX]);

#endif
