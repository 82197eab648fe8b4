/* Batch renderers: a snapshot as a text table (--batch, like top -b and
 * perf top --stdio) or as one JSON object per line (--json). */
#include "config.h"

#include "output.h"

#include <math.h>
#include <stdbool.h>
#include <string.h>

#include "unwind.h"
#include "util.h"
#include "view.h"

/* Name columns wider than this are cut in the middle: the start and the
 * end of a path or a comm say more than either alone. */
#define OUTPUT_COMM_MAX 16
#define OUTPUT_DSO_MAX 40
#define OUTPUT_SEP "  "
/* Call trees deeper than this are cut (with "..." in text). */
#define OUTPUT_TREE_DEPTH 64
#define OUTPUT_JSON_TREE_DEPTH 16

enum output_col {
	OUTPUT_COL_COMM,
	OUTPUT_COL_PID,
	OUTPUT_COL_TID,
	OUTPUT_COL_CPU,
	OUTPUT_COL_DSO,
	OUTPUT_COL_SYM,
	OUTPUT_COL_SRCLINE,
};

/* perf's mark of an inlined function (--inline), after its name. */
#define OUTPUT_INLINED " (inlined)"

static const char *output_str(const char *s)
{
	return s ? s : "?";
}

/* Finite or zero: NaN and infinities are not JSON numbers. */
static double output_finite(double x)
{
	return isfinite(x) ? x : 0.0;
}

/* Append x with a fixed number of decimals.  printf's %f follows
 * LC_NUMERIC, which the TUI sets from the environment for ncurses: a
 * decimal comma would make the JSON invalid and the text unparseable. */
static void output_fixed(struct strbuf *sb, double x, int decimals)
{
	long long scale = 1, v;
	int i;

	x = output_finite(x);
	for (i = 0; i < decimals; i++)
		scale *= 10;
	if (fabs(x) * (double)scale >= 9e18) {
		/* beyond long long: no decimals to localise anyway */
		strbuf_addf(sb, "%.0f", x);
		return;
	}
	v = llround(x * (double)scale);
	if (v < 0) {
		strbuf_addch(sb, '-');
		v = -v;
	}
	strbuf_addf(sb, "%lld", v / scale);
	if (decimals)
		strbuf_addf(sb, ".%0*lld", decimals, v % scale);
}

/* Step back from a UTF-8 continuation byte so a cut keeps whole characters. */
static size_t output_utf8_floor(const char *s, size_t i)
{
	while (i > 0 && ((unsigned char)s[i] & 0xc0) == 0x80)
		i--;
	return i;
}

/* Append s with control characters shown as '?': a newline in a comm or a
 * file name must not break the table.  When max is non-zero and s is
 * longer, the middle is replaced by "...".  Returns the bytes appended. */
static size_t output_add_name(struct strbuf *sb, const char *s, size_t max)
{
	size_t len = strlen(s), start = sb->len, i;

	if (max > 3 && len > max) {
		size_t head = output_utf8_floor(s, (max - 3) / 2);
		size_t tail = output_utf8_floor(s, len - (max - 3 - (max - 3) / 2));

		if (tail < head)
			tail = head;
		strbuf_add(sb, s, head);
		strbuf_addstr(sb, "...");
		strbuf_addstr(sb, s + tail);
	} else {
		strbuf_addstr(sb, s);
	}
	for (i = start; i < sb->len; i++)
		if ((unsigned char)sb->buf[i] < 0x20 || sb->buf[i] == 0x7f)
			sb->buf[i] = '?';
	return sb->len - start;
}

static void output_pad(struct strbuf *sb, size_t n)
{
	while (n--)
		strbuf_addch(sb, ' ');
}

/* The printed width of a name cell, counting UTF-8 characters as one. */
static size_t output_width(const char *s, size_t n)
{
	size_t w = 0, i;

	for (i = 0; i < n; i++)
		if (((unsigned char)s[i] & 0xc0) != 0x80)
			w++;
	return w;
}

static size_t output_name_width(const char *s, size_t max)
{
	struct strbuf tmp;
	size_t w;

	strbuf_init(&tmp);
	output_add_name(&tmp, s, max);
	w = output_width(tmp.buf, tmp.len);
	strbuf_release(&tmp);
	return w;
}

/* A tree node's name, marked when inlined. */
static void output_add_node_name(struct strbuf *sb, const struct snapshot_node *n)
{
	output_add_name(sb, n->symbol, 0);
	if (n->inlined)
		strbuf_addstr(sb, OUTPUT_INLINED);
}

/* Frame-pointer chains that reach a root less often than this (and enough
 * of them) bring the hint. */
#define OUTPUT_FP_ROOT_HINT 0.70
#define OUTPUT_FP_MIN_CHAINS 100

static double output_root_share(const struct snapshot *snap)
{
	return (double)snap->unwind[UNWIND_ROOT] / (double)snap->unwind_walks;
}

/* How the DWARF walks ended, as shares of them all; for frame-pointer
 * chains, only when few reach a root, with what to do about it. */
