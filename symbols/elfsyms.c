/* ELF files through libelf: type, PT_LOAD segments, GNU build ID and the
 * function symbols of .symtab (else .dynsym), in ELF virtual addresses,
 * with func@plt names from elfplt; data objects for -s daddr_sym; and a
 * function's code bytes for annotate. */
#include "config.h"

#include "elfsyms.h"

#include <errno.h>
#include <gelf.h>
#include <libelf.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cfi.h"
#include "debugfile.h"
#include "elfplt.h"
#include "errmsg.h"
#include "symtab.h"
#include "nsopen.h"
#include "util.h"

static pthread_once_t elfsyms_once = PTHREAD_ONCE_INIT;
static int elfsyms_version_ok;

static void elfsyms_init_once(void)
{
	elfsyms_version_ok = elf_version(EV_CURRENT) != EV_NONE;
}

/* Open path for reading only if it is a regular file: nsopen_file, the
 * one policy for paths that others control (MMAP2 records, perf.data
 * files); a FIFO, device or directory is "not a usable ELF". */
static int elfsyms_open_regular(const char *path)
{
	int fd = nsopen_file(path);

	return fd == -EINVAL || fd == -ELOOP ? -ENOEXEC : fd;
}

/* An Elf for the readable regular file fd.  ELF_C_READ rather than
 * ELF_C_READ_MMAP: a binary truncated in place would SIGBUS an mmap
 * reader, and ELF_C_READ only pread()s the sections we ask for. */
static int elfsyms_begin_fd(int fd, Elf **elfp)
{
	struct stat st;
	Elf *elf;

	pthread_once(&elfsyms_once, elfsyms_init_once);
	if (!elfsyms_version_ok)
		return -ENOSYS;
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode))
		return -ENOEXEC;
	elf = elf_begin(fd, ELF_C_READ, NULL);
	if (!elf)
		return -ENOEXEC;
	if (elf_kind(elf) != ELF_K_ELF) {
		elf_end(elf);
		return -ENOEXEC;
	}
	*elfp = elf;
	return 0;
}

/* Open path as an ELF file. */
static int elfsyms_open(const char *path, int *fdp, Elf **elfp)
{
	int fd, err;

	fd = elfsyms_open_regular(path);
	if (fd < 0)
		return fd;
	err = elfsyms_begin_fd(fd, elfp);
	if (err) {
		close(fd);
		return err;
	}
	*fdp = fd;
	return 0;
}

static void elfsyms_close(int fd, Elf *elf)
{
	elf_end(elf);
	close(fd);
}

/* Scan one block of notes for NT_GNU_BUILD_ID; returns its size or 0. */
static size_t elfsyms_note_build_id(Elf_Data *data, uint8_t id[ELFSYMS_BUILD_ID_MAX])
{
	size_t off = 0, next, name_off, desc_off;
	GElf_Nhdr nh;

	if (!data)
		return 0;
	while (off < data->d_size &&
	       (next = gelf_getnote(data, off, &nh, &name_off, &desc_off)) > 0) {
		if (nh.n_type == NT_GNU_BUILD_ID && nh.n_namesz == 4 &&
		    memcmp((const char *)data->d_buf + name_off, "GNU", 4) == 0 &&
		    nh.n_descsz > 0) {
			/* Longer IDs are cut to what MMAP2 records carry. */
			size_t n = nh.n_descsz < ELFSYMS_BUILD_ID_MAX ? nh.n_descsz : ELFSYMS_BUILD_ID_MAX;

			memcpy(id, (const char *)data->d_buf + desc_off, n);
			return n;
		}
		off = next;
	}
	return 0;
}

/* The build ID from SHT_NOTE sections, or from PT_NOTE segments when the
 * file has no section headers.  Returns its size, 0 when there is none. */
