/* --baseline and the browser's B: another profile's share of each row
 * (matched by the sort keys' names, not addresses, so a rebuilt binary
 * still matches), for the Baseline and Delta columns; the baseline's rows
 * without samples now are added as "gone". */
#ifndef PROFTOP_BASELINE_H
#define PROFTOP_BASELINE_H

#include <stdbool.h>
#include <stddef.h>

struct baseline;
struct errmsg;
struct snapshot;
struct view_opts;

/* Read FILE: a gzip-compressed pprof profile (proftop's, go tool pprof
 * -proto's, ...) or folded stacks (--folded's, flamegraph tools'; of
 * several blank-line separated refreshes, the last); a perf.data is
 * refused (src/main.c replays it and takes its table).  A row's share is
 * that of the samples whose leaf it is: the Self column's.  Returns 0, or
 * -errno with em naming the file and what is wrong in it. */
int baseline_load(const char *path, struct baseline **out, struct errmsg *em);
/* Whether path is a perf.data recording (its first bytes), which only
 * a replay can make a baseline of (baseline_from_snapshot). */
bool baseline_is_recording(const char *path);
/* The same from data[0..n], named name in messages: data is modified
 * (folded lines are cut in place, data[n] included). */
int baseline_parse(const char *name, char *data, size_t n, struct baseline **out,
		   struct errmsg *em);

/* The rows of snap (not its gone ones) as a baseline: B in the browser,
 * or a recording's table (name: the file; NULL: "the table at 12.3s"). */
struct baseline *baseline_from_snapshot(const struct snapshot *snap, const char *name);

/* Set snap's rows' baseline shares and append the gone rows (again, if
 * snap had a baseline applied: its gone rows are dropped first, so that a
 * new baseline can replace the old on the same snapshot).  Rows are keyed
 * by the sort keys the baseline has (comm, pid, tid, dso short name,
 * symbol; others are left out of the match).  Gone rows pass the table's
 * filters of view (-K, -U, --percent-limit on their Baseline, -E), when
 * given (the browser filters its rows itself).  Returns 0, or -EINVAL with
 * em when the baseline counts another event than snap. */
int baseline_apply(struct baseline *bl, struct snapshot *snap, const struct view_opts *view,
		   struct errmsg *em);

/* Where it came from: the file, or "the table at 12.3s". */
const char *baseline_name(const struct baseline *bl);

void baseline_free(struct baseline *bl);

#endif
