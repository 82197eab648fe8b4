/* Unit tests for the per-instruction view's model and the browser's a:
 * the hottest line selected on open, TAB in heat order, t/o in the text,
 * the selection kept by address across refreshes, Enter on a jump and a
 * call, Backspace, Esc back to the table with its selection. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "annotate-view.h"
#include "browser.h"
#include "payload.h"
#include "strbuf.h"
#include "testutil.h"
#include "util.h"
#include "view.h"

struct spec_line {
	uint64_t addr, period;
	const char *text;
	uint64_t target;
	bool call;
	const char *target_sym;
};

/* leaf_a at 0x1000: a loop 0x1008..0x1014 (hot 0x100c, then 0x1010), a
 * call to helper, a jump back. */
static const struct spec_line leaf_a[] = {
	{ 0x1000, 0, "push %rbp", 0, false, NULL },
	{ 0x1001, 0, "mov %rsp, %rbp", 0, false, NULL },
	{ 0x1004, 0, "call 0x2000", 0x2000, true, "helper" },
	{ 0x1008, 5, "mov -0x10(%rbp), %rax", 0, false, NULL },
	{ 0x100c, 60, "imul %rdx, %rax", 0, false, NULL },
	{ 0x1010, 30, "add %rdx, %rax", 0, false, NULL },
	{ 0x1014, 5, "jb 0x1008", 0x1008, false, "leaf_a" },
	{ 0x1016, 0, "ret", 0, false, NULL },
};

static struct annotate_report *report_of(const char *sym, const struct spec_line *spec, size_t n,
					 uint64_t start, unsigned scale)
{
	struct annotate_report *r = xcalloc(1, sizeof(*r));
	struct annotate_fn *f;
	size_t i;

	r->fns = xcalloc(1, sizeof(*r->fns));
	r->nr_fns = 1;
	f = &r->fns[0];
	f->spec = xstrdup(sym);
	f->symbol = xstrdup(sym);
	f->dso = xstrdup("wl");
	f->dso_path = xstrdup("/bin/wl");
	f->start = start;
	f->size = 0x18;
	f->lines = xcalloc(n, sizeof(*f->lines));
	f->nr_lines = n;
	for (i = 0; i < n; i++) {
		struct annotate_line *l = &f->lines[i];

		l->addr = spec[i].addr;
		l->size = 1;
		snprintf(l->text, sizeof(l->text), "%s", spec[i].text);
		l->period = spec[i].period * scale;
		l->samples = spec[i].period * scale;
		l->target = spec[i].target;
		l->call = spec[i].call;
		snprintf(l->target_sym, sizeof(l->target_sym), "%s",
			 spec[i].target_sym ? spec[i].target_sym : "");
		if (spec[i].target_sym && strcmp(spec[i].target_sym, sym) == 0)
			l->target_off = spec[i].target - start;
		f->period += l->period;
		f->samples += l->samples;
	}
	return r;
}

static uint64_t sel_addr(const struct annotate_view *v)
{
	ck_assert_ptr_nonnull(v->fn);
	ck_assert_uint_lt(v->selected, v->nr_rows);
	return v->fn->lines[v->rows[v->selected].insn].addr;
}

static const char *line_text(const struct annotate_view *v, size_t i, struct strbuf *sb)
{
	double pct;
	bool src;

	strbuf_reset(sb);
	annotate_view_line(v, i, sb, &pct, &src);
	return sb->buf;
}

