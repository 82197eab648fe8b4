/* The kernel image behind kallsyms: the running kernel's build ID, a
 * vmlinux with that ID where distributions put one, and the exact
 * function sizes it gives kallsyms' symbols. */
#include "config.h"

#include "vmlinux.h"

#include <errno.h>
#include <gelf.h>
#include <libelf.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "elfsyms.h"
#include "errmsg.h"
#include "kallsyms.h"
#include "nsopen.h"
#include "symtab.h"
#include "util.h"

int vmlinux_running_build_id(uint8_t id[20])
{
	char *buf;
	size_t len, off = 0;
	int err = read_file("/sys/kernel/notes", 1 << 16, &buf, &len);

	if (err)
		return err;
	/* A run of ELF notes: namesz, descsz, type, name, desc (4-aligned). */
	while (off + 12 <= len) {
		uint32_t namesz, descsz, type;
		size_t name_off, desc_off, next;

		memcpy(&namesz, buf + off, 4);
		memcpy(&descsz, buf + off + 4, 4);
		memcpy(&type, buf + off + 8, 4);
		name_off = off + 12;
		desc_off = name_off + (((size_t)namesz + 3) & ~(size_t)3);
		next = desc_off + (((size_t)descsz + 3) & ~(size_t)3);
		if (namesz > len || descsz > len || next > len)
			break;
		if (type == 3 /* NT_GNU_BUILD_ID */ && namesz == 4 &&
		    memcmp(buf + name_off, "GNU", 4) == 0) {
			size_t n = descsz > 20 ? 20 : descsz;

			memcpy(id, buf + desc_off, n);
			free(buf);
			return (int)n;
		}
		off = next;
	}
	free(buf);
	return 0;
}

static void vmlinux_hex(char *out, const uint8_t *id, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		sprintf(out + 2 * i, "%02x", id[i]);
	out[2 * n] = '\0';
}

/* The _stext and _text markers of a vmlinux (0 when absent): not
 * functions, so not in its symbol table as elfsyms reads it. */
static void vmlinux_markers(const char *path, uint64_t *stext, uint64_t *text)
{
	int fd = nsopen_file(path);
	Elf *elf;
	Elf_Scn *scn = NULL;

	*stext = *text = 0;
	if (fd < 0)
		return;
	elf_version(EV_CURRENT);
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	while (elf && (scn = elf_nextscn(elf, scn)) != NULL) {
		GElf_Shdr sh;
		Elf_Data *data;
		size_t i, n;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_SYMTAB || !sh.sh_entsize)
			continue;
		data = elf_getdata(scn, NULL);
		n = data ? data->d_size / sh.sh_entsize : 0;
		for (i = 0; i < n; i++) {
			GElf_Sym sym;
			const char *name;

			if (!gelf_getsym(data, (int)i, &sym) ||
			    !(name = elf_strptr(elf, sh.sh_link, sym.st_name)))
				continue;
			if (strcmp(name, "_stext") == 0)
				*stext = sym.st_value;
			else if (strcmp(name, "_text") == 0)
				*text = sym.st_value;
		}
	}
	if (elf)
		elf_end(elf);
	close(fd);
}

/* The KASLR shift: kallsyms' _stext (or _text) against the vmlinux's,
 * else where a vmlinux function sits in kallsyms, found by name (a few
 * tries: aliases may be named differently in the two). */
static bool vmlinux_offset(const struct kernel_syms *ks, const char *path,
			   const struct symtab *vm, const struct symtab *k, uint64_t *off)
{
	size_t nv = symtab_count(vm), nk = symtab_count(k), tries, i, j;
	uint64_t stext, text;

	vmlinux_markers(path, &stext, &text);
	if (ks->image.stext && stext) {
		*off = ks->image.stext - stext;
		return true;
	}
	if (ks->image.text && text) {
		*off = ks->image.text - text;
		return true;
	}

	for (tries = 0; tries < 8 && tries < nv; tries++) {
		const struct symbol *v = symtab_get(vm, tries * nv / 8);

		for (j = 0; j < nk; j++) {
			const struct symbol *kj = symtab_get(k, j);

			if (strcmp(kj->name, v->name) == 0) {
				*off = kj->start - v->start;
				/* Another one must agree. */
				for (i = 0; i < nv; i++) {
					const struct symbol *w = symtab_get(vm, i), *kw;

					if (w == v)
						continue;
					kw = symtab_lookup(k, w->start + *off);
					if (kw && kw->start == w->start + *off &&
					    strcmp(kw->name, w->name) == 0)
						return true;
				}
				return nv == 1;
			}
		}
	}
	return false;
}

