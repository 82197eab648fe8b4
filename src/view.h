/* Views: an immutable snapshot of the hist, filtered and sorted, with
 * percentages, for the renderers (batch text, JSON, TUI). */
#ifndef PROFTOP_VIEW_H
#define PROFTOP_VIEW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "hist.h"
#include "payload.h"

/* The order of the table's rows (--order), apart from the grouping keys
 * (-s): "overhead" (the default), or the word a payload decoder gives one
 * of its columns (payload_column.order_key): rows by that column's value,
 * highest first; rows without payload samples go last, in the default
 * order. */
#define VIEW_ORDER_DEFAULT "overhead"
/* Checks s against "overhead" and every decoder's order words.  Returns 0
 * with *out = s (NULL for "overhead"), or -EINVAL with em naming the
 * known words. */
int view_order_parse(const char *s, const char **out, struct errmsg *em);

struct view_opts {
	bool hide_kernel;       /* -K */
	bool hide_user;         /* -U */
	double percent_limit;   /* --percent-limit: rows below are hidden (and, with
				   callchains, tree nodes below it) */
	size_t max_rows;        /* -E: 0 = no limit */

	/* Callchains: used only when the hist has them (hist_has_callchains). */
	bool no_children;       /* --no-children: no Children column, sort by self,
				   trees from the samples of the row's own function */
	size_t tree_rows;       /* -G: the first N rows get caller and callee trees */
	bool tree_percent_total;/* --tree-percent total: node shares of the total
				   period instead of the row's entry */
	size_t tree_max_nodes;  /* per tree, 0: VIEW_TREE_MAX_NODES; beyond it the
				   coldest branches are dropped and counted */
	bool stacks;            /* fill snapshot.stacks (folded output) */
	bool stack_detail;      /* and split them (--pprof) by the pid and tid
				   keys and by the address of each frame (the
				   engine keeps them), in groups of the same
				   functions (snapshot_stack.group) */
	bool inline_frames;     /* --inline: an address in inlined code counts for
				   the innermost inlined function (a row and a
				   tree node marked inlined), whose callers are the
				   functions it was inlined into, then the real
				   function; from libdw, for displayed rows only */
	const char *order;      /* --order: a column's order_key, or NULL for
				   the default */
};

/* Nodes below this share (percent, of the entry or of the total as
 * chosen) are left out of trees unless --percent-limit is set: perf's
 * default callchain threshold. */
#define VIEW_TREE_MIN_PERCENT 0.5
#define VIEW_TREE_MAX_NODES 2048

/* A call tree, immutable, owned by the snapshot (freed by
 * snapshot_release).  A row's tree is one array of nodes: element 0 is
 * the root, which stands for the row's own function; every node's
 * children are a contiguous run of that same array, hottest first
 * (period descending, then name), so a renderer walks it recursively with
 * `for (i = 0; i < n->nr_children; i++) walk(&n->children[i])` and can key
 * its expand/collapse state on (row, path of child indices) or simply on
 * the node's address, stable for the snapshot's life.
 *
 * Callers tree (row->callers): the children of a node are the functions
 * that called it; a path from the root reads leaf -> caller -> its
 * caller ... -> main (perf's caller graph).  Callees tree (row->callees):
 * the children of a node are the functions it called; the part of a
 * node's period not in its children is its self time there.
 *
 * In children mode (the default with callchains) a tree covers every
 * sample with the row's function anywhere on its chain (for callers, from
 * its innermost occurrence; for callees, from its outermost); with
 * --no-children only the samples where it is the sampled function.
 * Nodes below the threshold (VIEW_TREE_MIN_PERCENT, or --percent-limit
 * when set) are left out, so children's periods may sum to less than
 * their parent's. */
struct snapshot_node {
	const char *symbol;          /* name, or "[unknown]" */
	const char *dso;             /* short name, or "[unknown]" */
	bool kernel;
	bool inlined;                /* --inline: symbol was inlined into its parent
					in the callers tree (its child in callees) */
	bool synthetic;              /* symbol is a sub_<hex> name from CFI */
	uint64_t period;             /* of the samples through this path (decayed) */
	uint64_t samples;
	double share;                /* percent: share_entry, or share_total with
					--tree-percent total (snapshot.tree_percent_total) */
	double share_entry;          /* percent of the root's period */
	double share_total;          /* percent of the snapshot's total period */
	unsigned depth;              /* 0 for the root */
	const struct snapshot_node *children;   /* nr_children nodes, or NULL */
	size_t nr_children;
};

/* One frame of a folded stack. */
struct view_frames_pool;

