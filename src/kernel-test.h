/* kernel.c's hooks for its unit tests: included by kernel.c and
 * tests/unit/check_kernel.c, check_deferred.c only. */
#ifndef PROFTOP_KERNEL_TEST_H
#define PROFTOP_KERNEL_TEST_H

struct machine;

/* Read kernel symbols from these files instead of /proc/kallsyms and
 * /proc/modules (NULL: /proc's). */
void machine_set_kernel_files(struct machine *m, const char *kallsyms, const char *modules);

/* Let the next kernel reload start now (the wait since the last read
 * over). */
void machine_test_kernel_reload_now(struct machine *m);

#endif
