/* Decoding of perf records into samples and side-band events.  Nothing here
 * trusts a length taken from the record: every field is bounds-checked. */
#include "config.h"

#include "record.h"

#include <errno.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>

#include "errmsg.h"
#include "util.h"

/* Bits added to the ABI after the installed <linux/perf_event.h> was cut. */
#ifndef PERF_SAMPLE_BRANCH_COUNTERS
#define PERF_SAMPLE_BRANCH_COUNTERS (1U << 19)
#endif
#ifndef PERF_FORMAT_LOST
#define PERF_FORMAT_LOST (1U << 4)
#endif

/* The sample_type bits that make up the sample_id_all trailer. */
#define SID_BITS                                                                       \
	(PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_ID | PERF_SAMPLE_STREAM_ID | \
	 PERF_SAMPLE_CPU | PERF_SAMPLE_IDENTIFIER)

/* Kernel record types stop well below this; perf's own start here. */
#define RECORD_USER_TYPE_START 64

/* A cursor over the u64 words of a record body: p is the next word, end the
 * first word past the part being parsed.  Counts are in words so that no
 * comparison involving a record-supplied length can overflow. */
struct cursor {
	const uint64_t *base;
	size_t p, end;
};

static size_t cur_left(const struct cursor *c)
{
	return c->end - c->p;
}

/* Take one u64; false if the record ends first. */
static bool cur_u64(struct cursor *c, uint64_t *v)
{
	if (c->p >= c->end)
		return false;
	*v = c->base[c->p++];
	return true;
}

/* Split one word into two u32 as laid out in memory (pid then tid, ...),
 * independent of byte order. */
static bool cur_u32x2(struct cursor *c, uint32_t *a, uint32_t *b)
{
	const unsigned char *w;

	if (c->p >= c->end)
		return false;
	w = (const unsigned char *)&c->base[c->p++];
	memcpy(a, w, 4);
	memcpy(b, w + 4, 4);
	return true;
}

/* Skip n words; false if fewer are left. */
static bool cur_skip(struct cursor *c, uint64_t n)
{
	if (n > cur_left(c))
		return false;
	c->p += n;
	return true;
}

/* Words needed to hold n bytes (n may come from the record, so no
 * overflowing round-up). */
static uint64_t words_for(uint64_t bytes)
{
	return bytes / 8 + (bytes % 8 != 0);
}

/* Only on failure, out of line: the decoder's hot path never formats. */
static __attribute__((cold, noinline)) int fail(struct errmsg *em, const char *msg)
{
	return errmsg_set(em, -EINVAL, "%s", msg);
}

size_t record_sample_id_size(const struct perf_event_attr *attr)
{
	uint64_t t = attr->sample_type;
	size_t n = 0;

	if (!attr->sample_id_all)
		return 0;
	n += !!(t & PERF_SAMPLE_TID);
	n += !!(t & PERF_SAMPLE_TIME);
	n += !!(t & PERF_SAMPLE_ID);
	n += !!(t & PERF_SAMPLE_STREAM_ID);
	n += !!(t & PERF_SAMPLE_CPU);
	n += !!(t & PERF_SAMPLE_IDENTIFIER);
	return n * 8;
}

uint64_t record_time(const struct perf_event_header *hdr, const struct perf_event_attr *attr)
{
	uint64_t t = attr->sample_type, time;
	size_t off;

	if (!(t & PERF_SAMPLE_TIME) || hdr->size < sizeof(*hdr))
		return 0;
	if (hdr->type == PERF_RECORD_SAMPLE) {
		off = sizeof(*hdr) + 8 * (!!(t & PERF_SAMPLE_IDENTIFIER) + !!(t & PERF_SAMPLE_IP) +
					   !!(t & PERF_SAMPLE_TID));
	} else {
		size_t after;

		if (!attr->sample_id_all || hdr->type >= PERF_RECORD_MAX)
			return 0;
		/* TIME, then ID, STREAM_ID, CPU, IDENTIFIER at the very end. */
		after = 8 * (1 + !!(t & PERF_SAMPLE_ID) + !!(t & PERF_SAMPLE_STREAM_ID) +
			     !!(t & PERF_SAMPLE_CPU) + !!(t & PERF_SAMPLE_IDENTIFIER));
		if (hdr->size < sizeof(*hdr) + after)
			return 0;
		off = hdr->size - after;
	}
	if (off + 8 > hdr->size)
		return 0;
	memcpy(&time, (const char *)hdr + off, 8);
	return time;
}

