/* Unit tests for lib/fileread.c: a file read whole and NUL-terminated, the
 * max bound, a pipe longer than the first buffer, no limit (SIZE_MAX), and
 * errors. */
#include "config.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fileread.h"
#include "testutil.h"

static char *write_tmp(const char *name, const char *text, size_t n)
{
	char *dir = testutil_tmpdir("fileread"), *path;
	FILE *f;

	path = malloc(strlen(dir) + strlen(name) + 2);
	sprintf(path, "%s/%s", dir, name);
	free(dir);
	f = fopen(path, "w");
	ck_assert_ptr_nonnull(f);
	ck_assert_uint_eq(fwrite(text, 1, n, f), n);
	fclose(f);
	return path;
}

START_TEST(test_whole_and_bounded)
{
	char *path = write_tmp("f", "12345\n", 6), *buf;
	size_t len;
	long v;

	ck_assert_int_eq(read_file(path, 4096, &buf, &len), 0);
	ck_assert_uint_eq(len, 6);
	ck_assert_str_eq(buf, "12345\n");
	free(buf);
	/* max bytes and no more, still NUL-terminated. */
	ck_assert_int_eq(read_file(path, 3, &buf, &len), 0);
	ck_assert_uint_eq(len, 3);
	ck_assert_str_eq(buf, "123");
	free(buf);
	ck_assert_int_eq(read_file(path, 0, &buf, NULL), 0);
	ck_assert_str_eq(buf, "");
	free(buf);
	ck_assert_int_eq(read_file_long(path, &v), 0);
	ck_assert_int_eq(v, 12345);
	free(path);
	ck_assert_int_eq(read_file("/nonexistent/fileread", 16, &buf, NULL), -ENOENT);
	path = write_tmp("nan", "x\n", 2);
	ck_assert_int_eq(read_file_long(path, &v), -EINVAL);
	free(path);
}
END_TEST

/* A pipe delivers in pieces and has no size: the buffer grows, past its
 * first 64 KiB, with no limit at SIZE_MAX. */
START_TEST(test_pipe_unbounded)
{
	size_t n = 300000, len, i;
	char *data = malloc(n), *buf;
	int fds[2];
	pid_t pid;

	for (i = 0; i < n; i++)
		data[i] = (char)('a' + i % 26);
	ck_assert_int_eq(pipe(fds), 0);
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		close(fds[0]);
		for (i = 0; i < n; i += 1000)
			if (write(fds[1], data + i, 1000) != 1000)
				_exit(1);
		_exit(0);
	}
	close(fds[1]);
	ck_assert_int_eq(fileread_fd(fds[0], SIZE_MAX, &buf, &len), 0);
	close(fds[0]);
	ck_assert_uint_eq(len, n);
	ck_assert_int_eq(memcmp(buf, data, n), 0);
	ck_assert_int_eq(buf[n], '\0');
	free(buf);
	free(data);
}
END_TEST

START_TEST(test_bad_fd)
{
	char *buf = NULL;

	ck_assert_int_eq(fileread_fd(-1, 100, &buf, NULL), -EBADF);
	ck_assert_ptr_null(buf);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("fileread");
	TCase *tc = tcase_create("fileread");

	tcase_add_test(tc, test_whole_and_bounded);
	tcase_add_test(tc, test_pipe_unbounded);
	tcase_add_test(tc, test_bad_fd);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return testutil_run(suite()) != 0;
}
