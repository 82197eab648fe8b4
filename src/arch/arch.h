/* Arch-specific sample payloads (PERF_SAMPLE_RAW data a PMU attaches to its
 * samples: Alpha ProfileMe today; AMD IBS or Arm SPE could join), behind one
 * interface keyed by ELF machine, and the names of machines.
 *
 * Recipe for a consumer (engine, hist, dump):
 *	machine = live ? arch_host_machine()
 *		       : arch_machine_from_name(perf.data arch feature);
 *	arch_adjust_attr(&attr, machine);          before perf_event_open (live)
 *	ops = arch_payload_find(machine);          once; NULL: nothing to decode
 *	per sample: if (ops && ops->applies(attr, raw, raw_size))
 *			ops->decode(raw, raw_size, buf of ops->decoded_size);
 *		    then ops->stats_add / ops->format_dump on it.
 * No terminal, no engine: bytes in, fields out. */
#ifndef PROFTOP_ARCH_H
#define PROFTOP_ARCH_H

#include <linux/perf_event.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* A payload decoder.  The decoded sample and the per-row stats are opaque
 * here (their sizes say how much to reserve); a caller that shows fields
 * includes the decoder's own header (e.g. alpha-profileme.h). */
struct arch_payload_ops {
	const char *name;    /* "profileme": a key for JSON and columns */
	int e_machine;	     /* EM_ALPHA, ... */
	size_t decoded_size; /* bytes decode() writes */
	size_t stats_size;   /* bytes of a row's stats (zeroed = empty) */
	/* Whether this sample's payload is the decoder's: event type, size
	 * and version.  The machine is already known to match. */
	bool (*applies)(const struct perf_event_attr *attr, const void *raw, uint32_t raw_size);
	/* Payload (any alignment, any host order) to decoded; 0 or -EINVAL. */
	int (*decode)(const void *raw, uint32_t raw_size, void *decoded);
	/* Count a decoded sample in a row's stats. */
	void (*stats_add)(void *stats, const void *decoded);
	/* Count a sample of the row whose payload did not apply. */
	void (*stats_add_other)(void *stats);
	/* dst += src. */
	void (*stats_merge)(void *dst, const void *src);
	/* x = x * num / den for every counter. */
	void (*stats_decay)(void *stats, unsigned num, unsigned den);
	/* The -D lines for a decoded sample; snprintf's return convention. */
	int (*format_dump)(const void *decoded, char *buf, size_t size);
	/* Ask the kernel for the payload: adds sample_type bits (live only). */
	void (*adjust_attr)(struct perf_event_attr *attr);
};

/* The payload decoder for a machine, or NULL when it has none. */
const struct arch_payload_ops *arch_payload_find(int e_machine);

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
