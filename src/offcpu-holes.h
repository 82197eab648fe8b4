/* Live system-wide --off-cpu without switch records everywhere.  A CPU's
 * sched_switch samples chain (a switch's prev_pid is the previous one's
 * next_pid), except where the kernel wrote no sample for a switch-out: a
 * "hole", after which the next task's switch-in is missing.  On 6.18 here
 * there are two kinds: every switch-out of CPU 1's idle task, for minutes
 * at a time (thousands a second under a ping-pong), and a few a second of
 * threads that write no perf or ftrace output at all.  A CPU whose idle
 * task has holes gets switch records of its own (every switch-in on it),
 * until its idle task's switch-outs are sampled again; other holes are
 * counted, and the intervals they cut are dropped, never guessed. */
#ifndef PROFTOP_OFFCPU_HOLES_H
#define PROFTOP_OFFCPU_HOLES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct offcpu_holes_stats {
	uint64_t holes;             /* switch-ins the samples miss */
	uint64_t closed;            /* of them, on a CPU with its switch records */
	uint64_t idle;              /* of them, after an idle task */
	uint64_t watches, unwatches;    /* CPU switch records asked to open, close */
};

struct offcpu_holes;

struct offcpu_holes *offcpu_holes_new(void);
void offcpu_holes_free(struct offcpu_holes *h);

/* A sched_switch sample on cpu. */
void offcpu_holes_switch(struct offcpu_holes *h, uint32_t cpu, uint32_t prev_pid,
			 uint32_t next_pid);

/* Whether the CPU's switch records are open now (after a watch asked for
 * is opened, or an unwatch closed). */
void offcpu_holes_cpu_watched(struct offcpu_holes *h, uint32_t cpu, bool watched);

/* The next CPU whose switch records to open (*on) or close; false when
 * none. */
bool offcpu_holes_take(struct offcpu_holes *h, uint32_t *cpu, bool *on);

const struct offcpu_holes_stats *offcpu_holes_stats(const struct offcpu_holes *h);

#endif
