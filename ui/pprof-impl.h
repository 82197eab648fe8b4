/* pprof.c's tables and encoding steps, for the live encoder
 * (pprof-live.c), which keeps them from one refresh to the next. */
#ifndef PROFTOP_PPROF_IMPL_H
#define PROFTOP_PPROF_IMPL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "hashtab.h"
#include "profile.pb-c.h"

struct dso;
struct snapshot;

typedef Perftools__Profiles__Profile Profile;
typedef Perftools__Profiles__ValueType ValueType;
typedef Perftools__Profiles__Sample Sample;
typedef Perftools__Profiles__Label Label;
typedef Perftools__Profiles__Mapping Mapping;
typedef Perftools__Profiles__Location Location;
typedef Perftools__Profiles__Line Line;
typedef Perftools__Profiles__Function Function;

/* Distinct keys of a few uint32 each, numbered in first-seen order from 0:
 * the profile's ids are the numbers plus one (0 means "none" in pprof). */
struct pprof_keys {
	uint32_t (*v)[4];
	size_t n, cap;
	struct hashtab ht;
};

/* The string table: index 0 is "", as pprof requires. */
struct pprof_strings {
	const char **v;
	size_t n, cap;
	struct hashtab ht;
	bool keep;                   /* live: the strings outlive the snapshot */
};

struct pprof_memo;

struct pprof_enc {
	struct pprof_strings strs;
	struct pprof_keys funcs;     /* name (string index), mapping id or 0, kernel */
	struct pprof_keys maps;      /* short name and path (string indexes) */
	const struct dso **objs;     /* by mapping: the first DSO seen, or NULL */
	size_t objs_cap;
	/* Locations: a function id and the location of the functions it was
	   inlined into (0: none), so a chain lists a Location's Lines,
	   innermost first; only those samples use become Locations. */
	struct pprof_keys loctab;
	uint32_t *loc_line;          /* by loctab entry: its Line's line, or 0 */
	size_t loc_line_cap;
	bool *used;
	size_t used_n, used_cap;
	/* The Samples; their location ids, values and labels are in flat
	   arrays (a Sample's start in them in id_off, label_off) that move
	   as they grow: the pointers are set once they are complete. */
	Sample *smp;
	size_t nsmp, smp_cap;
	size_t *id_off, *label_off;  /* smp_cap of them, vals 2 * smp_cap */
	uint64_t *ids;
	size_t nids, ids_cap;
	int64_t *vals;
	Label *labels;
	size_t nlabels, labels_cap;
	uint32_t comm_key, pid_key, tid_key;
	const char *last_label;      /* pprof_label_str's last string */
	uint32_t last_label_idx;
	/* Each Function's source file (snapshot_frame.file), or NULL, and
	   start line. */
	const char **fn_file;
	unsigned *fn_start;
	size_t fn_file_cap;
	/* A stack frame's Function id by its pointers: frames repeat from
	   stack to stack, and their names need hashing only once. */
	struct pprof_memo *memo;
	size_t nmemo, memo_cap;
	struct hashtab memo_ht;
	/* The stack walk's scratch (kept with a live writer's tables). */
	uint64_t *fn, *prev_loc, *cur_loc;
	unsigned *ln;
	size_t fn_cap, loc_cap;
	/* Live: the walk each Function was last looked up in (by id - 1),
	   NULL for a one-shot encoding, and this walk's number. */
	uint32_t *fref;
	size_t fref_cap;
	uint32_t walk;
	/* Live: the Location of each of the chain store's frame ids
	   (snapshot_stack.frame_ids; loc 0: none yet), for the store
	   floc_of, with what the walk marks for it: its Function and
	   Mapping (0: none), its address, and the walk that marked them
	   last (0: none). */
	struct pprof_floc {
		uint64_t addr;
		uint32_t loc, fn, map, walk;
	} *floc;
	size_t floc_cap;
	const void *floc_of;
	/* (tests) kept frames found by their id's record, taken over from
	   the Sample before */
	size_t frames_found, frames_taken;
};

/* s must outlive the encoding (the snapshot's strings do); a live
 * writer's tables outlive snapshots and keep interned copies. */
uint32_t pprof_str(struct pprof_strings *t, const char *s);
/* The string index of obj's build ID in hex, or 0 ("") when unknown (no
 * DSO, or its symbols not loaded). */
uint32_t pprof_build_id(struct pprof_enc *e, const struct dso *obj);
/* The tables and scratch of an encoding; keep: a live writer's, whose
 * strings outlive the snapshot and whose Functions are marked when used
 * (pprof_fn_ref).  The string table starts "", then the labels' keys. */
void pprof_enc_init(struct pprof_enc *e, size_t nr_stacks, bool keep);
void pprof_enc_release(struct pprof_enc *e);
/* snap's Samples into e's flat arrays, numbering the Functions, Mappings
 * and Locations they use (e->used) as they come. */
void pprof_enc_walk(struct pprof_enc *e, const struct snapshot *snap);
/* Mapping i's fields but has_filenames and has_line_numbers. */
void pprof_mapping_fill(struct pprof_enc *e, size_t i, Mapping *m,
			const struct snapshot *snap);
/* Location entry i (a loctab index) with its Lines, innermost first, in
 * lines[] (as many as its chain has: the caller makes the room). */
void pprof_location_fill(struct pprof_enc *e, size_t i, Location *lo, Line *lines,
			 Line **lines_p);
/* Function i, its file and start line (NULL, 0: none). */
void pprof_function_fill(struct pprof_enc *e, size_t i, Function *f, const char *file,
			 unsigned start);
/* The fields of a Profile but its tables: sample_type, period_type,
 * period, the times, the comment (its string index in *comment_idx). */
void pprof_profile_head(struct pprof_enc *e, Profile *prof, ValueType *types,
			ValueType *period_type, ValueType **types_p,
			const struct snapshot *snap, const char *comment,
			int64_t *comment_idx, int64_t time_nanos);
void pprof_sample_types(struct pprof_enc *e, ValueType *types, const struct snapshot *snap);

#endif
