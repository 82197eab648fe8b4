/* The --pprof writer: FILE rewritten at each snapshot, gzip compressed. */
#ifndef PROFTOP_PPROF_WRITER_H
#define PROFTOP_PPROF_WRITER_H

struct errmsg;
struct snapshot;

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
