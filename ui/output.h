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

/* The payload breakdown of row r (r->payload set): a line naming the row,
 * then the decoder's lines (payload_ops.format_detail), each ending in
 * '\n', of at most about width columns.  The batch table prints it for
 * its first row; the browser for the selected one. */
void output_payload_detail(struct strbuf *sb, const struct snapshot *snap,
			   const struct snapshot_row *r, size_t width);

/* How the chains were unwound, when they were: the "unwind:" line (DWARF
 * outcomes, or the frame-pointer hint) and, live with --call-graph dwarf,
 * a "rings:" line when the rings are too small for the stack copies.
 * Each line ends in '\n'; nothing when there is nothing to say.  The
 * text header prints them, the browser's header too. */
void output_unwind_text(struct strbuf *sb, const struct snapshot *snap);

#endif
