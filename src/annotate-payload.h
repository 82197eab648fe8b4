/* Per-instruction payload stats of one annotated function (Alpha
 * ProfileMe: retired, killed, traps ... per sampled address), kept like the
 * table keeps a row's: the same stats_add, stats_add_other and decay, so
 * that the parts add up to the function's row.  Opaque stats of the
 * payload interface (payload.h): no decoder is named here. */
#ifndef PROFTOP_ANNOTATE_PAYLOAD_H
#define PROFTOP_ANNOTATE_PAYLOAD_H

#include <stdbool.h>
#include <stdint.h>

#include "hist.h"

struct payload_ops;
struct annotate_payload;

struct annotate_payload *annotate_payload_new(const struct payload_ops *ops);
void annotate_payload_free(struct annotate_payload *p);

/* A sample at addr: decoded is the decoder's struct, or NULL for a sample
 * whose payload was not the decoder's (counted as the row counts it). */
void annotate_payload_add(struct annotate_payload *p, uint64_t addr, const void *decoded);

/* What hist_age does to a row's stats: zero, or decay by 7/8 (the parts
 * then share the decayed total's units, largest remainders first, when
 * the stats are counters), or nothing (accumulate). */
void annotate_payload_age(struct annotate_payload *p, enum hist_mode mode);

/* The stats of the samples in [lo, hi) into out (stats_size bytes, which
 * this zeroes first).  Returns whether there were any. */
bool annotate_payload_sum(const struct annotate_payload *p, uint64_t lo, uint64_t hi, void *out);

/* The function's stats: every part's, as its row has them. */
const void *annotate_payload_total(const struct annotate_payload *p);

#endif
