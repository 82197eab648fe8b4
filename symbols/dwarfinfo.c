/* Inlined frames and source lines from libdw, for displayed addresses only:
 * one Dwfl session per file (a few kept open), answers cached per
 * (file, address) with interned strings. */
#include "config.h"

#include "dwarfinfo.h"

#include <dwarf.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwfl.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "demangle.h"
#include "nsopen.h"
#include "util.h"

#define DWARFINFO_MAX_FILES 8
#define DWARFINFO_MAX_INLINES 64

struct dwarfinfo_file {
	const char *path; /* interned: the identity (the file's path, with
				   the build ID it must have) */
	Dwfl *dwfl;	  /* NULL when the file could not be used */
	Dwfl_Module *mod;
	int err;       /* -errno remembered for a failed file */
	uint64_t used; /* LRU clock */
};

struct dwarfinfo_entry {
	const char *path; /* the file's identity, interned; NULL: empty slot */
	uint64_t addr;
	size_t pool_off;       /* its inline frames: pool[pool_off..+nr_inlines) */
	struct dwarfinfo info; /* .inlines set from pool_off when handed out */
};

struct dwarfinfo_cache {
	pthread_mutex_t lock;
	struct dwarfinfo_file files[DWARFINFO_MAX_FILES];
	size_t nfiles;
	/* Failed files, never retried (interned paths). */
	const char **bad;
	int *bad_err;
	size_t nbad, bad_cap;
	struct dwarfinfo_entry *slots; /* open addressing, power of two */
	size_t nslots, nentries, max_entries;
	struct dwarfinfo_inline *pool; /* inline frames of every entry */
	size_t npool, pool_cap;
	uint64_t clock;
	struct dwarfinfo_stats stats;
};

static const Dwfl_Callbacks dwarfinfo_callbacks;

/* libdwfl asks its debuginfod client itself when DEBUGINFOD_URLS is set:
 * search the disk only, and not even that then. */
static int dwarfinfo_find_debuginfo(Dwfl_Module *mod, void **userdata, const char *modname,
				    Dwarf_Addr base, const char *file_name,
				    const char *debuglink_file, GElf_Word debuglink_crc,
				    char **debuginfo_file_name)
{
	const char *urls = getenv("DEBUGINFOD_URLS");
	const char *inner;
	uint32_t pid;

	if (urls && *urls)
		return -1;
	/* A file under a process's root: libdwfl would open the debuglink
	 * candidates beside it by name, following the container's symlinks
	 * anywhere.  machine.c searched there already, through nsopen. */
	if ((file_name && nsopen_split(file_name, &pid, &inner)) ||
	    (modname && nsopen_split(modname, &pid, &inner)))
		return -1;
	return dwfl_standard_find_debuginfo(mod, userdata, modname, base, file_name, debuglink_file,
					    debuglink_crc, debuginfo_file_name);
}

static char *dwarfinfo_debuginfo_path;

static const Dwfl_Callbacks dwarfinfo_callbacks = {
	.find_elf = dwfl_build_id_find_elf,
	.find_debuginfo = dwarfinfo_find_debuginfo,
	.section_address = dwfl_offline_section_address,
	.debuginfo_path = &dwarfinfo_debuginfo_path,
};

struct dwarfinfo_cache *dwarfinfo_cache_new(size_t max_entries)
{
	struct dwarfinfo_cache *c = xcalloc(1, sizeof(*c));

	pthread_mutex_init(&c->lock, NULL);
	c->max_entries = max_entries ? max_entries : 16384;
	c->nslots = 64;
	while (c->nslots < 2 * c->max_entries && c->nslots < (1u << 20))
		c->nslots *= 2;
	c->slots = xcalloc(c->nslots, sizeof(*c->slots));
	return c;
}

static void dwarfinfo_file_close(struct dwarfinfo_file *f)
{
	if (f->dwfl)
		dwfl_end(f->dwfl);
	memset(f, 0, sizeof(*f));
}

void dwarfinfo_cache_free(struct dwarfinfo_cache *c)
{
	size_t i;

	if (!c)
		return;
	for (i = 0; i < c->nfiles; i++)
		dwarfinfo_file_close(&c->files[i]);
	free(c->bad);
	free(c->bad_err);
	free(c->slots);
	free(c->pool);
	pthread_mutex_destroy(&c->lock);
	free(c);
}

