/* The live source: opens the events, maps the rings, drains them. */
#include "config.h"

#include "live.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

#include "arch.h"
#include "errmsg.h"
#include "options.h"
#include "ring.h"
#include "util.h"

struct live {
	struct perf_event_attr attr;
	/* live_config.also: its attr and its fds' sample ids (sorted) */
	bool has_also;
	struct perf_event_attr also_attr;
	uint64_t *also_ids;
	size_t nalso_ids, also_cap;
	/* live_config.switch_holes: the tracepoint's attr (l->attr or
	 * also_attr) and the switch records' dummy, opened by live_watch */
	struct perf_event_attr *tp_attr;
	struct perf_event_attr watch_attr;
	int *cpus;           /* per ring, its CPU */
	int *cpu_watch_fds;  /* per ring, live_watch's of the whole CPU, or -1 */
	struct live_info info;
	int *fds;            /* every fd opened; the first per CPU owns the ring */
	size_t nfds, cap_fds;
	int *ring_fds;       /* per CPU */
	struct ring **rings; /* per CPU */
	size_t nrings;
	/* live_read's merge state, per ring */
	const struct perf_event_header **cur;
	size_t *heap_idx;
	uint64_t *heap_time;
	struct ring *cb_ring;  /* the ring of the record live_read's cb has */
};

int live_online_cpus(int **cpus, size_t *n)
{
	char *buf;
	int err = read_file("/sys/devices/system/cpu/online", 4096, &buf, NULL);

	if (err)
		return err;
	buf[strcspn(buf, "\n")] = '\0';
	err = options_parse_cpulist(buf, cpus, n, NULL);
	free(buf);
	return err;
}

static void live_add_fd(struct live *l, int fd)
{
	l->fds = xgrow(l->fds, &l->cap_fds, l->nfds + 1, sizeof(*l->fds));
	l->fds[l->nfds++] = fd;
}

/* Open the event for one (pid, cpu); the CPU's first fd gets the ring, the
 * others are redirected into it. */
static int live_open_one(struct live *l, pid_t pid, size_t cpu_idx, int cpu, size_t pages)
{
	int fd = event_open(&l->attr, pid, cpu, -1, 0);
	uint64_t id;

	if (fd < 0)
		return fd;
	live_add_fd(l, fd);
	if (l->ring_fds[cpu_idx] < 0) {
		l->rings[cpu_idx] = ring_mmap(fd, pages);
		if (!l->rings[cpu_idx])
			return -errno;
		l->ring_fds[cpu_idx] = fd;
	} else if (ioctl(fd, PERF_EVENT_IOC_SET_OUTPUT, l->ring_fds[cpu_idx]) < 0) {
		return -errno;
	}
	if (!l->has_also)
		return 0;
	if ((fd = event_open(&l->also_attr, pid, cpu, -1, 0)) < 0)
		return fd;
	live_add_fd(l, fd);
	if (ioctl(fd, PERF_EVENT_IOC_SET_OUTPUT, l->ring_fds[cpu_idx]) < 0 ||
	    ioctl(fd, PERF_EVENT_IOC_ID, &id) < 0)
		return -errno;
	l->also_ids = xgrow(l->also_ids, &l->also_cap, l->nalso_ids + 1, sizeof(*l->also_ids));
	l->also_ids[l->nalso_ids++] = id;
	return 0;
}

static int live_id_cmp(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return CMP(x, y);
}

static void live_close_fds(struct live *l)
{
	size_t i;

	for (i = 0; i < l->nrings; i++) {
		if (l->rings[i])
			ring_free(l->rings[i]);
		l->rings[i] = NULL;
		l->ring_fds[i] = -1;
	}
	for (i = 0; i < l->nfds; i++)
		close(l->fds[i]);
	l->nfds = 0;
	l->nalso_ids = 0;
}

static int live_open_all(struct live *l, const struct live_config *cfg, const int *cpus,
			 size_t ncpus)
{
	size_t c, t;
	int err;

	for (c = 0; c < ncpus; c++) {
		if (!cfg->tids) {
			err = live_open_one(l, -1, c, cpus[c], cfg->mmap_pages);
			if (err)
				return err;
			continue;
		}
		for (t = 0; t < cfg->ntids; t++) {
			err = live_open_one(l, cfg->tids[t], c, cpus[c], cfg->mmap_pages);
			/* A thread that exited since it was listed is not an error. */
			if (err == -ESRCH && cfg->ntids > 1)
				continue;
			if (err)
				return err;
		}
	}
	return 0;
}