/* Parse the sample_id_all trailer, which occupies exactly the cursor's
 * range.  When both ID and IDENTIFIER are present they hold the same value;
 * IDENTIFIER is the one taken since its position is the reliable one. */
static void parse_sid_trailer(struct cursor *c, uint64_t t, struct sample_id *sid)
{
	uint64_t v;
	uint32_t res;

	/* The caller sized the range from sample_type: reads cannot fail. */
	if (t & PERF_SAMPLE_TID)
		cur_u32x2(c, &sid->pid, &sid->tid);
	if (t & PERF_SAMPLE_TIME)
		cur_u64(c, &sid->time);
	if (t & PERF_SAMPLE_ID)
		cur_u64(c, &sid->id);
	if (t & PERF_SAMPLE_STREAM_ID)
		cur_u64(c, &sid->stream_id);
	if (t & PERF_SAMPLE_CPU)
		cur_u32x2(c, &sid->cpu, &res);
	if ((t & PERF_SAMPLE_IDENTIFIER) && cur_u64(c, &v))
		sid->id = v;
}

/* Words taken by a struct read_format for this read_format, the group
 * count aside. */
static int skip_read_format(struct cursor *c, uint64_t fmt, struct errmsg *em)
{
	uint64_t nr, per = 1, hdr = 0;

	if (fmt & PERF_FORMAT_ID)
		per++;
	if (fmt & PERF_FORMAT_LOST)
		per++;
	if (fmt & PERF_FORMAT_TOTAL_TIME_ENABLED)
		hdr++;
	if (fmt & PERF_FORMAT_TOTAL_TIME_RUNNING)
		hdr++;
	if (!(fmt & PERF_FORMAT_GROUP)) {
		if (!cur_skip(c, per + hdr))
			return fail(em, "read values larger than the record");
		return 0;
	}
	if (!cur_u64(c, &nr) || !cur_skip(c, hdr))
		return fail(em, "read group header larger than the record");
	if (nr > cur_left(c) / per || !cur_skip(c, nr * per))
		return fail(em, "read group nr larger than the record");
	return 0;
}

/* abi, then one word per bit of mask unless abi is NONE.  *regs points at
 * those words (NULL with NONE). */
static int parse_regs(struct cursor *c, uint64_t mask, uint64_t *abi, const uint64_t **regs,
		      uint32_t *nr, struct errmsg *em)
{
	uint64_t n = (uint64_t)__builtin_popcountll(mask);

	*regs = NULL;
	*nr = 0;
	if (!cur_u64(c, abi))
		return fail(em, "regs abi beyond the record");
	if (*abi == PERF_SAMPLE_REGS_ABI_NONE)
		return 0;
	if (!cur_skip(c, n))
		return fail(em, "regs larger than the record");
	/* An abi from a newer kernel: the words are skipped, not used. */
	if (*abi == PERF_SAMPLE_REGS_ABI_32 || *abi == PERF_SAMPLE_REGS_ABI_64) {
		*regs = c->base + c->p - n;
		*nr = (uint32_t)n;
	}
	return 0;
}