/* A Dwfl with the file alone, at bias 0: its addresses are the ELF's
 * vaddrs.  Returns 0 or -errno. */
static int dwarfinfo_file_open(struct dwarfinfo_file *f, const char *key, const char *path,
			       const uint8_t *id, size_t size)
{
	/* Under /proc/PID/root, opened inside that root; and only a regular
	 * file (a FIFO would block). */
	int fd = nsopen_file(path);

	f->path = key;
	if (fd < 0)
		return f->err = fd;
	f->dwfl = dwfl_begin(&dwarfinfo_callbacks);
	if (!f->dwfl) {
		close(fd);
		return f->err = -ENOMEM;
	}
	dwfl_report_begin(f->dwfl);
	/* dwfl takes the fd (closed by dwfl_end). */
	f->mod = dwfl_report_elf(f->dwfl, path, path, fd, 0, false);
	dwfl_report_end(f->dwfl, NULL, NULL);
	if (!f->mod) {
		close(fd);
		dwfl_end(f->dwfl);
		f->dwfl = NULL;
		return f->err = -ENOEXEC;
	}
	if (size) {
		const unsigned char *bits;
		GElf_Addr vaddr;
		int n = dwfl_module_build_id(f->mod, &bits, &vaddr);

		if (n <= 0 || (size_t)n != size || memcmp(bits, id, size) != 0) {
			dwfl_end(f->dwfl);
			f->dwfl = NULL;
			f->mod = NULL;
			return f->err = -ESTALE;
		}
	}
	{
		Dwarf_Addr bias;

		if (!dwfl_module_getdwarf(f->mod, &bias)) {
			dwfl_end(f->dwfl);
			f->dwfl = NULL;
			f->mod = NULL;
			return f->err = -ENODATA;
		}
	}
	return 0;
}

/* The open file for path, opening it (closing the least recently used)
 * when needed; NULL with *err when it cannot be used. */
static struct dwarfinfo_file *dwarfinfo_file_get(struct dwarfinfo_cache *c, const char *key,
						 const char *path, const uint8_t *id, size_t size,
						 int *err)
{
	struct dwarfinfo_file *f = NULL;
	size_t i;
	int r;

	for (i = 0; i < c->nbad; i++)
		if (c->bad[i] == key) {
			*err = c->bad_err[i];
			return NULL;
		}
	for (i = 0; i < c->nfiles; i++)
		if (c->files[i].path == key) {
			c->files[i].used = ++c->clock;
			return &c->files[i];
		}
	if (c->nfiles < DWARFINFO_MAX_FILES) {
		f = &c->files[c->nfiles++];
	} else {
		f = &c->files[0];
		for (i = 1; i < c->nfiles; i++)
			if (c->files[i].used < f->used)
				f = &c->files[i];
		dwarfinfo_file_close(f);
	}
	c->stats.files_opened++;
	r = dwarfinfo_file_open(f, key, path, id, size);
	if (r < 0) {
		if (c->nbad == c->bad_cap) {
			size_t cap = c->bad_cap;

			c->bad = xgrow(c->bad, &cap, c->nbad + 1, sizeof(*c->bad));
			c->bad_err = xrealloc(c->bad_err, cap * sizeof(*c->bad_err));
			c->bad_cap = cap;
		}
		c->bad[c->nbad] = key;
		c->bad_err[c->nbad++] = r;
		dwarfinfo_file_close(f);
		/* Give the slot back: it is the last one or a closed LRU. */
		if (f == &c->files[c->nfiles - 1])
			c->nfiles--;
		else
			*f = c->files[--c->nfiles];
		*err = r;
		return NULL;
	}
	f->used = ++c->clock;
	return f;
}