static void output_unwind_line(struct strbuf *sb, const struct snapshot *snap)
{
	size_t i;

	if (snap->unwind_fp) {
		if (snap->unwind_walks < OUTPUT_FP_MIN_CHAINS ||
		    output_root_share(snap) >= OUTPUT_FP_ROOT_HINT)
			return;
		strbuf_addf(sb, "unwind: fp %llu chains  root ",
			    (unsigned long long)snap->unwind_walks);
		output_fixed(sb, 100.0 * output_root_share(snap), 1);
		strbuf_addstr(sb, "%: code without frame pointers? try --call-graph dwarf\n");
		return;
	}
	strbuf_addf(sb, "unwind: dwarf %llu chains", (unsigned long long)snap->unwind_walks);
	for (i = 0; i < SNAPSHOT_UNWIND_OUTCOMES; i++) {
		if (i != UNWIND_ROOT && !snap->unwind[i])
			continue;
		strbuf_addf(sb, "  %s ", unwind_outcome_name((enum unwind_outcome)i));
		output_fixed(sb, 100.0 * (double)snap->unwind[i] / (double)snap->unwind_walks, 1);
		strbuf_addstr(sb, "%");
	}
	strbuf_addstr(sb, "\n");
}

/* The unwind object of the JSON header: walks per outcome. */
static void output_json_unwind(struct strbuf *sb, const struct snapshot *snap)
{
	size_t i;

	strbuf_addf(sb, ",\"unwind\":{\"method\":\"%s\",\"chains\":%llu",
		    snap->unwind_fp ? "fp" : "dwarf", (unsigned long long)snap->unwind_walks);
	if (snap->unwind_fp) {
		strbuf_addf(sb, ",\"root\":%llu,\"hint\":%s}",
			    (unsigned long long)snap->unwind[UNWIND_ROOT],
			    snap->unwind_walks >= OUTPUT_FP_MIN_CHAINS &&
					    output_root_share(snap) < OUTPUT_FP_ROOT_HINT ?
				    "\"--call-graph dwarf\"" :
				    "null");
		return;
	}
	for (i = 0; i < SNAPSHOT_UNWIND_OUTCOMES; i++)
		strbuf_addf(sb, ",\"%s\":%llu", unwind_outcome_key((enum unwind_outcome)i),
			    (unsigned long long)snap->unwind[i]);
	strbuf_addstr(sb, "}");
}

static void output_header(struct strbuf *sb, const struct snapshot *snap)
{
	double kernel_pct = 0.0;

	if (snap->period)
		kernel_pct = 100.0 * (double)snap->kernel_period / (double)snap->period;
	strbuf_addstr(sb, "proftop: ");
	output_fixed(sb, snap->time, 1);
	strbuf_addf(sb, "s  event %s", output_str(snap->event));
	if (snap->event_note)
		strbuf_addf(sb, " (%s)", snap->event_note);
	if (snap->freq)
		strbuf_addf(sb, "  %llu Hz", (unsigned long long)snap->sample_freq);
	else
		strbuf_addf(sb, "  period %llu", (unsigned long long)snap->sample_period);
	strbuf_addf(sb, "  %s\n", output_str(snap->target));

	strbuf_addf(sb, "samples: %llu (", (unsigned long long)snap->total_samples);
	output_fixed(sb, snap->samples_per_sec, 0);
	strbuf_addf(sb, "/s)  lost: %llu  throttled: %llu", (unsigned long long)snap->lost,
		    (unsigned long long)snap->throttled);
	strbuf_addstr(sb, "  kernel: ");
	output_fixed(sb, kernel_pct, 1);
	strbuf_addf(sb, "%%  mode: %s", output_str(snap->mode));
	if (snap->callchains)
		strbuf_addf(sb, "  callchain nodes dropped: %llu",
			    (unsigned long long)snap->callchain_nodes_dropped);
	if (snap->profileme_arch)
		strbuf_addf(sb, "  ProfileMe: %llu  not ProfileMe: %llu",
			    (unsigned long long)snap->profileme_samples,
			    (unsigned long long)snap->not_profileme);
	if (snap->order != VIEW_ORDER_OVERHEAD)
		strbuf_addf(sb, "  order: %s", view_order_name(snap->order));
	if (snap->symbols_loading)
		strbuf_addf(sb, "  loading symbols: %zu", snap->symbols_loading);
	if (snap->debuginfod_active)
		strbuf_addf(sb, "  debuginfod: %zu", snap->debuginfod_active);
	strbuf_addstr(sb, "\n");
	if (snap->unwind_walks)
		output_unwind_line(sb, snap);
	strbuf_addstr(sb, "\n");
}

/* The children of node, in perf's compact graph style: a branch per child
 * with its share ("|--75.00%--parent"), a single child that carries all
 * of its parent on the next line without one. */
