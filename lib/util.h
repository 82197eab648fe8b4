/* The base every layer may use, in one include: the lib/ modules below,
 * and the few helpers too small for a module of their own. */
#ifndef PROFTOP_UTIL_H
#define PROFTOP_UTIL_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include "alloc.h"
#include "fileread.h"
#include "intern.h"
#include "macros.h"
#include "msg.h"
#include "strbuf.h"

/* Decimal digits of v (1 for 0): column widths. */
static inline unsigned util_digits(uint64_t v)
{
	unsigned n = 1;

	while (v >= 10) {
		v /= 10;
		n++;
	}
	return n;
}

/* Monotonic time in seconds. */
double now_monotonic(void);

#endif
