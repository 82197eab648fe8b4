/* Separate debug files: .gnu_debuglink search and check, the xz decoder
 * for .gnu_debugdata (MiniDebugInfo), and the .debug_frame images the
 * unwinder gives libdw. */
#include "config.h"

#include "debugfile.h"

#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#ifdef HAVE_LIBLZMA
#include <lzma.h>
#endif

#include "elfsyms.h"
#include "nsopen.h"
#include "util.h"

static uint32_t crc_table[256];
static pthread_once_t crc_once = PTHREAD_ONCE_INIT;

static void debugfile_crc_init(void)
{
	uint32_t i, j, c;

	for (i = 0; i < 256; i++) {
		c = i;
		for (j = 0; j < 8; j++)
			c = c & 1 ? 0xedb88320u ^ (c >> 1) : c >> 1;
		crc_table[i] = c;
	}
}

uint32_t debugfile_crc32(uint32_t crc, const void *buf, size_t len)
{
	const unsigned char *p = buf;

	pthread_once(&crc_once, debugfile_crc_init);
	crc = ~crc;
	while (len--)
		crc = crc_table[(crc ^ *p++) & 0xff] ^ (crc >> 8);
	return ~crc;
}

/* The CRC of the file open at fd, read from where it is. */
static int debugfile_fd_crc32(int fd, uint32_t *crc)
{
	static const size_t bufsz = 64 * 1024;
	unsigned char *buf;
	uint32_t c = 0;
	ssize_t n;
	int err = 0;

	buf = xmalloc(bufsz);
	while ((n = read(fd, buf, bufsz)) != 0) {
		if (n < 0) {
			if (errno == EINTR)
				continue;
			err = -errno;
			break;
		}
		c = debugfile_crc32(c, buf, (size_t)n);
	}
	free(buf);
	if (!err)
		*crc = c;
	return err;
}

int debugfile_file_crc32(const char *path, uint32_t *crc)
{
	int fd = nsopen_file(path), err;

	if (fd < 0)
		return fd;
	err = debugfile_fd_crc32(fd, crc);
	close(fd);
	return err;
}

/* Whether path is the debug file the link describes.  Under a process's
 * root (/proc/PID/root/...) it is opened inside that root: a container's
 * symlink cannot make us read a host file as its debug file. */
static bool debugfile_link_ok(const char *path, uint32_t crc, const uint8_t *id, size_t idsize)
{
	uint8_t fid[ELFSYMS_BUILD_ID_MAX];
	uint32_t fcrc;
	int fd = nsopen_file(path), n;
	bool ok;

	if (fd < 0)
		return false;
	n = elfsyms_read_build_id_fd(fd, fid);
	/* Build IDs decide when both files have one: cheaper than reading
	 * the whole file, and a mismatch rules out a CRC collision. */
	if (n < 0)
		ok = false;
	else if (n > 0 && idsize > 0)
		ok = (size_t)n == idsize && memcmp(fid, id, idsize) == 0;
	else
		ok = lseek(fd, 0, SEEK_SET) == 0 && debugfile_fd_crc32(fd, &fcrc) == 0 &&
		     fcrc == crc;
	close(fd);
	return ok;
}

char *debugfile_find_link(const char *const *roots, size_t nroots, const char *dir,
			  const char *link, uint32_t crc, const uint8_t *id, size_t idsize)
{
	/* dir/link, dir/.debug/link, /usr/lib/debug/dir/link (gdb's order). */
	static const char *const mids[] = { "", "/.debug", "/usr/lib/debug" };
	size_t r, f;

	if (!link || !*link || strchr(link, '/') || !strcmp(link, ".") || !strcmp(link, ".."))
		return NULL;
	if (!dir || dir[0] != '/')
		return NULL;
	if (strcmp(dir, "/") == 0)
		dir = "";
	for (r = 0; r < nroots; r++) {
		for (f = 0; f < sizeof(mids) / sizeof(mids[0]); f++) {
			char *path = f == 2 ? xasprintf("%s%s%s/%s", roots[r], mids[f], dir, link) :
					      xasprintf("%s%s%s/%s", roots[r], dir, mids[f], link);

			if (debugfile_link_ok(path, crc, id, idsize))
				return path;
			free(path);
		}
	}
	return NULL;
}

