/* nsopen.c's insides that its unit test drives: included by nsopen.c and
 * tests/unit/check_nsopen.c only. */
#ifndef PROFTOP_NSOPEN_TEST_H
#define PROFTOP_NSOPEN_TEST_H


/* The fallback of nsopen_at: a walk one component at a time with
 * O_NOFOLLOW, resolving symlinks itself (40 at most: -ELOOP) and keeping
 * ".." at the root from going above it. */
int nsopen_walk(int rootfd, const char *path, int flags);

#endif
