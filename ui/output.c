/* Batch renderers: a snapshot as a text table (--batch, like top -b and
 * perf top --stdio) or as one JSON object per line (--json). */
#include "config.h"

#include "output.h"

#include <math.h>
#include <stdbool.h>
#include <string.h>
#include <unistd.h>

#include "annotate-out.h"
#include "column.h"
#include "textfmt.h"
#include "util.h"
#include "view.h"

#define OUTPUT_SEP "  "
/* Call trees deeper than this are cut (with "..." in text). */
#define OUTPUT_TREE_DEPTH 64
#define OUTPUT_JSON_TREE_DEPTH 16

static const char *output_str(const char *s)
{
	return s ? s : "?";
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

/* A tree node's name, marked when inlined. */
static void output_add_node_name(struct strbuf *sb, const struct snapshot_node *n)
{
	output_add_name(sb, n->symbol, 0);
	if (n->inlined)
		strbuf_addstr(sb, COLUMN_INLINED);
}

/* Frame-pointer chains that reach a root less often than this (and enough
 * of them) bring the hint. */
#define OUTPUT_FP_ROOT_HINT 0.70
#define OUTPUT_FP_MIN_CHAINS 100

static double output_root_share(const struct snapshot *snap)
{
	return (double)snap->unwind[SNAPSHOT_UNWIND_ROOT] / (double)snap->unwind_walks;
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
		textfmt_fixed(sb, 100.0 * output_root_share(snap), 1);
		strbuf_addstr(sb, "%: code without frame pointers? try --call-graph dwarf\n");
		return;
	}
	strbuf_addf(sb, "unwind: dwarf %llu chains", (unsigned long long)snap->unwind_walks);
	for (i = 0; i < SNAPSHOT_UNWIND_OUTCOMES; i++) {
		if (i != SNAPSHOT_UNWIND_ROOT && !snap->unwind[i])
			continue;
		strbuf_addf(sb, "  %s ", snap->unwind_name[i]);
		textfmt_fixed(sb, 100.0 * (double)snap->unwind[i] / (double)snap->unwind_walks, 1);
		strbuf_addstr(sb, "%");
	}
	/* Each sample carries its stack copy: lost ones mean small rings
	 * (live, the rings line says how many pages). */
	if (snap->lost && !snap->ring_pages)
		strbuf_addstr(sb, "  (samples lost: rings too small for the stack copies, try -m)");
	strbuf_addstr(sb, "\n");
}

/* Records a ring should hold at least, and the bytes of a DWARF sample
 * beyond its stack copy (registers, kernel chain, ids), about. */
#define OUTPUT_RING_RECORDS 8
#define OUTPUT_RECORD_EXTRA 512

/* Live DWARF samples: whether the rings lost samples, or hold fewer than
 * OUTPUT_RING_RECORDS of them; *hint the -m that should do: twice the
 * pages, scaled by the share lost, a power of 2 (as -m takes). */
static bool output_rings_small(const struct snapshot *snap, uint64_t *hint)
{
	uint64_t page = (uint64_t)sysconf(_SC_PAGESIZE);
	uint64_t bytes = snap->ring_pages * page, rec = snap->stack_copy + OUTPUT_RECORD_EXTRA;
	uint64_t need = OUTPUT_RING_RECORDS * rec;

	if (!snap->ring_pages || !snap->stack_copy || (!snap->lost && bytes >= need))
		return false;
	if (snap->lost) {
		uint64_t seen = snap->total_samples ? snap->total_samples : 1;
		uint64_t scaled = 2 * bytes * (seen + snap->lost) / seen;

		if (scaled > need)
			need = scaled;
	}
	for (*hint = snap->ring_pages; *hint * page < need;)
		*hint *= 2;
	return true;
}

static void output_rings_line(struct strbuf *sb, const struct snapshot *snap)
{
	uint64_t hint;

	if (!output_rings_small(snap, &hint))
		return;
	strbuf_addf(sb, "rings: %llu KiB per CPU, too small for ",
		    (unsigned long long)(snap->ring_pages * (uint64_t)sysconf(_SC_PAGESIZE) / 1024));
	if (snap->stack_copy % 1024)
		strbuf_addf(sb, "%u-byte", snap->stack_copy);
	else
		strbuf_addf(sb, "%u KiB", snap->stack_copy / 1024);
	strbuf_addf(sb, " stack copies at this rate: -m %llu\n", (unsigned long long)hint);
}

