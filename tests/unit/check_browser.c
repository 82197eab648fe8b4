/* Unit tests for the browser model: key map and help, filters, zoom,
 * sort, selection kept on the same entry across snapshots, call trees. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "alpha-profileme.h"
#include "browser.h"
#include "testutil.h"
#include "util.h"
#include "view.h"

struct spec_row {
	const char *comm, *dso, *sym;
	uint64_t period;
	bool kernel;
};

/* A malloc'd snapshot of rows, as the engine would publish it. */
static struct snapshot *snap_of(const struct spec_row *spec, size_t n)
{
	struct snapshot *s = xcalloc(1, sizeof(*s));
	size_t i;

	sort_spec_parse("comm,dso,sym", &s->sort, NULL);
	s->event = "cpu-clock";
	s->target = "system-wide";
	s->mode = "decay";
	s->rows = xcalloc(n, sizeof(*s->rows));
	s->nr_rows = n;
	for (i = 0; i < n; i++)
		s->period += spec[i].period;
	for (i = 0; i < n; i++) {
		struct snapshot_row *r = &s->rows[i];

		r->comm = spec[i].comm;
		r->dso = spec[i].dso;
		r->has_dso = true;
		r->symbol = spec[i].sym;
		r->has_sym = true;
		r->kernel = spec[i].kernel;
		r->period = spec[i].period;
		r->samples = spec[i].period / 10;
		r->self = 100.0 * (double)r->period / (double)s->period;
	}
	return s;
}

static const struct spec_row base_rows[] = {
	{ "wl", "wl", "leaf_a", 500, false },
	{ "wl", "wl", "leaf_b", 250, false },
	{ "wl", "libwl.so", "lib_leaf", 160, false },
	{ "wl", "wl", "leaf_c", 80, false },
	{ "sh", "[kernel.kallsyms]", "do_syscall_64", 10, true },
};

static void setup(struct browser *b)
{
	struct browser_init init = { .mode = HIST_DECAY };

	browser_init(b, &init);
	browser_set_snapshot(b, snap_of(base_rows, ARRAY_SIZE(base_rows)));
	browser_set_page(b, 20);
}

static const char *sym_at(const struct browser *b, size_t i)
{
	ck_assert_uint_lt(i, b->nr_lines);
	return b->lines[i].row->symbol;
}

static void type(struct browser *b, const char *s)
{
	for (; *s; s++)
		browser_key(b, (unsigned char)*s);
}

START_TEST(test_keymap)
{
	char buf[64];
	size_t i;
	bool seen_quit = false;

	ck_assert_int_eq(browser_action_of('q'), BROWSER_ACT_QUIT);
	ck_assert_int_eq(browser_action_of(BKEY_CTRL_C), BROWSER_ACT_QUIT);
	ck_assert_int_eq(browser_action_of('j'), BROWSER_ACT_DOWN);
	ck_assert_int_eq(browser_action_of(BKEY_DOWN), BROWSER_ACT_DOWN);
	ck_assert_int_eq(browser_action_of('?'), BROWSER_ACT_HELP);
	ck_assert_int_eq(browser_action_of(BKEY_F1), BROWSER_ACT_HELP);
	ck_assert_int_eq(browser_action_of(' '), BROWSER_ACT_PAUSE);
	ck_assert_int_eq(browser_action_of('>'), BROWSER_ACT_SORT_NEXT);
	ck_assert_int_eq(browser_action_of(BKEY_ENTER), BROWSER_ACT_EXPAND);
	ck_assert_int_eq(browser_action_of(BKEY_ESC), BROWSER_ACT_ZOOM_OUT);
	ck_assert_int_eq(browser_action_of('x'), BROWSER_ACT_NONE);
	ck_assert_str_eq(browser_key_name(BKEY_PGDN, buf, sizeof(buf)), "PgDn");
	ck_assert_str_eq(browser_key_name(BKEY_CTRL_C, buf, sizeof(buf)), "Ctrl-C");
	ck_assert_str_eq(browser_key_name('/', buf, sizeof(buf)), "/");

	/* The help lists every action, with its keys, from the same table
	 * (then the per-instruction view's: check_annotate_view). */
	ck_assert_uint_eq(browser_help_lines(), BROWSER_ACT__MAX - 1 + 1 + annotate_view_help_lines());
	for (i = 0; i < browser_help_lines(); i++) {
		browser_help_line(i, buf, sizeof(buf));
		ck_assert_uint_gt(strlen(buf), 20);
		if (strncmp(buf, "q Ctrl-C", 8) == 0)
			seen_quit = true;
	}
	ck_assert(seen_quit);
}
END_TEST

START_TEST(test_quit_and_help)
{
	struct browser b;

	setup(&b);
	ck_assert_uint_eq(browser_key(&b, 'h') & BROWSER_QUIT, 0);
	ck_assert_int_eq(b.screen, BROWSER_HELP);
	/* q closes the help, then quits */
	ck_assert_uint_eq(browser_key(&b, 'q') & BROWSER_QUIT, 0);
	ck_assert_int_eq(b.screen, BROWSER_TABLE);
	ck_assert_uint_ne(browser_key(&b, 'q') & BROWSER_QUIT, 0);
	browser_release(&b);
}
END_TEST

START_TEST(test_selection_follows_entry)
{
	static const struct spec_row next[] = {
		{ "wl", "wl", "leaf_b", 700, false },
		{ "wl", "wl", "leaf_a", 200, false },
		{ "wl", "wl", "leaf_c", 100, false },
	};
	struct browser b;

	setup(&b);
	ck_assert_str_eq(sym_at(&b, 0), "leaf_a");
	browser_key(&b, 'j');
	ck_assert_uint_eq(b.selected, 1);
	ck_assert_str_eq(sym_at(&b, b.selected), "leaf_b");
	/* leaf_b moves to the top: the selection goes with it */
	browser_set_snapshot(&b, snap_of(next, ARRAY_SIZE(next)));
	ck_assert_uint_eq(b.selected, 0);
	ck_assert_str_eq(sym_at(&b, b.selected), "leaf_b");
	/* re-sorting by name moves it again */
	while (b.sort_col != COLUMN_SYM)
		browser_key(&b, 's');
	ck_assert_str_eq(sym_at(&b, 0), "leaf_a");
	ck_assert_str_eq(sym_at(&b, b.selected), "leaf_b");
	ck_assert_uint_eq(b.selected, 1);
	browser_key(&b, '<');
	ck_assert_int_eq(b.sort_col, COLUMN_DSO);
	/* an entry that vanishes leaves the selection on the same line */
	browser_key(&b, BKEY_END);
	ck_assert_uint_eq(b.selected, 2);
	browser_set_snapshot(&b, snap_of(next, 2));
	ck_assert_uint_eq(b.selected, 1);
	browser_release(&b);
}
END_TEST

/* B: the table becomes the baseline (every delta 0, Baseline and Delta
 * columns), the next snapshot is compared with it (leaf_b up, leaf_a
 * down, do_syscall_64 gone, leaf_d new), and Delta sorts the rise first. */
START_TEST(test_baseline_key)
{
	static const struct spec_row next[] = {
		{ "wl", "wl", "leaf_b", 700, false },
		{ "wl", "wl", "leaf_a", 200, false },
		{ "wl", "libwl.so", "lib_leaf", 60, false },
		{ "wl", "wl", "leaf_c", 20, false },
		{ "wl", "wl", "leaf_d", 20, false },
	};
	struct browser b;
	size_t i, k;
	bool has_delta = false;

	setup(&b);
	ck_assert_ptr_null(b.baseline);
	browser_key(&b, 'B');
	ck_assert_ptr_nonnull(b.baseline);
	ck_assert_ptr_nonnull(strstr(b.message, "baseline: the table at"));
	ck_assert(b.snap->baseline);
	for (k = 0; k < b.nr_cols; k++)
		has_delta |= b.cols[k] == COLUMN_DELTA;
	ck_assert(has_delta);
	for (i = 0; i < b.nr_lines; i++)
		ck_assert_double_eq_tol(column_delta(b.lines[i].row), 0, 1e-9);
	browser_set_snapshot(&b, snap_of(next, ARRAY_SIZE(next)));
	ck_assert_uint_eq(b.snap->nr_gone, 1);
	for (i = 0; i < b.nr_lines; i++) {
		const struct snapshot_row *r = b.lines[i].row;

		if (strcmp(r->symbol, "leaf_b") == 0)
			ck_assert_double_eq_tol(column_delta(r), 70 - 25, 1e-9);
		if (strcmp(r->symbol, "leaf_a") == 0)
			ck_assert_double_eq_tol(column_delta(r), 20 - 50, 1e-9);
		if (strcmp(r->symbol, "leaf_d") == 0)
			ck_assert(!r->has_baseline);
		if (strcmp(r->symbol, "do_syscall_64") == 0)
			ck_assert(r->gone);
	}
	while (b.sort_col != COLUMN_DELTA)
		browser_key(&b, 's');
	ck_assert_str_eq(sym_at(&b, 0), "leaf_b");
	ck_assert_str_eq(sym_at(&b, b.nr_lines - 1), "leaf_a");
	browser_release(&b);
}
END_TEST

