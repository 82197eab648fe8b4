/* kallsyms-cache.c's hook for its unit tests: included by kallsyms-cache.c
 * and tests/unit/check_kallsyms_cache.c only. */
#ifndef PROFTOP_KALLSYMS_CACHE_TEST_H
#define PROFTOP_KALLSYMS_CACHE_TEST_H

#include <stddef.h>

/* Seal a cache file's bytes (len of them) with the checksum their
 * header's counts and body give: a test then sees what the bounds checks
 * alone make of lying counts. */
void kallsyms_cache_test_seal(void *buf, size_t len);

#endif