static int decode_sample(struct cursor *c, const struct perf_event_header *hdr,
			 const struct perf_event_attr *attr, struct sample *s, struct errmsg *em)
{
	uint64_t t = attr->sample_type;
	uint64_t v, nr;
	uint32_t res;

	s->cpumode = hdr->misc & PERF_RECORD_MISC_CPUMODE_MASK;
	s->exact_ip = !!(hdr->misc & PERF_RECORD_MISC_EXACT_IP);
	/* Without PERIOD every sample stands for the fixed period; in
	 * frequency mode the period varies and is unknown, so count 1. */
	s->period = (attr->freq || !attr->sample_period) ? 1 : attr->sample_period;

	if (t & PERF_SAMPLE_IDENTIFIER) {
		if (!cur_u64(c, &s->sid.id))
			return fail(em, "sample identifier beyond the record");
	}
	if ((t & PERF_SAMPLE_IP) && !cur_u64(c, &s->ip))
		return fail(em, "sample ip beyond the record");
	if ((t & PERF_SAMPLE_TID) && !cur_u32x2(c, &s->sid.pid, &s->sid.tid))
		return fail(em, "sample pid/tid beyond the record");
	if ((t & PERF_SAMPLE_TIME) && !cur_u64(c, &s->sid.time))
		return fail(em, "sample time beyond the record");
	if ((t & PERF_SAMPLE_ADDR) && !cur_u64(c, &s->addr))
		return fail(em, "sample addr beyond the record");
	if (t & PERF_SAMPLE_ID) {
		if (!cur_u64(c, &v))
			return fail(em, "sample id beyond the record");
		/* IDENTIFIER, when present, already holds the same id. */
		if (!(t & PERF_SAMPLE_IDENTIFIER))
			s->sid.id = v;
	}
	if ((t & PERF_SAMPLE_STREAM_ID) && !cur_u64(c, &s->sid.stream_id))
		return fail(em, "sample stream_id beyond the record");
	if ((t & PERF_SAMPLE_CPU) && !cur_u32x2(c, &s->sid.cpu, &res))
		return fail(em, "sample cpu beyond the record");
	if ((t & PERF_SAMPLE_PERIOD) && !cur_u64(c, &s->period))
		return fail(em, "sample period beyond the record");
	if ((t & PERF_SAMPLE_READ) && skip_read_format(c, attr->read_format, em))
		return -EINVAL;
	if (t & PERF_SAMPLE_CALLCHAIN) {
		if (!cur_u64(c, &nr))
			return fail(em, "callchain nr beyond the record");
		if (nr > cur_left(c))
			return fail(em, "callchain nr larger than the record");
		s->callchain = c->base + c->p;
		s->nr_callchain = nr;
		c->p += nr;
	}
	if (t & PERF_SAMPLE_RAW) {
		const unsigned char *w;
		uint32_t size;

		if (c->p >= c->end)
			return fail(em, "raw size beyond the record");
		w = (const unsigned char *)(c->base + c->p);
		memcpy(&size, w, 4);
		/* The u32 size and the data are padded to whole words. */
		if (!cur_skip(c, words_for(4 + (uint64_t)size)))
			return fail(em, "raw size larger than the record");
		s->raw = w + 4;
		s->raw_size = size;
	}
	if (t & PERF_SAMPLE_BRANCH_STACK) {
		uint64_t per = 3;

		if (!cur_u64(c, &nr))
			return fail(em, "branch nr beyond the record");
		if ((attr->branch_sample_type & PERF_SAMPLE_BRANCH_HW_INDEX) && !cur_skip(c, 1))
			return fail(em, "branch hw_idx beyond the record");
		/* Newer kernels append one counter word per entry. */
		if (attr->branch_sample_type & PERF_SAMPLE_BRANCH_COUNTERS)
			per++;
		if (nr > cur_left(c) / per)
			return fail(em, "branch nr larger than the record");
		c->p += nr * per;
		s->nr_branches = nr;
	}
	if ((t & PERF_SAMPLE_REGS_USER) &&
	    parse_regs(c, attr->sample_regs_user, &s->regs_abi, &s->regs, &s->nr_regs, em))
		return -EINVAL;
	if (t & PERF_SAMPLE_STACK_USER) {
		const unsigned char *data;
		uint64_t size, dyn;

		if (!cur_u64(c, &size))
			return fail(em, "user stack size beyond the record");
		data = (const unsigned char *)(c->base + c->p);
		if (!cur_skip(c, words_for(size)))
			return fail(em, "user stack size larger than the record");
		/* dyn_size follows only a non-empty stack dump. */
		if (size) {
			if (!cur_u64(c, &dyn))
				return fail(em, "user stack dyn_size beyond the record");
			if (dyn > size)
				return fail(em, "user stack dyn_size larger than its copy");
			s->stack = data;
			s->stack_size = dyn;
		}
	}
	if ((t & (PERF_SAMPLE_WEIGHT | PERF_SAMPLE_WEIGHT_STRUCT)) && !cur_u64(c, &s->weight))
		return fail(em, "sample weight beyond the record");
	if ((t & PERF_SAMPLE_DATA_SRC) && !cur_u64(c, &s->data_src))
		return fail(em, "sample data_src beyond the record");
	if ((t & PERF_SAMPLE_TRANSACTION) && !cur_u64(c, &s->transaction))
		return fail(em, "sample transaction beyond the record");
	if (t & PERF_SAMPLE_REGS_INTR) {
		uint64_t abi;
		const uint64_t *regs;
		uint32_t nregs;

		if (parse_regs(c, attr->sample_regs_intr, &abi, &regs, &nregs, em))
			return -EINVAL;
	}
	if ((t & PERF_SAMPLE_PHYS_ADDR) && !cur_u64(c, &s->phys_addr))
		return fail(em, "sample phys_addr beyond the record");
	if ((t & PERF_SAMPLE_CGROUP) && !cur_u64(c, &s->cgroup))
		return fail(em, "sample cgroup beyond the record");
	if ((t & PERF_SAMPLE_DATA_PAGE_SIZE) && !cur_u64(c, &s->data_page_size))
		return fail(em, "sample data_page_size beyond the record");
	if ((t & PERF_SAMPLE_CODE_PAGE_SIZE) && !cur_u64(c, &s->code_page_size))
		return fail(em, "sample code_page_size beyond the record");
	if (t & PERF_SAMPLE_AUX) {
		uint64_t size;

		if (!cur_u64(c, &size))
			return fail(em, "aux size beyond the record");
		if (!cur_skip(c, words_for(size)))
			return fail(em, "aux size larger than the record");
	}
	/* Trailing words are tolerated: they can only be fields of a newer
	 * kernel that this decoder does not know. */
	return 0;
}

