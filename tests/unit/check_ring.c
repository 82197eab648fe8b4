/* Unit tests for the perf mmap ring reader: synthetic rings laid out like a
 * mapped one (records that wrap, corrupt headers, partial batches), and one
 * live ring on a software event that skips where perf_event_open is refused. */
#include "config.h"

#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "errmsg.h"
#include "record.h"
#include "ring.h"
#include "ring-test.h"
#include "testutil.h"
#include "util.h"

#define CTRL_SIZE 4096

/* A ring in plain memory: the test plays the kernel. */
struct fake {
	void *base;
	struct perf_event_mmap_page *pc;
	unsigned char *data;
	size_t size;
	struct ring *r;
};

/* start is where head and tail begin; free-running, so it may exceed size. */
static void fake_init(struct fake *f, size_t size, uint64_t start)
{
	/* C11: the size must be a multiple of the alignment (ASan checks). */
	f->base = aligned_alloc(CTRL_SIZE, (CTRL_SIZE + size + CTRL_SIZE - 1) / CTRL_SIZE * CTRL_SIZE);
	ck_assert_ptr_nonnull(f->base);
	memset(f->base, 0, CTRL_SIZE + size);
	f->pc = f->base;
	f->pc->data_offset = CTRL_SIZE;
	f->pc->data_size = size;
	f->pc->data_head = start;
	f->pc->data_tail = start;
	f->data = (unsigned char *)f->base + CTRL_SIZE;
	f->size = size;
	f->r = ring_wrap(f->base, CTRL_SIZE, size);
	ck_assert_ptr_nonnull(f->r);
}

static void fake_free(struct fake *f)
{
	ring_free(f->r);
	free(f->base);
}

/* Copy n bytes in at data_head, wrapping, then publish them. */
static void fake_put(struct fake *f, const void *p, size_t n)
{
	const unsigned char *s = p;
	uint64_t head = f->pc->data_head;
	size_t i;

	for (i = 0; i < n; i++)
		f->data[(head + i) & (f->size - 1)] = s[i];
	__atomic_store_n(&f->pc->data_head, head + n, __ATOMIC_RELEASE);
}

/* A record of size bytes: header then a byte pattern from seed. */
static unsigned char *make_record(uint32_t type, size_t size, unsigned seed)
{
	unsigned char *rec = xmalloc(size < 8 ? 8 : size);
	struct perf_event_header h = { .type = type, .misc = 0, .size = (uint16_t)size };
	size_t i;

	memcpy(rec, &h, sizeof(h));
	for (i = sizeof(h); i < size; i++)
		rec[i] = (unsigned char)(seed + i * 7);
	return rec;
}

static void put_record(struct fake *f, uint32_t type, size_t size, unsigned seed)
{
	unsigned char *rec = make_record(type, size, seed);

	fake_put(f, rec, size);
	free(rec);
}

/* The record must match what put_record wrote. */
static void check_record_bytes(const struct perf_event_header *h, uint32_t type, size_t size,
			       unsigned seed)
{
	unsigned char *want = make_record(type, size, seed);

	ck_assert_ptr_nonnull(h);
	ck_assert_uint_eq(h->type, type);
	ck_assert_uint_eq(h->size, size);
	ck_assert_mem_eq(h, want, size);
	ck_assert_uint_eq((uintptr_t)h % 8, 0);
	free(want);
}

static bool in_ring(const struct fake *f, const void *p)
{
	const unsigned char *c = p;

	return c >= f->data && c < f->data + f->size;
}

/* A pass that reads one record, the one put_record wrote, and no more. */
static void read_only(struct fake *f, uint32_t type, size_t size, unsigned seed)
{
	ring_read_begin(f->r);
	check_record_bytes(ring_next(f->r), type, size, seed);
	ck_assert_ptr_null(ring_next(f->r));
	ring_read_end(f->r);
}

/* A pass that finds no record: a bad header, the nbad-th counted. */
static void read_bad(struct fake *f, uint64_t nbad)
{
	ring_read_begin(f->r);
	ck_assert_ptr_null(ring_next(f->r));
	ring_read_end(f->r);
	ck_assert_uint_eq(ring_get_stats(f->r)->bad, nbad);
}

/* Hold the first n bytes of the next record (there is one): its
 * position, or RING_NO_HOLD. */
static uint64_t hold_next(struct fake *f, size_t n)
{
	const struct perf_event_header *h = ring_next(f->r);

	ck_assert_ptr_nonnull(h);
	return ring_hold(f->r, h, n);
}

