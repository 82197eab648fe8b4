/* Per-instruction payload stats for annotate: a sorted array of sampled
 * addresses, each with the decoder's opaque stats, and their total. */
#include "config.h"

#include "annotate-payload.h"

#include <stdlib.h>
#include <string.h>

#include "payload.h"
#include "util.h"

struct annotate_payload_part {
	uint64_t addr;
	uint64_t *stats; /* ops->stats_size bytes */
};

struct annotate_payload {
	const struct payload_ops *ops;
	struct annotate_payload_part *parts;
	size_t nr, cap;
	uint64_t *total;
};

struct annotate_payload *annotate_payload_new(const struct payload_ops *ops)
{
	struct annotate_payload *p = xcalloc(1, sizeof(*p));

	p->ops = ops;
	p->total = xcalloc(1, ops->stats_size);
	return p;
}

void annotate_payload_free(struct annotate_payload *p)
{
	size_t i;

	if (!p)
		return;
	for (i = 0; i < p->nr; i++)
		free(p->parts[i].stats);
	free(p->parts);
	free(p->total);
	free(p);
}

/* The first part at addr or after it (p->nr when none). */
static size_t annotate_payload_lower(const struct annotate_payload *p, uint64_t addr)
{
	size_t lo = 0, hi = p->nr;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (p->parts[mid].addr < addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

void annotate_payload_add(struct annotate_payload *p, uint64_t addr, const void *decoded)
{
	size_t lo = annotate_payload_lower(p, addr);

	if (lo == p->nr || p->parts[lo].addr != addr) {
		p->parts = xgrow(p->parts, &p->cap, p->nr + 1, sizeof(*p->parts));
		memmove(&p->parts[lo + 1], &p->parts[lo], (p->nr - lo) * sizeof(*p->parts));
		p->parts[lo].addr = addr;
		p->parts[lo].stats = xcalloc(1, p->ops->stats_size);
		p->nr++;
	}
	if (decoded) {
		p->ops->stats_add(p->parts[lo].stats, decoded);
		p->ops->stats_add(p->total, decoded);
	} else {
		p->ops->stats_add_other(p->parts[lo].stats);
		p->ops->stats_add_other(p->total);
	}
}

static bool annotate_payload_empty(const struct annotate_payload *p, const uint64_t *st)
{
	size_t k;

	for (k = 0; k < p->ops->stats_size / sizeof(uint64_t); k++)
		if (st[k])
			return false;
	return true;
}

/* Counter k of every part scaled by 7/8 as stats_decay does, then the
 * units the parts' rounding lost handed back, largest remainders first
 * (then the lowest addresses), so that they add up to the total's. */
static void annotate_payload_decay_counter(struct annotate_payload *p, size_t k, uint8_t *rems)
{
	uint64_t sum = 0;
	size_t i;
	unsigned rem;

	for (i = 0; i < p->nr; i++) {
		uint64_t x = p->parts[i].stats[k];

		rems[i] = (uint8_t)((x % 8) * 7 % 8);
		p->parts[i].stats[k] = (x / 8) * 7 + (x % 8) * 7 / 8;
		sum += p->parts[i].stats[k];
	}
	for (rem = 7; rem > 0 && sum < p->total[k]; rem--)
		for (i = 0; i < p->nr && sum < p->total[k]; i++)
			if (rems[i] == rem) {
				p->parts[i].stats[k]++;
				sum++;
			}
}

void annotate_payload_age(struct annotate_payload *p, enum hist_mode mode)
{
	size_t i, n, k;

	if (!p || mode == HIST_ACCUMULATE)
		return;
	if (mode == HIST_ZERO) {
		for (i = 0; i < p->nr; i++)
			free(p->parts[i].stats);
		p->nr = 0;
		memset(p->total, 0, p->ops->stats_size);
		return;
	}
	p->ops->stats_decay(p->total, 7, 8);
	if (p->ops->stats_counters) {
		uint8_t *rems = xcalloc(p->nr ? p->nr : 1, 1);

		for (k = 0; k < p->ops->stats_size / sizeof(uint64_t); k++)
			annotate_payload_decay_counter(p, k, rems);
		free(rems);
	} else {
		for (i = 0; i < p->nr; i++)
			p->ops->stats_decay(p->parts[i].stats, 7, 8);
	}
	for (i = n = 0; i < p->nr; i++) {
		if (annotate_payload_empty(p, p->parts[i].stats))
			free(p->parts[i].stats);
		else
			p->parts[n++] = p->parts[i];
	}
	p->nr = n;
}

bool annotate_payload_sum(const struct annotate_payload *p, uint64_t lo, uint64_t hi, void *out)
{
	size_t a = annotate_payload_lower(p, lo), i;

	memset(out, 0, p->ops->stats_size);
	for (i = a; i < p->nr && p->parts[i].addr < hi; i++)
		p->ops->stats_merge(out, p->parts[i].stats);
	return i > a;
}

const void *annotate_payload_total(const struct annotate_payload *p)
{
	return p->total;
}