static void output_tree_children(struct strbuf *sb, const struct snapshot_node *node,
				 const char *prefix)
{
	struct strbuf pfx, pct;
	size_t i;

	if (!node->nr_children)
		return;
	if (node->depth >= OUTPUT_TREE_DEPTH) {
		strbuf_addf(sb, "%s...\n", prefix);
		return;
	}
	if (node->nr_children == 1 && node->children[0].period == node->period) {
		strbuf_addstr(sb, prefix);
		output_add_node_name(sb, &node->children[0]);
		strbuf_addch(sb, '\n');
		output_tree_children(sb, &node->children[0], prefix);
		return;
	}
	strbuf_init(&pfx);
	strbuf_init(&pct);
	for (i = 0; i < node->nr_children; i++) {
		const struct snapshot_node *c = &node->children[i];
		bool last = i + 1 == node->nr_children;

		strbuf_reset(&pct);
		output_fixed(&pct, c->share, 2);
		strbuf_addch(&pct, '%');
		strbuf_addf(sb, "%s|\n%s%s--%s--", prefix, prefix, last ? " " : "|", pct.buf);
		output_add_node_name(sb, c);
		strbuf_addch(sb, '\n');
		strbuf_reset(&pfx);
		strbuf_addf(&pfx, "%s%s%*s", prefix, last ? " " : "|", (int)(pct.len + 4), "");
		output_tree_children(sb, c, pfx.buf);
	}
	strbuf_release(&pct);
	strbuf_release(&pfx);
}

/* A row's callers under it, indented past the percentage columns. */
static void output_tree(struct strbuf *sb, const struct snapshot_node *root, size_t indent)
{
	struct strbuf pfx;

	strbuf_init(&pfx);
	strbuf_addf(&pfx, "%*s", (int)indent, "");
	strbuf_addf(sb, "%s|\n%s---", pfx.buf, pfx.buf);
	output_add_node_name(sb, root);
	strbuf_addch(sb, '\n');
	strbuf_addstr(&pfx, "   ");
	output_tree_children(sb, root, pfx.buf);
	strbuf_addch(sb, '\n');
	strbuf_release(&pfx);
}

/* One column per sort key, in the order of the spec. */
static size_t output_columns(const struct snapshot *snap, enum output_col *cols)
{
	size_t i, n = 0;

	for (i = 0; i < snap->sort.n; i++) {
		switch (snap->sort.keys[i]) {
		case SORT_COMM:
			cols[n++] = OUTPUT_COL_COMM;
			break;
		case SORT_PID:
			cols[n++] = OUTPUT_COL_PID;
			break;
		case SORT_TID:
			cols[n++] = OUTPUT_COL_TID;
			break;
		case SORT_CPU:
			cols[n++] = OUTPUT_COL_CPU;
			break;
		case SORT_DSO:
			cols[n++] = OUTPUT_COL_DSO;
			break;
		case SORT_SYM:
			cols[n++] = OUTPUT_COL_SYM;
			break;
		case SORT_SRCLINE:
			cols[n++] = OUTPUT_COL_SRCLINE;
			break;
		case SORT__MAX:
			break;
		}
	}
	return n;
}

static const char *const output_col_title[] = {
	[OUTPUT_COL_COMM] = "Command",	    [OUTPUT_COL_PID] = "Pid",
	[OUTPUT_COL_TID] = "Tid",	    [OUTPUT_COL_CPU] = "Cpu",
	[OUTPUT_COL_DSO] = "Shared Object", [OUTPUT_COL_SYM] = "Symbol",
	[OUTPUT_COL_SRCLINE] = "Source:Line",
};

static bool output_col_numeric(enum output_col c)
{
	return c == OUTPUT_COL_PID || c == OUTPUT_COL_TID || c == OUTPUT_COL_CPU;
}

/* The width of one row's cell; numbers that are not known print as "-". */
static size_t output_cell_width(const struct snapshot_row *r, enum output_col c)
{
	switch (c) {
	case OUTPUT_COL_COMM:
		return output_name_width(r->comm ? r->comm : "-", OUTPUT_COMM_MAX);
	case OUTPUT_COL_PID:
		return r->has_pid ? util_digits(r->pid) : 1;
	case OUTPUT_COL_TID:
		return r->has_tid ? util_digits(r->tid) : 1;
	case OUTPUT_COL_CPU:
		return r->has_cpu ? util_digits(r->cpu) : 1;
	case OUTPUT_COL_DSO:
		return output_name_width(r->dso ? r->dso : "[unknown]", OUTPUT_DSO_MAX);
	case OUTPUT_COL_SYM:
		/* "[k] " + the name, uncut: it is the last column */
		return 4 + output_name_width(r->symbol ? r->symbol : "[unknown]", 0) +
		       (r->inlined ? strlen(OUTPUT_INLINED) : 0);
	case OUTPUT_COL_SRCLINE:
		return output_name_width(r->srcline ? r->srcline : "??:0", 0);
	}
	return 0;
}

