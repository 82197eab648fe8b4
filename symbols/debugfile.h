/* Separate debug files: the .gnu_debuglink search (file name + CRC32, as
 * gdb and elfutils do it) and the xz decoding of .gnu_debugdata
 * (MiniDebugInfo).  The build-ID paths are machine.c's. */
#ifndef PROFTOP_DEBUGFILE_H
#define PROFTOP_DEBUGFILE_H

#include <libelf.h>
#include <stddef.h>
#include <stdint.h>

/* The CRC-32 of .gnu_debuglink (IEEE 802.3, reflected, as zlib's crc32):
 * feed buffers in order, starting from crc = 0. */
uint32_t debugfile_crc32(uint32_t crc, const void *buf, size_t len);

/* The CRC of the whole regular file at path.  Returns 0 or -errno. */
int debugfile_file_crc32(const char *path, uint32_t *crc);

/* The debug file named link (a .gnu_debuglink name: no '/') of a binary
 * mapped as dir/NAME, malloc'd, or NULL.  For each root in roots ("" for
 * /, a --symfs directory, or a /proc/PID/root prefix) it tries, in this
 * order, root/dir/link, root/dir/.debug/link and
 * root/usr/lib/debug/dir/link.  A candidate is accepted only when its
 * build ID equals id (when both have one: any other build ID rejects it),
 * else when its CRC equals crc.  The caller still checks that the file
 * has the symbols it wants. */
char *debugfile_find_link(const char *const *roots, size_t nroots, const char *dir,
			  const char *link, uint32_t crc, const uint8_t *id, size_t idsize);

/* Upper bound on a decompressed .gnu_debugdata: MiniDebugInfo holds only
 * a .symtab (hundreds of KB for the largest Fedora binaries); more is a
 * hostile or broken file. */
#define DEBUGFILE_XZ_MAX (64u << 20)

/* Decode the xz stream in[0..inlen) into a malloc'd *out of *outlen bytes,
 * at most max bytes.  Returns 0, -EFBIG past max, -EINVAL on corrupt
 * data, -ENOTSUP when proftop was built without liblzma. */
int debugfile_xz_decode(const void *in, size_t inlen, size_t max, void **out,
			size_t *outlen);

/* elf's .debug_frame (or .zdebug_frame), inflated in place when
 * compressed (Debian's debug files are), or NULL. */
Elf_Scn *debugfile_frame_scn(Elf *elf);

/* A small ELF image of elf's .debug_frame (inflated when compressed)
 * with elf's header and program headers, in a memfd: libdw reads it as a
 * separate debug file (dwarf_begin_elf inflates every debug section of a
 * file it opens: a libc6-dbg file's take tens of milliseconds, this one's
 * CFI none).  Returns the descriptor (close-on-exec), -ENOENT when elf
 * has no .debug_frame, or another -errno. */
int debugfile_frame_image(Elf *elf);

#endif