#ifdef HAVE_LIBLZMA
int debugfile_xz_decode(const void *in, size_t inlen, size_t max, void **out,
			size_t *outlen)
{
	lzma_stream s = LZMA_STREAM_INIT;
	unsigned char *buf = NULL;
	size_t cap = 0;
	lzma_ret ret;
	int err = 0;

	/* The decoder's own memory (dictionary) is capped as well. */
	if (lzma_stream_decoder(&s, 256u << 20, 0) != LZMA_OK)
		return -ENOMEM;
	s.next_in = in;
	s.avail_in = inlen;
	for (;;) {
		if (s.avail_out == 0) {
			size_t used = cap;

			if (cap >= max) {
				err = -EFBIG;
				break;
			}
			cap = cap ? cap * 2 : (inlen < (1u << 20) ? 4 * inlen + 4096 : inlen * 2);
			if (cap > max)
				cap = max;
			buf = xrealloc(buf, cap);
			s.next_out = buf + used;
			s.avail_out = cap - used;
		}
		ret = lzma_code(&s, LZMA_FINISH);
		if (ret == LZMA_STREAM_END)
			break;
		if (ret != LZMA_OK) {
			err = ret == LZMA_MEM_ERROR || ret == LZMA_MEMLIMIT_ERROR ? -ENOMEM :
										    -EINVAL;
			break;
		}
		if (s.avail_in == 0 && s.avail_out != 0) {
			err = -EINVAL;    /* truncated */
			break;
		}
	}
	if (!err) {
		*out = buf;
		*outlen = (size_t)s.total_out;
	} else {
		free(buf);
	}
	lzma_end(&s);
	return err;
}
#else
int debugfile_xz_decode(const void *in, size_t inlen, size_t max, void **out,
			size_t *outlen)
{
	(void)in;
	(void)inlen;
	(void)max;
	(void)out;
	(void)outlen;
	return -ENOTSUP;
}
#endif

Elf_Scn *debugfile_frame_scn(Elf *elf)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;
	size_t shstrndx;

	if (elf_getshdrstrndx(elf, &shstrndx) != 0)
		return NULL;
	while ((scn = elf_nextscn(elf, scn)) != NULL) {
		const char *name;
		bool gnu;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_PROGBITS ||
		    !(name = elf_strptr(elf, shstrndx, sh.sh_name)))
			continue;
		gnu = strcmp(name, ".zdebug_frame") == 0;
		if (!gnu && strcmp(name, ".debug_frame") != 0)
			continue;
		if (gnu ? elf_compress_gnu(scn, 0, 0) < 0 :
			  (sh.sh_flags & SHF_COMPRESSED) && elf_compress(scn, 0, 0) < 0)
			return NULL;
		return scn;
	}
	return NULL;
}

/* A section of size bytes at buf (kept until elf_update), named at name
 * in .shstrtab, appended to out. */
static Elf_Scn *debugfile_add_section(Elf *out, const void *buf, size_t size, Elf64_Word name,
				      Elf64_Word type)
{
	Elf_Scn *scn = elf_newscn(out);
	Elf_Data *d = scn ? elf_newdata(scn) : NULL;
	GElf_Shdr sh;

	if (!d || !gelf_getshdr(scn, &sh))
		return NULL;
	d->d_buf = (void *)buf;
	d->d_size = size;
	d->d_type = ELF_T_BYTE;
	d->d_align = 1;
	sh.sh_name = name;
	sh.sh_type = type;
	sh.sh_addralign = 1;
	return gelf_update_shdr(scn, &sh) ? scn : NULL;
}

int debugfile_frame_image(Elf *elf)
{
	static const char strtab[] = "\0.debug_frame\0.shstrtab";
	Elf_Scn *scn = debugfile_frame_scn(elf);
	Elf_Data *src = scn ? elf_getdata(scn, NULL) : NULL;
	GElf_Ehdr eh, oeh;
	Elf_Scn *strs;
	size_t phnum, i;
	Elf *out;
	int fd, err = -EINVAL;

	if (!src || !src->d_buf || !src->d_size)
		return -ENOENT;
	if (!gelf_getehdr(elf, &eh) || elf_getphdrnum(elf, &phnum) != 0)
		return -ENOEXEC;
	fd = memfd_create("proftop-debug_frame", MFD_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (!(out = elf_begin(fd, ELF_C_WRITE, NULL)) ||
	    !gelf_newehdr(out, gelf_getclass(elf)) || !gelf_getehdr(out, &oeh))
		goto out;
	/* The program headers too: libdw places a debug file's addresses
	 * by its first PT_LOAD, as it does the main file's. */
	oeh.e_ident[EI_DATA] = eh.e_ident[EI_DATA];
	oeh.e_ident[EI_OSABI] = eh.e_ident[EI_OSABI];
	oeh.e_type = eh.e_type;
	oeh.e_machine = eh.e_machine;
	oeh.e_version = EV_CURRENT;
	oeh.e_flags = eh.e_flags;
	if (!gelf_update_ehdr(out, &oeh) || (phnum && !gelf_newphdr(out, phnum)))
		goto out;
	for (i = 0; i < phnum; i++) {
		GElf_Phdr ph;

		if (!gelf_getphdr(elf, (int)i, &ph) || !gelf_update_phdr(out, (int)i, &ph))
			goto out;
	}
	if (!debugfile_add_section(out, src->d_buf, src->d_size, 1, SHT_PROGBITS) ||
	    !(strs = debugfile_add_section(out, strtab, sizeof(strtab), 14, SHT_STRTAB)))
		goto out;
	if (gelf_getehdr(out, &oeh) &&
	    (oeh.e_shstrndx = (GElf_Half)elf_ndxscn(strs), gelf_update_ehdr(out, &oeh)) &&
	    elf_update(out, ELF_C_WRITE) > 0)
		err = 0;
out:
	if (out)
		elf_end(out);
	if (err)
		close(fd);
	return err ? err : fd;
}
