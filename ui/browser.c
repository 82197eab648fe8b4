/* The browser's model: filters, zoom, sort and selection over the rows of
 * a snapshot, and the key map from actions.def (pure: no curses).  Over
 * 900 lines: the table and its call-tree lines are one list of visible
 * lines that the selection, the keys and the saved view all walk; apart,
 * each would need the other's internals.  The per-instruction view is
 * annotate-view.c's; here only its hook (a, its keys, its screen). */
#include "config.h"

#include "browser.h"

#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

#include "baseline.h"
#include "errmsg.h"
#include "output.h"
#include "util.h"

static const struct browser_binding browser_bindings[] = {
#define ACTION(name, help, ...) { BROWSER_ACT_##name, help, { __VA_ARGS__ } },
#include "actions.def"
#undef ACTION
};

int browser_binding_of(const struct browser_binding *tab, size_t n, int key)
{
	size_t i, k;

	for (i = 0; i < n; i++)
		for (k = 0; k < ARRAY_SIZE(tab[i].keys); k++)
			if (tab[i].keys[k] && tab[i].keys[k] == key)
				return tab[i].action;
	return 0;
}

void browser_binding_help(const struct browser_binding *bd, char *buf, size_t size)
{
	char keys[64] = "", name[16];
	size_t k;

	for (k = 0; k < ARRAY_SIZE(bd->keys) && bd->keys[k]; k++) {
		size_t len = strlen(keys);

		snprintf(keys + len, sizeof(keys) - len, "%s%s", k ? " " : "",
			 browser_key_name(bd->keys[k], name, sizeof(name)));
	}
	snprintf(buf, size, "%-18s %s", keys, bd->help);
}

enum browser_action browser_action_of(int key)
{
	return (enum browser_action)browser_binding_of(browser_bindings,
						       ARRAY_SIZE(browser_bindings), key);
}

const char *browser_key_name(int key, char *buf, size_t size)
{
	static const struct {
		int key;
		const char *name;
	} names[] = {
		{ BKEY_CTRL_C, "Ctrl-C" }, { BKEY_ESC, "Esc" },	  { BKEY_UP, "Up" },
		{ BKEY_DOWN, "Down" },	   { BKEY_LEFT, "Left" }, { BKEY_RIGHT, "Right" },
		{ BKEY_PGUP, "PgUp" },	   { BKEY_PGDN, "PgDn" }, { BKEY_HOME, "Home" },
		{ BKEY_END, "End" },	   { BKEY_ENTER, "Enter" }, { BKEY_F1, "F1" },
		{ ' ', "Space" },	   { BKEY_BACKSPACE, "Backspace" },
		{ '\t', "Tab" },	   { BKEY_BTAB, "Shift-Tab" },
	};
	size_t i;

	for (i = 0; i < ARRAY_SIZE(names); i++)
		if (names[i].key == key) {
			snprintf(buf, size, "%s", names[i].name);
			return buf;
		}
	if (key > 0 && key < 32)
		snprintf(buf, size, "Ctrl-%c", '@' + key);
	else if (key > 32 && key < 127)
		snprintf(buf, size, "%c", key);
	else
		snprintf(buf, size, "#%d", key);
	return buf;
}

/* The table's keys, the view's title, the view's keys. */
#define BROWSER_HELP_INSNS ARRAY_SIZE(browser_bindings)

size_t browser_help_lines(void)
{
	return BROWSER_HELP_INSNS + 1 + annotate_view_help_lines();
}

void browser_help_line(size_t i, char *buf, size_t size)
{
	if (i == BROWSER_HELP_INSNS) {
		snprintf(buf, size, "%s", "--- In the per-instruction view (a): ---");
		return;
	}
	if (i > BROWSER_HELP_INSNS) {
		annotate_view_help_line(i - BROWSER_HELP_INSNS - 1, buf, size);
		return;
	}
	browser_binding_help(&browser_bindings[i], buf, size);
}

void browser_message(struct browser *b, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(b->message, sizeof(b->message), fmt, ap);
	va_end(ap);
}

/* ---- identity of a row ---- */

static char *browser_dup(const char *s)
{
	return s ? xstrdup(s) : NULL;
}

static void browser_key_release(struct browser_key *k)
{
	free(k->comm);
	free(k->dso);
	free(k->symbol);
	free(k->srcline);
	memset(k, 0, sizeof(*k));
}

static void browser_key_set(struct browser_key *k, const struct snapshot_row *r)
{
	browser_key_release(k);
	k->comm = browser_dup(r->comm);
	k->dso = browser_dup(r->dso);
	k->symbol = browser_dup(r->symbol);
	k->srcline = browser_dup(r->srcline);
	k->inlined = r->inlined;
	k->has_pid = r->has_pid;
	k->pid = r->pid;
	k->has_tid = r->has_tid;
	k->tid = r->tid;
	k->has_cpu = r->has_cpu;
	k->cpu = r->cpu;
	k->kernel = r->kernel;
}

