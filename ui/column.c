/* The column table: titles, width policy, cell text and sort order of
 * every column the tables show, the payload decoder's included. */
#include "config.h"

#include "column.h"

#include <string.h>

#include "textfmt.h"
#include "util.h"

enum column_kind {
	COLUMN_PERCENT, /* self or children: "12.34%" */
	COLUMN_COUNT,
	COLUMN_ID,   /* pid, tid, cpu: "-" when not known */
	COLUMN_POINTS, /* a difference of percentages: "+1.25" */
	COLUMN_TEXT, /* a name */
};

struct column_def {
	const char *title;
	enum sort_key key; /* the sort key it shows, or SORT__MAX */
	enum column_kind kind;
	unsigned min;	    /* see column_min_width */
	unsigned shrink;    /* names: column_shrink_rank */
	unsigned batch_max; /* names: column_batch_max */
};

/* Names narrower than their min stop saying anything; a comm is at most
 * 15 bytes. */
static const struct column_def column_defs[COLUMN__MAX] = {
	[COLUMN_CHILDREN] = { "Children", SORT__MAX, COLUMN_PERCENT, 7, 0, 0 },
	[COLUMN_SELF] = { "Self", SORT__MAX, COLUMN_PERCENT, 7, 0, 0 },
	[COLUMN_OVERHEAD] = { "Overhead", SORT__MAX, COLUMN_PERCENT, 7, 0, 0 },
	[COLUMN_BASELINE] = { "Baseline", SORT__MAX, COLUMN_PERCENT, 8, 0, 0 },
	[COLUMN_DELTA] = { "Delta", SORT__MAX, COLUMN_POINTS, 6, 0, 0 },
	[COLUMN_SAMPLES] = { "Samples", SORT__MAX, COLUMN_COUNT, 0, 0, 0 },
	[COLUMN_COMM] = { "Command", SORT_COMM, COLUMN_TEXT, 6, 1, 16 },
	[COLUMN_PID] = { "Pid", SORT_PID, COLUMN_ID, 0, 0, 0 },
	[COLUMN_TID] = { "Tid", SORT_TID, COLUMN_ID, 0, 0, 0 },
	[COLUMN_CPU] = { "Cpu", SORT_CPU, COLUMN_ID, 3, 0, 0 },
	[COLUMN_DSO] = { "Shared Object", SORT_DSO, COLUMN_TEXT, 8, 1, 40 },
	[COLUMN_SYM] = { "Symbol", SORT_SYM, COLUMN_TEXT, 12, 2, 0 },
	[COLUMN_SRCLINE] = { "Source:Line", SORT_SRCLINE, COLUMN_TEXT, 10, 2, 0 },
	/* perf report --mem-mode's titles */
	[COLUMN_DADDR_DSO] = { "Data Object", SORT_DADDR_DSO, COLUMN_TEXT, 8, 1, 40 },
	[COLUMN_DADDR_SYM] = { "Data Symbol", SORT_DADDR_SYM, COLUMN_TEXT, 12, 2, 0 },
};

/* A payload name column's least width, like Command's. */
#define COLUMN_PAYLOAD_NAME_MIN 6

bool column_is_payload(enum column_id c)
{
	return c >= COLUMN_PAYLOAD && c < COLUMN_PAYLOAD + COLUMN_PAYLOAD_MAX;
}

/* The payload column c is, or NULL. */
static const struct payload_column *column_payload(const struct snapshot *snap,
						   enum column_id c)
{
	size_t i = (size_t)(c - COLUMN_PAYLOAD);

	if (!column_is_payload(c) || !snap || !snap->payload || i >= snap->payload->nr_columns)
		return NULL;
	return &snap->payload->columns[i];
}

size_t column_list(const struct snapshot *snap, bool batch, enum column_id *cols)
{
	size_t i, n = 0;
	enum column_id c;

	if (snap->children)
		cols[n++] = COLUMN_CHILDREN;
	cols[n++] = batch && !snap->children ? COLUMN_OVERHEAD : COLUMN_SELF;
	if (snap->baseline) {
		cols[n++] = COLUMN_BASELINE;
		cols[n++] = COLUMN_DELTA;
	}
	cols[n++] = COLUMN_SAMPLES;
	if (snap->payload_rows)
		for (i = 0; i < snap->payload->nr_columns && i < COLUMN_PAYLOAD_MAX; i++)
			cols[n++] = (enum column_id)(COLUMN_PAYLOAD + i);
	for (i = 0; i < snap->sort.n; i++)
		for (c = COLUMN_COMM; c < COLUMN__MAX; c++)
			if (column_defs[c].key == snap->sort.keys[i])
				cols[n++] = c;
	return n;
}

