/* Non-interactive renderers of a snapshot: a text table (--batch, like
 * top -b) and one JSON object per line (--json). */
#ifndef PROFTOP_OUTPUT_H
#define PROFTOP_OUTPUT_H

#include <stdio.h>

struct snapshot;

void output_text(FILE *out, const struct snapshot *snap);
void output_json(FILE *out, const struct snapshot *snap);

#endif
