/* --pprof: a snapshot's stacks as Google's profile.proto (pprof), gzip
 * compressed, for pprof, Pyroscope and Parca.  protobuf-c packs it, with
 * the code protoc-c generates from ui/profile.proto at build time. */
#ifndef PROFTOP_PPROF_H
#define PROFTOP_PPROF_H

#include <stddef.h>
#include <stdint.h>

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

/* The --pprof writer: FILE is rewritten at each snapshot (a temporary file
 * in its directory, then rename, so a reader never sees half a profile);
 * "-" keeps the last profile and writes it to stdout at pprof_writer_finish,
 * so that a pipe gets one whole gzip file. */
struct pprof_writer;

struct pprof_writer *pprof_writer_new(const char *path, const char *comment);
/* Live refreshes: FILE is rewritten in gzip's stored blocks (valid gzip,
 * about 3x larger, a fraction of the CPU), from tables kept between
 * refreshes (the same samples, locations and functions as a one-shot
 * write, with other ids, and entries no longer used); pprof_writer_finish
 * writes the last snapshot (last, the one the writer saw last) exactly as
 * a one-shot writer does. */
void pprof_writer_live(struct pprof_writer *w);
int pprof_writer_snapshot(struct pprof_writer *w, const struct snapshot *snap,
			  struct errmsg *em);
/* last: the snapshot of the last pprof_writer_snapshot, or NULL (a live
 * file then keeps the live encoding, compressed). */
int pprof_writer_finish(struct pprof_writer *w, const struct snapshot *last,
			struct errmsg *em);
void pprof_writer_free(struct pprof_writer *w);

#endif
