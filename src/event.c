/* Events: name parsing, sampling attrs, and perf_event_open(2) with errors
 * explained to the user. */
#include "config.h"

#include "event.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <pthread.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "errmsg.h"
#include "msg.h"
#include "util.h"

/* The kernel refused attr.build_id once: older than 5.12. */
static bool event_no_build_id;

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


/* Open a dummy side-band event on this thread with or without build IDs,
 * its ring mapped at *ring.  Returns the fd or -1. */
static int probe_open(bool build_id, void **ring, size_t size)
{
	struct perf_event_attr a;
	long fd;

	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.type = PERF_TYPE_SOFTWARE;
	a.config = PERF_COUNT_SW_DUMMY;
	a.mmap = 1;
	a.mmap2 = 1;
	a.build_id = build_id;
	a.exclude_kernel = 1;
	fd = syscall(__NR_perf_event_open, &a, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
	if (fd < 0)
		return -1;
	*ring = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, (int)fd, 0);
	if (*ring == MAP_FAILED) {
		close((int)fd);
		return -1;
	}
	return (int)fd;
}

/* Whether an MMAP2 record in ring carries the build-ID flag; *seen tells
 * whether there was one at all. */
static bool ring_mmap2_has_build_id_flag(const void *ring, size_t page, bool *seen)
{
	const struct perf_event_mmap_page *pc = ring;
	const char *data = (const char *)ring + page;
	uint64_t head = __atomic_load_n(&pc->data_head, __ATOMIC_ACQUIRE), off = 0;
	bool flag = false;

	*seen = false;
	while (off + sizeof(struct perf_event_header) <= head && head <= page) {
		const struct perf_event_header *h = (const void *)(data + off);

		if (h->size < sizeof(*h))
			break;
		if (h->type == PERF_RECORD_MMAP2) {
			*seen = true;
			flag |= !!(h->misc & PERF_RECORD_MISC_MMAP_BUILD_ID);
		}
		off += h->size;
	}
	return flag;
}

/* Some kernels (seen on 6.18) put the build-ID flag on the MMAP2 records of
 * every event written after one that asked for build IDs, over a body that
 * still holds maj/min/ino: a perf running at the same time misreads them
 * (perf 6.1 crashes on it).  Ask for build IDs only where a probe shows the
 * flag stays with the event that asked: an event without build IDs opened
 * before and one after it, so either order of delivery shows a leak. */
static bool event_build_id_probe(void)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE), size = 2 * page;
	void *ring_before = NULL, *ring_with = NULL, *ring_after = NULL, *map;
	int fd_before = probe_open(false, &ring_before, size);
	int fd_with = probe_open(true, &ring_with, size);
	int fd_after = probe_open(false, &ring_after, size);
	bool safe = false, seen_before, seen_after, leak;
	int file;

	if (fd_before < 0 || fd_with < 0 || fd_after < 0)
		goto out;
	file = open("/proc/self/exe", O_RDONLY | O_CLOEXEC);
	if (file < 0)
		goto out;
	map = mmap(NULL, page, PROT_READ | PROT_EXEC, MAP_PRIVATE, file, 0);
	close(file);
	if (map == MAP_FAILED)
		goto out;
	munmap(map, page);
	/* Both rings are read: each sets its seen_ flag. */
	leak = ring_mmap2_has_build_id_flag(ring_before, page, &seen_before);
	if (ring_mmap2_has_build_id_flag(ring_after, page, &seen_after))
		leak = true;
	safe = seen_before && seen_after && !leak;
out:
	if (fd_before >= 0) {
		munmap(ring_before, size);
		close(fd_before);
	}
	if (fd_with >= 0) {
		munmap(ring_with, size);
		close(fd_with);
	}
	if (fd_after >= 0) {
		munmap(ring_after, size);
		close(fd_after);
	}
	return safe;
}

static bool build_id_safe;

static void build_id_probe_once(void)
{
	build_id_safe = event_build_id_probe();
}