static size_t elfsyms_find_build_id(Elf *elf, uint8_t id[ELFSYMS_BUILD_ID_MAX])
{
	Elf_Scn *scn = NULL;
	size_t shnum = 0, phnum = 0, i, n;
	GElf_Shdr sh;
	GElf_Phdr ph;

	if (elf_getshdrnum(elf, &shnum) == 0 && shnum > 0) {
		while ((scn = elf_nextscn(elf, scn)) != NULL) {
			if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_NOTE)
				continue;
			if ((n = elfsyms_note_build_id(elf_getdata(scn, NULL), id)) > 0)
				return n;
		}
		return 0;
	}
	if (elf_getphdrnum(elf, &phnum) != 0)
		return 0;
	for (i = 0; i < phnum; i++) {
		Elf_Data *data;

		if (!gelf_getphdr(elf, (int)i, &ph) || ph.p_type != PT_NOTE)
			continue;
		data = elf_getdata_rawchunk(elf, (int64_t)ph.p_offset, ph.p_filesz,
					    ph.p_align == 8 ? ELF_T_NHDR8 : ELF_T_NHDR);
		if ((n = elfsyms_note_build_id(data, id)) > 0)
			return n;
	}
	return 0;
}

static int elfsyms_read_segments(Elf *elf, struct elfsyms_image *img)
{
	size_t phnum, i, cap = 0;
	GElf_Phdr ph;

	if (elf_getphdrnum(elf, &phnum) != 0)
		return -ENOEXEC;
	for (i = 0; i < phnum; i++) {
		struct elfsyms_segment *seg;

		if (!gelf_getphdr(elf, (int)i, &ph))
			return -ENOEXEC;
		if (ph.p_type != PT_LOAD)
			continue;
		img->segs = xgrow(img->segs, &cap, img->nsegs + 1, sizeof(*img->segs));
		seg = &img->segs[img->nsegs++];
		seg->vaddr = ph.p_vaddr;
		seg->offset = ph.p_offset;
		seg->filesz = ph.p_filesz;
		seg->memsz = ph.p_memsz;
		seg->flags = ph.p_flags;
	}
	return 0;
}

static enum symtab_bind elfsyms_bind(unsigned char b)
{
	switch (b) {
	case STB_GLOBAL:
	case STB_GNU_UNIQUE:
		return SYMTAB_GLOBAL;
	case STB_WEAK:
		return SYMTAB_WEAK;
	default:
		return SYMTAB_LOCAL;
	}
}

/* What symbols need to know about the section they live in. */
struct elfsyms_sect {
	uint64_t end;             /* sh_addr + sh_size */
	bool exec;                /* SHF_EXECINSTR and SHF_ALLOC */
	bool data;                /* SHF_ALLOC without SHF_EXECINSTR */
};

/* Add the functions of one symbol table section (SHT_SYMTAB or SHT_DYNSYM),
 * or with objects its data objects (STT_OBJECT in an allocated section
 * that is not code) instead. */
