/* The per-instruction view's model: a copy of one function's annotate
 * lines, the selection kept by address across refreshes, the hot lines in
 * heat order for TAB, and a stack of places for Backspace. */
#include "config.h"

#include "annotate-view.h"

#include <stdlib.h>
#include <string.h>

#include "annotate-out.h"
#include "browser.h"
#include "payload.h"
#include "textfmt.h"
#include "util.h"

static const struct browser_binding annotate_view_bindings[] = {
#define ACTION(name, help, ...) { ANNOTATE_VIEW_ACT_##name, help, { __VA_ARGS__ } },
#include "annotate-actions.def"
#undef ACTION
};

enum annotate_view_action annotate_view_action_of(int key)
{
	return (enum annotate_view_action)browser_binding_of(
		annotate_view_bindings, ARRAY_SIZE(annotate_view_bindings), key);
}

size_t annotate_view_help_lines(void)
{
	return ARRAY_SIZE(annotate_view_bindings);
}

void annotate_view_help_line(size_t i, char *buf, size_t size)
{
	if (i < ARRAY_SIZE(annotate_view_bindings))
		browser_binding_help(&annotate_view_bindings[i], buf, size);
	else
		snprintf(buf, size, "%s", "");
}

void annotate_view_init(struct annotate_view *v)
{
	memset(v, 0, sizeof(*v));
	v->page = 1;
}

static void annotate_view_drop(struct annotate_view *v)
{
	annotate_report_free(v->own);
	v->own = NULL;
	v->fn = NULL;
	free(v->hot);
	v->hot = NULL;
	v->nr_hot = 0;
	v->nr_rows = 0;
	free(v->pw);
	v->pw = NULL;
}

static void annotate_view_clear_want(struct annotate_view *v)
{
	free(v->want_symbol);
	free(v->want_dso);
	v->want_symbol = v->want_dso = NULL;
	v->want_addr = v->want_hint = 0;
}

void annotate_view_release(struct annotate_view *v)
{
	size_t i;

	annotate_view_drop(v);
	annotate_view_clear_want(v);
	for (i = 0; i < v->nr_back; i++) {
		free(v->back[i].symbol);
		free(v->back[i].dso);
	}
	free(v->back);
	free(v->rows);
	free(v->symbol);
	free(v->dso);
	memset(v, 0, sizeof(*v));
}

static char *annotate_view_dup(const char *s)
{
	return s ? xstrdup(s) : NULL;
}

void annotate_view_open(struct annotate_view *v, const char *symbol, const char *dso)
{
	annotate_view_drop(v);
	free(v->symbol);
	free(v->dso);
	v->symbol = xstrdup(symbol);
	v->dso = annotate_view_dup(dso);
	v->hint = 0;
	v->selected = v->top = 0;
	v->moved = false;
	v->message[0] = '\0';
}

/* Whether f is the function shown: its name, and its DSO by path or
 * short name (what the view was opened with). */
static bool annotate_view_is(const struct annotate_view *v, const struct annotate_fn *f)
{
	if (!v->symbol || strcmp(f->symbol, v->symbol) != 0)
		return false;
	return !v->dso || strcmp(v->dso, f->dso_path) == 0 || strcmp(v->dso, f->dso) == 0;
}

static void *annotate_view_dup_stats(const void *stats, size_t size)
{
	return stats ? memcpy(xmalloc(size), stats, size) : NULL;
}

/* A report of its own holding a copy of f (the snapshot's goes with it),
 * payload stats (ops's) and all. */
static struct annotate_report *annotate_view_copy(const struct annotate_fn *f,
						  const struct payload_ops *ops)
{
	struct annotate_report *r = xcalloc(1, sizeof(*r));
	struct annotate_fn *c;
	size_t i;

	r->fns = xcalloc(1, sizeof(*r->fns));
	r->nr_fns = 1;
	c = &r->fns[0];
	*c = *f;
	c->spec = annotate_view_dup(f->spec);
	c->symbol = annotate_view_dup(f->symbol);
	c->dso = annotate_view_dup(f->dso);
	c->dso_path = annotate_view_dup(f->dso_path);
	c->note = annotate_view_dup(f->note);
	c->lines = xmalloc((f->nr_lines ? f->nr_lines : 1) * sizeof(*c->lines));
	memcpy(c->lines, f->lines, f->nr_lines * sizeof(*c->lines));
	r->payload = f->payload ? ops : NULL;
	c->payload = r->payload ? annotate_view_dup_stats(f->payload, ops->stats_size) : NULL;
	for (i = 0; i < c->nr_lines; i++)
		c->lines[i].payload = r->payload ? annotate_view_dup_stats(f->lines[i].payload,
									   ops->stats_size) :
						   NULL;
	return r;
}

