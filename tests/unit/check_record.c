/* Unit tests for the perf record decoder: samples built field by field for
 * every sample_type layout, side-band records with their sample_id trailer,
 * and truncated or lying records. */
#include "config.h"

#include <check.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "errmsg.h"
#include "record.h"
#include "testutil.h"
#include "util.h"

#ifndef PERF_SAMPLE_BRANCH_COUNTERS
#define PERF_SAMPLE_BRANCH_COUNTERS (1U << 19)
#endif

/* ---- a record builder: fields appended to an 8-aligned buffer ---- */

struct rb {
	uint64_t w[2048]; /* 16 KiB, u64-aligned like the ring */
	size_t len;	  /* bytes written, header included */
};

static void rb_init(struct rb *b, uint32_t type, uint16_t misc)
{
	struct perf_event_header h = { .type = type, .misc = misc, .size = 0 };

	memset(b->w, 0, sizeof(b->w));
	memcpy(b->w, &h, sizeof(h));
	b->len = sizeof(h);
}

static void rb_bytes(struct rb *b, const void *p, size_t n)
{
	ck_assert_uint_le(b->len + n + 8, sizeof(b->w));
	memcpy((char *)b->w + b->len, p, n);
	b->len += n;
	/* zero padding to the next word, as the kernel writes it */
	while (b->len % 8)
		((char *)b->w)[b->len++] = 0;
}

static void rb_u64(struct rb *b, uint64_t v)
{
	rb_bytes(b, &v, 8);
}

static void rb_u32x2(struct rb *b, uint32_t lo, uint32_t hi)
{
	uint32_t v[2] = { lo, hi };

	rb_bytes(b, v, 8);
}

/* A NUL-terminated string padded to a word, as the kernel lays it out. */
static void rb_str(struct rb *b, const char *s)
{
	rb_bytes(b, s, strlen(s) + 1);
}

static const struct perf_event_header *rb_done(struct rb *b)
{
	struct perf_event_header *h = (struct perf_event_header *)b->w;

	ck_assert_uint_lt(b->len, 65536);
	h->size = (uint16_t)b->len;
	return h;
}

static uint64_t *rb_word(struct rb *b, size_t byte_off)
{
	return (uint64_t *)((char *)b->w + byte_off);
}

/* Decode the first size bytes of b (header size patched to size) from an
 * exactly sized heap copy, so valgrind sees any read past the record. */
static int decode_copy(const struct rb *b, size_t size, const struct perf_event_attr *attr,
		       struct errmsg *why)
{
	size_t alloc = size < 8 ? 8 : size;
	struct perf_event_header *h = xmalloc(alloc);
	struct record rec;
	int rc;

	memcpy(h, b->w, alloc);
	h->size = (uint16_t)size;
	rc = record_decode(h, attr, &rec, why);
	free(h);
	return rc;
}

/* Every size shorter than the record's own must be refused. */
static void check_truncations(const struct rb *b, const struct perf_event_attr *attr,
			      const char *ctx)
{
	size_t s;

	for (s = 0; s < b->len; s++) {
		struct errmsg why = ERRMSG_INIT;
		int rc = decode_copy(b, s, attr, &why);

		ck_assert_msg(rc == -EINVAL, "%s: size %zu of %zu gave %d", ctx, s, b->len, rc);
		ck_assert_msg(why.text[0], "%s: size %zu: no reason", ctx, s);
	}
}