static int elfsyms_read_symbols(Elf *elf, Elf_Scn *symscn, const GElf_Shdr *symsh,
				  int machine, struct symtab *st, struct elfplt *plt,
				  bool objects)
{
	struct elfsyms_sect *sects;
	Elf_Data *data, *xdata = NULL;
	Elf_Scn *scn = NULL;
	size_t shnum, nsyms, i;
	size_t symndx = elf_ndxscn(symscn);
	GElf_Shdr sh;

	if (elf_getshdrnum(elf, &shnum) != 0)
		return -ENOEXEC;
	data = elf_getdata(symscn, NULL);
	if (!data || symsh->sh_entsize == 0)
		return -ENOEXEC;

	sects = xcalloc(shnum ? shnum : 1, sizeof(*sects));
	while ((scn = elf_nextscn(elf, scn)) != NULL) {
		size_t ndx = elf_ndxscn(scn);

		if (ndx >= shnum || !gelf_getshdr(scn, &sh))
			continue;
		sects[ndx].end = sh.sh_addr + sh.sh_size;
		sects[ndx].exec = (sh.sh_flags & (SHF_EXECINSTR | SHF_ALLOC)) ==
				  (SHF_EXECINSTR | SHF_ALLOC);
		sects[ndx].data = (sh.sh_flags & (SHF_EXECINSTR | SHF_ALLOC)) == SHF_ALLOC;
		/* Section indices >= SHN_LORESERVE live in this table. */
		if (sh.sh_type == SHT_SYMTAB_SHNDX && sh.sh_link == symndx)
			xdata = elf_getdata(scn, NULL);
	}

	nsyms = data->d_size / symsh->sh_entsize;
	for (i = 0; i < nsyms; i++) {
		GElf_Sym sym;
		Elf32_Word xndx = 0;
		const char *name;
		size_t shndx;
		int type;

		if (!gelf_getsymshndx(data, xdata, (int)i, &sym, &xndx))
			continue;
		type = GELF_ST_TYPE(sym.st_info);
		/* STT_TLS is left out: its value is an offset in each
		 * thread's block, not an address. */
		if (objects ? type != STT_OBJECT : type != STT_FUNC && type != STT_GNU_IFUNC)
			continue;
		shndx = sym.st_shndx == SHN_XINDEX ? xndx : sym.st_shndx;
		if (shndx == SHN_UNDEF || shndx == SHN_ABS || shndx == SHN_COMMON ||
		    shndx >= shnum || !(objects ? sects[shndx].data : sects[shndx].exec))
			continue;
		name = elf_strptr(elf, symsh->sh_link, sym.st_name);
		if (!name || !*name)
			continue;
		/* Thumb functions have bit 0 set in their value. */
		if (machine == EM_ARM)
			sym.st_value &= ~(GElf_Addr)1;
		/* Raw: demangled only when shown (demangle_display), which
		 * saves most of the load time of a large C++ binary. */
		symtab_add(st, sym.st_value, sym.st_size, elfsyms_bind(GELF_ST_BIND(sym.st_info)),
			   name, sects[shndx].end);
		elfplt_note(plt, sym.st_value, sym.st_size);
	}
	free(sects);
	return 0;
}

/* The first section of elf of type (SHT_SYMTAB, SHT_DYNSYM), or NULL. */
static Elf_Scn *elfsyms_find_symtab(Elf *elf, GElf_Shdr *sh, Elf64_Word type)
{
	Elf_Scn *scn = NULL;

	while ((scn = elf_nextscn(elf, scn)) != NULL)
		if (gelf_getshdr(scn, sh) && sh->sh_type == type)
			return scn;
	return NULL;
}

/* .gnu_debuglink: the debug file's name, NUL, padding to 4, its CRC-32 in
 * the file's byte order.  Names with '/' are refused (they would leave the
 * directories searched). */
static void elfsyms_read_debuglink(Elf *elf, Elf_Scn *scn, struct elfsyms_image *img)
{
	Elf_Data *data = elf_getdata(scn, NULL);
	const unsigned char *p, *end;
	size_t len, off;
	GElf_Ehdr eh;

	if (!data || !data->d_buf || data->d_size < 8 || !gelf_getehdr(elf, &eh))
		return;
	p = data->d_buf;
	end = memchr(p, '\0', data->d_size);
	if (!end || end == p)
		return;
	len = (size_t)(end - p);
	off = (len + 4) & ~(size_t)3;
	if (len > 255 || off + 4 > data->d_size || memchr(p, '/', len))
		return;
	p += off;
	img->debuglink_crc = eh.e_ident[EI_DATA] == ELFDATA2MSB ?
		(uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3] :
		(uint32_t)p[3] << 24 | (uint32_t)p[2] << 16 | (uint32_t)p[1] << 8 | p[0];
	img->debuglink = xstrndup(data->d_buf, len);
}

/* .gnu_debugdata (MiniDebugInfo): an xz-compressed ELF whose .symtab holds
 * the functions .dynsym lacks; add them to img's table.  The sizes are
 * capped: the section is whatever the file says. */
static void elfsyms_read_debugdata(Elf_Scn *scn, struct elfsyms_image *img,
				     struct elfplt *plt)
{
	Elf_Data *data = elf_getdata(scn, NULL);
	Elf_Scn *symscn;
	GElf_Shdr symsh;
	GElf_Ehdr eh;
	size_t len;
	void *buf;
	Elf *mini;

