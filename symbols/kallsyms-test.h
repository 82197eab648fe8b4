/* kallsyms.c's hook for its unit tests: included by kallsyms.c and
 * tests/unit/check_kallsyms.c only. */
#ifndef PROFTOP_KALLSYMS_TEST_H
#define PROFTOP_KALLSYMS_TEST_H

#include <stdbool.h>
#include <stddef.h>

/* Parse every line the general way, not the usual lines' fast way: the
 * two must give the same tables. */
void kallsyms_test_slow(bool on);
/* The high halves (8 hex digits) of addresses the last parse decoded:
 * a line whose high half is the line before's reuses it. */
size_t kallsyms_test_high_halves(void);

#endif