bool event_build_id_is_safe(void)
{
	static pthread_once_t once = PTHREAD_ONCE_INIT;

	pthread_once(&once, build_id_probe_once);
	return build_id_safe;
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
	attr->config1 = ev->config1;
	attr->config2 = ev->config2;
	attr->freq = s->freq;
	if (s->freq)
		attr->sample_freq = s->freq_or_period;
	else
		attr->sample_period = s->freq_or_period;
	attr->sample_type = PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID |
			    PERF_SAMPLE_TIME | PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD;
	if (ev->sample_raw)
		attr->sample_type |= PERF_SAMPLE_RAW;
	attr->sample_id_all = 1;
	attr->disabled = 1;
	attr->exclude_kernel = s->exclude_kernel;
	attr->exclude_hv = 1;
	attr->exclude_guest = 1;
	if (ev->no_exclude) {
		attr->exclude_hv = 0;
		attr->exclude_guest = 0;
		attr->exclude_kernel = s->exclude_kernel && ev->sw_filter;
	}
	attr->inherit = s->inherit;
	attr->enable_on_exec = s->enable_on_exec;
	/* A tracepoint (--off-cpu's sched_switch) carries its fields in RAW;
	 * switch records give the switch-in of per-thread targets, whose
	 * events see only their own switch-outs, and system-wide those
	 * the tracepoint misses (live.c, live_also_attr). */
	if (ev->type == PERF_TYPE_TRACEPOINT) {
		attr->sample_type |= PERF_SAMPLE_RAW;
		attr->context_switch = s->tracking;
		/* Times on CLOCK_MONOTONIC: a refresh charges the threads
		 * still off the CPU up to its own clock_gettime. */
		attr->use_clockid = 1;
		attr->clockid = CLOCK_MONOTONIC;
	}
	if (s->callchain) {
		attr->sample_type |= PERF_SAMPLE_CALLCHAIN;
		attr->sample_max_stack = s->max_stack;
		/* Asking for kernel frames we may not see makes the open
		 * fail for unprivileged users. */
		attr->exclude_callchain_kernel = s->exclude_kernel;
		if (s->dwarf_stack) {
			attr->sample_type |= PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER;
			attr->sample_regs_user = s->regs_user;
			attr->sample_stack_user = s->dwarf_stack;
			attr->exclude_callchain_user = 1;
		}
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
		attr->mmap_data = s->mmap_data;
		/* 5.12+: MMAP2 carries the build ID, so a binary replaced on
		 * disk is told apart from the one mapped.  event_open drops it
		 * where the kernel says EINVAL. */
		if (!event_no_build_id && event_build_id_is_safe())
			attr->build_id = 1;
	}
}

int event_open(struct perf_event_attr *attr, pid_t pid, int cpu, int group_fd,
	       unsigned long flags)
{
	long fd = syscall(__NR_perf_event_open, attr, pid, cpu, group_fd,
			  flags | PERF_FLAG_FD_CLOEXEC);

	/* Kernels before 5.12 reject attr.build_id: do without (machine.c
	 * then checks files by inode) and remember not to ask again. */
	if (fd < 0 && errno == EINVAL && attr->build_id) {
		attr->build_id = 0;
		fd = syscall(__NR_perf_event_open, attr, pid, cpu, group_fd,
			     flags | PERF_FLAG_FD_CLOEXEC);
		if (fd >= 0)
			event_no_build_id = true;
		else
			attr->build_id = 1;
	}
	return fd < 0 ? -errno : (int)fd;
}

bool event_error_unsupported(int err)
{
	return err == -ENOENT || err == -EOPNOTSUPP || err == -ENODEV;
}

#define EVENT_TRACEFS "/sys/kernel/tracing"

/* SYS/NAME/FILE under tracefs (or the old debugfs path) into *text. */
static int event_tracefs_read(const char *sys, const char *name, const char *file,
			      char **text)
{
	static const char *const roots[] = { EVENT_TRACEFS, "/sys/kernel/debug/tracing" };
	char path[512];
	size_t i;
	int err = -ENOENT;

	for (i = 0; i < ARRAY_SIZE(roots); i++) {
		snprintf(path, sizeof(path), "%s/events/%s/%s/%s", roots[i], sys, name, file);
		err = read_file(path, 1 << 20, text, NULL);
		if (err != -ENOENT)
			return err;
	}
	return err;
}

