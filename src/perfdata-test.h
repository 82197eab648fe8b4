/* perfdata.c's entry for its fuzz target and tests: included by perfdata.c,
 * fuzz/fuzz_perfdata.c and unit tests only. */
#ifndef PROFTOP_PERFDATA_TEST_H
#define PROFTOP_PERFDATA_TEST_H

#include <stddef.h>

struct errmsg;
struct perfdata;

/* perfdata_open from size bytes at buf (copied: buf may be freed after the
 * call); name stands for the path in messages (NULL: "<memory>"). */
int perfdata_open_memory(const void *buf, size_t size, const char *name, struct perfdata **out,
			 struct errmsg *em);

#endif