#define EXPECT_EQ(ctx, a, b)                                                                   \
	ck_assert_msg((uint64_t)(a) == (uint64_t)(b), "%s: %s = %#" PRIx64 ", want %#" PRIx64, \
		      (ctx), #a, (uint64_t)(a), (uint64_t)(b))

/* ---- samples: every subset of the common fields ---- */

static const uint64_t common_bits[] = {
	PERF_SAMPLE_IDENTIFIER, PERF_SAMPLE_IP,	       PERF_SAMPLE_TID,	      PERF_SAMPLE_TIME,
	PERF_SAMPLE_ADDR,	PERF_SAMPLE_ID,	       PERF_SAMPLE_STREAM_ID, PERF_SAMPLE_CPU,
	PERF_SAMPLE_PERIOD,	PERF_SAMPLE_CALLCHAIN, PERF_SAMPLE_RAW,
};

#define V_IDENTIFIER 0x2222ULL
#define V_ID 0x1111ULL
#define V_STREAM 0x5555ULL
#define V_ADDR 0xdead0000ULL
#define V_PERIOD 999ULL
static const char raw_payload[12] = "0123456789ab"; /* 4 + 12 = 2 words */

START_TEST(test_sample_all_subsets)
{
	static struct rb b;
	unsigned subset;

	for (subset = 0; subset < (1U << ARRAY_SIZE(common_bits)); subset++) {
		struct perf_event_attr attr = { .size = sizeof(attr) };
		const uint64_t chain[3] = { PERF_CONTEXT_USER, 0x400000, 0x400100 };
		uint64_t t = 0, ip = 0xffffffff81000000ULL + subset;
		uint32_t pid = 100 + subset, tid = 200 + subset, cpu = subset % 64;
		uint64_t time = 1000000 + subset;
		uint16_t misc = (subset & 1) ? PERF_RECORD_MISC_USER | PERF_RECORD_MISC_EXACT_IP :
					       PERF_RECORD_MISC_KERNEL;
		size_t chain_off = 0, raw_off = 0;
		const struct perf_event_header *h;
		const struct sample *s;
		struct record rec;
		struct errmsg why = ERRMSG_INIT;
		char ctx[64];
		size_t i;

		for (i = 0; i < ARRAY_SIZE(common_bits); i++)
			if (subset & (1U << i))
				t |= common_bits[i];
		snprintf(ctx, sizeof(ctx), "sample_type %#" PRIx64, t);
		attr.sample_type = t;
		/* alternate frequency and period mode for the default */
		attr.freq = subset & 2 ? 1 : 0;
		attr.sample_period = 4000;

		rb_init(&b, PERF_RECORD_SAMPLE, misc);
		if (t & PERF_SAMPLE_IDENTIFIER)
			rb_u64(&b, V_IDENTIFIER);
		if (t & PERF_SAMPLE_IP)
			rb_u64(&b, ip);
		if (t & PERF_SAMPLE_TID)
			rb_u32x2(&b, pid, tid);
		if (t & PERF_SAMPLE_TIME)
			rb_u64(&b, time);
		if (t & PERF_SAMPLE_ADDR)
			rb_u64(&b, V_ADDR);
		if (t & PERF_SAMPLE_ID)
			rb_u64(&b, V_ID);
		if (t & PERF_SAMPLE_STREAM_ID)
			rb_u64(&b, V_STREAM);
		if (t & PERF_SAMPLE_CPU)
			rb_u32x2(&b, cpu, 0xffffffff); /* res is ignored */
		if (t & PERF_SAMPLE_PERIOD)
			rb_u64(&b, V_PERIOD);
		if (t & PERF_SAMPLE_CALLCHAIN) {
			rb_u64(&b, 3);
			chain_off = b.len;
			rb_bytes(&b, chain, sizeof(chain));
		}
		if (t & PERF_SAMPLE_RAW) {
			uint32_t n = sizeof(raw_payload);

			raw_off = b.len + 4;
			memcpy((char *)b.w + b.len, &n, 4);
			b.len += 4;
			rb_bytes(&b, raw_payload, n);
		}
		h = rb_done(&b);

		ck_assert_msg(record_decode(h, &attr, &rec, &why) == 0, "%s: %s", ctx, why.text);
		s = &rec.u.sample;
		EXPECT_EQ(ctx, rec.kind, RECORD_SAMPLE);
		EXPECT_EQ(ctx, rec.type, PERF_RECORD_SAMPLE);
		EXPECT_EQ(ctx, rec.size, b.len);
		EXPECT_EQ(ctx, rec.misc, misc);
		EXPECT_EQ(ctx, s->cpumode, misc & PERF_RECORD_MISC_CPUMODE_MASK);
		EXPECT_EQ(ctx, s->exact_ip, (subset & 1) != 0);
		EXPECT_EQ(ctx, s->ip, (t & PERF_SAMPLE_IP) ? ip : 0);
		EXPECT_EQ(ctx, s->sid.pid, (t & PERF_SAMPLE_TID) ? pid : 0);
		EXPECT_EQ(ctx, s->sid.tid, (t & PERF_SAMPLE_TID) ? tid : 0);
		EXPECT_EQ(ctx, s->sid.time, (t & PERF_SAMPLE_TIME) ? time : 0);
		EXPECT_EQ(ctx, s->addr, (t & PERF_SAMPLE_ADDR) ? V_ADDR : 0);
		EXPECT_EQ(ctx, s->sid.id,
			  (t & PERF_SAMPLE_IDENTIFIER) ? V_IDENTIFIER :
			  (t & PERF_SAMPLE_ID)	       ? V_ID :
							 0);
		EXPECT_EQ(ctx, s->sid.stream_id, (t & PERF_SAMPLE_STREAM_ID) ? V_STREAM : 0);
		EXPECT_EQ(ctx, s->sid.cpu, (t & PERF_SAMPLE_CPU) ? cpu : 0);
		EXPECT_EQ(ctx, s->period,
			  (t & PERF_SAMPLE_PERIOD) ? V_PERIOD :
			  attr.freq		   ? 1 :
						     4000);
		if (t & PERF_SAMPLE_CALLCHAIN) {
			EXPECT_EQ(ctx, s->nr_callchain, 3);
			ck_assert_ptr_eq(s->callchain, rb_word(&b, chain_off));
			ck_assert(record_is_context(s->callchain[0]));
			ck_assert(!record_is_context(s->callchain[1]));
			EXPECT_EQ(ctx, s->callchain[2], 0x400100);
		} else {
			EXPECT_EQ(ctx, s->nr_callchain, 0);
			ck_assert_ptr_null(s->callchain);
		}
		if (t & PERF_SAMPLE_RAW) {
			EXPECT_EQ(ctx, s->raw_size, sizeof(raw_payload));
			ck_assert_ptr_eq(s->raw, (char *)b.w + raw_off);
			ck_assert_mem_eq(s->raw, raw_payload, sizeof(raw_payload));
		} else {
			EXPECT_EQ(ctx, s->raw_size, 0);
			ck_assert_ptr_null(s->raw);
		}
		/* the record-level sid mirrors the sample's own */
		EXPECT_EQ(ctx, rec.sid.pid, s->sid.pid);
		EXPECT_EQ(ctx, rec.sid.tid, s->sid.tid);
		EXPECT_EQ(ctx, rec.sid.time, s->sid.time);
		EXPECT_EQ(ctx, rec.sid.id, s->sid.id);
		EXPECT_EQ(ctx, rec.sid.stream_id, s->sid.stream_id);
		EXPECT_EQ(ctx, rec.sid.cpu, s->sid.cpu);
		EXPECT_EQ(ctx, rec.has_sid,
			  (t & (PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_ID |
				PERF_SAMPLE_STREAM_ID | PERF_SAMPLE_CPU |
				PERF_SAMPLE_IDENTIFIER)) != 0);
		/* fields outside sample_type stay zero */
		EXPECT_EQ(ctx, s->weight, 0);
		EXPECT_EQ(ctx, s->nr_branches, 0);

		check_truncations(&b, &attr, ctx);
	}
}
END_TEST

START_TEST(test_sample_period_default)
{
	static struct rb b;
	struct perf_event_attr attr = { .size = sizeof(attr) };
	struct record rec;

	attr.sample_type = PERF_SAMPLE_IP;
	rb_init(&b, PERF_RECORD_SAMPLE, PERF_RECORD_MISC_USER);
	rb_u64(&b, 0x1234);
	rb_done(&b);

	attr.sample_period = 10007;
	ck_assert_int_eq(record_decode(rb_done(&b), &attr, &rec, NULL), 0);
	ck_assert_uint_eq(rec.u.sample.period, 10007);

	/* sample_freq shares the union: in freq mode 4000 is Hz, not a period */
	attr.freq = 1;
	attr.sample_freq = 4000;
	ck_assert_int_eq(record_decode(rb_done(&b), &attr, &rec, NULL), 0);
	ck_assert_uint_eq(rec.u.sample.period, 1);

	attr.freq = 0;
	attr.sample_period = 0;
	ck_assert_int_eq(record_decode(rb_done(&b), &attr, &rec, NULL), 0);
	ck_assert_uint_eq(rec.u.sample.period, 1);
}
END_TEST

/* ---- READ: group and single read_format, then the callchain after it ---- */

static void build_read_sample(struct rb *b, uint64_t fmt, uint64_t nr)
{
	uint64_t j;

	rb_init(b, PERF_RECORD_SAMPLE, PERF_RECORD_MISC_USER);
	rb_u32x2(b, 42, 43); /* TID */
	rb_u64(b, 77);	     /* PERIOD */
	if (fmt & PERF_FORMAT_GROUP) {
		rb_u64(b, nr);
		if (fmt & PERF_FORMAT_TOTAL_TIME_ENABLED)
			rb_u64(b, 0xe0);
		if (fmt & PERF_FORMAT_TOTAL_TIME_RUNNING)
			rb_u64(b, 0xe1);
		for (j = 0; j < nr; j++) {
			rb_u64(b, 0x100 + j);
			if (fmt & PERF_FORMAT_ID)
				rb_u64(b, 0x200 + j);
			if (fmt & PERF_FORMAT_LOST)
				rb_u64(b, 0x300 + j);
		}
	} else {
		rb_u64(b, 0x100);
		if (fmt & PERF_FORMAT_TOTAL_TIME_ENABLED)
			rb_u64(b, 0xe0);
		if (fmt & PERF_FORMAT_TOTAL_TIME_RUNNING)
			rb_u64(b, 0xe1);
		if (fmt & PERF_FORMAT_ID)
			rb_u64(b, 0x200);
		if (fmt & PERF_FORMAT_LOST)
			rb_u64(b, 0x300);
	}
	rb_u64(b, 2); /* CALLCHAIN */
	rb_u64(b, 0xaaaa);
	rb_u64(b, 0xbbbb);
	rb_done(b);
}

START_TEST(test_sample_read)
{
	static struct rb b;
	static const struct {
		uint64_t fmt, nr;
	} cases[] = {
		{ 0, 0 },
		{ PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_ID, 0 },
		{ PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING | PERF_FORMAT_ID |
			  PERF_FORMAT_LOST,
		  0 },
		{ PERF_FORMAT_GROUP, 0 },
		{ PERF_FORMAT_GROUP, 1 },
		{ PERF_FORMAT_GROUP | PERF_FORMAT_ID, 3 },
		{ PERF_FORMAT_GROUP | PERF_FORMAT_TOTAL_TIME_ENABLED |
			  PERF_FORMAT_TOTAL_TIME_RUNNING | PERF_FORMAT_ID | PERF_FORMAT_LOST,
		  4 },
		{ PERF_FORMAT_GROUP | PERF_FORMAT_TOTAL_TIME_RUNNING, 2 },
	};
	size_t i;

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		struct perf_event_attr attr = { .size = sizeof(attr) };
		struct record rec;
		struct errmsg why = ERRMSG_INIT;
		char ctx[64];

		snprintf(ctx, sizeof(ctx), "read_format %#" PRIx64 " nr %" PRIu64, cases[i].fmt,
			 cases[i].nr);
		attr.sample_type = PERF_SAMPLE_TID | PERF_SAMPLE_PERIOD | PERF_SAMPLE_READ |
				   PERF_SAMPLE_CALLCHAIN;
		attr.read_format = cases[i].fmt;
		build_read_sample(&b, cases[i].fmt, cases[i].nr);
		ck_assert_msg(record_decode(rb_done(&b), &attr, &rec, &why) == 0, "%s: %s", ctx,
			      why.text);
		EXPECT_EQ(ctx, rec.u.sample.sid.tid, 43);
		EXPECT_EQ(ctx, rec.u.sample.period, 77);
		EXPECT_EQ(ctx, rec.u.sample.nr_callchain, 2);
		EXPECT_EQ(ctx, rec.u.sample.callchain[0], 0xaaaa);
		EXPECT_EQ(ctx, rec.u.sample.callchain[1], 0xbbbb);
		check_truncations(&b, &attr, ctx);
	}
}
END_TEST

