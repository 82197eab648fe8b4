/* --pprof: a snapshot's stacks as Google's profile.proto (pprof), gzip
 * compressed, for pprof, Pyroscope and Parca.  protobuf-c packs it, with
 * the code protoc-c generates from ui/profile.proto at build time. */
#ifndef PROFTOP_PPROF_H
#define PROFTOP_PPROF_H

#include <stddef.h>
#include <stdint.h>

#include "pprof-writer.h"

struct errmsg;
struct snapshot;
struct strbuf;

/* The sample type an event's values have: "cpu" (in nanoseconds) for
 * cpu-clock and task-clock, else the event's name ("events" for NULL). */
const char *pprof_event_type(const char *event);

/* snap as an uncompressed profile.proto message, appended to out.
 * comment goes to Profile.comment (NULL: none); time_nanos is the wall
 * clock of the profile's start. */
void pprof_encode(struct strbuf *out, const struct snapshot *snap, const char *comment,
		  int64_t time_nanos);

/* in (n bytes) compressed as one gzip member into out.  Returns 0 or
 * -ENOMEM / -EIO with em saying why. */
int pprof_gzip(const void *in, size_t n, struct strbuf *out, struct errmsg *em);

#endif
