/* DSOs: one per path and identity, the file their symbols are read from
 * (and the debug file, local or from debuginfod), their symbolization,
 * and the DWARF answers (source lines, inlined frames) the views ask for.
 *
 * Identity: one DSO per (path, build ID) when the build ID is known (MMAP2
 * with PERF_RECORD_MISC_MMAP_BUILD_ID, perf.data's BUILD_ID feature), else
 * per (path, inode).  A binary replaced on disk therefore gets a new DSO,
 * and the old one reads its names only from a file with its identity: the
 * file at its path, /proc/PID/map_files/ of a live process mapping it,
 * perf's build-id cache, debug files by build ID; failing all it is
 * [unknown] under a name marked "(deleted)" or "(build-id mismatch)",
 * never the new file's names. */
#include "config.h"

#include "dso.h"

#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "buildid-cache.h"
#include "debugfile.h"
#include "debuginfod.h"
#include "dwarfinfo.h"
#include "elfsyms.h"
#include "hash.h"
#include "hashtab.h"
#include "machine-impl.h"
#include "nsopen.h"
#include "symtab.h"
#include "util.h"

static uint64_t dso_hash(const void *ctx, uint32_t idx)
{
	const struct machine *m = ctx;

	return hash_fnv1a(m->dsos[idx]->path);
}

static bool starts_with(const char *s, const char *prefix)
{
	return strncmp(s, prefix, strlen(prefix)) == 0;
}

/* What a map's path says about the object behind it. */
enum dso_kind dso_kind_from_path(const char *path)
{
	if (!path[0] || strcmp(path, "//anon") == 0 || starts_with(path, "/memfd:") ||
	    starts_with(path, "/anon_hugepage") || starts_with(path, "/dev/zero") ||
	    starts_with(path, "/SYSV"))
		return DSO_ANON;
	if (strcmp(path, "[vdso]") == 0)
		return DSO_VDSO;
	if (strcmp(path, "[kernel.kallsyms]") == 0)
		return DSO_KERNEL;
	/* [heap], [stack], [stack:TID], [anon:name], [vsyscall], [uprobes]... */
	if (path[0] == '[')
		return DSO_ANON;
	return DSO_USER;
}

static const char deleted_marker[] = " (deleted)";

struct dso *dso_new(const char *path, enum dso_kind kind)
{
	struct dso *d = xcalloc(1, sizeof(*d));
	size_t len = strlen(path), mlen = sizeof(deleted_marker) - 1;
	const char *base;

	d->path = xstrdup(path);
	/* A deleted file may still be there under its old name (a package
	 * upgrade renames over it): try the path without the marker. */
	if (len > mlen && strcmp(path + len - mlen, deleted_marker) == 0)
		d->open_path = xstrndup(path, len - mlen);
	else
		d->open_path = xstrdup(path);
	base = strrchr(d->open_path, '/');
	/* Pseudo-paths ("[heap]", "//anon") are names, not files. */
	if (path[0] == '[' || starts_with(path, "//") || !base)
		d->short_name = xstrdup(path);
	else
		d->short_name = xstrdup(path + (base + 1 - d->open_path));
	d->kind = kind;
	/* Only ELF files have symbols to load. */
	d->state = kind == DSO_USER ? DSO_SYMS_NONE : DSO_SYMS_FAILED;
	return d;
}

void dso_free(struct dso *d)
{
	if (d->state == DSO_SYMS_LOADED)
		elfsyms_release(&d->img);
	free(d->path);
	free(d->open_path);
	free(d->short_name);
	free(d->display_name);
	free(d->sym_path);
	free(d->debug_path);
	symtab_free(d->objsyms);
	free(d);
}

static const struct known_build_id *known_build_id(const struct machine *m, const char *path);