	if (!data || !data->d_buf || data->d_size == 0 || data->d_size > DEBUGFILE_XZ_MAX)
		return;
	if (debugfile_xz_decode(data->d_buf, data->d_size, DEBUGFILE_XZ_MAX, &buf, &len) != 0)
		return;
	mini = elf_memory(buf, len);
	if (mini && elf_kind(mini) == ELF_K_ELF && gelf_getehdr(mini, &eh) &&
	    eh.e_machine == img->machine &&
	    (symscn = elfsyms_find_symtab(mini, &symsh, SHT_SYMTAB)) &&
	    elfsyms_read_symbols(mini, symscn, &symsh, img->machine, img->symtab, plt,
				 false) == 0)
		img->from_debugdata = true;
	if (mini)
		elf_end(mini);
	free(buf);
}

/* Pick .symtab if present (it is a superset), else .dynsym and what
 * .gnu_debugdata adds; then the PLT. */
static int elfsyms_load_symbols(Elf *elf, struct elfsyms_image *img)
{
	Elf_Scn *scn = NULL, *symtab = NULL, *dynsym = NULL, *debugdata = NULL;
	GElf_Shdr sh, symsh, dynsh;
	struct elfplt_secs ps;
	struct elfplt plt = { 0 };
	size_t shstrndx = 0;
	int err = 0;

	if (elf_getshdrstrndx(elf, &shstrndx) != 0)
		shstrndx = 0;
	while ((scn = elf_nextscn(elf, scn)) != NULL) {
		const char *name;

		if (!gelf_getshdr(scn, &sh))
			continue;
		if (sh.sh_type == SHT_SYMTAB && !symtab) {
			symtab = scn;
			symsh = sh;
		} else if (sh.sh_type == SHT_DYNSYM && !dynsym) {
			dynsym = scn;
			dynsh = sh;
		} else if (sh.sh_type == SHT_PROGBITS && shstrndx &&
			   (name = elf_strptr(elf, shstrndx, sh.sh_name)) != NULL) {
			/* Sizes checked before libelf reads the bytes in. */
			if (strcmp(name, ".gnu_debuglink") == 0 && !img->debuglink &&
			    sh.sh_size <= 4096)
				elfsyms_read_debuglink(elf, scn, img);
			else if (strcmp(name, ".gnu_debugdata") == 0 && !debugdata &&
				 sh.sh_size <= DEBUGFILE_XZ_MAX)
				debugdata = scn;
		}
	}
	/* Only the x86_64 PLT layout is known here; elsewhere no @plt. */
	if (img->machine == EM_X86_64)
		elfplt_find(elf, &ps, &plt);
	if (symtab) {
		err = elfsyms_read_symbols(elf, symtab, &symsh, img->machine, img->symtab,
					     plt.hi > plt.lo ? &plt : NULL, false);
	} else if (dynsym) {
		img->from_dynsym = true;
		err = elfsyms_read_symbols(elf, dynsym, &dynsh, img->machine, img->symtab,
					     plt.hi > plt.lo ? &plt : NULL, false);
	}
	img->no_symtab = !symtab;
	if (!err && !symtab && debugdata)
		elfsyms_read_debugdata(debugdata, img, plt.hi > plt.lo ? &plt : NULL);
	if (!err && plt.hi > plt.lo) {
		elfplt_synth(elf, &ps, &plt, img->symtab);
	}
	free(plt.taken);
	return err;
}

/* The common core of the loaders: everything from an open Elf. */
static int elfsyms_load_elf(Elf *elf, struct elfsyms_image *out)
{
	GElf_Ehdr eh;
	int err;

	memset(out, 0, sizeof(*out));
	if (!gelf_getehdr(elf, &eh))
		return -ENOEXEC;
	/* Relocatable objects (.ko, .o) have section-relative symbol values. */
	if (eh.e_type != ET_EXEC && eh.e_type != ET_DYN)
		return -ENOEXEC;
	out->type = eh.e_type;
	out->machine = eh.e_machine;
	err = elfsyms_read_segments(elf, out);
	if (err)
		goto out_segs;
	out->build_id_size = elfsyms_find_build_id(elf, out->build_id);
	out->symtab = symtab_new();
	err = elfsyms_load_symbols(elf, out);
	if (err)
		goto out_symtab;
	symtab_finish(out->symtab);
	out->cfi_symtab = cfi_symtab_new(elf, out->symtab);
	return 0;

out_symtab:
	symtab_free(out->symtab);
out_segs:
	free(out->segs);
	free(out->debuglink);
	memset(out, 0, sizeof(*out));
	return err;
}