START_TEST(test_sample_read_group_nr_huge)
{
	static struct rb b;
	struct perf_event_attr attr = { .size = sizeof(attr) };
	static const uint64_t nrs[] = {
		UINT64_MAX,
		1ULL << 62,
		0x8000000000000001ULL,
		5,
	};
	size_t i;

	attr.sample_type = PERF_SAMPLE_READ;
	attr.read_format = PERF_FORMAT_GROUP | PERF_FORMAT_ID;
	for (i = 0; i < ARRAY_SIZE(nrs); i++) {
		struct record rec;
		struct errmsg why = ERRMSG_INIT;

		/* room for 4 entries, not for nrs[i]: with 2 words per entry
		 * 0x8000000000000001 wraps to 2 if multiplied carelessly */
		rb_init(&b, PERF_RECORD_SAMPLE, 0);
		rb_u64(&b, nrs[i]);
		rb_u64(&b, 1);
		rb_u64(&b, 2);
		rb_u64(&b, 3);
		rb_u64(&b, 4);
		rb_u64(&b, 5);
		rb_u64(&b, 6);
		rb_u64(&b, 7);
		rb_u64(&b, 8);
		ck_assert_int_eq(record_decode(rb_done(&b), &attr, &rec, &why), -EINVAL);
		ck_assert_str_eq(why.text, "read group nr larger than the record");
	}
}
END_TEST

/* ---- the variable-size tail fields, each followed by a known field ---- */

START_TEST(test_sample_tail_fields)
{
	static struct rb b;
	unsigned v;

	for (v = 0; v < 64; v++) {
		struct perf_event_attr attr = { .size = sizeof(attr) };
		bool hw_idx = v & 1, regs = v & 2, stack = v & 4, aux = v & 8;
		bool wstruct = v & 16, counters = v & 32;
		uint64_t nr_br = 2, j;
		const struct sample *s;
		struct record rec;
		struct errmsg why = ERRMSG_INIT;
		char ctx[64];

		snprintf(ctx, sizeof(ctx), "tail variant %#x", v);
		attr.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_BRANCH_STACK |
				   PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER |
				   (wstruct ? PERF_SAMPLE_WEIGHT_STRUCT : PERF_SAMPLE_WEIGHT) |
				   PERF_SAMPLE_DATA_SRC | PERF_SAMPLE_TRANSACTION |
				   PERF_SAMPLE_REGS_INTR | PERF_SAMPLE_PHYS_ADDR |
				   PERF_SAMPLE_CGROUP | PERF_SAMPLE_DATA_PAGE_SIZE |
				   PERF_SAMPLE_CODE_PAGE_SIZE | PERF_SAMPLE_AUX;
		attr.branch_sample_type = PERF_SAMPLE_BRANCH_ANY |
					  (hw_idx ? PERF_SAMPLE_BRANCH_HW_INDEX : 0) |
					  (counters ? PERF_SAMPLE_BRANCH_COUNTERS : 0);
		attr.sample_regs_user = 0x7;  /* 3 registers */
		attr.sample_regs_intr = 0x30; /* 2 registers */

		rb_init(&b, PERF_RECORD_SAMPLE, PERF_RECORD_MISC_USER);
		rb_u64(&b, 0x401000); /* IP */
		rb_u64(&b, nr_br);    /* BRANCH */
		if (hw_idx)
			rb_u64(&b, 0x77);
		for (j = 0; j < nr_br; j++) {
			rb_u64(&b, 0xf000 + j);
			rb_u64(&b, 0xe000 + j);
			rb_u64(&b, 0xd000 + j);
		}
		if (counters)
			for (j = 0; j < nr_br; j++)
				rb_u64(&b, 0xc000 + j);
		rb_u64(&b, regs ? PERF_SAMPLE_REGS_ABI_64 : 0); /* REGS_USER */
		if (regs) {
			rb_u64(&b, 0xa1);
			rb_u64(&b, 0xa2);
			rb_u64(&b, 0xa3);
		}
		if (stack) { /* STACK_USER */
			rb_u64(&b, 24);
			rb_u64(&b, 0x51);
			rb_u64(&b, 0x52);
			rb_u64(&b, 0x53);
			rb_u64(&b, 16); /* dyn_size */
		} else {
			rb_u64(&b, 0);
		}
		rb_u64(&b, 0x3300000044ULL);			/* WEIGHT */
		rb_u64(&b, 0xd5c);				/* DATA_SRC */
		rb_u64(&b, 0x7a);				/* TRANSACTION */
		rb_u64(&b, regs ? PERF_SAMPLE_REGS_ABI_32 : 0); /* REGS_INTR */
		if (regs) {
			rb_u64(&b, 0xb1);
			rb_u64(&b, 0xb2);
		}
		rb_u64(&b, 0x9900);  /* PHYS_ADDR */
		rb_u64(&b, 0xc6);    /* CGROUP */
		rb_u64(&b, 4096);    /* DATA_PAGE */
		rb_u64(&b, 2 << 20); /* CODE_PAGE */
		if (aux) {	     /* AUX */
			rb_u64(&b, 16);
			rb_u64(&b, 0x61);
			rb_u64(&b, 0x62);
		} else {
			rb_u64(&b, 0);
		}
		rb_done(&b);

		ck_assert_msg(record_decode(rb_done(&b), &attr, &rec, &why) == 0, "%s: %s", ctx,
			      why.text);
		s = &rec.u.sample;
		EXPECT_EQ(ctx, s->ip, 0x401000);
		EXPECT_EQ(ctx, s->nr_branches, nr_br);
		EXPECT_EQ(ctx, s->weight, 0x3300000044ULL);
		EXPECT_EQ(ctx, s->data_src, 0xd5c);
		EXPECT_EQ(ctx, s->transaction, 0x7a);
		EXPECT_EQ(ctx, s->phys_addr, 0x9900);
		EXPECT_EQ(ctx, s->cgroup, 0xc6);
		EXPECT_EQ(ctx, s->data_page_size, 4096);
		EXPECT_EQ(ctx, s->code_page_size, 2 << 20);
		EXPECT_EQ(ctx, s->regs_abi, regs ? PERF_SAMPLE_REGS_ABI_64 : 0);
		EXPECT_EQ(ctx, s->nr_regs, regs ? 3 : 0);
		if (regs)
			EXPECT_EQ(ctx, s->regs[2], 0xa3);
		else
			ck_assert_ptr_null(s->regs);
		EXPECT_EQ(ctx, s->stack_size, stack ? 16 : 0);
		if (stack)
			EXPECT_EQ(ctx, ((const uint64_t *)s->stack)[1], 0x52);
		else
			ck_assert_ptr_null(s->stack);
		check_truncations(&b, &attr, ctx);
	}
}
END_TEST

