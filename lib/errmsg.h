/* How a failure's reason travels: the one convention of every layer.
 *
 * A function that can fail returns 0 (or a count, or a pointer) on success
 * and a negative errno (or NULL) on failure; the caller decides what to do.
 * Where the caller needs to tell the user more than strerror(-err) says,
 * the function also takes a struct errmsg *, fills it when it fails and
 * leaves it alone otherwise.  A NULL errmsg is allowed: the text is then
 * not wanted.
 *
 *	struct errmsg em = ERRMSG_INIT;
 *	if ((err = perfdata_open(path, &pd, &em)) < 0)
 *		fatal(1, "%s: %s", path, errmsg_text(&em, err));
 */
#ifndef PROFTOP_ERRMSG_H
#define PROFTOP_ERRMSG_H

#include <stddef.h>

struct errmsg {
	/* "" until a failure is described; as long as the buffers it
	 * replaced, so that no message is cut shorter than before */
	char text[512];
};

#define ERRMSG_INIT { { 0 } }

/* Describe a failure (printf format) and return err, so that a callee can
 * write `return errmsg_set(em, -EINVAL, "bad size %u", n);`.  em may be
 * NULL.  A message longer than the buffer is cut. */
int errmsg_set(struct errmsg *em, int err, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* The text for the user: the described reason, else strerror(-err) (or
 * "unknown error" for err >= 0). */
const char *errmsg_text(const struct errmsg *em, int err);

/* Forget the reason (before another call with the same errmsg). */
void errmsg_clear(struct errmsg *em);

#endif
