/* The symbol loader: the worker threads that read DSO symbol tables and
 * perf maps (and fetch debug files from debuginfod) while ingestion goes
 * on, and the counts that tell the engine how far they are. */
#ifndef PROFTOP_SYMLOADER_H
#define PROFTOP_SYMLOADER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct machine;
struct dso;

/* Load DSO symbol tables on a worker thread from now on (see the design
 * note in symloader.c): machine_resolve then never waits, and reports
 * addresses in DSOs still loading as pending.  Returns 0 or -errno (the
 * thread could not start: loading stays synchronous). */
int machine_set_async(struct machine *m, bool async);
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

/* Engine thread: d's symbols loaded (queued now if they were not), so
 * that which file they come from (dso_sym_path) no longer changes; waits
 * at most ms milliseconds (< 0: no limit) for d's job alone, not for the
 * loader's later jobs nor the kernel's load.  Whether d is settled.  A replay's unwinder
 * asks before it first reads d's file, so that it reads the same file
 * whatever the loader's pace. */
bool machine_dso_settle(struct machine *m, struct dso *d, int ms);

/* --debuginfod: fetch the debug files of stripped binaries that have none
 * here from debuginfod servers, giving up on one after timeout_ms (0: never
 * ask, the default). */
void machine_set_debuginfod(struct machine *m, long timeout_ms);
/* Debug files being fetched right now ("debuginfod: N"). */
size_t machine_debuginfod_active(const struct machine *m);

#endif