/* The second event's attr (l->attr made): every occurrence, the switch
 * records on it alone, and both on one clock so that the rings merge in
 * order and a refresh can charge up to its own time. */
static void live_also_attr(struct live *l, const struct live_config *cfg,
			   const struct event_sampling *s)
{
	struct event_sampling one = *s;

	one.freq = false;
	one.freq_or_period = 1;
	one.tracking = false;
	event_attr_init(&l->also_attr, &cfg->also, &one);
	/* Per thread the switch-ins are in the switch records alone;
	 * system-wide, live_holes_attr takes them off again. */
	l->also_attr.context_switch = s->tracking;
	l->attr.context_switch = 0;
	l->attr.use_clockid = l->also_attr.use_clockid = 1;
	l->attr.clockid = l->also_attr.clockid = CLOCK_MONOTONIC;
	l->has_also = true;
}

/* live_config.switch_holes: the tracepoint opened without switch records,
 * and the dummy that live_watch opens on a CPU where its samples have
 * holes: only the switch records, with the tracepoint's sample_id fields. */
static void live_holes_attr(struct live *l)
{
	struct perf_event_attr *w = &l->watch_attr;

	l->tp_attr = l->has_also ? &l->also_attr : &l->attr;
	l->tp_attr->context_switch = 0;
	memset(w, 0, sizeof(*w));
	w->size = sizeof(*w);
	w->type = PERF_TYPE_SOFTWARE;
	w->config = PERF_COUNT_SW_DUMMY;
	w->sample_period = 1;
	w->sample_type = l->tp_attr->sample_type;
	w->sample_id_all = 1;
	w->context_switch = 1;
	w->exclude_kernel = l->tp_attr->exclude_kernel;
	w->exclude_hv = l->tp_attr->exclude_hv;
	w->use_clockid = 1;
	w->clockid = l->tp_attr->clockid;
}

int live_open(const struct live_config *cfg, struct live **out, struct errmsg *em)
{
	struct live *l = xcalloc(1, sizeof(*l));
	struct event_spec ev = cfg->event;
	struct event_sampling s = cfg->sampling;
	int *cpus = NULL;
	size_t ncpus, i;
	int err;

	if (cfg->cpus) {
		cpus = xmalloc(cfg->ncpus * sizeof(*cpus));
		memcpy(cpus, cfg->cpus, cfg->ncpus * sizeof(*cpus));
		ncpus = cfg->ncpus;
	} else if ((err = live_online_cpus(&cpus, &ncpus)) != 0) {
		free(l);
		return errmsg_set(em, err, "cannot read the online CPUs: %s", strerror(-err));
	}
	l->nrings = ncpus;
	l->ring_fds = xmalloc(ncpus * sizeof(*l->ring_fds));
	l->rings = xcalloc(ncpus, sizeof(*l->rings));
	l->cur = xcalloc(ncpus, sizeof(*l->cur));
	l->heap_idx = xcalloc(ncpus, sizeof(*l->heap_idx));
	l->heap_time = xcalloc(ncpus, sizeof(*l->heap_time));
	for (i = 0; i < ncpus; i++)
		l->ring_fds[i] = -1;

	/* Wake up when a quarter of a ring is full. */
	s.wakeup_bytes = (uint32_t)(cfg->mmap_pages * (size_t)sysconf(_SC_PAGESIZE) / 4);
	if (!s.exclude_kernel && !event_may_profile_kernel()) {
		/* Unprivileged under paranoid 2: the user's own code only. */
		s.exclude_kernel = true;
		snprintf(l->info.restriction, sizeof(l->info.restriction),
			 "perf_event_paranoid is %d: sampling user space only", event_paranoid());
	}
	for (;;) {
		event_attr_init(&l->attr, &ev, &s);
		/* On Alpha, cycles samples carry the ProfileMe payload. */
		arch_adjust_attr(&l->attr, arch_host_machine());
		if (cfg->has_also)
			live_also_attr(l, cfg, &s);
		if (cfg->switch_holes && !cfg->tids)
			live_holes_attr(l);
		err = live_open_all(l, cfg, cpus, ncpus);
		if (!err)
			break;
		live_close_fds(l);
		if (cfg->event_is_default && ev.type == PERF_TYPE_HARDWARE &&
		    event_error_unsupported(err)) {
			/* No hardware PMU (a VM): a timer-based event still works. */
			event_parse("cpu-clock", &ev);
			snprintf(l->info.note, sizeof(l->info.note),
				 "cycles not supported: using cpu-clock");
			continue;
		}
		event_explain_error(err, !cfg->tids, em);
		free(cpus);
		live_close(l);
		return err;
	}
	if (l->has_also)
		snprintf(l->info.event_name, sizeof(l->info.event_name), "%s,%s", ev.name,
			 cfg->also.name);
	else
		snprintf(l->info.event_name, sizeof(l->info.event_name), "%s", ev.name);
	if (l->nalso_ids) /* qsort(NULL, 0) is undefined */
		qsort(l->also_ids, l->nalso_ids, sizeof(*l->also_ids), live_id_cmp);
	l->info.exclude_kernel = s.exclude_kernel;
	l->info.nr_cpus = ncpus;
	l->info.nr_fds = l->nfds;
	l->cpus = cpus;
	l->cpu_watch_fds = xmalloc(ncpus * sizeof(*l->cpu_watch_fds));
	for (i = 0; i < ncpus; i++)
		l->cpu_watch_fds[i] = -1;
	if (!s.enable_on_exec) {
		for (i = 0; i < l->nfds; i++)
			ioctl(l->fds[i], PERF_EVENT_IOC_ENABLE, 0);
	}
	*out = l;
	return 0;
}