static bool browser_streq(const char *a, const char *b)
{
	if (!a || !b)
		return a == b;
	return strcmp(a, b) == 0;
}

static bool browser_key_match(const struct browser_key *k, const struct snapshot_row *r)
{
	return k->kernel == r->kernel && k->has_pid == r->has_pid &&
	       (!k->has_pid || k->pid == r->pid) && k->has_tid == r->has_tid &&
	       (!k->has_tid || k->tid == r->tid) && k->has_cpu == r->has_cpu &&
	       (!k->has_cpu || k->cpu == r->cpu) && browser_streq(k->symbol, r->symbol) &&
	       k->inlined == r->inlined && browser_streq(k->srcline, r->srcline) &&
	       browser_streq(k->dso, r->dso) && browser_streq(k->comm, r->comm);
}

/* ---- setup ---- */

void browser_init(struct browser *b, const struct browser_init *init)
{
	memset(b, 0, sizeof(*b));
	b->hide_kernel = init->view.hide_kernel;
	b->hide_user = init->view.hide_user;
	b->percent_limit = init->view.percent_limit;
	b->max_rows = init->view.max_rows;
	b->mode = init->mode;
	b->sort_col = COLUMN_SELF;
	b->detail = true;
	b->print_dir = init->print_dir;
	b->baseline = init->baseline;
	b->page = 1;
	strbuf_init(&b->paths);
	annotate_view_init(&b->ann);
}

static void browser_drop_snapshot(struct browser *b)
{
	if (b->snap) {
		snapshot_release(b->snap);
		free(b->snap);
		b->snap = NULL;
	}
}

static void browser_clear_toggled(struct browser *b)
{
	size_t i;

	for (i = 0; i < b->nr_toggled; i++)
		free(b->toggled[i]);
	b->nr_toggled = 0;
}

void browser_release(struct browser *b)
{
	browser_drop_snapshot(b);
	browser_clear_toggled(b);
	free(b->toggled);
	free(b->sel_path);
	strbuf_release(&b->paths);
	free(b->lines);
	free(b->zoom_comm);
	free(b->zoom_dso);
	browser_key_release(&b->sel);
	annotate_view_release(&b->ann);
	baseline_free(b->baseline);
	memset(b, 0, sizeof(*b));
}

/* The columns of the column table; the sort column perf's (Children with
 * children), or --order's. */
static void browser_set_columns(struct browser *b, const struct snapshot *snap)
{
	enum column_id order = column_of_order(snap);

	b->nr_cols = column_list(snap, false, b->cols);
	if (snap->children)
		b->sort_col = COLUMN_CHILDREN;
	b->payload = snap->payload_rows;
	if (snap->payload_rows && order != COLUMN__MAX)
		b->sort_col = order;
}

/* ---- the table ---- */

static bool browser_passes(const struct browser *b, const struct snapshot_row *r)
{
	if ((b->hide_kernel && r->kernel) || (b->hide_user && !r->kernel))
		return false;
	if (b->zoom_comm && !browser_streq(b->zoom_comm, r->comm))
		return false;
	if (b->zoom_dso && !browser_streq(b->zoom_dso, r->dso))
		return false;
	if (b->filter[0] && (!r->symbol || !strstr(r->symbol, b->filter)))
		return false;
	return true;
}

double browser_percent(const struct browser *b, uint64_t period)
{
	uint64_t total = b->relative ? b->shown_period : b->snap ? b->snap->period : 0;

	return total ? 100.0 * (double)period / (double)total : 0.0;
}

/* The chosen column first (numbers descending, names ascending), then
 * every field, so equal rows keep their order between refreshes. */
static int browser_line_cmp(const void *pa, const void *pb, void *ctx)
{
	static const enum column_id ties[] = { COLUMN_SELF, COLUMN_SAMPLES, COLUMN_BASELINE,
					       COLUMN_SYM,
					       COLUMN_SRCLINE, COLUMN_DSO, COLUMN_DADDR_SYM,
					       COLUMN_DADDR_DSO, COLUMN_COMM,
					       COLUMN_PID, COLUMN_TID, COLUMN_CPU };
	const struct browser *b = ctx;
	const struct snapshot_row *x = ((const struct browser_line *)pa)->row;
	const struct snapshot_row *y = ((const struct browser_line *)pb)->row;
	int c = column_cmp(b->snap, b->sort_col, x, y);
	size_t i;

	for (i = 0; !c && i < ARRAY_SIZE(ties); i++)
		c = column_cmp(b->snap, ties[i], x, y);
	return c ? c : CMP(x->kernel, y->kernel);
}

