/* Allocation that cannot fail (lib/alloc.h).
 * xasprintf formats through a strbuf. */
#include "config.h"

#include "alloc.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "msg.h"
#include "strbuf.h"

static void __attribute__((noreturn)) out_of_memory(size_t size)
{
	fprintf(stderr, "%s: out of memory allocating %zu bytes\n", util_progname, size);
	exit(1);
}

void *xmalloc(size_t size)
{
	void *p = malloc(size ? size : 1);

	if (!p)
		out_of_memory(size);
	return p;
}

void *xcalloc(size_t nmemb, size_t size)
{
	void *p = calloc(nmemb ? nmemb : 1, size ? size : 1);

	if (!p)
		out_of_memory(nmemb * size);
	return p;
}

void *xrealloc(void *ptr, size_t size)
{
	void *p = realloc(ptr, size ? size : 1);

	if (!p)
		out_of_memory(size);
	return p;
}

void *xgrow(void *ptr, size_t *cap, size_t need, size_t elem)
{
	size_t n = *cap ? *cap : 8;

	if (need <= *cap)
		return ptr;
	while (n < need) {
		if (n > SIZE_MAX / 2 / elem)
			out_of_memory(SIZE_MAX);
		n *= 2;
	}
	ptr = xrealloc(ptr, n * elem);
	*cap = n;
	return ptr;
}

char *xstrdup(const char *s)
{
	return xstrndup(s, strlen(s));
}

char *xstrndup(const char *s, size_t n)
{
	char *p = xmalloc(n + 1);

	memcpy(p, s, n);
	p[n] = '\0';
	return p;
}

char *xvasprintf(const char *fmt, va_list ap)
{
	struct strbuf sb;

	strbuf_init(&sb);
	strbuf_vaddf(&sb, fmt, ap);
	return sb.buf;
}

char *xasprintf(const char *fmt, ...)
{
	va_list ap;
	char *s;

	va_start(ap, fmt);
	s = xvasprintf(fmt, ap);
	va_end(ap);
	return s;
}