/* Single tail fields, so each is also seen right after the common ones. */
START_TEST(test_sample_single_tail_fields)
{
	static struct rb b;
	static const uint64_t bits[] = {
		PERF_SAMPLE_WEIGHT,	 PERF_SAMPLE_DATA_SRC,	     PERF_SAMPLE_PHYS_ADDR,
		PERF_SAMPLE_CGROUP,	 PERF_SAMPLE_DATA_PAGE_SIZE, PERF_SAMPLE_CODE_PAGE_SIZE,
		PERF_SAMPLE_TRANSACTION,
	};
	size_t i;

	for (i = 0; i < ARRAY_SIZE(bits); i++) {
		struct perf_event_attr attr = { .size = sizeof(attr) };
		const struct sample *s;
		struct record rec;
		char ctx[64];

		snprintf(ctx, sizeof(ctx), "bit %#" PRIx64, bits[i]);
		attr.sample_type =
			PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_CALLCHAIN | bits[i];
		rb_init(&b, PERF_RECORD_SAMPLE, 0);
		rb_u64(&b, 0x1000);
		rb_u32x2(&b, 1, 2);
		rb_u64(&b, 1);
		rb_u64(&b, 0x2000);
		rb_u64(&b, 0xabc0 + i);
		ck_assert_int_eq(record_decode(rb_done(&b), &attr, &rec, NULL), 0);
		s = &rec.u.sample;
		EXPECT_EQ(ctx, s->callchain[0], 0x2000);
		EXPECT_EQ(ctx, s->weight, bits[i] == PERF_SAMPLE_WEIGHT ? 0xabc0 + i : 0);
		EXPECT_EQ(ctx, s->data_src, bits[i] == PERF_SAMPLE_DATA_SRC ? 0xabc0 + i : 0);
		EXPECT_EQ(ctx, s->phys_addr, bits[i] == PERF_SAMPLE_PHYS_ADDR ? 0xabc0 + i : 0);
		EXPECT_EQ(ctx, s->cgroup, bits[i] == PERF_SAMPLE_CGROUP ? 0xabc0 + i : 0);
		EXPECT_EQ(ctx, s->data_page_size,
			  bits[i] == PERF_SAMPLE_DATA_PAGE_SIZE ? 0xabc0 + i : 0);
		EXPECT_EQ(ctx, s->code_page_size,
			  bits[i] == PERF_SAMPLE_CODE_PAGE_SIZE ? 0xabc0 + i : 0);
		EXPECT_EQ(ctx, s->transaction, bits[i] == PERF_SAMPLE_TRANSACTION ? 0xabc0 + i : 0);
		check_truncations(&b, &attr, ctx);
	}
}
END_TEST

/* ---- lengths that lie ---- */

static void expect_einval(const struct rb *b, const struct perf_event_attr *attr,
			  const char *want_why)
{
	const struct perf_event_header *h = (const void *)b->w;
	struct record rec;
	struct errmsg why = ERRMSG_INIT;

	ck_assert_uint_eq(h->size, b->len);
	ck_assert_int_eq(record_decode(h, attr, &rec, &why), -EINVAL);
	ck_assert_str_eq(why.text, want_why);
	/* and again from an exact heap copy, for valgrind */
	ck_assert_int_eq(decode_copy(b, b->len, attr, NULL), -EINVAL);
}

START_TEST(test_callchain_nr_huge)
{
	static struct rb b;
	static const uint64_t nrs[] = { UINT64_MAX, 1ULL << 61, 1ULL << 32, 4 };
	struct perf_event_attr attr = { .size = sizeof(attr) };
	size_t i;

	attr.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_CALLCHAIN;
	for (i = 0; i < ARRAY_SIZE(nrs); i++) {
		rb_init(&b, PERF_RECORD_SAMPLE, 0);
		rb_u64(&b, 0x1000);
		rb_u64(&b, nrs[i]);
		rb_u64(&b, 0x1);
		rb_u64(&b, 0x2);
		rb_u64(&b, 0x3);
		rb_done(&b);
		expect_einval(&b, &attr, "callchain nr larger than the record");
	}
}
END_TEST

START_TEST(test_raw_size_huge)
{
	static struct rb b;
	static const uint32_t sizes[] = { UINT32_MAX, UINT32_MAX - 3, 1U << 31, 13, 21 };
	struct perf_event_attr attr = { .size = sizeof(attr) };
	size_t i;

	attr.sample_type = PERF_SAMPLE_RAW;
	for (i = 0; i < ARRAY_SIZE(sizes); i++) {
		/* 4 + 12 bytes of room; 13 needs one more word */
		rb_init(&b, PERF_RECORD_SAMPLE, 0);
		memcpy(b.w + 1, &sizes[i], 4);
		b.len += 16;
		rb_done(&b);
		expect_einval(&b, &attr, "raw size larger than the record");
	}
}
END_TEST

START_TEST(test_other_sizes_huge)
{
	static struct rb b;
	struct perf_event_attr attr = { .size = sizeof(attr) };

	/* 0x5555555555555556 entries of 3 words wrap to 2 words */
	attr.sample_type = PERF_SAMPLE_BRANCH_STACK;
	rb_init(&b, PERF_RECORD_SAMPLE, 0);
	rb_u64(&b, 0x5555555555555556ULL);
	rb_u64(&b, 1);
	rb_u64(&b, 2);
	rb_u64(&b, 3);
	rb_done(&b);
	expect_einval(&b, &attr, "branch nr larger than the record");

	attr.branch_sample_type = PERF_SAMPLE_BRANCH_HW_INDEX;
	rb_init(&b, PERF_RECORD_SAMPLE, 0);
	rb_u64(&b, 1);
	rb_u64(&b, 7); /* hw_idx eats a word */
	rb_u64(&b, 1);
	rb_u64(&b, 2);
	rb_done(&b);
	expect_einval(&b, &attr, "branch nr larger than the record");

	attr.sample_type = PERF_SAMPLE_STACK_USER;
	rb_init(&b, PERF_RECORD_SAMPLE, 0);
	rb_u64(&b, UINT64_MAX);
	rb_u64(&b, 1);
	rb_u64(&b, 2);
	rb_done(&b);
	expect_einval(&b, &attr, "user stack size larger than the record");

	rb_init(&b, PERF_RECORD_SAMPLE, 0);
	rb_u64(&b, 16);
	rb_u64(&b, 1);
	rb_u64(&b, 2); /* no dyn_size */
	rb_done(&b);
	expect_einval(&b, &attr, "user stack dyn_size beyond the record");

	attr.sample_type = PERF_SAMPLE_AUX;
	rb_init(&b, PERF_RECORD_SAMPLE, 0);
	rb_u64(&b, UINT64_MAX - 6);
	rb_u64(&b, 1);
	rb_done(&b);
	expect_einval(&b, &attr, "aux size larger than the record");

	attr.sample_type = PERF_SAMPLE_REGS_USER;
	attr.sample_regs_user = UINT64_MAX; /* 64 registers */
	rb_init(&b, PERF_RECORD_SAMPLE, 0);
	rb_u64(&b, PERF_SAMPLE_REGS_ABI_64);
	rb_u64(&b, 1);
	rb_u64(&b, 2);
	rb_done(&b);
	expect_einval(&b, &attr, "regs larger than the record");

	attr.sample_type = PERF_SAMPLE_REGS_INTR;
	attr.sample_regs_intr = 0xf;
	rb_init(&b, PERF_RECORD_SAMPLE, 0);
	rb_u64(&b, PERF_SAMPLE_REGS_ABI_64);
	rb_u64(&b, 1);
	rb_u64(&b, 2);
	rb_u64(&b, 3);
	rb_done(&b);
	expect_einval(&b, &attr, "regs larger than the record");
}
END_TEST

/* The user registers and stack an unwinder reads: lying sizes refused,
 * an empty copy and an unknown abi give nothing to read. */
