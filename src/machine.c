/* Machine state: threads and processes in id-keyed hash tables, per-process
 * sorted exec map lists, DSOs keyed by path and identity, the /proc
 * synthesis of it all, and the worker thread that loads symbol tables.
 *
 * Symbol loading (machine_set_async): ingestion never waits for a symbol
 * table.  The first machine_resolve that needs a DSO's symbols queues the
 * DSO for the loader thread (state NONE -> QUEUED) and reports the address
 * as pending: out->dso is set, out->sym is NULL and out->addr is the file
 * offset.  The caller keeps such samples raw, as (dso, file offset) per
 * frame, and folds them in with machine_resolve_deferred once
 * machine_dso_pending says the DSO is done: no sample is lost, and none is
 * filed under [unknown] (or a wrong name) for being early.
 *
 * Threads: only the loader thread runs libelf/libdw.  Everything the loader
 * reads from a DSO (paths, expected build ID, identity, pid hint) is frozen
 * once the DSO leaves NONE; everything it writes (img) is published by the
 * release store of the final state, read with acquire by the engine.  The
 * DSO objects themselves are freed only after the thread is joined.
 *
 * --debuginfod fetches run on a thread of their own (one at a time), so
 * that a slow or hanging server holds only the DSO that waits for it: the
 * loader reads that DSO's ELF symbols, hands it to the fetch thread still
 * QUEUED, and goes on with the next; the fetch thread merges the debug
 * file (or gives up) and publishes the state.
 *
 * JIT code (perf-PID.map) goes the same way when there is much to read:
 * the first miss in a live process's anonymous code, then a miss at most
 * once a second (for the lines appended since), reads its map at once if
 * at most JIT_READ_NOW bytes are new, else queues the read for the loader
 * thread; until it is in, a miss is pending under a proxy DSO of that
 * process's map (and the DSO the address falls back to when the map does
 * not name it), so a 36 MB map no longer stalls the ingestion.  Each process (a
 * reused pid, an exec) has a map of its own, kept with the machine: held
 * samples may outlive the process.
 *
 * Identity: one DSO per (path, build ID) when the build ID is known (MMAP2
 * with PERF_RECORD_MISC_MMAP_BUILD_ID, perf.data's BUILD_ID feature), else
 * per (path, inode).  A binary replaced on disk therefore gets a new DSO,
 * and the old one reads its names only from a file with its identity: the
 * file at its path, /proc/PID/map_files/ of a live process mapping it,
 * debug files by build ID; failing all it is [unknown] under a name marked
 * "(deleted)" or "(build-id mismatch)", never the new file's names. */
#include "config.h"

#include "machine.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "debugfile.h"
#include "debuginfod.h"
#include "elfsyms.h"
#include "kallsyms.h"
#include "nsopen.h"
#include "perfmap.h"
#include "procfs.h"
#include "symtab.h"
#include "util.h"
#include "vdso.h"

enum dso_syms_state {
	DSO_SYMS_NONE,      /* not tried yet */
	DSO_SYMS_QUEUED,    /* on the loader thread's queue, or being loaded */
	DSO_SYMS_LOADED,    /* img is valid */
	DSO_SYMS_FAILED,    /* tried and failed: do not retry on every sample */
};

/* What the DSO's identity is known from. */
enum dso_ident {
	DSO_IDENT_PATH,     /* nothing but the path (MMAP without MMAP2) */
	DSO_IDENT_INODE,    /* dev/inode from MMAP2 or /proc/PID/maps */
	DSO_IDENT_BUILD_ID, /* build_id */
};

struct dso {
	char *path;               /* as reported, " (deleted)" marker included */
	char *open_path;          /* the file to open: marker stripped */
	char *short_name;         /* basename of path, marker kept */
	enum dso_kind kind;
	/* Identity for the coming build-ID keying; filled from the first map. */
	uint8_t build_id[ELFSYMS_BUILD_ID_MAX];
	uint8_t build_id_size;
	uint32_t maj, min;
	uint64_t ino;
	/* build_id came from the recording (perf.data BUILD_ID feature or an
	 * MMAP2 carrying it): symbols only from a file with that ID. */
	bool build_id_expected;
	enum dso_ident ident;
	/* A live process that mapped it, where: /proc/PID/root and
	 * /proc/PID/map_files reach its file while the process lives. */
	uint32_t hint_pid;
	uint64_t hint_start, hint_end;
	int state;                /* enum dso_syms_state; atomic (loader thread) */
	const char *stale;        /* "deleted", "build-id mismatch": why there
				     are no symbols (set by the loader) */
	char *display_name;       /* short_name + " (stale)" once known */
	struct elfsyms_image img;
	/* Set by the loader before it publishes LOADED: the file img was read
	 * from, and the separate debug file whose symbols replaced img's
	 * (NULL when none).  DWARF readers open these. */
	char *sym_path;
	char *debug_path;
	struct dso *next_loaded;  /* the loader's list, for machine_free */
	/* A proxy for samples held while jit's map is read (see
	 * resolve_jit): not in the DSO table, named once the read is in,
	 * as jit's map DSO or, where the map has no name, jit_fallback. */
	struct jitmap *jit;
	struct dso *jit_fallback;
};

/* New perf map bytes read on the engine thread, at most (~10 ms). */
#define JIT_READ_NOW (1u << 20)

enum jit_state {
	JIT_IDLE,                 /* index is current */
	JIT_LOADING,              /* a read is queued or under way */
	JIT_LOADED,               /* its result is ready to install */
};

/* One process's perf-PID.map (JIT code): read on the first sample that
 * needs it, then the lines appended since, each read a table of its own,
 * indexed newest first.  Tables are owned by the machine (m->jit_tabs):
 * symbols stay put, so rows keep their identity.  Owned by the machine
 * (m->jitmaps) too: held samples point at it through its proxies. */
struct jitmap {
	uint32_t pid;
	int state;                /* enum jit_state; atomic (loader thread) */
	/* The engine's, read by the loader while LOADING (nobody writes it
	 * then). */
	struct perfmap_index index;
	uint64_t size;            /* bytes parsed into index */
	double checked;           /* now_monotonic() of the last look; 0: never */
	struct dso *dso;          /* "perf-PID.map", this process's own */
	/* A read's result, written by the loader before LOADED, installed
	 * by the engine (jitmap_install); next_tab NULL: nothing new. */
	struct symtab *next_tab;
	struct perfmap_index next_index;
	uint64_t next_size;
	struct dso **proxies;     /* one per fallback DSO */
	size_t nproxies, proxy_cap;
	struct jitmap *next;      /* m->jitmaps */
};

/* A job of the loader thread: a DSO's symbols, or a read of a perf map. */
struct loader_job {
	struct dso *dso;
	struct jitmap *jit;
};

/* The loader thread and its FIFO of jobs; the debuginfod fetch thread
 * and its FIFO of DSOs (started at the first fetch). */
struct symloader {
	pthread_t thread;
	bool started;
	pthread_mutex_t lock;
	pthread_cond_t wake;      /* work queued, or stop */
	pthread_cond_t idle;      /* busy dropped to 0 */
	struct loader_job *queue;
	size_t head, count, cap;
	pthread_t fetch_thread;
	bool fetch_started;
	pthread_cond_t fetch_wake; /* a fetch queued, or stop */
	struct dso **fetchq;      /* under lock */
	size_t fhead, fcount, fcap;
	int cancel;               /* stop: abort the fetch under way (atomic) */
	size_t busy;              /* jobs queued + being loaded or fetched; under lock */
	size_t busy_hint;         /* copy of busy, read without the lock */
	uint64_t queued_total;    /* DSOs ever queued (engine thread) */
	uint64_t done_total;      /* of which loaded, in queue order; atomic */
	bool stop;
};

struct map {
	uint64_t start, end, pgoff;
	struct dso *dso;
};

struct process {
	uint32_t pid;             /* first member: the id table's key */
	const char *comm;         /* interned; NULL until known */
	struct map *maps;         /* sorted by start, non-overlapping */
	size_t nmaps, mapcap;
	size_t nthreads;          /* threads pointing here; freed at zero */
	bool in_table;            /* false once replaced by a reused pid */
	bool execd;               /* a COMM exec was seen: its maps are its own */
	uint64_t born;            /* record time when it was created (0: unknown) */
	/* Its /tmp/perf-PID.map; NULL until a sample needs it, and again
	 * after an exec (a new program, a new map). */
	struct jitmap *jit;
};

enum thread_state {
	THREAD_ALIVE,
	THREAD_EXITED,            /* EXIT seen; still resolvable */
	THREAD_EXITED_GC,         /* survived one gc; freed by the next */
};

struct thread {
	uint32_t tid;             /* first member: the id table's key */
	uint32_t pid;
	const char *comm;         /* interned; NULL until known */
	struct process *proc;     /* never NULL */
	enum thread_state state;
	uint64_t born;            /* record time when it was created (0: unknown) */
};

/* Open addressing with linear probing over pointers to structs whose first
 * member is their uint32_t id; deletion shifts back (no tombstones). */