static void output_cell(struct strbuf *sb, const struct snapshot_row *r, enum output_col c,
			size_t width, bool last)
{
	size_t w;

	if (output_col_numeric(c)) {
		bool has = c == OUTPUT_COL_PID ? r->has_pid :
			   c == OUTPUT_COL_TID ? r->has_tid :
						 r->has_cpu;
		uint32_t v = c == OUTPUT_COL_PID ? r->pid : c == OUTPUT_COL_TID ? r->tid : r->cpu;

		if (has)
			strbuf_addf(sb, "%*u", (int)width, v);
		else
			strbuf_addf(sb, "%*s", (int)width, "-");
		return;
	}

	switch (c) {
	case OUTPUT_COL_COMM:
		w = output_add_name(sb, r->comm ? r->comm : "-", OUTPUT_COMM_MAX);
		w = output_width(sb->buf + sb->len - w, w);
		break;
	case OUTPUT_COL_DSO:
		w = output_add_name(sb, r->dso ? r->dso : "[unknown]", OUTPUT_DSO_MAX);
		w = output_width(sb->buf + sb->len - w, w);
		break;
	case OUTPUT_COL_SYM:
		strbuf_addstr(sb, r->kernel ? "[k] " : "[.] ");
		w = output_add_name(sb, r->symbol ? r->symbol : "[unknown]", 0);
		w = 4 + output_width(sb->buf + sb->len - w, w);
		if (r->inlined) {
			strbuf_addstr(sb, OUTPUT_INLINED);
			w += strlen(OUTPUT_INLINED);
		}
		break;
	case OUTPUT_COL_SRCLINE:
		w = output_add_name(sb, r->srcline ? r->srcline : "??:0", 0);
		w = output_width(sb->buf + sb->len - w, w);
		break;
	default:
		w = width;
		break;
	}
	if (!last && w < width)
		output_pad(sb, width - w);
}

static void output_title(struct strbuf *sb, const char *title, size_t width, bool right, bool last)
{
	size_t len = strlen(title);

	if (right && len < width)
		output_pad(sb, width - len);
	strbuf_addstr(sb, title);
	if (!right && !last && len < width)
		output_pad(sb, width - len);
}

/* ---- Alpha ProfileMe ---- */

/* The table's ProfileMe columns, in display order: the measures of
 * --order, with the dominant trap's name after Traps. */
#define OUTPUT_PM_TRAP_NAME VIEW_ORDER__MAX
static const int output_pm_cols[] = {
	VIEW_ORDER_RETIRED, VIEW_ORDER_KILLED,	VIEW_ORDER_STALLED, VIEW_ORDER_MISPREDICT,
	VIEW_ORDER_TRAPS,   OUTPUT_PM_TRAP_NAME, VIEW_ORDER_ICMISS,  VIEW_ORDER_LDST,
	VIEW_ORDER_PCTR1,
};
#define OUTPUT_PM_NCOLS (sizeof(output_pm_cols) / sizeof(output_pm_cols[0]))

static const char *output_pm_title(const struct snapshot *snap, int c)
{
	switch (c) {
	case VIEW_ORDER_RETIRED:
		return "Retired";
	case VIEW_ORDER_KILLED:
		return "Killed";
	case VIEW_ORDER_STALLED:
		return "Stalled";
	case VIEW_ORDER_MISPREDICT:
		return "Mispred";
	case VIEW_ORDER_TRAPS:
		return "Traps";
	case OUTPUT_PM_TRAP_NAME:
		return "Trap";
	case VIEW_ORDER_ICMISS:
		return "ICmiss";
	case VIEW_ORDER_LDST:
		return "LdSt";
	case VIEW_ORDER_PCTR1:
		return view_pctr1_label(snap->profileme_sl1);
	default:
		return "?";
	}
}

void output_profileme_cell(struct strbuf *sb, const struct snapshot *snap,
			   const struct snapshot_row *r, enum view_order o)
{
	double v = view_profileme_value(snap, r->profileme, o);

	if (v < 0) {
		strbuf_addch(sb, '-');
		return;
	}
	output_fixed(sb, v, 1);
	if (o != VIEW_ORDER_PCTR1)
		strbuf_addch(sb, '%');
}

const char *output_profileme_trap(const struct snapshot_row *r)
{
	enum profileme_trap t;

	if (!r->profileme || !r->profileme->samples)
		return "-";
	t = profileme_stats_dominant_trap(r->profileme);
	return t == PROFILEME_TRAP_NONE ? "-" : profileme_trap_label(t);
}

static void output_pm_cell_text(struct strbuf *sb, const struct snapshot *snap,
				const struct snapshot_row *r, int c)
{
	if (c == OUTPUT_PM_TRAP_NAME)
		strbuf_addstr(sb, output_profileme_trap(r));
	else
		output_profileme_cell(sb, snap, r, (enum view_order)c);
}

/* Append "word" and wrap first when the line would pass width. */
static void output_wrap(struct strbuf *sb, size_t *line_start, const char *word, size_t width,
			const char *indent)
{
	if (sb->len - *line_start + 2 + strlen(word) > width &&
	    sb->len - *line_start > strlen(indent)) {
		strbuf_addch(sb, '\n');
		*line_start = sb->len;
		strbuf_addstr(sb, indent);
	} else if (sb->len - *line_start > strlen(indent)) {
		/* "traps: none 3  replay 1" */
		strbuf_addstr(sb, sb->buf[sb->len - 1] == ':' ? " " : "  ");
	}
	strbuf_addstr(sb, word);
}

/* "N (P%)" of part in whole. */
static void output_count_pct(struct strbuf *sb, const char *name, uint64_t part, uint64_t whole)
{
	strbuf_addf(sb, "%s %llu (", name, (unsigned long long)part);
	output_fixed(sb, whole ? 100.0 * (double)part / (double)whole : 0.0, 1);
	strbuf_addstr(sb, "%)");
}