const char *column_title(const struct snapshot *snap, enum column_id c)
{
	if (column_is_payload(c))
		return column_payload(snap, c) ? payload_title(snap->payload, snap->payload_total,
							       (size_t)(c - COLUMN_PAYLOAD)) :
						 "";
	return (unsigned)c < COLUMN__MAX && column_defs[c].title ? column_defs[c].title : "";
}

bool column_is_name(const struct snapshot *snap, enum column_id c)
{
	const struct payload_column *p = column_payload(snap, c);

	if (column_is_payload(c))
		return p && p->kind == PAYLOAD_NAME;
	return (unsigned)c < COLUMN__MAX && column_defs[c].kind == COLUMN_TEXT;
}

unsigned column_min_width(const struct snapshot *snap, enum column_id c)
{
	const struct payload_column *p = column_payload(snap, c);

	if (column_is_payload(c))
		return !p ? 0 : p->kind == PAYLOAD_NAME ? COLUMN_PAYLOAD_NAME_MIN : p->width;
	return (unsigned)c < COLUMN__MAX ? column_defs[c].min : 0;
}

unsigned column_cap(const struct snapshot *snap, enum column_id c, unsigned width)
{
	const struct payload_column *p = column_payload(snap, c);

	if (p)
		return p->kind == PAYLOAD_NAME && p->width ? p->width : ~0u;
	switch (c) {
	case COLUMN_COMM:
		return 16;
	case COLUMN_DSO:
	case COLUMN_DADDR_DSO:
		/* DSO names grow with the terminal */
		return width / 6 > 20 ? width / 6 : 20;
	default:
		return ~0u;
	}
}

unsigned column_shrink_rank(const struct snapshot *snap, enum column_id c)
{
	if (column_is_payload(c))
		return 0;
	return (unsigned)c < COLUMN__MAX ? column_defs[c].shrink : 0;
}

unsigned column_keep_rank(const struct snapshot *snap, enum column_id c)
{
	const struct payload_column *p = column_payload(snap, c);

	return p ? p->keep_rank : 0;
}

unsigned column_batch_max(enum column_id c)
{
	return (unsigned)c < COLUMN__MAX ? column_defs[c].batch_max : 0;
}

const char *column_mark(const struct snapshot_row *r)
{
	return r->kernel ? "[k] " : "[.] ";
}

double column_delta(const struct snapshot_row *r)
{
	return r->self - (r->has_baseline ? r->baseline : 0.0);
}

/* "+1.25", "-0.50", "0.00": a change in points, signed. */
static void column_points(struct strbuf *sb, double d, enum column_style style)
{
	if (d > -0.005 && d < 0.005)
		d = 0;
	if (style == COLUMN_SCREEN) {
		strbuf_addf(sb, d ? "%+.2f" : "%.2f", d);
		return;
	}
	if (d > 0)
		strbuf_addch(sb, '+');
	textfmt_fixed(sb, d, 2);
}

static void column_id_text(struct strbuf *sb, bool has, uint32_t v)
{
	if (has)
		strbuf_addf(sb, "%u", v);
	else
		strbuf_addch(sb, '-');
}

/* "12.34%" */
static void column_percent(struct strbuf *sb, double pct, enum column_style style)
{
	if (style == COLUMN_SCREEN) {
		strbuf_addf(sb, "%.2f%%", pct);
		return;
	}
	textfmt_fixed(sb, pct, 2);
	strbuf_addch(sb, '%');
}