START_TEST(test_open_hot_and_tab)
{
	struct annotate_report *r = report_of("leaf_a", leaf_a, ARRAY_SIZE(leaf_a), 0x1000, 1);
	struct annotate_view v;

	annotate_view_init(&v);
	annotate_view_set_page(&v, 4);
	annotate_view_open(&v, "leaf_a", "/bin/wl");
	ck_assert_uint_eq(annotate_view_lines(&v), 0);
	ck_assert(!annotate_view_update(&v, NULL));
	ck_assert(annotate_view_update(&v, r));
	/* The hottest instruction is selected, and on screen. */
	ck_assert_uint_eq(sel_addr(&v), 0x100c);
	ck_assert_uint_le(v.top, v.selected);
	ck_assert_uint_lt(v.selected, v.top + 4);
	/* TAB: the next hottest, then the 5s by address, then round again. */
	annotate_view_key(&v, '\t');
	ck_assert_uint_eq(sel_addr(&v), 0x1010);
	annotate_view_key(&v, '\t');
	ck_assert_uint_eq(sel_addr(&v), 0x1008);
	annotate_view_key(&v, '\t');
	ck_assert_uint_eq(sel_addr(&v), 0x1014);
	annotate_view_key(&v, '\t');
	ck_assert_uint_eq(sel_addr(&v), 0x100c);
	annotate_view_key(&v, BKEY_BTAB);
	ck_assert_uint_eq(sel_addr(&v), 0x1014);
	/* From a cold line, TAB goes to the hottest. */
	annotate_view_key(&v, BKEY_HOME);
	ck_assert_uint_eq(sel_addr(&v), 0x1000);
	annotate_view_key(&v, '\t');
	ck_assert_uint_eq(sel_addr(&v), 0x100c);
	annotate_view_release(&v);
	annotate_report_free(r);
}
END_TEST

START_TEST(test_toggles)
{
	struct annotate_report *r = report_of("leaf_a", leaf_a, ARRAY_SIZE(leaf_a), 0x1000, 3);
	struct annotate_view v;
	struct strbuf sb;

	strbuf_init(&sb);
	annotate_view_init(&v);
	annotate_view_open(&v, "leaf_a", NULL);
	ck_assert(annotate_view_update(&v, r));
	/* 60 of 100: percent, the address, the text. */
	ck_assert_str_eq(line_text(&v, 4, &sb), "  60.00      100c:  imul %rdx, %rax");
	annotate_view_key(&v, 't');
	ck_assert_str_eq(line_text(&v, 4, &sb), "    180      100c:  imul %rdx, %rax");
	annotate_view_key(&v, 'o');
	ck_assert_str_eq(line_text(&v, 4, &sb), "    180       c:  imul %rdx, %rax");
	annotate_view_key(&v, 't');
	annotate_view_key(&v, 'o');
	/* A cold line has no number; targets: a jump's offset, a call's name. */
	ck_assert_str_eq(line_text(&v, 0, &sb), "             1000:  push %rbp");
	ck_assert_str_eq(line_text(&v, 6, &sb), "   5.00      1014:  jb 0x1008  <leaf_a+0x8>");
	ck_assert_str_eq(line_text(&v, 2, &sb), "             1004:  call 0x2000  <helper>");
	strbuf_reset(&sb);
	annotate_view_columns(&v, &sb);
	ck_assert_ptr_nonnull(strstr(sb.buf, "Percent"));
	annotate_view_key(&v, 't');
	strbuf_reset(&sb);
	annotate_view_columns(&v, &sb);
	ck_assert_ptr_nonnull(strstr(sb.buf, "Samples"));
	strbuf_release(&sb);
	annotate_view_release(&v);
	annotate_report_free(r);
}
END_TEST

/* A refresh keeps the line the user chose (by address), else follows the
 * hottest; a report without the function changes nothing. */
