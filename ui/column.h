/* The table's columns, in one place: for each, its title, whether it is a
 * name or a number, its width policy, its cell text and its sort order;
 * the payload decoder's columns (src/arch/payload.h) join them through
 * the snapshot.  The batch table (output.c), the browser model (browser.c)
 * and its drawing (tui.c, layout.c) all read this.  No curses here. */
#ifndef PROFTOP_COLUMN_H
#define PROFTOP_COLUMN_H

#include <stdbool.h>
#include <stddef.h>

#include "view.h"

struct strbuf;

/* perf's mark of an inlined function (--inline), after its name. */
#define COLUMN_INLINED " (inlined)"
/* The Symbol column's cell starts with "[k] " or "[.] ", drawn apart. */
#define COLUMN_MARK_WIDTH 4
/* Payload columns a decoder may declare (more are not shown). */
#define COLUMN_PAYLOAD_MAX 16

enum column_id {
	COLUMN_CHILDREN, /* percent with callees (callchains) */
	COLUMN_SELF,	 /* percent of the period in the function itself */
	COLUMN_OVERHEAD, /* Self, as the batch table titles it without children */
	COLUMN_BASELINE, /* --baseline: the row's share in the baseline ("-": new) */
	COLUMN_DELTA,    /* Self minus Baseline, in points ("new", "gone") */
	COLUMN_SAMPLES,
	COLUMN_PAYLOAD, /* COLUMN_PAYLOAD + i: the payload decoder's column i */
	COLUMN_COMM = COLUMN_PAYLOAD + COLUMN_PAYLOAD_MAX,
	COLUMN_PID,
	COLUMN_TID,
	COLUMN_CPU,
	COLUMN_DSO,
	COLUMN_SYM,	/* "[k] name": the mark is part of the cell */
	COLUMN_SRCLINE, /* "file.c:12" (-s srcline) */
	COLUMN_DADDR_DSO, /* the data address's mapping (-s daddr_dso) */
	COLUMN_DADDR_SYM, /* its data symbol (-s daddr_sym) */
	COLUMN__MAX,
};

/* The columns of snap, in display order, into cols (COLUMN__MAX of room):
 * the percentages (Children and Self, or the batch table's Overhead),
 * Baseline and Delta with a baseline, Samples, the payload's columns when rows have payload stats, then one
 * column per sort key in the order of the keys, as perf does.  Returns
 * their number. */
size_t column_list(const struct snapshot *snap, bool batch, enum column_id *cols);

/* The title ("Self", "Shared Object", a payload column's for this data). */
const char *column_title(const struct snapshot *snap, enum column_id c);
/* Names are left-aligned and cut to fit; numbers right-aligned. */
bool column_is_name(const struct snapshot *snap, enum column_id c);
bool column_is_payload(enum column_id c);
/* The fewest screen columns: below this a name says nothing; a number
 * gets it even when its cells are narrower. */
unsigned column_min_width(const struct snapshot *snap, enum column_id c);
/* The most a name gets while another name could use the room, on a
 * screen width wide (~0u: no cap). */
unsigned column_cap(const struct snapshot *snap, enum column_id c, unsigned width);
/* When names do not fit, those of the lowest rank shrink first: a
 * payload's names (the pane has them whole), then Command and Shared
 * Object, then the symbol and the source line, the columns people read. */
unsigned column_shrink_rank(const struct snapshot *snap, enum column_id c);
/* When even that does not fit, payload columns give way whole, the lowest
 * rank first; 0 for columns that never do. */
unsigned column_keep_rank(const struct snapshot *snap, enum column_id c);
/* The longest a batch cell gets ("..." in the middle); 0: no limit. */
unsigned column_batch_max(enum column_id c);

/* How a cell's percentages are written: for batch text and JSON,
 * locale-independent and rounded half away from zero (textfmt_fixed); on
 * the screen as printf writes them, as the browser's header does. */
enum column_style {
	COLUMN_BATCH,
	COLUMN_SCREEN,
};

/* Append row r's cell text for column c (self and children: the percents
 * to show, which the browser may make relative).  Unknown values print as
 * "-", "[unknown]" or "??:0"; the Symbol column's "[k] " mark is not part
 * of the text (the renderers draw it: column_mark). */
void column_text(struct strbuf *sb, const struct snapshot *snap, const struct snapshot_row *r,
		 enum column_id c, double self, double children, enum column_style style);
const char *column_mark(const struct snapshot_row *r);
/* A row's Delta: Self minus Baseline, in points (a new row's whole Self,
 * a gone row's minus its Baseline). */
double column_delta(const struct snapshot_row *r);

/* Rows in column c's order: numbers descending, names ascending, rows
 * without a value last for the payload's.  0 when c does not decide. */
int column_cmp(const struct snapshot *snap, enum column_id c, const struct snapshot_row *a,
	       const struct snapshot_row *b);

/* The column --order's word names in snap (snap->order), or COLUMN__MAX
 * for the default order. */
enum column_id column_of_order(const struct snapshot *snap);

#endif
