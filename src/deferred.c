/* Samples waiting for symbols: a flat array of records and their frames,
 * compacted on each flush. */
#include "config.h"

#include "deferred.h"

#include <stdlib.h>
#include <string.h>

#include "annotate.h"
#include "machine.h"
#include "util.h"

struct deferred_rec {
	const char *comm;
	uint32_t pid, tid, cpu;
	uint64_t period;
	unsigned gen;                /* refreshes before it arrived */
	size_t first, n;             /* its frames */
	bool chain;                  /* frames are a callchain (else one frame) */
};

struct deferred_frame {
	struct callchain_frame f;
	struct deferred_addr at;
};

struct deferred {
	struct deferred_rec *recs;
	size_t nrecs, rec_cap;
	struct deferred_frame *frames;
	size_t nframes, frame_cap;
	struct callchain_frame *scratch;   /* the chain handed to hist_add */
	size_t scratch_cap;
	struct annotate *annotate;         /* told each sample added, or NULL */
};

struct deferred *deferred_new(void)
{
	return xcalloc(1, sizeof(struct deferred));
}

void deferred_set_annotate(struct deferred *d, struct annotate *a)
{
	d->annotate = a;
}

void deferred_free(struct deferred *d)
{
	if (!d)
		return;
	free(d->recs);
	free(d->frames);
	free(d->scratch);
	free(d);
}

void deferred_add(struct deferred *d, const struct hist_sample *s,
		  const struct deferred_addr *at, unsigned gen)
{
	size_t n = s->chain && s->nr_chain ? s->nr_chain : 1, i;
	struct deferred_rec *r;

	d->recs = xgrow(d->recs, &d->rec_cap, d->nrecs + 1, sizeof(*d->recs));
	d->frames = xgrow(d->frames, &d->frame_cap, d->nframes + n, sizeof(*d->frames));
	r = &d->recs[d->nrecs++];
	r->comm = s->comm;
	r->pid = s->pid;
	r->tid = s->tid;
	r->cpu = s->cpu;
	r->period = s->period;
	r->gen = gen;
	r->first = d->nframes;
	r->n = n;
	r->chain = s->chain && s->nr_chain;
	for (i = 0; i < n; i++) {
		struct deferred_frame *f = &d->frames[d->nframes++];

		if (r->chain) {
			f->f = s->chain[i];
		} else {
			f->f.dso = s->dso;
			f->f.sym = s->sym;
			f->f.kernel = s->kernel;
			f->f.addr = s->addr;
		}
		f->at = at[i];
	}
}

size_t deferred_frames(const struct deferred *d)
{
	return d->nframes;
}

/* x * 7 / 8 per refresh waited, as hist_age does to entries. */
static uint64_t deferred_age(uint64_t x, unsigned steps)
{
	while (steps-- && x)
		x = (x / 8) * 7 + (x % 8) * 7 / 8;
	return x;
}

static bool deferred_ready(const struct deferred *d, const struct deferred_rec *r)
{
	size_t i;

	for (i = 0; i < r->n; i++) {
		const struct deferred_frame *f = &d->frames[r->first + i];

		if (f->at.pending && machine_dso_pending(f->f.dso))
			return false;
	}
	return true;
}

size_t deferred_flush(struct deferred *d, struct machine *m, struct hist *h,
		      unsigned gen, enum hist_mode mode)
{
	size_t i, j, keep = 0, kframes = 0;

	for (i = 0; i < d->nrecs; i++) {
		struct deferred_rec *r = &d->recs[i];
		struct hist_sample hs;
		unsigned waited = gen - r->gen;
		uint64_t addr0 = 0;          /* the sampled ip's, for annotate */

		if (!deferred_ready(d, r)) {
			/* Keep it, moving it (and its frames) down. */
			memmove(&d->frames[kframes], &d->frames[r->first],
				r->n * sizeof(*d->frames));
			r->first = kframes;
			kframes += r->n;
			d->recs[keep++] = *r;
			continue;
		}
		d->scratch = xgrow(d->scratch, &d->scratch_cap, r->n, sizeof(*d->scratch));
		for (j = 0; j < r->n; j++) {
			struct deferred_frame *f = &d->frames[r->first + j];
			struct resolved res;

			d->scratch[j] = f->f;
			if (j == 0)
				addr0 = f->at.addr;
			if (!f->at.pending)
				continue;
			machine_resolve_deferred(m, f->f.dso, f->at.addr, f->f.kernel, &res);
			if (j == 0)
				addr0 = res.addr;
			/* A kernel address held for kallsyms may be a module's. */
			d->scratch[j].dso = res.dso;
			d->scratch[j].sym = res.sym;
			/* A wanted address was held as the file offset. */
			if (f->f.addr)
				d->scratch[j].addr = res.addr;
		}
		/* -z: an interval already shown and cleared has no place for it. */
		if (mode == HIST_ZERO && waited)
			continue;
		memset(&hs, 0, sizeof(hs));
		hs.comm = r->comm;
		hs.pid = r->pid;
		hs.tid = r->tid;
		hs.cpu = r->cpu;
		hs.dso = d->scratch[0].dso;
		hs.sym = d->scratch[0].sym;
		hs.kernel = d->scratch[0].kernel;
		hs.addr = d->scratch[0].addr;
		hs.period = mode == HIST_DECAY ? deferred_age(r->period, waited) : r->period;
		if (r->chain) {
			hs.chain = d->scratch;
			hs.nr_chain = r->n;
		}
		if (!hs.period)
			continue;
		annotate_sample(d->annotate, hs.dso, hs.sym, addr0, hs.period);
		hist_add(h, &hs);
	}
	d->nrecs = keep;
	d->nframes = kframes;
	return keep;
}
