/* What the two halves of the perf.data reader share (perfdata.c: opening
 * and the records; perfdata_header.c: the header, attrs, ids and feature
 * sections): the reader's state, perf's constants, and byte order. */
#ifndef PROFTOP_PERFDATA_PRIV_H
#define PROFTOP_PERFDATA_PRIV_H

#include <byteswap.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "hashtab.h"
#include "perfdata.h"
#include "util.h"

/* "PERFILE2" read as a native u64 on a little-endian host. */
#define PERFDATA_MAGIC 0x32454c4946524550ULL
#define FILE_HEADER_SIZE 104
#define PIPE_HEADER_SIZE 16
#define FEAT_BITS 256

enum {
	FEAT_TRACING_DATA = 1,
	FEAT_BUILD_ID = 2,
	FEAT_HOSTNAME = 3,
	FEAT_OSRELEASE = 4,
	FEAT_VERSION = 5,
	FEAT_ARCH = 6,
	FEAT_NRCPUS = 7,
	FEAT_CPUID = 9,
	FEAT_CMDLINE = 11,
	FEAT_EVENT_DESC = 12,
	FEAT_PMU_MAPPINGS = 16,
	FEAT_SAMPLE_TIME = 21,
};

/* perf's own record types (tools/perf/util/event.h). */
enum {
	REC_HEADER_ATTR = 64,
	REC_HEADER_TRACING_DATA = 66,
	REC_HEADER_BUILD_ID = 67,
	REC_FINISHED_ROUND = 68,
	REC_ID_INDEX = 69,
	REC_AUXTRACE = 71,
	REC_EVENT_UPDATE = 78,
	REC_HEADER_FEATURE = 80,
	REC_COMPRESSED = 81,
	REC_FINISHED_INIT = 82,
	REC_COMPRESSED2 = 83,
};

#define MISC_BUILD_ID_SIZE (1U << 15)
#define EVENT_UPDATE_NAME 2

/* Records buffered for sorting; beyond this many the oldest half is
 * flushed, as perf does when its ordered-events memory runs out. */
#define MAX_PENDING (1U << 22)

/* A mapped file's data pages behind the reader are given back to the
 * kernel in steps of this many bytes (one madvise each): read once, they
 * would otherwise all count in the resident set until the end. */
#define DROP_STEP (1U << 20)

struct pending {
	uint64_t time;
	uint64_t off;             /* file order: ties keep it */
};

struct idmap_entry {
	uint64_t id;
	size_t ev;                /* index into events */
};

struct perfdata {
	char *path;
	const unsigned char *buf;  /* the whole file */
	size_t size;
	bool mapped;
	bool swapped;

	struct perfdata_info info;
	struct perfdata_build_id *bids;
	size_t nbids, bidcap;

	struct perfdata_event *events;
	size_t nevents, evcap;
	uint64_t **idbufs;         /* events[i].ids, owned */
	char **names;              /* events[i].name, owned */
	struct idmap_entry *idmap; /* each id once, the first event that has it */
	size_t nidmap;
	struct hashtab idindex;    /* over idmap (slots NULL before build_idmap) */
	/* Where the event id sits (perf takes it from the first attr):
	 * word index in a sample body, word index from the end of other
	 * records' trailer; -1 when absent. */
	int sample_id_word, trailer_id_word;

	uint64_t data_start, data_end;
	bool truncated;            /* the data section runs past the file end */
	uint64_t pos;              /* next record in file order */

	bool file_order, sorting;
	struct pending *pend;
	size_t npend, pendcap;
	struct pending *merge_tmp; /* the other half of the run merge */
	size_t merge_cap;
	size_t *runs;              /* where each ascending run of pend starts */
	size_t runs_cap;
	size_t emit_i, emit_n;     /* pend[emit_i..emit_n) are ready, sorted */
	uint64_t pend_low;         /* the lowest offset in pend (when npend) */
	uint64_t dropped;          /* mapped: pages below it were given back */
	uint64_t round_limit;      /* max time at the previous FINISHED_ROUND */
	uint64_t max_time;
	bool has_held;
	uint64_t held_off;         /* a record to return after the flush */
	int pending_err;
	bool started;

	uint64_t *scratch;         /* an aligned, native copy of one record */
	char err[512];
	bool damage_at_end;
};


/* ---- byte order ---- */

static inline uint16_t get16(const struct perfdata *pd, const void *p)
{
	uint16_t v;

	memcpy(&v, p, 2);
	return pd->swapped ? bswap_16(v) : v;
}

static inline uint32_t get32(const struct perfdata *pd, const void *p)
{
	uint32_t v;

	memcpy(&v, p, 4);
	return pd->swapped ? bswap_32(v) : v;
}

static inline uint64_t get64(const struct perfdata *pd, const void *p)
{
	uint64_t v;

	memcpy(&v, p, 8);
	return pd->swapped ? bswap_64(v) : v;
}

static inline void sw16(void *p)
{
	uint16_t v;

	memcpy(&v, p, 2);
	v = bswap_16(v);
	memcpy(p, &v, 2);
}

static inline void sw32(void *p)
{
	uint32_t v;

	memcpy(&v, p, 4);
	v = bswap_32(v);
	memcpy(p, &v, 4);
}

static inline void sw64(void *p)
{
	uint64_t v;

	memcpy(&v, p, 8);
	v = bswap_64(v);
	memcpy(p, &v, 8);
}

/* Two u32 in one word (pid/tid, cpu/res): each swapped in place. */
static inline void sw32x2(void *p)
{
	sw32(p);
	sw32((char *)p + 4);
}


/* Is [off, off + len) inside the file?  Written to avoid overflow. */
static inline bool in_file(const struct perfdata *pd, uint64_t off, uint64_t len)
{
	return off <= pd->size && len <= pd->size - off;
}

/* Bytes that follow some of perf's records without being counted in their
 * header size (AUXTRACE's trace, pipe-mode tracing data). */
static inline uint64_t trailing_bytes(const struct perfdata *pd, const unsigned char *rec,
			       uint32_t type, uint16_t size)
{
	if (type == REC_AUXTRACE && size >= 16)
		return get64(pd, rec + 8);
	if (type == REC_HEADER_TRACING_DATA && size >= 12) {
		uint64_t n = get32(pd, rec + 8);

		return (n + 7) & ~7ULL;
	}
	return 0;
}


/* "FILE: offset OFF (0xOFF): " and the message in pd->err; returns -EINVAL. */
int perfdata_set_error(struct perfdata *pd, uint64_t off, const char *fmt, ...) PRINTFLIKE(3, 4);

/* perfdata_header.c: check the magic, then read the header, attrs, ids and
 * feature sections (pipe format: the header records) of pd->buf.  Returns 0
 * or perfdata_set_error's -EINVAL. */
int perfdata_header_parse(struct perfdata *pd);
/* Free what perfdata_header_parse allocated. */
void perfdata_header_release(struct perfdata *pd);
/* The event whose attr has id, or NULL. */
struct perfdata_event *perfdata_header_event_by_id(const struct perfdata *pd, uint64_t id);

#endif
