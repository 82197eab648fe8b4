/* proftop: a live, top-like sampling profiler.  main() parses the options,
 * starts the engine and renders each snapshot. */
#include "config.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "engine.h"
#include "options.h"
#include "output.h"
#include "util.h"
#include "view.h"

static bool render(struct snapshot *snap, void *ctx)
{
	const struct options *o = ctx;

	switch (o->output) {
	case OUTPUT_JSON:
		output_json(stdout, snap);
		break;
	case OUTPUT_SCREEN:
		/* Home and clear, then the table: a plain top until the
		 * interactive browser exists. */
		fputs("\033[H\033[2J", stdout);
		output_text(stdout, snap);
		break;
	case OUTPUT_TEXT:
		output_text(stdout, snap);
		break;
	}
	fflush(stdout);
	return false;
}

int main(int argc, char **argv)
{
	struct options opts;
	enum options_result res;
	struct engine *e;
	int status;

	if (options_parse(&opts, argc, argv, isatty(STDOUT_FILENO), &res)) {
		options_release(&opts);
		return 2;
	}
	if (res == OPTIONS_EXIT) {
		options_release(&opts);
		return 0;
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
