/* Helpers shared by the unit tests. */
#ifndef PROFTOP_TESTUTIL_H
#define PROFTOP_TESTUTIL_H

#include <check.h>
#include <stdint.h>

/* Run one suite; returns the number of failed tests. */
int testutil_run(Suite *s);

/* A fresh temporary directory under tests/tmp (created if needed); the
 * returned path is malloc'd. */
char *testutil_tmpdir(const char *name);

/* Run a shell command; returns its exit status (-1 if it could not run). */
int testutil_sh(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

struct strbuf;
/* A protobuf varint; a field's key (number and wire type: 0 varint, 2
 * length-delimited), written by hand for the tests' malformed profiles. */
void testutil_pb_varint(struct strbuf *sb, uint64_t v);
void testutil_pb_key(struct strbuf *sb, unsigned field, unsigned wire);
/* Reads a varint at *pos (< n); returns 0, or -EINVAL when it runs past n
 * or over 10 bytes. */
int testutil_pb_get_varint(const unsigned char *p, size_t n, size_t *pos, uint64_t *v);

#endif