void column_text(struct strbuf *sb, const struct snapshot *snap, const struct snapshot_row *r,
		 enum column_id c, double self, double children, enum column_style style)
{
	if (column_is_payload(c)) {
		if (column_payload(snap, c))
			payload_cell(sb, snap->payload, r->payload, snap->payload_total,
				     (size_t)(c - COLUMN_PAYLOAD));
		return;
	}
	switch (c) {
	case COLUMN_CHILDREN:
		column_percent(sb, children, style);
		break;
	case COLUMN_SELF:
	case COLUMN_OVERHEAD:
		column_percent(sb, self, style);
		break;
	case COLUMN_BASELINE:
		if (r->has_baseline)
			column_percent(sb, r->baseline, style);
		else
			strbuf_addch(sb, '-');
		break;
	case COLUMN_DELTA:
		if (r->gone || !r->has_baseline)
			strbuf_addstr(sb, r->gone ? "gone" : "new");
		else
			column_points(sb, column_delta(r), style);
		break;
	case COLUMN_SAMPLES:
		strbuf_addf(sb, "%llu", (unsigned long long)r->samples);
		break;
	case COLUMN_COMM:
		strbuf_addstr(sb, r->comm ? r->comm : "-");
		break;
	case COLUMN_PID:
		column_id_text(sb, r->has_pid, r->pid);
		break;
	case COLUMN_TID:
		column_id_text(sb, r->has_tid, r->tid);
		break;
	case COLUMN_CPU:
		column_id_text(sb, r->has_cpu, r->cpu);
		break;
	case COLUMN_DSO:
		strbuf_addstr(sb, r->dso ? r->dso : "[unknown]");
		break;
	case COLUMN_SYM:
		strbuf_addstr(sb, r->symbol ? r->symbol : "[unknown]");
		if (r->inlined)
			strbuf_addstr(sb, COLUMN_INLINED);
		break;
	case COLUMN_SRCLINE:
		strbuf_addstr(sb, r->srcline ? r->srcline : "??:0");
		break;
	case COLUMN_DADDR_DSO:
		strbuf_addstr(sb, r->daddr_dso ? r->daddr_dso : "[unknown]");
		break;
	case COLUMN_DADDR_SYM:
		strbuf_addstr(sb, r->daddr_sym ? r->daddr_sym : "[unknown]");
		break;
	default:
		break;
	}
}

/* Known ids before unknown ones. */
static int column_idcmp(bool ha, uint32_t a, bool hb, uint32_t b)
{
	if (ha != hb)
		return ha ? -1 : 1;
	return CMP(a, b);
}

int column_cmp(const struct snapshot *snap, enum column_id c, const struct snapshot_row *a,
	       const struct snapshot_row *b)
{
	int r;

	if (column_is_payload(c)) {
		size_t i = (size_t)(c - COLUMN_PAYLOAD);

		if (!column_payload(snap, c))
			return 0;
		/* Rows without a value (NULL, -1) go last. */
		if (snap->payload->columns[i].kind == PAYLOAD_NAME) {
			return view_strcmp(payload_name(snap->payload, a->payload, i),
					   payload_name(snap->payload, b->payload, i));
		}
		return CMP(payload_value(snap->payload, b->payload, snap->payload_total, i),
			   payload_value(snap->payload, a->payload, snap->payload_total, i));
	}
	switch (c) {
	case COLUMN_CHILDREN:
		return CMP(b->children_period, a->children_period);
	case COLUMN_SELF:
	case COLUMN_OVERHEAD:
		return CMP(b->period, a->period);
	case COLUMN_BASELINE:
		return CMP(b->has_baseline ? b->baseline : -1.0, a->has_baseline ? a->baseline : -1.0);
	case COLUMN_DELTA:
		return CMP(column_delta(b), column_delta(a));
	case COLUMN_SAMPLES:
		return CMP(b->samples, a->samples);
	case COLUMN_COMM:
		return view_strcmp(a->comm, b->comm);
	case COLUMN_PID:
		return column_idcmp(a->has_pid, a->pid, b->has_pid, b->pid);
	case COLUMN_TID:
		return column_idcmp(a->has_tid, a->tid, b->has_tid, b->tid);
	case COLUMN_CPU:
		return column_idcmp(a->has_cpu, a->cpu, b->has_cpu, b->cpu);
	case COLUMN_DSO:
		return view_strcmp(a->dso, b->dso);
	case COLUMN_SYM:
		if ((r = view_strcmp(a->symbol, b->symbol)))
			return r;
		return CMP(a->inlined, b->inlined);
	case COLUMN_SRCLINE:
		return view_strcmp(a->srcline, b->srcline);
	case COLUMN_DADDR_DSO:
		return view_strcmp(a->daddr_dso, b->daddr_dso);
	case COLUMN_DADDR_SYM:
		return view_strcmp(a->daddr_sym, b->daddr_sym);
	default:
		return 0;
	}
}

enum column_id column_of_order(const struct snapshot *snap)
{
	int i = payload_order_column(snap->payload, snap->order);

	return i >= 0 && i < COLUMN_PAYLOAD_MAX ? (enum column_id)(COLUMN_PAYLOAD + i) :
						  COLUMN__MAX;
}