START_TEST(test_regs_stack_bad)
{
	static struct rb b;
	struct perf_event_attr attr = { .size = sizeof(attr) };
	struct record rec;
	struct errmsg why = ERRMSG_INIT;

	attr.sample_type = PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER;
	attr.sample_regs_user = 0x3;

	/* dyn_size larger than the copy */
	rb_init(&b, PERF_RECORD_SAMPLE, 0);
	rb_u64(&b, PERF_SAMPLE_REGS_ABI_64);
	rb_u64(&b, 1);
	rb_u64(&b, 2);
	rb_u64(&b, 8);
	rb_u64(&b, 0x51);
	rb_u64(&b, 16);
	rb_done(&b);
	expect_einval(&b, &attr, "user stack dyn_size larger than its copy");

	/* a stack size larger than the record */
	rb_init(&b, PERF_RECORD_SAMPLE, 0);
	rb_u64(&b, PERF_SAMPLE_REGS_ABI_64);
	rb_u64(&b, 1);
	rb_u64(&b, 2);
	rb_u64(&b, 8192);
	rb_u64(&b, 0x51);
	rb_u64(&b, 8);
	rb_done(&b);
	expect_einval(&b, &attr, "user stack size larger than the record");

	/* a zero-byte copy: no dyn_size, nothing to read */
	rb_init(&b, PERF_RECORD_SAMPLE, 0);
	rb_u64(&b, PERF_SAMPLE_REGS_ABI_64);
	rb_u64(&b, 1);
	rb_u64(&b, 2);
	rb_u64(&b, 0);
	ck_assert_int_eq(record_decode(rb_done(&b), &attr, &rec, &why), 0);
	ck_assert_ptr_null(rec.u.sample.stack);
	ck_assert_uint_eq(rec.u.sample.stack_size, 0);
	ck_assert_uint_eq(rec.u.sample.nr_regs, 2);

	/* a mask with more registers than the record holds */
	attr.sample_regs_user = 0xff0fff;
	expect_einval(&b, &attr, "regs larger than the record");

	/* an abi this decoder does not know: skipped, not handed out */
	attr.sample_regs_user = 0x3;
	rb_init(&b, PERF_RECORD_SAMPLE, 0);
	rb_u64(&b, 7);
	rb_u64(&b, 1);
	rb_u64(&b, 2);
	rb_u64(&b, 0);
	ck_assert_int_eq(record_decode(rb_done(&b), &attr, &rec, &why), 0);
	ck_assert_ptr_null(rec.u.sample.regs);
	ck_assert_uint_eq(rec.u.sample.nr_regs, 0);
}
END_TEST

/* ---- side-band records and the sample_id_all trailer ---- */

static const struct {
	bool all;
	uint64_t type;
} sid_cases[] = {
	{ false, PERF_SAMPLE_TID | PERF_SAMPLE_TIME },	  /* no trailer */
	{ true, PERF_SAMPLE_IP | PERF_SAMPLE_CALLCHAIN }, /* empty trailer */
	{ true, PERF_SAMPLE_TID | PERF_SAMPLE_TIME },
	{ true, PERF_SAMPLE_IDENTIFIER },
	{ true, PERF_SAMPLE_TIME | PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD },
	{ true, PERF_SAMPLE_ID | PERF_SAMPLE_STREAM_ID | PERF_SAMPLE_RAW },
	{ true, PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_ID | PERF_SAMPLE_STREAM_ID |
			PERF_SAMPLE_CPU | PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP },
};

#define T_PID 1234
#define T_TID 1235
#define T_TIME 0x123456789ULL
#define T_CPU 3

/* Append the trailer in its own order (not the sample's). */
static void rb_sid(struct rb *b, const struct perf_event_attr *attr)
{
	uint64_t t = attr->sample_type;

	if (!attr->sample_id_all)
		return;
	if (t & PERF_SAMPLE_TID)
		rb_u32x2(b, T_PID, T_TID);
	if (t & PERF_SAMPLE_TIME)
		rb_u64(b, T_TIME);
	if (t & PERF_SAMPLE_ID)
		rb_u64(b, V_ID);
	if (t & PERF_SAMPLE_STREAM_ID)
		rb_u64(b, V_STREAM);
	if (t & PERF_SAMPLE_CPU)
		rb_u32x2(b, T_CPU, 0);
	if (t & PERF_SAMPLE_IDENTIFIER)
		rb_u64(b, V_IDENTIFIER);
}

static void check_sid(const struct record *rec, const struct perf_event_attr *attr, const char *ctx)
{
	uint64_t t = attr->sample_id_all ? attr->sample_type : 0;

	EXPECT_EQ(ctx, rec->has_sid, record_sample_id_size(attr) != 0);
	EXPECT_EQ(ctx, rec->sid.pid, (t & PERF_SAMPLE_TID) ? T_PID : 0);
	EXPECT_EQ(ctx, rec->sid.tid, (t & PERF_SAMPLE_TID) ? T_TID : 0);
	EXPECT_EQ(ctx, rec->sid.time, (t & PERF_SAMPLE_TIME) ? T_TIME : 0);
	EXPECT_EQ(ctx, rec->sid.id,
		  (t & PERF_SAMPLE_IDENTIFIER) ? V_IDENTIFIER :
		  (t & PERF_SAMPLE_ID)	       ? V_ID :
						 0);
	EXPECT_EQ(ctx, rec->sid.stream_id, (t & PERF_SAMPLE_STREAM_ID) ? V_STREAM : 0);
	EXPECT_EQ(ctx, rec->sid.cpu, (t & PERF_SAMPLE_CPU) ? T_CPU : 0);
}

enum sb_kind {
	SB_MMAP,
	SB_MMAP2,
	SB_MMAP2_BUILD_ID,
	SB_COMM,
	SB_COMM_EXEC,
	SB_FORK,
	SB_EXIT,
	SB_LOST,
	SB_LOST_SAMPLES,
	SB_THROTTLE,
	SB_UNTHROTTLE,
	SB_KSYMBOL,
	SB_NR
};

static const uint8_t test_build_id[20] = {
	0xde, 0xad, 0xbe, 0xef, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16,
};

