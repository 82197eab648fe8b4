/* Views: an immutable snapshot of the hist, filtered and sorted, with
 * percentages, for the renderers (batch text, JSON, TUI). */
#ifndef PROFTOP_VIEW_H
#define PROFTOP_VIEW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "hist.h"

struct view_opts {
	bool hide_kernel;       /* -K */
	bool hide_user;         /* -U */
	double percent_limit;   /* --percent-limit: rows below are hidden */
	size_t max_rows;        /* -E: 0 = no limit */
};

struct snapshot_row {
	double self;            /* percent of the snapshot's total period */
	uint64_t samples;
	uint64_t period;
	const char *comm;       /* NULL when neither a key nor uniform */
	bool has_pid;           /* pid is a key or uniform */
	uint32_t pid;
	bool has_tid;
	uint32_t tid;
	bool has_cpu;
	uint32_t cpu;
	bool has_dso;           /* dso is a key */
	const char *dso;        /* short name, "[unknown]" when no map */
	const char *dso_path;
	bool has_sym;           /* sym is a key */
	const char *symbol;     /* name, or "[unknown]" */
	bool kernel;
};

/* The header fields are filled by the engine; view_build fills the rest. */
struct snapshot {
	double time;                 /* seconds since start */
	const char *event;           /* "cpu-clock" */
	const char *event_note;      /* "cycles not supported: using cpu-clock", or NULL */
	bool freq;                   /* sampling by frequency (-F) or period (-c) */
	uint64_t sample_freq;        /* when freq */
	uint64_t sample_period;      /* when !freq */
	const char *target;          /* "system-wide", "pid 1234", "command ./wl" */
	uint64_t total_samples;      /* samples received since start */
	uint64_t lost;               /* lost samples since start */
	uint64_t throttled;          /* throttle events since start */
	double samples_per_sec;      /* over the last interval */
	const char *mode;            /* "decay", "zero", "accumulate" */

	/* filled by view_build: */
	struct sort_spec sort;
	uint64_t samples;            /* in the table (decayed), all entries */
	uint64_t period;             /* total period, all entries */
	uint64_t kernel_period;      /* part of period in kernel entries */
	size_t nr_entries;           /* hist entries before filtering */
	size_t nr_rows;
	struct snapshot_row *rows;   /* sorted by period, descending */
};

/* Build rows from the hist: the strings in rows point into the machine's
 * DSOs and interned strings, which outlive the snapshot. */
void view_build(const struct hist *h, const struct view_opts *opts,
		struct snapshot *snap);
void snapshot_release(struct snapshot *snap);

#endif