/* Keep the selection on screen and the screen within the lines. */
static void browser_scroll(struct browser *b)
{
	size_t page = b->page ? b->page : 1;

	if (b->selected >= b->nr_lines)
		b->selected = b->nr_lines ? b->nr_lines - 1 : 0;
	if (b->selected < b->top)
		b->top = b->selected;
	if (b->selected >= b->top + page)
		b->top = b->selected - page + 1;
	if (b->nr_lines > page && b->top > b->nr_lines - page)
		b->top = b->nr_lines - page;
	if (b->nr_lines <= page)
		b->top = 0;
}

/* Remember which entry is selected, to find it after the next rebuild. */
static void browser_remember(struct browser *b)
{
	if (b->selected < b->nr_lines) {
		const struct browser_line *l = &b->lines[b->selected];

		browser_key_set(&b->sel, l->row);
		free(b->sel_path);
		b->sel_path = l->node ? xstrdup(b->paths.buf + l->path) : NULL;
		b->has_sel = true;
	}
}

/* ---- call trees ---- */

/* An id for a line, stable across snapshots: the tree direction, the
 * row's identity and the node's path (symbol and dso of each level). */
static void browser_line_id(const struct browser *b, const struct browser_line *l,
			    struct strbuf *sb)
{
	const struct snapshot_row *r = l->row;

	strbuf_reset(sb);
	strbuf_addf(sb, "%c\x1f%s\x1f%d:%u\x1f%d:%u\x1f%d:%u\x1f%s\x1f%s\x1f%d",
		    b->callees ? '>' : '<', r->comm ? r->comm : "", r->has_pid, r->pid,
		    r->has_tid, r->tid, r->has_cpu, r->cpu, r->dso ? r->dso : "",
		    r->symbol ? r->symbol : "", r->kernel);
	if (r->inlined || r->srcline)
		strbuf_addf(sb, "\x1f%d\x1f%s", r->inlined, r->srcline ? r->srcline : "");
	if (l->node)
		strbuf_addstr(sb, b->paths.buf + l->path);
}

static ssize_t browser_find_toggled(const struct browser *b, const char *id)
{
	size_t i;

	for (i = 0; i < b->nr_toggled; i++)
		if (strcmp(b->toggled[i], id) == 0)
			return (ssize_t)i;
	return -1;
}

static bool browser_is_expanded(const struct browser *b, const struct browser_line *l,
				struct strbuf *id)
{
	browser_line_id(b, l, id);
	return b->expand_all != (browser_find_toggled(b, id->buf) >= 0);
}

static void browser_toggle(struct browser *b, const struct browser_line *l)
{
	struct strbuf id;
	ssize_t i;

	strbuf_init(&id);
	browser_line_id(b, l, &id);
	i = browser_find_toggled(b, id.buf);
	if (i >= 0) {
		free(b->toggled[i]);
		b->toggled[i] = b->toggled[--b->nr_toggled];
		strbuf_release(&id);
	} else {
		b->toggled = xgrow(b->toggled, &b->toggled_cap, b->nr_toggled + 1,
				   sizeof(*b->toggled));
		b->toggled[b->nr_toggled++] = xstrdup(id.buf);
		strbuf_release(&id);
	}
}

static const struct snapshot_node *browser_tree(const struct browser *b,
						const struct snapshot_row *r)
{
	const struct snapshot_node *root = b->callees ? r->callees : r->callers;

	return root && root->nr_children ? root : NULL;
}

/* Append line l, growing the array. */
static struct browser_line *browser_push(struct browser_line **arr, size_t *n, size_t *cap,
					 const struct browser_line *l)
{
	*arr = xgrow(*arr, cap, *n + 1, sizeof(**arr));
	(*arr)[*n] = *l;
	return &(*arr)[(*n)++];
}

/* The children of node under an expanded line, and theirs when expanded. */
static void browser_add_nodes(struct browser *b, struct browser_line **arr, size_t *n,
			      size_t *cap, const struct browser_line *parent,
			      const struct snapshot_node *node, struct strbuf *id)
{
	size_t i;

	for (i = 0; i < node->nr_children; i++) {
		const struct snapshot_node *c = &node->children[i];
		struct browser_line l = {
			.row = parent->row,
			.node = c,
			.self = c->share,
			.depth = parent->depth + 1,
			.expandable = c->nr_children > 0,
		};
		struct browser_line *added;

		/* The path: the parent's, then this node's symbol and dso (the
		 * parent's is copied out first: adding may move the buffer). */
		l.path = b->paths.len;
		if (parent->node) {
			char *pp = xstrdup(b->paths.buf + parent->path);

			strbuf_addstr(&b->paths, pp);
			free(pp);
		}
		strbuf_addf(&b->paths, "\x1e%s%s\x1f%s", c->symbol ? c->symbol : "",
			    c->inlined ? COLUMN_INLINED : "", c->dso ? c->dso : "");
		strbuf_addch(&b->paths, '\0');
		l.expanded = l.expandable && browser_is_expanded(b, &l, id);
		added = browser_push(arr, n, cap, &l);
		if (added->expanded) {
			struct browser_line copy = *added;

			browser_add_nodes(b, arr, n, cap, &copy, c, id);
		}
	}
}