/* A string that runs from word p to the end of the cursor's range; it must
 * end with a NUL inside that range. */
static const char *cur_string(struct cursor *c)
{
	const char *s = (const char *)(c->base + c->p);
	size_t n = cur_left(c) * 8;

	if (!n || !memchr(s, '\0', n))
		return NULL;
	c->p = c->end;
	return s;
}

static int decode_mmap(struct cursor *c, const struct perf_event_header *hdr, struct mmap_event *m,
		       struct errmsg *em)
{
	/* pid/tid, start, len, pgoff: 4 words, +4 for MMAP2's id and prot. */
	size_t fixed = hdr->type == PERF_RECORD_MMAP2 ? 7 : 4;

	if (cur_left(c) < fixed)
		return fail(em, "mmap record shorter than its fixed fields");
	cur_u32x2(c, &m->pid, &m->tid);
	cur_u64(c, &m->start);
	cur_u64(c, &m->len);
	cur_u64(c, &m->pgoff);
	if (hdr->type == PERF_RECORD_MMAP2) {
		const unsigned char *w = (const unsigned char *)(c->base + c->p);

		/* Some kernels (seen on 6.18) set the build-ID flag on every
		 * event's MMAP2 once any event asked for build IDs, while the
		 * body of the others still holds maj/min/ino: a size above 20
		 * or non-zero reserved bytes mean it is not a build ID. */
		if ((hdr->misc & PERF_RECORD_MISC_MMAP_BUILD_ID) &&
		    w[0] <= sizeof(m->build_id) && w[1] == 0 && w[2] == 0 && w[3] == 0) {
			m->has_build_id = true;
			m->build_id_size = w[0];
			memcpy(m->build_id, w + 4, sizeof(m->build_id));
			c->p += 3;
		} else {
			cur_u32x2(c, &m->maj, &m->min);
			cur_u64(c, &m->ino);
			cur_u64(c, &m->ino_generation);
		}
		cur_u32x2(c, &m->prot, &m->flags);
	} else {
		/* Plain MMAP only reports executable mappings unless the
		 * attr asked for data mappings too. */
		m->prot = (hdr->misc & PERF_RECORD_MISC_MMAP_DATA) ? PROT_READ :
								     PROT_READ | PROT_EXEC;
	}
	m->filename = cur_string(c);
	if (!m->filename)
		return fail(em, "mmap filename without NUL");
	return 0;
}

