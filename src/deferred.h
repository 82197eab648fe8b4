/* Samples held back while a DSO's symbols load on the loader thread
 * (machine_set_async), folded into the hist once every DSO they touch is
 * ready: no sample lost, none filed under a name it does not have. */
#ifndef PROFTOP_DEFERRED_H
#define PROFTOP_DEFERRED_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "hist.h"

struct machine;
struct deferred;

/* Per frame of a held sample: the machine's answer for it. */
struct deferred_addr {
	uint64_t addr;               /* resolved.addr (a file offset when pending) */
	bool pending;                /* resolved.pending */
};

struct deferred *deferred_new(void);
/* Tell a (NULL: none) of each sample added to the hist. */
struct annotate;
void deferred_set_annotate(struct deferred *d, struct annotate *a);
void deferred_free(struct deferred *d);

/* Hold s (its chain copied; s->chain NULL means one frame from s->dso/sym).
 * at[i] is frame i's address, at[0] the sampled ip's; gen is the number of
 * refreshes so far, so the sample ages as if it had been added now. */
void deferred_add(struct deferred *d, const struct hist_sample *s,
		  const struct deferred_addr *at, unsigned gen);

/* Add to h every held sample whose DSOs are ready (all of them when
 * machine_wait_symbols was called), with its period aged by mode over the
 * refreshes it waited.  Returns the number still held. */
size_t deferred_flush(struct deferred *d, struct machine *m, struct hist *h,
		      unsigned gen, enum hist_mode mode);

/* Frames held: above a bound the engine waits for the loader instead of
 * holding more. */
size_t deferred_frames(const struct deferred *d);

#endif