/* Rows (b->lines[0..nrows)) to rows and the open parts of their trees. */
static void browser_expand(struct browser *b, size_t nrows)
{
	struct browser_line *out = NULL;
	size_t n = 0, cap = 0, i;
	struct strbuf id;

	strbuf_init(&id);
	for (i = 0; i < nrows; i++) {
		struct browser_line l = b->lines[i];
		const struct snapshot_node *root = browser_tree(b, l.row);

		l.expandable = root != NULL;
		l.expanded = root && browser_is_expanded(b, &l, &id);
		browser_push(&out, &n, &cap, &l);
		if (l.expanded)
			browser_add_nodes(b, &out, &n, &cap, &l, root, &id);
	}
	strbuf_release(&id);
	free(b->lines);
	b->lines = out;
	b->lines_cap = cap;
	b->nr_lines = n;
}

static bool browser_sel_match(const struct browser *b, const struct browser_line *l)
{
	if (!browser_key_match(&b->sel, l->row))
		return false;
	if (!l->node || !b->sel_path)
		return !l->node && !b->sel_path;
	return strcmp(b->paths.buf + l->path, b->sel_path) == 0;
}

void browser_rebuild(struct browser *b)
{
	const struct snapshot *s = b->snap;
	size_t i, n = 0, kept;

	b->nr_lines = 0;
	b->nr_rows = 0;
	b->shown_period = 0;
	b->hidden_by_limit = 0;
	strbuf_reset(&b->paths);
	if (!s) {
		b->selected = b->top = 0;
		return;
	}
	b->lines = xgrow(b->lines, &b->lines_cap, s->nr_rows ? s->nr_rows : 1, sizeof(*b->lines));
	for (i = 0; i < s->nr_rows; i++) {
		if (!browser_passes(b, &s->rows[i]))
			continue;
		memset(&b->lines[n], 0, sizeof(b->lines[n]));
		b->lines[n].row = &s->rows[i];
		b->shown_period += s->rows[i].period;
		n++;
	}
	for (i = 0; i < n; i++) {
		b->lines[i].self = browser_percent(b, b->lines[i].row->period);
		b->lines[i].children = browser_percent(b, b->lines[i].row->children_period);
	}
	if (n > 1)
		qsort_r(b->lines, n, sizeof(*b->lines), browser_line_cmp, b);
	/* The limit hides rows by their shown percent; -E keeps the first N
	 * of the current order. */
	for (i = kept = 0; i < n; i++) {
		double pct = s->children ? b->lines[i].children : b->lines[i].self;

		if (b->percent_limit > 0 && pct < b->percent_limit)
			continue;
		if (b->max_rows && kept >= b->max_rows)
			continue;
		b->lines[kept++] = b->lines[i];
	}
	b->hidden_by_limit = n - kept;
	b->nr_lines = kept;
	b->nr_rows = kept;
	if (s->callchains)
		browser_expand(b, kept);

	if (b->has_sel) {
		size_t row_at = b->nr_lines;

		for (i = 0; i < b->nr_lines; i++) {
			if (browser_sel_match(b, &b->lines[i])) {
				row_at = i;
				break;
			}
			/* A node gone from the tree: fall back on its row. */
			if (row_at == b->nr_lines && !b->lines[i].node &&
			    browser_key_match(&b->sel, b->lines[i].row))
				row_at = i;
		}
		/* Gone: stay on the same line, which now shows another entry. */
		if (row_at < b->nr_lines)
			b->selected = row_at;
	}
	browser_scroll(b);
	browser_remember(b);
}

/* snap's Baseline and Delta, from b's baseline; one that does not fit
 * the data is dropped. */
static void browser_apply_baseline(struct browser *b, struct snapshot *snap)
{
	struct errmsg em = ERRMSG_INIT;
	int err;

	if (!b->baseline)
		return;
	if ((err = baseline_apply(b->baseline, snap, NULL, &em))) {
		browser_message(b, "baseline dropped: %s", errmsg_text(&em, err));
		baseline_free(b->baseline);
		b->baseline = NULL;
	}
}

