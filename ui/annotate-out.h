/* --annotate's functions after each refresh's table: per-instruction
 * lines in --batch, an "annotate" array in --json. */
#ifndef PROFTOP_ANNOTATE_OUT_H
#define PROFTOP_ANNOTATE_OUT_H

#include <stdbool.h>
#include <stddef.h>

struct annotate_fn;
struct annotate_line;
struct annotate_report;
struct payload_ops;
struct strbuf;

/* A jump's or call's target as text: "leaf_a+0x1e", "helper", or its
 * address when no symbol is known there.  Nothing for other lines. */
void annotate_out_target(struct strbuf *sb, const struct annotate_line *l);

/* Payload column col's width for f's lines (cell: scratch): its title's,
 * its declared one, 7, or its widest value among f's lines; a name
 * column's: its declared width (names are cut to it), at least its
 * title's. */
int annotate_out_pwidth(const struct payload_ops *ops, const struct annotate_fn *f, size_t col,
			struct strbuf *cell);
/* The payload columns of a line (stats NULL: none), a space before each;
 * titles when title is set.  widths: annotate_out_pwidth's, negative for
 * a column left out. */
void annotate_out_pcells(struct strbuf *sb, const struct payload_ops *ops, const void *stats,
			 const void *total, bool title, const int *widths);

/* Whether line k of f starts a source line (its first instruction, or
 * another line or inlined function than the instruction before). */
bool annotate_out_source_starts(const struct annotate_fn *f, size_t k);
/* A line's source as text: "file.c:12 [inlined: f]  the line's text". */
void annotate_out_source(struct strbuf *sb, const struct annotate_line *l);

/* Each function: a title line, its note if any, then one line per
 * instruction: percent of the function's period, samples, address, text. */
void annotate_out_text(struct strbuf *sb, const struct annotate_report *r);
/* ",\"annotate\":[...]" (and ",\"annotate_unmatched\":[...]" when some
 * name matched nothing yet), to go inside the refresh's object. */
void annotate_out_json(struct strbuf *sb, const struct annotate_report *r);

#endif