/* The readable name of a function DIE (abstract origin followed). */
static const char *dwarfinfo_die_name(Dwarf_Die *die)
{
	Dwarf_Attribute attr;
	const char *name = NULL;
	char *dem;

	if (dwarf_attr_integrate(die, DW_AT_linkage_name, &attr) ||
	    dwarf_attr_integrate(die, DW_AT_MIPS_linkage_name, &attr))
		name = dwarf_formstring(&attr);
	if (name && (dem = demangle(name))) {
		const char *r = intern(dem);

		free(dem);
		return r;
	}
	if (!name)
		name = dwarf_diename(die);
	return name ? intern(name) : NULL;
}

/* dir/file interned, or file alone when it is absolute or dir is empty:
 * eu-addr2line's name for a relative file. */
static const char *dwarfinfo_join(const char *dir, const char *file)
{
	char *full;
	const char *r;

	if (file[0] == '/' || !dir || !dir[0])
		return intern(file);
	full = xasprintf("%s/%s", dir, file);
	r = intern(full);
	free(full);
	return r;
}

/* The file an attribute of die names (DW_AT_call_file, DW_AT_decl_file,
 * the latter through an abstract origin), with the directory of its CU's
 * line table in front as eu-addr2line puts it (dirs[0]); NULL when the
 * DWARF does not say. */
static const char *dwarfinfo_file_attr(Dwarf_Die *die, unsigned int name)
{
	Dwarf_Attribute attr;
	Dwarf_Word idx;
	Dwarf_Files *files;
	Dwarf_Die cudie;
	const char *const *dirs;
	size_t nfiles, ndirs;
	const char *s;

	if (!dwarf_attr_integrate(die, name, &attr) || dwarf_formudata(&attr, &idx) != 0 ||
	    !dwarf_cu_die(attr.cu, &cudie, NULL, NULL, NULL, NULL, NULL, NULL))
		return NULL;
	if (dwarf_getsrcfiles(&cudie, &files, &nfiles) != 0 || idx >= nfiles ||
	    !(s = dwarf_filesrc(files, idx, NULL, NULL)))
		return NULL;
	if (dwarf_getsrcdirs(files, &dirs, &ndirs) != 0 || !ndirs)
		dirs = NULL;
	return dwarfinfo_join(dirs ? dirs[0] : NULL, s);
}

/* A DW_AT_call_line or DW_AT_decl_line (through an abstract origin), or 0. */
static unsigned dwarfinfo_line_attr(Dwarf_Die *die, unsigned int name)
{
	Dwarf_Attribute attr;
	Dwarf_Word line;

	if (!dwarf_attr_integrate(die, name, &attr) || dwarf_formudata(&attr, &line) != 0)
		return 0;
	return (unsigned)line;
}

/* A line table row's file (full path, interned) and line. */
static void dwarfinfo_line_of(Dwfl_Line *l, const char **out_file, unsigned *out_line)
{
	const char *file;
	int line = 0;

	*out_file = NULL;
	*out_line = 0;
	if (!l || !(file = dwfl_lineinfo(l, NULL, &line, NULL, NULL, NULL)))
		return;
	/* DWARF 5 names files from the compilation's directory: the full
	 * path, as eu-addr2line prints it (srcline keeps only the base name). */
	*out_file = dwarfinfo_join(file[0] != '/' ? dwfl_line_comp_dir(l) : NULL, file);
	*out_line = line > 0 ? (unsigned)line : 0;
}

/* Fill info for addr from the module: line table, then the scopes. */
static void dwarfinfo_query(struct dwarfinfo_cache *c, struct dwarfinfo_file *f, uint64_t addr,
			    struct dwarfinfo_entry *e)
{
	struct dwarfinfo *info = &e->info;
	Dwfl_Line *l;
	Dwarf_Addr bias = 0;
	Dwarf_Die *cu, *scopes = NULL, *chain = NULL;
	int n, i;
	size_t first = c->npool;

