/* --off-cpu with --call-graph dwarf: a switch-out's user frames come back
 * from the unwinder's thread later, so the switch-ins and exits read
 * meanwhile wait here, in the order they were read, until the switch-outs
 * queued before them are back: the intervals then open and close in the
 * rings' order, whatever the unwinder's delay. */
#ifndef PROFTOP_OFFCPU_DEFER_H
#define PROFTOP_OFFCPU_DEFER_H

#include <linux/perf_event.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "offcpu.h"
#include "record.h"

enum offcpu_defer_kind {
	OFFCPU_DEFER_QUEUED,    /* a switch whose sample is on the unwinder's queue */
	OFFCPU_DEFER_SWITCH,    /* a switch kept whole (no user stack, or the queue full) */
	OFFCPU_DEFER_IN,        /* a switch record's switch-in */
	OFFCPU_DEFER_EXIT,      /* an EXIT record */
};

struct offcpu_defer_event {
	enum offcpu_defer_kind kind;
	const struct perf_event_attr *attr;
	struct offcpu_switch sw;    /* QUEUED, SWITCH */
	struct sample s;            /* SWITCH: its chain is the FIFO's copy, no raw/stack */
	uint32_t tid;               /* IN, EXIT */
	uint64_t time;
};

struct offcpu_defer;

struct offcpu_defer *offcpu_defer_new(void);
void offcpu_defer_free(struct offcpu_defer *d);
/* Append ev (a SWITCH's sample chain is copied; its raw, registers and
 * stack are dropped). */
void offcpu_defer_push(struct offcpu_defer *d, const struct offcpu_defer_event *ev);
/* The oldest event, or NULL; valid until the next pop or push. */
const struct offcpu_defer_event *offcpu_defer_head(const struct offcpu_defer *d);
void offcpu_defer_pop(struct offcpu_defer *d);
/* Take back the event pushed last. */
void offcpu_defer_drop_last(struct offcpu_defer *d);
size_t offcpu_defer_len(const struct offcpu_defer *d);

#endif
