/* Dynamic PMUs from sysfs: "NAME" or "NAME/term=value,term/" (perf's
 * syntax) to an event of the PMU's type, its config words built from the
 * PMU's own format/ files, never from bits known here; this host's CPUID
 * in perf's spelling.  What a PMU demands beyond that is its payload
 * decoder's word (arch_pmu_rules, src/arch/arch.h). */
#ifndef PROFTOP_PMU_H
#define PROFTOP_PMU_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct errmsg;
struct event_spec;

/* Where the PMUs are: the root of a sysfs tree ("/" for the real one; a
 * test's directory otherwise) joined with this. */
#define PMU_DEVICES "sys/bus/event_source/devices"

/* Parse spec against the PMUs under root.  Returns 0 with *out filled
 * (type, config, config1, config2, name = spec), -ENOENT when spec names
 * no PMU there (em says which directory is missing), or -EINVAL for a
 * term the PMU has no format for, a value too wide for its bits, or bad
 * syntax (em names it). */
int pmu_event_parse(const char *root, const char *spec, struct event_spec *out,
		    struct errmsg *em);

/* The PMU name of spec ("ibs_op" of "ibs_op/cnt_ctl=1/") into buf. */
void pmu_spec_name(const char *spec, char *buf, size_t size);

/* This host's CPUID as perf writes it: "AuthenticAMD,25,1,1" (vendor,
 * family, model, stepping from /proc/cpuinfo), into buf.  False when it
 * cannot tell. */
bool pmu_host_cpuid(char *buf, size_t size);

#endif
