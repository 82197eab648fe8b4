/* The reason of a failure, for the user (errmsg.h). */
#include "config.h"

#include "errmsg.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

int errmsg_set(struct errmsg *em, int err, const char *fmt, ...)
{
	va_list ap;

	if (!em)
		return err;
	va_start(ap, fmt);
	vsnprintf(em->text, sizeof(em->text), fmt, ap);
	va_end(ap);
	return err;
}

const char *errmsg_text(const struct errmsg *em, int err)
{
	if (em && em->text[0])
		return em->text;
	return err < 0 ? strerror(-err) : "unknown error";
}

void errmsg_clear(struct errmsg *em)
{
	if (em)
		em->text[0] = '\0';
}