START_TEST(test_refresh_keeps_selection)
{
	static const struct spec_line moved_heat[] = {
		{ 0x1000, 0, "push %rbp", 0, false, NULL },
		{ 0x1001, 0, "mov %rsp, %rbp", 0, false, NULL },
		{ 0x1004, 0, "call 0x2000", 0x2000, true, "helper" },
		{ 0x1008, 90, "mov -0x10(%rbp), %rax", 0, false, NULL },
		{ 0x100c, 1, "imul %rdx, %rax", 0, false, NULL },
		{ 0x1010, 1, "add %rdx, %rax", 0, false, NULL },
		{ 0x1014, 1, "jb 0x1008", 0x1008, false, NULL },
		{ 0x1016, 0, "ret", 0, false, NULL },
	};
	struct annotate_report *r1 = report_of("leaf_a", leaf_a, ARRAY_SIZE(leaf_a), 0x1000, 1);
	struct annotate_report *r2 =
		report_of("leaf_a", moved_heat, ARRAY_SIZE(moved_heat), 0x1000, 1);
	struct annotate_report *other = report_of("leaf_b", leaf_a, ARRAY_SIZE(leaf_a), 0x1000, 1);
	struct annotate_view v;

	annotate_view_init(&v);
	annotate_view_open(&v, "leaf_a", "wl");   /* the short name matches too */
	ck_assert(annotate_view_update(&v, r1));
	ck_assert_uint_eq(sel_addr(&v), 0x100c);
	ck_assert(annotate_view_update(&v, r2));
	ck_assert_uint_eq(sel_addr(&v), 0x1008);  /* not moved: the new hottest */
	annotate_view_key(&v, BKEY_DOWN);
	annotate_view_key(&v, BKEY_DOWN);
	ck_assert_uint_eq(sel_addr(&v), 0x1010);
	ck_assert(annotate_view_update(&v, r1));
	ck_assert_uint_eq(sel_addr(&v), 0x1010);  /* moved: kept */
	ck_assert(!annotate_view_update(&v, other));
	ck_assert_uint_eq(sel_addr(&v), 0x1010);
	ck_assert_uint_eq(v.fn->lines[4].period, 60);
	annotate_view_release(&v);
	annotate_report_free(r1);
	annotate_report_free(r2);
	annotate_report_free(other);
}
END_TEST

START_TEST(test_follow_and_back)
{
	struct annotate_report *r = report_of("leaf_a", leaf_a, ARRAY_SIZE(leaf_a), 0x1000, 1);
	struct annotate_view v;
	unsigned ret;

	annotate_view_init(&v);
	annotate_view_open(&v, "leaf_a", "/bin/wl");
	ck_assert(annotate_view_update(&v, r));
	/* Enter on a plain instruction: a message, nothing else. */
	ck_assert_uint_eq(annotate_view_key(&v, BKEY_ENTER), 0);
	ck_assert_str_ne(v.message, "");
	/* The jump: to its target in the function, Backspace comes back. */
	annotate_view_key(&v, BKEY_DOWN);
	annotate_view_key(&v, BKEY_DOWN);
	ck_assert_uint_eq(sel_addr(&v), 0x1014);
	ck_assert_uint_eq(annotate_view_key(&v, BKEY_ENTER), 0);
	ck_assert_uint_eq(sel_addr(&v), 0x1008);
	ck_assert_uint_eq(annotate_view_key(&v, 127), 0);
	ck_assert_uint_eq(sel_addr(&v), 0x1014);
	/* The call: the browser is asked to open helper, in the same DSO. */
	annotate_view_key(&v, BKEY_HOME);
	annotate_view_key(&v, BKEY_DOWN);
	annotate_view_key(&v, BKEY_DOWN);
	ret = annotate_view_key(&v, BKEY_ENTER);
	ck_assert_uint_ne(ret & ANNOTATE_VIEW_OPEN, 0);
	ck_assert_str_eq(v.want_symbol, "helper");
	ck_assert_str_eq(v.want_dso, "/bin/wl");
	ck_assert_uint_eq(v.want_hint, 0x2000);
	ck_assert_uint_eq(v.nr_back, 1);
	ck_assert_uint_eq(annotate_view_key(&v, BKEY_ESC), ANNOTATE_VIEW_CLOSE);
	ck_assert_uint_eq(annotate_view_key(&v, BKEY_LEFT), ANNOTATE_VIEW_CLOSE);
	annotate_view_release(&v);
	annotate_report_free(r);
}
END_TEST

/* s: a source line above the instructions it produced, where the line or
 * the inlined function changes; the selection stays on its instruction. */
START_TEST(test_source_lines)
{
	struct annotate_report *r = report_of("leaf_a", leaf_a, ARRAY_SIZE(leaf_a), 0x1000, 1);
	static const char *where[] = { "/src/wl.c:21", "/src/wl.c:21", "/src/wl.c:22",
				       "/src/wl.c:25", "/src/wl.c:25", "/src/wl.c:25",
				       "/src/wl.c:24", NULL };
	struct annotate_fn *f = &r->fns[0];
	struct annotate_view v;
	struct strbuf sb;
	double pct;
	bool src;
	size_t i;

	for (i = 0; i < f->nr_lines; i++) {
		f->lines[i].source = where[i];
		f->lines[i].source_text = where[i] ? "v = v * 3;" : NULL;
	}
	f->lines[5].inlined = "mix";   /* same line, but inlined: its own heading */
	strbuf_init(&sb);
	annotate_view_init(&v);
	annotate_view_open(&v, "leaf_a", NULL);
	ck_assert(annotate_view_update(&v, r));
	ck_assert_uint_eq(annotate_view_lines(&v), 8);
	ck_assert_uint_eq(sel_addr(&v), 0x100c);
	annotate_view_key(&v, 's');
	ck_assert_str_eq(v.message, "source lines shown");
	/* 21, 22, 25, 25 inlined, 24 (the last instruction has none). */
	ck_assert_uint_eq(annotate_view_lines(&v), 8 + 5);
	ck_assert_uint_eq(sel_addr(&v), 0x100c);
	annotate_view_line(&v, 0, &sb, &pct, &src);
	ck_assert(src);
	ck_assert_str_eq(sb.buf, "                  wl.c:21  v = v * 3;");
	strbuf_reset(&sb);
	annotate_view_line(&v, 8, &sb, &pct, &src);
	ck_assert(src);
	ck_assert_str_eq(sb.buf, "                  wl.c:25 [inlined: mix]  v = v * 3;");
	strbuf_reset(&sb);
	annotate_view_line(&v, 9, &sb, &pct, &src);
	ck_assert(!src);
	ck_assert_ptr_nonnull(strstr(sb.buf, "add %rdx, %rax"));
	/* TAB still goes by heat, over the source lines. */
	annotate_view_key(&v, '\t');
	ck_assert_uint_eq(sel_addr(&v), 0x1010);
	ck_assert_uint_eq(v.selected, 9);
	/* Enter on a source line: not a jump. */
	annotate_view_key(&v, BKEY_UP);
	ck_assert_uint_eq(annotate_view_key(&v, BKEY_ENTER), 0);
	ck_assert_ptr_nonnull(strstr(v.message, "not a direct jump"));
	annotate_view_key(&v, BKEY_DOWN);
	annotate_view_key(&v, 's');
	ck_assert_uint_eq(annotate_view_lines(&v), 8);
	ck_assert_uint_eq(sel_addr(&v), 0x1010);
	strbuf_release(&sb);
	annotate_view_release(&v);
	annotate_report_free(r);
}
END_TEST

static const struct snapshot_row rows[] = {
	{ .symbol = "leaf_a", .has_sym = true, .dso = "wl", .dso_path = "/bin/wl", .has_dso = true,
	  .period = 100, .samples = 100, .self = 50 },
	{ .symbol = "leaf_b", .has_sym = true, .dso = "wl", .dso_path = "/bin/wl", .has_dso = true,
	  .period = 60, .samples = 60, .self = 30 },
	{ .symbol = "[unknown]", .has_sym = true, .dso = "[unknown]", .has_dso = true,
	  .period = 40, .samples = 40, .self = 20 },
};

static struct snapshot *snap_with(struct annotate_report *r)
{
	struct snapshot *s = xcalloc(1, sizeof(*s));

