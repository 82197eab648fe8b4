/* The browser's per-instruction view (a): one function's instructions with
 * their share of its samples, the hot ones coloured and reachable with
 * TAB, jumps and calls followed with Enter.  A model like browser.h's (no
 * curses: tui.c draws it, the unit tests drive it with key codes); its
 * data is an annotate report from the snapshot, or asked of the engine. */
#ifndef PROFTOP_ANNOTATE_VIEW_H
#define PROFTOP_ANNOTATE_VIEW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "strbuf.h"
#include "view.h"

enum annotate_view_action {
	ANNOTATE_VIEW_ACT_NONE,
#define ACTION(name, help, ...) ANNOTATE_VIEW_ACT_##name,
#include "annotate-actions.def"
#undef ACTION
	ANNOTATE_VIEW_ACT__MAX,
};

/* What the browser has to do after a key: flags. */
enum {
	ANNOTATE_VIEW_CLOSE = 1 << 0,  /* back to the table */
	ANNOTATE_VIEW_OPEN = 1 << 1,   /* ask the engine for want_symbol (in want_dso) */
	ANNOTATE_VIEW_HELP = 1 << 2,
	ANNOTATE_VIEW_QUIT = 1 << 3,
	ANNOTATE_VIEW_PAUSE = 1 << 4,  /* the browser's p */
	ANNOTATE_VIEW_DETAIL = 1 << 5, /* the browser's I: its payload pane */
};

/* A line of the view: an instruction, or (s) the source line above it. */
struct annotate_view_row {
	size_t insn;                  /* its instruction (for a source line, the first
					 it produced) */
	bool source;
};

/* A place to come back to with Backspace. */
struct annotate_view_place {
	char *symbol, *dso;
	uint64_t addr;
};

struct annotate_view {
	char *symbol, *dso;           /* the function shown; dso: its path (or NULL: any) */
	uint64_t hint;                /* an address in it (a call's target) or 0, for
					 the engine to find it without samples */
	struct annotate_report *own;  /* the function's view, a copy (one fn), or NULL
					 while it has no samples yet */
	const struct annotate_fn *fn; /* own's function, or NULL */
	struct annotate_view_row *rows;  /* what the screen lists */
	size_t nr_rows, cap_rows;
	size_t selected, top, page;   /* row indexes; lines on the screen */
	bool moved;                   /* the user chose a line: refreshes keep it (by
					 address); else the hottest is selected */
	uint64_t sel_addr;
	bool counts;                  /* t: sample counts instead of percent */
	bool offsets;                 /* o: offsets from the start instead of addresses */
	bool source;                  /* s: source lines above their instructions */
	size_t *hot;                  /* instructions with samples, hottest first */
	size_t nr_hot;
	struct annotate_view_place *back;  /* Backspace's stack */
	size_t nr_back, cap_back;
	/* ANNOTATE_VIEW_OPEN: the function to ask for (a call's callee) */
	char *want_symbol, *want_dso;
	uint64_t want_addr;           /* the address to select then, or 0: the hottest */
	uint64_t want_hint;           /* its hint */
	char message[256];            /* for the status line; "" = none */
	/* The payload's columns (own->payload's, for a function with payload
	 * samples): each one's width, negative when the screen has no room. */
	int *pw;
	unsigned width;               /* the screen's columns; 0: unbounded */
};

void annotate_view_init(struct annotate_view *v);
void annotate_view_release(struct annotate_view *v);

/* Show symbol (in dso: its path, or NULL) from now on; nothing to show
 * until a report with it comes (annotate_view_update).  Keeps the
 * Backspace stack and the toggles. */
void annotate_view_open(struct annotate_view *v, const char *symbol, const char *dso);
/* A report that may hold the function shown (a snapshot's, or one asked
 * for): its data is copied, the selection kept on the same address (or
 * the hottest line while the user has not moved).  Returns whether r had
 * the function. */
bool annotate_view_update(struct annotate_view *v, const struct annotate_report *r);

void annotate_view_set_page(struct annotate_view *v, size_t lines);
/* The screen's width: payload columns that leave too little room for the
 * instruction give way, the lowest keep rank first. */
void annotate_view_set_width(struct annotate_view *v, unsigned cols);
unsigned annotate_view_key(struct annotate_view *v, int key);
enum annotate_view_action annotate_view_action_of(int key);

/* The lines on screen: nr, and line i's text for a screen width (percent
 * or count, address or offset, instruction with its target); *pct gets
 * the line's percent (for its colour), *source whether it is a source
 * line (not an instruction). */
size_t annotate_view_lines(const struct annotate_view *v);
void annotate_view_line(const struct annotate_view *v, size_t i, struct strbuf *sb, double *pct,
			bool *source);
/* The title ("leaf_a  [wl]  1234 samples ...") and the column titles. */
void annotate_view_title(const struct annotate_view *v, struct strbuf *sb);
void annotate_view_columns(const struct annotate_view *v, struct strbuf *sb);

/* The payload breakdown of the selected instruction for the pane (lines
 * ending in '\n', about width wide): its number of lines, 0 when the
 * function has no payload samples. */
int annotate_view_detail(const struct annotate_view *v, struct strbuf *sb, size_t width);

/* The help screen's lines for the view's keys (as browser_help_line). */
size_t annotate_view_help_lines(void);
void annotate_view_help_line(size_t i, char *buf, size_t size);

#endif
