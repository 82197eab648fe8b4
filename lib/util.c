/* Small helpers every layer uses; util.h also gathers the other lib/
 * headers, so that one include gives a module the whole base. */
#include "config.h"

#include "util.h"

#include <time.h>

double now_monotonic(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}