/* Whether d is the object a map of path with this identity points to. */
static bool dso_same(const struct dso *d, const char *path, enum dso_ident ident,
		     const uint8_t *id, size_t id_size, uint64_t ino)
{
	if (strcmp(d->path, path) != 0)
		return false;
	if (ident == DSO_IDENT_BUILD_ID && d->ident == DSO_IDENT_BUILD_ID)
		return d->build_id_size == id_size && memcmp(d->build_id, id, id_size) == 0;
	if (ident == DSO_IDENT_INODE && d->ident == DSO_IDENT_INODE)
		return d->ino == ino;
	/* One side knows less: the same object, unless that would mix two
	 * files (a DSO that knows its build ID never takes a map by inode
	 * only once its symbols are loaded, see dso_adopt). */
	return true;
}

struct dso *dso_lookup(struct machine *m, const char *path, enum dso_kind kind,
		       enum dso_ident ident, const uint8_t *id, size_t id_size, uint64_t ino)
{
	struct dso *d, *weak = NULL;
	uint64_t hash;
	uint32_t idx;
	size_t pos;

	if (!path[0])
		path = "//anon";
	if (!m->dso_index.slots)
		hashtab_init(&m->dso_index, 256);
	hash = hash_fnv1a(path);
	/* The first of a path's DSOs in the run is the oldest: a weak match
	 * goes to the one created first. */
	for (pos = hashtab_run(&m->dso_index, hash);
	     (idx = hashtab_run_next(&m->dso_index, &pos)) != HASHTAB_EMPTY;) {
		d = m->dsos[idx];
		if (!dso_same(d, path, ident, id, id_size, ino))
			continue;
		if (d->ident == ident)
			return d;
		/* A weaker identity on either side: prefer an exact match
		 * elsewhere in the run. */
		if (!weak)
			weak = d;
	}
	if (weak)
		return weak;
	d = dso_new(path, kind);
	if (m->nknown_ids) {
		const struct known_build_id *k = known_build_id(m, path);

		if (k)
			dso_expect_build_id(d, k->id, k->size);
	}
	m->dsos = xgrow(m->dsos, &m->dsos_cap, m->ndsos + 1, sizeof(*m->dsos));
	m->dsos[m->ndsos] = d;
	hashtab_add(&m->dso_index, hash, (uint32_t)m->ndsos, dso_hash, m);
	m->ndsos++;
	m->stats.dsos = m->ndsos;
	return d;
}

struct dso *machine_dso_get(struct machine *m, const char *path, enum dso_kind kind)
{
	return dso_lookup(m, path, kind, DSO_IDENT_PATH, NULL, 0, 0);
}

const char *dso_short_name(const struct dso *d)
{
	/* display_name is written by the engine thread only (see
	 * dso_note_stale), like every other field read here. */
	return d->display_name ? d->display_name : d->short_name;
}

const char *dso_path(const struct dso *d)
{
	return d->path;
}

enum dso_kind dso_kind(const struct dso *d)
{
	return d->kind;
}

const char *dso_sym_path(const struct dso *d)
{
	return __atomic_load_n(&d->state, __ATOMIC_ACQUIRE) == DSO_SYMS_LOADED ? d->sym_path : NULL;
}

const char *dso_debug_path(const struct dso *d)
{
	return __atomic_load_n(&d->state, __ATOMIC_ACQUIRE) == DSO_SYMS_LOADED ? d->debug_path : NULL;
}

size_t dso_file_build_id(const struct dso *d, const uint8_t **id)
{
	if (__atomic_load_n(&d->state, __ATOMIC_ACQUIRE) != DSO_SYMS_LOADED)
		return 0;
	*id = d->img.build_id;
	return d->img.build_id_size;
}

int dso_text_segment(const struct dso *d, uint64_t *vaddr, uint64_t *memsz, uint64_t *offset)
{
	size_t i;

	if (d->kind != DSO_USER || __atomic_load_n(&d->state, __ATOMIC_ACQUIRE) != DSO_SYMS_LOADED)
		return -ENOENT;
	for (i = 0; i < d->img.nsegs; i++) {
		const struct elfsyms_segment *s = &d->img.segs[i];

		if (s->flags & PF_X) {
			*vaddr = s->vaddr;
			*memsz = s->memsz;
			*offset = s->offset;
			return 0;
		}
	}
	return -ENOENT;
}

