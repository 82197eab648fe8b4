/* The perf mmap ring: hands out the records the kernel wrote, contiguous
 * and 8-byte aligned, copying out the ones that wrap the buffer end. */
#include "config.h"

#include "ring.h"
#include "ring-test.h"

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "util.h"

struct ring {
	void *base;	 /* control page */
	size_t map_size; /* bytes mapped; 0 for ring_wrap */
	struct perf_event_mmap_page *pc;
	unsigned char *data;	/* data_size bytes, power of 2 */
	uint64_t mask;		/* data_size - 1 */
	uint64_t head;		/* data_head seen at read_begin */
	uint64_t tail;		/* next unread byte, free-running */
	unsigned char *scratch; /* wrapped records, owned */
	size_t scratch_cap;
	struct ring_stats stats;
};

/* The only two places that order ring accesses against the kernel.  The
 * acquire pairs with the kernel's write barrier before it moves data_head,
 * so the record bytes are visible once the head is; the release keeps our
 * reads of the records before the tail store that lets the kernel reuse
 * them. */
static uint64_t ring_load_head(const struct perf_event_mmap_page *pc)
{
	return __atomic_load_n(&pc->data_head, __ATOMIC_ACQUIRE);
}

static void ring_store_tail(struct perf_event_mmap_page *pc, uint64_t tail)
{
	__atomic_store_n(&pc->data_tail, tail, __ATOMIC_RELEASE);
}

static bool is_pow2(uint64_t v)
{
	return v && !(v & (v - 1));
}

static struct ring *ring_new(void *base, size_t map_size, size_t data_offset, size_t data_size)
{
	struct ring *r;

	if (!is_pow2(data_size) || data_size % 8) {
		errno = EINVAL;
		return NULL;
	}
	r = xcalloc(1, sizeof(*r));
	r->base = base;
	r->map_size = map_size;
	r->pc = base;
	r->data = (unsigned char *)base + data_offset;
	r->mask = data_size - 1;
	r->tail = r->pc->data_tail;
	r->head = r->tail;
	return r;
}

struct ring *ring_mmap(int fd, size_t data_pages)
{
	long page = sysconf(_SC_PAGESIZE);
	size_t len, off, size;
	struct perf_event_mmap_page *pc;
	struct ring *r;
	void *base;

	if (page <= 0 || !is_pow2(data_pages) || data_pages > SIZE_MAX / (size_t)page - 1) {
		errno = EINVAL;
		return NULL;
	}
	len = (1 + data_pages) * (size_t)page;
	base = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (base == MAP_FAILED)
		return NULL;
	pc = base;
	/* Older kernels leave these zero: the data then starts right after
	 * the control page and fills the rest of the mapping. */
	off = pc->data_offset ? pc->data_offset : (size_t)page;
	size = pc->data_size ? pc->data_size : data_pages * (size_t)page;
	if (off > len || size > len - off) {
		munmap(base, len);
		errno = EINVAL;
		return NULL;
	}
	r = ring_new(base, len, off, size);
	if (!r) {
		munmap(base, len);
		errno = EINVAL;
	}
	return r;
}

struct ring *ring_wrap(void *base, size_t data_offset, size_t data_size)
{
	return ring_new(base, 0, data_offset, data_size);
}

void ring_free(struct ring *r)
{
	if (!r)
		return;
	if (r->map_size)
		munmap(r->base, r->map_size);
	free(r->scratch);
	free(r);
}

void ring_read_begin(struct ring *r)
{
	r->head = ring_load_head(r->pc);
	/* In the default (non-overwrite) mode the kernel never gets more than
	 * a ring ahead of the tail; a larger gap means the control page is
	 * garbage, and resynchronising is all we can do. */
	if (r->head - r->tail > r->mask + 1) {
		r->stats.bad++;
		r->tail = r->head;
	}
}

/* Give up on the rest of this batch: the tail jumps to the head so the
 * ring keeps flowing after a corrupt header. */
static const struct perf_event_header *ring_skip_bad(struct ring *r)
{
	r->stats.bad++;
	r->tail = r->head;
	return NULL;
}

const struct perf_event_header *ring_next(struct ring *r)
{
	uint64_t avail = r->head - r->tail;
	uint64_t off = r->tail & r->mask;
	uint64_t ring_size = r->mask + 1;
	const struct perf_event_header *hdr;
	size_t size, first;

	if (!avail)
		return NULL;
	/* Records are whole u64 words, so a header at an 8-aligned offset
	 * never straddles the end; an odd tail or a short remainder is
	 * already corruption. */
	if (avail < sizeof(*hdr) || off % 8)
		return ring_skip_bad(r);
	hdr = (const struct perf_event_header *)(r->data + off);
	size = hdr->size;
	if (size < sizeof(*hdr) || size % 8 || size > avail)
		return ring_skip_bad(r);

	r->tail += size;
	r->stats.records++;
	if (off + size <= ring_size)
		return hdr;

	/* The record wraps: hand out a contiguous copy instead. */
	first = ring_size - off;
	r->scratch = xgrow(r->scratch, &r->scratch_cap, size, 1);
	memcpy(r->scratch, r->data + off, first);
	memcpy(r->scratch + first, r->data, size - first);
	r->stats.copied++;
	return (const struct perf_event_header *)r->scratch;
}

void ring_read_end(struct ring *r)
{
	ring_store_tail(r->pc, r->tail);
}

size_t ring_pending(const struct ring *r)
{
	return r->head - r->tail;
}

const struct ring_stats *ring_get_stats(const struct ring *r)
{
	return &r->stats;
}
