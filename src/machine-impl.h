/* The machine's private header: the structs its modules share (machine.c,
 * idtab.c, dso.c, jitmap.c, symloader.c, kernel.c, synth.c) and the
 * functions they call across files.  Included only by those files and
 * their unit tests; everyone else sees machine.h and the modules' public
 * headers. */
#ifndef PROFTOP_MACHINE_IMPL_H
#define PROFTOP_MACHINE_IMPL_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "buildid-cache.h"
#include "dso.h"
#include "elfsyms.h"
#include "idtab.h"
#include "kallsyms.h"
#include "machine.h"
#include "perfmap.h"
#include "procfs.h"

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
	bool from_cache;          /* either came from a build-id cache */
	struct dso *next_loaded;  /* the loader's list, for machine_free */
	/* A proxy for samples held while jit's map is read (see
	 * jitmap_resolve): not in the DSO table, named once the read is in,
	 * as jit's map DSO or, where the map has no name, jit_fallback. */
	struct jitmap *jit;
	struct dso *jit_fallback;
	/* -s daddr_sym: its data objects, read by the engine thread at the
	 * first data address in it (dso_data_symbolize); NULL until then,
	 * or when there are none. */
	struct symtab *objsyms;
	bool objsyms_tried;
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


/* A job of the loader thread: a DSO's symbols, or a read of a perf map;
 * of the fetch thread: a DSO's debuginfod fetch (jit NULL). */
struct loader_job {
	struct dso *dso;
	struct jitmap *jit;
};

/* A worker thread and its FIFO of jobs, under the symloader's lock. */
struct jobq {
	struct symloader *l;      /* its lock, stop flag and counts */
	struct machine *m;
	/* Runs one job without the lock; false: the job went elsewhere
	 * (a DSO handed to the fetch thread), which finishes it. */
	bool (*run)(struct machine *m, struct loader_job job);
	pthread_t thread;
	bool started;
	pthread_cond_t wake;      /* a job queued, or stop */
	struct loader_job *v;     /* ring of cap, count from head */
	size_t head, count, cap;
};

/* The loader thread and its jobs; the debuginfod fetch thread and its
 * DSOs (started at the first fetch). */
struct symloader {
	pthread_mutex_t lock;
	pthread_cond_t idle;      /* busy dropped to 0 */
	pthread_cond_t done;      /* a job finished (a DSO settled: its state) */
	struct jobq load, fetch;
	int cancel;               /* stop: abort the fetch under way (atomic) */
	size_t busy;              /* jobs queued + being loaded or fetched; under lock */
	size_t busy_hint;         /* copy of busy, read without the lock */
	uint64_t queued_total;    /* DSOs ever queued (engine thread) */
	uint64_t done_total;      /* of which loaded, in queue order; atomic */
	bool stop;
};

/* What a map holds: code (an exec MMAP2, or an MMAP), or, kept only for
 * data addresses (machine_keep_data_maps), data. */
enum map_kind {
	MAP_CODE,
	MAP_DATA_RO,
	MAP_DATA_RW,
};

struct map {
	uint64_t start, end, pgoff;
	struct dso *dso;
	uint8_t kind;             /* enum map_kind: code resolves only in MAP_CODE */
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


struct machine {
	struct idtab threads, procs;
	struct dso **dsos;        /* every DSO, in creation order */
	size_t ndsos, dsos_cap;
	struct hashtab dso_index; /* dsos by path: several per path (identities) */
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
		/* Live (machine_set_kernel_live): the kallsyms cache's
		 * directory (NULL: none), and kallsyms read again, at most
		 * every reload_wait s, for an address outside the tables. */
		char *cache_dir;
		bool live;
		bool reload;              /* this read is such a reload */
		bool from_cache;          /* the last read came from the cache (thread) */
		bool first_from_cache;    /* the first symbols did */
		double next_reload, reload_wait;
		unsigned reloads;         /* reloads taken */
		struct symtab **retired;  /* tables replaced by reloads: results
					     still point into them */
		size_t nretired, retired_cap;
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
	/* perf's build-id cache (--buildid-dir...), and --symfs read as one
	 * (an extracted perf archive); NULL when there is none. */
	struct buildid_cache *bidcache, *symfs_cache;
	size_t bidcache_used;     /* DSOs named from either (atomic) */
	long debuginfod_ms;       /* --debuginfod: its timeout; 0: off */
	size_t debuginfod_active; /* fetches in progress (atomic) */
	bool async;               /* symbols load on the loader thread */
	bool data_maps;           /* machine_keep_data_maps */
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

/* ---- machine.c ---- */
struct thread *machine_thread_get(struct machine *m, uint32_t pid, uint32_t tid);
struct thread *machine_thread_new(struct machine *m, struct process *p, uint32_t tid,
				  const char *comm);
void machine_maps_flush(struct machine *m, struct process *p);
void machine_map_event(struct machine *m, struct process *p, const struct mmap_event *ev);

/* ---- dso.c ---- */
enum dso_kind dso_kind_from_path(const char *path);
struct dso *dso_new(const char *path, enum dso_kind kind);
void dso_free(struct dso *d);
struct dso *dso_lookup(struct machine *m, const char *path, enum dso_kind kind,
		       enum dso_ident ident, const uint8_t *id, size_t id_size, uint64_t ino);
void dso_expect_build_id(struct dso *d, const uint8_t *id, size_t size);
bool dso_load_symbols(struct machine *m, struct dso *d, bool on_loader);
void dso_fetch_debuginfo(const struct machine *m, struct dso *d);
void dso_symbolize(struct dso *d, int state, uint64_t file_off, struct resolved *out);
/* The same for a data address at file_off of a data map (writable or
 * not): its object symbol (the table read on first use). */
void dso_data_symbolize(struct dso *d, uint64_t file_off, bool writable, struct resolved *out);
/* machine_free: the DSO table, known build IDs, --symfs and the caches. */
void dso_table_free(struct machine *m);

/* ---- jitmap.c ---- */
int jitmap_read(struct jitmap *j, uint64_t max_new);
void jitmap_install(struct machine *m, struct jitmap *j);
bool jitmap_resolve(struct machine *m, struct process *p, uint64_t ip, struct resolved *out,
		    struct dso *fallback);
void jitmap_resolve_deferred(struct machine *m, struct dso *d, uint64_t addr, struct resolved *out);
/* p exits or execs: its map goes unless a sample may hold its names. */
void jitmap_release(struct machine *m, struct process *p);
/* machine_free: every process's map and every table read. */
void jitmap_free_all(struct machine *m);

/* ---- symloader.c ---- */
void symloader_push(struct machine *m, struct dso *d, struct jitmap *j);
bool symloader_fetch(struct machine *m, struct dso *d);
/* A job outside the queues (the kernel thread) starts and ends. */
void symloader_busy(struct symloader *l);
void symloader_unbusy(struct symloader *l);
void symloader_stop(struct machine *m);

/* ---- kernel.c ---- */
void kernel_resolve(struct machine *m, uint64_t ip, struct resolved *out);
/* machine_free, first: joins the kernel thread. */
void kernel_free(struct machine *m);

/* ---- synth.c ---- */
void synth_end(struct machine *m);

#endif
