/* Reading perf.data files ("PERFILE2", and perf's pipe format): header,
 * attrs and their ids, feature sections, and the records of the data
 * section in processing order, in native byte order. */
#ifndef PROFTOP_PERFDATA_H
#define PROFTOP_PERFDATA_H

#include <linux/perf_event.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct errmsg;
struct perfdata;

struct perfdata_event {
	struct perf_event_attr attr;   /* native byte order, zero-extended */
	const char *name;              /* from EVENT_DESC, else NULL */
	const uint64_t *ids;
	size_t nids;
};

struct perfdata_build_id {             /* one entry of the BUILD_ID feature */
	int32_t pid;
	uint16_t cpumode;              /* header.misc & CPUMODE_MASK */
	uint8_t id[20];
	uint8_t size;
	const char *filename;
};

struct perfdata_pmu {                  /* one entry of PMU_MAPPINGS */
	uint32_t type;
	const char *name;              /* "ibs_op" */
};

struct perfdata_info {
	const char *hostname, *osrelease, *version, *arch;  /* NULL when absent */
	const char *cpuid;             /* CPUID ("AuthenticAMD,25,1,1"), or NULL */
	const struct perfdata_pmu *pmus;                     /* PMU_MAPPINGS */
	size_t npmus;
	const char *cmdline;           /* joined with spaces, or NULL */
	uint32_t nr_cpus_avail, nr_cpus_online;
	uint64_t first_sample_time, last_sample_time;        /* SAMPLE_TIME, or 0 */
	const struct perfdata_build_id *build_ids;
	size_t nbuild_ids;
	/* TRACING_DATA: the tracepoints' formats as perf wrote them (a copy,
	 * up to 64 MiB), or NULL */
	const unsigned char *tracing_data;
	size_t tracing_data_size;
	bool swapped;                  /* written on a host of the other byte order */
	bool pipe;                     /* pipe format */
	uint64_t file_size;
	int64_t mtime_ns;              /* the file's modification time (ns since the
					  epoch: perf's "captured on"), 0 for a pipe */
};

struct perfdata_record {
	const struct perf_event_header *hdr;  /* 8-byte aligned, native order */
	const struct perfdata_event *event;   /* whose attr decodes it (never NULL) */
	uint64_t offset;                      /* of the record in the file */
};

/* Open path ("-" for the pipe format on stdin).  Returns 0, or -errno with
 * em naming the byte offset and the problem. */
int perfdata_open(const char *path, struct perfdata **out, struct errmsg *em);
void perfdata_close(struct perfdata *pd);

const struct perfdata_info *perfdata_get_info(const struct perfdata *pd);
size_t perfdata_nr_events(const struct perfdata *pd);
const struct perfdata_event *perfdata_get_event(const struct perfdata *pd, size_t i);

/* The next record in processing order (by time within each FINISHED_ROUND
 * where the file needs it).  Returns 1 with *rec set (valid until the next
 * call), 0 at the end, or -EINVAL on damage with perfdata_error() naming
 * the byte offset; perfdata_damage_at_end() then tells whether everything
 * before the damage was read (a truncated file). */
int perfdata_next(struct perfdata *pd, struct perfdata_record *rec);
/* Return records in file order instead (for -D); call before perfdata_next. */
void perfdata_set_file_order(struct perfdata *pd, bool file_order);
const char *perfdata_error(const struct perfdata *pd);
bool perfdata_damage_at_end(const struct perfdata *pd);

#endif