struct snapshot_frame {
	const char *symbol;          /* name, or "[unknown]" */
	const char *dso;             /* short name, or "[unknown]" */
	bool kernel;
	bool inlined;                /* --inline: inlined into the frame before it */
	bool synthetic;              /* symbol is a sub_<hex> name from CFI */
	const struct dso *object;    /* the DSO, or NULL: its path and build ID
					for --pprof's mappings */
	uint64_t addr;               /* view_opts.stack_detail: the address in the
					DSO's ELF space (the kernel's own), else 0;
					0 in stacks with addrs (their frames are a
					group's): snapshot_frame_addr */
	const char *file;            /* --inline, -s srcline: the function's source
					file from the DWARF (where it is defined),
					or NULL */
	unsigned start_line;         /* and the line where it is defined, or 0 */
	unsigned line;               /* stack_detail with --inline or -s srcline:
					the source line at addr in this function
					(the innermost inlined one's line there,
					each caller's the line of its call), or 0 */
};

/* A frame's object (snapshot_frame.object) for exporters outside src/
 * (--pprof's mappings): its full path, and its build ID (*id, the size
 * returned; 0 when unknown or its symbols are not loaded yet). */
const char *view_object_path(const struct dso *d);
size_t view_object_build_id(const struct dso *d, const uint8_t **id);
/* Its code's addresses (snapshot_frame.addr) as pprof's Mapping gives them:
 * [*start, *limit) of the executable segment, at *offset in the file, once
 * its symbols are loaded.  Returns 0, or -ENOENT (the kernel, JIT code, not
 * loaded). */
int view_object_text(const struct dso *d, uint64_t *start, uint64_t *limit, uint64_t *offset);

/* One unique stack (comm and frames) with its counts, for folded output;
 * with view_opts.stack_detail one per pid, tid and frame addresses, the
 * stacks of the same comm and functions next to each other and of the
 * same group (what --folded prints as one line). */
struct snapshot_stack {
	const char *comm;            /* NULL when unknown */
	const struct snapshot_frame *frames;  /* root (outermost) first, leaf last */
	size_t nr_frames;
	uint64_t samples;            /* decayed, like the table */
	uint64_t period;
	size_t group;                /* stacks of one group are next to each other */
	bool has_pid, has_tid;       /* stack_detail and the key is a sort key */
	uint32_t pid, tid;
	/* Kept stacks with stack_detail: the chain store's frame ids (one a
	 * frame, innermost first; snapshot.frame_ids_of), each naming one
	 * frame's function and address for the store's life, or NULL.  The
	 * store's: read them before the next ingestion (live --pprof). */
	const uint32_t *frame_ids;
	/* Kept stacks with stack_detail: each frame's address, root first as
	 * frames, whose addr is then 0 (a group's stacks share their frames:
	 * one copy of each group's, not one a stack), or NULL: the frames'
	 * own.  Read through snapshot_frame_addr. */
	const uint64_t *addrs;
};

/* The address of stack st's frame j (root first). */
static inline uint64_t snapshot_frame_addr(const struct snapshot_stack *st, size_t j)
{
	return st->addrs ? st->addrs[j] : st->frames[j].addr;
}

struct snapshot_row {
	double self;            /* percent of the snapshot's total period */
	uint64_t samples;
	uint64_t period;
	const char *comm;       /* NULL when neither a key nor uniform */
	bool has_pid;           /* pid is a key or uniform */
	uint32_t pid;
	bool has_tid;
	uint32_t tid;
	bool has_cpu;
	uint32_t cpu;
	bool has_dso;           /* dso is a key */
	const char *dso;        /* short name, "[unknown]" when no map */
	const char *dso_path;
	bool has_sym;           /* sym is a key */
	const char *symbol;     /* name, or "[unknown]" */
	bool inlined;           /* --inline: symbol is an inlined function (shown
				   "name (inlined)" as perf does) */
	bool synthetic;         /* symbol is a sub_<hex> name from CFI (no
				   symbol covers it: dso_symbol_synthetic) */
	bool has_srcline;       /* srcline is a key (-s srcline) */
	const char *srcline;    /* "file.c:12" (base name, perf's format); without
				   line information perf's fallbacks: "sym+OFF"
				   (decimal), "dso[hexaddr]", or "??:0" */
	bool has_daddr_dso;     /* daddr_dso is a key */
	const char *daddr_dso;  /* the data address's mapping: the DSO's short name,
				   "[heap]", "[stack]", "anon" (as perf names
				   them); "[unknown]" for samples without a data
				   address, or with one in no map */
	bool has_daddr_sym;     /* daddr_sym is a key */
	const char *daddr_sym;  /* its data symbol, else daddr_dso's name */
	bool kernel;
	/* callchains (snapshot.callchains), else zero/NULL: */
	double children;        /* percent of the total period: samples with this row's
				   function anywhere on their chain (valid when
				   snapshot.children) */
	uint64_t children_period;
	const struct snapshot_node *callers;  /* root of its callers tree, for the first
						 -G rows, else NULL */
	const struct snapshot_node *callees;  /* likewise, callees */
	/* The row's payload stats (snapshot.payload_rows), else NULL: owned
	   by the snapshot, read through snapshot.payload. */
	const void *payload;
	/* --baseline (snapshot.baseline; ui/baseline.c fills them): */
	bool has_baseline;      /* the baseline has the row's keys; else "new" */
	bool gone;              /* only in the baseline: no samples now */
	double baseline;        /* percent of the baseline's total, by the same keys */
};

/* Outcomes of DWARF unwinding (enum unwind_outcome) a snapshot counts;
 * the first is "reached a root" (the share frame-pointer chains report). */
#define SNAPSHOT_UNWIND_OUTCOMES 8
#define SNAPSHOT_UNWIND_ROOT 0

/* --annotate's view of its functions at a refresh (src/annotate.c builds
 * it; the snapshot carries it to the renderers). */
/* One instruction of a function's view. */
struct annotate_line {
	uint64_t addr;               /* in the ELF's own address space, as objdump's */
	uint8_t size;                /* bytes: 0 for a sampled address that starts
					no instruction */
	uint8_t bytes[16];
	char text[200];              /* "mov %rsp, %rbp" (the raw bytes without Capstone) */
	uint64_t period, samples;    /* of the samples at addr */
	/* A direct jump or call: */
	uint64_t target;             /* its destination, or 0 */
	bool call;                   /* a call (else a jump) */
	char target_sym[96];         /* the function at target, "" when none is known */
	uint64_t target_off;         /* target's offset in it */
	/* From the DWARF (interned, valid until exit), else NULL: */
	const char *source;          /* "/path/file.c:12": the line that produced it */
	const char *source_text;     /* that line of the file, when it could be read */
	const char *inlined;         /* the inlined function it is in (innermost) */
	void *payload;               /* their payload stats (annotate_report.payload's),
					or NULL */
};

/* One function matched by a --annotate name, as of a refresh. */
struct annotate_fn {
	char *spec;                  /* the --annotate argument it matched */
	char *symbol, *dso, *dso_path;
	uint64_t start, size;
	uint64_t period, samples;    /* the sum of its lines': the row's self */
	char *note;                  /* why there is no disassembly or it is cut, or NULL */
	void *payload;               /* the lines' payload stats together: the row's */
	struct annotate_line *lines;
	size_t nr_lines;
};

struct annotate_report {
	struct annotate_fn *fns;
	size_t nr_fns;
	char **unmatched;            /* specs no sampled function matched yet */
	size_t nr_unmatched;
	const struct payload_ops *payload; /* the data's decoder (Alpha ProfileMe), or NULL */
};
/* Frees a report (a snapshot's, or one the browser asked for). */
void annotate_report_free(struct annotate_report *r);

/* The header fields are filled by the engine; view_build fills the rest. */

struct snapshot {
	double time;                 /* seconds since start */
	const char *event;           /* "cpu-clock" */
	const char *event_note;      /* "cycles not supported: using cpu-clock", or NULL */
	bool freq;                   /* sampling by frequency (-F) or period (-c) */
	uint64_t sample_freq;        /* when freq */
	uint64_t sample_period;      /* when !freq */
	const char *target;          /* "system-wide", "pid 1234", "command ./wl" */
	int64_t wall_start_ns;       /* a recording's start on the wall clock (ns since
					the epoch: its file's time less its length), or
					0: now less time */
	uint64_t total_samples;      /* samples received since start */
	uint64_t lost;               /* lost samples since start */
	uint64_t throttled;          /* throttle events since start */
	size_t ring_pages;           /* live --call-graph dwarf: pages of each
					CPU's ring (0: not known) */
	uint32_t stack_copy;         /* and the bytes of stack per sample */
	uint64_t callchain_zero_ends; /* return addresses of 0 left out since start */
	uint64_t threads, processes; /* known to the machine now (exited ones
					are freed: tests watch this stay bounded) */
	double samples_per_sec;      /* over the last interval */
	/* --off-cpu: periods are ns off the CPU; over the last interval */
	bool off_cpu;
	double offcpu_ms_per_sec;    /* off-CPU time charged, ms per second */
	double switches_per_sec;     /* sched_switch samples */
	uint64_t offcpu_dropped;     /* intervals with a lost start or end, since start */
	/* live system-wide: switch-ins the tracepoint missed, those on a CPU
	 * with switch records, those after an idle task, and the times a
	 * CPU's switch records were opened and closed (offcpu-holes.h) */
	bool offcpu_holes_on;
	uint64_t offcpu_holes, offcpu_holes_closed, offcpu_holes_idle, offcpu_watches;
	uint64_t offcpu_unwatches;
	/* --wall (off_cpu set too): periods are ns on or off the CPU */
	bool wall;
	double oncpu_ms_per_sec;     /* on-CPU time sampled, ms per second */
	const char *mode;            /* "decay", "zero", "accumulate" */
	size_t symbols_loading;      /* DSOs whose symbols are loading now: their
					samples join the table when ready */
	size_t debuginfod_active;    /* debug files being fetched (--debuginfod) */
	const char *kallsyms_source; /* live: "cache" or "/proc/kallsyms"; else NULL */
	unsigned kallsyms_reloads;   /* live: kallsyms read again since (kernel.h) */
	struct annotate_report *annotate; /* --annotate's functions, or NULL */

