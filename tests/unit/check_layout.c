/* Unit tests for the browser's layout: column placement at several
 * terminal widths and the middle ellipsis of long names. */
#include "config.h"

#include <string.h>

#include "layout.h"
#include "testutil.h"

static const enum column_id default_cols[] = {
	COLUMN_SELF, COLUMN_SAMPLES, COLUMN_COMM, COLUMN_DSO, COLUMN_SYM,
};

static void wants(unsigned *want, unsigned comm, unsigned dso, unsigned sym)
{
	memset(want, 0, COLUMN__MAX * sizeof(*want));
	want[COLUMN_SELF] = 7;
	want[COLUMN_SAMPLES] = 5;
	want[COLUMN_COMM] = comm;
	want[COLUMN_DSO] = dso;
	want[COLUMN_SYM] = sym;
}

/* Every cell after the previous one, and the last ending at the width. */
static void check_fits(const struct layout *l, unsigned width)
{
	const struct layout_cell *last = &l->cells[l->n - 1];
	size_t i;

	for (i = 1; i < l->n; i++)
		ck_assert_uint_gt(l->cells[i].x, l->cells[i - 1].x + l->cells[i - 1].width - 1);
	ck_assert_uint_eq(last->x + last->width, width);
}

START_TEST(test_layout_wide)
{
	unsigned want[COLUMN__MAX];
	struct layout l;

	wants(want, 8, 14, 30);
	layout_compute(&l, NULL, default_cols, 5, want, 250);
	ck_assert_uint_eq(l.n, 5);
	check_fits(&l, 250);
	/* numbers keep their width (the title's at least) */
	ck_assert_uint_eq(layout_find(&l, COLUMN_SELF)->width, 7);
	ck_assert_uint_eq(layout_find(&l, COLUMN_SAMPLES)->width, strlen("Samples"));
	ck_assert(layout_find(&l, COLUMN_SELF)->right);
	ck_assert(!layout_find(&l, COLUMN_DSO)->right);
	/* names get what they want, the title included; the last takes the rest */
	ck_assert_uint_eq(layout_find(&l, COLUMN_COMM)->width, 8);
	ck_assert_uint_eq(layout_find(&l, COLUMN_DSO)->width, strlen("Shared Object") + 1);
	ck_assert_uint_gt(layout_find(&l, COLUMN_SYM)->width, 150);
}
END_TEST

START_TEST(test_layout_caps)
{
	unsigned want[COLUMN__MAX];
	struct layout l;

	/* Long comm and dso are capped so the symbol keeps the room. */
	wants(want, 40, 90, 60);
	layout_compute(&l, NULL, default_cols, 5, want, 120);
	check_fits(&l, 120);
	ck_assert_uint_eq(layout_find(&l, COLUMN_COMM)->width, 16);
	ck_assert_uint_eq(layout_find(&l, COLUMN_DSO)->width, 20);
	ck_assert_uint_ge(layout_find(&l, COLUMN_SYM)->width, 60);
	/* wider terminals give DSO paths more */
	layout_compute(&l, NULL, default_cols, 5, want, 250);
	ck_assert_uint_eq(layout_find(&l, COLUMN_DSO)->width, 41);
}
END_TEST

START_TEST(test_layout_narrow)
{
	unsigned want[COLUMN__MAX];
	struct layout l;

	/* 80 columns with long names: Command and Shared Object shrink first,
	 * to their titles' width, then the symbol. */
	wants(want, 15, 40, 90);
	layout_compute(&l, NULL, default_cols, 5, want, 80);
	check_fits(&l, 80);
	ck_assert_uint_eq(layout_find(&l, COLUMN_COMM)->width, strlen("Command"));
	ck_assert_uint_eq(layout_find(&l, COLUMN_DSO)->width, strlen("Shared Object"));
	ck_assert_uint_eq(layout_find(&l, COLUMN_SYM)->width, 80 - 7 - 7 - 7 - 13 - 4);
	/* Narrower: the symbol down to its minimum, then the others to theirs. */
	layout_compute(&l, NULL, default_cols, 5, want, 50);
	check_fits(&l, 50);
	ck_assert_uint_eq(layout_find(&l, COLUMN_SYM)->width, 12);
	ck_assert_uint_eq(layout_find(&l, COLUMN_COMM)->width + layout_find(&l, COLUMN_DSO)->width,
			  50 - 7 - 7 - 12 - 4);
	/* With room for part of them: Command and Shared Object give just
	 * what the symbol needs, the widest first; the symbol is whole. */
	wants(want, 7, 17, 40);
	layout_compute(&l, NULL, default_cols, 5, want, 80);
	check_fits(&l, 80);
	ck_assert_uint_eq(layout_find(&l, COLUMN_SYM)->width, 40);
	ck_assert_uint_eq(layout_find(&l, COLUMN_COMM)->width, 7);
	ck_assert_uint_eq(layout_find(&l, COLUMN_DSO)->width, 80 - 7 - 7 - 7 - 40 - 4);
	/* one separator column at this width */
	ck_assert_uint_eq(layout_find(&l, COLUMN_SAMPLES)->x, 8);

	/* Too narrow for the minimums: minimums, running past the edge. */
	layout_compute(&l, NULL, default_cols, 5, want, 30);
	ck_assert_uint_eq(layout_find(&l, COLUMN_COMM)->width, 6);
	ck_assert_uint_eq(layout_find(&l, COLUMN_SYM)->width, 12);
}
END_TEST

