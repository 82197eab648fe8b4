/* Machine state: processes and threads, their memory maps, and the DSOs the
 * maps point to.  Fed by side-band records (MMAP2, COMM, FORK, EXIT) and, at
 * start, by /proc; answers "what is at this ip in this thread". */
#ifndef PROFTOP_MACHINE_H
#define PROFTOP_MACHINE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "record.h"

struct machine;
struct dso;
struct symbol;

enum dso_kind {
	DSO_USER,     /* an ELF file */
	DSO_KERNEL,   /* [kernel.kallsyms] */
	DSO_MODULE,   /* [ext4] */
	DSO_VDSO,     /* [vdso] */
	DSO_ANON,     /* //anon, [heap], memfd, JIT: no symbols */
};

/* What an address resolves to.  Pointers stay valid while the machine lives
 * (DSOs and their symbols are never freed before machine_free). */
struct resolved {
	struct dso *dso;             /* NULL when no map contains the address */
	const struct symbol *sym;    /* NULL: [unknown] (under dso, if any) */
	uint64_t addr;               /* address in the DSO's symbol space */
	bool kernel;                 /* kernel or module address */
	bool pending;                /* dso's symbols are loading (async): sym is
					NULL, addr the file offset to pass to
					machine_resolve_deferred later */
};

struct machine_stats {
	uint64_t threads, processes, dsos, maps;
	uint64_t unknown_thread;     /* samples whose thread was never seen */
	uint64_t unmapped;           /* addresses outside every map */
};

struct machine *machine_new(void);
void machine_free(struct machine *m);

/* Look for binaries under dir (dir/path, dir/.build-id/xx/rest) before
 * the paths themselves: --symfs, for recordings made elsewhere. */
void machine_set_symfs(struct machine *m, const char *dir);

/* --debuginfod: fetch the debug files of stripped binaries that have none
 * here from debuginfod servers, giving up on one after timeout_ms (0: never
 * ask, the default). */
void machine_set_debuginfod(struct machine *m, long timeout_ms);
/* Debug files being fetched right now ("debuginfod: N"). */
size_t machine_debuginfod_active(const struct machine *m);

/* A build ID known for path (perf.data's BUILD_ID feature): its symbols then
 * come only from a file with the same build ID. */
void machine_add_build_id(struct machine *m, const char *path, const uint8_t *id,
			  size_t size);

/* Load DSO symbol tables on a worker thread from now on (see the design
 * note in machine.c): machine_resolve then never waits, and reports
 * addresses in DSOs still loading as pending.  Returns 0 or -errno (the
 * thread could not start: loading stays synchronous). */
int machine_set_async(struct machine *m, bool async);
/* The pids seen are live processes of this system: binaries may then be
 * opened through /proc/PID/root (containers) and /proc/PID/map_files
 * (files replaced since they were mapped). */
void machine_set_live(struct machine *m, bool live);
/* DSOs (and perf map reads) queued, being loaded or waiting for their
 * debuginfod fetch right now ("loading symbols: N"). */
size_t machine_symbols_loading(const struct machine *m);
/* The loader takes jobs (DSOs, perf map reads) in the order they were
 * queued: the ticket is the number queued so far (engine thread), and
 * done(ticket) says whether as many have finished.  That is every job
 * queued before the ticket, except that a DSO waiting for a debuginfod
 * fetch (on a thread of its own) finishes late: later jobs count in its
 * place meanwhile. */
uint64_t machine_symbols_ticket(const struct machine *m);
bool machine_symbols_done(const struct machine *m, uint64_t ticket);
/* How many jobs the loader (and the fetch thread) have finished so far. */
uint64_t machine_symbols_loaded(const struct machine *m);
/* Block until the loader and fetch threads are idle (end of a recording). */
void machine_wait_symbols(struct machine *m);
/* The same for at most ms milliseconds; returns whether it is idle. */
bool machine_wait_symbols_for(struct machine *m, int ms);
/* Whether d's symbols are still loading. */
bool machine_dso_pending(const struct dso *d);
/* Finish a pending resolution: addr is the pending out->addr (file offset)
 * of d.  Returns false (out->pending set) while d is still loading. */
bool machine_resolve_deferred(struct machine *m, struct dso *d, uint64_t addr, bool kernel,
			      struct resolved *out);

/* Load kernel and module symbols from /proc.  Returns 0 or -errno; sets
 * *restricted when kptr_restrict hides the addresses. */
int machine_load_kernel(struct machine *m, bool *restricted);
/* The same, but only once a kernel address needs it (at the first one,
 * synchronously): a replay of a recording without kernel samples never
 * reads kallsyms. */
int machine_load_kernel_lazy(struct machine *m);
/* The same on a thread of its own when the machine is async (else at
 * once): until it is done, kernel addresses resolve as pending under
 * [kernel.kallsyms] (out->addr the address itself) and
 * machine_resolve_deferred names them after.  Counted in
 * machine_symbols_loading and waited for by machine_wait_symbols*. */