int event_tracepoint(const char *sys, const char *name, struct event_spec *out,
		     char **format, struct errmsg *em)
{
	struct stat st;
	char *idtext = NULL;
	int err;

	memset(out, 0, sizeof(*out));
	*format = NULL;
	err = event_tracefs_read(sys, name, "id", &idtext);
	if (err == -ENOENT && stat(EVENT_TRACEFS "/events", &st) != 0) {
		if (mount("nodev", EVENT_TRACEFS, "tracefs", 0, NULL) != 0)
			return errmsg_set(em, -errno,
					  "tracefs is not mounted and mounting it at " EVENT_TRACEFS
					  " failed (%s): run as root, or `mount -t tracefs nodev "
					  EVENT_TRACEFS "`", strerror(errno));
		msg_notice("mounted tracefs at " EVENT_TRACEFS " (as perf does)");
		err = event_tracefs_read(sys, name, "id", &idtext);
	}
	if (err == -EACCES || err == -EPERM)
		return errmsg_set(em, err,
				  "cannot read the tracepoint %s:%s in tracefs (permission "
				  "denied): run as root, or give your group access to " EVENT_TRACEFS,
				  sys, name);
	if (err)
		return errmsg_set(em, err, "no tracepoint %s:%s in tracefs (%s): the kernel "
				  "needs CONFIG_FTRACE and tracefs", sys, name, strerror(-err));
	out->type = PERF_TYPE_TRACEPOINT;
	out->config = strtoull(idtext, NULL, 10);
	free(idtext);
	snprintf(out->name, sizeof(out->name), "%s:%s", sys, name);
	err = event_tracefs_read(sys, name, "format", format);
	if (err)
		return errmsg_set(em, err, "cannot read the format of %s:%s in tracefs: %s",
				  sys, name, strerror(-err));
	return 0;
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

int event_explain_error(int err, bool system_wide, struct errmsg *em)
{
	int paranoid = event_paranoid();
	const char *s;

	switch (-err) {
	case EACCES:
	case EPERM:
		if (paranoid >= 3)
			return errmsg_set(em, err,
					  "perf_event_paranoid is %d, which forbids sampling to "
					  "non-root users: run as root, or `sysctl "
					  "kernel.perf_event_paranoid=2`",
					  paranoid);
		if (system_wide)
			return errmsg_set(em, err,
					  "system-wide sampling needs root or CAP_PERFMON "
					  "(perf_event_paranoid is %d): run as root, `sysctl "
					  "kernel.perf_event_paranoid=0`, or profile your own processes "
					  "with -p PID or -- COMMAND",
					  paranoid);
		return errmsg_set(em, err,
				  "not allowed to sample this process (perf_event_paranoid is %d): "
				  "it must be yours, and ptrace must be allowed "
				  "(kernel.yama.ptrace_scope); or run as root",
				  paranoid);
	case EMFILE:
		s = "too many open files: raise `ulimit -n` or limit CPUs with -C";
		break;
	case ENOENT:
	case EOPNOTSUPP:
	case ENODEV:
		s = "the event is not supported on this machine (no such PMU event)";
		break;
	case EINVAL:
		s = "the kernel rejected the event settings (unsupported event, or a "
		    "frequency above kernel.perf_event_max_sample_rate)";
		break;
	case ESRCH:
		s = "no such process";
		break;
	case ENOSYS:
		s = "this kernel has no perf_event_open (CONFIG_PERF_EVENTS is off)";
		break;
	case EBUSY:
		s = "the PMU is in use by another tool";
		break;
	default:
		return errmsg_set(em, err, "perf_event_open failed: %s", strerror(-err));
	}
	return errmsg_set(em, err, "%s", s);
}
