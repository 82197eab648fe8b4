/* Debug files fetched by build ID from debuginfod servers (DEBUGINFOD_URLS)
 * through libdebuginfod, loaded with dlopen: proftop does not depend on it,
 * and nothing here runs unless --debuginfod asked for it. */
#ifndef PROFTOP_DEBUGINFOD_H
#define PROFTOP_DEBUGINFOD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct errmsg;

/* Whether libdebuginfod.so.1 could be loaded (loads it on first call):
 * 0, or -ENOSYS with em saying what is missing. */
int debuginfod_available(struct errmsg *em);

/* Fetch the debug file of build ID id (downloaded into libdebuginfod's
 * cache, or already there) and set *path to it, malloc'd.  Gives up after
 * timeout_ms milliseconds in all, or as soon as *cancel (when not NULL,
 * read atomically) turns non-zero: the progress callback aborts the
 * transfer.  Blocks: call it from a thread of its own (machine.c's fetch
 * thread).  Returns 0, -ENOSYS without libdebuginfod, -ETIMEDOUT, or
 * -ECANCELED, or another -errno (-ENOENT: no server has it). */
int debuginfod_fetch_debuginfo(const uint8_t *id, size_t size, long timeout_ms,
			       const int *cancel, char **path);

/* The default of --debuginfod-timeout, in seconds. */
#define DEBUGINFOD_DEFAULT_TIMEOUT 10

#endif
