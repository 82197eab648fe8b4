/* Events: name parsing, sampling attrs, and perf_event_open(2) with errors
 * explained to the user. */
#include "config.h"

#include "event.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "util.h"

static const struct {
	const char *name;
	uint32_t type;
	uint64_t config;
} named_events[] = {
	{ "cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES },
	{ "cpu-cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES },
	{ "instructions", PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS },
	{ "cache-references", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_REFERENCES },
	{ "cache-misses", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_MISSES },
	{ "branches", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_INSTRUCTIONS },
	{ "branch-instructions", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_INSTRUCTIONS },
	{ "branch-misses", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_MISSES },
	{ "cpu-clock", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_CLOCK },
	{ "task-clock", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK },
	{ "page-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS },
	{ "faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS },
	{ "context-switches", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CONTEXT_SWITCHES },
	{ "cs", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CONTEXT_SWITCHES },
	{ "cpu-migrations", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_MIGRATIONS },
	{ "migrations", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_MIGRATIONS },
};

int event_parse(const char *name, struct event_spec *out)
{
	size_t i;

	memset(out, 0, sizeof(*out));
	for (i = 0; i < ARRAY_SIZE(named_events); i++) {
		if (strcmp(name, named_events[i].name) == 0) {
			out->type = named_events[i].type;
			out->config = named_events[i].config;
			snprintf(out->name, sizeof(out->name), "%s", name);
			return 0;
		}
	}
	if (name[0] == 'r' && name[1]) {
		const char *p = name + 1;
		char *end;
		unsigned long long v;

		if (p[0] == '0' && (p[1] == 'x' || p[1] == 'X'))
			p += 2;
		if (strspn(p, "0123456789abcdefABCDEF") != strlen(p) || !*p || strlen(p) > 16)
			return -EINVAL;
		v = strtoull(p, &end, 16);
		out->type = PERF_TYPE_RAW;
		out->config = v;
		snprintf(out->name, sizeof(out->name), "r%llx", v);
		return 0;
	}
	return -EINVAL;
}

void event_name_from_attr(const struct perf_event_attr *attr, char *buf, size_t size)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(named_events); i++) {
		if (named_events[i].type == attr->type && named_events[i].config == attr->config) {
			snprintf(buf, size, "%s", named_events[i].name);
			return;
		}
	}
	if (attr->type == PERF_TYPE_SOFTWARE && attr->config == PERF_COUNT_SW_DUMMY)
		snprintf(buf, size, "dummy");
	else if (attr->type == PERF_TYPE_RAW)
		snprintf(buf, size, "r%llx", (unsigned long long)attr->config);
	else
		snprintf(buf, size, "type %u config 0x%llx", attr->type,
			 (unsigned long long)attr->config);
}

void event_attr_init(struct perf_event_attr *attr, const struct event_spec *ev,
		     const struct event_sampling *s)
{
	memset(attr, 0, sizeof(*attr));
	attr->size = sizeof(*attr);
	attr->type = ev->type;
	attr->config = ev->config;
	attr->freq = s->freq;
	if (s->freq)
		attr->sample_freq = s->freq_or_period;
	else
		attr->sample_period = s->freq_or_period;
	attr->sample_type = PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID |
			    PERF_SAMPLE_TIME | PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD;
	attr->sample_id_all = 1;
	attr->disabled = 1;
	attr->exclude_kernel = s->exclude_kernel;
	attr->exclude_hv = 1;
	attr->exclude_guest = 1;
	attr->inherit = s->inherit;
	attr->enable_on_exec = s->enable_on_exec;
	if (s->callchain) {
		attr->sample_type |= PERF_SAMPLE_CALLCHAIN;
		attr->sample_max_stack = s->max_stack;
		/* Asking for kernel frames we may not see makes the open
		 * fail for unprivileged users. */
		attr->exclude_callchain_kernel = s->exclude_kernel;
	}
	/* Wake the reader when the ring fills up, not per record: the engine
	 * drains every ring at each refresh anyway, and a wake-up per sample
	 * costs more than the sample. */
	if (s->wakeup_bytes) {
		attr->watermark = 1;
		attr->wakeup_watermark = s->wakeup_bytes;
	} else {
		attr->wakeup_events = 1;
	}
	if (s->tracking) {
		attr->mmap = 1;
		attr->mmap2 = 1;
		attr->comm = 1;
		attr->comm_exec = 1;
		attr->task = 1;
	}
}

int event_open(struct perf_event_attr *attr, pid_t pid, int cpu, int group_fd,
	       unsigned long flags)
{
	long fd = syscall(__NR_perf_event_open, attr, pid, cpu, group_fd,
			  flags | PERF_FLAG_FD_CLOEXEC);

	return fd < 0 ? -errno : (int)fd;
}

bool event_error_unsupported(int err)
{
	return err == -ENOENT || err == -EOPNOTSUPP || err == -ENODEV;
}

int event_paranoid(void)
{
	long v;

	if (read_file_long("/proc/sys/kernel/perf_event_paranoid", &v))
		return 2;
	return (int)v;
}

/* Effective capability bit from /proc/self/status. */
static bool has_capability(int cap)
{
	char *buf, *p;
	unsigned long long eff = 0;

	if (read_file("/proc/self/status", 1 << 16, &buf, NULL))
		return false;
	p = strstr(buf, "\nCapEff:");
	if (p)
		eff = strtoull(p + 8, NULL, 16);
	free(buf);
	return (eff >> cap) & 1;
}

bool event_may_profile_kernel(void)
{
	enum { CAP_SYS_ADMIN_BIT = 21, CAP_PERFMON_BIT = 38 };

	return event_paranoid() <= 1 || has_capability(CAP_PERFMON_BIT) ||
	       has_capability(CAP_SYS_ADMIN_BIT);
}

uint64_t event_max_sample_rate(void)
{
	long v;

	if (read_file_long("/proc/sys/kernel/perf_event_max_sample_rate", &v) || v <= 0)
		return 100000;
	return (uint64_t)v;
}

unsigned event_max_stack(void)
{
	long v;

	if (read_file_long("/proc/sys/kernel/perf_event_max_stack", &v) || v <= 0 || v > 65535)
		return 127;
	return (unsigned)v;
}

const char *event_explain_error(int err, bool system_wide, char *buf, size_t size)
{
	int paranoid = event_paranoid();

	switch (-err) {
	case EACCES:
	case EPERM:
		if (paranoid >= 3)
			snprintf(buf, size,
				 "perf_event_paranoid is %d, which forbids sampling to non-root "
				 "users: run as root, or `sysctl kernel.perf_event_paranoid=2`",
				 paranoid);
		else if (system_wide)
			snprintf(buf, size,
				 "system-wide sampling needs root or CAP_PERFMON (perf_event_paranoid "
				 "is %d): run as root, `sysctl kernel.perf_event_paranoid=0`, or "
				 "profile your own processes with -p PID or -- COMMAND",
				 paranoid);
		else
			snprintf(buf, size,
				 "not allowed to sample this process (perf_event_paranoid is %d): it "
				 "must be yours, and ptrace must be allowed "
				 "(kernel.yama.ptrace_scope); or run as root",
				 paranoid);
		return buf;
	case EMFILE:
		return "too many open files: raise `ulimit -n` or limit CPUs with -C";
	case ENOENT:
	case EOPNOTSUPP:
	case ENODEV:
		return "the event is not supported on this machine (no such PMU event)";
	case EINVAL:
		return "the kernel rejected the event settings (unsupported event, or a "
		       "frequency above kernel.perf_event_max_sample_rate)";
	case ESRCH:
		return "no such process";
	case ENOSYS:
		return "this kernel has no perf_event_open (CONFIG_PERF_EVENTS is off)";
	case EBUSY:
		return "the PMU is in use by another tool";
	default:
		snprintf(buf, size, "perf_event_open failed: %s", strerror(-err));
		return buf;
	}
}
