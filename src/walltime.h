/* The time columns of --wall and --off-cpu: each row's time on the CPU,
 * blocked off it, and waiting to run, kept as payload stats (payload.h) so
 * that the column table, --order, JSON and the browser's sort take them as
 * they take a decoder's columns. */
#ifndef PROFTOP_WALLTIME_H
#define PROFTOP_WALLTIME_H

#include <stdbool.h>
#include <stdint.h>

#include "payload.h"

enum walltime_kind {
	WALLTIME_ON,      /* on a CPU: a cpu-clock sample's period */
	WALLTIME_BLOCKED, /* off it, asleep (prev_state not runnable) */
	WALLTIME_RUNQ,    /* off it, preempted while runnable: waiting to run */
};

/* The decoded form hist_add_payload takes: one sample's time (or n's). */
struct walltime_sample {
	enum walltime_kind kind;
	uint64_t ns;
	uint64_t n;       /* the samples ns is the sum of (--off-cpu's merged
			     intervals of one chain), 1 or more */
};

/* A row's stats (all in ns, decayed as the row's period is). */
struct walltime_stats {
	uint64_t samples;
	uint64_t on_ns, blocked_ns, runq_ns;
};

/* --wall: On-CPU, Off-CPU, Runq and Wall, each a percent of the table's
 * wall time (so that On-CPU + Off-CPU = Wall, which is Self). */
extern const struct payload_ops walltime_wall;
/* --off-cpu: Runq, a percent of the table's off-CPU time. */
extern const struct payload_ops walltime_offcpu;

/* Whether key is one of these columns' --order words. */
bool walltime_order_known(const char *key);
/* Their --order words, ", "-separated (static). */
const char *walltime_order_keys(void);

#endif
