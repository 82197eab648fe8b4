/* proftop: a live, top-like sampling profiler.  main() parses the options,
 * then either browses the snapshots in the terminal UI or prints them. */
#include "config.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "engine.h"
#include "options.h"
#include "output.h"
#include "tui.h"
#include "util.h"
#include "view.h"

/* In the browser, rows further down than -G can be expanded too. */
#define MAIN_TUI_TREE_ROWS 50

static bool render(struct snapshot *snap, void *ctx)
{
	const struct options *o = ctx;

	switch (o->output) {
	case OUTPUT_JSON:
		output_json(stdout, snap);
		break;
	case OUTPUT_SCREEN: /* not on a terminal: the batch table */
	case OUTPUT_TEXT:
		output_text(stdout, snap);
		break;
	case OUTPUT_FOLDED:
		output_folded(stdout, snap);
		break;
	}
	fflush(stdout);
	return false;
}

/* The browser filters, sorts and limits on its side: the engine publishes
 * every row, and -K/-U/-E/--percent-limit become the browser's start. */
static int main_tui(const struct options *opts)
{
	struct options eo = *opts;

	eo.view.hide_kernel = false;
	eo.view.hide_user = false;
	eo.view.percent_limit = 0;
	eo.view.max_rows = 0;
	if (eo.view.tree_rows && eo.view.tree_rows < MAIN_TUI_TREE_ROWS)
		eo.view.tree_rows = MAIN_TUI_TREE_ROWS;
	/* Like perf report: Command, Shared Object, Symbol. */
	if (!opts->sort_set)
		sort_spec_parse("comm,dso,sym", &eo.sort, NULL);
	return tui_main(opts, &eo);
}

int main(int argc, char **argv)
{
	struct options opts;
	enum options_result res;
	struct engine *e;
	int status;

	/* The output is chosen below, knowing whether there is a terminal. */
	if (options_parse(&opts, argc, argv, true, &res)) {
		options_release(&opts);
		return 2;
	}
	if (res == OPTIONS_EXIT) {
		options_release(&opts);
		return 0;
	}
	/* libdw and libdwfl contact the servers of DEBUGINFOD_URLS by
	 * themselves: only --debuginfod may reach the network.  Done before
	 * any thread starts (setenv is not thread-safe). */
	if (!opts.debuginfod)
		unsetenv("DEBUGINFOD_URLS");
	if (opts.output == OUTPUT_SCREEN && !opts.dump) {
		if (opts.tui || (isatty(STDIN_FILENO) && isatty(STDOUT_FILENO))) {
			status = main_tui(&opts);
			options_release(&opts);
			return status;
		}
		msg_notice("not a terminal: printing text tables (--batch); --tui forces the "
			   "browser");
		opts.output = OUTPUT_TEXT;
	}
	status = engine_start(&opts, &e);
	if (status) {
		options_release(&opts);
		return status;
	}
	status = engine_run(e, render, &opts);
	engine_free(e);
	options_release(&opts);
	return status;
}
