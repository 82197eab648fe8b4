/* Command-line options: parsed into a struct options, checked, and turned
 * into clear messages (exit status 2) when they are wrong. */
#ifndef PROFTOP_OPTIONS_H
#define PROFTOP_OPTIONS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include "hist.h"
#include "view.h"

struct engine_config;

enum output_mode {
	OUTPUT_SCREEN,  /* redraw a text table in place (terminal) */
	OUTPUT_TEXT,    /* --batch */
	OUTPUT_JSON,    /* --json */
	OUTPUT_FOLDED,  /* --folded: one "comm;frame;...;leaf count" line per stack */
	OUTPUT_NONE,    /* --pprof alone: the profile file, no table */
};

struct options {
	const char *event;          /* -e; NULL = cycles, falling back to cpu-clock */
	bool freq;                  /* -F (default) vs -c */
	uint64_t sample_freq;       /* -F HZ */
	bool freq_max;              /* -F max */
	uint64_t sample_period;     /* -c */
	bool system_wide;           /* -a, or no target */
	int *cpus;                  /* -C, sorted, unique; NULL = all online */
	size_t ncpus;
	pid_t *pids;                /* -p */
	size_t npids;
	pid_t *tids;                /* -t */
	size_t ntids;
	char **command;             /* after --: NULL-terminated argv, or NULL */
	struct sort_spec sort;      /* -s */
	enum hist_mode mode;        /* -z, --accumulate */
	double delay;               /* -d seconds */
	long iterations;            /* -n; 0 = unlimited */
	enum output_mode output;
	struct view_opts view;      /* -E, --percent-limit, -K, -U */
	size_t mmap_pages;          /* -m */
	bool mmap_pages_set;        /* -m was given: the engine keeps it as is */
	const char *input;          /* -i FILE: replay a perf.data ("-": stdin) */
	bool dump;                  /* -D: print the records of -i FILE */
	const char *pprof;          /* --pprof FILE ("-": stdout), or NULL */
	const char *baseline;       /* --baseline FILE (pprof or folded), or NULL */
	const char *baseline_save;  /* --baseline-save FILE: the last table as pprof */
	const char *symfs;          /* --symfs DIR */
	const char *buildid_dir;    /* --buildid-dir DIR */
	const char *vmlinux;        /* --vmlinux FILE */
	bool no_kallsyms_cache;     /* --no-kallsyms-cache */
	bool no_demangle;           /* --no-demangle: raw C++/Rust names */
	bool debuginfod;            /* --debuginfod: fetch missing debug files */
	double debuginfod_timeout;  /* --debuginfod-timeout, DEBUGINFOD_TIMEOUT: seconds */
	bool callchain;             /* -g, --call-graph fp, --folded; with -i the file's
				       chains are used whenever it has them */
	unsigned max_stack;         /* --max-stack; 0 = kernel.perf_event_max_stack */
	bool off_cpu;               /* --off-cpu: sched_switch intervals, weighed in ns */
	bool wall;                  /* --wall: and cpu-clock samples (off_cpu set too) */
	uint32_t dwarf_stack;       /* --call-graph dwarf[,SIZE]: bytes of user stack
				       per sample; 0: frame pointers */
	bool sort_set;              /* -s given (the TUI's default adds comm) */
	bool tui;                   /* --tui: the browser even without a terminal */
	bool no_color;              /* --no-color (or NO_COLOR in the environment) */
	int exit_on_end;            /* --[no-]exit-on-end; -1: leave when a command ends */
	const char **annotate;      /* --annotate=SYMBOL[@DSO], repeatable */
	size_t nannotate;
	bool annotate_intel;        /* -M intel */
};

enum options_result {
	OPTIONS_OK,
	OPTIONS_EXIT,     /* --help or --version printed: exit 0 */
};

/* Parse argv.  On a usage error prints one clear line on stderr and returns
 * -EINVAL (exit status 2).  stdout_is_tty chooses the default output. */
int options_parse(struct options *o, int argc, char **argv, bool stdout_is_tty,
		  enum options_result *res);
void options_release(struct options *o);

/* "0-3,8" -> sorted unique list.  Returns 0 or -EINVAL with em saying why. */
int options_parse_cpulist(const char *s, int **cpus, size_t *n, struct errmsg *em);
/* "1,2,3" -> list of positive ids.  Returns 0 or -EINVAL with em saying why. */
int options_parse_idlist(const char *s, pid_t **ids, size_t *n, struct errmsg *em);

void options_usage(FILE *out);

/* What the engine needs from the options.  browser: the snapshots go to
 * the interactive browser, which filters, sorts and limits on its side
 * (the engine publishes every row; -K/-U/-E/--percent-limit become the
 * browser's start) and wants a quick first frame; printed tables (o's
 * output) are read whole, later, so each waits for the kernel's symbols
 * and the last one longer for the rest.  The config borrows o's arrays
 * and strings. */
void options_engine_config(const struct options *o, bool browser, struct engine_config *out);

/* --call-graph dwarf's SIZE when not given (perf's). */
#define OPTIONS_DWARF_STACK 8192

#endif