int elfsyms_load(const char *path, struct elfsyms_image *out)
{
	Elf *elf;
	int fd, err;

	memset(out, 0, sizeof(*out));
	err = elfsyms_open(path, &fd, &elf);
	if (err)
		return err;
	err = elfsyms_load_elf(elf, out);
	elfsyms_close(fd, elf);
	return err;
}

int elfsyms_load_fd(int fd, struct elfsyms_image *out)
{
	Elf *elf;
	int err;

	memset(out, 0, sizeof(*out));
	err = elfsyms_begin_fd(fd, &elf);
	if (err)
		return err;
	err = elfsyms_load_elf(elf, out);
	elf_end(elf);
	return err;
}

int elfsyms_load_memory(const void *image, size_t size, struct elfsyms_image *out)
{
	char *copy;
	Elf *elf;
	int err;

	memset(out, 0, sizeof(*out));
	pthread_once(&elfsyms_once, elfsyms_init_once);
	if (!elfsyms_version_ok)
		return -ENOSYS;
	if (size == 0)
		return -ENOEXEC;
	/* libelf may convert in place, and image may be read-only (the
	 * vdso): it reads a private copy. */
	copy = xmalloc(size);
	memcpy(copy, image, size);
	elf = elf_memory(copy, size);
	if (!elf) {
		free(copy);
		return -ENOEXEC;
	}
	err = elf_kind(elf) == ELF_K_ELF ? elfsyms_load_elf(elf, out) : -ENOEXEC;
	elf_end(elf);
	free(copy);
	return err;
}

void elfsyms_release(struct elfsyms_image *img)
{
	if (!img)
		return;
	symtab_free(img->symtab);
	symtab_free(img->cfi_symtab);
	free(img->segs);
	free(img->debuglink);
	memset(img, 0, sizeof(*img));
}

int elfsyms_offset_to_vaddr(const struct elfsyms_image *img, uint64_t offset,
			      uint64_t *vaddr)
{
	const struct elfsyms_segment *best = NULL;
	size_t i;

	for (i = 0; i < img->nsegs; i++) {
		const struct elfsyms_segment *seg = &img->segs[i];

		if (offset < seg->offset || offset - seg->offset >= seg->filesz)
			continue;
		if (!best || (!(best->flags & PF_X) && (seg->flags & PF_X)))
			best = seg;
	}
	if (!best)
		return -ENOENT;
	*vaddr = offset - best->offset + best->vaddr;
	return 0;
}

/* How well a segment fits a data map: by its write permission, then not
 * code. */
static int elfsyms_data_rank(const struct elfsyms_segment *seg, bool writable)
{
	return (!!(seg->flags & PF_W) == writable) * 2 + !(seg->flags & PF_X);
}

int elfsyms_data_offset_to_vaddr(const struct elfsyms_image *img, uint64_t offset,
				  bool writable, uint64_t *vaddr)
{
	const struct elfsyms_segment *best = NULL;
	size_t i;

	for (i = 0; i < img->nsegs; i++) {
		const struct elfsyms_segment *seg = &img->segs[i];
		uint64_t size = seg->memsz > seg->filesz ? seg->memsz : seg->filesz;

		/* Its map starts at the page of its first byte. */
		if (offset < (seg->offset & ~(uint64_t)(ELFSYMS_DATA_PAGE - 1)) ||
		    offset >= seg->offset + size)
			continue;
		if (!best || elfsyms_data_rank(seg, writable) > elfsyms_data_rank(best, writable))
			best = seg;
	}
	if (!best)
		return -ENOENT;
	*vaddr = offset - best->offset + best->vaddr;
	return 0;
}

