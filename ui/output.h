/* Non-interactive renderers of a snapshot: a text table (--batch, like
 * top -b), one JSON object per line (--json) and folded stacks (--folded). */
#ifndef PROFTOP_OUTPUT_H
#define PROFTOP_OUTPUT_H

#include <stdio.h>

#include "view.h"

struct snapshot;
struct snapshot_row;
struct strbuf;

void output_text(FILE *out, const struct snapshot *snap);
void output_json(FILE *out, const struct snapshot *snap);
/* Folded stacks (flame graph input): one "comm;root;...;leaf count" line
 * per unique stack of snap->stacks, count in (decayed) samples, then an
 * empty line ending the refresh. */
void output_folded(FILE *out, const struct snapshot *snap);

/* Alpha ProfileMe: the breakdown of row r (r->profileme set) as lines of
 * at most about width columns, each ending in '\n': its samples by mode
 * (PAL/kernel/user), retired, taken, killed, stalled, mispredicted,
 * Icache miss, load-store order, the PCTR means and the count of every
 * trap name.  The batch table prints it for its first row; the browser
 * for the selected one. */
void output_profileme_detail(struct strbuf *sb, const struct snapshot *snap,
			     const struct snapshot_row *r, size_t width);

/* A ProfileMe cell of the table (snap->profileme): the measure that
 * --order o sorts by, as a percent ("80.0%") or the PCTR1 mean ("45.5");
 * "-" when the row has none.  Locale-independent. */
void output_profileme_cell(struct strbuf *sb, const struct snapshot *snap,
			   const struct snapshot_row *r, enum view_order o);
/* The row's most frequent trap name, "-" when it has none. */
const char *output_profileme_trap(const struct snapshot_row *r);

#endif