START_TEST(test_empty)
{
	struct fake f;
	const struct ring_stats *st;

	fake_init(&f, 256, 0);
	ring_read_begin(f.r);
	ck_assert_uint_eq(ring_pending(f.r), 0);
	ck_assert_ptr_null(ring_next(f.r));
	ck_assert_ptr_null(ring_next(f.r));
	ring_read_end(f.r);
	ck_assert_uint_eq(f.pc->data_tail, 0);
	st = ring_get_stats(f.r);
	ck_assert_uint_eq(st->records, 0);
	ck_assert_uint_eq(st->copied, 0);
	ck_assert_uint_eq(st->bad, 0);
	fake_free(&f);
}
END_TEST

START_TEST(test_several_records)
{
	struct fake f;
	const struct perf_event_header *h;

	fake_init(&f, 256, 0);
	put_record(&f, PERF_RECORD_SAMPLE, 16, 1);
	put_record(&f, PERF_RECORD_MMAP2, 40, 2);
	put_record(&f, 68, 8, 3);

	ring_read_begin(f.r);
	ck_assert_uint_eq(ring_pending(f.r), 64);
	h = ring_next(f.r);
	check_record_bytes(h, PERF_RECORD_SAMPLE, 16, 1);
	ck_assert_ptr_eq(h, f.data); /* zero-copy */
	ck_assert_uint_eq(ring_pending(f.r), 48);
	h = ring_next(f.r);
	check_record_bytes(h, PERF_RECORD_MMAP2, 40, 2);
	ck_assert_ptr_eq(h, f.data + 16);
	h = ring_next(f.r);
	check_record_bytes(h, 68, 8, 3);
	ck_assert_ptr_eq(h, f.data + 56);
	ck_assert_ptr_null(ring_next(f.r));
	ck_assert_uint_eq(ring_pending(f.r), 0);
	/* the tail is published only at read_end */
	ck_assert_uint_eq(f.pc->data_tail, 0);
	ring_read_end(f.r);
	ck_assert_uint_eq(f.pc->data_tail, 64);
	ck_assert_uint_eq(ring_get_stats(f.r)->records, 3);
	ck_assert_uint_eq(ring_get_stats(f.r)->copied, 0);
	ck_assert_uint_eq(ring_get_stats(f.r)->bad, 0);
	fake_free(&f);
}
END_TEST

/* A reader that stops mid-batch picks up where it left off; records the
 * kernel adds meanwhile show up at the next read_begin, not before. */
START_TEST(test_partial_batches)
{
	struct fake f;

	fake_init(&f, 256, 0);
	put_record(&f, PERF_RECORD_SAMPLE, 24, 1);
	put_record(&f, PERF_RECORD_SAMPLE, 32, 2);
	ring_read_begin(f.r);
	check_record_bytes(ring_next(f.r), PERF_RECORD_SAMPLE, 24, 1);
	ring_read_end(f.r);
	ck_assert_uint_eq(f.pc->data_tail, 24);

	put_record(&f, PERF_RECORD_COMM, 16, 3);
	ring_read_begin(f.r);
	ck_assert_uint_eq(ring_pending(f.r), 48);
	check_record_bytes(ring_next(f.r), PERF_RECORD_SAMPLE, 32, 2);
	put_record(&f, PERF_RECORD_EXIT, 16, 4); /* not seen in this batch */
	check_record_bytes(ring_next(f.r), PERF_RECORD_COMM, 16, 3);
	ck_assert_ptr_null(ring_next(f.r));
	ring_read_end(f.r);
	ck_assert_uint_eq(f.pc->data_tail, 72);

	read_only(&f, PERF_RECORD_EXIT, 16, 4);
	ck_assert_uint_eq(f.pc->data_tail, 88);
	ck_assert_uint_eq(ring_get_stats(f.r)->records, 4);
	fake_free(&f);
}
END_TEST

