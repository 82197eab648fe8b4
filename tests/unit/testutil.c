/* Helpers shared by the unit tests. */
#include "config.h"

#include "testutil.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "strbuf.h"
#include "util.h"

int testutil_run(Suite *s)
{
	SRunner *sr = srunner_create(s);
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed;
}

char *testutil_tmpdir(const char *name)
{
	char *dir;

	mkdir("tests/tmp", 0755);
	dir = xasprintf("tests/tmp/%s.%d", name, (int)getpid());
	testutil_sh("rm -rf '%s' && mkdir -p '%s'", dir, dir);
	return dir;
}

int testutil_sh(const char *fmt, ...)
{
	struct strbuf sb;
	va_list ap;
	int st;

	strbuf_init(&sb);
	va_start(ap, fmt);
	strbuf_vaddf(&sb, fmt, ap);
	va_end(ap);
	st = system(sb.buf);
	strbuf_release(&sb);
	if (st == -1 || !WIFEXITED(st))
		return -1;
	return WEXITSTATUS(st);
}

/* Protobuf fields written by hand, for the pprof readers' bad input. */
void testutil_pb_varint(struct strbuf *sb, uint64_t v)
{
	char buf[10];
	size_t n = 0;

	while (v >= 0x80) {
		buf[n++] = (char)(v | 0x80);
		v >>= 7;
	}
	buf[n++] = (char)v;
	strbuf_add(sb, buf, n);
}
void testutil_pb_key(struct strbuf *sb, unsigned field, unsigned wire)
{
	testutil_pb_varint(sb, (uint64_t)field << 3 | wire);
}

int testutil_pb_get_varint(const unsigned char *p, size_t n, size_t *pos, uint64_t *v)
{
	unsigned shift;

	*v = 0;
	for (shift = 0; shift < 70; shift += 7) {
		if (*pos >= n)
			return -EINVAL;
		*v |= (uint64_t)(p[*pos] & 0x7f) << shift;
		if (!(p[(*pos)++] & 0x80))
			return 0;
	}
	return -EINVAL;
}