/* -s sym,srcline --inline: a Source:Line column to sort by, and the
 * selection told apart by srcline and by the inlined mark, not only by
 * the symbol's name. */
START_TEST(test_srcline_inline)
{
	static const struct spec_row rows[] = {
		{ "wl", "wl", "hot", 600, false },
		{ "wl", "wl", "hot", 300, false },
		{ "wl", "wl", "hot", 100, false },
	};
	static const char *const lines[] = { "b.c:2", "a.c:9", "b.c:2" };
	struct snapshot *s = snap_of(rows, ARRAY_SIZE(rows)), *s2;
	struct browser b;
	size_t i;

	/* rows 0 and 2 differ only by the inlined mark */
	for (i = 0; i < 3; i++) {
		s->rows[i].srcline = lines[i];
		s->rows[i].has_srcline = true;
	}
	s->rows[0].inlined = true;
	sort_spec_parse("sym,srcline", &s->sort, NULL);
	browser_init(&b, &(struct browser_init){ .mode = HIST_DECAY });
	browser_set_snapshot(&b, s);
	browser_set_page(&b, 20);
	ck_assert_int_eq(b.cols[b.nr_cols - 1], COLUMN_SRCLINE);
	ck_assert_str_eq(column_title(NULL, COLUMN_SRCLINE), "Source:Line");
	ck_assert(column_is_name(NULL, COLUMN_SRCLINE));
	while (b.sort_col != COLUMN_SRCLINE)
		browser_key(&b, 's');
	ck_assert_str_eq(b.lines[0].row->srcline, "a.c:9");
	/* select the not-inlined b.c:2 row; it stays selected (not the
	 * inlined one of the same name and line, listed first) */
	browser_key(&b, BKEY_END);
	ck_assert(!b.lines[b.selected].row->inlined);
	s2 = snap_of(rows, ARRAY_SIZE(rows));
	for (i = 0; i < 3; i++) {
		s2->rows[i].srcline = lines[i];
		s2->rows[i].has_srcline = true;
	}
	s2->rows[0].inlined = true;
	sort_spec_parse("sym,srcline", &s2->sort, NULL);
	browser_set_snapshot(&b, s2);
	ck_assert(!b.lines[b.selected].row->inlined);
	ck_assert_str_eq(b.lines[b.selected].row->srcline, "b.c:2");
	ck_assert_uint_eq(b.lines[b.selected].row->period, 100);
	browser_release(&b);
}
END_TEST

START_TEST(test_moves_and_scroll)
{
	struct browser b;

	setup(&b);
	browser_set_page(&b, 2);
	browser_key(&b, BKEY_PGDN);
	ck_assert_uint_eq(b.selected, 2);
	ck_assert_uint_le(b.top, 2);
	ck_assert_uint_ge(b.top + 2, 3);
	browser_key(&b, BKEY_END);
	ck_assert_uint_eq(b.selected, 4);
	ck_assert_uint_eq(b.top, 3);
	browser_key(&b, 'j');
	ck_assert_uint_eq(b.selected, 4);
	browser_key(&b, BKEY_HOME);
	ck_assert_uint_eq(b.selected, 0);
	ck_assert_uint_eq(b.top, 0);
	browser_key(&b, 'k');
	ck_assert_uint_eq(b.selected, 0);
	browser_release(&b);
}
END_TEST

