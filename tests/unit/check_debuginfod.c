/* Unit tests for symbols/debuginfod.c without a server: whether
 * libdebuginfod loads is said the errmsg way (0, or -ENOSYS and the reason),
 * and a fetch without it is refused at once. */
#include "config.h"

#include "debuginfod.h"

#include <errno.h>
#include <string.h>

#include "errmsg.h"
#include "testutil.h"

START_TEST(test_available)
{
	struct errmsg em = ERRMSG_INIT;
	int err = debuginfod_available(&em);
	uint8_t id[20] = { 1 };
	char *path = (char *)1;

	if (err == 0) {
		ck_assert_str_eq(em.text, "");
	} else {
		ck_assert_int_eq(err, -ENOSYS);
		ck_assert_msg(strncmp(em.text, "libdebuginfod.so.1 ", 19) == 0, "%s", em.text);
		ck_assert_int_eq(debuginfod_fetch_debuginfo(id, sizeof(id), 10, NULL, &path),
				 -ENOSYS);
		ck_assert_ptr_null(path);
	}
	/* The same answer again, and a NULL errmsg is allowed. */
	ck_assert_int_eq(debuginfod_available(NULL), err);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("debuginfod");
	TCase *tc = tcase_create("debuginfod");

	tcase_add_test(tc, test_available);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return testutil_run(suite()) != 0;
}