/* Hottest first, then by address: TAB's order, as perf's. */
static int annotate_view_hot_cmp(const void *pa, const void *pb, void *ctx)
{
	const struct annotate_fn *f = ctx;
	const struct annotate_line *a = &f->lines[*(const size_t *)pa];
	const struct annotate_line *b = &f->lines[*(const size_t *)pb];

	if (a->period != b->period)
		return a->period > b->period ? -1 : 1;
	return CMP(a->addr, b->addr);
}

static void annotate_view_scroll(struct annotate_view *v)
{
	size_t n = annotate_view_lines(v), page = v->page ? v->page : 1;

	if (v->selected >= n)
		v->selected = n ? n - 1 : 0;
	if (v->selected < v->top)
		v->top = v->selected;
	if (v->selected >= v->top + page)
		v->top = v->selected - page + 1;
	if (n > page && v->top > n - page)
		v->top = n - page;
	if (n <= page)
		v->top = 0;
	if (v->selected < v->nr_rows)
		v->sel_addr = v->fn->lines[v->rows[v->selected].insn].addr;
}

/* Select line i with some lines above it: a jump's target or a hot line
 * mid-screen, as perf centres them. */
static void annotate_view_select(struct annotate_view *v, size_t i)
{
	size_t page = v->page ? v->page : 1;

	v->selected = i;
	v->top = i > page / 3 ? i - page / 3 : 0;
	annotate_view_scroll(v);
}

/* The row of addr's instruction: the one whose bytes hold it, else the
 * last before. */
static size_t annotate_view_line_of(const struct annotate_view *v, uint64_t addr)
{
	size_t i, best = 0;

	for (i = 0; i < v->nr_rows; i++) {
		if (v->rows[i].source)
			continue;
		if (v->fn->lines[v->rows[i].insn].addr > addr)
			break;
		best = i;
	}
	return best;
}

/* The row of instruction insn. */
static size_t annotate_view_row_of(const struct annotate_view *v, size_t insn)
{
	size_t i;

	for (i = 0; i < v->nr_rows; i++)
		if (!v->rows[i].source && v->rows[i].insn == insn)
			return i;
	return 0;
}

/* The rows: each instruction, and with s, its source line above it where
 * the line (or the inlined function) changes. */
static void annotate_view_rows(struct annotate_view *v)
{
	size_t i;

	v->nr_rows = 0;
	for (i = 0; v->fn && i < v->fn->nr_lines; i++) {
		v->rows = xgrow(v->rows, &v->cap_rows, v->nr_rows + 2, sizeof(*v->rows));
		if (v->source && annotate_out_source_starts(v->fn, i))
			v->rows[v->nr_rows++] = (struct annotate_view_row){ i, true };
		v->rows[v->nr_rows++] = (struct annotate_view_row){ i, false };
	}
}

/* The instruction's room (its text and a target) before payload columns
 * give way. */
#define ANNOTATE_VIEW_TEXT_MIN 36
/* Percent, address and their spaces. */
#define ANNOTATE_VIEW_PREFIX 21

/* Which payload columns fit v->width: all, else those with the highest
 * keep rank, in the decoder's order. */
static void annotate_view_fit(struct annotate_view *v)
{
	const struct payload_ops *ops = v->own ? v->own->payload : NULL;
	struct strbuf cell;
	size_t c, used = ANNOTATE_VIEW_PREFIX + ANNOTATE_VIEW_TEXT_MIN;

	free(v->pw);
	v->pw = NULL;
	if (!ops || !v->fn->nr_lines)
		return;
	v->pw = xcalloc(ops->nr_columns, sizeof(*v->pw));
	strbuf_init(&cell);
	for (c = 0; c < ops->nr_columns; c++) {
		v->pw[c] = annotate_out_pwidth(ops, v->fn, c, &cell);
		used += (size_t)v->pw[c] + 1;
	}
	strbuf_release(&cell);
	while (v->width && used > v->width) {
		size_t drop = ops->nr_columns;

		for (c = 0; c < ops->nr_columns; c++)
			if (v->pw[c] >= 0 && (drop == ops->nr_columns ||
					      ops->columns[c].keep_rank < ops->columns[drop].keep_rank))
				drop = c;
		if (drop == ops->nr_columns)
			break;
		used -= (size_t)v->pw[drop] + 1;
		v->pw[drop] = -1;
	}
}

