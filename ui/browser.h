/* The browser's model: the rows of the latest snapshot filtered, zoomed and
 * sorted on the UI side, the selection kept on the same entry across
 * refreshes, and the key map (actions.def).  No curses here: tui.c draws
 * it, the unit tests drive it with key codes. */
#ifndef PROFTOP_BROWSER_H
#define PROFTOP_BROWSER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "annotate-view.h"
#include "column.h"
#include "util.h"
#include "view.h"

/* Keys that are not characters, whatever the terminal library calls them. */
enum browser_keycode {
	BKEY_CTRL_C = 3,
	BKEY_BACKSPACE_CH = 8,
	BKEY_ESC = 27,
	BKEY_UP = 0x110000,  /* past the last Unicode code point */
	BKEY_DOWN,
	BKEY_LEFT,
	BKEY_RIGHT,
	BKEY_PGUP,
	BKEY_PGDN,
	BKEY_HOME,
	BKEY_END,
	BKEY_ENTER,
	BKEY_BACKSPACE,
	BKEY_F1,
	BKEY_BTAB,           /* Shift-Tab */
};

enum browser_action {
	BROWSER_ACT_NONE,
#define ACTION(name, help, ...) BROWSER_ACT_##name,
#include "actions.def"
#undef ACTION
	BROWSER_ACT__MAX,
};

/* What the caller has to do after a key: flags. */
enum {
	BROWSER_REDRAW = 1 << 0,
	BROWSER_QUIT = 1 << 1,
	BROWSER_SET_MODE = 1 << 2,   /* call engine_set_mode(b->mode) */
	BROWSER_RESUMED = 1 << 3,    /* unpaused: show the latest snapshot */
	BROWSER_ANNOTATE = 1 << 4,   /* ask the engine for b->ann.symbol in b->ann.dso
					(tui_source.annotate), then browser_annotate_report */
};

enum browser_screen {
	BROWSER_TABLE,
	BROWSER_HELP,
	BROWSER_PROMPT,   /* a line of input in the status line */
	BROWSER_INSNS,    /* the per-instruction view of a function (a) */
};

enum browser_prompt {
	BROWSER_PROMPT_FILTER,
	BROWSER_PROMPT_LIMIT,
};

/* One line of the table: a row, or a node of an expanded row's tree. */
struct browser_line {
	const struct snapshot_row *row;   /* in b->snap (for a node: its row) */
	const struct snapshot_node *node; /* NULL for the row itself */
	double self;                      /* percent shown (absolute or relative) */
	double children;                  /* likewise, when the snapshot has children */
	unsigned depth;                   /* 0 for a row, 1 for its tree's first level */
	bool expandable, expanded;
	size_t path;                      /* node: offset of its path in b->paths */
};

/* The identity of a row, to find it again in the next snapshot. */
struct browser_key {
	char *comm, *dso, *symbol;        /* copies: owned */
	char *srcline;                    /* likewise (-s srcline), or NULL */
	bool inlined;                     /* --inline: the row's symbol is inlined */
	bool has_pid, has_tid, has_cpu, kernel;
	uint32_t pid, tid, cpu;
};

struct baseline;

struct browser_init {
	struct view_opts view;            /* -K, -U, --percent-limit, -E */
	struct baseline *baseline;        /* --baseline (the browser owns it), or NULL */
	enum hist_mode mode;
	const char *print_dir;            /* where P writes; NULL = "." */
};

struct browser {
	struct snapshot *snap;            /* owned (malloc'd), or NULL */

	/* the table: rows of snap that pass, sorted */
	struct browser_line *lines;
	size_t nr_lines, lines_cap;
	uint64_t shown_period;            /* period of the rows that pass the filters */
	size_t hidden_by_limit;           /* rows under the percent limit or past -E */
	size_t nr_rows;                   /* rows among the lines (the rest: tree nodes) */

