/* The live source: the events of live.c, their rings drained on each read. */
#ifndef PROFTOP_SOURCE_LIVE_H
#define PROFTOP_SOURCE_LIVE_H

#include "live.h"
#include "source.h"

/* Open the events (live_open).  Returns 0, or -errno with a sentence for
 * the user in em. */
int source_live_open(const struct live_config *cfg, struct source **out, struct errmsg *em);
/* What is sampled (src from source_live_open). */
const struct live_info *source_live_info(const struct source *src);
/* live_watch on src's events. */
int source_live_watch(struct source *src, int cpu, bool on);

#endif
