/* The perf mmap ring buffer: one per (event, CPU).
 *
 * Reading protocol (the same as libperf's):
 *	ring_read_begin(r);            -- load data_head (acquire)
 *	while ((hdr = ring_next(r)))   -- a contiguous record, copied out if it
 *		use(hdr);                 wraps; valid until the next ring_next
 *	ring_read_end(r);              -- store data_tail (release)
 * ring_next returns NULL at the end of the available data, and also when a
 * record header is malformed (size < 8 or larger than the ring): the ring
 * then skips to the head and counts it in ring_stats. */
#ifndef PROFTOP_RING_H
#define PROFTOP_RING_H

#include <linux/perf_event.h>
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

/* Bytes currently unread (after ring_read_begin). */
size_t ring_pending(const struct ring *r);

struct ring_stats {
	uint64_t records;   /* records returned */
	uint64_t copied;    /* of which copied because they wrapped */
	uint64_t bad;       /* malformed headers that made the reader skip */
};
const struct ring_stats *ring_get_stats(const struct ring *r);

#endif
