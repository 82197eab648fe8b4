/* annotate-source: the source lines annotate shows beside the code. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "annotate-source.h"
#include "intern.h"
#include "testutil.h"
#include "util.h"

START_TEST(test_lines)
{
	char *dir = testutil_tmpdir("annotate-source");
	char *path = xasprintf("%s/a.c", dir);
	FILE *f = fopen(path, "w");
	struct annotate_source *s = annotate_source_new();
	const char *name = intern(path), *l;

	ck_assert_ptr_nonnull(f);
	fputs("int x;\n\tif (x)   \r\nab\tc\nlast", f);
	fclose(f);
	ck_assert_str_eq(annotate_source_line(s, name, 1), "int x;");
	/* Tabs to the next multiple of 8, trailing blanks and CR cut. */
	ck_assert_str_eq(annotate_source_line(s, name, 2), "        if (x)");
	ck_assert_str_eq(annotate_source_line(s, name, 3), "ab      c");
	ck_assert_str_eq(annotate_source_line(s, name, 4), "last");
	ck_assert_ptr_null(annotate_source_line(s, name, 5));
	ck_assert_ptr_null(annotate_source_line(s, name, 0));
	/* Interned: the same pointer every time. */
	l = annotate_source_line(s, name, 1);
	ck_assert_ptr_eq(l, intern("int x;"));
	/* Read once: a file changed since is not read again. */
	ck_assert_int_eq(testutil_sh("echo changed > %s", path), 0);
	ck_assert_str_eq(annotate_source_line(s, name, 1), "int x;");
	annotate_source_free(s);
	testutil_sh("rm -rf '%s'", dir);
	free(path);
	free(dir);
}
END_TEST

START_TEST(test_unreadable)
{
	char *dir = testutil_tmpdir("annotate-source-bad");
	char *fifo = xasprintf("%s/fifo.c", dir), *missing = xasprintf("%s/none.c", dir);
	struct annotate_source *s = annotate_source_new();

	/* A FIFO named by a binary's DWARF is never opened for reading (it
	 * would block): only regular files are. */
	ck_assert_int_eq(testutil_sh("mkfifo %s", fifo), 0);
	ck_assert_ptr_null(annotate_source_line(s, intern(fifo), 1));
	ck_assert_ptr_null(annotate_source_line(s, intern(missing), 1));
	ck_assert_ptr_null(annotate_source_line(s, intern(dir), 1));
	annotate_source_free(s);
	annotate_source_free(NULL);
	testutil_sh("rm -rf '%s'", dir);
	free(fifo);
	free(missing);
	free(dir);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("annotate_source");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, test_lines);
	tcase_add_test(tc, test_unreadable);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return testutil_run(suite()) != 0;
}