void live_close(struct live *l)
{
	if (!l)
		return;
	live_close_fds(l);
	free(l->also_ids);
	free(l->cpus);
	free(l->cpu_watch_fds);
	free(l->fds);
	free(l->ring_fds);
	free(l->rings);
	free(l->cur);
	free(l->heap_idx);
	free(l->heap_time);
	free(l);
}

const struct live_info *live_get_info(const struct live *l)
{
	return &l->info;
}

const struct perf_event_attr *live_attr(const struct live *l)
{
	return &l->attr;
}

const struct perf_event_attr *live_record_attr(const struct live *l,
					       const struct perf_event_header *hdr)
{
	uint64_t id;

	/* Switch records come from live_watch's dummies alone, for the
	 * tracepoint's intervals. */
	if (l->tp_attr && (hdr->type == PERF_RECORD_SWITCH ||
			   hdr->type == PERF_RECORD_SWITCH_CPU_WIDE))
		return l->tp_attr;
	if (!l->has_also || hdr->size < sizeof(*hdr) + sizeof(id))
		return &l->attr;
	/* PERF_SAMPLE_IDENTIFIER: a sample's first word, the last of the
	 * sample_id trailer of other records (both attrs have them). */
	if (hdr->type == PERF_RECORD_SAMPLE)
		memcpy(&id, hdr + 1, sizeof(id));
	else
		memcpy(&id, (const char *)hdr + hdr->size - sizeof(id), sizeof(id));
	return bsearch(&id, l->also_ids, l->nalso_ids, sizeof(id), live_id_cmp) ?
		       &l->also_attr : &l->attr;
}

/* Open the watch dummy on the CPU of ring c, into that ring. */
static int live_watch_cpu(struct live *l, size_t c)
{
	int fd;

	if (!l->rings[c])
		return -ENODEV;
	if ((fd = event_open(&l->watch_attr, -1, l->cpus[c], -1, 0)) < 0)
		return fd;
	live_add_fd(l, fd);
	l->cpu_watch_fds[c] = fd;
	if (ioctl(fd, PERF_EVENT_IOC_SET_OUTPUT, l->ring_fds[c]) < 0)
		return -errno;
	return 0;
}

/* Close ring c's watch of its whole CPU. */
static int live_unwatch_cpu(struct live *l, size_t c)
{
	size_t i;

	for (i = 0; i < l->nfds; i++) {
		if (l->fds[i] != l->cpu_watch_fds[c])
			continue;
		close(l->fds[i]);
		l->fds[i] = l->fds[--l->nfds];
		l->cpu_watch_fds[c] = -1;
		return 0;
	}
	return -ENOENT;
}

