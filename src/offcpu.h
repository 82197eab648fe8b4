/* Off-CPU time: the sched:sched_switch tracepoint's raw fields decoded from
 * its tracefs format, and each thread's off-CPU interval, from its
 * switch-out (with the chain it had then) to its switch-in. */
#ifndef PROFTOP_OFFCPU_H
#define PROFTOP_OFFCPU_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct errmsg;

/* Where sched_switch's fields lie in a sample's RAW payload. */
struct offcpu_field {
	uint32_t offset, size;     /* size 0: not found */
	bool is_signed;
};

struct offcpu_format {
	struct offcpu_field prev_pid, prev_state, next_pid;
};

/* Parse a tracefs "format" file of sched_switch.  Returns 0, or -EINVAL
 * with em naming the missing or bad field. */
int offcpu_format_parse(const char *text, struct offcpu_format *f, struct errmsg *em);

/* The same from a recording's TRACING_DATA (perf's copy of the formats of
 * its tracepoints): sched_switch's text found in it and parsed.  Returns 0,
 * or -ENOENT / -EINVAL with em saying why. */
int offcpu_format_from_tracing(const void *data, size_t size, struct offcpu_format *f,
			       struct errmsg *em);

struct offcpu_switch {
	uint32_t prev_pid, next_pid;   /* tids, as the kernel names them */
	uint64_t prev_state;
};

/* Decode a RAW payload (the u32 size of PERF_SAMPLE_RAW already taken
 * off).  False when a field lies beyond it. */
bool offcpu_decode(const struct offcpu_format *f, const void *raw, uint32_t size,
		   struct offcpu_switch *out);

/* Whether a prev_state means "preempted while runnable": the state bits
 * (below TASK_REPORT_MAX, 0x100) are TASK_RUNNING, whatever the preempt
 * bit above them says. */
bool offcpu_state_runnable(uint64_t prev_state);

/* Whether a prev_state is a dying thread's last switch (EXIT_DEAD 0x10,
 * EXIT_ZOMBIE 0x20 in the reported state): it never comes back, and its
 * EXIT record came before this switch. */
bool offcpu_state_dead(uint64_t prev_state);

/* A closed off-CPU interval: chain valid until the next call on the
 * tracker. */
struct offcpu_interval {
	uint32_t pid, tid, cpu;
	uint64_t start, end;
	bool runnable;              /* preempted: waiting for a CPU, not blocked */
	uint64_t ip;
	uint16_t cpumode;
	const uint64_t *chain;
	uint64_t nr_chain;
};

struct offcpu_stats {
	uint64_t switches;          /* switch-outs seen */
	uint64_t intervals;         /* closed and charged */
	uint64_t blocked_ns, runnable_ns;
	uint64_t unmatched_in;      /* switch-ins of threads never seen going out */
	uint64_t reordered;         /* switch-outs read after their switch-in (another
				       CPU's ring): closed at it, not lost */
	uint64_t dropped;           /* intervals ending before they started */
	uint64_t exited;            /* closed at the thread's exit */
	uint64_t in_runs;           /* counted into a run (offcpu_run_extend) */
};

struct offcpu;

struct offcpu *offcpu_new(void);
void offcpu_free(struct offcpu *o);

/* Thread tid of pid went off the CPU at time with this chain (copied).
 * True with the interval in *iv when its switch-in was read first (from
 * another CPU's ring): then it is closed at once, at that switch-in. */
bool offcpu_out(struct offcpu *o, const struct offcpu_interval *at, struct offcpu_interval *iv);

/* Thread tid is back on a CPU (or exited) at time: true with its interval
 * in *iv when it was off. */
bool offcpu_in(struct offcpu *o, uint32_t tid, uint64_t time, struct offcpu_interval *iv);
/* Exit: closes the interval if the thread was off, and forgets it. */
bool offcpu_exit(struct offcpu *o, uint32_t tid, uint64_t time, struct offcpu_interval *iv);
/* Threads known (seen going off or on, not exited). */
size_t offcpu_threads(const struct offcpu *o);

/* The next thread still off the CPU at time, from *cursor (0 to start):
 * its interval so far, which then restarts at time (charged up to a
 * refresh and continuing; a switch-in found later with an earlier time
 * then closes it with nothing more to charge).  False when there are no
 * more. */
bool offcpu_next_open(struct offcpu *o, size_t *cursor, uint64_t time,
		      struct offcpu_interval *iv);

/* Runs: most of a thread's intervals have the chain of one of its last
 * two, and n of them charged at once cost what one does, with the same
 * counts.  After charging iv alone, offcpu_run_start makes it (and tag,
 * the engine's: what it was charged as) the key of a run of its thread,
 * in place of its older run, which offcpu_run_evict ended first; a thread
 * has two.  offcpu_run_extend counts a closed interval into the run with
 * its key (true), and the engine charges it later with the others:
 * offcpu_run_evict (tid's older run), offcpu_run_take (one of tid's, until
 * false) or offcpu_run_next (every thread's, from *cursor 0) give a run's
 * intervals as one, of their summed duration (start moved back), n of
 * them, and its tag, and end the run.  The engine ends them all before
 * anything could charge the same key differently (a refresh, a thread's
 * new maps or comm). */
void offcpu_run_start(struct offcpu *o, const struct offcpu_interval *iv, const void *tag);
bool offcpu_run_extend(struct offcpu *o, const struct offcpu_interval *iv, const void *tag);
bool offcpu_run_evict(struct offcpu *o, uint32_t tid, struct offcpu_interval *iv, uint64_t *n,
		      const void **tag);
bool offcpu_run_take(struct offcpu *o, uint32_t tid, struct offcpu_interval *iv, uint64_t *n,
		     const void **tag);
bool offcpu_run_next(struct offcpu *o, size_t *cursor, struct offcpu_interval *iv, uint64_t *n,
		     const void **tag);

const struct offcpu_stats *offcpu_stats(const struct offcpu *o);

#endif
