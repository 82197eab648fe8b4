/* The live source: perf events opened per (event, CPU) -- and per thread for
 * -p/-t/command targets, redirected into the CPU's ring -- read with poll. */
#ifndef PROFTOP_LIVE_H
#define PROFTOP_LIVE_H

#include <linux/perf_event.h>
#include <poll.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "event.h"

struct errmsg;
struct live;

struct live_config {
	struct event_spec event;      /* what to sample */
	bool event_is_default;        /* cycles by default: may fall back */
	struct event_sampling sampling;
	/* --wall: a second event on the same fds' rings, on every occurrence
	 * (period 1), with the switch records instead of the first's; both
	 * on CLOCK_MONOTONIC. */
	struct event_spec also;
	bool has_also;
	/* System-wide --off-cpu and --wall: the tracepoint without switch
	 * records; live_watch adds them where its samples have holes. */
	bool switch_holes;
	const int *cpus;              /* NULL: all online CPUs */
	size_t ncpus;
	const pid_t *tids;            /* threads to follow; NULL: system-wide */
	size_t ntids;
	size_t mmap_pages;
};

struct live_info {
	char event_name[160];         /* what is actually sampled (--wall: "A,B") */
	char note[160];               /* event fallback notice, or "" */
	char restriction[160];        /* "sampling user space only" notice, or "" */
	bool exclude_kernel;          /* user space only */
	size_t nr_cpus;
	size_t nr_fds;
};

/* Open, mmap and (unless enable_on_exec) enable.  On failure prints nothing
 * and returns -errno with a sentence for the user in em. */
int live_open(const struct live_config *cfg, struct live **out, struct errmsg *em);
void live_close(struct live *l);
const struct live_info *live_get_info(const struct live *l);
/* The attr the records of every ring were produced with. */
const struct perf_event_attr *live_attr(const struct live *l);
/* With a second event, which of the two produced the record (by its
 * sample id); else live_attr. */
const struct perf_event_attr *live_record_attr(const struct live *l,
					       const struct perf_event_header *hdr);

/* With switch_holes: switch records of every task on cpu, into its ring
 * (on false: closed again).  0 or -errno. */
int live_watch(struct live *l, int cpu, bool on);

/* Number of pollfds live_fill_pollfds writes. */
size_t live_nr_pollfds(const struct live *l);
void live_fill_pollfds(const struct live *l, struct pollfd *pfd);

typedef void (*live_record_cb)(const struct perf_event_header *hdr, void *ctx);

/* Drain every ring, calling cb for each record.  Returns the number of
 * records read. */
size_t live_read(struct live *l, live_record_cb cb, void *ctx);

/* Zero copy (ring.h's holds): keep the bytes p to p + n of the record
 * live_read's callback has now where they are, until live_release: false
 * where they cannot stay (then copy them).  Released on the reading
 * thread, in any order. */
bool live_hold(struct live *l, const void *p, size_t n, void **ring, uint64_t *pos);
void live_release(struct live *l, void *ring, uint64_t pos);
/* Whether held records leave some ring short of room: the holders should
 * copy them out and release them, or the kernel would soon lose records. */
bool live_short_of_room(const struct live *l);

/* Online CPUs from /sys/devices/system/cpu/online (sorted).  0 or -errno. */
int live_online_cpus(int **cpus, size_t *n);

#endif