bool dso_symbol_synthetic(const struct dso *d, const struct symbol *sym)
{
	return d && sym && d->kind == DSO_USER &&
	       __atomic_load_n(&d->state, __ATOMIC_ACQUIRE) == DSO_SYMS_LOADED &&
	       symtab_owns(d->img.cfi_symtab, sym);
}

const struct symbol *dso_symbol_at(const struct dso *d, uint64_t vaddr)
{
	if (d->kind != DSO_USER || __atomic_load_n(&d->state, __ATOMIC_ACQUIRE) != DSO_SYMS_LOADED)
		return NULL;
	return symtab_lookup(d->img.symtab, vaddr);
}

bool dso_is_kernel(const struct dso *d)
{
	return d->kind == DSO_KERNEL || d->kind == DSO_MODULE;
}

/* Does the file open at fd carry the build ID d expects? */
static bool dso_file_matches(const struct dso *d, int fd)
{
	return elfsyms_fd_has_build_id(fd, d->build_id, d->build_id_size);
}

/* Does the file open at fd hold d's code?  By build ID when d has one
 * (expected), else by inode when known, else any readable file. */
static bool dso_file_ok(const struct machine *m, const struct dso *d, int fd)
{
	struct stat st;

	if (d->build_id_expected)
		return dso_file_matches(d, fd);
	/* Only live: a recording's inodes are another boot's (or made up),
	 * and its BUILD_ID feature says which file is right. */
	if (m->live && d->ident == DSO_IDENT_INODE && d->ino)
		return fstat(fd, &st) == 0 && (uint64_t)st.st_ino == d->ino;
	return true;
}

/* A place d's file may be: path, or inner under /proc/root_pid/root, or
 * d's entry in a build-id cache. */
struct dso_cand {
	char *path;               /* what dso_sym_path shows */
	uint32_t root_pid;        /* 0: open path itself */
	const char *inner;        /* the path as root_pid sees it */
	struct buildid_cache *cache;  /* set: look d up there (path comes with it) */
};

/* Open a candidate for reading if it is a regular file.  Under a
 * process's root, nsopen keeps the container's symlinks inside it (a
 * plain open of /proc/PID/root/path would follow an absolute link to the
 * host's file).  Sets *exists when something is there.  Returns a
 * readable descriptor or -errno. */
static int dso_cand_open(struct dso_cand *c, const struct dso *d, bool *exists)
{
	int pfd, fd;

	if (c->cache)
		return buildid_cache_find(c->cache, d->build_id, d->build_id_size,
					  BUILDID_CACHE_ELF, &c->path);
	if (c->root_pid)
		pfd = nsopen_pid(c->root_pid, c->inner, O_PATH);
	else
		pfd = open(c->path, O_PATH | O_CLOEXEC);
	if (pfd < 0)
		return c->root_pid ? pfd : -errno;
	*exists = true;
	fd = nsopen_regular(pfd);
	close(pfd);
	return fd;
}

/* Whether live d is the executable of the process that mapped it (its
 * /proc/PID/exe names d's path), and dso_file_ok can tell the file is d's
 * (by build ID or inode).  map_files needs CAP_SYS_ADMIN; the user of a
 * process may open its exe. */
static bool dso_is_exe(const struct machine *m, const struct dso *d)
{
	char link[64], buf[4096];
	size_t olen = strlen(d->open_path);
	ssize_t len;

	if (!m->live || !d->hint_pid ||
	    !(d->build_id_expected || (d->ident == DSO_IDENT_INODE && d->ino)))
		return false;
	snprintf(link, sizeof(link), "/proc/%u/exe", d->hint_pid);
	len = readlink(link, buf, sizeof(buf));
	if (len < 0 || (size_t)len < olen || memcmp(buf, d->open_path, olen) != 0)
		return false;
	/* The kernel marks a deleted executable the same way maps do. */
	return (size_t)len == olen || ((size_t)len == olen + sizeof(deleted_marker) - 1 &&
				       memcmp(buf + olen, deleted_marker, (size_t)len - olen) == 0);
}

/* Add d's places under --symfs to cand[n...]: symfs/.build-id/xx/rest
 * (perf's build-ID cache layout, its links resolved inside symfs: an
 * extracted perf archive) and symfs/path.  Returns the new n. */
