/* proftop: a live, top-like sampling profiler.  main() parses the options,
 * then either browses the snapshots in the terminal UI or prints them. */
#include "config.h"

#include <malloc.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "baseline.h"
#include "engine.h"
#include "errmsg.h"
#include "options.h"
#include "output.h"
#include "pprof.h"
#include "tui.h"
#include "util.h"
#include "view.h"

/* The engine behind the browser's struct tui_source. */
struct main_engine {
	const struct engine_config *cfg;
	struct engine *e;
};

static int main_engine_start(void *ctx)
{
	struct main_engine *m = ctx;

	return engine_start(m->cfg, &m->e);
}

static int main_engine_run(void *ctx, engine_refresh_cb cb, void *cb_ctx)
{
	struct main_engine *m = ctx;

	return engine_run(m->e, cb, cb_ctx);
}

static void main_engine_stop(void *ctx)
{
	struct main_engine *m = ctx;

	engine_stop(m->e);
}

static void main_engine_set_mode(void *ctx, enum hist_mode mode)
{
	struct main_engine *m = ctx;

	engine_set_mode(m->e, mode);
}

static struct annotate_report *main_engine_annotate(void *ctx, const char *symbol,
						     const char *dso, uint64_t addr)
{
	struct main_engine *m = ctx;

	return engine_annotate(m->e, symbol, dso, addr);
}

static void main_engine_release(void *ctx)
{
	struct main_engine *m = ctx;

	engine_free(m->e);
	m->e = NULL;
}

/* The browser header's CPUs: "recording", "CPUs: all N", or -C's list
 * with its runs as ranges ("CPUs: 0-3,8"). */
static void main_cpus_text(const struct options *o, char *buf, size_t size)
{
	size_t i, len;

	if (o->input) {
		snprintf(buf, size, "recording");
		return;
	}
	if (!o->cpus) {
		snprintf(buf, size, "CPUs: all %ld", sysconf(_SC_NPROCESSORS_ONLN));
		return;
	}
	len = (size_t)snprintf(buf, size, "CPUs: ");
	for (i = 0; i < o->ncpus && len < size; i++) {
		size_t j = i;

		while (j + 1 < o->ncpus && o->cpus[j + 1] == o->cpus[j] + 1)
			j++;
		if (j > i + 1)
			len += (size_t)snprintf(buf + len, size - len, "%s%d-%d", i ? "," : "",
						o->cpus[i], o->cpus[j]);
		else
			len += (size_t)snprintf(buf + len, size - len, "%s%d", i ? "," : "",
						o->cpus[i]);
		i = j > i + 1 ? j : i;
	}
}

/* The browser over the engine, with what it shows of the options; it
 * takes the baseline. */
static int main_browse(const struct options *o, const struct engine_config *ecfg,
		       struct baseline *bl, const char *comment)
{
	struct main_engine m = { .cfg = ecfg };
	char cpus[128];
	struct tui_config cfg = {
		.cpus = cpus,
		.input = o->input,
		.command = o->command ? o->command[0] : NULL,
		.iterations = o->iterations,
		.delay = o->delay,
		.no_color = o->no_color,
		/* By default, a session that ends by itself (its command, or
		 * -n refreshes) ends the browser; a recording stays to read. */
		.exit_on_end = o->exit_on_end >= 0 ? o->exit_on_end :
			       (o->command || o->iterations) && !o->input,
		.view = o->view,
		.mode = o->mode,
		.baseline = bl,
		.baseline_save = o->baseline_save,
		.comment = comment,
		.source = {
			.ctx = &m,
			.start = main_engine_start,
			.run = main_engine_run,
			.stop = main_engine_stop,
			.set_mode = main_engine_set_mode,
			.annotate = main_engine_annotate,
			.release = main_engine_release,
		},
	};

	main_cpus_text(o, cpus, sizeof(cpus));
	return tui_main(&cfg);
}

/* What the printed refreshes go to: the table on stdout, --pprof's file;
 * --baseline's columns are added first, --baseline-save's last table kept. */
