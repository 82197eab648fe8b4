/* Live --pprof's encoding: a profile.proto per refresh from tables kept
 * between refreshes (ids stay; new Locations, Functions and strings are
 * packed once).  A refresh's profile is the bytes pprof_live_encode
 * appends followed by the kept pieces (pprof_live_pieces): the same
 * samples, locations and functions as pprof_encode's, other ids, and
 * entries no sample uses any more (never more than half of a table: past
 * that the tables start again). */
#ifndef PROFTOP_PPROF_LIVE_H
#define PROFTOP_PPROF_LIVE_H

#include <stddef.h>
#include <stdint.h>

struct iovec;
struct snapshot;
struct strbuf;

struct pprof_live;

struct pprof_live *pprof_live_new(void);
void pprof_live_free(struct pprof_live *l);
/* snap's profile, its fields but the kept tables appended to out; comment
 * and time_nanos as pprof_encode's. */
void pprof_live_encode(struct pprof_live *l, struct strbuf *out, const struct snapshot *snap,
		       const char *comment, int64_t time_nanos);
/* The kept tables' packed fields, to follow out: fills v[0..3), returns 3;
 * with crc, their CRC-32s (zlib's crc32) in crc[0..3), each taken on
 * from the last call's, as the tables only grow (or start again). */
size_t pprof_live_pieces(struct pprof_live *l, struct iovec *v, unsigned long *crc);
/* For tests: kept stacks' frames (snapshot_stack.frame_ids) since the
 * tables last started, found by their id's record and taken over from the
 * Sample before (the same frame at the same place in the same group). */
void pprof_live_frame_counts(const struct pprof_live *l, size_t *found, size_t *taken);

#endif
