/* The interactive browser: a full-screen table over the engine's snapshots,
 * steered with perf top's and htop's keys. */
#ifndef PROFTOP_TUI_H
#define PROFTOP_TUI_H

#include <stdbool.h>

#include "view.h"

struct baseline;

/* The engine as the browser drives it: src/main.c fills this with thin
 * wrappers, so that ui/ sees only the snapshot, never the engine or the
 * command line.  start runs on the UI thread once the output is captured
 * (a command it starts inherits the capture); run on a thread of its own;
 * stop and set_mode from the UI thread while run runs. */
struct tui_source {
	void *ctx;
	/* 0, or the exit status to leave with after printing a message. */
	int (*start)(void *ctx);
	/* Calls on_snapshot with each snapshot (true: the callee keeps it)
	 * until stopped or the end; returns the exit status. */
	int (*run)(void *ctx, bool (*on_snapshot)(struct snapshot *snap, void *cb_ctx),
		   void *cb_ctx);
	void (*stop)(void *ctx);
	void (*set_mode)(void *ctx, enum hist_mode mode);
	/* The browser's a (and Enter on a call): count symbol (in dso, its
	   path; NULL: any) per instruction from now on, so that the next
	   snapshots' annotate reports carry it, and its view now (a report
	   of that function, or of none yet; annotate_report_free).  addr: an
	   address in it (a call's target), or 0. */
	struct annotate_report *(*annotate)(void *ctx, const char *symbol, const char *dso,
					    uint64_t addr);
	/* After start, whether it failed or run has returned since. */
	void (*release)(void *ctx);
};

/* What the browser shows and its initial state, prepared by src/main.c.
 * Strings are borrowed for the whole of tui_main. */
struct tui_config {
	const char *cpus;           /* the header's "recording", "CPUs: all N", "CPUs: 0-3,8" */
	const char *input;          /* the recording's name, or NULL: live */
	const char *command;        /* the command started (its name), or NULL */
	long iterations;            /* -n, 0 = until stopped */
	double delay;               /* seconds between refreshes */
	bool no_color;              /* --no-color (NO_COLOR is honoured too) */
	bool exit_on_end;           /* leave when the engine ends by itself */
	struct view_opts view;      /* -K, -U, --percent-limit, -E, ... */
	enum hist_mode mode;
	struct baseline *baseline;  /* --baseline, or NULL: the browser takes it */
	const char *baseline_save;  /* --baseline-save FILE: the last table shown, at
				       the end, as pprof, or NULL */
	const char *comment;        /* the pprof comment (version, command line) */
	struct tui_source source;
};

/* Start the source and browse its snapshots (the source's view must not
 * limit rows: the browser filters on its side), until q, a signal, or the
 * source's end with exit_on_end.  Owns the terminal meanwhile and restores
 * it on every exit.  Returns the exit status: 0 when the user quits a
 * running session, else the source's. */
int tui_main(const struct tui_config *cfg);

#endif