void browser_set_snapshot(struct browser *b, struct snapshot *snap)
{
	browser_apply_baseline(b, snap);
	/* Live, payload samples may come after the first refresh. */
	if (!b->snap || b->nr_cols == 0 || b->payload != snap->payload_rows ||
	    b->snap->baseline != snap->baseline)
		browser_set_columns(b, snap);
	browser_drop_snapshot(b);
	/* The lines point into the old rows: empty them before anything
	 * could look at them. */
	b->nr_lines = 0;
	b->snap = snap;
	browser_rebuild(b);
	/* The view refreshes with the table, when the snapshot carries its
	 * function (counted since a, or named by --annotate). */
	if (b->ann.symbol)
		annotate_view_update(&b->ann, snap->annotate);
}

void browser_annotate_report(struct browser *b, struct annotate_report *r)
{
	annotate_view_update(&b->ann, r);
	annotate_report_free(r);
}

void browser_set_page(struct browser *b, size_t lines)
{
	b->page = lines ? lines : 1;
	browser_scroll(b);
}

const char *browser_col_title(const struct browser *b, enum column_id col)
{
	return column_title(b->snap, col);
}

const char *browser_sort_name(const struct browser *b)
{
	return browser_col_title(b, b->sort_col);
}

const struct snapshot_row *browser_selected(const struct browser *b)
{
	return b->selected < b->nr_lines ? b->lines[b->selected].row : NULL;
}

void browser_print(const struct browser *b, FILE *f)
{
	struct snapshot tmp;
	size_t i;

	if (!b->snap)
		return;
	tmp = *b->snap;
	/* The table only: not the functions opened with a. */
	tmp.annotate = NULL;
	tmp.nr_rows = b->nr_lines;
	tmp.rows = b->nr_lines ? xmalloc(b->nr_lines * sizeof(*tmp.rows)) : NULL;
	for (i = 0; i < b->nr_lines; i++) {
		tmp.rows[i] = *b->lines[i].row;
		tmp.rows[i].self = b->lines[i].self;
	}
	output_text(f, &tmp);
	free(tmp.rows);
}

/* P: the first free proftop.hist.N, like perf's perf.hist.N. */
static void browser_print_file(struct browser *b)
{
	const char *dir = b->print_dir ? b->print_dir : ".";
	int i;

	for (i = 0; i < 1000; i++) {
		char *path = xasprintf("%s/proftop.hist.%d", dir, i);
		FILE *f = fopen(path, "wx");

		if (!f && errno == EEXIST) {
			free(path);
			continue;
		}
		if (!f) {
			browser_message(b, "cannot write %s: %s", path, strerror(errno));
			free(path);
			return;
		}
		browser_print(b, f);
		if (fclose(f))
			browser_message(b, "cannot write %s: %s", path, strerror(errno));
		else
			browser_message(b, "table written to %s", path);
		free(path);
		return;
	}
	browser_message(b, "proftop.hist.0 to .999 exist already in %s: not written", dir);
}

/* ---- keys ---- */

static void browser_move(struct browser *b, long delta)
{
	if (!b->nr_lines)
		return;
	if (delta < 0 && (size_t)-delta > b->selected)
		b->selected = 0;
	else if (delta > 0 && b->selected + (size_t)delta >= b->nr_lines)
		b->selected = b->nr_lines - 1;
	else
		b->selected = (size_t)((long)b->selected + delta);
	browser_scroll(b);
	browser_remember(b);
}

static void browser_set_zoom(char **slot, const char *value)
{
	free(*slot);
	*slot = value ? xstrdup(value) : NULL;
}

static const struct snapshot_row *browser_selected_row(const struct browser *b)
{
	return b->selected < b->nr_lines ? b->lines[b->selected].row : NULL;
}

static void browser_zoom(struct browser *b, bool dso)
{
	const struct snapshot_row *r = browser_selected_row(b);
	const char *what = dso ? "shared object" : "command";
	char **slot = dso ? &b->zoom_dso : &b->zoom_comm;
	const char *value;

	if (*slot) {
		/* The same key again zooms out, as in perf. */
		browser_message(b, "zoomed out of %s %s", what, *slot);
		browser_set_zoom(slot, NULL);
		return;
	}
	if (!r) {
		browser_message(b, "no row selected");
		return;
	}
	value = dso ? r->dso : r->comm;
	if (!value) {
		browser_message(b, dso ? "rows have no shared object: sort by dso (-s dso,sym)" :
					 "this row mixes commands: sort by comm (-s comm,dso,sym)");
		return;
	}
	browser_set_zoom(slot, value);
	b->zoom_dso_last = dso;
	browser_message(b, "zoomed into %s %s (Esc: zoom out)", what, value);
}