struct main_render {
	const struct options *o;
	struct engine *e;
	struct pprof_writer *pprof;
	int pprof_err;               /* the first failure, told once */
	struct baseline *baseline;
	bool baseline_bad;           /* another event's: the run stops, exit 2 */
	struct snapshot *last;       /* --baseline-save, live --pprof: the last
					snapshot */
};

static bool render(struct snapshot *snap, void *ctx)
{
	struct main_render *mr = ctx;
	const struct options *o = mr->o;
	struct errmsg em = ERRMSG_INIT;
	int err;

	if (mr->baseline_bad)
		return false;
	if (mr->baseline && (err = baseline_apply(mr->baseline, snap, &o->view, &em))) {
		msg_error("--baseline: %s", errmsg_text(&em, err));
		mr->baseline_bad = true;
		engine_stop(mr->e);
		return false;
	}
	if (mr->pprof && !mr->pprof_err && (err = pprof_writer_snapshot(mr->pprof, snap, &em))) {
		msg_error("--pprof: %s", errmsg_text(&em, err));
		mr->pprof_err = err;
	}
	switch (o->output) {
	case OUTPUT_NONE:
		break;
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
	/* A live --pprof file's last write is a one-shot's, of the last snapshot. */
	if (!o->baseline_save && !(mr->pprof && !o->input))
		return false;
	if (mr->last) {
		snapshot_release(mr->last);
		free(mr->last);
	}
	mr->last = xmalloc(sizeof(*mr->last));
	*mr->last = *snap;
	return true;
}

static bool main_keep_last(struct snapshot *snap, void *ctx)
{
	struct snapshot **last = ctx;

	if (*last) {
		snapshot_release(*last);
		free(*last);
	}
	*last = xmalloc(sizeof(**last));
	**last = *snap;
	return true;
}

/* --baseline=perf.data: the recording replayed with this run's table
 * (sort keys, event check at the first refresh), its table taken as the
 * baseline.  Returns 0, or the exit status after a message. */
static int main_baseline_recording(const struct options *o, bool browser, struct baseline **out)
{
	struct engine_config cfg;
	struct snapshot *last = NULL;
	struct engine *e;
	int status;

	options_engine_config(o, browser, &cfg);
	cfg.input = o->baseline;
	cfg.command = NULL;
	cfg.pids = cfg.tids = NULL;
	cfg.npids = cfg.ntids = 0;
	cfg.cpus = NULL;
	cfg.ncpus = 0;
	cfg.system_wide = false;
	cfg.iterations = 0;
	cfg.first_frame = false;
	cfg.mode = HIST_ACCUMULATE;
	cfg.view.stacks = cfg.view.stack_detail = false;
	cfg.view.tree_rows = 0;
	cfg.view.percent_limit = 0;
	cfg.view.max_rows = 0;
	cfg.view.hide_kernel = cfg.view.hide_user = false;
	cfg.nannotate = 0;
	if ((status = engine_start(&cfg, &e))) {
		msg_error("--baseline: %s cannot be replayed", o->baseline);
		return 2;
	}
	status = engine_run(e, main_keep_last, &last);
	if (!status && last && last->period)
		*out = baseline_from_snapshot(last, o->baseline);
	if (last) {
		snapshot_release(last);
		free(last);
	}
	engine_free(e);
	if (!*out) {
		msg_error("--baseline: %s: no samples in the recording", o->baseline);
		return 2;
	}
	return 0;
}

/* "proftop VERSION: the command line", the pprof files' comment. */
static char *main_comment(int argc, char **argv)
{
	struct strbuf sb;
	char *s;
	int i;

	strbuf_init(&sb);
	strbuf_addf(&sb, "proftop %s:", PROFTOP_VERSION);
	for (i = 0; i < argc; i++)
		strbuf_addf(&sb, " %s", argv[i]);
	s = xstrdup(sb.buf);
	strbuf_release(&sb);
	return s;
}

/* --pprof (and --baseline-save) build every distinct stack at each refresh,
 * in arrays of many megabytes: glibc's default of handing them to mmap, or
 * trimming the heap once they are freed, made the kernel zero them again
 * at every refresh (a third of proftop's faults and system time, issue 18).
 * Keep the freed heap for the next refresh; its size is that of the last
 * refresh's, which the process reached anyway. */
static void main_keep_heap(void)
{
#if defined(M_MMAP_THRESHOLD) && defined(M_TRIM_THRESHOLD)
	mallopt(M_MMAP_THRESHOLD, 32 << 20);    /* glibc's upper bound */
	mallopt(M_TRIM_THRESHOLD, 128 << 20);
#endif
}

/* The printed refreshes, with --pprof's writer; its comment names the
 * version and the command line. */
static int main_run(const struct options *o, struct engine *e, struct baseline *bl,
		    const char *comment)
{
	struct main_render mr = { .o = o, .e = e, .baseline = bl };
	struct errmsg em = ERRMSG_INIT;
	int status, err;

	if (o->pprof || o->baseline_save)
		main_keep_heap();
	if (o->pprof) {
		mr.pprof = pprof_writer_new(o->pprof, comment);
		if (!o->input)
			pprof_writer_live(mr.pprof);
	}
	status = engine_run(e, render, &mr);
	if (mr.pprof && !mr.pprof_err && (err = pprof_writer_finish(mr.pprof, mr.last, &em))) {
		msg_error("--pprof: %s", errmsg_text(&em, err));
		mr.pprof_err = err;
	}
	pprof_writer_free(mr.pprof);
	if (mr.last && o->baseline_save) {
		struct pprof_writer *w = pprof_writer_new(o->baseline_save, comment);

		if ((err = pprof_writer_snapshot(w, mr.last, &em))) {
			msg_error("--baseline-save: %s", errmsg_text(&em, err));
			mr.pprof_err = err;
		}
		pprof_writer_free(w);
	}
	if (mr.last) {
		snapshot_release(mr.last);
		free(mr.last);
	}
	if (mr.baseline_bad)
		return 2;
	return status ? status : mr.pprof_err ? 1 : 0;
}

int main(int argc, char **argv)
{
	struct options opts;
	struct engine_config cfg;
	enum options_result res;
	struct engine *e;
	struct baseline *bl = NULL;
	struct errmsg em = ERRMSG_INIT;
	char *comment;
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
	if (opts.baseline && baseline_is_recording(opts.baseline)) {
		bool browser = opts.output == OUTPUT_SCREEN && !opts.dump &&
			       (opts.tui || (isatty(STDIN_FILENO) && isatty(STDOUT_FILENO)));

		if ((status = main_baseline_recording(&opts, browser, &bl))) {
			options_release(&opts);
			return status;
		}
	} else if (opts.baseline && (status = baseline_load(opts.baseline, &bl, &em))) {
		msg_error("--baseline: %s", errmsg_text(&em, status));
		options_release(&opts);
		return 2;
	}
	comment = main_comment(argc, argv);
	/* libdw and libdwfl contact the servers of DEBUGINFOD_URLS by
	 * themselves: only --debuginfod may reach the network.  Done before
	 * any thread starts (setenv is not thread-safe). */
	if (!opts.debuginfod)
		unsetenv("DEBUGINFOD_URLS");
	if (opts.output == OUTPUT_SCREEN && !opts.dump) {
		if (opts.tui || (isatty(STDIN_FILENO) && isatty(STDOUT_FILENO))) {
			options_engine_config(&opts, true, &cfg);
			status = main_browse(&opts, &cfg, bl, comment);
			options_release(&opts);
			free(comment);
			return status;
		}
		msg_notice("not a terminal: printing text tables (--batch); --tui forces the "
			   "browser");
		opts.output = OUTPUT_TEXT;
	}
	options_engine_config(&opts, false, &cfg);
	status = engine_start(&cfg, &e);
	if (!status) {
		status = main_run(&opts, e, bl, comment);
		engine_free(e);
	}
	baseline_free(bl);
	free(comment);
	options_release(&opts);
	return status;
}
