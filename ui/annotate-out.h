/* --annotate's functions after each refresh's table: per-instruction
 * lines in --batch, an "annotate" array in --json. */
#ifndef PROFTOP_ANNOTATE_OUT_H
#define PROFTOP_ANNOTATE_OUT_H

struct annotate_line;
struct annotate_report;
struct strbuf;

/* A jump's or call's target as text: "leaf_a+0x1e", "helper", or its
 * address when no symbol is known there.  Nothing for other lines. */
void annotate_out_target(struct strbuf *sb, const struct annotate_line *l);

/* Each function: a title line, its note if any, then one line per
 * instruction: percent of the function's period, samples, address, text. */
void annotate_out_text(struct strbuf *sb, const struct annotate_report *r);
/* ",\"annotate\":[...]" (and ",\"annotate_unmatched\":[...]" when some
 * name matched nothing yet), to go inside the refresh's object. */
void annotate_out_json(struct strbuf *sb, const struct annotate_report *r);

#endif