static void browser_zoom_out(struct browser *b)
{
	if (b->zoom_dso && (b->zoom_dso_last || !b->zoom_comm)) {
		browser_message(b, "zoomed out of shared object %s", b->zoom_dso);
		browser_set_zoom(&b->zoom_dso, NULL);
		b->zoom_dso_last = false;
	} else if (b->zoom_comm) {
		browser_message(b, "zoomed out of command %s", b->zoom_comm);
		browser_set_zoom(&b->zoom_comm, NULL);
		b->zoom_dso_last = b->zoom_dso != NULL;
	} else if (b->filter[0]) {
		browser_message(b, "filter cleared");
		b->filter[0] = '\0';
	} else {
		browser_message(b, "nothing to zoom out of");
	}
}

static void browser_sort_step(struct browser *b, int dir)
{
	size_t i, cur = 0;

	for (i = 0; i < b->nr_cols; i++)
		if (b->cols[i] == b->sort_col)
			cur = i;
	if (!b->nr_cols)
		return;
	cur = (cur + b->nr_cols + (size_t)(dir > 0 ? 1 : b->nr_cols - 1)) % b->nr_cols;
	b->sort_col = b->cols[cur];
	browser_message(b, "sorted by %s", browser_col_title(b, b->sort_col));
}

static void browser_open_prompt(struct browser *b, enum browser_prompt p)
{
	b->screen = BROWSER_PROMPT;
	b->prompt = p;
	/* The filter starts empty, as in perf: Enter alone clears it. */
	if (p == BROWSER_PROMPT_FILTER)
		b->input[0] = '\0';
	else if (b->percent_limit > 0)
		snprintf(b->input, sizeof(b->input), "%g", b->percent_limit);
	else
		b->input[0] = '\0';
}

static void browser_accept_prompt(struct browser *b)
{
	if (b->prompt == BROWSER_PROMPT_FILTER) {
		snprintf(b->filter, sizeof(b->filter), "%s", b->input);
		if (b->filter[0])
			browser_message(b, "showing symbols containing \"%s\" (/ then Enter: clear)",
					b->filter);
		else
			browser_message(b, "filter cleared");
	} else {
		char *end;
		double p = b->input[0] ? strtod(b->input, &end) : 0.0;

		if (b->input[0] && (*end || !(p >= 0 && p <= 100))) {
			browser_message(b, "percent limit: \"%s\" is not a number from 0 to 100",
					b->input);
			return;
		}
		b->percent_limit = p;
		if (p > 0)
			browser_message(b, "hiding rows under %g%%", p);
		else
			browser_message(b, "percent limit cleared");
	}
}

static unsigned browser_prompt_key(struct browser *b, int key)
{
	size_t len = strlen(b->input);

	switch (key) {
	case BKEY_ENTER:
	case '\n':
	case '\r':
		b->screen = BROWSER_TABLE;
		browser_accept_prompt(b);
		browser_rebuild(b);
		return BROWSER_REDRAW;
	case BKEY_ESC:
	case BKEY_CTRL_C:
		b->screen = BROWSER_TABLE;
		b->message[0] = '\0';
		return BROWSER_REDRAW;
	case BKEY_BACKSPACE:
	case BKEY_BACKSPACE_CH:
	case 127:
		/* a whole UTF-8 character */
		while (len > 0 && ((unsigned char)b->input[len - 1] & 0xc0) == 0x80)
			len--;
		if (len > 0)
			len--;
		b->input[len] = '\0';
		return BROWSER_REDRAW;
	case 'U' - '@': /* Ctrl-U, as in a shell */
		b->input[0] = '\0';
		return BROWSER_REDRAW;
	default:
		if (key >= 0x20 && key < 0x100 && key != 0x7f && len + 1 < sizeof(b->input)) {
			b->input[len] = (char)key;
			b->input[len + 1] = '\0';
		}
		return BROWSER_REDRAW;
	}
}

static unsigned browser_help_key(struct browser *b, int key)
{
	size_t n = browser_help_lines(), page = b->page ? b->page : 1;

	switch (browser_action_of(key)) {
	case BROWSER_ACT_UP:
		if (b->help_top)
			b->help_top--;
		break;
	case BROWSER_ACT_DOWN:
		if (b->help_top + 1 < n)
			b->help_top++;
		break;
	case BROWSER_ACT_PGUP:
		b->help_top = b->help_top > page ? b->help_top - page : 0;
		break;
	case BROWSER_ACT_PGDN:
		if (b->help_top + page < n)
			b->help_top += page;
		break;
	default:
		if (key == BKEY_CTRL_C) {
			b->quit = true;
			return BROWSER_QUIT;
		}
		/* Any other key, q included, closes the help. */
		b->screen = b->help_from;
		break;
	}
	return BROWSER_REDRAW;
}

