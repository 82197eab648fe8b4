/* Whether a kernel's symbols apply: a --vmlinux file against the running
 * kernel, a recording's kernel against the running one (by build ID). */
#ifndef PROFTOP_KERNEL_CHECK_H
#define PROFTOP_KERNEL_CHECK_H

#include <stdbool.h>

struct errmsg;
struct perfdata_info;

/* --vmlinux FILE must be the running kernel's (same build ID).  Returns 0,
 * or -errno with the reason in em (for the user, naming the file). */
int kernel_check_vmlinux(const char *path, struct errmsg *em);

/* Whether the recording was made on the running kernel (same build ID,
 * else, when it names none, the same release).  When it was, *cached is
 * perf record's copy of that kernel's kallsyms if there is one (malloc'd),
 * else NULL; NULL too when it was not. */
bool kernel_check_recording(const struct perfdata_info *info, char **cached);

#endif