	sort_spec_parse("dso,sym", &s->sort, NULL);
	s->event = "cpu-clock";
	s->target = "system-wide";
	s->mode = "decay";
	s->rows = xmalloc(sizeof(rows));
	memcpy(s->rows, rows, sizeof(rows));
	s->nr_rows = ARRAY_SIZE(rows);
	s->period = 200;
	s->annotate = r;
	return s;
}

/* The browser: a opens the selected row's function (asking the engine),
 * the next snapshot refreshes it, a call opens the callee, Backspace goes
 * back to the caller, Esc gives the table back with its selection. */
START_TEST(test_browser_a)
{
	struct browser_init init = { .mode = HIST_DECAY };
	struct browser b;
	unsigned ret;

	browser_init(&b, &init);
	browser_set_snapshot(&b, snap_with(NULL));
	browser_set_page(&b, 10);
	browser_key(&b, BKEY_DOWN);
	browser_key(&b, BKEY_DOWN);
	ret = browser_key(&b, 'a');     /* [unknown]: refused */
	ck_assert_uint_eq(ret & BROWSER_ANNOTATE, 0);
	ck_assert_int_eq(b.screen, BROWSER_TABLE);
	ck_assert_ptr_nonnull(strstr(b.message, "function name"));
	browser_key(&b, BKEY_UP);
	browser_key(&b, BKEY_UP);
	ck_assert_str_eq(browser_selected(&b)->symbol, "leaf_a");
	ret = browser_key(&b, 'a');
	ck_assert_uint_ne(ret & BROWSER_ANNOTATE, 0);
	ck_assert_int_eq(b.screen, BROWSER_INSNS);
	ck_assert_str_eq(b.ann.symbol, "leaf_a");
	ck_assert_str_eq(b.ann.dso, "/bin/wl");
	/* The engine had nothing yet; the next snapshot has it. */
	browser_annotate_report(&b, xcalloc(1, sizeof(struct annotate_report)));
	ck_assert_uint_eq(annotate_view_lines(&b.ann), 0);
	browser_set_snapshot(&b, snap_with(report_of("leaf_a", leaf_a, ARRAY_SIZE(leaf_a),
						     0x1000, 1)));
	ck_assert_uint_eq(annotate_view_lines(&b.ann), ARRAY_SIZE(leaf_a));
	ck_assert_uint_eq(sel_addr(&b.ann), 0x100c);
	/* Keys go to the view: j moves its selection, not the table's. */
	browser_key(&b, 'j');
	ck_assert_uint_eq(sel_addr(&b.ann), 0x1010);
	ck_assert_str_eq(browser_selected(&b)->symbol, "leaf_a");
	/* p pauses there as in the table. */
	ck_assert_uint_eq(browser_key(&b, 'p') & BROWSER_RESUMED, 0);
	ck_assert(b.paused);
	ck_assert_uint_ne(browser_key(&b, 'p') & BROWSER_RESUMED, 0);
	ck_assert(!b.paused);
	/* The help from the view starts at the view's keys, and returns. */
	browser_key(&b, 'h');
	ck_assert_int_eq(b.screen, BROWSER_HELP);
	browser_key(&b, 'x');
	ck_assert_int_eq(b.screen, BROWSER_INSNS);
	/* Enter on the call: the engine is asked for helper. */
	browser_key(&b, BKEY_HOME);
	browser_key(&b, 'j');
	browser_key(&b, 'j');
	ret = browser_key(&b, BKEY_ENTER);
	ck_assert_uint_ne(ret & BROWSER_ANNOTATE, 0);
	ck_assert_str_eq(b.ann.symbol, "helper");
	ck_assert_uint_eq(b.ann.hint, 0x2000);
	browser_annotate_report(&b, report_of("helper", leaf_a, 2, 0x2000, 1));
	ck_assert_uint_eq(annotate_view_lines(&b.ann), 2);
	/* Backspace: leaf_a again, on the call. */
	ret = browser_key(&b, BKEY_BACKSPACE);
	ck_assert_uint_ne(ret & BROWSER_ANNOTATE, 0);
	ck_assert_str_eq(b.ann.symbol, "leaf_a");
	browser_annotate_report(&b, report_of("leaf_a", leaf_a, ARRAY_SIZE(leaf_a), 0x1000, 1));
	ck_assert_uint_eq(sel_addr(&b.ann), 0x1004);
	/* P writes the table only, not the functions opened. */
	{
		char *buf = NULL;
		size_t len = 0;
		FILE *f = open_memstream(&buf, &len);

		browser_print(&b, f);
		fclose(f);
		ck_assert_ptr_nonnull(b.snap->annotate);
		ck_assert_ptr_nonnull(strstr(buf, "leaf_a"));
		ck_assert_ptr_null(strstr(buf, "Annotate"));
		free(buf);
	}
	/* Esc: the table, on the same row. */
	browser_key(&b, BKEY_ESC);
	ck_assert_int_eq(b.screen, BROWSER_TABLE);
	ck_assert_str_eq(browser_selected(&b)->symbol, "leaf_a");
	ck_assert_uint_ne(browser_key(&b, 'a') & BROWSER_ANNOTATE, 0);
	ck_assert_uint_eq(b.ann.nr_back, 0);
	ck_assert_uint_ne(browser_key(&b, 'q') & BROWSER_QUIT, 0);
	browser_release(&b);
}
END_TEST