void output_profileme_detail(struct strbuf *sb, const struct snapshot *snap,
			     const struct snapshot_row *r, size_t width)
{
	const struct profileme_stats *st = r->profileme;
	struct strbuf w;
	size_t line;
	unsigned k;
	int t;

	if (!st)
		return;
	strbuf_init(&w);
	strbuf_addf(sb, "ProfileMe: %s", r->kernel ? "[k] " : "[.] ");
	output_add_name(sb, r->symbol ? r->symbol : "[unknown]", 0);
	if (r->dso) {
		strbuf_addstr(sb, "  ");
		output_add_name(sb, r->dso, 0);
	}
	strbuf_addf(sb, "\n  samples %llu: user %llu  kernel %llu  PAL %llu  not ProfileMe %llu\n",
		    (unsigned long long)st->samples,
		    (unsigned long long)st->mode[PROFILEME_MODE_USER],
		    (unsigned long long)st->mode[PROFILEME_MODE_KERNEL],
		    (unsigned long long)st->mode[PROFILEME_MODE_PAL], (unsigned long long)st->other);
	line = sb->len;
	strbuf_addstr(sb, "  ");
	{
		static const char *const names[] = { "retired", "taken", "killed", "stalled",
						     "mispredicted", "Icache miss",
						     "load-store order" };
		const uint64_t vals[] = { st->retired, st->taken, st->killed, st->stalled,
					  st->mispredicted, st->icache_miss, st->ldst_order };

		for (k = 0; k < sizeof(vals) / sizeof(vals[0]); k++) {
			strbuf_reset(&w);
			output_count_pct(&w, names[k], vals[k], st->samples);
			output_wrap(sb, &line, w.buf, width, "  ");
		}
	}
	strbuf_addch(sb, '\n');
	line = sb->len;
	strbuf_addstr(sb, "  PCTR0 mean ");
	output_fixed(sb, st->samples ? (double)st->pctr0_sum / (double)st->samples : 0.0, 1);
	strbuf_addstr(sb, "  PCTR1 mean:");
	for (k = 0; k < PROFILEME_SL1_NR; k++) {
		strbuf_reset(&w);
		strbuf_addf(&w, "%s ", profileme_pctr1_name(k));
		if (st->pctr1_samples[k]) {
			output_fixed(&w, (double)st->pctr1_sum[k] / (double)st->pctr1_samples[k], 1);
			strbuf_addf(&w, " (%llu)", (unsigned long long)st->pctr1_samples[k]);
		} else {
			strbuf_addch(&w, '-');
		}
		output_wrap(sb, &line, w.buf, width, "  ");
	}
	strbuf_addch(sb, '\n');
	line = sb->len;
	strbuf_addstr(sb, "  traps:");
	for (t = 0; t < PROFILEME_TRAP_NR; t++) {
		strbuf_reset(&w);
		strbuf_addf(&w, "%s %llu", profileme_trap_label((enum profileme_trap)t),
			    (unsigned long long)st->trap[t]);
		output_wrap(sb, &line, w.buf, width, "    ");
	}
	strbuf_addch(sb, '\n');
	strbuf_release(&w);
}

