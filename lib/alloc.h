/* Allocation that cannot fail: on failure these print a message and
 * exit(1), so callers never test for NULL. */
#ifndef PROFTOP_ALLOC_H
#define PROFTOP_ALLOC_H

#include <stdarg.h>
#include <stddef.h>

#include "macros.h"

void *xmalloc(size_t size);
void *xcalloc(size_t nmemb, size_t size);
void *xrealloc(void *ptr, size_t size);
/* Grow an array of *cap elements of size elem to hold at least need. */
void *xgrow(void *ptr, size_t *cap, size_t need, size_t elem);
char *xstrdup(const char *s);
char *xstrndup(const char *s, size_t n);
char *xasprintf(const char *fmt, ...) PRINTFLIKE(1, 2);
char *xvasprintf(const char *fmt, va_list ap) PRINTFLIKE(1, 0);

#endif