/* Build one side-band record (body only; the caller adds the trailer). */
static void build_sideband(struct rb *b, enum sb_kind k)
{
	switch (k) {
	case SB_MMAP:
		rb_init(b, PERF_RECORD_MMAP, PERF_RECORD_MISC_USER);
		rb_u32x2(b, 10, 11);
		rb_u64(b, 0x400000);
		rb_u64(b, 0x2000);
		rb_u64(b, 0x1000);
		rb_str(b, "/usr/bin/true");
		break;
	case SB_MMAP2:
		rb_init(b, PERF_RECORD_MMAP2, PERF_RECORD_MISC_USER);
		rb_u32x2(b, 10, 11);
		rb_u64(b, 0x7f0000000000ULL);
		rb_u64(b, 0x3000);
		rb_u64(b, 0x5000);
		rb_u32x2(b, 8, 1); /* maj, min */
		rb_u64(b, 123456); /* ino */
		rb_u64(b, 9);	   /* ino_generation */
		rb_u32x2(b, PROT_READ | PROT_EXEC, MAP_PRIVATE);
		rb_str(b, "/lib/x86_64-linux-gnu/libc.so.6");
		break;
	case SB_MMAP2_BUILD_ID: {
		unsigned char u[24] = { 20, 0, 0, 0 };

		memcpy(u + 4, test_build_id, 20);
		rb_init(b, PERF_RECORD_MMAP2,
			PERF_RECORD_MISC_USER | PERF_RECORD_MISC_MMAP_BUILD_ID);
		rb_u32x2(b, 10, 11);
		rb_u64(b, 0x7f0000000000ULL);
		rb_u64(b, 0x3000);
		rb_u64(b, 0x5000);
		rb_bytes(b, u, sizeof(u));
		rb_u32x2(b, PROT_READ | PROT_EXEC, MAP_PRIVATE);
		rb_str(b, "/lib/x86_64-linux-gnu/libc.so.6");
		break;
	}
	case SB_COMM:
	case SB_COMM_EXEC:
		rb_init(b, PERF_RECORD_COMM, k == SB_COMM_EXEC ? PERF_RECORD_MISC_COMM_EXEC : 0);
		rb_u32x2(b, 20, 21);
		rb_str(b, "proftop-test");
		break;
	case SB_FORK:
	case SB_EXIT:
		rb_init(b, k == SB_FORK ? PERF_RECORD_FORK : PERF_RECORD_EXIT, 0);
		rb_u32x2(b, 30, 31);
		rb_u32x2(b, 32, 33);
		rb_u64(b, 0x7777);
		break;
	case SB_LOST:
		rb_init(b, PERF_RECORD_LOST, 0);
		rb_u64(b, 0x42);
		rb_u64(b, 17);
		break;
	case SB_LOST_SAMPLES:
		rb_init(b, PERF_RECORD_LOST_SAMPLES, 0);
		rb_u64(b, 19);
		break;
	case SB_THROTTLE:
	case SB_UNTHROTTLE:
		rb_init(b, k == SB_THROTTLE ? PERF_RECORD_THROTTLE : PERF_RECORD_UNTHROTTLE, 0);
		rb_u64(b, 0x8888);
		rb_u64(b, 0x43);
		rb_u64(b, 0x44);
		break;
	case SB_KSYMBOL: {
		unsigned char w[8];
		uint32_t len = 0x180;
		uint16_t type = PERF_RECORD_KSYMBOL_TYPE_BPF;
		uint16_t flags = PERF_RECORD_KSYMBOL_FLAGS_UNREGISTER;

		memcpy(w, &len, 4);
		memcpy(w + 4, &type, 2);
		memcpy(w + 6, &flags, 2);
		rb_init(b, PERF_RECORD_KSYMBOL, PERF_RECORD_MISC_KERNEL);
		rb_u64(b, 0xffffffffc0001000ULL);
		rb_bytes(b, w, 8);
		rb_str(b, "bpf_prog_6deef7357e7b4530");
		break;
	}
	case SB_NR:
		break;
	}
}

static void check_sideband(const struct record *rec, enum sb_kind k, const char *ctx)
{
	switch (k) {
	case SB_MMAP:
		EXPECT_EQ(ctx, rec->kind, RECORD_MMAP);
		EXPECT_EQ(ctx, rec->u.mmap.pid, 10);
		EXPECT_EQ(ctx, rec->u.mmap.tid, 11);
		EXPECT_EQ(ctx, rec->u.mmap.start, 0x400000);
		EXPECT_EQ(ctx, rec->u.mmap.len, 0x2000);
		EXPECT_EQ(ctx, rec->u.mmap.pgoff, 0x1000);
		EXPECT_EQ(ctx, rec->u.mmap.prot & PROT_EXEC, PROT_EXEC);
		EXPECT_EQ(ctx, rec->u.mmap.has_build_id, false);
		ck_assert_str_eq(rec->u.mmap.filename, "/usr/bin/true");
		break;
	case SB_MMAP2:
	case SB_MMAP2_BUILD_ID:
		EXPECT_EQ(ctx, rec->kind, RECORD_MMAP);
		EXPECT_EQ(ctx, rec->type, PERF_RECORD_MMAP2);
		EXPECT_EQ(ctx, rec->u.mmap.pid, 10);
		EXPECT_EQ(ctx, rec->u.mmap.tid, 11);
		EXPECT_EQ(ctx, rec->u.mmap.start, 0x7f0000000000ULL);
		EXPECT_EQ(ctx, rec->u.mmap.len, 0x3000);
		EXPECT_EQ(ctx, rec->u.mmap.pgoff, 0x5000);
		EXPECT_EQ(ctx, rec->u.mmap.prot, PROT_READ | PROT_EXEC);
		EXPECT_EQ(ctx, rec->u.mmap.flags, MAP_PRIVATE);
		ck_assert_str_eq(rec->u.mmap.filename, "/lib/x86_64-linux-gnu/libc.so.6");
		if (k == SB_MMAP2) {
			EXPECT_EQ(ctx, rec->u.mmap.has_build_id, false);
			EXPECT_EQ(ctx, rec->u.mmap.maj, 8);
			EXPECT_EQ(ctx, rec->u.mmap.min, 1);
			EXPECT_EQ(ctx, rec->u.mmap.ino, 123456);
			EXPECT_EQ(ctx, rec->u.mmap.ino_generation, 9);
		} else {
			EXPECT_EQ(ctx, rec->u.mmap.has_build_id, true);
			EXPECT_EQ(ctx, rec->u.mmap.build_id_size, 20);
			ck_assert_mem_eq(rec->u.mmap.build_id, test_build_id, 20);
			EXPECT_EQ(ctx, rec->u.mmap.maj, 0);
			EXPECT_EQ(ctx, rec->u.mmap.ino, 0);
		}
		break;
	case SB_COMM:
	case SB_COMM_EXEC:
		EXPECT_EQ(ctx, rec->kind, RECORD_COMM);
		EXPECT_EQ(ctx, rec->u.comm.pid, 20);
		EXPECT_EQ(ctx, rec->u.comm.tid, 21);
		EXPECT_EQ(ctx, rec->u.comm.exec, k == SB_COMM_EXEC);
		ck_assert_str_eq(rec->u.comm.comm, "proftop-test");
		break;
	case SB_FORK:
	case SB_EXIT:
		EXPECT_EQ(ctx, rec->kind, k == SB_FORK ? RECORD_FORK : RECORD_EXIT);
		EXPECT_EQ(ctx, rec->u.task.pid, 30);
		EXPECT_EQ(ctx, rec->u.task.ppid, 31);
		EXPECT_EQ(ctx, rec->u.task.tid, 32);
		EXPECT_EQ(ctx, rec->u.task.ptid, 33);
		EXPECT_EQ(ctx, rec->u.task.time, 0x7777);
		break;
	case SB_LOST:
		EXPECT_EQ(ctx, rec->kind, RECORD_LOST);
		EXPECT_EQ(ctx, rec->u.lost.id, 0x42);
		EXPECT_EQ(ctx, rec->u.lost.lost, 17);
		break;
	case SB_LOST_SAMPLES:
		EXPECT_EQ(ctx, rec->kind, RECORD_LOST_SAMPLES);
		EXPECT_EQ(ctx, rec->u.lost.lost, 19);
		break;
	case SB_THROTTLE:
	case SB_UNTHROTTLE:
		EXPECT_EQ(ctx, rec->kind, k == SB_THROTTLE ? RECORD_THROTTLE : RECORD_UNTHROTTLE);
		EXPECT_EQ(ctx, rec->u.throttle.time, 0x8888);
		EXPECT_EQ(ctx, rec->u.throttle.id, 0x43);
		EXPECT_EQ(ctx, rec->u.throttle.stream_id, 0x44);
		break;
	case SB_KSYMBOL:
		EXPECT_EQ(ctx, rec->kind, RECORD_KSYMBOL);
		EXPECT_EQ(ctx, rec->u.ksymbol.addr, 0xffffffffc0001000ULL);
		EXPECT_EQ(ctx, rec->u.ksymbol.len, 0x180);
		EXPECT_EQ(ctx, rec->u.ksymbol.ksym_type, PERF_RECORD_KSYMBOL_TYPE_BPF);
		EXPECT_EQ(ctx, rec->u.ksymbol.flags, PERF_RECORD_KSYMBOL_FLAGS_UNREGISTER);
		ck_assert_str_eq(rec->u.ksymbol.name, "bpf_prog_6deef7357e7b4530");
		break;
	case SB_NR:
		break;
	}
}