START_TEST(test_wrap)
{
	struct fake f;
	const struct perf_event_header *h;

	/* head and tail start 16 bytes before the end, on the third lap */
	fake_init(&f, 256, 3 * 256 - 16);
	put_record(&f, PERF_RECORD_SAMPLE, 48, 9);  /* 16 + 32 */
	put_record(&f, PERF_RECORD_SAMPLE, 16, 10); /* contiguous */
	ring_read_begin(f.r);
	h = ring_next(f.r);
	check_record_bytes(h, PERF_RECORD_SAMPLE, 48, 9);
	ck_assert(!in_ring(&f, h)); /* copied out */
	h = ring_next(f.r);
	check_record_bytes(h, PERF_RECORD_SAMPLE, 16, 10);
	ck_assert_ptr_eq(h, f.data + 32);
	ck_assert_ptr_null(ring_next(f.r));
	ring_read_end(f.r);
	ck_assert_uint_eq(f.pc->data_tail, 3 * 256 - 16 + 64);
	ck_assert_uint_eq(ring_get_stats(f.r)->records, 2);
	ck_assert_uint_eq(ring_get_stats(f.r)->copied, 1);
	fake_free(&f);
}
END_TEST

/* A record that ends exactly at the end of the buffer is not a wrap. */
START_TEST(test_ends_at_boundary)
{
	struct fake f;
	const struct perf_event_header *h;

	fake_init(&f, 256, 256 - 24);
	put_record(&f, PERF_RECORD_SAMPLE, 24, 5);
	put_record(&f, PERF_RECORD_SAMPLE, 8, 6);
	ring_read_begin(f.r);
	h = ring_next(f.r);
	check_record_bytes(h, PERF_RECORD_SAMPLE, 24, 5);
	ck_assert_ptr_eq(h, f.data + 256 - 24);
	h = ring_next(f.r);
	check_record_bytes(h, PERF_RECORD_SAMPLE, 8, 6);
	ck_assert_ptr_eq(h, f.data);
	ring_read_end(f.r);
	ck_assert_uint_eq(ring_get_stats(f.r)->copied, 0);
	fake_free(&f);
}
END_TEST

/* The largest record a u16 size allows, wrapping with only its header
 * before the end; then smaller wraps reuse the scratch buffer. */
START_TEST(test_wrap_large)
{
	struct fake f;
	size_t size = 128 * 1024, big = 65528, i;
	const struct perf_event_header *h;

	fake_init(&f, size, size - 8);
	put_record(&f, PERF_RECORD_SAMPLE, big, 77);
	ring_read_begin(f.r);
	h = ring_next(f.r);
	check_record_bytes(h, PERF_RECORD_SAMPLE, big, 77);
	ck_assert(!in_ring(&f, h));
	ring_read_end(f.r);

	for (i = 0; i < 4; i++) {
		/* land just before the end again */
		uint64_t pos = f.pc->data_head;
		uint64_t gap = size - (pos & (size - 1)) - 8 * (i + 1);

		while (gap) {
			size_t n = gap > 65528 ? 65528 : gap;

			put_record(&f, 68, n, 0);
			gap -= n;
		}
		put_record(&f, PERF_RECORD_SAMPLE, 64 + 8 * i, (unsigned)i);
		ring_read_begin(f.r);
		while ((h = ring_next(f.r)) && h->type == 68)
			;
		check_record_bytes(h, PERF_RECORD_SAMPLE, 64 + 8 * i, (unsigned)i);
		ck_assert(!in_ring(&f, h));
		ring_read_end(f.r);
		ck_assert_uint_eq(f.pc->data_tail, f.pc->data_head);
	}
	ck_assert_uint_eq(ring_get_stats(f.r)->copied, 5);
	ck_assert_uint_eq(ring_get_stats(f.r)->bad, 0);
	fake_free(&f);
}
END_TEST

/* A zero-size header would loop forever if trusted: the reader skips to
 * the head, counts it, and the next batch reads normally. */
START_TEST(test_bad_size_zero)
{
	struct fake f;
	static const unsigned char garbage[24] = { 0 };

	fake_init(&f, 256, 0);
	put_record(&f, PERF_RECORD_SAMPLE, 16, 1);
	fake_put(&f, garbage, sizeof(garbage)); /* header size 0 */
	ring_read_begin(f.r);
	check_record_bytes(ring_next(f.r), PERF_RECORD_SAMPLE, 16, 1);
	ck_assert_ptr_null(ring_next(f.r));
	ck_assert_ptr_null(ring_next(f.r));
	ck_assert_uint_eq(ring_pending(f.r), 0);
	ring_read_end(f.r);
	ck_assert_uint_eq(f.pc->data_tail, f.pc->data_head);
	ck_assert_uint_eq(ring_get_stats(f.r)->bad, 1);

	put_record(&f, PERF_RECORD_COMM, 24, 2);
	read_only(&f, PERF_RECORD_COMM, 24, 2);
	ck_assert_uint_eq(f.pc->data_tail, f.pc->data_head);
	ck_assert_uint_eq(ring_get_stats(f.r)->bad, 1);
	ck_assert_uint_eq(ring_get_stats(f.r)->records, 2);
	fake_free(&f);
}
END_TEST