static size_t dso_cand_symfs(const struct machine *m, const struct dso *d, struct dso_cand *cand,
			     size_t n)
{
	if (!m->symfs)
		return n;
	if (m->symfs_cache && d->build_id_expected && d->build_id_size)
		cand[n++].cache = m->symfs_cache;
	cand[n++].path = xasprintf("%s%s%s", m->symfs, d->open_path[0] == '/' ? "" : "/",
				   d->open_path);
	return n;
}

/* The file to read d's symbols from, open (*fdp) and named (returned,
 * malloc'd), or NULL; *stale says why not when a file was there but was
 * not d's.  In order: symfs/.build-id/xx/rest (its links resolved inside
 * symfs: an extracted perf archive) and symfs/path (recordings made
 * elsewhere); path under /proc/PID/root (a process in another mount
 * namespace sees its own files); path; while the process lives
 * /proc/PID/map_files/START-END (the mapped inode itself, even when the
 * path now names another file or none) and /proc/PID/exe (the same for
 * the executable, readable by a process's user); live, the symfs ones here;
 * perf's build-id cache (the copy perf record kept: the binary was
 * rebuilt, or replaced or deleted and map_files is not ours to read); the
 * debug file by build ID.  Every candidate must pass dso_file_ok: never
 * another binary's names.  *from_cache: it came from a build-id cache. */
static char *dso_find_file(const struct machine *m, const struct dso *d, int *fdp,
			   const char **stale, bool *from_cache)
{
	struct dso_cand cand[10];
	char *found = NULL;
	size_t n = 0, i;
	bool any = false;
	struct strbuf sb;

	memset(cand, 0, sizeof(cand));
	strbuf_init(&sb);
	if (d->build_id_size) {
		for (i = 1; i < d->build_id_size; i++)
			strbuf_addf(&sb, "%02x", d->build_id[i]);
	}
	if (!m->live)
		n = dso_cand_symfs(m, d, cand, n);
	if (m->live && d->hint_pid && d->open_path[0] == '/') {
		cand[n].path = xasprintf("/proc/%u/root%s", d->hint_pid, d->open_path);
		cand[n].root_pid = d->hint_pid;
		cand[n++].inner = d->open_path;
	}
	cand[n++].path = xstrdup(d->open_path);
	if (m->live && d->hint_pid && d->hint_end > d->hint_start)
		cand[n++].path = xasprintf("/proc/%u/map_files/%" PRIx64 "-%" PRIx64, d->hint_pid,
					   d->hint_start, d->hint_end);
	if (dso_is_exe(m, d))
		cand[n++].path = xasprintf("/proc/%u/exe", d->hint_pid);
	/* Live, the process's own files come first: --symfs stands in where
	 * they are gone (dso_file_ok checks only the inode number). */
	if (m->live)
		n = dso_cand_symfs(m, d, cand, n);
	if (d->build_id_expected && d->build_id_size) {
		if (m->bidcache)
			cand[n++].cache = m->bidcache;
		cand[n++].path = xasprintf("%s/usr/lib/debug/.build-id/%02x/%s.debug",
					   m->symfs ? m->symfs : "", d->build_id[0], sb.buf);
		if (m->symfs)
			cand[n++].path = xasprintf("/usr/lib/debug/.build-id/%02x/%s.debug",
						   d->build_id[0], sb.buf);
	}
	strbuf_release(&sb);
	*fdp = -1;
	*from_cache = false;
	for (i = 0; i < n && !found; i++) {
		int fd = dso_cand_open(&cand[i], d, &any);

		if (fd < 0)
			continue;
		if (dso_file_ok(m, d, fd)) {
			*from_cache = cand[i].cache != NULL;
			found = cand[i].path;
			cand[i].path = NULL;
			*fdp = fd;
		} else {
			close(fd);
		}
	}
	for (i = 0; i < n; i++)
		free(cand[i].path);
	*stale = NULL;
	if (!found)
		*stale = any ? (d->build_id_expected ? "build-id mismatch" : "replaced") :
			       "deleted";
	return found;
}

