/* Helpers shared by the unit tests. */
#ifndef PROFTOP_TESTUTIL_H
#define PROFTOP_TESTUTIL_H

#include <check.h>

/* Run one suite; returns the number of failed tests. */
int testutil_run(Suite *s);

/* A fresh temporary directory under tests/tmp (created if needed); the
 * returned path is malloc'd. */
char *testutil_tmpdir(const char *name);

/* Run a shell command; returns its exit status (-1 if it could not run). */
int testutil_sh(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif
