/* The view's parts, shared by view.c (rows and the snapshot), view-frames.c
 * (display frames and folded stacks) and view-trees.c (call trees): not for
 * other modules. */
#ifndef PROFTOP_VIEW_IMPL_H
#define PROFTOP_VIEW_IMPL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "callchain.h"
#include "hashtab.h"
#include "hist.h"
#include "view.h"

struct dso;
struct symbol;

/* What an unnamed frame or row shows. */
extern const char view_unknown[];

/* A frame as displayed: the real function, or one inlined into it, with
 * the source line when that is a key.  Interned in a table per snapshot;
 * node is the id of the same frame without srcline, which is what tree
 * nodes and folded stacks show. */
struct view_dframe {
	struct dso *dso;
	const char *name;       /* interned, or the symbol's own name */
	const char *srcline;    /* interned, or NULL */
	bool kernel, inlined;
	bool synthetic;         /* follows from dso and name: not a key */
	const char *file;       /* the function's source file (DWARF, interned: its
				   DW_AT_decl_file), or NULL: not a key; when
				   several functions share the frame, the least
				   by strcmp, so that it does not depend on the
				   order addresses come in */
	unsigned start_line;    /* its DW_AT_decl_line (of that file), or 0 */
	uint32_t node;
};

#define VIEW_MAX_INLINES 64

struct view_dtab {
	bool srcline, inl;      /* what frames are expanded with */
	struct view_dframe *v;
	size_t n, cap;
	struct hashtab index;   /* over v */
	/* Expansions of the callchain store's frames, by frame id. */
	uint32_t *exp_off, *exp_nr;
	size_t nexp;
	uint32_t *pool;         /* dframe ids, innermost first */
	uint32_t *pool_line;    /* each one's source line at the expanded address
				   (an inlined function's call line in its
				   caller for the frames outside it), or 0 */
	size_t npool, pool_cap;
	size_t lookups;         /* addresses asked of libdw */
};

/* A chain's frames expanded, innermost first, into *buf (grown): the
 * dframe ids, or with nodes their node ids.  Returns the count. */
size_t view_dtab_chain(struct view_dtab *t, const struct callchain_store *st,
		       const struct callchain_chain *c, bool nodes, uint32_t **buf,
		       size_t *cap);

/* Append the display frames of (dso, sym, kernel, addr) to the pool,
 * innermost first: the inlined functions at addr (--inline), then the
 * function itself.  Returns how many. */
uint32_t view_dtab_expand(struct view_dtab *t, struct dso *dso, const struct symbol *sym,
			  bool kernel, uint64_t addr);

void view_dtab_free(struct view_dtab *t);

void view_dtab_init(struct view_dtab *t, bool srcline, bool inl);

/* The callers and callees trees of entries es[0..nr), into rows[0..nr).
 * Returns the nodes dropped. */
uint64_t view_build_trees(const struct hist *h, const struct hist_entry *const *es, size_t nr,
			  const bool *key, const struct view_opts *opts,
			  const struct snapshot *snap, struct snapshot_row *rows);

/* view_build_trees over expanded chains (--inline, -s srcline): the row is
 * display frame df; nodes are display frames without their lines. */
uint64_t view_build_trees_x(const struct hist *h, struct view_dtab *dt, uint32_t df,
			    const bool *key, const struct view_opts *opts,
			    const struct snapshot *snap, struct snapshot_row *r);

const char *view_frame_dso(const struct callchain_frame *f);

const char *view_frame_symbol(const struct callchain_frame *f);

/* Every unique (comm, frames) stack, merged over pid/tid/cpu; with dt, of
 * display frames (inlined functions as frames of their own).  With detail
 * (and no dt) split by the pid and tid keys and frame addresses, in groups
 * (view_opts.stack_detail). */
void view_build_stacks(const struct callchain_store *st, struct view_dtab *dt,
		       struct snapshot *snap, bool detail);
/* The same built and sorted from nothing (view_build_stacks keeps groups
 * between refreshes without dt): for display frames, and tests. */
void view_build_stacks_sorted(const struct callchain_store *st, struct view_dtab *dt,
			      struct snapshot *snap, bool detail);
/* The kept groups' frames (view-stacks.c), which snapshots point into
 * rather than copy them: a pool is never moved nor changed but at its end
 * (new groups), and lives while the view's cache or a snapshot holds a
 * reference (snapshots are released on other threads: the count is
 * atomic).  The cache moves to a new pool when it prunes or grows. */
struct view_frames_pool {
	unsigned refs;
	size_t n, cap;
	struct snapshot_frame v[];
};
void view_frames_pool_unref(struct view_frames_pool *p);

/* For tests: the groups view_build_stacks keeps with st (0: none yet). */
size_t view_stacks_kept_groups(const struct callchain_store *st);
/* For tests, counts over view_build_stacks' builds with st so far: groups'
 * member orders sorted, reused from the last build after a check, reused
 * with no compare (the same chains as the last build); chains grouped by
 * hashing their functions (new since the last build); compares placing
 * new groups in the kept order; rankings of the printed frames (a build
 * that meets new ones). */
struct view_stacks_counts {
	size_t sorted, reused, kept, hashed, placing;
	size_t reranks;          /* printed frames ranked again (some new) */
};
void view_stacks_counts(const struct callchain_store *st, struct view_stacks_counts *out);
/* view-frames.c's, for view-stacks.c: stacks by what they print
 * (comm, then frames root first by name, DSO and kind, then length); the
 * frames of a chain's ids (innermost first), root first, addresses kept. */
int view_printed_key_cmp(const char *ca, const struct snapshot_frame *fa, size_t na,
			 const char *cb, const struct snapshot_frame *fb, size_t nb);
/* One frame's part of view_printed_key_cmp (name, DSO, kind). */
int view_printed_frame_cmp(const struct snapshot_frame *x, const struct snapshot_frame *y);
void view_chain_frames(const struct callchain_store *st, const uint32_t *ids, size_t nr,
		       struct snapshot_frame *f);

#endif