void output_text(FILE *out, const struct snapshot *snap)
{
	enum output_col cols[SORT__MAX];
	size_t widths[SORT__MAX];
	size_t ncols = output_columns(snap, cols), i, k;
	size_t w_over = strlen("Overhead"), w_samp = strlen("Samples");
	size_t w_child = strlen("Children"), w_self = strlen("Self");
	size_t w_pm[OUTPUT_PM_NCOLS], npm = snap->profileme ? OUTPUT_PM_NCOLS : 0;
	struct strbuf sb, pct;

	strbuf_init(&sb);
	output_header(&sb, snap);

	if (!snap->nr_rows) {
		if (snap->nr_entries)
			strbuf_addf(&sb, "no rows to show: all %zu entries are filtered out\n",
				    snap->nr_entries);
		else
			strbuf_addstr(&sb, "no samples yet\n");
		strbuf_addch(&sb, '\n');
		fputs(sb.buf, out);
		fflush(out);
		strbuf_release(&sb);
		return;
	}

	strbuf_init(&pct);
	for (k = 0; k < ncols; k++)
		widths[k] = strlen(output_col_title[cols[k]]);
	for (k = 0; k < npm; k++)
		w_pm[k] = strlen(output_pm_title(snap, output_pm_cols[k]));
	for (i = 0; i < snap->nr_rows; i++) {
		const struct snapshot_row *r = &snap->rows[i];
		size_t w;

		strbuf_reset(&pct);
		output_fixed(&pct, r->self, 2);
		w = pct.len + 1;
		if (w > w_over)
			w_over = w;
		if (w > w_self)
			w_self = w;
		strbuf_reset(&pct);
		output_fixed(&pct, r->children, 2);
		if (pct.len + 1 > w_child)
			w_child = pct.len + 1;
		if (util_digits(r->samples) > w_samp)
			w_samp = util_digits(r->samples);
		for (k = 0; k < ncols; k++) {
			w = output_cell_width(r, cols[k]);
			if (w > widths[k])
				widths[k] = w;
		}
		for (k = 0; k < npm; k++) {
			strbuf_reset(&pct);
			output_pm_cell_text(&pct, snap, r, output_pm_cols[k]);
			if (pct.len > w_pm[k])
				w_pm[k] = pct.len;
		}
	}

	if (snap->children) {
		output_title(&sb, "Children", w_child, true, false);
		strbuf_addstr(&sb, OUTPUT_SEP);
		output_title(&sb, "Self", w_self, true, false);
	} else {
		output_title(&sb, "Overhead", w_over, true, false);
	}
	strbuf_addstr(&sb, OUTPUT_SEP);
	output_title(&sb, "Samples", w_samp, true, ncols == 0 && npm == 0);
	for (k = 0; k < npm; k++) {
		strbuf_addstr(&sb, OUTPUT_SEP);
		output_title(&sb, output_pm_title(snap, output_pm_cols[k]), w_pm[k],
			     output_pm_cols[k] != OUTPUT_PM_TRAP_NAME, k + 1 == npm && ncols == 0);
	}
	for (k = 0; k < ncols; k++) {
		strbuf_addstr(&sb, OUTPUT_SEP);
		output_title(&sb, output_col_title[cols[k]], widths[k], output_col_numeric(cols[k]),
			     k + 1 == ncols);
	}
	strbuf_addch(&sb, '\n');

	for (i = 0; i < snap->nr_rows; i++) {
		const struct snapshot_row *r = &snap->rows[i];
		size_t indent;

		if (snap->children) {
			strbuf_reset(&pct);
			output_fixed(&pct, r->children, 2);
			strbuf_addch(&pct, '%');
			strbuf_addf(&sb, "%*s" OUTPUT_SEP, (int)w_child, pct.buf);
		}
		strbuf_reset(&pct);
		output_fixed(&pct, r->self, 2);
		strbuf_addch(&pct, '%');
		strbuf_addf(&sb, "%*s" OUTPUT_SEP "%*llu", (int)(snap->children ? w_self : w_over),
			    pct.buf, (int)w_samp, (unsigned long long)r->samples);
		for (k = 0; k < npm; k++) {
			bool name = output_pm_cols[k] == OUTPUT_PM_TRAP_NAME;

			strbuf_reset(&pct);
			output_pm_cell_text(&pct, snap, r, output_pm_cols[k]);
			strbuf_addstr(&sb, OUTPUT_SEP);
			if (!name)
				output_pad(&sb, w_pm[k] - pct.len);
			strbuf_addstr(&sb, pct.buf);
			if (name && (k + 1 < npm || ncols))
				output_pad(&sb, w_pm[k] - pct.len);
		}
		for (k = 0; k < ncols; k++) {
			strbuf_addstr(&sb, OUTPUT_SEP);
			output_cell(&sb, r, cols[k], widths[k], k + 1 == ncols);
		}
		strbuf_addch(&sb, '\n');
		indent = snap->children ? w_child + strlen(OUTPUT_SEP) + w_self : w_over;
		if (r->callers && r->callers->nr_children)
			output_tree(&sb, r->callers, indent + strlen(OUTPUT_SEP));
	}
	strbuf_addch(&sb, '\n');
	/* The breakdown of the first row, as the browser shows the
	 * selected one's. */
	if (snap->profileme && snap->rows[0].profileme && snap->rows[0].profileme->samples) {
		output_profileme_detail(&sb, snap, &snap->rows[0], 100);
		strbuf_addch(&sb, '\n');
	}
	fputs(sb.buf, out);
	fflush(out);
	strbuf_release(&pct);
	strbuf_release(&sb);
}

/* A JSON string, or null for a missing one. */
static void output_json_str(struct strbuf *sb, const char *s)
{
	if (s)
		strbuf_add_json_string(sb, s);
	else
		strbuf_addstr(sb, "null");
}

/* The children of node as a JSON array of nodes, to a depth limit. */
static void output_json_nodes(struct strbuf *sb, const struct snapshot_node *node)
{
	size_t i;

	strbuf_addch(sb, '[');
	for (i = 0; node->depth < OUTPUT_JSON_TREE_DEPTH && i < node->nr_children; i++) {
		const struct snapshot_node *c = &node->children[i];

		if (i)
			strbuf_addch(sb, ',');
		strbuf_addstr(sb, "{\"symbol\":");
		output_json_str(sb, c->symbol);
		strbuf_addstr(sb, ",\"dso\":");
		output_json_str(sb, c->dso);
		strbuf_addf(sb, ",\"kernel\":%s,", c->kernel ? "true" : "false");
		if (c->inlined)
			strbuf_addstr(sb, "\"inlined\":true,");
		strbuf_addstr(sb, "\"share\":");
		output_fixed(sb, c->share, 2);
		strbuf_addf(sb, ",\"period\":%llu,\"children\":", (unsigned long long)c->period);
		output_json_nodes(sb, c);
		strbuf_addch(sb, '}');
	}
	strbuf_addch(sb, ']');
}

/* The "profileme" object of a row or of the whole table; the names are
 * the reference's (alpha-profileme.md), a contract for scripts. */