int elfsyms_load_objects(const char *path, int machine, struct symtab **out)
{
	Elf_Scn *symscn;
	GElf_Shdr symsh;
	GElf_Ehdr eh;
	struct symtab *st;
	Elf *elf;
	int fd, err;

	*out = NULL;
	err = elfsyms_open(path, &fd, &elf);
	if (err)
		return err;
	if (!gelf_getehdr(elf, &eh) || eh.e_machine != machine) {
		elfsyms_close(fd, elf);
		return -ENOEXEC;
	}
	st = symtab_new();
	symscn = elfsyms_find_symtab(elf, &symsh, SHT_SYMTAB);
	if (!symscn)
		symscn = elfsyms_find_symtab(elf, &symsh, SHT_DYNSYM);
	if (symscn)
		err = elfsyms_read_symbols(elf, symscn, &symsh, machine, st, NULL, true);
	elfsyms_close(fd, elf);
	if (err) {
		symtab_free(st);
		return err;
	}
	symtab_finish(st);
	*out = st;
	return 0;
}

int elfsyms_read_build_id(const char *path, uint8_t id[ELFSYMS_BUILD_ID_MAX])
{
	Elf *elf;
	int fd, err;
	size_t n;

	err = elfsyms_open(path, &fd, &elf);
	if (err)
		return err;
	n = elfsyms_find_build_id(elf, id);
	elfsyms_close(fd, elf);
	return (int)n;
}

int elfsyms_read_build_id_fd(int fd, uint8_t id[ELFSYMS_BUILD_ID_MAX])
{
	Elf *elf;
	int err;
	size_t n;

	err = elfsyms_begin_fd(fd, &elf);
	if (err)
		return err;
	n = elfsyms_find_build_id(elf, id);
	elf_end(elf);
	return (int)n;
}

bool elfsyms_fd_has_build_id(int fd, const uint8_t *id, size_t size)
{
	uint8_t have[ELFSYMS_BUILD_ID_MAX];
	int n = elfsyms_read_build_id_fd(fd, have);
	size_t i;

	if (n <= 0 || (size_t)n > size || memcmp(have, id, (size_t)n) != 0)
		return false;
	for (i = (size_t)n; i < size; i++)
		if (id[i])
			return false;
	return true;
}

/* A debug file that adds no symbols: taken (0) when its .debug_frame
 * adds functions (cfi, from cfi_symtab_debug: fresh of them new). */
static int elfsyms_merge_cfi(struct elfsyms_image *img, struct symtab *cfi, size_t fresh)
{
	if (!fresh) {
		symtab_free(cfi);
		return -ENODATA;
	}
	symtab_free(img->cfi_symtab);
	img->cfi_symtab = cfi;
	return 0;
}

