/* Unit tests for src/idtab.c: objects by id over lib/hashtab, removal of
 * exactly the object given (two objects may share an id), and a randomized
 * run against a linear scan. */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>

#include "idtab.h"
#include "testutil.h"

struct obj {
	uint32_t id;
	int tag;
};

START_TEST(test_insert_find_remove)
{
	struct idtab t = { 0 };
	struct obj a = { 7, 1 }, b = { 8, 2 }, c = { 7 + 64, 3 };

	ck_assert_ptr_null(idtab_find(&t, 7));
	idtab_remove(&t, &a); /* empty: nothing to do */
	idtab_insert(&t, &a);
	idtab_insert(&t, &b);
	idtab_insert(&t, &c);
	ck_assert_ptr_eq(idtab_find(&t, 7), &a);
	ck_assert_ptr_eq(idtab_find(&t, 8), &b);
	ck_assert_ptr_eq(idtab_find(&t, 71), &c);
	idtab_remove(&t, &a);
	ck_assert_ptr_null(idtab_find(&t, 7));
	ck_assert_ptr_eq(idtab_find(&t, 8), &b);
	ck_assert_ptr_eq(idtab_find(&t, 71), &c);
	ck_assert_uint_eq(t.n, 2);
	idtab_release(&t);
}
END_TEST

/* A pid reused: the old process leaves the table while the new one with
 * the same id stays (idtab_remove takes the object, not the id). */
START_TEST(test_remove_exact_object)
{
	struct idtab t = { 0 };
	struct obj old = { 42, 1 }, young = { 42, 2 };

	idtab_insert(&t, &old);
	idtab_insert(&t, &young);
	idtab_remove(&t, &old);
	ck_assert_ptr_eq(idtab_find(&t, 42), &young);
	idtab_remove(&t, &old); /* no longer there: nothing happens */
	ck_assert_ptr_eq(idtab_find(&t, 42), &young);
	ck_assert_uint_eq(t.n, 1);
	idtab_release(&t);
}
END_TEST

START_TEST(test_random_against_scan)
{
	enum { N = 3000 };
	static struct obj objs[N];
	static bool in[N];
	struct idtab t = { 0 };
	unsigned seed = 12345, i, round;

	for (i = 0; i < N; i++)
		objs[i].id = i * 7919u % 5003u; /* some ids shared */
	for (round = 0; round < 40000; round++) {
		unsigned k = rand_r(&seed) % N;

		if (in[k]) {
			idtab_remove(&t, &objs[k]);
			in[k] = false;
		} else {
			bool shared = false;

			for (i = 0; i < N && !shared; i++)
				shared = in[i] && objs[i].id == objs[k].id;
			if (shared)
				continue; /* one object per id, as threads and processes are */
			idtab_insert(&t, &objs[k]);
			in[k] = true;
		}
		if (round % 997 == 0) {
			size_t n = 0;

			for (i = 0; i < N; i++) {
				struct obj *f = idtab_find(&t, objs[i].id);

				if (in[i]) {
					n++;
					ck_assert_ptr_eq(f, &objs[i]);
				}
			}
			ck_assert_uint_eq(t.n, n);
		}
	}
	idtab_release(&t);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("idtab");
	TCase *tc = tcase_create("idtab");

	tcase_add_test(tc, test_insert_find_remove);
	tcase_add_test(tc, test_remove_exact_object);
	tcase_add_test(tc, test_random_against_scan);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return testutil_run(suite()) != 0;
}