	/* what the user chose */
	char filter[128];                 /* symbol substring; "" = none */
	char *zoom_comm;                  /* NULL = no zoom */
	char *zoom_dso;
	bool zoom_dso_last;               /* Esc undoes the dso zoom first */
	bool hide_kernel, hide_user;
	double percent_limit;
	size_t max_rows;                  /* -E; 0 = all */
	bool relative;                    /* F: percent of the shown rows */
	enum column_id sort_col;
	bool payload;                     /* the columns include the payload's */
	bool detail;                      /* I: the payload pane of the selected row */
	enum hist_mode mode;
	bool paused;
	bool callees;                     /* G: trees show callees, not callers */
	bool expand_all;                  /* E; C clears it */
	char **toggled;                   /* ids expanded (or collapsed, under E) */
	size_t nr_toggled, toggled_cap;

	/* columns and selection */
	enum column_id cols[COLUMN__MAX];
	size_t nr_cols;
	size_t selected, top;             /* line indexes */
	size_t page;                      /* lines on the screen */
	struct browser_key sel;           /* the selected entry's identity */
	char *sel_path;                   /* and its tree node's path, or NULL */
	bool has_sel;
	struct strbuf paths;              /* node paths of the lines */

	enum browser_screen screen;
	enum browser_screen help_from;    /* the screen the help returns to */
	struct annotate_view ann;         /* BROWSER_INSNS's */
	size_t help_top;
	enum browser_prompt prompt;
	char input[128];

	struct baseline *baseline;        /* applied to each snapshot; B replaces it */

	char message[256];                /* shown in the status line; "" = none */
	const char *print_dir;
	bool quit;
};

void browser_init(struct browser *b, const struct browser_init *init);
void browser_release(struct browser *b);

/* Show snap (malloc'd; the browser releases and frees it with the next one
 * or browser_release), keeping the selection on the same entry; with a
 * baseline, its Baseline and Delta first (a baseline of another event is
 * dropped, with a message). */
void browser_set_snapshot(struct browser *b, struct snapshot *snap);

/* A report asked for after BROWSER_ANNOTATE (freed here): the view shows
 * its function if it has it. */
void browser_annotate_report(struct browser *b, struct annotate_report *r);

/* Recompute the lines after a change of filters, sort or percent base. */
void browser_rebuild(struct browser *b);

/* How many lines the screen shows; keeps the selection visible. */
void browser_set_page(struct browser *b, size_t lines);

/* Handle one key (a character or a BKEY_* code): returns BROWSER_* flags. */
unsigned browser_key(struct browser *b, int key);

/* One line of a key table (actions.def, annotate-actions.def). */
struct browser_binding {
	int action;                   /* the table's enum; 0 is its NONE */
	const char *help;
	int keys[4];                  /* 0 = none */
};
/* The action of key in tab (n lines), or 0. */
int browser_binding_of(const struct browser_binding *tab, size_t n, int key);
/* A help screen line: the binding's keys, then what it does. */
void browser_binding_help(const struct browser_binding *bd, char *buf, size_t size);

/* The action bound to key on the table screen, or BROWSER_ACT_NONE. */
enum browser_action browser_action_of(int key);
/* "q", "Ctrl-C", "PgDn"...: into buf, returns buf. */
const char *browser_key_name(int key, char *buf, size_t size);

/* The help screen, one line each: keys, then what they do. */
size_t browser_help_lines(void);
void browser_help_line(size_t i, char *buf, size_t size);

/* Set the status-line message (printf-like). */
void browser_message(struct browser *b, const char *fmt, ...) PRINTFLIKE(2, 3);

/* Percent shown for line i's row as a fraction of what F selects. */
double browser_percent(const struct browser *b, uint64_t period);

/* The sort column's title, for the header. */
const char *browser_sort_name(const struct browser *b);
/* A column's title for the current snapshot (column_title). */
const char *browser_col_title(const struct browser *b, enum column_id col);
/* The selected line's row, or NULL. */
const struct snapshot_row *browser_selected(const struct browser *b);

/* Write the table as text (the batch format) to f. */
void browser_print(const struct browser *b, FILE *f);

#endif
