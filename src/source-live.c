/* The live source over live.c: the rings, each read draining them all. */
#include "config.h"

#include "source-live.h"

#include <stdlib.h>

#include "util.h"

struct source_live {
	struct source src;           /* first: the ops */
	struct live *live;
};

/* live_read's callback, with the attr of each record. */
struct source_live_read {
	source_record_cb cb;
	void *ctx;
	const struct live *live;
};

static void source_live_record(const struct perf_event_header *hdr, void *ctx)
{
	struct source_live_read *r = ctx;

	r->cb(hdr, live_record_attr(r->live, hdr), r->ctx);
}

static long source_live_read(struct source *src, source_record_cb cb, void *ctx)
{
	struct source_live *s = (struct source_live *)src;
	struct source_live_read r = { cb, ctx, s->live };

	return (long)live_read(s->live, source_live_record, &r);
}

static size_t source_live_nr_pollfds(const struct source *src)
{
	return live_nr_pollfds(((const struct source_live *)src)->live);
}

static void source_live_fill_pollfds(const struct source *src, struct pollfd *pfd)
{
	live_fill_pollfds(((const struct source_live *)src)->live, pfd);
}

static bool source_live_hold(struct source *src, const void *p, size_t n, struct source_hold *h)
{
	return live_hold(((struct source_live *)src)->live, p, n, &h->where, &h->pos);
}

static void source_live_release(struct source *src, const struct source_hold *h)
{
	live_release(((struct source_live *)src)->live, h->where, h->pos);
}

static bool source_live_short_of_room(const struct source *src)
{
	return live_short_of_room(((const struct source_live *)src)->live);
}

static void source_live_close(struct source *src)
{
	struct source_live *s = (struct source_live *)src;

	live_close(s->live);
	free(s);
}

static const struct source_ops source_live_ops = {
	.read = source_live_read,
	.nr_pollfds = source_live_nr_pollfds,
	.fill_pollfds = source_live_fill_pollfds,
	.hold = source_live_hold,
	.release = source_live_release,
	.short_of_room = source_live_short_of_room,
	.close = source_live_close,
};

int source_live_open(const struct live_config *cfg, struct source **out, struct errmsg *em)
{
	struct source_live *s = xcalloc(1, sizeof(*s));
	int err = live_open(cfg, &s->live, em);

	if (err) {
		free(s);
		return err;
	}
	s->src.ops = &source_live_ops;
	*out = &s->src;
	return 0;
}

int source_live_watch(struct source *src, int cpu, bool on)
{
	return live_watch(((struct source_live *)src)->live, cpu, on);
}

const struct live_info *source_live_info(const struct source *src)
{
	return live_get_info(((const struct source_live *)src)->live);
}