/* +, E, C, G.  Returns whether the lines need a rebuild. */
static bool browser_callchain_key(struct browser *b, enum browser_action a)
{
	const struct browser_line *l =
		b->selected < b->nr_lines ? &b->lines[b->selected] : NULL;

	if (!b->snap || !b->snap->callchains) {
		browser_message(b, "no callchains: run with -g (or a recording made with -g)");
		return false;
	}
	switch (a) {
	case BROWSER_ACT_EXPAND:
		if (!l)
			return false;
		if (!l->expandable) {
			browser_message(b, l->node ? "no %s beyond this one" :
					"no call tree for this row (the first -G rows have one)",
					b->callees ? "callees" : "callers");
			return false;
		}
		browser_toggle(b, l);
		return true;
	case BROWSER_ACT_EXPAND_ALL:
		b->expand_all = true;
		browser_clear_toggled(b);
		browser_message(b, "every call tree expanded (C: collapse)");
		return true;
	case BROWSER_ACT_COLLAPSE_ALL:
		b->expand_all = false;
		browser_clear_toggled(b);
		return true;
	default:
		b->callees = !b->callees;
		browser_message(b, b->callees ? "trees show callees (what it calls)" :
						 "trees show callers (who calls it)");
		/* The selected node belongs to the other tree: keep its row. */
		free(b->sel_path);
		b->sel_path = NULL;
		return true;
	}
}

static unsigned browser_pause(struct browser *b)
{
	b->paused = !b->paused;
	browser_message(b, b->paused ? "display paused, sampling goes on (p: resume)" :
				       "display resumed");
	return BROWSER_REDRAW | (b->paused ? 0 : BROWSER_RESUMED);
}

/* a: the selected row's function, per instruction. */
static unsigned browser_annotate_open(struct browser *b)
{
	const struct snapshot_row *r = browser_selected_row(b);
	const char *dso;
	size_t i;

	if (!r || !r->symbol || strcmp(r->symbol, "[unknown]") == 0) {
		browser_message(b, "a: select a row with a function name");
		return 0;
	}
	if (r->inlined || !r->has_sym) {
		browser_message(b, "a: %s", r->inlined ? "an inlined function has no code of its "
				"own: run without --inline" : "the rows have no symbol: sort by sym");
		return 0;
	}
	dso = r->dso_path && strcmp(r->dso_path, "[unknown]") ? r->dso_path : NULL;
	annotate_view_open(&b->ann, r->symbol, dso);
	for (i = 0; i < b->ann.nr_back; i++) {
		free(b->ann.back[i].symbol);
		free(b->ann.back[i].dso);
	}
	b->ann.nr_back = 0;
	b->screen = BROWSER_INSNS;
	annotate_view_update(&b->ann, b->snap->annotate);
	return BROWSER_ANNOTATE;
}

/* I, in the table and the per-instruction view. */
static void browser_toggle_detail(struct browser *b)
{
	if (!b->payload) {
		browser_message(b, "no payload data: the pane is for recordings whose "
				   "samples carry a decoded payload");
		return;
	}
	b->detail = !b->detail;
	browser_message(b, b->detail ? "%s pane shown (I: hide)" : "%s pane hidden (I: show)",
			b->snap->payload->title);
}

static unsigned browser_insns_key(struct browser *b, int key)
{
	unsigned r = annotate_view_key(&b->ann, key);

	browser_message(b, "%s", b->ann.message);
	if (r & ANNOTATE_VIEW_QUIT) {
		b->quit = true;
		return BROWSER_REDRAW | BROWSER_QUIT;
	}
	if (r & ANNOTATE_VIEW_CLOSE)
		b->screen = BROWSER_TABLE;
	if (r & ANNOTATE_VIEW_PAUSE)
		return browser_pause(b);
	if (r & ANNOTATE_VIEW_DETAIL)
		browser_toggle_detail(b);
	if (r & ANNOTATE_VIEW_HELP) {
		b->screen = BROWSER_HELP;
		b->help_from = BROWSER_INSNS;
		b->help_top = BROWSER_HELP_INSNS;
	}
	if (r & ANNOTATE_VIEW_OPEN) {
		/* want_* move into the view: open then frees the old names. */
		char *sym = b->ann.want_symbol, *dso = b->ann.want_dso;
		uint64_t addr = b->ann.want_addr, hint = b->ann.want_hint;

		b->ann.want_symbol = b->ann.want_dso = NULL;
		annotate_view_open(&b->ann, sym, dso);
		b->ann.hint = hint;
		b->ann.moved = addr != 0;
		b->ann.sel_addr = addr;
		free(sym);
		free(dso);
		if (b->snap)
			annotate_view_update(&b->ann, b->snap->annotate);
		return BROWSER_REDRAW | BROWSER_ANNOTATE;
	}
	return BROWSER_REDRAW;
}