/* Whether d (loaded, no debug file found) is one for --debuginfod. */
static bool dso_wants_fetch(const struct machine *m, const struct dso *d)
{
	return m->debuginfod_ms && d->img.build_id_size;
}

/* --debuginfod: ask the servers of DEBUGINFOD_URLS for d's debug file by
 * build ID (on the fetch thread when async: sampling, and the loading of
 * other DSOs, go on meanwhile), and merge it as a local one when its build
 * ID is d's. */
void dso_fetch_debuginfo(const struct machine *m, struct dso *d)
{
	size_t *active = (size_t *)&m->debuginfod_active;
	uint8_t id[ELFSYMS_BUILD_ID_MAX];
	char *path = NULL;
	int n;

	if (!dso_wants_fetch(m, d))
		return;
	__atomic_add_fetch(active, 1, __ATOMIC_RELAXED);
	n = debuginfod_fetch_debuginfo(d->img.build_id, d->img.build_id_size, m->debuginfod_ms,
				       &m->loader.cancel, &path);
	__atomic_sub_fetch(active, 1, __ATOMIC_RELAXED);
	if (n == 0 && (n = elfsyms_read_build_id(path, id)) > 0 &&
	    (size_t)n == d->img.build_id_size && memcmp(id, d->img.build_id, (size_t)n) == 0 &&
	    elfsyms_merge_debug(&d->img, path) == 0) {
		d->debug_path = path;
		path = NULL;
	}
	free(path);
}

/* d's debug file from a build-id cache (--symfs laid out as one, then
 * perf's), merged into d's symbols.  Merged through the descriptor the
 * cache checked: the cache is a user's, and its links may change. */
static bool dso_cache_debug(const struct machine *m, struct dso *d)
{
	struct buildid_cache *caches[2] = { m->symfs_cache, m->bidcache };
	char proc[64], *path;
	size_t i;
	int fd;
	bool ok;

	for (i = 0; i < 2 && d->img.build_id_size; i++) {
		if (!caches[i])
			continue;
		fd = buildid_cache_find(caches[i], d->img.build_id, d->img.build_id_size,
					BUILDID_CACHE_DEBUG, &path);
		if (fd < 0)
			continue;
		snprintf(proc, sizeof(proc), "/proc/self/fd/%d", fd);
		ok = elfsyms_merge_debug(&d->img, proc) == 0;
		close(fd);
		if (ok) {
			d->debug_path = path;
			d->from_cache = true;
			return true;
		}
		free(path);
	}
	return false;
}

/* A stripped binary (no .symtab; static ones have no .dynsym either) whose
 * separate debug file is around: merge
 * the debug file's .symtab into d's symbols, as perf report and gdb do.
 * First by build ID: symfs/usr/lib/debug/.build-id/xx/rest.debug, then
 * /usr/lib/debug/..., then the debug file of d's entry in symfs read as a
 * build-id cache and in perf's build-id cache; then by .gnu_debuglink (file name + CRC) in the
 * binary's directory, its .debug/ and /usr/lib/debug/DIR/, under the root
 * the binary was found in (--symfs, /proc/PID/root), --symfs and /.  The
 * binary's own segments stay (same addresses).  Returns true when none
 * was found and --debuginfod should be asked (dso_fetch_debuginfo). */