/* The help lists the view's keys after the table's, from annotate-actions.def. */
/* A decoder of two counters: "hits" per sample (kept longest) and "wide"
 * (a wide column, given way first). */
struct fake_stats {
	uint64_t samples, hits;
};

static uint64_t fake_samples(const void *st)
{
	return ((const struct fake_stats *)st)->samples;
}

static double fake_value(const void *st, const void *total, size_t col)
{
	const struct fake_stats *f = st;

	(void)total;
	return col == 0 ? payload_pct(f->hits, f->samples) : (double)f->hits * 1000;
}

static void fake_detail(struct strbuf *sb, const void *st, size_t width)
{
	(void)width;
	strbuf_addf(sb, "  hits %llu of %llu\n", (unsigned long long)((const struct fake_stats *)st)->hits,
		    (unsigned long long)((const struct fake_stats *)st)->samples);
}

static const struct payload_column fake_cols[] = {
	{ "Hits", "hits", PAYLOAD_PERCENT, 0, 9, NULL },
	{ "Wide", "wide", PAYLOAD_MEAN, 40, 1, NULL },
};

static const struct payload_ops fake_ops = {
	.name = "fake", .title = "Fake", .stats_size = sizeof(struct fake_stats),
	.stats_samples = fake_samples, .columns = fake_cols, .nr_columns = 2,
	.column_value = fake_value, .format_detail = fake_detail,
};

/* Payload columns: each instruction's cells, those with the lowest keep
 * rank gone on a narrow screen, the pane of the selected instruction. */