/* Each side-band kind (the loop index) under every trailer layout. */
START_TEST(test_sideband)
{
	static struct rb b;
	enum sb_kind k = (enum sb_kind)_i;
	size_t c;

	for (c = 0; c < ARRAY_SIZE(sid_cases); c++) {
		struct perf_event_attr attr = { .size = sizeof(attr) };
		struct record rec;
		struct errmsg why = ERRMSG_INIT;
		char ctx[96];

		attr.sample_id_all = sid_cases[c].all;
		attr.sample_type = sid_cases[c].type;
		build_sideband(&b, k);
		rb_sid(&b, &attr);
		rb_done(&b);
		snprintf(ctx, sizeof(ctx), "%s kind %d, sid case %zu",
			 record_type_name(((struct perf_event_header *)b.w)->type), (int)k, c);
		ck_assert_msg(record_decode(rb_done(&b), &attr, &rec, &why) == 0, "%s: %s", ctx,
			      why.text);
		EXPECT_EQ(ctx, rec.size, b.len);
		check_sideband(&rec, k, ctx);
		check_sid(&rec, &attr, ctx);
		check_truncations(&b, &attr, ctx);
	}
}
END_TEST

START_TEST(test_strings_without_nul)
{
	static struct rb b;
	struct perf_event_attr attr = { .size = sizeof(attr) };

	rb_init(&b, PERF_RECORD_COMM, 0);
	rb_u32x2(&b, 1, 1);
	rb_bytes(&b, "abcdefgh", 8);
	rb_done(&b);
	expect_einval(&b, &attr, "comm without NUL");

	/* an empty comm area has no NUL either */
	rb_init(&b, PERF_RECORD_COMM, 0);
	rb_u32x2(&b, 1, 1);
	rb_done(&b);
	expect_einval(&b, &attr, "comm without NUL");

	rb_init(&b, PERF_RECORD_MMAP, 0);
	rb_u32x2(&b, 1, 1);
	rb_u64(&b, 1);
	rb_u64(&b, 2);
	rb_u64(&b, 3);
	rb_bytes(&b, "/usr/lib/libfoo.", 16);
	rb_done(&b);
	expect_einval(&b, &attr, "mmap filename without NUL");

	rb_init(&b, PERF_RECORD_KSYMBOL, 0);
	rb_u64(&b, 1);
	rb_u64(&b, 2);
	rb_bytes(&b, "bpf_prog", 8);
	rb_done(&b);
	expect_einval(&b, &attr, "ksymbol name without NUL");

	/* The NUL sits in the trailer, not in the string area: refused. */
	attr.sample_id_all = 1;
	attr.sample_type = PERF_SAMPLE_TIME;
	rb_init(&b, PERF_RECORD_COMM, 0);
	rb_u32x2(&b, 1, 1);
	rb_bytes(&b, "abcdefgh", 8);
	rb_u64(&b, 0);
	rb_done(&b);
	expect_einval(&b, &attr, "comm without NUL");
}
END_TEST

/* The build-ID flag set over a maj/min/ino body (a kernel bug seen on 6.18
 * when another event asked for build IDs): decoded as dev/inode. */
START_TEST(test_mmap2_bad_build_id_size)
{
	static struct rb b;
	struct perf_event_attr attr = { .size = sizeof(attr) };
	unsigned char u[24] = { 254, 0, 0, 0, 1, 0, 0, 0, 42 };
	struct record rec;
	struct errmsg why = ERRMSG_INIT;

	rb_init(&b, PERF_RECORD_MMAP2, PERF_RECORD_MISC_MMAP_BUILD_ID);
	rb_u32x2(&b, 1, 1);
	rb_u64(&b, 1);
	rb_u64(&b, 2);
	rb_u64(&b, 3);
	rb_bytes(&b, u, sizeof(u));
	rb_u32x2(&b, 0, 0);
	rb_str(&b, "x");
	rb_done(&b);
	ck_assert_int_eq(record_decode(rb_done(&b), &attr, &rec, &why), 0);
	ck_assert(!rec.u.mmap.has_build_id);
	ck_assert_uint_eq(rec.u.mmap.maj, 254);
	ck_assert_uint_eq(rec.u.mmap.min, 1);
	ck_assert_uint_eq(rec.u.mmap.ino, 42);
	ck_assert_str_eq(rec.u.mmap.filename, "x");

	/* Reserved bytes set: not a build ID either, whatever the size byte. */
	u[0] = 8;
	u[1] = 3;
	rb_init(&b, PERF_RECORD_MMAP2, PERF_RECORD_MISC_MMAP_BUILD_ID);
	rb_u32x2(&b, 1, 1);
	rb_u64(&b, 1);
	rb_u64(&b, 2);
	rb_u64(&b, 3);
	rb_bytes(&b, u, sizeof(u));
	rb_u32x2(&b, 0, 0);
	rb_str(&b, "x");
	ck_assert_int_eq(record_decode(rb_done(&b), &attr, &rec, &why), 0);
	ck_assert(!rec.u.mmap.has_build_id);
	ck_assert_uint_eq(rec.u.mmap.maj, 0x308);
}
END_TEST

/* record_time: the TIME field of a sample and of a side-band trailer. */
START_TEST(test_record_time)
{
	static struct rb b;
	struct perf_event_attr attr = { .size = sizeof(attr), .sample_id_all = 1 };

	attr.sample_type = PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID |
			   PERF_SAMPLE_TIME | PERF_SAMPLE_CPU;
	rb_init(&b, PERF_RECORD_SAMPLE, 0);
	rb_u64(&b, 7);       /* identifier */
	rb_u64(&b, 0x1234);  /* ip */
	rb_u32x2(&b, 1, 2);  /* pid, tid */
	rb_u64(&b, 5555);    /* time */
	rb_u32x2(&b, 1, 0);  /* cpu */
	ck_assert_uint_eq(record_time(rb_done(&b), &attr), 5555);

	rb_init(&b, PERF_RECORD_COMM, 0);
	rb_u32x2(&b, 1, 1);
	rb_str(&b, "x");
	rb_u32x2(&b, 1, 1);  /* tid */
	rb_u64(&b, 6666);    /* time */
	rb_u32x2(&b, 0, 0);  /* cpu */
	rb_u64(&b, 7);       /* identifier */
	ck_assert_uint_eq(record_time(rb_done(&b), &attr), 6666);

	attr.sample_type &= ~(uint64_t)PERF_SAMPLE_TIME;
	ck_assert_uint_eq(record_time(rb_done(&b), &attr), 0);
}
END_TEST

/* ---- headers, other record types, names ---- */

START_TEST(test_header_checks)
{
	static struct rb b;
	struct perf_event_attr attr = { .size = sizeof(attr) };
	struct record rec;
	struct errmsg why = ERRMSG_INIT;

	rb_init(&b, PERF_RECORD_SAMPLE, 0);
	rb_u64(&b, 1);
	rb_u64(&b, 2);
	rb_done(&b);
	attr.sample_type = PERF_SAMPLE_IP;
	/* misaligned: decode 4 bytes in, where the header is readable */
	ck_assert_int_eq(record_decode((const void *)((char *)b.w + 4), &attr, &rec, &why),
			 -EINVAL);
	ck_assert_str_eq(why.text, "record not 8-byte aligned");

	((struct perf_event_header *)b.w)->size = 4;
	ck_assert_int_eq(record_decode((const void *)b.w, &attr, &rec, &why), -EINVAL);
	ck_assert_str_eq(why.text, "record smaller than its header");

	((struct perf_event_header *)b.w)->size = 20;
	ck_assert_int_eq(record_decode((const void *)b.w, &attr, &rec, &why), -EINVAL);
	ck_assert_str_eq(why.text, "record size not a multiple of 8");

	/* size < 8 is refused for perf's own types too */
	rb_init(&b, 68, 0);
	((struct perf_event_header *)b.w)->size = 0;
	ck_assert_int_eq(record_decode((const void *)b.w, &attr, &rec, NULL), -EINVAL);

	/* why may be NULL */
	((struct perf_event_header *)b.w)->size = 3;
	ck_assert_int_eq(record_decode((const void *)b.w, &attr, &rec, NULL), -EINVAL);
}
END_TEST