unsigned browser_key(struct browser *b, int key)
{
	size_t page = b->page ? b->page : 1;
	unsigned ret = BROWSER_REDRAW;

	if (b->screen == BROWSER_PROMPT)
		return browser_prompt_key(b, key);
	if (b->screen == BROWSER_INSNS)
		return browser_insns_key(b, key);
	if (b->screen == BROWSER_HELP)
		return browser_help_key(b, key);
	/* A message stays until the next key. */
	b->message[0] = '\0';

	switch (browser_action_of(key)) {
	case BROWSER_ACT_NONE:
		return BROWSER_REDRAW;
	case BROWSER_ACT_UP:
		browser_move(b, -1);
		return ret;
	case BROWSER_ACT_DOWN:
		browser_move(b, 1);
		return ret;
	case BROWSER_ACT_PGUP:
		b->top = b->top > page ? b->top - page : 0;
		browser_move(b, -(long)page);
		return ret;
	case BROWSER_ACT_PGDN:
		b->top += page;
		browser_move(b, (long)page);
		return ret;
	case BROWSER_ACT_HOME:
		browser_move(b, -(long)b->nr_lines);
		return ret;
	case BROWSER_ACT_END:
		browser_move(b, (long)b->nr_lines);
		return ret;
	case BROWSER_ACT_FILTER:
		browser_open_prompt(b, BROWSER_PROMPT_FILTER);
		return ret;
	case BROWSER_ACT_PERCENT_LIMIT:
		browser_open_prompt(b, BROWSER_PROMPT_LIMIT);
		return ret;
	case BROWSER_ACT_ZOOM_THREAD:
		browser_zoom(b, false);
		break;
	case BROWSER_ACT_ZOOM_DSO:
		browser_zoom(b, true);
		break;
	case BROWSER_ACT_ZOOM_OUT:
		browser_zoom_out(b);
		break;
	case BROWSER_ACT_HIDE_KERNEL:
		b->hide_kernel = !b->hide_kernel;
		if (b->hide_kernel)
			b->hide_user = false;
		browser_message(b, b->hide_kernel ? "kernel rows hidden" : "kernel rows shown");
		break;
	case BROWSER_ACT_HIDE_USER:
		b->hide_user = !b->hide_user;
		if (b->hide_user)
			b->hide_kernel = false;
		browser_message(b, b->hide_user ? "user-space rows hidden" : "user-space rows shown");
		break;
	case BROWSER_ACT_SORT_NEXT:
		browser_sort_step(b, 1);
		break;
	case BROWSER_ACT_SORT_PREV:
		browser_sort_step(b, -1);
		break;
	case BROWSER_ACT_PERCENT_BASE:
		b->relative = !b->relative;
		browser_message(b, b->relative ? "percentages of the shown rows" :
						 "percentages of all samples");
		break;
	case BROWSER_ACT_ZERO:
		b->mode = b->mode == HIST_ZERO ? HIST_DECAY : HIST_ZERO;
		browser_message(b, b->mode == HIST_ZERO ? "zeroing the table at each refresh" :
							   "decaying the table at each refresh");
		return ret | BROWSER_SET_MODE;
	case BROWSER_ACT_PAUSE:
		return browser_pause(b);
	case BROWSER_ACT_EXPAND:
	case BROWSER_ACT_EXPAND_ALL:
	case BROWSER_ACT_COLLAPSE_ALL:
	case BROWSER_ACT_CALL_ORDER:
		if (!browser_callchain_key(b, browser_action_of(key)))
			return ret;
		break;
	case BROWSER_ACT_DETAIL:
		browser_toggle_detail(b);
		return ret;
	case BROWSER_ACT_ANNOTATE:
		return ret | browser_annotate_open(b);
	case BROWSER_ACT_BASELINE:
		if (!b->snap) {
			browser_message(b, "no table yet to take as the baseline");
			return ret;
		}
		baseline_free(b->baseline);
		b->baseline = baseline_from_snapshot(b->snap, NULL);
		/* The lines point into the rows, which gain and lose gone rows. */
		b->nr_lines = 0;
		browser_apply_baseline(b, b->snap);
		browser_set_columns(b, b->snap);
		browser_message(b, "baseline: %s", baseline_name(b->baseline));
		break;
	case BROWSER_ACT_PRINT:
		browser_print_file(b);
		return ret;
	case BROWSER_ACT_HELP:
		b->screen = BROWSER_HELP;
		b->help_from = BROWSER_TABLE;
		b->help_top = 0;
		return ret;
	case BROWSER_ACT_QUIT:
		b->quit = true;
		return ret | BROWSER_QUIT;
	case BROWSER_ACT__MAX:
		break;
	}
	browser_rebuild(b);
	return ret;
}