/* The rings line's JSON: "rings_too_small", only when it would show. */
static void output_json_rings(struct strbuf *sb, const struct snapshot *snap)
{
	uint64_t hint;

	if (!output_rings_small(snap, &hint))
		return;
	strbuf_addf(sb, ",\"rings_too_small\":{\"kib_per_cpu\":%llu,\"stack_copy\":%u,"
			"\"suggest_mmap_pages\":%llu}",
		    (unsigned long long)(snap->ring_pages * (uint64_t)sysconf(_SC_PAGESIZE) / 1024),
		    snap->stack_copy, (unsigned long long)hint);
}

void output_unwind_text(struct strbuf *sb, const struct snapshot *snap)
{
	if (snap->unwind_walks)
		output_unwind_line(sb, snap);
	output_rings_line(sb, snap);
}

/* The unwind object of the JSON header: walks per outcome. */
static void output_json_unwind(struct strbuf *sb, const struct snapshot *snap)
{
	size_t i;

	strbuf_addf(sb, ",\"unwind\":{\"method\":\"%s\",\"chains\":%llu",
		    snap->unwind_fp ? "fp" : "dwarf", (unsigned long long)snap->unwind_walks);
	if (snap->unwind_fp) {
		strbuf_addf(sb, ",\"root\":%llu,\"hint\":%s}",
			    (unsigned long long)snap->unwind[SNAPSHOT_UNWIND_ROOT],
			    snap->unwind_walks >= OUTPUT_FP_MIN_CHAINS &&
					    output_root_share(snap) < OUTPUT_FP_ROOT_HINT ?
				    "\"--call-graph dwarf\"" :
				    "null");
		return;
	}
	for (i = 0; i < SNAPSHOT_UNWIND_OUTCOMES; i++)
		strbuf_addf(sb, ",\"%s\":%llu", snap->unwind_key[i],
			    (unsigned long long)snap->unwind[i]);
	strbuf_addstr(sb, "}");
}

