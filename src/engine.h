/* The engine: sources -> decode -> machine -> hist, and a snapshot for the
 * renderers at each refresh.  Owns the live events, the machine and the
 * hist; runs on the calling thread. */
#ifndef PROFTOP_ENGINE_H
#define PROFTOP_ENGINE_H

#include <linux/perf_event.h>
#include <stdbool.h>

#include "hist.h"

struct engine;
struct options;
struct snapshot;

/* Called with each snapshot.  Return true to keep it (the callee then owns
 * it and calls snapshot_release), false to let the engine release it. */
typedef bool (*engine_refresh_cb)(struct snapshot *snap, void *ctx);

/* Check the options against the machine (event names, CPUs, pids), start
 * the command if any, open the events and read /proc.  Returns 0, or the
 * exit status to leave with (1 runtime error, 2 usage error) after printing
 * one clear message. */
int engine_start(const struct options *o, struct engine **out);

/* Sample until interrupted, -n refreshes, the command's end or the targets'
 * exit, calling cb with a snapshot at each refresh.  With -i FILE: read the
 * whole recording and call cb once (or, with -D, print its records).
 * Returns the exit status: 0, 1 on a damaged recording, or the command's
 * (128+N when killed by signal N). */
int engine_run(struct engine *e, engine_refresh_cb cb, void *ctx);

/* Process one record produced with attr (any source). */
void engine_process_record(struct engine *e, const struct perf_event_header *hdr,
			   const struct perf_event_attr *attr);

/* From another thread (the UI): stop engine_run soon, or change how the
 * hist ages at each refresh. */
void engine_stop(struct engine *e);
void engine_set_mode(struct engine *e, enum hist_mode mode);

void engine_free(struct engine *e);

#endif