static bool dso_load_debug_symbols(const struct machine *m, struct dso *d)
{
	struct strbuf rest;
	const char *roots[3];
	size_t i, nroots = 0, plen, olen;
	char *dir, *slash, *prefix = NULL, *link;
	int k;

	if (!d->img.no_symtab)
		return false;
	strbuf_init(&rest);
	if (d->img.build_id_size) {
		strbuf_addf(&rest, "usr/lib/debug/.build-id/%02x/", d->img.build_id[0]);
		for (i = 1; i < d->img.build_id_size; i++)
			strbuf_addf(&rest, "%02x", d->img.build_id[i]);
		strbuf_addstr(&rest, ".debug");
	}
	for (k = m->symfs ? 0 : 1; k < 2 && d->img.build_id_size; k++) {
		char *path = xasprintf("%s/%s", k == 0 ? m->symfs : "", rest.buf);
		uint8_t id[ELFSYMS_BUILD_ID_MAX];
		int n = elfsyms_read_build_id(path, id);

		if (n > 0 && (size_t)n == d->img.build_id_size &&
		    memcmp(id, d->img.build_id, (size_t)n) == 0 &&
		    elfsyms_merge_debug(&d->img, path) == 0) {
			d->debug_path = path;
			strbuf_release(&rest);
			return false;
		}
		free(path);
	}
	strbuf_release(&rest);
	if (dso_cache_debug(m, d))
		return false;
	if (!d->img.debuglink || d->open_path[0] != '/')
		return dso_wants_fetch(m, d);
	/* The binary was read from PREFIX + open_path: look beside it there. */
	plen = strlen(d->sym_path);
	olen = strlen(d->open_path);
	if (plen > olen && strcmp(d->sym_path + plen - olen, d->open_path) == 0) {
		prefix = xstrndup(d->sym_path, plen - olen);
		roots[nroots++] = prefix;
	}
	if (m->symfs && (!prefix || strcmp(prefix, m->symfs) != 0))
		roots[nroots++] = m->symfs;
	roots[nroots++] = "";
	dir = xstrdup(d->open_path);
	slash = strrchr(dir, '/');
	slash[slash == dir ? 1 : 0] = '\0';
	link = debugfile_find_link(roots, nroots, dir, d->img.debuglink, d->img.debuglink_crc,
				   d->img.build_id, d->img.build_id_size);
	if (link && elfsyms_merge_debug(&d->img, link) == 0) {
		d->debug_path = link;
		link = NULL;
	}
	free(link);
	free(dir);
	free(prefix);
	return !d->debug_path && dso_wants_fetch(m, d);
}

/* Load d's symbols; runs on the loader thread when on_loader.  Writes
 * only d->img and d->stale, then publishes them with the state.  Returns
 * false when d went to the fetch thread, which publishes it. */
bool dso_load_symbols(struct machine *m, struct dso *d, bool on_loader)
{
	const char *stale = NULL;
	int fd = -1;
	bool from_cache;
	char *path = dso_find_file(m, d, &fd, &stale, &from_cache);
	int state = DSO_SYMS_FAILED;
	bool fetch = false;

	if (path && elfsyms_load_fd(fd, &d->img) == 0) {
		state = DSO_SYMS_LOADED;
		d->sym_path = path;
		d->from_cache = from_cache;
		path = NULL;
		fetch = dso_load_debug_symbols(m, d);
		if (d->from_cache)
			__atomic_add_fetch(&m->bidcache_used, 1, __ATOMIC_RELAXED);
	} else if (!path && d->ident != DSO_IDENT_PATH) {
		d->stale = stale;
	}
	if (fd >= 0)
		close(fd);
	free(path);
	if (fetch && on_loader && symloader_fetch(m, d))
		return false;
	if (fetch)
		dso_fetch_debuginfo(m, d);
	__atomic_store_n(&d->state, state, __ATOMIC_RELEASE);
	return true;
}

void machine_set_symfs(struct machine *m, const char *dir)
{
	size_t len;

	free(m->symfs);
	m->symfs = NULL;
	buildid_cache_close(m->symfs_cache);
	m->symfs_cache = NULL;
	if (!dir || !dir[0])
		return;
	len = strlen(dir);
	/* "dir/" + "/usr/bin/x" would still work, but keep the paths tidy. */
	while (len > 1 && dir[len - 1] == '/')
		len--;
	m->symfs = xstrndup(dir, len);
	buildid_cache_open(m->symfs, false, &m->symfs_cache);
}

int machine_set_buildid_dir(struct machine *m, const char *dir)
{
	char *path = buildid_cache_dir(dir);
	int err = path ? 0 : -ENOENT;

	buildid_cache_close(m->bidcache);
	m->bidcache = NULL;
	if (path)
		err = buildid_cache_open(path, true, &m->bidcache);
	free(path);
	return err;
}