START_TEST(test_bad_headers)
{
	struct fake f;
	struct perf_event_header h = { .type = PERF_RECORD_SAMPLE };
	uint64_t pad = 0;

	fake_init(&f, 256, 0);

	/* claims 64 bytes, 16 available */
	h.size = 64;
	fake_put(&f, &h, sizeof(h));
	fake_put(&f, &pad, sizeof(pad));
	read_bad(&f, 1);
	ck_assert_uint_eq(f.pc->data_tail, 16);

	/* size 4: smaller than a header */
	h.size = 4;
	fake_put(&f, &h, sizeof(h));
	read_bad(&f, 2);

	/* size 12: not whole words, would misalign everything after */
	h.size = 12;
	fake_put(&f, &h, sizeof(h));
	fake_put(&f, &pad, sizeof(pad));
	read_bad(&f, 3);

	/* a head that is not a whole header ahead */
	fake_put(&f, &pad, 4);
	read_bad(&f, 4);
	ck_assert_uint_eq(f.pc->data_tail, f.pc->data_head);

	/* a head more than a ring ahead: the control page is garbage */
	f.pc->data_head += 4 * 256;
	ring_read_begin(f.r);
	ck_assert_uint_eq(ring_pending(f.r), 0);
	ck_assert_ptr_null(ring_next(f.r));
	ring_read_end(f.r);
	ck_assert_uint_eq(ring_get_stats(f.r)->bad, 5);
	ck_assert_uint_eq(f.pc->data_tail, f.pc->data_head);
	ck_assert_uint_eq(ring_get_stats(f.r)->records, 0);
	fake_free(&f);
}
END_TEST

START_TEST(test_bad_geometry)
{
	unsigned char *buf = xcalloc(1, CTRL_SIZE + 512);

	errno = 0;
	ck_assert_ptr_null(ring_wrap(buf, CTRL_SIZE, 384));
	ck_assert_int_eq(errno, EINVAL);
	ck_assert_ptr_null(ring_wrap(buf, CTRL_SIZE, 0));
	errno = 0;
	ck_assert_ptr_null(ring_mmap(-1, 3));
	ck_assert_int_eq(errno, EINVAL);
	ck_assert_ptr_null(ring_mmap(-1, 0));
	ck_assert_ptr_null(ring_mmap(-1, 8));
	ring_free(NULL);
	free(buf);
}
END_TEST

/* ---- a live ring ---- */

