/* The engine: a source (the live rings or a recording) -> decode -> machine
 * -> hist, and a snapshot for the renderers at each refresh.  Owns the
 * source, the machine and the hist; runs on the calling thread. */
#ifndef PROFTOP_ENGINE_H
#define PROFTOP_ENGINE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "hist.h"
#include "view.h"

struct engine;
struct snapshot;

/* What the engine needs to know, built from the command line by its
 * caller (options_engine_config).  Pointers are borrowed: they must
 * outlive the engine. */
struct engine_config {
	/* What to sample, live. */
	const char *event;          /* NULL: cycles, falling back to cpu-clock */
	bool freq;                  /* by frequency, else by period */
	uint64_t sample_freq;
	bool freq_max;              /* kernel.perf_event_max_sample_rate */
	uint64_t sample_period;
	bool callchain;             /* frame-pointer chains (a recording's are used
				       whenever it has them) */
	unsigned max_stack;         /* frames kept per chain; 0 = the kernel's maximum */
	bool off_cpu;               /* sched_switch: rows weighed by time off the CPU */
	bool wall;                  /* with off_cpu: cpu-clock samples too, rows
				       weighed by wall time (both in ns) */
	uint32_t dwarf_stack;       /* --call-graph dwarf: user stack bytes per sample
				       (0: frame-pointer chains) */
	size_t mmap_pages;          /* per ring */
	bool mmap_pages_set;        /* given: kept as is even with chains */
	/* Where: every CPU, or these; system-wide, or these processes,
	 * threads or a command to start. */
	bool system_wide;
	const int *cpus;            /* NULL: all online */
	size_t ncpus;
	const pid_t *pids;
	size_t npids;
	const pid_t *tids;
	size_t ntids;
	char **command;             /* NULL-terminated argv, or NULL */
	/* Or a recording. */
	const char *input;          /* perf.data ("-": stdin), or NULL: live */
	bool dump;                  /* print its records instead */
	/* Symbols. */
	const char *symfs;
	const char *buildid_dir;    /* --buildid-dir, or NULL: perf's rule */
	const char *const *annotate; /* --annotate: the functions counted per instruction */
	size_t nannotate;
	bool annotate_intel;        /* -M intel */
	bool annotate_browse;       /* the browser may open any function (engine_annotate) */
	const char *vmlinux;
	bool kallsyms_cache;        /* live: kallsyms from the cache (kernel.h) */
	bool demangle;
	bool debuginfod;
	double debuginfod_timeout;  /* seconds */
	/* The table. */
	struct sort_spec sort;
	enum hist_mode mode;
	struct view_opts view;
	/* Refreshes. */
	double delay;               /* seconds */
	long iterations;            /* 0 = until stopped */
	bool first_frame;           /* a quick first frame before the first refresh */
	bool wait_kernel;           /* a refresh waits for the kernel's symbols */
	bool last_waits;            /* the last refresh waits longer for symbols */
};

/* Called with each snapshot.  Return true to keep it (the callee then owns
 * it and calls snapshot_release), false to let the engine release it. */
typedef bool (*engine_refresh_cb)(struct snapshot *snap, void *ctx);

/* Check the config against the machine (event names, CPUs, pids), start
 * the command if any, open the events and read /proc.  Returns 0, or the
 * exit status to leave with (1 runtime error, 2 usage error) after printing
 * one clear message. */
int engine_start(const struct engine_config *cfg, struct engine **out);

/* Sample until interrupted, -n refreshes, the command's end or the targets'
 * exit, calling cb with a snapshot at each refresh.  With a recording:
 * read it whole and call cb once (or, with dump, print its records).
 * Returns the exit status: 0, 1 on a damaged recording, or the command's
 * (128+N when killed by signal N). */
int engine_run(struct engine *e, engine_refresh_cb cb, void *ctx);

/* From another thread (the UI): stop engine_run soon, or change how the
 * hist ages at each refresh. */
void engine_stop(struct engine *e);
void engine_set_mode(struct engine *e, enum hist_mode mode);
/* The browser's a, from its thread (ingest_annotate): count symbol (in
 * dso) per instruction from now on, and its view now (free it with
 * annotate_report_free). */
struct annotate_report *engine_annotate(struct engine *e, const char *symbol, const char *dso,
				       uint64_t addr);

void engine_free(struct engine *e);

#endif