static void output_json_profileme(struct strbuf *sb, const struct profileme_stats *st)
{
	unsigned k;
	int t;

	strbuf_addf(sb,
		    "{\"samples\":%llu,\"retired\":%llu,\"taken\":%llu,\"killed\":%llu,"
		    "\"stalled\":%llu,\"mispredicted\":%llu,\"icache_miss\":%llu,"
		    "\"ldst_order\":%llu,\"traps\":{",
		    (unsigned long long)st->samples, (unsigned long long)st->retired,
		    (unsigned long long)st->taken, (unsigned long long)st->killed,
		    (unsigned long long)st->stalled, (unsigned long long)st->mispredicted,
		    (unsigned long long)st->icache_miss, (unsigned long long)st->ldst_order);
	for (t = 0; t < PROFILEME_TRAP_NR; t++) {
		if (t)
			strbuf_addch(sb, ',');
		strbuf_add_json_string(sb, profileme_trap_label((enum profileme_trap)t));
		strbuf_addf(sb, ":%llu", (unsigned long long)st->trap[t]);
	}
	strbuf_addf(sb, "},\"pctr0_sum\":%llu,\"pctr1_sum\":{", (unsigned long long)st->pctr0_sum);
	for (k = 0; k < PROFILEME_SL1_NR; k++)
		strbuf_addf(sb, "%s\"%s\":%llu", k ? "," : "", profileme_pctr1_name(k),
			    (unsigned long long)st->pctr1_sum[k]);
	strbuf_addstr(sb, "},\"pctr1_samples\":{");
	for (k = 0; k < PROFILEME_SL1_NR; k++)
		strbuf_addf(sb, "%s\"%s\":%llu", k ? "," : "", profileme_pctr1_name(k),
			    (unsigned long long)st->pctr1_samples[k]);
	strbuf_addf(sb, "},\"modes\":{\"user\":%llu,\"kernel\":%llu,\"PAL\":%llu},"
		    "\"not_profileme\":%llu}",
		    (unsigned long long)st->mode[PROFILEME_MODE_USER],
		    (unsigned long long)st->mode[PROFILEME_MODE_KERNEL],
		    (unsigned long long)st->mode[PROFILEME_MODE_PAL], (unsigned long long)st->other);
}

static void output_json_row(struct strbuf *sb, const struct snapshot *snap,
			    const struct snapshot_row *r)
{
	strbuf_addstr(sb, "{\"self\":");
	output_fixed(sb, r->self, 2);
	if (snap->children) {
		strbuf_addstr(sb, ",\"children\":");
		output_fixed(sb, r->children, 2);
	}
	strbuf_addf(sb, ",\"samples\":%llu,\"period\":%llu", (unsigned long long)r->samples,
		    (unsigned long long)r->period);
	if (r->comm) {
		strbuf_addstr(sb, ",\"comm\":");
		strbuf_add_json_string(sb, r->comm);
	}
	if (r->has_pid)
		strbuf_addf(sb, ",\"pid\":%u", r->pid);
	if (r->has_tid)
		strbuf_addf(sb, ",\"tid\":%u", r->tid);
	if (r->has_cpu)
		strbuf_addf(sb, ",\"cpu\":%u", r->cpu);
	if (r->has_dso) {
		strbuf_addstr(sb, ",\"dso\":");
		output_json_str(sb, r->dso);
		strbuf_addstr(sb, ",\"dso_path\":");
		output_json_str(sb, r->dso_path);
	}
	if (r->has_sym) {
		strbuf_addstr(sb, ",\"symbol\":");
		output_json_str(sb, r->symbol);
		if (r->inlined)
			strbuf_addstr(sb, ",\"inlined\":true");
	}
	if (r->has_srcline) {
		strbuf_addstr(sb, ",\"srcline\":");
		output_json_str(sb, r->srcline);
	}
	strbuf_addf(sb, ",\"kernel\":%s", r->kernel ? "true" : "false");
	if (r->callers) {
		strbuf_addstr(sb, ",\"callers\":");
		output_json_nodes(sb, r->callers);
	}
	if (r->callees) {
		strbuf_addstr(sb, ",\"callees\":");
		output_json_nodes(sb, r->callees);
	}
	if (snap->profileme && r->profileme) {
		strbuf_addstr(sb, ",\"profileme\":");
		output_json_profileme(sb, r->profileme);
	}
	strbuf_addch(sb, '}');
}

