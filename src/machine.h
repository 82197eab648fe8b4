/* Machine state: processes and threads, their memory maps, and the DSOs the
 * maps point to.  Fed by side-band records (MMAP2, COMM, FORK, EXIT) and, at
 * start, by /proc; answers "what is at this ip in this thread".  Its other
 * parts have headers of their own: dso.h (DSOs, --symfs, build IDs),
 * symloader.h (async loading), kernel.h and synth.h (/proc). */
#ifndef PROFTOP_MACHINE_H
#define PROFTOP_MACHINE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "dso.h"
#include "record.h"

struct machine;
struct dso;
struct symbol;

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
	uint64_t jitmaps;            /* perf-PID.map states kept */
	uint64_t unknown_thread;     /* samples whose thread was never seen */
	uint64_t unmapped;           /* addresses outside every map */
};

struct machine *machine_new(void);
void machine_free(struct machine *m);

/* The pids seen are live processes of this system: binaries may then be
 * opened through /proc/PID/root (containers) and /proc/PID/map_files
 * (files replaced since they were mapped). */
void machine_set_live(struct machine *m, bool live);
/* Whether d's symbols are still loading. */
bool machine_dso_pending(const struct dso *d);
/* Finish a pending resolution: addr is the pending out->addr (file offset)
 * of d.  Returns false (out->pending set) while d is still loading. */
bool machine_resolve_deferred(struct machine *m, struct dso *d, uint64_t addr, bool kernel,
			      struct resolved *out);

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

/* Resolve ip in a code map [start, end) at file offset pgoff of the ELF
 * file dso (one the process no longer has: a sample taken before its
 * exec), as machine_resolve does in a map of the process. */
void machine_resolve_map(struct machine *m, uint64_t start, uint64_t end, uint64_t pgoff,
			 struct dso *dso, uint64_t ip, struct resolved *out);

/* Keep the maps of MMAP2 records without PROT_EXEC (perf record -d, perf
 * mem) for machine_resolve_data; without this they only unmap what was
 * there.  Before the first record. */
void machine_keep_data_maps(struct machine *m);
/* Resolve a data address (a load's or store's) of thread pid/tid:
 * out->dso the DSO of the map holding it (a file, [heap], [stack],
 * //anon, the kernel's), out->sym the file's data object there (ELF
 * STT_OBJECT) or NULL, out->addr its ELF address when out->sym is set;
 * out->dso NULL when no map holds it.  Code maps count too. */
void machine_resolve_data(struct machine *m, uint32_t pid, uint32_t tid, uint64_t addr,
			  struct resolved *out);

/* Call fn for each code map of process pid, in address order ([start, end) at
 * file offset pgoff of dso); returns the number of maps. */
typedef void (*machine_map_fn)(void *ctx, uint64_t start, uint64_t end, uint64_t pgoff,
			       struct dso *dso);
size_t machine_maps_of(struct machine *m, uint32_t pid, machine_map_fn fn, void *ctx);

/* The thread's command name, interned (see intern()); "[unknown]" or ":PID"
 * style names are never returned: NULL when the thread is unknown. */
const char *machine_comm_of(struct machine *m, uint32_t pid, uint32_t tid);

const struct machine_stats *machine_get_stats(const struct machine *m);

#endif
