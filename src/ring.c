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
	/* Holds (ring.h): the record ring_next returned last, RING_NO_HOLD
	 * when there is none or it was copied; the positions held, ascending
	 * in [hfirst, nholds), bit 0 set once released (positions are
	 * 8-aligned) and dropped when they reach the front. */
	uint64_t last;
	size_t last_size;
	uint64_t *holds;
	size_t hfirst, nholds, holds_cap;
	bool reading;		/* between ring_read_begin and ring_read_end */
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
	r->last = RING_NO_HOLD;
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
	free(r->holds);
	free(r);
}

void ring_read_begin(struct ring *r)
{
	r->reading = true;
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
	r->last = RING_NO_HOLD;
	return NULL;
}

/* The records after the one ring_next returns, loaded while it is used:
 * the kernel wrote them on another CPU, and a DWARF sample's last word
 * (the stack's dyn_size, 8 KiB on, another page) cost record_decode a
 * miss a sample, most of its time.  The next record's first lines and
 * last, found from its header (in the cache by now: prefetched with the
 * record before), and the header after it. */
static void ring_prefetch(const struct ring *r)
{
	uint64_t avail = r->head - r->tail, size, off;
	const struct perf_event_header *next;

	if (avail < sizeof(*next) || (r->tail & 7))
		return;
	next = (const struct perf_event_header *)(r->data + (r->tail & r->mask));
	size = next->size < avail ? next->size : avail;
	for (off = 64; off < size && off < 512; off += 64)
		__builtin_prefetch(r->data + ((r->tail + off) & r->mask));
	if (size > 512)
		__builtin_prefetch(r->data + ((r->tail + size - 8) & r->mask));
	if (avail > size)
		__builtin_prefetch(r->data + ((r->tail + size) & r->mask));
}

const struct perf_event_header *ring_next(struct ring *r)
{
	uint64_t avail = r->head - r->tail;
	uint64_t off = r->tail & r->mask;
	uint64_t ring_size = r->mask + 1;
	const struct perf_event_header *hdr;
	size_t size, first;

	r->last = RING_NO_HOLD;
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
	ring_prefetch(r);
	if (off + size <= ring_size) {
		r->last = r->tail - size;
		r->last_size = size;
		return hdr;
	}

	/* The record wraps: hand out a contiguous copy instead. */
	first = ring_size - off;
	r->scratch = xgrow(r->scratch, &r->scratch_cap, size, 1);
	memcpy(r->scratch, r->data + off, first);
	memcpy(r->scratch + first, r->data, size - first);
	r->stats.copied++;
	return (const struct perf_event_header *)r->scratch;
}

/* The tail the kernel may have: the oldest record still held, else all
 * that was read. */
static uint64_t ring_free_to(const struct ring *r)
{
	return r->hfirst < r->nholds ? r->holds[r->hfirst] : r->tail;
}

void ring_read_end(struct ring *r)
{
	r->reading = false;
	r->last = RING_NO_HOLD;
	ring_store_tail(r->pc, ring_free_to(r));
}

uint64_t ring_hold(struct ring *r, const void *p, size_t n)
{
	uint64_t pos = r->last;
	uint64_t oldest = r->hfirst < r->nholds ? r->holds[r->hfirst] : pos;
	const unsigned char *rec = r->data + (pos & r->mask), *c = p;

	/* Not in the record: a copy made of an older one, say. */
	if (pos == RING_NO_HOLD || c < rec || c > rec + r->last_size ||
	    n > (size_t)(rec + r->last_size - c) || r->head - oldest > (r->mask + 1) / 2) {
		r->stats.refused++;
		return RING_NO_HOLD;
	}
	if (r->hfirst == r->nholds) {
		r->hfirst = 0;
		r->nholds = 0;
	} else if (r->nholds == r->holds_cap && r->hfirst > r->holds_cap / 2) {
		/* Most of the array is released front: reuse it. */
		memmove(r->holds, r->holds + r->hfirst, (r->nholds - r->hfirst) * sizeof(*r->holds));
		r->nholds -= r->hfirst;
		r->hfirst = 0;
	}
	r->holds = xgrow(r->holds, &r->holds_cap, r->nholds + 1, sizeof(*r->holds));
	r->holds[r->nholds++] = pos;
	r->last = RING_NO_HOLD;
	r->stats.held++;
	return pos;
}

void ring_release(struct ring *r, uint64_t pos)
{
	size_t lo = r->hfirst, hi = r->nholds;

	/* Released mostly in the order held: the front first. */
	if (lo < hi && r->holds[lo] != pos) {
		while (lo < hi) {
			size_t mid = lo + (hi - lo) / 2;

			if ((r->holds[mid] & ~(uint64_t)1) < pos)
				lo = mid + 1;
			else
				hi = mid;
		}
	}
	if (lo >= r->nholds || r->holds[lo] != pos)
		return;
	r->holds[lo] |= 1;
	while (r->hfirst < r->nholds && (r->holds[r->hfirst] & 1))
		r->hfirst++;
	/* Mid-pass the records being read are not the kernel's yet:
	 * ring_read_end stores then. */
	if (!r->reading)
		ring_store_tail(r->pc, ring_free_to(r));
}

bool ring_short_of_room(const struct ring *r)
{
	return r->hfirst < r->nholds &&
	       ring_load_head(r->pc) - r->holds[r->hfirst] > (r->mask + 1) / 2;
}

size_t ring_held(const struct ring *r)
{
	size_t i, n = 0;

	for (i = r->hfirst; i < r->nholds; i++)
		n += !(r->holds[i] & 1);
	return n;
}

size_t ring_pending(const struct ring *r)
{
	return r->head - r->tail;
}

const struct ring_stats *ring_get_stats(const struct ring *r)
{
	return &r->stats;
}
