/* The FIFO of off-CPU events waiting for switch-outs on the unwinder's
 * queue (offcpu-defer.h): a ring of events, each SWITCH with its own copy
 * of its chain. */
#include "config.h"

#include "offcpu-defer.h"

#include <stdlib.h>
#include <string.h>

#include "alloc.h"

struct offcpu_defer {
	struct offcpu_defer_event *ev;
	uint64_t **chains;          /* per slot, reused: a SWITCH's chain */
	size_t *chain_cap;
	size_t cap, head, len;
};

struct offcpu_defer *offcpu_defer_new(void)
{
	return xcalloc(1, sizeof(struct offcpu_defer));
}

void offcpu_defer_free(struct offcpu_defer *d)
{
	size_t i;

	if (!d)
		return;
	for (i = 0; i < d->cap; i++)
		free(d->chains[i]);
	free(d->chains);
	free(d->chain_cap);
	free(d->ev);
	free(d);
}

/* Double the ring, the events unwrapped to its start. */
static void offcpu_defer_grow(struct offcpu_defer *d)
{
	size_t cap = d->cap ? 2 * d->cap : 64, i;
	struct offcpu_defer_event *ev = xcalloc(cap, sizeof(*ev));
	uint64_t **chains = xcalloc(cap, sizeof(*chains));
	size_t *chain_cap = xcalloc(cap, sizeof(*chain_cap));

	for (i = 0; i < d->cap; i++) {
		size_t from = (d->head + i) % d->cap;

		ev[i] = d->ev[from];
		chains[i] = d->chains[from];
		chain_cap[i] = d->chain_cap[from];
		if (ev[i].kind == OFFCPU_DEFER_SWITCH)
			ev[i].s.callchain = chains[i];
	}
	free(d->ev);
	free(d->chains);
	free(d->chain_cap);
	d->ev = ev;
	d->chains = chains;
	d->chain_cap = chain_cap;
	d->cap = cap;
	d->head = 0;
}

void offcpu_defer_push(struct offcpu_defer *d, const struct offcpu_defer_event *ev)
{
	struct offcpu_defer_event *e;
	size_t at;

	if (d->len == d->cap)
		offcpu_defer_grow(d);
	at = (d->head + d->len++) % d->cap;
	e = &d->ev[at];
	*e = *ev;
	if (e->kind != OFFCPU_DEFER_SWITCH)
		return;
	e->s.raw = NULL;
	e->s.raw_size = 0;
	e->s.regs = NULL;
	e->s.nr_regs = 0;
	e->s.stack = NULL;
	e->s.stack_size = 0;
	if (ev->s.nr_callchain) {
		d->chains[at] = xgrow(d->chains[at], &d->chain_cap[at], ev->s.nr_callchain,
				      sizeof(**d->chains));
		memcpy(d->chains[at], ev->s.callchain, ev->s.nr_callchain * sizeof(**d->chains));
	}
	e->s.callchain = d->chains[at];
}

const struct offcpu_defer_event *offcpu_defer_head(const struct offcpu_defer *d)
{
	return d->len ? &d->ev[d->head] : NULL;
}

void offcpu_defer_pop(struct offcpu_defer *d)
{
	if (!d->len)
		return;
	d->head = (d->head + 1) % d->cap;
	d->len--;
}

void offcpu_defer_drop_last(struct offcpu_defer *d)
{
	if (d->len)
		d->len--;
}

size_t offcpu_defer_len(const struct offcpu_defer *d)
{
	return d->len;
}
