/* The interactive browser: a full-screen table over the engine's snapshots,
 * steered with perf top's and htop's keys. */
#ifndef PROFTOP_TUI_H
#define PROFTOP_TUI_H

#include <stdbool.h>

struct engine_config;
struct options;

/* Start the engine with cfg (its view must not limit rows: the browser
 * filters on its side) and browse its snapshots with user's -K,
 * -U, --percent-limit and -E as the initial state, until q, a signal, or
 * the engine's end with --exit-on-end.  Owns the terminal meanwhile and
 * restores it on every exit.  Returns the exit status: 0 when the user
 * quits a running session, else the engine's. */
int tui_main(const struct options *user, const struct engine_config *cfg);

#endif