int elfsyms_merge_debug(struct elfsyms_image *img, const char *path)
{
	struct symtab *st, *dbg, *cfi = NULL;
	Elf_Scn *symscn = NULL;
	GElf_Shdr symsh;
	GElf_Ehdr eh;
	size_t i, n, nd, cfi_new = 0;
	Elf *elf;
	int fd, err;

	err = elfsyms_open(path, &fd, &elf);
	if (err)
		return err;
	/* Its .debug_frame's functions too (code without unwind tables). */
	if (gelf_getehdr(elf, &eh) && eh.e_machine == img->machine) {
		cfi = cfi_symtab_debug(elf, img->cfi_symtab, img->symtab, &cfi_new);
		symscn = elfsyms_find_symtab(elf, &symsh, SHT_SYMTAB);
	}
	if (!symscn) {
		elfsyms_close(fd, elf);
		return elfsyms_merge_cfi(img, cfi, cfi_new);
	}
	dbg = symtab_new();
	err = elfsyms_read_symbols(elf, symscn, &symsh, img->machine, dbg, NULL, false);
	elfsyms_close(fd, elf);
	if (err) {
		symtab_free(cfi);
		symtab_free(dbg);
		return err;
	}
	/* The debug file's names, plus img's symbols at starts it has no
	 * symbol for (func@plt): at a shared start the debug file's name
	 * stays, as perf uses only the debug file's table there. */
	symtab_finish(dbg);
	nd = symtab_count(dbg);
	n = symtab_count(img->symtab);
	st = symtab_new();
	symtab_reserve(st, nd + n, 0);
	for (i = 0; i < nd; i++) {
		const struct symbol *s = symtab_get(dbg, i);

		symtab_add(st, s->start, s->end - s->start, SYMTAB_GLOBAL, s->name, s->end);
	}
	for (i = 0; i < n; i++) {
		const struct symbol *s = symtab_get(img->symtab, i);
		const struct symbol *d = symtab_lookup(dbg, s->start);

		if (!d || d->start != s->start)
			symtab_add(st, s->start, s->end - s->start, SYMTAB_GLOBAL, s->name, s->end);
	}
	symtab_free(dbg);
	symtab_finish(st);
	if (symtab_count(st) <= n) {
		symtab_free(st);
		return elfsyms_merge_cfi(img, cfi, cfi_new);
	}
	symtab_free(img->symtab);
	img->symtab = st;
	/* The debug file's names replace the synthetic ones they cover. */
	dbg = cfi_symtab_refine(cfi ? cfi : img->cfi_symtab, st);
	symtab_free(cfi);
	symtab_free(img->cfi_symtab);
	img->cfi_symtab = dbg;
	return 0;
}

/* The PT_LOAD of elf that holds vaddr in its file part: the file offset of
 * vaddr and how many file bytes follow it there. */
static int elfsyms_code_offset(Elf *elf, uint64_t vaddr, uint64_t *off, uint64_t *avail)
{
	size_t phnum, i;
	GElf_Phdr ph;

	if (elf_getphdrnum(elf, &phnum) != 0)
		return -ENOEXEC;
	for (i = 0; i < phnum; i++) {
		if (!gelf_getphdr(elf, (int)i, &ph) || ph.p_type != PT_LOAD)
			continue;
		if (vaddr < ph.p_vaddr || vaddr - ph.p_vaddr >= ph.p_filesz)
			continue;
		*off = ph.p_offset + (vaddr - ph.p_vaddr);
		*avail = ph.p_filesz - (vaddr - ph.p_vaddr);
		return 0;
	}
	return -ENOENT;
}

int elfsyms_read_code(const char *path, const uint8_t *id, size_t id_size, uint64_t vaddr,
		      uint64_t size, uint8_t **out, size_t *len, int *e_machine,
		      struct errmsg *em)
{
	uint8_t file_id[ELFSYMS_BUILD_ID_MAX];
	uint64_t off, avail, want;
	GElf_Ehdr eh;
	Elf *elf;
	uint8_t *buf;
	int fd, err;

	err = elfsyms_open(path, &fd, &elf);
	if (err)
		return errmsg_set(em, err, "%s: %s", path,
				  err == -ENOEXEC ? "not a usable ELF file" : strerror(-err));
	err = -ENOEXEC;
	if (!gelf_getehdr(elf, &eh))
		goto out;
	if (id_size && (elfsyms_find_build_id(elf, file_id) != id_size ||
			memcmp(file_id, id, id_size) != 0)) {
		err = errmsg_set(em, -ESTALE, "%s: build ID differs from the symbols' file", path);
		goto out;
	}
	err = elfsyms_code_offset(elf, vaddr, &off, &avail);
	if (err) {
		errmsg_set(em, err, "%s: no code in the file at 0x%llx", path,
			   (unsigned long long)vaddr);
		goto out;
	}
	want = size < avail ? size : avail;
	if (want > ELFSYMS_CODE_MAX)
		want = ELFSYMS_CODE_MAX;
	buf = xmalloc(want ? want : 1);
	*out = buf;
	*len = fileread_at(fd, buf, want, off);
	*e_machine = eh.e_machine;
	err = 0;
out:
	elfsyms_close(fd, elf);
	return err;
}
