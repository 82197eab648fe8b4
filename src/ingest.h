/* Ingestion and publishing: each record from a source decoded and fed to
 * the machine and the hist (samples waiting for symbols held aside), and
 * at each refresh a snapshot of the hist for the renderers. */
#ifndef PROFTOP_INGEST_H
#define PROFTOP_INGEST_H

#include <linux/perf_event.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "hist.h"
#include "view.h"

struct ingest;
struct machine;
struct offcpu_format;
struct source;
struct refresh_action;

/* What the table shows, and how: the engine's config. */
struct ingest_config {
	struct sort_spec sort;
	enum hist_mode mode;
	struct view_opts view;
	unsigned max_stack;          /* frames kept per chain; 0 = the kernel's maximum */
	bool live;                   /* records of this system now, not a recording */
	bool callchain;              /* -g: live, the callchain layout from the first refresh */
	bool demangle;
	bool debuginfod;
	double debuginfod_timeout;   /* seconds */
	const char *const *annotate; /* --annotate specs: counted per instruction */
	size_t nannotate;
	bool annotate_intel;
	/* The browser may open any function (ingest_annotate); a recording
	   then keeps every function's per-instruction counts. */
	bool annotate_browse;
	/* --off-cpu: the tracepoint samples' fields (the config's), or NULL */
	const struct offcpu_format *off_cpu;
	bool wall;                   /* with off_cpu: the other samples are on-CPU time */
};

/* The session's description in each snapshot (the engine's). */
struct ingest_header {
	double time;                 /* seconds since the start */
	const char *event;
	const char *event_note;      /* or NULL */
	bool freq;
	uint64_t sample_freq, sample_period;
	const char *target;
	int64_t wall_start_ns;       /* see snapshot.wall_start_ns */
	size_t ring_pages;           /* see snapshot.ring_pages */
	uint32_t stack_copy;
};

/* A new machine and hist.  e_machine (EM_*) is the machine the samples
 * come from: it decides the payload decoder. */
struct ingest *ingest_new(const struct ingest_config *cfg, int e_machine);
void ingest_free(struct ingest *in);
struct machine *ingest_machine(struct ingest *in);

/* Tests: off, every off-CPU interval is charged alone, none in runs
 * (offcpu.h), to compare with what runs give.  Returns the intervals
 * counted into runs so far. */
uint64_t ingest_offcpu_test_runs(struct ingest *in, bool on);

/* Live: the unwinder's queue holds sample stacks in src's rings rather
 * than copying them (src must outlive in: free in first). */
void ingest_set_source(struct ingest *in, struct source *src);
/* The end of a pass over the live records: the samples submitted go to
 * the unwinder thread now (one wakeup a pass), and held stacks are copied
 * out when the rings run short of room. */
void ingest_pass_end(struct ingest *in);

/* Load DSO symbols on the machine's loader thread from now on, holding the
 * samples that need them, and fetch from debuginfod if asked. */
void ingest_symbols_async(struct ingest *in);
/* Read the kernel's symbols on their thread; ingest_publish says once why
 * kernel samples will show as [unknown], if they will. */
void ingest_load_kernel_async(struct ingest *in);
/* A recording: count only the samples of attr (perf's dummy event for
 * side-band records has none worth counting). */
void ingest_only_attr(struct ingest *in, const struct perf_event_attr *attr);
/* And attr's too: --wall's sched_switch beside its cpu-clock. */
void ingest_also_attr(struct ingest *in, const struct perf_event_attr *attr);
/* The payload decoder for attr's samples in env (a recording's headers, or
 * this host's PMUs), when one selects them: IBS by its PMU and vendor.
 * Before the first record. */
struct arch_env;
void ingest_payload_env(struct ingest *in, const struct arch_env *env,
			const struct perf_event_attr *attr);
/* Whether the samples of attr can have data addresses for the daddr sort
 * keys: the payload decoder gives them (IBS Op), or attr samples
 * PERF_SAMPLE_ADDR (NULL: only the decoder).  After ingest_payload_env. */
bool ingest_has_data_addr(const struct ingest *in, const struct perf_event_attr *attr);
/* -p: the processes whose exit ends the session. */
void ingest_set_targets(struct ingest *in, const pid_t *pids, size_t n);
/* Live system-wide --off-cpu: find the holes in the tracepoint's samples
 * (offcpu-holes.h); ingest_offcpu_hole_next gives the CPUs whose switch
 * records to open (*on) or close, and ingest_offcpu_cpu_watched says
 * whether a CPU's are open. */
void ingest_offcpu_watch_holes(struct ingest *in);
bool ingest_offcpu_hole_next(struct ingest *in, uint32_t *cpu, bool *on);
void ingest_offcpu_cpu_watched(struct ingest *in, uint32_t cpu, bool watched);
/* Whether every process of ingest_set_targets has exited (false without). */
bool ingest_targets_gone(const struct ingest *in);

/* Process one record produced with attr (any source). */
void ingest_record(struct ingest *in, const struct perf_event_header *hdr,
		   const struct perf_event_attr *attr);

/* How the hist ages at each refresh; set from any thread. */
void ingest_set_mode(struct ingest *in, enum hist_mode mode);
/* From the browser's thread (with annotate_browse): count symbol (in dso,
 * its path or short name; NULL: any) per instruction from now on, and its
 * view now (annotate_report_of, addr its hint).  ended: no more records
 * come (the engine has returned), so the hist may be read from here for a
 * function without samples of its own (annotate_resolve). */
struct annotate_report *ingest_annotate(struct ingest *in, const char *symbol, const char *dso,
				       uint64_t addr, bool ended);

typedef bool (*ingest_publish_cb)(struct snapshot *snap, void *ctx);

/* Publish what the scheduler asked (REFRESH_PREVIEW or REFRESH_FULL): take
 * the symbols it says to wait for, build the snapshot with hdr and call cb
 * (which returns true to keep it); a refresh then ages the hist. */
void ingest_publish(struct ingest *in, const struct ingest_header *hdr,
		    const struct refresh_action *act, ingest_publish_cb cb, void *ctx);

#endif
