/* DWARF unwinding of samples' user stacks (PERF_SAMPLE_REGS_USER and
 * PERF_SAMPLE_STACK_USER) with libdw: one Dwfl per process, built from the
 * machine's maps at its first sample and extended when they change, so a
 * sample costs the walk and nothing else. */
#ifndef PROFTOP_UNWIND_H
#define PROFTOP_UNWIND_H

#include <linux/perf_event.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "record.h"

struct machine;
struct unwinder;

/* How a walk ended. */
enum unwind_outcome {
	UNWIND_ROOT,          /* the CFI says there is no caller: _start, clone, ... */
	UNWIND_NO_CFI,        /* a pc with no CFI (or in no ELF file) */
	UNWIND_STACK_END,     /* a read past the end of the stack copy */
	UNWIND_MEMORY,        /* a read elsewhere that no file could serve */
	UNWIND_LOOP,          /* a frame that did not move the stack: cut */
	UNWIND_TRUNCATED,     /* max frames reached */
	UNWIND_NO_REGS,       /* no usable registers or stack in the sample */
	UNWIND_DROPPED,       /* not unwound: the unwinder was busy */
	UNWIND_NOUTCOMES
};

/* A map of a process as the unwinder reports it to libdw. */
struct unwind_map {
	uint64_t start, end, pgoff;
	struct dso *dso;
};

/* An unwinder for the processes of m, whose samples come from a machine of
 * e_machine (EM_*); NULL when DWARF unwinding is not known there.  With m
 * NULL, the processes' maps come from unwind_set_maps only (an unwinder on
 * a thread that must not touch the machine). */
struct unwinder *unwind_new(struct machine *m, int e_machine);
void unwind_free(struct unwinder *u);

/* A recording's walks (on its reader's thread, the machine's engine
 * thread) wait for m's loader to have a DSO's symbols before they first
 * read its file or its debug file's .debug_frame: which files are read,
 * and so the chains, must not depend on the loader's pace.  NULL: never
 * wait (live, on the unwinder's thread). */
void unwind_set_settle(struct unwinder *u, struct machine *m);

/* pid has new maps (MMAP2): the next walk reports them first. */
void unwind_maps_changed(struct unwinder *u, uint32_t pid);
/* pid exec'd, exited or is new: its state goes. */
void unwind_forget(struct unwinder *u, uint32_t pid);
/* pid's maps are now these (the unwinder's DSO maps of m, in address
 * order, as unwind_maps_collect gives them). */
void unwind_set_maps(struct unwinder *u, uint32_t pid, const struct unwind_map *maps,
		     size_t n);
/* The maps of pid in m an unwinder reports (ELF files), into *buf (grown,
 * *cap its size); returns how many. */
size_t unwind_maps_collect(struct machine *m, uint32_t pid, struct unwind_map **buf,
			   size_t *cap);

/* The map of maps (n, in address order) holding addr, or NULL. */
const struct unwind_map *unwind_maps_find(const struct unwind_map *maps, size_t n,
					  uint64_t addr);

/* Whether attr's samples carry registers and a stack to unwind. */
bool unwind_attr_wants(const struct perf_event_attr *attr);

/* The user frames of s (sampled with attr): at most max pcs into out,
 * innermost first, the first where the thread was interrupted, the others
 * return addresses.  Returns how many; *outcome says how the walk ended
 * (also counted). */
size_t unwind_sample(struct unwinder *u, const struct sample *s,
		     const struct perf_event_attr *attr, uint64_t *out, size_t max,
		     enum unwind_outcome *outcome);

/* Walks per outcome since unwind_new, from any thread. */
void unwind_counts(const struct unwinder *u, uint64_t out[UNWIND_NOUTCOMES]);
/* Count one more walk (or sample left unwound) of outcome o. */
void unwind_count(struct unwinder *u, enum unwind_outcome o);
/* Take one back: a walk done again (unwind-queue.c's rewalk). */
void unwind_uncount(struct unwinder *u, enum unwind_outcome o);
/* "root", "no CFI", "stack end", ... */
const char *unwind_outcome_name(enum unwind_outcome o);
/* The same as a JSON key: "root", "no_cfi", "stack_end", ... */
const char *unwind_outcome_key(enum unwind_outcome o);

#endif
