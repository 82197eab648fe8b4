/* Decoding of perf records (kernel ring records and perf.data records) into
 * samples and side-band events.  Native byte order; every length checked.
 *
 * The record must be contiguous and 8-byte aligned in memory (the ring reader
 * copies out records that wrap; the file reader swaps and aligns).  Pointers in
 * the decoded structs (callchain, raw, filename, comm) point into the record
 * and are valid only as long as it is. */
#ifndef PROFTOP_RECORD_H
#define PROFTOP_RECORD_H

#include <linux/perf_event.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct errmsg;

/* Fields of the sample_id_all trailer (and the matching sample fields). */
struct sample_id {
	uint32_t pid, tid;   /* valid when sample_type has TID */
	uint64_t time;       /* TIME */
	uint64_t id;         /* ID or IDENTIFIER */
	uint64_t stream_id;  /* STREAM_ID */
	uint32_t cpu;        /* CPU */
};

struct sample {
	struct sample_id sid;
	uint16_t cpumode;            /* header.misc & PERF_RECORD_MISC_CPUMODE_MASK */
	bool exact_ip;               /* PERF_RECORD_MISC_EXACT_IP */
	uint64_t ip;                 /* IP */
	uint64_t addr;               /* ADDR */
	uint64_t period;             /* PERIOD; 1 when the attr has no PERIOD bit */
	const uint64_t *callchain;   /* CALLCHAIN: nr entries, with PERF_CONTEXT_* markers */
	uint64_t nr_callchain;
	const void *raw;             /* RAW payload (may be unaligned for the reader) */
	uint32_t raw_size;
	uint64_t weight;             /* WEIGHT or WEIGHT_STRUCT low 64 bits */
	uint64_t data_src;           /* DATA_SRC */
	uint64_t transaction;        /* TRANSACTION */
	uint64_t phys_addr;          /* PHYS_ADDR */
	uint64_t cgroup;             /* CGROUP */
	uint64_t data_page_size;     /* DATA_PAGE_SIZE */
	uint64_t code_page_size;     /* CODE_PAGE_SIZE */
	uint64_t nr_branches;        /* BRANCH_STACK entries (not decoded further) */
	/* REGS_USER: abi is PERF_SAMPLE_REGS_ABI_* (NONE: no registers, a
	 * kernel thread); regs holds one word per bit set in the attr's
	 * sample_regs_user, lowest bit first. */
	uint64_t regs_abi;
	const uint64_t *regs;
	uint32_t nr_regs;
	/* STACK_USER: the copy of the user stack from the sampled sp up;
	 * stack_size is the part the kernel filled (dyn_size, at most the
	 * copy's size).  Bytes in the recorded machine's order. */
	const unsigned char *stack;
	uint64_t stack_size;
};

struct mmap_event {
	uint32_t pid, tid;
	uint64_t start, len, pgoff;
	bool has_build_id;           /* PERF_RECORD_MISC_MMAP_BUILD_ID */
	uint8_t build_id[20];
	uint8_t build_id_size;
	uint32_t maj, min;           /* when !has_build_id (MMAP2 only) */
	uint64_t ino, ino_generation;
	uint32_t prot, flags;        /* MMAP2 only; PROT_EXEC assumed for MMAP */
	const char *filename;        /* NUL-terminated inside the record */
};

struct comm_event {
	uint32_t pid, tid;
	bool exec;                   /* PERF_RECORD_MISC_COMM_EXEC */
	const char *comm;
};

struct task_event {                  /* FORK and EXIT */
	uint32_t pid, ppid, tid, ptid;
	uint64_t time;
};

struct lost_event {                  /* LOST (id, lost) and LOST_SAMPLES (lost) */
	uint64_t id;
	uint64_t lost;
};

struct throttle_event {              /* THROTTLE and UNTHROTTLE */
	uint64_t time, id, stream_id;
};

struct ksymbol_event {
	uint64_t addr;
	uint32_t len;
	uint16_t ksym_type;
	uint16_t flags;              /* PERF_RECORD_KSYMBOL_FLAGS_UNREGISTER */
	const char *name;
};

/* A decoded record.  type is the PERF_RECORD_* value; for types this module
 * does not decode (perf's own records >= 64, AUX, ...) only hdr and sid
 * are meaningful and kind is RECORD_OTHER. */
enum record_kind {
	RECORD_SAMPLE,
	RECORD_MMAP,         /* MMAP and MMAP2 */
	RECORD_COMM,
	RECORD_FORK,
	RECORD_EXIT,
	RECORD_LOST,
	RECORD_LOST_SAMPLES,
	RECORD_THROTTLE,
	RECORD_UNTHROTTLE,
	RECORD_KSYMBOL,
	RECORD_OTHER,
};

struct record {
	enum record_kind kind;
	uint32_t type;
	uint16_t misc;
	uint16_t size;
	struct sample_id sid;  /* sample fields or the sample_id_all trailer;
				  zero when absent */
	bool has_sid;          /* the record carried sample_id_all fields */
	union {
		struct sample sample;
		struct mmap_event mmap;
		struct comm_event comm;
		struct task_event task;
		struct lost_event lost;
		struct throttle_event throttle;
		struct ksymbol_event ksymbol;
	} u;
};

/* Size in bytes of the sample_id_all trailer for this attr (0 if not set). */
size_t record_sample_id_size(const struct perf_event_attr *attr);

/* Decode one record of hdr->size bytes starting at hdr.  Returns 0, or
 * -EINVAL with em describing what is wrong (a length that does not fit, a
 * string without NUL, ...).  em may be NULL. */
int record_decode(const struct perf_event_header *hdr,
		  const struct perf_event_attr *attr, struct record *out,
		  struct errmsg *em);

/* The record's time (the sample's TIME field, or the sample_id_all
 * trailer's), without decoding the rest; 0 when it carries none. */
uint64_t record_time(const struct perf_event_header *hdr, const struct perf_event_attr *attr);

/* "SAMPLE", "MMAP2", "FINISHED_ROUND", ... or "UNKNOWN". */
const char *record_type_name(uint32_t type);

/* Callchain markers: entries >= PERF_CONTEXT_MAX are context switches
 * (PERF_CONTEXT_KERNEL, PERF_CONTEXT_USER, ...), not addresses. */
static inline bool record_is_context(uint64_t ip)
{
	return ip >= (uint64_t)PERF_CONTEXT_MAX;
}

#endif