size_t machine_buildid_cache_used(const struct machine *m, size_t *refused)
{
	*refused = 0;
	if (m->bidcache)
		*refused += buildid_cache_refused(m->bidcache);
	if (m->symfs_cache)
		*refused += buildid_cache_refused(m->symfs_cache);
	return __atomic_load_n(&m->bidcache_used, __ATOMIC_RELAXED);
}

void dso_expect_build_id(struct dso *d, const uint8_t *id, size_t size)
{
	memset(d->build_id, 0, sizeof(d->build_id));
	memcpy(d->build_id, id, size);
	d->build_id_size = (uint8_t)size;
	d->build_id_expected = true;
	if (d->kind == DSO_USER)
		d->ident = DSO_IDENT_BUILD_ID;
}

void machine_add_build_id(struct machine *m, const char *path, const uint8_t *id,
			  size_t size)
{
	struct known_build_id *k = NULL;
	size_t i;

	if (!path || !id || !size)
		return;
	if (size > ELFSYMS_BUILD_ID_MAX)
		size = ELFSYMS_BUILD_ID_MAX;
	for (i = 0; i < m->nknown_ids && !k; i++)
		if (strcmp(m->known_ids[i].path, path) == 0)
			k = &m->known_ids[i];
	if (!k) {
		m->known_ids = xgrow(m->known_ids, &m->known_cap, m->nknown_ids + 1,
				     sizeof(*m->known_ids));
		k = &m->known_ids[m->nknown_ids++];
		k->path = xstrdup(path);
	}
	memset(k->id, 0, sizeof(k->id));
	memcpy(k->id, id, size);
	k->size = (uint8_t)size;
	/* A DSO already created for path: from now on it needs this ID. */
	if (m->dso_index.slots) {
		uint32_t idx;
		size_t pos;

		for (pos = hashtab_run(&m->dso_index, hash_fnv1a(path));
		     (idx = hashtab_run_next(&m->dso_index, &pos)) != HASHTAB_EMPTY;) {
			struct dso *d = m->dsos[idx];

			if (strcmp(d->path, path) == 0 && d->state == DSO_SYMS_NONE)
				dso_expect_build_id(d, id, size);
		}
	}
}

static const struct known_build_id *known_build_id(const struct machine *m, const char *path)
{
	size_t i;

	for (i = 0; i < m->nknown_ids; i++)
		if (strcmp(m->known_ids[i].path, path) == 0)
			return &m->known_ids[i];
	return NULL;
}

/* Engine thread: the name a loaded (or failed) DSO's stale marker gives. */
static void dso_note_stale(struct dso *d)
{
	size_t len = strlen(d->path), mlen = sizeof(deleted_marker) - 1;

	if (d->display_name || !d->stale)
		return;
	/* The kernel's own " (deleted)" already says it. */
	if (strcmp(d->stale, "deleted") == 0 && len > mlen &&
	    strcmp(d->path + len - mlen, deleted_marker) == 0)
		return;
	d->display_name = xasprintf("%s (%s)", d->short_name, d->stale);
}

/* Symbolize file offset file_off in user DSO d, whose state is final. */
void dso_symbolize(struct dso *d, int state, uint64_t file_off, struct resolved *out)
{
	uint64_t vaddr;

	out->addr = file_off;
	if (state == DSO_SYMS_LOADED &&
	    elfsyms_offset_to_vaddr(&d->img, file_off, &vaddr) == 0) {
		out->addr = vaddr;
		out->sym = symtab_lookup(d->img.symtab, vaddr);
		/* Code no symbol covers: the CFI function around it. */
		if (!out->sym)
			out->sym = symtab_lookup(d->img.cfi_symtab, vaddr);
	} else if (state == DSO_SYMS_FAILED) {
		dso_note_stale(d);
	}
}

void dso_data_symbolize(struct dso *d, uint64_t file_off, bool writable, struct resolved *out)
{
	uint64_t vaddr;

	out->addr = file_off;
	if (__atomic_load_n(&d->state, __ATOMIC_ACQUIRE) != DSO_SYMS_LOADED ||
	    elfsyms_data_offset_to_vaddr(&d->img, file_off, writable, &vaddr) != 0)
		return;
	out->addr = vaddr;
	if (!d->objsyms_tried) {
		/* The debug file's .symtab has the objects a stripped file's
		 * .dynsym lacks. */
		const char *path = d->debug_path ? d->debug_path : d->sym_path;

		d->objsyms_tried = true;
		if (path)
			elfsyms_load_objects(path, d->img.machine, &d->objsyms);
	}
	out->sym = d->objsyms ? symtab_lookup(d->objsyms, vaddr) : NULL;
}

