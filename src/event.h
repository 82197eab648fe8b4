/* Events: names to perf_event_attr, the attr the engine samples with, and
 * the one place that calls perf_event_open(2). */
#ifndef PROFTOP_EVENT_H
#define PROFTOP_EVENT_H

#include <linux/perf_event.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct errmsg;

struct event_spec {
	uint32_t type;          /* PERF_TYPE_HARDWARE, _SOFTWARE, _RAW, a PMU's */
	uint64_t config;
	uint64_t config1, config2;  /* a PMU's terms (pmu.h), else 0 */
	bool sample_raw;        /* its samples carry a payload (AMD IBS) */
	/* The PMU refuses exclude_hv/guest (AMD IBS); exclude_kernel only
	 * with sw_filter (its swfilt term, filtered in software). */
	bool no_exclude, sw_filter;
	char name[64];          /* canonical name: "cycles", "r01c2" */
};

/* Parse an event name: "cycles", "cpu-clock", "r1c2"...  Returns 0 or
 * -EINVAL. */
int event_parse(const char *name, struct event_spec *out);

struct event_sampling {
	bool freq;
	uint64_t freq_or_period;
	bool exclude_kernel;    /* user space only (unprivileged) */
	bool tracking;          /* mmap2/comm/task side-band on this fd */
	bool mmap_data;         /* with tracking: data maps too (-s daddr_sym) */
	bool enable_on_exec;    /* command mode: start at exec */
	bool inherit;           /* follow children and new threads */
	uint32_t wakeup_bytes;  /* wake poll when this much is in the ring (0: each record) */
	bool callchain;         /* -g: frame-pointer callchains (PERF_SAMPLE_CALLCHAIN) */
	uint16_t max_stack;     /* --max-stack: attr.sample_max_stack (0: the kernel's) */
	uint32_t dwarf_stack;   /* with callchain: user stack bytes per sample, and
				   the user registers of regs_user, for DWARF
				   unwinding (the kernel's chain then stops at
				   the user boundary); 0: frame pointers */
	uint64_t regs_user;
};

/* The name of the event an attr counts ("cycles", "cpu-clock", "r1c2",
 * "type 8 config 0x12"), into buf. */
void event_name_from_attr(const struct perf_event_attr *attr, char *buf, size_t size);

/* Fill attr for sampling the event: IP, TID, TIME, CPU, PERIOD and
 * IDENTIFIER (and CALLCHAIN with s->callchain: kernel chains left out when
 * the kernel is), sample_id_all, disabled until enabled. */
void event_attr_init(struct perf_event_attr *attr, const struct event_spec *ev,
		     const struct event_sampling *s);

/* perf_event_open(2).  Returns the fd or -errno. */
int event_open(struct perf_event_attr *attr, pid_t pid, int cpu, int group_fd,
	       unsigned long flags);

/* True when err from event_open means "this event does not exist here"
 * (no PMU, unsupported): the cycles -> cpu-clock fallback applies. */
bool event_error_unsupported(int err);

/* Put in em a sentence that names the cause of perf_event_open's failure
 * err and the fix, for the user.  Returns err. */
int event_explain_error(int err, bool system_wide, struct errmsg *em);

/* Whether this process may sample kernel code: root or CAP_PERFMON /
 * CAP_SYS_ADMIN, or perf_event_paranoid <= 1. */
bool event_may_profile_kernel(void);

/* Whether asking for build IDs in MMAP2 (attr.build_id) is harmless here:
 * false where the kernel lacks it, or leaks the build-ID flag into other
 * tools' events (probed once). */
bool event_build_id_is_safe(void);

/* The tracepoint SYS:NAME (sched:sched_switch) as an event, and the text
 * of its tracefs format file in *format (the caller frees).  Mounts tracefs
 * at /sys/kernel/tracing when it is not mounted, as perf does, and says so
 * on stderr.  Returns 0 or -errno with em naming the cause and the fix. */
int event_tracepoint(const char *sys, const char *name, struct event_spec *out,
		     char **format, struct errmsg *em);

/* kernel.perf_event_paranoid, or 2 when unreadable. */
int event_paranoid(void);
/* kernel.perf_event_max_sample_rate, or 100000 when unreadable. */
uint64_t event_max_sample_rate(void);
/* kernel.perf_event_max_stack (frames per callchain), or 127 when
 * unreadable: the default of --max-stack. */
unsigned event_max_stack(void);

#endif