void annotate_view_set_width(struct annotate_view *v, unsigned cols)
{
	if (v->width == cols)
		return;
	v->width = cols;
	annotate_view_fit(v);
}

bool annotate_view_update(struct annotate_view *v, const struct annotate_report *r)
{
	const struct annotate_fn *f = NULL;
	size_t i;

	for (i = 0; r && i < r->nr_fns; i++)
		if (annotate_view_is(v, &r->fns[i])) {
			f = &r->fns[i];
			break;
		}
	if (!f)
		return false;
	annotate_view_drop(v);
	v->own = annotate_view_copy(f, r->payload);
	v->fn = &v->own->fns[0];
	annotate_view_fit(v);
	v->hot = xmalloc((v->fn->nr_lines ? v->fn->nr_lines : 1) * sizeof(*v->hot));
	for (i = 0; i < v->fn->nr_lines; i++)
		if (v->fn->lines[i].period || v->fn->lines[i].samples)
			v->hot[v->nr_hot++] = i;
	qsort_r(v->hot, v->nr_hot, sizeof(*v->hot), annotate_view_hot_cmp, (void *)v->fn);
	annotate_view_rows(v);
	if (v->moved)
		v->selected = annotate_view_line_of(v, v->sel_addr);
	else if (v->nr_hot)
		annotate_view_select(v, annotate_view_row_of(v, v->hot[0]));
	annotate_view_scroll(v);
	return true;
}

void annotate_view_set_page(struct annotate_view *v, size_t lines)
{
	v->page = lines ? lines : 1;
	annotate_view_scroll(v);
}

size_t annotate_view_lines(const struct annotate_view *v)
{
	return v->nr_rows;
}

static double annotate_view_percent(const struct annotate_fn *f, uint64_t period)
{
	return f->period ? 100.0 * (double)period / (double)f->period : 0.0;
}

void annotate_view_line(const struct annotate_view *v, size_t i, struct strbuf *sb, double *pct,
			bool *source)
{
	const struct annotate_line *l;

	*pct = 0;
	*source = false;
	if (i >= v->nr_rows)
		return;
	l = &v->fn->lines[v->rows[i].insn];
	if (v->rows[i].source) {
		*source = true;
		strbuf_addf(sb, "%18s", "");
		annotate_out_source(sb, l);
		return;
	}
	*pct = annotate_view_percent(v->fn, l->period);
	if (!l->period && !l->samples)
		strbuf_addstr(sb, "        ");
	else if (v->counts)
		strbuf_addf(sb, "%7llu ", (unsigned long long)l->samples);
	else {
		struct strbuf p;

		strbuf_init(&p);
		textfmt_fixed(&p, *pct, 2);
		strbuf_addf(sb, "%7s ", p.buf);
		strbuf_release(&p);
	}
	if (v->offsets)
		strbuf_addf(sb, " %6llx:  ", (unsigned long long)(l->addr - v->fn->start));
	else
		strbuf_addf(sb, " %8llx:  ", (unsigned long long)l->addr);
	if (v->pw) {
		annotate_out_pcells(sb, v->own->payload, l->payload, v->fn->payload, false, v->pw);
		strbuf_addstr(sb, "  ");
	}
	strbuf_addstr(sb, l->text);
	if (!l->target)
		return;
	strbuf_addstr(sb, "  <");
	annotate_out_target(sb, l);
	strbuf_addch(sb, '>');
}

void annotate_view_title(const struct annotate_view *v, struct strbuf *sb)
{
	const struct annotate_fn *f = v->fn;

	if (!f) {
		strbuf_addf(sb, "Annotate %s: counting its samples from now on; they show at the "
				"next refresh", v->symbol ? v->symbol : "?");
		return;
	}
	strbuf_addf(sb, "Annotate %s  [%s]  %llu samples  %zu instructions", f->symbol, f->dso,
		    (unsigned long long)f->samples, f->nr_lines);
	if (f->note)
		strbuf_addf(sb, "  (%s)", f->note);
}