	memset(info, 0, sizeof(*info));
	e->pool_off = first;
	l = dwfl_module_getsrc(f->mod, addr);
	dwarfinfo_line_of(l, &info->file, &info->line);
	cu = dwfl_module_addrdie(f->mod, addr, &bias);
	if (!cu)
		return;
	n = dwarf_getscopes(cu, addr - bias, &scopes);
	if (n <= 0) {
		free(scopes);
		return;
	}
	/* scopes[0] is the innermost; its parents through the callers (not
	 * the abstract definition) come from dwarf_getscopes_die. */
	n = dwarf_getscopes_die(&scopes[0], &chain);
	for (i = 0; i < n; i++) {
		int tag = dwarf_tag(&chain[i]);

		if (tag == DW_TAG_inlined_subroutine) {
			struct dwarfinfo_inline *in;

			if (c->npool - first >= DWARFINFO_MAX_INLINES)
				continue;
			if (c->npool == c->pool_cap)
				c->pool = xgrow(c->pool, &c->pool_cap, c->npool + 1,
						sizeof(*c->pool));
			in = &c->pool[c->npool++];
			in->name = dwarfinfo_die_name(&chain[i]);
			if (!in->name)
				in->name = intern("[unknown]");
			in->call_file = dwarfinfo_file_attr(&chain[i], DW_AT_call_file);
			in->call_line = dwarfinfo_line_attr(&chain[i], DW_AT_call_line);
			in->decl_file = dwarfinfo_file_attr(&chain[i], DW_AT_decl_file);
			in->decl_line = dwarfinfo_line_attr(&chain[i], DW_AT_decl_line);
		} else if (tag == DW_TAG_subprogram) {
			info->function = dwarfinfo_die_name(&chain[i]);
			info->function_file = dwarfinfo_file_attr(&chain[i], DW_AT_decl_file);
			info->function_line = dwarfinfo_line_attr(&chain[i], DW_AT_decl_line);
			break;
		}
	}
	free(chain);
	free(scopes);
	info->nr_inlines = c->npool - first;
	e->pool_off = first;
}

static size_t dwarfinfo_slot_of(const struct dwarfinfo_cache *c, const char *path, uint64_t addr)
{
	uint64_t h = ((uintptr_t)path * 0x9e3779b97f4a7c15ULL) ^ (addr * 0xbf58476d1ce4e5b9ULL);

	h ^= h >> 29;
	return (size_t)h & (c->nslots - 1);
}

/* Start over: every entry and the inline pool go (their strings stay). */
static void dwarfinfo_cache_clear(struct dwarfinfo_cache *c)
{
	memset(c->slots, 0, c->nslots * sizeof(*c->slots));
	c->nentries = 0;
	c->npool = 0;
}

int dwarfinfo_lookup(struct dwarfinfo_cache *c, const char *path, uint64_t addr,
		     const struct dwarfinfo **out)
{
	return dwarfinfo_lookup_id(c, path, NULL, 0, addr, out);
}

/* A file's identity in the cache: its path with the build ID it must
 * have, interned. */
static const char *dwarfinfo_key(const char *file, const uint8_t *id, size_t size)
{
	const char *path;
	char *k;
	size_t i, n;

	if (!size)
		return intern(file);
	k = xmalloc(strlen(file) + 2 * size + 2);
	n = (size_t)sprintf(k, "%s@", file);
	for (i = 0; i < size; i++)
		n += (size_t)sprintf(k + n, "%02x", id[i]);
	path = intern(k);
	free(k);
	return path;
}

/* Mark the addresses inside each inlined subroutine under parent (in
 * DIE order, so the innermost comes last and stays). */
static void dwarfinfo_mark_inlines(Dwarf_Die *parent, Dwarf_Addr bias, const uint64_t *addrs,
				   size_t n, struct dwarfinfo_line *out)
{
	Dwarf_Die child;

	if (dwarf_child(parent, &child) != 0)
		return;
	do {
		int tag = dwarf_tag(&child);

		/* A nested function is code of its own. */
		if (tag == DW_TAG_subprogram)
			continue;
		if (tag == DW_TAG_inlined_subroutine) {
			const char *name = dwarfinfo_die_name(&child);
			Dwarf_Addr base, lo, hi;
			ptrdiff_t off = 0;

			if (!name)
				name = intern("[unknown]");
			while ((off = dwarf_ranges(&child, off, &base, &lo, &hi)) > 0) {
				size_t a = 0, b = n;

				/* The first address at or past lo + bias. */
				while (a < b) {
					size_t mid = a + (b - a) / 2;

					if (addrs[mid] < lo + bias)
						a = mid + 1;
					else
						b = mid;
				}
				for (; a < n && addrs[a] < hi + bias; a++)
					out[a].inlined = name;
			}
		}
		dwarfinfo_mark_inlines(&child, bias, addrs, n, out);
	} while (dwarf_siblingof(&child, &child) == 0);
}