static int decode_body(struct cursor *c, const struct perf_event_header *hdr, struct record *out,
		       struct errmsg *em)
{
	switch (hdr->type) {
	case PERF_RECORD_MMAP:
	case PERF_RECORD_MMAP2:
		out->kind = RECORD_MMAP;
		return decode_mmap(c, hdr, &out->u.mmap, em);
	case PERF_RECORD_COMM:
		out->kind = RECORD_COMM;
		if (!cur_u32x2(c, &out->u.comm.pid, &out->u.comm.tid))
			return fail(em, "comm record shorter than pid/tid");
		out->u.comm.exec = !!(hdr->misc & PERF_RECORD_MISC_COMM_EXEC);
		out->u.comm.comm = cur_string(c);
		if (!out->u.comm.comm)
			return fail(em, "comm without NUL");
		return 0;
	case PERF_RECORD_FORK:
	case PERF_RECORD_EXIT: {
		struct task_event *te = &out->u.task;

		out->kind = hdr->type == PERF_RECORD_FORK ? RECORD_FORK : RECORD_EXIT;
		if (cur_left(c) < 3)
			return fail(em, "fork/exit record too short");
		cur_u32x2(c, &te->pid, &te->ppid);
		cur_u32x2(c, &te->tid, &te->ptid);
		cur_u64(c, &te->time);
		return 0;
	}
	case PERF_RECORD_LOST:
		out->kind = RECORD_LOST;
		if (!cur_u64(c, &out->u.lost.id) || !cur_u64(c, &out->u.lost.lost))
			return fail(em, "lost record too short");
		return 0;
	case PERF_RECORD_LOST_SAMPLES:
		out->kind = RECORD_LOST_SAMPLES;
		if (!cur_u64(c, &out->u.lost.lost))
			return fail(em, "lost_samples record too short");
		return 0;
	case PERF_RECORD_THROTTLE:
	case PERF_RECORD_UNTHROTTLE: {
		struct throttle_event *th = &out->u.throttle;

		out->kind = hdr->type == PERF_RECORD_THROTTLE ? RECORD_THROTTLE : RECORD_UNTHROTTLE;
		if (!cur_u64(c, &th->time) || !cur_u64(c, &th->id) || !cur_u64(c, &th->stream_id))
			return fail(em, "throttle record too short");
		return 0;
	}
	case PERF_RECORD_KSYMBOL: {
		struct ksymbol_event *k = &out->u.ksymbol;
		const unsigned char *w;

		out->kind = RECORD_KSYMBOL;
		if (cur_left(c) < 2)
			return fail(em, "ksymbol record too short");
		cur_u64(c, &k->addr);
		w = (const unsigned char *)(c->base + c->p++);
		memcpy(&k->len, w, 4);
		memcpy(&k->ksym_type, w + 4, 2);
		memcpy(&k->flags, w + 6, 2);
		k->name = cur_string(c);
		if (!k->name)
			return fail(em, "ksymbol name without NUL");
		return 0;
	}
	default:
		out->kind = RECORD_OTHER;
		return 0;
	}
}

int record_decode(const struct perf_event_header *hdr, const struct perf_event_attr *attr,
		  struct record *out, struct errmsg *em)
{
	struct cursor c;
	size_t sid_words;

	memset(out, 0, sizeof(*out));
	if ((uintptr_t)hdr % 8)
		return fail(em, "record not 8-byte aligned");
	out->type = hdr->type;
	out->misc = hdr->misc;
	out->size = hdr->size;
	if (hdr->size < sizeof(*hdr))
		return fail(em, "record smaller than its header");
	if (hdr->type >= RECORD_USER_TYPE_START) {
		/* perf's own records need not be whole words (COMPRESSED)
		 * and never carry a sample_id trailer. */
		out->kind = RECORD_OTHER;
		return 0;
	}
	/* The kernel pads every record to whole words; anything else would
	 * misplace the trailer and the u64 fields. */
	if (hdr->size % 8)
		return fail(em, "record size not a multiple of 8");