int live_watch(struct live *l, int cpu, bool on)
{
	size_t c;

	if (!l->tp_attr)
		return -EINVAL;
	for (c = 0; c < l->nrings; c++) {
		if (l->cpus[c] != cpu)
			continue;
		if (!on)
			return live_unwatch_cpu(l, c);
		return l->cpu_watch_fds[c] >= 0 ? 0 : live_watch_cpu(l, c);
	}
	return -ENODEV;
}

size_t live_nr_pollfds(const struct live *l)
{
	return l->nrings;
}

void live_fill_pollfds(const struct live *l, struct pollfd *pfd)
{
	size_t i;

	for (i = 0; i < l->nrings; i++) {
		pfd[i].fd = l->ring_fds[i];
		pfd[i].events = POLLIN;
		pfd[i].revents = 0;
	}
}

/* The ring holding the oldest pending record: a binary min-heap of ring
 * indices keyed by record time. */
struct live_heap {
	size_t *idx;
	uint64_t *time;     /* per ring */
	size_t n;
};

static bool heap_less(const struct live_heap *h, size_t a, size_t b)
{
	return h->time[h->idx[a]] < h->time[h->idx[b]] ||
	       (h->time[h->idx[a]] == h->time[h->idx[b]] && h->idx[a] < h->idx[b]);
}

static void heap_swap(struct live_heap *h, size_t a, size_t b)
{
	size_t t = h->idx[a];

	h->idx[a] = h->idx[b];
	h->idx[b] = t;
}

static void heap_down(struct live_heap *h, size_t i)
{
	for (;;) {
		size_t l = 2 * i + 1, r = l + 1, m = i;

		if (l < h->n && heap_less(h, l, m))
			m = l;
		if (r < h->n && heap_less(h, r, m))
			m = r;
		if (m == i)
			return;
		heap_swap(h, i, m);
		i = m;
	}
}

static void heap_up(struct live_heap *h, size_t i)
{
	while (i > 0 && heap_less(h, i, (i - 1) / 2)) {
		heap_swap(h, i, (i - 1) / 2);
		i = (i - 1) / 2;
	}
}

/* Records are handed on in time order across the rings: a process that
 * moved between CPUs has its MMAP2 in one ring and its next samples in
 * another, and a drain covers up to a quarter of each ring. */
size_t live_read(struct live *l, live_record_cb cb, void *ctx)
{
	const struct perf_event_header **cur = l->cur;
	struct live_heap h = { l->heap_idx, l->heap_time, 0 };
	size_t i, n = 0;

	for (i = 0; i < l->nrings; i++) {
		if (!l->rings[i])
			continue;
		ring_read_begin(l->rings[i]);
		cur[i] = ring_next(l->rings[i]);
		if (!cur[i])
			continue;
		h.time[i] = record_time(cur[i], &l->attr);
		h.idx[h.n] = i;
		heap_up(&h, h.n++);
	}
	while (h.n > 0) {
		size_t r = h.idx[0];

		l->cb_ring = l->rings[r];
		cb(cur[r], ctx);
		l->cb_ring = NULL;
		n++;
		/* The record stays valid until its ring's next ring_next. */
		cur[r] = ring_next(l->rings[r]);
		if (cur[r]) {
			h.time[r] = record_time(cur[r], &l->attr);
		} else {
			h.idx[0] = h.idx[--h.n];
		}
		heap_down(&h, 0);
	}
	for (i = 0; i < l->nrings; i++)
		if (l->rings[i])
			ring_read_end(l->rings[i]);
	return n;
}

bool live_hold(struct live *l, const void *p, size_t n, void **ring, uint64_t *pos)
{
	if (!l->cb_ring || (*pos = ring_hold(l->cb_ring, p, n)) == RING_NO_HOLD)
		return false;
	*ring = l->cb_ring;
	return true;
}

void live_release(struct live *l, void *ring, uint64_t pos)
{
	(void)l;
	ring_release(ring, pos);
}

bool live_short_of_room(const struct live *l)
{
	size_t i;

	for (i = 0; i < l->nrings; i++)
		if (l->rings[i] && ring_short_of_room(l->rings[i]))
			return true;
	return false;
}