	/* filled by view_build: */
	struct sort_spec sort;
	uint64_t samples;            /* in the table (decayed), all entries */
	uint64_t period;             /* total period, all entries */
	uint64_t kernel_period;      /* part of period in kernel entries */
	size_t nr_entries;           /* hist entries before filtering */
	size_t nr_rows;
	struct snapshot_row *rows;   /* sorted by period (children with children on),
					descending */
	bool callchains;             /* the hist has callchains */
	bool children;               /* rows have a Children value and are sorted by it */
	bool tree_percent_total;     /* node.share is share_total (else share_entry) */
	uint64_t callchain_nodes_dropped; /* frames not stored (store full) since the
					     start, plus tree nodes over the cap now */
	struct snapshot_stack *stacks;    /* with view_opts.stacks: every unique stack */
	size_t nr_stacks;
	struct snapshot_frame *stack_frames; /* storage of the stacks' frames */
	uint64_t *stack_addrs;       /* and of their addrs */
	struct view_frames_pool *stack_pool; /* or the kept groups' frames, shared
					with the view's cache (a reference) */
	const void *frame_ids_of;    /* the store of the stacks' frame_ids, or NULL */
	/* DWARF unwinding (unwind.h): walks since the start per enum
	 * unwind_outcome; unwind_walks 0 when no sample was unwound.  With
	 * unwind_fp, frame-pointer chains: how many had a user part, and
	 * unwind[UNWIND_ROOT] how many of those reached a root. */
	bool unwind_fp;
	uint64_t unwind_walks;
	uint64_t unwind[SNAPSHOT_UNWIND_OUTCOMES];
	/* Each outcome's name for the text header ("no CFI") and its JSON
	 * key ("no_cfi"): the unwinder's, so that renderers need not know it. */
	const char *unwind_name[SNAPSHOT_UNWIND_OUTCOMES];
	const char *unwind_key[SNAPSHOT_UNWIND_OUTCOMES];

	/* Precise-sample payloads: */
	const struct payload_ops *payload; /* the data's decoder (its columns), or NULL:
					      the two counts apply */
	uint64_t payload_samples;    /* decoded samples since the start */
	uint64_t payload_other;      /* raw samples since the start that were not */
	bool payload_rows;           /* rows have payload stats (some sample had it) */
	void *payload_total;         /* every entry's stats, like .samples (with
					payload_rows) */
	const char *order;           /* --order's word, or NULL: the default */
	int order_column;            /* the payload column rows are sorted by, or -1 */
	unsigned char *payload_store; /* storage of the rows' stats */
	/* --inline / -s srcline (rows merged from entries by file:line or
	   inlined function, through libdw): */
	bool inline_frames;          /* the rows and trees have inlined functions */
	size_t dwarf_lookups;        /* distinct addresses asked of libdw (or its
					cache) for this snapshot */
	/* --baseline: rows have baseline shares; the last nr_gone rows are
	   the baseline's rows that have no samples now. */
	bool baseline;
	size_t nr_gone;
};

/* strcmp where NULL (a row without the value) sorts after every string:
 * such rows group together, at the bottom of a table sorted by the name.
 * Every order of rows by a name uses it. */
int view_strcmp(const char *a, const char *b);

/* Build rows from the hist: the strings in rows point into the machine's
 * DSOs and interned strings, which outlive the snapshot.  The trees and
 * stacks are the snapshot's own (freed by snapshot_release). */
void view_build(const struct hist *h, const struct view_opts *opts,
		struct snapshot *snap);
void snapshot_release(struct snapshot *snap);

#endif