void annotate_view_columns(const struct annotate_view *v, struct strbuf *sb)
{
	strbuf_addf(sb, "%s %s", v->counts ? "Samples" : "Percent",
		    v->offsets ? "  Offset:" : "  Address:");
	if (v->pw) {
		/* The titles over the cells: the address field is " ADDR:  ". */
		const struct annotate_line *last = &v->fn->lines[v->fn->nr_lines - 1];
		uint64_t max = v->offsets ? last->addr - v->fn->start : last->addr;
		int w = v->offsets ? 6 : 8, k;

		for (k = w; k < 16 && (max >> (4 * k)); k++)
			w++;
		strbuf_addf(sb, "%*s", w + 4 - (v->offsets ? 9 : 10), "");
		annotate_out_pcells(sb, v->own->payload, NULL, v->fn->payload, true, v->pw);
		strbuf_addstr(sb, "  Instruction");
		return;
	}
	strbuf_addstr(sb, "  Instruction");
}

int annotate_view_detail(const struct annotate_view *v, struct strbuf *sb, size_t width)
{
	const struct payload_ops *ops = v->own ? v->own->payload : NULL;
	const struct annotate_line *l;
	int n = 0;
	size_t i;

	if (!ops || v->selected >= v->nr_rows)
		return 0;
	l = &v->fn->lines[v->rows[v->selected].insn];
	strbuf_addf(sb, "%s: %s+0x%llx  %llx:  %s\n", ops->title, v->fn->symbol,
		    (unsigned long long)(l->addr - v->fn->start), (unsigned long long)l->addr,
		    l->text);
	if (l->payload && ops->stats_samples(l->payload) && ops->format_detail)
		ops->format_detail(sb, l->payload, width);
	else
		strbuf_addf(sb, "  no %s samples at this instruction\n", ops->title);
	for (i = 0; i < sb->len; i++)
		n += sb->buf[i] == '\n';
	return n;
}

/* ---- keys ---- */

static void annotate_view_move(struct annotate_view *v, long delta)
{
	size_t n = annotate_view_lines(v);

	if (!n)
		return;
	if (delta < 0 && (size_t)-delta > v->selected)
		v->selected = 0;
	else if (delta > 0 && v->selected + (size_t)delta >= n)
		v->selected = n - 1;
	else
		v->selected = (size_t)((long)v->selected + delta);
	v->moved = true;
	annotate_view_scroll(v);
}

static void annotate_view_next_hot(struct annotate_view *v, int dir)
{
	size_t i, at;

	if (!v->nr_hot) {
		snprintf(v->message, sizeof(v->message), "no samples in this function yet");
		return;
	}
	/* From the selected line's place in the heat order when it is hot,
	 * else from the hottest. */
	for (i = 0; i < v->nr_hot; i++)
		if (!v->rows[v->selected].source && v->hot[i] == v->rows[v->selected].insn)
			break;
	at = i < v->nr_hot ? (i + (dir > 0 ? 1 : v->nr_hot - 1)) % v->nr_hot : 0;
	v->moved = true;
	annotate_view_select(v, annotate_view_row_of(v, v->hot[at]));
}

static void annotate_view_push(struct annotate_view *v)
{
	struct annotate_view_place *p;

	v->back = xgrow(v->back, &v->cap_back, v->nr_back + 1, sizeof(*v->back));
	p = &v->back[v->nr_back++];
	p->symbol = xstrdup(v->symbol);
	p->dso = annotate_view_dup(v->dso);
	p->addr = v->sel_addr;
}

/* Enter: a jump inside the function moves there; a call (or a jump out of
 * the function) asks for its function's view. */
static unsigned annotate_view_follow(struct annotate_view *v)
{
	const struct annotate_line *l;

	if (v->selected >= v->nr_rows)
		return 0;
	l = &v->fn->lines[v->rows[v->selected].insn];
	if (!l->target || v->rows[v->selected].source) {
		snprintf(v->message, sizeof(v->message),
			 "not a direct jump or call: Enter follows those");
		return 0;
	}
	if (!l->call && l->target >= v->fn->start && l->target < v->fn->start + v->fn->size) {
		annotate_view_push(v);
		v->moved = true;
		annotate_view_select(v, annotate_view_line_of(v, l->target));
		return 0;
	}
	if (!l->target_sym[0]) {
		snprintf(v->message, sizeof(v->message), "no function known at 0x%llx",
			 (unsigned long long)l->target);
		return 0;
	}
	annotate_view_push(v);
	annotate_view_clear_want(v);
	v->want_symbol = xstrdup(l->target_sym);
	v->want_dso = annotate_view_dup(v->fn->dso_path);
	v->want_hint = l->target;
	return ANNOTATE_VIEW_OPEN;
}