START_TEST(test_payload_columns)
{
	struct annotate_report *r = report_of("leaf_a", leaf_a, ARRAY_SIZE(leaf_a), 0x1000, 1);
	struct fake_stats *st;
	struct annotate_view v;
	struct strbuf sb;
	double pct;
	bool src;
	size_t i;

	r->payload = &fake_ops;
	r->fns[0].payload = st = xcalloc(1, sizeof(*st));
	st->samples = 100;
	st->hits = 50;
	for (i = 0; i < r->fns[0].nr_lines; i++) {
		if (!r->fns[0].lines[i].samples)
			continue;
		r->fns[0].lines[i].payload = st = xcalloc(1, sizeof(*st));
		st->samples = r->fns[0].lines[i].samples;
		st->hits = st->samples / 5;
	}
	annotate_view_init(&v);
	annotate_view_open(&v, "leaf_a", NULL);
	ck_assert(annotate_view_update(&v, r));
	annotate_report_free(r);         /* the view keeps its own copy */
	strbuf_init(&sb);
	annotate_view_set_width(&v, 200);
	annotate_view_columns(&v, &sb);
	ck_assert_msg(strstr(sb.buf, " Hits ") && strstr(sb.buf, " Wide "), "%s", sb.buf);
	strbuf_reset(&sb);
	annotate_view_line(&v, v.selected, &sb, &pct, &src);  /* 0x100c: 60 samples, 12 hits */
	ck_assert_msg(strstr(sb.buf, "  20.0% ") && strstr(sb.buf, " 12000.0  imul"), "%s", sb.buf);
	/* 80 columns: Wide goes, Hits stays. */
	annotate_view_set_width(&v, 80);
	strbuf_reset(&sb);
	annotate_view_columns(&v, &sb);
	ck_assert_msg(strstr(sb.buf, " Hits ") && !strstr(sb.buf, "Wide"), "%s", sb.buf);
	strbuf_reset(&sb);
	annotate_view_line(&v, v.selected, &sb, &pct, &src);
	ck_assert_msg(strstr(sb.buf, "  20.0%  imul") && sb.len <= 80, "%s", sb.buf);
	/* The pane: the selected instruction's breakdown. */
	strbuf_reset(&sb);
	ck_assert_int_eq(annotate_view_detail(&v, &sb, 78), 2);
	ck_assert_msg(strstr(sb.buf, "Fake: leaf_a+0xc  100c:  imul") && strstr(sb.buf, "hits 12 of 60"),
		      "%s", sb.buf);
	annotate_view_key(&v, BKEY_HOME);
	strbuf_reset(&sb);
	annotate_view_detail(&v, &sb, 78);
	ck_assert_msg(strstr(sb.buf, "no Fake samples at this instruction"), "%s", sb.buf);
	ck_assert_uint_eq(annotate_view_key(&v, 'I'), ANNOTATE_VIEW_DETAIL);
	strbuf_release(&sb);
	annotate_view_release(&v);
}
END_TEST

START_TEST(test_help)
{
	char buf[128];
	size_t i;
	bool tab = false, title = false;

	ck_assert_uint_eq(browser_help_lines(),
			  BROWSER_ACT__MAX - 1 + 1 + annotate_view_help_lines());
	ck_assert_uint_eq(annotate_view_help_lines(), ANNOTATE_VIEW_ACT__MAX - 1);
	for (i = 0; i < browser_help_lines(); i++) {
		browser_help_line(i, buf, sizeof(buf));
		if (strncmp(buf, "Tab ", 4) == 0)
			tab = true;
		if (strstr(buf, "per-instruction view (a)"))
			title = true;
	}
	ck_assert(tab && title);
	ck_assert_int_eq(annotate_view_action_of('\t'), ANNOTATE_VIEW_ACT_NEXT_HOT);
	ck_assert_int_eq(annotate_view_action_of(BKEY_BTAB), ANNOTATE_VIEW_ACT_PREV_HOT);
	ck_assert_int_eq(annotate_view_action_of('s'), ANNOTATE_VIEW_ACT_SOURCE);
	ck_assert_int_eq(browser_action_of('a'), BROWSER_ACT_ANNOTATE);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("annotate_view");
	TCase *tc = tcase_create("view");

	tcase_add_test(tc, test_open_hot_and_tab);
	tcase_add_test(tc, test_toggles);
	tcase_add_test(tc, test_refresh_keeps_selection);
	tcase_add_test(tc, test_follow_and_back);
	tcase_add_test(tc, test_source_lines);
	tcase_add_test(tc, test_browser_a);
	tcase_add_test(tc, test_help);
	tcase_add_test(tc, test_payload_columns);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return testutil_run(suite()) != 0;
}