void output_json(FILE *out, const struct snapshot *snap)
{
	struct strbuf sb;
	size_t i;

	strbuf_init(&sb);
	strbuf_addstr(&sb, "{\"time\":");
	output_fixed(&sb, snap->time, 3);
	strbuf_addstr(&sb, ",\"event\":");
	output_json_str(&sb, snap->event);
	if (snap->event_note) {
		strbuf_addstr(&sb, ",\"event_note\":");
		strbuf_add_json_string(&sb, snap->event_note);
	}
	if (snap->freq)
		strbuf_addf(&sb, ",\"sample_freq\":%llu", (unsigned long long)snap->sample_freq);
	else
		strbuf_addf(&sb, ",\"sample_period\":%llu",
			    (unsigned long long)snap->sample_period);
	strbuf_addstr(&sb, ",\"target\":");
	output_json_str(&sb, snap->target);
	strbuf_addf(&sb,
		    ",\"samples\":%llu,\"total_samples\":%llu,\"lost\":%llu,"
		    "\"throttled\":%llu,\"period\":%llu,\"kernel_period\":%llu,\"mode\":",
		    (unsigned long long)snap->samples, (unsigned long long)snap->total_samples,
		    (unsigned long long)snap->lost, (unsigned long long)snap->throttled,
		    (unsigned long long)snap->period, (unsigned long long)snap->kernel_period);
	output_json_str(&sb, snap->mode);
	strbuf_addf(&sb, ",\"threads\":%llu,\"processes\":%llu",
		    (unsigned long long)snap->threads, (unsigned long long)snap->processes);
	if (snap->callchains)
		strbuf_addf(&sb,
			    ",\"callchains\":true,\"children_mode\":%s,\"tree_percent\":\"%s\","
			    "\"callchain_nodes_dropped\":%llu",
			    snap->children ? "true" : "false",
			    snap->tree_percent_total ? "total" : "entry",
			    (unsigned long long)snap->callchain_nodes_dropped);
	if (snap->unwind_walks)
		output_json_unwind(&sb, snap);
	if (snap->profileme_arch)
		strbuf_addf(&sb, ",\"profileme_samples\":%llu,\"not_profileme\":%llu",
			    (unsigned long long)snap->profileme_samples,
			    (unsigned long long)snap->not_profileme);
	if (snap->profileme) {
		strbuf_addf(&sb, ",\"profileme_pctr1\":\"%s\",\"profileme\":",
			    profileme_pctr1_name(snap->profileme_sl1));
		output_json_profileme(&sb, &snap->profileme_total);
	}
	if (snap->order != VIEW_ORDER_OVERHEAD) {
		strbuf_addstr(&sb, ",\"order\":");
		strbuf_add_json_string(&sb, view_order_name(snap->order));
	}
	strbuf_addstr(&sb, ",\"sort\":[");
	for (i = 0; i < snap->sort.n; i++) {
		if (i)
			strbuf_addch(&sb, ',');
		strbuf_add_json_string(&sb, sort_key_name(snap->sort.keys[i]));
	}
	strbuf_addstr(&sb, "],\"rows\":[");
	for (i = 0; i < snap->nr_rows; i++) {
		if (i)
			strbuf_addch(&sb, ',');
		output_json_row(&sb, snap, &snap->rows[i]);
	}
	strbuf_addstr(&sb, "]}\n");
	fputs(sb.buf, out);
	fflush(out);
	strbuf_release(&sb);
}

/* A folded-stack field: ';' separates frames and the count follows the
 * last space, so ';' and control characters are replaced. */
static void output_folded_name(struct strbuf *sb, const char *s)
{
	size_t start = sb->len, i;

	strbuf_addstr(sb, s);
	for (i = start; i < sb->len; i++) {
		if (sb->buf[i] == ';')
			sb->buf[i] = ':';
		else if ((unsigned char)sb->buf[i] < 0x20 || sb->buf[i] == 0x7f)
			sb->buf[i] = '?';
	}
}

static void output_folded_frame(struct strbuf *sb, const char *symbol, const char *dso)
{
	/* An unknown function is better told by its object, as
	 * stackcollapse-perf does: "[libc.so.6]". */
	if (strcmp(symbol, "[unknown]") == 0 && dso && strcmp(dso, "[unknown]") != 0 &&
	    dso[0] != '[') {
		strbuf_addch(sb, '[');
		output_folded_name(sb, dso);
		strbuf_addch(sb, ']');
	} else {
		output_folded_name(sb, symbol);
	}
}

void output_folded(FILE *out, const struct snapshot *snap)
{
	struct strbuf sb;
	size_t i, j;

	strbuf_init(&sb);
	if (snap->callchains) {
		for (i = 0; i < snap->nr_stacks; i++) {
			const struct snapshot_stack *st = &snap->stacks[i];

			if (!st->samples)
				continue;
			output_folded_name(&sb, st->comm ? st->comm : "[unknown]");
			for (j = 0; j < st->nr_frames; j++) {
				strbuf_addch(&sb, ';');
				output_folded_frame(&sb, st->frames[j].symbol, st->frames[j].dso);
			}
			strbuf_addf(&sb, " %llu\n", (unsigned long long)st->samples);
		}
	} else {
		/* No chains (a recording without them): each row is a
		 * one-frame stack. */
		for (i = 0; i < snap->nr_rows; i++) {
			const struct snapshot_row *r = &snap->rows[i];

			if (!r->samples)
				continue;
			output_folded_name(&sb, r->comm ? r->comm : "[unknown]");
			strbuf_addch(&sb, ';');
			output_folded_frame(&sb, r->symbol ? r->symbol : "[unknown]", r->dso);
			strbuf_addf(&sb, " %llu\n", (unsigned long long)r->samples);
		}
	}
	strbuf_addch(&sb, '\n');
	fputs(sb.buf, out);
	fflush(out);
	strbuf_release(&sb);
}