START_TEST(test_other_types)
{
	static struct rb b;
	struct perf_event_attr attr = { .size = sizeof(attr) };
	struct record rec;

	attr.sample_id_all = 1;
	attr.sample_type = PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_IP;

	/* FINISHED_ROUND: header only, no trailer even with sample_id_all */
	rb_init(&b, 68, 0);
	ck_assert_int_eq(record_decode(rb_done(&b), &attr, &rec, NULL), 0);
	ck_assert_int_eq(rec.kind, RECORD_OTHER);
	ck_assert_uint_eq(rec.type, 68);
	ck_assert(!rec.has_sid);

	/* COMPRESSED: perf's records may have odd sizes */
	rb_init(&b, 81, 0);
	b.len = 13;
	ck_assert_int_eq(record_decode(rb_done(&b), &attr, &rec, NULL), 0);
	ck_assert_int_eq(rec.kind, RECORD_OTHER);

	/* SWITCH: nothing but the trailer, which is still parsed */
	rb_init(&b, PERF_RECORD_SWITCH, PERF_RECORD_MISC_SWITCH_OUT);
	rb_sid(&b, &attr);
	ck_assert_int_eq(record_decode(rb_done(&b), &attr, &rec, NULL), 0);
	ck_assert_int_eq(rec.kind, RECORD_OTHER);
	check_sid(&rec, &attr, "SWITCH");

	/* AUX: body then trailer */
	rb_init(&b, PERF_RECORD_AUX, 0);
	rb_u64(&b, 1);
	rb_u64(&b, 2);
	rb_u64(&b, 3);
	rb_sid(&b, &attr);
	ck_assert_int_eq(record_decode(rb_done(&b), &attr, &rec, NULL), 0);
	ck_assert_int_eq(rec.kind, RECORD_OTHER);
	check_sid(&rec, &attr, "AUX");

	/* a SWITCH too short for its trailer: no sid, and no read past it */
	rb_init(&b, PERF_RECORD_SWITCH, 0);
	rb_u64(&b, 5);
	rb_done(&b);
	ck_assert_int_eq(record_decode(rb_done(&b), &attr, &rec, NULL), 0);
	ck_assert_int_eq(rec.kind, RECORD_OTHER);
	ck_assert(!rec.has_sid);
	ck_assert_uint_eq(rec.sid.time, 0);
	ck_assert_int_eq(decode_copy(&b, b.len, &attr, NULL), 0);

	/* an unknown kernel type */
	rb_init(&b, 50, 0);
	rb_sid(&b, &attr);
	ck_assert_int_eq(record_decode(rb_done(&b), &attr, &rec, NULL), 0);
	ck_assert_int_eq(rec.kind, RECORD_OTHER);
	check_sid(&rec, &attr, "type 50");
}
END_TEST

START_TEST(test_sample_id_size)
{
	struct perf_event_attr attr = { .size = sizeof(attr) };

	attr.sample_type = PERF_SAMPLE_TID | PERF_SAMPLE_TIME;
	ck_assert_uint_eq(record_sample_id_size(&attr), 0);
	attr.sample_id_all = 1;
	ck_assert_uint_eq(record_sample_id_size(&attr), 16);
	attr.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_CALLCHAIN | PERF_SAMPLE_PERIOD |
			   PERF_SAMPLE_RAW | PERF_SAMPLE_ADDR;
	ck_assert_uint_eq(record_sample_id_size(&attr), 0);
	attr.sample_type = PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_ID |
			   PERF_SAMPLE_STREAM_ID | PERF_SAMPLE_CPU | PERF_SAMPLE_IDENTIFIER |
			   PERF_SAMPLE_IP;
	ck_assert_uint_eq(record_sample_id_size(&attr), 48);
}
END_TEST

START_TEST(test_type_names)
{
	ck_assert_str_eq(record_type_name(PERF_RECORD_SAMPLE), "SAMPLE");
	ck_assert_str_eq(record_type_name(PERF_RECORD_MMAP), "MMAP");
	ck_assert_str_eq(record_type_name(PERF_RECORD_MMAP2), "MMAP2");
	ck_assert_str_eq(record_type_name(PERF_RECORD_LOST_SAMPLES), "LOST_SAMPLES");
	ck_assert_str_eq(record_type_name(PERF_RECORD_KSYMBOL), "KSYMBOL");
	ck_assert_str_eq(record_type_name(PERF_RECORD_TEXT_POKE), "TEXT_POKE");
	ck_assert_str_eq(record_type_name(PERF_RECORD_AUX_OUTPUT_HW_ID), "AUX_OUTPUT_HW_ID");
	ck_assert_str_eq(record_type_name(64), "HEADER_ATTR");
	ck_assert_str_eq(record_type_name(68), "FINISHED_ROUND");
	ck_assert_str_eq(record_type_name(73), "THREAD_MAP");
	ck_assert_str_eq(record_type_name(79), "TIME_CONV");
	ck_assert_str_eq(record_type_name(80), "HEADER_FEATURE");
	ck_assert_str_eq(record_type_name(82), "FINISHED_INIT");
	ck_assert_str_eq(record_type_name(83), "COMPRESSED2");
	ck_assert_str_eq(record_type_name(0), "UNKNOWN");
	ck_assert_str_eq(record_type_name(40), "UNKNOWN");
	ck_assert_str_eq(record_type_name(63), "UNKNOWN");
	ck_assert_str_eq(record_type_name(84), "UNKNOWN");
	ck_assert_str_eq(record_type_name(UINT32_MAX), "UNKNOWN");
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("record");
	TCase *tc;

	tc = tcase_create("sample_subsets");
	tcase_set_timeout(tc, 120); /* valgrind */
	tcase_add_test(tc, test_sample_all_subsets);
	tcase_add_test(tc, test_sample_period_default);
	suite_add_tcase(s, tc);

	tc = tcase_create("sample_read");
	tcase_add_test(tc, test_sample_read);
	tcase_add_test(tc, test_sample_read_group_nr_huge);
	suite_add_tcase(s, tc);

	tc = tcase_create("sample_tail");
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_sample_tail_fields);
	tcase_add_test(tc, test_sample_single_tail_fields);
	tcase_add_test(tc, test_regs_stack_bad);
	suite_add_tcase(s, tc);

	tc = tcase_create("lying_lengths");
	tcase_add_test(tc, test_callchain_nr_huge);
	tcase_add_test(tc, test_raw_size_huge);
	tcase_add_test(tc, test_other_sizes_huge);
	tcase_add_test(tc, test_strings_without_nul);
	tcase_add_test(tc, test_mmap2_bad_build_id_size);
	tcase_add_test(tc, test_record_time);
	suite_add_tcase(s, tc);

	tc = tcase_create("sideband");
	tcase_add_loop_test(tc, test_sideband, 0, SB_NR);
	suite_add_tcase(s, tc);

	tc = tcase_create("misc");
	tcase_add_test(tc, test_header_checks);
	tcase_add_test(tc, test_other_types);
	tcase_add_test(tc, test_sample_id_size);
	tcase_add_test(tc, test_type_names);
	suite_add_tcase(s, tc);

	return s;
}

int main(void)
{
	return testutil_run(suite()) != 0;
}
