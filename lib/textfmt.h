/* Text for people and scripts, the same in every locale: fixed-decimal
 * numbers and word-wrapped lines, shared by the renderers (ui/) and the
 * payload decoders (src/arch/) that describe their own counters. */
#ifndef PROFTOP_TEXTFMT_H
#define PROFTOP_TEXTFMT_H

#include <stddef.h>

struct strbuf;

/* Append x with a fixed number of decimals ("12.50"); NaN and infinities
 * as 0.  printf's %f follows LC_NUMERIC, which the TUI sets from the
 * environment for ncurses: a decimal comma would make JSON invalid and
 * the text unparseable. */
void textfmt_fixed(struct strbuf *sb, double x, int decimals);

/* Append word to the line that starts at sb->buf + *line_start, first
 * breaking the line (and starting the next with indent) when the word
 * would take it past width.  Words on a line are separated by two spaces,
 * or one after a ':' ("traps: none 3  replay 1"). */
void textfmt_wrap(struct strbuf *sb, size_t *line_start, const char *word, size_t width,
		  const char *indent);

#endif
