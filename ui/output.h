/* Non-interactive renderers of a snapshot: a text table (--batch, like
 * top -b), one JSON object per line (--json) and folded stacks (--folded). */
#ifndef PROFTOP_OUTPUT_H
#define PROFTOP_OUTPUT_H

#include <stdio.h>

struct snapshot;

void output_text(FILE *out, const struct snapshot *snap);
void output_json(FILE *out, const struct snapshot *snap);
/* Folded stacks (flame graph input): one "comm;root;...;leaf count" line
 * per unique stack of snap->stacks, count in (decayed) samples, then an
 * empty line ending the refresh. */
void output_folded(FILE *out, const struct snapshot *snap);

#endif
