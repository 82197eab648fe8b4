/* kallsyms.c's hook for its unit tests: included by kallsyms.c and
 * tests/unit/check_kallsyms.c only. */
#ifndef PROFTOP_KALLSYMS_TEST_H
#define PROFTOP_KALLSYMS_TEST_H

#include <stdbool.h>

/* Parse every line the general way, not the usual lines' fast way: the
 * two must give the same tables. */
void kallsyms_test_slow(bool on);

#endif
