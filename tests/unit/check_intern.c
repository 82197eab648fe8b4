/* Unit tests for lib/intern.c: equal contents give one pointer, through
 * the index's growth and from several threads at once. */
#include "config.h"

#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "intern.h"
#include "testutil.h"

#define N 20000

START_TEST(test_same_pointer)
{
	static const char *first[N];
	char buf[32];
	size_t i;

	ck_assert_ptr_eq(intern(""), intern(""));
	for (i = 0; i < N; i++) {
		snprintf(buf, sizeof(buf), "name-%zu", i);
		first[i] = intern(buf);
		ck_assert_str_eq(first[i], buf);
		/* A copy, not the caller's buffer. */
		ck_assert_ptr_ne(first[i], buf);
	}
	/* After many growths of the index, every name is still the same. */
	for (i = 0; i < N; i++) {
		snprintf(buf, sizeof(buf), "name-%zu", i);
		ck_assert_ptr_eq(intern(buf), first[i]);
		if (i)
			ck_assert_ptr_ne(first[i], first[i - 1]);
	}
}
END_TEST

static void *intern_some(void *arg)
{
	const char **out = arg;
	char buf[32];
	size_t i;

	for (i = 0; i < 2000; i++) {
		snprintf(buf, sizeof(buf), "shared-%zu", i);
		out[i] = intern(buf);
	}
	return NULL;
}

START_TEST(test_threads)
{
	static const char *a[2000], *b[2000];
	pthread_t ta, tb;
	size_t i;

	pthread_create(&ta, NULL, intern_some, a);
	pthread_create(&tb, NULL, intern_some, b);
	pthread_join(ta, NULL);
	pthread_join(tb, NULL);
	for (i = 0; i < 2000; i++)
		ck_assert_ptr_eq(a[i], b[i]);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("intern");
	TCase *tc = tcase_create("intern");

	tcase_add_test(tc, test_same_pointer);
	tcase_add_test(tc, test_threads);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return testutil_run(suite()) != 0;
}