struct idtab {
	void **slots;
	size_t cap, count;        /* cap is a power of two (or 0) */
};

struct machine {
	struct idtab threads, procs;
	struct dso **dsos;        /* open addressing by path hash */
	size_t dsocap, ndsos;
	struct kernel_syms ks;
	bool ks_loaded;
	/* machine_load_kernel_async: kallsyms (and --vmlinux) read on a thread
	 * of its own, so user DSOs do not queue behind it; installed into ks
	 * by the engine thread once kernel_dso->state says it is done. */
	struct kernel_load {
		pthread_t thread;
		bool started;             /* thread to join */
		char *kallsyms, *modules; /* sources (NULL: /proc) */
		bool kallsyms_cached;     /* kallsyms is perf's copy: /proc's if it fails */
		bool use_vmlinux;         /* machine_set_vmlinux was called */
		char *vmlinux;            /* --vmlinux FILE; NULL: look by build ID */
		char *note;               /* which vmlinux, or why none */
		struct kernel_syms ks;    /* written by the thread */
		int err;
		bool restricted;
	} kload;
	int kernel_err;           /* the last kernel load's result */
	struct dso *kernel_dso;
	struct dso **module_dsos; /* parallel to ks.modules */
	void **gcbuf;             /* reusable scratch for machine_gc */
	size_t gccap;
	struct procfs procfs;     /* reusable /proc reader */
	/* The /proc sweep of machine_synthesize_begin/step. */
	struct synth_sweep {
		int procfd;           /* -1: no sweep under way */
		uint32_t *pids;       /* to read, in /proc order */
		size_t n, next;
		size_t done;          /* processes read */
	} sweep;
	struct machine_stats stats;
	uint64_t now;             /* time of the record being processed */
	char *symfs;              /* --symfs DIR, or NULL */
	long debuginfod_ms;       /* --debuginfod: its timeout; 0: off */
	size_t debuginfod_active; /* fetches in progress (atomic) */
	bool async;               /* symbols load on the loader thread */
	bool live;                /* pids are live: /proc/PID/root, map_files */
	struct symloader loader;
	/* machine_load_kernel_lazy: kallsyms read at the first kernel
	 * address (kernel_err then says how it went). */
	bool ks_lazy;
	struct known_build_id *known_ids;  /* machine_add_build_id, by path */
	size_t nknown_ids, known_cap;
	/* Every perf-PID.map table read: results point into them, and they
	 * outlive the processes (and re-reads) that loaded them. */
	struct symtab **jit_tabs;
	size_t njit_tabs, jit_cap;
	struct jitmap *jitmaps;   /* every process's, freed with the machine */
	/* Our own vdso's symbols name [vdso] maps of the same size: the
	 * kernel maps one image into every process of our ABI.  Only when
	 * the samples are this kernel's (live, or a recording of it). */
	bool vdso_allowed;
	int vdso_state;           /* 0: not tried, 1: vdso_img loaded, -1: none */
	struct elfsyms_image vdso_img;
	uint64_t vdso_map_size;   /* its [vdso] mapping's length */
};

struct known_build_id {
	char *path;
	uint8_t id[ELFSYMS_BUILD_ID_MAX];
	uint8_t size;
};

/* ---- id tables ---- */

static inline uint32_t idtab_key(const void *p)
{
	return *(const uint32_t *)p;
}

static inline size_t idtab_slot(uint32_t id, size_t cap)
{
	/* An odd multiplier is a bijection mod 2^k: sequential ids spread. */
	return ((size_t)id * 2654435761u) & (cap - 1);
}

static void *idtab_find(const struct idtab *t, uint32_t id)
{
	size_t i;

	if (!t->cap)
		return NULL;
	for (i = idtab_slot(id, t->cap); t->slots[i]; i = (i + 1) & (t->cap - 1))
		if (idtab_key(t->slots[i]) == id)
			return t->slots[i];
	return NULL;
}

static void idtab_place(void **slots, size_t cap, void *p)
{
	size_t i = idtab_slot(idtab_key(p), cap);

	while (slots[i])
		i = (i + 1) & (cap - 1);
	slots[i] = p;
}

/* p's id must not be in the table. */
static void idtab_insert(struct idtab *t, void *p)
{
	if ((t->count + 1) * 2 > t->cap) {
		size_t ncap = t->cap ? t->cap * 2 : 64, i;
		void **ns = xcalloc(ncap, sizeof(*ns));

		for (i = 0; i < t->cap; i++)
			if (t->slots[i])
				idtab_place(ns, ncap, t->slots[i]);
		free(t->slots);
		t->slots = ns;
		t->cap = ncap;
	}
	idtab_place(t->slots, t->cap, p);
	t->count++;
}

/* Remove exactly the object p (not just any object with its id). */
static void idtab_remove(struct idtab *t, const void *p)
{
	size_t mask = t->cap - 1, i, j;

	if (!t->cap)
		return;
	for (i = idtab_slot(idtab_key(p), t->cap); t->slots[i] != p; i = (i + 1) & mask)
		if (!t->slots[i])
			return;
	t->slots[i] = NULL;
	t->count--;
	/* Pull back later members of the probe run that would become unreachable. */
	for (j = (i + 1) & mask; t->slots[j]; j = (j + 1) & mask) {
		size_t k = idtab_slot(idtab_key(t->slots[j]), t->cap);
		bool stays = i <= j ? (i < k && k <= j) : (i < k || k <= j);

		if (!stays) {
			t->slots[i] = t->slots[j];
			t->slots[j] = NULL;
			i = j;
		}
	}
}

/* ---- DSOs ---- */

static uint64_t hash_path(const char *s)
{
	uint64_t h = 1469598103934665603ULL;

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ULL;
	return h;
}

static bool starts_with(const char *s, const char *prefix)
{
	return strncmp(s, prefix, strlen(prefix)) == 0;
}

/* What a map's path says about the object behind it. */
static enum dso_kind dso_kind_from_path(const char *path)
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

static struct dso *dso_new(const char *path, enum dso_kind kind)
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

static void dso_free(struct dso *d)
{
	if (d->state == DSO_SYMS_LOADED)
		elfsyms_release(&d->img);
	free(d->path);
	free(d->open_path);
	free(d->short_name);
	free(d->display_name);
	free(d->sym_path);
	free(d->debug_path);
	free(d);
}

static void dso_place(struct dso **slots, size_t cap, struct dso *d)
{
	size_t i = hash_path(d->path) & (cap - 1);

	while (slots[i])
		i = (i + 1) & (cap - 1);
	slots[i] = d;
}

static void dso_expect_build_id(struct dso *d, const uint8_t *id, size_t size);
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

