/* The perf mmap ring buffer: one per (event, CPU).
 *
 * Reading protocol (the same as libperf's):
 *	ring_read_begin(r);            -- load data_head (acquire)
 *	while ((hdr = ring_next(r)))   -- a contiguous record, copied out if it
 *		use(hdr);                 wraps; valid until the next ring_next
 *	ring_read_end(r);              -- store data_tail (release)
 * ring_next returns NULL at the end of the available data, and also when a
 * record header is malformed (size < 8 or larger than the ring): the ring
 * then skips to the head and counts it in ring_stats.
 *
 * Holding records past ring_read_end (zero copy: another thread reads a
 * record in place, after the pass that handed it out):
 *	pos = ring_hold(r, p, n)    -- after ring_next: keep the record it
 *	                               returned where it is, for its bytes p to
 *	                               p + n; RING_NO_HOLD when they are not in
 *	                               it or it cannot stay (see below): copy
 *	ring_release(r, pos)        -- the holder is done with it; any order
 * The data_tail stored is then the oldest held record's position while
 * there is one, so the kernel never writes over a held record.  A hold is
 * refused for a record ring_next copied (it wrapped) and when the held
 * span (oldest hold to data_head) would pass half the ring: the kernel
 * keeps at least half the ring to write in, and a holder told
 * ring_short_of_room must copy its records out and release them, so no
 * record is lost to holding.  ring_release stores the tail at once between
 * passes, at ring_read_end within one.  All on the reading thread; the
 * holder's reads on other threads must happen before its release (a
 * mutex, a release/acquire pair), which ring_store_tail's release then
 * orders before the kernel's reuse. */
#ifndef PROFTOP_RING_H
#define PROFTOP_RING_H

#include <linux/perf_event.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct ring;

/* Map a ring on a perf fd: 1 + data_pages pages (data_pages a power of 2).
 * Returns NULL with errno set on failure. */
struct ring *ring_mmap(int fd, size_t data_pages);
void ring_free(struct ring *r);

void ring_read_begin(struct ring *r);
const struct perf_event_header *ring_next(struct ring *r);
void ring_read_end(struct ring *r);

#define RING_NO_HOLD UINT64_MAX
uint64_t ring_hold(struct ring *r, const void *p, size_t n);
void ring_release(struct ring *r, uint64_t pos);
/* Whether the held records now leave the kernel under half the ring. */
bool ring_short_of_room(const struct ring *r);
/* Records held now. */
size_t ring_held(const struct ring *r);

/* Bytes currently unread (after ring_read_begin). */
size_t ring_pending(const struct ring *r);

struct ring_stats {
	uint64_t records;   /* records returned */
	uint64_t copied;    /* of which copied because they wrapped */
	uint64_t bad;       /* malformed headers that made the reader skip */
	uint64_t held;      /* records held (ring_hold) */
	uint64_t refused;   /* holds refused: wrapped, or the ring short of room */
};
const struct ring_stats *ring_get_stats(const struct ring *r);

#endif
