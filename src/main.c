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

int main(int argc, char **argv)
{
	struct options opts;
	struct engine_config cfg;
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
			options_engine_config(&opts, true, &cfg);
			status = tui_main(&opts, &cfg);
			options_release(&opts);
			return status;
		}
		msg_notice("not a terminal: printing text tables (--batch); --tui forces the "
			   "browser");
		opts.output = OUTPUT_TEXT;
	}
	options_engine_config(&opts, false, &cfg);
	status = engine_start(&cfg, &e);
	if (status) {
		options_release(&opts);
		return status;
	}
	status = engine_run(e, render, &opts);
	engine_free(e);
	options_release(&opts);
	return status;
}