int dwarfinfo_lines_id(struct dwarfinfo_cache *c, const char *file, const uint8_t *id,
		       size_t size, const uint64_t *addrs, size_t n, struct dwarfinfo_line *out)
{
	struct dwarfinfo_file *f;
	Dwarf_Die *cu, *scopes = NULL;
	Dwarf_Addr bias = 0;
	int err = 0, ns, k;
	size_t i;

	if (!c || !file || (size && !id))
		return -EINVAL;
	memset(out, 0, n * sizeof(*out));
	pthread_mutex_lock(&c->lock);
	f = dwarfinfo_file_get(c, dwarfinfo_key(file, id, size), file, id, size, &err);
	if (!f) {
		pthread_mutex_unlock(&c->lock);
		return err;
	}
	for (i = 0; i < n; i++)
		dwarfinfo_line_of(dwfl_module_getsrc(f->mod, addrs[i]), &out[i].file, &out[i].line);
	/* The function around the first address: its DIE tree, once. */
	if (n && (cu = dwfl_module_addrdie(f->mod, addrs[0], &bias)) &&
	    (ns = dwarf_getscopes(cu, addrs[0] - bias, &scopes)) > 0) {
		for (k = 0; k < ns; k++)
			if (dwarf_tag(&scopes[k]) == DW_TAG_subprogram) {
				dwarfinfo_mark_inlines(&scopes[k], bias, addrs, n, out);
				break;
			}
	}
	free(scopes);
	pthread_mutex_unlock(&c->lock);
	return 0;
}

int dwarfinfo_lookup_id(struct dwarfinfo_cache *c, const char *file, const uint8_t *id, size_t size,
			uint64_t addr, const struct dwarfinfo **out)
{
	struct dwarfinfo_file *f;
	struct dwarfinfo_entry *e;
	const char *path;
	size_t j;
	int err = 0;

	if (!c || !file || (size && !id))
		return -EINVAL;
	path = dwarfinfo_key(file, id, size);
	pthread_mutex_lock(&c->lock);
	for (j = dwarfinfo_slot_of(c, path, addr); c->slots[j].path; j = (j + 1) & (c->nslots - 1))
		if (c->slots[j].path == path && c->slots[j].addr == addr) {
			c->stats.hits++;
			e = &c->slots[j];
			e->info.inlines = e->info.nr_inlines ? c->pool + e->pool_off : NULL;
			*out = &e->info;
			pthread_mutex_unlock(&c->lock);
			return 0;
		}
	f = dwarfinfo_file_get(c, path, file, id, size, &err);
	if (!f) {
		pthread_mutex_unlock(&c->lock);
		return err;
	}
	if (c->nentries >= c->max_entries) {
		dwarfinfo_cache_clear(c);
		j = dwarfinfo_slot_of(c, path, addr);
	}
	c->stats.misses++;
	e = &c->slots[j];
	e->path = path;
	e->addr = addr;
	dwarfinfo_query(c, f, addr, e);
	c->nentries++;
	/* The pool may move on the next query: the pointer is set now. */
	e->info.inlines = e->info.nr_inlines ? c->pool + e->pool_off : NULL;
	*out = &e->info;
	pthread_mutex_unlock(&c->lock);
	return 0;
}

const char *dwarfinfo_srcline(const struct dwarfinfo *info)
{
	char buf[4096];
	const char *base;

	if (!info || !info->file)
		return NULL;
	base = strrchr(info->file, '/');
	base = base ? base + 1 : info->file;
	if (info->line)
		snprintf(buf, sizeof(buf), "%s:%u", base, info->line);
	else
		snprintf(buf, sizeof(buf), "%s:?", base);
	return intern(buf);
}

void dwarfinfo_cache_stats(struct dwarfinfo_cache *c, struct dwarfinfo_stats *out)
{
	pthread_mutex_lock(&c->lock);
	*out = c->stats;
	out->entries = c->nentries;
	pthread_mutex_unlock(&c->lock);
}
