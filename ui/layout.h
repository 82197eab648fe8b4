/* Table layout for the browser: which column goes where at a given terminal
 * width (the column table's width policy), and names cut in the middle with "…" to fit.  No curses here, so
 * the unit tests link it without a terminal. */
#ifndef PROFTOP_LAYOUT_H
#define PROFTOP_LAYOUT_H

#include <stdbool.h>
#include <stddef.h>

#include "column.h"

struct layout_cell {
	enum column_id col;
	unsigned x;        /* first screen column */
	unsigned width;    /* in screen columns */
	bool right;        /* numbers are right-aligned */
};

struct layout {
	struct layout_cell cells[COLUMN__MAX];
	size_t n;
	unsigned width;    /* the terminal width it was computed for */
};

/* Place cols (in display order) in width screen columns.  want[col] is the
 * width the widest cell of that column would like; with the title and the
 * column's least width (column.h) numbers get theirs, and names share the
 * rest: each gets its want up to its cap, and when the terminal is too
 * small the names of the lowest shrink rank are narrowed first (Command
 * and Shared Object before the symbol), the widest of them one column at
 * a time, down to their titles' width, then all of them again down to
 * their minimums; the last name column takes whatever is left.  snap gives the
 * payload's columns (NULL: none).  Cells may run past width only when
 * even the least widths do not fit. */
void layout_compute(struct layout *l, const struct snapshot *snap, const enum column_id *cols,
		    size_t n, const unsigned *want, unsigned width);

/* The cell of col in l, or NULL. */
const struct layout_cell *layout_find(const struct layout *l, enum column_id col);

/* Screen columns of a UTF-8 string (one per character). */
unsigned layout_text_width(const char *s);

/* Copy s into out (size bytes) so that it takes at most width columns:
 * when longer, the middle is replaced by "…" and both ends stay.  Control
 * characters become '?'.  Returns the width of the result. */
unsigned layout_ellipsize(const char *s, unsigned width, char *out, size_t size);

#endif