START_TEST(test_filter)
{
	struct browser b;

	setup(&b);
	browser_key(&b, '/');
	ck_assert_int_eq(b.screen, BROWSER_PROMPT);
	type(&b, "leaf_x");
	browser_key(&b, BKEY_BACKSPACE);
	type(&b, "b");
	browser_key(&b, BKEY_ENTER);
	ck_assert_int_eq(b.screen, BROWSER_TABLE);
	ck_assert_str_eq(b.filter, "leaf_b");
	ck_assert_uint_eq(b.nr_lines, 1);
	ck_assert_str_eq(sym_at(&b, 0), "leaf_b");
	/* Esc in the prompt cancels; an empty filter clears */
	browser_key(&b, '/');
	browser_key(&b, BKEY_ESC);
	ck_assert_str_eq(b.filter, "leaf_b");
	browser_key(&b, '/');
	browser_key(&b, 'U' - '@');
	browser_key(&b, BKEY_ENTER);
	ck_assert_str_eq(b.filter, "");
	ck_assert_uint_eq(b.nr_lines, 5);
	browser_release(&b);
}
END_TEST

START_TEST(test_zoom)
{
	struct browser b;

	setup(&b);
	browser_key(&b, 'j');
	browser_key(&b, 'j'); /* lib_leaf in libwl.so */
	browser_key(&b, 'd');
	ck_assert_str_eq(b.zoom_dso, "libwl.so");
	ck_assert_uint_eq(b.nr_lines, 1);
	ck_assert_str_eq(sym_at(&b, b.selected), "lib_leaf");
	browser_key(&b, BKEY_ESC);
	ck_assert_ptr_null(b.zoom_dso);
	ck_assert_uint_eq(b.nr_lines, 5);
	ck_assert_str_eq(sym_at(&b, b.selected), "lib_leaf");
	/* command zoom, then dso zoom: Left undoes the dso one first */
	browser_key(&b, 't');
	ck_assert_str_eq(b.zoom_comm, "wl");
	ck_assert_uint_eq(b.nr_lines, 4);
	browser_key(&b, BKEY_HOME);
	browser_key(&b, 'd');
	ck_assert_uint_eq(b.nr_lines, 3);
	browser_key(&b, BKEY_LEFT);
	ck_assert_ptr_null(b.zoom_dso);
	ck_assert_ptr_nonnull(b.zoom_comm);
	browser_key(&b, BKEY_LEFT);
	ck_assert_ptr_null(b.zoom_comm);
	/* t twice toggles */
	browser_key(&b, 't');
	browser_key(&b, 't');
	ck_assert_ptr_null(b.zoom_comm);
	browser_release(&b);
}
END_TEST

START_TEST(test_hide_and_percent)
{
	struct browser b;

	setup(&b);
	browser_key(&b, 'K');
	ck_assert_uint_eq(b.nr_lines, 4);
	ck_assert_double_eq_tol(b.lines[0].self, 50.0, 0.01);
	/* F: percent of the shown rows (990 of 1000) */
	browser_key(&b, 'F');
	ck_assert_double_eq_tol(b.lines[0].self, 100.0 * 500 / 990, 0.01);
	browser_key(&b, 'F');
	browser_key(&b, 'U');
	ck_assert(!b.hide_kernel);
	ck_assert_uint_eq(b.nr_lines, 1);
	ck_assert(b.lines[0].row->kernel);
	browser_key(&b, 'U');
	ck_assert_uint_eq(b.nr_lines, 5);
	/* L: a percent limit */
	browser_key(&b, 'L');
	type(&b, "10");
	browser_key(&b, BKEY_ENTER);
	ck_assert_double_eq(b.percent_limit, 10.0);
	ck_assert_uint_eq(b.nr_lines, 3);
	ck_assert_uint_eq(b.hidden_by_limit, 2);
	browser_key(&b, 'L');
	type(&b, "x");
	browser_key(&b, BKEY_ENTER);
	ck_assert_double_eq(b.percent_limit, 10.0);
	ck_assert_ptr_nonnull(strstr(b.message, "not a number"));
	browser_release(&b);
}
END_TEST

START_TEST(test_mode_and_pause)
{
	struct browser b;
	unsigned r;

	setup(&b);
	r = browser_key(&b, 'z');
	ck_assert_uint_ne(r & BROWSER_SET_MODE, 0);
	ck_assert_int_eq(b.mode, HIST_ZERO);
	browser_key(&b, 'z');
	ck_assert_int_eq(b.mode, HIST_DECAY);
	browser_key(&b, 'p');
	ck_assert(b.paused);
	r = browser_key(&b, ' ');
	ck_assert(!b.paused);
	ck_assert_uint_ne(r & BROWSER_RESUMED, 0);
	browser_key(&b, '+');
	ck_assert_ptr_nonnull(strstr(b.message, "-g"));
	browser_release(&b);
}
END_TEST