void dso_table_free(struct machine *m)
{
	size_t i;

	for (i = 0; i < m->ndsos; i++)
		dso_free(m->dsos[i]);
	free(m->dsos);
	hashtab_release(&m->dso_index);
	for (i = 0; i < m->nknown_ids; i++)
		free(m->known_ids[i].path);
	free(m->known_ids);
	free(m->symfs);
	buildid_cache_close(m->symfs_cache);
	buildid_cache_close(m->bidcache);
}

/* ---- DWARF: inlined functions and source lines (--inline, -s srcline) ---- */

/* One cache for the process: the view runs on the engine thread, and the
 * answers (interned strings) stay valid for any snapshot. */
static struct dwarfinfo_cache *dso_dwarf;
static pthread_once_t dso_dwarf_once = PTHREAD_ONCE_INIT;

static void dso_dwarf_init(void)
{
	dso_dwarf = dwarfinfo_cache_new(0);
}

/* The files that may hold dso's DWARF, best first (*n of them), and the
 * build ID they must have (*size bytes; 0: unchecked). */
static size_t dso_dwarf_paths(const struct dso *dso, const char **paths, const uint8_t **id,
			      size_t *size)
{
	size_t n = 0;

	*id = NULL;
	*size = dso_file_build_id(dso, id);
	if ((paths[n] = dso_debug_path(dso)))
		n++;
	if ((paths[n] = dso_sym_path(dso)))
		n++;
	/* Unchecked, a path may hold another binary now: not without an ID. */
	if (*size && n && strcmp(paths[n - 1], dso_path(dso)) != 0)
		paths[n++] = dso_path(dso);
	return n;
}

const struct dwarfinfo *dso_dwarf_at(struct dso *dso, uint64_t addr)
{
	const struct dwarfinfo *in;
	const uint8_t *id;
	const char *paths[3];
	size_t size, n, i;

	if (!dso || dso_is_kernel(dso))
		return NULL;
	n = dso_dwarf_paths(dso, paths, &id, &size);
	pthread_once(&dso_dwarf_once, dso_dwarf_init);
	for (i = 0; i < n; i++)
		if (dwarfinfo_lookup_id(dso_dwarf, paths[i], id, size, addr, &in) == 0)
			return in;
	return NULL;
}

int dso_dwarf_lines(struct dwarfinfo_cache *c, const struct dso *dso, const uint64_t *addrs,
		    size_t n, struct dwarfinfo_line *out)
{
	const uint8_t *id;
	const char *paths[3];
	size_t size, np, i;
	int err = -ENOENT;

	if (!dso || dso_is_kernel(dso))
		return -ENOENT;
	np = dso_dwarf_paths(dso, paths, &id, &size);
	for (i = 0; i < np; i++)
		if ((err = dwarfinfo_lines_id(c, paths[i], id, size, addrs, n, out)) == 0)
			return 0;
	return err;
}

const char *dso_srcline_of(const struct dwarfinfo *in, struct dso *dso, const struct symbol *sym,
			   uint64_t addr)
{
	char buf[1024];

	if (in && in->file)
		return dwarfinfo_srcline(in);
	if (sym && sym->name && addr >= sym->start)
		snprintf(buf, sizeof(buf), "%s+%llu", sym->name,
			 (unsigned long long)(addr - sym->start));
	else if (dso)
		snprintf(buf, sizeof(buf), "%s[%llx]", dso_short_name(dso), (unsigned long long)addr);
	else
		return intern("??:0");
	return intern(buf);
}

const char *dso_srcline(struct dso *dso, const struct symbol *sym, uint64_t addr)
{
	return dso_srcline_of(dso_dwarf_at(dso, addr), dso, sym, addr);
}