START_TEST(test_layout_order)
{
	static const enum column_id cols[] = { COLUMN_CHILDREN, COLUMN_SELF, COLUMN_SAMPLES,
						COLUMN_SYM, COLUMN_PID };
	unsigned want[COLUMN__MAX] = { 0 };
	struct layout l;

	want[COLUMN_SAMPLES] = 9;
	want[COLUMN_PID] = 6;
	want[COLUMN_SYM] = 20;
	layout_compute(&l, NULL, cols, 5, want, 100);
	/* The symbol is the last name column: it takes the rest even when a
	 * number comes after it. */
	ck_assert_uint_eq(l.cells[0].col, COLUMN_CHILDREN);
	ck_assert_uint_eq(l.cells[0].x, 0);
	ck_assert_uint_eq(layout_find(&l, COLUMN_SAMPLES)->width, 9);
	ck_assert_uint_eq(layout_find(&l, COLUMN_PID)->width, 6);
	check_fits(&l, 100);
	ck_assert_ptr_null(layout_find(&l, COLUMN_DSO));
	ck_assert_str_eq(column_title(NULL, COLUMN_DSO), "Shared Object");
}
END_TEST

START_TEST(test_ellipsize)
{
	char out[64];

	ck_assert_uint_eq(layout_ellipsize("leaf_a", 10, out, sizeof(out)), 6);
	ck_assert_str_eq(out, "leaf_a");
	ck_assert_uint_eq(layout_ellipsize("leaf_a", 6, out, sizeof(out)), 6);
	ck_assert_str_eq(out, "leaf_a");
	/* both ends stay, the head gets the odd column */
	ck_assert_uint_eq(layout_ellipsize("/usr/lib/libverylong.so", 9, out, sizeof(out)), 9);
	ck_assert_str_eq(out, "/usr\xe2\x80\xa6g.so");
	ck_assert_uint_eq(layout_text_width(out), 9);
	ck_assert_uint_eq(layout_ellipsize("abcdef", 2, out, sizeof(out)), 2);
	ck_assert_str_eq(out, "a\xe2\x80\xa6");
	ck_assert_uint_eq(layout_ellipsize("abcdef", 1, out, sizeof(out)), 1);
	ck_assert_str_eq(out, "\xe2\x80\xa6");
	ck_assert_uint_eq(layout_ellipsize("abcdef", 0, out, sizeof(out)), 0);
	ck_assert_str_eq(out, "");
}
END_TEST

START_TEST(test_ellipsize_utf8)
{
	char out[64];

	/* "é" is two bytes and one column: never cut in half. */
	ck_assert_uint_eq(layout_text_width("d\xc3\xa9j\xc3\xa0vu"), 6);
	ck_assert_uint_eq(layout_ellipsize("\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9", 3, out,
					   sizeof(out)),
			  3);
	ck_assert_str_eq(out, "\xc3\xa9\xe2\x80\xa6\xc3\xa9");
	/* control characters cannot break the screen */
	layout_ellipsize("a\nb\033c", 10, out, sizeof(out));
	ck_assert_str_eq(out, "a?b?c");
	/* a small buffer truncates but terminates */
	layout_ellipsize("abcdefghijklmnop", 100, out, 5);
	ck_assert_str_eq(out, "abcd");
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("layout");
	TCase *tc;

	tc = tcase_create("columns");
	tcase_add_test(tc, test_layout_wide);
	tcase_add_test(tc, test_layout_caps);
	tcase_add_test(tc, test_layout_narrow);
	tcase_add_test(tc, test_layout_order);
	suite_add_tcase(s, tc);

	tc = tcase_create("ellipsis");
	tcase_add_test(tc, test_ellipsize);
	tcase_add_test(tc, test_ellipsize_utf8);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return testutil_run(suite()) != 0;
}