static unsigned annotate_view_back(struct annotate_view *v)
{
	struct annotate_view_place *p;

	if (!v->nr_back) {
		snprintf(v->message, sizeof(v->message), "nothing to go back to (Esc: the table)");
		return 0;
	}
	p = &v->back[--v->nr_back];
	if (strcmp(p->symbol, v->symbol) != 0 || (p->dso && v->dso && strcmp(p->dso, v->dso))) {
		annotate_view_clear_want(v);
		v->want_symbol = p->symbol;
		v->want_dso = p->dso;
		v->want_addr = p->addr;
		return ANNOTATE_VIEW_OPEN;
	}
	v->moved = true;
	annotate_view_select(v, annotate_view_line_of(v, p->addr));
	free(p->symbol);
	free(p->dso);
	return 0;
}

unsigned annotate_view_key(struct annotate_view *v, int key)
{
	size_t page = v->page ? v->page : 1;

	v->message[0] = '\0';
	/* The terminal's Backspace may come as DEL or Ctrl-H. */
	if (key == 127 || key == BKEY_BACKSPACE_CH)
		key = BKEY_BACKSPACE;
	switch (annotate_view_action_of(key)) {
	case ANNOTATE_VIEW_ACT_UP:
		annotate_view_move(v, -1);
		break;
	case ANNOTATE_VIEW_ACT_DOWN:
		annotate_view_move(v, 1);
		break;
	case ANNOTATE_VIEW_ACT_PGUP:
		v->top = v->top > page ? v->top - page : 0;
		annotate_view_move(v, -(long)page);
		break;
	case ANNOTATE_VIEW_ACT_PGDN:
		v->top += page;
		annotate_view_move(v, (long)page);
		break;
	case ANNOTATE_VIEW_ACT_HOME:
		annotate_view_move(v, -(long)annotate_view_lines(v));
		break;
	case ANNOTATE_VIEW_ACT_END:
		annotate_view_move(v, (long)annotate_view_lines(v));
		break;
	case ANNOTATE_VIEW_ACT_NEXT_HOT:
		annotate_view_next_hot(v, 1);
		break;
	case ANNOTATE_VIEW_ACT_PREV_HOT:
		annotate_view_next_hot(v, -1);
		break;
	case ANNOTATE_VIEW_ACT_COUNTS:
		v->counts = !v->counts;
		break;
	case ANNOTATE_VIEW_ACT_OFFSETS:
		v->offsets = !v->offsets;
		break;
	case ANNOTATE_VIEW_ACT_SOURCE: {
		bool has = false;
		size_t i;

		v->source = !v->source;
		for (i = 0; v->fn && i < v->fn->nr_lines && !has; i++)
			has = v->fn->lines[i].source != NULL;
		snprintf(v->message, sizeof(v->message), "source lines %s%s",
			 v->source ? "shown" : "hidden",
			 v->source && v->fn && !has ? " (none: no DWARF line table for it)" : "");
		/* The same instruction stays selected. */
		annotate_view_rows(v);
		v->selected = annotate_view_line_of(v, v->sel_addr);
		annotate_view_scroll(v);
		break;
	}
	case ANNOTATE_VIEW_ACT_FOLLOW:
		return annotate_view_follow(v);
	case ANNOTATE_VIEW_ACT_BACK:
		return annotate_view_back(v);
	case ANNOTATE_VIEW_ACT_DETAIL:
		return ANNOTATE_VIEW_DETAIL;
	case ANNOTATE_VIEW_ACT_PAUSE:
		return ANNOTATE_VIEW_PAUSE;
	case ANNOTATE_VIEW_ACT_CLOSE:
		return ANNOTATE_VIEW_CLOSE;
	case ANNOTATE_VIEW_ACT_HELP:
		return ANNOTATE_VIEW_HELP;
	case ANNOTATE_VIEW_ACT_QUIT:
		return ANNOTATE_VIEW_QUIT;
	case ANNOTATE_VIEW_ACT_NONE:
	case ANNOTATE_VIEW_ACT__MAX:
		break;
	}
	return 0;
}