static void output_header(struct strbuf *sb, const struct snapshot *snap)
{
	double kernel_pct = 0.0;

	if (snap->period)
		kernel_pct = 100.0 * (double)snap->kernel_period / (double)snap->period;
	strbuf_addstr(sb, "proftop: ");
	textfmt_fixed(sb, snap->time, 1);
	strbuf_addf(sb, "s  event %s", output_str(snap->event));
	if (snap->event_note)
		strbuf_addf(sb, " (%s)", snap->event_note);
	if (snap->freq)
		strbuf_addf(sb, "  %llu Hz", (unsigned long long)snap->sample_freq);
	else
		strbuf_addf(sb, "  period %llu", (unsigned long long)snap->sample_period);
	strbuf_addf(sb, "  %s\n", output_str(snap->target));

	strbuf_addf(sb, "samples: %llu (", (unsigned long long)snap->total_samples);
	textfmt_fixed(sb, snap->samples_per_sec, 0);
	strbuf_addf(sb, "/s)  lost: %llu  throttled: %llu", (unsigned long long)snap->lost,
		    (unsigned long long)snap->throttled);
	strbuf_addstr(sb, "  kernel: ");
	textfmt_fixed(sb, kernel_pct, 1);
	strbuf_addf(sb, "%%  mode: %s", output_str(snap->mode));
	if (snap->callchains)
		strbuf_addf(sb, "  callchain nodes dropped: %llu",
			    (unsigned long long)snap->callchain_nodes_dropped);
	if (snap->callchain_zero_ends)
		strbuf_addf(sb, "  zero return addresses dropped: %llu",
			    (unsigned long long)snap->callchain_zero_ends);
	/* The time columns (--off-cpu, --wall) come with every sample. */
	if (snap->payload && !snap->off_cpu)
		strbuf_addf(sb, "  %s: %llu  not %s: %llu", snap->payload->title,
			    (unsigned long long)snap->payload_samples, snap->payload->title,
			    (unsigned long long)snap->payload_other);
	if (snap->wall) {
		strbuf_addstr(sb, "  on-CPU: ");
		textfmt_fixed(sb, snap->oncpu_ms_per_sec, 1);
		strbuf_addstr(sb, " ms/s");
	}
	if (snap->off_cpu) {
		strbuf_addstr(sb, "  off-CPU: ");
		textfmt_fixed(sb, snap->offcpu_ms_per_sec, 1);
		strbuf_addstr(sb, " ms/s  switches: ");
		textfmt_fixed(sb, snap->switches_per_sec, 0);
		strbuf_addf(sb, "/s  dropped: %llu", (unsigned long long)snap->offcpu_dropped);
	}
	if (snap->order)
		strbuf_addf(sb, "  order: %s", snap->order);
	if (snap->symbols_loading)
		strbuf_addf(sb, "  loading symbols: %zu", snap->symbols_loading);
	if (snap->debuginfod_active)
		strbuf_addf(sb, "  debuginfod: %zu", snap->debuginfod_active);
	strbuf_addstr(sb, "\n");
	output_unwind_text(sb, snap);
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
		textfmt_fixed(&pct, c->share, 2);
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

/* Row r's cell of column c as the batch table prints it (names cut to
 * their batch maximum, control characters as '?'), appended to sb;
 * returns its printed width. */
static size_t output_cell(struct strbuf *sb, const struct snapshot *snap,
			  const struct snapshot_row *r, enum column_id c)
{
	struct strbuf text;
	size_t w, mark = 0;

	strbuf_init(&text);
	column_text(&text, snap, r, c, r->self, r->children, COLUMN_BATCH);
	if (c == COLUMN_SYM) {
		strbuf_addstr(sb, column_mark(r));
		mark = COLUMN_MARK_WIDTH;
	}
	if (column_is_name(snap, c)) {
		w = output_add_name(sb, text.buf, column_batch_max(c));
		w = output_width(sb->buf + sb->len - w, w);
	} else {
		strbuf_add(sb, text.buf, text.len);
		w = output_width(text.buf, text.len);
	}
	strbuf_release(&text);
	return mark + w;
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

void output_payload_detail(struct strbuf *sb, const struct snapshot *snap,
			   const struct snapshot_row *r, size_t width)
{
	if (!snap->payload || !r->payload)
		return;
	strbuf_addf(sb, "%s: %s", snap->payload->title, column_mark(r));
	output_add_name(sb, r->symbol ? r->symbol : "[unknown]", 0);
	if (r->dso) {
		strbuf_addstr(sb, "  ");
		output_add_name(sb, r->dso, 0);
	}
	strbuf_addch(sb, '\n');
	if (snap->payload->format_detail)
		snap->payload->format_detail(sb, r->payload, width);
}

void output_text(FILE *out, const struct snapshot *snap)
{
	enum column_id cols[COLUMN__MAX];
	size_t widths[COLUMN__MAX];
	size_t ncols, i, k, indent = 0;
	struct strbuf sb, cell;

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

	strbuf_init(&cell);
	ncols = column_list(snap, true, cols);
	for (k = 0; k < ncols; k++)
		widths[k] = strlen(column_title(snap, cols[k]));
	for (i = 0; i < snap->nr_rows; i++) {
		for (k = 0; k < ncols; k++) {
			size_t w;

			strbuf_reset(&cell);
			w = output_cell(&cell, snap, &snap->rows[i], cols[k]);
			if (w > widths[k])
				widths[k] = w;
		}
	}
	/* The trees start under the Samples column. */
	for (k = 0; k < ncols && cols[k] != COLUMN_SAMPLES; k++)
		indent += widths[k] + strlen(OUTPUT_SEP);

	for (k = 0; k < ncols; k++) {
		if (k)
			strbuf_addstr(&sb, OUTPUT_SEP);
		output_title(&sb, column_title(snap, cols[k]), widths[k],
			     !column_is_name(snap, cols[k]), k + 1 == ncols);
	}
	strbuf_addch(&sb, '\n');

	for (i = 0; i < snap->nr_rows; i++) {
		const struct snapshot_row *r = &snap->rows[i];

		for (k = 0; k < ncols; k++) {
			bool name = column_is_name(snap, cols[k]);
			size_t w;

			if (k)
				strbuf_addstr(&sb, OUTPUT_SEP);
			strbuf_reset(&cell);
			w = output_cell(&cell, snap, r, cols[k]);
			if (!name && w < widths[k])
				output_pad(&sb, widths[k] - w);
			strbuf_add(&sb, cell.buf, cell.len);
			if (name && k + 1 < ncols && w < widths[k])
				output_pad(&sb, widths[k] - w);
		}
		strbuf_addch(&sb, '\n');
		if (r->callers && r->callers->nr_children)
			output_tree(&sb, r->callers, indent);
	}
	strbuf_addch(&sb, '\n');
	/* The payload breakdown of the first row, as the browser shows the
	 * selected one's. */
	if (snap->payload_rows && snap->rows[0].payload &&
	    snap->payload->stats_samples(snap->rows[0].payload)) {
		output_payload_detail(&sb, snap, &snap->rows[0], 100);
		strbuf_addch(&sb, '\n');
	}
	if (snap->annotate)
		annotate_out_text(&sb, snap->annotate);
	fputs(sb.buf, out);
	fflush(out);
	strbuf_release(&cell);
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
		if (c->synthetic)
			strbuf_addstr(sb, "\"synthetic\":true,");
		strbuf_addstr(sb, "\"share\":");
		textfmt_fixed(sb, c->share, 2);
		strbuf_addf(sb, ",\"period\":%llu,\"children\":", (unsigned long long)c->period);
		output_json_nodes(sb, c);
		strbuf_addch(sb, '}');
	}
	strbuf_addch(sb, ']');
}

static void output_json_row(struct strbuf *sb, const struct snapshot *snap,
			    const struct snapshot_row *r)
{
	strbuf_addstr(sb, "{\"self\":");
	textfmt_fixed(sb, r->self, 2);
	if (snap->children) {
		strbuf_addstr(sb, ",\"children\":");
		textfmt_fixed(sb, r->children, 2);
	}
	strbuf_addf(sb, ",\"samples\":%llu,\"period\":%llu", (unsigned long long)r->samples,
		    (unsigned long long)r->period);
	/* --baseline: null for a new row; a gone row has no samples now. */
	if (snap->baseline) {
		strbuf_addstr(sb, ",\"baseline\":");
		if (r->has_baseline)
			textfmt_fixed(sb, r->baseline, 2);
		else
			strbuf_addstr(sb, "null");
		strbuf_addstr(sb, ",\"delta\":");
		/* No "-0.00". */
		textfmt_fixed(sb, fabs(column_delta(r)) < 0.005 ? 0.0 : column_delta(r), 2);
		if (r->gone || !r->has_baseline)
			strbuf_addstr(sb, r->gone ? ",\"gone\":true" : ",\"new\":true");
	}
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
		if (r->synthetic)
			strbuf_addstr(sb, ",\"synthetic\":true");
	}
	if (r->has_srcline) {
		strbuf_addstr(sb, ",\"srcline\":");
		output_json_str(sb, r->srcline);
	}
	if (r->has_daddr_dso) {
		strbuf_addstr(sb, ",\"daddr_dso\":");
		output_json_str(sb, r->daddr_dso);
	}
	if (r->has_daddr_sym) {
		strbuf_addstr(sb, ",\"daddr_sym\":");
		output_json_str(sb, r->daddr_sym);
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
	if (snap->payload_rows && r->payload) {
		strbuf_addf(sb, ",\"%s\":", snap->payload->name);
		payload_json(sb, snap->payload, r->payload, snap->payload_total);
	}
	strbuf_addch(sb, '}');
}

void output_json(FILE *out, const struct snapshot *snap)
{
	struct strbuf sb;
	size_t i;

	strbuf_init(&sb);
	strbuf_addstr(&sb, "{\"time\":");
	textfmt_fixed(&sb, snap->time, 3);
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
	/* --off-cpu: period is in ns off the CPU. */
	if (snap->off_cpu) {
		strbuf_addstr(&sb, ",\"off_cpu\":{\"ms_per_sec\":");
		textfmt_fixed(&sb, snap->offcpu_ms_per_sec, 3);
		strbuf_addstr(&sb, ",\"switches_per_sec\":");
		textfmt_fixed(&sb, snap->switches_per_sec, 1);
		strbuf_addf(&sb, ",\"dropped\":%llu", (unsigned long long)snap->offcpu_dropped);
		if (snap->offcpu_holes_on)
			strbuf_addf(&sb, ",\"holes\":%llu,\"holes_closed\":%llu,"
				    "\"holes_idle\":%llu,\"cpu_watches\":%llu,\"cpu_unwatches\":%llu",
				    (unsigned long long)snap->offcpu_holes,
				    (unsigned long long)snap->offcpu_holes_closed,
				    (unsigned long long)snap->offcpu_holes_idle,
				    (unsigned long long)snap->offcpu_watches,
				    (unsigned long long)snap->offcpu_unwatches);
		strbuf_addch(&sb, '}');
	}
	if (snap->wall) {
		strbuf_addstr(&sb, ",\"on_cpu\":{\"ms_per_sec\":");
		textfmt_fixed(&sb, snap->oncpu_ms_per_sec, 3);
		strbuf_addch(&sb, '}');
	}
	if (snap->callchains)
		strbuf_addf(&sb,
			    ",\"callchains\":true,\"children_mode\":%s,\"tree_percent\":\"%s\","
			    "\"callchain_nodes_dropped\":%llu",
			    snap->children ? "true" : "false",
			    snap->tree_percent_total ? "total" : "entry",
			    (unsigned long long)snap->callchain_nodes_dropped);
	if (snap->unwind_walks)
		output_json_unwind(&sb, snap);
	if (snap->kallsyms_source) {
		strbuf_addstr(&sb, ",\"kallsyms\":{\"source\":");
		output_json_str(&sb, snap->kallsyms_source);
		strbuf_addf(&sb, ",\"reloads\":%u}", snap->kallsyms_reloads);
	}
	output_json_rings(&sb, snap);
	if (snap->callchain_zero_ends)
		strbuf_addf(&sb, ",\"zero_return_addresses_dropped\":%llu",
			    (unsigned long long)snap->callchain_zero_ends);
	if (snap->payload && !snap->off_cpu) {
		/* the decoder's keys, then its family's (ibs_samples) */
		const char *key[2] = { snap->payload->name, snap->payload->family };

		for (i = 0; i < 2 && key[i]; i++)
			strbuf_addf(&sb, ",\"%s_samples\":%llu,\"not_%s\":%llu", key[i],
				    (unsigned long long)snap->payload_samples, key[i],
				    (unsigned long long)snap->payload_other);
	}
	if (snap->payload_rows) {
		if (snap->payload->format_json_summary)
			snap->payload->format_json_summary(&sb, snap->payload_total);
		strbuf_addf(&sb, ",\"%s\":", snap->payload->name);
		payload_json(&sb, snap->payload, snap->payload_total, snap->payload_total);
	}
	if (snap->order) {
		strbuf_addstr(&sb, ",\"order\":");
		strbuf_add_json_string(&sb, snap->order);
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
	strbuf_addch(&sb, ']');
	if (snap->annotate)
		annotate_out_json(&sb, snap->annotate);
	strbuf_addstr(&sb, "}\n");
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

/* Whether stacks a and b print the same line: one group (the view's
 * stacks split by address or pid for --pprof), same comm and frames. */
static bool output_same_stack(const struct snapshot_stack *a, const struct snapshot_stack *b)
{
	size_t j;

	if (a->group != b->group || a->nr_frames != b->nr_frames || view_strcmp(a->comm, b->comm))
		return false;
	for (j = 0; j < a->nr_frames; j++)
		if (view_strcmp(a->frames[j].symbol, b->frames[j].symbol) ||
		    view_strcmp(a->frames[j].dso, b->frames[j].dso) ||
		    a->frames[j].kernel != b->frames[j].kernel)
			return false;
	return true;
}

void output_folded(FILE *out, const struct snapshot *snap)
{
	struct strbuf sb;
	size_t i, j;

	strbuf_init(&sb);
	if (snap->callchains) {
		for (i = 0; i < snap->nr_stacks; i++) {
			const struct snapshot_stack *st = &snap->stacks[i];
			uint64_t samples = st->samples, period = st->period, weight;

			/* A group (the stacks split by address or pid for
			   --pprof) is one line. */
			while (i + 1 < snap->nr_stacks && output_same_stack(st, &snap->stacks[i + 1])) {
				samples += snap->stacks[++i].samples;
				period += snap->stacks[i].period;
			}
			/* --off-cpu weighs stacks in microseconds off the CPU. */
			weight = snap->off_cpu ? (period + 500) / 1000 : samples;

			if (!weight)
				continue;
			output_folded_name(&sb, st->comm ? st->comm : "[unknown]");
			for (j = 0; j < st->nr_frames; j++) {
				strbuf_addch(&sb, ';');
				output_folded_frame(&sb, st->frames[j].symbol, st->frames[j].dso);
			}
			strbuf_addf(&sb, " %llu\n", (unsigned long long)weight);
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