/* A callers tree for leaf_a: main (75%) -> _start, helper (25%).  One
 * malloc'd array, as view.c makes them (snapshot_release frees it). */
static struct snapshot *snap_with_tree(void)
{
	struct snapshot *s = snap_of(base_rows, ARRAY_SIZE(base_rows));
	struct snapshot_node *tree = xcalloc(4, sizeof(*tree));

	tree[0] = (struct snapshot_node){ .symbol = "leaf_a", .dso = "wl", .period = 500,
					  .share = 100, .children = &tree[1], .nr_children = 2 };
	tree[1] = (struct snapshot_node){ .symbol = "main", .dso = "wl", .period = 375,
					  .share = 75, .depth = 1, .children = &tree[3],
					  .nr_children = 1 };
	tree[2] = (struct snapshot_node){ .symbol = "helper", .dso = "wl", .period = 125,
					  .share = 25, .depth = 1 };
	tree[3] = (struct snapshot_node){ .symbol = "_start", .dso = "wl", .period = 375,
					  .share = 75, .depth = 2 };
	s->callchains = true;
	s->rows[0].callers = &tree[0];
	return s;
}

START_TEST(test_expand)
{
	struct browser b;
	struct browser_init init = { .mode = HIST_DECAY };

	browser_init(&b, &init);
	browser_set_snapshot(&b, snap_with_tree());
	browser_set_page(&b, 20);
	ck_assert(b.lines[0].expandable);
	ck_assert(!b.lines[1].expandable);
	browser_key(&b, BKEY_ENTER);
	ck_assert_uint_eq(b.nr_lines, 7);
	ck_assert_uint_eq(b.nr_rows, 5);
	ck_assert_str_eq(b.lines[1].node->symbol, "main");
	ck_assert_uint_eq(b.lines[1].depth, 1);
	ck_assert(b.lines[1].expandable && !b.lines[1].expanded);
	/* open main, select _start: it stays selected in the next snapshot */
	browser_key(&b, 'j');
	browser_key(&b, 'e');
	ck_assert_uint_eq(b.nr_lines, 8);
	browser_key(&b, 'j');
	ck_assert_str_eq(b.lines[b.selected].node->symbol, "_start");
	browser_set_snapshot(&b, snap_with_tree());
	ck_assert_uint_eq(b.nr_lines, 8);
	ck_assert_ptr_nonnull(b.lines[b.selected].node);
	ck_assert_str_eq(b.lines[b.selected].node->symbol, "_start");
	/* a leaf node cannot expand; C collapses all, E expands all */
	browser_key(&b, '+');
	ck_assert_ptr_nonnull(strstr(b.message, "no callers"));
	browser_key(&b, 'C');
	ck_assert_uint_eq(b.nr_lines, 5);
	ck_assert_str_eq(sym_at(&b, b.selected), "leaf_a");
	browser_key(&b, 'E');
	ck_assert_uint_eq(b.nr_lines, 8);
	/* G: the callees tree, which this row lacks */
	browser_key(&b, 'G');
	ck_assert(b.callees);
	ck_assert_uint_eq(b.nr_lines, 5);
	browser_release(&b);
}
END_TEST

START_TEST(test_print)
{
	struct browser b;
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	setup(&b);
	browser_key(&b, 'K');
	browser_print(&b, f);
	fclose(f);
	ck_assert_ptr_nonnull(strstr(buf, "leaf_a"));
	ck_assert_ptr_null(strstr(buf, "do_syscall_64"));
	free(buf);

	b.print_dir = testutil_tmpdir("browser");
	browser_key(&b, 'P');
	ck_assert_ptr_nonnull(strstr(b.message, "proftop.hist.0"));
	browser_key(&b, 'P');
	ck_assert_ptr_nonnull(strstr(b.message, "proftop.hist.1"));
	ck_assert_int_eq(testutil_sh("grep -q leaf_b '%s/proftop.hist.0'", b.print_dir), 0);
	free((char *)b.print_dir);
	browser_release(&b);
}
END_TEST

/* ProfileMe columns in the browser: --order's word picks the sort column
 * (traps: the Traps percentage, not the trap name beside it), and sorting
 * by the trap name puts rows without a trap last, as every name column
 * does with rows without the name. */
