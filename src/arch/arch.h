/* Arch-specific sample payloads (PERF_SAMPLE_RAW data a PMU attaches to its
 * samples: Alpha ProfileMe today; AMD IBS or Arm SPE could join), behind one
 * interface keyed by ELF machine, and the names of machines.
 *
 * Recipe for a consumer (engine, dump):
 *	machine = live ? arch_host_machine()
 *		       : arch_machine_from_name(perf.data arch feature);
 *	arch_adjust_attr(&attr, machine);          before perf_event_open (live)
 *	ops = arch_payload_find(machine);          once; NULL: nothing to decode
 *	hist_enable_payload(hist, ops->payload);   its columns and row stats
 *	per sample: arch_payload_decode(ops, attr, raw, raw_size, &buf) and
 *		    hist_add_payload(hist, sample, decoded ? &buf : NULL);
 *		    or ops->format_dump(&buf, ...) for -D.
 * No terminal, no engine: bytes in, fields out. */
#ifndef PROFTOP_ARCH_H
#define PROFTOP_ARCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "payload.h"

struct perf_event_attr;
struct strbuf;

/* Where the samples come from, as decoders need it beyond the machine: a
 * recording's own headers (ARCH, CPUID, PMU_MAPPINGS), or this host's
 * uname, /proc/cpuinfo and sysfs.  Borrowed pointers. */
struct arch_pmu {
	uint32_t type; /* perf_event_attr.type */
	const char *name; /* "ibs_op" */
};
struct arch_env {
	int e_machine;
	const char *cpuid; /* perf's CPUID string ("AuthenticAMD,25,1,1"), or NULL */
	const struct arch_pmu *pmus;
	size_t npmus;
	/* The family and model of a "vendor,family,model,..." cpuid, once
	 * arch_env_parse_cpuid ran (decoders parse it again otherwise). */
	bool cpu_known;
	uint32_t cpu_family, cpu_model;
};
/* Fill env's cpu_family and cpu_model from its cpuid, once, rather than
 * at each sample. */
void arch_env_parse_cpuid(struct arch_env *env);
/* The name of the PMU of type in env, or NULL. */
const char *arch_env_pmu_name(const struct arch_env *env, uint32_t type);

/* The most bytes a decoder's decoded sample takes: callers decode into an
 * arch_payload_buf on the stack. */
#define ARCH_PAYLOAD_DECODED_MAX 512
union arch_payload_buf {
	max_align_t align;
	unsigned char b[ARCH_PAYLOAD_DECODED_MAX];
};

/* A payload decoder: the perf side (which samples, how to decode, the -D
 * lines) and what it shows (payload_ops: row stats, columns). */
struct arch_payload_ops {
	const struct payload_ops *payload;
	int e_machine;	     /* EM_ALPHA, ... */
	size_t decoded_size; /* bytes decode() writes, <= ARCH_PAYLOAD_DECODED_MAX */
	/* Whether this sample's payload is the decoder's: event type, size
	 * and version.  The machine is already known to match. */
	bool (*applies)(const struct perf_event_attr *attr, const void *raw, uint32_t raw_size);
	/* Payload (any alignment, any host order) to decoded; 0 or -EINVAL. */
	int (*decode)(const void *raw, uint32_t raw_size, void *decoded);
	/* The -D lines for a decoded sample; snprintf's return convention. */
	int (*format_dump)(const void *decoded, char *buf, size_t size);
	/* Ask the kernel for the payload: adds sample_type bits (live only). */
	void (*adjust_attr)(struct perf_event_attr *attr);
	/* Optional: whether the decoder is for the event attr of env (its PMU,
	 * its vendor); NULL: for every event of e_machine. */
	bool (*selects)(const struct arch_env *env, const struct perf_event_attr *attr);
	/* Optional: decode with env at hand (env may be NULL); NULL: decode. */
	int (*decode_in)(const struct arch_env *env, const void *raw, uint32_t raw_size,
			 void *decoded);
	/* Optional: its PMU's rules for live events. */
	const struct arch_pmu_rules *pmu_rules;
};

/* Decode a sample's payload into *buf when it is ops's (applies, then
 * decode).  Returns whether it was. */
bool arch_payload_decode(const struct arch_payload_ops *ops, const struct perf_event_attr *attr,
			 const void *raw, uint32_t raw_size, union arch_payload_buf *buf);

/* arch_payload_decode with env for decoders that want it (errata by
 * cpu model). */
bool arch_payload_decode_in(const struct arch_env *env, const struct arch_payload_ops *ops,
			    const struct perf_event_attr *attr, const void *raw, uint32_t raw_size,
			    union arch_payload_buf *buf);

/* Whether some decoder declares key as a column's --order word. */
bool arch_payload_order_known(const char *key);
/* Every decoder's --order words, ", "-separated ("retired, killed, ..."):
 * static. */
const char *arch_payload_order_keys(void);
/* Each decoder's --order words for --help: "on ProfileMe data retired,
 * killed, ...; on IBS Op data branch, ...; ". */
void arch_payload_order_help(struct strbuf *sb);

/* What a payload decoder's PMU demands of a live event ("ibs_op"). */
struct arch_pmu_rules {
	const char *pmu;
	/* Why the PMU may be missing here: the rest of a one-line error. */
	const char *missing;
	/* The constraint a fixed period (-c) breaks, as a one-line usage
	 * error, or NULL when period is fine. */
	const char *(*period_error)(uint64_t period);
	/* The PMU takes no exclude_hv/exclude_guest, and exclude_kernel
	 * only with this format term set (NULL: not at all). */
	const char *sw_filter_term;
};
/* The rules of the PMU named pmu, or NULL when no decoder has any. */
const struct arch_pmu_rules *arch_pmu_rules(const char *pmu);

/* The payload decoder for a machine, or NULL when it has none (decoders
 * that select by event are not found this way). */
const struct arch_payload_ops *arch_payload_find(int e_machine);
/* The payload decoder for the samples of attr in env, or NULL. */
const struct arch_payload_ops *arch_payload_select(const struct arch_env *env,
						   const struct perf_event_attr *attr);

/* EM_* for a machine name as uname -m gives it, which is also what perf
 * stores in a perf.data ARCH feature: "alpha" -> EM_ALPHA, "x86_64" ->
 * EM_X86_64, "s390x" -> EM_S390, "i686" -> EM_386, ...  EM_NONE (0) when
 * name is NULL or unknown. */
int arch_machine_from_name(const char *name);

/* The machine this program runs on (uname, else the build target). */
int arch_host_machine(void);

/* Adjust a live event's attr for the payload decoder of e_machine: on an
 * Alpha, HARDWARE and RAW events also sample PERF_SAMPLE_RAW so that each
 * sample carries its ProfileMe payload.  Other events and machines are left
 * as they are. */
void arch_adjust_attr(struct perf_event_attr *attr, int e_machine);

#endif
