/* Where records come from: the live rings or a recording, behind one small
 * ops table, so that nothing downstream knows which (see DESIGN.md). */
#ifndef PROFTOP_SOURCE_H
#define PROFTOP_SOURCE_H

#include <linux/perf_event.h>
#include <poll.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct source;

/* A record kept where the source wrote it, past its callback (zero copy):
 * which buffer (the source's) and where in it. */
struct source_hold {
	void *where;
	uint64_t pos;
};

/* One record, and the attr it was produced with. */
typedef void (*source_record_cb)(const struct perf_event_header *hdr,
				 const struct perf_event_attr *attr, void *ctx);

struct source_ops {
	/* Call cb for the records there are now (live: every ring drained;
	 * a recording: the next batch of its records).  Returns how many,
	 * 0 when there are none now (live) or no more (a recording), or
	 * -errno (see error). */
	long (*read)(struct source *src, source_record_cb cb, void *ctx);
	/* Why the last read failed, for the user; NULL for a source whose
	 * reads cannot fail (the rings). */
	const char *(*error)(const struct source *src);
	/* The fds that become readable when records come; NULL for a
	 * source read without waiting (a recording). */
	size_t (*nr_pollfds)(const struct source *src);
	void (*fill_pollfds)(const struct source *src, struct pollfd *pfd);
	/* Zero copy, on the reading thread: keep the bytes p to p + n of
	 * the record the callback has now where they are until release (in
	 * any order), or false where they cannot stay (not in that record; a
	 * recording; live: ring.h's holds): copy them then.
	 * short_of_room: the held records leave the source too little room;
	 * their holders should copy them out and release them.  NULL: no
	 * holds. */
	bool (*hold)(struct source *src, const void *p, size_t n, struct source_hold *h);
	void (*release)(struct source *src, const struct source_hold *h);
	bool (*short_of_room)(const struct source *src);
	/* Stop reading and free the source. */
	void (*close)(struct source *src);
};

/* The first member of each source's own struct. */
struct source {
	const struct source_ops *ops;
};

static inline long source_read(struct source *src, source_record_cb cb, void *ctx)
{
	return src->ops->read(src, cb, ctx);
}

static inline const char *source_error(const struct source *src)
{
	return src->ops->error ? src->ops->error(src) : "";
}

static inline size_t source_nr_pollfds(const struct source *src)
{
	return src->ops->nr_pollfds ? src->ops->nr_pollfds(src) : 0;
}

static inline void source_fill_pollfds(const struct source *src, struct pollfd *pfd)
{
	if (src->ops->fill_pollfds)
		src->ops->fill_pollfds(src, pfd);
}

static inline bool source_hold(struct source *src, const void *p, size_t n,
			       struct source_hold *h)
{
	return src->ops->hold && src->ops->hold(src, p, n, h);
}

static inline void source_release(struct source *src, const struct source_hold *h)
{
	src->ops->release(src, h);
}

static inline bool source_short_of_room(const struct source *src)
{
	return src->ops->short_of_room && src->ops->short_of_room(src);
}

static inline void source_close(struct source *src)
{
	if (src)
		src->ops->close(src);
}

#endif