START_TEST(test_payload_order)
{
	static struct profileme_stats st[3], total;
	struct snapshot *s = snap_of(base_rows, 3);
	struct browser b;
	struct profileme pm;
	size_t i;

	/* row 0: no trap; row 1: one DTB single miss in 2; row 2: one
	 * unaligned in 1 */
	memset(st, 0, sizeof(st));
	profileme_from_regs(1, 0x1000, 0, 2, &pm);
	profileme_stats_add(&st[0], &pm);
	profileme_stats_add(&st[1], &pm);
	profileme_from_regs(1, 0x1000, 1ULL << 39 | 6ULL << 34, 0, &pm);
	profileme_stats_add(&st[1], &pm);
	profileme_from_regs(1, 0x1000, 1ULL << 39 | 5ULL << 34, 0, &pm);
	profileme_stats_add(&st[2], &pm);
	memset(&total, 0, sizeof(total));
	for (i = 0; i < 3; i++) {
		s->rows[i].payload = &st[i];
		profileme_stats_merge(&total, &st[i]);
	}
	s->payload = &profileme_payload;
	s->payload_rows = true;
	s->payload_total = NULL; /* the browser frees nothing of it: static */
	s->order = "traps";
	browser_init(&b, &(struct browser_init){ .mode = HIST_DECAY });
	browser_set_snapshot(&b, s);
	browser_set_page(&b, 20);
	ck_assert(b.payload);
	ck_assert_int_eq(b.sort_col, COLUMN_PAYLOAD + payload_order_column(s->payload, "traps"));
	ck_assert_str_eq(browser_sort_name(&b), "Traps");
	/* 100% (lib_leaf), 50% (leaf_b), 0% (leaf_a) */
	ck_assert_str_eq(b.lines[0].row->symbol, "lib_leaf");
	ck_assert_str_eq(b.lines[1].row->symbol, "leaf_b");
	ck_assert_str_eq(b.lines[2].row->symbol, "leaf_a");
	/* the trap name: "DTB single miss" < "unaligned", no trap last */
	browser_key(&b, 's');
	ck_assert_str_eq(browser_sort_name(&b), "Trap");
	ck_assert_str_eq(b.lines[0].row->symbol, "leaf_b");
	ck_assert_str_eq(b.lines[1].row->symbol, "lib_leaf");
	ck_assert_str_eq(b.lines[2].row->symbol, "leaf_a");
	browser_release(&b);
}
END_TEST

/* Rows without a comm (mixed) sort after every name, by Command as by
 * any name column. */
START_TEST(test_sort_null_last)
{
	struct snapshot *s = snap_of(base_rows, ARRAY_SIZE(base_rows));
	struct browser b;

	s->rows[0].comm = NULL;
	browser_init(&b, &(struct browser_init){ .mode = HIST_DECAY });
	browser_set_snapshot(&b, s);
	browser_set_page(&b, 20);
	while (b.sort_col != COLUMN_COMM)
		browser_key(&b, 's');
	ck_assert_str_eq(b.lines[0].row->comm, "sh");
	ck_assert_ptr_null(b.lines[b.nr_lines - 1].row->comm);
	ck_assert_int_lt(view_strcmp("zzz", NULL), 0);
	ck_assert_int_gt(view_strcmp(NULL, ""), 0);
	ck_assert_int_eq(view_strcmp(NULL, NULL), 0);
	browser_release(&b);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("browser");
	TCase *tc;

	tc = tcase_create("keys");
	tcase_add_test(tc, test_keymap);
	tcase_add_test(tc, test_quit_and_help);
	tcase_add_test(tc, test_moves_and_scroll);
	tcase_add_test(tc, test_mode_and_pause);
	suite_add_tcase(s, tc);

	tc = tcase_create("selection");
	tcase_add_test(tc, test_selection_follows_entry);
	tcase_add_test(tc, test_baseline_key);
	tcase_add_test(tc, test_srcline_inline);
	tcase_add_test(tc, test_payload_order);
	tcase_add_test(tc, test_sort_null_last);
	suite_add_tcase(s, tc);

	tc = tcase_create("filters");
	tcase_add_test(tc, test_filter);
	tcase_add_test(tc, test_zoom);
	tcase_add_test(tc, test_hide_and_percent);
	tcase_add_test(tc, test_print);
	suite_add_tcase(s, tc);

	tc = tcase_create("callchains");
	tcase_add_test(tc, test_expand);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return testutil_run(suite()) != 0;
}
