/* Messages to the user on stderr (lib/msg.h): each is formatted whole
 * first and written with one call, so threads do not interleave lines. */
#include "config.h"

#include "msg.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "strbuf.h"

const char *util_progname = "proftop";

static void vmsg(const char *prefix, const char *fmt, va_list ap)
{
	struct strbuf sb;

	strbuf_init(&sb);
	strbuf_addf(&sb, "%s: %s", util_progname, prefix);
	strbuf_vaddf(&sb, fmt, ap);
	strbuf_addch(&sb, '\n');
	fputs(sb.buf, stderr);
	strbuf_release(&sb);
}

void msg_error(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmsg("", fmt, ap);
	va_end(ap);
}

void msg_notice(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmsg("notice: ", fmt, ap);
	va_end(ap);
}

void fatal(int status, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmsg("", fmt, ap);
	va_end(ap);
	exit(status);
}