int vmlinux_use(struct kernel_syms *ks, const char *path, const uint8_t *id, size_t id_size,
		struct errmsg *em)
{
	struct elfsyms_image img;
	struct symtab *st;
	uint64_t off = 0;
	char have[2 * ELFSYMS_BUILD_ID_MAX + 1], want[2 * ELFSYMS_BUILD_ID_MAX + 1];
	size_t i, n;
	int err;

	if ((err = elfsyms_load(path, &img)) != 0)
		return errmsg_set(em, err, "%s: %s", path,
				  err == -ENOEXEC ? "not an ELF file with symbols" : strerror(-err));
	if (!id_size || !img.build_id_size || img.build_id_size != id_size ||
	    memcmp(img.build_id, id, id_size) != 0) {
		vmlinux_hex(have, img.build_id, img.build_id_size);
		vmlinux_hex(want, id, id_size);
		if (!id_size)
			errmsg_set(em, -EINVAL, "%s: the kernel's build ID is unknown "
				   "(/sys/kernel/notes): cannot check it", path);
		else if (!img.build_id_size)
			errmsg_set(em, -EINVAL, "%s has no build ID: cannot tell whether it is "
				   "the kernel's (%s)", path, want);
		else
			errmsg_set(em, -EINVAL, "%s is another kernel's: build ID %s, the "
				   "kernel's is %s", path, have, want);
		elfsyms_release(&img);
		return -EINVAL;
	}
	n = symtab_count(img.symtab);
	if (n == 0 || !ks->kernel || !vmlinux_offset(ks, path, img.symtab, ks->kernel, &off)) {
		elfsyms_release(&img);
		return errmsg_set(em, -EINVAL, "%s: its symbols do not match /proc/kallsyms", path);
	}
	/* vmlinux's sized functions, and what kallsyms has outside them
	 * (code the image does not describe: trampolines, bpf...). */
	st = symtab_new();
	symtab_reserve(st, n + symtab_count(ks->kernel), 0);
	for (i = 0; i < n; i++) {
		const struct symbol *v = symtab_get(img.symtab, i);

		symtab_add(st, v->start + off, v->end - v->start, SYMTAB_GLOBAL, v->name,
			   v->end + off);
	}
	for (i = 0; i < symtab_count(ks->kernel); i++) {
		const struct symbol *k = symtab_get(ks->kernel, i);

		if (!k->name[0] || symtab_lookup(img.symtab, k->start - off))
			continue;
		symtab_add(st, k->start, 0, SYMTAB_LOCAL, k->name, k->end);
	}
	symtab_finish(st);
	symtab_free(ks->kernel);
	ks->kernel = st;
	elfsyms_release(&img);
	return 0;
}

char *vmlinux_find(const char *root, const char *release, const uint8_t *id, size_t id_size)
{
	char hex[2 * ELFSYMS_BUILD_ID_MAX + 1];
	char *cand[4];
	char *found = NULL;
	size_t i;

	if (!id_size || id_size > ELFSYMS_BUILD_ID_MAX)
		return NULL;
	vmlinux_hex(hex, id, id_size);
	root = root ? root : "";
	cand[0] = xasprintf("%s/usr/lib/debug/.build-id/%.2s/%s.debug", root, hex, hex + 2);
	cand[1] = xasprintf("%s/usr/lib/debug/boot/vmlinux-%s", root, release);
	cand[2] = xasprintf("%s/boot/vmlinux-%s", root, release);
	cand[3] = xasprintf("%s/lib/modules/%s/build/vmlinux", root, release);
	for (i = 0; i < 4; i++) {
		uint8_t have[ELFSYMS_BUILD_ID_MAX];

		if (!found && elfsyms_read_build_id(cand[i], have) == (int)id_size &&
		    memcmp(have, id, id_size) == 0) {
			found = cand[i];
			continue;
		}
		free(cand[i]);
	}
	return found;
}