static int open_event(struct perf_event_attr *attr)
{
	return (int)syscall(__NR_perf_event_open, attr, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
}

static volatile uint64_t sink;

static void burn_cpu(double seconds)
{
	double end = now_monotonic() + seconds;
	uint64_t x = 1;

	while (now_monotonic() < end) {
		int i;

		for (i = 0; i < 100000; i++)
			x = x * 6364136223846793005ULL + 1442695040888963407ULL;
		sink = x;
	}
}

START_TEST(test_live)
{
	struct perf_event_attr attr = { .size = sizeof(attr) };
	int fd, exe, samples = 0, mmaps = 0, comms = 0, total = 0;
	const struct perf_event_header *h;
	struct ring *r;
	void *m;

	attr.type = PERF_TYPE_SOFTWARE;
	attr.config = PERF_COUNT_SW_CPU_CLOCK;
	attr.sample_period = 100000; /* ns of CPU time */
	attr.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
			   PERF_SAMPLE_PERIOD | PERF_SAMPLE_IDENTIFIER;
	attr.disabled = 1;
	attr.exclude_kernel = 1; /* allowed at paranoid 2 */
	attr.exclude_hv = 1;
	attr.mmap = 1;
	attr.comm = 1;
	attr.sample_id_all = 1;
	attr.wakeup_events = 1;

	fd = open_event(&attr);
	if (fd < 0) {
		printf("SKIP: perf_event_open unavailable: %s\n", strerror(errno));
		return;
	}
	r = ring_mmap(fd, 8);
	ck_assert_msg(r != NULL, "ring_mmap: %s", strerror(errno));

	ck_assert_int_eq(ioctl(fd, PERF_EVENT_IOC_ENABLE, 0), 0);
	/* an executable mapping for a MMAP record, then CPU for samples */
	exe = open("/proc/self/exe", O_RDONLY | O_CLOEXEC);
	ck_assert_int_ge(exe, 0);
	m = mmap(NULL, 4096, PROT_READ | PROT_EXEC, MAP_PRIVATE, exe, 0);
	ck_assert_ptr_ne(m, MAP_FAILED);
	burn_cpu(0.05);
	ck_assert_int_eq(ioctl(fd, PERF_EVENT_IOC_DISABLE, 0), 0);

	ring_read_begin(r);
	while ((h = ring_next(r))) {
		struct record rec;
		struct errmsg why = ERRMSG_INIT;

		ck_assert_msg(record_decode(h, &attr, &rec, &why) == 0, "%s: %s",
			      record_type_name(h->type), why.text);
		total++;
		if (rec.kind == RECORD_SAMPLE) {
			samples++;
			ck_assert_uint_eq(rec.sid.pid, (uint32_t)getpid());
			ck_assert_uint_eq(rec.u.sample.cpumode, PERF_RECORD_MISC_USER);
			ck_assert_uint_gt(rec.u.sample.period, 0);
		} else if (rec.kind == RECORD_MMAP) {
			mmaps++;
			ck_assert(rec.has_sid);
			ck_assert_uint_eq(rec.sid.pid, (uint32_t)getpid());
		} else if (rec.kind == RECORD_COMM) {
			comms++;
		}
	}
	ring_read_end(r);
	ck_assert_int_ge(total, 1);
	ck_assert_int_ge(samples + mmaps, 1);
	ck_assert_uint_eq(ring_get_stats(r)->bad, 0);
	ck_assert_uint_eq(ring_pending(r), 0);

	munmap(m, 4096);
	close(exe);
	ring_free(r);
	close(fd);
}
END_TEST

/* Holds: the tail stored never passes the oldest record held, whatever the
 * order of releases; a release between passes frees room at once. */
START_TEST(test_hold_tail)
{
	struct fake f;
	const struct perf_event_header *h = NULL;
	uint64_t a, b, c;

	fake_init(&f, 256, 0);
	put_record(&f, PERF_RECORD_SAMPLE, 32, 1);
	put_record(&f, PERF_RECORD_MMAP2, 16, 2);
	put_record(&f, PERF_RECORD_SAMPLE, 32, 3);
	put_record(&f, PERF_RECORD_SAMPLE, 24, 4);
	ring_read_begin(f.r);
	ck_assert_uint_eq(ring_hold(f.r, f.data, 8), RING_NO_HOLD); /* nothing returned yet */
	h = ring_next(f.r);
	/* Bytes outside the record: not this one's to hold. */
	ck_assert_uint_eq(ring_hold(f.r, (const char *)h + 8, 32), RING_NO_HOLD);
	ck_assert_uint_eq(ring_hold(f.r, f.data + 64, 8), RING_NO_HOLD);
	a = ring_hold(f.r, (const char *)h + 8, 24);
	ck_assert_uint_eq(a, 0);
	ck_assert_uint_eq(ring_hold(f.r, h, 8), RING_NO_HOLD); /* once per record */
	ck_assert_ptr_nonnull(ring_next(f.r));
	b = hold_next(&f, 32);
	ck_assert_uint_eq(b, 48);
	c = hold_next(&f, 8);
	ck_assert_uint_eq(c, 80);
	ck_assert_ptr_null(ring_next(f.r));
	ring_read_end(f.r);
	ck_assert_uint_eq(f.pc->data_tail, 0);
	ck_assert_uint_eq(ring_held(f.r), 3);

	/* Out of order: the middle one changes nothing. */
	ring_release(f.r, b);
	ck_assert_uint_eq(f.pc->data_tail, 0);
	ring_release(f.r, b); /* twice: ignored */
	ck_assert_uint_eq(ring_held(f.r), 2);
	ring_release(f.r, a);
	ck_assert_uint_eq(f.pc->data_tail, 80);

	/* Mid-pass, the records being read stay the reader's till read_end. */
	put_record(&f, PERF_RECORD_SAMPLE, 16, 5);
	ring_read_begin(f.r);
	ck_assert_ptr_nonnull(ring_next(f.r));
	ring_release(f.r, c);
	ck_assert_uint_eq(f.pc->data_tail, 80);
	ring_read_end(f.r);
	ck_assert_uint_eq(f.pc->data_tail, 120);
	ck_assert_uint_eq(ring_held(f.r), 0);
	ck_assert_uint_eq(ring_get_stats(f.r)->held, 3);
	fake_free(&f);
}
END_TEST

/* A record that wrapped was copied: it cannot be held, the next can. */
START_TEST(test_hold_wrapped)
{
	struct fake f;
	const struct perf_event_header *h;

	fake_init(&f, 256, 224);
	put_record(&f, PERF_RECORD_SAMPLE, 64, 1);
	put_record(&f, PERF_RECORD_SAMPLE, 16, 2);
	ring_read_begin(f.r);
	h = ring_next(f.r);
	ck_assert(!in_ring(&f, h));
	ck_assert_uint_eq(ring_hold(f.r, h, 8), RING_NO_HOLD);
	h = ring_next(f.r);
	ck_assert(in_ring(&f, h));
	ck_assert_uint_eq(ring_hold(f.r, h, 8), 288);
	ring_read_end(f.r);
	ck_assert_uint_eq(f.pc->data_tail, 288);
	ck_assert_uint_eq(ring_get_stats(f.r)->refused, 1);
	ring_release(f.r, 288);
	ck_assert_uint_eq(f.pc->data_tail, 304);
	fake_free(&f);
}
END_TEST

/* The kernel keeps half the ring: holds that would leave it less are
 * refused, and ring_short_of_room says when the kernel's writes since have
 * brought the held span past half. */
START_TEST(test_hold_room)
{
	struct fake f;
	uint64_t a, b;
	int i;

	fake_init(&f, 256, 0);
	put_record(&f, PERF_RECORD_SAMPLE, 64, 1);
	put_record(&f, PERF_RECORD_SAMPLE, 64, 2);
	ring_read_begin(f.r);
	a = hold_next(&f, 8);
	ck_assert_uint_eq(a, 0);
	b = hold_next(&f, 8);
	ck_assert_uint_eq(b, 64); /* head 128 - oldest 0: half, no more */
	ring_read_end(f.r);
	ck_assert(!ring_short_of_room(f.r));
	/* The kernel writes on: the held span passes half the ring. */
	for (i = 0; i < 3; i++)
		put_record(&f, PERF_RECORD_SAMPLE, 32, (unsigned)i);
	ck_assert(ring_short_of_room(f.r));
	ring_read_begin(f.r);
	for (i = 0; i < 3; i++)
		ck_assert_uint_eq(hold_next(&f, 8), RING_NO_HOLD);
	ring_read_end(f.r);
	ck_assert_uint_eq(f.pc->data_tail, 0);
	ck_assert_uint_eq(ring_get_stats(f.r)->refused, 3);
	/* The holder gives them back (copied out): room again. */
	ring_release(f.r, a);
	ck_assert(ring_short_of_room(f.r)); /* 224 - 64 > 128 */
	ck_assert_uint_eq(f.pc->data_tail, 64);
	ring_release(f.r, b);
	ck_assert(!ring_short_of_room(f.r));
	ck_assert_uint_eq(f.pc->data_tail, 224);
	fake_free(&f);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("ring");
	TCase *tc;

	tc = tcase_create("read");
	tcase_add_test(tc, test_empty);
	tcase_add_test(tc, test_several_records);
	tcase_add_test(tc, test_partial_batches);
	suite_add_tcase(s, tc);

	tc = tcase_create("wrap");
	tcase_add_test(tc, test_wrap);
	tcase_add_test(tc, test_ends_at_boundary);
	tcase_add_test(tc, test_wrap_large);
	suite_add_tcase(s, tc);

	tc = tcase_create("corrupt");
	tcase_add_test(tc, test_bad_size_zero);
	tcase_add_test(tc, test_bad_headers);
	tcase_add_test(tc, test_bad_geometry);
	suite_add_tcase(s, tc);

	tc = tcase_create("hold");
	tcase_add_test(tc, test_hold_tail);
	tcase_add_test(tc, test_hold_wrapped);
	tcase_add_test(tc, test_hold_room);
	suite_add_tcase(s, tc);

	tc = tcase_create("live");
	tcase_set_timeout(tc, 30);
	tcase_add_test(tc, test_live);
	suite_add_tcase(s, tc);

	return s;
}

int main(void)
{
	return testutil_run(suite()) != 0;
}