static struct dso *dso_lookup(struct machine *m, const char *path, enum dso_kind kind,
			      enum dso_ident ident, const uint8_t *id, size_t id_size,
			      uint64_t ino)
{
	struct dso *d, *weak = NULL;
	size_t i;

	if (!path[0])
		path = "//anon";
	if (m->dsocap) {
		for (i = hash_path(path) & (m->dsocap - 1); m->dsos[i];
		     i = (i + 1) & (m->dsocap - 1)) {
			d = m->dsos[i];
			if (!dso_same(d, path, ident, id, id_size, ino))
				continue;
			if (d->ident == ident)
				return d;
			/* A weaker identity on either side: prefer an exact
			 * match elsewhere in the chain. */
			if (!weak)
				weak = d;
		}
	}
	if (weak)
		return weak;
	if ((m->ndsos + 1) * 2 > m->dsocap) {
		size_t ncap = m->dsocap ? m->dsocap * 2 : 256;
		struct dso **ns = xcalloc(ncap, sizeof(*ns));

		for (i = 0; i < m->dsocap; i++)
			if (m->dsos[i])
				dso_place(ns, ncap, m->dsos[i]);
		free(m->dsos);
		m->dsos = ns;
		m->dsocap = ncap;
	}
	d = dso_new(path, kind);
	if (m->nknown_ids) {
		const struct known_build_id *k = known_build_id(m, path);

		if (k)
			dso_expect_build_id(d, k->id, k->size);
	}
	dso_place(m->dsos, m->dsocap, d);
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

bool dso_is_kernel(const struct dso *d)
{
	return d->kind == DSO_KERNEL || d->kind == DSO_MODULE;
}

/* Does the file open at fd carry the build ID d expects?  A 20-byte ID
 * from a recording without a size is zero-padded: a shorter file ID (MD5,
 * 16 bytes) matches when the rest is zero. */
static bool dso_file_matches(const struct dso *d, int fd)
{
	uint8_t id[ELFSYMS_BUILD_ID_MAX];
	int n = elfsyms_read_build_id_fd(fd, id);
	size_t i;

	if (n <= 0 || (size_t)n > d->build_id_size || memcmp(id, d->build_id, (size_t)n) != 0)
		return false;
	for (i = (size_t)n; i < d->build_id_size; i++)
		if (d->build_id[i])
			return false;
	return true;
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

/* A place d's file may be: path, or inner under /proc/root_pid/root. */
struct dso_cand {
	char *path;               /* what dso_sym_path shows */
	uint32_t root_pid;        /* 0: open path itself */
	const char *inner;        /* the path as root_pid sees it */
};

/* Open a candidate for reading if it is a regular file.  Under a
 * process's root, nsopen keeps the container's symlinks inside it (a
 * plain open of /proc/PID/root/path would follow an absolute link to the
 * host's file).  Sets *exists when something is there.  Returns a
 * readable descriptor or -errno. */
static int dso_cand_open(const struct dso_cand *c, bool *exists)
{
	int pfd, fd;

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

/* The file to read d's symbols from, open (*fdp) and named (returned,
 * malloc'd), or NULL; *stale says why not when a file was there but was
 * not d's.  In order: symfs/.build-id/xx/rest and symfs/path (recordings
 * made elsewhere); path under /proc/PID/root (a process in another mount
 * namespace sees its own files); path; while the process lives
 * /proc/PID/map_files/START-END (the mapped inode itself, even when the
 * path now names another file or none); the debug file by build ID.
 * Every candidate must pass dso_file_ok: never another binary's names. */
static char *dso_find_file(const struct machine *m, const struct dso *d, int *fdp,
			   const char **stale)
{
	struct dso_cand cand[8];
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
	if (m->symfs && d->build_id_expected && d->build_id_size)
		cand[n++].path = xasprintf("%s/.build-id/%02x/%s", m->symfs, d->build_id[0], sb.buf);
	if (m->symfs)
		cand[n++].path = xasprintf("%s%s%s", m->symfs, d->open_path[0] == '/' ? "" : "/",
					   d->open_path);
	if (m->live && d->hint_pid && d->open_path[0] == '/') {
		cand[n].path = xasprintf("/proc/%u/root%s", d->hint_pid, d->open_path);
		cand[n].root_pid = d->hint_pid;
		cand[n++].inner = d->open_path;
	}
	cand[n++].path = xstrdup(d->open_path);
	if (m->live && d->hint_pid && d->hint_end > d->hint_start)
		cand[n++].path = xasprintf("/proc/%u/map_files/%" PRIx64 "-%" PRIx64, d->hint_pid,
					   d->hint_start, d->hint_end);
	if (d->build_id_expected && d->build_id_size) {
		cand[n++].path = xasprintf("%s/usr/lib/debug/.build-id/%02x/%s.debug",
					   m->symfs ? m->symfs : "", d->build_id[0], sb.buf);
		if (m->symfs)
			cand[n++].path = xasprintf("/usr/lib/debug/.build-id/%02x/%s.debug",
						   d->build_id[0], sb.buf);
	}
	strbuf_release(&sb);
	*fdp = -1;
	for (i = 0; i < n && !found; i++) {
		int fd = dso_cand_open(&cand[i], &any);

		if (fd < 0)
			continue;
		if (dso_file_ok(m, d, fd)) {
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
static void dso_fetch_debuginfo(const struct machine *m, struct dso *d)
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

/* A stripped binary (no .symtab; static ones have no .dynsym either) whose
 * separate debug file is around: merge
 * the debug file's .symtab into d's symbols, as perf report and gdb do.
 * First by build ID: symfs/usr/lib/debug/.build-id/xx/rest.debug, then
 * /usr/lib/debug/...; then by .gnu_debuglink (file name + CRC) in the
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

static bool symloader_fetch(struct machine *m, struct dso *d);

/* Load d's symbols; runs on the loader thread when on_loader.  Writes
 * only d->img and d->stale, then publishes them with the state.  Returns
 * false when d went to the fetch thread, which publishes it. */
static bool dso_load_symbols(struct machine *m, struct dso *d, bool on_loader)
{
	const char *stale = NULL;
	int fd = -1;
	char *path = dso_find_file(m, d, &fd, &stale);
	int state = DSO_SYMS_FAILED;
	bool fetch = false;

	if (path && elfsyms_load_fd(fd, &d->img) == 0) {
		state = DSO_SYMS_LOADED;
		d->sym_path = path;
		path = NULL;
		fetch = dso_load_debug_symbols(m, d);
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

/* ---- perf maps (JIT code) ---- */

/* p's map, made on first use. */
static struct jitmap *jitmap_get(struct machine *m, struct process *p)
{
	struct jitmap *j = p->jit;
	char *path;

	if (j)
		return j;
	j = xcalloc(1, sizeof(*j));
	j->pid = p->pid;
	path = xasprintf("/tmp/perf-%u.map", p->pid);
	/* DSO_ANON: never opened as ELF; shown as perf-PID.map.  Not in the
	 * DSO table: a reused pid's map is another DSO. */
	j->dso = dso_new(path, DSO_ANON);
	free(path);
	j->next = m->jitmaps;
	m->jitmaps = j;
	p->jit = j;
	return j;
}

/* Read the lines of j's map appended since j->size into next_tab and
 * next_index, and publish LOADED; but when more than max_new bytes (0: no
 * limit) are new, read nothing and return -E2BIG.  On the loader thread
 * when async (it only reads j->index and j->size: the engine leaves them
 * alone while LOADING).  Returns perfmap_load's result. */
static int jitmap_read(struct jitmap *j, uint64_t max_new)
{
	struct symtab *st;
	uint64_t size;
	int err = perfmap_load_max(j->pid, j->size, max_new, &st, &size);

	if (err == -E2BIG)
		return err;
	if (err == 0) {
		perfmap_index_merge(&j->index, st, &j->next_index);
		j->next_size = size;
		j->next_tab = st;
	}
	__atomic_store_n(&j->state, JIT_LOADED, __ATOMIC_RELEASE);
	return err;
}

/* Engine thread: take a finished read into j's index. */
static void jitmap_install(struct machine *m, struct jitmap *j)
{
	if (__atomic_load_n(&j->state, __ATOMIC_ACQUIRE) != JIT_LOADED)
		return;
	if (j->next_tab) {
		m->jit_tabs = xgrow(m->jit_tabs, &m->jit_cap, m->njit_tabs + 1,
				    sizeof(*m->jit_tabs));
		m->jit_tabs[m->njit_tabs++] = j->next_tab;
		perfmap_index_release(&j->index);
		j->index = j->next_index;
		j->size = j->next_size;
		j->next_tab = NULL;
		memset(&j->next_index, 0, sizeof(j->next_index));
	}
	__atomic_store_n(&j->state, JIT_IDLE, __ATOMIC_RELAXED);
}

/* The DSO of samples held for j's read, falling back to fallback. */
static struct dso *jitmap_proxy(struct jitmap *j, struct dso *fallback)
{
	struct dso *d;
	size_t i;

	for (i = 0; i < j->nproxies; i++)
		if (j->proxies[i]->jit_fallback == fallback)
			return j->proxies[i];
	d = dso_new(j->dso->path, DSO_ANON);
	d->jit = j;
	d->jit_fallback = fallback;
	j->proxies = xgrow(j->proxies, &j->proxy_cap, j->nproxies + 1, sizeof(*j->proxies));
	j->proxies[j->nproxies++] = d;
	return d;
}

static void jitmap_free(struct jitmap *j)
{
	size_t i;

	perfmap_index_release(&j->index);
	perfmap_index_release(&j->next_index);
	symtab_free(j->next_tab);
	dso_free(j->dso);
	for (i = 0; i < j->nproxies; i++)
		dso_free(j->proxies[i]);
	free(j->proxies);
	free(j);
}

/* ---- the loader thread ---- */

/* Under l->lock: one job (or fetch) is over. */
static void symloader_done_locked(struct symloader *l)
{
	__atomic_store_n(&l->done_total, l->done_total + 1, __ATOMIC_RELEASE);
	l->busy--;
	__atomic_store_n(&l->busy_hint, l->busy, __ATOMIC_RELAXED);
	if (l->busy == 0)
		pthread_cond_broadcast(&l->idle);
}

static void *symloader_fetch_main(void *arg)
{
	struct machine *m = arg;
	struct symloader *l = &m->loader;

	pthread_mutex_lock(&l->lock);
	for (;;) {
		struct dso *d;

		while (!l->stop && l->fcount == 0)
			pthread_cond_wait(&l->fetch_wake, &l->lock);
		if (l->stop)
			break;
		d = l->fetchq[l->fhead];
		l->fhead = (l->fhead + 1) % l->fcap;
		l->fcount--;
		pthread_mutex_unlock(&l->lock);
		/* d's ELF symbols are in (the loader read them): LOADED with
		 * or without the fetched debug file. */
		dso_fetch_debuginfo(m, d);
		__atomic_store_n(&d->state, DSO_SYMS_LOADED, __ATOMIC_RELEASE);
		pthread_mutex_lock(&l->lock);
		symloader_done_locked(l);
	}
	pthread_mutex_unlock(&l->lock);
	return NULL;
}

/* Loader thread: hand d (loaded, still QUEUED) to the fetch thread,
 * started at the first call.  False when it cannot be started: then the
 * loader fetches itself. */
static bool symloader_fetch(struct machine *m, struct dso *d)
{
	struct symloader *l = &m->loader;
	bool ok = true;

	pthread_mutex_lock(&l->lock);
	if (!l->fetch_started) {
		pthread_cond_init(&l->fetch_wake, NULL);
		if (pthread_create(&l->fetch_thread, NULL, symloader_fetch_main, m) != 0) {
			pthread_cond_destroy(&l->fetch_wake);
			ok = false;
		}
		l->fetch_started = ok;
	}
	if (ok) {
		if (l->fcount == l->fcap) {
			size_t ncap = l->fcap ? l->fcap * 2 : 16, i;
			struct dso **nq = xmalloc(ncap * sizeof(*nq));

			for (i = 0; i < l->fcount; i++)
				nq[i] = l->fetchq[(l->fhead + i) % l->fcap];
			free(l->fetchq);
			l->fetchq = nq;
			l->fcap = ncap;
			l->fhead = 0;
		}
		l->fetchq[(l->fhead + l->fcount) % l->fcap] = d;
		l->fcount++;
		pthread_cond_signal(&l->fetch_wake);
	}
	pthread_mutex_unlock(&l->lock);
	return ok;
}

static void *symloader_main(void *arg)
{
	struct machine *m = arg;
	struct symloader *l = &m->loader;

	pthread_mutex_lock(&l->lock);
	for (;;) {
		struct loader_job job;
		bool done = true;

		while (!l->stop && l->count == 0)
			pthread_cond_wait(&l->wake, &l->lock);
		if (l->stop)
			break;
		job = l->queue[l->head];
		l->head = (l->head + 1) % l->cap;
		l->count--;
		pthread_mutex_unlock(&l->lock);
		if (job.jit)
			jitmap_read(job.jit, 0);
		else
			done = dso_load_symbols(m, job.dso, true);
		pthread_mutex_lock(&l->lock);
		if (done)
			symloader_done_locked(l);
	}
	pthread_mutex_unlock(&l->lock);
	return NULL;
}

/* Hand a job to the loader thread (engine thread): DSO d in state NONE,
 * or a read of map j (LOADING). */
static void symloader_push(struct machine *m, struct dso *d, struct jitmap *j)
{
	struct symloader *l = &m->loader;

	if (d)
		d->state = DSO_SYMS_QUEUED;
	pthread_mutex_lock(&l->lock);
	if (l->count == l->cap) {
		size_t ncap = l->cap ? l->cap * 2 : 64, i;
		struct loader_job *nq = xmalloc(ncap * sizeof(*nq));

		for (i = 0; i < l->count; i++)
			nq[i] = l->queue[(l->head + i) % l->cap];
		free(l->queue);
		l->queue = nq;
		l->cap = ncap;
		l->head = 0;
	}
	l->queue[(l->head + l->count) % l->cap].dso = d;
	l->queue[(l->head + l->count) % l->cap].jit = j;
	l->count++;
	l->queued_total++;
	l->busy++;
	__atomic_store_n(&l->busy_hint, l->busy, __ATOMIC_RELAXED);
	pthread_cond_signal(&l->wake);
	pthread_mutex_unlock(&l->lock);
}

int machine_set_async(struct machine *m, bool async)
{
	struct symloader *l = &m->loader;
	int err;

	if (!async || l->started) {
		m->async = async && l->started;
		return 0;
	}
	pthread_mutex_init(&l->lock, NULL);
	pthread_cond_init(&l->wake, NULL);
	pthread_cond_init(&l->idle, NULL);
	err = pthread_create(&l->thread, NULL, symloader_main, m);
	if (err) {
		pthread_mutex_destroy(&l->lock);
		pthread_cond_destroy(&l->wake);
		pthread_cond_destroy(&l->idle);
		return -err;
	}
	l->started = true;
	m->async = true;
	return 0;
}

void machine_set_live(struct machine *m, bool live)
{
	m->live = live;
	m->vdso_allowed |= live;
}

size_t machine_symbols_loading(const struct machine *m)
{
	return m->loader.started ? __atomic_load_n(&m->loader.busy_hint, __ATOMIC_RELAXED) : 0;
}

uint64_t machine_symbols_ticket(const struct machine *m)
{
	return m->loader.queued_total;
}

uint64_t machine_symbols_loaded(const struct machine *m)
{
	return m->loader.started ? __atomic_load_n(&m->loader.done_total, __ATOMIC_ACQUIRE) : 0;
}

bool machine_symbols_done(const struct machine *m, uint64_t ticket)
{
	return !m->loader.started ||
	       __atomic_load_n(&m->loader.done_total, __ATOMIC_ACQUIRE) >= ticket;
}

void machine_wait_symbols(struct machine *m)
{
	machine_wait_symbols_for(m, -1);
}

bool machine_wait_symbols_for(struct machine *m, int ms)
{
	struct symloader *l = &m->loader;
	struct timespec until;
	bool idle;

	if (!l->started)
		return true;
	clock_gettime(CLOCK_REALTIME, &until);
	if (ms >= 0) {
		until.tv_sec += ms / 1000;
		until.tv_nsec += (long)(ms % 1000) * 1000000L;
		if (until.tv_nsec >= 1000000000L) {
			until.tv_sec++;
			until.tv_nsec -= 1000000000L;
		}
	}
	pthread_mutex_lock(&l->lock);
	while (l->busy) {
		if (ms < 0)
			pthread_cond_wait(&l->idle, &l->lock);
		else if (pthread_cond_timedwait(&l->idle, &l->lock, &until) != 0)
			break;
	}
	idle = l->busy == 0;
	pthread_mutex_unlock(&l->lock);
	return idle;
}

static void symloader_stop(struct machine *m)
{
	struct symloader *l = &m->loader;

	if (!l->started)
		return;
	pthread_mutex_lock(&l->lock);
	l->stop = true;
	/* A fetch under way gives up now, not at its timeout. */
	__atomic_store_n(&l->cancel, 1, __ATOMIC_RELAXED);
	pthread_cond_signal(&l->wake);
	if (l->fetch_started)
		pthread_cond_signal(&l->fetch_wake);
	pthread_mutex_unlock(&l->lock);
	/* Joined before any DSO is freed: the threads may be loading one.
	 * The loader first: it may start the fetch thread. */
	pthread_join(l->thread, NULL);
	if (l->fetch_started) {
		pthread_join(l->fetch_thread, NULL);
		pthread_cond_destroy(&l->fetch_wake);
		l->fetch_started = false;
	}
	/* DSOs left waiting for a fetch have their ELF symbols: LOADED, so
	 * that dso_free releases them. */
	while (l->fcount) {
		__atomic_store_n(&l->fetchq[l->fhead]->state, DSO_SYMS_LOADED, __ATOMIC_RELEASE);
		l->fhead = (l->fhead + 1) % l->fcap;
		l->fcount--;
	}
	free(l->fetchq);
	pthread_mutex_destroy(&l->lock);
	pthread_cond_destroy(&l->wake);
	pthread_cond_destroy(&l->idle);
	free(l->queue);
	l->started = false;
}

void machine_set_debuginfod(struct machine *m, long timeout_ms)
{
	m->debuginfod_ms = timeout_ms > 0 ? timeout_ms : 0;
}

size_t machine_debuginfod_active(const struct machine *m)
{
	return __atomic_load_n(&m->debuginfod_active, __ATOMIC_RELAXED);
}

void machine_set_symfs(struct machine *m, const char *dir)
{
	size_t len;

	free(m->symfs);
	m->symfs = NULL;
	if (!dir || !dir[0])
		return;
	len = strlen(dir);
	/* "dir/" + "/usr/bin/x" would still work, but keep the paths tidy. */
	while (len > 1 && dir[len - 1] == '/')
		len--;
	m->symfs = xstrndup(dir, len);
}

static void dso_expect_build_id(struct dso *d, const uint8_t *id, size_t size)
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
	if (m->dsocap) {
		for (i = hash_path(path) & (m->dsocap - 1); m->dsos[i]; i = (i + 1) & (m->dsocap - 1)) {
			struct dso *d = m->dsos[i];

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

/* ---- machine, processes, threads ---- */

static struct thread *thread_get(struct machine *m, uint32_t pid, uint32_t tid);
static void synth_end(struct machine *m);

struct machine *machine_new(void)
{
	struct machine *m = xcalloc(1, sizeof(*m));
	struct thread *idle;

	/* The idle task (pid 0) never appears in /proc or in FORK records,
	 * yet every CPU samples it. */
	procfs_init(&m->procfs);
	m->sweep.procfd = -1;
	idle = thread_get(m, 0, 0);
	idle->comm = idle->proc->comm = intern("swapper");
	return m;
}

static void process_free(struct machine *m, struct process *p)
{
	if (p->in_table)
		idtab_remove(&m->procs, p);
	m->stats.maps -= p->nmaps;
	free(p->maps);
	free(p);
	m->stats.processes = m->procs.count;
}

void machine_free(struct machine *m)
{
	size_t i;

	if (!m)
		return;
	/* Before the loader: the kernel thread uses the loader's lock. */
	if (m->kload.started) {
		pthread_join(m->kload.thread, NULL);
		if (!m->kload.err)
			kallsyms_release(&m->kload.ks);
	}
	free(m->kload.kallsyms);
	free(m->kload.modules);
	free(m->kload.vmlinux);
	free(m->kload.note);
	symloader_stop(m);
	for (i = 0; i < m->threads.cap; i++) {
		struct thread *t = m->threads.slots[i];

		/* Processes are freed through their last thread only. */
		if (t && --t->proc->nthreads == 0) {
			free(t->proc->maps);
			free(t->proc);
		}
		free(t);
	}
	free(m->threads.slots);
	free(m->procs.slots);
	for (i = 0; i < m->dsocap; i++)
		if (m->dsos[i])
			dso_free(m->dsos[i]);
	free(m->dsos);
	if (m->ks_loaded)
		kallsyms_release(&m->ks);
	free(m->module_dsos);
	free(m->gcbuf);
	for (i = 0; i < m->nknown_ids; i++)
		free(m->known_ids[i].path);
	free(m->known_ids);
	free(m->symfs);
	procfs_release(&m->procfs);
	synth_end(m);
	while (m->jitmaps) {
		struct jitmap *j = m->jitmaps;

		m->jitmaps = j->next;
		jitmap_free(j);
	}
	for (i = 0; i < m->njit_tabs; i++)
		symtab_free(m->jit_tabs[i]);
	free(m->jit_tabs);
	if (m->vdso_state > 0)
		elfsyms_release(&m->vdso_img);
	free(m);
}

static struct process *process_new(struct machine *m, uint32_t pid)
{
	struct process *p = xcalloc(1, sizeof(*p));

	p->pid = pid;
	p->in_table = true;
	p->born = m->now;
	idtab_insert(&m->procs, p);
	m->stats.processes = m->procs.count;
	return p;
}

/* Take p out of the pid table (its pid was reused) and retire its threads:
 * they stay resolvable until gc, like exited ones. */
static void process_detach(struct machine *m, struct process *p)
{
	size_t i;

	idtab_remove(&m->procs, p);
	p->in_table = false;
	m->stats.processes = m->procs.count;
	for (i = 0; i < m->threads.cap; i++) {
		struct thread *t = m->threads.slots[i];

		if (t && t->proc == p && t->state == THREAD_ALIVE)
			t->state = THREAD_EXITED;
	}
}

static void thread_free(struct machine *m, struct thread *t)
{
	idtab_remove(&m->threads, t);
	m->stats.threads = m->threads.count;
	if (--t->proc->nthreads == 0)
		process_free(m, t->proc);
	free(t);
}

/* A new thread tid in p, replacing any older thread with that tid. */
static struct thread *thread_new(struct machine *m, struct process *p, uint32_t tid,
				 const char *comm)
{
	struct thread *old = idtab_find(&m->threads, tid);
	struct thread *t = xcalloc(1, sizeof(*t));

	t->tid = tid;
	t->pid = p->pid;
	t->comm = comm;
	t->proc = p;
	t->born = m->now;
	p->nthreads++;
	/* Free the old one only now: it may hold the last reference to p. */
	if (old)
		thread_free(m, old);
	idtab_insert(&m->threads, t);
	m->stats.threads = m->threads.count;
	return t;
}

/* The live thread tid of process pid, created (with its process) if needed. */
static struct thread *thread_get(struct machine *m, uint32_t pid, uint32_t tid)
{
	struct thread *t = idtab_find(&m->threads, tid);
	struct process *p;

	if (t && t->pid == pid && t->state == THREAD_ALIVE)
		return t;
	p = idtab_find(&m->procs, pid);
	if (!p)
		p = process_new(m, pid);
	return thread_new(m, p, tid, p->comm);
}

/* ---- maps ---- */

/* Index of the first map ending after addr. */
static size_t maps_lower(const struct process *p, uint64_t addr)
{
	size_t lo = 0, hi = p->nmaps;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (p->maps[mid].end <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static const struct map *maps_find(const struct process *p, uint64_t addr)
{
	size_t i = maps_lower(p, addr);

	if (i < p->nmaps && p->maps[i].start <= addr)
		return &p->maps[i];
	return NULL;
}

/* Map [start, end) to dso (or only unmap the range when dso is NULL), the
 * way mmap replaces what was there: overlapped maps keep their pieces
 * outside the range. */
static void maps_insert(struct machine *m, struct process *p, uint64_t start,
			uint64_t end, uint64_t pgoff, struct dso *dso)
{
	size_t lo = maps_lower(p, start), hi = lo, nnew, i;
	struct map left = { 0 }, right = { 0 };
	bool has_left = false, has_right = false;

	if (end <= start)
		return;
	while (hi < p->nmaps && p->maps[hi].start < end)
		hi++;
	if (lo < hi && p->maps[lo].start < start) {
		left = p->maps[lo];
		left.end = start;
		has_left = true;
	}
	if (lo < hi && p->maps[hi - 1].end > end) {
		right = p->maps[hi - 1];
		right.pgoff += end - right.start;
		right.start = end;
		has_right = true;
	}
	nnew = has_left + (dso != NULL) + has_right;
	p->maps = xgrow(p->maps, &p->mapcap, p->nmaps - (hi - lo) + nnew, sizeof(*p->maps));
	memmove(&p->maps[lo + nnew], &p->maps[hi], (p->nmaps - hi) * sizeof(*p->maps));
	m->stats.maps -= p->nmaps;
	p->nmaps = p->nmaps - (hi - lo) + nnew;
	m->stats.maps += p->nmaps;
	i = lo;
	if (has_left)
		p->maps[i++] = left;
	if (dso)
		p->maps[i++] = (struct map){ start, end, pgoff, dso };
	if (has_right)
		p->maps[i++] = right;
}

static void maps_flush(struct machine *m, struct process *p)
{
	m->stats.maps -= p->nmaps;
	p->nmaps = 0;
}

static void maps_copy(struct machine *m, struct process *dst, const struct process *src)
{
	maps_flush(m, dst);
	dst->maps = xgrow(dst->maps, &dst->mapcap, src->nmaps, sizeof(*dst->maps));
	if (src->nmaps)    /* maps may be NULL: memcpy(NULL, NULL, 0) is undefined */
		memcpy(dst->maps, src->maps, src->nmaps * sizeof(*src->maps));
	dst->nmaps = src->nmaps;
	m->stats.maps += dst->nmaps;
}

/* ---- side-band events ---- */

static void map_event(struct machine *m, struct process *p, const struct mmap_event *ev)
{
	struct dso *d = NULL;
	/* MMAP records carry no prot (0 here) and are exec maps; an MMAP2
	 * without PROT_EXEC (attr.mmap_data) still replaces what was there. */
	bool exec = ev->prot == 0 || (ev->prot & PROT_EXEC);

	if (exec) {
		const char *path = ev->filename ? ev->filename : "";
		enum dso_kind kind = dso_kind_from_path(path);
		bool has_id = ev->has_build_id && ev->build_id_size &&
			      ev->build_id_size <= sizeof(d->build_id);
		enum dso_ident ident = kind != DSO_USER ? DSO_IDENT_PATH :
				       has_id ? DSO_IDENT_BUILD_ID :
				       ev->ino ? DSO_IDENT_INODE : DSO_IDENT_PATH;

		d = dso_lookup(m, path, kind, ident, ev->build_id, ev->build_id_size, ev->ino);
		/* A DSO still unloaded learns the stronger identity (its
		 * fields are frozen once queued: the loader reads them). */
		if (d->state == DSO_SYMS_NONE && kind == DSO_USER && ident > d->ident) {
			d->ident = ident;
			d->maj = ev->maj;
			d->min = ev->min;
			d->ino = ev->ino;
			if (has_id)
				dso_expect_build_id(d, ev->build_id, ev->build_id_size);
		}
		if (d->state == DSO_SYMS_NONE && !d->hint_pid && p->pid) {
			d->hint_pid = p->pid;
			d->hint_start = ev->start;
			d->hint_end = ev->start + ev->len;
		}
	}
	maps_insert(m, p, ev->start, ev->start + ev->len, ev->pgoff, d);
}

void machine_set_time(struct machine *m, uint64_t time)
{
	m->now = time;
}

void machine_mmap(struct machine *m, const struct mmap_event *ev)
{
	/* pid -1: the kernel's own maps (perf.data); kernel addresses are
	 * resolved through kallsyms instead. */
	if (ev->pid == (uint32_t)-1)
		return;
	map_event(m, thread_get(m, ev->pid, ev->tid)->proc, ev);
}

void machine_comm(struct machine *m, const struct comm_event *ev)
{
	struct thread *t = thread_get(m, ev->pid, ev->tid);
	const char *comm = intern(ev->comm ? ev->comm : "");

	t->comm = comm;
	if (ev->exec) {
		/* The new image's MMAP2s follow. */
		maps_flush(m, t->proc);
		/* A new program: its own perf map (the machine keeps the old). */
		t->proc->jit = NULL;
		t->proc->comm = comm;
		t->proc->execd = true;
	} else if (ev->tid == ev->pid || !t->proc->comm) {
		t->proc->comm = comm;
	}
}

void machine_fork(struct machine *m, const struct task_event *ev)
{
	struct thread *parent = idtab_find(&m->threads, ev->ptid);
	struct process *pp = idtab_find(&m->procs, ev->ppid), *p;
	const char *comm;

	if (parent && parent->pid != ev->ppid)
		parent = NULL;
	if (!pp && parent)
		pp = parent->proc;
	comm = parent && parent->comm ? parent->comm : pp ? pp->comm : NULL;
	if (ev->pid != ev->ppid) {
		p = idtab_find(&m->procs, ev->pid);
		if (p && ev->time && p->born > ev->time) {
			/* The child's own records (read from another CPU's ring,
			 * its EXIT maybe among them) came before this FORK: keep
			 * what they built, exited threads included. */
			if (!p->comm)
				p->comm = comm;
			if (pp && pp != p && p->nmaps == 0 && !p->execd)
				maps_copy(m, p, pp);
			if (!idtab_find(&m->threads, ev->tid))
				thread_new(m, p, ev->tid, comm);
			return;
		}
		/* A new process; an existing one with that pid exited: pid reuse. */
		if (p)
			process_detach(m, p);
		p = process_new(m, ev->pid);
		p->comm = comm;
		if (pp)
			maps_copy(m, p, pp);
	} else {
		struct thread *t = idtab_find(&m->threads, ev->tid);

		p = idtab_find(&m->procs, ev->pid);
		if (!p)
			p = process_new(m, ev->pid);
		if (!p->comm)
			p->comm = comm;
		/* The new thread's records came first: keep its state. */
		if (t && t->proc == p && ev->time && t->born > ev->time)
			return;
	}
	thread_new(m, p, ev->tid, comm);
}

void machine_exit(struct machine *m, const struct task_event *ev)
{
	struct thread *t = idtab_find(&m->threads, ev->tid);

	/* An EXIT read before the FORK that made the thread (rings of other
	 * CPUs): record the thread as exited, so the late FORK finds it born
	 * after itself and does not bring it back to life for ever. */
	if (!t || t->pid != ev->pid)
		t = thread_get(m, ev->pid, ev->tid);
	if (t->state == THREAD_ALIVE)
		t->state = THREAD_EXITED;
}

void machine_gc(struct machine *m)
{
	size_t i, n = 0;

	/* Collect first: removal shifts slots and would upset the scan. */
	for (i = 0; i < m->threads.cap; i++) {
		struct thread *t = m->threads.slots[i];

		if (!t || t->state == THREAD_ALIVE)
			continue;
		if (t->state == THREAD_EXITED) {
			t->state = THREAD_EXITED_GC;
			continue;
		}
		m->gcbuf = xgrow(m->gcbuf, &m->gccap, n + 1, sizeof(*m->gcbuf));
		m->gcbuf[n++] = t;
	}
	for (i = 0; i < n; i++)
		thread_free(m, m->gcbuf[i]);
}

/* ---- resolution ---- */

static struct dso *kernel_dso(struct machine *m)
{
	if (!m->kernel_dso)
		m->kernel_dso = machine_dso_get(m, "[kernel.kallsyms]", DSO_KERNEL);
	return m->kernel_dso;
}

/* Read the kernel's symbols (any thread): kallsyms, then the sizes of
 * --vmlinux or of a vmlinux found by the kernel's build ID.  Writes only
 * ks and m->kload.note. */
static int kernel_read(struct machine *m, struct kernel_syms *ks)
{
	struct kernel_load *kl = &m->kload;
	uint8_t id[ELFSYMS_BUILD_ID_MAX];
	char why[512], *path = NULL;
	struct utsname uts;
	int err = kallsyms_load_files(kl->kallsyms, kl->modules, ks), n;

	/* perf's copy was written by whoever recorded: zeros under
	 * kptr_restrict, or unreadable since. */
	if (kl->kallsyms_cached && (err || ks->restricted)) {
		kallsyms_release(ks);
		err = kallsyms_load_files(NULL, kl->modules, ks);
	}
	if (err || ks->restricted || !kl->use_vmlinux)
		return err;
	n = kallsyms_kernel_build_id(id);
	if (kl->vmlinux)
		path = xstrdup(kl->vmlinux);
	else if (n > 0 && uname(&uts) == 0)
		path = kallsyms_find_vmlinux(NULL, uts.release, id, (size_t)n);
	if (!path)
		return 0;
	if (kallsyms_use_vmlinux(ks, path, id, n > 0 ? (size_t)n : 0, why, sizeof(why)) == 0)
		kl->note = xasprintf("kernel symbol sizes from %s", path);
	else
		kl->note = xasprintf("%s: using /proc/kallsyms alone", why);
	free(path);
	return 0;
}

/* Engine thread: make ks (read by kernel_read, err its result) the
 * machine's kernel symbols, with a DSO per module. */
static int kernel_take(struct machine *m, struct kernel_syms *ks, int err, bool *restricted)
{
	size_t i;

	/* Called only when the samples are the running kernel's. */
	m->vdso_allowed = true;
	if (m->ks_loaded) {
		kallsyms_release(&m->ks);
		m->ks_loaded = false;
	}
	kernel_dso(m)->state = err ? DSO_SYMS_FAILED : DSO_SYMS_LOADED;
	m->kernel_err = err;
	if (restricted)
		*restricted = false;
	if (err) {
		memset(&m->ks, 0, sizeof(m->ks));
		return err;
	}
	m->ks = *ks;
	m->ks_loaded = true;
	free(m->module_dsos);
	m->module_dsos = xcalloc(m->ks.nmodules ? m->ks.nmodules : 1, sizeof(*m->module_dsos));
	for (i = 0; i < m->ks.nmodules; i++) {
		char *name = xasprintf("[%s]", m->ks.modules[i].name);

		m->module_dsos[i] = machine_dso_get(m, name, DSO_MODULE);
		free(name);
	}
	if (restricted)
		*restricted = m->ks.restricted;
	return 0;
}

/* ---- kallsyms only when needed (replay) ---- */

int machine_load_kernel_lazy(struct machine *m)
{
	kernel_dso(m);
	m->ks_lazy = true;
	/* Called only for samples of the running kernel: its vdso names
	 * theirs from the first sample on, not from the first kernel
	 * address (that came late in some recordings, and every [vdso]
	 * sample before it was [unknown]). */
	m->vdso_allowed = true;
	return 0;
}

void machine_set_kernel_files(struct machine *m, const char *kallsyms, const char *modules)
{
	free(m->kload.kallsyms);
	free(m->kload.modules);
	m->kload.kallsyms = kallsyms ? xstrdup(kallsyms) : NULL;
	m->kload.modules = modules ? xstrdup(modules) : NULL;
	m->kload.kallsyms_cached = false;
}

void machine_set_kernel_cache(struct machine *m, const char *kallsyms)
{
	machine_set_kernel_files(m, kallsyms, NULL);
	m->kload.kallsyms_cached = true;
}

void machine_set_vmlinux(struct machine *m, bool use, const char *path)
{
	free(m->kload.vmlinux);
	m->kload.use_vmlinux = use;
	m->kload.vmlinux = path ? xstrdup(path) : NULL;
}

const char *machine_kernel_note(const struct machine *m)
{
	return m->kload.started ? NULL : m->kload.note;
}

int machine_load_kernel(struct machine *m, bool *restricted)
{
	struct kernel_syms ks;
	int err;

	kernel_dso(m);
	err = kernel_read(m, &ks);
	return kernel_take(m, &ks, err, restricted);
}

static void *kernel_load_main(void *arg)
{
	struct machine *m = arg;
	struct kernel_load *kl = &m->kload;
	struct symloader *l = &m->loader;
	const char *delay = getenv("PROFTOP_TEST_KERNEL_DELAY_MS");

	/* For the tests: a kallsyms read as slow as a loaded machine's. */
	if (delay && atoi(delay) > 0)
		usleep((useconds_t)atoi(delay) * 1000u);
	kl->err = kernel_read(m, &kl->ks);
	/* Published before busy drops: a waiter woken by it sees the state. */
	__atomic_store_n(&m->kernel_dso->state, kl->err ? DSO_SYMS_FAILED : DSO_SYMS_LOADED,
			 __ATOMIC_RELEASE);
	pthread_mutex_lock(&l->lock);
	l->busy--;
	__atomic_store_n(&l->busy_hint, l->busy, __ATOMIC_RELAXED);
	if (l->busy == 0)
		pthread_cond_broadcast(&l->idle);
	pthread_mutex_unlock(&l->lock);
	return NULL;
}

int machine_load_kernel_async(struct machine *m)
{
	struct symloader *l = &m->loader;
	struct dso *kd = kernel_dso(m);
	int err;

	if (!m->async || m->kload.started)
		return m->kload.started ? 0 : machine_load_kernel(m, NULL);
	kd->state = DSO_SYMS_QUEUED;
	pthread_mutex_lock(&l->lock);
	l->busy++;
	__atomic_store_n(&l->busy_hint, l->busy, __ATOMIC_RELAXED);
	pthread_mutex_unlock(&l->lock);
	err = pthread_create(&m->kload.thread, NULL, kernel_load_main, m);
	if (err) {
		pthread_mutex_lock(&l->lock);
		l->busy--;
		__atomic_store_n(&l->busy_hint, l->busy, __ATOMIC_RELAXED);
		pthread_mutex_unlock(&l->lock);
		kd->state = DSO_SYMS_NONE;
		return machine_load_kernel(m, NULL);
	}
	m->kload.started = true;
	return 0;
}

/* Engine thread: once the kernel thread is done, join it and take its
 * symbols.  Returns false while it is still reading. */
static bool kernel_install(struct machine *m)
{
	struct kernel_load *kl = &m->kload;

	if (!kl->started)
		return true;
	if (__atomic_load_n(&m->kernel_dso->state, __ATOMIC_ACQUIRE) == DSO_SYMS_QUEUED)
		return false;
	pthread_join(kl->thread, NULL);
	kl->started = false;
	kernel_take(m, &kl->ks, kl->err, NULL);
	return true;
}

void machine_wait_kernel(struct machine *m)
{
	struct kernel_load *kl = &m->kload;

	if (!kl->started)
		return;
	pthread_join(kl->thread, NULL);
	kl->started = false;
	kernel_take(m, &kl->ks, kl->err, NULL);
}

int machine_kernel_status(struct machine *m, bool *restricted)
{
	*restricted = false;
	if (m->ks_lazy)
		return 1;
	if (!kernel_install(m))
		return -EINPROGRESS;
	if (!m->kernel_dso)
		return -ENOENT;
	*restricted = m->ks_loaded && m->ks.restricted;
	return m->kernel_err;
}

bool machine_kernel_loading(const struct machine *m)
{
	return m->kload.started && m->kernel_dso &&
	       __atomic_load_n(&m->kernel_dso->state, __ATOMIC_ACQUIRE) == DSO_SYMS_QUEUED;
}

static void resolve_kernel(struct machine *m, uint64_t ip, struct resolved *out)
{
	const struct kernel_module *mod = NULL;

	out->kernel = true;
	out->addr = ip;
	out->dso = kernel_dso(m);
	if (m->ks_lazy) {
		/* The first kernel address of a replay: read kallsyms now
		 * (a recording without kernel samples never does). */
		m->ks_lazy = false;
		machine_load_kernel(m, NULL);
	}
	/* Still reading kallsyms: held like a user DSO still loading. */
	if (!kernel_install(m)) {
		out->pending = true;
		return;
	}
	if (!m->ks_loaded || m->ks.restricted)
		return;
	out->sym = kallsyms_lookup(&m->ks, ip, &mod);
	if (mod)
		out->dso = m->module_dsos[mod - m->ks.modules];
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
static void dso_symbolize(struct dso *d, int state, uint64_t file_off, struct resolved *out)
{
	uint64_t vaddr;

	out->addr = file_off;
	if (state == DSO_SYMS_LOADED &&
	    elfsyms_offset_to_vaddr(&d->img, file_off, &vaddr) == 0) {
		out->addr = vaddr;
		out->sym = symtab_lookup(d->img.symtab, vaddr);
	} else if (state == DSO_SYMS_FAILED) {
		dso_note_stale(d);
	}
}

/* ip in JIT code of live process p: its perf-PID.map names it.  Read on
 * the first such sample, then again on a miss at most once a second, and
 * only the lines appended since (JITs append); when async and more than
 * JIT_READ_NOW bytes are new on the loader thread, a miss then pending
 * until the read is in (under a proxy DSO that
 * falls back to fallback, the map's DSO or NULL).  Replays do not look:
 * the pids are another machine's.  Returns false for a final miss. */
static bool resolve_jit(struct machine *m, struct process *p, uint64_t ip,
			struct resolved *out, struct dso *fallback)
{
	const struct symbol *sym;
	struct jitmap *j = p->jit;
	double now;

	if (!j && !m->live)
		return false;
	j = jitmap_get(m, p);
	jitmap_install(m, j);
	sym = perfmap_index_lookup(&j->index, ip);
	if (!sym && m->live && __atomic_load_n(&j->state, __ATOMIC_ACQUIRE) == JIT_IDLE) {
		now = now_monotonic();
		if (j->checked == 0 || now - j->checked >= 1.0) {
			j->checked = now;
			__atomic_store_n(&j->state, JIT_LOADING, __ATOMIC_RELAXED);
			/* Up to JIT_READ_NOW new bytes are read at once (a few
			 * ms: no sample held, none left unnamed at the end of
			 * a run); more on the loader thread. */
			if (jitmap_read(j, m->async ? JIT_READ_NOW : 0) == -E2BIG) {
				symloader_push(m, NULL, j);
			} else {
				jitmap_install(m, j);
				sym = perfmap_index_lookup(&j->index, ip);
			}
		}
	}
	out->addr = ip;
	/* A read in flight (or just done, not yet installed) may name it. */
	if (!sym && __atomic_load_n(&j->state, __ATOMIC_ACQUIRE) != JIT_IDLE) {
		out->dso = jitmap_proxy(j, fallback);
		out->sym = NULL;
		out->pending = true;
		return true;
	}
	if (!sym)
		return false;
	out->dso = j->dso;
	out->sym = sym;
	return true;
}

/* [vdso] code at offset out->addr of map: named from our own vdso image
 * when the map has its size (a 32-bit process's vdso is another image). */
static void resolve_vdso(struct machine *m, const struct map *map, struct resolved *out)
{
	const void *image;
	size_t size, map_size;
	uint64_t vaddr;

	if (!m->vdso_allowed)
		return;
	if (m->vdso_state == 0) {
		m->vdso_state = -1;
		if (vdso_self(&image, &size, &map_size) == 0 &&
		    elfsyms_load_memory(image, size, &m->vdso_img) == 0) {
			m->vdso_state = 1;
			m->vdso_map_size = map_size;
		}
	}
	if (m->vdso_state < 0 || map->end - map->start != m->vdso_map_size ||
	    elfsyms_offset_to_vaddr(&m->vdso_img, out->addr, &vaddr) != 0)
		return;
	out->addr = vaddr;
	out->sym = symtab_lookup(m->vdso_img.symtab, vaddr);
}

static void resolve_map(struct machine *m, struct process *p, const struct map *map,
			uint64_t ip, struct resolved *out)
{
	struct dso *d = map->dso;
	uint64_t file_off = ip - map->start + map->pgoff;
	int state;

	out->dso = d;
	switch (d->kind) {
	case DSO_USER:
		state = __atomic_load_n(&d->state, __ATOMIC_ACQUIRE);
		if (state == DSO_SYMS_NONE) {
			if (m->async) {
				symloader_push(m, d, NULL);
				state = DSO_SYMS_QUEUED;
			} else {
				dso_load_symbols(m, d, false);
				state = d->state;
			}
		}
		if (state == DSO_SYMS_QUEUED) {
			out->pending = true;
			out->addr = file_off;
			break;
		}
		dso_symbolize(d, state, file_off, out);
		break;
	case DSO_VDSO:
		/* pgoff means nothing for [vdso]. */
		out->addr = ip - map->start;
		resolve_vdso(m, map, out);
		break;
	default:
		/* Anonymous code (JIT): perf-PID.map uses absolute addresses. */
		out->addr = ip;
		if (d->kind == DSO_ANON)
			resolve_jit(m, p, ip, out, d);
		break;
	}
}

bool machine_dso_pending(const struct dso *d)
{
	if (d && d->jit)
		return __atomic_load_n(&d->jit->state, __ATOMIC_ACQUIRE) == JIT_LOADING;
	return d && __atomic_load_n(&d->state, __ATOMIC_ACQUIRE) == DSO_SYMS_QUEUED;
}

bool machine_resolve_deferred(struct machine *m, struct dso *d, uint64_t addr, bool kernel,
			      struct resolved *out)
{
	int state;

	memset(out, 0, sizeof(*out));
	out->dso = d;
	out->kernel = kernel;
	out->addr = addr;
	if (d && d->jit) {
		/* Held for a read of a perf map: named from it once it is in,
		 * else the DSO the address would have had without the map. */
		struct jitmap *j = d->jit;

		if (__atomic_load_n(&j->state, __ATOMIC_ACQUIRE) == JIT_LOADING) {
			out->pending = true;
			return false;
		}
		jitmap_install(m, j);
		out->sym = perfmap_index_lookup(&j->index, addr);
		out->dso = out->sym ? j->dso : d->jit_fallback;
		if (!out->dso)
			m->stats.unmapped++;
		return true;
	}
	if (d && d->kind == DSO_KERNEL && kernel) {
		resolve_kernel(m, addr, out);
		return !out->pending;
	}
	if (!d || d->kind != DSO_USER)
		return true;
	state = __atomic_load_n(&d->state, __ATOMIC_ACQUIRE);
	if (state == DSO_SYMS_QUEUED || state == DSO_SYMS_NONE) {
		out->pending = true;
		return false;
	}
	dso_symbolize(d, state, addr, out);
	return true;
}

void machine_resolve(struct machine *m, uint32_t pid, uint32_t tid,
		     uint16_t cpumode, uint64_t ip, struct resolved *out)
{
	struct thread *t = idtab_find(&m->threads, tid);
	struct process *p;
	const struct map *map;

	/* The sample's pid is authoritative: a thread filed under another
	 * pid is a stale entry for a reused tid. */
	if (t && t->pid != pid)
		t = NULL;
	p = t ? t->proc : idtab_find(&m->procs, pid);

	memset(out, 0, sizeof(*out));
	cpumode &= PERF_RECORD_MISC_CPUMODE_MASK;
	if (!p)
		m->stats.unknown_thread++;
	switch (cpumode) {
	case PERF_RECORD_MISC_KERNEL:
		resolve_kernel(m, ip, out);
		return;
	case PERF_RECORD_MISC_GUEST_KERNEL:
		/* No guest symbols: a guest kernel address is [unknown]. */
		out->kernel = true;
		out->addr = ip;
		return;
	case PERF_RECORD_MISC_GUEST_USER:
	case PERF_RECORD_MISC_HYPERVISOR:
		out->addr = ip;
		return;
	default:
		break;
	}
	/* User or unknown mode: user maps first (some user code, like
	 * [vsyscall], sits in the top half), then the kernel half. */
	map = p ? maps_find(p, ip) : NULL;
	if (map) {
		resolve_map(m, p, map, ip, out);
		return;
	}
	if (ip >> 63) {
		resolve_kernel(m, ip, out);
		return;
	}
	out->addr = ip;
	/* Some JITs map code without telling perf (no MMAP2 record). */
	if (p && !resolve_jit(m, p, ip, out, NULL))
		m->stats.unmapped++;
}

const char *machine_comm_of(struct machine *m, uint32_t pid, uint32_t tid)
{
	struct thread *t = idtab_find(&m->threads, tid);
	struct process *p;

	if (t)
		return t->comm ? t->comm : t->proc->comm;
	p = idtab_find(&m->procs, pid);
	return p ? p->comm : NULL;
}

const struct machine_stats *machine_get_stats(const struct machine *m)
{
	return &m->stats;
}

/* ---- /proc synthesis ---- */

/* Syscalls dominate synthesis, so: paths relative to one /proc fd, comm and
 * thread count from a single read of stat, the task directory only for
 * multi-threaded processes, exec maps through PROCMAP_QUERY where possible. */

static bool parse_id(const char *s, uint32_t *id)
{
	uint64_t v = 0;

	if (!*s)
		return false;
	for (; *s; s++) {
		if (*s < '0' || *s > '9')
			return false;
		v = v * 10 + (uint64_t)(*s - '0');
		if (v > UINT32_MAX)
			return false;
	}
	*id = (uint32_t)v;
	return true;
}

struct synth_ctx {
	struct machine *m;
	struct process *p;
};

static void synth_map(void *arg, const struct procfs_map *pm)
{
	struct synth_ctx *ctx = arg;
	struct mmap_event ev;

	memset(&ev, 0, sizeof(ev));
	ev.pid = ev.tid = ctx->p->pid;
	ev.start = pm->start;
	ev.len = pm->end - pm->start;
	ev.pgoff = pm->pgoff;
	ev.maj = pm->maj;
	ev.min = pm->min;
	ev.ino = pm->ino;
	ev.prot = PROT_READ | PROT_EXEC;
	ev.filename = pm->path;
	map_event(ctx->m, ctx->p, &ev);
}

/* The one-line comm file under dirfd, interned; NULL if unreadable. */
static const char *read_comm(struct machine *m, int dirfd, const char *name)
{
	ssize_t n = procfs_read(&m->procfs, dirfd, name, true);

	if (n <= 0)
		return NULL;
	if (m->procfs.buf[n - 1] == '\n')
		m->procfs.buf[n - 1] = '\0';
	return intern(m->procfs.buf);
}

static void synth_threads(struct machine *m, struct process *p, int procfd, const char *name)
{
	int tfd = openat(procfd, name, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	DIR *dir;
	struct dirent *de;

	if (tfd < 0)
		return;
	dir = fdopendir(tfd);
	if (!dir) {
		close(tfd);
		return;
	}
	while ((de = readdir(dir)) != NULL) {
		struct thread *t;
		uint32_t tid;
		char comm_name[32];

		if (!parse_id(de->d_name, &tid) || tid == p->pid)
			continue;
		t = idtab_find(&m->threads, tid);
		if (!t || t->proc != p || t->state != THREAD_ALIVE)
			t = thread_new(m, p, tid, p->comm);
		snprintf(comm_name, sizeof(comm_name), "%u/comm", tid);
		t->comm = read_comm(m, tfd, comm_name);
		if (!t->comm)
			t->comm = p->comm;
	}
	closedir(dir);
}

/* Returns 1 if pid was read, 0 if it vanished or is unreadable. */
static int synth_process(struct machine *m, int procfd, uint32_t pid)
{
	char name[32];
	const char *comm;
	unsigned long nthreads;
	struct synth_ctx ctx = { m, NULL };
	struct thread *t;

	snprintf(name, sizeof(name), "%u/stat", pid);
	/* Missing: gone between readdir and here. */
	if (procfs_read(&m->procfs, procfd, name, true) <= 0 ||
	    !procfs_parse_stat(m->procfs.buf, &comm, &nthreads))
		return 0;
	comm = intern(comm);
	t = thread_get(m, pid, pid);
	ctx.p = t->proc;
	ctx.p->comm = comm;
	t->comm = comm;
	/* Kernel threads have no maps; other users' need ptrace access. */
	maps_flush(m, ctx.p);
	snprintf(name, sizeof(name), "%u/maps", pid);
	procfs_read_maps(&m->procfs, procfd, name, PROCFS_MAPS_AUTO, synth_map, &ctx);
	if (nthreads != 1) {
		snprintf(name, sizeof(name), "%u/task", pid);
		synth_threads(m, ctx.p, procfd, name);
	}
	return 1;
}

/* The pids of /proc, read in one pass of getdents (no stat per entry). */
static int synth_list_all(int procfd, uint32_t **pids, size_t *n)
{
	int fd = dup(procfd);
	DIR *dir = fd >= 0 ? fdopendir(fd) : NULL;
	struct dirent *de;
	size_t cap = 0;

	if (!dir) {
		int err = -errno;

		if (fd >= 0)
			close(fd);
		return err;
	}
	while ((de = readdir(dir)) != NULL) {
		uint32_t pid;

		if (!parse_id(de->d_name, &pid))
			continue;
		*pids = xgrow(*pids, &cap, *n + 1, sizeof(**pids));
		(*pids)[(*n)++] = pid;
	}
	closedir(dir);
	return 0;
}

static void synth_end(struct machine *m)
{
	struct synth_sweep *sw = &m->sweep;

	if (sw->procfd >= 0)
		close(sw->procfd);
	sw->procfd = -1;
	free(sw->pids);
	sw->pids = NULL;
	sw->n = sw->next = 0;
}

int machine_synthesize_begin(struct machine *m, const pid_t *pids, size_t npids)
{
	struct synth_sweep *sw = &m->sweep;
	size_t i;
	int err;

	synth_end(m);
	sw->done = 0;
	sw->procfd = open("/proc", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (sw->procfd < 0)
		return -errno;
	if (npids) {
		sw->pids = xmalloc(npids * sizeof(*sw->pids));
		for (i = 0; i < npids; i++)
			sw->pids[i] = (uint32_t)pids[i];
		sw->n = npids;
	} else if ((err = synth_list_all(sw->procfd, &sw->pids, &sw->n)) < 0) {
		synth_end(m);
		return err;
	}
	if (!sw->n)
		synth_end(m);
	return (int)sw->n;
}

size_t machine_synthesize_step(struct machine *m, size_t max)
{
	struct synth_sweep *sw = &m->sweep;

	while (max-- && sw->next < sw->n) {
		uint32_t pid = sw->pids[sw->next++];

		/* Read already (a record asked for it), or known from the
		 * records themselves (a FORK): those are newer than /proc. */
		if (!idtab_find(&m->procs, pid))
			sw->done += (size_t)synth_process(m, sw->procfd, pid);
	}
	if (sw->next < sw->n)
		return sw->n - sw->next;
	synth_end(m);
	return 0;
}

void machine_synthesize_pid(struct machine *m, uint32_t pid)
{
	struct synth_sweep *sw = &m->sweep;

	if (sw->procfd >= 0 && !idtab_find(&m->procs, pid))
		sw->done += (size_t)synth_process(m, sw->procfd, pid);
}

bool machine_synthesizing(const struct machine *m)
{
	return m->sweep.procfd >= 0;
}

int machine_synthesize(struct machine *m, const pid_t *pids, size_t npids)
{
	int n = machine_synthesize_begin(m, pids, npids);

	if (n < 0)
		return n;
	while (machine_synthesize_step(m, SIZE_MAX))
		;
	return (int)m->sweep.done;
}