int machine_load_kernel_async(struct machine *m);
/* -EINPROGRESS while the kernel's symbols load, 1 when a lazy load was
 * never needed, else the load's result (-ENOENT when none was asked
 * for); *restricted as machine_load_kernel. */
int machine_kernel_status(struct machine *m, bool *restricted);
/* Block until the kernel's symbols are read, and take them. */
void machine_wait_kernel(struct machine *m);
/* Whether the kernel thread is still reading. */
bool machine_kernel_loading(const struct machine *m);
/* With use: exact kernel symbol sizes from the vmlinux at path, or, path
 * NULL, from one found by the running kernel's build ID (see
 * kallsyms_find_vmlinux); a file with another build ID is not used.
 * Call before loading the kernel. */
void machine_set_vmlinux(struct machine *m, bool use, const char *path);
/* After the kernel's symbols are loaded: which vmlinux gave the sizes,
 * or why the one given was not used; NULL when none was looked at. */
const char *machine_kernel_note(const struct machine *m);
/* Read the running kernel's symbols from perf's copy of its kallsyms
 * (kallsyms_find_cached) instead of /proc/kallsyms, and from /proc's
 * when that copy cannot be read or holds no addresses. */
void machine_set_kernel_cache(struct machine *m, const char *kallsyms);

/* Synthesize existing processes from /proc (comm, threads, exec maps):
 * all of them when npids == 0, else those pids and their threads.
 * Processes that vanish while being read are skipped.  Returns the number
 * of processes read, or -errno when /proc itself cannot be read. */
int machine_synthesize(struct machine *m, const pid_t *pids, size_t npids);

/* The same in steps, so that sampling goes on meanwhile: begin lists the
 * pids (all of /proc when npids == 0) and returns how many, or -errno;
 * each step reads at most max of them and returns how many are left.
 * While a sweep is under way, call machine_synthesize_pid with the pid of
 * every record before passing the record in: a process the records speak
 * of is read at once, and the sweep then skips it (it also skips pids the
 * records created).  No pid of the list is left out. */
int machine_synthesize_begin(struct machine *m, const pid_t *pids, size_t npids);
size_t machine_synthesize_step(struct machine *m, size_t max);
void machine_synthesize_pid(struct machine *m, uint32_t pid);
bool machine_synthesizing(const struct machine *m);

/* The time of the record about to be passed in (0 when unknown).  Records
 * from different CPUs' rings come out of order: a child's MMAP2 can be read
 * before the FORK that created it, which this tells apart from pid reuse. */
void machine_set_time(struct machine *m, uint64_t time);

/* Side-band events from the record stream. */
void machine_mmap(struct machine *m, const struct mmap_event *ev);
void machine_comm(struct machine *m, const struct comm_event *ev);
void machine_fork(struct machine *m, const struct task_event *ev);
void machine_exit(struct machine *m, const struct task_event *ev);

/* Free threads and processes that exited before the previous call: samples
 * of an exited thread can still arrive from other CPUs' rings for a while.
 * Call at each refresh. */
void machine_gc(struct machine *m);

/* Resolve ip (cpumode from the sample's misc) in thread pid/tid.  Return
 * addresses from callchains should be passed as ip - 1 by the caller. */
void machine_resolve(struct machine *m, uint32_t pid, uint32_t tid,
		     uint16_t cpumode, uint64_t ip, struct resolved *out);

/* The thread's command name, interned (see intern()); "[unknown]" or ":PID"
 * style names are never returned: NULL when the thread is unknown. */
const char *machine_comm_of(struct machine *m, uint32_t pid, uint32_t tid);

const struct machine_stats *machine_get_stats(const struct machine *m);

/* The DSO for path (a file, or a bracketed name like "[vdso]"), created on
 * first use.  One object per path and identity; symbols load lazily on the
 * first machine_resolve that needs them. */
struct dso *machine_dso_get(struct machine *m, const char *path, enum dso_kind kind);

/* DSO accessors. */
const char *dso_short_name(const struct dso *d); /* "libc.so.6", "[kernel.kallsyms]" */
const char *dso_path(const struct dso *d);       /* full path, or the short name */
enum dso_kind dso_kind(const struct dso *d);
bool dso_is_kernel(const struct dso *d);
/* Once d's symbols are loaded: the file they were read from (may be a
 * /proc/PID/... path), and the separate debug file used for its symbol
 * table, or NULL.  NULL before loading or when it failed. */
const char *dso_sym_path(const struct dso *d);
const char *dso_debug_path(const struct dso *d);
/* Once loaded: the build ID of the file the symbols came from (*id, its
 * size returned), or 0 when it has none or is not loaded.  Lets a later
 * reader (DWARF, after a /proc/PID path is gone) check another path holds
 * the same binary. */
size_t dso_file_build_id(const struct dso *d, const uint8_t **id);

#endif
