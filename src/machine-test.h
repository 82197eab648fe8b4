/* machine.c's hooks for its unit test: included by machine.c and
 * tests/unit/check_machine.c only. */
#ifndef PROFTOP_MACHINE_TEST_H
#define PROFTOP_MACHINE_TEST_H


struct machine;

/* Read kernel symbols from these files instead of /proc/kallsyms and
 * /proc/modules (NULL: /proc's). */
void machine_set_kernel_files(struct machine *m, const char *kallsyms, const char *modules);

#endif
