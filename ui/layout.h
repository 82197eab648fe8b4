/* Table layout for the browser: which column goes where at a given terminal
 * width, and names cut in the middle with "…" to fit.  No curses here, so
 * the unit tests link it without a terminal. */
#ifndef PROFTOP_LAYOUT_H
#define PROFTOP_LAYOUT_H

#include <stdbool.h>
#include <stddef.h>

enum layout_col {
	LAYOUT_CHILDREN,   /* percent with callees (callchains) */
	LAYOUT_SELF,       /* percent of the period in the function itself */
	LAYOUT_SAMPLES,
	/* Alpha ProfileMe (when the data has it): shares of the row's
	 * ProfileMe samples, the dominant trap, the mean PCTR1 */
	LAYOUT_PM_RETIRED,
	LAYOUT_PM_KILLED,
	LAYOUT_PM_STALLED,
	LAYOUT_PM_MISPRED,
	LAYOUT_PM_TRAPS,
	LAYOUT_PM_TRAP,    /* a name: the most frequent trap */
	LAYOUT_PM_ICMISS,
	LAYOUT_PM_LDST,
	LAYOUT_PM_PCTR1,   /* titled by what PCTR1 counted: the caller's */
	LAYOUT_COMM,
	LAYOUT_PID,
	LAYOUT_TID,
	LAYOUT_CPU,
	LAYOUT_DSO,
	LAYOUT_SYM,        /* "[k] name": the marker is part of the cell */
	LAYOUT_SRCLINE,    /* "file.c:12" (-s srcline) */
	LAYOUT__MAX,
};

struct layout_cell {
	enum layout_col col;
	unsigned x;        /* first screen column */
	unsigned width;    /* in screen columns */
	bool right;        /* numbers are right-aligned */
};

struct layout {
	struct layout_cell cells[LAYOUT__MAX];
	size_t n;
	unsigned width;    /* the terminal width it was computed for */
};

/* The column's title ("Self", "Shared Object"...). */
const char *layout_title(enum layout_col col);
bool layout_is_name(enum layout_col col);
/* Whether col is one of the ProfileMe columns. */
bool layout_is_profileme(enum layout_col col);

/* Place cols (in display order) in width screen columns.  want[col] is the
 * width the widest cell of that column would like (title included); numbers
 * get theirs, names share the rest: each gets its want up to a cap, the
 * widest are narrowed first when the terminal is too small, and the last
 * name column takes whatever is left.  Cells may run past width only when
 * even the minimum widths do not fit. */
void layout_compute(struct layout *l, const enum layout_col *cols, size_t n,
		    const unsigned *want, unsigned width);

/* The cell of col in l, or NULL. */
const struct layout_cell *layout_find(const struct layout *l, enum layout_col col);

/* Screen columns of a UTF-8 string (one per character). */
unsigned layout_text_width(const char *s);

/* Copy s into out (size bytes) so that it takes at most width columns:
 * when longer, the middle is replaced by "…" and both ends stay.  Control
 * characters become '?'.  Returns the width of the result. */
unsigned layout_ellipsize(const char *s, unsigned width, char *out, size_t size);

#endif
