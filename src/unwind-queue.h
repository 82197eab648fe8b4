/* DWARF unwinding off the ingestion path: samples with user registers and
 * stack go into a bounded queue served by an unwinder thread, and come
 * back, in order, with their user frames.  Live, a stack stays where the
 * kernel wrote it (held in the source's ring) till its walk is done,
 * else it is copied.  The engine thread never waits to submit: when the
 * queue is full the caller keeps the sample without its user frames and
 * counts it dropped. */
#ifndef PROFTOP_UNWIND_QUEUE_H
#define PROFTOP_UNWIND_QUEUE_H

#include <linux/perf_event.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "record.h"
#include "unwind.h"

struct machine;
struct source;
struct unwind_queue;

/* A queue of slots samples for the processes of m (read on the calling
 * thread only), with its thread; NULL where DWARF unwinding of e_machine
 * is not known, or the thread cannot start.  slots 0: no thread, each
 * sample is walked in unwind_queue_submit (a recording's reader, which
 * waits for the walks anyway), with the same results in the same order. */
struct unwind_queue *unwind_queue_new(struct machine *m, int e_machine, size_t slots);
/* Stops the thread; samples still queued are lost. */
void unwind_queue_free(struct unwind_queue *q);

/* Hold the stacks of the samples submitted from src's record callback in
 * src's memory (source_hold) instead of copying them; a queue without a
 * thread copies nothing anyway.  src must outlive the queue. */
void unwind_queue_set_source(struct unwind_queue *q, struct source *src);
/* The end of an ingest pass (the records there were, read): what was
 * submitted goes to the thread, one wakeup a pass; when src is short of
 * room, the stacks held are copied out and released first. */
void unwind_queue_flush(struct unwind_queue *q);

/* The calling (engine) thread's side.  Queue s (sampled with attr, which
 * must outlive the queue) to have at most max user frames unwound: 0, or
 * -EAGAIN when the queue is full (nothing queued). */
int unwind_queue_submit(struct unwind_queue *q, const struct sample *s,
			const struct perf_event_attr *attr, size_t max);
/* The oldest sample whose walk is done, in submit order, or NULL (none
 * done yet; with wait, none queued any more).  Its callchain is the
 * kernel's part, then PERF_CONTEXT_USER and the frames found; raw,
 * regs and stack are gone.  Valid until the next call. */
const struct sample *unwind_queue_next(struct unwind_queue *q,
				       const struct perf_event_attr **attr, bool wait);
/* Sleep until n more samples are done than unwind_queue_next returned, or
 * all are (a recording's reader, which may wait). */
void unwind_queue_wait(struct unwind_queue *q, size_t n);
/* The queue's size in samples. */
size_t unwind_queue_slots(const struct unwind_queue *q);
/* Samples submitted and not yet returned by unwind_queue_next. */
size_t unwind_queue_pending(const struct unwind_queue *q);
/* pid is about to exec (call before the machine sees the COMM): its
 * samples still queued keep the maps and names they were taken under. */
void unwind_queue_exec(struct unwind_queue *q, uint32_t pid);
/* For the sample unwind_queue_next returned last, when its process has
 * exec'd since it was taken: the code maps it ran under (*n of them) and
 * its thread's name then; NULL otherwise.  Valid until the next call. */
const struct unwind_map *unwind_queue_old_maps(const struct unwind_queue *q, size_t *n,
					       const char **comm);
/* pid's maps changed (MMAP2): its next sample carries them to the thread. */
void unwind_queue_maps_changed(struct unwind_queue *q, uint32_t pid);
/* pid exec'd, exited or is new: the thread drops its state. */
void unwind_queue_forget(struct unwind_queue *q, uint32_t pid);
/* Walks per outcome so far, dropped samples (unwind_queue_count_dropped)
 * included. */
void unwind_queue_counts(const struct unwind_queue *q, uint64_t out[UNWIND_NOUTCOMES]);
void unwind_queue_count_dropped(struct unwind_queue *q);

#endif