	c.base = (const uint64_t *)(hdr + 1);
	c.p = 0;
	c.end = (hdr->size - sizeof(*hdr)) / 8;

	if (hdr->type == PERF_RECORD_SAMPLE) {
		out->kind = RECORD_SAMPLE;
		if (decode_sample(&c, hdr, attr, &out->u.sample, em))
			return -EINVAL;
		out->sid = out->u.sample.sid;
		/* has_sid: the sid fields mean something for this attr. */
		out->has_sid = !!(attr->sample_type & SID_BITS);
		return 0;
	}

	sid_words = record_sample_id_size(attr) / 8;
	if (sid_words > c.end) {
		/* Too short for its own trailer: fatal for records whose
		 * fields we hand out, ignorable for the others. */
		out->kind = RECORD_OTHER;
		switch (hdr->type) {
		case PERF_RECORD_MMAP:
		case PERF_RECORD_MMAP2:
		case PERF_RECORD_COMM:
		case PERF_RECORD_FORK:
		case PERF_RECORD_EXIT:
		case PERF_RECORD_LOST:
		case PERF_RECORD_LOST_SAMPLES:
		case PERF_RECORD_THROTTLE:
		case PERF_RECORD_UNTHROTTLE:
		case PERF_RECORD_KSYMBOL:
			return fail(em, "record shorter than its sample_id trailer");
		}
		return 0;
	}
	if (sid_words) {
		struct cursor tc = { c.base, c.end - sid_words, c.end };

		parse_sid_trailer(&tc, attr->sample_type, &out->sid);
		out->has_sid = true;
		c.end -= sid_words;
	}
	return decode_body(&c, hdr, out, em);
}

static const char *const kernel_names[] = {
	[PERF_RECORD_MMAP] = "MMAP",
	[PERF_RECORD_LOST] = "LOST",
	[PERF_RECORD_COMM] = "COMM",
	[PERF_RECORD_EXIT] = "EXIT",
	[PERF_RECORD_THROTTLE] = "THROTTLE",
	[PERF_RECORD_UNTHROTTLE] = "UNTHROTTLE",
	[PERF_RECORD_FORK] = "FORK",
	[PERF_RECORD_READ] = "READ",
	[PERF_RECORD_SAMPLE] = "SAMPLE",
	[PERF_RECORD_MMAP2] = "MMAP2",
	[11] = "AUX",
	[12] = "ITRACE_START",
	[13] = "LOST_SAMPLES",
	[14] = "SWITCH",
	[15] = "SWITCH_CPU_WIDE",
	[16] = "NAMESPACES",
	[17] = "KSYMBOL",
	[18] = "BPF_EVENT",
	[19] = "CGROUP",
	[20] = "TEXT_POKE",
	[21] = "AUX_OUTPUT_HW_ID",
	[22] = "CALLCHAIN_DEFERRED",
};

/* perf's synthesized records, numbered from 64 (tools/perf/util/event.h). */
static const char *const user_names[] = {
	"HEADER_ATTR",
	"HEADER_EVENT_TYPE",
	"HEADER_TRACING_DATA",
	"HEADER_BUILD_ID",
	"FINISHED_ROUND",
	"ID_INDEX",
	"AUXTRACE_INFO",
	"AUXTRACE",
	"AUXTRACE_ERROR",
	"THREAD_MAP",
	"CPU_MAP",
	"STAT_CONFIG",
	"STAT",
	"STAT_ROUND",
	"EVENT_UPDATE",
	"TIME_CONV",
	"HEADER_FEATURE",
	"COMPRESSED",
	"FINISHED_INIT",
	"COMPRESSED2",
};

const char *record_type_name(uint32_t type)
{
	if (type < ARRAY_SIZE(kernel_names) && kernel_names[type])
		return kernel_names[type];
	if (type >= RECORD_USER_TYPE_START &&
	    type - RECORD_USER_TYPE_START < ARRAY_SIZE(user_names))
		return user_names[type - RECORD_USER_TYPE_START];
	return "UNKNOWN";
}
