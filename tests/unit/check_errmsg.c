/* Unit tests for lib/errmsg.c: the reason set by a callee, the strerror
 * fallback, a NULL errmsg, and a cut long message. */
#include "config.h"

#include <errno.h>
#include <string.h>

#include "errmsg.h"
#include "testutil.h"

static int fails_with_reason(struct errmsg *em)
{
	return errmsg_set(em, -EINVAL, "bad size %u", 7u);
}

START_TEST(test_reason_and_fallback)
{
	struct errmsg em = ERRMSG_INIT;
	int err;

	ck_assert_str_eq(errmsg_text(&em, -ENOENT), strerror(ENOENT));
	err = fails_with_reason(&em);
	ck_assert_int_eq(err, -EINVAL);
	ck_assert_str_eq(errmsg_text(&em, err), "bad size 7");
	errmsg_clear(&em);
	ck_assert_str_eq(errmsg_text(&em, -EIO), strerror(EIO));
	ck_assert_str_eq(errmsg_text(NULL, 0), "unknown error");
	/* A caller that wants no text. */
	ck_assert_int_eq(fails_with_reason(NULL), -EINVAL);
}
END_TEST

START_TEST(test_long_message_cut)
{
	struct errmsg em = ERRMSG_INIT;
	char big[1000];

	memset(big, 'x', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	ck_assert_int_eq(errmsg_set(&em, -E2BIG, "%s", big), -E2BIG);
	ck_assert_uint_eq(strlen(errmsg_text(&em, -E2BIG)), sizeof(em.text) - 1);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("errmsg");
	TCase *tc = tcase_create("errmsg");

	tcase_add_test(tc, test_reason_and_fallback);
	tcase_add_test(tc, test_long_message_cut);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return testutil_run(suite()) != 0;
}
